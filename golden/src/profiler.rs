//! The target-ratio profiler (docs/formats.md#profiler; Buddy Compression Sec. III-B).
//!
//! Input: per allocation, the size-class histogram of its memory-entries in
//! every snapshot of a profiling run. Output: a target ratio per allocation
//! (or one for the whole program), the expected buddy-access fraction and the
//! overall compression ratio.
//!
//! Rules:
//! - An entry *does not fit* a target when its class bytes exceed the
//!   target's device bytes; it then needs buddy-memory on every access. The
//!   fraction of an allocation's entries that do not fit is its expected
//!   buddy-access fraction (every entry taken as equally likely to be
//!   accessed: snapshots carry no access counts).
//! - A target is admissible when that fraction is within the Buddy Threshold
//!   in **every** snapshot (the worst snapshot decides: conservative).
//! - The most aggressive admissible target wins. 16x (8 B per entry in device
//!   memory) is the paper's mostly-zero case: besides the rule above (at
//!   most `threshold` of the entries above 8 B), the allocation must be
//!   mostly zero, i.e. more than half of its entries of class ZERO, in every
//!   snapshot. (A ramp compresses to 8 B under BPC but is not mostly zero.)
//! - The overall ratio (uncompressed bytes / device bytes) must stay <= 4x,
//!   because the buddy carve-out is 3x device memory. Only 16x allocations
//!   can push it above 4x, so while it is above, one 16x allocation goes to
//!   4x: the smallest one whose step alone brings the ratio to 4x or below,
//!   or else the largest (lowest index on a tie), which keeps the overshoot
//!   small. A less aggressive target never raises a buddy fraction, so the
//!   threshold still holds.

use crate::entry::ENTRY_BYTES;
use crate::size_class::SizeClass;
use crate::translation::TargetRatio;
use serde::Serialize;
use thiserror::Error;

/// The paper's Buddy Threshold (Sec. III-B): at most 30% expected buddy accesses.
pub const DEFAULT_THRESHOLD: f64 = 0.30;

/// The largest overall ratio a 3x buddy carve-out supports (Sec. III-C).
pub const MAX_OVERALL_RATIO: f64 = 4.0;

/// Entries per size class of one allocation in one snapshot, indexed by
/// [`SizeClass::code`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
pub struct ClassHistogram(pub [u64; 8]);

impl ClassHistogram {
    /// The histogram of `classes`.
    pub fn of(classes: impl IntoIterator<Item = SizeClass>) -> Self {
        let mut h = ClassHistogram::default();
        for c in classes {
            h.0[c.code() as usize] += 1;
        }
        h
    }

    /// Number of entries.
    pub fn entries(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Entries whose class does not fit the device part of `target`.
    pub fn not_fitting(&self, target: TargetRatio) -> u64 {
        SizeClass::ALL.iter().filter(|c| !target.fits(**c)).map(|c| self.0[c.code() as usize]).sum()
    }

    /// Bytes stored if every entry took exactly its class size (the
    /// optimistic, target-free storage of the paper's Fig. 3).
    pub fn class_bytes(&self) -> u64 {
        SizeClass::ALL.iter().map(|c| c.bytes() as u64 * self.0[c.code() as usize]).sum()
    }

    /// Adds `other` entry-wise.
    pub fn add(&mut self, other: &ClassHistogram) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
}

/// One allocation as the profiler sees it: its name and its histogram in
/// each snapshot (every snapshot has the same entry count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocationProfile {
    pub name: String,
    pub snapshots: Vec<ClassHistogram>,
}

impl AllocationProfile {
    /// Entries of the allocation (those of its first snapshot).
    pub fn entries(&self) -> u64 {
        self.snapshots.first().map_or(0, ClassHistogram::entries)
    }

    /// True when more than half of the entries are ZERO in every snapshot
    /// (the paper's mostly-zero allocation, Sec. III-B).
    pub fn mostly_zero(&self) -> bool {
        self.snapshots.iter().all(|h| 2 * h.0[SizeClass::Zero.code() as usize] > h.entries())
    }

    /// Per snapshot, the fraction of entries not fitting `target` (0 for an
    /// empty allocation).
    pub fn buddy_fractions(&self, target: TargetRatio) -> Vec<f64> {
        self.snapshots.iter().map(|h| fraction(h.not_fitting(target), h.entries())).collect()
    }
}

/// Which annotation granularity the profiler chooses for (Fig. 7's designs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Granularity {
    /// One target for the whole program, 1x..4x (the naive design).
    WholeProgram,
    /// One target per allocation, 1x..4x.
    PerAllocation,
    /// One target per allocation, 1x..4x, and 16x for mostly-zero
    /// allocations (the evaluated design).
    PerAllocationMostlyZero,
}

