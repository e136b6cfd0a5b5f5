//! `buddy study oversubscription` (Buddy Compression Fig. 14, ETC): runtime
//! relative to unlimited device memory of Unified Memory, its ETC
//! techniques, ETC and Buddy Compression as device memory shrinks.

use std::fmt::Write as _;
use std::path::Path;

use buddy_sim::study::oversubscription::{capacity_pages, SETTLE_TOLERANCE};
use serde::Serialize;

use super::args::StudyName;
use super::common::{csv_of, Output};
use super::context::Ctx;
use crate::plot::{line_panels_log10_y, LinePlot, Series};

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "Buddy Compression Fig. 14 and ETC (seed 004) Fig. 10-14. The workload's trace replayed as thread blocks on SMs (`um.thread_blocks`, `um.sms`) through the same L2, HBM2 and link models as `buddy sim`, with device memory = footprint / (1 + oversubscription). UM: demand paging of `um.page` pages, one far fault at a time (`um.fault_us`), migrations and LRU evictions over the host link (`um.link_gbps` per direction, one DMA engine each way), the device memory's state at the window's start from a warm-up pass over the trace. PE: proactive eviction; MT: epoch-based SM throttling; CC: LCP pages of BDI lines (device bytes per page from the snapshot) with BDI's metadata cache and sectors on the DRAM side; ETC: the combination its classifier picks. Buddy: every entry's device part in device memory (the profiler's targets, raised until they fit), the rest over NVLink; nothing pages. Y: runtime / unlimited device memory's, log scale (Fig. 14's axis). Each run replays the trace back to back (`--iterations`, default: until the slowdowns settle), an iterative program's steady state: the traces are microseconds of a run and one 20 us fault is several times a window, so a single pass measures the cold start, not the program. Oversubscriptions whose device memory holds the same whole pages as an earlier one are run once. Compare the systems, not the absolute values, with the paper's minutes-long programs (Fig. 14: up to 87x).";

pub(super) fn oversubscription(ctx: &Ctx, out: &Path) -> anyhow::Result<Output> {
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
        iterations: u32,
        slowdown_at_half: Option<f64>,
        settled: bool,
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
            "{}: footprint {:.3} MB, {} pages of {} KB; {} iterations of the trace, unlimited memory {:.1} us ({:.1} longest faults of {:.1} us){}; classified {} (coalescing {:.2}, sharing {:.2}): ETC = {}",
            o.workload,
            o.footprint_bytes as f64 / 1e6,
            o.footprint_bytes / o.page_bytes,
            o.page_bytes >> 10,
            o.iterations,
            o.unlimited.time_ns / 1000.0,
            o.unlimited.time_ns / o.longest_fault_ns,
            o.longest_fault_ns / 1000.0,
            if o.settled { ", every slowdown settled" } else { "" },
            c.class.name(),
            c.coalescing,
            c.sharing,
            o.etc.label()
        );
        let run_xs: Vec<f64> = xs.iter().copied().filter(|x| !o.merged.iter().any(|(m, _)| m == x)).collect();
        let _ = write!(table, "  {:<18}", "slowdown");
        for x in &run_xs {
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
                        let _ = write!(table, " {:>9}", format!("{s:.2}x{}", if p.settled { "" } else { "*" }));
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
                    iterations: o.iterations,
                    slowdown_at_half: p.slowdown_at_half,
                    settled: p.settled,
                    not_run: p.not_run.as_deref(),
                });
            }
            table.push('\n');
            if !points.is_empty() {
                series.push(Series { name, points });
            }
        }
        for (m, k) in &o.merged {
            let pages = |x: f64| capacity_pages(o.footprint_bytes, o.page_bytes, x);
            let _ = writeln!(
                table,
                "  {:.0}%: the same {} of {} pages as {:.0}%, not run again",
                m * 100.0,
                pages(*m),
                o.footprint_bytes / o.page_bytes,
                k * 100.0
            );
        }
        if o.points.iter().any(|p| !p.settled) {
            let _ = writeln!(
                table,
                "  *: not settled: the slowdown after all {} iterations is more than {:.0}% from the one after {}",
                o.iterations,
                SETTLE_TOLERANCE * 100.0,
                o.iterations / 2
            );
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
        line_panels_log10_y(&png, "Oversubscription: Unified Memory, ETC and Buddy Compression (Buddy Fig. 14)", &plots)?;
        pngs.push(png);
    }
    let json = serde_json::to_value(studies.iter().flatten().collect::<Vec<_>>())?;
    Ok(Output { study: StudyName::Oversubscription, table, json, csv: csv_of(&rows)?, pngs })
}
