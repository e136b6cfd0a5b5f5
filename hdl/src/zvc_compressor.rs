//! ZVC compressor: one 128-byte memory-entry per cycle.

use crate::compaction::{CompactionNetwork, Routing, ShiftCount};
use crate::entry_bits::EntryBits;
use crate::register_slice::RegisterSlice;
use crate::stages::Stages;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

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

/// Latency of [`ZvcCompressor`] built `stages`, clock cycles: a
/// memory-entry accepted on edge `t` is on `out_*` after edge
/// `t + latency`; the initiation interval is 1. 2 ([`Stages::Paper`]) or 4
/// ([`Stages::EightLevels`]). The testbenches measure it; the memory
/// system's hardware timing reads it (`buddy_hdl::timing`).
pub const fn latency(stages: Stages) -> u64 {
    match stages {
        Stages::Paper => 2,
        Stages::EightLevels => 4,
    }
}

/// Zero-Value Compression of one 128-byte memory-entry per cycle
/// (cDMA, seed `003_*`, Sec. V-A and Fig. 10; bits as docs/formats.md#zvc).
///
/// ```text
///            stage 1         [stage 2]           [stage 3]   (EightLevels)          register slice
/// in_entry ─▶ s1_entry ─ w!=0 ─▶ ShiftCount ─▶ [s2] ─▶ Routing ─▶ [s3] ─┐          ┌──────────────┐
/// in_valid ─▶ s1_valid                                                  ├─────────▶│ main │ skid  │─▶ out_*
/// in_ready ◀─ stage 1 loads  {mask, w0..w31} ─▶ [s2] ─▶ [s3] ─▶ CompactionNetwork ─┘└──────────────┘◀─ out_ready
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
/// backpressure); latency [`latency`] cycles: 2 built [`Stages::Paper`], 4
/// built [`Stages::EightLevels`] (accepted on edge `t`, `out_valid` after
/// edge `t + latency`). `in_ready` depends only on flip-flops (the slice's
/// skid state and the stages' valid bits); every output comes from a
/// flip-flop.
///
/// [`Stages::EightLevels`] takes the zero flags of the input entry into
/// stage 1 (so the prefix count starts from flip-flops), registers each
/// kept word's shift after [`ShiftCount`] (stage 2, with the dense flag
/// apart: raw routing is applied to the network's controls as stage 3
/// takes them) and the network's controls after [`Routing`] (stage 3),
/// each with the entry.
///
/// Internals: a log-depth compaction (see [`crate::compaction`]); an entry with 24 or more non-zero words is routed
/// in raw mode so that the same network outputs the original words.
#[derive(SettleBlock)]
pub struct ZvcCompressor {
    _settle: crate::settle::Settle,
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
    // Stages::EightLevels: zero flags taken with the entry, stage 2 built.
    staged: Constant<Bit>,
    s1_valid: DFF<Bit>,
    s1_entry: DFF<EntryBits>,
    s1_nonzero: DFF<Bits<32>>,
    s1_load: Signal<Local, Bit>,
    in_nonzero: Signal<Local, Bits<32>>,
    nonzero: Signal<Local, Bits<32>>,
    s2_valid: DFF<Bit>,
    s2_entry: DFF<EntryBits>,
    s2_nonzero: DFF<Bits<32>>,
    s2_kept: DFF<Bits<32>>,
    s2_shifts: [DFF<Bits<5>>; 32],
    s2_zero_count: DFF<Bits<6>>,
    s2_raw: DFF<Bit>,
    s2_load: Signal<Local, Bit>,
    s3_valid: DFF<Bit>,
    s3_entry: DFF<EntryBits>,
    s3_nonzero: DFF<Bits<32>>,
    s3_zero_count: DFF<Bits<6>>,
    s3_moves: [DFF<Bits<32>>; 5],
    s3_load: Signal<Local, Bit>,
    // The values the routing and the network work on: stage 1's or stage 2's.
    last_valid: Signal<Local, Bit>,
    entry: Signal<Local, EntryBits>,
    mask: Signal<Local, Bits<32>>,
    kept: Signal<Local, Bits<32>>,
    shifts: [Signal<Local, Bits<5>>; 32],
    zero_count: Signal<Local, Bits<6>>,
    size_code: Signal<Local, Bits<4>>,
    stream_bits: Signal<Local, Bits<11>>,
    payload_words: Signal<Local, EntryBits>,
    result: Signal<Local, ZvcCompressed>,
    count: ShiftCount,
    routing: Routing,
    network: CompactionNetwork,
    slice: RegisterSlice<ZvcCompressed>,
}

