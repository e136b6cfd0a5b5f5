//! Concatenation of the 35 BPC symbol slots of one memory-entry into its
//! stream (bpc.md §3, §6; formats.md §1): the packing network of
//! [`crate::BpcCompressor`].
//!
//! Each slot holds a code word with its payload as one value `code` of
//! `len` bits (0..=32; 0 = empty slot) whose most significant bit is emitted
//! first. The stream is LSB-first: stream bit `j` is vector bit `C[j]`. So a
//! slot enters the stream bit-reversed, `R = reverse32(code) >> (32 - len)`,
//! at the sum of the previous lengths.
//!
//! The network is a balanced binary tree of shift-OR nodes
//! (`m = a | (b << len_a)`, `len_m = len_a + len_b`): 35 leaves, 6 levels,
//! each node as wide as its two inputs together but at most 768 bits,
//! because a longer stream is stored RAW (bpc.md §10) and only its length
//! matters then. `#[hdl_gen]` cannot write a shifter whose widths change per
//! tree level, so, like [`crate::delta_packing`], this block writes its
//! Verilog itself (`Verilog::Custom`: the tree as `wire`s of exact widths)
//! and simulates in plain Rust; both sides are checked against the golden
//! model (rust-hdl equivalence tests, Icarus co-simulation).

use crate::entry_bits::EntryBits;
use rust_hdl::prelude::*;

/// Symbol slots: the base prefix, the base payload, 33 planes.
pub const SLOTS: usize = 35;

/// Stream bits kept: a stream longer than 96 bytes is stored RAW.
pub const KEPT_BITS: usize = 768;

/// The bits of `code`'s low `len` bits, most significant first, as an
/// LSB-first value (`len` 0..=32).
pub fn stream_order(code: u32, len: u32) -> u32 {
    if len == 0 {
        0
    } else {
        code.reverse_bits() >> (32 - len)
    }
}

seq_macro::seq!(N in 0..35 {
/// The packing network (see the module docs).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `code0` .. `code34` | 32 each | in | slot `N`'s code word and payload, the first emitted bit at bit `len - 1` |
/// | `len0` .. `len34` | 32 each | in | slot `N`'s bit count, 0..=32 |
/// | `stream` | 1024 | out | the first 768 stream bits, LSB-first (`C[j]` = stream bit `j`); bits 768.. are 0 |
/// | `total` | 11 | out | the stream's length in bits, the sum of the lengths (at most 35 x 32 = 1120) |
///
/// Combinational. Named ports (not arrays) so that the parent can drive
/// them from `seq!` repetitions.
#[derive(LogicBlock, Default)]
pub struct SymbolPacker {
    #( pub code~N: Signal<In, Bits<32>>, )*
    #( pub len~N: Signal<In, Bits<32>>, )*
    pub stream: Signal<Out, EntryBits>,
    pub total: Signal<Out, Bits<11>>,
}

impl SymbolPacker {
    fn slots(&self) -> [(u32, u32); SLOTS] {
        [ #( (self.code~N.val().to_u32(), self.len~N.val().to_u32()), )* ]
    }
}

impl Logic for SymbolPacker {
    fn update(&mut self) {
        let mut words = [0u32; 36];
        let mut at = 0usize;
        for (code, len) in self.slots() {
            let len = len.min(32);
            let r = stream_order(code, len) as u64;
            let (w, s) = (at / 32, at % 32);
            let shifted = r << s;
            words[w] |= shifted as u32;
            words[w + 1] |= (shifted >> 32) as u32;
            at += len as usize;
        }
        let mut kept = [0u32; 32];
        kept[..KEPT_BITS / 32].copy_from_slice(&words[..KEPT_BITS / 32]);
        self.stream.next = EntryBits::from_words(&kept);
        self.total.next = (at as u64).into();
    }

    fn connect(&mut self) {
        self.stream.connect();
        self.total.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(packer_verilog())
    }
}
});

/// The Verilog body of [`SymbolPacker`]: leaves, then one `wire` pair per tree node.
fn packer_verilog() -> String {
    let mut v = String::from("// BPC symbol packing: bit-reversed slots concatenated by a shift-OR tree.\n");
    // (name of the value, its width, name of its length)
    let mut level: Vec<(String, usize, String)> = Vec::new();
    for i in 0..SLOTS {
        let rev: Vec<String> = (0..32).map(|b| format!("code{i}[{b}]")).collect();
        v += &format!(
            "wire [31:0] leaf{i} = (len{i}[5:0] == 6'd0) ? 32'h0 : ({{{}}} >> (6'd32 - len{i}[5:0]));\n\
             wire [10:0] leaf{i}_len = {{5'd0, len{i}[5:0]}};\n",
            rev.join(", ")
        );
        level.push((format!("leaf{i}"), 32, format!("leaf{i}_len")));
    }
    let mut depth = 0;
    while level.len() > 1 {
        depth += 1;
        let mut next = Vec::new();
        for (k, pair) in level.chunks(2).enumerate() {
            if let [(a, wa, la), (b, wb, lb)] = pair {
                let w = (wa + wb).min(KEPT_BITS);
                let name = format!("n{depth}_{k}");
                v += &format!(
                    "wire [{hi}:0] {name} = {{{pad_a}{a}}} | ({{{pad_b}{b}}} << {la});\n\
                     wire [10:0] {name}_len = {la} + {lb};\n",
                    hi = w - 1,
                    pad_a = if w > *wa { format!("{}'d0, ", w - wa) } else { String::new() },
                    pad_b = if w > *wb { format!("{}'d0, ", w - wb) } else { String::new() },
                    a = if *wa > w { format!("{a}[{}:0]", w - 1) } else { a.clone() },
                    b = if *wb > w { format!("{b}[{}:0]", w - 1) } else { b.clone() },
                );
                next.push((name.clone(), w, format!("{name}_len")));
            } else {
                next.push(pair[0].clone());
            }
        }
        level = next;
    }
    let (root, w, root_len) = &level[0];
    v += &format!(
        "always @(*) begin\n    stream = 1024'h0;\n    stream[{hi}:0] = {root};\n    total = {root_len};\nend\n",
        hi = w - 1
    );
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_order_reverses_the_low_bits() {
        assert_eq!(stream_order(0b00011_01001, 10), 0b10010_11000);
        assert_eq!(stream_order(0b001, 3), 0b100);
        assert_eq!(stream_order(u32::MAX, 0), 0);
        assert_eq!(stream_order(0x8000_0001, 32), 0x8000_0001);
    }

    #[test]
    fn the_tree_covers_every_slot_once_and_ends_at_768_bits() {
        let v = packer_verilog();
        for i in 0..SLOTS {
            assert_eq!(v.matches(&format!(" leaf{i}_len")).count(), 2, "leaf {i}");
        }
        assert!(v.contains("stream[767:0]"), "{v}");
    }
}
