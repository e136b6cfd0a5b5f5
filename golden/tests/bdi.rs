//! BDI (docs/formats.md#bdi) through the crate's public API: worked
//! examples with hand-checked sizes, a plainly written reference model the
//! codec must agree with on entries built to reach every encoding, the
//! real workloads' snapshots, and corrupt input (an error, never a panic).

use buddy_golden::bdi::{base_delta, BaseDelta, Bdi, Encoding, UNCOMPRESSED_BITS};
use buddy_golden::{Algorithm, Codec, DecodeError, MemoryEntry, SizeClass};
use proptest::prelude::*;
use std::path::Path;

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// An entry from sixteen 8-byte little-endian values.
fn from_u64(v: [u64; 16]) -> MemoryEntry {
    MemoryEntry::from_words(std::array::from_fn(|i| (v[i / 2] >> (32 * (i % 2))) as u32))
}

/// An entry from sixty-four 2-byte little-endian values.
fn from_u16(v: [u16; 64]) -> MemoryEntry {
    MemoryEntry::from_words(std::array::from_fn(|i| v[2 * i] as u32 | (v[2 * i + 1] as u32) << 16))
}

/// The field of width `n` bits at stream offset `p` (LSB-first).
fn field(bytes: &[u8], p: usize, n: usize) -> u64 {
    (0..n).fold(0u64, |v, b| v | (((bytes[(p + b) / 8] >> ((p + b) % 8)) & 1) as u64) << b)
}

/// Compress, check the round trip, return (stream bits, class, stored bytes).
fn squeeze(e: &MemoryEntry) -> (usize, SizeClass, Vec<u8>) {
    let c = Bdi.compress(e);
    assert_eq!(Bdi.decompress(c.class, c.stored()), Ok(*e), "round trip of {e:?}");
    (c.stream_bits, c.class, c.stored().to_vec())
}

// ---------------------------------------------------------------- worked examples

/// Sixteen pointers `B + 8i`: base8-Δ1 with `B = v[0]`, every mask bit set.
/// 4 (code) + 64 (B) + 16 (mask) + 16 × 8 (deltas) = 212 bits → B32.
#[test]
fn sixteen_pointers_are_base8_delta1_in_212_bits() {
    let b = 0x0000_7f3a_1234_5000u64;
    let e = from_u64(std::array::from_fn(|i| b + 8 * i as u64));
    assert_eq!(Bdi.encoding(&e), Some(Encoding::Base8Delta1));
    let (bits, class, s) = squeeze(&e);
    assert_eq!((bits, class), (212, SizeClass::B32));
    assert_eq!(field(&s, 0, 4), 2);
    assert_eq!(field(&s, 4, 64), b);
    assert_eq!(field(&s, 68, 16), 0xffff);
    for i in 0..16 {
        assert_eq!(field(&s, 84 + 8 * i, 8), 8 * i as u64, "delta {i}");
    }
    assert_eq!(base_delta(&e, 8, 1), Some(BaseDelta { base: b, mask: 0xffff }));
}

/// Near-zero values are immediates (mask 0), the rest use the first
/// non-immediate as base, also when it is not value 0.
#[test]
fn immediates_and_base_mix() {
    let b = 0xdead_beef_0000_0000u64;
    let v = [3, u64::MAX, b, b + 127, 0, b.wrapping_sub(128), 0x7f, 0xffff_ffff_ffff_ff80, b, 0, 0, 0, 0, 0, 0, 1];
    let e = from_u64(v);
    assert_eq!(base_delta(&e, 8, 1), Some(BaseDelta { base: b, mask: 0b1_0010_1100 }));
    assert_eq!(Bdi.encoding(&e), Some(Encoding::Base8Delta1));
    let (bits, _, s) = squeeze(&e);
    assert_eq!(bits, 212);
    // Immediates 3, -1, 127, -128, 1 and deltas 0, 127, -128, 0.
    let deltas: Vec<u64> = (0..16).map(|i| field(&s, 84 + 8 * i, 8)).collect();
    assert_eq!(deltas, vec![3, 0xff, 0, 127, 0, 0x80, 0x7f, 0x80, 0, 0, 0, 0, 0, 0, 0, 1]);
}

