//! Adapters between cDMA's sector-wise ZVC engines and the golden model
//! (`buddy_golden::zvc::LineStream`): stream drivers (sectors in, lines
//! out, and the reverse), expected outputs, the activation maps of the
//! shared workloads, and lock-step lines for co-simulating the Verilog.

use crate::cosim::{hex_field, words_hex, CosimPorts};
use crate::stream::{run_stream_with, RunResult, StreamDut, Traffic};
use buddy_golden::zvc::{LineStream, LINE_SECTORS, SECTOR_WORDS};
use buddy_golden::MemoryEntry;
use buddy_hdl::{CdmaZvcCompressor, CdmaZvcDecompressor, EntryBits, SectorBits, Stages};
use rand::Rng;
use rust_hdl::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One 32-byte sector, `w[8k + m]` of its line at index `m`.
pub type Sector = [u32; SECTOR_WORDS];

/// What the compressor emits per line: its three output ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompressedLine {
    /// `out_mask` and `out_words`.
    pub stream: LineStream,
    /// `out_stream_bits`.
    pub stream_bits: usize,
}

/// The golden compressed line of `entry`.
pub fn compressed_line(entry: &MemoryEntry) -> CompressedLine {
    let stream = LineStream::of(entry);
    CompressedLine { stream, stream_bits: stream.bits() }
}

/// What the decompressor emits per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineSector {
    pub words: Sector,
    /// The line's fourth sector (`out_last`).
    pub last: bool,
}

/// The four sectors of `entry`, in order.
pub fn sectors(entry: &MemoryEntry) -> [Sector; LINE_SECTORS] {
    std::array::from_fn(|k| entry.words()[SECTOR_WORDS * k..SECTOR_WORDS * (k + 1)].try_into().expect("8 words"))
}

/// The compressor's inputs for `entries`: every line's sectors in order.
pub fn sector_inputs(entries: &[MemoryEntry]) -> Vec<Sector> {
    entries.iter().flat_map(sectors).collect()
}

/// The decompressor's expected outputs for `streams`: each line's four
/// sectors, the golden decoding (words past the `n` non-zero ones ignored).
pub fn expected_sectors(streams: &[LineStream]) -> Vec<LineSector> {
    streams.iter().flat_map(|s| (0..LINE_SECTORS).map(move |k| LineSector { words: s.sector(k), last: k == LINE_SECTORS - 1 })).collect()
}

fn bits32(w: u32) -> Bits<32> {
    (w as u64).into()
}

impl StreamDut for CdmaZvcCompressor {
    type Input = Sector;
    type Output = CompressedLine;
    fn drive_input(&mut self, valid: bool, data: &Sector) {
        self.in_valid.next = valid;
        self.in_sector.next = SectorBits::from_words(data);
    }
    crate::stream_handshake!();
    fn output(&self) -> Option<CompressedLine> {
        self.out_valid.val().then(|| CompressedLine {
            stream: LineStream { mask: self.out_mask.val().to_u32(), words: self.out_words.val().to_words() },
            stream_bits: self.out_stream_bits.val().to_u32() as usize,
        })
    }
}

impl StreamDut for CdmaZvcDecompressor {
    type Input = LineStream;
    type Output = LineSector;
    fn drive_input(&mut self, valid: bool, data: &LineStream) {
        self.in_valid.next = valid;
        self.in_mask.next = bits32(data.mask);
        self.in_words.next = EntryBits::from_words(&data.words);
    }
    crate::stream_handshake!();
    fn output(&self) -> Option<LineSector> {
        self.out_valid.val().then(|| LineSector { words: self.out_sector.val().to_words(), last: self.out_last.val() })
    }
}

