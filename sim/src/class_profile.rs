//! A workload's memory-entries as size classes, per snapshot and allocation:
//! the input of the target-ratio profiler (docs/formats.md#profiler) and of the
//! paper's compressibility studies (Buddy Compression Sec. II-C, III-B).
//!
//! Built from one algorithm's [`AlgorithmResult`] of a
//! [`CompressionStudy`](crate::CompressionStudy), so every class comes from
//! the golden codecs.

use buddy_golden::profiler::{AllocationProfile, ClassHistogram};
use buddy_golden::{Algorithm, SizeClass};

use crate::compression_study::AlgorithmResult;

/// Size classes of every entry of a workload under one algorithm.
#[derive(Debug, Clone)]
pub struct ClassProfile {
    /// Workload name.
    pub workload: String,
    /// The algorithm that produced the classes.
    pub algorithm: Algorithm,
    /// Allocation names in manifest order (= virtual-address order, §7).
    pub allocations: Vec<String>,
    /// Per snapshot, in manifest order.
    pub snapshots: Vec<SnapshotClasses>,
}

/// One snapshot's classes.
#[derive(Debug, Clone)]
pub struct SnapshotClasses {
    /// The snapshot's manifest `index`.
    pub index: usize,
    /// When in the run it was taken.
    pub label: Option<String>,
    /// Per allocation (manifest order), the class of each entry in address order.
    pub classes: Vec<Vec<SizeClass>>,
}

impl ClassProfile {
    /// The classes of `result`, one algorithm's study of workload `workload`.
    pub fn new(workload: &str, result: &AlgorithmResult) -> Self {
        let allocations = result.snapshots.first().map(|s| s.allocations.iter().map(|a| a.name.clone()).collect()).unwrap_or_default();
        let snapshots = result
            .snapshots
            .iter()
            .map(|s| SnapshotClasses {
                index: s.index,
                label: s.label.clone(),
                classes: s.allocations.iter().map(|a| a.entries.iter().map(|e| e.class).collect()).collect(),
            })
            .collect();
        ClassProfile { workload: workload.to_string(), algorithm: result.algorithm, allocations, snapshots }
    }

    /// Per allocation, its class histogram in every snapshot: what the
    /// profiler ([`buddy_golden::profiler::profile`]) takes.
    pub fn allocation_profiles(&self) -> Vec<AllocationProfile> {
        self.allocations
            .iter()
            .enumerate()
            .map(|(i, name)| AllocationProfile {
                name: name.clone(),
                snapshots: self.snapshots.iter().map(|s| ClassHistogram::of(s.classes[i].iter().copied())).collect(),
            })
            .collect()
    }

    /// The histogram of a whole snapshot (position in manifest order).
    pub fn snapshot_histogram(&self, position: usize) -> ClassHistogram {
        ClassHistogram::of(self.snapshots[position].classes.iter().flatten().copied())
    }

    /// Entries per snapshot.
    pub fn entries_per_snapshot(&self) -> u64 {
        self.snapshots.first().map_or(0, |s| s.classes.iter().map(|c| c.len() as u64).sum())
    }
}
