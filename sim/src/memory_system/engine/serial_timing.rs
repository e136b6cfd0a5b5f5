//! Fast engine with the `BuddyController`'s timing
//! (`system.slice_timing = "hardware"` with `system.rtl_slice = "serial"`):
//! every slice serves one request at
//! a time, and every memory handshake of the hardware's state machine
//! (`hdl/src/buddy_controller.rs`) and of its metadata cache
//! (`hdl/src/metadata_cache.rs`) reaches the HBM2 and NVLink models on the
//! cycle the hardware makes it. The behaviour model produces every value
//! (when the request issues); only the timing follows the hardware, built
//! from the hardware's own timing facts ([`buddy_hdl::timing`]: codec
//! latencies, metadata-cache hit and fill cycles, the slice's stage
//! cycles), so that the RTL engine can be checked against it cycle for
//! cycle.
//!
//! Cycles are slice-clock (= DRAM) cycles. A request offered at cycle `s`
//! to an idle slice is accepted there (`Idle`) and reaches the stage after
//! translation at `s + FRONT_CYCLES`. A response taken at cycle `r` frees
//! the slice from `r + 1`. Data of a read burst comes back one sector per
//! cycle from the cycle the model says the burst is done.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use buddy_golden::controller_slice::{Flushed, MetadataAccess, ReadPart, Served, WritePart};
use buddy_golden::metadata_cache::{MetadataCacheConfig, Outcome as MdOutcome};
use buddy_golden::{HardwareCodec, SizeClass};
use buddy_hdl::timing::{
    codec_latency, CodecLatency, AFTER_DATA_CYCLES, AFTER_FILL_CYCLES, FRONT_CYCLES, HIT_CYCLES, PLAIN_WRITE_SECTOR_CYCLES, PLAN_CYCLES,
    SECTORS_PER_LINE, SECTOR_FILL_CYCLES, WRITE_PLAN_CYCLES,
};

use super::{is_zero_read, MemorySystem, SliceEngine};
use crate::memory_system::error::SimError;
use crate::memory_system::event_queue::{EventQueue, QueueState};
use crate::memory_system::request::{Finished, Outcome, Request, RequestInfo};
use crate::memory_system::slice_clock::{INIT_CYCLES, RESET_CYCLES};

/// A slice takes its first request when the RTL engine has reset it and
/// its metadata cache has invalidated its sets.
pub(super) const OUT_OF_RESET: u64 = RESET_CYCLES + INIT_CYCLES;

/// Each serial slice's request queue: the slice serves its requests one
/// at a time, in issue order, from the cycle it is free.
pub struct SerialQueues {
    next: Vec<Cell<u64>>,
    serving: Vec<Cell<u64>>,
    free: Vec<Cell<u64>>,
    waiting: RefCell<HashMap<(u64, u64), usize>>,
    /// ZERO reads on a metadata hit counted by the RTL slices.
    pub zero_reads: Cell<u64>,
}

impl SerialQueues {
    /// `slices` slices, free from the cycle they are out of reset.
    pub fn new(slices: usize) -> Self {
        SerialQueues {
            next: (0..slices).map(|_| Cell::new(0)).collect(),
            serving: (0..slices).map(|_| Cell::new(0)).collect(),
            free: (0..slices).map(|_| Cell::new(OUT_OF_RESET)).collect(),
            waiting: RefCell::new(HashMap::new()),
            zero_reads: Cell::new(0),
        }
    }

    /// Queue a request of `slice` (when it issues); returns its position.
    pub fn enqueue(&self, slice: u64) -> u64 {
        let n = &self.next[slice as usize];
        n.set(n.get() + 1);
        n.get() - 1
    }

    /// Wait until the request at `position` is at the head of the queue.
    pub fn wait_head<'a>(&'a self, sh: &'a Rc<QueueState>, slice: u64, position: u64) -> AtHead<'a> {
        AtHead { queues: self, sh, slice, position }
    }

    /// The first cycle `slice` is free.
    pub fn free(&self, slice: u64) -> u64 {
        self.free[slice as usize].get()
    }

