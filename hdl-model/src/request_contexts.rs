//! [`buddy_hdl::request_contexts::RequestContexts`]: the lowest free of
//! [`CONTEXTS`] request contexts is offered, unless its memory-entry's
//! bucket ([`bucket`], one of `1 << BUCKET_BITS`) is closed to it: to a
//! read while a write of the bucket is in flight, to a write while
//! another write of it not yet planned is, or a read of it not yet issued.
//! A context given back is free from the cycle after next (the free reads
//! its bucket from a RAM first); its bucket opens a cycle later, to writes
//! when no other context in use holds it, to reads when no other write is
//! in flight. An issued read or a planned write stops holding its bucket
//! at the edge after `issued` / `planned`, and its bucket is searched the
//! same way a cycle later.

use buddy_hdl::request_contexts::{bucket, BUCKET_BITS, CONTEXTS};
use buddy_hdl::RequestContexts;

use crate::CycleModel;

/// Guard buckets.
const BUCKETS: usize = 1 << BUCKET_BITS;

#[derive(Debug, Clone, Default)]
pub struct RequestContextsIn {
    pub reset: bool,
    pub alloc_valid: bool,
    /// The request's memory-entry index (`va[63:7]`).
    pub alloc_entry: u64,
    /// The request writes its memory-entry.
    pub alloc_write: bool,
    pub free_valid: bool,
    pub free_id: u8,
    /// `issued_*`: every memory read of this context's request is taken.
    pub issued: Option<u8>,
    /// `planned_*`: the write planner took this context's write (to an
    /// uncompressed page).
    pub planned: Option<u8>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestContextsOut {
    /// `alloc_id`, `None` when `alloc_ready` is low. Depends on
    /// `alloc_entry` (the guard) but not on `alloc_valid`.
    pub alloc: Option<u8>,
    pub in_use: u8,
}

#[derive(Debug, Clone)]
pub struct RequestContextsModel {
    /// Contexts in use (bit `c`: context `c`).
    used: u128,
    /// Contexts holding a write (bit `c`: context `c`).
    writes: u128,
    /// Contexts whose read is not issued yet (set when taken).
    held: u128,
    /// Contexts whose write is planned (cleared when taken).
    planned: u128,
    /// Buckets held by a request in flight, a write or a read not yet
    /// issued (or by one being released).
    busy: Vec<bool>,
    /// Buckets with a write in flight.
    written: Vec<bool>,
    /// The `in_use` counter (a register of its own, not a count of `used`).
    count: u8,
    /// Each context's bucket (the RAM and its flip-flop copy; not
    /// cleared by reset).
    bucket_of: [u16; CONTEXTS],
    /// A context freed last cycle, with the bucket the RAM read for it:
    /// the context (and a write's bucket, to reads) is released at this edge.
    freeing: Option<(u8, u16)>,
    /// The bucket of the context released at the last edge: busy until no
    /// other context in use holds it.
    releasing: Option<u16>,
    /// A context issued last cycle, with the bucket the second RAM read.
    issuing: Option<(u8, u16)>,
    /// The bucket of the context issued the cycle before last.
    releasing_issued: Option<u16>,
    /// The same for a planned write.
    planning: Option<(u8, u16)>,
    releasing_planned: Option<u16>,
}

impl Default for RequestContextsModel {
    fn default() -> Self {
        RequestContextsModel {
            used: 0,
            writes: 0,
            held: 0,
            planned: 0,
            busy: vec![false; BUCKETS],
            written: vec![false; BUCKETS],
            count: 0,
            bucket_of: [0; CONTEXTS],
            freeing: None,
            releasing: None,
            issuing: None,
            releasing_issued: None,
            planning: None,
            releasing_planned: None,
        }
    }
}

impl RequestContextsModel {
    /// The lowest free context, if any.
    fn lowest_free(&self) -> Option<u8> {
        (self.used != u128::MAX).then(|| (!self.used).trailing_zeros() as u8)
    }
    /// The contexts that close their bucket to a request of this kind
    /// (bit `c`: context `c`): to a write, those in use holding it (a write
    /// not planned, a read not issued) and every write in use; to a read,
    /// the writes in use. Contexts being released are not in it.
    pub fn closing(&self, write: bool) -> u128 {
        if write {
            self.holding() | self.writing()
        } else {
            self.writing()
        }
    }
    /// Contexts holding their bucket against writes: in use, and a write
    /// not planned or a read not issued.
    fn holding(&self) -> u128 {
        self.used & (self.held | (self.writes & !self.planned))
    }
    /// Writes in use.
    fn writing(&self) -> u128 {
        self.used & self.writes
    }
    pub fn is_used(&self, id: u8) -> bool {
        self.used >> id & 1 == 1
    }
}

// The in-use bits are one u128.
const _: () = assert!(CONTEXTS == 128);

impl CycleModel for RequestContextsModel {
    type In = RequestContextsIn;
    type Out = RequestContextsOut;
    fn outputs(&self, i: &RequestContextsIn) -> RequestContextsOut {
        let b = bucket(i.alloc_entry) as usize;
        let open = if i.alloc_write { !self.busy[b] } else { !self.written[b] };
        RequestContextsOut { alloc: self.lowest_free().filter(|_| open), in_use: self.count }
    }
    fn clock(&mut self, i: &RequestContextsIn) {
        let take = self.outputs(i).alloc.filter(|_| i.alloc_valid);
        // The RAM's registered read of `free_id` sees it before this edge's write.
        let read = self.bucket_of[i.free_id as usize];
        let read_issued = self.bucket_of[i.issued.unwrap_or(0) as usize];
        let read_planned = self.bucket_of[i.planned.unwrap_or(0) as usize];
        let freeing = self.freeing.take();
        let releasing = self.releasing.take();
        let issuing = self.issuing.take();
        let releasing_issued = self.releasing_issued.take();
        let planning = self.planning.take();
        let releasing_planned = self.releasing_planned.take();
        // The searches see the contexts holding before this edge.
        let (holding, writing) = (self.holding(), self.writing());
        let has = |set: u128, r: Option<u16>| r.is_some_and(|b| (0..CONTEXTS).any(|c| set >> c & 1 == 1 && self.bucket_of[c] == b));
        let (others_freed, others_issued, others_planned) =
            (has(holding, releasing), has(holding, releasing_issued), has(holding, releasing_planned));
        let others_written = has(writing, releasing);
        if let Some(id) = take {
            self.bucket_of[id as usize] = bucket(i.alloc_entry) as u16;
            self.writes = self.writes & !(1 << id) | (i.alloc_write as u128) << id;
        }
        if i.reset {
            self.used = 0;
            self.busy.iter_mut().for_each(|b| *b = false);
            self.written.iter_mut().for_each(|b| *b = false);
            self.count = 0;
            return;
        }
        // Release, then take, in the kernel's order: a read taken into a
        // bucket being released keeps it busy.
        if let Some((id, _)) = freeing {
            self.used &= !(1 << id);
        }
        for (b, others) in [(releasing, others_freed), (releasing_planned, others_planned), (releasing_issued, others_issued)] {
            if let Some(b) = b.filter(|_| !others) {
                self.busy[b as usize] = false;
            }
        }
        if let Some(b) = releasing.filter(|_| !others_written) {
            self.written[b as usize] = false;
        }
        if let Some((id, _)) = issuing {
            self.held &= !(1 << id);
        }
        if let Some((id, _)) = planning {
            self.held &= !(1 << id);
            self.planned |= 1 << id;
        }
        if let Some(id) = take {
            let b = bucket(i.alloc_entry) as usize;
            self.held |= 1 << id;
            self.planned &= !(1 << id);
            self.used |= 1 << id;
            self.busy[b] = true;
            if i.alloc_write {
                self.written[b] = true;
            }
        }
        match (take.is_some(), freeing.is_some()) {
            (true, false) => self.count = self.count.wrapping_add(1),
            (false, true) => self.count = self.count.wrapping_sub(1),
            _ => {}
        }
        self.releasing = freeing.map(|(_, b)| b);
        self.freeing = i.free_valid.then_some((i.free_id, read));
        self.releasing_issued = issuing.map(|(_, b)| b);
        self.issuing = i.issued.map(|id| (id, read_issued));
        self.releasing_planned = planning.map(|(_, b)| b);
        self.planning = i.planned.map(|id| (id, read_planned));
    }
}

/// What the block's output ports show, settled, as the model's `Out`.
pub fn hardware_out(h: &RequestContexts) -> RequestContextsOut {
    RequestContextsOut { alloc: h.alloc_ready.val().then(|| h.alloc_id.val().to_u64() as u8), in_use: h.in_use.val().to_u64() as u8 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lockstep::{edge, settle};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rust_hdl::prelude::*;
    use std::collections::VecDeque;

    #[derive(Debug, Default)]
    struct Coverage {
        allocations: usize,
        frees: usize,
        /// A request offered and kept waiting by the guard (a context free).
        guard_waits: usize,
        /// Guard waits of an entry with no request to it in flight or
        /// being released: a different entry of the same bucket.
        bucket_waits: usize,
        /// A request offered with every context in use.
        full_waits: usize,
        /// A read taken while another read of its memory-entry is in flight.
        reads_together: usize,
        /// A read kept waiting by a write of its memory-entry in flight.
        read_behind_write: usize,
        /// An allocation in a bucket the cycle it opens again.
        reopened: usize,
        /// Issues given (reads and writes).
        issues: usize,
        /// A write taken while issued reads of its memory-entry are in flight.
        write_past_issued_reads: usize,
        /// Writes planned, and a write taken while a planned write of its
        /// memory-entry is in flight.
        plans: usize,
        write_past_planned_writes: usize,
        /// Allocation and release at the same edge.
        alloc_with_release: usize,
        most_in_use: u8,
        resets: usize,
    }

    /// Where a run's memory-entries come from.
    #[derive(Debug, Clone, Copy)]
    enum Entries {
        /// A pool of this many (so that they collide): arbitrary ones,
        /// ones of one slice's pattern (bits `[8:6]` fixed), small ones,
        /// and two different entries of one bucket.
        Pool(usize),
        /// Consecutive entries, as a streaming kernel asks: any 1,024 of
        /// them are in different buckets, so the guard never closes.
        Stream,
    }

    /// `cycles` cycles: requests to `entries`, held while waiting; each
    /// context in use is given back with probability `p_free` per cycle,
    /// one per cycle at most, and issued (once, before it is given back)
    /// with probability `2 p_free`: a read issued, a write issued (a
    /// partial write's read: it still holds its bucket) or planned; a rare
    /// reset.
    fn run(seed: u64, cycles: usize, p_alloc: f64, p_free: f64, p_write: f64, entries: Entries) -> Coverage {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pool: Vec<u64> = match entries {
            Entries::Pool(n) => (0..n)
                .map(|k| match k % 3 {
                    0 => rng.gen_range(0u64..1 << 57),
                    1 => (rng.gen_range(0u64..1 << 51) << 6) & !(7 << 6) | 5 << 6 | rng.gen_range(0..64),
                    _ => rng.gen_range(0u64..1 << 20),
                })
                .collect(),
            Entries::Stream => vec![rng.gen_range(0u64..1 << 56)],
        };
        // e and e ^ the smallest index the hash takes to 0 share a bucket.
        let twin = pool[0] ^ (1u64..).find(|&d| bucket(d) == 0).expect("a 10-bit hash of 57 bits has a kernel");
        assert_eq!(bucket(twin), bucket(pool[0]));
        if let Entries::Pool(_) = entries {
            pool.push(twin);
        }
        let mut streamed = 0u64;
        let mut hw = RequestContexts::default();
        hw.connect_all();
        let mut model = RequestContextsModel::default();
        let mut cov = Coverage::default();
        // Contexts in use with their entries, whether a write and whether
        // released (a read issued, a write planned); entries freed in the
        // last three cycles.
        let mut in_flight: Vec<(u8, u64, bool, bool)> = Vec::new();
        let mut recently_freed: VecDeque<Vec<u64>> = VecDeque::from([vec![], vec![], vec![]]);
        let mut request: Option<(u64, bool)> = None;
        let mut opened: Option<u16> = None;
        for cycle in 0..cycles {
            let reset = cycle < 2 || rng.gen_bool(0.0005);
            if request.is_none() && rng.gen_bool(p_alloc) {
                let entry = match entries {
                    Entries::Pool(_) => pool[rng.gen_range(0..pool.len())],
                    Entries::Stream => {
                        streamed += 1;
                        pool[0] + streamed
                    }
                };
                request = Some((entry, rng.gen_bool(p_write)));
            }
            // One context given back per cycle at most, any of those in use.
            let free = (!in_flight.is_empty() && rng.gen_bool((p_free * in_flight.len() as f64).min(0.9)))
                .then(|| in_flight.swap_remove(rng.gen_range(0..in_flight.len())));
            recently_freed.pop_front();
            recently_freed.push_back(free.iter().map(|f| f.1).collect());
            let free = free.map(|f| f.0);
            let waiting: Vec<usize> = (0..in_flight.len()).filter(|&k| !in_flight[k].3).collect();
            let (mut issued, mut planned) = (None, None);
            if !waiting.is_empty() && rng.gen_bool((2.0 * p_free * waiting.len() as f64).min(0.9)) {
                let k = waiting[rng.gen_range(0..waiting.len())];
                if !in_flight[k].2 {
                    issued = Some(in_flight[k].0);
                    in_flight[k].3 = true;
                } else if rng.gen_bool(0.5) {
                    planned = Some(in_flight[k].0);
                    in_flight[k].3 = true;
                } else {
                    issued = Some(in_flight[k].0);
                }
            }
            cov.issues += issued.is_some() as usize;
            cov.plans += planned.is_some() as usize;
            let released = issued.or(planned);
            let i = RequestContextsIn {
                reset,
                alloc_valid: request.is_some(),
                // The entry is a don't care while no request is offered.
                alloc_entry: request.map_or_else(|| rng.gen_range(0..1 << 57), |r| r.0),
                alloc_write: request.map_or_else(|| rng.gen_bool(0.5), |r| r.1),
                free_valid: free.is_some(),
                free_id: free.unwrap_or_else(|| rng.gen_range(0..128)),
                issued,
                planned,
            };
            hw.reset.next = i.reset;
            hw.alloc_valid.next = i.alloc_valid;
            hw.alloc_entry.next = i.alloc_entry.into();
            hw.alloc_write.next = i.alloc_write;
            hw.free_valid.next = i.free_valid;
            hw.free_id.next = (i.free_id as u64).into();
            hw.issued_valid.next = i.issued.is_some();
            hw.issued_id.next = u64::from(i.issued.unwrap_or_else(|| rng.gen_range(0..128))).into();
            hw.planned_valid.next = i.planned.is_some();
            hw.planned_id.next = u64::from(i.planned.unwrap_or_else(|| rng.gen_range(0..128))).into();
            settle(&mut hw);
            let want = hardware_out(&hw);
            assert_eq!(model.outputs(&i), want, "seed {seed}, cycle {cycle}");

            let took = want.alloc.filter(|_| i.alloc_valid);
            if i.alloc_valid && took.is_none() {
                if model.lowest_free().is_some() {
                    cov.guard_waits += 1;
                    let same_entry = in_flight.iter().map(|f| &f.1).chain(recently_freed.iter().flatten()).any(|&e| e == i.alloc_entry);
                    cov.bucket_waits += !same_entry as usize;
                    cov.read_behind_write +=
                        (!i.alloc_write && in_flight.iter().any(|f| f.1 == i.alloc_entry && f.2)) as usize;
                } else {
                    cov.full_waits += 1;
                }
            }
            let releasing = model.freeing.map(|(_, b)| b);
            if let Some(id) = took.filter(|_| !reset) {
                assert!(!in_flight.iter().any(|f| f.0 == id), "seed {seed}, cycle {cycle}: context {id} given twice");
                // A read never overtakes a write; a write never overtakes
                // a read not issued or a write not planned (nor one
                // released this cycle).
                let blocks = |f: &(u8, u64, bool, bool)| {
                    f.1 == i.alloc_entry && ((f.2 && !i.alloc_write) || (i.alloc_write && (!f.3 || released == Some(f.0))))
                };
                assert!(
                    !in_flight.iter().any(blocks),
                    "seed {seed}, cycle {cycle}: a {} of memory-entry {:#x} in flight with a request it must wait for",
                    if i.alloc_write { "write" } else { "read" },
                    i.alloc_entry
                );
                cov.reads_together += in_flight.iter().any(|f| f.1 == i.alloc_entry && !i.alloc_write) as usize;
                cov.write_past_issued_reads += (i.alloc_write && in_flight.iter().any(|f| f.1 == i.alloc_entry && !f.2)) as usize;
                cov.write_past_planned_writes += (i.alloc_write && in_flight.iter().any(|f| f.1 == i.alloc_entry && f.2)) as usize;
                in_flight.push((id, i.alloc_entry, i.alloc_write, false));
                cov.allocations += 1;
                cov.alloc_with_release += releasing.is_some() as usize;
                cov.reopened += (opened == Some(bucket(i.alloc_entry) as u16)) as usize;
                request = None;
            }
            cov.frees += i.free_valid as usize;
            opened = releasing;
            if reset {
                cov.resets += 1;
                in_flight.clear();
                recently_freed.iter_mut().for_each(Vec::clear);
                request = None;
                opened = None;
            }
            cov.most_in_use = cov.most_in_use.max(want.in_use);
            model.clock(&i);
            edge(&mut hw, |h| &mut h.clock);
        }
        cov
    }

    #[test]
    fn the_model_equals_the_hardware_every_cycle() {
        // (p_alloc, p_free per context in use, p_write, entries): light
        // load, every context in use, small pools (the guard often closed,
        // reads of one entry often in flight together).
        let runs = [
            (0.5, 0.02, 0.3, Entries::Pool(300)),
            (0.95, 0.004, 0.3, Entries::Stream),
            (0.8, 0.03, 0.3, Entries::Pool(12)),
            (0.9, 0.02, 0.1, Entries::Pool(60)),
        ];
        for (seed, &(p_alloc, p_free, p_write, entries)) in runs.iter().enumerate() {
            let cov = run(seed as u64, 10_000, p_alloc, p_free, p_write, entries);
            eprintln!("request contexts seed {seed}: {cov:?}");
            assert!(cov.allocations > 300 && cov.frees > 300 && cov.alloc_with_release > 0, "seed {seed}: {cov:?}");
            if seed >= 2 {
                assert!(cov.reads_together > 0 && cov.read_behind_write > 0, "seed {seed}: {cov:?}");
                assert!(cov.issues > 300 && cov.write_past_issued_reads > 0, "seed {seed}: {cov:?}");
                assert!(cov.plans > 100, "seed {seed}: {cov:?}");
            }
            // A third of the requests write: writes meet planned writes.
            if p_write >= 0.3 && seed != 1 {
                assert!(cov.write_past_planned_writes > 10, "seed {seed}: {cov:?}");
            }
            if seed == 1 {
                assert!(cov.full_waits > 0 && cov.most_in_use as usize == CONTEXTS, "seed {seed}: {cov:?}");
            } else {
                assert!(cov.guard_waits > 0, "seed {seed}: {cov:?}");
            }
            if seed == 2 {
                assert!(cov.reopened > 0 && cov.bucket_waits > 0, "seed {seed}: {cov:?}");
            }
        }
    }
}
