//! Compression ratio over the snapshots of a run (Buddy Compression Fig. 3):
//! every entry stored at exactly its size-class bytes (the paper's optimistic
//! 0/8/16/32/64/80/96/128 B sizes, no target ratio, no page packing).

use buddy_golden::profiler::ClassHistogram;
use serde::Serialize;

use super::ratio;
use crate::class_profile::ClassProfile;

/// One snapshot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SnapshotRatio {
    pub index: usize,
    pub label: Option<String>,
    pub entries: u64,
    /// Fraction of entries of class ZERO.
    pub zero_fraction: f64,
    /// Uncompressed bytes / class bytes (`None` when every entry is zero).
    pub ratio: Option<f64>,
}

/// The study of one workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatioOverTime {
    pub workload: String,
    pub algorithm: String,
    pub snapshots: Vec<SnapshotRatio>,
    /// Over all snapshots together.
    pub run_ratio: Option<f64>,
}

impl RatioOverTime {
    /// The study of `profile`.
    pub fn new(profile: &ClassProfile) -> Self {
        let mut run = ClassHistogram::default();
        let snapshots = profile
            .snapshots
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let h = profile.snapshot_histogram(i);
                run.add(&h);
                SnapshotRatio {
                    index: s.index,
                    label: s.label.clone(),
                    entries: h.entries(),
                    zero_fraction: ratio(h.0[0], h.entries()).unwrap_or(0.0),
                    ratio: ratio(h.entries() * 128, h.class_bytes()),
                }
            })
            .collect();
        RatioOverTime {
            workload: profile.workload.clone(),
            algorithm: profile.algorithm.to_string(),
            snapshots,
            run_ratio: ratio(run.entries() * 128, run.class_bytes()),
        }
    }
}
