//! `buddy compress` run as a process on the bundled workload, on hand-built
//! raw files whose results are known, and on broken inputs.

use std::fs;

use serde_json::{json, Value};

mod common;
use common::{buddy, bundled, bundled_copy, edit_manifest, failure, stdout};

const SIZE_CLASSES: [(&str, u64); 8] =
    [("ZERO", 0), ("B8", 8), ("B16", 16), ("B32", 32), ("B64", 64), ("B80", 80), ("B96", 96), ("RAW", 128)];

/// Entries in one snapshot of the bundled workload (422016 bytes / 128).
const BUNDLED_SNAPSHOT_ENTRIES: u64 = 3297;

/// Checks one stats object of the JSON report and returns its histogram in class order.
fn checked_histogram(stats: &Value) -> [u64; 8] {
    let histogram = SIZE_CLASSES.map(|(name, _)| stats["histogram"][name].as_u64().expect(name));
    let entries = stats["entries"].as_u64().unwrap();
    let uncompressed = stats["uncompressed_bytes"].as_u64().unwrap();
    let stored = stats["stored_bytes"].as_u64().unwrap();
    assert_eq!(histogram.iter().sum::<u64>(), entries, "{stats}");
    assert_eq!(uncompressed, entries * 128, "{stats}");
    let class_bytes: u64 = histogram.iter().zip(SIZE_CLASSES).map(|(n, (_, bytes))| n * bytes).sum();
    assert_eq!(stored, class_bytes, "{stats}");
    if stored == 0 {
        assert!(stats["compression_ratio"].is_null(), "{stats}");
    } else {
        let ratio = stats["compression_ratio"].as_f64().unwrap();
        assert!((ratio - uncompressed as f64 / stored as f64).abs() < 1e-12, "{stats}");
    }
    histogram
}

fn add(a: [u64; 8], b: [u64; 8]) -> [u64; 8] {
    std::array::from_fn(|i| a[i] + b[i])
}

/// The `--json` report of `buddy compress ARGS --json`.
fn json(args: &[&str]) -> Value {
    let mut all = vec!["compress", "--json"];
    all.extend(args);
    serde_json::from_str(&stdout(&buddy(&all))).expect("valid JSON")
}

/// The study object of a report of one workload.
fn only_study(report: &Value) -> &Value {
    let workloads = report["workloads"].as_array().expect("workloads");
    assert_eq!(workloads.len(), 1);
    &workloads[0]
}

/// Write `data` to the raw file `name` in `dir`; returns its path as text.
fn raw_file(dir: &tempfile::TempDir, name: &str, data: &[u8]) -> String {
    let path = dir.path().join(name);
    fs::write(&path, data).unwrap();
    path.to_str().unwrap().to_string()
}

/// Three entries: all zero, one non-zero word, all 32 words non-zero. ZVC
/// classes ZERO (0 bits), B8 (64 bits), RAW (1056 bits): 384 bytes stored
/// in 136, ratio 384/136.
fn three_entries() -> Vec<u8> {
    let mut data = vec![0u8; 3 * 128];
    data[128 + 20] = 1;
    data[256..].fill(0xff);
    data
}

/// The whitespace-separated fields of the first line of `text` after the
/// line `title` that starts with `row`.
fn row_after<'a>(text: &'a str, title: &str, row: &str) -> Vec<&'a str> {
    let mut lines = text.lines().skip_while(|l| *l != title);
    assert!(lines.next().is_some(), "no line {title:?} in\n{text}");
    lines
        .find(|l| l.split_whitespace().next() == Some(row))
        .unwrap_or_else(|| panic!("no row {row} after {title:?} in\n{text}"))
        .split_whitespace()
        .collect()
}

