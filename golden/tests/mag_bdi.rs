//! MAG-BDI through the crate's public API, as the CLI and the studies use it
//! (the bit-level and property tests are the unit tests in `src/mag_bdi.rs`).

use buddy_golden::mag_bdi::{compressor_unit, effective_ratio, raw_ratio, Mag, MagBdi, Unit, UNCOMPRESSED_BITS};
use buddy_golden::{Codec, MemoryEntry, SizeClass};

/// `w[0] = base` (the non-zero base), then `base + 2^(bits-1) - 1` and
/// `base - 2^(bits-1)` alternating: deltas that need exactly `bits` bits.
fn around(base: u32, bits: u32) -> MemoryEntry {
    let h = 1i32 << (bits - 1);
    MemoryEntry::from_words(std::array::from_fn(|i| {
        let delta = match i {
            0 => 0,
            _ if i % 2 == 1 => h - 1,
            _ => -h,
        };
        base.wrapping_add(delta as u32)
    }))
}

/// Table III (MAG 32): deltas of 6/14/22 bits take 32/64/96 bytes, wider is
/// uncompressed; inside Buddy that is B32/B64/B96/RAW.
#[test]
fn table_iii_through_a_boxed_codec() {
    let codec: Box<dyn Codec + Send + Sync> = Box::new(MagBdi::default());
    let base = 0x4000_0000;
    for (bits, class) in [(6, SizeClass::B32), (14, SizeClass::B64), (22, SizeClass::B96), (23, SizeClass::Raw)] {
        let e = around(base, bits);
        let c = codec.compress(&e);
        assert_eq!(c.class, class, "{bits}-bit deltas");
        assert_eq!(codec.decompress(c.class, c.stored()), Ok(e));
    }
    assert_eq!(codec.compress(&around(base, 23)).stream_bits, UNCOMPRESSED_BITS);
}

#[test]
fn paper_metrics_per_mag() {
    let e = around(0x4000_0000, 10); // 10-bit deltas
    let expect = [(Mag::B16, Some(384), 128.0 / 48.0, 128.0 / 48.0), (Mag::B32, Some(512), 2.0, 2.0), (Mag::B64, Some(512), 2.0, 2.0)];
    for (mag, bits, raw, effective) in expect {
        let codec = MagBdi::new(mag);
        assert_eq!(codec.stream_bits(&e), bits, "{mag:?}");
        assert_eq!(raw_ratio(bits), raw);
        assert_eq!(effective_ratio(bits, mag), effective);
    }
    // Inside Buddy the MAG 16 48-byte stream is stored as its 64-byte encoding.
    assert_eq!(MagBdi::new(Mag::B16).compress(&e).class, SizeClass::B64);
}

#[test]
fn compressor_unit_is_public_for_hardware_checks() {
    let e = around(0x4000_0000, 6);
    assert_eq!(compressor_unit(e.words(), 6), Some(Unit { base: 0x4000_0000, mask: u32::MAX }));
    assert_eq!(compressor_unit(e.words(), 5), None);
}
