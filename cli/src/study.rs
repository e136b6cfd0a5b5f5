//! `buddy study NAME [PATH...]`: the Buddy Compression paper's compressibility
//! and target-ratio studies (Fig. 3, 7, 8, 9, 10) on snapshot workloads, and
//! its link-bandwidth and energy studies (Fig. 12, 13) on their traces. Every
//! study writes `<out>/<name>.json`, `<out>/<name>.csv` and PNG plots and
//! prints a table (or the JSON / CSV on stdout); `all` runs them all and
//! writes `<out>/report.md`.

mod cdma;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::output::{out, outln, safe_file_name, write_file, OutputDir};

use anyhow::{bail, Context};
use buddy_golden::offload_window::WindowAlgorithm;
use buddy_golden::profiler::{profile, Granularity, ProfilerConfig, DEFAULT_THRESHOLD, MAX_OVERALL_RATIO};
use buddy_golden::translation::TargetRatio;
use buddy_golden::{Algorithm, SizeClass};
use buddy_sim::annotation::AnnotationFile;
use buddy_sim::cdma::training::Training;
use buddy_sim::class_profile::ClassProfile;
use buddy_sim::compression_study::geomean;
use buddy_sim::memory_system::Mode;
use buddy_sim::study::buddy_over_time::BuddyOverTime;
use buddy_sim::study::cdma_ratios::CdmaRatios;
use buddy_sim::study::designs::{target_names, Designs};
use buddy_sim::study::heatmap::{Heatmap, COLUMNS};
use buddy_sim::study::memory_modes::{MemoryModes, DEFAULT_LINK_GBPS};
use buddy_sim::study::oversubscription::{Oversubscription, DEFAULT_OVERSUBSCRIPTION};
use buddy_sim::study::ratio_over_time::RatioOverTime;
use buddy_sim::study::threshold_sweep::{ThresholdSweep, DEFAULT_THRESHOLDS};
use buddy_sim::Workload;
use serde::Serialize;
use serde_json::json;
use std::cell::OnceCell;

use crate::plot::{bar_panels, heatmap, line_panels, Bars, LinePlot, Series};
use crate::args::{parse_algorithm, parse_share, parse_threshold, DEFAULT_ALGORITHM};
use crate::profile::{class_profiles, open_workloads};

/// The studies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StudyName {
    /// Fig. 8: size class of every entry, 64 per row, per snapshot.
    Heatmap,
    /// Fig. 3: compression ratio of each snapshot.
    RatioOverTime,
    /// Fig. 7: whole-program vs per-allocation vs per-allocation + 16x targets.
    Designs,
    /// Fig. 10: Buddy Threshold sweep next to the unconstrained ratio.
    ThresholdSweep,
    /// Fig. 9: buddy-access fraction per snapshot for fixed targets.
    BuddyOverTime,
    /// Fig. 12: speedup against the buddy link's bandwidth (fast-mode memory system; workloads with a trace).
    BandwidthSweep,
    /// Fig. 13: DRAM (and link) energy relative to uncompressed (fast-mode memory system).
    Energy,
    /// cDMA Fig. 11: per-layer activation compression ratios of ZVC, RL and
    /// zlib over 4 KB windows (workloads with `activation` allocations).
    CdmaRatios,
    /// cDMA Fig. 12: activation bytes offloaded to host memory by cDMA (RL,
    /// ZVC, zlib), normalized to vDNN (workloads with `activation` allocations).
    CdmaOffload,
    /// cDMA Fig. 13: training-step performance of vDNN and cDMA normalized to
    /// the oracle (workloads with `activation` allocations).
    CdmaPerformance,
    /// Buddy Fig. 14 / ETC: runtime relative to unlimited device memory of
    /// Unified Memory, UM with each ETC technique, ETC and Buddy
    /// Compression at 0-50% oversubscription (workloads with a trace).
    Oversubscription,
    /// Every study above, and report.md.
    All,
}

impl StudyName {
    const EACH: [StudyName; 11] = [
        StudyName::RatioOverTime,
        StudyName::Heatmap,
        StudyName::Designs,
        StudyName::ThresholdSweep,
        StudyName::BuddyOverTime,
        StudyName::BandwidthSweep,
        StudyName::Energy,
        StudyName::CdmaRatios,
        StudyName::CdmaOffload,
        StudyName::CdmaPerformance,
        StudyName::Oversubscription,
    ];

    fn file_stem(self) -> &'static str {
        match self {
            StudyName::Heatmap => "heatmap",
            StudyName::RatioOverTime => "ratio-over-time",
            StudyName::Designs => "designs",
            StudyName::ThresholdSweep => "threshold-sweep",
            StudyName::BuddyOverTime => "buddy-over-time",
            StudyName::BandwidthSweep => "bandwidth-sweep",
            StudyName::Energy => "energy",
            StudyName::CdmaRatios => "cdma-ratios",
            StudyName::CdmaOffload => "cdma-offload",
            StudyName::CdmaPerformance => "cdma-performance",
            StudyName::Oversubscription => "oversubscription",
            StudyName::All => "report",
        }
    }
}

/// Arguments of `buddy study`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which study.
    #[arg(value_enum)]
    pub study: StudyName,
    /// Workload folders (manifest.json + snapshots) or raw files of 128-byte
    /// entries [default: the bundled data/minife-small].
    pub paths: Vec<PathBuf>,
    /// Compression algorithm whose size classes are studied.
    #[arg(long, default_value_t = DEFAULT_ALGORITHM, value_parser = parse_algorithm)]
    pub algo: Algorithm,
    /// Buddy Threshold of the profiler (designs, buddy-over-time), e.g. 0.3 or 30%.
    #[arg(long, default_value_t = DEFAULT_THRESHOLD, value_parser = parse_threshold)]
    pub threshold: f64,
    /// Thresholds of the sweep.
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_THRESHOLDS, value_parser = parse_threshold)]
    pub thresholds: Vec<f64>,
    /// An annotation file (`buddy profile`) whose targets buddy-over-time
    /// also checks, on the workload it names.
    #[arg(long, value_name = "FILE")]
    pub annotation: Option<PathBuf>,
    /// Buddy link bandwidths of the bandwidth sweep, GB/s per direction.
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_LINK_GBPS)]
    pub link_gbps: Vec<f64>,
    /// Oversubscriptions of the oversubscription study, e.g. `0,10%,0.2`
    /// (0.1 = 10%: the footprint is 10% larger than device memory).
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_OVERSUBSCRIPTION, value_parser = parse_oversubscription)]
    pub oversubscription: Vec<f64>,
    /// TOML file overriding the memory system's parameters (as `buddy sim --config`).
    #[arg(long, value_name = "FILE")]
    pub sim_config: Option<PathBuf>,
    /// Output folder for JSON, CSV, PNG (and report.md), written only when
    /// every study succeeds.
    #[arg(long, default_value = "study", value_name = "DIR")]
    pub out: PathBuf,
    /// Write into `--out` even when it holds files buddy did not write.
    #[arg(long)]
    pub force: bool,
    /// Print the JSON document instead of the table.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print the CSV document instead of the table (not with `all`).
    #[arg(long)]
    pub csv: bool,
}

