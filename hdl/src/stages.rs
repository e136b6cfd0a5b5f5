//! How deep a module is pipelined, chosen when the hardware is built.

/// A module's pipeline depth, a build-time parameter of the modules that
/// offer more than one.
///
/// The delivered Verilog (`verilog-out/`) is built [`Stages::EightLevels`];
/// each module documents both variants' latency, and its `latency`
/// function gives it in clock cycles. The initiation interval is the same
/// in both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stages {
    /// The stages the paper describes, with the paper's latency: the
    /// inputs feed logic straight from the ports.
    Paper,
    /// Inputs registered and stages added until no path between
    /// flip-flops is longer than 8 LUT levels (about 250 MHz on an
    /// UltraScale+ -2, `verilog-out/synth/report.md`).
    EightLevels,
}

/// [`Stages::DELIVERED`].
impl Default for Stages {
    fn default() -> Self {
        Stages::DELIVERED
    }
}

impl Stages {
    /// What `verilog-out/` is built with (and every module's `default()`).
    pub const DELIVERED: Stages = Stages::EightLevels;

    /// Both variants.
    pub const ALL: [Stages; 2] = [Stages::Paper, Stages::EightLevels];

    /// Whether the inputs are registered before any logic.
    pub const fn registers_inputs(self) -> bool {
        matches!(self, Stages::EightLevels)
    }
}
