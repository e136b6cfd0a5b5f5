//! One GPU's Buddy memory controllers in fast mode: the golden models
//! (translation, metadata cache, compressors) in place of the hardware,
//! with the HBM2 and NVLink timing models (buddy-memory.md §3-§4).
//!
//! Slices (**decision**, as `mdcache_study`): entries are interleaved over
//! the slices in blocks of 64 (one 32-byte metadata sector's worth), so
//! every metadata sector belongs to one slice's cache.
//!
//! - Read: the slice looks the size nibble up in its metadata cache. On a
//!   hit it reads only the class's device sectors; on a miss it reads the
//!   whole device slot in parallel with the metadata sector (the class is
//!   not known yet, seed 001 Sec. 3.4). Buddy sectors wait for the
//!   metadata. A ZERO entry needs no data on a hit. A compressed class adds
//!   the decompression latency.
//! - Write: a partial write (not all four sectors) first reads the entry
//!   (read-modify-write); then compress, write the device part and any
//!   buddy sectors, and write the nibble. Stale buddy data stays in place.
//! - Uncompressed mode: no metadata; a read moves 4 sectors, a write its
//!   dirty sectors. Bandwidth-only mode: every page at 1x (128 B slots).
//!
//! Timing (`system.slice_timing`): `pipelined` (any number of requests in
//! flight per slice; the codec and metadata latencies of the config) or
//! `hardware` (the `BuddyController`'s own timing, see
//! [`hardware_timing`]); in RTL mode the hardware itself.

use buddy_golden::metadata_cache::{CacheStats, MetadataCache, MetadataCacheConfig, SectorMemory};
use buddy_golden::translation::{translate_entry, EntryAccess, MetadataNibble, Pte};
use buddy_golden::{Algorithm, Codec, MemoryEntry, SizeClass, ENTRY_BYTES};
use serde::Serialize;

use super::config::SimConfig;
use super::hbm::{Hbm, SECTOR};
use super::nvlink::Nvlink;
use super::pages::{PageTable, SparseMemory};
use super::rtl::{cycle_start_ps, first_cycle_at, new_slice, words_of, Slice, SliceEnv, SliceRequest, SliceResponse};
use super::{Mode, SimError};
use crate::mdcache_study::ENTRIES_PER_SLICE_BLOCK;

pub mod hardware_timing;
pub use hardware_timing::codec_latency;
use hardware_timing::HardwareClock;

/// What one request did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RequestInfo {
    /// Completion time, picoseconds.
    pub done: u64,
    /// Buddy-memory was read or written.
    pub buddy: bool,
}

/// Counters of the controllers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ControllerStats {
    pub reads: u64,
    pub writes: u64,
    /// Writes of fewer than four sectors (read-modify-write when compressed).
    pub partial_writes: u64,
    /// Reads answered without data (ZERO class on a metadata hit; the
    /// read of a read-modify-write is not counted).
    pub zero_reads: u64,
}

/// Metadata memory seen through the caches: records every sector fill and
/// write-back so the timing model can charge them.
struct MetadataMemory<'a> {
    bytes: &'a mut Vec<u8>,
    base: u64,
    events: &'a mut Vec<(u64, bool)>,
}

impl SectorMemory for MetadataMemory<'_> {
    fn read_sector(&mut self, address: u64, data: &mut [u8]) {
        self.events.push((address, false));
        self.bytes.read_sector(address - self.base, data);
    }
    fn write_sector(&mut self, address: u64, data: &[u8]) {
        self.events.push((address, true));
        self.bytes.write_sector(address - self.base, data);
    }
}

/// The controllers, memories and links of one run.
pub struct Controllers {
    mode: Mode,
    codec: Box<dyn Codec + Send + Sync>,
    pub pages: PageTable,
    device: SparseMemory,
    buddy: SparseMemory,
    metadata: Vec<u8>,
    caches: Vec<MetadataCache>,
    events: Vec<(u64, bool)>,
    pub hbm: Hbm,
    pub link: Nvlink,
    compress_ps: u64,
    decompress_ps: u64,
    md_hit_ps: u64,
    slices: u64,
    pub stats: ControllerStats,
    /// RTL mode: the slices' hardware (empty in fast mode).
    rtl: Vec<Box<dyn Slice>>,
    rtl_md: CacheStats,
    cycle_ps: f64,
    /// `system.slice_timing = "hardware"`: the slices' clocks.
    hardware: Option<HardwareClock>,
}

