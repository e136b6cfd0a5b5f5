//! Adapters between the MAG-BDI hardware and the golden model: stream
//! drivers, expected outputs (scoreboard) and co-simulation vectors, for
//! each MAG.

use crate::cosim::{hex_field, CosimPorts};
use crate::decompress::{DECOMPRESSOR_INPUTS, DECOMPRESSOR_OUTPUTS};
use crate::stream::{compressed_from_ports, to_bits, StreamDut};
use crate::zvc::compressed_fields;
use buddy_golden::{Codec, CompressedEntry, Mag, MagBdi, MemoryEntry};
use buddy_hdl::{MagBdiCompressor, MagBdiDecompressor};

/// One output of the MAG-BDI compressor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MagBdiOutput {
    /// What Buddy stores: class, stream bits and payload.
    pub compressed: CompressedEntry,
    /// The MAG-BDI paper's encoding `k`, 0 when uncompressed.
    pub encoding: u8,
}

/// What the compressor for `mag` must output for `entry`, by the golden
/// model: `Codec::compress` and `MagBdi::encoding`.
pub fn expected_compressed(mag: Mag, entry: &MemoryEntry) -> MagBdiOutput {
    let codec = MagBdi::new(mag);
    MagBdiOutput { compressed: codec.compress(entry), encoding: codec.encoding(entry).map_or(0, |e| e.k as u8) }
}

impl StreamDut for MagBdiCompressor {
    type Input = MemoryEntry;
    type Output = MagBdiOutput;
    fn drive_input(&mut self, valid: bool, data: &MemoryEntry) {
        self.in_valid.next = valid;
        self.in_entry.next = to_bits(data);
    }
    crate::stream_handshake!();
    fn output(&self) -> Option<MagBdiOutput> {
        self.out_valid.val().then(|| MagBdiOutput {
            compressed: compressed_from_ports(self.out_class.val().to_u32(), self.out_stream_bits.val().to_u32(), &self.out_payload.val()),
            encoding: self.out_encoding.val().to_u32() as u8,
        })
    }
}

crate::decompressor_dut!(MagBdiDecompressor);

/// Co-simulation ports of the compressor for `mag`
/// (`mag_bdi16_compressor`, `mag_bdi32_compressor`, `mag_bdi64_compressor`):
/// vector line = `{in_entry, out_payload, out_class, out_stream_bits, out_encoding}`.
pub const fn compressor_ports(mag: Mag) -> CosimPorts {
    const OUTPUTS: &[(&str, usize)] = &[("out_payload", 1024), ("out_class", 4), ("out_stream_bits", 11), ("out_encoding", 3)];
    let module = match mag {
        Mag::B16 => "mag_bdi16_compressor",
        Mag::B32 => "mag_bdi32_compressor",
        Mag::B64 => "mag_bdi64_compressor",
    };
    CosimPorts { module, inputs: &[("in_entry", 1024)], outputs: OUTPUTS }
}

/// Co-simulation ports of the decompressor for `mag`
/// (`mag_bdi16_decompressor`, ...): vector line =
/// `{in_class, in_payload, out_entry, out_error}`.
pub const fn decompressor_ports(mag: Mag) -> CosimPorts {
    let module = match mag {
        Mag::B16 => "mag_bdi16_decompressor",
        Mag::B32 => "mag_bdi32_decompressor",
        Mag::B64 => "mag_bdi64_decompressor",
    };
    CosimPorts { module, inputs: DECOMPRESSOR_INPUTS, outputs: DECOMPRESSOR_OUTPUTS }
}

/// One `$readmemh` line for the compressor of `mag`: the entry and the
/// golden output.
pub fn compressor_vector(mag: Mag, entry: &MemoryEntry) -> String {
    let out = expected_compressed(mag, entry);
    entry.to_hex() + &compressed_fields(&out.compressed) + &hex_field(out.encoding as u64, 3)
}

/// The co-simulation entries of every MAG-BDI module: 8,000 entries on the
/// delta-width boundaries, 2,000 random entries and every entry of the
/// bundled snapshot (16,594 in all).
pub fn cosim_entries() -> Vec<MemoryEntry> {
    use crate::entries::{bundled_workload, mag_boundary_entry, random_entries, sample, snapshot_entries};
    let mut entries = sample(&mag_boundary_entry(), 8_000, 41);
    entries.extend(random_entries(2_000, 43));
    entries.extend(snapshot_entries(&bundled_workload()));
    entries
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the MAG-BDI codec modules.

/// The MAG-BDI compressor and decompressor as delivered modules, one
/// instance per MAG.
pub mod delivered {
    use super::*;
    use crate::modules::{StreamCodec, StreamCompressor, StreamDecompressor};
    use buddy_hdl::Stages;

    /// `mag_bdi<MAG>_compressor` (the delivered build; no `Stages` parameter yet, #20).
    pub fn compressor(mag: Mag) -> StreamCompressor<MagBdiCompressor> {
        StreamCompressor {
            stream: StreamCodec {
                ports: compressor_ports(mag),
                stages: &[],
                built_stages: None,
                latency: buddy_hdl::mag_bdi_compressor::latency(Stages::DELIVERED),
                hardware: Box::new(move || MagBdiCompressor::new(mag)),
                codec: Box::new(move || Box::new(MagBdi::new(mag))),
            },
            expected: Box::new(move |e| expected_compressed(mag, e)),
            vector: Box::new(move |e| compressor_vector(mag, e)),
        }
    }

    /// `mag_bdi<MAG>_decompressor`.
    pub fn decompressor(mag: Mag) -> StreamDecompressor<MagBdiDecompressor> {
        StreamDecompressor {
            stream: StreamCodec {
                ports: decompressor_ports(mag),
                stages: &[],
                built_stages: None,
                latency: buddy_hdl::mag_bdi_decompressor::LATENCY,
                hardware: Box::new(move || MagBdiDecompressor::new(mag)),
                codec: Box::new(move || Box::new(MagBdi::new(mag))),
            },
        }
    }
}