/// Lock-step inputs of `cdma_zvc_compressor` (line order).
pub const COMPRESSOR_LOCKSTEP_INPUTS: &[(&str, usize)] = &[("reset", 1), ("in_valid", 1), ("in_sector", 256), ("out_ready", 1)];
/// Lock-step outputs of `cdma_zvc_compressor`: (name, width, qualifier);
/// every output is compared on every cycle.
pub const COMPRESSOR_LOCKSTEP_OUTPUTS: &[(&str, usize, &str)] =
    &[("in_ready", 1, ""), ("out_valid", 1, ""), ("out_mask", 32, ""), ("out_words", 1024, ""), ("out_stream_bits", 11, "")];
/// Co-simulation ports of `cdma_zvc_compressor` (the lock-step ones).
pub const COMPRESSOR_PORTS: CosimPorts = CosimPorts {
    module: "cdma_zvc_compressor",
    inputs: COMPRESSOR_LOCKSTEP_INPUTS,
    outputs: &[("in_ready", 1), ("out_valid", 1), ("out_mask", 32), ("out_words", 1024), ("out_stream_bits", 11)],
};

/// Lock-step inputs of `cdma_zvc_decompressor` (line order).
pub const DECOMPRESSOR_LOCKSTEP_INPUTS: &[(&str, usize)] =
    &[("reset", 1), ("in_valid", 1), ("in_mask", 32), ("in_words", 1024), ("out_ready", 1)];
/// Lock-step outputs of `cdma_zvc_decompressor`, every one compared on
/// every cycle.
pub const DECOMPRESSOR_LOCKSTEP_OUTPUTS: &[(&str, usize, &str)] =
    &[("in_ready", 1, ""), ("out_valid", 1, ""), ("out_sector", 256, ""), ("out_last", 1, "")];
/// Co-simulation ports of `cdma_zvc_decompressor` (the lock-step ones).
pub const DECOMPRESSOR_PORTS: CosimPorts = CosimPorts {
    module: "cdma_zvc_decompressor",
    inputs: DECOMPRESSOR_LOCKSTEP_INPUTS,
    outputs: &[("in_ready", 1), ("out_valid", 1), ("out_sector", 256), ("out_last", 1)],
};

fn compressor_line(d: &CdmaZvcCompressor) -> String {
    [
        hex_field(d.reset.val() as u64, 1),
        hex_field(d.in_valid.val() as u64, 1),
        words_hex(&d.in_sector.val().to_words()),
        hex_field(d.out_ready.val() as u64, 1),
        hex_field(d.in_ready.val() as u64, 1),
        hex_field(d.out_valid.val() as u64, 1),
        hex_field(d.out_mask.val().to_u64(), 32),
        words_hex(&d.out_words.val().to_words()),
        hex_field(d.out_stream_bits.val().to_u64(), 11),
    ]
    .concat()
}

fn decompressor_line(d: &CdmaZvcDecompressor) -> String {
    [
        hex_field(d.reset.val() as u64, 1),
        hex_field(d.in_valid.val() as u64, 1),
        hex_field(d.in_mask.val().to_u64(), 32),
        words_hex(&d.in_words.val().to_words()),
        hex_field(d.out_ready.val() as u64, 1),
        hex_field(d.in_ready.val() as u64, 1),
        hex_field(d.out_valid.val() as u64, 1),
        words_hex(&d.out_sector.val().to_words()),
        hex_field(d.out_last.val() as u64, 1),
    ]
    .concat()
}

/// Why a run differs from the golden model.
fn first_difference<O: PartialEq + std::fmt::Debug>(name: &str, run: &RunResult<O>, expected: &[O]) -> Result<(), String> {
    if run.outputs.len() != expected.len() {
        return Err(format!("{name}: {} outputs, expected {}", run.outputs.len(), expected.len()));
    }
    match (0..expected.len()).find(|&i| run.outputs[i] != expected[i]) {
        Some(i) => Err(format!("{name}: output {i} differs\n  hdl:    {:?}\n  golden: {:?}", run.outputs[i], expected[i])),
        None => Ok(()),
    }
}

