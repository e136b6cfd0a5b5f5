//! The git revision written into generated files.

/// The revision the binary was built from (`git rev-parse --short=12
/// HEAD`, with `-dirty` when `hdl/` had uncommitted changes; `unknown`
/// when built outside a git checkout), recorded by `build.rs`.
pub fn git_revision() -> String {
    env!("BUDDY_GIT_REVISION").to_string()
}
