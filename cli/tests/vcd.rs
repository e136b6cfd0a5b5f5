//! `buddy sim --engine rtl --vcd-from C --vcd-to C`: the VCDs a hardware
//! engineer expects (issue #23 item 5). Before: a 10 ps clock, buses as
//! 32-bit words, a scope per register, and a header-only `slice<N>.vcd`
//! for every slice idle in the window, said nowhere.

mod common;

use std::fs;

use common::{buddy, bundled_copy_with_trace, edit_json, stdout};
use serde_json::Value;
use vcd::{Command, ReferenceIndex, ScopeItem, TimescaleUnit};

/// The first 3,000 accesses of the bundled trace (103 L2 requests, served
/// by some of the 8 slices in cycles 100..=300), through the RTL engine.
#[test]
fn rtl_vcds_have_the_dram_clock_whole_buses_and_no_idle_files() {
    let w = bundled_copy_with_trace();
    let records = 3000;
    let trace = fs::read(w.path().join("trace.bin")).unwrap();
    fs::write(w.path().join("trace.bin"), &trace[..12 * records]).unwrap();
    edit_json(w.path(), "trace_meta.json", |m| m["records"] = records.into());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let run = buddy(&[
        "sim",
        w.path().to_str().unwrap(),
        "--engine",
        "rtl",
        "--mode",
        "buddy",
        "--vcd-from",
        "100",
        "--vcd-to",
        "300",
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = stdout(&run);

    // Idle slices: named in the summary and sim.json, no file; a busy
    // slice has its VCD and save file.
    let report: Value = serde_json::from_slice(&fs::read(out.join("sim.json")).unwrap()).unwrap();
    let idle: Vec<u64> = report[0]["vcd_idle_slices"].as_array().expect("vcd_idle_slices").iter().map(|v| v.as_u64().unwrap()).collect();
    let busy: Vec<u64> = (0..8).filter(|s| !idle.contains(s)).collect();
    assert!(!idle.is_empty() && !busy.is_empty(), "103 requests in 200 cycles leave some of the 8 slices idle: idle {idle:?}");
    let names = idle.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    assert!(text.contains(&format!("slices {names} idle in the window (no cycle simulated): no VCD written")), "{text}");
    assert!(fs::read_to_string(out.join("summary.txt")).unwrap().contains("idle in the window"));
    let vcds = out.join("vcd").join("buddy");
    for s in 0..8 {
        let written = (vcds.join(format!("slice{s}.vcd")).exists(), vcds.join(format!("slice{s}.gtkw")).exists());
        assert_eq!(written, (busy.contains(&s), busy.contains(&s)), "slice{s}: (vcd, gtkw) written; idle {idle:?}");
    }

    // A busy slice's GTKWave save file (#53): the pipelined slice's port groups, every trace a signal of its VCD.
    let b = busy[0];
    let gtkw = std::fs::read_to_string(vcds.join(format!("slice{b}.gtkw"))).expect("slice<N>.gtkw beside slice<N>.vcd");
    let header0 = buddy_delivery::waves::read_header(&vcds.join(format!("slice{b}.vcd"))).unwrap();
    let check = buddy_delivery::waves::check_save_file(&gtkw, &header0, &vcds).unwrap();
    let groups = buddy_delivery::modules::HwModule::slice(buddy_golden::HardwareCodec::Bpc, true).signal_groups();
    assert_eq!(check.signals, groups.iter().map(|g| g.signals.len()).sum::<usize>());
    assert!(check.filtered >= 2 && gtkw.contains("-metadata lookup\n") && gtkw.contains("\nuut.bud_mem_valid\n"), "{gtkw}");
    let misspelt = gtkw.replace("uut.resp_fault[2:0]", "uut.resp_falt[2:0]");
    assert!(buddy_delivery::waves::check_save_file(&misspelt, &header0, &vcds).unwrap_err().contains("uut.resp_falt"));

    // The busy slice: the DRAM clock (875 MHz, 1,142,857.14 fs per cycle) from cycle 100.
    let path = vcds.join(format!("slice{b}.vcd"));
    let mut parser = vcd::Parser::new(std::io::BufReader::new(fs::File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    assert_eq!(header.timescale, Some((1, TimescaleUnit::FS)));
    let data = header.find_var(&["uut", "req_data"]).expect("req_data as one var");
    assert_eq!((data.size, data.index), (1024, Some(ReferenceIndex::Range(1023, 0))));
    // A register under its own name (the Verilog's instance `w0_payload`).
    assert_eq!(header.find_var(&["uut", "w0_payload"]).map(|v| v.size), Some(1024));
    assert!(header.find_scope(&["uut", "w0_payload"]).is_none(), "no scope per register");
    fn is_word(field: &str) -> bool {
        field.strip_prefix('w').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    }
    fn words(items: &[ScopeItem], found: &mut Vec<String>) {
        for item in items {
            match item {
                ScopeItem::Var(v) if v.reference.rsplit_once('$').is_some_and(|(_, w)| is_word(w)) => found.push(v.reference.clone()),
                ScopeItem::Scope(s) => words(&s.items, found),
                _ => {}
            }
        }
    }
    let mut found = Vec::new();
    words(&header.items, &mut found);
    assert!(found.is_empty(), "word vars left: {found:?}");

    let clock = header.find_var(&["uut", "clock"]).unwrap().code;
    let (mut time, mut first, mut rising) = (0u64, None, Vec::new());
    for cmd in parser {
        match cmd.unwrap() {
            Command::Timestamp(t) => {
                time = t;
                first = first.or(Some(t));
            }
            Command::ChangeScalar(c, vcd::Value::V1) if c == clock => rising.push(time),
            _ => {}
        }
    }
    let period_fs: f64 = 1e9 / 875.0;
    assert_eq!(first, Some((100.0 * period_fs).round() as u64), "the window starts at cycle 100");
    assert!(rising.len() > 100, "{} rising edges", rising.len());
    for pair in rising.windows(2) {
        let cycles = ((pair[1] - pair[0]) as f64 / period_fs).round();
        assert!(cycles >= 1.0 && ((pair[1] - pair[0]) as f64 - cycles * period_fs).abs() <= 1.0, "{pair:?}");
    }
    assert!(*rising.last().unwrap() <= (300.0 * period_fs).round() as u64);
}
