//! A DNN training step as vDNN sees it, built from one snapshot's manifest
//! and activation data (seed `003_*`, Sec. II-C and VI).
//!
//! **Layers.** An allocation belongs to layer `n` when the first number in
//! its name (after the role prefix, the text up to the first `.`) is `n`:
//! `act.layer0.query` and `w.encoder.layer.0.attention.self.query.weight`
//! are both layer 0. Activation maps (`role` `activation`) without a number
//! (`act.embeddings_out`) are each a layer of their own. Layers run in the
//! order their first activation map appears in the manifest.
//!
//! **Offloaded data.** A layer's activation maps, whole tensors
//! (`full_size`). When the snapshot holds a slice of a tensor, the slice's
//! 128-byte lines stand for the whole tensor: the tensor's lines are the
//! slice's lines repeated in order. Stored bytes per line: ZVC exact (a
//! 4-byte mask and the non-zero words); RL and zlib compress 4 KB windows
//! ([`buddy_golden::offload_window`]) and a window's stream is spread evenly
//! over its lines.
//!
//! **Compute** (an analytical model; the snapshots carry shapes, not
//! kernels). Forward FLOPs of a layer:
//! - per weight of two or more dimensions `[out, in, ...]` (role `weight`):
//!   `2 x positions x out x in x ...`, where `positions` is the elements of
//!   the layer's first activation map whose last dimension (else second,
//!   NCHW) is `out`, divided by `out` (a linear layer's tokens, a
//!   convolution's output pixels);
//! - per four-dimensional map `[b, heads, s, t]` (attention probabilities):
//!   `4 x b x s x t x d` (QK^T and PV), `d` the smallest last dimension of the
//!   layer's three-dimensional maps `[b, s, d]`.
//!
//! Element-wise work (biases, normalization, activation functions) counts no
//! FLOPs; its cost is in the DRAM bytes: the layer's weights once and its
//! maps twice (written, read) in the forward pass. The backward pass takes
//! twice the forward FLOPs and bytes. A layer's time is the slower of FLOPs
//! at `cdma.gpu_tflops` and bytes (with the DMA engine's, [`super::vdnn`])
//! at `cdma.dram_gbps`.

use buddy_golden::entry::ENTRY_BYTES;
use buddy_golden::offload_window::{compressed_bytes, WindowAlgorithm, WINDOW_BYTES};
use serde::Serialize;

use crate::workload::{Allocation, Snapshot};

/// The manifest `role` of an activation map.
pub const ACTIVATION_ROLE: &str = "activation";
/// The manifest `role` of a weight the layers compute with.
pub const WEIGHT_ROLE: &str = "weight";

/// One activation map: its whole tensor and the stored bytes of the lines
/// that stand for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ActivationMap {
    /// Allocation name.
    pub name: String,
    /// Bytes of the whole tensor.
    pub tensor_bytes: u64,
    /// 128-byte lines of the whole tensor.
    pub lines: u64,
    /// Per algorithm ([`WindowAlgorithm::ALL`] order), stored bytes of each
    /// line of the snapshot's slice.
    pub stored_line_bytes: [Vec<u32>; 3],
}

impl ActivationMap {
    fn new(allocation: &Allocation, bytes: &[u8]) -> Self {
        let stored_line_bytes = WindowAlgorithm::ALL.map(|alg| {
            let mut per_line = Vec::with_capacity(bytes.len() / ENTRY_BYTES);
            for window in bytes.chunks(WINDOW_BYTES) {
                let lines = window.len() / ENTRY_BYTES;
                if alg == WindowAlgorithm::Zvc {
                    per_line.extend(
                        window.chunks_exact(ENTRY_BYTES).map(|l| 4 + 4 * l.chunks_exact(4).filter(|w| w != &[0, 0, 0, 0]).count() as u32),
                    );
                } else {
                    // Workload validation guarantees whole 128-byte entries, so the window is valid.
                    let stream = compressed_bytes(alg, window).map_or(window.len(), |n| n) as u32;
                    let (share, extra) = (stream / lines as u32, stream % lines as u32);
                    per_line.extend((0..lines as u32).map(|i| share + u32::from(i < extra)));
                }
            }
            per_line
        });
        let tensor_bytes = allocation.tensor_bytes();
        ActivationMap { name: allocation.name.clone(), tensor_bytes, lines: tensor_bytes.div_ceil(ENTRY_BYTES as u64), stored_line_bytes }
    }

