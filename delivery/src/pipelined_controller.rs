//! Adapters for the `PipelinedController`: a driver that sends random
//! reads, full writes and partial writes to a memory image built by the
//! golden slice (every target ratio, uncompressed pages, never-written
//! entries, an entry whose size nibble is reserved, faulting accesses),
//! then a flush; plays device memory and buddy-memory answering each sector
//! read 1-`max_latency` cycles later in any order; checks every tagged
//! response against the golden slice's answer to the same request (served
//! in request order), and memory after the flush against golden's. Beside
//! the hardware runs its cycle model (`buddy_hdl_model`, the fast engine's
//! timing of the slice) on the same inputs, its outputs compared with the
//! hardware's on every cycle.

use std::collections::HashMap;

use crate::entries::random_entries;
use crate::harness::Harness;
use buddy_golden::controller_slice::{write_nibble_in_memory, ControllerSlice, SliceConfig, SliceError, SliceMemory};
use buddy_golden::metadata_cache::{MetadataCacheConfig, Outcome, SectorMemory};
use buddy_golden::translation::{translate_entry, BuddyRegisters, PageSize, Pte, TranslationFault};
use buddy_golden::{Algorithm, HardwareCodec, Mag, SizeClass};
use buddy_hdl::address_translator::fault;
use buddy_hdl::metadata_cache::outcome as md_outcome;
use buddy_hdl::{PipelinedController, PipelinedControllerMagBdi, PipelinedControllerZvc};
use buddy_hdl_model::memory_port::MemRequest;
use buddy_hdl_model::pipelined_controller::{PipelinedControllerModel, RequestFacts, SliceIn, SliceOut, SliceResponse};
use buddy_hdl_model::CycleModel;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use std::io::Write;

/// Device memory and buddy-memory as bytes (unwritten bytes read as zero).
#[derive(Debug, Clone, Default)]
pub struct ByteMemory {
    device: HashMap<u64, u8>,
    buddy: HashMap<u64, u8>,
}

impl ByteMemory {
    fn read(space: &HashMap<u64, u8>, address: u64, out: &mut [u8]) {
        for (i, b) in out.iter_mut().enumerate() {
            *b = space.get(&(address + i as u64)).copied().unwrap_or(0);
        }
    }
    fn write(space: &mut HashMap<u64, u8>, address: u64, data: &[u8]) {
        for (i, &b) in data.iter().enumerate() {
            space.insert(address + i as u64, b);
        }
    }
    /// One 32-byte sector of device (`buddy` false) or buddy-memory as 8 words.
    fn sector(&self, buddy: bool, address: u64) -> [u32; 8] {
        let mut bytes = [0u8; 32];
        Self::read(if buddy { &self.buddy } else { &self.device }, address, &mut bytes);
        std::array::from_fn(|m| u32::from_le_bytes(bytes[4 * m..4 * m + 4].try_into().expect("4 bytes")))
    }
}

impl SectorMemory for ByteMemory {
    fn read_sector(&mut self, address: u64, data: &mut [u8]) {
        Self::read(&self.device, address, data);
    }
    fn write_sector(&mut self, address: u64, data: &[u8]) {
        Self::write(&mut self.device, address, data);
    }
}

impl SliceMemory for ByteMemory {
    fn read_device(&mut self, address: u64, out: &mut [u8]) {
        Self::read(&self.device, address, out);
    }
    fn write_device(&mut self, address: u64, data: &[u8]) {
        Self::write(&mut self.device, address, data);
    }
    fn read_buddy(&mut self, address: u64, out: &mut [u8]) {
        Self::read(&self.buddy, address, out);
    }
    fn write_buddy(&mut self, address: u64, data: &[u8]) {
        Self::write(&mut self.buddy, address, data);
    }
}

/// A request: the page, the address and, for a write, its sector mask
/// and data.
#[derive(Debug, Clone, Copy)]
struct Read {
    pte: Pte,
    va: u64,
    write: Option<(u8, [u32; 32])>,
}

/// What the slice answers (as its ports hold it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Entry([u32; 32]),
    Written,
    Fault(u64),
    DecodeError,
}

/// What a run observed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PipelinedRun {
    pub reads: usize,
    pub writes: usize,
    pub partial_writes: usize,
    pub faults: usize,
    pub decode_errors: usize,
    /// Most requests in the slice at once (its `in_flight`).
    pub most_in_flight: usize,
    /// Responses that overtook an earlier request.
    pub out_of_order: usize,
    /// Writes taken while a read of their memory-entry was in flight
    /// (its memory reads taken: the guard lets the write pass).
    pub writes_past_reads: usize,
    /// Writes taken while another write of their memory-entry was in
    /// flight (an uncompressed page's, taken by the write planner).
    pub writes_past_writes: usize,
    /// Metadata lookups that missed the line (`md_lookup_outcome` 2).
    pub line_misses: usize,
    /// Memory reads of a whole run of 4 sectors.
    pub whole_runs: usize,
    /// Memory writes of a whole run of 4 sectors.
    pub whole_writes: usize,
    /// Reads answered sooner after their last sector than the
    /// decompressor's latency (RAW entries, past it).
    pub past_decompressor: usize,
    /// Reads of a compressed page that read no sector (ZERO entries), and
    /// of them those answered sooner after their metadata lookup than the
    /// decompressor's latency (past it).
    pub zero_reads: usize,
    pub zero_past_decompressor: usize,
    pub cycles: u64,
}

