//! PipelinedMetadataCache hardware == golden metadata cache: random
//! operation sequences with random stalls on all four ports and random
//! fill latencies, reservations committed later, compared response by
//! response (put back in request order by tag), fill by fill, and by
//! write-backs and the memory they leave (a line evicted while held by a
//! write is written back later, from the victim buffer); hits under
//! misses and one lookup per cycle.

use buddy_delivery::metadata_cache::{expected, line_byte, pipelined_memory_agrees, random_ops, run_pipelined_cache, CacheOp, CacheTraffic, MemRequest};
use buddy_delivery::stream::proptest_cases;
use buddy_golden::translation::MetadataNibble;
use buddy_hdl::pipelined_metadata_cache::{timing, FILL_SLOTS, MISS_SLOTS};
use buddy_hdl::PipelinedMetadataCache;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn traffic() -> impl Strategy<Value = CacheTraffic> {
    (0.3f64..=1.0, 0.3f64..=1.0, 0.3f64..=1.0, 0.05f64..=1.0).prop_map(|(p_request, p_response_ready, p_memory_ready, p_fill)| {
        CacheTraffic { p_request, p_response_ready, p_memory_ready, p_fill }
    })
}

proptest! {
    // 60 sequences of 1,000 operations (a random share of the writes as
    // reservations with later commits), each ended by a flush so that the
    // memory images must agree too.
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(60)))]

    #[test]
    fn pipelined_cache_equals_golden(seed in any::<u64>(), traffic in traffic(), fill_latency in 1u64..60, reserve in 0.0f64..=0.8) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Some writes become reservations committed later.
        let mut ops: Vec<CacheOp> = random_ops(1_000, &mut rng)
            .into_iter()
            .map(|op| match op {
                CacheOp::Write(at, v) if rng.gen_bool(reserve) => CacheOp::Reserve(at, v),
                op => op,
            })
            .collect();
        ops.push(CacheOp::Flush);
        let (responses, requests) = expected(&ops);
        let run = run_pipelined_cache(&mut PipelinedMetadataCache::default(), &ops, traffic, fill_latency, &mut rng, 400_000, None, None)
            .map_err(TestCaseError::fail)?;
        prop_assert_eq!(run.responses.len(), ops.len(), "responses lost after {} cycles", run.cycles);
        for (i, (got, want)) in run.responses.iter().zip(&responses).enumerate() {
            prop_assert_eq!(got, want, "response {} to {:?}", i, ops[i]);
        }
        pipelined_memory_agrees(&run.memory_requests, &requests).map_err(TestCaseError::fail)?;
    }
}

fn at(tag: u64, set: u64, byte: u64) -> MetadataNibble {
    MetadataNibble { address: line_byte(tag, set, byte), high: false }
}

/// Lookups of a sector whose fill is outstanding park behind it, and hits
/// go on under outstanding misses. With fills answered 30 cycles after
/// their request: reads miss line A and line B, and 14 more reads of B's
/// sector park (every miss register in use); they are answered in order
/// right after B's fill. 3 reads of A's sector wait for a free register
/// until A's fill is taken, then hit (after the parked reads have left,
/// 2 cycles after acceptance), before the 4 misses to other lines behind
/// them (as many fills as may be outstanding), which are accepted one per
/// cycle.
#[test]
fn lookups_park_behind_fills_and_hits_go_under_misses() {
    let parked = MISS_SLOTS - 2;
    let mut ops = vec![CacheOp::Read(at(9, 0, 0)), CacheOp::Read(at(10, 1, 0))];
    ops.extend((1..=parked as u64).map(|k| CacheOp::Read(at(10, 1, k))));
    let first_hit = ops.len();
    ops.extend((1..4).map(|k| CacheOp::Read(at(9, 0, k))));
    let first_miss = ops.len();
    ops.extend((1..=FILL_SLOTS as u64).map(|t| CacheOp::Read(at(t, 2 + t % 4, 64))));
    let (responses, _) = expected(&ops);
    let mut dut = PipelinedMetadataCache::default();
    let run = run_pipelined_cache(&mut dut, &ops, CacheTraffic::FULL, 30, &mut ChaCha8Rng::seed_from_u64(5), 20_000, None, None).unwrap();
    assert_eq!(run.responses, responses);
    let (cycles, accepts) = (&run.response_cycles, &run.accept_cycles);
    for i in 2..2 + parked {
        assert!(cycles[i] > cycles[i - 1], "parked read {i} out of order: {cycles:?}");
        assert!(cycles[i] - cycles[1] <= 2 * (i as u64 - 1), "parked read {i} answered late: {cycles:?}");
    }
    for hit in first_hit..first_miss {
        assert!(cycles[hit] < cycles[first_miss], "hit {hit} waited for the misses: {cycles:?}");
    }
    // Parked lookups leaving go before hits; once they have left, a hit
    // takes HIT_CYCLES.
    let last_hit = first_miss - 1;
    assert_eq!(cycles[last_hit] - accepts[last_hit], timing::HIT_CYCLES, "hit latency: {cycles:?} {accepts:?}");
    // The first hit waits in the lookup register for a free miss register,
    // the second for the parked reads to leave.
    for i in first_hit + 3..ops.len() {
        assert_eq!(accepts[i], accepts[i - 1] + 1, "accepts: {accepts:?}");
    }
}

