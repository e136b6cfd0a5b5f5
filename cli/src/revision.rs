//! The git revision written into generated files.

use std::path::Path;
use std::process::Command;

/// The repository root (this crate's parent folder).
pub const REPO_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// `git rev-parse --short=12 HEAD` of the repository, with `-dirty` when
/// `hdl/` has uncommitted changes; `unknown` outside a git checkout.
pub fn git_revision() -> String {
    let root = Path::new(REPO_ROOT);
    let head = Command::new("git").current_dir(root).args(["rev-parse", "--short=12", "HEAD"]).output();
    let Ok(head) = head else { return "unknown".into() };
    if !head.status.success() {
        return "unknown".into();
    }
    let mut rev = String::from_utf8_lossy(&head.stdout).trim().to_string();
    let dirty = Command::new("git").current_dir(root).args(["status", "--porcelain", "--", "hdl"]).output();
    if dirty.is_ok_and(|d| !d.stdout.is_empty()) {
        rev.push_str("-dirty");
    }
    rev
}
