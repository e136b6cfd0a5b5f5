//! The slice engines: how the controllers' requests are timed (and, in the
//! RTL engines, served), behind one interface, [`SliceEngine`]
//! (docs/controller.md, "Timing: five engines").
//!
//! | engine | file | values from | timing from |
//! |---|---|---|---|
//! | paper timing | [`paper`] | golden slices | the paper's idealized controller (Table I latencies) |
//! | serial slice timing | [`serial_timing`] | golden slices | the `BuddyController`'s cycles, from hdl's timing facts |
//! | pipelined slice cycle model | [`pipelined_model`] | golden slices | the `PipelinedController`'s cycle model (hdl-model) |
//! | serial RTL | [`serial_rtl`] | the `BuddyController` in rust-hdl | the same hardware |
//! | pipelined RTL | [`pipelined_rtl`] | the `PipelinedController` in rust-hdl | the same hardware |
//!
//! Each engine's requests run as tasks of the [`EventQueue`], which owns
//! simulated time and the devices the requests share (the HBM2 channels
//! and the NVLink link); the engines only start requests and flushes.

use std::any::Any;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use buddy_golden::controller_slice::{ControllerSlice, Served};
use buddy_golden::metadata_cache::CacheStats;
use buddy_golden::translation::{translate_entry, EntryAccess, Pte};
use buddy_golden::{MemoryEntry, SizeClass};
use serde::Serialize;

use super::backing_store::{BackingMemory, BackingStore};
use super::error::SimError;
use super::event_queue::{EventQueue, QueueState};
use super::mode::Mode;
use super::pages::PageTable;
use super::request::{words_of, Outcome, PortRequest, Request, SliceMap, SliceRequest};

pub mod paper;
pub mod pipelined_driver;
pub mod pipelined_model;
pub mod pipelined_rtl;
pub mod serial_rtl;
pub mod serial_timing;
pub mod slots;

/// How requests are timed: one implementation per engine.
///
/// The engine is called in issue order, with the event queue's time at
/// the request's issue; it leaves the request in flight as a task of
/// `system.queue` and returns the [`Outcome`] that task fills.
pub trait SliceEngine: AsAny {
    /// Start `request`; its result is in the outcome once its task ends.
    ///
    /// # Errors
    /// Unmapped address, translation fault or an undecodable entry, when
    /// the engine learns them at issue (the golden slices' engines; the
    /// RTL engines answer them in the outcome).
    fn start(&mut self, system: &mut MemorySystem, request: &Request) -> Result<Outcome, SimError>;

    /// Start the end-of-run metadata flush of every slice (every request
    /// finished); returns the outcomes to wait for.
    ///
    /// # Errors
    /// As [`SliceEngine::start`].
    fn flush(&mut self, system: &mut MemorySystem) -> Result<Vec<Outcome>, SimError>;

    /// Reads answered without data (ZERO class on a metadata hit).
    fn zero_reads(&self) -> u64;

    /// A read of an uncompressed page moves only the sectors it needs
    /// ([`Request::read_sectors`]); false: the whole entry (the hardware
    /// slices, whose read request carries no sector mask).
    fn sector_reads(&self) -> bool {
        false
    }

    /// Metadata cache counters summed over the slices.
    fn metadata_stats(&self, system: &MemorySystem) -> CacheStats {
        system.golden_metadata_stats()
    }

    /// Cycles a request was offered to a slice and not taken, by why (the
    /// pipelined slice's cycle model only).
    fn accept_waits(&self) -> Option<BTreeMap<String, u64>> {
        None
    }

    /// Where the reads that moved data spent their time in the slices
    /// (the paper timing and the pipelined slice; `None` for the serial slice).
    fn read_split(&self) -> Option<ReadSplit> {
        None
    }
}

