//! Buddy Threshold sensitivity (Buddy Compression Fig. 10): the evaluated
//! design (per-allocation targets with 16x) at several thresholds, next to
//! the best ratio without any threshold: every entry stored at its class
//! bytes over all snapshots (the Fig. 3 ratio of the whole run).

use buddy_golden::profiler::{profile, Granularity, ProfileError, ProfilerConfig, MAX_OVERALL_RATIO};
use serde::Serialize;

use super::held_out::{held_out, HeldOut};
use super::ratio;
use super::BuddyFraction;
use crate::class_profile::ClassProfile;
use crate::trace::Trace;

/// The paper's sweep: 10% to 40%.
pub const DEFAULT_THRESHOLDS: [f64; 4] = [0.10, 0.20, 0.30, 0.40];

/// One threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThresholdPoint {
    pub threshold: f64,
    pub overall_ratio: f64,
    pub buddy_fraction_mean: f64,
    pub buddy_fraction_worst: f64,
    /// Targets fitted on the first half of the snapshots, scored on the
    /// second (`None` below 2 snapshots).
    pub held_out: Option<HeldOut>,
    /// With a trace: the fraction of its accesses that go to buddy memory.
    pub buddy_access_fraction: Option<BuddyFraction>,
}

/// The study of one workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThresholdSweep {
    pub workload: String,
    pub algorithm: String,
    /// Uncompressed bytes / class bytes over all snapshots (`None` if all zero).
    pub unconstrained_ratio: Option<f64>,
    pub points: Vec<ThresholdPoint>,
}

impl ThresholdSweep {
    /// Profile `class_profile` at each of `thresholds`; with `trace`, also
    /// score the targets by the trace's accesses.
    ///
    /// # Errors
    /// [`ProfileError`] for a threshold outside (0, 1) or an empty workload.
    pub fn new(class_profile: &ClassProfile, thresholds: &[f64], trace: Option<&Trace>) -> Result<Self, ProfileError> {
        let allocations = class_profile.allocation_profiles();
        let weighted = trace.map(|t| class_profile.access_weighted_profiles(t));
        let points = thresholds
            .iter()
            .map(|&threshold| {
                let config =
                    ProfilerConfig { threshold, granularity: Granularity::PerAllocationMostlyZero, max_overall_ratio: MAX_OVERALL_RATIO };
                let p = profile(&allocations, &config)?;
                Ok(ThresholdPoint {
                    threshold,
                    overall_ratio: p.overall_ratio,
                    buddy_fraction_mean: p.buddy_fraction_mean,
                    buddy_fraction_worst: p.buddy_fraction_worst,
                    held_out: held_out(class_profile, &config)?,
                    buddy_access_fraction: weighted.as_ref().map(|w| BuddyFraction::of(w, &p.targets())),
                })
            })
            .collect::<Result<_, _>>()?;
        let (raw, stored) = (0..class_profile.snapshots.len())
            .map(|i| class_profile.snapshot_histogram(i))
            .fold((0, 0), |(r, s), h| (r + h.entries() * 128, s + h.class_bytes()));
        Ok(ThresholdSweep {
            workload: class_profile.workload.clone(),
            algorithm: class_profile.algorithm.to_string(),
            unconstrained_ratio: ratio(raw, stored),
            points,
        })
    }
}
