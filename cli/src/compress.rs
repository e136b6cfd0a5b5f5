//! `buddy compress`: compress every entry of one or more workloads with the
//! golden codecs and report size-class histograms and compression ratios
//! (Buddy paper Fig. 5), with the MAG-BDI paper's raw and effective ratios
//! (MAG paper Fig. 13) for MAG-BDI, LCP's page ratio over BDI
//! (docs/formats.md#lcp), and a summary over workloads and algorithms with
//! the geometric mean over workloads.
//!
//! Everything is computed before anything is printed, so stdout holds either
//! the complete report or nothing; the progress bar draws on stderr only.
//!
//! With `--streams FILE` it also writes the golden stream of every entry
//! into a stream file (`docs/streams.md`), in workload order: snapshots in
//! manifest order, allocations in manifest order, entries in address order
//! (a raw file: its entries in file order).

use std::fmt::{self, Write as _};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{bail, Context};
use buddy_golden::{Algorithm, Mag, MemoryEntry, SizeClass, StreamHeader, StreamWriter, ENTRY_BYTES};
use buddy_sim::compression_study::{CompressionStats, CompressionStudy, Progress, Summary};
use buddy_sim::{LcpStats, MagStats, Workload};
use rayon::prelude::*;

use crate::args::DEFAULT_ALGORITHM;
use crate::output::OutputFile;

/// Arguments of `buddy compress`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload folders (manifest.json + snapshot files) or raw binary files
    /// of 128-byte entries [default: the bundled data/minife-small].
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Algorithm: a name, a comma-separated list of names, or `all`.
    #[arg(long, value_name = "ALGOS", default_value_t = AlgorithmList(vec![DEFAULT_ALGORITHM]), value_parser = parse_algorithms)]
    algo: AlgorithmList,
    /// Print one JSON document instead of tables: `workloads` (per workload,
    /// algorithm, snapshot and allocation) and `summary` (ratio per workload
    /// and algorithm, geometric means).
    #[arg(long, conflicts_with_all = ["csv", "per_entry"])]
    json: bool,
    /// Print one CSV document instead of tables: a row per workload,
    /// algorithm, snapshot (or `all`) and allocation (or `TOTAL`).
    #[arg(long, conflicts_with = "per_entry")]
    csv: bool,
    /// Print one TSV line per entry: snapshot, allocation, entry (index within
    /// the allocation), stream_bits, class; an algo column comes first when
    /// several algorithms are given, a workload column before it when several
    /// workloads are.
    #[arg(long)]
    per_entry: bool,
    /// Only the snapshot with this manifest index (of every workload).
    #[arg(long, value_name = "N")]
    snapshot: Option<usize>,
    /// Also write the golden stream of every entry into this stream file
    /// (docs/streams.md): one workload and one algorithm; snapshots in
    /// manifest order, allocations in manifest order, entries in address
    /// order.
    #[arg(long, value_name = "FILE")]
    streams: Option<PathBuf>,
    /// Overwrite the file even when buddy did not write it (or it changed since).
    #[arg(long, requires = "streams")]
    force: bool,
}

/// The algorithms of `--algo`, without duplicates, in the order given.
#[derive(Debug, Clone)]
struct AlgorithmList(Vec<Algorithm>);

/// The names, comma-separated, as `--algo` takes them (clap shows the
/// default this way).
impl fmt::Display for AlgorithmList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|a| a.name()).collect();
        f.write_str(&names.join(","))
    }
}

/// Parse `--algo`: comma-separated names of [`Algorithm::ALL`], or `all`;
/// the error lists the valid names (and the valid MAGs for `mag-bdi:N`).
fn parse_algorithms(s: &str) -> Result<AlgorithmList, String> {
    let mut list = Vec::new();
    for name in s.split(',').map(str::trim) {
        let algorithms = if name == "all" {
            Algorithm::ALL.to_vec()
        } else {
            let algorithm = Algorithm::from_str(name).map_err(|e| {
                let mag_hint = if name.starts_with("mag-bdi:") {
                    let mags: Vec<String> = Mag::ALL.iter().map(|m| m.bytes().to_string()).collect();
                    format!("; the MAG of mag-bdi:MAG is one of {} bytes", mags.join(", "))
                } else {
                    String::new()
                };
                format!("unknown algorithm '{}' (valid: {}, all; or a comma-separated list{mag_hint})", e.given, e.valid)
            })?;
            vec![algorithm]
        };
        for a in algorithms {
            if !list.contains(&a) {
                list.push(a);
            }
        }
    }
    Ok(AlgorithmList(list))
}

