//! One HBM2 channel and its controller, cycle by cycle: a front end, a read
//! queue and a write buffer (the transaction queue), per-bank command queues,
//! FR-FCFS command scheduling with open-page policy, a write-drain policy
//! and all-bank refresh. The structure follows DRAMsim3's JEDEC controller
//! so that the two can be compared on the same request streams
//! (`shared/ref/dram/README.md`).
//!
//! Per cycle, in this order: requests that have arrived enter the read
//! queue or the write buffer while there is room (in arrival order); a due
//! refresh is flagged; one command issues (a refresh or the precharges it
//! needs, else the first ready command of the per-bank queues taken round
//! robin), and with HBM2's separate row and column command buses a second
//! one of the other kind; then one transaction moves from the transaction
//! queue into its bank's command queue. Cycles in which nothing can change
//! are jumped over (exactly: the next change is computed from the banks'
//! ready times).

use std::collections::VecDeque;

use super::timing::{Command, HbmTiming, Spacing, ACT, PRE, RD, REF, WR};

/// One 32-byte access as the channel sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// The caller's tag, returned with the completion.
    pub id: u64,
    /// Cycle the request reaches the controller.
    pub arrival: u64,
    /// Bank in the channel: `bank_group * banks_per_group + bank`.
    pub bank: u16,
    pub row: u32,
    /// 32-byte column (sector) in the row.
    pub column: u16,
    pub write: bool,
}

impl Request {
    fn key(&self) -> u64 {
        (self.bank as u64) << 48 | (self.row as u64) << 16 | self.column as u64
    }
}

/// A finished request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    pub id: u64,
    pub arrival: u64,
    /// Cycle the last data beat is done (read data returned, write data
    /// written).
    pub cycle: u64,
    pub write: bool,
}

/// Command counts of a channel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ChannelStats {
    pub activations: u64,
    pub precharges: u64,
    pub reads: u64,
    pub writes: u64,
    /// Column commands to a row that an earlier column command had already used.
    pub row_hits: u64,
    pub refreshes: u64,
    /// Reads answered from the write buffer (no DRAM command).
    pub forwarded_reads: u64,
    /// Writes merged into a buffered write to the same sector.
    pub merged_writes: u64,
}

impl std::ops::AddAssign for ChannelStats {
    fn add_assign(&mut self, o: Self) {
        self.activations += o.activations;
        self.precharges += o.precharges;
        self.reads += o.reads;
        self.writes += o.writes;
        self.row_hits += o.row_hits;
        self.refreshes += o.refreshes;
        self.forwarded_reads += o.forwarded_reads;
        self.merged_writes += o.merged_writes;
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Bank {
    /// Bank group.
    group: usize,
    open: Option<u32>,
    /// Column commands since the row was opened.
    hits: u32,
    /// Queued reads and writes to the open row.
    open_hits: [u8; 2],
    /// Served a column command.
    used: bool,
}

/// Banks of a channel at most (bank masks are `u64`).
const MAX_BANKS: usize = 64;
/// Banks per [`Block`].
const LANE_BLOCK: usize = 16;
/// A cycle that never comes (relative cycles, see [`Channel::epoch`]).
const NEVER: i16 = i16::MAX;
/// Relative cycles are moved back to 0 once the clock is this far past
/// the epoch, so that clock plus any spacing stays below [`NEVER`].
const REBASE: u64 = 1 << 14;

/// The timing state of 16 banks, one lane each, as arrays of relative
/// cycles: the loops over a block are fixed-length and vectorize (16
/// banks fill two SSE2 registers). Lanes past the channel's banks are
/// never ready.
#[derive(Debug, Clone)]
struct Block {
    /// Per command kind ([`RD`], [`WR`], [`ACT`], [`PRE`], [`REF`]): the
    /// first relative cycle it may issue. The spacings of a command to its
    /// group's and to all banks are folded in when it issues, and tFAW
    /// into [`ACT`] (it only grows), so that a bank's ready cycle is one
    /// load.
    ready: [[i16; LANE_BLOCK]; 5],
    /// Per command kind ([`RD`], [`WR`], [`ACT`], [`PRE`]): 0 if the
    /// bank's next command may be of that kind (see
    /// [`Channel::update_bank`]), else [`NEVER`] (or-ed onto `ready`).
    need: [[i16; LANE_BLOCK]; 4],
    /// The first relative cycle the bank may have a ready command: the
    /// earliest `ready` of its `need` kinds ([`NEVER`] when its queue is
    /// empty). Exact: kept up to date whenever a bank or `ready` changes.
    next: [i16; LANE_BLOCK],
    /// The bank's group (-1 past the channel's banks).
    group: [i16; LANE_BLOCK],
}

impl Block {
    /// Raise kind `k`'s ready cycles to `in_group` in group `group` and
    /// to `other` elsewhere (branch-free over the lanes).
    fn spread(&mut self, k: usize, group: i16, in_group: i16, other: i16) {
        let r = &mut self.ready[k];
        for i in 0..LANE_BLOCK {
            r[i] = r[i].max(if self.group[i] == group { in_group } else { other });
        }
    }

    /// Raise kind `k`'s ready cycles to `now` plus each lane's offset,
    /// and at least to `floor`.
    #[inline(always)]
    fn raise_all(&mut self, k: usize, off: &[i16; LANE_BLOCK], now: i16, floor: i16) {
        let r = &mut self.ready[k];
        for i in 0..LANE_BLOCK {
            r[i] = r[i].max((now + off[i]).max(floor));
        }
    }

    /// Recompute every lane's `next` (`ready` is non-negative, so or-ing
    /// [`NEVER`] gives [`NEVER`]).
    fn update_next(&mut self) {
        let (r, n) = (&self.ready, &self.need);
        for i in 0..LANE_BLOCK {
            self.next[i] = (r[RD][i] | n[RD][i]).min(r[WR][i] | n[WR][i]).min(r[ACT][i] | n[ACT][i]).min(r[PRE][i] | n[PRE][i]);
        }
    }

    /// Bit i: lane i's `next` has come (is at most `clk`).
    #[inline(always)]
    fn ready_mask(&self, clk: i16) -> u64 {
        at_most(&self.next, clk)
    }
}

/// Bit i: lane i of `v` is at most `clk`: two vector compares and a
/// move-mask (SSE2, part of every x86-64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn at_most(v: &[i16; LANE_BLOCK], clk: i16) -> u64 {
    use std::arch::x86_64::{__m128i, _mm_cmpgt_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16, _mm_set1_epi16};
    let p = v.as_ptr() as *const __m128i;
    // SAFETY: `v` is 16 i16 lanes, 32 bytes: the two unaligned loads read
    // lanes 0-7 and 8-15 of it; SSE2 is always there.
    let late = unsafe {
        let c = _mm_set1_epi16(clk);
        _mm_movemask_epi8(_mm_packs_epi16(_mm_cmpgt_epi16(_mm_loadu_si128(p), c), _mm_cmpgt_epi16(_mm_loadu_si128(p.add(1)), c)))
    };
    (!late & 0xffff) as u64
}

/// Bit i: lane i of `v` is at most `clk`.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn at_most(v: &[i16; LANE_BLOCK], clk: i16) -> u64 {
    (0..LANE_BLOCK).fold(0, |m, i| m | ((v[i] <= clk) as u64) << i)
}