const PAGE: PageSize = PageSize::Small64K;

/// Where a run's requests go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Pages of every target ratio, side by side.
    Dense,
    /// Metadata line misses, dirty victims written back and victims
    /// pinned by writes in flight: every page's metadata lines in one set.
    Spread,
    /// Writes to an uncompressed page's entry taken while earlier writes
    /// of it are in flight: half the requests to 4 of its entries.
    Hot,
}

/// The memory image and the reads of a run: pages of every target ratio
/// (and one uncompressed, one with a reserved target code), each with
/// entries stored by the golden slice, some never written, one with a
/// reserved size nibble.
///
/// `Layout::Spread`: every kind twice (14 pages) 1 MiB apart (virtual and
/// physical; metadata is indexed by the virtual address), so that all their
/// metadata lines fall in one set of the metadata cache (4 ways), with the
/// entries used spread over 8 metadata sectors per page: line misses,
/// dirty victims written back, victims pinned by writes in flight.
/// `Layout::Hot`: half the requests go to 4 entries of the uncompressed
/// page (writes after writes of one entry, no metadata).
fn scenario(
    algorithm: Algorithm,
    rng: &mut ChaCha8Rng,
    reads: usize,
    p_write: f64,
    layout: Layout,
) -> (BuddyRegisters, ByteMemory, Vec<Read>) {
    let spread = layout == Layout::Spread;
    let regs = BuddyRegisters { gbbr: 0x40_0000_0000, carve_out_bytes: 1 << 30, md_base: 0x10_0000_0000, heap_base: 0x1_0000_0000 };
    let config = SliceConfig { algorithm, metadata_cache: MetadataCacheConfig::default(), regs, page: PAGE };
    let golden = ControllerSlice::new(config).expect("the default cache geometry");
    let mut memory = ByteMemory::default();
    // (compressed, target code) of each page; target 5 is reserved.
    let kinds = [(true, 0u8), (true, 1), (true, 2), (true, 3), (true, 4), (false, 0), (true, 5)];
    let copies = if spread { 2 } else { 1 };
    let stride = if spread { 1 << 20 } else { PAGE.bytes() };
    let mut pages = Vec::new();
    for (p, &(compressed, target_code)) in kinds.iter().cycle().take(kinds.len() * copies).enumerate() {
        let va_base = regs.heap_base + (p as u64) * stride;
        let pte = Pte { frame: 0x2_0000_0000 + (p as u64) * stride, compressed, target_code, buddy_offset: 4 * p as u32 };
        pages.push((pte, va_base));
    }
    // Entry `e` of a page used: 0..40, or spread over 8 metadata sectors.
    let entry = |e: u64| if spread { (e % 8) * 64 + e / 8 } else { e };
    let contents = random_entries(400, rng.gen());
    // Entries 0..32 of each valid page get contents; 32..40 stay unwritten.
    for &(pte, va_base) in pages.iter().filter(|(pte, _)| pte.target_code < 5) {
        for e in 0..32u64 {
            golden.preload(&pte, va_base + 128 * entry(e), &contents_entry(&contents, rng), &mut memory).expect("a valid page");
        }
    }
    // A reserved size nibble on entry 33 of the 2x page.
    let (pte2, va2) = pages[2];
    let access = translate_entry(&regs, PAGE, &pte2, va2 + 128 * entry(33), SizeClass::Raw).expect("a valid page");
    write_nibble_in_memory(access.metadata.expect("compressed"), 9, &mut memory);
    let mut out = Vec::new();
    for _ in 0..reads {
        let hot = layout == Layout::Hot && rng.gen_bool(0.5);
        let &(pte, va_base) = if hot { &pages[5] } else { pages.choose(rng).expect("pages") };
        let e = entry(rng.gen_range(0..if hot { 4 } else { 40u64 }));
        let va = va_base + 128 * e + rng.gen_range(0..128);
        let write = rng.gen_bool(p_write).then(|| {
            let mask = if rng.gen_bool(0.5) { 15 } else { rng.gen_range(1..15) };
            (mask, *contents[rng.gen_range(0..contents.len())].words())
        });
        out.push(Read { pte, va, write });
    }
    // Below HEAP_BASE on a compressed page: a fault.
    out.push(Read { pte: pages[1].0, va: regs.heap_base - 256, write: None });
    out.shuffle(rng);
    (regs, memory, out)
}

fn contents_entry(contents: &[buddy_golden::MemoryEntry], rng: &mut ChaCha8Rng) -> buddy_golden::MemoryEntry {
    contents[rng.gen_range(0..contents.len())]
}

fn outcome_code(o: Outcome) -> u64 {
    match o {
        Outcome::Hit => md_outcome::HIT,
        Outcome::SectorMiss => md_outcome::SECTOR_MISS,
        Outcome::LineMiss => md_outcome::LINE_MISS,
    }
}

fn fault_code(f: &TranslationFault) -> u64 {
    match f {
        TranslationFault::ReservedTarget { .. } => fault::RESERVED_TARGET,
        TranslationFault::BelowHeapBase { .. } => fault::BELOW_HEAP_BASE,
        TranslationFault::OutsideCarveOut { .. } => fault::OUTSIDE_CARVE_OUT,
    }
}

