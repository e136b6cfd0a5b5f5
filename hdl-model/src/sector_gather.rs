//! [`buddy_hdl::sector_gather::SectorGather`]'s control: per context the
//! sectors planned and written and whether it is closed; the complete
//! contexts picked lowest id first into the pick register, then the output
//! register. Every port but `out_*` always takes (`*_ready` are 1), and
//! `out_*` are registers, so no output depends on this cycle's inputs.
//! The payload RAMs and the parts' layouts (data path) are left out.

use buddy_hdl::request_contexts::CONTEXTS;
use buddy_hdl::sector_gather::{COUNT_BITS, SECTOR_INDEX_BITS};
use buddy_hdl::SectorGather;

use crate::CycleModel;

#[derive(Debug, Clone, Default)]
pub struct SectorGatherIn {
    pub reset: bool,
    pub plan_valid: bool,
    pub plan_id: u8,
    /// `plan_device`, `plan_buddy`, the leads and `plan_words` steer only
    /// the data path; carried so that the ports are complete.
    pub plan_device: bool,
    pub plan_lead: u8,
    pub plan_words: u8,
    pub plan_sectors: u8,
    pub plan_buddy: bool,
    pub plan_bud_lead: u8,
    pub plan_bud_sectors: u8,
    pub plan_last: bool,
    pub dev_valid: bool,
    pub dev_id: u8,
    /// Steers only the data path (as `buddy_sector`).
    pub dev_sector: u8,
    /// The run's sectors, 1-4.
    pub dev_sectors: u8,
    pub buddy_valid: bool,
    pub buddy_id: u8,
    pub buddy_sector: u8,
    pub buddy_sectors: u8,
    pub out_ready: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SectorGatherOut {
    pub plan_ready: bool,
    pub dev_ready: bool,
    pub buddy_ready: bool,
    /// `out_id`, `None` when `out_valid` is low.
    pub out: Option<u8>,
}

/// A count register's wrap (`COUNT_BITS` bits).
const COUNT_MASK: u8 = (1 << COUNT_BITS) - 1;

// The contexts' bit vectors are one u128 each.
const _: () = assert!(CONTEXTS == 128);

/// The hardware's control registers, one for one.
#[derive(Debug, Clone)]
pub struct SectorGatherModel {
    /// The write stages: the context and sectors of a run taken last cycle
    /// (its count goes up at this edge).
    d: Option<(u8, u8)>,
    b: Option<(u8, u8)>,
    /// Per context: sectors written, sectors planned (4-bit registers).
    got: [u8; CONTEXTS],
    want: [u8; CONTEXTS],
    closed: u128,
    /// Registered from the counts' and `closed`'s next values.
    complete: u128,
    /// The one-hot of the context picked last cycle (its counts and
    /// `closed` clear at this edge; masked out of `complete`).
    last_picked: u128,
    /// The pick register and the output register.
    p: Option<u8>,
    o: Option<u8>,
}

impl Default for SectorGatherModel {
    fn default() -> Self {
        SectorGatherModel {
            d: None,
            b: None,
            got: [0; CONTEXTS],
            want: [0; CONTEXTS],
            closed: 0,
            complete: 0,
            last_picked: 0,
            p: None,
            o: None,
        }
    }
}

impl SectorGatherModel {
    /// Contexts complete and waiting for the pick (not yet picked).
    pub fn available(&self) -> u128 {
        self.complete & !self.last_picked
    }
    /// Whether the pick register holds a context.
    pub fn pick_held(&self) -> bool {
        self.p.is_some()
    }
}

impl CycleModel for SectorGatherModel {
    type In = SectorGatherIn;
    type Out = SectorGatherOut;
    fn outputs(&self, _: &SectorGatherIn) -> SectorGatherOut {
        SectorGatherOut { plan_ready: true, dev_ready: true, buddy_ready: true, out: self.o }
    }
    fn clock(&mut self, i: &SectorGatherIn) {
        if i.reset {
            // The write stages' ids, the pick and output ids and the RAMs
            // keep their values, but with their valids low nobody sees them.
            *self = SectorGatherModel::default();
            return;
        }
        // The pick and the output register move on together when the
        // output is empty or taken.
        let avail = self.available();
        let advance = self.o.is_none() || i.out_ready;
        let p_advance = self.p.is_none() || advance;
        let picked = if p_advance && avail != 0 { avail & avail.wrapping_neg() } else { 0 };
        if advance {
            self.o = self.p;
        }
        if p_advance {
            self.p = (avail != 0).then(|| avail.trailing_zeros() as u8);
        }

        // The counts' and `closed`'s next values; the context picked last
        // cycle starts over.
        let mut closed_next = self.closed;
        if i.plan_valid && i.plan_last {
            closed_next |= 1 << i.plan_id;
        }
        for (id, n) in [self.d, self.b].into_iter().flatten() {
            self.got[id as usize] = (self.got[id as usize] + n) & COUNT_MASK;
        }
        if i.plan_valid {
            let w = &mut self.want[i.plan_id as usize];
            // The parts' counts are 3 bits wide, the count 4 (it wraps).
            let part = |n: u8| n & ((1 << SECTOR_INDEX_BITS) - 1);
            *w = (*w + part(i.plan_sectors) + part(i.plan_bud_sectors)) & COUNT_MASK;
        }
        let mut complete = closed_next & !self.last_picked;
        for c in 0..CONTEXTS {
            if self.last_picked >> c & 1 == 1 {
                self.got[c] = 0;
                self.want[c] = 0;
            }
            if self.got[c] != self.want[c] {
                complete &= !(1 << c);
            }
        }
        self.complete = complete;
        self.closed = closed_next & !self.last_picked;
        self.last_picked = picked;

        // Runs are always taken into the write stages.
        self.d = i.dev_valid.then_some((i.dev_id, i.dev_sectors));
        self.b = i.buddy_valid.then_some((i.buddy_id, i.buddy_sectors));
    }
}

/// What the block's output ports show, settled, as the model's `Out`.
pub fn hardware_out(h: &SectorGather) -> SectorGatherOut {
    SectorGatherOut {
        plan_ready: h.plan_ready.val(),
        dev_ready: h.dev_ready.val(),
        buddy_ready: h.buddy_ready.val(),
        out: h.out_valid.val().then(|| h.out_id.val().to_u64() as u8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lockstep::{edge, settle};
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rust_hdl::prelude::*;
    use std::collections::VecDeque;

    /// A plan: the layouts of one or both parts.
    #[derive(Debug, Clone, Copy, Default)]
    struct Plan {
        id: u8,
        device: bool,
        lead: u8,
        words: u8,
        sectors: u8,
        buddy: bool,
        bud_lead: u8,
        bud_sectors: u8,
        last: bool,
    }

    /// Sectors of a part of `words` words starting `lead` words into its first sector.
    fn sectors_of(lead: u8, words: u8) -> u8 {
        if words == 0 {
            0
        } else {
            (lead + words).div_ceil(8)
        }
    }

    /// A read's plans as the read planner sends them: a metadata hit (one
    /// plan: the device part, and the buddy part if it spills) or a miss
    /// (the whole device slot first, closed later by a plan of the buddy
    /// part alone, of 0 or more sectors). Returns the plans and whether
    /// the read was split.
    fn random_read(id: u8, rng: &mut ChaCha8Rng) -> (Vec<Plan>, bool) {
        let slot = *[2u8, 8, 16, 24, 32].choose(rng).expect("non-empty");
        let class = *[0u8, 2, 4, 8, 16, 20, 24, 32].choose(rng).expect("non-empty");
        let dev_lead = if slot == 2 { 2 * rng.gen_range(0..4) } else { 0 };
        let miss = rng.gen_bool(0.5);
        let dev_words = if miss { slot } else { class.min(slot) };
        let spill = class > slot;
        let bud_lead = 2 * rng.gen_range(0..4);
        let bud_sectors = sectors_of(bud_lead, class.saturating_sub(slot));
        let dev = Plan { id, device: true, lead: dev_lead, words: dev_words, sectors: sectors_of(dev_lead, dev_words), ..Default::default() };
        if miss {
            let finish = Plan { id, buddy: true, bud_lead, bud_sectors, last: true, ..Default::default() };
            (vec![dev, finish], true)
        } else {
            (vec![Plan { buddy: spill, bud_lead, bud_sectors, last: true, ..dev }], false)
        }
    }

    #[derive(Debug, Default)]
    struct Coverage {
        reads: usize,
        split: usize,
        /// Reads closed with no sector at all.
        empty: usize,
        /// Reads with a plan of both parts, each with sectors.
        both_parts: usize,
        plans: usize,
        sectors: usize,
        /// Runs of 4 sectors; runs from a part's fifth sector.
        whole_runs: usize,
        second_runs: usize,
        /// A device and a buddy sector of one context in one cycle.
        both_ports_one_context: usize,
        /// A sector of a context the cycle it is closed by its last plan.
        sector_with_close: usize,
        /// Cycles `out_valid` waited for `out_ready`.
        out_stalls: usize,
        /// Cycles the pick register was full and could not move.
        pick_held: usize,
        /// Cycles with two or more contexts complete and waiting.
        contenders: usize,
        most_in_flight: usize,
        resets: usize,
    }

    /// `cycles` cycles after reset (then a drain): a new read on a random
    /// free context with probability `p_read` per cycle; its plans go out
    /// in order (a miss's closing plan 0-40 cycles after the first), each
    /// with probability 0.8 a cycle; each part's sectors are answered 1-30
    /// cycles after its plan on its port, in random order, each port
    /// busy with probability `p_sector` when it has a sector due; `out_ready`
    /// high with probability `p_ready` (or low for the first
    /// `hold_out` cycles, so that contexts pile up). A context is used
    /// again only after it left on `out_*`.
    fn run(seed: u64, cycles: u64, p_read: f64, p_sector: f64, p_ready: f64, hold_out: u64, resets: bool) -> Coverage {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut hw = SectorGather::default();
        hw.connect_all();
        let mut model = SectorGatherModel::default();
        let mut cov = Coverage::default();
        let mut free: Vec<u8> = (0..CONTEXTS as u8).collect();
        let mut in_flight = [false; CONTEXTS];
        let mut plans: VecDeque<(u64, Plan)> = VecDeque::new();
        // Runs due: (first cycle, context, first index, sectors).
        let mut dev_queue: Vec<(u64, u8, u8, u8)> = Vec::new();
        let mut bud_queue: Vec<(u64, u8, u8, u8)> = Vec::new();
        let mut cycle = 0u64;
        loop {
            let draining = cycle >= cycles;
            if draining && in_flight.iter().all(|&f| !f) {
                break;
            }
            assert!(cycle < cycles + 5_000, "seed {seed}: reads never came out");
            let reset = cycle < 2 || (resets && !draining && rng.gen_bool(0.001));
            if !draining && !reset && cycle >= 2 && !free.is_empty() && rng.gen_bool(p_read) {
                let id = free.swap_remove(rng.gen_range(0..free.len()));
                in_flight[id as usize] = true;
                let (read_plans, split) = random_read(id, &mut rng);
                cov.split += split as usize;
                cov.empty += read_plans.iter().all(|p| p.sectors + p.bud_sectors == 0) as usize;
                cov.both_parts += read_plans.iter().any(|p| p.sectors > 0 && p.bud_sectors > 0) as usize;
                let mut at = cycle;
                for (n, p) in read_plans.into_iter().enumerate() {
                    if n == 1 && split {
                        at += rng.gen_range(0..40);
                    }
                    plans.push_back((at, p));
                }
            }
            let plan = match plans.front() {
                Some(&(at, p)) if at <= cycle && rng.gen_bool(0.8) => {
                    plans.pop_front();
                    // A part's first 4 sectors in one run, a fifth in a second.
                    for (buddy, sectors) in [(false, p.sectors), (true, p.bud_sectors)] {
                        for (index, n) in [(0, sectors.min(4)), (4, sectors.saturating_sub(4))] {
                            if n == 0 {
                                continue;
                            }
                            let s = (cycle + rng.gen_range(1..=30), p.id, index, n);
                            if buddy {
                                bud_queue.push(s);
                            } else {
                                dev_queue.push(s);
                            }
                        }
                    }
                    Some(p)
                }
                _ => None,
            };
            let mut answer = |queue: &mut Vec<(u64, u8, u8, u8)>| {
                let due: Vec<usize> = (0..queue.len()).filter(|&k| queue[k].0 <= cycle).collect();
                (!due.is_empty() && rng.gen_bool(p_sector)).then(|| queue.swap_remove(due[rng.gen_range(0..due.len())]))
            };
            let dev = answer(&mut dev_queue);
            let buddy = answer(&mut bud_queue);
            let out_ready = cycle >= hold_out && rng.gen_bool(p_ready);
            let p = plan.unwrap_or_default();
            let i = SectorGatherIn {
                reset,
                plan_valid: plan.is_some(),
                plan_id: p.id,
                plan_device: p.device,
                plan_lead: p.lead,
                plan_words: p.words,
                plan_sectors: p.sectors,
                plan_buddy: p.buddy,
                plan_bud_lead: p.bud_lead,
                plan_bud_sectors: p.bud_sectors,
                plan_last: p.last,
                dev_valid: dev.is_some(),
                dev_id: dev.map_or(0, |s| s.1),
                dev_sector: dev.map_or(0, |s| s.2),
                dev_sectors: dev.map_or(0, |s| s.3),
                buddy_valid: buddy.is_some(),
                buddy_id: buddy.map_or(0, |s| s.1),
                buddy_sector: buddy.map_or(0, |s| s.2),
                buddy_sectors: buddy.map_or(0, |s| s.3),
                out_ready,
            };
            hw.reset.next = i.reset;
            hw.plan_valid.next = i.plan_valid;
            hw.plan_id.next = (i.plan_id as u64).into();
            hw.plan_device.next = i.plan_device;
            hw.plan_lead.next = (i.plan_lead as u64).into();
            hw.plan_words.next = (i.plan_words as u64).into();
            hw.plan_sectors.next = (i.plan_sectors as u64).into();
            hw.plan_buddy.next = i.plan_buddy;
            hw.plan_bud_lead.next = (i.plan_bud_lead as u64).into();
            hw.plan_bud_sectors.next = (i.plan_bud_sectors as u64).into();
            hw.plan_last.next = i.plan_last;
            hw.dev_valid.next = i.dev_valid;
            hw.dev_id.next = (i.dev_id as u64).into();
            hw.dev_sector.next = (i.dev_sector as u64).into();
            hw.dev_sectors.next = (i.dev_sectors as u64).into();
            hw.buddy_valid.next = i.buddy_valid;
            hw.buddy_id.next = (i.buddy_id as u64).into();
            hw.buddy_sector.next = (i.buddy_sector as u64).into();
            hw.buddy_sectors.next = (i.buddy_sectors as u64).into();
            hw.out_ready.next = i.out_ready;
            settle(&mut hw);
            let want = hardware_out(&hw);
            assert_eq!(model.outputs(&i), want, "seed {seed}, cycle {cycle}");

            cov.plans += plan.is_some() as usize;
            cov.sectors += dev.map_or(0, |s| s.3 as usize) + buddy.map_or(0, |s| s.3 as usize);
            cov.second_runs += [dev, buddy].iter().flatten().filter(|s| s.2 == 4).count();
            cov.whole_runs += [dev, buddy].iter().flatten().filter(|s| s.3 == 4).count();
            cov.both_ports_one_context += dev.zip(buddy).is_some_and(|(d, b)| d.1 == b.1) as usize;
            cov.sector_with_close += plan.is_some_and(|p| p.last && [dev, buddy].iter().flatten().any(|s| s.1 == p.id)) as usize;
            cov.out_stalls += (want.out.is_some() && !out_ready) as usize;
            cov.pick_held += (model.pick_held() && want.out.is_some() && !out_ready) as usize;
            cov.contenders += (model.available().count_ones() > 1) as usize;
            cov.most_in_flight = cov.most_in_flight.max(in_flight.iter().filter(|&&f| f).count());
            if let Some(id) = want.out.filter(|_| out_ready && !reset) {
                assert!(in_flight[id as usize], "seed {seed}, cycle {cycle}: context {id} handed on twice");
                in_flight[id as usize] = false;
                free.push(id);
                cov.reads += 1;
            }
            if reset && cycle >= 2 {
                // The planner and memories start over with the gather.
                cov.resets += 1;
                plans.clear();
                dev_queue.clear();
                bud_queue.clear();
                in_flight = [false; CONTEXTS];
                free = (0..CONTEXTS as u8).collect();
            }
            model.clock(&i);
            edge(&mut hw, |h| &mut h.clock);
            cycle += 1;
        }
        cov
    }

    #[test]
    fn the_model_equals_the_hardware_every_cycle() {
        for (seed, &(p_read, p_sector, p_ready)) in [(0.3, 0.8, 0.7), (0.6, 0.9, 0.5), (0.15, 0.5, 0.95)].iter().enumerate() {
            let cov = run(seed as u64, 10_000, p_read, p_sector, p_ready, 0, true);
            eprintln!("sector gather seed {seed}: {cov:?}");
            assert!(
                cov.reads > 1_000
                    && cov.split > 0
                    && cov.empty > 0
                    && cov.both_parts > 0
                    && cov.whole_runs > 0
                    && cov.second_runs > 0
                    && cov.both_ports_one_context > 0
                    && cov.sector_with_close > 0
                    && cov.out_stalls > 0
                    && cov.pick_held > 0
                    && cov.contenders > 0
                    && cov.resets > 0,
                "seed {seed}: {cov:?}"
            );
        }
    }

    /// The model's latencies are the ones `sector_gather::timing`
    /// publishes (the hardware's, measured by the delivery testbench).
    #[test]
    fn the_models_latencies_are_the_timing_constants() {
        use buddy_hdl::sector_gather::timing;
        // Cycles from the cycle `drive` runs (0) to the first with
        // `out_valid`, after a reset and the cycle `before`.
        fn measure(before: SectorGatherIn, drive: impl Fn(u64) -> SectorGatherIn) -> u64 {
            let mut m = SectorGatherModel::default();
            m.clock(&SectorGatherIn { reset: true, ..Default::default() });
            m.clock(&before);
            (0..20)
                .find(|&cycle| {
                    let i = drive(cycle);
                    let out = m.outputs(&i).out.is_some();
                    m.clock(&i);
                    out
                })
                .expect("out_valid within 20 cycles")
        }
        let idle = SectorGatherIn { out_ready: true, ..Default::default() };
        // A one-sector read of context 3, planned the cycle before its sector.
        let plan = SectorGatherIn { plan_valid: true, plan_id: 3, plan_sectors: 1, plan_last: true, ..idle.clone() };
        let sector = measure(plan, |cycle| SectorGatherIn { dev_valid: cycle == 0, dev_id: 3, dev_sectors: 1, ..idle.clone() });
        // A read closed with no sector (a ZERO entry).
        let close = measure(idle.clone(), |cycle| SectorGatherIn { plan_valid: cycle == 0, plan_id: 9, plan_last: true, ..idle.clone() });
        assert_eq!((sector, close), (timing::LAST_SECTOR_TO_OUT, timing::CLOSE_TO_OUT));
    }

    /// The output is held for 600 cycles while reads arrive: every
    /// context is planned and complete, then they drain lowest first.
    #[test]
    fn every_context_fills_and_drains() {
        let cov = run(10, 3_000, 0.9, 0.9, 0.4, 600, false);
        eprintln!("sector gather, every context: {cov:?}");
        assert!(cov.most_in_flight == CONTEXTS && cov.reads > 2 * CONTEXTS && cov.contenders > 100, "{cov:?}");
    }
}
