//! Everything `verilog-out/` holds, generated in one place: `make verilog`
//! writes it, and a test fails when the committed files differ.
//!
//! The delivery runs on its own: `vectors/` holds a small golden vector set
//! per module ([`delivery_vectors`]) and every testbench reads it when no
//! plusargs name other files, so `vvp` (or a Verilator binary, or a FuseSoC
//! `sim_<module>` target) run from `verilog-out/` checks the module with
//! nothing else installed; any failure exits non-zero (`$fatal`).

use crate::cosim::SHIPPED_DIR;
use crate::modules::{HwModule, VectorFile};
use rayon::prelude::*;

/// Real entries of the bundled workload in the shipped vector set.
pub const DELIVERY_REAL_ENTRIES: usize = 256;
/// MAG-BDI boundary entries and random entries (each word zero with a
/// per-entry probability) added to it, and malformed decompressor inputs.
pub const DELIVERY_CORNER_ENTRIES: usize = 32;
/// Seed of the shipped vector set's generated entries.
const DELIVERY_SEED: u64 = 0xDE11;

/// The shipped vector files of every module: the first
/// [`DELIVERY_REAL_ENTRIES`] entries of the bundled workload, then
/// [`DELIVERY_CORNER_ENTRIES`] MAG-BDI boundary and as many random entries
/// (decompressors: their golden streams and as many malformed inputs);
/// lock-step modules a run of about as many cycles, the controllers 20
/// requests.
///
/// # Errors
/// The bundled workload cannot be read, or a module produced no vectors
/// (its generating run failed).
pub fn delivery_vectors() -> Result<Vec<(HwModule, Vec<VectorFile>)>, String> {
    use crate::entries::{bundled_workload, mag_boundary_entry, random_entries, sample, snapshot_entries};
    let mut entries: Vec<_> = snapshot_entries(&bundled_workload()).into_iter().take(DELIVERY_REAL_ENTRIES).collect();
    if entries.len() < DELIVERY_REAL_ENTRIES {
        return Err(format!("the bundled workload has {} entries, fewer than {DELIVERY_REAL_ENTRIES}", entries.len()));
    }
    entries.extend(sample(&mag_boundary_entry(), DELIVERY_CORNER_ENTRIES, DELIVERY_SEED));
    entries.extend(random_entries(DELIVERY_CORNER_ENTRIES, DELIVERY_SEED));
    let malformed = crate::decompress::random_stored(DELIVERY_CORNER_ENTRIES, DELIVERY_SEED);
    // Each module's vectors are its own simulation: one core each.
    HwModule::all()
        .par_iter()
        .map(|&m| {
            let files = m.vector_files(&entries, &malformed);
            match files.iter().find(|f| f.lines.is_empty() && f.plusargs.0 == "vectors") {
                Some(f) => Err(format!("{}: no vectors for {}", m.name(), f.file)),
                None => Ok((m, files)),
            }
        })
        .collect()
}

/// One generated file: path relative to `verilog-out/`, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    pub path: String,
    pub text: String,
}

