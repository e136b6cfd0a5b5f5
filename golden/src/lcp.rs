//! Linearly Compressed Pages (LCP) over BDI: how a 4 KB page of 32
//! memory-entries occupies 512, 1024, 2048 or 4096 bytes of device memory.
//!
//! Source: Pekhimenko et al., *Linearly Compressed Pages: A Main Memory
//! Compression Framework with Low Complexity and Low Latency*, MICRO 2013
//! (the page layout: one target size for every line of a page, exceptions,
//! a metadata region, four physical page sizes); ETC (seed `004_*`, Sec.
//! 4.4) uses LCP with BDI ([`crate::bdi`]) for GPU capacity compression.
//! The byte layout below is this project's (docs/formats.md#lcp).
//!
//! # Idea
//!
//! Every line (memory-entry) of a page is compressed with BDI. One target
//! size `c*` is chosen per page; a line whose BDI stored size is at most
//! `c*` sits in slot `i` of the compressed region, at the **linear** offset
//! `64 + i·c*`, so its address needs no per-line sizes. A line whose BDI
//! stored size exceeds `c*` (every RAW line, for one) is an **exception**:
//! its 128 original bytes go to the exception region, and the metadata
//! says which slot there.
//!
//! # Layout of a compressed page (physical size `P` = 512, 1024 or 2048 bytes)
//!
//! ```text
//!  0                64                       64 + 32·c*                  64 + 32·c* + 128·E      P
//!  | metadata 64 B  | slot 0 | slot 1 | ... | slot 31 | exception 0 | ... | exception E-1 | zeros |
//! ```
//!
//! | bytes | field |
//! |---|---|
//! | `0 .. 31` | line `i`'s byte: bit 7 = exception bit `e`; bits 0-4 = its exception slot when `e` = 1, else 0; bits 5-6 = 0 |
//! | `32` | `c*` as its size-class code, 1-6 (B8 .. B96: 8, 16, 32, 64, 80 or 96 bytes); bits 4-7 = 0 |
//! | `33` | `E`, the number of exceptions (0-32) |
//! | `34 .. 63` | reserved, 0 |
//! | `64 + i·c* ..` | slot `i`, `c*` bytes: line `i`'s BDI stream, zero-padded (an all-zero line: zeros, BDI's zeros encoding); zeros for an exception line |
//! | `64 + 32·c* + 128·s ..` | exception slot `s`: the 128 bytes of the line whose byte names slot `s` |
//!
//! Exceptions take slots in line order. The rest of the page, up to `P`, is
//! zero.
//!
//! # Choosing `c*` and the physical size
//!
//! For each `c*` of {8, 16, 32, 64, 80, 96} (the size classes B8 .. B96),
//! `E(c*)` is the number of lines whose BDI stored size (their size class's
//! bytes, ZERO = 0, RAW = 128) exceeds `c*`, and the page needs
//! `64 + 32·c* + 128·E(c*)` bytes, rounded up to 512, 1024 or 2048. The
//! smallest physical size wins; ties go to fewer exceptions, then to the
//! smaller `c*` **(decision)**. When no `c*` fits 2048 bytes the page is
//! stored **uncompressed**: its 4096 bytes as they are, no metadata.
//!
//! # Decisions
//!
//! - **The metadata region comes first.** The paper keeps the page's
//!   compression type and size in its page table entry and the metadata
//!   after the compressed data; here the 64-byte metadata region is at
//!   offset 0 so that the physical bytes decode alone: line `i` is at
//!   `64 + i·c*` (still linear; 64 keeps every slot 32-byte-sector
//!   aligned when `c*` is).
//! - **4096 bytes means uncompressed.** A layout needing more than 2048
//!   bytes would take a 4096-byte frame anyway, so the page is stored as it
//!   is (no exception indirection, no metadata read): the physical size is
//!   the "stored uncompressed" flag, as LCP's page table entry would hold it.
//! - **Decoding** checks the physical size, `c*`'s code, the reserved bits,
//!   that exactly `E` lines carry the exception bit with distinct slots
//!   below `E`, and that the layout fits the page; each slot decodes with
//!   [`Bdi::decode`] (a stream shorter than `c*` is zero-padded; bits after
//!   it are not checked). It does not check that the layout is the one the
//!   compressor would choose. Bad input is an [`LcpError`], never a panic.

