//! A first-in first-out queue of request tags (context ids) in registers:
//! how the pipelined slice knows whose result leaves an in-order pipeline
//! that carries no tags (the address translator, the codecs).

use crate::request_contexts::CONTEXT_BITS;
use rust_hdl::prelude::*;

/// Entries of a [`TagFifo`]. The translator and the ZVC and MAG-BDI codecs
/// hold fewer; the BPC codecs built [`crate::Stages::EightLevels`] hold
/// more (their latency, 10 and 37, and 2 in the output slice), so the
/// slice keeps at most 16 entries in each and the BPC decompressor takes
/// 16 entries per 39 cycles at most, not one a cycle. **Not yet**
/// deepened: 64 entries measured 15+5m LUT levels in the ZVC slice (9+12m
/// with 16), through the wider `full` and `empty` compares.
pub const TAG_FIFO_DEPTH: usize = 16;

/// Holds up to [`TAG_FIFO_DEPTH`] context ids, each with a one-bit mark,
/// in the order pushed.
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (empty) |
/// | `push`, `push_id`, `push_mark` | 1, 7, 1 | in | append `push_id` with `push_mark` (ignored when `full`) |
/// | `pop` | 1 | in | drop the head (ignored when `empty`) |
/// | `head`, `head_mark` | 7, 1 | out | the oldest id and its mark (valid when not `empty`), flip-flops |
/// | `empty`, `full` | 1, 1 | out | no id held; `TAG_FIFO_DEPTH` ids held |
///
/// A push is seen on `head` the cycle after; a push and a pop may come in
/// the same cycle. The head is a register of its own, loaded with the
/// next oldest id as the head is popped, so a consumer's logic on `head`
/// starts at a flip-flop rather than after a 16-way selection.
#[derive(LogicBlock, Default)]
pub struct TagFifo {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub push_mark: Signal<In, Bit>,
    pub pop: Signal<In, Bit>,
    pub head: Signal<Out, Bits<CONTEXT_BITS>>,
    pub head_mark: Signal<Out, Bit>,
    pub empty: Signal<Out, Bit>,
    pub full: Signal<Out, Bit>,
    slots: [DFF<Bits<CONTEXT_BITS>>; TAG_FIFO_DEPTH],
    marks: [DFF<Bit>; TAG_FIFO_DEPTH],
    /// Read and write positions, with a wrap bit.
    rd: DFF<Bits<5>>,
    wr: DFF<Bits<5>>,
    /// The oldest id and mark (`slots[rd]` whenever not empty).
    h_id: DFF<Bits<CONTEXT_BITS>>,
    h_mark: DFF<Bit>,
    do_push: Signal<Local, Bit>,
    do_pop: Signal<Local, Bit>,
    /// `rd + 1`: where the head moves on a pop.
    rd_ahead: Signal<Local, Bits<5>>,
    ahead_id: Signal<Local, Bits<CONTEXT_BITS>>,
    ahead_mark: Signal<Local, Bit>,
}

impl Logic for TagFifo {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd, wr, h_id, h_mark);
        self.empty.next = self.rd.q.val() == self.wr.q.val();
        self.full.next = (bit_cast::<4, 5>(self.rd.q.val()) == bit_cast::<4, 5>(self.wr.q.val()))
            & (self.rd.q.val().get_bit(4) != self.wr.q.val().get_bit(4));
        self.do_push.next = self.push.val() & !self.full.val();
        self.do_pop.next = self.pop.val() & !self.empty.val();
        self.head.next = self.h_id.q.val();
        self.head_mark.next = self.h_mark.q.val();
        self.rd_ahead.next = self.rd.q.val() + 1;
        self.ahead_id.next = self.slots[0].q.val();
        self.ahead_mark.next = self.marks[0].q.val();
        for i in 0..TAG_FIFO_DEPTH {
            self.slots[i].clock.next = self.clock.val();
            self.slots[i].d.next = self.slots[i].q.val();
            self.marks[i].clock.next = self.clock.val();
            self.marks[i].d.next = self.marks[i].q.val();
            if bit_cast::<4, 5>(self.rd_ahead.val()).index() == i {
                self.ahead_id.next = self.slots[i].q.val();
                self.ahead_mark.next = self.marks[i].q.val();
            }
            if self.do_push.val() & (bit_cast::<4, 5>(self.wr.q.val()).index() == i) {
                self.slots[i].d.next = self.push_id.val();
                self.marks[i].d.next = self.push_mark.val();
            }
        }
        // The id pushed now becomes the head at once when it is the next
        // oldest: into an empty queue, or behind a head popped now.
        if self.do_push.val() & (self.wr.q.val() == self.rd_ahead.val()) {
            self.ahead_id.next = self.push_id.val();
            self.ahead_mark.next = self.push_mark.val();
        }
        if self.do_pop.val() {
            self.h_id.d.next = self.ahead_id.val();
            self.h_mark.d.next = self.ahead_mark.val();
        }
        if self.do_push.val() & self.empty.val() {
            self.h_id.d.next = self.push_id.val();
            self.h_mark.d.next = self.push_mark.val();
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
