//! The **RTL mode**: each memory-controller slice is the `BuddyController`
//! hardware, simulated cycle by cycle in rust-hdl's simulator (no
//! Verilator), between the same Rust models the fast mode uses: the HBM2
//! channels, the NVLink buddy link and the backing memories.
//!
//! One slice serves one request at a time (the hardware takes a new request
//! only in Idle). Between requests a slice is idle and its state does not
//! change, so its clock jumps to the next request's issue cycle instead of
//! simulating the idle cycles (exact, and most of the speed of this mode).
//!
//! Memory ports: a burst's first sector (`*_req_first`) charges the whole
//! burst to the HBM2 model (`len` sectors, as the fast mode's one access per
//! request) or to the link (`len * 32` bytes, one packet); read data is
//! taken from the backing memory when requested and returned, one sector
//! per cycle in order, from the cycle the model says the burst is done.
//! Device-port addresses at or above `MD_BASE` are the metadata region.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::io::Write;
use std::pin::Pin;
use std::rc::Rc;

use buddy_golden::metadata_cache::CacheStats;
use buddy_golden::translation::{BuddyRegisters, PageSize};
use buddy_golden::MemoryEntry;
use buddy_hdl::{BuddyController, BuddyControllerMagBdi, BuddyControllerZvc, EntryBits};
use rust_hdl::prelude::*;

use buddy_hdl::lockstep::{hex_bit, hex_bits as hex_of, hex_words};

use super::serial_timing::SerialQueues;
use super::{MemorySystem, SliceEngine, SliceEnv};
use crate::memory_system::backing_store::write_masked;
use crate::memory_system::error::SimError;
use crate::memory_system::mode::Mode;
use crate::memory_system::request::{Finished, Outcome, PortRequest, Request, sector_data, RequestInfo, SliceRequest};
use crate::memory_system::slice_clock::{ClockedHardware, SliceClock, HANG_CYCLES};

/// A slice's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SliceResponse {
    pub entry: MemoryEntry,
    pub class: u8,
    pub error: u8,
    /// Cycle the response was taken.
    pub cycle: u64,
    /// Buddy-memory was read or written.
    pub buddy: bool,
    /// The metadata lookup of a read hit a valid sector.
    pub md_read_hit: bool,
}

/// The ports of a `BuddyController` variant, for the driver.
pub trait SliceHardware: ClockedHardware {
    fn set_registers(&mut self, regs: &BuddyRegisters);
    fn drive_request(&mut self, valid: bool, r: &SliceRequest);
    /// Memory always accepts requests; `dev`/`buddy`: a read sector offered.
    fn drive_memory(&mut self, dev: Option<&[u8; 32]>, buddy: Option<&[u8; 32]>);
    fn req_ready(&self) -> bool;
    fn response(&self) -> Option<(MemoryEntry, u8, u8)>;
    fn dev_request(&self) -> Option<PortRequest>;
    fn buddy_request(&self) -> Option<PortRequest>;
    fn dev_resp_ready(&self) -> bool;
    fn buddy_resp_ready(&self) -> bool;
    /// A metadata-cache request accepted this cycle: `Some(write)`.
    fn md_request(&self) -> Option<bool>;
    /// A metadata-cache response taken this cycle: its outcome code.
    fn md_response(&self) -> Option<u8>;
    /// Nothing can change until a memory response arrives: the slice
    /// waits for its data (or the metadata cache for its fill) and offers
    /// nothing. Lets the driver jump to the next response's cycle.
    fn waits_for_memory(&self) -> bool;
}

pub use buddy_hdl::buddy_controller::{LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS};

pub(super) use buddy_hdl::wide_bits::{sector_from_bytes as sector_bits, sector_to_bytes as sector_bytes};

