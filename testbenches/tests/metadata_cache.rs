//! MetadataCache hardware == golden metadata cache: 100,000 random
//! operations (reads, writes, flushes) with random stalls on all four
//! ports, compared response by response and memory request by memory
//! request; coverage of the operation generator; hit latency; a VCD.

use buddy_delivery::metadata_cache::{expected, line_byte, random_ops, run_cache, CacheOp, CacheTraffic, MemRequest};
use buddy_delivery::stream::proptest_cases;
use buddy_golden::translation::MetadataNibble;
use buddy_hdl::MetadataCache;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn traffic() -> impl Strategy<Value = CacheTraffic> {
    (0.3f64..=1.0, 0.3f64..=1.0, 0.3f64..=1.0, 0.1f64..=1.0).prop_map(|(p_request, p_response_ready, p_memory_ready, p_fill)| {
        CacheTraffic { p_request, p_response_ready, p_memory_ready, p_fill }
    })
}

proptest! {
    // 100 sequences of 1,000 operations (then a flush, so that the memory
    // images must agree too): 100,000 operations.
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(100)))]

    #[test]
    fn cache_equals_golden(seed in any::<u64>(), traffic in traffic()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut ops = random_ops(1_000, &mut rng);
        ops.push(CacheOp::Flush);
        let (responses, requests) = expected(&ops);
        let run = run_cache(&mut MetadataCache::default(), &ops, traffic, &mut rng, 400_000, None);
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

/// The generator is not vacuous: over 20,000 operations it produces every
/// outcome, write-backs on line misses and on flushes, and reads that see
/// a value written earlier.
#[test]
fn random_ops_reach_every_case() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut counts = [0usize; 3];
    let (mut write_backs, mut flushes) = (0, 0);
    for _ in 0..20 {
        let ops = random_ops(1_000, &mut rng);
        let (responses, requests) = expected(&ops);
        for r in &responses {
            counts[r.outcome as usize] += 1;
        }
        write_backs += requests.iter().filter(|r| matches!(r, MemRequest::WriteBack { .. })).count();
        flushes += ops.iter().filter(|o| **o == CacheOp::Flush).count();
    }
    assert!(counts.iter().all(|&n| n > 1_000), "outcomes: {counts:?}");
    assert!(write_backs > 1_000, "write-backs: {write_backs}");
    assert!(flushes > 50, "flushes: {flushes}");
}

/// A dirty line evicted by a conflict miss is written back with the value
/// written, and read back from memory afterwards, through the hardware.
#[test]
fn dirty_victim_round_trips_through_memory() {
    let line = |tag: u64| MetadataNibble { address: line_byte(tag, 5, 33), high: true };
    let mut ops = vec![CacheOp::Write(line(1), 0xC)];
    ops.extend((2..6).map(|t| CacheOp::Read(line(t)))); // 4 more lines in set 5: evicts tag 1
    ops.push(CacheOp::Read(line(1)));
    let (responses, requests) = expected(&ops);
    assert_eq!(responses.last().unwrap().nibble, 0xC);
    assert!(requests.iter().any(|r| matches!(r, MemRequest::WriteBack { address, .. } if *address == line_byte(1, 5, 32))));
    let run = run_cache(&mut MetadataCache::default(), &ops, CacheTraffic::RANDOM, &mut ChaCha8Rng::seed_from_u64(1), 10_000, None);
    assert_eq!(run.responses, responses);
    assert_eq!(run.memory_requests, requests);
}

/// Without stalls a hit answers 4 cycles after its request was accepted
/// and the next request is accepted the cycle after the response.
#[test]
fn hit_latency_is_four_cycles() {
    let at = MetadataNibble { address: 0x8000_0040, high: false };
    let ops = [CacheOp::Read(at), CacheOp::Read(at), CacheOp::Write(at, 3), CacheOp::Read(at)];
    let run = run_cache(&mut MetadataCache::default(), &ops, CacheTraffic::FULL, &mut ChaCha8Rng::seed_from_u64(1), 1_000, None);
    assert_eq!(run.responses.iter().map(|r| r.outcome).collect::<Vec<_>>(), vec![2, 0, 0, 0]);
    for i in 1..4 {
        assert_eq!(run.response_cycles[i] - run.accept_cycles[i], buddy_hdl::metadata_cache::HIT_CYCLES, "{run:?}");
        assert_eq!(run.accept_cycles[i], run.response_cycles[i - 1] + 1, "{run:?}");
    }
}

/// A traced run writes a VCD in which `mem_req_write` rises for the
/// write-back of the dirty line when the flush runs.
#[test]
fn vcd_shows_the_write_back_of_a_flush() {
    use vcd::{Command, Value};
    let at = MetadataNibble { address: 0x1234_5600, high: true };
    let ops = [CacheOp::Write(at, 9), CacheOp::Flush];
    let dir = std::env::temp_dir().join(format!("buddy-vcd-mc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("metadata_cache.vcd");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let run = run_cache(&mut MetadataCache::default(), &ops, CacheTraffic::FULL, &mut ChaCha8Rng::seed_from_u64(1), 1_000, Some(&mut file));
    drop(file);
    let (_, requests) = expected(&ops);
    assert_eq!(run.memory_requests, requests);
    assert!(matches!(requests.last(), Some(MemRequest::WriteBack { .. })));

    let mut parser = vcd::Parser::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    let write = header.find_var(&["uut", "mem_req_write"]).expect("mem_req_write in VCD").code;
    let rose = parser.filter_map(Result::ok).any(|c| matches!(c, Command::ChangeScalar(code, Value::V1) if code == write));
    assert!(rose, "mem_req_write never rose");
    std::fs::remove_dir_all(dir).ok();
}
