//! Device memory smaller than the footprint: Unified Memory (UM) demand
//! paging, ETC's techniques on top of it (seed `004_*`), and Buddy
//! Compression (seed `000_*` Sec. V-C, Fig. 14), each replaying a trace
//! through the same L2, HBM2 and link models as `buddy sim`
//! (`docs/oversubscription.md`).
//!
//! | module | what |
//! |---|---|
//! | [`config`] | the `[um]` and `[etc]` TOML tables |
//! | [`unified_memory`] | pages, far faults, migrations, LRU and proactive eviction |
//! | [`throttle`] | ETC's epoch-based SM throttling |
//! | [`classifier`] | ETC's application classes and their techniques |
//! | [`streams`] | the trace as thread blocks on SMs |
//!
//! Oversubscription `x` (0.1 = 10%): the footprint is `1 + x` times the
//! device memory, so device memory = footprint / (1 + x). The footprint is
//! ETC's (Sec. 4.2): the migration pages the trace touches, of the trace's
//! allocations laid out back to back on 4 KB boundaries (LCP's page) from
//! address 0.

pub mod classifier;
pub mod streams;
pub mod throttle;
pub mod unified_memory;

use buddy_golden::translation::TargetRatio;
use buddy_golden::{Algorithm, ENTRY_BYTES};
use serde::Serialize;

use crate::config::SimConfig;
use crate::memory_system::{Mode, Session, SimError, SimInput, SimReport};
use crate::trace::{Access, AddressLayout, Trace};
use crate::workload::Workload;
use classifier::Techniques;
use throttle::{Throttle, ThrottleStats};
use unified_memory::{PagingStats, UnifiedMemory};

/// LCP's page, bytes (golden `lcp::PAGE_BYTES`): the managed layout's alignment.
pub const LCP_PAGE_BYTES: u64 = buddy_golden::lcp::PAGE_BYTES as u64;

/// Capacity compression's line codec (ETC Sec. 4.4: BDI).
pub const CAPACITY_CODEC: Algorithm = Algorithm::Bdi;

/// How device memory is managed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum System {
    /// Device memory as large as the footprint, nothing compressed: the
    /// baseline every run is compared with.
    Unlimited,
    /// Unified Memory demand paging with the given ETC techniques on.
    UnifiedMemory(Techniques),
    /// Buddy Compression: device memory holds each entry's device part
    /// (targets raised until they fit), the rest is in buddy memory over
    /// NVLink; nothing pages.
    Buddy,
}

impl System {
    /// `unlimited`, `UM`, `UM+PE`, ..., `buddy`.
    pub fn label(self) -> String {
        match self {
            System::Unlimited => "unlimited".into(),
            System::UnifiedMemory(t) => t.label(),
            System::Buddy => "buddy".into(),
        }
    }
}

/// One run.
pub struct OversubscribedInput<'a> {
    pub workload: &'a Workload,
    pub trace: &'a Trace,
    pub config: &'a SimConfig,
    /// 0.1: the footprint is 10% larger than device memory.
    pub oversubscription: f64,
    pub system: System,
    /// Buddy Compression's algorithm.
    pub algorithm: Algorithm,
    /// Buddy's targets per manifest allocation, before any is raised to fit.
    pub targets: Vec<TargetRatio>,
    /// Capacity compression's bytes per migration page (from
    /// [`Footprint::lcp_page_bytes`]); needed only for runs with it on.
    pub lcp_page_bytes: Option<&'a [u64]>,
    /// Times the trace is replayed back to back (at least 1): an iterative
    /// program repeats its recorded window (a CG iteration, a V-cycle, a
    /// training step), so paging reaches its steady state.
    pub iterations: u32,
}

/// What one run measured.
#[derive(Debug, Clone, Serialize)]
pub struct OversubscribedRun {
    pub system: String,
    pub oversubscription: f64,
    pub footprint_bytes: u64,
    pub device_memory_bytes: u64,
    /// Device bytes the touched data needs: the footprint (unlimited, UM),
    /// its LCP pages (capacity compression), its entries' device parts
    /// (Buddy; at most `device_memory_bytes`).
    pub data_device_bytes: u64,
    pub time_ns: f64,
    pub requests: u64,
    /// Under UM.
    pub paging: Option<PagingStats>,
    /// Under memory-aware throttling.
    pub throttle: Option<ThrottleStats>,
    /// Compression metadata fills and write-backs between the metadata
    /// cache and DRAM (capacity compression's and Buddy's).
    pub metadata_accesses: u64,
    /// Uncompressed / device bytes of the touched data: footprint / LCP
    /// pages' bytes under capacity compression, the touched entries' bytes
    /// / their device parts under Buddy; 1 otherwise.
    pub compression_ratio: f64,
    /// Buddy: share of requests that went to buddy memory.
    pub buddy_access_fraction: f64,
    /// Read responses checked against the shadow memory (all matched).
    pub checked_reads: u64,
    /// Times the trace was replayed.
    pub iterations: u32,
    /// When each iteration ended (its last request done), ns; the last is
    /// `time_ns`.
    pub iteration_end_ns: Vec<f64>,
}

