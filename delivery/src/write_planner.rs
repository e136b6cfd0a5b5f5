//! Adapters for `WritePlanner`: a random driver that checks the hardware
//! against its cycle model (`buddy_hdl_model::write_planner`) cycle by
//! cycle and every byte it writes against the bytes the golden slice
//! stores (`translate_entry`'s device and buddy ranges of the payload; the
//! masked sectors of an uncompressed page), and lock-step lines for
//! co-simulating its Verilog.

use std::collections::VecDeque;
use std::io::Write;

use crate::harness::Harness;
use crate::read_planner::valid_accesses;
use crate::translation::Access;
use buddy_golden::translation::translate_entry;
use buddy_golden::SizeClass;
use buddy_hdl::request_contexts::CONTEXTS;
use buddy_hdl::{EntryBits, WritePlanner};
use buddy_hdl_model::write_planner::{drive, hardware_out, SectorWrite, WritePlannerIn, WritePlannerModel};
use buddy_hdl_model::CycleModel;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// The bytes a write stores, as (address, value): the strobed bytes of
/// its run (32 words).
fn written(w: &SectorWrite, data: &[u32; 32]) -> Vec<(u64, u8)> {
    (0..128).filter(|k| w.strobe >> k & 1 == 1).map(|k| (w.address + k, (data[k as usize / 4] >> (8 * (k % 4))) as u8)).collect()
}

/// What a run observed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WritePlannerRun {
    /// Jobs done: writes to compressed pages, of which with a buddy part,
    /// and to uncompressed pages.
    pub compressed: usize,
    pub spilled: usize,
    pub uncompressed: usize,
    /// Writes (runs of sectors) handed on, each checked against golden,
    /// and of them runs of 4 sectors.
    pub device_writes: usize,
    pub buddy_writes: usize,
    pub whole_runs: usize,
    pub cycles: u64,
}

crate::lockstep_ports!(WritePlanner, "write_planner",
    inputs: [
        reset: 1,
        in_valid: 1,
        in_id: 7,
        in_class: 3,
        in_compressed: 1,
        in_mask: 4,
        in_device_address: 64,
        in_device_part_bytes: 8,
        in_buddy_address: 64,
        in_payload: 1024,
        dev_wr_ready: 1,
        buddy_wr_ready: 1,
        done_ready: 1,
    ],
    outputs: [
        in_ready: 1,
        dev_wr_valid: 1,
        dev_wr_id: 7 if dev_wr_valid,
        dev_wr_address: 64 if dev_wr_valid,
        dev_wr_sectors: 3 if dev_wr_valid,
        dev_wr_data: 1024 if dev_wr_valid,
        dev_wr_strobe: 128 if dev_wr_valid,
        buddy_wr_valid: 1,
        buddy_wr_id: 7 if buddy_wr_valid,
        buddy_wr_address: 64 if buddy_wr_valid,
        buddy_wr_sectors: 3 if buddy_wr_valid,
        buddy_wr_data: 1024 if buddy_wr_valid,
        buddy_wr_strobe: 128 if buddy_wr_valid,
        done_valid: 1,
        done_id: 7 if done_valid,
    ],
);

/// The bytes golden stores for a job, per memory, as (address, value) in
/// address order: the payload's first `min(class, part)` bytes from the
/// device part's start and the next `class - part` from the buddy slot's
/// (compressed page), or each masked sector of the entry (uncompressed).
fn golden_bytes(a: &Access, j: &Job) -> (Vec<(u64, u8)>, Vec<(u64, u8)>) {
    let bytes: Vec<u8> = j.payload.iter().flat_map(|w| w.to_le_bytes()).collect();
    let class = SizeClass::from_code(j.ports.in_class).expect("a valid class");
    let access = translate_entry(&a.regs, a.page, &a.pte, a.va, class).expect("a valid access");
    if !j.ports.in_compressed {
        let slot = access.device_slot.address;
        let dev = (0..128u64).filter(|b| j.ports.in_mask >> (b / 32) & 1 == 1).map(|b| (slot + b, bytes[b as usize])).collect();
        return (dev, Vec::new());
    }
    let d = access.device.bytes;
    let dev = (0..d).map(|b| (access.device.address + b, bytes[b as usize])).collect();
    let bud = access.buddy.map_or_else(Vec::new, |r| (0..r.bytes).map(|b| (r.address + b, bytes[(d + b) as usize])).collect());
    (dev, bud)
}

