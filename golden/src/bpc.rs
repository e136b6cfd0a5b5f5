//! Bit-Plane Compression (BPC) of one 128-byte memory-entry, exactly as
//! docs/formats.md#bpc describes it (Kim et al., ISCA 2016; the Buddy Compression
//! paper's algorithm of choice, Sec. IV-A).
//!
//! Transform (docs/formats.md#bpc-transform): `base = w[0]`; 31 signed 33-bit deltas
//! `D[k] = s(w[k+1]) - s(w[k])`; 33 delta bit-planes `DBP[b]` (31 bits, bit
//! `k` = bit `b` of `D[k]`); `DBX[32] = DBP[32]`, `DBX[b] = DBP[b] ^ DBP[b+1]`.
//!
//! Stream (docs/formats.md#bpc-symbols): the base symbol, then one symbol per plane from
//! `b = 32` down to 0 with maximal zero runs merged. Code words and payloads
//! are emitted most-significant bit first into the project's LSB-first byte
//! packing. Size 10..=1089 bits; above 768 bits the entry is stored RAW
//! (docs/formats.md#size-classes).

use crate::bitstream::{MsbFirstReader, MsbFirstWriter, OutOfInput};
use crate::codec::{Algorithm, Codec, STREAM_BUFFER_BYTES};
use crate::entry::{MemoryEntry, ENTRY_WORDS};
use crate::error::DecodeError;
use crate::size_class::SizeClass;

/// The BPC golden codec.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bpc;

/// The all-ones 31-bit plane.
pub const ALL1: u32 = 0x7FFF_FFFF;
/// Number of bit-planes (33-bit deltas).
pub const PLANES: usize = 33;

/// One BPC symbol (docs/formats.md#bpc-symbols), with its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symbol {
    /// Base word zero: `000`.
    BaseZero,
    /// Base word sign-extended from 4 bits: `001` + 4 bits.
    Base4(u32),
    /// Base word sign-extended from 8 bits: `010` + 8 bits.
    Base8(u32),
    /// Base word sign-extended from 16 bits: `011` + 16 bits.
    Base16(u32),
    /// Base word uncompressed: `1` + 32 bits.
    Base32(u32),
    /// A run of `n` zero planes, 2..=33: `01` + (n - 2) in 5 bits.
    ZeroRun(u32),
    /// A single zero plane: `001`.
    Zero1,
    /// `DBX == 0x7FFFFFFF`: `00000`.
    All1,
    /// `DBX != 0` and `DBP == 0`: `00001`.
    Dbp0,
    /// Two adjacent ones at `p`, `p + 1` (p <= 29): `00010` + p in 5 bits.
    Two1(u32),
    /// One one at `p` (p <= 30): `00011` + p in 5 bits.
    One1(u32),
    /// Any other plane: `1` + DBX in 31 bits.
    Raw(u32),
}

impl Symbol {
    /// (code word and payload as one integer, total bits), emitted MSB first.
    #[inline]
    pub fn code(self) -> (u64, u32) {
        match self {
            Symbol::BaseZero => (0b000, 3),
            Symbol::Base4(v) => ((0b001 << 4) | (v as u64 & 0xf), 7),
            Symbol::Base8(v) => ((0b010 << 8) | (v as u64 & 0xff), 11),
            Symbol::Base16(v) => ((0b011 << 16) | (v as u64 & 0xffff), 19),
            Symbol::Base32(v) => ((1 << 32) | v as u64, 33),
            Symbol::ZeroRun(n) => ((0b01 << 5) | (n as u64 - 2), 7),
            Symbol::Zero1 => (0b001, 3),
            Symbol::All1 => (0b00000, 5),
            Symbol::Dbp0 => (0b00001, 5),
            Symbol::Two1(p) => ((0b00010 << 5) | p as u64, 10),
            Symbol::One1(p) => ((0b00011 << 5) | p as u64, 10),
            Symbol::Raw(x) => ((1 << 31) | x as u64, 32),
        }
    }

    /// Bits of this symbol.
    pub fn bits(self) -> u32 {
        self.code().1
    }
}

/// The base-word symbol of `w0` (docs/formats.md#bpc-symbols, first matching row).
#[inline]
pub fn base_symbol(w0: u32) -> Symbol {
    let v = w0 as i32;
    if v == 0 {
        Symbol::BaseZero
    } else if (-8..=7).contains(&v) {
        Symbol::Base4(w0 & 0xf)
    } else if (-128..=127).contains(&v) {
        Symbol::Base8(w0 & 0xff)
    } else if (-32768..=32767).contains(&v) {
        Symbol::Base16(w0 & 0xffff)
    } else {
        Symbol::Base32(w0)
    }
}

