//! `buddy vectors`: golden vector files for the self-checking Verilog
//! testbenches of `verilog-out/tb/`, so the emitted Verilog can be checked in
//! any simulator.

use anyhow::{bail, Context};
use buddy_golden::MemoryEntry;
use buddy_sim::Workload;
use buddy_testbenches::decompress::random_stored;
use buddy_testbenches::entries::{mag_boundary_entry, random_entries, sample};
use buddy_testbenches::modules::HwModule;
use std::path::PathBuf;

/// Most vectors a testbench holds (its `MAX_VECTORS`).
const MAX_VECTORS: usize = 65_536;

/// Arguments of `buddy vectors`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload whose entries become vectors [default: the bundled data/minife-small].
    pub path: Option<PathBuf>,
    /// Output folder for `<module>.hex`.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
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
    let path = args.path.unwrap_or_else(|| PathBuf::from(crate::compress::DEFAULT_WORKLOAD));
    let workload = Workload::open(&path).context("cannot open workload")?;
    let mut entries: Vec<MemoryEntry> = workload.all_entries();
    entries.extend(sample(&mag_boundary_entry(), args.boundary, args.seed));
    entries.extend(random_entries(args.random, args.seed));
    let malformed = random_stored(args.random / 5, args.seed ^ 0x5eed);
    if entries.len() + malformed.len() > MAX_VECTORS {
        bail!(
            "{} vectors exceed the testbenches' MAX_VECTORS ({MAX_VECTORS}); use a smaller workload or fewer --random/--boundary",
            entries.len() + malformed.len()
        );
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    for m in HwModule::ALL {
        let mut command = format!("vvp <{}_tb>", m.name());
        for f in m.vector_files(&entries, &malformed) {
            let file = args.out.join(&f.file);
            std::fs::write(&file, f.lines.join("\n") + "\n").with_context(|| format!("cannot write {}", file.display()))?;
            command += &format!(" +{}={} +{}={}", f.plusargs.0, file.display(), f.plusargs.1, f.lines.len());
        }
        println!("{command}");
    }
    Ok(())
}
