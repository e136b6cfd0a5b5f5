//! `buddy vectors`: golden vector files for the self-checking Verilog
//! testbenches of `verilog-out/tb/`, so the emitted Verilog can be checked in
//! any simulator.

use anyhow::{bail, Context};
use buddy_delivery::decompress::random_stored;
use buddy_delivery::entries::{mag_boundary_entry, random_entries, sample};
use buddy_delivery::modules::HwModule;
use buddy_golden::MemoryEntry;
use buddy_sim::Workload;
use std::path::PathBuf;

use crate::output::{outln, OutputDir};

/// Most vectors a testbench holds (its `MAX_VECTORS`).
const MAX_VECTORS: usize = 65_536;

/// Arguments of `buddy vectors`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload whose entries become vectors [default: the bundled data/minife-small].
    pub path: Option<PathBuf>,
    /// Output folder for `<module>.hex` (written only when every file is).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Write into `--out` even when it holds files buddy did not write.
    #[arg(long)]
    pub force: bool,
    /// Random entries added (each word zero with a per-entry random probability).
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub random: usize,
    /// Entries on MAG-BDI's delta-width boundaries added.
    #[arg(long, default_value_t = 8_000, value_name = "N")]
    pub boundary: usize,
    /// Seed of the random entries.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Write `<module>.hex` for every module of `verilog-out/` and print the
/// simulator command lines. Compressors get the workload's entries, then
/// `--boundary` MAG-BDI boundary entries and `--random` random entries;
/// decompressors get those entries as the golden compressor stores them,
/// then `--random / 5` malformed inputs (random payloads under every code).
/// The address translator gets as many random accesses as there are
/// entries, the metadata cache as many random operations (then a flush) and
/// a second file of the memory-side requests it must make.
///
/// # Errors
/// The workload is invalid, the vectors exceed the testbench capacity, or a
/// file cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    let path = match args.path {
        Some(p) => p,
        None => crate::bundled::default_workload()?,
    };
    // Bounded before anything is generated: `--random` near 2^64 would
    // otherwise exhaust memory or overflow.
    for (flag, n) in [("--random", args.random), ("--boundary", args.boundary)] {
        if n > MAX_VECTORS {
            bail!("{flag} {n} exceeds the testbenches' MAX_VECTORS ({MAX_VECTORS})");
        }
    }
    let workload = Workload::open(&path).with_context(|| format!("cannot open workload {}", path.display()))?;
    let mut entries: Vec<MemoryEntry> = workload.all_entries();
    let total = entries.len() + args.boundary + args.random + args.random / 5;
    if total > MAX_VECTORS {
        bail!("{total} vectors exceed the testbenches' MAX_VECTORS ({MAX_VECTORS}); use a smaller workload or fewer --random/--boundary");
    }
    let staging = OutputDir::prepare(&args.out, args.force)?;
    entries.extend(sample(&mag_boundary_entry(), args.boundary, args.seed));
    entries.extend(random_entries(args.random, args.seed));
    let malformed = random_stored(args.random / 5, args.seed ^ 0x5eed);
    let bar = crate::progress::bar(HwModule::all().len() as u64, "modules", "golden vectors");
    let mut commands = Vec::new();
    for m in HwModule::all() {
        bar.set_message(format!("golden vectors: {}", m.name()));
        let mut files = Vec::new();
        for f in m.vector_files(&entries, &malformed) {
            let file = staging.path().join(&f.file);
            std::fs::write(&file, f.lines.join("\n") + "\n").with_context(|| format!("cannot write {}", file.display()))?;
            files.push((f.file, f.plusargs, f.lines.len()));
        }
        commands.push((m.name(), files));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let out = staging.commit()?;
    for (name, files) in commands {
        let mut command = format!("vvp <{name}_tb>");
        for (file, plusargs, lines) in files {
            command += &format!(" +{}={} +{}={lines}", plusargs.0, out.join(file).display(), plusargs.1);
        }
        outln!("{command}")?;
    }
    Ok(())
}
