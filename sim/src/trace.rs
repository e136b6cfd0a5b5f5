//! Memory access traces (`trace.bin` + `trace_meta.json`, format in
//! `shared/data/README.md`) and the virtual-address layout they are replayed
//! in (docs/formats.md#trace-driver).

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Bytes of one trace record.
pub const RECORD_BYTES: usize = 12;

/// Default `HEAP_BASE`: the lowest virtual address of compressed
/// allocations (any page-aligned value works; this one is 2 MiB-aligned).
pub const DEFAULT_HEAP_BASE: u64 = 0x1_0000_0000;

/// One processor-level access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Index in the window's complete data-access stream (has gaps).
    pub seq: u32,
    /// Byte offset within the allocation.
    pub offset: u32,
    /// Index into [`TraceMeta::allocations`].
    pub alloc_id: u16,
    /// True for a write, false for a read.
    pub write: bool,
    /// Bytes accessed, 1..=32.
    pub size: u8,
}

/// `trace_meta.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct TraceMeta {
    #[serde(default)]
    pub description: Option<String>,
    pub allocations: Vec<TraceAllocation>,
}

/// One allocation of `trace_meta.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct TraceAllocation {
    pub id: u32,
    pub name: String,
    /// Full allocated size in bytes.
    pub size: u64,
    #[serde(default)]
    pub in_snapshot: bool,
}

/// Why a trace cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: invalid trace metadata: {source}")]
    Meta { path: PathBuf, source: serde_json::Error },
    #[error("{path}: allocation {index} has id {id}; ids must be 0, 1, 2, ... in order")]
    AllocationIds { path: PathBuf, index: usize, id: u32 },
    #[error("{path}: {bytes} bytes is not a whole number of {RECORD_BYTES}-byte records")]
    Truncated { path: PathBuf, bytes: usize },
    #[error("{path}: record {record}: allocation id {alloc_id} is not in trace_meta.json ({count} allocations)")]
    UnknownAllocation { path: PathBuf, record: usize, alloc_id: u16, count: usize },
    #[error("{path}: record {record}: access of {size} bytes at offset {offset} is past the end of '{name}' ({alloc_size} bytes)")]
    PastAllocation { path: PathBuf, record: usize, offset: u32, size: u8, name: String, alloc_size: u64 },
    #[error("{path}: record {record}: access size {size} is outside 1..=32")]
    BadSize { path: PathBuf, record: usize, size: u8 },
    #[error("{path}: record {record}: rw is {rw}, not 0 (read) or 1 (write)")]
    BadRw { path: PathBuf, record: usize, rw: u8 },
    #[error("{path}: allocation {index} ('{name}') has {size} bytes; a trace allocation holds at most {MAX_ALLOCATION_BYTES} bytes (a record's offset has 32 bits)")]
    AllocationTooLarge { path: PathBuf, index: usize, name: String, size: u64 },
    #[error("{path}: the trace holds no records (an empty trace would report every speedup as 1.000)")]
    Empty { path: PathBuf },
}

/// Most bytes one trace allocation may have: what a record's 32-bit
/// `offset` can address.
pub const MAX_ALLOCATION_BYTES: u64 = 1 << 32;

/// Where a trace's accesses come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceSource {
    /// The workload's recorded `trace.bin`.
    Recorded,
    /// No recorded trace: [`Trace::snapshot_sweep`].
    SnapshotSweep,
}

/// A validated access trace.
#[derive(Debug, Clone)]
pub struct Trace {
    pub meta: TraceMeta,
    pub accesses: Vec<Access>,
    pub source: TraceSource,
}

impl Trace {
    /// Read `trace.bin` and `trace_meta.json` from the workload folder `dir`.
    ///
    /// # Errors
    /// A missing or unreadable file, invalid metadata, a file that is not a
    /// whole number of records, or a record (named by its 0-based index)
    /// with an unknown allocation, an access past its allocation, a size
    /// outside 1..=32 or an `rw` other than 0/1; an allocation larger than
    /// [`MAX_ALLOCATION_BYTES`]; a trace without records.
    pub fn open(dir: &Path) -> Result<Trace, TraceError> {
        let meta_path = dir.join("trace_meta.json");
        let text = crate::input_file::read_to_string(&meta_path).map_err(|source| TraceError::Io { path: meta_path.clone(), source })?;
        let meta: TraceMeta = serde_json::from_str(&text).map_err(|source| TraceError::Meta { path: meta_path.clone(), source })?;
        if let Some((index, a)) = meta.allocations.iter().enumerate().find(|(i, a)| a.id as usize != *i) {
            return Err(TraceError::AllocationIds { path: meta_path, index, id: a.id });
        }
        if let Some((index, a)) = meta.allocations.iter().enumerate().find(|(_, a)| a.size > MAX_ALLOCATION_BYTES) {
            return Err(TraceError::AllocationTooLarge { path: meta_path, index, name: a.name.clone(), size: a.size });
        }
        let bin = dir.join("trace.bin");
        let bytes = crate::input_file::read(&bin).map_err(|source| TraceError::Io { path: bin.clone(), source })?;
        let accesses = parse_records(&bytes, &meta, &bin)?;
        if accesses.is_empty() {
            return Err(TraceError::Empty { path: bin });
        }
        Ok(Trace { meta, accesses, source: TraceSource::Recorded })
    }