/// What one study produced.
struct Output {
    study: StudyName,
    table: String,
    json: serde_json::Value,
    csv: String,
    pngs: Vec<PathBuf>,
}

fn csv_of<T: Serialize>(rows: &[T]) -> anyhow::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r)?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

fn pct(f: f64) -> String {
    format!("{:.2}%", 100.0 * f)
}

fn opt_ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "-".to_string(), |r| format!("{r:.3}"))
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn ratio_over_time(cps: &[ClassProfile], out: &Path) -> anyhow::Result<Output> {
    let studies: Vec<RatioOverTime> = cps.iter().map(RatioOverTime::new).collect();
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        algorithm: &'a str,
        snapshot: usize,
        label: &'a str,
        entries: u64,
        zero_fraction: f64,
        ratio: Option<f64>,
    }
    let mut rows = Vec::new();
    let mut table = format!("{:<16} {:>8} {:>8} {:>8}  {}\n", "workload", "snapshot", "zero", "ratio", "label");
    for s in &studies {
        for p in &s.snapshots {
            let label = p.label.as_deref().unwrap_or("");
            rows.push(Row {
                workload: &s.workload,
                algorithm: &s.algorithm,
                snapshot: p.index,
                label,
                entries: p.entries,
                zero_fraction: p.zero_fraction,
                ratio: p.ratio,
            });
            let _ = writeln!(table, "{:<16} {:>8} {:>8} {:>8}  {label}", s.workload, p.index, pct(p.zero_fraction), opt_ratio(p.ratio));
        }
        let _ = writeln!(table, "{:<16} {:>8} {:>8} {:>8}", s.workload, "run", "", opt_ratio(s.run_ratio));
    }
    let series: Vec<Series> = studies
        .iter()
        .map(|s| Series { name: s.workload.clone(), points: s.snapshots.iter().filter_map(|p| Some((p.index as f64, p.ratio?))).collect() })
        .collect();
    let top = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(1.0f64, f64::max);
    let png = out.join("ratio-over-time.png");
    let algo = studies.first().map_or("", |s| s.algorithm.as_str());
    line_panels(
        &png,
        &format!("Compression ratio over the run ({algo}, every entry at its size-class bytes)"),
        &[(
            LinePlot {
                title: "Buddy Compression Fig. 3",
                x_label: "snapshot (manifest index, in run order)",
                y_label: "compression ratio (uncompressed / class bytes)",
                y_range: (0.0, (top * 1.15).ceil()),
                series: &series,
                x_ticks: &|x| format!("{x:.0}"),
            },
            &[],
        )],
    )?;
    Ok(Output { study: StudyName::RatioOverTime, table, json: serde_json::to_value(&studies)?, csv: csv_of(&rows)?, pngs: vec![png] })
}

fn heatmaps(cps: &[ClassProfile], out: &Path) -> anyhow::Result<Output> {
    let maps: Vec<Heatmap> = cps.iter().map(|cp| Heatmap::new(cp, COLUMNS)).collect();
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        algorithm: &'a str,
        snapshot: usize,
        allocation: &'a str,
        entry: u64,
        row: u64,
        column: u64,
        class: &'static str,
    }
    let mut rows = Vec::new();
    let mut table = format!(
        "{:<16} {:>9} {:>6} {:>8}  {}\n",
        "workload", "snapshots", "rows", "entries", "share of entries per class over all snapshots"
    );
    let mut pngs = Vec::new();
    for (m, cp) in maps.iter().zip(cps) {
        for snap in &cp.snapshots {
            let mut global = 0u64;
            for (name, classes) in cp.allocations.iter().zip(&snap.classes) {
                for (e, c) in classes.iter().enumerate() {
                    rows.push(Row {
                        workload: &m.workload,
                        algorithm: &m.algorithm,
                        snapshot: snap.index,
                        allocation: name,
                        entry: e as u64,
                        row: global / COLUMNS as u64,
                        column: global % COLUMNS as u64,
                        class: c.name(),
                    });
                    global += 1;
                }
            }
        }
        let mut all = buddy_golden::profiler::ClassHistogram::default();
        (0..cp.snapshots.len()).for_each(|i| all.add(&cp.snapshot_histogram(i)));
        let shares: Vec<String> = SizeClass::ALL
            .iter()
            .map(|c| format!("{} {:.1}%", c.name(), 100.0 * all.0[c.code() as usize] as f64 / all.entries().max(1) as f64))
            .collect();
        let _ = writeln!(
            table,
            "{:<16} {:>9} {:>6} {:>8}  {}",
            m.workload,
            m.snapshots.len(),
            m.rows(),
            cp.entries_per_snapshot(),
            shares.join(", ")
        );
        let png = out.join(format!("heatmap-{}.png", safe_file_name(&m.workload)));
        heatmap(&png, m)?;
        pngs.push(png);
    }
    Ok(Output { study: StudyName::Heatmap, table, json: serde_json::to_value(&maps)?, csv: csv_of(&rows)?, pngs })
}

fn designs(cps: &[ClassProfile], threshold: f64, out: &Path) -> anyhow::Result<Output> {
    let studies: Vec<Designs> = cps.iter().map(|cp| Designs::new(cp, threshold)).collect::<Result<_, _>>()?;
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        algorithm: &'a str,
        threshold: f64,
        design: &'static str,
        overall_ratio: f64,
        buddy_fraction_mean: f64,
        buddy_fraction_worst: f64,
        allocations_1x: usize,
        allocations_4_3x: usize,
        allocations_2x: usize,
        allocations_4x: usize,
        allocations_16x: usize,
        capped: bool,
    }
    let mut rows = Vec::new();
    let names = target_names();
    let mut table = format!(
        "Buddy Threshold {:.0}%\n{:<16} {:<27} {:>7} {:>11} {:>11}  allocations per target ({})\n",
        100.0 * threshold,
        "workload",
        "design",
        "ratio",
        "buddy mean",
        "buddy worst",
        names.join(" / ")
    );
    for s in &studies {
        for d in &s.designs {
            let t = d.allocations_per_target;
            rows.push(Row {
                workload: &s.workload,
                algorithm: &s.algorithm,
                threshold,
                design: d.design.name(),
                overall_ratio: d.overall_ratio,
                buddy_fraction_mean: d.buddy_fraction_mean,
                buddy_fraction_worst: d.buddy_fraction_worst,
                allocations_1x: t[0],
                allocations_4_3x: t[1],
                allocations_2x: t[2],
                allocations_4x: t[3],
                allocations_16x: t[4],
                capped: d.capped,
            });
            let _ = writeln!(
                table,
                "{:<16} {:<27} {:>6.3}x {:>11} {:>11}  {}{}",
                s.workload,
                d.design.name(),
                d.overall_ratio,
                pct(d.buddy_fraction_mean),
                pct(d.buddy_fraction_worst),
                t.map(|n| n.to_string()).join(" / "),
                if d.capped { " (4x cap applied)" } else { "" }
            );
        }
    }
    let mut summary = Vec::new();
    for (i, g) in Granularity::ALL.iter().enumerate() {
        let r = geomean(studies.iter().map(|s| Some(s.designs[i].overall_ratio))).unwrap_or(1.0);
        let b = mean(studies.iter().map(|s| s.designs[i].buddy_fraction_mean));
        let _ = writeln!(table, "{:<16} {:<27} {:>6.3}x {:>11}  (geomean ratio, mean buddy fraction)", "MEAN", g.name(), r, pct(b));
        summary.push(json!({"design": g.name(), "geomean_ratio": r, "mean_buddy_fraction": b}));
    }
    let groups: Vec<String> = studies.iter().map(|s| s.workload.clone()).collect();
    let series: Vec<String> = Granularity::ALL.iter().map(|g| g.name().to_string()).collect();
    let ratios: Vec<Vec<f64>> = studies.iter().map(|s| s.designs.iter().map(|d| d.overall_ratio).collect()).collect();
    let buddy: Vec<Vec<f64>> = studies.iter().map(|s| s.designs.iter().map(|d| 100.0 * d.buddy_fraction_mean).collect()).collect();
    let png = out.join("designs.png");
    bar_panels(
        &png,
        &format!("Target-ratio designs (Fig. 7), Buddy Threshold {:.0}%", 100.0 * threshold),
        &[
            Bars {
                title: "compression ratio (uncompressed / device bytes)",
                y_label: "ratio",
                groups: &groups,
                series: &series,
                values: &ratios,
                value_label: &|v| format!("{v:.2}"),
            },
            Bars {
                title: "expected buddy-memory accesses (mean over snapshots)",
                y_label: "entries not fitting (%)",
                groups: &groups,
                series: &series,
                values: &buddy,
                value_label: &|v| format!("{v:.2}"),
            },
        ],
    )?;
    let json = json!({"threshold": threshold, "workloads": studies, "summary": summary});
    Ok(Output { study: StudyName::Designs, table, json, csv: csv_of(&rows)?, pngs: vec![png] })
}

