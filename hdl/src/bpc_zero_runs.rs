//! Stage 2 of [`crate::BpcCompressor`]: merging the zero planes into maximal
//! runs (docs/formats.md#bpc-symbols): the first plane of a run carries ZERO1 (`001`) or
//! ZRUN (`01` + `n - 2` in 5 bits), the others become empty slots.

use crate::default_array;
use rust_hdl::prelude::*;

seq_macro::seq!(J in 0..35 {
/// Combinational: the 35 symbol slots of [`crate::bpc_transform::BpcTransform`]
/// with the zero planes merged.
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `code0` .. `code34`, `len0` .. `len34`, `zero0` .. `zero34` | 32, 32, 1 | in | the transform's slots |
/// | `out_code0` .. `out_code34` | 32 each | out | slot code words and payloads, zero runs merged |
/// | `out_len0` .. `out_len34` | 32 each | out | slot bits; 0 for a zero plane inside a run |
///
/// The run length of every slot (zero planes from it towards plane 0) is a
/// segmented prefix count of 6 levels (segments of 1, 2, 4, .., 64 slots: a
/// segment that is all zero adds the count of the next one), so the depth
/// grows with log2 of the 33 planes, not with 33.
#[derive(LogicBlock)]
pub struct BpcZeroRuns {
    #( pub code~J: Signal<In, Bits<32>>, )*
    #( pub len~J: Signal<In, Bits<32>>, )*
    #( pub zero~J: Signal<In, Bit>, )*
    #( pub out_code~J: Signal<Out, Bits<32>>, )*
    #( pub out_len~J: Signal<Out, Bits<32>>, )*
    z: [Signal<Local, Bit>; 35],
    count0: [Signal<Local, Bits<6>>; 35],
    count1: [Signal<Local, Bits<6>>; 35],
    count2: [Signal<Local, Bits<6>>; 35],
    count3: [Signal<Local, Bits<6>>; 35],
    count4: [Signal<Local, Bits<6>>; 35],
    count5: [Signal<Local, Bits<6>>; 35],
    count6: [Signal<Local, Bits<6>>; 35],
    full0: [Signal<Local, Bit>; 34],
    full1: [Signal<Local, Bit>; 33],
    full2: [Signal<Local, Bit>; 31],
    full3: [Signal<Local, Bit>; 27],
    full4: [Signal<Local, Bit>; 19],
    full5: [Signal<Local, Bit>; 3],
    run: [Signal<Local, Bits<32>>; 35],
    start: [Signal<Local, Bit>; 35],
    slot_code: [Signal<Local, Bits<32>>; 35],
    slot_len: [Signal<Local, Bits<32>>; 35],
}

impl Default for BpcZeroRuns {
    fn default() -> Self {
        BpcZeroRuns {
            #( code~J: Default::default(), )*
            #( len~J: Default::default(), )*
            #( zero~J: Default::default(), )*
            #( out_code~J: Default::default(), )*
            #( out_len~J: Default::default(), )*
            z: default_array(),
            count0: default_array(),
            count1: default_array(),
            count2: default_array(),
            count3: default_array(),
            count4: default_array(),
            count5: default_array(),
            count6: default_array(),
            full0: default_array(),
            full1: default_array(),
            full2: default_array(),
            full3: default_array(),
            full4: default_array(),
            full5: default_array(),
            run: default_array(),
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
        // Level 0: each slot alone. Level l: the segment [s, s + 2^l) from
        // the segments [s, s + d) and [s + d, s + 2d), d = 2^(l-1): its count
        // adds the upper segment's when the lower one is all zero. A `full`
        // flag is kept only for the slots a later level reads.
        for s in 0..35 {
            self.count0[s].next = 0.into();
            if self.z[s].val() {
                self.count0[s].next = 1.into();
            }
        }
        for s in 0..34 {
            self.full0[s].next = self.z[s].val();
        }
        for s in 0..34 {
            self.count1[s].next = self.count0[s].val();
            if self.full0[s].val() {
                self.count1[s].next = self.count0[s].val() + self.count0[s + 1].val();
            }
        }
        for s in 34..35 {
            self.count1[s].next = self.count0[s].val();
        }
        for s in 0..33 {
            self.full1[s].next = false;
            if self.full0[s].val() {
                self.full1[s].next = self.full0[s + 1].val();
            }
        }
        for s in 0..33 {
            self.count2[s].next = self.count1[s].val();
            if self.full1[s].val() {
                self.count2[s].next = self.count1[s].val() + self.count1[s + 2].val();
            }
        }
        for s in 33..35 {
            self.count2[s].next = self.count1[s].val();
        }
        for s in 0..31 {
            self.full2[s].next = false;
            if self.full1[s].val() {
                self.full2[s].next = self.full1[s + 2].val();
            }
        }
        for s in 0..31 {
            self.count3[s].next = self.count2[s].val();
            if self.full2[s].val() {
                self.count3[s].next = self.count2[s].val() + self.count2[s + 4].val();
            }
        }
        for s in 31..35 {
            self.count3[s].next = self.count2[s].val();
        }
        for s in 0..27 {
            self.full3[s].next = false;
            if self.full2[s].val() {
                self.full3[s].next = self.full2[s + 4].val();
            }
        }
        for s in 0..27 {
            self.count4[s].next = self.count3[s].val();
            if self.full3[s].val() {
                self.count4[s].next = self.count3[s].val() + self.count3[s + 8].val();
            }
        }
        for s in 27..35 {
            self.count4[s].next = self.count3[s].val();
        }
        for s in 0..19 {
            self.full4[s].next = false;
            if self.full3[s].val() {
                self.full4[s].next = self.full3[s + 8].val();
            }
        }
        for s in 0..19 {
            self.count5[s].next = self.count4[s].val();
            if self.full4[s].val() {
                self.count5[s].next = self.count4[s].val() + self.count4[s + 16].val();
            }
        }
        for s in 19..35 {
            self.count5[s].next = self.count4[s].val();
        }
        for s in 0..3 {
            self.full5[s].next = false;
            if self.full4[s].val() {
                self.full5[s].next = self.full4[s + 16].val();
            }
        }
        for s in 0..3 {
            self.count6[s].next = self.count5[s].val();
            if self.full5[s].val() {
                self.count6[s].next = self.count5[s].val() + self.count5[s + 32].val();
            }
        }
        for s in 3..35 {
            self.count6[s].next = self.count5[s].val();
        }
        #( self.run[J].next = bit_cast::<32, 6>(self.count6[J].val()); )*

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
                    self.slot_code[s].next = (self.run[s].val() - bits::<32>(2)) | bits::<32>(0x20);
                    self.slot_len[s].next = 7.into();
                    if self.count6[s].val() == bits::<6>(1) {
                        self.slot_code[s].next = 1.into();
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
