//! The registry of delivered top modules. Each module is a
//! [`DeliveredModule`], implemented beside its block in
//! `delivery/src/<block>.rs` (the section "Delivered module", at the end of
//! the file): its name and co-simulation ports, its Verilog and testbench,
//! its golden vectors, its equivalence check in rust-hdl's simulator, its
//! VCD and its interface-header notes. [`HwModule::all`] lists them in
//! `verilog-out/` order; the CLI (`buddy equiv`, `vectors`, `synth`,
//! `verilog`, `speed`), the `verilog-out/` delivery and the tests derive
//! every list of modules from it.

use crate::cosim::CosimPorts;
use crate::decompress::{self, StoredEntry};
use crate::stream::{run_stream, run_stream_with, StreamDut, Traffic};
use crate::waves::{block_ports, port_groups, Filter, SignalGroup};
use crate::{
    bpc, cdma_zvc, controller, mag_bdi, memory_port, metadata_cache, pipelined_controller, read_planner, request_contexts, sector_gather,
    translation, write_planner, zvc,
};
use buddy_golden::{Codec, HardwareCodec, Mag, MemoryEntry};
use buddy_hdl::Stages;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

/// What a delivered module is, for what the delivery does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleKind {
    /// A stream compressor of a size-class codec: one memory-entry in, its
    /// stored stream out (gets an AXI4-Stream wrapper).
    Compressor,
    /// A stream decompressor of a size-class codec: a stored stream in, the
    /// memory-entry out (gets an AXI4-Stream wrapper).
    Decompressor,
    /// Any other block: cDMA's engines, the translator, the caches, the
    /// pipelined slice's blocks.
    Block,
    /// A whole controller slice (its blocks and codecs are delivered as
    /// modules of their own too); the slices take longest to check,
    /// simulate and synthesize.
    Slice,
}

/// One delivered top module: every fact the delivery, the CLI and the tests
/// need about it. Implemented beside each block; a codec-parameterised
/// module (MAG-BDI at each MAG, a controller slice per [`HardwareCodec`])
/// is one impl with one instance per parameter.
pub trait DeliveredModule: Sync {
    /// The co-simulation ports; `ports().module` is the Verilog module name.
    fn ports(&self) -> CosimPorts;

    /// What the module is.
    fn kind(&self) -> ModuleKind;

    /// The header's notes on the module besides its ports, reset and bit
    /// formats (see [`crate::interface::header`]), one paragraph each.
    fn notes(&self) -> Vec<String>;

    /// The module's Verilog (see `buddy_hdl::verilog::emit`).
    ///
    /// # Errors
    /// A structural check of rust-hdl failed.
    fn verilog(&self, revision: &str) -> Result<String, String>;

    /// Golden `$readmemh` vector files: a compressor gets one line per
    /// entry; a decompressor one per entry as stored, then one per
    /// `malformed` input; the address translator one random access per
    /// entry (one register set); the metadata caches one random operation
    /// per entry then a flush, plus their memory-request file; lock-step
    /// modules one line per cycle of a random run sized by `entries`.
    fn vector_files(&self, entries: &[MemoryEntry], malformed: &[StoredEntry]) -> Vec<VectorFile>;

    /// Run `entries` (and, for a decompressor, `malformed`; for other
    /// modules random traffic sized by `entries`) through the rust-hdl
    /// module under `traffic` and compare every output with the golden
    /// model, in order.
    ///
    /// # Errors
    /// The first difference (index, both values), or outputs lost.
    fn check(&self, entries: &[MemoryEntry], malformed: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String>;

    /// Write a VCD of a short random run (of `entries`, stored for a
    /// decompressor; for the controller slices a request per entry, for
    /// the other blocks random traffic sized by `entries`) to `vcd`; every
    /// scope of the hierarchy is in it.
    ///
    /// # Errors
    /// The run failed.
    fn write_vcd(&self, entries: &[MemoryEntry], vcd: VcdWriter) -> Result<(), String>;

    /// The module's signals grouped as a reader wants them in a waveform
    /// viewer (a stream's handshake, data in, results out; a block's port
    /// groups; a state machine's state), each a path below the VCD's top
    /// scope (`uut`), codes shown by name through a translate filter: what
    /// the `.gtkw` beside the module's VCD shows ([`crate::waves`]).
    fn signal_groups(&self) -> Vec<SignalGroup>;

    /// The Verilog module name, e.g. `mag_bdi32_compressor`.
    fn name(&self) -> &'static str {
        self.ports().module
    }

