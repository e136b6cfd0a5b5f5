//! Where commands write: stdout (a write error is an error), and output
//! folders and files that are checked before any work and moved into place
//! only when the command succeeds.
//!
//! An output folder is built in a staging folder beside it
//! (`.NAME.staging-XXXX`) and its top-level items are moved into the
//! folder on success, each replacing the item of the same name; items of
//! the folder that the command does not write stay. On failure the staging
//! folder is removed and the folder is as before: no half-written outputs
//! beside an old report. A folder is written into only if it is new or
//! empty, or everything in it was written by `buddy` (a `.buddy-output`
//! marker, or only such folders inside), or with `--force`. A file is
//! replaced without `--force` only when `buddy` wrote it and it has not
//! changed since: its folder's ledger ([`FILE_LEDGER`]) holds its name and
//! the SHA-256 of what was written, so re-running a command just works while
//! a user's own file (or one they edited) is never overwritten silently.

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use sha2::{Digest, Sha256};

/// The marker file of a folder `buddy` wrote.
pub const MARKER: &str = ".buddy-output";

/// The ledger of files `buddy` wrote into a folder: one line per file,
/// `<sha256 hex>  <file name>`, the last line for a name counting.
pub const FILE_LEDGER: &str = ".buddy-output-files";

fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `name` with every character other than ASCII letters, digits, `-`, `_`
/// and `.` replaced by `_`, for file names made of a workload's name.
pub fn safe_file_name(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
}

/// The folder a file path is in (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The hash the ledger of `path`'s folder records for it, if any.
fn ledger_hash(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let ledger = std::fs::read_to_string(folder_of(path).join(FILE_LEDGER)).ok()?;
    ledger.lines().rev().filter_map(|l| l.split_once("  ")).find(|(_, n)| *n == name).map(|(h, _)| h.to_string())
}

/// Whether `path` is a file `buddy` wrote and nobody has changed since.
fn file_written_by_buddy(path: &Path) -> bool {
    match (ledger_hash(path), std::fs::read(path)) {
        (Some(hash), Ok(bytes)) => hash == sha256_hex(&bytes),
        _ => false,
    }
}

/// Record in the folder's ledger that `buddy` wrote `path`, whose contents
/// hash to `hash`. Names of files no longer there, and older lines of this
/// name, are dropped, so the ledger stays as long as the folder's own outputs.
fn record_written(path: &Path, hash: &str) -> anyhow::Result<()> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Ok(());
    };
    if name.contains('\n') {
        return Ok(());
    }
    let folder = folder_of(path);
    let ledger_path = folder.join(FILE_LEDGER);
    let old = std::fs::read_to_string(&ledger_path).unwrap_or_default();
    let mut ledger: String = old
        .lines()
        .filter(|l| l.split_once("  ").is_some_and(|(_, n)| n != name && folder.join(n).is_file()))
        .map(|l| format!("{l}\n"))
        .collect();
    ledger += &format!("{hash}  {name}\n");
    std::fs::write(&ledger_path, ledger).with_context(|| format!("cannot write {}", ledger_path.display()))
}

/// Write `args` to stdout.
///
/// # Errors
/// stdout cannot be written (a full disk, a closed file); a closed pipe
/// ends the process quietly (SIGPIPE keeps its default action).
pub fn write_stdout(args: fmt::Arguments<'_>) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(args).and_then(|()| out.flush()).context("cannot write to stdout")
}

/// `print!` that returns an error instead of panicking.
macro_rules! out {
    ($($t:tt)*) => { $crate::output::write_stdout(format_args!($($t)*)) };
}
/// `println!` that returns an error instead of panicking.
macro_rules! outln {
    () => { $crate::output::write_stdout(format_args!("\n")) };
    ($($t:tt)*) => { $crate::output::write_stdout(format_args!("{}\n", format_args!($($t)*))) };
}
pub(crate) use {out, outln};

/// Write an output file, naming it in the error.
///
/// # Errors
/// The file cannot be written.
pub fn write_file(path: &Path, contents: impl AsRef<[u8]>) -> anyhow::Result<()> {
    std::fs::write(path, contents).with_context(|| format!("cannot write {}", path.display()))
}

/// Whether everything in `dir` was written by `buddy`.
fn written_by_buddy(dir: &Path) -> bool {
    if dir.join(MARKER).is_file() {
        return true;
    }
    match std::fs::read_dir(dir) {
        Ok(entries) => entries.flatten().all(|e| e.file_type().is_ok_and(|t| t.is_dir()) && written_by_buddy(&e.path())),
        Err(_) => false,
    }
}

