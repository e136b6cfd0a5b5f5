//! `buddy compress` run as a process on the bundled workload and on broken inputs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const SIZE_CLASSES: [(&str, u64); 8] = [
    ("ZERO", 0),
    ("B8", 8),
    ("B16", 16),
    ("B32", 32),
    ("B64", 64),
    ("B80", 80),
    ("B96", 96),
    ("RAW", 128),
];

/// Entries in one snapshot of the bundled workload (422016 bytes / 128).
const BUNDLED_SNAPSHOT_ENTRIES: u64 = 3297;

fn bundled() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small")
}

fn buddy(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_buddy"))
        .args(args)
        .output()
        .expect("run buddy")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "buddy failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8 stdout")
}

/// A failed run: non-zero exit, nothing on stdout, one `error: ` line on stderr.
fn failure(out: &Output) -> String {
    assert!(!out.status.success(), "buddy should have failed");
    assert!(
        out.stdout.is_empty(),
        "stdout should be empty: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stderr = String::from_utf8(out.stderr.clone()).expect("utf-8 stderr");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr
}

/// Checks one stats object of the JSON report and returns its histogram in class order.
fn checked_histogram(stats: &Value) -> [u64; 8] {
    let histogram = SIZE_CLASSES.map(|(name, _)| stats["histogram"][name].as_u64().expect(name));
    let entries = stats["entries"].as_u64().unwrap();
    let uncompressed = stats["uncompressed_bytes"].as_u64().unwrap();
    let stored = stats["stored_bytes"].as_u64().unwrap();
    assert_eq!(histogram.iter().sum::<u64>(), entries, "{stats}");
    assert_eq!(uncompressed, entries * 128, "{stats}");
    let class_bytes: u64 = histogram
        .iter()
        .zip(SIZE_CLASSES)
        .map(|(n, (_, bytes))| n * bytes)
        .sum();
    assert_eq!(stored, class_bytes, "{stats}");
    if stored == 0 {
        assert!(stats["compression_ratio"].is_null(), "{stats}");
    } else {
        let ratio = stats["compression_ratio"].as_f64().unwrap();
        assert!(
            (ratio - uncompressed as f64 / stored as f64).abs() < 1e-12,
            "{stats}"
        );
    }
    histogram
}

fn add(a: [u64; 8], b: [u64; 8]) -> [u64; 8] {
    std::array::from_fn(|i| a[i] + b[i])
}

#[test]
fn json_report_of_bundled_workload_is_consistent() {
    let report: Value =
        serde_json::from_str(&stdout(&buddy(&["compress", "--json"]))).expect("valid JSON");
    assert_eq!(report["workload"], "minife");
    let algorithms = report["algorithms"].as_array().unwrap();
    assert_eq!(algorithms.len(), 1);
    let zvc = &algorithms[0];
    assert_eq!(zvc["algorithm"], "zvc");

    let snapshots = zvc["snapshots"].as_array().unwrap();
    let indices: Vec<_> = snapshots
        .iter()
        .map(|s| s["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indices, vec![0, 5]);

    let allocation_totals = zvc["allocations"].as_array().unwrap();
    let mut per_allocation = vec![[0u64; 8]; allocation_totals.len()];
    let mut all_snapshots = [0u64; 8];
    for snapshot in snapshots {
        let allocations = snapshot["allocations"].as_array().unwrap();
        assert_eq!(allocations.len(), allocation_totals.len());
        let mut snapshot_sum = [0u64; 8];
        for (i, alloc) in allocations.iter().enumerate() {
            assert_eq!(alloc["name"], allocation_totals[i]["name"]);
            let h = checked_histogram(alloc);
            snapshot_sum = add(snapshot_sum, h);
            per_allocation[i] = add(per_allocation[i], h);
        }
        let total = checked_histogram(&snapshot["total"]);
        assert_eq!(total, snapshot_sum);
        assert_eq!(total.iter().sum::<u64>(), BUNDLED_SNAPSHOT_ENTRIES);
        all_snapshots = add(all_snapshots, total);
    }
    for (alloc, sum) in allocation_totals.iter().zip(&per_allocation) {
        assert_eq!(checked_histogram(alloc), *sum, "{}", alloc["name"]);
    }
    assert_eq!(checked_histogram(&zvc["total"]), all_snapshots);
    assert_eq!(zvc["total"]["entries"], 2 * BUNDLED_SNAPSHOT_ENTRIES);
}

#[test]
fn table_has_a_total_row_and_a_line_per_snapshot() {
    let out = buddy(&["compress", "--algo", "zvc"]);
    assert!(
        out.stderr.is_empty(),
        "nothing on stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    let report: Value = serde_json::from_str(&stdout(&buddy(&["compress", "--json"]))).unwrap();
    let total = &report["algorithms"][0]["total"];

    let total_row: Vec<&str> = text
        .lines()
        .find(|l| l.starts_with("TOTAL"))
        .expect("TOTAL row")
        .split_whitespace()
        .collect();
    let ratio = format!("{:.3}", total["compression_ratio"].as_f64().unwrap());
    let mut expected = vec!["TOTAL".to_string(), total["entries"].to_string(), ratio];
    expected.extend(SIZE_CLASSES.map(|(name, _)| total["histogram"][name].to_string()));
    assert_eq!(total_row, expected);

    let snapshot_lines: Vec<&str> = text.lines().filter(|l| l.starts_with("snapshot")).collect();
    assert_eq!(snapshot_lines.len(), 2);
    assert!(
        snapshot_lines[1].contains("snap_05.bin") && snapshot_lines[1].contains("entries 3297")
    );
}

#[test]
fn per_entry_tsv_matches_the_histogram() {
    let text = stdout(&buddy(&[
        "compress",
        "--per-entry",
        bundled().to_str().unwrap(),
    ]));
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("snapshot\tallocation\tentry\tstream_bits\tclass")
    );
    let mut histogram = [0u64; 8];
    let mut previous: Option<(String, String, u64)> = None;
    for line in lines {
        let fields: Vec<&str> = line.split('\t').collect();
        let [snapshot, allocation, entry, bits, class] = fields[..] else {
            panic!("bad line {line}")
        };
        let entry: u64 = entry.parse().unwrap();
        let bits: u64 = bits.parse().unwrap();
        // Entries are numbered from 0 within each allocation.
        let expected_entry = match &previous {
            Some((s, a, e)) if s == snapshot && a == allocation => e + 1,
            _ => 0,
        };
        assert_eq!(entry, expected_entry, "{line}");
        assert_eq!(class == "ZERO", bits == 0, "{line}");
        let code = SIZE_CLASSES
            .iter()
            .position(|(name, _)| *name == class)
            .expect("known class");
        histogram[code] += 1;
        previous = Some((snapshot.to_string(), allocation.to_string(), entry));
    }
    let report: Value = serde_json::from_str(&stdout(&buddy(&["compress", "--json"]))).unwrap();
    assert_eq!(
        histogram,
        checked_histogram(&report["algorithms"][0]["total"])
    );
}

#[test]
fn snapshot_option_selects_by_manifest_index() {
    let report: Value =
        serde_json::from_str(&stdout(&buddy(&["compress", "--json", "--snapshot", "5"]))).unwrap();
    let snapshots = report["algorithms"][0]["snapshots"].as_array().unwrap();
    assert_eq!(snapshots.len(), 1);
    assert_eq!(snapshots[0]["file"], "snap_05.bin");
    assert_eq!(
        report["algorithms"][0]["total"]["entries"],
        BUNDLED_SNAPSHOT_ENTRIES
    );

    let err = failure(&buddy(&["compress", "--snapshot", "3"]));
    assert!(
        err.contains("no snapshot with index 3 (available: 0, 5)"),
        "{err}"
    );
}

#[test]
fn raw_file_gives_the_zvc_classes_of_its_entries() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("entries.bin");
    // Entry 0 all zero, entry 1 one non-zero word, entry 2 all 32 words non-zero.
    let mut data = vec![0u8; 3 * 128];
    data[128 + 20] = 1;
    data[256..].fill(0xff);
    fs::write(&path, data).unwrap();
    let text = stdout(&buddy(&[
        "compress",
        "--per-entry",
        "--algo",
        "zvc",
        path.to_str().unwrap(),
    ]));
    assert_eq!(
        text,
        "snapshot\tallocation\tentry\tstream_bits\tclass\n\
         0\tentries.bin\t0\t0\tZERO\n\
         0\tentries.bin\t1\t64\tB8\n\
         0\tentries.bin\t2\t1056\tRAW\n"
    );
}

#[test]
fn missing_path_is_an_error() {
    let err = failure(&buddy(&["compress", "/no/such/workload"]));
    assert_eq!(
        err,
        "error: cannot open workload: /no/such/workload: no such file or folder\n"
    );
}

#[test]
fn raw_file_of_bad_size_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.bin");
    fs::write(&path, [7u8; 200]).unwrap();
    let err = failure(&buddy(&["compress", path.to_str().unwrap()]));
    assert!(
        err.contains("odd.bin is 200 bytes") && err.contains("72 bytes left over"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn unknown_algorithm_exits_2_and_lists_valid_choices() {
    let out = buddy(&["compress", "--algo", "foo"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: ")
            && stderr.contains("unknown algorithm 'foo' (valid: bpc, mag-bdi, mag-bdi:16, mag-bdi:64, zvc, all"),
        "{stderr}"
    );
}

#[test]
fn unknown_mag_lists_the_valid_choices() {
    let out = buddy(&["compress", "--algo", "mag-bdi:48"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown algorithm 'mag-bdi:48'") && stderr.contains("mag-bdi:16, mag-bdi:64"), "{stderr}");
}

/// Several algorithms: an `algo` column, one line per entry and algorithm.
#[test]
fn per_entry_with_all_algorithms_has_an_algo_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("entries.bin");
    let mut data = vec![0u8; 2 * 128];
    data[128 + 20] = 1;
    fs::write(&path, data).unwrap();
    let text = stdout(&buddy(&["compress", "--per-entry", "--algo", "bpc,zvc", path.to_str().unwrap()]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "algo\tsnapshot\tallocation\tentry\tstream_bits\tclass");
    assert_eq!(lines[1], "bpc\t0\tentries.bin\t0\t0\tZERO");
    assert_eq!(lines[3], "zvc\t0\tentries.bin\t0\t0\tZERO");
    assert_eq!(lines[4], "zvc\t0\tentries.bin\t1\t64\tB8");
    assert_eq!(lines.len(), 5);
}

/// A copy of the bundled workload's manifest and snapshots in a temp dir.
fn bundled_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in ["manifest.json", "snap_00.bin", "snap_05.bin"] {
        fs::copy(bundled().join(file), dir.path().join(file)).unwrap();
    }
    dir
}

fn edit_manifest(dir: &Path, edit: impl FnOnce(&mut Value)) {
    let path = dir.join("manifest.json");
    let mut manifest: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    edit(&mut manifest);
    fs::write(&path, manifest.to_string()).unwrap();
}

#[test]
fn snapshots_disagreeing_on_allocations_is_an_error() {
    let dir = bundled_copy();
    edit_manifest(dir.path(), |m| {
        m["snapshots"][1]["allocations"][4]["name"] = "c".into()
    });
    let err = failure(&buddy(&["compress", dir.path().to_str().unwrap()]));
    assert!(
        err.contains(
            "snap_05.bin, allocation #4 is 'c' (10648 bytes), but in snapshot 0 it is 'b'"
        ),
        "{err}"
    );
}

#[test]
fn snapshot_file_size_differing_from_manifest_is_an_error() {
    let dir = bundled_copy();
    let snap = dir.path().join("snap_05.bin");
    let mut data = fs::read(&snap).unwrap();
    data.truncate(data.len() - 128);
    fs::write(&snap, data).unwrap();
    let err = failure(&buddy(&["compress", dir.path().to_str().unwrap()]));
    assert!(
        err.contains("snap_05.bin is 421888 bytes, but the manifest gives file_size 422016"),
        "{err}"
    );
}

#[test]
fn invalid_manifest_names_the_file() {
    let dir = bundled_copy();
    fs::write(dir.path().join("manifest.json"), "{\"workload\": ").unwrap();
    let err = failure(&buddy(&["compress", dir.path().to_str().unwrap()]));
    assert!(
        err.contains("invalid manifest ") && err.contains("manifest.json: EOF"),
        "{err}"
    );
}
