//! Packing and unpacking of the 32 fixed-width deltas of a MAG-BDI stream
//! (docs/formats.md#mag-bdi): pure wiring, one block per delta width.
//!
//! Stream layout (vector `C` of docs/formats.md#stream-packing, `d` = delta width in bits):
//!
//! ```text
//!  bit 0      32           64          64+d              64+31d      64+32d
//!  | B[31:0]  | mask[31:0] | delta_0   | delta_1 | ...   | delta_31  | zero .. 1023
//! ```
//!
//! A field at bit `64 + d*i` is a compile-time constant offset, but `#[hdl_gen]`
//! has no `/` or `%` to turn it into a word index and shift, and a `Bits<1024>`
//! shifter simulates about 20x slower than 32 words. So these two blocks
//! write their Verilog by hand (`Verilog::Custom`, a concatenation and
//! part-selects, as rust-hdl's own `DFF` and `ROM` do) and their simulation in
//! plain Rust. Both are checked end to end against the golden model: the Rust
//! side by the rust-hdl equivalence tests, the Verilog side by the Icarus
//! co-simulation.

use crate::entry_bits::EntryBits;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Stream bits of a MAG-BDI encoding with `d`-bit deltas: `64 + 32 d`.
pub const fn stream_bits_for(d: u32) -> usize {
    64 + 32 * d as usize
}

/// Write the low `d` bits of `v` at bit `at` of `words` (LSB-first).
fn put(words: &mut [u32; 32], at: usize, d: u32, v: u32) {
    let v = v & low_mask(d);
    let (j, s) = (at / 32, at % 32);
    words[j] |= v << s;
    if s + d as usize > 32 {
        words[j + 1] |= v >> (32 - s);
    }
}

/// The `d` bits at bit `at` of `words`, sign-extended to 32 bits.
fn get_signed(words: &[u32; 32], at: usize, d: u32) -> u32 {
    let (j, s) = (at / 32, at % 32);
    let mut v = words[j] >> s;
    if s + d as usize > 32 {
        v |= words[j + 1] << (32 - s);
    }
    let shift = 32 - d;
    (((v << shift) as i32) >> shift) as u32
}

const fn low_mask(d: u32) -> u32 {
    if d >= 32 {
        u32::MAX
    } else {
        (1 << d) - 1
    }
}

seq_macro::seq!(N in 0..32 {
/// Packs a base, a mask and 32 deltas into a MAG-BDI stream of `d`-bit
/// deltas (the output side of one compressor unit, Fig. 9 of seed `002_*`).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `base` | 32 | in | the non-zero base `B` |
/// | `mask` | 32 | in | base mask, bit `i` = word `i` uses `B` |
/// | `deltas` | 1024 | in | `delta_i` in `[32i +: 32]`; only the low `d` bits are used |
/// | `word0` .. `word31` | 32 each | out | word `j` of `C` (bits `[32j +: 32]`): `B`, mask, deltas at `64 + d*i`, zero from `64 + 32d` |
///
/// Combinational wiring, no logic. The output is 32
/// named word ports, not one 1024-bit struct or an array, so that a parent
/// can OR the packers of a `Vec` word by word: `#[hdl_gen]` cannot read a
/// struct field through a loop-indexed sub-block, and it emits
/// `packers$0$words[3]` (an undeclared name) for an array port `self.packers[u].words[3]`.
#[derive(SettleBlock)]
pub struct DeltaPacker {
    _settle: crate::settle::Settle,
    pub base: Signal<In, Bits<32>>,
    pub mask: Signal<In, Bits<32>>,
    pub deltas: Signal<In, EntryBits>,
    #( pub word~N: Signal<Out, Bits<32>>, )*
    _delta_bits: u32,
}

impl DeltaPacker {
    /// A packer for `delta_bits`-bit deltas, `1 ..= 29` (the stream must fit 1024 bits).
    ///
    /// # Panics
    /// On a width outside `1 ..= 29`: a design-time parameter error.
    pub fn new(delta_bits: u32) -> Self {
        assert!((1..=29).contains(&delta_bits), "delta width {delta_bits} does not fit a 1024-bit stream");
        DeltaPacker {
            _settle: Default::default(),
            base: Default::default(),
            mask: Default::default(),
            deltas: Default::default(),
            #( word~N: Default::default(), )*
            _delta_bits: delta_bits,
        }
    }
}

impl Logic for DeltaPacker {
    fn update(&mut self) {
        let mut words = [0u32; 32];
        let d = self._delta_bits;
        words[0] = self.base.val().to_u32();
        words[1] = self.mask.val().to_u32();
        for (i, &delta) in self.deltas.val().to_words().iter().enumerate() {
            put(&mut words, 64 + d as usize * i, d, delta);
        }
        #( self.word~N.next = (words[N] as u64).into(); )*
    }

    fn connect(&mut self) {
        #( self.word~N.connect(); )*
    }

    fn hdl(&self) -> Verilog {
        let d = self._delta_bits as usize;
        let fields: Vec<String> = (0..32).rev().map(|i| format!("deltas[{}+:{d}]", 32 * i)).collect();
        let outputs: String = (0..32).map(|j| format!("    word{j} = stream[{}+:32];\n", 32 * j)).collect();
        Verilog::Custom(format!(
            "// MAG-BDI stream of {d}-bit deltas: {{deltas, mask, base}}, {bits} bits.\n\
             reg [1023:0] stream;\n\
             always @(*) begin\n\
             \x20   stream = 1024'h0;\n\
             \x20   stream[{top}:0] = {{{fields}, mask, base}};\n\
             {outputs}\
             end\n",
            bits = stream_bits_for(d as u32),
            top = stream_bits_for(d as u32) - 1,
            fields = fields.join(", "),
        ))
    }
}
});

