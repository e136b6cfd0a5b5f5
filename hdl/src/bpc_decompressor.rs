//! Bit-Plane Compression decompressor: one 128-byte memory-entry per cycle
//! (docs/formats.md#bpc-decoding; Kim et al. ISCA 2016; the Buddy Compression
//! paper's algorithm, Sec. IV-A, which assumes 11 cycles for it).

use crate::bpc_parse_stage::{BpcParseStage, ParsePlan, ParseState, MAX_STAGES};
use crate::bpc_rebuild::{BpcRebuildFinish, BpcRebuildSums};
use crate::decompressed_entry::DecompressedEntry;
use crate::default_array;
use crate::entry_bits::EntryBits;
use crate::register_slice::RegisterSlice;
use crate::stages::Stages;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Latency of [`BpcDecompressor`] built `stages`, clock cycles: a stream
/// accepted on edge `t` is on `out_*` after edge `t + latency`; the
/// initiation interval is 1. 7 ([`Stages::Paper`]: six parse stages and
/// the output slice) or 37 ([`Stages::EightLevels`]: the input register,
/// 34 parse stages, a register inside the rebuild, the output slice). The
/// testbenches measure it; the memory system's hardware timing reads it
/// (`buddy_hdl::timing`).
pub const fn latency(stages: Stages) -> u64 {
    // The input register and the rebuild's are built together.
    let input_and_hold = if stages.registers_inputs() { 2 } else { 0 };
    input_and_hold + ParsePlan::stages_built(stages) as u64 + 1
}

/// Registers that can be built: the input, one after each parse stage, and
/// the one between the rebuild's halves ([`HOLD`]).
const REGISTERS: usize = MAX_STAGES + 2;
/// Index of the register between the rebuild's halves.
const HOLD: usize = MAX_STAGES + 1;

/// BPC decompressor: one stored entry per cycle, exactly as the golden
/// `buddy_golden::bpc::decode` (docs/formats.md#bpc-decoding) behind the size classes of
/// docs/formats.md#size-classes.
///
/// ```text
/// in_class ──▶ (input ──▶ p1: class, base ──▶ s1 ─▶ p2: plane symbols ─▶ s2 ─▶ ... ─▶ pN ─▶ sN ─▶ rebuild: transpose, ─▶ (hold ─▶ rebuild: ─▶ slice ─▶ out_*
/// in_payload    register)  (+ symbols)                                                              sums 1-3, class      register)  sums 4-5   (main|skid)
/// load ◀── !valid | next register moves ◀── ... ◀── !valid | slice ready (a flip-flop)
/// in_ready = !(every register full: a flip-flop) | slice ready
///
/// (Registers in parentheses: built [`Stages::EightLevels`] only.)
/// ```
///
/// | build | input register | parse stages | symbols per stage | latency |
/// |---|---|---|---|---|
/// | [`Stages::Paper`] | no | 6 | 6 (stage 1: the class and the base symbol first) | 7 |
/// | [`Stages::EightLevels`] | yes | 34 | stage 1: the class and the base symbol alone; stages 2-34: one | 37 (a register between the rebuild's halves) |
///
/// | block | logic |
/// |---|---|
/// | [`BpcParseStage`] 1 | class code (ZERO, RAW, reserved, or B8..B96 and its bit count), the base-word symbol (and, built Paper, the first plane symbols) |
/// | [`BpcParseStage`] 2.. | plane symbols: kind, length, `DBP = DBX XOR prev`, error checks, plane writes, stream shift |
/// | [`BpcRebuildSums`], the class, [`BpcRebuildFinish`] | transpose of the planes into the deltas, Kogge-Stone prefix sum from the base (levels 1-3, then 4-5); RAW passes the payload, ZERO and errors give 0, both chosen before the last two levels |
///
/// A register holds the [`ParseState`]: the unread stream (shrinking from 768
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
/// Timing: initiation interval 1; latency [`latency`]: 7 cycles built
/// [`Stages::Paper`] (the Buddy paper assumes 11), 37 built
/// [`Stages::EightLevels`] (accepted on edge `t`, `out_valid` after edge
/// `t + latency`). `in_ready` depends only on flip-flops; every output
/// comes from a flip-flop.
#[derive(SettleBlock)]
pub struct BpcDecompressor {
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
    zero_entry: Constant<EntryBits>,
    /// Which registers the build has (0: the input; `k`: after stage `k`).
    built: [Constant<Bit>; REGISTERS],
    // Vecs: 35 parse states of 2,134 bits would overflow a 2 MiB thread
    // stack as arrays (rust-hdl simulates a Vec like an array).
    p: Vec<BpcParseStage>,
    s_valid: [DFF<Bit>; REGISTERS],
    s_state: Vec<DFF<ParseState>>,
    load: [Signal<Local, Bit>; REGISTERS],
    /// What leaves each register's place: its flip-flop, or (not built)
    /// what enters it.
    valid_out: [Signal<Local, Bit>; REGISTERS],
    /// The state after the last parse stage.
    last: Signal<Local, ParseState>,
    in_state: Signal<Local, ParseState>,
    rebuild_sums: BpcRebuildSums,
    /// The words so far: the partial sums, or (`done`) the RAW payload or 0.
    word: Signal<Local, EntryBits>,
    done: Signal<Local, Bit>,
    hold_word: DFF<EntryBits>,
    hold_done: DFF<Bit>,
    hold_error: DFF<Bit>,
    /// Every built register is full (the AND of their valid flags, taken
    /// as they are loaded).
    all_full: DFF<Bit>,
    all_full_next: Signal<Local, Bit>,
    held_word: Signal<Local, EntryBits>,
    held_done: Signal<Local, Bit>,
    held_error: Signal<Local, Bit>,
    rebuild_finish: BpcRebuildFinish,
    entry: Signal<Local, EntryBits>,
    result: Signal<Local, DecompressedEntry>,
    slice: RegisterSlice<DecompressedEntry>,
}