/// The kinds whose ready cycles a command's spacings to its own bank
/// raise (the others are 0 by construction in `timing.rs`; checked in
/// [`Channel::new`]): after an ACT, after a PRE, after a READ or WRITE.
const BANK_KINDS: [&[usize]; 3] = [&[RD, WR, ACT, PRE], &[ACT, REF], &[RD, WR, PRE]];

/// The commands with spacings to other banks, and the kinds those space
/// (0 elsewhere by construction in `timing.rs`; checked in
/// [`wide_offsets`]): an ACT's to ACTs, a READ's and a WRITE's to READs and
/// WRITEs (a PRE has none). Slot 0 is the ACT, 1 the READ, 2 the WRITE.
const WIDE_KINDS: [(Command, [usize; 2]); 3] = [(Command::Activate, [ACT, ACT]), (Command::Read, [RD, WR]), (Command::Write, [RD, WR])];

/// [`Channel::wide`] of a channel with timing `t`.
fn wide_offsets(t: &HbmTiming) -> Vec<[i16; LANE_BLOCK]> {
    let banks = t.banks();
    let blocks = banks.div_ceil(LANE_BLOCK);
    let spreads = [Spread::new(&t.activate), Spread::new(&t.precharge), Spread::new(&t.read), Spread::new(&t.write)];
    for (c, s) in spreads.iter().enumerate() {
        let kinds = WIDE_KINDS.iter().find(|w| w.0 as usize == c).map_or(&[][..], |w| &w.1[..]);
        assert!((0..5).all(|k| kinds.contains(&k) || (s.group[k] == 0 && s.other[k] == 0)), "a spacing to other banks outside WIDE_KINDS");
    }
    let mut out = Vec::new();
    for (command, kinds) in WIDE_KINDS {
        let s = &spreads[command as usize];
        for group in 0..t.bank_groups {
            for b in 0..blocks {
                for k in kinds {
                    // Lanes past the channel's banks are in no group.
                    out.push(std::array::from_fn(|i| {
                        let q = b * LANE_BLOCK + i;
                        if q < banks && q / t.banks_per_group == group {
                            s.group[k]
                        } else {
                            s.other[k]
                        }
                    }));
                }
            }
        }
    }
    out
}

/// The spacings a command puts on later commands of each kind, as a
/// bank's ready cycles see them: its own bank (the longest of the three
/// levels), the other banks of its group, the other groups' banks.
#[derive(Debug, Clone, Copy)]
struct Spread {
    bank: [i16; 5],
    group: [i16; 5],
    other: [i16; 5],
}

impl Spread {
    fn new(s: &Spacing) -> Self {
        let mut u = Spread { bank: [0; 5], group: [0; 5], other: [0; 5] };
        for k in 0..5 {
            let (b, g, o) = (s.same_bank[k], s.same_group[k], s.other_group[k]);
            assert!(b.max(g).max(o) < REBASE, "spacings must be below 2^14 cycles");
            u.bank[k] = b.max(g).max(o) as i16;
            u.group[k] = g.max(o) as i16;
            u.other[k] = o as i16;
        }
        u
    }
}

/// One channel's controller and banks.
#[derive(Debug, Clone)]
pub struct Channel {
    t: HbmTiming,
    banks: Vec<Bank>,
    /// The cycle relative cycles count from (`ready`, `next`): relative
    /// `i16` cycles are a quarter of the width of `u64` ones in the per-bank
    /// loops (16 banks fill two SSE2 registers, with native min and max).
    epoch: u64,
    /// The banks' timing state, 16 banks a block.
    lanes: Vec<Block>,
    /// Expiry cycles (ACT + tFAW) of the last four activations (0: none),
    /// a ring whose oldest entry is `faw[faw_oldest]`. An activation may
    /// issue once the oldest has expired; an expired one is as good as
    /// none, so nothing has to be dropped.
    faw: [u64; 4],
    faw_oldest: usize,
    /// Per command kind ([`Command::Activate`], precharge, read, write):
    /// the ready cycles an issue pushes out.
    spreads: [Spread; 4],
    /// Per `WIDE_KINDS` slot, issuing bank group and block: the spacings
    /// to each lane's bank (its group's or the other groups'), one
    /// 16-lane row per kind of the slot, so that spreading them is an add
    /// and a max per lane.
    wide: Vec<[i16; LANE_BLOCK]>,
    /// Arrived or announced, not yet in the transaction queue (arrival order).
    front: VecDeque<Request>,
    /// The read queue and the write buffer.
    reads: TransactionQueue,
    writes: TransactionQueue,
    queues: Vec<Vec<Request>>,
    queued_commands: usize,
    /// Writes among `queued_commands`.
    queued_writes: usize,
    /// Reads in `front`.
    front_reads: usize,
    /// The cycle the front end's first request may enter its queue: its
    /// arrival while the read queue or write buffer it goes to has room,
    /// else never (`u64::MAX`). Right after a transaction left a full
    /// queue it may be earlier (see [`Channel::recheck_admit`]).
    admit_at: u64,
    /// Bank command queues with room for one more request.
    queues_with_room: usize,
    /// Bit q: bank q's command queue is full.
    full: u64,
    /// The bank the round robin starts from: the one after the bank
    /// that issued last.
    rr_start: usize,
    /// Bit q: bank q has an open row.
    open_banks: u64,
    refresh_waiting: bool,
    /// The next refresh's cycle (never without refresh).
    next_refresh: u64,
    /// Writes left in the current drain.
    draining: usize,
    clk: u64,
    /// Writes not yet issued (buffered or in a command queue).
    pending_writes: usize,
    /// Pending writes per [`filter_slot`] of their sector: a read or write
    /// whose slot counts none has no pending write to look for.
    write_filter: Box<[u32; 256]>,
    pub stats: ChannelStats,
    /// Cycles simulated (not jumped over).
    pub simulated_cycles: u64,
    /// The next cycle has to be simulated: the last one moved a
    /// transaction into a command queue, or a request came in.
    changed: bool,
    /// [`Channel::next_activity`], kept up to date.
    next_act: u64,
}

