//! One Buddy Compression memory-controller slice without timing: what a
//! request reads and writes, and the values it answers with
//! (docs/formats.md#translation, docs/formats.md#sectors, docs/controller.md;
//! Buddy Compression Sec. III, Fig. 4; seed 001
//! Sec. 3.4).
//!
//! This is the behaviour model of the slice. The memory system's fast
//! engine serves every request through it and times the traffic it reports
//! (with the paper's idealized timing or the hardware's); the RTL engine and
//! the testbenches check the `BuddyController` hardware against it.
//!
//! - **Read** (compressed page): translate for class RAW (the whole device
//!   slot and buddy slot), read the size nibble through the metadata cache,
//!   translate for the class, load the class's device bytes and buddy bytes,
//!   decompress. A ZERO entry stores nothing.
//! - **Write**: a partial write (sector mask other than `0b1111`) reads the
//!   entry first and merges the written sectors in (read-modify-write); then
//!   compress, store the class's device part and buddy part, and write the
//!   nibble through the cache. Stale buddy bytes stay in place.
//! - **Uncompressed page** (PTE `compressed` = 0): no metadata and no codec;
//!   a read loads the 128-byte slot, a write stores its masked sectors.
//! - **Flush**: every dirty metadata sector is written back and the cache
//!   emptied (end of a run).
//!
//! Which sectors the timing of a request moves is part of the answer
//! ([`ReadPart`], [`WritePart`]): the device slot (read beside a metadata
//! miss, before the class is known), the class's device sectors, the buddy
//! sectors, and the metadata cache's sector fills and write-backs in the
//! order the cache made them.

use crate::metadata_cache::{CacheStats, MetadataCache, MetadataCacheConfig, Outcome, SectorMemory};
use crate::translation::{
    translate_entry, BuddyRegisters, ByteRange, EntryAccess, MetadataNibble, PageSize, Pte, TranslationFault, SECTOR_BYTES,
};
use crate::{Algorithm, Codec, MemoryEntry, SizeClass, ENTRY_BYTES};
use thiserror::Error;

/// Sector mask of a whole-entry write (bit `s`: bytes `32s..32s+32`).
pub const FULL_MASK: u8 = 0b1111;
/// 32-byte sectors per memory-entry ([`crate::SECTORS_PER_ENTRY`], as a count of addresses).
pub const SECTORS_PER_ENTRY: u64 = crate::entry::SECTORS_PER_ENTRY as u64;

/// The memories behind a slice, by physical byte address: device memory
/// (data slots), buddy-memory (its own address space from the GBBR), and,
/// through [`SectorMemory`], the metadata region of device memory (32-byte
/// sectors from `MD_BASE`). Unwritten bytes read as zero.
pub trait SliceMemory: SectorMemory {
    fn read_device(&mut self, address: u64, out: &mut [u8]);
    fn write_device(&mut self, address: u64, data: &[u8]);
    fn read_buddy(&mut self, address: u64, out: &mut [u8]);
    fn write_buddy(&mut self, address: u64, data: &[u8]);
}

/// Why a request cannot be served.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SliceError {
    /// The access does not translate (reserved target, below HEAP_BASE,
    /// buddy slot outside the carve-out).
    #[error("translation fault at {va:#x}: {fault}")]
    Fault { va: u64, fault: TranslationFault },
    /// The stored entry does not decode: a reserved size code, or a stream
    /// the decompressor rejects. `nibble`: the size nibble found (the
    /// reserved code, or the class whose stream does not decode).
    #[error("entry at {va:#x} does not decode: {message}")]
    Decode { va: u64, nibble: u8, message: String },
}

/// A run of consecutive 32-byte sectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sectors {
    /// Byte address of the first sector (a multiple of 32).
    pub first: u64,
    /// Sectors in the run (0: none).
    pub count: u64,
}

impl Sectors {
    /// The sectors a byte range touches.
    pub const fn of(range: ByteRange) -> Self {
        let (first, count) = range.sectors();
        Sectors { first, count }
    }

    /// Bytes the run moves.
    pub const fn bytes(&self) -> u64 {
        self.count * SECTOR_BYTES
    }
}

/// A metadata sector the cache moved: a fill (read) or a write-back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataTraffic {
    /// Byte address of the sector in the metadata region.
    pub address: u64,
    pub write_back: bool,
}

/// One metadata cache access of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataAccess {
    pub outcome: Outcome,
    /// Byte address of the metadata sector holding the nibble (the
    /// fill's address on a miss).
    pub sector: u64,
    /// The cache's memory traffic for it, in order (a line miss: the
    /// victim's write-backs, then the fill).
    pub traffic: Vec<MetadataTraffic>,
}

