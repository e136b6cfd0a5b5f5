//! Adapters for `RequestContexts`: a random driver that checks the
//! hardware against its cycle model (`buddy_hdl_model::request_contexts`)
//! cycle by cycle (and the guarantees the block exists for), lock-step
//! lines for co-simulating its Verilog.

use std::collections::HashMap;
use std::io::Write;

use crate::harness::Harness;
use buddy_hdl::request_contexts::FREED_PER_CYCLE;
use buddy_hdl::RequestContexts;
use buddy_hdl_model::request_contexts::{hardware_out, RequestContextsIn, RequestContextsModel};
use buddy_hdl_model::CycleModel;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a run observed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ContextsRun {
    pub allocations: usize,
    /// Most contexts in use at once.
    pub most_in_use: usize,
    /// Reads taken while another read of their memory-entry was in flight.
    pub reads_together: usize,
    /// Writes taken while issued reads of their memory-entry were in flight.
    pub writes_past_issued_reads: usize,
    /// Writes taken while planned writes of their memory-entry were in flight.
    pub writes_past_planned_writes: usize,
    pub cycles: u64,
}

crate::lockstep_ports!(RequestContexts, "request_contexts",
    inputs: [reset: 1, alloc_valid: 1, alloc_entry: 57, alloc_write: 1, free_valid: 1, free_id: 7, issued_valid: 1, issued_id: 7, planned_valid: 1, planned_id: 7],
    outputs: [alloc_ready: 1, alloc_id: 7 if alloc_ready, in_use: 8],
);

