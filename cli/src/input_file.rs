//! Input files the CLI reads whole (stream files, raw entries): regular
//! files only, mapped into memory rather than copied.

use std::fs;
use std::ops::Deref;
use std::path::Path;

use anyhow::{bail, Context};

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
