//! The GPU's HBM2 device memory in the memory system: every channel's
//! JEDEC controller ([`super::dram::channel`]), the address mapping of a
//! slice's device addresses onto its channels, sector bursts as tickets,
//! and the counters and energy (docs/formats.md#timing-defaults; Buddy paper Table I,
//! Sec. IV-B).
//!
//! Address mapping (`hbm.address_mapping`, slice-local, 32-byte sectors;
//! bit positions for the defaults: 4 channels a slice, 4 bank groups of 4
//! banks, 2 KiB rows):
//!
//! | device address bits | `rows` (default) | `xor`, `plain` (before 2026-12-01) |
//! |---|---|---|
//! | 0-4 | byte in the sector | byte in the sector |
//! | 5-6 | column, low 2 bits (4 sectors: one 128 B memory-entry) | the same |
//! | 7-8 (log2 channels per slice) | channel of the slice | the same |
//! | 9-10 | bank group | bank, 4 bits (bits 9-12) |
//! | 11-14 | column, high 4 bits (64 columns = one 2 KiB row) | |
//! | 13-16 | | column, high 4 bits |
//! | 15-16 | bank in the group | |
//! | 17 and up | row | row |
//!
//! `rows` XORs every 4-bit group of the row into the bank; `xor` XORs every
//! 4-bit group above the bank (columns and row); `plain` does not fold.
//!
//! A memory-entry (and any part of it) is in one channel and one row.
//! Under `rows` consecutive entries go to the slice's channels, then to
//! the bank groups, then along a row: 32 KiB of device addresses fill one
//! row in each bank group of each channel, so a stream is served
//! by row hits and its column commands alternate bank groups (tCCD_S, not
//! tCCD_L), as DRAMsim3's and Ramulator's default mappings keep the columns
//! below the bank. `xor` put the banks below the columns: a 64-entry block
//! touched every bank once, and since the slice that owns an address is
//! chosen from the virtual address (64-entry blocks, so bits 13-15 of an
//! uncompressed page are constant within a slice) a row served at most 8
//! of its 64 sectors to its slice (4.4 sectors an activation on minife).
//! Under `rows` those constant bits fall in the columns' high bits and the
//! bank, so a slice uses a quarter of each row's columns of an uncompressed
//! page (a slice-local address without them would use all; not modelled);
//! folding the row into the bank spreads every slice's addresses over all
//! of its channels' banks.
//!
//! A burst of `count` sectors is `count` requests arriving at the same
//! cycle; it is done when its last sector is, plus `hbm.path_latency_cycles`
//! for the rest of the path.

use serde::Serialize;

use crate::config::SimConfig;
use super::dram::channel::{Channel, ChannelStats, Completion, Request};
use super::dram::timing::HbmTiming;
use super::id_map::IdMap;
use super::time::cycle_start_ps;

/// Bytes in one DRAM sector.
pub const SECTOR: u64 = buddy_golden::translation::SECTOR_BYTES;

/// Counters of all channels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct HbmStats {
    /// Sectors requested (reads include those answered from a write buffer).
    pub sector_reads: u64,
    pub sector_writes: u64,
    /// DRAM commands issued.
    pub activations: u64,
    pub precharges: u64,
    /// Column commands to an already used open row.
    pub row_hits: u64,
    pub refreshes: u64,
}

impl HbmStats {
    /// Bytes moved.
    pub fn bytes(&self) -> u64 {
        (self.sector_reads + self.sector_writes) * SECTOR
    }

    /// Energy in picojoules from the command counts: activations,
    /// column access and data I/O per bit moved (Sec. IV-B: 909 pJ,
    /// 1.51 pJ/bit, 1.97 pJ/bit), and all-bank refreshes.
    pub fn energy_pj(&self, c: &SimConfig) -> f64 {
        let bits = (self.bytes() * 8) as f64;
        self.activations as f64 * c.energy.activation_pj
            + bits * (c.energy.column_pj_per_bit + c.energy.io_pj_per_bit)
            + self.refreshes as f64 * c.energy.refresh_pj
    }
}

/// Where a device address lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DramLocation {
    /// Channel of the whole GPU (slice x channels per slice + channel).
    pub channel: usize,
    /// Bank in the channel (`bank_group * banks_per_group + bank`).
    pub bank: u16,
    pub row: u32,
    pub column: u16,
}

