//! cDMA's ZVC decompression engine: one 32-byte sector per cycle.

use crate::entry_bits::EntryBits;
use crate::register_slice::RegisterSlice;
use crate::sector_bits::SectorBits;
use crate::sector_compaction::{SectorExpansion, SectorRouting};
use crate::stages::Stages;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Latency of [`CdmaZvcDecompressor`] in clock cycles. [`Stages::Paper`]:
/// the first sector of a line accepted on edge `t` is on `out_*` after
/// edge `t + 1` and leaves on edge `t + 2` (the paper's "only two
/// additional cycles of latency"); sector `k` leaves on edge `t + 2 + k`.
/// [`Stages::EightLevels`] registers the line first: one cycle more. The
/// testbenches measure both.
pub const fn latency(stages: Stages) -> u64 {
    match stages {
        Stages::Paper => 2,
        Stages::EightLevels => 3,
    }
}

/// Cycles from a line's acceptance to the delivery of its last sector.
pub const fn line_latency(stages: Stages) -> u64 {
    latency(stages) + 3
}

/// Initiation interval in cycles per line: one sector out per cycle, 4
/// sectors per line (32 bytes per cycle).
pub const CYCLES_PER_LINE: u64 = 4;

/// What [`CdmaZvcDecompressor`] emits per cycle (one flat vector in
/// Verilog: `sector` in bits `[255:0]`, `last` at bit 256).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct DecompressedSector {
    /// Sector `k` of the line, `w[8k + m]` at `[32m +: 32]`.
    pub sector: SectorBits,
    /// The line's fourth sector.
    pub last: Bit,
}

