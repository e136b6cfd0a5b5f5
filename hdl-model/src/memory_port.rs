//! [`buddy_hdl::memory_port::MemoryPort`]: the metadata cache's fills and
//! write-backs, sector writes and reads of runs of sectors onto one memory
//! by fixed priority (combinationally; a write or read offered and not
//! taken keeps the grant), read answers routed back: data
//! runs straight to the gather, fills parked by number and handed to the
//! cache in order the cycle after their answer. Data and strobes are left
//! out.

use buddy_hdl::memory_port::{FILLS, FILL_TAG_BIT};
use buddy_hdl::sector_gather::SECTOR_INDEX_BITS;
use buddy_hdl::MemoryPort;

use crate::CycleModel;

/// `mem_tag`'s fill bit (`{sectors - 1, fill, context, sector}`).
const FILL_BIT: u16 = 1 << FILL_TAG_BIT;
/// `mem_tag`'s context and its run's `sectors - 1`.
const CONTEXT_MASK: u16 = 0x7f;
const RUN_SHIFT: u32 = FILL_TAG_BIT as u32 + 1;

#[derive(Debug, Clone, Default)]
pub struct MemoryPortIn {
    pub reset: bool,
    pub md_req_valid: bool,
    pub md_req_write: bool,
    pub md_req_address: u64,
    pub md_fill_ready: bool,
    pub wr_req_valid: bool,
    pub wr_req_address: u64,
    pub wr_req_id: u8,
    /// The write's run, 1-4 sectors.
    pub wr_req_sectors: u8,
    pub rd_req_valid: bool,
    pub rd_req_id: u8,
    pub rd_req_sector: u8,
    pub rd_req_address: u64,
    /// Sectors of the run, 1-4.
    pub rd_req_sectors: u8,
    pub rd_out_ready: bool,
    pub mem_ready: bool,
    pub mem_resp_valid: bool,
    pub mem_resp_tag: u16,
}

/// The request on `mem_*`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemRequest {
    pub write: bool,
    pub address: u64,
    /// `mem_sectors`: a read's or a write's run, 1-4 (1 for fills and write-backs).
    pub sectors: u8,
    /// `{sectors - 1, fill, context, sector}`; a write-back carries the
    /// next fill's tag (don't care to memory, but what the hardware shows).
    pub tag: u16,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryPortOut {
    /// `mem_ready`, unless a write or read holds the grant (whether or not a
    /// request is offered).
    pub md_req_ready: bool,
    /// `mem_ready`, unless the metadata cache is granted or a read holds the grant.
    pub wr_req_ready: bool,
    /// `mem_ready`, unless the metadata cache or a write is granted.
    pub rd_req_ready: bool,
    /// The oldest fill is parked (its data is left out).
    pub md_fill_valid: bool,
    /// `(rd_out_id, rd_out_sector, rd_out_sectors)`, `None` when
    /// `rd_out_valid` is low: a data run answered this cycle.
    pub rd_out: Option<(u8, u8, u8)>,
    /// `mem_*`, `None` when `mem_valid` is low: the granted requester's
    /// request (it does not wait for `mem_ready`).
    pub mem: Option<MemRequest>,
    /// `fill bit of mem_resp_tag | rd_out_ready`, computed from the tag
    /// even when `mem_resp_valid` is low.
    pub mem_resp_ready: bool,
}

/// The requester on `mem_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    Metadata,
    Write,
    Read,
}

/// Which fill numbers (mod [`FILLS`]) are parked, the number the next
/// fill asked for gets, the number of the next to hand on, and the write
/// or read offered last cycle and not taken (it keeps the grant).
#[derive(Debug, Clone, Default)]
pub struct MemoryPortModel {
    parked: [bool; FILLS],
    fill_next: usize,
    fill_head: usize,
    held: Option<Grant>,
}

impl MemoryPortModel {
    /// Fills parked, waiting for the cache.
    pub fn parked(&self) -> usize {
        self.parked.iter().filter(|&&p| p).count()
    }
    /// Whether fill number `n` (mod [`FILLS`]) is parked.
    pub fn is_parked(&self, n: usize) -> bool {
        self.parked[n % FILLS]
    }
    /// The number (mod [`FILLS`]) of the next fill to hand on.
    pub fn fill_head(&self) -> usize {
        self.fill_head
    }
}

