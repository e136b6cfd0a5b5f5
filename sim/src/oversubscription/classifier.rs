//! ETC's application classification (seed `004_*` Sec. 4.1) and the
//! technique combination its policy engine picks for each class (Sec. 4,
//! Fig. 9).
//!
//! ETC counts coalesced accesses per SM, and takes data sharing between
//! kernels from the compiler. A trace has neither warps nor kernels, so
//! the stand-ins are (**decision**, `docs/oversubscription.md`):
//! - coalescing: the share of accesses that fall in the same 128 B
//!   memory-entry as the previous access to the same allocation (a warp's
//!   lanes reading neighbouring words coalesce; a gather does not);
//! - data sharing: the trace cut into `etc.sharing_phases` equal phases;
//!   the share of the pages each later phase touches that an earlier phase
//!   touched.

use serde::Serialize;

use crate::config::oversubscription::EtcConfig;
use crate::trace::Access;

/// ETC's three application classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AppClass {
    RegularNoSharing,
    RegularSharing,
    Irregular,
}

impl AppClass {
    pub const fn name(self) -> &'static str {
        match self {
            AppClass::RegularNoSharing => "regular, no data sharing",
            AppClass::RegularSharing => "regular, data sharing",
            AppClass::Irregular => "irregular",
        }
    }

    /// ETC's combination for this class: regular without sharing gets
    /// proactive eviction; regular with sharing proactive eviction and
    /// capacity compression; irregular throttling and capacity compression.
    pub const fn techniques(self) -> Techniques {
        match self {
            AppClass::RegularNoSharing => Techniques { proactive_eviction: true, throttling: false, capacity_compression: false },
            AppClass::RegularSharing => Techniques { proactive_eviction: true, throttling: false, capacity_compression: true },
            AppClass::Irregular => Techniques { proactive_eviction: false, throttling: true, capacity_compression: true },
        }
    }
}

/// ETC's techniques, each switchable on its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Techniques {
    pub proactive_eviction: bool,
    pub throttling: bool,
    pub capacity_compression: bool,
}

impl Techniques {
    /// `UM`, `UM+PE`, `UM+PE+CC`, ... as the study prints them.
    pub fn label(self) -> String {
        let mut s = String::from("UM");
        for (on, name) in [(self.proactive_eviction, "+PE"), (self.throttling, "+MT"), (self.capacity_compression, "+CC")] {
            if on {
                s.push_str(name);
            }
        }
        s
    }
}

/// What the classifier measured and decided.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Classification {
    pub coalescing: f64,
    pub sharing: f64,
    pub class: AppClass,
}

/// Classify `accesses`; `page_of` gives an access's migration page.
pub fn classify(accesses: &[Access], page_of: impl Fn(&Access) -> usize, config: &EtcConfig) -> Classification {
    let mut last_entry: std::collections::HashMap<u16, u64> = std::collections::HashMap::new();
    let mut coalesced = 0u64;
    for a in accesses {
        let entry = a.offset as u64 / 128;
        if last_entry.insert(a.alloc_id, entry) == Some(entry) {
            coalesced += 1;
        }
    }
    let coalescing = if accesses.is_empty() { 0.0 } else { coalesced as f64 / accesses.len() as f64 };

    let phases = config.sharing_phases as usize;
    let mut seen = std::collections::HashSet::new();
    let (mut later, mut shared) = (0u64, 0u64);
    for k in 0..phases {
        let part = &accesses[accesses.len() * k / phases..accesses.len() * (k + 1) / phases];
        let pages: std::collections::HashSet<usize> = part.iter().map(&page_of).collect();
        if k > 0 {
            later += pages.len() as u64;
            shared += pages.iter().filter(|p| seen.contains(*p)).count() as u64;
        }
        seen.extend(pages);
    }
    let sharing = if later == 0 { 0.0 } else { shared as f64 / later as f64 };
    let class = if coalescing < config.regular_coalescing {
        AppClass::Irregular
    } else if sharing >= config.sharing_fraction {
        AppClass::RegularSharing
    } else {
        AppClass::RegularNoSharing
    };
    Classification { coalescing, sharing, class }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(alloc_id: u16, offset: u32) -> Access {
        Access { seq: 0, offset, alloc_id, write: false, size: 8 }
    }

    #[test]
    fn streams_are_regular_and_gathers_irregular() {
        let c = EtcConfig::default();
        // Two arrays read in step: every access after an array's first coalesces with its previous one.
        let stream: Vec<Access> = (0..1024u32).flat_map(|i| [access(0, i * 8), access(1, i * 8)]).collect();
        let s = classify(&stream, |a| (a.offset / 2048) as usize + 1000 * a.alloc_id as usize, &c);
        assert!(s.coalescing > 0.9, "{}", s.coalescing);
        // Each phase of the stream touches new pages: no sharing.
        assert_eq!((s.sharing, s.class), (0.0, AppClass::RegularNoSharing));
        // Jumps of 4 KB: nothing coalesces.
        let gather: Vec<Access> = (0..1024u32).map(|i| access(0, (i * 4096) % (1 << 20))).collect();
        assert_eq!(classify(&gather, |a| (a.offset / 65536) as usize, &c).class, AppClass::Irregular);
    }

    #[test]
    fn a_trace_reading_its_data_twice_shares_data() {
        let c = EtcConfig::default();
        let twice: Vec<Access> = (0..2).flat_map(|_| (0..4096u32).map(|i| access(0, i * 8))).collect();
        let s = classify(&twice, |a| (a.offset / 4096) as usize, &c);
        // Phases 2 and 3 re-read phases 0 and 1's pages; phase 1 reads new ones.
        assert!((s.sharing - 2.0 / 3.0).abs() < 1e-9, "{}", s.sharing);
        assert_eq!(s.class, AppClass::RegularSharing);
        assert_eq!(AppClass::Irregular.techniques().label(), "UM+MT+CC");
    }
}
