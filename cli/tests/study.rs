//! `buddy profile` and `buddy study` run as processes on the bundled
//! workload: the profile's figures recomputed from its own targets, the
//! annotation read back, every study's files, and bad inputs.

use std::fs;
use std::path::Path;

use serde_json::Value;

mod common;
use common::{buddy, bundled, bundled_copy, edit_manifest, failure, stdout};

/// Device bytes per entry of a target name.
fn device_bytes(target: &str) -> f64 {
    match target {
        "1x" => 128.0,
        "4/3x" => 96.0,
        "2x" => 64.0,
        "4x" => 32.0,
        "16x" => 8.0,
        other => panic!("unknown target {other}"),
    }
}

fn json_of(args: &[&str]) -> Value {
    serde_json::from_str(&stdout(&buddy(args))).expect("JSON on stdout")
}

fn is_png(path: &Path) -> bool {
    let bytes = fs::read(path).unwrap_or_default();
    bytes.len() > 1000 && bytes.starts_with(b"\x89PNG\r\n\x1a\n")
}

#[test]
fn profile_figures_follow_from_its_targets_and_the_annotation_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let ann = dir.path().join("t.json");
    let bundled = bundled();
    let p = json_of(&["profile", bundled.to_str().unwrap(), "--json", "--out", ann.to_str().unwrap(), "--threshold", "25%"]);
    assert_eq!(p["config"]["threshold"], 0.25);
    let allocs = p["allocations"].as_array().unwrap();
    assert_eq!(allocs.len(), 9);
    let (mut raw, mut device) = (0.0, 0.0);
    let mut sixteen = 0;
    for a in allocs {
        let entries = a["entries"].as_f64().unwrap();
        let target = a["target"].as_str().unwrap();
        raw += 128.0 * entries;
        device += device_bytes(target) * entries;
        sixteen += (target == "16x") as usize;
        assert!(a["buddy_fraction_worst"].as_f64().unwrap() <= 0.25, "{a}");
        assert!(a["buddy_fraction_mean"].as_f64().unwrap() <= a["buddy_fraction_worst"].as_f64().unwrap());
    }
    let ratio = p["overall_ratio"].as_f64().unwrap();
    assert!((ratio - raw / device).abs() < 1e-9, "{ratio} vs {}", raw / device);
    assert!(ratio > 1.0 && ratio <= 4.0);
    // The bundled miniFE subset has no mostly-zero allocation.
    assert_eq!(sixteen, 0);
    // The annotation holds the same targets, and buddy-over-time evaluates it
    // exactly like the profiler's own targets at the same threshold.
    let file: Value = serde_json::from_slice(&fs::read(&ann).unwrap()).unwrap();
    assert_eq!(file["format"], "buddy-targets/1");
    for (a, f) in allocs.iter().zip(file["allocations"].as_array().unwrap()) {
        assert_eq!(a["name"], f["name"]);
        assert_eq!(a["target"], f["target"]);
    }
    let out = dir.path().join("s");
    let b = json_of(&[
        "study",
        "buddy-over-time",
        bundled.to_str().unwrap(),
        "--threshold",
        "0.25",
        "--annotation",
        ann.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    let series = b[0]["series"].as_array().unwrap();
    let names: Vec<&str> = series.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["profiled at 25%", "fitted on s0", "4/3x everywhere", "2x everywhere", "4x everywhere", "annotation t.json"]);
    assert_eq!(series[0]["buddy_fraction"], series[5]["buddy_fraction"]);
    assert_eq!(series[0]["buddy_fraction"], p["buddy_fraction_per_snapshot"]);
    assert!((series[5]["overall_ratio"].as_f64().unwrap() - ratio).abs() < 1e-12);
    // Fitted on the first snapshot only, its targets keep that snapshot
    // within the threshold (in sample); the second is scored out of sample.
    assert!(series[1]["buddy_fraction"][0].as_f64().unwrap() <= 0.25);
    assert_eq!(series[1]["buddy_fraction"].as_array().unwrap().len(), 2);
    // The bundled workload has a trace: each series is also weighted by its accesses.
    let weighted = series[0]["buddy_access_fraction"].as_array().unwrap();
    assert_eq!(weighted.len(), 2);
    assert!(weighted.iter().all(|f| (0.0..=1.0).contains(&f.as_f64().unwrap())));
    // Fixed targets: more aggressive never fits more entries.
    for s in 0..2 {
        let f = |i: usize| series[i]["buddy_fraction"][s].as_f64().unwrap();
        assert!(f(2) <= f(3) && f(3) <= f(4), "snapshot {s}");
    }
}

