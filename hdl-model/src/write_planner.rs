//! [`buddy_hdl::write_planner::WritePlanner`]: one write job at a time,
//! its device and buddy writes of runs of up to 4 sectors (address,
//! sectors and byte strobe; the data is left out) and its `done`.
//!
//! Legal inputs are assumed, as the slice gives them: addresses 8-byte
//! aligned (an uncompressed page's device slot 32-byte aligned),
//! `in_device_part_bytes` one of 8, 32, 64, 96, 128, and a job's fields
//! held while `in_valid` is high and not taken.

use buddy_golden::translation::SECTOR_BYTES;
use buddy_golden::ENTRY_BYTES;
use buddy_hdl::sector_lanes::RUN_SECTORS;
use rust_hdl::prelude::Bits;
use buddy_hdl::write_planner::{WritePlanner, PART_SECTORS};

use crate::read_planner::{class_units, first_unit, lead_word, part_units, sector_base, sectors, UNIT_BYTES, WORD_BYTES};
use crate::CycleModel;

#[derive(Debug, Clone, Default)]
pub struct WritePlannerIn {
    pub reset: bool,
    pub in_valid: bool,
    pub in_id: u8,
    pub in_class: u8,
    pub in_compressed: bool,
    /// Uncompressed page: bit `s` writes sector `s` of the slot.
    pub in_mask: u8,
    pub in_device_address: u64,
    pub in_device_part_bytes: u8,
    pub in_buddy_address: u64,
    pub dev_wr_ready: bool,
    pub buddy_wr_ready: bool,
    pub done_ready: bool,
}

/// A write of a run of sectors (`dev_wr_*`, `buddy_wr_*`) without its data.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SectorWrite {
    pub id: u8,
    /// The run's first sector's address.
    pub address: u64,
    /// The run's sectors, 1-4.
    pub sectors: u8,
    /// Bit `k`: byte `k` from `address` is written.
    pub strobe: u128,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WritePlannerOut {
    /// Combinational from `done_ready`: the next job is taken in the
    /// cycle the held one's `done` is.
    pub in_ready: bool,
    pub dev_wr: Option<SectorWrite>,
    pub buddy_wr: Option<SectorWrite>,
    /// `done_id`.
    pub done: Option<u8>,
}

/// One part of the held job (`j_*_left`, `_base`, `_lead`, `_end`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Part {
    /// Bit `k`: the part's sector `k` still to write.
    pub left: u8,
    pub base: u64,
    /// The part's first 4-byte word in its first sector.
    pub lead: u8,
    /// One past the part's last byte, from its first sector's start.
    pub end: u64,
}

impl Part {
    /// `units` 8-byte units from `address` (none: no sector).
    fn of(address: u64, units: u64) -> Part {
        let first = first_unit(address);
        Part {
            left: ((1u32 << sectors(first, units).min(PART_SECTORS as u64)) - 1) as u8,
            base: sector_base(address),
            lead: lead_word(address),
            end: (first + units) * UNIT_BYTES,
        }
    }

    /// The run: the lowest sector left and those left right after it, at
    /// most [`RUN_SECTORS`] (as a mask of the part's sectors).
    fn run(&self) -> u8 {
        let k = self.left.trailing_zeros();
        let n = (self.left >> k).trailing_ones().min(RUN_SECTORS as u32);
        (((1u16 << n) - 1) << k) as u8
    }

    /// The run's write: its bytes of the part.
    fn offer(&self, id: u8) -> Option<SectorWrite> {
        if self.left == 0 {
            return None;
        }
        let run = self.run();
        let start = SECTOR_BYTES * u64::from(run.trailing_zeros());
        let off = start.max(WORD_BYTES * u64::from(self.lead)) - start;
        let stop = (self.end - start).min(SECTOR_BYTES * u64::from(run.count_ones()));
        let ones = |n: u64| u128::MAX.checked_shr(128 - n as u32).unwrap_or(0);
        let strobe = ones(stop) & !ones(off);
        Some(SectorWrite { id, address: self.base + start, sectors: run.count_ones() as u8, strobe })
    }
}

/// The held job (`j_busy`, `j_id`, the parts).
#[derive(Debug, Clone, Default)]
pub struct WritePlannerModel {
    busy: bool,
    id: u8,
    dev: Part,
    bud: Part,
}

impl WritePlannerModel {
    /// Whether no job is held.
    pub fn is_idle(&self) -> bool {
        !self.busy
    }

    fn done(&self) -> Option<u8> {
        (self.busy && self.dev.left == 0 && self.bud.left == 0).then_some(self.id)
    }

