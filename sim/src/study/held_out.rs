//! Out-of-sample scoring of the target-ratio profiler (#49): the targets are
//! chosen on the first half of a run's snapshots and scored on the second
//! half, which they have not seen.
//!
//! The paper's profiler (Buddy Compression Sec. III-B) fits each target to
//! the worst snapshot of a profiling run and then runs the program with it;
//! scoring the targets on the snapshots they were fitted to (in-sample) can
//! never show a snapshot over the Buddy Threshold, so Figs. 7, 9 and 10 are
//! reported both ways.

use buddy_golden::profiler::{overall_ratio, profile, AllocationProfile, ProfileError, ProfilerConfig};
use buddy_golden::translation::TargetRatio;
use serde::Serialize;

use super::BuddyFraction;
use crate::class_profile::ClassProfile;

/// Targets fitted on some snapshots, scored on the others.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeldOut {
    /// Manifest indices of the snapshots the profiler saw (the first half, in run order).
    pub fitted_on: Vec<usize>,
    /// Manifest indices of the snapshots scored (the second half).
    pub scored_on: Vec<usize>,
    /// The fitted targets, per allocation in manifest order.
    #[serde(skip)]
    pub targets: Vec<TargetRatio>,
    /// Uncompressed bytes / device bytes of the fitted targets.
    pub overall_ratio: f64,
    /// Fraction of entries not fitting their target, mean over the scored snapshots.
    pub buddy_fraction_mean: f64,
    /// The same, worst scored snapshot.
    pub buddy_fraction_worst: f64,
}

/// The snapshot position where the scored half begins: `n / 2` (the fitted
/// half is the smaller one when `n` is odd), or `None` below 2 snapshots.
pub fn split_at(snapshots: usize) -> Option<usize> {
    (snapshots >= 2).then_some(snapshots / 2)
}

/// Per allocation, the histograms of snapshot positions `range` only.
fn restricted(allocations: &[AllocationProfile], range: std::ops::Range<usize>) -> Vec<AllocationProfile> {
    allocations.iter().map(|a| AllocationProfile { name: a.name.clone(), snapshots: a.snapshots[range.clone()].to_vec() }).collect()
}

/// Profile the first half of `class_profile`'s snapshots with `config` and
/// score the chosen targets on the second half; `None` for a run of fewer
/// than 2 snapshots.
///
/// # Errors
/// [`ProfileError`] as [`profile`] returns it (a threshold outside (0, 1),
/// no allocations).
pub fn held_out(class_profile: &ClassProfile, config: &ProfilerConfig) -> Result<Option<HeldOut>, ProfileError> {
    let n = class_profile.snapshots.len();
    let Some(at) = split_at(n) else { return Ok(None) };
    let allocations = class_profile.allocation_profiles();
    let fitted = profile(&restricted(&allocations, 0..at), config)?;
    let targets = fitted.targets();
    let scored = BuddyFraction::of(&restricted(&allocations, at..n), &targets);
    let indices: Vec<usize> = class_profile.snapshots.iter().map(|s| s.index).collect();
    Ok(Some(HeldOut {
        fitted_on: indices[..at].to_vec(),
        scored_on: indices[at..].to_vec(),
        overall_ratio: overall_ratio(&allocations, &targets),
        buddy_fraction_mean: scored.mean,
        buddy_fraction_worst: scored.worst,
        targets,
    }))
}

#[cfg(test)]
mod tests {
    use buddy_golden::profiler::{Granularity, MAX_OVERALL_RATIO};
    use buddy_golden::{Algorithm, SizeClass};

    use super::*;
    use crate::class_profile::SnapshotClasses;

    /// One allocation of 10 entries: `zeros_per_snapshot[s]` of them ZERO in
    /// snapshot `s`, the rest RAW.
    fn run(zeros_per_snapshot: &[usize]) -> ClassProfile {
        ClassProfile {
            workload: "toy".into(),
            algorithm: Algorithm::Bpc,
            allocations: vec!["a".into()],
            snapshots: zeros_per_snapshot
                .iter()
                .enumerate()
                .map(|(s, &z)| SnapshotClasses {
                    index: 10 + s,
                    label: None,
                    classes: vec![(0..10).map(|e| if e < z { SizeClass::Zero } else { SizeClass::Raw }).collect()],
                })
                .collect(),
        }
    }

    fn config(threshold: f64) -> ProfilerConfig {
        ProfilerConfig { threshold, granularity: Granularity::PerAllocation, max_overall_ratio: MAX_OVERALL_RATIO }
    }

    #[test]
    fn targets_fitted_on_the_first_half_are_scored_on_the_second() {
        // Fully zero while profiled, then 3 of 10 entries (then 6) turn RAW:
        // in-sample 4x fits every snapshot; held out, 30% and 60% spill.
        let cp = run(&[10, 10, 7, 4]);
        let h = held_out(&cp, &config(0.2)).unwrap().unwrap();
        assert_eq!((h.fitted_on.clone(), h.scored_on.clone()), (vec![10, 11], vec![12, 13]));
        assert_eq!(h.targets, vec![TargetRatio::X4]);
        assert_eq!(h.overall_ratio, 4.0);
        assert!((h.buddy_fraction_mean - 0.45).abs() < 1e-12, "{}", h.buddy_fraction_mean);
        assert!((h.buddy_fraction_worst - 0.6).abs() < 1e-12);
        // In-sample, the worst snapshot (6 RAW of 10) limits the target to one
        // its entries mostly fit, and no snapshot exceeds the threshold.
        let all = profile(&cp.allocation_profiles(), &config(0.2)).unwrap();
        assert!(all.buddy_fraction_worst <= 0.2);
    }

    #[test]
    fn an_odd_run_fits_on_the_smaller_half_and_one_snapshot_has_no_held_out_score() {
        let h = held_out(&run(&[10, 10, 10]), &config(0.3)).unwrap().unwrap();
        assert_eq!((h.fitted_on, h.scored_on), (vec![10], vec![11, 12]));
        assert_eq!(held_out(&run(&[10]), &config(0.3)).unwrap(), None);
        assert_eq!(split_at(0), None);
    }
}
