//! RequestContexts hardware == a reference model, cycle by cycle, under
//! random allocations (memory-entries from a small pool, so they collide)
//! and random frees; and the guarantees it exists for: a context is never
//! given twice, and two requests to one memory-entry are never in flight
//! together. Its Verilog is emitted (structural checks pass).

use std::collections::HashMap;

use buddy_hdl::request_contexts::{bucket, CONTEXTS};
use buddy_hdl::RequestContexts;
use buddy_testbenches::stream::{proptest_cases, settle};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// The block's behaviour, written from its documentation.
struct Model {
    used: [bool; CONTEXTS],
    busy: Vec<bool>,
    bucket_of: [u64; CONTEXTS],
    freeing: Option<usize>,
}

impl Model {
    fn new() -> Self {
        Model { used: [false; CONTEXTS], busy: vec![false; 1024], bucket_of: [0; CONTEXTS], freeing: None }
    }
    /// (alloc_ready, alloc_id) for a request to `entry`.
    fn offer(&self, entry: u64) -> (bool, usize) {
        let id = self.used.iter().position(|u| !u).unwrap_or(0);
        (self.used.iter().any(|u| !u) && !self.busy[bucket(entry) as usize], id)
    }
    fn clock(&mut self, take: Option<(usize, u64)>, free: Option<usize>) {
        if let Some(f) = self.freeing {
            self.used[f] = false;
            self.busy[self.bucket_of[f] as usize] = false;
        }
        if let Some((id, entry)) = take {
            self.used[id] = true;
            self.busy[bucket(entry) as usize] = true;
            self.bucket_of[id] = bucket(entry);
        }
        self.freeing = free;
    }
    fn in_use(&self) -> usize {
        self.used.iter().filter(|u| **u).count()
    }
}

/// `cycles` random cycles; returns the allocations made and the most
/// contexts in use at once.
fn run(seed: u64, cycles: usize, p_alloc: f64, p_free: f64) -> Result<(usize, usize), String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pool: Vec<u64> = (0..300).map(|_| rng.gen_range(0u64..1 << 57)).collect();
    let mut dut = RequestContexts::default();
    dut.connect_all();
    let edge = |dut: &mut RequestContexts| {
        for level in [true, false] {
            dut.clock.next = Clock::from(level);
            settle(dut);
        }
    };
    dut.reset.next = true;
    settle(&mut dut);
    edge(&mut dut);
    dut.reset.next = false;
    let mut model = Model::new();
    // Contexts in flight: id -> memory-entry; and the ones already freed.
    let mut in_flight: HashMap<usize, u64> = HashMap::new();
    let mut allocations = 0;
    let mut most = 0;
    let mut entry = pool[0];
    for cycle in 0..cycles {
        let alloc = rng.gen_bool(p_alloc);
        if rng.gen_bool(0.3) {
            entry = pool[rng.gen_range(0..pool.len())];
        }
        let free = if rng.gen_bool(p_free) && !in_flight.is_empty() {
            let ids: Vec<usize> = in_flight.keys().copied().collect();
            Some(ids[rng.gen_range(0..ids.len())])
        } else {
            None
        };
        dut.alloc_valid.next = alloc;
        dut.alloc_entry.next = entry.into();
        dut.free_valid.next = free.is_some();
        dut.free_id.next = (free.unwrap_or(0) as u64).into();
        settle(&mut dut);
        let (ready, id) = model.offer(entry);
        let got = (dut.alloc_ready.val(), dut.alloc_id.val().index(), dut.in_use.val().index());
        if got.0 != ready || (ready && got.1 != id) || got.2 != model.in_use() {
            return Err(format!("cycle {cycle}: hardware (ready, id, in_use) {got:?}, model {:?}", (ready, id, model.in_use())));
        }
        let take = (alloc && ready).then_some((id, entry));
        if let Some((id, e)) = take {
            if in_flight.contains_key(&id) {
                return Err(format!("cycle {cycle}: context {id} given twice"));
            }
            if in_flight.values().any(|&x| x == e) {
                return Err(format!("cycle {cycle}: memory-entry {e:#x} in flight twice"));
            }
            allocations += 1;
        }
        if let Some(f) = free {
            in_flight.remove(&f);
        }
        if let Some((id, e)) = take {
            in_flight.insert(id, e);
        }
        model.clock(take, free);
        most = most.max(model.in_use());
        edge(&mut dut);
    }
    Ok((allocations, most))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(40)))]

    #[test]
    fn request_contexts_equal_the_model(seed in any::<u64>(), p_alloc in 0.2f64..=1.0, p_free in 0.05f64..=0.9) {
        run(seed, 3_000, p_alloc, p_free).map_err(TestCaseError::fail)?;
    }
}

/// With allocations outpacing frees every context fills up (and
/// `alloc_ready` drops), then drains; the block's Verilog is emitted.
#[test]
fn every_context_is_used_and_the_verilog_emits() {
    let (allocations, most) = run(7, 20_000, 0.9, 0.02).unwrap();
    assert!(allocations > 2 * CONTEXTS && most == CONTEXTS, "{allocations} allocations, at most {most} in use");
    let mut uut = RequestContexts::default();
    uut.connect_all();
    let v = buddy_hdl::verilog::emit(&uut, "request_contexts", "test").unwrap();
    assert!(v.contains("module request_contexts"));
}
