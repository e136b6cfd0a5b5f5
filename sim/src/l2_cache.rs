//! The sectored L2 of the trace driver (docs/formats.md#trace-driver): turns
//! processor-level accesses into the memory-entry requests a memory
//! controller sees.

use serde::Serialize;

/// Bytes of an L2 line = one memory-entry.
pub const LINE_BYTES: u64 = buddy_golden::ENTRY_BYTES as u64;
/// Bytes of an L2 sector = one DRAM sector.
pub const SECTOR_BYTES: u64 = buddy_golden::translation::SECTOR_BYTES;

/// One request from the L2 to the memory system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemRequest {
    /// Virtual address of the memory-entry (a multiple of 128).
    pub entry_va: u64,
    /// A write-back (of dirty sectors) or a read.
    pub write: bool,
    /// Bit `s` = sector `s` (bytes `32s .. 32s + 32`), never 0: a
    /// write-back's dirty sectors, or the sectors a read needs (`0xF`, the
    /// whole entry, unless the L2 fills sectors,
    /// [`L2Cache::with_sector_fills`]).
    pub sectors: u8,
}

impl MemRequest {
    /// A read of the whole memory-entry at `entry_va`.
    pub const fn read(entry_va: u64) -> Self {
        MemRequest::read_sectors(entry_va, 0xF)
    }

    /// A read of the sectors of `sectors` of the entry at `entry_va`.
    pub const fn read_sectors(entry_va: u64, sectors: u8) -> Self {
        MemRequest { entry_va, write: false, sectors }
    }

    /// A write-back of the sectors of `mask` of the entry at `entry_va`.
    pub const fn write(entry_va: u64, mask: u8) -> Self {
        MemRequest { entry_va, write: true, sectors: mask }
    }

    /// A write-back's sector mask; `None` for a read.
    pub const fn write_mask(&self) -> Option<u8> {
        if self.write {
            Some(self.sectors)
        } else {
            None
        }
    }
}

/// L2 geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct L2Config {
    /// Capacity in bytes (the paper's GPU: 4 MiB; default here 64 KiB for
    /// megabyte-sized workloads, **decision** of docs/formats.md#trace-driver).
    pub bytes: u64,
    pub ways: usize,
}

impl Default for L2Config {
    fn default() -> Self {
        L2Config { bytes: 64 * 1024, ways: 16 }
    }
}

/// Counters of the L2.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct L2Stats {
    /// Processor accesses (each may touch two lines).
    pub accesses: u64,
    /// Line lookups that hit.
    pub hits: u64,
    /// Line lookups that missed (each sends one read, except a write miss
    /// under sector fills, which reads nothing).
    pub misses: u64,
    /// Line lookups that hit a line without every sector the read needs
    /// (sector fills only; each sends one read of the missing sectors).
    pub sector_misses: u64,
    /// Entry write-backs sent (evictions and the final flush).
    pub write_backs: u64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Line {
    valid: bool,
    tag: u64,
    /// Sectors held (bit `s` = sector `s`).
    present: u8,
    dirty: u8,
    last_use: u64,
}

/// A sectored, true-LRU, write-back, write-allocate L2 without data
/// (docs/formats.md#trace-driver).
///
/// By default a miss (read or write) reads the whole memory-entry and fills
/// the line, all four sectors valid (**decision**: a compressed entry is
/// fetched and decompressed whole, so the L2 keeps it). With sector fills
/// (an uncompressed memory, [`L2Cache::with_sector_fills`]) it is a GPU's
/// sectored L2: a read fetches only the sectors it touches that the line
/// lacks, and a write allocates its sectors without reading. A written
/// sector counts as whole (**decision**: the write-back carries the
/// program's bytes of the whole sector, so a later read of its other bytes
/// hits; a GPU's L2 keeps byte masks and would fetch them). A write marks
/// the sectors it touches dirty; evicting a line with dirty sectors sends
/// one write with their mask.
#[derive(Debug, Clone)]
pub struct L2Cache {
    config: L2Config,
    sets: u64,
    lines: Vec<Line>,
    clock: u64,
    stats: L2Stats,
    sector_fills: bool,
}

