//! cDMA's offloaded bytes (seed `003_*`, Fig. 12): per workload, the bytes
//! vDNN sends to host memory over its training steps (every activation map
//! of every layer but the last, whole tensors) and the bytes cDMA sends with
//! RL, ZVC and zlib, normalized to vDNN; with the DMA engine's buffer
//! occupancy and read bandwidth ([`crate::cdma`]).

use serde::Serialize;

use crate::cdma::training::Training;
use crate::cdma::vdnn::Policy;

/// The policies that offload: vDNN, then cDMA with RL, ZVC and zlib.
pub const OFFLOADING: [Policy; 4] = [Policy::ALL[1], Policy::ALL[2], Policy::ALL[3], Policy::ALL[4]];

/// One policy over the workload's steps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PolicyOffload {
    pub policy: Policy,
    /// Bytes sent to host memory over all steps.
    pub offloaded_bytes: u64,
    /// `offloaded_bytes` over vDNN's (Fig. 12's bar).
    pub normalized: f64,
    /// Most bytes in the DMA engine's buffer in any step.
    pub max_buffer_bytes: u64,
    /// Highest mean DRAM read bandwidth of one layer's offload, GB/s.
    pub peak_read_gbps: f64,
}

/// One workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CdmaOffload {
    pub workload: String,
    pub steps: usize,
    /// The DMA engine's buffer, bytes.
    pub buffer_bytes: u64,
    /// In [`OFFLOADING`] order.
    pub policies: Vec<PolicyOffload>,
}

impl CdmaOffload {
    pub fn new(training: &Training) -> Self {
        let vdnn = training.total(Policy::Vdnn, |t| t.offloaded_bytes as f64);
        let policies = OFFLOADING
            .iter()
            .map(|&policy| {
                let bytes = training.total(policy, |t| t.offloaded_bytes as f64);
                PolicyOffload {
                    policy,
                    offloaded_bytes: bytes as u64,
                    normalized: if vdnn > 0.0 { bytes / vdnn } else { 1.0 },
                    max_buffer_bytes: training.steps.iter().map(|s| s.timeline(policy).max_buffer_bytes).max().unwrap_or(0),
                    peak_read_gbps: training.steps.iter().map(|s| s.timeline(policy).peak_offload_read_gbps).fold(0.0, f64::max),
                }
            })
            .collect();
        CdmaOffload { workload: training.workload.clone(), steps: training.steps.len(), buffer_bytes: training.buffer_bytes, policies }
    }
}
