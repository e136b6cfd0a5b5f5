//! Helpers shared by the CLI test binaries: run `buddy`, check success or a
//! one-line error, and work on copies of the bundled workload.
#![allow(dead_code)] // each test binary uses a different subset

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The bundled workload folder.
pub fn bundled() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small")
}

/// Run `buddy` with `args`.
pub fn buddy(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_buddy")).args(args).output().expect("run buddy")
}

/// The stdout of a successful run.
pub fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "buddy failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).expect("utf-8 stdout")
}

/// A failed run: non-zero exit, nothing on stdout, one `error: ` line on stderr.
pub fn failure(out: &Output) -> String {
    assert!(!out.status.success(), "buddy should have failed");
    assert!(out.stdout.is_empty(), "stdout should be empty: {}", String::from_utf8_lossy(&out.stdout));
    let stderr = String::from_utf8(out.stderr.clone()).expect("utf-8 stderr");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr
}

/// A copy of the bundled workload's manifest and snapshots in a temp dir.
pub fn bundled_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in ["manifest.json", "snap_00.bin", "snap_05.bin"] {
        fs::copy(bundled().join(file), dir.path().join(file)).unwrap();
    }
    dir
}

/// [`bundled_copy`] with the access trace (`trace.bin`, `trace_meta.json`).
pub fn bundled_copy_with_trace() -> tempfile::TempDir {
    let dir = bundled_copy();
    for file in ["trace.bin", "trace_meta.json"] {
        fs::copy(bundled().join(file), dir.path().join(file)).unwrap();
    }
    dir
}

/// Rewrite `dir/<file>` (JSON) with `edit`.
pub fn edit_json(dir: &Path, file: &str, edit: impl FnOnce(&mut Value)) {
    let path = dir.join(file);
    let mut value: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    edit(&mut value);
    fs::write(&path, value.to_string()).unwrap();
}

/// Rewrite `dir/manifest.json` with `edit`.
pub fn edit_manifest(dir: &Path, edit: impl FnOnce(&mut Value)) {
    let path = dir.join("manifest.json");
    let mut manifest: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    edit(&mut manifest);
    fs::write(&path, manifest.to_string()).unwrap();
}

/// insta settings that write `[dir]` for `dir` (a temp folder) in
/// snapshots, so that they hold no path of one run.
pub fn without_dir(dir: &Path) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&literal(dir.to_str().expect("a UTF-8 path")), "[dir]");
    settings
}

/// A regex matching `text` literally.
fn literal(text: &str) -> String {
    text.chars().fold(String::new(), |mut r, c| {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            r.push('\\');
        }
        r.push(c);
        r
    })
}
