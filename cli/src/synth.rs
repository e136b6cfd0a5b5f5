//! `buddy synth`: synthesize every module of `verilog-out/` with Yosys
//! ([`SYNTH_XILINX`]) and write `verilog-out/synth/report.{json,md}`:
//! cells, LUTs, flip-flops, inferred memory bits and the RAM primitives they
//! map to, longest path in cells, LUT levels per kind of path (counted by
//! [`buddy_delivery::lut_levels`] on the mapped netlist) with an estimated
//! clock rate, and the Yosys run time. The report is rewritten as each run
//! ends, so an interrupted run keeps what it finished.

use anyhow::{bail, Context};
use buddy_delivery::delivery::verilog_hash;
use buddy_delivery::lut_levels::{walk, CriticalPath, Depth, LutLevels};
use buddy_delivery::modules::HwModule;
use buddy_hdl::verilog::SEPARATOR;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The Yosys mapping command. ABC maps for depth in LUT levels (its
/// `-lut` unit-delay mode), the figure the report and the 8-level budget
/// count. `-abc9` is not used: it maps for Yosys's 7-series cell delays,
/// without routing, in which a LUT's last input costs 127 ps and its first
/// 642 ps, so it builds chains of small LUTs through fast pins; measured on
/// one 768-bit shift-OR node of the BPC packer, 9-10 levels against 5, and
/// on a device each level also costs a route (about 0.3-0.5 ns on
/// UltraScale+), which the level count follows and `-abc9`'s model leaves out.
pub const SYNTH_XILINX: &str = "synth_xilinx -flatten";

/// [`ModuleSynth::mapping`] of a run of [`SYNTH_XILINX`].
pub const MAPPING: &str = "abc";

/// [`ModuleSynth::mapping`] of a report entry written before the field:
/// those runs used `synth_xilinx -flatten -abc9`.
fn earlier_mapping() -> String {
    "abc9".to_string()
}

/// The modules a run of `buddy synth` or `buddy pnr` takes, and where.
#[derive(Debug, Clone, clap::Args)]
pub struct Selection {
    /// Folder holding the modules' Verilog; the report goes to its `synth/`
    /// [default: `verilog-out` in the current folder].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Only this module (repeatable); the other modules' figures in an
    /// existing report are kept [default: every module].
    #[arg(long = "module", value_name = "NAME", value_parser = parse_module)]
    pub modules: Vec<HwModule>,
}

impl Selection {
    /// The Verilog folder and the chosen modules (every one when none is named).
    pub fn resolve(&self) -> (PathBuf, Vec<HwModule>) {
        let dir = self.dir.clone().unwrap_or_else(|| PathBuf::from("verilog-out"));
        (dir, if self.modules.is_empty() { HwModule::all().to_vec() } else { self.modules.clone() })
    }
}

/// Arguments of `buddy synth`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub selection: Selection,
    /// Yosys runs in parallel (each is single-threaded).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,
}

fn parse_module(name: &str) -> Result<HwModule, String> {
    HwModule::from_name(name).ok_or_else(|| {
        format!("unknown module '{name}'; valid: {}", HwModule::all().iter().map(|m| m.name()).collect::<Vec<_>>().join(", "))
    })
}

