//! The NVLink buddy link (docs/formats.md#timing-defaults): one link per direction,
//! `gbps` each, packets of a 32-byte control header plus the sectors, and a
//! buddy access latency of `latency_factor` x the HBM2 latency. Times are
//! picoseconds; packets are served first come, first served.

use serde::Serialize;

use crate::config::SimConfig;

/// Counters of both directions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LinkStats {
    /// Packets and bytes (data plus headers) from buddy-memory to the GPU.
    pub read_packets: u64,
    pub read_bytes: u64,
    /// Packets and bytes from the GPU to buddy-memory.
    pub write_packets: u64,
    pub write_bytes: u64,
    /// Picoseconds each direction was busy.
    pub read_busy_ps: u64,
    pub write_busy_ps: u64,
}

impl LinkStats {
    /// The link's energy in picojoules: every byte sent, headers included,
    /// at `energy.link_pj_per_bit`, doubled through a switch (Buddy
    /// Compression Sec. IV-B).
    pub fn energy_pj(&self, c: &SimConfig) -> f64 {
        let factor = if c.energy.switch { 2.0 } else { 1.0 };
        ((self.read_bytes + self.write_bytes) * 8) as f64 * c.energy.link_pj_per_bit * factor
    }

    /// Data bytes moved to and from buddy-memory (the packets' bytes less
    /// their `header_bytes` headers).
    pub fn data_bytes(&self, header_bytes: u64) -> u64 {
        (self.read_bytes + self.write_bytes).saturating_sub((self.read_packets + self.write_packets) * header_bytes)
    }
}

/// The buddy link.
#[derive(Debug, Clone)]
pub struct Nvlink {
    ps_per_byte: f64,
    latency_ps: u64,
    header: u64,
    read_free: u64,
    write_free: u64,
    pub stats: LinkStats,
}

impl Nvlink {
    /// The link of `config`; `hbm_latency_ps` is the HBM2 row-hit latency.
    pub fn new(config: &SimConfig, hbm_latency_ps: u64) -> Self {
        Nvlink {
            ps_per_byte: 1e12 / (config.nvlink.gbps * 1e9),
            latency_ps: (hbm_latency_ps as f64 * config.nvlink.latency_factor).round() as u64,
            header: config.nvlink.header_bytes,
            read_free: 0,
            write_free: 0,
            stats: LinkStats::default(),
        }
    }

    /// One packet of `bytes` data bytes issued at `t`; returns when the
    /// data has arrived (read) or been written (write).
    pub fn transfer(&mut self, bytes: u64, write: bool, t: u64) -> u64 {
        self.send(bytes, write, t, true)
    }

    /// `bytes` more data bytes of the packet last sent in this direction,
    /// issued at `t` (no header: a packet streamed a sector at a time, as
    /// the pipelined slice sends one; its bytes and busy time add up to
    /// those of the whole packet sent at once). Returns when they have
    /// arrived (read) or been written (write).
    pub fn continue_packet(&mut self, bytes: u64, write: bool, t: u64) -> u64 {
        self.send(bytes, write, t, false)
    }

    fn send(&mut self, bytes: u64, write: bool, t: u64, header: bool) -> u64 {
        let total = bytes + if header { self.header } else { 0 };
        let busy = (total as f64 * self.ps_per_byte).round() as u64;
        let free = if write { &mut self.write_free } else { &mut self.read_free };
        let start = t.max(*free);
        *free = start + busy;
        let end = *free;
        if write {
            self.stats.write_packets += header as u64;
            self.stats.write_bytes += total;
            self.stats.write_busy_ps += busy;
        } else {
            self.stats.read_packets += header as u64;
            self.stats.read_bytes += total;
            self.stats.read_busy_ps += busy;
        }
        end + self.latency_ps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidth_and_latency() {
        let c = SimConfig::default();
        let mut l = Nvlink::new(&c, 100_000);
        // 1000 packets of 64 B + 32 B header at 150 GB/s: 96 kB / 150 GB/s = 640 ns.
        let mut t = 0;
        for _ in 0..1000 {
            t = l.transfer(64, false, 0);
        }
        assert_eq!(t, 640_000 + 200_000);
        assert_eq!(l.stats.read_bytes, 96_000);
        // The write direction is independent.
        assert_eq!(l.transfer(32, true, 0), 427 + 200_000);
    }

    /// Buddy Compression Sec. IV-B: a buddy access's link energy counts its
    /// 32 B header and is doubled through the switch (by default), and its
    /// buddy-memory access is priced as an HBM2 transaction.
    #[test]
    fn one_buddy_access_pays_header_switch_and_a_remote_hbm2_access() {
        let c = SimConfig::default();
        assert!(c.energy.switch, "the paper charges the switch");
        let mut l = Nvlink::new(&c, 100_000);
        l.transfer(32, false, 0);
        // (32 B of data + 32 B header) x 8 bits x 11 pJ/bit x 2 (switch ingress and egress).
        assert_eq!(l.stats.energy_pj(&c), 64.0 * 8.0 * 11.0 * 2.0);
        let no_switch = SimConfig { energy: crate::config::EnergyConfig { switch: false, ..c.energy.clone() }, ..c.clone() };
        assert_eq!(l.stats.energy_pj(&no_switch), 64.0 * 8.0 * 11.0);
        assert_eq!(l.stats.data_bytes(c.nvlink.header_bytes), 32);
        // The remote access: 256 bits at 1.51 + 1.97 pJ/bit, and an
        // activation per 4 sectors when the run's device traffic had that rate.
        let device = crate::memory_system::hbm::HbmStats { sector_reads: 4, activations: 1, ..Default::default() };
        let remote = crate::memory_system::buddy_memory_energy_pj(&l.stats, &device, &c);
        assert!((remote - (256.0 * 3.48 + 909.0 / 4.0)).abs() < 1e-6, "{remote}");
    }

    #[test]
    fn a_packet_streamed_in_sectors_costs_the_whole_packet() {
        let c = SimConfig::default();
        let (mut whole, mut streamed) = (Nvlink::new(&c, 100_000), Nvlink::new(&c, 100_000));
        let at = whole.transfer(96, false, 0);
        streamed.transfer(32, false, 0);
        streamed.continue_packet(32, false, 0);
        assert_eq!(streamed.continue_packet(32, false, 0), at);
        assert_eq!((streamed.stats.read_packets, streamed.stats.read_bytes), (1, 128));
        assert_eq!(streamed.stats, whole.stats);
    }
}