/// The trace's allocations laid out back to back on LCP page boundaries
/// from address 0, manifest ones first (as [`AddressLayout`]), cut into
/// migration pages, and which of them the trace touches.
#[derive(Debug, Clone)]
pub struct Footprint {
    pub layout: AddressLayout,
    pub page_bytes: u64,
    /// Per page of the layout: touched by the trace.
    pub touched: Vec<bool>,
}

impl Footprint {
    /// The footprint of `trace` over `workload`'s snapshot 0 in pages of `page_bytes`.
    pub fn new(workload: &Workload, trace: &Trace, page_bytes: u64) -> Footprint {
        let order: Vec<(String, u64)> = workload
            .snapshots()
            .next()
            .map(|s| s.allocations().map(|a| (a.info().name.clone(), a.info().size)).collect())
            .unwrap_or_default();
        let layout = AddressLayout::new(&trace.meta, &order, 0, LCP_PAGE_BYTES);
        let mut fp = Footprint { touched: vec![false; layout.end.div_ceil(page_bytes) as usize], layout, page_bytes };
        for a in &trace.accesses {
            let (first, last) = fp.pages_of(a);
            fp.touched[first] = true;
            fp.touched[last] = true;
        }
        fp
    }

    /// Touched pages x page size (ETC's footprint).
    pub fn bytes(&self) -> u64 {
        self.touched.iter().filter(|t| **t).count() as u64 * self.page_bytes
    }

    /// The migration pages of access `a`'s first and last byte (the same
    /// page unless it straddles a boundary).
    pub fn pages_of(&self, a: &Access) -> (usize, usize) {
        let first = self.layout.base[a.alloc_id as usize] + a.offset as u64;
        ((first / self.page_bytes) as usize, ((first + a.size.max(1) as u64 - 1) / self.page_bytes) as usize)
    }

    /// Device bytes of each migration page under capacity compression:
    /// the sum of its 4 KB LCP pages' physical sizes over snapshot 0's
    /// data. Only the snapshot's bytes are compressed (ETC Sec. 4.4
    /// compresses the data in memory): an LCP page the snapshot does not
    /// hold (an allocation only the trace knows, or past the bytes a
    /// sampled allocation's snapshot holds) takes its 4 KB, not a zero
    /// page's 512 bytes.
    pub fn lcp_page_bytes(&self, workload: &Workload, trace: &Trace) -> Vec<u64> {
        use buddy_golden::lcp::physical_bytes_of;
        let per_page = (self.page_bytes / LCP_PAGE_BYTES) as usize;
        let mut small = vec![LCP_PAGE_BYTES; self.touched.len() * per_page];
        if let Some(snap) = workload.snapshots().next() {
            for a in snap.allocations() {
                let Some(id) = trace.meta.allocations.iter().position(|t| t.name == a.info().name) else { continue };
                let first = (self.layout.base[id] / LCP_PAGE_BYTES) as usize;
                // physical_bytes_of zero-pads a short last page.
                for (k, page) in a.bytes().chunks(LCP_PAGE_BYTES as usize).enumerate() {
                    small[first + k] = physical_bytes_of(page);
                }
            }
        }
        small.chunks(per_page).map(|c| c.iter().sum()).collect()
    }
}

/// Buddy's targets fitted to a device memory.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedTargets {
    /// Per manifest allocation.
    pub targets: Vec<TargetRatio>,
    /// Device bytes of the touched pages' entries at these targets.
    pub device_bytes: u64,
    /// Those entries' uncompressed bytes.
    pub entry_bytes: u64,
}

