//! The output of every decompressor: the entry and an error flag.

use crate::entry_bits::EntryBits;
use rust_hdl::prelude::*;

/// What a decompressor emits per entry (one flat vector in Verilog: `entry`
/// in bits `[1023:0]`, `error` at bit 1024).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct DecompressedEntry {
    /// The decompressed entry, `w[i]` at `[32i +: 32]`; all zero when `error`.
    pub entry: EntryBits,
    /// The input was malformed (a reserved class code 8..15, or what the
    /// algorithm's format rules out; see each decompressor); the golden
    /// decoder returns an error for exactly these inputs.
    pub error: Bit,
}