use crate::bdi::Bdi;
use crate::codec::Codec;
use crate::entry::{MemoryEntry, ENTRY_BYTES};
use crate::error::DecodeError;
use crate::size_class::SizeClass;

/// Bytes of an uncompressed (virtual) page.
pub const PAGE_BYTES: usize = 4096;
/// Memory-entries (lines) per page.
pub const LINES_PER_PAGE: usize = PAGE_BYTES / ENTRY_BYTES;
/// Bytes of a compressed page's metadata region.
pub const METADATA_BYTES: usize = 64;
/// The physical page sizes in bytes, smallest first; the last means
/// "stored uncompressed".
pub const PHYSICAL_SIZES: [usize; 4] = [512, 1024, 2048, 4096];
/// The target line sizes `c*`: the size classes B8 .. B96.
pub const TARGETS: [SizeClass; 6] = [SizeClass::B8, SizeClass::B16, SizeClass::B32, SizeClass::B64, SizeClass::B80, SizeClass::B96];

/// Metadata byte of line `i`: the exception bit.
const EXCEPTION_BIT: u8 = 0x80;
/// Metadata byte of line `i`: the exception slot.
const SLOT_BITS: u8 = 0x1f;
/// Offset of the `c*` code in the metadata region.
const TARGET_BYTE: usize = 32;
/// Offset of the exception count in the metadata region.
const COUNT_BYTE: usize = 33;

/// Why LCP page bytes do not decode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LcpError {
    /// The physical page is not 512, 1024, 2048 or 4096 bytes.
    #[error("an LCP page is 512, 1024, 2048 or 4096 bytes, got {got}")]
    PhysicalSize { got: usize },
    /// Metadata byte 32 is not the code of B8 .. B96.
    #[error("metadata byte 32: target size code {code:#04x} is not a size class B8..B96 (codes 1-6)")]
    TargetCode { code: u8 },
    /// A reserved metadata bit is set.
    #[error("metadata byte {byte}: reserved bits set ({value:#04x})")]
    Reserved { byte: usize, value: u8 },
    /// The number of lines carrying the exception bit is not the count in byte 33.
    #[error("metadata: {marked} lines carry the exception bit but byte 33 counts {count} exceptions")]
    ExceptionCount { marked: usize, count: usize },
    /// An exception slot is not below the exception count.
    #[error("line {line}: exception slot {slot} is not below the exception count {count}")]
    ExceptionSlot { line: usize, slot: usize, count: usize },
    /// Two lines name the same exception slot.
    #[error("lines {first} and {line} both name exception slot {slot}")]
    SharedSlot { first: usize, line: usize, slot: usize },
    /// Metadata, slots and exceptions need more bytes than the page has.
    #[error("the layout needs {needed} bytes (64 + 32 × {target} + 128 × {exceptions}) but the page has {got}")]
    Overrun { needed: usize, target: usize, exceptions: usize, got: usize },
    /// A slot does not decode as a BDI stream.
    #[error("line {line} (slot of {target} bytes): {source}")]
    Line {
        line: usize,
        target: usize,
        #[source]
        source: DecodeError,
    },
    /// A line index of 32 or more.
    #[error("line {line} does not exist (a page has 32 lines)")]
    LineIndex { line: usize },
}

/// Where the lines of a page go: the outcome of choosing `c*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    /// `c*`; `None` when the page is stored uncompressed.
    pub target: Option<SizeClass>,
    /// Bit `i` set when line `i` is an exception (0 when uncompressed).
    pub exceptions: u32,
    /// Bytes the layout uses: `64 + 32·c* + 128·E` (4096 when uncompressed).
    pub used_bytes: usize,
    /// The physical page size in bytes: 512, 1024, 2048 or 4096.
    pub physical_bytes: usize,
}

