//! The RTL engine with the **pipelined slice**: each memory-controller
//! slice is the `PipelinedController` hardware (BPC, ZVC or MAG-BDI),
//! simulated cycle by cycle in rust-hdl between the HBM2 channels, the
//! NVLink buddy link and the backing memories (`docs/controller.md`, "The
//! pipelined slice").
//!
//! A slice takes requests in issue order while it has room (up to 128 in
//! flight) and answers them tagged, in completion order. The driver reads
//! only the slice's ports: the request and response streams, the two
//! tagged memory ports and the status ports (`in_flight`, `md_lookup_*`).
//!
//! Memory: every request on a port (a read or a write of a run of 1-4
//! sectors, a metadata fill or write-back) is one request to the model,
//! made on the cycle the port offers it (memory always accepts). A device
//! request (data, or metadata at or above `MD_BASE`) is a burst of its
//! sectors to the HBM2 model; a read's data is answered, tag and all, from
//! the cycle the model says it is done (at the earliest the cycle after the
//! channel completes it). A buddy request goes over the link: one that
//! follows one of the same request in the same direction on the cycle
//! before continues its packet (one 32-byte header per packet, as the
//! paper's one packet per buddy access), any other starts a packet; its
//! data arrives when the link delivers it. Each port answers one read per
//! cycle, the earliest due first.
//!
//! Between activity a slice is idle: once it holds no request and no read
//! is outstanding, it is clocked [`IDLE_DRAIN_CYCLES`] more cycles and then
//! left until its next request, whose cycle its clock jumps to (exact: the
//! state of an idle slice does not change; checked by running without the
//! jump, [`PipelinedSlices::set_skip_idle`]).
//!
//! The same driver runs the fast engine's timing of this slice, with its
//! cycle model in place of the hardware ([`super::pipelined_model`]).
//!
//! Counters the hardware does not count itself come from its ports: the
//! metadata cache's reads, writes and outcomes from `md_lookup_*` (a
//! partial write's one reservation counts as golden's read then write,
//! which hits), fills and write-backs from the device port's metadata
//! addresses, a request's buddy access from the buddy port's tags, a ZERO
//! read (a read that hit in the metadata cache and moved no sector) from
//! the device port's tags.

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::io::Write;
use std::rc::Rc;

use buddy_golden::metadata_cache::CacheStats;
use buddy_golden::translation::BuddyRegisters;
use buddy_golden::MemoryEntry;
use buddy_hdl::metadata_cache::outcome;
use buddy_hdl::memory_port::FILL_TAG_BIT;
use buddy_hdl::request_contexts::{CONTEXT_BITS, FREED_PER_CYCLE};
use buddy_hdl::sector_gather::SECTOR_INDEX_BITS;
use buddy_hdl_model::pipelined_controller::RequestFacts;
use rayon::prelude::*;
use serde::Serialize;

use super::{MemorySystem, ReadSplit};
use super::SliceEnv;
use crate::memory_system::backing_store::write_masked;
use crate::memory_system::error::SimError;
use crate::memory_system::event_queue::{EventQueue, QueueState};
use crate::memory_system::request::{Finished, Outcome, PortRequest, RequestInfo, SliceRequest};
use crate::memory_system::slice_clock::{ClockedHardware, SliceClock, HANG_CYCLES};

/// Cycles an idle slice is still clocked before the driver leaves it
/// until its next request (its last write's sectors and the metadata
/// cache's bookkeeping settle within them).
pub const IDLE_DRAIN_CYCLES: u64 = 4;

/// Cycles after reset before the slice takes requests: its metadata cache
/// invalidates one set per cycle.
pub use crate::memory_system::slice_clock::INIT_CYCLES;

/// A response as the slice's ports hold it.
#[derive(Debug, Clone, Copy)]
pub struct TaggedResponse {
    pub id: u64,
    pub write: bool,
    pub flush: bool,
    pub entry: MemoryEntry,
    pub fault: u8,
    pub decode_error: bool,
}

