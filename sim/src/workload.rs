//! Memory-snapshot workloads (`shared/data/README.md`).
//!
//! A workload is either
//! - a **folder** holding `manifest.json` and one file per snapshot; each
//!   snapshot file is the allocations' bytes concatenated in manifest order,
//!   every allocation starting at a multiple of 128 bytes and zero-padded to
//!   `padded_size`; or
//! - a **raw binary file**: a sequence of 128-byte memory-entries, taken as one
//!   snapshot holding one allocation named after the file.
//!
//! [`Workload::open`] maps every snapshot file into memory (read-only
//! `mmap`, so opening a 100 MB file copies nothing; pages are read as the
//! entries are used) and validates the layout, so that afterwards every
//! 128-byte entry of every allocation can be handed out as a [`MemoryEntry`]
//! without further checks. Only regular files are accepted: a device, a FIFO
//! or a folder where a snapshot or raw file is expected is an error before
//! anything is read (`/dev/zero` would otherwise be read until memory runs
//! out).

use std::fs;
use std::io;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use buddy_golden::{MemoryEntry, ENTRY_BYTES};
use serde::Deserialize;
use thiserror::Error;

/// File name of the manifest inside a workload folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// [`ENTRY_BYTES`] as a file offset.
const ENTRY_BYTES_U64: u64 = ENTRY_BYTES as u64;

/// `manifest.json` of a workload folder. Keys not listed here are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Manifest {
    /// Workload name (`hpgmg`, `minife`, ...; the file name for a raw file).
    pub workload: String,
    /// What the workload is.
    #[serde(default)]
    pub description: Option<String>,
    /// Bytes per memory-entry; must be 128.
    pub entry_bytes: u64,
    /// Byte order of the snapshot data; must be `little` when given.
    #[serde(default)]
    pub byte_order: Option<String>,
    /// The snapshots, in file order.
    pub snapshots: Vec<SnapshotInfo>,
}

/// One snapshot of a [`Manifest`]. Keys not listed here are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SnapshotInfo {
    /// Snapshot number within the full run (kept when a workload is subset,
    /// so indices need not be contiguous).
    pub index: usize,
    /// Snapshot file name, relative to the workload folder.
    pub file: String,
    /// Size of the snapshot file in bytes.
    pub file_size: u64,
    /// When in the run the snapshot was taken.
    #[serde(default)]
    pub label: Option<String>,
    /// The allocations in file order. Every snapshot of a workload has the
    /// same names and sizes in the same order.
    pub allocations: Vec<Allocation>,
}

/// One allocation (heap buffer) of a snapshot. Keys not listed here are ignored.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Allocation {
    /// Name, the same in every snapshot of the workload.
    pub name: String,
    /// Byte offset of the allocation in the snapshot file, a multiple of 128.
    pub offset: u64,
    /// Bytes of real data.
    pub size: u64,
    /// `size` rounded up to a multiple of 128 bytes; the bytes past `size`
    /// are zero padding.
    pub padded_size: u64,
    /// Element type: `f64 f32 f16 i64 i32 u8 mixed`.
    pub dtype: String,
    /// Number of elements (`size` / element size).
    pub count: u64,
    /// What the allocation holds.
    pub description: String,
    /// DL workloads only: `weight`, `gradient`, `optimizer`, `activation`, ...
    #[serde(default)]
    pub role: Option<String>,
    /// DL workloads only: the shape of the whole tensor (elements per
    /// dimension, outermost first), of which the snapshot may hold a slice.
    #[serde(default)]
    pub shape: Option<Vec<u64>>,
    /// DL workloads only: bytes of the whole tensor when the snapshot holds
    /// a slice of it (`size` is then the slice's bytes).
    #[serde(default)]
    pub full_size: Option<u64>,
    /// DL workloads only: where the stored slice starts in the tensor, bytes.
    #[serde(default)]
    pub source_offset: Option<u64>,
}

impl Allocation {
    /// Number of 128-byte entries (`padded_size / 128`).
    pub fn entry_count(&self) -> u64 {
        self.padded_size / ENTRY_BYTES_U64
    }

    /// Bytes of the whole tensor: `full_size` when the manifest gives it,
    /// else `size` (the snapshot holds all of it).
    pub fn tensor_bytes(&self) -> u64 {
        self.full_size.unwrap_or(self.size)
    }
}

