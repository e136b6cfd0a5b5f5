//! `buddy`: the command line of the Buddy Compression models.
//!
//! Each subcommand lives in its own module; errors are printed as one
//! `error: ...` line on stderr with a non-zero exit code (2 for usage errors,
//! from clap; 1 otherwise).

mod compress;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Buddy Compression memory-system models.
#[derive(Debug, Parser)]
#[command(name = "buddy", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Compress every 128-byte entry of a workload and report size classes
    /// and compression ratios.
    Compress(compress::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Compress(args) => compress::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
