//! `verilog-out/` is current, lint-clean, latch-free, and the emitted
//! Verilog matches the golden model in Icarus Verilog, an independent
//! simulator.

use buddy_delivery::cosim::{build_verilator, run_icarus, run_icarus_with, run_verilated, CosimPorts};
use buddy_delivery::decompress::{self, random_stored, StoredEntry};
use buddy_delivery::delivery::{artifacts, verilog_out_dir, without_revision};
use buddy_delivery::entries::{bundled_workload, random_entries, snapshot_entries};
use buddy_delivery::modules::{HwModule, SLICE_CODECS};
use buddy_delivery::stream::Traffic;
use buddy_delivery::{bpc, cdma_zvc, controller, mag_bdi, metadata_cache, translation, zvc};
use buddy_golden::{Bpc, Codec, Mag, MagBdi, Zvc};
use buddy_golden::{HardwareCodec, MemoryEntry};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};
use std::process::Command;

fn tool(name: &str) -> PathBuf {
    let found = Command::new("sh").arg("-c").arg(format!("command -v {name}")).output().unwrap();
    assert!(found.status.success(), "`{name}` is not installed: run `make deps` (the Makefile installs it)");
    PathBuf::from(String::from_utf8(found.stdout).unwrap().trim())
}

fn work_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("buddy-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Whether this run co-simulates at full size (`make cosim` sets
/// `BUDDY_COSIM=full`); `make test` runs a smoke share of the long ones.
fn full_size() -> bool {
    std::env::var("BUDDY_COSIM").is_ok_and(|v| v == "full")
}

/// `items` at full size, or (smoke) every k-th of them, so that at most
/// `smoke` remain, spread over the whole list: every kind of input the list
/// is built of (plane-built, boundary, random, snapshot, malformed) stays.
fn smoke_share<T>(items: Vec<T>, smoke: usize) -> Vec<T> {
    if full_size() || items.len() <= smoke {
        return items;
    }
    let step = items.len().div_ceil(smoke);
    items.into_iter().step_by(step).collect()
}

/// Run `job` on every item, as many at a time as there are cores (each job
/// is an external simulator or synthesis run); panics with the first failure.
fn each_in_parallel<T: Sync>(items: &[T], job: impl Fn(&T) + Sync) {
    let workers = std::thread::available_parallelism().map_or(2, usize::from).min(items.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                job(item);
            });
        }
    });
}

#[test]
fn verilog_out_is_current() {
    let dir = verilog_out_dir();
    for a in artifacts("any").unwrap() {
        let path = dir.join(&a.path);
        let on_disk = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}; run `make verilog`", path.display()));
        assert!(
            without_revision(&on_disk) == without_revision(&a.text),
            "{} is stale: run `make verilog` and commit the result",
            path.display()
        );
    }
}

#[test]
fn verilator_lint_is_clean() {
    let verilator = tool("verilator");
    let dir = verilog_out_dir();
    each_in_parallel(&HwModule::all().iter().map(|m| m.ports()).collect::<Vec<_>>(), |m| {
        let out = Command::new(&verilator)
            .current_dir(&dir)
            .args(["--lint-only", "-Wall", "verilator.vlt"])
            .arg(format!("{}.v", m.module))
            .args(["--top-module", m.module])
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !log.contains("%Warning") && !log.contains("%Error"), "{}:\n{log}", m.module);
    });
}

/// The waivers name signals or module-name patterns: every `lint_off` of
/// `verilator.vlt` narrows its rule with `-match`, so no rule is off for
/// a whole file.
#[test]
fn every_lint_waiver_names_what_it_waives() {
    let vlt = std::fs::read_to_string(verilog_out_dir().join("verilator.vlt")).unwrap();
    let waivers: Vec<&str> = vlt.lines().filter(|l| l.starts_with("lint_off")).collect();
    assert!(!waivers.is_empty());
    for w in waivers {
        assert!(w.contains(" -match \""), "a whole-file waiver: {w}");
        assert!(!w.contains("-rule WIDTH"), "WIDTH is waived: {w}");
    }
}

/// Every line of the delivered modules with its `//` comment cut off.
fn module_code() -> Vec<(String, String)> {
    let dir = verilog_out_dir();
    HwModule::all()
        .iter()
        .flat_map(|m| {
            let text = std::fs::read_to_string(dir.join(format!("{}.v", m.name()))).unwrap();
            text.lines().map(|l| (m.name().to_string(), l.split("//").next().unwrap_or("").to_string())).collect::<Vec<_>>()
        })
        .collect()
}

