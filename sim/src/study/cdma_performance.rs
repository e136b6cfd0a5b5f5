//! cDMA's performance (seed `003_*`, Fig. 13): per workload, the training
//! step time of vDNN and of cDMA with RL, ZVC and zlib, as performance
//! normalized to the oracle (no offload cost): `oracle time / time`, over
//! all the workload's steps ([`crate::cdma::vdnn`]).

use serde::Serialize;

use crate::cdma::training::Training;
use crate::cdma::vdnn::Policy;

/// One policy over the workload's steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyPerformance {
    pub policy: Policy,
    /// Mean step time, ms.
    pub step_ms: f64,
    /// Oracle time over this policy's time (1 for the oracle).
    pub performance: f64,
    /// Share of the step spent waiting for transfers the compute did not hide.
    pub exposed_transfer: f64,
}

/// One workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CdmaPerformance {
    pub workload: String,
    pub steps: usize,
    /// Layers per step and forward GFLOPs per step (the first step's).
    pub layers: usize,
    pub forward_gflops: f64,
    /// In [`Policy::ALL`] order.
    pub policies: Vec<PolicyPerformance>,
}

impl CdmaPerformance {
    pub fn new(training: &Training) -> Self {
        let steps = training.steps.len().max(1) as f64;
        let oracle = training.total(Policy::Oracle, |t| t.step_ns);
        let policies = Policy::ALL
            .iter()
            .map(|&policy| {
                let time = training.total(policy, |t| t.step_ns);
                // Compute under this policy's bandwidth sharing, without the transfers' waits.
                let compute = training.total(policy, |t| t.layers.iter().map(|l| l.forward_compute_ns + l.backward_compute_ns).sum());
                PolicyPerformance {
                    policy,
                    step_ms: time / steps / 1e6,
                    performance: if time > 0.0 { oracle / time } else { 1.0 },
                    exposed_transfer: if time > 0.0 { ((time - compute) / time).max(0.0) } else { 0.0 },
                }
            })
            .collect();
        let first = training.steps.first();
        CdmaPerformance {
            workload: training.workload.clone(),
            steps: training.steps.len(),
            layers: first.map_or(0, |s| s.layers.len()),
            forward_gflops: first.map_or(0.0, |s| s.layers.iter().map(|l| l.forward_gflops).sum()),
            policies,
        }
    }
}
