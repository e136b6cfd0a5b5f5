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
//!
//! A request's values are computed when it issues (fast mode: by the golden
//! models, in issue order); its timing then runs as a task of the
//! [`World`], which shares the HBM2 channels and the link between all
//! requests in flight. [`Controllers::read`] and [`Controllers::write`]
//! issue one request and wait for it; [`Controllers::start_read`] and
//! [`Controllers::start_write`] leave it in flight.

use std::cell::RefCell;
use std::rc::Rc;

use buddy_golden::metadata_cache::{CacheStats, MetadataCache, MetadataCacheConfig, SectorMemory};
use buddy_golden::translation::{translate_entry, ByteRange, EntryAccess, MetadataNibble, Pte};
use buddy_golden::{Algorithm, Codec, MemoryEntry, SizeClass, ENTRY_BYTES};
use serde::Serialize;

use super::config::SimConfig;
use super::hbm::{Hbm, HbmStats, SECTOR};
use super::nvlink::{LinkStats, Nvlink};
use super::pages::{PageTable, SparseMemory};
use super::rtl::{new_slice, words_of, RtlEnv, Slice, SliceRequest};
use super::world::{Shared, World};
use super::{Mode, SimError};
use crate::mdcache_study::ENTRIES_PER_SLICE_BLOCK;

pub mod hardware_timing;
pub use hardware_timing::codec_latency;
use hardware_timing::SliceTurns;

/// What one request did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RequestInfo {
    /// Completion time, picoseconds.
    pub done: u64,
    /// Buddy-memory was read or written.
    pub buddy: bool,
}

/// A finished request: the entry read (reads) or left in memory (writes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Finished {
    pub entry: MemoryEntry,
    pub info: RequestInfo,
}

/// A request in flight; holds its result once its task has finished.
pub type Outcome = Rc<RefCell<Option<Result<Finished, SimError>>>>;

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

/// The bytes of device memory, buddy-memory and the metadata region.
#[derive(Debug, Default)]
pub struct Backing {
    pub device: SparseMemory,
    pub buddy: SparseMemory,
    pub metadata: Vec<u8>,
}

/// Metadata memory seen through the caches: records every sector fill and
/// write-back so the timing model can charge them.
pub(super) struct MetadataMemory<'a> {
    pub bytes: &'a mut Vec<u8>,
    pub base: u64,
    pub events: &'a mut Vec<(u64, bool)>,
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

/// The timing of a read (or of a partial write's read) in pipelined timing.
#[derive(Debug, Clone)]
struct ReadTiming {
    slice: u64,
    /// Metadata sector fills (false) and write-backs (true), issued at once.
    metadata: Vec<(u64, bool)>,
    /// The nibble was in the metadata cache (or there is no metadata).
    hit: bool,
    md_hit_ps: u64,
    /// Device sectors: the class's on a hit, the whole slot on a miss
    /// (read beside the metadata, the class not yet known).
    device: (u64, u64),
    buddy_bytes: u64,
    decompress_ps: u64,
}

/// The controllers, memories and links of one run.
pub struct Controllers {
    mode: Mode,
    algorithm: Algorithm,
    codec: Box<dyn Codec + Send + Sync>,
    pub pages: PageTable,
    backing: Rc<RefCell<Backing>>,
    caches: Vec<MetadataCache>,
    events: Vec<(u64, bool)>,
    /// Simulated time, the HBM2 channels and the link.
    pub world: World,
    compress_ps: u64,
    decompress_ps: u64,
    md_hit_ps: u64,
    slices: u64,
    pub stats: ControllerStats,
    /// RTL mode: the slices' hardware (empty in fast mode); a slice is
    /// taken out while it serves a request.
    rtl: Rc<RefCell<Vec<Option<Box<dyn Slice>>>>>,
    rtl_md: Rc<RefCell<CacheStats>>,
    /// Hardware timing and RTL mode: each slice serves one request at a time, in issue order.
    turns: Option<Rc<SliceTurns>>,
}

