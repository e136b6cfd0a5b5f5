//! Adapters for `ReadPlanner`: a reference model written from its
//! documentation, a random driver that checks the hardware against it
//! cycle by cycle and every plan and sector request against the golden
//! translation (`translate_entry`: which device and buddy sectors a read of
//! a size class needs), and lock-step lines for co-simulating its Verilog.

use std::collections::VecDeque;
use std::io::Write;

use crate::cosim::hex_field;
use crate::stream::{settle, VcdTrace};
use crate::translation::{random_accesses, Access};
use buddy_golden::controller_slice::Sectors;
use buddy_golden::translation::{translate_entry, SECTOR_BYTES};
use buddy_golden::SizeClass;
use buddy_hdl::read_planner::kind;
use buddy_hdl::request_contexts::CONTEXTS;
use buddy_hdl::ReadPlanner;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// One job as the planner's `in_*` ports take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Job {
    id: usize,
    kind: u64,
    class: u8,
    compressed: bool,
    device_address: u64,
    part_bytes: u64,
    buddy_address: u64,
}

/// A part's plan (`plan_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    id: usize,
    buddy: bool,
    lead: u64,
    words: u64,
    sectors: u64,
    last: bool,
}

/// A sector request (`dev_req_*` or `buddy_req_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SectorRequest {
    id: usize,
    sector: u64,
    address: u64,
}

/// The job being planned, register by register.
#[derive(Debug, Clone, Copy, Default)]
struct Model {
    id: usize,
    dev_plan: bool,
    bud_plan: bool,
    dev_lead: u64,
    dev_words: u64,
    dev_sectors: u64,
    dev_last: bool,
    bud_lead: u64,
    bud_sectors: u64,
    dev_next: u64,
    bud_next: u64,
    dev_base: u64,
    bud_base: u64,
}

/// Sectors of `bytes` bytes from `address` (none for none).
fn sectors_of(address: u64, bytes: u64) -> u64 {
    if bytes == 0 {
        0
    } else {
        (address % SECTOR_BYTES + bytes).div_ceil(SECTOR_BYTES)
    }
}

impl Model {
    fn plan(&self) -> Option<Plan> {
        if self.dev_plan {
            Some(Plan {
                id: self.id,
                buddy: false,
                lead: self.dev_lead,
                words: self.dev_words,
                sectors: self.dev_sectors,
                last: self.dev_last,
            })
        } else if self.bud_plan {
            Some(Plan { id: self.id, buddy: true, lead: self.bud_lead, words: 0, sectors: self.bud_sectors, last: true })
        } else {
            None
        }
    }
    fn dev_req(&self) -> Option<SectorRequest> {
        (!self.dev_plan && self.dev_next != self.dev_sectors).then_some(SectorRequest {
            id: self.id,
            sector: self.dev_next,
            address: self.dev_base + SECTOR_BYTES * self.dev_next,
        })
    }
    fn bud_req(&self) -> Option<SectorRequest> {
        (!self.bud_plan && self.bud_next != self.bud_sectors).then_some(SectorRequest {
            id: self.id,
            sector: self.bud_next,
            address: self.bud_base + SECTOR_BYTES * self.bud_next,
        })
    }
    /// Whether nothing of the job is left after this cycle's transfers
    /// (a new job starts then).
    fn done(&self, plan_go: bool, dev_go: bool, bud_go: bool) -> bool {
        let dev_plan_left = self.dev_plan && !plan_go;
        let bud_plan_left = self.bud_plan && !(plan_go && !self.dev_plan);
        !dev_plan_left
            && !bud_plan_left
            && self.dev_next + dev_go as u64 == self.dev_sectors
            && self.bud_next + bud_go as u64 == self.bud_sectors
    }
    fn clock(&mut self, start: Option<Job>, plan_go: bool, dev_go: bool, bud_go: bool) {
        if plan_go {
            if self.dev_plan {
                self.dev_plan = false;
            } else {
                self.bud_plan = false;
            }
        }
        self.dev_next += dev_go as u64;
        self.bud_next += bud_go as u64;
        let Some(j) = start else { return };
        let class_bytes = [0u64, 8, 16, 32, 64, 80, 96, 128][j.class as usize];
        let (mut dev, mut bud) = (class_bytes.min(j.part_bytes), class_bytes.saturating_sub(j.part_bytes));
        if j.kind == kind::SLOT {
            dev = j.part_bytes;
        }
        if !j.compressed {
            (dev, bud) = (128, 0);
        }
        *self = Model {
            id: j.id,
            dev_plan: j.kind != kind::FINISH,
            bud_plan: j.kind == kind::FINISH || (j.kind == kind::FULL && bud > 0),
            dev_lead: (j.device_address >> 2) & 7,
            dev_words: dev / 4,
            dev_sectors: if j.kind == kind::FINISH { 0 } else { sectors_of(j.device_address, dev) },
            dev_last: j.kind == kind::FULL && bud == 0,
            bud_lead: (j.buddy_address >> 2) & 7,
            bud_sectors: if j.kind == kind::SLOT { 0 } else { sectors_of(j.buddy_address, bud) },
            dev_next: 0,
            bud_next: 0,
            dev_base: j.device_address & !31,
            bud_base: j.buddy_address & !31,
        };
    }
}