/// Why a workload could not be opened. Every variant names the file at fault.
#[derive(Debug, Error)]
pub enum WorkloadError {
    /// The given path does not exist.
    #[error("{path}: no such file or folder", path = .path.display())]
    NotFound { path: PathBuf },
    /// A path where a regular file is expected (a raw file, a snapshot file,
    /// the manifest) is something else: a device, a FIFO, a socket or a folder.
    #[error("{path} is {kind}, not a regular file", path = .path.display())]
    NotAFile { path: PathBuf, kind: &'static str },
    /// A file exists but could not be read (includes a folder without
    /// `manifest.json`).
    #[error("cannot read {path}", path = .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A raw file is empty.
    #[error("{path} is empty: a raw workload file needs at least one 128-byte entry", path = .path.display())]
    EmptyRaw { path: PathBuf },
    /// A raw file is not a whole number of 128-byte entries.
    #[error(
        "{path} is {size} bytes, not a multiple of the 128-byte entry ({remainder} bytes left over)",
        path = .path.display()
    )]
    RawSize { path: PathBuf, size: u64, remainder: u64 },
    /// `manifest.json` is not valid JSON or lacks a required key.
    #[error("invalid manifest {path}", path = .path.display())]
    Manifest {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// The manifest's `entry_bytes` is not 128.
    #[error("{path}: entry_bytes is {found}, but only 128-byte entries are supported", path = .path.display())]
    EntryBytes { path: PathBuf, found: u64 },
    /// The manifest's `byte_order` is not `little`.
    #[error("{path}: byte_order is '{found}', but only little-endian snapshots are supported", path = .path.display())]
    ByteOrder { path: PathBuf, found: String },
    /// The manifest lists no snapshots.
    #[error("{path}: the manifest lists no snapshots", path = .path.display())]
    NoSnapshots { path: PathBuf },
    /// A snapshot file named by the manifest does not exist.
    #[error("snapshot {index}: file {path} is missing", path = .path.display())]
    SnapshotMissing { index: usize, path: PathBuf },
    /// A snapshot file's size differs from the manifest's `file_size`.
    #[error(
        "{path} is {actual} bytes, but the manifest gives file_size {expected}",
        path = .path.display()
    )]
    SnapshotSize { path: PathBuf, expected: u64, actual: u64 },
    /// An allocation's offset is not a multiple of 128 bytes.
    #[error("{path}, allocation '{name}': offset {offset} is not a multiple of 128", path = .path.display())]
    Misaligned { path: PathBuf, name: String, offset: u64 },
    /// An allocation's `padded_size` is not its `size` rounded up to 128 bytes.
    #[error(
        "{path}, allocation '{name}': padded_size {padded_size} should be {expected} (size {size} rounded up to 128)",
        path = .path.display()
    )]
    PaddedSize { path: PathBuf, name: String, size: u64, padded_size: u64, expected: u64 },
    /// An allocation's bytes extend past the end of the snapshot file.
    #[error(
        "{path}, allocation '{name}': bytes {offset}..{end} extend past the end of the file ({file_size} bytes)",
        path = .path.display()
    )]
    PastEnd { path: PathBuf, name: String, offset: u64, end: u128, file_size: u64 },
    /// An allocation's `full_size` (the whole tensor) is smaller than the
    /// slice the snapshot holds.
    #[error(
        "{path}, allocation '{name}': full_size {full_size} is smaller than its stored size {size}",
        path = .path.display()
    )]
    FullSize { path: PathBuf, name: String, full_size: u64, size: u64 },
    /// An allocation starts before the previous one ends.
    #[error(
        "{path}, allocation '{name}': offset {offset} is inside the previous allocation '{previous}' (which ends at {previous_end})",
        path = .path.display()
    )]
    Overlap { path: PathBuf, name: String, offset: u64, previous: String, previous_end: u64 },
    /// A snapshot has a different number of allocations than the first one.
    #[error("{path} has {found} allocations, but snapshot {first_index} has {expected}", path = .path.display())]
    AllocationCount { path: PathBuf, found: usize, first_index: usize, expected: usize },
    /// A snapshot's allocation list differs in name or size from the first one.
    #[error(
        "{path}, allocation #{position} is '{found}' ({found_size} bytes), but in snapshot {first_index} it is '{expected}' ({expected_size} bytes)",
        path = .path.display()
    )]
    AllocationMismatch {
        path: PathBuf,
        position: usize,
        found: String,
        found_size: u64,
        first_index: usize,
        expected: String,
        expected_size: u64,
    },
    /// [`Workload::select_snapshot`] was asked for an index the workload lacks.
    #[error("no snapshot with index {index} (available: {available})")]
    NoSuchSnapshot { index: usize, available: String },
}

