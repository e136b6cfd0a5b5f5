//! Fast mode with the `BuddyController`'s timing
//! (`system.slice_timing = "hardware"`): every slice serves one request at
//! a time, and every memory handshake of the hardware's state machine
//! (`hdl/src/buddy_controller.rs`) and of its metadata cache
//! (`hdl/src/metadata_cache.rs`) is charged to the HBM2 and NVLink models
//! on the cycle the hardware makes it. The golden models still produce
//! every value; only the timing mirrors the hardware, so that the RTL mode
//! can be checked against the fast mode cycle for cycle (issue 7).
//!
//! Cycles are slice-clock (= DRAM) cycles. A request offered at cycle `s`
//! to an idle slice is accepted there (`Idle`); `Translate` and two
//! cycles of `TranslateWait` follow, so the next stage starts at `s + 4`.
//! A response taken at cycle `r` frees the slice from `r + 1`. Data of a
//! read burst comes back one sector per cycle from the cycle the model
//! says the burst is done.

use buddy_golden::metadata_cache::Outcome;
use buddy_golden::translation::ByteRange;
use buddy_golden::{Algorithm, MemoryEntry, SizeClass, ENTRY_BYTES};

use super::{Controllers, MetadataMemory, RequestInfo};
use crate::memory_system::rtl::{cycle_start_ps, first_cycle_at};
use crate::memory_system::{Mode, SimError};

/// Cycles from accepting a request to the stage after translation.
const FRONT: u64 = 4;
/// Metadata cache: accept to `resp_valid` on a hit (Tag, Lookup, Update, Respond).
const MD_HIT: u64 = 4;
/// Metadata cache: accept to the fill request of a sector miss.
const MD_SECTOR_FILL: u64 = 3;
/// Metadata cache: fill data to `resp_valid` (Update, Respond).
const MD_AFTER_FILL: u64 = 2;
/// Sectors per metadata line.
const SECTORS: u64 = 4;
/// A slice takes its first request when the RTL engine has reset it and
/// its metadata cache has invalidated its sets.
pub(super) const OUT_OF_RESET: u64 = crate::memory_system::rtl::RESET_CYCLES + crate::memory_system::rtl::INIT_CYCLES;

/// Compressor and decompressor latency of the hardware codecs, cycles
/// (`hdl/src/bpc_compressor.rs` etc.: BPC 5/7, ZVC 2/2, MAG-BDI 2/1).
pub fn codec_latency(algorithm: Algorithm) -> (u64, u64) {
    match algorithm {
        Algorithm::Bpc => (5, 7),
        Algorithm::Zvc => (2, 2),
        Algorithm::MagBdi(_) => (2, 1),
    }
}

/// The slices' clocks in hardware timing.
pub(super) struct HardwareClock {
    /// Per slice: the first cycle it is idle again.
    pub free: Vec<u64>,
    pub compress: u64,
    pub decompress: u64,
}

/// What the read part of a request (a read, or a partial write's read) did.
struct ReadPart {
    entry: MemoryEntry,
    class: SizeClass,
    /// Cycle of `AfterRead`.
    after_read: u64,
    buddy: bool,
    md_hit: bool,
}

impl Controllers {
    fn clock(&mut self) -> &mut HardwareClock {
        self.hardware.as_mut().expect("hardware timing")
    }

    fn ps_of(&self, cycle: u64) -> u64 {
        cycle_start_ps(cycle, self.cycle_ps)
    }

    fn cycle_of(&self, ps: u64) -> u64 {
        first_cycle_at(ps, self.cycle_ps)
    }

    fn hw_start(&mut self, slice: u64, t: u64) -> u64 {
        let issue = self.cycle_of(t);
        issue.max(self.clock().free[slice as usize])
    }

    /// The response is taken at `resp`; returns its time in ps.
    fn hw_finish(&mut self, slice: u64, resp: u64) -> u64 {
        self.clock().free[slice as usize] = resp + 1;
        self.ps_of(resp)
    }

    /// A device burst of `count` sectors from `first` whose first sector is
    /// handshaken at `cycle`; returns the cycle the model says it is done.
    fn hw_device(&mut self, slice: u64, first: u64, count: u64, write: bool, cycle: u64) -> u64 {
        let done = self.hbm.access(slice, first, count, write, self.ps_of(cycle));
        self.cycle_of(done)
    }

    fn hw_buddy(&mut self, count: u64, write: bool, cycle: u64) -> u64 {
        let done = self.link.transfer(count * 32, write, self.ps_of(cycle));
        self.cycle_of(done)
    }

