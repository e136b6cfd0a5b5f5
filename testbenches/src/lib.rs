//! Development-only: this crate holds the integration tests in `tests/`
//! (the rust-hdl modules against the golden models under random stalls and
//! backpressure, and the emitted Verilog co-simulated in Icarus and
//! Verilator). The harnesses they use, and everything the CLI ships, are
//! in `buddy-delivery` (`delivery/`).
