//! What the three cDMA studies (`cdma-ratios`, `cdma-offload`,
//! `cdma-performance`) share: the line of a workload without activation
//! maps, and the CSV rows of the vDNN / cDMA training-step model
//! ([`buddy_sim::cdma`]).

use buddy_sim::cdma::training::Training;
use buddy_sim::Workload;
use serde::Serialize;

/// The line a workload without activation maps gets in a table.
pub(super) fn skipped(workload: &Workload) -> String {
    format!("{:<16} no activation allocations (manifest role `activation`): skipped\n", workload.manifest().workload)
}

/// One row per workload, step and policy.
#[derive(Serialize)]
pub(super) struct StepRow<'a> {
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

pub(super) fn step_rows<'a>(trainings: &[&'a Training]) -> Vec<StepRow<'a>> {
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
