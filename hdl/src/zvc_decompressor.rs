//! ZVC decompressor: one 128-byte memory-entry per cycle.

use crate::compaction::{ExpansionNetwork, Routing, ShiftCount};
use crate::decompressed_entry::DecompressedEntry;
use crate::entry_bits::EntryBits;
use crate::register_slice::RegisterSlice;
use crate::stages::Stages;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Latency of [`ZvcDecompressor`] built `stages`, clock cycles: a stream
/// accepted on edge `t` is on `out_*` after edge `t + latency`; the
/// initiation interval is 1. 2 ([`Stages::Paper`]) or 4
/// ([`Stages::EightLevels`]). The testbenches measure it; the memory
/// system's hardware timing reads it (`buddy_hdl::timing`).
pub const fn latency(stages: Stages) -> u64 {
    match stages {
        Stages::Paper => 2,
        Stages::EightLevels => 4,
    }
}

/// Zero-Value decompression of one 128-byte memory-entry per cycle
/// (cDMA, seed `003_*`, Sec. V-A; bits as docs/formats.md#zvc).
///
/// ```text
///              stage 1       [stage 2]            [stage 3]      (EightLevels)    register slice
/// in_payload ─▶ s1_payload ─ mask=w0 ─▶ ShiftCount ─▶ [s2] ─▶ Routing ─▶ [s3] ─┐   ┌──────────────┐
/// in_class   ─▶ s1_class ──────────────────────────▶ [s2] ─▶ error ───▶ [s3] ─┼─▶ │ main │ skid  │─▶ out_*
/// in_valid   ─▶ s1_valid                                                      │   └──────────────┘◀─ out_ready
/// in_ready   ◀─ stage 1 loads      payload ─▶ [s2] ─▶ [s3] ─▶ ExpansionNetwork ─┘
/// ```
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
/// | `out_error` | 1 | out | malformed input (a reserved class code 8..15, or a mask with more non-zero words than the class stores, docs/formats.md#size-classes, docs/formats.md#zvc) |
///
/// Timing: initiation interval 1; latency [`latency`] cycles, 2 built
/// [`Stages::Paper`] and 4 built [`Stages::EightLevels`]. `in_ready`
/// depends only on flip-flops; every output comes from a flip-flop.
///
/// [`Stages::EightLevels`] takes the mask (`w0` of a compressed class,
/// else 0) and the raw flag into stage 1 with the payload, registers each
/// word's shift after [`ShiftCount`] (stage 2) and the network's controls
/// after [`Routing`] (stage 3); the error check runs beside the routing.
///
/// Classes: ZERO outputs zeros, RAW passes the payload through (routed in
/// raw mode through the same network), B8..B96 expand `mask = C[31:0]` with
/// the words at `C[32 +: 32 n]`.
#[derive(SettleBlock)]
pub struct ZvcDecompressor {
    _settle: crate::settle::Settle,
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
    // Stages::EightLevels: mask and raw flag taken with the payload, stages 2 and 3 built.
    staged: Constant<Bit>,
    /// Stages 1 to 3 all hold an entry ([`Stages::EightLevels`]): a
    /// flip-flop loaded with the AND of their next valid flags, so that
    /// `in_ready` is one gate of two flip-flops, not a chain through the
    /// stages' loads (which the pipelined slice's ready path ran through).
    stages_full: DFF<Bit>,
    s1_valid: DFF<Bit>,
    s1_class: DFF<Bits<4>>,
    s1_payload: DFF<EntryBits>,
    s1_mask: DFF<Bits<32>>,
    s1_raw: DFF<Bit>,
    s1_load: Signal<Local, Bit>,
    in_mask: Signal<Local, Bits<32>>,
    mask: Signal<Local, Bits<32>>,
    raw: Signal<Local, Bit>,
    s2_valid: DFF<Bit>,
    s2_class: DFF<Bits<4>>,
    s2_payload: DFF<EntryBits>,
    s2_kept: DFF<Bits<32>>,
    s2_shifts: [DFF<Bits<5>>; 32],
    s2_zero_count: DFF<Bits<6>>,
    s2_load: Signal<Local, Bit>,
    stage_class: Signal<Local, Bits<4>>,
    zero_count: Signal<Local, Bits<6>>,
    kept: Signal<Local, Bits<32>>,
    shifts: [Signal<Local, Bits<5>>; 32],
    error: Signal<Local, Bit>,
    s3_valid: DFF<Bit>,
    s3_payload: DFF<EntryBits>,
    s3_error: DFF<Bit>,
    s3_moves: [DFF<Bits<32>>; 5],
    s3_stays: [DFF<Bits<32>>; 5],
    s3_load: Signal<Local, Bit>,
    last_valid: Signal<Local, Bit>,
    last_error: Signal<Local, Bit>,
    payload: Signal<Local, EntryBits>,
    entry_words: Signal<Local, EntryBits>,
    result: Signal<Local, DecompressedEntry>,
    count: ShiftCount,
    routing: Routing,
    network: ExpansionNetwork,
    slice: RegisterSlice<DecompressedEntry>,
}

