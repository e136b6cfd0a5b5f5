//! Adapters between the `MetadataCache` hardware and the golden metadata
//! cache: operations, the golden scoreboard (responses and memory-side
//! requests), a cycle driver with random stalls on all four ports and a
//! memory model, random operation sequences, and co-simulation vectors.

use crate::harness::Harness;
use buddy_golden::metadata_cache::{MetadataCache as GoldenCache, MetadataCacheConfig, Outcome, SectorMemory};
use buddy_golden::translation::MetadataNibble;
use buddy_hdl::pipelined_metadata_cache::{MISS_COUNT_BITS, TAG_BITS, WORD_BITS};
use buddy_hdl::MetadataCache;
use rand::Rng;
use rust_hdl::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::io::Write;

/// One request to the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOp {
    Read(MetadataNibble),
    Write(MetadataNibble, u8),
    /// A write whose value comes later (pipelined cache only): a
    /// reservation, answered with the old nibble, then a commit of the value.
    Reserve(MetadataNibble, u8),
    Flush,
}

/// One response: `nibble` is the value read (a write: the value written;
/// a flush: 0), `outcome` a `buddy_hdl::metadata_cache::outcome` code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheResponse {
    pub nibble: u8,
    pub outcome: u8,
}

/// One memory-side request, in issue order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemRequest {
    /// Sector fill at a byte address; `data` is what memory answered.
    Fill { address: u64, data: [u8; 32] },
    /// Write-back of a dirty sector.
    WriteBack { address: u64, data: [u8; 32] },
}

/// The pipelined cache's memory traffic against golden's: the pipelined
/// cache writes a line evicted while held by a write back later (from its
/// victim buffer, `docs/controller.md`), so write-backs may move later; its
/// fills must be golden's in golden's order with golden's data (each fill
/// saw every write-back before it), its write-backs the same sectors and
/// data, and the memory they leave the same. `Err` names the first difference.
pub fn pipelined_memory_agrees(got: &[MemRequest], want: &[MemRequest]) -> Result<(), String> {
    let fills = |r: &[MemRequest]| r.iter().filter(|m| matches!(m, MemRequest::Fill { .. })).copied().collect::<Vec<_>>();
    let (got_fills, want_fills) = (fills(got), fills(want));
    if let Some(i) = (0..got_fills.len().max(want_fills.len())).find(|&i| got_fills.get(i) != want_fills.get(i)) {
        return Err(format!("fill {i} differs:\n  hdl:    {:?}\n  golden: {:?}", got_fills.get(i), want_fills.get(i)));
    }
    let write_backs = |r: &[MemRequest]| {
        let mut w: Vec<(u64, [u8; 32])> =
            r.iter().filter_map(|m| if let MemRequest::WriteBack { address, data } = m { Some((*address, *data)) } else { None }).collect();
        let image: std::collections::BTreeMap<u64, [u8; 32]> = w.iter().copied().collect();
        w.sort_unstable();
        (w, image)
    };
    let ((got_w, got_image), (want_w, want_image)) = (write_backs(got), write_backs(want));
    if got_w != want_w {
        let i = (0..got_w.len().max(want_w.len())).find(|&i| got_w.get(i) != want_w.get(i)).unwrap_or(0);
        return Err(format!("write-backs differ (sorted, {i}):\n  hdl:    {:?}\n  golden: {:?}", got_w.get(i), want_w.get(i)));
    }
    if got_image != want_image {
        return Err("the memory the write-backs leave differs".into());
    }
    Ok(())
}

/// The initial contents of every metadata sector: a fixed function of its
/// address, so that golden and hardware runs start from the same memory.
pub fn initial_sector(address: u64) -> [u8; 32] {
    let mut x = address ^ 0x9E37_79B9_7F4A_7C15;
    std::array::from_fn(|_| {
        x = x.wrapping_mul(0x5851_F42D_4C95_7F2D).wrapping_add(0x1405_7B7E_F767_814F);
        (x >> 56) as u8
    })
}

/// Sector memory holding [`initial_sector`] until written, recording every
/// request.
#[derive(Debug, Default)]
pub struct RecordingMemory {
    sectors: HashMap<u64, [u8; 32]>,
    pub requests: Vec<MemRequest>,
}

impl RecordingMemory {
    fn sector(&self, address: u64) -> [u8; 32] {
        self.sectors.get(&address).copied().unwrap_or_else(|| initial_sector(address))
    }
}

impl SectorMemory for RecordingMemory {
    fn read_sector(&mut self, address: u64, data: &mut [u8]) {
        let s = self.sector(address);
        data.copy_from_slice(&s);
        self.requests.push(MemRequest::Fill { address, data: s });
    }
    fn write_sector(&mut self, address: u64, data: &[u8]) {
        let s: [u8; 32] = data.try_into().expect("32-byte sector");
        self.sectors.insert(address, s);
        self.requests.push(MemRequest::WriteBack { address, data: s });
    }
}

fn outcome_code(o: Outcome) -> u8 {
    match o {
        Outcome::Hit => 0,
        Outcome::SectorMiss => 1,
        Outcome::LineMiss => 2,
    }
}

/// The golden model's responses and memory-side requests for `ops`, with
/// the hardware's geometry (the default 4 KiB, 4 ways, 128 B lines).
pub fn expected(ops: &[CacheOp]) -> (Vec<CacheResponse>, Vec<MemRequest>) {
    let mut cache = GoldenCache::new(MetadataCacheConfig::default()).expect("default geometry");
    let mut memory = RecordingMemory::default();
    let responses = ops
        .iter()
        .map(|op| match *op {
            CacheOp::Read(at) => {
                let (nibble, o) = cache.read_nibble(at, &mut memory);
                CacheResponse { nibble, outcome: outcome_code(o) }
            }
            CacheOp::Write(at, value) => {
                let o = cache.write_nibble(at, value, &mut memory);
                CacheResponse { nibble: value, outcome: outcome_code(o) }
            }
            CacheOp::Reserve(at, value) => {
                // The old nibble, then the write (a hit: the same traffic as the write alone).
                let (old, o) = cache.read_nibble(at, &mut memory);
                cache.write_nibble(at, value, &mut memory);
                CacheResponse { nibble: old, outcome: outcome_code(o) }
            }
            CacheOp::Flush => {
                cache.flush(&mut memory);
                CacheResponse { nibble: 0, outcome: 0 }
            }
        })
        .collect();
    (responses, memory.requests)
}

