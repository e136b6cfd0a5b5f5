//! The HBM2 model against DRAMsim3 on the device-level streams of
//! `shared/ref/dram/` (issue 17): bandwidth within 10%, mean latency within
//! 15% and row-hit rate within 0.03 of DRAMsim3's figures, with the
//! configuration of that folder's README (the model's defaults).

use std::path::PathBuf;

use buddy_sim::config::SimConfig;
use buddy_sim::memory_system::dram::stream::{read_stream, run_stream};

fn reference_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/ref/dram");
    assert!(
        dir.join("dramsim3_results.json").is_file(),
        "the DRAMsim3 reference streams are missing: expected {} (shared/ref/dram beside the repository)",
        dir.display()
    );
    dir
}

#[test]
fn every_reference_stream_matches_dramsim3() {
    let dir = reference_dir();
    let text = std::fs::read_to_string(dir.join("dramsim3_results.json")).expect("read dramsim3_results.json");
    let reference: serde_json::Value = serde_json::from_str(&text).expect("dramsim3_results.json is JSON");
    let streams = reference.as_object().expect("an object of streams");
    assert!(streams.len() >= 5, "expected the five reference streams, found {}", streams.len());
    let config = SimConfig::default();
    let mut failures = Vec::new();
    for (name, want) in streams {
        let stream = read_stream(&dir.join(format!("{name}.bin.gz")), &config).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = run_stream(&stream, &config);
        let f = |k: &str| want[k].as_f64().unwrap_or_else(|| panic!("{name}: no {k} in the reference"));
        assert_eq!(got.requests as f64, f("requests"), "{name}: every request completes");
        let bw = got.bandwidth_gbps / f("bandwidth_gbps") - 1.0;
        let lat = got.mean_latency_cycles / f("mean_latency_cycles") - 1.0;
        let hit = got.row_hit_rate - f("row_hit_rate");
        eprintln!(
            "{name}: bandwidth {:.1} vs {:.1} GB/s ({:+.1}%), mean latency {:.1} vs {:.1} ({:+.1}%), row hits {:.4} vs {:.4}",
            got.bandwidth_gbps,
            f("bandwidth_gbps"),
            bw * 100.0,
            got.mean_latency_cycles,
            f("mean_latency_cycles"),
            lat * 100.0,
            got.row_hit_rate,
            f("row_hit_rate")
        );
        if bw.abs() > 0.10 || lat.abs() > 0.15 || hit.abs() > 0.03 {
            failures.push(format!("{name}: bandwidth {:+.1}%, latency {:+.1}%, row-hit rate {hit:+.4}", bw * 100.0, lat * 100.0));
        }
    }
    assert!(failures.is_empty(), "outside the tolerances:\n{}", failures.join("\n"));
}

#[test]
fn a_truncated_or_corrupt_stream_is_an_error_naming_the_record() {
    use buddy_sim::memory_system::dram::stream::parse_stream;
    let c = SimConfig::default();
    let mut rec = vec![0u8; 32];
    rec[16 + 8] = 40; // channel 40 of 32
    let e = parse_stream(&rec, "s", &c).unwrap_err().to_string();
    assert!(e.contains("record 1") && e.contains("channel 40"), "{e}");
    let e = parse_stream(&rec[..20], "s", &c).unwrap_err().to_string();
    assert!(e.contains("20 bytes") && e.contains("truncated"), "{e}");
    let mut rec = vec![0u8; 32];
    rec[0] = 9; // arrivals out of order
    let e = parse_stream(&rec, "s", &c).unwrap_err().to_string();
    assert!(e.contains("record 1") && e.contains("before"), "{e}");
    assert!(parse_stream(&[], "s", &c).unwrap_err().to_string().contains("no request"));
}