/// The repeated 8-byte value: 4 + 64 = 68 bits → B16 (it does not fit B8).
#[test]
fn repeated_value_is_68_bits_in_b16() {
    let e = from_u64([0x0123_4567_89ab_cdef; 16]);
    let (bits, class, s) = squeeze(&e);
    assert_eq!((bits, class), (68, SizeClass::B16));
    assert_eq!(s, vec![0xf1, 0xde, 0xbc, 0x9a, 0x78, 0x56, 0x34, 0x12, 0x00, 0, 0, 0, 0, 0, 0, 0]);
    // A non-zero word repeated in every word is a repeated 8-byte value too.
    assert_eq!(Bdi.encoding(&MemoryEntry::from_words([7; 32])), Some(Encoding::Repeated));
}

/// Every base-delta encoding at its size: (entry, encoding, stream bits, class).
#[test]
fn every_encoding_at_its_size() {
    let b8 = 0x4000_0000_0000_0000u64;
    let b4 = 0x4000_0000u32;
    // 8-byte values b8 and b8 + d, alternating.
    let alternating = |d: i64| from_u64(std::array::from_fn(|i| b8.wrapping_add(if i % 2 == 0 { 0 } else { d } as u64)));
    // Words b4 + 0..127: their 8-byte pairs differ by up to 127 << 32.
    let words_d1 = MemoryEntry::from_words(std::array::from_fn(|i| b4 + (i as u32 * 37 % 128)));
    // Words b4, b4 + 1003, b4, b4 + 3, ...: pairs differ by 1000 << 32.
    let words_d2 = MemoryEntry::from_words(std::array::from_fn(|i| b4 + [0, 1003, 0, 3][i % 4]));
    // 2-byte values 0x4000 + 9·(i mod 7): the 4- and 8-byte values differ in their high lanes.
    let lanes = from_u16(std::array::from_fn(|i| 0x4000 + (i as u16 % 7) * 9));
    let cases: [(MemoryEntry, Encoding, usize, SizeClass); 8] = [
        (alternating(-128), Encoding::Base8Delta1, 212, SizeClass::B32),
        (alternating(300), Encoding::Base8Delta2, 340, SizeClass::B64),
        (alternating(-32768), Encoding::Base8Delta2, 340, SizeClass::B64),
        (alternating(1 << 20), Encoding::Base8Delta4, 596, SizeClass::B80),
        (alternating(-(1 << 31)), Encoding::Base8Delta4, 596, SizeClass::B80),
        (words_d1, Encoding::Base4Delta1, 324, SizeClass::B64),
        (words_d2, Encoding::Base4Delta2, 580, SizeClass::B80),
        (lanes, Encoding::Base2Delta1, 596, SizeClass::B80),
    ];
    for (e, enc, bits, class) in cases {
        assert_eq!(Bdi.encoding(&e), Some(enc), "{e:?}");
        assert_eq!(enc.stream_bits(), bits);
        let (got_bits, got_class, s) = squeeze(&e);
        assert_eq!((got_bits, got_class), (bits, class), "{enc}");
        assert_eq!(field(&s, 0, 4), enc.code() as u64);
    }
    // One past Δ4 from an 8-byte base: no 8-byte encoding; the words
    // 0, b4, 0x80000000, b4 - 1 and their 2-byte halves defeat the others.
    let e = alternating(-(1 << 31) - 1);
    assert_eq!(base_delta(&e, 8, 4), None);
    // 32 unrelated words: nothing fits.
    let mut x = 0x9e37_79b9u32;
    let noise = MemoryEntry::from_words(std::array::from_fn(|_| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    }));
    for e in [e, noise] {
        let c = Bdi.compress(&e);
        assert_eq!((c.class, c.stream_bits), (SizeClass::Raw, UNCOMPRESSED_BITS), "{e:?}");
        assert_eq!(Bdi.encoding(&e), None);
        assert_eq!(Bdi.decompress(c.class, c.stored()), Ok(e));
    }
}

/// Equal streams: base8-Δ4 (code 4) and base2-Δ1 (code 7) are both 596
/// bits; the lower code wins.
#[test]
fn ties_go_to_the_lower_code() {
    // 2-byte lanes: lane 0 = 0x4000 + s, lane 1 = 0x4000 + t, lanes 2-3 = 0x4000.
    let lanes = |s: u16, t: u16| [0x4000 + s, 0x4000 + t, 0x4000, 0x4000];
    let v: [u16; 64] = std::array::from_fn(|i| lanes((i as u16 / 4) % 5, (i as u16 / 4) % 3)[i % 4]);
    let e = from_u16(v);
    assert!(base_delta(&e, 2, 1).is_some());
    assert!(base_delta(&e, 8, 4).is_some());
    assert!(base_delta(&e, 8, 2).is_none() && base_delta(&e, 4, 2).is_none());
    assert_eq!(Bdi.encoding(&e), Some(Encoding::Base8Delta4));
    assert_eq!(squeeze(&e).0, 596);
}

