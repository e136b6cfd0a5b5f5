//! Unified Memory's demand paging of device memory (ETC Sec. 2.1, 4.2;
//! `docs/oversubscription.md`): pages start in host memory or resident;
//! touching a page that is not resident is a far fault, handled one at a
//! time by the driver (`um.fault_us` each), then the page migrates over
//! the host link's host-to-device DMA engine. When device memory is full
//! the least recently used page is evicted first over the device-to-host
//! engine, and the migration waits for it (ETC Fig. 5a). With proactive
//! eviction the driver keeps some memory free, evicting as a fault
//! starts, so the eviction overlaps the fault's handling (Fig. 5b).
//!
//! Times are picoseconds on the memory system's clock.

use std::collections::BTreeSet;

use serde::Serialize;

/// What touching a page found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    /// Resident: the access goes ahead.
    Ready,
    /// Not usable before `ready` ps: a fault this touch raised (`fault`)
    /// or a migration already under way.
    Wait { ready: u64, fault: bool, evicted: bool },
}

/// Counters of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PagingStats {
    /// Far faults (each migrates one page in).
    pub faults: u64,
    /// Pages evicted to host memory (on demand and proactive).
    pub evictions: u64,
    /// Of `evictions`, those proactive eviction started ahead of need.
    pub proactive_evictions: u64,
    /// Bytes migrated host to device, and device to host.
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Summed over faults: ps a migration waited, after its handling, for
    /// an eviction to free its frame (what proactive eviction hides).
    pub eviction_wait_ps: u64,
}

/// Where a page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Host,
    /// In device memory from `ready` ps on (earlier: migrating in).
    Device {
        ready: u64,
    },
}

/// The device memory of a UM run and its driver.
#[derive(Debug, Clone)]
pub struct UnifiedMemory {
    capacity_bytes: u64,
    used_bytes: u64,
    /// Device bytes of each page when resident (the page size, or its
    /// compressed size under capacity compression); also the bytes one
    /// migration moves.
    page_device_bytes: Vec<u64>,
    place: Vec<Place>,
    last_use: Vec<u64>,
    /// Resident pages by last use, least recent first.
    lru: BTreeSet<(u64, usize)>,
    clock: u64,
    fault_ps: u64,
    link_gbps: f64,
    /// When the fault handler and each DMA engine are next free.
    handler_free: u64,
    h2d_free: u64,
    d2h_free: u64,
    /// Proactive eviction: bytes kept free.
    proactive_free: Option<u64>,
    stats: PagingStats,
}

/// Why a UM model cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PagingError {
    #[error("device memory of {capacity} bytes cannot hold one page of {page} bytes")]
    TooSmall { capacity: u64, page: u64 },
}

impl UnifiedMemory {
    /// Device memory of `capacity_bytes`; page `p` takes
    /// `page_device_bytes[p]` when resident. Every page starts in host memory.
    ///
    /// # Errors
    /// [`PagingError::TooSmall`] when the largest page does not fit.
    pub fn new(capacity_bytes: u64, page_device_bytes: Vec<u64>, fault_us: f64, link_gbps: f64) -> Result<Self, PagingError> {
        let largest = page_device_bytes.iter().copied().max().unwrap_or(0);
        if largest > capacity_bytes {
            return Err(PagingError::TooSmall { capacity: capacity_bytes, page: largest });
        }
        let n = page_device_bytes.len();
        Ok(UnifiedMemory {
            capacity_bytes,
            used_bytes: 0,
            page_device_bytes,
            place: vec![Place::Host; n],
            last_use: vec![0; n],
            lru: BTreeSet::new(),
            clock: 0,
            fault_ps: (fault_us * 1e6).round() as u64,
            link_gbps,
            handler_free: 0,
            h2d_free: 0,
            d2h_free: 0,
            proactive_free: None,
            stats: PagingStats::default(),
        })
    }

    /// Turn on proactive eviction, keeping `free_bytes` free (ETC Sec. 4.2).
    pub fn set_proactive_eviction(&mut self, free_bytes: u64) {
        self.proactive_free = Some(free_bytes);
    }

    /// The counters so far.
    pub fn stats(&self) -> PagingStats {
        self.stats
    }

