//! Fast mode with the `BuddyController`'s timing
//! (`system.slice_timing = "hardware"`): every slice serves one request at
//! a time, and every memory handshake of the hardware's state machine
//! (`hdl/src/buddy_controller.rs`) and of its metadata cache
//! (`hdl/src/metadata_cache.rs`) reaches the HBM2 and NVLink models on the
//! cycle the hardware makes it. The golden models still produce every value
//! (when the request issues); only the timing mirrors the hardware, so that
//! the RTL mode can be checked against the fast mode cycle for cycle.
//!
//! Cycles are slice-clock (= DRAM) cycles. A request offered at cycle `s`
//! to an idle slice is accepted there (`Idle`); `Translate` and two
//! cycles of `TranslateWait` follow, so the next stage starts at `s + 4`.
//! A response taken at cycle `r` frees the slice from `r + 1`. Data of a
//! read burst comes back one sector per cycle from the cycle the model
//! says the burst is done.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use buddy_golden::metadata_cache::Outcome as MdOutcome;
use buddy_golden::{Algorithm, MemoryEntry, SizeClass, ENTRY_BYTES};

use super::{Controllers, Finished, MetadataMemory, Outcome, RequestInfo};
use crate::memory_system::world::Shared;
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

/// The slices' turns: each slice serves its requests one at a time, in
/// issue order, from the cycle it is free.
pub struct SliceTurns {
    next: Vec<Cell<u64>>,
    serving: Vec<Cell<u64>>,
    free: Vec<Cell<u64>>,
    waiting: RefCell<HashMap<(u64, u64), usize>>,
    compress: u64,
    decompress: u64,
    /// ZERO reads on a metadata hit counted by the RTL slices.
    pub zero_reads: Cell<u64>,
}

impl SliceTurns {
    /// `slices` slices, free from cycle `from`.
    pub fn new(slices: usize, from: u64, algorithm: Algorithm) -> Self {
        let (compress, decompress) = codec_latency(algorithm);
        SliceTurns {
            next: (0..slices).map(|_| Cell::new(0)).collect(),
            serving: (0..slices).map(|_| Cell::new(0)).collect(),
            free: (0..slices).map(|_| Cell::new(from)).collect(),
            waiting: RefCell::new(HashMap::new()),
            compress,
            decompress,
            zero_reads: Cell::new(0),
        }
    }

    /// A place in `slice`'s line (taken when the request issues).
    pub fn take_turn(&self, slice: u64) -> u64 {
        let n = &self.next[slice as usize];
        n.set(n.get() + 1);
        n.get() - 1
    }

    /// Wait until `turn` is served.
    pub fn wait_turn<'a>(&'a self, sh: &'a Rc<Shared>, slice: u64, turn: u64) -> Turn<'a> {
        Turn { turns: self, sh, slice, turn }
    }

    /// The first cycle `slice` is free.
    pub fn free(&self, slice: u64) -> u64 {
        self.free[slice as usize].get()
    }

    /// The current request of `slice` is done; the slice is free from `free`.
    pub fn finish(&self, sh: &Shared, slice: u64, free: u64) {
        self.free[slice as usize].set(free);
        let s = &self.serving[slice as usize];
        s.set(s.get() + 1);
        if let Some(task) = self.waiting.borrow_mut().remove(&(slice, s.get())) {
            sh.wake(task);
        }
    }
}

/// Future of [`SliceTurns::wait_turn`].
pub struct Turn<'a> {
    turns: &'a SliceTurns,
    sh: &'a Rc<Shared>,
    slice: u64,
    turn: u64,
}

impl Future for Turn<'_> {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.turns.serving[self.slice as usize].get() == self.turn {
            return Poll::Ready(());
        }
        self.turns.waiting.borrow_mut().insert((self.slice, self.turn), self.sh.current());
        Poll::Pending
    }
}

/// A metadata cache access as the hardware times it.
#[derive(Debug, Clone)]
struct MdAccess {
    outcome: MdOutcome,
    /// Sector fills (false) and write-backs (true) the golden cache made.
    events: Vec<(u64, bool)>,
}

