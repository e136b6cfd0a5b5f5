//! A bound on the requests one slice's controller holds at once
//! (`system.slice_in_flight`): a request waits for a free slot before its
//! timing starts; a finished request hands its slot to the oldest waiting
//! one of its slice. The paper's model has no bound; the bound tells how
//! many request contexts a pipelined slice needs to come close to it.

use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use crate::memory_system::event_queue::QueueState;

/// Per slice: slots held and tasks waiting, in request order.
#[derive(Debug)]
pub struct SliceSlots {
    capacity: usize,
    held: RefCell<Vec<usize>>,
    waiting: RefCell<Vec<VecDeque<usize>>>,
    /// Waiting tasks that have been handed a slot.
    granted: RefCell<HashSet<usize>>,
}

impl SliceSlots {
    /// `capacity` slots (at least 1) for each of `slices` slices.
    pub fn new(slices: usize, capacity: usize) -> Rc<Self> {
        Rc::new(SliceSlots {
            capacity: capacity.max(1),
            held: RefCell::new(vec![0; slices]),
            waiting: RefCell::new(vec![VecDeque::new(); slices]),
            granted: RefCell::new(HashSet::new()),
        })
    }

    /// Wait for a slot of `slice` (called by the request's task).
    pub fn acquire(self: &Rc<Self>, sh: &Rc<QueueState>, slice: u64) -> Acquire {
        Acquire { slots: self.clone(), shared: sh.clone(), slice: slice as usize, queued: false }
    }

    /// Give back a slot of `slice`: to its oldest waiting task, if any.
    pub fn release(&self, sh: &QueueState, slice: u64) {
        let s = slice as usize;
        match self.waiting.borrow_mut()[s].pop_front() {
            Some(task) => {
                self.granted.borrow_mut().insert(task);
                sh.wake(task);
            }
            None => self.held.borrow_mut()[s] -= 1,
        }
    }
}

/// Future of [`SliceSlots::acquire`].
pub struct Acquire {
    slots: Rc<SliceSlots>,
    shared: Rc<QueueState>,
    slice: usize,
    queued: bool,
}

impl Future for Acquire {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        let task = self.shared.current();
        if self.queued {
            return if self.slots.granted.borrow_mut().remove(&task) { Poll::Ready(()) } else { Poll::Pending };
        }
        let mut held = self.slots.held.borrow_mut();
        // Nobody may pass the queue: a free slot goes to the waiting first.
        if held[self.slice] < self.slots.capacity && self.slots.waiting.borrow()[self.slice].is_empty() {
            held[self.slice] += 1;
            return Poll::Ready(());
        }
        drop(held);
        let slice = self.slice;
        self.slots.waiting.borrow_mut()[slice].push_back(task);
        self.queued = true;
        Poll::Pending
    }
}
