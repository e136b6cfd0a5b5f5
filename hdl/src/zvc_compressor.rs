//! ZVC compressor: one 128-byte memory-entry per cycle.

use crate::compaction::{CompactionControl, CompactionNetwork};
use crate::entry_bits::EntryBits;
use crate::register_slice::RegisterSlice;
use rust_hdl::prelude::*;

/// What [`ZvcCompressor`] emits per entry (one flat vector in Verilog:
/// `payload` in bits `[1023:0]`, `class` `[1027:1024]`, `stream_bits`
/// `[1038:1028]`).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct ZvcCompressed {
    /// Stored bytes as the vector `C` of docs/formats.md#stream-packing, zero past the stream;
    /// the original entry for class RAW; all zero for class ZERO.
    pub payload: EntryBits,
    /// 4-bit size class code (docs/formats.md#size-classes): 0 ZERO .. 7 RAW.
    pub class: Bits<4>,
    /// ZVC stream length in bits, `32 + 32 n` for `n` non-zero words
    /// (up to 1056 even when the class is RAW); 0 for ZERO.
    pub stream_bits: Bits<11>,
}

/// Latency of [`ZvcCompressor`] in clock cycles: a memory-entry accepted on edge `t` is on `out_*` after edge `t + 2`;
/// the initiation interval is 1. The testbenches measure it; the memory
/// system's hardware timing reads it (`buddy_hdl::timing`).
pub const LATENCY: u64 = 2;

/// Zero-Value Compression of one 128-byte memory-entry per cycle
/// (cDMA, seed `003_*`, Sec. V-A and Fig. 10; bits as docs/formats.md#zvc).
///
/// ```text
///             stage 1 (register)        compaction logic        register slice
/// in_entry ──▶ s1_entry ─┬─ w!=0 ─▶ CompactionControl ─┐     ┌───────────────┐
/// in_valid ──▶ s1_valid  │ (prefix of zero flags,       ├──▶ │ main  │ skid  │──▶ out_*
/// in_ready ◀── !s1_valid │  5-level routing)            │    └───────────────┘◀── out_ready
///              | ready   └─ {mask, w0..w31} ─▶ CompactionNetwork ──┘
/// ```
///
/// Ports (valid/ready streams; a transfer happens on a rising `clock` edge
/// with `valid && ready`):
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock` | 1 | in | rising-edge clock |
/// | `reset` | 1 | in | synchronous, active high; empties the pipeline |
/// | `in_valid`, `in_ready` | 1, 1 | in, out | input handshake |
/// | `in_entry` | 1024 | in | the entry, `w[i]` at `[32i +: 32]` |
/// | `out_valid`, `out_ready` | 1, 1 | out, in | output handshake |
/// | `out_payload` | 1024 | out | stored bytes, packed as docs/formats.md#stream-packing |
/// | `out_class` | 4 | out | size class code 0..7 |
/// | `out_stream_bits` | 11 | out | ZVC stream length in bits |
///
/// Timing: initiation interval 1 (one entry per cycle under no
/// backpressure); latency 2 cycles (accepted on edge `t`, `out_valid` after
/// edge `t + 2`). `in_ready` depends only on flip-flops (the slice's skid
/// state and `s1_valid`); every output comes from a flip-flop.
///
/// Internals: the stage-1 register feeds a log-depth compaction (see
/// [`crate::compaction`]); an entry with 24 or more non-zero words is routed
/// in raw mode so that the same network outputs the original words.
#[derive(LogicBlock, Default)]
pub struct ZvcCompressor {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_entry: Signal<In, EntryBits>,
    pub in_ready: Signal<Out, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_payload: Signal<Out, EntryBits>,
    pub out_class: Signal<Out, Bits<4>>,
    pub out_stream_bits: Signal<Out, Bits<11>>,
    pub out_ready: Signal<In, Bit>,
    s1_valid: DFF<Bit>,
    s1_entry: DFF<EntryBits>,
    s1_load: Signal<Local, Bit>,
    words: [Signal<Local, Bits<32>>; 32],
    nonzero: Signal<Local, Bits<32>>,
    size_code: Signal<Local, Bits<4>>,
    stream_bits: Signal<Local, Bits<11>>,
    payload_words: Signal<Local, EntryBits>,
    result: Signal<Local, ZvcCompressed>,
    control: CompactionControl,
    network: CompactionNetwork,
    slice: RegisterSlice<ZvcCompressed>,
}

seq_macro::seq!(J in 0..32 {
impl Logic for ZvcCompressor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_valid, s1_entry);
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();

        // Stage 1: a plain pipeline register; it advances when empty or when
        // the slice (whose ready is a flip-flop) takes its entry.
        self.s1_load.next = !self.s1_valid.q.val() | self.slice.in_ready.val();
        self.in_ready.next = self.s1_load.val();
        if self.s1_load.val() {
            self.s1_valid.d.next = self.in_valid.val();
            self.s1_entry.d.next = self.in_entry.val();
        }
        if self.reset.val() {
            self.s1_valid.d.next = false;
        }

        #( self.words[J].next = self.s1_entry.q.val().w~J; )*
        self.nonzero.next = 0.into();
        for i in 0..32 {
            self.nonzero.next = self.nonzero.val().replace_bit(i, self.words[i].val().any());
        }

        // 24 or more non-zero words: 800+ bits > 768, stored raw. In raw mode
        // word 0 always moves into slot 0, so the mask there needs no gating.
        self.control.valid_words.next = self.nonzero.val();
        self.control.raw.next = false;
        self.control.raw_when_dense.next = true;
        self.network.slots_in[0].next = self.nonzero.val();
        for i in 0..32 {
            self.network.slots_in[i + 1].next = self.words[i].val();
        }
        for k in 0..5 {
            self.network.moves[k].next = self.control.moves[k].val();
        }

        // Size class from the zero count z (n = 32 - z non-zero words).
        self.size_code.next = 7.into();
        if self.control.zero_count.val() >= 9 {
            self.size_code.next = 6.into();
        }
        if self.control.zero_count.val() >= 13 {
            self.size_code.next = 5.into();
        }
        if self.control.zero_count.val() >= 17 {
            self.size_code.next = 4.into();
        }
        if self.control.zero_count.val() >= 25 {
            self.size_code.next = 3.into();
        }
        if self.control.zero_count.val() >= 29 {
            self.size_code.next = 2.into();
        }
        if self.control.zero_count.val() == 31 {
            self.size_code.next = 1.into();
        }
        if self.control.zero_count.val() == 32 {
            self.size_code.next = 0.into();
        }
        // 32 + 32 n = 32 (33 - z); widen z before subtracting.
        self.stream_bits.next = (bits::<11>(33) - bit_cast::<11, 6>(self.control.zero_count.val())) << 5;
        if self.control.zero_count.val() == 32 {
            self.stream_bits.next = 0.into();
        }

        #( self.payload_words.next.w~J = self.network.slots_out[J].val(); )*
        self.result.next.payload = self.payload_words.val();
        self.result.next.class = self.size_code.val();
        self.result.next.stream_bits = self.stream_bits.val();

        self.slice.in_valid.next = self.s1_valid.q.val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_payload.next = self.slice.out_data.val().payload;
        self.out_class.next = self.slice.out_data.val().class;
        self.out_stream_bits.next = self.slice.out_data.val().stream_bits;
    }
}
});
