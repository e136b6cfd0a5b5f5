//! Base-Delta-Immediate compression (BΔI) as in the original paper, on a
//! 128-byte memory-entry.
//!
//! Source: Pekhimenko et al., *Base-Delta-Immediate Compression: Practical
//! Data Compression for On-Chip Caches*, PACT 2012: Sec. 3 (one base and
//! narrow deltas), Sec. 4 (the second, implicit zero base: BΔI) and the
//! paper's table of encodings. The paper compresses 32- and 64-byte cache
//! lines; here the same encodings are applied to Buddy's 128-byte
//! memory-entry, and the bit layout is this project's (docs/formats.md#bdi).
//! ETC (seed `004_*`, Sec. 4.4) stores GPU pages with it under LCP
//! ([`crate::lcp`]).
//!
//! # Encodings
//!
//! The entry is read as `n = 128 / k` little-endian values of `k` bytes
//! (`v[i]` is bytes `k*i .. k*i + k - 1`, so for `k = 4` the values are the
//! words `w[i]`). A base-delta encoding with base size `k` and delta size
//! `d` bytes stores every value either as an **immediate**, a signed
//! `d`-byte number read as a `k`-byte value (the implicit zero base), or as
//! `B + delta` with one explicit base `B` and a signed `d`-byte `delta`
//! (arithmetic mod `2^(8k)`). `B` is the first value (lowest `i`) that is
//! not an immediate, 0 when every value is one; a mask bit per value says
//! which base it uses.
//!
//! | code | encoding | k (bytes) | d (bytes) | n | stream bits | class |
//! |---|---|---|---|---|---|---|
//! | 0 | zeros | - | - | - | 4 | (never stored: an all-zero entry is ZERO) |
//! | 1 | repeated 8-byte value | 8 | - | 16 | 68 | B16 |
//! | 2 | base8-Δ1 | 8 | 1 | 16 | 212 | B32 |
//! | 3 | base8-Δ2 | 8 | 2 | 16 | 340 | B64 |
//! | 4 | base8-Δ4 | 8 | 4 | 16 | 596 | B80 |
//! | 5 | base4-Δ1 | 4 | 1 | 32 | 324 | B64 |
//! | 6 | base4-Δ2 | 4 | 2 | 32 | 580 | B80 |
//! | 7 | base2-Δ1 | 2 | 1 | 64 | 596 | B80 |
//! | 8-15 | reserved: [`DecodeError::ReservedEncoding`] | | | | | |
//!
//! The compressor tries every encoding and keeps the shortest stream, ties
//! to the lower code ([`Bdi::encoding`]); none fits → the entry is RAW and
//! [`Codec::encode_stream`] returns [`UNCOMPRESSED_BITS`] (1024). Every
//! stream is at most 596 bits, so a fitting encoding is always stored
//! compressed.
//!
//! # Stream (LSB-first, docs/formats.md#stream-packing)
//!
//! ```text
//!  bit 0    4           4+8k          4+8k+n               4+8k+n+8d*n
//!  | code   | B (8k bits) | mask (n bits) | delta_0 | ... | delta_(n-1) |
//! ```
//!
//! - code 0 (zeros): the 4-bit code only;
//! - code 1 (repeated): the code, then the 64-bit value;
//! - codes 2-7: the code, `B`, the mask (bit `i` is 1 when `v[i] = B +
//!   delta_i`, 0 when `v[i]` is the immediate `delta_i`), then `n` deltas
//!   of `8d` bits, each the low `8d` bits of the two's-complement delta.
//!
//! The stream length is `4 + 8k + n + 8dn` bits (table above).
//!
//! # Decisions
//!
//! - **The encoding code is in the stream.** The paper keeps the
//!   encoding beside the line (in the tag store); Buddy keeps only the
//!   4-bit size class per entry, so the 4-bit code leads the stream.
//! - **Decoding** reads the code and the fields it names: `v[i] =
//!   sext(delta_i) + (mask bit i ? B : 0) mod 2^(8k)`. A reserved code is
//!   [`DecodeError::ReservedEncoding`]; a stream longer than its class is
//!   [`DecodeError::StreamOverrun`]. The class need not be the smallest
//!   that holds the stream and bits after the stream are not checked (as
//!   for ZVC): LCP ([`crate::lcp`]) decodes a line from its fixed-size slot
//!   this way. Non-canonical streams (code 0 in any class, a base under an
//!   all-zero mask) decode by the formula. No input panics.