fn threshold_sweep(cps: &[ClassProfile], thresholds: &[f64], out: &Path) -> anyhow::Result<Output> {
    let studies: Vec<ThresholdSweep> = cps.iter().map(|cp| ThresholdSweep::new(cp, thresholds)).collect::<Result<_, _>>()?;
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        algorithm: &'a str,
        threshold: f64,
        overall_ratio: f64,
        buddy_fraction_mean: f64,
        buddy_fraction_worst: f64,
        unconstrained_ratio: Option<f64>,
    }
    let mut rows = Vec::new();
    let mut table = format!("{:<16} {:>13}", "workload", "unconstrained");
    thresholds.iter().for_each(|t| {
        let _ = write!(table, " {:>18}", format!("{:.0}%: ratio (buddy)", 100.0 * t));
    });
    table.push('\n');
    for s in &studies {
        let _ = write!(table, "{:<16} {:>13}", s.workload, opt_ratio(s.unconstrained_ratio));
        for p in &s.points {
            rows.push(Row {
                workload: &s.workload,
                algorithm: &s.algorithm,
                threshold: p.threshold,
                overall_ratio: p.overall_ratio,
                buddy_fraction_mean: p.buddy_fraction_mean,
                buddy_fraction_worst: p.buddy_fraction_worst,
                unconstrained_ratio: s.unconstrained_ratio,
            });
            let _ = write!(table, " {:>18}", format!("{:.3} ({})", p.overall_ratio, pct(p.buddy_fraction_mean)));
        }
        table.push('\n');
    }
    let ratio_series: Vec<Series> = studies
        .iter()
        .map(|s| Series { name: s.workload.clone(), points: s.points.iter().map(|p| (100.0 * p.threshold, p.overall_ratio)).collect() })
        .collect();
    let refs: Vec<Option<f64>> = studies.iter().map(|s| s.unconstrained_ratio).collect();
    let buddy_series: Vec<Series> = studies
        .iter()
        .map(|s| Series {
            name: s.workload.clone(),
            points: s.points.iter().map(|p| (100.0 * p.threshold, 100.0 * p.buddy_fraction_mean)).collect(),
        })
        .collect();
    let top_r = ratio_series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).chain(refs.iter().flatten().copied()).fold(1.0f64, f64::max);
    let top_b = buddy_series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(1.0f64, f64::max);
    let png = out.join("threshold-sweep.png");
    let ticks = |x: f64| format!("{x:.0}%");
    line_panels(
        &png,
        "Buddy Threshold sweep (Fig. 10), per-allocation targets with 16x",
        &[
            (
                LinePlot {
                    title: "compression ratio; dashed: unconstrained (class bytes)",
                    x_label: "Buddy Threshold",
                    y_label: "compression ratio",
                    y_range: (0.0, (top_r * 1.15).ceil()),
                    series: &ratio_series,
                    x_ticks: &ticks,
                },
                &refs,
            ),
            (
                LinePlot {
                    title: "expected buddy-memory accesses (mean over snapshots)",
                    x_label: "Buddy Threshold",
                    y_label: "entries not fitting (%)",
                    y_range: (0.0, top_b * 1.2),
                    series: &buddy_series,
                    x_ticks: &ticks,
                },
                &[],
            ),
        ],
    )?;
    Ok(Output { study: StudyName::ThresholdSweep, table, json: serde_json::to_value(&studies)?, csv: csv_of(&rows)?, pngs: vec![png] })
}

/// Read the annotation at `p` and check that it names one of `workloads`.
fn read_annotation(p: &Path, workloads: &[&str]) -> anyhow::Result<(PathBuf, AnnotationFile)> {
    let file = AnnotationFile::read(p)?;
    if !workloads.contains(&file.workload.as_str()) {
        bail!(
            "annotation {} is for workload '{}', which is not among the studied workloads ({})",
            p.display(),
            file.workload,
            workloads.join(", ")
        );
    }
    Ok((p.to_path_buf(), file))
}

