//! One MAG-BDI compressor unit (seed `002_*`, Sec. IV-E, Fig. 9) for one
//! delta width, split over the compressor's two pipeline stages.

use crate::entry_bits::EntryBits;
use rust_hdl::prelude::*;

/// The compressor unit for `d`-bit deltas (docs/formats.md#mag-bdi, steps 1-3).
///
/// ```text
///  stage A (before the stage register)        stage B (after it)
///  in_entry ─ sign-ext check ─ fail ─┬─▶ s1_mask ──────────────┬──▶ mask
///            vs zero base (32x)       └ first 1 ─ AND-OR ─▶ s1_base ─┬──▶ base
///                                         (one-hot)  mux          │  w - B (32x), check
///  s1_entry (parent's stage register) ────────────────────────────┴──▶ ok, deltas
/// ```
///
/// Stage A: `fail[i]` = `w[i]`, as `i32`, is outside `[-2^(d-1), 2^(d-1))`
/// (tested as `w + 2^(d-1) < 2^d` in 32-bit arithmetic); the base `B` is
/// the first failing word (one-hot `fail & -fail` into an AND-OR mux), 0 if
/// none. Both are registered when `load` is high, alongside the parent's
/// copy of the entry.
///
/// Stage B: for every word with `mask[i]` set, `w[i] - B` must pass the same
/// check; `ok` is the AND of those. `delta_i` is `w[i] - B` (mask 1) or
/// `w[i]` (mask 0), all 32 bits (the packer keeps the low `d`).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `clock` | 1 | in | rising edge |
/// | `load` | 1 | in | the parent's stage register loads this cycle |
/// | `in_entry` | 1024 | in | stage A: the entry entering the stage register |
/// | `s1_entry` | 1024 | in | stage B: the entry in the parent's stage register |
/// | `ok` | 1 | out | the unit compresses the stage-B entry |
/// | `base`, `mask` | 32, 32 | out | stage B's `B` and base mask |
/// | `deltas` | 1024 | out | `delta_i` in `[32i +: 32]` |
///
/// Depth: stage A, a 32-bit add and compare, a 32-bit negate and a 32-way
/// OR; stage B, a 32-bit subtract, add and compare and a 32-input AND.
#[derive(LogicBlock)]
pub struct MagBdiUnit {
    pub clock: Signal<In, Clock>,
    pub load: Signal<In, Bit>,
    pub in_entry: Signal<In, EntryBits>,
    pub s1_entry: Signal<In, EntryBits>,
    pub ok: Signal<Out, Bit>,
    pub base: Signal<Out, Bits<32>>,
    pub mask: Signal<Out, Bits<32>>,
    pub deltas: Signal<Out, EntryBits>,
    /// `2^(d-1)` and `2^d`: `x` fits `d` signed bits iff `x + half < span`.
    half: Constant<Bits<32>>,
    span: Constant<Bits<32>>,
    one: Constant<Bits<32>>,
    a_words: [Signal<Local, Bits<32>>; 32],
    fail: Signal<Local, Bits<32>>,
    first: Signal<Local, Bits<32>>,
    pick: [Signal<Local, Bits<32>>; 32],
    a_base: Signal<Local, Bits<32>>,
    s1_base: DFF<Bits<32>>,
    s1_mask: DFF<Bits<32>>,
    b_words: [Signal<Local, Bits<32>>; 32],
    diff: [Signal<Local, Bits<32>>; 32],
    all_fit: Signal<Local, Bit>,
    delta_words: Signal<Local, EntryBits>,
}

impl MagBdiUnit {
    /// The unit for `delta_bits`-bit deltas, `1 ..= 31` (MAG-BDI uses 2 ..= 26).
    ///
    /// # Panics
    /// On a width outside `1 ..= 31`: a design-time parameter error.
    pub fn new(delta_bits: u32) -> Self {
        assert!((1..=31).contains(&delta_bits), "delta width {delta_bits} outside 1..=31");
        MagBdiUnit {
            clock: Default::default(),
            load: Default::default(),
            in_entry: Default::default(),
            s1_entry: Default::default(),
            ok: Default::default(),
            base: Default::default(),
            mask: Default::default(),
            deltas: Default::default(),
            half: Constant::new((1u64 << (delta_bits - 1)).into()),
            span: Constant::new((1u64 << delta_bits).into()),
            one: Constant::new(1u64.into()),
            a_words: Default::default(),
            fail: Default::default(),
            first: Default::default(),
            pick: Default::default(),
            a_base: Default::default(),
            s1_base: Default::default(),
            s1_mask: Default::default(),
            b_words: Default::default(),
            diff: Default::default(),
            all_fit: Default::default(),
            delta_words: Default::default(),
        }
    }
}

seq_macro::seq!(J in 0..32 {
impl Logic for MagBdiUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_base, s1_mask);

        // Stage A: zero-base check and the first failing word as base.
        #( self.a_words[J].next = self.in_entry.val().w~J; )*
        self.fail.next = 0.into();
        for i in 0..32 {
            // `>=`, not `!(.. < ..)`: Verilog would widen the 1-bit compare to
            // the 32-bit context of `replace_bit` before inverting it.
            self.fail.next = self.fail.val().replace_bit(i, (self.a_words[i].val() + self.half.val()) >= self.span.val());
        }
        self.first.next = self.fail.val() & (!self.fail.val() + self.one.val());
        self.a_base.next = 0.into();
        for i in 0..32 {
            self.pick[i].next = 0.into();
            if self.first.val().get_bit(i) {
                self.pick[i].next = self.a_words[i].val();
            }
            self.a_base.next = self.a_base.val() | self.pick[i].val();
        }
        if self.load.val() {
            self.s1_base.d.next = self.a_base.val();
            self.s1_mask.d.next = self.fail.val();
        }

        // Stage B: every base-1 word must fit relative to B.
        #( self.b_words[J].next = self.s1_entry.val().w~J; )*
        self.all_fit.next = true;
        for i in 0..32 {
            self.diff[i].next = self.b_words[i].val() - self.s1_base.q.val();
            if self.s1_mask.q.val().get_bit(i) & ((self.diff[i].val() + self.half.val()) >= self.span.val()) {
                self.all_fit.next = false;
            }
        }
        #(
            self.delta_words.next.w~J = self.b_words[J].val();
            if self.s1_mask.q.val().get_bit(J) {
                self.delta_words.next.w~J = self.diff[J].val();
            }
        )*
        self.ok.next = self.all_fit.val();
        self.base.next = self.s1_base.q.val();
        self.mask.next = self.s1_mask.q.val();
        self.deltas.next = self.delta_words.val();
    }
}
});