    /// A request stream for a workload without a recorded trace
    /// (**decision**; the DL workload of `shared/data` has none): one pass
    /// over every allocation of `allocations` (name, size in bytes, in
    /// manifest order) that reads each 128-byte memory-entry as four
    /// 32-byte accesses and then writes it as four 32-byte accesses (the
    /// last entry's accesses stop at the allocation's end), entry after
    /// entry. Replayed like a trace, memory starts as one snapshot and the
    /// writes store the next snapshot's bytes, so the pass moves memory
    /// from one real program state to the next. The order of accesses is
    /// made up; the values are the program's.
    pub fn snapshot_sweep(allocations: &[(String, u64)]) -> Trace {
        let meta = TraceMeta {
            description: Some("snapshot sweep: read then write every memory-entry of every allocation, in manifest order".into()),
            allocations: allocations
                .iter()
                .enumerate()
                .map(|(i, (name, size))| TraceAllocation { id: i as u32, name: name.clone(), size: *size, in_snapshot: true })
                .collect(),
        };
        let mut accesses = Vec::new();
        let mut seq = 0u32;
        for (id, (_, size)) in allocations.iter().enumerate() {
            for entry in (0..*size).step_by(128) {
                for write in [false, true] {
                    for offset in (entry..(entry + 128).min(*size)).step_by(32) {
                        let bytes = (*size - offset).min(32) as u8;
                        accesses.push(Access { seq, offset: offset as u32, alloc_id: id as u16, write, size: bytes });
                        seq = seq.wrapping_add(1);
                    }
                }
            }
        }
        Trace { meta, accesses, source: TraceSource::SnapshotSweep }
    }
}

/// Decode and check the records of `bytes` against `meta`.
///
/// # Errors
/// As [`Trace::open`], for the records.
pub fn parse_records(bytes: &[u8], meta: &TraceMeta, path: &Path) -> Result<Vec<Access>, TraceError> {
    if !bytes.len().is_multiple_of(RECORD_BYTES) {
        return Err(TraceError::Truncated { path: path.into(), bytes: bytes.len() });
    }
    bytes
        .chunks_exact(RECORD_BYTES)
        .enumerate()
        .map(|(record, r)| {
            let u32_at = |i: usize| u32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
            let (seq, offset, alloc_id, rw, size) = (u32_at(0), u32_at(4), u16::from_le_bytes([r[8], r[9]]), r[10], r[11]);
            let alloc = meta.allocations.get(alloc_id as usize).ok_or_else(|| TraceError::UnknownAllocation {
                path: path.into(),
                record,
                alloc_id,
                count: meta.allocations.len(),
            })?;
            if !(1..=32).contains(&size) {
                return Err(TraceError::BadSize { path: path.into(), record, size });
            }
            if rw > 1 {
                return Err(TraceError::BadRw { path: path.into(), record, rw });
            }
            if offset as u64 + size as u64 > alloc.size {
                return Err(TraceError::PastAllocation {
                    path: path.into(),
                    record,
                    offset,
                    size,
                    name: alloc.name.clone(),
                    alloc_size: alloc.size,
                });
            }
            Ok(Access { seq, offset, alloc_id, write: rw == 1, size })
        })
        .collect()
}

/// Where each trace allocation sits in the virtual address space
/// (docs/formats.md#trace-driver, **decision**): the allocations of the snapshots'
/// manifest first, in manifest order, then the allocations only the trace
/// knows (temporaries), in `trace_meta.json` order; each starts on a page
/// boundary, the first at `heap_base`.
#[derive(Debug, Clone)]
pub struct AddressLayout {
    /// Virtual base address of each trace allocation, by id.
    pub base: Vec<u64>,
    /// One past the highest address used.
    pub end: u64,
    pub heap_base: u64,
}

