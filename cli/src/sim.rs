//! `buddy sim`: the memory system on a workload's access trace, in fast mode
//! (golden models in place of the controller hardware; see
//! `buddy_sim::memory_system`), in one or all three modes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use buddy_delivery::modules::HwModule;
use buddy_delivery::waves::write_save_file;
use buddy_golden::translation::TargetRatio;
use buddy_golden::Algorithm;
use buddy_sim::annotation::AnnotationFile;
use buddy_sim::config::{RtlSlice, SimConfig, SliceInterleave, SliceTiming};
use buddy_sim::memory_system::{run as run_sim, Mode, RtlOptions, SimInput, SimReport};
use buddy_sim::trace::{Trace, TraceSource};
use buddy_sim::Workload;
use serde::Serialize;

use crate::args::{parse_algorithm, DEFAULT_ALGORITHM};
use crate::output::{out, outln, write_file, OutputDir};

/// Arguments of `buddy sim`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload folder with manifest.json, snapshots, trace.bin and
    /// trace_meta.json; without the trace files, a snapshot sweep (every
    /// memory-entry read, then written) is replayed instead [default: the
    /// bundled data/minife-small].
    pub path: Option<PathBuf>,
    /// Controller mode, or `all` for the three.
    #[arg(long, default_value = "all", value_parser = ["uncompressed", "bandwidth-only", "buddy", "all"])]
    pub mode: String,
    /// TOML file overriding any default parameter (see README); the
    /// effective values are written to `<out>/config.toml`.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Target ratios per allocation (`buddy profile`); without it every allocation is 2x.
    #[arg(long, value_name = "FILE")]
    pub annotation: Option<PathBuf>,
    /// Compression algorithm of the controllers.
    #[arg(long, default_value_t = DEFAULT_ALGORITHM, value_parser = parse_algorithm)]
    pub algo: Algorithm,
    /// Manifest index of the snapshot memory starts from (stores write the
    /// next snapshot's bytes) [default: the first].
    #[arg(long, value_name = "N")]
    pub snapshot: Option<usize>,
    /// Override the NVLink bandwidth per direction, GB/s.
    #[arg(long, value_name = "GBPS")]
    pub link_gbps: Option<f64>,
    /// Output folder (written only when the run succeeds; an existing
    /// folder holding files buddy did not write needs `--force`).
    #[arg(long, default_value = "out/sim", value_name = "DIR")]
    pub out: PathBuf,
    /// Write into `--out` even when it holds files buddy did not write.
    #[arg(long)]
    pub force: bool,
    /// Print the JSON reports instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// `fast`: golden models in place of the controllers; `rtl`: every
    /// slice's hardware simulated in rust-hdl (see `--rtl-slice`).
    #[arg(long, default_value = "fast", value_parser = ["fast", "rtl"])]
    pub engine: String,
    /// Times the trace is replayed back to back (an iterative program's
    /// steady state: the L2 and the metadata cache warm).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub iterations: u32,
    /// The slice hardware of `--engine rtl` and of `--slice-timing
    /// hardware` (overrides `system.rtl_slice`): `pipelined`
    /// (PipelinedController, up to 128 requests in flight; the default) or
    /// `serial` (BuddyController, one request at a time). An RTL run is
    /// compared with the fast engine's timing of the same hardware.
    #[arg(long, value_name = "HW", value_parser = rtl_slice_parser())]
    pub rtl_slice: Option<RtlSlice>,
    /// Fast engine's controller timing (overrides `system.slice_timing`):
    /// `paper` (requests overlap in a slice, the paper's model) or
    /// `hardware` (the cycles of the slice hardware `--rtl-slice` names, as
    /// the RTL engine: the PipelinedController's cycle model by default).
    #[arg(long, value_name = "TIMING", value_parser = slice_timing_parser())]
    pub slice_timing: Option<SliceTiming>,
    /// RTL engine: write `<out>/vcd/<mode>/slice<N>.vcd` with the slice
    /// clock cycles from `--vcd-from` to `--vcd-to` (inclusive), each with
    /// a GTKWave save file `slice<N>.gtkw` and its translate filters.
    #[arg(long, value_name = "CYCLE", requires = "vcd_to")]
    pub vcd_from: Option<u64>,
    /// Last cycle of the VCD window (see `--vcd-from`).
    #[arg(long, value_name = "CYCLE", requires = "vcd_from")]
    pub vcd_to: Option<u64>,
}

