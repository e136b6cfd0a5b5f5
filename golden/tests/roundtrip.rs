//! Property tests of every golden codec: `decompress(compress(e)) == e`
//! with strategies that reach every size class and every symbol kind, and
//! arbitrary stored bytes that must decode to an entry or an error, never a
//! panic. `PROPTEST_CASES` scales the case count (`make soak`).

use buddy_golden::{bpc, Algorithm, DecodeError, MemoryEntry, SizeClass};
use proptest::prelude::*;

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Words as a GPU buffer holds them: sparse, small signed integers, ramps
/// and constant strides (BPC's ALL1/DBP0/ONE1/TWO1 planes), values around a
/// common base (MAG-BDI's delta widths), single bits, and noise.
fn entry() -> impl Strategy<Value = MemoryEntry> {
    let sparse = (0u32..=100, proptest::collection::vec(any::<u32>(), 32))
        .prop_map(|(p, v)| MemoryEntry::from_words(std::array::from_fn(|i| if (v[i] % 100) < p { 0 } else { v[i] })));
    let small = (1u32..=31, proptest::collection::vec(any::<i32>(), 32))
        .prop_map(|(bits, v)| MemoryEntry::from_words(std::array::from_fn(|i| (v[i] >> (32 - bits)) as u32)));
    let stride = (any::<u32>(), any::<i32>(), 0usize..32, any::<u32>()).prop_map(|(base, step, bump_at, bump)| {
        MemoryEntry::from_words(std::array::from_fn(|i| {
            let v = base.wrapping_add((step as u32).wrapping_mul(i as u32));
            if i >= bump_at {
                v.wrapping_add(bump & 3)
            } else {
                v
            }
        }))
    });
    let around_base =
        (any::<u32>(), 1u32..=31, proptest::collection::vec(any::<i32>(), 32), any::<u32>()).prop_map(|(base, bits, d, zero_mask)| {
            MemoryEntry::from_words(std::array::from_fn(|i| {
                if zero_mask >> i & 1 == 1 {
                    (d[i] >> 28) as u32
                } else {
                    base.wrapping_add((d[i] >> (32 - bits)) as u32)
                }
            }))
        });
    let bits = proptest::collection::vec(0u32..33, 32)
        .prop_map(|b| MemoryEntry::from_words(std::array::from_fn(|i| if b[i] == 32 { 0 } else { 1 << b[i] })));
    let noise = proptest::collection::vec(any::<u32>(), 32).prop_map(|v| MemoryEntry::from_words(v.try_into().unwrap()));
    prop_oneof![sparse, small, stride, around_base, bits, noise]
}

fn round_trip(algorithm: Algorithm, e: &MemoryEntry) -> Result<(), TestCaseError> {
    let codec = algorithm.codec();
    let c = codec.compress(e);
    prop_assert_eq!(c.class == SizeClass::Zero, e.is_zero());
    prop_assert!(c.class == SizeClass::Raw || c.stream_bits <= c.class.bytes() * 8);
    prop_assert_eq!(codec.decompress(c.class, c.stored()), Ok(*e));
    Ok(())
}

fn never_panics(algorithm: Algorithm, code: u8, bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Err(DecodeError::ReservedSizeCode { code: c }) = algorithm.codec().decompress_code(code, bytes) {
        prop_assert!(c >= 8);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(20_000)))]

    #[test]
    fn every_algorithm_round_trips(e in entry()) {
        for a in Algorithm::ALL {
            round_trip(a, &e)?;
        }
    }

    /// The full BPC stream (up to 1089 bits, also above the RAW cut-off)
    /// decodes back, consuming exactly its length.
    #[test]
    fn bpc_full_stream_decodes_back(e in entry()) {
        let (bytes, bits) = bpc::encode_full(&e);
        prop_assert_eq!(bits, bpc::stream_bits(&e));
        prop_assert_eq!(bpc::decode(&bytes), Ok((e, bits)));
    }

    #[test]
    fn arbitrary_stored_bytes_never_panic(code in 0u8..16, len in 0usize..=128, bytes in proptest::collection::vec(any::<u8>(), 128)) {
        for a in Algorithm::ALL {
            never_panics(a, code, &bytes[..len])?;
        }
    }

    /// Valid streams with flipped bits or cut short: an entry or an error.
    #[test]
    fn corrupted_streams_never_panic(e in entry(), flips in proptest::collection::vec((0usize..1024, any::<bool>()), 0..4), cut in 0usize..=128) {
        for a in Algorithm::ALL {
            let c = a.codec().compress(&e);
            let mut stored = c.stored().to_vec();
            for &(bit, on) in &flips {
                if let Some(b) = stored.get_mut(bit / 8) {
                    if on { *b ^= 1 << (bit % 8); }
                }
            }
            let _ = a.codec().decompress(c.class, &stored);
            let (full, _) = bpc::encode_full(&e);
            let _ = bpc::decode(&full[..cut.min(full.len())]);
        }
    }
}

/// Every BPC symbol kind is reached by the strategy above: checked on a
/// fixed sample so that a strategy change cannot silently lose one.
#[test]
fn strategy_reaches_every_bpc_symbol_kind() {
    use bpc::Symbol::*;
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..5_000 {
        let e = entry().new_tree(&mut runner).unwrap().current();
        for s in bpc::symbols(&e) {
            seen.insert(match s {
                BaseZero => "base0",
                Base4(_) => "base4",
                Base8(_) => "base8",
                Base16(_) => "base16",
                Base32(_) => "base32",
                ZeroRun(_) => "zrun",
                Zero1 => "zero1",
                All1 => "all1",
                Dbp0 => "dbp0",
                Two1(_) => "two1",
                One1(_) => "one1",
                Raw(_) => "raw",
            });
        }
    }
    assert_eq!(seen.len(), 12, "reached only {seen:?}");
}
