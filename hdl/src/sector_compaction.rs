//! The 8-word (one 32-byte sector) datapath of cDMA's ZVC engines (seed
//! `003_*`, Sec. V-B, Fig. 10): a prefix sum of the zero flags decoded into
//! the mux selects of a 3-level bubble-collapsing shifter, and its inverse,
//! the bubble-expanding shifter.
//!
//! The 8-slot counterpart of [`crate::compaction`] (33 slots, one memory-entry
//! per cycle). Compaction moves every kept word towards slot 0 by its
//! *shift*, the number of dropped words before it, in 3 levels: level `k`
//! moves an element by `2^k` when bit `k` of its shift is set. Processing
//! the shift bits LSB-first never makes two kept elements meet in one slot
//! and keeps their order, so each level is a 2:1 mux per slot.
//!
//! Routing is given per level as two 8-bit masks over the slots *before*
//! that level: `moves[k]` (a kept element there moves by `2^k`) and
//! `stays[k]` (a kept element there does not move).

use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// The 8-bit mask of a sector's non-zero words (stage 1 of cDMA's
/// compression engine: "these eight words are compared in parallel to
/// zero, forming the mask bits").
///
/// - `words[m]` (32 bits each): the sector's words.
/// - `mask` (8 bits): bit `m` set iff `words[m] != 0`.
///
/// Purely combinational. A block of its own so that the parent feeds
/// [`SectorRouting`] from a block output: Verilator reports a parent that
/// computes a sub-block's input in its own `always` and reads that
/// sub-block's outputs in the same block as circular (UNOPTFLAT).
#[derive(SettleBlock, Default)]
pub struct SectorZeroMask {
    _settle: crate::settle::Settle,
    pub words: [Signal<In, Bits<32>>; 8],
    pub mask: Signal<Out, Bits<8>>,
    flags: Signal<Local, Bits<8>>,
}

impl Logic for SectorZeroMask {
    #[hdl_gen]
    fn update(&mut self) {
        self.flags.next = 0.into();
        for m in 0..8 {
            self.flags.next = self.flags.val().replace_bit(m, self.words[m].val().any());
        }
        self.mask.next = self.flags.val();
    }
}

/// Computes the routing of the 8-slot networks from the kept words.
///
/// - `kept` (8 bits): bit `i` = word `i` is kept (compression: `w[i] != 0`;
///   decompression: the mask segment).
/// - `kept_count` (4 bits, 0..=8): number of set bits of `kept` (the
///   decompression engine's pop-count).
/// - `moves[k]`, `stays[k]` (8 bits each, k = 0..3): routing of level `k`.
///
/// Purely combinational. The inclusive prefix count of the zero flags is a
/// Brent-Kung tree of 11 adders, 3-bit but for the total (4 bits, it
/// reaches 8): the paper's "prefix sum operation, requiring 11 3-bit
/// adders". Then 2 levels of 3-bit 2:1 muxes track each element's
/// remaining shift into the next level.
#[derive(SettleBlock, Default)]
pub struct SectorRouting {
    _settle: crate::settle::Settle,
    pub kept: Signal<In, Bits<8>>,
    pub kept_count: Signal<Out, Bits<4>>,
    pub moves: [Signal<Out, Bits<8>>; 3],
    pub stays: [Signal<Out, Bits<8>>; 3],
    zf: [Signal<Local, Bits<3>>; 8],
    // Brent-Kung up-sweep (a, b, c) and down-sweep (p) partial sums; the
    // number is the index whose inclusive prefix the sum ends at.
    a1: Signal<Local, Bits<3>>,
    a3: Signal<Local, Bits<3>>,
    a5: Signal<Local, Bits<3>>,
    a7: Signal<Local, Bits<3>>,
    b3: Signal<Local, Bits<3>>,
    b7: Signal<Local, Bits<3>>,
    c7: Signal<Local, Bits<4>>,
    p2: Signal<Local, Bits<3>>,
    p4: Signal<Local, Bits<3>>,
    p5: Signal<Local, Bits<3>>,
    p6: Signal<Local, Bits<3>>,
    // Kept slots and remaining shifts before each level; routing built
    // here and copied to the outputs once (see `compaction`).
    valid: [Signal<Local, Bits<8>>; 3],
    sh0: [Signal<Local, Bits<3>>; 8],
    sh1: [Signal<Local, Bits<3>>; 8],
    sh2: [Signal<Local, Bits<3>>; 8],
    mv: [Signal<Local, Bits<8>>; 3],
    st: [Signal<Local, Bits<8>>; 3],
}

