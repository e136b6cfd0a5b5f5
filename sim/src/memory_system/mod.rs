//! The Buddy Compression memory system run on a real access trace, in
//! **fast mode**: the golden models (translation, metadata caches,
//! compressors) stand in for the controller hardware, between the trace
//! driver's L2 and timing models of the HBM2 channels and the NVLink buddy
//! link (docs/formats.md#translation, docs/formats.md#outside-the-bit-formats;
//! Buddy paper Sec. III-IV).
//!
//! | module | what |
//! |---|---|
//! | [`config`] | every parameter (Table I defaults), TOML in and out |
//! | [`hbm`] | HBM2 channels: banks, open rows, data bus, energy |
//! | [`nvlink`] | the buddy link: bandwidth per direction, latency, headers |
//! | [`pages`] | device frames, buddy slots, metadata region; memory contents |
//! | [`controller`] | the slices' read / write behaviour with real data |
//!
//! Data (**decision**): memory starts as snapshot `snapshot` of the
//! workload. The trace has no values, so a store writes the bytes the next
//! snapshot holds at that place (real program data, written in the
//! window between the two snapshots); allocations only the trace knows
//! (temporaries) start zero and keep their bytes. Every read response is
//! checked against a shadow copy of what was last written (or preloaded),
//! and after the run every entry is read back once more; any difference
//! stops the run with the address, the time and both values.
//!
//! Issue model: L2 requests issue in trace order, at most
//! the GPU's requests in flight (`SimConfig::requests_in_flight`); a request issues when an earlier one
//! completes. The run's time is the last completion.

pub mod backing_store;
pub mod controller;
pub mod dram;
pub mod engine;
mod error;
pub mod event_queue;
pub mod hbm;
mod id_map;
mod mode;
pub mod nvlink;
pub mod pages;
pub mod request;
pub mod slice_clock;
pub mod time;

use std::collections::HashMap;

use buddy_golden::metadata_cache::CacheStats;
use buddy_golden::translation::TargetRatio;
use buddy_golden::{Algorithm, MemoryEntry, ENTRY_BYTES};
use serde::Serialize;

use crate::l2_cache::{L2Cache, L2Config, L2Stats, MemRequest};
use crate::trace::{Access, AddressLayout, Trace, TraceSource, DEFAULT_HEAP_BASE};
use crate::workload::Workload;
use crate::config::{self, SimConfig};
use controller::Controllers;
pub use error::SimError;
use hbm::HbmStats;
pub use mode::Mode;
use nvlink::LinkStats;
use pages::PageTable;
use request::Outcome;

/// What to run.
pub struct SimInput<'a> {
    pub workload: &'a Workload,
    pub trace: &'a Trace,
    /// Target per manifest allocation (manifest order); `None`: all 2x.
    pub targets: Option<Vec<TargetRatio>>,
    /// Position (in manifest order) of the snapshot memory starts from.
    pub snapshot: usize,
    pub algorithm: Algorithm,
    pub mode: Mode,
    pub config: &'a SimConfig,
    /// Called with the number of trace accesses done, every 65,536 of them
    /// (a progress bar).
    pub progress: Option<&'a dyn Fn(u64)>,
    /// Test hook for the checker itself: flip one bit of the first traced
    /// entry's stored data after the initial contents are written, so the
    /// run must stop with a mismatch (or a decode error) when it reads it.
    pub corrupt_first_entry: bool,
    /// `Some`: RTL mode (the `BuddyController` hardware in rust-hdl's
    /// simulator); `None`: fast mode (the golden models).
    pub rtl: Option<RtlOptions>,
    /// Times [`run`] replays the trace back to back (at least 1): an
    /// iterative program repeats its recorded window, so the metadata cache
    /// and the L2 reach their steady state (#49).
    pub iterations: u32,
}

