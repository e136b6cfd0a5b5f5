//! MAG-aware Base-Delta-Immediate compression (MAG-BDI).
//!
//! Source: MAG-aware BDI (seed `002_*`), Sec. IV-D/E, Table III, Eq. 1,
//! Fig. 9 (compressor unit), Fig. 10 (decompressor) and Sec. VI-G (MAG 16/64);
//! bit layout fixed by docs/formats.md#mag-bdi.
//!
//! One 4-byte non-zero base `B`, the implicit zero base, a 32-bit base mask and
//! 32 signed deltas of one width `d` per entry. Stream (LSB-first, docs/formats.md#stream-packing):
//!
//! ```text
//!  bit 0      32           64          64+d              64+31d      64+32d
//!  | B[31:0]  | mask[31:0] | delta_0   | delta_1 | ...   | delta_31  |
//! ```
//!
//! `mask` bit `i` is 1 when word `i` uses base `B`, 0 when it uses the zero
//! base; `delta_i` is the low `d` bits (two's complement) of `w[i]` (mask 0)
//! or of `w[i] - B mod 2^32` (mask 1).
//!
//! # Encodings
//!
//! Eq. 1 with a 128-byte block, a 64-bit header (base + mask) and 32 deltas:
//! for `k = 1 .. 128/MAG - 1`, `d_k = floor((8*k*MAG - 64) / 32)` bits and the
//! stream is exactly `8*k*MAG` bits. For every MAG here `32` divides
//! `8*k*MAG - 64`, so `64 + 32*d_k = 8*k*MAG`: the deltas fill the stream to its
//! last bit and there are **no padding bits**.
//!
//! | MAG | k | d (bits) | stream bytes | Buddy class (docs/formats.md#size-classes) |
//! |---|---|---|---|---|
//! | 16 | 1 | 2 | 16 | B16 |
//! | 16 | 2 | 6 | 32 | B32 |
//! | 16 | 3 | 10 | 48 | B64, stored as the k = 4 stream (see below) |
//! | 16 | 4 | 14 | 64 | B64 |
//! | 16 | 5 | 18 | 80 | B80 |
//! | 16 | 6 | 22 | 96 | B96 |
//! | 16 | 7 | 26 | 112 | RAW (> 768 bits) |
//! | 32 | 1 | 6 | 32 | B32 (Table III, encoding 00) |
//! | 32 | 2 | 14 | 64 | B64 (01) |
//! | 32 | 3 | 22 | 96 | B96 (10) |
//! | 64 | 1 | 14 | 64 | B64 |
//!
//! No encoding succeeds → uncompressed: RAW (Table III, encoding 11);
//! [`Codec::encode_stream`] then returns [`UNCOMPRESSED_BITS`] = 1024, the size of
//! the uncompressed entry. B8 is never used by any MAG.
//!
//! # Compressor unit (Fig. 9) and selection (Fig. 8)
//!
//! The unit for width `d` ([`compressor_unit`]):
//! 1. sign-extension check of each `w[i]` (as `i32`) against the zero base:
//!    `-2^(d-1) <= w[i] <= 2^(d-1) - 1`;
//! 2. `B` = the first (lowest-index) word failing step 1, or 0 if none fails;
//! 3. `mask[i]` = 1 iff `w[i]` failed step 1; every mask-1 word needs
//!    `(w[i] - B) mod 2^32`, read as `i32`, in the same range, else the unit fails.
//!
//! All units run in parallel and the smallest succeeding `d` wins.
//! [`MagBdi::encoding`] makes the same choice with fewer passes over the
//! words (one per distinct base, see its comments); the tests check it
//! against running every unit ([`compressor_unit`], written as the steps
//! above).
//!
//! # Decoding (Fig. 10)
//!
//! `w[i] = sext_d(delta_i) + (mask[i] ? B : 0) mod 2^32`, all words independent.
//! Buddy keeps no encoding bits, only the 4-bit size class, so the decoder
//! reads the encoding from the class **(decision)**: class bytes must be exactly
//! `k*MAG` for a `k` in `1 .. 128/MAG - 1` (MAG 16: B16/B32/B64/B80/B96 → k =
//! 1/2/4/5/6; MAG 32: B32/B64/B96 → k = 1/2/3; MAG 64: B64 → k = 1). Any
//! other class is an error. Every bit string of a valid class decodes: the
//! decoder does not check that the stream is the one the compressor would
//! emit (e.g. mask 0 with `B != 0`, or a mask-1 word that would have passed
//! the zero-base check); such non-canonical streams are well-formed and
//! decode by the formula above. No input panics.
//!
//! Encoding and decoding allocate nothing; the per-word checks are plain
//! integer adds and compares that the compiler vectorises.
//!
//! # MAG 16 inside Buddy **(decision)**
//!
//! The k = 3 stream (48 bytes) and the k = 4 stream (64 bytes) both take class
//! B64, and one class can name only one encoding. Buddy stores an entry whose
//! smallest succeeding encoding is k = 3 with the k = 4 (d = 14) stream:
//! [`Codec::encode_stream`] returns 512 for it. Nothing is lost, because a
//! unit's success is monotone in `d`: if unit `d` succeeds with base `B` and
//! failing set `F_d`, then for `d' > d` the failing set `F_d'` is a subset of
//! `F_d`, its base `B' = w[j]` has `w[j] - B = delta_j`, and every `i` in `F_d'`
//! has `w[i] - B' = delta_i - delta_j`, which lies in
//! `[-(2^d - 1), 2^d - 1]` and so fits `d + 1 <= d'` signed bits. The class and
//! DRAM sectors are those of k = 3 anyway (B64, 2 sectors). The MAG-BDI
//! paper's own view ([`MagBdi::stream_bits`], [`raw_ratio`],
//! [`effective_ratio`]) still counts 384 bits for such an entry.
//!
//! Likewise the MAG 16 k = 7 stream (112 bytes, d = 26) is longer than 768
//! bits, so under Buddy's classes such an entry is stored RAW
//! ([`Codec::encode_stream`] returns 896), although the MAG-BDI paper counts it
//! as compressed to 112 bytes.
//!
//! The MAG-BDI paper has no ZERO class; Buddy's zero detection runs first
//! (docs/formats.md#size-classes), so [`Codec::compress`] stores an all-zero entry as ZERO,
//! while [`MagBdi::stream_bits`] reports the paper's `8*MAG` bits for it.

use crate::codec::{Algorithm, Codec, STREAM_BUFFER_BYTES};
use crate::entry::{MemoryEntry, ENTRY_BYTES, ENTRY_WORDS};
use crate::error::DecodeError;
use crate::size_class::{SizeClass, MAX_COMPRESSED_BITS};

/// Bits of an uncompressed memory-entry (128 bytes). [`Codec::encode_stream`]
/// returns this when no encoding succeeds, so the entry is stored RAW.
pub const UNCOMPRESSED_BITS: usize = ENTRY_BYTES * 8;

/// Bits of the stream header: the 32-bit non-zero base and the 32-bit mask.
pub const HEADER_BITS: usize = 64;

/// The memory access granularity the encodings are fitted to, in bytes
/// (paper Sec. I: 32 bytes for GDDR/HBM2, the default; Sec. VI-G: 16 and 64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mag {
    /// 16 bytes: seven encodings, d = 2, 6, 10, 14, 18, 22, 26.
    B16,
    /// 32 bytes (default): Table III, d = 6, 14, 22.
    #[default]
    B32,
    /// 64 bytes: one encoding, d = 14.
    B64,
}

