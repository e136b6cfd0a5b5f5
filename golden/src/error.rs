//! Errors of the golden decompressors.

use thiserror::Error;

/// Why a stored entry could not be decompressed.
///
/// Every decompressor returns one of these for malformed input; none panics.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// The 4-bit size metadata holds a reserved code (8-15, docs/formats.md#size-classes).
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
    /// The stream's leading encoding code is reserved (BDI: codes 8-15,
    /// docs/formats.md#bdi).
    #[error("{algorithm} encoding code {code} is reserved")]
    ReservedEncoding { algorithm: &'static str, code: u8 },
    /// A stream decoder was given the ZERO or RAW class, which store no
    /// stream (`Codec::decompress` handles them without the algorithm).
    #[error("size class {class} stores no stream")]
    NotAStreamClass { class: &'static str },
    /// BPC: a field needs bits past the end of the stored bytes (docs/formats.md#bpc-decoding);
    /// `offset` is the bit offset of that field.
    #[error("BPC stream out of input at bit offset {offset}")]
    BpcOutOfInput { offset: usize },
    /// BPC: a zero run longer than the planes left (docs/formats.md#bpc-decoding).
    #[error("BPC zero run of {run} planes at bit offset {offset}, but only {planes_left} planes are left")]
    BpcZeroRunTooLong { offset: usize, run: u32, planes_left: u32 },
    /// BPC: a TWO1 position above 29 (docs/formats.md#bpc-decoding).
    #[error("BPC TWO1 position {position} > 29 at bit offset {offset}")]
    BpcTwo1Position { offset: usize, position: u32 },
    /// BPC: a ONE1 position above 30 (docs/formats.md#bpc-decoding).
    #[error("BPC ONE1 position {position} > 30 at bit offset {offset}")]
    BpcOne1Position { offset: usize, position: u32 },
}

/// Why a stream file (`docs/streams.md`) could not be read or written.
///
/// Every reader error names the byte offset in the file where the problem
/// is; record errors also name the entry index (0-based, file order).
#[derive(Debug, Error)]
pub enum StreamFileError {
    /// The file ends inside the header or inside an entry's record.
    #[error("the file ends at byte {file_len} inside {what} (which needs bytes {offset}..{end})")]
    Truncated { what: String, offset: u64, end: u64, file_len: u64 },
    /// The first 8 bytes are not the stream-file magic `BUDDYSTR`.
    #[error("not a buddy stream file: the first 8 bytes are {found:02x?}, not \"BUDDYSTR\"")]
    BadMagic { found: [u8; 8] },
    /// The header's version is not one this reader knows.
    #[error("stream file version {found} is not supported (this reader knows version {supported})")]
    UnsupportedVersion { found: u16, supported: u16 },
    /// The header's reserved field (bytes 10..12) is not zero.
    #[error("header bytes 10..12 are reserved and must be 0, found {found:#06x}")]
    ReservedHeader { found: u16 },
    /// The header's algorithm field is not an algorithm name padded with NUL bytes.
    #[error("header names an unknown algorithm {found:?} (valid: {valid})")]
    UnknownAlgorithm { found: String, valid: String },
    /// A record's class byte has a reserved size code (8-15) or non-zero high bits.
    #[error(
        "entry {index} (byte {offset}): class byte {byte:#04x} is not a size class (the low 4 bits must be a code 0-7, the high 4 bits 0)"
    )]
    ReservedClass { index: u64, offset: u64, byte: u8 },
    /// The file ends cleanly after fewer records than the header's count.
    #[error("the header announces {expected} entries but the file holds {found}")]
    CountMismatch { expected: u64, found: u64 },
    /// Bytes follow the last record the header announces.
    #[error("{extra} bytes follow the last of the {entries} entries the header announces (from byte {offset})")]
    TrailingBytes { entries: u64, offset: u64, extra: u64 },
    /// A writer was given stored bytes of the wrong length for their class.
    #[error("entry {index}: size class {class} stores {expected} bytes, got {got}")]
    StoredLength { index: u64, class: &'static str, expected: usize, got: usize },
    /// A writer was given more entries than its header announces, or
    /// finished with fewer.
    #[error("the header announces {expected} entries but {written} were written")]
    WrittenCount { expected: u64, written: u64 },
    /// The underlying writer failed.
    #[error("cannot write the stream file")]
    Write(#[source] std::io::Error),
}
