//! One clocked rust-hdl block under test, stepped by hand (no threads):
//! settle, reset, clock edges traced into an optional VCD, cycle count and
//! lock-step lines. Every block's driver in this crate runs its DUT through
//! a [`Harness`]; and the lock-step port lists of a block, from which its
//! lines and co-simulation ports are made ([`lockstep_ports!`]).

use std::io::Write;
use std::ops::{Deref, DerefMut};

use crate::stream::{settle, StreamDut, VcdTrace};
use rust_hdl::prelude::*;

/// A block with a clock and a synchronous reset a [`Harness`] can drive.
pub trait Clocked: Block {
    fn drive_clock(&mut self, level: bool);
    fn drive_reset(&mut self, reset: bool);
}

impl<T: StreamDut> Clocked for T {
    fn drive_clock(&mut self, level: bool) {
        StreamDut::drive_clock(self, level);
    }
    fn drive_reset(&mut self, reset: bool) {
        StreamDut::drive_reset(self, reset);
    }
}

/// [`Clocked`] for blocks whose ports are named `clock` and `reset`.
macro_rules! clocked {
    ($($t:ty),* $(,)?) => {
        $(impl Clocked for $t {
            fn drive_clock(&mut self, level: bool) {
                self.clock.next = Clock::from(level);
            }
            fn drive_reset(&mut self, reset: bool) {
                self.reset.next = reset;
            }
        })*
    };
}

clocked!(
    buddy_hdl::ReadPlanner,
    buddy_hdl::WritePlanner,
    buddy_hdl::SectorGather,
    buddy_hdl::MemoryPort,
    buddy_hdl::RequestContexts,
    buddy_hdl::tag_fifo::TagFifo,
    buddy_hdl::MetadataCache,
    buddy_hdl::PipelinedMetadataCache,
    buddy_hdl::PipelinedController,
    buddy_hdl::PipelinedControllerZvc,
    buddy_hdl::PipelinedControllerMagBdi,
);

/// A DUT being stepped: it dereferences to the DUT, so ports are driven
/// and read as `h.port.next` and `h.port.val()`.
///
/// The VCD (if any) is a [`VcdTrace`]: a 1 GHz clock, one sample per
/// clock level, reset cycles included. Lock-step lines (if recorded) are
/// taken at each [`Harness::cycle`], before the rising edge: the inputs
/// applied and settled.
pub struct Harness<'a, D: Clocked> {
    dut: &'a mut D,
    trace: VcdTrace<'a>,
    lines: Option<(&'a mut Vec<String>, fn(&D) -> String)>,
}

impl<'a, D: Clocked> Harness<'a, D> {
    /// Connect `dut` and start its VCD in `vcd`, if given.
    pub fn new<'w: 'a>(dut: &'a mut D, vcd: Option<&'a mut (dyn Write + 'w)>) -> Self {
        dut.connect_all();
        let trace = VcdTrace::new(vcd.map(|w| w as &mut dyn Write), &*dut as &dyn Block);
        Harness { dut, trace, lines: None }
    }

    /// Record a lock-step line `line(dut)` into `lines` every cycle, if given.
    pub fn record(mut self, lines: Option<&'a mut Vec<String>>, line: fn(&D) -> String) -> Self {
        self.lines = lines.map(|l| (l, line));
        self
    }

    /// Settle the combinational logic with the inputs driven.
    pub fn settle(&mut self) {
        settle(self.dut);
    }

    /// End the cycle: record its line, then a rising and a falling clock
    /// edge, each settled and sampled into the VCD.
    pub fn cycle(&mut self) {
        if let Some((lines, line)) = self.lines.as_mut() {
            lines.push(line(self.dut));
        }
        self.edge();
    }

    /// A rising and a falling clock edge without a lock-step line (cycles
    /// no testbench replays, e.g. a latency probe's).
    pub fn edge(&mut self) {
        for level in [true, false] {
            self.dut.drive_clock(level);
            settle(self.dut);
            self.trace.sample(&*self.dut as &dyn Block);
        }
    }

    /// `cycles` cycles with `reset` high and the inputs as driven, then
    /// `reset` low.
    pub fn reset(&mut self, cycles: usize) {
        self.dut.drive_reset(true);
        for _ in 0..cycles {
            self.settle();
            self.cycle();
        }
        self.dut.drive_reset(false);
    }
}

impl<D: Clocked> Deref for Harness<'_, D> {
    type Target = D;
    fn deref(&self) -> &D {
        self.dut
    }
}

