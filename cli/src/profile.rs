//! `buddy profile`: choose a target ratio per allocation from every snapshot
//! of a workload (docs/formats.md#profiler, Buddy Compression Sec. III-B) and
//! write the annotation file the studies and the simulator read.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use buddy_golden::profiler::{profile, Granularity, Profile, ProfilerConfig, DEFAULT_THRESHOLD, MAX_OVERALL_RATIO};
use buddy_golden::Algorithm;
use buddy_sim::annotation::{AnnotatedAllocation, AnnotationFile, ANNOTATION_FORMAT};
use buddy_sim::class_profile::ClassProfile;
use buddy_sim::compression_study::{CompressionStudy, Progress};
use buddy_sim::Workload;
use serde::Serialize;

use crate::args::{parse_algorithm, parse_threshold, DEFAULT_ALGORITHM};
use crate::output::{out, outln, safe_file_name, OutputFile};

/// Arguments of `buddy profile`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload folder (manifest.json + snapshots) or raw file of 128-byte
    /// entries [default: the bundled data/minife-small].
    pub path: Option<PathBuf>,
    /// Buddy Threshold: the largest expected buddy-access fraction per
    /// allocation in any snapshot, in (0, 1), e.g. 0.3 or 30%.
    #[arg(long, default_value_t = DEFAULT_THRESHOLD, value_parser = parse_threshold)]
    pub threshold: f64,
    /// Compression algorithm whose size classes decide.
    #[arg(long, default_value_t = DEFAULT_ALGORITHM, value_parser = parse_algorithm)]
    pub algo: Algorithm,
    /// Targets: per-allocation with 16x for mostly-zero allocations (the
    /// paper's design), per-allocation without 16x, or one for the whole program.
    #[arg(long, default_value = "per-allocation-mostly-zero", value_parser = parse_granularity)]
    pub granularity: Granularity,
    /// Annotation file to write [default: <workload>.targets.json].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Replace the annotation file even when it is not one buddy wrote (or it
    /// was changed since): without it only buddy's own unchanged file is replaced.
    #[arg(long)]
    pub force: bool,
    /// Print the profile as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

fn parse_granularity(s: &str) -> Result<Granularity, String> {
    Granularity::ALL.into_iter().find(|g| g.name() == s).ok_or_else(|| {
        let names: Vec<&str> = Granularity::ALL.iter().map(|g| g.name()).collect();
        format!("unknown granularity '{s}' (valid: {})", names.join(", "))
    })
}

/// Open and validate each workload.
///
/// # Errors
/// A workload that cannot be opened or is invalid.
pub fn open_workloads(paths: &[PathBuf]) -> anyhow::Result<Vec<Workload>> {
    paths.iter().map(|p| Workload::open(p).with_context(|| format!("cannot open workload {}", p.display()))).collect()
}

/// Classify every entry of each workload with `algorithm` (one progress bar
/// over all of them).
pub fn class_profiles(workloads: &[Workload], algorithm: Algorithm) -> Vec<ClassProfile> {
    let progress = Progress::stderr(workloads, 1);
    let profiles = workloads
        .iter()
        .map(|w| {
            let study = CompressionStudy::run(w, &[algorithm], &progress);
            ClassProfile::new(&study.workload, &study.algorithms[0])
        })
        .collect();
    progress.finish();
    profiles
}

/// The JSON document of `buddy profile --json`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    workload: &'a str,
    algorithm: String,
    snapshots: usize,
    annotation: String,
    #[serde(flatten)]
    profile: &'a Profile,
}

/// The annotation file of a profile.
pub fn annotation(workload: &str, algorithm: Algorithm, p: &Profile) -> AnnotationFile {
    AnnotationFile {
        format: ANNOTATION_FORMAT.to_string(),
        workload: workload.to_string(),
        algorithm: Some(algorithm.to_string()),
        threshold: Some(p.config.threshold),
        overall_ratio: Some(p.overall_ratio),
        default_target: None,
        allocations: p
            .allocations
            .iter()
            .map(|c| AnnotatedAllocation {
                name: c.name.clone(),
                target: c.target.name().to_string(),
                entries: Some(c.entries),
                buddy_fraction_mean: Some(c.buddy_fraction_mean),
                buddy_fraction_worst: Some(c.buddy_fraction_worst),
            })
            .collect(),
    }
}

/// The human table of a profile.
pub fn table(workload: &str, algorithm: Algorithm, snapshots: usize, p: &Profile) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{workload}: target ratios by {algorithm} size classes over {snapshots} snapshot(s), Buddy Threshold {:.0}%, {}",
        100.0 * p.config.threshold,
        p.config.granularity.name()
    );
    let width = p.allocations.iter().map(|c| c.name.len()).max().unwrap_or(10).clamp(10, 48);
    let _ = writeln!(
        s,
        "{:<width$} {:>8} {:>6} {:>11} {:>11} {:>12}",
        "allocation", "entries", "target", "admissible", "buddy mean", "buddy worst"
    );
    for c in &p.allocations {
        let _ = writeln!(
            s,
            "{:<width$} {:>8} {:>6} {:>11} {:>10.2}% {:>11.2}%",
            c.name,
            c.entries,
            c.target.name(),
            c.admissible.name(),
            100.0 * c.buddy_fraction_mean,
            100.0 * c.buddy_fraction_worst
        );
    }
    let _ = writeln!(
        s,
        "overall compression ratio {:.3}x (device bytes; cap {MAX_OVERALL_RATIO}x{}), expected buddy-access fraction {:.3}% mean, {:.3}% worst snapshot",
        p.overall_ratio,
        if p.capped { ", applied" } else { "" },
        100.0 * p.buddy_fraction_mean,
        100.0 * p.buddy_fraction_worst
    );
    s
}

fn default_out(workload: &str) -> PathBuf {
    PathBuf::from(format!("{}.targets.json", safe_file_name(workload)))
}

/// `file` as pretty JSON.
///
/// # Errors
/// The file cannot be serialized.
pub fn annotation_json(file: &AnnotationFile) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(file)? + "\n")
}

/// Run `buddy profile`.
///
/// # Errors
/// An invalid workload, an annotation file that exists (without
/// `--force`) or cannot be written; both found before the profile is made.
pub fn run(args: Args) -> anyhow::Result<()> {
    let path = match &args.path {
        Some(p) => p.clone(),
        None => crate::bundled::default_workload()?,
    };
    let workloads = open_workloads(std::slice::from_ref(&path))?;
    let out = args.out.clone().unwrap_or_else(|| default_out(&workloads[0].manifest().workload));
    let file = OutputFile::prepare(&out, args.force)?;
    let cp = class_profiles(&workloads, args.algo).remove(0);
    let config = ProfilerConfig { threshold: args.threshold, granularity: args.granularity, max_overall_ratio: MAX_OVERALL_RATIO };
    let p = profile(&cp.allocation_profiles(), &config).with_context(|| format!("cannot profile {}", path.display()))?;
    file.write(annotation_json(&annotation(&cp.workload, args.algo, &p))?.as_bytes())?;
    if args.json {
        let report = Report {
            workload: &cp.workload,
            algorithm: args.algo.to_string(),
            snapshots: cp.snapshots.len(),
            annotation: out.display().to_string(),
            profile: &p,
        };
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{}", table(&cp.workload, args.algo, cp.snapshots.len(), &p))?;
        outln!("annotation: {}", out.display())?;
    }
    Ok(())
}
