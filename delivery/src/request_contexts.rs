//! Adapters for `RequestContexts`: a reference model written from its
//! documentation, a random driver that checks the hardware against it
//! cycle by cycle (and the guarantees the block exists for), lock-step
//! lines for co-simulating its Verilog.

use std::collections::HashMap;
use std::io::Write;

use crate::cosim::hex_field;
use crate::stream::{settle, VcdTrace};
use buddy_hdl::request_contexts::{bucket, CONTEXTS, FREED_PER_CYCLE};
use buddy_hdl::RequestContexts;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// The block's behaviour.
struct Model {
    used: [bool; CONTEXTS],
    busy: Vec<bool>,
    bucket_of: [u64; CONTEXTS],
    freeing: Option<usize>,
}

impl Model {
    fn new() -> Self {
        Model { used: [false; CONTEXTS], busy: vec![false; 1024], bucket_of: [0; CONTEXTS], freeing: None }
    }
    /// (alloc_ready, alloc_id) for a request to `entry`.
    fn offer(&self, entry: u64) -> (bool, usize) {
        let id = self.used.iter().position(|u| !u).unwrap_or(0);
        (self.used.iter().any(|u| !u) && !self.busy[bucket(entry) as usize], id)
    }
    fn clock(&mut self, take: Option<(usize, u64)>, free: Option<usize>) {
        if let Some(f) = self.freeing {
            self.used[f] = false;
            self.busy[self.bucket_of[f] as usize] = false;
        }
        if let Some((id, entry)) = take {
            self.used[id] = true;
            self.busy[bucket(entry) as usize] = true;
            self.bucket_of[id] = bucket(entry);
        }
        self.freeing = free;
    }
    fn in_use(&self) -> usize {
        self.used.iter().filter(|u| **u).count()
    }
}

/// What a run observed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ContextsRun {
    pub allocations: usize,
    /// Most contexts in use at once.
    pub most_in_use: usize,
    pub cycles: u64,
}

/// Lock-step ports of `request_contexts` (line order).
pub const LOCKSTEP_INPUTS: &[(&str, usize)] = &[("reset", 1), ("alloc_valid", 1), ("alloc_entry", 57), ("free_valid", 1), ("free_id", 7)];
/// Lock-step outputs: (name, width, qualifier).
pub const LOCKSTEP_OUTPUTS: &[(&str, usize, &str)] = &[("alloc_ready", 1, ""), ("alloc_id", 7, "alloc_ready"), ("in_use", 8, "")];

/// Co-simulation ports (the lock-step ones).
pub const PORTS: crate::cosim::CosimPorts = crate::cosim::CosimPorts {
    module: "request_contexts",
    inputs: LOCKSTEP_INPUTS,
    outputs: &[("alloc_ready", 1), ("alloc_id", 7), ("in_use", 8)],
};

fn line(dut: &RequestContexts) -> String {
    [
        hex_field(dut.reset.val() as u64, 1),
        hex_field(dut.alloc_valid.val() as u64, 1),
        hex_field(dut.alloc_entry.val().to_u64(), 57),
        hex_field(dut.free_valid.val() as u64, 1),
        hex_field(dut.free_id.val().to_u64(), 7),
        hex_field(dut.alloc_ready.val() as u64, 1),
        hex_field(dut.alloc_id.val().to_u64(), 7),
        hex_field(dut.in_use.val().to_u64(), 8),
    ]
    .concat()
}

