//! [`buddy_hdl::read_planner::ReadPlanner`]: one read job at a time (plus
//! one waiting in `n_job`), its plans and its device and buddy sector
//! requests, without the sector data (the planner has none).
//!
//! Legal inputs are assumed, as the slice gives them: addresses 8-byte
//! aligned, `in_device_part_bytes` one of 8, 32, 64, 96, 128 (128 on an
//! uncompressed page), and a job's fields held while `in_valid` is high
//! and not taken.

use buddy_golden::translation::SECTOR_BYTES;
use buddy_golden::{SizeClass, ENTRY_BYTES, ENTRY_WORDS};
use buddy_hdl::read_planner::kind;
use buddy_hdl::read_planner::{ReadPlanner, RUN_SECTORS};

use crate::CycleModel;

/// Parts are counted in 8-byte units, as `PartSizes` does: every size
/// class and device part is a multiple of 8 bytes.
pub(crate) const UNIT_BYTES: u64 = 8;
const UNITS_PER_SECTOR: u64 = SECTOR_BYTES / UNIT_BYTES;
/// The planners place parts in 4-byte words (lead words, word counts).
pub(crate) const WORD_BYTES: u64 = (ENTRY_BYTES / ENTRY_WORDS) as u64;
/// 128 bytes in 8-byte units: an uncompressed page's whole slot.
const ENTRY_UNITS: u64 = ENTRY_BYTES as u64 / UNIT_BYTES;

/// A size class code's bytes in 8-byte units (`ClassUnits`).
pub(crate) fn class_units(code: u8) -> u64 {
    SizeClass::ALL[usize::from(code & 7)].bytes() as u64 / UNIT_BYTES
}

/// A device part's bytes in 8-byte units (the port's bits 7..3).
pub(crate) fn part_units(part_bytes: u8) -> u64 {
    u64::from(part_bytes) / UNIT_BYTES
}

/// The 8-byte unit of its sector an address starts at.
pub(crate) fn first_unit(address: u64) -> u64 {
    (address % SECTOR_BYTES) / UNIT_BYTES
}

/// The lead word (4-byte lane) of its sector an address starts at.
pub(crate) fn lead_word(address: u64) -> u8 {
    ((address % SECTOR_BYTES) / WORD_BYTES) as u8
}

/// The sector-aligned address of the sector holding `address`.
pub(crate) fn sector_base(address: u64) -> u64 {
    address & !(SECTOR_BYTES - 1)
}

/// Sectors spanned by `units` 8-byte units from unit `first` of the first
/// one (none for none).
pub(crate) fn sectors(first: u64, units: u64) -> u64 {
    if units == 0 {
        0
    } else {
        (first + units).div_ceil(UNITS_PER_SECTOR)
    }
}

#[derive(Debug, Clone, Default)]
pub struct ReadPlannerIn {
    pub reset: bool,
    pub in_valid: bool,
    pub in_id: u8,
    /// [`kind`]: FULL, SLOT or FINISH (3 acts as FULL).
    pub in_kind: u8,
    pub in_class: u8,
    pub in_compressed: bool,
    pub in_device_address: u64,
    pub in_device_part_bytes: u8,
    pub in_buddy_address: u64,
    pub plan_ready: bool,
    pub dev_req_ready: bool,
    pub buddy_req_ready: bool,
}

/// A job's plan for the sector gather (`plan_*`): the layouts of the
/// parts it reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Plan {
    pub id: u8,
    /// `plan_device`: the device part's layout is in the plan.
    pub device: bool,
    pub lead: u8,
    pub words: u8,
    pub sectors: u8,
    /// `plan_buddy`: the buddy part's layout is in the plan.
    pub buddy: bool,
    pub bud_lead: u8,
    pub bud_sectors: u8,
    pub last: bool,
}

impl Plan {
    /// The plan as the sector gather reads it: the lead and word fields of
    /// a part the plan does not hold are don't-cares (the planner shows
    /// the job's), so they are cleared; the sector counts are not (both
    /// add to the context's count, 0 for an absent part).
    pub fn layout(self) -> Plan {
        Plan {
            lead: if self.device { self.lead } else { 0 },
            words: if self.device { self.words } else { 0 },
            bud_lead: if self.buddy { self.bud_lead } else { 0 },
            ..self
        }
    }
}