impl Controllers {
    /// The controllers of `config` in `mode` over `pages`, compressing with `algorithm`.
    ///
    /// # Panics
    /// On a metadata cache geometry that `SimConfig::validate` rejects.
    pub fn new(config: &SimConfig, mode: Mode, algorithm: Algorithm, pages: PageTable) -> Self {
        let md = MetadataCacheConfig { size_bytes: config.metadata_cache.bytes, ways: config.metadata_cache.ways, ..Default::default() };
        let hbm = Hbm::new(config);
        let cycle = config.cycle_ps();
        let link = Nvlink::new(config, (hbm.unloaded_read_cycles() as f64 * cycle).round() as u64);
        let (c, d) = config.codec_cycles(algorithm);
        Controllers {
            mode,
            algorithm,
            codec: algorithm.codec(),
            pages,
            backing: Rc::new(RefCell::new(Backing::default())),
            caches: (0..config.system.slices).map(|_| MetadataCache::new(md).expect("validated geometry")).collect(),
            events: Vec::new(),
            world: World::new(hbm, link, cycle),
            compress_ps: (c * cycle).round() as u64,
            decompress_ps: (d * cycle).round() as u64,
            md_hit_ps: (config.metadata_cache.hit_cycles * cycle).round() as u64,
            slices: config.system.slices as u64,
            stats: ControllerStats::default(),
            rtl: Rc::new(RefCell::new(Vec::new())),
            rtl_md: Rc::new(RefCell::new(CacheStats::default())),
            turns: (config.system.slice_timing == "hardware")
                .then(|| Rc::new(SliceTurns::new(config.system.slices as usize, hardware_timing::OUT_OF_RESET, algorithm))),
        }
    }

    /// Serve every request from now on with one `BuddyController` per
    /// slice simulated in rust-hdl (RTL mode), compressing with `algorithm`.
    pub fn use_rtl(&mut self, algorithm: Algorithm) {
        *self.rtl.borrow_mut() = (0..self.slices).map(|_| Some(new_slice(algorithm, &self.pages.regs))).collect();
        if self.turns.is_none() {
            self.turns = Some(Rc::new(SliceTurns::new(self.slices as usize, hardware_timing::OUT_OF_RESET, algorithm)));
        }
    }

    /// Run `f` on every slice's hardware (RTL mode; none in flight).
    pub fn with_rtl_slices<R>(&mut self, f: impl FnOnce(&mut [Box<dyn Slice>]) -> R) -> R {
        let mut v = self.rtl.borrow_mut();
        let mut slices: Vec<Box<dyn Slice>> = v.iter_mut().map(|s| s.take().expect("no request in flight")).collect();
        let r = f(&mut slices);
        *v = slices.into_iter().map(Some).collect();
        r
    }

    /// The counters, with the RTL slices' ZERO reads.
    pub fn controller_stats(&self) -> ControllerStats {
        let mut s = self.stats;
        if let Some(t) = &self.turns {
            s.zero_reads += t.zero_reads.get();
        }
        s
    }

    fn is_rtl(&self) -> bool {
        !self.rtl.borrow().is_empty()
    }

    /// HBM2 counters (command counts up to now).
    pub fn hbm_stats(&self) -> HbmStats {
        self.world.shared.hbm.borrow().stats()
    }

    /// Link counters.
    pub fn link_stats(&self) -> LinkStats {
        self.world.shared.link.borrow().stats
    }

    /// Banks that served a column command, per channel.
    pub fn banks_used(&self) -> Vec<usize> {
        self.world.shared.hbm.borrow().banks_used()
    }