/// `cycles` random cycles: each cycle a request asks for a context with
/// probability `p_alloc` (memory-entries from a pool of 300, so they
/// collide; a third of them writes), a context in use is freed with
/// probability `p_free` and one not yet released is released with
/// probability `2 p_free` (a read issued; a write planned, or issued, which
/// does not release it). Every cycle's outputs are compared with the model,
/// and no context may be given twice, nor a read be in flight with a write
/// of its memory-entry, nor a write with another write of it not planned
/// or a read of it not issued. `lockstep`
/// collects one line per cycle (reset included); `vcd` gets a waveform.
///
/// # Errors
/// The first difference or broken guarantee, with its cycle.
pub fn run(
    seed: u64,
    cycles: usize,
    p_alloc: f64,
    p_free: f64,
    lockstep: Option<&mut Vec<String>>,
    vcd: Option<&mut dyn Write>,
) -> Result<ContextsRun, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pool: Vec<u64> = (0..300).map(|_| rng.gen_range(0u64..1 << 57)).collect();
    let mut hw = RequestContexts::default();
    let mut dut = Harness::new(&mut hw, vcd).record(lockstep, line);
    dut.reset(1);
    let mut model = RequestContextsModel::default();
    // Context -> (memory-entry, write, released: a read issued, a write planned).
    let mut in_flight: HashMap<usize, (u64, bool, bool)> = HashMap::new();
    let mut out = ContextsRun::default();
    let mut prev_in_use = 0;
    let (mut entry, mut write) = (pool[0], false);
    for cycle in 0..cycles {
        let alloc = rng.gen_bool(p_alloc);
        if rng.gen_bool(0.3) {
            entry = pool[rng.gen_range(0..pool.len())];
            write = rng.gen_bool(1.0 / 3.0);
        }
        let free = if rng.gen_bool(p_free) && !in_flight.is_empty() {
            let mut ids: Vec<usize> = in_flight.keys().copied().collect();
            ids.sort_unstable();
            Some(ids[rng.gen_range(0..ids.len())])
        } else {
            None
        };
        let pick = if rng.gen_bool((2.0 * p_free).min(1.0)) {
            let mut ids: Vec<usize> = in_flight.iter().filter(|(&id, f)| !f.2 && Some(id) != free).map(|(&id, _)| id).collect();
            ids.sort_unstable();
            (!ids.is_empty()).then(|| ids[rng.gen_range(0..ids.len())])
        } else {
            None
        };
        // A write is planned or issued (a partial write's read) at random.
        let (issued, planned) = match pick {
            Some(id) if in_flight[&id].1 && rng.gen_bool(0.5) => (None, Some(id)),
            _ => (pick, None),
        };
        let released = issued.filter(|id| !in_flight[id].1).or(planned);
        let i = RequestContextsIn {
            reset: false,
            alloc_valid: alloc,
            alloc_entry: entry,
            alloc_write: write,
            free_valid: free.is_some(),
            free_id: free.unwrap_or(0) as u8,
            issued: issued.map(|id| id as u8),
            planned: planned.map(|id| id as u8),
        };
        dut.alloc_valid.next = i.alloc_valid;
        dut.alloc_entry.next = i.alloc_entry.into();
        dut.alloc_write.next = i.alloc_write;
        dut.free_valid.next = i.free_valid;
        dut.free_id.next = u64::from(i.free_id).into();
        dut.issued_valid.next = i.issued.is_some();
        dut.issued_id.next = u64::from(i.issued.unwrap_or(0)).into();
        dut.planned_valid.next = i.planned.is_some();
        dut.planned_id.next = u64::from(i.planned.unwrap_or(0)).into();
        dut.settle();
        let (want, got) = (model.outputs(&i), hardware_out(&dut));
        if got != want {
            return Err(format!("cycle {cycle}: hardware {got:?}, model {want:?}"));
        }
        let in_use = usize::from(got.in_use);
        // The RTL engine relies on it to tell a busy slice without clocking it.
        if prev_in_use > in_use + FREED_PER_CYCLE as usize {
            return Err(format!("cycle {cycle}: in_use fell from {prev_in_use} to {in_use}, more than FREED_PER_CYCLE"));
        }
        prev_in_use = in_use;
        out.most_in_use = out.most_in_use.max(in_use);
        let take = got.alloc.filter(|_| alloc).map(|id| (usize::from(id), entry));
        if let Some((id, e)) = take {
            if in_flight.contains_key(&id) {
                return Err(format!("cycle {cycle}: context {id} given twice"));
            }
            if in_flight.iter().any(|(&c, &(x, w, done))| x == e && ((w && !write) || (write && (!done || released == Some(c))))) {
                return Err(format!("cycle {cycle}: a request to memory-entry {e:#x} in flight with one it must wait for"));
            }
            out.reads_together += (!write && in_flight.values().any(|&(x, _, _)| x == e)) as usize;
            out.writes_past_issued_reads += (write && in_flight.values().any(|&(x, w, _)| x == e && !w)) as usize;
            out.writes_past_planned_writes += (write && in_flight.values().any(|&(x, w, _)| x == e && w)) as usize;
            out.allocations += 1;
        }
        if let Some(f) = free {
            in_flight.remove(&f);
        }
        if let Some(f) = released.and_then(|id| in_flight.get_mut(&id)) {
            f.2 = true;
        }
        if let Some((id, e)) = take {
            in_flight.insert(id, (e, write, false));
        }
        model.clock(&i);
        dut.cycle();
        out.cycles += 1;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the request contexts.

/// The pipelined slice's request contexts and same-entry guard as a delivered module.
pub mod delivered {
    use super::{RequestContexts, LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS, PORTS};
    use crate::modules::{emit, LockstepBlock};
    use crate::stream::Traffic;
    use std::io::Write;

    /// `request_contexts`: the pipelined slice's request contexts and same-entry guard.
    pub const CONTEXTS: LockstepBlock = LockstepBlock {
        ports: PORTS,
        inputs: LOCKSTEP_INPUTS,
        outputs: LOCKSTEP_OUTPUTS,
        verilog: |name, revision| emit(RequestContexts::default(), name, revision),
        min_requests: 100,
        groups: &[("clock and reset", &["clock", "reset"]), ("allocate", &["alloc_*"]), ("free", &["free_*"]), ("issue", &["issued_*"]), ("plan", &["planned_*"]), ("occupancy", &["in_use"])],
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
        // Random allocations and frees instead of stream traffic: one cycle per request.
        let p_take = traffic.map_or(0.8, |t| t.p_valid);
        let run = super::run(seed, requests, p_take, 0.1, lines, vcd)?;
        Ok((run.cycles as usize, run.cycles))
    }
}
