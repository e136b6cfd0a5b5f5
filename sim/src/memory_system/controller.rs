//! One GPU's Buddy memory controllers: the slices' behaviour (the golden
//! [`ControllerSlice`]: translation, metadata cache, codecs), timed by one of
//! five engines (docs/controller.md, "Timing: five engines") against the
//! HBM2 and NVLink models (docs/formats.md#metadata-cache).
//!
//! Slices (**decision**, as `mdcache_study`): entries are interleaved over
//! the slices in blocks of 64 (one 32-byte metadata sector's worth), so
//! every metadata sector belongs to one slice's cache.
//!
//! What a request reads and writes is the behaviour model's (see
//! [`buddy_golden::controller_slice`]); when its traffic happens is the
//! engine's ([`Engine`]):
//! - [`Engine::Paper`]: the paper's idealized timing ([`paper_timing`]);
//! - [`Engine::Hardware`]: the `BuddyController`'s timing, built from the
//!   hardware's own timing facts ([`hardware_timing`]);
//! - [`Engine::Rtl`]: the `BuddyController` hardware itself, simulated in
//!   rust-hdl ([`super::rtl`]).
//!
//! In the fast engines a request's values are computed when it issues, in
//! issue order; its timing then runs as a task of the [`World`], which
//! shares the HBM2 channels and the link between all requests in flight.
//! [`Controllers::read`] and [`Controllers::write`] issue one request and
//! wait for it; [`Controllers::start_read`] and [`Controllers::start_write`]
//! leave it in flight.

use std::cell::RefCell;
use std::rc::Rc;

use buddy_golden::controller_slice::{ControllerSlice, Served, SliceConfig, SliceError, SliceMemory};
use buddy_golden::metadata_cache::{CacheStats, MetadataCacheConfig, SectorMemory};
use buddy_golden::translation::{translate_entry, EntryAccess, Pte};
use buddy_golden::{Algorithm, HardwareCodec, MemoryEntry, SizeClass, ENTRY_BYTES};
use serde::Serialize;

use super::config::RtlSlice;
use super::config::{SimConfig, SliceTiming};
use super::hbm::{Hbm, HbmStats};
use super::nvlink::{LinkStats, Nvlink};
use super::pages::{PageTable, SparseMemory};
use super::pipelined_rtl::{PipelinedSlices, Queued};
use buddy_hdl_model::pipelined_controller::RequestFacts;
use super::rtl::{new_slice, words_of, RtlEnv, Slice, SliceRequest};
use super::world::World;
use super::{Mode, SimError};
use crate::mdcache_study::ENTRIES_PER_SLICE_BLOCK;

pub mod hardware_timing;
pub mod paper_timing;
pub mod slots;
use hardware_timing::{HardwareTiming, SliceTurns};
use paper_timing::PaperTiming;
use slots::SliceSlots;

/// What one request did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RequestInfo {
    /// Completion time, picoseconds.
    pub done: u64,
    /// Buddy-memory was read or written.
    pub buddy: bool,
}

/// A finished request: the entry read (reads) or left in memory (writes;
/// `None` when the engine's hardware does not answer it: the pipelined
/// slice's, and a flush's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Finished {
    pub entry: Option<MemoryEntry>,
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
    /// The metadata region, from `MD_BASE`.
    pub metadata: Vec<u8>,
}

/// [`Backing`] as the behaviour model sees it: physical addresses, the
/// metadata region at `md_base`.
pub(super) struct BackingMemory<'a> {
    pub backing: &'a mut Backing,
    pub md_base: u64,
}

impl SectorMemory for BackingMemory<'_> {
    fn read_sector(&mut self, address: u64, data: &mut [u8]) {
        self.backing.metadata.read_sector(address - self.md_base, data);
    }
    fn write_sector(&mut self, address: u64, data: &[u8]) {
        self.backing.metadata.write_sector(address - self.md_base, data);
    }
}

