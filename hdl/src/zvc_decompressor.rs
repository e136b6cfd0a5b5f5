//! ZVC decompressor: one 128-byte memory-entry per cycle.

use crate::compaction::{CompactionControl, ExpansionNetwork};
use crate::decompressed_entry::DecompressedEntry;
use crate::entry_bits::EntryBits;
use crate::register_slice::RegisterSlice;
use rust_hdl::prelude::*;

/// Latency of [`ZvcDecompressor`] in clock cycles: a stream accepted on edge `t` is on `out_*` after edge `t + 2`;
/// the initiation interval is 1. The testbenches measure it; the memory
/// system's hardware timing reads it (`buddy_hdl::timing`).
pub const LATENCY: u64 = 2;

/// Zero-Value decompression of one 128-byte memory-entry per cycle
/// (cDMA, seed `003_*`, Sec. V-A; bits as docs/formats.md#zvc).
///
/// ```text
///              stage 1 (register)         expansion logic            register slice
/// in_payload ─▶ s1_payload ─ mask=w0 ─▶ CompactionControl ─┐      ┌───────────────┐
/// in_class   ─▶ s1_class ── decode ───▶ (raw, error) ──────┼────▶ │ main  │ skid  │─▶ out_*
/// in_valid   ─▶ s1_valid                                    │      └───────────────┘◀─ out_ready
/// in_ready   ◀─ !s1_valid | ready   payload ─▶ ExpansionNetwork ─┘
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
/// Timing: initiation interval 1; latency 2 cycles. `in_ready` depends only
/// on flip-flops; every output comes from a flip-flop.
///
/// Classes: ZERO outputs zeros, RAW passes the payload through (routed in
/// raw mode through the same network), B8..B96 expand `mask = C[31:0]` with
/// the words at `C[32 +: 32 n]`.
#[derive(LogicBlock, Default)]
pub struct ZvcDecompressor {
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
    s1_valid: DFF<Bit>,
    s1_class: DFF<Bits<4>>,
    s1_payload: DFF<EntryBits>,
    s1_load: Signal<Local, Bit>,
    compressed_class: Signal<Local, Bit>,
    raw: Signal<Local, Bit>,
    mask: Signal<Local, Bits<32>>,
    error: Signal<Local, Bit>,
    entry_words: Signal<Local, EntryBits>,
    result: Signal<Local, DecompressedEntry>,
    control: CompactionControl,
    network: ExpansionNetwork,
    slice: RegisterSlice<DecompressedEntry>,
}

seq_macro::seq!(J in 0..32 {
impl Logic for ZvcDecompressor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_valid, s1_class, s1_payload);
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();

        self.s1_load.next = !self.s1_valid.q.val() | self.slice.in_ready.val();
        self.in_ready.next = self.s1_load.val();
        if self.s1_load.val() {
            self.s1_valid.d.next = self.in_valid.val();
            self.s1_class.d.next = self.in_class.val();
            self.s1_payload.d.next = self.in_payload.val();
        }
        if self.reset.val() {
            self.s1_valid.d.next = false;
        }

        self.compressed_class.next = (self.s1_class.q.val() >= 1) & (self.s1_class.q.val() <= 6);
        self.raw.next = self.s1_class.q.val() == 7;
        // Submodule inputs are assigned once (see `compaction`): build in a local.
        self.mask.next = 0.into();
        if self.compressed_class.val() {
            self.mask.next = self.s1_payload.q.val().w0;
        }
        self.control.valid_words.next = self.mask.val();
        self.control.raw.next = self.raw.val();
        self.control.raw_when_dense.next = false;

        // More non-zero words than the class holds (n > capacity, with
        // n = 32 - zero_count): B8 1, B16 3, B32 7, B64 15, B80 19, B96 23.
        self.error.next = self.s1_class.q.val() >= 8;
        if (self.s1_class.q.val() == 1) & (self.control.zero_count.val() < 31) {
            self.error.next = true;
        }
        if (self.s1_class.q.val() == 2) & (self.control.zero_count.val() < 29) {
            self.error.next = true;
        }
        if (self.s1_class.q.val() == 3) & (self.control.zero_count.val() < 25) {
            self.error.next = true;
        }
        if (self.s1_class.q.val() == 4) & (self.control.zero_count.val() < 17) {
            self.error.next = true;
        }
        if (self.s1_class.q.val() == 5) & (self.control.zero_count.val() < 13) {
            self.error.next = true;
        }
        if (self.s1_class.q.val() == 6) & (self.control.zero_count.val() < 9) {
            self.error.next = true;
        }

        #( self.network.slots_in[J].next = self.s1_payload.q.val().w~J; )*
        for k in 0..5 {
            self.network.moves[k].next = self.control.moves[k].val();
            self.network.stays[k].next = self.control.stays[k].val();
        }

        #( self.entry_words.next.w~J = self.network.words_out[J].val(); )*
        if self.error.val() {
            #( self.entry_words.next.w~J = 0.into(); )*
        }
        self.result.next.entry = self.entry_words.val();
        self.result.next.error = self.error.val();

        self.slice.in_valid.next = self.s1_valid.q.val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_entry.next = self.slice.out_data.val().entry;
        self.out_error.next = self.slice.out_data.val().error;
    }
}
});