#[test]
fn zero_entry_is_class_zero_and_the_zeros_encoding() {
    let c = Bdi.compress(&MemoryEntry::ZERO);
    assert_eq!((c.class, c.stream_bits), (SizeClass::Zero, 0));
    assert_eq!(Bdi.encoding(&MemoryEntry::ZERO), Some(Encoding::Zeros));
    // The zeros stream (code 0) in any class decodes to the zero entry.
    for class in [SizeClass::B8, SizeClass::B32, SizeClass::B96] {
        assert_eq!(Bdi.decompress(class, &vec![0; class.bytes()]), Ok(MemoryEntry::ZERO));
    }
}

#[test]
fn registered_as_bdi_without_hardware() {
    assert_eq!("bdi".parse::<Algorithm>(), Ok(Algorithm::Bdi));
    assert_eq!(Algorithm::Bdi.codec().algorithm(), Algorithm::Bdi);
    assert!(Algorithm::ALL.contains(&Algorithm::Bdi));
    assert_eq!(Algorithm::Bdi.hardware(), None);
    let err = Algorithm::Bdi.require_hardware().unwrap_err().to_string();
    assert!(err.starts_with("bdi has no rust-hdl hardware"), "{err}");
    assert_eq!(Algorithm::Bdi.mag(), None);
}

// ---------------------------------------------------------------- errors

#[test]
fn bad_input_is_an_error() {
    // Reserved codes 8-15 in the first nibble.
    for code in 8..16u8 {
        let mut s = vec![0u8; 32];
        s[0] = code | 0xa0;
        assert_eq!(Bdi.decompress(SizeClass::B32, &s), Err(DecodeError::ReservedEncoding { algorithm: "bdi", code }));
    }
    // base4-Δ2 (580 bits) in a B64 class.
    let mut s = vec![0u8; 64];
    s[0] = 6;
    assert_eq!(Bdi.decompress(SizeClass::B64, &s), Err(DecodeError::StreamOverrun { class: "B64", needed_bits: 580, available_bits: 512 }));
    // Repeated (68 bits) in B8.
    assert!(matches!(Bdi.decompress(SizeClass::B8, &[1, 0, 0, 0, 0, 0, 0, 0]), Err(DecodeError::StreamOverrun { .. })));
    // Wrong lengths, ZERO/RAW given to the stream decoder, reserved size codes.
    assert!(matches!(Bdi.decompress(SizeClass::B32, &[2; 31]), Err(DecodeError::StoredLength { .. })));
    assert!(matches!(Bdi.decode_stream(SizeClass::B32, &[2; 33]), Err(DecodeError::StoredLength { .. })));
    assert_eq!(Bdi.decode_stream(SizeClass::Zero, &[]), Err(DecodeError::NotAStreamClass { class: "ZERO" }));
    assert_eq!(Bdi.decode_stream(SizeClass::Raw, &[0; 128]), Err(DecodeError::NotAStreamClass { class: "RAW" }));
    assert_eq!(Bdi.decompress_code(9, &[]), Err(DecodeError::ReservedSizeCode { code: 9 }));
    // The raw decoder on no bytes at all.
    assert!(matches!(Bdi.decode(SizeClass::B8, &[]), Err(DecodeError::StreamOverrun { needed_bits: 4, .. })));
}

// ---------------------------------------------------------------- reference model