// `#[hdl_gen]` cannot compute `1 << k` in an index, so the levels are
// stamped out with literal level numbers and distances; the state after
// the last level (2) is not needed.
macro_rules! routing_update {
    ($( ($k:tt, $kn:tt, $d:tt, $sh:ident, $shn:ident) ),*; ($kl:tt, $shl:ident)) => {
        impl Logic for SectorRouting {
            #[hdl_gen]
            fn update(&mut self) {
                for i in 0..8 {
                    self.zf[i].next = 0.into();
                    if !self.kept.val().get_bit(i) {
                        self.zf[i].next = 1.into();
                    }
                }
                // Every partial sum before the total is at most 7 (3 bits).
                self.a1.next = self.zf[0].val() + self.zf[1].val();
                self.a3.next = self.zf[2].val() + self.zf[3].val();
                self.a5.next = self.zf[4].val() + self.zf[5].val();
                self.a7.next = self.zf[6].val() + self.zf[7].val();
                self.b3.next = self.a1.val() + self.a3.val();
                self.b7.next = self.a5.val() + self.a7.val();
                self.c7.next = bit_cast::<4, 3>(self.b3.val()) + bit_cast::<4, 3>(self.b7.val());
                self.p5.next = self.b3.val() + self.a5.val();
                self.p2.next = self.a1.val() + self.zf[2].val();
                self.p4.next = self.b3.val() + self.zf[4].val();
                self.p6.next = self.p5.val() + self.zf[6].val();
                self.kept_count.next = bits::<4>(8) - self.c7.val();

                // A kept word's shift is the number of dropped words before
                // it: its inclusive prefix (it is not dropped itself), at
                // most 7. Word 7's prefix is 8 only when no word is kept.
                self.valid[0].next = self.kept.val();
                self.sh0[0].next = self.zf[0].val();
                self.sh0[1].next = self.a1.val();
                self.sh0[2].next = self.p2.val();
                self.sh0[3].next = self.b3.val();
                self.sh0[4].next = self.p4.val();
                self.sh0[5].next = self.p5.val();
                self.sh0[6].next = self.p6.val();
                self.sh0[7].next = self.c7.val().get_bits::<3>(0);
                $(
                    self.mv[$k].next = 0.into();
                    self.st[$k].next = 0.into();
                    for i in 0..8 {
                        self.mv[$k].next = self.mv[$k].val().replace_bit(
                            i, self.valid[$k].val().get_bit(i) & self.$sh[i].val().get_bit($k));
                        self.st[$k].next = self.st[$k].val().replace_bit(
                            i, self.valid[$k].val().get_bit(i) & !self.$sh[i].val().get_bit($k));
                    }
                    self.moves[$k].next = self.mv[$k].val();
                    self.stays[$k].next = self.st[$k].val();
                    self.valid[$kn].next = self.st[$k].val() | (self.mv[$k].val() >> $d);
                    for i in 0..8 {
                        self.$shn[i].next = self.$sh[i].val();
                    }
                    for i in 0..(8 - $d) {
                        if self.mv[$k].val().get_bit(i + $d) {
                            self.$shn[i].next = self.$sh[i + $d].val();
                        }
                    }
                )*
                self.mv[$kl].next = 0.into();
                self.st[$kl].next = 0.into();
                for i in 0..8 {
                    self.mv[$kl].next = self.mv[$kl].val().replace_bit(
                        i, self.valid[$kl].val().get_bit(i) & self.$shl[i].val().get_bit($kl));
                    self.st[$kl].next = self.st[$kl].val().replace_bit(
                        i, self.valid[$kl].val().get_bit(i) & !self.$shl[i].val().get_bit($kl));
                }
                self.moves[$kl].next = self.mv[$kl].val();
                self.stays[$kl].next = self.st[$kl].val();
            }
        }
    };
}

routing_update!((0, 1, 1, sh0, sh1), (1, 2, 2, sh1, sh2); (2, sh2));

/// The bubble-collapsing shifter: 8 words in, the kept ones in order from
/// slot 0 out, 0 past the last one, steered by [`SectorRouting::moves`].
///
/// Dropped input words must be 0 (ZVC drops exactly the zero words), so
/// they vanish without gating. Purely combinational: 3 levels of one
/// 2:1 mux (and a clear) per bit.
#[derive(SettleBlock, Default)]
pub struct SectorCompaction {
    _settle: crate::settle::Settle,
    pub words_in: [Signal<In, Bits<32>>; 8],
    pub moves: [Signal<In, Bits<8>>; 3],
    pub slots_out: [Signal<Out, Bits<32>>; 8],
    d0: [Signal<Local, Bits<32>>; 8],
    d1: [Signal<Local, Bits<32>>; 8],
    d2: [Signal<Local, Bits<32>>; 8],
    d3: [Signal<Local, Bits<32>>; 8],
}

