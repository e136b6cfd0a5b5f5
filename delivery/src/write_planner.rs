//! Adapters for `WritePlanner`: a reference model written from its
//! documentation, a random driver that checks the hardware against it
//! cycle by cycle and every byte it writes against the bytes the golden
//! slice stores (`translate_entry`'s device and buddy ranges of the
//! payload; the masked sectors of an uncompressed page), and lock-step
//! lines for co-simulating its Verilog.

use std::collections::VecDeque;
use std::io::Write;

use crate::cosim::{hex_field, words_hex};
use crate::read_planner::valid_accesses;
use crate::stream::{sector_words, settle, VcdTrace};
use crate::translation::Access;
use buddy_golden::translation::{translate_entry, SECTOR_BYTES};
use buddy_golden::SizeClass;
use buddy_hdl::request_contexts::CONTEXTS;
use buddy_hdl::sector_lanes::pick;
use buddy_hdl::{EntryBits, WritePlanner};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// One job as the planner's `in_*` ports take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Job {
    id: usize,
    class: u8,
    compressed: bool,
    mask: u8,
    device_address: u64,
    part_bytes: u64,
    buddy_address: u64,
    payload: [u32; 32],
}

/// A sector write (`dev_wr_*` or `buddy_wr_*`): data as 8 words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SectorWrite {
    id: usize,
    address: u64,
    data: [u32; 8],
    strobe: u32,
}

impl SectorWrite {
    /// The bytes it writes, as (address, value).
    fn bytes(&self) -> Vec<(u64, u8)> {
        (0..32)
            .filter(|k| self.strobe >> k & 1 == 1)
            .map(|k| (self.address + k, (self.data[k as usize / 4] >> (8 * (k % 4))) as u8))
            .collect()
    }
}

/// One part of the held job.
#[derive(Debug, Clone, Copy, Default)]
struct Part {
    /// Bit k: sector k still to write.
    left: u8,
    base: u64,
    lead: usize,
    /// End byte of the part, from its first sector's start.
    end: usize,
    /// Payload word of the part's first byte.
    word: usize,
}

impl Part {
    fn offer(&self, id: usize, payload: &[u32; 32]) -> Option<SectorWrite> {
        if self.left == 0 {
            return None;
        }
        let k = self.left.trailing_zeros() as usize;
        let start = 32 * k;
        let off = if k == 0 { 4 * self.lead } else { 0 };
        let stop = (self.end - start).min(32);
        let (data, strobe) = pick(payload, self.word + 8 * k, self.lead, stop - off, off);
        Some(SectorWrite { id, address: self.base + start as u64, data, strobe })
    }
}

/// The held job, as the documentation describes it.
#[derive(Debug, Clone, Copy, Default)]
struct Model {
    busy: bool,
    id: usize,
    payload: [u32; 32],
    dev: Part,
    bud: Part,
}

/// Sectors of `bytes` bytes starting `first` bytes into a sector, as a mask.
fn part_mask(first: u64, bytes: u64) -> u8 {
    if bytes == 0 {
        0
    } else {
        ((1u32 << (first + bytes).div_ceil(SECTOR_BYTES)) - 1) as u8
    }
}

impl Model {
    fn done(&self) -> bool {
        self.busy && self.dev.left == 0 && self.bud.left == 0
    }
    fn in_ready(&self, done_ready: bool) -> bool {
        !self.busy || (self.done() && done_ready)
    }
    fn clock(&mut self, take: Option<Job>, dev_go: bool, bud_go: bool, done_go: bool) {
        if dev_go {
            self.dev.left &= self.dev.left - 1;
        }
        if bud_go {
            self.bud.left &= self.bud.left - 1;
        }
        if done_go {
            self.busy = false;
        }
        let Some(j) = take else { return };
        let class_bytes = [0u64, 8, 16, 32, 64, 80, 96, 128][j.class as usize];
        let (dev, bud) = (class_bytes.min(j.part_bytes), class_bytes.saturating_sub(j.part_bytes));
        let (df, bf) = (j.device_address % SECTOR_BYTES, j.buddy_address % SECTOR_BYTES);
        let part = |address: u64, first: u64, bytes: u64, word: u64| Part {
            left: part_mask(first, bytes),
            base: address & !31,
            lead: (address as usize >> 2) & 7,
            end: (first + bytes) as usize,
            word: word as usize,
        };
        *self = Model {
            busy: true,
            id: j.id,
            payload: j.payload,
            dev: part(j.device_address, df, dev, 0),
            bud: part(j.buddy_address, bf, bud, dev / 4),
        };
        if !j.compressed {
            self.dev = Part { left: j.mask & 0xF, base: j.device_address & !31, lead: 0, end: 128, word: 0 };
            self.bud.left = 0;
        }
    }
}