impl Mag {
    /// Every MAG, smallest first.
    pub const ALL: [Mag; 3] = [Mag::B16, Mag::B32, Mag::B64];

    /// The granularity in bytes: 16, 32 or 64.
    pub const fn bytes(self) -> usize {
        match self {
            Mag::B16 => 16,
            Mag::B32 => 32,
            Mag::B64 => 64,
        }
    }

    /// The MAG of `bytes` (16, 32 or 64), else `None`.
    pub const fn from_bytes(bytes: usize) -> Option<Mag> {
        match bytes {
            16 => Some(Mag::B16),
            32 => Some(Mag::B32),
            64 => Some(Mag::B64),
            _ => None,
        }
    }

    /// Number of encodings, `128/MAG - 1` (7, 3, 1); `k` runs `1 ..= encodings()`.
    pub const fn encodings(self) -> usize {
        ENTRY_BYTES / self.bytes() - 1
    }

    /// Stream length in bits of encoding `k`: `8*k*MAG`.
    pub const fn stream_bits_of(self, k: usize) -> usize {
        8 * k * self.bytes()
    }

    /// Delta width in bits of encoding `k` (Eq. 1): `floor((8*k*MAG - 64) / 32)`.
    /// Meaningful for `k` in `1 ..= encodings()`; 0 for `k = 0`.
    pub const fn delta_bits_of(self, k: usize) -> u32 {
        (self.stream_bits_of(k).saturating_sub(HEADER_BITS) / ENTRY_WORDS) as u32
    }
}

/// The MAG-BDI golden codec for one MAG.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct MagBdi {
    /// The granularity the encodings are fitted to (default 32 bytes).
    pub mag: Mag,
}

/// What one compressor unit (Fig. 9) outputs when it can compress the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Unit {
    /// The non-zero base `B`: the first word failing the zero-base check, or 0.
    pub base: u32,
    /// Bit `i` is 1 iff word `i` uses `B` (it failed the zero-base check).
    pub mask: u32,
}

/// The encoding the MAG-BDI paper's compressor picks for an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Encoding {
    /// Encoding number, `1 ..= Mag::encodings()`.
    pub k: usize,
    /// Delta width `d_k` in bits.
    pub delta_bits: u32,
    /// Stream length `8*k*MAG` in bits.
    pub stream_bits: usize,
    /// The unit's base and mask.
    pub unit: Unit,
}

/// True when `x`, read as `i32`, lies in `[-2^(d-1), 2^(d-1) - 1]`
/// (the sign-extension check). Adding `2^(d-1)` maps that range onto
/// `[0, 2^d)` without wrapping; `1 <= d <= 31`.
#[inline(always)]
const fn fits(x: u32, d: u32) -> bool {
    x.wrapping_add(1 << (d - 1)) < (1 << d)
}

/// Sign-extend the low `d` bits of `x` to 32 bits; `1 <= d <= 31`.
#[inline(always)]
const fn sext(x: u32, d: u32) -> u32 {
    (((x << (32 - d)) as i32) >> (32 - d)) as u32
}

/// `x ^ sign(x)`: a value in `[0, 2^31)` whose bit length + 1 is the
/// signed width of `x` read as `i32`.
#[inline(always)]
const fn magnitude(x: u32) -> u32 {
    x ^ ((x as i32 >> 31) as u32)
}

/// Signed width in bits of a value whose [`magnitude`] is `y`: 1 for 0 and
/// -1, `d` for `2^(d-1) - 1` and `-2^(d-1)`. `fits(x, d)` iff `width(magnitude(x)) <= d`.
#[inline(always)]
const fn width(y: u32) -> u32 {
    33 - y.leading_zeros()
}

/// [`magnitude`] of every word, and their OR (whose [`width`] is that of the
/// widest word).
#[inline(never)]
fn magnitudes(words: &[u32; ENTRY_WORDS]) -> ([u32; ENTRY_WORDS], u32) {
    let mut y = [0u32; ENTRY_WORDS];
    for (y, &w) in y.iter_mut().zip(words) {
        *y = magnitude(w);
    }
    let all = y.iter().fold(0, |a, &y| a | y);
    (y, all)
}

/// Bit `i` set iff word `i`, with magnitude `y[i]`, fails the zero-base check
/// at width `d` (`y[i] >= 2^(d-1)`; magnitudes are below 2^31, so a signed
/// compare is exact).
#[inline(never)]
fn zero_base_fails(y: &[u32; ENTRY_WORDS], d: u32) -> u32 {
    let limit = (1i32 << (d - 1)) - 1;
    let mut mask = 0u32;
    for (i, &y) in y.iter().enumerate() {
        mask |= ((y as i32 > limit) as u32) << i;
    }
    mask
}

/// The smallest width at which every word fits the zero base or `base`:
/// the width of `OR_i min(y[i], magnitude(w[i] - base))` (magnitudes are
/// below 2^31, so a signed min is exact).
#[inline(never)]
fn width_against(words: &[u32; ENTRY_WORDS], y: &[u32; ENTRY_WORDS], base: u32) -> u32 {
    let mut r = 0u32;
    for (&w, &y) in words.iter().zip(y) {
        r |= (y as i32).min(magnitude(w.wrapping_sub(base)) as i32) as u32;
    }
    width(r)
}

/// Bit `i` set iff word `i` fails the zero-base check at width `d`.
#[inline(always)]
fn fail_mask(words: &[u32; ENTRY_WORDS], d: u32) -> u32 {
    let mut mask = 0u32;
    for (i, &w) in words.iter().enumerate() {
        mask |= (!fits(w, d) as u32) << i;
    }
    mask
}