/// A loaded, validated workload: its manifest and the bytes of every snapshot.
#[derive(Debug, Clone)]
pub struct Workload {
    path: PathBuf,
    manifest: Manifest,
    /// Contents of each snapshot file, parallel to `manifest.snapshots`.
    data: Vec<FileBytes>,
}

/// The read-only contents of a snapshot or raw file, mapped into memory
/// (shared by clones of the [`Workload`]).
#[derive(Debug, Clone)]
enum FileBytes {
    Mapped(Arc<memmap2::Mmap>),
    /// An empty file, which cannot be mapped.
    Empty,
}

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(map) => map,
            FileBytes::Empty => &[],
        }
    }
}

/// A name for a file type that is not a regular file, for error messages.
fn kind_of(file_type: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Check that `path` is a regular file (following symbolic links); `missing`
/// is the error when it does not exist.
fn check_regular(path: &Path, missing: impl FnOnce() -> WorkloadError) -> Result<(), WorkloadError> {
    let metadata = fs::metadata(path).map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => missing(),
        _ => WorkloadError::Read { path: path.to_path_buf(), source },
    })?;
    if !metadata.is_file() {
        return Err(WorkloadError::NotAFile { path: path.to_path_buf(), kind: kind_of(metadata.file_type()) });
    }
    Ok(())
}

/// Map the regular file `path` into memory, read-only; `missing` is the
/// error when it does not exist.
fn map(path: &Path, missing: impl FnOnce() -> WorkloadError) -> Result<FileBytes, WorkloadError> {
    let read_error = |source| WorkloadError::Read { path: path.to_path_buf(), source };
    // Checked before opening: opening a FIFO would block until a writer comes.
    check_regular(path, missing)?;
    let file = fs::File::open(path).map_err(read_error)?;
    // The length is taken from the opened file, which is what is mapped.
    if file.metadata().map_err(read_error)?.len() == 0 {
        return Ok(FileBytes::Empty);
    }
    // SAFETY: the map is read-only and private to this process. If another
    // process rewrites the file while it is mapped, reads may see the new
    // bytes, and a truncation can end the process (SIGBUS); workload files
    // are inputs that nothing writes while a command runs (a file changed
    // under a plain reader gives inconsistent data too).
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(read_error)?;
    Ok(FileBytes::Mapped(Arc::new(map)))
}

