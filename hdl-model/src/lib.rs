//! Plain-Rust cycle models of the pipelined controller slice's blocks
//! (`buddy_hdl`): every handshake on the same cycle as the hardware, with
//! no data path. The fast engine times the pipelined slice with them
//! (`docs/controller.md`, "Timing: three engines"); each model's tests run
//! it beside its rust-hdl block on random inputs and compare every output
//! on every cycle, so the models are checked against the hardware, not
//! written as a second source of its timing. [`pipelined_controller`]
//! composes them into the whole slice, checked against the hardware by the
//! slice's testbench (`delivery/src/pipelined_controller.rs`) and against
//! the RTL engine port by port (`sim/tests/pipelined_model.rs`); when a
//! block changes, its model changes in the same commit.
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
pub mod memory_port;
pub mod pipelined_controller;
pub mod pipelined_metadata_cache;
pub mod read_planner;
pub mod register_slice;
pub mod request_contexts;
pub mod sector_gather;
pub mod tag_fifo;
pub mod write_planner;

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

    /// The planners' random schedules, per seed: the chance a job is
    /// offered each cycle, and each of the three output ports' chance of
    /// being ready.
    pub const PLANNER_SCHEDULES: [(f64, [f64; 3]); 8] = [
        (0.5, [0.5, 0.5, 0.5]),
        (0.9, [0.9, 0.9, 0.9]),
        (0.9, [0.3, 0.3, 0.3]),
        (0.2, [0.9, 0.9, 0.9]),
        (0.7, [0.9, 0.2, 0.9]),
        (0.7, [0.9, 0.9, 0.2]),
        (0.7, [0.2, 0.9, 0.9]),
        (1.0, [1.0, 1.0, 1.0]),
    ];

    /// Where a random memory-entry's parts live, as a translation gives
    /// them (the planners' legal inputs).
    #[derive(Debug, Clone, Copy)]
    pub struct Slot {
        pub compressed: bool,
        pub part_bytes: u8,
        pub device_address: u64,
        pub buddy_address: u64,
    }

    /// A random entry of a random page: every target ratio, both page
    /// sizes, compressed and uncompressed pages. Page frames are page
    /// aligned and the GBBR 128-byte aligned, as in a real system; a
    /// compressed page's slots are sometimes moved to any 8-byte boundary
    /// (the planners' documented alignment) so that every first unit of a
    /// sector is exercised, not only the 16x device part's.
    pub fn random_slot(rng: &mut impl rand::Rng) -> Slot {
        use buddy_golden::translation::{PageSize, TargetRatio};
        let target = TargetRatio::ALL[rng.gen_range(0..TargetRatio::ALL.len())];
        let compressed = rng.gen_bool(0.75);
        let part = if compressed { target.device_bytes() } else { buddy_golden::ENTRY_BYTES as u64 };
        let page = [PageSize::Small64K, PageSize::Huge2M][rng.gen_range(0..2)].bytes();
        let entry = rng.gen_range(0..page / buddy_golden::ENTRY_BYTES as u64);
        let frame = rng.gen_range(0..1u64 << 24) * page;
        let gbbr = rng.gen_range(0..1u64 << 30) * 128;
        let mut slot = Slot {
            compressed,
            part_bytes: part as u8,
            device_address: frame + entry * part,
            buddy_address: gbbr + entry * target.buddy_stride(),
        };
        if compressed && rng.gen_bool(0.25) {
            slot.device_address = rng.gen_range(0..1u64 << 45) * 8;
        }
        if rng.gen_bool(0.3) {
            slot.buddy_address = rng.gen_range(0..1u64 << 45) * 8;
        }
        slot
    }
}
