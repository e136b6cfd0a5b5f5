//! Oversubscription (Buddy Compression Fig. 14, ETC Fig. 10-14): runtime
//! relative to unlimited device memory of Unified Memory alone, UM with
//! each of ETC's techniques, full ETC (the classifier's combination) and
//! Buddy Compression, at each oversubscription, on a workload's trace
//! ([`crate::oversubscription`], `docs/oversubscription.md`).

use buddy_golden::translation::TargetRatio;
use buddy_golden::Algorithm;
use rayon::prelude::*;
use serde::Serialize;

use super::Iterations;
use crate::config::SimConfig;
use crate::memory_system::SimError;
use crate::oversubscription::classifier::{classify, Classification, Techniques};
use crate::oversubscription::{run_oversubscribed, Footprint, OversubscribedInput, OversubscribedRun, System};
use crate::trace::Trace;
use crate::workload::Workload;

/// The study's oversubscriptions: 0 to 50% in steps of 10% (the Buddy
/// paper's Fig. 14 goes to 40%), and ETC's two points, device memories of
/// 75% and 50% of the footprint (ETC Sec. 5: 33% and 100%).
pub const DEFAULT_OVERSUBSCRIPTION: [f64; 8] = [0.0, 0.1, 0.2, 0.3, 1.0 / 3.0, 0.4, 0.5, 1.0];

/// [`Iterations::Settle`] here: start where the unlimited run lasts this
/// many longest faults (a far fault plus one page's migration), at least 2
/// iterations, and double (at most [`MAX_DOUBLINGS`] times) until every
/// slowdown after all iterations is within [`SETTLE_TOLERANCE`] of its
/// slowdown after half of them.
pub const FAULTS_PER_RUN: f64 = 10.0;
/// [`Iterations::Settle`]: largest relative change of a slowdown between
/// half of the iterations and all of them that counts as settled.
pub const SETTLE_TOLERANCE: f64 = 0.05;
/// [`Iterations::Settle`]: at most this many doublings.
pub const MAX_DOUBLINGS: u32 = 1;

/// Device memory in whole pages at `oversubscription` `x` of a footprint of
/// `footprint` bytes (as [`run_oversubscribed`] sizes it).
pub fn capacity_pages(footprint: u64, page_bytes: u64, x: f64) -> u64 {
    (footprint as f64 / (1.0 + x)).floor() as u64 / page_bytes
}

/// The systems, in the order the study prints them; ETC's entry is filled
/// in by the classifier.
fn systems(etc: Techniques) -> [(String, System); 6] {
    let um = |proactive_eviction, throttling, capacity_compression| {
        System::UnifiedMemory(Techniques { proactive_eviction, throttling, capacity_compression })
    };
    [
        ("UM".into(), um(false, false, false)),
        ("UM+PE".into(), um(true, false, false)),
        ("UM+MT".into(), um(false, true, false)),
        ("UM+CC".into(), um(false, false, true)),
        (format!("ETC ({})", etc.label()), System::UnifiedMemory(etc)),
        ("buddy".into(), System::Buddy),
    ]
}

/// One system at one oversubscription.
#[derive(Debug, Clone, Serialize)]
pub struct OversubscriptionPoint {
    pub system: String,
    /// 0.1 = 10%.
    pub oversubscription: f64,
    /// Time / unlimited memory's time; `None` when the run cannot be made.
    pub slowdown: Option<f64>,
    /// Why not, when `slowdown` is `None` (e.g. device memory below one page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_run: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<OversubscribedRun>,
    /// The slowdown after half of the iterations (`None` with 1 iteration
    /// or no run).
    pub slowdown_at_half: Option<f64>,
    /// `slowdown` is within [`SETTLE_TOLERANCE`] of `slowdown_at_half`.
    pub settled: bool,
}

/// The study of one workload.
#[derive(Debug, Clone, Serialize)]
pub struct Oversubscription {
    pub workload: String,
    pub page_bytes: u64,
    /// The pages the trace touches, bytes (ETC's footprint).
    pub footprint_bytes: u64,
    pub classification: Classification,
    /// The combination ETC picks for this workload.
    pub etc: Techniques,
    pub unlimited: OversubscribedRun,
    /// Times every run replayed the trace.
    pub iterations: u32,
    /// The longest fault: a far fault plus one page's migration over the
    /// host link, ns.
    pub longest_fault_ns: f64,
    /// Every point's slowdown settled ([`SETTLE_TOLERANCE`]).
    pub settled: bool,
    /// Oversubscriptions not run because their device memory holds the same
    /// whole pages as an earlier one's: (merged, the one kept).
    pub merged: Vec<(f64, f64)>,
    pub points: Vec<OversubscriptionPoint>,
}