    /// Pages resident now.
    pub fn resident_pages(&self) -> usize {
        self.lru.len()
    }

    /// ps to move `bytes` over one direction of the host link.
    fn transfer_ps(&self, bytes: u64) -> u64 {
        (bytes as f64 * 1000.0 / self.link_gbps).ceil() as u64
    }

    fn mark_used(&mut self, page: usize) {
        self.clock += 1;
        if matches!(self.place[page], Place::Device { .. }) {
            self.lru.remove(&(self.last_use[page], page));
            self.lru.insert((self.clock, page));
        }
        self.last_use[page] = self.clock;
    }

    /// Evict the least recently used page other than `keep`, from `from`
    /// ps on; when its copy to host memory ends (`None`: nothing to evict).
    fn evict_lru(&mut self, keep: usize, from: u64) -> Option<u64> {
        let &(stamp, victim) = self.lru.iter().find(|(_, p)| *p != keep)?;
        self.lru.remove(&(stamp, victim));
        let Place::Device { ready } = self.place[victim] else { unreachable!("the LRU list holds resident pages only") };
        let bytes = self.page_device_bytes[victim];
        let start = from.max(self.d2h_free).max(ready);
        let end = start + self.transfer_ps(bytes);
        self.d2h_free = end;
        self.place[victim] = Place::Host;
        self.used_bytes -= bytes;
        self.stats.evictions += 1;
        self.stats.bytes_out += bytes;
        Some(end)
    }

    /// Proactive eviction: evict until the kept-free bytes are free.
    fn evict_ahead(&mut self, keep: usize, from: u64) {
        let Some(free) = self.proactive_free else { return };
        while self.capacity_bytes - self.used_bytes < free {
            if self.evict_lru(keep, from).is_none() {
                break;
            }
            self.stats.proactive_evictions += 1;
        }
    }

    /// Touch `page` at `now` ps (an access about to issue).
    pub fn touch(&mut self, page: usize, now: u64) -> Touch {
        if let Place::Device { ready } = self.place[page] {
            self.mark_used(page);
            return if ready <= now { Touch::Ready } else { Touch::Wait { ready, fault: false, evicted: false } };
        }
        self.stats.faults += 1;
        let start = now.max(self.handler_free);
        let handled = start + self.fault_ps;
        self.handler_free = handled;
        let need = self.page_device_bytes[page];
        let mut room_at = start;
        let mut evicted = false;
        // On demand, the driver evicts once the fault is handled (Fig. 5a).
        while self.capacity_bytes - self.used_bytes < need {
            let end = self.evict_lru(page, handled).expect("a page fits the device memory, so something can be evicted");
            room_at = room_at.max(end);
            evicted = true;
        }
        // The migration starts once handled, its DMA engine is free and its frame is.
        let begin = handled.max(self.h2d_free).max(room_at);
        self.stats.eviction_wait_ps += room_at.saturating_sub(handled);
        let ready = begin + self.transfer_ps(need);
        self.h2d_free = ready;
        self.used_bytes += need;
        self.stats.bytes_in += need;
        self.place[page] = Place::Device { ready };
        self.mark_used(page);
        self.evict_ahead(page, start);
        Touch::Wait { ready, fault: true, evicted }
    }

    /// Warm-up: touch `page` with no time passing and no counting (the
    /// state a run reaches before the traced window), evicting as needed.
    pub fn warm(&mut self, page: usize) {
        if self.place[page] == Place::Host {
            let need = self.page_device_bytes[page];
            while self.capacity_bytes - self.used_bytes < need {
                self.evict_lru(page, 0);
            }
            self.used_bytes += need;
            self.place[page] = Place::Device { ready: 0 };
        }
        self.mark_used(page);
    }

