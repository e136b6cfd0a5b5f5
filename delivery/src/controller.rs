//! The `BuddyController` hardware slice against the fast-mode controller
//! (the golden models), on a page table that holds every target ratio, and
//! the lock-step replay of the emitted Verilog.
//!
//! A scenario: one slice, 64 KiB pages, six allocations of one page each
//! (targets 1x, 4/3x, 2x, 4x, 16x and 2x again), preloaded with the given
//! entries; then random requests, one at a time: reads of any entry, full
//! writes and partial writes (any sector mask) of other given entries.
//! The same scenario runs in fast mode and in RTL mode; every response,
//! every traffic counter (HBM2 sectors, activations, row hits, link packets
//! and bytes, metadata cache outcomes, fills, write-backs) and the final
//! memory contents must be equal, and every read equals what was last
//! written.

use buddy_golden::metadata_cache::CacheStats;
use buddy_golden::translation::{PageSize, TargetRatio};
use buddy_golden::{HardwareCodec, MemoryEntry, ENTRY_BYTES};
use buddy_sim::config::{RtlSlice, SimConfig, SliceTiming};
use buddy_sim::memory_system::controller::{ControllerStats, Controllers};
use buddy_sim::memory_system::hbm::HbmStats;
use buddy_sim::memory_system::pages::PageTable;
pub use buddy_hdl::buddy_controller::{LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS};
use buddy_sim::memory_system::Mode;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

const PAGE: u64 = 64 << 10;
const HEAP_BASE: u64 = 0x1_0000_0000;
const TARGETS: [TargetRatio; 6] =
    [TargetRatio::X1, TargetRatio::X4Over3, TargetRatio::X2, TargetRatio::X4, TargetRatio::X16, TargetRatio::X2];

/// What a scenario observed (everything but time).
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    /// Per request: the entry answered (reads) or left in memory (writes),
    /// and whether buddy-memory was touched.
    pub responses: Vec<(MemoryEntry, bool)>,
    pub controller: ControllerStats,
    pub hbm: HbmStats,
    /// Link packets and bytes per direction.
    pub link: [u64; 4],
    pub metadata: CacheStats,
    /// Every entry read back through the metadata in memory at the end.
    pub final_entries: Vec<MemoryEntry>,
}

/// A finished scenario.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    pub observed: Observed,
    /// Completion time of the last request, picoseconds.
    pub end_ps: u64,
    /// Completion time of every request, then of the final metadata
    /// flush, picoseconds.
    pub done_ps: Vec<u64>,
    /// Lock-step lines of the RTL slice (when asked for).
    pub lines: Vec<String>,
}

fn address(i: usize) -> u64 {
    HEAP_BASE + (i * ENTRY_BYTES) as u64
}

/// Run `requests` random requests over `entries` in `mode` with the
/// algorithm of `hardware`, in RTL mode when `rtl`, recording at most `record` lock-step
/// lines.
///
/// # Errors
/// A read differs from the last value written, or the controllers fail.
pub fn run_scenario(
    mode: Mode,
    hardware: HardwareCodec,
    entries: &[MemoryEntry],
    requests: usize,
    seed: u64,
    rtl: bool,
    record: usize,
) -> Result<ScenarioRun, String> {
    run_scenario_with(mode, hardware, entries, requests, seed, rtl.then_some(RtlSetup { record, ..RtlSetup::default() }))
}

/// How the RTL slice of a scenario runs.
#[derive(Default)]
pub struct RtlSetup {
    /// Lock-step lines to record (0: none).
    pub record: usize,
    /// Simulate the cycles a slice only waits for memory (default: jump).
    pub no_skip: bool,
    /// Write a VCD of the whole run here (at 1 GHz, as [`crate::stream::VcdTrace`]).
    pub vcd: Option<Box<dyn std::io::Write + Send>>,
}

/// [`run_scenario`] with the RTL slice set up by `rtl` (`None`: fast mode).
///
/// # Errors
/// As [`run_scenario`].
pub fn run_scenario_with(
    mode: Mode,
    hardware: HardwareCodec,
    entries: &[MemoryEntry],
    requests: usize,
    seed: u64,
    rtl: Option<RtlSetup>,
) -> Result<ScenarioRun, String> {
    run_scenario_timed(mode, hardware, entries, requests, seed, rtl, SliceTiming::Paper)
}

