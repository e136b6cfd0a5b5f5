//! Log-depth compaction and expansion networks for 32-bit words, the
//! datapath of the ZVC compressor and decompressor (cDMA, seed `003_*`,
//! Fig. 10: a prefix sum of the zero flags steers a 5-level shifter).
//!
//! The networks work on 33 *slots*: slot 0 holds a header word (the ZVC mask)
//! and slot `i + 1` holds word `w[i]`. Compaction moves every valid word
//! towards slot 0 by its *shift* — the number of invalid slots before it — in
//! 5 levels: level `k` moves an element by `2^k` when bit `k` of its shift is
//! set. Processing the shift bits LSB-first never makes two valid elements
//! meet in one slot and keeps their order, so each level is a 2:1 mux per
//! slot instead of a 32:1 gather.
//!
//! Raw mode (an entry stored uncompressed) reuses the same network: the
//! header slot is invalid and every word valid with shift 1, so word `i`
//! lands in slot `i`. This replaces a 1024-bit raw/compressed output mux.
//!
//! Control bits are given per level as two 32-bit masks over slots 1..=32
//! (bit `i` = slot `i + 1`): `moves` (valid and moving by `2^k`) and `stays`
//! (valid and not moving). Slot 0 never moves.

use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// The first half of the routing: each kept word's shift (the number of
/// dropped words before it), from a Kogge-Stone prefix count of the zero
/// flags.
///
/// - `valid_words` (32 bits): bit `i` = word `i` is kept (ZVC: `w[i] != 0`).
/// - `raw` (1 bit): route for an uncompressed entry (all words kept, in place).
/// - `raw_when_dense` (1 bit): also route raw when 24 or more words are kept
///   (ZVC stream > 768 bits). Deciding this here, not in the parent, keeps
///   the parent free of an output-to-input path through this block, which
///   Verilator would report as circular logic.
/// - `zero_count` (6 bits, 0..=32): number of clear bits of `valid_words`
///   (independent of `raw`).
/// - `valid` (32 bits): the words [`Routing`] moves (all of them in raw mode).
/// - `shifts[i]` (5 bits): word `i`'s distance towards slot 0 (1 in raw mode,
///   so word `i` lands in slot `i`).
///
/// Purely combinational: 5 levels of 6-bit adds.
#[derive(SettleBlock, Default)]
pub struct ShiftCount {
    _settle: crate::settle::Settle,
    pub valid_words: Signal<In, Bits<32>>,
    pub raw: Signal<In, Bit>,
    pub raw_when_dense: Signal<In, Bit>,
    pub zero_count: Signal<Out, Bits<6>>,
    pub valid: Signal<Out, Bits<32>>,
    pub shifts: [Signal<Out, Bits<5>>; 32],
    raw_mode: Signal<Local, Bit>,
    // Kogge-Stone levels of the inclusive prefix count of zero flags.
    zf: [Signal<Local, Bits<6>>; 32],
    ks1: [Signal<Local, Bits<6>>; 32],
    ks2: [Signal<Local, Bits<6>>; 32],
    ks3: [Signal<Local, Bits<6>>; 32],
    ks4: [Signal<Local, Bits<6>>; 32],
    ks5: [Signal<Local, Bits<6>>; 32],
}

impl Logic for ShiftCount {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..32 {
            self.zf[i].next = 0.into();
            if !self.valid_words.val().get_bit(i) {
                self.zf[i].next = 1.into();
            }
        }
        for i in 0..1 {
            self.ks1[i].next = self.zf[i].val();
        }
        for i in 1..32 {
            self.ks1[i].next = self.zf[i].val() + self.zf[i - 1].val();
        }
        for i in 0..2 {
            self.ks2[i].next = self.ks1[i].val();
        }
        for i in 2..32 {
            self.ks2[i].next = self.ks1[i].val() + self.ks1[i - 2].val();
        }
        for i in 0..4 {
            self.ks3[i].next = self.ks2[i].val();
        }
        for i in 4..32 {
            self.ks3[i].next = self.ks2[i].val() + self.ks2[i - 4].val();
        }
        for i in 0..8 {
            self.ks4[i].next = self.ks3[i].val();
        }
        for i in 8..32 {
            self.ks4[i].next = self.ks3[i].val() + self.ks3[i - 8].val();
        }
        for i in 0..16 {
            self.ks5[i].next = self.ks4[i].val();
        }
        for i in 16..32 {
            self.ks5[i].next = self.ks4[i].val() + self.ks4[i - 16].val();
        }
        self.zero_count.next = self.ks5[31].val();

