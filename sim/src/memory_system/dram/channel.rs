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
    /// Bank group (index into `group_ready`).
    group: usize,
    open: Option<u32>,
    /// Column commands since the row was opened.
    hits: u32,
    /// First cycle each command kind may issue ([`RD`], [`WR`], [`ACT`], [`PRE`], [`REF`]).
    ready: [u64; 5],
    /// A lower bound of [`Channel::bank_next`] (ready cycles only grow, so
    /// a value stays a lower bound until the bank's queue or state
    /// changes, when it is reset to 0).
    next: u64,
    /// Queued reads and writes to the open row.
    open_hits: [u8; 2],
    /// Served a column command.
    used: bool,
}

/// One channel's controller and banks.
#[derive(Debug, Clone)]
pub struct Channel {
    t: HbmTiming,
    banks: Vec<Bank>,
    /// Expiry cycles (ACT + tFAW) of the last four activations (0: none),
    /// a ring whose oldest entry is `faw[faw_oldest]`. An activation may
    /// issue once the oldest has expired; an expired one is as good as
    /// none, so nothing has to be dropped.
    faw: [u64; 4],
    faw_oldest: usize,
    /// Per command kind ([`Command::Activate`], precharge, read, write):
    /// the ready cycles an issue pushes out, without the spacings of 0 and
    /// those a wider level already covers with the same or a longer one.
    spacing_updates: [SpacingUpdates; 4],
    /// Arrived or announced, not yet in the transaction queue (arrival order).
    front: VecDeque<Request>,
    /// The read queue and the write buffer.
    reads: TransactionQueue,
    writes: TransactionQueue,
    queues: Vec<Vec<Request>>,
    queued_commands: usize,
    /// Writes among `queued_commands`.
    queued_writes: usize,
    /// Ready cycles every bank of a bank group shares (spacings after a
    /// command in the group), and every bank of the channel shares. A
    /// bank's ready cycle for a command is the latest of its own, its
    /// group's and the channel's (the same-bank spacing is never shorter
    /// than the same-group one, nor that than the other-group one).
    group_ready: Vec<[u64; 5]>,
    channel_ready: [u64; 5],
    /// Bit q: bank q may have a ready command (`next` is at most
    /// the current cycle). A bank with requests outside `due` has
    /// `next` at least `wake_open` (open bank) or `wake_closed`.
    due: u64,
    /// Lower bounds of `next` over the banks with requests that are
    /// not `due`, open and closed ones.
    wake_open: u64,
    wake_closed: u64,
    /// Bit q: bank q is closed.
    closed: u64,
    /// Reads in `front`.
    front_reads: usize,
    /// Bank command queues with room for one more request.
    queues_with_room: usize,
    /// Bit q: bank q's command queue holds a request (at most 64 banks).
    nonempty: u64,
    /// Bit q: bank q's command queue is full.
    full: u64,
    rr: usize,
    refresh_waiting: bool,
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
        Channel {
            t: timing.clone(),
            banks: (0..banks).map(|q| Bank { group: q / timing.banks_per_group, ..Bank::default() }).collect(),
            faw: [0; 4],
            faw_oldest: 0,
            spacing_updates: [
                SpacingUpdates::new(&timing.activate),
                SpacingUpdates::new(&timing.precharge),
                SpacingUpdates::new(&timing.read),
                SpacingUpdates::new(&timing.write),
            ],
            front: VecDeque::new(),
            reads: TransactionQueue::new(banks, timing.transaction_queue),
            writes: TransactionQueue::new(banks, timing.transaction_queue),
            queues: (0..banks).map(|_| Vec::with_capacity(timing.command_queue)).collect(),
            queued_commands: 0,
            queued_writes: 0,
            group_ready: vec![[0; 5]; timing.bank_groups],
            channel_ready: [0; 5],
            due: if banks == 64 { u64::MAX } else { (1u64 << banks) - 1 },
            wake_open: u64::MAX,
            wake_closed: u64::MAX,
            closed: if banks == 64 { u64::MAX } else { (1u64 << banks) - 1 },
            front_reads: 0,
            queues_with_room: banks,
            nonempty: 0,
            full: 0,
            rr: 0,
            refresh_waiting: false,
            next_refresh: timing.t_refi,
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
        self.changed = true;
        self.next_act = self.clk;
    }