/// No emitted identifier contains `$` (Vivado's Tcl and XDC read it as a
/// variable): only system tasks start with it.
#[test]
fn no_emitted_identifier_contains_a_dollar() {
    for (module, line) in module_code() {
        let b = line.as_bytes();
        let bad = (1..b.len()).any(|i| b[i] == b'$' && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        assert!(!bad, "{module}: {line}");
    }
}

/// Reserved words of Verilog-2005 and SystemVerilog (IEEE 1800-2017 Annex
/// B) that a Rust field name could plausibly be; Verilator reads `.v`
/// files as SystemVerilog, so a signal named `class` is a syntax error
/// there although Icarus and Yosys take it.
const RESERVED: &[&str] = &[
    "accept_on",
    "alias",
    "always",
    "assert",
    "assign",
    "assume",
    "automatic",
    "before",
    "begin",
    "bind",
    "bins",
    "binsof",
    "bit",
    "break",
    "buf",
    "byte",
    "case",
    "cell",
    "chandle",
    "checker",
    "class",
    "clocking",
    "config",
    "const",
    "constraint",
    "context",
    "continue",
    "cover",
    "covergroup",
    "coverpoint",
    "cross",
    "deassign",
    "default",
    "design",
    "disable",
    "dist",
    "do",
    "edge",
    "else",
    "end",
    "enum",
    "event",
    "eventually",
    "expect",
    "export",
    "extends",
    "extern",
    "final",
    "first_match",
    "for",
    "force",
    "foreach",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "global",
    "if",
    "iff",
    "ignore_bins",
    "illegal_bins",
    "implements",
    "implies",
    "import",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "inside",
    "instance",
    "int",
    "integer",
    "interconnect",
    "interface",
    "intersect",
    "join",
    "large",
    "let",
    "liblist",
    "library",
    "local",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "matches",
    "medium",
    "modport",
    "module",
    "nand",
    "negedge",
    "nettype",
    "new",
    "nexttime",
    "nor",
    "not",
    "null",
    "or",
    "output",
    "package",
    "packed",
    "parameter",
    "posedge",
    "primitive",
    "priority",
    "program",
    "property",
    "protected",
    "pure",
    "rand",
    "randc",
    "randcase",
    "randsequence",
    "real",
    "realtime",
    "ref",
    "reg",
    "reject_on",
    "release",
    "repeat",
    "restrict",
    "return",
    "scalared",
    "sequence",
    "shortint",
    "shortreal",
    "signed",
    "small",
    "soft",
    "solve",
    "specify",
    "static",
    "string",
    "strong",
    "struct",
    "super",
    "supply0",
    "supply1",
    "table",
    "tagged",
    "task",
    "this",
    "throughout",
    "time",
    "timeprecision",
    "timeunit",
    "tri",
    "type",
    "typedef",
    "union",
    "unique",
    "unique0",
    "unsigned",
    "until",
    "untyped",
    "use",
    "uwire",
    "var",
    "vectored",
    "virtual",
    "void",
    "wait",
    "wait_order",
    "wand",
    "weak",
    "while",
    "wildcard",
    "wire",
    "with",
    "within",
    "wor",
    "xnor",
    "xor",
];

/// No declared signal, port or parameter is a reserved word of Verilog or
/// SystemVerilog ([`RESERVED`]).
#[test]
fn no_declared_name_is_a_reserved_word() {
    let mut declarations = 0;
    for (module, line) in module_code() {
        let t = line.trim();
        let first = t.split_whitespace().next().unwrap_or("");
        if !["reg", "wire", "input", "output", "localparam", "integer"].contains(&first) {
            continue;
        }
        let declared = t.split('=').next().unwrap().trim_end_matches([';', ',', ' ']);
        let name = declared.rsplit([' ', ']']).next().unwrap_or("");
        declarations += 1;
        assert!(!RESERVED.contains(&name), "{module}: `{name}` is a reserved word: {line}");
    }
    assert!(declarations > 10_000, "only {declarations} declarations found: the parse is wrong");
}

/// Clocks are wired straight: no combinational block copies a clock input
/// into a sub-module's clock (`x$clock = clock;`).
#[test]
fn clocks_reach_sub_modules_without_a_combinational_copy() {
    let mut connections = 0;
    for (module, line) in module_code() {
        let t = line.trim();
        assert!(!(t.ends_with("= clock;") && !t.contains("<=") && !t.starts_with("assign")), "{module}: {line}");
        connections += usize::from(t.starts_with(".clock(clock)"));
    }
    assert!(connections > 100, "only {connections} sub-modules take the clock input itself");
}

/// Yosys elaborates `modules` (each flattened) and finds no latch, undriven
/// wire, conflicting driver, logic loop or implicit declaration.
fn yosys_checks(modules: &[HwModule]) {
    let yosys = tool("yosys");
    let dir = verilog_out_dir();
    each_in_parallel(modules, |m| {
        let script = format!(
            "read_verilog {m}.v; hierarchy -check -top {m}; proc; flatten; check; select -assert-none t:$dlatch t:$adlatch t:$dlatchsr",
            m = m.name()
        );
        let out = Command::new(&yosys).current_dir(&dir).args(["-p", &script]).output().unwrap();
        let log = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{} (latches?):\n{log}", m.name());
        for bad in ["Latch inferred", "has no driver", "conflicting drivers", "found logic loop", "implicitly declared"] {
            assert!(!log.contains(bad), "{}: yosys reports '{bad}':\n{log}", m.name());
        }
    });
}

#[test]
fn yosys_finds_no_latches_undriven_wires_or_loops() {
    let blocks: Vec<HwModule> = HwModule::all().iter().copied().filter(|m| !m.is_slice()).collect();
    assert_eq!(blocks.len(), HwModule::all().len() - 2 * SLICE_CODECS.len());
    yosys_checks(&blocks);
}

/// The six slices take Yosys 10-30 s each (`make cosim`, `make lint`).
#[test]
#[ignore = "make cosim, make lint: Yosys on the six controller slices, about 2 minutes"]
fn yosys_finds_no_latches_undriven_wires_or_loops_in_the_slices() {
    let slices: Vec<HwModule> = HwModule::all().iter().copied().filter(|m| m.is_slice()).collect();
    assert_eq!(slices.len(), 2 * SLICE_CODECS.len());
    yosys_checks(&slices);
}

fn cosim(ports: &CosimPorts, lines: &[String], name: &str) {
    tool("iverilog");
    let work = work_dir(name);
    let vectors = work.join(format!("{}.hex", ports.module));
    std::fs::write(&vectors, lines.join("\n") + "\n").unwrap();
    let dir = verilog_out_dir();
    let report = run_icarus(
        ports,
        &dir.join(format!("{}.v", ports.module)),
        &dir.join(format!("tb/{}_tb.v", ports.module)),
        &vectors,
        lines.len(),
        12345,
        &work,
    )
    .unwrap();
    assert_eq!((report.passed, report.failed), (lines.len(), 0), "{}", report.log);
    std::fs::remove_dir_all(work).ok();
}

/// >= 10,000 random entries plus every entry of the bundled snapshot.
fn cosim_entries() -> Vec<MemoryEntry> {
    let mut entries = random_entries(10_000, 99);
    entries.extend(snapshot_entries(&bundled_workload()));
    entries
}

/// 16,594 entries (`make cosim`; `make test`: a spread share of 4,000):
/// 8,000 built plane by plane (every symbol kind and zero-run length),
/// 2,000 random, the bundled snapshot.
#[test]
fn icarus_runs_bpc_compressor_verilog_like_golden() {
    let lines: Vec<String> = smoke_share(bpc::cosim_entries(), 4_000).iter().map(bpc::compressor_vector).collect();
    assert!(lines.len() >= if full_size() { 10_000 } else { 2_000 });
    cosim(&bpc::COMPRESSOR_PORTS, &lines, "cosim-bpc-c");
}

/// 22,594 inputs (`make cosim`; `make test`: a spread share of 3,000):
/// the 16,594 entries of the compressor's co-simulation as stored, then
/// 6,000 built to be malformed or arbitrary (symbol sequences reaching every
/// mandatory error of docs/formats.md#bpc-decoding, streams one class too
/// small, random bytes under every code).
#[test]
fn icarus_runs_bpc_decompressor_verilog_like_golden() {
    let inputs = smoke_share(bpc::decompressor_cosim_inputs(), 3_000);
    let lines: Vec<String> = inputs.iter().map(|i| decompress::decompressor_vector(&Bpc, i)).collect();
    assert!(lines.len() >= if full_size() { 10_000 } else { 2_000 });
    cosim(&bpc::DECOMPRESSOR_PORTS, &lines, "cosim-bpc-d");
}

#[test]
fn icarus_runs_zvc_compressor_verilog_like_golden() {
    let lines: Vec<String> = cosim_entries().iter().map(zvc::compressor_vector).collect();
    cosim(&zvc::COMPRESSOR_PORTS, &lines, "cosim-zvc-c");
}

/// The golden vectors of a decompressor of `codec`: every entry of
/// `entries` as `codec` stores it, then 2,000 malformed inputs (random
/// payloads under every code, reserved included).
fn decompressor_lines(codec: &dyn Codec, entries: &[MemoryEntry]) -> Vec<String> {
    let mut inputs: Vec<StoredEntry> = entries.iter().map(|e| decompress::stored(codec, e)).collect();
    inputs.extend(random_stored(2_000, 5));
    inputs.iter().map(|i| decompress::decompressor_vector(codec, i)).collect()
}

#[test]
fn icarus_runs_zvc_decompressor_verilog_like_golden() {
    cosim(&zvc::DECOMPRESSOR_PORTS, &decompressor_lines(&Zvc, &cosim_entries()), "cosim-zvc-d");
}

/// Every MAG, 16,594 entries each (`make cosim`; `make test`: a spread
/// share of 4,000): 8,000 on the delta-width boundaries, 2,000 random, the
/// bundled snapshot.
#[test]
fn icarus_runs_mag_bdi_compressors_verilog_like_golden() {
    let entries = smoke_share(mag_bdi::cosim_entries(), 4_000);
    each_in_parallel(&Mag::ALL, |&mag| {
        let lines: Vec<String> = entries.iter().map(|e| mag_bdi::compressor_vector(mag, e)).collect();
        cosim(&mag_bdi::compressor_ports(mag), &lines, &format!("cosim-mag{}-c", mag.bytes()));
    });
}

#[test]
fn icarus_runs_mag_bdi_decompressors_verilog_like_golden() {
    let entries = smoke_share(mag_bdi::cosim_entries(), 4_000);
    each_in_parallel(&Mag::ALL, |&mag| {
        cosim(&mag_bdi::decompressor_ports(mag), &decompressor_lines(&MagBdi::new(mag), &entries), &format!("cosim-mag{}-d", mag.bytes()));
    });
}

/// 4 register sets x 10,000 random accesses (a vector file holds one
/// register set: the registers are configuration inputs).
#[test]
fn icarus_runs_address_translator_verilog_like_golden() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    for _ in 0..4 {
        let lines: Vec<String> = translation::random_accesses(10_000, &mut rng).iter().map(translation::vector).collect();
        cosim(&translation::PORTS, &lines, "cosim-at");
    }
}