impl Channel {
    /// An idle channel at cycle 0 with every bank closed.
    pub fn new(timing: &HbmTiming) -> Self {
        let banks = timing.banks();
        assert!(banks <= MAX_BANKS && banks.is_power_of_two(), "a power of two of banks, at most {MAX_BANKS}, per channel");
        assert!(timing.t_rfc < REBASE && timing.t_faw < REBASE, "spacings must be below 2^14 cycles");
        for (spacing, kinds) in [
            (&timing.activate, BANK_KINDS[0]),
            (&timing.precharge, BANK_KINDS[1]),
            (&timing.read, BANK_KINDS[2]),
            (&timing.write, BANK_KINDS[2]),
        ] {
            let spread = Spread::new(spacing);
            assert!((0..5).all(|k| kinds.contains(&k) || spread.bank[k] == 0), "a bank spacing outside BANK_KINDS");
        }
        Channel {
            t: timing.clone(),
            banks: (0..banks).map(|q| Bank { group: q / timing.banks_per_group, ..Bank::default() }).collect(),
            epoch: 0,
            lanes: (0..banks.div_ceil(LANE_BLOCK))
                .map(|b| Block {
                    ready: [[0; LANE_BLOCK]; 5],
                    need: [[NEVER; LANE_BLOCK]; 4],
                    next: [NEVER; LANE_BLOCK],
                    group: std::array::from_fn(|i| {
                        let q = b * LANE_BLOCK + i;
                        if q < banks {
                            (q / timing.banks_per_group) as i16
                        } else {
                            -1
                        }
                    }),
                })
                .collect(),
            faw: [0; 4],
            faw_oldest: 0,
            spreads: [Spread::new(&timing.activate), Spread::new(&timing.precharge), Spread::new(&timing.read), Spread::new(&timing.write)],
            wide: wide_offsets(timing),
            front: VecDeque::new(),
            reads: TransactionQueue::new(banks, timing.transaction_queue),
            writes: TransactionQueue::new(banks, timing.transaction_queue),
            queues: (0..banks).map(|_| Vec::with_capacity(timing.command_queue)).collect(),
            queued_commands: 0,
            queued_writes: 0,
            front_reads: 0,
            admit_at: u64::MAX,
            queues_with_room: banks,
            full: 0,
            rr_start: 1 % banks,
            open_banks: 0,
            refresh_waiting: false,
            next_refresh: if timing.refresh { timing.t_refi } else { u64::MAX },
            draining: 0,
            clk: 0,
            pending_writes: 0,
            write_filter: Box::new([0; 256]),
            stats: ChannelStats::default(),
            simulated_cycles: 0,
            changed: false,
            next_act: u64::MAX,
        }
    }

    /// The next cycle to simulate.
    pub fn now(&self) -> u64 {
        self.clk
    }

    /// Requests not finished.
    pub fn in_flight(&self) -> usize {
        self.front.len() + self.reads.len() + self.writes.len() + self.queued_commands
    }

    /// Make room in the front end for `n` more requests.
    pub fn reserve(&mut self, n: usize) {
        self.front.reserve(n);
    }

    /// Hand a request to the front end. Requests must come in
    /// non-decreasing arrival order, not before [`Channel::now`].
    pub fn push(&mut self, r: Request) {
        debug_assert!(r.arrival >= self.front.back().map_or(0, |b| b.arrival));
        self.front_reads += !r.write as usize;
        self.front.push_back(r);
        if self.front.len() == 1 {
            self.update_admit();
        }
        self.changed = true;
        self.next_act = self.clk;
    }

    /// Simulate every cycle before `end`; finished requests are appended to
    /// `done`.
    pub fn run_until(&mut self, end: u64, done: &mut Vec<Completion>) {
        while self.clk < end {
            self.step(end, false, done);
        }
        self.next_act = if self.changed { self.clk } else { self.next_change() };
    }

    /// Simulate the cycle `clk`, then move on to the next cycle in which
    /// anything may change (at most `end`; with `stop_idle`, not past a
    /// cycle that left no request in the channel).
    #[inline(always)]
    fn step(&mut self, end: u64, stop_idle: bool, done: &mut Vec<Completion>) {
        let moved = self.cycle(done);
        self.changed = moved;
        self.simulated_cycles += 1;
        self.clk += 1;
        if !moved && !(stop_idle && self.in_flight() == 0) {
            let next = self.next_change();
            if next > self.clk {
                self.clk = next.min(end);
            }
        }
    }

    /// The next cycle at which this channel may change anything (at least
    /// [`Channel::now`]).
    pub fn next_activity(&self) -> u64 {
        self.next_act
    }

    /// A one-line summary of the queues and banks (debugging).
    pub fn describe(&self) -> String {
        let q: Vec<String> = self
            .queues
            .iter()
            .enumerate()
            .filter(|(_, q)| !q.is_empty())
            .map(|(i, q)| {
                format!(
                    "b{i}:{:?}/{:?} next {} ready {:?} rows {:?}",
                    self.banks[i].open,
                    self.banks[i].open_hits,
                    self.absolute(self.lanes[i / LANE_BLOCK].next[i % LANE_BLOCK]),
                    [self.ready(i, RD), self.ready(i, WR), self.ready(i, ACT), self.ready(i, PRE)],
                    q.iter().map(|c| (c.row, c.write)).collect::<Vec<_>>()
                )
            })
            .collect();
        format!(
            "clk {} front {} reads {} writes {} draining {} refresh_waiting {} next_change {} faw {:?} | {}",
            self.clk,
            self.front.len(),
            self.reads.len(),
            self.writes.len(),
            self.draining,
            self.refresh_waiting,
            self.next_change(),
            self.faw,
            q.join(" | ")
        )
    }

