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
}

/// One channel's controller and banks.
#[derive(Debug, Clone)]
pub struct Channel {
    t: HbmTiming,
    banks: Vec<Bank>,
    /// Expiry cycles (ACT + tFAW) of the recent activations.
    faw: VecDeque<u64>,
    /// Arrived or announced, not yet in the transaction queue (arrival order).
    front: VecDeque<Request>,
    reads: VecDeque<Request>,
    writes: VecDeque<Request>,
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
    /// Per bank: a lower bound of [`Channel::bank_next`] (ready cycles only
    /// grow, so a value stays a lower bound until the bank's queue or
    /// state changes, when it is recomputed).
    next_cache: Vec<u64>,
    /// Per bank: queued reads and writes to its open row.
    open_hits: Vec<[u8; 2]>,
    /// Reads in `front`.
    front_reads: usize,
    /// Bank command queues with room for one more request.
    queues_with_room: usize,
    /// Bit q: bank q's command queue holds a request (at most 64 banks).
    nonempty: u64,
    /// Bit q: bank q's command queue is full.
    full: u64,
    /// Per bank: reads waiting in the read queue; bit q of `reads_mask`: any.
    reads_per_bank: Vec<u16>,
    reads_mask: u64,
    rr: usize,
    refresh_waiting: bool,
    next_refresh: u64,
    /// Writes left in the current drain.
    draining: usize,
    clk: u64,
    /// Writes not yet issued (buffered or in a command queue).
    pending_writes: usize,
    pub stats: ChannelStats,
    /// Cycles simulated (not jumped over).
    pub simulated_cycles: u64,
    /// The last simulated cycle changed something (or a request came in).
    changed: bool,
    /// [`Channel::next_activity`], kept up to date.
    next_act: u64,
    /// Per bank: served a column command.
    used: Vec<bool>,
}