impl AddressLayout {
    /// Lay out `meta`'s allocations; `manifest_order` lists the names of the
    /// manifest's allocations in order (empty without snapshots). A manifest
    /// name the trace lacks takes its place (and page) all the same, with
    /// its manifest `size`.
    pub fn new(meta: &TraceMeta, manifest_order: &[(String, u64)], heap_base: u64, page_bytes: u64) -> AddressLayout {
        let mut base = vec![0u64; meta.allocations.len()];
        let mut next = heap_base;
        let mut place = |size: u64| {
            let at = next;
            next += size.max(1).div_ceil(page_bytes) * page_bytes;
            at
        };
        let mut placed = vec![false; meta.allocations.len()];
        for (name, size) in manifest_order {
            match meta.allocations.iter().position(|a| &a.name == name) {
                Some(i) if !placed[i] => {
                    base[i] = place(meta.allocations[i].size.max(*size));
                    placed[i] = true;
                }
                _ => {
                    place(*size);
                }
            }
        }
        for (i, a) in meta.allocations.iter().enumerate() {
            if !placed[i] {
                base[i] = place(a.size);
            }
        }
        AddressLayout { base, end: next, heap_base }
    }

    /// The virtual address of `access`'s first byte.
    pub fn va(&self, access: &Access) -> u64 {
        self.base[access.alloc_id as usize] + access.offset as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(sizes: &[u64]) -> TraceMeta {
        TraceMeta {
            description: None,
            allocations: sizes
                .iter()
                .enumerate()
                .map(|(i, &size)| TraceAllocation { id: i as u32, name: format!("a{i}"), size, in_snapshot: false })
                .collect(),
        }
    }

    fn record(offset: u32, alloc_id: u16, rw: u8, size: u8) -> Vec<u8> {
        let mut r = 7u32.to_le_bytes().to_vec();
        r.extend_from_slice(&offset.to_le_bytes());
        r.extend_from_slice(&alloc_id.to_le_bytes());
        r.extend_from_slice(&[rw, size]);
        r
    }

    #[test]
    fn records_decode_and_bad_ones_name_their_index() {
        let m = meta(&[256, 64]);
        let p = Path::new("t.bin");
        let good = [record(0, 0, 0, 8), record(56, 1, 1, 8)].concat();
        let a = parse_records(&good, &m, p).unwrap();
        assert_eq!(a[1], Access { seq: 7, offset: 56, alloc_id: 1, write: true, size: 8 });
        let past = [record(0, 0, 0, 8), record(60, 1, 0, 8)].concat();
        assert!(parse_records(&past, &m, p).unwrap_err().to_string().contains("record 1: access of 8 bytes at offset 60"));
        let unknown = record(0, 2, 0, 8);
        assert!(parse_records(&unknown, &m, p).unwrap_err().to_string().contains("record 0: allocation id 2"));
        assert!(matches!(parse_records(&record(0, 0, 2, 8), &m, p), Err(TraceError::BadRw { record: 0, rw: 2, .. })));
        assert!(matches!(parse_records(&record(0, 0, 0, 0), &m, p), Err(TraceError::BadSize { size: 0, .. })));
        assert!(matches!(parse_records(&good[..13], &m, p), Err(TraceError::Truncated { bytes: 13, .. })));
    }

    #[test]
    fn layout_puts_manifest_allocations_first_each_on_its_own_page() {
        let m = meta(&[100, 5000, 10]);
        // Manifest order: a2, then a name the trace lacks, then a0.
        let order = vec![("a2".to_string(), 10), ("gone".to_string(), 70_000), ("a0".to_string(), 100)];
        let l = AddressLayout::new(&m, &order, 0x10_0000, 65_536);
        assert_eq!(l.base, vec![0x10_0000 + 3 * 65_536, 0x10_0000 + 4 * 65_536, 0x10_0000]);
        assert_eq!(l.end, 0x10_0000 + 5 * 65_536);
    }

    #[test]
    fn snapshot_sweep_reads_then_writes_every_entry_within_the_allocation() {
        let t = Trace::snapshot_sweep(&[("a".into(), 256), ("b".into(), 40)]);
        assert_eq!(t.source, TraceSource::SnapshotSweep);
        assert_eq!(t.meta.allocations[1].name, "b");
        // a: 2 entries x (4 reads + 4 writes); b: 40 bytes = a 32-byte and an 8-byte access, read then written.
        assert_eq!(t.accesses.len(), 16 + 4);
        let first: Vec<(u32, bool)> = t.accesses[..8].iter().map(|a| (a.offset, a.write)).collect();
        assert_eq!(first, [(0, false), (32, false), (64, false), (96, false), (0, true), (32, true), (64, true), (96, true)]);
        let b: Vec<(u32, bool, u8)> = t.accesses[16..].iter().map(|a| (a.offset, a.write, a.size)).collect();
        assert_eq!(b, [(0, false, 32), (32, false, 8), (0, true, 32), (32, true, 8)]);
        // The sequence numbers count the accesses.
        assert!(t.accesses.iter().enumerate().all(|(i, a)| a.seq as usize == i));
    }
}