use crate::bitstream::{BitReader, BitWriter};
use crate::codec::{Algorithm, Codec, STREAM_BUFFER_BYTES};
use crate::entry::{MemoryEntry, ENTRY_BYTES};
use crate::error::DecodeError;
use crate::size_class::SizeClass;

/// Bits of an uncompressed memory-entry (128 bytes). [`Codec::encode_stream`]
/// returns this when no encoding fits, so the entry is stored RAW.
pub const UNCOMPRESSED_BITS: usize = ENTRY_BYTES * 8;

/// Bits of the encoding code at the start of every stream.
pub const CODE_BITS: usize = 4;

/// One of BΔI's encodings, by its 4-bit code (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Encoding {
    /// Code 0: every byte is zero; the stream is the code alone.
    Zeros,
    /// Code 1: the sixteen 8-byte values are equal.
    Repeated,
    /// Code 2: 8-byte base, 1-byte deltas.
    Base8Delta1,
    /// Code 3: 8-byte base, 2-byte deltas.
    Base8Delta2,
    /// Code 4: 8-byte base, 4-byte deltas.
    Base8Delta4,
    /// Code 5: 4-byte base, 1-byte deltas.
    Base4Delta1,
    /// Code 6: 4-byte base, 2-byte deltas.
    Base4Delta2,
    /// Code 7: 2-byte base, 1-byte deltas.
    Base2Delta1,
}

impl Encoding {
    /// Every encoding in code order.
    pub const ALL: [Encoding; 8] = [
        Encoding::Zeros,
        Encoding::Repeated,
        Encoding::Base8Delta1,
        Encoding::Base8Delta2,
        Encoding::Base8Delta4,
        Encoding::Base4Delta1,
        Encoding::Base4Delta2,
        Encoding::Base2Delta1,
    ];

    /// The 4-bit code at the start of the stream (0-7).
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The encoding of a 4-bit code; `None` for the reserved codes 8-15.
    pub const fn from_code(code: u8) -> Option<Encoding> {
        if (code as usize) < Self::ALL.len() {
            Some(Self::ALL[code as usize])
        } else {
            None
        }
    }

    /// The name used in documents and reports (`base8-Δ1`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Encoding::Zeros => "zeros",
            Encoding::Repeated => "repeated 8-byte value",
            Encoding::Base8Delta1 => "base8-Δ1",
            Encoding::Base8Delta2 => "base8-Δ2",
            Encoding::Base8Delta4 => "base8-Δ4",
            Encoding::Base4Delta1 => "base4-Δ1",
            Encoding::Base4Delta2 => "base4-Δ2",
            Encoding::Base2Delta1 => "base2-Δ1",
        }
    }

    /// `(k, d)`: base (value) size and delta size in bytes of a base-delta
    /// encoding; `None` for zeros and repeated.
    pub const fn base_delta_bytes(self) -> Option<(usize, usize)> {
        match self {
            Encoding::Zeros | Encoding::Repeated => None,
            Encoding::Base8Delta1 => Some((8, 1)),
            Encoding::Base8Delta2 => Some((8, 2)),
            Encoding::Base8Delta4 => Some((8, 4)),
            Encoding::Base4Delta1 => Some((4, 1)),
            Encoding::Base4Delta2 => Some((4, 2)),
            Encoding::Base2Delta1 => Some((2, 1)),
        }
    }

    /// Length of the stream in bits: 4 (zeros), 68 (repeated), or
    /// `4 + 8k + n + 8dn` with `n = 128 / k`.
    pub const fn stream_bits(self) -> usize {
        match self.base_delta_bytes() {
            None => match self {
                Encoding::Zeros => CODE_BITS,
                _ => CODE_BITS + 64,
            },
            Some((k, d)) => {
                let n = ENTRY_BYTES / k;
                CODE_BITS + 8 * k + n + 8 * d * n
            }
        }
    }
}

impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The encodings the compressor tries, shortest stream first (ties in code
/// order): the first that fits is the one [`Bdi::encoding`] picks.
const BY_LENGTH: [Encoding; 7] = {
    let mut order = [
        Encoding::Repeated,
        Encoding::Base8Delta1,
        Encoding::Base8Delta2,
        Encoding::Base8Delta4,
        Encoding::Base4Delta1,
        Encoding::Base4Delta2,
        Encoding::Base2Delta1,
    ];
    // Insertion sort by (stream bits, code), at compile time.
    let mut i = 1;
    while i < order.len() {
        let mut j = i;
        while j > 0 {
            let (a, b) = (order[j - 1], order[j]);
            let later = a.stream_bits() > b.stream_bits() || (a.stream_bits() == b.stream_bits() && a.code() > b.code());
            if !later {
                break;
            }
            order[j - 1] = b;
            order[j] = a;
            j -= 1;
        }
        i += 1;
    }
    order
};

/// The explicit base and the mask of a base-delta encoding that fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BaseDelta {
    /// `B`: the first value that is not an immediate, or 0 (`k` bytes,
    /// in the low bits).
    pub base: u64,
    /// Bit `i` is 1 when `v[i]` is `B + delta_i` (`n <= 64` bits).
    pub mask: u64,
}

/// The BΔI golden codec (Pekhimenko et al., PACT 2012).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bdi;

/// The `n = 128 / k` little-endian `k`-byte values of `bytes`, in the
/// low bits of `u64`s (the first `n` of the array).
fn values(bytes: &[u8; ENTRY_BYTES], k: usize) -> [u64; 64] {
    let mut v = [0u64; 64];
    for (x, chunk) in v.iter_mut().zip(bytes.chunks_exact(k)) {
        let mut b = [0u8; 8];
        b[..k].copy_from_slice(chunk);
        *x = u64::from_le_bytes(b);
    }
    v
}

/// All-ones in the low `bits` bits (`1 <= bits <= 64`).
const fn low_mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The `bits`-bit two's-complement value in the low bits of `x`, as `i64`.
const fn signed(x: u64, bits: usize) -> i64 {
    ((x << (64 - bits)) as i64) >> (64 - bits)
}

/// True when the `k`-byte value `x`, read as signed, is a signed `d`-byte number.
const fn fits(x: u64, k: usize, d: usize) -> bool {
    let v = signed(x, 8 * k);
    let half = 1i64 << (8 * d - 1);
    -half <= v && v < half
}

/// The base and mask of the base-delta encoding with `k`-byte values and
/// `d`-byte deltas if it fits `entry`, else `None` (module docs): `B` is
/// the first value that is not an immediate, and every other value that is
/// not one must be `B` plus a signed `d`-byte delta mod `2^(8k)`.
///
/// `k` must be 2, 4 or 8 and `d < k`; other sizes return `None`.
pub fn base_delta(entry: &MemoryEntry, k: usize, d: usize) -> Option<BaseDelta> {
    if !matches!(k, 2 | 4 | 8) || d == 0 || d >= k {
        return None;
    }
    let bytes = entry.to_bytes();
    let v = values(&bytes, k);
    base_delta_of(&v[..ENTRY_BYTES / k], k, d)
}

fn base_delta_of(v: &[u64], k: usize, d: usize) -> Option<BaseDelta> {
    let m = low_mask(8 * k);
    let base = v.iter().copied().find(|&x| !fits(x, k, d)).unwrap_or(0);
    let mut mask = 0u64;
    for (i, &x) in v.iter().enumerate() {
        if fits(x, k, d) {
            continue;
        }
        if !fits(x.wrapping_sub(base) & m, k, d) {
            return None;
        }
        mask |= 1 << i;
    }
    Some(BaseDelta { base, mask })
}

/// Append the low `bits` bits of `x` (any width up to 64), LSB-first.
fn put(w: &mut BitWriter, x: u64, bits: usize) {
    let mut done = 0;
    while done < bits {
        let n = (bits - done).min(32);
        w.put_lsb_first((x >> done) as u32 & low_mask(n) as u32, n as u32);
        done += n;
    }
}

