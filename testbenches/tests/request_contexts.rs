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

/// The entries of one slice (blocks of 64, every 8th block) spread over
/// every bucket: 16 consecutive blocks of a slice, 1,024 entries, take
/// 1,024 different buckets (a plain XOR fold reached 128 of them, making
/// unrelated requests wait for each other).
#[test]
fn one_slices_entries_spread_over_every_bucket() {
    use buddy_hdl::request_contexts::bucket;
    for slice in 0..8u64 {
        for base in [0u64, 12_345 * 512, 1 << 40] {
            let buckets: std::collections::HashSet<u64> =
                (0..16).flat_map(|k| (0..64).map(move |j| bucket(base + k * 512 + slice * 64 + j))).collect();
            assert_eq!(buckets.len(), 1024, "slice {slice}, base {base:#x}");
        }
    }
}
