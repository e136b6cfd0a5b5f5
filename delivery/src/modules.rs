//! Every delivered top module in one place: its name and co-simulation
//! ports, its Verilog and testbench, its golden vectors, and its
//! equivalence check in rust-hdl's simulator. The codec modules take
//! memory-entries; the address translator and the metadata cache take
//! random accesses and operations (as many as there are entries). The CLI (`buddy equiv`, `vectors`, `synth`) and
//! the `verilog-out/` delivery iterate over [`HwModule::ALL`].

use crate::cosim::CosimPorts;
use crate::decompress::{self, StoredEntry};
use crate::stream::{run_stream, run_stream_with, StreamDut, Traffic};
use crate::{
    bpc, cdma_zvc, controller, mag_bdi, memory_port, metadata_cache, pipelined_controller, read_planner, request_contexts, sector_gather,
    translation, write_planner, zvc,
};
use buddy_golden::{Bpc, Codec, HardwareCodec, Mag, MagBdi, MemoryEntry, Zvc};
use buddy_hdl::Stages;
use buddy_hdl::{
    AddressTranslator, BpcCompressor, BpcDecompressor, BuddyController, BuddyControllerMagBdi, BuddyControllerZvc, CdmaZvcCompressor,
    CdmaZvcDecompressor, MagBdiCompressor, MagBdiDecompressor, MemoryPort, MetadataCache, PipelinedMetadataCache, ReadPlanner,
    RequestContexts, SectorGather, WritePlanner, ZvcCompressor, ZvcDecompressor,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use rust_hdl::prelude::*;
use std::path::Path;

/// A delivered top module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HwModule {
    BpcCompressor,
    BpcDecompressor,
    ZvcCompressor,
    ZvcDecompressor,
    /// cDMA's ZVC compression engine: one 32-byte sector per cycle.
    CdmaZvcCompressor,
    /// cDMA's ZVC decompression engine: one 32-byte sector per cycle.
    CdmaZvcDecompressor,
    MagBdiCompressor(Mag),
    MagBdiDecompressor(Mag),
    AddressTranslator,
    MetadataCache,
    /// The non-blocking metadata cache of the pipelined slice (hits under
    /// misses, tagged responses).
    PipelinedMetadataCache,
    /// The pipelined slice's request contexts and same-entry guard.
    RequestContexts,
    /// The pipelined slice's payload gather from device and buddy sectors.
    SectorGather,
    /// The pipelined slice's read planner: the sectors a read needs.
    ReadPlanner,
    /// The pipelined slice's write planner: the sector writes of a payload.
    WritePlanner,
    /// The pipelined slice's memory port: requests merged, answers routed.
    MemoryPort,
    /// One memory-controller slice, built with the codecs of an algorithm
    /// that has hardware (delivered: BPC, ZVC and MAG-BDI at MAG 32).
    BuddyController(HardwareCodec),
    /// One pipelined memory-controller slice (up to 128 requests in
    /// flight, tagged responses), built with the codecs of an algorithm
    /// that has hardware (delivered: BPC, ZVC and MAG-BDI at MAG 32).
    PipelinedController(HardwareCodec),
}

/// One `$readmemh` file of a module's testbench.
#[derive(Clone, Debug, PartialEq)]
pub struct VectorFile {
    /// File name, e.g. `metadata_cache_memory.hex`.
    pub file: String,
    /// The testbench plusargs naming the file and its line count
    /// (`vectors`/`count` or `memory`/`memory_count`).
    pub plusargs: (&'static str, &'static str),
    pub lines: Vec<String>,
}

/// The seed of the random accesses and operations of [`HwModule::vector_files`].
const VECTOR_SEED: u64 = 0xB0DD;

/// Lines (memory-entries) in the lock-step files of cDMA's engines: about
/// 7 cycles each under random traffic, within the testbench's 200,000.
const CDMA_LOCKSTEP_LINES: usize = 4_000;

/// What an equivalence run of one module observed.
#[derive(Clone, Debug, PartialEq)]
pub struct EquivRun {
    /// Inputs given (each compared with the golden model).
    pub inputs: usize,
    /// Clock cycles simulated.
    pub cycles: u64,
    /// Wall-clock seconds of the simulation.
    pub seconds: f64,
}

