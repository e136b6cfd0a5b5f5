//! Bit-Plane Compression of one 128-byte memory-entry per cycle
//! (docs/formats.md#bpc; Kim et al. ISCA 2016; the Buddy Compression
//! paper's algorithm, Sec. IV-A).

use crate::bpc_stream_order::BpcStreamOrder;
use crate::bpc_symbol_packer::{BpcPacker, PackerCuts};
use crate::bpc_transform::BpcTransform;
use crate::bpc_zero_runs::BpcZeroRuns;
use crate::default_array;
use crate::entry_bits::EntryBits;
use crate::register_slice::RegisterSlice;
use crate::stages::Stages;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

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

/// Latency of [`BpcCompressor`] built `stages`, clock cycles: a
/// memory-entry accepted on edge `t` is on `out_*` after edge
/// `t + latency`; the initiation interval is 1. 5 ([`Stages::Paper`]) or
/// 10 ([`Stages::EightLevels`]). The testbenches measure it; the memory
/// system's hardware timing reads it (`buddy_hdl::timing`).
pub const fn latency(stages: Stages) -> u64 {
    // The input register, the symbols, the zero runs, the packer's cuts and the output slice.
    let transform_cut = if matches!(stages, Stages::EightLevels) { 1 } else { 0 };
    4 + transform_cut + cuts(stages).count()
}

/// The packer's registers built `stages`.
const fn cuts(stages: Stages) -> PackerCuts {
    match stages {
        Stages::Paper => PackerCuts::PAPER,
        Stages::EightLevels => PackerCuts::EIGHT_LEVELS,
    }
}

/// Pipeline registers that can be built, in order: the input, the
/// transform's cut, the symbols, the zero runs, and the packer's five cuts.
const STAGES: usize = 9;
/// Index of the first packer cut in that order.
const PACKER: usize = 4;