impl MemoryPortModel {
    /// The requester whose request is on `mem_*` with inputs `i`: the first
    /// offering by priority, unless a write or read stalled last cycle
    /// keeps the grant.
    pub fn grant(&self, i: &MemoryPortIn) -> Option<Grant> {
        match self.held {
            // The held requester still offers (the stream rule); if it
            // did not, the priority decides as without a hold.
            Some(Grant::Read) if i.rd_req_valid => Some(Grant::Read),
            Some(Grant::Write) if i.wr_req_valid => Some(Grant::Write),
            Some(Grant::Read) => None,
            Some(Grant::Write) if i.rd_req_valid => Some(Grant::Read),
            Some(Grant::Write) => None,
            _ if i.md_req_valid => Some(Grant::Metadata),
            _ if i.wr_req_valid => Some(Grant::Write),
            _ if i.rd_req_valid => Some(Grant::Read),
            _ => None,
        }
    }
}

impl CycleModel for MemoryPortModel {
    type In = MemoryPortIn;
    type Out = MemoryPortOut;
    fn outputs(&self, i: &MemoryPortIn) -> MemoryPortOut {
        let grant = self.grant(i);
        let mem = if grant == Some(Grant::Metadata) {
            Some(MemRequest { write: i.md_req_write, address: i.md_req_address, sectors: 1, tag: FILL_BIT | self.fill_next as u16 })
        } else if grant == Some(Grant::Write) {
            Some(MemRequest { write: true, address: i.wr_req_address, sectors: i.wr_req_sectors, tag: (i.wr_req_id as u16) << SECTOR_INDEX_BITS })
        } else if grant == Some(Grant::Read) {
            Some(MemRequest {
                write: false,
                address: i.rd_req_address,
                sectors: i.rd_req_sectors,
                tag: (u16::from(i.rd_req_sectors.wrapping_sub(1) & 3) << RUN_SHIFT)
                    | (i.rd_req_id as u16) << SECTOR_INDEX_BITS
                    | i.rd_req_sector as u16,
            })
        } else {
            None
        };
        let resp_fill = i.mem_resp_tag & FILL_BIT != 0;
        let sector_mask = (1 << SECTOR_INDEX_BITS) - 1;
        MemoryPortOut {
            md_req_ready: i.mem_ready && self.held.is_none(),
            wr_req_ready: i.mem_ready && grant != Some(Grant::Metadata) && self.held != Some(Grant::Read),
            rd_req_ready: i.mem_ready && !matches!(grant, Some(Grant::Metadata | Grant::Write)),
            md_fill_valid: self.parked[self.fill_head],
            rd_out: (i.mem_resp_valid && !resp_fill).then(|| {
                let context = (i.mem_resp_tag >> SECTOR_INDEX_BITS) & CONTEXT_MASK;
                let sectors = (i.mem_resp_tag >> RUN_SHIFT & 3) + 1;
                (context as u8, (i.mem_resp_tag & sector_mask) as u8, sectors as u8)
            }),
            mem,
            mem_resp_ready: resp_fill || i.rd_out_ready,
        }
    }
    fn clock(&mut self, i: &MemoryPortIn) {
        if i.reset {
            *self = MemoryPortModel::default();
            return;
        }
        let grant = self.grant(i);
        self.held = grant.filter(|&g| g != Grant::Metadata && !i.mem_ready);
        // A write-back takes no fill number.
        if grant == Some(Grant::Metadata) && i.mem_ready && !i.md_req_write {
            self.fill_next = (self.fill_next + 1) % FILLS;
        }
        // Hand on, then park: a fill answered into the slot being handed
        // on stays parked (the kernel's order).
        if self.parked[self.fill_head] && i.md_fill_ready {
            self.parked[self.fill_head] = false;
            self.fill_head = (self.fill_head + 1) % FILLS;
        }
        // Fills are taken whatever the cache does.
        if i.mem_resp_valid && i.mem_resp_tag & FILL_BIT != 0 {
            self.parked[i.mem_resp_tag as usize % FILLS] = true;
        }
    }
}

