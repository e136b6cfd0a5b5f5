//! The Verilog delivery and what makes and checks it, used by the `buddy`
//! CLI (`buddy verilog`, `vectors`, `equiv`, `synth`, `run`, `speed`) and by
//! the dev-only tests of `testbenches/`:
//! - [`delivery`], [`interface`], [`axis`]: every emitted module with its
//!   interface header, the AXI4-Stream wrappers, `.f` file list and FuseSoC
//!   core, the shipped testbenches and vectors (`verilog-out/`);
//! - [`modules`]: the registry of delivered modules ([`modules::HwModule::all`]),
//!   each a [`modules::DeliveredModule`] implemented beside its block
//!   (docs/modules.md);
//! - [`harness`]: clock, reset, settle, VCD and lock-step lines of a
//!   block under test, and the lock-step port lists (`lockstep_ports!`);
//! - [`stream`] and one driver per module: a cycle driver for valid/ready
//!   stream modules with random bubbles and backpressure, and the
//!   scoreboards against the golden and cycle models;
//! - [`cosim`]: Icarus and Verilator runs of the emitted Verilog;
//! - [`lut_levels`]: logic depth of a synthesized netlist, for `buddy synth`;
//! - [`pnr`]: the wrapper that registers every port of a module for `buddy pnr`;
//! - [`waves`]: the GTKWave save file and translate filters beside every VCD.

pub mod axis;
pub mod bpc;
pub mod cdma_zvc;
pub mod controller;
pub mod cosim;
pub mod decompress;
pub mod delivery;
pub mod entries;
pub mod harness;
pub mod interface;
pub mod lut_levels;
pub mod mag_bdi;
pub mod memory_port;
pub mod metadata_cache;
pub mod modules;
pub mod pipelined_controller;
pub mod pnr;
pub mod read_planner;
pub mod request_contexts;
pub mod sector_gather;
pub mod stream;
pub mod translation;
pub mod waves;
pub mod write_planner;
pub mod zvc;
