//! `buddy decompress`: decode a stream file (`docs/streams.md`) with the
//! golden model of the algorithm its header names, into a raw file of
//! 128-byte entries in the file's order.
//!
//! Also the stream-file plumbing `buddy compress --streams` and `buddy
//! verify` share: reading an input file by memory mapping, and writing an
//! output file that appears only when complete.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use buddy_golden::{read_stream_file, StreamHeader, StreamRecord};
use rayon::prelude::*;

use crate::input_file::InputFile;
use crate::output::{outln, OutputFile};

/// Arguments of `buddy decompress`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The stream file to decode (docs/streams.md); the algorithm comes from
    /// its header.
    #[arg(value_name = "STREAMS")]
    streams: PathBuf,
    /// Raw file to write: the decoded 128-byte entries, in the stream file's
    /// order.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Overwrite the file even when buddy did not write it (or it changed since).
    #[arg(long)]
    force: bool,
}

/// Records decoded in parallel between two writes.
pub const BATCH: usize = 1 << 16;

/// Run `buddy decompress`: print one line naming the entries decoded.
///
/// # Errors
/// --out exists (without --force), is not a regular file or is in a
/// missing folder; the stream file is not a regular file, cannot be read or
/// is invalid (`StreamFileError`); an entry's stream does not decode (its
/// index, byte offset and the decoder's reason); the output cannot be
/// written.
pub fn run(args: Args) -> anyhow::Result<()> {
    let out = OutputFile::prepare(&args.out, args.force)?;
    let input = InputFile::open(&args.streams)?;
    let (header, records) = parse(&input, &args.streams)?;
    let mut writer = out.writer();
    for batch in records.chunks(BATCH) {
        let decoded: Vec<_> = batch.par_iter().map(|r| r.decode(header.algorithm)).collect();
        for (record, entry) in batch.iter().zip(decoded) {
            let entry = entry.map_err(|e| anyhow::anyhow!("{}: {e}", locate(record, &args.streams)))?;
            writer.write_all(&entry.to_bytes()).with_context(|| format!("cannot write {}", args.out.display()))?;
        }
    }
    let bytes = writer.persist()?;
    outln!(
        "decoded {} {} entries from {} into {} ({bytes} bytes)",
        header.entries,
        header.algorithm,
        args.streams.display(),
        args.out.display()
    )?;
    Ok(())
}

/// Parse the stream file `bytes` read from `path`.
///
/// # Errors
/// The file's `StreamFileError`, under "invalid stream file PATH".
pub fn parse<'a>(bytes: &'a [u8], path: &Path) -> anyhow::Result<(StreamHeader, Vec<StreamRecord<'a>>)> {
    read_stream_file(bytes).with_context(|| format!("invalid stream file {}", path.display()))
}

/// Where a record is, for messages: `entry I of FILE (byte OFFSET, class C)`.
pub fn locate(record: &StreamRecord<'_>, path: &Path) -> String {
    format!("entry {} of {} (byte {}, class {})", record.index, path.display(), record.offset, record.class.name())
}
