//! The bundled default workload (`data/minife-small`: two miniFE snapshots
//! and its access trace, 2.2 MB), found at run time so a copied or
//! installed `buddy` works without the build checkout.
//!
//! Lookup order: `$BUDDY_DATA/minife-small` (when `BUDDY_DATA` is set, it
//! must hold it), `data/minife-small` beside the binary or two folders up
//! (a `target/release/buddy` of a checkout), then the copy embedded in the
//! binary, written once into `$XDG_CACHE_HOME/buddy/` (or
//! `~/.cache/buddy/`, or the temporary folder) under a name holding its
//! content hash.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use sha2::{Digest, Sha256};

/// The bundled workload's folder name.
pub const NAME: &str = "minife-small";

/// The environment variable naming a folder that holds `minife-small/`.
pub const DATA_ENV: &str = "BUDDY_DATA";

macro_rules! bundled_files {
    ($($file:literal),*) => {
        /// The files of the bundled workload, embedded at build time.
        const FILES: &[(&str, &[u8])] =
            &[$(($file, include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../data/minife-small/", $file)))),*];
    };
}
bundled_files!("manifest.json", "snap_00.bin", "snap_05.bin", "trace.bin", "trace_meta.json");

/// The folder of the bundled default workload.
///
/// # Errors
/// `BUDDY_DATA` is set but holds no `minife-small/` workload, or the
/// embedded copy cannot be written into any cache folder.
pub fn default_workload() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os(DATA_ENV) {
        let path = Path::new(&dir).join(NAME);
        if !path.join("manifest.json").is_file() {
            bail!("{DATA_ENV}={} holds no {NAME}/manifest.json", Path::new(&dir).display());
        }
        return Ok(path);
    }
    if let Some(path) = beside_binary() {
        return Ok(path);
    }
    extract_embedded()
}

/// `data/minife-small` beside the running binary, or two folders up.
fn beside_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    [dir.join("data").join(NAME), dir.join("../../data").join(NAME)]
        .into_iter()
        .find(|p| FILES.iter().all(|(f, bytes)| p.join(f).metadata().is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)))
}

/// Write the embedded copy into a cache folder (once per content) and
/// return it.
fn extract_embedded() -> anyhow::Result<PathBuf> {
    let mut hash = Sha256::new();
    for (name, bytes) in FILES {
        hash.update(name.as_bytes());
        hash.update(bytes);
    }
    let tag: String = hash.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect();
    let mut errors = Vec::new();
    for base in cache_bases() {
        let dir = base.join("buddy").join(format!("data-{tag}"));
        let path = dir.join(NAME);
        if FILES.iter().all(|(f, bytes)| std::fs::read(path.join(f)).is_ok_and(|b| b == *bytes)) {
            return Ok(path);
        }
        match write_copy(&dir) {
            Ok(()) => return Ok(path),
            Err(e) => errors.push(format!("{}: {e:#}", dir.display())),
        }
    }
    bail!("cannot write the embedded {NAME} workload into a cache folder ({}); set {DATA_ENV}", errors.join("; "))
}

/// Candidate cache folders, most specific first.
fn cache_bases() -> Vec<PathBuf> {
    let mut bases = Vec::new();
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        bases.push(PathBuf::from(d));
    }
    if let Some(h) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        bases.push(Path::new(&h).join(".cache"));
    }
    bases.push(std::env::temp_dir());
    bases
}

/// Write every file into a fresh folder beside `dir/NAME`, then move it into
/// place, so a concurrent reader never sees half a workload.
fn write_copy(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).context("cannot create the folder")?;
    let staging = tempfile::Builder::new().prefix(".staging-").tempdir_in(dir).context("cannot create a staging folder")?;
    for (name, bytes) in FILES {
        std::fs::write(staging.path().join(name), bytes).with_context(|| format!("cannot write {name}"))?;
    }
    let staged = staging.keep();
    let target = dir.join(NAME);
    if let Err(e) = std::fs::rename(&staged, &target) {
        // Another process may have put an identical copy there first.
        let _ = std::fs::remove_dir_all(&staged);
        if !target.join("manifest.json").is_file() {
            return Err(e).context("cannot move the copy into place");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_list_is_the_whole_bundled_folder() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data").join(NAME);
        let mut on_disk: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        on_disk.sort();
        let mut embedded: Vec<String> = FILES.iter().map(|(f, _)| f.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk, "update bundled_files! in cli/src/bundled.rs");
    }
}
