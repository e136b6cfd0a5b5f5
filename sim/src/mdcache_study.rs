//! Metadata cache hit rate against cache size on a real access trace
//! (Buddy Compression Fig. 6b; docs/formats.md#metadata-cache, docs/formats.md#trace-driver).
//!
//! The trace's accesses go through the sectored L2 ([`crate::l2_cache`]);
//! every L2 request is one metadata access in the memory-controller slice
//! that owns the entry: a read looks the entry's size nibble up, a full
//! write-back writes it, a partial write-back (not all four sectors dirty)
//! reads it first (its read-modify-write) and then writes it. Each slice has
//! its own golden [`MetadataCache`].
//!
//! Slices (**decision**): entries are dealt to the slices in blocks of 64
//! entries (8 KiB of data), which is the data one 32-byte metadata sector
//! describes, so that no metadata sector is cached by two slices and one
//! slice's write-back never overwrites another's nibbles; which slice takes
//! a block is [`SliceMap`]'s (hashed, as the memory system's). Every page
//! is compressed, so every request needs its metadata.

use crate::l2_cache::{L2Cache, L2Config, L2ConfigError, L2Stats, MemRequest};
use crate::trace::{AddressLayout, Trace};
use buddy_golden::metadata_cache::{CacheConfigError, CacheStats, MetadataCache, MetadataCacheConfig};
use buddy_golden::translation::MetadataNibble;
use serde::Serialize;

pub use crate::config::SliceInterleave;
pub use crate::memory_system::request::{SliceMap, ENTRIES_PER_SLICE_BLOCK};

/// The L2 requests a trace causes, in order, with the final flush.
///
/// # Errors
/// An impossible L2 geometry.
pub fn l2_requests(trace: &Trace, layout: &AddressLayout, l2: L2Config) -> Result<(Vec<MemRequest>, L2Stats), L2ConfigError> {
    let mut cache = L2Cache::new(l2)?;
    let mut out = Vec::with_capacity(trace.accesses.len() / 4);
    for a in &trace.accesses {
        cache.access(layout.va(a), a.size as u64, a.write, &mut out);
    }
    cache.flush(&mut out);
    Ok((out, cache.stats()))
}

/// The result for one metadata cache size.
#[derive(Debug, Clone, Serialize)]
pub struct SizePoint {
    /// Metadata cache bytes per slice.
    pub bytes_per_slice: usize,
    /// Hits / metadata accesses, over all slices.
    pub hit_rate: f64,
    /// Metadata accesses, sector and line misses, 32-byte sector fills and
    /// write-backs, summed over the slices.
    pub stats: CacheStats,
}

/// Replay `requests` through `slices` metadata caches of `config` each,
/// the entries dealt to the slices as `interleave` says ([`SliceMap`]).
///
/// # Errors
/// An impossible cache geometry.
pub fn replay(
    requests: &[MemRequest],
    heap_base: u64,
    slices: usize,
    interleave: SliceInterleave,
    config: MetadataCacheConfig,
) -> Result<SizePoint, CacheConfigError> {
    let config = MetadataCacheConfig { slices: slices.max(1), ..config };
    let mut caches = (0..config.slices).map(|_| MetadataCache::new(config)).collect::<Result<Vec<_>, _>>()?;
    let map = SliceMap::for_cache(config.slices as u64, &config, interleave);
    let mut memory: Vec<u8> = Vec::new();
    for r in requests {
        let rel = r.entry_va - heap_base;
        let entry = rel / 128;
        let slice = map.slice_of_block(entry / ENTRIES_PER_SLICE_BLOCK) as usize;
        let at = MetadataNibble { address: rel >> 8, high: entry & 1 == 1 };
        let cache = &mut caches[slice];
        match r.write_mask() {
            None => {
                cache.read_nibble(at, &mut memory);
            }
            Some(mask) => {
                let value = if mask == 0xF { 0 } else { cache.read_nibble(at, &mut memory).0 };
                cache.write_nibble(at, value, &mut memory);
            }
        }
    }
    let mut stats = CacheStats::default();
    for c in &mut caches {
        c.flush(&mut memory);
        stats += c.stats();
    }
    Ok(SizePoint { bytes_per_slice: config.size_bytes, hit_rate: stats.hit_rate().unwrap_or(0.0), stats })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(entry: u64) -> MemRequest {
        MemRequest::read(0x1000_0000 + entry * 128)
    }

    /// 64 consecutive entries share one metadata sector: one miss, 63 hits.
    /// Entries 64 apart go to the next slice, 512 apart back to the first.
    #[test]
    fn one_sector_covers_64_entries_and_blocks_rotate_over_slices() {
        let reqs: Vec<_> = (0..64).map(read).collect();
        let p = replay(&reqs, 0x1000_0000, 8, SliceInterleave::Hashed, MetadataCacheConfig::default()).unwrap();
        assert_eq!((p.stats.reads, p.stats.hits, p.stats.line_misses), (64, 63, 1));
        // Two blocks in different slices: two misses; the same block again: hits.
        let reqs = vec![read(0), read(64), read(1), read(65)];
        let p = replay(&reqs, 0x1000_0000, 8, SliceInterleave::Hashed, MetadataCacheConfig::default()).unwrap();
        assert_eq!((p.stats.hits, p.stats.line_misses), (2, 2));
    }

    /// A partial write-back reads then writes (2 accesses); a full one only writes.
    #[test]
    fn partial_write_backs_read_modify_write_the_metadata() {
        let base = 0x1000_0000;
        let reqs =
            vec![MemRequest::write(base, 0b0011), MemRequest::write(base + 128, 0xF)];
        let p = replay(&reqs, base, 1, SliceInterleave::Hashed, MetadataCacheConfig::default()).unwrap();
        assert_eq!((p.stats.reads, p.stats.writes, p.stats.write_backs), (1, 2, 1));
    }

    #[test]
    fn a_bigger_cache_never_hits_less_on_a_strided_sweep() {
        // Sweep 16 sectors' worth of entries twice: a cache of >= 16 sectors
        // per slice (1 slice) hits the whole second pass.
        let reqs: Vec<_> = (0..2).flat_map(|_| (0..16).map(|s| read(s * 64))).collect();
        let small =
            replay(&reqs, 0x1000_0000, 1, SliceInterleave::Hashed, MetadataCacheConfig { size_bytes: 256, ways: 2, ..Default::default() })
                .unwrap();
        let big =
            replay(&reqs, 0x1000_0000, 1, SliceInterleave::Hashed, MetadataCacheConfig { size_bytes: 4096, ways: 4, ..Default::default() })
                .unwrap();
        assert_eq!(big.stats.hits, 16);
        assert!(small.hit_rate < big.hit_rate);
    }
}
