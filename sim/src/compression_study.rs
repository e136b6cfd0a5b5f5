//! Compression study: every 128-byte entry of every snapshot of a
//! [`Workload`] through the golden codecs, with the size-class histogram,
//! stored bytes and compression ratio per (snapshot, allocation), per
//! allocation over all snapshots, and for the whole workload.
//!
//! Results serialize to JSON (serde). The per-entry results are kept in
//! memory but left out of the JSON; [`CompressionStudy::entry_records`] lists
//! them.

use buddy_golden::{Algorithm, SizeClass, ENTRY_BYTES};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};

use crate::workload::Workload;

/// Entry counts per size class of a set of entries, from which the byte
/// totals and the compression ratio follow.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompressionStats {
    /// Entries per class, indexed by [`SizeClass::code`].
    counts: [u64; SizeClass::ALL.len()],
}

impl CompressionStats {
    /// Count one entry of class `class`.
    pub fn record(&mut self, class: SizeClass) {
        self.counts[usize::from(class.code())] += 1;
    }

    /// Add the counts of `other`.
    pub fn merge(&mut self, other: &CompressionStats) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts) {
            *mine += theirs;
        }
    }

    /// Number of entries of class `class`.
    pub fn count(&self, class: SizeClass) -> u64 {
        self.counts[usize::from(class.code())]
    }

    /// Number of entries (the sum of the histogram).
    pub fn entries(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Uncompressed size in bytes: entries × 128.
    pub fn uncompressed_bytes(&self) -> u64 {
        self.entries() * ENTRY_BYTES as u64
    }

    /// Stored size in bytes: the sum of [`SizeClass::bytes`] over the entries.
    pub fn stored_bytes(&self) -> u64 {
        SizeClass::ALL
            .iter()
            .map(|&c| self.count(c) * c.bytes() as u64)
            .sum()
    }

    /// Compression ratio, uncompressed bytes / stored bytes; `None` when
    /// nothing is stored (all entries ZERO, or no entries at all).
    pub fn ratio(&self) -> Option<f64> {
        match self.stored_bytes() {
            0 => None,
            stored => Some(self.uncompressed_bytes() as f64 / stored as f64),
        }
    }
}

/// JSON: `entries`, `uncompressed_bytes`, `stored_bytes`, `compression_ratio`
/// (null when nothing is stored) and `histogram` (`{"ZERO": n, ..., "RAW": n}`).
impl Serialize for CompressionStats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("CompressionStats", 5)?;
        s.serialize_field("entries", &self.entries())?;
        s.serialize_field("uncompressed_bytes", &self.uncompressed_bytes())?;
        s.serialize_field("stored_bytes", &self.stored_bytes())?;
        s.serialize_field("compression_ratio", &self.ratio())?;
        s.serialize_field("histogram", &Histogram(&self.counts))?;
        s.end()
    }
}

/// Serializes class counts as a map from class name to count, in code order.
struct Histogram<'a>(&'a [u64; SizeClass::ALL.len()]);

impl Serialize for Histogram<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (class, count) in SizeClass::ALL.iter().zip(self.0) {
            map.serialize_entry(class.name(), count)?;
        }
        map.end()
    }
}

/// The compression result of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryResult {
    /// Length of the algorithm's stream in bits (0 for ZERO; the would-be
    /// length, > 768, for RAW), as [`buddy_golden::CompressedEntry::stream_bits`].
    pub stream_bits: usize,
    /// The entry's size class.
    pub class: SizeClass,
}

/// One allocation of one snapshot.
#[derive(Debug, Clone, Serialize)]
pub struct AllocationResult {
    /// Allocation name.
    pub name: String,
    /// Index of the allocation's first entry within the snapshot file (byte offset / 128).
    #[serde(skip)]
    pub first_entry: u64,
    /// Per-entry results in address order (not serialized).
    #[serde(skip)]
    pub entries: Vec<EntryResult>,
    /// Totals over the allocation's entries.
    #[serde(flatten)]
    pub stats: CompressionStats,
}

