//! `buddy verilog`: regenerate `verilog-out/` (one file per top module, the
//! self-checking testbenches, the file list and the FuseSoC core).

use anyhow::anyhow;
use std::path::PathBuf;

use crate::output::{outln, OutputDir};
use crate::revision::git_revision;

/// Arguments of `buddy verilog`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output folder [default: `verilog-out` in the current folder];
    /// written only when every file is.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write into the folder even when it holds files buddy did not write
    /// (a checkout's `verilog-out/` is marked, so it needs none).
    #[arg(long)]
    pub force: bool,
}

/// Write the Verilog delivery into `args.out`; prints the files written.
///
/// # Errors
/// The folder holds files buddy did not write (without `--force`), a
/// module fails rust-hdl's structural checks, or a file cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    let out = args.out.unwrap_or_else(|| PathBuf::from("verilog-out"));
    let staging = OutputDir::prepare(&out, args.force)?;
    let written = buddy_delivery::delivery::write_all(staging.path(), &git_revision()).map_err(|e| anyhow!(e))?;
    let out = staging.commit()?;
    for f in written {
        outln!("{}", out.join(f).display())?;
    }
    Ok(())
}