/// 3 sequences of 10,000 random operations and a flush, with random stalls
/// on all four ports; every response and every memory-side request checked.
/// `runs` x 10,001 random operations through `module` (one of the two
/// metadata caches) and its testbench in Icarus, random stalls on every port.
fn icarus_runs_cache(module: &str, seed: u64, runs: u64) {
    tool("iverilog");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let dir = verilog_out_dir();
    for run in 0..runs {
        let mut ops = metadata_cache::random_ops(10_000, &mut rng);
        ops.push(metadata_cache::CacheOp::Flush);
        let (op_lines, memory_lines) = metadata_cache::vector_lines(&ops);
        let work = work_dir(&format!("cosim-{module}"));
        let (ops_file, memory_file) = (work.join("ops.hex"), work.join("memory.hex"));
        std::fs::write(&ops_file, op_lines.join("\n") + "\n").unwrap();
        std::fs::write(&memory_file, memory_lines.join("\n") + "\n").unwrap();
        let plusargs = [
            format!("+vectors={}", ops_file.display()),
            format!("+count={}", op_lines.len()),
            format!("+memory={}", memory_file.display()),
            format!("+memory_count={}", memory_lines.len()),
            format!("+seed={}", 100 + run),
        ];
        let (verilog, tb) = (dir.join(format!("{module}.v")), dir.join(format!("tb/{module}_tb.v")));
        let report = run_icarus_with(module, &verilog, &tb, &plusargs, &work).unwrap();
        assert_eq!((report.passed, report.failed), (op_lines.len() + memory_lines.len(), 0), "{}", report.log);
        std::fs::remove_dir_all(work).ok();
    }
}

#[test]
fn icarus_runs_metadata_cache_verilog_like_golden() {
    icarus_runs_cache("metadata_cache", 22, 3);
}

#[test]
fn icarus_runs_pipelined_metadata_cache_verilog_like_golden() {
    icarus_runs_cache("pipelined_metadata_cache", 23, 2);
}

/// The pipelined metadata cache's Verilog replays, port by port and cycle
/// by cycle, a rust-hdl run of 2,000 operations in which half the writes
/// are reservations committed later (the vector testbench above has no
/// reservations), under random stalls and fill latencies of 10 cycles.
#[test]
fn icarus_runs_pipelined_metadata_cache_with_reservations_in_lock_step() {
    use rand::Rng;
    tool("iverilog");
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    let ops: Vec<metadata_cache::CacheOp> = metadata_cache::random_ops(2_000, &mut rng)
        .into_iter()
        .map(|op| match op {
            metadata_cache::CacheOp::Write(at, v) if rng.gen_bool(0.5) => metadata_cache::CacheOp::Reserve(at, v),
            op => op,
        })
        .chain([metadata_cache::CacheOp::Flush])
        .collect();
    let mut lines = Vec::new();
    let mut dut = buddy_hdl::PipelinedMetadataCache::default();
    let traffic = metadata_cache::CacheTraffic::RANDOM;
    let run = metadata_cache::run_pipelined_cache(&mut dut, &ops, traffic, 10, &mut rng, 1_000_000, None, Some(&mut lines)).unwrap();
    assert_eq!(run.responses, metadata_cache::expected(&ops).0);
    let work = work_dir("cosim-pipelined-cache-lockstep");
    let tb = work.join("tb.v");
    std::fs::write(&tb, metadata_cache::pipelined_lockstep_testbench()).unwrap();
    icarus_replays("pipelined_metadata_cache", &tb, &lines, &work);
}