/// A burst in flight.
#[derive(Debug, Clone, Copy)]
struct Ticket {
    remaining: u32,
    last: u64,
}

/// `hbm.address_mapping` (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mapping {
    /// Bank group, columns, bank in the group, row; the row folded into the bank.
    Rows,
    /// Bank, columns, row; columns and row folded into the bank.
    Xor,
    /// As `Xor`, not folded.
    Plain,
}

/// Every HBM2 channel of the GPU.
#[derive(Debug, Clone)]
pub struct Hbm {
    timing: HbmTiming,
    channels: Vec<Channel>,
    per_slice: u64,
    channel_bits: u32,
    banks: u64,
    rows: u64,
    columns: u64,
    mapping: Mapping,
    /// log2 of the bank groups of a channel.
    group_bits: u32,
    cycle_ps: f64,
    path_cycles: u64,
    /// Bursts in flight by ticket (tickets are never reused).
    tickets: IdMap<Ticket>,
    next_ticket: u64,
    /// Requests handed in, not yet given to their channel (arrival cycle, order key, channel, request).
    pending: Vec<(u64, (u64, u64), usize, Request)>,
    done: Vec<Completion>,
    sector_reads: u64,
    sector_writes: u64,
}

impl Hbm {
    /// The channels of `config` (slices x channels per slice), idle.
    ///
    /// # Panics
    /// `hbm.channels_per_slice` not a power of two (rejected by
    /// `SimConfig::validate`).
    pub fn new(config: &SimConfig) -> Self {
        let timing = HbmTiming::new(&config.hbm);
        let n = (config.system.slices * config.hbm.channels_per_slice) as usize;
        let per_slice = config.hbm.channels_per_slice as u64;
        assert!(per_slice.is_power_of_two(), "hbm.channels_per_slice is validated to be a power of two");
        Hbm {
            channels: (0..n).map(|_| Channel::new(&timing)).collect(),
            per_slice,
            channel_bits: per_slice.trailing_zeros(),
            banks: timing.banks() as u64,
            rows: timing.rows,
            columns: timing.columns,
            mapping: match config.hbm.address_mapping.as_str() {
                "xor" => Mapping::Xor,
                "plain" => Mapping::Plain,
                _ => Mapping::Rows,
            },
            group_bits: timing.bank_groups.trailing_zeros(),
            cycle_ps: config.cycle_ps(),
            path_cycles: config.hbm.path_latency_cycles,
            timing,
            tickets: Default::default(),
            next_ticket: 0,
            pending: Vec::new(),
            done: Vec::new(),
            sector_reads: 0,
            sector_writes: 0,
        }
    }

    /// The channel, bank, row and column of device address `address` in
    /// slice `slice` (see the module docs).
    pub fn locate(&self, slice: u64, address: u64) -> DramLocation {
        let sector = address / SECTOR;
        // Four sectors: one 128 B memory-entry.
        let col_low = sector & 3;
        let ch = (sector >> 2) & (self.per_slice - 1);
        let above = sector >> (2 + self.channel_bits);
        let bank_bits = self.banks.trailing_zeros();
        let col_bits = self.columns.trailing_zeros() - 2;
        let field = |value: u64, shift: u32, bits: u32| (value >> shift) & ((1 << bits) - 1);
        let (col_high, mut bank, row) = match self.mapping {
            Mapping::Rows => {
                let g = self.group_bits;
                let group = field(above, 0, g);
                let in_group = field(above, g + col_bits, bank_bits - g);
                (field(above, g, col_bits), group << (bank_bits - g) | in_group, above >> (col_bits + bank_bits))
            }
            Mapping::Xor | Mapping::Plain => (field(above, bank_bits, col_bits), field(above, 0, bank_bits), above >> (bank_bits + col_bits)),
        };
        // Fold the bits above the bank into it: the row's (`rows`; its
        // columns would scatter a row over the banks), or the columns' and
        // the row's (`xor`).
        let mut rest = match self.mapping {
            Mapping::Rows => row,
            Mapping::Xor => above >> bank_bits,
            Mapping::Plain => 0,
        };
        while bank_bits > 0 && rest != 0 {
            bank ^= rest & (self.banks - 1);
            rest >>= bank_bits;
        }
        DramLocation {
            channel: (slice * self.per_slice + ch) as usize,
            bank: bank as u16,
            row: (row % self.rows) as u32,
            column: (col_high * 4 + col_low) as u16,
        }
    }

