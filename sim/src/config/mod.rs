//! The memory system's parameters (docs/formats.md#timing-defaults, the Buddy paper's
//! Table I), read from a TOML file whose every key is optional; unknown keys
//! and impossible values are errors that name the key.

pub mod cdma;
mod error;
pub mod oversubscription;

pub use error::ConfigError;

use serde::{Deserialize, Serialize};

use buddy_golden::translation::PageSize;
use buddy_golden::Algorithm;

/// Every parameter, grouped as in the TOML file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// The GPU in front of the memory system: its memory-level parallelism.
    pub gpu: GpuConfig,
    pub system: SystemConfig,
    pub hbm: HbmConfig,
    pub nvlink: NvlinkConfig,
    pub codec: CodecConfig,
    pub metadata_cache: MetadataCacheParams,
    pub l2: L2Params,
    pub energy: EnergyConfig,
    /// The compressing DMA engine and vDNN's GPU (`buddy study cdma-*`).
    pub cdma: cdma::CdmaConfig,
    /// Unified Memory's demand paging (`buddy study oversubscription`).
    pub um: oversubscription::UmConfig,
    /// ETC's techniques and classifier (`buddy study oversubscription`).
    pub etc: oversubscription::EtcConfig,
}

/// Most memory-controller slices a configuration may ask for.
pub const MAX_SLICES: u64 = 64;

/// The GPU whose L2 misses drive the memory system (Buddy Compression
/// Table I and Sec. IV-A: a P100-based GPU). It sets how many L2 requests
/// are in flight at once ([`SimConfig::requests_in_flight`]): a warp
/// waits on one L1 miss at a time (a load feeding the next address, as
/// a sparse matrix-vector product's index then value) and an SM holds at
/// most `l1_miss_registers` misses, so `sms x min(warps_per_sm,
/// l1_miss_registers)` requests (56 x 64 = 3,584 by default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GpuConfig {
    /// Streaming multiprocessors (the P100 of Sec. IV-A: 56; Table I
    /// does not list it).
    pub sms: u32,
    /// Warps resident per SM (Table I: 64).
    pub warps_per_sm: u32,
    /// L1 miss registers (MSHRs) per SM (**decision**: 128, GPGPU-Sim's
    /// Pascal configuration; the paper does not give it).
    pub l1_miss_registers: u32,
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig { sms: 56, warps_per_sm: 64, l1_miss_registers: 128 }
    }
}

/// GPU-level parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SystemConfig {
    /// Memory-controller slices (Table I: 8).
    pub slices: u32,
    /// L2 requests in flight at most, overriding the figure derived from
    /// `[gpu]` (unset: derived; [`SimConfig::requests_in_flight`]).
    pub max_outstanding: Option<u32>,
    /// Page size: `2M` or `64K`.
    pub page: PageSize,
    /// Requests per epoch of the per-epoch series.
    pub epoch_requests: u64,
    /// Fast mode's controller timing: `paper` (any number of requests
    /// in flight per slice, fixed codec and metadata latencies: the
    /// paper's model) or `hardware` (the timing of the slice hardware
    /// `rtl_slice` names, every memory handshake on the hardware's cycle:
    /// the `PipelinedController`'s cycle model, or the `BuddyController`'s
    /// one request at a time). The RTL mode always has the hardware's.
    pub slice_timing: SliceTiming,
    /// Requests one slice's controller holds at once under the
    /// `paper` timing (later ones wait for a finished one, in request
    /// order); 0: no bound, the paper's model. Sizes a pipelined slice
    /// (`docs/controller.md`).
    pub slice_in_flight: u32,
    /// The slice hardware of the RTL engine and of `slice_timing =
    /// "hardware"`: `pipelined` (the default: the `PipelinedController`,
    /// up to 128 requests in flight, tagged responses) or `serial` (the
    /// `BuddyController`, one request at a time; `docs/controller.md`).
    pub rtl_slice: RtlSlice,
    /// How blocks of 64 memory-entries (one metadata sector's) are dealt
    /// to the slices: `hashed` (the default; Buddy Compression Sec. III-C,
    /// the GPU's physical-address hash) or `plain` (block mod slices).
    pub slice_interleave: SliceInterleave,
}