/// What a run observed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PlannerRun {
    /// Jobs accepted: full reads, device slots (metadata misses), finishes.
    pub full: usize,
    pub slots: usize,
    pub finishes: usize,
    /// Plans and sector requests handed on (each checked against golden).
    pub plans: usize,
    pub device_sectors: usize,
    pub buddy_sectors: usize,
    pub cycles: u64,
}

/// Lock-step ports of `read_planner` (line order).
pub const LOCKSTEP_INPUTS: &[(&str, usize)] = &[
    ("reset", 1),
    ("in_valid", 1),
    ("in_id", 7),
    ("in_kind", 2),
    ("in_class", 3),
    ("in_compressed", 1),
    ("in_device_address", 64),
    ("in_device_part_bytes", 8),
    ("in_buddy_address", 64),
    ("plan_ready", 1),
    ("dev_req_ready", 1),
    ("buddy_req_ready", 1),
];
/// Lock-step outputs: (name, width, qualifier).
pub const LOCKSTEP_OUTPUTS: &[(&str, usize, &str)] = &[
    ("in_ready", 1, ""),
    ("plan_valid", 1, ""),
    ("plan_id", 7, "plan_valid"),
    ("plan_buddy", 1, "plan_valid"),
    ("plan_lead", 3, "plan_valid"),
    ("plan_words", 6, "plan_valid"),
    ("plan_sectors", 3, "plan_valid"),
    ("plan_last", 1, "plan_valid"),
    ("dev_req_valid", 1, ""),
    ("dev_req_id", 7, "dev_req_valid"),
    ("dev_req_sector", 3, "dev_req_valid"),
    ("dev_req_address", 64, "dev_req_valid"),
    ("buddy_req_valid", 1, ""),
    ("buddy_req_id", 7, "buddy_req_valid"),
    ("buddy_req_sector", 3, "buddy_req_valid"),
    ("buddy_req_address", 64, "buddy_req_valid"),
];

/// Co-simulation ports (the lock-step ones).
pub const PORTS: crate::cosim::CosimPorts = crate::cosim::CosimPorts {
    module: "read_planner",
    inputs: LOCKSTEP_INPUTS,
    outputs: &[
        ("in_ready", 1),
        ("plan_valid", 1),
        ("plan_id", 7),
        ("plan_buddy", 1),
        ("plan_lead", 3),
        ("plan_words", 6),
        ("plan_sectors", 3),
        ("plan_last", 1),
        ("dev_req_valid", 1),
        ("dev_req_id", 7),
        ("dev_req_sector", 3),
        ("dev_req_address", 64),
        ("buddy_req_valid", 1),
        ("buddy_req_id", 7),
        ("buddy_req_sector", 3),
        ("buddy_req_address", 64),
    ],
};

