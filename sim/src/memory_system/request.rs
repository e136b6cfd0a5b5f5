//! A request as the controllers see it, what it returns, and how
//! entries are spread over the slices.

use std::cell::RefCell;
use std::rc::Rc;

use buddy_golden::metadata_cache::MetadataCacheConfig;
use buddy_golden::translation::{PageSize, Pte};
use buddy_golden::{MemoryEntry, ENTRY_BYTES};

use super::error::SimError;
use crate::config::SliceInterleave;

/// Entries are dealt to the slices in blocks of 64 (**decision**, as
/// `mdcache_study`): one 32-byte metadata sector's worth of 4-bit size
/// nibbles (two per byte), so every metadata sector belongs to one slice's
/// metadata cache.
pub const ENTRIES_PER_SLICE_BLOCK: u64 = 2 * buddy_golden::SECTOR_BYTES as u64;

/// Which slice serves which memory-entry (docs/formats.md#metadata-cache).
///
/// With `n` slices, block `b = entry index / 64` goes to slice
/// `(b mod n + h) mod n` where `h` is 0 (`plain`) or (`hashed`) the XOR of
/// the `k`-bit digits of `g = b / group_blocks`, `k = ceil(log2 n)`. A
/// group is the blocks whose metadata sectors make one line in each slice's
/// cache (the cache's slices times its sectors per line: 32 blocks by
/// default); the hash is constant over a group, so a slice still gets
/// every sector of its lines (`MetadataCacheConfig::place` keeps `b mod 8`
/// in the tag), and one block in `n` of each group when `n` divides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SliceMap {
    /// Slices, at least 1.
    pub slices: u64,
    /// Blocks per group, at least 1.
    pub group_blocks: u64,
    pub interleave: SliceInterleave,
}

impl SliceMap {
    /// The map of `slices` slices in front of metadata caches of geometry
    /// `cache`: a group is `cache.slices` x its sectors per line blocks.
    pub fn for_cache(slices: u64, cache: &MetadataCacheConfig, interleave: SliceInterleave) -> Self {
        SliceMap { slices, group_blocks: (cache.slices * cache.sectors_per_line()) as u64, interleave }
    }

    /// The slice (`0..slices`) of block `block` (entry index / 64).
    pub fn slice_of_block(&self, block: u64) -> u64 {
        let n = self.slices.max(1);
        let rotation = match self.interleave {
            SliceInterleave::Plain => 0,
            SliceInterleave::Hashed => {
                let k = u64::BITS - (n - 1).leading_zeros();
                let mut g = block / self.group_blocks.max(1);
                let mut h = 0;
                while k > 0 && g != 0 {
                    h ^= g & ((1 << k) - 1);
                    g >>= k;
                }
                h
            }
        };
        (block % n + rotation) % n
    }

    /// The slice that serves the memory-entry at virtual address `va` of a
    /// heap starting at `heap_base` (`va >= heap_base`).
    pub fn slice_of(&self, va: u64, heap_base: u64) -> u64 {
        self.slice_of_block((va - heap_base) / ENTRY_BYTES as u64 / ENTRIES_PER_SLICE_BLOCK)
    }
}

/// A request from the L2: a read, or a write of the sectors of `mask`
/// (bit `s` = bytes `32s..32s+32`) of `value`, to the memory-entry at
/// virtual address `va` (a multiple of 128).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub va: u64,
    pub write: bool,
    /// Sectors written (low 4 bits); 0 for a read.
    pub mask: u8,
    /// Sectors a read needs (low 4 bits; `0xF`: the whole entry); 0 for a
    /// write. Only an engine whose [`SliceEngine::sector_reads`] is true
    /// reads fewer than the whole entry, and only of an uncompressed page.
    ///
    /// [`SliceEngine::sector_reads`]: super::engine::SliceEngine::sector_reads
    pub read_sectors: u8,
    pub value: &'a [u8; ENTRY_BYTES],
}