/// The RTL engine's slice hardware (`system.rtl_slice`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RtlSlice {
    /// `pipelined`: the `PipelinedController`.
    #[default]
    Pipelined,
    /// `serial`: the `BuddyController`.
    Serial,
}

/// How blocks of 64 memory-entries are dealt to the slices
/// (`system.slice_interleave`; `memory_system::request::SliceMap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SliceInterleave {
    /// `hashed` (the default): block `b`'s slice is `b mod n` rotated by a
    /// hash of the higher bits, as a GPU hashes physical addresses over its
    /// memory controllers. Buddy Compression Sec. III-C: the metadata "is
    /// interleaved across the DRAM channels using the same hashing
    /// mechanism as regular physical-address interleaving". Without it,
    /// arrays that start on the same 2 MiB boundary offset start on the same
    /// slice and stay in step on it (partition camping).
    #[default]
    Hashed,
    /// `plain`: block `b`'s slice is `b mod n` (the model before the hash).
    Plain,
}

impl SliceInterleave {
    pub const ALL: [SliceInterleave; 2] = [SliceInterleave::Hashed, SliceInterleave::Plain];

    /// The name the config and the CLI give it.
    pub const fn name(self) -> &'static str {
        match self {
            SliceInterleave::Hashed => "hashed",
            SliceInterleave::Plain => "plain",
        }
    }

    /// The interleave named `name` (as [`SliceInterleave::name`] spells it).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// The fast engine's controller timing (`system.slice_timing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SliceTiming {
    /// `paper`: the paper's idealized controller (Buddy Compression
    /// Sec. III; `engine::paper`).
    #[default]
    Paper,
    /// `hardware`: the timing of the slice hardware `system.rtl_slice` names:
    /// the `PipelinedController`'s cycle model (`pipelined`, the default) or
    /// the `BuddyController`'s one-request-at-a-time timing (`serial`).
    Hardware,
}

impl SliceTiming {
    pub const ALL: [SliceTiming; 2] = [SliceTiming::Paper, SliceTiming::Hardware];

    /// The name the config and the CLI give it.
    pub const fn name(self) -> &'static str {
        match self {
            SliceTiming::Paper => "paper",
            SliceTiming::Hardware => "hardware",
        }
    }

    /// The timing named `name` (as [`SliceTiming::name`] spells it).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl RtlSlice {
    pub const ALL: [RtlSlice; 2] = [RtlSlice::Pipelined, RtlSlice::Serial];

    /// The name the config and the CLI give it.
    pub const fn name(self) -> &'static str {
        match self {
            RtlSlice::Pipelined => "pipelined",
            RtlSlice::Serial => "serial",
        }
    }

    /// The slice named `name` (as [`RtlSlice::name`] spells it).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// HBM2 device memory: Table I (4 channels per slice at 875 MHz, 900 GB/s
