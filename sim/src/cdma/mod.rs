//! cDMA (seed `003_*`): the compressing DMA engine that offloads DNN
//! activation maps to host memory for vDNN, modelled at system level.
//!
//! | module | what |
//! |---|---|
//! | [`config`] | the `[cdma]` TOML table: PCIe, DRAM, cDMA's read bandwidth, request latency, buffer, GPU throughput |
//! | [`network`] | a training step's layers, their FLOPs and activation maps, from a snapshot |
//! | [`dma_engine`] | the offload path: request launcher, response buffer, host link (event-exact per line) |
//! | [`vdnn`] | the step's timeline under the oracle, vDNN and cDMA with RL, ZVC and zlib |
//! | [`training`] | every snapshot of a workload as a training step, under every policy |
//!
//! The compression itself is the golden models' ([`buddy_golden::offload_window`]).

pub mod dma_engine;
pub mod network;
pub mod training;
pub mod vdnn;
