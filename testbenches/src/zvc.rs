//! Adapters between the ZVC hardware and the golden model: stream drivers,
//! expected outputs (scoreboard) and co-simulation vectors.

use crate::cosim::{hex_field, CosimPorts};
use crate::stream::StreamDut;
use buddy_golden::{Codec, CompressedEntry, MemoryEntry, SizeClass, Zvc, ENTRY_BYTES};
use buddy_hdl::{EntryBits, ZvcCompressor, ZvcDecompressor};
use rust_hdl::prelude::*;

fn to_bits(e: &MemoryEntry) -> EntryBits {
    EntryBits::from_words(e.words())
}

fn from_bits(b: &EntryBits) -> MemoryEntry {
    MemoryEntry::from_words(b.to_words())
}

impl StreamDut for ZvcCompressor {
    type Input = MemoryEntry;
    type Output = CompressedEntry;
    fn drive_input(&mut self, valid: bool, data: &MemoryEntry) {
        self.in_valid.next = valid;
        self.in_entry.next = to_bits(data);
    }
    fn drive_out_ready(&mut self, ready: bool) {
        self.out_ready.next = ready;
    }
    fn drive_reset(&mut self, reset: bool) {
        self.reset.next = reset;
    }
    fn drive_clock(&mut self, level: bool) {
        self.clock.next = Clock::from(level);
    }
    fn in_ready(&self) -> bool {
        self.in_ready.val()
    }
    fn output(&self) -> Option<CompressedEntry> {
        if !self.out_valid.val() {
            return None;
        }
        let code = self.out_class.val().to_u32() as u8;
        Some(CompressedEntry {
            class: SizeClass::from_code(code).unwrap_or_else(|e| panic!("hardware emitted {e}")),
            stream_bits: self.out_stream_bits.val().to_u32() as usize,
            payload: from_bits(&self.out_payload.val()).to_bytes(),
        })
    }
}

/// One input of the ZVC decompressor: the 4-bit size code (0..15) and the
/// 1024-bit payload, as stored bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoredEntry {
    pub code: u8,
    pub payload: [u8; ENTRY_BYTES],
}

/// One output of the ZVC decompressor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decompressed {
    /// The entry, all zero on error.
    pub entry: MemoryEntry,
    pub error: bool,
}

impl StreamDut for ZvcDecompressor {
    type Input = StoredEntry;
    type Output = Decompressed;
    fn drive_input(&mut self, valid: bool, data: &StoredEntry) {
        self.in_valid.next = valid;
        self.in_class.next = (data.code as u64).into();
        self.in_payload.next = to_bits(&MemoryEntry::from_bytes(&data.payload));
    }
    fn drive_out_ready(&mut self, ready: bool) {
        self.out_ready.next = ready;
    }
    fn drive_reset(&mut self, reset: bool) {
        self.reset.next = reset;
    }
    fn drive_clock(&mut self, level: bool) {
        self.clock.next = Clock::from(level);
    }
    fn in_ready(&self) -> bool {
        self.in_ready.val()
    }
    fn output(&self) -> Option<Decompressed> {
        self.out_valid
            .val()
            .then(|| Decompressed { entry: from_bits(&self.out_entry.val()), error: self.out_error.val() })
    }
}

/// What the decompressor must output for `input`, by the golden model: the
/// entry, or zeros with `error` when golden decoding fails. Only the first
/// `class.bytes()` payload bytes are given to the golden decoder.
pub fn expected_decompressed(input: &StoredEntry) -> Decompressed {
    let stored_len = SizeClass::from_code(input.code).map(|c| c.bytes()).unwrap_or(0);
    match Zvc.decompress_code(input.code, &input.payload[..stored_len]) {
        Ok(entry) => Decompressed { entry, error: false },
        Err(_) => Decompressed { entry: MemoryEntry::ZERO, error: true },
    }
}

/// The decompressor input that stores `entry` as the golden compressor does.
pub fn stored(entry: &MemoryEntry) -> StoredEntry {
    let c = Zvc.compress(entry);
    StoredEntry { code: c.class.code(), payload: c.payload }
}

/// Co-simulation ports of `zvc_compressor`: vector line =
/// `{in_entry, out_payload, out_class, out_stream_bits}`.
pub const COMPRESSOR_PORTS: CosimPorts = CosimPorts {
    module: "zvc_compressor",
    inputs: &[("in_entry", 1024)],
    outputs: &[("out_payload", 1024), ("out_class", 4), ("out_stream_bits", 11)],
};

/// Co-simulation ports of `zvc_decompressor`: vector line =
/// `{in_class, in_payload, out_entry, out_error}`.
pub const DECOMPRESSOR_PORTS: CosimPorts = CosimPorts {
    module: "zvc_decompressor",
    inputs: &[("in_class", 4), ("in_payload", 1024)],
    outputs: &[("out_entry", 1024), ("out_error", 1)],
};

/// One `$readmemh` line for the compressor: the entry and the golden output.
pub fn compressor_vector(entry: &MemoryEntry) -> String {
    let c = Zvc.compress(entry);
    let payload = MemoryEntry::from_bytes(&c.payload);
    [
        entry.to_hex(),
        payload.to_hex(),
        hex_field(c.class.code() as u64, 4),
        hex_field(c.stream_bits as u64, 11),
    ]
    .concat()
}

/// One `$readmemh` line for the decompressor: the input and the golden output.
pub fn decompressor_vector(input: &StoredEntry) -> String {
    let out = expected_decompressed(input);
    [
        hex_field(input.code as u64, 4),
        MemoryEntry::from_bytes(&input.payload).to_hex(),
        out.entry.to_hex(),
        hex_field(out.error as u64, 1),
    ]
    .concat()
}
