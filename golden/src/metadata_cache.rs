//! The metadata cache of one memory-controller slice (docs/formats.md#metadata-cache;
//! Buddy Compression Sec. III and Fig. 6b): set-associative, lines split
//! into sectors with a valid and a dirty bit each, true LRU within a set,
//! write-back, write-allocate. It caches the 4-bit size metadata; a miss
//! fetches one sector from device memory.

use crate::translation::MetadataNibble;
use thiserror::Error;

/// Metadata cache capacity per slice, bytes (Buddy Compression Table I:
/// 4 KB); the hardware's fixed size.
pub const DEFAULT_SIZE_BYTES: usize = 4096;
/// Metadata cache associativity (Table I: 4 ways); the hardware's.
pub const DEFAULT_WAYS: usize = 4;
/// Memory-controller slices whose caches share the metadata (Table I: 8
/// memory controllers, one 4 KB metadata cache slice each); the hardware's.
pub const DEFAULT_SLICES: usize = 8;

/// Geometry of a metadata cache, all in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MetadataCacheConfig {
    /// Total data capacity (default 4 KiB).
    pub size_bytes: usize,
    /// Associativity (default 4).
    pub ways: usize,
    /// Line size (default 128).
    pub line_bytes: usize,
    /// Sector size, the unit of fills and write-backs (default 32).
    pub sector_bytes: usize,
    /// Slices the metadata sectors are dealt over, one sector to each slice
    /// in turn (default 8; 1 for a cache that sees every sector). A slice's
    /// cache sees only every `slices`-th sector, so it places sectors by
    /// their index divided by `slices` and keeps the remainder in the tag,
    /// as a sliced L2 drops its slice-select bits: with the remainder in
    /// the set index, a slice would use one sector of each line and 1 of 8
    /// sets' worth of its capacity.
    pub slices: usize,
}

impl Default for MetadataCacheConfig {
    fn default() -> Self {
        MetadataCacheConfig {
            size_bytes: DEFAULT_SIZE_BYTES,
            ways: DEFAULT_WAYS,
            line_bytes: crate::ENTRY_BYTES,
            sector_bytes: crate::SECTOR_BYTES,
            slices: DEFAULT_SLICES,
        }
    }
}

/// A geometry that cannot be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum CacheConfigError {
    #[error("{what} = {value} must be a power of two")]
    NotPowerOfTwo { what: &'static str, value: usize },
    #[error("size {size} B is not a whole number of {ways}-way sets of {line} B lines")]
    Shape { size: usize, ways: usize, line: usize },
    #[error("a {line} B line cannot hold {sector} B sectors (1 to 32 sectors per line)")]
    Sectors { line: usize, sector: usize },
    #[error("the metadata must be dealt over 1 to 1024 slices, not {slices}")]
    Slices { slices: usize },
}

impl MetadataCacheConfig {
    /// Number of sets.
    pub fn sets(&self) -> usize {
        self.size_bytes / (self.ways * self.line_bytes)
    }

    /// Sectors per line.
    pub fn sectors_per_line(&self) -> usize {
        self.line_bytes / self.sector_bytes
    }

    /// Check the geometry.
    ///
    /// # Errors
    /// A [`CacheConfigError`] naming the first bad parameter.
    pub fn validate(&self) -> Result<(), CacheConfigError> {
        for (what, value) in [("size", self.size_bytes), ("ways", self.ways), ("line", self.line_bytes), ("sector", self.sector_bytes)] {
            if !value.is_power_of_two() {
                return Err(CacheConfigError::NotPowerOfTwo { what, value });
            }
        }
        if self.size_bytes < self.ways * self.line_bytes {
            return Err(CacheConfigError::Shape { size: self.size_bytes, ways: self.ways, line: self.line_bytes });
        }
        if self.sector_bytes > self.line_bytes || self.line_bytes / self.sector_bytes > 32 {
            return Err(CacheConfigError::Sectors { line: self.line_bytes, sector: self.sector_bytes });
        }
        if !(1..=1024).contains(&self.slices) {
            return Err(CacheConfigError::Slices { slices: self.slices });
        }
        Ok(())
    }

    /// Where the metadata byte at `address` is kept (docs/formats.md#metadata-cache).
    ///
    /// With sector index `x = address / sector_bytes`, the slice's own
    /// sector index `y = x / slices`, line `l = y / sectors_per_line` and
    /// `S` sets: the set is `(l mod S) xor ((l / S) mod S)` (the line's low
    /// set bits folded with the next ones, so that arrays a power of two
    /// apart, whose lines agree in their low bits, spread over the sets),
    /// the tag `(l / S) * slices + x mod slices`, and the sector in the line
    /// `y mod sectors_per_line`.
    pub fn place(&self, address: u64) -> Place {
        let (sb, slices, sets) = (self.sector_bytes as u64, self.slices as u64, self.sets() as u64);
        let x = address / sb;
        let y = x / slices;
        let line = y / self.sectors_per_line() as u64;
        let high = line / sets;
        Place {
            tag: high * slices + x % slices,
            set: ((line % sets) ^ (high % sets)) as usize,
            sector: (y % self.sectors_per_line() as u64) as usize,
            offset: (address % sb) as usize,
        }
    }