/// What a run observed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WritePlannerRun {
    /// Jobs done: writes to compressed pages, of which with a buddy part,
    /// and to uncompressed pages.
    pub compressed: usize,
    pub spilled: usize,
    pub uncompressed: usize,
    /// Sector writes handed on (each checked against golden).
    pub device_sectors: usize,
    pub buddy_sectors: usize,
    pub cycles: u64,
}

/// Lock-step ports of `write_planner` (line order).
pub const LOCKSTEP_INPUTS: &[(&str, usize)] = &[
    ("reset", 1),
    ("in_valid", 1),
    ("in_id", 7),
    ("in_class", 3),
    ("in_compressed", 1),
    ("in_mask", 4),
    ("in_device_address", 64),
    ("in_device_part_bytes", 8),
    ("in_buddy_address", 64),
    ("in_payload", 1024),
    ("dev_wr_ready", 1),
    ("buddy_wr_ready", 1),
    ("done_ready", 1),
];
/// Lock-step outputs: (name, width, qualifier).
pub const LOCKSTEP_OUTPUTS: &[(&str, usize, &str)] = &[
    ("in_ready", 1, ""),
    ("dev_wr_valid", 1, ""),
    ("dev_wr_id", 7, "dev_wr_valid"),
    ("dev_wr_address", 64, "dev_wr_valid"),
    ("dev_wr_data", 256, "dev_wr_valid"),
    ("dev_wr_strobe", 32, "dev_wr_valid"),
    ("buddy_wr_valid", 1, ""),
    ("buddy_wr_id", 7, "buddy_wr_valid"),
    ("buddy_wr_address", 64, "buddy_wr_valid"),
    ("buddy_wr_data", 256, "buddy_wr_valid"),
    ("buddy_wr_strobe", 32, "buddy_wr_valid"),
    ("done_valid", 1, ""),
    ("done_id", 7, "done_valid"),
];

/// Co-simulation ports (the lock-step ones).
pub const PORTS: crate::cosim::CosimPorts = crate::cosim::CosimPorts {
    module: "write_planner",
    inputs: LOCKSTEP_INPUTS,
    outputs: &[
        ("in_ready", 1),
        ("dev_wr_valid", 1),
        ("dev_wr_id", 7),
        ("dev_wr_address", 64),
        ("dev_wr_data", 256),
        ("dev_wr_strobe", 32),
        ("buddy_wr_valid", 1),
        ("buddy_wr_id", 7),
        ("buddy_wr_address", 64),
        ("buddy_wr_data", 256),
        ("buddy_wr_strobe", 32),
        ("done_valid", 1),
        ("done_id", 7),
    ],
};

fn line(dut: &WritePlanner) -> String {
    let b = |v: bool| hex_field(v as u64, 1);
    [
        b(dut.reset.val()),
        b(dut.in_valid.val()),
        hex_field(dut.in_id.val().to_u64(), 7),
        hex_field(dut.in_class.val().to_u64(), 3),
        b(dut.in_compressed.val()),
        hex_field(dut.in_mask.val().to_u64(), 4),
        hex_field(dut.in_device_address.val().to_u64(), 64),
        hex_field(dut.in_device_part_bytes.val().to_u64(), 8),
        hex_field(dut.in_buddy_address.val().to_u64(), 64),
        words_hex(&dut.in_payload.val().to_words()),
        b(dut.dev_wr_ready.val()),
        b(dut.buddy_wr_ready.val()),
        b(dut.done_ready.val()),
        b(dut.in_ready.val()),
        b(dut.dev_wr_valid.val()),
        hex_field(dut.dev_wr_id.val().to_u64(), 7),
        hex_field(dut.dev_wr_address.val().to_u64(), 64),
        words_hex(&sector_words(&dut.dev_wr_data.val())),
        hex_field(dut.dev_wr_strobe.val().to_u64(), 32),
        b(dut.buddy_wr_valid.val()),
        hex_field(dut.buddy_wr_id.val().to_u64(), 7),
        hex_field(dut.buddy_wr_address.val().to_u64(), 64),
        words_hex(&sector_words(&dut.buddy_wr_data.val())),
        hex_field(dut.buddy_wr_strobe.val().to_u64(), 32),
        b(dut.done_valid.val()),
        hex_field(dut.done_id.val().to_u64(), 7),
    ]
    .concat()
}