/// [`run_scenario_with`] with the fast mode's `system.slice_timing`
/// (the paper's or the serial slice hardware's; the RTL mode ignores it).
///
/// # Errors
/// As [`run_scenario`].
pub fn run_scenario_timed(
    mode: Mode,
    hardware: HardwareCodec,
    entries: &[MemoryEntry],
    requests: usize,
    seed: u64,
    rtl: Option<RtlSetup>,
    slice_timing: SliceTiming,
) -> Result<ScenarioRun, String> {
    let mut config = SimConfig::default();
    config.system.slice_timing = slice_timing;
    // The `BuddyController`'s scenario: its hardware timing is the serial slice's.
    config.system.rtl_slice = RtlSlice::Serial;
    config.system.slices = 1;
    config.system.page = PageSize::Small64K;
    let allocations = TARGETS.iter().enumerate().map(|(i, &t)| (HEAP_BASE + i as u64 * PAGE, PAGE, t)).collect();
    let pages = PageTable::new(allocations, HEAP_BASE, PageSize::Small64K, mode);
    let mut ctl = Controllers::new(&config, mode, hardware.algorithm(), pages).map_err(|e| e.to_string())?;
    let n = TARGETS.len() * (PAGE as usize / ENTRY_BYTES);
    let mut shadow: HashMap<u64, MemoryEntry> = HashMap::new();
    for i in 0..n {
        let e = entries[i % entries.len()];
        ctl.preload(address(i), &e).map_err(|e| e.to_string())?;
        shadow.insert(address(i), e);
    }
    let is_rtl = rtl.is_some();
    if let Some(setup) = rtl {
        ctl.use_rtl(hardware, buddy_sim::config::RtlSlice::Serial);
        ctl.with_rtl_slices(|all| {
            let slice = &mut all[0];
            slice.set_skip_waits(!setup.no_skip);
            if setup.record > 0 {
                slice.record_lines(setup.record);
            }
            if let Some(w) = setup.vcd {
                slice.record_vcd(w, buddy_hdl::vcd_tidy::DEFAULT_PERIOD_PS, 0, u64::MAX);
            }
        });
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut responses = Vec::with_capacity(requests);
    let mut done_ps = Vec::with_capacity(requests + 1);
    let mut t = 0u64;
    for k in 0..requests {
        // Runs of nearby entries, as L2 misses come, and jumps.
        let i = if rng.gen_bool(0.7) { (k * 7 + rng.gen_range(0..16)) % n } else { rng.gen_range(0..n) };
        let va = address(i);
        let (entry, info) = if rng.gen_bool(0.6) {
            let (got, info) = ctl.read(va, t).map_err(|e| e.to_string())?;
            if got != shadow[&va] {
                return Err(format!("request {k}: read of {va:#x} returned\n  {}\nnot\n  {}", got.to_hex(), shadow[&va].to_hex()));
            }
            (got, info)
        } else {
            let value = entries[rng.gen_range(0..entries.len())].to_bytes();
            let mask = if rng.gen_bool(0.5) { 0xF } else { rng.gen_range(1..15) };
            let (stored, info) = ctl.write(va, mask, &value, t).map_err(|e| e.to_string())?;
            let stored = stored.ok_or_else(|| format!("request {k}: the write of {va:#x} was answered without its entry"))?;
            let expected = MemoryEntry::from_bytes(&buddy_golden::merge_sectors(&shadow[&va].to_bytes(), &value, mask));
            if stored != expected {
                return Err(format!(
                    "request {k}: write of {va:#x} (mask {mask:x}) left\n  {}\nnot\n  {}",
                    stored.to_hex(),
                    expected.to_hex()
                ));
            }
            shadow.insert(va, stored);
            (stored, info)
        };
        responses.push((entry, info.buddy));
        done_ps.push(info.done);
        t = info.done;
    }
    let end_ps = ctl.flush_metadata(t).map_err(|e| e.to_string())?;
    done_ps.push(end_ps);
    let lines = if is_rtl { ctl.with_rtl_slices(|all| all[0].take_lines()) } else { Vec::new() };
    if is_rtl {
        ctl.with_rtl_slices(|all| all[0].finish_vcd()).map_err(|e| format!("VCD: {e}"))?;
    }
    let final_entries = (0..n).map(|i| ctl.peek(address(i)).map_err(|e| e.to_string())).collect::<Result<Vec<_>, _>>()?;
    if let Some(i) = (0..n).find(|&i| final_entries[i] != shadow[&address(i)]) {
        return Err(format!("entry {:#x} reads back as {} after the run", address(i), final_entries[i].to_hex()));
    }
    let link = ctl.link_stats();
    Ok(ScenarioRun {
        observed: Observed {
            responses,
            controller: ctl.controller_stats(),
            hbm: ctl.hbm_stats(),
            link: [link.read_packets, link.read_bytes, link.write_packets, link.write_bytes],
            metadata: ctl.metadata_stats(),
            final_entries,
        },
        end_ps,
        done_ps,
        lines,
    })
}

/// Run the scenario in both engines and compare what they observed; then
/// in fast mode with `system.slice_timing = "hardware"`, which must also
/// finish every request on the RTL's cycle.
///
/// # Errors
/// A run fails, or the first difference.
pub fn compare_engines(
    mode: Mode,
    hardware: HardwareCodec,
    entries: &[MemoryEntry],
    requests: usize,
    seed: u64,
) -> Result<(ScenarioRun, ScenarioRun), String> {
    let fast = run_scenario(mode, hardware, entries, requests, seed, false, 0).map_err(|e| format!("fast: {e}"))?;
    let rtl = run_scenario(mode, hardware, entries, requests, seed, true, 0).map_err(|e| format!("rtl: {e}"))?;
    let (f, r) = (&fast.observed, &rtl.observed);
    if let Some(k) = (0..requests).find(|&k| f.responses[k] != r.responses[k]) {
        return Err(format!("{mode:?}: request {k} differs:\n  fast: {:?}\n  rtl:  {:?}", f.responses[k], r.responses[k]));
    }
    // The pipelined timing overlaps requests, so the DRAM commands it
    // causes (activations, refreshes) differ; the sectors moved do not.
    let sectors = |h: &HbmStats| (h.sector_reads, h.sector_writes);
    if (f.controller, sectors(&f.hbm), f.link, f.metadata) != (r.controller, sectors(&r.hbm), r.link, r.metadata) {
        return Err(format!(
            "{mode:?}: counters differ:\n  fast: {:?} {:?} {:?} {:?}\n  rtl:  {:?} {:?} {:?} {:?}",
            f.controller, f.hbm, f.link, f.metadata, r.controller, r.hbm, r.link, r.metadata
        ));
    }
    if f.final_entries != r.final_entries {
        return Err(format!("{mode:?}: final memory differs"));
    }
    // Fast mode with the hardware's timing: the same observations, and
    // every request (and the final flush) done on the RTL's cycle.
    let timed =
        run_scenario_timed(mode, hardware, entries, requests, seed, None, SliceTiming::Hardware).map_err(|e| format!("fast, hardware timing: {e}"))?;
    if timed.observed != rtl.observed {
        return Err(format!(
            "{mode:?}: fast mode with hardware timing observes something else than the RTL:\n  fast: {:?}\n  rtl:  {:?}",
            timed.observed.hbm, rtl.observed.hbm
        ));
    }
    if let Some(k) = (0..rtl.done_ps.len()).find(|&k| timed.done_ps[k] != rtl.done_ps[k]) {
        return Err(format!(
            "{mode:?}: request {k} done at {} ps in RTL, {} ps in fast mode with hardware timing",
            rtl.done_ps[k], timed.done_ps[k]
        ));
    }
    Ok((fast, rtl))
}

/// The Verilog module name of the slice built with `hardware`:
/// `buddy_controller` (BPC, the default), `buddy_controller_zvc`,
/// `buddy_controller_mag_bdi16` / `32` / `64`.
pub const fn module(hardware: HardwareCodec) -> &'static str {
    match hardware {
        HardwareCodec::Bpc => "buddy_controller",
        HardwareCodec::Zvc => "buddy_controller_zvc",
        HardwareCodec::MagBdi(buddy_golden::Mag::B16) => "buddy_controller_mag_bdi16",
        HardwareCodec::MagBdi(buddy_golden::Mag::B32) => "buddy_controller_mag_bdi32",
        HardwareCodec::MagBdi(buddy_golden::Mag::B64) => "buddy_controller_mag_bdi64",
    }
}