        // A kept word's shift is ks5 at its own index (it is not dropped
        // itself). Outputs are assigned once per evaluation, as in
        // `Routing`: the raw case picks between two values.
        self.raw_mode.next = self.raw.val() | (self.raw_when_dense.val() & (self.ks5[31].val() <= 8));
        if self.raw_mode.val() {
            self.valid.next = !bits::<32>(0);
            for i in 0..32 {
                self.shifts[i].next = 1.into();
            }
        } else {
            self.valid.next = self.valid_words.val();
            for i in 0..32 {
                self.shifts[i].next = self.ks5[i].val().get_bits::<5>(0);
            }
        }
    }
}

/// The second half of the routing: the networks' per-level controls from
/// [`ShiftCount`]'s `valid` and `shifts`.
///
/// - `moves[k]`, `stays[k]` (32 bits each, k = 0..5): routing of level `k`.
///
/// Purely combinational: 5 levels of 5-bit 2:1 muxes; level `k`'s controls
/// are ready after `k + 1` of them, so [`CompactionNetwork`] (levels 0 up)
/// overlaps with it and [`ExpansionNetwork`] (levels 4 down) waits for all.
#[derive(SettleBlock, Default)]
pub struct Routing {
    _settle: crate::settle::Settle,
    pub valid: Signal<In, Bits<32>>,
    pub shifts: [Signal<In, Bits<5>>; 32],
    pub moves: [Signal<Out, Bits<32>>; 5],
    pub stays: [Signal<Out, Bits<32>>; 5],
    // Routing built bit by bit here and copied to the outputs once: a port
    // written more than once per evaluation glitches, and in an event-driven
    // simulator (Icarus) two blocks glitching into each other never settle.
    mv: [Signal<Local, Bits<32>>; 5],
    st: [Signal<Local, Bits<32>>; 5],
    // Valid slots (1..=32) and remaining shifts before each level.
    lv: [Signal<Local, Bits<32>>; 6],
    sh0: [Signal<Local, Bits<5>>; 32],
    sh1: [Signal<Local, Bits<5>>; 32],
    sh2: [Signal<Local, Bits<5>>; 32],
    sh3: [Signal<Local, Bits<5>>; 32],
    sh4: [Signal<Local, Bits<5>>; 32],
    sh5: [Signal<Local, Bits<5>>; 32],
}

// `#[hdl_gen]` cannot compute `1 << k` in an index, so the five levels are
// stamped out by this macro with literal level numbers and distances.
macro_rules! routing_update {
    ($( ($k:tt, $kn:tt, $d:tt, $sh:ident, $shn:ident) ),*) => {
        impl Logic for Routing {
            #[hdl_gen]
            fn update(&mut self) {
                self.lv[0].next = self.valid.val();
                for i in 0..32 {
                    self.sh0[i].next = self.shifts[i].val();
                }
                $(
                    self.mv[$k].next = 0.into();
                    self.st[$k].next = 0.into();
                    for i in 0..32 {
                        self.mv[$k].next = self.mv[$k].val().replace_bit(
                            i, self.lv[$k].val().get_bit(i) & self.$sh[i].val().get_bit($k));
                        self.st[$k].next = self.st[$k].val().replace_bit(
                            i, self.lv[$k].val().get_bit(i) & !self.$sh[i].val().get_bit($k));
                    }
                    self.moves[$k].next = self.mv[$k].val();
                    self.stays[$k].next = self.st[$k].val();
                    self.lv[$kn].next = self.st[$k].val() | (self.mv[$k].val() >> $d);
                    for i in 0..32 {
                        self.$shn[i].next = self.$sh[i].val();
                    }
                    for i in 0..(32 - $d) {
                        if self.mv[$k].val().get_bit(i + $d) {
                            self.$shn[i].next = self.$sh[i + $d].val();
                        }
                    }
                )*
            }
        }
    };
}

routing_update!((0, 1, 1, sh0, sh1), (1, 2, 2, sh1, sh2), (2, 3, 4, sh2, sh3), (3, 4, 8, sh3, sh4), (4, 5, 16, sh4, sh5));

/// The compaction datapath: 33 slots in, slots 0..32 out, steered by the
/// routing of [`Routing`].
///
/// Invalid input slots must hold 0 (so dropped words vanish without extra
/// gating). Output slot `j` holds the `j`-th valid input slot in order, 0
/// past the last one. Purely combinational: 5 levels of one 4-input function
/// per bit.
#[derive(SettleBlock)]
pub struct CompactionNetwork {
    _settle: crate::settle::Settle,
    pub slots_in: [Signal<In, Bits<32>>; 33],
    pub moves: [Signal<In, Bits<32>>; 5],
    pub slots_out: [Signal<Out, Bits<32>>; 32],
    d0: [Signal<Local, Bits<32>>; 33],
    d1: [Signal<Local, Bits<32>>; 33],
    d2: [Signal<Local, Bits<32>>; 33],
    d3: [Signal<Local, Bits<32>>; 33],
    d4: [Signal<Local, Bits<32>>; 33],
    d5: [Signal<Local, Bits<32>>; 33],
}

