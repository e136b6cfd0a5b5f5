//! LCP's page-level compression ratio over sets of pages
//! (docs/formats.md#lcp; Pekhimenko et al. MICRO 2013; ETC, seed `004_*`,
//! Sec. 4.4).
//!
//! Under LCP a 4 KB page of 32 memory-entries, each compressed with BDI,
//! takes 512, 1024, 2048 or 4096 bytes of device memory
//! ([`buddy_golden::lcp::Layout::choose`], from the entries' BDI size
//! classes). An allocation is cut into 4 KB pages from its start, the last
//! page zero-padded (allocations start on a page boundary). [`LcpStats`]
//! keeps the page count, the sum of the physical sizes and how many pages
//! took each size; the ratio is `4096 · pages / physical bytes` (a ratio of
//! sums, like [`crate::MagStats`]).

use buddy_golden::lcp::{Layout, LINES_PER_PAGE, PAGE_BYTES, PHYSICAL_SIZES};
use buddy_golden::SizeClass;

/// Sums over a set of LCP pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LcpStats {
    pages: u64,
    physical_bytes: u64,
    /// Pages per physical size, in [`PHYSICAL_SIZES`] order (512 .. 4096).
    per_size: [u64; 4],
}

impl LcpStats {
    /// Count the pages of consecutive entries whose BDI size classes are
    /// `classes`, in address order from a page boundary: every 32 of them
    /// are a page; a last shorter group is padded with ZERO entries.
    pub fn record_classes(&mut self, classes: impl IntoIterator<Item = SizeClass>) {
        let mut sizes = [0usize; LINES_PER_PAGE];
        let mut n = 0;
        for class in classes {
            sizes[n] = class.bytes();
            n += 1;
            if n == LINES_PER_PAGE {
                self.record_page(&sizes);
                n = 0;
            }
        }
        if n > 0 {
            sizes[n..].fill(0);
            self.record_page(&sizes);
        }
    }

    /// Count one page whose lines' BDI stored sizes are `sizes` bytes.
    pub fn record_page(&mut self, sizes: &[usize; LINES_PER_PAGE]) {
        let physical = Layout::choose(sizes).physical_bytes;
        self.pages += 1;
        self.physical_bytes += physical as u64;
        if let Some(i) = PHYSICAL_SIZES.iter().position(|&p| p == physical) {
            self.per_size[i] += 1;
        }
    }

    /// Add the sums of `other`.
    pub fn merge(&mut self, other: &LcpStats) {
        self.pages += other.pages;
        self.physical_bytes += other.physical_bytes;
        for (mine, theirs) in self.per_size.iter_mut().zip(other.per_size) {
            *mine += theirs;
        }
    }

    /// Number of 4 KB pages counted.
    pub const fn pages(&self) -> u64 {
        self.pages
    }

    /// Σ physical page sizes in bytes.
    pub const fn physical_bytes(&self) -> u64 {
        self.physical_bytes
    }

    /// Pages per physical size, for 512, 1024, 2048 and 4096 bytes.
    pub const fn per_size(&self) -> [u64; 4] {
        self.per_size
    }

    /// LCP's compression ratio, `4096 · pages / physical bytes`; `None`
    /// without pages.
    pub fn ratio(&self) -> Option<f64> {
        (self.physical_bytes > 0).then(|| (self.pages * PAGE_BYTES as u64) as f64 / self.physical_bytes as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_groups_of_32_classes_padded_with_zero() {
        let mut s = LcpStats::default();
        assert_eq!(s.ratio(), None);
        // 33 ZERO entries: a page of 512 and a padded one of 512.
        s.record_classes(std::iter::repeat_n(SizeClass::Zero, 33));
        assert_eq!((s.pages(), s.physical_bytes(), s.per_size()), (2, 1024, [2, 0, 0, 0]));
        // 32 RAW entries: 4096.
        s.record_classes(std::iter::repeat_n(SizeClass::Raw, 32));
        assert_eq!((s.pages(), s.physical_bytes(), s.per_size()), (3, 5120, [2, 0, 0, 1]));
        assert_eq!(s.ratio(), Some(3.0 * 4096.0 / 5120.0));
        let mut t = LcpStats::default();
        t.record_classes([SizeClass::B32; 32]); // 64 + 1024 → 2048
        t.merge(&s);
        assert_eq!((t.pages(), t.physical_bytes(), t.per_size()), (4, 7168, [2, 0, 1, 1]));
    }
}
