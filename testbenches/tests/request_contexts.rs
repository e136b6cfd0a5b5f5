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
/// never share a bucket (no column of the hash is 0 or the XOR of one or
/// two others), so neither do entries of two arrays a power of two apart
/// at nearby offsets (the old XOR fold put `e` and `e ^ (1 << 14 | 1 <<
/// 4)` in one).
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
    // Four bits may: columns 0, 1 and 2 are 1, 2 and 4, column 13 is 7.
    assert_eq!(bucket(0x200_416f), bucket(0x200_416f ^ 0x2007));
}

/// Entries of two arrays a power of two of 2 MiB pages apart, at offsets
/// in their pages that differ only in bits 0-6 (up to 127 entries apart
/// within an aligned run of 128), never share a bucket: the difference is
/// one page bit and any pattern of the low 7. Under the CRC-10 used
/// before, which has no such property, most of the entries that shared a
/// bucket in hpgmg's compressed runs differed by `0x4062`.
#[test]
fn nearby_offsets_of_arrays_pages_apart_never_share_a_bucket() {
    use buddy_hdl::request_contexts::{bucket, ENTRY_INDEX_BITS, NEAR_OFFSET_BITS, PAGE_ENTRY_BITS};
    let mut tried = 0;
    for page_bit in PAGE_ENTRY_BITS..ENTRY_INDEX_BITS {
        for low in 0..1u64 << NEAR_OFFSET_BITS {
            let d = 1u64 << page_bit | low;
            for base in [0u64, 0x200_416f, (1 << 57) - 1] {
                assert_ne!(bucket(base), bucket(base ^ d), "base {base:#x}, delta {d:#x}");
            }
            tried += 1;
        }
    }
    assert_eq!(tried, 43 * 128);
    // The CRC-10 (remainder modulo x^10 + x^9 + x^6 + x^5 + x + 1) of 0x4062 is 0.
    let crc = |e: u64| (0..57).rev().fold(0u64, |r, i| {
        let r = r << 1 | (e >> i & 1);
        if r >> 10 & 1 == 1 { r ^ 0x663 } else { r }
    });
    assert_eq!(crc(0x4062), 0);
    assert_ne!(bucket(0x4062), 0);
}

/// Every XOR of a subset of `columns`.
fn span(columns: impl Iterator<Item = u16>) -> Vec<u16> {
    columns.fold(vec![0u16], |s, col| s.iter().flat_map(|&x| [x, x ^ col]).collect())
}

/// `BUCKET_COLUMNS` is the table its rule gives: unit columns for bits
/// 0-5 and 9-12, then for bits 6, 7, 8, 13, 14, ... the value that is not
/// 0, not a chosen column nor the XOR of two, for bits 6-8 not in the
/// span of the columns of bits 0-9 placed, and for a page bit not in the
/// span of columns 0-6; the lowest largest fan-in, then the fewest ones,
/// then the smallest.
#[test]
fn the_bucket_columns_follow_their_rule() {
    use buddy_hdl::request_contexts::{BUCKET_BITS, BUCKET_COLUMNS, ENTRY_INDEX_BITS, NEAR_OFFSET_BITS, PAGE_ENTRY_BITS};
    let mut cols = vec![None::<u16>; ENTRY_INDEX_BITS];
    let units = [0, 1, 2, 3, 4, 5, 9, 10, 11, 12];
    for (k, &b) in units.iter().enumerate() {
        cols[b] = Some(1 << k);
    }
    let mut placed: Vec<usize> = units.to_vec();
    let order = [6, 7, 8, 13].into_iter().chain(14..ENTRY_INDEX_BITS);
    for b in order {
        let near = match b {
            6..=8 => span(cols[..10].iter().flatten().copied()),
            _ if b >= PAGE_ENTRY_BITS => span(cols[..NEAR_OFFSET_BITS].iter().map(|c| c.expect("placed before the page bits"))),
            _ => vec![0],
        };
        let mut taken = vec![false; 1 << BUCKET_BITS];
        for (x, &i) in placed.iter().enumerate() {
            taken[cols[i].unwrap() as usize] = true;
            for &j in &placed[x + 1..] {
                taken[(cols[i].unwrap() ^ cols[j].unwrap()) as usize] = true;
            }
        }
        near.iter().for_each(|&v| taken[v as usize] = true);
        let fanin: Vec<u32> = (0..BUCKET_BITS).map(|j| cols.iter().flatten().map(|&c| u32::from(c >> j & 1)).sum()).collect();
        let v = (1..1u16 << BUCKET_BITS)
            .filter(|&v| !taken[v as usize])
            .min_by_key(|&v| ((0..BUCKET_BITS).map(|j| fanin[j] + u32::from(v >> j & 1)).max(), v.count_ones(), v))
            .expect("a value left");
        cols[b] = Some(v);
        placed.push(b);
    }
    let derived: Vec<u16> = cols.into_iter().map(|c| c.unwrap()).collect();
    assert_eq!(derived, BUCKET_COLUMNS.to_vec());
    // At most 17 index bits per bucket bit.
    let most = (0..BUCKET_BITS).map(|j| BUCKET_COLUMNS.iter().filter(|&&c| c >> j & 1 == 1).count()).max();
    assert_eq!(most, Some(17));
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

/// 1,024 consecutive memory-entries from a multiple of 1,024 take 1,024
/// buckets whichever slices they are dealt to (columns 0-9 of the hash
/// are a basis), so a slice that is dealt consecutive blocks (one slice,
/// or another interleave) spreads them too.
#[test]
fn consecutive_entries_spread_over_every_bucket() {
    use buddy_hdl::request_contexts::bucket;
    for base in [0u64, 12_345 * 1024, 1 << 40, (1 << 57) - 1024] {
        let buckets: std::collections::HashSet<u64> = (0..1024).map(|j| bucket(base + j)).collect();
        assert_eq!(buckets.len(), 1024, "base {base:#x}");
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