impl Layout {
    /// The layout for lines whose BDI stored sizes are `line_bytes` (bytes
    /// of each line's size class: 0 for ZERO, 128 for RAW), chosen as the
    /// module docs say.
    pub fn choose(line_bytes: &[usize; LINES_PER_PAGE]) -> Layout {
        let mut best: Option<Layout> = None;
        for target in TARGETS {
            let c = target.bytes();
            let exceptions = line_bytes.iter().enumerate().filter(|(_, &b)| b > c).fold(0u32, |m, (i, _)| m | 1 << i);
            let used = METADATA_BYTES + LINES_PER_PAGE * c + ENTRY_BYTES * exceptions.count_ones() as usize;
            let Some(&physical) = PHYSICAL_SIZES[..3].iter().find(|&&p| used <= p) else { continue };
            let candidate = Layout { target: Some(target), exceptions, used_bytes: used, physical_bytes: physical };
            // Smaller page, then fewer exceptions; TARGETS ascend, so a tie keeps the smaller c*.
            let better = match best {
                None => true,
                Some(b) => (physical, exceptions.count_ones()) < (b.physical_bytes, b.exceptions.count_ones()),
            };
            if better {
                best = Some(candidate);
            }
        }
        best.unwrap_or(Layout::UNCOMPRESSED)
    }

    /// The layout of a page stored uncompressed.
    pub const UNCOMPRESSED: Layout = Layout { target: None, exceptions: 0, used_bytes: PAGE_BYTES, physical_bytes: PAGE_BYTES };

    /// Number of exceptions `E`.
    pub const fn exception_count(&self) -> usize {
        self.exceptions.count_ones() as usize
    }
}

/// One page compressed with LCP: its physical bytes and layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LcpPage {
    bytes: Vec<u8>,
    layout: Layout,
}

/// The 32 memory-entries of a 4096-byte page, in address order.
pub fn page_entries(page: &[u8; PAGE_BYTES]) -> [MemoryEntry; LINES_PER_PAGE] {
    std::array::from_fn(|i| MemoryEntry::from_slice(&page[i * ENTRY_BYTES..(i + 1) * ENTRY_BYTES]).expect("128 bytes"))
}

/// BDI stored size in bytes of every line (its size class's bytes).
fn bdi_bytes(lines: &[MemoryEntry; LINES_PER_PAGE]) -> [usize; LINES_PER_PAGE] {
    std::array::from_fn(|i| Bdi.compress(&lines[i]).class.bytes())
}

impl LcpPage {
    /// Compress the 32 lines of a page (module docs): BDI per line, `c*`,
    /// exceptions, and the physical bytes (512, 1024, 2048 or 4096 of them).
    pub fn compress(lines: &[MemoryEntry; LINES_PER_PAGE]) -> LcpPage {
        let compressed: Vec<_> = lines.iter().map(|e| Bdi.compress(e)).collect();
        let sizes: [usize; LINES_PER_PAGE] = std::array::from_fn(|i| compressed[i].class.bytes());
        let layout = Layout::choose(&sizes);
        let Some(target) = layout.target else {
            return LcpPage { bytes: lines.iter().flat_map(|e| e.to_bytes()).collect(), layout };
        };
        let c = target.bytes();
        let mut bytes = vec![0u8; layout.physical_bytes];
        bytes[TARGET_BYTE] = target.code();
        bytes[COUNT_BYTE] = layout.exception_count() as u8;
        let exceptions_at = METADATA_BYTES + LINES_PER_PAGE * c;
        let mut slot = 0;
        for (i, (line, ce)) in lines.iter().zip(&compressed).enumerate() {
            if layout.exceptions >> i & 1 == 1 {
                bytes[i] = EXCEPTION_BIT | slot as u8;
                let at = exceptions_at + ENTRY_BYTES * slot;
                bytes[at..at + ENTRY_BYTES].copy_from_slice(&line.to_bytes());
                slot += 1;
            } else {
                // ZERO's payload is all zero: BDI's zeros encoding.
                let at = METADATA_BYTES + i * c;
                bytes[at..at + c].copy_from_slice(&ce.payload[..c]);
            }
        }
        LcpPage { bytes, layout }
    }

    /// Compress a page given as its 4096 bytes.
    pub fn from_page_bytes(page: &[u8; PAGE_BYTES]) -> LcpPage {
        Self::compress(&page_entries(page))
    }

    /// The physical bytes (what device memory holds for the page).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The physical page size in bytes: 512, 1024, 2048 or 4096.
    pub fn physical_size(&self) -> usize {
        self.bytes.len()
    }

    /// The layout: `c*`, exceptions, bytes used.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// `c*`, the target line size; `None` when stored uncompressed.
    pub fn target(&self) -> Option<SizeClass> {
        self.layout.target
    }

    /// False when the page is stored uncompressed (4096 bytes).
    pub fn is_compressed(&self) -> bool {
        self.layout.target.is_some()
    }

