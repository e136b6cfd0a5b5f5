//! Unified Memory's and ETC's parameters: the `[um]` and `[etc]` tables of
//! the simulator's TOML file (ETC, seed `004_*`, Sec. 5 "Unified Memory
//! Setup" and Sec. 4.2-4.3; `docs/oversubscription.md`).

use serde::{Deserialize, Serialize};

use buddy_golden::translation::PageSize;

use super::ConfigError;

/// Demand paging between host memory and the GPU's device memory. Defaults
/// are ETC's simulated system (64 KB pages, 20 us fault handler, 16 GB/s
/// PCIe) except where marked **decision**.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UmConfig {
    /// Migration page: `64K` (ETC's page) or `2M` (CUDA's large page).
    pub page: PageSize,
    /// Far-fault handling time per fault, microseconds (ETC: an optimistic
    /// 20; its Fig. 19 sweeps 20-50). Faults are handled one at a time
    /// (no driver batching).
    pub fault_us: f64,
    /// Host link bandwidth per direction, GB/s (ETC: PCIe, 16; an NVLink2
    /// system of the Buddy paper's Fig. 14: 75). One DMA engine per
    /// direction (dual DMA engines).
    pub link_gbps: f64,
    /// Thread-block streams that run at once, the trace's share of the
    /// GPU's SMs (**decision**: 16, each standing for `gpu.sms / 16` SMs).
    /// Each has `SimConfig::requests_in_flight() / sms` requests in flight
    /// at most (224 by default), so together they hold the GPU's;
    /// throttling stops some of them.
    pub sms: u32,
    /// Thread blocks: the equal, contiguous parts the trace is cut into,
    /// handed to the SMs in order (**decision**: 64; at least `sms`).
    pub thread_blocks: u32,
}

impl Default for UmConfig {
    fn default() -> Self {
        UmConfig { page: PageSize::Small64K, fault_us: 20.0, link_gbps: 16.0, sms: 16, thread_blocks: 64 }
    }
}

impl UmConfig {
    /// Bytes per migration page.
    pub fn page_bytes(&self) -> u64 {
        self.page.bytes()
    }

    /// Check every value's range.
    ///
    /// # Errors
    /// [`ConfigError::Value`] naming the first bad key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (key, v) in [("um.fault_us", self.fault_us), ("um.link_gbps", self.link_gbps)] {
            if !(v.is_finite() && v > 0.0 && v < 1e6) {
                return Err(ConfigError::Value { key, value: v.to_string(), why: "must be a positive number below 10^6" });
            }
        }
        if !(1..=4096).contains(&self.sms) {
            return Err(ConfigError::Value { key: "um.sms", value: self.sms.to_string(), why: "must be 1 to 4096 SMs" });
        }
        if self.thread_blocks < self.sms || self.thread_blocks > 1 << 20 {
            return Err(ConfigError::Value {
                key: "um.thread_blocks",
                value: self.thread_blocks.to_string(),
                why: "must be at least um.sms and at most 1048576",
            });
        }
        Ok(())
    }
}

/// ETC's techniques (proactive eviction, memory-aware throttling, capacity
/// compression) and its application classifier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EtcConfig {
    /// Proactive eviction keeps this much device memory free, bytes (ETC
    /// Sec. 4.2: 2 MB), but never more than an eighth of the device
    /// memory and never less than one page (**decision**: the paper's
    /// footprints are 7-70 MB, a user's trace may be far smaller).
    pub proactive_free_bytes: u64,
    /// Memory-aware throttling's detection epoch, microseconds
    /// (**decision**: the paper gives no length).
    pub detect_us: f64,
    /// Memory-aware throttling's execution epoch, microseconds
    /// (**decision**).
    pub execute_us: f64,
    /// The classifier calls an application regular when at least this
    /// share of its accesses coalesce (fall in the memory-entry of the
    /// previous access to the same allocation) (**decision**: 0.5).
    pub regular_coalescing: f64,
    /// Phases (equal parts of the trace) the data-sharing test compares
    /// (stand-in for ETC's kernels; **decision**: 4).
    pub sharing_phases: u32,
    /// Data sharing when at least this share of the pages a phase touches
    /// were touched by an earlier phase (**decision**: 0.25).
    pub sharing_fraction: f64,
}

impl Default for EtcConfig {
    fn default() -> Self {
        EtcConfig {
            proactive_free_bytes: 2 << 20,
            detect_us: 50.0,
            execute_us: 200.0,
            regular_coalescing: 0.5,
            sharing_phases: 4,
            sharing_fraction: 0.25,
        }
    }
}

impl EtcConfig {
    /// Check every value's range.
    ///
    /// # Errors
    /// [`ConfigError::Value`] naming the first bad key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        for (key, v) in [("etc.detect_us", self.detect_us), ("etc.execute_us", self.execute_us)] {
            if !(v.is_finite() && v > 0.0 && v < 1e9) {
                return Err(ConfigError::Value { key, value: v.to_string(), why: "must be a positive number below 10^9" });
            }
        }
        for (key, v) in [("etc.regular_coalescing", self.regular_coalescing), ("etc.sharing_fraction", self.sharing_fraction)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ConfigError::Value { key, value: v.to_string(), why: "must be a share from 0 to 1" });
            }
        }
        if !(2..=1024).contains(&self.sharing_phases) {
            return Err(ConfigError::Value {
                key: "etc.sharing_phases",
                value: self.sharing_phases.to_string(),
                why: "must be 2 to 1024 phases",
            });
        }
        if self.proactive_free_bytes > 1 << 40 {
            return Err(ConfigError::Value {
                key: "etc.proactive_free_bytes",
                value: self.proactive_free_bytes.to_string(),
                why: "must be at most 1 TiB",
            });
        }
        Ok(())
    }
}
