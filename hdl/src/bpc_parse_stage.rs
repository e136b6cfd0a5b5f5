//! One symbol-parsing stage of [`crate::BpcDecompressor`]: BPC plane
//! symbols (and, in stage 1, the size class and the base-word symbol)
//! decoded from the front of the unread stream (docs/formats.md#bpc-symbols, docs/formats.md#bpc-decoding).
//!
//! The parse is sequential by nature: a symbol's position is the sum of the
//! lengths before it. How many symbols a stage decodes is its build's
//! ([`ParsePlan`]). Built [`crate::Stages::Paper`], each of six stages
//! chains six decode steps on a small local window (the first 192 stream
//! bits, 225 in stage 1), each step shifting it by its symbol's length (a
//! 5-way mux of constant shifts: 32, 7, 3, 5 or 10 bits), and shifts the
//! whole unread stream once, at the end, by the bits the stage used (one
//! barrel shifter per stage). Built [`crate::Stages::EightLevels`], stage 1
//! decodes the class and the base symbol and shifts the stream by the
//! base symbol's length (a mux of five constant shifts), and each of 33
//! stages decodes one plane symbol and shifts the stream itself by that
//! symbol's length: no barrel shifter.
//!
//! Widths shrink with the stage. Before a stage's plane steps at most
//! `33 - (steps before it)` planes are left, since every step of an
//! earlier stage decoded at least one plane or ended the parse; and a plane
//! symbol is at most 32 bits, so a well-formed stream needs at most 32
//! bits per plane left: built Paper the stream kept shrinks from 768 to
//! 672, 480, 288, 96 and 0 bits after stages 1-6 (built EightLevels, from
//! 768 by 32 bits a stage once 24 planes or fewer are left), and a stage
//! writes only the planes below its largest `planes_left`.
//! Dropping the bits past that bound loses nothing: a symbol read from there
//! would follow more symbols than planes are left. Running out of input is
//! detected by the bit count `bits_left`, never from window contents.
//!
//! `#[hdl_gen]` cannot write these per-stage widths, so the block writes its
//! Verilog itself (`Verilog::Custom`) and simulates in plain Rust, like
//! [`crate::bpc_symbol_packer`]; equivalence tests and Icarus co-simulation
//! check both against the golden decoder.

use crate::entry_bits::EntryBits;
use buddy_golden::bpc::{ALL1, PLANES};
use buddy_golden::size_class::MAX_COMPRESSED_BITS as STREAM_BITS;
use buddy_golden::SizeClass;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// The parse state carried from stage to stage (one flat vector in Verilog,
/// fields from bit 0 up in this order: `window` `[1023:0]`, `planes`
/// `[2047:1024]`, `prev`, `base`, `bits_left`, `planes_left`, `class`,
/// `error`; 2,134 bits).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct ParseState {
    /// The unread stream, LSB-first: its next bit at bit 0 (docs/formats.md#stream-packing
    /// order). Before stage 1: the stored payload.
    pub window: EntryBits,
    /// `DBP[b]` of every decoded plane `b` (0..31) in bits 30..0 of word `b`
    /// (plane 32 only feeds `prev`); for class RAW the stored entry.
    pub planes: EntryBits,
    /// `DBP` of the plane decoded last (31 bits; bit 31 is 0).
    pub prev: Bits<32>,
    /// The base word `w[0]` (docs/formats.md#bpc-symbols).
    pub base: Bits<32>,
    /// Stream bits of the class not read yet (0..=768).
    pub bits_left: Bits<11>,
    /// Planes not decoded yet (0..=33); 0 ends the parse.
    pub planes_left: Bits<6>,
    /// The 4-bit size class code (docs/formats.md#size-classes).
    pub class: Bits<4>,
    /// A mandatory error of docs/formats.md#bpc-decoding (or a reserved class code) was seen.
    pub error: Bit,
}

/// Where one parse stage sits in its build: its number (1 = the first,
/// which decodes the class and the base symbol), the plane symbols the
/// stages before it decode, and its own.
///
/// [`Stages::Paper`](crate::Stages::Paper): six stages of six symbols
/// each. [`Stages::EightLevels`](crate::Stages::EightLevels): stage 1 the
/// class and the base symbol alone, stages 2..=34 one plane symbol each.
/// A stage past the last one of its build decodes nothing (its Verilog is
/// a wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsePlan {
    pub stage: usize,
    pub steps_before: usize,
    pub steps: usize,
}

