//! Adapters for `MemoryPort`: a random driver that plays the metadata
//! cache, both planners and a memory answering reads in any order, checks
//! the hardware against its cycle model (`buddy_hdl_model::memory_port`)
//! cycle by cycle and everything end to end (every request reaches memory
//! once, with its data; every fill reaches the cache in the order it was
//! asked for, with the sector memory holds; every data sector reaches its
//! context), and lock-step lines for co-simulating its Verilog.

use std::collections::VecDeque;
use std::io::Write;

use crate::harness::Harness;
use crate::stream::{sector_bits, sector_words};
use buddy_hdl::memory_port::{data_tag, fill_tag, FILLS, FILL_TAG_BIT, MEM_TAG_BITS};
use buddy_hdl::wide_bits::bits128;
use buddy_hdl::{EntryBits, MemoryPort};
use buddy_hdl_model::memory_port::{hardware_out, Grant, MemoryPortIn, MemoryPortModel};
use buddy_hdl_model::CycleModel;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Sector = [u32; 8];

/// A request as one of the three requesters offers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Request {
    write: bool,
    address: u64,
    /// A write's run (a write-back's sector in words 0-7, the rest 0).
    data: [u32; 32],
    strobe: u128,
    /// A write's run of sectors (1 for a write-back).
    sectors: u64,
    tag: u64,
}

/// What memory answers at `address`: a value of the address alone.
fn memory_sector(address: u64) -> Sector {
    std::array::from_fn(|m| (address.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (8 * m)) as u32 ^ m as u32)
}

/// A read's sectors (`{sectors - 1, ...}` of its tag).
fn run_sectors(tag: u64) -> u64 {
    (tag >> (FILL_TAG_BIT + 1) & 3) + 1
}

/// What memory answers to a read of `tag` at `address`: its run's sectors
/// at words `8k..8k + 8`, 0 above.
fn memory_run(address: u64, tag: u64) -> [u32; 32] {
    let mut words = [0u32; 32];
    for k in 0..run_sectors(tag) as usize {
        words[8 * k..8 * k + 8].copy_from_slice(&memory_sector(address + 32 * k as u64));
    }
    words
}

/// What a run observed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct MemoryPortRun {
    pub fills: usize,
    pub write_backs: usize,
    pub writes: usize,
    pub reads: usize,
    /// Fills answered before an earlier one (parked out of order).
    pub fills_out_of_order: usize,
    pub cycles: u64,
}

crate::lockstep_ports!(MemoryPort, "memory_port",
    inputs: [
        reset: 1,
        md_req_valid: 1,
        md_req_write: 1,
        md_req_address: 64,
        md_req_data: 256,
        md_fill_ready: 1,
        wr_req_valid: 1,
        wr_req_address: 64,
        wr_req_sectors: 3,
        wr_req_data: 1024,
        wr_req_strobe: 128,
        wr_req_id: 7,
        rd_req_valid: 1,
        rd_req_id: 7,
        rd_req_sector: 3,
        rd_req_address: 64,
        rd_req_sectors: 3,
        rd_out_ready: 1,
        mem_ready: 1,
        mem_resp_valid: 1,
        mem_resp_tag: 13,
        mem_resp_data: 1024,
    ],
    outputs: [
        md_req_ready: 1,
        md_fill_valid: 1,
        md_fill_data: 256 if md_fill_valid,
        wr_req_ready: 1,
        rd_req_ready: 1,
        rd_out_valid: 1,
        rd_out_id: 7 if rd_out_valid,
        rd_out_sector: 3 if rd_out_valid,
        rd_out_sectors: 3 if rd_out_valid,
        rd_out_data: 1024 if rd_out_valid,
        mem_valid: 1,
        mem_write: 1 if mem_valid,
        mem_address: 64 if mem_valid,
        mem_sectors: 3 if mem_valid,
        mem_data: 1024 if mem_valid,
        mem_strobe: 128 if mem_valid,
        mem_tag: 13 if mem_valid,
        mem_resp_ready: 1,
    ],
);

/// A write-back's sector as the run memory sees (words 0-7).
fn random_sector(rng: &mut ChaCha8Rng) -> [u32; 32] {
    std::array::from_fn(|m| if m < 8 { rng.gen() } else { 0 })
}

fn sector_address(rng: &mut ChaCha8Rng) -> u64 {
    rng.gen::<u64>() & !31
}

