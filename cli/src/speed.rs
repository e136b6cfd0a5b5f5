//! `buddy speed`: the speed figures of issue 7 measured in one run on one
//! trace: accesses per second of the fast mode, DRAM cycles per second of
//! the fast mode with the slice hardware's timing (the same cycles as the
//! RTL mode), simulated cycles per
//! second of the RTL mode (the slices in rust-hdl: the serial
//! `BuddyController` or, with `--rtl-slice pipelined`, the
//! `PipelinedController`), and cycles per second of Verilator running the
//! emitted Verilog of that slice on the same cycles (slice 0's lock-step
//! lines of the RTL run), with the ratio.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{anyhow, bail, Context};
use buddy_delivery::cosim::{build_verilator_with, time_verilated};
use buddy_delivery::modules::DeliveredModule;
use buddy_golden::HardwareCodec;
use buddy_sim::config::{RtlSlice, SliceTiming};
use buddy_sim::memory_system::{Mode, RtlOptions};
use buddy_sim::Workload;
use serde::Serialize;

use crate::output::{out, outln, write_file, OutputDir};
use crate::revision::git_revision;

/// Arguments of `buddy speed`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload folder (as `buddy sim`) [default: the bundled data/minife-small].
    pub path: Option<PathBuf>,
    /// Controller mode of the runs.
    #[arg(long, default_value = "buddy", value_parser = ["uncompressed", "bandwidth-only", "buddy"])]
    pub mode: String,
    /// Use only the first N accesses of the trace [default: all].
    #[arg(long, value_name = "N")]
    pub accesses: Option<usize>,
    /// Lock-step lines (cycles of slice 0) Verilator replays, at most; the
    /// testbench holds 200,000.
    #[arg(long, default_value_t = 150_000, value_name = "N")]
    pub max_lines: usize,
    /// Slice hardware of the RTL mode and of the Verilator replay: `serial`
    /// (BuddyController, the figures' baseline) or `pipelined`
    /// (PipelinedController; its Verilator build takes several minutes).
    #[arg(long, default_value = "serial", value_name = "HW", value_parser = crate::sim::rtl_slice_parser())]
    pub rtl_slice: RtlSlice,
    /// Verilator optimization flag (`--opt -O3` and `--opt=-O3` both work).
    #[arg(long, default_value = "-O2", allow_hyphen_values = true, value_parser = ["-O0", "-O1", "-O2", "-O3"])]
    pub opt: String,
    /// Output folder: speed.json, and the Verilator build in `work/`
    /// (written only when the run succeeds).
    #[arg(long, default_value = "out/speed", value_name = "DIR")]
    pub out: PathBuf,
    /// Write into `--out` even when it holds files buddy did not write.
    #[arg(long)]
    pub force: bool,
    /// Print the figures as JSON (as `speed.json`) instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// The figures of one `buddy speed` run.
#[derive(Debug, Serialize)]
pub struct SpeedReport {
    pub workload: String,
    pub mode: &'static str,
    pub algorithm: &'static str,
    /// The RTL mode's slice hardware: `serial` or `pipelined`.
    pub rtl_slice: &'static str,
    pub trace_accesses: u64,
    pub requests: u64,
    /// Fast mode: runs, wall seconds summed, accesses per second.
    pub fast_runs: u32,
    pub fast_seconds: f64,
    pub fast_accesses_per_second: f64,
    /// Fast mode with the slice hardware's timing (`--slice-timing
    /// hardware`: the pipelined slice's cycle model, or the serial slice's
    /// hardware timing), which equals the RTL mode cycle for cycle: runs,
    /// wall seconds summed, the whole system's DRAM cycles per wall second,
    /// and that over the RTL mode's.
    pub hardware_timing_runs: u32,
    pub hardware_timing_seconds: f64,
    pub hardware_timing_system_cycles_per_second: f64,
    pub hardware_timing_over_rtl: f64,
    /// RTL mode (rust-hdl): cycles simulated over every slice, wall seconds, cycles per second.
    pub rtl_cycles: u64,
    pub rtl_seconds: f64,
    pub rtl_cycles_per_second: f64,
    /// The whole memory system in the RTL mode: the run's DRAM cycles
    /// (every slice, channel and the link advance together), per wall second.
    pub rtl_system_cycles: f64,
    pub rtl_system_cycles_per_second: f64,
    pub slices: u32,
    /// Verilator replay of slice 0's lock-step lines (one per cycle),
    /// excluding reading the vector file; each cycle drives every input
    /// and compares every output.
    pub verilator_opt: String,
    pub verilator_cycles: u64,
    pub verilator_seconds: f64,
    pub verilator_cycles_per_second: f64,
    pub verilator_build_seconds: f64,
    /// Verilator's cycles per second over the RTL mode's.
    pub verilator_over_rtl: f64,
}