/// Icarus replays `lines` through `module`'s Verilog with the lock-step
/// testbench `tb`: every line passes.
fn icarus_replays(module: &str, tb: &Path, lines: &[String], work: &Path) {
    let vectors = work.join("lines.hex");
    std::fs::write(&vectors, lines.join("\n") + "\n").unwrap();
    let plusargs = [format!("+vectors={}", vectors.display()), format!("+count={}", lines.len())];
    let verilog = verilog_out_dir().join(format!("{module}.v"));
    let report = run_icarus_with(module, &verilog, tb, &plusargs, work).unwrap();
    assert_eq!((report.passed, report.failed), (lines.len(), 0), "{}", report.log);
    std::fs::remove_dir_all(work).ok();
}

/// The request contexts' Verilog replays a rust-hdl run of 20,000 random
/// cycles (allocations, frees, colliding memory-entries) in lock step.
#[test]
fn icarus_runs_request_contexts_in_lock_step() {
    tool("iverilog");
    let mut lines = Vec::new();
    buddy_delivery::request_contexts::run(25, 20_000, 0.8, 0.1, Some(&mut lines), None).unwrap();
    let tb = verilog_out_dir().join("tb/request_contexts_tb.v");
    icarus_replays("request_contexts", &tb, &lines, &work_dir("cosim-request-contexts"));
}

/// The sector gather's Verilog replays a rust-hdl run of 3,000 random
/// cycles (reads of every layout planned, sectors answered out of order,
/// payloads handed on under backpressure) and its drain in lock step.
#[test]
fn icarus_runs_sector_gather_in_lock_step() {
    tool("iverilog");
    let mut lines = Vec::new();
    let run = buddy_delivery::sector_gather::run(26, 3_000, 0.4, 0.8, 0.7, Some(&mut lines), None).unwrap();
    assert!(run.reads > 2 * 128, "{run:?}");
    let tb = verilog_out_dir().join("tb/sector_gather_tb.v");
    icarus_replays("sector_gather", &tb, &lines, &work_dir("cosim-sector-gather"));
}

/// The read planner's Verilog replays a rust-hdl run of 3,000 random
/// cycles (reads of every target ratio and size class, metadata hits and
/// misses, backpressure on every port) and its drain in lock step.
#[test]
fn icarus_runs_read_planner_in_lock_step() {
    tool("iverilog");
    let mut lines = Vec::new();
    let run = buddy_delivery::read_planner::run(27, 3_000, 0.5, 0.7, Some(&mut lines), None).unwrap();
    assert!(run.full > 200 && run.slots > 50, "{run:?}");
    let tb = verilog_out_dir().join("tb/read_planner_tb.v");
    icarus_replays("read_planner", &tb, &lines, &work_dir("cosim-read-planner"));
}

/// The write planner's Verilog replays a rust-hdl run of 3,000 random
/// cycles (writes of every target ratio and size class, uncompressed
/// pages with sector masks, backpressure on every port) and its drain in
/// lock step.
#[test]
fn icarus_runs_write_planner_in_lock_step() {
    tool("iverilog");
    let mut lines = Vec::new();
    let run = buddy_delivery::write_planner::run(28, 3_000, 0.5, 0.7, Some(&mut lines), None).unwrap();
    assert!(run.compressed > 100 && run.spilled > 20 && run.uncompressed > 10, "{run:?}");
    let tb = verilog_out_dir().join("tb/write_planner_tb.v");
    icarus_replays("write_planner", &tb, &lines, &work_dir("cosim-write-planner"));
}

/// The memory port's Verilog replays a rust-hdl run of 3,000 random
/// cycles (fills, write-backs, writes and reads; answers in any order;
/// backpressure everywhere) and its drain in lock step.
#[test]
fn icarus_runs_memory_port_in_lock_step() {
    tool("iverilog");
    let mut lines = Vec::new();
    let run = buddy_delivery::memory_port::run(29, 3_000, 0.4, 0.7, Some(&mut lines), None).unwrap();
    assert!(run.fills > 100 && run.fills_out_of_order > 10 && run.reads > 100, "{run:?}");
    let tb = verilog_out_dir().join("tb/memory_port_tb.v");
    icarus_replays("memory_port", &tb, &lines, &work_dir("cosim-memory-port"));
}

/// Lines for co-simulating cDMA's engines: `n` random lines (each with
/// its own share of zero words, all-zero and no-zero lines included) and
/// up to `n` activation lines of the shared workloads.
fn cdma_cosim_lines(n: usize) -> Vec<MemoryEntry> {
    let mut lines = random_entries(n, 31);
    lines.extend(cdma_zvc::activation_lines(&cdma_zvc::shared_data()).0.into_iter().step_by(7).take(n));
    lines
}

