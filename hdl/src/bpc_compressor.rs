//! Bit-Plane Compression of one 128-byte memory-entry per cycle
//! (docs/formats.md#bpc; Kim et al. ISCA 2016; the Buddy Compression
//! paper's algorithm, Sec. IV-A).

use crate::bpc_symbol_packer::{PackerLeaves, PackerRoot};
use crate::bpc_transform::BpcTransform;
use crate::bpc_zero_runs::BpcZeroRuns;
use crate::default_array;
use crate::entry_bits::EntryBits;
use crate::register_slice::RegisterSlice;
use rust_hdl::prelude::*;

/// What [`BpcCompressor`] emits per entry (one flat vector in Verilog:
/// `payload` in bits `[1023:0]`, `class` `[1027:1024]`, `stream_bits`
/// `[1038:1028]`).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct BpcCompressed {
    /// Stored bytes as the vector `C` of docs/formats.md#stream-packing: the stream, zero
    /// past its end; the original entry for class RAW; zero for ZERO.
    pub payload: EntryBits,
    /// 4-bit size class code (docs/formats.md#size-classes): 0 ZERO .. 7 RAW.
    pub class: Bits<4>,
    /// The stream's exact length in bits (10..=1089; 0 for ZERO; above 768
    /// for RAW, the length the stream would have had).
    pub stream_bits: Bits<11>,
}