/// The ports of a `PipelinedController` variant, for the driver.
pub trait PipelinedHardware: ClockedHardware {
    fn set_registers(&mut self, regs: &BuddyRegisters);
    /// Offer `r` (or nothing); responses are always taken.
    fn drive_request(&mut self, r: Option<&SliceRequest>);
    /// Offer the values the request's timing depends on (the cycle model
    /// takes these instead of the request's ports; the hardware computes them).
    fn drive_facts(&mut self, _: Option<&RequestFacts>) {}
    /// Memory takes every request; `dev`/`bud`: a read answered (tag, and
    /// its run of up to 4 sectors: sector `k` at bytes `32k..32k + 32`).
    fn drive_memory(&mut self, dev: Option<(u64, &RunData)>, bud: Option<(u64, &RunData)>);
    /// `req_ready`, and the context id it gives.
    fn req_ready(&self) -> Option<u64>;
    fn response(&self) -> Option<TaggedResponse>;
    /// A request on the device / buddy port (`len`: a read's sectors, 1
    /// for a write; `first` unused) and its tag.
    fn dev_request(&self) -> Option<(PortRequest, u64)>;
    fn bud_request(&self) -> Option<(PortRequest, u64)>;
    fn dev_resp_ready(&self) -> bool;
    fn bud_resp_ready(&self) -> bool;
    /// `md_lookup_*`: a lookup answered this cycle (context, outcome).
    fn md_lookup(&self) -> Option<(u64, u64)>;
    /// `in_flight`.
    fn in_flight(&self) -> u64;
    /// Cycles a request was offered and not taken, by why (the cycle
    /// model can tell; the hardware's ports cannot): `None` for hardware.
    fn accept_waits(&self) -> Option<Vec<(String, u64)>> {
        None
    }
    /// The ports that decide timing this cycle as one line (a developer's
    /// trace, `BUDDY_SLICE_TRACE`): handshakes, tags and addresses, no data.
    /// `req_ready` is shown only with a request `offered` (without one
    /// the hardware's depends on the request ports' stale values).
    fn control_line(&self, offered: bool) -> String {
        let port = |p: Option<(PortRequest, u64)>| p.map(|(p, t)| format!("{}{:x}/{t:x}", if p.write { "w" } else { "r" }, p.address));
        format!(
            "req {:?} resp {:?} dev {:?} {} bud {:?} {} md {:?} in {}",
            self.req_ready().filter(|_| offered),
            self.response().map(|r| (r.id, r.write, r.flush, r.fault, r.decode_error)),
            port(self.dev_request()),
            self.dev_resp_ready() as u8,
            port(self.bud_request()),
            self.bud_resp_ready() as u8,
            self.md_lookup(),
            self.in_flight()
        )
    }
}

/// The context a memory tag names (`{sectors - 1, fill, context, sector}`).
fn tag_context(tag: u64) -> u64 {
    tag >> SECTOR_INDEX_BITS & ((1 << CONTEXT_BITS) - 1)
}

/// The context a read answer's tag names, unless it answers a metadata fill.
fn answer_context(tag: u64) -> Option<u64> {
    (tag >> FILL_TAG_BIT & 1 == 0).then(|| tag_context(tag))
}

/// A read's run of sectors as memory answers it (sector `k` at bytes
/// `32k..32k + 32`; bytes past the run are 0).
pub type RunData = [u8; buddy_golden::ENTRY_BYTES];

/// A request waiting to be offered or in the slice, and where its answer goes.
pub struct Queued {
    pub request: SliceRequest,
    /// First cycle it may be offered.
    pub issue: u64,
    pub outcome: Outcome,
    /// The golden translation's fault, for the message when the hardware reports one.
    pub fault: Option<String>,
    /// For the fast engine's cycle model: what the golden slice found for
    /// the request (timing), and the entry it read (the answer's value).
    pub facts: Option<RequestFacts>,
    pub golden: Option<MemoryEntry>,
    buddy: bool,
    lookup: Option<u64>,
    /// Cycles it was taken and its size nibble's lookup answered.
    taken: u64,
    lookup_at: u64,
    /// Cycles of its first data request on a memory port (`None`: it
    /// moved no sector yet) and of the last read answer for it that a port took.
    first_memory: Option<u64>,
    last_answer: u64,
}

impl Queued {
    pub fn new(request: SliceRequest, issue: u64, outcome: Outcome, fault: Option<String>) -> Self {
        Queued { request, issue, outcome, fault, facts: None, golden: None, buddy: false, lookup: None, taken: 0, lookup_at: 0, first_memory: None, last_answer: 0 }
    }
}

/// Where a pipelined slice's cycles go, summed over the slices (cycles
/// of the slice clock).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PipelinedStats {
    /// Requests taken, and the cycles they waited from issue to `req_ready`.
    pub requests: u64,
    pub accept_wait_cycles: u64,
    /// Cycles a request's context was held (taken to answered).
    pub context_cycles: u64,
    /// Requests with a metadata lookup (compressed pages), and of their
    /// context cycles those from taken to the lookup's answer and from the
    /// answer to the response.
    pub lookups: u64,
    pub lookup_cycles: u64,
    pub after_lookup_cycles: u64,
    /// Requests on the device port (data and metadata; a read of a run
    /// of sectors is one) and the buddy port, and the sectors they move.
    pub device_requests: u64,
    pub device_sectors: u64,
    pub buddy_requests: u64,
    pub buddy_sectors: u64,
    /// Reads answered on each port, and the cycles they waited from the
    /// cycle memory had them to the cycle the port took them (one answer
    /// per cycle per port).
    pub device_answers: u64,
    pub device_answer_wait_cycles: u64,
    pub buddy_answers: u64,
    pub buddy_answer_wait_cycles: u64,
    /// Cycles with a request offered and not taken.
    pub accept_stall_cycles: u64,
    /// Reads that moved data, their time in the slice cut at their first
    /// memory request and their last answer taken by a port.
    pub reads: ReadSplit,
}