impl SliceMemory for BackingMemory<'_> {
    fn read_device(&mut self, address: u64, out: &mut [u8]) {
        self.backing.device.read(address, out);
    }
    fn write_device(&mut self, address: u64, data: &[u8]) {
        self.backing.device.write(address, data);
    }
    fn read_buddy(&mut self, address: u64, out: &mut [u8]) {
        self.backing.buddy.read(address, out);
    }
    fn write_buddy(&mut self, address: u64, data: &[u8]) {
        self.backing.buddy.write(address, data);
    }
}

impl From<SliceError> for SimError {
    fn from(e: SliceError) -> Self {
        match e {
            SliceError::Fault { va, fault } => SimError::Fault { va, fault },
            SliceError::Decode { va, message, .. } => SimError::Decode { va, message },
        }
    }
}

/// The RTL engine's slices: each is taken out while it serves a request.
struct RtlSlices {
    hardware: Rc<RefCell<Vec<Option<Box<dyn Slice>>>>>,
    metadata: Rc<RefCell<CacheStats>>,
    turns: Rc<SliceTurns>,
}

/// How requests are timed (the engine of a run).
enum Engine {
    /// Fast engine, the paper's idealized timing; with a bound on the
    /// requests a slice holds (`system.slice_in_flight`), if any.
    Paper(PaperTiming, Option<Rc<SliceSlots>>),
    /// Fast engine, the `BuddyController`'s timing.
    Hardware(HardwareTiming),
    /// Fast engine, the `PipelinedController`'s timing: its cycle model.
    PipelinedModel(PipelinedSlices),
    /// The `BuddyController` hardware in rust-hdl.
    Rtl(RtlSlices),
    /// The `PipelinedController` hardware in rust-hdl.
    PipelinedRtl(PipelinedSlices),
}

/// The controllers, memories and links of one run.
pub struct Controllers {
    mode: Mode,
    algorithm: Algorithm,
    pub pages: PageTable,
    backing: Rc<RefCell<Backing>>,
    /// The slices' behaviour (fast engines; the RTL engine's hardware has its own state).
    slices: Vec<ControllerSlice>,
    /// Simulated time, the HBM2 channels and the link.
    pub world: World,
    engine: Engine,
    pub stats: ControllerStats,
}

impl Controllers {
    /// The controllers of `config` in `mode` over `pages`, compressing with
    /// `algorithm`, timed as `config.system.slice_timing` says.
    ///
    /// # Errors
    /// [`SimError::NoHardware`] for the hardware slice timing with an
    /// algorithm that has no hardware ([`Algorithm::hardware`]).
    ///
    /// # Panics
    /// On a metadata cache geometry that `SimConfig::validate` rejects.
    pub fn new(config: &SimConfig, mode: Mode, algorithm: Algorithm, pages: PageTable) -> Result<Self, SimError> {
        let metadata_cache =
            MetadataCacheConfig { size_bytes: config.metadata_cache.bytes, ways: config.metadata_cache.ways, ..Default::default() };
        let hbm = Hbm::new(config);
        let cycle = config.cycle_ps();
        let link = Nvlink::new(config, (hbm.unloaded_read_cycles() as f64 * cycle).round() as u64);
        let n = config.system.slices as usize;
        let slice_config = SliceConfig { algorithm, metadata_cache, regs: pages.regs, page: pages.page };
        let engine = match config.slice_timing() {
            SliceTiming::Pipelined => {
                let (c, d) = config.codec_cycles(algorithm);
                let slots = (config.system.slice_in_flight > 0).then(|| SliceSlots::new(n, config.system.slice_in_flight as usize));
                let timing = PaperTiming {
                    compress_ps: (c * cycle).round() as u64,
                    decompress_ps: (d * cycle).round() as u64,
                    md_hit_ps: (config.metadata_cache.hit_cycles * cycle).round() as u64,
                };
                Engine::Paper(timing, slots)
            }
            SliceTiming::Hardware if config.rtl_slice() == RtlSlice::Pipelined => {
                Engine::PipelinedModel(PipelinedSlices::model(n, algorithm.require_hardware()?, &pages.regs))
            }
            SliceTiming::Hardware => Engine::Hardware(HardwareTiming::new(n, algorithm.require_hardware()?, metadata_cache.ways)),
        };
        Ok(Controllers {
            mode,
            algorithm,
            pages,
            backing: Rc::new(RefCell::new(Backing::default())),
            slices: (0..n).map(|_| ControllerSlice::new(slice_config).expect("validated geometry")).collect(),
            world: World::new(hbm, link, cycle),
            engine,
            stats: ControllerStats::default(),
        })
    }

