//! Stream order of the BPC symbol slots (docs/formats.md#stream-packing):
//! between the symbols and the zero-run merge of [`crate::BpcCompressor`].
//!
//! A slot's code word and payload are emitted most significant bit first,
//! and the stream is LSB-first, so a slot of `len` bits enters the stream
//! as `reverse32(code) >> (32 - len)`. Doing that here, beside the zero-run
//! merge (whose own symbols, ZERO1 and ZRUN, are constants written in stream
//! order), keeps the barrel shift off the packer's first tree level, which
//! then shifts once per node instead of twice.

use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Symbol slots: the base prefix, the base payload, 33 planes.
pub const SLOTS: usize = 35;

/// The bits of `code`'s low `len` bits, most significant first, as an
/// LSB-first value: `reverse32(code) >> (32 - len)`, 0 when `len` is 0 or
/// above 32 (the Verilog's 6-bit `32 - len` then shifts everything out).
/// `len` is read modulo 64, as the Verilog reads `len[5:0]`.
pub fn stream_order(code: u32, len: u32) -> u32 {
    match len & 0x3F {
        0 | 33.. => 0,
        len => code.reverse_bits() >> (32 - len),
    }
}

seq_macro::seq!(N in 0..35 {
/// Combinational: each of the 35 symbol slots turned into stream order.
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `code0` .. `code34` | 32 each | in | slot `N`'s code word and payload, first emitted bit at bit `len - 1` |
/// | `len0` .. `len34` | 32 each | in | slot `N`'s bit count, 0..=32 (the low 6 bits are read) |
/// | `ordered0` .. `ordered34` | 32 each | out | [`stream_order`]`(code, len)`: first emitted bit at bit 0, zero at and above bit `len` |
///
/// Depth: a barrel shift by `~len[4:0]` (5 mux levels, no adder); the bit
/// reversal is wiring. Written as Verilog by the block itself
/// (`Verilog::Custom`) and simulated in plain Rust.
#[derive(SettleBlock, Default)]
pub struct BpcStreamOrder {
    _settle: crate::settle::Settle,
    #( pub code~N: Signal<In, Bits<32>>, )*
    #( pub len~N: Signal<In, Bits<32>>, )*
    #( pub ordered~N: Signal<Out, Bits<32>>, )*
}

impl Logic for BpcStreamOrder {
    fn update(&mut self) {
        #( self.ordered~N.next = (stream_order(self.code~N.val().to_u32(), self.len~N.val().to_u32()) as u64).into(); )*
    }

    fn connect(&mut self) {
        #( self.ordered~N.connect(); )*
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(order_verilog())
    }
}
});

/// The Verilog body of [`BpcStreamOrder`].
///
/// The right shift by `32 - len` is written as a right shift by 1 and then
/// by `~len[4:0]` (`31 - len` for `len` 1..=31; 32 and 0 apart): no
/// subtract, so the shift is muxes alone. Yosys maps a subtract to a carry
/// chain, which ABC's depth mapping treats as a boundary, so the levels on
/// both sides of it added up: the BPC pipelined slice mapped this path at
/// 9 LUT levels and a carry. Lengths 33..=63 (never produced) give 0, as
/// [`stream_order`].
fn order_verilog() -> String {
    let mut v = String::from("// BPC symbol slots into stream order: bit-reversed (wiring), shifted right by 32 - len without a subtract.\nalways @(*) begin\n");
    for i in 0..SLOTS {
        let rev: Vec<String> = (0..32).map(|b| format!("code{i}[{b}]")).collect();
        let rev = rev.join(", ");
        v += &format!(
            "    ordered{i} = len{i}[5] ? ((len{i}[4:0] == 5'd0) ? {{{rev}}} : 32'h0) : ((len{i}[4:0] == 5'd0) ? 32'h0 : (({{{rev}}} >> 1) >> (~len{i}[4:0])));\n"
        );
    }
    v + "end\n"
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
        // Lengths read modulo 64; above 32 the shift leaves nothing.
        assert_eq!(stream_order(u32::MAX, 33), 0);
        assert_eq!(stream_order(0b1, 64 + 1), 1);
    }

    #[test]
    fn the_verilog_orders_every_slot_once() {
        let v = order_verilog();
        for i in 0..SLOTS {
            assert_eq!(v.matches(&format!("    ordered{i} = ")).count(), 1, "{v}");
        }
    }
}