/// Stall rates on the cache's four ports (probabilities per cycle).
#[derive(Clone, Copy, Debug)]
pub struct CacheTraffic {
    /// The requester offers a pending request.
    pub p_request: f64,
    /// The response sink is ready.
    pub p_response_ready: f64,
    /// Memory accepts a request.
    pub p_memory_ready: f64,
    /// Memory answers a pending fill (so fill latency is geometric).
    pub p_fill: f64,
}

impl CacheTraffic {
    /// No stalls anywhere: fills answered the cycle after their request.
    pub const FULL: CacheTraffic = CacheTraffic { p_request: 1.0, p_response_ready: 1.0, p_memory_ready: 1.0, p_fill: 1.0 };
    /// Random stalls on every port.
    pub const RANDOM: CacheTraffic = CacheTraffic { p_request: 0.7, p_response_ready: 0.6, p_memory_ready: 0.6, p_fill: 0.3 };
}

/// What a hardware run observed.
#[derive(Debug, Default)]
pub struct CacheRun {
    pub responses: Vec<CacheResponse>,
    pub memory_requests: Vec<MemRequest>,
    /// Clock cycles after reset (including the 8 initialization cycles).
    pub cycles: u64,
    /// For each request, the cycle it was accepted and the cycle its response was taken.
    pub accept_cycles: Vec<u64>,
    pub response_cycles: Vec<u64>,
}

use buddy_hdl::wide_bits::{sector_from_bytes as sector_bits, sector_to_bytes as sector_bytes};

/// The memory side of a cache testbench: a [`RecordingMemory`] and the
/// fills it owes, answered in request order, each from its ready cycle on.
#[derive(Default)]
struct FillingMemory {
    memory: RecordingMemory,
    pending: VecDeque<(u64, [u8; 32])>,
}

impl FillingMemory {
    /// Whether a fill is offered this `cycle` (at random under `p_fill`), and its data.
    fn offer<R: Rng>(&self, cycle: u64, p_fill: f64, rng: &mut R) -> (bool, Bits<256>) {
        let valid = self.pending.front().is_some_and(|f| f.0 <= cycle) && rng.gen_bool(p_fill);
        (valid, sector_bits(&self.pending.front().map_or([0; 32], |f| f.1)))
    }

    /// A memory-side request taken at `cycle`: a write-back is stored, a
    /// fill is read now and owed from `cycle + latency` on.
    fn take(&mut self, write: bool, address: u64, data: &Bits<256>, cycle: u64, latency: u64) {
        if write {
            self.memory.write_sector(address, &sector_bytes(data));
        } else {
            let mut sector = [0u8; 32];
            self.memory.read_sector(address, &mut sector);
            self.pending.push_back((cycle + latency.max(1), sector));
        }
    }
}

/// The request fields of `op`: the nibble and the value (a flush's are
/// random, the hardware ignores them).
fn request_fields<R: Rng>(op: CacheOp, rng: &mut R) -> (MetadataNibble, u8) {
    match op {
        CacheOp::Read(at) | CacheOp::Reserve(at, _) => (at, 0),
        CacheOp::Write(at, v) => (at, v),
        CacheOp::Flush => (MetadataNibble { address: rng.gen(), high: rng.gen() }, rng.gen_range(0..16)),
    }
}

/// Run `ops` through the hardware cache under `traffic`, with a memory
/// that starts as [`initial_sector`], optionally writing a VCD (a
/// [`crate::stream::VcdTrace`]: 1 GHz). Stops when every request has been answered or after
/// `max_cycles`.
pub fn run_cache<R: Rng>(
    dut: &mut MetadataCache,
    ops: &[CacheOp],
    traffic: CacheTraffic,
    rng: &mut R,
    max_cycles: u64,
    vcd: Option<&mut dyn Write>,
) -> CacheRun {
    let mut dut = Harness::new(dut, vcd);
    assert!(!ops.iter().any(|o| matches!(o, CacheOp::Reserve(..))), "the blocking metadata cache has no reservations");
    let mut memory = FillingMemory::default();
    let mut run = CacheRun::default();
    dut.reset(1);
    let (mut next, mut offering) = (0usize, false);
    while run.responses.len() < ops.len() && run.cycles < max_cycles {
        if next < ops.len() && !offering {
            offering = rng.gen_bool(traffic.p_request);
        }
        let op = ops[next.min(ops.len() - 1)];
        dut.req_valid.next = offering && next < ops.len();
        let (at, value) = request_fields(op, rng);
        dut.req_write.next = matches!(op, CacheOp::Write(..));
        dut.req_flush.next = op == CacheOp::Flush;
        dut.req_address.next = at.address.into();
        dut.req_high.next = at.high;
        dut.req_value.next = (value as u64).into();
        let resp_ready = rng.gen_bool(traffic.p_response_ready);
        dut.resp_ready.next = resp_ready;
        let mem_ready = rng.gen_bool(traffic.p_memory_ready);
        dut.mem_req_ready.next = mem_ready;
        let (fill_valid, fill_data) = memory.offer(run.cycles, traffic.p_fill, rng);
        dut.mem_fill_valid.next = fill_valid;
        dut.mem_fill_data.next = fill_data;
        dut.settle();
        let accepted = dut.req_valid.val() && dut.req_ready.val();
        if dut.resp_valid.val() && resp_ready {
            run.responses
                .push(CacheResponse { nibble: dut.resp_nibble.val().to_u32() as u8, outcome: dut.resp_outcome.val().to_u32() as u8 });
            run.response_cycles.push(run.cycles);
        }
        if dut.mem_req_valid.val() && mem_ready {
            let (write, address) = (dut.mem_req_write.val(), dut.mem_req_address.val().to_u64());
            memory.take(write, address, &dut.mem_req_data.val(), run.cycles, 1);
        }
        if fill_valid && dut.mem_fill_ready.val() {
            memory.pending.pop_front();
        }
        dut.cycle();
        if accepted {
            run.accept_cycles.push(run.cycles);
            next += 1;
            offering = false;
        }
        run.cycles += 1;
    }
    run.memory_requests = memory.memory.requests;
    run
}