impl Granularity {
    /// Every design, in the order Fig. 7 applies them.
    pub const ALL: [Granularity; 3] = [Granularity::WholeProgram, Granularity::PerAllocation, Granularity::PerAllocationMostlyZero];

    /// Kebab-case name as in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Granularity::WholeProgram => "whole-program",
            Granularity::PerAllocation => "per-allocation",
            Granularity::PerAllocationMostlyZero => "per-allocation-mostly-zero",
        }
    }

    fn targets(self) -> &'static [TargetRatio] {
        match self {
            Granularity::WholeProgram | Granularity::PerAllocation => &TargetRatio::ALL[..4],
            Granularity::PerAllocationMostlyZero => &TargetRatio::ALL,
        }
    }
}

/// Profiler settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ProfilerConfig {
    /// Buddy Threshold: the largest admissible buddy-access fraction, in (0, 1).
    pub threshold: f64,
    /// Targets admitted and how they are shared.
    pub granularity: Granularity,
    /// Largest overall ratio (4x for a 3x carve-out; at least 4).
    pub max_overall_ratio: f64,
}

impl Default for ProfilerConfig {
    fn default() -> Self {
        ProfilerConfig {
            threshold: DEFAULT_THRESHOLD,
            granularity: Granularity::PerAllocationMostlyZero,
            max_overall_ratio: MAX_OVERALL_RATIO,
        }
    }
}

/// Why the profiler cannot run.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ProfileError {
    /// The threshold is not strictly between 0 and 1.
    #[error("the Buddy Threshold must lie in (0, 1), got {0}")]
    Threshold(f64),
    /// The maximum overall ratio is below 4: only 16x targets can exceed 4x,
    /// so the cap steps 16x allocations down to 4x and no further.
    #[error("the maximum overall ratio must be at least 4 (the cap steps 16x targets down to 4x), got {0}")]
    MaxRatio(f64),
    /// There is nothing to profile.
    #[error("no allocations to profile")]
    NoAllocations,
    /// Allocations have different numbers of snapshots (or none).
    #[error("allocation '{name}' has {found} snapshots, but '{first}' has {expected}")]
    SnapshotCount { name: String, found: usize, first: String, expected: usize },
    /// An allocation's entry count changes between snapshots.
    #[error("allocation '{name}' has {found} entries in snapshot #{position}, but {expected} in the first")]
    EntryCount { name: String, position: usize, found: u64, expected: u64 },
}

/// The profiler's choice for one allocation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetChoice {
    pub name: String,
    pub entries: u64,
    /// The chosen target.
    #[serde(serialize_with = "serialize_target")]
    pub target: TargetRatio,
    /// The most aggressive admissible target, before the 4x cap.
    #[serde(serialize_with = "serialize_target")]
    pub admissible: TargetRatio,
    /// Mean over snapshots of the fraction of entries not fitting `target`.
    pub buddy_fraction_mean: f64,
    /// Largest such fraction over the snapshots.
    pub buddy_fraction_worst: f64,
}

fn serialize_target<S: serde::Serializer>(t: &TargetRatio, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.name())
}

/// The profiler's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    pub config: ProfilerConfig,
    /// Per allocation, in input order.
    pub allocations: Vec<TargetChoice>,
    /// Sum of uncompressed bytes / sum of device bytes.
    pub overall_ratio: f64,
    /// Per snapshot, the fraction of all entries not fitting their targets.
    pub buddy_fraction_per_snapshot: Vec<f64>,
    /// Mean of `buddy_fraction_per_snapshot`.
    pub buddy_fraction_mean: f64,
    /// Largest of `buddy_fraction_per_snapshot`.
    pub buddy_fraction_worst: f64,
    /// True when the 4x cap stepped some allocation down.
    pub capped: bool,
}

impl Profile {
    /// The chosen target of each allocation, in input order.
    pub fn targets(&self) -> Vec<TargetRatio> {
        self.allocations.iter().map(|c| c.target).collect()
    }
}

/// Overall ratio of `targets` over `allocations`: uncompressed bytes /
/// device bytes (1.0 when there are no entries).
pub fn overall_ratio(allocations: &[AllocationProfile], targets: &[TargetRatio]) -> f64 {
    let (raw, device) = allocations
        .iter()
        .zip(targets)
        .fold((0u64, 0u64), |(r, d), (a, t)| (r + a.entries() * ENTRY_BYTES as u64, d + a.entries() * t.device_bytes()));
    if device == 0 {
        1.0
    } else {
        raw as f64 / device as f64
    }
}