    /// Whether the module is a whole controller slice ([`ModuleKind::Slice`]).
    fn is_slice(&self) -> bool {
        self.kind() == ModuleKind::Slice
    }

    /// The module's pipeline stages that are sub-modules of their own
    /// (`<name>__<stage>` in its Verilog), for per-stage synthesis figures.
    fn stages(&self) -> &'static [&'static str] {
        &[]
    }

    /// The pipeline depth the delivered module is built with, for modules
    /// built to a [`Stages`] parameter; `None` for the others (which do not
    /// yet offer the 8-level build, #20).
    fn built_stages(&self) -> Option<Stages> {
        None
    }

    /// Latency and initiation interval, as text for reports, from the
    /// module's own constants; `None` for modules whose timing depends on
    /// their traffic (caches, planners, controller slices: docs/controller.md).
    fn stream_timing(&self) -> Option<(String, String)> {
        None
    }

    /// The golden codec a (de)compressor mirrors; `None` for the others.
    fn codec(&self) -> Option<Box<dyn Codec>> {
        None
    }

    /// [`Self::testbench`] that reads the shipped vector files
    /// (`vectors/<file>` of [`Self::vector_files`], `shipped[i]` lines in
    /// file `i`) when no plusargs name files; `&[]`: none shipped. The
    /// default is the stream testbench of [`Self::ports`].
    fn shipped_testbench(&self, shipped: &[usize]) -> String {
        self.ports().shipped_testbench(shipped.first().copied())
    }

    /// The self-checking Verilog testbench `<name>_tb`.
    fn testbench(&self) -> String {
        self.shipped_testbench(&[])
    }
}

/// Makes a fresh value per call (the hardware under test, a golden codec).
pub type Maker<T> = Box<dyn Fn() -> T + Send + Sync>;

/// What every stream codec module (one memory-entry per cycle at most) has
/// besides how its vectors and checks are made.
pub struct StreamCodec<H> {
    /// As [`DeliveredModule::ports`].
    pub ports: CosimPorts,
    /// As [`DeliveredModule::stages`].
    pub stages: &'static [&'static str],
    /// As [`DeliveredModule::built_stages`].
    pub built_stages: Option<Stages>,
    /// Cycles from an entry taken to its result offered.
    pub latency: u64,
    pub hardware: Maker<H>,
    pub codec: Maker<Box<dyn Codec>>,
}

/// Signal groups of a stream compressor: handshake in, entry in, class and
/// size out, payload out.
const COMPRESSOR_GROUPS: &[(&str, &[&str])] = &[
    ("handshake in", &["clock", "reset", "in_valid", "in_ready"]),
    ("entry in", &["in_*"]),
    ("class/size out", &["out_valid", "out_ready", "out_class", "out_stream_bits", "out_encoding"]),
    ("payload out", &["out_*"]),
];

/// Signal groups of a stream decompressor: handshake in, class and payload
/// in, entry out.
const DECOMPRESSOR_GROUPS: &[(&str, &[&str])] =
    &[("handshake in", &["clock", "reset", "in_valid", "in_ready"]), ("class/payload in", &["in_*"]), ("entry out", &["out_*"])];

impl<H: StreamDut + 'static> StreamCodec<H> {
    /// The hardware's ports under `rules`, class ports named.
    fn signal_groups(&self, rules: &[(&str, &[&str])]) -> Vec<SignalGroup> {
        let ports = block_ports(&(self.hardware)());
        let ports: Vec<&str> = ports.iter().map(String::as_str).collect();
        port_groups(&ports, rules, &[("in_class", Filter::SizeClass), ("out_class", Filter::SizeClass)])
    }

    fn stream_timing(&self) -> Option<(String, String)> {
        Some((self.latency.to_string(), "1 entry".into()))
    }

    fn write_vcd(&self, inputs: &[H::Input], vcd: &mut VcdWriter) {
        let mut rng = ChaCha8Rng::seed_from_u64(VCD_SEED);
        run_stream(&mut (self.hardware)(), inputs, Traffic::RANDOM, &mut rng, vcd_max_cycles(inputs.len()), Some(vcd));
    }
}