/// [`Stages::DELIVERED`].
impl Default for ZvcDecompressor {
    fn default() -> Self {
        Self::new(Stages::DELIVERED)
    }
}

impl ZvcDecompressor {
    /// The decompressor pipelined as `stages` says ([`latency`]).
    pub fn new(stages: Stages) -> Self {
        ZvcDecompressor {
            _settle: Default::default(),
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
            staged: Constant::new(stages.registers_inputs()),
            stages_full: Default::default(),
            s1_valid: Default::default(),
            s1_class: Default::default(),
            s1_payload: Default::default(),
            s1_mask: Default::default(),
            s1_raw: Default::default(),
            s1_load: Default::default(),
            in_mask: Default::default(),
            mask: Default::default(),
            raw: Default::default(),
            s2_valid: Default::default(),
            s2_class: Default::default(),
            s2_payload: Default::default(),
            s2_kept: Default::default(),
            s2_shifts: Default::default(),
            s2_zero_count: Default::default(),
            s2_load: Default::default(),
            stage_class: Default::default(),
            zero_count: Default::default(),
            kept: Default::default(),
            shifts: Default::default(),
            error: Default::default(),
            s3_valid: Default::default(),
            s3_payload: Default::default(),
            s3_error: Default::default(),
            s3_moves: Default::default(),
            s3_stays: Default::default(),
            s3_load: Default::default(),
            last_valid: Default::default(),
            last_error: Default::default(),
            payload: Default::default(),
            entry_words: Default::default(),
            result: Default::default(),
            count: Default::default(),
            routing: Default::default(),
            network: Default::default(),
            slice: Default::default(),
        }
    }
}

