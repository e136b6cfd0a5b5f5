//! Adapters between the ZVC hardware and the golden model: stream drivers,
//! expected outputs (scoreboard) and co-simulation vectors.

use crate::cosim::{hex_field, CosimPorts};
use crate::decompress::{DECOMPRESSOR_INPUTS, DECOMPRESSOR_OUTPUTS};
use buddy_golden::{Codec, CompressedEntry, MemoryEntry, Zvc};
use buddy_hdl::{ZvcCompressor, ZvcDecompressor};

crate::compressor_dut!(ZvcCompressor);

crate::decompressor_dut!(ZvcDecompressor);

/// Co-simulation ports of `zvc_compressor`: vector line =
/// `{in_entry, out_payload, out_class, out_stream_bits}`.
pub const COMPRESSOR_PORTS: CosimPorts = CosimPorts {
    module: "zvc_compressor",
    inputs: &[("in_entry", 1024)],
    outputs: &[("out_payload", 1024), ("out_class", 4), ("out_stream_bits", 11)],
};

/// Co-simulation ports of `zvc_decompressor`: vector line =
/// `{in_class, in_payload, out_entry, out_error}`.
pub const DECOMPRESSOR_PORTS: CosimPorts =
    CosimPorts { module: "zvc_decompressor", inputs: DECOMPRESSOR_INPUTS, outputs: DECOMPRESSOR_OUTPUTS };

/// The hex fields of a golden compressed entry, in port order
/// `{out_payload, out_class, out_stream_bits}`.
pub fn compressed_fields(c: &CompressedEntry) -> String {
    [MemoryEntry::from_bytes(&c.payload).to_hex(), hex_field(c.class.code() as u64, 4), hex_field(c.stream_bits as u64, 11)].concat()
}

/// One `$readmemh` line for the compressor: the entry and the golden output.
pub fn compressor_vector(entry: &MemoryEntry) -> String {
    entry.to_hex() + &compressed_fields(&Zvc.compress(entry))
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the ZVC codec modules.

/// The ZVC compressor and decompressor as delivered modules.
pub mod delivered {
    use super::*;
    use crate::modules::{StreamCodec, StreamCompressor, StreamDecompressor};
    use buddy_hdl::Stages;

    /// `zvc_compressor`.
    pub fn compressor() -> StreamCompressor<ZvcCompressor> {
        StreamCompressor {
            stream: StreamCodec {
                ports: COMPRESSOR_PORTS,
                stages: &[],
                built_stages: Some(Stages::DELIVERED),
                latency: buddy_hdl::zvc_compressor::latency(Stages::DELIVERED),
                hardware: Box::new(ZvcCompressor::default),
                codec: Box::new(|| Box::new(Zvc)),
            },
            expected: Box::new(|e| Zvc.compress(e)),
            vector: Box::new(compressor_vector),
        }
    }

    /// `zvc_decompressor`.
    pub fn decompressor() -> StreamDecompressor<ZvcDecompressor> {
        StreamDecompressor {
            stream: StreamCodec {
                ports: DECOMPRESSOR_PORTS,
                stages: &[],
                built_stages: Some(Stages::DELIVERED),
                latency: buddy_hdl::zvc_decompressor::latency(Stages::DELIVERED),
                hardware: Box::new(ZvcDecompressor::default),
                codec: Box::new(|| Box::new(Zvc)),
            },
        }
    }
}