impl std::ops::AddAssign for PipelinedStats {
    fn add_assign(&mut self, o: Self) {
        // Destructured, so a new field cannot be left out of the sum.
        let PipelinedStats {
            requests,
            accept_wait_cycles,
            context_cycles,
            lookups,
            lookup_cycles,
            after_lookup_cycles,
            device_requests,
            device_sectors,
            buddy_requests,
            buddy_sectors,
            device_answers,
            device_answer_wait_cycles,
            buddy_answers,
            buddy_answer_wait_cycles,
            accept_stall_cycles,
            reads,
        } = o;
        self.reads += reads;
        self.requests += requests;
        self.accept_wait_cycles += accept_wait_cycles;
        self.context_cycles += context_cycles;
        self.lookups += lookups;
        self.lookup_cycles += lookup_cycles;
        self.after_lookup_cycles += after_lookup_cycles;
        self.device_requests += device_requests;
        self.device_sectors += device_sectors;
        self.buddy_requests += buddy_requests;
        self.buddy_sectors += buddy_sectors;
        self.device_answers += device_answers;
        self.device_answer_wait_cycles += device_answer_wait_cycles;
        self.buddy_answers += buddy_answers;
        self.buddy_answer_wait_cycles += buddy_answer_wait_cycles;
        self.accept_stall_cycles += accept_stall_cycles;
    }
}

/// A read on its way back: (due cycle, order, tag, data).
type Due = Reverse<(u64, u64, u64, RunData)>;

/// One slice: the hardware, its clock, its requests and its memory reads in flight.
pub struct Driver<H: PipelinedHardware> {
    hw: Box<H>,
    clock: SliceClock,
    queue: VecDeque<Queued>,
    in_flight: HashMap<u64, Queued>,
    /// Device reads handed to the HBM2 model: (ticket, tag, data).
    dev_wait: Vec<(u64, u64, RunData)>,
    dev_due: BinaryHeap<Due>,
    bud_due: BinaryHeap<Due>,
    order: u64,
    /// The last buddy sector sent: (cycle, context, write).
    last_buddy: Option<(u64, u64, bool)>,
    /// Cycles since the slice last held anything.
    idle_for: u64,
    /// Cycles since the last handshake of any kind.
    stalled_for: u64,
    skip_idle: bool,
    stats: PipelinedStats,
    /// `in_flight` in the cycle stepped last, before its edge.
    in_flight_before_edge: u64,
    /// A developer's trace of the control ports, one line per cycle.
    trace: Option<std::io::BufWriter<std::fs::File>>,
}

/// What one cycle of a slice ended with.
pub enum Step {
    /// Requests in it or offered: clock the next cycle.
    Busy,
    /// Idle long enough: leave it until its next request.
    Idle,
}

impl<H: PipelinedHardware> Driver<H> {
    pub fn new(mut hw: Box<H>, regs: &BuddyRegisters) -> Self {
        hw.connect_all();
        hw.set_registers(regs);
        hw.drive_request(None);
        hw.drive_memory(None, None);
        let mut d = Driver {
            hw,
            clock: SliceClock::default(),
            queue: VecDeque::new(),
            in_flight: HashMap::new(),
            dev_wait: Vec::new(),
            dev_due: BinaryHeap::new(),
            bud_due: BinaryHeap::new(),
            order: 0,
            last_buddy: None,
            idle_for: 0,
            stalled_for: 0,
            skip_idle: true,
            stats: PipelinedStats::default(),
            in_flight_before_edge: 0,
            trace: None,
        };
        d.reset();
        d
    }

    /// Reset, then clock the metadata cache through its initialisation.
    fn reset(&mut self) {
        self.clock.reset(self.hw.as_mut());
    }

    /// Record a lock-step line per cycle from now on, at most `max`: the
    /// slice is reset again (lines start from a reset) and every idle
    /// cycle is clocked. The slice's clock is put back, so a run that
    /// records is timed as one that does not.
    fn record_lines(&mut self, max: usize) {
        self.clock.record_lines(max);
        self.skip_idle = false;
        self.hw.drive_request(None);
        self.hw.drive_memory(None, None);
        let cycle = self.clock.cycle;
        self.reset();
        self.clock.cycle = cycle;
    }

