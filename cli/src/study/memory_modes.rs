//! The CSV row of the memory-system runs that `bandwidth-sweep` (Fig. 12)
//! and `energy` (Fig. 13) share ([`buddy_sim::study::memory_modes`]).

use buddy_sim::study::memory_modes::MemoryPoint;
use serde::Serialize;

/// One memory-system run as a CSV row.
#[derive(Serialize)]
pub(super) struct MemoryRow<'a> {
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
    buddy_memory_pj: f64,
    dram_energy_relative: f64,
    total_energy_relative: f64,
}

impl<'a> MemoryRow<'a> {
    pub(super) fn of(workload: &'a str, p: &MemoryPoint) -> Self {
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
            buddy_memory_pj: p.buddy_memory_pj,
            dram_energy_relative: p.dram_energy_relative,
            total_energy_relative: p.total_energy_relative,
        }
    }
}