impl Controllers {
    /// The controllers of `config` in `mode` over `pages`, compressing with `algorithm`.
    ///
    /// # Panics
    /// On a metadata cache geometry that `SimConfig::validate` rejects.
    pub fn new(config: &SimConfig, mode: Mode, algorithm: Algorithm, pages: PageTable) -> Self {
        let md = MetadataCacheConfig { size_bytes: config.metadata_cache.bytes, ways: config.metadata_cache.ways, ..Default::default() };
        let hbm = Hbm::new(config);
        let link = Nvlink::new(config, hbm.latency_ps());
        let (c, d) = config.codec_cycles(algorithm);
        let cycle = config.cycle_ps();
        Controllers {
            mode,
            codec: algorithm.codec(),
            pages,
            device: SparseMemory::default(),
            buddy: SparseMemory::default(),
            metadata: Vec::new(),
            caches: (0..config.system.slices).map(|_| MetadataCache::new(md).expect("validated geometry")).collect(),
            events: Vec::new(),
            hbm,
            link,
            compress_ps: (c * cycle).round() as u64,
            decompress_ps: (d * cycle).round() as u64,
            md_hit_ps: (config.metadata_cache.hit_cycles * cycle).round() as u64,
            slices: config.system.slices as u64,
            stats: ControllerStats::default(),
            rtl: Vec::new(),
            rtl_md: CacheStats::default(),
            cycle_ps: cycle,
            hardware: (config.system.slice_timing == "hardware").then(|| {
                let (compress, decompress) = codec_latency(algorithm);
                HardwareClock { free: vec![hardware_timing::OUT_OF_RESET; config.system.slices as usize], compress, decompress }
            }),
        }
    }

    /// Serve every request from now on with one `BuddyController` per
    /// slice simulated in rust-hdl (RTL mode), compressing with `algorithm`.
    pub fn use_rtl(&mut self, algorithm: Algorithm) {
        self.rtl = (0..self.slices).map(|_| new_slice(algorithm, &self.pages.regs)).collect();
    }

    /// The slices' hardware, in RTL mode.
    pub fn rtl_slices(&mut self) -> &mut [Box<dyn Slice>] {
        &mut self.rtl
    }

    fn rtl_request(
        &mut self,
        va: u64,
        write: bool,
        flush_slice: Option<u64>,
        mask: u8,
        value: &[u8; ENTRY_BYTES],
        t: u64,
    ) -> Result<SliceResponse, SimError> {
        let (slice, pte) = match flush_slice {
            Some(s) => (s, Pte { frame: 0, compressed: false, target_code: 0, buddy_offset: 0 }),
            None => (self.slice(va), self.pte(va)?),
        };
        let r = SliceRequest { write, flush: flush_slice.is_some(), mask, va, pte, page: self.pages.page, data: words_of(value) };
        let mut env = SliceEnv {
            slice,
            hbm: &mut self.hbm,
            link: &mut self.link,
            device: &mut self.device,
            buddy: &mut self.buddy,
            metadata: &mut self.metadata,
            md_base: self.pages.regs.md_base,
            cycle_ps: self.cycle_ps,
            md_stats: &mut self.rtl_md,
        };
        let issue = first_cycle_at(t, self.cycle_ps);
        let resp = self.rtl[slice as usize].request(&r, issue, &mut env).map_err(SimError::Hardware)?;
        match resp.error as u64 {
            buddy_hdl::buddy_controller::error::NONE => Ok(resp),
            buddy_hdl::buddy_controller::error::DECODE => Err(SimError::Decode {
                va,
                message: format!("the hardware decompressor rejects the stored stream (size class code {})", resp.class),
            }),
            code => match self.translate(va, SizeClass::Raw) {
                Err(e) => Err(e),
                Ok(_) => Err(SimError::Hardware(format!(
                    "slice {slice} reports fault code {code} for {va:#x}, which the golden translation does not"
                ))),
            },
        }
    }

    fn rtl_done(&self, resp: &SliceResponse) -> u64 {
        cycle_start_ps(resp.cycle, self.cycle_ps)
    }

    /// Metadata cache counters summed over the slices.
    pub fn metadata_stats(&self) -> CacheStats {
        if !self.rtl.is_empty() {
            return self.rtl_md;
        }
        let mut s = CacheStats::default();
        self.caches.iter().for_each(|c| s += c.stats());
        s
    }

