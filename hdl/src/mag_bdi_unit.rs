//! One MAG-BDI compressor unit (seed `002_*`, Sec. IV-E, Fig. 9) for one
//! delta width, split over the compressor's pipeline stages.

use crate::entry_bits::EntryBits;
use crate::stages::Stages;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// The compressor unit for `d`-bit deltas (docs/formats.md#mag-bdi, steps 1-3).
///
/// ```text
///  stage A (before stage 1)                   stage B (after it)               [stage C: EightLevels]
///  in_entry ─ sign-ext check ─ fail ─[s0]─┬─▶ s1_mask ──────────────────[s2]─┬──▶ mask
///            vs zero base (32x)            └ first 1 ─ AND-OR ─▶ s1_base ─[s2]─┼──▶ base
///                                              (one-hot)  mux     w - B check ─[s2 ok]──▶ ok
///  s1_entry / s2_entry (parent's stage registers) ─────────────── w - B ─────────▶ deltas
/// ```
///
/// Stage A: `fail[i]` = `w[i]`, as `i32`, is outside `[-2^(d-1), 2^(d-1))`
/// (tested as `w + 2^(d-1) < 2^d` in 32-bit arithmetic); the base `B` is
/// the first failing word (one-hot `fail & -fail` into an AND-OR mux), 0 if
/// none. Both are registered when `load1` is high, alongside the parent's
/// stage-1 copy of the entry.
///
/// Stage B: for every word with `mask[i]` set, `w[i] - B` must pass the same
/// check; `ok` is the AND of those. `delta_i` is `w[i] - B` (mask 1) or
/// `w[i]` (mask 0), all 32 bits (the packer keeps the low `d`).
///
/// Built [`Stages::EightLevels`], the unit is three stages: the fail flags
/// are registered with the parent's stage 0 (`load0`, `s0_entry`), and the
/// check's result with the base and mask in stage 2 (`load2`), after which
/// the deltas are computed again from the parent's `s2_entry`. Built
/// [`Stages::Paper`], `load0`, `load2`, `s0_entry` and `s2_entry` are
/// unused.
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `clock` | 1 | in | rising edge |
/// | `load0`, `load1`, `load2` | 1 each | in | the parent's stage 0, 1, 2 register loads this cycle |
/// | `in_entry` | 1024 | in | stage A: the entry entering the parent's first stage register |
/// | `s0_entry`, `s1_entry`, `s2_entry` | 1024 each | in | the entry in the parent's stage 0, 1, 2 register |
/// | `ok` | 1 | out | the unit compresses the last stage's entry |
/// | `base`, `mask` | 32, 32 | out | the last stage's `B` and base mask |
/// | `deltas` | 1024 | out | `delta_i` in `[32i +: 32]` |
///
/// Depth: stage A, a 32-bit add and compare, a 32-bit negate and a 32-way
/// OR; stage B, a 32-bit subtract, add and compare and a 32-input AND;
/// stage C (EightLevels), a 32-bit subtract.
#[derive(SettleBlock)]
pub struct MagBdiUnit {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub load0: Signal<In, Bit>,
    pub load1: Signal<In, Bit>,
    pub load2: Signal<In, Bit>,
    pub in_entry: Signal<In, EntryBits>,
    pub s0_entry: Signal<In, EntryBits>,
    pub s1_entry: Signal<In, EntryBits>,
    pub s2_entry: Signal<In, EntryBits>,
    pub ok: Signal<Out, Bit>,
    pub base: Signal<Out, Bits<32>>,
    pub mask: Signal<Out, Bits<32>>,
    pub deltas: Signal<Out, EntryBits>,
    staged: Constant<Bit>,
    /// Bits 30..d-1 of a 32-bit word for `d`-bit deltas, bit i standing
    /// for the pair of bits (i, i + 1): a delta fits when bits 31..d-1 are
    /// all equal (sign extension), i.e. no pair differs, which is
    /// `delta + 2^(d-1) < 2^d` without the adder.
    top_pairs: Constant<Bits<32>>,
    one: Constant<Bits<32>>,
    a_words: [Signal<Local, Bits<32>>; 32],
    a_fail: Signal<Local, Bits<32>>,
    s0_fail: DFF<Bits<32>>,
    fail: Signal<Local, Bits<32>>,
    pick_entry: Signal<Local, EntryBits>,
    p_words: [Signal<Local, Bits<32>>; 32],
    first: Signal<Local, Bits<32>>,
    pick: [Signal<Local, Bits<32>>; 32],
    a_base: Signal<Local, Bits<32>>,
    s1_base: DFF<Bits<32>>,
    s1_mask: DFF<Bits<32>>,
    b_words: [Signal<Local, Bits<32>>; 32],
    diff: [Signal<Local, Bits<32>>; 32],
    misfit: Signal<Local, Bits<32>>,
    pairs_w: Signal<Local, Bits<32>>,
    flags_w: Signal<Local, Bits<32>>,
    or_sum: Signal<Local, Bits<33>>,
    all_ones: Constant<Bits<33>>,
    all_fit: Signal<Local, Bit>,
    s2_ok: DFF<Bit>,
    s2_base: DFF<Bits<32>>,
    s2_mask: DFF<Bits<32>>,
    c_entry: Signal<Local, EntryBits>,
    c_base: Signal<Local, Bits<32>>,
    c_mask: Signal<Local, Bits<32>>,
    c_words: [Signal<Local, Bits<32>>; 32],
    delta_words: Signal<Local, EntryBits>,
}