seq_macro::seq!(J in 0..35 {
/// Latency of [`BpcCompressor`] in clock cycles: a memory-entry accepted on edge `t` is on `out_*` after edge `t + 5`;
/// the initiation interval is 1. The testbenches measure it; the memory
/// system's hardware timing reads it (`buddy_hdl::timing`).
pub const LATENCY: u64 = 5;

/// BPC compressor: one memory-entry per cycle, exactly as the golden
/// `buddy_golden::Bpc` (docs/formats.md#bpc, docs/formats.md#size-classes).
///
/// ```text
///  s1 input ─▶ transform ─▶ s2: 35 slots ─▶ zero runs ─▶ s3: 35 slots ─▶ packer leaves ─▶ s4: 5 partial ─▶ packer root, ─▶ slice ─▶ out_*
///  register    (stage 1)     (code, len,     (stage 2)    (code, len)     (stage 3)         streams, the    class          (main|skid)
///                            zero)                                                          entry           (stage 4)
/// in_ready ◀── !s1_valid | s2 moves ◀── !s2_valid | s3 moves ◀── ... ◀── !s4_valid | slice ready (a flip-flop)
/// ```
///
/// | stage | block | logic |
/// |---|---|---|
/// | 1 | [`BpcTransform`] | deltas and signs, the 33 bit-planes (wiring), DBX, per plane in parallel its symbol by the mandatory priority, the base symbol |
/// | 2 | [`BpcZeroRuns`] | run lengths (a 6-level segmented prefix count), run starts, ZERO1 / ZRUN |
/// | 3 | [`PackerLeaves`] | bit-reversal of each slot, shift-OR tree levels 1-3: 5 partial streams |
/// | 4 | [`PackerRoot`] and the class | tree levels 4-6 (768 bits kept), class by the length, RAW above 768 bits, ZERO for an all-zero entry |
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
/// | `out_stream_bits` | 11 | out | see [`BpcCompressed::stream_bits`] |
///
/// Timing: initiation interval 1; latency 5 cycles (accepted on edge `t`,
/// `out_valid` after edge `t + 5`). `in_ready` depends only on flip-flops;
/// every output comes from a flip-flop.
#[derive(LogicBlock)]
pub struct BpcCompressor {
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
    limits: [Constant<Bits<11>>; 6],
    zero_entry: Constant<EntryBits>,
    s1_valid: DFF<Bit>,
    s1_entry: DFF<EntryBits>,
    s1_load: Signal<Local, Bit>,
    transform: BpcTransform,
    s2_valid: DFF<Bit>,
    s2_entry: DFF<EntryBits>,
    s2_load: Signal<Local, Bit>,
    s2_code: [DFF<Bits<32>>; 35],
    s2_len: [DFF<Bits<32>>; 35],
    s2_zero: [DFF<Bit>; 35],
    runs: BpcZeroRuns,
    s3_valid: DFF<Bit>,
    s3_entry: DFF<EntryBits>,
    s3_load: Signal<Local, Bit>,
    s3_code: [DFF<Bits<32>>; 35],
    s3_len: [DFF<Bits<32>>; 35],
    leaves: PackerLeaves,
    s4_valid: DFF<Bit>,
    s4_entry: DFF<EntryBits>,
    s4_load: Signal<Local, Bit>,
    s4_part: [DFF<EntryBits>; 5],
    s4_part_len: [DFF<Bits<11>>; 5],
    root: PackerRoot,
    nonzero: Signal<Local, Bit>,
    size_code: Signal<Local, Bits<4>>,
    stream_bits: Signal<Local, Bits<11>>,
    payload: Signal<Local, EntryBits>,
    result: Signal<Local, BpcCompressed>,
    slice: RegisterSlice<BpcCompressed>,
}


impl Default for BpcCompressor {
    fn default() -> Self {
        BpcCompressor {
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
            // Class limits in stream bits: B8 .. B96 hold 64, 128, 256, 512, 640, 768.
            limits: [64u64, 128, 256, 512, 640, 768].map(|b| Constant::new(b.into())),
            zero_entry: Constant::new(EntryBits::default()),
            s1_valid: Default::default(),
            s1_entry: Default::default(),
            s1_load: Default::default(),
            transform: Default::default(),
            s2_valid: Default::default(),
            s2_entry: Default::default(),
            s2_load: Default::default(),
            s2_code: default_array(),
            s2_len: default_array(),
            s2_zero: default_array(),
            runs: Default::default(),
            s3_valid: Default::default(),
            s3_entry: Default::default(),
            s3_load: Default::default(),
            s3_code: default_array(),
            s3_len: default_array(),
            leaves: Default::default(),
            s4_valid: Default::default(),
            s4_entry: Default::default(),
            s4_load: Default::default(),
            s4_part: default_array(),
            s4_part_len: default_array(),
            root: Default::default(),
            nonzero: Default::default(),
            size_code: Default::default(),
            stream_bits: Default::default(),
            payload: Default::default(),
            result: Default::default(),
            slice: Default::default(),
        }
    }
}

impl Logic for BpcCompressor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_valid, s1_entry, s2_valid, s2_entry, s3_valid, s3_entry, s4_valid, s4_entry);
        for s in 0..35 {
            self.s2_code[s].clock.next = self.clock.val();
            self.s2_code[s].d.next = self.s2_code[s].q.val();
            self.s2_len[s].clock.next = self.clock.val();
            self.s2_len[s].d.next = self.s2_len[s].q.val();
            self.s2_zero[s].clock.next = self.clock.val();
            self.s2_zero[s].d.next = self.s2_zero[s].q.val();
            self.s3_code[s].clock.next = self.clock.val();
            self.s3_code[s].d.next = self.s3_code[s].q.val();
            self.s3_len[s].clock.next = self.clock.val();
            self.s3_len[s].d.next = self.s3_len[s].q.val();
        }
        for k in 0..5 {
            self.s4_part[k].clock.next = self.clock.val();
            self.s4_part[k].d.next = self.s4_part[k].q.val();
            self.s4_part_len[k].clock.next = self.clock.val();
            self.s4_part_len[k].d.next = self.s4_part_len[k].q.val();
        }
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();

        // A stage moves when it is empty or the next one takes its entry; the
        // chain starts at the slice's ready, a flip-flop.
        self.s4_load.next = !self.s4_valid.q.val() | self.slice.in_ready.val();
        self.s3_load.next = !self.s3_valid.q.val() | self.s4_load.val();
        self.s2_load.next = !self.s2_valid.q.val() | self.s3_load.val();
        self.s1_load.next = !self.s1_valid.q.val() | self.s2_load.val();
        self.in_ready.next = self.s1_load.val();
        if self.s1_load.val() {
            self.s1_valid.d.next = self.in_valid.val();
            self.s1_entry.d.next = self.in_entry.val();
        }

        // Stage 1: transform.
        self.transform.entry.next = self.s1_entry.q.val();
        if self.s2_load.val() {
            self.s2_valid.d.next = self.s1_valid.q.val();
            self.s2_entry.d.next = self.s1_entry.q.val();
            #(
                self.s2_code[J].d.next = self.transform.code~J.val();
                self.s2_len[J].d.next = self.transform.len~J.val();
                self.s2_zero[J].d.next = self.transform.zero~J.val();
            )*
        }

        // Stage 2: zero runs.
        #(
            self.runs.code~J.next = self.s2_code[J].q.val();
            self.runs.len~J.next = self.s2_len[J].q.val();
            self.runs.zero~J.next = self.s2_zero[J].q.val();
        )*
        if self.s3_load.val() {
            self.s3_valid.d.next = self.s2_valid.q.val();
            self.s3_entry.d.next = self.s2_entry.q.val();
            #(
                self.s3_code[J].d.next = self.runs.out_code~J.val();
                self.s3_len[J].d.next = self.runs.out_len~J.val();
            )*
        }

        // Stage 3: packing, tree levels 1-3.
        #(
            self.leaves.code~J.next = self.s3_code[J].q.val();
            self.leaves.len~J.next = self.s3_len[J].q.val();
        )*
        if self.s4_load.val() {
            self.s4_valid.d.next = self.s3_valid.q.val();
            self.s4_entry.d.next = self.s3_entry.q.val();
            self.s4_part[0].d.next = self.leaves.part0.val();
            self.s4_part[1].d.next = self.leaves.part1.val();
            self.s4_part[2].d.next = self.leaves.part2.val();
            self.s4_part[3].d.next = self.leaves.part3.val();
            self.s4_part[4].d.next = self.leaves.part4.val();
            self.s4_part_len[0].d.next = self.leaves.part_len0.val();
            self.s4_part_len[1].d.next = self.leaves.part_len1.val();
            self.s4_part_len[2].d.next = self.leaves.part_len2.val();
            self.s4_part_len[3].d.next = self.leaves.part_len3.val();
            self.s4_part_len[4].d.next = self.leaves.part_len4.val();
        }

        // Stage 4: packing, tree levels 4-6, and the size class (docs/formats.md#size-classes).
        self.root.part0.next = self.s4_part[0].q.val();
        self.root.part1.next = self.s4_part[1].q.val();
        self.root.part2.next = self.s4_part[2].q.val();
        self.root.part3.next = self.s4_part[3].q.val();
        self.root.part4.next = self.s4_part[4].q.val();
        self.root.part_len0.next = self.s4_part_len[0].q.val();
        self.root.part_len1.next = self.s4_part_len[1].q.val();
        self.root.part_len2.next = self.s4_part_len[2].q.val();
        self.root.part_len3.next = self.s4_part_len[3].q.val();
        self.root.part_len4.next = self.s4_part_len[4].q.val();
        self.nonzero.next = self.s4_entry.q.val().w0.any() | self.s4_entry.q.val().w1.any() | self.s4_entry.q.val().w2.any()
            | self.s4_entry.q.val().w3.any() | self.s4_entry.q.val().w4.any() | self.s4_entry.q.val().w5.any()
            | self.s4_entry.q.val().w6.any() | self.s4_entry.q.val().w7.any() | self.s4_entry.q.val().w8.any()
            | self.s4_entry.q.val().w9.any() | self.s4_entry.q.val().w10.any() | self.s4_entry.q.val().w11.any()
            | self.s4_entry.q.val().w12.any() | self.s4_entry.q.val().w13.any() | self.s4_entry.q.val().w14.any()
            | self.s4_entry.q.val().w15.any() | self.s4_entry.q.val().w16.any() | self.s4_entry.q.val().w17.any()
            | self.s4_entry.q.val().w18.any() | self.s4_entry.q.val().w19.any() | self.s4_entry.q.val().w20.any()
            | self.s4_entry.q.val().w21.any() | self.s4_entry.q.val().w22.any() | self.s4_entry.q.val().w23.any()
            | self.s4_entry.q.val().w24.any() | self.s4_entry.q.val().w25.any() | self.s4_entry.q.val().w26.any()
            | self.s4_entry.q.val().w27.any() | self.s4_entry.q.val().w28.any() | self.s4_entry.q.val().w29.any()
            | self.s4_entry.q.val().w30.any() | self.s4_entry.q.val().w31.any();
        self.stream_bits.next = self.root.total.val();
        self.size_code.next = 7.into();
        self.payload.next = self.s4_entry.q.val();
        if self.root.total.val() <= self.limits[5].val() {
            self.size_code.next = 6.into();
            self.payload.next = self.root.stream.val();
        }
        if self.root.total.val() <= self.limits[4].val() {
            self.size_code.next = 5.into();
        }
        if self.root.total.val() <= self.limits[3].val() {
            self.size_code.next = 4.into();
        }
        if self.root.total.val() <= self.limits[2].val() {
            self.size_code.next = 3.into();
        }
        if self.root.total.val() <= self.limits[1].val() {
            self.size_code.next = 2.into();
        }
        if self.root.total.val() <= self.limits[0].val() {
            self.size_code.next = 1.into();
        }
        if !self.nonzero.val() {
            self.size_code.next = 0.into();
            self.stream_bits.next = 0.into();
            self.payload.next = self.zero_entry.val();
        }
        self.result.next.payload = self.payload.val();
        self.result.next.class = self.size_code.val();
        self.result.next.stream_bits = self.stream_bits.val();

        if self.reset.val() {
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
            self.s4_valid.d.next = false;
        }
        self.slice.in_valid.next = self.s4_valid.q.val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_payload.next = self.slice.out_data.val().payload;
        self.out_class.next = self.slice.out_data.val().class;
        self.out_stream_bits.next = self.slice.out_data.val().stream_bits;
    }
}
});