/// [`Stages::DELIVERED`].
impl Default for BpcDecompressor {
    fn default() -> Self {
        Self::new(Stages::DELIVERED)
    }
}

impl BpcDecompressor {
    /// The decompressor pipelined as `stages` says ([`latency`]).
    pub fn new(stages: Stages) -> Self {
        let parse_stages = ParsePlan::stages_built(stages);
        let built: [bool; REGISTERS] =
            std::array::from_fn(|r| if r == 0 || r == HOLD { stages.registers_inputs() } else { r <= parse_stages });
        BpcDecompressor {
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
            zero_entry: Constant::new(EntryBits::default()),
            built: built.map(Constant::new),
            p: (0..MAX_STAGES).map(|k| BpcParseStage::new(ParsePlan::of(stages, k + 1))).collect(),
            s_valid: default_array(),
            s_state: (0..HOLD).map(|_| Default::default()).collect(),
            load: default_array(),
            valid_out: default_array(),
            last: Default::default(),
            in_state: Default::default(),
            rebuild_sums: Default::default(),
            word: Default::default(),
            done: Default::default(),
            hold_word: Default::default(),
            hold_done: Default::default(),
            hold_error: Default::default(),
            all_full: Default::default(),
            all_full_next: Default::default(),
            held_word: Default::default(),
            held_done: Default::default(),
            held_error: Default::default(),
            rebuild_finish: Default::default(),
            entry: Default::default(),
            result: Default::default(),
            slice: Default::default(),
        }
    }
}