fn line(dut: &ReadPlanner) -> String {
    let b = |v: bool| hex_field(v as u64, 1);
    [
        b(dut.reset.val()),
        b(dut.in_valid.val()),
        hex_field(dut.in_id.val().to_u64(), 7),
        hex_field(dut.in_kind.val().to_u64(), 2),
        hex_field(dut.in_class.val().to_u64(), 3),
        b(dut.in_compressed.val()),
        hex_field(dut.in_device_address.val().to_u64(), 64),
        hex_field(dut.in_device_part_bytes.val().to_u64(), 8),
        hex_field(dut.in_buddy_address.val().to_u64(), 64),
        b(dut.plan_ready.val()),
        b(dut.dev_req_ready.val()),
        b(dut.buddy_req_ready.val()),
        b(dut.in_ready.val()),
        b(dut.plan_valid.val()),
        hex_field(dut.plan_id.val().to_u64(), 7),
        b(dut.plan_buddy.val()),
        hex_field(dut.plan_lead.val().to_u64(), 3),
        hex_field(dut.plan_words.val().to_u64(), 6),
        hex_field(dut.plan_sectors.val().to_u64(), 3),
        b(dut.plan_last.val()),
        b(dut.dev_req_valid.val()),
        hex_field(dut.dev_req_id.val().to_u64(), 7),
        hex_field(dut.dev_req_sector.val().to_u64(), 3),
        hex_field(dut.dev_req_address.val().to_u64(), 64),
        b(dut.buddy_req_valid.val()),
        hex_field(dut.buddy_req_id.val().to_u64(), 7),
        hex_field(dut.buddy_req_sector.val().to_u64(), 3),
        hex_field(dut.buddy_req_address.val().to_u64(), 64),
    ]
    .concat()
}

/// What the golden translation says a job must hand on: its plans and
/// its device and buddy sector requests, in order.
#[derive(Debug, Default)]
struct Expected {
    plans: VecDeque<Plan>,
    device: VecDeque<SectorRequest>,
    buddy: VecDeque<SectorRequest>,
}

fn requests(id: usize, s: Sectors) -> impl Iterator<Item = SectorRequest> {
    (0..s.count).map(move |i| SectorRequest { id, sector: i, address: s.first + i * SECTOR_BYTES })
}

/// A random read of a random valid access (every target ratio, both page
/// sizes, compressed and uncompressed pages, every size class), as the
/// slice would plan it: one FULL job on a metadata hit (or an uncompressed
/// page), or a SLOT job and later a FINISH job on a miss. Returns the
/// jobs, each with what it must hand on, from `translate_entry`.
fn random_read(a: &Access, id: usize, miss: bool) -> Vec<(Job, Expected)> {
    let class = SizeClass::from_code(a.class_code).expect("a valid class");
    let slot = translate_entry(&a.regs, a.page, &a.pte, a.va, SizeClass::Raw).expect("a valid access");
    let access = translate_entry(&a.regs, a.page, &a.pte, a.va, class).expect("a valid access");
    let job = |kind| Job {
        id,
        kind,
        class: a.class_code,
        compressed: a.pte.compressed,
        device_address: slot.device_slot.address,
        part_bytes: slot.device_slot.bytes,
        // A 1x page has no buddy slot: any address (its reads never spill).
        buddy_address: slot.buddy.map_or(0xdead_bee0, |b| b.address),
    };
    let device = Sectors::of(if miss { slot.device_slot } else { access.device });
    let buddy = access.buddy.map_or_else(Sectors::default, Sectors::of);
    let lead = |address: u64| (address >> 2) & 7;
    let dev_words = if miss { slot.device_slot.bytes } else { access.device.bytes } / 4;
    let spills = buddy.count > 0;
    let mut first = Expected::default();
    first.plans.push_back(Plan {
        id,
        buddy: false,
        lead: lead(slot.device_slot.address),
        words: dev_words,
        sectors: device.count,
        last: !miss && !spills,
    });
    first.device.extend(requests(id, device));
    let mut rest = Expected::default();
    if miss || spills {
        let bud_lead = access.buddy.map_or(lead(job(kind::FULL).buddy_address), |b| lead(b.address));
        rest.plans.push_back(Plan { id, buddy: true, lead: bud_lead, words: 0, sectors: buddy.count, last: true });
    }
    rest.buddy.extend(requests(id, buddy));
    if miss {
        vec![(job(kind::SLOT), first), (job(kind::FINISH), rest)]
    } else {
        first.plans.extend(rest.plans);
        first.buddy = rest.buddy;
        vec![(job(kind::FULL), first)]
    }
}

