//! MAG-aware BDI's bandwidth study (seed 002, Sec. VI-C and Fig. 19): the
//! DRAM time and bytes of a workload's memory traffic when every access
//! moves whole MAG-sized bursts, uncompressed, with BDI and with MAG-aware
//! BDI, at MAG 16, 32 and 64 bytes, on a GDDR5-like memory (seed 002
//! Table IV).
//!
//! - **Traffic.** The trace's accesses through the trace driver's L2
//!   ([`crate::mdcache_study::l2_requests`]: whole-entry reads and dirty
//!   write-backs). The trace carries no values, so every request moves
//!   the size its memory-entry has in the workload's first snapshot
//!   (temporaries are zero).
//! - **Bursts.** Uncompressed: a read moves the whole entry, `128 / MAG`
//!   bursts, as the compressed reads do (seed 002's GPGPU-Sim fetches
//!   128 B lines; a GPU fetching 32 B sectors would move fewer bytes
//!   uncompressed, so the speedups here lean high); a write-back the
//!   MAG-sized chunks its dirty sectors touch.
//!   Compressed (bandwidth compression, no compaction, seed 002 Sec. V-A):
//!   an entry moves `ceil(stored bytes / MAG)` bursts, BDI's stored bytes
//!   being its stream (its encoding bits included) and MAG-aware BDI's its
//!   size class (a multiple of the MAG); a ZERO entry moves none; a
//!   partial write-back reads the entry, then writes it
//!   (read-modify-write).
//! - **Memory** ([`gddr5_config`]): 12 channels of 32 bits (6 controllers,
//!   Table IV) at 1,002 MHz, 16 bytes per command clock each (192.4 GB/s);
//!   one column command moves one MAG (**decision**: a burst of `MAG / 16`
//!   cycles, tCCD the burst, so a smaller MAG is a shorter burst, not a
//!   slower one); GPGPU-Sim's GDDR5 timing in cycles; no refresh. An entry
//!   is in one bank row, consecutive entries in pairs over the channels
//!   (256 B interleave), then over the banks.
//! - **Time.** Every request arrives at once, in trace order, and the DRAM
//!   time is the last completion (a bandwidth-bound kernel); speedup =
//!   uncompressed time / time.
//!
//! Not modelled: the metadata cache's traffic (2 bits per entry; seed 002
//! measures a 99% hit rate), (de)compression latency, the GPU's cores.

use buddy_golden::{Algorithm, Mag, MemoryEntry, SizeClass, ENTRY_BYTES};
use serde::Serialize;
use std::collections::HashMap;

use crate::config::{HbmConfig, SimConfig};
use crate::l2_cache::{L2Config, MemRequest};
use crate::mdcache_study::l2_requests;
use crate::memory_system::dram::stream::{run_stream, StreamRequest};
use crate::trace::{AddressLayout, Trace, DEFAULT_HEAP_BASE};
use crate::workload::Workload;

/// The MAGs of seed 002's Fig. 19.
pub const MAGS: [Mag; 3] = [Mag::B16, Mag::B32, Mag::B64];

/// Memory channels of the GDDR5-like memory (Table IV: 6 controllers of
/// two 32-bit channels).
pub const CHANNELS: u32 = 12;

/// The three ways of storing an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Storage {
    Uncompressed,
    Bdi,
    MagBdi,
}

impl Storage {
    pub const ALL: [Storage; 3] = [Storage::Uncompressed, Storage::Bdi, Storage::MagBdi];

    pub const fn name(self) -> &'static str {
        match self {
            Storage::Uncompressed => "uncompressed",
            Storage::Bdi => "BDI",
            Storage::MagBdi => "MAG-BDI",
        }
    }
}

/// One storage at one MAG.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MagPoint {
    pub mag_bytes: u64,
    pub storage: Storage,
    /// MAG-sized bursts moved.
    pub bursts: u64,
    /// Bytes moved (bursts x MAG).
    pub bytes: u64,
    /// Last completion, DRAM cycles (1,002 MHz).
    pub dram_cycles: u64,
    /// Uncompressed cycles / these cycles, at the same MAG.
    pub speedup: f64,
    /// 1 - bytes / uncompressed bytes, at the same MAG.
    pub bandwidth_saved: f64,
    pub row_hit_rate: f64,
}

