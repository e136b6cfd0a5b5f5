//! Bit-Plane Compression of one 128-byte memory-entry per cycle
//! (`shared/spec/bpc.md`; Kim et al. ISCA 2016; the Buddy Compression
//! paper's algorithm, Sec. IV-A).

use crate::bpc_symbol_packer::SymbolPacker;
use crate::entry_bits::EntryBits;
use crate::register_slice::RegisterSlice;
use rust_hdl::prelude::*;

/// What [`BpcCompressor`] emits per entry (one flat vector in Verilog:
/// `payload` in bits `[1023:0]`, `class` `[1027:1024]`, `stream_bits`
/// `[1038:1028]`).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct BpcCompressed {
    /// Stored bytes as the vector `C` of formats.md §1: the stream, zero
    /// past its end; the original entry for class RAW; zero for ZERO.
    pub payload: EntryBits,
    /// 4-bit size class code (formats.md §2): 0 ZERO .. 7 RAW.
    pub class: Bits<4>,
    /// The stream's exact length in bits (10..=1089; 0 for ZERO; above 768
    /// for RAW, the length the stream would have had).
    pub stream_bits: Bits<11>,
}

/// Planes (33-bit deltas) and symbol slots (base prefix, base payload, planes).
const PLANES: usize = 33;

