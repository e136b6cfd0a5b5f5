//! The RTL engine's recording of a pipelined slice replays in the
//! delivered Verilog: slice 0 of a memory-system run of the bundled trace
//! (every port on every cycle from reset, idle cycles clocked), driven and
//! compared cycle by cycle by Icarus.

use buddy_delivery::cosim::run_icarus_with;
use buddy_delivery::delivery::verilog_out_dir;
use buddy_golden::Algorithm;
use buddy_hdl::pipelined_controller::LOCKSTEP_INPUTS;
use buddy_sim::config::{RtlSlice, SimConfig};
use buddy_sim::memory_system::{run, Mode, RtlOptions, SimInput, SimReport};
use buddy_sim::trace::Trace;
use buddy_sim::Workload;
use std::path::Path;

fn rtl_run(w: &Workload, t: &Trace, config: &SimConfig, lockstep: Option<(usize, usize)>) -> SimReport {
    run(&SimInput {
        workload: w,
        trace: t,
        targets: None,
        snapshot: 0,
        algorithm: Algorithm::Bpc,
        mode: Mode::Buddy,
        config,
        progress: None,
        corrupt_first_entry: false,
        rtl: Some(RtlOptions { vcd: None, no_skip: false, lockstep }),
        iterations: 1,
    })
    .unwrap()
}

/// Buddy mode, BPC, the first 4,000 accesses: the recording run is timed
/// exactly as one that does not record, Icarus replays the recorded
/// cycles of `pipelined_controller.v` with no output differing, and one
/// flipped expectation is one failure.
#[test]
fn icarus_replays_slice_0_of_a_pipelined_rtl_run() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small");
    let w = Workload::open(&p).unwrap();
    let mut t = Trace::open(&p).unwrap();
    t.accesses.truncate(4_000);
    let config = SimConfig::default();
    assert_eq!(config.system.rtl_slice, RtlSlice::Pipelined);
    let plain = rtl_run(&w, &t, &config, None);
    let recorded = rtl_run(&w, &t, &config, Some((0, 50_000)));
    assert_eq!(plain.dram_cycles, recorded.dram_cycles);
    assert!(plain.lockstep_lines.is_empty());
    let lines = recorded.lockstep_lines;
    assert!(lines.len() > 200 && lines.len() < 50_000, "{} lines", lines.len());

    let work = std::env::temp_dir().join(format!("buddy-rtl-lockstep-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let vectors = work.join("lines.hex");
    std::fs::write(&vectors, lines.join("\n") + "\n").unwrap();
    let dir = verilog_out_dir();
    let module = "pipelined_controller";
    let plusargs = [format!("+vectors={}", vectors.display()), format!("+count={}", lines.len())];
    let report =
        run_icarus_with(module, &dir.join(format!("{module}.v")), &dir.join(format!("tb/{module}_tb.v")), &plusargs, &work).unwrap();
    assert_eq!((report.passed, report.failed), (lines.len(), 0), "{}", report.log);
    eprintln!("Icarus replayed {} cycles of slice 0", lines.len());

    // The replay can fail: one cycle's `req_ready` (the first output, always
    // compared) flipped is one failure.
    let at: usize = LOCKSTEP_INPUTS.iter().map(|(_, bits)| bits.div_ceil(4)).sum();
    let mut wrong = lines.clone();
    let line = &mut wrong[lines.len() / 2];
    let flipped = if &line[at..at + 1] == "0" { "1" } else { "0" };
    line.replace_range(at..at + 1, flipped);
    std::fs::write(&vectors, wrong.join("\n") + "\n").unwrap();
    let report =
        run_icarus_with(module, &dir.join(format!("{module}.v")), &dir.join(format!("tb/{module}_tb.v")), &plusargs, &work).unwrap();
    assert_eq!((report.passed, report.failed), (lines.len() - 1, 1), "{}", report.log);
    std::fs::remove_dir_all(work).ok();
}