/// The metadata byte address of byte `byte` (0..128) of the line with
/// golden's tag `tag` in set `set` of the hardware's cache (golden's
/// default placement, `MetadataCacheConfig::place`).
pub fn line_byte(tag: u64, set: u64, byte: u64) -> u64 {
    let sector_bytes = buddy_golden::SECTOR_BYTES as u64;
    MetadataCacheConfig::default().sector_address(tag, set as usize, (byte / sector_bytes) as usize) + byte % sector_bytes
}

/// A random operation sequence of `n` requests that keeps the cache busy
/// with conflicts: line addresses from 6 random tags (any 54-bit value)
/// times 2-3 sets, so each set sees up to 6-9 lines for its 4 ways; 40%
/// writes, about 1% flushes, both nibbles and all 32 bytes of a sector.
pub fn random_ops<R: Rng>(n: usize, rng: &mut R) -> Vec<CacheOp> {
    let tags: Vec<u64> = (0..6).map(|_| rng.gen_range(0u64..1 << 54)).collect();
    let sets: Vec<u64> = (0..rng.gen_range(2..=3)).map(|_| rng.gen_range(0u64..8)).collect();
    (0..n)
        .map(|_| {
            if rng.gen_bool(0.01) {
                return CacheOp::Flush;
            }
            let address = line_byte(tags[rng.gen_range(0..tags.len())], sets[rng.gen_range(0..sets.len())], rng.gen_range(0u64..128));
            let at = MetadataNibble { address, high: rng.gen() };
            if rng.gen_bool(0.4) {
                CacheOp::Write(at, rng.gen_range(0..16))
            } else {
                CacheOp::Read(at)
            }
        })
        .collect()
}

/// Co-simulation ports of `metadata_cache` (request and response streams;
/// the memory side is in the testbench). An operations vector line is
/// `{req_flush, req_write, req_address, req_high, req_value, resp_nibble,
/// resp_outcome}`; a memory vector line `{mem_req_write, mem_req_address,
/// data}` where data is the write-back's sector or the fill's answer.
pub const PORTS: crate::cosim::CosimPorts = crate::cosim::CosimPorts {
    module: "metadata_cache",
    inputs: &[("req_flush", 1), ("req_write", 1), ("req_address", 64), ("req_high", 1), ("req_value", 4)],
    outputs: &[("resp_nibble", 4), ("resp_outcome", 2)],
};

/// Co-simulation ports of `pipelined_metadata_cache`: those of [`PORTS`]
/// (the tags are the testbench's own).
pub const PIPELINED_PORTS: crate::cosim::CosimPorts =
    crate::cosim::CosimPorts { module: "pipelined_metadata_cache", inputs: PORTS.inputs, outputs: PORTS.outputs };

fn hex_sector(s: &[u8; 32]) -> String {
    s.iter().rev().map(|b| format!("{b:02x}")).collect()
}

/// The `$readmemh` lines of `ops` (operations with the golden responses)
/// and of the golden memory-side requests.
pub fn vector_lines(ops: &[CacheOp]) -> (Vec<String>, Vec<String>) {
    use crate::cosim::hex_field;
    let (responses, requests) = expected(ops);
    let op_lines = ops
        .iter()
        .zip(&responses)
        .map(|(op, r)| {
            let (flush, write, at, value) = match *op {
                CacheOp::Read(at) => (0, 0, at, 0),
                CacheOp::Write(at, v) => (0, 1, at, v),
                CacheOp::Reserve(..) => panic!("the co-simulation testbenches have no reservations"),
                CacheOp::Flush => (1, 0, MetadataNibble { address: 0, high: false }, 0),
            };
            [
                hex_field(flush, 1),
                hex_field(write, 1),
                hex_field(at.address, 64),
                hex_field(at.high as u64, 1),
                hex_field(value as u64, 4),
                hex_field(r.nibble as u64, 4),
                hex_field(r.outcome as u64, 2),
            ]
            .concat()
        })
        .collect();
    let memory_lines = requests
        .iter()
        .map(|r| match r {
            MemRequest::Fill { address, data } => format!("0{}{}", hex_field(*address, 64), hex_sector(data)),
            MemRequest::WriteBack { address, data } => format!("1{}{}", hex_field(*address, 64), hex_sector(data)),
        })
        .collect();
    (op_lines, memory_lines)
}

/// The self-checking Verilog testbench `metadata_cache_tb`: it drives the
/// requests of an operations file with random bubbles, answers fills from
/// the memory file after random delays, stalls every ready at random, and
/// checks every response and every memory-side request in order.
///
/// Plusargs: `+vectors=FILE +count=N` (operations), `+memory=FILE
/// +memory_count=M`, `+seed=S`, and percent rates `+p_valid`, `+p_ready`,
/// `+p_memory`, `+p_fill` (default 70, 60, 60, 30). It ends with
/// `metadata_cache: P passed, F failed`, counting responses and memory requests.
///
/// `tagged`: the testbench of `pipelined_metadata_cache` instead, whose
/// responses come back out of order: request `i` carries tag `i % 128`, is
/// offered only while its tag is free, and its response is found by tag;
/// its fills are checked in order, its write-backs each against an
/// expected write-back not yet matched (a line moved to the victim buffer
/// is written back later than golden's).
pub fn testbench(tagged: bool) -> String {
    shipped_testbench(tagged, None)
}

