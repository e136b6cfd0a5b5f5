//! vDNN with and without cDMA over a workload's snapshots: each snapshot is
//! one training step ([`super::network::Network`]), timed under every
//! [`Policy`] ([`super::vdnn::step`]).

use rayon::prelude::*;
use serde::Serialize;

use crate::config::cdma::CdmaConfig;
use super::network::{LayerSummary, Network};
use super::vdnn::{step, Policy, StepTimeline};
use crate::workload::Workload;

/// One training step (a snapshot) under every policy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrainingStep {
    /// The snapshot's manifest index and label.
    pub snapshot: usize,
    pub label: Option<String>,
    pub layers: Vec<LayerSummary>,
    /// Weights given to no layer, and weights whose FLOPs were not counted
    /// ([`Network`]).
    pub unassigned_weights: Vec<String>,
    pub uncounted_weights: Vec<String>,
    /// In [`Policy::ALL`] order.
    pub timelines: Vec<StepTimeline>,
}

impl TrainingStep {
    /// The timeline of `policy`.
    pub fn timeline(&self, policy: Policy) -> &StepTimeline {
        let k = Policy::ALL.iter().position(|&p| p == policy).expect("every policy is in ALL");
        &self.timelines[k]
    }
}

/// Every snapshot of a workload as a training step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Training {
    pub workload: String,
    pub config: CdmaConfig,
    /// The DMA engine's response buffer, bytes ([`CdmaConfig::buffer_bytes`]).
    pub buffer_bytes: u64,
    pub steps: Vec<TrainingStep>,
}

impl Training {
    /// The steps of `workload`, or `None` when no snapshot has an
    /// activation map. Snapshots are timed in parallel.
    pub fn new(workload: &Workload, config: &CdmaConfig) -> Option<Self> {
        let snapshots: Vec<_> = workload.snapshots().collect();
        let steps: Vec<TrainingStep> = snapshots
            .par_iter()
            .filter_map(|snap| {
                let network = Network::from_snapshot(snap)?;
                Some(TrainingStep {
                    snapshot: snap.info().index,
                    label: snap.info().label.clone(),
                    layers: network.layers.iter().map(LayerSummary::from).collect(),
                    unassigned_weights: network.unassigned_weights.clone(),
                    uncounted_weights: network.uncounted_weights.clone(),
                    timelines: Policy::ALL.iter().map(|&p| step(&network, config, p)).collect(),
                })
            })
            .collect();
        (!steps.is_empty()).then(|| Training {
            workload: workload.manifest().workload.clone(),
            config: config.clone(),
            buffer_bytes: config.buffer_bytes(),
            steps,
        })
    }

    /// Sum over the steps of `f` of `policy`'s timeline.
    pub fn total(&self, policy: Policy, f: impl Fn(&StepTimeline) -> f64) -> f64 {
        self.steps.iter().map(|s| f(s.timeline(policy))).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use buddy_golden::offload_window::WindowAlgorithm;

    #[test]
    fn every_policy_times_each_step() {
        let dir = crate::cdma::network::tests::two_layer_workload();
        let w = Workload::open(dir.path()).unwrap();
        let t = Training::new(&w, &CdmaConfig::default()).unwrap();
        assert_eq!(t.steps.len(), 1);
        let s = &t.steps[0];
        // Everything but the last layer's map leaves: 1,024 + 16,384 + 512 + 1,024 bytes.
        assert_eq!(s.timeline(Policy::Vdnn).offloaded_bytes, 18_944);
        assert_eq!(s.timeline(Policy::Oracle).offloaded_bytes, 0);
        let zvc = s.timeline(Policy::Cdma(WindowAlgorithm::Zvc));
        assert_eq!(zvc.offloaded_bytes, 8 * 68 + 128 * 68 + 4 * 4 + 8 * 68);
        let (oracle, vdnn) = (s.timeline(Policy::Oracle).step_ns, s.timeline(Policy::Vdnn).step_ns);
        // The toy's layers are memory-bound: the DMA engine's bytes slow them, its transfers hide.
        assert!(oracle < zvc.step_ns && zvc.step_ns <= vdnn, "{oracle} {} {vdnn}", zvc.step_ns);
    }

    #[test]
    fn a_workload_without_activation_maps_has_no_training() {
        let w = Workload::open(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small")).unwrap();
        assert!(Training::new(&w, &CdmaConfig::default()).is_none());
    }
}
