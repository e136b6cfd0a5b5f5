//! One GPU's Buddy memory controllers: the slices' behaviour (the golden
//! [`ControllerSlice`]: translation, metadata cache, codecs), timed by one
//! [`SliceEngine`] of five (docs/controller.md, "Timing: five engines";
//! [`super::engine`]) against the HBM2 and NVLink models
//! (docs/formats.md#metadata-cache).
//!
//! Slices (**decision**, as `mdcache_study`): entries are dealt to the
//! slices in blocks of [`ENTRIES_PER_SLICE_BLOCK`] (one 32-byte metadata
//! sector's worth), so every metadata sector belongs to one slice's cache;
//! which slice takes a block is [`SliceMap`]'s (`system.slice_interleave`,
//! hashed by default).
//!
//! [`Controllers::read`] and [`Controllers::write`] issue one request and
//! wait for it; [`Controllers::start_read`] and [`Controllers::start_write`]
//! leave it in flight as a task of the event queue.
//!
//! [`ENTRIES_PER_SLICE_BLOCK`]: super::request::ENTRIES_PER_SLICE_BLOCK

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use buddy_golden::controller_slice::{ControllerSlice, SliceConfig};
use buddy_golden::metadata_cache::{CacheStats, MetadataCacheConfig};
use buddy_golden::{Algorithm, HardwareCodec, MemoryEntry, SizeClass, ENTRY_BYTES};
use serde::Serialize;

use super::backing_store::BackingStore;
use super::engine::paper::PaperEngine;
use super::engine::pipelined_driver::PipelinedSlices;
use super::engine::pipelined_model::PipelinedModelEngine;
use super::engine::pipelined_rtl::PipelinedRtlEngine;
use super::engine::serial_rtl::{SerialRtlEngine, Slice};
use super::engine::serial_timing::SerialTimingEngine;
use super::engine::{MemorySystem, SliceEngine};
use super::error::SimError;
use super::event_queue::EventQueue;
use super::hbm::{Hbm, HbmStats};
use super::mode::Mode;
use super::nvlink::{LinkStats, Nvlink};
use super::pages::PageTable;
use super::request::{Finished, Outcome, Request, RequestInfo, SliceMap};
use crate::config::{RtlSlice, SimConfig, SliceTiming};

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

