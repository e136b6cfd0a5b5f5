//! Stream files: the compressed form of a sequence of memory-entries, one
//! record per entry holding what a compressor's output ports carry (the
//! 4-bit size class and the stored bytes of the 1024-bit payload), so that
//! streams can be written by the golden models or by hardware and decoded or
//! checked by the golden models (`buddy compress --streams`, `buddy
//! decompress`, `buddy verify`).
//!
//! The format is specified in `docs/streams.md`; in short (all integers
//! little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `BUDDYSTR` |
//! | 8..10 | version, u16, [`STREAM_VERSION`] |
//! | 10..12 | reserved, u16, 0 |
//! | 12..28 | algorithm name ([`Algorithm::name`]), ASCII, NUL-padded |
//! | 28..36 | entry count, u64 |
//!
//! then per entry one class byte (the size code 0-7 in bits 3..0, bits 7..4
//! zero) followed by exactly [`SizeClass::bytes`] stored bytes: byte `j`
//! holds payload bits `8j..8j+7`, payload bit `8j+i` in bit `i`
//! (the LSB-first packing of docs/formats.md#stream-packing, the same bit order as the
//! `out_payload` / `in_payload` ports).

use std::io::Write;

use crate::codec::{Algorithm, CompressedEntry};
use crate::entry::{MemoryEntry, ENTRY_BYTES};
use crate::error::{DecodeError, StreamFileError};
use crate::size_class::SizeClass;

/// The first 8 bytes of every stream file.
pub const STREAM_MAGIC: [u8; 8] = *b"BUDDYSTR";

/// The format version this crate writes and reads.
pub const STREAM_VERSION: u16 = 1;

/// Bytes of the header before the first record.
pub const HEADER_BYTES: usize = 36;

/// Bytes of the header's algorithm-name field.
const ALGORITHM_FIELD_BYTES: usize = 16;

/// The header of a stream file: which golden codec decodes its records and
/// how many records follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamHeader {
    /// The algorithm whose streams the records hold (MAG included).
    pub algorithm: Algorithm,
    /// Number of records (entries) that follow the header.
    pub entries: u64,
}

impl StreamHeader {
    /// The header's [`HEADER_BYTES`] bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_BYTES] {
        let mut bytes = [0u8; HEADER_BYTES];
        bytes[0..8].copy_from_slice(&STREAM_MAGIC);
        bytes[8..10].copy_from_slice(&STREAM_VERSION.to_le_bytes());
        let name = self.algorithm.name().as_bytes();
        // Every name of `Algorithm::ALL` is at most 10 bytes.
        bytes[12..12 + name.len()].copy_from_slice(name);
        bytes[28..36].copy_from_slice(&self.entries.to_le_bytes());
        bytes
    }

    /// Parse the header at the start of `bytes`.
    ///
    /// # Errors
    /// [`StreamFileError::Truncated`] when `bytes` is shorter than the
    /// header; [`StreamFileError::BadMagic`], [`StreamFileError::UnsupportedVersion`],
    /// [`StreamFileError::ReservedHeader`] or [`StreamFileError::UnknownAlgorithm`].
    pub fn parse(bytes: &[u8]) -> Result<Self, StreamFileError> {
        // The magic is checked first, so that a short non-stream file is
        // reported as such rather than as a truncated one.
        let magic_len = bytes.len().min(STREAM_MAGIC.len());
        if bytes[..magic_len] != STREAM_MAGIC[..magic_len] {
            let mut found = [0u8; 8];
            found[..magic_len].copy_from_slice(&bytes[..magic_len]);
            return Err(StreamFileError::BadMagic { found });
        }
        let Some(header) = bytes.get(..HEADER_BYTES) else {
            return Err(StreamFileError::Truncated {
                what: "the header".to_string(),
                offset: 0,
                end: HEADER_BYTES as u64,
                file_len: bytes.len() as u64,
            });
        };
        let version = u16::from_le_bytes([header[8], header[9]]);
        if version != STREAM_VERSION {
            return Err(StreamFileError::UnsupportedVersion { found: version, supported: STREAM_VERSION });
        }
        let reserved = u16::from_le_bytes([header[10], header[11]]);
        if reserved != 0 {
            return Err(StreamFileError::ReservedHeader { found: reserved });
        }
        let algorithm = parse_algorithm(&header[12..12 + ALGORITHM_FIELD_BYTES])?;
        let mut count = [0u8; 8];
        count.copy_from_slice(&header[28..36]);
        Ok(StreamHeader { algorithm, entries: u64::from_le_bytes(count) })
    }
}