/// All artifacts of `verilog-out/`, generated at git `revision`.
///
/// # Errors
/// A structural check of rust-hdl failed for a module.
pub fn artifacts(revision: &str) -> Result<Vec<Artifact>, String> {
    let mut out = Vec::new();
    let vectors = delivery_vectors()?;
    let mut vector_paths = Vec::new();
    let verilog: Vec<String> =
        vectors.par_iter().map(|(m, _)| m.verilog(revision).map(|v| crate::interface::with_header(&**m, &v))).collect::<Result<_, _>>()?;
    for ((m, files), verilog) in vectors.iter().zip(verilog) {
        let counts: Vec<usize> = files.iter().map(|f| f.lines.len()).collect();
        out.push(Artifact { path: format!("{}.v", m.name()), text: verilog });
        out.push(Artifact { path: format!("tb/{}_tb.v", m.name()), text: m.shipped_testbench(&counts) });
        for f in files {
            let path = format!("{SHIPPED_DIR}/{}", f.file);
            out.push(Artifact { path: path.clone(), text: f.lines.join("\n") + "\n" });
            vector_paths.push((m.name(), path));
        }
    }
    // The AXI4-Stream wrappers of the codecs, checked on the codec's vectors.
    let mut wrappers = Vec::new();
    for (m, files) in &vectors {
        if crate::axis::wrapped().contains(m) {
            let w = crate::axis::name(m.name());
            out.push(Artifact { path: format!("{w}.v"), text: crate::axis::wrapper(&m.ports(), revision)? });
            let shipped = files.first().map(|f| f.lines.len());
            out.push(Artifact { path: format!("tb/{w}_tb.v"), text: crate::axis::testbench(&m.ports(), shipped)? });
            wrappers.push((m.name(), w));
        }
    }
    let tops: Vec<String> = HwModule::all().iter().map(|m| m.name().to_string()).chain(wrappers.iter().map(|(_, w)| w.clone())).collect();
    let files: Vec<String> = tops.iter().map(|t| format!("{t}.v")).collect();
    out.push(Artifact {
        path: "buddy_hdl.f".into(),
        text: format!("// Verilog sources of buddy-hdl, one per top module.\n{}\n", files.join("\n")),
    });
    let tbs: Vec<String> = tops.iter().map(|t| format!("      - tb/{t}_tb.v")).collect();
    // The vector set each top's testbench reads: its own, a wrapper its codec's.
    let vector_set = |top: &str| wrappers.iter().find(|(_, w)| w == top).map_or(top, |(m, _)| *m).to_string();
    out.push(Artifact {
        path: "buddy_hdl.core".into(),
        text: format!(
            "CAPI=2:\n\
             # FuseSoC core for the buddy-hdl Verilog; generated by `make verilog`.\n\
             name: buddy-hw:buddy:buddy_hdl:{version}\n\
             description: Buddy Compression hardware - ZVC and MAG-BDI compressors, address translator, metadata cache (rust-hdl generated Verilog)\n\
             \n\
             filesets:\n  rtl:\n    file_type: verilogSource\n    files:\n{rtl}\n  waivers:\n    files:\n      - verilator.vlt: {{file_type: vlt}}\n  tb:\n    file_type: verilogSource\n    files:\n{tbs}\n{vector_sets}\
             \n\
             targets:\n  default:\n    filesets: [rtl]\n{lints}{sims}",
            version = env!("CARGO_PKG_VERSION"),
            rtl = files.iter().map(|f| format!("      - {f}")).collect::<Vec<_>>().join("\n"),
            tbs = tbs.join("\n"),
            // One vector fileset per module, copied to `vectors/` of the work folder where the testbench looks.
            vector_sets = HwModule::all()
                .iter()
                .map(|m| {
                    let files: String = vector_paths
                        .iter()
                        .filter(|(name, _)| *name == m.name())
                        .map(|(_, p)| format!("      - {p}: {{copyto: {p}}}\n"))
                        .collect();
                    format!("  vectors_{m}:\n    file_type: user\n    files:\n{files}", m = m.name())
                })
                .collect::<String>(),
            lints = tops
                .iter()
                .map(|m| format!(
                    "  lint_{m}:\n    default_tool: verilator\n    filesets: [rtl, waivers]\n    tools:\n      verilator:\n        mode: lint-only\n        verilator_options: [-Wall]\n    toplevel: {m}\n"
                ))
                .collect::<String>(),
            sims = tops
                .iter()
                .map(|m| format!(
                    "  sim_{m}:\n    default_tool: icarus\n    filesets: [rtl, tb, vectors_{v}]\n    toplevel: {m}_tb\n",
                    v = vector_set(m)
                ))
                .collect::<String>(),
        ),
    });
    Ok(out)
}

/// The text with the git revision of the header blanked, for comparing
/// generated files across commits.
pub fn without_revision(text: &str) -> String {
    text.lines()
        .map(|l| match l.find(" at git revision ") {
            Some(i) if l.starts_with("// ") => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Write every artifact under `dir`, creating folders; returns the paths
/// written, relative to `dir`.
///
/// # Errors
/// Generation or file-system errors, as text.
pub fn write_all(dir: &std::path::Path, revision: &str) -> Result<Vec<String>, String> {
    let mut written = Vec::new();
    for a in artifacts(revision)? {
        let path = dir.join(&a.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&path, &a.text).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(a.path);
    }
    Ok(written)
}

/// The `verilog-out/` folder of this repository.
pub fn verilog_out_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../verilog-out")
}

/// SHA-256 (hex) of a generated Verilog file's text without its comment
/// lines (the revision, the interface block: nothing synthesis reads),
/// recorded in the synthesis report so that a stale report can be detected.
pub fn verilog_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    let logic: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
    Sha256::digest(logic.join("\n").as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
