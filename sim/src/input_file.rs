//! Reading an input file that must be a regular file: a device, FIFO or
//! folder named as a config, trace, annotation or stream is refused
//! (`/dev/zero` would otherwise be read until memory runs out).

use std::io;
use std::path::Path;

fn check(path: &Path) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        Ok(())
    } else {
        Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"))
    }
}

/// `std::fs::read` of a regular file.
///
/// # Errors
/// The file is missing, unreadable, or not a regular file (`InvalidInput`).
pub fn read(path: &Path) -> io::Result<Vec<u8>> {
    check(path)?;
    std::fs::read(path)
}

/// `std::fs::read_to_string` of a regular file.
///
/// # Errors
/// As [`read`], or the file is not UTF-8.
pub fn read_to_string(path: &Path) -> io::Result<String> {
    check(path)?;
    std::fs::read_to_string(path)
}

#[cfg(test)]
mod tests {
    #[test]
    fn devices_and_folders_are_refused() {
        for p in ["/dev/zero", "/tmp"] {
            let e = super::read(std::path::Path::new(p)).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{p}");
        }
    }
}
