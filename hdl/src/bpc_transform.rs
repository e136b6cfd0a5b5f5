//! Stage 1 of [`crate::BpcCompressor`]: the DBX transform of one
//! memory-entry and the symbol of every bit-plane and of the base word
//! (docs/formats.md#bpc-transform, docs/formats.md#bpc-symbols), as 35 symbol slots in emission order.

use crate::default_array;
use crate::entry_bits::EntryBits;
use crate::stages::Stages;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Bit-planes of 33-bit deltas.
const PLANES: usize = 33;

seq_macro::seq!(J in 0..35 {
/// The entry's symbols, before zero planes are merged into runs:
/// combinational built [`Stages::Paper`]; built [`Stages::EightLevels`] a
/// register (loaded by `load`) cuts it after the deltas, the planes' `DBX`
/// and their zero flags, so the symbols take one cycle more.
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `clock` | 1 | in | rising-edge clock (the cut register, [`Stages::EightLevels`]) |
/// | `load` | 1 | in | the cut register takes this cycle's `DBX` ([`Stages::EightLevels`]) |
/// | `entry` | 1024 | in | `w[i]` at `[32i +: 32]` |
/// | `code0` .. `code34` | 32 each | out | slot `N`: code word and payload, first emitted bit at bit `len - 1` |
/// | `len0` .. `len34` | 32 each | out | slot `N`'s bits (0..=32) |
/// | `zero0` .. `zero34` | 1 each | out | slot `N` is a plane with `DBX == 0` (its code is decided by the run merge) |
///
/// Slots: 0 = the base-word symbol (`1` alone when the base is stored
/// uncompressed), 1 = the 32-bit base payload of an uncompressed base (else
/// empty), `2 + i` = plane `32 - i`.
///
/// Logic: 31 subtractions `w[k+1] - w[k]` and signed compares (bit 32 of the
/// 33-bit delta is `s(w[k+1]) < s(w[k])`); the planes are a transpose
/// (wiring); per plane in parallel `DBX`, at-most-one-bit trees over `x`,
/// its run starts and its adjacent pairs (ONE1 `x == l` and TWO1
/// `x == l | l << 1` for the lowest set bit `l`, without a carry chain),
/// the lowest bit's position, and the mandatory priority ALL1, DBP0, TWO1,
/// ONE1, RAW; the base class from three adds
/// and compares.
#[derive(SettleBlock)]
pub struct BpcTransform {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub load: Signal<In, Bit>,
    pub entry: Signal<In, EntryBits>,
    #( pub code~J: Signal<Out, Bits<32>>, )*
    #( pub len~J: Signal<Out, Bits<32>>, )*
    #( pub zero~J: Signal<Out, Bit>, )*
    // Stages::EightLevels: the symbols come from the cut register.
    staged: Constant<Bit>,
    msb: Constant<Bits<32>>,
    all1: Constant<Bits<32>>,
    index: [Constant<Bits<32>>; 31],
    w: [Signal<Local, Bits<32>>; 32],
    lo: [Signal<Local, Bits<32>>; 31],
    signs: Signal<Local, Bits<32>>,
    dbp: [Signal<Local, Bits<32>>; PLANES],
    dbx: [Signal<Local, Bits<32>>; PLANES],
    dbp_nonzero: Signal<Local, Bits<33>>,
    cut_dbx: [DFF<Bits<32>>; PLANES],
    cut_dbp_nonzero: DFF<Bits<33>>,
    cut_base: DFF<Bits<32>>,
    // What the symbols are made of: this cycle's or the cut register's.
    x: [Signal<Local, Bits<32>>; PLANES],
    x_dbp_nonzero: Signal<Local, Bits<33>>,
    base: Signal<Local, Bits<32>>,
    // Run starts (`x & !(x << 1)`) and adjacent pairs (`x & (x >> 1)`):
    // ONE1 is "x has at most one bit", TWO1 "one run of two bits", both
    // from OR/AND trees (no carry chain, unlike `x & -x`).
    starts: [Signal<Local, Bits<32>>; PLANES],
    pairs: [Signal<Local, Bits<32>>; PLANES],
    // One at-most-one-bit tree at a time: per bit pair, quad, ... whether
    // any bit is set (`tree_any`) and whether two are (`tree_many`).
    tree_any: Signal<Local, Bits<32>>,
    tree_many: Signal<Local, Bits<32>>,
    one1: Signal<Local, Bits<33>>,
    starts_one: Signal<Local, Bits<33>>,
    pairs_one: Signal<Local, Bits<33>>,
    pos: [Signal<Local, Bits<32>>; PLANES],
    pcode: [Signal<Local, Bits<32>>; PLANES],
    plen: [Signal<Local, Bits<32>>; PLANES],
    base_sums: [Signal<Local, Bits<32>>; 3],
    base_code: Signal<Local, Bits<32>>,
    base_len: Signal<Local, Bits<32>>,
    base_raw: Signal<Local, Bit>,
    slot_code: [Signal<Local, Bits<32>>; 35],
    slot_len: [Signal<Local, Bits<32>>; 35],
    slot_zero: [Signal<Local, Bit>; 35],
}

/// [`Stages::DELIVERED`].
impl Default for BpcTransform {
    fn default() -> Self {
        Self::new(Stages::DELIVERED)
    }
}

impl BpcTransform {
    /// The transform built `stages`: with the cut register
    /// ([`Stages::EightLevels`]) or without.
    pub fn new(stages: Stages) -> Self {
        BpcTransform {
            _settle: Default::default(),
            clock: Default::default(),
            load: Default::default(),
            entry: Default::default(),
            #( code~J: Default::default(), )*
            #( len~J: Default::default(), )*
            #( zero~J: Default::default(), )*
            staged: Constant::new(matches!(stages, Stages::EightLevels)),
            msb: Constant::new(0x8000_0000u64.into()),
            all1: Constant::new(0x7FFF_FFFFu64.into()),
            index: std::array::from_fn(|j| Constant::new((j as u64).into())),
            w: default_array(),
            lo: default_array(),
            signs: Default::default(),
            dbp: default_array(),
            dbx: default_array(),
            dbp_nonzero: Default::default(),
            cut_dbx: default_array(),
            cut_dbp_nonzero: Default::default(),
            cut_base: Default::default(),
            x: default_array(),
            x_dbp_nonzero: Default::default(),
            base: Default::default(),
            starts: default_array(),
            pairs: default_array(),
            tree_any: Default::default(),
            tree_many: Default::default(),
            one1: Default::default(),
            starts_one: Default::default(),
            pairs_one: Default::default(),
            pos: default_array(),
            pcode: default_array(),
            plen: default_array(),
            base_sums: default_array(),
            base_code: Default::default(),
            base_len: Default::default(),
            base_raw: Default::default(),
            slot_code: default_array(),
            slot_len: default_array(),
            slot_zero: default_array(),
        }
    }
}

impl Logic for BpcTransform {
    #[hdl_gen]
    fn update(&mut self) {
        self.w[0].next = self.entry.val().w0;
        self.w[1].next = self.entry.val().w1;
        self.w[2].next = self.entry.val().w2;
        self.w[3].next = self.entry.val().w3;
        self.w[4].next = self.entry.val().w4;
        self.w[5].next = self.entry.val().w5;
        self.w[6].next = self.entry.val().w6;
        self.w[7].next = self.entry.val().w7;
        self.w[8].next = self.entry.val().w8;
        self.w[9].next = self.entry.val().w9;
        self.w[10].next = self.entry.val().w10;
        self.w[11].next = self.entry.val().w11;
        self.w[12].next = self.entry.val().w12;
        self.w[13].next = self.entry.val().w13;
        self.w[14].next = self.entry.val().w14;
        self.w[15].next = self.entry.val().w15;
        self.w[16].next = self.entry.val().w16;
        self.w[17].next = self.entry.val().w17;
        self.w[18].next = self.entry.val().w18;
        self.w[19].next = self.entry.val().w19;
        self.w[20].next = self.entry.val().w20;
        self.w[21].next = self.entry.val().w21;
        self.w[22].next = self.entry.val().w22;
        self.w[23].next = self.entry.val().w23;
        self.w[24].next = self.entry.val().w24;
        self.w[25].next = self.entry.val().w25;
        self.w[26].next = self.entry.val().w26;
        self.w[27].next = self.entry.val().w27;
        self.w[28].next = self.entry.val().w28;
        self.w[29].next = self.entry.val().w29;
        self.w[30].next = self.entry.val().w30;
        self.w[31].next = self.entry.val().w31;
        // Deltas mod 2^32 and their signs: bit 32 of the 33-bit signed
        // difference is s(w[k+1]) < s(w[k]), an unsigned compare with the
        // sign bits flipped.
        self.signs.next = 0.into();
        for k in 0..31 {
            self.lo[k].next = self.w[k + 1].val() - self.w[k].val();
            self.signs.next = self.signs.val().replace_bit(k, (self.w[k + 1].val() ^ self.msb.val()) < (self.w[k].val() ^ self.msb.val()));
        }
        // Bit-planes: a transpose, pure wiring.
        for b in 0..32 {
            self.dbp[b].next = 0.into();
            for k in 0..31 {
                self.dbp[b].next = self.dbp[b].val().replace_bit(k, self.lo[k].val().get_bit(b));
            }
        }
        self.dbp[32].next = self.signs.val();
        for b in 0..32 {
            self.dbx[b].next = self.dbp[b].val() ^ self.dbp[b + 1].val();
        }
        self.dbx[32].next = self.dbp[32].val();
        self.dbp_nonzero.next = 0.into();
        for b in 0..33 {
            self.dbp_nonzero.next = self.dbp_nonzero.val().replace_bit(b, self.dbp[b].val().any());
        }

        // The cut (Stages::EightLevels): DBX, the planes' zero flags and the
        // base word; the symbols below come from it or from this cycle.
        for b in 0..33 {
            self.cut_dbx[b].clock.next = self.clock.val();
            self.cut_dbx[b].d.next = self.cut_dbx[b].q.val();
        }
        self.cut_dbp_nonzero.clock.next = self.clock.val();
        self.cut_dbp_nonzero.d.next = self.cut_dbp_nonzero.q.val();
        self.cut_base.clock.next = self.clock.val();
        self.cut_base.d.next = self.cut_base.q.val();
        if self.load.val() {
            for b in 0..33 {
                self.cut_dbx[b].d.next = self.dbx[b].val();
            }
            self.cut_dbp_nonzero.d.next = self.dbp_nonzero.val();
            self.cut_base.d.next = self.w[0].val();
        }
        for b in 0..33 {
            self.x[b].next = self.dbx[b].val();
        }
        self.x_dbp_nonzero.next = self.dbp_nonzero.val();
        self.base.next = self.w[0].val();
        if self.staged.val() {
            for b in 0..33 {
                self.x[b].next = self.cut_dbx[b].q.val();
            }
            self.x_dbp_nonzero.next = self.cut_dbp_nonzero.q.val();
            self.base.next = self.cut_base.q.val();
        }

        self.one1.next = 0.into();
        self.starts_one.next = 0.into();
        self.pairs_one.next = 0.into();
        for b in 0..33 {
            self.starts[b].next = self.x[b].val() & !(self.x[b].val() << 1);
            self.pairs[b].next = self.x[b].val() & (self.x[b].val() >> 1);
            self.tree_any.next = (self.x[b].val() | (self.x[b].val() >> 1)) & bits::<32>(0x5555_5555);
            self.tree_many.next = (self.x[b].val() & (self.x[b].val() >> 1)) & bits::<32>(0x5555_5555);
            self.tree_many.next = (self.tree_many.val() | (self.tree_many.val() >> 2) | (self.tree_any.val() & (self.tree_any.val() >> 2))) & bits::<32>(0x1111_1111);
            self.tree_any.next = (self.tree_any.val() | (self.tree_any.val() >> 2)) & bits::<32>(0x1111_1111);
            self.tree_many.next = (self.tree_many.val() | (self.tree_many.val() >> 4) | (self.tree_any.val() & (self.tree_any.val() >> 4))) & bits::<32>(0x0101_0101);
            self.tree_any.next = (self.tree_any.val() | (self.tree_any.val() >> 4)) & bits::<32>(0x0101_0101);
            self.tree_many.next = (self.tree_many.val() | (self.tree_many.val() >> 8) | (self.tree_any.val() & (self.tree_any.val() >> 8))) & bits::<32>(0x0001_0001);
            self.tree_any.next = (self.tree_any.val() | (self.tree_any.val() >> 8)) & bits::<32>(0x0001_0001);
            self.tree_many.next = self.tree_many.val() | (self.tree_many.val() >> 16) | (self.tree_any.val() & (self.tree_any.val() >> 16));
            self.tree_any.next = self.tree_any.val() | (self.tree_any.val() >> 16);
            self.one1.next = self.one1.val().replace_bit(b, !self.tree_many.val().get_bit(0));
            self.tree_any.next = (self.starts[b].val() | (self.starts[b].val() >> 1)) & bits::<32>(0x5555_5555);
            self.tree_many.next = (self.starts[b].val() & (self.starts[b].val() >> 1)) & bits::<32>(0x5555_5555);
            self.tree_many.next = (self.tree_many.val() | (self.tree_many.val() >> 2) | (self.tree_any.val() & (self.tree_any.val() >> 2))) & bits::<32>(0x1111_1111);
            self.tree_any.next = (self.tree_any.val() | (self.tree_any.val() >> 2)) & bits::<32>(0x1111_1111);
            self.tree_many.next = (self.tree_many.val() | (self.tree_many.val() >> 4) | (self.tree_any.val() & (self.tree_any.val() >> 4))) & bits::<32>(0x0101_0101);
            self.tree_any.next = (self.tree_any.val() | (self.tree_any.val() >> 4)) & bits::<32>(0x0101_0101);
            self.tree_many.next = (self.tree_many.val() | (self.tree_many.val() >> 8) | (self.tree_any.val() & (self.tree_any.val() >> 8))) & bits::<32>(0x0001_0001);
            self.tree_any.next = (self.tree_any.val() | (self.tree_any.val() >> 8)) & bits::<32>(0x0001_0001);
            self.tree_many.next = self.tree_many.val() | (self.tree_many.val() >> 16) | (self.tree_any.val() & (self.tree_any.val() >> 16));
            self.tree_any.next = self.tree_any.val() | (self.tree_any.val() >> 16);
            self.starts_one.next = self.starts_one.val().replace_bit(b, self.tree_any.val().get_bit(0) & !self.tree_many.val().get_bit(0));
            self.tree_any.next = (self.pairs[b].val() | (self.pairs[b].val() >> 1)) & bits::<32>(0x5555_5555);
            self.tree_many.next = (self.pairs[b].val() & (self.pairs[b].val() >> 1)) & bits::<32>(0x5555_5555);
            self.tree_many.next = (self.tree_many.val() | (self.tree_many.val() >> 2) | (self.tree_any.val() & (self.tree_any.val() >> 2))) & bits::<32>(0x1111_1111);
            self.tree_any.next = (self.tree_any.val() | (self.tree_any.val() >> 2)) & bits::<32>(0x1111_1111);
            self.tree_many.next = (self.tree_many.val() | (self.tree_many.val() >> 4) | (self.tree_any.val() & (self.tree_any.val() >> 4))) & bits::<32>(0x0101_0101);
            self.tree_any.next = (self.tree_any.val() | (self.tree_any.val() >> 4)) & bits::<32>(0x0101_0101);
            self.tree_many.next = (self.tree_many.val() | (self.tree_many.val() >> 8) | (self.tree_any.val() & (self.tree_any.val() >> 8))) & bits::<32>(0x0001_0001);
            self.tree_any.next = (self.tree_any.val() | (self.tree_any.val() >> 8)) & bits::<32>(0x0001_0001);
            self.tree_many.next = self.tree_many.val() | (self.tree_many.val() >> 16) | (self.tree_any.val() & (self.tree_any.val() >> 16));
            self.tree_any.next = self.tree_any.val() | (self.tree_any.val() >> 16);
            self.pairs_one.next = self.pairs_one.val().replace_bit(b, self.tree_any.val().get_bit(0) & !self.tree_many.val().get_bit(0));
            // The lowest set bit's position, wherever ONE1 or TWO1 uses it:
            // there the run starts have one bit (an OR per position bit, no
            // priority). Bit 31 encodes as 0, as the lowest-bit search did.
            self.pos[b].next = 0.into();
            for j in 0..31 {
                if self.starts[b].val().get_bit(j) {
                    self.pos[b].next = self.pos[b].val() | self.index[j].val();
                }
            }
            // Mandatory priority, lowest first so that the last match wins:
            // RAW, ONE1 (`x == l`, `l = x & -x`), TWO1 (`x == l | l << 1`
            // mod 2^32: no bit, one run of two, or bit 31 alone), DBP0, ALL1
            // (code word and payload, MSB first).
            self.pcode[b].next = self.msb.val() | self.x[b].val();
            self.plen[b].next = 32.into();
            if self.one1.val().get_bit(b) {
                self.pcode[b].next = self.pos[b].val() | bits::<32>(0x60);
                self.plen[b].next = 10.into();
            }
            if !self.x[b].val().any()
                | (self.x[b].val() == self.msb.val())
                | (self.starts_one.val().get_bit(b) & self.pairs_one.val().get_bit(b))
            {
                self.pcode[b].next = self.pos[b].val() | bits::<32>(0x40);
                self.plen[b].next = 10.into();
            }
            if !self.x_dbp_nonzero.val().get_bit(b) {
                self.pcode[b].next = 1.into();
                self.plen[b].next = 5.into();
            }
            if self.x[b].val() == self.all1.val() {
                self.pcode[b].next = 0.into();
                self.plen[b].next = 5.into();
            }
        }
        // Base word (docs/formats.md#bpc-symbols): -8 <= v <= 7 iff v + 8 < 16, and so on.
        self.base_sums[0].next = self.base.val() + bits::<32>(8);
        self.base_sums[1].next = self.base.val() + bits::<32>(128);
        self.base_sums[2].next = self.base.val() + bits::<32>(32768);
        self.base_raw.next = true;
        self.base_code.next = 1.into();
        self.base_len.next = 1.into();
        if self.base_sums[2].val() < bits::<32>(65536) {
            self.base_raw.next = false;
            self.base_code.next = (self.base.val() & bits::<32>(0xFFFF)) | bits::<32>(0x30000);
            self.base_len.next = 19.into();
        }
        if self.base_sums[1].val() < bits::<32>(256) {
            self.base_code.next = (self.base.val() & bits::<32>(0xFF)) | bits::<32>(0x200);
            self.base_len.next = 11.into();
        }
        if self.base_sums[0].val() < bits::<32>(16) {
            self.base_code.next = (self.base.val() & bits::<32>(0xF)) | bits::<32>(0x10);
            self.base_len.next = 7.into();
        }
        if !self.base.val().any() {
            self.base_code.next = 0.into();
            self.base_len.next = 3.into();
        }

        // Slots in emission order.
        self.slot_code[0].next = self.base_code.val();
        self.slot_len[0].next = self.base_len.val();
        self.slot_zero[0].next = false;
        self.slot_code[1].next = self.base.val();
        self.slot_len[1].next = 0.into();
        if self.base_raw.val() {
            self.slot_len[1].next = 32.into();
        }
        self.slot_zero[1].next = false;
        for i in 0..33 {
            self.slot_code[i + 2].next = self.pcode[32 - i].val();
            self.slot_len[i + 2].next = self.plen[32 - i].val();
            self.slot_zero[i + 2].next = !self.x[32 - i].val().any();
        }
        #(
            self.code~J.next = self.slot_code[J].val();
            self.len~J.next = self.slot_len[J].val();
            self.zero~J.next = self.slot_zero[J].val();
        )*
    }
}
});
