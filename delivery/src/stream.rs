//! Driving a valid/ready stream module cycle by cycle in rust-hdl's
//! simulator, without threads (3-4x faster than `Simulation`).

use buddy_hdl::vcd_tidy::{VcdTidy, DEFAULT_PERIOD_PS, RAW_UNITS_PER_CYCLE};
use rand::Rng;
use rust_hdl::core::vcd_probe::VCDProbe;
use rust_hdl::prelude::*;
use std::io::Write;

/// An entry as the hardware's 1024-bit value (`w[i]` in word `i`).
pub fn to_bits(e: &buddy_golden::MemoryEntry) -> buddy_hdl::EntryBits {
    buddy_hdl::EntryBits::from_words(e.words())
}

/// The entry a hardware 1024-bit value holds.
pub fn from_bits(b: &buddy_hdl::EntryBits) -> buddy_golden::MemoryEntry {
    buddy_golden::MemoryEntry::from_words(b.to_words())
}

/// The [`StreamDut`] methods every stream module implements the same way
/// from its `out_ready`, `reset`, `clock` and `in_ready` ports; expands
/// inside an `impl StreamDut for ...` block.
#[macro_export]
macro_rules! stream_handshake {
    () => {
        fn drive_out_ready(&mut self, ready: bool) {
            self.out_ready.next = ready;
        }
        fn drive_reset(&mut self, reset: bool) {
            self.reset.next = reset;
        }
        fn drive_clock(&mut self, level: bool) {
            self.clock.next = rust_hdl::prelude::Clock::from(level);
        }
        fn in_ready(&self) -> bool {
            self.in_ready.val()
        }
    };
}

/// Random bubble and backpressure rates for property tests: the source
/// offers and the sink accepts with probabilities in 0.3..=1.0.
pub fn random_traffic() -> impl proptest::strategy::Strategy<Value = Traffic> {
    use proptest::strategy::Strategy;
    (0.3f64..=1.0, 0.3f64..=1.0).prop_map(|(p_valid, p_ready)| Traffic { p_valid, p_ready })
}

/// Property-test cases: `PROPTEST_CASES` when set (`make soak`), else `default`.
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// `StreamDut` for a compressor with the common ports (`in_entry`,
/// `out_payload`, `out_class`, `out_stream_bits` and the handshakes),
/// output as the golden `CompressedEntry`.
#[macro_export]
macro_rules! compressor_dut {
    ($t:ty) => {
        impl $crate::stream::StreamDut for $t {
            type Input = buddy_golden::MemoryEntry;
            type Output = buddy_golden::CompressedEntry;
            fn drive_input(&mut self, valid: bool, data: &Self::Input) {
                self.in_valid.next = valid;
                self.in_entry.next = $crate::stream::to_bits(data);
            }
            $crate::stream_handshake!();
            fn output(&self) -> Option<Self::Output> {
                self.out_valid.val().then(|| {
                    $crate::stream::compressed_from_ports(
                        self.out_class.val().to_u32(),
                        self.out_stream_bits.val().to_u32(),
                        &self.out_payload.val(),
                    )
                })
            }
        }
    };
}

/// What a compressor's `out_class`, `out_stream_bits` and `out_payload`
/// ports hold, as the golden model's type.
///
/// # Panics
/// On a class code the hardware must never emit (8..15).
pub fn compressed_from_ports(class: u32, stream_bits: u32, payload: &buddy_hdl::EntryBits) -> buddy_golden::CompressedEntry {
    buddy_golden::CompressedEntry {
        class: buddy_golden::SizeClass::from_code(class as u8).unwrap_or_else(|e| panic!("hardware emitted {e}")),
        stream_bits: stream_bits as usize,
        payload: from_bits(payload).to_bytes(),
    }
}

/// A module with one valid/ready input stream and one output stream.
pub trait StreamDut: Block {
    /// One input transfer.
    type Input: Clone;
    /// One output transfer.
    type Output: Clone + PartialEq + std::fmt::Debug;
    /// Drive the input stream for this cycle.
    fn drive_input(&mut self, valid: bool, data: &Self::Input);
    /// Drive `out_ready` for this cycle.
    fn drive_out_ready(&mut self, ready: bool);
    /// Drive the synchronous reset.
    fn drive_reset(&mut self, reset: bool);
    /// Drive the clock.
    fn drive_clock(&mut self, level: bool);
    /// `in_ready` as settled this cycle.
    fn in_ready(&self) -> bool;
    /// The output transfer offered this cycle, if `out_valid`.
    fn output(&self) -> Option<Self::Output>;
}

