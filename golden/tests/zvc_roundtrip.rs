//! Property tests of the ZVC golden model.

use buddy_golden::{Codec, DecodeError, MemoryEntry, SizeClass, Zvc};
use proptest::prelude::*;

/// Entries biased to sparse: each word is zero with probability `p_zero`,
/// otherwise a value that is small, a single bit, or fully random.
fn sparse_entry() -> impl Strategy<Value = MemoryEntry> {
    (0u32..=100).prop_flat_map(|p_zero| {
        proptest::collection::vec(
            prop_oneof![
                p_zero => Just(0u32),
                (100 - p_zero) => prop_oneof![any::<u32>(), (0u32..32).prop_map(|b| 1 << b), 0u32..256],
            ],
            32,
        )
        .prop_map(|v| MemoryEntry::from_words(v.try_into().unwrap()))
    })
}

/// Cases from `PROPTEST_CASES` when set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

proptest! {
    // PROPTEST_CASES overrides the count (`make soak`).
    #![proptest_config(ProptestConfig::with_cases(cases(20_000)))]

    #[test]
    fn decompress_inverts_compress(e in sparse_entry()) {
        let c = Zvc.compress(&e);
        let nonzero = e.words().iter().filter(|&&w| w != 0).count();
        prop_assert_eq!(c.stream_bits, if nonzero == 0 { 0 } else { 32 + 32 * nonzero });
        prop_assert_eq!(Zvc.decompress(c.class, c.stored()), Ok(e));
    }

    /// Any bytes of any class decode to an entry or an error, never a panic,
    /// and a decoded entry re-encodes to a stream no longer than the class.
    #[test]
    fn arbitrary_stored_bytes_never_panic(code in 0u8..16, bytes in proptest::collection::vec(any::<u8>(), 0..=128)) {
        match Zvc.decompress_code(code, &bytes) {
            Ok(e) => {
                let class = SizeClass::from_code(code).unwrap();
                prop_assert!(Zvc.compress(&e).class <= class);
            }
            Err(DecodeError::ReservedSizeCode { code: c }) => prop_assert!(c >= 8),
            Err(_) => {}
        }
    }
}
