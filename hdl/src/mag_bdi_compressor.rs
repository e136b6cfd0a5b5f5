//! MAG-BDI compressor: one 128-byte memory-entry per cycle, for a MAG of
//! 16, 32 or 64 bytes chosen when the hardware is built.

use crate::delta_packing::DeltaPacker;
use crate::entry_bits::EntryBits;
use crate::mag_bdi_encodings::{encodings, EncodingSpec, RAW_CODE, UNCOMPRESSED_BITS};
use crate::mag_bdi_unit::MagBdiUnit;
use crate::register_slice::RegisterSlice;
use crate::stages::Stages;
use buddy_golden::Mag;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// What [`MagBdiCompressor`] emits per entry (one flat vector in Verilog:
/// `payload` in bits `[1023:0]`, `class` `[1027:1024]`, `stream_bits`
/// `[1038:1028]`, `encoding` `[1041:1039]`).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct MagBdiCompressed {
    /// Stored bytes as the vector `C` of docs/formats.md#stream-packing, zero past the
    /// stream; the original entry for class RAW; all zero for class ZERO.
    pub payload: EntryBits,
    /// 4-bit size class code (docs/formats.md#size-classes): 0 ZERO .. 7 RAW.
    pub class: Bits<4>,
    /// Buddy's stream length in bits, as the golden `Codec::encode_stream`:
    /// `8*k*MAG` of the stored encoding; 0 for ZERO; for RAW 1024, or 896
    /// when only MAG 16's 112-byte encoding succeeds.
    pub stream_bits: Bits<11>,
    /// The MAG-BDI paper's encoding `k` (1 ..= 128/MAG - 1), the smallest
    /// succeeding one (MAG 16 may give 3 or 7, which Buddy stores as 4 or
    /// RAW); 0 when no unit succeeds (Table III's `11`, uncompressed).
    pub encoding: Bits<3>,
}

/// Latency of [`MagBdiCompressor`] built `stages`, clock cycles (every
/// MAG): a memory-entry accepted on edge `t` is on `out_*` after edge
/// `t + latency`; the initiation interval is 1. 2 ([`Stages::Paper`]) or 4
/// ([`Stages::EightLevels`]). The testbenches measure it; the memory
/// system's hardware timing reads it (`buddy_hdl::timing`).
pub const fn latency(stages: Stages) -> u64 {
    match stages {
        Stages::Paper => 2,
        Stages::EightLevels => 4,
    }
}

/// MAG-aware Base-Delta-Immediate compression of one 128-byte memory-entry
/// per cycle (seed `002_*`, Sec. IV-E, Fig. 8-9; bits as docs/formats.md#mag-bdi).
///
/// One [`MagBdiUnit`] per encoding runs in parallel (MAG 16: 7 units of
/// `d` = 2, 6, 10, 14, 18, 22, 26 bits; MAG 32: 3 units of 6, 14, 22; MAG 64:
/// 1 unit of 14); the smallest succeeding `d` wins, and each unit whose stream
/// a size class holds exactly has a [`DeltaPacker`] feeding an AND-OR mux.
///
/// ```text
///               stage A            stage register        stage B                    register slice
/// in_entry ─┬─▶ unit k: zero-base ─▶ s1_mask[k], ──▶ unit k: w-B check ─ ok[k] ─▶ priority ─┐
///           │   check, first fail     s1_base[k]      deltas ─▶ packer k ─▶ AND-OR mux ───────┤  ┌──────────┐
///           └────────────────────▶ s1_entry ─────────────────────────────── zero / raw ───────┴▶ │main│skid│─▶ out_*
/// in_ready ◀── !s1_valid | slice ready                                                           └──────────┘◀─ out_ready
/// ```
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
/// | `out_stream_bits` | 11 | out | see [`MagBdiCompressed::stream_bits`] |
/// | `out_encoding` | 3 | out | see [`MagBdiCompressed::encoding`] |
///
/// Timing: initiation interval 1; latency [`latency`] cycles (accepted on
/// edge `t`, `out_valid` after edge `t + latency`): 2 built
/// [`Stages::Paper`] (the diagram), 4 built [`Stages::EightLevels`], which
/// adds stage 0 (the entry and each unit's fail flags, so the base
/// selection starts from flip-flops) and stage 2 (each unit's check result,
/// base and mask, and the entry's non-zero flag; the deltas are computed
/// after it). `in_ready` depends only on flip-flops; every output comes
/// from a flip-flop.
///
/// MAG 16's 48-byte encoding (`k` = 3) has no class of its own: such an
/// entry is stored with the `k` = 4 unit, which then succeeds too (success is
/// monotone in `d`, see `buddy_golden::mag_bdi`), exactly as the golden model.
#[derive(SettleBlock)]
pub struct MagBdiCompressor {
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
    pub out_encoding: Signal<Out, Bits<3>>,
    pub out_ready: Signal<In, Bit>,
    // Stages::EightLevels: stages 0 and 2 built.
    staged: Constant<Bit>,
    s0_valid: DFF<Bit>,
    s0_entry: DFF<EntryBits>,
    s0_load: Signal<Local, Bit>,
    s1_valid: DFF<Bit>,
    s1_entry: DFF<EntryBits>,
    s1_load: Signal<Local, Bit>,
    src_valid: Signal<Local, Bit>,
    src_entry: Signal<Local, EntryBits>,
    s1_nonzero: Signal<Local, Bit>,
    s2_valid: DFF<Bit>,
    s2_entry: DFF<EntryBits>,
    s2_nonzero: DFF<Bit>,
    s2_load: Signal<Local, Bit>,
    last_valid: Signal<Local, Bit>,
    last_entry: Signal<Local, EntryBits>,
    units: Vec<MagBdiUnit>,
    packers: Vec<DeltaPacker>,
    /// Per unit: the encoding `k`, the class code and stream bits Buddy
    /// stores it with, and whether a class holds the stream exactly.
    unit_k: Vec<Constant<Bits<3>>>,
    unit_code: Vec<Constant<Bits<4>>>,
    unit_bits: Vec<Constant<Bits<11>>>,
    unit_stored: Vec<Constant<Bit>>,
    uncompressed_bits: Constant<Bits<11>>,
    raw_code: Constant<Bits<4>>,
    nonzero: Signal<Local, Bit>,
    found: Signal<Local, Bit>,
    stored_found: Signal<Local, Bit>,
    any_stored: Signal<Local, Bit>,
    raw: Signal<Local, Bit>,
    select: Signal<Local, Bits<8>>,
    encoding: Signal<Local, Bits<3>>,
    code: Signal<Local, Bits<4>>,
    stream_bits: Signal<Local, Bits<11>>,
    payload: Signal<Local, EntryBits>,
    result: Signal<Local, MagBdiCompressed>,
    slice: RegisterSlice<MagBdiCompressed>,
}