/// Stream bits a well-formed stream can still need with `left` planes left.
const fn kept_bits(left: usize) -> usize {
    if 32 * left < STREAM_BITS {
        32 * left
    } else {
        STREAM_BITS
    }
}

/// Parse stages the decompressor can hold: 34 built [`crate::Stages::EightLevels`].
pub const MAX_STAGES: usize = 34;

impl ParsePlan {
    /// Stage `stage` (1..=[`MAX_STAGES`]) of the build `stages`.
    pub const fn of(stages: crate::Stages, stage: usize) -> ParsePlan {
        match stages {
            crate::Stages::Paper => {
                let steps = if stage <= 6 { 6 } else { 0 };
                let before = if stage <= 6 { 6 * (stage - 1) } else { 36 };
                ParsePlan { stage, steps_before: before, steps }
            }
            crate::Stages::EightLevels => ParsePlan { stage, steps_before: stage.saturating_sub(2), steps: if stage >= 2 { 1 } else { 0 } },
        }
    }

    /// Stages that decode something in the build `stages`: 6 or 34.
    pub const fn stages_built(stages: crate::Stages) -> usize {
        match stages {
            crate::Stages::Paper => 6,
            crate::Stages::EightLevels => MAX_STAGES,
        }
    }

    /// Planes left at most before this stage's symbols.
    const fn planes_left_before(self) -> usize {
        PLANES.saturating_sub(self.steps_before)
    }

    /// Stream bits kept in `window` after this stage: a plane symbol is at
    /// most 32 bits, so a well-formed stream needs at most 32 per plane
    /// left.
    pub const fn window_bits_after(self) -> usize {
        kept_bits(PLANES.saturating_sub(self.steps_before + self.steps))
    }

    /// Stream bits in `window` entering this stage.
    pub const fn window_bits_before(self) -> usize {
        if self.stage <= 1 {
            STREAM_BITS
        } else {
            kept_bits(self.planes_left_before())
        }
    }

    /// Planes this stage can write: those below its largest `planes_left`.
    pub const fn planes_written(self) -> usize {
        let left = self.planes_left_before();
        if self.steps == 0 {
            0
        } else if left > 32 {
            32
        } else {
            left
        }
    }
}

/// The unread stream as 32 LSB-first words, for the Rust side.
#[derive(Clone, Copy)]
struct Window([u32; 32]);

impl Window {
    fn bit(&self, i: usize) -> u32 {
        if i < 1024 {
            self.0[i / 32] >> (i % 32) & 1
        } else {
            0
        }
    }

    /// `n` bits from stream bit `at`, the first one most significant
    /// (docs/formats.md#stream-packing).
    fn field(&self, at: usize, n: usize) -> u32 {
        (0..n).fold(0, |v, j| v << 1 | self.bit(at + j))
    }

    fn shift(&mut self, n: usize) {
        let (q, r) = (n / 32, n % 32);
        let word = |j: usize| self.0.get(j).copied().unwrap_or(0);
        self.0 = std::array::from_fn(|j| if r == 0 { word(j + q) } else { word(j + q) >> r | word(j + q + 1) << (32 - r) });
    }

    fn keep(&mut self, bits: usize) {
        for (j, w) in self.0.iter_mut().enumerate() {
            let lo = 32 * j;
            if lo >= bits {
                *w = 0;
            } else if bits - lo < 32 {
                *w &= (1u32 << (bits - lo)) - 1;
            }
        }
    }
}

/// The parse state in plain Rust.
struct State {
    window: Window,
    planes: [u32; 32],
    prev: u32,
    base: u32,
    bits_left: u32,
    planes_left: u32,
    class: u32,
    error: bool,
}

impl State {
    fn from_hdl(s: &ParseState) -> Self {
        State {
            window: Window(s.window.to_words()),
            planes: s.planes.to_words(),
            prev: s.prev.to_u32(),
            base: s.base.to_u32(),
            bits_left: s.bits_left.to_u32(),
            planes_left: s.planes_left.to_u32(),
            class: s.class.to_u32(),
            error: s.error,
        }
    }

    fn to_hdl(&self) -> ParseState {
        ParseState {
            window: EntryBits::from_words(&self.window.0),
            planes: EntryBits::from_words(&self.planes),
            prev: (self.prev as u64).into(),
            base: (self.base as u64).into(),
            bits_left: (self.bits_left as u64).into(),
            planes_left: (self.planes_left as u64).into(),
            class: (self.class as u64).into(),
            error: self.error,
        }
    }

