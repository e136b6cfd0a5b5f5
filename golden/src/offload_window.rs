//! Compression of activation maps in cDMA's offload windows (seed `003_*`,
//! Sec. V-A and VII-A: every algorithm compresses 4 KB windows; Fig. 11
//! compares ZVC, RL and zlib on them).
//!
//! A window is up to [`WINDOW_BYTES`] of memory, a whole number of 128-byte
//! memory-entries (the last window of an allocation may be shorter). Its
//! stream per algorithm:
//!
//! - **ZVC** ([`WindowAlgorithm::Zvc`]): cDMA's ZVC works on 128-byte lines
//!   (Fig. 10); the window's stream is the lines' ZVC streams
//!   ([`crate::zvc`]: a 32-bit mask, then the non-zero 32-bit words) one
//!   after the other, byte aligned (each is `4 + 4n` bytes), unpadded.
//! - **RL** ([`WindowAlgorithm::RunLength`]): [`crate::run_length`] over the
//!   window's 32-bit words.
//! - **zlib** ([`WindowAlgorithm::Zlib`]): a zlib stream (RFC 1950: 2-byte
//!   header, DEFLATE at level 6, Adler-32) of the window's bytes, made by
//!   the `flate2` crate; the paper's upper bound on what general-purpose
//!   compression would gain.
//!
//! Sizes are not capped: a window that does not compress reports more
//! bytes than it holds (ratio below 1), as the paper's ratios allow.

use crate::entry::{ENTRY_BYTES, ENTRY_WORDS};
use crate::run_length::{self, RunLengthError};
use std::io::{Read, Write};
use thiserror::Error;

/// cDMA's compression window, bytes (Sec. VII-A: 4 KB).
pub const WINDOW_BYTES: usize = 4096;

/// An algorithm of cDMA's study (Fig. 11's RL, ZV, ZL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WindowAlgorithm {
    Zvc,
    RunLength,
    Zlib,
}

impl WindowAlgorithm {
    /// Every algorithm, in the paper's order (RL, ZV, ZL).
    pub const ALL: [WindowAlgorithm; 3] = [WindowAlgorithm::RunLength, WindowAlgorithm::Zvc, WindowAlgorithm::Zlib];

    /// Its name: `rl`, `zvc`, `zlib`.
    pub fn name(self) -> &'static str {
        match self {
            WindowAlgorithm::Zvc => "zvc",
            WindowAlgorithm::RunLength => "rl",
            WindowAlgorithm::Zlib => "zlib",
        }
    }
}

