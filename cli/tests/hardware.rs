//! `buddy equiv`, `buddy vectors` and `buddy synth` argument handling, run
//! as processes on a small raw file of entries.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Every delivered module, as `buddy` names them.
const MODULES: [&str; 8] = [
    "zvc_compressor",
    "zvc_decompressor",
    "mag_bdi32_compressor",
    "mag_bdi32_decompressor",
    "mag_bdi16_compressor",
    "mag_bdi16_decompressor",
    "mag_bdi64_compressor",
    "mag_bdi64_decompressor",
];

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
                2 => if i % 5 == 0 { e + i } else { 0 },
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
    assert_eq!(names, MODULES);
    for r in rows {
        assert_eq!(r["entries"], 48, "{r}");
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
    for m in MODULES {
        let text = std::fs::read_to_string(out_dir.join(format!("{m}.hex"))).unwrap();
        // Compressors: 48 + 7 + 10 entries; decompressors add 10 / 5 malformed inputs.
        let expected = if m.ends_with("_decompressor") { 67 } else { 65 };
        assert_eq!(text.lines().count(), expected, "{m}");
        assert!(text.lines().all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_hexdigit())), "{m}");
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn synth_rejects_an_unknown_module_and_lists_the_valid_ones() {
    let out = buddy(&["synth", "--module", "bpc_compressor"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown module 'bpc_compressor'"), "{err}");
    for m in MODULES {
        assert!(err.contains(m), "{m} missing from: {err}");
    }
}