    /// Stored bytes of each line of the whole tensor, under `algorithm`
    /// (index into [`WindowAlgorithm::ALL`]), or 128 per line uncompressed
    /// (`None`, vDNN).
    pub fn line_bytes(&self, algorithm: Option<usize>) -> impl Iterator<Item = u32> + '_ {
        let stored: &[u32] = algorithm.map_or(&[], |k| &self.stored_line_bytes[k]);
        (0..self.lines as usize).map(move |i| if stored.is_empty() { ENTRY_BYTES as u32 } else { stored[i % stored.len()] })
    }

    /// Stored bytes of the whole tensor ([`Self::line_bytes`] summed).
    pub fn stored_bytes(&self, algorithm: Option<usize>) -> u64 {
        let Some(stored) = algorithm.map(|k| &self.stored_line_bytes[k]).filter(|s| !s.is_empty()) else {
            return self.lines * ENTRY_BYTES as u64;
        };
        let n = stored.len() as u64;
        let (rounds, rest) = (self.lines / n, (self.lines % n) as usize);
        let sum = |s: &[u32]| s.iter().map(|&b| u64::from(b)).sum::<u64>();
        rounds * sum(stored) + sum(&stored[..rest])
    }
}

/// One layer: its forward work and the activation maps it produces.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// `layer<n>`, or the map's name for a layer without a number.
    pub name: String,
    /// Forward FLOPs (module docs).
    pub forward_flops: f64,
    /// Bytes of the layer's weights (whole tensors).
    pub weight_bytes: u64,
    /// Its activation maps, in manifest order.
    pub maps: Vec<ActivationMap>,
}

impl Layer {
    /// Bytes of its maps' whole tensors.
    pub fn map_bytes(&self) -> u64 {
        self.maps.iter().map(|m| m.tensor_bytes).sum()
    }

    /// DRAM bytes of its forward pass: weights once, maps twice.
    pub fn forward_dram_bytes(&self) -> u64 {
        self.weight_bytes + 2 * self.map_bytes()
    }
}

/// A training step: the layers in forward order.
#[derive(Debug, Clone, PartialEq)]
pub struct Network {
    pub layers: Vec<Layer>,
    /// Weights assigned to no layer (no number, or no layer of theirs has maps).
    pub unassigned_weights: Vec<String>,
    /// Weights of a layer whose FLOPs could not be counted (no map matching
    /// their output dimension, or no shape).
    pub uncounted_weights: Vec<String>,
}

/// Serializable summary of a [`Layer`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerSummary {
    pub name: String,
    pub maps: usize,
    pub forward_gflops: f64,
    pub weight_bytes: u64,
    pub map_bytes: u64,
}

impl From<&Layer> for LayerSummary {
    fn from(l: &Layer) -> Self {
        LayerSummary {
            name: l.name.clone(),
            maps: l.maps.len(),
            forward_gflops: l.forward_flops / 1e9,
            weight_bytes: l.weight_bytes,
            map_bytes: l.map_bytes(),
        }
    }
}