fn buddy_over_time(cps: &[ClassProfile], threshold: f64, annotation: Option<&Path>, out: &Path) -> anyhow::Result<Output> {
    let names: Vec<&str> = cps.iter().map(|cp| cp.workload.as_str()).collect();
    let annotation = annotation.map(|p| read_annotation(p, &names)).transpose()?;
    let mut studies = Vec::new();
    for cp in cps {
        let allocations = cp.allocation_profiles();
        let config = ProfilerConfig { threshold, granularity: Granularity::PerAllocationMostlyZero, max_overall_ratio: MAX_OVERALL_RATIO };
        let p = profile(&allocations, &config)?;
        let mut sets = vec![(format!("profiled at {:.0}%", 100.0 * threshold), p.allocations.iter().map(|c| c.target).collect::<Vec<_>>())];
        for t in [TargetRatio::X4Over3, TargetRatio::X2, TargetRatio::X4] {
            sets.push((format!("{} everywhere", t.name()), vec![t; allocations.len()]));
        }
        if let Some((path, file)) = annotation.as_ref().filter(|(_, f)| f.workload == cp.workload) {
            let targets = file.targets(path, &cp.workload, &cp.allocations)?;
            sets.push((format!("annotation {}", path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())), targets));
        }
        studies.push(BuddyOverTime::new(cp, &sets));
    }
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        algorithm: &'a str,
        targets: &'a str,
        overall_ratio: f64,
        snapshot: usize,
        buddy_fraction: f64,
    }
    let mut rows = Vec::new();
    let mut table = String::new();
    let mut pngs = Vec::new();
    for s in &studies {
        let _ =
            write!(table, "{}: fraction of entries not fitting their target, per snapshot\n{:<24} {:>7}", s.workload, "targets", "ratio");
        s.snapshots.iter().for_each(|i| {
            let _ = write!(table, " {:>7}", format!("s{i}"));
        });
        table.push('\n');
        for series in &s.series {
            let _ = write!(table, "{:<24} {:>6.3}x", series.name, series.overall_ratio);
            for (i, f) in s.snapshots.iter().zip(&series.buddy_fraction) {
                rows.push(Row {
                    workload: &s.workload,
                    algorithm: &s.algorithm,
                    targets: &series.name,
                    overall_ratio: series.overall_ratio,
                    snapshot: *i,
                    buddy_fraction: *f,
                });
                let _ = write!(table, " {:>7}", format!("{:.2}", 100.0 * f));
            }
            table.push('\n');
        }
        table.push('\n');
        let plot_series: Vec<Series> = s
            .series
            .iter()
            .map(|x| Series {
                name: format!("{} ({:.2}x)", x.name, x.overall_ratio),
                points: s.snapshots.iter().zip(&x.buddy_fraction).map(|(i, f)| (*i as f64, 100.0 * f)).collect(),
            })
            .collect();
        let top = plot_series.iter().flat_map(|x| x.points.iter().map(|p| p.1)).fold(1.0f64, f64::max);
        let png = out.join(format!("buddy-over-time-{}.png", safe_file_name(&s.workload)));
        line_panels(
            &png,
            &format!("{}: buddy-memory accesses over the run for fixed targets (Fig. 9)", s.workload),
            &[(
                LinePlot {
                    title: &format!("{} size classes; legend: targets (overall ratio)", s.algorithm),
                    x_label: "snapshot (manifest index, in run order)",
                    y_label: "entries not fitting their target (%)",
                    y_range: (0.0, (top * 1.25).min(100.0)),
                    series: &plot_series,
                    x_ticks: &|x| format!("{x:.0}"),
                },
                &[],
            )],
        )?;
        pngs.push(png);
    }
    let table = table.trim_end().to_string() + "\n";
    Ok(Output { study: StudyName::BuddyOverTime, table, json: serde_json::to_value(&studies)?, csv: csv_of(&rows)?, pngs })
}

/// What every study of one invocation shares; the memory-system runs are
/// made once for both Fig. 12 and Fig. 13.
struct Ctx<'a> {
    cps: &'a [ClassProfile],
    workloads: &'a [Workload],
    args: &'a Args,
    /// Where the outputs are written (the staging folder of `--out`).
    out: &'a Path,
    memory: OnceCell<Vec<Option<MemoryModes>>>,
    training: OnceCell<Vec<Option<Training>>>,
    oversubscription: OnceCell<Vec<Option<Oversubscription>>>,
}

impl Ctx<'_> {
    /// Per workload, vDNN and cDMA over its snapshots (`None` without activation maps).
    fn training(&self) -> anyhow::Result<&[Option<Training>]> {
        if self.training.get().is_none() {
            let config = crate::sim::load_config(self.args.sim_config.as_deref(), None)?;
            let _ = self.training.set(self.workloads.iter().map(|w| Training::new(w, &config.cdma)).collect());
        }
        Ok(self.training.get().map(Vec::as_slice).unwrap_or(&[]))
    }

    /// The profiler's targets (per manifest allocation) of a workload.
    fn profiled_targets(&self, cp: &ClassProfile) -> anyhow::Result<Vec<TargetRatio>> {
        let pc = ProfilerConfig {
            threshold: self.args.threshold,
            granularity: Granularity::PerAllocationMostlyZero,
            max_overall_ratio: MAX_OVERALL_RATIO,
        };
        Ok(profile(&cp.allocation_profiles(), &pc)?.allocations.iter().map(|c| c.target).collect())
    }

    /// Per workload, the oversubscription runs (`None` without a trace).
    fn oversubscription(&self) -> anyhow::Result<&[Option<Oversubscription>]> {
        if self.oversubscription.get().is_none() {
            let config = crate::sim::load_config(self.args.sim_config.as_deref(), None)?;
            let mut all = Vec::new();
            for (cp, workload) in self.cps.iter().zip(self.workloads) {
                if !workload.path().join("trace.bin").is_file() {
                    all.push(None);
                    continue;
                }
                let targets = self.profiled_targets(cp)?;
                let p = crate::sim::prepare(workload, None, None)?;
                let runs = 1 + 6 * self.args.oversubscription.len();
                eprintln!(
                    "oversubscription: {} with {runs} runs (UM, UM+PE, UM+MT, UM+CC, ETC, Buddy per oversubscription) ...",
                    cp.workload
                );
                let o = Oversubscription::new(p.workload, &p.trace, targets, self.args.algo, &config, &self.args.oversubscription)
                    .with_context(|| format!("oversubscription on {}", cp.workload))?;
                all.push(Some(o));
            }
            let _ = self.oversubscription.set(all);
        }
        Ok(self.oversubscription.get().map(Vec::as_slice).unwrap_or(&[]))
    }

    /// Per workload, the memory-system runs (`None` without a trace).
    fn memory(&self) -> anyhow::Result<&[Option<MemoryModes>]> {
        if self.memory.get().is_none() {
            let config = crate::sim::load_config(self.args.sim_config.as_deref(), None)?;
            let mut all = Vec::new();
            for (cp, workload) in self.cps.iter().zip(self.workloads) {
                if !workload.path().join("trace.bin").is_file() {
                    all.push(None);
                    continue;
                }
                let targets = self.profiled_targets(cp)?;
                let p = crate::sim::prepare(workload, None, None)?;
                eprintln!("memory system: {} in every mode, Buddy at {} link bandwidths ...", cp.workload, self.args.link_gbps.len());
                let m = MemoryModes::new(p.workload, &p.trace, targets, self.args.algo, &config, &self.args.link_gbps)
                    .with_context(|| format!("memory system on {}", cp.workload))?;
                all.push(Some(m));
            }
            let _ = self.memory.set(all);
        }
        Ok(self.memory.get().map(Vec::as_slice).unwrap_or(&[]))
    }
}