const SUMMARY_TITLE: &str = "compression ratio per workload and algorithm (uncompressed / stored bytes):";
const LCP_SUMMARY_TITLE: &str = "LCP over BDI per workload (each allocation in 4 KB pages of 512, 1024, 2048 or 4096 bytes; \
     lcp = 4096 x pages / physical bytes, lcp_data = 128 x entries / physical bytes):";
const MAG_SUMMARY_TITLE: &str = "MAG-BDI paper ratios per workload, all entries (raw: stream bytes; eff: bytes rounded up to the MAG):";

#[test]
fn json_report_of_bundled_workload_is_consistent() {
    let report = json(&["--algo", "zvc"]);
    let study = only_study(&report);
    assert_eq!(study["workload"], "minife");
    let algorithms = study["algorithms"].as_array().unwrap();
    assert_eq!(algorithms.len(), 1);
    let zvc = &algorithms[0];
    assert_eq!(zvc["algorithm"], "zvc");

    let snapshots = zvc["snapshots"].as_array().unwrap();
    let indices: Vec<_> = snapshots.iter().map(|s| s["index"].as_u64().unwrap()).collect();
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
    // ZVC has no MAG-BDI paper ratios.
    assert!(zvc["total"].get("mag_raw_ratio").is_none());
    // The summary of one workload and algorithm: its ratio is the geomean.
    let ratio = &zvc["total"]["compression_ratio"];
    assert_eq!(report["summary"]["workloads"][0]["ratios"]["zvc"], *ratio);
    assert_eq!(report["summary"]["geomean"]["zvc"], *ratio);
}

#[test]
fn table_has_a_total_row_and_a_line_per_snapshot() {
    let out = buddy(&["compress", "--algo", "zvc"]);
    assert!(out.stderr.is_empty(), "nothing on stderr: {}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);
    let report = json(&["--algo", "zvc"]);
    let total = &only_study(&report)["algorithms"][0]["total"];

    let total_row: Vec<&str> = text.lines().find(|l| l.starts_with("TOTAL")).expect("TOTAL row").split_whitespace().collect();
    let ratio = format!("{:.3}", total["compression_ratio"].as_f64().unwrap());
    let mut expected = vec!["TOTAL".to_string(), total["entries"].to_string(), ratio];
    expected.extend(SIZE_CLASSES.map(|(name, _)| total["histogram"][name].to_string()));
    assert_eq!(total_row, expected);

    let snapshot_lines: Vec<&str> = text.lines().filter(|l| l.starts_with("snapshot")).collect();
    assert_eq!(snapshot_lines.len(), 2);
    assert!(snapshot_lines[1].contains("snap_05.bin") && snapshot_lines[1].contains("entries 3297"));
    // One workload and one algorithm: no summary.
    assert!(!text.contains(SUMMARY_TITLE), "{text}");
}

#[test]
fn per_entry_tsv_matches_the_histogram() {
    let text = stdout(&buddy(&["compress", "--per-entry", bundled().to_str().unwrap()]));
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("snapshot\tallocation\tentry\tstream_bits\tclass"));
    let mut histogram = [0u64; 8];
    let mut previous: Option<(String, String, u64)> = None;
    for line in lines {
        let fields: Vec<&str> = line.split('\t').collect();
        let [snapshot, allocation, entry, bits, class] = fields[..] else { panic!("bad line {line}") };
        let entry: u64 = entry.parse().unwrap();
        let bits: u64 = bits.parse().unwrap();
        // Entries are numbered from 0 within each allocation.
        let expected_entry = match &previous {
            Some((s, a, e)) if s == snapshot && a == allocation => e + 1,
            _ => 0,
        };
        assert_eq!(entry, expected_entry, "{line}");
        assert_eq!(class == "ZERO", bits == 0, "{line}");
        let code = SIZE_CLASSES.iter().position(|(name, _)| *name == class).expect("known class");
        histogram[code] += 1;
        previous = Some((snapshot.to_string(), allocation.to_string(), entry));
    }
    let report = json(&[]);
    assert_eq!(histogram, checked_histogram(&only_study(&report)["algorithms"][0]["total"]));
}

