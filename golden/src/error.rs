//! Errors of the golden decompressors.

use thiserror::Error;

/// Why a stored entry could not be decompressed.
///
/// Every decompressor returns one of these for malformed input; none panics.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// The 4-bit size metadata holds a reserved code (8-15, formats.md §2).
    #[error("reserved size code {code} (valid codes are 0-7)")]
    ReservedSizeCode { code: u8 },
    /// The stored bytes are not as many as the size class holds.
    #[error("size class {class} stores {expected} bytes, got {got}")]
    StoredLength { class: &'static str, expected: usize, got: usize },
    /// The stream says it needs more bits than its size class stores.
    #[error("stream needs {needed_bits} bits at bit offset 0 but size class {class} stores only {available_bits}")]
    StreamOverrun { class: &'static str, needed_bits: usize, available_bits: usize },
    /// The size class is not a stream length of this algorithm (MAG-BDI:
    /// class bytes must be `k * MAG`, `1 <= k < 128 / MAG`).
    #[error("size class {class} is not a {algorithm} encoding for a {mag_bytes}-byte MAG")]
    ClassNotAnEncoding { class: &'static str, algorithm: &'static str, mag_bytes: usize },
    /// BPC: a field needs bits past the end of the stored bytes (bpc.md §8);
    /// `offset` is the bit offset of that field.
    #[error("BPC stream out of input at bit offset {offset}")]
    BpcOutOfInput { offset: usize },
    /// BPC: a zero run longer than the planes left (bpc.md §8).
    #[error("BPC zero run of {run} planes at bit offset {offset}, but only {planes_left} planes are left")]
    BpcZeroRunTooLong { offset: usize, run: u32, planes_left: u32 },
    /// BPC: a TWO1 position above 29 (bpc.md §8).
    #[error("BPC TWO1 position {position} > 29 at bit offset {offset}")]
    BpcTwo1Position { offset: usize, position: u32 },
    /// BPC: a ONE1 position above 30 (bpc.md §8).
    #[error("BPC ONE1 position {position} > 30 at bit offset {offset}")]
    BpcOne1Position { offset: usize, position: u32 },
}