fn bandwidth_sweep(ctx: &Ctx, out: &Path) -> anyhow::Result<Output> {
    let runs = ctx.memory()?;
    let mut table = format!("{:<16} {:>7} {:>14}", "workload", "ratio*", "bandwidth-only");
    ctx.args.link_gbps.iter().for_each(|g| {
        let _ = write!(table, " {:>20}", format!("buddy {g:.0} GB/s (buddy%)"));
    });
    table.push('\n');
    let mut series = Vec::new();
    let mut refs = Vec::new();
    let mut rows = Vec::new();
    for (cp, m) in ctx.cps.iter().zip(runs) {
        let Some(m) = m else {
            let _ = writeln!(table, "{:<16} no access trace: not simulated", cp.workload);
            continue;
        };
        let bw = m.points.iter().find(|p| p.mode == Mode::BandwidthOnly).map_or(1.0, |p| p.speedup);
        let _ = write!(table, "{:<16} {:>6.3}x {:>14.3}", m.workload, m.buddy_compression_ratio, bw);
        let buddy: Vec<_> = m.points.iter().filter(|p| p.mode == Mode::Buddy && p.targets == "profiled").collect();
        let naive: Vec<_> = m.points.iter().filter(|p| p.mode == Mode::Buddy && p.targets == "2x").collect();
        for p in &buddy {
            let _ = write!(table, " {:>20}", format!("{:.3} ({:.2}%)", p.speedup, 100.0 * p.buddy_access_fraction));
        }
        let _ = write!(table, "\n{:<16} {:>7} {:>14}", format!("  all at 2x"), "2.000x", "");
        for p in &naive {
            let _ = write!(table, " {:>20}", format!("{:.3} ({:.2}%)", p.speedup, 100.0 * p.buddy_access_fraction));
        }
        table.push('\n');
        for p in &m.points {
            rows.push(MemoryRow::of(&m.workload, p));
        }
        series.push(Series {
            name: format!("{} buddy, profiled", m.workload),
            points: buddy.iter().map(|p| (p.link_gbps, p.speedup)).collect(),
        });
        series.push(Series {
            name: format!("{} buddy, all 2x", m.workload),
            points: naive.iter().map(|p| (p.link_gbps, p.speedup)).collect(),
        });
        refs.push(Some(bw));
        refs.push(None);
    }
    let _ = writeln!(
        table,
        "speedup = uncompressed time / time (fast mode, {} size classes); dashed in the plot: bandwidth-only",
        ctx.args.algo
    );
    let _ = writeln!(
        table,
        "* capacity ratio of the Buddy runs over every allocation the trace touches, at its full allocated size (trace_meta.json), temporaries at 2x; the profiler's ratio covers the snapshot bytes only"
    );
    let mut pngs = Vec::new();
    if !series.is_empty() {
        let top = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).chain(refs.iter().flatten().copied()).fold(1.0f64, f64::max);
        let png = out.join("bandwidth-sweep.png");
        line_panels(
            &png,
            "Buddy link bandwidth sweep (Fig. 12), normalized to uncompressed",
            &[(
                LinePlot {
                    title: "solid: Buddy Compression (profiled targets, and all at 2x); dashed: bandwidth-only",
                    x_label: "buddy link bandwidth per direction (GB/s)",
                    y_label: "speedup over uncompressed",
                    y_range: (0.0, (top * 1.2 * 4.0).ceil() / 4.0),
                    series: &series,
                    x_ticks: &|x| format!("{x:.0}"),
                },
                &refs,
            )],
        )?;
        pngs.push(png);
    }
    let csv = csv_of(&rows)?;
    Ok(Output { study: StudyName::BandwidthSweep, table, json: serde_json::to_value(runs)?, csv, pngs })
}

fn energy(ctx: &Ctx, out: &Path) -> anyhow::Result<Output> {
    let runs = ctx.memory()?;
    let gbps = crate::sim::load_config(ctx.args.sim_config.as_deref(), None)?.nvlink.gbps;
    let mut table =
        format!("{:<16} {:<15} {:>9} {:>12} {:>12} {:>14}\n", "workload", "mode", "link GB/s", "DRAM uJ", "DRAM rel.", "DRAM+link rel.");
    let (mut groups, mut dram, mut total) = (Vec::new(), Vec::new(), Vec::new());
    let mut shown_gbps = gbps;
    let mut rows = Vec::new();
    for (cp, m) in ctx.cps.iter().zip(runs) {
        let Some(m) = m else {
            let _ = writeln!(table, "{:<16} no access trace: not simulated", cp.workload);
            continue;
        };
        let pick = |mode: Mode| {
            let buddy_ok = |p: &&buddy_sim::study::memory_modes::MemoryPoint| mode != Mode::Buddy || p.targets == "profiled";
            m.points
                .iter()
                .filter(buddy_ok)
                .find(|p| p.mode == mode && (mode != Mode::Buddy || p.link_gbps == gbps))
                .or_else(|| m.points.iter().filter(buddy_ok).rev().find(|p| p.mode == mode))
        };
        let chosen: Vec<_> = [Mode::Uncompressed, Mode::BandwidthOnly, Mode::Buddy].into_iter().filter_map(pick).collect();
        if let Some(b) = chosen.iter().find(|p| p.mode == Mode::Buddy) {
            shown_gbps = b.link_gbps;
        }
        for p in &chosen {
            let _ = writeln!(
                table,
                "{:<16} {:<15} {:>9.0} {:>12.3} {:>12.3} {:>14.3}",
                m.workload,
                p.mode.name(),
                p.link_gbps,
                p.dram_pj / 1e6,
                p.dram_energy_relative,
                p.total_energy_relative
            );
            rows.push(MemoryRow::of(&m.workload, p));
        }
        groups.push(m.workload.clone());
        dram.push(chosen.iter().map(|p| p.dram_energy_relative).collect::<Vec<_>>());
        total.push(chosen.iter().map(|p| p.total_energy_relative).collect::<Vec<_>>());
    }
    let _ = writeln!(table, "energy from the HBM2 model's command counts: 909 pJ per activation, 1.51 + 1.97 pJ/bit per sector moved (Sec. IV-B), energy.refresh_pj per all-bank refresh (an estimate: one activation per bank); link 11 pJ/bit; relative to the uncompressed run's DRAM energy");
    let mut pngs = Vec::new();
    if !groups.is_empty() {
        let series: Vec<String> =
            ["uncompressed".to_string(), "bandwidth-only".to_string(), format!("buddy ({shown_gbps:.0} GB/s)")].to_vec();
        let png = out.join("energy.png");
        bar_panels(
            &png,
            "Memory energy relative to uncompressed (Fig. 13)",
            &[
                Bars {
                    title: "HBM2 DRAM energy",
                    y_label: "relative to uncompressed",
                    groups: &groups,
                    series: &series,
                    values: &dram,
                    value_label: &|v| format!("{v:.2}"),
                },
                Bars {
                    title: "DRAM + buddy link energy",
                    y_label: "relative to uncompressed DRAM",
                    groups: &groups,
                    series: &series,
                    values: &total,
                    value_label: &|v| format!("{v:.2}"),
                },
            ],
        )?;
        pngs.push(png);
    }
    let csv = csv_of(&rows)?;
    Ok(Output { study: StudyName::Energy, table, json: serde_json::to_value(runs)?, csv, pngs })
}

/// One memory-system run as a CSV row.
#[derive(Serialize)]
struct MemoryRow<'a> {
    workload: &'a str,
    mode: &'static str,
    targets: &'static str,
    link_gbps: f64,
    time_ns: f64,
    speedup: f64,
    buddy_access_fraction: f64,
    device_bytes: u64,
    buddy_bytes: u64,
    dram_pj: f64,
    link_pj: f64,
    dram_energy_relative: f64,
    total_energy_relative: f64,
}