/// Everything a run needs besides the configuration, loaded and checked
/// before any simulation.
pub struct Prepared<'a> {
    pub workload: &'a Workload,
    pub trace: Trace,
    pub targets: Option<Vec<TargetRatio>>,
    pub snapshot: usize,
    /// Times the trace is replayed ([`SimInput::iterations`]).
    pub iterations: u32,
}

/// Load `workload`'s trace (a [`Trace::snapshot_sweep`] when the folder has
/// no `trace.bin` and no `trace_meta.json`) and the annotation, and resolve
/// the snapshot (whether the trace fits the workload is the simulator's
/// first check).
///
/// # Errors
/// A missing or invalid trace or annotation, or an unknown snapshot index.
pub fn prepare<'a>(workload: &'a Workload, annotation: Option<&Path>, snapshot: Option<usize>) -> anyhow::Result<Prepared<'a>> {
    let path = workload.path();
    let manifest = workload.manifest();
    let recorded = ["trace.bin", "trace_meta.json"].iter().any(|f| path.join(f).exists());
    let trace = if recorded {
        Trace::open(path).with_context(|| format!("cannot read the access trace of {}", path.display()))?
    } else {
        let first = manifest.snapshots.first().context("the manifest lists no snapshot")?;
        let allocations: Vec<(String, u64)> = first.allocations.iter().map(|a| (a.name.clone(), a.size)).collect();
        eprintln!("{}: no access trace (trace.bin): replaying a snapshot sweep (every memory-entry read, then written with the next snapshot's bytes)", path.display());
        Trace::snapshot_sweep(&allocations)
    };
    let names: Vec<String> = manifest.snapshots[0].allocations.iter().map(|a| a.name.clone()).collect();
    let targets = annotation
        .map(|a| -> anyhow::Result<Vec<TargetRatio>> {
            let file = AnnotationFile::read(a)?;
            if file.workload != manifest.workload {
                bail!("annotation {} is for workload '{}', not '{}'", a.display(), file.workload, manifest.workload);
            }
            Ok(file.targets(a, &manifest.workload, &names)?)
        })
        .transpose()?;
    let position = match snapshot {
        None => 0,
        Some(index) => manifest.snapshots.iter().position(|s| s.index == index).with_context(|| {
            let have: Vec<String> = manifest.snapshots.iter().map(|s| s.index.to_string()).collect();
            format!("no snapshot with index {index} (available: {})", have.join(", "))
        })?,
    };
    Ok(Prepared { workload, trace, targets, snapshot: position, iterations: 1 })
}

/// Run `prepared` in `mode`.
///
/// # Errors
/// What the simulator reports (data mismatch, fault, bad input).
pub fn simulate(p: &Prepared, mode: Mode, algorithm: Algorithm, config: &SimConfig, rtl: Option<RtlOptions>) -> anyhow::Result<SimReport> {
    simulate_with(p, mode, algorithm, config, rtl, indicatif::ProgressBar::new(p.trace.accesses.len() as u64 * u64::from(p.iterations)))
}