macro_rules! slice_hardware {
    ($t:ty) => {
        impl ClockedHardware for $t {
            fn set_clock(&mut self, level: bool) {
                self.clock.next = Clock::from(level);
            }
            fn set_reset(&mut self, reset: bool) {
                self.reset.next = reset;
            }
            fn port_line(&self) -> String {
                let mut l = String::with_capacity(1024);
                l += &hex_bit(self.reset.val());
                l += &hex_of(&self.gbbr.val());
                l += &hex_of(&self.carve_out_bytes.val());
                l += &hex_of(&self.md_base.val());
                l += &hex_of(&self.heap_base.val());
                l += &hex_bit(self.req_valid.val());
                l += &hex_bit(self.req_write.val());
                l += &hex_bit(self.req_flush.val());
                l += &hex_of(&self.req_mask.val());
                l += &hex_of(&self.req_va.val());
                l += &hex_of(&self.req_frame.val());
                l += &hex_of(&self.req_pte.val());
                l += &hex_bit(self.req_page_64k.val());
                l += &hex_words(&self.req_data.val().to_words());
                l += &hex_bit(self.resp_ready.val());
                l += &hex_bit(self.dev_req_ready.val());
                l += &hex_bit(self.dev_resp_valid.val());
                l += &hex_of(&self.dev_resp_data.val());
                l += &hex_bit(self.buddy_req_ready.val());
                l += &hex_bit(self.buddy_resp_valid.val());
                l += &hex_of(&self.buddy_resp_data.val());
                l += &hex_bit(self.req_ready.val());
                l += &hex_bit(self.resp_valid.val());
                l += &hex_bit(self.resp_write.val());
                l += &hex_words(&self.resp_entry.val().to_words());
                l += &hex_of(&self.resp_class.val());
                l += &hex_of(&self.resp_error.val());
                l += &hex_bit(self.dev_req_valid.val());
                l += &hex_bit(self.dev_req_write.val());
                l += &hex_of(&self.dev_req_address.val());
                l += &hex_of(&self.dev_req_data.val());
                l += &hex_of(&self.dev_req_strobe.val());
                l += &hex_of(&self.dev_req_len.val());
                l += &hex_bit(self.dev_req_first.val());
                l += &hex_bit(self.dev_resp_ready.val());
                l += &hex_bit(self.buddy_req_valid.val());
                l += &hex_bit(self.buddy_req_write.val());
                l += &hex_of(&self.buddy_req_address.val());
                l += &hex_of(&self.buddy_req_data.val());
                l += &hex_of(&self.buddy_req_strobe.val());
                l += &hex_of(&self.buddy_req_len.val());
                l += &hex_bit(self.buddy_req_first.val());
                l += &hex_bit(self.buddy_resp_ready.val());
                l
            }
        }
        impl SliceHardware for $t {
            fn set_registers(&mut self, regs: &BuddyRegisters) {
                self.gbbr.next = regs.gbbr.into();
                self.carve_out_bytes.next = regs.carve_out_bytes.into();
                self.md_base.next = regs.md_base.into();
                self.heap_base.next = regs.heap_base.into();
            }
            fn drive_request(&mut self, valid: bool, r: &SliceRequest) {
                self.req_valid.next = valid;
                self.req_write.next = r.write;
                self.req_flush.next = r.flush;
                self.req_mask.next = (r.mask as u64).into();
                self.req_va.next = r.va.into();
                self.req_frame.next = r.pte.frame.into();
                self.req_pte.next = (r.pte.buddy_bits() as u64).into();
                self.req_page_64k.next = r.page == PageSize::Small64K;
                self.req_data.next = EntryBits::from_words(&r.data);
                self.resp_ready.next = true;
            }
            fn drive_memory(&mut self, dev: Option<&[u8; 32]>, buddy: Option<&[u8; 32]>) {
                self.dev_req_ready.next = true;
                self.buddy_req_ready.next = true;
                self.dev_resp_valid.next = dev.is_some();
                self.dev_resp_data.next = dev.map(sector_bits).unwrap_or_default();
                self.buddy_resp_valid.next = buddy.is_some();
                self.buddy_resp_data.next = buddy.map(sector_bits).unwrap_or_default();
            }
            fn req_ready(&self) -> bool {
                self.req_ready.val()
            }
            fn response(&self) -> Option<(MemoryEntry, u8, u8)> {
                self.resp_valid.val().then(|| {
                    (
                        MemoryEntry::from_words(self.resp_entry.val().to_words()),
                        self.resp_class.val().to_u8(),
                        self.resp_error.val().to_u8(),
                    )
                })
            }
            fn dev_request(&self) -> Option<PortRequest> {
                self.dev_req_valid.val().then(|| PortRequest {
                    write: self.dev_req_write.val(),
                    address: self.dev_req_address.val().to_u64(),
                    data: sector_data(sector_bytes(&self.dev_req_data.val())),
                    strobe: self.dev_req_strobe.val().to_u32().into(),
                    len: self.dev_req_len.val().to_u8(),
                    first: self.dev_req_first.val(),
                })
            }
            fn buddy_request(&self) -> Option<PortRequest> {
                self.buddy_req_valid.val().then(|| PortRequest {
                    write: self.buddy_req_write.val(),
                    address: self.buddy_req_address.val().to_u64(),
                    data: sector_data(sector_bytes(&self.buddy_req_data.val())),
                    strobe: self.buddy_req_strobe.val().to_u32().into(),
                    len: self.buddy_req_len.val().to_u8(),
                    first: self.buddy_req_first.val(),
                })
            }
            fn dev_resp_ready(&self) -> bool {
                self.dev_resp_ready.val()
            }
            fn buddy_resp_ready(&self) -> bool {
                self.buddy_resp_ready.val()
            }
            fn md_request(&self) -> Option<bool> {
                (self.md.req_valid.val() && self.md.req_ready.val() && !self.md.req_flush.val()).then(|| self.md.req_write.val())
            }
            fn md_response(&self) -> Option<u8> {
                (self.md.resp_valid.val() && self.md.resp_ready.val()).then(|| self.md.resp_outcome.val().to_u8())
            }
            fn waits_for_memory(&self) -> bool {
                use buddy_hdl::buddy_controller::SliceState;
                if self.dev_req_valid.val() || self.buddy_req_valid.val() || self.resp_valid.val() {
                    return false;
                }
                match self.state.q.val() {
                    SliceState::WaitData => true,
                    SliceState::MdReadWait | SliceState::MdWriteWait => self.md.mem_fill_ready.val(),
                    _ => false,
                }
            }
        }
    };
}