#[test]
fn default_algorithm_is_bpc_as_in_every_other_command() {
    let report = json(&[]);
    assert_eq!(only_study(&report)["algorithms"][0]["algorithm"], "bpc");
    assert_eq!(report, json(&["--algo", "bpc"]));
}

#[test]
fn snapshot_option_selects_by_manifest_index() {
    let report = json(&["--snapshot", "5"]);
    let bpc = &only_study(&report)["algorithms"][0];
    let snapshots = bpc["snapshots"].as_array().unwrap();
    assert_eq!(snapshots.len(), 1);
    assert_eq!(snapshots[0]["file"], "snap_05.bin");
    assert_eq!(bpc["total"]["entries"], BUNDLED_SNAPSHOT_ENTRIES);

    let err = failure(&buddy(&["compress", "--snapshot", "3"]));
    assert!(err.contains("no snapshot with index 3 (available: 0, 5)"), "{err}");
}

#[test]
fn raw_file_gives_the_zvc_classes_of_its_entries() {
    let dir = tempfile::tempdir().unwrap();
    let path = raw_file(&dir, "entries.bin", &three_entries());
    let text = stdout(&buddy(&["compress", "--per-entry", "--algo", "zvc", &path]));
    // Stream bits 0, 64 and 1056 (classes ZERO, B8, RAW): see three_entries.
    insta::assert_snapshot!(text);
}

/// A device is rejected before it is read (`/dev/zero` used to be read
/// until memory ran out); so are a FIFO and a folder given as a snapshot.
#[test]
fn devices_fifos_and_folders_are_not_read_as_files() {
    let err = failure(&buddy(&["compress", "/dev/zero"]));
    assert_eq!(err, "error: cannot open workload: /dev/zero is a character device, not a regular file\n");

    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("entries.bin");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let err = failure(&buddy(&["compress", fifo.to_str().unwrap()]));
    assert!(err.ends_with("entries.bin is a FIFO, not a regular file\n"), "{err}");

    let copy = bundled_copy();
    fs::remove_file(copy.path().join("snap_05.bin")).unwrap();
    fs::create_dir(copy.path().join("snap_05.bin")).unwrap();
    let err = failure(&buddy(&["compress", copy.path().to_str().unwrap()]));
    assert!(err.ends_with("snap_05.bin is a folder, not a regular file\n"), "{err}");
}

#[test]
fn missing_path_is_an_error() {
    let err = failure(&buddy(&["compress", "/no/such/workload"]));
    assert_eq!(err, "error: cannot open workload: /no/such/workload: no such file or folder\n");
}