macro_rules! sector_compaction_update {
    ($( ($k:tt, $d:tt, $cur:ident, $nxt:ident) ),*) => {
        impl Logic for SectorCompaction {
            #[hdl_gen]
            fn update(&mut self) {
                for t in 0..8 {
                    self.d0[t].next = self.words_in[t].val();
                }
                $(
                    for t in 0..8 {
                        self.$nxt[t].next = self.$cur[t].val();
                    }
                    // An element that moves away leaves a hole (0) behind ...
                    for t in 0..8 {
                        if self.moves[$k].val().get_bit(t) {
                            self.$nxt[t].next = 0.into();
                        }
                    }
                    // ... unless the element `2^k` slots above moves into it.
                    for t in 0..(8 - $d) {
                        if self.moves[$k].val().get_bit(t + $d) {
                            self.$nxt[t].next = self.$cur[t + $d].val();
                        }
                    }
                )*
                for t in 0..8 {
                    self.slots_out[t].next = self.d3[t].val();
                }
            }
        }
    };
}

sector_compaction_update!((0, 1, d0, d1), (1, 2, d1, d2), (2, 4, d2, d3));

/// The bubble-expanding shifter, the inverse of [`SectorCompaction`]: the
/// levels run from 2 down to 0 with the same routing, so compacted slot `j`
/// returns to the position of the `j`-th kept word.
///
/// `words_out[i]` is the word placed at `i` if `i` is kept, else 0, whatever
/// the input slots hold past the kept count (the next sector's words).
/// Purely combinational: 3 levels of an AND-OR of two words per bit.
#[derive(SettleBlock, Default)]
pub struct SectorExpansion {
    _settle: crate::settle::Settle,
    pub slots_in: [Signal<In, Bits<32>>; 8],
    pub moves: [Signal<In, Bits<8>>; 3],
    pub stays: [Signal<In, Bits<8>>; 3],
    pub words_out: [Signal<Out, Bits<32>>; 8],
    y3: [Signal<Local, Bits<32>>; 8],
    y2: [Signal<Local, Bits<32>>; 8],
    y1: [Signal<Local, Bits<32>>; 8],
    y0: [Signal<Local, Bits<32>>; 8],
}

macro_rules! sector_expansion_update {
    ($( ($k:tt, $d:tt, $cur:ident, $nxt:ident) ),*) => {
        impl Logic for SectorExpansion {
            #[hdl_gen]
            fn update(&mut self) {
                for t in 0..8 {
                    self.y3[t].next = self.slots_in[t].val();
                }
                $(
                    // Before level k a kept element sat at u if it stayed
                    // there, or if it moved from u to u - 2^k.
                    for u in 0..8 {
                        self.$nxt[u].next = 0.into();
                        if self.stays[$k].val().get_bit(u) {
                            self.$nxt[u].next = self.$cur[u].val();
                        }
                    }
                    for u in $d..8 {
                        if self.moves[$k].val().get_bit(u) {
                            self.$nxt[u].next = self.$cur[u - $d].val();
                        }
                    }
                )*
                for t in 0..8 {
                    self.words_out[t].next = self.y0[t].val();
                }
            }
        }
    };
}

sector_expansion_update!((2, 4, y3, y2), (1, 2, y2, y1), (0, 1, y1, y0));

#[cfg(test)]
mod tests {
    use super::*;

    fn settle<B: Block>(b: &mut B) {
        assert!(simulate(b, 100));
    }

    /// Every 8-bit mask with distinct non-zero words: the routing counts the
    /// kept words, compaction packs them in order and expansion puts them
    /// back (garbage past the kept count ignored).
    #[test]
    fn every_mask_compacts_and_expands_back() {
        let mut r = SectorRouting::default();
        let mut c = SectorCompaction::default();
        let mut x = SectorExpansion::default();
        r.connect_all();
        c.connect_all();
        x.connect_all();
        for mask in 0u32..256 {
            let words: [u32; 8] = std::array::from_fn(|i| if mask >> i & 1 == 1 { 0x100 + i as u32 } else { 0 });
            r.kept.next = (mask as u64).into();
            settle(&mut r);
            assert_eq!(r.kept_count.val().to_u32(), mask.count_ones(), "{mask:08b}");
            for (input, &w) in c.words_in.iter_mut().zip(&words) {
                input.next = (w as u64).into();
            }
            for k in 0..3 {
                c.moves[k].next = r.moves[k].val();
                x.moves[k].next = r.moves[k].val();
                x.stays[k].next = r.stays[k].val();
            }
            settle(&mut c);
            let packed: Vec<u32> = words.iter().copied().filter(|&w| w != 0).chain(std::iter::repeat(0)).take(8).collect();
            let got: Vec<u32> = (0..8).map(|t| c.slots_out[t].val().to_u32()).collect();
            assert_eq!(got, packed, "{mask:08b}");
            for (t, (slot, &p)) in x.slots_in.iter_mut().zip(&packed).enumerate() {
                let v = if t < mask.count_ones() as usize { p } else { 0xdead_0000 + t as u32 };
                slot.next = (v as u64).into();
            }
            settle(&mut x);
            let back: Vec<u32> = (0..8).map(|i| x.words_out[i].val().to_u32()).collect();
            assert_eq!(back, words, "{mask:08b}");
        }
    }
}
