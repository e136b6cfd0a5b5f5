//! `buddy study designs` (Buddy Compression Fig. 7): one target for the
//! whole program against per-allocation targets, with and without 16x.

use std::fmt::Write as _;
use std::path::Path;

use buddy_golden::profiler::Granularity;
use buddy_sim::class_profile::ClassProfile;
use buddy_sim::compression_study::geomean;
use buddy_sim::study::designs::{target_names, Designs};
use buddy_sim::trace::Trace;
use serde::Serialize;
use serde_json::json;

use super::args::StudyName;
use super::common::{csv_of, mean, pct, Output};
use crate::plot::{bar_panels, Bars};

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "Buddy Compression Fig. 7. The profiler (worst snapshot within the Buddy Threshold) choosing one target for the whole program, one per allocation (1x-4x), and one per allocation with 16x for mostly-zero allocations; ratio = uncompressed bytes / device bytes (capped at 4x), buddy accesses = fraction of entries whose class does not fit the device part (every entry taken as equally likely to be accessed); with a trace also the share of its accesses that go to buddy memory (each entry weighted by its accesses, the paper's buddy accesses). Held out: the same profiler fitted on the first half of the snapshots and scored on the second half (mean and worst), which it did not see; in-sample no snapshot exceeds the threshold by construction.";

pub(super) fn designs(cps: &[ClassProfile], traces: &[Option<Trace>], threshold: f64, out: &Path) -> anyhow::Result<Output> {
    let studies: Vec<Designs> = cps.iter().zip(traces).map(|(cp, t)| Designs::new(cp, threshold, t.as_ref())).collect::<Result<_, _>>()?;
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        algorithm: &'a str,
        threshold: f64,
        design: &'static str,
        overall_ratio: f64,
        buddy_fraction_mean: f64,
        buddy_fraction_worst: f64,
        allocations_1x: usize,
        allocations_4_3x: usize,
        allocations_2x: usize,
        allocations_4x: usize,
        allocations_16x: usize,
        capped: bool,
        held_out_overall_ratio: Option<f64>,
        held_out_buddy_fraction_mean: Option<f64>,
        held_out_buddy_fraction_worst: Option<f64>,
        buddy_access_fraction_mean: Option<f64>,
        buddy_access_fraction_worst: Option<f64>,
    }
    let mut rows = Vec::new();
    let names = target_names();
    let mut table = format!(
        "Buddy Threshold {:.0}%; held out: fitted on the first half of the snapshots, scored on the second; trace: share of the trace's accesses to buddy memory (mean)\n{:<16} {:<27} {:>7} {:>11} {:>11} {:>26} {:>8}  allocations per target ({})\n",
        100.0 * threshold,
        "workload",
        "design",
        "ratio",
        "buddy mean",
        "buddy worst",
        "held out: ratio mean worst",
        "trace",
        names.join(" / ")
    );
    for s in &studies {
        for d in &s.designs {
            let t = d.allocations_per_target;
            rows.push(Row {
                workload: &s.workload,
                algorithm: &s.algorithm,
                threshold,
                design: d.design.name(),
                overall_ratio: d.overall_ratio,
                buddy_fraction_mean: d.buddy_fraction_mean,
                buddy_fraction_worst: d.buddy_fraction_worst,
                allocations_1x: t[0],
                allocations_4_3x: t[1],
                allocations_2x: t[2],
                allocations_4x: t[3],
                allocations_16x: t[4],
                capped: d.capped,
                held_out_overall_ratio: d.held_out.as_ref().map(|h| h.overall_ratio),
                held_out_buddy_fraction_mean: d.held_out.as_ref().map(|h| h.buddy_fraction_mean),
                held_out_buddy_fraction_worst: d.held_out.as_ref().map(|h| h.buddy_fraction_worst),
                buddy_access_fraction_mean: d.buddy_access_fraction.map(|f| f.mean),
                buddy_access_fraction_worst: d.buddy_access_fraction.map(|f| f.worst),
            });
            let held = d.held_out.as_ref().map_or_else(
                || "(1 snapshot)".to_string(),
                |h| format!("{:.3}x {} {}", h.overall_ratio, pct(h.buddy_fraction_mean), pct(h.buddy_fraction_worst)),
            );
            let _ = writeln!(
                table,
                "{:<16} {:<27} {:>6.3}x {:>11} {:>11} {:>26} {:>8}  {}{}",
                s.workload,
                d.design.name(),
                d.overall_ratio,
                pct(d.buddy_fraction_mean),
                pct(d.buddy_fraction_worst),
                held,
                d.buddy_access_fraction.map_or_else(|| "-".to_string(), |f| pct(f.mean)),
                t.map(|n| n.to_string()).join(" / "),
                if d.capped { " (4x cap applied)" } else { "" }
            );
        }
    }
    let mut summary = Vec::new();
    for (i, g) in Granularity::ALL.iter().enumerate() {
        let r = geomean(studies.iter().map(|s| Some(s.designs[i].overall_ratio))).unwrap_or(1.0);
        let b = mean(studies.iter().map(|s| s.designs[i].buddy_fraction_mean));
        let _ = writeln!(table, "{:<16} {:<27} {:>6.3}x {:>11}  (geomean ratio, mean buddy fraction)", "MEAN", g.name(), r, pct(b));
        summary.push(json!({"design": g.name(), "geomean_ratio": r, "mean_buddy_fraction": b}));
    }
    let groups: Vec<String> = studies.iter().map(|s| s.workload.clone()).collect();
    let series: Vec<String> = Granularity::ALL.iter().map(|g| g.name().to_string()).collect();
    let ratios: Vec<Vec<f64>> = studies.iter().map(|s| s.designs.iter().map(|d| d.overall_ratio).collect()).collect();
    let buddy: Vec<Vec<f64>> = studies.iter().map(|s| s.designs.iter().map(|d| 100.0 * d.buddy_fraction_mean).collect()).collect();
    let held: Vec<Vec<f64>> = studies
        .iter()
        .map(|s| s.designs.iter().map(|d| d.held_out.as_ref().map_or(0.0, |h| 100.0 * h.buddy_fraction_mean)).collect())
        .collect();
    let png = out.join("designs.png");
    bar_panels(
        &png,
        &format!("Target-ratio designs (Fig. 7), Buddy Threshold {:.0}%", 100.0 * threshold),
        &[
            Bars {
                title: "compression ratio (uncompressed / device bytes)",
                y_label: "ratio",
                groups: &groups,
                series: &series,
                values: &ratios,
                value_label: &|v| format!("{v:.2}"),
                log2_y: false,
            },
            Bars {
                title: "expected buddy-memory accesses (mean over snapshots)",
                y_label: "entries not fitting (%)",
                groups: &groups,
                series: &series,
                values: &buddy,
                value_label: &|v| format!("{v:.2}"),
                log2_y: false,
            },
            Bars {
                title: "held out: fitted on the first half, scored on the second (mean)",
                y_label: "entries not fitting (%)",
                groups: &groups,
                series: &series,
                values: &held,
                value_label: &|v| format!("{v:.2}"),
                log2_y: false,
            },
        ],
    )?;
    let json = json!({"threshold": threshold, "workloads": studies, "summary": summary});
    Ok(Output { study: StudyName::Designs, table, json, csv: csv_of(&rows)?, pngs: vec![png] })
}