    /// End the warm-up: proactive eviction frees its margin, then every
    /// clock and counter restarts at 0.
    pub fn end_warm_up(&mut self) {
        if let Some(&(_, newest)) = self.lru.iter().next_back() {
            self.evict_ahead(newest, 0);
        }
        for place in &mut self.place {
            if let Place::Device { ready } = place {
                *ready = 0;
            }
        }
        (self.handler_free, self.h2d_free, self.d2h_free) = (0, 0, 0);
        self.stats = PagingStats::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: u64 = 64 << 10;
    /// 64 KiB at 16 GB/s, ps.
    const MOVE: u64 = 4_096_000;
    const FAULT: u64 = 20_000_000;

    fn um(frames: u64, pages: usize) -> UnifiedMemory {
        UnifiedMemory::new(frames * PAGE, vec![PAGE; pages], 20.0, 16.0).unwrap()
    }

    #[test]
    fn a_fault_costs_the_handler_then_the_migration_and_faults_queue() {
        let mut m = um(4, 8);
        assert_eq!(m.touch(0, 0), Touch::Wait { ready: FAULT + MOVE, fault: true, evicted: false });
        // A second fault at once waits for the handler; its migration for the engine.
        assert_eq!(m.touch(1, 0), Touch::Wait { ready: 2 * FAULT + MOVE, fault: true, evicted: false });
        // Touching a page on its way in is no new fault.
        assert_eq!(m.touch(0, 5), Touch::Wait { ready: FAULT + MOVE, fault: false, evicted: false });
        assert_eq!(m.touch(0, FAULT + MOVE), Touch::Ready);
        assert_eq!(m.stats().faults, 2);
        assert_eq!(m.stats().bytes_in, 2 * PAGE);
    }

    #[test]
    fn a_full_memory_evicts_the_least_recently_used_page_first() {
        let mut m = um(2, 3);
        m.warm(0);
        m.warm(1);
        m.warm(0); // page 1 is now the least recently used
        m.end_warm_up();
        // The handler, the eviction of page 1, then the migration.
        assert_eq!(m.touch(2, 0), Touch::Wait { ready: FAULT + 2 * MOVE, fault: true, evicted: true });
        assert_eq!(m.touch(0, FAULT + 2 * MOVE), Touch::Ready);
        assert!(matches!(m.touch(1, FAULT + 2 * MOVE), Touch::Wait { fault: true, .. }));
        assert_eq!(m.stats().evictions, 2);
        assert_eq!(m.resident_pages(), 2);
    }

    #[test]
    fn without_proactive_eviction_the_migration_waits_for_the_eviction() {
        let mut m = UnifiedMemory::new(PAGE, vec![PAGE; 2], 1.0, 16.0).unwrap();
        m.warm(0);
        m.end_warm_up();
        let Touch::Wait { ready, .. } = m.touch(1, 0) else { panic!("a fault") };
        assert_eq!(ready, 1_000_000 + MOVE + MOVE, "handler, eviction, then migration");
        assert_eq!(m.stats().eviction_wait_ps, MOVE);
    }

    #[test]
    fn proactive_eviction_frees_memory_ahead_so_the_next_fault_does_not_wait() {
        let mut base = UnifiedMemory::new(2 * PAGE, vec![PAGE; 4], 1.0, 16.0).unwrap();
        let mut pe = base.clone();
        pe.set_proactive_eviction(PAGE);
        for m in [&mut base, &mut pe] {
            m.warm(0);
            m.warm(1);
            m.end_warm_up();
        }
        // The proactive run has already freed a frame at the end of the warm-up.
        assert_eq!(pe.stats().evictions, 0);
        assert_eq!(pe.resident_pages(), 1);
        let t = 10 * MOVE;
        let Touch::Wait { ready: b, evicted: true, .. } = base.touch(2, t) else { panic!("evicts") };
        let Touch::Wait { ready: p, evicted: false, .. } = pe.touch(2, t) else { panic!("room was made ahead") };
        assert_eq!(b, t + 1_000_000 + MOVE + MOVE);
        assert_eq!(p, t + 1_000_000 + MOVE);
        // ... and it evicted again, ahead, for the next fault.
        assert_eq!(pe.stats().proactive_evictions, 1);
    }

    #[test]
    fn a_page_larger_than_the_device_memory_is_an_error() {
        assert_eq!(
            UnifiedMemory::new(PAGE - 1, vec![PAGE], 20.0, 16.0).unwrap_err(),
            PagingError::TooSmall { capacity: PAGE - 1, page: PAGE }
        );
    }
}