/// A read of a run of sectors (`dev_req_*`, `buddy_req_*`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SectorRequest {
    pub id: u8,
    /// Its first sector's index in the part (0 or 4).
    pub sector: u8,
    /// Its first sector's address.
    pub address: u64,
    /// Sectors, 1 to [`RUN_SECTORS`].
    pub sectors: u8,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadPlannerOut {
    /// A flip-flop: no job waits behind the current one.
    pub in_ready: bool,
    pub plan: Option<Plan>,
    pub dev_req: Option<SectorRequest>,
    pub buddy_req: Option<SectorRequest>,
    /// `done_*`: the context whose read's last plan and run go this cycle
    /// (a job that closes its read).
    pub done: Option<u8>,
}

/// A planned job (the hardware's `ReadJob`, held in `j` and `n_job`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadJob {
    pub id: u8,
    /// The plan, not yet sent, holds the device part / the buddy part.
    pub dev_plan: bool,
    pub bud_plan: bool,
    pub dev_lead: u8,
    pub dev_words: u8,
    pub dev_sectors: u8,
    pub bud_lead: u8,
    pub bud_sectors: u8,
    pub dev_base: u64,
    pub bud_base: u64,
    /// The job closes its read (not a SLOT job).
    pub closes: bool,
}

impl ReadJob {
    /// The job the planner makes of the inputs (what `take` would store).
    pub fn of(i: &ReadPlannerIn) -> ReadJob {
        let (c8, p8) = (class_units(i.in_class), part_units(i.in_device_part_bytes));
        let kind = u64::from(i.in_kind);
        // PartSizes: min(class, part) and class - part; the whole slot
        // uncompressed. A SLOT job of a compressed page: the whole part.
        let (mut dev_units, bud_units) = match i.in_compressed {
            false => (ENTRY_UNITS, 0),
            true => (c8.min(p8), c8.saturating_sub(p8)),
        };
        if kind == kind::SLOT && i.in_compressed {
            dev_units = p8;
        }
        let mut job = ReadJob {
            id: i.in_id,
            dev_plan: true,
            bud_plan: bud_units != 0,
            dev_lead: lead_word(i.in_device_address),
            dev_words: (dev_units * UNIT_BYTES / WORD_BYTES) as u8,
            dev_sectors: sectors(first_unit(i.in_device_address), dev_units) as u8,
            bud_lead: lead_word(i.in_buddy_address),
            bud_sectors: sectors(first_unit(i.in_buddy_address), bud_units) as u8,
            dev_base: sector_base(i.in_device_address),
            bud_base: sector_base(i.in_buddy_address),
            closes: kind != kind::SLOT,
        };
        match kind {
            kind::SLOT => {
                job.bud_plan = false;
                job.bud_sectors = 0;
            }
            kind::FINISH => {
                job.dev_plan = false;
                job.dev_sectors = 0;
                job.bud_plan = true;
            }
            _ => {}
        }
        job
    }
}

/// The current job (`j`), its next sector per part, and the job waiting
/// behind it (`n_valid`, `n_job`).
#[derive(Debug, Clone, Default)]
pub struct ReadPlannerModel {
    job: ReadJob,
    dev_next: u8,
    bud_next: u8,
    waiting: Option<ReadJob>,
}

impl ReadPlannerModel {
    /// Whether nothing is held: no transfer left, no job waiting.
    pub fn is_idle(&self) -> bool {
        let j = &self.job;
        self.waiting.is_none() && !j.dev_plan && !j.bud_plan && self.dev_next == j.dev_sectors && self.bud_next == j.bud_sectors
    }

    fn plan(&self) -> Option<Plan> {
        let j = &self.job;
        (j.dev_plan || j.bud_plan).then_some(Plan {
            id: j.id,
            device: j.dev_plan,
            lead: j.dev_lead,
            words: j.dev_words,
            sectors: j.dev_sectors,
            buddy: j.bud_plan,
            bud_lead: j.bud_lead,
            bud_sectors: j.bud_sectors,
            last: j.closes,
        })
    }