/// Run `buddy compress`.
///
/// # Errors
/// A workload cannot be opened or is invalid, `--snapshot` names no
/// snapshot, or stdout cannot be written (a closed pipe is not an error);
/// with `--streams`: several algorithms or workloads, the file exists
/// (without `--force`), is not a regular file, its folder is missing, or it
/// cannot be written (checked before any work where possible).
pub fn run(args: Args) -> anyhow::Result<()> {
    let paths = if args.paths.is_empty() { vec![crate::bundled::default_workload()?] } else { args.paths };
    let algorithms = &args.algo.0;
    // The stream file's checks come before any work.
    let streams = match &args.streams {
        Some(path) => {
            if let [algorithm] = algorithms[..] {
                if paths.len() > 1 {
                    bail!("--streams writes the streams of one workload, but {} are given", paths.len());
                }
                Some((OutputFile::prepare(path, args.force)?, algorithm))
            } else {
                let names: Vec<&str> = algorithms.iter().map(|a| a.name()).collect();
                bail!("--streams writes the streams of one algorithm, but --algo gives {} ({})", names.len(), names.join(", "));
            }
        }
        None => None,
    };
    let workloads = paths.iter().map(|path| open(path, args.snapshot)).collect::<anyhow::Result<Vec<_>>>()?;
    let progress = Progress::stderr(&workloads, algorithms.len());
    let studies: Vec<CompressionStudy> = workloads.iter().map(|w| CompressionStudy::run(w, algorithms, &progress)).collect();
    progress.finish();
    if let Some((file, algorithm)) = streams {
        let (entries, bytes) = write_streams(file, &workloads[0], algorithm)?;
        eprintln!("wrote {entries} {algorithm} streams ({bytes} bytes) to {}", args.streams.unwrap_or_default().display());
    }

    let report = if args.json {
        json_report(&studies)?
    } else if args.csv {
        csv_report(&studies)?
    } else {
        let mut text = String::new();
        if args.per_entry {
            write_per_entry(&mut text, &studies)?;
        } else {
            for (i, (study, workload)) in studies.iter().zip(&workloads).enumerate() {
                if i > 0 {
                    writeln!(text)?;
                }
                write_tables(&mut text, study, workload)?;
            }
            if studies.len() > 1 || algorithms.len() > 1 {
                writeln!(text)?;
                write_summary(&mut text, &Summary::of(&studies))?;
            }
        }
        text
    };
    let mut stdout = io::stdout().lock();
    match stdout.write_all(report.as_bytes()).and_then(|()| stdout.flush()) {
        // The reader stopped early (`buddy compress --per-entry | head`): not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        result => result.context("cannot write to stdout"),
    }
}

/// Entries compressed in parallel between two writes of their streams.
const STREAM_BATCH: usize = 1 << 16;

/// Write the golden stream of every entry of `workload` under `algorithm`
/// into `file`, in workload order, and move it into place; returns the
/// number of entries and the file's size in bytes.
///
/// # Errors
/// The file cannot be written or moved into place.
fn write_streams(file: OutputFile, workload: &Workload, algorithm: Algorithm) -> anyhow::Result<(u64, u64)> {
    let codec = algorithm.codec();
    let entries = workload.entry_count();
    let mut writer = StreamWriter::new(file.writer(), StreamHeader { algorithm, entries })?;
    for snapshot in workload.snapshots() {
        for allocation in snapshot.allocations() {
            let (raw, _) = allocation.bytes().as_chunks::<ENTRY_BYTES>();
            for batch in raw.chunks(STREAM_BATCH) {
                let compressed: Vec<_> = batch.par_iter().map(|bytes| codec.compress(&MemoryEntry::from_bytes(bytes))).collect();
                for c in &compressed {
                    writer.write_compressed(c)?;
                }
            }
        }
    }
    let bytes = writer.finish()?.persist()?;
    Ok((entries, bytes))
}

