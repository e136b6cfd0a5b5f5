//! The Buddy Compression paper's compressibility and target-ratio studies on
//! snapshot workloads (seed 000, Sec. II-C and III-B). Each study is computed
//! from a [`ClassProfile`](crate::class_profile::ClassProfile) and serializes to JSON;
//! tables, CSV and plots are the CLI's.
//!
//! | module | paper | what |
//! |---|---|---|
//! | [`heatmap`] | Fig. 8 | size class of every entry, 64 per row in virtual-address order |
//! | [`ratio_over_time`] | Fig. 3 | compression ratio of each snapshot of a run |
//! | [`designs`] | Fig. 7 | whole-program vs per-allocation vs per-allocation + 16x targets |
//! | [`threshold_sweep`] | Fig. 10 | Buddy Threshold 10%-40% vs the unconstrained ratio |
//! | [`buddy_over_time`] | Fig. 9 | buddy-access fraction per snapshot for fixed targets |
//! | [`held_out`] | Figs. 7, 9, 10 | targets fitted on the first half of the snapshots, scored on the second |
//! | [`memory_modes`] | Fig. 12, 13 | speedup and DRAM energy against the buddy link's bandwidth, from fast-mode runs |
//! | [`cdma_ratios`] | cDMA Fig. 11 | per-layer activation compression ratios of ZVC, RL and zlib over 4 KB windows |
//! | [`cdma_offload`] | cDMA Fig. 12 | bytes offloaded to host memory by cDMA, normalized to vDNN |
//! | [`cdma_performance`] | cDMA Fig. 13 | training step performance of vDNN and cDMA, normalized to the oracle |
//! | [`oversubscription`] | Fig. 14, ETC Fig. 10-14 | UM, ETC's techniques, ETC and Buddy Compression at 0-50% oversubscription and ETC's 33% and 100% |
//! | [`mag`] | MAG-BDI Fig. 14, 19 | DRAM time and bytes of a trace's traffic in MAG-sized bursts on a GDDR5-like memory: uncompressed, BDI, MAG-aware BDI at MAG 16, 32, 64 |
//! | [`minibatch`] | Fig. 15 | DL footprint against the mini-batch size, the largest batch that fits with and without Buddy, projected speedup |

pub mod buddy_over_time;
pub mod cdma_offload;
pub mod cdma_performance;
pub mod cdma_ratios;
pub mod designs;
pub mod heatmap;
pub mod held_out;
pub mod mag;
pub mod memory_modes;
pub mod minibatch;
pub mod oversubscription;
pub mod ratio_over_time;
pub mod threshold_sweep;

/// `part / whole`, or `None` when `whole` is 0.
pub(crate) fn ratio(part: u64, whole: u64) -> Option<f64> {
    (whole != 0).then(|| part as f64 / whole as f64)
}

/// The fraction of entries that do not fit their targets, or with
/// access-weighted profiles
/// ([`ClassProfile::access_weighted_profiles`](crate::class_profile::ClassProfile::access_weighted_profiles))
/// the fraction of a trace's accesses that go to buddy memory.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BuddyFraction {
    /// Mean over the snapshots.
    pub mean: f64,
    /// The worst snapshot.
    pub worst: f64,
}

impl BuddyFraction {
    /// Score `targets` (per allocation) over `profiles`.
    pub fn of(profiles: &[buddy_golden::profiler::AllocationProfile], targets: &[buddy_golden::translation::TargetRatio]) -> Self {
        let f = buddy_golden::profiler::buddy_fraction_per_snapshot(profiles, targets);
        BuddyFraction {
            mean: if f.is_empty() { 0.0 } else { f.iter().sum::<f64>() / f.len() as f64 },
            worst: f.iter().copied().fold(0.0, f64::max),
        }
    }
}

/// How many times each run of a study replays the trace (#49: an iterative
/// program repeats its recorded window, so runs reach their steady state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Iterations {
    /// Exactly this many (at least 1).
    Fixed(u32),
    /// Until the study's figures stop moving; each study states its rule
    /// ([`oversubscription::FAULTS_PER_RUN`], [`memory_modes::SETTLE_TOLERANCE`]).
    Settle,
}