/// `cycles` random cycles (after reset): the metadata cache asks for a
/// fill or a write-back with probability `p_request` per cycle (never more
/// than 4 fills it has not yet taken back), the write planner for a sector
/// write and the read planner for a sector read with the same probability,
/// each holding its request until taken; memory takes a request with
/// probability `p_ready` and answers each read 1-40 cycles later in random
/// order; the cache and the gather take answers with probability
/// `p_ready`. Every cycle's outputs are compared with the model; every
/// request must reach memory exactly once, in its requester's order, with
/// its data; every fill must reach the cache in the order asked, with the
/// sector memory holds; every data sector its context; then the
/// requesters stop and everything must drain.
///
/// # Errors
/// The first difference, with its cycle.
pub fn run(
    seed: u64,
    cycles: usize,
    p_request: f64,
    p_ready: f64,
    lockstep: Option<&mut Vec<String>>,
    vcd: Option<&mut dyn Write>,
) -> Result<MemoryPortRun, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut hw = MemoryPort::default();
    let mut dut = Harness::new(&mut hw, vcd).record(lockstep, line);
    dut.reset(1);

    let mut model = MemoryPortModel::default();
    let mut out = MemoryPortRun::default();
    let (mut md, mut wr, mut rd): (Option<Request>, Option<Request>, Option<Request>) = (None, None, None);
    // Fills asked for and not yet taken back by the cache, in order (addresses).
    let mut fills_waiting: VecDeque<u64> = VecDeque::new();
    // Data reads asked for and not yet delivered: (tag, address).
    let mut reads_waiting: Vec<(u64, u64)> = Vec::new();
    // Reads memory took: (cycle due, tag, address).
    let mut in_memory: Vec<(u64, u64, u64)> = Vec::new();
    let mut fill_count = 0u64;
    let mut cycle = 0u64;
    loop {
        let draining = cycle >= cycles as u64;
        if draining
            && md.is_none()
            && wr.is_none()
            && rd.is_none()
            && in_memory.is_empty()
            && fills_waiting.is_empty()
            && reads_waiting.is_empty()
        {
            break;
        }
        if cycle > cycles as u64 + 10_000 {
            return Err(format!("the port did not drain within 10,000 cycles after cycle {cycles}"));
        }
        if !draining {
            if md.is_none() && rng.gen_bool(p_request) {
                let write = fills_waiting.len() >= FILLS || rng.gen_bool(0.3);
                let address = sector_address(&mut rng);
                let tag = if write { 0 } else { fill_tag(fill_count) };
                if !write {
                    fill_count += 1;
                    fills_waiting.push_back(address);
                }
                md = Some(Request { write, address, data: random_sector(&mut rng), strobe: 0xffff_ffff, sectors: 1, tag });
            }
            if wr.is_none() && rng.gen_bool(p_request) {
                wr = Some(Request {
                    write: true,
                    address: sector_address(&mut rng),
                    data: std::array::from_fn(|_| rng.gen()),
                    strobe: rng.gen(),
                    sectors: rng.gen_range(1..=4),
                    tag: data_tag(rng.gen_range(0..128), 0, 1),
                });
            }
            if rd.is_none() && rng.gen_bool(p_request) {
                let address = sector_address(&mut rng);
                let tag = data_tag(rng.gen_range(0..128), rng.gen_range(0..8), rng.gen_range(1..=4));
                rd = Some(Request { write: false, address, data: [0; 32], strobe: 0, sectors: 0, tag });
            }
        }
        // Memory answers one due read, picked at random (any order).
        let due: Vec<usize> = (0..in_memory.len()).filter(|&i| in_memory[i].0 <= cycle).collect();
        let answer = (!due.is_empty() && rng.gen_bool(0.8)).then(|| due[rng.gen_range(0..due.len())]);
        let (resp_tag, resp_address) = answer.map_or((rng.gen_range(0..1 << MEM_TAG_BITS), rng.gen()), |i| (in_memory[i].1, in_memory[i].2));
        let resp_data = memory_run(resp_address, resp_tag);
        let (mem_ready, rd_out_ready, fill_ready) = (rng.gen_bool(p_ready), rng.gen_bool(p_ready), rng.gen_bool(p_ready));
        let junk = random_sector(&mut rng);
        let md_in = md.unwrap_or(Request { write: rng.gen(), address: rng.gen(), data: junk, strobe: 0, sectors: 1, tag: 0 });
        let wr_in = wr.unwrap_or(Request { write: true, address: rng.gen(), data: junk, strobe: rng.gen(), sectors: rng.gen_range(1..=4), tag: 0 });
        let rd_in = rd.unwrap_or(Request {
            write: false,
            address: rng.gen(),
            data: junk,
            strobe: 0,
            sectors: 0,
            tag: rng.gen_range(0..1 << MEM_TAG_BITS),
        });
        dut.md_req_valid.next = md.is_some();
        dut.md_req_write.next = md_in.write;
        dut.md_req_address.next = md_in.address.into();
        dut.md_req_data.next = sector_bits(&<[u32; 8]>::try_from(&md_in.data[..8]).expect("8 words"));
        dut.md_fill_ready.next = fill_ready;
        dut.wr_req_valid.next = wr.is_some();
        dut.wr_req_address.next = wr_in.address.into();
        dut.wr_req_sectors.next = wr_in.sectors.into();
        dut.wr_req_data.next = EntryBits::from_words(&wr_in.data);
        dut.wr_req_strobe.next = bits128(wr_in.strobe);
        dut.wr_req_id.next = (wr_in.tag >> 3 & 0x7f).into();
        dut.rd_req_valid.next = rd.is_some();
        dut.rd_req_id.next = (rd_in.tag >> 3 & 0x7f).into();
        dut.rd_req_sector.next = (rd_in.tag & 7).into();
        dut.rd_req_address.next = rd_in.address.into();
        dut.rd_req_sectors.next = run_sectors(rd_in.tag).into();
        dut.rd_out_ready.next = rd_out_ready;
        dut.mem_ready.next = mem_ready;
        dut.mem_resp_valid.next = answer.is_some();
        dut.mem_resp_tag.next = resp_tag.into();
        dut.mem_resp_data.next = EntryBits::from_words(&resp_data);
        dut.settle();

        let i = MemoryPortIn {
            reset: false,
            md_req_valid: md.is_some(),
            md_req_write: md_in.write,
            md_req_address: md_in.address,
            md_fill_ready: fill_ready,
            wr_req_valid: wr.is_some(),
            wr_req_address: wr_in.address,
            wr_req_id: (wr_in.tag >> 3 & 0x7f) as u8,
            wr_req_sectors: wr_in.sectors as u8,
            rd_req_valid: rd.is_some(),
            rd_req_id: (rd_in.tag >> 3 & 0x7f) as u8,
            rd_req_sector: (rd_in.tag & 7) as u8,
            rd_req_address: rd_in.address,
            rd_req_sectors: run_sectors(rd_in.tag) as u8,
            rd_out_ready,
            mem_ready,
            mem_resp_valid: answer.is_some(),
            mem_resp_tag: resp_tag as u16,
        };
        let (want, got) = (model.outputs(&i), hardware_out(&dut));
        if got != want {
            return Err(format!("cycle {cycle}: hardware {got:x?}, model {want:x?}"));
        }
        // What the model leaves out: memory sees a write's data and strobe
        // and a read's tag as its requester holds them (the model checks
        // which requester goes), an answer's data goes on as it came, and
        // the fill handed on holds what memory holds at the address asked.
        let granted = model.grant(&i);
        let sent = match granted {
            Some(Grant::Metadata) => md,
            Some(Grant::Write) => wr,
            Some(Grant::Read) => rd,
            None => None,
        };
        if let Some(r) = sent {
            let (data, strobe, tag) = (dut.mem_data.val().to_words(), dut.mem_strobe.val().to_u128(), dut.mem_tag.val().to_u64());
            if if r.write { (data, strobe) != (r.data, r.strobe) } else { tag != r.tag } {
                return Err(format!("cycle {cycle}: memory sees {r:x?} as data {data:x?}, strobe {strobe:#x}, tag {tag:#x}"));
            }
        }
        if got.rd_out.is_some() && dut.rd_out_data.val().to_words() != resp_data {
            return Err(format!("cycle {cycle}: answer {resp_tag:#x} goes on with other data than memory's"));
        }
        if got.md_fill_valid {
            let address = *fills_waiting.front().ok_or_else(|| format!("cycle {cycle}: a fill the cache did not ask for"))?;
            let data = sector_words(&dut.md_fill_data.val());
            if data != memory_sector(address) {
                return Err(format!("cycle {cycle}: fill of {address:#x} hands the cache {data:x?}"));
            }
        }
        let resp_fill = resp_tag >> 10 & 1 == 1;

        // End to end. The comparison above checks that memory sees the
        // granted requester's request (the first by priority, or a stalled
        // write or read that keeps its grant), as it holds it; a taken
        // request is dropped, so each reaches memory once, in order.
        if let Some(r) = sent.filter(|_| mem_ready) {
            match granted {
                Some(Grant::Metadata) => {
                    md = None;
                    out.write_backs += r.write as usize;
                }
                Some(Grant::Write) => {
                    wr = None;
                    out.writes += 1;
                }
                _ => rd = None,
            }
            if !r.write {
                in_memory.push((cycle + rng.gen_range(1..=40), r.tag, r.address));
                if r.tag >> 10 & 1 == 0 {
                    reads_waiting.push((r.tag, r.address));
                }
            }
        }
        if let Some(i) = answer.filter(|_| resp_fill || rd_out_ready) {
            let (_, tag, address) = in_memory.swap_remove(i);
            if tag >> 10 & 1 == 1 {
                let n = (tag % FILLS as u64) as usize;
                if model.is_parked(n) {
                    return Err(format!("cycle {cycle}: fill {n} answered while one is parked there"));
                }
                if n != model.fill_head() && !model.is_parked(model.fill_head()) {
                    out.fills_out_of_order += 1;
                }
            } else {
                let k = reads_waiting
                    .iter()
                    .position(|&(t, a)| t == tag && a == address)
                    .ok_or_else(|| format!("cycle {cycle}: read {tag:#x} of {address:#x} delivered but not asked for"))?;
                reads_waiting.swap_remove(k);
                out.reads += 1;
            }
        }
        if got.md_fill_valid && fill_ready {
            fills_waiting.pop_front();
            out.fills += 1;
        }
        model.clock(&i);
        dut.cycle();
        cycle += 1;
        out.cycles += 1;
    }
    Ok(out)
}

