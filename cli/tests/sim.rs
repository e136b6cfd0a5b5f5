//! `buddy sim` as a process on the bundled workload's trace, and its bad inputs.

use std::fs;

use serde_json::Value;

mod common;
use common::{buddy, bundled, bundled_copy_with_trace, edit_json, failure, stdout};

#[test]
fn all_modes_run_and_the_files_agree() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sim");
    let text = stdout(&buddy(&["sim", bundled().to_str().unwrap(), "--out", out.to_str().unwrap()]));
    // A line per mode, every read checked against the shadow memory.
    common::without_dir(dir.path()).bind(|| insta::assert_snapshot!("sim_table_of_the_bundled_trace", text));
    let reports: Vec<Value> = serde_json::from_slice(&fs::read(out.join("sim.json")).unwrap()).unwrap();
    assert_eq!(reports.len(), 3);
    for r in &reports {
        assert_eq!(r["checked_reads"], r["reads"]);
        // The same write-backs; the uncompressed mode's L2 fills sectors, so it reads more often.
        assert_eq!(r["writes"], reports[0]["writes"]);
        assert!(r["requests"].as_u64() <= reports[0]["requests"].as_u64());
        assert_eq!(r["engine"], "fast");
    }
    let csv = fs::read_to_string(out.join("sim.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4);
    assert!(csv.starts_with("workload,mode,algorithm,link_gbps,"));
    // The effective configuration is written and reads back as a config.
    let config = out.join("config.toml");
    let again = dir.path().join("again");
    stdout(&buddy(&["sim", "--mode", "buddy", "--config", config.to_str().unwrap(), "--out", again.to_str().unwrap()]));
    let one: Vec<Value> = serde_json::from_slice(&fs::read(again.join("sim.json")).unwrap()).unwrap();
    assert_eq!(one[0]["time_ns"], reports[2]["time_ns"]);
    assert!(fs::read_to_string(out.join("epochs.csv")).unwrap().lines().count() > 3);
}

#[test]
fn link_bandwidth_and_annotation_change_the_buddy_run() {
    let dir = tempfile::tempdir().unwrap();
    let ann = dir.path().join("t.json");
    fs::write(&ann, r#"{"format": "buddy-targets/1", "workload": "minife", "default_target": "4x", "allocations": []}"#).unwrap();
    let run = |extra: &[&str]| -> Value {
        let out = dir.path().join("o");
        let mut args = vec!["sim", "--mode", "buddy", "--json", "--out", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let v: Value = serde_json::from_str(&stdout(&buddy(&args))).unwrap();
        v[0].clone()
    };
    let fast = run(&["--annotation", ann.to_str().unwrap()]);
    let slow = run(&["--annotation", ann.to_str().unwrap(), "--link-gbps", "5"]);
    let two = run(&[]);
    assert!(fast["buddy_requests"].as_u64().unwrap() > two["buddy_requests"].as_u64().unwrap());
    assert!(slow["time_ns"].as_f64().unwrap() > fast["time_ns"].as_f64().unwrap());
    assert!(fast["compression_ratio"].as_f64().unwrap() > 2.0);
}

#[test]
fn iterations_replay_the_trace_back_to_back() {
    let dir = tempfile::tempdir().unwrap();
    let run = |n: &str| -> Value {
        let out = dir.path().join(format!("i{n}"));
        let v: Value =
            serde_json::from_str(&stdout(&buddy(&["sim", "--mode", "buddy", "--iterations", n, "--json", "--out", out.to_str().unwrap()])))
                .unwrap();
        v[0].clone()
    };
    let (one, three) = (run("1"), run("3"));
    // Every read checked; the later passes find lines in the L2 and
    // metadata in its cache, so they issue at most as many memory requests
    // and take at most as long as the first.
    assert_eq!(three["checked_reads"], three["reads"]);
    let (d1, d3) = (one["reads"].as_u64().unwrap(), three["reads"].as_u64().unwrap());
    assert!(d3 > 2 * d1 && d3 <= 3 * d1, "{d1} reads then {d3}");
    let (r1, r3) = (one["requests"].as_u64().unwrap(), three["requests"].as_u64().unwrap());
    assert!(r3 > r1 && r3 <= 3 * r1, "{r1} then {r3}");
    let (t1, t3) = (one["time_ns"].as_f64().unwrap(), three["time_ns"].as_f64().unwrap());
    assert!(t3 > 1.5 * t1 && t3 <= 3.0 * t1, "{t1} ns then {t3} ns");
    let err = failure(&buddy(&["sim", "--iterations", "0", "--out", dir.path().join("z").to_str().unwrap()]));
    assert!(err.contains("iterations"), "{err}");
}

#[test]
fn bad_inputs_are_reported_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let o = out.to_str().unwrap();
    let cfg = dir.path().join("c.toml");
    fs::write(&cfg, "[nvlink]\ngbps = 50\nbandwith = 3\n").unwrap();
    let err = failure(&buddy(&["sim", "--config", cfg.to_str().unwrap(), "--out", o]));
    assert!(err.contains("line 3") && err.contains("bandwith"), "{err}");
    fs::write(&cfg, "[hbm]\nt_rcd = 0\n").unwrap();
    let err = failure(&buddy(&["sim", "--config", cfg.to_str().unwrap(), "--out", o]));
    assert!(err.contains("hbm.t_rcd"), "{err}");
    let err = failure(&buddy(&["sim", "--link-gbps", "0", "--out", o]));
    assert!(err.contains("nvlink.gbps"), "{err}");
    let err = failure(&buddy(&["sim", "--engine", "rtl", "--slice-timing", "paper", "--out", o]));
    assert!(err.contains("--slice-timing paper is for the fast engine"), "{err}");
    let err = failure(&buddy(&["sim", "--rtl-slice", "serial", "--out", o]));
    assert!(err.contains("--rtl-slice serial is for --engine rtl"), "{err}");
    // BDI has no rust-hdl hardware: the RTL engine and the hardware timing refuse it by name.
    let err = failure(&buddy(&["sim", "--engine", "rtl", "--algo", "bdi", "--out", o]));
    assert!(err.contains("--engine rtl with --algo bdi") && err.contains("bdi has no rust-hdl hardware"), "{err}");
    let err = failure(&buddy(&["sim", "--slice-timing", "hardware", "--algo", "bdi", "--out", o]));
    assert!(err.contains("with --algo bdi") && err.contains("bdi has no rust-hdl hardware"), "{err}");
    assert!(!out.exists(), "a refused run writes nothing");
    fs::write(&cfg, "[system]\nrtl_slice = \"fast\"\n").unwrap();
    let err = failure(&buddy(&["sim", "--config", cfg.to_str().unwrap(), "--out", o]));
    assert!(err.contains("system.rtl_slice"), "{err}");
    let err = failure(&buddy(&["sim", "--snapshot", "7", "--out", o]));
    assert!(err.contains("no snapshot with index 7 (available: 0, 5)"), "{err}");
    let ann = dir.path().join("a.json");
    fs::write(&ann, r#"{"format": "buddy-targets/1", "workload": "minife", "allocations": [{"name": "nope", "target": "2x"}]}"#).unwrap();
    let err = failure(&buddy(&["sim", "--annotation", ann.to_str().unwrap(), "--out", o]));
    assert!(err.contains("'nope' is not an allocation"), "{err}");
    fs::write(&ann, r#"{"format": "buddy-targets/1", "workload": "hpgmg", "default_target": "2x", "allocations": []}"#).unwrap();
    let err = failure(&buddy(&["sim", "--annotation", ann.to_str().unwrap(), "--out", o]));
    assert!(err.contains("is for workload 'hpgmg', not 'minife'"), "{err}");
    // A trace allocation marked in_snapshot that the manifest lacks.
    let w = bundled_copy_with_trace();
    edit_json(w.path(), "trace_meta.json", |m| {
        let a = m["allocations"].as_array_mut().unwrap().iter_mut().find(|a| a["in_snapshot"] == true).unwrap();
        a["name"] = "renamed".into();
    });
    let err = failure(&buddy(&["sim", w.path().to_str().unwrap(), "--out", o]));
    assert!(err.contains("'renamed' is marked in_snapshot"), "{err}");
    // A trace record past its allocation names the record.
    let w = bundled_copy_with_trace();
    let mut trace = fs::read(w.path().join("trace.bin")).unwrap();
    trace[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    fs::write(w.path().join("trace.bin"), trace).unwrap();
    let err = failure(&buddy(&["sim", w.path().to_str().unwrap(), "--out", o]));
    assert!(err.contains("record 0"), "{err}");
    assert!(!out.join("sim.json").exists(), "nothing written on bad input");
}

#[test]
fn a_workload_without_a_trace_replays_a_snapshot_sweep() {
    let w = common::bundled_copy();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let run = buddy(&["sim", w.path().to_str().unwrap(), "--mode", "buddy", "--json", "--out", out.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&run.stderr).contains("snapshot sweep"));
    let v: Value = serde_json::from_str(&stdout(&run)).unwrap();
    let r = &v[0];
    assert_eq!(r["trace_source"], "snapshot-sweep");
    // Every memory-entry is read once (an L2 miss) and written back once,
    // in full except an allocation's last entry when its end leaves whole
    // sectors unwritten.
    let manifest: Value = serde_json::from_slice(&fs::read(w.path().join("manifest.json")).unwrap()).unwrap();
    let short_tails = manifest["snapshots"][0]["allocations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| (1..=96).contains(&(a["size"].as_u64().unwrap() % 128)))
        .count() as u64;
    let entries = r["checked_entries"].as_u64().unwrap();
    assert_eq!(
        (r["reads"].as_u64().unwrap(), r["writes"].as_u64().unwrap(), r["partial_writes"].as_u64().unwrap()),
        (entries, entries, short_tails)
    );
    assert_eq!(r["checked_reads"], r["reads"]);
    // Half a recorded trace is an error, not a sweep.
    fs::write(w.path().join("trace.bin"), [0u8; 12]).unwrap();
    let err = failure(&buddy(&["sim", w.path().to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(err.contains("trace_meta.json"), "{err}");
}

#[test]
fn speed_rejects_bad_limits_before_running() {
    let err = failure(&buddy(&["speed", "--max-lines", "0", "--out", "/nonexistent/x"]));
    assert!(err.contains("--max-lines 0 is outside 1..=200000"), "{err}");
    let err = failure(&buddy(&["speed", "--accesses", "0", "--out", "/nonexistent/x"]));
    assert!(err.contains("--accesses must be at least 1"), "{err}");
    let err = failure(&buddy(&["speed", "--rtl-slice", "fast", "--out", "/nonexistent/x"]));
    assert!(err.contains("'fast'") && err.contains("--rtl-slice"), "{err}");
}

#[test]
fn an_rtl_run_checks_itself_against_fast_mode_with_hardware_timing() {
    let w = bundled_copy_with_trace();
    let trace = fs::read(w.path().join("trace.bin")).unwrap();
    fs::write(w.path().join("trace.bin"), &trace[..12 * 15_000]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let text = stdout(&buddy(&[
        "sim",
        w.path().to_str().unwrap(),
        "--engine",
        "rtl",
        "--algo",
        "zvc",
        "--mode",
        "buddy",
        "--rtl-slice",
        "serial",
        "--out",
        out.to_str().unwrap(),
    ]));
    assert!(text.contains("RTL mode (BuddyController hardware in rust-hdl"), "{text}");
    assert!(text.contains("every statistic identical"), "{text}");
    let rows: Vec<Value> = serde_json::from_slice(&fs::read(out.join("agreement.json")).unwrap()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["identical_statistics"], true);
    assert_eq!(rows[0]["rtl_dram_cycles"], rows[0]["fast_dram_cycles"]);
    let reports: Vec<Value> = serde_json::from_slice(&fs::read(out.join("sim.json")).unwrap()).unwrap();
    assert_eq!((reports[0]["engine"].as_str(), reports[0]["slice_timing"].as_str()), (Some("rtl"), Some("hardware")));
    assert!(reports[0]["rtl_cycles_per_second"].as_f64().unwrap() > 0.0);
}

/// `--engine rtl --rtl-slice pipelined` runs the pipelined slice, checks it
/// against the fast engine's timing of the same slice (its cycle model:
/// every statistic identical) and sets each mode beside the paper's timing.
#[test]
fn an_rtl_run_of_the_pipelined_slice_agrees_with_its_model_and_is_set_beside_the_paper_timing() {
    let w = bundled_copy_with_trace();
    let trace = fs::read(w.path().join("trace.bin")).unwrap();
    fs::write(w.path().join("trace.bin"), &trace[..12 * 10_000]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let text = stdout(&buddy(&[
        "sim",
        w.path().to_str().unwrap(),
        "--engine",
        "rtl",
        "--rtl-slice",
        "pipelined",
        "--algo",
        "zvc",
        "--mode",
        "buddy",
        "--out",
        out.to_str().unwrap(),
    ]));
    assert!(text.contains("RTL mode (PipelinedController hardware in rust-hdl)"), "{text}");
    assert!(text.contains("every statistic identical"), "{text}");
    let agreement: Vec<Value> = serde_json::from_slice(&fs::read(out.join("agreement.json")).unwrap()).unwrap();
    assert_eq!(agreement.len(), 1);
    assert_eq!(agreement[0]["identical_statistics"], true);
    assert!(text.contains("against the fast engine's paper timing") && text.contains("metadata counters equal"), "{text}");
    let rows: Vec<Value> = serde_json::from_slice(&fs::read(out.join("paper_timing.json")).unwrap()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["same_metadata"], true);
    assert_eq!(rows[0]["rtl_link_bytes"], rows[0]["paper_link_bytes"]);
    let ratio = rows[0]["ratio"].as_f64().unwrap();
    assert!(ratio > 0.5 && ratio < 10.0, "{ratio}");
    // Both reads' times in the slice are cut in three; the paper's decompression
    // is ZVC's configured latency (2 cycles) on each compressed read, the
    // hardware's the decompressor's, so neither side's "after" is empty.
    for side in ["rtl", "paper"] {
        let split: Vec<f64> = rows[0][format!("{side}_read_split_cycles")].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
        assert!(rows[0][format!("{side}_moved_reads")].as_u64().unwrap() > 100, "{side}");
        assert!(split.len() == 3 && split[1] > 20.0 && split[2] > 0.0, "{side}: {split:?}");
    }
    assert!(text.contains("reads that moved data, DRAM cycles each"), "{text}");
    let reports: Vec<Value> = serde_json::from_slice(&fs::read(out.join("sim.json")).unwrap()).unwrap();
    assert_eq!(reports[0]["slice_timing"].as_str(), Some("pipelined hardware"));
    assert!(reports[0]["pipelined_slice"]["requests"].as_u64().unwrap() > 100);
    assert_eq!(reports[0]["pipelined_slice"]["reads"], reports[0]["read_split"]);
}