    /// Stage 1's prologue: the class and the base-word symbol (docs/formats.md#bpc-symbols).
    fn start(&mut self) {
        let payload = self.window;
        let class = self.class;
        *self =
            State { window: Window([0; 32]), planes: [0; 32], prev: 0, base: 0, bits_left: 0, planes_left: 0, class, error: class >= 8 };
        match class {
            7 => self.planes = payload.0,
            1..=6 => {
                let mut w = payload;
                w.keep(STREAM_BITS);
                let bits = SizeClass::from_code(class as u8).map_or(0, |c| 8 * c.bytes() as u32);
                let (len, base) = if w.bit(0) == 1 {
                    (33, w.field(1, 32))
                } else {
                    match w.field(1, 2) {
                        0 => (3, 0),
                        1 => (7, ((w.field(3, 4) << 28) as i32 >> 28) as u32),
                        2 => (11, ((w.field(3, 8) << 24) as i32 >> 24) as u32),
                        _ => (19, ((w.field(3, 16) << 16) as i32 >> 16) as u32),
                    }
                };
                self.error = len > bits;
                self.bits_left = bits.saturating_sub(len);
                self.planes_left = PLANES as u32;
                self.base = base;
                w.shift(len as usize);
                self.window = w;
            }
            _ => {}
        }
    }

    /// One plane symbol from the front of the window (docs/formats.md#bpc-symbols, docs/formats.md#bpc-decoding); no
    /// change once every plane is decoded.
    fn step(&mut self) {
        let left = self.planes_left;
        if left == 0 {
            return;
        }
        let (w, prev) = (&self.window, self.prev);
        let (len, n, value, bad) = if w.bit(0) == 1 {
            (32, 1, w.field(1, 31) ^ prev, false)
        } else if w.bit(1) == 1 {
            let n = w.field(2, 5) + 2;
            (7, n, prev, n > left)
        } else if w.bit(2) == 1 {
            (3, 1, prev, false)
        } else {
            let p = w.field(5, 5);
            match w.field(3, 2) {
                0 => (5, 1, ALL1 ^ prev, false),
                1 => (5, 1, 0, false),
                2 => (10, 1, ((3 << p) & ALL1) ^ prev, p > 29),
                _ => (10, 1, ((1 << p) & ALL1) ^ prev, p > 30),
            }
        };
        let short = len > self.bits_left;
        self.error |= bad | short;
        for (b, plane) in self.planes.iter_mut().enumerate() {
            let b = b as u32;
            if b < left && b + n >= left {
                *plane = value;
            }
        }
        self.prev = value;
        self.planes_left = left.saturating_sub(n);
        self.bits_left = self.bits_left.saturating_sub(len);
        self.window.shift(len as usize);
    }
}

/// Stage `plan` of the parse on `input`, in plain Rust: the reference of
/// the stage's Verilog.
pub fn parse_stage(plan: ParsePlan, input: &ParseState) -> ParseState {
    let mut s = State::from_hdl(input);
    if plan.stage == 1 {
        s.start();
    }
    for _ in 0..plan.steps {
        s.step();
    }
    s.window.keep(plan.window_bits_after());
    s.to_hdl()
}

/// A stage's plan and its last input and output (the parse runs once per
/// new input, not on every settle pass): state outside rust-hdl's signals.
#[derive(Clone)]
struct PlanState {
    plan: ParsePlan,
    last: Option<(ParseState, ParseState)>,
}

impl Logic for PlanState {
    fn update(&mut self) {}
}

impl Block for PlanState {
    fn connect_all(&mut self) {}
    fn update_all(&mut self) {}
    fn has_changed(&self) -> bool {
        false
    }
    fn accept(&self, _name: &str, _probe: &mut dyn Probe) {}
}

/// Combinational: one parse stage ([`ParsePlan`]).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `state_in` | 2134 | in | the [`ParseState`] after the stage before; for stage 1 only `window` (the stored payload) and `class` are read |
/// | `state_out` | 2134 | out | the [`ParseState`] after this stage |
///
/// Logic: (stage 1) the class decode and the base symbol; then each plane
/// step: the symbol kind from at most five leading bits, its length, its
/// plane value (`DBX XOR prev`, 0 for DBP0), the error checks (length
/// against `bits_left`, run length against `planes_left`, TWO1/ONE1
/// positions), the writes of the planes it covers, and the window shifted
/// by its length (with several steps a local window, and the unread stream
/// shifted once at the end by the bits used; with one step or none, the
/// stream itself by a mux of the constant shifts).
#[derive(SettleBlock)]
pub struct BpcParseStage {
    _settle: crate::settle::Settle,
    pub state_in: Signal<In, ParseState>,
    pub state_out: Signal<Out, ParseState>,
    plan: PlanState,
}