/// Run `entries` through the compressor built `stages` under `traffic` and
/// compare every compressed line with the golden stream; `lockstep` collects one line
/// per cycle (reset included), `vcd` gets a waveform.
///
/// # Errors
/// The first difference, or lines lost.
pub fn run_compressor<R: Rng>(
    stages: Stages,
    entries: &[MemoryEntry],
    traffic: Traffic,
    rng: &mut R,
    lockstep: Option<&mut Vec<String>>,
    vcd: Option<&mut dyn Write>,
) -> Result<RunResult<CompressedLine>, String> {
    let inputs = sector_inputs(entries);
    let expected: Vec<CompressedLine> = entries.iter().map(compressed_line).collect();
    let mut dut = CdmaZvcCompressor::new(stages);
    let max = 40 * inputs.len() as u64 + 100;
    let run = match lockstep {
        Some(lines) => {
            let mut record = |d: &CdmaZvcCompressor| lines.push(compressor_line(d));
            run_stream_with(&mut dut, &inputs, expected.len(), traffic, rng, max, vcd, Some(&mut record))
        }
        None => run_stream_with(&mut dut, &inputs, expected.len(), traffic, rng, max, vcd, None),
    };
    first_difference("cdma_zvc_compressor", &run, &expected)?;
    Ok(run)
}

/// Run `streams` through the decompressor built `stages` under `traffic` and compare every
/// sector with the golden decoding; as [`run_compressor`].
///
/// # Errors
/// The first difference, or sectors lost.
pub fn run_decompressor<R: Rng>(
    stages: Stages,
    streams: &[LineStream],
    traffic: Traffic,
    rng: &mut R,
    lockstep: Option<&mut Vec<String>>,
    vcd: Option<&mut dyn Write>,
) -> Result<RunResult<LineSector>, String> {
    let expected = expected_sectors(streams);
    let mut dut = CdmaZvcDecompressor::new(stages);
    let max = 40 * expected.len() as u64 + 100;
    let run = match lockstep {
        Some(lines) => {
            let mut record = |d: &CdmaZvcDecompressor| lines.push(decompressor_line(d));
            run_stream_with(&mut dut, streams, expected.len(), traffic, rng, max, vcd, Some(&mut record))
        }
        None => run_stream_with(&mut dut, streams, expected.len(), traffic, rng, max, vcd, None),
    };
    first_difference("cdma_zvc_decompressor", &run, &expected)?;
    Ok(run)
}

/// The decompressor's inputs for `entries`: each line's golden stream.
pub fn line_streams(entries: &[MemoryEntry]) -> Vec<LineStream> {
    entries.iter().map(LineStream::of).collect()
}

/// The shared workloads folder beside the checkout (`../shared/data`).
pub fn shared_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")
}