/// Lock-step lines of both engines on `entries` under random bubbles and
/// backpressure (each run checked against golden first).
fn cdma_lockstep_lines(entries: &[MemoryEntry]) -> [(&'static str, Vec<String>); 2] {
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    let (mut c, mut d) = (Vec::new(), Vec::new());
    cdma_zvc::run_compressor(buddy_hdl::Stages::DELIVERED, entries, Traffic::RANDOM, &mut rng, Some(&mut c), None).unwrap();
    cdma_zvc::run_decompressor(
        buddy_hdl::Stages::DELIVERED,
        &cdma_zvc::line_streams(entries),
        Traffic::RANDOM,
        &mut rng,
        Some(&mut d),
        None,
    )
    .unwrap();
    [("cdma_zvc_compressor", c), ("cdma_zvc_decompressor", d)]
}

/// `lines` with the last digit of the middle line flipped: an output
/// compared on every cycle (`out_stream_bits`, `out_last`).
fn one_wrong_expectation(lines: &[String]) -> Vec<String> {
    let mut wrong = lines.to_vec();
    let k = lines.len() / 2;
    let last = wrong[k].pop().unwrap();
    wrong[k].push(if last == '0' { '1' } else { '0' });
    wrong
}

/// Replay `lines` (and, when `check_failure`, the same with one wrong
/// expectation, which must fail) through `module`'s Verilog in Icarus, and
/// in Verilator when `verilator`.
fn cdma_replays(module: &str, lines: &[String], verilator: bool, check_failure: bool) {
    let work = work_dir(&format!("cosim-{module}-{}", if verilator { "verilator" } else { "icarus" }));
    let file = work.join("lines.hex");
    let dir = verilog_out_dir();
    let (verilog, tb) = (dir.join(format!("{module}.v")), dir.join(format!("tb/{module}_tb.v")));
    let plusargs = [format!("+vectors={}", file.display()), format!("+count={}", lines.len())];
    let exe = verilator.then(|| build_verilator(module, &verilog, &tb, &work).unwrap());
    let run = |text: &[String]| {
        std::fs::write(&file, text.join("\n") + "\n").unwrap();
        match &exe {
            Some(exe) => run_verilated(module, exe, &plusargs).unwrap(),
            None => run_icarus_with(module, &verilog, &tb, &plusargs, &work).unwrap(),
        }
    };
    let report = run(lines);
    assert_eq!((report.passed, report.failed), (lines.len(), 0), "{}", report.log);
    eprintln!("{}: {module} in lock step for {} cycles", if verilator { "Verilator" } else { "Icarus" }, lines.len());
    if check_failure {
        let report = run(&one_wrong_expectation(lines));
        assert_eq!((report.passed, report.failed), (lines.len() - 1, 1), "{}", report.log);
    }
    std::fs::remove_dir_all(work).ok();
}

/// cDMA's engines' Verilog replays, port by port and cycle by cycle, a
/// rust-hdl run of 300 random and up to 300 activation lines in Icarus
/// (`make cosim`: 5,000 of each); a wrong expectation must fail.
#[test]
fn icarus_runs_cdma_zvc_engines_in_lock_step() {
    tool("iverilog");
    for (module, lines) in cdma_lockstep_lines(&cdma_cosim_lines(300)) {
        cdma_replays(module, &lines, false, true);
    }
}

/// The same run in Verilator (a build of each engine takes about 15 s).
#[test]
fn verilator_runs_cdma_zvc_engines_in_lock_step() {
    tool("verilator");
    for (module, lines) in cdma_lockstep_lines(&cdma_cosim_lines(300)) {
        cdma_replays(module, &lines, true, true);
    }
}

/// 5,000 random and 5,000 activation lines through both engines in both
/// simulators (`make cosim`).
#[test]
#[ignore = "make cosim: 10,000 lines through both engines in Icarus and Verilator"]
fn cdma_zvc_engines_run_10_000_lines_in_lock_step() {
    tool("iverilog");
    tool("verilator");
    for (module, lines) in cdma_lockstep_lines(&cdma_cosim_lines(5_000)) {
        cdma_replays(module, &lines, false, false);
        cdma_replays(module, &lines, true, false);
    }
}

/// Lock-step lines of the pipelined slice built with `algorithm`:
/// `requests` mixed requests and a flush, memory answering within 20
/// cycles out of order, every output compared on every cycle.
fn pipelined_lockstep_lines(algorithm: HardwareCodec, requests: usize) -> Vec<String> {
    let (run, lines) = buddy_delivery::pipelined_controller::lockstep_lines(algorithm, 30, requests, 0.4, 20).unwrap();
    assert!(run.reads > requests / 3 && run.writes + run.partial_writes > requests / 4, "{run:?}");
    lines
}

/// The delivered pipelined slices' Verilog (BPC, ZVC, MAG-BDI 32) replays
/// a rust-hdl run of 400 mixed requests and a flush in lock step in Icarus.
#[test]
fn icarus_runs_pipelined_controllers_in_lock_step() {
    tool("iverilog");
    for algorithm in [HardwareCodec::Bpc, HardwareCodec::Zvc, HardwareCodec::MagBdi(Mag::B32)] {
        let module = buddy_delivery::pipelined_controller::module(algorithm);
        let lines = pipelined_lockstep_lines(algorithm, 400);
        let work = work_dir(&format!("icarus-{module}"));
        let vectors = work.join("lines.hex");
        std::fs::write(&vectors, lines.join("\n") + "\n").unwrap();
        let dir = verilog_out_dir();
        let plusargs = [format!("+vectors={}", vectors.display()), format!("+count={}", lines.len())];
        let report =
            run_icarus_with(module, &dir.join(format!("{module}.v")), &dir.join(format!("tb/{module}_tb.v")), &plusargs, &work).unwrap();
        assert_eq!((report.passed, report.failed), (lines.len(), 0), "{algorithm:?}: {}", report.log);
        eprintln!("Icarus: {module} in lock step for {} cycles", lines.len());
        std::fs::remove_dir_all(work).ok();
    }
}

/// The delivered pipelined slices' Verilog in lock step in Verilator
/// (`make cosim`: a Verilator build of each slice takes minutes); a
/// wrong expectation must fail.
#[test]
#[ignore = "make cosim: three Verilator builds of a pipelined slice, minutes each"]
fn verilator_runs_pipelined_controllers_in_lock_step() {
    tool("verilator");
    // BUDDY_COSIM_SLICES (e.g. `pipelined_controller_zvc`): only the named
    // slices, each build taking minutes.
    let only = std::env::var("BUDDY_COSIM_SLICES").ok();
    let mut ran = 0;
    for algorithm in [HardwareCodec::Bpc, HardwareCodec::Zvc, HardwareCodec::MagBdi(Mag::B32)] {
        let module = buddy_delivery::pipelined_controller::module(algorithm);
        if only.as_ref().is_some_and(|o| !o.split(',').any(|m| m == module)) {
            continue;
        }
        ran += 1;
        let lines = pipelined_lockstep_lines(algorithm, variant_requests().max(100));
        let work = work_dir(&format!("verilator-{module}"));
        let file = work.join("lines.hex");
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        let dir = verilog_out_dir();
        let exe = build_verilator(module, &dir.join(format!("{module}.v")), &dir.join(format!("tb/{module}_tb.v")), &work).unwrap();
        let plusargs = [format!("+vectors={}", file.display()), format!("+count={}", lines.len())];
        let report = run_verilated(module, &exe, &plusargs).unwrap();
        assert_eq!((report.passed, report.failed), (lines.len(), 0), "{algorithm:?}: {}", report.log);
        eprintln!("Verilator: {module} in lock step for {} cycles", lines.len());
        // A wrong expectation must fail: flip the expected `md_lookup_valid`
        // (compared on every cycle; the 4th hex digit from a line's end,
        // before `md_lookup_id` and `md_lookup_outcome`) of one cycle.
        let k = lines.len() / 2;
        let mut wrong = lines.clone();
        let at = wrong[k].len() - 4;
        let flipped = if &wrong[k][at..at + 1] == "0" { "1" } else { "0" };
        wrong[k].replace_range(at..at + 1, flipped);
        std::fs::write(&file, wrong.join("\n") + "\n").unwrap();
        let report = run_verilated(module, &exe, &plusargs).unwrap();
        assert_eq!((report.passed, report.failed), (lines.len() - 1, 1), "{}", report.log);
        std::fs::remove_dir_all(work).ok();
    }
    assert!(ran > 0, "BUDDY_COSIM_SLICES={only:?} names no pipelined slice");
}

/// Every `.v` file of `verilog-out/`, with its text.
fn verilog_files() -> Vec<(PathBuf, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(verilog_out_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "v"))
        .collect();
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap())).collect()
}

