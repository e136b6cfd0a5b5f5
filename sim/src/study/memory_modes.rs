//! The memory system's performance and energy against the buddy link's
//! bandwidth (Buddy Compression Fig. 12 and Fig. 13), from fast-mode runs
//! of a workload's trace ([`crate::memory_system`]): uncompressed once,
//! bandwidth-only once (it never uses the link), Buddy Compression at each
//! link bandwidth with the given targets.

use buddy_golden::translation::TargetRatio;
use buddy_golden::Algorithm;
use rayon::prelude::*;
use serde::Serialize;

use super::Iterations;
use crate::config::SimConfig;
use crate::memory_system::{run, Mode, SimError, SimInput, SimReport};
use crate::trace::Trace;
use crate::workload::Workload;

/// [`Iterations::Settle`] here: from 1 iteration, double (up to
/// [`MAX_ITERATIONS`]) until every point's speedup is within this share of
/// its speedup with half as many.
pub const SETTLE_TOLERANCE: f64 = 0.01;
/// [`Iterations::Settle`]: at most this many iterations.
pub const MAX_ITERATIONS: u32 = 64;

/// The paper's sweep: 50 to 200 GB/s per direction.
pub const DEFAULT_LINK_GBPS: [f64; 4] = [50.0, 100.0, 150.0, 200.0];

/// One run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryPoint {
    pub mode: Mode,
    /// The Buddy run's targets: `profiled` or `2x` (every allocation 2x,
    /// which stresses the link); empty for the other modes.
    pub targets: &'static str,
    pub link_gbps: f64,
    pub time_ns: f64,
    /// Uncompressed time / this time.
    pub speedup: f64,
    pub buddy_access_fraction: f64,
    pub device_bytes: u64,
    pub buddy_bytes: u64,
    pub dram_pj: f64,
    pub link_pj: f64,
    /// Buddy-memory's accesses as HBM2 transactions.
    pub buddy_memory_pj: f64,
    /// DRAM energy / uncompressed DRAM energy.
    pub dram_energy_relative: f64,
    /// (DRAM + link energy) / uncompressed DRAM energy.
    pub total_energy_relative: f64,
}

/// The study of one workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryModes {
    pub workload: String,
    pub algorithm: String,
    /// Capacity ratio of the Buddy runs' targets over the traced allocations.
    pub buddy_compression_ratio: f64,
    pub requests: u64,
    /// Uncompressed, bandwidth-only, then Buddy at each bandwidth with the
    /// profiled targets, then with every allocation at 2x.
    pub points: Vec<MemoryPoint>,
    /// Times every run replayed the trace.
    pub iterations: u32,
    /// Every speedup within [`SETTLE_TOLERANCE`] of the one with half the
    /// iterations (false with `Fixed`, which does not check).
    pub settled: bool,
}

impl MemoryModes {
    /// Run `trace` over `workload` (memory from its first snapshot) in every
    /// mode, Buddy at each of `link_gbps` with `targets` (per manifest
    /// allocation), each run replaying the trace as `iterations` says.
    ///
    /// # Errors
    /// What a run reports ([`SimError`]), e.g. a data mismatch.
    pub fn new(
        workload: &Workload,
        trace: &Trace,
        targets: Vec<TargetRatio>,
        algorithm: Algorithm,
        config: &SimConfig,
        link_gbps: &[f64],
        iterations: Iterations,
    ) -> Result<Self, SimError> {
        match iterations {
            Iterations::Fixed(n) => Self::with(workload, trace, &targets, algorithm, config, link_gbps, n),
            Iterations::Settle => {
                let mut last = Self::with(workload, trace, &targets, algorithm, config, link_gbps, 1)?;
                loop {
                    let mut next = Self::with(workload, trace, &targets, algorithm, config, link_gbps, 2 * last.iterations)?;
                    next.settled =
                        next.points.iter().zip(&last.points).all(|(a, b)| (a.speedup / b.speedup - 1.0).abs() <= SETTLE_TOLERANCE);
                    if next.settled || next.iterations >= MAX_ITERATIONS {
                        return Ok(next);
                    }
                    last = next;
                }
            }
        }
    }

    fn with(
        workload: &Workload,
        trace: &Trace,
        targets: &[TargetRatio],
        algorithm: Algorithm,
        config: &SimConfig,
        link_gbps: &[f64],
        iterations: u32,
    ) -> Result<Self, SimError> {
        let sim = |mode: Mode, gbps: f64, targets: Option<Vec<TargetRatio>>| -> Result<SimReport, SimError> {
            let mut c = config.clone();
            c.nvlink.gbps = gbps;
            run(&SimInput {
                workload,
                trace,
                targets,
                snapshot: 0,
                algorithm,
                mode,
                config: &c,
                corrupt_first_entry: false,
                progress: None,
                rtl: None,
                iterations,
            })
        };
        // Every run is independent: all of them at once on every core, in
        // a fixed order (uncompressed, bandwidth-only, Buddy with the
        // profiled targets per link bandwidth, then all at 2x).
        let mut jobs: Vec<(Mode, f64, Option<Vec<TargetRatio>>, &'static str)> =
            vec![(Mode::Uncompressed, config.nvlink.gbps, None, ""), (Mode::BandwidthOnly, config.nvlink.gbps, None, "")];
        jobs.extend(link_gbps.iter().map(|&g| (Mode::Buddy, g, Some(targets.to_vec()), "profiled")));
        jobs.extend(link_gbps.iter().map(|&g| (Mode::Buddy, g, None, "2x")));
        let reports: Vec<SimReport> =
            jobs.par_iter().map(|(mode, gbps, targets, _)| sim(*mode, *gbps, targets.clone())).collect::<Result<_, _>>()?;
        let base = &reports[0];
        let point = |r: &SimReport, gbps: f64, targets: &'static str| MemoryPoint {
            mode: r.mode,
            targets,
            link_gbps: gbps,
            time_ns: r.time_ns,
            speedup: base.time_ns / r.time_ns,
            buddy_access_fraction: r.buddy_access_fraction,
            device_bytes: r.device_bytes,
            buddy_bytes: r.link.read_bytes + r.link.write_bytes,
            dram_pj: r.energy.dram_pj,
            link_pj: r.energy.link_pj,
            buddy_memory_pj: r.energy.buddy_memory_pj,
            dram_energy_relative: r.energy.dram_pj / base.energy.dram_pj,
            total_energy_relative: r.energy.total_pj / base.energy.dram_pj,
        };
        let points: Vec<MemoryPoint> = reports.iter().zip(&jobs).map(|(r, (_, g, _, t))| point(r, *g, t)).collect();
        let ratio = reports.iter().zip(&jobs).rfind(|(_, j)| j.3 == "profiled").map_or(1.0, |(r, _)| r.compression_ratio);
        Ok(MemoryModes {
            workload: base.workload.clone(),
            algorithm: algorithm.to_string(),
            buddy_compression_ratio: ratio,
            requests: base.requests,
            points,
            iterations,
            settled: false,
        })
    }
}