/// Options of the RTL mode.
#[derive(Debug, Clone, Default)]
pub struct RtlOptions {
    /// Write `slice<N>.vcd` into this folder for every slice, with the
    /// cycles `from..=to` of that slice's clock, in time at the DRAM clock
    /// (`hbm.clock_mhz`; see `buddy_hdl::vcd_tidy`). A slice that
    /// simulates no cycle in the window (idle, jumped over) gets no file:
    /// it is listed in [`SimReport::vcd_idle_slices`].
    pub vcd: Option<(std::path::PathBuf, u64, u64)>,
    /// Simulate every cycle, also those in which a slice only waits for
    /// memory (a check of the default jump over them, which is exact).
    pub no_skip: bool,
    /// `Some((slice, max))`: record the lock-step lines of that slice
    /// (serial: `buddy_hdl::buddy_controller::LOCKSTEP_INPUTS`, `LOCKSTEP_OUTPUTS`;
    /// pipelined: `buddy_hdl::pipelined_controller::LOCKSTEP_INPUTS`,
    /// `_OUTPUTS`), at most `max`, into [`SimReport::lockstep_lines`], for
    /// a replay of the run by the emitted Verilog (the slice is reset first).
    pub lockstep: Option<(usize, usize)>,
}

/// One epoch of `system.epoch_requests` requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Epoch {
    /// Requests issued up to the end of this epoch.
    pub requests: u64,
    /// Latest completion so far, ns.
    pub end_ns: f64,
    pub device_bytes: u64,
    pub buddy_bytes: u64,
    pub buddy_requests: u64,
}

/// Energy of a run, picojoules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Energy {
    /// The GPU's HBM2: activations, bits moved, refreshes.
    pub dram_pj: f64,
    /// The buddy link ([`LinkStats::energy_pj`]).
    pub link_pj: f64,
    /// Buddy-memory's accesses as HBM2 transactions
    /// ([`buddy_memory_energy_pj`]).
    pub buddy_memory_pj: f64,
    pub total_pj: f64,
}

/// Buddy-memory's accesses priced as HBM2 transactions, picojoules (Buddy
/// Compression Sec. IV-B: "model remote buddy-memory ... accesses as HBM2
/// transactions"): the data bits moved at column access plus I/O per bit,
/// and activations at the run's own device activations per sector moved
/// (the paper assumes average row-buffer locality; buddy-memory's own rows
/// are not modelled).
pub fn buddy_memory_energy_pj(link: &LinkStats, device: &HbmStats, c: &SimConfig) -> f64 {
    let bytes = link.data_bytes(c.nvlink.header_bytes);
    let device_sectors = device.sector_reads + device.sector_writes;
    let activations_per_sector = if device_sectors == 0 { 0.0 } else { device.activations as f64 / device_sectors as f64 };
    (bytes * 8) as f64 * (c.energy.column_pj_per_bit + c.energy.io_pj_per_bit)
        + bytes as f64 / buddy_golden::translation::SECTOR_BYTES as f64 * activations_per_sector * c.energy.activation_pj
}

/// The statistics of one run.
#[derive(Debug, Clone, Serialize)]
pub struct SimReport {
    pub workload: String,
    pub engine: &'static str,
    /// Controller timing: `pipelined hardware` (the `PipelinedController`:
    /// RTL mode, or fast mode's cycle model with `system.slice_timing =
    /// "hardware"`), `hardware` (the same for the serial
    /// `BuddyController`) or `pipelined` (the paper's idealized timing).
    pub slice_timing: String,
    pub mode: Mode,
    pub algorithm: String,
    pub snapshot: usize,
    /// Recorded trace or snapshot sweep.
    pub trace_source: TraceSource,
    pub trace_accesses: u64,
    pub l2: L2Stats,
    pub reads: u64,
    pub writes: u64,
    pub partial_writes: u64,
    pub requests: u64,
    pub time_ns: f64,
    pub dram_cycles: f64,
    pub device: HbmStats,
    pub device_bytes: u64,
    /// Per HBM2 channel: banks that served at least one column command.
    pub device_banks_used: Vec<usize>,
    pub metadata: CacheStats,
    pub metadata_hit_rate: Option<f64>,
    pub buddy_requests: u64,
    pub buddy_access_fraction: f64,
    pub link: LinkStats,
    pub link_read_utilization: f64,
    pub link_write_utilization: f64,
    pub read_latency_mean_ns: f64,
    pub read_latency_p99_ns: f64,
    /// Uncompressed bytes / device bytes of the traced allocations' entries.
    pub compression_ratio: f64,
    pub energy: Energy,
    /// Read responses checked against the shadow memory (all matched).
    pub checked_reads: u64,
    /// Entries read back and checked after the run.
    pub checked_entries: u64,
    pub epochs: Vec<Epoch>,
    /// Wall-clock seconds of the run, and trace accesses per second.
    pub wall_seconds: f64,
    pub accesses_per_second: f64,
    /// RTL mode: clock cycles simulated in rust-hdl, summed over the
    /// slices (cycles a slice is idle or only waits for memory are jumped).
    pub rtl_simulated_cycles: Option<u64>,
    /// RTL mode: `rtl_simulated_cycles` per wall-clock second.
    pub rtl_cycles_per_second: Option<f64>,
    /// The pipelined slice (RTL mode, or fast mode with its hardware
    /// timing): where its cycles went.
    pub pipelined_slice: Option<engine::pipelined_driver::PipelinedStats>,
    /// The paper timing and the pipelined slice: where the reads that
    /// moved data spent their time in the slices (picoseconds, summed).
    pub read_split: Option<engine::ReadSplit>,
    /// Fast mode with the pipelined slice's hardware timing: slice cycles
    /// in which a request was offered and not taken, summed over the
    /// slices, by why (the cycle model's diagnosis).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accept_waits: Option<std::collections::BTreeMap<String, u64>>,
    /// RTL mode with [`RtlOptions::lockstep`]: the recorded lines, one per
    /// simulated cycle of that slice (not serialized).
    #[serde(skip)]
    pub lockstep_lines: Vec<String>,
    /// RTL mode with [`RtlOptions::vcd`]: the slices that simulated no
    /// cycle in the window, so no VCD was written for them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub vcd_idle_slices: Vec<usize>,
}