impl Oversubscription {
    /// Run every system at every `oversubscription` on `trace` over
    /// `workload` (memory from its first snapshot), each run replaying the
    /// trace as `iterations` says; Buddy starts from `targets` (per manifest
    /// allocation) with `algorithm`. An oversubscription whose device memory
    /// holds the same whole pages as an earlier one's is not run (`merged`;
    /// capacity compression could use a part page, which this ignores).
    ///
    /// # Errors
    /// What a run reports other than a configuration it cannot honour
    /// (those become points with `not_run`), e.g. a data mismatch.
    pub fn new(
        workload: &Workload,
        trace: &Trace,
        targets: Vec<TargetRatio>,
        algorithm: Algorithm,
        config: &SimConfig,
        oversubscription: &[f64],
        iterations: Iterations,
    ) -> Result<Self, SimError> {
        let page_bytes = config.um.page_bytes();
        let footprint = Footprint::new(workload, trace, page_bytes);
        let classification = classify(&trace.accesses, |a| footprint.pages_of(a).0, &config.etc);
        let etc = classification.class.techniques();
        let lcp = footprint.lcp_page_bytes(workload, trace);
        let run = |system: System, x: f64, n: u32| {
            run_oversubscribed(&OversubscribedInput {
                workload,
                trace,
                config,
                oversubscription: x,
                system,
                algorithm,
                targets: targets.clone(),
                lcp_page_bytes: Some(&lcp),
                iterations: n,
            })
        };
        // bytes / (GB/s) = ns
        let longest_fault_ns = config.um.fault_us * 1000.0 + page_bytes as f64 / config.um.link_gbps;
        let mut n = match iterations {
            Iterations::Fixed(n) => n,
            Iterations::Settle => {
                let once = run(System::Unlimited, 0.0, 1)?.time_ns;
                ((FAULTS_PER_RUN * longest_fault_ns / once.max(1.0)).ceil() as u32).max(2)
            }
        };
        // One run per distinct device memory in whole pages.
        let bytes = footprint.bytes();
        let mut kept: Vec<f64> = Vec::new();
        let mut merged = Vec::new();
        for &x in oversubscription {
            match kept.iter().find(|&&k| capacity_pages(bytes, page_bytes, k) == capacity_pages(bytes, page_bytes, x)) {
                Some(&k) if k != x => merged.push((x, k)),
                Some(_) => {}
                None => kept.push(x),
            }
        }
        let jobs: Vec<(String, System, f64)> = kept
            .iter()
            .flat_map(|&x| {
                systems(etc).into_iter().map(move |(name, s)| {
                    // ETC turns its techniques on when memory is oversubscribed.
                    let s = if x == 0.0 && name.starts_with("ETC") { System::UnifiedMemory(Techniques::default()) } else { s };
                    (name, s, x)
                })
            })
            .collect();
        let mut doublings = 0;
        loop {
            let unlimited = run(System::Unlimited, 0.0, n)?;
            let slowdown_at = |r: &OversubscribedRun, k: usize| r.iteration_end_ns[k - 1] / unlimited.iteration_end_ns[k - 1];
            let points = jobs
                .par_iter()
                .map(|(name, system, x)| match run(*system, *x, n) {
                    Ok(r) => {
                        let (all, half) = (slowdown_at(&r, n as usize), (n >= 2).then(|| slowdown_at(&r, n as usize / 2)));
                        Ok(OversubscriptionPoint {
                            system: name.clone(),
                            oversubscription: *x,
                            slowdown: Some(all),
                            not_run: None,
                            run: Some(r),
                            slowdown_at_half: half,
                            settled: half.is_some_and(|h| (all / h - 1.0).abs() <= SETTLE_TOLERANCE),
                        })
                    }
                    Err(SimError::Config(why)) => Ok(OversubscriptionPoint {
                        system: name.clone(),
                        oversubscription: *x,
                        slowdown: None,
                        not_run: Some(why),
                        run: None,
                        slowdown_at_half: None,
                        settled: true,
                    }),
                    Err(e) => Err(e),
                })
                .collect::<Result<Vec<_>, SimError>>()?;
            let settled = points.iter().all(|p| p.settled);
            if settled || iterations != Iterations::Settle || doublings == MAX_DOUBLINGS {
                return Ok(Oversubscription {
                    workload: workload.manifest().workload.clone(),
                    page_bytes,
                    footprint_bytes: bytes,
                    classification,
                    etc,
                    unlimited,
                    iterations: n,
                    longest_fault_ns,
                    settled,
                    merged,
                    points,
                });
            }
            n *= 2;
            doublings += 1;
        }
    }

    /// The systems' names in print order.
    pub fn system_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for p in &self.points {
            if !names.contains(&p.system) {
                names.push(p.system.clone());
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_memory_is_counted_in_whole_pages() {
        // 8 pages: 20%, 30% and 33% all leave 6 whole pages, 40% and 50% 5.
        let (fp, page) = (8 * 65536, 65536);
        let pages: Vec<u64> = DEFAULT_OVERSUBSCRIPTION.iter().map(|&x| capacity_pages(fp, page, x)).collect();
        assert_eq!(pages, [8, 7, 6, 6, 6, 5, 5, 4]);
    }
}