/// [`testbench`] reading the shipped `vectors/<module>.hex` (`shipped.0`
/// lines) and `vectors/<module>_memory.hex` (`shipped.1` lines) when no
/// file plusargs are given.
pub fn shipped_testbench(tagged: bool, shipped: Option<(usize, usize)>) -> String {
    // Written for `metadata_cache`; the tagged variant renames it below.
    let m = "metadata_cache";
    let read = crate::cosim::read_vector_plusargs(
        &format!("{m}_tb"),
        ("ops_path", "count"),
        ("vectors", "count"),
        &format!("{m}.hex"),
        shipped.map(|s| s.0),
        "MAX_OPS",
        false,
    ) + &crate::cosim::read_vector_plusargs(
        &format!("{m}_tb"),
        ("memory_path", "memory_count"),
        ("memory", "memory_count"),
        &format!("{m}_memory.hex"),
        shipped.map(|s| s.1),
        "MAX_MEMORY",
        true,
    );
    let text = TESTBENCH
        .replace("FILL_QUEUE_DEPTH", &buddy_hdl::pipelined_metadata_cache::FILL_SLOTS.next_power_of_two().to_string())
        .replace("// READ_PLUSARGS\n", &read)
        .replace("// FINISH", &crate::cosim::finish(m, "count + memory_count - failures", "failures"));
    if !tagged {
        return text;
    }
    let top = TAG_BITS - 1;
    let misses_decl = format!("wire [1:0] resp_outcome;\n  wire [{top}:0] resp_tag;\n  wire [{}:0] misses;", MISS_COUNT_BITS - 1);
    let tag_decl = format!(
        "reg [3:0] req_value;\n  reg [{top}:0] req_tag;\n  reg [127:0] tag_busy;\n  integer tag_op [0:127];\n  integer expect_op;\n  \
         // Memory lines matched so far, the next fill line, the line a request matched.\n  \
         reg matched [0:MAX_MEMORY-1];\n  integer next_fill, found, k;"
    );
    // Fills are checked in golden's order; a write-back may leave later than
    // golden's (a line moved to the victim buffer), so it is matched to any
    // expected write-back not yet matched with its address and data.
    let memory_check_from = &text[text.find("    if (mem_req_valid && mem_req_ready) begin\n").expect("the memory check")
        ..text.find("      memory_seen = memory_seen + 1;\n    end\n").expect("the memory check's end")];
    let memory_check = PIPELINED_MEMORY_CHECK;
    let ports = format!(
        ".req_value(req_value), .req_tag(req_tag), .resp_tag(resp_tag), .misses(misses), .resp_word(), .resp_commit(),\n    \
         .req_reserve(1'b0), .commit_valid(1'b0), .commit_ready(), .commit_word({WORD_BITS}'d0), .commit_offset(5'd0),\n    \
         .commit_high(1'b0), .commit_value(4'd0), .commit_tag({TAG_BITS}'d0),"
    );
    let edits = [
        ("reg [3:0] req_value;", tag_decl.as_str()),
        ("wire [1:0] resp_outcome;", misses_decl.as_str()),
        (".req_value(req_value),", ports.as_str()),
        ("sent = 0; received = 0;", "tag_busy = 0; req_tag = 0; next_fill = 0; sent = 0; received = 0;"),
        ("    $readmemh(ops_path, ops, 0, count - 1);\n", "    $readmemh(ops_path, ops, 0, count - 1);\n    for (k = 0; k < MAX_MEMORY; k = k + 1) matched[k] = 0;\n"),
        (memory_check_from, memory_check),
        ("if (!offering && sent < count) offering", "if (!offering && sent < count && !tag_busy[sent % 128]) offering"),
        ("      req_value = ops[sent][11:8];\n", "      req_value = ops[sent][11:8];\n      req_tag = sent % 128;\n"),
        (
            "    if (resp_valid && resp_ready) begin\n",
            "    if (resp_valid && resp_ready) begin\n      expect_op = tag_op[resp_tag];\n      tag_busy[resp_tag] = 0;\n",
        ),
        ("ops[received]", "ops[expect_op]"),
        ("response %0d: got", "response to request %0d: got"),
        ("          received, resp_nibble", "          expect_op, resp_nibble"),
        ("      sent = sent + 1;\n", "      tag_busy[sent % 128] = 1;\n      tag_op[sent % 128] = sent;\n      sent = sent + 1;\n"),
        (
            "// OPS line",
            "// Request i carries tag i % 128; responses come back in any order and are checked by tag.\n\
             // Fills are checked in order, write-backs against any expected one not yet matched.\n// OPS line",
        ),
    ];
    let mut text = text.clone();
    for (from, to) in edits {
        assert!(text.contains(from), "testbench edit {from:?}");
        text = text.replace(from, to);
    }
    text.replace("metadata_cache", "pipelined_metadata_cache")
}

/// The tagged testbench's memory-side check (replaces the in-order one).
const PIPELINED_MEMORY_CHECK: &str = r#"    if (mem_req_valid && mem_req_ready) begin
      found = -1;
      if (mem_req_write) begin
        for (k = 0; k < memory_count && found < 0; k = k + 1)
          if (!matched[k] && memory[k][320] && memory[k][319:256] === mem_req_address && memory[k][255:0] === mem_req_data) found = k;
      end else begin
        while (next_fill < memory_count && memory[next_fill][320]) next_fill = next_fill + 1;
        if (next_fill < memory_count && memory[next_fill][319:256] === mem_req_address) found = next_fill;
        next_fill = next_fill + 1;
      end
      if (found < 0) begin
        failures = failures + 1;
        if (failures <= 5) $display("metadata_cache_tb: memory request %0d: write %b at %h data %h matches no expected one",
          memory_seen, mem_req_write, mem_req_address, mem_req_data);
      end else matched[found] = 1;
      if (!mem_req_write) begin
        fills[fill_tail % FILL_QUEUE] = found < 0 ? 256'd0 : memory[found][255:0];
        fill_tail = fill_tail + 1;
      end