impl Channel {
    /// An idle channel at cycle 0 with every bank closed.
    pub fn new(timing: &HbmTiming) -> Self {
        let banks = timing.banks();
        Channel {
            t: timing.clone(),
            banks: (0..banks).map(|q| Bank { group: q / timing.banks_per_group, ..Bank::default() }).collect(),
            faw: VecDeque::with_capacity(8),
            front: VecDeque::new(),
            reads: VecDeque::new(),
            writes: VecDeque::new(),
            queues: (0..banks).map(|_| Vec::with_capacity(timing.command_queue)).collect(),
            queued_commands: 0,
            queued_writes: 0,
            group_ready: vec![[0; 5]; timing.bank_groups],
            channel_ready: [0; 5],
            next_cache: vec![u64::MAX; banks],
            open_hits: vec![[0; 2]; banks],
            front_reads: 0,
            queues_with_room: banks,
            nonempty: 0,
            full: 0,
            reads_per_bank: vec![0; banks],
            reads_mask: 0,
            rr: 0,
            refresh_waiting: false,
            next_refresh: timing.t_refi,
            draining: 0,
            clk: 0,
            pending_writes: 0,
            stats: ChannelStats::default(),
            simulated_cycles: 0,
            changed: false,
            next_act: u64::MAX,
            used: vec![false; banks],
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
        self.step_until(end, done);
        self.next_act = if self.changed { self.clk } else { self.next_change() };
    }

    fn step_until(&mut self, end: u64, done: &mut Vec<Completion>) {
        while self.clk < end {
            let changed = self.cycle(done);
            self.changed = changed;
            self.simulated_cycles += 1;
            self.clk += 1;
            if !changed {
                let next = self.next_change();
                if next > self.clk {
                    self.clk = next.min(end);
                }
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
                    self.open_hits[i],
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
        self.used.iter().filter(|&&u| u).count()
    }

    /// Run until every request handed in so far has finished.
    pub fn drain(&mut self, done: &mut Vec<Completion>) {
        while self.in_flight() > 0 {
            let next = self.next_change().max(self.clk);
            self.run_until(next + 1, done);
        }
    }

    /// One cycle; returns whether anything changed.
    fn cycle(&mut self, done: &mut Vec<Completion>) -> bool {
        let mut changed = self.admit(done);
        if self.t.refresh && self.clk == self.next_refresh {
            self.refresh_waiting = true;
            self.next_refresh += self.t.t_refi;
        }
        let first = if self.refresh_waiting { self.refresh_command() } else { None };
        let first = first.or_else(|| if self.refresh_waiting { None } else { self.pick() });
        if let Some(c) = first {
            self.issue(c, done);
            changed = true;
            if self.t.dual_command && !self.refresh_waiting {
                if let Some(second) = self.pick() {
                    if second.column_command() != c.column_command() {
                        self.issue(second, done);
                    }
                }
            }
        }
        changed | self.schedule_transaction()
    }

    /// Move arrived requests into the transaction queue while there is room.
    fn admit(&mut self, done: &mut Vec<Completion>) -> bool {
        let mut changed = false;
        let cap = self.t.transaction_queue;
        while let Some(r) = self.front.front().copied() {
            if r.arrival > self.clk {
                break;
            }
            if r.write {
                if self.writes.len() >= cap {
                    break;
                }
                self.front.pop_front();
                if self.write_pending(r.key()) {
                    self.stats.merged_writes += 1;
                    done.push(Completion { id: r.id, arrival: r.arrival, cycle: self.clk + 1, write: true });
                } else {
                    self.pending_writes += 1;
                    self.writes.push_back(r);
                }
            } else {
                if self.reads.len() >= cap {
                    break;
                }
                self.front.pop_front();
                self.front_reads -= 1;
                if self.write_pending(r.key()) {
                    self.stats.forwarded_reads += 1;
                    done.push(Completion { id: r.id, arrival: r.arrival, cycle: self.clk + 1, write: false });
                } else {
                    self.reads_per_bank[r.bank as usize] += 1;
                    self.reads_mask |= 1u64 << r.bank;
                    self.reads.push_back(r);
                }
            }
            changed = true;
        }
        changed
    }

    fn queued_reads(&self) -> usize {
        self.queued_commands - self.queued_writes
    }

    fn write_pending(&self, key: u64) -> bool {
        self.pending_writes > 0
            && (self.writes.iter().any(|w| w.key() == key) || self.queues[(key >> 48) as usize].iter().any(|c| c.write && c.key() == key))
    }

    fn read_pending(&self, key: u64) -> bool {
        self.reads.iter().any(|r| r.key() == key) || self.queues[(key >> 48) as usize].iter().any(|c| !c.write && c.key() == key)
    }

    /// First cycle an activation may issue under tFAW.
    fn faw_ready(&self) -> u64 {
        let n = self.faw.len();
        if n >= 4 {
            self.faw[n - 4]
        } else {
            0
        }
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
            return None;
        }
        let faw = self.faw_ready();
        // Round robin from the queue after the last one that issued, over
        // the queues that hold requests.
        let start = if self.rr + 1 == n { 0 } else { self.rr + 1 };
        let full = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let mut rot = ((self.nonempty >> start) | (self.nonempty << ((n - start) % 64))) & full;
        if start == 0 {
            rot = self.nonempty;
        }
        while rot != 0 {
            let k = rot.trailing_zeros() as usize;
            rot &= rot - 1;
            let q = if start + k >= n { start + k - n } else { start + k };
            let closed_faw = if self.banks[q].open.is_none() { faw } else { 0 };
            if self.next_cache[q].max(closed_faw) > self.clk {
                continue;
            }
            self.next_cache[q] = self.bank_next(q, 0);
            if self.next_cache[q].max(closed_faw) > self.clk {
                continue;
            }
            if let Some(i) = self.first_ready(q) {
                self.rr = q;
                return Some(i);
            }
        }
        None
    }

    /// FR-FCFS within one bank's queue: the first request whose next command
    /// is ready; a row miss may close the row only from the head of the
    /// queue and only when no queued row hit waits (or the row has served
    /// `row_hit_limit` column commands).
    fn first_ready(&self, q: usize) -> Option<Issue> {
        let queue = &self.queues[q];
        let head = queue.first()?;
        let b = &self.banks[q];
        let clk = self.clk;
        match b.open {
            None => (self.ready(q, ACT) <= clk && self.faw_ready() <= clk).then_some(Issue {
                command: Command::Activate,
                bank: q,
                row: head.row,
                queue_index: None,
            }),
            Some(row) => {
                for (i, c) in queue.iter().enumerate() {
                    if c.row == row {
                        let kind = if c.write { WR } else { RD };
                        if self.ready(q, kind) > clk {
                            continue;
                        }
                        // A write waits for an earlier read of the same sector.
                        if c.write && queue[..i].iter().any(|e| !e.write && e.column == c.column && e.row == c.row) {
                            continue;
                        }
                        let command = if c.write { Command::Write } else { Command::Read };
                        return Some(Issue { command, bank: q, row, queue_index: Some(i) });
                    } else if i == 0 && self.ready(q, PRE) <= clk {
                        let hits_wait = queue.iter().any(|e| e.row == row);
                        if !hits_wait || b.hits >= self.t.row_hit_limit {
                            return Some(Issue { command: Command::Precharge, bank: q, row: 0, queue_index: None });
                        }
                    }
                }
                None
            }
        }
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
                self.open_hits[c.bank] = h;
                self.next_cache[c.bank] = 0;
                while self.faw.front().is_some_and(|&e| e <= clk) {
                    self.faw.pop_front();
                }
                self.faw.push_back(clk + self.t.t_faw);
                self.stats.activations += 1;
            }
            Command::Precharge => {
                self.banks[c.bank].open = None;
                self.banks[c.bank].hits = 0;
                self.open_hits[c.bank] = [0; 2];
                self.next_cache[c.bank] = 0;
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
                self.open_hits[c.bank][r.write as usize] -= 1;
                self.next_cache[c.bank] = 0;
                self.used[c.bank] = true;
                let b = &mut self.banks[c.bank];
                if b.hits > 0 {
                    self.stats.row_hits += 1;
                }
                b.hits += 1;
                let cycle = if r.write {
                    self.stats.writes += 1;
                    self.pending_writes -= 1;
                    clk + self.t.write_delay
                } else {
                    self.stats.reads += 1;
                    clk + self.t.read_delay
                };
                done.push(Completion { id: r.id, arrival: r.arrival, cycle, write: r.write });
            }
        }
        let s: &Spacing = self.t.after(c.command);
        let group = self.banks[c.bank].group;
        for k in 0..5 {
            let b = &mut self.banks[c.bank].ready[k];
            *b = (*b).max(clk + s.same_bank[k]);
            let g = &mut self.group_ready[group][k];
            *g = (*g).max(clk + s.same_group[k]);
            let o = &mut self.channel_ready[k];
            *o = (*o).max(clk + s.other_group[k]);
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
                let [rd, wr] = self.open_hits[q];
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
        let idle = || self.reads.is_empty() && !self.writes.is_empty() && self.front_reads == 0 && self.queued_reads() == 0;
        if self.draining == 0
            && (self.writes.len() >= self.t.transaction_queue
                || (self.reads.is_empty() && self.writes.len() >= self.t.write_drain_threshold.max(1))
                || idle())
        {
            self.draining = self.writes.len();
        }
        let cq = self.t.command_queue;
        if self.queues_with_room == 0 {
            return false;
        }
        if self.draining > 0 {
            let Some(i) = self.writes.iter().position(|r| self.queues[r.bank as usize].len() < cq) else {
                return false;
            };
            if self.read_pending(self.writes[i].key()) {
                // A read of the same sector waits: it goes first (the drain
                // stops; DRAMsim3 would move nothing this cycle and could
                // wait forever when the write buffer is full).
                self.draining = 0;
            } else {
                self.draining -= 1;
                let r = self.writes.remove(i).expect("index found above");
                self.enqueue(r);
                return true;
            }
        }
        if self.reads_mask & !self.full == 0 {
            return false;
        }
        let Some(i) = self.reads.iter().position(|r| self.queues[r.bank as usize].len() < cq) else {
            return false;
        };
        let r = self.reads.remove(i).expect("index found above");
        let b = r.bank as usize;
        self.reads_per_bank[b] -= 1;
        if self.reads_per_bank[b] == 0 {
            self.reads_mask &= !(1u64 << b);
        }
        self.enqueue(r);
        true
    }

    /// Put `r` into its bank's command queue.
    fn enqueue(&mut self, r: Request) {
        let q = r.bank as usize;
        if self.banks[q].open == Some(r.row) {
            self.open_hits[q][r.write as usize] += 1;
        }
        self.queues[q].push(r);
        self.nonempty |= 1u64 << q;
        if self.queues[q].len() == self.t.command_queue {
            self.queues_with_room -= 1;
            self.full |= 1u64 << q;
        }
        self.queued_commands += 1;
        self.queued_writes += r.write as usize;
        self.next_cache[q] = 0;
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
            let faw = self.faw_ready();
            let mut m = self.nonempty;
            while m != 0 {
                let q = m.trailing_zeros() as usize;
                m &= m - 1;
                let v = self.next_cache[q];
                next = next.min(if self.banks[q].open.is_none() { v.max(faw) } else { v });
            }
        }
        next.max(self.clk)
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