/// [`Stages::DELIVERED`].
impl Default for ZvcCompressor {
    fn default() -> Self {
        Self::new(Stages::DELIVERED)
    }
}

impl ZvcCompressor {
    /// The compressor pipelined as `stages` says ([`latency`]).
    pub fn new(stages: Stages) -> Self {
        ZvcCompressor {
            _settle: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_entry: Default::default(),
            in_ready: Default::default(),
            out_valid: Default::default(),
            out_payload: Default::default(),
            out_class: Default::default(),
            out_stream_bits: Default::default(),
            out_ready: Default::default(),
            staged: Constant::new(stages.registers_inputs()),
            s1_valid: Default::default(),
            s1_entry: Default::default(),
            s1_nonzero: Default::default(),
            s1_load: Default::default(),
            in_nonzero: Default::default(),
            nonzero: Default::default(),
            s2_valid: Default::default(),
            s2_entry: Default::default(),
            s2_nonzero: Default::default(),
            s2_kept: Default::default(),
            s2_shifts: Default::default(),
            s2_zero_count: Default::default(),
            s2_raw: Default::default(),
            s2_load: Default::default(),
            s3_valid: Default::default(),
            s3_entry: Default::default(),
            s3_nonzero: Default::default(),
            s3_zero_count: Default::default(),
            s3_moves: Default::default(),
            s3_load: Default::default(),
            last_valid: Default::default(),
            entry: Default::default(),
            mask: Default::default(),
            kept: Default::default(),
            shifts: Default::default(),
            zero_count: Default::default(),
            size_code: Default::default(),
            stream_bits: Default::default(),
            payload_words: Default::default(),
            result: Default::default(),
            count: Default::default(),
            routing: Default::default(),
            network: Default::default(),
            slice: Default::default(),
        }
    }
}