/// One snapshot.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotResult {
    /// The snapshot's manifest `index`.
    pub index: usize,
    /// The snapshot file name.
    pub file: String,
    /// When in the run the snapshot was taken.
    pub label: Option<String>,
    /// Totals over all allocations of the snapshot.
    pub total: CompressionStats,
    /// Per allocation, in manifest order.
    pub allocations: Vec<AllocationResult>,
}

/// One allocation over all snapshots of the study.
#[derive(Debug, Clone, Serialize)]
pub struct AllocationTotal {
    /// Allocation name.
    pub name: String,
    /// Totals over the allocation's entries in every snapshot.
    #[serde(flatten)]
    pub stats: CompressionStats,
}

/// All results of one algorithm.
#[derive(Debug, Clone, Serialize)]
pub struct AlgorithmResult {
    /// The algorithm (serialized by its CLI name).
    #[serde(serialize_with = "serialize_display")]
    pub algorithm: Algorithm,
    /// Totals over the whole workload (all snapshots, all allocations).
    pub total: CompressionStats,
    /// Per allocation over all snapshots, in manifest order.
    pub allocations: Vec<AllocationTotal>,
    /// Per snapshot, in manifest order.
    pub snapshots: Vec<SnapshotResult>,
}

/// The results of a compression study of one workload.
#[derive(Debug, Clone, Serialize)]
pub struct CompressionStudy {
    /// Workload name from the manifest.
    pub workload: String,
    /// Folder or raw file the workload was read from.
    pub path: String,
    /// Results per algorithm, in the order requested.
    pub algorithms: Vec<AlgorithmResult>,
}

/// One entry's result with its coordinates, as listed by
/// [`CompressionStudy::entry_records`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryRecord<'a> {
    /// Algorithm that compressed the entry.
    pub algorithm: Algorithm,
    /// Manifest `index` of the snapshot.
    pub snapshot: usize,
    /// Allocation name.
    pub allocation: &'a str,
    /// Index of the entry within its allocation.
    pub entry: usize,
    /// Index of the entry within the snapshot file (byte offset / 128).
    pub global_entry: u64,
    /// Stream length in bits, see [`EntryResult::stream_bits`].
    pub stream_bits: usize,
    /// Size class.
    pub class: SizeClass,
}

impl CompressionStudy {
    /// Compress every entry of every snapshot of `workload` with the golden
    /// codec of each of `algorithms`, advancing `progress` by one per entry
    /// and algorithm (see [`progress_bar`]).
    pub fn run(workload: &Workload, algorithms: &[Algorithm], progress: &ProgressBar) -> Self {
        let algorithms = algorithms
            .iter()
            .map(|&a| study_algorithm(workload, a, progress))
            .collect();
        CompressionStudy {
            workload: workload.manifest().workload.clone(),
            path: workload.path().display().to_string(),
            algorithms,
        }
    }

    /// Every entry's result, ordered by algorithm, snapshot, allocation and
    /// entry.
    pub fn entry_records(&self) -> impl Iterator<Item = EntryRecord<'_>> {
        self.algorithms.iter().flat_map(|alg| {
            alg.snapshots.iter().flat_map(move |snap| {
                snap.allocations.iter().flat_map(move |alloc| {
                    alloc
                        .entries
                        .iter()
                        .enumerate()
                        .map(move |(entry, r)| EntryRecord {
                            algorithm: alg.algorithm,
                            snapshot: snap.index,
                            allocation: &alloc.name,
                            entry,
                            global_entry: alloc.first_entry + entry as u64,
                            stream_bits: r.stream_bits,
                            class: r.class,
                        })
                })
            })
        })
    }
}