    fn settle(&mut self) -> bool {
        SliceClock::settle(self.hw.as_mut())
    }

    fn edge(&mut self) {
        self.clock.edge(self.hw.as_mut());
    }

    fn finish_edge(&mut self) {
        self.clock.finish_edge(self.hw.as_mut());
    }

    /// Whether the slice holds anything: first what the driver knows,
    /// then (its pending edge clocked) the hardware's `in_flight`.
    fn holds_anything(&mut self) -> bool {
        if !self.queue.is_empty()
            || !self.in_flight.is_empty()
            || !self.dev_wait.is_empty()
            || !self.dev_due.is_empty()
            || !self.bud_due.is_empty()
        {
            return true;
        }
        // `in_flight` falls by at most FREED_PER_CYCLE at an edge: above
        // that before the edge, the slice still holds a request after it.
        if self.in_flight_before_edge > FREED_PER_CYCLE {
            return true;
        }
        self.finish_edge();
        self.hw.in_flight() != 0
    }

    /// Bring an idle slice to `cycle`: jump (or, without the jump, clock
    /// every idle cycle in between).
    fn wake_at(&mut self, cycle: u64) {
        self.finish_edge();
        if self.skip_idle {
            self.clock.cycle = self.clock.cycle.max(cycle);
        } else {
            self.hw.drive_request(None);
            self.hw.drive_memory(None, None);
            while self.clock.cycle < cycle {
                self.settle();
                self.edge();
            }
        }
        self.idle_for = 0;
    }