    /// Serve every request from now on with one slice of hardware per
    /// slice simulated in rust-hdl (the RTL engine), built with `codec`: a
    /// `PipelinedController` or a `BuddyController`.
    pub fn use_rtl(&mut self, codec: HardwareCodec, hardware: RtlSlice) {
        let n = self.slices.len();
        if hardware == RtlSlice::Pipelined {
            self.engine = Engine::PipelinedRtl(PipelinedSlices::new(n, codec, &self.pages.regs));
            return;
        }
        self.engine = Engine::Rtl(RtlSlices {
            hardware: Rc::new(RefCell::new((0..n).map(|_| Some(new_slice(codec, &self.pages.regs))).collect())),
            metadata: Rc::new(RefCell::new(CacheStats::default())),
            turns: Rc::new(SliceTurns::new(n)),
        });
    }

    /// Cycles a request was offered to a slice and not taken, by why: the
    /// fast engine's timing of the pipelined slice only (its cycle model).
    pub fn accept_waits(&self) -> Option<std::collections::BTreeMap<String, u64>> {
        match &self.engine {
            Engine::PipelinedModel(p) => p.accept_waits(),
            _ => None,
        }
    }

    /// The pipelined RTL engine's slices, if that is the engine.
    pub fn pipelined_rtl(&self) -> Option<&PipelinedSlices> {
        match &self.engine {
            Engine::PipelinedRtl(p) => Some(p),
            _ => None,
        }
    }

    /// Run `f` on every slice's hardware (serial RTL engine; none in flight; an
    /// empty list in the other engines).
    pub fn with_rtl_slices<R>(&mut self, f: impl FnOnce(&mut [Box<dyn Slice>]) -> R) -> R {
        let Engine::Rtl(rtl) = &self.engine else { return f(&mut []) };
        let mut v = rtl.hardware.borrow_mut();
        let mut slices: Vec<Box<dyn Slice>> = v.iter_mut().map(|s| s.take().expect("no request in flight")).collect();
        let r = f(&mut slices);
        *v = slices.into_iter().map(Some).collect();
        r
    }

    /// The counters, with the RTL slices' ZERO reads.
    pub fn controller_stats(&self) -> ControllerStats {
        let mut s = self.stats;
        match &self.engine {
            Engine::Rtl(rtl) => s.zero_reads += rtl.turns.zero_reads.get(),
            Engine::PipelinedRtl(p) | Engine::PipelinedModel(p) => s.zero_reads += p.zero_reads.get(),
            _ => {}
        }
        s
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
        match &self.engine {
            Engine::Rtl(rtl) => return *rtl.metadata.borrow(),
            Engine::PipelinedRtl(p) | Engine::PipelinedModel(p) => return *p.metadata.borrow(),
            _ => {}
        }
        let mut s = CacheStats::default();
        self.slices.iter().for_each(|c| s += c.metadata_stats());
        s
    }

    fn slice(&self, va: u64) -> u64 {
        ((va - self.pages.regs.heap_base) / ENTRY_BYTES as u64 / ENTRIES_PER_SLICE_BLOCK) % self.slices.len() as u64
    }

    fn pte(&self, va: u64) -> Result<Pte, SimError> {
        self.pages.pte(va).copied().ok_or(SimError::Unmapped { va })
    }