/// Run `$body` 32 times with `$i` bound to the literals 0..=31, so bit
/// offsets that depend on `$i` and a constant width are constants.
macro_rules! unroll32 {
    ($i:ident, $body:block) => {
        unroll32!(@ $i, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
    };
    (@ $i:ident, $body:block, $($n:literal)*) => {
        $( { let $i: usize = $n; $body } )*
    };
}

/// Evaluate `$f(args.., d)` with `d` as a literal for each MAG-BDI width, so
/// the compiler specialises the `#[inline(always)]` body for it (constant
/// shifts, masks and bit offsets); other widths run generically.
macro_rules! by_width {
    ($d:expr, $f:ident($($a:expr),*)) => {
        match $d {
            2 => $f($($a,)* 2),
            6 => $f($($a,)* 6),
            10 => $f($($a,)* 10),
            14 => $f($($a,)* 14),
            18 => $f($($a,)* 18),
            22 => $f($($a,)* 22),
            26 => $f($($a,)* 26),
            d => $f($($a,)* d),
        }
    };
}

#[inline(always)]
fn unit_impl(words: &[u32; ENTRY_WORDS], d: u32) -> Option<Unit> {
    // Steps 1 and 2: zero-base check of every word; B = first failing word.
    let mask = fail_mask(words, d);
    let base = if mask == 0 { 0 } else { words[mask.trailing_zeros() as usize % ENTRY_WORDS] };
    // Step 3, branch-free: each word fits the zero base (mask 0) or fits
    // relative to B (mask 1).
    let ok = words.iter().fold(true, |ok, &w| ok & (fits(w, d) | fits(w.wrapping_sub(base), d)));
    ok.then_some(Unit { base, mask })
}

/// One compressor unit of delta width `d` bits (Fig. 9, docs/formats.md#mag-bdi steps
/// 1-3): `Some` with the base and mask when every word fits `d` signed bits
/// relative to its base, `None` when the unit cannot compress the entry.
///
/// `d` must be in `1..=31` (the MAG-BDI widths are 2..=26); other widths return
/// `None`.
pub fn compressor_unit(words: &[u32; ENTRY_WORDS], d: u32) -> Option<Unit> {
    if !(1..=31).contains(&d) {
        return None;
    }
    by_width!(d, unit_impl(words))
}

impl MagBdi {
    /// The codec for `mag`.
    pub const fn new(mag: Mag) -> Self {
        MagBdi { mag }
    }

    /// The delta widths `d_k` of this MAG's encodings, `k = 1 ..`:
    /// `[2, 6, 10, 14, 18, 22, 26]`, `[6, 14, 22]` or `[14]`.
    pub fn delta_bits(&self) -> Vec<u32> {
        (1..=self.mag.encodings()).map(|k| self.mag.delta_bits_of(k)).collect()
    }

    /// The encoding the MAG-BDI paper's compressor picks for `entry`: the
    /// smallest `k` whose unit succeeds; `None` when the entry is stored
    /// uncompressed. Independent of Buddy's size classes (an all-zero entry
    /// gives k = 1; MAG 16 may give k = 3 or 7).
    pub fn encoding(&self, entry: &MemoryEntry) -> Option<Encoding> {
        let words = entry.words();
        let (y0, all) = magnitudes(words);
        let zero_width = width(all); // the widest word against the zero base
        let n = self.mag.encodings();
        let found = |k: usize, base: u32| {
            let d = self.mag.delta_bits_of(k);
            let mask = if zero_width <= d { 0 } else { zero_base_fails(&y0, d) };
            Some(Encoding { k, delta_bits: d, stream_bits: self.mag.stream_bits_of(k), unit: Unit { base, mask } })
        };
        // Instead of running every unit, measure per base: with the base B of
        // unit k (first word failing the zero-base check at d_k), `m` = the
        // smallest width at which every word fits the zero base or B. B stays
        // the base of every unit with d < zf = width of B itself, so unit k'
        // with d_k <= d_k' < zf succeeds iff d_k' >= m; from d_k' >= zf on the
        // base is another word and is measured again. One pass per distinct
        // base; the tests check the result against running every unit.
        let mut k = 1;
        while k <= n {
            let d = self.mag.delta_bits_of(k);
            if zero_width <= d {
                return found(k, 0); // every word fits the zero base
            }
            // B: the first word failing the zero-base check (often word 0;
            // one exists since zero_width > d).
            let limit = (1u32 << (d - 1)) - 1;
            let f = y0.iter().position(|&y| y > limit).unwrap_or(0);
            let base = words[f];
            let (m, zf) = (width_against(words, &y0, base), width(y0[f]));
            let next = (k..=n).find(|&k2| self.mag.delta_bits_of(k2) >= m.min(zf))?;
            if self.mag.delta_bits_of(next) < zf {
                return found(next, base); // same base, and d_next >= m
            }
            k = next;
        }
        None
    }

    /// The MAG-BDI paper's compressed length of `entry` in bits, `8*k*MAG`
    /// for the smallest succeeding `k`; `None` when uncompressed. This is the
    /// input of [`raw_ratio`] and [`effective_ratio`]. It differs from
    /// [`Codec::encode_stream`]'s length only for MAG 16 k = 3 (384 here, 512
    /// stored by Buddy), see the module docs.
    pub fn stream_bits(&self, entry: &MemoryEntry) -> Option<usize> {
        self.encoding(entry).map(|e| e.stream_bits)
    }

    /// The encoding `k` a stored class names for this MAG: `class.bytes()`
    /// must be exactly `k*MAG` with `1 <= k <= 128/MAG - 1`.
    pub fn encoding_of_class(&self, class: SizeClass) -> Option<usize> {
        let bytes = class.bytes();
        let k = bytes / self.mag.bytes();
        (bytes.is_multiple_of(self.mag.bytes()) && (1..=self.mag.encodings()).contains(&k)).then_some(k)
    }
}

/// Stream buffer as 64-bit words: stream bit `j` is bit `j mod 64` of
/// `buf[j div 64]`, and the bytes are the words' little-endian bytes in order.
const BUF_WORDS: usize = STREAM_BUFFER_BYTES / 8;

/// The low `d` bits of every delta: `w[i] - B` for words failing the
/// zero-base check at `d` (mask 1), `w[i]` otherwise.
#[inline(never)]
fn deltas(words: &[u32; ENTRY_WORDS], base: u32, d: u32) -> [u32; ENTRY_WORDS] {
    let low = ((1u64 << d) - 1) as u32;
    let mut out = [0u32; ENTRY_WORDS];
    for (o, &w) in out.iter_mut().zip(words) {
        *o = w.wrapping_sub(base & 0u32.wrapping_sub(!fits(w, d) as u32)) & low;
    }
    out
}

/// Write the stream of `unit`, the output of the unit of width `d`, into
/// `stream`: `B` at bit 0, mask at bit 32, the 32 deltas from bit 64, zero
/// from bit `64 + 32*d` to the end of the buffer. Needs an even `d <= 22`
/// (every MAG-BDI width is even: `8*k*MAG - 64` is a multiple of 64), so
/// each group of 4 deltas fills exactly `d/2` whole bytes.
#[inline(always)]
fn write_impl(words: &[u32; ENTRY_WORDS], unit: Unit, stream: &mut [u8; STREAM_BUFFER_BYTES], d: u32) {
    let mut out = [0u8; STREAM_BUFFER_BYTES + 16];
    out[0..4].copy_from_slice(&unit.base.to_le_bytes());
    out[4..8].copy_from_slice(&unit.mask.to_le_bytes());
    let dl = deltas(words, unit.base, d);
    let group_bytes = d as usize / 2;
    for (j, g) in dl.chunks_exact(4).enumerate() {
        let bits = g[0] as u128 | (g[1] as u128) << d | (g[2] as u128) << (2 * d) | (g[3] as u128) << (3 * d);
        // In increasing order: each 16-byte store's zero tail is overwritten
        // by the next group.
        let at = (8 + j * group_bytes).min(STREAM_BUFFER_BYTES);
        out[at..at + 16].copy_from_slice(&bits.to_le_bytes());
    }
    stream.copy_from_slice(&out[..STREAM_BUFFER_BYTES]);
}

fn write_stream(words: &[u32; ENTRY_WORDS], d: u32, unit: Unit, stream: &mut [u8; STREAM_BUFFER_BYTES]) {
    by_width!(d, write_impl(words, unit, stream))
}

/// The 32 words of a stream of width `d` whose first `8 + 4*d <= 96` bytes
/// are `stored` (shorter input reads as zero-padded).
#[inline(always)]
fn read_impl(stored: &[u8], d: u32) -> [u32; ENTRY_WORDS] {
    let mut bytes = [0u8; (BUF_WORDS + 1) * 8];
    let n = stored.len().min(STREAM_BUFFER_BYTES);
    bytes[..n].copy_from_slice(&stored[..n]);
    let mut buf = [0u64; BUF_WORDS + 1];
    for (word, chunk) in buf.iter_mut().zip(bytes.chunks_exact(8)) {
        *word = u64::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7]]);
    }
    let base = buf[0] as u32;
    let mask = (buf[0] >> 32) as u32;
    let low = (1u64 << d) - 1;
    let mut words = [0u32; ENTRY_WORDS];
    unroll32!(i, {
        let p = HEADER_BITS + d as usize * i;
        let (j, sh) = (p / 64 % BUF_WORDS, p % 64);
        let mut v = buf[j] >> sh;
        if sh + d as usize > 64 {
            v |= buf[j + 1] << (64 - sh);
        }
        let delta = sext((v & low) as u32, d);
        words[i] = delta.wrapping_add(base & 0u32.wrapping_sub(mask >> i & 1));
    });
    words
}

