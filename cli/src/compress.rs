//! `buddy compress`: compress every entry of a workload with the golden
//! codecs and report size-class histograms and compression ratios.
//!
//! Everything is computed before anything is printed, so stdout holds either
//! the complete report or nothing.

use std::fmt::{self, Write as _};
use std::io::{self, Write as _};
use std::path::PathBuf;
use std::str::FromStr;

use anyhow::Context;
use buddy_golden::{Algorithm, SizeClass};
use buddy_sim::compression_study::{self, CompressionStats, CompressionStudy};
use buddy_sim::Workload;

/// The bundled default workload: a 2-snapshot subset of miniFE.
pub const DEFAULT_WORKLOAD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/minife-small");

/// Arguments of `buddy compress`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload folder (manifest.json + snapshot files) or raw binary file of
    /// 128-byte entries [default: the bundled data/minife-small].
    path: Option<PathBuf>,
    /// Algorithm: a name, a comma-separated list of names, or `all`.
    #[arg(long, value_name = "ALGOS", default_value = "zvc", value_parser = parse_algorithms)]
    algo: AlgorithmList,
    /// Print one JSON document (per snapshot, per allocation, totals) instead of tables.
    #[arg(long, conflicts_with = "per_entry")]
    json: bool,
    /// Print one TSV line per entry: snapshot, allocation, entry (index within
    /// the allocation), stream_bits, class; an algo column comes first when
    /// several algorithms are given.
    #[arg(long)]
    per_entry: bool,
    /// Only the snapshot with this manifest index.
    #[arg(long, value_name = "N")]
    snapshot: Option<usize>,
}

/// The algorithms of `--algo`, without duplicates, in the order given.
#[derive(Debug, Clone)]
struct AlgorithmList(Vec<Algorithm>);

/// Parse `--algo`: comma-separated names of [`Algorithm::ALL`], or `all`.
fn parse_algorithms(s: &str) -> Result<AlgorithmList, String> {
    let mut list = Vec::new();
    for name in s.split(',').map(str::trim) {
        let algorithms = if name == "all" {
            Algorithm::ALL.to_vec()
        } else {
            let algorithm = Algorithm::from_str(name).map_err(|e| {
                format!(
                    "unknown algorithm '{}' (valid: {}, all; or a comma-separated list)",
                    e.given, e.valid
                )
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
/// The workload cannot be opened or is invalid, `--snapshot` names no
/// snapshot, or stdout cannot be written (a closed pipe is not an error).
pub fn run(args: Args) -> anyhow::Result<()> {
    let path = args.path.unwrap_or_else(|| PathBuf::from(DEFAULT_WORKLOAD));
    let mut workload = Workload::open(&path).context("cannot open workload")?;
    if let Some(index) = args.snapshot {
        workload = workload
            .select_snapshot(index)
            .with_context(|| format!("--snapshot {index} of {}", path.display()))?;
    }
    let algorithms = &args.algo.0;
    let progress = compression_study::progress_bar(&workload, algorithms.len());
    let study = CompressionStudy::run(&workload, algorithms, &progress);
    progress.finish_and_clear();

    let report = if args.json {
        let mut json =
            serde_json::to_string_pretty(&study).context("cannot serialize the study")?;
        json.push('\n');
        json
    } else {
        let mut text = String::new();
        if args.per_entry {
            write_per_entry(&mut text, &study)?;
        } else {
            write_tables(&mut text, &study, &workload)?;
        }
        text
    };
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(report.as_bytes())
        .and_then(|()| stdout.flush())
    {
        // The reader stopped early (`buddy compress --per-entry | head`): not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        result => result.context("cannot write to stdout"),
    }
}

/// The table report and the JSON report of the compression study of the
/// workload at `path` (every snapshot), as `buddy compress` prints them.
///
/// # Errors
/// The workload cannot be opened or is invalid.
pub fn reports(path: &std::path::Path, algorithms: &[Algorithm]) -> anyhow::Result<(String, String)> {
    let workload = Workload::open(path).context("cannot open workload")?;
    let progress = compression_study::progress_bar(&workload, algorithms.len());
    let study = CompressionStudy::run(&workload, algorithms, &progress);
    progress.finish_and_clear();
    let mut text = String::new();
    write_tables(&mut text, &study, &workload)?;
    let json = serde_json::to_string_pretty(&study).context("cannot serialize the study")? + "\n";
    Ok((text, json))
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

/// Per algorithm: a table of the allocations over all snapshots with a TOTAL
/// row, then one line per snapshot total.
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
        let width = alg
            .allocations
            .iter()
            .map(|a| a.name.len())
            .chain(["allocation".len()])
            .max()
            .unwrap_or_default();
        writeln!(out, "\nalgorithm {}, all snapshots:", alg.algorithm)?;
        write!(
            out,
            "{:<width$} {:>9} {:>8}",
            "allocation", "entries", "ratio"
        )?;
        for class in SizeClass::ALL {
            write!(out, " {:>8}", class.name())?;
        }
        writeln!(out)?;
        let rows = alg.allocations.iter().map(|a| (a.name.as_str(), &a.stats));
        for (name, stats) in rows.chain([("TOTAL", &alg.total)]) {
            write!(
                out,
                "{name:<width$} {:>9} {:>8}",
                stats.entries(),
                ratio_text(stats)
            )?;
            for class in SizeClass::ALL {
                write!(out, " {:>8}", stats.count(class))?;
            }
            writeln!(out)?;
        }
        writeln!(out, "\nalgorithm {}, per snapshot:", alg.algorithm)?;
        for snap in &alg.snapshots {
            writeln!(
                out,
                "snapshot {:>3}  {}  entries {}  uncompressed {} B  stored {} B  ratio {}{}",
                snap.index,
                snap.file,
                snap.total.entries(),
                snap.total.uncompressed_bytes(),
                snap.total.stored_bytes(),
                ratio_text(&snap.total),
                snap.label
                    .as_deref()
                    .map(|l| format!("  ({l})"))
                    .unwrap_or_default()
            )?;
        }
    }
    Ok(())
}

/// One TSV line per entry, with a header; the `algo` column only when the
/// study has several algorithms.
fn write_per_entry(out: &mut String, study: &CompressionStudy) -> fmt::Result {
    let with_algo = study.algorithms.len() > 1;
    if with_algo {
        out.push_str("algo\t");
    }
    out.push_str("snapshot\tallocation\tentry\tstream_bits\tclass\n");
    for r in study.entry_records() {
        if with_algo {
            write!(out, "{}\t", r.algorithm)?;
        }
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}",
            r.snapshot, r.allocation, r.entry, r.stream_bits, r.class
        )?;
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
        assert_eq!(
            parse_algorithms("mag-bdi:32,mag-bdi:16").unwrap().0,
            vec![Algorithm::MagBdi(buddy_golden::Mag::B32), Algorithm::MagBdi(buddy_golden::Mag::B16)]
        );
        assert!(parse_algorithms("mag-bdi:48").unwrap_err().contains("mag-bdi:16"));
    }

    #[test]
    fn unknown_algo_lists_the_valid_choices() {
        let err = parse_algorithms("zvc,foo").unwrap_err();
        assert_eq!(
            err,
            format!(
                "unknown algorithm 'foo' (valid: {}, all; or a comma-separated list)",
                Algorithm::valid_names()
            )
        );
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