    /// Simulate every cycle before `end`; finished requests are appended to
    /// `done`.
    pub fn run_until(&mut self, end: u64, done: &mut Vec<Completion>) {
        while self.clk < end {
            self.step(end, false, done);
        }
        self.next_act = if self.changed {
            self.clk
        } else {
            self.settle();
            self.next_change()
        };
    }

    /// Simulate the cycle `clk`, then move on to the next cycle in which
    /// anything may change (at most `end`; with `stop_idle`, not past a
    /// cycle that left no request in the channel).
    #[inline]
    fn step(&mut self, end: u64, stop_idle: bool, done: &mut Vec<Completion>) {
        let moved = self.cycle(done);
        self.changed = moved;
        self.simulated_cycles += 1;
        self.clk += 1;
        if !moved && !(stop_idle && self.in_flight() == 0) {
            self.settle();
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
                    self.bank_next(i, 0),
                    [self.ready(i, 0), self.ready(i, 1), self.ready(i, 2), self.ready(i, 3)],
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
        self.next_act = if self.changed {
            self.clk
        } else {
            self.settle();
            self.next_change()
        };
    }

    /// One cycle; returns whether a transaction moved into a command queue
    /// (then another may move in the next cycle). Nothing else that
    /// happened needs the next cycle simulated: a bank that took a command
    /// or a request is looked at again by [`Channel::settle`], and the
    /// front end and refresh are timed by [`Channel::next_change`].
    fn cycle(&mut self, done: &mut Vec<Completion>) -> bool {
        self.admit(done);
        if self.t.refresh && self.clk == self.next_refresh {
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

    /// Move arrived requests into the transaction queue while there is room.
    fn admit(&mut self, done: &mut Vec<Completion>) {
        let cap = self.t.transaction_queue;
        while let Some(r) = self.front.front() {
            if r.arrival > self.clk || if r.write { self.writes.len() } else { self.reads.len() } >= cap {
                break;
            }
            let r = self.front.pop_front().expect("looked at above");
            if r.write {
                if self.write_pending(r.key()) {
                    self.stats.merged_writes += 1;
                    done.push(Completion { id: r.id, arrival: r.arrival, cycle: self.clk + 1, write: true });
                } else {
                    self.pending_writes += 1;
                    self.write_filter[filter_slot(r.key())] += 1;
                    self.writes.push(r);
                }
            } else {
                self.front_reads -= 1;
                if self.write_pending(r.key()) {
                    self.stats.forwarded_reads += 1;
                    done.push(Completion { id: r.id, arrival: r.arrival, cycle: self.clk + 1, write: false });
                } else {
                    self.reads.push(r);
                }
            }
        }
    }

    fn queued_reads(&self) -> usize {
        self.queued_commands - self.queued_writes
    }

    fn write_pending(&self, key: u64) -> bool {
        self.write_filter[filter_slot(key)] > 0
            && (self.writes.contains(key) || self.queues[(key >> 48) as usize].iter().any(|c| c.write && c.key() == key))
    }

    fn read_pending(&self, key: u64) -> bool {
        self.reads.contains(key) || self.queues[(key >> 48) as usize].iter().any(|c| !c.write && c.key() == key)
    }

    /// First cycle an activation may issue under tFAW.
    fn faw_ready(&self) -> u64 {
        self.faw[self.faw_oldest]
    }

    /// A cycle before which no bank may activate: tFAW and the channel's
    /// own ACT spacing (tRRD_S, tRFC).
    fn act_block(&self) -> u64 {
        self.faw_ready().max(self.channel_ready[ACT])
    }

    /// The command a refresh needs now: a precharge of an open bank, or the
    /// refresh itself once every bank is closed and ready.
    fn refresh_command(&self) -> Option<Issue> {
        let mut all = true;
        for (i, b) in self.banks.iter().enumerate() {
            match b.open {
                Some(_) => {
                    if self.ready(i, PRE) <= self.clk {
                        return Some(Issue { command: Command::Precharge, bank: i, row: 0, queue_index: None });
                    }
                    all = false;
                }
                None => all &= self.ready(i, REF) <= self.clk,
            }
        }
        all.then_some(Issue { command: Command::Refresh, bank: 0, row: 0, queue_index: None })
    }

    /// The first ready command of the per-bank queues, taken round robin.
    fn pick(&mut self) -> Option<Issue> {
        let n = self.queues.len();
        if self.nonempty == 0 {
            // No bank waits: nothing to wake for.
            self.wake_open = u64::MAX;
            self.wake_closed = u64::MAX;
            return None;
        }
        let clk = self.clk;
        let act_blocked = self.act_block() > clk;
        if clk >= self.wake_open || (clk >= self.wake_closed && !act_blocked) {
            self.rescan();
        }
        let mut cand = self.due & self.nonempty;
        if act_blocked {
            cand &= !self.closed;
        }
        if cand == 0 {
            return None;
        }
        // Round robin from the queue after the last one that issued, over
        // the queues that may have a ready command.
        let start = if self.rr + 1 == n { 0 } else { self.rr + 1 };
        let low = cand & ((1u64 << start) - 1);
        let mut high = cand & !((1u64 << start) - 1);
        let mut pass = 0;
        loop {
            while high != 0 {
                let q = high.trailing_zeros() as usize;
                high &= high - 1;
                match self.evaluate(q) {
                    Ok(i) => {
                        self.rr = q;
                        return Some(i);
                    }
                    Err(next) => {
                        self.banks[q].next = next;
                        if next > clk {
                            self.due &= !(1u64 << q);
                            if self.closed >> q & 1 != 0 {
                                self.wake_closed = self.wake_closed.min(next);
                            } else {
                                self.wake_open = self.wake_open.min(next);
                            }
                        }
                    }
                }
            }
            if pass == 1 || low == 0 {
                return None;
            }
            pass = 1;
            high = low;
        }
    }

    /// Move the banks whose `next` has come into `due`, and recompute
    /// `wake_open` and `wake_closed` over the rest.
    fn rescan(&mut self) {
        let clk = self.clk;
        let mut m = self.nonempty & !self.due;
        let (mut wo, mut wc) = (u64::MAX, u64::MAX);
        while m != 0 {
            let q = m.trailing_zeros() as usize;
            m &= m - 1;
            // Without branches: which way each goes is hard to predict.
            let v = self.banks[q].next;
            let come = v <= clk;
            self.due |= (come as u64) << q;
            let v = if come { u64::MAX } else { v };
            let closed = self.closed >> q & 1 != 0;
            wc = wc.min(if closed { v } else { u64::MAX });
            wo = wo.min(if closed { u64::MAX } else { v });
        }
        self.wake_open = wo;
        self.wake_closed = wc;
    }

    /// Recompute `next` of the `due` banks (those blocked by tFAW
    /// aside) and take the ones not ready at `clk` out of `due`, so that
    /// [`Channel::next_change`] sees when they may be; stops at the first
    /// bank that may be ready (then the cycle is simulated anyway).
    fn settle(&mut self) {
        if self.refresh_waiting {
            return;
        }
        let clk = self.clk;
        let act_blocked = self.act_block() > clk;
        if clk >= self.wake_open || (clk >= self.wake_closed && !act_blocked) {
            self.rescan();
        }
        let mut m = self.due & self.nonempty;
        if act_blocked {
            m &= !self.closed;
        }
        while m != 0 {
            let q = m.trailing_zeros() as usize;
            m &= m - 1;
            let next = self.bank_next(q, 0);
            self.banks[q].next = next;
            if next <= clk {
                return;
            }
            self.due &= !(1u64 << q);
            if self.closed >> q & 1 != 0 {
                self.wake_closed = self.wake_closed.min(next);
            } else {
                self.wake_open = self.wake_open.min(next);
            }
        }
    }

    /// Bank `q`'s queue or state changed: its next command must be looked
    /// at again.
    fn touch(&mut self, q: usize) {
        self.banks[q].next = 0;
        self.due |= 1u64 << q;
    }

    /// FR-FCFS within the queue of a bank with a queued request: the first
    /// request whose next command is ready; a row miss may close the row
    /// only from the head of the queue and only when no queued row hit
    /// waits (or the row has served `row_hit_limit` column commands).
    /// Else the bank's `next` ([`Channel::bank_next`], from the same ready
    /// cycles, each looked up once).
    #[inline]
    fn evaluate(&self, q: usize) -> Result<Issue, u64> {
        let queue = &self.queues[q];
        let head = queue[0];
        let b = &self.banks[q];
        let clk = self.clk;
        let Some(row) = b.open else {
            let t = self.ready(q, ACT);
            if t <= clk && self.faw_ready() <= clk {
                return Ok(Issue { command: Command::Activate, bank: q, row: head.row, queue_index: None });
            }
            return Err(t);
        };
        let [rd, wr] = b.open_hits;
        if rd + wr == 0 {
            // Every queued request misses: the head's precharge.
            let t = self.ready(q, PRE);
            if t <= clk {
                return Ok(Issue { command: Command::Precharge, bank: q, row: 0, queue_index: None });
            }
            return Err(t);
        }
        let ready_rd = if rd > 0 { self.ready(q, RD) } else { u64::MAX };
        let ready_wr = if wr > 0 { self.ready(q, WR) } else { u64::MAX };
        let may_close = head.row != row && b.hits >= self.t.row_hit_limit;
        let ready_pre = if may_close { self.ready(q, PRE) } else { u64::MAX };
        let t = ready_rd.min(ready_wr).min(ready_pre);
        if t > clk {
            return Err(t);
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
                return Ok(Issue { command, bank: q, row, queue_index: Some(i) });
            } else if i == 0 && ready_pre <= clk {
                // Row hits wait, but the row has served its share.
                return Ok(Issue { command: Command::Precharge, bank: q, row: 0, queue_index: None });
            }
        }
        Err(t)
    }

    fn issue(&mut self, c: Issue, done: &mut Vec<Completion>) {
        let clk = self.clk;
        match c.command {
            Command::Refresh => {
                for k in [ACT, REF] {
                    self.channel_ready[k] = self.channel_ready[k].max(clk + self.t.t_rfc);
                }
                self.refresh_waiting = false;
                self.stats.refreshes += 1;
                return;
            }
            Command::Activate => {
                self.banks[c.bank].open = Some(c.row);
                self.banks[c.bank].hits = 0;
                let mut h = [0u8; 2];
                for e in self.queues[c.bank].iter().filter(|e| e.row == c.row) {
                    h[e.write as usize] += 1;
                }
                self.banks[c.bank].open_hits = h;
                self.touch(c.bank);
                self.closed &= !(1u64 << c.bank);
                self.faw[self.faw_oldest] = clk + self.t.t_faw;
                self.faw_oldest = (self.faw_oldest + 1) & 3;
                self.stats.activations += 1;
            }
            Command::Precharge => {
                self.banks[c.bank].open = None;
                self.banks[c.bank].hits = 0;
                self.banks[c.bank].open_hits = [0; 2];
                self.touch(c.bank);
                self.closed |= 1u64 << c.bank;
                self.stats.precharges += 1;
            }
            Command::Read | Command::Write => {
                if self.queues[c.bank].len() == self.t.command_queue {
                    self.queues_with_room += 1;
                    self.full &= !(1u64 << c.bank);
                }
                let r = self.queues[c.bank].remove(c.queue_index.expect("a column command serves a queued request"));
                if self.queues[c.bank].is_empty() {
                    self.nonempty &= !(1u64 << c.bank);
                }
                self.queued_commands -= 1;
                self.queued_writes -= r.write as usize;
                self.banks[c.bank].open_hits[r.write as usize] -= 1;
                self.touch(c.bank);
                self.banks[c.bank].used = true;
                let b = &mut self.banks[c.bank];
                if b.hits > 0 {
                    self.stats.row_hits += 1;
                }
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
            }
        }
        let u = &self.spacing_updates[c.command as usize];
        let b = &mut self.banks[c.bank];
        for &(k, d) in &u.lists[0][..u.lens[0]] {
            b.ready[k] = b.ready[k].max(clk + d);
        }
        let g = &mut self.group_ready[b.group];
        for &(k, d) in &u.lists[1][..u.lens[1]] {
            g[k] = g[k].max(clk + d);
        }
        for &(k, d) in &u.lists[2][..u.lens[2]] {
            self.channel_ready[k] = self.channel_ready[k].max(clk + d);
        }
    }

    /// First cycle bank `q` may take command kind `k`.
    fn ready(&self, q: usize, k: usize) -> u64 {
        let b = &self.banks[q];
        b.ready[k].max(self.group_ready[b.group][k]).max(self.channel_ready[k])
    }

    /// The first cycle bank `q`'s queue may have a ready command
    /// (`u64::MAX` when it is empty); `faw`: the first cycle tFAW allows
    /// an activation.
    fn bank_next(&self, q: usize, faw: u64) -> u64 {
        let queue = &self.queues[q];
        let b = &self.banks[q];
        match (queue.first(), b.open) {
            (None, _) => u64::MAX,
            (Some(_), None) => self.ready(q, ACT).max(faw),
            (Some(head), Some(row)) => {
                let [rd, wr] = self.banks[q].open_hits;
                let mut t = u64::MAX;
                if rd > 0 {
                    t = t.min(self.ready(q, RD));
                }
                if wr > 0 {
                    t = t.min(self.ready(q, WR));
                }
                if head.row != row && (rd + wr == 0 || b.hits >= self.t.row_hit_limit) {
                    t = t.min(self.ready(q, PRE));
                }
                t
            }
        }
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
                return true;
            }
        }
        let Some(b) = self.reads.oldest(!self.full) else {
            return false;
        };
        let r = self.reads.pop(b);
        self.enqueue(r);
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
    fn enqueue(&mut self, r: Request) {
        let q = r.bank as usize;
        if self.banks[q].open == Some(r.row) {
            self.banks[q].open_hits[r.write as usize] += 1;
        }
        self.queues[q].push(r);
        self.nonempty |= 1u64 << q;
        if self.queues[q].len() == self.t.command_queue {
            self.queues_with_room -= 1;
            self.full |= 1u64 << q;
        }
        self.queued_commands += 1;
        self.queued_writes += r.write as usize;
        self.touch(q);
    }

    /// The first cycle after the current one at which anything can change
    /// (no command was ready and no transaction could move this cycle).
    fn next_change(&self) -> u64 {
        let mut next = u64::MAX;
        if self.t.refresh {
            next = next.min(self.next_refresh);
        }
        if let Some(r) = self.front.front() {
            let room = if r.write { self.writes.len() } else { self.reads.len() } < self.t.transaction_queue;
            if room {
                next = next.min(r.arrival);
            }
        }
        if self.refresh_waiting {
            for (q, b) in self.banks.iter().enumerate() {
                next = next.min(if b.open.is_some() { self.ready(q, PRE) } else { self.ready(q, REF) });
            }
        } else {
            // A `due` bank's `next` is at most `clk`; a closed bank
            // waits for `act_block` too.
            let act_block = self.act_block();
            let due = self.nonempty & self.due;
            if due & !self.closed != 0 {
                return self.clk;
            }
            if due != 0 {
                next = next.min(act_block);
            }
            next = next.min(self.wake_open).min(self.wake_closed.max(act_block));
        }
        next.max(self.clk)
    }
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
        let mut best: Option<(u64, usize)> = None;
        while m != 0 {
            let b = m.trailing_zeros() as usize;
            m &= m - 1;
            let seq = self.heads[b];
            if best.is_none_or(|(s, _)| seq < s) {
                best = Some((seq, b));
            }
        }
        best.map(|(_, b)| b)
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
        (0..self.rings[b].1).any(|i| self.slots[self.slot(b, i)].1.key() == key)
    }
}

/// The ready cycles one command pushes out, per level (the bank's, its
/// group's, the channel's): `(command kind, spacing)`. A bank's ready
/// cycle is the latest of its bank's, group's and channel's, so a spacing
/// of 0 changes nothing (cycles only grow), and one that a wider level
/// pushes out at least as far is left out.
#[derive(Debug, Clone, Copy)]
struct SpacingUpdates {
    lists: [[(usize, u64); 5]; 3],
    lens: [usize; 3],
}

impl SpacingUpdates {
    fn new(s: &Spacing) -> Self {
        let mut u = SpacingUpdates { lists: [[(0, 0); 5]; 3], lens: [0; 3] };
        for k in 0..5 {
            let (b, g, o) = (s.same_bank[k], s.same_group[k], s.other_group[k]);
            for (level, d, wider) in [(2, o, 0), (1, g, o), (0, b, g.max(o))] {
                if d > wider {
                    u.lists[level][u.lens[level]] = (k, d);
                    u.lens[level] += 1;
                }
            }
        }
        u
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
    use crate::memory_system::config::HbmConfig;

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
