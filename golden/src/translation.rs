//! Buddy address translation: PTE Buddy fields, the GBBR/MD_BASE/HEAP_BASE
//! registers, and where each byte, sector and metadata nibble of a memory-entry
//! lives (docs/formats.md#translation; Buddy Compression Sec. III, Fig. 4).
//!
//! A compressed page keeps `device_bytes` of each 128B entry in its device
//! frame and the rest in the entry's fixed buddy slot of `buddy_stride` bytes
//! in the carve-out at the GBBR. Faults (a reserved target code, an address
//! outside the carve-out, `va < HEAP_BASE` on a compressed page) are values,
//! never wrong addresses.

use crate::entry::ENTRY_BYTES;
use crate::size_class::SizeClass;
use thiserror::Error;

/// Bytes in one DRAM sector, as an address step ([`crate::SECTOR_BYTES`]).
pub const SECTOR_BYTES: u64 = crate::entry::SECTOR_BYTES as u64;

/// Page sizes (docs/formats.md#pte-fields-and-registers); in the
/// simulator's TOML, `"2M"` and `"64K"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PageSize {
    /// 2 MiB (default).
    #[serde(rename = "2M")]
    Huge2M,
    /// 64 KiB.
    #[serde(rename = "64K")]
    Small64K,
}

impl PageSize {
    /// The page size in bytes.
    pub const fn bytes(self) -> u64 {
        match self {
            PageSize::Huge2M => 2 << 20,
            PageSize::Small64K => 64 << 10,
        }
    }
}

/// The target compression ratio of a page: its 3-bit PTE code (docs/formats.md#target-ratios).
///
/// | code | ratio | device bytes / entry | buddy stride / entry |
/// |---|---|---|---|
/// | 0 | 1x | 128 | 0 |
/// | 1 | 4/3x | 96 | 32 |
/// | 2 | 2x | 64 | 64 |
/// | 3 | 4x | 32 | 96 |
/// | 4 | 16x | 8 | 128 |
///
/// Codes 5-7 are reserved: [`TargetRatio::from_code`] gives
/// [`TranslationFault::ReservedTarget`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TargetRatio {
    X1,
    X4Over3,
    X2,
    X4,
    X16,
}

impl TargetRatio {
    /// Every target, least aggressive first.
    pub const ALL: [TargetRatio; 5] = [TargetRatio::X1, TargetRatio::X4Over3, TargetRatio::X2, TargetRatio::X4, TargetRatio::X16];

    /// The 3-bit PTE code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The target of a 3-bit code.
    ///
    /// # Errors
    /// [`TranslationFault::ReservedTarget`] for codes 5 and above.
    pub fn from_code(code: u8) -> Result<Self, TranslationFault> {
        Self::ALL.get(code as usize).copied().ok_or(TranslationFault::ReservedTarget { code })
    }

    /// Bytes of each entry kept in device memory.
    pub const fn device_bytes(self) -> u64 {
        match self {
            TargetRatio::X1 => 128,
            TargetRatio::X4Over3 => 96,
            TargetRatio::X2 => 64,
            TargetRatio::X4 => 32,
            TargetRatio::X16 => 8,
        }
    }

    /// Bytes of each entry's buddy slot (128 for 16x keeps slots 32B-aligned).
    pub const fn buddy_stride(self) -> u64 {
        match self {
            TargetRatio::X1 => 0,
            TargetRatio::X4Over3 => 32,
            TargetRatio::X2 => 64,
            TargetRatio::X4 => 96,
            TargetRatio::X16 => 128,
        }
    }

    /// The ratio as a number (128 / device bytes).
    pub fn ratio(self) -> f64 {
        ENTRY_BYTES as f64 / self.device_bytes() as f64
    }

    /// True when an entry of `class` fits in its device part.
    pub const fn fits(self, class: SizeClass) -> bool {
        class.bytes() as u64 <= self.device_bytes()
    }

