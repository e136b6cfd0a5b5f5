//! The 32-byte sector as a hardware value.

use rust_hdl::prelude::*;

seq_macro::seq!(N in 0..8 {
    /// One 32-byte sector (a quarter of a memory-entry, one DRAM burst) as 8
    /// 32-bit words.
    ///
    /// In Verilog this is a single `[255:0]` vector with word `wN` at bits
    /// `[32N +: 32]`: sector `k` of an entry holds `w[8k + N]` there, so its
    /// bit `b` is bit `256k + b` of the entry vector `E` of formats.md §1.
    #[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
    pub struct SectorBits {
        #( pub w~N: Bits<32>, )*
    }

    impl SectorBits {
        /// From 8 words, `words[m]` = `wm`.
        pub fn from_words(words: &[u32; 8]) -> Self {
            SectorBits { #( w~N: (words[N] as u64).into(), )* }
        }

        /// The 8 words, `wm` at index `m`.
        pub fn to_words(&self) -> [u32; 8] {
            [ #( self.w~N.to_u32(), )* ]
        }
    }
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        let words: [u32; 8] = std::array::from_fn(|i| (i as u32 + 1).wrapping_mul(0x9e37_79b9));
        assert_eq!(SectorBits::from_words(&words).to_words(), words);
        assert_eq!(SectorBits::BITS, 256);
    }
}