    /// Bit `i` set when line `i` is an exception.
    pub fn exceptions(&self) -> u32 {
        self.layout.exceptions
    }

    /// Read line `i` through the metadata, as LCP locates it
    /// ([`read_line`] on [`LcpPage::bytes`]).
    ///
    /// # Errors
    /// As [`read_line`] (never for a page made by [`LcpPage::compress`],
    /// except [`LcpError::LineIndex`]).
    pub fn line(&self, i: usize) -> Result<MemoryEntry, LcpError> {
        read_line(&self.bytes, i)
    }

    /// Decompress a page from its physical bytes alone.
    ///
    /// # Errors
    /// An [`LcpError`] naming what is wrong (module docs, Decisions).
    pub fn decompress(bytes: &[u8]) -> Result<[MemoryEntry; LINES_PER_PAGE], LcpError> {
        let Some(meta) = Metadata::parse(bytes)? else {
            return Ok(page_entries(bytes.try_into().expect("4096 bytes")));
        };
        let mut first_of_slot = [usize::MAX; LINES_PER_PAGE];
        let mut marked = 0;
        for (i, &b) in bytes[..LINES_PER_PAGE].iter().enumerate() {
            if b & EXCEPTION_BIT == 0 {
                continue;
            }
            marked += 1;
            let slot = meta.slot_of(i, b)?;
            if first_of_slot[slot] != usize::MAX {
                return Err(LcpError::SharedSlot { first: first_of_slot[slot], line: i, slot });
            }
            first_of_slot[slot] = i;
        }
        if marked != meta.count {
            return Err(LcpError::ExceptionCount { marked, count: meta.count });
        }
        let mut lines = [MemoryEntry::ZERO; LINES_PER_PAGE];
        for (i, line) in lines.iter_mut().enumerate() {
            *line = meta.line(bytes, i)?;
        }
        Ok(lines)
    }
}

/// The checked page-level metadata of a compressed page.
struct Metadata {
    target: SizeClass,
    count: usize,
}

impl Metadata {
    /// `None` for an uncompressed (4096-byte) page; else the checked
    /// page-level fields (size, `c*`, reserved bytes, count, overrun).
    fn parse(bytes: &[u8]) -> Result<Option<Metadata>, LcpError> {
        if bytes.len() == PAGE_BYTES {
            return Ok(None);
        }
        if !PHYSICAL_SIZES.contains(&bytes.len()) {
            return Err(LcpError::PhysicalSize { got: bytes.len() });
        }
        let code = bytes[TARGET_BYTE];
        let target = match SizeClass::from_code(code) {
            Ok(c) if TARGETS.contains(&c) => c,
            _ => return Err(LcpError::TargetCode { code }),
        };
        if let Some(byte) = (COUNT_BYTE + 1..METADATA_BYTES).find(|&b| bytes[b] != 0) {
            return Err(LcpError::Reserved { byte, value: bytes[byte] });
        }
        let count = bytes[COUNT_BYTE] as usize;
        let needed = METADATA_BYTES + LINES_PER_PAGE * target.bytes() + ENTRY_BYTES * count;
        if needed > bytes.len() {
            return Err(LcpError::Overrun { needed, target: target.bytes(), exceptions: count, got: bytes.len() });
        }
        Ok(Some(Metadata { target, count }))
    }

    /// The exception slot in metadata byte `b` of line `i` (exception bit
    /// set), checked against the reserved bits and the count.
    fn slot_of(&self, i: usize, b: u8) -> Result<usize, LcpError> {
        if b & !(EXCEPTION_BIT | SLOT_BITS) != 0 {
            return Err(LcpError::Reserved { byte: i, value: b });
        }
        let slot = (b & SLOT_BITS) as usize;
        if slot >= self.count {
            return Err(LcpError::ExceptionSlot { line: i, slot, count: self.count });
        }
        Ok(slot)
    }

    /// Line `i`, located through its metadata byte.
    fn line(&self, bytes: &[u8], i: usize) -> Result<MemoryEntry, LcpError> {
        let b = bytes[i];
        let c = self.target.bytes();
        if b & EXCEPTION_BIT != 0 {
            let at = METADATA_BYTES + LINES_PER_PAGE * c + ENTRY_BYTES * self.slot_of(i, b)?;
            return Ok(MemoryEntry::from_slice(&bytes[at..at + ENTRY_BYTES]).expect("checked by parse"));
        }
        if b != 0 {
            return Err(LcpError::Reserved { byte: i, value: b });
        }
        let at = METADATA_BYTES + i * c;
        Bdi.decode(self.target, &bytes[at..at + c]).map(|(e, _)| e).map_err(|source| LcpError::Line { line: i, target: c, source })
    }
}

