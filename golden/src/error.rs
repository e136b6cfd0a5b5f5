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
}
