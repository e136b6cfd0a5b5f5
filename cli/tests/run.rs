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
    let first_section = report.lines().find(|l| l.starts_with("## ")).unwrap();
    assert_eq!(first_section, "## Summary", "the first section is the summary:\n{report}");
    // The summary: up to the next section, within the first 40 lines.
    let start = report.find("## Summary").unwrap();
    let end = report[start..].find("\n## ").map_or(report.len(), |i| start + i + 1);
    assert!(report[..end].lines().count() <= 40, "the summary ends after line 40:\n{report}");
    let summary = &report[start..end];
    // Wall-clock times vary (and so does the slowest module): blanked.
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\(slowest: [^)]*\)", "(slowest: [module, time])");
    settings.add_filter(r"\d+\.\d+ s\b", "[time]");
    settings.bind(|| insta::assert_snapshot!("run_report_summary", summary));
    // The file list comes last.
    let files = report.find("## Files").expect("a file list");
    assert!(report[files..].contains("- `verilog/"), "{report}");
    assert!(report.find("## Hardware == golden model").unwrap() < files);
    // Every module's VCD has its GTKWave save file, naming the VCD beside it (#53).
    for m in buddy_delivery::modules::HwModule::all() {
        let gtkw = fs::read_to_string(out.join("vcd").join(format!("{}.gtkw", m.name()))).unwrap();
        assert!(gtkw.contains(&format!("[dumpfile] \"{}.vcd\"", m.name())), "{gtkw}");
    }
    assert!(out.join("vcd/size_class.txt").is_file());
}