    /// The current request of `slice` is done; the slice is free from `free`.
    pub fn finish(&self, sh: &QueueState, slice: u64, free: u64) {
        self.free[slice as usize].set(free);
        let s = &self.serving[slice as usize];
        s.set(s.get() + 1);
        if let Some(task) = self.waiting.borrow_mut().remove(&(slice, s.get())) {
            sh.wake(task);
        }
    }
}

/// Future of [`SerialQueues::wait_head`].
pub struct AtHead<'a> {
    queues: &'a SerialQueues,
    sh: &'a Rc<QueueState>,
    slice: u64,
    position: u64,
}

impl Future for AtHead<'_> {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.queues.serving[self.slice as usize].get() == self.position {
            return Poll::Ready(());
        }
        self.queues.waiting.borrow_mut().insert((self.slice, self.position), self.sh.current());
        Poll::Pending
    }
}

/// Wait until cycle `c` starts.
async fn at(sh: &Rc<QueueState>, c: u64) {
    sh.until(sh.ps(c)).await;
}

/// A device burst whose first sector is handshaken at cycle `c`: starts it
/// (the caller waits for the ticket).
async fn device(sh: &Rc<QueueState>, slice: u64, first: u64, count: u64, write: bool, c: u64) -> u64 {
    at(sh, c).await;
    sh.start_burst(slice, first, count, write, slice)
}

/// The cycle burst `ticket` is done.
async fn done_cycle(sh: &Rc<QueueState>, ticket: u64) -> u64 {
    let ps = sh.burst(ticket).await;
    sh.cycle_at(ps)
}

/// The metadata cache's memory traffic for an access accepted at `a`:
/// write-backs of a line miss, then the fill request. Returns `resp_valid`'s
/// cycle on a hit, else (fill request cycle, fill ticket).
async fn md_start(sh: &Rc<QueueState>, slice: u64, md: &MetadataAccess, a: u64) -> Result<u64, (u64, u64)> {
    if md.outcome == MdOutcome::Hit {
        return Ok(a + HIT_CYCLES);
    }
    let mut request = a + SECTOR_FILL_CYCLES;
    if md.outcome == MdOutcome::LineMiss {
        // Victim, then per sector Evict (and EvictSend when dirty), then Evicted.
        let mut c = a + SECTOR_FILL_CYCLES + 1;
        for sector in 0..SECTORS_PER_LINE {
            match md.write_backs().find(|&address| MetadataCacheConfig::default().place(address).sector as u64 == sector) {
                Some(address) => {
                    at(sh, c + 1).await;
                    sh.start_detached(slice, address, 1, true, slice);
                    c += 2;
                }
                None => c += 1,
            }
        }
        request = c + 1;
    }
    let fill = md.fill().unwrap_or(0);
    Err((request, device(sh, slice, fill, 1, false, request).await))
}

/// The read part's timing from acceptance at `s` (a compressed page);
/// returns the cycle of `AfterRead`.
async fn read_part(sh: &Rc<QueueState>, slice: u64, p: &ReadPart, s: u64, decompress: u64) -> u64 {
    let a = s + FRONT_CYCLES;
    let md = p.metadata.as_ref().expect("a compressed page's read looks its nibble up");
    let hit = md.hit();
    // Last data cycle so far (none: 0).
    let mut last = 0;
    let (md_resp, slot) = match md_start(sh, slice, md, a).await {
        Ok(resp) => (resp, None),
        Err((request, fill)) => {
            // The whole device slot, right behind the fill.
            let slot = if p.slot.count > 0 { Some(device(sh, slice, p.slot.first, p.slot.count, false, request + 1).await) } else { None };
            let f = done_cycle(sh, fill).await;
            (f + AFTER_FILL_CYCLES, slot.map(|t| (t, f)))
        }
    };
    // ReadPlan, then WaitData: the class's sectors (on a hit) and the buddy
    // sectors are requested at `wait`, before any data is waited for.
    let wait = md_resp + PLAN_CYCLES;
    let dev = if hit && p.device.count > 0 { Some(device(sh, slice, p.device.first, p.device.count, false, wait).await) } else { None };
    if p.buddy.count > 0 {
        at(sh, wait).await;
        let arrive = sh.cycle_at(sh.link_transfer(p.buddy.bytes(), false));
        last = last.max(arrive + p.buddy.count - 1);
    }
    if let Some((t, f)) = slot {
        last = last.max(done_cycle(sh, t).await.max(f + 1) + p.slot.count - 1);
    }
    if let Some(t) = dev {
        last = last.max(done_cycle(sh, t).await + p.device.count - 1);
    }
    let decode = wait.max(last + 1) + AFTER_DATA_CYCLES;
    if p.class == SizeClass::Zero {
        decode + 1
    } else {
        decode + decompress + 1
    }
}

