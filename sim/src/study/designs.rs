//! Annotation granularity (Buddy Compression Fig. 7): the profiler run for a
//! whole-program target, per-allocation targets, and per-allocation targets
//! with the 16x mostly-zero case, at one Buddy Threshold.

use buddy_golden::profiler::{profile, Granularity, ProfileError, ProfilerConfig, MAX_OVERALL_RATIO};
use buddy_golden::translation::TargetRatio;
use serde::Serialize;

use super::held_out::{held_out, HeldOut};
use super::BuddyFraction;
use crate::class_profile::ClassProfile;
use crate::trace::Trace;

/// One design's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DesignResult {
    pub design: Granularity,
    /// Uncompressed bytes / device bytes.
    pub overall_ratio: f64,
    /// Fraction of entries needing buddy-memory, mean over snapshots.
    pub buddy_fraction_mean: f64,
    /// The same, worst snapshot.
    pub buddy_fraction_worst: f64,
    /// Allocations per target, `1x` .. `16x`.
    pub allocations_per_target: [usize; 5],
    /// True when the 4x cap stepped a 16x allocation down.
    pub capped: bool,
    /// Targets fitted on the first half of the snapshots, scored on the
    /// second (`None` below 2 snapshots).
    pub held_out: Option<HeldOut>,
    /// With a trace: the fraction of its accesses that go to buddy memory
    /// (each entry weighted by its accesses), mean and worst over snapshots.
    pub buddy_access_fraction: Option<BuddyFraction>,
}

/// The study of one workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Designs {
    pub workload: String,
    pub algorithm: String,
    pub threshold: f64,
    pub designs: Vec<DesignResult>,
}

impl Designs {
    /// Run the profiler with every [`Granularity`] at `threshold`; with
    /// `trace`, also score its targets by the trace's accesses.
    ///
    /// # Errors
    /// [`ProfileError`] (a threshold outside (0, 1), an empty workload).
    pub fn new(profile_in: &ClassProfile, threshold: f64, trace: Option<&Trace>) -> Result<Self, ProfileError> {
        let allocations = profile_in.allocation_profiles();
        let weighted = trace.map(|t| profile_in.access_weighted_profiles(t));
        let designs = Granularity::ALL
            .iter()
            .map(|&design| {
                let config = ProfilerConfig { threshold, granularity: design, max_overall_ratio: MAX_OVERALL_RATIO };
                let p = profile(&allocations, &config)?;
                let mut per_target = [0; 5];
                p.allocations.iter().for_each(|c| per_target[c.target.code() as usize] += 1);
                Ok(DesignResult {
                    design,
                    overall_ratio: p.overall_ratio,
                    buddy_fraction_mean: p.buddy_fraction_mean,
                    buddy_fraction_worst: p.buddy_fraction_worst,
                    allocations_per_target: per_target,
                    capped: p.capped,
                    held_out: held_out(profile_in, &config)?,
                    buddy_access_fraction: weighted.as_ref().map(|w| BuddyFraction::of(w, &p.targets())),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Designs { workload: profile_in.workload.clone(), algorithm: profile_in.algorithm.to_string(), threshold, designs })
    }
}

/// Target names in the order of [`DesignResult::allocations_per_target`].
pub fn target_names() -> [&'static str; 5] {
    TargetRatio::ALL.map(TargetRatio::name)
}