impl<'a> MemoryRow<'a> {
    fn of(workload: &'a str, p: &buddy_sim::study::memory_modes::MemoryPoint) -> Self {
        MemoryRow {
            workload,
            mode: p.mode.name(),
            targets: p.targets,
            link_gbps: p.link_gbps,
            time_ns: p.time_ns,
            speedup: p.speedup,
            buddy_access_fraction: p.buddy_access_fraction,
            device_bytes: p.device_bytes,
            buddy_bytes: p.buddy_bytes,
            dram_pj: p.dram_pj,
            link_pj: p.link_pj,
            dram_energy_relative: p.dram_energy_relative,
            total_energy_relative: p.total_energy_relative,
        }
    }
}

fn run_one(study: StudyName, ctx: &Ctx) -> anyhow::Result<Output> {
    let (cps, args, out) = (ctx.cps, ctx.args, ctx.out);
    match study {
        StudyName::Heatmap => heatmaps(cps, out),
        StudyName::RatioOverTime => ratio_over_time(cps, out),
        StudyName::Designs => designs(cps, args.threshold, out),
        StudyName::ThresholdSweep => threshold_sweep(cps, &args.thresholds, out),
        StudyName::BuddyOverTime => buddy_over_time(cps, args.threshold, args.annotation.as_deref(), out),
        StudyName::BandwidthSweep => bandwidth_sweep(ctx, out),
        StudyName::Energy => energy(ctx, out),
        StudyName::CdmaRatios => cdma_ratios(ctx.workloads, out),
        StudyName::CdmaOffload => cdma::cdma_offload(ctx.workloads, ctx.training()?, out),
        StudyName::CdmaPerformance => cdma::cdma_performance(ctx.workloads, ctx.training()?, out),
        StudyName::Oversubscription => oversubscription(ctx, out),
        StudyName::All => unreachable!("`all` runs the others"),
    }
}

fn write_files(o: &Output, out: &Path) -> anyhow::Result<()> {
    let stem = o.study.file_stem();
    write_file(&out.join(format!("{stem}.json")), serde_json::to_string_pretty(&o.json)? + "\n")?;
    write_file(&out.join(format!("{stem}.csv")), &o.csv)?;
    Ok(())
}

/// How to read each study, for report.md.
fn explanation(study: StudyName) -> &'static str {
    match study {
        StudyName::RatioOverTime => "Buddy Compression Fig. 3. Every entry stored at exactly its size-class bytes (0, 8, 16, 32, 64, 80, 96, 128 B; no target ratio, no page packing): the optimistic ratio each snapshot could reach. A flat line means the data's compressibility does not drift over the run; a target chosen early then stays right.",
        StudyName::Heatmap => "Buddy Compression Fig. 8. One panel per snapshot; each pixel square is one 128 B memory-entry, 64 per row, in virtual-address order (allocations back to back in manifest order; ticks at the left mark where each allocation starts). Blue = compressible (ZERO, 8 B), red = incompressible (RAW). Large single-coloured bands that start at allocation ticks are why per-allocation targets work.",
        StudyName::Designs => "Buddy Compression Fig. 7. The profiler (worst snapshot within the Buddy Threshold) choosing one target for the whole program, one per allocation (1x-4x), and one per allocation with 16x for mostly-zero allocations; ratio = uncompressed bytes / device bytes (capped at 4x), buddy accesses = fraction of entries whose class does not fit the device part (every entry taken as equally likely to be accessed).",
        StudyName::ThresholdSweep => "Buddy Compression Fig. 10. The evaluated design at each Buddy Threshold; the dashed line of the same colour is the unconstrained ratio (every entry at its class bytes over the whole run), the ceiling that targets approach as the threshold rises.",
        StudyName::BuddyOverTime => "Buddy Compression Fig. 9. Targets fixed once (by the profiler over all snapshots, or one ratio everywhere) and every snapshot checked against them. A flat line means compressibility changes are unbiased and the static targets stay valid over the run.",
        StudyName::BandwidthSweep => "Buddy Compression Fig. 12. The workload's access trace through the memory system in fast mode (golden models, HBM2 and NVLink timing; `buddy sim`), with the profiler's targets at the Buddy Threshold above: speedup over the uncompressed run for Buddy Compression at each buddy link bandwidth (solid) and for bandwidth-only compression (dashed; it never uses the link). Workloads without a trace are not simulated.",
        StudyName::Energy => "Buddy Compression Fig. 13. HBM2 energy (activations, column access and I/O per bit, Sec. IV-B, and refreshes) of the same runs relative to the uncompressed run, and with the buddy link's energy (11 pJ/bit) added. Compression moves fewer sectors; Buddy adds link traffic for entries that do not fit.",
        StudyName::CdmaRatios => "cDMA (seed 003) Fig. 11. Every activation map (an allocation with role `activation`) of every snapshot, compressed in 4 KB windows by ZVC (cDMA's zero-value compression: per 128 B line a 32-bit mask and the non-zero words), RL (run-length encoding: PackBits over 32-bit words) and zlib (DEFLATE level 6); average = all activation bytes over all stored bytes (the paper's size-weighted average, the PCIe traffic reduction), max = the best layer. The snapshots hold each map in the layout the framework stored it (row-major) and only a slice of each tensor, so the paper's NCHW / NHWC / CHWN comparison cannot be built from them. The paper: ZVC 2.6x on average over six CNNs, independent of layout; zlib 2.76x with NCHW.",
        StudyName::CdmaOffload => "cDMA (seed 003) Fig. 12. Each snapshot is one training step of the network its manifest describes (layers grouped by the number in the allocation names; `docs/cdma.md`). vDNN offloads every activation map of every layer but the last to host memory (whole tensors, `full_size`; a stored slice stands for its tensor); cDMA sends the same lines compressed by RL, ZVC or zlib (4 KB windows). Bars: offloaded bytes over vDNN's (lower is better). The DMA engine is simulated line by line (request launcher, response buffer sized by bandwidth x latency, PCIe); its buffer's peak and the highest DRAM read bandwidth of one layer's offload are in the table. The paper: 2.6x less PCIe traffic with ZVC on average over six CNNs (ReLU activations), zlib only 3% less than ZVC.",
        StudyName::CdmaPerformance => "cDMA (seed 003) Fig. 13. The same training steps timed: each layer computes at `cdma.gpu_tflops` or at the DRAM bandwidth its bytes need (whichever is slower), the offload of the previous layer's maps overlaps it in the forward pass and their prefetch in the backward pass (vDNN), and the DMA engine's DRAM reads are taken from the layer's bandwidth. Bars: oracle time (no offload) over each policy's time (higher is better); `vdnn exposed` is the share of vDNN's step spent waiting for PCIe. The paper: cDMA improves vDNN by 32% on average (up to 61%), on CNNs with ReLU activations (AlexNet: 49.4% zeros on average); vDNN alone loses 31% on average against the oracle.",
        StudyName::Oversubscription => "Buddy Compression Fig. 14 and ETC (seed 004) Fig. 10-14. The workload's trace replayed as thread blocks on SMs (`um.thread_blocks`, `um.sms`) through the same L2, HBM2 and link models as `buddy sim`, with device memory = footprint / (1 + oversubscription). UM: demand paging of `um.page` pages, one far fault at a time (`um.fault_us`), migrations and LRU evictions over the host link (`um.link_gbps` per direction, one DMA engine each way), the device memory's state at the window's start from a warm-up pass over the trace. PE: proactive eviction; MT: epoch-based SM throttling; CC: LCP pages of BDI lines (device bytes per page from the snapshot) with BDI's metadata cache and sectors on the DRAM side; ETC: the combination its classifier picks. Buddy: every entry's device part in device memory (the profiler's targets, raised until they fit), the rest over NVLink; nothing pages. Y: runtime / unlimited device memory's, log scale (Fig. 14's axis). The traces are microseconds of a run: one 20 us fault is several times a whole window, so UM's slowdowns are large; compare the systems, not the absolute values, with the paper's minutes-long programs (Fig. 14: up to 87x).",
        StudyName::All => "",
    }
}