    fn translate(&self, va: u64, class: SizeClass) -> Result<EntryAccess, SimError> {
        let pte = self.pte(va)?;
        translate_entry(&self.pages.regs, self.pages.page, &pte, va, class).map_err(|fault| SimError::Fault { va, fault })
    }

    /// Run `f` on the behaviour model of `va`'s slice with the memories.
    fn behaviour<R>(&mut self, va: u64, f: impl FnOnce(&mut ControllerSlice, &Pte, &mut BackingMemory) -> R) -> Result<R, SimError> {
        let pte = self.pte(va)?;
        let slice = self.slice(va) as usize;
        let mut backing = self.backing.borrow_mut();
        let mut memory = BackingMemory { backing: &mut backing, md_base: self.pages.regs.md_base };
        Ok(f(&mut self.slices[slice], &pte, &mut memory))
    }

    /// Store `entry` at `va` as the initial memory contents: data and
    /// metadata straight into memory, no timing, no counters.
    ///
    /// # Errors
    /// `va` unmapped or a translation fault.
    pub fn preload(&mut self, va: u64, entry: &MemoryEntry) -> Result<(), SimError> {
        Ok(self.behaviour(va, |s, pte, m| s.preload(pte, va, entry, m))??)
    }

    /// Issue a read of the entry at `va` (a multiple of 128) at `t` ps (not
    /// before the previous issue); the result is in the outcome once its
    /// task has finished.
    ///
    /// # Errors
    /// Unmapped address, translation fault, a reserved size code or a
    /// stream the decoder rejects (fast engines; the RTL engine reports
    /// them in the outcome), or a stalled simulation.
    pub fn start_read(&mut self, va: u64, t: u64) -> Result<Outcome, SimError> {
        self.world.advance_to(t)?;
        self.stats.reads += 1;
        if matches!(self.engine, Engine::Rtl(_) | Engine::PipelinedRtl(_)) {
            return self.rtl_start(va, false, None, 0, &[0; ENTRY_BYTES]);
        }
        let served = self.behaviour(va, |s, pte, m| s.read(pte, va, m))??;
        if matches!(self.engine, Engine::PipelinedModel(_)) {
            // Counted from the model's ports, as the RTL engine counts them.
            return self.model_start(va, false, 0, &[0; ENTRY_BYTES], served);
        }
        let part = served.read.as_ref().expect("a read has a read part");
        if part.metadata.as_ref().is_some_and(|m| m.hit()) && part.class == SizeClass::Zero {
            self.stats.zero_reads += 1;
        }
        Ok(self.spawn(va, served))
    }

    /// Issue a write of the sectors of `mask` of `value` to the entry at
    /// `va` at `t` ps; the outcome's entry is what memory then holds.
    ///
    /// # Errors
    /// As [`Controllers::start_read`].
    pub fn start_write(&mut self, va: u64, mask: u8, value: &[u8; ENTRY_BYTES], t: u64) -> Result<Outcome, SimError> {
        self.world.advance_to(t)?;
        self.stats.writes += 1;
        self.stats.partial_writes += (mask & 0xF != 0xF) as u64;
        if matches!(self.engine, Engine::Rtl(_) | Engine::PipelinedRtl(_)) {
            return self.rtl_start(va, true, None, mask & 0xF, value);
        }
        let served = self.behaviour(va, |s, pte, m| s.write(pte, va, mask, value, m))??;
        if matches!(self.engine, Engine::PipelinedModel(_)) {
            return self.model_start(va, true, mask & 0xF, value, served);
        }
        Ok(self.spawn(va, served))
    }