/// The output ports of every slice variant, as the registry lists them (the lock-step order).
const OUTPUTS: &[(&str, usize)] = &[
    ("req_ready", 1),
    ("resp_valid", 1),
    ("resp_write", 1),
    ("resp_entry", 1024),
    ("resp_class", 4),
    ("resp_error", 3),
    ("dev_req_valid", 1),
    ("dev_req_write", 1),
    ("dev_req_address", 64),
    ("dev_req_data", 256),
    ("dev_req_strobe", 32),
    ("dev_req_len", 3),
    ("dev_req_first", 1),
    ("dev_resp_ready", 1),
    ("buddy_req_valid", 1),
    ("buddy_req_write", 1),
    ("buddy_req_address", 64),
    ("buddy_req_data", 256),
    ("buddy_req_strobe", 32),
    ("buddy_req_len", 3),
    ("buddy_req_first", 1),
    ("buddy_resp_ready", 1),
];

/// The slice's ports (the lock-step order) for the variant built with `hardware`.
pub const fn ports(hardware: HardwareCodec) -> crate::cosim::CosimPorts {
    crate::cosim::CosimPorts { module: module(hardware), inputs: LOCKSTEP_INPUTS, outputs: OUTPUTS }
}

/// Lock-step lines of the slice built with `hardware` on a buddy-mode scenario over
/// `entries` (`requests` requests) then an uncompressed one (a quarter as
/// many), each from reset.
///
/// # Errors
/// A scenario fails.
pub fn lockstep_lines(hardware: HardwareCodec, entries: &[MemoryEntry], requests: usize, max_lines: usize) -> Result<Vec<String>, String> {
    let mut lines = run_scenario(Mode::Buddy, hardware, entries, requests, 41, true, max_lines)?.lines;
    lines.extend(run_scenario(Mode::Uncompressed, hardware, entries, requests / 4 + 1, 42, true, max_lines)?.lines);
    Ok(lines)
}