/// One traced allocation: where it is, what it holds now, what stores write.
struct TracedAllocation {
    base: u64,
    view: Vec<u8>,
    next: Option<Vec<u8>>,
}

/// Check that `trace` fits `workload`: every trace allocation marked
/// `in_snapshot` is in the manifest. (Records naming an unknown allocation
/// or reaching past one are rejected when the trace is read.)
///
/// # Errors
/// [`SimError::NotInManifest`] naming the allocation.
pub fn check_trace(workload: &Workload, trace: &Trace) -> Result<(), SimError> {
    let names: std::collections::HashSet<&str> =
        workload.manifest().snapshots.first().map(|s| s.allocations.iter().map(|a| a.name.as_str()).collect()).unwrap_or_default();
    match trace.meta.allocations.iter().find(|a| a.in_snapshot && !names.contains(a.name.as_str())) {
        Some(a) => Err(SimError::NotInManifest { name: a.name.clone() }),
        None => Ok(()),
    }
}

/// Run the trace of `input` through the memory system.
///
/// # Errors
/// [`SimError`]: a bad input found before the run (an `in_snapshot`
/// allocation the manifest lacks, a missing snapshot), or a data mismatch,
/// fault or undecodable entry during it.
pub fn run(input: &SimInput) -> Result<SimReport, SimError> {
    if input.iterations == 0 {
        return Err(SimError::Config("iterations must be at least 1".into()));
    }
    let mut session = Session::open(input)?;
    let accesses = &input.trace.accesses;
    for n in 0..accesses.len() * input.iterations as usize {
        if let Some(report) = input.progress {
            if n % 65_536 == 0 {
                report(n as u64);
            }
        }
        for r in session.access(&accesses[n % accesses.len()]) {
            session.issue_in_order(r)?;
        }
    }
    session.finish()
}

/// One run between its set-up and its report: memory preloaded, the L2,
/// the requests in flight and the shadow copy. [`run`] replays the trace
/// in order through it; `crate::oversubscription` replays it as
/// concurrent streams behind a paging model, with the same memory system.
pub(crate) struct Session<'a> {
    input: &'a SimInput<'a>,
    started: std::time::Instant,
    pub(crate) ctl: Controllers,
    traced: Vec<TracedAllocation>,
    shadow: HashMap<u64, MemoryEntry>,
    layout: AddressLayout,
    l2: L2Cache,
    state: IssueState,
    out: Vec<MemRequest>,
    raw_bytes: u64,
    device_bytes: u64,
    snap_index: usize,
}