    /// Metadata cache counters summed over the slices.
    pub fn metadata_stats(&self) -> CacheStats {
        if self.is_rtl() {
            return *self.rtl_md.borrow();
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
            self.backing.borrow_mut().device.write(acc.device_slot.address, &entry.to_bytes());
            return Ok(());
        }
        let c = self.codec.compress(entry);
        let acc = self.translate(va, c.class)?;
        self.store(&acc, &c.payload);
        if let Some(at) = acc.metadata {
            let i = (at.address - self.pages.regs.md_base) as usize;
            let mut b = self.backing.borrow_mut();
            if b.metadata.len() <= i {
                b.metadata.resize(i + 1, 0);
            }
            let byte = &mut b.metadata[i];
            *byte = if at.high { (*byte & 0x0f) | (c.class.code() << 4) } else { (*byte & 0xf0) | c.class.code() };
        }
        Ok(())
    }

    fn store(&mut self, acc: &EntryAccess, payload: &[u8; ENTRY_BYTES]) {
        let d = acc.device.bytes as usize;
        let mut b = self.backing.borrow_mut();
        b.device.write(acc.device.address, &payload[..d]);
        if let Some(r) = acc.buddy {
            b.buddy.write(r.address, &payload[d..d + r.bytes as usize]);
        }
    }

    fn load(&self, acc: &EntryAccess) -> Vec<u8> {
        let mut stored = vec![0u8; (acc.device.bytes + acc.buddy.map_or(0, |b| b.bytes)) as usize];
        let d = acc.device.bytes as usize;
        let b = self.backing.borrow();
        b.device.read(acc.device.address, &mut stored[..d]);
        if let Some(r) = acc.buddy {
            b.buddy.read(r.address, &mut stored[d..]);
        }
        stored
    }

    /// Read or write the nibble at `at` through slice `slice`'s cache; the
    /// memory traffic it caused is left in `self.events`.
    fn nibble(&mut self, slice: u64, at: MetadataNibble, write: Option<u8>) -> (u8, buddy_golden::metadata_cache::Outcome) {
        let mut backing = self.backing.borrow_mut();
        let mut memory = MetadataMemory { bytes: &mut backing.metadata, base: self.pages.regs.md_base, events: &mut self.events };
        let cache = &mut self.caches[slice as usize];
        match write {
            None => cache.read_nibble(at, &mut memory),
            Some(v) => (v, cache.write_nibble(at, v, &mut memory)),
        }
    }

    fn buddy_bytes(range: Option<ByteRange>) -> u64 {
        range.map_or(0, |r| r.sectors().1 * SECTOR)
    }

    /// The values of a read of `va` now, and the timing it takes
    /// (pipelined timing). Counts a ZERO read on a metadata hit.
    fn read_now(&mut self, va: u64) -> Result<(MemoryEntry, ReadTiming), SimError> {
        let slice = self.slice(va);
        if self.mode == Mode::Uncompressed {
            let acc = self.translate(va, SizeClass::Raw)?;
            let entry = MemoryEntry::from_slice(&self.load(&acc)).expect("128 bytes");
            let t = ReadTiming {
                slice,
                metadata: Vec::new(),
                hit: true,
                md_hit_ps: 0,
                device: acc.device_slot.sectors(),
                buddy_bytes: 0,
                decompress_ps: 0,
            };
            return Ok((entry, t));
        }
        let slot = self.translate(va, SizeClass::Raw)?;
        let at = slot.metadata.ok_or(SimError::Unmapped { va })?;
        let (code, _) = self.nibble(slice, at, None);
        let metadata = std::mem::take(&mut self.events);
        let hit = !metadata.iter().any(|e| !e.1);
        let class = SizeClass::from_code(code).map_err(|e| SimError::Decode { va, message: e.to_string() })?;
        let acc = self.translate(va, class)?;
        if hit && class == SizeClass::Zero {
            self.stats.zero_reads += 1;
        }
        let entry = self.codec.decompress(class, &self.load(&acc)).map_err(|e| SimError::Decode { va, message: e.to_string() })?;
        let t = ReadTiming {
            slice,
            metadata,
            hit,
            md_hit_ps: self.md_hit_ps,
            device: if hit { acc.device.sectors() } else { acc.device_slot.sectors() },
            buddy_bytes: Self::buddy_bytes(acc.buddy),
            decompress_ps: if matches!(class, SizeClass::Zero | SizeClass::Raw) { 0 } else { self.decompress_ps },
        };
        Ok((entry, t))
    }

