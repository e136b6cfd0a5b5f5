//! `buddy`: the command line of the Buddy Compression models.
//!
//! Each subcommand lives in its own module; errors are printed as one
//! `error: ...` line on stderr with a non-zero exit code (2 for usage errors,
//! from clap; 1 otherwise).

mod args;
mod bundled;
mod compress;
mod decompress;
mod dram;
mod equiv;
mod input_file;
mod mdcache;
mod output;
mod plot;
mod pnr;
mod profile;
mod progress;
mod revision;
mod run;
mod sim;
mod speed;
mod study;
mod synth;
mod vectors;
mod verify;
mod verilog;

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
    /// Decode a stream file (docs/streams.md) with the golden model of the
    /// algorithm its header names, into a raw file of 128-byte entries.
    Decompress(decompress::Args),
    /// One device-level request stream through the HBM2 model (JEDEC
    /// timing, FR-FCFS controllers): bandwidth, latency, row-hit rate,
    /// activations and refreshes, as a table or JSON.
    Dram(dram::Args),
    /// Check the rust-hdl modules against the golden model on every entry
    /// of a workload (random stalls and backpressure), optionally with VCDs.
    Equiv(equiv::Args),
    /// Metadata cache hit rate against size per slice on workloads' access
    /// traces (Buddy Compression Fig. 6b), with JSON and a PNG plot.
    Mdcache(mdcache::Args),
    /// Choose a target ratio per allocation from every snapshot of a
    /// workload (Buddy Threshold, 16x for mostly-zero allocations, 4x cap)
    /// and write the annotation file.
    Profile(profile::Args),
    /// The main job: emit Verilog, check hardware == golden, compress, and
    /// write a report, VCDs and JSON into one folder.
    Run(run::Args),
    /// The paper's compressibility and target-ratio studies (Fig. 3, 7, 8,
    /// 9, 10): JSON, CSV, PNG plots, and report.md for `all`.
    Study(study::Args),
    /// The memory system on a workload's access trace (fast mode: golden
    /// models with HBM2 and NVLink timing) in uncompressed, bandwidth-only
    /// and buddy modes; statistics as a table, JSON and CSV.
    Sim(sim::Args),
    /// Speed in one run on one trace: fast-mode accesses per second, RTL-mode
    /// (rust-hdl) cycles per second, and Verilator on the emitted
    /// BuddyController Verilog replaying the same cycles; JSON and a table.
    Speed(speed::Args),
    /// Synthesize verilog-out/ with Yosys and write verilog-out/synth/report.{json,md}.
    Synth(synth::Args),
    /// Place and route verilog-out/'s modules on an ECP5-85 (Yosys, nextpnr)
    /// and add post-route Fmax to verilog-out/synth/report.{json,md}.
    Pnr(pnr::Args),
    /// Write golden vector files for the Verilog testbenches of verilog-out/tb/.
    Vectors(vectors::Args),
    /// Check a stream file against the entries it should hold: every stream
    /// decodes to its entry and is golden's stream bit for bit; the first
    /// failing entry is named with its first differing bit.
    Verify(verify::Args),
    /// Regenerate verilog-out/ (modules, testbenches, file list, FuseSoC core).
    Verilog(verilog::Args),
}

fn main() -> ExitCode {
    // A closed pipe (`buddy sim | head`) ends the process like other Unix
    // tools do, instead of a panic in `println!`.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Compress(args) => compress::run(args),
        Command::Decompress(args) => decompress::run(args),
        Command::Dram(args) => dram::run(args),
        Command::Equiv(args) => equiv::run(args),
        Command::Mdcache(args) => mdcache::run(args),
        Command::Profile(args) => profile::run(args),
        Command::Run(args) => run::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Study(args) => study::run(args),
        Command::Speed(args) => speed::run(args),
        Command::Synth(args) => synth::run(args),
        Command::Pnr(args) => pnr::run(args),
        Command::Vectors(args) => vectors::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Verilog(args) => verilog::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_takes_its_verilator_flag_with_or_without_equals() {
        for args in [["buddy", "speed", "--opt", "-O3"], ["buddy", "speed", "--opt=-O3", "--mode=buddy"]] {
            let Command::Speed(a) = Cli::try_parse_from(args).unwrap().command else { panic!("not speed") };
            assert_eq!(a.opt, "-O3");
        }
        assert!(Cli::try_parse_from(["buddy", "speed", "--opt", "-O9"]).is_err());
    }
}
