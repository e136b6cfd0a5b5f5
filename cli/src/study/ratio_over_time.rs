//! `buddy study ratio-over-time` (Buddy Compression Fig. 3): the compression
//! ratio of each snapshot, every entry at its size-class bytes.

use std::fmt::Write as _;
use std::path::Path;

use buddy_sim::class_profile::ClassProfile;
use buddy_sim::study::ratio_over_time::RatioOverTime;
use serde::Serialize;

use super::args::StudyName;
use super::common::{csv_of, opt_ratio, pct, Output};
use crate::plot::{line_panels, LinePlot, Series};

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "Buddy Compression Fig. 3. Every entry stored at exactly its size-class bytes (0, 8, 16, 32, 64, 80, 96, 128 B; no target ratio, no page packing): the optimistic ratio each snapshot could reach. A flat line means the data's compressibility does not drift over the run; a target chosen early then stays right.";

pub(super) fn ratio_over_time(cps: &[ClassProfile], out: &Path) -> anyhow::Result<Output> {
    let studies: Vec<RatioOverTime> = cps.iter().map(RatioOverTime::new).collect();
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        algorithm: &'a str,
        snapshot: usize,
        label: &'a str,
        entries: u64,
        zero_fraction: f64,
        ratio: Option<f64>,
    }
    let mut rows = Vec::new();
    let mut table = format!("{:<16} {:>8} {:>8} {:>8}  {}\n", "workload", "snapshot", "zero", "ratio", "label");
    for s in &studies {
        for p in &s.snapshots {
            let label = p.label.as_deref().unwrap_or("");
            rows.push(Row {
                workload: &s.workload,
                algorithm: &s.algorithm,
                snapshot: p.index,
                label,
                entries: p.entries,
                zero_fraction: p.zero_fraction,
                ratio: p.ratio,
            });
            let _ = writeln!(table, "{:<16} {:>8} {:>8} {:>8}  {label}", s.workload, p.index, pct(p.zero_fraction), opt_ratio(p.ratio));
        }
        let _ = writeln!(table, "{:<16} {:>8} {:>8} {:>8}", s.workload, "run", "", opt_ratio(s.run_ratio));
    }
    let series: Vec<Series> = studies
        .iter()
        .map(|s| Series { name: s.workload.clone(), points: s.snapshots.iter().filter_map(|p| Some((p.index as f64, p.ratio?))).collect() })
        .collect();
    let top = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(1.0f64, f64::max);
    let png = out.join("ratio-over-time.png");
    let algo = studies.first().map_or("", |s| s.algorithm.as_str());
    line_panels(
        &png,
        &format!("Compression ratio over the run ({algo}, every entry at its size-class bytes)"),
        &[(
            LinePlot {
                title: "Buddy Compression Fig. 3",
                x_label: "snapshot (manifest index, in run order)",
                y_label: "compression ratio (uncompressed / class bytes)",
                y_range: (0.0, (top * 1.15).ceil()),
                series: &series,
                x_ticks: &|x| format!("{x:.0}"),
            },
            &[],
        )],
    )?;
    Ok(Output { study: StudyName::RatioOverTime, table, json: serde_json::to_value(&studies)?, csv: csv_of(&rows)?, pngs: vec![png] })
}