#[test]
fn study_all_writes_every_file_and_the_files_agree() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("study");
    let text = stdout(&buddy(&["study", "all", bundled().to_str().unwrap(), "--out", out.to_str().unwrap()]));
    // Every study's table, its plots and report.md.
    common::without_dir(dir.path()).bind(|| insta::assert_snapshot!("study_all_tables", text));
    for f in [
        "report.md",
        "ratio-over-time.json",
        "ratio-over-time.csv",
        "heatmap.json",
        "heatmap.csv",
        "designs.json",
        "designs.csv",
        "threshold-sweep.json",
        "threshold-sweep.csv",
        "buddy-over-time.json",
        "buddy-over-time.csv",
        "bandwidth-sweep.json",
        "bandwidth-sweep.csv",
        "energy.json",
        "energy.csv",
        "oversubscription.json",
        "oversubscription.csv",
        "minibatch.json",
        "minibatch.csv",
        "mag.json",
        "mag.csv",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    assert!(is_png(&out.join("oversubscription.png")) && is_png(&out.join("mag.png")));
    // MAG-BDI's study: the CSV holds every storage at every MAG, and the
    // uncompressed rows are the speedups' reference.
    let mag = fs::read_to_string(out.join("mag.csv")).unwrap();
    assert!(mag.starts_with("workload,mag_bytes,storage,bursts,bytes,dram_cycles,speedup,bandwidth_saved,row_hit_rate"), "{mag}");
    assert_eq!(mag.lines().count(), 1 + 9, "{mag}");
    assert_eq!(mag.lines().filter(|l| l.contains(",uncompressed,") && l.contains(",1.0,0.0,")).count(), 3, "{mag}");
    // The default replays the trace until the slowdowns settle, at least
    // 10 longest faults of unlimited run time; of the 8 pages 30% and 33%
    // leave the same 6 as 20%, 50% the same 5 as 40%.
    let o: Value = serde_json::from_slice(&fs::read(out.join("oversubscription.json")).unwrap()).unwrap();
    let o = &o[0];
    assert!(o["iterations"].as_u64().unwrap() >= 2);
    assert!(o["unlimited"]["time_ns"].as_f64().unwrap() >= 10.0 * o["longest_fault_ns"].as_f64().unwrap(), "{}", o["unlimited"]);
    let merged: Vec<(f64, f64)> = serde_json::from_value(o["merged"].clone()).unwrap();
    assert_eq!(merged, [(0.3, 0.2), (1.0 / 3.0, 0.2), (0.5, 0.4)]);
    for p in o["points"].as_array().unwrap() {
        let (all, half) = (p["slowdown"].as_f64().unwrap(), p["slowdown_at_half"].as_f64().unwrap());
        assert_eq!(p["settled"].as_bool().unwrap(), (all / half - 1.0).abs() <= 0.05, "{p}");
    }
    for png in ["ratio-over-time.png", "heatmap-minife.png", "designs.png", "threshold-sweep.png", "buddy-over-time-minife.png"] {
        assert!(is_png(&out.join(png)), "{png} is not a PNG");
    }
    let report = fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("![designs.png](designs.png)"));
    assert!(report.contains("## bandwidth-sweep") && report.contains("## energy") && report.contains("## minibatch") && report.contains("## mag"));
    for png in ["bandwidth-sweep.png", "energy.png"] {
        assert!(is_png(&out.join(png)), "{png} is not a PNG");
    }
    // Fig. 12 / 13: uncompressed is the reference; bandwidth-only never uses the link.
    let sweep: Value = serde_json::from_slice(&fs::read(out.join("bandwidth-sweep.json")).unwrap()).unwrap();
    let points = sweep[0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 2 + 2 * 4);
    assert_eq!(points[0]["mode"], "uncompressed");
    assert_eq!(points[0]["speedup"], 1.0);
    assert_eq!(points[1]["mode"], "bandwidth-only");
    assert_eq!(points[1]["buddy_bytes"], 0);
    assert!(points[1]["dram_energy_relative"].as_f64().unwrap() < 1.0);

    // Heat map: one character per entry, one CSV row per entry and snapshot.
    let heat: Value = serde_json::from_slice(&fs::read(out.join("heatmap.json")).unwrap()).unwrap();
    let snaps = heat[0]["snapshots"].as_array().unwrap();
    assert_eq!(snaps.len(), 2);
    let chars: usize = snaps[0]["rows"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().len()).sum();
    assert_eq!(chars, 3297);
    assert!(snaps[0]["rows"].as_array().unwrap().iter().all(|r| r.as_str().unwrap().bytes().all(|c| (b'0'..=b'7').contains(&c))));
    let csv_rows = fs::read_to_string(out.join("heatmap.csv")).unwrap().lines().count();
    assert_eq!(csv_rows, 1 + 2 * 3297);

    // Ratio over time agrees with `buddy compress` on each snapshot.
    let rot: Value = serde_json::from_slice(&fs::read(out.join("ratio-over-time.json")).unwrap()).unwrap();
    let compress = json_of(&["compress", bundled().to_str().unwrap(), "--algo", "bpc", "--json"]);
    let snapshots = compress["workloads"][0]["algorithms"][0]["snapshots"].as_array().unwrap();
    for (r, c) in rot[0]["snapshots"].as_array().unwrap().iter().zip(snapshots) {
        let (a, b) = (r["ratio"].as_f64().unwrap(), c["total"]["compression_ratio"].as_f64().unwrap());
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }

    // Threshold sweep: a higher threshold never gives a lower ratio.
    let sweep: Value = serde_json::from_slice(&fs::read(out.join("threshold-sweep.json")).unwrap()).unwrap();
    let ratios: Vec<f64> = sweep[0]["points"].as_array().unwrap().iter().map(|p| p["overall_ratio"].as_f64().unwrap()).collect();
    assert_eq!(ratios.len(), 4);
    assert!(ratios.windows(2).all(|w| w[0] <= w[1]), "{ratios:?}");

    // Designs: per-allocation targets never compress less than one target for all.
    let designs: Value = serde_json::from_slice(&fs::read(out.join("designs.json")).unwrap()).unwrap();
    let d = designs["workloads"][0]["designs"].as_array().unwrap();
    let r = |i: usize| d[i]["overall_ratio"].as_f64().unwrap();
    assert!(r(0) <= r(1) && r(1) <= r(2), "{d:?}");
    let csv = fs::read_to_string(out.join("designs.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 3);
}

/// The profile's table (its figures are checked against its targets above).
#[test]
fn profile_table_of_the_bundled_workload() {
    let dir = tempfile::tempdir().unwrap();
    let text = stdout(&buddy(&["profile", bundled().to_str().unwrap(), "--out", dir.path().join("t.json").to_str().unwrap()]));
    common::without_dir(dir.path()).bind(|| insta::assert_snapshot!(text));
}

#[test]
fn csv_on_stdout_matches_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let text = stdout(&buddy(&[
        "study",
        "threshold-sweep",
        bundled().to_str().unwrap(),
        "--csv",
        "--out",
        out.to_str().unwrap(),
        "--thresholds",
        "0.1,0.5",
    ]));
    assert_eq!(text, fs::read_to_string(out.join("threshold-sweep.csv")).unwrap());
    assert!(text.starts_with("workload,algorithm,threshold,overall_ratio,"), "{text}");
    assert_eq!(text.lines().count(), 3);
}