#[test]
fn raw_file_of_bad_size_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.bin");
    fs::write(&path, [7u8; 200]).unwrap();
    let err = failure(&buddy(&["compress", path.to_str().unwrap()]));
    assert!(err.contains("odd.bin is 200 bytes") && err.contains("72 bytes left over"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// `buddy compress --algo <algo>`: a usage error (exit 2, nothing on
/// stdout); returns stderr, which starts with `error: `.
fn bad_algo(algo: &str) -> String {
    let out = buddy(&["compress", "--algo", algo]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr
}

#[test]
fn unknown_algorithm_exits_2_and_lists_valid_choices() {
    let stderr = bad_algo("foo");
    assert!(stderr.contains("unknown algorithm 'foo' (valid: bpc, bdi, mag-bdi, mag-bdi:16, mag-bdi:64, zvc, all"), "{stderr}");
}

#[test]
fn unknown_mag_lists_the_valid_choices() {
    let stderr = bad_algo("zvc,mag-bdi:48");
    assert!(
        stderr.contains(
            "unknown algorithm 'mag-bdi:48' (valid: bpc, bdi, mag-bdi, mag-bdi:16, mag-bdi:64, zvc, all; \
             or a comma-separated list; the MAG of mag-bdi:MAG is one of 16, 32, 64 bytes)"
        ),
        "{stderr}"
    );
}

#[test]
fn output_formats_are_mutually_exclusive() {
    for pair in [["--json", "--csv"], ["--json", "--per-entry"], ["--csv", "--per-entry"]] {
        let out = buddy(&["compress", pair[0], pair[1]]);
        assert_eq!(out.status.code(), Some(2), "{pair:?}");
        assert!(out.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot be used with"), "{stderr}");
    }
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
    insta::assert_snapshot!(text);
}

#[test]
fn snapshots_disagreeing_on_allocations_is_an_error() {
    let dir = bundled_copy();
    edit_manifest(dir.path(), |m| m["snapshots"][1]["allocations"][4]["name"] = "c".into());
    let err = failure(&buddy(&["compress", dir.path().to_str().unwrap()]));
    assert!(err.contains("snap_05.bin, allocation #4 is 'c' (10648 bytes), but in snapshot 0 it is 'b'"), "{err}");
}

#[test]
fn snapshot_file_size_differing_from_manifest_is_an_error() {
    let dir = bundled_copy();
    let snap = dir.path().join("snap_05.bin");
    let mut data = fs::read(&snap).unwrap();
    data.truncate(data.len() - 128);
    fs::write(&snap, data).unwrap();
    let err = failure(&buddy(&["compress", dir.path().to_str().unwrap()]));
    assert!(err.contains("snap_05.bin is 421888 bytes, but the manifest gives file_size 422016"), "{err}");
}

#[test]
fn invalid_manifest_names_the_file() {
    let dir = bundled_copy();
    fs::write(dir.path().join("manifest.json"), "{\"workload\": ").unwrap();
    let err = failure(&buddy(&["compress", dir.path().to_str().unwrap()]));
    assert!(err.contains("invalid manifest ") && err.contains("manifest.json: EOF"), "{err}");
}

/// Two workloads, two algorithms: per workload the same study objects as
/// when each runs alone, and a summary whose ratios and geometric means are
/// those computed here from the separate runs (and for ZVC on the raw file
/// by hand).
#[test]
fn summary_gives_the_ratio_per_workload_and_the_geomean() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_file(&dir, "entries.bin", &three_entries());
    let bundled = bundled().to_str().unwrap().to_string();
    let both = json(&["--algo", "zvc,bpc", &bundled, &raw]);
    let alone = [&bundled, &raw].map(|path| json(&["--algo", "zvc,bpc", path]));
    for (i, single) in alone.iter().enumerate() {
        assert_eq!(both["workloads"][i], *only_study(single));
    }
    let ratio = |report: &Value, algo: usize| {
        let total = &only_study(report)["algorithms"][algo]["total"];
        total["uncompressed_bytes"].as_f64().unwrap() / total["stored_bytes"].as_f64().unwrap()
    };
    assert_eq!(ratio(&alone[1], 0), 384.0 / 136.0);

    let summary = &both["summary"];
    assert_eq!(summary["algorithms"], json!(["zvc", "bpc"]));
    assert_eq!(summary["workloads"][0]["name"], "minife");
    assert_eq!(summary["workloads"][1]["name"], "entries.bin");
    assert_eq!(summary["workloads"][1]["path"], raw);
    let text = stdout(&buddy(&["compress", "--algo", "zvc,bpc", &bundled, &raw]));
    assert_eq!(row_after(&text, SUMMARY_TITLE, "workload"), ["workload", "zvc", "bpc"]);
    for (a, name) in ["zvc", "bpc"].into_iter().enumerate() {
        let ratios = [ratio(&alone[0], a), ratio(&alone[1], a)];
        let geomean = (ratios[0] * ratios[1]).sqrt();
        for (w, r) in ratios.iter().enumerate() {
            let reported = summary["workloads"][w]["ratios"][name].as_f64().unwrap();
            assert!((reported - r).abs() < 1e-12, "{name} {w}: {reported} vs {r}");
        }
        let reported = summary["geomean"][name].as_f64().unwrap();
        assert!((reported - geomean).abs() < 1e-12, "{name}: {reported} vs {geomean}");
        assert_eq!(summary["geomean_excluded"][name], json!([]));
        assert_eq!(row_after(&text, SUMMARY_TITLE, "minife")[1 + a], format!("{:.3}", ratios[0]));
        assert_eq!(row_after(&text, SUMMARY_TITLE, "entries.bin")[1 + a], format!("{:.3}", ratios[1]));
        assert_eq!(row_after(&text, SUMMARY_TITLE, "GEOMEAN")[1 + a], format!("{geomean:.3}"));
    }
    // No MAG-BDI studied: no MAG-BDI summary.
    assert!(!text.contains(MAG_SUMMARY_TITLE), "{text}");
}

/// An all-zero workload stores nothing (ratio infinite): shown as `inf`,
/// null in JSON, and left out of the geometric mean, which says so.
#[test]
fn geomean_leaves_out_workloads_with_nothing_stored() {
    let dir = tempfile::tempdir().unwrap();
    let zero = raw_file(&dir, "zero.bin", &[0u8; 2 * 128]);
    let raw = raw_file(&dir, "entries.bin", &three_entries());
    let summary = &json(&["--algo", "zvc", &zero, &raw])["summary"];
    assert!(summary["workloads"][0]["ratios"]["zvc"].is_null());
    let geomean = summary["geomean"]["zvc"].as_f64().unwrap();
    assert!((geomean - 384.0 / 136.0).abs() < 1e-12, "{geomean}");
    assert_eq!(summary["geomean_excluded"]["zvc"], json!(["zero.bin"]));

    let text = stdout(&buddy(&["compress", "--algo", "zvc", &zero, &raw]));
    assert_eq!(row_after(&text, SUMMARY_TITLE, "zero.bin"), ["zero.bin", "inf"]);
    assert_eq!(row_after(&text, SUMMARY_TITLE, "GEOMEAN"), ["GEOMEAN", "2.824"]);
    assert!(text.contains("\nGEOMEAN of zvc leaves out (ratio inf or no entries): zero.bin\n"), "{text}");

    let csv = stdout(&buddy(&["compress", "--csv", "--algo", "zvc", &zero]));
    assert!(csv.ends_with("\nzero.bin,zvc,all,TOTAL,2,256,0,inf,2,0,0,0,0,0,0,0,,,,,,\n"), "{csv}");
}

/// Four entries whose MAG-BDI paper streams are known: two all-zero entries
/// (k = 1, MAG bytes each: the paper has no ZERO class), words 300 and 600
/// then zeros (the smallest delta width holding 300 against the zero base
/// and 600 against itself is 10 bits: MAG 16 k = 3, 48 bytes; MAG 32 and
/// 64: 64 bytes), and words with bit 30 set that no encoding holds
/// (uncompressed, 128 bytes).
fn mag_entries() -> Vec<u8> {
    let mut data = vec![0u8; 4 * 128];
    data[256..260].copy_from_slice(&300u32.to_le_bytes());
    data[260..264].copy_from_slice(&600u32.to_le_bytes());
    for (i, word) in data[384..].chunks_exact_mut(4).enumerate() {
        let w = (i as u32 + 1).wrapping_mul(0x9E37_79B9) | 0x4000_0000;
        word.copy_from_slice(&w.to_le_bytes());
    }
    data
}

#[test]
fn mag_bdi_raw_and_effective_ratios_of_known_entries() {
    let dir = tempfile::tempdir().unwrap();
    let path = raw_file(&dir, "mag.bin", &mag_entries());
    let algos = "mag-bdi,mag-bdi:16,mag-bdi:64";
    // Σ paper bytes: MAG 32: 32 + 32 + 64 + 128 = 256; MAG 16: 16 + 16 +
    // 48 + 128 = 208; MAG 64: 64 + 64 + 64 + 128 = 320. Every stream is a
    // whole number of MAGs, so raw = effective.
    let expected = [("mag-bdi", 512.0 / 256.0), ("mag-bdi:16", 512.0 / 208.0), ("mag-bdi:64", 512.0 / 320.0)];
    let report = json(&["--algo", algos, &path]);
    let study = only_study(&report);
    let text = stdout(&buddy(&["compress", "--algo", algos, &path]));
    for (i, (name, r)) in expected.into_iter().enumerate() {
        let alg = &study["algorithms"][i];
        assert_eq!(alg["algorithm"], name);
        let snapshot = &alg["snapshots"][0];
        for stats in [&alg["total"], &alg["allocations"][0], &snapshot["total"], &snapshot["allocations"][0]] {
            assert_eq!(stats["mag_raw_ratio"], r, "{name} {stats}");
            assert_eq!(stats["mag_effective_ratio"], r, "{name} {stats}");
        }
        // Buddy stores ZERO, ZERO, B64 (MAG 16: the k = 4 stream), RAW.
        assert_eq!(checked_histogram(&alg["total"]), [2, 0, 0, 0, 1, 0, 0, 1], "{name}");
        assert_eq!(report["summary"]["workloads"][0]["mag_raw_ratios"][name], r);
        assert_eq!(report["summary"]["workloads"][0]["mag_effective_ratios"][name], r);
        let geomean = report["summary"]["geomean_mag_raw"][name].as_f64().unwrap();
        assert!((geomean - r).abs() < 1e-12, "{name}: {geomean}");

        let total = row_after(&text, &format!("algorithm {name}, all snapshots:"), "TOTAL");
        assert_eq!(total[1..3], ["4", "2.667"], "{name}");
        assert_eq!(total[11..], [format!("{r:.3}"), format!("{r:.3}")], "{name}");
    }
    assert_eq!(
        row_after(&text, MAG_SUMMARY_TITLE, "workload")[1..],
        ["mag-bdi", "raw", "mag-bdi", "eff", "mag-bdi:16", "raw", "mag-bdi:16", "eff", "mag-bdi:64", "raw", "mag-bdi:64", "eff"]
    );
    assert_eq!(row_after(&text, MAG_SUMMARY_TITLE, "mag.bin")[1..], ["2.000", "2.000", "2.462", "2.462", "1.600", "1.600"]);

    // Per entry, stream_bits is what Buddy stores: the k = 4 stream for MAG 16 k = 3.
    let per_entry = stdout(&buddy(&["compress", "--per-entry", "--algo", "mag-bdi:16", &path]));
    insta::assert_snapshot!("mag_bdi16_per_entry", per_entry);
}

/// Finds the stats object of a CSV row (snapshot or `all`, allocation or
/// `TOTAL`) in an algorithm object of the JSON report.
fn stats_of<'a>(alg: &'a Value, snapshot: &str, allocation: &str) -> &'a Value {
    let (total, allocations) = if snapshot == "all" {
        (&alg["total"], &alg["allocations"])
    } else {
        let index: u64 = snapshot.parse().unwrap();
        let snap = alg["snapshots"].as_array().unwrap().iter().find(|s| s["index"] == index).expect("snapshot");
        (&snap["total"], &snap["allocations"])
    };
    if allocation == "TOTAL" {
        total
    } else {
        allocations.as_array().unwrap().iter().find(|a| a["name"] == allocation).expect("allocation")
    }
}

#[test]
fn csv_parses_and_matches_the_json_report() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_file(&dir, "entries.bin", &three_entries());
    let bundled = bundled().to_str().unwrap().to_string();
    let report = json(&["--algo", "all", &bundled, &raw]);
    let out = buddy(&["compress", "--csv", "--algo", "all", &bundled, &raw]);
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout(&out);

    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut expected_header =
        vec!["workload", "algorithm", "snapshot", "allocation", "entries", "uncompressed_bytes", "stored_bytes", "ratio"];
    expected_header.extend(SIZE_CLASSES.map(|(name, _)| name));
    expected_header.extend(["mag_raw_ratio", "mag_effective_ratio", "lcp_pages", "lcp_physical_bytes", "lcp_ratio", "lcp_data_ratio"]);
    assert_eq!(reader.headers().unwrap().iter().collect::<Vec<_>>(), expected_header);
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    // Per algorithm: minife (2 snapshots and `all`) × (9 allocations and
    // TOTAL), the raw file (1 snapshot and `all`) × (1 allocation and TOTAL).
    assert_eq!(rows.len(), 6 * (3 * 10 + 2 * 2));

    let workloads = report["workloads"].as_array().unwrap();
    for row in &rows {
        let study = workloads.iter().find(|s| s["workload"] == row[0]).expect("workload");
        let alg = study["algorithms"].as_array().unwrap().iter().find(|a| a["algorithm"] == row[1]).expect("algorithm");
        let stats = stats_of(alg, &row[2], &row[3]);
        let number = |i: usize| row[i].parse::<u64>().unwrap();
        assert_eq!(number(4), stats["entries"], "{row:?}");
        assert_eq!(number(5), stats["uncompressed_bytes"], "{row:?}");
        assert_eq!(number(6), stats["stored_bytes"], "{row:?}");
        // Ratios in full precision: exactly the quotients of the JSON sums
        // (serde_json may parse the JSON ratios themselves one ulp off).
        let quotient = |a: &str, b: &str| stats[a].as_f64().unwrap() / stats[b].as_f64().unwrap();
        assert_eq!(row[7].parse::<f64>().unwrap(), quotient("uncompressed_bytes", "stored_bytes"), "{row:?}");
        assert_eq!(checked_histogram(stats), std::array::from_fn(|c| number(8 + c)), "{row:?}");
        if row[1].starts_with("mag-bdi") {
            let raw = row[16].parse::<f64>().unwrap();
            let effective = row[17].parse::<f64>().unwrap();
            assert_eq!(raw, 8.0 * quotient("uncompressed_bytes", "mag_stream_bits"), "{row:?}");
            assert_eq!(effective, quotient("uncompressed_bytes", "mag_fetched_bytes"), "{row:?}");
            assert!((raw - stats["mag_raw_ratio"].as_f64().unwrap()).abs() < 1e-12, "{row:?}");
            assert!((effective - stats["mag_effective_ratio"].as_f64().unwrap()).abs() < 1e-12, "{row:?}");
        } else {
            assert_eq!((&row[16], &row[17]), ("", ""), "{row:?}");
        }
        if &row[1] == "bdi" {
            // LCP: 4096 x pages / physical bytes, and the entries' bytes / physical bytes.
            assert_eq!(number(18), stats["lcp_pages"], "{row:?}");
            assert_eq!(number(19), stats["lcp_physical_bytes"], "{row:?}");
            let pages = stats["lcp_pages"].as_f64().unwrap();
            assert_eq!(row[20].parse::<f64>().unwrap(), 4096.0 * pages / stats["lcp_physical_bytes"].as_f64().unwrap(), "{row:?}");
            assert_eq!(row[21].parse::<f64>().unwrap(), quotient("uncompressed_bytes", "lcp_physical_bytes"), "{row:?}");
            let sizes = stats["lcp_page_sizes"].as_object().unwrap();
            let (mut n, mut bytes) = (0.0, 0.0);
            for (size, count) in sizes {
                n += count.as_f64().unwrap();
                bytes += count.as_f64().unwrap() * size.parse::<f64>().unwrap();
            }
            assert_eq!((n, bytes), (pages, stats["lcp_physical_bytes"].as_f64().unwrap()), "{row:?}");
        } else {
            assert_eq!((&row[18], &row[19], &row[20], &row[21]), ("", "", "", ""), "{row:?}");
        }
    }
}