/// What the block's output ports show, settled, as the model's `Out`.
pub fn hardware_out(h: &MemoryPort) -> MemoryPortOut {
    MemoryPortOut {
        md_req_ready: h.md_req_ready.val(),
        wr_req_ready: h.wr_req_ready.val(),
        rd_req_ready: h.rd_req_ready.val(),
        md_fill_valid: h.md_fill_valid.val(),
        rd_out: h.rd_out_valid.val().then(|| {
            (h.rd_out_id.val().to_u64() as u8, h.rd_out_sector.val().to_u64() as u8, h.rd_out_sectors.val().to_u64() as u8)
        }),
        mem: h.mem_valid.val().then(|| MemRequest {
            write: h.mem_write.val(),
            address: h.mem_address.val().to_u64(),
            sectors: h.mem_sectors.val().to_u64() as u8,
            tag: h.mem_tag.val().to_u64() as u16,
        }),
        mem_resp_ready: h.mem_resp_ready.val(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lockstep::{edge, settle};
    use buddy_hdl::memory_port::{data_tag, fill_tag, MEM_TAG_BITS};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rust_hdl::prelude::*;
    use std::collections::VecDeque;

    /// A request a requester holds until it is taken.
    #[derive(Debug, Clone, Copy)]
    struct Request {
        write: bool,
        address: u64,
        /// For a read: the tag memory must see and answer with.
        tag: u64,
    }

    #[derive(Debug, Default)]
    struct Coverage {
        fills: usize,
        write_backs: usize,
        writes: usize,
        reads: usize,
        /// A fill answered while an older one is still unanswered.
        fills_out_of_order: usize,
        /// Cycles two or three requesters offered at once.
        priority_conflicts: usize,
        /// Cycles a write or read kept the grant against a requester above it.
        grants_held: usize,
        /// Data sectors answered while the gather's side stalls.
        answers_held: usize,
        most_parked: usize,
        resets: usize,
    }

    fn sector_address(rng: &mut ChaCha8Rng) -> u64 {
        rng.gen::<u64>() & !31
    }

    /// `cycles` cycles: the metadata cache, the write planner and the read
    /// planner offer with probability `p_md`, `p_wr`, `p_rd` when idle and
    /// hold until taken; at most [`FILLS`]
    /// fills asked for and not yet handed back to the cache; memory
    /// answers each read 1-40 cycles after taking it, the due ones in
    /// random order; `mem_ready`, `rd_out_ready` and `md_fill_ready`
    /// each high with probability `p_ready`.
    fn run(seed: u64, cycles: usize, (p_md, p_wr, p_rd): (f64, f64, f64), p_ready: f64) -> Coverage {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut hw = MemoryPort::default();
        hw.connect_all();
        let mut model = MemoryPortModel::default();
        let mut cov = Coverage::default();
        let (mut md, mut wr, mut rd): (Option<Request>, Option<Request>, Option<Request>) = (None, None, None);
        // Fills asked for and not yet handed to the cache (their numbers).
        let mut fills_waiting: VecDeque<u64> = VecDeque::new();
        let mut fill_count = 0u64;
        // Reads memory took: (cycle due, tag, fill number or none).
        let mut in_memory: Vec<(u64, u64, Option<u64>)> = Vec::new();
        // The request offered on `mem_*` last cycle and not taken.
        let mut stalled: Option<MemRequest> = None;
        for cycle in 0..cycles as u64 {
            let reset = cycle < 2 || rng.gen_bool(0.0005);
            if md.is_none() && rng.gen_bool(p_md) {
                let write = fills_waiting.len() >= FILLS || rng.gen_bool(0.3);
                md = Some(Request { write, address: sector_address(&mut rng), tag: 0 });
            }
            if wr.is_none() && rng.gen_bool(p_wr) {
                // The run's sectors ride in the tag's run bits here (the
                // port tags every write `{0, 0, context, 0}`).
                wr = Some(Request {
                    write: true,
                    address: sector_address(&mut rng),
                    tag: data_tag(rng.gen_range(0..128), 0, rng.gen_range(1..=4)),
                });
            }
            if rd.is_none() && rng.gen_bool(p_rd) {
                rd = Some(Request {
                    write: false,
                    address: sector_address(&mut rng),
                    tag: data_tag(rng.gen_range(0..128), rng.gen_range(0..8), rng.gen_range(1..=4)),
                });
            }
            let due: Vec<usize> = (0..in_memory.len()).filter(|&k| in_memory[k].0 <= cycle).collect();
            let answer = (!due.is_empty() && rng.gen_bool(0.8)).then(|| due[rng.gen_range(0..due.len())]);
            // Idle requesters' fields and an idle answer's tag are junk.
            let junk = |rng: &mut ChaCha8Rng| Request { write: rng.gen(), address: rng.gen(), tag: rng.gen_range(0..1 << MEM_TAG_BITS) };
            let (md_in, wr_in, rd_in) =
                (md.unwrap_or_else(|| junk(&mut rng)), wr.unwrap_or_else(|| junk(&mut rng)), rd.unwrap_or_else(|| junk(&mut rng)));
            let i = MemoryPortIn {
                reset,
                md_req_valid: md.is_some(),
                md_req_write: md_in.write,
                md_req_address: md_in.address,
                md_fill_ready: rng.gen_bool(p_ready),
                wr_req_valid: wr.is_some(),
                wr_req_address: wr_in.address,
                wr_req_id: (wr_in.tag >> SECTOR_INDEX_BITS) as u8 & 0x7f,
                wr_req_sectors: (wr_in.tag >> RUN_SHIFT & 3) as u8 + 1,
                rd_req_valid: rd.is_some(),
                rd_req_id: (rd_in.tag >> SECTOR_INDEX_BITS) as u8 & 0x7f,
                rd_req_sector: (rd_in.tag & 7) as u8,
                rd_req_address: rd_in.address,
                rd_req_sectors: (rd_in.tag >> RUN_SHIFT & 3) as u8 + 1,
                rd_out_ready: rng.gen_bool(p_ready),
                mem_ready: rng.gen_bool(p_ready),
                mem_resp_valid: answer.is_some(),
                mem_resp_tag: answer.map_or_else(|| rng.gen_range(0..1 << MEM_TAG_BITS), |k| in_memory[k].1) as u16,
            };
            hw.reset.next = i.reset;
            hw.md_req_valid.next = i.md_req_valid;
            hw.md_req_write.next = i.md_req_write;
            hw.md_req_address.next = i.md_req_address.into();
            hw.md_req_data.next = rng.gen::<u64>().into();
            hw.md_fill_ready.next = i.md_fill_ready;
            hw.wr_req_valid.next = i.wr_req_valid;
            hw.wr_req_address.next = i.wr_req_address.into();
            hw.wr_req_sectors.next = u64::from(i.wr_req_sectors).into();
            hw.wr_req_data.next = buddy_hdl::EntryBits::from_words(&std::array::from_fn(|_| rng.gen()));
            hw.wr_req_strobe.next = buddy_hdl::wide_bits::bits128(rng.gen());
            hw.wr_req_id.next = (i.wr_req_id as u64).into();
            hw.rd_req_valid.next = i.rd_req_valid;
            hw.rd_req_id.next = (i.rd_req_id as u64).into();
            hw.rd_req_sector.next = (i.rd_req_sector as u64).into();
            hw.rd_req_address.next = i.rd_req_address.into();
            hw.rd_req_sectors.next = u64::from(i.rd_req_sectors).into();
            hw.rd_out_ready.next = i.rd_out_ready;
            hw.mem_ready.next = i.mem_ready;
            hw.mem_resp_valid.next = i.mem_resp_valid;
            hw.mem_resp_tag.next = (i.mem_resp_tag as u64).into();
            hw.mem_resp_data.next = buddy_hdl::EntryBits::from_words(&std::array::from_fn(|_| rng.gen()));
            settle(&mut hw);
            let want = hardware_out(&hw);
            assert_eq!(model.outputs(&i), want, "seed {seed}, cycle {cycle}");

            cov.priority_conflicts += (md.is_some() as u8 + wr.is_some() as u8 + rd.is_some() as u8 > 1) as usize;
            cov.most_parked = cov.most_parked.max(model.parked());
            // The driver's side of each handshake.
            // An offered request stays offered, unchanged, until taken.
            if let Some(r) = stalled {
                assert_eq!(want.mem, Some(r), "seed {seed}, cycle {cycle}: a stalled request changed");
            }
            stalled = want.mem.filter(|_| !i.mem_ready && !reset);
            cov.grants_held += (model.held.is_some() && md.is_some()) as usize;
            // The driver's side of each handshake: one requester is taken.
            let taken = [md.is_some() && want.md_req_ready, wr.is_some() && want.wr_req_ready, rd.is_some() && want.rd_req_ready];
            assert!(taken.iter().filter(|&&t| t).count() <= 1, "seed {seed}, cycle {cycle}: {taken:?}");
            if let Some(r) = want.mem.filter(|_| i.mem_ready) {
                if taken[0] {
                    md = None;
                    if r.write {
                        cov.write_backs += 1;
                    } else {
                        assert_eq!(r.tag as u64, fill_tag(fill_count), "seed {seed}, cycle {cycle}");
                        fills_waiting.push_back(fill_count);
                        in_memory.push((cycle + rng.gen_range(1..=40), r.tag as u64, Some(fill_count)));
                        fill_count += 1;
                    }
                } else if taken[1] {
                    wr = None;
                    cov.writes += 1;
                } else {
                    let r0 = rd.take().expect("a read offered");
                    assert!(taken[2], "seed {seed}, cycle {cycle}");
                    assert_eq!(r.tag as u64, r0.tag, "seed {seed}, cycle {cycle}");
                    in_memory.push((cycle + rng.gen_range(1..=40), r0.tag, None));
                }
            } else {
                assert_eq!(taken, [false; 3], "seed {seed}, cycle {cycle}: taken with mem_ready low");
            }
            if let Some(k) = answer.filter(|_| want.mem_resp_ready) {
                let (_, _, fill) = in_memory.swap_remove(k);
                if let Some(n) = fill {
                    cov.fills_out_of_order += in_memory.iter().any(|&(_, _, f)| f.is_some_and(|m| m < n)) as usize;
                } else {
                    cov.reads += 1;
                }
            }
            cov.answers_held += (want.rd_out.is_some() && !i.rd_out_ready) as usize;
            if want.md_fill_valid && i.md_fill_ready {
                let n = fills_waiting.pop_front().expect("a fill asked for");
                assert_eq!(n as usize % FILLS, model.fill_head, "seed {seed}, cycle {cycle}");
                cov.fills += 1;
            }
            if reset {
                // The requesters and memory start over with the port.
                cov.resets += 1;
                (md, wr, rd) = (None, None, None);
                fills_waiting.clear();
                in_memory.clear();
                fill_count = 0;
            }
            model.clock(&i);
            edge(&mut hw, |h| &mut h.clock);
        }
        cov
    }

    /// A fill answered at cycle 0 is offered to the cache at
    /// `timing::FILL_TO_CACHE`, as the hardware does.
    #[test]
    fn the_models_fill_latency_is_the_timing_constant() {
        use buddy_hdl::memory_port::timing::FILL_TO_CACHE;
        let mut m = MemoryPortModel::default();
        let ask = MemoryPortIn { md_req_valid: true, mem_ready: true, ..Default::default() };
        assert_eq!(m.outputs(&ask).mem.map(|r| r.tag as u64), Some(fill_tag(0)));
        m.clock(&ask);
        let first = (0..10u64)
            .find(|&cycle| {
                let i = MemoryPortIn {
                    mem_resp_valid: cycle == 0,
                    mem_resp_tag: fill_tag(0) as u16,
                    md_fill_ready: true,
                    ..Default::default()
                };
                let valid = m.outputs(&i).md_fill_valid;
                m.clock(&i);
                valid
            })
            .expect("the fill within 10 cycles");
        assert_eq!(first, FILL_TO_CACHE);
    }

    #[test]
    fn the_model_equals_the_hardware_every_cycle() {
        // ((p_md, p_wr, p_rd), p_ready): moderate, memory-bound (the
        // requesters contend), light, busy with memory keeping up.
        let rates = [((0.3, 0.4, 0.4), 0.7), ((0.3, 0.5, 0.9), 0.5), ((0.1, 0.2, 0.2), 0.9), ((0.4, 0.3, 0.9), 0.95)];
        for (seed, &(p_requests, p_ready)) in rates.iter().enumerate() {
            let cov = run(seed as u64, 10_000, p_requests, p_ready);
            eprintln!("memory port seed {seed}: {cov:?}");
            assert!(
                cov.fills > 50
                    && cov.write_backs > 0
                    && cov.writes > 50
                    && cov.reads > 50
                    && cov.fills_out_of_order > 0
                    && cov.priority_conflicts > 0
                    && cov.grants_held > 0
                    && cov.answers_held > 0
                    && cov.most_parked > 1,
                "seed {seed}: {cov:?}"
            );
        }
    }
}
