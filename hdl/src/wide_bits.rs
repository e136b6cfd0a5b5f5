//! A 256-bit sector vector to and from bytes and 32-bit words (and a
//! 128-bit run strobe from its integer), for drivers and simulation-only
//! models.
//!
//! Bit `8k + b` of the vector is bit `b` of byte `k`; word `m` is bits
//! `[32m +: 32]` (docs/formats.md#sectors). The conversions go bit by bit:
//! rust-hdl's `get_bits` / `set_bits` shift a wide vector through big
//! integers, tens of times slower, and the RTL engine converts every
//! sector it moves.

use rust_hdl::core::bitvec::BitVec;
use rust_hdl::prelude::*;

/// The 32 bytes of a sector vector, byte `k` from bits `[8k +: 8]`.
pub fn sector_to_bytes(b: &Bits<256>) -> [u8; 32] {
    std::array::from_fn(|k| (0..8).fold(0u8, |acc, i| acc | (b.get_bit(8 * k + i) as u8) << i))
}

/// The sector vector of 32 bytes, byte `k` at bits `[8k +: 8]`.
pub fn sector_from_bytes(s: &[u8; 32]) -> Bits<256> {
    let bits: [bool; 256] = std::array::from_fn(|i| s[i / 8] >> (i % 8) & 1 == 1);
    Bits::Long(BitVec::from(bits))
}

/// The 8 words of a sector vector, word `m` from bits `[32m +: 32]`.
pub fn sector_to_words(b: &Bits<256>) -> [u32; 8] {
    std::array::from_fn(|m| (0..32).fold(0u32, |acc, i| acc | (b.get_bit(32 * m + i) as u32) << i))
}

/// The sector vector of 8 words, word `m` at bits `[32m +: 32]`.
pub fn sector_from_words(words: &[u32; 8]) -> Bits<256> {
    let bits: [bool; 256] = std::array::from_fn(|i| words[i / 32] >> (i % 32) & 1 == 1);
    Bits::Long(BitVec::from(bits))
}

/// A 128-bit vector (a run's byte strobe) from its integer, bit `k` of
/// `v` at bit `k`.
pub fn bits128(v: u128) -> Bits<128> {
    let bits: [bool; 128] = std::array::from_fn(|i| v >> i & 1 == 1);
    Bits::Long(BitVec::from(bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against rust-hdl's own `get_bits` / `set_bits`.
    #[test]
    fn conversions_agree_with_rust_hdl_and_round_trip() {
        let bytes: [u8; 32] = std::array::from_fn(|k| (k as u8).wrapping_mul(37) ^ 0xA5);
        let mut reference = Bits::<256>::default();
        for (k, &v) in bytes.iter().enumerate() {
            reference.set_bits::<8>(8 * k, (v as u64).into());
        }
        assert_eq!(sector_from_bytes(&bytes), reference);
        assert_eq!(sector_to_bytes(&reference), bytes);
        let words: [u32; 8] = std::array::from_fn(|m| reference.get_bits::<32>(32 * m).to_u32());
        assert_eq!(sector_to_words(&reference), words);
        assert_eq!(sector_from_words(&words), reference);
        assert_eq!(words[0], u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]));
    }
}