/// `requests` random requests through the slice (a share `p_write` of
/// them writes, half of those partial), then a flush: a new request
/// offered with probability `p_request` per cycle (held until taken),
/// memory taking a request with probability `p_ready` and answering each
/// sector read 1-`max_latency` cycles later in random order, responses
/// taken with probability `p_ready`. Every response must be the golden
/// slice's answer to the request whose context it names (golden serves
/// them in request order), and after the flush device memory, buddy-memory
/// and the metadata region must hold what golden's do.
///
/// # Errors
/// The first difference, or a run that does not finish.
pub fn run(
    hardware: HardwareCodec,
    seed: u64,
    requests: usize,
    p_write: f64,
    p_request: f64,
    p_ready: f64,
    max_latency: u64,
) -> Result<PipelinedRun, String> {
    run_in(Layout::Dense, hardware, seed, requests, p_write, p_request, p_ready, max_latency)
}

/// As [`run`] with the requests placed as `layout` says.
///
/// # Errors
/// As [`run`].
#[allow(clippy::too_many_arguments)]
pub fn run_in(
    layout: Layout,
    hardware: HardwareCodec,
    seed: u64,
    requests: usize,
    p_write: f64,
    p_request: f64,
    p_ready: f64,
    max_latency: u64,
) -> Result<PipelinedRun, String> {
    on_big_stack(move || run_slice(hardware, seed, requests, p_write, p_request, p_ready, max_latency, false, None, layout)).map(|(r, _)| r)
}

/// The slice of `algorithm` (MAG-BDI at any MAG), run by its driver.
#[allow(clippy::too_many_arguments)]
fn run_slice(
    hardware: HardwareCodec,
    seed: u64,
    requests: usize,
    p_write: f64,
    p_request: f64,
    p_ready: f64,
    max_latency: u64,
    record: bool,
    vcd: Option<Box<dyn Write + Send>>,
    layout: Layout,
) -> Result<(PipelinedRun, Vec<String>), String> {
    match hardware {
        HardwareCodec::Bpc => run_bpc(hardware, seed, requests, p_write, p_request, p_ready, max_latency, record, vcd, layout),
        HardwareCodec::Zvc => run_zvc(hardware, seed, requests, p_write, p_request, p_ready, max_latency, record, vcd, layout),
        HardwareCodec::MagBdi(_) => run_mag_bdi(hardware, seed, requests, p_write, p_request, p_ready, max_latency, record, vcd, layout),
    }
}

/// The stream rule on one port: a beat offered and not taken last cycle
/// (`stalled`) is offered again unchanged; then `stalled` becomes this
/// cycle's beat if it is not taken.
fn held_until_taken<T: Copy + PartialEq + std::fmt::Debug>(stalled: &mut Option<T>, beat: Option<T>, ready: bool) -> Result<(), String> {
    if let Some(was) = stalled.filter(|&was| beat != Some(was)) {
        return Err(format!("offered and not taken changed before it was taken: {was:x?}, then {beat:x?}"));
    }
    *stalled = beat.filter(|_| !ready);
    Ok(())
}

fn mag_of(hardware: HardwareCodec) -> Mag {
    match hardware {
        HardwareCodec::MagBdi(mag) => mag,
        _ => Mag::B32,
    }
}

/// As [`run`], and the lock-step lines of the run ([`LOCKSTEP_INPUTS`],
/// then [`LOCKSTEP_OUTPUTS`]; one per cycle from reset on).
///
/// # Errors
/// As [`run`].
pub fn lockstep_lines(
    hardware: HardwareCodec,
    seed: u64,
    requests: usize,
    p_write: f64,
    max_latency: u64,
) -> Result<(PipelinedRun, Vec<String>), String> {
    on_big_stack(move || run_slice(hardware, seed, requests, p_write, 0.7, 0.7, max_latency, true, None, Layout::Dense))
}

/// As [`run`] (40% writes, memory answering within 30 cycles), writing a
/// VCD of every scope of the slice into `w` (1 GHz, see `VcdTrace`).
///
/// # Errors
/// As [`run`], or the VCD cannot be written.
pub fn write_vcd(hardware: HardwareCodec, seed: u64, requests: usize, w: Box<dyn Write + Send>) -> Result<PipelinedRun, String> {
    on_big_stack(move || run_slice(hardware, seed, requests, 0.4, 0.7, 0.7, 30, false, Some(w), Layout::Dense)).map(|(r, _)| r)
}

/// Run `f` on a thread with room for the slice's model (several
/// megabytes: building it overflows a test thread's stack).
///
/// # Errors
/// `f`'s, or the thread could not start or panicked.
pub fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> Result<T, String> + Send + 'static) -> Result<T, String> {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(f)
        .map_err(|e| format!("cannot start the simulation thread: {e}"))?
        .join()
        .map_err(|_| "the simulation thread panicked".to_string())?
}

/// The emitted Verilog of the slice built with `hardware`, as module `name`.
///
/// # Errors
/// A structural check of rust-hdl failed.
pub fn verilog(hardware: HardwareCodec, name: &'static str, revision: &str) -> Result<String, String> {
    fn emit<U: Block>(mut uut: Box<U>, name: &str, revision: &str) -> Result<String, String> {
        uut.connect_all();
        buddy_hdl::verilog::emit(&*uut, name, revision)
    }
    let revision = revision.to_string();
    on_big_stack(move || match hardware {
        HardwareCodec::Bpc => emit(Box::new(PipelinedController::default()), name, &revision),
        HardwareCodec::Zvc => emit(Box::new(PipelinedControllerZvc::default()), name, &revision),
        HardwareCodec::MagBdi(mag) => emit(Box::new(PipelinedControllerMagBdi::new(mag)), name, &revision),
    })
}

