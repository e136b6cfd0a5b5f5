//! The interface every golden compressor implements, and the rules of
//! docs/formats.md#size-classes that are the same for all of them (zero detection, raw
//! fallback, stored length).

use crate::bdi::Bdi;
use crate::bpc::Bpc;
use crate::entry::{MemoryEntry, ENTRY_BYTES};
use crate::error::DecodeError;
use crate::mag_bdi::{Mag, MagBdi};
use crate::size_class::{SizeClass, MAX_COMPRESSED_BITS};
use crate::zvc::Zvc;

/// Bytes of stream buffer a codec writes into: streams longer than 768 bits
/// (96 bytes) are never stored (docs/formats.md#size-classes).
pub const STREAM_BUFFER_BYTES: usize = MAX_COMPRESSED_BITS / 8;

/// One compressed memory-entry: what is stored in memory plus its 4-bit size
/// metadata.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CompressedEntry {
    /// The size class, stored as the entry's 4-bit metadata.
    pub class: SizeClass,
    /// Length in bits of the algorithm's stream for this entry: 0 for ZERO
    /// (nothing is run); for RAW the length the stream would have had
    /// (> 768), so that studies can compare algorithms entry by entry.
    pub stream_bits: usize,
    /// Stored bytes, zero-padded to 128. The first `class.bytes()` bytes are
    /// what memory holds: the stream packed LSB-first (stream bit `j` at bit
    /// `j mod 8` of byte `j div 8`, docs/formats.md#stream-packing), or the original entry for
    /// RAW. In hardware this is the 1024-bit payload vector `C`.
    pub payload: [u8; ENTRY_BYTES],
}

impl CompressedEntry {
    /// The bytes memory holds for this entry (`class.bytes()` of them).
    pub fn stored(&self) -> &[u8] {
        &self.payload[..self.class.bytes()]
    }

    /// The payload as the 1024-bit vector `C`, 256 hex digits, most significant
    /// first (as `$readmemh` reads a `[1023:0]`).
    pub fn payload_hex(&self) -> String {
        MemoryEntry::from_bytes(&self.payload).to_hex()
    }
}

/// A memory-entry compression algorithm.
///
/// Implementors provide the stream encoder and decoder for non-zero entries;
/// the provided [`Codec::compress`] and [`Codec::decompress`] apply the rules
/// common to every algorithm (docs/formats.md#size-classes).
pub trait Codec {
    /// Which algorithm this is.
    fn algorithm(&self) -> Algorithm;

    /// Encode a non-zero entry. Writes the first `min(len, 768)` stream bits
    /// into `stream` (LSB-first packing, zero elsewhere) and returns the full
    /// stream length `len` in bits. When `len > 768` the buffer contents are
    /// unspecified: the entry will be stored raw.
    fn encode_stream(&self, entry: &MemoryEntry, stream: &mut [u8; STREAM_BUFFER_BYTES]) -> usize;

    /// Decode the stored bytes of a class B8..B96 (exactly `class.bytes()` of
    /// them) back into the entry.
    ///
    /// # Errors
    /// A [`DecodeError`] naming the rule the stream breaks; never panics.
    fn decode_stream(&self, class: SizeClass, stored: &[u8]) -> Result<MemoryEntry, DecodeError>;

    /// Compress one entry: ZERO for an all-zero entry, RAW when the stream is
    /// longer than 768 bits, otherwise the smallest class holding the stream.
    fn compress(&self, entry: &MemoryEntry) -> CompressedEntry {
        if entry.is_zero() {
            return CompressedEntry { class: SizeClass::Zero, stream_bits: 0, payload: [0; ENTRY_BYTES] };
        }
        let mut stream = [0u8; STREAM_BUFFER_BYTES];
        let bits = self.encode_stream(entry, &mut stream);
        let class = SizeClass::for_stream_bits(bits);
        let mut payload = [0u8; ENTRY_BYTES];
        if class == SizeClass::Raw {
            payload = entry.to_bytes();
        } else {
            payload[..STREAM_BUFFER_BYTES].copy_from_slice(&stream);
        }
        CompressedEntry { class, stream_bits: bits, payload }
    }

    /// Decompress the `stored` bytes of an entry of size class `class`.
    ///
    /// # Errors
    /// [`DecodeError::StoredLength`] unless `stored.len() == class.bytes()`;
    /// otherwise whatever the algorithm's decoder reports.
    fn decompress(&self, class: SizeClass, stored: &[u8]) -> Result<MemoryEntry, DecodeError> {
        if stored.len() != class.bytes() {
            return Err(DecodeError::StoredLength { class: class.name(), expected: class.bytes(), got: stored.len() });
        }
        match class {
            SizeClass::Zero => Ok(MemoryEntry::ZERO),
            SizeClass::Raw => Ok(MemoryEntry::from_slice(stored).expect("length checked above")),
            _ => self.decode_stream(class, stored),
        }
    }