seq_macro::seq!(J in 0..35 {
/// BPC compressor: one memory-entry per cycle, exactly as the golden
/// `buddy_golden::Bpc` (docs/formats.md#bpc, docs/formats.md#size-classes).
///
/// ```text
///  input ─▶ transform ─▶ symbols: 35 slots ─▶ stream order, ─▶ 35 slots ─▶ packer: shift-OR ─▶ root, ─▶ slice ─▶ out_*
///  register (deltas | DBX, (code, len, zero)   zero runs      (code, len)   tree, levels 1-5    class    (main|skid)
///           symbols)
/// in_ready ◀── !valid | next stage moves ◀── ... ◀── slice ready (a flip-flop)
/// ```
///
/// | register | built | logic before it |
/// |---|---|---|
/// | input | both | none: `in_entry` as it comes |
/// | transform's cut | [`Stages::EightLevels`] | [`BpcTransform`]'s first half: deltas and signs, the 33 bit-planes (wiring), `DBX`, each plane's zero flag |
/// | symbols | both | [`BpcTransform`]'s second half: per plane in parallel its symbol by the mandatory priority, the base symbol |
/// | zero runs | both | [`BpcStreamOrder`]: each slot bit-reversed and shifted into stream order, beside [`BpcZeroRuns`]: run lengths (thermometers), ZERO1 / ZRUN |
/// | packer, after tree level 1, 2, 4, 5 | [`Stages::EightLevels`] | [`BpcPacker`]: one shift-OR level each |
/// | packer, after tree level 3 | both | [`Stages::Paper`]: levels 1-3 (5 partial streams); [`Stages::EightLevels`]: level 3 |
/// | output slice | both | the rest of the tree (levels 4-6, or 6), the class by the length (summed before the last register), RAW above 768 bits, ZERO for an all-zero entry |
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
/// Timing: initiation interval 1; latency [`latency`]: 5 cycles built
/// [`Stages::Paper`], 10 built [`Stages::EightLevels`] (accepted on edge
/// `t`, `out_valid` after edge `t + latency`). `in_ready` depends only on
/// flip-flops; every output comes from a flip-flop.
#[derive(SettleBlock)]
pub struct BpcCompressor {
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
    limits: [Constant<Bits<11>>; 6],
    zero_entry: Constant<EntryBits>,
    /// Which of the [`STAGES`] registers the build has.
    built: [Constant<Bit>; STAGES],
    /// Each register's entry and valid bit (the entry rides along for RAW).
    valid: [DFF<Bit>; STAGES],
    entry: [DFF<EntryBits>; STAGES],
    load: [Signal<Local, Bit>; STAGES],
    /// What leaves each register's place: its flip-flops, or (not built)
    /// what enters it.
    valid_out: [Signal<Local, Bit>; STAGES],
    entry_out: [Signal<Local, EntryBits>; STAGES],
    transform: BpcTransform,
    s2_code: [DFF<Bits<32>>; 35],
    s2_len: [DFF<Bits<32>>; 35],
    s2_zero: [DFF<Bit>; 35],
    order: BpcStreamOrder,
    runs: BpcZeroRuns,
    s3_code: [DFF<Bits<32>>; 35],
    s3_len: [DFF<Bits<32>>; 35],
    packer: BpcPacker,
    packer_load: Signal<Local, Bits<5>>,
    nonzero: Signal<Local, Bit>,
    size_code: Signal<Local, Bits<4>>,
    stream_bits: Signal<Local, Bits<11>>,
    payload: Signal<Local, EntryBits>,
    result: Signal<Local, BpcCompressed>,
    slice: RegisterSlice<BpcCompressed>,
}

/// [`Stages::DELIVERED`].
impl Default for BpcCompressor {
    fn default() -> Self {
        Self::new(Stages::DELIVERED)
    }
}

impl BpcCompressor {
    /// The compressor pipelined as `stages` says ([`latency`]).
    pub fn new(stages: Stages) -> Self {
        let cuts = cuts(stages);
        let built: [bool; STAGES] =
            std::array::from_fn(|k| match k {
                1 => matches!(stages, Stages::EightLevels),
                k if k >= PACKER => cuts.0[k - PACKER],
                _ => true,
            });
        BpcCompressor {
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
            // Class limits in stream bits: B8 .. B96 hold 64, 128, 256, 512, 640, 768.
            limits: [64u64, 128, 256, 512, 640, 768].map(|b| Constant::new(b.into())),
            zero_entry: Constant::new(EntryBits::default()),
            built: built.map(Constant::new),
            valid: default_array(),
            entry: default_array(),
            load: default_array(),
            valid_out: default_array(),
            entry_out: default_array(),
            transform: BpcTransform::new(stages),
            s2_code: default_array(),
            s2_len: default_array(),
            s2_zero: default_array(),
            order: Default::default(),
            runs: Default::default(),
            s3_code: default_array(),
            s3_len: default_array(),
            packer: BpcPacker::new(cuts),
            packer_load: Default::default(),
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
        for k in 0..9 {
            self.valid[k].clock.next = self.clock.val();
            self.valid[k].d.next = self.valid[k].q.val();
            self.entry[k].clock.next = self.clock.val();
            self.entry[k].d.next = self.entry[k].q.val();
        }
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
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();

        // A register moves when it is empty or the next one takes its entry;
        // the chain starts at the slice's ready, a flip-flop. A register the
        // build leaves out passes the next one's load back and its input on.
        self.load[8].next = !self.valid[8].q.val() | self.slice.in_ready.val();
        if !self.built[8].val() {
            self.load[8].next = self.slice.in_ready.val();
        }
        for k in 0..8 {
            self.load[7 - k].next = !self.valid[7 - k].q.val() | self.load[8 - k].val();
            if !self.built[7 - k].val() {
                self.load[7 - k].next = self.load[8 - k].val();
            }
        }
        self.in_ready.next = self.load[0].val();
        if self.load[0].val() {
            self.valid[0].d.next = self.in_valid.val();
            self.entry[0].d.next = self.in_entry.val();
        }
        self.valid_out[0].next = self.valid[0].q.val();
        self.entry_out[0].next = self.entry[0].q.val();
        for k in 1..9 {
            if self.load[k].val() {
                self.valid[k].d.next = self.valid_out[k - 1].val();
                self.entry[k].d.next = self.entry_out[k - 1].val();
            }
            self.valid_out[k].next = self.valid[k].q.val();
            self.entry_out[k].next = self.entry[k].q.val();
            if !self.built[k].val() {
                self.valid_out[k].next = self.valid_out[k - 1].val();
                self.entry_out[k].next = self.entry_out[k - 1].val();
            }
        }
        if self.reset.val() {
            for k in 0..9 {
                self.valid[k].d.next = false;
            }
        }

        // The transform (with its cut, register 1) into the symbols (register 2).
        self.transform.clock.next = self.clock.val();
        self.transform.load.next = self.load[1].val();
        self.transform.entry.next = self.entry[0].q.val();
        if self.load[2].val() {
            #(
                self.s2_code[J].d.next = self.transform.code~J.val();
                self.s2_len[J].d.next = self.transform.len~J.val();
                self.s2_zero[J].d.next = self.transform.zero~J.val();
            )*
        }

        // Stream order and zero runs (register 3).
        #(
            self.order.code~J.next = self.s2_code[J].q.val();
            self.order.len~J.next = self.s2_len[J].q.val();
            self.runs.code~J.next = self.order.ordered~J.val();
            self.runs.len~J.next = self.s2_len[J].q.val();
            self.runs.zero~J.next = self.s2_zero[J].q.val();
        )*
        if self.load[3].val() {
            #(
                self.s3_code[J].d.next = self.runs.out_code~J.val();
                self.s3_len[J].d.next = self.runs.out_len~J.val();
            )*
        }

        // Packing (registers 4-8 inside the packer, as built).
        self.packer.clock.next = self.clock.val();
        self.packer_load.next = 0.into();
        for k in 0..5 {
            self.packer_load.next = self.packer_load.val().replace_bit(k, self.load[4 + k].val());
        }
        self.packer.load.next = self.packer_load.val();
        #(
            self.packer.code~J.next = self.s3_code[J].q.val();
            self.packer.len~J.next = self.s3_len[J].q.val();
        )*

        // The size class (docs/formats.md#size-classes).
        self.nonzero.next = self.entry_out[8].val().w0.any() | self.entry_out[8].val().w1.any() | self.entry_out[8].val().w2.any()
            | self.entry_out[8].val().w3.any() | self.entry_out[8].val().w4.any() | self.entry_out[8].val().w5.any()
            | self.entry_out[8].val().w6.any() | self.entry_out[8].val().w7.any() | self.entry_out[8].val().w8.any()
            | self.entry_out[8].val().w9.any() | self.entry_out[8].val().w10.any() | self.entry_out[8].val().w11.any()
            | self.entry_out[8].val().w12.any() | self.entry_out[8].val().w13.any() | self.entry_out[8].val().w14.any()
            | self.entry_out[8].val().w15.any() | self.entry_out[8].val().w16.any() | self.entry_out[8].val().w17.any()
            | self.entry_out[8].val().w18.any() | self.entry_out[8].val().w19.any() | self.entry_out[8].val().w20.any()
            | self.entry_out[8].val().w21.any() | self.entry_out[8].val().w22.any() | self.entry_out[8].val().w23.any()
            | self.entry_out[8].val().w24.any() | self.entry_out[8].val().w25.any() | self.entry_out[8].val().w26.any()
            | self.entry_out[8].val().w27.any() | self.entry_out[8].val().w28.any() | self.entry_out[8].val().w29.any()
            | self.entry_out[8].val().w30.any() | self.entry_out[8].val().w31.any();
        self.stream_bits.next = self.packer.total.val();
        self.size_code.next = 7.into();
        self.payload.next = self.entry_out[8].val();
        if self.packer.total.val() <= self.limits[5].val() {
            self.size_code.next = 6.into();
            self.payload.next = self.packer.stream.val();
        }
        if self.packer.total.val() <= self.limits[4].val() {
            self.size_code.next = 5.into();
        }
        if self.packer.total.val() <= self.limits[3].val() {
            self.size_code.next = 4.into();
        }
        if self.packer.total.val() <= self.limits[2].val() {
            self.size_code.next = 3.into();
        }
        if self.packer.total.val() <= self.limits[1].val() {
            self.size_code.next = 2.into();
        }
        if self.packer.total.val() <= self.limits[0].val() {
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

        self.slice.in_valid.next = self.valid_out[8].val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_payload.next = self.slice.out_data.val().payload;
        self.out_class.next = self.slice.out_data.val().class;
        self.out_stream_bits.next = self.slice.out_data.val().stream_bits;
    }
}
});
