//! `buddy study threshold-sweep` (Buddy Compression Fig. 10): the evaluated
//! design at each Buddy Threshold, next to the unconstrained ratio.

use std::fmt::Write as _;
use std::path::Path;

use buddy_sim::class_profile::ClassProfile;
use buddy_sim::study::threshold_sweep::ThresholdSweep;
use buddy_sim::trace::Trace;
use serde::Serialize;

use super::args::StudyName;
use super::common::{csv_of, opt_ratio, pct, Output};
use crate::plot::{line_panels, LinePlot, Reference, Series};

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "Buddy Compression Fig. 10. The evaluated design at each Buddy Threshold; the dashed line of the same colour is the unconstrained ratio (every entry at its class bytes over the whole run), the ceiling that targets approach as the threshold rises. Rows and curves marked held out: targets fitted on the first half of the snapshots and scored on the second half (mean), which the profiler did not see; in-sample the worst snapshot is within the threshold by construction. Rows marked trace accesses: the share of the trace's accesses that go to buddy memory (each entry weighted by its accesses).";

pub(super) fn threshold_sweep(cps: &[ClassProfile], traces: &[Option<Trace>], thresholds: &[f64], out: &Path) -> anyhow::Result<Output> {
    let studies: Vec<ThresholdSweep> =
        cps.iter().zip(traces).map(|(cp, t)| ThresholdSweep::new(cp, thresholds, t.as_ref())).collect::<Result<_, _>>()?;
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        algorithm: &'a str,
        threshold: f64,
        overall_ratio: f64,
        buddy_fraction_mean: f64,
        buddy_fraction_worst: f64,
        unconstrained_ratio: Option<f64>,
        held_out_overall_ratio: Option<f64>,
        held_out_buddy_fraction_mean: Option<f64>,
        held_out_buddy_fraction_worst: Option<f64>,
        buddy_access_fraction_mean: Option<f64>,
        buddy_access_fraction_worst: Option<f64>,
    }
    let mut rows = Vec::new();
    let mut table = format!("{:<16} {:>13}", "workload", "unconstrained");
    thresholds.iter().for_each(|t| {
        let _ = write!(table, " {:>18}", format!("{:.0}%: ratio (buddy)", 100.0 * t));
    });
    table.push('\n');
    for s in &studies {
        let _ = write!(table, "{:<16} {:>13}", s.workload, opt_ratio(s.unconstrained_ratio));
        for p in &s.points {
            rows.push(Row {
                workload: &s.workload,
                algorithm: &s.algorithm,
                threshold: p.threshold,
                overall_ratio: p.overall_ratio,
                buddy_fraction_mean: p.buddy_fraction_mean,
                buddy_fraction_worst: p.buddy_fraction_worst,
                unconstrained_ratio: s.unconstrained_ratio,
                held_out_overall_ratio: p.held_out.as_ref().map(|h| h.overall_ratio),
                held_out_buddy_fraction_mean: p.held_out.as_ref().map(|h| h.buddy_fraction_mean),
                held_out_buddy_fraction_worst: p.held_out.as_ref().map(|h| h.buddy_fraction_worst),
                buddy_access_fraction_mean: p.buddy_access_fraction.map(|f| f.mean),
                buddy_access_fraction_worst: p.buddy_access_fraction.map(|f| f.worst),
            });
            let _ = write!(table, " {:>18}", format!("{:.3} ({})", p.overall_ratio, pct(p.buddy_fraction_mean)));
        }
        table.push('\n');
        if s.points.iter().all(|p| p.held_out.is_some()) {
            let _ = write!(table, "{:<16} {:>13}", "  held out", "");
            for h in s.points.iter().filter_map(|p| p.held_out.as_ref()) {
                let _ = write!(table, " {:>18}", format!("{:.3} ({})", h.overall_ratio, pct(h.buddy_fraction_mean)));
            }
            table.push('\n');
        }
        if s.points.iter().all(|p| p.buddy_access_fraction.is_some()) {
            let _ = write!(table, "{:<16} {:>13}", "  trace accesses", "");
            for f in s.points.iter().filter_map(|p| p.buddy_access_fraction) {
                let _ = write!(table, " {:>18}", format!("({})", pct(f.mean)));
            }
            table.push('\n');
        }
    }
    let ratio_series: Vec<Series> = studies
        .iter()
        .map(|s| Series { name: s.workload.clone(), points: s.points.iter().map(|p| (100.0 * p.threshold, p.overall_ratio)).collect() })
        .collect();
    let refs: Vec<Option<Reference>> =
        studies.iter().map(|s| s.unconstrained_ratio.map(|y| Reference { y, name: format!("{} unconstrained", s.workload) })).collect();
    let mut buddy_series: Vec<Series> = studies
        .iter()
        .map(|s| Series {
            name: s.workload.clone(),
            points: s.points.iter().map(|p| (100.0 * p.threshold, 100.0 * p.buddy_fraction_mean)).collect(),
        })
        .collect();
    buddy_series.extend(studies.iter().filter(|s| s.points.iter().all(|p| p.held_out.is_some())).map(|s| Series {
        name: format!("{} held out", s.workload),
        points: s.points.iter().filter_map(|p| p.held_out.as_ref().map(|h| (100.0 * p.threshold, 100.0 * h.buddy_fraction_mean))).collect(),
    }));
    let top_r =
        ratio_series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).chain(refs.iter().flatten().map(|r| r.y)).fold(1.0f64, f64::max);
    let top_b = buddy_series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(1.0f64, f64::max);
    let png = out.join("threshold-sweep.png");
    let ticks = |x: f64| format!("{x:.0}%");
    line_panels(
        &png,
        "Buddy Threshold sweep (Fig. 10), per-allocation targets with 16x",
        &[
            (
                LinePlot {
                    title: "compression ratio; dashed: unconstrained (class bytes)",
                    x_label: "Buddy Threshold",
                    y_label: "compression ratio",
                    y_range: (0.0, (top_r * 1.15).ceil()),
                    series: &ratio_series,
                    x_ticks: &ticks,
                },
                &refs,
            ),
            (
                LinePlot {
                    title: "expected buddy-memory accesses (mean over snapshots; held out: second half)",
                    x_label: "Buddy Threshold",
                    y_label: "entries not fitting (%)",
                    y_range: (0.0, top_b * 1.2),
                    series: &buddy_series,
                    x_ticks: &ticks,
                },
                &[],
            ),
        ],
    )?;
    Ok(Output { study: StudyName::ThresholdSweep, table, json: serde_json::to_value(&studies)?, csv: csv_of(&rows)?, pngs: vec![png] })
}
