//! vDNN's training-step timeline with and without cDMA (seed `003_*`,
//! Sec. II-C, V-B and VII-B).
//!
//! The layers `0..n` of a [`Network`] run forward, then backward in reverse.
//! vDNN offloads every layer's activation maps to host memory and brings
//! them back for the backward pass:
//!
//! - **Forward:** the maps of layer `i - 1` are offloaded while layer `i`
//!   computes; layer `i + 1` starts when both are done. Stage `i` takes
//!   `max(compute_i, offload_{i-1})`. The last layer's maps are consumed at
//!   once by the backward pass and are not offloaded.
//! - **Backward:** the mirror image: while layer `i` computes its gradients,
//!   the maps of layer `i - 1` come back. Stage `i` takes
//!   `max(compute_i, prefetch_{i-1})`.
//! - **Policies:** the oracle (no offload: the paper's `orac`, transfers
//!   always hidden), vDNN (uncompressed lines through the same DMA engine)
//!   and cDMA with RL, ZVC or zlib (the lines' stored bytes).
//! - **Memory bandwidth:** the DMA engine's DRAM bytes (the maps it reads
//!   for an offload, the maps it writes back after a prefetch; 128 per line
//!   with or without compression) are added to the overlapped layer's own
//!   DRAM bytes: the two share `cdma.dram_gbps`. A layer's time is the
//!   slower of its FLOPs and these bytes ([`super::network`]). cDMA reads
//!   faster than vDNN (up to `cdma.read_gbps`, not the link's rate) but the
//!   same bytes.
//!
//! The offload time and the buffer's occupancy come from
//! [`super::dma_engine::offload`]; the prefetch from its fluid model.

use buddy_golden::offload_window::WindowAlgorithm;
use serde::Serialize;

use crate::config::cdma::CdmaConfig;
use super::dma_engine::{offload, prefetch_ns, OffloadRun};
use super::network::Network;

/// How activation maps are kept during a training step (serialized as its
/// [`Policy::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    /// No offload; transfers cost nothing (the paper's oracular baseline).
    Oracle,
    /// vDNN: every map offloaded uncompressed.
    Vdnn,
    /// vDNN with cDMA compressing by the algorithm.
    Cdma(WindowAlgorithm),
}

impl Policy {
    /// Every policy: oracle, vDNN, then cDMA with RL, ZVC and zlib.
    pub const ALL: [Policy; 5] = [
        Policy::Oracle,
        Policy::Vdnn,
        Policy::Cdma(WindowAlgorithm::RunLength),
        Policy::Cdma(WindowAlgorithm::Zvc),
        Policy::Cdma(WindowAlgorithm::Zlib),
    ];

    /// `oracle`, `vdnn`, `cdma-rl`, `cdma-zvc`, `cdma-zlib`.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Oracle => "oracle",
            Policy::Vdnn => "vdnn",
            Policy::Cdma(WindowAlgorithm::RunLength) => "cdma-rl",
            Policy::Cdma(WindowAlgorithm::Zvc) => "cdma-zvc",
            Policy::Cdma(WindowAlgorithm::Zlib) => "cdma-zlib",
        }
    }

    /// The algorithm's index in [`WindowAlgorithm::ALL`] (`None`: uncompressed).
    fn algorithm_index(self) -> Option<usize> {
        match self {
            Policy::Cdma(alg) => WindowAlgorithm::ALL.iter().position(|&a| a == alg),
            _ => None,
        }
    }
}

