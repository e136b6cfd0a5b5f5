//! `buddy mdcache`: metadata cache hit rate against size per slice on the
//! access traces of workloads (Buddy Compression Fig. 6b), as a table, JSON
//! and a PNG plot.

use anyhow::{bail, Context};
use buddy_golden::metadata_cache::MetadataCacheConfig;
use buddy_sim::l2_cache::{L2Config, L2Stats};
use buddy_sim::mdcache_study::{l2_requests, replay, SizePoint, SliceInterleave};
use buddy_sim::trace::{AddressLayout, Trace, DEFAULT_HEAP_BASE};
use buddy_sim::workload::read_manifest;
use serde::Serialize;
use std::path::{Path, PathBuf};

use crate::args::parse_byte_size;
use crate::output::{out, outln, OutputFile};
use crate::plot::{line_plot_log2_x, LinePlot, Series};

/// Arguments of `buddy mdcache`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Workload folders holding `trace.bin` and `trace_meta.json` (and
    /// usually `manifest.json`) [default: the bundled data/minife-small].
    pub paths: Vec<PathBuf>,
    /// Metadata cache sizes per controller slice (bytes, or with K/M suffix).
    #[arg(long, value_delimiter = ',', default_value = "1K,2K,4K,8K,16K,32K,64K", value_parser = parse_bytes)]
    pub sizes: Vec<usize>,
    /// Memory-controller slices, each with its own metadata cache.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub slices: u16,
    /// Metadata cache associativity.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub ways: u16,
    /// L2 capacity in bytes (K/M suffix allowed) in front of the controllers.
    #[arg(long, default_value = "64K", value_parser = parse_bytes)]
    pub l2: usize,
    /// L2 associativity.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub l2_ways: u16,
    /// Page size the allocations are aligned to: 2M or 64K.
    #[arg(long, default_value = "2M", value_parser = ["2M", "64K"])]
    pub page: String,
    /// How blocks of 64 entries are dealt to the slices, as
    /// `system.slice_interleave` in `buddy sim`: `hashed` (a hash of the
    /// address bits above them, Buddy Compression Sec. III-C) or `plain`
    /// (block mod slices).
    #[arg(long, default_value = "hashed", value_parser = crate::sim::slice_interleave_parser())]
    pub slice_interleave: SliceInterleave,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Write a PNG plot of hit rate against size to this file.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Replace the `--plot` file even when it is not one buddy wrote (or it
    /// was changed since): without it only buddy's own unchanged file is replaced.
    #[arg(long)]
    pub force: bool,
}

/// `4096`, `4K`, `2M` (binary units; [`parse_byte_size`]) → bytes.
fn parse_bytes(s: &str) -> Result<usize, String> {
    match parse_byte_size(s).and_then(|b| usize::try_from(b).ok()) {
        Some(b) if b <= MAX_CACHE_BYTES => Ok(b),
        Some(_) => Err(format!("'{s}' is above the 1G a cache here may have")),
        None => Err(format!("'{s}' is not a size (e.g. 4096, 4K, 2M)")),
    }
}

/// The largest cache (metadata cache or L2) `--sizes` and `--l2` accept.
const MAX_CACHE_BYTES: usize = 1 << 30;

/// One workload's result.
#[derive(Debug, Serialize)]
pub struct WorkloadResult {
    pub workload: String,
    pub trace_accesses: usize,
    /// Requests the L2 sent to the controllers (entry reads and write-backs).
    pub l2_requests: usize,
    pub l2: L2Stats,
    pub points: Vec<SizePoint>,
}

/// The whole study.
#[derive(Debug, Serialize)]
pub struct Report {
    pub slices: u16,
    /// `hashed` or `plain` (`--slice-interleave`).
    pub slice_interleave: SliceInterleave,
    pub ways: usize,
    pub line_bytes: usize,
    pub sector_bytes: usize,
    pub l2: L2Config,
    pub page_bytes: u64,
    pub workloads: Vec<WorkloadResult>,
}