impl Logic for BpcDecompressor {
    #[hdl_gen]
    fn update(&mut self) {
        for r in 0..35 {
            self.s_state[r].clock.next = self.clock.val();
            self.s_state[r].d.next = self.s_state[r].q.val();
        }
        for r in 0..36 {
            self.s_valid[r].clock.next = self.clock.val();
            self.s_valid[r].d.next = self.s_valid[r].q.val();
        }
        dff_setup!(self, clock, hold_word, hold_done, hold_error, all_full);
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();

        // A register moves when it is empty or the next one takes its entry;
        // the chain starts at the slice's ready, a flip-flop. A register the
        // build leaves out passes the next one's load back and its input on.
        self.load[35].next = !self.s_valid[35].q.val() | self.slice.in_ready.val();
        if !self.built[35].val() {
            self.load[35].next = self.slice.in_ready.val();
        }
        for k in 0..35 {
            self.load[34 - k].next = !self.s_valid[34 - k].q.val() | self.load[35 - k].val();
            if !self.built[34 - k].val() {
                self.load[34 - k].next = self.load[35 - k].val();
            }
        }
        // The same function as `load[0]`, `!(every built register full) |
        // slice ready`, with the AND registered (`all_full`), so that
        // `in_ready` is one gate of two flip-flops and not the end of the
        // 36-register chain.
        self.in_ready.next = !self.all_full.q.val() | self.slice.in_ready.val();

        // Stage 1 reads the stored payload as the unread stream and the class.
        self.in_state.next.window = self.in_payload.val();
        self.in_state.next.planes = self.zero_entry.val();
        self.in_state.next.prev = 0.into();
        self.in_state.next.base = 0.into();
        self.in_state.next.bits_left = 0.into();
        self.in_state.next.planes_left = 0.into();
        self.in_state.next.class = self.in_class.val();
        self.in_state.next.error = false;
        if self.load[0].val() {
            self.s_valid[0].d.next = self.in_valid.val();
            self.s_state[0].d.next = self.in_state.val();
        }
        self.valid_out[0].next = self.s_valid[0].q.val();
        self.p[0].state_in.next = self.s_state[0].q.val();
        if !self.built[0].val() {
            self.valid_out[0].next = self.in_valid.val();
            self.p[0].state_in.next = self.in_state.val();
        }
        for k in 0..34 {
            if self.load[k + 1].val() {
                self.s_valid[k + 1].d.next = self.valid_out[k].val();
                self.s_state[k + 1].d.next = self.p[k].state_out.val();
            }
            self.valid_out[k + 1].next = self.s_valid[k + 1].q.val();
            if !self.built[k + 1].val() {
                self.valid_out[k + 1].next = self.valid_out[k].val();
            }
        }
        for k in 0..33 {
            self.p[k + 1].state_in.next = self.s_state[k + 1].q.val();
            if !self.built[k + 1].val() {
                self.p[k + 1].state_in.next = self.p[k].state_out.val();
            }
        }
        self.last.next = self.s_state[34].q.val();
        if !self.built[34].val() {
            self.last.next = self.p[33].state_out.val();
        }

        // The words: prefix-sum levels 1-3, and the classes that need no parse.
        // The rebuild's inputs come from the register or the stage, not
        // through `last`: Verilator could not split this block's paths
        // otherwise (UNOPTFLAT through the rebuild).
        self.rebuild_sums.planes.next = self.s_state[34].q.val().planes;
        self.rebuild_sums.base.next = self.s_state[34].q.val().base;
        if !self.built[34].val() {
            self.rebuild_sums.planes.next = self.p[33].state_out.val().planes;
            self.rebuild_sums.base.next = self.p[33].state_out.val().base;
        }
        self.word.next = self.rebuild_sums.sums.val();
        self.done.next = false;
        if self.last.val().class == 7 {
            self.word.next = self.last.val().planes;
            self.done.next = true;
        }
        if (self.last.val().class == 0) | self.last.val().error {
            self.word.next = self.zero_entry.val();
            self.done.next = true;
        }
        if self.load[35].val() {
            self.s_valid[35].d.next = self.valid_out[34].val();
            self.hold_word.d.next = self.word.val();
            self.hold_done.d.next = self.done.val();
            self.hold_error.d.next = self.last.val().error;
        }
        self.valid_out[35].next = self.s_valid[35].q.val();
        self.held_word.next = self.hold_word.q.val();
        self.held_done.next = self.hold_done.q.val();
        self.held_error.next = self.hold_error.q.val();
        if !self.built[35].val() {
            self.valid_out[35].next = self.valid_out[34].val();
            self.held_word.next = self.word.val();
            self.held_done.next = self.done.val();
            self.held_error.next = self.last.val().error;
        }

        // Prefix-sum levels 4-5.
        self.rebuild_finish.sums.next = self.hold_word.q.val();
        if !self.built[35].val() {
            self.rebuild_finish.sums.next = self.word.val();
        }
        self.entry.next = self.rebuild_finish.entry.val();
        if self.held_done.val() {
            self.entry.next = self.held_word.val();
        }
        self.result.next.entry = self.entry.val();
        self.result.next.error = self.held_error.val();

        if self.reset.val() {
            for r in 0..36 {
                self.s_valid[r].d.next = false;
            }
        }
        self.all_full_next.next = true;
        for r in 0..36 {
            if self.built[r].val() {
                self.all_full_next.next = self.all_full_next.val() & self.s_valid[r].d.val();
            }
        }
        self.all_full.d.next = self.all_full_next.val();
        self.slice.in_valid.next = self.valid_out[35].val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_entry.next = self.slice.out_data.val().entry;
        self.out_error.next = self.slice.out_data.val().error;
    }
}