/// The controllers, memories and links of one run.
pub struct Controllers {
    algorithm: Algorithm,
    /// What the engine works on: pages, backing store, golden slices, event queue.
    pub system: MemorySystem,
    engine: Box<dyn SliceEngine>,
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
        // Placed for golden's default 8 slices (the hardware's) whatever
        // `system.slices` is, so that every engine's cache is the RTL's.
        let metadata_cache =
            MetadataCacheConfig { size_bytes: config.metadata_cache.bytes, ways: config.metadata_cache.ways, ..Default::default() };
        let hbm = Hbm::new(config);
        let cycle = config.cycle_ps();
        let link = Nvlink::new(config, (hbm.unloaded_read_cycles() as f64 * cycle).round() as u64);
        let n = config.system.slices as usize;
        let slice_config = SliceConfig { algorithm, metadata_cache, regs: pages.regs, page: pages.page };
        let engine: Box<dyn SliceEngine> = match (config.system.slice_timing, config.system.rtl_slice) {
            (SliceTiming::Paper, _) => Box::new(PaperEngine::new(config, algorithm)),
            (SliceTiming::Hardware, RtlSlice::Pipelined) => {
                Box::new(PipelinedModelEngine::new(n, algorithm.require_hardware()?, &pages.regs))
            }
            (SliceTiming::Hardware, RtlSlice::Serial) => {
                Box::new(SerialTimingEngine::new(n, algorithm.require_hardware()?, metadata_cache.ways))
            }
        };
        let system = MemorySystem {
            mode,
            pages,
            backing: Rc::new(RefCell::new(BackingStore::default())),
            golden: (0..n).map(|_| ControllerSlice::new(slice_config).expect("validated geometry")).collect(),
            queue: EventQueue::new(hbm, link, cycle),
            slice_map: SliceMap::for_cache(n as u64, &metadata_cache, config.system.slice_interleave),
        };
        Ok(Controllers { algorithm, system, engine, stats: ControllerStats::default() })
    }

    /// Serve every request from now on with one slice of hardware per
    /// slice simulated in rust-hdl (the RTL engines), built with `codec`: a
    /// `PipelinedController` or a `BuddyController`.
    pub fn use_rtl(&mut self, codec: HardwareCodec, hardware: RtlSlice) {
        let n = self.system.golden.len();
        self.engine = match hardware {
            RtlSlice::Pipelined => Box::new(PipelinedRtlEngine::new(n, codec, &self.system.pages.regs)),
            RtlSlice::Serial => Box::new(SerialRtlEngine::new(n, codec, &self.system.pages.regs)),
        };
    }

    /// Cycles a request was offered to a slice and not taken, by why: the
    /// fast engine's timing of the pipelined slice only (its cycle model).
    pub fn accept_waits(&self) -> Option<BTreeMap<String, u64>> {
        self.engine.accept_waits()
    }

    /// Where the reads that moved data spent their time in the slices
    /// (the paper timing and the pipelined slice).
    pub fn read_split(&self) -> Option<super::engine::ReadSplit> {
        self.engine.read_split()
    }

    /// The pipelined RTL engine's slices, if that is the engine.
    pub fn pipelined_rtl(&self) -> Option<&PipelinedSlices> {
        // Through the box: the box itself is `Any` too.
        (*self.engine).as_any().downcast_ref::<PipelinedRtlEngine>().map(|e| &e.slices)
    }

    /// The pipelined slice's driver, under the RTL engine or the cycle
    /// model (`--slice-timing hardware`): both time the same ports.
    pub fn pipelined_slices(&self) -> Option<&PipelinedSlices> {
        self.pipelined_rtl().or_else(|| (*self.engine).as_any().downcast_ref::<PipelinedModelEngine>().map(|e| e.slices()))
    }

    /// Run `f` on every slice's hardware (serial RTL engine; none in flight; an
    /// empty list in the other engines).
    pub fn with_rtl_slices<R>(&mut self, f: impl FnOnce(&mut [Box<dyn Slice>]) -> R) -> R {
        match (*self.engine).as_any_mut().downcast_mut::<SerialRtlEngine>() {
            Some(e) => e.with_slices(f),
            None => f(&mut []),
        }
    }

    /// The counters, with the engine's ZERO reads.
    pub fn controller_stats(&self) -> ControllerStats {
        ControllerStats { zero_reads: self.engine.zero_reads(), ..self.stats }
    }

    /// HBM2 counters (command counts up to now).
    pub fn hbm_stats(&self) -> HbmStats {
        self.system.queue.shared.hbm.borrow().stats()
    }

    /// Link counters.
    pub fn link_stats(&self) -> LinkStats {
        self.system.queue.shared.link.borrow().stats
    }

    /// Banks that served a column command, per channel.
    pub fn banks_used(&self) -> Vec<usize> {
        self.system.queue.shared.hbm.borrow().banks_used()
    }

    /// Metadata cache counters summed over the slices.
    pub fn metadata_stats(&self) -> CacheStats {
        self.engine.metadata_stats(&self.system)
    }

    /// Store `entry` at `va` as the initial memory contents: data and
    /// metadata straight into memory, no timing, no counters.
    ///
    /// # Errors
    /// `va` unmapped or a translation fault.
    pub fn preload(&mut self, va: u64, entry: &MemoryEntry) -> Result<(), SimError> {
        Ok(self.system.behaviour(va, |s, pte, m| s.preload(pte, va, entry, m))??)
    }

    /// Issue a read of the entry at `va` (a multiple of 128) at `t` ps (not
    /// before the previous issue); the result is in the outcome once its
    /// task has finished.
    ///
    /// # Errors
    /// Unmapped address, translation fault, a reserved size code or a
    /// stream the decoder rejects (engines on golden slices; the RTL
    /// engines report them in the outcome), or a stalled simulation.
    pub fn start_read(&mut self, va: u64, t: u64) -> Result<Outcome, SimError> {
        self.start_read_sectors(va, 0xF, t)
    }

    /// As [`Controllers::start_read`], needing only the sectors of
    /// `sectors` (bit `s` = bytes `32s..32s+32`, not 0): an engine that
    /// reads sectors ([`Controllers::sector_reads`]) moves only the run
    /// from the lowest to the highest of them from an uncompressed page;
    /// every other read moves what the whole entry needs. The answer is
    /// the whole entry either way.
    ///
    /// # Errors
    /// As [`Controllers::start_read`].
    pub fn start_read_sectors(&mut self, va: u64, sectors: u8, t: u64) -> Result<Outcome, SimError> {
        debug_assert!(sectors & 0xF != 0, "a read needs a sector");
        self.system.queue.advance_to(t)?;
        self.stats.reads += 1;
        self.engine.start(&mut self.system, &Request { va, write: false, mask: 0, read_sectors: sectors & 0xF, value: &[0; ENTRY_BYTES] })
    }

    /// The engine reads only the sectors a read needs from an uncompressed
    /// page (the paper timing: a GPU's memory controller); the hardware
    /// slices read whole entries (their read request has no sector mask).
    pub fn sector_reads(&self) -> bool {
        self.engine.sector_reads()
    }

    /// Issue a write of the sectors of `mask` of `value` to the entry at
    /// `va` at `t` ps; the outcome's entry is what memory then holds.
    ///
    /// # Errors
    /// As [`Controllers::start_read`].
    pub fn start_write(&mut self, va: u64, mask: u8, value: &[u8; ENTRY_BYTES], t: u64) -> Result<Outcome, SimError> {
        self.system.queue.advance_to(t)?;
        self.stats.writes += 1;
        self.stats.partial_writes += (mask & 0xF != 0xF) as u64;
        self.engine.start(&mut self.system, &Request { va, write: true, mask: mask & 0xF, read_sectors: 0, value })
    }

    /// Run until `outcome` holds its result and take it.
    ///
    /// # Errors
    /// The request's error, or a stalled simulation.
    pub fn wait(&mut self, outcome: &Outcome) -> Result<Finished, SimError> {
        self.system.queue.run_until(u64::MAX, || outcome.borrow().is_some())?;
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

    /// Flip the lowest bit of the first stored byte of the entry at `va`
    /// (its first device byte; the size nibble when nothing is stored).
    ///
    /// # Errors
    /// `va` unmapped.
    pub fn corrupt(&mut self, va: u64) -> Result<(), SimError> {
        let slot = self.system.translate(va, SizeClass::Raw)?;
        let mut backing = self.system.backing.borrow_mut();
        let mut b = [0u8; 1];
        backing.device.read(slot.device_slot.address, &mut b);
        b[0] ^= 1;
        backing.device.write(slot.device_slot.address, &b);
        if let Some(at) = slot.metadata {
            let i = (at.address - self.system.pages.regs.md_base) as usize;
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
        self.system.queue.finish()?;
        self.system.queue.advance_to(t)?;
        let outcomes = self.engine.flush(&mut self.system)?;
        let mut done = t;
        for o in &outcomes {
            done = done.max(self.wait(o)?.info.done);
        }
        let queue = &mut self.system.queue;
        queue.finish()?;
        let end = queue.now().max(done);
        let cycle = queue.shared.cycle_at(end);
        queue.shared.hbm.borrow_mut().finish(cycle);
        Ok(done)
    }

    /// The entry at `va` as memory holds it now, read without timing
    /// through the metadata in memory (call after [`Controllers::flush_metadata`]).
    ///
    /// # Errors
    /// As [`Controllers::read`].
    pub fn peek(&self, va: u64) -> Result<MemoryEntry, SimError> {
        self.system.peek(va)
    }

    /// The algorithm of the codecs.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}
