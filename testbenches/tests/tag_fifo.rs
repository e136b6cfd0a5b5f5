//! TagFifo hardware == its cycle model (`buddy_hdl_model::tag_fifo`),
//! cycle by cycle, under random pushes and pops: the head, its mark and
//! the `empty`/`full` flip-flops, with the queue driven full and empty
//! again many times.

use buddy_delivery::harness::Harness;
use buddy_delivery::stream::proptest_cases;
use buddy_hdl::tag_fifo::TagFifo;
use buddy_hdl_model::tag_fifo::{hardware_out, TagFifoIn, TagFifoModel};
use buddy_hdl_model::CycleModel;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Run `cycles` cycles; returns (times full, times empty after a pop).
fn run(seed: u64, cycles: usize, p_push: f64, p_pop: f64) -> Result<(usize, usize), String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut hw = TagFifo::default();
    let mut dut = Harness::new(&mut hw, None);
    dut.reset(1);
    let mut model = TagFifoModel::default();
    let (mut fulls, mut drains) = (0, 0);
    for cycle in 0..cycles {
        let (push, pop) = (rng.gen_bool(p_push), rng.gen_bool(p_pop));
        let (id, mark) = (rng.gen_range(0..128u64), rng.gen_bool(0.5));
        let i = TagFifoIn { reset: false, push, push_id: id as u8, push_mark: mark, pop };
        dut.push.next = push;
        dut.push_id.next = id.into();
        dut.push_mark.next = mark;
        dut.pop.next = pop;
        dut.settle();
        let (want, got) = (model.outputs(&i), hardware_out(&dut));
        if got != want {
            return Err(format!("cycle {cycle}: hardware {got:?}, model {want:?} (holding {})", model.len()));
        }
        fulls += usize::from(want.full);
        model.clock(&i);
        drains += usize::from(pop && want.head.is_some() && model.is_empty());
        dut.cycle();
    }
    Ok((fulls, drains))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(40)))]

    #[test]
    fn tag_fifo_equals_the_model(seed in any::<u64>(), p_push in 0.0f64..=1.0, p_pop in 0.0f64..=1.0) {
        run(seed, 2_000, p_push, p_pop).map_err(TestCaseError::fail)?;
    }
}

/// Pushes and pops at nearly equal rates walk the fill level across its
/// whole range: the queue is full and drained many times in one run.
#[test]
fn tag_fifo_fills_and_drains() {
    let (fulls, drains) = run(3, 20_000, 0.5, 0.5).unwrap();
    assert!(fulls > 10 && drains > 10, "full {fulls} cycles, drained {drains} times");
}