impl<'a> Session<'a> {
    /// Check the input, lay out and preload memory, set up the engine.
    ///
    /// # Errors
    /// As [`run`], for what is found before the first access.
    pub(crate) fn open(input: &'a SimInput<'a>) -> Result<Session<'a>, SimError> {
        let started = std::time::Instant::now();
        let config = input.config;
        config.validate().map_err(|e| SimError::Config(e.to_string()))?;
        if input.rtl.is_some() || config.system.slice_timing == config::SliceTiming::Hardware {
            // Before any work: the hardware paths need the algorithm's hardware.
            input.algorithm.require_hardware()?;
            config.validate_for_hardware().map_err(|e| SimError::Config(e.to_string()))?;
        }
        let snapshots: Vec<_> = input.workload.snapshots().collect();
        let snap = *snapshots.get(input.snapshot).ok_or(SimError::Snapshot { position: input.snapshot, count: snapshots.len() })?;
        let next = snapshots.get(input.snapshot + 1).copied();
        let manifest: Vec<_> = snap.allocations().collect();
        let by_name: HashMap<&str, usize> = manifest.iter().enumerate().map(|(i, a)| (a.info().name.as_str(), i)).collect();
        let meta = &input.trace.meta;
        check_trace(input.workload, input.trace)?;
        let page = config.system.page;
        let order: Vec<(String, u64)> = manifest.iter().map(|a| (a.info().name.clone(), a.info().size)).collect();
        let layout = AddressLayout::new(meta, &order, DEFAULT_HEAP_BASE, page.bytes());

        // Every traced allocation: bytes, target, data for stores.
        let mut traced = Vec::with_capacity(meta.allocations.len());
        let mut mapping = Vec::new();
        for (id, a) in meta.allocations.iter().enumerate() {
            let m = by_name.get(a.name.as_str()).copied();
            let size = a.size.max(m.map_or(0, |i| manifest[i].info().size)).div_ceil(ENTRY_BYTES as u64) * ENTRY_BYTES as u64;
            let mut view = Vec::new();
            view.try_reserve_exact(size as usize).map_err(|_| SimError::OutOfMemory { name: a.name.clone(), bytes: size })?;
            view.resize(size as usize, 0u8);
            let mut next_bytes = None;
            if let Some(i) = m {
                let bytes = manifest[i].bytes();
                view[..bytes.len()].copy_from_slice(bytes);
                if let Some(n) = next {
                    let nb = n.allocations().nth(i).expect("same allocations in every snapshot").bytes();
                    next_bytes = Some(nb.to_vec());
                }
            }
            let target = match (&input.targets, m) {
                (Some(t), Some(i)) => t[i],
                _ => TargetRatio::X2,
            };
            mapping.push((layout.base[id], size, target));
            traced.push(TracedAllocation { base: layout.base[id], view, next: next_bytes });
        }
        let pages = PageTable::new(mapping.clone(), layout.heap_base, page, input.mode);
        let mut ctl = Controllers::new(config, input.mode, input.algorithm, pages)?;

        // Initial contents and the shadow copy.
        let mut shadow: HashMap<u64, MemoryEntry> = HashMap::new();
        let (mut raw_bytes, mut device_bytes) = (0u64, 0u64);
        for (t, (_, size, target)) in traced.iter().zip(&mapping) {
            let entries = size / ENTRY_BYTES as u64;
            raw_bytes += entries * ENTRY_BYTES as u64;
            device_bytes += entries * if input.mode == Mode::Buddy { target.device_bytes() } else { ENTRY_BYTES as u64 };
            for (e, chunk) in t.view.chunks_exact(ENTRY_BYTES).enumerate() {
                let va = t.base + (e * ENTRY_BYTES) as u64;
                let entry = MemoryEntry::from_slice(chunk).expect("128 bytes");
                ctl.preload(va, &entry)?;
                shadow.insert(va, entry);
            }
        }

