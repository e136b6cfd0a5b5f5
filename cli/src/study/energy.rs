//! `buddy study energy` (Buddy Compression Fig. 13): DRAM and link energy of
//! the memory-system runs relative to the uncompressed run.

use std::fmt::Write as _;
use std::path::Path;

use buddy_sim::memory_system::Mode;
use buddy_sim::study::memory_modes::MemoryPoint;

use super::args::StudyName;
use super::common::{csv_of, Output};
use super::context::Ctx;
use super::memory_modes::MemoryRow;
use crate::plot::{bar_panels, Bars};

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "Buddy Compression Fig. 13. HBM2 energy (activations, column access and I/O per bit, Sec. IV-B, and refreshes) of the same runs relative to the uncompressed run, and with the buddy traffic's energy added as the paper charges it: the link at 11 pJ/bit with each packet's 32 B header, doubled for a switch's ingress and egress, and buddy-memory's accesses as HBM2 transactions. Compression moves fewer sectors; Buddy adds link traffic for entries that do not fit.";

pub(super) fn energy(ctx: &Ctx, out: &Path) -> anyhow::Result<Output> {
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
            let buddy_ok = |p: &&MemoryPoint| mode != Mode::Buddy || p.targets == "profiled";
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
    let _ = writeln!(table, "energy from the HBM2 model's command counts: 909 pJ per activation, 1.51 + 1.97 pJ/bit per sector moved (Sec. IV-B), energy.refresh_pj per all-bank refresh (an estimate: one activation per bank); link 11 pJ/bit of data and headers, doubled through a switch (energy.switch); buddy-memory accesses as HBM2 transactions (3.48 pJ/bit, activations at the run's own rate per sector); relative to the uncompressed run's DRAM energy");
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
                    log2_y: false,
                },
                Bars {
                    title: "DRAM + buddy link energy",
                    y_label: "relative to uncompressed DRAM",
                    groups: &groups,
                    series: &series,
                    values: &total,
                    value_label: &|v| format!("{v:.2}"),
                    log2_y: false,
                },
            ],
        )?;
        pngs.push(png);
    }
    let csv = csv_of(&rows)?;
    Ok(Output { study: StudyName::Energy, table, json: serde_json::to_value(runs)?, csv, pngs })
}