/// A stream compressor: golden's output per entry (`expected`) and its
/// vector line (`vector`).
pub struct StreamCompressor<H: StreamDut<Input = MemoryEntry>> {
    pub stream: StreamCodec<H>,
    pub expected: Box<dyn Fn(&MemoryEntry) -> H::Output + Send + Sync>,
    pub vector: Box<dyn Fn(&MemoryEntry) -> String + Send + Sync>,
}

impl<H: StreamDut<Input = MemoryEntry> + 'static> DeliveredModule for StreamCompressor<H> {
    fn ports(&self) -> CosimPorts {
        self.stream.ports
    }
    fn kind(&self) -> ModuleKind {
        ModuleKind::Compressor
    }
    fn notes(&self) -> Vec<String> {
        crate::interface::codec_notes(self)
    }
    fn stages(&self) -> &'static [&'static str] {
        self.stream.stages
    }
    fn built_stages(&self) -> Option<Stages> {
        self.stream.built_stages
    }
    fn stream_timing(&self) -> Option<(String, String)> {
        self.stream.stream_timing()
    }
    fn codec(&self) -> Option<Box<dyn Codec>> {
        Some((self.stream.codec)())
    }
    fn verilog(&self, revision: &str) -> Result<String, String> {
        emit((self.stream.hardware)(), self.name(), revision)
    }
    fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
        vec![VectorFile::vectors(self.name(), entries.iter().map(&self.vector).collect())]
    }
    fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
        let expected: Vec<H::Output> = entries.iter().map(&self.expected).collect();
        compare(self.name(), (self.stream.hardware)(), entries, &expected, traffic, seed)
    }
    fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
        self.stream.write_vcd(entries, &mut vcd);
        Ok(())
    }
    fn signal_groups(&self) -> Vec<SignalGroup> {
        self.stream.signal_groups(COMPRESSOR_GROUPS)
    }
}

/// A stream decompressor: checked on every entry as its codec stores it,
/// then on malformed streams.
pub struct StreamDecompressor<H: StreamDut<Input = StoredEntry, Output = decompress::Decompressed>> {
    pub stream: StreamCodec<H>,
}

impl<H: StreamDut<Input = StoredEntry, Output = decompress::Decompressed> + 'static> DeliveredModule for StreamDecompressor<H> {
    fn ports(&self) -> CosimPorts {
        self.stream.ports
    }
    fn kind(&self) -> ModuleKind {
        ModuleKind::Decompressor
    }
    fn notes(&self) -> Vec<String> {
        crate::interface::codec_notes(self)
    }
    fn stages(&self) -> &'static [&'static str] {
        self.stream.stages
    }
    fn built_stages(&self) -> Option<Stages> {
        self.stream.built_stages
    }
    fn stream_timing(&self) -> Option<(String, String)> {
        self.stream.stream_timing()
    }
    fn codec(&self) -> Option<Box<dyn Codec>> {
        Some((self.stream.codec)())
    }
    fn verilog(&self, revision: &str) -> Result<String, String> {
        emit((self.stream.hardware)(), self.name(), revision)
    }
    fn vector_files(&self, entries: &[MemoryEntry], malformed: &[StoredEntry]) -> Vec<VectorFile> {
        decompressor_vectors(self.name(), &*(self.stream.codec)(), entries, malformed)
    }
    fn check(&self, entries: &[MemoryEntry], malformed: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
        check_decompressor(self.name(), &*(self.stream.codec)(), (self.stream.hardware)(), entries, malformed, traffic, seed)
    }
    fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
        self.stream.write_vcd(&stored_inputs(&*(self.stream.codec)(), entries, &[]), &mut vcd);
        Ok(())
    }
    fn signal_groups(&self) -> Vec<SignalGroup> {
        self.stream.signal_groups(DECOMPRESSOR_GROUPS)
    }
}

/// A random run of a lock-step block (see [`LockstepBlock::run`]).
pub type BlockRun = fn(u64, usize, Option<Traffic>, Option<&mut Vec<String>>, Option<&mut dyn Write>) -> Result<(usize, u64), String>;

