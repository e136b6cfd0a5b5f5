//! `buddy equiv`: run the entries of a workload through every rust-hdl
//! module (ZVC, MAG-BDI 16/32/64) and compare every output with the golden
//! model, optionally writing a VCD of the first entries per module (with
//! its GTKWave save file, `buddy_delivery::waves`).

use anyhow::{bail, Context};
use buddy_delivery::modules::HwModule;
use buddy_delivery::stream::Traffic;
use buddy_golden::MemoryEntry;
use buddy_sim::Workload;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::output::{out, outln, OutputDir};

/// Arguments of `buddy equiv`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload folder or raw file of 128-byte entries [default: the bundled data/minife-small].
    pub path: Option<PathBuf>,
    /// Write `<module>.vcd` waveforms of the first `--vcd-entries` entries
    /// into this folder, each with a GTKWave save file `<module>.gtkw` and
    /// its translate filters (checked before the run, written when it
    /// succeeds).
    #[arg(long, value_name = "DIR")]
    pub vcd_dir: Option<PathBuf>,
    /// Write into `--vcd-dir` even when it holds files buddy did not write.
    #[arg(long)]
    pub force: bool,
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

/// Check every module of [`HwModule::all`] on every entry of `workload`
/// (decompressors: every entry as the golden compressor stores it).
///
/// The modules run in parallel on every core (rayon's pool), the whole
/// controller slices first since they take longest; the results come back in
/// [`HwModule::all`] order whatever order they finish in. Each module's
/// checks are seeded alike, so the results do not depend on the core count.
///
/// # Errors
/// The workload holds no entry, a module's output differs from the golden
/// model (the first difference of the first such module in
/// [`HwModule::all`] order is named), or a VCD cannot be written.
pub fn check_workload(workload: &Workload, traffic: Traffic, vcd: Option<(&Path, usize)>) -> anyhow::Result<Vec<ModuleResult>> {
    let entries = workload.all_entries();
    if entries.is_empty() {
        bail!("{} holds no entries", workload.path().display());
    }
    if let Some((dir, _)) = vcd {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let bar = crate::progress::bar(HwModule::all().len() as u64, "modules", "hardware == golden");
    let running = Mutex::new(Vec::<&'static str>::new());
    let show_running = |running: &[&str]| bar.set_message(format!("hardware == golden: {}", running.join(", ")));
    let outcomes: Vec<Mutex<Option<Result<ModuleResult, String>>>> = HwModule::all().iter().map(|_| Mutex::new(None)).collect();
    let mut order: Vec<usize> = (0..HwModule::all().len()).collect();
    order.sort_by_key(|&i| !HwModule::all()[i].is_slice());
    rayon::scope_fifo(|scope| {
        for &i in &order {
            let (m, entries, bar, running, outcome) = (HwModule::all()[i], &entries, &bar, &running, &outcomes[i]);
            scope.spawn_fifo(move |_| {
                let mut now = lock(running);
                now.push(m.name());
                show_running(&now);
                drop(now);
                let result = check_module(m, entries, traffic, vcd);
                let mut now = lock(running);
                now.retain(|n| *n != m.name());
                show_running(&now);
                drop(now);
                let line = match &result {
                    Ok(r) => format!(
                        "  {:<30} {:>6} inputs, 0 mismatches, {:>7} cycles in {:5.1} s ({:.0} cycles/s)",
                        r.module, r.entries, r.cycles, r.seconds, r.cycles_per_second
                    ),
                    Err(_) => format!("  {:<30} differs from the golden model (the error follows at the end)", m.name()),
                };
                crate::progress::note(bar, line);
                bar.inc(1);
                *lock(outcome) = Some(result);
            });
        }
    });
    bar.finish_and_clear();
    outcomes
        .into_iter()
        .map(|o| o.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).expect("every module was checked"))
        .collect::<Result<Vec<_>, String>>()
        .map_err(anyhow::Error::msg)
}

/// Check `m` on `entries`, then write its VCD of the first entries.
fn check_module(m: HwModule, entries: &[MemoryEntry], traffic: Traffic, vcd: Option<(&Path, usize)>) -> Result<ModuleResult, String> {
    let run = m.check(entries, &[], traffic, 1)?;
    if let Some((dir, n)) = vcd {
        m.write_vcd(&entries[..n.clamp(1, entries.len())], &dir.join(format!("{}.vcd", m.name())))?;
    }
    Ok(ModuleResult {
        module: m.name(),
        entries: run.inputs,
        mismatches: 0,
        cycles: run.cycles,
        seconds: run.seconds,
        cycles_per_second: run.cycles as f64 / run.seconds.max(1e-9),
    })
}

/// A mutex's value, also after a panic elsewhere (the values here stay
/// whole: each is set in one statement).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The results as a text table.
pub fn table(results: &[ModuleResult]) -> String {
    let mut s = format!("{:<24} {:>8} {:>10} {:>9} {:>12}\n", "module", "entries", "mismatches", "cycles", "cycles/s");
    for r in results {
        s += &format!("{:<24} {:>8} {:>10} {:>9} {:>12.0}\n", r.module, r.entries, r.mismatches, r.cycles, r.cycles_per_second);
    }
    s
}

/// Run `buddy equiv`.
///
/// # Errors
/// As [`check_workload`].
pub fn run(args: Args) -> anyhow::Result<()> {
    let path = match args.path {
        Some(p) => p,
        None => crate::bundled::default_workload()?,
    };
    if args.vcd_entries == 0 {
        bail!("--vcd-entries must be at least 1");
    }
    let traffic = Traffic { p_valid: args.p_valid as f64 / 100.0, p_ready: args.p_ready as f64 / 100.0 };
    let workload = Workload::open(&path).with_context(|| format!("cannot open workload {}", path.display()))?;
    let vcd_out = args.vcd_dir.as_deref().map(|d| OutputDir::prepare(d, args.force)).transpose()?;
    let results = check_workload(&workload, traffic, vcd_out.as_ref().map(|d| (d.path(), args.vcd_entries)))?;
    if let Some(d) = vcd_out {
        d.commit()?;
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&results)?)?;
    } else {
        out!("{}", table(&results))?;
    }
    Ok(())
}
