//! The controllers' modes (docs/formats.md#modes; Buddy paper Sec. IV).

use serde::Serialize;

/// How the controllers treat memory (docs/formats.md#modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// No compression, no metadata: 4 sectors per entry.
    Uncompressed,
    /// Compressed into full 128 B slots: only the class's sectors move; no buddy.
    BandwidthOnly,
    /// Buddy Compression: device part per target ratio, the rest in buddy-memory.
    Buddy,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Uncompressed, Mode::BandwidthOnly, Mode::Buddy];

    /// The mode named `name` (as [`Mode::name`] spells it).
    pub fn from_name(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == name)
    }

    pub const fn name(self) -> &'static str {
        match self {
            Mode::Uncompressed => "uncompressed",
            Mode::BandwidthOnly => "bandwidth-only",
            Mode::Buddy => "buddy",
        }
    }
}