    /// The name used in annotation files and reports: `1x`, `4/3x`, `2x`,
    /// `4x`, `16x`.
    pub const fn name(self) -> &'static str {
        match self {
            TargetRatio::X1 => "1x",
            TargetRatio::X4Over3 => "4/3x",
            TargetRatio::X2 => "2x",
            TargetRatio::X4 => "4x",
            TargetRatio::X16 => "16x",
        }
    }

    /// The next less aggressive target (`None` for 1x).
    pub const fn less_aggressive(self) -> Option<TargetRatio> {
        match self {
            TargetRatio::X1 => None,
            TargetRatio::X4Over3 => Some(TargetRatio::X1),
            TargetRatio::X2 => Some(TargetRatio::X4Over3),
            TargetRatio::X4 => Some(TargetRatio::X2),
            TargetRatio::X16 => Some(TargetRatio::X4),
        }
    }
}

impl std::fmt::Display for TargetRatio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A target name that is not one of `1x`, `4/3x`, `2x`, `4x`, `16x`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown target ratio '{0}' (valid: 1x, 4/3x, 2x, 4x, 16x)")]
pub struct UnknownTarget(pub String);

impl std::str::FromStr for TargetRatio {
    type Err = UnknownTarget;

    /// Parses [`TargetRatio::name`] (also without the trailing `x`, and
    /// `1.33x` for 4/3x).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let t = t.strip_suffix('x').unwrap_or(t);
        match t {
            "1" => Ok(TargetRatio::X1),
            "4/3" | "1.33" => Ok(TargetRatio::X4Over3),
            "2" => Ok(TargetRatio::X2),
            "4" => Ok(TargetRatio::X4),
            "16" => Ok(TargetRatio::X16),
            _ => Err(UnknownTarget(s.to_string())),
        }
    }
}

/// The Buddy fields of a GPU PTE (27 spare bits, docs/formats.md#pte-fields-and-registers), with
/// the page's device frame.
///
/// Packed as 27 bits (**decision**, LSB first): bit 0 `compressed`, bits
/// 1..=3 `target`, bits 4..=26 `buddy_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pte {
    /// Physical byte address of the page's device frame (holds
    /// `page_size * device_bytes / 128` bytes).
    pub frame: u64,
    /// 0: an ordinary page, no metadata, no buddy.
    pub compressed: bool,
    /// The 3-bit target code (0-4; 5-7 reserved).
    pub target_code: u8,
    /// The page's buddy slot in units of `page_size / 4` from the GBBR (23 bits).
    pub buddy_offset: u32,
}

impl Pte {
    /// The 27 Buddy bits.
    pub const fn buddy_bits(&self) -> u32 {
        (self.compressed as u32) | ((self.target_code as u32 & 7) << 1) | ((self.buddy_offset & 0x7F_FFFF) << 4)
    }

    /// A PTE from its frame and 27 Buddy bits (bits above 26 are ignored).
    pub const fn from_buddy_bits(frame: u64, bits: u32) -> Self {
        Pte { frame, compressed: bits & 1 == 1, target_code: ((bits >> 1) & 7) as u8, buddy_offset: (bits >> 4) & 0x7F_FFFF }
    }
}

/// The translation registers of one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BuddyRegisters {
    /// Global Buddy Base-address Register: base of the buddy carve-out.
    pub gbbr: u64,
    /// Size of the carve-out in bytes (3x device memory for a 4x maximum).
    pub carve_out_bytes: u64,
    /// Base of the metadata region in device memory.
    pub md_base: u64,
    /// Lowest virtual address of compressed allocations.
    pub heap_base: u64,
}

/// Why an access cannot be translated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum TranslationFault {
    /// The PTE's target code is 5-7.
    #[error("reserved target code {code} in PTE (valid: 0-4)")]
    ReservedTarget { code: u8 },
    /// The buddy slot lies (partly) outside the carve-out.
    #[error("buddy address {address:#x}..{end:#x} outside the carve-out {gbbr:#x}..{carve_end:#x}")]
    OutsideCarveOut { address: u64, end: u64, gbbr: u64, carve_end: u64 },
    /// A compressed page below HEAP_BASE has no metadata.
    #[error("virtual address {va:#x} below HEAP_BASE {heap_base:#x} on a compressed page")]
    BelowHeapBase { va: u64, heap_base: u64 },
}

/// A contiguous byte range in device or buddy memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ByteRange {
    pub address: u64,
    pub bytes: u64,
}