/// The symbol of a non-zero plane, by the mandatory priority of docs/formats.md#bpc-symbols:
/// ALL1, DBP0, TWO1, ONE1, RAW.
#[inline]
pub fn plane_symbol(dbx: u32, dbp: u32) -> Symbol {
    debug_assert!(dbx != 0 && dbx <= ALL1);
    let p = dbx.trailing_zeros();
    if dbx == ALL1 {
        Symbol::All1
    } else if dbp == 0 {
        Symbol::Dbp0
    } else if dbx == 3 << p {
        Symbol::Two1(p)
    } else if dbx == 1 << p {
        Symbol::One1(p)
    } else {
        Symbol::Raw(dbx)
    }
}

/// The zero-run symbol of a maximal run of `n` zero planes (1..=33).
#[inline]
fn zero_run_symbol(n: u32) -> Symbol {
    if n == 1 {
        Symbol::Zero1
    } else {
        Symbol::ZeroRun(n)
    }
}

/// Transpose a 32x32 bit matrix in place: bit `c` of `a[r]` becomes bit `r`
/// of `a[c]`.
///
/// The classic 5-round swap of off-diagonal blocks, with two rows packed in
/// each `u64` so that every round does 8 swaps instead of 16 (BPC's hot spot).
#[inline]
pub fn transpose32(a: &mut [u32; 32]) {
    let mut p: [u64; 16] = std::array::from_fn(|i| a[2 * i] as u64 | (a[2 * i + 1] as u64) << 32);
    swap_row_blocks::<16>(&mut p, 0x0000_FFFF);
    swap_row_blocks::<8>(&mut p, 0x00FF_00FF);
    swap_row_blocks::<4>(&mut p, 0x0F0F_0F0F);
    swap_row_blocks::<2>(&mut p, 0x3333_3333);
    // J = 1: the partner row is the other half of the same u64.
    for x in p.iter_mut() {
        let t = ((*x >> 1) ^ (*x >> 32)) & 0x5555_5555;
        *x ^= (t << 1) ^ (t << 32);
    }
    for (i, x) in p.iter().enumerate() {
        a[2 * i] = *x as u32;
        a[2 * i + 1] = (*x >> 32) as u32;
    }
}

/// One round (`J` >= 2) of [`transpose32`] on packed row pairs: rows `k` and
/// `k + J` (bit `J` of `k` clear) sit at the same half of `u64`s `J/2` apart;
/// the high `J` bits of each `2J`-bit group of row `k` swap with the low `J`
/// bits of row `k + J`.
#[inline(always)]
fn swap_row_blocks<const J: usize>(p: &mut [u64; 16], m: u32) {
    let m = m as u64 | (m as u64) << 32;
    let h = J / 2;
    for base in (0..16).step_by(2 * h) {
        let (lo, hi) = p[base..base + 2 * h].split_at_mut(h);
        for (x, y) in lo.iter_mut().zip(hi.iter_mut()) {
            let t = ((*x >> J) ^ *y) & m;
            *x ^= t << J;
            *y ^= t;
        }
    }
}

/// The 33 delta bit-planes `DBP[0..33]` of an entry (docs/formats.md#bpc-transform), each 31
/// bits (bit `k` belongs to delta `k`).
pub fn delta_bit_planes(w: &[u32; ENTRY_WORDS]) -> [u32; PLANES] {
    // Bits 0..31 of D[k] are the wrapping 32-bit difference; bit 32 (the
    // sign of the exact difference) is set iff s(w[k+1]) < s(w[k]).
    let mut rows = [0u32; 32];
    let mut sign = 0u32;
    for k in 0..31 {
        rows[k] = w[k + 1].wrapping_sub(w[k]);
        sign |= (((w[k + 1] as i32) < (w[k] as i32)) as u32) << k;
    }
    transpose32(&mut rows);
    let mut dbp = [0u32; PLANES];
    dbp[..32].copy_from_slice(&rows);
    dbp[32] = sign;
    dbp
}

/// Visit the symbols of an entry in emission order (docs/formats.md#bpc-symbols).
#[inline]
fn for_each_symbol(entry: &MemoryEntry, mut f: impl FnMut(Symbol)) {
    let w = entry.words();
    f(base_symbol(w[0]));
    let dbp = delta_bit_planes(w);
    let mut run = 0u32;
    let mut upper = 0u32; // DBP[b + 1]
    for b in (0..PLANES).rev() {
        let dbx = dbp[b] ^ upper;
        upper = dbp[b];
        if dbx == 0 {
            run += 1;
            continue;
        }
        if run > 0 {
            f(zero_run_symbol(run));
            run = 0;
        }
        f(plane_symbol(dbx, dbp[b]));
    }
    if run > 0 {
        f(zero_run_symbol(run));
    }
}

/// The symbol sequence of an entry, in emission order.
pub fn symbols(entry: &MemoryEntry) -> Vec<Symbol> {
    let mut out = Vec::with_capacity(PLANES + 1);
    for_each_symbol(entry, |s| out.push(s));
    out
}

/// The exact BPC stream length of an entry in bits (10..=1089), computed
/// without writing the stream.
pub fn stream_bits(entry: &MemoryEntry) -> usize {
    let mut bits = 0;
    for_each_symbol(entry, |s| bits += s.bits() as usize);
    bits
}

