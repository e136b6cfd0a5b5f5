//! The hardware's timing facts in one place, clock cycles: each codec's
//! latency (its module's `LATENCY`), cDMA's sector-wise engines', the metadata cache's
//! ([`crate::metadata_cache`]) and the controller slice's
//! ([`crate::buddy_controller::timing`]). The testbenches measure every
//! figure on the hardware; the memory system's hardware timing is built
//! from them, so a change to the hardware reaches the fast engine here.

use crate::stages::Stages;
use buddy_golden::HardwareCodec;

pub use crate::buddy_controller::timing::*;
pub use crate::metadata_cache::{AFTER_FILL_CYCLES, HIT_CYCLES, SECTORS_PER_LINE, SECTOR_FILL_CYCLES, SETS};

/// A codec pair's latencies, clock cycles (both at initiation interval 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodecLatency {
    pub compress: u64,
    pub decompress: u64,
}

/// The latencies of the compressor and decompressor the slice is built
/// with for `hardware`, each codec built [`Stages::DELIVERED`] (BPC 10 / 37,
/// ZVC 4 / 4, MAG-BDI 4 / 1 at every MAG).
/// An algorithm without hardware has no latency here:
/// `Algorithm::hardware` is `None` for it.
pub const fn codec_latency(hardware: HardwareCodec) -> CodecLatency {
    match hardware {
        HardwareCodec::Bpc => CodecLatency {
            compress: crate::bpc_compressor::latency(Stages::DELIVERED),
            decompress: crate::bpc_decompressor::latency(Stages::DELIVERED),
        },
        HardwareCodec::Zvc => CodecLatency {
            compress: crate::zvc_compressor::latency(Stages::DELIVERED),
            decompress: crate::zvc_decompressor::latency(Stages::DELIVERED),
        },
        HardwareCodec::MagBdi(_) => CodecLatency {
            compress: crate::mag_bdi_compressor::latency(Stages::DELIVERED),
            decompress: crate::mag_bdi_decompressor::LATENCY,
        },
    }
}

/// Cycles the metadata cache spends invalidating its sets after reset
/// (one set per cycle) before the slice takes its first request.
pub const INIT_CYCLES: u64 = SETS as u64;

/// One of cDMA's sector-wise ZVC engines (seed `003_*`, Sec. V-B), clock
/// cycles. They are not part of the controller slice; a DMA engine model
/// reads them here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CdmaEngineTiming {
    /// Compressor: from a line's first sector in to the line out;
    /// decompressor: from the line in to its first sector out.
    pub latency: u64,
    /// From a line's first transfer in to its last transfer out.
    pub line_latency: u64,
    /// Cycles per 128-byte line at full rate (one 32-byte sector a cycle).
    pub cycles_per_line: u64,
}

/// [`crate::cdma_zvc_compressor::CdmaZvcCompressor`] built `stages`: 6
/// cycles ([`Stages::Paper`]) or 7, a line every 4.
pub const fn cdma_compressor(stages: Stages) -> CdmaEngineTiming {
    CdmaEngineTiming {
        latency: crate::cdma_zvc_compressor::latency(stages),
        line_latency: crate::cdma_zvc_compressor::latency(stages),
        cycles_per_line: crate::cdma_zvc_compressor::CYCLES_PER_LINE,
    }
}

/// [`crate::cdma_zvc_decompressor::CdmaZvcDecompressor`] built `stages`:
/// 2 cycles to the first sector and 5 to the last ([`Stages::Paper`]), or
/// 3 and 6; a line every 4.
pub const fn cdma_decompressor(stages: Stages) -> CdmaEngineTiming {
    CdmaEngineTiming {
        latency: crate::cdma_zvc_decompressor::latency(stages),
        line_latency: crate::cdma_zvc_decompressor::line_latency(stages),
        cycles_per_line: crate::cdma_zvc_decompressor::CYCLES_PER_LINE,
    }
}
