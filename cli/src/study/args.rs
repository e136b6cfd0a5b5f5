//! The arguments of `buddy study`: which study, and the parameters the
//! studies take.

use std::path::PathBuf;

use buddy_golden::profiler::DEFAULT_THRESHOLD;
use buddy_golden::Algorithm;
use buddy_sim::study::memory_modes::DEFAULT_LINK_GBPS;
use buddy_sim::study::minibatch::{DEFAULT_DEVICE_MEMORY, DEFAULT_HALF_THROUGHPUT_BATCH};
use buddy_sim::study::oversubscription::DEFAULT_OVERSUBSCRIPTION;
use buddy_sim::study::threshold_sweep::DEFAULT_THRESHOLDS;
use buddy_sim::study::Iterations;

use crate::args::{parse_algorithm, parse_byte_size, parse_share, parse_threshold, DEFAULT_ALGORITHM};

/// The studies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StudyName {
    /// Fig. 8: size class of every entry, 64 per row, per snapshot.
    Heatmap,
    /// Fig. 3: compression ratio of each snapshot.
    RatioOverTime,
    /// Fig. 7: whole-program vs per-allocation vs per-allocation + 16x targets.
    Designs,
    /// Fig. 10: Buddy Threshold sweep next to the unconstrained ratio.
    ThresholdSweep,
    /// Fig. 9: buddy-access fraction per snapshot for fixed targets.
    BuddyOverTime,
    /// Fig. 12: speedup against the buddy link's bandwidth (fast-mode memory system; workloads with a trace).
    BandwidthSweep,
    /// Fig. 13: DRAM (and link) energy relative to uncompressed (fast-mode memory system).
    Energy,
    /// cDMA Fig. 11: per-layer activation compression ratios of ZVC, RL and
    /// zlib over 4 KB windows (workloads with `activation` allocations).
    CdmaRatios,
    /// cDMA Fig. 12: activation bytes offloaded to host memory by cDMA (RL,
    /// ZVC, zlib), normalized to vDNN (workloads with `activation` allocations).
    CdmaOffload,
    /// cDMA Fig. 13: training-step performance of vDNN and cDMA normalized to
    /// the oracle (workloads with `activation` allocations).
    CdmaPerformance,
    /// Buddy Fig. 14 / ETC: runtime relative to unlimited device memory of
    /// Unified Memory, UM with each ETC technique, ETC and Buddy
    /// Compression at 0-50% oversubscription and ETC's 33% and 100% (workloads with a trace).
    Oversubscription,
    /// Buddy Fig. 15: DL footprint against the mini-batch size (manifest
    /// roles and shapes), the largest batch that fits --device-memory
    /// without and with Buddy, and the projected speedup (DL workloads).
    Minibatch,
    /// MAG-aware BDI Fig. 14, 19: speedup and bandwidth saved by BDI and
    /// MAG-aware BDI at MAG 16, 32 and 64 on a GDDR5-like memory (workloads with a trace).
    Mag,
    /// Every study above, and report.md.
    All,
}

impl StudyName {
    pub(super) const EACH: [StudyName; 13] = [
        StudyName::RatioOverTime,
        StudyName::Heatmap,
        StudyName::Designs,
        StudyName::ThresholdSweep,
        StudyName::BuddyOverTime,
        StudyName::BandwidthSweep,
        StudyName::Energy,
        StudyName::CdmaRatios,
        StudyName::CdmaOffload,
        StudyName::CdmaPerformance,
        StudyName::Oversubscription,
        StudyName::Minibatch,
        StudyName::Mag,
    ];

    pub(super) fn file_stem(self) -> &'static str {
        match self {
            StudyName::Heatmap => "heatmap",
            StudyName::RatioOverTime => "ratio-over-time",
            StudyName::Designs => "designs",
            StudyName::ThresholdSweep => "threshold-sweep",
            StudyName::BuddyOverTime => "buddy-over-time",
            StudyName::BandwidthSweep => "bandwidth-sweep",
            StudyName::Energy => "energy",
            StudyName::CdmaRatios => "cdma-ratios",
            StudyName::CdmaOffload => "cdma-offload",
            StudyName::CdmaPerformance => "cdma-performance",
            StudyName::Oversubscription => "oversubscription",
            StudyName::Minibatch => "minibatch",
            StudyName::Mag => "mag",
            StudyName::All => "report",
        }
    }
}