    /// Banks that have served a column command.
    pub fn banks_used(&self) -> usize {
        self.banks.iter().filter(|b| b.used).count()
    }

    /// Run until every request handed in so far has finished.
    pub fn drain(&mut self, done: &mut Vec<Completion>) {
        // As `run_until(next_change + 1)` over and over, without the
        // per-call bookkeeping: quiet cycles change nothing, so stepping
        // straight on gives the same cycles' changes.
        // Stops right after the cycle that finished the last request.
        while self.in_flight() > 0 {
            self.step(u64::MAX, true, done);
        }
        self.next_act = if self.changed { self.clk } else { self.next_change() };
    }

    /// One cycle; returns whether a transaction moved into a command queue
    /// (then another may move in the next cycle). Nothing else that
    /// happened needs the next cycle simulated: the banks' `next` cycles
    /// are exact, and the front end and refresh are timed by
    /// [`Channel::next_change`].
    fn cycle(&mut self, done: &mut Vec<Completion>) -> bool {
        if self.clk - self.epoch >= REBASE {
            self.rebase();
        }
        self.admit(done);
        if self.clk == self.next_refresh {
            self.refresh_waiting = true;
            self.next_refresh += self.t.t_refi;
        }
        let first = if self.refresh_waiting { self.refresh_command() } else { None };
        let first = first.or_else(|| if self.refresh_waiting { None } else { self.pick() });
        if let Some(c) = first {
            self.issue(c, done);
            if self.t.dual_command && !self.refresh_waiting {
                if let Some(second) = self.pick() {
                    if second.column_command() != c.column_command() {
                        self.issue(second, done);
                    }
                }
            }
        }
        self.schedule_transaction()
    }

    /// Move the epoch to the current cycle (relative cycles before it
    /// become 0: they have passed either way).
    #[cold]
    #[inline(never)]
    fn rebase(&mut self) {
        let delta = self.clk - self.epoch;
        let back = |v: &mut i16| {
            if *v != NEVER {
                *v = (*v as u64).saturating_sub(delta) as i16;
            }
        };
        for l in &mut self.lanes {
            l.ready.iter_mut().chain([&mut l.next]).flatten().for_each(back);
        }
        self.epoch = self.clk;
    }

    /// Cycle `t` relative to the epoch (cycles past the range of relative
    /// ones come out as the last cycle before [`NEVER`]).
    fn relative(&self, t: u64) -> i16 {
        t.saturating_sub(self.epoch).min(NEVER as u64 - 1) as i16
    }

    /// The current cycle relative to the epoch: [`Channel::cycle`] rebases
    /// first, so it is in range.
    #[inline(always)]
    fn now_relative(&self) -> i16 {
        debug_assert!(self.clk - self.epoch < REBASE);
        (self.clk - self.epoch) as i16
    }

    /// Relative cycle `v` as an absolute one ([`NEVER`]: `u64::MAX`).
    fn absolute(&self, v: i16) -> u64 {
        if v == NEVER {
            u64::MAX
        } else {
            self.epoch + v as u64
        }
    }

    /// Move arrived requests into the transaction queue while there is room.
    fn admit(&mut self, done: &mut Vec<Completion>) {
        if self.admit_at > self.clk {
            return;
        }
        let cap = self.t.transaction_queue;
        loop {
            // Where the loop stops, `admit_at` is set as `update_admit` would.
            let Some(r) = self.front.front() else {
                self.admit_at = u64::MAX;
                break;
            };
            if if r.write { self.writes.len() } else { self.reads.len() } >= cap {
                self.admit_at = u64::MAX;
                break;
            }
            if r.arrival > self.clk {
                self.admit_at = r.arrival;
                break;
            }
            let r = self.front.pop_front().expect("looked at above");
            if r.write {
                if self.write_pending(r.key()) {
                    self.from_buffer(r, done);
                } else {
                    self.pending_writes += 1;
                    self.write_filter[filter_slot(r.key())] += 1;
                    self.writes.push(r);
                }
            } else {
                self.front_reads -= 1;
                if self.write_pending(r.key()) {
                    self.from_buffer(r, done);
                } else {
                    self.reads.push(r);
                }
            }
        }
    }

    /// A write merged into a buffered write of its sector, or a read
    /// answered from it: done in the next cycle (out of line: rare).
    #[cold]
    #[inline(never)]
    fn from_buffer(&mut self, r: Request, done: &mut Vec<Completion>) {
        if r.write {
            self.stats.merged_writes += 1;
        } else {
            self.stats.forwarded_reads += 1;
        }
        done.push(Completion { id: r.id, arrival: r.arrival, cycle: self.clk + 1, write: r.write });
    }

    /// A transaction left the transaction queue: if the front end's first
    /// request waited for room, look at it again in the next cycle (which
    /// is simulated: a transaction moved), where [`Channel::admit`] sets
    /// [`Channel::admit_at`] exactly.
    #[inline(always)]
    fn recheck_admit(&mut self) {
        if self.admit_at == u64::MAX {
            self.admit_at = self.clk;
        }
    }

    /// Recompute [`Channel::admit_at`] (the front end changed).
    fn update_admit(&mut self) {
        self.admit_at = match self.front.front() {
            Some(r) if if r.write { self.writes.len() } else { self.reads.len() } < self.t.transaction_queue => r.arrival,
            _ => u64::MAX,
        };
    }

    fn queued_reads(&self) -> usize {
        self.queued_commands - self.queued_writes
    }

    fn write_pending(&self, key: u64) -> bool {
        self.write_filter[filter_slot(key)] > 0 && self.write_queued(key)
    }

