//! ETC's memory-aware throttling (seed `004_*` Sec. 4.3, Fig. 7): SM
//! throttling driven by epochs. It starts by stopping half of the SMs.
//! A detection epoch ends at the first page fault or when it expires:
//! - expired, no fault: the working set fits, so one SM is unthrottled;
//! - a fault, and an eviction during the epoch: the working set does not
//!   fit, so the SM that faulted is throttled too;
//! - a fault, no eviction: memory is still free, nothing changes.
//!
//! An execution epoch follows, then detection again. Times are ps.

use serde::Serialize;

/// What the driver must do after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adjust {
    Keep,
    /// Run one more SM.
    Unthrottle,
    /// Stop the SM whose stream faulted (it keeps its place; its
    /// requests in flight drain).
    ThrottleFaulting,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Epoch {
    Detect { until: u64, evicted: bool },
    Execute { until: u64 },
}

/// The throttling state machine.
#[derive(Debug, Clone)]
pub struct Throttle {
    detect_ps: u64,
    execute_ps: u64,
    epoch: Epoch,
    /// SMs allowed to run.
    active: usize,
    sms: usize,
    stats: ThrottleStats,
}

/// What throttling did in a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ThrottleStats {
    pub throttles: u64,
    pub unthrottles: u64,
    /// Fewest SMs running at once.
    pub min_active: usize,
}

impl Throttle {
    /// `sms` SMs, half of them stopped from the start (time 0).
    pub fn new(sms: usize, detect_us: f64, execute_us: f64) -> Self {
        let active = sms.div_ceil(2).max(1);
        let detect_ps = (detect_us * 1e6).round() as u64;
        Throttle {
            detect_ps,
            execute_ps: (execute_us * 1e6).round() as u64,
            epoch: Epoch::Detect { until: detect_ps, evicted: false },
            active,
            sms,
            stats: ThrottleStats { min_active: active, ..Default::default() },
        }
    }

    /// SMs allowed to run now.
    pub fn active(&self) -> usize {
        self.active
    }

    pub fn stats(&self) -> ThrottleStats {
        self.stats
    }

    /// When the current epoch expires, ps.
    pub fn deadline(&self) -> u64 {
        match self.epoch {
            Epoch::Detect { until, .. } | Epoch::Execute { until } => until,
        }
    }

    /// Let time reach `now`: expired epochs end.
    pub fn tick(&mut self, now: u64) -> Adjust {
        let mut adjust = Adjust::Keep;
        while now >= self.deadline() {
            match self.epoch {
                Epoch::Detect { until, .. } => {
                    if self.active < self.sms {
                        self.active += 1;
                        self.stats.unthrottles += 1;
                        adjust = Adjust::Unthrottle;
                    }
                    self.epoch = Epoch::Execute { until: until + self.execute_ps };
                }
                Epoch::Execute { until } => self.epoch = Epoch::Detect { until: until + self.detect_ps, evicted: false },
            }
        }
        adjust
    }

    /// A page fault at `now`; `evicted`: it had to evict.
    pub fn fault(&mut self, now: u64, evicted: bool) -> Adjust {
        let Epoch::Detect { evicted: before, .. } = self.epoch else { return Adjust::Keep };
        self.epoch = Epoch::Execute { until: now + self.execute_ps };
        if (before || evicted) && self.active > 1 {
            self.active -= 1;
            self.stats.throttles += 1;
            self.stats.min_active = self.stats.min_active.min(self.active);
            return Adjust::ThrottleFaulting;
        }
        Adjust::Keep
    }

    /// An eviction at any time counts for the current detection epoch.
    pub fn evicted(&mut self) {
        if let Epoch::Detect { evicted, .. } = &mut self.epoch {
            *evicted = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_at_half_and_unthrottles_when_a_detection_epoch_sees_no_fault() {
        let mut t = Throttle::new(16, 1.0, 2.0);
        assert_eq!(t.active(), 8);
        assert_eq!(t.tick(999_999), Adjust::Keep);
        assert_eq!(t.tick(1_000_000), Adjust::Unthrottle);
        assert_eq!(t.active(), 9);
        // The execution epoch (2 us) runs, then detection again.
        assert_eq!(t.deadline(), 3_000_000);
        assert_eq!(t.tick(3_000_000), Adjust::Keep);
        assert_eq!(t.deadline(), 4_000_000);
    }

    #[test]
    fn a_fault_with_an_eviction_throttles_the_faulting_sm_one_without_keeps() {
        let mut t = Throttle::new(4, 1.0, 2.0);
        assert_eq!(t.fault(10, false), Adjust::Keep);
        assert_eq!(t.active(), 2);
        // In the execution epoch faults change nothing.
        assert_eq!(t.fault(20, true), Adjust::Keep);
        t.tick(2_000_010);
        t.evicted();
        assert_eq!(t.fault(2_000_020, false), Adjust::ThrottleFaulting);
        assert_eq!(t.active(), 1);
        t.tick(4_000_020);
        assert_eq!(t.fault(4_000_030, true), Adjust::Keep, "never below one SM");
        assert_eq!(t.stats(), ThrottleStats { throttles: 1, unthrottles: 0, min_active: 1 });
    }
}
