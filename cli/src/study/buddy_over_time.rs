//! `buddy study buddy-over-time` (Buddy Compression Fig. 9): targets fixed
//! once (by the profiler, one ratio everywhere, or an annotation file) and
//! every snapshot's buddy-access fraction against them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::bail;
use buddy_golden::profiler::{profile, Granularity, ProfilerConfig, MAX_OVERALL_RATIO};
use buddy_golden::translation::TargetRatio;
use buddy_sim::annotation::AnnotationFile;
use buddy_sim::class_profile::ClassProfile;
use buddy_sim::study::buddy_over_time::BuddyOverTime;
use buddy_sim::study::held_out::held_out;
use buddy_sim::trace::Trace;
use serde::Serialize;

use super::args::StudyName;
use super::common::{csv_of, Output};
use crate::output::safe_file_name;
use crate::plot::{line_panels, LinePlot, Series};

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "Buddy Compression Fig. 9. Targets fixed once (by the profiler over all snapshots, or one ratio everywhere) and every snapshot checked against them. A flat line means compressibility changes are unbiased and the static targets stay valid over the run. The series \"fitted on ...\" is the profiler given only the first half of the snapshots: its second half is scored out of sample. With a trace, the row marked trace accesses (under the profiled targets) weighs each entry by its accesses in the trace (the share of accesses, not entries, that go to buddy memory).";

/// Read the annotation at `p` and check that it names one of `workloads`.
pub(super) fn read_annotation(p: &Path, workloads: &[&str]) -> anyhow::Result<(PathBuf, AnnotationFile)> {
    let file = AnnotationFile::read(p)?;
    if !workloads.contains(&file.workload.as_str()) {
        bail!(
            "annotation {} is for workload '{}', which is not among the studied workloads ({})",
            p.display(),
            file.workload,
            workloads.join(", ")
        );
    }
    Ok((p.to_path_buf(), file))
}

pub(super) fn buddy_over_time(
    cps: &[ClassProfile],
    traces: &[Option<Trace>],
    threshold: f64,
    annotation: Option<&Path>,
    out: &Path,
) -> anyhow::Result<Output> {
    let names: Vec<&str> = cps.iter().map(|cp| cp.workload.as_str()).collect();
    let annotation = annotation.map(|p| read_annotation(p, &names)).transpose()?;
    let mut studies = Vec::new();
    for (cp, trace) in cps.iter().zip(traces) {
        let allocations = cp.allocation_profiles();
        let config = ProfilerConfig { threshold, granularity: Granularity::PerAllocationMostlyZero, max_overall_ratio: MAX_OVERALL_RATIO };
        let p = profile(&allocations, &config)?;
        let mut sets = vec![(format!("profiled at {:.0}%", 100.0 * threshold), p.targets())];
        if let Some(h) = held_out(cp, &config)? {
            let span = match h.fitted_on.as_slice() {
                [one] => format!("s{one}"),
                [first, .., last] => format!("s{first}-s{last}"),
                [] => unreachable!("held_out fits on at least one snapshot"),
            };
            sets.push((format!("fitted on {span}"), h.targets));
        }
        for t in [TargetRatio::X4Over3, TargetRatio::X2, TargetRatio::X4] {
            sets.push((format!("{} everywhere", t.name()), vec![t; allocations.len()]));
        }
        if let Some((path, file)) = annotation.as_ref().filter(|(_, f)| f.workload == cp.workload) {
            let targets = file.targets(path, &cp.workload, &cp.allocations)?;
            sets.push((format!("annotation {}", path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())), targets));
        }
        studies.push(BuddyOverTime::new(cp, &sets, trace.as_ref()));
    }
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        algorithm: &'a str,
        targets: &'a str,
        overall_ratio: f64,
        snapshot: usize,
        buddy_fraction: f64,
        buddy_access_fraction: Option<f64>,
    }
    let mut rows = Vec::new();
    let mut table = String::new();
    let mut pngs = Vec::new();
    for s in &studies {
        let _ =
            write!(table, "{}: fraction of entries not fitting their target, per snapshot\n{:<24} {:>7}", s.workload, "targets", "ratio");
        s.snapshots.iter().for_each(|i| {
            let _ = write!(table, " {:>7}", format!("s{i}"));
        });
        table.push('\n');
        for series in &s.series {
            let _ = write!(table, "{:<24} {:>6.3}x", series.name, series.overall_ratio);
            for (k, (i, f)) in s.snapshots.iter().zip(&series.buddy_fraction).enumerate() {
                rows.push(Row {
                    workload: &s.workload,
                    algorithm: &s.algorithm,
                    targets: &series.name,
                    overall_ratio: series.overall_ratio,
                    snapshot: *i,
                    buddy_fraction: *f,
                    buddy_access_fraction: series.buddy_access_fraction.as_ref().map(|w| w[k]),
                });
                let _ = write!(table, " {:>7}", format!("{:.2}", 100.0 * f));
            }
            table.push('\n');
        }
        if let Some(w) = s.series.first().and_then(|x| x.buddy_access_fraction.as_ref()) {
            // the first series' (profiled) targets, each entry weighted by its accesses
            let _ = write!(table, "{:<24} {:>7}", "  trace accesses", "");
            for f in w {
                let _ = write!(table, " {:>7}", format!("{:.2}", 100.0 * f));
            }
            table.push('\n');
        }
        table.push('\n');
        let plot_series: Vec<Series> = s
            .series
            .iter()
            .map(|x| Series {
                name: format!("{} ({:.2}x)", x.name, x.overall_ratio),
                points: s.snapshots.iter().zip(&x.buddy_fraction).map(|(i, f)| (*i as f64, 100.0 * f)).collect(),
            })
            .collect();
        let top = plot_series.iter().flat_map(|x| x.points.iter().map(|p| p.1)).fold(1.0f64, f64::max);
        let png = out.join(format!("buddy-over-time-{}.png", safe_file_name(&s.workload)));
        line_panels(
            &png,
            &format!("{}: buddy-memory accesses over the run for fixed targets (Fig. 9)", s.workload),
            &[(
                LinePlot {
                    title: &format!("{} size classes; legend: targets (overall ratio)", s.algorithm),
                    x_label: "snapshot (manifest index, in run order)",
                    y_label: "entries not fitting their target (%)",
                    y_range: (0.0, (top * 1.25).min(100.0)),
                    series: &plot_series,
                    x_ticks: &|x| format!("{x:.0}"),
                },
                &[],
            )],
        )?;
        pngs.push(png);
    }
    let table = table.trim_end().to_string() + "\n";
    Ok(Output { study: StudyName::BuddyOverTime, table, json: serde_json::to_value(&studies)?, csv: csv_of(&rows)?, pngs })
}
