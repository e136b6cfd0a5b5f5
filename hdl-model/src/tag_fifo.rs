//! [`buddy_hdl::tag_fifo::TagFifo`]: a queue of up to
//! [`TAG_FIFO_DEPTH`] context ids, each with a one-bit mark; `head`,
//! `empty` and `full` show the queue as the last clock edge left it.

use std::collections::VecDeque;

use buddy_hdl::tag_fifo::TagFifo;
use buddy_hdl::tag_fifo::TAG_FIFO_DEPTH;

use crate::CycleModel;

#[derive(Debug, Clone, Default)]
pub struct TagFifoIn {
    pub reset: bool,
    pub push: bool,
    pub push_id: u8,
    pub push_mark: bool,
    pub pop: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagFifoOut {
    /// `(head, head_mark)`, `None` when `empty`.
    pub head: Option<(u8, bool)>,
    pub full: bool,
}

/// The ids held, oldest first.
#[derive(Debug, Clone, Default)]
pub struct TagFifoModel {
    held: VecDeque<(u8, bool)>,
}

impl TagFifoModel {
    pub fn len(&self) -> usize {
        self.held.len()
    }
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }
}

impl CycleModel for TagFifoModel {
    type In = TagFifoIn;
    type Out = TagFifoOut;
    fn outputs(&self, _: &TagFifoIn) -> TagFifoOut {
        TagFifoOut { head: self.held.front().copied(), full: self.held.len() == TAG_FIFO_DEPTH }
    }
    fn clock(&mut self, i: &TagFifoIn) {
        if i.reset {
            self.held.clear();
            return;
        }
        let full = self.held.len() == TAG_FIFO_DEPTH;
        if i.pop {
            self.held.pop_front();
        }
        if i.push && !full {
            self.held.push_back((i.push_id, i.push_mark));
        }
    }
}

/// What the block's output ports show, settled, as the model's `Out`.
pub fn hardware_out(h: &TagFifo) -> TagFifoOut {
    TagFifoOut { head: (!h.empty.val()).then(|| (h.head.val().to_u64() as u8, h.head_mark.val())), full: h.full.val() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lockstep::{edge, settle};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rust_hdl::prelude::*;

    #[test]
    fn the_model_equals_the_hardware_every_cycle() {
        for seed in 0..4u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut hw = TagFifo::default();
            hw.connect_all();
            let mut model = TagFifoModel::default();
            let (p_push, p_pop) = [(0.5, 0.5), (0.8, 0.3), (0.3, 0.8), (0.9, 0.9)][seed as usize];
            let (mut fulls, mut pops) = (0, 0);
            for cycle in 0..3_000 {
                let i = TagFifoIn {
                    reset: cycle < 2 || rng.gen_bool(0.002),
                    push: rng.gen_bool(p_push),
                    push_id: rng.gen_range(0..128),
                    push_mark: rng.gen(),
                    pop: rng.gen_bool(p_pop),
                };
                hw.reset.next = i.reset;
                hw.push.next = i.push;
                hw.push_id.next = (i.push_id as u64).into();
                hw.push_mark.next = i.push_mark;
                hw.pop.next = i.pop;
                settle(&mut hw);
                let want = hardware_out(&hw);
                assert_eq!(model.outputs(&i), want, "seed {seed}, cycle {cycle}");
                fulls += want.full as usize;
                pops += (i.pop && want.head.is_some()) as usize;
                model.clock(&i);
                edge(&mut hw, |h| &mut h.clock);
            }
            assert!(pops > 500, "seed {seed}: {pops} pops");
            // The seeds that push faster than they pop fill the queue.
            assert!(p_push <= p_pop || fulls > 0, "seed {seed}: never full");
        }
    }
}
