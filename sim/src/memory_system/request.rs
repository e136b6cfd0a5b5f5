//! A request as the controllers see it, what it returns, and how
//! entries are spread over the slices.

use std::cell::RefCell;
use std::rc::Rc;

use buddy_golden::translation::{PageSize, Pte};
use buddy_golden::{MemoryEntry, ENTRY_BYTES};

use super::error::SimError;

/// Entries are interleaved over the slices in blocks of 64 (**decision**,
/// as `mdcache_study`): one 32-byte metadata sector's worth of 4-bit size
/// nibbles (two per byte), so every metadata sector belongs to one slice's
/// metadata cache.
pub const ENTRIES_PER_SLICE_BLOCK: u64 = 2 * buddy_golden::SECTOR_BYTES as u64;

/// The slice (of `slices`) that serves the memory-entry at virtual address
/// `va` of a heap starting at `heap_base`.
pub fn slice_of(va: u64, heap_base: u64, slices: usize) -> u64 {
    ((va - heap_base) / ENTRY_BYTES as u64 / ENTRIES_PER_SLICE_BLOCK) % slices as u64
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