/// Raise `targets` (per manifest allocation) until the device parts of
/// the entries in the footprint's touched pages fit `capacity` bytes; `None` when even
/// 16x does not fit. Each step raises the allocation whose next target
/// sends the fewest more entries to buddy memory per device byte saved
/// (entries' stored sizes from snapshot 0 under `algorithm`). Allocations
/// only the trace knows are at 2x (as [`crate::memory_system::run`]
/// places them).
pub fn fit_targets(
    workload: &Workload,
    trace: &Trace,
    footprint: &Footprint,
    algorithm: Algorithm,
    mut targets: Vec<TargetRatio>,
    capacity: u64,
) -> Option<FittedTargets> {
    let entry = ENTRY_BYTES as u64;
    let Footprint { layout, page_bytes, touched } = footprint;
    let in_touched = |id: usize, e: u64| touched.get(((layout.base[id] + e * entry) / page_bytes) as usize).copied().unwrap_or(false);
    let codec = algorithm.codec();
    let snap = workload.snapshots().next();
    let manifest: Vec<_> = snap.map(|s| s.allocations().collect()).unwrap_or_default();
    // Per manifest allocation: the stored bytes of each touched entry.
    let mut stored: Vec<Vec<u64>> = vec![Vec::new(); manifest.len()];
    let mut fixed = 0u64;
    for (id, a) in trace.meta.allocations.iter().enumerate() {
        match manifest.iter().position(|m| m.info().name == a.name) {
            Some(i) => {
                let bytes = manifest[i].bytes();
                let entries = a.size.max(manifest[i].info().size).div_ceil(entry);
                for e in (0..entries).filter(|&e| in_touched(id, e)) {
                    let at = (e * entry) as usize;
                    let mut raw = [0u8; ENTRY_BYTES];
                    if at < bytes.len() {
                        let end = (at + ENTRY_BYTES).min(bytes.len());
                        raw[..end - at].copy_from_slice(&bytes[at..end]);
                    }
                    stored[i].push(codec.compress(&buddy_golden::MemoryEntry::from_bytes(&raw)).class.bytes() as u64);
                }
            }
            None => fixed += (0..a.size.div_ceil(entry)).filter(|&e| in_touched(id, e)).count() as u64 * TargetRatio::X2.device_bytes(),
        }
    }
    let next = |t: TargetRatio| TargetRatio::ALL.iter().position(|x| *x == t).and_then(|i| TargetRatio::ALL.get(i + 1)).copied();
    let overflow = |i: usize, t: TargetRatio| stored[i].iter().filter(|b| **b > t.device_bytes()).count() as f64;
    loop {
        let device: u64 = fixed + stored.iter().zip(&targets).map(|(s, t)| s.len() as u64 * t.device_bytes()).sum::<u64>();
        if device <= capacity {
            let entries = stored.iter().map(Vec::len).sum::<usize>() as u64 + fixed / TargetRatio::X2.device_bytes();
            return Some(FittedTargets { targets, device_bytes: device, entry_bytes: entries * entry });
        }
        let cost = |i: usize, t: TargetRatio, n: TargetRatio| {
            (overflow(i, n) - overflow(i, t)) / (stored[i].len() as u64 * (t.device_bytes() - n.device_bytes())) as f64
        };
        let (i, n) = (0..stored.len())
            .filter(|&i| !stored[i].is_empty())
            .filter_map(|i| next(targets[i]).map(|n| (i, n)))
            .min_by(|&(a, na), &(b, nb)| cost(a, targets[a], na).total_cmp(&cost(b, targets[b], nb)))?;
        targets[i] = n;
    }
}