        if let Some(rtl) = &input.rtl {
            ctl.use_rtl(input.algorithm.require_hardware()?, config.system.rtl_slice);
            let slices = config.system.slices as usize;
            if let Some((slice, _)) = rtl.lockstep {
                if slice >= slices {
                    return Err(SimError::Config(format!("no slice {slice} to record (the system has {slices})")));
                }
            }
            let mut files = Vec::new();
            if let Some((dir, _, _)) = &rtl.vcd {
                std::fs::create_dir_all(dir).map_err(|e| SimError::Config(format!("{}: {e}", dir.display())))?;
                for i in 0..slices {
                    let path = dir.join(format!("slice{i}.vcd"));
                    files.push(std::fs::File::create(&path).map_err(|e| SimError::Config(format!("{}: {e}", path.display())))?);
                }
            }
            if let Some(p) = ctl.pipelined_rtl() {
                p.set_skip_idle(!rtl.no_skip);
                if let Some((slice, max)) = rtl.lockstep {
                    p.record_lines(slice, max);
                }
                if let Some((_, from, to)) = &rtl.vcd {
                    for (slice, f) in files.drain(..).enumerate() {
                        p.record_vcd(slice, Box::new(std::io::BufWriter::new(f)), config.cycle_ps(), *from, *to);
                    }
                }
            }
            ctl.with_rtl_slices(|all| {
                all.iter_mut().for_each(|s| s.set_skip_waits(!rtl.no_skip));
                if let Some((slice, max)) = rtl.lockstep.filter(|_| !all.is_empty()) {
                    all[slice].record_lines(max);
                }
                if let Some((_, from, to)) = &rtl.vcd {
                    for (slice, f) in all.iter_mut().zip(files) {
                        slice.record_vcd(Box::new(std::io::BufWriter::new(f)), config.cycle_ps(), *from, *to);
                    }
                }
            });
        }
        if input.corrupt_first_entry {
            if let Some(t) = traced.iter().find(|t| !t.view.is_empty()) {
                ctl.corrupt(t.base)?;
            }
        }
        let cycle_ps = config.cycle_ps();
        let l2 = L2Cache::new(L2Config { bytes: config.l2.bytes, ways: config.l2.ways }).map_err(|e| SimError::Config(e.to_string()))?;
        // A GPU fetches 32 B sectors from an uncompressed memory; a
        // compressed entry (and the hardware slices' every read) moves whole.
        let l2 = if input.mode == Mode::Uncompressed && ctl.sector_reads() { l2.with_sector_fills() } else { l2 };
        let state = IssueState {
            outstanding: Vec::new(),
            max: config.requests_in_flight(),
            last_issue: 0,
            end: 0,
            latencies: Vec::new(),
            buddy_requests: 0,
            checked: 0,
            epoch_size: config.system.epoch_requests,
            epochs: Vec::new(),
            epoch_base: (0, 0, 0),
            issued: 0,
            cycle_ps,
        };
        Ok(Session {
            input,
            started,
            ctl,
            traced,
            shadow,
            layout,
            l2,
            state,
            out: Vec::new(),
            raw_bytes,
            device_bytes,
            snap_index: snap.info().index,
        })
    }

    /// The program's side of trace access `a`: a store's bytes become the
    /// program's current bytes, and the access goes through the L2. Returns
    /// the L2's requests to memory (misses, write-backs), in order.
    pub(crate) fn access(&mut self, a: &Access) -> Vec<MemRequest> {
        let t = &mut self.traced[a.alloc_id as usize];
        if a.write {
            let (o, n) = (a.offset as usize, a.size as usize);
            if let Some(next) = &t.next {
                if o + n <= next.len() {
                    t.view[o..o + n].copy_from_slice(&next[o..o + n]);
                }
            }
        }
        self.l2.access(self.layout.va(a), a.size as u64, a.write, &mut self.out);
        std::mem::take(&mut self.out)
    }

    /// Issue `r` in trace order: when as many requests as the GPU holds
    /// (`SimConfig::requests_in_flight`) are in flight, after the next one
    /// completes.
    pub(crate) fn issue_in_order(&mut self, r: MemRequest) -> Result<(), SimError> {
        self.state.issue(&mut self.ctl, &self.traced, &mut self.shadow, r, 0)
    }

    /// Issue `r` at time `at` ps (not before an earlier issue), whatever is
    /// in flight; `tag` comes back from [`Session::wait`] when it completes.
    pub(crate) fn issue_at(&mut self, r: MemRequest, at: u64, tag: usize) -> Result<(), SimError> {
        self.state.last_issue = self.state.last_issue.max(at);
        self.state.issue_now(&mut self.ctl, &self.traced, &mut self.shadow, r, tag)
    }

    /// Run memory until a request in flight completes or time reaches
    /// `limit` ps; the tags of the completed requests.
    pub(crate) fn wait(&mut self, limit: u64) -> Result<Vec<usize>, SimError> {
        let sh = self.ctl.system.queue.shared.clone();
        let before = sh.finished_tasks();
        if !self.state.outstanding.is_empty() {
            self.ctl.system.queue.run_until(limit, || sh.finished_tasks() > before)?;
        } else if limit != u64::MAX {
            self.ctl.system.queue.advance_to(limit)?;
        }
        self.state.collect()
    }

    /// Now, ps.
    pub(crate) fn now(&self) -> u64 {
        self.ctl.system.queue.now()
    }

    /// Requests in flight.
    pub(crate) fn in_flight(&self) -> usize {
        self.state.outstanding.len()
    }

    /// Write back the L2, finish every request, check every entry, report.
    ///
    /// # Errors
    /// As [`run`].
    pub(crate) fn finish(self) -> Result<SimReport, SimError> {
        let Session {
            input,
            started,
            mut ctl,
            traced,
            mut shadow,
            layout: _,
            mut l2,
            mut state,
            mut out,
            raw_bytes,
            device_bytes,
            snap_index,
        } = self;
        let config = input.config;
        let cycle_ps = config.cycle_ps();
        l2.flush(&mut out);
        for r in out.drain(..) {
            state.issue(&mut ctl, &traced, &mut shadow, r, 0)?;
        }
        state.drain(&mut ctl)?;
        let end = ctl.flush_metadata(state.end)?.max(state.end);
        state.close_epoch(&ctl, true);

        // Everything written is still there.
        let mut vas: Vec<u64> = shadow.keys().copied().collect();
        vas.sort_unstable();
        for va in &vas {
            let got = ctl.peek(*va)?;
            if got != shadow[va] {
                return Err(mismatch(*va, "final read-back", end, cycle_ps, &shadow[va], &got));
            }
        }

        let time_ps = end.max(1);
        let rtl_cycles = input.rtl.as_ref().map(|_| match ctl.pipelined_rtl() {
            Some(p) => p.simulated_cycles(),
            None => ctl.with_rtl_slices(|all| all.iter().map(|s| s.simulated_cycles()).sum::<u64>()),
        });
        let lockstep_lines = match (input.rtl.as_ref().and_then(|r| r.lockstep), ctl.pipelined_rtl()) {
            (Some((slice, _)), Some(p)) => p.take_lines(slice),
            (Some((slice, _)), None) => ctl.with_rtl_slices(|all| all[slice].take_lines()),
            (None, _) => Vec::new(),
        };
        let vcd_idle_slices = match &input.rtl {
            Some(RtlOptions { vcd: Some((dir, _, _)), .. }) => finish_vcds(&mut ctl, dir, config.system.slices as usize)?,
            _ => Vec::new(),
        };
        let md = ctl.metadata_stats();
        let mut lat = state.latencies.clone();
        lat.sort_unstable();
        let p99 = lat.get(((lat.len() as f64 * 0.99).ceil() as usize).saturating_sub(1)).copied().unwrap_or(0);
        let mean = if lat.is_empty() { 0.0 } else { lat.iter().sum::<u64>() as f64 / lat.len() as f64 };
        let stats = ctl.controller_stats();
        let requests = stats.reads + stats.writes;
        let device = ctl.hbm_stats();
        let link = ctl.link_stats();
        let dram_pj = device.energy_pj(config);
        let link_pj = link.energy_pj(config);
        let buddy_memory_pj = buddy_memory_energy_pj(&link, &device, config);
        let wall = started.elapsed().as_secs_f64();
        Ok(SimReport {
            workload: input.workload.manifest().workload.clone(),
            engine: if input.rtl.is_some() { "rtl" } else { "fast" },
            slice_timing: match (&input.rtl, config.system.rtl_slice) {
                (Some(_), config::RtlSlice::Serial) => "hardware".into(),
                (Some(_), config::RtlSlice::Pipelined) => "pipelined hardware".into(),
                (None, config::RtlSlice::Pipelined) if config.system.slice_timing == config::SliceTiming::Hardware => "pipelined hardware".into(),
                (None, _) => config.system.slice_timing.name().into(),
            },
            mode: input.mode,
            algorithm: input.algorithm.to_string(),
            snapshot: snap_index,
            trace_source: input.trace.source,
            trace_accesses: input.trace.accesses.len() as u64,
            l2: l2.stats(),
            reads: stats.reads,
            writes: stats.writes,
            partial_writes: stats.partial_writes,
            requests,
            time_ns: time_ps as f64 / 1000.0,
            dram_cycles: time_ps as f64 / cycle_ps,
            device,
            device_bytes: device.bytes(),
            device_banks_used: ctl.banks_used(),
            metadata: md,
            metadata_hit_rate: md.hit_rate(),
            buddy_requests: state.buddy_requests,
            buddy_access_fraction: if requests == 0 { 0.0 } else { state.buddy_requests as f64 / requests as f64 },
            link,
            link_read_utilization: link.read_busy_ps as f64 / time_ps as f64,
            link_write_utilization: link.write_busy_ps as f64 / time_ps as f64,
            read_latency_mean_ns: mean / 1000.0,
            read_latency_p99_ns: p99 as f64 / 1000.0,
            compression_ratio: if device_bytes == 0 { 1.0 } else { raw_bytes as f64 / device_bytes as f64 },
            energy: Energy { dram_pj, link_pj, buddy_memory_pj, total_pj: dram_pj + link_pj + buddy_memory_pj },
            checked_reads: state.checked,
            checked_entries: vas.len() as u64,
            epochs: state.epochs,
            wall_seconds: wall,
            accesses_per_second: input.trace.accesses.len() as f64 / wall.max(1e-9),
            rtl_simulated_cycles: rtl_cycles,
            rtl_cycles_per_second: rtl_cycles.map(|c| c as f64 / wall.max(1e-9)),
            pipelined_slice: ctl.pipelined_slices().map(|p| p.stats()),
            read_split: ctl.read_split(),
            accept_waits: ctl.accept_waits(),
            lockstep_lines,
            vcd_idle_slices,
        })
    }
}