    /// The job the planner makes of the inputs (what `take` stores).
    fn job(i: &WritePlannerIn) -> (Part, Part) {
        if !i.in_compressed {
            // The slot is sector aligned: each masked sector whole; no
            // buddy part.
            let dev = Part { left: i.in_mask & 0xF, base: sector_base(i.in_device_address), lead: 0, end: ENTRY_BYTES as u64 };
            return (dev, Part::default());
        }
        let (c8, p8) = (class_units(i.in_class), part_units(i.in_device_part_bytes));
        // min(class, part) from the device slot, class - part from the
        // buddy slot (a ZERO entry writes nothing and is done at once).
        let dev = Part::of(i.in_device_address, c8.min(p8));
        let bud = Part::of(i.in_buddy_address, c8.saturating_sub(p8));
        (dev, bud)
    }
}

impl CycleModel for WritePlannerModel {
    type In = WritePlannerIn;
    type Out = WritePlannerOut;

    fn outputs(&self, i: &WritePlannerIn) -> WritePlannerOut {
        let done = self.done();
        WritePlannerOut {
            in_ready: !self.busy || (done.is_some() && i.done_ready),
            dev_wr: self.dev.offer(self.id),
            buddy_wr: self.bud.offer(self.id),
            done,
        }
    }

    fn clock(&mut self, i: &WritePlannerIn) {
        if i.reset {
            *self = WritePlannerModel::default();
            return;
        }
        let o = self.outputs(i);
        if o.dev_wr.is_some() && i.dev_wr_ready {
            self.dev.left &= !self.dev.run();
        }
        if o.buddy_wr.is_some() && i.buddy_wr_ready {
            self.bud.left &= !self.bud.run();
        }
        if o.done.is_some() && i.done_ready {
            self.busy = false;
        }
        // A job is taken only with nothing left to write: it replaces all.
        if i.in_valid && o.in_ready {
            let (dev, bud) = Self::job(i);
            *self = WritePlannerModel { busy: true, id: i.in_id, dev, bud };
        }
    }
}

/// Drive `i` onto the block's input ports (set `next`; settle after).
///
/// The payload is not driven: no output the model shows reads it.
pub fn drive(h: &mut WritePlanner, i: &WritePlannerIn) {
    h.reset.next = i.reset;
    h.in_valid.next = i.in_valid;
    h.in_id.next = u64::from(i.in_id).into();
    h.in_class.next = u64::from(i.in_class).into();
    h.in_compressed.next = i.in_compressed;
    h.in_mask.next = u64::from(i.in_mask).into();
    h.in_device_address.next = i.in_device_address.into();
    h.in_device_part_bytes.next = u64::from(i.in_device_part_bytes).into();
    h.in_buddy_address.next = i.in_buddy_address.into();
    h.dev_wr_ready.next = i.dev_wr_ready;
    h.buddy_wr_ready.next = i.buddy_wr_ready;
    h.done_ready.next = i.done_ready;
}

