//! `buddy study heatmap` (Buddy Compression Fig. 8): the size class of every
//! entry, 64 per row, per snapshot.

use std::fmt::Write as _;
use std::path::Path;

use buddy_golden::SizeClass;
use buddy_sim::class_profile::ClassProfile;
use buddy_sim::study::heatmap::{Heatmap, COLUMNS};
use serde::Serialize;

use super::args::StudyName;
use super::common::{csv_of, Output};
use crate::output::safe_file_name;
use crate::plot::heatmap;

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "Buddy Compression Fig. 8. One panel per snapshot; each pixel square is one 128 B memory-entry, 64 per row, in virtual-address order (allocations back to back in manifest order; ticks at the left mark where each allocation starts). Blue = compressible (ZERO, 8 B), red = incompressible (RAW). Large single-coloured bands that start at allocation ticks are why per-allocation targets work.";

pub(super) fn heatmaps(cps: &[ClassProfile], out: &Path) -> anyhow::Result<Output> {
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
