//! Records the git revision the binary is built from (written into the
//! Verilog it emits), so a copied or installed `buddy` does not ask the
//! build checkout at run time.

use std::path::Path;
use std::process::Command;

/// The package folder as cargo gives it to this run (not `env!`, which
/// would keep the folder the script was compiled in: a checkout moved
/// with its `target/` would then find no git and write `unknown`).
fn manifest_dir() -> String {
    std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_string())
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(manifest_dir()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let revision = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(mut rev) => {
            if git(&["status", "--porcelain", "--", "../hdl"]).is_some_and(|s| !s.is_empty()) {
                rev.push_str("-dirty");
            }
            rev
        }
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=BUDDY_GIT_REVISION={revision}");
    // Re-run when HEAD moves (a commit, a checkout) or the hardware changes.
    for path in ["HEAD", "packed-refs"] {
        if let Some(p) = git(&["rev-parse", "--git-path", path]) {
            println!("cargo:rerun-if-changed={}", Path::new(&manifest_dir()).join(p).display());
        }
    }
    if let Some(head) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(p) = git(&["rev-parse", "--git-path", &head]) {
            println!("cargo:rerun-if-changed={}", Path::new(&manifest_dir()).join(p).display());
        }
    }
    println!("cargo:rerun-if-changed=../hdl/src");
    println!("cargo:rerun-if-changed=build.rs");
}