/// Synthesis figures of one module.
#[derive(Debug, Serialize, Deserialize)]
pub struct ModuleSynth {
    pub module: String,
    /// SHA-256 of the Verilog without its revision line, to tell a stale report.
    pub verilog_sha256: String,
    pub cells: u64,
    /// LUT1..LUT6.
    pub luts: u64,
    /// FDRE/FDSE/FDCE/FDPE.
    pub flip_flops: u64,
    pub carry4: u64,
    pub muxf7_f8: u64,
    /// Memories Yosys infers after `proc` (RAM arrays), and their bits.
    #[serde(default)]
    pub memories: u64,
    #[serde(default)]
    pub memory_bits: u64,
    /// Mapped RAM primitives (RAM32M/RAM64M/RAMB18E1/RAMB36E1/...).
    #[serde(default)]
    pub ram_cells: u64,
    /// Longest topological path through the flattened netlist, in cells
    /// (Yosys `ltp` after deleting the mapped flip-flops, shift registers
    /// and RAM cells, so that each of them cuts paths: `ltp -noff` alone
    /// does not know the Xilinx `FD*` cells and ran through them, and a RAM
    /// cell would connect its write data to its registered read data). An
    /// upper bound on the cells between two registers or ports.
    pub longest_path_cells: u64,
    /// The deepest path of each kind (register/input to register/output)
    /// in LUT levels, CARRY4 and MUXF cells apart; `None` in a report
    /// written before the walk existed.
    #[serde(default)]
    pub lut_levels: Option<LutLevels>,
    /// Estimated clock rate in MHz ([`Depth::estimated_fmax_mhz`]) of
    /// [`LutLevels::clocked`].
    #[serde(default)]
    pub estimated_fmax_mhz: Option<f64>,
    /// The ends of that path, as the netlist names them; `None` in a report
    /// entry written before the walk named them.
    #[serde(default)]
    pub critical_path: Option<CriticalPath>,
    pub yosys_seconds: f64,
    /// The LUT mapper of the run: [`MAPPING`] (`abc`, depth-oriented), or
    /// `abc9` for an entry synthesized with `synth_xilinx -flatten -abc9`
    /// and not yet run again (deeper LUT levels for the same logic).
    #[serde(default = "earlier_mapping")]
    pub mapping: String,
    /// Every cell type and its count.
    pub cells_by_type: BTreeMap<String, u64>,
    /// Place and route on ECP5 (`buddy pnr`), with the hash of the Verilog
    /// it was run on; kept when `buddy synth` runs the module again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pnr: Option<Pnr>,
}

// Place-and-route figures (`buddy pnr`, cli/src/pnr.rs), kept in the report beside synthesis's.

/// The device: Lattice LFE5U-85F (the largest ECP5) in its CABGA381
/// package, speed grade 6 (nextpnr's default).
pub const DEVICE: &str = "LFE5U-85F-6CABGA381";
/// The clock nextpnr is asked for (MHz): the floor. Fmax is what it
/// reached, above or below.
pub const TARGET_MHZ: u32 = 100;
/// The critical path nextpnr reports for the clock (register to register).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PnrPath {
    /// Cells at its ends, as nextpnr names them.
    pub from: String,
    pub to: String,
    /// Total delay (ns), and of it the cells' (LUTs, carries, muxes;
    /// clock-to-out and setup included) and the routing's.
    pub ns: f64,
    pub logic_ns: f64,
    pub routing_ns: f64,
    /// Cells the path passes through (LUT4, CCU2C, PFUMX halves...).
    pub cells: u64,
    /// The net of the path with the most sinks in the synthesized netlist, and how many.
    pub fanout_net: String,
    pub fanout: u64,
}

/// One module's place and route.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Pnr {
    /// SHA-256 of the module's Verilog without its comments ([`verilog_hash`]).
    pub verilog_sha256: String,
    /// [`DEVICE`].
    pub device: String,
    /// `routed`, `does not fit`, or `not routed in N s`.
    pub outcome: String,
    /// Post-route Fmax (MHz) of the clock; `None` unless routed.
    #[serde(default)]
    pub fmax_mhz: Option<f64>,
    #[serde(default)]
    pub critical_path: Option<PnrPath>,
    /// LUT4s (`CCU2C` counted as 2) and flip-flops after `synth_ecp5`,
    /// the wrapper's included; block RAMs.
    pub lut4: u64,
    pub flip_flops: u64,
    pub dp16kd: u64,
    /// Of [`Pnr::flip_flops`], the wrapper's (`buddy_delivery::pnr::Wrapper::flip_flops`).
    pub wrapper_flip_flops: u64,
    /// Used resources of the placed design (nextpnr's names), those in use.
    #[serde(default)]
    pub utilization: BTreeMap<String, u64>,
    pub yosys_seconds: f64,
    pub nextpnr_seconds: f64,
    /// The tools' versions.
    pub tools: String,
}

