//! Lock-step lines: every port of a block in one cycle as one line of hex
//! fields, so an independent simulator can replay a rust-hdl run of the
//! emitted Verilog cycle by cycle (inputs driven, outputs compared).

use rust_hdl::prelude::*;

/// `value` as `ceil(width / 4)` hex digits, most significant first.
pub fn hex_field(value: u64, width: usize) -> String {
    format!("{value:0digits$x}", digits = width.div_ceil(4))
}

/// `bits` as `ceil(N / 4)` hex digits, most significant first (bit 0 is
/// the lowest bit of the last digit).
pub fn hex_bits<const N: usize>(bits: &Bits<N>) -> String {
    (0..N.div_ceil(4))
        .rev()
        .map(|d| {
            let v = (0..4).filter(|k| 4 * d + k < N && bits.get_bit(4 * d + k)).fold(0u32, |v, k| v | 1 << k);
            char::from_digit(v, 16).expect("a hex digit")
        })
        .collect()
}

/// 32-bit words as one hex field, the last word first (word `i` at bits
/// `[32i +: 32]`).
pub fn hex_words(words: &[u32]) -> String {
    words.iter().rev().map(|w| format!("{w:08x}")).collect()
}

/// A 1-bit field.
pub fn hex_bit(b: bool) -> String {
    if b { "1" } else { "0" }.to_string()
}
