//! The memory system's event queue (simulated time): a small single-threaded executor
//! whose tasks are the requests in flight, written as `async` code that
//! waits for DRAM bursts, link transfers and fixed latencies, and the
//! devices they share (the HBM2 channels and the NVLink buddy link).
//!
//! Each request's values are computed when it issues (the golden models, or
//! the hardware in RTL mode as it runs); the task then only models time.
//! Time is in picoseconds; the HBM2 channels move in DRAM cycles. The loop
//! polls every task that can run at the current time, hands the bursts they
//! started to the channels, and moves time to the next event: a task's
//! wake-up or a channel's next command. Tasks run in the order they were
//! started, so a run is deterministic.

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use super::hbm::Hbm;
use super::id_map::IdMap;
use super::nvlink::Nvlink;
use super::time::{cycle_start_ps, first_cycle_at};

/// The event queue's state every task holds: the time, the timers, the
/// bursts in flight, and the devices (the HBM2 channels and the NVLink link).
pub struct QueueState {
    now: Cell<u64>,
    cycle_ps: f64,
    pub hbm: RefCell<Hbm>,
    pub link: RefCell<Nvlink>,
    /// (wake-up ps, task)
    timers: RefCell<BinaryHeap<Reverse<(u64, usize)>>>,
    /// Finished bursts: ticket -> done ps; the task waiting for each; the
    /// bursts nobody waits for (writes whose end does not matter).
    tickets_done: RefCell<IdMap<u64>>,
    ticket_waiters: RefCell<IdMap<usize>>,
    detached: RefCell<IdMap<()>>,
    ready: RefCell<BTreeSet<usize>>,
    current: Cell<usize>,
    /// Bursts started, for ordering bursts of one cycle.
    started: Cell<u64>,
    /// Tasks finished so far.
    finished_tasks: Cell<u64>,
}

/// The executor and the shared devices.
pub struct EventQueue {
    pub shared: Rc<QueueState>,
    tasks: Vec<Option<Pin<Box<dyn Future<Output = ()>>>>>,
    live: usize,
    finished: Vec<(u64, u64)>,
}

impl QueueState {
    /// Current time, ps.
    pub fn now(&self) -> u64 {
        self.now.get()
    }

    /// Tasks finished so far, plus the requests that long-running tasks
    /// (the pipelined RTL slices) reported finished with
    /// [`QueueState::note_finished`]: what the trace driver waits on when it
    /// may issue once an earlier request has completed.
    pub fn finished_tasks(&self) -> u64 {
        self.finished_tasks.get()
    }

    /// A request served inside a task that goes on has finished.
    pub fn note_finished(&self) {
        self.finished_tasks.set(self.finished_tasks.get() + 1);
    }

    /// The task being polled.
    pub fn current(&self) -> usize {
        self.current.get()
    }

    /// Let `task` run at the current time.
    pub fn wake(&self, task: usize) {
        self.ready.borrow_mut().insert(task);
    }

    /// The done time of burst `ticket` once its last sector is scheduled
    /// (it may lie ahead), without waiting; `forget` drops the record.
    pub fn burst_done(&self, ticket: u64, forget: bool) -> Option<u64> {
        if forget {
            self.tickets_done.borrow_mut().remove(&ticket)
        } else {
            self.tickets_done.borrow().get(&ticket).copied()
        }
    }

    /// Start of DRAM cycle `c`, ps.
    pub fn ps(&self, c: u64) -> u64 {
        cycle_start_ps(c, self.cycle_ps)
    }

    /// First DRAM cycle starting at or after `ps`.
    pub fn cycle_at(&self, ps: u64) -> u64 {
        first_cycle_at(ps, self.cycle_ps)
    }

    /// Wait until `t` ps (no wait when `t` has come).
    pub fn until(self: &Rc<Self>, t: u64) -> Until {
        Until { shared: self.clone(), t, armed: false }
    }

    /// Start a burst of `count` sectors at `address` of slice `slice` now
    /// (it reaches its channel at the first cycle from now); `key` orders
    /// bursts that start in the same cycle. Returns its ticket.
    pub fn start_burst(&self, slice: u64, address: u64, count: u64, write: bool, key: u64) -> u64 {
        let n = self.started.get();
        self.started.set(n + 1);
        let cycle = self.cycle_at(self.now());
        self.hbm.borrow_mut().submit(slice, address, count, write, cycle, (key, n))
    }