    /// A write to sector `key` is buffered or queued (out of line: the
    /// filter rules most sectors out).
    #[inline(never)]
    fn write_queued(&self, key: u64) -> bool {
        self.writes.contains(key)
            || self.queues[(key >> 48) as usize].iter().any(|c| c.write && c.row == (key >> 16) as u32 && c.column == key as u16)
    }

    #[inline(never)]
    fn read_pending(&self, key: u64) -> bool {
        self.reads.contains(key)
            || self.queues[(key >> 48) as usize].iter().any(|c| !c.write && c.row == (key >> 16) as u32 && c.column == key as u16)
    }

    /// The command a refresh needs now: a precharge of an open bank, or the
    /// refresh itself once every bank is closed and ready.
    #[inline(never)]
    fn refresh_command(&self) -> Option<Issue> {
        let clk = self.now_relative();
        let ready = |k: usize| self.lanes.iter().enumerate().fold(0, |m, (b, block)| m | at_most(&block.ready[k], clk) << (b * LANE_BLOCK));
        // The first open bank (in bank order) that may precharge.
        let pre = self.open_banks & ready(PRE);
        if pre != 0 {
            return Some(Issue { command: Command::Precharge, bank: pre.trailing_zeros() as usize, row: 0, queue_index: None });
        }
        let all = u64::MAX >> (64 - self.banks.len());
        (self.open_banks == 0 && ready(REF) & all == all).then_some(Issue { command: Command::Refresh, bank: 0, row: 0, queue_index: None })
    }

    /// The first bank, in round-robin order from bank `start` and
    /// skipping the first `skip` banks of that order, whose `next` has come
    /// (it may have a ready command), as its position in that order: the
    /// ready banks as a bit mask, rotated so that bank `start` is bit 0
    /// (bank counts are powers of two).
    #[inline]
    fn first_ready(&self, start: usize, skip: usize) -> Option<usize> {
        let n = self.queues.len();
        let ready = self.ready_banks();
        let all = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        // Rotate right by `start` within n bits (`start` < n).
        let rotated = (ready >> start | ready.checked_shl((n - start) as u32).unwrap_or(0)) & all;
        let left = rotated & (u64::MAX.checked_shl(skip as u32).unwrap_or(0));
        (left != 0).then(|| left.trailing_zeros() as usize)
    }

    /// Bit q: bank q's `next` has come (it may have a ready command).
    #[inline(always)]
    fn ready_banks(&self) -> u64 {
        let clk = self.now_relative();
        match self.lanes.as_slice() {
            [block] => block.ready_mask(clk),
            blocks => blocks.iter().enumerate().fold(0, |m, (b, block)| m | block.ready_mask(clk) << (b * LANE_BLOCK)),
        }
    }

    /// The first ready command of the per-bank queues, taken round robin
    /// from the queue after the last one that issued.
    fn pick(&mut self) -> Option<Issue> {
        let n = self.queues.len();
        let start = self.rr_start;
        let ready = self.ready_banks();
        if ready == 0 {
            return None;
        }
        let q = first_from(ready, start);
        match self.evaluate(q) {
            Some(i) => {
                self.rr_start = (q + 1) & (n - 1);
                Some(i)
            }
            None => self.pick_after(start, ((q + n - start) & (n - 1)) + 1),
        }
    }

    /// [`Channel::pick`] past a bank whose `next` had come but that had
    /// no ready command: a write that waits for a read of its sector.
    #[cold]
    #[inline(never)]
    fn pick_after(&mut self, start: usize, mut skip: usize) -> Option<Issue> {
        let n = self.queues.len();
        while let Some(position) = self.first_ready(start, skip) {
            let q = (start + position) & (n - 1);
            if let Some(i) = self.evaluate(q) {
                self.rr_start = (q + 1) & (n - 1);
                return Some(i);
            }
            skip = position + 1;
        }
        None
    }

    /// Bank `q`'s queue or state changed: recompute which command kinds
    /// it may issue next and its `next` cycle (as [`Channel::evaluate`]
    /// decides: a closed bank activates; an open one reads or writes a
    /// queued row hit, or precharges for a row miss at the head of its
    /// queue when no row hit waits or the row has served
    /// `row_hit_limit` column commands).
    #[inline(always)]
    fn update_bank(&mut self, q: usize) {
        // Without branches (which way a bank goes is hard to predict);
        // `open_hits` is [0, 0] for a closed bank or an empty queue.
        let b = &self.banks[q];
        let queue = &self.queues[q];
        let waits = !queue.is_empty();
        let open = b.open.is_some();
        let [rd, wr] = b.open_hits;
        let (rd, wr, act) = (rd > 0, wr > 0, waits & !open);
        let head_misses = queue.first().map_or(0, |h| h.row) != b.open.unwrap_or(0);
        let pre = waits & open & head_misses & (!(rd | wr) | (b.hits >= self.t.row_hit_limit));
        self.set_need(q, [rd, wr, act, pre]);
    }

    /// FR-FCFS within the queue of a bank with a queued request: the first
    /// request whose next command is ready; a row miss may close the row
    /// only from the head of the queue and only when no queued row hit
    /// waits (or the row has served `row_hit_limit` column commands).
    #[inline]
    fn evaluate(&self, q: usize) -> Option<Issue> {
        let queue = &self.queues[q];
        let head = queue[0];
        let b = &self.banks[q];
        let clk = self.now_relative();
        let block = &self.lanes[q / LANE_BLOCK];
        let ready = |k: usize| block.ready[k][q % LANE_BLOCK];
        let Some(row) = b.open else {
            // tFAW is folded into the ACT ready cycles.
            return (ready(ACT) <= clk).then_some(Issue { command: Command::Activate, bank: q, row: head.row, queue_index: None });
        };
        let [rd, wr] = b.open_hits;
        if rd + wr == 0 {
            // Every queued request misses: the head's precharge.
            return (ready(PRE) <= clk).then_some(Issue { command: Command::Precharge, bank: q, row: 0, queue_index: None });
        }
        let ready_rd = if rd > 0 { ready(RD) } else { NEVER };
        let ready_wr = if wr > 0 { ready(WR) } else { NEVER };
        let may_close = head.row != row && b.hits >= self.t.row_hit_limit;
        let ready_pre = if may_close { ready(PRE) } else { NEVER };
        if ready_rd.min(ready_wr).min(ready_pre) > clk {
            return None;
        }
        for (i, c) in queue.iter().enumerate() {
            if c.row == row {
                if (if c.write { ready_wr } else { ready_rd }) > clk {
                    continue;
                }
                // A write waits for an earlier read of the same sector.
                if c.write && queue[..i].iter().any(|e| !e.write && e.column == c.column && e.row == c.row) {
                    continue;
                }
                let command = if c.write { Command::Write } else { Command::Read };
                return Some(Issue { command, bank: q, row, queue_index: Some(i) });
            } else if i == 0 && ready_pre <= clk {
                // Row hits wait, but the row has served its share.
                return Some(Issue { command: Command::Precharge, bank: q, row: 0, queue_index: None });
            }
        }
        None
    }

