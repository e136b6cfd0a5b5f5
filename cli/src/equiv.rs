//! `buddy equiv`: run the entries of a workload through the rust-hdl ZVC
//! modules and compare every output with the golden model, optionally
//! writing a VCD of the first cycles.

use anyhow::{bail, Context};
use buddy_golden::{Codec, Zvc};
use buddy_hdl::{ZvcCompressor, ZvcDecompressor};
use buddy_sim::Workload;
use buddy_testbenches::stream::{run_stream, StreamDut, Traffic};
use buddy_testbenches::zvc::{expected_decompressed, stored};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `buddy equiv`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload folder or raw file of 128-byte entries [default: the bundled data/minife-small].
    pub path: Option<PathBuf>,
    /// Write `<module>.vcd` waveforms of the first `--vcd-entries` entries into this folder.
    #[arg(long, value_name = "DIR")]
    pub vcd_dir: Option<PathBuf>,
    /// Entries in each VCD.
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub vcd_entries: usize,
    /// Percent probability that the source offers an entry in a cycle (1-100).
    #[arg(long, default_value_t = 70, value_parser = clap::value_parser!(u8).range(1..=100))]
    pub p_valid: u8,
    /// Percent probability that the sink is ready in a cycle (1-100).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u8).range(1..=100))]
    pub p_ready: u8,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The outcome for one module.
#[derive(Debug, Serialize)]
pub struct ModuleResult {
    pub module: &'static str,
    pub entries: usize,
    pub mismatches: usize,
    pub cycles: u64,
    pub seconds: f64,
    pub cycles_per_second: f64,
}

fn check<D: StreamDut>(
    module: &'static str,
    mut dut: D,
    inputs: &[D::Input],
    expected: &[D::Output],
    traffic: Traffic,
) -> anyhow::Result<ModuleResult> {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let start = Instant::now();
    let run = run_stream(&mut dut, inputs, traffic, &mut rng, 50 * inputs.len() as u64 + 100, None);
    let seconds = start.elapsed().as_secs_f64();
    if run.outputs.len() != expected.len() {
        bail!("{module}: {} outputs for {} inputs", run.outputs.len(), expected.len());
    }
    let mismatches: Vec<usize> = (0..expected.len()).filter(|&i| run.outputs[i] != expected[i]).collect();
    if let Some(&i) = mismatches.first() {
        bail!(
            "{module}: {} of {} outputs differ from the golden model; first at entry {i}:\n  hdl:    {:?}\n  golden: {:?}",
            mismatches.len(),
            expected.len(),
            run.outputs[i],
            expected[i]
        );
    }
    Ok(ModuleResult {
        module,
        entries: inputs.len(),
        mismatches: 0,
        cycles: run.cycles,
        seconds,
        cycles_per_second: run.cycles as f64 / seconds.max(1e-9),
    })
}

fn write_vcd<D: StreamDut>(mut dut: D, inputs: &[D::Input], path: &Path) -> anyhow::Result<()> {
    let file = std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut w = std::io::BufWriter::new(file);
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    run_stream(&mut dut, inputs, Traffic::RANDOM, &mut rng, 100 * inputs.len() as u64 + 100, Some(&mut w));
    use std::io::Write;
    w.flush().with_context(|| format!("cannot write {}", path.display()))
}

/// Check both ZVC modules on every entry of `workload`.
///
/// # Errors
/// The workload holds no entry, a module's output differs from the golden
/// model (the first difference is named), or a VCD cannot be written.
pub fn check_workload(workload: &Workload, traffic: Traffic, vcd: Option<(&Path, usize)>) -> anyhow::Result<Vec<ModuleResult>> {
    let entries = workload.all_entries();
    if entries.is_empty() {
        bail!("{} holds no entries", workload.path().display());
    }
    let compressed: Vec<_> = entries.iter().map(|e| Zvc.compress(e)).collect();
    let stored_entries: Vec<_> = entries.iter().map(stored).collect();
    let decompressed: Vec<_> = stored_entries.iter().map(expected_decompressed).collect();
    let results = vec![
        check("zvc_compressor", ZvcCompressor::default(), &entries, &compressed, traffic)?,
        check("zvc_decompressor", ZvcDecompressor::default(), &stored_entries, &decompressed, traffic)?,
    ];
    if let Some((dir, n)) = vcd {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let n = n.clamp(1, entries.len());
        write_vcd(ZvcCompressor::default(), &entries[..n], &dir.join("zvc_compressor.vcd"))?;
        write_vcd(ZvcDecompressor::default(), &stored_entries[..n], &dir.join("zvc_decompressor.vcd"))?;
    }
    Ok(results)
}

/// The results as a text table.
pub fn table(results: &[ModuleResult]) -> String {
    let mut s = format!("{:<18} {:>8} {:>10} {:>9} {:>12}\n", "module", "entries", "mismatches", "cycles", "cycles/s");
    for r in results {
        s += &format!("{:<18} {:>8} {:>10} {:>9} {:>12.0}\n", r.module, r.entries, r.mismatches, r.cycles, r.cycles_per_second);
    }
    s
}

/// Run `buddy equiv`.
///
/// # Errors
/// As [`check_workload`].
pub fn run(args: Args) -> anyhow::Result<()> {
    let path = args.path.unwrap_or_else(|| PathBuf::from(crate::compress::DEFAULT_WORKLOAD));
    let traffic = Traffic { p_valid: args.p_valid as f64 / 100.0, p_ready: args.p_ready as f64 / 100.0 };
    let workload = Workload::open(&path).context("cannot open workload")?;
    let results = check_workload(&workload, traffic, args.vcd_dir.as_deref().map(|d| (d, args.vcd_entries)))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else {
        print!("{}", table(&results));
    }
    Ok(())
}
