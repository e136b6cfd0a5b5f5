//! TagFifo hardware == a `VecDeque` model, cycle by cycle, under random
//! pushes and pops: the head, its mark and the `empty`/`full` flip-flops,
//! with the queue driven full and empty again many times.

use buddy_delivery::stream::{proptest_cases, settle};
use buddy_hdl::tag_fifo::{TagFifo, TAG_FIFO_DEPTH};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// Run `cycles` cycles; returns (times full, times empty after a pop).
fn run(seed: u64, cycles: usize, p_push: f64, p_pop: f64) -> Result<(usize, usize), String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut dut = TagFifo::default();
    dut.connect_all();
    let edge = |dut: &mut TagFifo| {
        for level in [true, false] {
            dut.clock.next = Clock::from(level);
            settle(dut);
        }
    };
    dut.reset.next = true;
    settle(&mut dut);
    edge(&mut dut);
    dut.reset.next = false;
    let mut model: VecDeque<(u64, bool)> = VecDeque::new();
    let (mut fulls, mut drains) = (0, 0);
    for cycle in 0..cycles {
        let (push, pop) = (rng.gen_bool(p_push), rng.gen_bool(p_pop));
        let (id, mark) = (rng.gen_range(0..128u64), rng.gen_bool(0.5));
        dut.push.next = push;
        dut.push_id.next = id.into();
        dut.push_mark.next = mark;
        dut.pop.next = pop;
        settle(&mut dut);
        let got = (dut.empty.val(), dut.full.val());
        let want = (model.is_empty(), model.len() == TAG_FIFO_DEPTH);
        if got != want {
            return Err(format!("cycle {cycle}: (empty, full) {got:?}, model holds {}", model.len()));
        }
        if let Some(&(h, m)) = model.front() {
            let head = (dut.head.val().to_u64(), dut.head_mark.val());
            if head != (h, m) {
                return Err(format!("cycle {cycle}: head {head:?}, model {:?}", (h, m)));
            }
        }
        fulls += usize::from(want.1);
        let popped = pop && !want.0;
        if push && !want.1 {
            model.push_back((id, mark));
        }
        if popped {
            model.pop_front();
            drains += usize::from(model.is_empty());
        }
        edge(&mut dut);
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