/// Complete every slice's VCD in `dir`; remove the (empty) files of the
/// slices that simulated no cycle in the window and return their numbers.
fn finish_vcds(ctl: &mut Controllers, dir: &std::path::Path, slices: usize) -> Result<Vec<usize>, SimError> {
    let outcomes: Vec<std::io::Result<Option<bool>>> = match ctl.pipelined_rtl() {
        Some(p) => (0..slices).map(|i| p.finish_vcd(i)).collect(),
        None => ctl.with_rtl_slices(|all| all.iter_mut().map(|s| s.finish_vcd()).collect()),
    };
    let mut idle = Vec::new();
    for (i, outcome) in outcomes.into_iter().enumerate() {
        let path = dir.join(format!("slice{i}.vcd"));
        match outcome {
            Ok(Some(false)) => {
                std::fs::remove_file(&path).map_err(|e| SimError::Config(format!("{}: {e}", path.display())))?;
                idle.push(i);
            }
            Ok(_) => {}
            Err(e) => return Err(SimError::Config(format!("cannot write {}: {e}", path.display()))),
        }
    }
    Ok(idle)
}

fn mismatch(va: u64, what: &'static str, t: u64, cycle_ps: f64, expected: &MemoryEntry, got: &MemoryEntry) -> SimError {
    SimError::Mismatch {
        va,
        what,
        ns: t as f64 / 1000.0,
        cycle: (t as f64 / cycle_ps) as u64,
        expected: expected.to_hex(),
        got: got.to_hex(),
    }
}