    /// Hand in a burst of `count` sectors from `address` (slice `slice`)
    /// arriving at `cycle`; `order`: sorts bursts of the same cycle (the
    /// order they reach the channels' front ends). Returns the ticket.
    pub fn submit(&mut self, slice: u64, address: u64, count: u64, write: bool, cycle: u64, order: (u64, u64)) -> u64 {
        assert!(count > 0, "a burst has at least one sector");
        let id = self.next_ticket;
        self.next_ticket += 1;
        self.tickets.insert(id, Ticket { remaining: count as u32, last: cycle });
        for i in 0..count {
            let at = self.locate(slice, address + i * SECTOR);
            let r = Request { id, arrival: cycle, bank: at.bank, row: at.row, column: at.column, write };
            self.pending.push((cycle, (order.0, order.1 * 64 + i), at.channel, r));
        }
        if write {
            self.sector_writes += count;
        } else {
            self.sector_reads += count;
        }
        id
    }

    /// Give the bursts handed in to their channels, in (arrival, order) order.
    fn flush_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        self.pending.sort_by_key(|p| (p.0, p.1));
        for (_, _, ch, r) in self.pending.drain(..) {
            self.channels[ch].push(r);
        }
    }

    /// Simulate every channel through cycle `cycle`; returns the tickets
    /// finished, with the cycle their data is done at the far end of the
    /// path (last sector + path latency).
    pub fn advance_through(&mut self, cycle: u64, finished: &mut Vec<(u64, u64)>) {
        self.flush_pending();
        for ch in &mut self.channels {
            if ch.next_activity() <= cycle {
                ch.run_until(cycle + 1, &mut self.done);
            }
        }
        for c in self.done.drain(..) {
            let t = self.tickets.get_mut(&c.id).expect("a completion belongs to a burst in flight");
            t.remaining -= 1;
            t.last = t.last.max(c.cycle);
            if t.remaining == 0 {
                finished.push((c.id, t.last + self.path_cycles));
                self.tickets.remove(&c.id);
            }
        }
    }

    /// The first cycle at which a channel may act (requests handed in
    /// count as activity at their arrival), or `None` when every channel
    /// is idle.
    pub fn next_activity(&self) -> Option<u64> {
        let pending = self.pending.iter().map(|p| p.0).min();
        let busy = self.channels.iter().filter(|c| c.in_flight() > 0).map(|c| c.next_activity()).min();
        match (pending, busy) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The busy channels' states (debugging).
    pub fn describe(&self) -> String {
        self.channels
            .iter()
            .enumerate()
            .filter(|(_, c)| c.in_flight() > 0)
            .map(|(i, c)| format!("ch{i}: {}", c.describe()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Bursts handed in and not finished.
    pub fn busy(&self) -> bool {
        !self.pending.is_empty() || self.channels.iter().any(|c| c.in_flight() > 0) || !self.done.is_empty()
    }

    /// Bring every channel's refreshes up to `cycle` (the end of a run).
    pub fn finish(&mut self, cycle: u64) {
        let mut sink = Vec::new();
        for ch in &mut self.channels {
            if ch.now() < cycle {
                ch.run_until(cycle, &mut sink);
            }
        }
    }

    /// The counters: sectors handed in, and the channels' command counts so far.
    pub fn stats(&self) -> HbmStats {
        let mut s = ChannelStats::default();
        for ch in &self.channels {
            s += ch.stats;
        }
        HbmStats {
            sector_reads: self.sector_reads,
            sector_writes: self.sector_writes,
            activations: s.activations,
            precharges: s.precharges,
            row_hits: s.row_hits,
            refreshes: s.refreshes,
        }
    }

    /// Banks that served at least one column command, per channel.
    pub fn banks_used(&self) -> Vec<usize> {
        self.channels.iter().map(|c| c.banks_used()).collect()
    }

    /// Start of DRAM cycle `cycle`, picoseconds.
    pub fn ps(&self, cycle: u64) -> u64 {
        cycle_start_ps(cycle, self.cycle_ps)
    }

    /// Cycles of an unloaded read of a closed bank, path included (the
    /// reference for the buddy link's latency factor).
    pub fn unloaded_read_cycles(&self) -> u64 {
        self.timing.closed_bank_read_cycles() + self.path_cycles + 1
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;

    fn hbm(mapping: &str) -> Hbm {
        let mut c = SimConfig::default();
        c.hbm.address_mapping = mapping.into();
        Hbm::new(&c)
    }

    /// Every mapping gives each sector of a slice its own place (4 MiB of
    /// device addresses, which the row fold reaches).
    #[test]
    fn every_mapping_is_one_to_one() {
        for mapping in ["rows", "xor", "plain"] {
            let h = hbm(mapping);
            let mut seen = HashSet::new();
            for sector in 0..(4 << 20) / SECTOR {
                let at = h.locate(3, sector * SECTOR);
                assert!(seen.insert((at.channel, at.bank, at.row, at.column)), "{mapping}: sector {sector} shares {at:?}");
            }
        }
    }

    /// `rows`: 32 KiB of device addresses fill one 2 KiB row in each bank
    /// group of each channel, and a channel's consecutive memory-entries
    /// go to different bank groups.
    #[test]
    fn rows_fills_a_row_per_bank_group_and_alternates_groups() {
        let h = hbm("rows");
        let c = SimConfig::default();
        let (channels, groups) = (c.hbm.channels_per_slice as u64, c.hbm.bank_groups as u64);
        let row_sectors = c.hbm.row_bytes as u64 / SECTOR;
        let span = channels * groups * c.hbm.row_bytes as u64;
        assert_eq!(span, 32 << 10);
        for base in [0, span, 7 * span] {
            let mut rows: HashMap<(usize, u16), (HashSet<u32>, HashSet<u16>)> = HashMap::new();
            for sector in 0..span / SECTOR {
                let at = h.locate(0, base + sector * SECTOR);
                let e = rows.entry((at.channel, at.bank)).or_default();
                e.0.insert(at.row);
                e.1.insert(at.column);
            }
            assert_eq!(rows.len() as u64, channels * groups);
            assert!(rows.values().all(|(r, cols)| r.len() == 1 && cols.len() as u64 == row_sectors));
        }
        let group = |a: u64| h.locate(0, a).bank as u64 / c.hbm.banks_per_group as u64;
        let entry_stride = channels * ENTRY;
        for e in 0..1024 {
            assert_ne!(group(e * entry_stride), group((e + 1) * entry_stride), "entry {e}");
        }
    }

    /// `rows`: a slice's addresses of an uncompressed 2 MiB page, whose
    /// bits 13-15 are its slice's (constant), reach every bank of each of
    /// its channels: the row fold spreads them.
    #[test]
    fn rows_spreads_a_slice_of_a_page_over_every_bank() {
        let h = hbm("rows");
        let c = SimConfig::default();
        let banks = (c.hbm.bank_groups * c.hbm.banks_per_group) as usize;
        let mut used: HashMap<usize, HashSet<u16>> = HashMap::new();
        for sector in 0..(2u64 << 20) / SECTOR {
            let address = 5 << 21 | sector * SECTOR;
            if address >> 13 & 7 == 2 {
                let at = h.locate(1, address);
                used.entry(at.channel).or_default().insert(at.bank);
            }
        }
        assert_eq!(used.len() as u32, c.hbm.channels_per_slice);
        assert!(used.values().all(|b| b.len() == banks), "{used:?}");
    }

    /// `xor` (the mapping before): a channel's consecutive entries go to
    /// consecutive banks, and a row holds entries 8 KiB apart.
    #[test]
    fn xor_puts_banks_below_columns() {
        let h = hbm("xor");
        let a = h.locate(0, 0);
        let b = h.locate(0, 4 * ENTRY);
        let c = h.locate(0, 8 << 10);
        assert_ne!(a.bank, b.bank);
        assert_eq!((a.channel, a.bank, a.row), (c.channel, c.bank ^ 1, c.row));
    }

    const ENTRY: u64 = buddy_golden::ENTRY_BYTES as u64;
}