/// Read `bits` bits (up to 64), LSB-first; the caller checked the length.
fn get(r: &mut BitReader<'_>, bits: usize) -> Option<u64> {
    let mut x = 0u64;
    let mut done = 0;
    while done < bits {
        let n = (bits - done).min(32);
        x |= (r.get_lsb_first(n as u32).ok()? as u64) << done;
        done += n;
    }
    Some(x)
}

impl Bdi {
    /// The encoding the compressor picks for `entry`: zeros for the
    /// all-zero entry, else the fitting encoding with the shortest stream
    /// (ties to the lower code); `None` when none fits (stored RAW).
    /// Independent of Buddy's size classes.
    pub fn encoding(&self, entry: &MemoryEntry) -> Option<Encoding> {
        self.choose(entry).map(|(e, _)| e)
    }

    /// The picked encoding and, for a base-delta one, its base and mask.
    fn choose(&self, entry: &MemoryEntry) -> Option<(Encoding, Option<BaseDelta>)> {
        if entry.is_zero() {
            return Some((Encoding::Zeros, None));
        }
        let bytes = entry.to_bytes();
        let v8 = values(&bytes, 8);
        let v4 = values(&bytes, 4);
        let v2 = values(&bytes, 2);
        for enc in BY_LENGTH {
            match enc.base_delta_bytes() {
                None => {
                    if v8[..16].iter().all(|&x| x == v8[0]) {
                        return Some((enc, None));
                    }
                }
                Some((k, d)) => {
                    let v = match k {
                        8 => &v8[..16],
                        4 => &v4[..32],
                        _ => &v2[..64],
                    };
                    if let Some(bd) = base_delta_of(v, k, d) {
                        return Some((enc, Some(bd)));
                    }
                }
            }
        }
        None
    }

    /// The stream of `entry` under its picked encoding: (stream bits,
    /// packed bytes); `None` when none fits. Exposed for the documents and
    /// LCP; [`Codec::compress`] is the interface.
    pub fn stream(&self, entry: &MemoryEntry) -> Option<(usize, [u8; STREAM_BUFFER_BYTES])> {
        let (enc, bd) = self.choose(entry)?;
        let mut w = BitWriter::default();
        w.put_lsb_first(enc.code() as u32, CODE_BITS as u32);
        match (enc.base_delta_bytes(), bd) {
            (Some((k, d)), Some(bd)) => {
                let n = ENTRY_BYTES / k;
                let v = values(&entry.to_bytes(), k);
                put(&mut w, bd.base, 8 * k);
                put(&mut w, bd.mask, n);
                let m = low_mask(8 * k);
                for (i, &x) in v[..n].iter().enumerate() {
                    let delta = if bd.mask >> i & 1 == 1 { x.wrapping_sub(bd.base) & m } else { x };
                    put(&mut w, delta, 8 * d);
                }
            }
            _ if enc == Encoding::Repeated => put(&mut w, values(&entry.to_bytes(), 8)[0], 64),
            _ => {} // zeros: the code alone
        }
        debug_assert_eq!(w.len(), enc.stream_bits());
        let mut out = [0u8; STREAM_BUFFER_BYTES];
        w.copy_bytes(&mut out);
        Some((w.len(), out))
    }