impl Default for CompactionNetwork {
    fn default() -> Self {
        Self {
            _settle: Default::default(),
            slots_in: std::array::from_fn(|_| Default::default()),
            moves: Default::default(),
            slots_out: Default::default(),
            d0: std::array::from_fn(|_| Default::default()),
            d1: std::array::from_fn(|_| Default::default()),
            d2: std::array::from_fn(|_| Default::default()),
            d3: std::array::from_fn(|_| Default::default()),
            d4: std::array::from_fn(|_| Default::default()),
            d5: std::array::from_fn(|_| Default::default()),
        }
    }
}

macro_rules! compaction_update {
    ($( ($k:tt, $d:tt, $cur:ident, $nxt:ident) ),*) => {
        impl Logic for CompactionNetwork {
            #[hdl_gen]
            fn update(&mut self) {
                for t in 0..33 {
                    self.d0[t].next = self.slots_in[t].val();
                }
                $(
                    for t in 0..33 {
                        self.$nxt[t].next = self.$cur[t].val();
                    }
                    // An element that moves away leaves a hole (0) behind ...
                    for t in 1..33 {
                        if self.moves[$k].val().get_bit(t - 1) {
                            self.$nxt[t].next = 0.into();
                        }
                    }
                    // ... unless the element `2^k` slots above moves into it.
                    for t in 0..(33 - $d) {
                        if self.moves[$k].val().get_bit(t + $d - 1) {
                            self.$nxt[t].next = self.$cur[t + $d].val();
                        }
                    }
                )*
                for t in 0..32 {
                    self.slots_out[t].next = self.d5[t].val();
                }
            }
        }
    };
}

compaction_update!((0, 1, d0, d1), (1, 2, d1, d2), (2, 4, d2, d3), (3, 8, d3, d4), (4, 16, d4, d5));

/// The expansion datapath, the inverse of [`CompactionNetwork`]: the levels
/// run from 4 down to 0 with the same routing, so a compacted slot returns to
/// where it came from.
///
/// `slots_in[0]` is the header slot; `slots_in[1..33]` the compacted words
/// (slot 32 is absent in a 1024-bit payload and reads as 0). `words_out[i]`
/// is slot `i + 1` after expansion: the word if valid, else 0, whatever the
/// input slots hold beyond the valid ones. Purely combinational.
#[derive(SettleBlock)]
pub struct ExpansionNetwork {
    _settle: crate::settle::Settle,
    pub slots_in: [Signal<In, Bits<32>>; 32],
    pub moves: [Signal<In, Bits<32>>; 5],
    pub stays: [Signal<In, Bits<32>>; 5],
    pub words_out: [Signal<Out, Bits<32>>; 32],
    y5: [Signal<Local, Bits<32>>; 33],
    y4: [Signal<Local, Bits<32>>; 33],
    y3: [Signal<Local, Bits<32>>; 33],
    y2: [Signal<Local, Bits<32>>; 33],
    y1: [Signal<Local, Bits<32>>; 33],
    y0: [Signal<Local, Bits<32>>; 33],
}

impl Default for ExpansionNetwork {
    fn default() -> Self {
        Self {
            _settle: Default::default(),
            slots_in: Default::default(),
            moves: Default::default(),
            stays: Default::default(),
            words_out: Default::default(),
            y5: std::array::from_fn(|_| Default::default()),
            y4: std::array::from_fn(|_| Default::default()),
            y3: std::array::from_fn(|_| Default::default()),
            y2: std::array::from_fn(|_| Default::default()),
            y1: std::array::from_fn(|_| Default::default()),
            y0: std::array::from_fn(|_| Default::default()),
        }
    }
}

macro_rules! expansion_update {
    ($( ($k:tt, $d:tt, $cur:ident, $nxt:ident) ),*) => {
        impl Logic for ExpansionNetwork {
            #[hdl_gen]
            fn update(&mut self) {
                for t in 0..32 {
                    self.y5[t].next = self.slots_in[t].val();
                }
                self.y5[32].next = 0.into();
                $(
                    // The header slot never moves; only raw mode reads it.
                    self.$nxt[0].next = self.$cur[0].val();
                    for u in 1..33 {
                        self.$nxt[u].next = 0.into();
                        if self.stays[$k].val().get_bit(u - 1) {
                            self.$nxt[u].next = self.$cur[u].val();
                        }
                    }
                    for u in $d..33 {
                        if self.moves[$k].val().get_bit(u - 1) {
                            self.$nxt[u].next = self.$cur[u - $d].val();
                        }
                    }
                )*
                for i in 0..32 {
                    self.words_out[i].next = self.y0[i + 1].val();
                }
            }
        }
    };
}

expansion_update!((4, 16, y5, y4), (3, 8, y4, y3), (2, 4, y3, y2), (1, 2, y2, y1), (0, 1, y1, y0));