/// Random valid accesses (no fault, a valid class code), with the page
/// frame and the GBBR 128-byte aligned as in any real system (so every
/// device part and buddy slot starts on an 8-byte boundary, which the
/// planners' word lanes rely on).
pub(crate) fn valid_accesses(rng: &mut ChaCha8Rng) -> Vec<Access> {
    loop {
        let found: Vec<Access> = random_accesses(400, rng)
            .into_iter()
            .map(|mut a| {
                a.pte.frame &= !127;
                a.regs.gbbr &= !127;
                a
            })
            .filter(|a| {
                SizeClass::from_code(a.class_code).is_ok_and(|c| translate_entry(&a.regs, a.page, &a.pte, a.va, c).is_ok())
                    && translate_entry(&a.regs, a.page, &a.pte, a.va, SizeClass::Raw).is_ok()
            })
            .collect();
        if found.len() > 50 {
            return found;
        }
    }
}

/// `cycles` random cycles (after reset): a job offered with probability
/// `p_job` per cycle (a random valid access of a random size class; a
/// compressed page's read misses its metadata with probability 0.4, and
/// then its FINISH job is offered 1-4 reads later), each output port ready
/// with probability `p_ready`. Every cycle's outputs are compared with
/// the model, and every plan and sector request handed on with what the
/// golden translation says the read needs, in order; then no new job
/// starts and the planner must drain.
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
) -> Result<PlannerRun, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut accesses = valid_accesses(&mut rng);
    let mut dut = ReadPlanner::default();
    dut.connect_all();
    let mut trace = VcdTrace::new(vcd, &dut as &dyn Block);
    let mut edge = |dut: &mut ReadPlanner| {
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
    // A job taken while the current one had transfers left (one at most).
    let mut waiting: Option<Job> = None;
    let mut expected = Expected::default();
    // Jobs to offer, in order, each with what it must hand on.
    let mut pending: VecDeque<(Job, Expected)> = VecDeque::new();
    let mut out = PlannerRun::default();
    let mut offered: Option<(Job, Expected)> = None;
    let mut parked: VecDeque<(u32, (Job, Expected))> = VecDeque::new();
    let mut cycle = 0usize;
    loop {
        let draining = cycle >= cycles;
        if draining
            && offered.is_none()
            && pending.is_empty()
            && parked.is_empty()
            && waiting.is_none()
            && model.plan().is_none()
            && model.dev_req().is_none()
            && model.bud_req().is_none()
        {
            break;
        }
        if cycle > cycles + 10_000 {
            return Err(format!("the planner did not drain within 10,000 cycles after cycle {cycles}"));
        }
        if offered.is_none() {
            if pending.is_empty() && !draining && rng.gen_bool(p_job) {
                if accesses.is_empty() {
                    accesses = valid_accesses(&mut rng);
                }
                let a = accesses.pop().expect("non-empty");
                let miss = a.pte.compressed && rng.gen_bool(0.4);
                let mut jobs = random_read(&a, rng.gen_range(0..CONTEXTS), miss).into_iter();
                pending.push_back(jobs.next().expect("a read has a job"));
                // A FINISH comes 0-3 reads after its SLOT (its metadata fill).
                for p in parked.iter_mut() {
                    p.0 = p.0.saturating_sub(1);
                }
                if let Some(finish) = jobs.next() {
                    parked.push_back((rng.gen_range(1..=4), finish));
                }
            }
            let flush = draining && pending.is_empty();
            while let Some(i) = parked.iter().position(|p| p.0 == 0 || flush) {
                pending.push_back(parked.remove(i).expect("found").1);
            }
            offered = pending.pop_front();
        }
        let job = offered.as_ref().map(|(j, _)| *j).unwrap_or(Job {
            id: rng.gen_range(0..CONTEXTS),
            kind: rng.gen_range(0..4),
            class: rng.gen_range(0..8),
            compressed: rng.gen(),
            device_address: rng.gen(),
            part_bytes: rng.gen_range(0..256),
            buddy_address: rng.gen(),
        });
        let (plan_ready, dev_ready, bud_ready) = (rng.gen_bool(p_ready), rng.gen_bool(p_ready), rng.gen_bool(p_ready));
        dut.in_valid.next = offered.is_some();
        dut.in_id.next = (job.id as u64).into();
        dut.in_kind.next = job.kind.into();
        dut.in_class.next = (job.class as u64).into();
        dut.in_compressed.next = job.compressed;
        dut.in_device_address.next = job.device_address.into();
        dut.in_device_part_bytes.next = job.part_bytes.into();
        dut.in_buddy_address.next = job.buddy_address.into();
        dut.plan_ready.next = plan_ready;
        dut.dev_req_ready.next = dev_ready;
        dut.buddy_req_ready.next = bud_ready;
        settle(&mut dut);

        let (plan, dev, bud) = (model.plan(), model.dev_req(), model.bud_req());
        let got_plan = dut.plan_valid.val().then(|| Plan {
            id: dut.plan_id.val().index(),
            buddy: dut.plan_buddy.val(),
            lead: dut.plan_lead.val().to_u64(),
            words: dut.plan_words.val().to_u64(),
            sectors: dut.plan_sectors.val().to_u64(),
            last: dut.plan_last.val(),
        });
        let req = |v: bool, id: &Signal<Out, Bits<7>>, s: &Signal<Out, Bits<3>>, a: &Signal<Out, Bits<64>>| {
            v.then(|| SectorRequest { id: id.val().index(), sector: s.val().to_u64(), address: a.val().to_u64() })
        };
        let got_dev = req(dut.dev_req_valid.val(), &dut.dev_req_id, &dut.dev_req_sector, &dut.dev_req_address);
        let got_bud = req(dut.buddy_req_valid.val(), &dut.buddy_req_id, &dut.buddy_req_sector, &dut.buddy_req_address);
        let (plan_go, dev_go, bud_go) = (plan.is_some() && plan_ready, dev.is_some() && dev_ready, bud.is_some() && bud_ready);
        let in_ready = waiting.is_none();
        if (got_plan, got_dev, got_bud, dut.in_ready.val()) != (plan, dev, bud, in_ready) {
            return Err(format!(
                "cycle {cycle}: hardware (plan, device, buddy, in_ready) {:?}, model {:?}",
                (got_plan, got_dev, got_bud, dut.in_ready.val()),
                (plan, dev, bud, in_ready)
            ));
        }
        // What is handed on must be what golden says the reads need.
        let check = |what: &str, got: Option<String>, want: Option<String>| match got == want {
            true => Ok(()),
            false => Err(format!("cycle {cycle}: {what} {got:?}, golden expects {want:?}")),
        };
        if plan_go {
            check("plan", plan.map(|p| format!("{p:?}")), expected.plans.pop_front().map(|p| format!("{p:?}")))?;
            out.plans += 1;
        }
        if dev_go {
            check("device sector", dev.map(|p| format!("{p:?}")), expected.device.pop_front().map(|p| format!("{p:?}")))?;
            out.device_sectors += 1;
        }
        if bud_go {
            check("buddy sector", bud.map(|p| format!("{p:?}")), expected.buddy.pop_front().map(|p| format!("{p:?}")))?;
            out.buddy_sectors += 1;
        }
        let take = if in_ready { offered.take() } else { None };
        if let Some((j, e)) = &take {
            match j.kind {
                kind::FULL => out.full += 1,
                kind::SLOT => out.slots += 1,
                _ => out.finishes += 1,
            }
            // The planner hands things on in job order.
            expected.plans.extend(e.plans.iter().copied());
            expected.device.extend(e.device.iter().copied());
            expected.buddy.extend(e.buddy.iter().copied());
        }
        let mut take = take.map(|(j, _)| j);
        if let Some(l) = lockstep.as_deref_mut() {
            l.push(line(&dut));
        }
        let start = if model.done(plan_go, dev_go, bud_go) { waiting.take().or_else(|| take.take()) } else { None };
        if take.is_some() {
            waiting = take;
        }
        model.clock(start, plan_go, dev_go, bud_go);
        edge(&mut dut);
        cycle += 1;
        out.cycles += 1;
    }
    if !(expected.plans.is_empty() && expected.device.is_empty() && expected.buddy.is_empty()) {
        return Err(format!("after the drain, golden still expects {expected:?}"));
    }
    Ok(out)
}