impl MetadataAccess {
    pub fn hit(&self) -> bool {
        self.outcome == Outcome::Hit
    }

    /// The sector fill, if the access missed.
    pub fn fill(&self) -> Option<u64> {
        self.traffic.iter().find(|t| !t.write_back).map(|t| t.address)
    }

    /// The write-backs, in order.
    pub fn write_backs(&self) -> impl Iterator<Item = u64> + '_ {
        self.traffic.iter().filter(|t| t.write_back).map(|t| t.address)
    }
}

/// What reading an entry moved (a read, or the read of a read-modify-write).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadPart {
    /// The size nibble's lookup (`None` on an uncompressed page).
    pub metadata: Option<MetadataAccess>,
    /// The class as stored (RAW on an uncompressed page).
    pub class: SizeClass,
    /// The whole device slot.
    pub slot: Sectors,
    /// The device sectors the class needs.
    pub device: Sectors,
    /// The buddy sectors the class needs.
    pub buddy: Sectors,
}

impl ReadPart {
    /// The nibble was in the metadata cache (or there is none).
    pub fn metadata_hit(&self) -> bool {
        self.metadata.as_ref().is_none_or(MetadataAccess::hit)
    }
}

/// What writing an entry moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WritePart {
    /// The class stored (RAW on an uncompressed page).
    pub class: SizeClass,
    /// Device sector runs written: the class's device part (compressed
    /// page), or one 1-sector run per masked sector (uncompressed page).
    pub device: Vec<Sectors>,
    /// Buddy sectors written.
    pub buddy: Sectors,
    /// The nibble's write (`None` on an uncompressed page).
    pub metadata: Option<MetadataAccess>,
}

/// A served request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    /// A read: the entry. A write: the entry memory now holds.
    pub entry: MemoryEntry,
    /// The read (or the read of a partial write to a compressed page).
    pub read: Option<ReadPart>,
    pub write: Option<WritePart>,
}

impl Served {
    /// Buddy-memory was read or written.
    pub fn touches_buddy(&self) -> bool {
        self.read.as_ref().is_some_and(|r| r.buddy.count > 0) || self.write.as_ref().is_some_and(|w| w.buddy.count > 0)
    }
}

/// What a flush moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flushed {
    /// Dirty-sector mask of every line, sets in order, ways in order, as
    /// the cache walks them.
    pub dirty: Vec<u32>,
    /// Sectors written back, in order.
    pub write_backs: Vec<u64>,
}

/// The run-wide facts a slice needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliceConfig {
    pub algorithm: Algorithm,
    pub metadata_cache: MetadataCacheConfig,
    pub regs: BuddyRegisters,
    pub page: PageSize,
}

/// The slice's memory with the metadata traffic recorded.
struct Recording<'a, M: SectorMemory> {
    memory: &'a mut M,
    traffic: Vec<MetadataTraffic>,
}

impl<M: SectorMemory> SectorMemory for Recording<'_, M> {
    fn read_sector(&mut self, address: u64, data: &mut [u8]) {
        self.traffic.push(MetadataTraffic { address, write_back: false });
        self.memory.read_sector(address, data);
    }
    fn write_sector(&mut self, address: u64, data: &[u8]) {
        self.traffic.push(MetadataTraffic { address, write_back: true });
        self.memory.write_sector(address, data);
    }
}

/// One controller slice: its metadata cache and codec.
pub struct ControllerSlice {
    config: SliceConfig,
    codec: Box<dyn Codec + Send + Sync>,
    cache: MetadataCache,
}

impl std::fmt::Debug for ControllerSlice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControllerSlice").field("config", &self.config).field("cache", &self.cache).finish()
    }
}

impl ControllerSlice {
    /// A slice with an empty metadata cache.
    ///
    /// # Errors
    /// A metadata cache geometry [`MetadataCacheConfig::validate`] rejects.
    pub fn new(config: SliceConfig) -> Result<Self, crate::metadata_cache::CacheConfigError> {
        Ok(ControllerSlice { config, codec: config.algorithm.codec(), cache: MetadataCache::new(config.metadata_cache)? })
    }

    pub fn config(&self) -> &SliceConfig {
        &self.config
    }

    /// The metadata cache's counters.
    pub fn metadata_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    fn translate(&self, pte: &Pte, va: u64, class: SizeClass) -> Result<EntryAccess, SliceError> {
        translate_entry(&self.config.regs, self.config.page, pte, va, class).map_err(|fault| SliceError::Fault { va, fault })
    }