/// LCP over BDI in the text report: the BDI table's columns and the
/// summary's LCP table, whose figures are those of the JSON report.
#[test]
fn bdi_reports_lcp_pages_and_ratios() {
    let dir = tempfile::tempdir().unwrap();
    // 33 entries: 32 zero (a 512-byte page) and one RAW entry alone in a
    // zero-padded page (c* = 8 with one exception: 448 bytes, a 512-byte page).
    let mut data = vec![0u8; 33 * 128];
    for (i, b) in data[32 * 128..].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(97).wrapping_add(i as u8 >> 3);
    }
    let raw = raw_file(&dir, "lcp.bin", &data);
    let report = json(&["--algo", "bdi", &raw]);
    let total = &report["workloads"][0]["algorithms"][0]["total"];
    assert_eq!((total["lcp_pages"].as_u64(), total["lcp_physical_bytes"].as_u64()), (Some(2), Some(1024)));
    assert_eq!(total["lcp_ratio"].as_f64(), Some(8.0));
    assert_eq!(total["lcp_data_ratio"].as_f64(), Some(33.0 * 128.0 / 1024.0));
    assert_eq!(total["lcp_page_sizes"], json!({"512": 2, "1024": 0, "2048": 0, "4096": 0}));
    let summary = &report["summary"];
    assert_eq!(summary["workloads"][0]["lcp_ratios"], json!({"bdi": 8.0}));
    assert!((summary["geomean_lcp"]["bdi"].as_f64().unwrap() - 8.0).abs() < 1e-12); // exp(ln 8)

    let text = stdout(&buddy(&["compress", "--algo", "bdi,zvc", &raw]));
    assert_eq!(row_after(&text, "algorithm bdi, all snapshots:", "TOTAL")[11..], ["2", "8.000", "4.125"]);
    assert!(text.contains("ratio 33.000  lcp 2 pages in 1024 B, ratio 8.000 (data 4.125)"), "{text}");
    assert_eq!(row_after(&text, LCP_SUMMARY_TITLE, "lcp.bin"), ["lcp.bin", "2", "2", "0", "0", "0", "1024", "8.000", "4.125"]);
    // Without BDI there is no LCP table.
    assert!(!stdout(&buddy(&["compress", "--algo", "zvc", &raw])).contains("LCP"));
}