"#;

const TESTBENCH: &str = r#"// metadata_cache_tb: self-checking co-simulation testbench for metadata_cache.
// Generated by buddy-delivery; regenerate with `make verilog`.
// Usage (Icarus): iverilog -g2005 -o tb metadata_cache_tb.v ../metadata_cache.v &&
//   vvp tb [+vectors=OPS +count=N +memory=MEM +memory_count=M] [+seed=S] [+p_valid=70] [+p_ready=60] [+p_memory=60] [+p_fill=30]
// Without the file plusargs it reads the shipped vectors/metadata_cache.hex and _memory.hex;
// any failure ends with $fatal (exit status 1).
// OPS line (88 bits of hex): {req_flush, req_write, req_address, req_high, req_value, resp_nibble, resp_outcome}.
// MEM line (324 bits of hex): {write, sector address, sector data (write-back) or fill answer}.
`timescale 1ns/1ps
`default_nettype none
module metadata_cache_tb;
  localparam MAX_OPS = 65536;
  localparam MAX_MEMORY = 262144;
  // At least as many fills as the pipelined cache may have outstanding.
  localparam FILL_QUEUE = FILL_QUEUE_DEPTH;
  reg [87:0] ops [0:MAX_OPS-1];
  reg [323:0] memory [0:MAX_MEMORY-1];
  reg [8*1024-1:0] ops_path, memory_path;
  integer count, memory_count, seed, p_valid, p_ready, p_memory, p_fill;
  integer sent, received, memory_seen, failures, cycle;
  reg offering;
  // Fills requested and not yet answered, answered in order.
  reg [255:0] fills [0:FILL_QUEUE-1];
  integer fill_head, fill_tail;
  reg clock, reset, req_valid, req_write, req_flush, req_high, resp_ready, mem_req_ready, mem_fill_valid;
  reg [63:0] req_address;
  reg [3:0] req_value;
  reg [255:0] mem_fill_data;
  wire req_ready, resp_valid, mem_req_valid, mem_req_write, mem_fill_ready;
  wire [3:0] resp_nibble;
  wire [1:0] resp_outcome;
  wire [63:0] mem_req_address;
  wire [255:0] mem_req_data;

  metadata_cache dut (
    .clock(clock), .reset(reset),
    .req_valid(req_valid), .req_ready(req_ready), .req_write(req_write), .req_flush(req_flush),
    .req_address(req_address), .req_high(req_high), .req_value(req_value),
    .resp_valid(resp_valid), .resp_ready(resp_ready), .resp_nibble(resp_nibble), .resp_outcome(resp_outcome),
    .mem_req_valid(mem_req_valid), .mem_req_ready(mem_req_ready), .mem_req_write(mem_req_write),
    .mem_req_address(mem_req_address), .mem_req_data(mem_req_data),
    .mem_fill_valid(mem_fill_valid), .mem_fill_ready(mem_fill_ready), .mem_fill_data(mem_fill_data)
  );

  initial begin
// READ_PLUSARGS
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("p_valid=%d", p_valid)) p_valid = 70;
    if (!$value$plusargs("p_ready=%d", p_ready)) p_ready = 60;
    if (!$value$plusargs("p_memory=%d", p_memory)) p_memory = 60;
    if (!$value$plusargs("p_fill=%d", p_fill)) p_fill = 30;
    $readmemh(ops_path, ops, 0, count - 1);
    if (memory_count > 0) $readmemh(memory_path, memory, 0, memory_count - 1);
    sent = 0; received = 0; memory_seen = 0; failures = 0; cycle = 0; offering = 0; fill_head = 0; fill_tail = 0;
    clock = 0; reset = 1; req_valid = 0; resp_ready = 0; mem_req_ready = 0; mem_fill_valid = 0;
    req_write = 0; req_flush = 0; req_high = 0; req_address = 0; req_value = 0; mem_fill_data = 0;
    repeat (2) begin #5 clock = 1; #5 clock = 0; end
    reset = 0;
    forever begin #5 clock = 1; #5 clock = 0; end
  end

  // Stimulus changes on the falling edge, so nothing races the rising edge.
  always @(negedge clock) if (!reset) begin
    if (!offering && sent < count) offering = ($unsigned($random(seed)) % 100) < p_valid;
    req_valid = offering && sent < count;
    if (sent < count) begin
      req_flush = ops[sent][84];
      req_write = ops[sent][80];
      req_address = ops[sent][79:16];
      req_high = ops[sent][12];
      req_value = ops[sent][11:8];
    end
    resp_ready = ($unsigned($random(seed)) % 100) < p_ready;
    mem_req_ready = ($unsigned($random(seed)) % 100) < p_memory;
    mem_fill_valid = fill_head != fill_tail && (($unsigned($random(seed)) % 100) < p_fill);
    mem_fill_data = fills[fill_head % FILL_QUEUE];
  end

  always @(posedge clock) if (!reset) begin
    cycle = cycle + 1;
    if (resp_valid && resp_ready) begin
      if (resp_nibble !== ops[received][7:4] || resp_outcome !== ops[received][1:0]) begin
        failures = failures + 1;
        if (failures <= 5) $display("metadata_cache_tb: response %0d: got nibble %h outcome %0d, expected %h %0d",
          received, resp_nibble, resp_outcome, ops[received][7:4], ops[received][1:0]);
      end
      received = received + 1;
    end
    if (mem_fill_valid && mem_fill_ready) fill_head = fill_head + 1;
    if (mem_req_valid && mem_req_ready) begin
      if (memory_seen >= memory_count) begin
        failures = failures + 1;
        if (failures <= 5) $display("metadata_cache_tb: unexpected memory request %0d at %h", memory_seen, mem_req_address);
      end else if (mem_req_write !== memory[memory_seen][320] || mem_req_address !== memory[memory_seen][319:256]
                   || (mem_req_write && mem_req_data !== memory[memory_seen][255:0])) begin
        failures = failures + 1;
        if (failures <= 5) $display("metadata_cache_tb: memory request %0d: got write %b at %h data %h, expected write %b at %h data %h",
          memory_seen, mem_req_write, mem_req_address, mem_req_data,
          memory[memory_seen][320], memory[memory_seen][319:256], memory[memory_seen][255:0]);
      end
      if (!mem_req_write) begin
        fills[fill_tail % FILL_QUEUE] = memory[memory_seen][255:0];
        fill_tail = fill_tail + 1;
      end
      memory_seen = memory_seen + 1;
    end
    if (req_valid && req_ready) begin
      sent = sent + 1;
      offering = 0;
    end
    if (received == count) begin
      if (memory_seen != memory_count) begin
        $display("metadata_cache_tb: %0d memory requests, expected %0d", memory_seen, memory_count);
        failures = failures + 1;
      end
      // FINISH
    end
    if (cycle > 200 * (count + memory_count) + 1000) begin
      $display("metadata_cache_tb: timeout after %0d cycles: %0d sent, %0d received", cycle, sent, received);
      $display("metadata_cache: %0d passed, %0d failed", received - failures, count + memory_count - received + failures);
      $fatal(1, "metadata_cache_tb: timeout");
    end
  end