/// Why an L2 geometry is impossible.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("L2 of {bytes} bytes and {ways} ways: need ways >= 1 and a whole, non-zero number of sets of {ways} x 128-byte lines")]
pub struct L2ConfigError {
    pub bytes: u64,
    pub ways: usize,
}

impl L2Cache {
    /// An empty L2.
    ///
    /// # Errors
    /// `ways` is 0 or `bytes` is not a non-zero multiple of `ways * 128`.
    pub fn new(config: L2Config) -> Result<L2Cache, L2ConfigError> {
        let way_bytes = config.ways as u64 * LINE_BYTES;
        if config.ways == 0 || config.bytes == 0 || !config.bytes.is_multiple_of(way_bytes) {
            return Err(L2ConfigError { bytes: config.bytes, ways: config.ways });
        }
        let sets = config.bytes / way_bytes;
        Ok(L2Cache {
            config,
            sets,
            lines: vec![Line::default(); (sets as usize) * config.ways],
            clock: 0,
            stats: L2Stats::default(),
            sector_fills: false,
        })
    }

    /// The same L2 filling 32-byte sectors instead of whole entries (see
    /// [`L2Cache`]): a GPU's L2 in front of an uncompressed memory.
    pub fn with_sector_fills(mut self) -> Self {
        self.sector_fills = true;
        self
    }

    pub fn stats(&self) -> L2Stats {
        self.stats
    }

    /// One processor access of `bytes` bytes at `va`, appending the memory
    /// requests it causes to `out` (in order: a victim's write-back, then
    /// the read of the entry or, under sector fills, of its missing
    /// sectors, if any).
    pub fn access(&mut self, va: u64, bytes: u64, write: bool, out: &mut Vec<MemRequest>) {
        self.stats.accesses += 1;
        let last = va + bytes.max(1) - 1;
        let mut line = va / LINE_BYTES;
        while line <= last / LINE_BYTES {
            let start = (line * LINE_BYTES).max(va);
            let end = ((line + 1) * LINE_BYTES - 1).min(last);
            let mut mask = 0u8;
            for s in (start % LINE_BYTES) / SECTOR_BYTES..=(end % LINE_BYTES) / SECTOR_BYTES {
                mask |= 1 << s;
            }
            self.touch_line(line, mask, write, out);
            line += 1;
        }
    }

    /// Look up `line` for an access to the sectors of `mask`.
    fn touch_line(&mut self, line: u64, mask: u8, write: bool, out: &mut Vec<MemRequest>) {
        self.clock += 1;
        let set = (line % self.sets) as usize;
        let tag = line / self.sets;
        let ways = set * self.config.ways..(set + 1) * self.config.ways;
        let entry_va = line * LINE_BYTES;
        let index = match ways.clone().find(|&i| self.lines[i].valid && self.lines[i].tag == tag) {
            Some(i) => {
                let missing = mask & !self.lines[i].present;
                if write || missing == 0 {
                    self.stats.hits += 1;
                } else {
                    self.stats.sector_misses += 1;
                    out.push(MemRequest::read_sectors(entry_va, missing));
                }
                i
            }
            None => {
                self.stats.misses += 1;
                let victim = ways.min_by_key(|&i| (self.lines[i].valid, self.lines[i].last_use)).expect("ways >= 1");
                self.write_back(victim, set, out);
                let present = if self.sector_fills {
                    if !write {
                        out.push(MemRequest::read_sectors(entry_va, mask));
                    }
                    mask
                } else {
                    out.push(MemRequest::read(entry_va));
                    0xF
                };
                self.lines[victim] = Line { valid: true, tag, present, dirty: 0, last_use: 0 };
                victim
            }
        };
        let l = &mut self.lines[index];
        l.last_use = self.clock;
        l.present |= mask;
        if write {
            l.dirty |= mask;
        }
    }

    fn write_back(&mut self, index: usize, set: usize, out: &mut Vec<MemRequest>) {
        let l = self.lines[index];
        if l.valid && l.dirty != 0 {
            let line = l.tag * self.sets + set as u64;
            out.push(MemRequest::write(line * LINE_BYTES, l.dirty));
            self.stats.write_backs += 1;
        }
        self.lines[index].dirty = 0;
    }