/// Check that `dir` can be an output folder and create its parent.
fn check_dir_target(dir: &Path, force: bool) -> anyhow::Result<PathBuf> {
    if dir.as_os_str().is_empty() {
        bail!("the output folder is an empty path");
    }
    if let Ok(meta) = std::fs::metadata(dir) {
        if !meta.is_dir() {
            bail!("{} exists and is not a folder", dir.display());
        }
        let empty = std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?.next().is_none();
        if !empty && !force && !written_by_buddy(dir) {
            bail!("{} holds files buddy did not write (no {MARKER} marker); choose another output folder or pass --force", dir.display());
        }
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).with_context(|| format!("cannot create {}", parent.display()))?;
    Ok(parent)
}

/// An output folder being written (see the module docs).
#[derive(Debug)]
pub struct OutputDir {
    target: PathBuf,
    staging: tempfile::TempDir,
}

impl OutputDir {
    /// Check `target` and create its staging folder, before any work.
    ///
    /// # Errors
    /// `target` is a file, holds files `buddy` did not write (without
    /// `force`), or its parent cannot be created or written.
    pub fn prepare(target: &Path, force: bool) -> anyhow::Result<OutputDir> {
        let parent = check_dir_target(target, force)?;
        let name = target.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        let staging = tempfile::Builder::new()
            .prefix(&format!(".{name}.staging-"))
            .tempdir_in(&parent)
            .with_context(|| format!("cannot write into {}", parent.display()))?;
        Ok(OutputDir { target: target.to_path_buf(), staging })
    }

    /// The folder the command writes into (the staging folder).
    pub fn path(&self) -> &Path {
        self.staging.path()
    }

    /// Move every output into place and mark the folder.
    ///
    /// # Errors
    /// The folder or an item cannot be created, removed or moved.
    pub fn commit(self) -> anyhow::Result<PathBuf> {
        std::fs::create_dir_all(&self.target).with_context(|| format!("cannot create {}", self.target.display()))?;
        let items: Vec<_> = std::fs::read_dir(self.staging.path())?.collect::<Result<_, _>>()?;
        for item in items {
            let dest = self.target.join(item.file_name());
            if let Ok(meta) = std::fs::symlink_metadata(&dest) {
                let removed = if meta.is_dir() { std::fs::remove_dir_all(&dest) } else { std::fs::remove_file(&dest) };
                removed.with_context(|| format!("cannot replace {}", dest.display()))?;
            }
            std::fs::rename(item.path(), &dest).with_context(|| format!("cannot move {} into place", dest.display()))?;
        }
        std::fs::write(self.target.join(MARKER), "written by buddy; a later buddy run may replace what is here\n")
            .with_context(|| format!("cannot write into {}", self.target.display()))?;
        Ok(self.target)
    }
}

/// An output file: checked before any work, written to a temporary file
/// beside it and moved into place on success, so a failed command leaves no
/// partial file and an existing file untouched.
#[derive(Debug)]
pub struct OutputFile {
    target: PathBuf,
    staging: tempfile::NamedTempFile,
}

impl OutputFile {
    /// Check `target` and create the temporary file beside it (with the
    /// same extension: writers such as the PNG plotter go by it).
    ///
    /// # Errors
    /// `target` exists (without `force`) or is not a regular file, its
    /// folder does not exist, or the temporary file cannot be created there.
    pub fn prepare(target: &Path, force: bool) -> anyhow::Result<OutputFile> {
        match std::fs::metadata(target) {
            Ok(m) if !m.is_file() => bail!("{} exists and is not a regular file", target.display()),
            Ok(_) if !force && !file_written_by_buddy(target) => {
                bail!(
                    "{} exists; pass --force to replace it (without it buddy replaces only a file it wrote itself that has not changed since)",
                    target.display()
                )
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("cannot write {}", target.display())),
        }
        let parent = folder_of(target);
        if !parent.is_dir() {
            bail!("cannot write {}: the folder {} does not exist", target.display(), parent.display());
        }
        let suffix = target.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
        let mut builder = tempfile::Builder::new();
        builder.prefix(".buddy-staging-").suffix(&suffix);
        // The file ends up as any new file would (0666 less the umask), not
        // with a temporary file's private 0600.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let staging = builder.tempfile_in(&parent).with_context(|| format!("cannot write into {}", parent.display()))?;
        Ok(OutputFile { target: target.to_path_buf(), staging })
    }

    /// The file the command writes (the staging file).
    pub fn path(&self) -> &Path {
        self.staging.path()
    }

    /// Write `bytes` and move the file into place.
    ///
    /// # Errors
    /// The file cannot be written or moved.
    pub fn write(self, bytes: &[u8]) -> anyhow::Result<PathBuf> {
        let mut w = self.writer();
        w.write_all(bytes).with_context(|| format!("cannot write {}", w.target.display()))?;
        let target = w.target.clone();
        w.persist()?;
        Ok(target)
    }