endmodule
`default_nettype wire
"#;

/// Tags the pipelined cache's requester may have in flight at once (512:
/// `req_tag` is `TAG_BITS` wide; the slice uses 128 ids and two kind bits).
pub const PIPELINED_TAGS: usize = 1 << TAG_BITS;

/// Run `ops` through the [`buddy_hdl::PipelinedMetadataCache`] under
/// `traffic`: request `i` carries tag `i % 512` (every bit of `req_tag`) and is offered only while
/// its tag is free; responses are put back in request order by their tag.
/// Memory answers fills in the order they were requested, each no sooner
/// than `fill_latency` cycles after its request was taken. A reservation
/// ([`CacheOp::Reserve`]) is committed 0-15 cycles after its response, on
/// the commit port at the word it answered; until the commit has answered,
/// later requests to the same nibble (and flushes) wait, as the slice's
/// same-entry guard makes them. `run.responses` is in request order (a
/// reservation's is its own, not its commit's); `response_cycles[i]` is
/// when request `i`'s response was taken.
///
/// # Errors
/// A response carries a tag that is not in flight.
#[allow(clippy::too_many_arguments)]
pub fn run_pipelined_cache<R: Rng>(
    dut: &mut buddy_hdl::PipelinedMetadataCache,
    ops: &[CacheOp],
    traffic: CacheTraffic,
    fill_latency: u64,
    rng: &mut R,
    max_cycles: u64,
    vcd: Option<&mut dyn Write>,
    lockstep: Option<&mut Vec<String>>,
) -> Result<CacheRun, String> {
    /// A commit due: (first cycle it may be offered, word, offset, high, value, tag).
    type Commit = (u64, u64, u64, bool, u8, usize);
    let mut dut = Harness::new(dut, vcd).record(lockstep, pipelined_lockstep::line);
    let mut memory = FillingMemory::default();
    let mut run = CacheRun::default();
    let mut responses: Vec<Option<CacheResponse>> = vec![None; ops.len()];
    let mut response_cycles = vec![0u64; ops.len()];
    // Per tag: the request in flight, and whether its commit is what remains.
    let mut in_flight: [Option<(usize, bool)>; PIPELINED_TAGS] = [None; PIPELINED_TAGS];
    let mut commits: VecDeque<Commit> = VecDeque::new();
    // Nibbles reserved and not yet committed.
    let mut reserved: Vec<MetadataNibble> = Vec::new();
    let mut answered = 0usize;
    dut.reset(1);
    let (mut next, mut offering) = (0usize, false);
    while (answered < ops.len() || !commits.is_empty() || in_flight.iter().any(Option::is_some)) && run.cycles < max_cycles {
        let tag = next % PIPELINED_TAGS;
        let op = ops[next.min(ops.len() - 1)];
        let blocked = match op {
            CacheOp::Read(at) | CacheOp::Write(at, _) | CacheOp::Reserve(at, _) => reserved.contains(&at),
            CacheOp::Flush => !reserved.is_empty(),
        };
        if next < ops.len() && !offering && in_flight[tag].is_none() && !blocked {
            offering = rng.gen_bool(traffic.p_request);
        }
        dut.req_valid.next = offering && next < ops.len();
        let (at, value) = request_fields(op, rng);
        dut.req_write.next = matches!(op, CacheOp::Write(..));
        dut.req_reserve.next = matches!(op, CacheOp::Reserve(..));
        dut.req_flush.next = op == CacheOp::Flush;
        dut.req_address.next = at.address.into();
        dut.req_high.next = at.high;
        dut.req_value.next = (value as u64).into();
        dut.req_tag.next = (tag as u64).into();
        let commit = commits.front().copied().filter(|c| c.0 <= run.cycles);
        dut.commit_valid.next = commit.is_some();
        let (_, word, offset, high, cvalue, ctag) = commit.unwrap_or_default();
        dut.commit_word.next = word.into();
        dut.commit_offset.next = offset.into();
        dut.commit_high.next = high;
        dut.commit_value.next = (cvalue as u64).into();
        dut.commit_tag.next = (ctag as u64).into();
        let resp_ready = rng.gen_bool(traffic.p_response_ready);
        dut.resp_ready.next = resp_ready;
        let mem_ready = rng.gen_bool(traffic.p_memory_ready);
        dut.mem_req_ready.next = mem_ready;
        let (fill_valid, fill_data) = memory.offer(run.cycles, traffic.p_fill, rng);
        dut.mem_fill_valid.next = fill_valid;
        dut.mem_fill_data.next = fill_data;
        dut.settle();
        let accepted = dut.req_valid.val() && dut.req_ready.val();
        if commit.is_some() && dut.commit_ready.val() {
            commits.pop_front();
        }
        if dut.resp_valid.val() && resp_ready {
            let t = dut.resp_tag.val().index();
            if let Some((_, is_commit)) = in_flight[t] {
                if dut.resp_commit.val() != is_commit {
                    return Err(format!("cycle {}: tag {t}'s response has resp_commit {}", run.cycles, dut.resp_commit.val()));
                }
            }
            match in_flight[t] {
                None => return Err(format!("cycle {}: response with tag {t}, which is not in flight", run.cycles)),
                Some((i, true)) => {
                    // The commit's answer: the nibble is free again.
                    let CacheOp::Reserve(at, _) = ops[i] else { unreachable!("only reservations commit") };
                    reserved.retain(|r| *r != at);
                    in_flight[t] = None;
                }
                Some((i, false)) => {
                    responses[i] = Some(CacheResponse {
                        nibble: dut.resp_nibble.val().to_u32() as u8,
                        outcome: dut.resp_outcome.val().to_u32() as u8,
                    });
                    response_cycles[i] = run.cycles;
                    answered += 1;
                    in_flight[t] = None;
                    if let CacheOp::Reserve(at, v) = ops[i] {
                        let word = dut.resp_word.val().to_u64();
                        commits.push_back((run.cycles + 1 + rng.gen_range(0..16), word, at.address & 31, at.high, v, t));
                        in_flight[t] = Some((i, true));
                    }
                }
            }
        }
        if dut.mem_req_valid.val() && mem_ready {
            let (write, address) = (dut.mem_req_write.val(), dut.mem_req_address.val().to_u64());
            memory.take(write, address, &dut.mem_req_data.val(), run.cycles, fill_latency);
        }
        if fill_valid && dut.mem_fill_ready.val() {
            memory.pending.pop_front();
        }
        dut.cycle();
        if accepted {
            in_flight[tag] = Some((next, false));
            if let CacheOp::Reserve(at, _) = op {
                reserved.push(at);
            }
            run.accept_cycles.push(run.cycles);
            next += 1;
            offering = false;
        }
        run.cycles += 1;
    }
    run.responses = responses.into_iter().flatten().collect();
    run.response_cycles = response_cycles;
    run.memory_requests = memory.memory.requests;
    Ok(run)
}

/// Lock-step ports of `pipelined_metadata_cache`.
mod pipelined_lockstep {
    use buddy_hdl::pipelined_metadata_cache::{MISS_COUNT_BITS, TAG_BITS, WORD_BITS};
    use buddy_hdl::PipelinedMetadataCache;

    crate::lockstep_ports!(PipelinedMetadataCache,
        inputs: [
            reset: 1,
            req_valid: 1,
            req_write: 1,
            req_reserve: 1,
            req_flush: 1,
            req_address: 64,
            req_high: 1,
            req_value: 4,
            req_tag: TAG_BITS,
            resp_ready: 1,
            commit_valid: 1,
            commit_word: WORD_BITS,
            commit_offset: 5,
            commit_high: 1,
            commit_value: 4,
            commit_tag: TAG_BITS,
            mem_req_ready: 1,
            mem_fill_valid: 1,
            mem_fill_data: 256,
        ],
        outputs: [
            req_ready: 1,
            resp_valid: 1,
            resp_tag: TAG_BITS if resp_valid,
            resp_nibble: 4 if resp_valid,
            resp_outcome: 2 if resp_valid,
            resp_word: WORD_BITS if resp_valid,
            resp_commit: 1 if resp_valid,
            commit_ready: 1,
            mem_req_valid: 1,
            mem_req_write: 1 if mem_req_valid,
            mem_req_address: 64 if mem_req_valid,
            mem_req_data: 256 if mem_req_write,
            mem_fill_ready: 1,
            misses: MISS_COUNT_BITS,
        ],
    );
}
pub use pipelined_lockstep::{LOCKSTEP_INPUTS as PIPELINED_LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS as PIPELINED_LOCKSTEP_OUTPUTS};

/// The lock-step testbench of `pipelined_metadata_cache`
/// (`tb/pipelined_metadata_cache_lockstep_tb.v`): it replays every port of
/// a rust-hdl run, reservations and commits included, cycle by cycle.
pub fn pipelined_lockstep_testbench() -> String {
    crate::cosim::lockstep_testbench("pipelined_metadata_cache", PIPELINED_LOCKSTEP_INPUTS, PIPELINED_LOCKSTEP_OUTPUTS)
        .replace("module pipelined_metadata_cache_tb;", "module pipelined_metadata_cache_lockstep_tb;")
        .replace("// pipelined_metadata_cache_tb:", "// pipelined_metadata_cache_lockstep_tb:")
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the two metadata caches.

/// The metadata cache and the pipelined slice's non-blocking one as
/// delivered modules.
pub mod delivered {
    use super::*;
    use crate::cosim::CosimPorts;
    use crate::decompress::StoredEntry;
    use crate::modules::{self, DeliveredModule, EquivRun, ModuleKind, VcdWriter, VectorFile};
    use crate::stream::Traffic;
    use crate::waves::{block_ports, port_groups, Filter, SignalGroup};
    use buddy_golden::MemoryEntry;
    use buddy_hdl::metadata_cache::outcome;
    use buddy_hdl::PipelinedMetadataCache;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// `metadata_cache`, or with `pipelined` `pipelined_metadata_cache`
    /// (hits under misses, tagged responses): one random operation per
    /// entry, then a flush.
    pub struct Cache {
        pub pipelined: bool,
    }

    /// `n` random cache operations then a flush.
    fn cache_ops(n: usize, rng: &mut ChaCha8Rng) -> Vec<CacheOp> {
        let mut ops = random_ops(n, rng);
        ops.push(CacheOp::Flush);
        ops
    }

    impl DeliveredModule for Cache {
        fn ports(&self) -> CosimPorts {
            if self.pipelined {
                PIPELINED_PORTS
            } else {
                PORTS
            }
        }
        fn kind(&self) -> ModuleKind {
            ModuleKind::Block
        }
        fn notes(&self) -> Vec<String> {
            vec![
                "Handshake: valid/ready on the request, response, memory-request and fill ports.".to_string(),
                format!(
                    "A hit answers {} cycles after the request; a sector miss asks memory for the 32-byte sector {} cycles \
                     after; {} cycles after reset it invalidates its {} sets before taking requests.",
                    buddy_hdl::metadata_cache::HIT_CYCLES,
                    buddy_hdl::metadata_cache::SECTOR_FILL_CYCLES,
                    buddy_hdl::timing::INIT_CYCLES,
                    buddy_hdl::metadata_cache::SETS
                ),
                format!(
                    "resp_outcome: {} hit, {} sector miss, {} line miss. Metadata nibbles: docs/formats.md#metadata.",
                    outcome::HIT,
                    outcome::SECTOR_MISS,
                    outcome::LINE_MISS
                ),
            ]
        }
        /// The operations file and the memory-request file (`shipped[0]`
        /// and `shipped[1]` lines).
        fn shipped_testbench(&self, shipped: &[usize]) -> String {
            let both = match shipped {
                [ops, memory, ..] => Some((*ops, *memory)),
                _ => None,
            };
            super::shipped_testbench(self.pipelined, both)
        }
        fn verilog(&self, revision: &str) -> Result<String, String> {
            if self.pipelined {
                modules::emit(PipelinedMetadataCache::default(), self.name(), revision)
            } else {
                modules::emit(MetadataCache::default(), self.name(), revision)
            }
        }
        fn vector_files(&self, entries: &[MemoryEntry], _: &[StoredEntry]) -> Vec<VectorFile> {
            let mut rng = ChaCha8Rng::seed_from_u64(modules::VECTOR_SEED);
            let (ops, memory) = vector_lines(&cache_ops(entries.len(), &mut rng));
            vec![
                VectorFile::vectors(self.name(), ops),
                VectorFile { file: format!("{}_memory.hex", self.name()), plusargs: ("memory", "memory_count"), lines: memory },
            ]
        }
        fn check(&self, entries: &[MemoryEntry], _: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<EquivRun, String> {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let ops = cache_ops(entries.len(), &mut rng);
            let (responses, requests) = expected(&ops);
            let stalls = CacheTraffic { p_request: traffic.p_valid, p_response_ready: traffic.p_ready, ..CacheTraffic::RANDOM };
            let start = std::time::Instant::now();
            let max = 400 * ops.len() as u64 + 1000;
            let run = if self.pipelined {
                run_pipelined_cache(&mut PipelinedMetadataCache::default(), &ops, stalls, 1, &mut rng, max, None, None)?
            } else {
                run_cache(&mut MetadataCache::default(), &ops, stalls, &mut rng, max, None)
            };
            let seconds = start.elapsed().as_secs_f64();
            let name = self.name();
            if run.responses.len() != ops.len() {
                return Err(format!("{name}: {} responses for {} operations", run.responses.len(), ops.len()));
            }
            if let Some(i) = (0..ops.len()).find(|&i| run.responses[i] != responses[i]) {
                return Err(format!(
                    "{name}: response {i} to {:?} differs:\n  hdl:    {:?}\n  golden: {:?}",
                    ops[i], run.responses[i], responses[i]
                ));
            }
            if self.pipelined {
                pipelined_memory_agrees(&run.memory_requests, &requests).map_err(|e| format!("{name}: memory traffic: {e}"))?;
            } else if let Some(i) = (0..requests.len().max(run.memory_requests.len())).find(|&i| run.memory_requests.get(i) != requests.get(i)) {
                return Err(format!(
                    "{name}: memory request {i} differs:\n  hdl:    {:?}\n  golden: {:?}",
                    run.memory_requests.get(i),
                    requests.get(i)
                ));
            }
            Ok(EquivRun { inputs: ops.len(), cycles: run.cycles, seconds })
        }
        fn write_vcd(&self, entries: &[MemoryEntry], mut vcd: VcdWriter) -> Result<(), String> {
            let mut rng = ChaCha8Rng::seed_from_u64(modules::VCD_SEED);
            let max = 400 * modules::vcd_max_cycles(entries.len());
            let ops = cache_ops(entries.len(), &mut rng);
            let stalls = CacheTraffic::RANDOM;
            if self.pipelined {
                let dut = &mut PipelinedMetadataCache::default();
                run_pipelined_cache(dut, &ops, stalls, 20, &mut rng, max, Some(&mut vcd), None)?;
            } else {
                run_cache(&mut MetadataCache::default(), &ops, stalls, &mut rng, max, Some(&mut vcd));
            }
            Ok(())
        }
        fn signal_groups(&self) -> Vec<SignalGroup> {
            let (ports, state) = if self.pipelined {
                (block_ports(&PipelinedMetadataCache::default()), "ev_state")
            } else {
                (block_ports(&MetadataCache::default()), "state")
            };
            let ports: Vec<&str> = ports.iter().map(String::as_str).collect();
            let rules: &[(&str, &[&str])] = &[
                ("clock and reset", &["clock", "reset"]),
                ("request in", &["req_*"]),
                ("commit in", &["commit_*"]),
                ("response out", &["resp_*"]),
                ("memory requests out", &["mem_req_*"]),
                ("memory fills in", &["mem_fill_*"]),
                ("counters", &["misses"]),
            ];
            // The metadata nibbles are size class codes.
            let nibbles = [("req_value", Filter::SizeClass), ("commit_value", Filter::SizeClass), ("resp_nibble", Filter::SizeClass)];
            let mut groups = port_groups(&ports, rules, &[nibbles.as_slice(), &[("resp_outcome", Filter::Outcome)]].concat());
            groups.push(SignalGroup::new("state machine", &[state]));
            groups
        }
    }
}