/// A request in flight and what it must return.
struct InFlight {
    outcome: Outcome,
    /// The issuer's tag ([`Session::issue_at`]).
    tag: usize,
    va: u64,
    issued: u64,
    read: bool,
    expected: MemoryEntry,
}

/// The issue model and the running counters.
struct IssueState {
    outstanding: Vec<InFlight>,
    max: usize,
    last_issue: u64,
    end: u64,
    latencies: Vec<u64>,
    buddy_requests: u64,
    checked: u64,
    epoch_size: u64,
    epochs: Vec<Epoch>,
    /// Device bytes, buddy bytes, buddy requests at the start of the epoch.
    epoch_base: (u64, u64, u64),
    issued: u64,
    cycle_ps: f64,
}

impl IssueState {
    /// Take the finished requests out of `outstanding` and check them;
    /// their tags.
    fn collect(&mut self) -> Result<Vec<usize>, SimError> {
        let mut tags = Vec::new();
        let mut i = 0;
        while i < self.outstanding.len() {
            if self.outstanding[i].outcome.borrow().is_none() {
                i += 1;
                continue;
            }
            let f = self.outstanding.swap_remove(i);
            tags.push(f.tag);
            let done = f.outcome.borrow_mut().take().expect("finished")?;
            let what = if f.read { "read response" } else { "write (merged entry)" };
            // A write the engine does not answer with its entry is checked by the reads after it.
            if let Some(entry) = done.entry.filter(|e| *e != f.expected) {
                return Err(mismatch(f.va, what, done.info.done, self.cycle_ps, &f.expected, &entry));
            }
            if f.read {
                self.checked += 1;
                self.latencies.push(done.info.done - f.issued);
            }
            self.buddy_requests += done.info.buddy as u64;
            self.end = self.end.max(done.info.done);
        }
        Ok(tags)
    }