fn study(path: &Path, args: &Args, page_bytes: u64) -> anyhow::Result<WorkloadResult> {
    let trace = Trace::open(path).with_context(|| format!("cannot read the access trace of {}", path.display()))?;
    // Manifest order for the layout, when the folder has snapshots (the
    // snapshot bytes themselves are not needed).
    let order: Vec<(String, u64)> = if path.join("manifest.json").exists() {
        let manifest = read_manifest(path).context("cannot read the workload manifest")?;
        let snap = manifest.snapshots.first().context("manifest without snapshots")?;
        snap.allocations.iter().map(|a| (a.name.clone(), a.size)).collect()
    } else {
        Vec::new()
    };
    let layout = AddressLayout::new(&trace.meta, &order, DEFAULT_HEAP_BASE, page_bytes);
    let (requests, l2) = l2_requests(&trace, &layout, L2Config { bytes: args.l2 as u64, ways: args.l2_ways as usize })?;
    let mut points = Vec::new();
    for &size in &args.sizes {
        let config = MetadataCacheConfig { size_bytes: size, ways: args.ways as usize, ..Default::default() };
        points.push(
            replay(&requests, layout.heap_base, args.slices as usize, args.slice_interleave, config)
                .with_context(|| format!("metadata cache of {size} bytes"))?,
        );
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string());
    Ok(WorkloadResult { workload: name, trace_accesses: trace.accesses.len(), l2_requests: requests.len(), l2, points })
}

fn size_label(bytes: f64) -> String {
    let b = bytes.round() as u64;
    if b >= 1024 && b.is_multiple_of(1024) {
        format!("{}K", b / 1024)
    } else {
        format!("{b}")
    }
}

/// The report as a text table.
pub fn table(r: &Report) -> String {
    let mut s = format!(
        "metadata cache hit rate per slice size ({} slices, {} interleave, {}-way, {} B lines, {} B sectors; L2 {} B, {}-way)\n",
        r.slices, r.slice_interleave.name(), r.ways, r.line_bytes, r.sector_bytes, r.l2.bytes, r.l2.ways
    );
    for w in &r.workloads {
        s += &format!(
            "\n{}: {} trace accesses -> {} L2 requests ({} misses, {} write-backs)\n",
            w.workload, w.trace_accesses, w.l2_requests, w.l2.misses, w.l2.write_backs
        );
        s += &format!("{:>8} {:>9} {:>10} {:>8} {:>8} {:>11}\n", "size", "hit rate", "accesses", "misses", "fills", "write-backs");
        for p in &w.points {
            let st = &p.stats;
            s += &format!(
                "{:>8} {:>8.2}% {:>10} {:>8} {:>8} {:>11}\n",
                size_label(p.bytes_per_slice as f64),
                100.0 * p.hit_rate,
                st.reads + st.writes,
                st.sector_misses + st.line_misses,
                st.fills,
                st.write_backs
            );
        }
    }
    s
}

/// Run `buddy mdcache`.
///
/// # Errors
/// A workload without a valid trace, an impossible cache geometry, or a
/// plot that cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    let paths = if args.paths.is_empty() { vec![crate::bundled::default_workload()?] } else { args.paths.clone() };
    let plot = args.plot.as_deref().map(|p| OutputFile::prepare(p, args.force)).transpose()?;
    if args.sizes.is_empty() {
        bail!("--sizes needs at least one size");
    }
    let page_bytes = if args.page == "64K" { 64 << 10 } else { 2 << 20 };
    let mut workloads = Vec::new();
    for p in &paths {
        workloads.push(study(p, &args, page_bytes)?);
    }
    let report = Report {
        slices: args.slices,
        slice_interleave: args.slice_interleave,
        ways: args.ways as usize,
        line_bytes: 128,
        sector_bytes: 32,
        l2: L2Config { bytes: args.l2 as u64, ways: args.l2_ways as usize },
        page_bytes,
        workloads,
    };
    let plot = if let Some(file) = plot {
        let series: Vec<Series> = report
            .workloads
            .iter()
            .map(|w| Series {
                name: w.workload.clone(),
                points: w.points.iter().map(|p| (p.bytes_per_slice as f64, 100.0 * p.hit_rate)).collect(),
            })
            .collect();
        let lo = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(100.0f64, f64::min);
        line_plot_log2_x(
            file.path(),
            &LinePlot {
                title: &format!(
                    "Metadata cache hit rate ({} slices, {}-way, L2 {})",
                    report.slices,
                    report.ways,
                    size_label(args.l2 as f64)
                ),
                x_label: "metadata cache size per slice (bytes)",
                y_label: "hit rate (%)",
                y_range: ((lo - 5.0).clamp(0.0, 95.0).floor(), 100.0),
                series: &series,
                x_ticks: &size_label,
            },
        )?;
        Some(file.commit()?)
    } else {
        None
    };
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        out!("{}", table(&report))?;
        if let Some(png) = &plot {
            outln!("plot: {}", png.display())?;
        }
    }
    Ok(())
}