slice_hardware!(BuddyController);
slice_hardware!(BuddyControllerZvc);
slice_hardware!(BuddyControllerMagBdi);

/// One slice: the hardware, its clock, and its memory responses in flight.
pub struct RtlSlice<H: SliceHardware> {
    hw: Box<H>,
    /// Device read data: (burst ticket, cycle from which it may be
    /// delivered once the burst's end is known, data).
    dev_queue: VecDeque<(u64, Option<u64>, [u8; 32])>,
    /// Buddy read data: (cycle from which it may be delivered, data).
    buddy_queue: VecDeque<(u64, [u8; 32])>,
    dev_burst: u64,
    buddy_burst_done: u64,
    clock: SliceClock,
    /// Jump over cycles in which the slice only waits for memory.
    pub skip_waits: bool,
}

/// Cycles a slice is held in reset when it is built, and after reset in
/// which the metadata cache invalidates its sets (`Init`, the hardware's
/// figure); the slice takes its first request after them, at cycle
/// `RESET_CYCLES + INIT_CYCLES`.
pub use crate::memory_system::slice_clock::{INIT_CYCLES, RESET_CYCLES};

impl<H: SliceHardware> RtlSlice<H> {
    /// The slice `hw` with the Buddy registers `regs`, after reset.
    pub fn new(mut hw: H, regs: &BuddyRegisters) -> Self {
        hw.connect_all();
        hw.set_registers(regs);
        hw.drive_memory(None, None);
        let mut s = RtlSlice {
            hw: Box::new(hw),
            dev_queue: VecDeque::new(),
            buddy_queue: VecDeque::new(),
            dev_burst: 0,
            buddy_burst_done: 0,
            clock: SliceClock::default(),
            skip_waits: true,
        };
        s.reset();
        s
    }

    /// Reset, then clock the slice until its metadata cache has finished
    /// invalidating its sets, so that it is idle from then on (the driver
    /// jumps over idle cycles).
    fn reset(&mut self) {
        self.clock.reset(self.hw.as_mut());
    }

    /// Record a lock-step line per simulated cycle from now on (reset
    /// first), at most `max`.
    pub fn record_lines(&mut self, max: usize) {
        self.clock.record_lines(max);
        self.hw.drive_memory(None, None);
        self.reset();
    }

    /// The lock-step lines recorded.
    pub fn take_lines(&mut self) -> Vec<String> {
        self.clock.take_lines()
    }

    /// Write a VCD of cycles `from..=to` of this slice into `w`, for a
    /// clock of `period_ps` picoseconds (see [`SliceClock::record_vcd`]).
    pub fn record_vcd(&mut self, w: Box<dyn Write + Send>, period_ps: f64, from: u64, to: u64) {
        self.clock.record_vcd(w, period_ps, from, to);
    }

