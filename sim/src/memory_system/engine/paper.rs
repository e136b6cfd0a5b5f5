//! The paper's idealized controller timing (`system.slice_timing =
//! "paper"`): any number of requests in flight per slice, the codec
//! and metadata-hit latencies of the config (Table I), and every memory
//! access as early as its data dependences allow (Buddy Compression
//! Sec. III; seed 001 Sec. 3.4).
//!
//! - Read: on a metadata hit the class's device sectors are read after the
//!   hit latency; on a miss the whole device slot is read beside the
//!   metadata sector fill (the class is not known yet). Buddy sectors wait
//!   for the metadata. A compressed class adds the decompression latency.
//!   A lookup that hits a metadata sector whose fill is still in flight
//!   (installed by an earlier miss) waits for that fill: a cache answers
//!   from a reserved line only when its data arrives (GPGPU-Sim's
//!   `HIT_RESERVED`, merged into the line's miss register), then reads
//!   its class's device sectors as a hit does (the paper reads the slot
//!   early on a miss only).
//! - Write: the read of a read-modify-write, then the compression latency,
//!   then the device part, the buddy part and the nibble's metadata traffic
//!   at once.

use std::rc::Rc;

use buddy_golden::controller_slice::{MetadataAccess, ReadPart, Sectors, WritePart};
use buddy_golden::translation::SECTOR_BYTES;
use buddy_golden::SizeClass;

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use buddy_golden::Algorithm;

use super::slots::SliceSlots;
use super::{is_zero_read, MemorySystem, ReadSplit, SliceEngine};
use crate::config::SimConfig;
use crate::memory_system::error::SimError;
use crate::memory_system::event_queue::QueueState;
use crate::memory_system::request::{Finished, Outcome, Request, RequestInfo};

/// The latencies of the idealized controller, picoseconds.
#[derive(Debug, Clone, Copy)]
pub struct PaperTiming {
    pub compress_ps: u64,
    pub decompress_ps: u64,
    pub md_hit_ps: u64,
}

/// The metadata sectors whose fill is in flight, by (slice, sector
/// address): how many fills, and the tasks waiting for them.
#[derive(Debug, Default)]
pub struct PendingFills {
    sectors: RefCell<HashMap<(u64, u64), (u32, Vec<usize>)>>,
}

impl PendingFills {
    fn begin(&self, slice: u64, sector: u64) {
        self.sectors.borrow_mut().entry((slice, sector)).or_default().0 += 1;
    }

    /// A fill arrived: once none of the sector is left, its waiters run now.
    fn end(&self, sh: &QueueState, slice: u64, sector: u64) {
        let mut sectors = self.sectors.borrow_mut();
        let e = sectors.get_mut(&(slice, sector)).expect("a fill ends after it begins");
        e.0 -= 1;
        if e.0 == 0 {
            for task in sectors.remove(&(slice, sector)).expect("present").1 {
                sh.wake(task);
            }
        }
    }

    /// Wait until no fill of the sector is in flight.
    fn filled(self: &Rc<Self>, sh: &Rc<QueueState>, slice: u64, sector: u64) -> Filled {
        Filled { fills: self.clone(), sh: sh.clone(), key: (slice, sector) }
    }

    /// When metadata sector `sector` of `slice` is in the cache, `from`
    /// at the earliest (ps): after `fills` (this access's, started now),
    /// or, on a hit, after a fill of it already in flight.
    async fn sector_in(self: &Rc<Self>, sh: &Rc<QueueState>, slice: u64, sector: u64, fills: Vec<u64>, from: u64) -> u64 {
        if fills.is_empty() {
            self.filled(sh, slice, sector).await;
            return from.max(sh.now());
        }
        self.begin(slice, sector);
        let done = sh.all_bursts(fills, from).await;
        self.end(sh, slice, sector);
        done
    }
}

/// The future of [`PendingFills::filled`].
struct Filled {
    fills: Rc<PendingFills>,
    sh: Rc<QueueState>,
    key: (u64, u64),
}

impl Future for Filled {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        match self.fills.sectors.borrow_mut().get_mut(&self.key) {
            None => Poll::Ready(()),
            Some((_, tasks)) => {
                tasks.push(self.sh.current());
                Poll::Pending
            }
        }
    }
}