/// The port's timing, measured: cycles from a fill's answer on
/// `mem_resp_*` to `md_fill_valid`.
pub fn measured_fill_latency() -> u64 {
    let mut hw = MemoryPort::default();
    let mut dut = Harness::new(&mut hw, None);
    dut.reset(1);
    dut.mem_ready.next = true;
    dut.md_req_valid.next = true;
    dut.md_req_address.next = 0x40u64.into();
    dut.settle();
    dut.edge();
    dut.md_req_valid.next = false;
    dut.mem_resp_valid.next = true;
    dut.mem_resp_tag.next = fill_tag(0).into();
    dut.settle();
    assert!(!dut.md_fill_valid.val(), "a fill is parked before it is handed on");
    dut.edge();
    dut.mem_resp_valid.next = false;
    for cycle in 1..10 {
        dut.settle();
        if dut.md_fill_valid.val() {
            return cycle;
        }
        dut.edge();
    }
    panic!("the fill never reached the cache");
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the memory port.

/// The pipelined slice's memory port as a delivered module.
pub mod delivered {
    use super::{MemoryPort, LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS, PORTS};
    use crate::modules::{emit, LockstepBlock};
    use crate::stream::Traffic;
    use std::io::Write;

    /// `memory_port`: the pipelined slice's memory port, requests merged and answers routed.
    pub const PORT: LockstepBlock = LockstepBlock {
        ports: PORTS,
        inputs: LOCKSTEP_INPUTS,
        outputs: LOCKSTEP_OUTPUTS,
        verilog: |name, revision| emit(MemoryPort::default(), name, revision),
        min_requests: 300,
        groups: &[
            ("clock and reset", &["clock", "reset"]),
            ("metadata requests in", &["md_req_*"]),
            ("metadata fills out", &["md_fill_*"]),
            ("writes in", &["wr_req_*"]),
            ("reads in", &["rd_req_*"]),
            ("read runs out", &["rd_out_*"]),
            ("memory requests out", &["mem_valid", "mem_ready", "mem_write", "mem_address", "mem_sectors", "mem_data", "mem_strobe", "mem_tag"]),
            ("memory responses in", &["mem_resp_*"]),
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
        // Random requests and out-of-order answers instead of stream traffic.
        let (p_request, p_ready) = traffic.map_or((0.4, 0.7), |t| (t.p_valid * 0.5, t.p_ready));
        let run = super::run(seed, requests, p_request, p_ready, lines, vcd)?;
        Ok((run.fills + run.write_backs + run.writes + run.reads, run.cycles))
    }
}