    /// Time a served request in the fast engine: a task that finishes with
    /// the request's entry.
    fn spawn(&mut self, va: u64, served: Served) -> Outcome {
        let slice = self.slice(va);
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let (sh, out) = (self.world.shared.clone(), outcome.clone());
        let buddy = served.touches_buddy();
        let entry = served.entry;
        match &self.engine {
            Engine::Paper(timing, slots) => {
                let (timing, slots) = (*timing, slots.clone());
                self.world.spawn(async move {
                    if let Some(s) = &slots {
                        s.acquire(&sh, slice).await;
                    }
                    let done = match (&served.read, &served.write) {
                        (read, Some(w)) if w.metadata.is_some() => timing.write(&sh, slice, read.as_ref(), w).await,
                        (_, Some(w)) => PaperTiming::plain_write(&sh, slice, w).await,
                        (Some(r), None) => {
                            let done = timing.read(&sh, slice, r).await;
                            sh.until(done).await;
                            done
                        }
                        (None, None) => unreachable!("a request reads or writes"),
                    };
                    if let Some(s) = &slots {
                        // The slot is held until the request is done (a write: its last access).
                        sh.until(done).await;
                        s.release(&sh, slice);
                    }
                    *out.borrow_mut() = Some(Ok(Finished { entry: Some(entry), info: RequestInfo { done, buddy } }));
                });
            }
            Engine::Hardware(timing) => timing.spawn(&mut self.world, slice, served, outcome.clone()),
            Engine::Rtl(_) | Engine::PipelinedRtl(_) | Engine::PipelinedModel(_) => unreachable!("served by slice drivers"),
        }
        outcome
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
        Ok((f.entry.ok_or_else(|| SimError::Hardware(format!("the read of {va:#x} was answered without an entry")))?, f.info))
    }