/// Per snapshot, the fraction of all entries that do not fit their
/// allocation's target.
pub fn buddy_fraction_per_snapshot(allocations: &[AllocationProfile], targets: &[TargetRatio]) -> Vec<f64> {
    let snapshots = allocations.first().map_or(0, |a| a.snapshots.len());
    (0..snapshots)
        .map(|s| {
            let (out, all) = allocations
                .iter()
                .zip(targets)
                .fold((0, 0), |(o, n), (a, t)| (o + a.snapshots[s].not_fitting(*t), n + a.snapshots[s].entries()));
            fraction(out, all)
        })
        .collect()
}

/// Choose target ratios for `allocations` under `config`.
///
/// # Errors
/// [`ProfileError`] for a threshold outside (0, 1), a maximum ratio below 1,
/// no allocations, or allocations whose snapshot or entry counts disagree.
pub fn profile(allocations: &[AllocationProfile], config: &ProfilerConfig) -> Result<Profile, ProfileError> {
    validate(allocations, config)?;
    let admissible: Vec<TargetRatio> = match config.granularity {
        Granularity::WholeProgram => {
            let snapshots = allocations[0].snapshots.len();
            let whole = AllocationProfile {
                name: String::new(),
                snapshots: (0..snapshots)
                    .map(|s| {
                        let mut h = ClassHistogram::default();
                        allocations.iter().for_each(|a| h.add(&a.snapshots[s]));
                        h
                    })
                    .collect(),
            };
            vec![most_aggressive(&whole, config); allocations.len()]
        }
        _ => allocations.iter().map(|a| most_aggressive(a, config)).collect(),
    };
    let mut targets = admissible.clone();
    let mut capped = false;
    while overall_ratio(allocations, &targets) > config.max_overall_ratio {
        let raw: u64 = allocations.iter().map(|a| a.entries() * ENTRY_BYTES as u64).sum();
        let device: u64 = allocations.iter().zip(&targets).map(|(a, t)| a.entries() * t.device_bytes()).sum();
        let needed = raw as f64 / config.max_overall_ratio - device as f64;
        let steps: Vec<(u64, usize)> = targets
            .iter()
            .enumerate()
            .filter(|(i, t)| **t == TargetRatio::X16 && allocations[*i].entries() > 0)
            .map(|(i, _)| (allocations[i].entries() * (TargetRatio::X4.device_bytes() - TargetRatio::X16.device_bytes()), i))
            .collect();
        let enough = steps.iter().filter(|(cost, _)| *cost as f64 >= needed).min_by_key(|(cost, i)| (*cost, *i));
        let largest = steps.iter().max_by_key(|(cost, i)| (*cost, std::cmp::Reverse(*i)));
        match enough.or(largest) {
            Some(&(_, i)) => {
                targets[i] = TargetRatio::X4;
                capped = true;
            }
            None => break, // unreachable: `validate` keeps max >= 4, and without 16x the ratio is <= 4
        }
    }
    let choices = allocations
        .iter()
        .zip(targets.iter().zip(&admissible))
        .map(|(a, (&target, &admissible))| {
            let f = a.buddy_fractions(target);
            TargetChoice {
                name: a.name.clone(),
                entries: a.entries(),
                target,
                admissible,
                buddy_fraction_mean: mean(&f),
                buddy_fraction_worst: f.iter().copied().fold(0.0, f64::max),
            }
        })
        .collect();
    let per_snapshot = buddy_fraction_per_snapshot(allocations, &targets);
    Ok(Profile {
        config: *config,
        allocations: choices,
        overall_ratio: overall_ratio(allocations, &targets),
        buddy_fraction_mean: mean(&per_snapshot),
        buddy_fraction_worst: per_snapshot.iter().copied().fold(0.0, f64::max),
        buddy_fraction_per_snapshot: per_snapshot,
        capped,
    })
}

/// The most aggressive target of the granularity whose buddy fraction is
/// within the threshold in every snapshot; 1x for an empty allocation
/// (nothing to gain).
fn most_aggressive(a: &AllocationProfile, config: &ProfilerConfig) -> TargetRatio {
    if a.entries() == 0 {
        return TargetRatio::X1;
    }
    config
        .granularity
        .targets()
        .iter()
        .rev()
        .copied()
        .find(|&t| a.buddy_fractions(t).iter().all(|&f| f <= config.threshold) && (t != TargetRatio::X16 || a.mostly_zero()))
        .unwrap_or(TargetRatio::X1)
}

