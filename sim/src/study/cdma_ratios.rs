//! cDMA's compression ratios of activation maps (seed `003_*`, Fig. 11):
//! per layer (an allocation with `role` `activation`) and training step
//! (a snapshot), the ratio of ZVC, RL and zlib over 4 KB windows
//! ([`buddy_golden::offload_window`]); per algorithm the maximum per-layer
//! ratio and the average weighted by the activation bytes (all bytes over
//! all stored bytes), as the paper's Fig. 11 reports them.
//!
//! Layouts: the snapshots hold each activation as the framework stored it
//! (row-major, e.g. `[batch, sequence, hidden]`), and only a slice of each
//! tensor, so the paper's other layouts (NCHW, NHWC, CHWN) cannot be built
//! from them; the study reports the stored layout only.

use buddy_golden::offload_window::{compressed_bytes, WindowAlgorithm, WINDOW_BYTES};
use serde::Serialize;

use crate::workload::Workload;

pub use crate::cdma::network::ACTIVATION_ROLE;

/// One layer's activation map in one snapshot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerRatio {
    /// The snapshot's manifest index and label.
    pub snapshot: usize,
    pub label: Option<String>,
    /// The allocation (layer) name.
    pub layer: String,
    /// Bytes of the map in the snapshot (padded to 128 B), and 4 KB windows.
    pub bytes: u64,
    pub windows: u64,
    /// Fraction of 32-bit words that are zero.
    pub zero_fraction: f64,
    /// Stored bytes per algorithm, in [`WindowAlgorithm::ALL`] order.
    pub stored: [u64; 3],
    /// `bytes / stored` per algorithm, same order.
    pub ratio: [f64; 3],
}

/// One algorithm's summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlgorithmSummary {
    pub algorithm: WindowAlgorithm,
    /// All activation bytes over all stored bytes (Fig. 11's size-weighted average).
    pub average: f64,
    /// The largest per-layer ratio, and where.
    pub max: f64,
    pub max_layer: String,
    pub max_snapshot: usize,
}

/// The study of one workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CdmaRatios {
    pub workload: String,
    pub layout: &'static str,
    pub window_bytes: usize,
    pub layers: Vec<LayerRatio>,
    pub summary: Vec<AlgorithmSummary>,
}

impl CdmaRatios {
    /// The study of `workload`, or `None` when no allocation has the
    /// `activation` role.
    pub fn new(workload: &Workload) -> Option<Self> {
        let mut layers = Vec::new();
        for snap in workload.snapshots() {
            for a in snap.allocations().filter(|a| a.info().role.as_deref() == Some(ACTIVATION_ROLE)) {
                let bytes = a.bytes();
                if bytes.is_empty() {
                    continue;
                }
                let mut stored = [0u64; 3];
                for window in bytes.chunks(WINDOW_BYTES) {
                    for (k, alg) in WindowAlgorithm::ALL.into_iter().enumerate() {
                        // Workload validation guarantees whole 128-byte entries.
                        stored[k] += compressed_bytes(alg, window).map_or(window.len(), |n| n) as u64;
                    }
                }
                let words = bytes.len() / 4;
                let zeros = bytes.chunks_exact(4).filter(|w| w == &[0, 0, 0, 0]).count();
                layers.push(LayerRatio {
                    snapshot: snap.info().index,
                    label: snap.info().label.clone(),
                    layer: a.info().name.clone(),
                    bytes: bytes.len() as u64,
                    windows: bytes.len().div_ceil(WINDOW_BYTES) as u64,
                    zero_fraction: zeros as f64 / words.max(1) as f64,
                    stored,
                    ratio: stored.map(|s| bytes.len() as f64 / s.max(1) as f64),
                });
            }
        }
        if layers.is_empty() {
            return None;
        }
        let total: u64 = layers.iter().map(|l| l.bytes).sum();
        let summary = WindowAlgorithm::ALL
            .into_iter()
            .enumerate()
            .map(|(k, algorithm)| {
                let stored: u64 = layers.iter().map(|l| l.stored[k]).sum();
                let best = layers.iter().max_by(|a, b| a.ratio[k].total_cmp(&b.ratio[k])).expect("layers is not empty");
                AlgorithmSummary {
                    algorithm,
                    average: total as f64 / stored.max(1) as f64,
                    max: best.ratio[k],
                    max_layer: best.layer.clone(),
                    max_snapshot: best.snapshot,
                }
            })
            .collect();
        Some(CdmaRatios {
            workload: workload.manifest().workload.clone(),
            layout: "as stored (row-major)",
            window_bytes: WINDOW_BYTES,
            layers,
            summary,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-snapshot workload: an 8 KB activation (the first 4 KB zero,
    /// then distinct words) and a weight allocation.
    fn activation_workload() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let alloc = |name: &str, offset: u64, size: u64, role: &str| {
            serde_json::json!({"name": name, "offset": offset, "size": size, "padded_size": size, "dtype": "f32",
                "count": size / 4, "description": "test", "role": role})
        };
        let manifest = serde_json::json!({
            "workload": "toy", "description": "unit test", "program": "none", "entry_bytes": 128, "byte_order": "little",
            "snapshots": [{"index": 0, "file": "snap_00.bin", "file_size": 8192 + 128, "label": "step 0",
                "allocations": [alloc("act.layer0", 0, 8192, "activation"), alloc("w.layer0", 8192, 128, "weight")]}]
        });
        std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
        let mut bytes = vec![0u8; 4096];
        bytes.extend((1..=1024u32).flat_map(|w| w.to_le_bytes()));
        bytes.extend([7u8; 128]);
        std::fs::write(dir.path().join("snap_00.bin"), bytes).unwrap();
        dir
    }

    #[test]
    fn ratios_per_layer_and_the_weighted_average() {
        let dir = activation_workload();
        let study = CdmaRatios::new(&Workload::open(dir.path()).unwrap()).unwrap();
        assert_eq!(study.layers.len(), 1, "only the activation");
        let l = &study.layers[0];
        assert_eq!((l.bytes, l.windows, l.zero_fraction), (8192, 2, 0.5));
        // RL: 40 bytes for the zero window, 8 literal records of 128 words for the other.
        // ZVC: 32 masks for the zero window, 32 masks and 1,024 words for the other.
        assert_eq!(l.stored[0], 40 + 4104);
        assert_eq!(l.stored[1], 128 + 128 + 4096);
        assert_eq!(study.summary[1].average, 8192.0 / 4352.0);
        assert_eq!(study.summary[1].max_layer, "act.layer0");
    }

    #[test]
    fn a_workload_without_activations_has_no_study() {
        let w = Workload::open(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small")).unwrap();
        assert!(CdmaRatios::new(&w).is_none());
    }
}