/// The algorithm of a NUL-padded name field: a name [`Algorithm`]'s
/// `FromStr` accepts, then only NUL bytes.
fn parse_algorithm(field: &[u8]) -> Result<Algorithm, StreamFileError> {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    let unknown = || StreamFileError::UnknownAlgorithm {
        found: String::from_utf8_lossy(field).trim_end_matches('\0').to_string(),
        valid: Algorithm::valid_names(),
    };
    if field[end..].iter().any(|&b| b != 0) {
        return Err(unknown());
    }
    std::str::from_utf8(&field[..end]).ok().and_then(|name| name.parse().ok()).ok_or_else(unknown)
}

/// One record of a stream file, borrowed from the file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamRecord<'a> {
    /// Position of the entry in the file (0-based).
    pub index: u64,
    /// Byte offset of the record's class byte in the file.
    pub offset: u64,
    /// The entry's size class (the 4-bit metadata, the `class` port).
    pub class: SizeClass,
    /// The stored bytes, exactly `class.bytes()` of them.
    pub stored: &'a [u8],
}

impl StreamRecord<'_> {
    /// The 1024-bit payload as the decompressor's `in_payload` port takes
    /// it: the stored bytes, zero-padded to 128.
    pub fn payload(&self) -> [u8; ENTRY_BYTES] {
        let mut payload = [0u8; ENTRY_BYTES];
        payload[..self.stored.len()].copy_from_slice(self.stored);
        payload
    }

    /// Decode the record with `algorithm`'s golden codec.
    ///
    /// # Errors
    /// Whatever the codec reports for a malformed stream.
    pub fn decode(&self, algorithm: Algorithm) -> Result<MemoryEntry, DecodeError> {
        algorithm.codec().decompress(self.class, self.stored)
    }
}

/// Reads the records of a stream file held in memory (read or mapped), in
/// file order.
///
/// After the header's count of records, the iterator checks that the file
/// ends there: it yields [`StreamFileError::TrailingBytes`] once if not. It
/// stops after the first error.
#[derive(Debug, Clone)]
pub struct StreamReader<'a> {
    bytes: &'a [u8],
    header: StreamHeader,
    /// Offset of the next record.
    position: usize,
    /// Index of the next record.
    index: u64,
    /// An error was yielded or the end was checked.
    done: bool,
}

impl<'a> StreamReader<'a> {
    /// A reader of the stream file `bytes`, its header parsed.
    ///
    /// # Errors
    /// As [`StreamHeader::parse`].
    pub fn new(bytes: &'a [u8]) -> Result<Self, StreamFileError> {
        let header = StreamHeader::parse(bytes)?;
        Ok(StreamReader { bytes, header, position: HEADER_BYTES, index: 0, done: false })
    }

    /// The file's header.
    pub fn header(&self) -> StreamHeader {
        self.header
    }

    /// Read the record at the current position.
    fn record(&mut self) -> Result<StreamRecord<'a>, StreamFileError> {
        let offset = self.position;
        let (index, file_len) = (self.index, self.bytes.len() as u64);
        let Some(&byte) = self.bytes.get(offset) else {
            return Err(StreamFileError::CountMismatch { expected: self.header.entries, found: index });
        };
        let class = match SizeClass::from_code(byte) {
            Ok(class) => class,
            Err(_) => return Err(StreamFileError::ReservedClass { index, offset: offset as u64, byte }),
        };
        let start = offset + 1;
        let end = start + class.bytes();
        let Some(stored) = self.bytes.get(start..end) else {
            return Err(StreamFileError::Truncated {
                what: format!("entry {index}'s {} stored bytes", class.name()),
                offset: start as u64,
                end: end as u64,
                file_len,
            });
        };
        self.position = end;
        self.index += 1;
        Ok(StreamRecord { index, offset: offset as u64, class, stored })
    }
}

impl<'a> Iterator for StreamReader<'a> {
    type Item = Result<StreamRecord<'a>, StreamFileError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.index == self.header.entries {
            self.done = true;
            let extra = (self.bytes.len() - self.position) as u64;
            return (extra > 0).then_some(Err(StreamFileError::TrailingBytes {
                entries: self.header.entries,
                offset: self.position as u64,
                extra,
            }));
        }
        let record = self.record();
        self.done = record.is_err();
        Some(record)
    }
}

