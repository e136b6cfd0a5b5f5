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
use crate::trace::Trace;

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

    /// Per allocation, its class histogram in every snapshot with each entry
    /// counted once per access of `trace` to it (an access counts for the
    /// entry of its first byte; entries the trace does not access count 0,
    /// and so do accesses to allocations the snapshots do not hold). With
    /// these histograms [`buddy_golden::profiler::buddy_fraction_per_snapshot`]
    /// gives the fraction of *accesses* that go to buddy memory, where the
    /// entry-counted profiles give the fraction of entries (Buddy
    /// Compression Sec. III-B: the profiler's "buddy accesses").
    pub fn access_weighted_profiles(&self, trace: &Trace) -> Vec<AllocationProfile> {
        let entry = buddy_golden::ENTRY_BYTES as u64;
        // Per trace allocation: its position here, if the snapshots hold it.
        let position: Vec<Option<usize>> =
            trace.meta.allocations.iter().map(|t| self.allocations.iter().position(|a| *a == t.name)).collect();
        let mut weights: Vec<Vec<u64>> =
            self.snapshots.first().map(|s| s.classes.iter().map(|c| vec![0; c.len()]).collect()).unwrap_or_default();
        for a in &trace.accesses {
            if let Some(Some(i)) = position.get(a.alloc_id as usize) {
                if let Some(w) = weights[*i].get_mut((a.offset as u64 / entry) as usize) {
                    *w += 1;
                }
            }
        }
        self.allocations
            .iter()
            .enumerate()
            .map(|(i, name)| AllocationProfile {
                name: name.clone(),
                snapshots: self
                    .snapshots
                    .iter()
                    .map(|s| {
                        let mut h = ClassHistogram::default();
                        for (class, w) in s.classes[i].iter().zip(&weights[i]) {
                            h.0[class.code() as usize] += w;
                        }
                        h
                    })
                    .collect(),
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

#[cfg(test)]
mod tests {
    use buddy_golden::translation::TargetRatio;

    use super::*;
    use crate::class_profile::SnapshotClasses;
    use crate::trace::{Access, TraceAllocation, TraceMeta, TraceSource};

    #[test]
    fn access_weighted_profiles_count_each_entry_once_per_access() {
        // Allocation "a": entry 0 ZERO, entry 1 RAW; "b": one RAW entry.
        let cp = ClassProfile {
            workload: "toy".into(),
            algorithm: Algorithm::Bpc,
            allocations: vec!["a".into(), "b".into()],
            snapshots: vec![SnapshotClasses {
                index: 0,
                label: None,
                classes: vec![vec![SizeClass::Zero, SizeClass::Raw], vec![SizeClass::Raw]],
            }],
        };
        let alloc = |id: u32, name: &str| TraceAllocation { id, name: name.into(), size: 256, in_snapshot: true };
        let access = |alloc_id: u16, offset: u32| Access { seq: 0, offset, alloc_id, write: false, size: 4 };
        // The trace knows "b" first, then "a", then a temporary "t"; entry 0
        // of "a" is read three times, entry 1 once (at its last byte), "b"
        // never, "t" twice, and an offset past "a"'s entries once.
        let trace = Trace {
            meta: TraceMeta { description: None, allocations: vec![alloc(0, "b"), alloc(1, "a"), alloc(2, "t")] },
            accesses: vec![access(1, 0), access(1, 64), access(1, 124), access(1, 255), access(2, 0), access(2, 8), access(1, 4096)],
            source: TraceSource::Recorded,
        };
        let w = cp.access_weighted_profiles(&trace);
        assert_eq!(w[0].snapshots[0].0, [3, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(w[1].snapshots[0].0, [0; 8]);
        // At 4x RAW does not fit: one access of four goes to buddy memory,
        // where one entry of three does.
        let f = buddy_golden::profiler::buddy_fraction_per_snapshot(&w, &[TargetRatio::X4, TargetRatio::X4]);
        assert_eq!(f, [0.25]);
        let e = buddy_golden::profiler::buddy_fraction_per_snapshot(&cp.allocation_profiles(), &[TargetRatio::X4, TargetRatio::X4]);
        assert!((e[0] - 2.0 / 3.0).abs() < 1e-12);
    }
}