seq_macro::seq!(N in 0..32 {
/// Unpacks the 32 deltas of a MAG-BDI stream of `d`-bit deltas,
/// sign-extended to 32 bits (the input side of the decompressor, Fig. 10 of
/// seed `002_*`).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `stream` | 1024 | in | `C`; only bits `[64, 64 + 32d)` are read |
/// | `delta0` .. `delta31` | 32 each | out | `sext_d(C[64 + d*i +: d])` (named ports, as [`DeltaPacker`]'s) |
///
/// The base and mask are `C[31:0]` and `C[63:32]` whatever the width, so the
/// parent reads them directly. Combinational wiring (and sign extension),
/// no logic.
#[derive(SettleBlock)]
pub struct DeltaUnpacker {
    _settle: crate::settle::Settle,
    pub stream: Signal<In, EntryBits>,
    #( pub delta~N: Signal<Out, Bits<32>>, )*
    _delta_bits: u32,
}

impl DeltaUnpacker {
    /// An unpacker for `delta_bits`-bit deltas, `1 ..= 29`.
    ///
    /// # Panics
    /// On a width outside `1 ..= 29`: a design-time parameter error.
    pub fn new(delta_bits: u32) -> Self {
        assert!((1..=29).contains(&delta_bits), "delta width {delta_bits} does not fit a 1024-bit stream");
        DeltaUnpacker { _settle: Default::default(), stream: Default::default(), #( delta~N: Default::default(), )* _delta_bits: delta_bits }
    }
}

impl Logic for DeltaUnpacker {
    fn update(&mut self) {
        let mut out = [0u32; 32];
        let d = self._delta_bits;
        let words = self.stream.val().to_words();
        for (i, o) in out.iter_mut().enumerate() {
            *o = get_signed(&words, 64 + d as usize * i, d);
        }
        #( self.delta~N.next = (out[N] as u64).into(); )*
    }

    fn connect(&mut self) {
        #( self.delta~N.connect(); )*
    }

    fn hdl(&self) -> Verilog {
        let d = self._delta_bits as usize;
        let lines: String = (0..32)
            .map(|i| {
                let at = 64 + d * i;
                format!("    delta{i} = {{{{{}{{stream[{}]}}}}, stream[{at}+:{d}]}};\n", 32 - d, at + d - 1)
            })
            .collect();
        Verilog::Custom(format!(
            "// The 32 sign-extended {d}-bit deltas of a MAG-BDI stream.\n\
             always @(*) begin\n\
             {lines}\
             end\n"
        ))
    }
}
});

#[cfg(test)]
mod tests {
    use super::*;

    /// `put` then `get_signed` returns every delta, sign-extended, for every
    /// MAG-BDI width, and the fields do not overlap the header.
    #[test]
    fn put_and_get_are_inverse_at_every_width() {
        for d in [2u32, 6, 10, 14, 18, 22, 26] {
            let mut words = [0u32; 32];
            words[0] = 0xdead_beef;
            words[1] = 0x0123_4567;
            let values: Vec<u32> = (0..32u32).map(|i| i.wrapping_mul(0x9e37_79b9) >> (32 - d)).collect();
            for (i, &v) in values.iter().enumerate() {
                put(&mut words, 64 + d as usize * i, d, v | u32::MAX << d);
            }
            assert_eq!((words[0], words[1]), (0xdead_beef, 0x0123_4567));
            for (i, &v) in values.iter().enumerate() {
                let sext = (((v << (32 - d)) as i32) >> (32 - d)) as u32;
                assert_eq!(get_signed(&words, 64 + d as usize * i, d), sext, "d {d} i {i}");
            }
            let end = stream_bits_for(d);
            for bit in end..1024 {
                assert_eq!(words[bit / 32] >> (bit % 32) & 1, 0, "bit {bit} past the stream of d {d}");
            }
        }
    }
}