    /// The byte address of sector `sector` of the line with `tag` in set
    /// `set`: the inverse of [`MetadataCacheConfig::place`] (offset 0).
    pub fn sector_address(&self, tag: u64, set: usize, sector: usize) -> u64 {
        let (slices, sets) = (self.slices as u64, self.sets() as u64);
        let high = tag / slices;
        let line = high * sets + (set as u64 ^ (high % sets));
        ((line * self.sectors_per_line() as u64 + sector as u64) * slices + tag % slices) * self.sector_bytes as u64
    }
}

/// A metadata byte's place in the cache ([`MetadataCacheConfig::place`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Place {
    /// Compared with the ways' tags: the line's bits above the set, then the slice remainder.
    pub tag: u64,
    /// Set index, `0..sets`.
    pub set: usize,
    /// Sector in the line, `0..sectors_per_line`.
    pub sector: usize,
    /// Byte in the sector.
    pub offset: usize,
}

/// The memory behind the cache: sector reads (fills) and writes (write-backs).
pub trait SectorMemory {
    /// Fill `data` (one sector) from byte address `address` (sector-aligned).
    fn read_sector(&mut self, address: u64, data: &mut [u8]);
    /// Write one sector at byte address `address` (sector-aligned).
    fn write_sector(&mut self, address: u64, data: &[u8]);
}

/// How one access was served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Line present, sector valid.
    Hit,
    /// Line present, sector not valid: one sector fill.
    SectorMiss,
    /// Line absent: a victim is evicted (its dirty sectors written back) and one sector filled.
    LineMiss,
}

/// Event counters; `fills` and `write_backs` are the memory-side requests,
/// one per sector.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct CacheStats {
    pub reads: u64,
    pub writes: u64,
    pub hits: u64,
    pub sector_misses: u64,
    pub line_misses: u64,
    pub fills: u64,
    pub write_backs: u64,
}

impl std::ops::AddAssign for CacheStats {
    /// Sum of two caches' counters (e.g. over the slices of a GPU).
    fn add_assign(&mut self, o: CacheStats) {
        self.reads += o.reads;
        self.writes += o.writes;
        self.hits += o.hits;
        self.sector_misses += o.sector_misses;
        self.line_misses += o.line_misses;
        self.fills += o.fills;
        self.write_backs += o.write_backs;
    }
}

impl CacheStats {
    /// Hits / accesses (None without accesses).
    pub fn hit_rate(&self) -> Option<f64> {
        let accesses = self.reads + self.writes;
        (accesses > 0).then(|| self.hits as f64 / accesses as f64)
    }
}

#[derive(Debug, Clone)]
struct Line {
    valid: bool,
    tag: u64,
    sector_valid: u32,
    sector_dirty: u32,
    last_use: u64,
    data: Vec<u8>,
}

/// The golden metadata cache.
#[derive(Debug, Clone)]
pub struct MetadataCache {
    config: MetadataCacheConfig,
    lines: Vec<Line>, // set-major: set * ways + way
    clock: u64,
    stats: CacheStats,
}

impl MetadataCache {
    /// An empty cache.
    ///
    /// # Errors
    /// The geometry is invalid (see [`MetadataCacheConfig::validate`]).
    pub fn new(config: MetadataCacheConfig) -> Result<Self, CacheConfigError> {
        config.validate()?;
        let line = Line { valid: false, tag: 0, sector_valid: 0, sector_dirty: 0, last_use: 0, data: vec![0; config.line_bytes] };
        Ok(MetadataCache { config, lines: vec![line; config.sets() * config.ways], clock: 0, stats: CacheStats::default() })
    }

    /// The geometry.
    pub fn config(&self) -> &MetadataCacheConfig {
        &self.config
    }

    /// Counters so far.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// The dirty sectors of every line (bit `s`: sector `s`; 0 for an
    /// invalid line), set-major (`set * ways + way`), the order in which
    /// [`MetadataCache::flush`] writes them back.
    pub fn dirty_sectors(&self) -> Vec<u32> {
        self.lines.iter().map(|l| if l.valid { l.sector_dirty } else { 0 }).collect()
    }