impl<D: Clocked> DerefMut for Harness<'_, D> {
    fn deref_mut(&mut self) -> &mut D {
        self.dut
    }
}

/// One port's lock-step field: `ceil(width / 4)` hex digits.
pub trait LockstepField {
    fn hex(&self) -> String;
}

/// `value`'s field, which the list says is `width` bits wide.
///
/// # Panics
/// The port is not that wide (the list and the block disagree).
pub fn field(value: impl LockstepField, width: usize, name: &str) -> String {
    let hex = value.hex();
    assert_eq!(hex.len(), width.div_ceil(4), "lock-step port {name} is not {width} bits wide");
    hex
}

impl LockstepField for bool {
    fn hex(&self) -> String {
        buddy_hdl::lockstep::hex_bit(*self)
    }
}

impl LockstepField for buddy_hdl::EntryBits {
    fn hex(&self) -> String {
        buddy_hdl::lockstep::hex_words(&self.to_words())
    }
}

impl<const N: usize> LockstepField for Bits<N> {
    fn hex(&self) -> String {
        buddy_hdl::lockstep::hex_bits(self)
    }
}

/// The outputs of a lock-step list without their qualifiers (the
/// co-simulation ports' list); `N` is `outputs.len()`.
pub const fn unqualified<const N: usize>(outputs: &[(&'static str, usize, &'static str)]) -> [(&'static str, usize); N] {
    let mut out = [("", 0); N];
    let mut k = 0;
    while k < N {
        out[k] = (outputs[k].0, outputs[k].1);
        k += 1;
    }
    out
}

/// A block's lock-step ports, its one list: makes `LOCKSTEP_INPUTS`,
/// `LOCKSTEP_OUTPUTS` (name, bits, the valid that qualifies it or ""),
/// `line(&$dut) -> String` (every port's field in that order, read after
/// the inputs settle) and, given the Verilog module's name, `PORTS` (the
/// co-simulation ports).
#[macro_export]
macro_rules! lockstep_ports {
    ($dut:ty, $module:literal, $($ports:tt)*) => {
        $crate::lockstep_ports!($dut, $($ports)*);
        /// Co-simulation ports (the lock-step ones).
        pub const PORTS: $crate::cosim::CosimPorts = $crate::cosim::CosimPorts {
            module: $module,
            inputs: LOCKSTEP_INPUTS,
            outputs: &$crate::harness::unqualified::<{ LOCKSTEP_OUTPUTS.len() }>(LOCKSTEP_OUTPUTS),
        };
    };
    ($dut:ty,
     inputs: [$($i:ident: $iw:tt),* $(,)?],
     outputs: [$($o:ident: $ow:tt $(if $q:ident)?),* $(,)?] $(,)?) => {
        /// Lock-step input ports (line order).
        pub const LOCKSTEP_INPUTS: &[(&str, usize)] = &[$((stringify!($i), $iw)),*];
        /// Lock-step outputs: (name, width, qualifier).
        pub const LOCKSTEP_OUTPUTS: &[(&str, usize, &str)] = &[$((stringify!($o), $ow, $crate::lockstep_ports!(@q $($q)?))),*];
        /// This cycle's lock-step line of `dut`.
        pub(crate) fn line(dut: &$dut) -> String {
            use $crate::harness::field;
            [$(field(dut.$i.val(), $iw, stringify!($i)),)* $(field(dut.$o.val(), $ow, stringify!($o)),)*].concat()
        }
    };
    (@q) => { "" };
    (@q $q:ident) => { stringify!($q) };
}
