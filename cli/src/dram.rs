//! `buddy dram`: one device-level request stream (`shared/ref/dram/README.md`
//! format, gzip or plain) through the HBM2 model, every request admitted at
//! its arrival cycle; prints requests, end cycle, bandwidth, latency,
//! row-hit rate, activations and refreshes (a table, or `--json` with those
//! keys).

use std::path::PathBuf;

use crate::output::outln;

use anyhow::Context;
use buddy_sim::memory_system::dram::stream::{read_stream, run_stream};

use crate::sim::load_config;

/// Arguments of `buddy dram`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The stream file: 16-byte records (arrival cycle, channel, bank
    /// group, bank, write, row, column), gzip-compressed or plain.
    pub stream: PathBuf,
    /// TOML configuration (the `[hbm]` and `[system]` sections set the
    /// device; defaults: the HBM2 of `shared/ref/dram/README.md`, 32 channels).
    #[arg(long, value_name = "FILE.toml")]
    pub config: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Run `buddy dram`.
///
/// # Errors
/// A bad configuration or stream (named by record), or output that cannot
/// be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    let config = load_config(args.config.as_deref(), None)?;
    let stream = read_stream(&args.stream, &config)?;
    let started = std::time::Instant::now();
    let r = run_stream(&stream, &config);
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&r).context("JSON")?)?;
        return Ok(());
    }
    outln!("stream              {}", args.stream.display())?;
    outln!("requests            {} ({} writes)", r.requests, r.writes)?;
    outln!("end_cycle           {}", r.end_cycle)?;
    outln!("bandwidth_gbps      {:.2}", r.bandwidth_gbps)?;
    outln!("mean_latency_cycles {:.1}", r.mean_latency_cycles)?;
    outln!("p99_latency_cycles  {:.0}", r.p99_latency_cycles)?;
    outln!("row_hit_rate        {:.4}", r.row_hit_rate)?;
    outln!("activations         {}", r.activations)?;
    outln!("refreshes           {}", r.refreshes)?;
    outln!(
        "({} reads, {} writes, {} precharges issued; {:.2} s, {:.2} million requests/s)",
        r.commands.reads,
        r.commands.writes,
        r.commands.precharges,
        seconds,
        r.requests as f64 / seconds.max(1e-9) / 1e6
    )?;
    Ok(())
}