/// The bytes golden stores for a job, per memory, as (address, value) in
/// address order: the payload's first `min(class, part)` bytes from the
/// device part's start and the next `class - part` from the buddy slot's
/// (compressed page), or each masked sector of the entry (uncompressed).
fn golden_bytes(a: &Access, j: &Job) -> (Vec<(u64, u8)>, Vec<(u64, u8)>) {
    let bytes: Vec<u8> = j.payload.iter().flat_map(|w| w.to_le_bytes()).collect();
    let class = SizeClass::from_code(j.class).expect("a valid class");
    let access = translate_entry(&a.regs, a.page, &a.pte, a.va, class).expect("a valid access");
    if !j.compressed {
        let slot = access.device_slot.address;
        let dev = (0..128u64).filter(|b| j.mask >> (b / 32) & 1 == 1).map(|b| (slot + b, bytes[b as usize])).collect();
        return (dev, Vec::new());
    }
    let d = access.device.bytes;
    let dev = (0..d).map(|b| (access.device.address + b, bytes[b as usize])).collect();
    let bud = access.buddy.map_or_else(Vec::new, |r| (0..r.bytes).map(|b| (r.address + b, bytes[(d + b) as usize])).collect());
    (dev, bud)
}

/// `cycles` random cycles (after reset): a write offered with probability
/// `p_job` per cycle (a random valid access: every target ratio, both page
/// sizes, compressed and uncompressed pages, every size class, a random payload and, uncompressed, a random sector
/// mask), each output port
/// ready with probability `p_ready`. Every cycle's outputs are compared
/// with the model; every job's writes, byte by byte, with the bytes golden
/// stores, and nothing else may be written; then no new job starts and
/// the planner must drain.
///
/// # Errors
/// The first difference, with its cycle.
pub fn run(
    seed: u64,
    cycles: usize,
    p_job: f64,
    p_ready: f64,
    mut lockstep: Option<&mut Vec<String>>,
    vcd: Option<&mut dyn Write>,
) -> Result<WritePlannerRun, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut accesses = valid_accesses(&mut rng);
    let mut dut = WritePlanner::default();
    dut.connect_all();
    let mut trace = VcdTrace::new(vcd, &dut as &dyn Block);
    let mut edge = |dut: &mut WritePlanner| {
        for level in [true, false] {
            dut.clock.next = Clock::from(level);
            settle(dut);
            trace.sample(dut as &dyn Block);
        }
    };
    dut.reset.next = true;
    settle(&mut dut);
    if let Some(l) = lockstep.as_deref_mut() {
        l.push(line(&dut));
    }
    edge(&mut dut);
    dut.reset.next = false;

    let mut model = Model::default();
    let mut out = WritePlannerRun::default();
    let mut offered: Option<(Job, Access)> = None;
    // The held job's golden bytes still to be written, per memory.
    let mut held: Option<(Job, VecDeque<(u64, u8)>, VecDeque<(u64, u8)>)> = None;
    let mut cycle = 0usize;
    loop {
        let draining = cycle >= cycles;
        if draining && offered.is_none() && !model.busy {
            break;
        }
        if cycle > cycles + 10_000 {
            return Err(format!("the planner did not drain within 10,000 cycles after cycle {cycles}"));
        }
        if offered.is_none() && !draining && rng.gen_bool(p_job) {
            if accesses.is_empty() {
                accesses = valid_accesses(&mut rng);
            }
            let a = accesses.pop().expect("non-empty");
            let slot = translate_entry(&a.regs, a.page, &a.pte, a.va, SizeClass::Raw).expect("a valid access");
            let job = Job {
                id: rng.gen_range(0..CONTEXTS),
                class: a.class_code,
                compressed: a.pte.compressed,
                mask: rng.gen_range(0..16),
                device_address: slot.device_slot.address,
                part_bytes: slot.device_slot.bytes,
                // A 1x page has no buddy slot: any address (its writes never spill).
                buddy_address: slot.buddy.map_or(0xdead_bee0, |b| b.address),
                payload: std::array::from_fn(|_| rng.gen()),
            };
            offered = Some((job, a));
        }
        let job = offered.as_ref().map_or_else(
            || Job {
                id: rng.gen_range(0..CONTEXTS),
                class: rng.gen_range(0..8),
                compressed: rng.gen(),
                mask: rng.gen_range(0..16),
                device_address: rng.gen(),
                part_bytes: rng.gen_range(0..256),
                buddy_address: rng.gen(),
                payload: std::array::from_fn(|_| rng.gen()),
            },
            |(j, _)| *j,
        );
        let (dev_ready, bud_ready, done_ready) = (rng.gen_bool(p_ready), rng.gen_bool(p_ready), rng.gen_bool(p_ready));
        dut.in_valid.next = offered.is_some();
        dut.in_id.next = (job.id as u64).into();
        dut.in_class.next = (job.class as u64).into();
        dut.in_compressed.next = job.compressed;
        dut.in_mask.next = (job.mask as u64).into();
        dut.in_device_address.next = job.device_address.into();
        dut.in_device_part_bytes.next = job.part_bytes.into();
        dut.in_buddy_address.next = job.buddy_address.into();
        dut.in_payload.next = EntryBits::from_words(&job.payload);
        dut.dev_wr_ready.next = dev_ready;
        dut.buddy_wr_ready.next = bud_ready;
        dut.done_ready.next = done_ready;
        settle(&mut dut);

        let (dev, bud, done) = (model.dev.offer(model.id, &model.payload), model.bud.offer(model.id, &model.payload), model.done());
        let write =
            |v: bool, id: &Signal<Out, Bits<7>>, a: &Signal<Out, Bits<64>>, d: &Signal<Out, Bits<256>>, s: &Signal<Out, Bits<32>>| {
                v.then(|| SectorWrite {
                    id: id.val().index(),
                    address: a.val().to_u64(),
                    data: sector_words(&d.val()),
                    strobe: s.val().to_u32(),
                })
            };
        let got_dev = write(dut.dev_wr_valid.val(), &dut.dev_wr_id, &dut.dev_wr_address, &dut.dev_wr_data, &dut.dev_wr_strobe);
        let got_bud = write(dut.buddy_wr_valid.val(), &dut.buddy_wr_id, &dut.buddy_wr_address, &dut.buddy_wr_data, &dut.buddy_wr_strobe);
        let got_done = dut.done_valid.val().then(|| dut.done_id.val().index());
        let in_ready = model.in_ready(done_ready);
        if (got_dev, got_bud, got_done, dut.in_ready.val()) != (dev, bud, done.then_some(model.id), in_ready) {
            return Err(format!(
                "cycle {cycle}: hardware (device, buddy, done, in_ready) {:?}, model {:?}",
                (got_dev, got_bud, got_done, dut.in_ready.val()),
                (dev, bud, done.then_some(model.id), in_ready)
            ));
        }
        let (dev_go, bud_go, done_go) = (dev.is_some() && dev_ready, bud.is_some() && bud_ready, done && done_ready);
        // Every byte written must be the next byte golden stores.
        let mut consume = |what: &str, w: &SectorWrite, buddy: bool| -> Result<(), String> {
            let (job, d, b) = held.as_mut().ok_or_else(|| format!("cycle {cycle}: a {what} write with no job held"))?;
            let want = if buddy { b } else { d };
            for byte in w.bytes() {
                if want.pop_front() != Some(byte) {
                    return Err(format!(
                        "cycle {cycle}: {what} write {w:x?} of job {job:x?} writes byte {byte:x?}, not what golden stores next"
                    ));
                }
            }
            Ok(())
        };
        if let Some(w) = dev.filter(|_| dev_go) {
            consume("device", &w, false)?;
            out.device_sectors += 1;
        }
        if let Some(w) = bud.filter(|_| bud_go) {
            consume("buddy", &w, true)?;
            out.buddy_sectors += 1;
        }
        if done_go {
            let (job, d, b) = held.take().expect("done with a job held");
            if !d.is_empty() || !b.is_empty() {
                return Err(format!("cycle {cycle}: job {job:x?} done with golden bytes unwritten: {d:x?} {b:x?}"));
            }
            if job.compressed {
                out.compressed += 1;
                out.spilled += (SizeClass::from_code(job.class).expect("a valid class").bytes() as u64 > job.part_bytes) as usize;
            } else {
                out.uncompressed += 1;
            }
        }
        let take = if in_ready { offered.take() } else { None };
        if let Some((j, a)) = &take {
            let (d, b) = golden_bytes(a, j);
            held = Some((*j, d.into(), b.into()));
        }
        if let Some(l) = lockstep.as_deref_mut() {
            l.push(line(&dut));
        }
        model.clock(take.map(|(j, _)| j), dev_go, bud_go, done_go);
        edge(&mut dut);
        cycle += 1;
        out.cycles += 1;
    }
    Ok(out)
}

