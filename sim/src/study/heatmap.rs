//! Spatial compressibility (Buddy Compression Fig. 8): the size class of
//! every memory-entry of each snapshot, `columns` entries per row, in
//! virtual-address order (allocations in manifest order, back to back; the
//! page-alignment gaps of docs/formats.md#trace-driver hold no data and are left out).

use serde::Serialize;

use crate::class_profile::ClassProfile;

/// The paper's row width: 64 entries of 128 B (8 KiB per row).
pub const COLUMNS: usize = 64;

/// Where an allocation lies in the entry sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AllocationSpan {
    pub name: String,
    /// Index of its first entry in the sequence (row = first_entry / columns).
    pub first_entry: u64,
    pub entries: u64,
}

/// One snapshot's map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeatmapSnapshot {
    pub index: usize,
    pub label: Option<String>,
    /// One string per row, one character per entry: its size-class code
    /// `0` (ZERO) .. `7` (RAW). The last row may be shorter.
    pub rows: Vec<String>,
}

/// The heat map of a workload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Heatmap {
    pub workload: String,
    pub algorithm: String,
    pub columns: usize,
    pub allocations: Vec<AllocationSpan>,
    pub snapshots: Vec<HeatmapSnapshot>,
}

impl Heatmap {
    /// The map of every snapshot of `profile`, `columns` entries per row.
    ///
    /// # Panics
    /// If `columns` is 0.
    pub fn new(profile: &ClassProfile, columns: usize) -> Self {
        assert!(columns > 0, "a heat map needs at least one column");
        let mut allocations = Vec::new();
        let mut next = 0u64;
        if let Some(first) = profile.snapshots.first() {
            for (name, classes) in profile.allocations.iter().zip(&first.classes) {
                allocations.push(AllocationSpan { name: name.clone(), first_entry: next, entries: classes.len() as u64 });
                next += classes.len() as u64;
            }
        }
        let snapshots = profile
            .snapshots
            .iter()
            .map(|s| {
                let codes: Vec<u8> = s.classes.iter().flatten().map(|c| b'0' + c.code()).collect();
                HeatmapSnapshot {
                    index: s.index,
                    label: s.label.clone(),
                    rows: codes.chunks(columns).map(|r| String::from_utf8_lossy(r).into_owned()).collect(),
                }
            })
            .collect();
        Heatmap { workload: profile.workload.clone(), algorithm: profile.algorithm.to_string(), columns, allocations, snapshots }
    }

    /// Rows per snapshot.
    pub fn rows(&self) -> usize {
        self.snapshots.first().map_or(0, |s| s.rows.len())
    }
}
