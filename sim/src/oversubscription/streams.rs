//! The trace replayed as a GPU runs a kernel (**decision**,
//! `docs/oversubscription.md`): the trace is cut into `um.thread_blocks`
//! equal, contiguous thread blocks, handed in order to `um.sms` SMs. An SM
//! runs its block's accesses in order with at most the GPU's requests in
//! flight (`SimConfig::requests_in_flight`) / `um.sms` requests in flight; an access whose page is not resident
//! waits for it, and the SM waits with it. Throttling lowers the number of
//! SMs that run; a stopped SM's block resumes first when one is freed.
//! L2 hits take no time, as in [`crate::memory_system::run`].

use std::collections::VecDeque;

use super::throttle::{Adjust, Throttle};
use super::unified_memory::{Touch, UnifiedMemory};
use crate::l2_cache::MemRequest;
use crate::memory_system::{Session, SimError};
use crate::trace::Access;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Waiting,
    Running,
    /// Throttled off its SM mid-way.
    Paused,
    Done,
}

#[derive(Debug, Clone)]
struct Block {
    next: usize,
    end: usize,
    in_flight: usize,
    /// Requests of its last access not yet issued (the SM's window was full).
    pending: VecDeque<MemRequest>,
    /// Not before this ps (its page is on the way).
    blocked_until: u64,
    /// Pages the next access waited for: it goes ahead on them when they
    /// arrive, even if evicted since (the driver replays the faulting
    /// access; without this two SMs could evict each other's page forever).
    granted: Vec<usize>,
    state: State,
}

/// The paging side of a replay.
pub(crate) struct Paging<'p> {
    pub um: &'p mut UnifiedMemory,
    /// The pages of an access's first and last byte.
    pub pages_of: &'p dyn Fn(&Access) -> (usize, usize),
    pub throttle: Option<&'p mut Throttle>,
}

/// Replay `accesses` into `session`; returns when the last block has
/// issued its last request, ps (its last page had arrived). The requests
/// still in flight are the caller's to drain ([`Session::finish`]).
///
/// # Errors
/// What the memory system reports, or a replay that cannot go on.
pub(crate) fn replay(
    session: &mut Session,
    accesses: &[Access],
    sms: usize,
    thread_blocks: usize,
    per_sm: usize,
    mut paging: Option<Paging>,
) -> Result<u64, SimError> {
    let n = accesses.len();
    let mut blocks: Vec<Block> = (0..thread_blocks)
        .map(|b| Block {
            next: n * b / thread_blocks,
            end: n * (b + 1) / thread_blocks,
            in_flight: 0,
            pending: VecDeque::new(),
            blocked_until: 0,
            granted: Vec::new(),
            state: State::Waiting,
        })
        .collect();
    let mut finished_at = 0u64;
    loop {
        let now = session.now();
        if let Some(t) = paging.as_mut().and_then(|p| p.throttle.as_deref_mut()) {
            t.tick(now);
        }
        let allowed = paging.as_ref().and_then(|p| p.throttle.as_deref()).map_or(sms, |t| t.active().min(sms));
        fill(&mut blocks, allowed);

        // Every running block issues what it can now, one access per block
        // per round. As in the in-order replay, an access goes through the
        // L2 as soon as the previous one's requests have all issued.
        loop {
            let mut issued = false;
            for (b, blk) in blocks.iter_mut().enumerate() {
                if blk.state != State::Running || blk.blocked_until > now {
                    continue;
                }
                if blk.pending.is_empty() && blk.next < blk.end {
                    let a = &accesses[blk.next];
                    if let Some(p) = paging.as_mut() {
                        let before = p.um.stats().evictions;
                        let (first, last) = (p.pages_of)(a);
                        let mut wait = None;
                        let pages = [first, last];
                        for &page in &pages[..1 + (last != first) as usize] {
                            if blk.granted.contains(&page) {
                                continue;
                            }
                            if let Touch::Wait { ready, fault, .. } = p.um.touch(page, now) {
                                blk.granted.push(page);
                                wait = Some((ready, fault));
                                break;
                            }
                        }
                        if let Some((ready, fault)) = wait {
                            blk.blocked_until = ready;
                            if let Some(t) = p.throttle.as_deref_mut() {
                                let evicted = p.um.stats().evictions > before;
                                if evicted {
                                    t.evicted();
                                }
                                if fault && t.fault(now, evicted) == Adjust::ThrottleFaulting {
                                    blk.state = State::Paused;
                                }
                            }
                            continue;
                        }
                    }
                    blk.next += 1;
                    blk.granted.clear();
                    blk.pending.extend(session.access(a));
                    issued = true;
                }
                while blk.in_flight < per_sm {
                    let Some(r) = blk.pending.pop_front() else { break };
                    session.issue_at(r, now, b)?;
                    blk.in_flight += 1;
                    issued = true;
                }
            }
            if !issued {
                break;
            }
        }

        let mut freed = false;
        let queued = blocks.iter().any(|b| matches!(b.state, State::Waiting | State::Paused));
        for blk in &mut blocks {
            // A block frees its SM when its last request is done; once no
            // block waits for an SM, when its last request has issued (the
            // final drain, after the L2's write-back, waits for the rest).
            if blk.state == State::Running && blk.next == blk.end && blk.pending.is_empty() && (blk.in_flight == 0 || !queued) {
                blk.state = State::Done;
                finished_at = finished_at.max(now);
                freed = true;
            }
        }
        if blocks.iter().all(|b| b.state == State::Done) {
            return Ok(finished_at);
        }
        if freed && blocks.iter().any(|b| matches!(b.state, State::Waiting | State::Paused)) {
            continue;
        }

        // Run memory to the next completion, page arrival or epoch end.
        let arrival = blocks.iter().filter(|b| b.state == State::Running && b.blocked_until > now).map(|b| b.blocked_until).min();
        let deadline = paging.as_ref().and_then(|p| p.throttle.as_deref()).map(|t| t.deadline());
        let limit = arrival.into_iter().chain(deadline).min().unwrap_or(u64::MAX);
        if session.in_flight() == 0 && limit == u64::MAX {
            return Err(SimError::Config("the replay stopped with thread blocks unfinished and nothing to wait for".into()));
        }
        for tag in session.wait(limit)? {
            blocks[tag].in_flight -= 1;
        }
    }
}

/// Run `once` (one replay of the trace) `iterations` times. Between two
/// iterations every request in flight completes first (a barrier: an
/// iterative program's next step starts when the previous one is done,
/// **decision**), and the time it did is pushed onto `ends`, ns. Returns
/// the last replay's result.
///
/// # Errors
/// What `once` or the memory system reports.
pub(crate) fn iterate(
    session: &mut Session,
    iterations: u32,
    ends: &mut Vec<f64>,
    mut once: impl FnMut(&mut Session) -> Result<u64, SimError>,
) -> Result<u64, SimError> {
    let mut finished = 0;
    for k in 0..iterations {
        if k > 0 {
            while session.in_flight() > 0 {
                session.wait(u64::MAX)?;
            }
            ends.push(session.now() as f64 / 1000.0);
        }
        finished = once(session)?;
    }
    Ok(finished)
}

/// Put blocks on free SMs: stopped ones first, then new ones, in order.
fn fill(blocks: &mut [Block], allowed: usize) {
    let mut running = blocks.iter().filter(|b| b.state == State::Running).count();
    for wanted in [State::Paused, State::Waiting] {
        for blk in blocks.iter_mut().filter(|b| b.state == wanted) {
            if running >= allowed {
                return;
            }
            blk.state = State::Running;
            running += 1;
        }
    }
}
