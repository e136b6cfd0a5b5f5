//! cDMA's ZVC compression engine: one 32-byte sector per cycle.

use crate::entry_bits::EntryBits;
use crate::sector_bits::SectorBits;
use crate::sector_compaction::{SectorCompaction, SectorRouting, SectorZeroMask};
use crate::stages::Stages;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Latency of [`CdmaZvcCompressor`] in clock cycles. [`Stages::Paper`]:
/// the compressed line whose first sector is accepted on edge `t` (and the
/// others on `t + 1`, `t + 2`, `t + 3`) is on `out_*` after edge `t + 5`
/// and leaves on edge `t + 6` (the paper's "six cycles, four 32B sectors
/// moving through a three-stage pipeline"). [`Stages::EightLevels`]
/// registers each sector (and its zero flags) first: one cycle more. The
/// testbenches measure both.
pub const fn latency(stages: Stages) -> u64 {
    last_sector_latency(stages) + 3
}

/// Cycles from the acceptance of a line's last sector to the line's
/// delivery: the three stages, and the input register of
/// [`Stages::EightLevels`].
pub const fn last_sector_latency(stages: Stages) -> u64 {
    match stages {
        Stages::Paper => 3,
        Stages::EightLevels => 4,
    }
}

/// Initiation interval in cycles per line: one sector per cycle, 4 sectors
/// per line (32 bytes per cycle).
pub const CYCLES_PER_LINE: u64 = 4;

