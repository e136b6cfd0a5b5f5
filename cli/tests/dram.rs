//! `buddy dram`: a device-level stream through the HBM2 model.

mod common;

use common::{buddy, failure, stdout};
use std::fs;

/// One 16-byte record (`shared/ref/dram/README.md` layout).
fn record(arrival: u64, channel: u8, group: u8, bank: u8, write: bool, row: u16, column: u8) -> Vec<u8> {
    let mut r = arrival.to_le_bytes().to_vec();
    r.extend([channel, group, bank, write as u8]);
    r.extend(row.to_le_bytes());
    r.extend([column, 0]);
    r
}

#[test]
fn a_stream_gives_the_figures_as_json_and_as_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.bin");
    // 64 reads of one row (one activation, 63 row hits), one per cycle.
    let bytes: Vec<u8> = (0..64u8).flat_map(|c| record(c as u64, 3, 1, 2, false, 7, c)).collect();
    fs::write(&path, &bytes).unwrap();
    let out = stdout(&buddy(&["dram", path.to_str().unwrap(), "--json"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in
        ["requests", "end_cycle", "bandwidth_gbps", "mean_latency_cycles", "p99_latency_cycles", "row_hit_rate", "activations", "refreshes"]
    {
        assert!(v.get(key).is_some(), "no {key} in {out}");
    }
    assert_eq!(v["requests"], 64);
    assert_eq!(v["activations"], 1);
    assert!((v["row_hit_rate"].as_f64().unwrap() - 63.0 / 64.0).abs() < 1e-9);
    // The first read: ACT, tRCD (14), READ, CL (14) + burst (1) after it reaches the controller.
    assert!(v["end_cycle"].as_u64().unwrap() >= 63 + 15);
    let table = stdout(&buddy(&["dram", path.to_str().unwrap()]));
    assert!(table.contains("bandwidth_gbps") && table.contains("row_hit_rate"), "{table}");
}

#[test]
fn bad_streams_and_configs_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.bin");
    fs::write(&path, [0u8; 20]).unwrap();
    let err = failure(&buddy(&["dram", path.to_str().unwrap()]));
    assert!(err.contains("20 bytes") && err.contains("truncated"), "{err}");
    fs::write(&path, record(0, 99, 0, 0, false, 0, 0)).unwrap();
    let err = failure(&buddy(&["dram", path.to_str().unwrap()]));
    assert!(err.contains("record 0") && err.contains("channel 99"), "{err}");
    let err = failure(&buddy(&["dram", dir.path().join("missing.bin").to_str().unwrap()]));
    assert!(err.contains("cannot read stream"), "{err}");
    let cfg = dir.path().join("c.toml");
    fs::write(&cfg, "[hbm]\nrefresh = \"sometimes\"\n").unwrap();
    fs::write(&path, record(0, 0, 0, 0, false, 0, 0)).unwrap();
    let err = failure(&buddy(&["dram", path.to_str().unwrap(), "--config", cfg.to_str().unwrap()]));
    assert!(err.contains("hbm.refresh"), "{err}");
}
