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
//!
//! [`LineStream`] is the same stream seen 32-byte sector by sector, as
//! cDMA's compression and decompression engines build and read it
//! (Sec. V-B, Fig. 10), with no size class.

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

/// 32-bit words in one 32-byte sector: the unit cDMA's (de)compression
/// engines take or give per cycle (seed `003_*`, Sec. V-B, Fig. 10).
pub use crate::entry::SECTOR_WORDS;

/// Sectors in one 128-byte memory-entry (line).
pub const LINE_SECTORS: usize = ENTRY_WORDS / SECTOR_WORDS;

/// The ZVC stream of one 128-byte line as cDMA's engine builds it
/// (Fig. 10(a): a mask register, a compressed 128 B buffer and a buffer
/// length), with no size class: the per-line stream of cDMA's offload
/// windows ([`crate::offload_window`]), which is also [`Zvc`]'s stream of
/// the entry (the codec stores it only when it fits 768 bits).
///
/// Sector `k` (words `8k..8k+8`) owns mask bits `8k..8k+8` and its non-zero
/// words follow those of sectors `0..k`, so the stream can be built and
/// read one sector at a time ([`LineStream::append_sector`],
/// [`LineStream::sector`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LineStream {
    /// Bit `i` set iff word `i` of the line is non-zero.
    pub mask: u32,
    /// The non-zero words in index order, then zeros.
    pub words: [u32; ENTRY_WORDS],
}

impl LineStream {
    /// The stream of `entry`, built sector by sector.
    pub fn of(entry: &MemoryEntry) -> Self {
        let mut s = LineStream::default();
        for (k, sector) in entry.words().chunks_exact(SECTOR_WORDS).enumerate() {
            s.append_sector(k, sector.try_into().expect("8 words"));
        }
        s
    }

    /// Append sector `k` (0..4) of a line, the sectors before it already
    /// appended: its 8-bit mask segment becomes mask bits `8k..8k+8` and
    /// its non-zero words, in order, follow the words already held.
    ///
    /// # Panics
    /// `k >= 4`, or the stream already holds mask bits at or above `8k`.
    pub fn append_sector(&mut self, k: usize, sector: &[u32; SECTOR_WORDS]) {
        assert!(k < LINE_SECTORS && self.mask >> (SECTOR_WORDS * k) == 0, "sector {k} appended out of order");
        let mut at = self.nonzero_words();
        for (m, &w) in sector.iter().enumerate() {
            if w != 0 {
                self.mask |= 1 << (SECTOR_WORDS * k + m);
                self.words[at] = w;
                at += 1;
            }
        }
    }

    /// Number of non-zero words (`n`).
    pub fn nonzero_words(&self) -> usize {
        self.mask.count_ones() as usize
    }

    /// Length in bits, `32 + 32 n` ([`stream_bits`]).
    pub fn bits(&self) -> usize {
        stream_bits(self.nonzero_words())
    }

    /// The stream's `4 + 4n` bytes, packed LSB-first (formats.md §1): the
    /// mask, then the non-zero words.
    pub fn to_bytes(&self) -> Vec<u8> {
        std::iter::once(self.mask).chain(self.words[..self.nonzero_words()].iter().copied()).flat_map(u32::to_le_bytes).collect()
    }

    /// Sector `k` (0..4) of the line the stream holds. Its words start at
    /// the stream word `popcount(mask[8k-1:0])` (the decompression
    /// engine's offset); words past the `n` non-zero ones are never read.
    ///
    /// # Panics
    /// `k >= 4`.
    pub fn sector(&self, k: usize) -> [u32; SECTOR_WORDS] {
        assert!(k < LINE_SECTORS);
        let below = if k == 0 { 0 } else { self.mask & (u32::MAX >> (32 - SECTOR_WORDS * k)) };
        let mut at = below.count_ones() as usize;
        std::array::from_fn(|m| {
            if self.mask >> (SECTOR_WORDS * k + m) & 1 == 1 {
                at += 1;
                self.words[at - 1]
            } else {
                0
            }
        })
    }