/// in all) and the JEDEC timing of `shared/ref/dram/README.md` (the device
/// DRAMsim3 was run with). Timing keys are DRAM clock cycles (tCK = 1 /
/// `clock_mhz`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HbmConfig {
    /// HBM2 channels per memory-controller slice (Table I: 4).
    pub channels_per_slice: u32,
    /// DRAM clock, MHz (Table I: 875).
    pub clock_mhz: f64,
    /// Bank groups per channel.
    pub bank_groups: u32,
    /// Banks per bank group.
    pub banks_per_group: u32,
    /// Rows per bank.
    pub rows: u64,
    /// Bytes per row (page) of a bank; a multiple of 32.
    pub row_bytes: u64,
    /// Data-bus cycles of one 32-byte access (burst of 2 on the 128-bit
    /// channel: 1). Peak bandwidth = channels x 32 B / burst_cycles x clock.
    pub burst_cycles: u64,
    /// READ to first data (CAS latency), cycles.
    pub cl: u64,
    /// WRITE to first data (CAS write latency), cycles.
    pub cwl: u64,
    /// ACT to READ/WRITE of the same bank, cycles.
    pub t_rcd: u64,
    /// PRE to ACT of the same bank, cycles.
    pub t_rp: u64,
    /// ACT to PRE of the same bank, cycles (tRC = tRAS + tRP).
    pub t_ras: u64,
    /// ACT to ACT in different bank groups, cycles.
    pub t_rrd_s: u64,
    /// ACT to ACT in the same bank group, cycles.
    pub t_rrd_l: u64,
    /// Window in which at most four ACTs may issue per channel, cycles.
    pub t_faw: u64,
    /// Column command to column command in different bank groups, cycles.
    pub t_ccd_s: u64,
    /// Column command to column command in the same bank group, cycles.
    pub t_ccd_l: u64,
    /// End of write data to READ in a different bank group, cycles.
    pub t_wtr_s: u64,
    /// End of write data to READ in the same bank group, cycles.
    pub t_wtr_l: u64,
    /// End of write data to PRE of the same bank (write recovery), cycles.
    pub t_wr: u64,
    /// READ to PRE of the same bank, cycles.
    pub t_rtp: u64,
    /// Data-bus turnaround from read data to write data, cycles.
    pub t_rtrs: u64,
    /// All-bank refresh duration, cycles.
    pub t_rfc: u64,
    /// Interval between all-bank refreshes of a channel, cycles.
    pub t_refi: u64,
    /// `all-bank` (every channel refreshes all its banks every `t_refi`) or `off`.
    pub refresh: String,
    /// Read-queue and write-buffer entries per channel (transaction queue).
    pub transaction_queue: u32,
    /// Command-queue entries per bank.
    pub command_queue: u32,
    /// Column commands an open row serves before a waiting row miss may close it.
    pub row_hit_limit: u32,
    /// Buffered writes that start a drain when no read waits (a full write
    /// buffer always starts one).
    pub write_drain_threshold: u32,
    /// Issue a row command and a column command in the same cycle (HBM2's
    /// separate row and column command buses).
    pub dual_command: bool,
    /// Address mapping of a slice's device addresses onto its channels
    /// (`sim/src/memory_system/hbm.rs`): `rows` (bank group, the row's
    /// columns, the bank in the group, the row folded into the bank), `xor`
    /// (bank below the columns, columns and row folded into it; the default
    /// before 2026-12-01) or `plain` (as `xor`, not folded).
    pub address_mapping: String,
    /// Fixed latency of the rest of the memory path (L2 slice to controller
    /// and back, crossbar), cycles, added to every device access; with it an
    /// unloaded read of a closed bank takes about 100 cycles, the previous
    /// model's figure.
    pub path_latency_cycles: u64,
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
/// for the algorithm (BPC 11/11, MAG-BDI 1/1, ZVC 6/2; docs/formats.md#timing-defaults).
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

/// The trace driver's L2 (docs/formats.md#trace-driver: 64 KiB, 16 ways).
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
    /// pJ per all-bank refresh of a channel (**estimate**: one activation
    /// per bank; the paper gives no figure).
    pub refresh_pj: f64,
    /// pJ per bit on the interconnect (doubled when `switch`), packet
    /// headers included.
    pub link_pj_per_bit: f64,
    /// The buddy link goes through an NVSwitch: the link energy is doubled
    /// for its ingress and egress (Buddy Compression Sec. IV-B, Fig. 13;
    /// default true, as the paper charges it).
    pub switch: bool,
}

impl Default for SystemConfig {
    fn default() -> Self {
        SystemConfig {
            slices: 8,
            max_outstanding: None,
            page: PageSize::Huge2M,
            epoch_requests: 4096,
            slice_timing: SliceTiming::Paper,
            slice_in_flight: 0,
            rtl_slice: RtlSlice::Pipelined,
            slice_interleave: SliceInterleave::Hashed,
        }
    }
}

