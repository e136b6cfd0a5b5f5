//! Adapters for `ReadPlanner`: a random driver that checks the hardware
//! against its cycle model (`buddy_hdl_model::read_planner`) cycle by
//! cycle and every plan and sector request against the golden translation
//! (`translate_entry`: which device and buddy sectors a read of a size
//! class needs), and lock-step lines for co-simulating its Verilog.

use std::collections::VecDeque;
use std::io::Write;

use crate::harness::Harness;
use crate::translation::{random_accesses, Access};
use buddy_golden::controller_slice::Sectors;
use buddy_golden::translation::{translate_entry, SECTOR_BYTES};
use buddy_golden::SizeClass;
use buddy_hdl::read_planner::{kind, RUN_SECTORS};
use buddy_hdl::request_contexts::CONTEXTS;
use buddy_hdl::ReadPlanner;
use buddy_hdl_model::read_planner::{drive, hardware_out, Plan, ReadPlannerIn, ReadPlannerModel, SectorRequest};
use buddy_hdl_model::CycleModel;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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

crate::lockstep_ports!(ReadPlanner, "read_planner",
    inputs: [
        reset: 1,
        in_valid: 1,
        in_id: 7,
        in_kind: 2,
        in_class: 3,
        in_compressed: 1,
        in_device_address: 64,
        in_device_part_bytes: 8,
        in_buddy_address: 64,
        plan_ready: 1,
        dev_req_ready: 1,
        buddy_req_ready: 1,
    ],
    outputs: [
        in_ready: 1,
        plan_valid: 1,
        plan_id: 7 if plan_valid,
        plan_device: 1 if plan_valid,
        plan_lead: 3 if plan_valid,
        plan_words: 6 if plan_valid,
        plan_sectors: 3 if plan_valid,
        plan_buddy: 1 if plan_valid,
        plan_bud_lead: 3 if plan_valid,
        plan_bud_sectors: 3 if plan_valid,
        plan_last: 1 if plan_valid,
        dev_req_valid: 1,
        dev_req_id: 7 if dev_req_valid,
        dev_req_sector: 3 if dev_req_valid,
        dev_req_address: 64 if dev_req_valid,
        dev_req_sectors: 3 if dev_req_valid,
        buddy_req_valid: 1,
        buddy_req_id: 7 if buddy_req_valid,
        buddy_req_sector: 3 if buddy_req_valid,
        buddy_req_address: 64 if buddy_req_valid,
        buddy_req_sectors: 3 if buddy_req_valid,
        done_valid: 1,
        done_id: 7 if done_valid,
    ],
);

/// What the golden translation says a job must hand on: its plans and
/// its device and buddy reads (runs of up to 4 sectors), in order.
#[derive(Debug, Default)]
struct Expected {
    plans: VecDeque<Plan>,
    device: VecDeque<SectorRequest>,
    buddy: VecDeque<SectorRequest>,
}

/// A part's sectors as runs of up to [`RUN_SECTORS`], lowest first.
fn requests(id: u8, s: Sectors) -> impl Iterator<Item = SectorRequest> {
    (0..s.count).step_by(RUN_SECTORS as usize).map(move |i| SectorRequest {
        id,
        sector: i as u8,
        address: s.first + i * SECTOR_BYTES,
        sectors: (s.count - i).min(RUN_SECTORS) as u8,
    })
}