    fn slice(&self, va: u64) -> u64 {
        ((va - self.pages.regs.heap_base) / ENTRY_BYTES as u64 / ENTRIES_PER_SLICE_BLOCK) % self.slices
    }

    fn pte(&self, va: u64) -> Result<Pte, SimError> {
        self.pages.pte(va).copied().ok_or(SimError::Unmapped { va })
    }

    fn translate(&self, va: u64, class: SizeClass) -> Result<EntryAccess, SimError> {
        let pte = self.pte(va)?;
        translate_entry(&self.pages.regs, self.pages.page, &pte, va, class).map_err(|fault| SimError::Fault { va, fault })
    }

    /// Store `entry` at `va` as the initial memory contents: data and
    /// metadata straight into memory, no timing, no counters.
    ///
    /// # Errors
    /// `va` unmapped or a translation fault.
    pub fn preload(&mut self, va: u64, entry: &MemoryEntry) -> Result<(), SimError> {
        if self.mode == Mode::Uncompressed {
            let acc = self.translate(va, SizeClass::Raw)?;
            self.device.write(acc.device_slot.address, &entry.to_bytes());
            return Ok(());
        }
        let c = self.codec.compress(entry);
        let acc = self.translate(va, c.class)?;
        self.store(&acc, &c.payload);
        if let Some(at) = acc.metadata {
            let i = (at.address - self.pages.regs.md_base) as usize;
            if self.metadata.len() <= i {
                self.metadata.resize(i + 1, 0);
            }
            let b = &mut self.metadata[i];
            *b = if at.high { (*b & 0x0f) | (c.class.code() << 4) } else { (*b & 0xf0) | c.class.code() };
        }
        Ok(())
    }

    fn store(&mut self, acc: &EntryAccess, payload: &[u8; ENTRY_BYTES]) {
        let d = acc.device.bytes as usize;
        self.device.write(acc.device.address, &payload[..d]);
        if let Some(b) = acc.buddy {
            self.buddy.write(b.address, &payload[d..d + b.bytes as usize]);
        }
    }

    fn load(&self, acc: &EntryAccess) -> Vec<u8> {
        let mut stored = vec![0u8; (acc.device.bytes + acc.buddy.map_or(0, |b| b.bytes)) as usize];
        let d = acc.device.bytes as usize;
        self.device.read(acc.device.address, &mut stored[..d]);
        if let Some(b) = acc.buddy {
            self.buddy.read(b.address, &mut stored[d..]);
        }
        stored
    }

    /// Charge the metadata sector fills and write-backs of the last cache
    /// access; returns when the fill (if any) is done.
    fn metadata_traffic(&mut self, slice: u64, t: u64) -> Option<u64> {
        let mut fill = None;
        for (address, write) in std::mem::take(&mut self.events) {
            let done = self.hbm.access(slice, address, 1, write, t);
            if !write {
                fill = Some(fill.unwrap_or(0).max(done));
            }
        }
        fill
    }

    fn nibble(&mut self, slice: u64, at: MetadataNibble, write: Option<u8>) -> u8 {
        let mut memory = MetadataMemory { bytes: &mut self.metadata, base: self.pages.regs.md_base, events: &mut self.events };
        let cache = &mut self.caches[slice as usize];
        match write {
            None => cache.read_nibble(at, &mut memory).0,
            Some(v) => {
                cache.write_nibble(at, v, &mut memory);
                v
            }
        }
    }

    fn sectors(&mut self, slice: u64, range: buddy_golden::translation::ByteRange, write: bool, t: u64) -> u64 {
        let (first, count) = range.sectors();
        if count == 0 {
            return t;
        }
        self.hbm.access(slice, first, count, write, t)
    }

    fn buddy_bytes(range: buddy_golden::translation::ByteRange) -> u64 {
        range.sectors().1 * SECTOR
    }