/// Open the workload at `path`, keeping only snapshot `snapshot` if given.
fn open(path: &Path, snapshot: Option<usize>) -> anyhow::Result<Workload> {
    let workload = Workload::open(path).context("cannot open workload")?;
    match snapshot {
        Some(index) => workload.select_snapshot(index).with_context(|| format!("--snapshot {index} of {}", path.display())),
        None => Ok(workload),
    }
}

/// The compression study of `workload` (every snapshot), with its table
/// report and its JSON report (one study object).
///
/// # Errors
/// The report cannot be formatted or serialized.
pub fn reports(workload: &Workload, algorithms: &[Algorithm]) -> anyhow::Result<(CompressionStudy, String, String)> {
    let progress = Progress::stderr(std::slice::from_ref(workload), algorithms.len());
    let study = CompressionStudy::run(workload, algorithms, &progress);
    progress.finish();
    let mut text = String::new();
    write_tables(&mut text, &study, workload)?;
    let json = serde_json::to_string_pretty(&study).context("cannot serialize the study")? + "\n";
    Ok((study, text, json))
}

/// The `--json` document: the study of every workload, then the summary.
fn json_report(studies: &[CompressionStudy]) -> anyhow::Result<String> {
    #[derive(serde::Serialize)]
    struct Report<'a> {
        workloads: &'a [CompressionStudy],
        summary: Summary,
    }
    let report = Report { workloads: studies, summary: Summary::of(studies) };
    Ok(serde_json::to_string_pretty(&report).context("cannot serialize the study")? + "\n")
}

/// The compression ratio as text: `inf` when nothing is stored, `-` when
/// there are no entries.
fn ratio_text(stats: &CompressionStats) -> String {
    match stats.ratio() {
        Some(r) => format!("{r:.3}"),
        None if stats.entries() == 0 => "-".to_string(),
        None => "inf".to_string(),
    }
}

/// An optional ratio as text, `-` for `None`.
fn optional_text(ratio: Option<f64>) -> String {
    ratio.map_or_else(|| "-".to_string(), |r| format!("{r:.3}"))
}

/// Per algorithm: a table of the allocations over all snapshots with a TOTAL
/// row, then one line per snapshot total. MAG-BDI tables have two more
/// columns, the MAG-BDI paper's raw and effective ratios; the BDI table has
/// LCP's pages and page ratio.
fn write_tables(out: &mut String, study: &CompressionStudy, workload: &Workload) -> fmt::Result {
    writeln!(
        out,
        "workload {} ({}): {} snapshot(s), {} entries of 128 bytes",
        study.workload,
        study.path,
        workload.snapshots().len(),
        workload.entry_count()
    )?;
    for alg in &study.algorithms {
        let mag = alg.algorithm.mag().is_some();
        let lcp = alg.total.lcp().is_some();
        let width = alg.allocations.iter().map(|a| a.name.len()).chain(["allocation".len()]).max().unwrap_or_default();
        writeln!(out, "\nalgorithm {}, all snapshots:", alg.algorithm)?;
        write!(out, "{:<width$} {:>9} {:>8}", "allocation", "entries", "ratio")?;
        for class in SizeClass::ALL {
            write!(out, " {:>8}", class.name())?;
        }
        if mag {
            write!(out, " {:>8} {:>8}", "mag_raw", "mag_eff")?;
        }
        if lcp {
            write!(out, " {:>9} {:>9} {:>9}", "lcp_pages", "lcp_ratio", "lcp_data")?;
        }
        writeln!(out)?;
        let rows = alg.allocations.iter().map(|a| (a.name.as_str(), &a.stats));
        for (name, stats) in rows.chain([("TOTAL", &alg.total)]) {
            write!(out, "{name:<width$} {:>9} {:>8}", stats.entries(), ratio_text(stats))?;
            for class in SizeClass::ALL {
                write!(out, " {:>8}", stats.count(class))?;
            }
            if let Some(m) = stats.mag() {
                write!(out, " {:>8} {:>8}", optional_text(m.raw_ratio()), optional_text(m.effective_ratio()))?;
            }
            if let Some(l) = stats.lcp() {
                write!(out, " {:>9} {:>9} {:>9}", l.pages(), optional_text(l.ratio()), optional_text(stats.lcp_data_ratio()))?;
            }
            writeln!(out)?;
        }
        writeln!(out, "\nalgorithm {}, per snapshot:", alg.algorithm)?;
        for snap in &alg.snapshots {
            let mag_text = snap.total.mag().map_or_else(String::new, |m| {
                format!("  mag_raw {}  mag_eff {}", optional_text(m.raw_ratio()), optional_text(m.effective_ratio()))
            });
            let lcp_text = snap.total.lcp().map_or_else(String::new, |l| {
                format!(
                    "  lcp {} pages in {} B, ratio {} (data {})",
                    l.pages(),
                    l.physical_bytes(),
                    optional_text(l.ratio()),
                    optional_text(snap.total.lcp_data_ratio())
                )
            });
            writeln!(
                out,
                "snapshot {:>3}  {}  entries {}  uncompressed {} B  stored {} B  ratio {}{}{}{}",
                snap.index,
                snap.file,
                snap.total.entries(),
                snap.total.uncompressed_bytes(),
                snap.total.stored_bytes(),
                ratio_text(&snap.total),
                mag_text,
                lcp_text,
                snap.label.as_deref().map(|l| format!("  ({l})")).unwrap_or_default()
            )?;
        }
    }
    Ok(())
}