impl Default for HbmConfig {
    fn default() -> Self {
        HbmConfig {
            channels_per_slice: 4,
            clock_mhz: 875.0,
            bank_groups: 4,
            banks_per_group: 4,
            rows: 32768,
            row_bytes: 2048,
            burst_cycles: 1,
            cl: 14,
            cwl: 4,
            t_rcd: 14,
            t_rp: 14,
            t_ras: 34,
            t_rrd_s: 4,
            t_rrd_l: 6,
            t_faw: 30,
            t_ccd_s: 1,
            t_ccd_l: 2,
            t_wtr_s: 6,
            t_wtr_l: 8,
            t_wr: 16,
            t_rtp: 6,
            t_rtrs: 2,
            t_rfc: 260,
            t_refi: 3900,
            refresh: "all-bank".into(),
            transaction_queue: 32,
            command_queue: 8,
            row_hit_limit: 4,
            write_drain_threshold: 8,
            dual_command: true,
            address_mapping: "rows".into(),
            path_latency_cycles: 71,
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
        let golden = buddy_golden::metadata_cache::MetadataCacheConfig::default();
        MetadataCacheParams { bytes: golden.size_bytes, ways: golden.ways, hit_cycles: 2.0 }
    }
}

impl Default for L2Params {
    fn default() -> Self {
        L2Params { bytes: 64 * 1024, ways: 16 }
    }
}

impl Default for EnergyConfig {
    fn default() -> Self {
        EnergyConfig {
            activation_pj: 909.0,
            column_pj_per_bit: 1.51,
            io_pj_per_bit: 1.97,
            refresh_pj: 16.0 * 909.0,
            link_pj_per_bit: 11.0,
            switch: true,
        }
    }
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
                let before = &text[..s.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                // The key the error is about: `table.key` of the line it points into.
                let line_text = text.lines().nth(line - 1).unwrap_or_default();
                let table = before.lines().rev().map(str::trim).find(|l| l.starts_with('[')).map(|l| l.trim_matches(['[', ']']).trim());
                match (table, line_text.split_once('=')) {
                    (Some(table), Some((key, _))) => format!("line {line}, {table}.{}: ", key.trim()),
                    (None, Some((key, _))) => format!("line {line}, {}: ", key.trim()),
                    _ => format!("line {line}: "),
                }
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
        let text =
            crate::input_file::read_to_string(path).map_err(|source| ConfigError::Read { path: path.display().to_string(), source })?;
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
        if let Some(n) = self.system.max_outstanding {
            positive("system.max_outstanding", n as f64)?;
        }
        positive("gpu.sms", self.gpu.sms as f64)?;
        positive("gpu.warps_per_sm", self.gpu.warps_per_sm as f64)?;
        positive("gpu.l1_miss_registers", self.gpu.l1_miss_registers as f64)?;
        positive("system.epoch_requests", self.system.epoch_requests as f64)?;
        // Upper bounds keep every size-like key within what the models
        // allocate and count without overflow: a typo (an extra few zeros)
        // is an error naming the key, not an abort allocating terabytes.
        for (key, v, max, why) in [
            ("system.slices", self.system.slices as u64, MAX_SLICES, "must be at most 64 slices"),
            ("system.max_outstanding", self.system.max_outstanding.unwrap_or(0) as u64, 1 << 20, "must be at most 1048576 requests"),
            ("gpu.sms", self.gpu.sms as u64, 1 << 12, "must be at most 4096 SMs"),
            ("gpu.warps_per_sm", self.gpu.warps_per_sm as u64, 1 << 12, "must be at most 4096 warps"),
            ("gpu.l1_miss_registers", self.gpu.l1_miss_registers as u64, 1 << 12, "must be at most 4096 miss registers"),
            ("system.slice_in_flight", self.system.slice_in_flight as u64, 1 << 20, "must be at most 1048576 requests"),
            ("hbm.channels_per_slice", self.hbm.channels_per_slice as u64, 64, "must be at most 64 channels"),
            ("hbm.transaction_queue", self.hbm.transaction_queue as u64, 1 << 16, "must be at most 65536 entries"),
            ("hbm.command_queue", self.hbm.command_queue as u64, 1 << 16, "must be at most 65536 entries"),
            ("nvlink.header_bytes", self.nvlink.header_bytes, 4096, "must be at most 4096 bytes per packet"),
            ("metadata_cache.bytes", self.metadata_cache.bytes as u64, 1 << 30, "must be at most 1 GiB"),
            ("metadata_cache.ways", self.metadata_cache.ways as u64, 1024, "must be at most 1024 ways"),
            ("l2.bytes", self.l2.bytes, 1 << 30, "must be at most 1 GiB"),
            ("l2.ways", self.l2.ways as u64, 1024, "must be at most 1024 ways"),
        ] {
            if v > max {
                return Err(ConfigError::Value { key, value: v.to_string(), why });
            }
        }
        if self.system.max_outstanding.is_none() && self.requests_in_flight() > 1 << 20 {
            return Err(ConfigError::Value {
                key: "gpu.sms",
                value: self.requests_in_flight().to_string(),
                why: "gives more than 1048576 requests in flight (gpu.sms x min(gpu.warps_per_sm, gpu.l1_miss_registers))",
            });
        }
        for (key, v, max, why) in [
            ("nvlink.gbps", self.nvlink.gbps, 1e6, "must be below 1000000 GB/s"),
            ("nvlink.latency_factor", self.nvlink.latency_factor, 1e4, "must be below 10000"),
            ("metadata_cache.hit_cycles", self.metadata_cache.hit_cycles, 4096.0, "must be below 4096 cycles"),
            ("codec.compress_cycles", self.codec.compress_cycles.unwrap_or(0.0), 4096.0, "must be below 4096 cycles"),
            ("codec.decompress_cycles", self.codec.decompress_cycles.unwrap_or(0.0), 4096.0, "must be below 4096 cycles"),
        ] {
            if v >= max {
                return Err(ConfigError::Value { key, value: v.to_string(), why });
            }
        }
        let h = &self.hbm;
        positive("hbm.channels_per_slice", h.channels_per_slice as f64)?;
        for (key, v) in [
            ("hbm.channels_per_slice", h.channels_per_slice),
            ("hbm.bank_groups", h.bank_groups),
            ("hbm.banks_per_group", h.banks_per_group),
        ] {
            if !v.is_power_of_two() {
                return Err(ConfigError::Value { key, value: v.to_string(), why: "must be a power of two" });
            }
        }
        if h.t_ccd_s > h.t_ccd_l || h.t_rrd_s > h.t_rrd_l || h.t_wtr_s > h.t_wtr_l {
            return Err(ConfigError::Value {
                key: "hbm.t_ccd_s",
                value: format!(
                    "t_ccd_s {} t_ccd_l {}, t_rrd_s {} t_rrd_l {}, t_wtr_s {} t_wtr_l {}",
                    h.t_ccd_s, h.t_ccd_l, h.t_rrd_s, h.t_rrd_l, h.t_wtr_s, h.t_wtr_l
                ),
                why: "each _s spacing (other bank group) must not exceed its _l one (same bank group)",
            });
        }
        positive("hbm.clock_mhz", h.clock_mhz)?;
        for (key, v) in [
            ("hbm.bank_groups", h.bank_groups as u64),
            ("hbm.banks_per_group", h.banks_per_group as u64),
            ("hbm.rows", h.rows),
            ("hbm.burst_cycles", h.burst_cycles),
            ("hbm.cl", h.cl),
            ("hbm.t_rcd", h.t_rcd),
            ("hbm.t_rp", h.t_rp),
            ("hbm.t_ras", h.t_ras),
            ("hbm.t_ccd_s", h.t_ccd_s),
            ("hbm.t_ccd_l", h.t_ccd_l),
            ("hbm.t_refi", h.t_refi),
            ("hbm.transaction_queue", h.transaction_queue as u64),
            ("hbm.command_queue", h.command_queue as u64),
            ("hbm.row_hit_limit", h.row_hit_limit as u64),
        ] {
            positive(key, v as f64)?;
        }
        if h.bank_groups * h.banks_per_group > 64 || h.rows > 1 << 32 {
            return Err(ConfigError::Value {
                key: "hbm.rows",
                value: format!("{} banks of {} rows", h.bank_groups * h.banks_per_group, h.rows),
                why: "at most 64 banks per channel and 2^32 rows per bank",
            });
        }
        // The channel model keeps ready cycles as 16-bit offsets: every
        // spacing (a sum of at most three of these) must stay below 2^14.
        for (key, v) in [
            ("hbm.burst_cycles", h.burst_cycles),
            ("hbm.cl", h.cl),
            ("hbm.cwl", h.cwl),
            ("hbm.t_rcd", h.t_rcd),
            ("hbm.t_rp", h.t_rp),
            ("hbm.t_ras", h.t_ras),
            ("hbm.t_rrd_s", h.t_rrd_s),
            ("hbm.t_rrd_l", h.t_rrd_l),
            ("hbm.t_faw", h.t_faw),
            ("hbm.t_ccd_s", h.t_ccd_s),
            ("hbm.t_ccd_l", h.t_ccd_l),
            ("hbm.t_wtr_s", h.t_wtr_s),
            ("hbm.t_wtr_l", h.t_wtr_l),
            ("hbm.t_wr", h.t_wr),
            ("hbm.t_rtp", h.t_rtp),
            ("hbm.t_rtrs", h.t_rtrs),
            ("hbm.t_rfc", h.t_rfc),
        ] {
            if v >= 4096 {
                return Err(ConfigError::Value { key, value: v.to_string(), why: "must be below 4096 cycles" });
            }
        }
        if h.row_bytes < 128 || !h.row_bytes.is_power_of_two() || h.row_bytes / 32 > u16::MAX as u64 {
            return Err(ConfigError::Value {
                key: "hbm.row_bytes",
                value: h.row_bytes.to_string(),
                why: "must be a power of two from 128 to 2 MiB",
            });
        }
        if h.refresh != "all-bank" && h.refresh != "off" {
            return Err(ConfigError::Value { key: "hbm.refresh", value: h.refresh.clone(), why: "must be \"all-bank\" or \"off\"" });
        }
        if h.refresh == "all-bank" && h.t_rfc >= h.t_refi {
            return Err(ConfigError::Value { key: "hbm.t_rfc", value: h.t_rfc.to_string(), why: "must be shorter than hbm.t_refi" });
        }
        if !["rows", "xor", "plain"].contains(&h.address_mapping.as_str()) {
            return Err(ConfigError::Value {
                key: "hbm.address_mapping",
                value: h.address_mapping.clone(),
                why: "must be \"rows\", \"xor\" or \"plain\"",
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
            ("energy.refresh_pj", self.energy.refresh_pj),
            ("energy.link_pj_per_bit", self.energy.link_pj_per_bit),
        ] {
            non_negative(key, v)?;
        }
        self.cdma.validate()?;
        self.um.validate()?;
        self.etc.validate()
    }

    /// Check that the `BuddyController` hardware can honour this config,
    /// for the RTL engine and the fast engine with the hardware's timing:
    /// its metadata cache is fixed at 4 KiB, 4 ways, and its codec
    /// latencies are the hardware's (`codec.*_cycles` cannot set them).
    ///
    /// # Errors
    /// [`ConfigError::Value`] naming the first key the hardware cannot honour.
    pub fn validate_for_hardware(&self) -> Result<(), ConfigError> {
        use buddy_hdl::metadata_cache::{SETS, WAYS};
        let bytes = SETS * WAYS * buddy_golden::ENTRY_BYTES;
        if self.metadata_cache.bytes != bytes {
            return Err(ConfigError::Value {
                key: "metadata_cache.bytes",
                value: format!("{} (the hardware's: {bytes})", self.metadata_cache.bytes),
                why: "the slice hardware's metadata cache has a fixed size (RTL engine and hardware timing)",
            });
        }
        if self.metadata_cache.ways != WAYS {
            return Err(ConfigError::Value {
                key: "metadata_cache.ways",
                value: format!("{} (the hardware's: {WAYS})", self.metadata_cache.ways),
                why: "the slice hardware's metadata cache has a fixed associativity (RTL engine and hardware timing)",
            });
        }
        for (key, v) in [("codec.compress_cycles", self.codec.compress_cycles), ("codec.decompress_cycles", self.codec.decompress_cycles)] {
            if let Some(v) = v {
                return Err(ConfigError::Value {
                    key,
                    value: v.to_string(),
                    why: "the hardware's codec latencies are its own (RTL engine and hardware timing); the key sets the pipelined timing's",
                });
            }
        }
        Ok(())
    }

    /// Compression and decompression latency in DRAM cycles for
    /// `algorithm`: `codec.compress_cycles` / `decompress_cycles` when set,
    /// else [`Algorithm::default_codec_cycles`].
    pub fn codec_cycles(&self, algorithm: Algorithm) -> (f64, f64) {
        let (c, d) = algorithm.default_codec_cycles();
        (self.codec.compress_cycles.unwrap_or(c), self.codec.decompress_cycles.unwrap_or(d))
    }

    /// Page size in bytes.
    pub fn page_bytes(&self) -> u64 {
        self.system.page.bytes()
    }

    /// Peak device bandwidth of all channels, GB/s (10^9 bytes/s).
    pub fn hbm_peak_gbps(&self) -> f64 {
        let channels = (self.system.slices * self.hbm.channels_per_slice) as f64;
        channels * 32.0 / self.hbm.burst_cycles as f64 * self.hbm.clock_mhz * 1e6 / 1e9
    }

    /// One DRAM cycle in picoseconds.
    pub fn cycle_ps(&self) -> f64 {
        1e6 / self.hbm.clock_mhz
    }

    /// L2 requests in flight at most: `system.max_outstanding` if set,
    /// else the GPU's, `gpu.sms x min(gpu.warps_per_sm,
    /// gpu.l1_miss_registers)` ([`GpuConfig`]; 3,584 by default).
    pub fn requests_in_flight(&self) -> usize {
        match self.system.max_outstanding {
            Some(n) => n as usize,
            None => self.gpu.sms as usize * self.gpu.warps_per_sm.min(self.gpu.l1_miss_registers) as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hardware_rejects_what_it_cannot_honour() {
        assert!(SimConfig::default().validate_for_hardware().is_ok());
        let e = SimConfig::from_toml("[metadata_cache]\nbytes = 8192\n", "c.toml").unwrap().validate_for_hardware().unwrap_err();
        assert!(e.to_string().contains("metadata_cache.bytes"), "{e}");
        let e = SimConfig::from_toml("[codec]\ncompress_cycles = 3\n", "c.toml").unwrap().validate_for_hardware().unwrap_err();
        assert!(e.to_string().contains("codec.compress_cycles"), "{e}");
    }

    #[test]
    fn defaults_are_table_one_and_round_trip_through_toml() {
        let c = SimConfig::default();
        assert_eq!((c.system.slices, c.hbm.channels_per_slice, c.hbm.clock_mhz, c.nvlink.gbps), (8, 4, 875.0, 150.0));
        assert!((c.hbm_peak_gbps() - 896.0).abs() < 1e-9);
        assert_eq!(SimConfig::from_toml(&c.to_toml(), "x").unwrap(), c);
        assert_eq!(SimConfig::from_toml("", "x").unwrap(), c);
        assert_eq!(c.codec_cycles(Algorithm::Bpc), (11.0, 11.0));
    }

    /// The GPU's requests in flight: 56 SMs x min(64 warps, 128 miss
    /// registers) by default, the smaller of the two per SM, and
    /// `system.max_outstanding` over both.
    #[test]
    fn requests_in_flight_follow_the_gpu_unless_overridden() {
        assert_eq!(SimConfig::default().requests_in_flight(), 3584);
        let few = SimConfig::from_toml("[gpu]\nsms = 4\nl1_miss_registers = 16\n", "c.toml").unwrap();
        assert_eq!(few.requests_in_flight(), 64);
        let fixed = SimConfig::from_toml("[gpu]\nsms = 4\n[system]\nmax_outstanding = 256\n", "c.toml").unwrap();
        assert_eq!(fixed.requests_in_flight(), 256);
        for (toml, key) in [
            ("[gpu]\nsms = 0\n", "gpu.sms"),
            ("[gpu]\nwarps_per_sm = 0\n", "gpu.warps_per_sm"),
            ("[gpu]\nl1_miss_registers = 100000\n", "gpu.l1_miss_registers"),
            ("[system]\nmax_outstanding = 0\n", "system.max_outstanding"),
            ("[gpu]\nsms = 4096\nwarps_per_sm = 4096\nl1_miss_registers = 4096\n", "gpu.sms"),
        ] {
            let e = SimConfig::from_toml(toml, "c.toml").unwrap_err().to_string();
            assert!(e.contains(key), "{toml}: {e}");
        }
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key() {
        let e = SimConfig::from_toml("[system]\nslice_timing = \"cycle\"\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("system.slice_timing") && e.contains("`paper` or `hardware`"), "{e}");
        let e = SimConfig::from_toml("[system]\nslice_interleave = \"xor\"\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("system.slice_interleave") && e.contains("`hashed` or `plain`"), "{e}");
        let plain = SimConfig::from_toml("[system]\nslice_interleave = \"plain\"\n", "c.toml").unwrap();
        assert_eq!(
            (plain.system.slice_interleave, SimConfig::default().system.slice_interleave),
            (SliceInterleave::Plain, SliceInterleave::Hashed)
        );
        let e = SimConfig::from_toml("[nvlink]\ngbps = 50\nbandwith = 3\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("bandwith") && e.contains("line 3"), "{e}");
        let e = SimConfig::from_toml("[nvlink]\ngbps = 0\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("nvlink.gbps = 0"), "{e}");
        let e = SimConfig::from_toml("[hbm]\nclock_mhz = 0.0\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("hbm.clock_mhz"), "{e}");
        let e = SimConfig::from_toml("[hbm]\nrefresh = \"sometimes\"\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("hbm.refresh"), "{e}");
        let e = SimConfig::from_toml("[hbm]\nt_rfc = 5000\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("hbm.t_rfc"), "{e}");
        let e = SimConfig::from_toml("[sytem]\nslices = 2\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("sytem"), "{e}");
        let e = SimConfig::from_toml("[system]\npage = \"4K\"\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("system.page"), "{e}");
        let e = SimConfig::from_toml("[metadata_cache]\nbytes = 1000\n", "c.toml").unwrap_err().to_string();
        assert!(e.contains("metadata_cache.bytes"), "{e}");
    }

    #[test]
    fn size_like_keys_are_bounded() {
        for (toml, key) in [
            ("[l2]\nbytes = 1099511627776\n", "l2.bytes"),
            ("[system]\nslices = 100000\n", "system.slices"),
            ("[nvlink]\nheader_bytes = 100000000\n", "nvlink.header_bytes"),
            ("[metadata_cache]\nbytes = 1099511627776\n", "metadata_cache.bytes"),
            ("[hbm]\nchannels_per_slice = 1024\n", "hbm.channels_per_slice"),
            ("[nvlink]\ngbps = 1e300\n", "nvlink.gbps"),
        ] {
            let e = SimConfig::from_toml(toml, "c.toml").unwrap_err().to_string();
            assert!(e.contains(key), "{toml}: {e}");
        }
        // The largest accepted values stay accepted.
        SimConfig::from_toml("[system]\nslices = 64\n[nvlink]\nheader_bytes = 4096\n[l2]\nbytes = 1073741824\n", "c.toml").unwrap();
    }
}