    /// Start a burst nobody waits for.
    pub fn start_detached(&self, slice: u64, address: u64, count: u64, write: bool, key: u64) {
        if count > 0 {
            let t = self.start_burst(slice, address, count, write, key);
            self.detached.borrow_mut().insert(t, ());
        }
    }

    /// Wait for the burst `ticket`; gives its done time, ps.
    pub fn burst(self: &Rc<Self>, ticket: u64) -> Burst {
        Burst { shared: self.clone(), ticket, at: None, keep: false }
    }

    /// As [`QueueState::burst`], keeping the done time for
    /// [`QueueState::burst_done`] (which must then forget it).
    pub fn burst_keep(self: &Rc<Self>, ticket: u64) -> Burst {
        Burst { shared: self.clone(), ticket, at: None, keep: true }
    }

    /// Wait for every burst of `tickets`; gives the latest done time, and
    /// `from` at least (ps).
    pub async fn all_bursts(self: &Rc<Self>, tickets: Vec<u64>, from: u64) -> u64 {
        let mut done = from;
        for t in tickets {
            done = done.max(self.burst(t).await);
        }
        done
    }

    /// A link packet of `bytes` data bytes sent now; its arrival time, ps
    /// (the link serves packets first come, first served).
    pub fn link_transfer(&self, bytes: u64, write: bool) -> u64 {
        self.link.borrow_mut().transfer(bytes, write, self.now())
    }

    /// `bytes` more of the packet last sent in that direction, sent now
    /// (see [`Nvlink::continue_packet`]); their arrival time, ps.
    pub fn link_continue(&self, bytes: u64, write: bool) -> u64 {
        self.link.borrow_mut().continue_packet(bytes, write, self.now())
    }
}

/// Future of [`QueueState::until`].
pub struct Until {
    shared: Rc<QueueState>,
    t: u64,
    armed: bool,
}

impl Future for Until {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.shared.now() >= self.t {
            return Poll::Ready(());
        }
        if !self.armed {
            self.armed = true;
            let task = self.shared.current.get();
            self.shared.timers.borrow_mut().push(Reverse((self.t, task)));
        }
        Poll::Pending
    }
}

/// Future of [`QueueState::burst`].
pub struct Burst {
    shared: Rc<QueueState>,
    ticket: u64,
    at: Option<u64>,
    keep: bool,
}

impl Future for Burst {
    type Output = u64;
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<u64> {
        let s = self.shared.clone();
        if self.at.is_none() {
            let known = if self.keep {
                s.tickets_done.borrow().get(&self.ticket).copied()
            } else {
                s.tickets_done.borrow_mut().remove(&self.ticket)
            };
            if let Some(done) = known {
                self.at = Some(done);
                if s.now() < done {
                    s.timers.borrow_mut().push(Reverse((done, s.current.get())));
                }
            } else {
                s.ticket_waiters.borrow_mut().insert(self.ticket, s.current.get());
                return Poll::Pending;
            }
        }
        let at = self.at.expect("set above");
        if s.now() >= at {
            Poll::Ready(at)
        } else {
            Poll::Pending
        }
    }
}

/// The loop found tasks waiting with nothing left to happen (a bug).
#[derive(Debug)]
pub struct Stalled {
    pub waiting: usize,
    pub at_ps: u64,
    /// The busy HBM2 channels' queues and banks.
    pub channels: String,
}

impl EventQueue {
    /// A world at time 0 with `hbm` and `link` idle.
    pub fn new(hbm: Hbm, link: Nvlink, cycle_ps: f64) -> Self {
        EventQueue {
            shared: Rc::new(QueueState {
                now: Cell::new(0),
                cycle_ps,
                hbm: RefCell::new(hbm),
                link: RefCell::new(link),
                timers: RefCell::new(BinaryHeap::new()),
                tickets_done: RefCell::new(IdMap::default()),
                ticket_waiters: RefCell::new(IdMap::default()),
                detached: RefCell::new(IdMap::default()),
                ready: RefCell::new(BTreeSet::new()),
                current: Cell::new(0),
                started: Cell::new(0),
                finished_tasks: Cell::new(0),
            }),
            tasks: Vec::new(),
            live: 0,
            finished: Vec::new(),
        }
    }