/// An uncompressed page's read from acceptance at `s`: the slot's sectors
/// at the stage after translation; returns the response cycle.
async fn plain_read(sh: &Rc<QueueState>, slice: u64, p: &ReadPart, s: u64) -> u64 {
    let wait = s + FRONT_CYCLES;
    let t = device(sh, slice, p.slot.first, p.slot.count, false, wait).await;
    let last = done_cycle(sh, t).await + p.slot.count - 1;
    wait.max(last + 1) + AFTER_DATA_CYCLES
}

/// An uncompressed page's write from acceptance at `s` (`PlainWrite`: each
/// masked sector is a 1-sector write); returns the response cycle.
async fn plain_write(sh: &Rc<QueueState>, slice: u64, w: &WritePart, s: u64) -> u64 {
    let mut c = s + FRONT_CYCLES;
    let base = w.device.first().map_or(0, |d| d.first & !127);
    for sector in 0..4u64 {
        if w.device.iter().any(|d| d.first == base + 32 * sector) {
            at(sh, c + 1).await;
            sh.start_detached(slice, base + 32 * sector, 1, true, slice);
            c += PLAIN_WRITE_SECTOR_CYCLES;
        } else {
            c += 1;
        }
    }
    c + 1
}

/// A compressed page's write from acceptance at `s` (its read part
/// first, if any); returns the response cycle.
async fn write(sh: &Rc<QueueState>, slice: u64, read: Option<&ReadPart>, w: &WritePart, s: u64, codec: CodecLatency) -> u64 {
    let compress_at = match read {
        Some(p) => read_part(sh, slice, p, s, codec.decompress).await + 1,
        None => s + FRONT_CYCLES,
    };
    // Compress, CompressWait, WritePlan, then WriteData's handshakes.
    let send = compress_at + codec.compress + WRITE_PLAN_CYCLES;
    at(sh, send).await;
    let nd = w.device.first().map_or(0, |d| d.count);
    if let Some(d) = w.device.first() {
        sh.start_detached(slice, d.first, d.count, true, slice);
    }
    if w.buddy.count > 0 {
        sh.link_transfer(w.buddy.bytes(), true);
    }
    let md_write = send + nd.max(w.buddy.count) + 1;
    let md = w.metadata.as_ref().expect("a compressed page's write writes its nibble");
    let md_resp = match md_start(sh, slice, md, md_write).await {
        Ok(resp) => resp,
        Err((_, fill)) => done_cycle(sh, fill).await + AFTER_FILL_CYCLES,
    };
    md_resp + 1
}

/// The fast engine's hardware timing.
pub struct HardwareTiming {
    queues: Rc<SerialQueues>,
    codec: CodecLatency,
    /// Ways of the metadata cache (its flush walks sets, then ways).
    ways: usize,
}

impl HardwareTiming {
    /// The timing of `slices` slices built with `hardware`'s codecs and a
    /// metadata cache of `ways` ways.
    pub fn new(slices: usize, hardware: HardwareCodec, ways: usize) -> Self {
        HardwareTiming { queues: Rc::new(SerialQueues::new(slices)), codec: codec_latency(hardware), ways }
    }

    /// Spawn a hardware-timed request of `slice`: waits for its queue's head, runs
    /// `body` from its start cycle (which returns the response cycle), then
    /// frees the slice and finishes `outcome` with `entry`.
    fn spawn_body<F>(
        &self,
        world: &mut EventQueue,
        slice: u64,
        finished: Finished,
        outcome: Outcome,
        body: impl FnOnce(Rc<QueueState>, u64) -> F + 'static,
    ) where
        F: Future<Output = u64> + 'static,
    {
        let queues = self.queues.clone();
        let position = queues.enqueue(slice);
        let sh = world.shared.clone();
        let issue = sh.cycle_at(sh.now());
        world.spawn(async move {
            queues.wait_head(&sh, slice, position).await;
            let s = issue.max(queues.free(slice));
            let resp = body(sh.clone(), s).await;
            at(&sh, resp).await;
            queues.finish(&sh, slice, resp + 1);
            let info = RequestInfo { done: sh.ps(resp), ..finished.info };
            *outcome.borrow_mut() = Some(Ok(Finished { info, ..finished }));
        });
    }