/// The planner's timing, measured: cycles from a full read's acceptance to
/// its first plan, and from the plan's transfer to its first sector
/// request, with every port ready.
pub fn measured_latencies() -> (u64, u64) {
    let mut dut = ReadPlanner::default();
    dut.connect_all();
    let edge = |dut: &mut ReadPlanner| {
        for level in [true, false] {
            dut.clock.next = Clock::from(level);
            settle(dut);
        }
    };
    dut.reset.next = true;
    settle(&mut dut);
    edge(&mut dut);
    dut.reset.next = false;
    dut.plan_ready.next = true;
    dut.dev_req_ready.next = true;
    dut.buddy_req_ready.next = true;
    dut.in_valid.next = true;
    dut.in_kind.next = kind::FULL.into();
    dut.in_class.next = 7u64.into();
    dut.in_compressed.next = true;
    dut.in_device_part_bytes.next = 64u64.into();
    dut.in_device_address.next = 0x1000u64.into();
    dut.in_buddy_address.next = 0x8000u64.into();
    let (mut accepted, mut planned) = (None, None);
    for cycle in 0..20u64 {
        settle(&mut dut);
        if accepted.is_none() && dut.in_ready.val() {
            accepted = Some(cycle);
        } else if accepted.is_some() {
            dut.in_valid.next = false;
            settle(&mut dut);
        }
        if planned.is_none() && dut.plan_valid.val() {
            planned = Some(cycle);
        }
        if let (Some(a), Some(p)) = (accepted, planned) {
            if dut.dev_req_valid.val() {
                return (p - a, cycle - p);
            }
        }
        edge(&mut dut);
    }
    panic!("no sector request within 20 cycles");
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the read planner.

/// The pipelined slice's read planner as a delivered module.
pub mod delivered {
    use super::*;
    use crate::cosim::CosimPorts;
    use crate::decompress::StoredEntry;
    use crate::modules::{self, DeliveredModule, EquivRun, ModuleKind, VcdWriter, VectorFile};
    use crate::stream::Traffic;
    use buddy_golden::MemoryEntry;

    /// `read_planner`: the pipelined slice's read planner, the sectors a read needs.
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
            modules::emit(ReadPlanner::default(), self.name(), revision)
        }
        fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
            // Lock-step lines of a random run, one cycle per entry and the drain (a failing run is reported by `check`).
            let mut lines = Vec::new();
            let _ = run(modules::VECTOR_SEED, entries.len().max(300), 0.5, 0.7, Some(&mut lines), None);
            vec![VectorFile::vectors(self.name(), lines)]
        }
        fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
            // Random reads planned instead of stream traffic: one cycle per entry, then the drain.
            let start = std::time::Instant::now();
            let run = run(seed, entries.len().max(300), traffic.p_valid, traffic.p_ready, None, None)
                .map_err(|e| format!("{}: {e}", self.name()))?;
            Ok(EquivRun { inputs: run.full + run.slots + run.finishes, cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
        }
        fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
            run(modules::VCD_SEED, entries.len().max(300), 0.5, 0.7, None, Some(&mut vcd))?;
            Ok(())
        }
    }
}