    /// Write back every dirty line (end of a run), appending to `out`.
    pub fn flush(&mut self, out: &mut Vec<MemRequest>) {
        for i in 0..self.lines.len() {
            self.write_back(i, i / self.config.ways, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l2(bytes: u64, ways: usize) -> L2Cache {
        L2Cache::new(L2Config { bytes, ways }).unwrap()
    }

    #[test]
    fn a_miss_reads_the_entry_and_a_dirty_eviction_writes_its_sectors() {
        // 2 sets x 1 way: lines 0 and 2 share set 0.
        let mut c = l2(256, 1);
        let mut out = Vec::new();
        c.access(8, 8, true, &mut out); // line 0, sector 0 dirty
        c.access(100, 8, false, &mut out); // hit
        c.access(256 + 40, 8, false, &mut out); // line 2 evicts line 0
        assert_eq!(
            out,
            vec![
                MemRequest::read(0),
                MemRequest::write(0, 0b0001),
                MemRequest::read(256),
            ]
        );
        assert_eq!(c.stats(), L2Stats { accesses: 3, hits: 1, misses: 2, sector_misses: 0, write_backs: 1 });
    }

    #[test]
    fn an_access_across_a_line_boundary_touches_both_lines_and_flush_writes_back() {
        let mut c = l2(1024, 2);
        let mut out = Vec::new();
        c.access(120, 16, true, &mut out); // bytes 120..136: line 0 sector 3, line 1 sector 0
        assert_eq!(out.len(), 2);
        out.clear();
        c.flush(&mut out);
        out.sort_by_key(|r| r.entry_va);
        assert_eq!(out, vec![MemRequest::write(0, 0b1000), MemRequest::write(128, 0b0001)]);
        out.clear();
        c.flush(&mut out);
        assert!(out.is_empty(), "a second flush has nothing dirty");
    }

    /// Sector fills: a read fetches the sectors it touches that the line
    /// lacks, a write allocates without reading, and a read of a written
    /// sector hits.
    #[test]
    fn sector_fills_read_only_the_missing_sectors() {
        let mut c = l2(1024, 2).with_sector_fills();
        let mut out = Vec::new();
        c.access(8, 8, false, &mut out); // line 0, sector 0
        c.access(16, 8, false, &mut out); // sector 0 again: hit
        c.access(60, 8, false, &mut out); // bytes 60..68: sector 1 missing, sector 2 missing
        c.access(200, 8, true, &mut out); // line 1, sector 2 written: no read
        c.access(200, 8, false, &mut out); // hit
        c.access(128, 8, false, &mut out); // line 1, sector 0 missing
        assert_eq!(
            out,
            vec![
                MemRequest::read_sectors(0, 0b0001),
                MemRequest::read_sectors(0, 0b0110),
                MemRequest::read_sectors(128, 0b0001),
            ]
        );
        assert_eq!(c.stats(), L2Stats { accesses: 6, hits: 2, misses: 2, sector_misses: 2, write_backs: 0 });
        // The whole-entry L2 reads line 1 on the write miss and then hits.
        let mut whole = l2(1024, 2);
        out.clear();
        whole.access(200, 8, true, &mut out);
        whole.access(128, 8, false, &mut out);
        assert_eq!(out, vec![MemRequest::read(128)]);
    }

    #[test]
    fn lru_evicts_the_least_recently_used_way() {
        let mut c = l2(256, 2); // 1 set, 2 ways
        let mut out = Vec::new();
        c.access(0, 1, false, &mut out);
        c.access(128, 1, false, &mut out);
        c.access(0, 1, false, &mut out); // line 0 most recent
        c.access(256, 1, false, &mut out); // evicts line 1
        c.access(0, 1, false, &mut out); // still a hit
        assert_eq!(c.stats().hits, 2);
        assert!(L2Cache::new(L2Config { bytes: 300, ways: 2 }).is_err());
    }
}