/// Bits of one lock-step line.
pub fn line_bits() -> usize {
    crate::cosim::lockstep_line_bits(LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS)
}

/// The lock-step testbench of `module` (a `BuddyController` variant): see
/// [`crate::cosim::lockstep_testbench`]; the ports are
/// `buddy_hdl::buddy_controller::LOCKSTEP_INPUTS`, then `_OUTPUTS`.
pub fn lockstep_testbench(module: &str) -> String {
    crate::cosim::lockstep_testbench(module, LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS)
}

/// Entries with every kind of content: the given ones, zeros, small
/// values, and random words (RAW).
pub fn mixed_entries(entries: &[MemoryEntry], seed: u64) -> Vec<MemoryEntry> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out: Vec<MemoryEntry> = entries.iter().take(2000).copied().collect();
    for k in 0..200 {
        let words: [u32; 32] = std::array::from_fn(|i| match k % 4 {
            0 => 0,
            1 => (i as u32) * (k as u32),
            2 => rng.gen_range(0..256),
            _ => rng.gen(),
        });
        out.push(MemoryEntry::from_words(words));
    }
    out
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the serial controller slice.

/// The serial memory-controller slice as a delivered module, one instance
/// per codec it is built with.
pub mod delivered {
    use super::*;
    use crate::cosim::CosimPorts;
    use crate::decompress::StoredEntry;
    use crate::modules::{self, DeliveredModule, EquivRun, ModuleKind, VcdWriter, VectorFile};
    use crate::stream::Traffic;
    use crate::waves::{lockstep_port_names, port_groups, Filter, SignalGroup};
    use buddy_hdl::{BuddyController, BuddyControllerMagBdi, BuddyControllerZvc};
    use rayon::prelude::*;