/// Synthesize `top` (a module, or a stage sub-module `<module>__<stage>`)
/// from `<module>.v`.
fn synthesize(dir: &Path, top: &str, work: &Path) -> anyhow::Result<ModuleSynth> {
    let file = top.split(SEPARATOR).next().unwrap_or(top);
    let module = top;
    let verilog = std::fs::read_to_string(dir.join(format!("{file}.v")))
        .with_context(|| format!("cannot read {file}.v in {} (run `make verilog`)", dir.display()))?;
    let stem = module.replace(SEPARATOR, "-");
    let stat = work.join(format!("{stem}.stat.json"));
    let memory_stat = work.join(format!("{stem}.memory.json"));
    let ltp = work.join(format!("{stem}.ltp.txt"));
    let netlist = work.join(format!("{stem}.netlist.json"));
    let script = format!(
        "read_verilog {file}.v; hierarchy -top {module}; proc; flatten; tee -q -o {} stat -json; \
         {SYNTH_XILINX} -top {module}; tee -q -o {} stat -json; \
         hierarchy -top {module} -purge_lib; write_json {}; \
         delete t:RAM* t:FD* t:SRL*; tee -q -o {} ltp -noff",
        memory_stat.display(),
        stat.display(),
        netlist.display(),
        ltp.display()
    );
    let start = Instant::now();
    let out = Command::new("yosys")
        .current_dir(dir)
        .args(["-q", "-p", &script])
        .output()
        .context("cannot run yosys (install it with `make deps`)")?;
    let seconds = start.elapsed().as_secs_f64();
    if !out.status.success() {
        bail!("yosys failed on {module}:\n{}", String::from_utf8_lossy(&out.stderr));
    }
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stat)?)?;
    let modules = json["modules"].as_object().context("no modules in yosys stat")?;
    let top = modules.values().next().context("empty yosys stat")?;
    let by_type: BTreeMap<String, u64> = top["num_cells_by_type"]
        .as_object()
        .context("no cell types in yosys stat")?
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
        .collect();
    let sum = |names: &[&str]| names.iter().map(|n| by_type.get(*n).copied().unwrap_or(0)).sum::<u64>();
    let memory_json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&memory_stat)?)?;
    let memory_top = memory_json["modules"].as_object().and_then(|m| m.values().next()).context("empty yosys stat")?;
    let ltp_text = std::fs::read_to_string(&ltp)?;
    let longest = ltp_text
        .lines()
        .find_map(|l| l.split("Longest topological path in ").nth(1))
        .and_then(|rest| rest.split("(length=").nth(1))
        .and_then(|n| n.trim_end_matches(&[')', ':'][..]).parse().ok())
        .context("no longest path in yosys ltp output")?;
    let netlist_text = std::fs::read_to_string(&netlist).with_context(|| format!("yosys wrote no netlist for {module}"))?;
    let (levels, critical) = walk(&netlist_text, module).with_context(|| format!("cannot walk the netlist of {module}"))?;
    std::fs::remove_file(&netlist).ok();
    let clocked = levels.clocked().map(Depth::estimated_fmax_mhz);
    Ok(ModuleSynth {
        module: module.to_string(),
        verilog_sha256: verilog_hash(&verilog),
        cells: top["num_cells"].as_u64().unwrap_or(0),
        luts: sum(&["LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"]),
        flip_flops: sum(&["FDRE", "FDSE", "FDCE", "FDPE"]),
        carry4: sum(&["CARRY4"]),
        muxf7_f8: sum(&["MUXF7", "MUXF8"]),
        memories: memory_top["num_memories"].as_u64().unwrap_or(0),
        memory_bits: memory_top["num_memory_bits"].as_u64().unwrap_or(0),
        ram_cells: by_type.iter().filter(|(k, _)| k.starts_with("RAM")).map(|(_, v)| v).sum(),
        longest_path_cells: longest,
        lut_levels: Some(levels),
        estimated_fmax_mhz: clocked.map(|f| f.round()),
        critical_path: critical,
        yosys_seconds: (seconds * 10.0).round() / 10.0,
        mapping: MAPPING.to_string(),
        cells_by_type: by_type,
        pnr: None,
    })
}