    /// Simulate the current cycle (its start has come); its clock edge may
    /// be left pending ([`SliceClock::defer_edge`]).
    fn step(&mut self, env: &SliceEnv, zero_reads: &Cell<u64>) -> Result<Step, String> {
        self.finish_edge();
        let sh = env.shared.clone();
        let cycle = self.clock.cycle;
        // Device reads whose end the model now knows.
        let mut k = 0;
        while k < self.dev_wait.len() {
            if let Some(ps) = sh.burst_done(self.dev_wait[k].0, true) {
                let (_, tag, data) = self.dev_wait.swap_remove(k);
                self.order += 1;
                self.dev_due.push(Reverse((sh.cycle_at(ps), self.order, tag, data)));
            } else {
                k += 1;
            }
        }
        let offered = self.queue.front().filter(|q| q.issue <= cycle).map(|q| q.request);
        self.hw.drive_request(offered.as_ref());
        self.hw.drive_facts(self.queue.front().filter(|q| q.issue <= cycle).and_then(|q| q.facts.as_ref()));
        let dev = self.dev_due.peek().map(|d| d.0).filter(|d| d.0 <= cycle);
        let bud = self.bud_due.peek().map(|d| d.0).filter(|d| d.0 <= cycle);
        self.hw.drive_memory(dev.as_ref().map(|d| (d.2, &d.3)), bud.as_ref().map(|d| (d.2, &d.3)));
        if !self.settle() {
            return Err(format!("slice {}: the circuit did not settle", env.slice));
        }
        if let Some(t) = self.trace.as_mut() {
            let line = self.hw.control_line(offered.is_some());
            let offered = offered.map(|r| (r.va, r.write, r.flush));
            let _ = writeln!(t, "{cycle} offer {offered:?} dev_in {:?} bud_in {:?} | {line}", dev.map(|d| d.2), bud.map(|d| d.2));
        }
        let mut progress = false;
        if offered.is_some() && self.hw.req_ready().is_none() {
            self.stats.accept_stall_cycles += 1;
        }
        if let (Some(r), Some(id)) = (offered, self.hw.req_ready()) {
            let mut q = self.queue.pop_front().expect("offered");
            progress = true;
            self.stats.requests += 1;
            self.stats.accept_wait_cycles += cycle - q.issue;
            q.taken = cycle;
            // A flush has no context: it is kept under a key no context has.
            let key = if r.flush { u64::MAX } else { id };
            if self.in_flight.insert(key, q).is_some() {
                return Err(format!("slice {}: context {id} given while in use", env.slice));
            }
        }
        if let Some((id, code)) = self.hw.md_lookup() {
            let q = self.in_flight.get_mut(&id).ok_or_else(|| format!("slice {}: a lookup for context {id}, not in use", env.slice))?;
            q.lookup = Some(code);
            q.lookup_at = cycle;
            let mut st = env.md_stats.borrow_mut();
            let count = |st: &mut CacheStats, code: u64| match code {
                outcome::HIT => st.hits += 1,
                outcome::SECTOR_MISS => st.sector_misses += 1,
                _ => st.line_misses += 1,
            };
            let r = &q.request;
            if !r.write || r.mask & 0xF != 0xF {
                st.reads += 1;
                count(&mut st, code);
            }
            if r.write {
                // A partial write's second access (golden's write_nibble) hits.
                st.writes += 1;
                count(&mut st, if r.mask & 0xF != 0xF { outcome::HIT } else { code });
            }
        }
        if let Some((p, tag)) = self.hw.dev_request() {
            progress = true;
            let len = u64::from(p.len);
            self.stats.device_requests += 1;
            self.stats.device_sectors += len;
            let metadata = p.address >= env.md_base;
            if metadata {
                let mut st = env.md_stats.borrow_mut();
                if p.write {
                    st.write_backs += 1;
                } else {
                    st.fills += 1;
                }
            } else if let Some(q) = self.in_flight.get_mut(&tag_context(tag)) {
                q.first_memory.get_or_insert(cycle);
            }
            if p.write {
                sh.start_detached(env.slice, p.address, len, true, env.slice);
                env.write_device(&p);
            } else {
                let ticket = sh.start_burst(env.slice, p.address, len, false, env.slice);
                let mut data = [0u8; buddy_golden::ENTRY_BYTES];
                for (k, sector) in data.chunks_exact_mut(32).take(p.len as usize).enumerate() {
                    let sector: &mut [u8; 32] = sector.try_into().expect("32 bytes");
                    env.read_device(p.address + 32 * k as u64, sector);
                }
                self.dev_wait.push((ticket, tag, data));
            }
        }
        if let Some((p, tag)) = self.hw.bud_request() {
            progress = true;
            let len = u64::from(p.len);
            self.stats.buddy_requests += 1;
            self.stats.buddy_sectors += len;
            let ctx = tag_context(tag);
            if let Some(q) = self.in_flight.get_mut(&ctx) {
                q.buddy = true;
                q.first_memory.get_or_insert(cycle);
            }
            let continues = self.last_buddy == Some((cycle.wrapping_sub(1), ctx, p.write));
            let arrival = if continues { sh.link_continue(32 * len, p.write) } else { sh.link_transfer(32 * len, p.write) };
            self.last_buddy = Some((cycle, ctx, p.write));
            if p.write {
                write_masked(&mut env.backing.borrow_mut().buddy, p.address, &p.data, p.strobe);
            } else {
                let mut data = [0u8; buddy_golden::ENTRY_BYTES];
                env.backing.borrow().buddy.read(p.address, &mut data[..32 * p.len as usize]);
                self.order += 1;
                self.bud_due.push(Reverse((sh.cycle_at(arrival), self.order, tag, data)));
            }
        }
        if let Some(d) = dev.filter(|_| self.hw.dev_resp_ready()) {
            self.dev_due.pop();
            progress = true;
            self.stats.device_answers += 1;
            self.stats.device_answer_wait_cycles += cycle - d.0;
            if let Some(q) = answer_context(d.2).and_then(|c| self.in_flight.get_mut(&c)) {
                q.last_answer = cycle;
            }
        }
        if let Some(d) = bud.filter(|_| self.hw.bud_resp_ready()) {
            self.bud_due.pop();
            progress = true;
            self.stats.buddy_answers += 1;
            self.stats.buddy_answer_wait_cycles += cycle - d.0;
            if let Some(q) = answer_context(d.2).and_then(|c| self.in_flight.get_mut(&c)) {
                q.last_answer = cycle;
            }
        }
        if let Some(resp) = self.hw.response() {
            progress = true;
            let key = if resp.flush { u64::MAX } else { resp.id };
            let q = self.in_flight.remove(&key).ok_or_else(|| format!("slice {}: a response for context {key}, not in use", env.slice))?;
            self.stats.context_cycles += cycle - q.taken;
            if q.lookup.is_some() {
                self.stats.lookups += 1;
                self.stats.lookup_cycles += q.lookup_at - q.taken;
                self.stats.after_lookup_cycles += cycle - q.lookup_at;
            }
            if let (false, false, Some(first)) = (q.request.write, q.request.flush, q.first_memory) {
                self.stats.reads.add(sh.ps(q.taken), sh.ps(first), sh.ps(q.last_answer), sh.ps(cycle));
            }
            let zero = !q.request.write && !q.request.flush && q.lookup == Some(outcome::HIT) && q.first_memory.is_none();
            if zero && resp.fault == 0 && !resp.decode_error {
                zero_reads.set(zero_reads.get() + 1);
            }
            *q.outcome.borrow_mut() = Some(answer(&q, &resp, sh.ps(cycle), env.slice));
            // The trace driver may issue its next request now.
            sh.note_finished();
        }
        // The edge waits for the next cycle, when the edges of every slice
        // that stepped this cycle are clocked together; what decides below
        // whether the slice stays busy reads the hardware only once the
        // driver holds nothing, and clocks the edge first.
        self.in_flight_before_edge = self.hw.in_flight();
        self.clock.defer_edge(self.hw.as_ref());
        self.stalled_for = if progress { 0 } else { self.stalled_for + 1 };
        if self.stalled_for > HANG_CYCLES {
            self.finish_edge();
            return Err(format!(
                "slice {}: no handshake for {HANG_CYCLES} cycles (cycle {}) with {} requests in it; {}",
                env.slice,
                self.clock.cycle,
                self.hw.in_flight(),
                self.describe()
            ));
        }
        if self.holds_anything() {
            self.idle_for = 0;
            return Ok(Step::Busy);
        }
        self.idle_for += 1;
        Ok(if self.idle_for > IDLE_DRAIN_CYCLES { Step::Idle } else { Step::Busy })
    }