    /// End the VCD (see [`SliceClock::finish_vcd`]).
    ///
    /// # Errors
    /// The VCD could not be written.
    pub fn finish_vcd(&mut self) -> std::io::Result<Option<bool>> {
        self.clock.finish_vcd()
    }

    /// Cycles simulated (not jumped over).
    pub fn simulated_cycles(&self) -> u64 {
        self.clock.simulated
    }

    fn settle(&mut self) -> bool {
        SliceClock::settle(self.hw.as_mut())
    }

    fn edge(&mut self) {
        self.clock.edge(self.hw.as_mut());
    }

    /// Give device data whose burst end has become known its delivery
    /// cycle: from the burst's end, one sector per cycle, in order.
    fn resolve(&mut self, env: &SliceEnv) {
        let mut prev: Option<u64> = None;
        for e in self.dev_queue.iter_mut() {
            if e.1.is_none() {
                match env.shared.burst_done(e.0, false) {
                    Some(ps) => e.1 = Some(env.shared.cycle_at(ps).max(prev.map_or(0, |p| p + 1))),
                    None => break,
                }
            }
            prev = e.1;
        }
    }

    /// Serve `r`, offered at cycle `issue` (or when the slice is free);
    /// the response is taken at `SliceResponse::cycle`. The slice's clock
    /// runs with simulated time: before each cycle it waits for that
    /// cycle to start, so its memory requests reach the models on time.
    ///
    /// # Errors
    /// The hardware does not answer within [`HANG_CYCLES`] or a
    /// combinational loop does not settle (both design bugs).
    pub async fn request(&mut self, r: &SliceRequest, issue: u64, env: &SliceEnv) -> Result<SliceResponse, String> {
        self.clock.cycle = self.clock.cycle.max(issue);
        let start = self.clock.cycle;
        let sh = env.shared.clone();
        let (mut accepted, mut buddy, mut md_read_hit, mut md_write) = (false, false, false, false);
        loop {
            if self.clock.cycle - start > HANG_CYCLES {
                return Err(format!("slice {} did not answer {:#x} within {HANG_CYCLES} cycles", env.slice, r.va));
            }
            sh.until(sh.ps(self.clock.cycle)).await;
            self.resolve(env);
            self.hw.drive_request(!accepted, r);
            let dev = self.dev_queue.front().filter(|q| q.1.is_some_and(|c| c <= self.clock.cycle)).map(|q| q.2);
            let bud = self.buddy_queue.front().filter(|(c, _)| *c <= self.clock.cycle).map(|(_, d)| *d);
            self.hw.drive_memory(dev.as_ref(), bud.as_ref());
            if !self.settle() {
                return Err(format!("slice {}: the circuit did not settle", env.slice));
            }
            if !accepted && self.hw.req_ready() {
                accepted = true;
            }
            if self.skip_waits && dev.is_none() && bud.is_none() && self.hw.waits_for_memory() {
                // Nothing changes until the next response: wait for it.
                if let Some(&(ticket, None, _)) = self.dev_queue.front() {
                    sh.burst_keep(ticket).await;
                    self.resolve(env);
                }
                let due = self.dev_queue.front().and_then(|q| q.1).into_iter().chain(self.buddy_queue.front().map(|q| q.0)).min();
                // No response in flight: the wait is over (WaitData's last cycle).
                if let Some(c) = due.filter(|&c| c > self.clock.cycle) {
                    self.clock.cycle = c;
                    continue;
                }
            }
            if let Some(w) = self.hw.md_request() {
                md_write = w;
                let mut st = env.md_stats.borrow_mut();
                if w {
                    st.writes += 1;
                } else {
                    st.reads += 1;
                }
            }
            if let Some(outcome) = self.hw.md_response().filter(|_| !r.flush) {
                let mut st = env.md_stats.borrow_mut();
                match outcome {
                    0 => st.hits += 1,
                    1 => st.sector_misses += 1,
                    _ => st.line_misses += 1,
                }
                if !md_write {
                    md_read_hit = outcome == 0;
                }
            }
            if let Some(p) = self.hw.dev_request() {
                // A burst's first sector hands the whole burst to the HBM2 model.
                if p.first && p.write {
                    sh.start_detached(env.slice, p.address, p.len as u64, true, env.slice);
                } else if p.first {
                    self.dev_burst = sh.start_burst(env.slice, p.address, p.len as u64, false, env.slice);
                }
                if p.address >= env.md_base {
                    let mut st = env.md_stats.borrow_mut();
                    if p.write {
                        st.write_backs += 1;
                    } else {
                        st.fills += 1;
                    }
                }
                if p.write {
                    env.write_device(&p);
                } else {
                    let mut data = [0u8; 32];
                    env.read_device(p.address, &mut data);
                    self.dev_queue.push_back((self.dev_burst, None, data));
                }
            }
            if let Some(p) = self.hw.buddy_request() {
                buddy = true;
                if p.first {
                    let done = sh.link_transfer(p.len as u64 * 32, p.write);
                    self.buddy_burst_done = sh.cycle_at(done);
                }
                if p.write {
                    write_masked(&mut env.backing.borrow_mut().buddy, p.address, &p.data, p.strobe);
                } else {
                    let mut data = [0u8; 32];
                    env.backing.borrow().buddy.read(p.address, &mut data);
                    let at = self.buddy_burst_done.max(self.buddy_queue.back().map_or(0, |b| b.0 + 1));
                    self.buddy_queue.push_back((at, data));
                }
            }
            if dev.is_some() && self.hw.dev_resp_ready() {
                let (ticket, _, _) = self.dev_queue.pop_front().expect("delivered");
                if self.dev_queue.front().is_none_or(|q| q.0 != ticket) {
                    sh.burst_done(ticket, true);
                }
            }
            if bud.is_some() && self.hw.buddy_resp_ready() {
                self.buddy_queue.pop_front();
            }
            let response = self.hw.response();
            self.edge();
            if let Some((entry, class, error)) = response {
                return Ok(SliceResponse { entry, class, error, cycle: self.clock.cycle - 1, buddy, md_read_hit });
            }
        }
    }
}