    /// Current time, ps.
    pub fn now(&self) -> u64 {
        self.shared.now()
    }

    /// Start `task` now; it first runs at the next [`EventQueue::run_until`].
    pub fn spawn(&mut self, task: impl Future<Output = ()> + 'static) -> usize {
        let id = self.tasks.len();
        self.tasks.push(Some(Box::pin(task)));
        self.live += 1;
        self.shared.ready.borrow_mut().insert(id);
        id
    }

    /// Tasks not finished.
    pub fn live(&self) -> usize {
        self.live
    }

    /// Run until every task has finished and every burst is done.
    ///
    /// # Errors
    /// As [`EventQueue::run_until`].
    pub fn finish(&mut self) -> Result<(), Stalled> {
        // Without a stop condition the loop returns only when nothing is left.
        self.run_until(u64::MAX, || false)
    }

    /// Poll every task that can run now, until none can.
    fn poll_ready(&mut self) {
        let waker = Waker::noop();
        let mut cx = Context::from_waker(waker);
        loop {
            let next = self.shared.ready.borrow_mut().pop_first();
            let Some(id) = next else { break };
            let Some(task) = self.tasks[id].as_mut() else { continue };
            self.shared.current.set(id);
            if task.as_mut().poll(&mut cx).is_ready() {
                self.tasks[id] = None;
                self.live -= 1;
                self.shared.finished_tasks.set(self.shared.finished_tasks.get() + 1);
            }
        }
    }

    /// Run until `done()` holds after the tasks have run at the current
    /// time, or until time would pass `limit` ps (then now = `limit`).
    ///
    /// # Errors
    /// [`Stalled`]: tasks wait and nothing is left to happen.
    pub fn run_until(&mut self, limit: u64, mut done: impl FnMut() -> bool) -> Result<(), Stalled> {
        loop {
            self.poll_ready();
            if done() {
                return Ok(());
            }
            // Hand this instant's bursts to the channels and simulate every
            // cycle that has started.
            let now = self.now();
            let s = self.shared.clone();
            // The last cycle that has started (a burst started now reaches
            // its channel at the first cycle starting at or after now).
            let started_cycle = s.cycle_at(now + 1) - 1;
            {
                let mut hbm = s.hbm.borrow_mut();
                if hbm.busy() {
                    hbm.advance_through(started_cycle, &mut self.finished);
                }
            }
            for (ticket, cycle) in self.finished.drain(..) {
                if s.detached.borrow_mut().remove(&ticket).is_some() {
                    continue;
                }
                let at = s.ps(cycle);
                s.tickets_done.borrow_mut().insert(ticket, at);
                if let Some(task) = s.ticket_waiters.borrow_mut().remove(&ticket) {
                    s.ready.borrow_mut().insert(task);
                }
            }
            if !s.ready.borrow().is_empty() {
                continue;
            }
            let timer = s.timers.borrow().peek().map(|r| r.0 .0);
            let dram = s.hbm.borrow().next_activity().map(|c| s.ps(c.max(started_cycle + 1)));
            let next = match (timer, dram) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => match a.or(b) {
                    Some(t) => t,
                    None if self.live == 0 => return Ok(()),
                    None => return Err(Stalled { waiting: self.live, at_ps: now, channels: s.hbm.borrow().describe() }),
                },
            };
            if next > limit {
                s.now.set(limit.max(now));
                return Ok(());
            }
            s.now.set(next.max(now));
            let mut timers = s.timers.borrow_mut();
            while let Some(Reverse((t, task))) = timers.peek().copied() {
                if t > s.now() {
                    break;
                }
                timers.pop();
                s.ready.borrow_mut().insert(task);
            }
        }
    }

    /// Move time to `t` ps, running everything that happens before `t`
    /// (what happens at `t` runs at the next call, after the caller has
    /// started its tasks at `t`).
    ///
    /// # Errors
    /// As [`EventQueue::run_until`].
    pub fn advance_to(&mut self, t: u64) -> Result<(), Stalled> {
        if t > self.now() {
            self.run_until(t - 1, || false)?;
            self.shared.now.set(t);
        }
        Ok(())
    }
}
