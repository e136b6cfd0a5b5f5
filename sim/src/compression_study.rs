//! Compression study: every 128-byte entry of every snapshot of a
//! [`Workload`] through the golden codecs, with the size-class histogram,
//! stored bytes and compression ratio per (snapshot, allocation), per
//! allocation over all snapshots, and for the whole workload.
//!
//! For MAG-BDI, every set of entries also carries the MAG-BDI paper's raw
//! and effective compression ratios ([`MagStats`]); for BDI, the page-level
//! ratio of LCP over BDI ([`LcpStats`]: each allocation cut into 4 KB pages
//! from its start, docs/formats.md#lcp). Several studies
//! (workloads) are summed up by [`Summary`]: the ratio per workload and
//! algorithm with the geometric mean over workloads.
//!
//! The entries are compressed on every core (rayon): algorithms, snapshots,
//! allocations and chunks of [`CHUNK_ENTRIES`] entries are tasks, and their
//! results are put together in order, so a study is the same, entry for
//! entry, as a serial one.
//!
//! Results serialize to JSON (serde). The per-entry results are kept in
//! memory but left out of the JSON; [`CompressionStudy::entry_records`] lists
//! them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use buddy_golden::{Algorithm, Codec, MagBdi, MemoryEntry, SizeClass, ENTRY_BYTES};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::ser::{SerializeMap, SerializeStruct};
use serde::{Serialize, Serializer};

use crate::lcp_metrics::LcpStats;
use crate::mag_metrics::MagStats;
use crate::workload::{AllocationData, Workload};

/// Entry counts per size class of a set of entries, from which the byte
/// totals and the compression ratio follow; for MAG-BDI also the sums of the
/// MAG-BDI paper's ratios, for BDI the sums of LCP's pages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompressionStats {
    /// Entries per class, indexed by [`SizeClass::code`].
    counts: [u64; SizeClass::ALL.len()],
    /// The MAG-BDI paper's sums, for MAG-BDI studies only.
    mag: Option<MagStats>,
    /// LCP's page sums, for BDI studies only.
    lcp: Option<LcpStats>,
}

impl CompressionStats {
    /// Empty stats for a study of `algorithm`: with empty [`MagStats`] when
    /// it is MAG-BDI, with empty [`LcpStats`] when it is BDI (LCP's
    /// compressor), without otherwise (as [`CompressionStats::default`]).
    pub fn for_algorithm(algorithm: Algorithm) -> Self {
        let lcp = (algorithm == Algorithm::Bdi).then(LcpStats::default);
        CompressionStats { mag: algorithm.mag().map(MagStats::new), lcp, ..Self::default() }
    }

    /// LCP's page sums, for BDI only.
    pub fn lcp(&self) -> Option<&LcpStats> {
        self.lcp.as_ref()
    }

    /// Mutable access to LCP's page sums, for BDI only.
    pub fn lcp_mut(&mut self) -> Option<&mut LcpStats> {
        self.lcp.as_mut()
    }

    /// The entries' bytes over LCP's physical bytes, `128 · entries /
    /// physical bytes`: unlike [`LcpStats::ratio`] (`4096 · pages /
    /// physical`) it does not count the zero padding of each allocation's
    /// last page as data, so it compares with [`CompressionStats::ratio`].
    /// `None` unless BDI with pages.
    pub fn lcp_data_ratio(&self) -> Option<f64> {
        let lcp = self.lcp.as_ref()?;
        (lcp.physical_bytes() > 0).then(|| self.uncompressed_bytes() as f64 / lcp.physical_bytes() as f64)
    }

    /// The MAG-BDI paper's sums (raw and effective ratios), for MAG-BDI only.
    pub fn mag(&self) -> Option<&MagStats> {
        self.mag.as_ref()
    }

    /// Mutable access to the MAG-BDI paper's sums, for MAG-BDI only.
    pub fn mag_mut(&mut self) -> Option<&mut MagStats> {
        self.mag.as_mut()
    }

    /// Count one entry of class `class`.
    pub fn record(&mut self, class: SizeClass) {
        self.counts[usize::from(class.code())] += 1;
    }