/// cDMA's Zero-Value Compression engine (seed `003_*`, Sec. V-B,
/// Fig. 10(a)): takes a 128-byte line as four 32-byte sectors, one per
/// cycle, and emits its ZVC stream (`golden::zvc::LineStream`, bits as
/// formats.md §3) when the fourth sector leaves the pipeline.
///
/// ```text
///                           input register   stage 1                          stage 2                stage 3
/// in_sector ─▶ w!=0 ─▶ mask ─▶ (EightLevels) ─▶ prefix sum of zero flags ─▶ s1 ─▶ bubble-collapsing ─▶ s2 ─▶ shift by the buffer length ─▶ OR ─▶ buffer ─┐
///                       segment                 → mux selects (SectorRouting)      shifter (3 levels)        (5 levels), mask segment to 8k          (3 sectors)
///                                                                                                            4th sector: buffer | sector ─▶ out_* ◀─┘
/// in_valid/in_ready: s0, s1, s2 and out advance when empty or when their successor takes their value
/// ```
///
/// Ports (valid/ready streams; a transfer happens on a rising `clock` edge
/// with `valid && ready`):
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock` | 1 | in | rising-edge clock |
/// | `reset` | 1 | in | synchronous, active high; empties the pipeline and the line buffer |
/// | `in_valid`, `in_ready` | 1, 1 | in, out | input handshake, one sector per transfer |
/// | `in_sector` | 256 | in | sector `k` of the line: `w[8k + m]` at `[32m +: 32]` |
/// | `out_valid`, `out_ready` | 1, 1 | out, in | output handshake, one line per transfer |
/// | `out_mask` | 32 | out | bit `i` set iff `w[i] != 0` (stream bits `[31:0]`) |
/// | `out_words` | 1024 | out | the `n` non-zero words in index order, word `j` at `[32j +: 32]` (stream bits `[32 + 32j +: 32]`), 0 past `n` |
/// | `out_stream_bits` | 11 | out | stream length `32 + 32n` (32..1056) |
///
/// The stream is `{out_words, out_mask}` cut to `out_stream_bits` bits: the
/// line's stream of cDMA's offload windows and the stream
/// [`crate::zvc_compressor::ZvcCompressor`] stores when it fits 768 bits.
/// There is no size class and no raw fallback: an all-zero line is its
/// 32-bit mask, a line without zeros is 1056 bits.
///
/// Lines: sectors are taken in order, four per line; the first sector
/// after reset starts a line (there is no `last` input).
///
/// Timing: one sector per cycle (initiation interval 1 sector, 4 cycles
/// per line, [`CYCLES_PER_LINE`]); [`latency`] 6 cycles from the first
/// sector and [`last_sector_latency`] 3 from the last ([`Stages::Paper`]),
/// 7 and 4 ([`Stages::EightLevels`], where each sector and its zero flags
/// wait in an input register first). `in_ready`
/// depends only on flip-flops; every output comes from a flip-flop. A
/// finished line waits in the output register; the buffer meanwhile takes
/// the next line's first three sectors, and its fourth waits until the
/// output register is empty (taken on an earlier edge).
///
/// Internals: the 8 words are compared to zero (the mask segment,
/// [`SectorZeroMask`]) before the input register; stage 1 sums the zero flags (an 11-adder prefix) into
/// the shifter's mux selects ([`SectorRouting`]); stage 2 collapses the bubbles ([`SectorCompaction`]);
/// stage 3 shifts the compacted words up by the buffer length (0..24 words)
/// and ORs them into the buffer, whose words past the length are 0.
#[derive(SettleBlock)]
pub struct CdmaZvcCompressor {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_sector: Signal<In, SectorBits>,
    pub in_ready: Signal<Out, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_mask: Signal<Out, Bits<32>>,
    pub out_words: Signal<Out, EntryBits>,
    pub out_stream_bits: Signal<Out, Bits<11>>,
    pub out_ready: Signal<In, Bit>,
    // The input register (Stages::EightLevels): the sector and its zero
    // flags; and the sector stage 1 takes, from it or from the ports.
    registered: Constant<Bit>,
    zero_mask: SectorZeroMask,
    s0_full: DFF<Bit>,
    s0_words: [DFF<Bits<32>>; 8],
    s0_mask: DFF<Bits<8>>,
    src_valid: Signal<Local, Bit>,
    src_mask: Signal<Local, Bits<8>>,
    in_words: [Signal<Local, Bits<32>>; 8],
    // Stage 1: prefix sum.
    routing: SectorRouting,
    s1_load: Signal<Local, Bit>,
    s1_valid: DFF<Bit>,
    s1_words: [DFF<Bits<32>>; 8],
    s1_segment: DFF<Bits<8>>,
    s1_count: DFF<Bits<4>>,
    s1_moves: [DFF<Bits<8>>; 3],
    // Stage 2: bubble collapse.
    compaction: SectorCompaction,
    s2_load: Signal<Local, Bit>,
    s2_valid: DFF<Bit>,
    s2_words: [DFF<Bits<32>>; 8],
    s2_segment: DFF<Bits<8>>,
    s2_count: DFF<Bits<4>>,
    // Stage 3: shift and append into the line buffer.
    last: Signal<Local, Bit>,
    s2_leaves: Signal<Local, Bit>,
    buf_sector: DFF<Bits<2>>,
    buf_count: DFF<Bits<6>>,
    buf_mask: DFF<Bits<32>>,
    buf_words: [DFF<Bits<32>>; 32],
    sh0: [Signal<Local, Bits<32>>; 32],
    sh1: [Signal<Local, Bits<32>>; 32],
    sh2: [Signal<Local, Bits<32>>; 32],
    sh3: [Signal<Local, Bits<32>>; 32],
    sh4: [Signal<Local, Bits<32>>; 32],
    sh5: [Signal<Local, Bits<32>>; 32],
    segment_at: Signal<Local, Bits<32>>,
    line_mask: Signal<Local, Bits<32>>,
    line_count: Signal<Local, Bits<6>>,
    line_words: [Signal<Local, Bits<32>>; 32],
    line: Signal<Local, EntryBits>,
    // Output register.
    out_full: DFF<Bit>,
    out_mask_q: DFF<Bits<32>>,
    out_words_q: DFF<EntryBits>,
    out_bits_q: DFF<Bits<11>>,
}

/// [`Stages::EightLevels`], the delivered configuration.
impl Default for CdmaZvcCompressor {
    fn default() -> Self {
        Self::new(Stages::default())
    }
}

impl CdmaZvcCompressor {
    /// The engine pipelined as `stages` says.
    pub fn new(stages: Stages) -> Self {
        CdmaZvcCompressor {
            _settle: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_sector: Default::default(),
            in_ready: Default::default(),
            out_valid: Default::default(),
            out_mask: Default::default(),
            out_words: Default::default(),
            out_stream_bits: Default::default(),
            out_ready: Default::default(),
            registered: Constant::new(stages.registers_inputs()),
            zero_mask: Default::default(),
            s0_full: Default::default(),
            s0_words: Default::default(),
            s0_mask: Default::default(),
            src_valid: Default::default(),
            src_mask: Default::default(),
            in_words: Default::default(),
            routing: Default::default(),
            s1_load: Default::default(),
            s1_valid: Default::default(),
            s1_words: Default::default(),
            s1_segment: Default::default(),
            s1_count: Default::default(),
            s1_moves: Default::default(),
            compaction: Default::default(),
            s2_load: Default::default(),
            s2_valid: Default::default(),
            s2_words: Default::default(),
            s2_segment: Default::default(),
            s2_count: Default::default(),
            last: Default::default(),
            s2_leaves: Default::default(),
            buf_sector: Default::default(),
            buf_count: Default::default(),
            buf_mask: Default::default(),
            buf_words: Default::default(),
            sh0: Default::default(),
            sh1: Default::default(),
            sh2: Default::default(),
            sh3: Default::default(),
            sh4: Default::default(),
            sh5: Default::default(),
            segment_at: Default::default(),
            line_mask: Default::default(),
            line_count: Default::default(),
            line_words: Default::default(),
            line: Default::default(),
            out_full: Default::default(),
            out_mask_q: Default::default(),
            out_words_q: Default::default(),
            out_bits_q: Default::default(),
        }
    }
}

// The buffer shifter's five levels, stamped out with literal offset bits
// and distances (`#[hdl_gen]` cannot compute `1 << b`): a level moves every
// slot up by `2^b` when bit `b` of the buffer length is set.
macro_rules! compressor_update {
    ($( ($b:tt, $d:tt, $cur:ident, $nxt:ident) ),*) => {
        seq_macro::seq!(J in 0..32 {
        impl Logic for CdmaZvcCompressor {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, s0_full, s0_mask, s1_valid, s1_segment, s1_count, s2_valid, s2_segment, s2_count,
                    buf_sector, buf_count, buf_mask, out_full, out_mask_q, out_words_q, out_bits_q);
                for i in 0..8 {
                    self.s0_words[i].clock.next = self.clock.val();
                    self.s0_words[i].d.next = self.s0_words[i].q.val();
                    self.s1_words[i].clock.next = self.clock.val();
                    self.s1_words[i].d.next = self.s1_words[i].q.val();
                    self.s2_words[i].clock.next = self.clock.val();
                    self.s2_words[i].d.next = self.s2_words[i].q.val();
                }
                for k in 0..3 {
                    self.s1_moves[k].clock.next = self.clock.val();
                    self.s1_moves[k].d.next = self.s1_moves[k].q.val();
                }
                for j in 0..32 {
                    self.buf_words[j].clock.next = self.clock.val();
                    self.buf_words[j].d.next = self.buf_words[j].q.val();
                }

                // Handshakes: each stage advances when empty or when its
                // value moves on. Stage 3 (the buffer) takes every sector
                // but a line's fourth, which needs the output register
                // empty; all of it is flip-flops, so `in_ready` is too.
                self.last.next = self.buf_sector.q.val() == 3;
                self.s2_leaves.next = self.s2_valid.q.val() & (!self.last.val() | !self.out_full.q.val());
                self.s2_load.next = !self.s2_valid.q.val() | self.s2_leaves.val();
                self.s1_load.next = !self.s1_valid.q.val() | self.s2_load.val();

                // The 8 words compared to zero (the mask segment); stage 1
                // takes them from the ports, or (Stages::EightLevels) from
                // the input register, which reloads when empty or when
                // stage 1 takes its sector.
                self.zero_mask.words[0].next = self.in_sector.val().w0;
                self.zero_mask.words[1].next = self.in_sector.val().w1;
                self.zero_mask.words[2].next = self.in_sector.val().w2;
                self.zero_mask.words[3].next = self.in_sector.val().w3;
                self.zero_mask.words[4].next = self.in_sector.val().w4;
                self.zero_mask.words[5].next = self.in_sector.val().w5;
                self.zero_mask.words[6].next = self.in_sector.val().w6;
                self.zero_mask.words[7].next = self.in_sector.val().w7;
                self.in_words[0].next = self.in_sector.val().w0;
                self.in_words[1].next = self.in_sector.val().w1;
                self.in_words[2].next = self.in_sector.val().w2;
                self.in_words[3].next = self.in_sector.val().w3;
                self.in_words[4].next = self.in_sector.val().w4;
                self.in_words[5].next = self.in_sector.val().w5;
                self.in_words[6].next = self.in_sector.val().w6;
                self.in_words[7].next = self.in_sector.val().w7;
                self.src_valid.next = self.in_valid.val();
                self.src_mask.next = self.zero_mask.mask.val();
                self.in_ready.next = self.s1_load.val();
                if self.registered.val() {
                    self.in_ready.next = !self.s0_full.q.val() | self.s1_load.val();
                    if self.in_ready.val() {
                        self.s0_full.d.next = self.in_valid.val();
                        self.s0_mask.d.next = self.zero_mask.mask.val();
                        self.s0_words[0].d.next = self.in_sector.val().w0;
                        self.s0_words[1].d.next = self.in_sector.val().w1;
                        self.s0_words[2].d.next = self.in_sector.val().w2;
                        self.s0_words[3].d.next = self.in_sector.val().w3;
                        self.s0_words[4].d.next = self.in_sector.val().w4;
                        self.s0_words[5].d.next = self.in_sector.val().w5;
                        self.s0_words[6].d.next = self.in_sector.val().w6;
                        self.s0_words[7].d.next = self.in_sector.val().w7;
                    }
                    self.src_valid.next = self.s0_full.q.val();
                    self.src_mask.next = self.s0_mask.q.val();
                    for i in 0..8 {
                        self.in_words[i].next = self.s0_words[i].q.val();
                    }
                }

                // Stage 1: the prefix sum of the zero flags, decoded into
                // the shifter's mux selects.
                self.routing.kept.next = self.src_mask.val();
                if self.s1_load.val() {
                    self.s1_valid.d.next = self.src_valid.val();
                    for i in 0..8 {
                        self.s1_words[i].d.next = self.in_words[i].val();
                    }
                    self.s1_segment.d.next = self.src_mask.val();
                    self.s1_count.d.next = self.routing.kept_count.val();
                    for k in 0..3 {
                        self.s1_moves[k].d.next = self.routing.moves[k].val();
                    }
                }

                // Stage 2: the non-zero words collapse to slots 0..n.
                for i in 0..8 {
                    self.compaction.words_in[i].next = self.s1_words[i].q.val();
                }
                for k in 0..3 {
                    self.compaction.moves[k].next = self.s1_moves[k].q.val();
                }
                if self.s2_load.val() {
                    self.s2_valid.d.next = self.s1_valid.q.val();
                    for i in 0..8 {
                        self.s2_words[i].d.next = self.compaction.slots_out[i].val();
                    }
                    self.s2_segment.d.next = self.s1_segment.q.val();
                    self.s2_count.d.next = self.s1_count.q.val();
                }

                // Stage 3: the compacted words move up to the buffer length
                // and are ORed in (the buffer is 0 from its length on); the
                // mask segment goes to bits 8k..8k+8.
                for j in 0..32 {
                    self.sh0[j].next = 0.into();
                }
                for j in 0..8 {
                    self.sh0[j].next = self.s2_words[j].q.val();
                }
                $(
                    for j in 0..32 {
                        self.$nxt[j].next = self.$cur[j].val();
                    }
                    if self.buf_count.q.val().get_bit($b) {
                        for j in 0..$d {
                            self.$nxt[j].next = 0.into();
                        }
                        for j in $d..32 {
                            self.$nxt[j].next = self.$cur[j - $d].val();
                        }
                    }
                )*
                for j in 0..32 {
                    self.line_words[j].next = self.buf_words[j].q.val() | self.sh5[j].val();
                }
                self.segment_at.next = bit_cast::<32, 8>(self.s2_segment.q.val());
                if self.buf_sector.q.val() == 1 {
                    self.segment_at.next = bit_cast::<32, 8>(self.s2_segment.q.val()) << 8;
                }
                if self.buf_sector.q.val() == 2 {
                    self.segment_at.next = bit_cast::<32, 8>(self.s2_segment.q.val()) << 16;
                }
                if self.buf_sector.q.val() == 3 {
                    self.segment_at.next = bit_cast::<32, 8>(self.s2_segment.q.val()) << 24;
                }
                self.line_mask.next = self.buf_mask.q.val() | self.segment_at.val();
                self.line_count.next = self.buf_count.q.val() + bit_cast::<6, 4>(self.s2_count.q.val());
                #( self.line.next.w~J = self.line_words[J].val(); )*

                if self.s2_leaves.val() {
                    if self.last.val() {
                        // The fourth sector: the line goes to the output
                        // register and the buffer starts the next line.
                        self.out_full.d.next = true;
                        self.out_mask_q.d.next = self.line_mask.val();
                        self.out_words_q.d.next = self.line.val();
                        // 32 + 32 n = 32 (n + 1); widen n before adding.
                        self.out_bits_q.d.next = (bit_cast::<11, 6>(self.line_count.val()) + bits::<11>(1)) << 5;
                        self.buf_sector.d.next = 0.into();
                        self.buf_count.d.next = 0.into();
                        self.buf_mask.d.next = 0.into();
                        for j in 0..32 {
                            self.buf_words[j].d.next = 0.into();
                        }
                    } else {
                        self.buf_sector.d.next = self.buf_sector.q.val() + 1;
                        self.buf_count.d.next = self.line_count.val();
                        self.buf_mask.d.next = self.line_mask.val();
                        for j in 0..32 {
                            self.buf_words[j].d.next = self.line_words[j].val();
                        }
                    }
                }
                if self.out_full.q.val() & self.out_ready.val() {
                    self.out_full.d.next = false;
                }
                if self.reset.val() {
                    self.s0_full.d.next = false;
                    self.s1_valid.d.next = false;
                    self.s2_valid.d.next = false;
                    self.out_full.d.next = false;
                    self.buf_sector.d.next = 0.into();
                    self.buf_count.d.next = 0.into();
                    self.buf_mask.d.next = 0.into();
                    for j in 0..32 {
                        self.buf_words[j].d.next = 0.into();
                    }
                }

                self.out_valid.next = self.out_full.q.val();
                self.out_mask.next = self.out_mask_q.q.val();
                self.out_words.next = self.out_words_q.q.val();
                self.out_stream_bits.next = self.out_bits_q.q.val();
            }
        }
        });
    };
}

compressor_update!((0, 1, sh0, sh1), (1, 2, sh1, sh2), (2, 4, sh2, sh3), (3, 8, sh3, sh4), (4, 16, sh4, sh5));
