//! Synthesizable rust-hdl models of the Buddy Compression memory system.
//!
//! Each module mirrors a golden model of `buddy-golden` bit for bit; the
//! testbenches crate checks that, and the emitted Verilog in `verilog-out/`.
//!
//! | module | hardware | golden model |
//! |---|---|---|
//! | [`zvc_compressor`] | [`ZvcCompressor`] | `buddy_golden::zvc` |
//! | [`zvc_decompressor`] | [`ZvcDecompressor`] | `buddy_golden::zvc` |
//!
//! Shared blocks: [`entry_bits::EntryBits`] (the 1024-bit entry),
//! [`register_slice::RegisterSlice`] (valid/ready skid buffer),
//! [`compaction`] (log-depth compaction and expansion networks).

pub mod compaction;
pub mod entry_bits;
pub mod register_slice;
pub mod verilog;
pub mod zvc_compressor;
pub mod zvc_decompressor;

pub use entry_bits::EntryBits;
pub use zvc_compressor::{ZvcCompressed, ZvcCompressor};
pub use zvc_decompressor::{ZvcDecompressed, ZvcDecompressor};
