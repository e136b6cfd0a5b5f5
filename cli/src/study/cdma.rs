//! `buddy study cdma-offload` and `cdma-performance` (cDMA Fig. 12, 13):
//! tables, CSV and plots of the vDNN / cDMA training-step model
//! ([`buddy_sim::cdma`]).

use std::fmt::Write as _;
use std::path::Path;

use buddy_sim::cdma::training::Training;
use buddy_sim::cdma::vdnn::Policy;
use buddy_sim::study::cdma_offload::{CdmaOffload, OFFLOADING};
use buddy_sim::study::cdma_performance::CdmaPerformance;
use buddy_sim::Workload;
use serde::Serialize;
use serde_json::json;

use super::{csv_of, Output, StudyName};
use crate::plot::{bar_panels, Bars};

/// The line a workload without activation maps gets in a table.
fn skipped(workload: &Workload) -> String {
    format!("{:<16} no activation allocations (manifest role `activation`): skipped\n", workload.manifest().workload)
}

/// One row per workload, step and policy.
#[derive(Serialize)]
struct StepRow<'a> {
    workload: &'a str,
    snapshot: usize,
    policy: &'static str,
    step_ms: f64,
    forward_ms: f64,
    backward_ms: f64,
    offloaded_bytes: u64,
    offloaded_map_bytes: u64,
    max_buffer_bytes: u64,
    peak_offload_read_gbps: f64,
}

fn step_rows<'a>(trainings: &[&'a Training]) -> Vec<StepRow<'a>> {
    let mut rows = Vec::new();
    for t in trainings {
        for s in &t.steps {
            for tl in &s.timelines {
                rows.push(StepRow {
                    workload: &t.workload,
                    snapshot: s.snapshot,
                    policy: tl.policy.name(),
                    step_ms: tl.step_ns / 1e6,
                    forward_ms: tl.forward_ns / 1e6,
                    backward_ms: tl.backward_ns / 1e6,
                    offloaded_bytes: tl.offloaded_bytes,
                    offloaded_map_bytes: tl.offloaded_map_bytes,
                    max_buffer_bytes: tl.max_buffer_bytes,
                    peak_offload_read_gbps: tl.peak_offload_read_gbps,
                });
            }
        }
    }
    rows
}

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
            }],
        )?;
        pngs.push(png);
    }
    let json = json!({"workloads": studies, "training": trained});
    Ok(Output { study: StudyName::CdmaOffload, table, json, csv: csv_of(&step_rows(&trained))?, pngs })
}

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
            }],
        )?;
        pngs.push(png);
    }
    let json = json!({"workloads": studies, "training": trained});
    Ok(Output { study: StudyName::CdmaPerformance, table, json, csv: csv_of(&step_rows(&trained))?, pngs })
}
