//! RequestContexts hardware == its cycle model in `hdl-model/`, cycle by cycle, under
//! random allocations (memory-entries from a small pool, so they collide)
//! and random frees and issues; and the guarantees it exists for: a
//! context is never given twice, and a write is never in flight with
//! another write to its memory-entry or a read of it not yet issued (reads
//! of one entry may be in flight together, and a write with issued reads).

use buddy_delivery::request_contexts::run;
use buddy_delivery::stream::proptest_cases;
use buddy_hdl::request_contexts::CONTEXTS;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(40)))]

    #[test]
    fn request_contexts_equal_the_model(seed in any::<u64>(), p_alloc in 0.2f64..=1.0, p_free in 0.05f64..=0.9) {
        run(seed, 3_000, p_alloc, p_free, None, None).map_err(TestCaseError::fail)?;
    }
}

/// With allocations outpacing frees every context fills up (and
/// `alloc_ready` drops), then drains.
#[test]
fn every_context_is_used() {
    let r = run(7, 20_000, 0.9, 0.02, None, None).unwrap();
    assert!(r.allocations > 2 * CONTEXTS && r.most_in_use == CONTEXTS, "{r:?}");
}

/// Reads of one memory-entry are in flight together, and writes go once
/// the reads before them are issued and the writes before them planned (a
/// write never is in flight with a write not planned or a read not issued,
/// a read never with a write: `run` checks that every cycle).
#[test]
fn reads_of_one_entry_pass_each_other() {
    let r = run(11, 5_000, 0.8, 0.1, None, None).unwrap();
    assert!(r.reads_together > 50 && r.writes_past_issued_reads > 20 && r.writes_past_planned_writes > 10, "{r:?}");
}

/// Two memory-entry indexes that differ in 1, 2 or 3 of their 57 bits
/// never share a bucket (the bucket is a CRC-10 with Hamming distance 4),
/// so neither do entries of two arrays a power of two apart at nearby
/// offsets (the old XOR fold put `e` and `e ^ (1 << 14 | 1 << 4)` in one).
#[test]
fn indexes_a_few_bits_apart_never_share_a_bucket() {
    use buddy_hdl::request_contexts::{bucket, ENTRY_INDEX_BITS};
    let n = ENTRY_INDEX_BITS;
    let mut deltas = Vec::new();
    for a in 0..n {
        deltas.push(1u64 << a);
        for b in a + 1..n {
            deltas.push(1 << a | 1 << b);
            for c in b + 1..n {
                deltas.push(1 << a | 1 << b | 1 << c);
            }
        }
    }
    assert_eq!(deltas.len(), 57 + 1_596 + 29_260);
    for base in [0u64, 0x200_416f, (1 << 57) - 1] {
        for d in &deltas {
            assert_ne!(bucket(base), bucket(base ^ d), "base {base:#x}, delta {d:#x}");
        }
    }
    // A delta the generator divides does: the generator itself (6 bits).
    let g = buddy_hdl::request_contexts::BUCKET_POLYNOMIAL;
    assert_eq!(g.count_ones(), 6);
    assert_eq!(bucket(0x200_416f), bucket(0x200_416f ^ g));
}

/// The entries of one slice (blocks of 64, every 8th block) spread over
/// every bucket: 16 consecutive blocks of a slice from a multiple of 16,
/// 1,024 entries, take 1,024 different buckets (a plain XOR fold reached
/// 128 of them, making unrelated requests wait for each other).
#[test]
fn one_slices_entries_spread_over_every_bucket() {
    use buddy_hdl::request_contexts::bucket;
    for slice in 0..8u64 {
        for base in [0u64, 12_345 * 16 * 512, 1 << 40] {
            let buckets: std::collections::HashSet<u64> =
                (0..16).flat_map(|k| (0..64).map(move |j| bucket(base + k * 512 + slice * 64 + j))).collect();
            assert_eq!(buckets.len(), 1024, "slice {slice}, base {base:#x}");
        }
    }
}

/// Two entries of one slice fewer than 128 apart in the slice's own
/// numbering (the most a slice holds in flight) take two buckets, unless
/// they straddle a multiple of 2^17 of the slice's entries. Their numbers
/// differ by any of bits `[6:0]` and, past a carry, a run of ones from bit
/// 7: every such difference up to a run through bit 16 is tried (the
/// bucket is linear, so a difference that never hashes to 0 never makes
/// two entries share a bucket); the fold used before failed at a run
/// through bit 15.
#[test]
fn nearby_entries_of_one_slice_take_different_buckets() {
    use buddy_hdl::request_contexts::bucket;
    // The slice's entry number `n` as a memory-entry index (slice bits 0).
    let entry = |n: u64| (n >> 6) << 9 | (n & 63);
    let mut tried = 0;
    for low in 1..128u64 {
        for run_end in 6..=16 {
            // Bits 7..=run_end flipped by a carry (none when run_end is 6).
            let run = ((1u64 << (run_end + 1)) - 1) & !127;
            let d = entry(low | run);
            assert_ne!(bucket(d), 0, "difference {:#x}", low | run);
            for base in [0u64, 0x1234_5678_9ab, (1 << 57) - 1] {
                assert_ne!(bucket(base), bucket(base ^ d));
            }
            tried += 1;
        }
    }
    assert_eq!(tried, 127 * 11);
}