    /// Issue `c` in the current cycle (inlined: the cycle's two call sites
    /// are its only ones).
    #[inline(always)]
    fn issue(&mut self, c: Issue, done: &mut Vec<Completion>) {
        let now = self.now_relative();
        // Tests rather than a `match`: a jump table's target is hard to
        // predict when the kinds of command alternate.
        if c.command == Command::Activate {
            self.activate(c.bank, c.row, now);
        } else if c.command == Command::Precharge {
            self.precharge(c.bank, now);
        } else if c.command == Command::Refresh {
            self.refresh(now);
        } else {
            self.column(c, now, done);
        }
    }

    /// Issue an ACT of `row` in bank `q` at relative cycle `now`.
    #[inline(always)]
    fn activate(&mut self, q: usize, row: u32, now: i16) {
        // One borrow of the bank (repeated indexing reloads and re-checks
        // the vector after every store).
        let b = &mut self.banks[q];
        b.open = Some(row);
        self.open_banks |= 1u64 << q;
        b.hits = 0;
        let mut h = [0u8; 2];
        for e in self.queues[q].iter().filter(|e| e.row == row) {
            h[e.write as usize] += 1;
        }
        b.open_hits = h;
        self.faw[self.faw_oldest] = self.clk + self.t.t_faw;
        self.faw_oldest = (self.faw_oldest + 1) & 3;
        self.stats.activations += 1;
        // The spacings to the other banks' ACTs, with tFAW: no bank
        // activates before the new oldest activation expires.
        let faw = self.relative(self.faw[self.faw_oldest]);
        let at = self.wide_at(0, self.banks[q].group);
        for (b, block) in self.lanes.iter_mut().enumerate() {
            block.raise_all(ACT, &self.wide[at + 2 * b], now, faw);
            block.update_next();
        }
        // The bank's own spacings; it may only serve its row hits next (an
        // ACT opens the row of its queue's head).
        self.raise(q, now, Command::Activate, BANK_KINDS[0]);
        self.set_need(q, [h[0] > 0, h[1] > 0, false, false]);
    }

    /// Issue a PRE of bank `q` at relative cycle `now`.
    #[inline(always)]
    fn precharge(&mut self, q: usize, now: i16) {
        let b = &mut self.banks[q];
        b.open = None;
        self.open_banks &= !(1u64 << q);
        b.hits = 0;
        b.open_hits = [0; 2];
        self.stats.precharges += 1;
        // No spacings to other banks; it may only activate next.
        self.raise(q, now, Command::Precharge, BANK_KINDS[1]);
        self.set_need(q, [false, false, !self.queues[q].is_empty(), false]);
    }

    /// Issue the READ or WRITE `c` at relative cycle `now`.
    #[inline(always)]
    fn column(&mut self, c: Issue, now: i16, done: &mut Vec<Completion>) {
        let (q, clk) = (c.bank, self.clk);
        let queue = &mut self.queues[q];
        if queue.len() == self.t.command_queue {
            self.queues_with_room += 1;
            self.full &= !(1u64 << q);
        }
        let r = queue.remove(c.queue_index.expect("a column command serves a queued request"));
        self.queued_commands -= 1;
        self.queued_writes -= r.write as usize;
        let b = &mut self.banks[q];
        b.open_hits[r.write as usize] -= 1;
        b.used = true;
        self.stats.row_hits += (b.hits > 0) as u64;
        b.hits += 1;
        let cycle = if r.write {
            self.stats.writes += 1;
            self.pending_writes -= 1;
            self.write_filter[filter_slot(r.key())] -= 1;
            clk + self.t.write_delay
        } else {
            self.stats.reads += 1;
            clk + self.t.read_delay
        };
        done.push(Completion { id: r.id, arrival: r.arrival, cycle, write: r.write });
        // The spacings to the other banks' READs and WRITEs.
        let at = self.wide_at(c.command as usize - 1, self.banks[q].group);
        for (b, block) in self.lanes.iter_mut().enumerate() {
            block.raise_all(RD, &self.wide[at + 2 * b], now, 0);
            block.raise_all(WR, &self.wide[at + 2 * b + 1], now, 0);
            block.update_next();
        }
        self.raise(q, now, c.command, BANK_KINDS[2]);
        self.update_bank(q);
    }

    /// Where in [`Channel::wide`] the lane offsets of a command of
    /// `WIDE_KINDS` slot `slot` in group `group` start: two rows per block
    /// (the slot's kinds).
    #[inline(always)]
    fn wide_at(&self, slot: usize, group: usize) -> usize {
        (slot * self.t.bank_groups + group) * 2 * self.lanes.len()
    }

    /// Raise bank `q`'s ready cycles of `kinds` by the spacings `command`
    /// (issued at relative cycle `now`) puts on its own bank.
    #[inline(always)]
    fn raise(&mut self, q: usize, now: i16, command: Command, kinds: &[usize]) {
        let d = &self.spreads[command as usize].bank;
        let (block, i) = (&mut self.lanes[q / LANE_BLOCK], q % LANE_BLOCK);
        for &k in kinds {
            block.ready[k][i] = block.ready[k][i].max(now + d[k]);
        }
    }