/// Parse a whole stream file: its header and every record, checked.
///
/// # Errors
/// The first [`StreamFileError`] of [`StreamHeader::parse`] or of the
/// records: truncated file, bad magic, unknown version or algorithm,
/// reserved class code, fewer records than announced, trailing bytes.
pub fn read_stream_file(bytes: &[u8]) -> Result<(StreamHeader, Vec<StreamRecord<'_>>), StreamFileError> {
    let reader = StreamReader::new(bytes)?;
    let header = reader.header();
    // Every record is at least one byte: a corrupt count cannot make this large.
    let capacity = usize::try_from(header.entries).unwrap_or(usize::MAX).min(bytes.len() - HEADER_BYTES);
    let mut records = Vec::with_capacity(capacity);
    for record in reader {
        records.push(record?);
    }
    Ok((header, records))
}

/// Writes a stream file: the header on creation, then one record per
/// [`StreamWriter::write`]; [`StreamWriter::finish`] checks the count.
#[derive(Debug)]
pub struct StreamWriter<W: Write> {
    out: W,
    expected: u64,
    written: u64,
}

impl<W: Write> StreamWriter<W> {
    /// Write `header` to `out`; `header.entries` records must follow.
    ///
    /// # Errors
    /// [`StreamFileError::Write`].
    pub fn new(mut out: W, header: StreamHeader) -> Result<Self, StreamFileError> {
        out.write_all(&header.to_bytes()).map_err(StreamFileError::Write)?;
        Ok(StreamWriter { out, expected: header.entries, written: 0 })
    }

    /// Write one record: the class byte, then `stored`.
    ///
    /// # Errors
    /// [`StreamFileError::StoredLength`] unless `stored.len() ==
    /// class.bytes()`, [`StreamFileError::WrittenCount`] past the header's
    /// count, [`StreamFileError::Write`].
    pub fn write(&mut self, class: SizeClass, stored: &[u8]) -> Result<(), StreamFileError> {
        if stored.len() != class.bytes() {
            return Err(StreamFileError::StoredLength {
                index: self.written,
                class: class.name(),
                expected: class.bytes(),
                got: stored.len(),
            });
        }
        if self.written == self.expected {
            return Err(StreamFileError::WrittenCount { expected: self.expected, written: self.written + 1 });
        }
        self.out.write_all(&[class.code()]).map_err(StreamFileError::Write)?;
        self.out.write_all(stored).map_err(StreamFileError::Write)?;
        self.written += 1;
        Ok(())
    }

    /// Write the record of a compressed entry (its class and stored bytes).
    ///
    /// # Errors
    /// As [`StreamWriter::write`].
    pub fn write_compressed(&mut self, entry: &CompressedEntry) -> Result<(), StreamFileError> {
        self.write(entry.class, entry.stored())
    }

