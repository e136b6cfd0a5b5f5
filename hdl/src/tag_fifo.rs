//! A first-in first-out queue of request tags (context ids) in registers:
//! how the pipelined slice knows whose result leaves an in-order pipeline
//! that carries no tags (the address translator, the codecs).

use crate::request_contexts::CONTEXT_BITS;
use rust_hdl::prelude::*;

/// Entries of a [`TagFifo`]: more than any in-order pipeline of the slice
/// holds (the BPC decompressor, the deepest, holds 8).
pub const TAG_FIFO_DEPTH: usize = 16;

/// Holds up to [`TAG_FIFO_DEPTH`] context ids in the order pushed.
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (empty) |
/// | `push`, `push_id` | 1, 7 | in | append `push_id` (ignored when `full`) |
/// | `pop` | 1 | in | drop the head (ignored when `empty`) |
/// | `head` | 7 | out | the oldest id (valid when not `empty`) |
/// | `empty`, `full` | 1, 1 | out | no id held; `TAG_FIFO_DEPTH` ids held |
///
/// A push is seen on `head` the cycle after; a push and a pop may come in
/// the same cycle.
#[derive(LogicBlock, Default)]
pub struct TagFifo {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub pop: Signal<In, Bit>,
    pub head: Signal<Out, Bits<CONTEXT_BITS>>,
    pub empty: Signal<Out, Bit>,
    pub full: Signal<Out, Bit>,
    slots: [DFF<Bits<CONTEXT_BITS>>; TAG_FIFO_DEPTH],
    /// Read and write positions, with a wrap bit.
    rd: DFF<Bits<5>>,
    wr: DFF<Bits<5>>,
    do_push: Signal<Local, Bit>,
    do_pop: Signal<Local, Bit>,
}

impl Logic for TagFifo {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd, wr);
        self.empty.next = self.rd.q.val() == self.wr.q.val();
        self.full.next = (bit_cast::<4, 5>(self.rd.q.val()) == bit_cast::<4, 5>(self.wr.q.val()))
            & (self.rd.q.val().get_bit(4) != self.wr.q.val().get_bit(4));
        self.do_push.next = self.push.val() & !self.full.val();
        self.do_pop.next = self.pop.val() & !self.empty.val();
        self.head.next = self.slots[0].q.val();
        for i in 0..TAG_FIFO_DEPTH {
            self.slots[i].clock.next = self.clock.val();
            self.slots[i].d.next = self.slots[i].q.val();
            if bit_cast::<4, 5>(self.rd.q.val()).index() == i {
                self.head.next = self.slots[i].q.val();
            }
            if self.do_push.val() & (bit_cast::<4, 5>(self.wr.q.val()).index() == i) {
                self.slots[i].d.next = self.push_id.val();
            }
        }
        if self.do_push.val() {
            self.wr.d.next = self.wr.q.val() + 1;
        }
        if self.do_pop.val() {
            self.rd.d.next = self.rd.q.val() + 1;
        }
        if self.reset.val() {
            self.rd.d.next = 0.into();
            self.wr.d.next = 0.into();
        }
    }
}
