//! Stage 2 of [`crate::BpcCompressor`]: merging the zero planes into maximal
//! runs (docs/formats.md#bpc-symbols): the first plane of a run carries ZERO1 (`001`) or
//! ZRUN (`01` + `n - 2` in 5 bits), the others become empty slots. Slots
//! are in stream order ([`crate::bpc_stream_order`]: first emitted bit at
//! bit 0), so ZERO1 is the value `0b100` and ZRUN `0b10 | reverse5(n - 2) << 2`.

use crate::default_array;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

seq_macro::seq!(J in 0..35 {
/// Combinational: the 35 symbol slots of [`crate::bpc_transform::BpcTransform`]
/// with the zero planes merged.
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `code0` .. `code34`, `len0` .. `len34`, `zero0` .. `zero34` | 32, 32, 1 | in | the transform's slots, codes in stream order (first emitted bit at bit 0) |
/// | `out_code0` .. `out_code34` | 32 each | out | slot code words and payloads in stream order, zero runs merged |
/// | `out_len0` .. `out_len34` | 32 each | out | slot bits; 0 for a zero plane inside a run |
///
/// No adder: each slot's run is a thermometer (`th[s]` bit `k - 1`: the
/// `k` slots from `s` are all zero planes, an AND of `k` flags), its edge
/// `th & !(th >> 1)` is the run length one-hot, and the ZRUN payload
/// `n - 2` is an OR of constants selected by that one-hot. The depth is
/// that of a 33-input AND and a 32-input OR.
#[derive(SettleBlock)]
pub struct BpcZeroRuns {
    _settle: crate::settle::Settle,
    #( pub code~J: Signal<In, Bits<32>>, )*
    #( pub len~J: Signal<In, Bits<32>>, )*
    #( pub zero~J: Signal<In, Bit>, )*
    #( pub out_code~J: Signal<Out, Bits<32>>, )*
    #( pub out_len~J: Signal<Out, Bits<32>>, )*
    z: [Signal<Local, Bit>; 35],
    /// ZRUN's 5-bit payload `n - 2` of a run of `n` (index `n - 2`), in
    /// stream order at bits 2..=6.
    payload: [Constant<Bits<32>>; 33],
    th: [Signal<Local, Bits<34>>; 36],
    run_one_hot: [Signal<Local, Bits<34>>; 35],
    zrun: [Signal<Local, Bits<32>>; 35],
    start: [Signal<Local, Bit>; 35],
    slot_code: [Signal<Local, Bits<32>>; 35],
    slot_len: [Signal<Local, Bits<32>>; 35],
}

impl Default for BpcZeroRuns {
    fn default() -> Self {
        BpcZeroRuns {
            _settle: Default::default(),
            #( code~J: Default::default(), )*
            #( len~J: Default::default(), )*
            #( zero~J: Default::default(), )*
            #( out_code~J: Default::default(), )*
            #( out_len~J: Default::default(), )*
            z: default_array(),
            payload: std::array::from_fn(|i| Constant::new(((((i as u32 & 0x1F).reverse_bits() >> 27) << 2) as u64).into())),
            th: default_array(),
            run_one_hot: default_array(),
            zrun: default_array(),
            start: default_array(),
            slot_code: default_array(),
            slot_len: default_array(),
        }
    }
}

impl Logic for BpcZeroRuns {
    #[hdl_gen]
    fn update(&mut self) {
        #( self.z[J].next = self.zero~J.val(); )*
        // Thermometers from the last slot up: a zero plane extends the
        // next slot's run by one (written last slot first so that every
        // value is assigned before it is read).
        self.th[35].next = 0.into();
        for i in 0..35 {
            self.th[34 - i].next = 0.into();
            if self.z[34 - i].val() {
                self.th[34 - i].next = (self.th[35 - i].val() << 1) | bits::<34>(1);
            }
        }
        for s in 0..35 {
            self.run_one_hot[s].next = self.th[s].val() & !(self.th[s].val() >> 1);
            self.zrun[s].next = bits::<32>(2);
            for n in 2..35 {
                if self.run_one_hot[s].val().get_bit(n - 1) {
                    self.zrun[s].next = self.zrun[s].val() | self.payload[n - 2].val();
                }
            }
        }

        // A run starts at a zero plane whose upper neighbour (the previous
        // slot) is not a zero plane; slot 2 is plane 32, the top.
        self.start[0].next = false;
        self.start[1].next = false;
        self.start[2].next = self.z[2].val();
        for s in 3..35 {
            self.start[s].next = self.z[s].val() & !self.z[s - 1].val();
        }
        #( self.slot_code[J].next = self.code~J.val(); )*
        #( self.slot_len[J].next = self.len~J.val(); )*
        for s in 0..35 {
            if self.z[s].val() {
                self.slot_code[s].next = 0.into();
                self.slot_len[s].next = 0.into();
                if self.start[s].val() {
                    self.slot_code[s].next = self.zrun[s].val();
                    self.slot_len[s].next = 7.into();
                    if self.run_one_hot[s].val().get_bit(0) {
                        self.slot_code[s].next = 4.into();
                        self.slot_len[s].next = 3.into();
                    }
                }
            }
        }
        #(
            self.out_code~J.next = self.slot_code[J].val();
            self.out_len~J.next = self.slot_len[J].val();
        )*
    }
}
});