/// The read part of a request (a read, or a partial write's read), its
/// values taken when the request issued.
#[derive(Debug, Clone)]
struct ReadPart {
    md: MdAccess,
    /// (first, count) sectors: the whole slot, the class's, the buddy's.
    slot: (u64, u64),
    device: (u64, u64),
    buddy: u64,
    zero: bool,
}

/// Wait until cycle `c` starts.
async fn at(sh: &Rc<Shared>, c: u64) {
    sh.until(sh.ps(c)).await;
}

/// A device burst whose first sector is handshaken at cycle `c`: starts it
/// (the caller waits for the ticket).
async fn device(sh: &Rc<Shared>, slice: u64, first: u64, count: u64, write: bool, c: u64) -> u64 {
    at(sh, c).await;
    sh.start_burst(slice, first, count, write, slice)
}

/// The cycle burst `ticket` is done.
async fn done_cycle(sh: &Rc<Shared>, ticket: u64) -> u64 {
    let ps = sh.burst(ticket).await;
    sh.cycle_at(ps)
}

/// The metadata cache's memory traffic for an access accepted at `a`:
/// write-backs of a line miss, then the fill request. Returns `resp_valid`'s
/// cycle on a hit, else (fill request cycle, fill ticket).
async fn md_start(sh: &Rc<Shared>, slice: u64, md: &MdAccess, a: u64) -> Result<u64, (u64, u64)> {
    if md.outcome == MdOutcome::Hit {
        return Ok(a + MD_HIT);
    }
    let mut request = a + MD_SECTOR_FILL;
    if md.outcome == MdOutcome::LineMiss {
        // Victim, then per sector Evict (and EvictSend when dirty), then Evicted.
        let mut c = a + MD_SECTOR_FILL + 1;
        for sector in 0..SECTORS {
            match md.events.iter().find(|&&(address, write)| write && (address / 32) % SECTORS == sector) {
                Some(&(address, _)) => {
                    at(sh, c + 1).await;
                    sh.start_detached(slice, address, 1, true, slice);
                    c += 2;
                }
                None => c += 1,
            }
        }
        request = c + 1;
    }
    let fill = md.events.iter().find(|e| !e.1).map_or(0, |e| e.0);
    Err((request, device(sh, slice, fill, 1, false, request).await))
}

/// The read part's timing from acceptance at `s`; returns the cycle of
/// `AfterRead`.
async fn read_part(sh: &Rc<Shared>, slice: u64, p: &ReadPart, s: u64, decompress: u64) -> u64 {
    let a = s + FRONT;
    let md = md_start(sh, slice, &p.md, a).await;
    // Last data cycle so far (none: 0).
    let mut last = 0;
    let (md_resp, slot) = match md {
        Ok(resp) => (resp, None),
        Err((request, fill)) => {
            // The whole device slot, right behind the fill.
            let slot = if p.slot.1 > 0 { Some(device(sh, slice, p.slot.0, p.slot.1, false, request + 1).await) } else { None };
            let f = done_cycle(sh, fill).await;
            (f + MD_AFTER_FILL, slot.map(|t| (t, f)))
        }
    };
    // ReadPlan, then WaitData: the class's sectors (on a hit) and the buddy
    // sectors are requested at `wait`, before any data is waited for.
    let wait = md_resp + 2;
    let hit = p.md.outcome == MdOutcome::Hit;
    let dev = if hit && p.device.1 > 0 { Some(device(sh, slice, p.device.0, p.device.1, false, wait).await) } else { None };
    if p.buddy > 0 {
        at(sh, wait).await;
        let arrive = sh.cycle_at(sh.link_transfer(p.buddy * 32, false));
        last = last.max(arrive + p.buddy - 1);
    }
    if let Some((t, f)) = slot {
        last = last.max(done_cycle(sh, t).await.max(f + 1) + p.slot.1 - 1);
    }
    if let Some(t) = dev {
        last = last.max(done_cycle(sh, t).await + p.device.1 - 1);
    }
    let decode = wait.max(last + 1) + 1;
    if p.zero {
        decode + 1
    } else {
        decode + decompress + 1
    }
}