impl ByteRange {
    /// Address one past the last byte.
    pub const fn end(&self) -> u64 {
        self.address + self.bytes
    }

    /// The 32B sectors touched, as (first sector address, count).
    pub const fn sectors(&self) -> (u64, u64) {
        if self.bytes == 0 {
            return (self.address / SECTOR_BYTES * SECTOR_BYTES, 0);
        }
        let first = self.address / SECTOR_BYTES;
        let last = (self.end() - 1) / SECTOR_BYTES;
        (first * SECTOR_BYTES, last - first + 1)
    }
}

/// Where the 4-bit size metadata of an entry lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MetadataNibble {
    /// Byte address: `MD_BASE + ((va - HEAP_BASE) >> 8)`.
    pub address: u64,
    /// False: low nibble (even entry); true: high nibble (odd entry).
    pub high: bool,
}

/// What reading (or writing) one entry of a given size class touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryAccess {
    /// The entry's device part (`device_bytes` from its slot start); the
    /// access needs `min(class bytes, device_bytes)` of it.
    pub device_slot: ByteRange,
    /// Device bytes the class needs: the first `min(class, device_bytes)`.
    pub device: ByteRange,
    /// Buddy bytes the class needs (`class bytes - device_bytes` from the
    /// slot start; 16x: the whole 120-byte spill), `None` when the entry fits.
    pub buddy: Option<ByteRange>,
    /// The metadata nibble, `None` for an uncompressed page.
    pub metadata: Option<MetadataNibble>,
}

fn page_offset(va: u64, page: PageSize) -> (u64, u64) {
    let in_page = va % page.bytes();
    (in_page / ENTRY_BYTES as u64, in_page % ENTRY_BYTES as u64)
}

fn buddy_slot(regs: &BuddyRegisters, page: PageSize, pte: &Pte, target: TargetRatio, e: u64) -> Result<ByteRange, TranslationFault> {
    let address = regs.gbbr + pte.buddy_offset as u64 * (page.bytes() / 4) + e * target.buddy_stride();
    let slot = ByteRange { address, bytes: target.buddy_stride() };
    let carve_end = regs.gbbr + regs.carve_out_bytes;
    if slot.bytes > 0 && slot.end() > carve_end {
        return Err(TranslationFault::OutsideCarveOut { address, end: slot.end(), gbbr: regs.gbbr, carve_end });
    }
    Ok(slot)
}

/// Translate an access to the entry holding `va`, whose size class is
/// `class` (docs/formats.md#addresses).
///
/// # Errors
/// A [`TranslationFault`] for a reserved target code, `va < HEAP_BASE` on a
/// compressed page, or a buddy slot outside the carve-out.
pub fn translate_entry(
    regs: &BuddyRegisters,
    page: PageSize,
    pte: &Pte,
    va: u64,
    class: SizeClass,
) -> Result<EntryAccess, TranslationFault> {
    let (e, _) = page_offset(va, page);
    if !pte.compressed {
        let slot = ByteRange { address: pte.frame + e * ENTRY_BYTES as u64, bytes: ENTRY_BYTES as u64 };
        return Ok(EntryAccess { device_slot: slot, device: slot, buddy: None, metadata: None });
    }
    let target = TargetRatio::from_code(pte.target_code)?;
    if va < regs.heap_base {
        return Err(TranslationFault::BelowHeapBase { va, heap_base: regs.heap_base });
    }
    let device_slot = ByteRange { address: pte.frame + e * target.device_bytes(), bytes: target.device_bytes() };
    let class_bytes = class.bytes() as u64;
    let device = ByteRange { address: device_slot.address, bytes: class_bytes.min(target.device_bytes()) };
    let slot = buddy_slot(regs, page, pte, target, e)?;
    let buddy =
        (class_bytes > target.device_bytes()).then(|| ByteRange { address: slot.address, bytes: class_bytes - target.device_bytes() });
    let rel = va - regs.heap_base;
    let metadata = Some(MetadataNibble { address: regs.md_base + (rel >> 8), high: (rel >> 7) & 1 == 1 });
    Ok(EntryAccess { device_slot, device, buddy, metadata })
}

/// Where one byte of an entry's 128-byte stored image lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// Device memory, physical byte address.
    Device(u64),
    /// Buddy memory, physical byte address.
    Buddy(u64),
}

