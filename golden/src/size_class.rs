//! Size classes and the 4-bit size metadata (docs/formats.md#size-classes).

use crate::error::DecodeError;
use serde::Serialize;

/// Largest compressed stream stored compressed, in bits (96 bytes). A longer
/// stream is stored raw (docs/formats.md#size-classes).
pub const MAX_COMPRESSED_BITS: usize = 768;

/// The stored size of one memory-entry, kept as 4 bits of metadata per entry
/// (Buddy Compression Sec. III-A; 0.4% of memory).
///
/// | code | class | bytes | 32B sectors |
/// |---|---|---|---|
/// | 0 | ZERO | 0 | 0 |
/// | 1 | B8 | 8 | 1 |
/// | 2 | B16 | 16 | 1 |
/// | 3 | B32 | 32 | 1 |
/// | 4 | B64 | 64 | 2 |
/// | 5 | B80 | 80 | 3 |
/// | 6 | B96 | 96 | 3 |
/// | 7 | RAW | 128 | 4 |
///
/// Codes 8-15 are reserved: [`SizeClass::from_code`] returns
/// [`DecodeError::ReservedSizeCode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[repr(u8)]
pub enum SizeClass {
    Zero = 0,
    B8 = 1,
    B16 = 2,
    B32 = 3,
    B64 = 4,
    B80 = 5,
    B96 = 6,
    Raw = 7,
}

impl SizeClass {
    /// All classes in code order.
    pub const ALL: [SizeClass; 8] =
        [SizeClass::Zero, SizeClass::B8, SizeClass::B16, SizeClass::B32, SizeClass::B64, SizeClass::B80, SizeClass::B96, SizeClass::Raw];

    /// The 4-bit metadata code (0-7).
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The class of a 4-bit metadata code.
    ///
    /// # Errors
    /// [`DecodeError::ReservedSizeCode`] for codes 8 and above.
    pub fn from_code(code: u8) -> Result<Self, DecodeError> {
        Self::ALL.get(code as usize).copied().ok_or(DecodeError::ReservedSizeCode { code })
    }

    /// Bytes stored for an entry of this class.
    pub const fn bytes(self) -> usize {
        match self {
            SizeClass::Zero => 0,
            SizeClass::B8 => 8,
            SizeClass::B16 => 16,
            SizeClass::B32 => 32,
            SizeClass::B64 => 64,
            SizeClass::B80 => 80,
            SizeClass::B96 => 96,
            SizeClass::Raw => 128,
        }
    }

    /// 32-byte DRAM sectors read or written for an entry of this class.
    pub const fn sectors(self) -> usize {
        self.bytes().div_ceil(32)
    }

    /// Upper-case name as in the spec tables (`ZERO`, `B8`, ..., `RAW`).
    pub const fn name(self) -> &'static str {
        match self {
            SizeClass::Zero => "ZERO",
            SizeClass::B8 => "B8",
            SizeClass::B16 => "B16",
            SizeClass::B32 => "B32",
            SizeClass::B64 => "B64",
            SizeClass::B80 => "B80",
            SizeClass::B96 => "B96",
            SizeClass::Raw => "RAW",
        }
    }

    /// The class that stores a compressed stream of `bits` bits of a non-zero
    /// entry: the smallest of B8..B96 with `ceil(bits/8) <= bytes`, or RAW when
    /// the stream is longer than 768 bits.
    ///
    /// Never returns ZERO: zero detection runs before any algorithm.
    pub const fn for_stream_bits(bits: usize) -> Self {
        let bytes = bits.div_ceil(8);
        if bytes <= 8 {
            SizeClass::B8
        } else if bytes <= 16 {
            SizeClass::B16
        } else if bytes <= 32 {
            SizeClass::B32
        } else if bytes <= 64 {
            SizeClass::B64
        } else if bytes <= 80 {
            SizeClass::B80
        } else if bytes <= 96 {
            SizeClass::B96
        } else {
            SizeClass::Raw
        }
    }
}

impl std::fmt::Display for SizeClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_reserved_codes_fail() {
        for c in SizeClass::ALL {
            assert_eq!(SizeClass::from_code(c.code()), Ok(c));
        }
        for code in 8..=15 {
            assert_eq!(SizeClass::from_code(code), Err(DecodeError::ReservedSizeCode { code }));
        }
    }

    #[test]
    fn sectors_match_the_table() {
        let sectors: Vec<usize> = SizeClass::ALL.iter().map(|c| c.sectors()).collect();
        assert_eq!(sectors, vec![0, 1, 1, 1, 2, 3, 3, 4]);
    }

    #[test]
    fn class_boundaries() {
        assert_eq!(SizeClass::for_stream_bits(1), SizeClass::B8);
        assert_eq!(SizeClass::for_stream_bits(64), SizeClass::B8);
        assert_eq!(SizeClass::for_stream_bits(65), SizeClass::B16);
        assert_eq!(SizeClass::for_stream_bits(128), SizeClass::B16);
        assert_eq!(SizeClass::for_stream_bits(129), SizeClass::B32);
        assert_eq!(SizeClass::for_stream_bits(512), SizeClass::B64);
        assert_eq!(SizeClass::for_stream_bits(513), SizeClass::B80);
        assert_eq!(SizeClass::for_stream_bits(640), SizeClass::B80);
        assert_eq!(SizeClass::for_stream_bits(768), SizeClass::B96);
        assert_eq!(SizeClass::for_stream_bits(769), SizeClass::Raw);
    }
}