/// MAG 32, the delivered configuration.
/// MAG 32, [`Stages::DELIVERED`].
impl Default for MagBdiCompressor {
    fn default() -> Self {
        Self::new(Mag::B32)
    }
}

impl MagBdiCompressor {
    /// The compressor for `mag` (16, 32 or 64 bytes), [`Stages::DELIVERED`].
    pub fn new(mag: Mag) -> Self {
        Self::with_stages(mag, Stages::DELIVERED)
    }

    /// The compressor for `mag`, pipelined as `stages` says ([`latency`]).
    pub fn with_stages(mag: Mag, stages: Stages) -> Self {
        let specs: Vec<EncodingSpec> = encodings(mag);
        MagBdiCompressor {
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
            out_encoding: Default::default(),
            out_ready: Default::default(),
            staged: Constant::new(stages.registers_inputs()),
            s0_valid: Default::default(),
            s0_entry: Default::default(),
            s0_load: Default::default(),
            s1_valid: Default::default(),
            s1_entry: Default::default(),
            s1_load: Default::default(),
            src_valid: Default::default(),
            src_entry: Default::default(),
            s1_nonzero: Default::default(),
            s2_valid: Default::default(),
            s2_entry: Default::default(),
            s2_nonzero: Default::default(),
            s2_load: Default::default(),
            last_valid: Default::default(),
            last_entry: Default::default(),
            units: specs.iter().map(|s| MagBdiUnit::new(s.delta_bits, stages)).collect(),
            packers: specs.iter().map(|s| DeltaPacker::new(s.delta_bits)).collect(),
            unit_k: specs.iter().map(|s| Constant::new((s.k as u64).into())).collect(),
            unit_code: specs.iter().map(|s| Constant::new((s.class_code as u64).into())).collect(),
            unit_bits: specs.iter().map(|s| Constant::new((s.stream_bits as u64).into())).collect(),
            unit_stored: specs.iter().map(|s| Constant::new(s.stored)).collect(),
            uncompressed_bits: Constant::new((UNCOMPRESSED_BITS as u64).into()),
            raw_code: Constant::new((RAW_CODE as u64).into()),
            nonzero: Default::default(),
            found: Default::default(),
            stored_found: Default::default(),
            any_stored: Default::default(),
            raw: Default::default(),
            select: Default::default(),
            encoding: Default::default(),
            code: Default::default(),
            stream_bits: Default::default(),
            payload: Default::default(),
            result: Default::default(),
            slice: Default::default(),
        }
    }
}