/// The study of one workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MagStudy {
    pub workload: String,
    /// L2 requests: reads, write-backs, partial write-backs.
    pub reads: u64,
    pub writes: u64,
    pub partial_writes: u64,
    /// Every storage at every MAG of [`MAGS`], MAG by MAG.
    pub points: Vec<MagPoint>,
}

/// The GDDR5-like memory of seed 002 Table IV at `mag` (see the module
/// docs): the `[hbm]` keys of [`SimConfig`] re-used for its channels.
pub fn gddr5_config(mag: Mag) -> SimConfig {
    let mut c = SimConfig::default();
    c.system.slices = CHANNELS;
    let burst = mag.bytes() as u64 / 16;
    // GPGPU-Sim's GDDR5 (GTX 480 configuration), DRAM cycles.
    c.hbm = HbmConfig {
        channels_per_slice: 1,
        clock_mhz: 1002.0,
        bank_groups: 4,
        banks_per_group: 4,
        rows: 4096,
        row_bytes: 2048,
        burst_cycles: burst,
        t_ccd_s: burst,
        t_ccd_l: burst + 1,
        cl: 12,
        cwl: 4,
        t_rcd: 12,
        t_rp: 12,
        t_ras: 28,
        t_rrd_s: 6,
        t_rrd_l: 6,
        t_faw: 24,
        t_wtr_s: 5,
        t_wtr_l: 5,
        t_wr: 12,
        t_rtp: 2,
        refresh: "off".into(),
        dual_command: false,
        ..c.hbm
    };
    c
}

/// Bursts of `mag` bytes an entry stored as `storage` moves.
fn stored_bursts(storage: Storage, entry: &MemoryEntry, mag: Mag) -> u64 {
    let m = mag.bytes() as u64;
    let bytes = match storage {
        Storage::Uncompressed => ENTRY_BYTES as u64,
        Storage::Bdi => {
            let c = Algorithm::Bdi.codec().compress(entry);
            match c.class {
                SizeClass::Zero => 0,
                SizeClass::Raw => ENTRY_BYTES as u64,
                _ => (c.stream_bits as u64).div_ceil(8).min(ENTRY_BYTES as u64),
            }
        }
        Storage::MagBdi => Algorithm::MagBdi(mag).codec().compress(entry).class.bytes() as u64,
    };
    bytes.div_ceil(m)
}

/// MAG-sized chunks the dirty sectors of `mask` touch.
fn chunks_of(mask: u8, mag: Mag) -> u64 {
    let per_sector = (32 / mag.bytes()).max(1) as u64;
    let sectors_per_chunk = (mag.bytes() / 32).max(1);
    if sectors_per_chunk == 1 {
        (mask & 0xF).count_ones() as u64 * per_sector
    } else {
        (0..4 / sectors_per_chunk).filter(|c| (mask >> (c * sectors_per_chunk)) & ((1 << sectors_per_chunk) - 1) != 0).count() as u64
    }
}