/// Read line `i` of a page from its physical bytes, as LCP locates it: the
/// line's metadata byte, then offset `64 + i·c*` (a compressed line) or
/// `64 + 32·c* + 128·slot` (an exception); offset `128·i` of an
/// uncompressed page. Checks the page-level metadata and this line's byte,
/// not the other lines'.
///
/// # Errors
/// [`LcpError::LineIndex`] for `i >= 32`, else as [`LcpPage::decompress`].
pub fn read_line(bytes: &[u8], i: usize) -> Result<MemoryEntry, LcpError> {
    if i >= LINES_PER_PAGE {
        return Err(LcpError::LineIndex { line: i });
    }
    match Metadata::parse(bytes)? {
        None => Ok(MemoryEntry::from_slice(&bytes[i * ENTRY_BYTES..(i + 1) * ENTRY_BYTES]).expect("128 bytes")),
        Some(meta) => meta.line(bytes, i),
    }
}

/// The physical page size in bytes (512, 1024, 2048 or 4096) of a page
/// whose 32 lines are `lines`, without building its bytes.
pub fn physical_size_of(lines: &[MemoryEntry; LINES_PER_PAGE]) -> usize {
    Layout::choose(&bdi_bytes(lines)).physical_bytes
}

/// Pages of `len` bytes of data: `ceil(len / 4096)`.
pub const fn pages_of(len: usize) -> usize {
    len.div_ceil(PAGE_BYTES)
}

/// The device-memory bytes `data` occupies under LCP: `data` zero-padded
/// to a multiple of 4096 bytes, cut into 4 KB pages, and the sum of their
/// physical sizes (each 512, 1024, 2048 or 4096 bytes). 0 for no data.
///
/// The LCP compression ratio of `data` is `4096 · pages_of(len) /
/// physical_bytes_of(data)`.
pub fn physical_bytes_of(data: &[u8]) -> u64 {
    data.chunks(PAGE_BYTES)
        .map(|chunk| {
            let mut page = [0u8; PAGE_BYTES];
            page[..chunk.len()].copy_from_slice(chunk);
            physical_size_of(&page_entries(&page)) as u64
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_choice_follows_the_rules() {
        // All ZERO: c* = 8, 64 + 256 = 320 bytes → 512.
        let l = Layout::choose(&[0; 32]);
        assert_eq!((l.target, l.exceptions, l.used_bytes, l.physical_bytes), (Some(SizeClass::B8), 0, 320, 512));
        // All RAW: every c* makes every line an exception → uncompressed.
        assert_eq!(Layout::choose(&[128; 32]), Layout::UNCOMPRESSED);
        // 30 lines of 32 bytes and 2 RAW: c* = 32 with 2 exceptions =
        // 64 + 1024 + 256 = 1344 → 2048; c* = 8 and 16 give 30 exceptions.
        let mut sizes = [32; 32];
        sizes[3] = 128;
        sizes[17] = 128;
        let l = Layout::choose(&sizes);
        assert_eq!((l.target, l.exceptions, l.physical_bytes), (Some(SizeClass::B32), (1 << 3) | (1 << 17), 2048));
        // Ties on the physical size go to fewer exceptions: 28 lines of 8
        // bytes, 4 of 16: c* = 8 needs 64 + 256 + 512 = 832, c* = 16 needs
        // 64 + 512 = 576: both 1024 → c* = 16, no exception.
        let mut sizes = [8; 32];
        for s in &mut sizes[..4] {
            *s = 16;
        }
        let l = Layout::choose(&sizes);
        assert_eq!((l.target, l.exceptions, l.physical_bytes), (Some(SizeClass::B16), 0, 1024));
    }

    #[test]
    fn pages_of_rounds_up() {
        assert_eq!((pages_of(0), pages_of(1), pages_of(4096), pages_of(4097)), (0, 1, 1, 2));
        assert_eq!(physical_bytes_of(&[]), 0);
        assert_eq!(physical_bytes_of(&[0; 5000]), 1024); // two all-zero pages of 512
    }
}