/// A progress bar for [`CompressionStudy::run`] over `workload` with
/// `algorithms` algorithms, counting entries. It draws on stderr only, and
/// not at all when stderr is not a terminal.
pub fn progress_bar(workload: &Workload, algorithms: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(workload.entry_count() * algorithms as u64),
        ProgressDrawTarget::stderr(),
    );
    let style = ProgressStyle::with_template(
        "compressing {bar:40} {human_pos}/{human_len} entries ({eta})",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

fn study_algorithm(
    workload: &Workload,
    algorithm: Algorithm,
    progress: &ProgressBar,
) -> AlgorithmResult {
    let codec = algorithm.codec();
    let snapshots: Vec<SnapshotResult> = workload
        .snapshots()
        .map(|snapshot| {
            let allocations: Vec<AllocationResult> = snapshot
                .allocations()
                .map(|alloc| {
                    let mut stats = CompressionStats::default();
                    let entries: Vec<EntryResult> = alloc
                        .entries()
                        .map(|entry| {
                            let c = codec.compress(&entry);
                            stats.record(c.class);
                            EntryResult {
                                stream_bits: c.stream_bits,
                                class: c.class,
                            }
                        })
                        .collect();
                    progress.inc(entries.len() as u64);
                    AllocationResult {
                        name: alloc.info().name.clone(),
                        first_entry: alloc.first_entry(),
                        entries,
                        stats,
                    }
                })
                .collect();
            let info = snapshot.info();
            SnapshotResult {
                index: info.index,
                file: info.file.clone(),
                label: info.label.clone(),
                total: sum(allocations.iter().map(|a| &a.stats)),
                allocations,
            }
        })
        .collect();

    // Every snapshot has the same allocations in the same order (validated by
    // `Workload::open`), so allocations are matched by position.
    let mut allocations: Vec<AllocationTotal> = snapshots
        .first()
        .map(|s| &s.allocations)
        .into_iter()
        .flatten()
        .map(|a| AllocationTotal {
            name: a.name.clone(),
            stats: CompressionStats::default(),
        })
        .collect();
    for snapshot in &snapshots {
        for (total, alloc) in allocations.iter_mut().zip(&snapshot.allocations) {
            total.stats.merge(&alloc.stats);
        }
    }
    AlgorithmResult {
        algorithm,
        total: sum(snapshots.iter().map(|s| &s.total)),
        allocations,
        snapshots,
    }
}

fn sum<'a>(stats: impl Iterator<Item = &'a CompressionStats>) -> CompressionStats {
    stats.fold(CompressionStats::default(), |mut acc, s| {
        acc.merge(s);
        acc
    })
}