/// Start a metadata access's write-backs (posted) and fills; returns the fill tickets.
fn metadata_traffic(sh: &Rc<QueueState>, slice: u64, md: Option<&MetadataAccess>) -> Vec<u64> {
    let mut fills = Vec::new();
    for t in md.map(|m| m.traffic.as_slice()).unwrap_or_default() {
        if t.write_back {
            sh.start_detached(slice, t.address, 1, true, slice);
        } else {
            fills.push(sh.start_burst(slice, t.address, 1, false, slice));
        }
    }
    fills
}

/// When a read part's steps happened, ps.
#[derive(Debug, Clone, Copy)]
pub struct ReadTimes {
    /// Taken: the read part's start.
    pub start: u64,
    /// Its first memory request (device burst or link transfer), if it moved data.
    pub first_memory: Option<u64>,
    /// The arrival of the last of its data (the metadata's answer if it moved none).
    pub last_data: u64,
    /// Its entry ready, decompressed.
    pub ready: u64,
}

impl PaperTiming {
    /// The timing of a read part from now; returns when its entry is ready, ps.
    pub async fn read(&self, sh: &Rc<QueueState>, pending: &Rc<PendingFills>, slice: u64, p: &ReadPart) -> u64 {
        self.read_times(sh, pending, slice, p).await.ready
    }

    /// As [`PaperTiming::read`], with the times of its steps.
    pub async fn read_times(&self, sh: &Rc<QueueState>, pending: &Rc<PendingFills>, slice: u64, p: &ReadPart) -> ReadTimes {
        let t0 = sh.now();
        let fills = metadata_traffic(sh, slice, p.metadata.as_ref());
        let hit = fills.is_empty();
        let sectors = if hit { p.device } else { p.slot };
        // A miss reads the whole slot beside the metadata (seed 001 Sec. 3.4;
        // a hit on a sector still being filled waits in its miss register).
        let early = (!hit && sectors.count > 0).then(|| sh.start_burst(slice, sectors.first, sectors.count, false, slice));
        let md_ready = match &p.metadata {
            None => t0,
            Some(m) => pending.sector_in(sh, slice, m.sector, fills, if hit { t0 + self.md_hit_ps } else { t0 }).await,
        };
        sh.until(md_ready).await;
        let late = (hit && sectors.count > 0).then(|| sh.start_burst(slice, sectors.first, sectors.count, false, slice));
        let first_memory = if early.is_some() { Some(t0) } else { (late.is_some() || p.buddy.count > 0).then_some(md_ready) };
        let mut done = md_ready;
        // Buddy sectors wait for the metadata.
        if p.buddy.count > 0 {
            done = done.max(sh.link_transfer(p.buddy.bytes(), false));
        }
        for tk in [early, late].into_iter().flatten() {
            done = done.max(sh.burst(tk).await);
        }
        let decompress = !matches!(p.class, SizeClass::Zero | SizeClass::Raw);
        ReadTimes { start: t0, first_memory, last_data: done, ready: done + if decompress { self.decompress_ps } else { 0 } }
    }

    /// The timing of a write to a compressed page from now (after its read
    /// part, if any); returns when it is done, ps.
    pub async fn write(&self, sh: &Rc<QueueState>, pending: &Rc<PendingFills>, slice: u64, read: Option<&ReadPart>, w: &WritePart) -> u64 {
        let start = match read {
            Some(r) => self.read(sh, pending, slice, r).await,
            None => sh.now(),
        };
        let ready = start + self.compress_ps;
        sh.until(ready).await;
        let tickets: Vec<u64> = w.device.iter().map(|d| sh.start_burst(slice, d.first, d.count, true, slice)).collect();
        let mut done = ready;
        if w.buddy.count > 0 {
            done = done.max(sh.link_transfer(w.buddy.bytes(), true));
        }
        let fills = metadata_traffic(sh, slice, w.metadata.as_ref());
        // The nibble is written into its sector once the sector is there.
        let done = match &w.metadata {
            Some(m) => pending.sector_in(sh, slice, m.sector, fills, done).await,
            None => done,
        };
        let done = sh.all_bursts(tickets, done).await;
        sh.until(done).await;
        done
    }

    /// The timing of an uncompressed page's write from now: its sector
    /// writes at once; returns when they are done, ps.
    pub async fn plain_write(sh: &Rc<QueueState>, slice: u64, w: &WritePart) -> u64 {
        let tickets: Vec<u64> = w.device.iter().map(|d| sh.start_burst(slice, d.first, d.count, true, slice)).collect();
        sh.all_bursts(tickets, sh.now()).await
    }
}