impl MagStudy {
    /// Run `trace` over `workload`'s first snapshot (see the module docs).
    ///
    /// # Errors
    /// An impossible L2 geometry in `l2`.
    pub fn new(workload: &Workload, trace: &Trace, l2: L2Config) -> Result<MagStudy, crate::l2_cache::L2ConfigError> {
        let snap = workload.snapshots().next().expect("a workload has a snapshot");
        let by_name: HashMap<&str, Vec<MemoryEntry>> = snap.allocations().map(|a| (a.info().name.as_str(), a.entries().collect())).collect();
        let order: Vec<(String, u64)> = snap.allocations().map(|a| (a.info().name.clone(), a.info().size)).collect();
        let layout = AddressLayout::new(&trace.meta, &order, DEFAULT_HEAP_BASE, SimConfig::default().system.page.bytes());
        // Entry va -> its first-snapshot value.
        let mut value: HashMap<u64, MemoryEntry> = HashMap::new();
        for a in &trace.accesses {
            let va = layout.va(a);
            let base = va - a.offset as u64;
            let name = trace.meta.allocations[a.alloc_id as usize].name.as_str();
            for line in [va / ENTRY_BYTES as u64, (va + a.size.max(1) as u64 - 1) / ENTRY_BYTES as u64] {
                let entry_va = line * ENTRY_BYTES as u64;
                value.entry(entry_va).or_insert_with(|| {
                    let index = (entry_va - base) / ENTRY_BYTES as u64;
                    by_name.get(name).and_then(|e| e.get(index as usize)).copied().unwrap_or(MemoryEntry::ZERO)
                });
            }
        }
        let (requests, _) = l2_requests(trace, &layout, l2)?;
        let partial_writes = requests.iter().filter(|r| r.write && r.sectors & 0xF != 0xF).count() as u64;
        let writes = requests.iter().filter(|r| r.write).count() as u64;
        let mut points = Vec::new();
        for mag in MAGS {
            let config = gddr5_config(mag);
            let mut base: Option<(u64, u64)> = None;
            for storage in Storage::ALL {
                // Each distinct entry compressed once per storage and MAG.
                let stored: HashMap<u64, u64> = value.iter().map(|(&va, e)| (va, stored_bursts(storage, e, mag))).collect();
                let stream = bursts_of(&requests, &stored, storage, mag);
                let report = run_stream(&stream, &config);
                let bytes = stream.len() as u64 * mag.bytes() as u64;
                let (ub, uc) = *base.get_or_insert((bytes, report.end_cycle));
                points.push(MagPoint {
                    mag_bytes: mag.bytes() as u64,
                    storage,
                    bursts: stream.len() as u64,
                    bytes,
                    dram_cycles: report.end_cycle,
                    speedup: if report.end_cycle == 0 { 1.0 } else { uc as f64 / report.end_cycle as f64 },
                    bandwidth_saved: if ub == 0 { 0.0 } else { 1.0 - bytes as f64 / ub as f64 },
                    row_hit_rate: report.row_hit_rate,
                });
            }
        }
        Ok(MagStudy { workload: workload.manifest().workload.clone(), reads: requests.len() as u64 - writes, writes, partial_writes, points })
    }
}

/// The bursts of `requests` with entries stored as `storage` (`stored`:
/// each entry's bursts, [`stored_bursts`]), every one arriving at cycle 0,
/// in order.
fn bursts_of(requests: &[MemRequest], stored: &HashMap<u64, u64>, storage: Storage, mag: Mag) -> Vec<StreamRequest> {
    let mut out = Vec::new();
    for r in requests {
        // An entry the trace never touched (none: every request's line was accessed) is zero.
        let whole = stored.get(&r.entry_va).copied().unwrap_or_else(|| stored_bursts(storage, &MemoryEntry::ZERO, mag));
        let (reads, writes) = match (r.write_mask(), storage) {
            (None, _) => (whole, 0),
            (Some(mask), Storage::Uncompressed) => (0, chunks_of(mask, mag)),
            (Some(mask), _) if mask & 0xF != 0xF => (whole, whole),
            (Some(_), _) => (0, whole),
        };
        place(r.entry_va, reads, false, &mut out);
        place(r.entry_va, writes, true, &mut out);
    }
    out
}