impl HwModule {
    /// Every delivered module, in `verilog-out/` order.
    pub const ALL: [HwModule; 26] = [
        HwModule::BpcCompressor,
        HwModule::BpcDecompressor,
        HwModule::ZvcCompressor,
        HwModule::ZvcDecompressor,
        HwModule::CdmaZvcCompressor,
        HwModule::CdmaZvcDecompressor,
        HwModule::MagBdiCompressor(Mag::B32),
        HwModule::MagBdiDecompressor(Mag::B32),
        HwModule::MagBdiCompressor(Mag::B16),
        HwModule::MagBdiDecompressor(Mag::B16),
        HwModule::MagBdiCompressor(Mag::B64),
        HwModule::MagBdiDecompressor(Mag::B64),
        HwModule::AddressTranslator,
        HwModule::MetadataCache,
        HwModule::PipelinedMetadataCache,
        HwModule::RequestContexts,
        HwModule::SectorGather,
        HwModule::ReadPlanner,
        HwModule::WritePlanner,
        HwModule::MemoryPort,
        HwModule::BuddyController(HardwareCodec::Bpc),
        HwModule::BuddyController(HardwareCodec::Zvc),
        HwModule::BuddyController(HardwareCodec::MagBdi(Mag::B32)),
        HwModule::PipelinedController(HardwareCodec::Bpc),
        HwModule::PipelinedController(HardwareCodec::Zvc),
        HwModule::PipelinedController(HardwareCodec::MagBdi(Mag::B32)),
    ];

    /// The co-simulation ports; `ports().module` is the Verilog module name.
    pub const fn ports(self) -> CosimPorts {
        match self {
            HwModule::BpcCompressor => bpc::COMPRESSOR_PORTS,
            HwModule::BpcDecompressor => bpc::DECOMPRESSOR_PORTS,
            HwModule::ZvcCompressor => zvc::COMPRESSOR_PORTS,
            HwModule::ZvcDecompressor => zvc::DECOMPRESSOR_PORTS,
            HwModule::CdmaZvcCompressor => cdma_zvc::COMPRESSOR_PORTS,
            HwModule::CdmaZvcDecompressor => cdma_zvc::DECOMPRESSOR_PORTS,
            HwModule::MagBdiCompressor(mag) => mag_bdi::compressor_ports(mag),
            HwModule::MagBdiDecompressor(mag) => mag_bdi::decompressor_ports(mag),
            HwModule::AddressTranslator => translation::PORTS,
            HwModule::MetadataCache => metadata_cache::PORTS,
            HwModule::PipelinedMetadataCache => metadata_cache::PIPELINED_PORTS,
            HwModule::RequestContexts => request_contexts::PORTS,
            HwModule::SectorGather => sector_gather::PORTS,
            HwModule::ReadPlanner => read_planner::PORTS,
            HwModule::WritePlanner => write_planner::PORTS,
            HwModule::MemoryPort => memory_port::PORTS,
            HwModule::BuddyController(hardware) => controller::ports(hardware),
            HwModule::PipelinedController(hardware) => pipelined_controller::ports(hardware),
        }
    }

    /// Whether the module is a whole controller slice (its blocks and codecs
    /// are delivered as modules of their own too); the slices take longest
    /// to check, simulate and synthesize.
    pub const fn is_slice(self) -> bool {
        matches!(self, HwModule::BuddyController(_) | HwModule::PipelinedController(_))
    }

