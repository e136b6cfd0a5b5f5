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
    use crate::decompress::StoredEntry;
    use crate::modules::{self, DeliveredModule, EquivRun, ModuleKind, VcdWriter, VectorFile};
    use crate::stream::{run_stream, Traffic};
    use buddy_hdl::Stages;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// `zvc_compressor`.
    pub struct Compressor;

    impl DeliveredModule for Compressor {
        fn ports(&self) -> CosimPorts {
            COMPRESSOR_PORTS
        }
        fn kind(&self) -> ModuleKind {
            ModuleKind::Compressor
        }
        fn notes(&self) -> Vec<String> {
            crate::interface::codec_notes(self)
        }
        fn built_stages(&self) -> Option<Stages> {
            Some(Stages::DELIVERED)
        }
        fn stream_timing(&self) -> Option<(String, String)> {
            Some((buddy_hdl::zvc_compressor::latency(Stages::DELIVERED).to_string(), "1 entry".into()))
        }
        fn codec(&self) -> Option<Box<dyn Codec>> {
            Some(Box::new(Zvc))
        }
        fn verilog(&self, revision: &str) -> Result<String, String> {
            modules::emit(ZvcCompressor::default(), self.name(), revision)
        }
        fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
            vec![VectorFile::vectors(self.name(), entries.iter().map(compressor_vector).collect())]
        }
        fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
            let expected: Vec<_> = entries.iter().map(|e| Zvc.compress(e)).collect();
            modules::compare(self.name(), ZvcCompressor::default(), entries, &expected, traffic, seed)
        }
        fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
            let mut rng = ChaCha8Rng::seed_from_u64(modules::VCD_SEED);
            let max = modules::vcd_max_cycles(entries.len());
            run_stream(&mut ZvcCompressor::default(), entries, Traffic::RANDOM, &mut rng, max, Some(&mut vcd));
            Ok(())
        }
    }

    /// `zvc_decompressor`.
    pub struct Decompressor;

    impl DeliveredModule for Decompressor {
        fn ports(&self) -> CosimPorts {
            DECOMPRESSOR_PORTS
        }
        fn kind(&self) -> ModuleKind {
            ModuleKind::Decompressor
        }
        fn notes(&self) -> Vec<String> {
            crate::interface::codec_notes(self)
        }
        fn built_stages(&self) -> Option<Stages> {
            Some(Stages::DELIVERED)
        }
        fn stream_timing(&self) -> Option<(String, String)> {
            Some((buddy_hdl::zvc_decompressor::latency(Stages::DELIVERED).to_string(), "1 entry".into()))
        }
        fn codec(&self) -> Option<Box<dyn Codec>> {
            Some(Box::new(Zvc))
        }
        fn verilog(&self, revision: &str) -> Result<String, String> {
            modules::emit(ZvcDecompressor::default(), self.name(), revision)
        }
        fn vector_files(&self, entries: &[MemoryEntry], malformed: &[StoredEntry]) -> Vec<VectorFile> {
            modules::decompressor_vectors(self.name(), &Zvc, entries, malformed)
        }
        fn check(&self, entries: &[MemoryEntry], malformed: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
            modules::check_decompressor(self.name(), &Zvc, ZvcDecompressor::default(), entries, malformed, traffic, seed)
        }
        fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
            let stored = modules::stored_inputs(&Zvc, entries, &[]);
            let mut rng = ChaCha8Rng::seed_from_u64(modules::VCD_SEED);
            let max = modules::vcd_max_cycles(entries.len());
            run_stream(&mut ZvcDecompressor::default(), &stored, Traffic::RANDOM, &mut rng, max, Some(&mut vcd));
            Ok(())
        }
    }
}