impl Codec for MagBdi {
    fn algorithm(&self) -> Algorithm {
        Algorithm::MagBdi(self.mag)
    }

    /// The smallest succeeding encoding whose length is a Buddy class size
    /// (MAG 16: k = 3 is stored as k = 4). Returns `8*k*MAG`, or that length
    /// (> 768, buffer unspecified) when it is too long to store (MAG 16 k = 7),
    /// or [`UNCOMPRESSED_BITS`] when no unit succeeds.
    fn encode_stream(&self, entry: &MemoryEntry, stream: &mut [u8; STREAM_BUFFER_BYTES]) -> usize {
        let Some(enc) = self.encoding(entry) else { return UNCOMPRESSED_BITS };
        if enc.stream_bits > MAX_COMPRESSED_BITS {
            return enc.stream_bits; // MAG 16, k = 7: RAW
        }
        // The encoding the class holding the stream names: k itself, except
        // MAG 16 k = 3 (48 bytes → B64 → k = 4).
        let k = SizeClass::for_stream_bits(enc.stream_bits).bytes() / self.mag.bytes();
        let (d, unit) = if k == enc.k {
            (enc.delta_bits, enc.unit)
        } else {
            let d = self.mag.delta_bits_of(k);
            match compressor_unit(entry.words(), d) {
                Some(unit) => (d, unit),
                // Unreachable: success is monotone in d (module docs).
                None => return UNCOMPRESSED_BITS,
            }
        };
        write_stream(entry.words(), d, unit, stream);
        self.mag.stream_bits_of(k)
    }

    fn decode_stream(&self, class: SizeClass, stored: &[u8]) -> Result<MemoryEntry, DecodeError> {
        let Some(k) = self.encoding_of_class(class) else {
            return Err(DecodeError::ClassNotAnEncoding { class: class.name(), algorithm: "mag-bdi", mag_bytes: self.mag.bytes() });
        };
        if stored.len() != class.bytes() {
            return Err(DecodeError::StoredLength { class: class.name(), expected: class.bytes(), got: stored.len() });
        }
        let d = self.mag.delta_bits_of(k);
        let words = by_width!(d, read_impl(stored));
        Ok(MemoryEntry::from_words(words))
    }
}

/// The MAG-BDI paper's **raw** compression ratio of one entry (Sec. VI-A):
/// `128 / (stream_bits / 8)`, not rounded to the MAG.
///
/// `stream_bits` is [`MagBdi::stream_bits`]: `None` (uncompressed) counts as
/// 128 bytes (ratio 1.0); a stream longer than the entry also counts as 128
/// bytes (the paper stores such blocks uncompressed); `Some(0)` gives +inf.
pub fn raw_ratio(stream_bits: Option<usize>) -> f64 {
    let bits = stream_bits.map_or(UNCOMPRESSED_BITS, |b| b.min(UNCOMPRESSED_BITS));
    UNCOMPRESSED_BITS as f64 / bits as f64
}

