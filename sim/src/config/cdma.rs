//! cDMA's parameters: the `[cdma]` table of the simulator's TOML file
//! (seed `003_*`, Sec. V-B "Buffer sizing" and Sec. VI "GPU node topology").

use serde::{Deserialize, Serialize};

use super::ConfigError;

/// Bytes of a line (a 128-byte memory-entry) read from DRAM.
pub const LINE_BYTES: u64 = buddy_golden::ENTRY_BYTES as u64;

/// Buffer bytes the launcher reserves per line in flight: the worst case of
/// a stored line, a ZVC line without a zero word (32-bit mask + 128 bytes).
pub const LINE_RESERVATION_BYTES: u64 = 132;

/// The GPU, its host link and the compressing DMA engine. Every default is
/// the cDMA paper's figure (an NVIDIA Titan X (Maxwell) over PCIe gen3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CdmaConfig {
    /// Host link bandwidth per direction, GB/s (PCIe gen3 x16: 16).
    pub pcie_gbps: f64,
    /// GPU DRAM bandwidth, GB/s (Titan X: 336).
    pub dram_gbps: f64,
    /// Most DRAM read bandwidth cDMA may draw, GB/s (`COMP_BW`, Sec. VI: 200).
    pub read_gbps: f64,
    /// From the DMA engine's request to the data's arrival in its buffer, ns
    /// (Sec. V-B: 350).
    pub request_latency_ns: f64,
    /// The DMA engine's response buffer, bytes; unset: sized by bandwidth x
    /// latency ([`CdmaConfig::buffer_bytes`]).
    pub buffer_bytes: Option<u64>,
    /// GPU arithmetic throughput the layers' FLOPs run at, TFLOP/s (Titan X
    /// (Maxwell) single precision peak: 6.1).
    pub gpu_tflops: f64,
}

impl Default for CdmaConfig {
    fn default() -> Self {
        CdmaConfig { pcie_gbps: 16.0, dram_gbps: 336.0, read_gbps: 200.0, request_latency_ns: 350.0, buffer_bytes: None, gpu_tflops: 6.1 }
    }
}

impl CdmaConfig {
    /// The response buffer, bytes: `cdma.buffer_bytes`, or by default the
    /// lines in flight at `read_gbps` over `request_latency_ns` (Sec. V-B:
    /// 200 GB/s x 350 ns = 70 KB at 128 bytes per line; here 547 lines), each
    /// reserving its worst case of 132 bytes: 72,204 bytes.
    pub fn buffer_bytes(&self) -> u64 {
        self.buffer_bytes.unwrap_or_else(|| {
            let lines = (self.read_gbps * self.request_latency_ns / LINE_BYTES as f64).ceil().max(1.0) as u64;
            lines * LINE_RESERVATION_BYTES
        })
    }

    /// Check every value's range.
    ///
    /// # Errors
    /// [`ConfigError::Value`] naming the first bad key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (key, v, max) in [
            ("cdma.pcie_gbps", self.pcie_gbps, 1e6),
            ("cdma.dram_gbps", self.dram_gbps, 1e6),
            ("cdma.read_gbps", self.read_gbps, 1e6),
            ("cdma.gpu_tflops", self.gpu_tflops, 1e6),
            ("cdma.request_latency_ns", self.request_latency_ns, 1e9),
        ] {
            if !(v.is_finite() && v > 0.0 && v < max) {
                return Err(ConfigError::Value { key, value: v.to_string(), why: "must be a positive number below 10^6 (10^9 for ns)" });
            }
        }
        // A line's worst-case stored bytes must fit, or the engine could never launch one.
        let buffer = self.buffer_bytes();
        if !(LINE_RESERVATION_BYTES..=1 << 30).contains(&buffer) {
            return Err(ConfigError::Value {
                key: "cdma.buffer_bytes",
                value: buffer.to_string(),
                why: "must be from 132 bytes (one line's worst case) to 1 GiB",
            });
        }
        if self.read_gbps > self.dram_gbps {
            return Err(ConfigError::Value {
                key: "cdma.read_gbps",
                value: self.read_gbps.to_string(),
                why: "cannot exceed cdma.dram_gbps (cDMA reads the GPU's DRAM)",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{ConfigError, SimConfig};

    #[test]
    fn the_cdma_table_is_read_and_checked_with_the_rest() {
        let c = SimConfig::from_toml("[cdma]\npcie_gbps = 32\nbuffer_bytes = 4096\n", "t.toml").unwrap();
        assert_eq!((c.cdma.pcie_gbps, c.cdma.buffer_bytes()), (32.0, 4096));
        for (text, key) in [
            ("[cdma]\npcie_gbps = 0\n", "cdma.pcie_gbps"),
            ("[cdma]\nbuffer_bytes = 100\n", "cdma.buffer_bytes"),
            ("[cdma]\nread_gbps = 400\n", "cdma.read_gbps"),
        ] {
            let err = SimConfig::from_toml(text, "t.toml").unwrap_err();
            assert!(matches!(err, ConfigError::Value { key: k, .. } if k == key), "{text}: {err}");
        }
        let err = SimConfig::from_toml("[cdma]\npcie_gpbs = 16\n", "t.toml").unwrap_err();
        assert!(err.to_string().contains("pcie_gpbs"), "{err}");
    }
}