    /// Run until every request in flight has finished.
    fn drain(&mut self, ctl: &mut Controllers) -> Result<(), SimError> {
        let pending: Vec<Outcome> = self.outstanding.iter().map(|f| f.outcome.clone()).collect();
        ctl.system.queue.run_until(u64::MAX, || pending.iter().all(|o| o.borrow().is_some()))?;
        self.collect()?;
        if !self.outstanding.is_empty() {
            return Err(SimError::Hardware(format!("{} requests never finished", self.outstanding.len())));
        }
        Ok(())
    }

    /// Issue `r` in order: when `max` requests are in flight, once an
    /// earlier one has completed.
    fn issue(
        &mut self,
        ctl: &mut Controllers,
        traced: &[TracedAllocation],
        shadow: &mut HashMap<u64, MemoryEntry>,
        r: MemRequest,
        tag: usize,
    ) -> Result<(), SimError> {
        if self.outstanding.len() >= self.max {
            // A request issues when an earlier one completes.
            let sh = ctl.system.queue.shared.clone();
            let before = sh.finished_tasks();
            ctl.system.queue.run_until(u64::MAX, || sh.finished_tasks() > before)?;
            self.last_issue = self.last_issue.max(ctl.system.queue.now());
            self.collect()?;
        }
        self.issue_now(ctl, traced, shadow, r, tag)
    }

    /// Issue `r` at `last_issue`, whatever is in flight.
    fn issue_now(
        &mut self,
        ctl: &mut Controllers,
        traced: &[TracedAllocation],
        shadow: &mut HashMap<u64, MemoryEntry>,
        r: MemRequest,
        tag: usize,
    ) -> Result<(), SimError> {
        let t = self.last_issue;
        let va = r.entry_va;
        let f = match r.write_mask() {
            None => {
                let expected = shadow.get(&va).copied().unwrap_or(MemoryEntry::ZERO);
                InFlight { outcome: ctl.start_read_sectors(va, r.sectors, t)?, tag, va, issued: t, read: true, expected }
            }
            Some(mask) => {
                let value = view_entry(traced, va);
                // What memory must now hold, from the shadow alone.
                let old = shadow.get(&va).copied().unwrap_or(MemoryEntry::ZERO).to_bytes();
                let expected = MemoryEntry::from_bytes(&buddy_golden::merge_sectors(&old, &value, mask));
                shadow.insert(va, expected);
                InFlight { outcome: ctl.start_write(va, mask, &value, t)?, tag, va, issued: t, read: false, expected }
            }
        };
        self.outstanding.push(f);
        self.issued += 1;
        if self.issued.is_multiple_of(self.epoch_size) {
            self.close_epoch(ctl, false);
        }
        Ok(())
    }

    fn close_epoch(&mut self, ctl: &Controllers, last: bool) {
        let link = ctl.link_stats();
        let (d, b, n) = (ctl.hbm_stats().bytes(), link.read_bytes + link.write_bytes, self.buddy_requests);
        if last && self.issued.is_multiple_of(self.epoch_size) && self.issued > 0 && d == self.epoch_base.0 {
            return; // nothing since the last full epoch
        }
        self.epochs.push(Epoch {
            requests: self.issued,
            end_ns: self.end as f64 / 1000.0,
            device_bytes: d - self.epoch_base.0,
            buddy_bytes: b - self.epoch_base.1,
            buddy_requests: n - self.epoch_base.2,
        });
        self.epoch_base = (d, b, n);
    }
}

/// The program's current bytes of the entry at `va`.
fn view_entry(traced: &[TracedAllocation], va: u64) -> [u8; ENTRY_BYTES] {
    let mut out = [0u8; ENTRY_BYTES];
    // Allocations are page-aligned and disjoint: find the one holding va.
    if let Some(t) = traced.iter().find(|t| t.base <= va && va < t.base + t.view.len() as u64) {
        let o = (va - t.base) as usize;
        out.copy_from_slice(&t.view[o..o + ENTRY_BYTES]);
    }
    out
}
