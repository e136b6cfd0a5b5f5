//! Zero-Value Compression (ZVC).
//!
//! Source: cDMA (seed `003_*`), Sec. V-A and Fig. 8 (the engine is Fig. 10);
//! bit layout fixed by docs/formats.md#zvc.
//!
//! Stream (LSB-first, docs/formats.md#stream-packing):
//!
//! ```text
//!  bit 0        32            64                 32+32n
//!  | mask[31:0] | nz word 0   | nz word 1 | ...  |
//! ```
//!
//! `mask` bit `i` is 1 iff `w[i] != 0`; the `n = popcount(mask)` non-zero
//! words follow in increasing index order. Length `32 + 32n` bits, so one
//! non-zero word is B8, 7 are B32, 24 or more are RAW.

use crate::codec::{Algorithm, Codec, STREAM_BUFFER_BYTES};
use crate::entry::{MemoryEntry, ENTRY_WORDS};
use crate::error::DecodeError;
use crate::size_class::SizeClass;

/// The ZVC golden codec.
#[derive(Debug, Clone, Copy, Default)]
pub struct Zvc;

/// Bits of the ZVC stream of an entry with `nonzero_words` non-zero words.
pub const fn stream_bits(nonzero_words: usize) -> usize {
    32 + 32 * nonzero_words
}

/// The 32-bit ZVC mask of an entry: bit `i` set iff word `i` is non-zero.
pub fn mask(entry: &MemoryEntry) -> u32 {
    entry.words().iter().enumerate().fold(0u32, |m, (i, &w)| m | (((w != 0) as u32) << i))
}

impl Codec for Zvc {
    fn algorithm(&self) -> Algorithm {
        Algorithm::Zvc
    }

    fn encode_stream(&self, entry: &MemoryEntry, stream: &mut [u8; STREAM_BUFFER_BYTES]) -> usize {
        let mask = mask(entry);
        let bits = stream_bits(mask.count_ones() as usize);
        if bits <= STREAM_BUFFER_BYTES * 8 {
            // Branch-free packing: every word is written at the next slot and
            // the slot advances only past non-zero words.
            let mut packed = [0u32; ENTRY_WORDS + 1];
            packed[0] = mask;
            let mut k = 1;
            for &w in entry.words() {
                packed[k] = w;
                k += (w != 0) as usize;
            }
            for (chunk, w) in stream.chunks_exact_mut(4).zip(&packed[..k]) {
                chunk.copy_from_slice(&w.to_le_bytes());
            }
            for chunk in stream.chunks_exact_mut(4).skip(k) {
                chunk.fill(0);
            }
        }
        bits
    }

    fn decode_stream(&self, class: SizeClass, stored: &[u8]) -> Result<MemoryEntry, DecodeError> {
        let available_bits = stored.len() * 8;
        if available_bits < 32 {
            return Err(DecodeError::StreamOverrun { class: class.name(), needed_bits: 32, available_bits });
        }
        let mask = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
        let needed_bits = stream_bits(mask.count_ones() as usize);
        if needed_bits > available_bits {
            return Err(DecodeError::StreamOverrun { class: class.name(), needed_bits, available_bits });
        }
        let mut words = [0u32; ENTRY_WORDS];
        let mut rest = mask;
        for chunk in stored[4..needed_bits / 8].chunks_exact(4) {
            words[rest.trailing_zeros() as usize] = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            rest &= rest - 1;
        }
        Ok(MemoryEntry::from_words(words))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry_with(nonzero: &[(usize, u32)]) -> MemoryEntry {
        let mut w = [0u32; 32];
        for &(i, v) in nonzero {
            w[i] = v;
        }
        MemoryEntry::from_words(w)
    }

    #[test]
    fn all_zero_is_class_zero_with_nothing_stored() {
        let c = Zvc.compress(&MemoryEntry::ZERO);
        assert_eq!(c.class, SizeClass::Zero);
        assert_eq!(c.stream_bits, 0);
        assert!(c.stored().is_empty());
        assert_eq!(Zvc.decompress(SizeClass::Zero, &[]), Ok(MemoryEntry::ZERO));
    }

    /// docs/formats.md#zvc: one non-zero word → 64 bits → B8, with the exact bytes.
    #[test]
    fn worked_example_one_word_is_b8() {
        let e = entry_with(&[(5, 0xdead_beef)]);
        let c = Zvc.compress(&e);
        assert_eq!(c.stream_bits, 64);
        assert_eq!(c.class, SizeClass::B8);
        assert_eq!(c.stored(), &[0x20, 0, 0, 0, 0xef, 0xbe, 0xad, 0xde]);
        assert_eq!(Zvc.decompress(c.class, c.stored()), Ok(e));
    }

    /// docs/formats.md#zvc: 7 non-zero words → 256 bits → B32.
    #[test]
    fn worked_example_seven_words_is_b32() {
        let e = entry_with(&[(0, 1), (3, 2), (4, 3), (10, 4), (20, 5), (30, 6), (31, 7)]);
        let c = Zvc.compress(&e);
        assert_eq!(c.stream_bits, 256);
        assert_eq!(c.class, SizeClass::B32);
        let mask: u32 = (1 << 0) | (1 << 3) | (1 << 4) | (1 << 10) | (1 << 20) | (1 << 30) | (1 << 31);
        assert_eq!(&c.stored()[0..4], &mask.to_le_bytes());
        for k in 0..7 {
            assert_eq!(&c.stored()[4 + 4 * k..8 + 4 * k], &(k as u32 + 1).to_le_bytes());
        }
        assert!(c.stored()[32..].is_empty());
        assert_eq!(Zvc.decompress(c.class, c.stored()), Ok(e));
    }

    /// docs/formats.md#zvc: 24 non-zero words → 800 bits > 768 → RAW; 23 → 768 → B96.
    #[test]
    fn worked_example_raw_boundary() {
        let e24 = MemoryEntry::from_words(std::array::from_fn(|i| if i < 24 { i as u32 + 1 } else { 0 }));
        let c = Zvc.compress(&e24);
        assert_eq!((c.stream_bits, c.class), (800, SizeClass::Raw));
        assert_eq!(c.stored(), &e24.to_bytes());
        let e23 = MemoryEntry::from_words(std::array::from_fn(|i| if i < 23 { i as u32 + 1 } else { 0 }));
        let c = Zvc.compress(&e23);
        assert_eq!((c.stream_bits, c.class), (768, SizeClass::B96));
        assert_eq!(Zvc.decompress(c.class, c.stored()), Ok(e23));
    }

    #[test]
    fn mask_claiming_more_words_than_the_class_holds_is_an_error() {
        // B8 holds the mask and one word; a mask with two bits set overruns it.
        let stored = [0x03, 0, 0, 0, 1, 0, 0, 0];
        assert_eq!(
            Zvc.decompress(SizeClass::B8, &stored),
            Err(DecodeError::StreamOverrun { class: "B8", needed_bits: 96, available_bits: 64 })
        );
    }

    #[test]
    fn wrong_stored_length_and_reserved_code_are_errors() {
        assert!(matches!(Zvc.decompress(SizeClass::B16, &[0u8; 15]), Err(DecodeError::StoredLength { .. })));
        assert_eq!(Zvc.decompress_code(9, &[]), Err(DecodeError::ReservedSizeCode { code: 9 }));
    }
}