fn cdma_ratios(workloads: &[Workload], out: &Path) -> anyhow::Result<Output> {
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        snapshot: usize,
        layer: &'a str,
        bytes: u64,
        zero_fraction: f64,
        rl_bytes: u64,
        zvc_bytes: u64,
        zlib_bytes: u64,
        rl_ratio: f64,
        zvc_ratio: f64,
        zlib_ratio: f64,
    }
    let names = WindowAlgorithm::ALL.map(|a| a.name());
    let mut table = format!("{:<16} {:>7} {:>9}", "workload", "layers", "MB");
    for n in names {
        let _ = write!(table, " {:>9} {:>9}", format!("{n} avg"), format!("{n} max"));
    }
    table.push('\n');
    let mut studies = Vec::new();
    let mut rows = Vec::new();
    for w in workloads {
        let Some(study) = CdmaRatios::new(w) else {
            let _ = writeln!(table, "{:<16} no activation allocations (manifest role `activation`): skipped", w.manifest().workload);
            continue;
        };
        let bytes: u64 = study.layers.iter().map(|l| l.bytes).sum();
        let _ = write!(table, "{:<16} {:>7} {:>9.3}", study.workload, study.layers.len(), bytes as f64 / 1e6);
        for s in &study.summary {
            let _ = write!(table, " {:>8.3}x {:>8.3}x", s.average, s.max);
        }
        table.push('\n');
        studies.push(study);
    }
    for study in &studies {
        for l in &study.layers {
            rows.push(Row {
                workload: &study.workload,
                snapshot: l.snapshot,
                layer: &l.layer,
                bytes: l.bytes,
                zero_fraction: l.zero_fraction,
                rl_bytes: l.stored[0],
                zvc_bytes: l.stored[1],
                zlib_bytes: l.stored[2],
                rl_ratio: l.ratio[0],
                zvc_ratio: l.ratio[1],
                zlib_ratio: l.ratio[2],
            });
        }
    }
    let csv = csv_of(&rows)?;
    let mut pngs = Vec::new();
    if !studies.is_empty() {
        let groups: Vec<String> = studies.iter().map(|s| s.workload.clone()).collect();
        let series: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let average: Vec<Vec<f64>> = studies.iter().map(|s| s.summary.iter().map(|a| a.average).collect()).collect();
        let max: Vec<Vec<f64>> = studies.iter().map(|s| s.summary.iter().map(|a| a.max).collect()).collect();
        let png = out.join("cdma-ratios.png");
        bar_panels(
            &png,
            "Activation compression over 4 KB windows (cDMA Fig. 11), layout as stored",
            &[
                Bars {
                    title: "average (activation bytes / stored bytes)",
                    y_label: "compression ratio",
                    groups: &groups,
                    series: &series,
                    values: &average,
                    value_label: &|v| format!("{v:.2}"),
                },
                Bars {
                    title: "maximum per-layer ratio",
                    y_label: "compression ratio",
                    groups: &groups,
                    series: &series,
                    values: &max,
                    value_label: &|v| format!("{v:.2}"),
                },
            ],
        )?;
        pngs.push(png);
    }
    Ok(Output { study: StudyName::CdmaRatios, table, json: json!({"workloads": studies}), csv, pngs })
}

fn report_md(outputs: &[Output], cps: &[ClassProfile], args: &Args) -> String {
    let mut s = format!(
        "# Buddy Compression studies\n\nWorkloads: {}. Size classes by `{}` (golden model), profiler Buddy Threshold {:.0}% (sweep: {}), 4x cap on the overall ratio.\n\n",
        cps.iter().map(|cp| format!("`{}` ({} snapshots, {} entries each)", cp.workload, cp.snapshots.len(), cp.entries_per_snapshot())).collect::<Vec<_>>().join(", "),
        args.algo,
        100.0 * args.threshold,
        args.thresholds.iter().map(|t| format!("{:.0}%", 100.0 * t)).collect::<Vec<_>>().join(", ")
    );
    s += "The paper's averages for its evaluated design (Sec. III-C): 1.9x compression for HPC and 1.5x for DL, with 0.08% (HPC) and 4% (DL) of accesses going to buddy-memory.\n\n";
    for o in outputs {
        let stem = o.study.file_stem();
        let _ = write!(s, "## {stem}\n\n{}\n\n```\n{}```\n\n", explanation(o.study), o.table);
        for png in &o.pngs {
            let name = png.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let _ = write!(s, "![{name}]({name})\n\n");
        }
        let _ = write!(s, "Data: `{stem}.json`, `{stem}.csv`.\n\n");
    }
    s += "Fig. 12 and 13 come from the fast engine of the memory system with the paper's idealized controller timing (the golden behaviour model of the slices in place of the hardware); `buddy sim --engine rtl` runs the `BuddyController` hardware instead, which serves one request at a time per slice.\n";
    s
}