seq_macro::seq!(J in 0..32 {
impl Logic for MagBdiCompressor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s0_valid, s0_entry, s1_valid, s1_entry, s2_valid, s2_entry, s2_nonzero);
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();

        // Each stage register advances when empty or when its entry moves
        // on (the slice's ready is a flip-flop, so `in_ready` is one too);
        // the units' registers load with their stage.
        self.s2_load.next = !self.s2_valid.q.val() | self.slice.in_ready.val();
        self.s1_load.next = !self.s1_valid.q.val() | self.slice.in_ready.val();
        if self.staged.val() {
            self.s1_load.next = !self.s1_valid.q.val() | self.s2_load.val();
        }
        self.s0_load.next = !self.s0_valid.q.val() | self.s1_load.val();
        if self.staged.val() {
            self.in_ready.next = self.s0_load.val();
            self.src_valid.next = self.s0_valid.q.val();
            self.src_entry.next = self.s0_entry.q.val();
        } else {
            self.in_ready.next = self.s1_load.val();
            self.src_valid.next = self.in_valid.val();
            self.src_entry.next = self.in_entry.val();
        }
        if self.s0_load.val() {
            self.s0_valid.d.next = self.in_valid.val();
            self.s0_entry.d.next = self.in_entry.val();
        }
        if self.s1_load.val() {
            self.s1_valid.d.next = self.src_valid.val();
            self.s1_entry.d.next = self.src_entry.val();
        }
        if self.reset.val() {
            self.s0_valid.d.next = false;
            self.s1_valid.d.next = false;
        }
        for u in 0..self.units.len() {
            self.units[u].clock.next = self.clock.val();
            self.units[u].load0.next = self.s0_load.val();
            self.units[u].load1.next = self.s1_load.val();
            self.units[u].load2.next = self.s2_load.val();
            self.units[u].in_entry.next = self.in_entry.val();
            self.units[u].s0_entry.next = self.s0_entry.q.val();
            self.units[u].s1_entry.next = self.s1_entry.q.val();
            self.units[u].s2_entry.next = self.s2_entry.q.val();
        }

        // Buddy's zero detection runs before the algorithm (docs/formats.md#size-classes).
        self.s1_nonzero.next = false;
        #(
            if self.s1_entry.q.val().w~J.any() {
                self.s1_nonzero.next = true;
            }
        )*
        if self.s2_load.val() {
            self.s2_valid.d.next = self.s1_valid.q.val();
            self.s2_entry.d.next = self.s1_entry.q.val();
            self.s2_nonzero.d.next = self.s1_nonzero.val();
        }
        if self.reset.val() {
            self.s2_valid.d.next = false;
        }
        if self.staged.val() {
            self.last_valid.next = self.s2_valid.q.val();
            self.last_entry.next = self.s2_entry.q.val();
            self.nonzero.next = self.s2_nonzero.q.val();
        } else {
            self.last_valid.next = self.s1_valid.q.val();
            self.last_entry.next = self.s1_entry.q.val();
            self.nonzero.next = self.s1_nonzero.val();
        }

        // Smallest succeeding unit (the paper's encoding), and smallest
        // succeeding unit that a class holds exactly (what Buddy stores).
        self.found.next = false;
        self.stored_found.next = false;
        self.encoding.next = 0.into();
        self.code.next = self.raw_code.val();
        self.stream_bits.next = self.uncompressed_bits.val();
        self.select.next = 0.into();
        for u in 0..self.units.len() {
            if self.units[u].ok.val() & !self.found.val() {
                self.found.next = true;
                self.encoding.next = self.unit_k[u].val();
                self.stream_bits.next = self.unit_bits[u].val();
            }
            if self.units[u].ok.val() & self.unit_stored[u].val() & !self.stored_found.val() {
                self.stored_found.next = true;
                self.code.next = self.unit_code[u].val();
                self.stream_bits.next = self.unit_bits[u].val();
                self.select.next = self.select.val().replace_bit(u, true);
            }
        }
        // RAW from its own OR of the units, not from the priority chain.
        self.any_stored.next = false;
        for u in 0..self.units.len() {
            if self.units[u].ok.val() & self.unit_stored[u].val() {
                self.any_stored.next = true;
            }
        }
        self.raw.next = self.nonzero.val() & !self.any_stored.val();
        if !self.nonzero.val() {
            self.code.next = 0.into();
            self.stream_bits.next = 0.into();
        }

        for u in 0..self.units.len() {
            self.packers[u].base.next = self.units[u].base.val();
            self.packers[u].mask.next = self.units[u].mask.val();
            self.packers[u].deltas.next = self.units[u].deltas.val();
        }
        // The select gates the packers' outputs here, not their inputs: a
        // packer input written from the priority chain in this block, whose
        // outputs this block also reads, is a combinational loop to
        // Verilator (UNOPTFLAT), as one always block is one node.
        #( self.payload.next.w~J = 0.into(); )*
        for u in 0..self.units.len() {
            if self.select.val().get_bit(u) {
                #( self.payload.next.w~J = self.payload.val().w~J | self.packers[u].word~J.val(); )*
            }
        }
        if self.raw.val() {
            self.payload.next = self.last_entry.val();
        }

        self.result.next.payload = self.payload.val();
        self.result.next.class = self.code.val();
        self.result.next.stream_bits = self.stream_bits.val();
        self.result.next.encoding = self.encoding.val();

        self.slice.in_valid.next = self.last_valid.val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_payload.next = self.slice.out_data.val().payload;
        self.out_class.next = self.slice.out_data.val().class;
        self.out_stream_bits.next = self.slice.out_data.val().stream_bits;
        self.out_encoding.next = self.slice.out_data.val().encoding;
    }
}
});