seq_macro::seq!(J in 0..35 {
/// BPC compressor: one memory-entry per cycle, exactly as the golden
/// `buddy_golden::Bpc` (bpc.md §2-§7, §10).
///
/// ```text
///  s1: input    comb: DBX transform,          s2      comb: zero-run merge,   s3      comb: packing tree   slice
///  register ─▶ per-plane symbol, base symbol ─▶ reg ─▶ symbol slots         ─▶ reg ─▶ (6 levels), class ─▶ main|skid ─▶ out_*
/// in_ready ◀── !s1_valid | s2 moves ◀── !s2_valid | s3 moves ◀── !s3_valid | slice ready (a flip-flop)
/// ```
///
/// | stage | logic |
/// |---|---|
/// | s1 → s2 | 31 deltas `w[k+1] - w[k]` and their signs (signed compare), the 33 bit-planes (a transpose: wiring), `DBX[b] = DBP[b] ^ DBP[b+1]`; per plane in parallel: zero, ALL1, DBP0, TWO1 (`x == l \| l << 1`, `l = x & -x`), ONE1 (`x == l`), the position of `l` (an OR encoder), the symbol by the mandatory priority; the base-word class (3 adds and compares) |
/// | s2 → s3 | zero-run lengths (a chain over the 33 zero flags), run starts, ZERO1 / ZRUN symbols, 35 slots in emission order |
/// | s3 → slice | [`SymbolPacker`]: bit-reverse each slot, shift-OR tree of 6 levels; class by the total length, RAW above 768 bits, ZERO for an all-zero entry |
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock` | 1 | in | rising-edge clock |
/// | `reset` | 1 | in | synchronous, active high; empties the pipeline |
/// | `in_valid`, `in_ready` | 1, 1 | in, out | input handshake |
/// | `in_entry` | 1024 | in | the entry, `w[i]` at `[32i +: 32]` |
/// | `out_valid`, `out_ready` | 1, 1 | out, in | output handshake |
/// | `out_payload` | 1024 | out | stored bytes, formats.md §1 packing |
/// | `out_class` | 4 | out | size class code 0..7 |
/// | `out_stream_bits` | 11 | out | see [`BpcCompressed::stream_bits`] |
///
/// Timing: initiation interval 1; latency 4 cycles (accepted on edge `t`,
/// `out_valid` after edge `t + 4`). `in_ready` depends only on flip-flops;
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
    msb: Constant<Bits<32>>,
    all1: Constant<Bits<32>>,
    index: [Constant<Bits<32>>; 31],
    limits: [Constant<Bits<11>>; 6],
    zero_entry: Constant<EntryBits>,
    // Stage 1: input register and the transform.
    s1_valid: DFF<Bit>,
    s1_entry: DFF<EntryBits>,
    s1_load: Signal<Local, Bit>,
    w: [Signal<Local, Bits<32>>; 32],
    lo: [Signal<Local, Bits<32>>; 31],
    signs: Signal<Local, Bits<32>>,
    dbp: [Signal<Local, Bits<32>>; PLANES],
    dbx: [Signal<Local, Bits<32>>; PLANES],
    low: [Signal<Local, Bits<32>>; PLANES],
    pos: [Signal<Local, Bits<32>>; PLANES],
    code: [Signal<Local, Bits<32>>; PLANES],
    len: [Signal<Local, Bits<32>>; PLANES],
    base_sums: [Signal<Local, Bits<32>>; 3],
    base_code: Signal<Local, Bits<32>>,
    base_len: Signal<Local, Bits<32>>,
    base_raw: Signal<Local, Bit>,
    // Stage 2: per-plane symbols.
    s2_valid: DFF<Bit>,
    s2_entry: DFF<EntryBits>,
    s2_load: Signal<Local, Bit>,
    s2_zero: [DFF<Bit>; PLANES],
    s2_code: [DFF<Bits<32>>; PLANES],
    s2_len: [DFF<Bits<32>>; PLANES],
    s2_base_code: DFF<Bits<32>>,
    s2_base_len: DFF<Bits<32>>,
    s2_base_raw: DFF<Bit>,
    run: [Signal<Local, Bits<32>>; PLANES],
    start: [Signal<Local, Bit>; PLANES],
    run_less2: [Signal<Local, Bits<32>>; PLANES],
    slot_code: [Signal<Local, Bits<32>>; 35],
    slot_len: [Signal<Local, Bits<32>>; 35],
    // Stage 3: symbol slots in emission order.
    s3_valid: DFF<Bit>,
    s3_entry: DFF<EntryBits>,
    s3_load: Signal<Local, Bit>,
    s3_code: [DFF<Bits<32>>; 35],
    s3_len: [DFF<Bits<32>>; 35],
    packer: SymbolPacker,
    nonzero: Signal<Local, Bit>,
    size_code: Signal<Local, Bits<4>>,
    stream_bits: Signal<Local, Bits<11>>,
    payload: Signal<Local, EntryBits>,
    result: Signal<Local, BpcCompressed>,
    slice: RegisterSlice<BpcCompressed>,
}

fn arr<T: Default, const M: usize>() -> [T; M] {
    std::array::from_fn(|_| T::default())
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
            msb: Constant::new(0x8000_0000u64.into()),
            all1: Constant::new(0x7FFF_FFFFu64.into()),
            index: std::array::from_fn(|j| Constant::new((j as u64).into())),
            // Class limits in stream bits: B8 .. B96 hold 64, 128, 256, 512, 640, 768.
            limits: [64u64, 128, 256, 512, 640, 768].map(|b| Constant::new(b.into())),
            zero_entry: Constant::new(EntryBits::default()),
            s1_valid: Default::default(),
            s1_entry: Default::default(),
            s1_load: Default::default(),
            w: arr(),
            lo: arr(),
            signs: Default::default(),
            dbp: arr(),
            dbx: arr(),
            low: arr(),
            pos: arr(),
            code: arr(),
            len: arr(),
            base_sums: arr(),
            base_code: Default::default(),
            base_len: Default::default(),
            base_raw: Default::default(),
            s2_valid: Default::default(),
            s2_entry: Default::default(),
            s2_load: Default::default(),
            s2_zero: arr(),
            s2_code: arr(),
            s2_len: arr(),
            s2_base_code: Default::default(),
            s2_base_len: Default::default(),
            s2_base_raw: Default::default(),
            run: arr(),
            start: arr(),
            run_less2: arr(),
            slot_code: arr(),
            slot_len: arr(),
            s3_valid: Default::default(),
            s3_entry: Default::default(),
            s3_load: Default::default(),
            s3_code: arr(),
            s3_len: arr(),
            packer: Default::default(),
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
        dff_setup!(self, clock, s1_valid, s1_entry, s2_valid, s2_entry, s2_base_code, s2_base_len, s2_base_raw, s3_valid, s3_entry);
        for b in 0..33 {
            self.s2_zero[b].clock.next = self.clock.val();
            self.s2_zero[b].d.next = self.s2_zero[b].q.val();
            self.s2_code[b].clock.next = self.clock.val();
            self.s2_code[b].d.next = self.s2_code[b].q.val();
            self.s2_len[b].clock.next = self.clock.val();
            self.s2_len[b].d.next = self.s2_len[b].q.val();
        }
        for s in 0..35 {
            self.s3_code[s].clock.next = self.clock.val();
            self.s3_code[s].d.next = self.s3_code[s].q.val();
            self.s3_len[s].clock.next = self.clock.val();
            self.s3_len[s].d.next = self.s3_len[s].q.val();
        }
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();

        // A stage moves when it is empty or the next one takes its entry; the
        // chain starts at the slice's ready, a flip-flop.
        self.s3_load.next = !self.s3_valid.q.val() | self.slice.in_ready.val();
        self.s2_load.next = !self.s2_valid.q.val() | self.s3_load.val();
        self.s1_load.next = !self.s1_valid.q.val() | self.s2_load.val();
        self.in_ready.next = self.s1_load.val();
        if self.s1_load.val() {
            self.s1_valid.d.next = self.in_valid.val();
            self.s1_entry.d.next = self.in_entry.val();
        }

        // ---- s1 -> s2: the DBX transform and each plane's symbol (bpc.md §2, §5).
        self.w[0].next = self.s1_entry.q.val().w0;
        self.w[1].next = self.s1_entry.q.val().w1;
        self.w[2].next = self.s1_entry.q.val().w2;
        self.w[3].next = self.s1_entry.q.val().w3;
        self.w[4].next = self.s1_entry.q.val().w4;
        self.w[5].next = self.s1_entry.q.val().w5;
        self.w[6].next = self.s1_entry.q.val().w6;
        self.w[7].next = self.s1_entry.q.val().w7;
        self.w[8].next = self.s1_entry.q.val().w8;
        self.w[9].next = self.s1_entry.q.val().w9;
        self.w[10].next = self.s1_entry.q.val().w10;
        self.w[11].next = self.s1_entry.q.val().w11;
        self.w[12].next = self.s1_entry.q.val().w12;
        self.w[13].next = self.s1_entry.q.val().w13;
        self.w[14].next = self.s1_entry.q.val().w14;
        self.w[15].next = self.s1_entry.q.val().w15;
        self.w[16].next = self.s1_entry.q.val().w16;
        self.w[17].next = self.s1_entry.q.val().w17;
        self.w[18].next = self.s1_entry.q.val().w18;
        self.w[19].next = self.s1_entry.q.val().w19;
        self.w[20].next = self.s1_entry.q.val().w20;
        self.w[21].next = self.s1_entry.q.val().w21;
        self.w[22].next = self.s1_entry.q.val().w22;
        self.w[23].next = self.s1_entry.q.val().w23;
        self.w[24].next = self.s1_entry.q.val().w24;
        self.w[25].next = self.s1_entry.q.val().w25;
        self.w[26].next = self.s1_entry.q.val().w26;
        self.w[27].next = self.s1_entry.q.val().w27;
        self.w[28].next = self.s1_entry.q.val().w28;
        self.w[29].next = self.s1_entry.q.val().w29;
        self.w[30].next = self.s1_entry.q.val().w30;
        self.w[31].next = self.s1_entry.q.val().w31;
        // Deltas mod 2^32 and their signs: bit 32 of the 33-bit signed
        // difference is s(w[k+1]) < s(w[k]), an unsigned compare with the
        // sign bits flipped.
        self.signs.next = 0.into();
        for k in 0..31 {
            self.lo[k].next = self.w[k + 1].val() - self.w[k].val();
            self.signs.next = self.signs.val().replace_bit(k, (self.w[k + 1].val() ^ self.msb.val()) < (self.w[k].val() ^ self.msb.val()));
        }
        // Bit-planes: a transpose, pure wiring.
        for b in 0..32 {
            self.dbp[b].next = 0.into();
            for k in 0..31 {
                self.dbp[b].next = self.dbp[b].val().replace_bit(k, self.lo[k].val().get_bit(b));
            }
        }
        self.dbp[32].next = self.signs.val();
        for b in 0..32 {
            self.dbx[b].next = self.dbp[b].val() ^ self.dbp[b + 1].val();
        }
        self.dbx[32].next = self.dbp[32].val();
        for b in 0..33 {
            // Lowest set bit and its position.
            self.low[b].next = self.dbx[b].val() & ((!self.dbx[b].val()) + bits::<32>(1));
            self.pos[b].next = 0.into();
            for j in 0..31 {
                if self.low[b].val().get_bit(j) {
                    self.pos[b].next = self.index[j].val();
                }
            }
            // Mandatory priority, lowest first so that the last match wins:
            // RAW, ONE1, TWO1, DBP0, ALL1 (code word and payload, MSB first).
            self.code[b].next = self.msb.val() | self.dbx[b].val();
            self.len[b].next = 32.into();
            if self.dbx[b].val() == self.low[b].val() {
                self.code[b].next = self.pos[b].val() | bits::<32>(0x60);
                self.len[b].next = 10.into();
            }
            if self.dbx[b].val() == (self.low[b].val() | (self.low[b].val() << 1)) {
                self.code[b].next = self.pos[b].val() | bits::<32>(0x40);
                self.len[b].next = 10.into();
            }
            if !self.dbp[b].val().any() {
                self.code[b].next = 1.into();
                self.len[b].next = 5.into();
            }
            if self.dbx[b].val() == self.all1.val() {
                self.code[b].next = 0.into();
                self.len[b].next = 5.into();
            }
        }
        // Base word (bpc.md §4): -8 <= v <= 7 iff v + 8 < 16, and so on.
        self.base_sums[0].next = self.w[0].val() + bits::<32>(8);
        self.base_sums[1].next = self.w[0].val() + bits::<32>(128);
        self.base_sums[2].next = self.w[0].val() + bits::<32>(32768);
        self.base_raw.next = true;
        self.base_code.next = 1.into();
        self.base_len.next = 1.into();
        if self.base_sums[2].val() < bits::<32>(65536) {
            self.base_raw.next = false;
            self.base_code.next = (self.w[0].val() & bits::<32>(0xFFFF)) | bits::<32>(0x30000);
            self.base_len.next = 19.into();
        }
        if self.base_sums[1].val() < bits::<32>(256) {
            self.base_code.next = (self.w[0].val() & bits::<32>(0xFF)) | bits::<32>(0x200);
            self.base_len.next = 11.into();
        }
        if self.base_sums[0].val() < bits::<32>(16) {
            self.base_code.next = (self.w[0].val() & bits::<32>(0xF)) | bits::<32>(0x10);
            self.base_len.next = 7.into();
        }
        if !self.w[0].val().any() {
            self.base_code.next = 0.into();
            self.base_len.next = 3.into();
        }
        if self.s2_load.val() {
            self.s2_valid.d.next = self.s1_valid.q.val();
            self.s2_entry.d.next = self.s1_entry.q.val();
            self.s2_base_code.d.next = self.base_code.val();
            self.s2_base_len.d.next = self.base_len.val();
            self.s2_base_raw.d.next = self.base_raw.val();
            for b in 0..33 {
                self.s2_zero[b].d.next = !self.dbx[b].val().any();
                self.s2_code[b].d.next = self.code[b].val();
                self.s2_len[b].d.next = self.len[b].val();
            }
        }

        // ---- s2 -> s3: maximal zero runs (bpc.md §5), 35 slots in order.
        // run[b]: zero planes from b downwards (a chain from plane 0 up).
        self.run[0].next = 0.into();
        if self.s2_zero[0].q.val() {
            self.run[0].next = 1.into();
        }
        for b in 1..33 {
            self.run[b].next = 0.into();
            if self.s2_zero[b].q.val() {
                self.run[b].next = self.run[b - 1].val() + bits::<32>(1);
            }
        }
        for b in 0..32 {
            self.start[b].next = self.s2_zero[b].q.val() & !self.s2_zero[b + 1].q.val();
        }
        self.start[32].next = self.s2_zero[32].q.val();
        self.slot_code[0].next = self.s2_base_code.q.val();
        self.slot_len[0].next = self.s2_base_len.q.val();
        self.slot_code[1].next = self.s2_entry.q.val().w0;
        self.slot_len[1].next = 0.into();
        if self.s2_base_raw.q.val() {
            self.slot_len[1].next = 32.into();
        }
        for i in 0..33 {
            // Slot 2 + i is plane 32 - i.
            self.run_less2[32 - i].next = self.run[32 - i].val() - bits::<32>(2);
            self.slot_code[i + 2].next = self.s2_code[32 - i].q.val();
            self.slot_len[i + 2].next = self.s2_len[32 - i].q.val();
            if self.s2_zero[32 - i].q.val() {
                self.slot_code[i + 2].next = 0.into();
                self.slot_len[i + 2].next = 0.into();
                if self.start[32 - i].val() {
                    self.slot_code[i + 2].next = self.run_less2[32 - i].val() | bits::<32>(0x20);
                    self.slot_len[i + 2].next = 7.into();
                    if self.run[32 - i].val() == bits::<32>(1) {
                        self.slot_code[i + 2].next = 1.into();
                        self.slot_len[i + 2].next = 3.into();
                    }
                }
            }
        }
        if self.s3_load.val() {
            self.s3_valid.d.next = self.s2_valid.q.val();
            self.s3_entry.d.next = self.s2_entry.q.val();
            for s in 0..35 {
                self.s3_code[s].d.next = self.slot_code[s].val();
                self.s3_len[s].d.next = self.slot_len[s].val();
            }
        }

        // ---- s3 -> slice: packing and the size class (bpc.md §10).
        #(
            self.packer.code~J.next = self.s3_code[J].q.val();
            self.packer.len~J.next = self.s3_len[J].q.val();
        )*
        self.nonzero.next = self.s3_entry.q.val().w0.any() | self.s3_entry.q.val().w1.any() | self.s3_entry.q.val().w2.any()
            | self.s3_entry.q.val().w3.any() | self.s3_entry.q.val().w4.any() | self.s3_entry.q.val().w5.any()
            | self.s3_entry.q.val().w6.any() | self.s3_entry.q.val().w7.any() | self.s3_entry.q.val().w8.any()
            | self.s3_entry.q.val().w9.any() | self.s3_entry.q.val().w10.any() | self.s3_entry.q.val().w11.any()
            | self.s3_entry.q.val().w12.any() | self.s3_entry.q.val().w13.any() | self.s3_entry.q.val().w14.any()
            | self.s3_entry.q.val().w15.any() | self.s3_entry.q.val().w16.any() | self.s3_entry.q.val().w17.any()
            | self.s3_entry.q.val().w18.any() | self.s3_entry.q.val().w19.any() | self.s3_entry.q.val().w20.any()
            | self.s3_entry.q.val().w21.any() | self.s3_entry.q.val().w22.any() | self.s3_entry.q.val().w23.any()
            | self.s3_entry.q.val().w24.any() | self.s3_entry.q.val().w25.any() | self.s3_entry.q.val().w26.any()
            | self.s3_entry.q.val().w27.any() | self.s3_entry.q.val().w28.any() | self.s3_entry.q.val().w29.any()
            | self.s3_entry.q.val().w30.any() | self.s3_entry.q.val().w31.any();
        self.stream_bits.next = self.packer.total.val();
        self.size_code.next = 7.into();
        self.payload.next = self.s3_entry.q.val();
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

        if self.reset.val() {
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
        }
        self.slice.in_valid.next = self.s3_valid.q.val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_payload.next = self.slice.out_data.val().payload;
        self.out_class.next = self.slice.out_data.val().class;
        self.out_stream_bits.next = self.slice.out_data.val().stream_bits;
    }
}
});