impl Workload {
    /// Open a workload folder (containing `manifest.json`) or a raw binary
    /// file of 128-byte entries, read all snapshot files and validate them.
    ///
    /// # Errors
    /// A [`WorkloadError`] naming the file and the problem: missing path,
    /// unreadable file, raw file size not a multiple of 128 bytes, invalid
    /// manifest, missing snapshot file or one whose size differs from the
    /// manifest, misaligned / wrongly padded / out-of-file / overlapping
    /// allocations, or snapshots that disagree on the allocation list.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, WorkloadError> {
        let path = path.as_ref();
        let metadata = fs::metadata(path).map_err(|source| match source.kind() {
            io::ErrorKind::NotFound => WorkloadError::NotFound { path: path.to_path_buf() },
            _ => WorkloadError::Read { path: path.to_path_buf(), source },
        })?;
        if metadata.is_dir() {
            Self::open_folder(path)
        } else if metadata.is_file() {
            Self::open_raw(path)
        } else {
            Err(WorkloadError::NotAFile { path: path.to_path_buf(), kind: kind_of(metadata.file_type()) })
        }
    }

    fn open_raw(path: &Path) -> Result<Self, WorkloadError> {
        let data = map(path, || WorkloadError::NotFound { path: path.to_path_buf() })?;
        let size = data.len() as u64;
        if size == 0 {
            return Err(WorkloadError::EmptyRaw { path: path.to_path_buf() });
        }
        let remainder = size % ENTRY_BYTES_U64;
        if remainder != 0 {
            return Err(WorkloadError::RawSize { path: path.to_path_buf(), size, remainder });
        }
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        let allocation = Allocation {
            name: name.clone(),
            offset: 0,
            size,
            padded_size: size,
            dtype: "u8".to_string(),
            count: size,
            description: "the whole raw file".to_string(),
            role: None,
            shape: None,
            full_size: None,
            source_offset: None,
        };
        let manifest = Manifest {
            workload: name.clone(),
            description: Some(format!("raw binary file {}", path.display())),
            entry_bytes: ENTRY_BYTES_U64,
            byte_order: None,
            snapshots: vec![SnapshotInfo { index: 0, file: name, file_size: size, label: None, allocations: vec![allocation] }],
        };
        Ok(Workload { path: path.to_path_buf(), manifest, data: vec![data] })
    }

    fn open_folder(folder: &Path) -> Result<Self, WorkloadError> {
        let manifest = read_manifest(folder)?;
        let data = manifest.snapshots.iter().map(|snapshot| read_snapshot(folder, snapshot)).collect::<Result<Vec<_>, _>>()?;
        Ok(Workload { path: folder.to_path_buf(), manifest, data })
    }

    /// The path the workload was opened from (folder or raw file).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The manifest (synthesised for a raw file).
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Keep only the snapshot whose manifest `index` is `index`.
    ///
    /// # Errors
    /// [`WorkloadError::NoSuchSnapshot`], listing the available indices.
    pub fn select_snapshot(mut self, index: usize) -> Result<Self, WorkloadError> {
        let position = self.manifest.snapshots.iter().position(|s| s.index == index).ok_or_else(|| {
            let available = self.manifest.snapshots.iter().map(|s| s.index.to_string()).collect::<Vec<_>>();
            WorkloadError::NoSuchSnapshot { index, available: available.join(", ") }
        })?;
        let info = self.manifest.snapshots.swap_remove(position);
        let data = self.data.swap_remove(position);
        self.manifest.snapshots = vec![info];
        self.data = vec![data];
        Ok(self)
    }

    /// The snapshots in manifest order.
    pub fn snapshots(&self) -> impl ExactSizeIterator<Item = Snapshot<'_>> {
        self.manifest.snapshots.iter().zip(&self.data).map(|(info, data)| Snapshot { info, data })
    }

    /// Every entry of every snapshot, in snapshot, allocation and address
    /// order (`entry_count()` of them).
    pub fn all_entries(&self) -> Vec<MemoryEntry> {
        self.snapshots().flat_map(|s| s.allocations().flat_map(|a| a.entries()).collect::<Vec<_>>()).collect()
    }

    /// Number of 128-byte allocation entries over all snapshots (padding
    /// between allocations, if any, is not counted).
    pub fn entry_count(&self) -> u64 {
        self.snapshots().map(|s| s.entry_count()).sum()
    }
}

/// One snapshot of a [`Workload`]: its manifest record and file contents.
#[derive(Debug, Clone, Copy)]
pub struct Snapshot<'a> {
    info: &'a SnapshotInfo,
    data: &'a [u8],
}

impl<'a> Snapshot<'a> {
    /// The manifest record of this snapshot.
    pub fn info(&self) -> &'a SnapshotInfo {
        self.info
    }

    /// The allocations in manifest order, with their bytes.
    pub fn allocations(&self) -> impl ExactSizeIterator<Item = AllocationData<'a>> + 'a {
        let data = self.data;
        self.info.allocations.iter().map(move |info| {
            // In bounds: `validate_manifest` checked offset + padded_size <=
            // file_size and `read_snapshot` checked data.len() == file_size.
            let start = info.offset as usize;
            let end = start + info.padded_size as usize;
            AllocationData { info, bytes: &data[start..end] }
        })
    }

    /// Number of 128-byte entries in all allocations of this snapshot.
    pub fn entry_count(&self) -> u64 {
        self.info.allocations.iter().map(Allocation::entry_count).sum()
    }
}

/// One allocation of a [`Snapshot`] with its padded bytes.
#[derive(Debug, Clone, Copy)]
pub struct AllocationData<'a> {
    info: &'a Allocation,
    bytes: &'a [u8],
}

impl<'a> AllocationData<'a> {
    /// The manifest record of this allocation.
    pub fn info(&self) -> &'a Allocation {
        self.info
    }

    /// The allocation's `padded_size` bytes (data plus zero padding).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Index of the allocation's first entry within the snapshot file
    /// (byte offset / 128).
    pub fn first_entry(&self) -> u64 {
        self.info.offset / ENTRY_BYTES_U64
    }

    /// The allocation's 128-byte entries, in address order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = MemoryEntry> + 'a {
        // `padded_size` is a multiple of 128 (validated), so nothing is left over.
        let (chunks, _) = self.bytes.as_chunks::<ENTRY_BYTES>();
        chunks.iter().map(MemoryEntry::from_bytes)
    }
}

/// Read the whole regular file `path` (the manifest).
fn read(path: &Path) -> Result<Vec<u8>, WorkloadError> {
    check_regular(path, || WorkloadError::Read { path: path.to_path_buf(), source: io::ErrorKind::NotFound.into() })?;
    fs::read(path).map_err(|source| WorkloadError::Read { path: path.to_path_buf(), source })
}

