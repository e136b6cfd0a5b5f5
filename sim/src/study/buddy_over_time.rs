//! Buddy-access fraction per snapshot for fixed targets (Buddy Compression
//! Fig. 9): the targets are chosen once (by the profiler, given by an
//! annotation, or one ratio for everything) and every snapshot of the run is
//! checked against them.

use buddy_golden::profiler::{buddy_fraction_per_snapshot, overall_ratio};
use buddy_golden::translation::TargetRatio;
use serde::Serialize;

use crate::class_profile::ClassProfile;
use crate::trace::Trace;

/// One fixed set of targets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuddySeries {
    /// What the targets are (`profiled at 30%`, `2x everywhere`, ...).
    pub name: String,
    /// Their overall ratio.
    pub overall_ratio: f64,
    /// Per snapshot, the fraction of entries not fitting their target.
    pub buddy_fraction: Vec<f64>,
    /// With a trace: per snapshot, the fraction of its accesses that go to
    /// buddy memory (each entry weighted by its accesses).
    pub buddy_access_fraction: Option<Vec<f64>>,
}

/// The study of one workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuddyOverTime {
    pub workload: String,
    pub algorithm: String,
    /// Manifest index of each snapshot.
    pub snapshots: Vec<usize>,
    pub series: Vec<BuddySeries>,
}

impl BuddyOverTime {
    /// Each `(name, targets)` (targets per allocation, manifest order) over
    /// every snapshot of `profile`; with `trace`, also weighted by its
    /// accesses.
    ///
    /// # Panics
    /// If a target list's length differs from the number of allocations.
    pub fn new(profile: &ClassProfile, target_sets: &[(String, Vec<TargetRatio>)], trace: Option<&Trace>) -> Self {
        let allocations = profile.allocation_profiles();
        let weighted = trace.map(|t| profile.access_weighted_profiles(t));
        let series = target_sets
            .iter()
            .map(|(name, targets)| {
                assert_eq!(targets.len(), allocations.len(), "one target per allocation");
                BuddySeries {
                    name: name.clone(),
                    overall_ratio: overall_ratio(&allocations, targets),
                    buddy_fraction: buddy_fraction_per_snapshot(&allocations, targets),
                    buddy_access_fraction: weighted.as_ref().map(|w| buddy_fraction_per_snapshot(w, targets)),
                }
            })
            .collect();
        BuddyOverTime {
            workload: profile.workload.clone(),
            algorithm: profile.algorithm.to_string(),
            snapshots: profile.snapshots.iter().map(|s| s.index).collect(),
            series,
        }
    }
}
