//! `buddy equiv`, `buddy vectors` and `buddy synth` argument handling, run
//! as processes on a small raw file of entries.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Every delivered module, as `buddy` names them: the registry's list, in
/// its order (`buddy equiv` must report exactly these, in this order).
fn modules() -> Vec<&'static str> {
    buddy_delivery::modules::HwModule::all().iter().map(|m| m.name()).collect()
}

fn buddy(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_buddy")).args(args).output().expect("run buddy")
}

fn work_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("buddy-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// 48 entries: zero, small values around a base (MAG-BDI compressible),
/// sparse words (ZVC compressible) and dense random-looking words.
fn small_raw_file(dir: &std::path::Path) -> PathBuf {
    let mut bytes = Vec::new();
    for e in 0u32..48 {
        for i in 0u32..32 {
            let w = match e % 4 {
                0 => 0,
                1 => 0x4000_0000 + e * 1000 + i * 3,
                2 => {
                    if i % 5 == 0 {
                        e + i
                    } else {
                        0
                    }
                }
                _ => (e * 32 + i).wrapping_mul(0x9e37_79b9),
            };
            bytes.extend_from_slice(&w.to_le_bytes());
        }
    }
    let path = dir.join("entries.bin");
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn equiv_checks_every_module_with_no_mismatch() {
    let dir = work_dir("equiv");
    let file = small_raw_file(&dir);
    let out = buddy(&["equiv", file.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json.as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["module"].as_str().unwrap()).collect();
    assert_eq!(names, modules());
    for r in rows {
        // The metadata caches get one random operation per entry, then a flush;
        // the request contexts one random cycle per entry, at least 100.
        // The controller slice runs 100 requests (the minimum) in each of the 3 modes.
        if r["module"] == "read_planner" || r["module"] == "write_planner" || r["module"] == "memory_port" {
            // Random jobs over at least 300 cycles.
            assert!(r["entries"].as_u64().unwrap() >= 50 && r["mismatches"] == 0, "{r}");
            continue;
        }
        if r["module"] == "sector_gather" {
            // Random reads over at least 300 cycles: every context primed, then more.
            assert!(r["entries"].as_u64().unwrap() >= 128 && r["mismatches"] == 0, "{r}");
            continue;
        }
        let inputs = match r["module"].as_str() {
            Some("metadata_cache" | "pipelined_metadata_cache") => 49,
            Some("request_contexts") => 100,
            Some(m) if m.starts_with("buddy_controller") => 300,
            // The pipelined slice runs 100 requests (the minimum) over its own scenario pages.
            Some(m) if m.starts_with("pipelined_controller") => 100,
            _ => 48,
        };
        assert_eq!(r["entries"], inputs, "{r}");
        assert_eq!(r["mismatches"], 0, "{r}");
        assert!(r["cycles"].as_u64().unwrap() >= 48, "{r}");
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn vectors_writes_one_file_per_module_with_the_right_line_count() {
    let dir = work_dir("vectors");
    let file = small_raw_file(&dir);
    let out_dir = dir.join("vectors");
    let out = buddy(&["vectors", file.to_str().unwrap(), "--out", out_dir.to_str().unwrap(), "--random", "10", "--boundary", "7"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for m in modules() {
        let text = std::fs::read_to_string(out_dir.join(format!("{m}.hex"))).unwrap();
        // Compressors and the translator: 48 + 7 + 10 entries (accesses);
        // decompressors add 10 / 5 malformed inputs; the cache adds a flush.
        if m.starts_with("buddy_controller") {
            // Lock-step lines, one per simulated cycle of two scenarios (20 and 6 requests), 945 hex digits each.
            assert!(text.lines().count() > 500 && text.lines().all(|l| l.len() == 945), "{m}: {} lines", text.lines().count());
            continue;
        }
        if m.starts_with("pipelined_controller") {
            // Lock-step lines of 20 requests and a flush, one per cycle from reset, every port's hex digits.
            use buddy_delivery::pipelined_controller::{LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS};
            let digits = lockstep_digits(LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS);
            assert!(text.lines().count() > 100 && text.lines().all(|l| l.len() == digits), "{m}");
            continue;
        }
        if m.starts_with("cdma_zvc") {
            // Lock-step lines of the 65 entries (4 sectors each), one per cycle from reset, every port's hex digits.
            use buddy_delivery::cdma_zvc::*;
            let (inputs, outputs) = if m == "cdma_zvc_compressor" {
                (COMPRESSOR_LOCKSTEP_INPUTS, COMPRESSOR_LOCKSTEP_OUTPUTS)
            } else {
                (DECOMPRESSOR_LOCKSTEP_INPUTS, DECOMPRESSOR_LOCKSTEP_OUTPUTS)
            };
            let digits: usize =
                inputs.iter().map(|p| p.1.div_ceil(4)).sum::<usize>() + outputs.iter().map(|p| p.1.div_ceil(4)).sum::<usize>();
            assert!(text.lines().count() > 4 * 65 && text.lines().all(|l| l.len() == digits), "{m}");
            continue;
        }
        if m == "memory_port" {
            // Lock-step lines: reset, then one per random cycle (at least 300) and the drain, every port's hex digits.
            use buddy_delivery::memory_port::{LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS};
            let digits = lockstep_digits(LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS);
            assert!(text.lines().count() > 301 && text.lines().all(|l| l.len() == digits), "{m}");
            continue;
        }
        if m == "write_planner" {
            // Lock-step lines: reset, then one per random cycle (at least 300) and the drain, every port's hex digits.
            use buddy_delivery::write_planner::{LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS};
            let digits = lockstep_digits(LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS);
            assert!(text.lines().count() > 301 && text.lines().all(|l| l.len() == digits), "{m}");
            continue;
        }
        if m == "read_planner" {
            // Lock-step lines: reset, then one per random cycle (at least 300) and the drain, every port's hex digits.
            use buddy_delivery::read_planner::{LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS};
            let digits = lockstep_digits(LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS);
            assert!(text.lines().count() > 301 && text.lines().all(|l| l.len() == digits), "{m}");
            continue;
        }
        if m == "sector_gather" {
            // Lock-step lines: reset, then one per random cycle (at least 300) and the drain, every port's hex digits.
            use buddy_delivery::sector_gather::{LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS};
            let digits = lockstep_digits(LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS);
            assert!(text.lines().count() > 301 && text.lines().all(|l| l.len() == digits), "{m}");
            continue;
        }
        if m == "request_contexts" {
            // Lock-step lines: reset, then one per random cycle (at least 100), every port's hex digits.
            use buddy_delivery::request_contexts::{LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS};
            let digits = lockstep_digits(LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS);
            assert!(text.lines().count() == 101 && text.lines().all(|l| l.len() == digits), "{m}");
            continue;
        }
        let expected = match m {
            "metadata_cache" | "pipelined_metadata_cache" => 66,
            _ if m.ends_with("_decompressor") => 67,
            _ => 65,
        };
        assert_eq!(text.lines().count(), expected, "{m}");
        assert!(text.lines().all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_hexdigit())), "{m}");
    }
    let memory = std::fs::read_to_string(out_dir.join("metadata_cache_memory.hex")).unwrap();
    assert!(memory.lines().count() > 0 && memory.lines().all(|l| l.len() == 81), "memory requests: 1 + 16 + 64 hex digits");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn synth_rejects_an_unknown_module_and_lists_the_valid_ones() {
    let out = buddy(&["synth", "--module", "no_such_module"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown module 'no_such_module'"), "{err}");
    for m in modules() {
        assert!(err.contains(m), "{m} missing from: {err}");
    }
}

fn bundled() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small")
}

#[test]
fn mdcache_reports_hit_rates_per_size_and_writes_a_png() {
    let dir = work_dir("mdcache");
    let png = dir.join("mdcache.png");
    let out = buddy(&["mdcache", bundled().to_str().unwrap(), "--sizes", "1K,4K,64K", "--json", "--plot", png.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let w = &json["workloads"][0];
    assert_eq!(w["trace_accesses"], 112_000);
    let points = w["points"].as_array().unwrap();
    assert_eq!(points.iter().map(|p| p["bytes_per_slice"].as_u64().unwrap()).collect::<Vec<_>>(), vec![1024, 4096, 65536]);
    let mut last = 0.0;
    for p in points {
        let st = &p["stats"];
        let accesses = st["reads"].as_u64().unwrap() + st["writes"].as_u64().unwrap();
        let misses = st["sector_misses"].as_u64().unwrap() + st["line_misses"].as_u64().unwrap();
        assert_eq!(st["hits"].as_u64().unwrap() + misses, accesses, "{p}");
        // Every L2 request is at least one metadata access.
        assert!(accesses >= w["l2_requests"].as_u64().unwrap());
        let rate = p["hit_rate"].as_f64().unwrap();
        assert!(rate >= last && rate <= 1.0, "{p}");
        last = rate;
    }
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(json["slice_interleave"], "hashed");
    // Blocks dealt in turn: the table names the interleave; an unknown name is an error.
    let plain = buddy(&["mdcache", bundled().to_str().unwrap(), "--sizes", "1K", "--slice-interleave", "plain"]);
    let text = String::from_utf8_lossy(&plain.stdout);
    assert!(plain.status.success() && text.contains("8 slices, plain interleave"), "{text}");
    // At 1 KiB per slice the streams that start together on one slice
    // conflict: 69 misses dealt in turn, 54 hashed (json's first point).
    assert!(text.contains("      1K    98.11%       3643       69"), "{text}");
    assert_eq!(points[0]["stats"]["line_misses"].as_u64().unwrap() + points[0]["stats"]["sector_misses"].as_u64().unwrap(), 54);
    let bad = buddy(&["mdcache", "--slice-interleave", "xor"]);
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("hashed"));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn mdcache_names_the_bad_record_of_a_trace_and_rejects_bad_sizes() {
    let dir = work_dir("mdcache-bad");
    std::fs::copy(bundled().join("trace_meta.json"), dir.join("trace_meta.json")).unwrap();
    let mut trace = std::fs::read(bundled().join("trace.bin")).unwrap();
    trace.truncate(12 * 10);
    trace[12 * 3 + 10] = 7; // record 3: rw = 7
    std::fs::write(dir.join("trace.bin"), &trace).unwrap();
    let out = buddy(&["mdcache", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("record 3: rw is 7"), "{err}");
    std::fs::write(dir.join("trace.bin"), &trace[..25]).unwrap();
    let err = String::from_utf8_lossy(&buddy(&["mdcache", dir.to_str().unwrap()]).stderr).into_owned();
    assert!(err.contains("25 bytes is not a whole number of 12-byte records"), "{err}");
    let err = String::from_utf8_lossy(&buddy(&["mdcache", "--sizes", "3K"]).stderr).into_owned();
    assert!(err.contains("must be a power of two"), "{err}");
    let err = String::from_utf8_lossy(&buddy(&["mdcache", "--sizes", "lots"]).stderr).into_owned();
    assert!(err.contains("'lots' is not a size"), "{err}");
    std::fs::remove_dir_all(dir).ok();
}

/// Hex digits of one lock-step line: every input's, then every output's.
fn lockstep_digits(inputs: &[(&str, usize)], outputs: &[(&str, usize, &str)]) -> usize {
    inputs.iter().map(|p| p.1.div_ceil(4)).sum::<usize>() + outputs.iter().map(|p| p.1.div_ceil(4)).sum::<usize>()
}