impl Serialize for Policy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// One layer's part of the timeline, ns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerTiming {
    pub layer: String,
    /// Forward compute, sharing the DRAM with the overlapped offload.
    pub forward_compute_ns: f64,
    /// The forward stage: `max(compute, offload of the previous layer's maps)`.
    pub forward_stage_ns: f64,
    /// Offload of this layer's maps (0 for the last layer and the oracle).
    pub offload_ns: f64,
    pub backward_compute_ns: f64,
    /// The backward stage: `max(compute, prefetch of the previous layer's maps)`.
    pub backward_stage_ns: f64,
    /// Prefetch of this layer's maps.
    pub prefetch_ns: f64,
    /// Bytes of this layer's maps sent to the host (stored bytes).
    pub offloaded_bytes: u64,
    /// Bytes of the whole tensors of this layer's maps.
    pub map_bytes: u64,
    /// Most bytes in the DMA engine's buffer during the offload.
    pub max_buffer_bytes: u64,
    /// Mean DRAM read bandwidth of the offload, GB/s.
    pub offload_read_gbps: f64,
}

/// One policy's training step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepTimeline {
    pub policy: Policy,
    pub forward_ns: f64,
    pub backward_ns: f64,
    /// `forward_ns + backward_ns`.
    pub step_ns: f64,
    /// Bytes sent to the host (offload), the same back (prefetch).
    pub offloaded_bytes: u64,
    /// Bytes of the offloaded maps' whole tensors.
    pub offloaded_map_bytes: u64,
    /// Most bytes in the DMA engine's buffer over the step.
    pub max_buffer_bytes: u64,
    /// Highest mean DRAM read bandwidth of one layer's offload, GB/s.
    pub peak_offload_read_gbps: f64,
    pub layers: Vec<LayerTiming>,
}

/// Time of `flops` and `dram_bytes` (the layer's and the DMA engine's), ns.
fn compute_ns(config: &CdmaConfig, flops: f64, dram_bytes: u64) -> f64 {
    (flops / (config.gpu_tflops * 1e3)).max(dram_bytes as f64 / config.dram_gbps)
}