/// docs/formats.md#bdi written out plainly with i128 arithmetic: the
/// (encoding, stream bytes) the compressor must pick, `None` for RAW.
fn reference(e: &MemoryEntry) -> Option<(Encoding, Vec<u8>)> {
    let bytes = e.to_bytes();
    let vals = |k: usize| -> Vec<u128> { bytes.chunks(k).map(|c| c.iter().rev().fold(0u128, |v, &b| v << 8 | b as u128)).collect() };
    let signed = |x: u128, bits: usize| -> i128 {
        let x = x as i128;
        if x >> (bits - 1) & 1 == 1 {
            x - (1i128 << bits)
        } else {
            x
        }
    };
    let mut out: Vec<(usize, u8, Vec<bool>)> = Vec::new(); // (bits, code, stream)
    let push = |s: &mut Vec<bool>, v: u128, n: usize| (0..n).for_each(|b| s.push(v >> b & 1 == 1));
    if bytes.iter().all(|&b| b == 0) {
        return Some((Encoding::Zeros, vec![0]));
    }
    let v8 = vals(8);
    if v8.iter().all(|&x| x == v8[0]) {
        let mut s = Vec::new();
        push(&mut s, 1, 4);
        push(&mut s, v8[0], 64);
        out.push((s.len(), 1, s));
    }
    for (code, k, d) in [(2u8, 8usize, 1usize), (3, 8, 2), (4, 8, 4), (5, 4, 1), (6, 4, 2), (7, 2, 1)] {
        let v = vals(k);
        let lim = 1i128 << (8 * d - 1);
        let fits = |x: i128| -lim <= x && x < lim;
        let imm: Vec<bool> = v.iter().map(|&x| fits(signed(x, 8 * k))).collect();
        let base = v.iter().zip(&imm).find(|(_, &i)| !i).map_or(0, |(&x, _)| x);
        let modulus = 1u128 << (8 * k);
        let deltas: Option<Vec<i128>> = v
            .iter()
            .zip(&imm)
            .map(|(&x, &i)| {
                let dl = if i { signed(x, 8 * k) } else { signed((x + modulus - base) % modulus, 8 * k) };
                fits(dl).then_some(dl)
            })
            .collect();
        let Some(deltas) = deltas else { continue };
        let mut s = Vec::new();
        push(&mut s, code as u128, 4);
        push(&mut s, base, 8 * k);
        for &i in &imm {
            s.push(!i);
        }
        for dl in deltas {
            push(&mut s, (dl as u128) & ((1 << (8 * d)) - 1), 8 * d);
        }
        out.push((s.len(), code, s));
    }
    let (_, code, s) = out.into_iter().min_by_key(|(bits, code, _)| (*bits, *code))?;
    let mut packed = vec![0u8; s.len().div_ceil(8)];
    for (j, &b) in s.iter().enumerate() {
        packed[j / 8] |= (b as u8) << (j % 8);
    }
    Some((Encoding::from_code(code).unwrap(), packed))
}

fn check_against_reference(e: &MemoryEntry) -> Result<(), TestCaseError> {
    let want = reference(e);
    prop_assert_eq!(Bdi.encoding(e), want.as_ref().map(|(enc, _)| *enc));
    let c = Bdi.compress(e);
    match (&want, e.is_zero()) {
        (_, true) => prop_assert_eq!(c.class, SizeClass::Zero),
        (None, false) => {
            prop_assert_eq!((c.class, c.stream_bits), (SizeClass::Raw, UNCOMPRESSED_BITS));
            prop_assert_eq!(c.stored(), &e.to_bytes()[..]);
        }
        (Some((enc, bytes)), false) => {
            prop_assert_eq!(c.stream_bits, enc.stream_bits());
            prop_assert_eq!(c.class, SizeClass::for_stream_bits(enc.stream_bits()));
            prop_assert_eq!(&c.stored()[..bytes.len()], &bytes[..]);
            prop_assert!(c.stored()[bytes.len()..].iter().all(|&b| b == 0));
        }
    }
    prop_assert_eq!(Bdi.decompress(c.class, c.stored()), Ok(*e));
    Ok(())
}

// ---------------------------------------------------------------- strategies

/// Entries built around one (k, d): values `base + delta` or small
/// immediates (per-entry share), deltas concentrated on the signed range's
/// limits (in some entries also one past them); sometimes a random value;
/// or a repeated value.
fn bdi_entry() -> impl Strategy<Value = MemoryEntry> {
    let sizes = prop::sample::select(vec![(8usize, 1usize), (8, 2), (8, 4), (4, 1), (4, 2), (2, 1), (4, 3), (8, 3)]);
    let shaped = (
        sizes,
        any::<u64>(),
        0u32..=100,
        prop_oneof![3 => Just(0u32), 1 => 1u32..20],
        prop::bool::weighted(0.3),
        proptest::collection::vec((any::<u32>(), any::<u64>()), 64),
    )
        .prop_map(|((k, d), base, p_imm, p_rand, past, picks)| {
            let bits = 8 * d as u32;
            let half = 1i64 << (bits - 1);
            let kmask = if k == 8 { u64::MAX } else { (1u64 << (8 * k)) - 1 };
            let base = base & kmask;
            let edge = |r: u64| -> i64 {
                match r % 8 {
                    0 => half - 1,
                    1 => -half,
                    2 if past => half,
                    3 if past => -half - 1,
                    _ => (r >> 3) as i64 % half,
                }
            };
            let n = 128 / k;
            let mut bytes = [0u8; 128];
            for (i, &(pick, r)) in picks.iter().take(n).enumerate() {
                let v = if pick % 100 < p_rand {
                    r
                } else if pick % 1000 / 10 < p_imm {
                    edge(r) as u64
                } else {
                    base.wrapping_add(edge(r) as u64)
                } & kmask;
                bytes[i * k..(i + 1) * k].copy_from_slice(&v.to_le_bytes()[..k]);
            }
            MemoryEntry::from_bytes(&bytes)
        });
    let repeated = (any::<u64>(), 0usize..20, any::<u64>()).prop_map(|(v, at, other)| {
        let mut vals = [v; 16];
        if at < 16 {
            vals[at] = other; // sometimes one value differs
        }
        from_u64(vals)
    });
    let noise = proptest::collection::vec(any::<u32>(), 32).prop_map(|v| MemoryEntry::from_words(v.try_into().unwrap()));
    prop_oneof![6 => shaped, 2 => repeated, 1 => noise, 1 => Just(MemoryEntry::ZERO)]
}