    /// What the driver holds, for a hang's report: the requests in the
    /// slice (context, kind, address, cycle taken, lookup outcome, sectors
    /// moved), the one waiting to be offered, the reads memory has not answered.
    fn describe(&self) -> String {
        let mut ids: Vec<&u64> = self.in_flight.keys().collect();
        ids.sort();
        let held: Vec<String> = ids
            .iter()
            .map(|id| {
                let q = &self.in_flight[id];
                let r = &q.request;
                let kind = if r.flush {
                    "flush".to_string()
                } else if r.write {
                    format!("write mask {:x}", r.mask)
                } else {
                    "read".into()
                };
                format!("[{id}: {kind} {:#x} taken {} lookup {:?} moved {}]", r.va, q.taken, q.lookup, q.first_memory.is_some())
            })
            .collect();
        format!(
            "in flight {}; next {:?}; device reads not done {}, due {}; buddy reads due {}",
            held.join(" "),
            self.queue.front().map(|q| (q.request.va, q.request.write, q.issue)),
            self.dev_wait.len(),
            self.dev_due.len(),
            self.bud_due.len()
        )
    }

    /// Answer every request the slice holds or waits to offer with `message`.
    fn fail_all(&mut self, message: &str) {
        for q in self.queue.drain(..).chain(self.in_flight.drain().map(|(_, q)| q)) {
            *q.outcome.borrow_mut() = Some(Err(SimError::Hardware(message.to_string())));
        }
    }
}

/// The result a response gives its request, as the serial slice's driver gives it.
fn answer(q: &Queued, resp: &TaggedResponse, done: u64, slice: u64) -> Result<Finished, SimError> {
    let r = &q.request;
    let info = RequestInfo { done, buddy: q.buddy };
    if resp.decode_error {
        return Err(SimError::Decode { va: r.va, message: "the hardware decompressor rejects the stored stream".into() });
    }
    if resp.fault != 0 {
        let code = resp.fault;
        return Err(SimError::Hardware(match &q.fault {
            Some(f) => format!("slice {slice} reports fault code {code} for {:#x}: {f}", r.va),
            None => format!("slice {slice} reports fault code {code} for {:#x}, which the golden translation does not", r.va),
        }));
    }
    // A write is not answered with the entry it leaves; the run checks it
    // by reading it back.
    let entry = (!r.write && !r.flush).then_some(q.golden.unwrap_or(resp.entry));
    Ok(Finished { entry, info })
}

/// One slice's driver behind a trait object (any algorithm).
pub trait SliceDriver {
    fn queue(&mut self, q: Queued);
    fn cycle(&self) -> u64;
    fn wake_at(&mut self, cycle: u64);
    fn step(&mut self, env: &SliceEnv, zero_reads: &Cell<u64>) -> Result<Step, String>;
    /// The slice's clock and hardware while an edge is pending, to clock
    /// it (on any thread).
    fn pending_edge(&mut self) -> Option<(&mut SliceClock, &mut (dyn ClockedHardware + Send))>;
    fn fail_all(&mut self, message: &str);
    fn simulated_cycles(&self) -> u64;
    fn stats(&self) -> PipelinedStats;
    fn set_skip_idle(&mut self, skip: bool);
    fn record_vcd(&mut self, w: Box<dyn Write + Send>, period_ps: f64, from: u64, to: u64);
    fn finish_vcd(&mut self) -> std::io::Result<Option<bool>>;
    fn record_lines(&mut self, max: usize);
    fn take_lines(&mut self) -> Vec<String>;
    fn set_trace(&mut self, w: std::io::BufWriter<std::fs::File>);
    fn accept_waits(&self) -> Option<Vec<(String, u64)>>;
}