    /// Read the entry at `va` (a multiple of 128) issued at `t`.
    ///
    /// # Errors
    /// Unmapped address, translation fault, a reserved size code or a
    /// stream the decoder rejects.
    pub fn read(&mut self, va: u64, t: u64) -> Result<(MemoryEntry, RequestInfo), SimError> {
        self.stats.reads += 1;
        if !self.rtl.is_empty() {
            let resp = self.rtl_request(va, false, None, 0, &[0; ENTRY_BYTES], t)?;
            self.stats.zero_reads += (resp.class == 0 && resp.md_read_hit) as u64;
            return Ok((resp.entry, RequestInfo { done: self.rtl_done(&resp), buddy: resp.buddy }));
        }
        if self.hardware.is_some() {
            return self.hw_read(va, t);
        }
        let slice = self.slice(va);
        if self.mode == Mode::Uncompressed {
            let acc = self.translate(va, SizeClass::Raw)?;
            let done = self.sectors(slice, acc.device_slot, false, t);
            let entry = MemoryEntry::from_slice(&self.load(&acc)).expect("128 bytes");
            return Ok((entry, RequestInfo { done, buddy: false }));
        }
        let slot = self.translate(va, SizeClass::Raw)?;
        let at = slot.metadata.ok_or(SimError::Unmapped { va })?;
        let code = self.nibble(slice, at, None);
        let fill = self.metadata_traffic(slice, t);
        let class = SizeClass::from_code(code).map_err(|e| SimError::Decode { va, message: e.to_string() })?;
        let acc = self.translate(va, class)?;
        let (md_ready, device_done) = match fill {
            None => {
                let ready = t + self.md_hit_ps;
                if class == SizeClass::Zero {
                    self.stats.zero_reads += 1;
                }
                (ready, self.sectors(slice, acc.device, false, ready))
            }
            // Miss: the whole device slot in parallel with the metadata.
            Some(ready) => (ready, self.sectors(slice, acc.device_slot, false, t)),
        };
        let mut done = md_ready.max(device_done);
        let buddy = acc.buddy.is_some();
        if let Some(b) = acc.buddy {
            done = done.max(self.link.transfer(Self::buddy_bytes(b), false, md_ready));
        }
        if !matches!(class, SizeClass::Zero | SizeClass::Raw) {
            done += self.decompress_ps;
        }
        let stored = self.load(&acc);
        let entry = self.codec.decompress(class, &stored).map_err(|e| SimError::Decode { va, message: e.to_string() })?;
        Ok((entry, RequestInfo { done, buddy }))
    }

    /// Write the sectors of `mask` of `value` to the entry at `va`, issued
    /// at `t`; returns the entry as memory now holds it.
    ///
    /// # Errors
    /// As [`Controllers::read`].
    pub fn write(&mut self, va: u64, mask: u8, value: &[u8; ENTRY_BYTES], t: u64) -> Result<(MemoryEntry, RequestInfo), SimError> {
        let partial = mask & 0xF != 0xF;
        if !self.rtl.is_empty() {
            self.stats.writes += 1;
            self.stats.partial_writes += partial as u64;
            // An uncompressed page is written sector by sector, without a
            // read: what memory then holds is the old slot under the mask.
            let old = (self.mode == Mode::Uncompressed).then(|| self.peek(va)).transpose()?;
            let resp = self.rtl_request(va, true, None, mask & 0xF, value, t)?;
            let mut entry = resp.entry.to_bytes();
            if let Some(old) = old {
                let old = old.to_bytes();
                for s in 0..4 {
                    if mask >> s & 1 == 0 {
                        entry[s * 32..(s + 1) * 32].copy_from_slice(&old[s * 32..(s + 1) * 32]);
                    }
                }
            }
            return Ok((MemoryEntry::from_bytes(&entry), RequestInfo { done: self.rtl_done(&resp), buddy: resp.buddy }));
        }
        if self.hardware.is_some() {
            return self.hw_write(va, mask, value, t);
        }
        let slice = self.slice(va);
        if self.mode == Mode::Uncompressed {
            self.stats.writes += 1;
            self.stats.partial_writes += partial as u64;
            let acc = self.translate(va, SizeClass::Raw)?;
            let mut merged = [0u8; ENTRY_BYTES];
            self.device.read(acc.device_slot.address, &mut merged);
            let mut done = t;
            for s in 0..4u64 {
                if mask >> s & 1 == 1 {
                    let r = s as usize * 32..(s as usize + 1) * 32;
                    merged[r.clone()].copy_from_slice(&value[r]);
                    done = done.max(self.hbm.access(slice, acc.device_slot.address + 32 * s, 1, true, t));
                }
            }
            self.device.write(acc.device_slot.address, &merged);
            return Ok((MemoryEntry::from_bytes(&merged), RequestInfo { done, buddy: false }));
        }
        let (mut merged, mut start, mut buddy) = (*value, t, false);
        if partial {
            let zero_reads = self.stats.zero_reads;
            let (old, info) = self.read(va, t)?;
            // Counted as part of this write, not as a read.
            self.stats.reads -= 1;
            self.stats.zero_reads = zero_reads;
            let old = old.to_bytes();
            for s in 0..4 {
                if mask >> s & 1 == 0 {
                    merged[s * 32..(s + 1) * 32].copy_from_slice(&old[s * 32..(s + 1) * 32]);
                }
            }
            start = info.done;
            buddy = info.buddy;
        }
        self.stats.writes += 1;
        self.stats.partial_writes += partial as u64;
        let entry = MemoryEntry::from_bytes(&merged);
        let c = self.codec.compress(&entry);
        let ready = start + self.compress_ps;
        let acc = self.translate(va, c.class)?;
        self.store(&acc, &c.payload);
        let mut done = self.sectors(slice, acc.device, true, ready);
        if let Some(b) = acc.buddy {
            done = done.max(self.link.transfer(Self::buddy_bytes(b), true, ready));
            buddy = true;
        }
        let at = acc.metadata.ok_or(SimError::Unmapped { va })?;
        self.nibble(slice, at, Some(c.class.code()));
        if let Some(fill) = self.metadata_traffic(slice, ready) {
            done = done.max(fill);
        }
        Ok((entry, RequestInfo { done: done.max(ready), buddy }))
    }