/// Run one system at one oversubscription.
///
/// # Errors
/// A configuration the run cannot honour (device memory below one page,
/// Buddy targets that cannot fit), or what the memory system reports.
pub fn run_oversubscribed(input: &OversubscribedInput) -> Result<OversubscribedRun, SimError> {
    let config = input.config;
    config.validate().map_err(|e| SimError::Config(e.to_string()))?;
    if !(0.0..=100.0).contains(&input.oversubscription) {
        return Err(SimError::Config(format!("oversubscription {} is outside 0 to 100 (10000%)", input.oversubscription)));
    }
    if input.iterations == 0 {
        return Err(SimError::Config("iterations must be at least 1".into()));
    }
    let iterations = input.iterations;
    let page_bytes = config.um.page_bytes();
    let fp = Footprint::new(input.workload, input.trace, page_bytes);
    let pages = fp.touched.len() as u64;
    let footprint = fp.bytes();
    let capacity = (footprint as f64 / (1.0 + input.oversubscription)).floor() as u64;
    let techniques = match input.system {
        System::UnifiedMemory(t) => Some(t),
        _ => None,
    };
    let compress = techniques.is_some_and(|t| t.capacity_compression);
    let mut buddy_fit = None;
    let (mode, algorithm, targets) = match input.system {
        System::Buddy => {
            let fitted =
                fit_targets(input.workload, input.trace, &fp, input.algorithm, input.targets.clone(), capacity).ok_or_else(|| {
                    SimError::Config(format!("Buddy Compression cannot fit the footprint into {capacity} bytes even at 16x targets"))
                })?;
            buddy_fit = Some((fitted.entry_bytes, fitted.device_bytes));
            (Mode::Buddy, input.algorithm, Some(fitted.targets))
        }
        // Capacity compression: LCP with BDI. Its DRAM side is the
        // bandwidth-only mode with BDI: only a line's stored sectors move,
        // and metadata comes through the metadata cache.
        _ if compress => (Mode::BandwidthOnly, CAPACITY_CODEC, None),
        _ => (Mode::Uncompressed, input.algorithm, None),
    };
    let sim_input = SimInput {
        workload: input.workload,
        trace: input.trace,
        targets,
        snapshot: 0,
        algorithm,
        mode,
        config,
        progress: None,
        corrupt_first_entry: false,
        rtl: None,
        iterations: 1,
    };
    let mut session = Session::open(&sim_input)?;
    let um_cfg = &config.um;
    let sms = um_cfg.sms as usize;
    let per_sm = (config.requests_in_flight() / sms).max(1);
    let blocks = um_cfg.thread_blocks as usize;
    let pages_of = |a: &Access| fp.pages_of(a);

    let mut ends = Vec::with_capacity(iterations as usize);
    let (finished, paging, throttle, device_bytes) = match techniques {
        None => {
            let finished = streams::iterate(&mut session, iterations, &mut ends, |session| {
                streams::replay(session, &input.trace.accesses, sms, blocks, per_sm, None)
            })?;
            (finished, None, None, None)
        }
        Some(t) => {
            let sizes: Vec<u64> = if t.capacity_compression {
                let lcp = input.lcp_page_bytes.ok_or_else(|| SimError::Config("capacity compression needs the LCP page sizes".into()))?;
                if lcp.len() as u64 != pages {
                    return Err(SimError::Config(format!("{} LCP page sizes for {pages} pages", lcp.len())));
                }
                lcp.to_vec()
            } else {
                vec![page_bytes; pages as usize]
            };
            let device_bytes: u64 = sizes.iter().zip(&fp.touched).filter(|(_, t)| **t).map(|(s, _)| s).sum();
            let mut um = UnifiedMemory::new(capacity, sizes, um_cfg.fault_us, um_cfg.link_gbps).map_err(|e| {
                SimError::Config(format!(
                    "{e}: {}% oversubscription of {footprint} bytes at um.page = {} bytes",
                    input.oversubscription * 100.0,
                    um_cfg.page.bytes()
                ))
            })?;
            let oversubscribed = device_bytes > capacity;
            // ETC's proactive eviction unit acts only on an oversubscribed memory.
            if t.proactive_eviction && oversubscribed {
                um.set_proactive_eviction(config.etc.proactive_free_bytes.min(capacity / 8).max(page_bytes));
            }
            // The state the run reaches before the traced window.
            for a in &input.trace.accesses {
                let (first, last) = pages_of(a);
                um.warm(first);
                um.warm(last);
            }
            um.end_warm_up();
            let mut throttle = (t.throttling && oversubscribed).then(|| Throttle::new(sms, config.etc.detect_us, config.etc.execute_us));
            let finished = streams::iterate(&mut session, iterations, &mut ends, |session| {
                let paging = streams::Paging { um: &mut um, pages_of: &pages_of, throttle: throttle.as_mut() };
                streams::replay(session, &input.trace.accesses, sms, blocks, per_sm, Some(paging))
            })?;
            (finished, Some(um.stats()), throttle.map(|t| t.stats()), Some(device_bytes))
        }
    };
    let report: SimReport = session.finish()?;
    let time_ns = report.time_ns.max(finished as f64 / 1000.0);
    ends.push(time_ns);
    let compression_ratio = match (input.system, device_bytes) {
        (System::Buddy, _) => buddy_fit.map_or(1.0, |(raw, device)| raw as f64 / device.max(1) as f64),
        (_, Some(d)) if compress => footprint as f64 / d.max(1) as f64,
        _ => 1.0,
    };
    Ok(OversubscribedRun {
        system: input.system.label(),
        oversubscription: input.oversubscription,
        footprint_bytes: footprint,
        device_memory_bytes: capacity,
        data_device_bytes: match (buddy_fit, device_bytes) {
            (Some((_, d)), _) => d,
            (None, Some(d)) => d,
            (None, None) => footprint,
        },
        time_ns,
        requests: report.requests,
        paging,
        throttle,
        metadata_accesses: report.metadata.fills + report.metadata.write_backs,
        compression_ratio,
        buddy_access_fraction: report.buddy_access_fraction,
        checked_reads: report.checked_reads,
        iterations,
        iteration_end_ns: ends,
    })
}
