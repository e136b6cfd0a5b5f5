//! `buddy run`: the main job on one workload, everything into one folder:
//! emit the Verilog, check the hardware against the golden model (with VCDs),
//! and run the compression study.

use anyhow::{anyhow, Context};
use buddy_golden::Algorithm;
use buddy_testbenches::stream::Traffic;
use std::path::PathBuf;

use crate::revision::git_revision;

/// Arguments of `buddy run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload folder or raw file of 128-byte entries [default: the bundled data/minife-small].
    pub path: Option<PathBuf>,
    /// Output folder.
    #[arg(long, default_value = "out", value_name = "DIR")]
    pub out: PathBuf,
}

/// Run the main job.
///
/// # Errors
/// Any step fails; earlier outputs stay in the folder, `REPORT.md` is only
/// written when every step succeeded.
pub fn run(args: Args) -> anyhow::Result<()> {
    let path = args.path.unwrap_or_else(|| PathBuf::from(crate::compress::DEFAULT_WORKLOAD));
    let out = &args.out;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;

    eprintln!("[1/4] emitting Verilog into {}", out.join("verilog").display());
    let files = buddy_testbenches::delivery::write_all(&out.join("verilog"), &git_revision()).map_err(|e| anyhow!(e))?;

    eprintln!("[2/4] checking the rust-hdl modules against the golden model on {}", path.display());
    let vcd_dir = out.join("vcd");
    let workload = buddy_sim::Workload::open(&path).context("cannot open workload")?;
    let results = crate::equiv::check_workload(&workload, Traffic::RANDOM, Some((&vcd_dir, 16)))?;
    std::fs::write(out.join("equivalence.json"), serde_json::to_string_pretty(&results)? + "\n")?;

    eprintln!("[3/4] compression study (every algorithm)");
    let (text, json) = crate::compress::reports(&workload, &Algorithm::ALL)?;
    std::fs::write(out.join("compression.txt"), &text)?;
    std::fs::write(out.join("compression.json"), &json)?;

    // The whole memory system on the workload's trace (a snapshot sweep
    // when it has none).
    let sim_text = {
        eprintln!("[4/4] memory system (fast mode, every mode)");
        let config = buddy_sim::memory_system::config::SimConfig::default();
        let prepared = crate::sim::prepare(&workload, None, None)?;
        let reports = buddy_sim::memory_system::Mode::ALL
            .iter()
            .map(|&m| crate::sim::simulate(&prepared, m, Algorithm::Bpc, &config, None))
            .collect::<anyhow::Result<Vec<_>>>()?;
        std::fs::create_dir_all(out.join("sim"))?;
        std::fs::write(out.join("sim/sim.json"), serde_json::to_string_pretty(&reports)? + "\n")?;
        std::fs::write(out.join("sim/config.toml"), config.to_toml())?;
        let rows: Vec<_> = reports.iter().map(|r| (config.nvlink.gbps, r)).collect();
        std::fs::write(out.join("sim/sim.csv"), crate::sim::csv(&rows)?)?;
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
    std::fs::write(out.join("REPORT.md"), &report)?;
    print!("{}", crate::equiv::table(&results));
    println!("report: {}", out.join("REPORT.md").display());
    Ok(())
}