/// cDMA's Zero-Value decompression engine (seed `003_*`, Sec. V-B,
/// Fig. 10(b)): takes one line's ZVC stream (the format
/// [`crate::cdma_zvc_compressor::CdmaZvcCompressor`] emits) and gives back
/// the line as four 32-byte sectors, one per cycle.
///
/// ```text
///            input register       line register                stage 1                                 stage 2               register slice
/// in_mask  ─▶ (EightLevels) ─┬─▶ mask segments to come,  ─▶ mask segment k ─▶ pop-count, prefix sum ─▶ s1 ─▶ bubble-expanding ─▶ ┌────────────┐
/// in_words ─▶               ─┤   words, sector k, base       words[base +: 8] (5-level shifter)        │    shifter (3 levels)   │ main │ skid│─▶ out_*
///                            └── sector 0 straight from the line (base 0) ────────────────────────────┘                         └────────────┘◀─ out_ready
/// ```
///
/// Ports (valid/ready streams; a transfer happens on a rising `clock` edge
/// with `valid && ready`):
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock` | 1 | in | rising-edge clock |
/// | `reset` | 1 | in | synchronous, active high; drops the line in progress and empties the pipeline |
/// | `in_valid`, `in_ready` | 1, 1 | in, out | input handshake, one line per transfer |
/// | `in_mask` | 32 | in | bit `i` set iff `w[i] != 0` (stream bits `[31:0]`) |
/// | `in_words` | 1024 | in | the non-zero words in index order, word `j` at `[32j +: 32]` (stream bits `[32 + 32j +: 32]`); words past `popcount(in_mask)` are ignored |
/// | `out_valid`, `out_ready` | 1, 1 | out, in | output handshake, one sector per transfer |
/// | `out_sector` | 256 | out | sector `k` of the line, `w[8k + m]` at `[32m +: 32]`; sectors 0, 1, 2, 3 in order |
/// | `out_last` | 1 | out | set on the line's fourth sector |
///
/// Every mask and every word vector is a valid input (the stream's length
/// is `32 + 32 popcount(in_mask)`; nothing else is read), so there is no
/// error output.
///
/// Timing: one sector per cycle (4 cycles per line, [`CYCLES_PER_LINE`]);
/// [`latency`] 2 cycles to the first sector and [`line_latency`] 5 to the
/// last ([`Stages::Paper`]), 3 and 6 ([`Stages::EightLevels`], where the
/// line waits in an input register first). A new line enters the line
/// register on the edge after the previous line's fourth sector enters
/// stage 1; with the input register, the next line waits there (taken on
/// the cycle after the one before it, when the engine is idle). `in_ready`
/// depends only on flip-flops; every output comes from a flip-flop.
///
/// Internals: sector 0's words are `in_words[0..8]`; the line register
/// keeps the line, the mask segments still to come (shifted down a
/// segment per sector, so segment `k` is always at bits `[7:0]`) and the
/// number of stream words the sectors before `k` used (`base`, the
/// running pop-count), and stage 1 takes sector `k`'s
/// window `words[base +: 8]` through a 5-level shifter. [`SectorRouting`]
/// turns the mask segment into the expanding shifter's mux selects and
/// its pop-count; [`SectorExpansion`] muxes each window word or a zero
/// into place.
#[derive(SettleBlock)]
pub struct CdmaZvcDecompressor {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_mask: Signal<In, Bits<32>>,
    pub in_words: Signal<In, EntryBits>,
    pub in_ready: Signal<Out, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_sector: Signal<Out, SectorBits>,
    pub out_last: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    // The input register (Stages::EightLevels) and the line it gives.
    registered: Constant<Bit>,
    s0_full: DFF<Bit>,
    s0_mask: DFF<Bits<32>>,
    s0_words: [DFF<Bits<32>>; 32],
    src_valid: Signal<Local, Bit>,
    src_mask: Signal<Local, Bits<32>>,
    take_ready: Signal<Local, Bit>,
    // The line register: sectors 1..3 of the line being expanded.
    line_full: DFF<Bit>,
    line_sector: DFF<Bits<2>>,
    line_base: DFF<Bits<6>>,
    line_mask: DFF<Bits<32>>,
    line_words: [DFF<Bits<32>>; 32],
    in_w: [Signal<Local, Bits<32>>; 32],
    take_line: Signal<Local, Bit>,
    next_sector: Signal<Local, Bit>,
    // Stage 1: the sector's window and mask segment, pop-count and selects.
    // The window shifter's levels (by 16, 8, 4, 2, 1 words), each as wide
    // as the levels after it read: 23, 15, 11, 9 and 8 slots.
    w1: [Signal<Local, Bits<32>>; 23],
    w2: [Signal<Local, Bits<32>>; 15],
    w3: [Signal<Local, Bits<32>>; 11],
    w4: [Signal<Local, Bits<32>>; 9],
    w5: [Signal<Local, Bits<32>>; 8],
    window: [Signal<Local, Bits<32>>; 8],
    segment: Signal<Local, Bits<8>>,
    routing: SectorRouting,
    s1_load: Signal<Local, Bit>,
    s1_valid: DFF<Bit>,
    s1_last: DFF<Bit>,
    s1_slots: [DFF<Bits<32>>; 8],
    s1_moves: [DFF<Bits<8>>; 3],
    s1_stays: [DFF<Bits<8>>; 3],
    // Stage 2: words or zeros into place.
    expansion: SectorExpansion,
    sector_out: Signal<Local, SectorBits>,
    result: Signal<Local, DecompressedSector>,
    slice: RegisterSlice<DecompressedSector>,
}

/// [`Stages::EightLevels`], the delivered configuration.
impl Default for CdmaZvcDecompressor {
    fn default() -> Self {
        Self::new(Stages::default())
    }
}

impl CdmaZvcDecompressor {
    /// The engine pipelined as `stages` says.
    pub fn new(stages: Stages) -> Self {
        CdmaZvcDecompressor {
            _settle: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_mask: Default::default(),
            in_words: Default::default(),
            in_ready: Default::default(),
            out_valid: Default::default(),
            out_sector: Default::default(),
            out_last: Default::default(),
            out_ready: Default::default(),
            registered: Constant::new(stages.registers_inputs()),
            s0_full: Default::default(),
            s0_mask: Default::default(),
            s0_words: Default::default(),
            src_valid: Default::default(),
            src_mask: Default::default(),
            take_ready: Default::default(),
            line_full: Default::default(),
            line_sector: Default::default(),
            line_base: Default::default(),
            line_mask: Default::default(),
            line_words: Default::default(),
            in_w: Default::default(),
            take_line: Default::default(),
            next_sector: Default::default(),
            w1: Default::default(),
            w2: Default::default(),
            w3: Default::default(),
            w4: Default::default(),
            w5: Default::default(),
            window: Default::default(),
            segment: Default::default(),
            routing: Default::default(),
            s1_load: Default::default(),
            s1_valid: Default::default(),
            s1_last: Default::default(),
            s1_slots: Default::default(),
            s1_moves: Default::default(),
            s1_stays: Default::default(),
            expansion: Default::default(),
            sector_out: Default::default(),
            result: Default::default(),
            slice: Default::default(),
        }
    }
}

// The window shifter's levels after the first, stamped out with literal
// base bits, distances and widths: a level moves every slot down by `2^b`
// when bit `b` of the base is set.
macro_rules! decompressor_update {
    ($( ($b:tt, $d:tt, $cur:ident, $nxt:ident, $n:tt) ),*) => {
        seq_macro::seq!(J in 0..32 {
        impl Logic for CdmaZvcDecompressor {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, s0_full, s0_mask, line_full, line_sector, line_base, line_mask, s1_valid, s1_last);
                for j in 0..32 {
                    self.s0_words[j].clock.next = self.clock.val();
                    self.s0_words[j].d.next = self.s0_words[j].q.val();
                    self.line_words[j].clock.next = self.clock.val();
                    self.line_words[j].d.next = self.line_words[j].q.val();
                }
                for i in 0..8 {
                    self.s1_slots[i].clock.next = self.clock.val();
                    self.s1_slots[i].d.next = self.s1_slots[i].q.val();
                }
                for k in 0..3 {
                    self.s1_moves[k].clock.next = self.clock.val();
                    self.s1_moves[k].d.next = self.s1_moves[k].q.val();
                    self.s1_stays[k].clock.next = self.clock.val();
                    self.s1_stays[k].d.next = self.s1_stays[k].q.val();
                }
                self.slice.clock.next = self.clock.val();
                self.slice.reset.next = self.reset.val();

                // Handshakes: stage 1 advances when empty or when the slice
                // (whose ready is a flip-flop) takes its sector; it takes
                // sectors 1..3 from the line register, and sector 0 of a
                // new line from the ports when the register is free.
                // The line comes from the ports, or (Stages::EightLevels)
                // from the input register, which reloads when empty or
                // when its line is taken.
                self.s1_load.next = !self.s1_valid.q.val() | self.slice.in_ready.val();
                self.take_ready.next = self.s1_load.val() & !self.line_full.q.val();
                self.src_valid.next = self.in_valid.val();
                self.src_mask.next = self.in_mask.val();
                #( self.in_w[J].next = self.in_words.val().w~J; )*
                self.in_ready.next = self.take_ready.val();
                if self.registered.val() {
                    self.src_valid.next = self.s0_full.q.val();
                    self.src_mask.next = self.s0_mask.q.val();
                    for j in 0..32 {
                        self.in_w[j].next = self.s0_words[j].q.val();
                    }
                    self.in_ready.next = !self.s0_full.q.val() | self.take_ready.val();
                    if self.in_ready.val() {
                        self.s0_full.d.next = self.in_valid.val();
                        self.s0_mask.d.next = self.in_mask.val();
                        #( self.s0_words[J].d.next = self.in_words.val().w~J; )*
                    }
                }
                self.take_line.next = self.take_ready.val() & self.src_valid.val();
                self.next_sector.next = self.s1_load.val() & self.line_full.q.val();

                // Stage 1: sector k's window, words[base +: 8] of the line
                // register (sector 0: the line's first 8 words), and its
                // mask segment.
                // base <= 24: the window ends at word 31 or before.
                for j in 0..23 {
                    self.w1[j].next = self.line_words[j].q.val();
                }
                if self.line_base.q.val().get_bit(4) {
                    for j in 0..16 {
                        self.w1[j].next = self.line_words[j + 16].q.val();
                    }
                    for j in 16..23 {
                        self.w1[j].next = 0.into();
                    }
                }
                $(
                    for j in 0..$n {
                        self.$nxt[j].next = self.$cur[j].val();
                    }
                    if self.line_base.q.val().get_bit($b) {
                        for j in 0..$n {
                            self.$nxt[j].next = self.$cur[j + $d].val();
                        }
                    }
                )*
                for i in 0..8 {
                    self.window[i].next = self.in_w[i].val();
                    if self.line_full.q.val() {
                        self.window[i].next = self.w5[i].val();
                    }
                }
                self.segment.next = self.src_mask.val().get_bits::<8>(0);
                if self.line_full.q.val() {
                    self.segment.next = self.line_mask.q.val().get_bits::<8>(0);
                }
                self.routing.kept.next = self.segment.val();

                if self.s1_load.val() {
                    self.s1_valid.d.next = self.line_full.q.val() | self.src_valid.val();
                    self.s1_last.d.next = self.line_full.q.val() & (self.line_sector.q.val() == 3);
                    for i in 0..8 {
                        self.s1_slots[i].d.next = self.window[i].val();
                    }
                    for k in 0..3 {
                        self.s1_moves[k].d.next = self.routing.moves[k].val();
                        self.s1_stays[k].d.next = self.routing.stays[k].val();
                    }
                }
                if self.take_line.val() {
                    self.line_full.d.next = true;
                    self.line_sector.d.next = 1.into();
                    self.line_base.d.next = bit_cast::<6, 4>(self.routing.kept_count.val());
                    self.line_mask.d.next = self.src_mask.val() >> 8;
                    for j in 0..32 {
                        self.line_words[j].d.next = self.in_w[j].val();
                    }
                }
                if self.next_sector.val() {
                    self.line_sector.d.next = self.line_sector.q.val() + 1;
                    self.line_base.d.next = self.line_base.q.val() + bit_cast::<6, 4>(self.routing.kept_count.val());
                    self.line_mask.d.next = self.line_mask.q.val() >> 8;
                    if self.line_sector.q.val() == 3 {
                        self.line_full.d.next = false;
                    }
                }
                if self.reset.val() {
                    self.s0_full.d.next = false;
                    self.line_full.d.next = false;
                    self.s1_valid.d.next = false;
                }

                // Stage 2: each window word or a zero into place.
                for i in 0..8 {
                    self.expansion.slots_in[i].next = self.s1_slots[i].q.val();
                }
                for k in 0..3 {
                    self.expansion.moves[k].next = self.s1_moves[k].q.val();
                    self.expansion.stays[k].next = self.s1_stays[k].q.val();
                }
                self.sector_out.next.w0 = self.expansion.words_out[0].val();
                self.sector_out.next.w1 = self.expansion.words_out[1].val();
                self.sector_out.next.w2 = self.expansion.words_out[2].val();
                self.sector_out.next.w3 = self.expansion.words_out[3].val();
                self.sector_out.next.w4 = self.expansion.words_out[4].val();
                self.sector_out.next.w5 = self.expansion.words_out[5].val();
                self.sector_out.next.w6 = self.expansion.words_out[6].val();
                self.sector_out.next.w7 = self.expansion.words_out[7].val();
                self.result.next.sector = self.sector_out.val();
                self.result.next.last = self.s1_last.q.val();

                self.slice.in_valid.next = self.s1_valid.q.val();
                self.slice.in_data.next = self.result.val();
                self.slice.out_ready.next = self.out_ready.val();
                self.out_valid.next = self.slice.out_valid.val();
                self.out_sector.next = self.slice.out_data.val().sector;
                self.out_last.next = self.slice.out_data.val().last;
            }
        }
        });
    };
}

decompressor_update!((3, 8, w1, w2, 15), (2, 4, w2, w3, 11), (1, 2, w3, w4, 9), (0, 1, w4, w5, 8));