    /// Find or allocate the line of `address`, make its sector valid, and
    /// return (line index, byte offset in line, outcome).
    fn access(&mut self, address: u64, memory: &mut impl SectorMemory) -> (usize, usize, Outcome) {
        let c = self.config;
        let Place { tag, set, sector, offset } = c.place(address);
        let offset = sector * c.sector_bytes + offset;
        self.clock += 1;
        let ways = set * c.ways..(set + 1) * c.ways;
        let (index, mut outcome) = match ways.clone().find(|&i| self.lines[i].valid && self.lines[i].tag == tag) {
            Some(i) => (i, Outcome::Hit),
            None => {
                // True LRU: an invalid way first, else the least recently used.
                let victim = ways.min_by_key(|&i| (self.lines[i].valid, self.lines[i].last_use)).expect("ways >= 1");
                self.evict(victim, set, memory);
                let l = &mut self.lines[victim];
                l.valid = true;
                l.tag = tag;
                (victim, Outcome::LineMiss)
            }
        };
        let l = &mut self.lines[index];
        l.last_use = self.clock;
        if l.sector_valid >> sector & 1 == 0 {
            memory.read_sector(c.sector_address(tag, set, sector), &mut l.data[sector * c.sector_bytes..(sector + 1) * c.sector_bytes]);
            l.sector_valid |= 1 << sector;
            self.stats.fills += 1;
            if outcome == Outcome::Hit {
                outcome = Outcome::SectorMiss;
            }
        }
        match outcome {
            Outcome::Hit => self.stats.hits += 1,
            Outcome::SectorMiss => self.stats.sector_misses += 1,
            Outcome::LineMiss => self.stats.line_misses += 1,
        }
        (index, offset, outcome)
    }

    fn evict(&mut self, index: usize, set: usize, memory: &mut impl SectorMemory) {
        let c = self.config;
        let l = &mut self.lines[index];
        if l.valid {
            for s in 0..c.sectors_per_line() {
                if l.sector_dirty >> s & 1 == 1 {
                    memory.write_sector(c.sector_address(l.tag, set, s), &l.data[s * c.sector_bytes..(s + 1) * c.sector_bytes]);
                    self.stats.write_backs += 1;
                }
            }
        }
        l.valid = false;
        l.sector_valid = 0;
        l.sector_dirty = 0;
    }

    /// Byte address of the sector holding metadata byte `address` (the
    /// address a miss of it fills).
    pub fn sector_address(&self, address: u64) -> u64 {
        let b = self.config.sector_bytes as u64;
        address / b * b
    }

    /// Read the 4-bit metadata at `at`; returns (nibble 0..15, outcome).
    pub fn read_nibble(&mut self, at: MetadataNibble, memory: &mut impl SectorMemory) -> (u8, Outcome) {
        self.stats.reads += 1;
        let (i, off, outcome) = self.access(at.address, memory);
        let byte = self.lines[i].data[off];
        (if at.high { byte >> 4 } else { byte & 0xf }, outcome)
    }

    /// Write the 4-bit metadata `value` (low 4 bits used) at `at`
    /// (write-allocate: a miss fills the sector first).
    pub fn write_nibble(&mut self, at: MetadataNibble, value: u8, memory: &mut impl SectorMemory) -> Outcome {
        self.stats.writes += 1;
        let (i, off, outcome) = self.access(at.address, memory);
        let l = &mut self.lines[i];
        let byte = &mut l.data[off];
        *byte = if at.high { (*byte & 0x0f) | (value << 4) } else { (*byte & 0xf0) | (value & 0xf) };
        l.sector_dirty |= 1 << (off / self.config.sector_bytes);
        outcome
    }

    /// Write back every dirty sector and invalidate the cache.
    pub fn flush(&mut self, memory: &mut impl SectorMemory) {
        let ways = self.config.ways;
        for i in 0..self.lines.len() {
            self.evict(i, i / ways, memory);
        }
    }
}

