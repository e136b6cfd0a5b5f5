//! A first-in first-out queue of request tags (context ids) in registers:
//! how the pipelined slice knows whose result leaves an in-order pipeline
//! that carries no tags (the address translator, the codecs).

use crate::request_contexts::CONTEXT_BITS;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Entries of a [`TagFifo`]. The translator and the ZVC and MAG-BDI codecs
/// hold fewer; the BPC codecs built [`crate::Stages::EightLevels`] hold
/// more (their latency, 10 and 37, and 2 in the output slice), so the
/// slice keeps at most 16 entries in each and the BPC decompressor takes
/// 16 entries per 39 cycles at most, not one a cycle. **Not yet**
/// deepened (64 entries with `full` and `empty` compared from the
/// positions measured 15+5m LUT levels in the ZVC slice; the flags are now
/// flip-flops, a deeper queue has not been measured again).
pub const TAG_FIFO_DEPTH: usize = 16;

/// Holds up to [`TAG_FIFO_DEPTH`] context ids, each with a one-bit mark,
/// in the order pushed.
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (empty; required before first use, it sets the next head's position) |
/// | `push`, `push_id`, `push_mark` | 1, 7, 1 | in | append `push_id` with `push_mark` (ignored when `full`) |
/// | `pop` | 1 | in | drop the head (ignored when `empty`) |
/// | `head`, `head_mark` | 7, 1 | out | the oldest id and its mark (valid when not `empty`), flip-flops |
/// | `empty`, `full` | 1, 1 | out | no id held; `TAG_FIFO_DEPTH` ids held; flip-flops |
///
/// A push is seen on `head` the cycle after; a push and a pop may come in
/// the same cycle. The head is a register of its own, loaded with the
/// next oldest id as the head is popped, so a consumer's logic on `head`
/// starts at a flip-flop rather than after a 16-way selection. `empty`
/// and `full` are flip-flops too (set from the fill level and this
/// cycle's push and pop), so the handshakes that read them start at a
/// flip-flop rather than after a compare of the positions.
#[derive(SettleBlock)]
pub struct TagFifo {
    _settle: crate::settle::Settle,
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
    /// Not empty (0 after power-up and reset, as the positions), full.
    held: DFF<Bit>,
    full_q: DFF<Bit>,
    /// `TAG_FIFO_DEPTH - 1`.
    depth_less_one: Constant<Bits<5>>,
    /// Ids held (`wr - rd`) is `TAG_FIFO_DEPTH - 1` / is 1.
    count: Signal<Local, Bits<5>>,
    one_short: Signal<Local, Bit>,
    one_held: Signal<Local, Bit>,
    do_push: Signal<Local, Bit>,
    do_pop: Signal<Local, Bit>,
    /// `rd + 1`, where the head moves on a pop: a register of its own
    /// (set to 1 by reset), so the 16-way selection of the next head
    /// starts at a flip-flop rather than after an increment.
    rd_ahead: DFF<Bits<5>>,
    ahead_id: Signal<Local, Bits<CONTEXT_BITS>>,
    ahead_mark: Signal<Local, Bit>,
}

impl Default for TagFifo {
    fn default() -> Self {
        Self {
            _settle: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_id: Default::default(),
            push_mark: Default::default(),
            pop: Default::default(),
            head: Default::default(),
            head_mark: Default::default(),
            empty: Default::default(),
            full: Default::default(),
            slots: Default::default(),
            marks: Default::default(),
            rd: Default::default(),
            wr: Default::default(),
            h_id: Default::default(),
            h_mark: Default::default(),
            held: Default::default(),
            full_q: Default::default(),
            depth_less_one: Constant::new(bits::<5>(TAG_FIFO_DEPTH as u64 - 1)),
            count: Default::default(),
            one_short: Default::default(),
            one_held: Default::default(),
            do_push: Default::default(),
            do_pop: Default::default(),
            rd_ahead: Default::default(),
            ahead_id: Default::default(),
            ahead_mark: Default::default(),
        }
    }
}

impl Logic for TagFifo {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd, rd_ahead, wr, h_id, h_mark, held, full_q);
        self.empty.next = !self.held.q.val();
        self.full.next = self.full_q.q.val();
        self.count.next = self.wr.q.val() - self.rd.q.val();
        self.one_short.next = self.count.val() == self.depth_less_one.val();
        self.one_held.next = self.count.val() == 1;
        self.do_push.next = self.push.val() & !self.full.val();
        self.do_pop.next = self.pop.val() & !self.empty.val();
        self.head.next = self.h_id.q.val();
        self.head_mark.next = self.h_mark.q.val();
        self.ahead_id.next = self.slots[0].q.val();
        self.ahead_mark.next = self.marks[0].q.val();
        for i in 0..TAG_FIFO_DEPTH {
            self.slots[i].clock.next = self.clock.val();
            self.slots[i].d.next = self.slots[i].q.val();
            self.marks[i].clock.next = self.clock.val();
            self.marks[i].d.next = self.marks[i].q.val();
            if bit_cast::<4, 5>(self.rd_ahead.q.val()).index() == i {
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
        if self.do_push.val() & (self.wr.q.val() == self.rd_ahead.q.val()) {
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
        // The fill level changes only on a push without a pop (up) or a
        // pop without a push (down).
        if self.do_push.val() & !self.do_pop.val() {
            self.held.d.next = true;
            self.full_q.d.next = self.one_short.val();
        }
        if self.do_pop.val() & !self.do_push.val() {
            self.held.d.next = !self.one_held.val();
            self.full_q.d.next = false;
        }
        if self.do_push.val() {
            self.wr.d.next = self.wr.q.val() + 1;
        }
        if self.do_pop.val() {
            self.rd.d.next = self.rd_ahead.q.val();
            self.rd_ahead.d.next = self.rd_ahead.q.val() + 1;
        }
        if self.reset.val() {
            self.rd.d.next = 0.into();
            self.wr.d.next = 0.into();
            self.rd_ahead.d.next = 1.into();
            self.held.d.next = false;
            self.full_q.d.next = false;
        }
    }
}
