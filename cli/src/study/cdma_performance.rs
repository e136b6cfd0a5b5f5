//! `buddy study cdma-performance` (cDMA Fig. 13): training-step performance
//! of vDNN and cDMA normalized to the oracle (no offload).

use std::fmt::Write as _;
use std::path::Path;

use buddy_sim::cdma::training::Training;
use buddy_sim::cdma::vdnn::Policy;
use buddy_sim::study::cdma_performance::CdmaPerformance;
use buddy_sim::Workload;
use serde_json::json;

use super::args::StudyName;
use super::cdma::{skipped, step_rows};
use super::common::{csv_of, Output};
use crate::plot::{bar_panels, Bars};

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "cDMA (seed 003) Fig. 13. The same training steps timed: each layer computes at `cdma.gpu_tflops` or at the DRAM bandwidth its bytes need (whichever is slower), the offload of the previous layer's maps overlaps it in the forward pass and their prefetch in the backward pass (vDNN), and the DMA engine's DRAM reads are taken from the layer's bandwidth. Bars: oracle time (no offload) over each policy's time (higher is better); `vdnn exposed` is the share of vDNN's step spent waiting for PCIe. The paper: cDMA improves vDNN by 32% on average (up to 61%), on CNNs with ReLU activations (AlexNet: 49.4% zeros on average); vDNN alone loses 31% on average against the oracle.";

pub(super) fn cdma_performance(workloads: &[Workload], trainings: &[Option<Training>], out: &Path) -> anyhow::Result<Output> {
    let names: Vec<String> = Policy::ALL.iter().map(|p| p.name().to_string()).collect();
    let mut table = format!("{:<16} {:>5} {:>6} {:>10} {:>10}", "workload", "steps", "layers", "fwd GFLOP", "oracle ms");
    for n in &names[1..] {
        let _ = write!(table, " {n:>10}");
    }
    let _ = writeln!(table, " {:>14}", "vdnn exposed");
    let mut studies = Vec::new();
    for (w, t) in workloads.iter().zip(trainings) {
        let Some(t) = t else {
            table += &skipped(w);
            continue;
        };
        let s = CdmaPerformance::new(t);
        let _ =
            write!(table, "{:<16} {:>5} {:>6} {:>10.3} {:>10.3}", s.workload, s.steps, s.layers, s.forward_gflops, s.policies[0].step_ms);
        for p in &s.policies[1..] {
            let _ = write!(table, " {:>10.3}", p.performance);
        }
        let _ = writeln!(table, " {:>13.1}%", 100.0 * s.policies[1].exposed_transfer);
        studies.push(s);
    }
    let trained: Vec<&Training> = trainings.iter().flatten().collect();
    let mut pngs = Vec::new();
    if !studies.is_empty() {
        let groups: Vec<String> = studies.iter().map(|s| s.workload.clone()).collect();
        let values: Vec<Vec<f64>> = studies.iter().map(|s| s.policies.iter().map(|p| p.performance).collect()).collect();
        let png = out.join("cdma-performance.png");
        bar_panels(
            &png,
            "Training step performance (cDMA Fig. 13)",
            &[Bars {
                title: "normalized to the oracle (higher is better)",
                y_label: "oracle time / time",
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
    Ok(Output { study: StudyName::CdmaPerformance, table, json, csv: csv_of(&step_rows(&trained))?, pngs })
}