/// Event-driven simulators need every signal that crosses a module boundary
/// assigned once per evaluation (`buddy_hdl::verilog::single_assignment`).
#[test]
fn every_crossing_signal_is_assigned_once_per_evaluation() {
    let files = verilog_files();
    assert!(files.len() >= HwModule::all().len());
    for (path, text) in files {
        let repeated = buddy_hdl::verilog::repeated_crossing_assignments(&text).unwrap();
        assert!(repeated.is_empty(), "{}: {repeated:?}", path.display());
    }
}

/// The lock-step lines of the BuddyController built with `algorithm`: a
/// buddy-mode run of `requests` requests over every target ratio and an
/// uncompressed one, every output compared on every simulated cycle.
fn controller_lockstep_lines(algorithm: HardwareCodec, requests: usize) -> Vec<String> {
    let entries = controller::mixed_entries(&cosim_entries(), 7);
    let lines = controller::lockstep_lines(algorithm, &entries, requests, 150_000).unwrap();
    assert!(lines.len() > 10 * requests, "{} lines", lines.len());
    lines
}

/// Requests per lock-step run of the ZVC and MAG-BDI slices in `make test`
/// (`BUDDY_COSIM_REQUESTS` overrides it; `make cosim` runs 300).
fn variant_requests() -> usize {
    std::env::var("BUDDY_COSIM_REQUESTS").ok().and_then(|v| v.parse().ok()).unwrap_or(60)
}

/// Build the lock-step testbench of the slice built with `algorithm` in
/// Verilator, replay `lines`; returns the report.
fn verilate_lockstep(algorithm: HardwareCodec, lines: &[String], work: &Path) -> (PathBuf, Vec<String>) {
    let module = controller::module(algorithm);
    let file = work.join("lines.hex");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let dir = verilog_out_dir();
    let exe = build_verilator(module, &dir.join(format!("{module}.v")), &dir.join(format!("tb/{module}_tb.v")), work).unwrap();
    (exe, vec![format!("+vectors={}", file.display()), format!("+count={}", lines.len())])
}

/// The emitted BuddyController (BPC) in lock step with its rust-hdl
/// simulation, in Verilator; a wrong expectation must fail (`make cosim`:
/// the Verilator build of the BPC slice takes about 7 minutes; `make test`
/// runs the slice in lock step in Icarus).
#[test]
#[ignore = "make cosim: a Verilator build of the BPC serial slice, about 7 minutes"]
fn verilator_runs_buddy_controller_verilog_in_lock_step() {
    tool("verilator");
    let lines = controller_lockstep_lines(HardwareCodec::Bpc, 300);
    let work = work_dir("cosim-bc");
    let (exe, plusargs) = verilate_lockstep(HardwareCodec::Bpc, &lines, &work);
    let report = run_verilated("buddy_controller", &exe, &plusargs).unwrap();
    assert_eq!((report.passed, report.failed), (lines.len(), 0), "{}", report.log);
    eprintln!("Verilator: buddy_controller in lock step for {} cycles", lines.len());
    // A wrong expectation must fail: flip the expected `buddy_resp_ready`
    // (the line's last digit, compared on every cycle) of one cycle.
    let mut wrong = lines.clone();
    let last = wrong[100].pop().unwrap();
    wrong[100].push(if last == '0' { '1' } else { '0' });
    std::fs::write(work.join("lines.hex"), wrong.join("\n") + "\n").unwrap();
    let report = run_verilated("buddy_controller", &exe, &plusargs).unwrap();
    assert_eq!((report.passed, report.failed), (lines.len() - 1, 1), "{}", report.log);
    std::fs::remove_dir_all(work).ok();
}

/// The ZVC and MAG-BDI slices' Verilog in lock step in Verilator (`make
/// cosim`; `make test` runs all three slices in Icarus).
#[test]
#[ignore = "make cosim: two Verilator builds of a slice, minutes each"]
fn verilator_runs_zvc_and_mag_bdi_controllers_verilog_in_lock_step() {
    tool("verilator");
    for algorithm in [HardwareCodec::Zvc, HardwareCodec::MagBdi(Mag::B32)] {
        let lines = controller_lockstep_lines(algorithm, variant_requests());
        let work = work_dir(&format!("cosim-{}", controller::module(algorithm)));
        let (exe, plusargs) = verilate_lockstep(algorithm, &lines, &work);
        let report = run_verilated(controller::module(algorithm), &exe, &plusargs).unwrap();
        assert_eq!((report.passed, report.failed), (lines.len(), 0), "{algorithm}: {}", report.log);
        eprintln!("Verilator: {} in lock step for {} cycles", controller::module(algorithm), lines.len());
        std::fs::remove_dir_all(work).ok();
    }
}