    /// Charge the metadata cache's memory traffic of an access accepted at
    /// `a` (the golden cache has just done it, its events are pending);
    /// returns the cycle of `resp_valid` and, on a miss, (fill request
    /// cycle, fill data cycle).
    fn hw_metadata(&mut self, slice: u64, outcome: Outcome, a: u64) -> (u64, Option<(u64, u64)>) {
        let events = std::mem::take(&mut self.events);
        if outcome == Outcome::Hit {
            return (a + MD_HIT, None);
        }
        let mut request = a + MD_SECTOR_FILL;
        if outcome == Outcome::LineMiss {
            // Victim, then per sector Evict (and EvictSend when dirty), then Evicted.
            let mut c = a + MD_SECTOR_FILL + 1;
            for sector in 0..SECTORS {
                match events.iter().find(|&&(address, write)| write && (address / 32) % SECTORS == sector) {
                    Some(&(address, _)) => {
                        self.hbm.access(slice, address, 1, true, self.ps_of(c + 1));
                        c += 2;
                    }
                    None => c += 1,
                }
            }
            request = c + 1;
        }
        let fill = events.iter().find(|e| !e.1).map_or(0, |e| e.0);
        let f = self.hw_device(slice, fill, 1, false, request);
        (f + MD_AFTER_FILL, Some((request, f)))
    }

    /// The read part of a request on a compressed page started at `s`.
    fn hw_read_part(&mut self, slice: u64, va: u64, s: u64) -> Result<ReadPart, SimError> {
        let slot = self.translate(va, SizeClass::Raw)?;
        let at = slot.metadata.ok_or(SimError::Unmapped { va })?;
        let a = s + FRONT;
        let (code, outcome) = {
            let mut memory = MetadataMemory { bytes: &mut self.metadata, base: self.pages.regs.md_base, events: &mut self.events };
            self.caches[slice as usize].read_nibble(at, &mut memory)
        };
        let (md_resp, fill) = self.hw_metadata(slice, outcome, a);
        let class = SizeClass::from_code(code).map_err(|e| SimError::Decode { va, message: e.to_string() })?;
        let acc = self.translate(va, class)?;
        // Last data cycle so far (none: 0).
        let mut last = 0;
        if let Some((request, f)) = fill {
            // The whole device slot, right behind the fill.
            let (first, n) = acc.device_slot.sectors();
            if n > 0 {
                let done = self.hw_device(slice, first, n, false, request + 1);
                last = done.max(f + 1) + n - 1;
            }
        }
        // ReadPlan, then WaitData.
        let wait = md_resp + 2;
        if fill.is_none() {
            let (first, n) = acc.device.sectors();
            if n > 0 {
                last = last.max(self.hw_device(slice, first, n, false, wait) + n - 1);
            }
        }
        let mut buddy = false;
        if let Some(b) = acc.buddy {
            let n = b.sectors().1;
            if n > 0 {
                buddy = true;
                last = last.max(self.hw_buddy(n, false, wait) + n - 1);
            }
        }
        let decode = wait.max(last + 1) + 1;
        let after_read = if class == SizeClass::Zero { decode + 1 } else { decode + self.clock().decompress + 1 };
        let stored = self.load(&acc);
        let entry = self.codec.decompress(class, &stored).map_err(|e| SimError::Decode { va, message: e.to_string() })?;
        Ok(ReadPart { entry, class, after_read, buddy, md_hit: fill.is_none() })
    }

    /// [`Controllers::read`] in hardware timing (`stats.reads` counted by the caller).
    pub(super) fn hw_read(&mut self, va: u64, t: u64) -> Result<(MemoryEntry, RequestInfo), SimError> {
        let slice = self.slice(va);
        let s = self.hw_start(slice, t);
        if self.mode == Mode::Uncompressed {
            let acc = self.translate(va, SizeClass::Raw)?;
            let (first, n) = acc.device_slot.sectors();
            let wait = s + FRONT;
            let last = self.hw_device(slice, first, n, false, wait) + n - 1;
            let resp = wait.max(last + 1) + 1;
            let entry = MemoryEntry::from_slice(&self.load(&acc)).expect("128 bytes");
            return Ok((entry, RequestInfo { done: self.hw_finish(slice, resp), buddy: false }));
        }
        let part = self.hw_read_part(slice, va, s)?;
        if part.md_hit && part.class == SizeClass::Zero {
            self.stats.zero_reads += 1;
        }
        Ok((part.entry, RequestInfo { done: self.hw_finish(slice, part.after_read + 1), buddy: part.buddy }))
    }