impl BpcParseStage {
    /// The stage `plan` describes.
    pub fn new(plan: ParsePlan) -> Self {
        BpcParseStage { _settle: Default::default(), state_in: Default::default(), state_out: Default::default(), plan: PlanState { plan, last: None } }
    }
}

impl Default for BpcParseStage {
    fn default() -> Self {
        Self::new(ParsePlan::of(crate::Stages::DELIVERED, 1))
    }
}

impl Logic for BpcParseStage {
    fn update(&mut self) {
        let input = self.state_in.val();
        let out = match &self.plan.last {
            Some((i, o)) if *i == input => *o,
            _ => {
                let o = parse_stage(self.plan.plan, &input);
                self.plan.last = Some((input, o));
                o
            }
        };
        self.state_out.next = out;
    }

    fn connect(&mut self) {
        self.state_out.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(stage_verilog(self.plan.plan))
    }
}

/// Bit offsets of the [`ParseState`] fields in its flat vector.
struct Offsets {
    window: usize,
    planes: usize,
    prev: usize,
    base: usize,
    bits_left: usize,
    planes_left: usize,
    class: usize,
    error: usize,
}

fn offsets() -> Offsets {
    let s = ParseState::default();
    Offsets {
        window: s.get_my_offset_window(),
        planes: s.get_my_offset_planes(),
        prev: s.get_my_offset_prev(),
        base: s.get_my_offset_base(),
        bits_left: s.get_my_offset_bits_left(),
        planes_left: s.get_my_offset_planes_left(),
        class: s.get_my_offset_class(),
        error: s.get_my_offset_error(),
    }
}

/// `{v[from], v[from+1], ..., v[from+n-1]}`: `n` stream bits as a value whose
/// most significant bit is the first one read.
fn msb_first(v: &str, from: usize, n: usize) -> String {
    let bits: Vec<String> = (from..from + n).map(|i| format!("{v}[{i}]")).collect();
    format!("{{{}}}", bits.join(", "))
}

/// `x < k` for the `width`-bit unsigned signal `x` and the constant `k`, as
/// an OR of AND terms on `x`'s bits (one per 1-bit of `k`: `x` equal to `k`
/// above that bit and 0 at it), so that synthesis sees plain logic, not a
/// comparator.
fn below_const(x: &str, width: usize, k: usize) -> String {
    if k >= 1 << width {
        return "1'b1".into();
    }
    let terms: Vec<String> = (0..width)
        .rev()
        .filter(|&i| k >> i & 1 == 1)
        .map(|i| {
            let bits: Vec<String> =
                (i..width).rev().map(|j| if j == i || k >> j & 1 == 0 { format!("!{x}[{j}]") } else { format!("{x}[{j}]") }).collect();
            format!("({})", bits.join(" & "))
        })
        .collect();
    if terms.is_empty() {
        "1'b0".into()
    } else {
        format!("({})", terms.join(" | "))
    }
}

/// `win >> n` cut to its low `w` bits, `win` being `w_in` bits wide.
fn shifted(n: usize, w: usize, w_in: usize) -> String {
    if n + w <= w_in {
        format!("win[{n}+:{w}]")
    } else if n < w_in {
        format!("{{{}'d0, win[{}:{n}]}}", n + w - w_in, w_in - 1)
    } else {
        format!("{w}'d0")
    }
}

/// The shifts a plane symbol can make, as a Verilog mux of `win`
/// (`w_in` bits) cut to `w` bits: by its length, or none when no plane is
/// left.
fn symbol_shift(w: usize, w_in: usize) -> String {
    let by = |n: usize| shifted(n, w, w_in);
    format!("!act_0 ? {} : k_raw_0 ? {} : k_zrun_0 ? {} : k_zero1_0 ? {} : c_0[1] ? {} : {}", by(0), by(32), by(7), by(3), by(10), by(5))
}