    /// Flush and return the underlying writer.
    ///
    /// # Errors
    /// [`StreamFileError::WrittenCount`] when fewer records than announced
    /// were written; [`StreamFileError::Write`].
    pub fn finish(mut self) -> Result<W, StreamFileError> {
        if self.written != self.expected {
            return Err(StreamFileError::WrittenCount { expected: self.expected, written: self.written });
        }
        self.out.flush().map_err(StreamFileError::Write)?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mag_bdi::Mag;
    use proptest::prelude::*;

    /// Entries covering ZERO, small streams and RAW under every algorithm.
    fn entries() -> Vec<MemoryEntry> {
        let mut entries = vec![MemoryEntry::ZERO];
        let mut words = [0u32; 32];
        words[3] = 7;
        entries.push(MemoryEntry::from_words(words));
        entries.push(MemoryEntry::from_words(std::array::from_fn(|i| 1000 + i as u32)));
        entries.push(MemoryEntry::from_words(std::array::from_fn(|i| (i as u32 + 1).wrapping_mul(0x9E37_79B9))));
        entries
    }

    /// The golden stream file of `entries` under `algorithm`.
    fn file_of(algorithm: Algorithm, entries: &[MemoryEntry]) -> Vec<u8> {
        let codec = algorithm.codec();
        let mut writer = StreamWriter::new(Vec::new(), StreamHeader { algorithm, entries: entries.len() as u64 }).unwrap();
        for e in entries {
            writer.write_compressed(&codec.compress(e)).unwrap();
        }
        writer.finish().unwrap()
    }

    #[test]
    fn header_layout_is_as_documented() {
        let header = StreamHeader { algorithm: Algorithm::MagBdi(Mag::B16), entries: 0x0102_0304_0506_0708 };
        let bytes = header.to_bytes();
        assert_eq!(&bytes[0..8], b"BUDDYSTR");
        assert_eq!(&bytes[8..12], &[1, 0, 0, 0]);
        assert_eq!(&bytes[12..28], b"mag-bdi:16\0\0\0\0\0\0");
        assert_eq!(&bytes[28..36], &[8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(StreamHeader::parse(&bytes).unwrap(), header);
    }

    #[test]
    fn every_algorithm_round_trips_through_a_file() {
        let entries = entries();
        for algorithm in Algorithm::ALL {
            let bytes = file_of(algorithm, &entries);
            let codec = algorithm.codec();
            let expected_len: usize = HEADER_BYTES + entries.iter().map(|e| 1 + codec.compress(e).class.bytes()).sum::<usize>();
            assert_eq!(bytes.len(), expected_len, "{algorithm}");
            let (header, records) = read_stream_file(&bytes).unwrap();
            assert_eq!(header, StreamHeader { algorithm, entries: entries.len() as u64 });
            assert_eq!(records.len(), entries.len());
            let mut offset = HEADER_BYTES as u64;
            for (i, (record, entry)) in records.iter().zip(&entries).enumerate() {
                let c = codec.compress(entry);
                assert_eq!((record.index, record.offset, record.class), (i as u64, offset, c.class), "{algorithm} {i}");
                assert_eq!(record.payload(), c.payload, "{algorithm} {i}: the stored bytes and zero padding");
                assert_eq!(record.decode(algorithm).unwrap(), *entry, "{algorithm} {i}");
                offset += 1 + record.stored.len() as u64;
            }
        }
    }

    #[test]
    fn an_empty_file_of_no_entries_is_valid() {
        let bytes = file_of(Algorithm::Bpc, &[]);
        assert_eq!(bytes.len(), HEADER_BYTES);
        assert!(read_stream_file(&bytes).unwrap().1.is_empty());
    }

    #[test]
    fn mag_bdi_32_is_also_read_by_its_long_name() {
        let mut bytes = file_of(Algorithm::MagBdi(Mag::B32), &entries());
        bytes[12..28].copy_from_slice(b"mag-bdi:32\0\0\0\0\0\0");
        assert_eq!(read_stream_file(&bytes).unwrap().0.algorithm, Algorithm::MagBdi(Mag::B32));
    }

    #[test]
    fn truncated_header_and_record_are_errors() {
        let bytes = file_of(Algorithm::Zvc, &entries());
        let err = read_stream_file(&bytes[..20]).unwrap_err();
        assert!(matches!(err, StreamFileError::Truncated { offset: 0, end: 36, file_len: 20, .. }), "{err:?}");
        assert_eq!(err.to_string(), "the file ends at byte 20 inside the header (which needs bytes 0..36)");
        // Entry 0 is ZERO (1 byte), entry 1 is B8 (1 + 8 bytes): cut inside entry 1.
        let err = read_stream_file(&bytes[..HEADER_BYTES + 1 + 4]).unwrap_err();
        assert!(matches!(err, StreamFileError::Truncated { offset: 38, end: 46, file_len: 41, .. }), "{err:?}");
        assert!(err.to_string().contains("entry 1's B8 stored bytes"), "{err}");
    }

    #[test]
    fn bad_magic_is_an_error_even_for_short_files() {
        let mut bytes = file_of(Algorithm::Bpc, &entries());
        bytes[0] = b'b';
        assert!(matches!(read_stream_file(&bytes), Err(StreamFileError::BadMagic { found }) if &found == b"bUDDYSTR"));
        assert!(matches!(read_stream_file(b"PK\x03"), Err(StreamFileError::BadMagic { .. })));
        // The start of a valid file is truncated, not bad.
        assert!(matches!(read_stream_file(b"BUDDY"), Err(StreamFileError::Truncated { .. })));
        assert!(matches!(read_stream_file(b""), Err(StreamFileError::Truncated { .. })));
    }

    #[test]
    fn unknown_version_reserved_header_and_algorithm_are_errors() {
        let good = file_of(Algorithm::Bpc, &entries());
        let mut bytes = good.clone();
        bytes[8] = 2;
        assert!(matches!(read_stream_file(&bytes), Err(StreamFileError::UnsupportedVersion { found: 2, supported: 1 })));
        let mut bytes = good.clone();
        bytes[11] = 1;
        assert!(matches!(read_stream_file(&bytes), Err(StreamFileError::ReservedHeader { found: 0x100 })));
        for field in [&b"lz4\0\0\0\0\0\0\0\0\0\0\0\0\0"[..], b"bpc\0\0\0\0\0x\0\0\0\0\0\0\0", b"\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"] {
            let mut bytes = good.clone();
            bytes[12..28].copy_from_slice(field);
            let err = read_stream_file(&bytes).unwrap_err();
            assert!(matches!(err, StreamFileError::UnknownAlgorithm { .. }), "{err:?}");
        }
    }

    #[test]
    fn reserved_class_codes_and_high_bits_are_errors() {
        let good = file_of(Algorithm::Zvc, &entries());
        // Entry 0 (ZERO) is the byte right after the header.
        for byte in [8u8, 15, 0x10, 0x87] {
            let mut bytes = good.clone();
            bytes[HEADER_BYTES] = byte;
            let err = read_stream_file(&bytes).unwrap_err();
            assert!(matches!(err, StreamFileError::ReservedClass { index: 0, offset: 36, byte: b } if b == byte), "{err:?}");
        }
    }

    #[test]
    fn count_mismatch_and_trailing_bytes_are_errors() {
        let good = file_of(Algorithm::Zvc, &entries());
        let mut bytes = good.clone();
        bytes[28] += 1;
        assert!(matches!(read_stream_file(&bytes), Err(StreamFileError::CountMismatch { expected: 5, found: 4 })));
        let mut bytes = good.clone();
        bytes[28] -= 1;
        let last = read_stream_file(&good).unwrap().1[3].offset;
        let err = read_stream_file(&bytes).unwrap_err();
        assert!(
            matches!(err, StreamFileError::TrailingBytes { entries: 3, offset, extra } if offset == last && extra == good.len() as u64 - last),
            "{err:?}"
        );
        let mut bytes = good;
        bytes.push(0);
        assert!(matches!(read_stream_file(&bytes), Err(StreamFileError::TrailingBytes { extra: 1, .. })));
    }

    #[test]
    fn writer_checks_lengths_and_count() {
        let header = StreamHeader { algorithm: Algorithm::Bpc, entries: 1 };
        let mut writer = StreamWriter::new(Vec::new(), header).unwrap();
        let err = writer.write(SizeClass::B16, &[0; 8]).unwrap_err();
        assert!(matches!(err, StreamFileError::StoredLength { index: 0, expected: 16, got: 8, .. }), "{err:?}");
        let unfinished = StreamWriter::new(Vec::new(), header).unwrap();
        assert!(matches!(unfinished.finish(), Err(StreamFileError::WrittenCount { expected: 1, written: 0 })));
        writer.write(SizeClass::Zero, &[]).unwrap();
        assert!(matches!(writer.write(SizeClass::Zero, &[]), Err(StreamFileError::WrittenCount { expected: 1, written: 2 })));
        assert_eq!(writer.finish().unwrap().len(), HEADER_BYTES + 1);
    }

    #[test]
    fn a_malformed_stream_is_read_and_fails_only_at_decode() {
        // A BPC B8 record of all-ones bytes is a well-formed record that does
        // not decode; the reader hands it out, the codec rejects it.
        let mut writer = StreamWriter::new(Vec::new(), StreamHeader { algorithm: Algorithm::Bpc, entries: 1 }).unwrap();
        writer.write(SizeClass::B8, &[0xff; 8]).unwrap();
        let bytes = writer.finish().unwrap();
        let (header, records) = read_stream_file(&bytes).unwrap();
        assert!(records[0].decode(header.algorithm).is_err());
    }

    proptest! {
        /// Any bytes after a valid header: a result, never a panic.
        #[test]
        fn arbitrary_records_never_panic(count in 0u64..20, body in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut bytes = StreamHeader { algorithm: Algorithm::Bpc, entries: count }.to_bytes().to_vec();
            bytes.extend(body);
            if let Ok((_, records)) = read_stream_file(&bytes) {
                prop_assert_eq!(records.len() as u64, count);
                for r in records {
                    let _ = r.decode(Algorithm::Bpc);
                }
            }
        }

        /// Any bytes at all: a result, never a panic.
        #[test]
        fn arbitrary_files_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..100)) {
            let _ = read_stream_file(&bytes);
        }
    }
}