    /// Issue a read of the entry at `va` (a multiple of 128) at `t` ps (not
    /// before the previous issue); the result is in the outcome once its
    /// task has finished.
    ///
    /// # Errors
    /// Unmapped address, translation fault, a reserved size code or a
    /// stream the decoder rejects (fast mode; the RTL mode reports them in
    /// the outcome), or a stalled simulation.
    pub fn start_read(&mut self, va: u64, t: u64) -> Result<Outcome, SimError> {
        self.world.advance_to(t)?;
        self.stats.reads += 1;
        if self.is_rtl() {
            return self.rtl_start(va, false, None, 0, &[0; ENTRY_BYTES]);
        }
        if self.turns.is_some() {
            return self.hw_start_read(va);
        }
        let (entry, timing) = self.read_now(va)?;
        let buddy = timing.buddy_bytes > 0;
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let (sh, out) = (self.world.shared.clone(), outcome.clone());
        self.world.spawn(async move {
            let done = read_timing(&sh, &timing).await;
            sh.until(done).await;
            *out.borrow_mut() = Some(Ok(Finished { entry, info: RequestInfo { done, buddy } }));
        });
        Ok(outcome)
    }

    /// Issue a write of the sectors of `mask` of `value` to the entry at
    /// `va` at `t` ps; the outcome's entry is what memory then holds.
    ///
    /// # Errors
    /// As [`Controllers::start_read`].
    pub fn start_write(&mut self, va: u64, mask: u8, value: &[u8; ENTRY_BYTES], t: u64) -> Result<Outcome, SimError> {
        self.world.advance_to(t)?;
        let partial = mask & 0xF != 0xF;
        self.stats.writes += 1;
        self.stats.partial_writes += partial as u64;
        if self.is_rtl() {
            return self.rtl_start(va, true, None, mask & 0xF, value);
        }
        if self.turns.is_some() {
            return self.hw_start_write(va, mask, value);
        }
        let slice = self.slice(va);
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let (sh, out) = (self.world.shared.clone(), outcome.clone());
        if self.mode == Mode::Uncompressed {
            let acc = self.translate(va, SizeClass::Raw)?;
            let mut merged = [0u8; ENTRY_BYTES];
            self.backing.borrow().device.read(acc.device_slot.address, &mut merged);
            let mut sectors = Vec::new();
            for s in 0..4u64 {
                if mask >> s & 1 == 1 {
                    let r = s as usize * 32..(s as usize + 1) * 32;
                    merged[r.clone()].copy_from_slice(&value[r]);
                    sectors.push(acc.device_slot.address + 32 * s);
                }
            }
            self.backing.borrow_mut().device.write(acc.device_slot.address, &merged);
            let entry = MemoryEntry::from_bytes(&merged);
            self.world.spawn(async move {
                let tickets: Vec<u64> = sectors.iter().map(|&a| sh.start_burst(slice, a, 1, true, slice)).collect();
                let done = sh.all_bursts(tickets, sh.now()).await;
                *out.borrow_mut() = Some(Ok(Finished { entry, info: RequestInfo { done, buddy: false } }));
            });
            return Ok(outcome);
        }
        let mut merged = *value;
        let read = if partial {
            let zero_reads = self.stats.zero_reads;
            let (old, timing) = self.read_now(va)?;
            // Part of this write, not a read.
            self.stats.zero_reads = zero_reads;
            let old = old.to_bytes();
            for s in 0..4 {
                if mask >> s & 1 == 0 {
                    merged[s * 32..(s + 1) * 32].copy_from_slice(&old[s * 32..(s + 1) * 32]);
                }
            }
            Some(timing)
        } else {
            None
        };
        let entry = MemoryEntry::from_bytes(&merged);
        let c = self.codec.compress(&entry);
        let acc = self.translate(va, c.class)?;
        self.store(&acc, &c.payload);
        let at = acc.metadata.ok_or(SimError::Unmapped { va })?;
        self.nibble(slice, at, Some(c.class.code()));
        let metadata = std::mem::take(&mut self.events);
        let device = acc.device.sectors();
        let buddy_bytes = Self::buddy_bytes(acc.buddy);
        let buddy = buddy_bytes > 0 || read.as_ref().is_some_and(|r| r.buddy_bytes > 0);
        let compress_ps = self.compress_ps;
        self.world.spawn(async move {
            let start = match &read {
                Some(r) => read_timing(&sh, r).await,
                None => sh.now(),
            };
            let ready = start + compress_ps;
            sh.until(ready).await;
            let mut tickets = Vec::new();
            if device.1 > 0 {
                tickets.push(sh.start_burst(slice, device.0, device.1, true, slice));
            }
            let mut done = ready;
            if buddy_bytes > 0 {
                done = done.max(sh.link_transfer(buddy_bytes, true));
            }
            for &(a, w) in &metadata {
                if w {
                    sh.start_detached(slice, a, 1, true, slice);
                } else {
                    tickets.push(sh.start_burst(slice, a, 1, false, slice));
                }
            }
            let done = sh.all_bursts(tickets, done).await;
            sh.until(done).await;
            *out.borrow_mut() = Some(Ok(Finished { entry, info: RequestInfo { done, buddy } }));
        });
        Ok(outcome)
    }