/// A boxed slice with the result of a request it served.
pub type Served = (Box<dyn Slice>, Result<SliceResponse, String>);

/// A slice of any algorithm, for the controllers' list.
pub trait Slice: Send {
    /// Serve `r` (see [`RtlSlice::request`]); the future owns the slice
    /// while it runs and gives it back.
    fn serve(self: Box<Self>, r: SliceRequest, issue: u64, env: SliceEnv) -> Pin<Box<dyn Future<Output = Served>>>;
    fn record_vcd(&mut self, w: Box<dyn Write + Send>, period_ps: f64, from: u64, to: u64);
    fn finish_vcd(&mut self) -> std::io::Result<Option<bool>>;
    fn simulated_cycles(&self) -> u64;
    fn set_skip_waits(&mut self, skip: bool);
    /// See [`RtlSlice::record_lines`]: resets the slice.
    fn record_lines(&mut self, max: usize);
    fn take_lines(&mut self) -> Vec<String>;
}

impl<H: SliceHardware + Send + 'static> Slice for RtlSlice<H> {
    fn serve(mut self: Box<Self>, r: SliceRequest, issue: u64, env: SliceEnv) -> Pin<Box<dyn Future<Output = Served>>> {
        Box::pin(async move {
            let result = self.request(&r, issue, &env).await;
            (self as Box<dyn Slice>, result)
        })
    }
    fn record_vcd(&mut self, w: Box<dyn Write + Send>, period_ps: f64, from: u64, to: u64) {
        RtlSlice::record_vcd(self, w, period_ps, from, to)
    }
    fn finish_vcd(&mut self) -> std::io::Result<Option<bool>> {
        RtlSlice::finish_vcd(self)
    }
    fn simulated_cycles(&self) -> u64 {
        RtlSlice::simulated_cycles(self)
    }
    fn set_skip_waits(&mut self, skip: bool) {
        self.skip_waits = skip;
    }
    fn record_lines(&mut self, max: usize) {
        RtlSlice::record_lines(self, max)
    }
    fn take_lines(&mut self) -> Vec<String> {
        RtlSlice::take_lines(self)
    }
}

/// A new slice of `hardware`.
///
/// Built on a thread of its own with a 256 MiB stack: the BPC slice is a
/// 600 KB value, and building it takes several copies of it on the stack,
/// more than a test thread's 2 MiB.
///
/// # Panics
/// The thread cannot be spawned.
pub fn new_slice(hardware: buddy_golden::HardwareCodec, regs: &BuddyRegisters) -> Box<dyn Slice> {
    use buddy_golden::HardwareCodec;
    let regs = *regs;
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || -> Box<dyn Slice> {
            match hardware {
                HardwareCodec::Bpc => Box::new(RtlSlice::new(BuddyController::default(), &regs)),
                HardwareCodec::Zvc => Box::new(RtlSlice::new(BuddyControllerZvc::default(), &regs)),
                HardwareCodec::MagBdi(mag) => Box::new(RtlSlice::new(BuddyControllerMagBdi::new(mag), &regs)),
            }
        })
        .expect("spawn the thread that builds a slice")
        .join()
        .expect("building a slice does not panic")
}