/// `cycles` random cycles: each cycle a request asks for a context with
/// probability `p_alloc` (memory-entries from a pool of 300, so they
/// collide), and a context in use is freed with probability `p_free`.
/// Every cycle's outputs are compared with the model, and no context may
/// be given twice nor a memory-entry be in flight twice. `lockstep`
/// collects one line per cycle (reset included); `vcd` gets a waveform.
///
/// # Errors
/// The first difference or broken guarantee, with its cycle.
pub fn run(
    seed: u64,
    cycles: usize,
    p_alloc: f64,
    p_free: f64,
    mut lockstep: Option<&mut Vec<String>>,
    vcd: Option<&mut dyn Write>,
) -> Result<ContextsRun, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pool: Vec<u64> = (0..300).map(|_| rng.gen_range(0u64..1 << 57)).collect();
    let mut dut = RequestContexts::default();
    dut.connect_all();
    let mut trace = VcdTrace::new(vcd, &dut as &dyn Block);
    let mut edge = |dut: &mut RequestContexts| {
        for level in [true, false] {
            dut.clock.next = Clock::from(level);
            settle(dut);
            trace.sample(dut as &dyn Block);
        }
    };
    dut.reset.next = true;
    settle(&mut dut);
    if let Some(l) = lockstep.as_deref_mut() {
        l.push(line(&dut));
    }
    edge(&mut dut);
    dut.reset.next = false;
    let mut model = Model::new();
    let mut in_flight: HashMap<usize, u64> = HashMap::new();
    let mut out = ContextsRun::default();
    let mut prev_in_use = 0;
    let mut entry = pool[0];
    for cycle in 0..cycles {
        let alloc = rng.gen_bool(p_alloc);
        if rng.gen_bool(0.3) {
            entry = pool[rng.gen_range(0..pool.len())];
        }
        let free = if rng.gen_bool(p_free) && !in_flight.is_empty() {
            let mut ids: Vec<usize> = in_flight.keys().copied().collect();
            ids.sort_unstable();
            Some(ids[rng.gen_range(0..ids.len())])
        } else {
            None
        };
        dut.alloc_valid.next = alloc;
        dut.alloc_entry.next = entry.into();
        dut.free_valid.next = free.is_some();
        dut.free_id.next = (free.unwrap_or(0) as u64).into();
        settle(&mut dut);
        let (ready, id) = model.offer(entry);
        let got = (dut.alloc_ready.val(), dut.alloc_id.val().index(), dut.in_use.val().index());
        if got.0 != ready || (ready && got.1 != id) || got.2 != model.in_use() {
            return Err(format!("cycle {cycle}: hardware (ready, id, in_use) {got:?}, model {:?}", (ready, id, model.in_use())));
        }
        // The RTL engine relies on it to tell a busy slice without clocking it.
        if prev_in_use > got.2 + FREED_PER_CYCLE as usize {
            return Err(format!("cycle {cycle}: in_use fell from {prev_in_use} to {}, more than FREED_PER_CYCLE", got.2));
        }
        prev_in_use = got.2;
        let take = (alloc && ready).then_some((id, entry));
        if let Some((id, e)) = take {
            if in_flight.contains_key(&id) {
                return Err(format!("cycle {cycle}: context {id} given twice"));
            }
            if in_flight.values().any(|&x| x == e) {
                return Err(format!("cycle {cycle}: memory-entry {e:#x} in flight twice"));
            }
            out.allocations += 1;
        }
        if let Some(f) = free {
            in_flight.remove(&f);
        }
        if let Some((id, e)) = take {
            in_flight.insert(id, e);
        }
        if let Some(l) = lockstep.as_deref_mut() {
            l.push(line(&dut));
        }
        model.clock(take, free);
        out.most_in_use = out.most_in_use.max(model.in_use());
        edge(&mut dut);
        out.cycles += 1;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the request contexts.

/// The pipelined slice's request contexts and same-entry guard as a delivered module.
pub mod delivered {
    use super::*;
    use crate::cosim::CosimPorts;
    use crate::decompress::StoredEntry;
    use crate::modules::{self, DeliveredModule, EquivRun, ModuleKind, VcdWriter, VectorFile};
    use crate::stream::Traffic;
    use buddy_golden::MemoryEntry;

    /// `request_contexts`: the pipelined slice's request contexts and same-entry guard.
    pub struct Contexts;

    impl DeliveredModule for Contexts {
        fn ports(&self) -> CosimPorts {
            PORTS
        }
        fn kind(&self) -> ModuleKind {
            ModuleKind::Block
        }
        fn notes(&self) -> Vec<String> {
            crate::interface::pipelined_block_notes()
        }
        fn shipped_testbench(&self, shipped: &[usize]) -> String {
            crate::cosim::lockstep_testbench_shipped(self.name(), LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS, shipped.first().copied())
        }
        fn verilog(&self, revision: &str) -> Result<String, String> {
            modules::emit(RequestContexts::default(), self.name(), revision)
        }
        fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
            // Lock-step lines of a random run, one cycle per entry (a failing run is reported by `check`).
            let mut lines = Vec::new();
            let _ = run(modules::VECTOR_SEED, entries.len().max(100), 0.8, 0.1, Some(&mut lines), None);
            vec![VectorFile::vectors(self.name(), lines)]
        }
        fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
            // Random allocations and frees instead of stream traffic: one cycle per entry.
            let start = std::time::Instant::now();
            let run = run(seed, entries.len().max(100), traffic.p_valid, 0.1, None, None).map_err(|e| format!("{}: {e}", self.name()))?;
            Ok(EquivRun { inputs: run.cycles as usize, cycles: run.cycles, seconds: start.elapsed().as_secs_f64() })
        }
        fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
            run(modules::VCD_SEED, entries.len().max(100), 0.8, 0.1, None, Some(&mut vcd))?;
            Ok(())
        }
    }
}