/// Run `buddy synth`.
///
/// # Errors
/// Yosys is missing or fails, or the report cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    let (dir, chosen_modules) = args.selection.resolve();
    // Everything the runs need, checked before hours of synthesis.
    if !std::process::Command::new("yosys").arg("-V").output().is_ok_and(|o| o.status.success()) {
        bail!("yosys is not installed or does not run (`make deps` installs it on Debian)");
    }
    for m in &chosen_modules {
        let v = dir.join(format!("{}.v", m.name()));
        if !v.is_file() {
            bail!("{} is missing (run `buddy verilog --out {}` first)", v.display(), dir.display());
        }
    }
    let report_dir = dir.join("synth");
    std::fs::create_dir_all(&report_dir).with_context(|| format!("cannot create {}", report_dir.display()))?;
    tempfile::tempfile_in(&report_dir).with_context(|| format!("cannot write into {}", report_dir.display()))?;
    let work_dir = tempfile::Builder::new().prefix("buddy-synth-").tempdir().context("cannot create a work folder")?;
    let work = work_dir.path().to_path_buf();
    // Every module, then each module's pipeline stages on their own.
    let chosen: Vec<String> = chosen_modules
        .iter()
        .map(|m| m.name().to_string())
        .chain(chosen_modules.iter().flat_map(|m| m.stages().iter().map(move |s| format!("{}{SEPARATOR}{s}", m.name()))))
        .collect();
    let out = dir.join("synth");
    // The largest first, so that parallel jobs end close together.
    let size =
        |top: &String| std::fs::metadata(dir.join(format!("{}.v", top.split(SEPARATOR).next().unwrap_or(top)))).map_or(0, |m| m.len());
    let mut chosen = chosen;
    chosen.sort_by_key(|t| (std::cmp::Reverse(size(t)), t.contains(SEPARATOR)));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed: std::sync::Mutex<Vec<anyhow::Error>> = Default::default();
    let md: std::sync::Mutex<String> = Default::default();
    let bar = crate::progress::bar(chosen.len() as u64, "runs", "yosys synth_xilinx");
    bar.enable_steady_tick(std::time::Duration::from_secs(1));
    std::thread::scope(|scope| {
        for _ in 0..args.jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(m) = chosen.get(i) else { break };
                crate::progress::note(&bar, format!("synthesizing {m} (yosys synth_xilinx)..."));
                let r = synthesize(&dir, m, &work);
                if let Ok(r) = &r {
                    let levels = r.lut_levels.and_then(|l| l.clocked()).map_or("-".into(), |d| d.to_string());
                    let path = r.critical_path.as_ref().map_or(String::new(), |p| format!(" ({} -> {})", p.from, p.to));
                    crate::progress::note(
                        &bar,
                        format!(
                            "  {}: {} cells, {} flip-flops, {levels} LUT levels{path}, {:.0} s",
                            r.module, r.cells, r.flip_flops, r.yosys_seconds
                        ),
                    );
                }
                bar.inc(1);
                // The report is rewritten as each run ends (one writer at a time).
                let mut md = md.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                match r.and_then(|r| merge_into_report(&out, r)) {
                    Ok(text) => *md = text,
                    Err(e) => failed.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(e),
                }
            });
        }
    });
    bar.finish_and_clear();
    drop(work_dir);
    finish(failed, md)
}

/// The end of a run over modules: its errors (the last returned, the
/// others printed), else the report's Markdown on stdout.
pub fn finish(failed: std::sync::Mutex<Vec<anyhow::Error>>, md: std::sync::Mutex<String>) -> anyhow::Result<()> {
    let mut failed = failed.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(e) = failed.pop() {
        for other in failed {
            eprintln!("error: {other:#}");
        }
        return Err(e);
    }
    crate::output::out!("{}", md.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner))?;
    Ok(())
}

/// Put one module's figures into `out/report.{json,md}`, keeping every
/// other module's (read now, so that runs of other modules meanwhile
/// stay), and return the Markdown.
fn merge_into_report(out: &Path, mut fresh: ModuleSynth) -> anyhow::Result<String> {
    let mut results: Vec<ModuleSynth> = match std::fs::read_to_string(out.join("report.json")) {
        Ok(text) => serde_json::from_str(&text).context("cannot read the existing synth/report.json")?,
        Err(_) => Vec::new(),
    };
    if let Some(old) = results.iter_mut().find(|p| p.module == fresh.module) {
        fresh.pnr = old.pnr.take();
    }
    let module_of = |name: &str| HwModule::from_name(name.split(SEPARATOR).next().unwrap_or(name));
    results.retain(|p| {
        p.module != fresh.module
            && module_of(&p.module)
                .is_some_and(|m| !p.module.contains(SEPARATOR) || m.stages().iter().any(|s| p.module.ends_with(&format!("{SEPARATOR}{s}"))))
    });
    results.push(fresh);
    // Report order: that of HwModule::all(), each module before its stages.
    let order = |r: &ModuleSynth| {
        let m = module_of(&r.module);
        let position = m.and_then(|m| HwModule::all().iter().position(|h| *h == m)).unwrap_or(usize::MAX);
        let stage = m.and_then(|m| m.stages().iter().position(|s| r.module.ends_with(&format!("{SEPARATOR}{s}")))).map_or(0, |i| i + 1);
        (position, stage)
    };
    results.sort_by_key(order);
    write_report(out, &results)
}