#[test]
fn bad_thresholds_are_usage_errors() {
    for t in ["0", "1", "100%", "-0.2", "abc", "1.5"] {
        let out = buddy(&["profile", bundled().to_str().unwrap(), &format!("--threshold={t}")]);
        assert_eq!(out.status.code(), Some(2), "{t}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--threshold"), "{err}");
    }
    let out = buddy(&["study", "threshold-sweep", "--thresholds", "0.2,2"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn annotation_naming_an_unknown_allocation_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let ann = dir.path().join("bad.json");
    fs::write(
        &ann,
        r#"{"format": "buddy-targets/1", "workload": "minife", "default_target": "2x",
            "allocations": [{"name": "A.rows", "target": "4x"}, {"name": "no_such_vector", "target": "2x"}]}"#,
    )
    .unwrap();
    let out = dir.path().join("s");
    let err = failure(&buddy(&["study", "buddy-over-time", "--annotation", ann.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(err.contains("'no_such_vector' is not an allocation of workload 'minife'"), "{err}");
    fs::write(&ann, r#"{"format": "buddy-targets/1", "workload": "hpgmg", "allocations": []}"#).unwrap();
    let err = failure(&buddy(&["study", "buddy-over-time", "--annotation", ann.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(err.contains("is for workload 'hpgmg', which is not among the studied workloads (minife)"), "{err}");
    fs::write(&ann, "{ \"format\": 3 ").unwrap();
    let err = failure(&buddy(&["study", "buddy-over-time", "--annotation", ann.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(err.contains("invalid annotation") && err.contains("line 1"), "{err}");
}

#[test]
fn snapshots_disagreeing_on_allocations_are_an_error() {
    let dir = bundled_copy();
    edit_manifest(dir.path(), |m| m["snapshots"][1]["allocations"][2]["name"] = "other".into());
    let err = failure(&buddy(&["profile", dir.path().to_str().unwrap()]));
    assert!(err.contains("allocation #2 is 'other'"), "{err}");
}

#[test]
fn csv_with_all_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = failure(&buddy(&["study", "all", "--csv", "--out", dir.path().to_str().unwrap()]));
    assert!(err.contains("--csv"), "{err}");
}

#[test]
fn cdma_ratios_skips_a_workload_without_activations_and_studies_one_with() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("s");
    let text = stdout(&buddy(&["study", "cdma-ratios", "--out", dir.to_str().unwrap()]));
    assert!(text.contains("minife") && text.contains("skipped"), "{text}");
    assert!(!dir.join("cdma-ratios.png").exists());
    // A workload with one 8 KB activation map: half zero words.
    let w = out.path().join("w");
    fs::create_dir(&w).unwrap();
    let manifest = serde_json::json!({
        "workload": "toy", "description": "test", "program": "none", "entry_bytes": 128, "byte_order": "little",
        "snapshots": [{"index": 0, "file": "snap_00.bin", "file_size": 8192, "label": "step 0",
            "allocations": [{"name": "act.l0", "offset": 0, "size": 8192, "padded_size": 8192, "dtype": "f32",
                "count": 2048, "description": "activation", "role": "activation"}]}]
    });
    fs::write(w.join("manifest.json"), manifest.to_string()).unwrap();
    let bytes: Vec<u8> = (0..2048u32).flat_map(|i| if i % 2 == 0 { 0 } else { i }.to_le_bytes()).collect();
    fs::write(w.join("snap_00.bin"), bytes).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&buddy(&["study", "cdma-ratios", w.to_str().unwrap(), "--json", "--out", dir.to_str().unwrap()])))
            .unwrap();
    let summary = &json["workloads"][0]["summary"];
    // ZVC: per 128 B line a 4 B mask and 16 of 32 words.
    assert_eq!(summary[1]["algorithm"], "zvc");
    assert!((summary[1]["average"].as_f64().unwrap() - 128.0 / 68.0).abs() < 1e-12, "{summary}");
    assert!(dir.join("cdma-ratios.png").is_file() && dir.join("cdma-ratios.csv").is_file());
}

#[test]
fn cdma_offload_and_performance_skip_a_workload_without_activations_and_time_one_with() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("s");
    for study in ["cdma-offload", "cdma-performance"] {
        let text = stdout(&buddy(&["study", study, "--out", dir.to_str().unwrap(), "--force"]));
        assert!(text.contains("minife") && text.contains("skipped"), "{text}");
        assert!(!dir.join(format!("{study}.png")).exists());
    }
    // Two layers of one 8 KB map each, every other word zero: vDNN offloads
    // layer 0's map (the last layer's is used at once by the backward pass).
    let w = out.path().join("w");
    fs::create_dir(&w).unwrap();
    let map = |name: &str, offset: u64| {
        serde_json::json!({"name": name, "offset": offset, "size": 8192, "padded_size": 8192, "dtype": "f32",
            "count": 2048, "description": "activation", "role": "activation", "shape": [4, 512], "full_size": 8192})
    };
    let manifest = serde_json::json!({
        "workload": "toy", "description": "test", "program": "none", "entry_bytes": 128, "byte_order": "little",
        "snapshots": [{"index": 0, "file": "snap_00.bin", "file_size": 16384, "label": "step 0",
            "allocations": [map("act.layer0.out", 0), map("act.layer1.out", 8192)]}]
    });
    fs::write(w.join("manifest.json"), manifest.to_string()).unwrap();
    let bytes: Vec<u8> = (0..4096u32).flat_map(|i| if i % 2 == 0 { 0 } else { i }.to_le_bytes()).collect();
    fs::write(w.join("snap_00.bin"), bytes).unwrap();
    let run = |study: &str| -> serde_json::Value {
        serde_json::from_str(&stdout(&buddy(&["study", study, w.to_str().unwrap(), "--json", "--out", dir.to_str().unwrap(), "--force"])))
            .unwrap()
    };
    let offload = run("cdma-offload");
    let policies = &offload["workloads"][0]["policies"];
    assert_eq!(policies[0]["policy"], "vdnn");
    assert_eq!(policies[0]["offloaded_bytes"], 8192);
    // ZVC: per 128 B line a 4 B mask and 16 of 32 words.
    assert_eq!(policies[2]["policy"], "cdma-zvc");
    assert_eq!(policies[2]["normalized"].as_f64().unwrap(), 68.0 / 128.0);
    assert!(dir.join("cdma-offload.png").is_file() && dir.join("cdma-offload.csv").is_file());
    let performance = run("cdma-performance");
    let p = &performance["workloads"][0]["policies"];
    assert_eq!(p[0]["performance"].as_f64().unwrap(), 1.0, "the oracle");
    let (vdnn, zvc) = (p[1]["performance"].as_f64().unwrap(), p[3]["performance"].as_f64().unwrap());
    assert!(vdnn < zvc && zvc < 1.0, "{p}");
    assert!(dir.join("cdma-performance.png").is_file());
}

#[test]
fn oversubscription_runs_every_system_and_um_slows_down_as_memory_shrinks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let json: Value = serde_json::from_str(&stdout(&buddy(&[
        "study",
        "oversubscription",
        bundled().to_str().unwrap(),
        "--oversubscription",
        "0,50%",
        "--iterations",
        "3",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ])))
    .unwrap();
    let study = &json[0];
    let points = study["points"].as_array().unwrap();
    // Six systems at two oversubscriptions.
    assert_eq!(points.len(), 12);
    let at = |system: &str, x: f64| {
        points.iter().find(|p| p["system"].as_str().unwrap().starts_with(system) && p["oversubscription"] == x).unwrap()
    };
    // With memory for the footprint UM never faults; with a third less it does, and it costs.
    assert_eq!(at("UM", 0.0)["run"]["paging"]["faults"], 0);
    assert_eq!(at("UM", 0.0)["slowdown"], 1.0);
    let um = at("UM", 0.5);
    assert!(um["run"]["paging"]["faults"].as_u64().unwrap() > 0, "{um}");
    assert!(um["slowdown"].as_f64().unwrap() > 2.0, "{um}");
    // Buddy never pages: the device parts fit device memory, a third less than the footprint.
    let buddy_point = at("buddy", 0.5);
    let run = &buddy_point["run"];
    assert!(run["paging"].is_null());
    assert!(run["data_device_bytes"].as_u64().unwrap() <= run["device_memory_bytes"].as_u64().unwrap(), "{run}");
    assert_eq!(run["device_memory_bytes"].as_u64().unwrap(), run["footprint_bytes"].as_u64().unwrap() * 2 / 3);
    assert!(run["compression_ratio"].as_f64().unwrap() > 1.0, "{run}");
    assert!(buddy_point["slowdown"].as_f64().unwrap() < um["slowdown"].as_f64().unwrap());
    // ETC is the classifier's combination.
    let etc = study["etc"].clone();
    let label = at("ETC", 0.5)["system"].as_str().unwrap().to_string();
    assert_eq!(label.contains("+PE"), etc["proactive_eviction"].as_bool().unwrap(), "{label} {etc}");
    assert!(out.join("oversubscription.csv").is_file() && is_png(&out.join("oversubscription.png")));
    // Three iterations of the trace, each point's slowdown also after one
    // (half of three), and the unlimited run three times one pass's requests.
    assert_eq!(study["iterations"], 3);
    assert_eq!(study["unlimited"]["iteration_end_ns"].as_array().unwrap().len(), 3);
    assert!(um["slowdown_at_half"].as_f64().unwrap() > 1.0, "{um}");
    // 0% and 50% hold different whole pages: nothing merged.
    assert_eq!(study["merged"], serde_json::json!([]));
    // A value out of range is an error naming it.
    let err = failure(&buddy(&["study", "oversubscription", "--oversubscription", "2000%", "--out", out.to_str().unwrap(), "--force"]));
    assert!(err.contains("2000%"), "{err}");
    let err = failure(&buddy(&["study", "oversubscription", "--iterations", "0", "--out", out.to_str().unwrap(), "--force"]));
    assert!(err.contains("iterations must be"), "{err}");
}

/// A toy DL workload recorded at mini-batch 4: 64 KiB of weights (stored as
/// a 4 KiB slice) with its gradient and two Adam moments (all zero), per
/// sample an i64 input of 16 tokens and a 4 KiB activation (stored whole).
fn toy_dl(dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    let alloc = |name: &str, role: &str, offset: u64, size: u64, shape: Vec<u64>, full: u64| {
        serde_json::json!({"name": name, "offset": offset, "size": size, "padded_size": size, "dtype": "f32",
            "count": size / 4, "description": name, "role": role, "shape": shape, "full_size": full, "source_offset": 0})
    };
    let allocations = serde_json::json!([
        alloc("input.ids", "input", 0, 512, vec![4, 16], 512),
        alloc("w.l0", "weight", 512, 4096, vec![128, 128], 65536),
        alloc("grad.l0", "gradient", 4608, 4096, vec![128, 128], 65536),
        alloc("adam_m.l0", "optimizer", 8704, 4096, vec![128, 128], 65536),
        alloc("adam_v.l0", "optimizer", 12800, 4096, vec![128, 128], 65536),
        alloc("act.l0", "activation", 16896, 16384, vec![4, 1024], 16384),
    ]);
    let manifest = serde_json::json!({
        "workload": "toy", "description": "test", "program": "none", "entry_bytes": 128, "byte_order": "little",
        "snapshots": [{"index": 0, "file": "snap_00.bin", "file_size": 33280, "label": "step 1", "allocations": allocations}]
    });
    fs::write(dir.join("manifest.json"), manifest.to_string()).unwrap();
    // Weights: an LCG's words (incompressible); gradient and moments zero;
    // the activation: every other word zero.
    let mut x = 12345u32;
    let mut word = || {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        x
    };
    let mut bytes: Vec<u8> = (0..128u32).flat_map(|i| (i % 1000).to_le_bytes()).collect();
    bytes.extend((0..1024).flat_map(|_| word().to_le_bytes()));
    bytes.extend(vec![0u8; 3 * 4096]);
    bytes.extend((0..4096u32).flat_map(|i| if i % 2 == 0 { 0 } else { word() }.to_le_bytes()));
    assert_eq!(bytes.len(), 33280);
    fs::write(dir.join("snap_00.bin"), bytes).unwrap();
}

#[test]
fn minibatch_fits_the_largest_batches_its_targets_allow_and_refuses_a_manifest_without_input_shape() {
    let tmp = tempfile::tempdir().unwrap();
    let (w, out) = (tmp.path().join("toy"), tmp.path().join("s"));
    toy_dl(&w);
    // Room for the fixed 256 KiB and exactly 100 samples of 4224 B uncompressed.
    let memory = 4 * 65536 + 100 * (512 / 4 + 16384 / 4);
    let mem = memory.to_string();
    let json = json_of(&["study", "minibatch", w.to_str().unwrap(), "--device-memory", &mem, "--json", "--out", out.to_str().unwrap()]);
    let s = &json[0];
    let m = &s["model"];
    assert_eq!(
        (m["recorded_batch"].as_u64(), m["fixed_bytes"].as_u64(), m["per_sample_bytes"].as_u64()),
        (Some(4), Some(262_144), Some(4224))
    );
    // The device footprint recomputed from the reported targets: device part + 1/2 B metadata per 128 B.
    let (mut fixed, mut per_sample) = (0.0, 0.0);
    for a in m["allocations"].as_array().unwrap() {
        let dev = a["bytes"].as_f64().unwrap() * (device_bytes(a["target"].as_str().unwrap()) + 0.5) / 128.0;
        assert_eq!(a["device_bytes"].as_f64().unwrap(), dev, "{a}");
        if a["scales"].as_bool().unwrap() {
            per_sample += dev / 4.0;
        } else {
            fixed += dev;
        }
    }
    // The zero gradient and moments compress: Buddy fits more samples.
    assert!(fixed < 0.8 * 262_144.0, "{m}");
    let f = &s["fits"][0];
    assert_eq!(f["largest_batch"], 100);
    let buddy_batch = ((memory as f64 - fixed) / per_sample).floor() as u64;
    assert_eq!(f["largest_batch_buddy"].as_u64(), Some(buddy_batch));
    assert!(buddy_batch > 100);
    let r = |b: f64| b / (b + 16.0);
    assert!((f["speedup"].as_f64().unwrap() - (r(buddy_batch as f64) / r(100.0) - 1.0)).abs() < 1e-12);
    assert!(is_png(&out.join("minibatch-toy.png")));
    let csv = fs::read_to_string(out.join("minibatch.csv")).unwrap();
    assert!(
        csv.starts_with("workload,kind,device_memory_bytes,batch,") && csv.contains(&format!("toy,largest-buddy,{memory},{buddy_batch},")),
        "{csv}"
    );
    // The table states the departures; a non-DL workload is skipped.
    let text = stdout(&buddy(&[
        "study",
        "minibatch",
        w.to_str().unwrap(),
        bundled().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--force",
    ]));
    assert!(text.contains("not like the paper:") && text.contains("minife") && text.contains("skipped"), "{text}");
    // Without the input's shape the recorded batch is unknown: an error naming it.
    edit_manifest(&w, |m| m["snapshots"][0]["allocations"][0].as_object_mut().unwrap().remove("shape").map(drop).unwrap());
    let err = failure(&buddy(&["study", "minibatch", w.to_str().unwrap(), "--out", out.to_str().unwrap(), "--force"]));
    assert!(err.contains("'input.ids' (role input) has no `shape`"), "{err}");
    let err = failure(&buddy(&["study", "minibatch", "--device-memory", "12XB", "--out", out.to_str().unwrap(), "--force"]));
    assert!(err.contains("12XB"), "{err}");
}