/// The Verilog module name of the pipelined slice built with `hardware`:
/// `pipelined_controller` (BPC), `pipelined_controller_zvc`,
/// `pipelined_controller_mag_bdi16` / `32` / `64`.
pub const fn module(hardware: HardwareCodec) -> &'static str {
    match hardware {
        HardwareCodec::Bpc => "pipelined_controller",
        HardwareCodec::Zvc => "pipelined_controller_zvc",
        HardwareCodec::MagBdi(Mag::B16) => "pipelined_controller_mag_bdi16",
        HardwareCodec::MagBdi(Mag::B32) => "pipelined_controller_mag_bdi32",
        HardwareCodec::MagBdi(Mag::B64) => "pipelined_controller_mag_bdi64",
    }
}

/// The slice's ports (the lock-step order) for the variant built with `hardware`.
pub const fn ports(hardware: HardwareCodec) -> crate::cosim::CosimPorts {
    crate::cosim::CosimPorts { module: module(hardware), inputs: LOCKSTEP_INPUTS, outputs: OUTPUTS }
}

/// The lock-step testbench of `module` (a pipelined slice variant): see
/// [`crate::cosim::lockstep_testbench`].
pub fn lockstep_testbench(module: &str) -> String {
    crate::cosim::lockstep_testbench(module, LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS)
}

pub use buddy_hdl::pipelined_controller::{LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS};

/// The output ports in lock-step order (as [`LOCKSTEP_OUTPUTS`], without qualifiers).
const OUTPUTS: &[(&str, usize)] = &crate::harness::unqualified::<{ LOCKSTEP_OUTPUTS.len() }>(LOCKSTEP_OUTPUTS);