    /// Whether nothing of the job is left after this cycle's transfers.
    fn frees(&self, i: &ReadPlannerIn, plan_go: bool, dev_req: Option<SectorRequest>, buddy_req: Option<SectorRequest>) -> bool {
        let j = &self.job;
        let dev_go = dev_req.filter(|_| i.dev_req_ready).map_or(0, |r| r.sectors);
        let bud_go = buddy_req.filter(|_| i.buddy_req_ready).map_or(0, |r| r.sectors);
        let plan_left = (j.dev_plan || j.bud_plan) && !plan_go;
        !plan_left && self.dev_next + dev_go == j.dev_sectors && self.bud_next + bud_go == j.bud_sectors
    }

    /// A part's runs go from the cycle the plan is taken (`plan_go`: the
    /// plan port takes it now).
    fn request(id: u8, planned: bool, plan_go: bool, next: u8, sectors: u8, base: u64) -> Option<SectorRequest> {
        ((!planned || plan_go) && next != sectors).then_some(SectorRequest {
            id,
            sector: next,
            address: base + SECTOR_BYTES * u64::from(next),
            sectors: (sectors - next).min(RUN_SECTORS as u8),
        })
    }
}

impl CycleModel for ReadPlannerModel {
    type In = ReadPlannerIn;
    type Out = ReadPlannerOut;

    fn outputs(&self, i: &ReadPlannerIn) -> ReadPlannerOut {
        let j = &self.job;
        let plan = self.plan();
        let plan_go = plan.is_some() && i.plan_ready;
        let dev_req = Self::request(j.id, j.dev_plan, plan_go, self.dev_next, j.dev_sectors, j.dev_base);
        let buddy_req = Self::request(j.id, j.bud_plan, plan_go, self.bud_next, j.bud_sectors, j.bud_base);
        let active = j.dev_plan || j.bud_plan || self.dev_next != j.dev_sectors || self.bud_next != j.bud_sectors;
        let done = (active && j.closes && self.frees(i, plan_go, dev_req, buddy_req)).then_some(j.id);
        ReadPlannerOut { in_ready: self.waiting.is_none(), plan, dev_req, buddy_req, done }
    }

    fn clock(&mut self, i: &ReadPlannerIn) {
        if i.reset {
            // The hardware clears the plans, counts and wait; the rest of
            // `j` is never shown before the next job replaces it.
            *self = ReadPlannerModel::default();
            return;
        }
        let o = self.outputs(i);
        let plan_go = o.plan.is_some() && i.plan_ready;
        // Sectors requested this cycle, per part.
        let dev_go = o.dev_req.filter(|_| i.dev_req_ready).map_or(0, |r| r.sectors);
        let bud_go = o.buddy_req.filter(|_| i.buddy_req_ready).map_or(0, |r| r.sectors);
        let take = i.in_valid && o.in_ready;
        let free = self.frees(i, plan_go, o.dev_req, o.buddy_req);
        let j = &mut self.job;
        if plan_go {
            j.dev_plan = false;
            j.bud_plan = false;
        }
        self.dev_next += dev_go;
        self.bud_next += bud_go;
        let taken = take.then(|| ReadJob::of(i));
        if free {
            // The waiting job first (none is taken while one waits).
            if let Some(next) = self.waiting.take().or(taken) {
                *self = ReadPlannerModel { job: next, ..Default::default() };
            }
        } else if taken.is_some() {
            self.waiting = taken;
        }
    }
}

/// Drive `i` onto the block's input ports (set `next`; settle after).
pub fn drive(h: &mut ReadPlanner, i: &ReadPlannerIn) {
    h.reset.next = i.reset;
    h.in_valid.next = i.in_valid;
    h.in_id.next = u64::from(i.in_id).into();
    h.in_kind.next = u64::from(i.in_kind).into();
    h.in_class.next = u64::from(i.in_class).into();
    h.in_compressed.next = i.in_compressed;
    h.in_device_address.next = i.in_device_address.into();
    h.in_device_part_bytes.next = u64::from(i.in_device_part_bytes).into();
    h.in_buddy_address.next = i.in_buddy_address.into();
    h.plan_ready.next = i.plan_ready;
    h.dev_req_ready.next = i.dev_req_ready;
    h.buddy_req_ready.next = i.buddy_req_ready;
}