/// Arguments of `buddy study`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which study.
    #[arg(value_enum)]
    pub study: StudyName,
    /// Workload folders (manifest.json + snapshots) or raw files of 128-byte
    /// entries [default: the bundled data/minife-small].
    pub paths: Vec<PathBuf>,
    /// Compression algorithm whose size classes are studied.
    #[arg(long, default_value_t = DEFAULT_ALGORITHM, value_parser = parse_algorithm)]
    pub algo: Algorithm,
    /// Buddy Threshold of the profiler (designs, buddy-over-time), e.g. 0.3 or 30%.
    #[arg(long, default_value_t = DEFAULT_THRESHOLD, value_parser = parse_threshold)]
    pub threshold: f64,
    /// Thresholds of the sweep.
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_THRESHOLDS, value_parser = parse_threshold)]
    pub thresholds: Vec<f64>,
    /// An annotation file (`buddy profile`) whose targets buddy-over-time
    /// also checks, on the workload it names.
    #[arg(long, value_name = "FILE")]
    pub annotation: Option<PathBuf>,
    /// Buddy link bandwidths of the bandwidth sweep, GB/s per direction.
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_LINK_GBPS)]
    pub link_gbps: Vec<f64>,
    /// Oversubscriptions of the oversubscription study, e.g. `0,10%,0.2`
    /// (0.1 = 10%: the footprint is 10% larger than device memory).
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_OVERSUBSCRIPTION, value_parser = parse_oversubscription)]
    pub oversubscription: Vec<f64>,
    /// Times each memory-system and oversubscription run replays the trace:
    /// `settle` (memory system: from 1, doubled until every speedup moves
    /// less than 1%; oversubscription: from 10 longest faults of unlimited
    /// run time, doubled once until the slowdowns settle within 5%) or a
    /// count, e.g. `1`.
    #[arg(long, default_value = "settle", value_parser = parse_iterations)]
    pub iterations: Iterations,
    /// Device memories of the mini-batch study, e.g. `12GiB,16GB,512MiB`
    /// (B, KB, MB, GB, KiB, MiB, GiB; plain numbers are bytes); default: the
    /// paper's Titan V, 12 GiB.
    #[arg(long, value_delimiter = ',', default_values_t = [DEFAULT_DEVICE_MEMORY], value_parser = parse_bytes)]
    pub device_memory: Vec<u64>,
    /// Mini-batch at which the study's throughput model reaches half its
    /// plateau (per-step time = fixed + per-sample work; t_fixed / t_sample).
    #[arg(long, default_value_t = DEFAULT_HALF_THROUGHPUT_BATCH, value_parser = parse_half_batch)]
    pub half_throughput_batch: f64,
    /// TOML file overriding the memory system's parameters (as `buddy sim --config`).
    #[arg(long, value_name = "FILE")]
    pub sim_config: Option<PathBuf>,
    /// Output folder for JSON, CSV, PNG (and report.md), written only when
    /// every study succeeds.
    #[arg(long, default_value = "study", value_name = "DIR")]
    pub out: PathBuf,
    /// Write into `--out` even when it holds files buddy did not write.
    #[arg(long)]
    pub force: bool,
    /// Print the JSON document instead of the table.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the CSV document instead of the table (not with `all`).
    #[arg(long)]
    pub csv: bool,
}

/// An oversubscription: `0.1` or `10%`, from 0 to 10 (1000%).
fn parse_oversubscription(s: &str) -> Result<f64, String> {
    let v = parse_share(s, "0.2 or 20%")?;
    if (0.0..=10.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("an oversubscription must lie from 0 to 10 (0% to 1000%), got {s}"))
    }
}

/// `settle` or a positive count of iterations.
fn parse_iterations(s: &str) -> Result<Iterations, String> {
    if s == "settle" {
        return Ok(Iterations::Settle);
    }
    match s.parse::<u32>() {
        Ok(n) if n >= 1 => Ok(Iterations::Fixed(n)),
        _ => Err(format!("iterations must be `settle` or a count of at least 1, got {s}")),
    }
}

/// A device memory size ([`parse_byte_size`]).
fn parse_bytes(s: &str) -> Result<u64, String> {
    parse_byte_size(s).ok_or_else(|| format!("'{s}' is not a memory size of at least one byte (e.g. 12GiB, 512MB, 4096)"))
}

/// A positive mini-batch size (may be fractional: it is a model constant).
fn parse_half_batch(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a positive number of samples")),
    }
}