    /// Decode a stream from its first bit: the entry and the encoding.
    /// `stored` may be longer than the stream (a class or an LCP slot);
    /// `class` names the container in errors.
    ///
    /// # Errors
    /// [`DecodeError::ReservedEncoding`] for codes 8-15 (or fewer than 4
    /// bits stored), [`DecodeError::StreamOverrun`] when the encoding's
    /// stream is longer than `stored`.
    pub fn decode(&self, class: SizeClass, stored: &[u8]) -> Result<(MemoryEntry, Encoding), DecodeError> {
        let available_bits = stored.len() * 8;
        let overrun = |needed_bits| DecodeError::StreamOverrun { class: class.name(), needed_bits, available_bits };
        let mut r = BitReader::new(stored);
        let code = r.get_lsb_first(CODE_BITS as u32).map_err(|_| overrun(CODE_BITS))? as u8;
        let enc = Encoding::from_code(code).ok_or(DecodeError::ReservedEncoding { algorithm: "bdi", code })?;
        if enc.stream_bits() > available_bits {
            return Err(overrun(enc.stream_bits()));
        }
        let mut bytes = [0u8; ENTRY_BYTES];
        match enc.base_delta_bytes() {
            None if enc == Encoding::Zeros => {}
            None => {
                let x = get(&mut r, 64).ok_or(overrun(enc.stream_bits()))?;
                for chunk in bytes.chunks_exact_mut(8) {
                    chunk.copy_from_slice(&x.to_le_bytes());
                }
            }
            Some((k, d)) => {
                let n = ENTRY_BYTES / k;
                let m = low_mask(8 * k);
                let base = get(&mut r, 8 * k).ok_or(overrun(enc.stream_bits()))?;
                let mask = get(&mut r, n).ok_or(overrun(enc.stream_bits()))?;
                for (i, chunk) in bytes.chunks_exact_mut(k).enumerate() {
                    let raw = get(&mut r, 8 * d).ok_or(overrun(enc.stream_bits()))?;
                    let delta = signed(raw, 8 * d) as u64;
                    let x = if mask >> i & 1 == 1 { base.wrapping_add(delta) } else { delta } & m;
                    chunk.copy_from_slice(&x.to_le_bytes()[..k]);
                }
            }
        }
        Ok((MemoryEntry::from_bytes(&bytes), enc))
    }
}

impl Codec for Bdi {
    fn algorithm(&self) -> Algorithm {
        Algorithm::Bdi
    }

    /// The picked encoding's stream ([`Bdi::encoding`]); its length (at
    /// most 596 bits), or [`UNCOMPRESSED_BITS`] when no encoding fits.
    fn encode_stream(&self, entry: &MemoryEntry, stream: &mut [u8; STREAM_BUFFER_BYTES]) -> usize {
        match self.stream(entry) {
            Some((bits, bytes)) => {
                *stream = bytes;
                bits
            }
            None => UNCOMPRESSED_BITS,
        }
    }

    fn decode_stream(&self, class: SizeClass, stored: &[u8]) -> Result<MemoryEntry, DecodeError> {
        if matches!(class, SizeClass::Zero | SizeClass::Raw) {
            return Err(DecodeError::NotAStreamClass { class: class.name() });
        }
        if stored.len() != class.bytes() {
            return Err(DecodeError::StoredLength { class: class.name(), expected: class.bytes(), got: stored.len() });
        }
        self.decode(class, stored).map(|(e, _)| e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_lengths_and_order() {
        let bits: Vec<usize> = Encoding::ALL.iter().map(|e| e.stream_bits()).collect();
        assert_eq!(bits, vec![4, 68, 212, 340, 596, 324, 580, 596]);
        assert_eq!(
            BY_LENGTH,
            [
                Encoding::Repeated,
                Encoding::Base8Delta1,
                Encoding::Base4Delta1,
                Encoding::Base8Delta2,
                Encoding::Base4Delta2,
                Encoding::Base8Delta4,
                Encoding::Base2Delta1
            ]
        );
        for e in Encoding::ALL {
            assert_eq!(Encoding::from_code(e.code()), Some(e));
        }
        assert_eq!(Encoding::from_code(8), None);
    }

    #[test]
    fn fits_is_the_signed_range() {
        assert!(fits(127, 8, 1) && fits(u64::MAX - 127, 8, 1)); // 127 and -128
        assert!(!fits(128, 8, 1) && !fits(u64::MAX - 128, 8, 1)); // 128 and -129
        assert!(fits(0xff80, 2, 1) && !fits(0xff7f, 2, 1)); // -128 and -129 as 2-byte values
        assert!(fits(0x7fff_ffff, 8, 4) && !fits(0x8000_0000, 8, 4));
        assert!(fits(0x8000_0000, 4, 4)); // any 4-byte value fits 4 bytes
    }

    #[test]
    fn base_delta_rejects_sizes_that_are_no_encoding() {
        let e = MemoryEntry::from_words([1; 32]);
        assert_eq!(base_delta(&e, 3, 1), None);
        assert_eq!(base_delta(&e, 4, 4), None);
        assert_eq!(base_delta(&e, 4, 0), None);
        assert_eq!(base_delta(&e, 4, 1), Some(BaseDelta { base: 0, mask: 0 }));
    }
}
