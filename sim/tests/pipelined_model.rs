//! The fast engine's timing of the pipelined slice (its cycle model,
//! `buddy-hdl-model`) against the RTL engine (the `PipelinedController`
//! simulated in rust-hdl) on the bundled real trace: every slice shows the
//! same control ports on every cycle (requests taken, responses with
//! their context, every memory request with its address and tag, memory
//! answers taken, metadata lookups, requests held), so every request
//! completes on the same cycle, and the runs' statistics are identical.
//!
//! Its own test binary: the control-port traces are switched on with the
//! `BUDDY_SLICE_TRACE` environment variable, which is process-wide.

use std::path::{Path, PathBuf};

use buddy_golden::{Algorithm, Mag};
use buddy_sim::config::{SimConfig, SliceTiming};
use buddy_sim::memory_system::{run, Mode, RtlOptions, SimInput, SimReport};
use buddy_sim::trace::Trace;
use buddy_sim::Workload;

fn traced_run(input: &SimInput, dir: &Path) -> SimReport {
    std::fs::create_dir_all(dir).unwrap();
    std::env::set_var("BUDDY_SLICE_TRACE", dir);
    let r = run(input).unwrap();
    std::env::remove_var("BUDDY_SLICE_TRACE");
    r
}

#[test]
fn the_cycle_model_shows_the_rtl_engines_ports_on_every_cycle() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small");
    let (w, mut t) = (Workload::open(&p).unwrap(), Trace::open(&p).unwrap());
    t.accesses.truncate(40_000);
    let rtl_config = SimConfig::default();
    let mut model_config = SimConfig::default();
    model_config.system.slice_timing = SliceTiming::Hardware;
    let scratch = tempfile_dir();
    for (algorithm, mode) in
        [(Algorithm::Zvc, Mode::Buddy), (Algorithm::MagBdi(Mag::B32), Mode::BandwidthOnly), (Algorithm::Bpc, Mode::Uncompressed)]
    {
        let input = |config, rtl| SimInput {
            workload: &w,
            trace: &t,
            targets: None,
            snapshot: 0,
            algorithm,
            mode,
            config,
            corrupt_first_entry: false,
            progress: None,
            rtl,
            iterations: 1,
        };
        let case = format!("{algorithm} {mode:?}");
        let (rtl_dir, model_dir) = (scratch.join(format!("{case}-rtl")), scratch.join(format!("{case}-model")));
        let rtl = traced_run(&input(&rtl_config, Some(RtlOptions::default())), &rtl_dir);
        let model = traced_run(&input(&model_config, None), &model_dir);
        assert_eq!((rtl.slice_timing.as_str(), model.slice_timing.as_str()), ("pipelined hardware", "pipelined hardware"));
        assert!(rtl.requests > 300 && model.checked_reads == model.reads, "{case}");

        let mut cycles = 0;
        for slice in 0..rtl_config.system.slices {
            let read = |dir: &Path, what: &str| std::fs::read_to_string(dir.join(format!("{what}-slice{slice}.txt"))).unwrap();
            let (a, b) = (read(&rtl_dir, "rtl"), read(&model_dir, "model"));
            let first = a.lines().zip(b.lines()).position(|(x, y)| x != y);
            assert!(first.is_none(), "{case}, slice {slice}: line {first:?}\nRTL:   {:?}\nmodel: {:?}", a.lines().nth(first.unwrap_or(0)), b.lines().nth(first.unwrap_or(0)));
            assert_eq!(a.lines().count(), b.lines().count(), "{case}, slice {slice}");
            cycles += a.lines().count();
        }
        // (2,852 on the shortest case since the row-major HBM2 mapping; 3,000+ before.)
        assert!(cycles > 2_000, "{case}: {cycles} slice cycles compared");

        assert_eq!(rtl.time_ns, model.time_ns, "{case}");
        assert_eq!((rtl.read_latency_mean_ns, rtl.read_latency_p99_ns), (model.read_latency_mean_ns, model.read_latency_p99_ns), "{case}");
        assert_eq!((rtl.device, rtl.link, rtl.metadata, rtl.buddy_requests), (model.device, model.link, model.metadata, model.buddy_requests), "{case}");
        assert_eq!(rtl.epochs, model.epochs, "{case}");
        assert_eq!(rtl.pipelined_slice, model.pipelined_slice, "{case}");
        assert_eq!(rtl.read_split, model.read_split, "{case}");
        // The reads that moved data, cut in three, are a share of the time the contexts were held.
        let (split, stats) = (model.read_split.expect("the pipelined slice's read split"), model.pipelined_slice.expect("the model's counters"));
        let cycle_ps = rtl_config.cycle_ps();
        let cut = (split.to_memory_ps + split.memory_ps + split.after_memory_ps) as f64 / cycle_ps;
        assert!(split.reads > 0 && split.reads <= model.reads && split.memory_ps > 0, "{case}: {split:?}");
        assert!(cut <= stats.context_cycles as f64 * 1.001, "{case}: {cut} cycles of {}", stats.context_cycles);
        // The model's diagnosis covers every cycle the hardware left a request waiting.
        let waits = model.accept_waits.as_ref().expect("the model's diagnosis");
        let stalls = rtl.pipelined_slice.expect("pipelined statistics").accept_stall_cycles;
        assert!(stalls > 0 && waits.values().sum::<u64>() == stalls, "{case}: {waits:?} vs {stalls}");
    }
}

/// A fresh folder under the target directory for this run's traces.
fn tempfile_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pipelined-model-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}