    /// Bank `q` may next issue the command kinds of `need` ([`RD`],
    /// [`WR`], [`ACT`], [`PRE`]): set its `need` lanes and its `next`.
    #[inline(always)]
    fn set_need(&mut self, q: usize, need: [bool; 4]) {
        let mask = |needed: bool| (needed as i16 - 1) & NEVER;
        let (block, i) = (&mut self.lanes[q / LANE_BLOCK], q % LANE_BLOCK);
        let mut next = NEVER;
        for (k, n) in need.into_iter().enumerate() {
            let m = mask(n);
            block.need[k][i] = m;
            next = next.min(block.ready[k][i] | m);
        }
        block.next[i] = next;
    }

    /// Issue an all-bank refresh (out of line: rare).
    #[cold]
    #[inline(never)]
    fn refresh(&mut self, now: i16) {
        for block in &mut self.lanes {
            for k in [ACT, REF] {
                block.spread(k, -1, 0, now + self.t.t_rfc as i16);
            }
            block.update_next();
        }
        self.refresh_waiting = false;
        self.stats.refreshes += 1;
    }

    /// First cycle bank `q` may take command kind `k`.
    fn ready(&self, q: usize, k: usize) -> u64 {
        self.absolute(self.lanes[q / LANE_BLOCK].ready[k][q % LANE_BLOCK])
    }

    /// Move one transaction into its bank's command queue (reads, or
    /// writes while draining). A drain starts when the write buffer is full,
    /// or when no read waits and `write_drain_threshold` writes do, or when
    /// no read is anywhere in the channel (an idle channel writes back what
    /// it buffers; DRAMsim3 would keep those writes until more come).
    fn schedule_transaction(&mut self) -> bool {
        if self.draining == 0 && self.drain_starts() {
            self.draining = self.writes.len();
        }
        if self.queues_with_room == 0 {
            return false;
        }
        if self.draining > 0 {
            // The oldest write whose bank's command queue has room.
            let Some(b) = self.writes.oldest(!self.full) else {
                return false;
            };
            if self.read_pending(self.writes.head(b).key()) {
                // A read of the same sector waits: it goes first (the drain
                // stops; DRAMsim3 would move nothing this cycle and could
                // wait forever when the write buffer is full).
                self.draining = 0;
            } else {
                self.draining -= 1;
                let r = self.writes.pop(b);
                self.enqueue(r);
                self.recheck_admit();
                return true;
            }
        }
        let Some(b) = self.reads.oldest(!self.full) else {
            return false;
        };
        let r = self.reads.pop(b);
        self.enqueue(r);
        self.recheck_admit();
        true
    }

    /// A drain starts (when none is going on).
    fn drain_starts(&self) -> bool {
        let idle = || self.reads.is_empty() && !self.writes.is_empty() && self.front_reads == 0 && self.queued_reads() == 0;
        self.writes.len() >= self.t.transaction_queue
            || (self.reads.is_empty() && self.writes.len() >= self.t.write_drain_threshold.max(1))
            || idle()
    }

    /// Put `r` into its bank's command queue.
    #[inline(always)]
    fn enqueue(&mut self, r: Request) {
        let q = r.bank as usize;
        if self.banks[q].open == Some(r.row) {
            self.banks[q].open_hits[r.write as usize] += 1;
        }
        self.queues[q].push(r);
        if self.queues[q].len() == self.t.command_queue {
            self.queues_with_room -= 1;
            self.full |= 1u64 << q;
        }
        self.queued_commands += 1;
        self.queued_writes += r.write as usize;
        self.update_bank(q);
    }

    /// The first cycle after the current one at which anything can change
    /// (no command was ready and no transaction could move this cycle).
    #[inline(always)]
    fn next_change(&self) -> u64 {
        let mut next = self.next_refresh.min(self.admit_at);
        if self.refresh_waiting {
            let first = (0..self.banks.len()).fold(NEVER, |m, q| {
                let kind = if self.open_banks >> q & 1 != 0 { PRE } else { REF };
                m.min(self.lanes[q / LANE_BLOCK].ready[kind][q % LANE_BLOCK])
            });
            next = next.min(self.absolute(first));
        } else {
            // Per block a fixed-length minimum (it vectorizes), then across blocks.
            let first = self.lanes.iter().map(|l| l.next.iter().fold(NEVER, |m, &v| m.min(v))).fold(NEVER, i16::min);
            next = next.min(self.absolute(first));
        }
        next.max(self.clk)
    }
}

/// The first bank of the non-empty set `ready` in round-robin order from
/// bank `start`: the first from `start` on, else (round the end) from bank
/// 0; no rotate needed (bits past the channel's banks are 0).
#[inline(always)]
fn first_from(ready: u64, start: usize) -> usize {
    let later = ready & (u64::MAX << start);
    (if later != 0 { later } else { ready }).trailing_zeros() as usize
}

/// The slot of sector `key` in [`Channel::write_filter`] (a multiplicative
/// hash, so that nearby sectors spread).
fn filter_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize
}

/// The read queue or the write buffer, kept per bank in arrival order with
/// a sequence number each: the oldest transaction of a set of banks is the
/// head with the lowest number among theirs. Each bank has a ring of
/// `capacity` slots (the whole queue's capacity, so it never overflows).
#[derive(Debug, Clone)]
struct TransactionQueue {
    slots: Vec<(u64, Request)>,
    /// Per bank: first slot and entries.
    rings: Vec<(usize, usize)>,
    /// Per bank: the sequence number of its oldest transaction (looked
    /// up by [`TransactionQueue::oldest`] without the ring arithmetic).
    heads: Vec<u64>,
    capacity: usize,
    /// Bit q: bank q has a transaction here.
    mask: u64,
    len: usize,
    seq: u64,
}

