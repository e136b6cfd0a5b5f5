//! The last stage of [`crate::BpcDecompressor`]: the words of a memory-entry
//! from its base word and its delta bit-planes (docs/formats.md#bpc-transform, "Undoing it").
//!
//! `D[k]` (mod 2^32) is bit `k` of the planes `DBP[0..31]` (a transpose:
//! wiring); the words are the prefix sums `w[0] = base`,
//! `w[k+1] = w[k] + D[k]` (mod 2^32), computed as a Kogge-Stone prefix over
//! the 32 words: 5 levels of 32-bit adders (129 adders) instead of a chain of
//! 31. The levels come in two blocks, [`BpcRebuildSums`] (the transpose and
//! levels 1-3) and [`BpcRebuildFinish`] (levels 4-5), so that a register
//! can sit between them.

use crate::entry_bits::EntryBits;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Kogge-Stone prefix-sum levels `from..to` (of 0..5) over `a`: level `l`
/// adds to each word the word `2^l` places before it (mod 2^32).
pub fn prefix_levels(mut a: [u32; 32], from: usize, to: usize) -> [u32; 32] {
    for level in from..to {
        let step = 1 << level;
        let before = a;
        for j in step..32 {
            a[j] = before[j].wrapping_add(before[j - step]);
        }
    }
    a
}

/// The words before the prefix sum: `base`, then the deltas `D[0..31]`
/// transposed from the planes.
pub fn deltas(base: u32, planes: &[u32; 32]) -> [u32; 32] {
    let mut a = [0u32; 32];
    a[0] = base;
    for k in 0..31 {
        a[k + 1] = (0..32).fold(0u32, |d, b| d | (planes[b] >> k & 1) << b);
    }
    a
}

/// Prefix-sum levels done by [`BpcRebuildSums`]; [`BpcRebuildFinish`] does the rest.
pub const FIRST_LEVELS: usize = 3;

/// Combinational: the transpose and prefix-sum levels 1-3 (first half of
/// the rebuild).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `planes` | 1024 | in | `DBP[b]` in bits `[32b +: 31]` (bit `32b + 31` is ignored) |
/// | `base` | 32 | in | `w[0]` |
/// | `sums` | 1024 | out | the 32 partial sums after level 3, word `j` at `[32j +: 32]` |
#[derive(SettleBlock, Default)]
pub struct BpcRebuildSums {
    _settle: crate::settle::Settle,
    pub planes: Signal<In, EntryBits>,
    pub base: Signal<In, Bits<32>>,
    pub sums: Signal<Out, EntryBits>,
}

impl Logic for BpcRebuildSums {
    fn update(&mut self) {
        let a = prefix_levels(deltas(self.base.val().to_u32(), &self.planes.val().to_words()), 0, FIRST_LEVELS);
        self.sums.next = EntryBits::from_words(&a);
    }

    fn connect(&mut self) {
        self.sums.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(sums_verilog())
    }
}

/// Combinational: prefix-sum levels 4-5 (second half of the rebuild).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `sums` | 1024 | in | [`BpcRebuildSums`]' partial sums |
/// | `entry` | 1024 | out | `w[i]` at `[32i +: 32]` |
#[derive(SettleBlock, Default)]
pub struct BpcRebuildFinish {
    _settle: crate::settle::Settle,
    pub sums: Signal<In, EntryBits>,
    pub entry: Signal<Out, EntryBits>,
}

impl Logic for BpcRebuildFinish {
    fn update(&mut self) {
        let a = prefix_levels(self.sums.val().to_words(), FIRST_LEVELS, 5);
        self.entry.next = EntryBits::from_words(&a);
    }

    fn connect(&mut self) {
        self.entry.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(finish_verilog())
    }
}

/// Kogge-Stone levels `from..to` as `wire`s `a{l}_{j}`.
fn levels_verilog(v: &mut String, from: usize, to: usize) {
    for level in from..to {
        let step = 1 << level;
        for j in 0..32 {
            let expr = if j >= step { format!("a{level}_{j} + a{level}_{}", j - step) } else { format!("a{level}_{j}") };
            *v += &format!("wire [31:0] a{}_{j} = {expr};\n", level + 1);
        }
    }
}

/// The Verilog body of [`BpcRebuildSums`].
fn sums_verilog() -> String {
    let mut v = String::from("// BPC words from the base and the bit-planes: transpose, then Kogge-Stone prefix-sum levels 1-3.\n");
    v += "wire [31:0] a0_0 = base;\n";
    for k in 0..31 {
        // Bit b of D[k] is bit k of plane b; the concatenation lists bit 31 first.
        let bits: Vec<String> = (0..32).rev().map(|b| format!("planes[{}]", 32 * b + k)).collect();
        v += &format!("wire [31:0] a0_{} = {{{}}};\n", k + 1, bits.join(", "));
    }
    levels_verilog(&mut v, 0, FIRST_LEVELS);
    v += "always @(*) begin\n";
    for j in 0..32 {
        v += &format!("    sums[{}+:32] = a{FIRST_LEVELS}_{j};\n", 32 * j);
    }
    v + "end\n"
}

/// The Verilog body of [`BpcRebuildFinish`].
fn finish_verilog() -> String {
    let mut v = String::from("// BPC words: Kogge-Stone prefix-sum levels 4-5.\n");
    for j in 0..32 {
        v += &format!("wire [31:0] a{FIRST_LEVELS}_{j} = sums[{}+:32];\n", 32 * j);
    }
    levels_verilog(&mut v, FIRST_LEVELS, 5);
    v += "always @(*) begin\n";
    for j in 0..32 {
        v += &format!("    entry[{}+:32] = a5_{j};\n", 32 * j);
    }
    v + "end\n"
}

/// The entry rebuilt from `base` and the planes (`DBP[b]` in bits 30..0 of
/// word `b` of `planes`), in plain Rust: the two halves in a row.
pub fn rebuild(base: u32, planes: &[u32; 32]) -> [u32; 32] {
    prefix_levels(prefix_levels(deltas(base, planes), 0, FIRST_LEVELS), FIRST_LEVELS, 5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramp_planes_rebuild_the_ramp() {
        // All deltas +1: plane 0 is all ones.
        let mut planes = [0u32; 32];
        planes[0] = 0x7FFF_FFFF;
        let words = rebuild(5, &planes);
        assert_eq!(words, std::array::from_fn(|i| 5 + i as u32));
        assert!(finish_verilog().contains("wire [31:0] a5_31 = a4_31 + a4_15;"));
        assert!(sums_verilog().contains("wire [31:0] a3_31 = a2_31 + a2_27;"));
        // The prefix sum equals a running sum.
        let planes: [u32; 32] = std::array::from_fn(|b| (b as u32).wrapping_mul(0x9E37_79B9) & 0x7FFF_FFFF);
        let d = deltas(7, &planes);
        let mut running = [0u32; 32];
        running[0] = 7;
        for k in 1..32 {
            running[k] = running[k - 1].wrapping_add(d[k]);
        }
        assert_eq!(rebuild(7, &planes), running);
    }
}