seq_macro::seq!(J in 0..32 {
impl Logic for ZvcDecompressor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, stages_full, s1_valid, s1_class, s1_payload, s1_mask, s1_raw, s2_valid, s2_class, s2_payload, s2_kept,
            s2_zero_count, s3_valid, s3_payload, s3_error);
        for i in 0..32 {
            self.s2_shifts[i].clock.next = self.clock.val();
            self.s2_shifts[i].d.next = self.s2_shifts[i].q.val();
        }
        for k in 0..5 {
            self.s3_moves[k].clock.next = self.clock.val();
            self.s3_moves[k].d.next = self.s3_moves[k].q.val();
            self.s3_stays[k].clock.next = self.clock.val();
            self.s3_stays[k].d.next = self.s3_stays[k].q.val();
        }
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();

        // Each stage advances when empty or when its value moves on; the
        // slice's `in_ready` is a flip-flop, so `in_ready` is one too.
        self.s3_load.next = !self.s3_valid.q.val() | self.slice.in_ready.val();
        self.s2_load.next = !self.s2_valid.q.val() | self.s3_load.val();
        self.last_valid.next = self.s1_valid.q.val();
        self.s1_load.next = !self.s1_valid.q.val() | self.slice.in_ready.val();
        if self.staged.val() {
            self.last_valid.next = self.s3_valid.q.val();
            self.s1_load.next = !self.s1_valid.q.val() | self.s2_load.val();
        }
        // The same function as `s1_load`: staged, `!(s1 & s2 & s3) | slice
        // ready`, with the AND registered (`stages_full`).
        self.in_ready.next = !self.s1_valid.q.val() | self.slice.in_ready.val();
        if self.staged.val() {
            self.in_ready.next = !self.stages_full.q.val() | self.slice.in_ready.val();
        }

        // A compressed class (B8..B96) expands the mask in `w0`; RAW routes
        // every word in place; ZERO and the reserved codes keep nothing.
        self.in_mask.next = 0.into();
        if (self.in_class.val() >= 1) & (self.in_class.val() <= 6) {
            self.in_mask.next = self.in_payload.val().w0;
        }
        if self.s1_load.val() {
            self.s1_valid.d.next = self.in_valid.val();
            self.s1_class.d.next = self.in_class.val();
            self.s1_payload.d.next = self.in_payload.val();
            self.s1_mask.d.next = self.in_mask.val();
            self.s1_raw.d.next = self.in_class.val() == 7;
        }
        if self.reset.val() {
            self.s1_valid.d.next = false;
        }
        self.mask.next = self.s1_mask.q.val();
        self.raw.next = self.s1_raw.q.val();
        if !self.staged.val() {
            self.mask.next = 0.into();
            if (self.s1_class.q.val() >= 1) & (self.s1_class.q.val() <= 6) {
                self.mask.next = self.s1_payload.q.val().w0;
            }
            self.raw.next = self.s1_class.q.val() == 7;
        }
        self.count.valid_words.next = self.mask.val();
        self.count.raw.next = self.raw.val();
        self.count.raw_when_dense.next = false;

        if self.s2_load.val() {
            self.s2_valid.d.next = self.s1_valid.q.val();
            self.s2_class.d.next = self.s1_class.q.val();
            self.s2_payload.d.next = self.s1_payload.q.val();
            self.s2_kept.d.next = self.count.valid.val();
            self.s2_zero_count.d.next = self.count.zero_count.val();
            for i in 0..32 {
                self.s2_shifts[i].d.next = self.count.shifts[i].val();
            }
        }
        if self.reset.val() {
            self.s2_valid.d.next = false;
        }
        if self.staged.val() {
            self.stage_class.next = self.s2_class.q.val();
            self.zero_count.next = self.s2_zero_count.q.val();
            self.kept.next = self.s2_kept.q.val();
            for i in 0..32 {
                self.shifts[i].next = self.s2_shifts[i].q.val();
            }
        } else {
            self.stage_class.next = self.s1_class.q.val();
            self.zero_count.next = self.count.zero_count.val();
            self.kept.next = self.count.valid.val();
            for i in 0..32 {
                self.shifts[i].next = self.count.shifts[i].val();
            }
        }
        self.routing.valid.next = self.kept.val();
        for i in 0..32 {
            self.routing.shifts[i].next = self.shifts[i].val();
        }

        // More non-zero words than the class holds (n > capacity, with
        // n = 32 - zero_count): B8 1, B16 3, B32 7, B64 15, B80 19, B96 23.
        self.error.next = self.stage_class.val() >= 8;
        if (self.stage_class.val() == 1) & (self.zero_count.val() < 31) {
            self.error.next = true;
        }
        if (self.stage_class.val() == 2) & (self.zero_count.val() < 29) {
            self.error.next = true;
        }
        if (self.stage_class.val() == 3) & (self.zero_count.val() < 25) {
            self.error.next = true;
        }
        if (self.stage_class.val() == 4) & (self.zero_count.val() < 17) {
            self.error.next = true;
        }
        if (self.stage_class.val() == 5) & (self.zero_count.val() < 13) {
            self.error.next = true;
        }
        if (self.stage_class.val() == 6) & (self.zero_count.val() < 9) {
            self.error.next = true;
        }

        if self.s3_load.val() {
            self.s3_valid.d.next = self.s2_valid.q.val();
            self.s3_payload.d.next = self.s2_payload.q.val();
            self.s3_error.d.next = self.error.val();
            for k in 0..5 {
                self.s3_moves[k].d.next = self.routing.moves[k].val();
                self.s3_stays[k].d.next = self.routing.stays[k].val();
            }
        }
        if self.reset.val() {
            self.s3_valid.d.next = false;
        }
        // Every stage's next valid flag is final here.
        self.stages_full.d.next = self.s1_valid.d.val() & self.s2_valid.d.val() & self.s3_valid.d.val();
        if self.staged.val() {
            self.payload.next = self.s3_payload.q.val();
            self.last_error.next = self.s3_error.q.val();
            for k in 0..5 {
                self.network.moves[k].next = self.s3_moves[k].q.val();
                self.network.stays[k].next = self.s3_stays[k].q.val();
            }
        } else {
            self.payload.next = self.s1_payload.q.val();
            self.last_error.next = self.error.val();
            for k in 0..5 {
                self.network.moves[k].next = self.routing.moves[k].val();
                self.network.stays[k].next = self.routing.stays[k].val();
            }
        }
        #( self.network.slots_in[J].next = self.payload.val().w~J; )*

        #( self.entry_words.next.w~J = self.network.words_out[J].val(); )*
        if self.last_error.val() {
            #( self.entry_words.next.w~J = 0.into(); )*
        }
        self.result.next.entry = self.entry_words.val();
        self.result.next.error = self.last_error.val();

        self.slice.in_valid.next = self.last_valid.val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_entry.next = self.slice.out_data.val().entry;
        self.out_error.next = self.slice.out_data.val().error;
    }
}
});