/// Run `buddy speed`.
///
/// # Errors
/// Bad input, a failed run, Verilator missing or failing, or an output
/// that cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    let path = match &args.path {
        Some(p) => p.clone(),
        None => crate::bundled::default_workload()?,
    };
    let mode = Mode::from_name(&args.mode).with_context(|| format!("unknown mode {}", args.mode))?;
    if !(1..=200_000).contains(&args.max_lines) {
        bail!("--max-lines {} is outside 1..=200000 (the lock-step testbench's capacity)", args.max_lines);
    }
    let workload = Workload::open(&path).with_context(|| format!("cannot open workload {}", path.display()))?;
    let mut prepared = crate::sim::prepare(&workload, None, None)?;
    if let Some(n) = args.accesses {
        if n == 0 {
            bail!("--accesses must be at least 1");
        }
        prepared.trace.accesses.truncate(n);
    }
    // Verilator is needed last: find it before minutes of simulation.
    let found = std::process::Command::new("verilator").arg("--version").output();
    if !found.is_ok_and(|o| o.status.success()) {
        bail!("verilator is not installed or does not run (`make deps` installs it on Debian)");
    }
    let staging = OutputDir::prepare(&args.out, args.force)?;
    let mut config = buddy_sim::config::SimConfig::default();
    config.system.rtl_slice = args.rtl_slice;
    // Only the BPC slice is emitted as Verilog.
    let hardware = HardwareCodec::Bpc;
    let algorithm = hardware.algorithm();

    eprintln!("[1/4] fast mode, paper timing and the slice hardware's timing");
    let (mut fast_runs, mut fast_seconds, mut accesses) = (0u32, 0.0, 0u64);
    while fast_seconds < 2.0 && fast_runs < 1000 {
        let r = crate::sim::simulate(&prepared, mode, algorithm, &config, None)?;
        fast_runs += 1;
        fast_seconds += r.wall_seconds;
        accesses += r.trace_accesses;
    }

    let mut hw_config = config.clone();
    hw_config.system.slice_timing = SliceTiming::Hardware;
    let (mut hw_runs, mut hw_seconds, mut hw_cycles) = (0u32, 0.0, 0.0);
    while hw_seconds < 2.0 && hw_runs < 1000 {
        let r = crate::sim::simulate(&prepared, mode, algorithm, &hw_config, None)?;
        hw_runs += 1;
        hw_seconds += r.wall_seconds;
        hw_cycles += r.dram_cycles;
    }

    eprintln!("[2/4] RTL mode (rust-hdl)");
    let rtl_options = RtlOptions { vcd: None, no_skip: false, lockstep: None };
    let started = Instant::now();
    let timed = crate::sim::simulate(&prepared, mode, algorithm, &config, Some(rtl_options))?;
    let rtl_seconds = started.elapsed().as_secs_f64();
    let rtl_cycles = timed.rtl_simulated_cycles.unwrap_or(0);

    eprintln!("[3/4] RTL mode again, recording slice 0's lock-step lines");
    let recorded = crate::sim::simulate(
        &prepared,
        mode,
        algorithm,
        &config,
        Some(RtlOptions { vcd: None, no_skip: false, lockstep: Some((0, args.max_lines)) }),
    )?;
    let lines = recorded.lockstep_lines;
    if lines.is_empty() {
        bail!("slice 0 served no request: no cycles for Verilator to replay (use a longer trace)");
    }

    // The slice built with `hardware`, delivered or not (any MAG).
    let module: Box<dyn DeliveredModule> = match config.system.rtl_slice {
        RtlSlice::Serial => Box::new(buddy_delivery::controller::delivered::Slice(hardware)),
        RtlSlice::Pipelined => Box::new(buddy_delivery::pipelined_controller::delivered::Slice(hardware)),
    };
    let name = module.name();
    eprintln!("[4/4] Verilator {} on the emitted {name} Verilog ({} cycles)", args.opt, lines.len());
    let work = staging.path().join("work");
    std::fs::create_dir_all(&work).with_context(|| format!("cannot create {}", work.display()))?;
    let design = work.join(format!("{name}.v"));
    let testbench = work.join(format!("{name}_tb.v"));
    std::fs::write(&design, module.verilog(&git_revision()).map_err(|e| anyhow!(e))?)?;
    std::fs::write(&testbench, module.testbench())?;
    let vectors = work.join("lines.hex");
    std::fs::write(&vectors, lines.join("\n") + "\n")?;
    let built = Instant::now();
    let spinner = crate::progress::spinner(format!("building {name} with Verilator {}", args.opt));
    let exe = build_verilator_with(name, &design, &testbench, &work, &args.opt).map_err(|e| anyhow!(e));
    spinner.finish_and_clear();
    let exe = exe?;
    let verilator_build_seconds = built.elapsed().as_secs_f64();
    let plusargs = [format!("+vectors={}", vectors.display()), format!("+count={}", lines.len())];
    let (result, elapsed) = time_verilated(name, &exe, &plusargs).map_err(|e| anyhow!(e))?;
    if result.passed + result.failed != lines.len() {
        bail!("Verilator replayed {} of {} cycles:\n{}", result.passed + result.failed, lines.len(), result.log);
    }
    if result.failed > 0 {
        eprintln!(
            "warning: Verilator {} reports {} of {} cycles differing from rust-hdl (the -O0 co-simulation test is the equivalence check)",
            args.opt,
            result.failed,
            lines.len()
        );
    }
    let verilator_seconds = elapsed.as_secs_f64();
    let verilator_cycles_per_second = lines.len() as f64 / verilator_seconds.max(1e-9);
    let rtl_cycles_per_second = rtl_cycles as f64 / rtl_seconds.max(1e-9);
    let rtl_system_cycles_per_second = timed.dram_cycles / rtl_seconds.max(1e-9);
    let hardware_timing_system_cycles_per_second = hw_cycles / hw_seconds.max(1e-9);
    let report = SpeedReport {
        workload: workload.manifest().workload.clone(),
        mode: mode.name(),
        algorithm: "bpc",
        rtl_slice: args.rtl_slice.name(),
        trace_accesses: prepared.trace.accesses.len() as u64,
        requests: timed.requests,
        fast_runs,
        fast_seconds,
        fast_accesses_per_second: accesses as f64 / fast_seconds.max(1e-9),
        rtl_cycles,
        rtl_seconds,
        rtl_cycles_per_second,
        rtl_system_cycles: timed.dram_cycles,
        rtl_system_cycles_per_second,
        hardware_timing_runs: hw_runs,
        hardware_timing_seconds: hw_seconds,
        hardware_timing_system_cycles_per_second,
        hardware_timing_over_rtl: hardware_timing_system_cycles_per_second / rtl_system_cycles_per_second.max(1e-9),
        slices: config.system.slices,
        verilator_opt: args.opt.clone(),
        verilator_cycles: lines.len() as u64,
        verilator_seconds,
        verilator_cycles_per_second,
        verilator_build_seconds,
        verilator_over_rtl: verilator_cycles_per_second / rtl_cycles_per_second.max(1e-9),
    };
    write_file(&staging.path().join("speed.json"), serde_json::to_string_pretty(&report)? + "\n")?;
    let out = staging.commit()?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{}", table(&report))?;
        outln!("results: {}", out.join("speed.json").display())?;
    }
    Ok(())
}