/// A block of the pipelined slice delivered with a lock-step testbench: its
/// vectors, its check and its VCD are random runs of the block's own
/// driver (every output compared with its cycle model on every cycle).
pub struct LockstepBlock {
    /// As [`DeliveredModule::ports`].
    pub ports: CosimPorts,
    /// The lock-step line's input ports (name, bits), in line order.
    pub inputs: &'static [(&'static str, usize)],
    /// The lock-step line's output ports (name, bits, the valid that qualifies it).
    pub outputs: &'static [(&'static str, usize, &'static str)],
    /// The block's Verilog as module `name` with header `revision`.
    pub verilog: fn(&str, &str) -> Result<String, String>,
    /// The fewest requests of a run, whatever the entry count says.
    pub min_requests: usize,
    /// Its ports' signal groups, `(title, patterns)` rules of
    /// [`port_groups`] over the lock-step ports.
    pub groups: &'static [(&'static str, &'static [&'static str])],
    /// The ports whose codes are shown by name.
    pub filters: &'static [(&'static str, Filter)],
    /// One random run: `(seed, requests, traffic, lines, vcd)`, under the
    /// fixed mix of the vectors and VCDs (`traffic` `None`) or a check's,
    /// recording lock-step `lines` and a `vcd`; returns the inputs compared
    /// and the cycles run, or the first cycle on which the block and its
    /// model differ.
    pub run: BlockRun,
}

impl DeliveredModule for LockstepBlock {
    fn ports(&self) -> CosimPorts {
        self.ports
    }
    fn kind(&self) -> ModuleKind {
        ModuleKind::Block
    }
    fn notes(&self) -> Vec<String> {
        crate::interface::pipelined_block_notes()
    }
    fn shipped_testbench(&self, shipped: &[usize]) -> String {
        crate::cosim::lockstep_testbench_shipped(self.name(), self.inputs, self.outputs, shipped.first().copied())
    }
    fn verilog(&self, revision: &str) -> Result<String, String> {
        (self.verilog)(self.name(), revision)
    }
    fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
        // One request per entry and the drain (a failing run is reported by `check`).
        let mut lines = Vec::new();
        let _ = (self.run)(VECTOR_SEED, entries.len().max(self.min_requests), None, Some(&mut lines), None);
        vec![VectorFile::vectors(self.name(), lines)]
    }
    fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
        let start = std::time::Instant::now();
        let (inputs, cycles) = (self.run)(seed, entries.len().max(self.min_requests), Some(traffic), None, None)
            .map_err(|e| format!("{}: {e}", self.name()))?;
        Ok(EquivRun { inputs, cycles, seconds: start.elapsed().as_secs_f64() })
    }
    fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
        (self.run)(VCD_SEED, entries.len().max(self.min_requests), None, None, Some(&mut vcd))?;
        Ok(())
    }
    fn signal_groups(&self) -> Vec<SignalGroup> {
        port_groups(&crate::waves::lockstep_port_names(self.inputs, self.outputs), self.groups, self.filters)
    }
}

/// A delivered top module of the registry: a copyable handle to its
/// [`DeliveredModule`] (which it dereferences to), equal by name.
#[derive(Clone, Copy)]
pub struct HwModule(&'static dyn DeliveredModule);

impl std::ops::Deref for HwModule {
    type Target = dyn DeliveredModule;

    fn deref(&self) -> &Self::Target {
        self.0
    }
}

impl PartialEq for HwModule {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for HwModule {}

impl std::fmt::Debug for HwModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HwModule({})", self.name())
    }
}

/// The MAGs of the delivered MAG-BDI compressor and decompressor pairs, in
/// `verilog-out/` order (the paper's MAG 32 first).
pub const CODEC_MAGS: [Mag; 3] = [Mag::B32, Mag::B16, Mag::B64];

/// The codecs the controller slices (serial, then pipelined) are delivered
/// with, in `verilog-out/` order.
pub const SLICE_CODECS: [HardwareCodec; 3] = [HardwareCodec::Bpc, HardwareCodec::Zvc, HardwareCodec::MagBdi(Mag::B32)];

impl HwModule {
    /// A handle to `module` (built once: the registry keeps it for the
    /// program's life).
    fn leak(module: impl DeliveredModule + 'static) -> HwModule {
        HwModule(Box::leak(Box::new(module)))
    }

