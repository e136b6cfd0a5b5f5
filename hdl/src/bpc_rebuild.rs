//! The last stage of [`crate::BpcDecompressor`]: the words of a memory-entry
//! from its base word and its delta bit-planes (docs/formats.md#bpc-transform, "Undoing it").
//!
//! `D[k]` (mod 2^32) is bit `k` of the planes `DBP[0..31]` (a transpose:
//! wiring); the words are the prefix sums `w[0] = base`,
//! `w[k+1] = w[k] + D[k]` (mod 2^32), computed as a Kogge-Stone prefix over
//! the 32 words: 5 levels of 32-bit adders (129 adders) instead of a chain of
//! 31.

use crate::entry_bits::EntryBits;
use rust_hdl::prelude::*;

/// The entry rebuilt from `base` and the planes (`DBP[b]` in bits 30..0 of
/// word `b` of `planes`), in plain Rust: the reference of the Verilog.
pub fn rebuild(base: u32, planes: &[u32; 32]) -> [u32; 32] {
    let mut words = [0u32; 32];
    words[0] = base;
    for k in 0..31 {
        let delta = (0..32).fold(0u32, |d, b| d | (planes[b] >> k & 1) << b);
        words[k + 1] = words[k].wrapping_add(delta);
    }
    words
}

/// Combinational: the entry from the base word and the bit-planes.
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `planes` | 1024 | in | `DBP[b]` in bits `[32b +: 31]` (bit `32b + 31` is ignored) |
/// | `base` | 32 | in | `w[0]` |
/// | `entry` | 1024 | out | `w[i]` at `[32i +: 32]` |
#[derive(LogicBlock, Default)]
pub struct BpcRebuild {
    pub planes: Signal<In, EntryBits>,
    pub base: Signal<In, Bits<32>>,
    pub entry: Signal<Out, EntryBits>,
}

impl Logic for BpcRebuild {
    fn update(&mut self) {
        let words = rebuild(self.base.val().to_u32(), &self.planes.val().to_words());
        self.entry.next = EntryBits::from_words(&words);
    }

    fn connect(&mut self) {
        self.entry.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(rebuild_verilog())
    }
}

/// The Verilog body of [`BpcRebuild`].
fn rebuild_verilog() -> String {
    let mut v = String::from("// BPC words from the base and the bit-planes: transpose, then a Kogge-Stone prefix sum.\n");
    v += "wire [31:0] a0_0 = base;\n";
    for k in 0..31 {
        // Bit b of D[k] is bit k of plane b; the concatenation lists bit 31 first.
        let bits: Vec<String> = (0..32).rev().map(|b| format!("planes[{}]", 32 * b + k)).collect();
        v += &format!("wire [31:0] a0_{} = {{{}}};\n", k + 1, bits.join(", "));
    }
    for level in 0..5 {
        let step = 1 << level;
        for j in 0..32 {
            let expr = if j >= step { format!("a{level}_{j} + a{level}_{}", j - step) } else { format!("a{level}_{j}") };
            v += &format!("wire [31:0] a{}_{j} = {expr};\n", level + 1);
        }
    }
    v += "always @(*) begin\n";
    for j in 0..32 {
        v += &format!("    entry[{}+:32] = a5_{j};\n", 32 * j);
    }
    v + "end\n"
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
        assert!(rebuild_verilog().contains("wire [31:0] a5_31 = a4_31 + a4_15;"));
    }
}
