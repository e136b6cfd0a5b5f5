//! Bit-Plane Compression decompressor: one 128-byte memory-entry per cycle
//! (docs/formats.md#bpc-decoding; Kim et al. ISCA 2016; the Buddy Compression
//! paper's algorithm, Sec. IV-A, which assumes 11 cycles for it).

use crate::bpc_parse_stage::{BpcParseStage, ParseState};
use crate::bpc_rebuild::BpcRebuild;
use crate::decompressed_entry::DecompressedEntry;
use crate::entry_bits::EntryBits;
use crate::register_slice::RegisterSlice;
use rust_hdl::prelude::*;

/// Latency of [`BpcDecompressor`] in clock cycles: a stream accepted on edge `t` is on `out_*` after edge `t + 7`;
/// the initiation interval is 1. The testbenches measure it; the memory
/// system's hardware timing reads it (`buddy_hdl::timing`).
pub const LATENCY: u64 = 7;

/// BPC decompressor: one stored entry per cycle, exactly as the golden
/// `buddy_golden::bpc::decode` (docs/formats.md#bpc-decoding) behind the size classes of
/// docs/formats.md#size-classes.
///
/// ```text
/// in_class ──▶ p1: class, base, ──▶ s1 ─▶ p2: 6 planes ─▶ s2 ─▶ ... ─▶ p6: 3 planes ─▶ s6 ─▶ rebuild: transpose, ─▶ slice ─▶ out_*
/// in_payload   6 plane symbols                                                             prefix sum, class   (main|skid)
/// in_ready ◀── !s1_valid | s2 moves ◀── ... ◀── !s6_valid | slice ready (a flip-flop)
/// ```
///
/// | stage | block | logic |
/// |---|---|---|
/// | 1 | [`BpcParseStage<1>`] | class code (ZERO, RAW, reserved, or B8..B96 and its bit count), the base-word symbol, plane symbols for planes 32.. (six) |
/// | 2..6 | [`BpcParseStage<2>`] .. [`BpcParseStage<6>`] | six plane symbols each: kind, length, `DBP = DBX XOR prev`, error checks, plane writes, stream shift |
/// | 7 | [`BpcRebuild`] and the class | transpose of the planes into the deltas, Kogge-Stone prefix sum from the base; RAW passes the payload, ZERO and errors give 0 |
///
/// A stage holds the [`ParseState`]: the unread stream (shrinking from 768
/// to 0 bits, see [`crate::bpc_parse_stage`]), the planes decoded so far,
/// the base, the bits and planes left, the class and the error flag.
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock` | 1 | in | rising-edge clock |
/// | `reset` | 1 | in | synchronous, active high; empties the pipeline |
/// | `in_valid`, `in_ready` | 1, 1 | in, out | input handshake |
/// | `in_class` | 4 | in | the entry's 4-bit size metadata |
/// | `in_payload` | 1024 | in | stored bytes as vector `C` (bits past the class size are ignored) |
/// | `out_valid`, `out_ready` | 1, 1 | out, in | output handshake |
/// | `out_entry` | 1024 | out | the entry, `w[i]` at `[32i +: 32]`; 0 on error |
/// | `out_error` | 1 | out | malformed input: a reserved class code 8..15, or one of the mandatory errors of docs/formats.md#bpc-decoding — the stream runs past the class's bytes, a zero run longer than the planes left, a TWO1 position above 29, a ONE1 position above 30 |
///
/// Timing: initiation interval 1; latency 7 cycles (accepted on edge `t`,
/// `out_valid` after edge `t + 7`), against the 11 the Buddy paper assumes.
/// `in_ready` depends only on flip-flops; every output comes from a
/// flip-flop.
#[derive(LogicBlock)]
pub struct BpcDecompressor {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_class: Signal<In, Bits<4>>,
    pub in_payload: Signal<In, EntryBits>,
    pub in_ready: Signal<Out, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_entry: Signal<Out, EntryBits>,
    pub out_error: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    zero_entry: Constant<EntryBits>,
    p1: BpcParseStage<1>,
    p2: BpcParseStage<2>,
    p3: BpcParseStage<3>,
    p4: BpcParseStage<4>,
    p5: BpcParseStage<5>,
    p6: BpcParseStage<6>,
    s_valid: [DFF<Bit>; 6],
    s_state: [DFF<ParseState>; 6],
    load: [Signal<Local, Bit>; 6],
    rebuild: BpcRebuild,
    entry: Signal<Local, EntryBits>,
    result: Signal<Local, DecompressedEntry>,
    slice: RegisterSlice<DecompressedEntry>,
}

impl Default for BpcDecompressor {
    fn default() -> Self {
        BpcDecompressor {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_class: Default::default(),
            in_payload: Default::default(),
            in_ready: Default::default(),
            out_valid: Default::default(),
            out_entry: Default::default(),
            out_error: Default::default(),
            out_ready: Default::default(),
            zero_entry: Constant::new(EntryBits::default()),
            p1: Default::default(),
            p2: Default::default(),
            p3: Default::default(),
            p4: Default::default(),
            p5: Default::default(),
            p6: Default::default(),
            s_valid: Default::default(),
            s_state: Default::default(),
            load: Default::default(),
            rebuild: Default::default(),
            entry: Default::default(),
            result: Default::default(),
            slice: Default::default(),
        }
    }
}

impl Logic for BpcDecompressor {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..6 {
            self.s_valid[k].clock.next = self.clock.val();
            self.s_valid[k].d.next = self.s_valid[k].q.val();
            self.s_state[k].clock.next = self.clock.val();
            self.s_state[k].d.next = self.s_state[k].q.val();
        }
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();

        // A stage moves when it is empty or the next one takes its entry; the
        // chain starts at the slice's ready, a flip-flop.
        self.load[5].next = !self.s_valid[5].q.val() | self.slice.in_ready.val();
        self.load[4].next = !self.s_valid[4].q.val() | self.load[5].val();
        self.load[3].next = !self.s_valid[3].q.val() | self.load[4].val();
        self.load[2].next = !self.s_valid[2].q.val() | self.load[3].val();
        self.load[1].next = !self.s_valid[1].q.val() | self.load[2].val();
        self.load[0].next = !self.s_valid[0].q.val() | self.load[1].val();
        self.in_ready.next = self.load[0].val();

        // Stage 1 reads the stored payload as the unread stream and the class.
        self.p1.state_in.next.window = self.in_payload.val();
        self.p1.state_in.next.planes = self.zero_entry.val();
        self.p1.state_in.next.prev = 0.into();
        self.p1.state_in.next.base = 0.into();
        self.p1.state_in.next.bits_left = 0.into();
        self.p1.state_in.next.planes_left = 0.into();
        self.p1.state_in.next.class = self.in_class.val();
        self.p1.state_in.next.error = false;
        self.p2.state_in.next = self.s_state[0].q.val();
        self.p3.state_in.next = self.s_state[1].q.val();
        self.p4.state_in.next = self.s_state[2].q.val();
        self.p5.state_in.next = self.s_state[3].q.val();
        self.p6.state_in.next = self.s_state[4].q.val();
        if self.load[0].val() {
            self.s_valid[0].d.next = self.in_valid.val();
            self.s_state[0].d.next = self.p1.state_out.val();
        }
        if self.load[1].val() {
            self.s_valid[1].d.next = self.s_valid[0].q.val();
            self.s_state[1].d.next = self.p2.state_out.val();
        }
        if self.load[2].val() {
            self.s_valid[2].d.next = self.s_valid[1].q.val();
            self.s_state[2].d.next = self.p3.state_out.val();
        }
        if self.load[3].val() {
            self.s_valid[3].d.next = self.s_valid[2].q.val();
            self.s_state[3].d.next = self.p4.state_out.val();
        }
        if self.load[4].val() {
            self.s_valid[4].d.next = self.s_valid[3].q.val();
            self.s_state[4].d.next = self.p5.state_out.val();
        }
        if self.load[5].val() {
            self.s_valid[5].d.next = self.s_valid[4].q.val();
            self.s_state[5].d.next = self.p6.state_out.val();
        }

        // Stage 7: the words, and the classes that need no parse.
        self.rebuild.planes.next = self.s_state[5].q.val().planes;
        self.rebuild.base.next = self.s_state[5].q.val().base;
        self.entry.next = self.rebuild.entry.val();
        if self.s_state[5].q.val().class == 7 {
            self.entry.next = self.s_state[5].q.val().planes;
        }
        if (self.s_state[5].q.val().class == 0) | self.s_state[5].q.val().error {
            self.entry.next = self.zero_entry.val();
        }
        self.result.next.entry = self.entry.val();
        self.result.next.error = self.s_state[5].q.val().error;

        if self.reset.val() {
            for k in 0..6 {
                self.s_valid[k].d.next = false;
            }
        }
        self.slice.in_valid.next = self.s_valid[5].q.val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_entry.next = self.slice.out_data.val().entry;
        self.out_error.next = self.slice.out_data.val().error;
    }
}