    /// Decompress given the raw 4-bit metadata `code`.
    ///
    /// # Errors
    /// [`DecodeError::ReservedSizeCode`] for codes 8-15, else as [`Codec::decompress`].
    fn decompress_code(&self, code: u8, stored: &[u8]) -> Result<MemoryEntry, DecodeError> {
        self.decompress(SizeClass::from_code(code)?, stored)
    }
}

/// The compression algorithms this crate models, by the names the CLI accepts.
///
/// **The registry.** Everything the workspace needs to know about an
/// algorithm is answered here, so that a new codec is one new file plus one
/// registration in this enum: its variant, [`Algorithm::ALL`],
/// [`Algorithm::name`], [`Algorithm::codec`], [`Algorithm::hardware`] (which
/// rust-hdl hardware, if any, is built with it) and
/// [`Algorithm::default_codec_cycles`] (the latencies the fast memory-system
/// engine assumes). Code outside this crate matches on [`HardwareCodec`]
/// (the algorithms that have hardware), never exhaustively on `Algorithm`,
/// so an algorithm without hardware needs no change anywhere else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Bit-Plane Compression (Kim et al., ISCA 2016; docs/formats.md#bpc).
    Bpc,
    /// MAG-aware Base-Delta-Immediate with the given memory access
    /// granularity (docs/formats.md#mag-bdi).
    MagBdi(Mag),
    /// Zero-Value Compression (cDMA).
    Zvc,
    /// Base-Delta-Immediate as in the original paper (Pekhimenko et al.,
    /// PACT 2012; docs/formats.md#bdi): golden model only, no hardware.
    Bdi,
}

/// The algorithms that have rust-hdl hardware in `buddy-hdl`: a compressor,
/// a decompressor and the controller slices built with them. Hardware code
/// (latencies, slice builders, Verilog module names) matches on this enum,
/// and [`Algorithm::hardware`] is the only way from an algorithm to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HardwareCodec {
    /// `bpc_compressor`, `bpc_decompressor`.
    Bpc,
    /// `mag_bdi<MAG>_compressor`, `mag_bdi<MAG>_decompressor`, at every MAG.
    MagBdi(Mag),
    /// `zvc_compressor`, `zvc_decompressor`.
    Zvc,
}

impl HardwareCodec {
    /// Every algorithm with hardware, in [`Algorithm::ALL`] order.
    pub const ALL: [HardwareCodec; 5] = [
        HardwareCodec::Bpc,
        HardwareCodec::MagBdi(Mag::B32),
        HardwareCodec::MagBdi(Mag::B16),
        HardwareCodec::MagBdi(Mag::B64),
        HardwareCodec::Zvc,
    ];

    /// The algorithm this hardware implements.
    pub const fn algorithm(self) -> Algorithm {
        match self {
            HardwareCodec::Bpc => Algorithm::Bpc,
            HardwareCodec::MagBdi(mag) => Algorithm::MagBdi(mag),
            HardwareCodec::Zvc => Algorithm::Zvc,
        }
    }
}

impl From<HardwareCodec> for Algorithm {
    fn from(h: HardwareCodec) -> Self {
        h.algorithm()
    }
}

impl std::fmt::Display for HardwareCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.algorithm().name())
    }
}

/// A hardware path (RTL engine, hardware slice timing, Verilog, co-simulation)
/// was asked for an algorithm that has no rust-hdl hardware.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{algorithm} has no rust-hdl hardware (no compressor, decompressor or controller slice is built with it); algorithms with hardware: {with}")]
pub struct NoHardware {
    /// The algorithm asked for.
    pub algorithm: Algorithm,
    /// The names of the algorithms that have hardware, comma-separated.
    pub with: String,
}

impl Algorithm {
    /// Every algorithm, in the order studies print them (BDI beside its
    /// MAG-aware variants).
    pub const ALL: [Algorithm; 6] = [
        Algorithm::Bpc,
        Algorithm::Bdi,
        Algorithm::MagBdi(Mag::B32),
        Algorithm::MagBdi(Mag::B16),
        Algorithm::MagBdi(Mag::B64),
        Algorithm::Zvc,
    ];