fn serialize_display<S: Serializer>(
    value: &impl std::fmt::Display,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A raw file of four entries: all zero, one non-zero word (ZVC B8, 64
    /// bits), seven non-zero words (B32, 256 bits), all 32 words non-zero
    /// (RAW, 1056 bits).
    fn four_entry_workload() -> (tempfile::TempDir, Workload) {
        let mut data = vec![0u8; 4 * ENTRY_BYTES];
        data[128] = 1;
        for w in 0..7 {
            data[256 + 4 * w] = 2;
        }
        data[384..].fill(3);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("four.bin");
        fs::write(&path, data).unwrap();
        let workload = Workload::open(&path).unwrap();
        (dir, workload)
    }

    #[test]
    fn stats_give_bytes_and_ratio() {
        let mut s = CompressionStats::default();
        assert_eq!(s.ratio(), None);
        for class in [
            SizeClass::Zero,
            SizeClass::B8,
            SizeClass::B32,
            SizeClass::Raw,
        ] {
            s.record(class);
        }
        assert_eq!(s.entries(), 4);
        assert_eq!(s.uncompressed_bytes(), 512);
        assert_eq!(s.stored_bytes(), 8 + 32 + 128);
        assert_eq!(s.ratio(), Some(512.0 / 168.0));
        assert_eq!(s.count(SizeClass::B8), 1);
        assert_eq!(s.count(SizeClass::B16), 0);
    }

    #[test]
    fn all_zero_stats_serialize_ratio_as_null() {
        let mut s = CompressionStats::default();
        s.record(SizeClass::Zero);
        let v = serde_json::to_value(s).unwrap();
        assert_eq!(v["entries"], 1);
        assert_eq!(v["stored_bytes"], 0);
        assert!(v["compression_ratio"].is_null());
        assert_eq!(v["histogram"]["ZERO"], 1);
        let names: Vec<_> = v["histogram"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(names.len(), 8);
    }

    #[test]
    fn zvc_study_of_known_entries() {
        let (_dir, workload) = four_entry_workload();
        let study = CompressionStudy::run(&workload, &[Algorithm::Zvc], &ProgressBar::hidden());
        assert_eq!(study.workload, "four.bin");
        let zvc = &study.algorithms[0];
        assert_eq!(zvc.algorithm, Algorithm::Zvc);
        assert_eq!(zvc.total.stored_bytes(), 8 + 32 + 128);
        assert_eq!(zvc.allocations.len(), 1);
        assert_eq!(zvc.allocations[0].stats, zvc.total);
        assert_eq!(zvc.snapshots[0].total, zvc.total);

        let records: Vec<_> = study
            .entry_records()
            .map(|r| (r.entry, r.global_entry, r.stream_bits, r.class))
            .collect();
        assert_eq!(
            records,
            vec![
                (0, 0, 0, SizeClass::Zero),
                (1, 1, 64, SizeClass::B8),
                (2, 2, 256, SizeClass::B32),
                (3, 3, 1056, SizeClass::Raw)
            ]
        );

        let v = serde_json::to_value(&study).unwrap();
        assert_eq!(v["algorithms"][0]["algorithm"], "zvc");
        assert_eq!(
            v["algorithms"][0]["snapshots"][0]["allocations"][0]["name"],
            "four.bin"
        );
        assert_eq!(v["algorithms"][0]["total"]["histogram"]["B32"], 1);
        // The per-entry results are not serialized; `entries` is the count.
        assert_eq!(
            v["algorithms"][0]["snapshots"][0]["allocations"][0]["entries"],
            4
        );
    }

    /// Two snapshots of allocations `a` (one entry) and `b` (two entries):
    /// snapshot 0 is all zero, snapshot 7 has every word non-zero.
    #[test]
    fn allocation_totals_add_up_over_snapshots() {
        let dir = tempfile::tempdir().unwrap();
        let alloc = |name: &str, offset: u64, size: u64| {
            serde_json::json!({"name": name, "offset": offset, "size": size, "padded_size": size,
                               "dtype": "u8", "count": size, "description": ""})
        };
        let snapshot = |index: usize, file: &str| {
            serde_json::json!({"index": index, "file": file, "file_size": 384,
                               "allocations": [alloc("a", 0, 128), alloc("b", 128, 256)]})
        };
        let manifest = serde_json::json!({"workload": "two", "entry_bytes": 128,
                                          "snapshots": [snapshot(0, "zero.bin"), snapshot(7, "full.bin")]});
        fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
        fs::write(dir.path().join("zero.bin"), [0u8; 384]).unwrap();
        fs::write(dir.path().join("full.bin"), [9u8; 384]).unwrap();
        let workload = Workload::open(dir.path()).unwrap();

        let study = CompressionStudy::run(&workload, &[Algorithm::Zvc], &ProgressBar::hidden());
        let zvc = &study.algorithms[0];
        let snapshot_ratios: Vec<_> = zvc
            .snapshots
            .iter()
            .map(|s| (s.index, s.total.ratio()))
            .collect();
        assert_eq!(snapshot_ratios, vec![(0, None), (7, Some(1.0))]);
        let names: Vec<_> = zvc
            .allocations
            .iter()
            .map(|a| (a.name.as_str(), a.stats.entries()))
            .collect();
        assert_eq!(names, vec![("a", 2), ("b", 4)]);
        assert_eq!(zvc.allocations[1].stats.count(SizeClass::Zero), 2);
        assert_eq!(zvc.allocations[1].stats.count(SizeClass::Raw), 2);
        assert_eq!(zvc.total.entries(), 6);
        assert_eq!(zvc.total.ratio(), Some(2.0));

        let globals: Vec<_> = study
            .entry_records()
            .filter(|r| r.snapshot == 7)
            .map(|r| (r.allocation, r.entry, r.global_entry))
            .collect();
        assert_eq!(globals, vec![("a", 0, 0), ("b", 0, 1), ("b", 1, 2)]);
    }
}