    /// The nibble's place (a compressed page always has one).
    fn nibble_at(access: &EntryAccess) -> MetadataNibble {
        access.metadata.expect("a compressed page's entry has a metadata nibble")
    }

    fn class_of(va: u64, code: u8) -> Result<SizeClass, SliceError> {
        SizeClass::from_code(code).map_err(|e| SliceError::Decode { va, nibble: code, message: e.to_string() })
    }

    /// The stored bytes of `access`: device part, then buddy part.
    fn load(access: &EntryAccess, memory: &mut impl SliceMemory) -> Vec<u8> {
        let d = access.device.bytes as usize;
        let mut stored = vec![0u8; d + access.buddy.map_or(0, |b| b.bytes) as usize];
        memory.read_device(access.device.address, &mut stored[..d]);
        if let Some(b) = access.buddy {
            memory.read_buddy(b.address, &mut stored[d..]);
        }
        stored
    }

    fn store(access: &EntryAccess, payload: &[u8], memory: &mut impl SliceMemory) {
        let d = access.device.bytes as usize;
        memory.write_device(access.device.address, &payload[..d]);
        if let Some(b) = access.buddy {
            memory.write_buddy(b.address, &payload[d..d + b.bytes as usize]);
        }
    }

    /// Read the entry holding `va` on the page of `pte`.
    ///
    /// # Errors
    /// [`SliceError::Fault`] when the access does not translate,
    /// [`SliceError::Decode`] when the stored entry does not decode.
    pub fn read(&mut self, pte: &Pte, va: u64, memory: &mut impl SliceMemory) -> Result<Served, SliceError> {
        let (entry, part) = self.read_part(pte, va, memory)?;
        Ok(Served { entry, read: Some(part), write: None })
    }

    fn read_part(&mut self, pte: &Pte, va: u64, memory: &mut impl SliceMemory) -> Result<(MemoryEntry, ReadPart), SliceError> {
        let slot = self.translate(pte, va, SizeClass::Raw)?;
        if !pte.compressed {
            let mut bytes = [0u8; ENTRY_BYTES];
            memory.read_device(slot.device_slot.address, &mut bytes);
            let s = Sectors::of(slot.device_slot);
            let part = ReadPart { metadata: None, class: SizeClass::Raw, slot: s, device: s, buddy: Sectors::default() };
            return Ok((MemoryEntry::from_bytes(&bytes), part));
        }
        let mut recording = Recording { memory, traffic: Vec::new() };
        let at = Self::nibble_at(&slot);
        let (code, outcome) = self.cache.read_nibble(at, &mut recording);
        let metadata = MetadataAccess { outcome, sector: self.cache.sector_address(at.address), traffic: recording.traffic };
        let class = Self::class_of(va, code)?;
        let access = self.translate(pte, va, class)?;
        let stored = Self::load(&access, memory);
        let entry = self.codec.decompress(class, &stored).map_err(|e| SliceError::Decode { va, nibble: class.code(), message: e.to_string() })?;
        let part = ReadPart {
            metadata: Some(metadata),
            class,
            slot: Sectors::of(access.device_slot),
            device: Sectors::of(access.device),
            buddy: access.buddy.map_or_else(Sectors::default, Sectors::of),
        };
        Ok((entry, part))
    }

    /// Write the sectors of `mask` (bit `s`: bytes `32s..32s+32`; bits above
    /// 3 ignored) of `value` to the entry holding `va`.
    ///
    /// # Errors
    /// As [`ControllerSlice::read`] (the read of a partial write can fail to
    /// decode; nothing is then written).
    pub fn write(
        &mut self,
        pte: &Pte,
        va: u64,
        mask: u8,
        value: &[u8; ENTRY_BYTES],
        memory: &mut impl SliceMemory,
    ) -> Result<Served, SliceError> {
        let mask = mask & FULL_MASK;
        let merge = |old: &[u8; ENTRY_BYTES]| crate::entry::merge_sectors(old, value, mask);
        if !pte.compressed {
            let slot = self.translate(pte, va, SizeClass::Raw)?.device_slot;
            let mut old = [0u8; ENTRY_BYTES];
            memory.read_device(slot.address, &mut old);
            let merged = merge(&old);
            memory.write_device(slot.address, &merged);
            let device = (0..SECTORS_PER_ENTRY)
                .filter(|s| mask >> s & 1 == 1)
                .map(|s| Sectors { first: slot.address + s * SECTOR_BYTES, count: 1 })
                .collect();
            let part = WritePart { class: SizeClass::Raw, device, buddy: Sectors::default(), metadata: None };
            return Ok(Served { entry: MemoryEntry::from_bytes(&merged), read: None, write: Some(part) });
        }
        let (merged, read) = if mask == FULL_MASK {
            (*value, None)
        } else {
            let (old, part) = self.read_part(pte, va, memory)?;
            (merge(&old.to_bytes()), Some(part))
        };
        let entry = MemoryEntry::from_bytes(&merged);
        let c = self.codec.compress(&entry);
        let access = self.translate(pte, va, c.class)?;
        Self::store(&access, &c.payload, memory);
        let mut recording = Recording { memory, traffic: Vec::new() };
        let at = Self::nibble_at(&access);
        let outcome = self.cache.write_nibble(at, c.class.code(), &mut recording);
        let device = Sectors::of(access.device);
        let part = WritePart {
            class: c.class,
            device: if device.count > 0 { vec![device] } else { Vec::new() },
            buddy: access.buddy.map_or_else(Sectors::default, Sectors::of),
            metadata: Some(MetadataAccess { outcome, sector: self.cache.sector_address(at.address), traffic: recording.traffic }),
        };
        Ok(Served { entry, read, write: Some(part) })
    }