/// The part of an uncompressed page's slot `slot` (its four sectors) a
/// read of the sectors of `needed` moves: the run from the lowest to the
/// highest of them (one burst; an access of at most 32 bytes needs one or
/// two neighbours). A slot of another size is returned whole.
fn needed_sectors(slot: Sectors, needed: u8) -> Sectors {
    let needed = needed & 0xF;
    if slot.count != 4 || needed == 0 {
        return slot;
    }
    let (lo, hi) = (needed.trailing_zeros() as u64, 7 - needed.leading_zeros() as u64);
    Sectors { first: slot.first + lo * SECTOR_BYTES, count: hi - lo + 1 }
}

/// The paper timing engine: golden slices' answers, timed by
/// [`PaperTiming`]; with a bound on the requests a slice holds
/// (`system.slice_in_flight`), if any.
pub struct PaperEngine {
    timing: PaperTiming,
    slots: Option<Rc<SliceSlots>>,
    pending: Rc<PendingFills>,
    zero_reads: u64,
    reads: Rc<RefCell<ReadSplit>>,
}

impl PaperEngine {
    /// The engine of `config`'s latencies for `algorithm`'s codecs.
    pub fn new(config: &SimConfig, algorithm: Algorithm) -> Self {
        let cycle = config.cycle_ps();
        let (c, d) = config.codec_cycles(algorithm);
        let n = config.system.slices as usize;
        let slots = (config.system.slice_in_flight > 0).then(|| SliceSlots::new(n, config.system.slice_in_flight as usize));
        let timing = PaperTiming {
            compress_ps: (c * cycle).round() as u64,
            decompress_ps: (d * cycle).round() as u64,
            md_hit_ps: (config.metadata_cache.hit_cycles * cycle).round() as u64,
        };
        PaperEngine { timing, slots, pending: Rc::default(), zero_reads: 0, reads: Rc::default() }
    }
}