    /// Run until `outcome` holds its result and take it.
    ///
    /// # Errors
    /// The request's error, or a stalled simulation.
    pub fn wait(&mut self, outcome: &Outcome) -> Result<Finished, SimError> {
        self.world.run_until(u64::MAX, || outcome.borrow().is_some())?;
        outcome.borrow_mut().take().unwrap_or_else(|| Err(SimError::Hardware("a request never finished".into())))
    }

    /// Read the entry at `va` at `t` ps and wait for it (one request at a time).
    ///
    /// # Errors
    /// As [`Controllers::start_read`].
    pub fn read(&mut self, va: u64, t: u64) -> Result<(MemoryEntry, RequestInfo), SimError> {
        let o = self.start_read(va, t)?;
        let f = self.wait(&o)?;
        Ok((f.entry, f.info))
    }

    /// Write and wait (one request at a time); returns the entry as memory now holds it.
    ///
    /// # Errors
    /// As [`Controllers::start_read`].
    pub fn write(&mut self, va: u64, mask: u8, value: &[u8; ENTRY_BYTES], t: u64) -> Result<(MemoryEntry, RequestInfo), SimError> {
        let o = self.start_write(va, mask, value, t)?;
        let f = self.wait(&o)?;
        Ok((f.entry, f.info))
    }