/// A reserved line is pinned: four later line misses in its set make it
/// the LRU victim, and the last of them moves it to the victim buffer
/// instead of waiting; its write-back leaves after the commit and carries
/// the committed value, as golden's `write_nibble` at the reservation's
/// place in the order would have, and the read of line 1 after it waits
/// for that write-back and fills the committed value back.
#[test]
fn a_reserved_line_is_written_back_with_its_committed_value() {
    let line = |tag: u64| MetadataNibble { address: line_byte(tag, 5, 33), high: true };
    let mut ops = vec![CacheOp::Reserve(line(1), 0xC)];
    ops.extend((2..6).map(|t| CacheOp::Read(line(t))));
    ops.push(CacheOp::Read(line(1)));
    let (responses, requests) = expected(&ops);
    assert_eq!(responses.last().unwrap().nibble, 0xC);
    let written_back = |r: &MemRequest| matches!(r, MemRequest::WriteBack { address, data } if *address == line_byte(1, 5, 32) && data[1] >> 4 == 0xC);
    assert!(requests.iter().any(written_back));
    for seed in 0..20 {
        let mut dut = PipelinedMetadataCache::default();
        let run =
            run_pipelined_cache(&mut dut, &ops, CacheTraffic::FULL, 3, &mut ChaCha8Rng::seed_from_u64(seed), 10_000, None, None).unwrap();
        assert_eq!(run.responses, responses, "seed {seed}");
        pipelined_memory_agrees(&run.memory_requests, &requests).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

/// A read's fill outstanding does not hold its line: with fills answered
/// 40 cycles after their request, a read misses line 1 of set 5 and three
/// reads of its sector park behind the fill; four line misses in set 5
/// then make line 1 the LRU victim, and the last of them evicts it before
/// line 1's fill comes back (the request behind it is accepted, which
/// happens only once the lookup register is free). The parked reads still get
/// line 1's sector, and a later read of line 1 misses again (golden's
/// answers and memory requests, in order).
#[test]
fn a_line_is_evicted_under_its_reads_fill() {
    let line = |tag: u64, byte: u64| MetadataNibble { address: line_byte(tag, 5, byte), high: byte % 2 == 1 };
    let mut ops: Vec<CacheOp> = (0..4).map(|b| CacheOp::Read(line(1, b))).collect();
    let evicting = ops.len() + 3;
    ops.extend((2..6).map(|t| CacheOp::Read(line(t, 7))));
    ops.push(CacheOp::Read(line(1, 9)));
    let (responses, requests) = expected(&ops);
    for seed in 0..10 {
        let mut dut = PipelinedMetadataCache::default();
        let run =
            run_pipelined_cache(&mut dut, &ops, CacheTraffic::FULL, 40, &mut ChaCha8Rng::seed_from_u64(seed), 10_000, None, None).unwrap();
        assert_eq!(run.responses, responses, "seed {seed}");
        assert_eq!(run.memory_requests, requests, "seed {seed}");
        assert!(
            run.accept_cycles[evicting + 1] < run.response_cycles[0],
            "seed {seed}: the eviction waited for the victim's fill: accepted {:?}, answered {:?}",
            run.accept_cycles,
            run.response_cycles
        );
    }
}