seq_macro::seq!(J in 0..32 {
impl Logic for ZvcCompressor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_valid, s1_entry, s1_nonzero, s2_valid, s2_entry, s2_nonzero, s2_kept, s2_zero_count, s2_raw,
            s3_valid, s3_entry, s3_nonzero, s3_zero_count);
        for i in 0..32 {
            self.s2_shifts[i].clock.next = self.clock.val();
            self.s2_shifts[i].d.next = self.s2_shifts[i].q.val();
        }
        for k in 0..5 {
            self.s3_moves[k].clock.next = self.clock.val();
            self.s3_moves[k].d.next = self.s3_moves[k].q.val();
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
        self.in_ready.next = self.s1_load.val();

        self.in_nonzero.next = 0.into();
        #( self.in_nonzero.next = self.in_nonzero.val().replace_bit(J, self.in_entry.val().w~J.any()); )*
        if self.s1_load.val() {
            self.s1_valid.d.next = self.in_valid.val();
            self.s1_entry.d.next = self.in_entry.val();
            self.s1_nonzero.d.next = self.in_nonzero.val();
        }
        if self.reset.val() {
            self.s1_valid.d.next = false;
        }

        // The zero flags: from stage 1's entry, or taken with it.
        self.nonzero.next = self.s1_nonzero.q.val();
        if !self.staged.val() {
            #( self.nonzero.next = self.nonzero.val().replace_bit(J, self.s1_entry.q.val().w~J.any()); )*
        }

        // 24 or more non-zero words: 800+ bits > 768, stored raw. In raw mode
        // word 0 always moves into slot 0, so the mask there needs no gating.
        // Staged, stage 2 keeps the counts and the dense flag apart and stage
        // 3 routes raw, so the prefix count's last add ends at a register.
        self.count.valid_words.next = self.nonzero.val();
        self.count.raw.next = false;
        self.count.raw_when_dense.next = !self.staged.val();

        if self.s2_load.val() {
            self.s2_valid.d.next = self.s1_valid.q.val();
            self.s2_entry.d.next = self.s1_entry.q.val();
            self.s2_nonzero.d.next = self.nonzero.val();
            self.s2_kept.d.next = self.count.valid.val();
            self.s2_zero_count.d.next = self.count.zero_count.val();
            self.s2_raw.d.next = self.count.zero_count.val() <= 8;
            for i in 0..32 {
                self.s2_shifts[i].d.next = self.count.shifts[i].val();
            }
        }
        if self.reset.val() {
            self.s2_valid.d.next = false;
        }

        if self.staged.val() {
            self.kept.next = self.s2_kept.q.val();
            for i in 0..32 {
                self.shifts[i].next = self.s2_shifts[i].q.val();
            }
        } else {
            self.kept.next = self.count.valid.val();
            for i in 0..32 {
                self.shifts[i].next = self.count.shifts[i].val();
            }
        }
        self.routing.valid.next = self.kept.val();
        for i in 0..32 {
            self.routing.shifts[i].next = self.shifts[i].val();
        }

        if self.s3_load.val() {
            self.s3_valid.d.next = self.s2_valid.q.val();
            self.s3_entry.d.next = self.s2_entry.q.val();
            self.s3_nonzero.d.next = self.s2_nonzero.q.val();
            self.s3_zero_count.d.next = self.s2_zero_count.q.val();
            for k in 0..5 {
                self.s3_moves[k].d.next = self.routing.moves[k].val();
            }
            // Raw routing: every word valid with shift 1, so each moves at
            // level 0 only.
            if self.s2_raw.q.val() {
                self.s3_moves[0].d.next = !bits::<32>(0);
                for k in 1..5 {
                    self.s3_moves[k].d.next = 0.into();
                }
            }
        }
        if self.reset.val() {
            self.s3_valid.d.next = false;
        }
        if self.staged.val() {
            self.entry.next = self.s3_entry.q.val();
            self.mask.next = self.s3_nonzero.q.val();
            self.zero_count.next = self.s3_zero_count.q.val();
            for k in 0..5 {
                self.network.moves[k].next = self.s3_moves[k].q.val();
            }
        } else {
            self.entry.next = self.s1_entry.q.val();
            self.mask.next = self.nonzero.val();
            self.zero_count.next = self.count.zero_count.val();
            for k in 0..5 {
                self.network.moves[k].next = self.routing.moves[k].val();
            }
        }
        self.network.slots_in[0].next = self.mask.val();
        #( self.network.slots_in[J + 1].next = self.entry.val().w~J; )*

        // Size class from the zero count z (n = 32 - z non-zero words).
        self.size_code.next = 7.into();
        if self.zero_count.val() >= 9 {
            self.size_code.next = 6.into();
        }
        if self.zero_count.val() >= 13 {
            self.size_code.next = 5.into();
        }
        if self.zero_count.val() >= 17 {
            self.size_code.next = 4.into();
        }
        if self.zero_count.val() >= 25 {
            self.size_code.next = 3.into();
        }
        if self.zero_count.val() >= 29 {
            self.size_code.next = 2.into();
        }
        if self.zero_count.val() == 31 {
            self.size_code.next = 1.into();
        }
        if self.zero_count.val() == 32 {
            self.size_code.next = 0.into();
        }
        // 32 + 32 n = 32 (33 - z); widen z before subtracting.
        self.stream_bits.next = (bits::<11>(33) - bit_cast::<11, 6>(self.zero_count.val())) << 5;
        if self.zero_count.val() == 32 {
            self.stream_bits.next = 0.into();
        }

        #( self.payload_words.next.w~J = self.network.slots_out[J].val(); )*
        self.result.next.payload = self.payload_words.val();
        self.result.next.class = self.size_code.val();
        self.result.next.stream_bits = self.stream_bits.val();

        self.slice.in_valid.next = self.last_valid.val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_payload.next = self.slice.out_data.val().payload;
        self.out_class.next = self.slice.out_data.val().class;
        self.out_stream_bits.next = self.slice.out_data.val().stream_bits;
    }
}
});
