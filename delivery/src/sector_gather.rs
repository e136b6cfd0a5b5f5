//! Adapters for `SectorGather`: a random driver that plays the planner
//! and both memories (reads of every target ratio, metadata hits and
//! misses, sectors answered out of order) and checks the hardware against
//! its cycle model (`buddy_hdl_model::sector_gather`) cycle by cycle and
//! every payload it shows against the words the read's sectors carried,
//! and lock-step lines for co-simulating its Verilog.

use std::collections::VecDeque;
use std::io::Write;

use crate::harness::Harness;
use buddy_hdl::request_contexts::CONTEXTS;
use buddy_hdl::{EntryBits, SectorGather};
use buddy_hdl_model::sector_gather::{hardware_out, SectorGatherIn, SectorGatherModel};
use buddy_hdl_model::CycleModel;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use buddy_golden::SECTOR_WORDS;

/// One part's layout: its lead word, words (the device part's only) and sectors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Part {
    lead: usize,
    words: usize,
    sectors: usize,
}

/// A plan on `plan_*`: the layouts of the parts it holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Plan {
    id: usize,
    device: Option<Part>,
    buddy: Option<Part>,
    last: bool,
}

/// A sector answered by memory.
#[derive(Debug, Clone, Copy)]
struct Sector {
    id: usize,
    /// The run's first sector's index in its part (0 or 4), and its sectors.
    index: usize,
    count: usize,
    /// Run sector `k` at words `8k..8k + 8`.
    data: [u32; 32],
}

/// One read in flight: its parts' plans and the words the payload must
/// hold (`None`: no sector planned covers the word).
struct Read {
    expected: [Option<u32>; 32],
    /// The sectors' words: the device part's 5, then the buddy part's 5.
    data: Vec<[u32; SECTOR_WORDS]>,
}

/// What a run observed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct GatherRun {
    /// Payloads handed on (each checked).
    pub reads: usize,
    /// Of those, reads with a buddy part / planned in two steps (a
    /// metadata miss).
    pub with_buddy: usize,
    pub split: usize,
    /// Most contexts planned and not yet handed on at once.
    pub most_in_flight: usize,
    /// Runs of sectors answered, and those of 4 sectors.
    pub runs: usize,
    pub whole_runs: usize,
    pub cycles: u64,
}

crate::lockstep_ports!(SectorGather, "sector_gather",
    inputs: [
        reset: 1,
        plan_valid: 1,
        plan_id: 7,
        plan_device: 1,
        plan_lead: 3,
        plan_words: 6,
        plan_sectors: 3,
        plan_buddy: 1,
        plan_bud_lead: 3,
        plan_bud_sectors: 3,
        plan_last: 1,
        dev_valid: 1,
        dev_id: 7,
        dev_sector: 3,
        dev_sectors: 3,
        dev_data: 1024,
        buddy_valid: 1,
        buddy_id: 7,
        buddy_sector: 3,
        buddy_sectors: 3,
        buddy_data: 1024,
        out_ready: 1,
    ],
    outputs: [
        plan_ready: 1,
        dev_ready: 1,
        buddy_ready: 1,
        out_valid: 1,
        out_id: 7 if out_valid,
        out_payload: 1024 if out_valid,
    ],
);

/// The sectors of a part of `words` words starting `lead` words into its
/// first sector (at least one sector per started 8 words).
fn sectors_of(lead: usize, words: usize) -> usize {
    if words == 0 {
        0
    } else {
        (lead + words).div_ceil(SECTOR_WORDS)
    }
}

/// A random read's plans as a metadata hit (one plan of both parts) or
/// miss (the whole device slot first, the buddy part later), with the
/// device part's bytes of a target ratio (2, 8, 16, 24 or 32 words; a 16x
/// part 0-6 words into its sector), a size class, and a buddy part that
/// starts 0-6 words into its first sector (more general than Buddy's
/// sector-aligned buddy slots).
fn random_read(id: usize, rng: &mut ChaCha8Rng) -> (Vec<Plan>, bool) {
    let slot = *[2usize, 8, 16, 24, 32].choose(rng).expect("non-empty");
    // The size classes' words (0, 8, 16, 32, 64, 80, 96, 128 bytes).
    let class = *[0usize, 2, 4, 8, 16, 20, 24, 32].choose(rng).expect("non-empty");
    let dev_lead = if slot == 2 { 2 * rng.gen_range(0..4) } else { 0 };
    let miss = rng.gen_bool(0.5);
    let dev_words = if miss { slot } else { class.min(slot) };
    let spill = class > slot;
    let bud_lead = 2 * rng.gen_range(0..4);
    let bud_words = class.saturating_sub(slot);
    let dev = Part { lead: dev_lead, words: dev_words, sectors: sectors_of(dev_lead, dev_words) };
    let bud = Part { lead: bud_lead, words: 0, sectors: sectors_of(bud_lead, bud_words) };
    if miss {
        let slot = Plan { id, device: Some(dev), ..Default::default() };
        (vec![slot, Plan { id, buddy: Some(bud), last: true, ..Default::default() }], true)
    } else {
        (vec![Plan { id, device: Some(dev), buddy: spill.then_some(bud), last: true }], false)
    }
}