/// A write job: its ports (`in_valid` high) and payload words.
#[derive(Debug, Clone)]
struct Job {
    ports: WritePlannerIn,
    payload: [u32; 32],
}

/// `cycles` random cycles (after reset): a write offered with probability
/// `p_job` per cycle (a random valid access: every target ratio, both page
/// sizes, compressed and uncompressed pages, every size class, a random
/// payload and, uncompressed, a random sector mask), each output port
/// ready with probability `p_ready`. Every cycle's outputs are compared
/// with the cycle model; every job's writes, byte by byte, with the bytes
/// golden stores, and nothing else may be written; then no new job starts
/// and the planner must drain.
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
) -> Result<WritePlannerRun, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut accesses = valid_accesses(&mut rng);
    let mut hw = WritePlanner::default();
    let mut dut = Harness::new(&mut hw, vcd).record(lockstep, line);
    dut.reset(1);

    let mut model = WritePlannerModel::default();
    let mut out = WritePlannerRun::default();
    let mut offered: Option<(Job, Access)> = None;
    // The held job's golden bytes still to be written, per memory.
    let mut held: Option<(Job, VecDeque<(u64, u8)>, VecDeque<(u64, u8)>)> = None;
    let mut cycle = 0usize;
    loop {
        let draining = cycle >= cycles;
        if draining && offered.is_none() && model.is_idle() {
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
            let ports = WritePlannerIn {
                in_valid: true,
                in_id: rng.gen_range(0..CONTEXTS) as u8,
                in_class: a.class_code,
                in_compressed: a.pte.compressed,
                in_mask: rng.gen_range(0..16),
                in_device_address: slot.device_slot.address,
                in_device_part_bytes: slot.device_slot.bytes as u8,
                // A 1x page has no buddy slot: any address (its writes never spill).
                in_buddy_address: slot.buddy.map_or(0xdead_bee0, |b| b.address),
                ..Default::default()
            };
            offered = Some((Job { ports, payload: std::array::from_fn(|_| rng.gen()) }, a));
        }
        // With no job offered the job ports carry anything.
        let job = offered.as_ref().map_or_else(
            || Job {
                ports: WritePlannerIn {
                    in_id: rng.gen_range(0..CONTEXTS) as u8,
                    in_class: rng.gen_range(0..8),
                    in_compressed: rng.gen(),
                    in_mask: rng.gen_range(0..16),
                    in_device_address: rng.gen(),
                    in_device_part_bytes: rng.gen_range(0..256u64) as u8,
                    in_buddy_address: rng.gen(),
                    ..Default::default()
                },
                payload: std::array::from_fn(|_| rng.gen()),
            },
            |(j, _)| j.clone(),
        );
        let mut i = job.ports.clone();
        (i.dev_wr_ready, i.buddy_wr_ready, i.done_ready) = (rng.gen_bool(p_ready), rng.gen_bool(p_ready), rng.gen_bool(p_ready));
        drive(&mut dut, &i);
        dut.in_payload.next = EntryBits::from_words(&job.payload);
        dut.settle();

        let want = model.outputs(&i);
        let got = hardware_out(&dut);
        if got != want {
            return Err(format!("cycle {cycle}: hardware {got:?}, model {want:?}"));
        }
        // Every byte written must be the next byte golden stores.
        let mut consume = |what: &str, w: &SectorWrite, data: &Signal<Out, EntryBits>, buddy: bool| -> Result<(), String> {
            let (job, d, b) = held.as_mut().ok_or_else(|| format!("cycle {cycle}: a {what} write with no job held"))?;
            let want = if buddy { b } else { d };
            for byte in written(w, &data.val().to_words()) {
                if want.pop_front() != Some(byte) {
                    return Err(format!(
                        "cycle {cycle}: {what} write {w:x?} of job {job:x?} writes byte {byte:x?}, not what golden stores next"
                    ));
                }
            }
            Ok(())
        };
        if let Some(w) = want.dev_wr.filter(|_| i.dev_wr_ready) {
            consume("device", &w, &dut.dev_wr_data, false)?;
            out.device_writes += 1;
            out.whole_runs += (w.sectors == 4) as usize;
        }
        if let Some(w) = want.buddy_wr.filter(|_| i.buddy_wr_ready) {
            consume("buddy", &w, &dut.buddy_wr_data, true)?;
            out.buddy_writes += 1;
            out.whole_runs += (w.sectors == 4) as usize;
        }
        if want.done.is_some() && i.done_ready {
            let (job, d, b) = held.take().expect("done with a job held");
            if !d.is_empty() || !b.is_empty() {
                return Err(format!("cycle {cycle}: job {job:x?} done with golden bytes unwritten: {d:x?} {b:x?}"));
            }
            let j = &job.ports;
            if j.in_compressed {
                out.compressed += 1;
                out.spilled +=
                    (SizeClass::from_code(j.in_class).expect("a valid class").bytes() > usize::from(j.in_device_part_bytes)) as usize;
            } else {
                out.uncompressed += 1;
            }
        }
        if let Some((j, a)) = offered.take_if(|_| want.in_ready) {
            let (d, b) = golden_bytes(&a, &j);
            held = Some((j, d.into(), b.into()));
        }
        model.clock(&i);
        dut.cycle();
        cycle += 1;
        out.cycles += 1;
    }
    Ok(out)
}