    /// `buddy_controller[_<codec>]`: one memory-controller slice, built with
    /// the codecs of an algorithm that has hardware; serves one request at a
    /// time.
    pub struct Slice(pub HardwareCodec);

    impl DeliveredModule for Slice {
        fn ports(&self) -> CosimPorts {
            ports(self.0)
        }
        fn kind(&self) -> ModuleKind {
            ModuleKind::Slice
        }
        fn notes(&self) -> Vec<String> {
            crate::interface::slice_notes(self.0, true)
        }
        fn shipped_testbench(&self, shipped: &[usize]) -> String {
            crate::cosim::lockstep_testbench_shipped(self.name(), LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS, shipped.first().copied())
        }
        fn verilog(&self, revision: &str) -> Result<String, String> {
            let name = self.name();
            match self.0 {
                HardwareCodec::Bpc => modules::emit(BuddyController::default(), name, revision),
                HardwareCodec::Zvc => modules::emit(BuddyControllerZvc::default(), name, revision),
                HardwareCodec::MagBdi(mag) => modules::emit(BuddyControllerMagBdi::new(mag), name, revision),
            }
        }
        fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
            let mixed = mixed_entries(entries, modules::VECTOR_SEED);
            // A scenario that fails is a bug the equivalence tests report; no vectors then.
            let lines = lockstep_lines(self.0, &mixed, (entries.len() / 16).clamp(20, 400), 100_000).unwrap_or_default();
            vec![VectorFile::vectors(self.name(), lines)]
        }
        fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], _: Traffic, seed: u64) -> Result<EquivRun, String> {
            // The slice is driven by its memory models, not by random traffic.
            let mixed = mixed_entries(entries, seed);
            let requests = (entries.len() / 4).clamp(100, 2000);
            let start = std::time::Instant::now();
            let cycle_ps = SimConfig::default().cycle_ps();
            // The three modes are independent runs: a core each.
            let cycles = Mode::ALL
                .par_iter()
                .map(|&mode| {
                    let (_, rtl) = compare_engines(mode, self.0, &mixed, requests, seed)?;
                    Ok((rtl.end_ps as f64 / cycle_ps) as u64)
                })
                .sum::<Result<u64, String>>()?;
            Ok(EquivRun { inputs: 3 * requests, cycles, seconds: start.elapsed().as_secs_f64() })
        }
        fn write_vcd(&self, entries: &[MemoryEntry], vcd: VcdWriter) -> Result<(), String> {
            let setup = RtlSetup { vcd: Some(Box::new(vcd)), ..Default::default() };
            let mixed = mixed_entries(entries, modules::VCD_SEED);
            // A request per entry (at least 4, at most 50).
            let requests = entries.len().clamp(4, 50);
            run_scenario_with(Mode::Buddy, self.0, &mixed, requests, modules::VCD_SEED, Some(setup)).map(|_| ())
        }
        /// Also the groups of `buddy sim --engine rtl --rtl-slice serial`'s
        /// `slice<N>.vcd` (the same hierarchy).
        fn signal_groups(&self) -> Vec<SignalGroup> {
            let rules: &[(&str, &[&str])] = &[
                ("clock, reset, registers", &["clock", "reset", "gbbr", "carve_out_bytes", "md_base", "heap_base"]),
                ("request in", &["req_*"]),
                ("device memory", &["dev_*"]),
                ("buddy memory", &["buddy_*"]),
                ("response out", &["resp_*"]),
            ];
            let filters = [("resp_class", Filter::SizeClass), ("resp_error", Filter::SliceError)];
            let mut groups = port_groups(&lockstep_port_names(LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS), rules, &filters);
            // The slice's state machine and its metadata cache's, after the request.
            groups.insert(2, SignalGroup::new("state machines (slice, metadata cache)", &["state", "md.state"]));
            groups
        }
    }
}