/// The human summary of `r`.
pub fn table(r: &SpeedReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}: {} trace accesses -> {} L2 requests, {} mode, BPC, {} slice",
        r.workload, r.trace_accesses, r.requests, r.mode, r.rtl_slice
    );
    let _ = writeln!(s, "{:<34} {:>14} {:>12} {:>16}", "engine", "work", "seconds", "per second");
    let rows = [
        (
            format!("fast mode ({} runs)", r.fast_runs),
            format!("{} acc", r.trace_accesses * r.fast_runs as u64),
            r.fast_seconds,
            r.fast_accesses_per_second,
        ),
        (
            format!("fast mode, hardware timing ({} runs)", r.hardware_timing_runs),
            format!("{:.0} cyc", r.hardware_timing_system_cycles_per_second * r.hardware_timing_seconds),
            r.hardware_timing_seconds,
            r.hardware_timing_system_cycles_per_second,
        ),
        ("RTL mode (rust-hdl, every slice)".to_string(), format!("{} cyc", r.rtl_cycles), r.rtl_seconds, r.rtl_cycles_per_second),
        (
            format!("RTL mode, whole system ({} slices)", r.slices),
            format!("{:.0} cyc", r.rtl_system_cycles),
            r.rtl_seconds,
            r.rtl_system_cycles_per_second,
        ),
        (
            format!("Verilator {} (slice 0)", r.verilator_opt),
            format!("{} cyc", r.verilator_cycles),
            r.verilator_seconds,
            r.verilator_cycles_per_second,
        ),
    ];
    for (engine, work, seconds, per_second) in rows {
        let _ = writeln!(s, "{engine:<34} {work:>14} {seconds:>12.3} {per_second:>16.0}");
    }
    let _ = writeln!(
        s,
        "Verilator / RTL mode: {:.1}x cycles per second (Verilator build {:.0} s, not counted)",
        r.verilator_over_rtl, r.verilator_build_seconds
    );
    let _ = writeln!(
        s,
        "fast mode with the hardware's timing / RTL mode: {:.0}x whole-system cycles per second (the same cycles)",
        r.hardware_timing_over_rtl
    );
    s
}
