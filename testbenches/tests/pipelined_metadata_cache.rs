//! PipelinedMetadataCache hardware == golden metadata cache: random
//! operation sequences with random stalls on all four ports and random
//! fill latencies, reservations committed later, compared response by
//! response (put back in request order by tag) and memory request by
//! memory request; hits under misses and one lookup per cycle.

use buddy_golden::translation::MetadataNibble;
use buddy_hdl::pipelined_metadata_cache::{timing, MISS_SLOTS};
use buddy_hdl::PipelinedMetadataCache;
use buddy_testbenches::metadata_cache::{expected, random_ops, run_pipelined_cache, CacheOp, CacheTraffic, MemRequest};
use buddy_testbenches::stream::proptest_cases;
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
        prop_assert_eq!(run.memory_requests.len(), requests.len());
        for (i, (got, want)) in run.memory_requests.iter().zip(&requests).enumerate() {
            prop_assert_eq!(got, want, "memory request {}", i);
        }
    }
}

fn at(tag: u64, set: u64, byte: u64) -> MetadataNibble {
    MetadataNibble { address: (tag << 10) | (set << 7) | byte, high: false }
}

/// Hits go on under outstanding misses: with fills answered 30 cycles
/// after their request, a line is warmed, then four misses to four other
/// lines fill every miss register, and three hits to the warm line are
/// answered 2 cycles after acceptance, long before the misses; every one
/// of those 7 requests is accepted the cycle after the one before.
#[test]
fn hits_under_misses_at_one_lookup_per_cycle() {
    let mut ops = vec![CacheOp::Read(at(9, 0, 0)), CacheOp::Read(at(9, 0, 1))];
    ops.extend((1..=MISS_SLOTS as u64).map(|t| CacheOp::Read(at(t, 1 + t % 4, 64))));
    ops.extend((2..5).map(|k| CacheOp::Read(at(9, 0, k))));
    let (responses, _) = expected(&ops);
    let mut dut = PipelinedMetadataCache::default();
    let run = run_pipelined_cache(&mut dut, &ops, CacheTraffic::FULL, 30, &mut ChaCha8Rng::seed_from_u64(5), 20_000, None, None).unwrap();
    assert_eq!(run.responses, responses);
    let first_miss = 2;
    let last_miss = first_miss + MISS_SLOTS - 1;
    for hit in last_miss + 1..ops.len() {
        assert!(run.response_cycles[hit] < run.response_cycles[first_miss], "hit {hit} waited for the misses: {:?}", run.response_cycles);
        assert_eq!(run.response_cycles[hit] - run.accept_cycles[hit], timing::HIT_CYCLES, "hit latency");
    }
    for i in first_miss + 1..ops.len() {
        assert_eq!(run.accept_cycles[i], run.accept_cycles[i - 1] + 1, "accepts: {:?}", run.accept_cycles);
    }
}

/// A reserved line is pinned: four later line misses in its set make it
/// the LRU victim, and the last of them waits for the commit, so the
/// write-back carries the committed value, as golden's `write_nibble` at
/// the reservation's place in the order would have.
#[test]
fn a_reserved_line_is_written_back_with_its_committed_value() {
    let line = |tag: u64| MetadataNibble { address: (tag << 10) | (5 << 7) | 33, high: true };
    let mut ops = vec![CacheOp::Reserve(line(1), 0xC)];
    ops.extend((2..6).map(|t| CacheOp::Read(line(t))));
    ops.push(CacheOp::Read(line(1)));
    let (responses, requests) = expected(&ops);
    assert_eq!(responses.last().unwrap().nibble, 0xC);
    let written_back = |r: &MemRequest| matches!(r, MemRequest::WriteBack { address, data } if *address == (1 << 10) | (5 << 7) | 32 && data[1] >> 4 == 0xC);
    assert!(requests.iter().any(written_back));
    for seed in 0..20 {
        let mut dut = PipelinedMetadataCache::default();
        let run =
            run_pipelined_cache(&mut dut, &ops, CacheTraffic::FULL, 3, &mut ChaCha8Rng::seed_from_u64(seed), 10_000, None, None).unwrap();
        assert_eq!(run.responses, responses, "seed {seed}");
        assert_eq!(run.memory_requests, requests, "seed {seed}");
    }
}