    /// Flip the lowest bit of the first stored byte of the entry at `va`
    /// (its first device byte; the size nibble when nothing is stored).
    ///
    /// # Errors
    /// `va` unmapped.
    pub fn corrupt(&mut self, va: u64) -> Result<(), SimError> {
        let slot = self.translate(va, SizeClass::Raw)?;
        let mut b = [0u8; 1];
        self.device.read(slot.device_slot.address, &mut b);
        b[0] ^= 1;
        self.device.write(slot.device_slot.address, &b);
        if let Some(at) = slot.metadata {
            let i = (at.address - self.pages.regs.md_base) as usize;
            // A ZERO entry stores no data: make its nibble say B8 instead.
            if let Some(byte) = self.metadata.get_mut(i) {
                let code = if at.high { *byte >> 4 } else { *byte & 0xf };
                if code == 0 {
                    *byte |= if at.high { 0x10 } else { 0x01 };
                }
            } else {
                self.metadata.resize(i + 1, 0);
                self.metadata[i] = if at.high { 0x10 } else { 0x01 };
            }
        }
        Ok(())
    }

    /// Write every dirty metadata sector back at time `t` (end of a run).
    pub fn flush_metadata(&mut self, t: u64) -> u64 {
        let mut done = t;
        if !self.rtl.is_empty() {
            for s in 0..self.slices {
                // A flush cannot fault or fail to decode.
                if let Ok(resp) = self.rtl_request(0, false, Some(s), 0, &[0; ENTRY_BYTES], t) {
                    done = done.max(self.rtl_done(&resp));
                }
            }
            return done;
        }
        if self.hardware.is_some() {
            return self.hw_flush(t);
        }
        for s in 0..self.caches.len() {
            let mut memory = MetadataMemory { bytes: &mut self.metadata, base: self.pages.regs.md_base, events: &mut self.events };
            self.caches[s].flush(&mut memory);
            for (address, write) in std::mem::take(&mut self.events) {
                done = done.max(self.hbm.access(s as u64, address, 1, write, t));
            }
        }
        done
    }

    /// The entry at `va` as memory holds it now, read without timing
    /// through the metadata in memory (call after [`Controllers::flush_metadata`]).
    ///
    /// # Errors
    /// As [`Controllers::read`].
    pub fn peek(&self, va: u64) -> Result<MemoryEntry, SimError> {
        if self.mode == Mode::Uncompressed {
            let acc = self.translate(va, SizeClass::Raw)?;
            return Ok(MemoryEntry::from_slice(&self.load(&acc)).expect("128 bytes"));
        }
        let slot = self.translate(va, SizeClass::Raw)?;
        let at = slot.metadata.ok_or(SimError::Unmapped { va })?;
        let byte = self.metadata.get((at.address - self.pages.regs.md_base) as usize).copied().unwrap_or(0);
        let code = if at.high { byte >> 4 } else { byte & 0xf };
        let class = SizeClass::from_code(code).map_err(|e| SimError::Decode { va, message: e.to_string() })?;
        let acc = self.translate(va, class)?;
        self.codec.decompress(class, &self.load(&acc)).map_err(|e| SimError::Decode { va, message: e.to_string() })
    }
}