/// What one request did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RequestInfo {
    /// Completion time, picoseconds.
    pub done: u64,
    /// Buddy-memory was read or written.
    pub buddy: bool,
}

/// A finished request: the entry read (reads) or left in memory (writes;
/// `None` when the engine's hardware does not answer it: the pipelined
/// slice's, and a flush's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Finished {
    pub entry: Option<MemoryEntry>,
    pub info: RequestInfo,
}

/// A request in flight; holds its result once its task has finished.
pub type Outcome = Rc<RefCell<Option<Result<Finished, SimError>>>>;

/// One request to a slice.
#[derive(Debug, Clone, Copy)]
pub struct SliceRequest {
    pub write: bool,
    pub flush: bool,
    pub mask: u8,
    pub va: u64,
    pub pte: Pte,
    pub page: PageSize,
    pub data: [u32; 32],
}

/// One memory-port request as the hardware offers it.
///
/// The serial slice's carry one sector (`data[..32]`, strobe bits 0-31)
/// and `len` is the burst it belongs to; the pipelined slice's carry a run
/// of `len` sectors (1-4), sector `k` at `data[32k..32k + 32]`.
#[derive(Debug, Clone, Copy)]
pub struct PortRequest {
    pub write: bool,
    pub address: u64,
    pub data: [u8; ENTRY_BYTES],
    /// Bit `k`: byte `k` of `data` is written.
    pub strobe: u128,
    pub len: u8,
    pub first: bool,
}

/// One sector as a request's data (bytes 0-31; the rest 0).
pub fn sector_data(sector: [u8; 32]) -> [u8; ENTRY_BYTES] {
    let mut data = [0; ENTRY_BYTES];
    data[..32].copy_from_slice(&sector);
    data
}

/// The words of a 128-byte entry value.
pub fn words_of(value: &[u8; ENTRY_BYTES]) -> [u32; 32] {
    *MemoryEntry::from_bytes(value).words()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(slices: u64, interleave: SliceInterleave) -> SliceMap {
        SliceMap { slices, group_blocks: 4 * slices, interleave }
    }

    #[test]
    fn plain_deals_blocks_in_turn() {
        let m = map(8, SliceInterleave::Plain);
        for b in 0..10_000 {
            assert_eq!(m.slice_of_block(b), b % 8);
        }
        assert_eq!(m.slice_of(0x1000_0000 + 64 * 128 * 11, 0x1000_0000), 3);
    }

    /// Per group of `n * 4` blocks, each slice takes exactly 4 blocks,
    /// all with the same `b mod n` (one metadata-cache line's sectors).
    #[test]
    fn hashed_keeps_lines_whole_and_slices_balanced() {
        for n in [1u64, 2, 3, 6, 8, 16, 64] {
            let m = map(n, SliceInterleave::Hashed);
            for g in (0..5_000u64).chain([1 << 20, (1 << 40) + 77]) {
                let mut rem = vec![None; n as usize];
                let mut count = vec![0; n as usize];
                for b in g * n * 4..(g + 1) * n * 4 {
                    let s = m.slice_of_block(b) as usize;
                    assert!(s < n as usize);
                    count[s] += 1;
                    assert_eq!(*rem[s].get_or_insert(b % n), b % n, "n {n}, group {g}: slice {s} takes two lines");
                }
                assert!(count.iter().all(|&c| c == 4), "n {n}, group {g}: {count:?}");
            }
        }
    }

    /// Arrays that start on successive 2 MiB boundaries (256 blocks) start
    /// on 8 different slices; plain dealing puts all of them on slice 0.
    #[test]
    fn hashed_spreads_arrays_on_the_same_boundary() {
        let starts = |i| (0..8u64).map(|k| map(8, i).slice_of_block(k * 256)).collect::<Vec<_>>();
        let mut hashed = starts(SliceInterleave::Hashed);
        hashed.sort_unstable();
        assert_eq!(hashed, (0..8).collect::<Vec<_>>());
        assert_eq!(starts(SliceInterleave::Plain), vec![0; 8]);
    }
}
