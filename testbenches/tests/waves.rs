//! Waveforms that read themselves (#53): every delivered module's VCD gets
//! a GTKWave save file whose every trace is a signal of that VCD, whose
//! groups show every port of the module's Verilog, and whose translate
//! filter files exist beside it; a misspelt signal fails the check.
//!
//! `gtkwave_shows_every_trace_and_names_codes` (ignored, `make waves`) loads
//! every save file in GTKWave itself (headless, under `xvfb-run`) and
//! compares what it displays with the save file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use buddy_delivery::entries::{bundled_workload, snapshot_entries};
use buddy_delivery::modules::HwModule;
use buddy_delivery::waves::{self, check_save_file, read_header, SignalGroup};
use buddy_golden::MemoryEntry;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("testbenches/ sits in the workspace").to_path_buf()
}

/// Entries in each VCD: few, so the 26 VCDs take seconds (the slices run
/// their own fixed request counts whatever this is).
const VCD_ENTRIES: usize = 4;

/// Every module's VCD and save file in `dir`, modules in parallel.
fn write_all(dir: &Path) -> Vec<(HwModule, PathBuf)> {
    let entries: Vec<MemoryEntry> = snapshot_entries(&bundled_workload()).into_iter().take(VCD_ENTRIES).collect();
    std::thread::scope(|s| {
        let jobs: Vec<_> = HwModule::all()
            .iter()
            .map(|&m| {
                let (entries, dir) = (&entries, dir);
                s.spawn(move || {
                    let vcd = dir.join(format!("{}.vcd", m.name()));
                    let start = std::time::Instant::now();
                    m.write_vcd(entries, &vcd).unwrap_or_else(|e| panic!("{}: {e}", m.name()));
                    eprintln!("{}: VCD and save file in {:.1} s", m.name(), start.elapsed().as_secs_f64());
                    (m, vcd)
                })
            })
            .collect();
        jobs.into_iter().map(|j| j.join().expect("a module's VCD")).collect()
    })
}

fn traces(groups: &[SignalGroup]) -> usize {
    groups.iter().map(|g| g.signals.len()).sum()
}

#[test]
fn every_save_file_names_only_signals_of_its_vcd_and_every_verilog_port() {
    let dir = tempfile::tempdir().unwrap();
    let written = write_all(dir.path());
    assert_eq!(written.len(), HwModule::all().len());
    let mut filtered_modules = 0;
    for (m, vcd) in &written {
        let gtkw = vcd.with_extension("gtkw");
        let text = std::fs::read_to_string(&gtkw).unwrap_or_else(|e| panic!("{}: {e}", gtkw.display()));
        let header = read_header(vcd).unwrap();
        let groups = m.signal_groups();
        let check = check_save_file(&text, &header, dir.path()).unwrap_or_else(|e| panic!("{}: {e}", m.name()));
        assert_eq!(check.signals, traces(&groups), "{}: a trace per grouped signal", m.name());
        assert_eq!(check.groups, groups.len(), "{}", m.name());
        let with_filter = groups.iter().flat_map(|g| &g.signals).filter(|s| s.filter.is_some()).count();
        assert_eq!(check.filtered, with_filter, "{}", m.name());
        filtered_modules += usize::from(with_filter > 0);

        // The groups show every port the delivered Verilog declares.
        let verilog_path = workspace().join("verilog-out").join(format!("{}.v", m.name()));
        let verilog = std::fs::read_to_string(&verilog_path).unwrap_or_else(|e| panic!("{}: {e}", verilog_path.display()));
        let ports = buddy_delivery::interface::ports(&verilog, m.name());
        assert!(ports.len() >= 6, "{}: {} ports read from its Verilog", m.name(), ports.len());
        let grouped: BTreeSet<&str> = groups.iter().flat_map(|g| g.signals.iter().map(|s| s.name.as_str())).collect();
        let missing: Vec<&str> = ports.iter().map(|(_, _, n)| n.as_str()).filter(|n| !grouped.contains(n)).collect();
        assert!(missing.is_empty(), "{}: ports in no signal group: {missing:?}", m.name());
        assert!(groups.iter().all(|g| g.title != "other ports"), "{}: a port no rule takes: {groups:?}", m.name());

        // A misspelt trace fails the check, naming it.
        let first = text.lines().find(|l| l.starts_with("uut.")).expect("a trace");
        let misspelt = text.replacen(first, &first.replacen("uut.", "uut.x", 1), 1);
        let e = check_save_file(&misspelt, &header, dir.path()).expect_err("a misspelt trace must fail");
        assert!(e.contains("no such signal"), "{}: {e}", m.name());
    }
    assert!(filtered_modules >= 15, "codes named in {filtered_modules} modules");

    // The filter files beside the save files: the size classes by golden's names.
    let size = std::fs::read_to_string(dir.path().join(waves::Filter::SizeClass.file())).unwrap();
    for c in buddy_golden::SizeClass::ALL {
        assert!(size.contains(&format!("\n{:x} {}\n", c.code(), c.name())), "{c:?} in {size}");
    }

    // A module's groups naming a signal its VCD lacks: no save file.
    let (m, vcd) = &written[0];
    let mut groups = m.signal_groups();
    groups[0].signals[0].name += "_misspelt";
    let e = waves::write_save_file(vcd, &groups, m.name()).expect_err("a misspelt group signal must fail");
    assert!(e.contains("no signal uut.clock_misspelt"), "{e}");
}