impl MagBdiUnit {
    /// A unit for `delta_bits`-bit deltas (1..=31), pipelined as `stages`
    /// says.
    ///
    /// # Panics
    /// `delta_bits` outside 1..=31 (a build-time error in the encoding table).
    pub fn new(delta_bits: u32, stages: Stages) -> Self {
        assert!((1..=31).contains(&delta_bits), "delta width {delta_bits} outside 1..=31");
        MagBdiUnit {
            _settle: Default::default(),
            clock: Default::default(),
            load0: Default::default(),
            load1: Default::default(),
            load2: Default::default(),
            in_entry: Default::default(),
            s0_entry: Default::default(),
            s1_entry: Default::default(),
            s2_entry: Default::default(),
            ok: Default::default(),
            base: Default::default(),
            mask: Default::default(),
            deltas: Default::default(),
            staged: Constant::new(stages.registers_inputs()),
            top_pairs: Constant::new((0x7FFF_FFFFu64 & !((1u64 << (delta_bits - 1)) - 1)).into()),
            one: Constant::new(1u64.into()),
            a_words: Default::default(),
            a_fail: Default::default(),
            s0_fail: Default::default(),
            fail: Default::default(),
            pick_entry: Default::default(),
            p_words: Default::default(),
            first: Default::default(),
            pick: Default::default(),
            a_base: Default::default(),
            s1_base: Default::default(),
            s1_mask: Default::default(),
            b_words: Default::default(),
            diff: Default::default(),
            misfit: Default::default(),
            pairs_w: Default::default(),
            flags_w: Default::default(),
            or_sum: Default::default(),
            all_ones: Constant::new(0xFFFF_FFFFu64.into()),
            all_fit: Default::default(),
            s2_ok: Default::default(),
            s2_base: Default::default(),
            s2_mask: Default::default(),
            c_entry: Default::default(),
            c_base: Default::default(),
            c_mask: Default::default(),
            c_words: Default::default(),
            delta_words: Default::default(),
        }
    }
}

seq_macro::seq!(J in 0..32 {
impl Logic for MagBdiUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s0_fail, s1_base, s1_mask, s2_ok, s2_base, s2_mask);

        // Stage A: the fail flags of the entry entering the pipeline
        // (registered in stage 0 when staged), then the base.
        #( self.a_words[J].next = self.in_entry.val().w~J; )*
        self.a_fail.next = 0.into();
        for i in 0..32 {
            self.a_fail.next = self.a_fail.val().replace_bit(
                i,
                ((self.a_words[i].val() ^ (self.a_words[i].val() >> 1)) & self.top_pairs.val()).any(),
            );
        }
        if self.load0.val() {
            self.s0_fail.d.next = self.a_fail.val();
        }
        if self.staged.val() {
            self.fail.next = self.s0_fail.q.val();
            self.pick_entry.next = self.s0_entry.val();
        } else {
            self.fail.next = self.a_fail.val();
            self.pick_entry.next = self.in_entry.val();
        }
        #( self.p_words[J].next = self.pick_entry.val().w~J; )*
        self.first.next = self.fail.val() & (!self.fail.val() + self.one.val());
        self.a_base.next = 0.into();
        for i in 0..32 {
            self.pick[i].next = 0.into();
            if self.first.val().get_bit(i) {
                self.pick[i].next = self.p_words[i].val();
            }
            self.a_base.next = self.a_base.val() | self.pick[i].val();
        }
        if self.load1.val() {
            self.s1_base.d.next = self.a_base.val();
            self.s1_mask.d.next = self.fail.val();
        }

        // Stage B: every based word's delta must fit.
        #( self.b_words[J].next = self.s1_entry.val().w~J; )*
        // Per word a flag, then one OR of them (an `if` per word made a
        // chain of 32 ANDs, which ABC left 8 LUTs deep). A delta misfits
        // when its top bits are not all equal: some adjacent pair differs
        // (one OR of XORs, rather than all-zero and all-one detectors).
        self.misfit.next = 0.into();
        for i in 0..32 {
            self.diff[i].next = self.b_words[i].val() - self.s1_base.q.val();
            self.pairs_w.next = (self.diff[i].val() ^ (self.diff[i].val() >> 1)) & self.top_pairs.val();
            self.or_sum.next = bit_cast::<33, 32>(self.pairs_w.val()) + self.all_ones.val();
            self.misfit.next = self.misfit.val().replace_bit(i, self.or_sum.val().get_bit(32));
        }
        self.flags_w.next = self.misfit.val() & self.s1_mask.q.val();
        self.or_sum.next = bit_cast::<33, 32>(self.flags_w.val()) + self.all_ones.val();
        self.all_fit.next = !self.or_sum.val().get_bit(32);
        if self.load2.val() {
            self.s2_ok.d.next = self.all_fit.val();
            self.s2_base.d.next = self.s1_base.q.val();
            self.s2_mask.d.next = self.s1_mask.q.val();
        }

        // The deltas of the last stage's entry (stage C when staged: the
        // subtract again rather than 1,024 more flip-flops per unit).
        if self.staged.val() {
            self.ok.next = self.s2_ok.q.val();
            self.c_entry.next = self.s2_entry.val();
            self.c_base.next = self.s2_base.q.val();
            self.c_mask.next = self.s2_mask.q.val();
        } else {
            self.ok.next = self.all_fit.val();
            self.c_entry.next = self.s1_entry.val();
            self.c_base.next = self.s1_base.q.val();
            self.c_mask.next = self.s1_mask.q.val();
        }
        #(
            self.c_words[J].next = self.c_entry.val().w~J;
            self.delta_words.next.w~J = self.c_words[J].val();
            if self.c_mask.val().get_bit(J) {
                self.delta_words.next.w~J = self.c_words[J].val() - self.c_base.val();
            }
        )*
        self.base.next = self.c_base.val();
        self.mask.next = self.c_mask.val();
        self.deltas.next = self.delta_words.val();
    }
}
});