    /// An RTL-mode request: the slice's hardware serves it in its turn.
    fn rtl_start(
        &mut self,
        va: u64,
        write: bool,
        flush_slice: Option<u64>,
        mask: u8,
        value: &[u8; ENTRY_BYTES],
    ) -> Result<Outcome, SimError> {
        let (slice, pte) = match flush_slice {
            Some(s) => (s, Pte { frame: 0, compressed: false, target_code: 0, buddy_offset: 0 }),
            None => (self.slice(va), self.pte(va)?),
        };
        let r = SliceRequest { write, flush: flush_slice.is_some(), mask, va, pte, page: self.pages.page, data: words_of(value) };
        // What an uncompressed page's write leaves: the old slot under the mask.
        let old = (write && self.mode == Mode::Uncompressed).then(|| self.peek(va)).transpose()?;
        let fault = if flush_slice.is_none() { self.translate(va, SizeClass::Raw).err().map(|e| e.to_string()) } else { None };
        let env = RtlEnv {
            slice,
            shared: self.world.shared.clone(),
            backing: self.backing.clone(),
            md_base: self.pages.regs.md_base,
            md_stats: self.rtl_md.clone(),
        };
        let turns = self.turns.clone().expect("RTL mode has slice turns");
        let turn = turns.take_turn(slice);
        let slices = self.rtl.clone();
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let out = outcome.clone();
        let sh = self.world.shared.clone();
        self.world.spawn(async move {
            turns.wait_turn(&sh, slice, turn).await;
            let issue = sh.cycle_at(sh.now()).max(turns.free(slice));
            let hw = slices.borrow_mut()[slice as usize].take().expect("one request per slice at a time");
            let (hw, result) = hw.serve(r, issue, env).await;
            slices.borrow_mut()[slice as usize] = Some(hw);
            let result = result.map_err(SimError::Hardware).and_then(|resp| {
                turns.finish(&sh, slice, resp.cycle + 1);
                if !write && flush_slice.is_none() && resp.class == 0 && resp.md_read_hit {
                    turns.zero_reads.set(turns.zero_reads.get() + 1);
                }
                match resp.error as u64 {
                    buddy_hdl::buddy_controller::error::NONE => {
                        let mut entry = resp.entry.to_bytes();
                        if let Some(old) = old {
                            let old = old.to_bytes();
                            for s in 0..4 {
                                if mask >> s & 1 == 0 {
                                    entry[s * 32..(s + 1) * 32].copy_from_slice(&old[s * 32..(s + 1) * 32]);
                                }
                            }
                        }
                        Ok(Finished {
                            entry: MemoryEntry::from_bytes(&entry),
                            info: RequestInfo { done: sh.ps(resp.cycle), buddy: resp.buddy },
                        })
                    }
                    buddy_hdl::buddy_controller::error::DECODE => Err(SimError::Decode {
                        va,
                        message: format!("the hardware decompressor rejects the stored stream (size class code {})", resp.class),
                    }),
                    code => Err(match fault {
                        Some(f) => SimError::Hardware(format!("slice {slice} reports fault code {code} for {va:#x}: {f}")),
                        None => SimError::Hardware(format!(
                            "slice {slice} reports fault code {code} for {va:#x}, which the golden translation does not"
                        )),
                    }),
                }
            });
            if let Ok(f) = &result {
                sh.until(f.info.done).await;
            }
            *out.borrow_mut() = Some(result);
        });
        Ok(outcome)
    }

    /// Flip the lowest bit of the first stored byte of the entry at `va`
    /// (its first device byte; the size nibble when nothing is stored).
    ///
    /// # Errors
    /// `va` unmapped.
    pub fn corrupt(&mut self, va: u64) -> Result<(), SimError> {
        let slot = self.translate(va, SizeClass::Raw)?;
        let mut backing = self.backing.borrow_mut();
        let mut b = [0u8; 1];
        backing.device.read(slot.device_slot.address, &mut b);
        b[0] ^= 1;
        backing.device.write(slot.device_slot.address, &b);
        if let Some(at) = slot.metadata {
            let i = (at.address - self.pages.regs.md_base) as usize;
            // A ZERO entry stores no data: make its nibble say B8 instead.
            if let Some(byte) = backing.metadata.get_mut(i) {
                let code = if at.high { *byte >> 4 } else { *byte & 0xf };
                if code == 0 {
                    *byte |= if at.high { 0x10 } else { 0x01 };
                }
            } else {
                backing.metadata.resize(i + 1, 0);
                backing.metadata[i] = if at.high { 0x10 } else { 0x01 };
            }
        }
        Ok(())
    }