/// `n` bursts of the entry at `entry_va`: entries in pairs over the
/// channels (256 B), then over the 16 banks, 16 entries to a 2 KB row.
fn place(entry_va: u64, n: u64, write: bool, out: &mut Vec<StreamRequest>) {
    let e = entry_va.saturating_sub(DEFAULT_HEAP_BASE) / ENTRY_BYTES as u64;
    let chunk = e / 2;
    let channel = chunk % CHANNELS as u64;
    let local = chunk / CHANNELS as u64;
    let bank = local % 16;
    let in_row = local / 16;
    let row = (in_row / 8) % 4096;
    let column = (in_row % 8) * 8 + (e % 2) * 4;
    for i in 0..n {
        out.push(StreamRequest {
            arrival: 0,
            channel: channel as u8,
            bank_group: (bank / 4) as u8,
            bank: (bank % 4) as u8,
            write,
            row: row as u16,
            column: (column + (i * 4 / n).min(3)) as u8,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GDDR5-like memory peaks at Table IV's 192.4 GB/s whatever the
    /// MAG, and the burst accounting follows the MAG.
    #[test]
    fn the_memory_is_table_iv_and_bursts_follow_the_mag() {
        for mag in MAGS {
            let c = gddr5_config(mag);
            let per_channel = mag.bytes() as f64 / c.hbm.burst_cycles as f64 * c.hbm.clock_mhz * 1e6;
            assert!((per_channel * CHANNELS as f64 / 1e9 - 192.4).abs() < 0.1, "{mag:?}");
            c.validate().expect("a valid configuration");
        }
        let raw = MemoryEntry::from_bytes(&std::array::from_fn(|i| (i * 37 % 251) as u8));
        assert_eq!(stored_bursts(Storage::Uncompressed, &raw, Mag::B16), 8);
        assert_eq!(stored_bursts(Storage::MagBdi, &MemoryEntry::ZERO, Mag::B32), 0);
        // Small deltas from a base: BDI's stream is not a multiple of the MAG; MAG-BDI's class is.
        let ramp = MemoryEntry::from_bytes(&std::array::from_fn(|i| if i % 4 == 0 { (i / 4) as u8 } else if i % 4 == 3 { 0x40 } else { 0 }));
        let (bdi, mag) = (stored_bursts(Storage::Bdi, &ramp, Mag::B32), stored_bursts(Storage::MagBdi, &ramp, Mag::B32));
        assert!(bdi >= 1 && mag >= 1 && mag <= bdi && mag < 4, "{bdi} {mag}");
        assert_eq!((chunks_of(0b0001, Mag::B16), chunks_of(0b0011, Mag::B64), chunks_of(0b0101, Mag::B64), chunks_of(0b1111, Mag::B32)), (2, 1, 2, 4));
    }

    /// On the bundled trace: the uncompressed traffic is the reads' whole
    /// entries and the write-backs' dirty chunks at every MAG, compression moves
    /// fewer bytes in less DRAM time, and MAG-BDI, whose classes are whole
    /// bursts, moves no more than BDI rounded up to bursts at MAG 64.
    #[test]
    fn compression_moves_fewer_bursts_on_the_bundled_trace() {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small");
        let (w, t) = (Workload::open(&p).unwrap(), Trace::open(&p).unwrap());
        let s = MagStudy::new(&w, &t, L2Config::default()).unwrap();
        assert_eq!(s.points.len(), 9);
        assert!(s.reads > 1000 && s.writes > 0, "{} reads, {} writes", s.reads, s.writes);
        let at = |mag: u64, st: Storage| s.points.iter().find(|p| p.mag_bytes == mag && p.storage == st).unwrap().clone();
        let whole = s.reads * 128;
        for mag in [16, 32, 64] {
            let u = at(mag, Storage::Uncompressed);
            assert!(u.bytes >= whole && u.bytes <= whole + s.writes * 128, "MAG {mag}: {}", u.bytes);
            assert_eq!((u.speedup, u.bandwidth_saved), (1.0, 0.0));
            for st in [Storage::Bdi, Storage::MagBdi] {
                let p = at(mag, st);
                assert!(p.bytes < u.bytes && p.dram_cycles < u.dram_cycles && p.speedup > 1.0, "MAG {mag} {st:?}: {p:?}");
            }
        }
        assert!(at(64, Storage::MagBdi).bytes <= at(64, Storage::Bdi).bytes);
        // A partial write-back moves whole chunks: coarser MAGs move more.
        let u = |mag| at(mag, Storage::Uncompressed).bytes;
        assert!(u(16) <= u(32) && u(32) < u(64), "{} {} {}", u(16), u(32), u(64));
    }
}