/// The place of byte `o = va mod 128` of the stored image of the entry at
/// `va`: device part for `o < device_bytes`, else the buddy slot
/// (docs/formats.md#addresses).
///
/// # Errors
/// As [`translate_entry`].
pub fn locate_byte(regs: &BuddyRegisters, page: PageSize, pte: &Pte, va: u64) -> Result<Place, TranslationFault> {
    let (e, o) = page_offset(va, page);
    if !pte.compressed {
        return Ok(Place::Device(pte.frame + e * ENTRY_BYTES as u64 + o));
    }
    let target = TargetRatio::from_code(pte.target_code)?;
    if va < regs.heap_base {
        return Err(TranslationFault::BelowHeapBase { va, heap_base: regs.heap_base });
    }
    if o < target.device_bytes() {
        Ok(Place::Device(pte.frame + e * target.device_bytes() + o))
    } else {
        let slot = buddy_slot(regs, page, pte, target, e)?;
        Ok(Place::Buddy(slot.address + (o - target.device_bytes())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REGS: BuddyRegisters =
        BuddyRegisters { gbbr: 0x1_0000_0000, carve_out_bytes: 3 << 30, md_base: 0x8000_0000, heap_base: 0x7f00_0000_0000 };

    #[test]
    fn worked_example_2x_page() {
        // Entry 3 of a 2x page, class B96: 64 device bytes + 32 buddy bytes.
        let pte = Pte { frame: 0x20_0000, compressed: true, target_code: 2, buddy_offset: 5 };
        let va = REGS.heap_base + 2 * (2 << 20) + 3 * 128 + 17;
        let a = translate_entry(&REGS, PageSize::Huge2M, &pte, va, SizeClass::B96).unwrap();
        assert_eq!(a.device, ByteRange { address: 0x20_0000 + 3 * 64, bytes: 64 });
        assert_eq!(a.device.sectors(), (0x20_0000 + 192, 2));
        let buddy = REGS.gbbr + 5 * (512 << 10) + 3 * 64;
        assert_eq!(a.buddy, Some(ByteRange { address: buddy, bytes: 32 }));
        let rel = va - REGS.heap_base;
        assert_eq!(a.metadata, Some(MetadataNibble { address: REGS.md_base + (rel >> 8), high: true }));
        // A B64 entry fits: no buddy access.
        let fit = translate_entry(&REGS, PageSize::Huge2M, &pte, va, SizeClass::B64).unwrap();
        assert_eq!(fit.buddy, None);
        // Byte 17 is in the device part, byte 100 in the buddy slot.
        assert_eq!(locate_byte(&REGS, PageSize::Huge2M, &pte, va), Ok(Place::Device(0x20_0000 + 3 * 64 + 17)));
        assert_eq!(locate_byte(&REGS, PageSize::Huge2M, &pte, va - 17 + 100), Ok(Place::Buddy(buddy + 36)));
    }

    #[test]
    fn faults_are_values() {
        let mut pte = Pte { frame: 0, compressed: true, target_code: 5, buddy_offset: 0 };
        let va = REGS.heap_base;
        assert_eq!(translate_entry(&REGS, PageSize::Huge2M, &pte, va, SizeClass::B8), Err(TranslationFault::ReservedTarget { code: 5 }));
        pte.target_code = 2;
        assert!(matches!(
            translate_entry(&REGS, PageSize::Huge2M, &pte, REGS.heap_base - 128, SizeClass::B8),
            Err(TranslationFault::BelowHeapBase { .. })
        ));
        pte.buddy_offset = 0x7F_FFFF; // far past a 3 GiB carve-out
        assert!(matches!(translate_entry(&REGS, PageSize::Huge2M, &pte, va, SizeClass::B8), Err(TranslationFault::OutsideCarveOut { .. })));
    }

    #[test]
    fn pte_bits_round_trip() {
        let pte = Pte { frame: 0x1234_0000, compressed: true, target_code: 3, buddy_offset: 0x5A_5A5A };
        assert_eq!(pte.buddy_bits() >> 27, 0);
        assert_eq!(Pte::from_buddy_bits(pte.frame, pte.buddy_bits()), pte);
    }
}
