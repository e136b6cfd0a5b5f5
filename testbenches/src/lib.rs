//! Testbench fixtures shared by every module's tests: a cycle driver for
//! valid/ready stream modules with random bubbles and backpressure, the
//! golden-model adapters (scoreboards) and the co-simulation of the emitted
//! Verilog.

pub mod axis;
pub mod bpc;
pub mod cdma_zvc;
pub mod controller;
pub mod cosim;
pub mod decompress;
pub mod delivery;
pub mod entries;
pub mod interface;
pub mod mag_bdi;
pub mod memory_port;
pub mod metadata_cache;
pub mod modules;
pub mod pipelined_controller;
pub mod read_planner;
pub mod request_contexts;
pub mod sector_gather;
pub mod stream;
pub mod translation;
pub mod write_planner;
pub mod zvc;