/// What the block's output ports show, settled, as the model's `Out`.
pub fn hardware_out(h: &ReadPlanner) -> ReadPlannerOut {
    let u8_of = |v: u64| v as u8;
    let request = |valid: bool, id: u64, sector: u64, address: u64, sectors: u64| {
        valid.then_some(SectorRequest { id: u8_of(id), sector: u8_of(sector), address, sectors: u8_of(sectors) })
    };
    ReadPlannerOut {
        in_ready: h.in_ready.val(),
        plan: h.plan_valid.val().then(|| Plan {
            id: u8_of(h.plan_id.val().to_u64()),
            device: h.plan_device.val(),
            lead: u8_of(h.plan_lead.val().to_u64()),
            words: u8_of(h.plan_words.val().to_u64()),
            sectors: u8_of(h.plan_sectors.val().to_u64()),
            buddy: h.plan_buddy.val(),
            bud_lead: u8_of(h.plan_bud_lead.val().to_u64()),
            bud_sectors: u8_of(h.plan_bud_sectors.val().to_u64()),
            last: h.plan_last.val(),
        }),
        dev_req: request(
            h.dev_req_valid.val(),
            h.dev_req_id.val().to_u64(),
            h.dev_req_sector.val().to_u64(),
            h.dev_req_address.val().to_u64(),
            h.dev_req_sectors.val().to_u64(),
        ),
        buddy_req: request(
            h.buddy_req_valid.val(),
            h.buddy_req_id.val().to_u64(),
            h.buddy_req_sector.val().to_u64(),
            h.buddy_req_address.val().to_u64(),
            h.buddy_req_sectors.val().to_u64(),
        ),
        done: h.done_valid.val().then(|| u8_of(h.done_id.val().to_u64())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lockstep::{edge, random_slot, settle};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rust_hdl::prelude::*;

    /// A legal job: any class of a random entry; a compressed page's read
    /// is FULL (a metadata hit) or one of the SLOT and FINISH of a miss,
    /// an uncompressed page's FULL, its slot sometimes off a sector
    /// boundary (5 sectors).
    fn random_job(rng: &mut ChaCha8Rng) -> ReadPlannerIn {
        let slot = random_slot(rng);
        let mut device_address = slot.device_address;
        if !slot.compressed && rng.gen_bool(0.25) {
            device_address += 8 * rng.gen_range(0..4);
        }
        ReadPlannerIn {
            in_valid: true,
            in_id: rng.gen_range(0..128),
            in_kind: if slot.compressed { [kind::FULL, kind::FULL, kind::SLOT, kind::FINISH][rng.gen_range(0..4)] as u8 } else { 0 },
            in_class: rng.gen_range(0..8),
            in_compressed: slot.compressed,
            in_device_address: device_address,
            in_device_part_bytes: slot.part_bytes,
            in_buddy_address: slot.buddy_address,
            ..Default::default()
        }
    }

    /// What the inputs carry while no job is offered: anything.
    fn no_job(rng: &mut ChaCha8Rng) -> ReadPlannerIn {
        ReadPlannerIn {
            in_valid: false,
            in_id: rng.gen_range(0..128),
            in_kind: rng.gen_range(0..4),
            in_class: rng.gen_range(0..8),
            in_compressed: rng.gen(),
            in_device_address: rng.gen(),
            in_device_part_bytes: rng.gen(),
            in_buddy_address: rng.gen(),
            ..Default::default()
        }
    }

    #[derive(Debug, Default)]
    struct Coverage {
        /// Jobs taken, by kind (FULL, SLOT, FINISH).
        kinds: [usize; 3],
        dev_plans: usize,
        bud_plans: usize,
        /// Plans of both parts (a FULL read whose class spills).
        both_plans: usize,
        five_sector_plans: usize,
        dev_sectors: usize,
        bud_sectors: usize,
        /// Runs of 4 sectors, and runs from sector 4 (a 5-sector part's second).
        whole_runs: usize,
        second_runs: usize,
        not_ready: usize,
        resets: usize,
        /// `done_*` pulses (a closing job's last plan or run went).
        done: usize,
    }

    const CYCLES: usize = 10_000;
    /// Per seed: the chance a job is offered each cycle, and each output
    /// port's chance of being ready (`plan_ready`, `dev_req_ready`, `buddy_req_ready`).
    const SCHEDULES: [(f64, [f64; 3]); 8] = crate::lockstep::PLANNER_SCHEDULES;

    #[test]
    fn the_model_equals_the_hardware_every_cycle() {
        for (seed, &(p_job, p_ready)) in SCHEDULES.iter().enumerate() {
            let mut hw = ReadPlanner::default();
            hw.connect_all();
            let mut model = ReadPlannerModel::default();
            let mut rng = ChaCha8Rng::seed_from_u64(seed as u64);
            let mut c = Coverage::default();
            let mut offered: Option<ReadPlannerIn> = None;
            for cycle in 0..CYCLES {
                if offered.is_none() && rng.gen_bool(p_job) {
                    offered = Some(random_job(&mut rng));
                }
                let mut i = offered.clone().unwrap_or_else(|| no_job(&mut rng));
                i.reset = cycle < 2 || rng.gen_bool(0.002);
                i.plan_ready = rng.gen_bool(p_ready[0]);
                i.dev_req_ready = rng.gen_bool(p_ready[1]);
                i.buddy_req_ready = rng.gen_bool(p_ready[2]);
                drive(&mut hw, &i);
                settle(&mut hw);
                let want = hardware_out(&hw);
                assert_eq!(model.outputs(&i), want, "seed {seed}, cycle {cycle}, inputs {i:?}");

                c.resets += i.reset as usize;
                c.not_ready += !want.in_ready as usize;
                if i.in_valid && want.in_ready && !i.reset {
                    c.kinds[usize::from(i.in_kind)] += 1;
                }
                if let Some(p) = want.plan.filter(|_| i.plan_ready) {
                    c.dev_plans += p.device as usize;
                    c.bud_plans += p.buddy as usize;
                    c.both_plans += (p.device && p.buddy) as usize;
                    c.five_sector_plans += (p.sectors == 5 || p.bud_sectors == 5) as usize;
                }
                let runs = [want.dev_req.filter(|_| i.dev_req_ready), want.buddy_req.filter(|_| i.buddy_req_ready)];
                c.dev_sectors += runs[0].map_or(0, |r| usize::from(r.sectors));
                c.bud_sectors += runs[1].map_or(0, |r| usize::from(r.sectors));
                for r in runs.into_iter().flatten() {
                    c.whole_runs += (r.sectors == 4) as usize;
                    c.second_runs += (r.sector == 4) as usize;
                }
                if i.in_valid && want.in_ready {
                    offered = None;
                }
                if let Some(id) = want.done {
                    c.done += 1;
                    let went = want.plan.is_some() && i.plan_ready || runs.iter().any(Option::is_some);
                    assert!(went && want.plan.map_or(true, |p| p.id == id), "seed {seed}, cycle {cycle}: done({id}) with nothing going");
                }

                model.clock(&i);
                edge(&mut hw, |h| &mut h.clock);
            }
            println!("seed {seed}: {c:?}");
            let counts = [
                c.kinds[0],
                c.kinds[1],
                c.kinds[2],
                c.dev_plans,
                c.bud_plans,
                c.both_plans,
                c.five_sector_plans,
                c.dev_sectors,
                c.bud_sectors,
                c.whole_runs,
                c.second_runs,
                c.not_ready,
                c.done,
            ];
            // Every FULL and FINISH job is done once (a reset drops up to two,
            // and the last few may still be held).
            assert!(c.done <= c.kinds[0] + c.kinds[2] && c.done + 2 * c.resets + 2 >= c.kinds[0] + c.kinds[2], "seed {seed}: {c:?}");
            assert!(counts.iter().all(|&n| n > 0), "seed {seed}: {c:?}");
        }
    }
}