/// [`simulate`] of each of `modes`, each on a thread of its own (the runs
/// share nothing but their input, so the reports are those of one run
/// after the other), in the order of `modes`; `rtl(mode)` gives each
/// run's RTL options.
///
/// # Errors
/// The first run that fails, in the order of `modes`.
pub fn simulate_modes(
    p: &Prepared,
    modes: &[Mode],
    algorithm: Algorithm,
    config: &SimConfig,
    rtl: impl Fn(Mode) -> Option<RtlOptions>,
) -> anyhow::Result<Vec<SimReport>> {
    // One bar per run, drawn together on stderr when it is a terminal.
    let bars = indicatif::MultiProgress::new();
    std::thread::scope(|scope| {
        let runs: Vec<_> = modes
            .iter()
            .map(|&mode| {
                let bar = bars.add(indicatif::ProgressBar::new(p.trace.accesses.len() as u64 * u64::from(p.iterations)));
                let rtl = rtl(mode);
                std::thread::Builder::new()
                    // As the main thread's: the RTL engine's slices are large values.
                    .stack_size(64 << 20)
                    .spawn_scoped(scope, move || simulate_with(p, mode, algorithm, config, rtl, bar))
                    .context("cannot start a simulation thread")
            })
            .collect();
        runs.into_iter().map(|run| run?.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}

fn simulate_with(
    p: &Prepared,
    mode: Mode,
    algorithm: Algorithm,
    config: &SimConfig,
    rtl: Option<RtlOptions>,
    bar: indicatif::ProgressBar,
) -> anyhow::Result<SimReport> {
    // Drawn on stderr only when it is a terminal, and cleared at the end.
    bar.set_style(
        indicatif::ProgressStyle::with_template("{msg} {bar:40} {human_pos}/{human_len} accesses ({eta})")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(format!("{} mode{}", mode.name(), if rtl.is_some() { " (RTL)" } else { "" }));
    let progress = |n: u64| bar.set_position(n);
    let input = SimInput {
        workload: p.workload,
        trace: &p.trace,
        targets: p.targets.clone(),
        snapshot: p.snapshot,
        algorithm,
        mode,
        config,
        progress: Some(&progress),
        corrupt_first_entry: false,
        rtl,
        iterations: p.iterations,
    };
    let report = run_sim(&input).with_context(|| format!("{} mode", mode.name()));
    bar.finish_and_clear();
    report
}

/// The summary table of some runs of one workload.
pub fn table(reports: &[SimReport]) -> String {
    let mut s = String::new();
    let Some(first) = reports.first() else {
        return s;
    };
    let _ = writeln!(
        s,
        "{}: {} {} accesses -> {} L2 requests ({} reads, {} writes), {} size classes, {}",
        first.workload,
        first.trace_accesses,
        if first.trace_source == TraceSource::SnapshotSweep { "snapshot-sweep" } else { "trace" },
        first.requests,
        first.reads,
        first.writes,
        first.algorithm,
        match (first.engine, first.slice_timing.as_str()) {
            ("rtl", "hardware") => "RTL mode (BuddyController hardware in rust-hdl, one request at a time per slice)",
            ("rtl", _) => "RTL mode (PipelinedController hardware in rust-hdl)",
            (_, "hardware") => "fast mode (golden models, BuddyController timing)",
            (_, "pipelined hardware") => "fast mode (golden models, PipelinedController timing: its cycle model)",
            _ => "fast mode (golden models, the paper's timing)",
        }
    );
    let _ = writeln!(
        s,
        "{:<15} {:>11} {:>8} {:>11} {:>10} {:>7} {:>9} {:>9} {:>9} {:>9} {:>7} {:>10}",
        "mode",
        "DRAM cycles",
        "speedup",
        "device MB",
        "buddy MB",
        "buddy%",
        "md hit%",
        "lat ns",
        "p99 ns",
        "link rd%",
        "ratio",
        "energy uJ"
    );
    let base = reports.iter().find(|r| r.mode == Mode::Uncompressed).map(|r| r.time_ns);
    for r in reports {
        let _ = writeln!(
            s,
            "{:<15} {:>11.0} {:>8} {:>11.3} {:>10.3} {:>7.3} {:>9} {:>9.1} {:>9.1} {:>9.2} {:>7.3} {:>10.3}",
            r.mode.name(),
            r.dram_cycles,
            base.map_or_else(|| "-".into(), |b| format!("{:.3}", b / r.time_ns)),
            r.device_bytes as f64 / 1e6,
            (r.link.read_bytes + r.link.write_bytes) as f64 / 1e6,
            100.0 * r.buddy_access_fraction,
            r.metadata_hit_rate.map_or_else(|| "-".into(), |h| format!("{:.2}", 100.0 * h)),
            r.read_latency_mean_ns,
            r.read_latency_p99_ns,
            100.0 * r.link_read_utilization,
            r.compression_ratio,
            r.energy.total_pj / 1e6,
        );
    }
    let checked: u64 = reports.iter().map(|r| r.checked_reads).sum();
    let entries: u64 = reports.iter().map(|r| r.checked_entries).sum();
    let _ = writeln!(s, "data: {checked} read responses and {entries} final entries checked against the shadow memory, 0 mismatches");
    s
}

#[derive(Serialize)]
struct CsvRow<'a> {
    workload: &'a str,
    mode: &'a str,
    algorithm: &'a str,
    link_gbps: f64,
    trace_accesses: u64,
    requests: u64,
    reads: u64,
    writes: u64,
    partial_writes: u64,
    time_ns: f64,
    dram_cycles: f64,
    device_bytes: u64,
    device_activations: u64,
    buddy_read_bytes: u64,
    buddy_write_bytes: u64,
    buddy_access_fraction: f64,
    metadata_hit_rate: Option<f64>,
    read_latency_mean_ns: f64,
    read_latency_p99_ns: f64,
    link_read_utilization: f64,
    link_write_utilization: f64,
    compression_ratio: f64,
    dram_energy_pj: f64,
    link_energy_pj: f64,
    buddy_memory_energy_pj: f64,
    accesses_per_second: f64,
}

/// One CSV row per report.
///
/// # Errors
/// Serialization failure.
pub fn csv(reports: &[(f64, &SimReport)]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for (gbps, r) in reports {
        w.serialize(CsvRow {
            workload: &r.workload,
            mode: r.mode.name(),
            algorithm: &r.algorithm,
            link_gbps: *gbps,
            trace_accesses: r.trace_accesses,
            requests: r.requests,
            reads: r.reads,
            writes: r.writes,
            partial_writes: r.partial_writes,
            time_ns: r.time_ns,
            dram_cycles: r.dram_cycles,
            device_bytes: r.device_bytes,
            device_activations: r.device.activations,
            buddy_read_bytes: r.link.read_bytes,
            buddy_write_bytes: r.link.write_bytes,
            buddy_access_fraction: r.buddy_access_fraction,
            metadata_hit_rate: r.metadata_hit_rate,
            read_latency_mean_ns: r.read_latency_mean_ns,
            read_latency_p99_ns: r.read_latency_p99_ns,
            link_read_utilization: r.link_read_utilization,
            link_write_utilization: r.link_write_utilization,
            compression_ratio: r.compression_ratio,
            dram_energy_pj: r.energy.dram_pj,
            link_energy_pj: r.energy.link_pj,
            buddy_memory_energy_pj: r.energy.buddy_memory_pj,
            accesses_per_second: r.accesses_per_second,
        })?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

fn epochs_csv(reports: &[SimReport]) -> anyhow::Result<String> {
    #[derive(Serialize)]
    struct Row<'a> {
        mode: &'a str,
        requests: u64,
        end_ns: f64,
        device_bytes: u64,
        buddy_bytes: u64,
        buddy_requests: u64,
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in reports {
        for e in &r.epochs {
            w.serialize(Row {
                mode: r.mode.name(),
                requests: e.requests,
                end_ns: e.end_ns,
                device_bytes: e.device_bytes,
                buddy_bytes: e.buddy_bytes,
                buddy_requests: e.buddy_requests,
            })?;
        }
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// Read `--config` (or the defaults) and apply `--link-gbps`.
///
/// # Errors
/// The file cannot be read, or a key or value is invalid.
pub fn load_config(path: Option<&Path>, link_gbps: Option<f64>) -> anyhow::Result<SimConfig> {
    let mut config = match path {
        Some(p) => SimConfig::read(p)?,
        None => SimConfig::default(),
    };
    if let Some(g) = link_gbps {
        config.nvlink.gbps = g;
        config.validate().context("--link-gbps")?;
    }
    Ok(config)
}

/// Run `buddy sim`.
///
/// # Errors
/// Bad input (reported before any run) or a failed run.
pub fn run(args: Args) -> anyhow::Result<()> {
    let path = match &args.path {
        Some(p) => p.clone(),
        None => crate::bundled::default_workload()?,
    };
    let mut config = load_config(args.config.as_deref(), args.link_gbps)?;
    if let Some(t) = args.slice_timing {
        if args.engine == "rtl" && t != SliceTiming::Hardware {
            bail!("--slice-timing {} is for the fast engine; the RTL engine has the hardware's timing", t.name());
        }
        config.system.slice_timing = t;
    }
    if let Some(h) = args.rtl_slice {
        if args.engine != "rtl" && config.system.slice_timing != SliceTiming::Hardware {
            bail!("--rtl-slice {} is for --engine rtl or --slice-timing hardware", h.name());
        }
        config.system.rtl_slice = h;
    }
    let workload = Workload::open(&path).with_context(|| format!("cannot open workload {}", path.display()))?;
    let mut prepared = prepare(&workload, args.annotation.as_deref(), args.snapshot)?;
    prepared.iterations = args.iterations;
    let modes: Vec<Mode> = match args.mode.as_str() {
        "all" => Mode::ALL.to_vec(),
        name => vec![Mode::from_name(name).with_context(|| format!("unknown mode {name}"))?],
    };
    if args.engine != "rtl" && args.vcd_from.is_some() {
        bail!("--vcd-from/--vcd-to need --engine rtl (the fast engine has no hardware to trace)");
    }
    if let (Some(from), Some(to)) = (args.vcd_from, args.vcd_to) {
        if from > to {
            bail!("--vcd-from {from} is after --vcd-to {to}");
        }
    }
    if args.engine == "rtl" || config.system.slice_timing == SliceTiming::Hardware {
        // The RTL engine and the hardware timing are built from the algorithm's hardware.
        let what = if args.engine == "rtl" { "--engine rtl" } else { "system.slice_timing = \"hardware\"" };
        args.algo.require_hardware().with_context(|| format!("{what} with --algo {}", args.algo))?;
    }
    if args.engine == "rtl" {
        config.validate_for_hardware().context("--engine rtl")?;
    }
    let out = OutputDir::prepare(&args.out, args.force)?;
    let reports = simulate_modes(&prepared, &modes, args.algo, &config, |m| {
        (args.engine == "rtl").then(|| RtlOptions {
            vcd: args.vcd_from.zip(args.vcd_to).map(|(f, t)| (out.path().join("vcd").join(m.name()), f, t)),
            no_skip: false,
            lockstep: None,
        })
    })?;
    let dir = out.path();
    if args.vcd_from.is_some() {
        // A GTKWave save file beside every slice's VCD, grouped as the slice's ports are.
        let slice = HwModule::slice(args.algo.require_hardware()?, config.system.rtl_slice == RtlSlice::Pipelined);
        for r in &reports {
            for i in (0..config.system.slices as usize).filter(|i| !r.vcd_idle_slices.contains(i)) {
                let vcd = dir.join("vcd").join(r.mode.name()).join(format!("slice{i}.vcd"));
                let title = format!("{} slice {i} ({} mode)", slice.name(), r.mode.name());
                write_save_file(&vcd, &slice.signal_groups(), &title).map_err(anyhow::Error::msg)?;
            }
        }
    }
    write_file(&dir.join("config.toml"), config.to_toml())?;
    write_file(&dir.join("sim.json"), serde_json::to_string_pretty(&reports)? + "\n")?;
    let rows: Vec<(f64, &SimReport)> = reports.iter().map(|r| (config.nvlink.gbps, r)).collect();
    write_file(&dir.join("sim.csv"), csv(&rows)?)?;
    write_file(&dir.join("epochs.csv"), epochs_csv(&reports)?)?;
    let mut text = table(&reports);
    if let (Some(from), Some(to)) = (args.vcd_from, args.vcd_to) {
        // Which slices have a VCD: one idle through the window has none.
        for r in &reports {
            let idle = &r.vcd_idle_slices;
            let dir = args.out.join("vcd").join(r.mode.name());
            let written: Vec<String> =
                (0..config.system.slices as usize).filter(|i| !idle.contains(i)).map(|i| format!("slice{i}.vcd")).collect();
            text += &format!("VCD {} (cycles {from}..={to}, DRAM clock {} MHz): ", r.mode.name(), config.hbm.clock_mhz);
            if !written.is_empty() {
                text += &format!("{} in {} (each with a GTKWave save file, .gtkw)", written.join(", "), dir.display());
            }
            if !idle.is_empty() {
                let idle: Vec<String> = idle.iter().map(|i| i.to_string()).collect();
                let sep = if written.is_empty() { "" } else { "; " };
                text += &format!("{sep}slices {} idle in the window (no cycle simulated): no VCD written", idle.join(", "));
            }
            text += "\n";
        }
    }
    if args.engine != "rtl" {
        text += &accept_wait_table(&reports);
    }
    let mut files = "sim.json, sim.csv, epochs.csv, summary.txt, config.toml";
    if args.engine == "rtl" {
        // Every RTL run checks itself against the fast mode with the hardware's timing.
        let mut timed = config.clone();
        timed.system.slice_timing = SliceTiming::Hardware;
        let fast = simulate_modes(&prepared, &modes, args.algo, &timed, |_| None)?;
        let rows: Vec<_> = reports.iter().zip(&fast).map(|(r, f)| Agreement::of(r, f)).collect();
        write_file(&dir.join("agreement.json"), serde_json::to_string_pretty(&rows)? + "\n")?;
        text += &agreement_table(&rows);
        text += &accept_wait_table(&fast);
        files = "sim.json, sim.csv, epochs.csv, summary.txt, agreement.json, config.toml";
    }
    if args.engine == "rtl" && config.system.rtl_slice == RtlSlice::Pipelined {
        // The pipelined slice set beside the paper's timing it should come near.
        let mut paper = config.clone();
        paper.system.slice_timing = SliceTiming::Paper;
        let fast = simulate_modes(&prepared, &modes, args.algo, &paper, |_| None)?;
        let rows: Vec<_> = reports.iter().zip(&fast).map(|(r, f)| PaperComparison::of(r, f, config.cycle_ps())).collect();
        write_file(&dir.join("paper_timing.json"), serde_json::to_string_pretty(&rows)? + "\n")?;
        text += &paper_table(&rows);
        files = "sim.json, sim.csv, epochs.csv, summary.txt, agreement.json, paper_timing.json, config.toml";
    }
    // The RTL engine's and the cycle model's (`--slice-timing hardware`).
    text += &pipelined_table(&reports, config.cycle_ps());
    write_file(&dir.join("summary.txt"), &text)?;
    let out = out.commit()?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&reports)?)?;
    } else {
        out!("{text}")?;
        outln!("results: {} ({files})", out.display())?;
    }
    Ok(())
}

/// An RTL run against the fast mode with `system.slice_timing = "hardware"`.
#[derive(Debug, Serialize)]
pub struct Agreement {
    pub mode: &'static str,
    pub rtl_dram_cycles: f64,
    pub fast_dram_cycles: f64,
    /// (fast - RTL) / RTL.
    pub cycle_difference: f64,
    /// Requests, device and link traffic, metadata cache counters, buddy
    /// requests, energy, latencies, the per-epoch series and the pipelined
    /// slice's counters (`pipelined_slice`) are all equal.
    pub identical_statistics: bool,
    /// The statistics that differ, by name.
    pub differing: Vec<&'static str>,
}

impl Agreement {
    /// Compare the RTL report `rtl` with the fast report `fast`.
    pub fn of(rtl: &SimReport, fast: &SimReport) -> Self {
        let checks: [(&'static str, bool); 10] = [
            ("requests", (rtl.reads, rtl.writes, rtl.partial_writes) == (fast.reads, fast.writes, fast.partial_writes)),
            ("time", rtl.time_ns == fast.time_ns),
            ("device", rtl.device == fast.device),
            ("link", rtl.link == fast.link),
            ("metadata", rtl.metadata == fast.metadata),
            ("buddy_requests", rtl.buddy_requests == fast.buddy_requests),
            ("energy", rtl.energy == fast.energy),
            ("read_latency", (rtl.read_latency_mean_ns, rtl.read_latency_p99_ns) == (fast.read_latency_mean_ns, fast.read_latency_p99_ns)),
            ("epochs", rtl.epochs == fast.epochs),
            ("pipelined_slice", rtl.pipelined_slice == fast.pipelined_slice),
        ];
        let differing: Vec<&'static str> = checks.iter().filter(|c| !c.1).map(|c| c.0).collect();
        Agreement {
            mode: rtl.mode.name(),
            rtl_dram_cycles: rtl.dram_cycles,
            fast_dram_cycles: fast.dram_cycles,
            cycle_difference: (fast.dram_cycles - rtl.dram_cycles) / rtl.dram_cycles.max(1.0),
            identical_statistics: differing.is_empty(),
            differing,
        }
    }
}

/// An RTL run of the pipelined slice beside the fast engine's paper timing.
#[derive(Debug, Serialize)]
pub struct PaperComparison {
    pub mode: &'static str,
    pub rtl_dram_cycles: f64,
    pub paper_dram_cycles: f64,
    /// RTL / paper.
    pub ratio: f64,
    /// Device and link bytes, RTL and paper.
    pub rtl_device_bytes: u64,
    pub paper_device_bytes: u64,
    pub rtl_link_bytes: u64,
    pub paper_link_bytes: u64,
    /// The metadata cache's counters are the same (the hardware's lookups
    /// are golden's, in request order).
    pub same_metadata: bool,
    /// Mean read latency from the L2 miss (ns), RTL and paper.
    pub rtl_read_latency_ns: f64,
    pub paper_read_latency_ns: f64,
    /// The reads that moved data, and their mean time in the slice in DRAM
    /// cycles, cut as `ReadSplit` cuts it: [to their first memory request,
    /// in memory, after], RTL and paper.
    pub rtl_moved_reads: u64,
    pub paper_moved_reads: u64,
    pub rtl_read_split_cycles: [f64; 3],
    pub paper_read_split_cycles: [f64; 3],
}

impl PaperComparison {
    /// Set the RTL report `rtl` beside the paper-timing report `paper`
    /// (DRAM cycles of `cycle_ps` picoseconds).
    pub fn of(rtl: &SimReport, paper: &SimReport, cycle_ps: f64) -> Self {
        let split = |r: &SimReport| {
            let s = r.read_split.unwrap_or_default();
            let (a, b, c) = s.mean_cycles(cycle_ps);
            (s.reads, [a, b, c])
        };
        let ((rtl_moved_reads, rtl_read_split_cycles), (paper_moved_reads, paper_read_split_cycles)) = (split(rtl), split(paper));
        PaperComparison {
            mode: rtl.mode.name(),
            rtl_dram_cycles: rtl.dram_cycles,
            paper_dram_cycles: paper.dram_cycles,
            ratio: rtl.dram_cycles / paper.dram_cycles.max(1.0),
            rtl_device_bytes: rtl.device_bytes,
            paper_device_bytes: paper.device_bytes,
            rtl_link_bytes: rtl.link.read_bytes + rtl.link.write_bytes,
            paper_link_bytes: paper.link.read_bytes + paper.link.write_bytes,
            same_metadata: rtl.metadata == paper.metadata,
            rtl_read_latency_ns: rtl.read_latency_mean_ns,
            paper_read_latency_ns: paper.read_latency_mean_ns,
            rtl_moved_reads,
            paper_moved_reads,
            rtl_read_split_cycles,
            paper_read_split_cycles,
        }
    }
}

/// Why requests waited to be taken by the pipelined slices (the cycle
/// model's diagnosis, in reports that carry it): per mode, the slice
/// cycles summed over the slices and the largest reasons' shares.
pub fn accept_wait_table(reports: &[SimReport]) -> String {
    let mut s = String::new();
    for r in reports {
        let Some(waits) = &r.accept_waits else { continue };
        if s.is_empty() {
            s += "requests offered and not taken by the pipelined slices (slice cycles over all slices; the cycle model's diagnosis):\n";
        }
        let total: u64 = waits.values().sum();
        let mut by_size: Vec<(&String, &u64)> = waits.iter().collect();
        by_size.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let shares: Vec<String> =
            by_size.iter().take(5).map(|(why, &n)| format!("{why} {:.1}%", 100.0 * n as f64 / total.max(1) as f64)).collect();
        let _ = writeln!(s, "{:<15} {:>9} cycles: {}", r.mode.name(), total, shares.join("; "));
    }
    s
}

/// The paper-timing lines of the summary.
pub fn paper_table(rows: &[PaperComparison]) -> String {
    let mut s = String::from(
        "RTL (pipelined slice) against the fast engine's paper timing (the idealized controller it is measured against):\n",
    );
    for a in rows {
        let _ = writeln!(
            s,
            "{:<15} {:>11.0} vs {:>11.0} DRAM cycles ({:.3}x), device {} vs {} B, link {} vs {} B, metadata counters {}",
            a.mode,
            a.rtl_dram_cycles,
            a.paper_dram_cycles,
            a.ratio,
            a.rtl_device_bytes,
            a.paper_device_bytes,
            a.rtl_link_bytes,
            a.paper_link_bytes,
            if a.same_metadata { "equal" } else { "differ" }
        );
        let [r, p] = [a.rtl_read_split_cycles, a.paper_read_split_cycles];
        let _ = writeln!(
            s,
            "{:<15} reads {:.1} vs {:.1} ns from the L2 miss; in the slice, {} vs {} reads that moved data, DRAM cycles each: {:.1} vs {:.1} to their first memory request, {:.1} vs {:.1} in memory, {:.1} vs {:.1} after",
            "", a.rtl_read_latency_ns, a.paper_read_latency_ns, a.rtl_moved_reads, a.paper_moved_reads, r[0], p[0], r[1], p[1], r[2], p[2]
        );
    }
    s
}

/// Where the pipelined slices' cycles went, per mode (means per request or
/// per sector; slice cycles): empty unless a report has the pipelined
/// slice's counters (the RTL engine or `--slice-timing hardware`).
pub fn pipelined_table(reports: &[SimReport], cycle_ps: f64) -> String {
    if reports.iter().all(|r| r.pipelined_slice.is_none()) {
        return String::new();
    }
    let mut s = String::from("pipelined slices (sums over slices; means in slice cycles):\n");
    for r in reports {
        let Some(p) = r.pipelined_slice else { continue };
        let per = |a: u64, b: u64| a as f64 / b.max(1) as f64;
        let (to_memory, in_memory, after) = p.reads.mean_cycles(cycle_ps);
        let _ = writeln!(
            s,
            "{:<15} wait to be taken {:>6.1}, held {:>6.1} per request (with a lookup: {:>6.1} to its answer, {:>6.1} after); reads that moved data ({}): {:>6.1} to their first memory request, {:>6.1} in memory (until a port takes the last answer), {:>5.1} after; device port {} sectors in {} requests ({:.1}% of slice cycles), answers wait {:>5.1}; buddy port {} sectors, answers wait {:>5.1}",
            r.mode.name(),
            per(p.accept_wait_cycles, p.requests),
            per(p.context_cycles, p.requests),
            per(p.lookup_cycles, p.lookups),
            per(p.after_lookup_cycles, p.lookups),
            p.reads.reads,
            to_memory,
            in_memory,
            after,
            p.device_sectors,
            p.device_requests,
            100.0 * per(p.device_requests, (r.dram_cycles as u64).max(1) * (r.device_banks_used.len() as u64 / 4).max(1)),
            per(p.device_answer_wait_cycles, p.device_answers),
            p.buddy_sectors,
            per(p.buddy_answer_wait_cycles, p.buddy_answers),
        );
    }
    s
}

/// The agreement lines of the summary.
pub fn agreement_table(rows: &[Agreement]) -> String {
    let mut s = String::from("RTL against fast mode with hardware timing:\n");
    for a in rows {
        let _ = writeln!(
            s,
            "{:<15} {:>11.0} vs {:>11.0} DRAM cycles ({:+.4}%), {}",
            a.mode,
            a.rtl_dram_cycles,
            a.fast_dram_cycles,
            100.0 * a.cycle_difference,
            if a.identical_statistics {
                "every statistic identical".to_string()
            } else {
                format!("differs in: {}", a.differing.join(", "))
            }
        );
    }
    s
}

/// `--slice-timing`'s values, as the config names them.
pub fn slice_timing_parser() -> impl clap::builder::TypedValueParser<Value = SliceTiming> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(SliceTiming::ALL.map(SliceTiming::name))
        .map(|s: String| SliceTiming::from_name(&s).expect("a possible value"))
}

/// `--slice-interleave`'s values, as the config names them.
pub fn slice_interleave_parser() -> impl clap::builder::TypedValueParser<Value = SliceInterleave> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(SliceInterleave::ALL.map(SliceInterleave::name))
        .map(|s: String| SliceInterleave::from_name(&s).expect("a possible value"))
}

/// `--rtl-slice`'s values, as the config names them.
pub fn rtl_slice_parser() -> impl clap::builder::TypedValueParser<Value = RtlSlice> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(RtlSlice::ALL.map(RtlSlice::name))
        .map(|s: String| RtlSlice::from_name(&s).expect("a possible value"))
}