/// The traces a save file names (lines that are not flags, titles,
/// filters or `[...]` settings), as GTKWave lists displayed signals.
fn named_traces(text: &str) -> Vec<String> {
    text.lines().filter(|l| !l.is_empty() && !"[@-^*>".contains(&l[..1])).map(str::to_string).collect()
}

/// GTKWave's view of a save file: the displayed traces and, at a few
/// times, the value each shows.
fn gtkwave_view(gtkw: &Path, probe: &Path) -> String {
    let out = Command::new("xvfb-run")
        .args(["-a", "gtkwave", "-S"])
        .arg(probe)
        .arg(gtkw)
        .output()
        .unwrap_or_else(|e| panic!("cannot run xvfb-run gtkwave (install them: `make waves` does): {e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && text.contains("displayed:"),
        "gtkwave on {}: {text}\n{}",
        gtkw.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// `make waves`: GTKWave loads every save file headless, displays exactly
/// its traces, and shows codes through the translate filters by name.
#[test]
#[ignore = "needs gtkwave and xvfb-run (make waves installs them)"]
fn gtkwave_shows_every_trace_and_names_codes() {
    for tool in ["gtkwave", "xvfb-run"] {
        let found = Command::new("sh").args(["-c", &format!("command -v {tool}")]).output().is_ok_and(|o| o.status.success());
        assert!(found, "{tool} not found: `make waves` installs gtkwave and xvfb from Debian");
    }
    let dir = tempfile::tempdir().unwrap();
    let written = write_all(dir.path());
    // Prints the displayed traces, then every trace's value at a few marker times.
    let probe = dir.path().join("probe.tcl");
    std::fs::write(
        &probe,
        "set d [gtkwave::getDisplayedSignals]\nputs \"displayed: $d\"\nset end [gtkwave::getMaxTime]\n\
         foreach f {0.1 0.3 0.5 0.7 0.9} {\n  gtkwave::setMarker [expr {int($end * $f)}]\n  \
         foreach s $d { puts \"value $s = [gtkwave::getTraceValueAtMarkerFromName $s]\" }\n}\ngtkwave::/File/Quit\n",
    )
    .unwrap();
    let mut named = 0;
    for (m, vcd) in &written {
        let gtkw = vcd.with_extension("gtkw");
        let text = std::fs::read_to_string(&gtkw).unwrap();
        let view = gtkwave_view(&gtkw, &probe);
        let displayed: Vec<String> = view
            .lines()
            .find_map(|l| l.strip_prefix("displayed: "))
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        assert_eq!(displayed, named_traces(&text), "{}: GTKWave displays other traces than the save file names", m.name());
        // Every filtered trace shows a name of its filter, never a bare code.
        for g in m.signal_groups() {
            for s in g.signals.iter().filter(|s| s.filter.is_some()) {
                let f = s.filter.unwrap();
                let names: Vec<String> = f.names().into_iter().map(|(_, n)| n).collect();
                let prefix = format!("value uut.{}", s.name);
                for line in view.lines().filter(|l| l.starts_with(&prefix)) {
                    let value = line.rsplit(" = ").next().unwrap_or("");
                    assert!(names.iter().any(|n| n == value), "{}: {line} is not a name of {}", m.name(), f.file());
                    named += 1;
                }
            }
        }
    }
    assert!(named >= 50, "{named} filtered values seen");

    // A misspelt trace: GTKWave drops it (hence the check above and in the save file's own test).
    let (m, vcd) = &written[0];
    let gtkw = vcd.with_extension("gtkw");
    let text = std::fs::read_to_string(&gtkw).unwrap();
    let first = named_traces(&text)[0].clone();
    std::fs::write(&gtkw, text.replacen(&first, &first.replacen("uut.", "uut.x", 1), 1)).unwrap();
    let view = gtkwave_view(&gtkw, &probe);
    assert!(!view.contains(&first.replacen("uut.", "uut.x", 1)), "{}: GTKWave displayed a misspelt trace?", m.name());
}