    /// Move what was written at [`OutputFile::path`] into place.
    ///
    /// # Errors
    /// The file cannot be moved.
    pub fn commit(self) -> anyhow::Result<PathBuf> {
        self.staging.persist(&self.target).map_err(|e| e.error).with_context(|| format!("cannot write {}", self.target.display()))?;
        // Another writer (a plotter) filled the file: hash it from disk.
        let bytes = std::fs::read(&self.target).with_context(|| format!("cannot read back {}", self.target.display()))?;
        record_written(&self.target, &sha256_hex(&bytes))?;
        Ok(self.target)
    }

    /// A buffered writer into the staging file.
    pub fn writer(self) -> OutputWriter {
        OutputWriter { target: self.target, out: std::io::BufWriter::new(self.staging), hash: Sha256::new() }
    }
}

/// A buffered writer of an [`OutputFile`]; it hashes what it writes for the
/// folder's ledger.
pub struct OutputWriter {
    target: PathBuf,
    out: std::io::BufWriter<tempfile::NamedTempFile>,
    hash: Sha256,
}

impl std::io::Write for OutputWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.out.write_all(buf)?;
        self.hash.update(buf);
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

impl OutputWriter {
    /// Flush and move the file into place; returns its size in bytes.
    ///
    /// # Errors
    /// The file cannot be written or moved into place.
    pub fn persist(self) -> anyhow::Result<u64> {
        let target = self.target;
        let temp = self.out.into_inner().map_err(|e| e.into_error()).with_context(|| format!("cannot write {}", target.display()))?;
        let bytes = temp.as_file().metadata().with_context(|| format!("cannot write {}", target.display()))?.len();
        temp.persist(&target).map_err(|e| e.error).with_context(|| format!("cannot write {}", target.display()))?;
        record_written(&target, &hex(&self.hash.finalize()))?;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_replaced_only_when_buddy_wrote_it() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        let out = OutputDir::prepare(&dir, false).unwrap();
        std::fs::write(out.path().join("a.txt"), "1").unwrap();
        out.commit().unwrap();
        // A second run replaces its own items and keeps the others.
        std::fs::create_dir(dir.join("keep")).unwrap();
        std::fs::write(dir.join("keep").join(MARKER), "").unwrap();
        let out = OutputDir::prepare(&dir, false).unwrap();
        std::fs::write(out.path().join("a.txt"), "2").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "2");
        assert!(dir.join("keep").is_dir());
        // A user's folder needs --force.
        let user = root.path().join("user");
        std::fs::create_dir(&user).unwrap();
        std::fs::write(user.join("notes.txt"), "mine").unwrap();
        let e = OutputDir::prepare(&user, false).unwrap_err().to_string();
        assert!(e.contains("--force"), "{e}");
        OutputDir::prepare(&user, true).unwrap();
        // A failed command leaves nothing behind.
        let out = OutputDir::prepare(&root.path().join("failed"), false).unwrap();
        std::fs::write(out.path().join("half.txt"), "x").unwrap();
        drop(out);
        assert!(!root.path().join("failed").exists());
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 2, "no staging folder left");
    }

    #[test]
    fn a_file_is_not_replaced_without_force() {
        let root = tempfile::tempdir().unwrap();
        let f = root.path().join("t.json");
        std::fs::write(&f, "mine").unwrap();
        assert!(OutputFile::prepare(&f, false).unwrap_err().to_string().contains("--force"));
        OutputFile::prepare(&f, true).unwrap().write(b"1").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "1");
        // What buddy wrote, a second run replaces without --force ...
        OutputFile::prepare(&f, false).unwrap().write(b"2").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "2");
        let g = root.path().join("g.json");
        OutputFile::prepare(&g, false).unwrap().writer().persist().unwrap();
        OutputFile::prepare(&g, false).unwrap().write(b"3").unwrap();
        // ... but not once the user changed it.
        std::fs::write(&f, "edited").unwrap();
        assert!(OutputFile::prepare(&f, false).unwrap_err().to_string().contains("--force"));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "edited");
        // The ledger holds one line per file buddy wrote.
        std::fs::remove_file(&g).unwrap();
        OutputFile::prepare(&f, true).unwrap().write(b"4").unwrap();
        let ledger = std::fs::read_to_string(root.path().join(FILE_LEDGER)).unwrap();
        assert_eq!(ledger.lines().count(), 1, "{ledger}");
        assert!(ledger.ends_with("  t.json\n"), "{ledger}");
        assert!(OutputFile::prepare(Path::new("/proc/x/y.json"), false).is_err());
    }
}
