//! The MAG-BDI encodings a hardware variant is built with, derived from the
//! golden model's `Mag` and Buddy's size classes (docs/formats.md#size-classes, docs/formats.md#mag-bdi).

use buddy_golden::{Mag, SizeClass};

/// Stream bits reported for an entry no unit compresses (stored RAW).
pub const UNCOMPRESSED_BITS: usize = buddy_golden::mag_bdi::UNCOMPRESSED_BITS;

/// Size class code of RAW.
pub const RAW_CODE: u8 = SizeClass::Raw.code();

/// One encoding `k` of a MAG: one compressor unit in hardware.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodingSpec {
    /// Encoding number, `1 ..= 128/MAG - 1`.
    pub k: usize,
    /// Delta width in bits, `floor((8*k*MAG - 64) / 32)` (Eq. 1).
    pub delta_bits: u32,
    /// Stream length `8*k*MAG` in bits.
    pub stream_bits: usize,
    /// The size class holding the stream (RAW when longer than 768 bits).
    pub class_code: u8,
    /// True when that class is exactly `k*MAG` bytes, so Buddy stores this
    /// encoding and a decoder can name it from the class alone. False for
    /// MAG 16's `k` = 3 (48 bytes in B64, stored as `k` = 4) and `k` = 7
    /// (112 bytes, RAW).
    pub stored: bool,
}

/// Every encoding of `mag`, smallest first (7, 3 or 1 of them).
pub fn encodings(mag: Mag) -> Vec<EncodingSpec> {
    (1..=mag.encodings())
        .map(|k| {
            let stream_bits = mag.stream_bits_of(k);
            let class = SizeClass::for_stream_bits(stream_bits);
            EncodingSpec {
                k,
                delta_bits: mag.delta_bits_of(k),
                stream_bits,
                class_code: class.code(),
                stored: class != SizeClass::Raw && class.bytes() * 8 == stream_bits,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_match_formats_md_table() {
        let widths = |m| encodings(m).iter().map(|e| (e.delta_bits, e.stream_bits / 8, e.class_code, e.stored)).collect::<Vec<_>>();
        assert_eq!(
            widths(Mag::B16),
            vec![
                (2, 16, 2, true),
                (6, 32, 3, true),
                (10, 48, 4, false),
                (14, 64, 4, true),
                (18, 80, 5, true),
                (22, 96, 6, true),
                (26, 112, 7, false)
            ]
        );
        assert_eq!(widths(Mag::B32), vec![(6, 32, 3, true), (14, 64, 4, true), (22, 96, 6, true)]);
        assert_eq!(widths(Mag::B64), vec![(14, 64, 4, true)]);
    }
}