/// The Verilog body of stage `plan`.
fn stage_verilog(plan: ParsePlan) -> String {
    let o = offsets();
    let (stage, steps) = (plan.stage, plan.steps);
    let w_in = plan.window_bits_before();
    let w_out = plan.window_bits_after();
    if stage > 1 && steps == 0 {
        return format!(
            "// BPC decompressor parse stage {stage}: nothing left to decode in this build.\nalways @(*) state_out = state_in;\n"
        );
    }
    // Several steps read a local window and the stream is shifted once by
    // the bits they used; one step (or the base symbol alone) shifts the
    // stream itself.
    let local = steps >= 2;
    let local_bits = 32 * steps.max(1);
    let mut v = format!(
        "// BPC decompressor parse stage {stage}: {}{steps} plane symbol(s); stream window {w_in} -> {w_out} bits.\n",
        if stage == 1 { "class, base symbol and " } else { "up to " }
    );
    // Signals entering the first plane step: loc_0, left_0, bl_0, prev_0, err_0, used_0.
    if stage == 1 {
        v += &format!("wire [3:0] class_in = state_in[{}+:4];\n", o.class);
        v += &format!("wire [767:0] win = state_in[{}+:768];\n", o.window);
        v += &format!("wire [1023:0] payload = state_in[{}+:1024];\n", o.window);
        v += "wire cls_stream = (class_in != 4'd0) && (class_in <= 4'd6);\n";
        v += "wire cls_raw = class_in == 4'd7;\n";
        v += "wire [10:0] class_bits = (class_in == 4'd1) ? 11'd64 : (class_in == 4'd2) ? 11'd128 : (class_in == 4'd3) ? 11'd256\n    : (class_in == 4'd4) ? 11'd512 : (class_in == 4'd5) ? 11'd640 : 11'd768;\n";
        // The base symbol reads bits 0..32; the plane steps a local window behind it.
        let bw = if steps > 0 { 33 + local_bits } else { 33 };
        v += &format!("wire [{}:0] bw = win[{}:0];\n", bw - 1, bw - 1);
        v += "wire [1:0] base_c = {bw[1], bw[2]};\n";
        v +=
            "wire [5:0] base_len = bw[0] ? 6'd33 : (base_c == 2'd0) ? 6'd3 : (base_c == 2'd1) ? 6'd7 : (base_c == 2'd2) ? 6'd11 : 6'd19;\n";
        v += &format!("wire [31:0] base_raw = {};\n", msb_first("bw", 1, 32));
        v += &format!("wire [3:0] base4 = {};\n", msb_first("bw", 3, 4));
        v += &format!("wire [7:0] base8 = {};\n", msb_first("bw", 3, 8));
        v += &format!("wire [15:0] base16 = {};\n", msb_first("bw", 3, 16));
        v += "wire [31:0] base_value = bw[0] ? base_raw : (base_c == 2'd0) ? 32'd0 : (base_c == 2'd1) ? {{28{base4[3]}}, base4}\n    : (base_c == 2'd2) ? {{24{base8[7]}}, base8} : {{16{base16[15]}}, base16};\n";
        v += "wire base_short = {5'd0, base_len} > class_bits;\n";
        if steps > 0 {
            v += &format!(
                "wire [{h}:0] loc_0 = !cls_stream ? {L}'d0 : bw[0] ? bw[33+:{L}] : (base_c == 2'd0) ? bw[3+:{L}] : (base_c == 2'd1) ? bw[7+:{L}]\n    : (base_c == 2'd2) ? bw[11+:{L}] : bw[19+:{L}];\n",
                h = local_bits - 1,
                L = local_bits
            );
        }
        v += "wire [5:0] left_0 = cls_stream ? 6'd33 : 6'd0;\n";
        v += "wire [10:0] bl_0 = (cls_stream && !base_short) ? class_bits - {5'd0, base_len} : 11'd0;\n";
        v += "wire [30:0] prev_0 = 31'd0;\n";
        v += "wire err_0 = class_in[3] | (cls_stream & base_short);\n";
        if local {
            v += "wire [7:0] used_0 = cls_stream ? {2'd0, base_len} : 8'd0;\n";
        }
        v += "wire [31:0] base_out = cls_stream ? base_value : 32'd0;\n";
        v += "wire [1023:0] pl_start = cls_raw ? payload : 1024'd0;\n";
    } else {
        if w_in > 0 {
            v += &format!("wire [{}:0] win = state_in[{}+:{w_in}];\n", w_in - 1, o.window);
        }
        let loc = if w_in >= local_bits {
            format!("win[{}:0]", local_bits - 1)
        } else if w_in > 0 {
            format!("{{{}'d0, win}}", local_bits - w_in)
        } else {
            format!("{local_bits}'d0")
        };
        v += &format!("wire [{}:0] loc_0 = {loc};\n", local_bits - 1);
        v += &format!("wire [5:0] left_0 = state_in[{}+:6];\n", o.planes_left);
        v += &format!("wire [10:0] bl_0 = state_in[{}+:11];\n", o.bits_left);
        v += &format!("wire [30:0] prev_0 = state_in[{}+:31];\n", o.prev);
        v += &format!("wire err_0 = state_in[{}];\n", o.error);
        if w_out > 0 && local {
            v += "wire [7:0] used_0 = 8'd0;\n";
        }
        v += &format!("wire [31:0] base_out = state_in[{}+:32];\n", o.base);
        v += &format!("wire [1023:0] pl_start = state_in[{}+:1024];\n", o.planes);
    }
    for i in 0..steps {
        let j = i + 1;
        v += &format!("// plane step {i}\n");
        v += &format!("wire act_{i} = left_{i} != 6'd0;\n");
        v += &format!("wire k_raw_{i} = loc_{i}[0];\n");
        v += &format!("wire k_zrun_{i} = !loc_{i}[0] & loc_{i}[1];\n");
        v += &format!("wire k_zero1_{i} = loc_{i}[2:0] == 3'b100;\n");
        v += &format!("wire k_short_{i} = loc_{i}[2:0] == 3'b000;\n");
        v += &format!("wire [1:0] c_{i} = {{loc_{i}[3], loc_{i}[4]}};\n");
        v += &format!("wire [4:0] f_{i} = {};\n", msb_first(&format!("loc_{i}"), 2, 5));
        v += &format!("wire [4:0] p_{i} = {};\n", msb_first(&format!("loc_{i}"), 5, 5));
        v += &format!("wire [30:0] r_{i} = {};\n", msb_first(&format!("loc_{i}"), 1, 31));
        v += &format!("wire [5:0] len_{i} = k_raw_{i} ? 6'd32 : k_zrun_{i} ? 6'd7 : k_zero1_{i} ? 6'd3 : c_{i}[1] ? 6'd10 : 6'd5;\n");
        v += &format!("wire [5:0] n_{i} = k_zrun_{i} ? {{1'b0, f_{i}}} + 6'd2 : 6'd1;\n");
        // `1 << p` and `3 << p` (cut to 31 bits) as decoders, not shifters:
        // Yosys' SAT-based resource sharing stalls on dozens of `$shl` cells.
        let one: Vec<String> = (0..31).rev().map(|k| format!("(p_{i} == 5'd{k})")).collect();
        let two: Vec<String> = (0..31)
            .rev()
            .map(|k| if k == 0 { format!("(p_{i} == 5'd0)") } else { format!("(p_{i} == 5'd{k}) | (p_{i} == 5'd{})", k - 1) })
            .collect();
        v += &format!("wire [30:0] one_{i} = {{{}}};\n", one.join(", "));
        v += &format!("wire [30:0] two_{i} = {{{}}};\n", two.join(", "));
        v += &format!(
            "wire [30:0] v_{i} = k_raw_{i} ? (r_{i} ^ prev_{i}) : (k_zrun_{i} | k_zero1_{i}) ? prev_{i} : (c_{i} == 2'd0) ? ~prev_{i}\n    : (c_{i} == 2'd1) ? 31'd0 : (c_{i} == 2'd2) ? (two_{i} ^ prev_{i}) : (one_{i} ^ prev_{i});\n"
        );
        // The checks and the planes a symbol covers compare `left` and
        // `bl` (from the stage's register) with constants and look the
        // result up by the run field `f`: no adder or comparator, whose
        // carry chain would split the path for the LUT mapper.
        // `le_i[t]` = `left_i <= t` (`left_i < t + 1`), t up to the last
        // one read, `f + b + 2` for the highest plane `b` written.
        let le_bits = plan.planes_written() + 33;
        let le: Vec<String> = (0..le_bits).rev().map(|t| below_const(&format!("left_{i}"), 6, t + 1)).collect();
        v += &format!("wire [{}:0] le_{i} = {{{}}};\n", le_bits - 1, le.join(",\n    "));
        // Run too long (`n = f + 2 > left`), and run reaching the last plane (`n >= left`).
        v += &format!("wire [31:0] le_f1_{i} = le_{i}[32:1];\nwire [31:0] le_f2_{i} = le_{i}[33:2];\n");
        v += &format!(
            "wire bad_{i} = (k_zrun_{i} & le_f1_{i}[f_{i}]) | (k_short_{i} & (c_{i} == 2'd2) & (&p_{i}[4:1])) | (k_short_{i} & (c_{i} == 2'd3) & (&p_{i}));\n"
        );
        v += &format!("wire ends_{i} = k_zrun_{i} ? le_f2_{i}[f_{i}] : le_{i}[1];\n");
        let below = |k: usize| below_const(&format!("bl_{i}"), 11, k);
        v += &format!(
            "wire over_{i} = k_raw_{i} ? {} : k_zrun_{i} ? {} : k_zero1_{i} ? {} : c_{i}[1] ? {} : {};\n",
            below(32),
            below(7),
            below(3),
            below(10),
            below(5)
        );
        v += &format!("wire err_{j} = err_{i} | (act_{i} & (bad_{i} | over_{i}));\n");
        v += &format!("wire [5:0] left_{j} = !act_{i} ? left_{i} : ends_{i} ? 6'd0 : left_{i} - n_{i};\n");
        v += &format!("wire [10:0] bl_{j} = !act_{i} ? bl_{i} : over_{i} ? 11'd0 : bl_{i} - {{5'd0, len_{i}}};\n");
        v += &format!("wire [30:0] prev_{j} = act_{i} ? v_{i} : prev_{i};\n");
        if w_out > 0 && local {
            v += &format!("wire [7:0] used_{j} = used_{i} + (act_{i} ? {{2'd0, len_{i}}} : 8'd0);\n");
        }
        // The local window shrinks by 32 bits a step: step i reads only its
        // first 32 (steps - i) bits.
        if j < steps {
            let w = 32 * (steps - j);
            v += &format!(
                "wire [{}:0] loc_{j} = !act_{i} ? loc_{i}[{}:0] : k_raw_{i} ? loc_{i}[32+:{w}] : k_zrun_{i} ? loc_{i}[7+:{w}] : k_zero1_{i} ? loc_{i}[3+:{w}]\n    : c_{i}[1] ? loc_{i}[10+:{w}] : loc_{i}[5+:{w}];\n",
                w - 1,
                w - 1
            );
        }
        // Plane b is covered when left - n <= b < left: `b < left` is
        // `!le[b]`, `n + b >= left` is `le[f + b + 2]` for a run, `le[b + 1]` else.
        for b in 0..plan.planes_written() {
            v += &format!(
                "wire [31:0] le_f{b}b_{i} = le_{i}[{}:{}];\nwire w{b}_{i} = act_{i} & !le_{i}[{b}] & (k_zrun_{i} ? le_f{b}b_{i}[f_{i}] : le_{i}[{}]);\n",
                b + 33,
                b + 2,
                b + 1
            );
        }
    }
    let s = steps;
    if w_out > 0 && !local {
        // The stream shifted by a mux of the constant shifts, cut to the stage's bound.
        let shifted = if stage == 1 {
            let by = |n: usize| shifted(n, w_out, w_in);
            format!(
                "!cls_stream ? {w_out}'d0 : bw[0] ? {} : (base_c == 2'd0) ? {} : (base_c == 2'd1) ? {} : (base_c == 2'd2) ? {} : {}",
                by(33),
                by(3),
                by(7),
                by(11),
                by(19)
            )
        } else {
            symbol_shift(w_out, w_in)
        };
        v += &format!("wire [{}:0] win_out = {shifted};\n", w_out - 1);
    }
    v += "always @(*) begin\n";
    v += "    state_out = state_in;\n";
    v += &format!("    state_out[{}+:1024] = 1024'd0;\n", o.window);
    if w_out > 0 && local {
        // Shifted at full width, then cut to the stage's bound.
        let shifted = if stage == 1 { format!("(cls_stream ? (win >> used_{s}) : 768'd0)") } else { format!("(win >> used_{s})") };
        v += &format!("    state_out[{}+:{w_in}] = {shifted};\n", o.window);
        if w_in > w_out {
            v += &format!("    state_out[{}+:{}] = {}'d0;\n", o.window + w_out, w_in - w_out, w_in - w_out);
        }
    } else if w_out > 0 {
        v += &format!("    state_out[{}+:{w_out}] = win_out;\n", o.window);
    }
    v += &format!("    state_out[{}+:1024] = pl_start;\n", o.planes);
    for b in 0..plan.planes_written() {
        let mut expr = format!("pl_start[{}+:31]", 32 * b);
        for i in 0..steps {
            expr = format!("w{b}_{i} ? v_{i} : {expr}");
        }
        v += &format!("    state_out[{}+:31] = {expr};\n", o.planes + 32 * b);
    }
    v += &format!("    state_out[{}+:32] = {{1'b0, prev_{s}}};\n", o.prev);
    v += &format!("    state_out[{}+:32] = base_out;\n", o.base);
    v += &format!("    state_out[{}+:11] = bl_{s};\n", o.bits_left);
    v += &format!("    state_out[{}+:6] = left_{s};\n", o.planes_left);
    v += &format!("    state_out[{}] = err_{s};\n", o.error);
    v + "end\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Stages;

    /// `below_const` as Verilog, evaluated on every value of the signal.
    #[test]
    fn below_const_is_less_than() {
        for width in [3usize, 6] {
            for k in 0..=(1usize << width) + 2 {
                let e = below_const("x", width, k);
                for x in 0..1usize << width {
                    let mut t = e.clone();
                    for j in 0..width {
                        t = t.replace(&format!("!x[{j}]"), if x >> j & 1 == 1 { "0" } else { "1" });
                        t = t.replace(&format!("x[{j}]"), if x >> j & 1 == 1 { "1" } else { "0" });
                    }
                    let t = t.replace("1'b1", "1").replace("1'b0", "0").replace(' ', "");
                    assert_eq!(eval(&t), x < k, "x = {x}, k = {k}: {e}");
                }
            }
        }
    }

    /// Evaluates an expression of 0, 1, `&`, `|` and parentheses.
    fn eval(t: &str) -> bool {
        fn or(s: &[u8], i: &mut usize) -> bool {
            let mut v = and(s, i);
            while *i < s.len() && s[*i] == b'|' {
                *i += 1;
                v |= and(s, i);
            }
            v
        }
        fn and(s: &[u8], i: &mut usize) -> bool {
            let mut v = atom(s, i);
            while *i < s.len() && s[*i] == b'&' {
                *i += 1;
                v &= atom(s, i);
            }
            v
        }
        fn atom(s: &[u8], i: &mut usize) -> bool {
            let c = s[*i];
            *i += 1;
            match c {
                b'(' => {
                    let v = or(s, i);
                    *i += 1;
                    v
                }
                b'1' => true,
                _ => false,
            }
        }
        let mut i = 0;
        or(t.as_bytes(), &mut i)
    }

    #[test]
    fn widths_follow_the_planes_left() {
        let paper: Vec<ParsePlan> = (1..=6).map(|k| ParsePlan::of(Stages::Paper, k)).collect();
        let after: Vec<usize> = paper.iter().map(|p| p.window_bits_after()).collect();
        assert_eq!(after, [768, 672, 480, 288, 96, 0]);
        let written: Vec<usize> = paper.iter().map(|p| p.planes_written()).collect();
        assert_eq!(written, [32, 27, 21, 15, 9, 3]);
        assert_eq!(ParsePlan::of(Stages::Paper, 7).steps, 0);
        // Stage 1 of the 8-level build reads the class and the base only;
        // 33 stages of one step follow.
        let eight: Vec<ParsePlan> = (1..=MAX_STAGES).map(|k| ParsePlan::of(Stages::EightLevels, k)).collect();
        assert_eq!((eight[0].steps, eight[0].window_bits_after(), eight[0].planes_written()), (0, 768, 0));
        assert_eq!((eight[1].planes_written(), eight[1].window_bits_after()), (32, 768));
        assert_eq!((eight[33].window_bits_before(), eight[33].window_bits_after(), eight[33].planes_written()), (32, 0, 1));
        for stages in Stages::ALL {
            let plans = (1..=MAX_STAGES).map(|k| ParsePlan::of(stages, k));
            assert_eq!(plans.map(|p| p.steps).sum::<usize>().min(PLANES), PLANES, "{stages:?} decodes every plane");
        }
    }

    #[test]
    fn offsets_match_the_flat_vector() {
        let o = offsets();
        assert_eq!((o.window, o.planes, o.prev, o.base), (0, 1024, 2048, 2080));
        assert_eq!((o.bits_left, o.planes_left, o.class, o.error), (2112, 2123, 2129, 2133));
        assert_eq!(ParseState::BITS, 2134);
        let s = ParseState { error: true, ..Default::default() };
        let bits: Bits<2134> = s.into();
        assert!(bits.get_bit(2133));
    }

    #[test]
    fn window_fields_are_msb_first() {
        let mut w = Window([0; 32]);
        w.0[0] = 0b1101;
        assert_eq!(w.field(0, 4), 0b1011);
        w.shift(2);
        assert_eq!(w.0[0], 0b11);
        w.0[1] = u32::MAX;
        w.keep(40);
        assert_eq!(w.0[1], 0xFF);
    }
}