impl SliceEngine for PaperEngine {
    fn start(&mut self, system: &mut MemorySystem, request: &Request) -> Result<Outcome, SimError> {
        let mut served = system.serve(request)?;
        if let Some(r) = served.read.as_mut().filter(|r| r.metadata.is_none() && !request.write) {
            r.device = needed_sectors(r.device, request.read_sectors);
        }
        self.zero_reads += is_zero_read(&served) as u64;
        let slice = system.slice(request.va);
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let (sh, out) = (system.queue.shared.clone(), outcome.clone());
        let buddy = served.touches_buddy();
        let entry = served.entry;
        let (timing, slots, pending, reads) = (self.timing, self.slots.clone(), self.pending.clone(), self.reads.clone());
        system.queue.spawn(async move {
            if let Some(s) = &slots {
                s.acquire(&sh, slice).await;
            }
            let done = match (&served.read, &served.write) {
                (read, Some(w)) if w.metadata.is_some() => timing.write(&sh, &pending, slice, read.as_ref(), w).await,
                (_, Some(w)) => PaperTiming::plain_write(&sh, slice, w).await,
                (Some(r), None) => {
                    let t = timing.read_times(&sh, &pending, slice, r).await;
                    if let Some(first) = t.first_memory {
                        reads.borrow_mut().add(t.start, first, t.last_data, t.ready);
                    }
                    sh.until(t.ready).await;
                    t.ready
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
        Ok(outcome)
    }

    fn flush(&mut self, system: &mut MemorySystem) -> Result<Vec<Outcome>, SimError> {
        let flushed = system.flush_golden();
        let writes: Vec<(u64, u64)> =
            flushed.iter().enumerate().flat_map(|(s, f)| f.write_backs.iter().map(move |&a| (s as u64, a))).collect();
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let (sh, out) = (system.queue.shared.clone(), outcome.clone());
        system.queue.spawn(async move {
            let tickets: Vec<u64> = writes.iter().map(|&(s, a)| sh.start_burst(s, a, 1, true, s)).collect();
            let done = sh.all_bursts(tickets, sh.now()).await;
            sh.until(done).await;
            *out.borrow_mut() = Some(Ok(Finished { entry: None, info: RequestInfo { done, buddy: false } }));
        });
        Ok(vec![outcome])
    }

    fn zero_reads(&self) -> u64 {
        self.zero_reads
    }

    fn sector_reads(&self) -> bool {
        true
    }

    fn read_split(&self) -> Option<ReadSplit> {
        Some(*self.reads.borrow())
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use buddy_golden::controller_slice::{MetadataTraffic, Sectors};
    use buddy_golden::metadata_cache::Outcome as Lookup;

    use super::*;
    use crate::memory_system::event_queue::EventQueue;
    use crate::memory_system::hbm::Hbm;
    use crate::memory_system::nvlink::Nvlink;

    const SECTOR: u64 = 0x40_0000;

    /// A ZERO-class read whose nibble lies in `SECTOR`, with no device
    /// slot, so that its ready time is its metadata's alone.
    fn zero_read(outcome: Lookup) -> ReadPart {
        let traffic = if outcome == Lookup::Hit { Vec::new() } else { vec![MetadataTraffic { address: SECTOR, write_back: false }] };
        ReadPart {
            metadata: Some(MetadataAccess { outcome, sector: SECTOR, traffic }),
            class: SizeClass::Zero,
            slot: Sectors::default(),
            device: Sectors::default(),
            buddy: Sectors::default(),
        }
    }

    /// When each of `reads` is ready, all started at time 0 on slice 0.
    fn ready_times(reads: Vec<ReadPart>) -> (Vec<u64>, PaperTiming) {
        let config = SimConfig::default();
        let hbm = Hbm::new(&config);
        let link = Nvlink::new(&config, 0);
        let mut queue = EventQueue::new(hbm, link, config.cycle_ps());
        let timing = PaperEngine::new(&config, Algorithm::Bpc).timing;
        let pending = Rc::new(PendingFills::default());
        let times: Vec<Rc<Cell<u64>>> = reads.iter().map(|_| Rc::default()).collect();
        for (r, t) in reads.into_iter().zip(&times) {
            let (sh, pending, t) = (queue.shared.clone(), pending.clone(), t.clone());
            queue.spawn(async move { t.set(timing.read(&sh, &pending, 0, &r).await) });
        }
        queue.finish().expect("no task is left waiting");
        (times.iter().map(|t| t.get()).collect(), timing)
    }

    /// The times [`PaperTiming::read_times`] gives a B32 read of one device
    /// sector: on a hit its memory starts at hit latency, on a miss beside
    /// the fill (at 0), and its entry is ready a decompression after its data.
    #[test]
    fn a_read_is_cut_at_its_first_memory_request_and_its_data() {
        for outcome in [Lookup::Hit, Lookup::LineMiss] {
            let mut read = zero_read(outcome);
            read.class = SizeClass::B32;
            read.slot = Sectors { first: 0x1000, count: 2 };
            read.device = Sectors { first: 0x1000, count: 1 };
            let config = SimConfig::default();
            let mut queue = EventQueue::new(Hbm::new(&config), Nvlink::new(&config, 0), config.cycle_ps());
            let timing = PaperEngine::new(&config, Algorithm::Bpc).timing;
            let times: Rc<Cell<Option<ReadTimes>>> = Rc::default();
            let (sh, pending, t) = (queue.shared.clone(), Rc::new(PendingFills::default()), times.clone());
            queue.spawn(async move { t.set(Some(timing.read_times(&sh, &pending, 0, &read).await)) });
            queue.finish().expect("no task is left waiting");
            let t = times.get().expect("the read ended");
            let first = if outcome == Lookup::Hit { timing.md_hit_ps } else { 0 };
            assert_eq!((t.start, t.first_memory), (0, Some(first)), "{outcome:?}");
            assert!(t.last_data > first + timing.md_hit_ps, "a DRAM access: {t:?}");
            assert_eq!(t.ready, t.last_data + timing.decompress_ps, "{outcome:?}");
        }
    }

    /// A lookup that hits a metadata sector whose fill is in flight is
    /// answered when the fill arrives, not at hit latency; one that hits a
    /// filled sector is answered at hit latency.
    #[test]
    fn a_hit_on_a_sector_being_filled_waits_for_the_fill() {
        let (alone, timing) = ready_times(vec![zero_read(Lookup::Hit)]);
        assert_eq!(alone, vec![timing.md_hit_ps]);
        let (t, _) = ready_times(vec![zero_read(Lookup::LineMiss), zero_read(Lookup::Hit)]);
        assert!(t[0] > 2 * timing.md_hit_ps, "a fill takes a DRAM access: {t:?}");
        assert_eq!(t[1], t[0], "the hit is answered with the fill");
    }
}
