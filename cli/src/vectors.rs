//! `buddy vectors`: golden vector files for the self-checking Verilog
//! testbenches of `verilog-out/tb/`, so the emitted Verilog can be checked in
//! any simulator.

use anyhow::{bail, Context};
use buddy_golden::MemoryEntry;
use buddy_sim::Workload;
use buddy_testbenches::entries::random_entries;
use buddy_testbenches::zvc::{self, StoredEntry};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
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
    /// Seed of the random entries.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Write `zvc_compressor.hex` and `zvc_decompressor.hex` and print the
/// simulator command lines.
///
/// # Errors
/// The workload is invalid, the vectors exceed the testbench capacity, or a
/// file cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    let path = args.path.unwrap_or_else(|| PathBuf::from(crate::compress::DEFAULT_WORKLOAD));
    let workload = Workload::open(&path).context("cannot open workload")?;
    let mut entries: Vec<MemoryEntry> = workload.all_entries();
    entries.extend(random_entries(args.random, args.seed));
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed ^ 0x5eed);
    // Malformed inputs for the decompressor: random payloads under every code.
    let mut stored: Vec<StoredEntry> = entries.iter().map(zvc::stored).collect();
    stored.extend((0..args.random / 5).map(|_| StoredEntry { code: rng.gen_range(0..16), payload: std::array::from_fn(|_| rng.gen()) }));
    if stored.len() > MAX_VECTORS {
        bail!("{} vectors exceed the testbenches' MAX_VECTORS ({MAX_VECTORS}); use a smaller workload or fewer --random", stored.len());
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let files = [
        ("zvc_compressor", entries.iter().map(zvc::compressor_vector).collect::<Vec<_>>()),
        ("zvc_decompressor", stored.iter().map(zvc::decompressor_vector).collect::<Vec<_>>()),
    ];
    for (module, lines) in files {
        let file = args.out.join(format!("{module}.hex"));
        std::fs::write(&file, lines.join("\n") + "\n").with_context(|| format!("cannot write {}", file.display()))?;
        println!("vvp <{module}_tb> +vectors={} +count={}", file.display(), lines.len());
    }
    Ok(())
}