fn read_snapshot(folder: &Path, snapshot: &SnapshotInfo) -> Result<FileBytes, WorkloadError> {
    let path = folder.join(&snapshot.file);
    let data = map(&path, || WorkloadError::SnapshotMissing { index: snapshot.index, path: path.clone() })?;
    let actual = data.len() as u64;
    if actual != snapshot.file_size {
        return Err(WorkloadError::SnapshotSize { path, expected: snapshot.file_size, actual });
    }
    Ok(data)
}

/// Checks that need only the manifest: entry size, byte order, each
/// snapshot's layout, and agreement of all snapshots' allocation lists.
/// Read and validate the `manifest.json` of the workload folder `folder`
/// without reading the snapshot files (for users that need only the
/// allocation list, e.g. the trace layout).
///
/// # Errors
/// As [`Workload::open`], except the checks that need the snapshot bytes.
pub fn read_manifest(folder: &Path) -> Result<Manifest, WorkloadError> {
    let manifest_path = folder.join(MANIFEST_FILE);
    let text = read(&manifest_path)?;
    let manifest: Manifest =
        serde_json::from_slice(&text).map_err(|source| WorkloadError::Manifest { path: manifest_path.clone(), source })?;
    validate_manifest(&manifest, folder, &manifest_path)?;
    Ok(manifest)
}

fn validate_manifest(manifest: &Manifest, folder: &Path, manifest_path: &Path) -> Result<(), WorkloadError> {
    if manifest.entry_bytes != ENTRY_BYTES_U64 {
        return Err(WorkloadError::EntryBytes { path: manifest_path.to_path_buf(), found: manifest.entry_bytes });
    }
    if let Some(order) = manifest.byte_order.as_deref().filter(|&o| o != "little") {
        return Err(WorkloadError::ByteOrder { path: manifest_path.to_path_buf(), found: order.to_string() });
    }
    let Some(first) = manifest.snapshots.first() else {
        return Err(WorkloadError::NoSnapshots { path: manifest_path.to_path_buf() });
    };
    for snapshot in &manifest.snapshots {
        let path = folder.join(&snapshot.file);
        validate_layout(snapshot, &path)?;
        validate_same_allocations(first, snapshot, &path)?;
    }
    Ok(())
}

/// Each allocation is 128-aligned, padded to 128, inside the file and after
/// the previous one.
fn validate_layout(snapshot: &SnapshotInfo, path: &Path) -> Result<(), WorkloadError> {
    let mut previous: Option<(&str, u64)> = None;
    for a in &snapshot.allocations {
        if a.offset % ENTRY_BYTES_U64 != 0 {
            return Err(WorkloadError::Misaligned { path: path.to_path_buf(), name: a.name.clone(), offset: a.offset });
        }
        let expected = a.size.div_ceil(ENTRY_BYTES_U64) * ENTRY_BYTES_U64;
        if a.padded_size != expected {
            return Err(WorkloadError::PaddedSize {
                path: path.to_path_buf(),
                name: a.name.clone(),
                size: a.size,
                padded_size: a.padded_size,
                expected,
            });
        }
        if let Some(full_size) = a.full_size.filter(|&f| f < a.size) {
            return Err(WorkloadError::FullSize { path: path.to_path_buf(), name: a.name.clone(), full_size, size: a.size });
        }
        // u128: offset + padded_size cannot overflow.
        let end = u128::from(a.offset) + u128::from(a.padded_size);
        if end > u128::from(snapshot.file_size) {
            return Err(WorkloadError::PastEnd {
                path: path.to_path_buf(),
                name: a.name.clone(),
                offset: a.offset,
                end,
                file_size: snapshot.file_size,
            });
        }
        if let Some((previous, previous_end)) = previous.filter(|&(_, end)| a.offset < end) {
            return Err(WorkloadError::Overlap {
                path: path.to_path_buf(),
                name: a.name.clone(),
                offset: a.offset,
                previous: previous.to_string(),
                previous_end,
            });
        }
        // end <= file_size, so it fits in u64.
        previous = Some((&a.name, a.offset + a.padded_size));
    }
    Ok(())
}