impl Controllers {
    /// The read part's values now (the golden metadata cache, codec and memory).
    fn hw_read_now(&mut self, va: u64) -> Result<(MemoryEntry, ReadPart), SimError> {
        let slice = self.slice(va);
        let slot = self.translate(va, SizeClass::Raw)?;
        let at = slot.metadata.ok_or(SimError::Unmapped { va })?;
        let (code, outcome) = self.nibble(slice, at, None);
        let events = std::mem::take(&mut self.events);
        let class = SizeClass::from_code(code).map_err(|e| SimError::Decode { va, message: e.to_string() })?;
        let acc = self.translate(va, class)?;
        let entry = self.codec.decompress(class, &self.load(&acc)).map_err(|e| SimError::Decode { va, message: e.to_string() })?;
        let part = ReadPart {
            md: MdAccess { outcome, events },
            slot: acc.device_slot.sectors(),
            device: acc.device.sectors(),
            buddy: acc.buddy.map_or(0, |b| b.sectors().1),
            zero: class == SizeClass::Zero,
        };
        Ok((entry, part))
    }

    /// Spawn a hardware-timed request of `slice`: waits for its turn, runs
    /// `body` from its start cycle (which returns the response cycle), then
    /// frees the slice.
    fn hw_spawn<F>(
        &mut self,
        slice: u64,
        entry: MemoryEntry,
        buddy: bool,
        body: impl FnOnce(Rc<Shared>, u64, u64, u64) -> F + 'static,
    ) -> Outcome
    where
        F: Future<Output = u64> + 'static,
    {
        let turns = self.turns.clone().expect("hardware timing");
        let turn = turns.take_turn(slice);
        let sh = self.world.shared.clone();
        let issue = sh.cycle_at(sh.now());
        let outcome: Outcome = Rc::new(RefCell::new(None));
        let out = outcome.clone();
        let (compress, decompress) = (turns.compress, turns.decompress);
        self.world.spawn(async move {
            turns.wait_turn(&sh, slice, turn).await;
            let s = issue.max(turns.free(slice));
            let resp = body(sh.clone(), s, compress, decompress).await;
            at(&sh, resp).await;
            turns.finish(&sh, slice, resp + 1);
            *out.borrow_mut() = Some(Ok(Finished { entry, info: RequestInfo { done: sh.ps(resp), buddy } }));
        });
        outcome
    }

    /// [`Controllers::start_read`] in hardware timing (`stats.reads` counted by the caller).
    pub(super) fn hw_start_read(&mut self, va: u64) -> Result<Outcome, SimError> {
        let slice = self.slice(va);
        if self.mode == Mode::Uncompressed {
            let acc = self.translate(va, SizeClass::Raw)?;
            let (first, n) = acc.device_slot.sectors();
            let entry = MemoryEntry::from_slice(&self.load(&acc)).expect("128 bytes");
            return Ok(self.hw_spawn(slice, entry, false, move |sh, s, _, _| async move {
                let wait = s + FRONT;
                let t = device(&sh, slice, first, n, false, wait).await;
                let last = done_cycle(&sh, t).await + n - 1;
                wait.max(last + 1) + 1
            }));
        }
        let (entry, part) = self.hw_read_now(va)?;
        if part.md.outcome == MdOutcome::Hit && part.zero {
            self.stats.zero_reads += 1;
        }
        let buddy = part.buddy > 0;
        Ok(self.hw_spawn(
            slice,
            entry,
            buddy,
            move |sh, s, _, decompress| async move { read_part(&sh, slice, &part, s, decompress).await + 1 },
        ))
    }