/// A flat byte memory, e.g. the metadata region in device memory.
impl SectorMemory for Vec<u8> {
    fn read_sector(&mut self, address: u64, data: &mut [u8]) {
        let a = address as usize;
        if self.len() < a + data.len() {
            self.resize(a + data.len(), 0);
        }
        data.copy_from_slice(&self[a..a + data.len()]);
    }
    fn write_sector(&mut self, address: u64, data: &[u8]) {
        let a = address as usize;
        if self.len() < a + data.len() {
            self.resize(a + data.len(), 0);
        }
        self[a..a + data.len()].copy_from_slice(data);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(address: u64, high: bool) -> MetadataNibble {
        MetadataNibble { address, high }
    }

    #[test]
    fn outcomes_and_counters() {
        let mut mem = vec![0u8; 1 << 16];
        mem[40] = 0x5a;
        let mut c = MetadataCache::new(MetadataCacheConfig { slices: 1, ..Default::default() }).unwrap();
        assert_eq!(c.read_nibble(at(40, false), &mut mem), (0xa, Outcome::LineMiss));
        assert_eq!(c.read_nibble(at(40, true), &mut mem), (0x5, Outcome::Hit));
        assert_eq!(c.read_nibble(at(0, false), &mut mem), (0, Outcome::SectorMiss));
        assert_eq!(c.write_nibble(at(1, true), 9, &mut mem), Outcome::Hit);
        let s = c.stats();
        assert_eq!((s.hits, s.sector_misses, s.line_misses, s.fills, s.write_backs), (2, 1, 1, 2, 0));
        assert_eq!(c.dirty_sectors().iter().filter(|&&d| d != 0).collect::<Vec<_>>(), [&1]);
        c.flush(&mut mem);
        assert!(c.dirty_sectors().iter().all(|&d| d == 0));
        assert_eq!(mem[1], 0x90);
        assert_eq!(c.stats().write_backs, 1);
    }

    #[test]
    fn lru_evicts_the_least_recently_used_way() {
        // 1 set x 2 ways of 128 B lines.
        let cfg = MetadataCacheConfig { size_bytes: 256, ways: 2, line_bytes: 128, sector_bytes: 32, slices: 1 };
        let mut mem = vec![0u8; 1024];
        let mut c = MetadataCache::new(cfg).unwrap();
        c.write_nibble(at(0, false), 1, &mut mem); // line 0 dirty
        c.read_nibble(at(128, false), &mut mem); // line 1
        c.read_nibble(at(0, false), &mut mem); // line 0 most recent
        assert_eq!(c.read_nibble(at(256, false), &mut mem).1, Outcome::LineMiss); // evicts line 1 (clean)
        assert_eq!(c.stats().write_backs, 0);
        assert_eq!(c.read_nibble(at(128, false), &mut mem).1, Outcome::LineMiss); // evicts line 0 (dirty)
        assert_eq!(c.stats().write_backs, 1);
        assert_eq!(mem[0], 1);
    }

    #[test]
    fn bad_geometry_is_an_error() {
        let bad = |size, ways, line, sector| {
            MetadataCache::new(MetadataCacheConfig { size_bytes: size, ways, line_bytes: line, sector_bytes: sector, slices: 8 }).is_err()
        };
        assert!(bad(3000, 4, 128, 32));
        assert!(bad(256, 4, 128, 32));
        assert!(bad(4096, 4, 32, 64));
        assert!(!bad(1024, 4, 128, 32));
        assert!(MetadataCache::new(MetadataCacheConfig { slices: 0, ..Default::default() }).is_err());
    }

    /// In an 8-slice cache, a slice's sectors 0, 8, 16, 24 share a line;
    /// sector 1 belongs to another slice and gets a line of its own.
    #[test]
    fn a_slice_line_holds_every_eighth_sector() {
        let mut mem = vec![0u8; 1 << 16];
        let mut c = MetadataCache::new(MetadataCacheConfig::default()).unwrap();
        assert_eq!(c.read_nibble(at(0, false), &mut mem).1, Outcome::LineMiss);
        for s in [8, 16, 24] {
            assert_eq!(c.read_nibble(at(s * 32 + 3, true), &mut mem).1, Outcome::SectorMiss);
        }
        assert_eq!(c.read_nibble(at(32, false), &mut mem).1, Outcome::LineMiss);
        assert_eq!(c.read_nibble(at(32 * 32, false), &mut mem).1, Outcome::LineMiss, "sector 32 is the next line");
    }

    /// Lines a multiple of the set count apart fold into different sets, so
    /// more than `ways` of them stay cached at once.
    #[test]
    fn power_of_two_strides_spread_over_the_sets() {
        let cfg = MetadataCacheConfig::default();
        let line_stride = (cfg.sets() * cfg.sectors_per_line() * cfg.slices * cfg.sector_bytes) as u64;
        let sets: std::collections::BTreeSet<usize> = (0..cfg.sets() as u64).map(|k| cfg.place(k * line_stride).set).collect();
        assert_eq!(sets.len(), cfg.sets());
        let mut mem = vec![0u8; 1 << 16];
        let mut c = MetadataCache::new(cfg).unwrap();
        for pass in 0..2 {
            for k in 0..cfg.sets() as u64 {
                let o = c.read_nibble(at(k * line_stride, false), &mut mem).1;
                assert_eq!(o == Outcome::Hit, pass == 1);
            }
        }
    }

    #[test]
    fn sector_address_inverts_place() {
        for cfg in [MetadataCacheConfig::default(), MetadataCacheConfig { slices: 3, size_bytes: 1024, ..Default::default() }] {
            for address in (0..1 << 20).step_by(4093) {
                let p = cfg.place(address);
                assert!(p.set < cfg.sets() && p.sector < cfg.sectors_per_line());
                assert_eq!(cfg.sector_address(p.tag, p.set, p.sector) + p.offset as u64, address);
            }
        }
    }
}