    /// The name the CLI accepts and prints.
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::Bpc => "bpc",
            Algorithm::MagBdi(Mag::B32) => "mag-bdi",
            Algorithm::MagBdi(Mag::B16) => "mag-bdi:16",
            Algorithm::MagBdi(Mag::B64) => "mag-bdi:64",
            Algorithm::Zvc => "zvc",
            Algorithm::Bdi => "bdi",
        }
    }

    /// The golden codec of this algorithm.
    pub fn codec(self) -> Box<dyn Codec + Send + Sync> {
        match self {
            Algorithm::Bpc => Box::new(Bpc),
            Algorithm::MagBdi(mag) => Box::new(MagBdi { mag }),
            Algorithm::Zvc => Box::new(Zvc),
            Algorithm::Bdi => Box::new(Bdi),
        }
    }

    /// The rust-hdl hardware built with this algorithm's codecs, `None`
    /// when it has none (it then runs in the golden models only: studies
    /// and the fast memory-system engine).
    pub const fn hardware(self) -> Option<HardwareCodec> {
        match self {
            Algorithm::Bpc => Some(HardwareCodec::Bpc),
            Algorithm::MagBdi(mag) => Some(HardwareCodec::MagBdi(mag)),
            Algorithm::Zvc => Some(HardwareCodec::Zvc),
            Algorithm::Bdi => None,
        }
    }

    /// True when [`Algorithm::hardware`] is `Some`.
    pub const fn has_hardware(self) -> bool {
        self.hardware().is_some()
    }

    /// [`Algorithm::hardware`] as a `Result`, for hardware paths.
    ///
    /// # Errors
    /// [`NoHardware`] naming the algorithm and those that have hardware.
    pub fn require_hardware(self) -> Result<HardwareCodec, NoHardware> {
        self.hardware().ok_or_else(|| NoHardware {
            algorithm: self,
            with: HardwareCodec::ALL.iter().map(|h| h.algorithm().name()).collect::<Vec<_>>().join(", "),
        })
    }

    /// The MAG of a MAG-BDI algorithm (whose studies also report the
    /// MAG-BDI paper's raw and effective ratios), else `None`.
    pub const fn mag(self) -> Option<Mag> {
        match self {
            Algorithm::MagBdi(mag) => Some(mag),
            _ => None,
        }
    }

    /// (compression, decompression) latency in DRAM cycles that the fast
    /// memory-system engine's pipelined timing assumes unless configured
    /// (docs/formats.md#timing-defaults): BPC 11 / 11 (Buddy Compression
    /// Sec. IV-A), MAG-BDI 1 / 1 (seed 002 Sec. V-A), ZVC 6 / 2 (cDMA
    /// Sec. V-B), BDI 1 / 1 (the BΔI paper's one-cycle decompression; the
    /// same for compression is this project's assumption).
    pub const fn default_codec_cycles(self) -> (f64, f64) {
        match self {
            Algorithm::Bpc => (11.0, 11.0),
            Algorithm::MagBdi(_) | Algorithm::Bdi => (1.0, 1.0),
            Algorithm::Zvc => (6.0, 2.0),
        }
    }

    /// Names accepted by [`std::str::FromStr`] (`mag-bdi:32` is also
    /// accepted for `mag-bdi`), comma-separated, for error messages.
    pub fn valid_names() -> String {
        Self::ALL.iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm name that is not one of [`Algorithm::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown algorithm '{given}' (valid: {valid})")]
pub struct UnknownAlgorithm {
    pub given: String,
    pub valid: String,
}

impl std::str::FromStr for Algorithm {
    type Err = UnknownAlgorithm;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|a| a.name() == s || (s == "mag-bdi:32" && *a == Algorithm::MagBdi(Mag::B32)))
            .ok_or_else(|| UnknownAlgorithm { given: s.to_string(), valid: Self::valid_names() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry is consistent: names are unique and parse back, every
    /// hardware codec is an algorithm of `ALL` whose `hardware()` is it,
    /// and every algorithm's codec says which algorithm it is.
    #[test]
    fn the_registry_is_consistent() {
        let mut names = std::collections::HashSet::new();
        for a in Algorithm::ALL {
            assert!(names.insert(a.name()), "{a} twice");
            assert_eq!(a.name().parse::<Algorithm>(), Ok(a));
            assert_eq!(a.codec().algorithm(), a);
            match a.hardware() {
                Some(h) => assert_eq!(h.algorithm(), a),
                None => assert!(a.require_hardware().unwrap_err().to_string().starts_with(a.name())),
            }
            assert_eq!(a.has_hardware(), a.require_hardware().is_ok());
        }
        for h in HardwareCodec::ALL {
            assert!(Algorithm::ALL.contains(&h.algorithm()));
            assert_eq!(h.algorithm().hardware(), Some(h));
            assert_eq!(Algorithm::from(h).to_string(), h.to_string());
        }
        let with_hardware: Vec<Algorithm> = Algorithm::ALL.into_iter().filter(|a| a.has_hardware()).collect();
        assert_eq!(with_hardware, HardwareCodec::ALL.map(HardwareCodec::algorithm).to_vec());
    }
}