impl<H: PipelinedHardware + Send> SliceDriver for Driver<H> {
    fn queue(&mut self, q: Queued) {
        self.queue.push_back(q);
    }
    fn cycle(&self) -> u64 {
        self.clock.cycle
    }
    fn wake_at(&mut self, cycle: u64) {
        Driver::wake_at(self, cycle)
    }
    fn step(&mut self, env: &SliceEnv, zero_reads: &Cell<u64>) -> Result<Step, String> {
        Driver::step(self, env, zero_reads)
    }
    fn pending_edge(&mut self) -> Option<(&mut SliceClock, &mut (dyn ClockedHardware + Send))> {
        if !self.clock.edge_pending() {
            return None;
        }
        Some((&mut self.clock, self.hw.as_mut()))
    }
    fn fail_all(&mut self, message: &str) {
        Driver::fail_all(self, message)
    }
    fn simulated_cycles(&self) -> u64 {
        self.clock.simulated
    }
    fn stats(&self) -> PipelinedStats {
        self.stats
    }
    fn set_skip_idle(&mut self, skip: bool) {
        self.skip_idle = skip;
    }
    fn record_vcd(&mut self, w: Box<dyn Write + Send>, period_ps: f64, from: u64, to: u64) {
        self.clock.record_vcd(w, period_ps, from, to);
    }
    fn finish_vcd(&mut self) -> std::io::Result<Option<bool>> {
        self.finish_edge();
        self.clock.finish_vcd()
    }
    fn record_lines(&mut self, max: usize) {
        Driver::record_lines(self, max)
    }
    fn take_lines(&mut self) -> Vec<String> {
        self.clock.take_lines()
    }
    fn set_trace(&mut self, w: std::io::BufWriter<std::fs::File>) {
        self.trace = Some(w);
    }
    fn accept_waits(&self) -> Option<Vec<(String, u64)>> {
        self.hw.accept_waits()
    }
}

/// A slice's driver and whether a task is clocking it.
struct SliceState {
    driver: Box<dyn SliceDriver>,
    running: bool,
}

/// The RTL engine's pipelined slices.
pub struct PipelinedSlices {
    slices: Rc<Vec<RefCell<SliceState>>>,
    pub metadata: Rc<RefCell<CacheStats>>,
    pub zero_reads: Rc<Cell<u64>>,
}

impl PipelinedSlices {
    /// `n` slices of `driver(i)`; with `BUDDY_SLICE_TRACE=<dir>` set (a
    /// developer's aid), each writes its control ports, one line per
    /// cycle, to `<dir>/<what>-slice<i>.txt`.
    pub fn with(n: usize, what: &str, driver: impl Fn(usize) -> Box<dyn SliceDriver>) -> Self {
        let trace = std::env::var_os("BUDDY_SLICE_TRACE").map(std::path::PathBuf::from);
        let make = |i: usize| {
            let mut d = driver(i);
            if let Some(dir) = &trace {
                let path = dir.join(format!("{what}-slice{i}.txt"));
                match std::fs::File::create(&path) {
                    Ok(f) => d.set_trace(std::io::BufWriter::new(f)),
                    Err(e) => eprintln!("warning: BUDDY_SLICE_TRACE: cannot write {}: {e}", path.display()),
                }
            }
            RefCell::new(SliceState { driver: d, running: false })
        };
        PipelinedSlices {
            slices: Rc::new((0..n).map(make).collect()),
            metadata: Rc::new(RefCell::new(CacheStats::default())),
            zero_reads: Rc::new(Cell::new(0)),
        }
    }

    /// Hand `q` to its slice; start clocking the slice if it was idle.
    pub fn submit(&self, queue: &mut EventQueue, env: SliceEnv, q: Queued) {
        let slice = env.slice as usize;
        let issue = q.issue;
        let start = {
            let mut s = self.slices[slice].borrow_mut();
            s.driver.queue(q);
            !std::mem::replace(&mut s.running, true)
        };
        if !start {
            return;
        }
        let slices = self.slices.clone();
        let zero_reads = self.zero_reads.clone();
        queue.spawn(async move {
            let sh: Rc<QueueState> = env.shared.clone();
            slices[slice].borrow_mut().driver.wake_at(issue);
            loop {
                let cycle = slices[slice].borrow().driver.cycle();
                sh.until(sh.ps(cycle)).await;
                // The edges left pending before this cycle are clocked
                // together, by the first slice to step in it.
                finish_edges(&slices, cycle);
                let mut s = slices[slice].borrow_mut();
                match s.driver.step(&env, &zero_reads) {
                    Ok(Step::Busy) => {}
                    Ok(Step::Idle) => {
                        s.running = false;
                        break;
                    }
                    Err(e) => {
                        s.driver.fail_all(&e);
                        s.running = false;
                        break;
                    }
                }
            }
        });
    }