/// Why a window cannot be compressed or a stream decoded.
#[derive(Debug, Error)]
pub enum WindowError {
    /// The window is empty, longer than [`WINDOW_BYTES`] or not a whole
    /// number of 128-byte memory-entries.
    #[error("a window holds 128 to {WINDOW_BYTES} bytes in whole 128-byte memory-entries, not {bytes}")]
    Size { bytes: usize },
    /// A ZVC stream ends inside line `line`.
    #[error("ZVC window stream truncated in line {line}")]
    ZvcTruncated { line: usize },
    /// Bytes follow the last line of the stream.
    #[error("{extra} bytes follow the window's stream")]
    Trailing { extra: usize },
    #[error("RL window stream: {0}")]
    RunLength(#[from] RunLengthError),
    /// The zlib stream is malformed.
    #[error("zlib window stream: {0}")]
    Zlib(std::io::Error),
    /// The stream decodes to another length than the window's.
    #[error("the stream decodes to {got} bytes, not the window's {expected}")]
    Length { expected: usize, got: usize },
}

fn check(window: &[u8]) -> Result<(), WindowError> {
    if window.is_empty() || window.len() > WINDOW_BYTES || !window.len().is_multiple_of(ENTRY_BYTES) {
        return Err(WindowError::Size { bytes: window.len() });
    }
    Ok(())
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The stream of `window` under `algorithm` (see the module docs).
///
/// # Errors
/// [`WindowError::Size`].
pub fn compress(algorithm: WindowAlgorithm, window: &[u8]) -> Result<Vec<u8>, WindowError> {
    check(window)?;
    Ok(match algorithm {
        WindowAlgorithm::Zvc => {
            let mut out = Vec::with_capacity(window.len() + window.len() / 32);
            for line in window.chunks_exact(ENTRY_BYTES) {
                let w = words(line);
                let mask = w.iter().enumerate().fold(0u32, |m, (i, &x)| m | (((x != 0) as u32) << i));
                out.extend_from_slice(&mask.to_le_bytes());
                w.iter().filter(|&&x| x != 0).for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
            }
            out
        }
        WindowAlgorithm::RunLength => run_length::encode(&words(window)),
        WindowAlgorithm::Zlib => {
            let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
            // Writing into a Vec cannot fail.
            z.write_all(window).and_then(|()| z.finish()).unwrap_or_default()
        }
    })
}

/// Bytes of the stream of `window` under `algorithm`: [`compress`]'s
/// length, computed without building ZVC and RL streams.
///
/// # Errors
/// [`WindowError::Size`].
pub fn compressed_bytes(algorithm: WindowAlgorithm, window: &[u8]) -> Result<usize, WindowError> {
    check(window)?;
    Ok(match algorithm {
        WindowAlgorithm::Zvc => window.chunks_exact(ENTRY_BYTES).map(|l| 4 + 4 * words(l).iter().filter(|&&x| x != 0).count()).sum(),
        WindowAlgorithm::RunLength => run_length::encoded_bytes(&words(window)),
        WindowAlgorithm::Zlib => compress(algorithm, window)?.len(),
    })
}

/// Decode the stream of a window of `window_bytes` bytes.
///
/// # Errors
/// [`WindowError`]: a bad window size, a malformed or truncated stream,
/// trailing bytes, or a stream of another length.
pub fn decompress(algorithm: WindowAlgorithm, stream: &[u8], window_bytes: usize) -> Result<Vec<u8>, WindowError> {
    if window_bytes == 0 || window_bytes > WINDOW_BYTES || !window_bytes.is_multiple_of(ENTRY_BYTES) {
        return Err(WindowError::Size { bytes: window_bytes });
    }
    let out = match algorithm {
        WindowAlgorithm::Zvc => {
            let mut out = Vec::with_capacity(window_bytes);
            let mut at = 0;
            for line in 0..window_bytes / ENTRY_BYTES {
                let mask_bytes = stream.get(at..at + 4).ok_or(WindowError::ZvcTruncated { line })?;
                let mask = u32::from_le_bytes([mask_bytes[0], mask_bytes[1], mask_bytes[2], mask_bytes[3]]);
                at += 4;
                for i in 0..ENTRY_WORDS {
                    if mask >> i & 1 == 1 {
                        out.extend_from_slice(stream.get(at..at + 4).ok_or(WindowError::ZvcTruncated { line })?);
                        at += 4;
                    } else {
                        out.extend_from_slice(&[0; 4]);
                    }
                }
            }
            if at != stream.len() {
                return Err(WindowError::Trailing { extra: stream.len() - at });
            }
            out
        }
        WindowAlgorithm::RunLength => run_length::decode(stream, window_bytes / 4)?.iter().flat_map(|w| w.to_le_bytes()).collect(),
        WindowAlgorithm::Zlib => {
            let mut out = Vec::with_capacity(window_bytes);
            let mut z = flate2::read::ZlibDecoder::new(stream).take(window_bytes as u64 + 1);
            z.read_to_end(&mut out).map_err(WindowError::Zlib)?;
            out
        }
    };
    if out.len() != window_bytes {
        return Err(WindowError::Length { expected: window_bytes, got: out.len() });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn zvc_window_is_the_lines_zvc_streams() {
        let mut window = vec![0u8; WINDOW_BYTES];
        window[4..8].copy_from_slice(&7u32.to_le_bytes()); // line 0, word 1
        window[128..132].copy_from_slice(&9u32.to_le_bytes()); // line 1, word 0
        let s = compress(WindowAlgorithm::Zvc, &window).unwrap();
        // 32 masks + 2 words.
        assert_eq!(s.len(), 32 * 4 + 8);
        assert_eq!(s[..8], [2, 0, 0, 0, 7, 0, 0, 0]);
        assert_eq!(s[8..16], [1, 0, 0, 0, 9, 0, 0, 0]);
        // Matches the entry codec's stream bits line by line.
        let entry = crate::MemoryEntry::from_slice(&window[..128]).unwrap();
        assert_eq!(crate::zvc::stream_bits(crate::zvc::mask(&entry).count_ones() as usize), 64);
    }

    #[test]
    fn all_zero_window_ratios() {
        let window = vec![0u8; WINDOW_BYTES];
        assert_eq!(compressed_bytes(WindowAlgorithm::Zvc, &window).unwrap(), 128); // 32x
        assert_eq!(compressed_bytes(WindowAlgorithm::RunLength, &window).unwrap(), 40);
        assert!(compressed_bytes(WindowAlgorithm::Zlib, &window).unwrap() < 64);
    }

    #[test]
    fn bad_sizes_and_streams_are_errors() {
        assert!(matches!(compress(WindowAlgorithm::Zvc, &[0; 100]), Err(WindowError::Size { bytes: 100 })));
        assert!(matches!(compress(WindowAlgorithm::Zlib, &vec![0; 8192]), Err(WindowError::Size { .. })));
        assert!(matches!(decompress(WindowAlgorithm::Zvc, &[1, 0, 0, 0], 128), Err(WindowError::ZvcTruncated { line: 0 })));
        assert!(matches!(decompress(WindowAlgorithm::Zvc, &[0; 5], 128), Err(WindowError::Trailing { extra: 1 })));
        assert!(matches!(decompress(WindowAlgorithm::Zlib, &[1, 2, 3], 128), Err(WindowError::Zlib(_))));
        let rl = compress(WindowAlgorithm::RunLength, &[0; 128]).unwrap();
        assert!(matches!(decompress(WindowAlgorithm::RunLength, &rl, 256), Err(WindowError::Length { expected: 256, got: 128 })));
    }

    proptest! {
        #[test]
        fn round_trip(lines in 1usize..=32, seed in any::<u64>(), zero_percent in 0u64..=100) {
            // Words zero with the given probability, from a small generator.
            let mut x = seed | 1;
            let window: Vec<u8> = (0..lines * ENTRY_WORDS)
                .flat_map(|_| {
                    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                    let w = if x % 100 < zero_percent { 0 } else { (x >> 32) as u32 };
                    w.to_le_bytes()
                })
                .collect();
            for a in WindowAlgorithm::ALL {
                let s = compress(a, &window).unwrap();
                prop_assert_eq!(s.len(), compressed_bytes(a, &window).unwrap());
                prop_assert_eq!(decompress(a, &s, window.len()).unwrap(), window.clone());
            }
        }
    }
}