/// Every slice's Verilog in lock step in Icarus, an event-driven simulator
/// (before every crossing signal was assigned once per evaluation, Icarus
/// hung at cycle 13 of the BPC slice).
#[test]
fn icarus_runs_buddy_controllers_verilog_in_lock_step() {
    tool("iverilog");
    for (algorithm, requests) in
        [(HardwareCodec::Bpc, 300), (HardwareCodec::Zvc, variant_requests()), (HardwareCodec::MagBdi(Mag::B32), variant_requests())]
    {
        let module = controller::module(algorithm);
        let lines = controller_lockstep_lines(algorithm, requests);
        let work = work_dir(&format!("icarus-{module}"));
        let file = work.join("lines.hex");
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        let dir = verilog_out_dir();
        let plusargs = [format!("+vectors={}", file.display()), format!("+count={}", lines.len())];
        let report =
            run_icarus_with(module, &dir.join(format!("{module}.v")), &dir.join(format!("tb/{module}_tb.v")), &plusargs, &work).unwrap();
        assert_eq!((report.passed, report.failed), (lines.len(), 0), "{algorithm}: {}", report.log);
        eprintln!("Icarus: {module} in lock step for {} cycles", lines.len());
        std::fs::remove_dir_all(work).ok();
    }
}

#[test]
fn filelist_and_core_name_every_module() {
    let dir = verilog_out_dir();
    let f = std::fs::read_to_string(dir.join("buddy_hdl.f")).unwrap();
    let core = std::fs::read_to_string(dir.join("buddy_hdl.core")).unwrap();
    for m in HwModule::all().iter().map(|m| m.ports()) {
        let file = format!("{}.v", m.module);
        assert!(f.lines().any(|l| l == file), "{file} missing from buddy_hdl.f");
        assert!(core.contains(&format!("- {file}")), "{file} missing from buddy_hdl.core");
        assert!(Path::new(&dir.join(&file)).exists());
    }
}

/// `verilog-out/synth/report.json` was made from the current Verilog
/// (it records a hash of each module's text): rerun `make synth` otherwise.
#[test]
fn synthesis_report_is_current() {
    let dir = verilog_out_dir();
    let report = std::fs::read_to_string(dir.join("synth/report.json")).expect("verilog-out/synth/report.json: run `make synth`");
    for m in HwModule::all().iter().map(|m| m.ports()) {
        let verilog = std::fs::read_to_string(dir.join(format!("{}.v", m.module))).unwrap();
        let hash = buddy_delivery::delivery::verilog_hash(&verilog);
        assert!(
            report.contains(&format!("\"verilog_sha256\": \"{hash}\"")),
            "synthesis report of {} is stale: run `make synth` and commit verilog-out/synth/",
            m.module
        );
    }
}