    /// Add the counts (and MAG-BDI sums) of `other`.
    pub fn merge(&mut self, other: &CompressionStats) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts) {
            *mine += theirs;
        }
        match (&mut self.mag, &other.mag) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (None, Some(theirs)) => self.mag = Some(*theirs),
            (_, None) => {}
        }
        match (&mut self.lcp, &other.lcp) {
            (Some(mine), Some(theirs)) => mine.merge(theirs),
            (None, Some(theirs)) => self.lcp = Some(*theirs),
            (_, None) => {}
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
        SizeClass::ALL.iter().map(|&c| self.count(c) * c.bytes() as u64).sum()
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
/// (null when nothing is stored) and `histogram` (`{"ZERO": n, ..., "RAW": n}`);
/// for MAG-BDI also `mag_stream_bits` (Σ paper stream bits),
/// `mag_fetched_bytes` (Σ bytes rounded up to the MAG), `mag_raw_ratio` and
/// `mag_effective_ratio` (null without entries), see [`MagStats`]; for BDI
/// also `lcp_pages`, `lcp_physical_bytes`, `lcp_ratio` (`4096 · pages /
/// physical bytes`, null without pages), `lcp_data_ratio` (`128 · entries /
/// physical bytes`) and `lcp_page_sizes` (`{"512": n, "1024": n, "2048": n, "4096": n}`),
/// see [`LcpStats`].
impl Serialize for CompressionStats {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("CompressionStats", 14)?;
        s.serialize_field("entries", &self.entries())?;
        s.serialize_field("uncompressed_bytes", &self.uncompressed_bytes())?;
        s.serialize_field("stored_bytes", &self.stored_bytes())?;
        s.serialize_field("compression_ratio", &self.ratio())?;
        s.serialize_field("histogram", &Histogram(&self.counts))?;
        if let Some(mag) = &self.mag {
            s.serialize_field("mag_stream_bits", &mag.stream_bits())?;
            s.serialize_field("mag_fetched_bytes", &mag.fetched_bytes())?;
            s.serialize_field("mag_raw_ratio", &mag.raw_ratio())?;
            s.serialize_field("mag_effective_ratio", &mag.effective_ratio())?;
        }
        if let Some(lcp) = &self.lcp {
            s.serialize_field("lcp_pages", &lcp.pages())?;
            s.serialize_field("lcp_physical_bytes", &lcp.physical_bytes())?;
            s.serialize_field("lcp_ratio", &lcp.ratio())?;
            s.serialize_field("lcp_data_ratio", &self.lcp_data_ratio())?;
            let sizes: std::collections::BTreeMap<usize, u64> =
                buddy_golden::lcp::PHYSICAL_SIZES.iter().copied().zip(lcp.per_size()).collect();
            s.serialize_field("lcp_page_sizes", &sizes)?;
        }
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
    /// and algorithm.
    pub fn run(workload: &Workload, algorithms: &[Algorithm], progress: &Progress) -> Self {
        let algorithms = algorithms.par_iter().map(|&a| study_algorithm(workload, a, progress)).collect();
        CompressionStudy { workload: workload.manifest().workload.clone(), path: workload.path().display().to_string(), algorithms }
    }

    /// Every entry's result, ordered by algorithm, snapshot, allocation and
    /// entry.
    pub fn entry_records(&self) -> impl Iterator<Item = EntryRecord<'_>> {
        self.algorithms.iter().flat_map(|alg| {
            alg.snapshots.iter().flat_map(move |snap| {
                snap.allocations.iter().flat_map(move |alloc| {
                    alloc.entries.iter().enumerate().map(move |(entry, r)| EntryRecord {
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

/// How long studies run before [`Progress::stderr`] starts drawing.
pub const PROGRESS_DELAY: Duration = Duration::from_secs(1);

/// Entries compressed by one parallel task (and between two progress
/// updates): large enough that a task outweighs its scheduling.
pub const CHUNK_ENTRIES: usize = 4096;

/// Progress of one or more [`CompressionStudy::run`]s, counted in entries ×
/// algorithms.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    /// When to start drawing on stderr; `None` for never.
    show_at: Option<Instant>,
    /// Whether drawing has started.
    shown: AtomicBool,
}

impl Progress {
    /// A progress bar for studying every one of `workloads` with
    /// `algorithms` algorithms each. It draws on stderr only, not at all
    /// when stderr is not a terminal, and only once the studies have run
    /// longer than [`PROGRESS_DELAY`].
    pub fn stderr(workloads: &[Workload], algorithms: usize) -> Self {
        let entries: u64 = workloads.iter().map(Workload::entry_count).sum();
        let bar = ProgressBar::with_draw_target(Some(entries * algorithms as u64), ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template("compressing {bar:40} {human_pos}/{human_len} entries ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        Progress { bar, show_at: Some(Instant::now() + PROGRESS_DELAY), shown: AtomicBool::new(false) }
    }

    /// Progress that is counted but never drawn, of unknown length.
    pub fn hidden() -> Self {
        Progress { bar: ProgressBar::hidden(), show_at: None, shown: AtomicBool::new(false) }
    }

    /// Entries × algorithms to study in all (`None` for [`Progress::hidden`]).
    pub fn length(&self) -> Option<u64> {
        self.bar.length()
    }

    /// Entries × algorithms studied so far.
    pub fn position(&self) -> u64 {
        self.bar.position()
    }

    /// Count `done` more entries × algorithms; start drawing once the delay
    /// has passed.
    fn advance(&self, done: u64) {
        self.bar.inc(done);
        if let Some(at) = self.show_at {
            if !self.shown.load(Ordering::Relaxed) && Instant::now() >= at && !self.shown.swap(true, Ordering::Relaxed) {
                self.bar.set_draw_target(ProgressDrawTarget::stderr());
            }
        }
    }

    /// Erase the bar (if drawn); call before printing the results.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

fn study_algorithm(workload: &Workload, algorithm: Algorithm, progress: &Progress) -> AlgorithmResult {
    let codec = algorithm.codec();
    // The MAG-BDI paper's stream lengths, for the raw and effective ratios.
    let paper = algorithm.mag().map(MagBdi::new);
    let snapshots: Vec<_> = workload.snapshots().collect();
    let snapshots: Vec<SnapshotResult> = snapshots
        .into_par_iter()
        .map(|snapshot| {
            let allocations: Vec<_> = snapshot.allocations().collect();
            let allocations: Vec<AllocationResult> = allocations
                .into_par_iter()
                .map(|alloc| study_allocation(alloc, algorithm, codec.as_ref(), paper.as_ref(), progress))
                .collect();
            let info = snapshot.info();
            SnapshotResult {
                index: info.index,
                file: info.file.clone(),
                label: info.label.clone(),
                total: sum(algorithm, allocations.iter().map(|a| &a.stats)),
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
        .map(|a| AllocationTotal { name: a.name.clone(), stats: CompressionStats::for_algorithm(algorithm) })
        .collect();
    for snapshot in &snapshots {
        for (total, alloc) in allocations.iter_mut().zip(&snapshot.allocations) {
            total.stats.merge(&alloc.stats);
        }
    }
    AlgorithmResult { algorithm, total: sum(algorithm, snapshots.iter().map(|s| &s.total)), allocations, snapshots }
}

/// Compress every entry of `alloc` with `codec`, in chunks of
/// [`CHUNK_ENTRIES`] on every core, each chunk writing its results in place
/// (address order); the chunks' stats are summed in order.
fn study_allocation(
    alloc: AllocationData<'_>,
    algorithm: Algorithm,
    codec: &(dyn Codec + Send + Sync),
    paper: Option<&MagBdi>,
    progress: &Progress,
) -> AllocationResult {
    // `padded_size` is a multiple of 128 (validated), so nothing is left over.
    let (raw_entries, _) = alloc.bytes().as_chunks::<ENTRY_BYTES>();
    let mut entries = vec![EntryResult { stream_bits: 0, class: SizeClass::Zero }; raw_entries.len()];
    let chunk_stats: Vec<CompressionStats> = raw_entries
        .par_chunks(CHUNK_ENTRIES)
        .zip(entries.par_chunks_mut(CHUNK_ENTRIES))
        .map(|(chunk, results)| {
            let mut stats = CompressionStats::for_algorithm(algorithm);
            for (bytes, result) in chunk.iter().zip(results.iter_mut()) {
                let entry = MemoryEntry::from_bytes(bytes);
                let c = codec.compress(&entry);
                *result = EntryResult { stream_bits: c.stream_bits, class: c.class };
                stats.record(result.class);
                if let (Some(bdi), Some(mag)) = (paper, stats.mag_mut()) {
                    mag.record(bdi.stream_bits(&entry));
                }
            }
            // CHUNK_ENTRIES is a multiple of 32, so every chunk starts on a
            // 4 KB page of the allocation; only the last one can end inside one.
            if let Some(lcp) = stats.lcp_mut() {
                lcp.record_classes(results.iter().map(|r| r.class));
            }
            progress.advance(chunk.len() as u64);
            stats
        })
        .collect();
    AllocationResult {
        name: alloc.info().name.clone(),
        first_entry: alloc.first_entry(),
        entries,
        stats: sum(algorithm, chunk_stats.iter()),
    }
}

/// The sum of `stats`, all of `algorithm`.
fn sum<'a>(algorithm: Algorithm, stats: impl Iterator<Item = &'a CompressionStats>) -> CompressionStats {
    stats.fold(CompressionStats::for_algorithm(algorithm), |mut acc, s| {
        acc.merge(s);
        acc
    })
}

/// The compression ratio of every workload under every algorithm, with the
/// geometric mean over workloads (Buddy paper Fig. 5a), and for MAG-BDI the
/// MAG-BDI paper's raw and effective ratios (MAG paper Fig. 13).
///
/// A workload whose ratio is infinite (nothing stored: every entry ZERO) or
/// undefined (no entries) is left out of that algorithm's geometric mean,
/// which is then taken over the remaining workloads; [`Summary::excluded`]
/// names the workloads left out. The mean is `None` when none remains.
///
/// JSON: `algorithms` (names); `workloads`, each `{name, path, ratios,
/// mag_raw_ratios, mag_effective_ratios, lcp_ratios}`; `geomean`,
/// `geomean_excluded`, `geomean_mag_raw`, `geomean_mag_effective` and
/// `geomean_lcp`. Every ratio set is a map from algorithm name to ratio
/// (null when infinite or undefined), in algorithm order; the `mag_*` maps
/// hold the MAG-BDI algorithms only, the `lcp` maps BDI only (LCP's page
/// ratio over it).
#[derive(Debug, Clone)]
pub struct Summary {
    algorithms: Vec<Algorithm>,
    workloads: Vec<WorkloadSummary>,
}

/// One workload's row of a [`Summary`].
#[derive(Debug, Clone)]
pub struct WorkloadSummary {
    /// Workload name from the manifest.
    pub name: String,
    /// Folder or raw file the workload was read from.
    pub path: String,
    /// Totals over the whole workload per algorithm, parallel to
    /// [`Summary::algorithms`].
    pub totals: Vec<CompressionStats>,
}

impl WorkloadSummary {
    /// Compression ratio (uncompressed / stored bytes) under the `i`-th
    /// algorithm; `None` when infinite or undefined.
    pub fn ratio(&self, i: usize) -> Option<f64> {
        self.totals[i].ratio()
    }

    /// The MAG-BDI paper's raw ratio under the `i`-th algorithm; `None`
    /// unless it is MAG-BDI and the workload has entries.
    pub fn mag_raw_ratio(&self, i: usize) -> Option<f64> {
        self.totals[i].mag().and_then(MagStats::raw_ratio)
    }

    /// The MAG-BDI paper's effective ratio under the `i`-th algorithm;
    /// `None` unless it is MAG-BDI and the workload has entries.
    pub fn mag_effective_ratio(&self, i: usize) -> Option<f64> {
        self.totals[i].mag().and_then(MagStats::effective_ratio)
    }

    /// LCP's page ratio over the `i`-th algorithm; `None` unless it is BDI
    /// and the workload has entries.
    pub fn lcp_ratio(&self, i: usize) -> Option<f64> {
        self.totals[i].lcp().and_then(LcpStats::ratio)
    }
}

impl Summary {
    /// The summary of `studies`, one per workload, in the order given.
    ///
    /// # Panics
    /// When the studies are not all of the same algorithms in the same order.
    pub fn of(studies: &[CompressionStudy]) -> Self {
        let algorithms: Vec<Algorithm> = studies.first().map(|s| s.algorithms.iter().map(|a| a.algorithm).collect()).unwrap_or_default();
        let workloads = studies
            .iter()
            .map(|study| {
                let own: Vec<Algorithm> = study.algorithms.iter().map(|a| a.algorithm).collect();
                assert_eq!(own, algorithms, "studies of different algorithms");
                WorkloadSummary {
                    name: study.workload.clone(),
                    path: study.path.clone(),
                    totals: study.algorithms.iter().map(|a| a.total).collect(),
                }
            })
            .collect();
        Summary { algorithms, workloads }
    }

    /// The algorithms (columns), in study order.
    pub fn algorithms(&self) -> &[Algorithm] {
        &self.algorithms
    }

    /// One row per workload.
    pub fn workloads(&self) -> &[WorkloadSummary] {
        &self.workloads
    }

    /// Geometric mean over workloads of the `i`-th algorithm's compression
    /// ratio, leaving out the [`Summary::excluded`] workloads.
    pub fn geomean(&self, i: usize) -> Option<f64> {
        geomean(self.workloads.iter().map(|w| w.ratio(i)))
    }

    /// Names of the workloads left out of [`Summary::geomean`] of the `i`-th
    /// algorithm: ratio infinite (nothing stored) or undefined (no entries).
    pub fn excluded(&self, i: usize) -> Vec<&str> {
        self.workloads.iter().filter(|w| w.ratio(i).is_none()).map(|w| w.name.as_str()).collect()
    }

    /// Geometric mean over workloads of the MAG-BDI paper's raw ratio of the
    /// `i`-th algorithm (workloads without entries left out); `None` unless
    /// it is MAG-BDI.
    pub fn geomean_mag_raw(&self, i: usize) -> Option<f64> {
        geomean(self.workloads.iter().map(|w| w.mag_raw_ratio(i)))
    }

    /// As [`Summary::geomean_mag_raw`], for the effective ratio.
    pub fn geomean_mag_effective(&self, i: usize) -> Option<f64> {
        geomean(self.workloads.iter().map(|w| w.mag_effective_ratio(i)))
    }

    /// Geometric mean over workloads of LCP's page ratio over the `i`-th
    /// algorithm (workloads without entries left out); `None` unless it is BDI.
    pub fn geomean_lcp(&self, i: usize) -> Option<f64> {
        geomean(self.workloads.iter().map(|w| w.lcp_ratio(i)))
    }

    /// `(algorithm name, f(i))` for every algorithm `i` that `keep`s, for
    /// serializing as a map.
    fn by_algorithm<T>(&self, keep: impl Fn(Algorithm) -> bool, f: impl Fn(usize) -> T) -> OrderedMap<T> {
        OrderedMap(self.algorithms.iter().enumerate().filter(|(_, a)| keep(**a)).map(|(i, a)| (a.name(), f(i))).collect())
    }
}

/// The geometric mean of the `Some` values; `None` when there are none.
/// Geometric mean of the values that are `Some` (`None` when there are none).
pub fn geomean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let (n, log_sum) = values.flatten().fold((0u32, 0.0f64), |(n, s), v| (n + 1, s + v.ln()));
    (n > 0).then(|| (log_sum / f64::from(n)).exp())
}

/// Serializes as a map with the keys in the given order.
struct OrderedMap<T>(Vec<(&'static str, T)>);

impl<T: Serialize> Serialize for OrderedMap<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl Serialize for Summary {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Row<'a>(&'a Summary, &'a WorkloadSummary);
        impl Serialize for Row<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let Row(summary, w) = self;
                let mut s = serializer.serialize_struct("WorkloadSummary", 6)?;
                s.serialize_field("name", &w.name)?;
                s.serialize_field("path", &w.path)?;
                s.serialize_field("ratios", &summary.by_algorithm(|_| true, |i| w.ratio(i)))?;
                s.serialize_field("mag_raw_ratios", &summary.by_algorithm(is_mag, |i| w.mag_raw_ratio(i)))?;
                s.serialize_field("mag_effective_ratios", &summary.by_algorithm(is_mag, |i| w.mag_effective_ratio(i)))?;
                s.serialize_field("lcp_ratios", &summary.by_algorithm(is_lcp, |i| w.lcp_ratio(i)))?;
                s.end()
            }
        }
        let names: Vec<&str> = self.algorithms.iter().map(|a| a.name()).collect();
        let rows: Vec<Row<'_>> = self.workloads.iter().map(|w| Row(self, w)).collect();
        let mut s = serializer.serialize_struct("Summary", 7)?;
        s.serialize_field("algorithms", &names)?;
        s.serialize_field("workloads", &rows)?;
        s.serialize_field("geomean", &self.by_algorithm(|_| true, |i| self.geomean(i)))?;
        s.serialize_field("geomean_excluded", &self.by_algorithm(|_| true, |i| self.excluded(i)))?;
        s.serialize_field("geomean_mag_raw", &self.by_algorithm(is_mag, |i| self.geomean_mag_raw(i)))?;
        s.serialize_field("geomean_mag_effective", &self.by_algorithm(is_mag, |i| self.geomean_mag_effective(i)))?;
        s.serialize_field("geomean_lcp", &self.by_algorithm(is_lcp, |i| self.geomean_lcp(i)))?;
        s.end()
    }
}

/// MAG-BDI algorithms carry the MAG-BDI paper's ratios.
fn is_mag(a: Algorithm) -> bool {
    a.mag().is_some()
}

/// BDI carries LCP's page ratio.
fn is_lcp(a: Algorithm) -> bool {
    a == Algorithm::Bdi
}

fn serialize_display<S: Serializer>(value: &impl std::fmt::Display, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// The raw file `name` holding `data`, in `dir`, opened as a workload.
    fn raw_workload(dir: &tempfile::TempDir, name: &str, data: &[u8]) -> Workload {
        let path = dir.path().join(name);
        fs::write(&path, data).unwrap();
        Workload::open(&path).unwrap()
    }

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
        let workload = raw_workload(&dir, "four.bin", &data);
        (dir, workload)
    }

    #[test]
    fn stats_give_bytes_and_ratio() {
        let mut s = CompressionStats::default();
        assert_eq!(s.ratio(), None);
        for class in [SizeClass::Zero, SizeClass::B8, SizeClass::B32, SizeClass::Raw] {
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
        let names: Vec<_> = v["histogram"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(names.len(), 8);
    }

    #[test]
    fn zvc_study_of_known_entries() {
        let (_dir, workload) = four_entry_workload();
        let study = CompressionStudy::run(&workload, &[Algorithm::Zvc], &Progress::hidden());
        assert_eq!(study.workload, "four.bin");
        let zvc = &study.algorithms[0];
        assert_eq!(zvc.algorithm, Algorithm::Zvc);
        assert_eq!(zvc.total.stored_bytes(), 8 + 32 + 128);
        assert_eq!(zvc.allocations.len(), 1);
        assert_eq!(zvc.allocations[0].stats, zvc.total);
        assert_eq!(zvc.snapshots[0].total, zvc.total);

        let records: Vec<_> = study.entry_records().map(|r| (r.entry, r.global_entry, r.stream_bits, r.class)).collect();
        assert_eq!(
            records,
            vec![(0, 0, 0, SizeClass::Zero), (1, 1, 64, SizeClass::B8), (2, 2, 256, SizeClass::B32), (3, 3, 1056, SizeClass::Raw)]
        );

        let v = serde_json::to_value(&study).unwrap();
        assert_eq!(v["algorithms"][0]["algorithm"], "zvc");
        assert_eq!(v["algorithms"][0]["snapshots"][0]["allocations"][0]["name"], "four.bin");
        assert_eq!(v["algorithms"][0]["total"]["histogram"]["B32"], 1);
        // The per-entry results are not serialized; `entries` is the count.
        assert_eq!(v["algorithms"][0]["snapshots"][0]["allocations"][0]["entries"], 4);
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

        let study = CompressionStudy::run(&workload, &[Algorithm::Zvc], &Progress::hidden());
        let zvc = &study.algorithms[0];
        let snapshot_ratios: Vec<_> = zvc.snapshots.iter().map(|s| (s.index, s.total.ratio())).collect();
        assert_eq!(snapshot_ratios, vec![(0, None), (7, Some(1.0))]);
        let names: Vec<_> = zvc.allocations.iter().map(|a| (a.name.as_str(), a.stats.entries())).collect();
        assert_eq!(names, vec![("a", 2), ("b", 4)]);
        assert_eq!(zvc.allocations[1].stats.count(SizeClass::Zero), 2);
        assert_eq!(zvc.allocations[1].stats.count(SizeClass::Raw), 2);
        assert_eq!(zvc.total.entries(), 6);
        assert_eq!(zvc.total.ratio(), Some(2.0));

        let globals: Vec<_> = study.entry_records().filter(|r| r.snapshot == 7).map(|r| (r.allocation, r.entry, r.global_entry)).collect();
        assert_eq!(globals, vec![("a", 0, 0), ("b", 0, 1), ("b", 1, 2)]);
    }

    /// Entries with known MAG-BDI paper streams: all zero (k = 1: 8*MAG
    /// bits), words 300 and 600 then zeros (MAG 16: k = 3, 48 bytes, the
    /// smallest d with 300 in range of the zero base and 600 as the base is
    /// 10; MAG 32 / 64: 64 bytes), and words of 32 significant bits that no
    /// encoding holds (uncompressed, 128 bytes).
    fn mag_workload() -> (tempfile::TempDir, Workload) {
        let mut data = vec![0u8; 3 * ENTRY_BYTES];
        data[128..132].copy_from_slice(&300u32.to_le_bytes());
        data[132..136].copy_from_slice(&600u32.to_le_bytes());
        for (i, word) in data[256..].chunks_exact_mut(4).enumerate() {
            let w = (i as u32 + 1).wrapping_mul(0x9E37_79B9) | 0x4000_0000;
            word.copy_from_slice(&w.to_le_bytes());
        }
        let dir = tempfile::tempdir().unwrap();
        let workload = raw_workload(&dir, "mag.bin", &data);
        (dir, workload)
    }

    #[test]
    fn mag_bdi_study_counts_the_paper_stream_lengths() {
        use buddy_golden::Mag;
        let (_dir, workload) = mag_workload();
        let algorithms = [Algorithm::MagBdi(Mag::B16), Algorithm::MagBdi(Mag::B32), Algorithm::MagBdi(Mag::B64), Algorithm::Zvc];
        let study = CompressionStudy::run(&workload, &algorithms, &Progress::hidden());

        // MAG 16: Buddy stores ZERO, B64 (the k = 4 stream), RAW; the paper
        // counts 16 + 48 + 128 bytes.
        let m16 = &study.algorithms[0].total;
        let classes: Vec<_> = study.entry_records().take(3).map(|r| (r.stream_bits, r.class)).collect();
        assert_eq!(classes, vec![(0, SizeClass::Zero), (512, SizeClass::B64), (1024, SizeClass::Raw)]);
        assert_eq!(m16.stored_bytes(), 64 + 128);
        let mag = m16.mag().unwrap();
        assert_eq!((mag.entries(), mag.stream_bits(), mag.fetched_bytes()), (3, 192 * 8, 192));
        assert_eq!(mag.raw_ratio(), Some(384.0 / 192.0));
        // MAG 32: 32 + 64 + 128; MAG 64: 64 + 64 + 128.
        let ratios = |i: usize| {
            let m = study.algorithms[i].total.mag().copied().unwrap();
            (m.raw_ratio(), m.effective_ratio())
        };
        assert_eq!(ratios(1), (Some(384.0 / 224.0), Some(384.0 / 224.0)));
        assert_eq!(ratios(2), (Some(384.0 / 256.0), Some(384.0 / 256.0)));
        assert!(study.algorithms[3].total.mag().is_none());

        let v = serde_json::to_value(&study).unwrap();
        let total = &v["algorithms"][1]["total"];
        assert_eq!(total["mag_stream_bits"], 224 * 8);
        assert_eq!(total["mag_fetched_bytes"], 224);
        assert_eq!(total["mag_raw_ratio"], 384.0 / 224.0);
        assert_eq!(v["algorithms"][1]["allocations"][0]["mag_effective_ratio"], 384.0 / 224.0);
        assert!(v["algorithms"][3]["total"].get("mag_raw_ratio").is_none());
    }

    /// Geometric mean over workloads; an all-zero workload (ratio infinite)
    /// is left out and named.
    #[test]
    fn summary_takes_the_geomean_over_finite_workloads() {
        let (dir, four) = four_entry_workload();
        let zero = raw_workload(&dir, "zero.bin", &[0u8; ENTRY_BYTES]);
        let full = raw_workload(&dir, "full.bin", &[7u8; 2 * ENTRY_BYTES]);
        let algorithms = [Algorithm::Zvc, Algorithm::MagBdi(buddy_golden::Mag::B32)];
        let studies: Vec<_> =
            [&four, &zero, &full].into_iter().map(|w| CompressionStudy::run(w, &algorithms, &Progress::hidden())).collect();
        let summary = Summary::of(&studies);
        assert_eq!(summary.algorithms(), &algorithms);
        let zvc: Vec<_> = summary.workloads().iter().map(|w| w.ratio(0)).collect();
        assert_eq!(zvc, vec![Some(512.0 / 168.0), None, Some(1.0)]);
        let expected = (512.0f64 / 168.0 * 1.0).sqrt();
        assert!((summary.geomean(0).unwrap() - expected).abs() < 1e-12);
        assert_eq!(summary.excluded(0), vec!["zero.bin"]);
        // MAG ratios are finite for every workload with entries: the
        // all-zero entry is a 32-byte stream (ratio 4).
        assert_eq!(summary.workloads()[1].mag_raw_ratio(1), Some(4.0));
        assert_eq!(summary.workloads()[0].mag_raw_ratio(0), None);

        let v = serde_json::to_value(&summary).unwrap();
        assert_eq!(v["algorithms"], serde_json::json!(["zvc", "mag-bdi"]));
        assert_eq!(v["workloads"][1]["name"], "zero.bin");
        assert!(v["workloads"][1]["ratios"]["zvc"].is_null());
        assert_eq!(v["workloads"][2]["ratios"]["zvc"], 1.0);
        assert_eq!(v["workloads"][1]["mag_raw_ratios"], serde_json::json!({"mag-bdi": 4.0}));
        assert_eq!(v["geomean"]["zvc"], summary.geomean(0).unwrap());
        assert_eq!(v["geomean_excluded"]["zvc"], serde_json::json!(["zero.bin"]));
        assert_eq!(v["geomean_mag_effective"]["mag-bdi"], summary.geomean_mag_effective(1).unwrap());
        assert!(v["geomean_mag_raw"].get("zvc").is_none());
    }

    #[test]
    fn geomean_of_nothing_is_none() {
        assert_eq!(geomean([None, None].into_iter()), None);
        assert_eq!(geomean([Some(2.0), None, Some(8.0)].into_iter()), Some(4.0));
    }

    /// The parallel study gives every entry the result of compressing it
    /// alone, in address order, over several chunks per allocation.
    #[test]
    fn parallel_study_equals_entry_by_entry_compression() {
        let n = 3 * CHUNK_ENTRIES + 17;
        let mut data = vec![0u8; n * ENTRY_BYTES];
        let mut x: u64 = 0x1234_5678;
        for (i, entry) in data.chunks_exact_mut(ENTRY_BYTES).enumerate() {
            // Entries from all zero to all 32 words non-zero, so every class occurs.
            for word in entry.chunks_exact_mut(4).take(i % 33) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                word.copy_from_slice(&((x as u32) >> (i % 29)).to_le_bytes());
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let workload = raw_workload(&dir, "mixed.bin", &data);
        let algorithms = Algorithm::ALL;
        let study = CompressionStudy::run(&workload, &algorithms, &Progress::hidden());
        let entries = workload.all_entries();
        for (alg, result) in algorithms.iter().zip(&study.algorithms) {
            assert_eq!(result.algorithm, *alg);
            let codec = alg.codec();
            let expected: Vec<_> = entries.iter().map(|e| codec.compress(e)).map(|c| (c.stream_bits, c.class)).collect();
            let got: Vec<_> = result.snapshots[0].allocations[0].entries.iter().map(|r| (r.stream_bits, r.class)).collect();
            assert_eq!(got, expected, "{alg}");
            let mut total = CompressionStats::for_algorithm(*alg);
            for (e, &(_, class)) in entries.iter().zip(&expected) {
                total.record(class);
                if let (Algorithm::MagBdi(mag), Some(m)) = (alg, total.mag_mut()) {
                    m.record(MagBdi::new(*mag).stream_bits(e));
                }
            }
            if let Some(lcp) = total.lcp_mut() {
                lcp.record_classes(expected.iter().map(|&(_, class)| class));
                // The same pages through the golden LCP compressor.
                let raw = workload.snapshots().next().unwrap().allocations().next().unwrap().bytes();
                assert_eq!(lcp.physical_bytes(), buddy_golden::lcp::physical_bytes_of(raw));
            }
            assert_eq!(result.total, total, "{alg}");
        }
    }

    /// One progress covers every workload × algorithm, in steps within
    /// large allocations.
    #[test]
    fn progress_covers_every_workload_and_algorithm() {
        let (dir, four) = four_entry_workload();
        let big = raw_workload(&dir, "big.bin", &vec![1u8; 5000 * ENTRY_BYTES]);
        let workloads = [four, big];
        let progress = Progress::stderr(&workloads, 2);
        assert_eq!(progress.length(), Some(2 * 5004));
        for w in &workloads {
            CompressionStudy::run(w, &[Algorithm::Zvc, Algorithm::Bpc], &progress);
        }
        assert_eq!(progress.position(), 2 * 5004);
        progress.finish();
    }
}
