//! `buddy run`: the main job on one workload, everything into one folder:
//! emit the Verilog, check the hardware against the golden model (with VCDs),
//! and run the compression study and the memory system.
//!
//! `REPORT.md` leads with a summary (did every module match golden, the
//! compression ratios, the memory system's speedups, where each output is,
//! each step's wall time); the step-by-step detail and the file list follow.

use anyhow::{anyhow, Context};
use buddy_delivery::stream::Traffic;
use buddy_golden::Algorithm;
use buddy_sim::compression_study::CompressionStudy;
use buddy_sim::memory_system::{Mode, SimReport};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::args::DEFAULT_ALGORITHM;
use crate::equiv::ModuleResult;
use crate::output::{out, outln, write_file, OutputDir};
use crate::revision::git_revision;

/// The heading of `REPORT.md`'s first section (`cli/tests/run.rs` checks it comes first).
const SUMMARY_HEADING: &str = "## Summary";

/// Arguments of `buddy run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload folder or raw file of 128-byte entries [default: the bundled data/minife-small].
    pub path: Option<PathBuf>,
    /// Output folder (written only when every step succeeds; an existing
    /// folder holding files buddy did not write needs `--force`).
    #[arg(long, default_value = "out", value_name = "DIR")]
    pub out: PathBuf,
    /// Write into `--out` even when it holds files buddy did not write.
    #[arg(long)]
    pub force: bool,
}

/// One step's name and wall time in seconds.
struct Step {
    name: &'static str,
    seconds: f64,
}

/// Time `f` as the step `name`, announcing it on stderr.
fn step<T>(steps: &mut Vec<Step>, name: &'static str, f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    eprintln!("[{}/4] {name}", steps.len() + 1);
    let start = Instant::now();
    let value = f()?;
    steps.push(Step { name, seconds: start.elapsed().as_secs_f64() });
    Ok(value)
}

/// Run the main job.
///
/// # Errors
/// The workload, its trace or the output folder is bad (found before any
/// work), or a step fails; the outputs are moved into `--out` only when
/// every step succeeded, so a failed run leaves the folder as it was.
pub fn run(args: Args) -> anyhow::Result<()> {
    let started = Instant::now();
    let path = match args.path {
        Some(p) => p,
        None => crate::bundled::default_workload()?,
    };
    // The bundled workload's path runs through the binary's folder: name it plainly.
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    let workload = buddy_sim::Workload::open(&path).with_context(|| format!("cannot open workload {}", path.display()))?;
    let prepared = crate::sim::prepare(&workload, None, None)?;
    let staging = OutputDir::prepare(&args.out, args.force)?;
    let out = staging.path();
    let mut steps = Vec::new();

    let files = step(&mut steps, "emitting Verilog", || {
        buddy_delivery::delivery::write_all(&out.join("verilog"), &git_revision()).map_err(|e| anyhow!(e))
    })?;

    let results = step(&mut steps, "checking the rust-hdl modules against the golden model", || {
        eprintln!("      on {}, every core", path.display());
        let results = crate::equiv::check_workload(&workload, Traffic::RANDOM, Some((&out.join("vcd"), 16)))?;
        write_file(&out.join("equivalence.json"), serde_json::to_string_pretty(&results)? + "\n")?;
        Ok(results)
    })?;

    let (study, compression_text) = step(&mut steps, "compression study (every algorithm)", || {
        let (study, text, json) = crate::compress::reports(&workload, &Algorithm::ALL)?;
        write_file(&out.join("compression.txt"), &text)?;
        write_file(&out.join("compression.json"), json)?;
        Ok((study, text))
    })?;

    // The whole memory system on the workload's trace (a snapshot sweep
    // when it has none).
    let (reports, sim_text) = step(&mut steps, "memory system (fast mode, every mode)", || {
        let config = buddy_sim::config::SimConfig::default();
        let reports = crate::sim::simulate_modes(&prepared, &Mode::ALL, DEFAULT_ALGORITHM, &config, |_| None)?;
        std::fs::create_dir_all(out.join("sim")).context("cannot create sim/")?;
        write_file(&out.join("sim/sim.json"), serde_json::to_string_pretty(&reports)? + "\n")?;
        write_file(&out.join("sim/config.toml"), config.to_toml())?;
        let rows: Vec<_> = reports.iter().map(|r| (config.nvlink.gbps, r)).collect();
        write_file(&out.join("sim/sim.csv"), crate::sim::csv(&rows)?)?;
        let text = crate::sim::table(&reports);
        Ok((reports, text))
    })?;

    let summary = Summary {
        path: &path,
        results: &results,
        study: &study,
        reports: &reports,
        steps: &steps,
        total_seconds: started.elapsed().as_secs_f64(),
    };
    let report = report(&summary, &compression_text, &sim_text, &files);
    write_file(&out.join("REPORT.md"), report)?;
    let out = staging.commit()?;
    out!("{}", crate::equiv::table(&results))?;
    outln!("report: {}", out.join("REPORT.md").display())?;
    Ok(())
}

