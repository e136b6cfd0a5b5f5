//! `buddy study bandwidth-sweep` (Buddy Compression Fig. 12): speedup over
//! uncompressed against the buddy link's bandwidth, on the workloads' traces.

use std::fmt::Write as _;
use std::path::Path;

use buddy_sim::memory_system::Mode;

use super::args::StudyName;
use super::common::{csv_of, Output};
use super::context::Ctx;
use super::memory_modes::MemoryRow;
use crate::plot::{line_panels, LinePlot, Reference, Series};

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "Buddy Compression Fig. 12. The workload's access trace through the memory system in fast mode (golden models, HBM2 and NVLink timing; `buddy sim`), with the profiler's targets at the Buddy Threshold above: speedup over the uncompressed run for Buddy Compression at each buddy link bandwidth (solid) and for bandwidth-only compression (dashed; it never uses the link). Each run replays the trace back to back (`--iterations`, default: doubling until every speedup moves less than 1%), so the L2 and the metadata cache reach their steady state; one pass of these short traces measured their cold misses. Workloads without a trace are not simulated.";

pub(super) fn bandwidth_sweep(ctx: &Ctx, out: &Path) -> anyhow::Result<Output> {
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
        let _ = write!(table, "\n{:<16} {:>7} {:>14}", "  all at 2x", "2.000x", "");
        for p in &naive {
            let _ = write!(table, " {:>20}", format!("{:.3} ({:.2}%)", p.speedup, 100.0 * p.buddy_access_fraction));
        }
        let _ = write!(
            table,
            "\n{:<16} {} iterations of the trace{}",
            "",
            m.iterations,
            if m.settled { " (speedups settled within 1%)" } else { "" }
        );
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
        refs.push(Some(Reference { y: bw, name: format!("{} bandwidth-only", m.workload) }));
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
        let top = series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .chain(refs.iter().flatten().map(|r: &Reference| r.y))
            .fold(1.0f64, f64::max);
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