/// The planner's timing, measured: cycles from a job's acceptance to its
/// first sector write, and from its last sector write taken to `done`,
/// with every port ready.
pub fn measured_latencies() -> (u64, u64) {
    let mut hw = WritePlanner::default();
    let mut dut = Harness::new(&mut hw, None);
    dut.reset(1);
    let mut i = WritePlannerIn {
        in_valid: true,
        in_class: 4,
        in_compressed: true,
        in_device_part_bytes: 64,
        in_device_address: 0x1000,
        dev_wr_ready: true,
        buddy_wr_ready: true,
        done_ready: true,
        ..Default::default()
    };
    drive(&mut dut, &i);
    dut.settle();
    assert!(dut.in_ready.val(), "an idle planner takes a job");
    dut.edge();
    i.in_valid = false;
    drive(&mut dut, &i);
    let (mut first, mut last) = (None, None);
    for cycle in 1..20u64 {
        dut.settle();
        if dut.dev_wr_valid.val() {
            first.get_or_insert(cycle);
            last = Some(cycle);
        }
        if dut.done_valid.val() {
            return (first.expect("a 64-byte part has sectors"), cycle - last.expect("a 64-byte part has sectors"));
        }
        dut.edge();
    }
    panic!("no done within 20 cycles");
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the write planner.

/// The pipelined slice's write planner as a delivered module.
pub mod delivered {
    use super::{WritePlanner, LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS, PORTS};
    use crate::modules::{emit, LockstepBlock};
    use crate::stream::Traffic;
    use crate::waves::Filter;
    use std::io::Write;

    /// `write_planner`: the pipelined slice's write planner, the sector writes of a payload.
    pub const PLANNER: LockstepBlock = LockstepBlock {
        ports: PORTS,
        inputs: LOCKSTEP_INPUTS,
        outputs: LOCKSTEP_OUTPUTS,
        verilog: |name, revision| emit(WritePlanner::default(), name, revision),
        min_requests: 300,
        groups: &[
            ("clock and reset", &["clock", "reset"]),
            ("payload in", &["in_*"]),
            ("device writes out", &["dev_wr_*"]),
            ("buddy writes out", &["buddy_wr_*"]),
            ("done out", &["done_*"]),
        ],
        filters: &[("in_class", Filter::SizeClass)],
        run,
    };

    fn run(
        seed: u64,
        requests: usize,
        traffic: Option<Traffic>,
        lines: Option<&mut Vec<String>>,
        vcd: Option<&mut dyn Write>,
    ) -> Result<(usize, u64), String> {
        // Random payloads planned instead of stream traffic.
        let (p_job, p_ready) = traffic.map_or((0.5, 0.7), |t| (t.p_valid, t.p_ready));
        let run = super::run(seed, requests, p_job, p_ready, lines, vcd)?;
        Ok((run.compressed + run.uncompressed, run.cycles))
    }
}