/// A driver (`$run`) for one slice type.
macro_rules! slice_driver {
    ($run:ident, $dut:ty, $make:expr) => {
        #[allow(clippy::too_many_arguments)]
        fn $run(
            hardware: HardwareCodec,
            seed: u64,
            requests: usize,
            p_write: f64,
            p_request: f64,
            p_ready: f64,
            max_latency: u64,
            record: bool,
            mut vcd: Option<Box<dyn Write + Send>>,
            layout: Layout,
        ) -> Result<(PipelinedRun, Vec<String>), String> {
            let algorithm = hardware.algorithm();
            let mut lines = Vec::new();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let (regs, mut memory, requests) = scenario(algorithm, &mut rng, requests, p_write, layout);
            let config = SliceConfig { algorithm, metadata_cache: MetadataCacheConfig::default(), regs, page: PAGE };
            let mut golden = ControllerSlice::new(config).expect("the default cache geometry");
            let mut hw_memory = memory.clone();
            let to_bytes = |w: &[u32; 32]| -> [u8; 128] {
                let mut b = [0u8; 128];
                for (i, x) in w.iter().enumerate() {
                    b[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
                }
                b
            };
            // Golden answers, in request order, and the outcome of each
            // request's (first) metadata lookup: `None` unknown (golden
            // stops at an error), `Some(None)` no lookup.
            let mut facts = Vec::with_capacity(requests.len());
            let (expected, expected_lookup): (Vec<Answer>, Vec<Option<Option<u64>>>) = requests
                .iter()
                .map(|r| {
                    let served = match r.write {
                        None => golden.read(&r.pte, r.va, &mut memory),
                        Some((mask, data)) => golden.write(&r.pte, r.va, mask, &to_bytes(&data), &mut memory),
                    };
                    facts.push(request_facts(&regs, r, &served));
                    let lookup = served.as_ref().ok().map(|s| {
                        let md = s.read.as_ref().and_then(|p| p.metadata.as_ref()).or(s.write.as_ref().and_then(|p| p.metadata.as_ref()));
                        md.map(|m| outcome_code(m.outcome))
                    });
                    let answer = match served {
                        Ok(s) if r.write.is_none() => Answer::Entry(*s.entry.words()),
                        Ok(_) => Answer::Written,
                        Err(SliceError::Fault { fault, .. }) => Answer::Fault(fault_code(&fault)),
                        Err(SliceError::Decode { .. }) => Answer::DecodeError,
                    };
                    (answer, lookup)
                })
                .unzip();
            // Per context in flight: the lookup outcome its status port gave, and the cycle.
            let mut lookups: HashMap<u64, (u64, u64)> = HashMap::new();
            // Per context: the cycle its last sector was answered.
            let mut last_sector: HashMap<u64, u64> = HashMap::new();
            golden.flush(&mut memory);

            let latency = buddy_hdl::timing::codec_latency(hardware);
            let mut model = PipelinedControllerModel::new(latency.compress, latency.decompress);
            let mut boxed = Box::new($make(hardware));
            let mut dut = Harness::<$dut>::new(&mut *boxed, vcd.as_deref_mut().map(|w| w as &mut dyn Write))
                .record(record.then_some(&mut lines), <$dut>::lockstep_line);
            dut.gbbr.next = regs.gbbr.into();
            dut.carve_out_bytes.next = regs.carve_out_bytes.into();
            dut.md_base.next = regs.md_base.into();
            dut.heap_base.next = regs.heap_base.into();
            dut.reset(1);
            model.clock(&SliceIn { reset: true, ..Default::default() });
            // The metadata cache invalidates its sets one per cycle after reset.
            for _ in 0..16 {
                dut.settle();
                dut.cycle();
                model.clock(&SliceIn::default());
            }


            let mut out = PipelinedRun::default();
            let mut next = 0usize;
            let mut offered = false;
            // Context id -> request index.
            let mut in_flight: HashMap<u64, usize> = HashMap::new();
            // Reads memory took, per memory: (due cycle, tag, the run of
            // sectors as taken, sector k at words 8k..8k + 8).
            let mut pending: [Vec<(u64, u64, [u32; 32])>; 2] = [Vec::new(), Vec::new()];
            let mut answered = 0usize;
            let mut flushed = false;
            let mut cycle = 0u64;
            let limit = 2_000 + 200 * requests.len() as u64 * max_latency.max(1);
            // A handshake (request, response, memory) at least every this many cycles.
            let quiet_limit = 2_000 + 20 * max_latency;
            let mut last_progress = 0u64;
            // The response offered and not taken last cycle: offered again unchanged (the stream rule).
            let mut stalled: Option<(u64, bool, bool, u64, bool, [u32; 32])> = None;
            // Each memory's request offered and not taken last cycle (a write's data and strobes with it).
            let mut mem_stalled: [Option<(bool, u64, u64, u64, [u32; 32], u128)>; 2] = [None, None];
            while !flushed {
                if cycle > limit || cycle - last_progress > quiet_limit {
                    let mut held: Vec<(u64, usize)> = in_flight.iter().map(|(&id, &i)| (id, i)).collect();
                    held.sort_unstable();
                    let held: Vec<String> = held
                        .iter()
                        .map(|&(id, i)| format!("{id}: {:x?} lookup {:?}", requests[i].write.map(|w| w.0), lookups.get(&id).map(|l| l.0)))
                        .collect();
                    return Err(format!(
                        "{answered} of {} requests answered after {cycle} cycles (last handshake at {last_progress}); in flight: {}",
                        requests.len(),
                        held.join(", ")
                    ));
                }
                if dut.req_ready.val() && offered || dut.resp_valid.val() || dut.dev_mem_valid.val() || dut.bud_mem_valid.val() {
                    last_progress = cycle;
                }
                if !offered && next <= requests.len() && rng.gen_bool(p_request) {
                    offered = true;
                }
                // After the requests, the flush.
                let flush = next == requests.len();
                let r = requests[next.min(requests.len() - 1)];
                let (mask, data) = r.write.unwrap_or((0, [0; 32]));
                dut.req_valid.next = offered;
                dut.req_write.next = r.write.is_some();
                dut.req_flush.next = flush;
                dut.req_mask.next = (mask as u64).into();
                dut.req_data.next = buddy_hdl::EntryBits::from_words(&data);
                dut.req_va.next = r.va.into();
                dut.req_frame.next = r.pte.frame.into();
                dut.req_pte.next = (r.pte.buddy_bits() as u64).into();
                dut.req_page_64k.next = true;
                let resp_ready = rng.gen_bool(p_ready);
                dut.resp_ready.next = resp_ready;
                // Each memory answers one due read, picked at random.
                let mut answers = [None, None];
                for (m, p) in pending.iter().enumerate() {
                    let due: Vec<usize> = (0..p.len()).filter(|&i| p[i].0 <= cycle).collect();
                    if !due.is_empty() {
                        answers[m] = Some(due[rng.gen_range(0..due.len())]);
                    }
                }
                let mem_ready = [rng.gen_bool(p_ready), rng.gen_bool(p_ready)];
                for m in 0..2 {
                    let (valid, tag, data) = match answers[m] {
                        Some(i) => (true, pending[m][i].1, buddy_hdl::EntryBits::from_words(&pending[m][i].2)),
                        None => (false, 0, buddy_hdl::EntryBits::default()),
                    };
                    if m == 0 {
                        dut.dev_mem_ready.next = mem_ready[0];
                        dut.dev_mem_resp_valid.next = valid;
                        dut.dev_mem_resp_tag.next = tag.into();
                        dut.dev_mem_resp_data.next = data;
                    } else {
                        dut.bud_mem_ready.next = mem_ready[1];
                        dut.bud_mem_resp_valid.next = valid;
                        dut.bud_mem_resp_tag.next = tag.into();
                        dut.bud_mem_resp_data.next = data;
                    }
                }
                dut.settle();

                // The cycle model on the same inputs shows the same outputs.
                let model_in = SliceIn {
                    reset: false,
                    req: offered.then(|| if flush { RequestFacts { flush: true, ..Default::default() } } else { facts[next] }),
                    resp_ready,
                    dev_mem_ready: mem_ready[0],
                    dev_mem_resp: answers[0].map(|i| pending[0][i].1),
                    bud_mem_ready: mem_ready[1],
                    bud_mem_resp: answers[1].map(|i| pending[1][i].1),
                };
                let mut want = model.outputs(&model_in);
                want.req_ready = want.req_ready.filter(|_| offered);
                let got = model_view_of!(&*dut, offered);
                if let Some(r) = want.resp.as_mut().filter(|r| r.flush) {
                    r.id = 0;
                }
                if got != want {
                    return Err(format!("cycle {cycle}: the cycle model differs from the hardware\nhardware: {got:?}\nmodel:    {want:?}"));
                }
                model.clock(&model_in);
                let beat = dut.resp_valid.val().then(|| {
                    (
                        dut.resp_id.val().to_u64(),
                        dut.resp_write.val(),
                        dut.resp_flush.val(),
                        dut.resp_fault.val().to_u64(),
                        dut.resp_decode_error.val(),
                        dut.resp_entry.val().to_words(),
                    )
                });
                held_until_taken(&mut stalled, beat, resp_ready).map_err(|e| format!("cycle {cycle}: a response {e}"))?;

                if offered && dut.req_ready.val() && flush {
                    next += 1;
                    offered = false;
                } else if offered && dut.req_ready.val() {
                    let id = dut.req_id.val().to_u64();
                    let r = &requests[next];
                    out.writes_past_reads += (r.write.is_some()
                        && in_flight.values().any(|&j| requests[j].write.is_none() && requests[j].va >> 7 == r.va >> 7))
                        as usize;
                    out.writes_past_writes += (r.write.is_some()
                        && in_flight.values().any(|&j| requests[j].write.is_some() && requests[j].va >> 7 == r.va >> 7))
                        as usize;
                    if in_flight.insert(id, next).is_some() {
                        return Err(format!("cycle {cycle}: context {id} given while in use"));
                    }
                    next += 1;
                    offered = false;
                }
                out.most_in_flight = out.most_in_flight.max(dut.in_flight.val().index());
                if dut.md_lookup_valid.val() {
                    let id = dut.md_lookup_id.val().to_u64();
                    out.line_misses += (dut.md_lookup_outcome.val().to_u64() == md_outcome::LINE_MISS) as usize;
                    if !in_flight.contains_key(&id) || lookups.insert(id, (dut.md_lookup_outcome.val().to_u64(), cycle)).is_some() {
                        return Err(format!("cycle {cycle}: a metadata lookup status for context {id}, not in flight or given twice"));
                    }
                }
                if dut.resp_valid.val() && resp_ready && dut.resp_flush.val() {
                    if answered < requests.len() || next <= requests.len() {
                        return Err(format!("cycle {cycle}: a flush answered before it was asked for, or before every request"));
                    }
                    flushed = true;
                } else if dut.resp_valid.val() && resp_ready {
                    let id = dut.resp_id.val().to_u64();
                    let i = in_flight.remove(&id).ok_or_else(|| format!("cycle {cycle}: a response for context {id}, not in use"))?;
                    let got = if dut.resp_fault.val().to_u64() != 0 {
                        Answer::Fault(dut.resp_fault.val().to_u64())
                    } else if dut.resp_decode_error.val() {
                        Answer::DecodeError
                    } else if dut.resp_write.val() {
                        Answer::Written
                    } else {
                        Answer::Entry(dut.resp_entry.val().to_words())
                    };
                    let (lookup, looked_up) = lookups.remove(&id).unzip();
                    match (last_sector.remove(&id), looked_up, &got) {
                        (Some(at), _, Answer::Entry(_)) => out.past_decompressor += (cycle - at < latency.decompress) as usize,
                        (None, Some(at), Answer::Entry(_)) => {
                            out.zero_reads += 1;
                            out.zero_past_decompressor += (cycle - at < latency.decompress) as usize;
                        }
                        _ => {}
                    }
                    if let Some(want) = expected_lookup[i].filter(|&w| w != lookup) {
                        return Err(format!(
                            "cycle {cycle}: request {i} ({:x?}): metadata lookup status {lookup:?}, golden {want:?}",
                            requests[i]
                        ));
                    }
                    if got != expected[i] {
                        return Err(format!(
                            "cycle {cycle}: request {i} ({:x?}) answered {got:x?}, golden {:x?}",
                            requests[i], expected[i]
                        ));
                    }
                    match got {
                        Answer::Entry(_) => out.reads += 1,
                        Answer::Written if requests[i].write.is_some_and(|(mask, _)| mask != 15) => out.partial_writes += 1,
                        Answer::Written => out.writes += 1,
                        Answer::Fault(_) => out.faults += 1,
                        Answer::DecodeError => out.decode_errors += 1,
                    }
                    if in_flight.values().any(|&j| j < i) {
                        out.out_of_order += 1;
                    }
                    answered += 1;
                }
                // Memory: take a request, retire the answered read.
                for m in 0..2 {
                    let (valid, write, address, sectors, tag, data, strobe, resp_ready) = if m == 0 {
                        (
                            dut.dev_mem_valid.val(),
                            dut.dev_mem_write.val(),
                            dut.dev_mem_address.val().to_u64(),
                            dut.dev_mem_sectors.val().to_u64(),
                            dut.dev_mem_tag.val().to_u64(),
                            dut.dev_mem_data.val(),
                            dut.dev_mem_strobe.val().to_u128(),
                            dut.dev_mem_resp_ready.val(),
                        )
                    } else {
                        (
                            dut.bud_mem_valid.val(),
                            dut.bud_mem_write.val(),
                            dut.bud_mem_address.val().to_u64(),
                            dut.bud_mem_sectors.val().to_u64(),
                            dut.bud_mem_tag.val().to_u64(),
                            dut.bud_mem_data.val(),
                            dut.bud_mem_strobe.val().to_u128(),
                            dut.bud_mem_resp_ready.val(),
                        )
                    };
                    let offer = valid.then(|| {
                        let (data, strobe) = if write { (data.to_words(), strobe) } else { ([0; 32], 0) };
                        (write, address, sectors, tag, data, strobe)
                    });
                    held_until_taken(&mut mem_stalled[m], offer, mem_ready[m])
                        .map_err(|e| format!("cycle {cycle}: memory {m}'s request {e}"))?;
                    if let Some(i) = answers[m].filter(|_| resp_ready) {
                        // A data read's tag is `{sectors - 1, 0, context, sector}`.
                        if pending[m][i].1 >> buddy_hdl::memory_port::FILL_TAG_BIT & 1 == 0 {
                            last_sector.insert(pending[m][i].1 >> 3 & 0x7f, cycle);
                        }
                        pending[m].swap_remove(i);
                    }
                    if valid && mem_ready[m] {
                        let data_write = write && (m == 1 || address < regs.md_base);
                        if data_write && !in_flight.contains_key(&(tag >> 3)) {
                            return Err(format!("cycle {cycle}: a sector write tagged {tag:#x}, whose context is not in flight"));
                        }
                        if write {
                            let space = if m == 0 { &mut hw_memory.device } else { &mut hw_memory.buddy };
                            if !(1..=4).contains(&sectors) || strobe.checked_shr(32 * sectors as u32).unwrap_or(0) != 0 {
                                return Err(format!("cycle {cycle}: a write of {sectors} sectors with strobe {strobe:#x}"));
                            }
                            let words = data.to_words();
                            for k in 0..128u64 {
                                if strobe >> k & 1 == 1 {
                                    space.insert(address + k, (words[k as usize / 4] >> (8 * (k % 4))) as u8);
                                }
                            }
                            out.whole_writes += (sectors == 4) as usize;
                        } else {
                            let due = cycle + rng.gen_range(1..=max_latency.max(1));
                            if !(1..=4).contains(&sectors) {
                                return Err(format!("cycle {cycle}: a read of {sectors} sectors"));
                            }
                            let mut run = [0u32; 32];
                            for k in 0..sectors as usize {
                                run[8 * k..8 * k + 8].copy_from_slice(&hw_memory.sector(m == 1, address + 32 * k as u64));
                            }
                            out.whole_runs += (sectors == 4) as usize;
                            pending[m].push((due, tag, run));
                        }
                    }
                }
                dut.cycle();
                cycle += 1;
            }
            drop(dut);
            out.cycles = cycle;
            for (what, hw, gold) in [("device", &hw_memory.device, &memory.device), ("buddy", &hw_memory.buddy, &memory.buddy)] {
                let mut addresses: Vec<u64> = hw.keys().chain(gold.keys()).copied().collect();
                addresses.sort_unstable();
                addresses.dedup();
                if let Some(a) = addresses.iter().find(|a| hw.get(a).copied().unwrap_or(0) != gold.get(a).copied().unwrap_or(0)) {
                    return Err(format!(
                        "after the flush, {what} byte {a:#x} is {:#x}, golden {:#x}",
                        hw.get(a).copied().unwrap_or(0),
                        gold.get(a).copied().unwrap_or(0)
                    ));
                }
            }
            Ok((out, lines))
        }
    };
}

/// What `request` is and what the golden slice found for it (`served`),
/// as the cycle model takes it.
fn request_facts(regs: &BuddyRegisters, r: &Read, served: &Result<buddy_golden::controller_slice::Served, SliceError>) -> RequestFacts {
    let (mask, write) = r.write.map_or((0, false), |w| (w.0, true));
    let mut f = RequestFacts { write, mask, entry: r.va >> 7, compressed: r.pte.compressed, ..Default::default() };
    match translate_entry(regs, PAGE, &r.pte, r.va, SizeClass::Raw) {
        Ok(raw) => {
            f.md_address = raw.metadata.map_or(0, |m| m.address);
            f.device = raw.device_slot.address;
            f.part = raw.device_slot.bytes;
            f.buddy = raw.buddy.map_or(0, |b| b.address);
        }
        Err(fault) => f.fault = fault_code(&fault) as u8,
    }
    match served {
        Ok(s) => {
            f.old_nibble = s.read.as_ref().map_or(0, |p| p.class.code());
            f.new_class = s.write.as_ref().map_or(0, |p| p.class.code());
        }
        Err(SliceError::Decode { nibble, .. }) => {
            f.old_nibble = *nibble;
            f.decode_error = true;
        }
        Err(SliceError::Fault { .. }) => {}
    }
    f
}

/// The ports of a pipelined slice `dut` as its cycle model shows them
/// (`req_ready` only with a request offered: without one it depends on
/// the request ports' stale values; a flush's response id is don't care).
macro_rules! model_view_of {
    ($dut:expr, $offered:expr) => {{
        let dut = $dut;
        let port = |valid: bool, write: bool, address: u64, sectors: u64, tag: u64| {
            valid.then_some(MemRequest { write, address, sectors: sectors as u8, tag: tag as u16 })
        };
        SliceOut {
            req_ready: ($offered && dut.req_ready.val()).then(|| dut.req_id.val().to_u64() as u8),
            resp: dut.resp_valid.val().then(|| SliceResponse {
                id: if dut.resp_flush.val() { 0 } else { dut.resp_id.val().to_u64() as u8 },
                write: dut.resp_write.val(),
                flush: dut.resp_flush.val(),
                fault: dut.resp_fault.val().to_u64() as u8,
                decode_error: dut.resp_decode_error.val(),
            }),
            dev_mem: port(
                dut.dev_mem_valid.val(),
                dut.dev_mem_write.val(),
                dut.dev_mem_address.val().to_u64(),
                dut.dev_mem_sectors.val().to_u64(),
                dut.dev_mem_tag.val().to_u64()
            ),
            dev_mem_resp_ready: dut.dev_mem_resp_ready.val(),
            bud_mem: port(
                dut.bud_mem_valid.val(),
                dut.bud_mem_write.val(),
                dut.bud_mem_address.val().to_u64(),
                dut.bud_mem_sectors.val().to_u64(),
                dut.bud_mem_tag.val().to_u64()
            ),
            bud_mem_resp_ready: dut.bud_mem_resp_ready.val(),
            in_flight: dut.in_flight.val().to_u64(),
            md_lookup: dut.md_lookup_valid.val().then(|| (dut.md_lookup_id.val().to_u64() as u8, dut.md_lookup_outcome.val().to_u64() as u8)),
        }
    }};
}

slice_driver!(run_bpc, PipelinedController, |_| PipelinedController::default());
slice_driver!(run_zvc, PipelinedControllerZvc, |_| PipelinedControllerZvc::default());
slice_driver!(run_mag_bdi, PipelinedControllerMagBdi, |a| PipelinedControllerMagBdi::new(mag_of(a)));

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the pipelined controller slice.

/// The pipelined memory-controller slice as a delivered module, one
/// instance per codec it is built with.
pub mod delivered {
    use super::*;
    use crate::cosim::CosimPorts;
    use crate::decompress::StoredEntry;
    use crate::modules::{self, DeliveredModule, EquivRun, ModuleKind, VcdWriter, VectorFile};
    use crate::stream::Traffic;
    use crate::waves::{lockstep_port_names, port_groups, Filter, SignalGroup};
    use buddy_golden::MemoryEntry;

    /// `pipelined_controller[_<codec>]`: one pipelined memory-controller
    /// slice (up to 128 requests in flight, tagged responses), built with
    /// the codecs of an algorithm that has hardware.
    pub struct Slice(pub HardwareCodec);

    impl DeliveredModule for Slice {
        fn ports(&self) -> CosimPorts {
            ports(self.0)
        }
        fn kind(&self) -> ModuleKind {
            ModuleKind::Slice
        }
        fn notes(&self) -> Vec<String> {
            crate::interface::slice_notes(self.0, false)
        }
        fn shipped_testbench(&self, shipped: &[usize]) -> String {
            crate::cosim::lockstep_testbench_shipped(self.name(), LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS, shipped.first().copied())
        }
        fn verilog(&self, revision: &str) -> Result<String, String> {
            // Built on a thread with room for it (several megabytes).
            verilog(self.0, self.name(), revision)
        }
        fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
            // Lock-step lines of a random run with its own scenario pages
            // (a failing run is reported by `check`).
            let requests = (entries.len() / 16).clamp(20, 400);
            let lines = lockstep_lines(self.0, modules::VECTOR_SEED, requests, 0.4, 20).map(|(_, l)| l).unwrap_or_default();
            vec![VectorFile::vectors(self.name(), lines)]
        }
        fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
            // Random reads and writes over the slice's own scenario pages, memory answering out of order.
            let requests = (entries.len() / 4).clamp(100, 2000);
            let start = std::time::Instant::now();
            let run =
                run(self.0, seed, requests, 0.4, traffic.p_valid, traffic.p_ready, 30).map_err(|e| format!("{}: {e}", self.name()))?;
            Ok(EquivRun { inputs: requests, cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
        }
        fn write_vcd(&self, entries: &[MemoryEntry], vcd: VcdWriter) -> Result<(), String> {
            // A request per entry (at least 4, at most 100), over the slice's own scenario pages.
            write_vcd(self.0, modules::VCD_SEED, entries.len().clamp(4, 100), Box::new(vcd)).map(|_| ())
        }
        /// Ports only (the slice's internals change more often than its
        /// ports); also the groups of `buddy sim --engine rtl`'s
        /// `slice<N>.vcd` (the same hierarchy).
        fn signal_groups(&self) -> Vec<SignalGroup> {
            let rules: &[(&str, &[&str])] = &[
                ("clock, reset, registers", &["clock", "reset", "gbbr", "carve_out_bytes", "md_base", "heap_base"]),
                ("request in", &["req_*"]),
                ("metadata lookup", &["md_lookup_*"]),
                ("device memory port", &["dev_mem_*"]),
                ("buddy memory port", &["bud_mem_*"]),
                ("response out", &["resp_*"]),
                ("occupancy", &["in_flight"]),
            ];
            let filters = [("md_lookup_outcome", Filter::Outcome), ("resp_fault", Filter::Fault)];
            port_groups(&lockstep_port_names(LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS), rules, &filters)
        }
    }
}