/// Every module and stage of the synthesis report has its logic depth,
/// counted by the project's netlist walk, and the Fmax estimate the
/// report gives is the one its deepest path implies.
#[test]
fn synthesis_report_gives_lut_levels_and_fmax_of_every_module() {
    use buddy_delivery::lut_levels::LutLevels;
    let text = std::fs::read_to_string(verilog_out_dir().join("synth/report.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let entries = report.as_array().unwrap();
    for m in HwModule::all() {
        assert!(entries.iter().any(|e| e["module"] == m.name()), "{} is not in the report", m.name());
    }
    for e in entries {
        let name = e["module"].as_str().unwrap();
        let levels: LutLevels =
            serde_json::from_value(e["lut_levels"].clone()).unwrap_or_else(|err| panic!("{name}: no LUT levels ({err}): run `make synth`"));
        let deepest = levels.clocked().unwrap_or_else(|| panic!("{name}: no path at all"));
        assert!(deepest.luts >= 1, "{name}: {deepest:?}");
        let fmax = e["estimated_fmax_mhz"].as_f64().unwrap_or_else(|| panic!("{name}: no Fmax estimate"));
        assert_eq!(fmax, deepest.estimated_fmax_mhz().round(), "{name}");
    }
}

/// Every module keeps to the budget in the synthesis report (issue #20; README,
/// "Logic depth"): at most 8 LUT levels register to register and input to
/// register, those built `Stages::EightLevels` included.
#[test]
fn modules_meet_eight_levels_in_the_synthesis_report() {
    use buddy_delivery::lut_levels::LutLevels;
    let text = std::fs::read_to_string(verilog_out_dir().join("synth/report.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let built = HwModule::all().iter().filter(|m| m.built_stages() == Some(buddy_hdl::Stages::EightLevels)).count();
    assert!(built > 0);
    for m in HwModule::all() {
        let entry = report
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["module"] == m.name())
            .unwrap_or_else(|| panic!("{} is not in the report", m.name()));
        let levels: LutLevels = serde_json::from_value(entry["lut_levels"].clone()).unwrap();
        let deepest = levels.to_register().unwrap_or_else(|| panic!("{}: no path to a register", m.name()));
        assert!(deepest.luts <= 8, "{}: {} LUT levels to a register ({:?})", m.name(), deepest, entry["critical_path"]);
    }
}

/// Compile `module`'s shipped testbench with its Verilog from `dir` (a
/// `verilog-out/` or a copy) and run `vvp` there with no plusargs: the
/// testbench reads `vectors/`. Returns (exit success, log).
fn run_shipped(dir: &Path, module: &str, work: &Path) -> (bool, String) {
    let exe = work.join(format!("{module}.vvp"));
    let out = Command::new(tool("iverilog"))
        .current_dir(dir)
        .args(["-g2005", "-o"])
        .arg(&exe)
        .args([format!("tb/{module}_tb.v"), format!("{module}.v")])
        .output()
        .unwrap();
    assert!(out.status.success(), "iverilog {module}: {}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(tool("vvp")).current_dir(dir).arg("-n").arg(&exe).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

/// The delivery runs on its own: every module's testbench, run from
/// `verilog-out/` with no arguments, replays the shipped vectors and passes.
#[test]
fn every_shipped_testbench_passes_from_verilog_out_alone() {
    let work = work_dir("shipped");
    for m in HwModule::all() {
        let (ok, log) = run_shipped(&verilog_out_dir(), m.name(), &work);
        let line = format!("{}: ", m.name());
        let result = log.lines().find(|l| l.starts_with(&line) && l.ends_with(" failed")).unwrap_or_else(|| panic!("{log}"));
        assert!(ok && result.ends_with(" 0 failed") && !result.starts_with(&format!("{line}0 passed")), "{}:\n{log}", m.name());
    }
    std::fs::remove_dir_all(work).ok();
}

/// A wrong expectation in a shipped vector makes the testbench exit non-zero
/// (`$fatal`), so scripts and FuseSoC see the failure.
#[test]
fn a_failing_shipped_vector_exits_non_zero() {
    let work = work_dir("shipped-fail");
    let copy = work.join("delivery");
    std::fs::create_dir_all(copy.join("tb")).unwrap();
    std::fs::create_dir_all(copy.join("vectors")).unwrap();
    let m = "zvc_compressor";
    for f in [format!("{m}.v"), format!("tb/{m}_tb.v")] {
        std::fs::copy(verilog_out_dir().join(&f), copy.join(&f)).unwrap();
    }
    let vectors = std::fs::read_to_string(verilog_out_dir().join(format!("vectors/{m}.hex"))).unwrap();
    // The last hex digit of the first line is part of the expected stream length.
    let mut lines: Vec<String> = vectors.lines().map(String::from).collect();
    let last = lines[0].pop().unwrap();
    lines[0].push(if last == '0' { '1' } else { '0' });
    std::fs::write(copy.join(format!("vectors/{m}.hex")), lines.join("\n") + "\n").unwrap();
    let (ok, log) = run_shipped(&copy, m, &work);
    assert!(!ok && log.contains(&format!("{m}: {} passed, 1 failed", lines.len() - 1)), "{log}");
    std::fs::remove_dir_all(work).ok();
}

/// `fusesoc` from PyPI (pinned, in a virtual environment under `target/`)
/// runs the core's lint and Icarus targets of one module.
#[test]
fn fusesoc_runs_the_core_lint_and_sim_targets() {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/fusesoc-venv");
    let fusesoc = venv.join("bin/fusesoc");
    if !fusesoc.exists() {
        let python = tool("python3");
        let made = Command::new(&python).args(["-m", "venv"]).arg(&venv).output().unwrap();
        assert!(made.status.success(), "python3 -m venv (Debian python3-venv, `make deps`): {}", String::from_utf8_lossy(&made.stderr));
        let pip = Command::new(venv.join("bin/pip")).args(["install", "-q", "fusesoc==2.4.7"]).output().unwrap();
        assert!(pip.status.success(), "pip install fusesoc: {}", String::from_utf8_lossy(&pip.stderr));
    }
    let work = work_dir("fusesoc");
    for target in ["lint_zvc_compressor", "sim_zvc_compressor", "sim_zvc_compressor_axis", "sim_read_planner"] {
        let out = Command::new(&fusesoc)
            .current_dir(&work)
            .arg("--cores-root")
            .arg(verilog_out_dir())
            .args(["run", "--target", target, "buddy-hw:buddy:buddy_hdl"])
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "fusesoc {target}:\n{log}");
        if let Some(m) = target.strip_prefix("sim_") {
            assert!(log.contains(&format!("{m}: ")) && log.contains(" 0 failed"), "fusesoc {target}:\n{log}");
        }
    }
    std::fs::remove_dir_all(work).ok();
}

/// Every codec's AXI4-Stream wrapper is lint-clean and replays the codec's
/// shipped vectors through its own testbench in Icarus (tdata and tuser
/// mapped as the wrapper's header says), and the core names it.
#[test]
fn axi4_stream_wrappers_lint_and_cosimulate() {
    let dir = verilog_out_dir();
    let work = work_dir("axis");
    let core = std::fs::read_to_string(dir.join("buddy_hdl.core")).unwrap();
    let wrapped = buddy_delivery::axis::wrapped();
    assert_eq!(wrapped.len(), 10);
    for m in wrapped {
        let w = buddy_delivery::axis::name(m.name());
        let out = Command::new(tool("verilator"))
            .current_dir(&dir)
            .args(["--lint-only", "-Wall", "verilator.vlt"])
            .args([format!("{w}.v"), format!("{}.v", m.name()), "--top-module".into(), w.clone()])
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !log.contains("%Warning") && !log.contains("%Error"), "{w}:\n{log}");
        let exe = work.join(format!("{w}.vvp"));
        let out = Command::new(tool("iverilog"))
            .current_dir(&dir)
            .args(["-g2005", "-Wall", "-o"])
            .arg(&exe)
            .args([format!("tb/{w}_tb.v"), format!("{w}.v"), format!("{}.v", m.name())])
            .output()
            .unwrap();
        assert!(out.status.success(), "iverilog {w}: {}", String::from_utf8_lossy(&out.stderr));
        let out = Command::new(tool("vvp")).current_dir(&dir).arg("-n").arg(&exe).output().unwrap();
        let log = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && log.contains(&format!("{w}: ")) && log.contains(" 0 failed"), "{w}:\n{log}");
        assert!(core.contains(&format!("  sim_{w}:\n")) && core.contains(&format!("- {w}.v")), "{w} missing from buddy_hdl.core");
    }
    std::fs::remove_dir_all(work).ok();
}

/// Every delivered module's file opens with its interface: every port with
/// its direction and width, latency or handshake notes, reset and the
/// pointer to the bit formats.
#[test]
fn every_verilog_file_documents_its_interface() {
    let dir = verilog_out_dir();
    for m in HwModule::all() {
        let text = std::fs::read_to_string(dir.join(format!("{}.v", m.name()))).unwrap();
        let header: String = text.lines().take_while(|l| l.starts_with("//")).map(|l| format!("{l}\n")).collect();
        let ports = buddy_delivery::interface::ports(&text, m.name());
        assert!(ports.len() >= 4, "{}: {ports:?}", m.name());
        for (dir, bits, name) in &ports {
            assert!(
                header.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["//", name, dir, &bits.to_string()]),
                "{}: port {name} missing from the header:\n{header}",
                m.name()
            );
        }
        assert!(header.contains("Reset: synchronous, active high") && header.contains("docs/formats.md"), "{}", m.name());
    }
}