/// A random read of a random valid access (every target ratio, both page
/// sizes, compressed and uncompressed pages, every size class), as the
/// slice would plan it: one FULL job on a metadata hit (or an uncompressed
/// page), or a SLOT job and later a FINISH job on a miss. Returns the
/// jobs, each with what it must hand on, from `translate_entry`.
fn random_read(a: &Access, id: u8, miss: bool) -> Vec<(ReadPlannerIn, Expected)> {
    let class = SizeClass::from_code(a.class_code).expect("a valid class");
    let slot = translate_entry(&a.regs, a.page, &a.pte, a.va, SizeClass::Raw).expect("a valid access");
    let access = translate_entry(&a.regs, a.page, &a.pte, a.va, class).expect("a valid access");
    let job = |kind: u64| ReadPlannerIn {
        in_valid: true,
        in_id: id,
        in_kind: kind as u8,
        in_class: a.class_code,
        in_compressed: a.pte.compressed,
        in_device_address: slot.device_slot.address,
        in_device_part_bytes: slot.device_slot.bytes as u8,
        // A 1x page has no buddy slot: any address (its reads never spill).
        in_buddy_address: slot.buddy.map_or(0xdead_bee0, |b| b.address),
        ..Default::default()
    };
    let device = Sectors::of(if miss { slot.device_slot } else { access.device });
    let buddy = access.buddy.map_or_else(Sectors::default, Sectors::of);
    let lead = |address: u64| ((address >> 2) & 7) as u8;
    let dev_words = (if miss { slot.device_slot.bytes } else { access.device.bytes } / 4) as u8;
    let spills = buddy.count > 0;
    let dev_plan = Plan {
        id,
        device: true,
        lead: lead(slot.device_slot.address),
        words: dev_words,
        sectors: device.count as u8,
        ..Default::default()
    };
    let bud_plan = Plan {
        id,
        buddy: true,
        bud_lead: access.buddy.map_or(lead(job(kind::FULL).in_buddy_address), |b| lead(b.address)),
        bud_sectors: buddy.count as u8,
        last: true,
        ..Default::default()
    };
    if miss {
        // The slot first, the buddy part (maybe none) once the class is known.
        let mut first = Expected::default();
        first.plans.push_back(dev_plan);
        first.device.extend(requests(id, device));
        let mut rest = Expected::default();
        rest.plans.push_back(bud_plan);
        rest.buddy.extend(requests(id, buddy));
        vec![(job(kind::SLOT), first), (job(kind::FINISH), rest)]
    } else {
        // One plan of both parts (the buddy part's when the class spills).
        let mut full = Expected::default();
        full.plans.push_back(Plan { buddy: spills, bud_lead: bud_plan.bud_lead, bud_sectors: bud_plan.bud_sectors, last: true, ..dev_plan });
        full.device.extend(requests(id, device));
        full.buddy.extend(requests(id, buddy));
        vec![(job(kind::FULL), full)]
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
/// the cycle model, and every plan and sector request handed on with what
/// the golden translation says the read needs, in order; then no new job
/// starts and the planner must drain.
///
/// # Errors
/// The first difference, with its cycle.
pub fn run(
    seed: u64,
    cycles: usize,
    p_job: f64,
    p_ready: f64,
    lockstep: Option<&mut Vec<String>>,
    vcd: Option<&mut dyn Write>,
) -> Result<PlannerRun, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut accesses = valid_accesses(&mut rng);
    let mut hw = ReadPlanner::default();
    let mut dut = Harness::new(&mut hw, vcd).record(lockstep, line);
    dut.reset(1);

    let mut model = ReadPlannerModel::default();
    let mut expected = Expected::default();
    // Jobs to offer, in order, each with what it must hand on.
    let mut pending: VecDeque<(ReadPlannerIn, Expected)> = VecDeque::new();
    let mut out = PlannerRun::default();
    let mut offered: Option<(ReadPlannerIn, Expected)> = None;
    let mut parked: VecDeque<(u32, (ReadPlannerIn, Expected))> = VecDeque::new();
    let mut cycle = 0usize;
    loop {
        let draining = cycle >= cycles;
        if draining && offered.is_none() && pending.is_empty() && parked.is_empty() && model.is_idle() {
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
                let mut jobs = random_read(&a, rng.gen_range(0..CONTEXTS) as u8, miss).into_iter();
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
        // With no job offered the job ports carry anything (drawn every
        // cycle, as the shipped vectors were).
        let idle = ReadPlannerIn {
            in_id: rng.gen_range(0..CONTEXTS) as u8,
            in_kind: rng.gen_range(0..4u64) as u8,
            in_class: rng.gen_range(0..8),
            in_compressed: rng.gen(),
            in_device_address: rng.gen(),
            in_device_part_bytes: rng.gen_range(0..256u64) as u8,
            in_buddy_address: rng.gen(),
            ..Default::default()
        };
        let mut i = offered.as_ref().map_or(idle, |(j, _)| j.clone());
        (i.plan_ready, i.dev_req_ready, i.buddy_req_ready) = (rng.gen_bool(p_ready), rng.gen_bool(p_ready), rng.gen_bool(p_ready));
        drive(&mut dut, &i);
        dut.settle();

        let want = model.outputs(&i);
        let got = hardware_out(&dut);
        if got != want {
            return Err(format!("cycle {cycle}: hardware {got:?}, model {want:?}"));
        }
        // What is handed on must be what golden says the reads need.
        if let Some(p) = want.plan.filter(|_| i.plan_ready) {
            golden_agrees(cycle, "plan", p.layout(), expected.plans.pop_front().map(Plan::layout))?;
            out.plans += 1;
        }
        if let Some(r) = want.dev_req.filter(|_| i.dev_req_ready) {
            golden_agrees(cycle, "device read", r, expected.device.pop_front())?;
            out.device_sectors += usize::from(r.sectors);
        }
        if let Some(r) = want.buddy_req.filter(|_| i.buddy_req_ready) {
            golden_agrees(cycle, "buddy read", r, expected.buddy.pop_front())?;
            out.buddy_sectors += usize::from(r.sectors);
        }
        if let Some((j, e)) = offered.take_if(|_| want.in_ready) {
            match u64::from(j.in_kind) {
                kind::FULL => out.full += 1,
                kind::SLOT => out.slots += 1,
                _ => out.finishes += 1,
            }
            // The planner hands things on in job order.
            expected.plans.extend(e.plans);
            expected.device.extend(e.device);
            expected.buddy.extend(e.buddy);
        }
        model.clock(&i);
        dut.cycle();
        cycle += 1;
        out.cycles += 1;
    }
    if !(expected.plans.is_empty() && expected.device.is_empty() && expected.buddy.is_empty()) {
        return Err(format!("after the drain, golden still expects {expected:?}"));
    }
    Ok(out)
}

/// `Ok` if what the planner hands on is what golden expects next.
fn golden_agrees<T: PartialEq + std::fmt::Debug>(cycle: usize, what: &str, got: T, want: Option<T>) -> Result<(), String> {
    match want.as_ref() == Some(&got) {
        true => Ok(()),
        false => Err(format!("cycle {cycle}: {what} {got:?}, golden expects {want:?}")),
    }
}

/// The planner's timing, measured: cycles from a full read's acceptance to
/// its first plan, and from the plan's transfer to its first sector
/// request, with every port ready.
pub fn measured_latencies() -> (u64, u64) {
    let mut hw = ReadPlanner::default();
    let mut dut = Harness::new(&mut hw, None);
    dut.reset(1);
    let mut i = ReadPlannerIn {
        in_valid: true,
        in_kind: kind::FULL as u8,
        in_class: 7,
        in_compressed: true,
        in_device_part_bytes: 64,
        in_device_address: 0x1000,
        in_buddy_address: 0x8000,
        plan_ready: true,
        dev_req_ready: true,
        buddy_req_ready: true,
        ..Default::default()
    };
    drive(&mut dut, &i);
    let (mut accepted, mut planned) = (None, None);
    for cycle in 0..20u64 {
        dut.settle();
        if accepted.is_none() && dut.in_ready.val() {
            accepted = Some(cycle);
        } else if accepted.is_some() {
            i.in_valid = false;
            drive(&mut dut, &i);
            dut.settle();
        }
        if planned.is_none() && dut.plan_valid.val() {
            planned = Some(cycle);
        }
        if let (Some(a), Some(p)) = (accepted, planned) {
            if dut.dev_req_valid.val() {
                return (p - a, cycle - p);
            }
        }
        dut.edge();
    }
    panic!("no sector request within 20 cycles");
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the read planner.

/// The pipelined slice's read planner as a delivered module.
pub mod delivered {
    use super::{ReadPlanner, LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS, PORTS};
    use crate::modules::{emit, LockstepBlock};
    use crate::stream::Traffic;
    use crate::waves::Filter;
    use std::io::Write;

    /// `read_planner`: the pipelined slice's read planner, the sectors a read needs.
    pub const PLANNER: LockstepBlock = LockstepBlock {
        ports: PORTS,
        inputs: LOCKSTEP_INPUTS,
        outputs: LOCKSTEP_OUTPUTS,
        verilog: |name, revision| emit(ReadPlanner::default(), name, revision),
        min_requests: 300,
        groups: &[
            ("clock and reset", &["clock", "reset"]),
            ("read in", &["in_*"]),
            ("plan out", &["plan_*"]),
            ("device requests out", &["dev_req_*"]),
            ("buddy requests out", &["buddy_req_*"]),
            ("read issued", &["done_*"]),
        ],
        filters: &[("in_kind", Filter::ReadKind), ("in_class", Filter::SizeClass)],
        run,
    };

    fn run(
        seed: u64,
        requests: usize,
        traffic: Option<Traffic>,
        lines: Option<&mut Vec<String>>,
        vcd: Option<&mut dyn Write>,
    ) -> Result<(usize, u64), String> {
        // Random reads planned instead of stream traffic.
        let (p_job, p_ready) = traffic.map_or((0.5, 0.7), |t| (t.p_valid, t.p_ready));
        let run = super::run(seed, requests, p_job, p_ready, lines, vcd)?;
        Ok((run.full + run.slots + run.finishes, run.cycles))
    }
}
