//! The memory system's parameters (buddy-memory.md §5, the Buddy paper's
//! Table I), read from a TOML file whose every key is optional; unknown keys
//! and impossible values are errors that name the key.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use buddy_golden::Algorithm;

/// Every parameter, grouped as in the TOML file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    pub system: SystemConfig,
    pub hbm: HbmConfig,
    pub nvlink: NvlinkConfig,
    pub codec: CodecConfig,
    pub metadata_cache: MetadataCacheParams,
    pub l2: L2Params,
    pub energy: EnergyConfig,
}

/// GPU-level parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SystemConfig {
    /// Memory-controller slices (Table I: 8).
    pub slices: u32,
    /// L2 requests in flight at most (the GPU's memory-level parallelism).
    pub max_outstanding: u32,
    /// Page size: `2M` or `64K`.
    pub page: String,
    /// Requests per epoch of the per-epoch series.
    pub epoch_requests: u64,
    /// Fast mode's controller timing: `pipelined` (any number of requests
    /// in flight per slice, fixed codec and metadata latencies: the
    /// paper's model) or `hardware` (one request at a time per slice, every
    /// memory handshake on the `BuddyController`'s cycle: the RTL mode's
    /// timing). The RTL mode always has the hardware's.
    pub slice_timing: String,
}

/// HBM2 device memory (Table I: 4 channels per slice at 875 MHz, 900 GB/s in total).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HbmConfig {
    pub channels_per_slice: u32,
    pub clock_mhz: f64,
    /// Total bandwidth of all channels, GB/s (10^9 bytes/s).
    pub total_gbps: f64,
    /// Access latency of a row hit, DRAM cycles (controller, array, return).
    pub latency_cycles: f64,
    /// Extra cycles of a row miss (precharge + activate).
    pub row_miss_cycles: f64,
    /// Banks per channel.
    pub banks: u32,
    /// Bytes per DRAM row (page) of a bank.
    pub row_bytes: u64,
}

/// The NVLink2 buddy link (Table I: 6 channels, 150 GB/s full duplex).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NvlinkConfig {
    /// Bandwidth per direction, GB/s.
    pub gbps: f64,
    /// Buddy access latency as a multiple of the HBM2 row-hit latency (Sec. IV-A: 2x).
    pub latency_factor: f64,
    /// Control header bytes per buddy packet (Sec. IV-B: 32 B).
    pub header_bytes: u64,
}

/// (De)compression latencies, DRAM cycles; unset means the paper's figure
/// for the algorithm (BPC 11/11, MAG-BDI 1/1, ZVC 6/2; buddy-memory.md §5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct CodecConfig {
    pub compress_cycles: Option<f64>,
    pub decompress_cycles: Option<f64>,
}

/// Metadata cache per slice (Table I: 4 KiB, 4 ways, 128 B lines).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetadataCacheParams {
    pub bytes: usize,
    pub ways: usize,
    /// Cycles of a hit.
    pub hit_cycles: f64,
}

/// The trace driver's L2 (buddy-memory.md §7: 64 KiB, 16 ways).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct L2Params {
    pub bytes: u64,
    pub ways: usize,
}

/// Energy per event (Sec. IV-B).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EnergyConfig {
    /// pJ per row activation.
    pub activation_pj: f64,
    /// pJ per bit of column access.
    pub column_pj_per_bit: f64,
    /// pJ per bit of data sensing and I/O.
    pub io_pj_per_bit: f64,
    /// pJ per bit on the interconnect (doubled when `switch`).
    pub link_pj_per_bit: f64,
    /// The buddy link goes through an NVSwitch.
    pub switch: bool,
}

impl Default for SystemConfig {
    fn default() -> Self {
        SystemConfig { slices: 8, max_outstanding: 256, page: "2M".into(), epoch_requests: 4096, slice_timing: "pipelined".into() }
    }
}

impl Default for HbmConfig {
    fn default() -> Self {
        HbmConfig {
            channels_per_slice: 4,
            clock_mhz: 875.0,
            total_gbps: 900.0,
            latency_cycles: 100.0,
            row_miss_cycles: 28.0,
            banks: 16,
            row_bytes: 2048,
        }
    }
}