#[test]
fn per_entry_with_two_workloads_has_a_workload_column() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_file(&dir, "entries.bin", &three_entries());
    let zero = raw_file(&dir, "zero.bin", &[0u8; 128]);
    let text = stdout(&buddy(&["compress", "--per-entry", "--algo", "zvc", &raw, &zero]));
    insta::assert_snapshot!("per_entry_of_two_workloads", text);

    // Several algorithms too: the algo column follows the workload column.
    let text = stdout(&buddy(&["compress", "--per-entry", "--algo", "zvc,bpc", &raw, &zero]));
    insta::assert_snapshot!("per_entry_of_two_workloads_and_two_algorithms", text);
}

/// The whole text report on two small raw files and four algorithms: every
/// table (BDI's LCP columns, MAG-BDI's paper ratios), the summaries and the
/// geometric means that leave out the all-zero file.
#[test]
fn table_of_two_raw_files_and_four_algorithms() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_file(&dir, "entries.bin", &three_entries());
    let zero = raw_file(&dir, "zero.bin", &[0u8; 2 * 128]);
    let text = stdout(&buddy(&["compress", "--algo", "zvc,bpc,bdi,mag-bdi", &raw, &zero]));
    common::without_dir(dir.path()).bind(|| insta::assert_snapshot!(text));
}
