//! The 128-byte memory-entry as a hardware value (docs/formats.md#memory-entry).

use rust_hdl::prelude::*;

seq_macro::seq!(N in 0..32 {
    /// One 128-byte memory-entry or one 1024-bit compressed payload, as 32
    /// 32-bit words.
    ///
    /// In Verilog this is a single `[1023:0]` vector with word `wN` at bits
    /// `[32N +: 32]`, i.e. `E[32i +: 32] = w[i]` of docs/formats.md#memory-entry. Words are
    /// kept at 32 bits because rust-hdl simulates wider `Bits` about 20x slower.
    #[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
    pub struct EntryBits {
        #( pub w~N: Bits<32>, )*
    }

    impl EntryBits {
        /// From 32 words, `words[i]` = `w[i]`.
        pub fn from_words(words: &[u32; 32]) -> Self {
            EntryBits { #( w~N: (words[N] as u64).into(), )* }
        }

        /// The 32 words, `w[i]` at index `i`.
        pub fn to_words(&self) -> [u32; 32] {
            [ #( self.w~N.to_u32(), )* ]
        }
    }
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        let words: [u32; 32] = std::array::from_fn(|i| (i as u32).wrapping_mul(0x9e37_79b9));
        assert_eq!(EntryBits::from_words(&words).to_words(), words);
        assert_eq!(EntryBits::BITS, 1024);
    }
}