/// The summary tables: the compression ratio per workload and algorithm with
/// a GEOMEAN row (workloads whose ratio is infinite are left out of the
/// mean and named below the table), then, when MAG-BDI is studied, the
/// MAG-BDI paper's raw and effective ratios per workload with their GEOMEAN,
/// and when BDI is, LCP's pages, page sizes and ratio per workload.
fn write_summary(out: &mut String, summary: &Summary) -> fmt::Result {
    let width = summary.workloads().iter().map(|w| w.name.len()).chain(["workload".len(), "GEOMEAN".len()]).max().unwrap_or_default();
    let algorithms = summary.algorithms();
    let column = |name: &str| name.len().max(8);

    writeln!(out, "compression ratio per workload and algorithm (uncompressed / stored bytes):")?;
    write!(out, "{:<width$}", "workload")?;
    for a in algorithms {
        write!(out, " {:>w$}", a.name(), w = column(a.name()))?;
    }
    writeln!(out)?;
    for w in summary.workloads() {
        write!(out, "{:<width$}", w.name)?;
        for (a, stats) in algorithms.iter().zip(&w.totals) {
            write!(out, " {:>w$}", ratio_text(stats), w = column(a.name()))?;
        }
        writeln!(out)?;
    }
    write!(out, "{:<width$}", "GEOMEAN")?;
    for (i, a) in algorithms.iter().enumerate() {
        write!(out, " {:>w$}", optional_text(summary.geomean(i)), w = column(a.name()))?;
    }
    writeln!(out)?;
    for (i, a) in algorithms.iter().enumerate() {
        let excluded = summary.excluded(i);
        if !excluded.is_empty() {
            writeln!(out, "GEOMEAN of {a} leaves out (ratio inf or no entries): {}", excluded.join(", "))?;
        }
    }

    write_lcp_summary(out, summary, width)?;
    let mags: Vec<(usize, &Algorithm)> = algorithms.iter().enumerate().filter(|(_, a)| a.mag().is_some()).collect();
    if mags.is_empty() {
        return Ok(());
    }
    writeln!(out, "\nMAG-BDI paper ratios per workload, all entries (raw: stream bytes; eff: bytes rounded up to the MAG):")?;
    write!(out, "{:<width$}", "workload")?;
    for (_, a) in &mags {
        let w = column(&format!("{a} raw"));
        write!(out, " {:>w$} {:>w$}", format!("{a} raw"), format!("{a} eff"))?;
    }
    writeln!(out)?;
    // (row name, (raw, effective) ratio per MAG-BDI algorithm)
    let rows = summary
        .workloads()
        .iter()
        .map(|wl| {
            let cells: Vec<_> = mags.iter().map(|&(i, _)| (wl.mag_raw_ratio(i), wl.mag_effective_ratio(i))).collect();
            (wl.name.as_str(), cells)
        })
        .chain([("GEOMEAN", mags.iter().map(|&(i, _)| (summary.geomean_mag_raw(i), summary.geomean_mag_effective(i))).collect())]);
    for (name, cells) in rows {
        write!(out, "{name:<width$}")?;
        for ((_, a), (raw, eff)) in mags.iter().zip(cells) {
            let w = column(&format!("{a} raw"));
            write!(out, " {:>w$} {:>w$}", optional_text(raw), optional_text(eff))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The LCP table of the summary (when BDI is studied): per workload the 4 KB
/// pages, how many took 512 / 1024 / 2048 / 4096 bytes, the physical bytes,
/// LCP's ratio (`4096 · pages / physical`) and the data's (`128 · entries /
/// physical`, comparable with the per-entry ratios), then their GEOMEANs.
fn write_lcp_summary(out: &mut String, summary: &Summary, width: usize) -> fmt::Result {
    let Some(i) = summary.algorithms().iter().position(|&a| a == Algorithm::Bdi) else { return Ok(()) };
    writeln!(
        out,
        "\nLCP over BDI per workload (each allocation in 4 KB pages of 512, 1024, 2048 or 4096 bytes; lcp = 4096 x pages / physical bytes, \
         lcp_data = 128 x entries / physical bytes):"
    )?;
    writeln!(
        out,
        "{:<width$} {:>8} {:>6} {:>6} {:>6} {:>6} {:>12} {:>9} {:>9}",
        "workload", "pages", "512", "1024", "2048", "4096", "physical_B", "lcp", "lcp_data"
    )?;
    for w in summary.workloads() {
        let l = w.totals[i].lcp().copied().unwrap_or_default();
        let [a, b, c, d] = l.per_size();
        writeln!(
            out,
            "{:<width$} {:>8} {a:>6} {b:>6} {c:>6} {d:>6} {:>12} {:>9} {:>9}",
            w.name,
            l.pages(),
            l.physical_bytes(),
            optional_text(LcpStats::ratio(&l)),
            optional_text(w.totals[i].lcp_data_ratio())
        )?;
    }
    let data_geomean = buddy_sim::compression_study::geomean(summary.workloads().iter().map(|w| w.totals[i].lcp_data_ratio()));
    writeln!(
        out,
        "{:<width$} {:>8} {:>6} {:>6} {:>6} {:>6} {:>12} {:>9} {:>9}",
        "GEOMEAN",
        "",
        "",
        "",
        "",
        "",
        "",
        optional_text(summary.geomean_lcp(i)),
        optional_text(data_geomean)
    )?;
    Ok(())
}

/// The `--csv` document: a header, then per workload and algorithm a row per
/// (snapshot, allocation) with a `TOTAL` row per snapshot, then the same
/// over all snapshots (snapshot `all`). `ratio` is `inf` when nothing is
/// stored and empty without entries; the MAG-BDI columns are empty for other
/// algorithms, the LCP columns (`lcp_pages`, `lcp_physical_bytes`,
/// `lcp_ratio`, `lcp_data_ratio`) for all but BDI. Ratios are printed in full (shortest
/// round-trip) precision.
fn csv_report(studies: &[CompressionStudy]) -> anyhow::Result<String> {
    let mut csv = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["workload", "algorithm", "snapshot", "allocation", "entries", "uncompressed_bytes", "stored_bytes", "ratio"];
    header.extend(SizeClass::ALL.iter().map(|c| c.name()));
    header.extend(["mag_raw_ratio", "mag_effective_ratio", "lcp_pages", "lcp_physical_bytes", "lcp_ratio", "lcp_data_ratio"]);
    csv.write_record(&header)?;
    for study in studies {
        for alg in &study.algorithms {
            let mut row = |snapshot: &str, allocation: &str, stats: &CompressionStats| {
                let ratio = match stats.ratio() {
                    Some(r) => r.to_string(),
                    None if stats.entries() == 0 => String::new(),
                    None => "inf".to_string(),
                };
                let mag = |f: fn(&MagStats) -> Option<f64>| stats.mag().and_then(f).map_or_else(String::new, |r| r.to_string());
                let mut record = vec![
                    study.workload.clone(),
                    alg.algorithm.to_string(),
                    snapshot.to_string(),
                    allocation.to_string(),
                    stats.entries().to_string(),
                    stats.uncompressed_bytes().to_string(),
                    stats.stored_bytes().to_string(),
                    ratio,
                ];
                record.extend(SizeClass::ALL.iter().map(|&c| stats.count(c).to_string()));
                record.extend([mag(MagStats::raw_ratio), mag(MagStats::effective_ratio)]);
                let lcp = stats.lcp();
                record.extend([
                    lcp.map_or_else(String::new, |l| l.pages().to_string()),
                    lcp.map_or_else(String::new, |l| l.physical_bytes().to_string()),
                    lcp.and_then(LcpStats::ratio).map_or_else(String::new, |r| r.to_string()),
                    stats.lcp_data_ratio().map_or_else(String::new, |r| r.to_string()),
                ]);
                csv.write_record(&record)
            };
            for snap in &alg.snapshots {
                let index = snap.index.to_string();
                for a in &snap.allocations {
                    row(&index, &a.name, &a.stats)?;
                }
                row(&index, "TOTAL", &snap.total)?;
            }
            for a in &alg.allocations {
                row("all", &a.name, &a.stats)?;
            }
            row("all", "TOTAL", &alg.total)?;
        }
    }
    let bytes = csv.into_inner().context("cannot write CSV")?;
    String::from_utf8(bytes).context("CSV is not UTF-8")
}

/// One TSV line per entry, with a header; the `algo` column only when the
/// studies have several algorithms, the `workload` column only when there
/// are several studies.
fn write_per_entry(out: &mut String, studies: &[CompressionStudy]) -> fmt::Result {
    let with_workload = studies.len() > 1;
    let with_algo = studies.first().is_some_and(|s| s.algorithms.len() > 1);
    if with_workload {
        out.push_str("workload\t");
    }
    if with_algo {
        out.push_str("algo\t");
    }
    out.push_str("snapshot\tallocation\tentry\tstream_bits\tclass\n");
    for study in studies {
        for r in study.entry_records() {
            if with_workload {
                write!(out, "{}\t", study.workload)?;
            }
            if with_algo {
                write!(out, "{}\t", r.algorithm)?;
            }
            writeln!(out, "{}\t{}\t{}\t{}\t{}", r.snapshot, r.allocation, r.entry, r.stream_bits, r.class)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algo_list_accepts_names_lists_and_all_without_duplicates() {
        assert_eq!(parse_algorithms("zvc").unwrap().0, vec![Algorithm::Zvc]);
        assert_eq!(parse_algorithms("all").unwrap().0, Algorithm::ALL.to_vec());
        // Order as given, duplicates dropped: zvc first, then the rest of `all`.
        let mut expected = vec![Algorithm::Zvc];
        expected.extend(Algorithm::ALL.iter().filter(|&&a| a != Algorithm::Zvc));
        assert_eq!(parse_algorithms("zvc, all").unwrap().0, expected);
        assert_eq!(parse_algorithms("mag-bdi:32,mag-bdi:16").unwrap().0, vec![Algorithm::MagBdi(Mag::B32), Algorithm::MagBdi(Mag::B16)]);
    }

    #[test]
    fn unknown_mag_lists_the_valid_choices_and_mags() {
        assert_eq!(
            parse_algorithms("mag-bdi:48").unwrap_err(),
            format!(
                "unknown algorithm 'mag-bdi:48' (valid: {}, all; or a comma-separated list; \
                 the MAG of mag-bdi:MAG is one of 16, 32, 64 bytes)",
                Algorithm::valid_names()
            )
        );
    }

    #[test]
    fn unknown_algo_lists_the_valid_choices() {
        let err = parse_algorithms("zvc,foo").unwrap_err();
        assert_eq!(err, format!("unknown algorithm 'foo' (valid: {}, all; or a comma-separated list)", Algorithm::valid_names()));
    }

    #[test]
    fn ratio_text_handles_nothing_stored() {
        let mut stats = CompressionStats::default();
        assert_eq!(ratio_text(&stats), "-");
        stats.record(SizeClass::Zero);
        assert_eq!(ratio_text(&stats), "inf");
        stats.record(SizeClass::B32);
        assert_eq!(ratio_text(&stats), "8.000");
    }
}