    /// Write every dirty metadata sector back at time `t` (end of a run,
    /// every request finished); returns when the last write-back is done.
    ///
    /// # Errors
    /// A stalled simulation or a slice that fails.
    pub fn flush_metadata(&mut self, t: u64) -> Result<u64, SimError> {
        self.world.finish()?;
        self.world.advance_to(t)?;
        let mut outcomes = Vec::new();
        if self.is_rtl() {
            for s in 0..self.slices {
                outcomes.push(self.rtl_start(0, false, Some(s), 0, &[0; ENTRY_BYTES])?);
            }
        } else if self.turns.is_some() {
            for s in 0..self.slices {
                outcomes.push(self.hw_start_flush(s));
            }
        } else {
            let mut writes = Vec::new();
            for s in 0..self.slices {
                let mut backing = self.backing.borrow_mut();
                let mut memory = MetadataMemory { bytes: &mut backing.metadata, base: self.pages.regs.md_base, events: &mut self.events };
                self.caches[s as usize].flush(&mut memory);
                writes.extend(std::mem::take(&mut self.events).into_iter().map(|(a, w)| (s, a, w)));
            }
            let outcome: Outcome = Rc::new(RefCell::new(None));
            let (sh, out) = (self.world.shared.clone(), outcome.clone());
            self.world.spawn(async move {
                let tickets: Vec<u64> = writes.iter().map(|&(s, a, w)| sh.start_burst(s, a, 1, w, s)).collect();
                let done = sh.all_bursts(tickets, sh.now()).await;
                sh.until(done).await;
                *out.borrow_mut() = Some(Ok(Finished { entry: MemoryEntry::ZERO, info: RequestInfo { done, buddy: false } }));
            });
            outcomes.push(outcome);
        }
        let mut done = t;
        for o in &outcomes {
            done = done.max(self.wait(o)?.info.done);
        }
        self.world.finish()?;
        let end = self.world.now().max(done);
        let cycle = self.world.shared.cycle_at(end);
        self.world.shared.hbm.borrow_mut().finish(cycle);
        Ok(done)
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
        let byte = self.backing.borrow().metadata.get((at.address - self.pages.regs.md_base) as usize).copied().unwrap_or(0);
        let code = if at.high { byte >> 4 } else { byte & 0xf };
        let class = SizeClass::from_code(code).map_err(|e| SimError::Decode { va, message: e.to_string() })?;
        let acc = self.translate(va, class)?;
        self.codec.decompress(class, &self.load(&acc)).map_err(|e| SimError::Decode { va, message: e.to_string() })
    }

    /// The algorithm of the codecs.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

/// The timing of a read in pipelined timing; returns when it is done, ps.
async fn read_timing(sh: &Rc<Shared>, t: &ReadTiming) -> u64 {
    let t0 = sh.now();
    let slice = t.slice;
    let mut fills = Vec::new();
    for &(a, w) in &t.metadata {
        if w {
            sh.start_detached(slice, a, 1, true, slice);
        } else {
            fills.push(sh.start_burst(slice, a, 1, false, slice));
        }
    }
    let (first, n) = t.device;
    // A miss reads the whole slot beside the metadata.
    let early = (!t.hit && n > 0).then(|| sh.start_burst(slice, first, n, false, slice));
    let md_ready = if t.hit { t0 + t.md_hit_ps } else { sh.all_bursts(fills, t0).await };
    sh.until(md_ready).await;
    let late = (t.hit && n > 0).then(|| sh.start_burst(slice, first, n, false, slice));
    let mut done = md_ready;
    // Buddy sectors wait for the metadata.
    if t.buddy_bytes > 0 {
        done = done.max(sh.link_transfer(t.buddy_bytes, false));
    }
    for tk in [early, late].into_iter().flatten() {
        done = done.max(sh.burst(tk).await);
    }
    done + t.decompress_ps
}
