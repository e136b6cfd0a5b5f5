//! The clock of one RTL-engine slice, shared by the serial
//! (`engine/serial_rtl.rs`) and the pipelined (`engine/pipelined_driver.rs`) drivers: it resets
//! and clocks the slice's hardware, counts the cycles, and records what a
//! run asks for (a VCD over a window of cycles, lock-step lines).

use std::io::Write;

use buddy_hdl::vcd_tidy::{VcdTidy, RAW_UNITS_PER_CYCLE};
use rust_hdl::core::vcd_probe::VCDProbe;
use rust_hdl::prelude::*;

pub use buddy_hdl::timing::INIT_CYCLES;

/// Cycles a slice is held in reset when it is built.
pub const RESET_CYCLES: u64 = 2;

/// Cycles a request may take before the driver calls the slice hung.
pub const HANG_CYCLES: u64 = 1_000_000;

/// What a slice's clock drives and records of its hardware.
pub trait ClockedHardware: Block {
    fn set_clock(&mut self, level: bool);
    fn set_reset(&mut self, reset: bool);
    /// Every port this cycle as one lock-step line, for a replay of the
    /// emitted Verilog (each field padded to whole hex digits, first field
    /// most significant).
    fn port_line(&self) -> String;
}

/// A VCD of one slice over a cycle window, tidied by
/// [`buddy_hdl::vcd_tidy`] at the slice's clock. Its header and first
/// values are written at the first cycle simulated in the window, so a
/// slice idle (jumped over) through the whole window writes nothing.
struct SliceVcd {
    tidy: VcdTidy<Box<dyn Write + Send>>,
    probe: Option<VCDProbe<VcdTidy<Box<dyn Write + Send>>>>,
    from: u64,
    to: u64,
}

impl Drop for SliceVcd {
    /// A run stopped by an error (no [`SliceClock::finish_vcd`]) still
    /// completes its VCD as far as it got; a write error is then lost
    /// behind the run's own error.
    fn drop(&mut self) {
        self.probe = None;
        self.tidy.finish().ok();
    }
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
    /// An edge counted, not clocked yet.
    pending: bool,
}

impl SliceClock {
    /// Let the combinational logic settle (rust-hdl's `simulate`); false
    /// if it does not within 500 passes.
    pub fn settle(hw: &mut dyn ClockedHardware) -> bool {
        (0..500).any(|_| {
            hw.update_all();
            !hw.has_changed()
        })
    }

    /// One rising and falling edge (its lock-step line recorded first:
    /// the inputs have settled), sampled into the VCD within its window:
    /// [`SliceClock::defer_edge`], then [`SliceClock::finish_edge`].
    pub fn edge(&mut self, hw: &mut dyn ClockedHardware) {
        self.defer_edge(hw);
        self.finish_edge(hw);
    }

    /// The first half of [`SliceClock::edge`]: the lock-step line is
    /// recorded and the cycle counted (`cycle` is the next one); the
    /// hardware is clocked by [`SliceClock::finish_edge`], which must come
    /// before anything reads its outputs or drives its inputs. The edge
    /// depends on the slice alone, so the edges of several slices may run
    /// together, on threads of their own.
    pub fn defer_edge(&mut self, hw: &dyn ClockedHardware) {
        if let Some(lines) = self.lines.as_mut().filter(|l| l.len() < self.lines_max) {
            lines.push(hw.port_line());
        }
        self.pending = true;
        self.cycle += 1;
        self.simulated += 1;
    }

    /// Whether an edge waits for [`SliceClock::finish_edge`].
    pub fn edge_pending(&self) -> bool {
        self.pending
    }

    /// Clock the edge [`SliceClock::defer_edge`] counted (nothing if none).
    ///
    /// Outside a VCD window the clock is lowered right after the first
    /// update pass: the first pass carries the rising clock to every
    /// flip-flop and RAM (through every `SettleBlock` in that pass, one
    /// pass per level through a `LogicBlock`), which act on it in the
    /// next pass, so the falling edge follows the rising one a pass
    /// behind, every flip-flop and RAM still sees exactly one rising edge,
    /// and both settle together (the falling edge's own settle took about
    /// a third of the passes; no block of the slices acts on it).
    pub fn finish_edge(&mut self, hw: &mut dyn ClockedHardware) {
        if !std::mem::take(&mut self.pending) {
            return;
        }
        let cycle = self.cycle - 1;
        hw.set_clock(true);
        if self.in_vcd_window(cycle) {
            Self::settle(hw);
            self.sample(hw, cycle, 0);
            hw.set_clock(false);
            Self::settle(hw);
            self.sample(hw, cycle, 5);
        } else {
            hw.update_all();
            hw.set_clock(false);
            Self::settle(hw);
        }
    }

    fn in_vcd_window(&self, cycle: u64) -> bool {
        self.vcd.as_ref().is_some_and(|v| (v.from..=v.to).contains(&cycle))
    }

    /// Reset for [`RESET_CYCLES`], then clock the slice through its
    /// metadata cache's [`INIT_CYCLES`], so it is idle from then on.
    pub fn reset(&mut self, hw: &mut dyn ClockedHardware) {
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

    fn sample(&mut self, hw: &dyn ClockedHardware, cycle: u64, half: u64) {
        let Some(v) = &mut self.vcd else { return };
        if cycle < v.from || cycle > v.to {
            return;
        }
        let hw = hw as &dyn Block;
        let (mut p, first) = match v.probe.take() {
            Some(p) => (p, false),
            None => (write_vcd_header(v.tidy.clone(), hw), true),
        };
        // A write error waits in the tidier for `finish_vcd`.
        p.timestamp(RAW_UNITS_PER_CYCLE * cycle + half).ok();
        v.probe = Some(if first { write_vcd_dump(p, hw) } else { write_vcd_change(p, hw) });
    }

    /// Write a VCD of cycles `from..=to` of the slice into `w`, for a
    /// clock of `period_ps` picoseconds (the DRAM clock: one slice cycle
    /// per DRAM cycle); see [`SliceClock::finish_vcd`].
    pub fn record_vcd(&mut self, w: Box<dyn Write + Send>, period_ps: f64, from: u64, to: u64) {
        self.vcd = Some(SliceVcd { tidy: VcdTidy::new(w, period_ps), probe: None, from, to });
    }

    /// End the VCD: `Ok(None)` if none was asked for, `Ok(Some(false))` if
    /// the slice simulated no cycle in the window (nothing was written),
    /// else `Ok(Some(true))` once the VCD is complete and flushed.
    ///
    /// # Errors
    /// The VCD could not be written.
    pub fn finish_vcd(&mut self) -> std::io::Result<Option<bool>> {
        let Some(mut v) = self.vcd.take() else { return Ok(None) };
        v.probe = None;
        let started = v.tidy.started();
        v.tidy.finish()?;
        Ok(Some(started))
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