/// The strategy reaches every encoding and RAW (checked on a fixed sample).
#[test]
fn strategy_reaches_every_encoding() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..5_000 {
        let e = bdi_entry().new_tree(&mut runner).unwrap().current();
        seen.insert(Bdi.encoding(&e).map_or(99, |x| x.code()));
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5, 6, 7, 99]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(5_000)))]

    #[test]
    fn agrees_with_the_reference_and_round_trips(e in bdi_entry()) {
        check_against_reference(&e)?;
    }

    /// Any stored bytes of any class: an entry or an error, never a panic;
    /// whatever decodes compresses and round-trips again.
    #[test]
    fn arbitrary_stored_bytes_never_panic(code in 0u8..16, len in 0usize..=128, bytes in proptest::collection::vec(any::<u8>(), 128)) {
        if let Ok(e) = Bdi.decompress_code(code, &bytes[..len]) {
            let c = Bdi.compress(&e);
            prop_assert_eq!(Bdi.decompress(c.class, c.stored()), Ok(e));
        }
    }

    /// Valid streams with flipped bits or cut short: an entry or an error.
    #[test]
    fn corrupted_streams_never_panic(e in bdi_entry(), flips in proptest::collection::vec(0usize..768, 0..4), cut in 0usize..=96) {
        let c = Bdi.compress(&e);
        let mut stored = c.stored().to_vec();
        for &bit in &flips {
            if let Some(b) = stored.get_mut(bit / 8) {
                *b ^= 1 << (bit % 8);
            }
        }
        let _ = Bdi.decompress(c.class, &stored);
        let _ = Bdi.decode(c.class, &stored[..cut.min(stored.len())]);
    }
}

// ---------------------------------------------------------------- real data

/// Snapshot 0 (`snap_00.bin`) of every workload folder of `../shared/data`
/// beside the repository; panics, naming the folder, when it is missing or
/// holds none (the test never passes without its data).
fn shared_snapshots() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    let folders = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}; this test needs the shared workloads beside the repository", root.display()));
    let mut snapshots: Vec<(String, Vec<u8>)> = folders
        .flatten()
        .filter_map(|f| std::fs::read(f.path().join("snap_00.bin")).ok().map(|b| (f.file_name().to_string_lossy().into_owned(), b)))
        .collect();
    snapshots.sort();
    assert!(!snapshots.is_empty(), "{} holds no workload with a snap_00.bin", root.display());
    snapshots
}

/// Every 128-byte entry of snapshot 0 of every shared workload round-trips
/// and agrees with the reference; the figures are printed
/// (`-- --nocapture`), not asserted.
#[test]
fn every_entry_of_the_shared_snapshots_round_trips() {
    let snapshots = shared_snapshots();
    for (name, bytes) in snapshots {
        assert_eq!(bytes.len() % 128, 0, "{name}");
        let mut per_encoding = [0usize; 9];
        let mut stored = 0usize;
        for chunk in bytes.chunks_exact(128) {
            let e = MemoryEntry::from_slice(chunk).unwrap();
            let c = Bdi.compress(&e);
            assert_eq!(Bdi.decompress(c.class, c.stored()), Ok(e), "{name}");
            if let Err(err) = check_against_reference(&e) {
                panic!("{name}: {err}");
            }
            per_encoding[Bdi.encoding(&e).map_or(8, |x| x.code() as usize)] += 1;
            stored += c.class.bytes();
        }
        let entries = bytes.len() / 128;
        eprintln!(
            "{name}: {entries} entries, per encoding (codes 0-7, RAW) {per_encoding:?}, ratio {:.3}",
            bytes.len() as f64 / stored as f64
        );
        assert!(per_encoding[8] < entries, "{name}: BDI compresses nothing");
    }
}