/// What the block's output ports show, settled, as the model's `Out`.
pub fn hardware_out(h: &WritePlanner) -> WritePlannerOut {
    let write = |valid: bool, id: &Bits<7>, address: &Bits<64>, sectors: &Bits<3>, strobe: &Bits<128>| {
        valid.then(|| SectorWrite {
            id: id.to_u64() as u8,
            address: address.to_u64(),
            sectors: sectors.to_u64() as u8,
            strobe: strobe.to_u128(),
        })
    };
    WritePlannerOut {
        in_ready: h.in_ready.val(),
        dev_wr: write(h.dev_wr_valid.val(), &h.dev_wr_id.val(), &h.dev_wr_address.val(), &h.dev_wr_sectors.val(), &h.dev_wr_strobe.val()),
        buddy_wr: write(
            h.buddy_wr_valid.val(),
            &h.buddy_wr_id.val(),
            &h.buddy_wr_address.val(),
            &h.buddy_wr_sectors.val(),
            &h.buddy_wr_strobe.val(),
        ),
        done: h.done_valid.val().then(|| h.done_id.val().to_u64() as u8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lockstep::{edge, random_slot, settle};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rust_hdl::prelude::*;

    /// A legal job: any class of a random entry, an uncompressed page's
    /// with a random sector mask (maybe none).
    fn random_job(rng: &mut ChaCha8Rng) -> WritePlannerIn {
        let slot = random_slot(rng);
        WritePlannerIn {
            in_valid: true,
            in_id: rng.gen_range(0..128),
            in_class: rng.gen_range(0..8),
            in_compressed: slot.compressed,
            in_mask: rng.gen_range(0..16),
            in_device_address: slot.device_address,
            in_device_part_bytes: slot.part_bytes,
            in_buddy_address: slot.buddy_address,
            ..Default::default()
        }
    }

    /// What the inputs carry while no job is offered: anything.
    fn no_job(rng: &mut ChaCha8Rng) -> WritePlannerIn {
        WritePlannerIn {
            in_valid: false,
            in_id: rng.gen_range(0..128),
            in_class: rng.gen_range(0..8),
            in_compressed: rng.gen(),
            in_mask: rng.gen_range(0..16),
            in_device_address: rng.gen(),
            in_device_part_bytes: rng.gen(),
            in_buddy_address: rng.gen(),
            ..Default::default()
        }
    }

    #[derive(Debug, Default)]
    struct Coverage {
        compressed: usize,
        spilled: usize,
        uncompressed: usize,
        /// Jobs with no sector at all (ZERO, an empty mask).
        empty: usize,
        dev_sectors: usize,
        bud_sectors: usize,
        /// Writes whose strobe leaves bytes of their run out.
        partial: usize,
        /// Runs of 4 sectors, and of 2 or 3.
        whole_runs: usize,
        short_runs: usize,
        /// Runs taken with more of their part left (a 5-sector part, a
        /// mask with a gap).
        split: usize,
        dones: usize,
        not_ready: usize,
    }

    const CYCLES: usize = 10_000;
    /// Per seed: the chance a job is offered each cycle, and each output
    /// port's chance of being ready (`dev_wr_ready`, `buddy_wr_ready`, `done_ready`).
    const SCHEDULES: [(f64, [f64; 3]); 8] = crate::lockstep::PLANNER_SCHEDULES;

    #[test]
    fn the_model_equals_the_hardware_every_cycle() {
        for (seed, &(p_job, p_ready)) in SCHEDULES.iter().enumerate() {
            let mut hw = WritePlanner::default();
            hw.connect_all();
            let mut model = WritePlannerModel::default();
            let mut rng = ChaCha8Rng::seed_from_u64(seed as u64);
            let mut c = Coverage::default();
            let mut offered: Option<WritePlannerIn> = None;
            for cycle in 0..CYCLES {
                if offered.is_none() && rng.gen_bool(p_job) {
                    offered = Some(random_job(&mut rng));
                }
                let mut i = offered.clone().unwrap_or_else(|| no_job(&mut rng));
                i.reset = cycle < 2 || rng.gen_bool(0.002);
                i.dev_wr_ready = rng.gen_bool(p_ready[0]);
                i.buddy_wr_ready = rng.gen_bool(p_ready[1]);
                i.done_ready = rng.gen_bool(p_ready[2]);
                drive(&mut hw, &i);
                settle(&mut hw);
                let want = hardware_out(&hw);
                assert_eq!(model.outputs(&i), want, "seed {seed}, cycle {cycle}, inputs {i:?}");

                c.not_ready += !want.in_ready as usize;
                if i.in_valid && want.in_ready && !i.reset {
                    let (dev, bud) = WritePlannerModel::job(&i);
                    if !i.in_compressed {
                        c.uncompressed += 1;
                    } else {
                        c.compressed += 1;
                        c.spilled += (bud.left != 0) as usize;
                    }
                    c.empty += (dev.left == 0 && bud.left == 0) as usize;
                }
                for w in [want.dev_wr.filter(|_| i.dev_wr_ready), want.buddy_wr.filter(|_| i.buddy_wr_ready)].iter().flatten() {
                    c.partial += (w.strobe != u128::MAX >> (128 - 32 * u32::from(w.sectors))) as usize;
                    c.whole_runs += (w.sectors == 4) as usize;
                    c.short_runs += (2..4).contains(&w.sectors) as usize;
                }
                let dev_split = want.dev_wr.is_some() && i.dev_wr_ready && model.dev.left != model.dev.run();
                let bud_split = want.buddy_wr.is_some() && i.buddy_wr_ready && model.bud.left != model.bud.run();
                c.split += (dev_split || bud_split) as usize;
                c.dev_sectors += (want.dev_wr.is_some() && i.dev_wr_ready) as usize;
                c.bud_sectors += (want.buddy_wr.is_some() && i.buddy_wr_ready) as usize;
                c.dones += (want.done.is_some() && i.done_ready) as usize;
                if i.in_valid && want.in_ready {
                    offered = None;
                }

                model.clock(&i);
                edge(&mut hw, |h| &mut h.clock);
            }
            println!("seed {seed}: {c:?}");
            let counts = [
                c.compressed,
                c.spilled,
                c.uncompressed,
                c.empty,
                c.dev_sectors,
                c.bud_sectors,
                c.partial,
                c.whole_runs,
                c.short_runs,
                c.split,
                c.dones,
                c.not_ready,
            ];
            assert!(counts.iter().all(|&n| n > 0), "seed {seed}: {c:?}");
        }
    }
}
