//! `buddy study cdma-offload` (cDMA Fig. 12): activation bytes offloaded to
//! host memory by vDNN and by cDMA with RL, ZVC and zlib, normalized to vDNN.

use std::fmt::Write as _;
use std::path::Path;

use buddy_sim::cdma::training::Training;
use buddy_sim::study::cdma_offload::{CdmaOffload, OFFLOADING};
use buddy_sim::Workload;
use serde_json::json;

use super::args::StudyName;
use super::cdma::{skipped, step_rows};
use super::common::{csv_of, Output};
use crate::plot::{bar_panels, Bars};

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "cDMA (seed 003) Fig. 12. Each snapshot is one training step of the network its manifest describes (layers grouped by the number in the allocation names; `docs/cdma.md`). vDNN offloads every activation map of every layer but the last to host memory (whole tensors, `full_size`; a stored slice stands for its tensor); cDMA sends the same lines compressed by RL, ZVC or zlib (4 KB windows). Bars: offloaded bytes over vDNN's (lower is better). The DMA engine is simulated line by line (request launcher, response buffer sized by bandwidth x latency, PCIe); its buffer's peak and the highest DRAM read bandwidth of one layer's offload are in the table. The paper: 2.6x less PCIe traffic with ZVC on average over six CNNs (ReLU activations), zlib only 3% less than ZVC.";

pub(super) fn cdma_offload(workloads: &[Workload], trainings: &[Option<Training>], out: &Path) -> anyhow::Result<Output> {
    let names: Vec<String> = OFFLOADING.iter().map(|p| p.name().to_string()).collect();
    let mut table = format!("{:<16} {:>5} {:>12}", "workload", "steps", "vDNN MB/step");
    for n in &names {
        let _ = write!(table, " {n:>10}");
    }
    let _ = writeln!(table, " {:>16} {:>14}", "zvc buffer max", "zvc peak GB/s");
    let mut studies = Vec::new();
    for (w, t) in workloads.iter().zip(trainings) {
        let Some(t) = t else {
            table += &skipped(w);
            continue;
        };
        let s = CdmaOffload::new(t);
        let vdnn = s.policies[0].offloaded_bytes as f64 / s.steps.max(1) as f64;
        let _ = write!(table, "{:<16} {:>5} {:>12.3}", s.workload, s.steps, vdnn / 1e6);
        for p in &s.policies {
            let _ = write!(table, " {:>10.3}", p.normalized);
        }
        let zvc = &s.policies[2];
        let _ = writeln!(table, " {:>13} B {:>14.1}", zvc.max_buffer_bytes, zvc.peak_read_gbps);
        studies.push(s);
    }
    let trained: Vec<&Training> = trainings.iter().flatten().collect();
    let mut pngs = Vec::new();
    if !studies.is_empty() {
        let groups: Vec<String> = studies.iter().map(|s| s.workload.clone()).collect();
        let values: Vec<Vec<f64>> = studies.iter().map(|s| s.policies.iter().map(|p| p.normalized).collect()).collect();
        let png = out.join("cdma-offload.png");
        bar_panels(
            &png,
            "Activation bytes offloaded to host memory (cDMA Fig. 12)",
            &[Bars {
                title: "normalized to vDNN (lower is better)",
                y_label: "offloaded bytes / vDNN's",
                groups: &groups,
                series: &names,
                values: &values,
                value_label: &|v| format!("{v:.2}"),
                log2_y: false,
            }],
        )?;
        pngs.push(png);
    }
    let json = json!({"workloads": studies, "training": trained});
    Ok(Output { study: StudyName::CdmaOffload, table, json, csv: csv_of(&step_rows(&trained))?, pngs })
}