impl TransactionQueue {
    fn new(banks: usize, capacity: usize) -> Self {
        let empty = Request { id: 0, arrival: 0, bank: 0, row: 0, column: 0, write: false };
        TransactionQueue {
            slots: vec![(0, empty); banks * capacity],
            rings: vec![(0, 0); banks],
            heads: vec![u64::MAX; banks],
            capacity,
            mask: 0,
            len: 0,
            seq: 0,
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Slot `i` of bank `bank`'s ring, counted from its first.
    fn slot(&self, bank: usize, i: usize) -> usize {
        let (first, _) = self.rings[bank];
        let k = first + i;
        bank * self.capacity + if k >= self.capacity { k - self.capacity } else { k }
    }

    /// Add `r` (the caller keeps the queue within its capacity).
    fn push(&mut self, r: Request) {
        let b = r.bank as usize;
        let at = self.slot(b, self.rings[b].1);
        self.slots[at] = (self.seq, r);
        if self.rings[b].1 == 0 {
            self.heads[b] = self.seq;
        }
        self.rings[b].1 += 1;
        self.seq += 1;
        self.mask |= 1u64 << b;
        self.len += 1;
    }

    /// The bank of the oldest transaction among those of the banks in
    /// `banks`.
    fn oldest(&self, banks: u64) -> Option<usize> {
        let mut m = self.mask & banks;
        // The least of `seq << 6 | bank`: a branch-free minimum (which bank
        // wins is hard to predict).
        let mut best = u64::MAX;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            best = best.min(self.heads[b] << 6 | b as u64);
        }
        (best != u64::MAX).then_some((best & 63) as usize)
    }

    /// The oldest transaction of a bank that has one.
    fn head(&self, bank: usize) -> &Request {
        &self.slots[self.slot(bank, 0)].1
    }

    /// Take the oldest transaction of a bank that has one.
    fn pop(&mut self, bank: usize) -> Request {
        let r = self.slots[self.slot(bank, 0)].1;
        let ring = &mut self.rings[bank];
        ring.0 = if ring.0 + 1 == self.capacity { 0 } else { ring.0 + 1 };
        ring.1 -= 1;
        if ring.1 == 0 {
            self.mask &= !(1u64 << bank);
        } else {
            self.heads[bank] = self.slots[self.slot(bank, 0)].0;
        }
        self.len -= 1;
        r
    }

    /// A transaction to sector `key` is here.
    fn contains(&self, key: u64) -> bool {
        let b = (key >> 48) as usize;
        let (first, n) = self.rings[b];
        // The bank's ring as up to two runs of slots (no wrap per entry);
        // its entries are all of bank `b`, so the row and column decide.
        let ring = &self.slots[b * self.capacity..(b + 1) * self.capacity];
        let (a, wrapped) = if first + n <= self.capacity {
            (&ring[first..first + n], &ring[..0])
        } else {
            (&ring[first..], &ring[..first + n - self.capacity])
        };
        let (row, column) = ((key >> 16) as u32, key as u16);
        a.iter().chain(wrapped).any(|(_, r)| r.row == row && r.column == column)
    }
}

/// A command chosen for issue.
#[derive(Debug, Clone, Copy)]
struct Issue {
    command: Command,
    bank: usize,
    row: u32,
    /// Position in the bank's queue of the request a column command serves.
    queue_index: Option<usize>,
}

impl Issue {
    fn column_command(&self) -> bool {
        matches!(self.command, Command::Read | Command::Write)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::HbmConfig;

    /// A mixed stream: bursts of reads and writes to a few rows of every
    /// bank, light and saturating phases, refreshes included.
    fn stream(n: u64) -> Vec<Request> {
        let mut x = 0x9E37_79B9u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut arrival = 0;
        (0..n)
            .map(|id| {
                arrival += if (id / 500) % 2 == 0 { rnd() % 3 } else { rnd() % 40 };
                let v = rnd();
                Request {
                    id,
                    arrival,
                    bank: (v % 16) as u16,
                    row: (v >> 8) as u32 % 6,
                    column: (v >> 16) as u16 % 64,
                    write: v >> 40 & 3 == 0,
                }
            })
            .collect()
    }

    fn run(jump: bool) -> (Vec<Completion>, ChannelStats, u64) {
        let t = HbmTiming::new(&HbmConfig::default());
        let mut ch = Channel::new(&t);
        let mut done = Vec::new();
        for r in stream(6000) {
            ch.push(r);
        }
        if jump {
            ch.drain(&mut done);
        } else {
            while ch.in_flight() > 0 {
                let c = ch.now();
                ch.run_until(c + 1, &mut done);
            }
        }
        (done, ch.stats, ch.simulated_cycles)
    }

    /// The mask-and-rotate search, and the pick's first-from-start, give
    /// the round-robin order's first ready bank, as a scan bank by bank
    /// would, for 4 to 64 banks.
    #[test]
    fn first_ready_is_the_first_ready_bank_in_round_robin_order() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for (groups, per_group) in [(1, 4), (2, 4), (4, 4), (8, 4), (16, 4)] {
            let t = HbmTiming::new(&HbmConfig { bank_groups: groups, banks_per_group: per_group, ..HbmConfig::default() });
            let mut ch = Channel::new(&t);
            let n = ch.queues.len();
            ch.clk = 100;
            for _ in 0..500 {
                for q in 0..n {
                    ch.lanes[q / LANE_BLOCK].next[q % LANE_BLOCK] = match rnd() % 4 {
                        0 => NEVER,
                        1 => 100,
                        2 => 101,
                        _ => (rnd() % 100) as i16,
                    };
                }
                let start = rnd() as usize % n;
                let skip = rnd() as usize % (n + 1);
                let naive = (skip..n).find(|&p| ch.lanes[((start + p) % n) / LANE_BLOCK].next[((start + p) % n) % LANE_BLOCK] <= 100);
                assert_eq!(ch.first_ready(start, skip), naive, "{n} banks, start {start}, skip {skip}");
                // The pick's shortcut for no skip: the same bank.
                let ready = ch.ready_banks();
                let first = (0..n).find(|&p| ch.lanes[((start + p) % n) / LANE_BLOCK].next[((start + p) % n) % LANE_BLOCK] <= 100);
                assert_eq!((ready != 0).then(|| first_from(ready, start)), first.map(|p| (start + p) % n), "{n} banks, start {start}");
            }
        }
    }

    #[test]
    fn jumping_over_quiet_cycles_changes_nothing() {
        let (jumped, a, fewer) = run(true);
        let (stepped, b, all) = run(false);
        assert!(fewer * 2 < all, "the jump skipped cycles: {fewer} of {all}");
        assert_eq!(jumped.len(), 6000);
        assert_eq!(a, b);
        assert_eq!(jumped, stepped);
        assert!(a.refreshes > 0 && a.row_hits > 0 && a.writes > 0 && a.forwarded_reads + a.merged_writes < 6000, "{a:?}");
    }
}