/// The MAG-BDI paper's **effective** compression ratio of one entry
/// (Sec. VI-A, Fig. 1): `128 / fetched`, where fetched = `ceil(stream_bits/8)`
/// bytes rounded up to a multiple of `mag` bytes, at most 128.
///
/// `None` (uncompressed) counts as 128 bytes (ratio 1.0); `Some(0)` gives +inf.
/// Example (Fig. 1): 36 bytes with a 32-byte MAG fetch 64 bytes → 2.0.
pub fn effective_ratio(stream_bits: Option<usize>, mag: Mag) -> f64 {
    let bytes = stream_bits.map_or(ENTRY_BYTES, |b| b.div_ceil(8));
    let fetched = (bytes.div_ceil(mag.bytes()) * mag.bytes()).min(ENTRY_BYTES);
    ENTRY_BYTES as f64 / fetched as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const M16: MagBdi = MagBdi::new(Mag::B16);
    const M32: MagBdi = MagBdi::new(Mag::B32);
    const M64: MagBdi = MagBdi::new(Mag::B64);

    fn entry_with(words: &[(usize, u32)]) -> MemoryEntry {
        let mut w = [0u32; 32];
        for &(i, v) in words {
            w[i] = v;
        }
        MemoryEntry::from_words(w)
    }

    /// Compress, check the round trip, return (Buddy stream bits, class, stored bytes).
    fn squeeze(c: MagBdi, e: &MemoryEntry) -> (usize, SizeClass, Vec<u8>) {
        let ce = c.compress(e);
        assert_eq!(c.decompress(ce.class, ce.stored()), Ok(*e), "round trip of {e:?}");
        (ce.stream_bits, ce.class, ce.stored().to_vec())
    }

    /// The field of width `n` bits at stream offset `p` of stored bytes (LSB-first).
    fn field(bytes: &[u8], p: usize, n: usize) -> u64 {
        (0..n).fold(0u64, |v, b| v | (((bytes[(p + b) / 8] >> ((p + b) % 8)) & 1) as u64) << b)
    }

    // ---------- reference model: docs/formats.md#mag-bdi written out plainly ----------

    /// Unit of width `d` with i64 arithmetic: (B, mask, signed deltas).
    fn ref_unit(w: &[u32; 32], d: u32) -> Option<(u32, u32, [i64; 32])> {
        let (lo, hi) = (-(1i64 << (d - 1)), (1i64 << (d - 1)) - 1);
        let in_range = |x: i64| lo <= x && x <= hi;
        let zero_ok: Vec<bool> = w.iter().map(|&x| in_range(x as i32 as i64)).collect();
        let base = (0..32).find(|&i| !zero_ok[i]).map_or(0, |i| w[i]);
        let mut mask = 0u32;
        let mut deltas = [0i64; 32];
        for i in 0..32 {
            if zero_ok[i] {
                deltas[i] = w[i] as i32 as i64;
            } else {
                mask |= 1 << i;
                let dl = w[i].wrapping_sub(base) as i32 as i64;
                if !in_range(dl) {
                    return None;
                }
                deltas[i] = dl;
            }
        }
        Some((base, mask, deltas))
    }

    /// Reference: (paper bits, Buddy stream bits, Buddy stored bytes or None for RAW).
    fn reference(mag: Mag, w: &[u32; 32]) -> (Option<usize>, usize, Option<Vec<u8>>) {
        let m = mag.bytes();
        let ks: Vec<usize> = (1..128 / m).collect();
        let d_of = |k: usize| ((8 * k * m - 64) / 32) as u32;
        let paper_k = ks.iter().copied().find(|&k| ref_unit(w, d_of(k)).is_some());
        let Some(pk) = paper_k else { return (None, 1024, None) };
        let paper_bits = 8 * pk * m;
        if paper_bits > 768 {
            return (Some(paper_bits), paper_bits, None);
        }
        // The class that holds the paper stream names the encoding k = class bytes / MAG.
        let class = SizeClass::for_stream_bits(paper_bits);
        let k = class.bytes() / m;
        assert_eq!(class.bytes() % m, 0);
        let d = d_of(k);
        let (base, mask, deltas) = ref_unit(w, d).expect("monotone in d");
        let mut bytes = vec![0u8; class.bytes()];
        let mut put = |p: usize, n: usize, v: u64| {
            for b in 0..n {
                if v >> b & 1 == 1 {
                    bytes[(p + b) / 8] |= 1 << ((p + b) % 8);
                }
            }
        };
        put(0, 32, base as u64);
        put(32, 32, mask as u64);
        for (i, &dl) in deltas.iter().enumerate() {
            put(64 + d as usize * i, d as usize, dl as u64 & ((1 << d) - 1));
        }
        (Some(paper_bits), 8 * k * m, Some(bytes))
    }

    fn check_against_reference(c: MagBdi, e: &MemoryEntry) -> Result<(), TestCaseError> {
        let (paper, buddy_bits, bytes) = reference(c.mag, e.words());
        prop_assert_eq!(c.stream_bits(e), paper);
        if let Some(enc) = c.encoding(e) {
            // The fast search picks the unit that running every unit picks.
            let (base, mask, _) = ref_unit(e.words(), enc.delta_bits).unwrap();
            prop_assert_eq!(enc.unit, Unit { base, mask });
            prop_assert_eq!(compressor_unit(e.words(), enc.delta_bits), Some(enc.unit));
        }
        let ce = c.compress(e);
        if e.is_zero() {
            prop_assert_eq!(ce.class, SizeClass::Zero);
        } else {
            prop_assert_eq!(ce.stream_bits, buddy_bits);
            match bytes {
                Some(b) => prop_assert_eq!(ce.stored(), &b[..]),
                None => {
                    prop_assert_eq!(ce.class, SizeClass::Raw);
                    prop_assert_eq!(ce.stored(), &e.to_bytes()[..]);
                }
            }
        }
        prop_assert_eq!(c.decompress(ce.class, ce.stored()), Ok(*e));
        Ok(())
    }

    // ---------- encodings, helpers, metrics ----------

    #[test]
    fn delta_widths_follow_eq_1() {
        assert_eq!(M16.delta_bits(), vec![2, 6, 10, 14, 18, 22, 26]);
        assert_eq!(M32.delta_bits(), vec![6, 14, 22]);
        assert_eq!(M64.delta_bits(), vec![14]);
        assert_eq!(MagBdi::default().mag, Mag::B32);
        for mag in Mag::ALL {
            assert_eq!(Mag::from_bytes(mag.bytes()), Some(mag));
            for k in 1..=mag.encodings() {
                // No padding: the deltas end exactly at the stream's end.
                assert_eq!(64 + 32 * mag.delta_bits_of(k) as usize, mag.stream_bits_of(k));
            }
        }
        assert_eq!(Mag::from_bytes(8), None);
    }

    #[test]
    fn classes_name_encodings() {
        let ks = |c: MagBdi| SizeClass::ALL.map(|cl| c.encoding_of_class(cl));
        //                        ZERO  B8    B16      B32      B64      B80      B96      RAW
        assert_eq!(ks(M16), [None, None, Some(1), Some(2), Some(4), Some(5), Some(6), None]);
        assert_eq!(ks(M32), [None, None, None, Some(1), Some(2), None, Some(3), None]);
        assert_eq!(ks(M64), [None, None, None, None, Some(1), None, None, None]);
    }

    #[test]
    fn ratios_as_in_the_paper() {
        // Fig. 1: 36 bytes with MAG 32 → raw 3.56, effective 2.0.
        assert!((raw_ratio(Some(288)) - 128.0 / 36.0).abs() < 1e-12);
        assert_eq!(effective_ratio(Some(288), Mag::B32), 2.0);
        // Sec. IV-B: BDI Base4B-Δ1B = 40 bytes: raw 3.2, effective 2.0; Δ2B = 72 bytes: 1.78 / 1.33.
        assert_eq!(raw_ratio(Some(320)), 3.2);
        assert_eq!(effective_ratio(Some(320), Mag::B32), 2.0);
        assert!((effective_ratio(Some(576), Mag::B32) - 128.0 / 96.0).abs() < 1e-12);
        // MAG-BDI streams are multiples of the MAG: raw == effective.
        for mag in Mag::ALL {
            for k in 1..=mag.encodings() {
                let b = Some(mag.stream_bits_of(k));
                assert_eq!(raw_ratio(b), effective_ratio(b, mag));
            }
        }
        // MAG 16 k = 3 (48 bytes) under a 32-byte MAG fetches 64 bytes.
        assert_eq!(effective_ratio(Some(384), Mag::B16), 128.0 / 48.0);
        assert_eq!(effective_ratio(Some(384), Mag::B32), 2.0);
        assert_eq!(effective_ratio(Some(384), Mag::B64), 2.0);
        assert_eq!((raw_ratio(None), effective_ratio(None, Mag::B16)), (1.0, 1.0));
        assert_eq!((raw_ratio(Some(2000)), effective_ratio(Some(2000), Mag::B64)), (1.0, 1.0));
        assert_eq!(raw_ratio(Some(0)), f64::INFINITY);
    }

    // ---------- worked examples with exact bytes ----------

    /// MAG 32, k = 1 (Base4B-Δ6b, 256 bits, B32). Words:
    /// w0 = 5 and w3 = -3 pass the 6-bit zero-base check ([-32, 31]);
    /// w1 = 0x12345678 is the first failing word → B; w2 = B + 2, w4 = B - 32.
    /// mask = bits 1,2,4 = 0x16; deltas 5, 0, 2, -3 (0x3d), -32 (0x20), 0...
    /// Deltas from bit 64: 5 | 2<<12 | 0x3d<<18 | 0x20<<24 = 0x20f4_2005.
    #[test]
    fn worked_example_mag32_delta6() {
        let b = 0x1234_5678u32;
        let e = entry_with(&[(0, 5), (1, b), (2, b + 2), (3, -3i32 as u32), (4, b - 32)]);
        let (bits, class, stored) = squeeze(M32, &e);
        assert_eq!((bits, class), (256, SizeClass::B32));
        let mut want = vec![0u8; 32];
        want[..12].copy_from_slice(&[0x78, 0x56, 0x34, 0x12, 0x16, 0, 0, 0, 0x05, 0x20, 0xf4, 0x20]);
        assert_eq!(stored, want);
        assert_eq!(M32.encoding(&e).unwrap().unit, Unit { base: b, mask: 0x16 });
    }

    /// MAG 16, k = 1 (d = 2, 128 bits, B16). Zero-base range [-2, 1]:
    /// w0 = 1, w1 = -2, w3 = -1 pass; w5 = 0xcafebabe is B, w6 = B + 1, w7 = B - 2.
    /// mask = bits 5,6,7 = 0xe0; 2-bit deltas 01,10,00,11,00,00,01,10 from bit 64:
    /// 1 | 2<<2 | 3<<6 | 1<<12 | 2<<14 = 0x90c9.
    #[test]
    fn worked_example_mag16_delta2() {
        let b = 0xcafe_babeu32;
        let e = entry_with(&[(0, 1), (1, -2i32 as u32), (3, u32::MAX), (5, b), (6, b + 1), (7, b - 2)]);
        let (bits, class, stored) = squeeze(M16, &e);
        assert_eq!((bits, class), (128, SizeClass::B16));
        assert_eq!(stored, [0xbe, 0xba, 0xfe, 0xca, 0xe0, 0, 0, 0, 0xc9, 0x90, 0, 0, 0, 0, 0, 0]);
    }

    /// MAG 64, k = 1 (d = 14, 512 bits, B64). Zero-base range [-8192, 8191]:
    /// w0 = 100 and w4 = -8192 pass; w1 = 0x40000000 is B, w2 = B + 8191, w3 = B - 8192.
    /// mask = 0b1110; deltas 100, 0, 0x1fff, 0x2000, 0x2000 at bits 64, 78, 92, 106, 120:
    /// relative to bit 64 that is 0x64 | 0x1fff<<28 | 1<<55 | 1<<69, i.e. bytes
    /// 8.. = 64 00 00 f0 ff 01 80 00 20.
    #[test]
    fn worked_example_mag64_delta14() {
        let b = 0x4000_0000u32;
        let e = entry_with(&[(0, 100), (1, b), (2, b + 8191), (3, b - 8192), (4, -8192i32 as u32)]);
        let (bits, class, stored) = squeeze(M64, &e);
        assert_eq!((bits, class), (512, SizeClass::B64));
        let mut want = vec![0u8; 64];
        want[..17].copy_from_slice(&[
            0x00, 0x00, 0x00, 0x40, 0x0e, 0, 0, 0, // B, mask
            0x64, 0x00, 0x00, 0xf0, 0xff, 0x01, 0x80, 0x00, 0x20,
        ]);
        assert_eq!(stored, want);
    }

    /// MAG 32, k = 2 (d = 14, B64) and k = 3 (d = 22, B96), exact header and first deltas.
    #[test]
    fn worked_example_mag32_delta14_and_22() {
        // 100 fails 6 bits with B = 100; -100 has delta -200: fails 6, fits 14 with zero base.
        let e = entry_with(&[(0, 100), (1, -100i32 as u32)]);
        let (bits, class, stored) = squeeze(M32, &e);
        assert_eq!((bits, class), (512, SizeClass::B64));
        assert_eq!(&stored[..8], &[0; 8]); // zero base only: B = 0, mask = 0
        assert_eq!(field(&stored, 64, 14), 100);
        assert_eq!(field(&stored, 78, 14), (-100i64 as u64) & 0x3fff);
        // 2^21 - 1 fits only 22 bits.
        let e = entry_with(&[(31, 0x1f_ffff), (30, 0xdead_0000)]);
        let (bits, class, stored) = squeeze(M32, &e);
        assert_eq!((bits, class), (768, SizeClass::B96));
        assert_eq!(&stored[..8], &[0x00, 0x00, 0xad, 0xde, 0, 0, 0, 0x40]);
        assert_eq!(field(&stored, 64 + 22 * 30, 22), 0);
        assert_eq!(field(&stored, 64 + 22 * 31, 22), 0x1f_ffff);
    }

    #[test]
    fn all_zero_is_class_zero_but_k1_for_the_paper() {
        for c in [M16, M32, M64] {
            let ce = c.compress(&MemoryEntry::ZERO);
            assert_eq!((ce.class, ce.stream_bits), (SizeClass::Zero, 0));
            assert_eq!(c.stream_bits(&MemoryEntry::ZERO), Some(8 * c.mag.bytes()));
        }
    }

    #[test]
    fn all_same_nonzero_words() {
        // A wide value everywhere: B = that value, mask all ones, all deltas 0.
        let e = MemoryEntry::from_words([0xdead_beef; 32]);
        for c in [M16, M32, M64] {
            let (bits, _, stored) = squeeze(c, &e);
            assert_eq!(bits, 8 * c.mag.bytes());
            assert_eq!(&stored[..8], &[0xef, 0xbe, 0xad, 0xde, 0xff, 0xff, 0xff, 0xff]);
            assert!(stored[8..].iter().all(|&b| b == 0));
        }
        // A narrow value everywhere. MAG 16, d = 2: 7 fails the zero base
        // ([-2, 1]), so every word uses B = 7 with delta 0 → k = 1, B16.
        let e = MemoryEntry::from_words([7; 32]);
        let (bits, class, stored) = squeeze(M16, &e);
        assert_eq!((bits, class), (128, SizeClass::B16));
        assert_eq!(&stored[..8], &[7, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        assert!(stored[8..].iter().all(|&b| b == 0));
        // MAG 32, d = 6: 7 passes the zero base: B = 0, mask 0, every delta 7.
        let (bits, _, stored) = squeeze(M32, &e);
        assert_eq!(bits, 256);
        assert_eq!(&stored[..8], &[0; 8]);
        assert!((0..32).all(|i| field(&stored, 64 + 6 * i, 6) == 7));
        // -1 everywhere fits the zero base at every width.
        let e = MemoryEntry::from_words([u32::MAX; 32]);
        let (bits, _, stored) = squeeze(M16, &e);
        assert_eq!(bits, 128);
        assert_eq!(&stored[..8], &[0; 8]);
        assert!(stored[8..].iter().all(|&b| b == 0xff));
    }

    // ---------- base selection ----------

    #[test]
    fn nonzero_base_is_the_first_failing_word() {
        let x = 0x1000_0000u32;
        // w2 fails first; w7 = x + 5 then uses it.
        let e = entry_with(&[(0, 3), (1, -4i32 as u32), (2, x), (7, x + 5), (9, 31)]);
        let u = M32.encoding(&e).unwrap();
        assert_eq!((u.k, u.unit), (1, Unit { base: x, mask: (1 << 2) | (1 << 7) }));
        squeeze(M32, &e);
        // Taking w2 as base would give deltas ±20 (6 bits), but the first failing
        // word w0 is the base: w1 - w0 = 40 does not fit 6 bits → k = 2 (14 bits).
        let e = entry_with(&[(0, x), (1, x + 40), (2, x + 20)]);
        let u = M32.encoding(&e).unwrap();
        assert_eq!((u.k, u.unit), (2, Unit { base: x, mask: 0b111 }));
        assert_eq!(squeeze(M32, &e).0, 512);
    }

    #[test]
    fn base_and_deltas_wrap_mod_2_32() {
        // 0x7fffffff and 0x80000000 both fail the zero base; delta +1 mod 2^32.
        let e = entry_with(&[(4, 0x7fff_ffff), (5, 0x8000_0000), (6, 0x7fff_ffe0)]);
        let (bits, _, stored) = squeeze(M32, &e);
        assert_eq!(bits, 256);
        assert_eq!(field(&stored, 0, 32), 0x7fff_ffff);
        assert_eq!(field(&stored, 32, 32), 0b111 << 4);
        assert_eq!(field(&stored, 64 + 6 * 5, 6), 1);
        assert_eq!(field(&stored, 64 + 6 * 6, 6), 0x21); // -31
    }

    #[test]
    fn mix_of_zero_base_and_nonzero_base_words() {
        // Pointer-like words near B and small integers, alternating.
        let b = 0x7f3a_1000u32;
        let w: [u32; 32] = std::array::from_fn(|i| if i % 2 == 0 { b + 8 * i as u32 } else { (i as u32).wrapping_sub(16) });
        let e = MemoryEntry::from_words(w);
        let (bits, class, stored) = squeeze(M32, &e);
        // Largest delta from B is 8*30 = 240: needs 9 signed bits → d = 14.
        assert_eq!((bits, class), (512, SizeClass::B64));
        assert_eq!(field(&stored, 0, 32), b as u64);
        assert_eq!(field(&stored, 32, 32), 0x5555_5555);
        for i in 0..32 {
            let want = if i % 2 == 0 { 8 * i as i64 } else { i as i64 - 16 };
            assert_eq!(field(&stored, 64 + 14 * i, 14), want as u64 & 0x3fff, "delta {i}");
        }
    }

    // ---------- boundaries of every width ----------

    /// For width `d` of encoding `k` of `c`, pin the encoding chosen for entries at
    /// and one past the range limits, with both bases.
    fn boundaries(c: MagBdi, k: usize) {
        let d = c.mag.delta_bits_of(k);
        let h = 1i64 << (d - 1);
        let at_k = c.mag.stream_bits_of(k);
        let next = if k < c.mag.encodings() { c.mag.stream_bits_of(k + 1) } else { UNCOMPRESSED_BITS };
        let paper = |e: &MemoryEntry| c.stream_bits(e).unwrap_or(UNCOMPRESSED_BITS);
        // Zero base, both limits: succeeds at d, mask 0 (the smaller widths fail:
        // h - 1 becomes their base and -h - (h - 1) does not fit).
        let w = |v: i64| v as i32 as u32;
        let e = entry_with(&[(0, w(h - 1)), (1, w(-h))]);
        assert_eq!(paper(&e), at_k, "zero base limits d={d}");
        let enc = c.encoding(&e).unwrap();
        assert_eq!(enc.unit, Unit { base: 0, mask: 0 });
        // One past both limits: h becomes B, then -h-1 - h = -2h-1 fails d.
        let e = entry_with(&[(0, w(h)), (1, w(-h - 1))]);
        assert_eq!(paper(&e), next, "zero base one past d={d}");
        // One past only the upper limit: h becomes B with delta 0, -h stays zero base.
        let e = entry_with(&[(0, w(-h)), (1, w(h))]);
        assert_eq!(paper(&e), at_k, "upper one past d={d}");
        assert_eq!(c.encoding(&e).unwrap().unit, Unit { base: w(h), mask: 0b10 });
        // Non-zero base, both limits of the delta.
        let b = 0x5a5a_0000u32;
        let e = entry_with(&[(3, b), (4, b.wrapping_add(w(h - 1))), (5, b.wrapping_add(w(-h)))]);
        assert_eq!(paper(&e), at_k, "base limits d={d}");
        assert_eq!(c.encoding(&e).unwrap().unit, Unit { base: b, mask: 0b111 << 3 });
        // One past each delta limit.
        for past in [h, -h - 1] {
            let e = entry_with(&[(3, b), (4, b.wrapping_add(w(past)))]);
            assert_eq!(paper(&e), next, "base delta {past} d={d}");
        }
        // Everything above round-trips through Buddy's classes and matches the reference.
        for e in [
            entry_with(&[(0, w(h - 1)), (1, w(-h))]),
            entry_with(&[(0, w(h)), (1, w(-h - 1))]),
            entry_with(&[(3, b), (4, b.wrapping_add(w(h - 1))), (5, b.wrapping_add(w(-h)))]),
            entry_with(&[(3, b), (4, b.wrapping_add(w(h)))]),
            entry_with(&[(3, b), (4, b.wrapping_add(w(-h - 1)))]),
        ] {
            check_against_reference(c, &e).unwrap();
        }
    }

    #[test]
    fn boundaries_mag32_all_widths() {
        for k in 1..=3 {
            boundaries(M32, k);
        }
        // 22 bits one past → RAW with the uncompressed length.
        let b = 0x5a5a_0000u32;
        let e = entry_with(&[(3, b), (4, b + (1 << 21))]);
        let ce = M32.compress(&e);
        assert_eq!((ce.class, ce.stream_bits), (SizeClass::Raw, 1024));
    }

    #[test]
    fn boundaries_mag16_and_mag64() {
        for k in 1..=7 {
            boundaries(M16, k);
        }
        boundaries(M64, 1);
        let b = 0x5a5a_0000u32;
        let ce = M64.compress(&entry_with(&[(3, b), (4, b + (1 << 13))]));
        assert_eq!((ce.class, ce.stream_bits), (SizeClass::Raw, 1024));
    }

    /// MAG 16: an entry whose smallest encoding is k = 3 (d = 10, 48 bytes) is
    /// stored as the k = 4 stream (d = 14, 64 bytes, B64).
    #[test]
    fn mag16_k3_is_stored_as_k4() {
        let e = entry_with(&[(0, 511), (1, -512i32 as u32), (2, 0x0bad_f00d), (3, 0x0bad_f00d - 300)]);
        assert_eq!(M16.stream_bits(&e), Some(384));
        assert_eq!(M16.encoding(&e).unwrap().delta_bits, 10);
        let (bits, class, stored) = squeeze(M16, &e);
        assert_eq!((bits, class), (512, SizeClass::B64));
        assert_eq!(field(&stored, 0, 32), 0x0bad_f00d);
        assert_eq!(field(&stored, 32, 32), 0b1100);
        assert_eq!(field(&stored, 64, 14), 511);
        assert_eq!(field(&stored, 64 + 14, 14), (-512i64 as u64) & 0x3fff);
        assert_eq!(field(&stored, 64 + 42, 14), (-300i64 as u64) & 0x3fff);
        assert_eq!(raw_ratio(M16.stream_bits(&e)), 128.0 / 48.0);
    }

    /// MAG 16: k = 7 (d = 26, 112 bytes) is RAW under Buddy, 896 bits reported.
    #[test]
    fn mag16_k7_is_raw_in_buddy() {
        let e = entry_with(&[(0, 1 << 24), (1, -(1i32 << 24) as u32)]);
        assert_eq!(M16.stream_bits(&e), Some(896));
        let ce = M16.compress(&e);
        assert_eq!((ce.class, ce.stream_bits), (SizeClass::Raw, 896));
        assert_eq!(M16.decompress(ce.class, ce.stored()), Ok(e));
        assert_eq!(M32.compress(&e).stream_bits, 1024);
    }

    #[test]
    fn uncompressible_random_entry_is_raw() {
        // xorshift32 words: full 32-bit range, no 22-bit structure.
        let mut s = 0x9e37_79b9u32;
        let e = MemoryEntry::from_words(std::array::from_fn(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        }));
        for c in [M16, M32, M64] {
            assert_eq!(c.stream_bits(&e), None);
            let ce = c.compress(&e);
            assert_eq!((ce.class, ce.stream_bits), (SizeClass::Raw, 1024));
            assert_eq!(ce.stored(), &e.to_bytes());
            assert_eq!(c.decompress(ce.class, ce.stored()), Ok(e));
        }
    }

    // ---------- decoder errors ----------

    #[test]
    fn classes_that_are_no_encoding_are_errors() {
        let err = |c: MagBdi, class: SizeClass, _smallest_longer_encoding_bits: usize| {
            let got = c.decompress(class, &vec![0u8; class.bytes()]);
            let expected = DecodeError::ClassNotAnEncoding { class: class.name(), algorithm: "mag-bdi", mag_bytes: c.mag.bytes() };
            assert_eq!(got, Err(expected));
        };
        err(M16, SizeClass::B8, 128);
        err(M32, SizeClass::B8, 256);
        err(M32, SizeClass::B16, 256);
        err(M32, SizeClass::B80, 768);
        for class in [SizeClass::B8, SizeClass::B16, SizeClass::B32] {
            err(M64, class, 512);
        }
        err(M64, SizeClass::B80, 0);
        err(M64, SizeClass::B96, 0);
        // decode_stream called directly with ZERO / RAW or a wrong length: an error, no panic.
        assert!(M32.decode_stream(SizeClass::Zero, &[]).is_err());
        assert!(M32.decode_stream(SizeClass::Raw, &[0; 128]).is_err());
        assert_eq!(M32.decode_stream(SizeClass::B32, &[0; 31]), Err(DecodeError::StoredLength { class: "B32", expected: 32, got: 31 }));
        assert!(M32.decompress(SizeClass::B64, &[0; 63]).is_err());
        assert_eq!(M32.decompress_code(12, &[]), Err(DecodeError::ReservedSizeCode { code: 12 }));
    }

    /// Non-canonical streams (mask 0 with B != 0, all-ones bits) still decode.
    #[test]
    fn non_canonical_streams_decode_by_the_formula() {
        let mut s = [0u8; 32];
        s[..4].copy_from_slice(&0xffff_0000u32.to_le_bytes());
        assert_eq!(M32.decompress(SizeClass::B32, &s), Ok(MemoryEntry::ZERO));
        let ones = [0xffu8; 32];
        // B = 0xffffffff, every word uses it, deltas -1: w = -2.
        assert_eq!(M32.decompress(SizeClass::B32, &ones), Ok(MemoryEntry::from_words([0xffff_fffe; 32])));
    }

    // ---------- properties ----------

    /// Cases from `PROPTEST_CASES` when set, else `default`.
    fn cases(default: u32) -> u32 {
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
    }

    /// Signed values of width `d` concentrated on the range limits
    /// `-2^(d-1)`, `2^(d-1) - 1` and one past them, plus in-range and one-bit-wider values.
    fn edge_value(d: u32) -> impl Strategy<Value = i64> {
        let h = 1i64 << (d - 1);
        prop_oneof![
            4 => prop::sample::select(vec![-h - 1, -h, -h + 1, -1, 0, 1, h - 2, h - 1, h]),
            3 => -h..h,
            1 => -2 * h - 2..2 * h + 2,
        ]
    }

    /// Entries built around one width `d` (a width of the MAG or one next to it):
    /// each word is, with per-entry probabilities, a small signed value
    /// (zero base), `base + small signed delta` (non-zero base), or a random word.
    fn boundary_entry(mag: Mag) -> impl Strategy<Value = MemoryEntry> {
        let mut widths: Vec<u32> = (1..=mag.encodings()).map(|k| mag.delta_bits_of(k)).collect();
        widths.extend(widths.clone().iter().flat_map(|&d| [d - 1, d + 1]));
        let bases = prop_oneof![
            any::<u32>(),
            prop::sample::select(vec![0u32, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x0010_0000, 0xfff0_0000]),
        ];
        let mix = prop_oneof![
            prop::sample::select(vec![0u32, 1000]), // all zero-base or all base+delta
            0u32..=1000,
        ];
        let random = prop_oneof![3 => Just(0u32), 1 => 1u32..60];
        (prop::sample::select(widths), bases, mix, random).prop_flat_map(|(d, base, p_zero, p_random)| {
            proptest::collection::vec((0u32..1000, edge_value(d), any::<u32>()), 32).prop_map(move |v| {
                let words: Vec<u32> = v
                    .into_iter()
                    .map(|(r, dl, rnd)| {
                        if r < p_random {
                            rnd
                        } else if r % 1000 < p_zero {
                            dl as i32 as u32
                        } else {
                            base.wrapping_add(dl as i32 as u32)
                        }
                    })
                    .collect();
                MemoryEntry::from_words(words.try_into().unwrap())
            })
        })
    }

    fn mag16_entry() -> impl Strategy<Value = MemoryEntry> {
        boundary_entry(Mag::B16)
    }
    fn mag32_entry() -> impl Strategy<Value = MemoryEntry> {
        boundary_entry(Mag::B32)
    }
    fn mag64_entry() -> impl Strategy<Value = MemoryEntry> {
        boundary_entry(Mag::B64)
    }

    /// Stored bytes of any length, mostly exactly as many as the class holds.
    fn any_stored() -> impl Strategy<Value = (u8, Vec<u8>)> {
        prop_oneof![
            4 => (0u8..8).prop_flat_map(|code| {
                let n = SizeClass::from_code(code).unwrap().bytes();
                (Just(code), proptest::collection::vec(any::<u8>(), n))
            }),
            1 => (0u8..16, proptest::collection::vec(any::<u8>(), 0..=128)),
        ]
    }

    proptest! {
        // PROPTEST_CASES overrides the count (`make soak`).
        #![proptest_config(ProptestConfig::with_cases(cases(20_000)))]

        #[test]
        fn round_trip_mag16(e in mag16_entry()) {
            check_against_reference(M16, &e)?;
        }

        #[test]
        fn round_trip_mag32(e in mag32_entry()) {
            check_against_reference(M32, &e)?;
        }

        #[test]
        fn round_trip_mag64(e in mag64_entry()) {
            check_against_reference(M64, &e)?;
        }

        /// A unit's success is monotone in d (what folding MAG 16 k = 3 into k = 4 relies on).
        #[test]
        fn unit_success_is_monotone_in_d(e in mag16_entry()) {
            let ok: Vec<bool> = (1..=31).map(|d| compressor_unit(e.words(), d).is_some()).collect();
            for d in 1..31 {
                prop_assert!(!ok[d - 1] || ok[d], "unit {} succeeds, unit {} fails", d, d + 1);
            }
            for d in 1..=31 {
                prop_assert_eq!(
                    compressor_unit(e.words(), d).map(|u| (u.base, u.mask)),
                    ref_unit(e.words(), d).map(|(b, m, _)| (b, m))
                );
            }
        }

        /// Any bytes of any class decode to an entry or an error, never a panic;
        /// a class naming an encoding with the right length always decodes.
        #[test]
        fn arbitrary_stored_bytes_never_panic((code, bytes) in any_stored(), m in 0usize..3) {
            let c = MagBdi::new(Mag::ALL[m]);
            let got = c.decompress_code(code, &bytes);
            match SizeClass::from_code(code) {
                Err(_) => prop_assert_eq!(got, Err(DecodeError::ReservedSizeCode { code })),
                Ok(class) if bytes.len() != class.bytes() => {
                    let is_length_error = matches!(got, Err(DecodeError::StoredLength { .. }));
                    prop_assert!(is_length_error, "{:?}", got)
                }
                Ok(class) => {
                    let decodes = matches!(class, SizeClass::Zero | SizeClass::Raw)
                        || c.encoding_of_class(class).is_some();
                    prop_assert_eq!(got.is_ok(), decodes);
                    if let Ok(e) = got {
                        // Whatever it decoded to compresses and round-trips again.
                        let ce = c.compress(&e);
                        prop_assert_eq!(c.decompress(ce.class, ce.stored()), Ok(e));
                    }
                }
            }
        }
    }
}