/// The full BPC stream of an entry (up to 1089 bits) and its length.
pub fn encode_full(entry: &MemoryEntry) -> (Vec<u8>, usize) {
    let mut w = MsbFirstWriter::default();
    for_each_symbol(entry, |s| put_symbol(&mut w, s));
    let mut bytes = vec![0u8; w.len().div_ceil(8)];
    w.copy_bytes(&mut bytes);
    (bytes, w.len())
}

#[inline]
fn put_symbol(w: &mut MsbFirstWriter, s: Symbol) {
    let (code, n) = s.code();
    w.put(code, n);
}

/// Decode a BPC stream (docs/formats.md#bpc-decoding) from `bytes`; returns the entry and the
/// number of bits consumed (the compressed size).
///
/// # Errors
/// The mandatory error conditions of docs/formats.md#bpc-decoding, each with the bit offset of
/// the symbol that breaks it: [`DecodeError::BpcOutOfInput`],
/// [`DecodeError::BpcZeroRunTooLong`], [`DecodeError::BpcTwo1Position`],
/// [`DecodeError::BpcOne1Position`].
pub fn decode(bytes: &[u8]) -> Result<(MemoryEntry, usize), DecodeError> {
    let mut r = MsbFirstReader::new(bytes);
    let oob = |e: OutOfInput| DecodeError::BpcOutOfInput { offset: e.offset };
    let base = if r.get(1).map_err(oob)? == 1 {
        r.get(32).map_err(oob)?
    } else {
        match r.get(2).map_err(oob)? {
            0 => 0,
            1 => ((r.get(4).map_err(oob)? << 28) as i32 >> 28) as u32,
            2 => ((r.get(8).map_err(oob)? << 24) as i32 >> 24) as u32,
            _ => ((r.get(16).map_err(oob)? << 16) as i32 >> 16) as u32,
        }
    };
    let mut dbp = [0u32; PLANES];
    let mut prev = 0u32;
    let mut b = PLANES as i32 - 1;
    while b >= 0 {
        let offset = r.position();
        if r.get(1).map_err(oob)? == 1 {
            prev ^= r.get(31).map_err(oob)?;
        } else if r.get(1).map_err(oob)? == 1 {
            let n = r.get(5).map_err(oob)? as i32 + 2;
            if n > b + 1 {
                return Err(DecodeError::BpcZeroRunTooLong { offset, run: n as u32, planes_left: b as u32 + 1 });
            }
            for _ in 0..n {
                dbp[b as usize] = prev;
                b -= 1;
            }
            continue;
        } else if r.get(1).map_err(oob)? == 1 {
            // ZERO1: DBP[b] = DBP[b + 1]
        } else {
            match r.get(2).map_err(oob)? {
                0 => prev ^= ALL1,
                1 => prev = 0,
                2 => {
                    let p = r.get(5).map_err(oob)?;
                    if p > 29 {
                        return Err(DecodeError::BpcTwo1Position { offset, position: p });
                    }
                    prev ^= 3 << p;
                }
                _ => {
                    let p = r.get(5).map_err(oob)?;
                    if p > 30 {
                        return Err(DecodeError::BpcOne1Position { offset, position: p });
                    }
                    prev ^= 1 << p;
                }
            }
        }
        dbp[b as usize] = prev;
        b -= 1;
    }
    // Only D[k] mod 2^32 is needed: planes 0..31, transposed back.
    let mut rows = [0u32; 32];
    rows.copy_from_slice(&dbp[..32]);
    transpose32(&mut rows);
    let mut words = [0u32; ENTRY_WORDS];
    words[0] = base;
    for k in 0..31 {
        words[k + 1] = words[k].wrapping_add(rows[k]);
    }
    Ok((MemoryEntry::from_words(words), r.position()))
}

impl Codec for Bpc {
    fn algorithm(&self) -> Algorithm {
        Algorithm::Bpc
    }

    fn encode_stream(&self, entry: &MemoryEntry, stream: &mut [u8; STREAM_BUFFER_BYTES]) -> usize {
        // Sizes first: a stream over 768 bits is stored RAW, so it is never written.
        let mut codes = [(0u64, 0u32); PLANES + 1];
        let (mut count, mut bits) = (0, 0);
        for_each_symbol(entry, |s| {
            codes[count] = s.code();
            bits += codes[count].1 as usize;
            count += 1;
        });
        if bits <= STREAM_BUFFER_BYTES * 8 {
            let mut w = MsbFirstWriter::default();
            for &(code, n) in &codes[..count] {
                w.put(code, n);
            }
            w.copy_bytes(stream);
        }
        bits
    }

    fn decode_stream(&self, _class: SizeClass, stored: &[u8]) -> Result<MemoryEntry, DecodeError> {
        decode(stored).map(|(e, _)| e)
    }
}
