//! `buddy decompress`: decode a stream file (`docs/streams.md`) with the
//! golden model of the algorithm its header names, into a raw file of
//! 128-byte entries in the file's order.
//!
//! Also the stream-file plumbing `buddy compress --streams` and `buddy
//! verify` share: reading an input file by memory mapping, and writing an
//! output file that appears only when complete.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::ops::Deref;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use buddy_golden::{read_stream_file, StreamHeader, StreamRecord};
use rayon::prelude::*;

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
    /// Overwrite --out if it exists.
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
    let out = OutputFile::create(&args.out, args.force)?;
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
    println!(
        "decoded {} {} entries from {} into {} ({bytes} bytes)",
        header.entries,
        header.algorithm,
        args.streams.display(),
        args.out.display()
    );
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

/// An input file's bytes, mapped into memory (read-only).
pub struct InputFile(Option<memmap2::Mmap>);

impl InputFile {
    /// Map the regular file `path`.
    ///
    /// # Errors
    /// `path` is missing, not a regular file (checked before opening, so a
    /// FIFO or a device is never read), or cannot be read.
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let metadata = fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
        if !metadata.is_file() {
            bail!("{} is not a regular file", path.display());
        }
        let file = fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        if file.metadata().with_context(|| format!("cannot read {}", path.display()))?.len() == 0 {
            return Ok(InputFile(None));
        }
        // SAFETY: a read-only private map of an input file that nothing is
        // expected to change while the command runs (as for workloads).
        let map = unsafe { memmap2::Mmap::map(&file) }.with_context(|| format!("cannot read {}", path.display()))?;
        Ok(InputFile(Some(map)))
    }
}

impl Deref for InputFile {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.0.as_deref().unwrap_or_default()
    }
}

/// An output file checked before any work and written to a temporary file
/// beside it, which [`OutputWriter::persist`] moves into place: a failed
/// command leaves no partial file and an existing file untouched.
pub struct OutputFile {
    path: PathBuf,
    temp: tempfile::NamedTempFile,
}

impl OutputFile {
    /// Check `path` and create the temporary file beside it.
    ///
    /// # Errors
    /// `path` exists and `force` is false, `path` is a folder or anything
    /// else but a regular file, its folder does not exist, or the temporary
    /// file cannot be created there.
    pub fn create(path: &Path, force: bool) -> anyhow::Result<Self> {
        match fs::metadata(path) {
            Ok(m) if !m.is_file() => bail!("{} exists and is not a regular file", path.display()),
            Ok(_) if !force => bail!("{} exists (use --force to overwrite it)", path.display()),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("cannot write {}", path.display())),
        }
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            bail!("cannot write {}: the folder {} does not exist", path.display(), folder.display());
        }
        #[cfg(unix)]
        let permissions = std::os::unix::fs::PermissionsExt::from_mode(0o666);
        let mut builder = tempfile::Builder::new();
        builder.prefix(".buddy-").suffix(".tmp");
        #[cfg(unix)]
        builder.permissions(permissions);
        let temp = builder.tempfile_in(folder).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(OutputFile { path: path.to_path_buf(), temp })
    }

    /// A buffered writer into the temporary file.
    pub fn writer(self) -> OutputWriter {
        OutputWriter { path: self.path, out: BufWriter::new(self.temp) }
    }
}

/// A buffered writer of an [`OutputFile`].
pub struct OutputWriter {
    path: PathBuf,
    out: BufWriter<tempfile::NamedTempFile>,
}

impl Write for OutputWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl OutputWriter {
    /// Flush and move the file into place; returns its size in bytes.
    ///
    /// # Errors
    /// The file cannot be written or renamed to its path.
    pub fn persist(self) -> anyhow::Result<u64> {
        let path = self.path;
        let temp = self.out.into_inner().map_err(|e| e.into_error()).with_context(|| format!("cannot write {}", path.display()))?;
        let bytes = temp.as_file().metadata().with_context(|| format!("cannot write {}", path.display()))?.len();
        temp.persist(&path).map_err(|e| e.error).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(bytes)
    }
}