/// Put `module`'s place-and-route figures into `out/report.{json,md}`
/// (its synthesis entry must be there), and return the Markdown.
pub fn merge_pnr_into_report(out: &Path, module: &str, pnr: Pnr) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(out.join("report.json")).context("cannot read synth/report.json (run `buddy synth` first)")?;
    let mut results: Vec<ModuleSynth> = serde_json::from_str(&text).context("cannot read the existing synth/report.json")?;
    let entry = results.iter_mut().find(|r| r.module == module).with_context(|| format!("synth/report.json has no entry for {module}: run `buddy synth --module {module}`"))?;
    entry.pnr = Some(pnr);
    write_report(out, &results)
}

fn write_report(out: &Path, results: &[ModuleSynth]) -> anyhow::Result<String> {
    let json = out.join("report.json");
    std::fs::write(&json, serde_json::to_string_pretty(results)? + "\n").with_context(|| format!("cannot write {}", json.display()))?;
    let md = report_markdown(results);
    let report = out.join("report.md");
    std::fs::write(&report, &md).with_context(|| format!("cannot write {}", report.display()))?;
    Ok(md)
}

/// `report.md` of `results` (in report order): the module table, then the
/// stage table and the critical paths when any result has them.
fn report_markdown(results: &[ModuleSynth]) -> String {
    let module_of = |name: &str| HwModule::from_name(name.split(SEPARATOR).next().unwrap_or(name));
    let mut md = format!(
        "# Synthesis report\n\n\
         Yosys 0.23 `{SYNTH_XILINX}` (7-series cells, ABC mapping for LUT depth), written by `make synth`.\n\
         LUTs = LUT1..LUT6; flip-flops = FDRE/FDSE/FDCE/FDPE; longest path = `ltp -noff` after deleting the\n\
         flip-flop (`FD*`), shift-register (`SRL*`) and RAM cells, in cells between flip-flops, RAM cells or ports\n\
         (an upper bound on logic levels). I/O buffers are counted in cells.\n\
         LUT levels = the deepest path of each kind, walked by `buddy_delivery::lut_levels` over the mapped netlist:\n\
         register to register (r→r), input to register (i→r), register to output (r→o), input to output (i→o);\n\
         LUT1..6, INV and LUT-RAM reads (a read port's address to its own output) count one level each, `+Nc` / `+Nm` are the CARRY4 / MUXF7-F8 cells of that path.\n\
         Est. Fmax = 1000 / ({overhead} ns + {lut} ns per LUT level + {carry} ns per CARRY4 + {muxf} ns per MUXF) of the\n\
         deepest path ending at a register (of i→o for a stage block): a rough UltraScale+ -2 figure with typical routing,\n\
         assuming the inputs come straight from registers; place and route decides.\n\
         Memory bits = bits of the memories Yosys infers after `proc` (RAM arrays, and `case` tables\n\
         that `proc_rom` turns into ROMs); RAM cells = the RAM primitives\n\
         they map to (RAM32M/RAM64M LUT-RAM, RAMB18E1/RAMB36E1 block RAM).\n\
         Latency (cycles) and II of the stream modules are their hardware constants, which the testbenches measure;\n\
         `-`: timing that depends on the traffic (caches, planners, controller slices: docs/controller.md).\n\
         Mapping: `abc` = this command (ABC mapping for LUT depth); `abc9` = an entry still from the earlier\n\
         `synth_xilinx -flatten -abc9` (ABC9 mapping for Yosys's 7-series cell delays, which leave out routing and\n\
         build chains of small LUTs through their fast inputs: more LUT levels for the same logic), not yet run again.\n\n\
         | module | latency (cycles) | II | cells | LUTs | flip-flops | CARRY4 | MUXF7/F8 | memory bits | RAM cells | longest path (cells) | LUT levels r→r / i→r / r→o / i→o | est. Fmax (MHz) | yosys time (s) | mapping |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        overhead = buddy_delivery::lut_levels::NS_REGISTER_OVERHEAD,
        lut = buddy_delivery::lut_levels::NS_PER_LUT_LEVEL,
        carry = buddy_delivery::lut_levels::NS_PER_CARRY4,
        muxf = buddy_delivery::lut_levels::NS_PER_MUXF,
    );
    let row = |r: &ModuleSynth| {
        let levels = r.lut_levels.map_or_else(
            || "not measured".to_string(),
            |l| [l.reg_to_reg, l.in_to_reg, l.reg_to_out, l.in_to_out].map(|d| d.map_or("-".to_string(), |d| d.to_string())).join(" / "),
        );
        let fmax = r.estimated_fmax_mhz.map_or("-".to_string(), |f| format!("{f:.0}"));
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {levels} | {fmax} | {} | {} |\n",
            r.module,
            r.cells,
            r.luts,
            r.flip_flops,
            r.carry4,
            r.muxf7_f8,
            r.memory_bits,
            r.ram_cells,
            r.longest_path_cells,
            r.yosys_seconds,
            r.mapping
        )
    };
    for r in results.iter().filter(|r| !r.module.contains(SEPARATOR)) {
        let (latency, ii) = module_of(&r.module).and_then(|m| m.stream_timing()).unwrap_or(("-".into(), "-".into()));
        md += &format!("| {} | {latency} | {ii} |{}", r.module, row(r).split_once(" |").map_or("", |(_, rest)| rest));
    }
    if results.iter().any(|r| r.module.contains(SEPARATOR)) {
        md += "\nPipeline stages: the combinational block between two stage registers, synthesized on its own \
               (`<module>__<stage>`, ports as its inputs and outputs, so its longest path is the stage's logic depth).\n\n\
               | stage | cells | LUTs | flip-flops | CARRY4 | MUXF7/F8 | memory bits | RAM cells | longest path (cells) | LUT levels r→r / i→r / r→o / i→o | est. Fmax (MHz) | yosys time (s) | mapping |\n\
               |---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
        for r in results.iter().filter(|r| r.module.contains(SEPARATOR)) {
            md += &row(r);
        }
    }
    if results.iter().any(|r| r.critical_path.is_some()) {
        md += "\nCritical paths: the ends of the path each estimate comes from, as Yosys names the nets \
               (from a register, named by its output, or an input port bit; to a register, named by its output, or an output port bit).\n\n\
               | module | from | to | LUT levels |\n|---|---|---|---|\n";
        for r in results {
            if let Some(p) = &r.critical_path {
                md += &format!("| {} | `{}` | `{}` | {} |\n", r.module, p.from, p.to, p.depth);
            }
        }
    }
    if results.iter().any(|r| r.pnr.is_some()) {
        md += &pnr_markdown(results);
    }
    md
}

