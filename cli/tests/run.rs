//! `buddy run` end to end on a small raw workload: the report leads with
//! its summary (a second run into the same folder is `output.rs`'s unit
//! test: a whole `buddy run` takes about 25 s).

mod common;

use std::fs;

use common::{buddy, bundled, stdout};

#[test]
fn the_report_leads_with_the_summary_and_a_rerun_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    // 512 real entries of the bundled snapshot as a raw file: every module
    // is checked on a small share, the memory system sweeps the snapshot.
    let snapshot = fs::read(bundled().join("snap_00.bin")).unwrap();
    let raw = dir.path().join("entries.bin");
    fs::write(&raw, &snapshot[..512 * 128]).unwrap();
    let out = dir.path().join("out");
    let args = ["run", raw.to_str().unwrap(), "--out", out.to_str().unwrap()];
    let text = stdout(&buddy(&args));
    assert!(text.contains("report: "), "{text}");
    let report = fs::read_to_string(out.join("REPORT.md")).unwrap();
    let lines: Vec<&str> = report.lines().collect();
    let first_section = lines.iter().find(|l| l.starts_with("## ")).unwrap();
    assert_eq!(*first_section, "## Summary", "the first section is the summary:\n{report}");
    let head = lines[..40.min(lines.len())].join("\n");
    for needle in [
        "**Hardware == golden:** 26 of 26 modules matched",
        "0 mismatches",
        "**Compression**",
        "bpc ",
        "**Memory system**",
        "| uncompressed |",
        "| buddy |",
        "**Outputs:**",
        "**Wall time:**",
    ] {
        assert!(head.contains(needle), "the first 40 lines lack {needle:?}:\n{head}");
    }
    // The file list comes last.
    let files = report.find("## Files").expect("a file list");
    assert!(report[files..].contains("- `verilog/"), "{report}");
    assert!(report.find("## Hardware == golden model").unwrap() < files);
}