    /// Write every dirty metadata sector back and empty the cache.
    pub fn flush(&mut self, memory: &mut impl SliceMemory) -> Flushed {
        let dirty = self.cache.dirty_sectors();
        let mut recording = Recording { memory, traffic: Vec::new() };
        self.cache.flush(&mut recording);
        Flushed { dirty, write_backs: recording.traffic.iter().filter(|t| t.write_back).map(|t| t.address).collect() }
    }

    /// Store `entry` at `va` as initial memory contents: data and nibble
    /// straight into memory, bypassing the metadata cache (which must not
    /// hold the nibble's sector).
    ///
    /// # Errors
    /// [`SliceError::Fault`] when the access does not translate.
    pub fn preload(&self, pte: &Pte, va: u64, entry: &MemoryEntry, memory: &mut impl SliceMemory) -> Result<(), SliceError> {
        if !pte.compressed {
            let slot = self.translate(pte, va, SizeClass::Raw)?;
            memory.write_device(slot.device_slot.address, &entry.to_bytes());
            return Ok(());
        }
        let c = self.codec.compress(entry);
        let access = self.translate(pte, va, c.class)?;
        Self::store(&access, &c.payload, memory);
        write_nibble_in_memory(Self::nibble_at(&access), c.class.code(), memory);
        Ok(())
    }

    /// The entry at `va` as memory holds it, through the nibble in memory
    /// (not the cache: flush first), with no effect on anything.
    ///
    /// # Errors
    /// As [`ControllerSlice::read`].
    pub fn peek(&self, pte: &Pte, va: u64, memory: &mut impl SliceMemory) -> Result<MemoryEntry, SliceError> {
        let slot = self.translate(pte, va, SizeClass::Raw)?;
        if !pte.compressed {
            let mut bytes = [0u8; ENTRY_BYTES];
            memory.read_device(slot.device_slot.address, &mut bytes);
            return Ok(MemoryEntry::from_bytes(&bytes));
        }
        let class = Self::class_of(va, read_nibble_in_memory(Self::nibble_at(&slot), memory))?;
        let access = self.translate(pte, va, class)?;
        let stored = Self::load(&access, memory);
        self.codec.decompress(class, &stored).map_err(|e| SliceError::Decode { va, nibble: class.code(), message: e.to_string() })
    }
}

/// The nibble at `at` as the metadata region holds it.
pub fn read_nibble_in_memory(at: MetadataNibble, memory: &mut impl SectorMemory) -> u8 {
    let mut sector = [0u8; SECTOR_BYTES as usize];
    let base = at.address / SECTOR_BYTES * SECTOR_BYTES;
    memory.read_sector(base, &mut sector);
    let byte = sector[(at.address - base) as usize];
    if at.high {
        byte >> 4
    } else {
        byte & 0xF
    }
}

/// Set the nibble at `at` in the metadata region to `code` (read-modify-write of its sector).
pub fn write_nibble_in_memory(at: MetadataNibble, code: u8, memory: &mut impl SectorMemory) {
    let mut sector = [0u8; SECTOR_BYTES as usize];
    let base = at.address / SECTOR_BYTES * SECTOR_BYTES;
    memory.read_sector(base, &mut sector);
    let byte = &mut sector[(at.address - base) as usize];
    *byte = if at.high { (*byte & 0x0F) | (code << 4) } else { (*byte & 0xF0) | (code & 0xF) };
    memory.write_sector(base, &sector);
}