    /// [`Controllers::start_write`] in hardware timing (counters counted by the caller).
    pub(super) fn hw_start_write(&mut self, va: u64, mask: u8, value: &[u8; ENTRY_BYTES]) -> Result<Outcome, SimError> {
        let slice = self.slice(va);
        let partial = mask & 0xF != 0xF;
        if self.mode == Mode::Uncompressed {
            // PlainWrite: each written sector is a 1-sector write (2 cycles), others 1 cycle.
            let acc = self.translate(va, SizeClass::Raw)?;
            let mut merged = [0u8; ENTRY_BYTES];
            self.backing.borrow().device.read(acc.device_slot.address, &mut merged);
            for sector in 0..4usize {
                if mask >> sector & 1 == 1 {
                    merged[sector * 32..(sector + 1) * 32].copy_from_slice(&value[sector * 32..(sector + 1) * 32]);
                }
            }
            self.backing.borrow_mut().device.write(acc.device_slot.address, &merged);
            let base = acc.device_slot.address;
            return Ok(self.hw_spawn(slice, MemoryEntry::from_bytes(&merged), false, move |sh, s, _, _| async move {
                let mut c = s + FRONT;
                for sector in 0..4u64 {
                    if mask >> sector & 1 == 1 {
                        at(&sh, c + 1).await;
                        sh.start_detached(slice, base + 32 * sector, 1, true, slice);
                        c += 2;
                    } else {
                        c += 1;
                    }
                }
                c + 1
            }));
        }
        let mut merged = *value;
        let read = if partial {
            let (old, part) = self.hw_read_now(va)?;
            let old = old.to_bytes();
            for sector in 0..4 {
                if mask >> sector & 1 == 0 {
                    merged[sector * 32..(sector + 1) * 32].copy_from_slice(&old[sector * 32..(sector + 1) * 32]);
                }
            }
            Some(part)
        } else {
            None
        };
        let entry = MemoryEntry::from_bytes(&merged);
        let c = self.codec.compress(&entry);
        let acc = self.translate(va, c.class)?;
        self.store(&acc, &c.payload);
        let at_nibble = acc.metadata.ok_or(SimError::Unmapped { va })?;
        let (_, outcome) = self.nibble(slice, at_nibble, Some(c.class.code()));
        let md = MdAccess { outcome, events: std::mem::take(&mut self.events) };
        let (first, nd) = acc.device.sectors();
        let nb = acc.buddy.map_or(0, |b| b.sectors().1);
        let buddy = nb > 0 || read.as_ref().is_some_and(|p| p.buddy > 0);
        Ok(self.hw_spawn(slice, entry, buddy, move |sh, s, compress, decompress| async move {
            let compress_at = match &read {
                Some(p) => read_part(&sh, slice, p, s, decompress).await + 1,
                None => s + FRONT,
            };
            // Compress, CompressWait, WritePlan, then WriteData's handshakes.
            let send = compress_at + compress + 2;
            at(&sh, send).await;
            if nd > 0 {
                sh.start_detached(slice, first, nd, true, slice);
            }
            if nb > 0 {
                sh.link_transfer(nb * 32, true);
            }
            let md_write = send + nd.max(nb) + 1;
            let md_resp = match md_start(&sh, slice, &md, md_write).await {
                Ok(resp) => resp,
                Err((_, fill)) => done_cycle(&sh, fill).await + MD_AFTER_FILL,
            };
            md_resp + 1
        }))
    }

    /// The end-of-run metadata flush of `slice` in hardware timing: its
    /// cache walks sets, then ways, then sectors (FlushTag 1 cycle per set;
    /// Victim and Evicted 1 cycle per line; 1 cycle per clean sector, 2 per
    /// dirty one, written back on the second).
    pub(super) fn hw_start_flush(&mut self, slice: u64) -> Outcome {
        let dirty = self.caches[slice as usize].dirty_sectors();
        let ways = self.caches[slice as usize].config().ways;
        {
            let mut backing = self.backing.borrow_mut();
            let mut memory = MetadataMemory { bytes: &mut backing.metadata, base: self.pages.regs.md_base, events: &mut self.events };
            self.caches[slice as usize].flush(&mut memory);
        }
        let write_backs: Vec<u64> = std::mem::take(&mut self.events).into_iter().filter(|e| e.1).map(|e| e.0).collect();
        self.hw_spawn(slice, MemoryEntry::ZERO, false, move |sh, s, _, _| async move {
            let mut write_backs = write_backs.into_iter();
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
        })
    }
}
