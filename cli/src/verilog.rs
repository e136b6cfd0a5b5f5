//! `buddy verilog`: regenerate `verilog-out/` (one file per top module, the
//! self-checking testbenches, the file list and the FuseSoC core).

use anyhow::anyhow;
use std::path::PathBuf;

use crate::output::outln;
use crate::revision::git_revision;

/// Arguments of `buddy verilog`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output folder [default: `verilog-out` in the current folder].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Write the Verilog delivery into `args.out`; prints the files written.
///
/// # Errors
/// A module fails rust-hdl's structural checks, or a file cannot be written.
pub fn run(args: Args) -> anyhow::Result<()> {
    let out = args.out.unwrap_or_else(|| PathBuf::from("verilog-out"));
    let revision = git_revision();
    let written = buddy_testbenches::delivery::write_all(&out, &revision).map_err(|e| anyhow!(e))?;
    for f in written {
        outln!("{}", out.join(f).display())?;
    }
    Ok(())
}