/// The serial RTL engine: one `BuddyController` per slice in rust-hdl,
/// serving its slice's requests one at a time in request order. Each slice
/// is taken out of `hardware` while it serves a request.
pub struct SerialRtlEngine {
    hardware: Rc<RefCell<Vec<Option<Box<dyn Slice>>>>>,
    metadata: Rc<RefCell<CacheStats>>,
    queues: Rc<SerialQueues>,
}

impl SerialRtlEngine {
    /// `n` slices built with `codec`'s codecs and the Buddy registers `regs`, after reset.
    pub fn new(n: usize, codec: buddy_golden::HardwareCodec, regs: &BuddyRegisters) -> Self {
        SerialRtlEngine {
            hardware: Rc::new(RefCell::new((0..n).map(|_| Some(new_slice(codec, regs))).collect())),
            metadata: Rc::new(RefCell::new(CacheStats::default())),
            queues: Rc::new(SerialQueues::new(n)),
        }
    }

    /// Run `f` on every slice's hardware (none may be serving a request).
    pub fn with_slices<R>(&mut self, f: impl FnOnce(&mut [Box<dyn Slice>]) -> R) -> R {
        let mut v = self.hardware.borrow_mut();
        let mut slices: Vec<Box<dyn Slice>> = v.iter_mut().map(|s| s.take().expect("no request in flight")).collect();
        let r = f(&mut slices);
        *v = slices.into_iter().map(Some).collect();
        r
    }

    /// Hand `r` to slice `slice`'s hardware in its queue's order; `fault` is golden's
    /// translation fault, if any (to explain the hardware's fault code).
    fn submit(&self, system: &mut MemorySystem, slice: u64, r: SliceRequest, fault: Option<String>) -> Result<Outcome, SimError> {
        let (va, write, mask, flush) = (r.va, r.write, r.mask, r.flush);
        // What an uncompressed page's write leaves: the old slot under the mask.
        let old = (write && system.mode == Mode::Uncompressed).then(|| system.peek(va)).transpose()?;
        let env = system.env(slice, &self.metadata);
        let queues = self.queues.clone();
        let position = queues.enqueue(slice);
        let slices = self.hardware.clone();
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let out = outcome.clone();
        let sh = system.queue.shared.clone();
        system.queue.spawn(async move {
            queues.wait_head(&sh, slice, position).await;
            let issue = sh.cycle_at(sh.now()).max(queues.free(slice));
            let hw = slices.borrow_mut()[slice as usize].take().expect("one request per slice at a time");
            let (hw, result) = hw.serve(r, issue, env).await;
            slices.borrow_mut()[slice as usize] = Some(hw);
            let result = result.map_err(SimError::Hardware).and_then(|resp| {
                queues.finish(&sh, slice, resp.cycle + 1);
                if !write && !flush && resp.class == 0 && resp.md_read_hit {
                    queues.zero_reads.set(queues.zero_reads.get() + 1);
                }
                match resp.error as u64 {
                    buddy_hdl::buddy_controller::error::NONE => {
                        let mut entry = resp.entry.to_bytes();
                        if let Some(old) = old {
                            entry = buddy_golden::merge_sectors(&old.to_bytes(), &entry, mask);
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
}

impl SliceEngine for SerialRtlEngine {
    fn start(&mut self, system: &mut MemorySystem, request: &Request) -> Result<Outcome, SimError> {
        let r = system.slice_request(request)?;
        self.submit(system, system.slice(request.va), r, system.golden_fault(request.va))
    }

    fn flush(&mut self, system: &mut MemorySystem) -> Result<Vec<Outcome>, SimError> {
        (0..system.golden.len() as u64).map(|s| self.submit(system, s, system.flush_request(), None)).collect()
    }

    fn zero_reads(&self) -> u64 {
        self.queues.zero_reads.get()
    }

    fn metadata_stats(&self, _: &MemorySystem) -> CacheStats {
        *self.metadata.borrow()
    }
}
