//! The 128-byte memory-entry (docs/formats.md#memory-entry).

/// Bytes in one memory-entry: the GPU cache-line size (Buddy Compression, Sec. III).
pub const ENTRY_BYTES: usize = 128;
/// 32-bit words in one memory-entry.
pub const ENTRY_WORDS: usize = 32;
/// Bytes in one sector, the unit DRAM and the link move (Buddy
/// Compression Sec. III: 32-byte sectors, four per memory-entry).
pub const SECTOR_BYTES: usize = 32;
/// Sectors in one memory-entry.
pub const SECTORS_PER_ENTRY: usize = ENTRY_BYTES / SECTOR_BYTES;
/// 32-bit words in one sector.
pub const SECTOR_WORDS: usize = ENTRY_WORDS / SECTORS_PER_ENTRY;

/// The memory-entry `old` with the sectors of `mask` (bit `s` = bytes
/// `32s..32s+32`; bits above [`SECTORS_PER_ENTRY`] ignored) taken from
/// `new`: what a masked write leaves in memory.
pub fn merge_sectors(old: &[u8; ENTRY_BYTES], new: &[u8; ENTRY_BYTES], mask: u8) -> [u8; ENTRY_BYTES] {
    let mut merged = *old;
    for s in (0..SECTORS_PER_ENTRY).filter(|s| mask >> s & 1 == 1) {
        merged[s * SECTOR_BYTES..(s + 1) * SECTOR_BYTES].copy_from_slice(&new[s * SECTOR_BYTES..(s + 1) * SECTOR_BYTES]);
    }
    merged
}

/// One 128-byte memory-entry, as it sits in memory.
///
/// Viewed as 32 words `w[0..32]`, each 32 bits, little-endian:
/// `w[i] = b[4i] | b[4i+1] << 8 | b[4i+2] << 16 | b[4i+3] << 24`.
/// In hardware it is one 1024-bit vector `E` with `E[32i +: 32] = w[i]`
/// (bit `k` of `E` is bit `k mod 8` of byte `k div 8`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemoryEntry {
    words: [u32; ENTRY_WORDS],
}

impl MemoryEntry {
    /// The all-zero entry (size class ZERO).
    pub const ZERO: MemoryEntry = MemoryEntry { words: [0; ENTRY_WORDS] };

    /// An entry from its 32 words, `words[i]` = `w[i]`.
    pub const fn from_words(words: [u32; ENTRY_WORDS]) -> Self {
        MemoryEntry { words }
    }

    /// An entry from exactly 128 bytes in memory order.
    pub fn from_bytes(bytes: &[u8; ENTRY_BYTES]) -> Self {
        let mut words = [0u32; ENTRY_WORDS];
        for (w, chunk) in words.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        MemoryEntry { words }
    }

    /// An entry from a slice; `None` unless the slice is exactly 128 bytes.
    pub fn from_slice(bytes: &[u8]) -> Option<Self> {
        let arr: &[u8; ENTRY_BYTES] = bytes.try_into().ok()?;
        Some(Self::from_bytes(arr))
    }

    /// The 32 little-endian words.
    pub const fn words(&self) -> &[u32; ENTRY_WORDS] {
        &self.words
    }

    /// The 128 bytes in memory order.
    pub fn to_bytes(&self) -> [u8; ENTRY_BYTES] {
        let mut out = [0u8; ENTRY_BYTES];
        for (chunk, w) in out.chunks_exact_mut(4).zip(self.words.iter()) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// True when all 32 words are zero (size class ZERO, docs/formats.md#size-classes).
    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The entry as a 1024-bit vector written as 256 hex digits, most significant
    /// first (`w[31]` first), as Verilog `$readmemh` reads an `E[1023:0]`.
    pub fn to_hex(&self) -> String {
        self.words.iter().rev().map(|w| format!("{w:08x}")).collect()
    }
}

impl Default for MemoryEntry {
    fn default() -> Self {
        Self::ZERO
    }
}

impl std::fmt::Debug for MemoryEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MemoryEntry(")?;
        for (i, w) in self.words.iter().enumerate() {
            if i > 0 {
                write!(f, " ")?;
            }
            write!(f, "{w:08x}")?;
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_little_endian() {
        let mut bytes = [0u8; ENTRY_BYTES];
        bytes[0] = 0x78;
        bytes[1] = 0x56;
        bytes[2] = 0x34;
        bytes[3] = 0x12;
        bytes[127] = 0xab;
        let e = MemoryEntry::from_bytes(&bytes);
        assert_eq!(e.words()[0], 0x1234_5678);
        assert_eq!(e.words()[31], 0xab00_0000);
        assert_eq!(e.to_bytes(), bytes);
        assert!(e.to_hex().starts_with("ab000000"));
        assert!(e.to_hex().ends_with("12345678"));
    }

    #[test]
    fn from_slice_rejects_wrong_length() {
        assert!(MemoryEntry::from_slice(&[0u8; 127]).is_none());
        assert!(MemoryEntry::from_slice(&[0u8; 129]).is_none());
        assert_eq!(MemoryEntry::from_slice(&[0u8; 128]), Some(MemoryEntry::ZERO));
    }
}