/// The place-and-route section of `report.md`.
fn pnr_markdown(results: &[ModuleSynth]) -> String {
    let tools = results.iter().find_map(|r| r.pnr.as_ref()).map_or(String::new(), |p| p.tools.clone());
    let mut md = format!(
        "\nPlace and route (`make pnr`: `buddy pnr`, {tools}): Yosys `synth_ecp5`, nextpnr-ecp5 on the {device} \
         asked for {target} MHz, the module inside a wrapper that registers every port (inputs from one shift chain, \
         outputs XOR-folded in pipelined stages to one pin: `buddy_delivery::pnr`), so every path is timed register to \
         register. LUT4 counts a CCU2C carry cell as 2; flip-flops include the wrapper's (given apart). Critical path: \
         nextpnr's, its delay split into cells (clock-to-out, LUTs, carries, muxes) and routing, and the net on it with \
         the most sinks in the synthesized netlist. A row whose Verilog has changed since is marked stale.\n\n\
         | module | outcome | Fmax (MHz) | LUT4 | flip-flops (wrapper's) | DP16KD | critical path ns: cells + routing | cells on it | largest fanout on it | yosys + nextpnr (s) |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
        device = DEVICE,
        target = TARGET_MHZ,
    );
    for r in results {
        let Some(p) = &r.pnr else { continue };
        let stale = if p.verilog_sha256 == r.verilog_sha256 { "" } else { " (stale)" };
        let fmax = p.fmax_mhz.map_or("-".to_string(), |f| format!("{f:.1}"));
        let (split, cells, fanout) = p.critical_path.as_ref().map_or(("-".to_string(), "-".to_string(), "-".to_string()), |c| {
            (format!("{:.2}: {:.2} + {:.2}", c.ns, c.logic_ns, c.routing_ns), c.cells.to_string(), format!("{} (`{}`)", c.fanout, c.fanout_net))
        });
        md += &format!(
            "| {}{stale} | {} | {fmax} | {} | {} ({}) | {} | {split} | {cells} | {fanout} | {:.0} + {:.0} |\n",
            r.module, p.outcome, p.lut4, p.flip_flops, p.wrapper_flip_flops, p.dp16kd, p.yosys_seconds, p.nextpnr_seconds
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report.json of three entries: a stream module fully measured, a
    /// module from before the LUT-level walk (synthesized with `-abc9`),
    /// and one pipeline stage.
    fn results() -> Vec<ModuleSynth> {
        let depth = |luts, carry4, muxf| serde_json::json!({"luts": luts, "carry4": carry4, "muxf": muxf});
        let cells = serde_json::json!({"LUT6": 40, "FDRE": 12});
        serde_json::from_value(serde_json::json!([
            {"module": "bpc_compressor", "verilog_sha256": "00", "cells": 1200, "luts": 800, "flip_flops": 300, "carry4": 4,
             "muxf7_f8": 9, "memories": 1, "memory_bits": 2048, "ram_cells": 2, "longest_path_cells": 31,
             "lut_levels": {"reg_to_reg": depth(7, 1, 2), "in_to_reg": depth(3, 0, 0), "reg_to_out": null, "in_to_out": null},
             "estimated_fmax_mhz": 301.7, "critical_path": {"from": "stage1_q[3]", "to": "out_valid", "depth": depth(7, 1, 2)},
             "yosys_seconds": 12.5, "mapping": "abc", "cells_by_type": cells},
            {"module": "address_translator", "verilog_sha256": "01", "cells": 90, "luts": 60, "flip_flops": 20, "carry4": 0,
             "muxf7_f8": 0, "longest_path_cells": 8, "yosys_seconds": 1.25, "cells_by_type": cells},
            {"module": "pipelined_controller__decode", "verilog_sha256": "02", "cells": 50, "luts": 30, "flip_flops": 0, "carry4": 2,
             "muxf7_f8": 1, "longest_path_cells": 6, "lut_levels": {"reg_to_reg": null, "in_to_reg": null, "reg_to_out": null,
             "in_to_out": depth(4, 2, 1)}, "estimated_fmax_mhz": 410.2, "yosys_seconds": 0.5, "mapping": "abc", "cells_by_type": cells}
        ]))
        .expect("a report.json")
    }

    #[test]
    fn report_markdown_of_a_fixed_report() {
        insta::assert_snapshot!(report_markdown(&results()));
    }

    /// A module's place-and-route row, marked stale when its Verilog has
    /// changed since.
    #[test]
    fn place_and_route_rows_give_fmax_and_the_path_split() {
        let mut r = results();
        let pnr = serde_json::json!({"verilog_sha256": "00", "device": DEVICE, "outcome": "routed", "fmax_mhz": 123.4,
            "critical_path": {"from": "a", "to": "b", "ns": 8.1, "logic_ns": 3.3, "routing_ns": 4.8, "cells": 8, "fanout_net": "en", "fanout": 10},
            "lut4": 474, "flip_flops": 669, "dp16kd": 0, "wrapper_flip_flops": 405, "utilization": {"TRELLIS_FF": 669},
            "yosys_seconds": 2.0, "nextpnr_seconds": 3.0, "tools": "Yosys 0.70, nextpnr-0.11.1 (YoWASP)"});
        r[0].pnr = Some(serde_json::from_value(pnr.clone()).unwrap());
        r[1].pnr = Some(serde_json::from_value(pnr).unwrap());
        let md = report_markdown(&r);
        assert!(md.contains("| bpc_compressor | routed | 123.4 | 474 | 669 (405) | 0 | 8.10: 3.30 + 4.80 | 8 | 10 (`en`) | 2 + 3 |"), "{md}");
        assert!(md.contains("| address_translator (stale) | routed |"), "{md}");
        assert!(!report_markdown(&results()).contains("Place and route"));
    }

    /// Without stages or critical paths, their sections are left out.
    #[test]
    fn report_markdown_leaves_out_empty_sections() {
        let md = report_markdown(&results()[1..2]);
        assert!(!md.contains("Pipeline stages") && !md.contains("Critical paths"), "{md}");
        assert!(md.contains("| address_translator | - | - | 90 |"), "{md}");
    }
}