/// Where the reads that moved data (device or buddy sectors) spent their
/// time in a slice, summed over them, in picoseconds; reads that moved
/// nothing (ZERO reads, faults) are left out. Each read's time in the slice
/// (from taken to answered) is cut at its first memory request (device
/// burst or link transfer) and at the arrival of the last of its data:
///
/// - `to_memory_ps`: the metadata lookup and the planning before memory
///   (the paper timing: the hit latency, or 0 on a miss, whose slot read
///   starts beside the fill);
/// - `memory_ps`: memory and the link, their queues included (the
///   pipelined slice: until a port takes the last answer);
/// - `after_memory_ps`: the rest, up to the answer (the decompressor,
///   the pipelined slice's gather and response register).
///
/// The three add up to the reads' time in the slice, not their latency
/// (`read_latency_*` counts from the L2 miss, the wait to be taken included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReadSplit {
    pub reads: u64,
    pub to_memory_ps: u64,
    pub memory_ps: u64,
    pub after_memory_ps: u64,
}

impl ReadSplit {
    /// Count a read taken at `taken`, whose first memory request was at
    /// `first_memory`, last data arrived at `last_data` and answer at `answered` (ps).
    pub fn add(&mut self, taken: u64, first_memory: u64, last_data: u64, answered: u64) {
        self.reads += 1;
        self.to_memory_ps += first_memory - taken;
        self.memory_ps += last_data - first_memory;
        self.after_memory_ps += answered - last_data;
    }

    /// The three means per read in cycles of `cycle_ps` picoseconds:
    /// (to memory, memory, after memory).
    pub fn mean_cycles(&self, cycle_ps: f64) -> (f64, f64, f64) {
        let per = |ps: u64| ps as f64 / cycle_ps / self.reads.max(1) as f64;
        (per(self.to_memory_ps), per(self.memory_ps), per(self.after_memory_ps))
    }
}

impl std::ops::AddAssign for ReadSplit {
    fn add_assign(&mut self, o: Self) {
        let ReadSplit { reads, to_memory_ps, memory_ps, after_memory_ps } = o;
        self.reads += reads;
        self.to_memory_ps += to_memory_ps;
        self.memory_ps += memory_ps;
        self.after_memory_ps += after_memory_ps;
    }
}

/// The engine itself, for what only one engine offers (the RTL engines'
/// VCDs and lock-step lines): every engine has it.
pub trait AsAny {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Whether golden's answer `served` is a read answered without data (a
/// ZERO class on a metadata hit; the read of a read-modify-write is not).
pub fn is_zero_read(served: &Served) -> bool {
    served.write.is_none()
        && served.read.as_ref().is_some_and(|part| part.metadata.as_ref().is_some_and(|m| m.hit()) && part.class == SizeClass::Zero)
}

/// What every engine works on: the mode, the page table, the backing
/// store, the golden slices (the behaviour of the engines that time
/// golden's answers) and the event queue.
pub struct MemorySystem {
    pub mode: Mode,
    pub pages: PageTable,
    pub backing: Rc<RefCell<BackingStore>>,
    /// One golden behaviour model per slice (unused by the RTL engines,
    /// whose hardware holds its own state).
    pub golden: Vec<ControllerSlice>,
    pub queue: EventQueue,
    /// Which slice serves which memory-entry (`system.slice_interleave`).
    pub slice_map: SliceMap,
}

impl MemorySystem {
    /// The slice that serves the memory-entry at `va`.
    pub fn slice(&self, va: u64) -> u64 {
        self.slice_map.slice_of(va, self.pages.regs.heap_base)
    }

    /// The PTE of `va`.
    ///
    /// # Errors
    /// [`SimError::Unmapped`].
    pub fn pte(&self, va: u64) -> Result<Pte, SimError> {
        self.pages.pte(va).copied().ok_or(SimError::Unmapped { va })
    }

    /// `va`'s entry translated for an entry of `class`.
    ///
    /// # Errors
    /// Unmapped address or a translation fault.
    pub fn translate(&self, va: u64, class: SizeClass) -> Result<EntryAccess, SimError> {
        let pte = self.pte(va)?;
        translate_entry(&self.pages.regs, self.pages.page, &pte, va, class).map_err(|fault| SimError::Fault { va, fault })
    }

    /// Run `f` on the golden slice of `va` with the backing store.
    ///
    /// # Errors
    /// `va` unmapped.
    pub fn behaviour<R>(&mut self, va: u64, f: impl FnOnce(&mut ControllerSlice, &Pte, &mut BackingMemory) -> R) -> Result<R, SimError> {
        let pte = self.pte(va)?;
        let slice = self.slice(va) as usize;
        let mut backing = self.backing.borrow_mut();
        let mut memory = BackingMemory { backing: &mut backing, md_base: self.pages.regs.md_base };
        Ok(f(&mut self.golden[slice], &pte, &mut memory))
    }