    /// [`Controllers::write`] in hardware timing (counters included).
    pub(super) fn hw_write(
        &mut self,
        va: u64,
        mask: u8,
        value: &[u8; ENTRY_BYTES],
        t: u64,
    ) -> Result<(MemoryEntry, RequestInfo), SimError> {
        let slice = self.slice(va);
        let s = self.hw_start(slice, t);
        let partial = mask & 0xF != 0xF;
        self.stats.writes += 1;
        self.stats.partial_writes += partial as u64;
        if self.mode == Mode::Uncompressed {
            // PlainWrite: each written sector is a 1-sector write (2 cycles), others 1 cycle.
            let acc = self.translate(va, SizeClass::Raw)?;
            let mut merged = [0u8; ENTRY_BYTES];
            self.device.read(acc.device_slot.address, &mut merged);
            let mut c = s + FRONT;
            for sector in 0..4u64 {
                if mask >> sector & 1 == 1 {
                    let r = sector as usize * 32..(sector as usize + 1) * 32;
                    merged[r.clone()].copy_from_slice(&value[r]);
                    self.hbm.access(slice, acc.device_slot.address + 32 * sector, 1, true, self.ps_of(c + 1));
                    c += 2;
                } else {
                    c += 1;
                }
            }
            self.device.write(acc.device_slot.address, &merged);
            return Ok((MemoryEntry::from_bytes(&merged), RequestInfo { done: self.hw_finish(slice, c + 1), buddy: false }));
        }
        let (mut merged, mut buddy) = (*value, false);
        let compress_at = if partial {
            let part = self.hw_read_part(slice, va, s)?;
            let old = part.entry.to_bytes();
            for sector in 0..4 {
                if mask >> sector & 1 == 0 {
                    merged[sector * 32..(sector + 1) * 32].copy_from_slice(&old[sector * 32..(sector + 1) * 32]);
                }
            }
            buddy = part.buddy;
            part.after_read + 1
        } else {
            s + FRONT
        };
        let entry = MemoryEntry::from_bytes(&merged);
        let c = self.codec.compress(&entry);
        let acc = self.translate(va, c.class)?;
        self.store(&acc, &c.payload);
        // Compress, CompressWait, WritePlan, then WriteData's handshakes.
        let send = compress_at + self.clock().compress + 2;
        let (first, nd) = acc.device.sectors();
        if nd > 0 {
            self.hw_device(slice, first, nd, true, send);
        }
        let nb = acc.buddy.map_or(0, |b: ByteRange| b.sectors().1);
        if nb > 0 {
            self.hw_buddy(nb, true, send);
            buddy = true;
        }
        let md_write = send + nd.max(nb) + 1;
        let at = acc.metadata.ok_or(SimError::Unmapped { va })?;
        let outcome = {
            let mut memory = MetadataMemory { bytes: &mut self.metadata, base: self.pages.regs.md_base, events: &mut self.events };
            self.caches[slice as usize].write_nibble(at, c.class.code(), &mut memory)
        };
        let (md_resp, _) = self.hw_metadata(slice, outcome, md_write);
        Ok((entry, RequestInfo { done: self.hw_finish(slice, md_resp + 1), buddy }))
    }

    /// [`Controllers::flush_metadata`] in hardware timing: each slice's
    /// cache walks sets, then ways, then sectors (FlushTag 1 cycle per set;
    /// Victim and Evicted 1 cycle per line; 1 cycle per clean sector, 2 per
    /// dirty one, written back on the second).
    pub(super) fn hw_flush(&mut self, t: u64) -> u64 {
        let mut done = t;
        for slice in 0..self.slices {
            let s = self.hw_start(slice, t);
            let dirty = self.caches[slice as usize].dirty_sectors();
            let ways = self.caches[slice as usize].config().ways;
            let mut memory = MetadataMemory { bytes: &mut self.metadata, base: self.pages.regs.md_base, events: &mut self.events };
            self.caches[slice as usize].flush(&mut memory);
            let events = std::mem::take(&mut self.events);
            let mut write_backs = events.iter().filter(|e| e.1).map(|e| e.0);
            // Accepted at s + 1 (Flush); FlushTag of set 0 follows.
            let mut c = s + 2;
            for (line, mask) in dirty.iter().enumerate() {
                if line % ways == 0 {
                    c += 1;
                }
                c += 1;
                for sector in 0..SECTORS {
                    if mask >> sector & 1 == 1 {
                        if let Some(address) = write_backs.next() {
                            self.hbm.access(slice, address, 1, true, self.ps_of(c + 1));
                        }
                        c += 2;
                    } else {
                        c += 1;
                    }
                }
                c += 1;
            }
            // The cache's resp_valid at c; the slice's response one cycle later.
            done = done.max(self.hw_finish(slice, c + 1));
        }
        done
    }
}