/// The planner's timing, measured: cycles from a job's acceptance to its
/// first sector write, and from its last sector write taken to `done`,
/// with every port ready.
pub fn measured_latencies() -> (u64, u64) {
    let mut dut = WritePlanner::default();
    dut.connect_all();
    let edge = |dut: &mut WritePlanner| {
        for level in [true, false] {
            dut.clock.next = Clock::from(level);
            settle(dut);
        }
    };
    dut.reset.next = true;
    settle(&mut dut);
    edge(&mut dut);
    dut.reset.next = false;
    dut.dev_wr_ready.next = true;
    dut.buddy_wr_ready.next = true;
    dut.done_ready.next = true;
    dut.in_valid.next = true;
    dut.in_class.next = 4u64.into();
    dut.in_compressed.next = true;
    dut.in_device_part_bytes.next = 64u64.into();
    dut.in_device_address.next = 0x1000u64.into();
    settle(&mut dut);
    assert!(dut.in_ready.val(), "an idle planner takes a job");
    edge(&mut dut);
    dut.in_valid.next = false;
    let (mut first, mut last) = (None, None);
    for cycle in 1..20u64 {
        settle(&mut dut);
        if dut.dev_wr_valid.val() {
            first.get_or_insert(cycle);
            last = Some(cycle);
        }
        if dut.done_valid.val() {
            return (first.expect("a 64-byte part has sectors"), cycle - last.expect("a 64-byte part has sectors"));
        }
        edge(&mut dut);
    }
    panic!("no done within 20 cycles");
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the write planner.

/// The pipelined slice's write planner as a delivered module.
pub mod delivered {
    use super::*;
    use crate::cosim::CosimPorts;
    use crate::decompress::StoredEntry;
    use crate::modules::{self, DeliveredModule, EquivRun, ModuleKind, VcdWriter, VectorFile};
    use crate::stream::Traffic;
    use buddy_golden::MemoryEntry;

    /// `write_planner`: the pipelined slice's write planner, the sector writes of a payload.
    pub struct Planner;

    impl DeliveredModule for Planner {
        fn ports(&self) -> CosimPorts {
            PORTS
        }
        fn kind(&self) -> ModuleKind {
            ModuleKind::Block
        }
        fn notes(&self) -> Vec<String> {
            crate::interface::pipelined_block_notes()
        }
        fn shipped_testbench(&self, shipped: &[usize]) -> String {
            crate::cosim::lockstep_testbench_shipped(self.name(), LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS, shipped.first().copied())
        }
        fn verilog(&self, revision: &str) -> Result<String, String> {
            modules::emit(WritePlanner::default(), self.name(), revision)
        }
        fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
            // Lock-step lines of a random run, one cycle per entry and the drain (a failing run is reported by `check`).
            let mut lines = Vec::new();
            let _ = run(modules::VECTOR_SEED, entries.len().max(300), 0.5, 0.7, Some(&mut lines), None);
            vec![VectorFile::vectors(self.name(), lines)]
        }
        fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
            // Random writes stored instead of stream traffic: one cycle per entry, then the drain.
            let start = std::time::Instant::now();
            let run = run(seed, entries.len().max(300), traffic.p_valid, traffic.p_ready, None, None)
                .map_err(|e| format!("{}: {e}", self.name()))?;
            Ok(EquivRun { inputs: run.compressed + run.uncompressed, cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
        }
        fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
            run(modules::VCD_SEED, entries.len().max(300), 0.5, 0.7, None, Some(&mut vcd))?;
            Ok(())
        }
    }
}
