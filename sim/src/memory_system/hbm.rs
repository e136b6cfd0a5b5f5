//! HBM2 channels as timing and energy models (buddy-memory.md §5; Buddy
//! paper Table I, Sec. IV-B). Times are picoseconds.
//!
//! Each channel has `banks` banks with one open row each and one data bus.
//! A 32-byte sector access starts when its bank is free; a row miss adds
//! precharge + activate cycles and one activation's energy; the data then
//! takes the bus for `32 / (channel bandwidth)`; requests are served first
//! come, first served per bank and per bus (a later request never uses an
//! earlier idle gap).

use serde::Serialize;

use super::config::SimConfig;

/// Bytes in one DRAM sector.
pub const SECTOR: u64 = 32;

/// Counters of all channels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct HbmStats {
    pub sector_reads: u64,
    pub sector_writes: u64,
    pub activations: u64,
    pub row_hits: u64,
}

impl HbmStats {
    /// Bytes moved.
    pub fn bytes(&self) -> u64 {
        (self.sector_reads + self.sector_writes) * SECTOR
    }

    /// Energy in picojoules: activations, column access and data I/O per bit.
    pub fn energy_pj(&self, c: &SimConfig) -> f64 {
        let bits = (self.bytes() * 8) as f64;
        self.activations as f64 * c.energy.activation_pj + bits * (c.energy.column_pj_per_bit + c.energy.io_pj_per_bit)
    }
}

#[derive(Debug, Clone)]
struct Channel {
    open_row: Vec<Option<u64>>,
    bank_free: Vec<u64>,
    bus_free: u64,
}

/// Every HBM2 channel of the GPU.
#[derive(Debug, Clone)]
pub struct Hbm {
    channels: Vec<Channel>,
    per_slice: u64,
    banks: u64,
    row_bytes: u64,
    latency_ps: u64,
    row_miss_ps: u64,
    burst_ps: u64,
    pub stats: HbmStats,
}

impl Hbm {
    /// The channels of `config` (slices x channels per slice).
    pub fn new(config: &SimConfig) -> Self {
        let n = (config.system.slices * config.hbm.channels_per_slice) as usize;
        let banks = (config.hbm.bank_groups * config.hbm.banks_per_group) as usize;
        let per_channel_bytes_per_ps = config.hbm_peak_gbps() * 1e9 / n as f64 / 1e12;
        Hbm {
            channels: vec![Channel { open_row: vec![None; banks], bank_free: vec![0; banks], bus_free: 0 }; n],
            per_slice: config.hbm.channels_per_slice as u64,
            banks: banks as u64,
            row_bytes: config.hbm.row_bytes,
            latency_ps: ((config.hbm.path_latency_cycles + config.hbm.cl) as f64 * config.cycle_ps()).round() as u64,
            row_miss_ps: ((config.hbm.t_rp + config.hbm.t_rcd) as f64 * config.cycle_ps()).round() as u64,
            burst_ps: ((SECTOR as f64 / per_channel_bytes_per_ps).round() as u64).max(1),
            stats: HbmStats::default(),
        }
    }

    /// The row-hit access latency in picoseconds.
    pub fn latency_ps(&self) -> u64 {
        self.latency_ps
    }

    /// Access `count` consecutive sectors from `address` (device physical) in
    /// slice `slice`, issued at `t`; returns when the last one is done.
    pub fn access(&mut self, slice: u64, address: u64, count: u64, write: bool, t: u64) -> u64 {
        let mut done = t;
        for i in 0..count {
            let a = address + i * SECTOR;
            // Channels interleave every 256 bytes inside a slice; banks and rows above that.
            let ch = (slice * self.per_slice + (a / 256) % self.per_slice) as usize;
            let row_addr = a / 256 / self.per_slice;
            let bank = ((row_addr * 256 / self.row_bytes) % self.banks) as usize;
            let row = row_addr * 256 / self.row_bytes / self.banks;
            let c = &mut self.channels[ch];
            let mut start = t.max(c.bank_free[bank]);
            if c.open_row[bank] == Some(row) {
                self.stats.row_hits += 1;
            } else {
                self.stats.activations += 1;
                start += self.row_miss_ps;
                c.open_row[bank] = Some(row);
            }
            let bus = (start + self.latency_ps).max(c.bus_free);
            c.bus_free = bus + self.burst_ps;
            c.bank_free[bank] = start + self.burst_ps;
            done = done.max(c.bus_free);
            if write {
                self.stats.sector_writes += 1;
            } else {
                self.stats.sector_reads += 1;
            }
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_hits_are_faster_than_misses_and_the_bus_limits_bandwidth() {
        let c = SimConfig::default();
        let mut h = Hbm::new(&c);
        let first = h.access(0, 0, 1, false, 0);
        let again = h.access(0, 0, 1, false, first) - first;
        assert!(again < first, "{again} vs {first}");
        assert_eq!((h.stats.activations, h.stats.row_hits), (1, 1));
        // 1000 sectors on one channel back to back take about 1000 bursts:
        // 900 GB/s / 32 channels = 28.1 GB/s = 32 B per 1.14 ns.
        let mut h = Hbm::new(&c);
        let mut t = 0;
        for i in 0..1000u64 {
            t = t.max(h.access(0, i * 256 * 4, 1, false, 0));
        }
        let ns = t as f64 / 1000.0;
        assert!((1100.0..1400.0).contains(&ns), "{ns} ns");
    }
}