/// Run `buddy study`.
///
/// # Errors
/// Invalid workloads or annotation, `--csv` with `all`, or files that cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.csv && args.study == StudyName::All {
        bail!("--csv prints one study's table; with `all` the CSV files are in the output folder");
    }
    if args.thresholds.is_empty() {
        bail!("--thresholds needs at least one threshold");
    }
    let paths = if args.paths.is_empty() { vec![crate::bundled::default_workload()?] } else { args.paths.clone() };
    let workloads = open_workloads(&paths)?;
    let config = crate::sim::load_config(args.sim_config.as_deref(), None)?;
    for &g in &args.link_gbps {
        let mut c = config.clone();
        c.nvlink.gbps = g;
        c.validate().with_context(|| format!("--link-gbps {g}"))?;
    }
    if let Some(a) = &args.annotation {
        let names: Vec<&str> = workloads.iter().map(|w| w.manifest().workload.as_str()).collect();
        read_annotation(a, &names)?;
    }
    let staging = OutputDir::prepare(&args.out, args.force)?;
    let cps = class_profiles(&workloads, args.algo);
    let studies: Vec<StudyName> = if args.study == StudyName::All { StudyName::EACH.to_vec() } else { vec![args.study] };
    let mut outputs = Vec::new();
    let ctx = Ctx {
        cps: &cps,
        workloads: &workloads,
        args: &args,
        out: staging.path(),
        memory: OnceCell::new(),
        training: OnceCell::new(),
        oversubscription: OnceCell::new(),
    };
    for s in studies {
        let o = run_one(s, &ctx).with_context(|| format!("study {}", s.file_stem()))?;
        write_files(&o, staging.path())?;
        outputs.push(o);
    }
    if args.study == StudyName::All {
        write_file(&staging.path().join("report.md"), report_md(&outputs, &cps, &args))?;
    }
    let out = staging.commit()?;
    // The plots as the user will find them.
    let placed = |p: &Path| p.file_name().map_or_else(|| p.to_path_buf(), |n| out.join(n));
    if args.json {
        let doc = if outputs.len() == 1 {
            outputs.remove(0).json
        } else {
            serde_json::Value::Object(outputs.into_iter().map(|o| (o.study.file_stem().to_string(), o.json)).collect())
        };
        outln!("{}", serde_json::to_string_pretty(&doc)?)?;
    } else if args.csv {
        out!("{}", outputs[0].csv)?;
    } else {
        for o in &outputs {
            outln!("== {} ==\n{}", o.study.file_stem(), o.table)?;
            for p in &o.pngs {
                outln!("plot: {}", placed(p).display())?;
            }
            outln!()?;
        }
        if args.study == StudyName::All {
            outln!("report: {}", out.join("report.md").display())?;
        }
    }
    Ok(())
}

/// An oversubscription: `0.1` or `10%`, from 0 to 10 (1000%).
fn parse_oversubscription(s: &str) -> Result<f64, String> {
    let v = parse_share(s, "0.2 or 20%")?;
    if (0.0..=10.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("an oversubscription must lie from 0 to 10 (0% to 1000%), got {s}"))
    }
}

fn oversubscription(ctx: &Ctx, out: &Path) -> anyhow::Result<Output> {
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        system: &'a str,
        oversubscription: f64,
        slowdown: Option<f64>,
        time_ns: Option<f64>,
        device_memory_bytes: Option<u64>,
        faults: Option<u64>,
        evictions: Option<u64>,
        proactive_evictions: Option<u64>,
        migrated_in_bytes: Option<u64>,
        migrated_out_bytes: Option<u64>,
        throttles: Option<u64>,
        fewest_sms: Option<usize>,
        metadata_accesses: Option<u64>,
        compression_ratio: Option<f64>,
        buddy_access_fraction: Option<f64>,
        not_run: Option<&'a str>,
    }
    let studies = ctx.oversubscription()?;
    let xs = &ctx.args.oversubscription;
    let mut table = String::new();
    let mut rows = Vec::new();
    let mut panels: Vec<(String, Vec<Series>)> = Vec::new();
    for (cp, study) in ctx.cps.iter().zip(studies) {
        let Some(o) = study else {
            let _ = writeln!(table, "{:<16} no access trace: not simulated", cp.workload);
            continue;
        };
        let c = &o.classification;
        let _ = writeln!(
            table,
            "{}: footprint {:.3} MB in {} KB pages, unlimited memory {:.1} us; classified {} (coalescing {:.2}, sharing {:.2}): ETC = {}",
            o.workload,
            o.footprint_bytes as f64 / 1e6,
            o.page_bytes >> 10,
            o.unlimited.time_ns / 1000.0,
            c.class.name(),
            c.coalescing,
            c.sharing,
            o.etc.label()
        );
        let _ = write!(table, "  {:<18}", "slowdown");
        for x in xs {
            let _ = write!(table, " {:>9}", format!("{:.0}%", x * 100.0));
        }
        table.push('\n');
        let mut series = Vec::new();
        for name in o.system_names() {
            let _ = write!(table, "  {name:<18}");
            let mut points = Vec::new();
            for p in o.points.iter().filter(|p| p.system == name) {
                match p.slowdown {
                    Some(s) => {
                        let _ = write!(table, " {:>9}", format!("{s:.2}x"));
                        points.push((p.oversubscription * 100.0, s));
                    }
                    None => {
                        let _ = write!(table, " {:>9}", "n/a");
                    }
                }
                let r = p.run.as_ref();
                rows.push(Row {
                    workload: &o.workload,
                    system: &p.system,
                    oversubscription: p.oversubscription,
                    slowdown: p.slowdown,
                    time_ns: r.map(|r| r.time_ns),
                    device_memory_bytes: r.map(|r| r.device_memory_bytes),
                    faults: r.and_then(|r| r.paging).map(|s| s.faults),
                    evictions: r.and_then(|r| r.paging).map(|s| s.evictions),
                    proactive_evictions: r.and_then(|r| r.paging).map(|s| s.proactive_evictions),
                    migrated_in_bytes: r.and_then(|r| r.paging).map(|s| s.bytes_in),
                    migrated_out_bytes: r.and_then(|r| r.paging).map(|s| s.bytes_out),
                    throttles: r.and_then(|r| r.throttle).map(|t| t.throttles),
                    fewest_sms: r.and_then(|r| r.throttle).map(|t| t.min_active),
                    metadata_accesses: r.map(|r| r.metadata_accesses),
                    compression_ratio: r.map(|r| r.compression_ratio),
                    buddy_access_fraction: r.map(|r| r.buddy_access_fraction),
                    not_run: p.not_run.as_deref(),
                });
            }
            table.push('\n');
            if !points.is_empty() {
                series.push(Series { name, points });
            }
        }
        for p in o.points.iter().filter(|p| p.not_run.is_some()) {
            let _ =
                writeln!(table, "  n/a: {} at {:.0}%: {}", p.system, p.oversubscription * 100.0, p.not_run.as_deref().unwrap_or_default());
        }
        panels.push((o.workload.clone(), series));
    }
    let _ = writeln!(table, "slowdown = runtime / runtime with unlimited device memory (same replay, nothing compressed); oversubscription x: device memory = footprint / (1 + x)");
    let mut pngs = Vec::new();
    if !panels.is_empty() {
        let top = panels.iter().flat_map(|(_, s)| s.iter().flat_map(|s| s.points.iter().map(|p| p.1))).fold(2.0f64, f64::max);
        let png = out.join("oversubscription.png");
        let plots: Vec<LinePlot> = panels
            .iter()
            .map(|(w, series)| LinePlot {
                title: w.as_str(),
                x_label: "oversubscription (%): footprint / device memory - 1",
                y_label: "runtime relative to unlimited memory (log)",
                y_range: (0.8, top * 1.5),
                series,
                x_ticks: &|x| format!("{x:.0}%"),
            })
            .collect();
        crate::plot::line_panels_log10_y(&png, "Oversubscription: Unified Memory, ETC and Buddy Compression (Buddy Fig. 14)", &plots)?;
        pngs.push(png);
    }
    let json = serde_json::to_value(studies.iter().flatten().collect::<Vec<_>>())?;
    Ok(Output { study: StudyName::Oversubscription, table, json, csv: csv_of(&rows)?, pngs })
}