    /// Time the served request `served` of `slice`; `outcome` holds its result when done.
    pub fn spawn(&self, world: &mut EventQueue, slice: u64, served: Served, outcome: Outcome) {
        let finished = Finished { entry: Some(served.entry), info: RequestInfo { done: 0, buddy: served.touches_buddy() } };
        let codec = self.codec;
        self.spawn_body(world, slice, finished, outcome, move |sh, s| async move {
            match (&served.read, &served.write) {
                (read, Some(w)) if w.metadata.is_some() => write(&sh, slice, read.as_ref(), w, s, codec).await,
                (_, Some(w)) => plain_write(&sh, slice, w, s).await,
                (Some(p), None) if p.metadata.is_none() => plain_read(&sh, slice, p, s).await,
                (Some(p), None) => read_part(&sh, slice, p, s, codec.decompress).await + 1,
                (None, None) => unreachable!("a request reads or writes"),
            }
        });
    }

    /// The end-of-run metadata flush of `slice` in hardware timing: its
    /// cache walks sets, then ways, then sectors (FlushTag 1 cycle per set;
    /// Victim and Evicted 1 cycle per line; 1 cycle per clean sector, 2 per
    /// dirty one, written back on the second).
    pub fn spawn_flush(&self, world: &mut EventQueue, slice: u64, flushed: Flushed) -> Outcome {
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let finished = Finished { entry: None, info: RequestInfo::default() };
        let ways = self.ways;
        self.spawn_body(world, slice, finished, outcome.clone(), move |sh, s| async move {
            let mut write_backs = flushed.write_backs.into_iter();
            // Accepted at s + 1 (Flush); FlushTag of set 0 follows.
            let mut c = s + 2;
            for (line, mask) in flushed.dirty.iter().enumerate() {
                if line % ways == 0 {
                    c += 1;
                }
                c += 1;
                for sector in 0..SECTORS_PER_LINE {
                    if mask >> sector & 1 == 1 {
                        if let Some(address) = write_backs.next() {
                            at(&sh, c + 1).await;
                            sh.start_detached(slice, address, 1, true, slice);
                        }
                        c += 2;
                    } else {
                        c += 1;
                    }
                }
                c += 1;
            }
            // The cache's resp_valid at c; the slice's response one cycle later.
            c + 1
        });
        outcome
    }
}

/// The serial slice timing engine: golden slices' answers, timed as the
/// `BuddyController` would serve them.
pub struct SerialTimingEngine {
    timing: HardwareTiming,
    zero_reads: u64,
}

impl SerialTimingEngine {
    /// `slices` slices built with `hardware`'s codecs and a metadata cache of `ways` ways.
    pub fn new(slices: usize, hardware: HardwareCodec, ways: usize) -> Self {
        SerialTimingEngine { timing: HardwareTiming::new(slices, hardware, ways), zero_reads: 0 }
    }
}

impl SliceEngine for SerialTimingEngine {
    fn start(&mut self, system: &mut MemorySystem, request: &Request) -> Result<Outcome, SimError> {
        let served = system.serve(request)?;
        self.zero_reads += is_zero_read(&served) as u64;
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let slice = system.slice(request.va);
        self.timing.spawn(&mut system.queue, slice, served, outcome.clone());
        Ok(outcome)
    }

    fn flush(&mut self, system: &mut MemorySystem) -> Result<Vec<Outcome>, SimError> {
        let flushed = system.flush_golden();
        Ok(flushed.into_iter().enumerate().map(|(s, f)| self.timing.spawn_flush(&mut system.queue, s as u64, f)).collect())
    }

    fn zero_reads(&self) -> u64 {
        self.zero_reads
    }
}