    /// The line the stream holds.
    pub fn decode(&self) -> MemoryEntry {
        let mut words = [0u32; ENTRY_WORDS];
        for (k, chunk) in words.chunks_exact_mut(SECTOR_WORDS).enumerate() {
            chunk.copy_from_slice(&self.sector(k));
        }
        MemoryEntry::from_words(words)
    }
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

    /// The sector-wise stream of a line with words in sectors 0 and 2:
    /// mask segments at bits 0..8 and 16..24, sector 2's words after
    /// sector 0's; sector 2 is read from stream word 2.
    #[test]
    fn line_stream_worked_example() {
        let e = entry_with(&[(1, 0xa), (6, 0xb), (17, 0xc)]);
        let s = LineStream::of(&e);
        assert_eq!(s.mask, (1 << 1) | (1 << 6) | (1 << 17));
        assert_eq!(s.words[..4], [0xa, 0xb, 0xc, 0]);
        assert_eq!(s.bits(), 128);
        assert_eq!(s.to_bytes(), [0x42, 0, 2, 0, 0xa, 0, 0, 0, 0xb, 0, 0, 0, 0xc, 0, 0, 0]);
        assert_eq!(s.sector(2), [0, 0xc, 0, 0, 0, 0, 0, 0]);
        assert_eq!(s.sector(1), [0; 8]);
        assert_eq!(s.decode(), e);
    }

    #[test]
    fn line_stream_of_zero_and_dense_lines() {
        let zero = LineStream::of(&MemoryEntry::ZERO);
        assert_eq!((zero.mask, zero.bits(), zero.to_bytes()), (0, 32, vec![0, 0, 0, 0]));
        let dense = MemoryEntry::from_words(std::array::from_fn(|i| i as u32 + 1));
        let s = LineStream::of(&dense);
        assert_eq!((s.mask, s.bits(), s.words), (u32::MAX, 1056, *dense.words()));
        assert_eq!(s.decode(), dense);
    }

    #[test]
    #[should_panic(expected = "out of order")]
    fn appending_a_sector_twice_panics() {
        let mut s = LineStream::default();
        s.append_sector(1, &[1; 8]);
        s.append_sector(1, &[1; 8]);
    }

    mod line_stream_props {
        use super::super::*;
        use proptest::prelude::*;

        fn line() -> impl Strategy<Value = MemoryEntry> {
            proptest::collection::vec(prop_oneof![3 => Just(0u32), 1 => any::<u32>()], 32)
                .prop_map(|w| MemoryEntry::from_words(w.try_into().unwrap()))
        }

        proptest! {
            /// The sector-wise stream is the offload window's line stream,
            /// the codec's stream (when it is stored) and the mask of
            /// [`mask`]; it decodes sector by sector to the line.
            #[test]
            fn sector_wise_stream_is_the_line_stream(e in line()) {
                let s = LineStream::of(&e);
                prop_assert_eq!(s.mask, mask(&e));
                prop_assert_eq!(&s.to_bytes(), &crate::offload_window::compress(crate::offload_window::WindowAlgorithm::Zvc, &e.to_bytes()).unwrap());
                let mut buf = [0u8; STREAM_BUFFER_BYTES];
                prop_assert_eq!(s.bits(), Zvc.encode_stream(&e, &mut buf));
                if s.bits() <= STREAM_BUFFER_BYTES * 8 {
                    prop_assert_eq!(&buf[..s.bits() / 8], &s.to_bytes()[..]);
                }
                prop_assert!(s.words[s.nonzero_words()..].iter().all(|&w| w == 0));
                prop_assert_eq!(s.decode(), e);
            }
        }
    }

    #[test]
    fn wrong_stored_length_and_reserved_code_are_errors() {
        assert!(matches!(Zvc.decompress(SizeClass::B16, &[0u8; 15]), Err(DecodeError::StoredLength { .. })));
        assert_eq!(Zvc.decompress_code(9, &[]), Err(DecodeError::ReservedSizeCode { code: 9 }));
    }
}
