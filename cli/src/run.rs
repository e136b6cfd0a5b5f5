//! `buddy run`: the main job on one workload, everything into one folder:
//! emit the Verilog, check the hardware against the golden model (with VCDs),
//! and run the compression study.

use anyhow::{anyhow, Context};
use buddy_delivery::stream::Traffic;
use buddy_golden::Algorithm;
use std::path::PathBuf;

use crate::output::{out, outln, write_file, OutputDir};
use crate::revision::git_revision;

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

/// Run the main job.
///
/// # Errors
/// The workload, its trace or the output folder is bad (found before any
/// work), or a step fails; the outputs are moved into `--out` only when
/// every step succeeded, so a failed run leaves the folder as it was.
pub fn run(args: Args) -> anyhow::Result<()> {
    let path = match args.path {
        Some(p) => p,
        None => crate::bundled::default_workload()?,
    };
    let workload = buddy_sim::Workload::open(&path).with_context(|| format!("cannot open workload {}", path.display()))?;
    let prepared = crate::sim::prepare(&workload, None, None)?;
    let staging = OutputDir::prepare(&args.out, args.force)?;
    let out = staging.path();

    eprintln!("[1/4] emitting Verilog");
    let files = buddy_delivery::delivery::write_all(&out.join("verilog"), &git_revision()).map_err(|e| anyhow!(e))?;

    eprintln!("[2/4] checking the rust-hdl modules against the golden model on {}", path.display());
    let vcd_dir = out.join("vcd");
    let results = crate::equiv::check_workload(&workload, Traffic::RANDOM, Some((&vcd_dir, 16)))?;
    write_file(&out.join("equivalence.json"), serde_json::to_string_pretty(&results)? + "\n")?;

    eprintln!("[3/4] compression study (every algorithm)");
    let (text, json) = crate::compress::reports(&workload, &Algorithm::ALL)?;
    write_file(&out.join("compression.txt"), &text)?;
    write_file(&out.join("compression.json"), json)?;

    // The whole memory system on the workload's trace (a snapshot sweep
    // when it has none).
    let sim_text = {
        eprintln!("[4/4] memory system (fast mode, every mode)");
        let config = buddy_sim::memory_system::config::SimConfig::default();
        let reports = crate::sim::simulate_modes(&prepared, &buddy_sim::memory_system::Mode::ALL, Algorithm::Bpc, &config, |_| None)?;
        std::fs::create_dir_all(out.join("sim")).context("cannot create sim/")?;
        write_file(&out.join("sim/sim.json"), serde_json::to_string_pretty(&reports)? + "\n")?;
        write_file(&out.join("sim/config.toml"), config.to_toml())?;
        let rows: Vec<_> = reports.iter().map(|r| (config.nvlink.gbps, r)).collect();
        write_file(&out.join("sim/sim.csv"), crate::sim::csv(&rows)?)?;
        crate::sim::table(&reports)
    };

    let report = format!(
        "# buddy run: {}\n\n## Verilog\n\n{}\n\n## Hardware == golden model\n\nEvery entry through the rust-hdl (de)compressors, and as many random accesses through the address translator and random operations (then a flush) through the metadata cache, under random bubbles (30%) and backpressure (40%), compared with the golden model; VCDs of the first 16 inputs in `vcd/`.\n\n```\n{}```\n\n## Compression (every algorithm)\n\n```\n{}```\n\n## Memory system (fast mode: golden models, HBM2 and NVLink timing; every allocation at 2x)\n\n`sim/`: statistics per mode (JSON, CSV) and the effective configuration.\n\n```\n{}```\n",
        path.display(),
        files.iter().map(|f| format!("- `verilog/{f}`")).collect::<Vec<_>>().join("\n"),
        crate::equiv::table(&results),
        text,
        sim_text
    );
    write_file(&out.join("REPORT.md"), report)?;
    let out = staging.commit()?;
    out!("{}", crate::equiv::table(&results))?;
    outln!("report: {}", out.join("REPORT.md").display())?;
    Ok(())
}