    /// The module's pipeline stages that are sub-modules of their own
    /// (`<name>__<stage>` in its Verilog), for per-stage synthesis figures.
    /// The BPC decompressor's 34 parse stages differ only in widths: its
    /// list names stage 1 (class and base), stage 2 (the first plane
    /// symbol, the widest window) and stage 34 (the last).
    pub const fn stages(self) -> &'static [&'static str] {
        match self {
            HwModule::BpcCompressor => &["transform", "order", "runs", "packer"],
            HwModule::BpcDecompressor => &["p__0", "p__1", "p__33", "rebuild_sums", "rebuild_finish"],
            _ => &[],
        }
    }

    /// The pipeline depth the delivered module is built with, for modules
    /// built to a [`Stages`] parameter; `None` for the others (which do not
    /// yet offer the 8-level build, #20).
    pub const fn built_stages(self) -> Option<Stages> {
        match self {
            HwModule::BpcCompressor
            | HwModule::BpcDecompressor
            | HwModule::CdmaZvcCompressor
            | HwModule::CdmaZvcDecompressor
            | HwModule::ZvcCompressor
            | HwModule::ZvcDecompressor => Some(Stages::DELIVERED),
            _ => None,
        }
    }

    /// Latency and initiation interval, as text for reports, from the
    /// module's own constants; `None` for modules whose timing depends on
    /// their traffic (caches, planners, controller slices: docs/controller.md).
    pub fn stream_timing(self) -> Option<(String, String)> {
        let entry = |latency: u64| Some((latency.to_string(), "1 entry".to_string()));
        match self {
            HwModule::BpcCompressor => entry(buddy_hdl::bpc_compressor::latency(Stages::DELIVERED)),
            HwModule::BpcDecompressor => entry(buddy_hdl::bpc_decompressor::latency(Stages::DELIVERED)),
            HwModule::ZvcCompressor => entry(buddy_hdl::zvc_compressor::latency(Stages::DELIVERED)),
            HwModule::ZvcDecompressor => entry(buddy_hdl::zvc_decompressor::latency(Stages::DELIVERED)),
            HwModule::MagBdiCompressor(_) => entry(buddy_hdl::mag_bdi_compressor::latency(Stages::DELIVERED)),
            HwModule::MagBdiDecompressor(_) => entry(buddy_hdl::mag_bdi_decompressor::LATENCY),
            HwModule::CdmaZvcCompressor => Some((
                format!("{} from a line's first sector", buddy_hdl::cdma_zvc_compressor::latency(Stages::DELIVERED)),
                format!("1 sector, a line per {}", buddy_hdl::cdma_zvc_compressor::CYCLES_PER_LINE),
            )),
            HwModule::CdmaZvcDecompressor => Some((
                format!("{} to a line's first sector", buddy_hdl::cdma_zvc_decompressor::latency(Stages::DELIVERED)),
                format!("1 sector, a line per {}", buddy_hdl::cdma_zvc_decompressor::CYCLES_PER_LINE),
            )),
            _ => None,
        }
    }

    /// The self-checking Verilog testbench `<name>_tb`.
    pub fn testbench(self) -> String {
        self.shipped_testbench(&[])
    }

    /// [`Self::testbench`] that reads the shipped vector files
    /// (`vectors/<file>` of [`Self::vector_files`], `shipped[i]` lines in
    /// file `i`) when no plusargs name files; `&[]`: none shipped.
    pub fn shipped_testbench(self, shipped: &[usize]) -> String {
        let one = shipped.first().copied();
        let lockstep = |inputs, outputs| crate::cosim::lockstep_testbench_shipped(self.name(), inputs, outputs, one);
        match self {
            HwModule::MetadataCache | HwModule::PipelinedMetadataCache => {
                let both = match shipped {
                    [ops, memory, ..] => Some((*ops, *memory)),
                    _ => None,
                };
                metadata_cache::shipped_testbench(self == HwModule::PipelinedMetadataCache, both)
            }
            HwModule::CdmaZvcCompressor => lockstep(cdma_zvc::COMPRESSOR_LOCKSTEP_INPUTS, cdma_zvc::COMPRESSOR_LOCKSTEP_OUTPUTS),
            HwModule::CdmaZvcDecompressor => lockstep(cdma_zvc::DECOMPRESSOR_LOCKSTEP_INPUTS, cdma_zvc::DECOMPRESSOR_LOCKSTEP_OUTPUTS),
            HwModule::RequestContexts => lockstep(request_contexts::LOCKSTEP_INPUTS, request_contexts::LOCKSTEP_OUTPUTS),
            HwModule::SectorGather => lockstep(sector_gather::LOCKSTEP_INPUTS, sector_gather::LOCKSTEP_OUTPUTS),
            HwModule::ReadPlanner => lockstep(read_planner::LOCKSTEP_INPUTS, read_planner::LOCKSTEP_OUTPUTS),
            HwModule::WritePlanner => lockstep(write_planner::LOCKSTEP_INPUTS, write_planner::LOCKSTEP_OUTPUTS),
            HwModule::MemoryPort => lockstep(memory_port::LOCKSTEP_INPUTS, memory_port::LOCKSTEP_OUTPUTS),
            HwModule::BuddyController(_) => lockstep(controller::LOCKSTEP_INPUTS, controller::LOCKSTEP_OUTPUTS),
            HwModule::PipelinedController(_) => lockstep(pipelined_controller::LOCKSTEP_INPUTS, pipelined_controller::LOCKSTEP_OUTPUTS),
            _ => self.ports().shipped_testbench(one),
        }
    }

    /// The Verilog module name, e.g. `mag_bdi32_compressor`.
    pub const fn name(self) -> &'static str {
        self.ports().module
    }

    /// The module named `name`, if delivered.
    pub fn from_name(name: &str) -> Option<HwModule> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The golden codec a (de)compressor mirrors; `None` for the others.
    pub fn codec(self) -> Option<Box<dyn Codec>> {
        match self {
            HwModule::BpcCompressor | HwModule::BpcDecompressor => Some(Box::new(Bpc)),
            HwModule::ZvcCompressor | HwModule::ZvcDecompressor => Some(Box::new(Zvc)),
            HwModule::MagBdiCompressor(mag) | HwModule::MagBdiDecompressor(mag) => Some(Box::new(MagBdi::new(mag))),
            // cDMA's engines mirror `zvc::LineStream`, not a size-class codec.
            HwModule::CdmaZvcCompressor
            | HwModule::CdmaZvcDecompressor
            | HwModule::AddressTranslator
            | HwModule::MetadataCache
            | HwModule::PipelinedMetadataCache
            | HwModule::RequestContexts
            | HwModule::SectorGather
            | HwModule::ReadPlanner
            | HwModule::WritePlanner
            | HwModule::MemoryPort
            | HwModule::BuddyController(_)
            | HwModule::PipelinedController(_) => None,
        }
    }

    /// The module's Verilog (see `buddy_hdl::verilog::emit`).
    ///
    /// # Errors
    /// A structural check of rust-hdl failed.
    pub fn verilog(self, revision: &str) -> Result<String, String> {
        fn emit<U: Block>(mut uut: U, name: &str, revision: &str) -> Result<String, String> {
            uut.connect_all();
            buddy_hdl::verilog::emit(&uut, name, revision)
        }
        let name = self.name();
        match self {
            HwModule::BpcCompressor => emit(BpcCompressor::default(), name, revision),
            HwModule::BpcDecompressor => emit(BpcDecompressor::default(), name, revision),
            HwModule::ZvcCompressor => emit(ZvcCompressor::default(), name, revision),
            HwModule::ZvcDecompressor => emit(ZvcDecompressor::default(), name, revision),
            HwModule::CdmaZvcCompressor => emit(CdmaZvcCompressor::default(), name, revision),
            HwModule::CdmaZvcDecompressor => emit(CdmaZvcDecompressor::default(), name, revision),
            HwModule::MagBdiCompressor(mag) => emit(MagBdiCompressor::new(mag), name, revision),
            HwModule::MagBdiDecompressor(mag) => emit(MagBdiDecompressor::new(mag), name, revision),
            HwModule::AddressTranslator => emit(AddressTranslator::default(), name, revision),
            HwModule::MetadataCache => emit(MetadataCache::default(), name, revision),
            HwModule::PipelinedMetadataCache => emit(PipelinedMetadataCache::default(), name, revision),
            HwModule::RequestContexts => emit(RequestContexts::default(), name, revision),
            HwModule::SectorGather => emit(SectorGather::default(), name, revision),
            HwModule::ReadPlanner => emit(ReadPlanner::default(), name, revision),
            HwModule::WritePlanner => emit(WritePlanner::default(), name, revision),
            HwModule::MemoryPort => emit(MemoryPort::default(), name, revision),
            HwModule::BuddyController(HardwareCodec::Bpc) => emit(BuddyController::default(), name, revision),
            HwModule::BuddyController(HardwareCodec::Zvc) => emit(BuddyControllerZvc::default(), name, revision),
            HwModule::BuddyController(HardwareCodec::MagBdi(mag)) => emit(BuddyControllerMagBdi::new(mag), name, revision),
            // Built on a thread with room for it (several megabytes).
            HwModule::PipelinedController(hardware) => pipelined_controller::verilog(hardware, name, revision),
        }
    }

    /// The decompressor inputs for `entries` (each stored as the golden
    /// compressor stores it) followed by `malformed`.
    fn stored_inputs(&self, entries: &[MemoryEntry], malformed: &[StoredEntry]) -> Vec<StoredEntry> {
        let Some(codec) = self.codec() else { return Vec::new() };
        entries.iter().map(|e| decompress::stored(codec.as_ref(), e)).chain(malformed.iter().copied()).collect()
    }

    /// Golden `$readmemh` vector files: a compressor gets one line per
    /// entry; a decompressor one per entry as stored, then one per
    /// `malformed` input; the address translator one random access per
    /// entry (one register set), the metadata cache one random operation
    /// per entry then a flush, plus its memory-request file.
    pub fn vector_files(self, entries: &[MemoryEntry], malformed: &[StoredEntry]) -> Vec<VectorFile> {
        let vectors = |lines| VectorFile { file: format!("{}.hex", self.name()), plusargs: ("vectors", "count"), lines };
        let mut rng = ChaCha8Rng::seed_from_u64(VECTOR_SEED);
        match self {
            HwModule::BpcCompressor => vec![vectors(entries.iter().map(bpc::compressor_vector).collect())],
            HwModule::ZvcCompressor => vec![vectors(entries.iter().map(zvc::compressor_vector).collect())],
            HwModule::MagBdiCompressor(mag) => vec![vectors(entries.iter().map(|e| mag_bdi::compressor_vector(mag, e)).collect())],
            HwModule::BpcDecompressor | HwModule::ZvcDecompressor | HwModule::MagBdiDecompressor(_) => {
                let codec = self.codec().expect("a decompressor has a codec");
                vec![vectors(
                    self.stored_inputs(entries, malformed).iter().map(|i| decompress::decompressor_vector(codec.as_ref(), i)).collect(),
                )]
            }
            HwModule::CdmaZvcCompressor => {
                // Lock-step lines of a random run over the first entries (a failing run is reported by `check`).
                let mut lines = Vec::new();
                let _ = cdma_zvc::run_compressor(
                    Stages::DELIVERED,
                    &entries[..entries.len().min(CDMA_LOCKSTEP_LINES)],
                    Traffic::RANDOM,
                    &mut rng,
                    Some(&mut lines),
                    None,
                );
                vec![vectors(lines)]
            }
            HwModule::CdmaZvcDecompressor => {
                // Lock-step lines of a random run over the first entries (a failing run is reported by `check`).
                let mut lines = Vec::new();
                let streams = cdma_zvc::line_streams(&entries[..entries.len().min(CDMA_LOCKSTEP_LINES)]);
                let _ = cdma_zvc::run_decompressor(Stages::DELIVERED, &streams, Traffic::RANDOM, &mut rng, Some(&mut lines), None);
                vec![vectors(lines)]
            }
            HwModule::AddressTranslator => {
                vec![vectors(translation::random_accesses(entries.len(), &mut rng).iter().map(translation::vector).collect())]
            }
            HwModule::MetadataCache | HwModule::PipelinedMetadataCache => {
                let (ops, memory) = metadata_cache::vector_lines(&self.cache_ops(entries.len(), &mut rng));
                vec![
                    vectors(ops),
                    VectorFile { file: format!("{}_memory.hex", self.name()), plusargs: ("memory", "memory_count"), lines: memory },
                ]
            }
            HwModule::RequestContexts => {
                // Lock-step lines of a random run, one cycle per entry (a failing run is reported by `check`).
                let mut lines = Vec::new();
                let _ = request_contexts::run(VECTOR_SEED, entries.len().max(100), 0.8, 0.1, Some(&mut lines), None);
                vec![vectors(lines)]
            }
            HwModule::SectorGather => {
                // Lock-step lines of a random run, one cycle per entry and the drain (a failing run is reported by `check`).
                let mut lines = Vec::new();
                let _ = sector_gather::run(VECTOR_SEED, entries.len().max(300), 0.3, 0.8, 0.7, Some(&mut lines), None);
                vec![vectors(lines)]
            }
            HwModule::ReadPlanner => {
                // Lock-step lines of a random run, one cycle per entry and the drain (a failing run is reported by `check`).
                let mut lines = Vec::new();
                let _ = read_planner::run(VECTOR_SEED, entries.len().max(300), 0.5, 0.7, Some(&mut lines), None);
                vec![vectors(lines)]
            }
            HwModule::WritePlanner => {
                // Lock-step lines of a random run, one cycle per entry and the drain (a failing run is reported by `check`).
                let mut lines = Vec::new();
                let _ = write_planner::run(VECTOR_SEED, entries.len().max(300), 0.5, 0.7, Some(&mut lines), None);
                vec![vectors(lines)]
            }
            HwModule::MemoryPort => {
                // Lock-step lines of a random run, one cycle per entry and the drain (a failing run is reported by `check`).
                let mut lines = Vec::new();
                let _ = memory_port::run(VECTOR_SEED, entries.len().max(300), 0.4, 0.7, Some(&mut lines), None);
                vec![vectors(lines)]
            }
            HwModule::BuddyController(hardware) => {
                let mixed = controller::mixed_entries(entries, VECTOR_SEED);
                // A scenario that fails is a bug the equivalence tests report; no vectors then.
                vec![vectors(
                    controller::lockstep_lines(hardware, &mixed, (entries.len() / 16).clamp(20, 400), 100_000).unwrap_or_default(),
                )]
            }
            HwModule::PipelinedController(hardware) => {
                // Lock-step lines of a random run with its own scenario pages
                // (a failing run is reported by `check`).
                let requests = (entries.len() / 16).clamp(20, 400);
                vec![vectors(
                    pipelined_controller::lockstep_lines(hardware, VECTOR_SEED, requests, 0.4, 20).map(|(_, l)| l).unwrap_or_default(),
                )]
            }
        }
    }

    /// `n` random cache operations then a flush.
    fn cache_ops(self, n: usize, rng: &mut ChaCha8Rng) -> Vec<metadata_cache::CacheOp> {
        let mut ops = metadata_cache::random_ops(n, rng);
        ops.push(metadata_cache::CacheOp::Flush);
        ops
    }

    /// Run `entries` (and, for a decompressor, `malformed`) through the
    /// rust-hdl module under `traffic` and compare every output with the
    /// golden model, in order.
    ///
    /// # Errors
    /// The first difference (index, both values), or outputs lost.
    pub fn check(self, entries: &[MemoryEntry], malformed: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
        match self {
            HwModule::BpcCompressor => {
                let expected: Vec<_> = entries.iter().map(|e| Bpc.compress(e)).collect();
                compare(self.name(), BpcCompressor::default(), entries, &expected, traffic, seed)
            }
            HwModule::ZvcCompressor => {
                let expected: Vec<_> = entries.iter().map(|e| Zvc.compress(e)).collect();
                compare(self.name(), ZvcCompressor::default(), entries, &expected, traffic, seed)
            }
            HwModule::MagBdiCompressor(mag) => {
                let expected: Vec<_> = entries.iter().map(|e| mag_bdi::expected_compressed(mag, e)).collect();
                compare(self.name(), MagBdiCompressor::new(mag), entries, &expected, traffic, seed)
            }
            HwModule::BpcDecompressor => self.check_decompressor(BpcDecompressor::default(), entries, malformed, traffic, seed),
            HwModule::ZvcDecompressor => self.check_decompressor(ZvcDecompressor::default(), entries, malformed, traffic, seed),
            HwModule::MagBdiDecompressor(mag) => self.check_decompressor(MagBdiDecompressor::new(mag), entries, malformed, traffic, seed),
            HwModule::CdmaZvcCompressor => {
                let start = std::time::Instant::now();
                let run = cdma_zvc::run_compressor(Stages::DELIVERED, entries, traffic, &mut ChaCha8Rng::seed_from_u64(seed), None, None)?;
                Ok(EquivRun { inputs: entries.len(), cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
            }
            HwModule::CdmaZvcDecompressor => {
                let streams = cdma_zvc::line_streams(entries);
                let start = std::time::Instant::now();
                let run =
                    cdma_zvc::run_decompressor(Stages::DELIVERED, &streams, traffic, &mut ChaCha8Rng::seed_from_u64(seed), None, None)?;
                Ok(EquivRun { inputs: entries.len(), cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
            }
            HwModule::AddressTranslator => {
                let accesses = translation::random_accesses(entries.len(), &mut ChaCha8Rng::seed_from_u64(seed));
                let expected: Vec<_> = accesses.iter().map(translation::expected_translation).collect();
                compare(self.name(), AddressTranslator::default(), &accesses, &expected, traffic, seed)
            }
            HwModule::MetadataCache | HwModule::PipelinedMetadataCache => self.check_cache(entries.len(), traffic, seed),
            HwModule::RequestContexts => {
                // Random allocations and frees instead of stream traffic: one cycle per entry.
                let start = std::time::Instant::now();
                let run = request_contexts::run(seed, entries.len().max(100), traffic.p_valid, 0.1, None, None)
                    .map_err(|e| format!("{}: {e}", self.name()))?;
                Ok(EquivRun { inputs: run.cycles as usize, cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
            }
            HwModule::SectorGather => {
                // Random reads planned and answered instead of stream traffic: one cycle per entry, then the drain.
                let start = std::time::Instant::now();
                let run = sector_gather::run(seed, entries.len().max(300), traffic.p_valid * 0.5, 0.8, traffic.p_ready, None, None)
                    .map_err(|e| format!("{}: {e}", self.name()))?;
                Ok(EquivRun { inputs: run.reads, cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
            }
            HwModule::ReadPlanner => {
                // Random reads planned instead of stream traffic: one cycle per entry, then the drain.
                let start = std::time::Instant::now();
                let run = read_planner::run(seed, entries.len().max(300), traffic.p_valid, traffic.p_ready, None, None)
                    .map_err(|e| format!("{}: {e}", self.name()))?;
                let jobs = run.full + run.slots + run.finishes;
                Ok(EquivRun { inputs: jobs, cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
            }
            HwModule::WritePlanner => {
                // Random writes stored instead of stream traffic: one cycle per entry, then the drain.
                let start = std::time::Instant::now();
                let run = write_planner::run(seed, entries.len().max(300), traffic.p_valid, traffic.p_ready, None, None)
                    .map_err(|e| format!("{}: {e}", self.name()))?;
                let jobs = run.compressed + run.uncompressed;
                Ok(EquivRun { inputs: jobs, cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
            }
            HwModule::MemoryPort => {
                // Random requests and out-of-order answers instead of stream traffic: one cycle per entry, then the drain.
                let start = std::time::Instant::now();
                let run = memory_port::run(seed, entries.len().max(300), traffic.p_valid * 0.5, traffic.p_ready, None, None)
                    .map_err(|e| format!("{}: {e}", self.name()))?;
                let requests = run.fills + run.write_backs + run.writes + run.reads;
                Ok(EquivRun { inputs: requests, cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
            }
            HwModule::BuddyController(hardware) => {
                // The slice is driven by its memory models, not by random traffic.
                let mixed = controller::mixed_entries(entries, seed);
                let requests = (entries.len() / 4).clamp(100, 2000);
                let start = std::time::Instant::now();
                let cycle_ps = buddy_sim::config::SimConfig::default().cycle_ps();
                // The three modes are independent runs: a core each.
                let cycles = buddy_sim::memory_system::Mode::ALL
                    .par_iter()
                    .map(|&mode| {
                        let (_, rtl) = controller::compare_engines(mode, hardware, &mixed, requests, seed)?;
                        Ok((rtl.end_ps as f64 / cycle_ps) as u64)
                    })
                    .sum::<Result<u64, String>>()?;
                Ok(EquivRun { inputs: 3 * requests, cycles, seconds: start.elapsed().as_secs_f64() })
            }
            HwModule::PipelinedController(hardware) => {
                // Random reads and writes over the slice's own scenario pages, memory answering out of order.
                let requests = (entries.len() / 4).clamp(100, 2000);
                let start = std::time::Instant::now();
                let run = pipelined_controller::run(hardware, seed, requests, 0.4, traffic.p_valid, traffic.p_ready, 30)
                    .map_err(|e| format!("{}: {e}", self.name()))?;
                Ok(EquivRun { inputs: requests, cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
            }
        }
    }

    fn check_cache(self, n: usize, traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let ops = self.cache_ops(n, &mut rng);
        let (responses, requests) = metadata_cache::expected(&ops);
        let stalls = metadata_cache::CacheTraffic {
            p_request: traffic.p_valid,
            p_response_ready: traffic.p_ready,
            ..metadata_cache::CacheTraffic::RANDOM
        };
        let start = std::time::Instant::now();
        let max = 400 * ops.len() as u64 + 1000;
        let run = if self == HwModule::PipelinedMetadataCache {
            metadata_cache::run_pipelined_cache(&mut PipelinedMetadataCache::default(), &ops, stalls, 1, &mut rng, max, None, None)?
        } else {
            metadata_cache::run_cache(&mut MetadataCache::default(), &ops, stalls, &mut rng, max, None)
        };
        let seconds = start.elapsed().as_secs_f64();
        let name = self.name();
        if run.responses.len() != ops.len() {
            return Err(format!("{name}: {} responses for {} operations", run.responses.len(), ops.len()));
        }
        if let Some(i) = (0..ops.len()).find(|&i| run.responses[i] != responses[i]) {
            return Err(format!(
                "{name}: response {i} to {:?} differs:\n  hdl:    {:?}\n  golden: {:?}",
                ops[i], run.responses[i], responses[i]
            ));
        }
        if let Some(i) = (0..requests.len().max(run.memory_requests.len())).find(|&i| run.memory_requests.get(i) != requests.get(i)) {
            return Err(format!(
                "{name}: memory request {i} differs:\n  hdl:    {:?}\n  golden: {:?}",
                run.memory_requests.get(i),
                requests.get(i)
            ));
        }
        Ok(EquivRun { inputs: ops.len(), cycles: run.cycles, seconds })
    }

    fn check_decompressor<D: StreamDut<Input = StoredEntry, Output = decompress::Decompressed>>(
        self,
        dut: D,
        entries: &[MemoryEntry],
        malformed: &[StoredEntry],
        traffic: Traffic,
        seed: u64,
    ) -> Result<EquivRun, String> {
        let codec = self.codec().expect("a decompressor has a codec");
        let inputs = self.stored_inputs(entries, malformed);
        let expected: Vec<_> = inputs.iter().map(|i| decompress::expected_decompressed(codec.as_ref(), i)).collect();
        compare(self.name(), dut, &inputs, &expected, traffic, seed)
    }

    /// Write a VCD of `entries` (stored, for a decompressor) through the
    /// module under random traffic; every scope of the hierarchy is in it.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write_vcd(self, entries: &[MemoryEntry], path: &Path) -> Result<(), String> {
        let file = std::fs::File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let mut w = std::io::BufWriter::new(file);
        if let HwModule::PipelinedController(hardware) = self {
            pipelined_controller::write_vcd(hardware, 2, 100, Box::new(w))?;
            return Ok(());
        }
        if let HwModule::BuddyController(hardware) = self {
            let setup = controller::RtlSetup { vcd: Some(Box::new(w)), ..Default::default() };
            let mixed = controller::mixed_entries(entries, 2);
            let mode = buddy_sim::memory_system::Mode::Buddy;
            return controller::run_scenario_with(mode, hardware, &mixed, 50, 2, Some(setup)).map(|_| ());
        }
        let stored = self.stored_inputs(entries, &[]);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let max = 100 * entries.len() as u64 + 100;
        match self {
            HwModule::BpcCompressor => {
                run_stream(&mut BpcCompressor::default(), entries, Traffic::RANDOM, &mut rng, max, Some(&mut w));
            }
            HwModule::ZvcCompressor => {
                run_stream(&mut ZvcCompressor::default(), entries, Traffic::RANDOM, &mut rng, max, Some(&mut w));
            }
            HwModule::MagBdiCompressor(mag) => {
                run_stream(&mut MagBdiCompressor::new(mag), entries, Traffic::RANDOM, &mut rng, max, Some(&mut w));
            }
            HwModule::BpcDecompressor => {
                run_stream(&mut BpcDecompressor::default(), &stored, Traffic::RANDOM, &mut rng, max, Some(&mut w));
            }
            HwModule::ZvcDecompressor => {
                run_stream(&mut ZvcDecompressor::default(), &stored, Traffic::RANDOM, &mut rng, max, Some(&mut w));
            }
            HwModule::MagBdiDecompressor(mag) => {
                run_stream(&mut MagBdiDecompressor::new(mag), &stored, Traffic::RANDOM, &mut rng, max, Some(&mut w));
            }
            HwModule::CdmaZvcCompressor => {
                cdma_zvc::run_compressor(Stages::DELIVERED, entries, Traffic::RANDOM, &mut rng, None, Some(&mut w))?;
            }
            HwModule::CdmaZvcDecompressor => {
                cdma_zvc::run_decompressor(
                    Stages::DELIVERED,
                    &cdma_zvc::line_streams(entries),
                    Traffic::RANDOM,
                    &mut rng,
                    None,
                    Some(&mut w),
                )?;
            }
            HwModule::AddressTranslator => {
                let accesses = translation::random_accesses(entries.len(), &mut rng);
                run_stream(&mut AddressTranslator::default(), &accesses, Traffic::RANDOM, &mut rng, max, Some(&mut w));
            }
            HwModule::MetadataCache => {
                let ops = self.cache_ops(entries.len(), &mut rng);
                let stalls = metadata_cache::CacheTraffic::RANDOM;
                metadata_cache::run_cache(&mut MetadataCache::default(), &ops, stalls, &mut rng, 400 * max, Some(&mut w));
            }
            HwModule::RequestContexts => {
                request_contexts::run(2, entries.len().max(100), 0.8, 0.1, None, Some(&mut w))?;
            }
            HwModule::SectorGather => {
                sector_gather::run(2, entries.len().max(300), 0.3, 0.8, 0.7, None, Some(&mut w))?;
            }
            HwModule::ReadPlanner => {
                read_planner::run(2, entries.len().max(300), 0.5, 0.7, None, Some(&mut w))?;
            }
            HwModule::WritePlanner => {
                write_planner::run(2, entries.len().max(300), 0.5, 0.7, None, Some(&mut w))?;
            }
            HwModule::MemoryPort => {
                memory_port::run(2, entries.len().max(300), 0.4, 0.7, None, Some(&mut w))?;
            }
            HwModule::PipelinedMetadataCache => {
                let ops = self.cache_ops(entries.len(), &mut rng);
                let stalls = metadata_cache::CacheTraffic::RANDOM;
                let dut = &mut PipelinedMetadataCache::default();
                metadata_cache::run_pipelined_cache(dut, &ops, stalls, 20, &mut rng, 400 * max, Some(&mut w), None)?;
            }
            HwModule::BuddyController(_) | HwModule::PipelinedController(_) => {} // written above
        }
        use std::io::Write;
        w.flush().map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

fn compare<D: StreamDut>(
    name: &str,
    mut dut: D,
    inputs: &[D::Input],
    expected: &[D::Output],
    traffic: Traffic,
    seed: u64,
) -> Result<EquivRun, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let start = std::time::Instant::now();
    let max = 50 * (inputs.len() + expected.len()) as u64 + 100;
    let run = run_stream_with(&mut dut, inputs, expected.len(), traffic, &mut rng, max, None, None);
    let seconds = start.elapsed().as_secs_f64();
    if run.outputs.len() != expected.len() {
        return Err(format!("{name}: {} outputs for {} inputs", run.outputs.len(), expected.len()));
    }
    let mismatches: Vec<usize> = (0..expected.len()).filter(|&i| run.outputs[i] != expected[i]).collect();
    if let Some(&i) = mismatches.first() {
        return Err(format!(
            "{name}: {} of {} outputs differ from the golden model; first at input {i}:\n  hdl:    {:?}\n  golden: {:?}",
            mismatches.len(),
            expected.len(),
            run.outputs[i],
            expected[i]
        ));
    }
    Ok(EquivRun { inputs: inputs.len(), cycles: run.cycles, seconds })
}
