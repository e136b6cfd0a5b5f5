//! Plain-Rust cycle models of the pipelined controller slice's blocks
//! (`buddy_hdl`): every handshake on the same cycle as the hardware, with
//! no data path. The fast engine times the pipelined slice with them
//! (`docs/controller.md`, "Timing: three engines"); each model's tests run
//! it beside its rust-hdl block on random inputs and compare every output
//! on every cycle, so the models are checked against the hardware, not
//! written as a second source of its timing.
//!
//! Every model follows one convention ([`CycleModel`]):
//!
//! - `In`: the block's input ports that decide what it does (valids,
//!   readies, ids, kinds, addresses and sizes), `reset` included; data
//!   words (entries, payloads, sector data) are left out.
//! - `Out`: its output ports the same way; a field that the hardware
//!   qualifies by a valid is an `Option` (`None` when the valid is low),
//!   so don't-care values are never compared.
//! - `outputs(&self, &In)`: what the block shows this cycle with these
//!   inputs, once settled (combinational paths from inputs included).
//! - `clock(&mut self, &In)`: the rising clock edge with these inputs.
//!
//! A model starts in the state the hardware has after power-up; the
//! hardware's reset input is an input like any other.

pub mod elastic_pipeline;
pub mod register_slice;
pub mod tag_fifo;

/// A cycle model of one hardware block (see the crate documentation).
pub trait CycleModel {
    type In: Default + Clone + std::fmt::Debug;
    type Out: Default + Clone + PartialEq + std::fmt::Debug;
    /// The outputs this cycle with inputs `i` (pure: no state changes).
    fn outputs(&self, i: &Self::In) -> Self::Out;
    /// The rising clock edge, inputs `i` held.
    fn clock(&mut self, i: &Self::In);
}

#[cfg(test)]
pub(crate) mod lockstep {
    //! Driving a rust-hdl block beside its model.
    use rust_hdl::prelude::*;

    /// Settle `b`'s combinational logic.
    pub fn settle<B: Block>(b: &mut B) {
        assert!(simulate(b, 500), "circuit did not settle");
    }

    /// One rising and one falling clock edge on `b`, each settled.
    pub fn edge<B: Block>(b: &mut B, clock: impl Fn(&mut B) -> &mut Signal<In, Clock>) {
        for level in [true, false] {
            clock(b).next = Clock::from(level);
            settle(b);
        }
    }
}