/// `snapshot` has the same allocation names and sizes, in the same order, as `first`.
fn validate_same_allocations(first: &SnapshotInfo, snapshot: &SnapshotInfo, path: &Path) -> Result<(), WorkloadError> {
    if snapshot.allocations.len() != first.allocations.len() {
        return Err(WorkloadError::AllocationCount {
            path: path.to_path_buf(),
            found: snapshot.allocations.len(),
            first_index: first.index,
            expected: first.allocations.len(),
        });
    }
    let mismatch = first.allocations.iter().zip(&snapshot.allocations).position(|(a, b)| a.name != b.name || a.size != b.size);
    match mismatch {
        None => Ok(()),
        Some(position) => {
            let (expected, found) = (&first.allocations[position], &snapshot.allocations[position]);
            Err(WorkloadError::AllocationMismatch {
                path: path.to_path_buf(),
                position,
                found: found.name.clone(),
                found_size: found.size,
                first_index: first.index,
                expected: expected.name.clone(),
                expected_size: expected.size,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use tempfile::TempDir;

    /// Bytes of a snapshot file whose byte `i` is `(i * 7 + seed) mod 251`,
    /// with the padding of an allocation of `size` bytes at `offset` zeroed.
    fn snapshot_bytes(file_size: usize, seed: u8, padding: &[(usize, usize)]) -> Vec<u8> {
        let mut data: Vec<u8> = (0..file_size).map(|i| ((i * 7 + seed as usize) % 251) as u8).collect();
        for &(from, to) in padding {
            data[from..to].fill(0);
        }
        data
    }

    fn allocation(name: &str, offset: u64, size: u64) -> Value {
        json!({
            "name": name, "offset": offset, "size": size,
            "padded_size": size.div_ceil(128) * 128,
            "dtype": "u8", "count": size, "description": "test data",
            "shape": [size], "extra_key": true
        })
    }

    /// A valid two-snapshot manifest: allocations `a` (200 bytes at 0) and
    /// `b` (128 bytes at 256), files of 384 bytes.
    fn valid_manifest() -> Value {
        let snapshot = |index: usize| {
            json!({
                "index": index, "file": format!("snap_{index:02}.bin"), "file_size": 384,
                "label": format!("step {index}"), "step": index,
                "allocations": [allocation("a", 0, 200), allocation("b", 256, 128)]
            })
        };
        json!({
            "workload": "test", "description": "unit test", "program": "none",
            "entry_bytes": 128, "byte_order": "little",
            "snapshots": [snapshot(0), snapshot(3)]
        })
    }

    /// Write `manifest` and 384-byte snapshot files `snap_00.bin`, `snap_03.bin`.
    fn write_folder(manifest: &Value) -> TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(MANIFEST_FILE), serde_json::to_vec_pretty(manifest).unwrap()).unwrap();
        for (file, seed) in [("snap_00.bin", 1), ("snap_03.bin", 2)] {
            fs::write(dir.path().join(file), snapshot_bytes(384, seed, &[(200, 256)])).unwrap();
        }
        dir
    }

    fn open_with(edit: impl FnOnce(&mut Value)) -> WorkloadError {
        let mut manifest = valid_manifest();
        edit(&mut manifest);
        let dir = write_folder(&manifest);
        Workload::open(dir.path()).unwrap_err()
    }

    #[test]
    fn valid_folder_gives_entries_per_snapshot_and_allocation() {
        let dir = write_folder(&valid_manifest());
        let w = Workload::open(dir.path()).unwrap();
        assert_eq!(w.manifest().workload, "test");
        assert_eq!(w.entry_count(), 2 * 3);
        let snapshots: Vec<_> = w.snapshots().collect();
        assert_eq!(snapshots.iter().map(|s| s.info().index).collect::<Vec<_>>(), vec![0, 3]);
        assert_eq!(snapshots[1].info().label.as_deref(), Some("step 3"));

        let expected = snapshot_bytes(384, 2, &[(200, 256)]);
        let allocs: Vec<_> = snapshots[1].allocations().collect();
        assert_eq!(allocs.len(), 2);
        assert_eq!(allocs[0].info().name, "a");
        assert_eq!(allocs[0].bytes(), &expected[0..256]);
        assert_eq!(allocs[1].first_entry(), 2);
        let entries: Vec<_> = allocs[0].entries().collect();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1].to_bytes()[..], expected[128..256]);
        // The padding (bytes 200..256) is the end of the second entry.
        assert_eq!(entries[1].words()[31], 0);
        assert_eq!(allocs[1].entries().next().unwrap().to_bytes()[..], expected[256..384]);
    }

    #[test]
    fn select_snapshot_keeps_one_by_manifest_index() {
        let dir = write_folder(&valid_manifest());
        let w = Workload::open(dir.path()).unwrap().select_snapshot(3).unwrap();
        let indices: Vec<_> = w.snapshots().map(|s| s.info().index).collect();
        assert_eq!(indices, vec![3]);
        assert_eq!(w.entry_count(), 3);

        let err = Workload::open(dir.path()).unwrap().select_snapshot(1).unwrap_err();
        assert_eq!(err.to_string(), "no snapshot with index 1 (available: 0, 3)");
    }

    #[test]
    fn raw_file_is_one_snapshot_with_one_allocation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dump.bin");
        let data = snapshot_bytes(384, 5, &[]);
        fs::write(&path, &data).unwrap();
        let w = Workload::open(&path).unwrap();
        assert_eq!(w.manifest().workload, "dump.bin");
        let snapshots: Vec<_> = w.snapshots().collect();
        assert_eq!(snapshots.len(), 1);
        let allocs: Vec<_> = snapshots[0].allocations().collect();
        assert_eq!(allocs.len(), 1);
        assert_eq!(allocs[0].info().name, "dump.bin");
        assert_eq!(allocs[0].info().padded_size, 384);
        let entries: Vec<_> = allocs[0].entries().collect();
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[2].to_bytes()[..], data[256..]);
    }

    #[test]
    fn raw_file_of_wrong_size_reports_size_and_remainder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("odd.bin");
        fs::write(&path, [1u8; 200]).unwrap();
        let err = Workload::open(&path).unwrap_err();
        assert!(matches!(err, WorkloadError::RawSize { size: 200, remainder: 72, .. }), "{err:?}");
        let msg = err.to_string();
        assert!(msg.contains("odd.bin is 200 bytes") && msg.contains("72 bytes left over"), "{msg}");
    }

    #[test]
    fn empty_raw_file_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("empty.bin");
        fs::write(&path, []).unwrap();
        assert!(matches!(Workload::open(&path), Err(WorkloadError::EmptyRaw { .. })));
    }

    #[test]
    fn devices_and_fifos_are_rejected_before_reading() {
        let err = Workload::open("/dev/zero").unwrap_err();
        assert!(matches!(err, WorkloadError::NotAFile { kind: "a character device", .. }), "{err:?}");
        assert_eq!(err.to_string(), "/dev/zero is a character device, not a regular file");

        // A FIFO without a writer would block an `open`: it must be rejected before.
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.bin");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
        assert!(made.success());
        let err = Workload::open(&fifo).unwrap_err();
        assert!(matches!(err, WorkloadError::NotAFile { kind: "a FIFO", .. }), "{err:?}");
    }

    #[test]
    fn a_snapshot_or_manifest_that_is_not_a_file_is_rejected() {
        let dir = write_folder(&valid_manifest());
        fs::remove_file(dir.path().join("snap_03.bin")).unwrap();
        fs::create_dir(dir.path().join("snap_03.bin")).unwrap();
        let err = Workload::open(dir.path()).unwrap_err();
        assert!(matches!(&err, WorkloadError::NotAFile { path, kind: "a folder" } if path.ends_with("snap_03.bin")), "{err:?}");

        let dir = write_folder(&valid_manifest());
        fs::remove_file(dir.path().join(MANIFEST_FILE)).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join(MANIFEST_FILE)).unwrap();
        let err = Workload::open(dir.path()).unwrap_err();
        assert!(matches!(&err, WorkloadError::NotAFile { path, .. } if path.ends_with(MANIFEST_FILE)), "{err:?}");
    }

    #[test]
    fn missing_path_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nothing-here");
        let err = Workload::open(&path).unwrap_err();
        assert!(matches!(&err, WorkloadError::NotFound { path: p } if *p == path), "{err:?}");
        assert!(err.to_string().ends_with("nothing-here: no such file or folder"));
    }

    #[test]
    fn folder_without_manifest_names_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let err = Workload::open(dir.path()).unwrap_err();
        assert!(matches!(&err, WorkloadError::Read { path, .. } if path.ends_with(MANIFEST_FILE)), "{err:?}");
    }

    #[test]
    fn invalid_json_names_the_manifest() {
        let dir = write_folder(&valid_manifest());
        fs::write(dir.path().join(MANIFEST_FILE), "{ not json").unwrap();
        let err = Workload::open(dir.path()).unwrap_err();
        assert!(matches!(&err, WorkloadError::Manifest { path, .. } if path.ends_with(MANIFEST_FILE)), "{err:?}");
        assert!(err.to_string().starts_with("invalid manifest ") && err.to_string().ends_with(MANIFEST_FILE));
    }

    #[test]
    fn manifest_missing_a_required_key_is_invalid() {
        let err = open_with(|m| {
            m["snapshots"][1]["allocations"][0].as_object_mut().unwrap().remove("offset");
        });
        let WorkloadError::Manifest { source, .. } = &err else { panic!("{err:?}") };
        assert!(source.to_string().contains("missing field `offset`"), "{source}");
    }

    #[test]
    fn entry_bytes_other_than_128_is_rejected() {
        let err = open_with(|m| m["entry_bytes"] = json!(64));
        assert!(matches!(err, WorkloadError::EntryBytes { found: 64, .. }), "{err:?}");
    }

    #[test]
    fn big_endian_is_rejected() {
        let err = open_with(|m| m["byte_order"] = json!("big"));
        assert!(matches!(&err, WorkloadError::ByteOrder { found, .. } if found == "big"), "{err:?}");
    }

    #[test]
    fn manifest_without_snapshots_is_rejected() {
        let err = open_with(|m| m["snapshots"] = json!([]));
        assert!(matches!(err, WorkloadError::NoSnapshots { .. }), "{err:?}");
    }

    #[test]
    fn missing_snapshot_file_is_reported() {
        let dir = write_folder(&valid_manifest());
        fs::remove_file(dir.path().join("snap_03.bin")).unwrap();
        let err = Workload::open(dir.path()).unwrap_err();
        assert!(matches!(&err, WorkloadError::SnapshotMissing { index: 3, path } if path.ends_with("snap_03.bin")), "{err:?}");
    }

    #[test]
    fn snapshot_file_size_must_match_manifest() {
        let dir = write_folder(&valid_manifest());
        fs::write(dir.path().join("snap_00.bin"), [0u8; 512]).unwrap();
        let err = Workload::open(dir.path()).unwrap_err();
        assert!(matches!(err, WorkloadError::SnapshotSize { expected: 384, actual: 512, .. }), "{err:?}");
    }

    #[test]
    fn misaligned_offset_is_rejected() {
        let err = open_with(|m| m["snapshots"][0]["allocations"][1]["offset"] = json!(250));
        assert!(matches!(&err, WorkloadError::Misaligned { name, offset: 250, .. } if name == "b"), "{err:?}");
    }

    #[test]
    fn wrong_padded_size_is_rejected() {
        let err = open_with(|m| m["snapshots"][1]["allocations"][0]["padded_size"] = json!(200));
        assert!(
            matches!(&err, WorkloadError::PaddedSize { name, size: 200, padded_size: 200, expected: 256, .. } if name == "a"),
            "{err:?}"
        );
    }

    #[test]
    fn a_full_size_below_the_stored_size_is_rejected() {
        let err = open_with(|m| m["snapshots"][0]["allocations"][1]["full_size"] = json!(64));
        assert!(matches!(&err, WorkloadError::FullSize { full_size: 64, .. }), "{err:?}");
    }

    #[test]
    fn allocation_past_end_of_file_is_rejected() {
        let err = open_with(|m| m["snapshots"][0]["allocations"][1]["offset"] = json!(384));
        assert!(matches!(err, WorkloadError::PastEnd { offset: 384, end: 512, file_size: 384, .. }), "{err:?}");
    }

    #[test]
    fn overlapping_allocations_are_rejected() {
        let err = open_with(|m| m["snapshots"][0]["allocations"][1]["offset"] = json!(128));
        assert!(matches!(&err, WorkloadError::Overlap { previous, previous_end: 256, .. } if previous == "a"), "{err:?}");
    }

    #[test]
    fn snapshots_must_agree_on_allocation_names_and_sizes() {
        let err = open_with(|m| m["snapshots"][1]["allocations"][1]["name"] = json!("c"));
        assert!(
            matches!(&err, WorkloadError::AllocationMismatch { position: 1, found, expected, first_index: 0, .. }
                if found == "c" && expected == "b"),
            "{err:?}"
        );

        let err = open_with(|m| {
            m["snapshots"][1]["allocations"][1] = allocation("b", 256, 100);
        });
        assert!(matches!(err, WorkloadError::AllocationMismatch { position: 1, found_size: 100, expected_size: 128, .. }), "{err:?}");

        let err = open_with(|m| {
            m["snapshots"][1]["allocations"].as_array_mut().unwrap().pop();
        });
        assert!(matches!(err, WorkloadError::AllocationCount { found: 1, expected: 2, .. }), "{err:?}");
    }
}
