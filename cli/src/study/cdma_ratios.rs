//! `buddy study cdma-ratios` (cDMA Fig. 11): per-layer activation
//! compression ratios of RL, ZVC and zlib over 4 KB windows.

use std::fmt::Write as _;
use std::path::Path;

use buddy_golden::offload_window::WindowAlgorithm;
use buddy_sim::study::cdma_ratios::CdmaRatios;
use buddy_sim::Workload;
use serde::Serialize;
use serde_json::json;

use super::args::StudyName;
use super::cdma::skipped;
use super::common::{csv_of, Output};
use crate::plot::{bar_panels, Bars};

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "cDMA (seed 003) Fig. 11. Every activation map (an allocation with role `activation`) of every snapshot, compressed in 4 KB windows by ZVC (cDMA's zero-value compression: per 128 B line a 32-bit mask and the non-zero words), RL (run-length encoding: PackBits over 32-bit words) and zlib (DEFLATE level 6); average = all activation bytes over all stored bytes (the paper's size-weighted average, the PCIe traffic reduction), max = the best layer. The snapshots hold each map in the layout the framework stored it (row-major) and only a slice of each tensor, so the paper's NCHW / NHWC / CHWN comparison cannot be built from them. The paper: ZVC 2.6x on average over six CNNs, independent of layout; zlib 2.76x with NCHW.";

pub(super) fn cdma_ratios(workloads: &[Workload], out: &Path) -> anyhow::Result<Output> {
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        snapshot: usize,
        layer: &'a str,
        bytes: u64,
        zero_fraction: f64,
        rl_bytes: u64,
        zvc_bytes: u64,
        zlib_bytes: u64,
        rl_ratio: f64,
        zvc_ratio: f64,
        zlib_ratio: f64,
    }
    let names = WindowAlgorithm::ALL.map(|a| a.name());
    let mut table = format!("{:<16} {:>7} {:>9}", "workload", "layers", "MB");
    for n in names {
        let _ = write!(table, " {:>9} {:>9}", format!("{n} avg"), format!("{n} max"));
    }
    table.push('\n');
    let mut studies = Vec::new();
    let mut rows = Vec::new();
    for w in workloads {
        let Some(study) = CdmaRatios::new(w) else {
            table += &skipped(w);
            continue;
        };
        let bytes: u64 = study.layers.iter().map(|l| l.bytes).sum();
        let _ = write!(table, "{:<16} {:>7} {:>9.3}", study.workload, study.layers.len(), bytes as f64 / 1e6);
        for s in &study.summary {
            let _ = write!(table, " {:>8.3}x {:>8.3}x", s.average, s.max);
        }
        table.push('\n');
        studies.push(study);
    }
    for study in &studies {
        for l in &study.layers {
            rows.push(Row {
                workload: &study.workload,
                snapshot: l.snapshot,
                layer: &l.layer,
                bytes: l.bytes,
                zero_fraction: l.zero_fraction,
                rl_bytes: l.stored[0],
                zvc_bytes: l.stored[1],
                zlib_bytes: l.stored[2],
                rl_ratio: l.ratio[0],
                zvc_ratio: l.ratio[1],
                zlib_ratio: l.ratio[2],
            });
        }
    }
    let csv = csv_of(&rows)?;
    let mut pngs = Vec::new();
    if !studies.is_empty() {
        let groups: Vec<String> = studies.iter().map(|s| s.workload.clone()).collect();
        let series: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let average: Vec<Vec<f64>> = studies.iter().map(|s| s.summary.iter().map(|a| a.average).collect()).collect();
        let max: Vec<Vec<f64>> = studies.iter().map(|s| s.summary.iter().map(|a| a.max).collect()).collect();
        let png = out.join("cdma-ratios.png");
        bar_panels(
            &png,
            "Activation compression over 4 KB windows (cDMA Fig. 11), layout as stored",
            &[
                Bars {
                    title: "average (activation bytes / stored bytes)",
                    y_label: "compression ratio",
                    groups: &groups,
                    series: &series,
                    values: &average,
                    value_label: &|v| format!("{v:.2}"),
                    log2_y: true,
                },
                Bars {
                    title: "maximum per-layer ratio",
                    y_label: "compression ratio",
                    groups: &groups,
                    series: &series,
                    values: &max,
                    value_label: &|v| format!("{v:.2}"),
                    log2_y: true,
                },
            ],
        )?;
        pngs.push(png);
    }
    Ok(Output { study: StudyName::CdmaRatios, table, json: json!({"workloads": studies}), csv, pngs })
}