fn validate(allocations: &[AllocationProfile], config: &ProfilerConfig) -> Result<(), ProfileError> {
    if !(config.threshold > 0.0 && config.threshold < 1.0) {
        return Err(ProfileError::Threshold(config.threshold));
    }
    if config.max_overall_ratio.is_nan() || config.max_overall_ratio < MAX_OVERALL_RATIO {
        return Err(ProfileError::MaxRatio(config.max_overall_ratio));
    }
    let first = allocations.first().ok_or(ProfileError::NoAllocations)?;
    for a in allocations {
        if a.snapshots.len() != first.snapshots.len() || a.snapshots.is_empty() {
            return Err(ProfileError::SnapshotCount {
                name: a.name.clone(),
                found: a.snapshots.len(),
                first: first.name.clone(),
                expected: first.snapshots.len(),
            });
        }
        let expected = a.entries();
        if let Some((position, h)) = a.snapshots.iter().enumerate().find(|(_, h)| h.entries() != expected) {
            return Err(ProfileError::EntryCount { name: a.name.clone(), position, found: h.entries(), expected });
        }
    }
    Ok(())
}

fn fraction(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SizeClass::*;

    /// An allocation with one histogram per snapshot given as (class, count) lists.
    fn alloc(name: &str, snapshots: &[&[(SizeClass, u64)]]) -> AllocationProfile {
        AllocationProfile {
            name: name.into(),
            snapshots: snapshots
                .iter()
                .map(|s| {
                    let mut h = ClassHistogram::default();
                    s.iter().for_each(|&(c, n)| h.0[c.code() as usize] += n);
                    h
                })
                .collect(),
        }
    }

    fn config(threshold: f64, granularity: Granularity) -> ProfilerConfig {
        ProfilerConfig { threshold, granularity, max_overall_ratio: MAX_OVERALL_RATIO }
    }

    #[test]
    fn not_fitting_counts_classes_above_the_device_part() {
        let h = ClassHistogram::of([Zero, B8, B16, B32, B64, B80, B96, Raw]);
        let counts: Vec<u64> = TargetRatio::ALL.iter().map(|&t| h.not_fitting(t)).collect();
        // 1x: none; 4/3x (96 B): RAW; 2x (64 B): B80 B96 RAW; 4x (32 B): 4; 16x (8 B): 6.
        assert_eq!(counts, vec![0, 1, 3, 4, 6]);
        assert_eq!(h.class_bytes(), 8 + 16 + 32 + 64 + 80 + 96 + 128);
    }

    #[test]
    fn worst_snapshot_decides() {
        // Snapshot 0: 2 of 10 entries over 32 B (20%); snapshot 1: 4 of 10 (40%).
        let a = alloc("v", &[&[(B32, 8), (B64, 2)], &[(B32, 6), (B64, 4)]]);
        let p = profile(&[a.clone()], &config(0.30, Granularity::PerAllocation)).unwrap();
        assert_eq!(p.allocations[0].target, TargetRatio::X2);
        assert_eq!(p.allocations[0].buddy_fraction_worst, 0.0);
        let p = profile(&[a], &config(0.45, Granularity::PerAllocation)).unwrap();
        assert_eq!(p.allocations[0].target, TargetRatio::X4);
        assert!((p.allocations[0].buddy_fraction_mean - 0.3).abs() < 1e-12);
        assert!((p.allocations[0].buddy_fraction_worst - 0.4).abs() < 1e-12);
        assert_eq!(p.overall_ratio, 4.0);
    }

    #[test]
    fn threshold_is_inclusive() {
        let a = alloc("v", &[&[(B32, 7), (Raw, 3)]]);
        let p = profile(&[a], &config(0.30, Granularity::PerAllocation)).unwrap();
        assert_eq!(p.allocations[0].target, TargetRatio::X4);
    }

    #[test]
    fn sixteen_x_only_for_mostly_zero_and_only_when_allowed() {
        let zeros = alloc("z", &[&[(Zero, 90), (B64, 10)], &[(Zero, 80), (B8, 5), (Raw, 15)]]);
        let dense = alloc("d", &[&[(Raw, 100)], &[(Raw, 100)]]);
        let both = [zeros.clone(), dense.clone()];
        let p = profile(&both, &config(0.30, Granularity::PerAllocationMostlyZero)).unwrap();
        assert_eq!(p.allocations[0].target, TargetRatio::X16);
        assert_eq!(p.allocations[1].target, TargetRatio::X1);
        // 200 entries: 100 x 8 B + 100 x 128 B device bytes.
        assert!((p.overall_ratio - 200.0 * 128.0 / (100.0 * 8.0 + 100.0 * 128.0)).abs() < 1e-12);
        assert_eq!(p.buddy_fraction_per_snapshot, vec![0.05, 0.075]);
        let p = profile(&both, &config(0.30, Granularity::PerAllocation)).unwrap();
        assert_eq!(p.allocations[0].target, TargetRatio::X4);
        // Fits in 8 B but is not mostly zero: 4x, never 16x.
        let ramp = alloc("ramp", &[&[(Zero, 1), (B8, 99)]]);
        let half = alloc("half", &[&[(Zero, 50), (B8, 50)]]);
        let p = profile(&[ramp, half], &config(0.30, Granularity::PerAllocationMostlyZero)).unwrap();
        assert_eq!(p.allocations[0].target, TargetRatio::X4);
        assert_eq!(p.allocations[1].target, TargetRatio::X4);
    }

    #[test]
    fn whole_program_takes_one_target_for_all() {
        let good = alloc("good", &[&[(B16, 50)]]);
        let bad = alloc("bad", &[&[(Raw, 50)]]);
        let p = profile(&[good.clone(), bad.clone()], &config(0.30, Granularity::WholeProgram)).unwrap();
        // 50% RAW: only 1x keeps the whole program within 30%.
        assert!(p.allocations.iter().all(|c| c.target == TargetRatio::X1));
        let p = profile(&[good, bad], &config(0.6, Granularity::WholeProgram)).unwrap();
        assert!(p.allocations.iter().all(|c| c.target == TargetRatio::X4));
        assert_eq!(p.buddy_fraction_per_snapshot, vec![0.5]);
    }

    #[test]
    fn overall_ratio_is_capped_at_four() {
        // 130 entries (16,640 B); 16x/16x/2x needs 80 + 800 + 1,280 = 2,160 device
        // bytes (7.7x), the cap needs >= 4,160: 2,000 more. z2's step adds
        // 2,400 and suffices alone; z1's (240) would not.
        let z1 = alloc("z1", &[&[(Zero, 10)]]);
        let z2 = alloc("z2", &[&[(Zero, 100)]]);
        let d = alloc("d", &[&[(B64, 20)]]);
        let p = profile(&[z1, z2, d], &config(0.30, Granularity::PerAllocationMostlyZero)).unwrap();
        assert!(p.capped);
        assert_eq!(p.targets(), vec![TargetRatio::X16, TargetRatio::X4, TargetRatio::X2]);
        assert!(p.allocations.iter().take(2).all(|c| c.admissible == TargetRatio::X16));
        assert!((p.overall_ratio - 16640.0 / 4560.0).abs() < 1e-12);
        // No single step suffices: the largest goes first, then the smallest that does.
        let allocs: Vec<_> = (1..=4).map(|i| alloc(&format!("z{i}"), &[&[(Zero, 10 * i)]])).collect();
        let p = profile(&allocs, &config(0.30, Granularity::PerAllocationMostlyZero)).unwrap();
        assert!(p.overall_ratio <= 4.0);
        assert!(p.allocations.iter().all(|c| c.target == TargetRatio::X4), "{p:?}");
    }

    #[test]
    fn bad_inputs_are_errors() {
        let a = alloc("a", &[&[(Zero, 1)]]);
        for t in [0.0, 1.0, -0.1, 1.5, f64::NAN] {
            assert!(matches!(profile(&[a.clone()], &config(t, Granularity::PerAllocation)), Err(ProfileError::Threshold(_))));
        }
        assert_eq!(profile(&[], &ProfilerConfig::default()), Err(ProfileError::NoAllocations));
        let low_cap = ProfilerConfig { max_overall_ratio: 2.0, ..ProfilerConfig::default() };
        assert_eq!(profile(&[a.clone()], &low_cap), Err(ProfileError::MaxRatio(2.0)));
        let two = alloc("b", &[&[(Zero, 1)], &[(Zero, 1)]]);
        assert!(matches!(profile(&[a.clone(), two], &ProfilerConfig::default()), Err(ProfileError::SnapshotCount { .. })));
        let changing = alloc("c", &[&[(Zero, 1)], &[(Zero, 2)]]);
        assert!(matches!(profile(&[changing], &ProfilerConfig::default()), Err(ProfileError::EntryCount { position: 1, .. })));
    }

    #[test]
    fn empty_allocation_stays_uncompressed_and_does_not_count() {
        let empty = AllocationProfile { name: "e".into(), snapshots: vec![ClassHistogram::default()] };
        let a = alloc("a", &[&[(B32, 4)]]);
        let p = profile(&[empty, a], &config(0.3, Granularity::PerAllocationMostlyZero)).unwrap();
        assert_eq!(p.allocations[0].target, TargetRatio::X1);
        assert_eq!(p.overall_ratio, 4.0);
    }
}