/// `cycles` random cycles (after reset): a plan port fed in order from a
/// queue of reads' plans (a new read on a free context with probability
/// `p_read` per cycle; a metadata miss closes its read 0-40 cycles after
/// its first plan), both memories answering the sectors of planned parts
/// in random order 1-30 cycles later (each port busy with probability
/// `p_sector` when it has sectors), and `out_ready` with probability
/// `p_ready`. The first 128 reads prime every context's payload words
/// (so no word is ever undefined in a Verilog run). Every cycle's outputs
/// are compared with the model, every payload handed on with the words
/// its read's sectors carried; then no new read starts, and every read
/// must come out within 10,000 cycles.
///
/// # Errors
/// The first difference, with its cycle.
pub fn run(
    seed: u64,
    cycles: usize,
    p_read: f64,
    p_sector: f64,
    p_ready: f64,
    lockstep: Option<&mut Vec<String>>,
    vcd: Option<&mut dyn Write>,
) -> Result<GatherRun, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut hw = SectorGather::default();
    let mut dut = Harness::new(&mut hw, vcd).record(lockstep, line);
    dut.reset(1);

    let mut model = SectorGatherModel::default();
    let mut out = GatherRun::default();
    let mut free: Vec<usize> = (0..CONTEXTS).rev().collect();
    let mut reads: Vec<Option<Read>> = (0..CONTEXTS).map(|_| None).collect();
    // Plans in the order they go out, each with the first cycle it may.
    let mut plans: VecDeque<(u64, Plan)> = VecDeque::new();
    let mut dev_queue: Vec<(u64, Sector)> = Vec::new();
    let mut bud_queue: Vec<(u64, Sector)> = Vec::new();
    let mut primed = 0;
    for cycle in 0.. {
        let draining = cycle >= cycles as u64;
        if draining && reads.iter().all(Option::is_none) {
            break;
        }
        if cycle > cycles as u64 + 10_000 {
            let left: Vec<usize> = (0..CONTEXTS).filter(|&c| reads[c].is_some()).collect();
            return Err(format!("cycle {cycle}: reads on contexts {left:?} never came out"));
        }
        // A new read.
        let priming = primed < CONTEXTS;
        if !draining && (priming || rng.gen_bool(p_read)) && !free.is_empty() {
            let id = if priming {
                // Context `primed` next (it has not been planned yet).
                free.retain(|&c| c != primed);
                primed
            } else {
                free.swap_remove(rng.gen_range(0..free.len()))
            };
            let (read_plans, split) = if priming {
                let part = Part { lead: 0, words: 0, sectors: 4 };
                (vec![Plan { id, device: Some(part), buddy: Some(part), last: true }], false)
            } else {
                random_read(id, &mut rng)
            };
            out.split += split as usize;
            let dev = read_plans[0].device.expect("a read's first plan holds its device part");
            let bud = read_plans.iter().find_map(|p| p.buddy);
            out.with_buddy += bud.is_some_and(|b| b.sectors > 0) as usize;
            let mut expected = [None; 32];
            let data: Vec<[u32; SECTOR_WORDS]> = (0..10).map(|_| std::array::from_fn(|_| rng.gen())).collect();
            for (i, e) in expected.iter_mut().enumerate() {
                let (plan, pos, base) =
                    if i < dev.words { (Some(&dev), i + dev.lead, 0) } else { (bud.as_ref(), i - dev.words + bud.map_or(0, |b| b.lead), 5) };
                if let Some(p) = plan {
                    if pos / SECTOR_WORDS < p.sectors {
                        *e = Some(data[base + pos / SECTOR_WORDS][pos % SECTOR_WORDS]);
                    }
                }
            }
            reads[id] = Some(Read { expected, data });
            primed += priming as usize;
            let mut at = cycle;
            for (n, p) in read_plans.into_iter().enumerate() {
                if n == 1 && split {
                    at += rng.gen_range(0..40);
                }
                plans.push_back((at, p));
            }
        }

        // The plan port, in order.
        let plan = match plans.front() {
            Some(&(at, p)) if at <= cycle && rng.gen_bool(0.8) => {
                plans.pop_front();
                // Its parts' sectors may be answered from the next cycle on,
                // in runs of up to 4 (sectors 0-3, then 4).
                let data = &reads[p.id].as_ref().expect("a planned read").data;
                for (buddy, part) in [(false, p.device), (true, p.buddy)] {
                    let sectors = part.map_or(0, |x| x.sectors);
                    for index in (0..sectors).step_by(4) {
                        let count = (sectors - index).min(4);
                        let mut words = [0u32; 32];
                        for k in 0..count {
                            words[8 * k..8 * k + 8].copy_from_slice(&data[5 * buddy as usize + index + k]);
                        }
                        out.runs += 1;
                        out.whole_runs += (count == 4) as usize;
                        let s = Sector { id: p.id, index, count, data: words };
                        let when = cycle + rng.gen_range(1..=30);
                        if buddy {
                            bud_queue.push((when, s));
                        } else {
                            dev_queue.push((when, s));
                        }
                    }
                }
                Some(p)
            }
            _ => None,
        };
        let answer = |queue: &mut Vec<(u64, Sector)>, rng: &mut ChaCha8Rng| {
            let due: Vec<usize> = (0..queue.len()).filter(|&i| queue[i].0 <= cycle).collect();
            if due.is_empty() || !rng.gen_bool(p_sector) {
                return None;
            }
            Some(queue.swap_remove(due[rng.gen_range(0..due.len())]).1)
        };
        let dev = answer(&mut dev_queue, &mut rng);
        let buddy = answer(&mut bud_queue, &mut rng);
        let out_ready = rng.gen_bool(p_ready);

        let p = plan.unwrap_or_default();
        let (pd, pb) = (p.device.unwrap_or_default(), p.buddy.unwrap_or_default());
        dut.plan_valid.next = plan.is_some();
        dut.plan_id.next = (p.id as u64).into();
        dut.plan_device.next = p.device.is_some();
        dut.plan_lead.next = (pd.lead as u64).into();
        dut.plan_words.next = (pd.words as u64).into();
        dut.plan_sectors.next = (pd.sectors as u64).into();
        dut.plan_buddy.next = p.buddy.is_some();
        dut.plan_bud_lead.next = (pb.lead as u64).into();
        dut.plan_bud_sectors.next = (pb.sectors as u64).into();
        dut.plan_last.next = p.last;
        let zero = Sector { id: 0, index: 0, count: 0, data: [0; 32] };
        let (d, b) = (dev.unwrap_or(zero), buddy.unwrap_or(zero));
        dut.dev_valid.next = dev.is_some();
        dut.dev_id.next = (d.id as u64).into();
        dut.dev_sector.next = (d.index as u64).into();
        dut.dev_sectors.next = (d.count as u64).into();
        dut.dev_data.next = EntryBits::from_words(&d.data);
        dut.buddy_valid.next = buddy.is_some();
        dut.buddy_id.next = (b.id as u64).into();
        dut.buddy_sector.next = (b.index as u64).into();
        dut.buddy_sectors.next = (b.count as u64).into();
        dut.buddy_data.next = EntryBits::from_words(&b.data);
        dut.out_ready.next = out_ready;
        dut.settle();

        let i = SectorGatherIn {
            reset: false,
            plan_valid: plan.is_some(),
            plan_id: p.id as u8,
            plan_device: p.device.is_some(),
            plan_lead: pd.lead as u8,
            plan_words: pd.words as u8,
            plan_sectors: pd.sectors as u8,
            plan_buddy: p.buddy.is_some(),
            plan_bud_lead: pb.lead as u8,
            plan_bud_sectors: pb.sectors as u8,
            plan_last: p.last,
            dev_valid: dev.is_some(),
            dev_id: d.id as u8,
            dev_sector: d.index as u8,
            dev_sectors: d.count as u8,
            buddy_valid: buddy.is_some(),
            buddy_id: b.id as u8,
            buddy_sector: b.index as u8,
            buddy_sectors: b.count as u8,
            out_ready,
        };
        let (want, got) = (model.outputs(&i), hardware_out(&dut));
        if got != want {
            return Err(format!("cycle {cycle}: hardware {got:?}, model {want:?}"));
        }
        // The payload shown must hold the words its read's sectors carried.
        if let Some(id) = got.out.map(usize::from) {
            let Some(read) = reads[id].as_ref() else {
                return Err(format!("cycle {cycle}: context {id} shown, but no read is planned on it"));
            };
            let payload = dut.out_payload.val().to_words();
            if let Some(k) = (0..32).find(|&k| read.expected[k].is_some_and(|w| w != payload[k])) {
                return Err(format!(
                    "cycle {cycle}: context {id} payload word {k} is {:08x}, its read stored {:08x}",
                    payload[k],
                    read.expected[k].expect("found above")
                ));
            }
            if out_ready {
                reads[id] = None;
                out.reads += 1;
                free.push(id);
            }
        }
        out.most_in_flight = out.most_in_flight.max(CONTEXTS - free.len());
        model.clock(&i);
        dut.cycle();
        out.cycles += 1;
    }
    Ok(out)
}