/// How the environment treats the streams.
#[derive(Clone, Copy, Debug)]
pub struct Traffic {
    /// Probability that the source offers a pending input in a cycle (1.0: no bubbles).
    pub p_valid: f64,
    /// Probability that the sink is ready in a cycle (1.0: no backpressure).
    pub p_ready: f64,
}

impl Traffic {
    /// No bubbles, no backpressure.
    pub const FULL: Traffic = Traffic { p_valid: 1.0, p_ready: 1.0 };
    /// Random bubbles and backpressure.
    pub const RANDOM: Traffic = Traffic { p_valid: 0.7, p_ready: 0.6 };
    /// The four crossings {no bubbles, bubbles} x {no backpressure, backpressure}.
    pub const CROSSED: [Traffic; 4] =
        [Traffic::FULL, Traffic { p_valid: 0.6, p_ready: 1.0 }, Traffic { p_valid: 1.0, p_ready: 0.5 }, Traffic::RANDOM];
}

/// What a run observed.
#[derive(Debug)]
pub struct RunResult<O> {
    /// Outputs in the order the module delivered them.
    pub outputs: Vec<O>,
    /// Clock cycles simulated after reset.
    pub cycles: u64,
    /// For each input, the cycle it was accepted (in order).
    pub accept_cycles: Vec<u64>,
    /// For each output, the cycle it was delivered (in order).
    pub deliver_cycles: Vec<u64>,
}

/// Settle combinational logic; panics if the circuit does not converge
/// (a combinational loop is a design bug, not a test outcome).
pub fn settle<B: Block>(dut: &mut B) {
    assert!(simulate(dut, 500), "circuit did not settle");
}

/// An optional VCD being written while a testbench steps a circuit by hand:
/// every scope of the hierarchy, tidied by [`buddy_hdl::vcd_tidy`] (whole
/// buses as in the Verilog, registers under their own names) at a clock of
/// [`DEFAULT_PERIOD_PS`] (1 GHz: these modules have no configured clock).
/// Each [`VcdTrace::sample`] is half a cycle.
pub struct VcdTrace<'a> {
    probe: Option<VCDProbe<VcdTidy<&'a mut dyn Write>>>,
    tidy: Option<VcdTidy<&'a mut dyn Write>>,
    time: u64,
}

impl<'a> VcdTrace<'a> {
    /// Write the header and initial values of `dut` into `w`, if given.
    pub fn new(w: Option<&'a mut dyn Write>, dut: &dyn Block) -> Self {
        let tidy = w.map(|w| VcdTidy::new(w, DEFAULT_PERIOD_PS));
        let probe = tidy.clone().map(|t| write_vcd_dump(write_vcd_header(t, dut), dut));
        VcdTrace { probe, tidy, time: 0 }
    }

    /// Record the changes of `dut` at the current time and advance half a cycle.
    ///
    /// # Panics
    /// The VCD cannot be written.
    pub fn sample(&mut self, dut: &dyn Block) {
        if let Some(mut p) = self.probe.take() {
            p.timestamp(self.time).expect("VCD write");
            self.probe = Some(write_vcd_change(p, dut));
        }
        self.time += RAW_UNITS_PER_CYCLE / 2;
    }

    /// Write the last changes and flush the VCD (also done on drop).
    ///
    /// # Errors
    /// The VCD cannot be written.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.probe = None;
        self.tidy.take().map_or(Ok(()), |t| t.finish())
    }
}

impl Drop for VcdTrace<'_> {
    /// # Panics
    /// The VCD cannot be written (as [`VcdTrace::sample`]), unless the
    /// thread is already panicking.
    fn drop(&mut self) {
        self.probe = None;
        if let Some(t) = self.tidy.take() {
            if let Err(e) = t.finish() {
                if !std::thread::panicking() {
                    panic!("VCD write: {e}");
                }
            }
        }
    }
}

