//! The hardware's timing facts in one place, clock cycles: each codec's
//! latency (its module's `LATENCY`), the metadata cache's
//! ([`crate::metadata_cache`]) and the controller slice's
//! ([`crate::buddy_controller::timing`]). The testbenches measure every
//! figure on the hardware; the memory system's hardware timing is built
//! from them, so a change to the hardware reaches the fast engine here.

use buddy_golden::Algorithm;

pub use crate::buddy_controller::timing::*;
pub use crate::metadata_cache::{AFTER_FILL_CYCLES, HIT_CYCLES, SECTORS_PER_LINE, SECTOR_FILL_CYCLES, SETS};

/// A codec pair's latencies, clock cycles (both at initiation interval 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodecLatency {
    pub compress: u64,
    pub decompress: u64,
}

/// The latencies of the compressor and decompressor the slice is built
/// with for `algorithm` (BPC 5 / 7, ZVC 2 / 2, MAG-BDI 2 / 1 at every MAG).
pub const fn codec_latency(algorithm: Algorithm) -> CodecLatency {
    match algorithm {
        Algorithm::Bpc => CodecLatency { compress: crate::bpc_compressor::LATENCY, decompress: crate::bpc_decompressor::LATENCY },
        Algorithm::Zvc => CodecLatency { compress: crate::zvc_compressor::LATENCY, decompress: crate::zvc_decompressor::LATENCY },
        Algorithm::MagBdi(_) => {
            CodecLatency { compress: crate::mag_bdi_compressor::LATENCY, decompress: crate::mag_bdi_decompressor::LATENCY }
        }
    }
}

/// Cycles the metadata cache spends invalidating its sets after reset
/// (one set per cycle) before the slice takes its first request.
pub const INIT_CYCLES: u64 = SETS as u64;