/// The first number in `name` after its role prefix (the text up to the first `.`).
pub fn layer_number(name: &str) -> Option<u64> {
    let rest = name.split_once('.').map_or(name, |(_, r)| r);
    let start = rest.find(|c: char| c.is_ascii_digit())?;
    let digits: String = rest[start..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

fn elements(shape: &[u64]) -> f64 {
    shape.iter().map(|&d| d as f64).product()
}

impl Network {
    /// The step of `snapshot`, or `None` when it has no activation map.
    pub fn from_snapshot(snapshot: &Snapshot<'_>) -> Option<Self> {
        // (layer number, layer, its maps' shapes)
        type Building = (Option<u64>, Layer, Vec<Option<Vec<u64>>>);
        let mut layers: Vec<Building> = Vec::new();
        for a in snapshot.allocations().filter(|a| a.info().role.as_deref() == Some(ACTIVATION_ROLE)) {
            let info = a.info();
            let number = layer_number(&info.name);
            let map = ActivationMap::new(info, a.bytes());
            match layers.iter_mut().find(|(n, _, _)| number.is_some() && *n == number) {
                Some((_, layer, shapes)) => {
                    layer.maps.push(map);
                    shapes.push(info.shape.clone());
                }
                None => {
                    let name = number.map_or_else(|| info.name.clone(), |n| format!("layer{n}"));
                    layers.push((number, Layer { name, forward_flops: 0.0, weight_bytes: 0, maps: vec![map] }, vec![info.shape.clone()]));
                }
            }
        }
        if layers.is_empty() {
            return None;
        }
        let (mut unassigned_weights, mut uncounted_weights) = (Vec::new(), Vec::new());
        for w in snapshot.allocations().map(|a| a.info()).filter(|a| a.role.as_deref() == Some(WEIGHT_ROLE)) {
            let number = layer_number(&w.name);
            let Some((_, layer, shapes)) = layers.iter_mut().find(|(n, _, _)| number.is_some() && *n == number) else {
                unassigned_weights.push(w.name.clone());
                continue;
            };
            layer.weight_bytes += w.tensor_bytes();
            let Some(shape) = w.shape.as_deref().filter(|s| s.len() >= 2) else {
                continue; // a bias or a norm's scale: element-wise
            };
            let out = shape[0];
            let by = |dim: fn(&[u64]) -> Option<u64>| shapes.iter().flatten().find(|s| dim(s) == Some(out));
            match by(|s| s.last().copied()).or_else(|| by(|s| s.get(1).copied())) {
                Some(map) if out > 0 => layer.forward_flops += 2.0 * elements(map) / out as f64 * elements(shape),
                _ => uncounted_weights.push(w.name.clone()),
            }
        }
        for (_, layer, shapes) in &mut layers {
            for s in shapes.iter().flatten().filter(|s| s.len() == 4) {
                let (b, seq, t) = (s[0], s[2], s[3]);
                let d = shapes.iter().flatten().filter(|m| m.len() == 3 && m[0] == b && m[1] == seq).map(|m| m[2]).min();
                if let Some(d) = d {
                    layer.forward_flops += 4.0 * (b * seq * t) as f64 * d as f64;
                }
            }
        }
        Some(Network { layers: layers.into_iter().map(|(_, l, _)| l).collect(), unassigned_weights, uncounted_weights })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn layer_numbers_come_from_the_name_after_the_role_prefix() {
        assert_eq!(layer_number("act.layer0.query"), Some(0));
        assert_eq!(layer_number("w.encoder.layer.5.output.dense.weight"), Some(5));
        assert_eq!(layer_number("w16.encoder.layer.12.x"), Some(12));
        assert_eq!(layer_number("act.embeddings_out"), None);
    }

    /// A two-layer workload: per layer a linear weight `[out, in]` (stored as a
    /// 128-byte slice), a map `[8, out]` (stored half, every other word zero),
    /// and in layer 0 attention probabilities `[2, 4, 4, 4]`, all zero, and a
    /// `[2, 4, 32]` map; one numberless map and one numberless weight.
    pub(crate) fn two_layer_workload() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let mut allocations = Vec::new();
        let mut bytes: Vec<u8> = Vec::new();
        let mut add = |name: &str, role: &str, shape: &[u64], stored: usize, zero: bool| {
            let full: u64 = shape.iter().product::<u64>() * 4;
            allocations.push(serde_json::json!({"name": name, "offset": bytes.len(), "size": stored, "padded_size": stored,
                "dtype": "f32", "count": stored / 4, "description": "test", "role": role, "shape": shape, "full_size": full}));
            bytes.extend((0..stored as u32 / 4).flat_map(|i| if zero || i % 2 == 0 { 0 } else { i }.to_le_bytes()));
        };
        add("act.embeddings_out", "activation", &[8, 32], 1024, false);
        add("w.embeddings.weight", "weight", &[100, 32], 128, false);
        add("w.layer.0.fc.weight", "weight", &[512, 256], 128, false);
        add("w.layer.0.fc.bias", "weight", &[512], 2048, false);
        add("act.layer0.out", "activation", &[8, 512], 8192, false);
        add("act.layer0.probs", "activation", &[2, 4, 4, 4], 512, true);
        add("act.layer0.ctx", "activation", &[2, 4, 32], 1024, false);
        add("w.layer.1.fc.weight", "weight", &[512, 512], 128, false);
        add("act.layer1.out", "activation", &[8, 512], 8192, false);
        let manifest = serde_json::json!({
            "workload": "toy-dnn", "description": "test", "program": "none", "entry_bytes": 128, "byte_order": "little",
            "snapshots": [{"index": 0, "file": "snap_00.bin", "file_size": bytes.len(), "label": "step 1", "allocations": allocations}]
        });
        std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
        std::fs::write(dir.path().join("snap_00.bin"), bytes).unwrap();
        dir
    }

    #[test]
    fn layers_flops_and_maps_from_the_manifest() {
        let dir = two_layer_workload();
        let w = crate::workload::Workload::open(dir.path()).unwrap();
        let net = Network::from_snapshot(&w.snapshots().next().unwrap()).unwrap();
        let names: Vec<&str> = net.layers.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["act.embeddings_out", "layer0", "layer1"]);
        assert_eq!(net.unassigned_weights, ["w.embeddings.weight"]);
        assert!(net.uncounted_weights.is_empty());
        let (l0, l1) = (&net.layers[1], &net.layers[2]);
        // Linear: 2 x 8 positions x 512 x 256; attention: 4 x 2 x 4 x 4 x 32.
        assert_eq!(l0.forward_flops, 2.0 * 8.0 * 512.0 * 256.0 + 4.0 * 2.0 * 4.0 * 4.0 * 32.0);
        assert_eq!(l1.forward_flops, 2.0 * 8.0 * 512.0 * 512.0);
        assert_eq!(l0.weight_bytes, 512 * 256 * 4 + 512 * 4);
        assert_eq!(net.layers[0].forward_flops, 0.0);
        // The 8 KB slice stands for the 16 KB tensor: 128 lines of 4 + 16 x 4 bytes under ZVC.
        let out = &l0.maps[0];
        assert_eq!((out.tensor_bytes, out.lines), (16_384, 128));
        assert_eq!(out.stored_bytes(Some(1)), 128 * 68);
        // All-zero probabilities: a mask per line.
        assert_eq!(l0.maps[1].stored_bytes(Some(1)), 4 * 4);
        assert_eq!(l0.map_bytes(), 16_384 + 512 + 1024);
    }

    fn map(lines: u64, stored: [Vec<u32>; 3]) -> ActivationMap {
        ActivationMap { name: "m".into(), tensor_bytes: lines * 128, lines, stored_line_bytes: stored }
    }

    #[test]
    fn a_slice_stands_for_its_whole_tensor_line_by_line() {
        let m = map(5, [vec![10, 20], vec![4, 132], vec![1, 2]]);
        assert_eq!(m.line_bytes(Some(1)).collect::<Vec<_>>(), [4, 132, 4, 132, 4]);
        assert_eq!(m.stored_bytes(Some(1)), 4 + 132 + 4 + 132 + 4);
        assert_eq!(m.stored_bytes(Some(0)), 10 + 20 + 10 + 20 + 10);
        assert_eq!(m.stored_bytes(None), 640);
        assert!(m.line_bytes(None).all(|b| b == 128));
    }
}