    /// Every delivered module, in `verilog-out/` order: the stream codecs,
    /// cDMA's engines, MAG-BDI at [`CODEC_MAGS`], the translator and the
    /// caches, the pipelined slice's blocks, then the serial and the
    /// pipelined slice at each of [`SLICE_CODECS`]. The one list of
    /// modules: the CLI, `verilog-out/` and the tests derive theirs from it.
    pub fn all() -> &'static [HwModule] {
        static ALL: OnceLock<Vec<HwModule>> = OnceLock::new();
        ALL.get_or_init(|| {
            let mut all = vec![
                HwModule::leak(bpc::delivered::compressor()),
                HwModule::leak(bpc::delivered::decompressor()),
                HwModule::leak(zvc::delivered::compressor()),
                HwModule::leak(zvc::delivered::decompressor()),
                HwModule::leak(cdma_zvc::delivered::Compressor),
                HwModule::leak(cdma_zvc::delivered::Decompressor),
            ];
            for mag in CODEC_MAGS {
                all.push(HwModule::leak(mag_bdi::delivered::compressor(mag)));
                all.push(HwModule::leak(mag_bdi::delivered::decompressor(mag)));
            }
            all.extend([
                HwModule::leak(translation::delivered::Translator),
                HwModule::leak(metadata_cache::delivered::Cache { pipelined: false }),
                HwModule::leak(metadata_cache::delivered::Cache { pipelined: true }),
                HwModule::leak(request_contexts::delivered::CONTEXTS),
                HwModule::leak(sector_gather::delivered::GATHER),
                HwModule::leak(read_planner::delivered::PLANNER),
                HwModule::leak(write_planner::delivered::PLANNER),
                HwModule::leak(memory_port::delivered::PORT),
            ]);
            all.extend(SLICE_CODECS.map(|h| HwModule::leak(controller::delivered::Slice(h))));
            all.extend(SLICE_CODECS.map(|h| HwModule::leak(pipelined_controller::delivered::Slice(h))));
            all
        })
    }

    /// The module named `name`, if delivered.
    pub fn from_name(name: &str) -> Option<HwModule> {
        Self::all().iter().copied().find(|m| m.name() == name)
    }

    /// The controller slice the RTL engine (`buddy sim --engine rtl`)
    /// simulates: the pipelined or the serial slice built with `hardware`,
    /// delivered or not (MAG-BDI 16 and 64 slices are not).
    pub fn slice(hardware: HardwareCodec, pipelined: bool) -> HwModule {
        let name = if pipelined { pipelined_controller::module(hardware) } else { controller::module(hardware) };
        Self::from_name(name).unwrap_or_else(|| {
            if pipelined {
                HwModule::leak(pipelined_controller::delivered::Slice(hardware))
            } else {
                HwModule::leak(controller::delivered::Slice(hardware))
            }
        })
    }

    /// Write a VCD of `entries` (stored, for a decompressor) through the
    /// module under random traffic; every scope of the hierarchy is in it
    /// ([`DeliveredModule::write_vcd`]). Beside it (`<stem>.gtkw` for
    /// `<stem>.vcd`): its GTKWave save file and translate filters
    /// ([`crate::waves::write_save_file`] of [`DeliveredModule::signal_groups`]).
    ///
    /// # Errors
    /// A file cannot be written, the run failed, or a signal group names a
    /// signal the VCD lacks.
    pub fn write_vcd(self, entries: &[MemoryEntry], path: &Path) -> Result<(), String> {
        let file = std::fs::File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let vcd = VcdWriter::new(std::io::BufWriter::new(file));
        self.0.write_vcd(entries, vcd.clone())?;
        vcd.clone().flush().map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        crate::waves::write_save_file(path, &self.signal_groups(), self.name()).map(|_| ())
    }
}

/// Where [`DeliveredModule::write_vcd`] writes: a shared writer, so a run
/// that must own its writer (the controller slices') gets a clone and
/// [`HwModule::write_vcd`] still flushes it and names the file on failure.
#[derive(Clone)]
pub struct VcdWriter(Arc<Mutex<Box<dyn Write + Send>>>);