    /// `request` served by its golden slice (values and the traffic to time).
    ///
    /// # Errors
    /// As [`SliceEngine::start`].
    pub fn serve(&mut self, r: &Request) -> Result<Served, SimError> {
        let (va, mask, value) = (r.va, r.mask, r.value);
        Ok(if r.write {
            self.behaviour(va, |s, pte, m| s.write(pte, va, mask, value, m))??
        } else {
            self.behaviour(va, |s, pte, m| s.read(pte, va, m))??
        })
    }

    /// Every golden slice's end-of-run flush, in slice order.
    pub fn flush_golden(&mut self) -> Vec<buddy_golden::controller_slice::Flushed> {
        let mut backing = self.backing.borrow_mut();
        let mut memory = BackingMemory { backing: &mut backing, md_base: self.pages.regs.md_base };
        self.golden.iter_mut().map(|s| s.flush(&mut memory)).collect()
    }

    /// The golden slices' metadata counters, summed.
    pub fn golden_metadata_stats(&self) -> CacheStats {
        let mut s = CacheStats::default();
        self.golden.iter().for_each(|c| s += c.metadata_stats());
        s
    }

    /// The entry at `va` as memory holds it now, read without timing
    /// through the metadata in memory.
    ///
    /// # Errors
    /// As [`SliceEngine::start`].
    pub fn peek(&self, va: u64) -> Result<MemoryEntry, SimError> {
        let pte = self.pte(va)?;
        let mut backing = self.backing.borrow_mut();
        let mut memory = BackingMemory { backing: &mut backing, md_base: self.pages.regs.md_base };
        Ok(self.golden[self.slice(va) as usize].peek(&pte, va, &mut memory)?)
    }

    /// `r` as a slice's hardware takes it.
    ///
    /// # Errors
    /// `r.va` unmapped.
    pub fn slice_request(&self, r: &Request) -> Result<SliceRequest, SimError> {
        let pte = self.pte(r.va)?;
        Ok(SliceRequest { write: r.write, flush: false, mask: r.mask, va: r.va, pte, page: self.pages.page, data: words_of(r.value) })
    }

    /// A slice's end-of-run flush request.
    pub fn flush_request(&self) -> SliceRequest {
        let pte = Pte { frame: 0, compressed: false, target_code: 0, buddy_offset: 0 };
        SliceRequest { write: false, flush: true, mask: 0, va: 0, pte, page: self.pages.page, data: [0; 32] }
    }

    /// Golden's translation fault of `va`, if any: what explains a
    /// hardware's fault code.
    pub fn golden_fault(&self, va: u64) -> Option<String> {
        self.translate(va, SizeClass::Raw).err().map(|e| e.to_string())
    }

    /// What slice `slice`'s hardware touches, with its metadata counters kept in `md_stats`.
    pub fn env(&self, slice: u64, md_stats: &Rc<RefCell<CacheStats>>) -> SliceEnv {
        SliceEnv {
            slice,
            shared: self.queue.shared.clone(),
            backing: self.backing.clone(),
            md_base: self.pages.regs.md_base,
            md_stats: md_stats.clone(),
        }
    }
}

/// What a slice's hardware (or cycle model) touches from its tasks:
/// simulated time with the HBM2 and NVLink models, and the backing store.
pub struct SliceEnv {
    pub slice: u64,
    pub shared: Rc<QueueState>,
    pub backing: Rc<RefCell<BackingStore>>,
    pub md_base: u64,
    pub md_stats: Rc<RefCell<CacheStats>>,
}

impl SliceEnv {
    pub(crate) fn read_device(&self, address: u64, out: &mut [u8; 32]) {
        self.backing.borrow().read_port_sector(address, self.md_base, out);
    }

    pub(crate) fn write_device(&self, r: &PortRequest) {
        self.backing.borrow_mut().write_port_sector(r, self.md_base);
    }
}