    /// Clock cycles simulated, summed over the slices.
    pub fn simulated_cycles(&self) -> u64 {
        self.slices.iter().map(|s| s.borrow().driver.simulated_cycles()).sum()
    }

    /// Where the slices' cycles went, summed over the slices.
    pub fn stats(&self) -> PipelinedStats {
        let mut t = PipelinedStats::default();
        self.slices.iter().for_each(|s| t += s.borrow().driver.stats());
        t
    }

    /// Cycles a request was offered to a slice and not taken, by why,
    /// summed over the slices (the cycle model's diagnosis; `None` for
    /// the hardware).
    pub fn accept_waits(&self) -> Option<std::collections::BTreeMap<String, u64>> {
        let mut sum = std::collections::BTreeMap::new();
        for s in self.slices.iter() {
            for (why, n) in s.borrow().driver.accept_waits()? {
                *sum.entry(why).or_default() += n;
            }
        }
        Some(sum)
    }

    /// Jump over idle cycles (the default) or clock them.
    pub fn set_skip_idle(&self, skip: bool) {
        self.slices.iter().for_each(|s| s.borrow_mut().driver.set_skip_idle(skip));
    }

    /// Write a VCD of cycles `from..=to` of slice `slice` into `w`, for a
    /// clock of `period_ps` picoseconds (see [`SliceClock::record_vcd`]).
    pub fn record_vcd(&self, slice: usize, w: Box<dyn Write + Send>, period_ps: f64, from: u64, to: u64) {
        self.slices[slice].borrow_mut().driver.record_vcd(w, period_ps, from, to);
    }

    /// End slice `slice`'s VCD (see [`SliceClock::finish_vcd`]).
    ///
    /// # Errors
    /// The VCD could not be written.
    pub fn finish_vcd(&self, slice: usize) -> std::io::Result<Option<bool>> {
        self.slices[slice].borrow_mut().driver.finish_vcd()
    }

    /// Record at most `max` lock-step lines of slice `slice`
    /// (`buddy_hdl::pipelined_controller::LOCKSTEP_INPUTS`, then
    /// `_OUTPUTS`), one per cycle from a reset; its idle cycles are then
    /// clocked rather than jumped.
    pub fn record_lines(&self, slice: usize, max: usize) {
        self.slices[slice].borrow_mut().driver.record_lines(max);
    }

    /// The lock-step lines recorded of slice `slice`.
    pub fn take_lines(&self, slice: usize) -> Vec<String> {
        self.slices[slice].borrow_mut().driver.take_lines()
    }
}

/// Clock every edge left pending by a cycle before `cycle`, on all cores
/// when there are several. An edge touches only its own slice's hardware,
/// which nothing reads before the edge is clocked, and the memory models
/// are driven between edges in the same order as before, so the run is
/// exactly that of one edge after the other.
fn finish_edges(slices: &[RefCell<SliceState>], cycle: u64) {
    let mut states: Vec<_> = slices.iter().map(|s| s.borrow_mut()).collect();
    let mut edges: Vec<_> = states.iter_mut().filter(|s| s.driver.cycle() <= cycle).filter_map(|s| s.driver.pending_edge()).collect();
    if edges.len() > 1 {
        edge_pool().install(|| edges.par_iter_mut().for_each(|(clock, hw)| clock.finish_edge(*hw)));
    } else if let Some((clock, hw)) = edges.pop() {
        clock.finish_edge(hw);
    }
}

/// The threads that clock slices' edges: one per core, with the stack of
/// a main thread (a slice's update passes hold large values).
fn edge_pool() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(64 << 20)
            .thread_name(|i| format!("slice-edges-{i}"))
            .build()
            .expect("start the threads that clock the slices")
    })
}

impl PipelinedSlices {
    /// Hand `r` to slice `slice`'s driver at the event queue's time; for
    /// the cycle model, with the values its timing depends on (`facts`)
    /// and golden's answer to a read (`golden`); `fault`: golden's
    /// translation fault, to explain the hardware's fault code.
    pub fn submit_request(
        &self,
        system: &mut MemorySystem,
        slice: u64,
        r: SliceRequest,
        fault: Option<String>,
        facts: Option<RequestFacts>,
        golden: Option<MemoryEntry>,
    ) -> Outcome {
        let env = system.env(slice, &self.metadata);
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let issue = system.queue.shared.cycle_at(system.queue.now());
        let mut q = Queued::new(r, issue, outcome.clone(), fault);
        q.facts = facts;
        q.golden = golden;
        self.submit(&mut system.queue, env, q);
        outcome
    }
}
