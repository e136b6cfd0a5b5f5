//! MAG-BDI decompressor: one 128-byte memory-entry per cycle, latency 1.

use crate::decompressed_entry::DecompressedEntry;
use crate::delta_packing::DeltaUnpacker;
use crate::entry_bits::EntryBits;
use crate::mag_bdi_encodings::{encodings, RAW_CODE};
use crate::register_slice::RegisterSlice;
use buddy_golden::Mag;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Latency of [`MagBdiDecompressor`] in clock cycles: a stream accepted on edge `t` is on `out_*` after edge `t + 1` (every MAG);
/// the initiation interval is 1. The testbenches measure it; the memory
/// system's hardware timing reads it (`buddy_hdl::timing`).
pub const LATENCY: u64 = 1;

/// MAG-aware Base-Delta-Immediate decompression of one 128-byte
/// memory-entry per cycle (seed `002_*`, Sec. IV-E, Fig. 10; bits as
/// docs/formats.md#mag-bdi): a parallel masked vector add,
/// `w[i] = sext_d(delta_i) + (mask[i] ? B : 0)`.
///
/// ```text
///              decode class ─ select[k] ─┐
/// in_class ──▶ (== code of encoding k)   ▼
/// in_payload ─┬─▶ unpacker k (sext d_k) ─▶ AND-OR ─▶ 32 x (delta + B&mask) ─▶ zero/raw/error ─┐  ┌──────────┐
///             └─ B = C[31:0], mask = C[63:32] ───────────┘                                    └▶ │main│skid│─▶ out_*
/// in_ready ◀── slice ready (!skid_valid)                                                         └──────────┘◀─ out_ready
/// ```
///
/// Buddy keeps only the 4-bit size class, so the class names the encoding:
/// the one whose stream is exactly the class's bytes (MAG 16: B16, B32, B64,
/// B80, B96; MAG 32: B32, B64, B96; MAG 64: B64). ZERO outputs zeros, RAW
/// passes the payload through; any other class (a reserved code 8..15, or
/// a class that names no encoding of this MAG, e.g. B8) sets `out_error`
/// and outputs zeros, as the golden decoder returns an error.
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock` | 1 | in | rising-edge clock |
/// | `reset` | 1 | in | synchronous, active high; empties the pipeline |
/// | `in_valid`, `in_ready` | 1, 1 | in, out | input handshake |
/// | `in_class` | 4 | in | the entry's 4-bit size metadata |
/// | `in_payload` | 1024 | in | stored bytes as vector `C` (bits past the stream are ignored) |
/// | `out_valid`, `out_ready` | 1, 1 | out, in | output handshake |
/// | `out_entry` | 1024 | out | the entry, `w[i]` at `[32i +: 32]`; 0 on error |
/// | `out_error` | 1 | out | malformed input |
///
/// Timing: initiation interval 1; latency 1 cycle (the MAG-BDI paper's
/// assumption): the decode and the 32 adds sit between the input port and
/// the register slice. `in_ready` is a flip-flop.
#[derive(SettleBlock)]
pub struct MagBdiDecompressor {
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
    unpackers: Vec<DeltaUnpacker>,
    /// The class code naming each stored encoding.
    encoding_code: Vec<Constant<Bits<4>>>,
    raw_code: Constant<Bits<4>>,
    hit: Signal<Local, Bit>,
    error: Signal<Local, Bit>,
    base: Signal<Local, Bits<32>>,
    mask: Signal<Local, Bits<32>>,
    deltas: Signal<Local, EntryBits>,
    words: Signal<Local, EntryBits>,
    result: Signal<Local, DecompressedEntry>,
    slice: RegisterSlice<DecompressedEntry>,
}

/// MAG 32, the delivered configuration.
impl Default for MagBdiDecompressor {
    fn default() -> Self {
        Self::new(Mag::B32)
    }
}

impl MagBdiDecompressor {
    /// The decompressor for `mag` (16, 32 or 64 bytes).
    pub fn new(mag: Mag) -> Self {
        let stored: Vec<_> = encodings(mag).into_iter().filter(|e| e.stored).collect();
        MagBdiDecompressor {
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
            unpackers: stored.iter().map(|e| DeltaUnpacker::new(e.delta_bits)).collect(),
            encoding_code: stored.iter().map(|e| Constant::new((e.class_code as u64).into())).collect(),
            raw_code: Constant::new((RAW_CODE as u64).into()),
            hit: Default::default(),
            error: Default::default(),
            base: Default::default(),
            mask: Default::default(),
            deltas: Default::default(),
            words: Default::default(),
            result: Default::default(),
            slice: Default::default(),
        }
    }
}

seq_macro::seq!(J in 0..32 {
impl Logic for MagBdiDecompressor {
    #[hdl_gen]
    fn update(&mut self) {
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();
        self.in_ready.next = self.slice.in_ready.val();

        // The class picks one unpacker's deltas (AND-OR mux).
        self.hit.next = false;
        #( self.deltas.next.w~J = 0.into(); )*
        for u in 0..self.unpackers.len() {
            self.unpackers[u].stream.next = self.in_payload.val();
            if self.in_class.val() == self.encoding_code[u].val() {
                self.hit.next = true;
                #( self.deltas.next.w~J = self.deltas.val().w~J | self.unpackers[u].delta~J.val(); )*
            }
        }

        self.base.next = self.in_payload.val().w0;
        self.mask.next = self.in_payload.val().w1;
        #(
            self.words.next.w~J = self.deltas.val().w~J;
            if self.mask.val().get_bit(J) {
                self.words.next.w~J = self.deltas.val().w~J + self.base.val();
            }
        )*

        // Not ZERO, not RAW and no encoding: reserved or foreign class.
        self.error.next = !(self.hit.val() | (self.in_class.val() == 0) | (self.in_class.val() == self.raw_code.val()));
        if self.in_class.val() == self.raw_code.val() {
            self.words.next = self.in_payload.val();
        }
        if self.error.val() | (self.in_class.val() == 0) {
            #( self.words.next.w~J = 0.into(); )*
        }
        self.result.next.entry = self.words.val();
        self.result.next.error = self.error.val();

        self.slice.in_valid.next = self.in_valid.val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_entry.next = self.slice.out_data.val().entry;
        self.out_error.next = self.slice.out_data.val().error;
    }
}
});