    /// Write and wait (one request at a time); returns the entry as memory
    /// now holds it, when the engine answers it (see [`Finished`]).
    ///
    /// # Errors
    /// As [`Controllers::start_read`].
    pub fn write(&mut self, va: u64, mask: u8, value: &[u8; ENTRY_BYTES], t: u64) -> Result<(Option<MemoryEntry>, RequestInfo), SimError> {
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
        let fault = if flush_slice.is_none() { self.translate(va, SizeClass::Raw).err().map(|e| e.to_string()) } else { None };
        if matches!(self.engine, Engine::PipelinedRtl(_)) {
            return Ok(self.submit_pipelined(slice, r, fault, None, None));
        }
        // What an uncompressed page's write leaves: the old slot under the mask.
        let old = (write && self.mode == Mode::Uncompressed).then(|| self.peek(va)).transpose()?;
        let Engine::Rtl(rtl) = &self.engine else { unreachable!("RTL engine") };
        let env = RtlEnv {
            slice,
            shared: self.world.shared.clone(),
            backing: self.backing.clone(),
            md_base: self.pages.regs.md_base,
            md_stats: rtl.metadata.clone(),
        };
        let turns = rtl.turns.clone();
        let turn = turns.take_turn(slice);
        let slices = rtl.hardware.clone();
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
                            entry: Some(MemoryEntry::from_bytes(&entry)),
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

    /// Hand a request to its pipelined slice's driver (the RTL engine's
    /// hardware or the fast engine's cycle model, with `facts` and the
    /// golden answer `golden`).
    fn submit_pipelined(
        &mut self,
        slice: u64,
        r: SliceRequest,
        fault: Option<String>,
        facts: Option<RequestFacts>,
        golden: Option<MemoryEntry>,
    ) -> Outcome {
        let (Engine::PipelinedRtl(p) | Engine::PipelinedModel(p)) = &self.engine else { unreachable!("a pipelined slice engine") };
        let env = RtlEnv {
            slice,
            shared: self.world.shared.clone(),
            backing: self.backing.clone(),
            md_base: self.pages.regs.md_base,
            md_stats: p.metadata.clone(),
        };
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let issue = self.world.shared.cycle_at(self.world.now());
        let mut q = Queued::new(r, issue, outcome.clone(), fault);
        q.facts = facts;
        q.golden = golden;
        p.submit(&mut self.world, env, q);
        outcome
    }

    /// Time a request the golden slice has `served` on the pipelined
    /// slice's cycle model.
    fn model_start(&mut self, va: u64, write: bool, mask: u8, value: &[u8; ENTRY_BYTES], served: Served) -> Result<Outcome, SimError> {
        let pte = self.pte(va)?;
        let raw = self.translate(va, SizeClass::Raw)?;
        let facts = RequestFacts {
            write,
            flush: false,
            mask,
            entry: va >> 7,
            fault: 0,
            compressed: pte.compressed,
            md_address: raw.metadata.map_or(0, |m| m.address),
            device: raw.device_slot.address,
            part: raw.device_slot.bytes,
            buddy: raw.buddy.map_or(0, |b| b.address),
            old_nibble: served.read.as_ref().map_or(0, |r| r.class.code()),
            new_class: served.write.as_ref().map_or(0, |w| w.class.code()),
            decode_error: false,
        };
        let r = SliceRequest { write, flush: false, mask, va, pte, page: self.pages.page, data: words_of(value) };
        let golden = (!write).then_some(served.entry);
        Ok(self.submit_pipelined(self.slice(va), r, None, Some(facts), golden))
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
        let n = self.slices.len() as u64;
        if matches!(self.engine, Engine::Rtl(_) | Engine::PipelinedRtl(_)) {
            for s in 0..n {
                outcomes.push(self.rtl_start(0, false, Some(s), 0, &[0; ENTRY_BYTES])?);
            }
        } else if matches!(self.engine, Engine::PipelinedModel(_)) {
            // The values from the golden slices; the timing from the model's flushes.
            let md_base = self.pages.regs.md_base;
            {
                let mut backing = self.backing.borrow_mut();
                let mut memory = BackingMemory { backing: &mut backing, md_base };
                self.slices.iter_mut().for_each(|s| {
                    s.flush(&mut memory);
                });
            }
            for s in 0..n {
                let pte = Pte { frame: 0, compressed: false, target_code: 0, buddy_offset: 0 };
                let r = SliceRequest { write: false, flush: true, mask: 0, va: 0, pte, page: self.pages.page, data: [0; 32] };
                let facts = RequestFacts { flush: true, ..Default::default() };
                outcomes.push(self.submit_pipelined(s, r, None, Some(facts), None));
            }
        } else {
            let md_base = self.pages.regs.md_base;
            let flushed: Vec<_> = {
                let mut backing = self.backing.borrow_mut();
                let mut memory = BackingMemory { backing: &mut backing, md_base };
                self.slices.iter_mut().map(|s| s.flush(&mut memory)).collect()
            };
            match &self.engine {
                Engine::Hardware(timing) => {
                    for (s, f) in flushed.into_iter().enumerate() {
                        outcomes.push(timing.spawn_flush(&mut self.world, s as u64, f));
                    }
                }
                Engine::Paper(..) => {
                    let writes: Vec<(u64, u64)> =
                        flushed.iter().enumerate().flat_map(|(s, f)| f.write_backs.iter().map(move |&a| (s as u64, a))).collect();
                    let outcome: Outcome = Rc::new(RefCell::new(None));
                    let (sh, out) = (self.world.shared.clone(), outcome.clone());
                    self.world.spawn(async move {
                        let tickets: Vec<u64> = writes.iter().map(|&(s, a)| sh.start_burst(s, a, 1, true, s)).collect();
                        let done = sh.all_bursts(tickets, sh.now()).await;
                        sh.until(done).await;
                        *out.borrow_mut() = Some(Ok(Finished { entry: None, info: RequestInfo { done, buddy: false } }));
                    });
                    outcomes.push(outcome);
                }
                Engine::Rtl(_) | Engine::PipelinedRtl(_) | Engine::PipelinedModel(_) => unreachable!("handled above"),
            }
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
        let pte = self.pte(va)?;
        let mut backing = self.backing.borrow_mut();
        let mut memory = BackingMemory { backing: &mut backing, md_base: self.pages.regs.md_base };
        Ok(self.slices[self.slice(va) as usize].peek(&pte, va, &mut memory)?)
    }

    /// The algorithm of the codecs.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}