/// The training step of `network` under `policy`.
pub fn step(network: &Network, config: &CdmaConfig, policy: Policy) -> StepTimeline {
    let n = network.layers.len();
    let alg = policy.algorithm_index();
    // Offload of each layer's maps (none for the last layer or the oracle).
    let runs: Vec<Option<OffloadRun>> = network
        .layers
        .iter()
        .enumerate()
        .map(|(i, layer)| {
            (policy != Policy::Oracle && i + 1 < n).then(|| offload(config, layer.maps.iter().flat_map(|m| m.line_bytes(alg))))
        })
        .collect();
    let mut layers = Vec::with_capacity(n);
    for (i, layer) in network.layers.iter().enumerate() {
        let previous = i.checked_sub(1).and_then(|p| runs[p].as_ref());
        let (offload_before, dma_bytes) = previous.map_or((0.0, 0), |r| (r.time_ns, r.read_bytes));
        let forward_compute_ns = compute_ns(config, layer.forward_flops, layer.forward_dram_bytes() + dma_bytes);
        let prefetch_before = previous.map_or(0.0, |r| prefetch_ns(config, r.read_bytes, r.sent_bytes));
        let backward_compute_ns = compute_ns(config, 2.0 * layer.forward_flops, 2 * layer.forward_dram_bytes() + dma_bytes);
        let own = runs[i].as_ref();
        layers.push(LayerTiming {
            layer: layer.name.clone(),
            forward_compute_ns,
            forward_stage_ns: forward_compute_ns.max(offload_before),
            offload_ns: own.map_or(0.0, |r| r.time_ns),
            backward_compute_ns,
            backward_stage_ns: backward_compute_ns.max(prefetch_before),
            prefetch_ns: own.map_or(0.0, |r| prefetch_ns(config, r.read_bytes, r.sent_bytes)),
            offloaded_bytes: own.map_or(0, |r| r.sent_bytes),
            map_bytes: layer.map_bytes(),
            max_buffer_bytes: own.map_or(0, |r| r.max_occupancy_bytes),
            offload_read_gbps: own.map_or(0.0, OffloadRun::read_gbps),
        });
    }
    let forward_ns = layers.iter().map(|l| l.forward_stage_ns).sum();
    let backward_ns = layers.iter().map(|l| l.backward_stage_ns).sum();
    StepTimeline {
        policy,
        forward_ns,
        backward_ns,
        step_ns: forward_ns + backward_ns,
        offloaded_bytes: layers.iter().map(|l| l.offloaded_bytes).sum(),
        offloaded_map_bytes: runs.iter().zip(&network.layers).filter(|(r, _)| r.is_some()).map(|(_, l)| l.map_bytes()).sum(),
        max_buffer_bytes: layers.iter().map(|l| l.max_buffer_bytes).max().unwrap_or(0),
        peak_offload_read_gbps: layers.iter().map(|l| l.offload_read_gbps).fold(0.0, f64::max),
        layers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdma::network::{ActivationMap, Layer};

    /// Two layers of `flops` each, the first with a map of `lines` lines
    /// storing `stored` bytes per line under every algorithm.
    fn network(flops: f64, lines: u64, stored: u32) -> Network {
        let map = |lines| ActivationMap {
            name: "m".into(),
            tensor_bytes: lines * 128,
            lines,
            stored_line_bytes: [vec![stored], vec![stored], vec![stored]],
        };
        let layer = |name: &str, lines| Layer { name: name.into(), forward_flops: flops, weight_bytes: 0, maps: vec![map(lines)] };
        Network { layers: vec![layer("layer0", lines), layer("layer1", 1)], unassigned_weights: vec![], uncounted_weights: vec![] }
    }

    #[test]
    fn the_oracle_is_compute_only_and_offloads_nothing() {
        let c = CdmaConfig::default();
        let net = network(6.1e9, 1000, 4);
        let t = step(&net, &c, Policy::Oracle);
        // 6.1 GFLOP at 6.1 TFLOP/s = 1 ms forward, 2 ms backward, per layer;
        // 256,128 bytes of maps at 336 GB/s are far shorter.
        assert!((t.step_ns - 6e6).abs() < 1.0, "{}", t.step_ns);
        assert_eq!(t.offloaded_bytes, 0);
    }

    #[test]
    fn a_transfer_longer_than_the_compute_is_exposed() {
        let c = CdmaConfig::default();
        // 1 MFLOP per layer (164 ns), 100,000 lines (12.8 MB: 800 us at 16 GB/s).
        let net = network(1e6, 100_000, 4);
        let vdnn = step(&net, &c, Policy::Vdnn);
        let oracle = step(&net, &c, Policy::Oracle);
        assert_eq!(vdnn.offloaded_bytes, 12_800_000, "only layer 0's maps leave");
        assert!(vdnn.layers[1].forward_stage_ns > 800_000.0, "{}", vdnn.layers[1].forward_stage_ns);
        assert!(vdnn.layers[1].backward_stage_ns > 800_000.0);
        // cDMA sends 4 bytes per line: bound by its 200 GB/s read, 64 us each way.
        let zvc = step(&net, &c, Policy::Cdma(WindowAlgorithm::Zvc));
        assert_eq!(zvc.offloaded_bytes, 400_000);
        assert!(zvc.layers[1].forward_stage_ns > 64_000.0 && zvc.layers[1].forward_stage_ns < 65_000.0);
        assert!(oracle.step_ns < zvc.step_ns && zvc.step_ns < vdnn.step_ns);
        assert!(zvc.peak_offload_read_gbps > 190.0 && vdnn.peak_offload_read_gbps < 16.1);
    }

    #[test]
    fn the_offload_draws_dram_bandwidth_from_the_overlapped_layer() {
        // A memory-bound layer: no FLOPs, its maps' bytes at the DRAM bandwidth.
        let c = CdmaConfig::default();
        let net = network(0.0, 100_000, 4);
        let oracle = step(&net, &c, Policy::Oracle);
        let zvc = step(&net, &c, Policy::Cdma(WindowAlgorithm::Zvc));
        assert!(zvc.layers[1].forward_compute_ns > oracle.layers[1].forward_compute_ns * 1.5);
        assert_eq!(zvc.layers[0].forward_compute_ns, oracle.layers[0].forward_compute_ns, "nothing overlaps layer 0");
    }
}