/// The block's latencies as measured on the hardware (out_ready high,
/// nothing else in flight): (a read's last sector taken to its
/// `out_valid`, a plan that closes a read with nothing missing to its
/// `out_valid`), cycles. `sector_gather::timing` states them.
pub fn measured_latencies() -> (u64, u64) {
    let mut hw = SectorGather::default();
    let mut dut = Harness::new(&mut hw, None);
    dut.reset(1);
    dut.out_ready.next = true;
    // Cycles from the cycle `drive` runs (cycle 0) to the first with out_valid.
    let measure = |dut: &mut Harness<SectorGather>, drive: &dyn Fn(&mut SectorGather, u64)| {
        for cycle in 0..20 {
            drive(dut, cycle);
            dut.settle();
            if dut.out_valid.val() {
                dut.edge();
                return cycle;
            }
            dut.edge();
        }
        u64::MAX
    };
    let plan = |dut: &mut SectorGather, on: bool, id: u64, sectors: u64| {
        dut.plan_valid.next = on;
        dut.plan_id.next = id.into();
        dut.plan_device.next = true;
        dut.plan_lead.next = 0.into();
        dut.plan_words.next = 8.into();
        dut.plan_sectors.next = sectors.into();
        dut.plan_buddy.next = false;
        dut.plan_bud_lead.next = 0.into();
        dut.plan_bud_sectors.next = 0.into();
        dut.plan_last.next = true;
    };
    // A one-sector read: planned at cycle -1, its sector taken at cycle 0.
    plan(&mut dut, true, 3, 1);
    dut.settle();
    dut.edge();
    let sector = measure(&mut dut, &|dut, cycle| {
        plan(dut, false, 0, 0);
        dut.dev_valid.next = cycle == 0;
        dut.dev_id.next = 3.into();
        dut.dev_sector.next = 0.into();
        dut.dev_sectors.next = 1.into();
    });
    dut.dev_valid.next = false;
    // A read closed with no sector (a ZERO entry) at cycle 0.
    let close = measure(&mut dut, &|dut, cycle| plan(dut, cycle == 0, 9, 0));
    (sector, close)
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the sector gather.

/// The pipelined slice's sector gather as a delivered module.
pub mod delivered {
    use super::{SectorGather, LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS, PORTS};
    use crate::modules::{emit, LockstepBlock};
    use crate::stream::Traffic;
    use std::io::Write;

    /// `sector_gather`: the pipelined slice's payload gather from device and buddy sectors.
    pub const GATHER: LockstepBlock = LockstepBlock {
        ports: PORTS,
        inputs: LOCKSTEP_INPUTS,
        outputs: LOCKSTEP_OUTPUTS,
        verilog: |name, revision| emit(SectorGather::default(), name, revision),
        min_requests: 300,
        groups: &[
            ("clock and reset", &["clock", "reset"]),
            ("plan in", &["plan_*"]),
            ("device sectors in", &["dev_*"]),
            ("buddy sectors in", &["buddy_*"]),
            ("payload out", &["out_*"]),
        ],
        filters: &[],
        run,
    };

    fn run(
        seed: u64,
        requests: usize,
        traffic: Option<Traffic>,
        lines: Option<&mut Vec<String>>,
        vcd: Option<&mut dyn Write>,
    ) -> Result<(usize, u64), String> {
        // Random reads planned and answered instead of stream traffic.
        let (p_plan, p_ready) = traffic.map_or((0.3, 0.7), |t| (t.p_valid * 0.5, t.p_ready));
        let run = super::run(seed, requests, p_plan, 0.8, p_ready, lines, vcd)?;
        Ok((run.reads, run.cycles))
    }
}