impl VcdWriter {
    pub fn new(w: impl Write + Send + 'static) -> VcdWriter {
        VcdWriter(Arc::new(Mutex::new(Box::new(w))))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Box<dyn Write + Send>> {
        // A panic mid-write leaves bytes, not a broken writer.
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Write for VcdWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.lock().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.lock().flush()
    }
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

impl VectorFile {
    /// The main file `<module>.hex` (plusargs `vectors`/`count`).
    pub fn vectors(module: &str, lines: Vec<String>) -> VectorFile {
        VectorFile { file: format!("{module}.hex"), plusargs: ("vectors", "count"), lines }
    }
}

/// The seed of the random accesses and operations of
/// [`DeliveredModule::vector_files`].
pub(crate) const VECTOR_SEED: u64 = 0xB0DD;

/// The seed of the random traffic of [`DeliveredModule::write_vcd`].
pub(crate) const VCD_SEED: u64 = 2;

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

/// Cycles a VCD run of `n` stream inputs may take.
pub(crate) fn vcd_max_cycles(n: usize) -> u64 {
    100 * n as u64 + 100
}

/// The decompressor inputs for `entries` (each stored as `codec` stores
/// it) followed by `malformed`.
pub(crate) fn stored_inputs(codec: &dyn Codec, entries: &[MemoryEntry], malformed: &[StoredEntry]) -> Vec<StoredEntry> {
    entries.iter().map(|e| decompress::stored(codec, e)).chain(malformed.iter().copied()).collect()
}

/// The vector file of a stream decompressor of `codec`: one line per entry
/// as stored, then one per `malformed` input.
pub(crate) fn decompressor_vectors(module: &str, codec: &dyn Codec, entries: &[MemoryEntry], malformed: &[StoredEntry]) -> Vec<VectorFile> {
    let lines = stored_inputs(codec, entries, malformed).iter().map(|i| decompress::decompressor_vector(codec, i)).collect();
    vec![VectorFile::vectors(module, lines)]
}

/// [`DeliveredModule::check`] of a stream decompressor of `codec`: every
/// stored entry and malformed input against the golden decoder.
pub(crate) fn check_decompressor<D: StreamDut<Input = StoredEntry, Output = decompress::Decompressed>>(
    module: &str,
    codec: &dyn Codec,
    dut: D,
    entries: &[MemoryEntry],
    malformed: &[StoredEntry],
    traffic: Traffic,
    seed: u64,
) -> Result<EquivRun, String> {
    let inputs = stored_inputs(codec, entries, malformed);
    let expected: Vec<_> = inputs.iter().map(|i| decompress::expected_decompressed(codec, i)).collect();
    compare(module, dut, &inputs, &expected, traffic, seed)
}

/// Run `inputs` through `dut` under `traffic` and compare its outputs with
/// `expected`, in order.
///
/// # Errors
/// Outputs lost, or the first difference (index, both values).
pub(crate) fn compare<D: StreamDut>(
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

/// `uut`'s Verilog as module `name` (see `buddy_hdl::verilog::emit`).
///
/// # Errors
/// A structural check of rust-hdl failed.
pub(crate) fn emit<U: rust_hdl::prelude::Block>(mut uut: U, name: &str, revision: &str) -> Result<String, String> {
    uut.connect_all();
    buddy_hdl::verilog::emit(&uut, name, revision)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found_by_name() {
        let all = HwModule::all();
        for (i, m) in all.iter().enumerate() {
            assert_eq!(HwModule::from_name(m.name()), Some(*m));
            assert!(all[..i].iter().all(|o| o.name() != m.name()), "{} twice", m.name());
        }
        assert_eq!(HwModule::from_name("no_such_module"), None);
    }

    #[test]
    fn the_codec_modules_and_only_they_mirror_a_golden_codec() {
        for m in HwModule::all() {
            let codec = matches!(m.kind(), ModuleKind::Compressor | ModuleKind::Decompressor);
            assert_eq!(m.codec().is_some(), codec, "{}", m.name());
        }
    }

    #[test]
    fn every_slice_codec_has_a_serial_and_a_pipelined_slice() {
        let slices: Vec<&str> = HwModule::all().iter().filter(|m| m.is_slice()).map(|m| m.name()).collect();
        let expected: Vec<&str> =
            SLICE_CODECS.map(controller::module).into_iter().chain(SLICE_CODECS.map(pipelined_controller::module)).collect();
        assert_eq!(slices, expected);
    }
}