/// What the summary is made of.
struct Summary<'a> {
    path: &'a Path,
    results: &'a [ModuleResult],
    study: &'a CompressionStudy,
    reports: &'a [SimReport],
    steps: &'a [Step],
    total_seconds: f64,
}

/// `REPORT.md`: the summary first (one screen), then each step's detail,
/// then the list of files.
fn report(s: &Summary<'_>, compression_text: &str, sim_text: &str, files: &[String]) -> String {
    let mut r = String::new();
    let _ = writeln!(r, "# buddy run: {}\n", s.path.display());
    r += &summary(s);
    let _ = write!(
        r,
        "\n## Hardware == golden model\n\nEvery entry through the rust-hdl (de)compressors, and as many random accesses through the address translator and random operations (then a flush) through the metadata cache, under random bubbles (30%) and backpressure (40%), compared with the golden model; VCDs of the first 16 inputs in `vcd/`, each with a GTKWave save file beside it (`gtkwave vcd/<module>.gtkw`: signals grouped by port, size classes, faults and outcomes by name).\n\n```\n{}```\n\n## Compression (every algorithm)\n\n```\n{compression_text}```\n\n## Memory system (fast mode: golden models, HBM2 and NVLink timing; every allocation at 2x)\n\n`sim/`: statistics per mode (JSON, CSV) and the effective configuration.\n\n```\n{sim_text}```\n\n## Files\n\n{}\n",
        crate::equiv::table(s.results),
        files.iter().map(|f| format!("- `verilog/{f}`")).collect::<Vec<_>>().join("\n"),
    );
    r
}

/// The summary section: did it work and what came out, in under 40 lines.
fn summary(s: &Summary<'_>) -> String {
    let mut r = format!("{SUMMARY_HEADING}\n\n");
    let inputs: usize = s.results.iter().map(|m| m.entries).sum();
    let mismatches: usize = s.results.iter().map(|m| m.mismatches).sum();
    let slowest = s.results.iter().max_by(|a, b| a.seconds.total_cmp(&b.seconds));
    let _ = writeln!(
        r,
        "- **Hardware == golden:** {} of {} modules matched the golden model on {inputs} inputs in all, {mismatches} mismatches{}.",
        s.results.iter().filter(|m| m.mismatches == 0).count(),
        s.results.len(),
        slowest.map_or_else(String::new, |m| format!(" (slowest: {}, {:.1} s)", m.module, m.seconds)),
    );
    let mut ratios = String::new();
    for a in &s.study.algorithms {
        let ratio = a.total.ratio().map_or_else(|| "inf".to_string(), |x| format!("{x:.3}"));
        let _ = write!(ratios, "{} {ratio}x, ", a.algorithm);
    }
    let _ = writeln!(
        r,
        "- **Compression** ({} entries of 128 bytes, every snapshot): {}.",
        s.study.algorithms.first().map_or(0, |a| a.total.entries()),
        ratios.trim_end_matches(", ")
    );
    if let Some(first) = s.reports.first() {
        let _ = writeln!(
            r,
            "- **Memory system** ({}, {} L2 requests, {}, fast mode, every allocation at 2x):\n",
            first.workload, first.requests, first.algorithm
        );
        r += "| mode | DRAM cycles | speedup | device MB | buddy accesses | compression ratio |\n|---|---:|---:|---:|---:|---:|\n";
        let base = s.reports.iter().find(|x| x.mode == Mode::Uncompressed).map(|x| x.time_ns);
        for m in s.reports {
            let _ = writeln!(
                r,
                "| {} | {:.0} | {} | {:.3} | {:.1}% | {:.3} |",
                m.mode.name(),
                m.dram_cycles,
                base.map_or_else(|| "-".into(), |b| format!("{:.3}x", b / m.time_ns)),
                m.device_bytes as f64 / 1e6,
                100.0 * m.buddy_access_fraction,
                m.compression_ratio
            );
        }
        let checked: u64 = s.reports.iter().map(|x| x.checked_reads + x.checked_entries).sum();
        let _ = writeln!(r, "\n  {checked} reads and final entries checked against the shadow memory, 0 mismatches.");
    }
    r += "- **Outputs:** `equivalence.json` and `vcd/` (hardware == golden; `.vcd` with a GTKWave `.gtkw` each), `compression.txt` / `.json`, `sim/sim.json` / `.csv` / `config.toml`, `verilog/` (listed at the end).\n";
    let mut times = String::new();
    for (i, st) in s.steps.iter().enumerate() {
        let _ = write!(times, "{}. {} {:.2} s; ", i + 1, st.name, st.seconds);
    }
    let _ = writeln!(r, "- **Wall time:** {:.1} s in all: {}.", s.total_seconds, times.trim_end_matches("; "));
    r
}
