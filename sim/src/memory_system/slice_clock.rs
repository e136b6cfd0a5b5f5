//! The clock of one RTL-engine slice, shared by the serial
//! (`rtl.rs`) and the pipelined (`pipelined_rtl.rs`) drivers: it resets
//! and clocks the slice's hardware, counts the cycles, and records what a
//! run asks for (a VCD over a window of cycles, lock-step lines).

use std::io::Write;

use rust_hdl::core::vcd_probe::VCDProbe;
use rust_hdl::prelude::*;

pub use buddy_hdl::timing::INIT_CYCLES;

/// Cycles a slice is held in reset when it is built.
pub const RESET_CYCLES: u64 = 2;

/// What a slice's clock drives and records of its hardware.
pub trait ClockedHardware: Block {
    fn set_clock(&mut self, level: bool);
    fn set_reset(&mut self, reset: bool);
    /// Every port this cycle as one lock-step line, for a replay of the
    /// emitted Verilog (each field padded to whole hex digits, first field
    /// most significant).
    fn port_line(&self) -> String;
}

/// A VCD of one slice over a cycle window.
struct SliceVcd {
    probe: Option<VCDProbe<Box<dyn Write + Send>>>,
    from: u64,
    to: u64,
}

/// One slice's clock: its cycle (in slice-clock cycles, one per DRAM
/// cycle), the cycles simulated rather than jumped over, and the
/// recordings.
#[derive(Default)]
pub struct SliceClock {
    /// The cycle about to be simulated.
    pub cycle: u64,
    /// Cycles simulated (not jumped over).
    pub simulated: u64,
    vcd: Option<SliceVcd>,
    /// Lock-step lines of every simulated cycle, while `Some` (at most `lines_max`).
    lines: Option<Vec<String>>,
    lines_max: usize,
}

impl SliceClock {
    /// Let the combinational logic settle; false if it does not within 500 passes.
    pub fn settle<H: ClockedHardware>(hw: &mut H) -> bool {
        simulate(hw, 500)
    }

    /// One rising and falling edge (its lock-step line recorded first:
    /// the inputs have settled), sampled into the VCD within its window.
    pub fn edge<H: ClockedHardware>(&mut self, hw: &mut H) {
        if let Some(lines) = self.lines.as_mut().filter(|l| l.len() < self.lines_max) {
            lines.push(hw.port_line());
        }
        hw.set_clock(true);
        Self::settle(hw);
        self.sample(hw, 0);
        hw.set_clock(false);
        Self::settle(hw);
        self.sample(hw, 5);
        self.cycle += 1;
        self.simulated += 1;
    }

    /// Reset for [`RESET_CYCLES`], then clock the slice through its
    /// metadata cache's [`INIT_CYCLES`], so it is idle from then on.
    pub fn reset<H: ClockedHardware>(&mut self, hw: &mut H) {
        hw.set_reset(true);
        for _ in 0..RESET_CYCLES {
            Self::settle(hw);
            self.edge(hw);
        }
        hw.set_reset(false);
        for _ in 0..INIT_CYCLES {
            Self::settle(hw);
            self.edge(hw);
        }
    }

    fn sample<H: ClockedHardware>(&mut self, hw: &H, half: u64) {
        if let Some(v) = &mut self.vcd {
            if self.cycle >= v.from && self.cycle <= v.to {
                if let Some(mut p) = v.probe.take() {
                    let ok = p.timestamp(10 * self.cycle + half).is_ok();
                    let p = write_vcd_change(p, hw as &dyn Block);
                    v.probe = ok.then_some(p);
                }
            }
        }
    }

    /// Write a VCD of cycles `from..=to` of `hw` into `w`.
    pub fn record_vcd<H: ClockedHardware>(&mut self, hw: &H, w: Box<dyn Write + Send>, from: u64, to: u64) {
        let hw = hw as &dyn Block;
        self.vcd = Some(SliceVcd { probe: Some(write_vcd_dump(write_vcd_header(w, hw), hw)), from, to });
    }

    /// Record a lock-step line per simulated cycle from now on, at most `max`.
    pub fn record_lines(&mut self, max: usize) {
        self.lines = Some(Vec::new());
        self.lines_max = max;
    }

    /// The lock-step lines recorded.
    pub fn take_lines(&mut self) -> Vec<String> {
        self.lines.take().unwrap_or_default()
    }
}
