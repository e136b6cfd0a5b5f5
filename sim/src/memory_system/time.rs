//! Clock arithmetic between picoseconds (the event queue's time) and clock
//! cycles of `cycle_ps` picoseconds (the slices' and the HBM2 channels'
//! clock, `SimConfig::cycle_ps`).

/// Start of slice-clock `cycle` in picoseconds (cycles of `cycle_ps`).
pub fn cycle_start_ps(cycle: u64, cycle_ps: f64) -> u64 {
    (cycle as f64 * cycle_ps).round() as u64
}

/// The first slice-clock cycle that starts at or after `ps` picoseconds.
pub fn first_cycle_at(ps: u64, cycle_ps: f64) -> u64 {
    (ps as f64 / cycle_ps).ceil() as u64
}
