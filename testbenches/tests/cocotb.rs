//! The cocotb suite of `verilog-out/cocotb/` (cocotb, cocotbext-axi and
//! pytest from PyPI, in the virtual environment `make cocotb-venv` makes):
//! every AXI4-Stream codec wrapper driven by cocotbext-axi's source and sink
//! with random pauses, against the shipped vectors, in Icarus. `make test`
//! runs a spread share of each wrapper's vectors; `make cocotb` (and `make
//! cosim`) every vector in Icarus and Verilator.

use buddy_delivery::delivery::verilog_out_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Vectors per wrapper in `make test`, spread over each file (every k-th):
/// real entries, MAG-BDI boundary and random entries, malformed inputs.
const SMOKE_VECTORS: usize = 64;

/// The suite's Python; fails with the command that makes it when missing.
fn venv_python() -> PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/venv-cocotb/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run `make cocotb-venv` (make test makes it: cocotb, cocotbext-axi and pytest from \
         verilog-out/cocotb/requirements.txt)",
        python.display()
    );
    python
}

/// `pytest` on the suite with `args` (options in `--name=value` form: a
/// bare path would move pytest's root folder away from the suite's
/// conftest); returns (exit success, stdout and stderr).
fn pytest(args: &[String]) -> (bool, String) {
    for tool in ["iverilog", "vvp"] {
        let found = Command::new("sh").arg("-c").arg(format!("command -v {tool}")).output().unwrap();
        assert!(found.status.success(), "`{tool}` is not installed: run `make deps` (the Makefile installs it)");
    }
    let out = Command::new(venv_python())
        .current_dir(verilog_out_dir().join("cocotb"))
        .args(["-m", "pytest", "-rA", "--sim=icarus"])
        .args(args)
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr))
}

/// The `<wrapper>: P passed, F failed` line the cocotb test logs per wrapper.
fn result_of(log: &str, wrapper: &str) -> Option<(usize, usize)> {
    let re = regex::Regex::new(&format!(r"\b{wrapper}: (\d+) passed, (\d+) failed")).unwrap();
    re.captures(log).map(|c| (c[1].parse().unwrap(), c[2].parse().unwrap()))
}

#[test]
fn cocotb_suite_passes_every_wrapper_in_icarus() {
    let wrapped = buddy_delivery::axis::wrapped();
    let (ok, log) = pytest(&[format!("--vectors={SMOKE_VECTORS}")]);
    assert!(ok, "{log}");
    assert!(log.contains(&format!(" {} passed", wrapped.len())) && !log.contains(" failed in "), "{log}");
    for m in wrapped {
        let w = buddy_delivery::axis::name(m.name());
        let (passed, failed) = result_of(&log, &w).unwrap_or_else(|| panic!("no result line for {w}:\n{log}"));
        assert!((SMOKE_VECTORS / 2..=SMOKE_VECTORS).contains(&passed) && failed == 0, "{w}: {passed} passed, {failed} failed");
    }
}

/// The checks bite: in a copy of the delivery, one expected output of one
/// vector file changed and one wrapper miswired (bit 0 of its input tdata
/// inverted) each fail, naming what differs, while an untouched wrapper in
/// the same run passes.
#[test]
fn cocotb_suite_fails_on_a_wrong_expectation_and_a_broken_wrapper() {
    let work = std::env::temp_dir().join(format!("buddy-cocotb-bite-{}", std::process::id()));
    std::fs::create_dir_all(work.join("vectors")).unwrap();
    let src = verilog_out_dir();
    let (wrong_vector, broken, untouched) = ("zvc_decompressor", "mag_bdi32_compressor", "zvc_compressor");
    for m in [wrong_vector, broken, untouched] {
        for f in [format!("{m}.v"), format!("{m}_axis.v"), format!("vectors/{m}.hex")] {
            std::fs::copy(src.join(&f), work.join(&f)).unwrap();
        }
    }
    // The last digit of a decompressor line is out_error: flip it on line 3.
    let file = work.join(format!("vectors/{wrong_vector}.hex"));
    let mut lines: Vec<String> = std::fs::read_to_string(&file).unwrap().lines().map(String::from).collect();
    let last = lines[3].pop().unwrap();
    lines[3].push(if last == '0' { '1' } else { '0' });
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let file = work.join(format!("{broken}_axis.v"));
    let text = std::fs::read_to_string(&file).unwrap();
    let miswired = text.replacen("(s_axis_tdata)", "({s_axis_tdata[1023:1], ~s_axis_tdata[0]})", 1);
    assert_ne!(miswired, text, "{broken}_axis.v: no `(s_axis_tdata)` connection to break");
    std::fs::write(&file, miswired).unwrap();

    let (ok, log) = pytest(&[format!("--verilog-dir={}", work.display())]);
    assert!(!ok && log.contains("2 failed, 1 passed"), "{log}");
    let count = lines.len();
    assert_eq!(result_of(&log, &format!("{wrong_vector}_axis")), Some((count - 1, 1)), "{log}");
    assert!(log.contains(&format!("{wrong_vector}_axis: 1 of {count} vectors differ (vector indices [3])")), "{log}");
    let (passed, failed) = result_of(&log, &format!("{broken}_axis")).unwrap_or_else(|| panic!("{log}"));
    assert!(
        failed > 0 && passed + failed == std::fs::read_to_string(src.join(format!("vectors/{broken}.hex"))).unwrap().lines().count(),
        "{log}"
    );
    assert!(matches!(result_of(&log, &format!("{untouched}_axis")), Some((p, 0)) if p > 0), "{log}");
    std::fs::remove_dir_all(work).ok();
}
