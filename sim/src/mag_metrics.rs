//! The MAG-BDI paper's raw and effective compression ratios (MAG paper
//! Sec. VI-A, Fig. 13) over sets of entries.
//!
//! Per entry, the golden helpers [`mag_bdi::raw_ratio`] and
//! [`mag_bdi::effective_ratio`] are `128 / bytes`, where `bytes` is
//! - raw: the stream length `stream_bits / 8`, not rounded, at most 128;
//! - effective: the bytes fetched from DRAM, `ceil(stream_bits / 8)` rounded
//!   up to a multiple of the MAG, at most 128;
//!
//! and an uncompressed entry (`stream_bits` `None`) counts as 128 bytes. A set
//! of entries aggregates as a **ratio of sums**, Σ 128 / Σ bytes (total
//! uncompressed size over total compressed size), not as a mean of the
//! per-entry ratios. [`MagStats`] keeps those sums.
//!
//! The lengths come from [`MagBdi::stream_bits`], the paper's view: the
//! paper has no ZERO class, so an all-zero entry counts as the smallest
//! stream (`8*MAG` bits, ratio `128/MAG`), and a MAG 16 entry counts its
//! 48-byte (k = 3) or 112-byte (k = 7) stream although Buddy stores it as B64
//! or RAW. Every MAG-BDI stream is `k*MAG` bytes, so for MAG-BDI the raw and
//! effective ratios coincide (they differ for streams of other lengths).
//!
//! [`MagBdi::stream_bits`]: buddy_golden::MagBdi::stream_bits
//! [`mag_bdi::raw_ratio`]: buddy_golden::mag_bdi::raw_ratio
//! [`mag_bdi::effective_ratio`]: buddy_golden::mag_bdi::effective_ratio

use buddy_golden::mag_bdi::UNCOMPRESSED_BITS;
use buddy_golden::{Mag, ENTRY_BYTES};

/// Sums over a set of entries from which the MAG-BDI paper's raw and
/// effective compression ratios follow (ratio of sums, see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MagStats {
    /// The memory access granularity the effective sizes are rounded to.
    mag: Mag,
    /// Number of entries.
    entries: u64,
    /// Σ raw stream length in bits (each at most 1024; uncompressed: 1024).
    stream_bits: u64,
    /// Σ fetched bytes (each a multiple of the MAG, at most 128).
    fetched_bytes: u64,
}

impl MagStats {
    /// Empty sums for granularity `mag`.
    pub const fn new(mag: Mag) -> Self {
        MagStats { mag, entries: 0, stream_bits: 0, fetched_bytes: 0 }
    }

    /// The granularity the effective sizes are rounded to.
    pub const fn mag(&self) -> Mag {
        self.mag
    }

    /// Count one entry whose paper stream length is `stream_bits` bits
    /// (`None`: uncompressed), as [`buddy_golden::MagBdi::stream_bits`] gives it.
    pub fn record(&mut self, stream_bits: Option<usize>) {
        self.entries += 1;
        self.stream_bits += raw_bits(stream_bits) as u64;
        self.fetched_bytes += fetched_bytes(stream_bits, self.mag) as u64;
    }

    /// Add the sums of `other`, which must have the same MAG.
    pub fn merge(&mut self, other: &MagStats) {
        debug_assert_eq!(self.mag, other.mag, "merging MAG-BDI sums of different MAGs");
        self.entries += other.entries;
        self.stream_bits += other.stream_bits;
        self.fetched_bytes += other.fetched_bytes;
    }

    /// Number of entries counted.
    pub const fn entries(&self) -> u64 {
        self.entries
    }

    /// Σ raw stream length in bits (uncompressed entries count 1024).
    pub const fn stream_bits(&self) -> u64 {
        self.stream_bits
    }

    /// Σ bytes fetched from DRAM (stream bytes rounded up to the MAG).
    pub const fn fetched_bytes(&self) -> u64 {
        self.fetched_bytes
    }

    /// The paper's raw compression ratio, Σ 128 bytes / Σ (stream bits / 8);
    /// `None` when there are no entries.
    pub fn raw_ratio(&self) -> Option<f64> {
        (self.stream_bits > 0).then(|| (self.entries * UNCOMPRESSED_BITS as u64) as f64 / self.stream_bits as f64)
    }

    /// The paper's effective compression ratio, Σ 128 bytes / Σ fetched
    /// bytes; `None` when there are no entries.
    pub fn effective_ratio(&self) -> Option<f64> {
        (self.fetched_bytes > 0).then(|| (self.entries * ENTRY_BYTES as u64) as f64 / self.fetched_bytes as f64)
    }
}

/// Raw length in bits of one entry, as [`buddy_golden::mag_bdi::raw_ratio`] counts it:
/// `UNCOMPRESSED_BITS / raw_bits(b) == raw_ratio(b)`.
fn raw_bits(stream_bits: Option<usize>) -> usize {
    stream_bits.map_or(UNCOMPRESSED_BITS, |b| b.min(UNCOMPRESSED_BITS))
}

/// Fetched bytes of one entry, as [`buddy_golden::mag_bdi::effective_ratio`] counts them:
/// `ENTRY_BYTES / fetched_bytes(b, mag) == effective_ratio(b, mag)`.
fn fetched_bytes(stream_bits: Option<usize>, mag: Mag) -> usize {
    let bytes = stream_bits.map_or(ENTRY_BYTES, |b| b.div_ceil(8));
    (bytes.div_ceil(mag.bytes()) * mag.bytes()).min(ENTRY_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use buddy_golden::mag_bdi;

    /// The per-entry sizes summed here are exactly those of the golden
    /// per-entry helpers, for every length a stream can have (and more).
    #[test]
    fn one_entry_gives_the_golden_per_entry_ratios() {
        for mag in Mag::ALL {
            let lengths = (1..=1100).map(Some).chain([None]);
            for bits in lengths {
                let mut s = MagStats::new(mag);
                s.record(bits);
                assert_eq!(s.raw_ratio(), Some(mag_bdi::raw_ratio(bits)), "{mag:?} {bits:?}");
                assert_eq!(s.effective_ratio(), Some(mag_bdi::effective_ratio(bits, mag)), "{mag:?} {bits:?}");
            }
        }
    }

    /// Fig. 1 of the MAG paper: 36 bytes with a 32-byte MAG fetch 64 bytes.
    /// Aggregation is a ratio of sums, not a mean of per-entry ratios.
    #[test]
    fn sets_aggregate_as_ratio_of_sums() {
        let mut s = MagStats::new(Mag::B32);
        assert_eq!((s.raw_ratio(), s.effective_ratio()), (None, None));
        s.record(Some(36 * 8));
        s.record(None);
        assert_eq!(s.entries(), 2);
        assert_eq!(s.stream_bits(), (36 + 128) * 8);
        assert_eq!(s.fetched_bytes(), 64 + 128);
        assert_eq!(s.raw_ratio(), Some(256.0 / 164.0));
        assert_eq!(s.effective_ratio(), Some(256.0 / 192.0));

        let mut other = MagStats::new(Mag::B32);
        other.record(Some(256));
        s.merge(&other);
        assert_eq!(s.effective_ratio(), Some(384.0 / 224.0));
        assert_eq!(s.mag(), Mag::B32);
    }
}