impl Default for NvlinkConfig {
    fn default() -> Self {
        NvlinkConfig { gbps: 150.0, latency_factor: 2.0, header_bytes: 32 }
    }
}

impl Default for MetadataCacheParams {
    fn default() -> Self {
        MetadataCacheParams { bytes: 4096, ways: 4, hit_cycles: 2.0 }
    }
}

impl Default for L2Params {
    fn default() -> Self {
        L2Params { bytes: 64 * 1024, ways: 16 }
    }
}

impl Default for EnergyConfig {
    fn default() -> Self {
        EnergyConfig { activation_pj: 909.0, column_pj_per_bit: 1.51, io_pj_per_bit: 1.97, link_pj_per_bit: 11.0, switch: false }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read config {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// Bad TOML, an unknown key or a value of the wrong type (the message
    /// names the key and the line).
    #[error("config {path}: {message}")]
    Parse { path: String, message: String },
    /// A value outside its range.
    #[error("config key {key} = {value}: {why}")]
    Value { key: &'static str, value: String, why: &'static str },
}

impl SimConfig {
    /// Parse TOML text (`path` names it in errors) and validate it.
    ///
    /// # Errors
    /// [`ConfigError::Parse`] (naming the unknown or mistyped key and its
    /// line) or [`ConfigError::Value`].
    pub fn from_toml(text: &str, path: &str) -> Result<Self, ConfigError> {
        let config: SimConfig = toml::from_str(text).map_err(|e| {
            let at = e.span().map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!("line {line}: ")
            });
            ConfigError::Parse { path: path.into(), message: format!("{}{}", at.unwrap_or_default(), e.message().trim()) }
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Read and validate a TOML file.
    ///
    /// # Errors
    /// As [`SimConfig::from_toml`], or the file cannot be read.
    pub fn read(path: &std::path::Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.display().to_string(), source })?;
        Self::from_toml(&text, &path.display().to_string())
    }

    /// The effective values as TOML (written next to the results).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }

    /// Check every value's range.
    ///
    /// # Errors
    /// [`ConfigError::Value`] naming the first bad key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn positive(key: &'static str, v: f64) -> Result<(), ConfigError> {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(ConfigError::Value { key, value: v.to_string(), why: "must be a positive number" })
            }
        }
        fn non_negative(key: &'static str, v: f64) -> Result<(), ConfigError> {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(ConfigError::Value { key, value: v.to_string(), why: "must be zero or positive" })
            }
        }
        positive("system.slices", self.system.slices as f64)?;
        positive("system.max_outstanding", self.system.max_outstanding as f64)?;
        positive("system.epoch_requests", self.system.epoch_requests as f64)?;
        if self.system.page != "2M" && self.system.page != "64K" {
            return Err(ConfigError::Value { key: "system.page", value: self.system.page.clone(), why: "must be \"2M\" or \"64K\"" });
        }
        if self.system.slice_timing != "pipelined" && self.system.slice_timing != "hardware" {
            return Err(ConfigError::Value {
                key: "system.slice_timing",
                value: self.system.slice_timing.clone(),
                why: "must be \"pipelined\" or \"hardware\"",
            });
        }
        positive("hbm.channels_per_slice", self.hbm.channels_per_slice as f64)?;
        positive("hbm.clock_mhz", self.hbm.clock_mhz)?;
        positive("hbm.total_gbps", self.hbm.total_gbps)?;
        non_negative("hbm.latency_cycles", self.hbm.latency_cycles)?;
        non_negative("hbm.row_miss_cycles", self.hbm.row_miss_cycles)?;
        positive("hbm.banks", self.hbm.banks as f64)?;
        if self.hbm.row_bytes < 128 || !self.hbm.row_bytes.is_power_of_two() {
            return Err(ConfigError::Value {
                key: "hbm.row_bytes",
                value: self.hbm.row_bytes.to_string(),
                why: "must be a power of two of at least 128",
            });
        }
        positive("nvlink.gbps", self.nvlink.gbps)?;
        non_negative("nvlink.latency_factor", self.nvlink.latency_factor)?;
        if let Some(c) = self.codec.compress_cycles {
            non_negative("codec.compress_cycles", c)?;
        }
        if let Some(c) = self.codec.decompress_cycles {
            non_negative("codec.decompress_cycles", c)?;
        }
        non_negative("metadata_cache.hit_cycles", self.metadata_cache.hit_cycles)?;
        let md = buddy_golden::metadata_cache::MetadataCacheConfig {
            size_bytes: self.metadata_cache.bytes,
            ways: self.metadata_cache.ways,
            ..Default::default()
        };
        if md.validate().is_err() {
            return Err(ConfigError::Value {
                key: "metadata_cache.bytes",
                value: format!("{} with {} ways", self.metadata_cache.bytes, self.metadata_cache.ways),
                why: "must be a whole number of sets of `ways` 128-byte lines",
            });
        }
        if crate::l2_cache::L2Cache::new(crate::l2_cache::L2Config { bytes: self.l2.bytes, ways: self.l2.ways }).is_err() {
            return Err(ConfigError::Value {
                key: "l2.bytes",
                value: format!("{} with {} ways", self.l2.bytes, self.l2.ways),
                why: "must be a whole number of sets of `ways` 128-byte lines",
            });
        }
        for (key, v) in [
            ("energy.activation_pj", self.energy.activation_pj),
            ("energy.column_pj_per_bit", self.energy.column_pj_per_bit),
            ("energy.io_pj_per_bit", self.energy.io_pj_per_bit),
            ("energy.link_pj_per_bit", self.energy.link_pj_per_bit),
        ] {
            non_negative(key, v)?;
        }
        Ok(())
    }

    /// Compression and decompression latency in DRAM cycles for `algorithm`.
    pub fn codec_cycles(&self, algorithm: Algorithm) -> (f64, f64) {
        let (c, d) = match algorithm {
            Algorithm::Bpc => (11.0, 11.0),
            Algorithm::MagBdi(_) => (1.0, 1.0),
            Algorithm::Zvc => (6.0, 2.0),
        };
        (self.codec.compress_cycles.unwrap_or(c), self.codec.decompress_cycles.unwrap_or(d))
    }

    /// Page size in bytes.
    pub fn page_bytes(&self) -> u64 {
        if self.system.page == "64K" {
            64 << 10
        } else {
            2 << 20
        }
    }

    /// One DRAM cycle in picoseconds.
    pub fn cycle_ps(&self) -> f64 {
        1e6 / self.hbm.clock_mhz
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_table_one_and_round_trip_through_toml() {
        let c = SimConfig::default();
        assert_eq!((c.system.slices, c.hbm.channels_per_slice, c.hbm.total_gbps, c.nvlink.gbps), (8, 4, 900.0, 150.0));
        assert_eq!(SimConfig::from_toml(&c.to_toml(), "x").unwrap(), c);
        assert_eq!(SimConfig::from_toml("", "x").unwrap(), c);
        assert_eq!(c.codec_cycles(Algorithm::Bpc), (11.0, 11.0));
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key() {
        let e = SimConfig::from_toml("[system]\nslice_timing = \"cycle\"\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("system.slice_timing") && e.contains("\"pipelined\" or \"hardware\""), "{e}");
        let e = SimConfig::from_toml("[nvlink]\ngbps = 50\nbandwith = 3\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("bandwith") && e.contains("line 3"), "{e}");
        let e = SimConfig::from_toml("[nvlink]\ngbps = 0\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("nvlink.gbps = 0"), "{e}");
        let e = SimConfig::from_toml("[hbm]\ntotal_gbps = 0.0\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("hbm.total_gbps"), "{e}");
        let e = SimConfig::from_toml("[sytem]\nslices = 2\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("sytem"), "{e}");
        let e = SimConfig::from_toml("[system]\npage = \"4K\"\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("system.page"), "{e}");
        let e = SimConfig::from_toml("[metadata_cache]\nbytes = 1000\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("metadata_cache.bytes"), "{e}");
    }
}