/// Every 128-byte line of every activation map (an allocation whose
/// manifest `role` is `activation`) of every snapshot of every workload
/// folder under `dir`, with the workload names that had any; empty when
/// `dir` is missing.
///
/// # Panics
/// A workload folder that does not open: the shared data are broken.
pub fn activation_lines(dir: &Path) -> (Vec<MemoryEntry>, Vec<String>) {
    use buddy_sim::study::cdma_ratios::ACTIVATION_ROLE;
    use buddy_sim::workload::Workload;
    let Ok(folders) = std::fs::read_dir(dir) else { return (Vec::new(), Vec::new()) };
    let mut folders: Vec<PathBuf> = folders.map(|f| f.unwrap().path()).filter(|p| p.join("manifest.json").is_file()).collect();
    folders.sort();
    let (mut lines, mut names) = (Vec::new(), Vec::new());
    for folder in folders {
        let workload = Workload::open(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        let before = lines.len();
        for snap in workload.snapshots() {
            for a in snap.allocations().filter(|a| a.info().role.as_deref() == Some(ACTIVATION_ROLE)) {
                lines.extend(a.entries());
            }
        }
        if lines.len() > before {
            names.push(workload.manifest().workload.clone());
        }
    }
    (lines, names)
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about cDMA's ZVC engines.

/// cDMA's ZVC compression and decompression engines as delivered modules.
pub mod delivered {
    use super::*;
    use crate::decompress::StoredEntry;
    use crate::modules::{self, DeliveredModule, EquivRun, ModuleKind, VcdWriter, VectorFile};
    use crate::waves::{lockstep_port_names, port_groups, SignalGroup};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Lines (memory-entries) in the lock-step files of cDMA's engines:
    /// about 7 cycles each under random traffic, within the testbench's
    /// 200,000.
    const LOCKSTEP_LINES: usize = 4_000;

    /// The ports of the input handshake (with clock and reset), the first signal group.
    const HANDSHAKE_IN: &[&str] = &["clock", "reset", "in_valid", "in_ready"];

    /// `cdma_zvc_compressor`: one 32-byte sector per cycle.
    pub struct Compressor;

    impl DeliveredModule for Compressor {
        fn ports(&self) -> CosimPorts {
            COMPRESSOR_PORTS
        }
        fn kind(&self) -> ModuleKind {
            ModuleKind::Block
        }
        fn notes(&self) -> Vec<String> {
            vec![
                crate::interface::STREAM.to_string(),
                format!(
                    "cDMA's ZVC compression engine: one 32-byte sector (in_sector, word 0 at [31:0]) per transfer, four per \
                     128-byte line in order; a line's stream (out_mask: bit i set when word i is not zero; out_words: the \
                     non-zero words from word 0, zero after; out_stream_bits = 32 + 32 x non-zero words) is on out_* {} cycles \
                     after its first sector is taken; a line every {} cycles (docs/formats.md#zvc, docs/cdma.md). Built with \
                     its input registered (at most 8 LUT levels between flip-flops); the paper's three-stage build takes {}.",
                    buddy_hdl::cdma_zvc_compressor::latency(Stages::DELIVERED),
                    buddy_hdl::cdma_zvc_compressor::CYCLES_PER_LINE,
                    buddy_hdl::cdma_zvc_compressor::latency(Stages::Paper),
                ),
            ]
        }
        fn built_stages(&self) -> Option<Stages> {
            Some(Stages::DELIVERED)
        }
        fn stream_timing(&self) -> Option<(String, String)> {
            Some((
                format!("{} from a line's first sector", buddy_hdl::cdma_zvc_compressor::latency(Stages::DELIVERED)),
                format!("1 sector, a line per {}", buddy_hdl::cdma_zvc_compressor::CYCLES_PER_LINE),
            ))
        }
        fn shipped_testbench(&self, shipped: &[usize]) -> String {
            let one = shipped.first().copied();
            crate::cosim::lockstep_testbench_shipped(self.name(), COMPRESSOR_LOCKSTEP_INPUTS, COMPRESSOR_LOCKSTEP_OUTPUTS, one)
        }
        fn verilog(&self, revision: &str) -> Result<String, String> {
            modules::emit(CdmaZvcCompressor::default(), self.name(), revision)
        }
        fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
            // Lock-step lines of a random run over the first entries (a failing run is reported by `check`).
            let mut rng = ChaCha8Rng::seed_from_u64(modules::VECTOR_SEED);
            let mut lines = Vec::new();
            let first = &entries[..entries.len().min(LOCKSTEP_LINES)];
            let _ = run_compressor(Stages::DELIVERED, first, Traffic::RANDOM, &mut rng, Some(&mut lines), None);
            vec![VectorFile::vectors(self.name(), lines)]
        }
        fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
            let start = std::time::Instant::now();
            let run = run_compressor(Stages::DELIVERED, entries, traffic, &mut ChaCha8Rng::seed_from_u64(seed), None, None)?;
            Ok(EquivRun { inputs: entries.len(), cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
        }
        fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
            let mut rng = ChaCha8Rng::seed_from_u64(modules::VCD_SEED);
            run_compressor(Stages::DELIVERED, entries, Traffic::RANDOM, &mut rng, None, Some(&mut vcd))?;
            Ok(())
        }
        fn signal_groups(&self) -> Vec<SignalGroup> {
            let rules: &[(&str, &[&str])] = &[("handshake in", HANDSHAKE_IN), ("sector in", &["in_*"]), ("line out", &["out_*"])];
            port_groups(&lockstep_port_names(COMPRESSOR_LOCKSTEP_INPUTS, COMPRESSOR_LOCKSTEP_OUTPUTS), rules, &[])
        }
    }

    /// `cdma_zvc_decompressor`: one 32-byte sector per cycle.
    pub struct Decompressor;

    impl DeliveredModule for Decompressor {
        fn ports(&self) -> CosimPorts {
            DECOMPRESSOR_PORTS
        }
        fn kind(&self) -> ModuleKind {
            ModuleKind::Block
        }
        fn notes(&self) -> Vec<String> {
            vec![
                crate::interface::STREAM.to_string(),
                format!(
                    "cDMA's ZVC decompression engine: one line's stream (in_mask, in_words) per transfer; its four 32-byte \
                     sectors leave on out_sector one per cycle, the first {} cycles after the line is taken, out_last with the \
                     fourth; a line every {} cycles. Every input is valid: words past the mask's count are ignored. Built with \
                     its input registered (at most 8 LUT levels between flip-flops); the paper's build takes {} cycles to the \
                     first sector.",
                    buddy_hdl::cdma_zvc_decompressor::latency(Stages::DELIVERED),
                    buddy_hdl::cdma_zvc_decompressor::CYCLES_PER_LINE,
                    buddy_hdl::cdma_zvc_decompressor::latency(Stages::Paper),
                ),
            ]
        }
        fn built_stages(&self) -> Option<Stages> {
            Some(Stages::DELIVERED)
        }
        fn stream_timing(&self) -> Option<(String, String)> {
            Some((
                format!("{} to a line's first sector", buddy_hdl::cdma_zvc_decompressor::latency(Stages::DELIVERED)),
                format!("1 sector, a line per {}", buddy_hdl::cdma_zvc_decompressor::CYCLES_PER_LINE),
            ))
        }
        fn shipped_testbench(&self, shipped: &[usize]) -> String {
            let one = shipped.first().copied();
            crate::cosim::lockstep_testbench_shipped(self.name(), DECOMPRESSOR_LOCKSTEP_INPUTS, DECOMPRESSOR_LOCKSTEP_OUTPUTS, one)
        }
        fn verilog(&self, revision: &str) -> Result<String, String> {
            modules::emit(CdmaZvcDecompressor::default(), self.name(), revision)
        }
        fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
            // Lock-step lines of a random run over the first entries (a failing run is reported by `check`).
            let mut rng = ChaCha8Rng::seed_from_u64(modules::VECTOR_SEED);
            let mut lines = Vec::new();
            let streams = line_streams(&entries[..entries.len().min(LOCKSTEP_LINES)]);
            let _ = run_decompressor(Stages::DELIVERED, &streams, Traffic::RANDOM, &mut rng, Some(&mut lines), None);
            vec![VectorFile::vectors(self.name(), lines)]
        }
        fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
            let streams = line_streams(entries);
            let start = std::time::Instant::now();
            let run = run_decompressor(Stages::DELIVERED, &streams, traffic, &mut ChaCha8Rng::seed_from_u64(seed), None, None)?;
            Ok(EquivRun { inputs: entries.len(), cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
        }
        fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
            let mut rng = ChaCha8Rng::seed_from_u64(modules::VCD_SEED);
            run_decompressor(Stages::DELIVERED, &line_streams(entries), Traffic::RANDOM, &mut rng, None, Some(&mut vcd))?;
            Ok(())
        }
        fn signal_groups(&self) -> Vec<SignalGroup> {
            let rules: &[(&str, &[&str])] = &[("handshake in", HANDSHAKE_IN), ("line in", &["in_*"]), ("sector out", &["out_*"])];
            port_groups(&lockstep_port_names(DECOMPRESSOR_LOCKSTEP_INPUTS, DECOMPRESSOR_LOCKSTEP_OUTPUTS), rules, &[])
        }
    }
}