/// Run `inputs` through `dut` under `traffic`, optionally writing a VCD.
///
/// The source keeps an offered input (valid and data) stable until it is
/// accepted, as valid/ready streams require. Stops when every input has come
/// out, or after `max_cycles` (then `outputs` is short and the caller's
/// comparison fails). The VCD is a [`VcdTrace`]: a 1 GHz clock (1,000 ps
/// per cycle, rising edges at whole nanoseconds from 0, reset included).
pub fn run_stream<D: StreamDut, R: Rng>(
    dut: &mut D,
    inputs: &[D::Input],
    traffic: Traffic,
    rng: &mut R,
    max_cycles: u64,
    vcd: Option<&mut dyn Write>,
) -> RunResult<D::Output> {
    run_stream_with(dut, inputs, inputs.len(), traffic, rng, max_cycles, vcd, None)
}

/// [`run_stream`] for a module whose outputs are not one per input (cDMA's
/// engines: four sectors in per line out, or one line in per four sectors
/// out): stops when `outputs` outputs have come out. `on_cycle` sees the
/// settled module before every rising edge, the two reset cycles
/// included, e.g. to write lock-step lines.
#[allow(clippy::too_many_arguments)]
pub fn run_stream_with<D: StreamDut, R: Rng>(
    dut: &mut D,
    inputs: &[D::Input],
    outputs: usize,
    traffic: Traffic,
    rng: &mut R,
    max_cycles: u64,
    vcd: Option<&mut dyn Write>,
    mut on_cycle: Option<&mut dyn FnMut(&D)>,
) -> RunResult<D::Output> {
    let mut dut = crate::harness::Harness::new(dut, vcd);
    // Two cycles of reset with idle streams.
    dut.drive_input(false, &inputs.first().cloned().unwrap_or_else(|| panic!("no inputs")));
    dut.drive_out_ready(false);
    dut.drive_reset(true);
    for _ in 0..2 {
        dut.settle();
        if let Some(f) = on_cycle.as_deref_mut() {
            f(&*dut);
        }
        dut.cycle();
    }
    dut.drive_reset(false);

    let mut result = RunResult { outputs: Vec::new(), cycles: 0, accept_cycles: Vec::new(), deliver_cycles: Vec::new() };
    let mut next = 0usize;
    let mut offering = false;
    while result.outputs.len() < outputs && result.cycles < max_cycles {
        if next < inputs.len() && !offering {
            offering = rng.gen_bool(traffic.p_valid);
        }
        let ready = rng.gen_bool(traffic.p_ready);
        let data = &inputs[next.min(inputs.len() - 1)];
        dut.drive_input(offering && next < inputs.len(), data);
        dut.drive_out_ready(ready);
        dut.settle();
        let accepted = offering && next < inputs.len() && dut.in_ready();
        let delivered = if ready { dut.output() } else { None };
        if let Some(f) = on_cycle.as_deref_mut() {
            f(&*dut);
        }
        dut.cycle();
        if accepted {
            result.accept_cycles.push(result.cycles);
            next += 1;
            offering = false;
        }
        if let Some(o) = delivered {
            result.deliver_cycles.push(result.cycles);
            result.outputs.push(o);
        }
        result.cycles += 1;
    }
    result
}

/// Drive `dut` with `inputs` under every crossing of [`Traffic::CROSSED`] and
/// return the first mismatch against `expected` (same order, nothing lost,
/// nothing duplicated), as a message naming the traffic and the index.
/// The run ends after `expected.len()` outputs (one per input, or not).
pub fn check_against<D: StreamDut, R: Rng>(
    make: impl Fn() -> D,
    inputs: &[D::Input],
    expected: &[D::Output],
    rng: &mut R,
) -> Result<(), String> {
    for traffic in Traffic::CROSSED {
        let mut dut = make();
        let max = 20 * (inputs.len() + expected.len()) as u64 + 100;
        let run = run_stream_with(&mut dut, inputs, expected.len(), traffic, rng, max, None, None);
        if run.outputs.len() != expected.len() {
            return Err(format!("{traffic:?}: {} outputs for {} inputs", run.outputs.len(), expected.len()));
        }
        if let Some(i) = (0..expected.len()).find(|&i| run.outputs[i] != expected[i]) {
            return Err(format!("{traffic:?}: output {i} differs\n  hdl:    {:?}\n  golden: {:?}", run.outputs[i], expected[i]));
        }
    }
    Ok(())
}

pub use buddy_hdl::wide_bits::{sector_from_words as sector_bits, sector_to_words as sector_words};
