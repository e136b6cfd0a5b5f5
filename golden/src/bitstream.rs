//! Bit-level writer and reader for compressed streams, packed LSB-first into
//! bytes (docs/formats.md#stream-packing: stream bit `j` is bit `j mod 8` of byte `j div 8`).
//!
//! Fields are written and read either LSB-first (the field's bit 0 enters the
//! stream first: ZVC, MAG-BDI) or MSB-first (the field's top bit enters
//! first: BPC code words and payloads, docs/formats.md#stream-packing).

/// Largest stream the writer holds, in 64-bit words (1152 bits: more than
/// BPC's 1089-bit worst case).
const WRITER_WORDS: usize = 18;

/// Appends fields to a stream of at most 1152 bits.
#[derive(Clone)]
pub struct BitWriter {
    words: [u64; WRITER_WORDS],
    bits: usize,
}

impl Default for BitWriter {
    fn default() -> Self {
        BitWriter { words: [0; WRITER_WORDS], bits: 0 }
    }
}

impl BitWriter {
    /// Append the low `n` bits of `value` (n <= 32), bit 0 first.
    ///
    /// # Panics
    /// When the stream would exceed 1152 bits.
    #[inline]
    pub fn put_lsb_first(&mut self, value: u32, n: u32) {
        debug_assert!(n <= 32);
        self.put_lsb_first64(value as u64, n);
    }

    /// Append the low `n` bits of `value` (1 <= n <= 64), bit 0 first.
    #[inline]
    fn put_lsb_first64(&mut self, value: u64, n: u32) {
        if n == 0 {
            return;
        }
        let v = if n == 64 { value } else { value & ((1u64 << n) - 1) };
        let (i, off) = (self.bits / 64, self.bits % 64);
        self.words[i] |= v << off;
        if off + n as usize > 64 {
            self.words[i + 1] |= v >> (64 - off);
        }
        self.bits += n as usize;
    }

    /// Append the low `n` bits of `value` (n <= 32), bit `n - 1` first.
    #[inline]
    pub fn put_msb_first(&mut self, value: u32, n: u32) {
        if n == 0 {
            return;
        }
        self.put_lsb_first(value.reverse_bits() >> (32 - n), n);
    }

    /// Bits written so far.
    pub fn len(&self) -> usize {
        self.bits
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.bits == 0
    }

    /// Copy the first `out.len()` bytes of the packed stream into `out`
    /// (zero past the written bits).
    pub fn copy_bytes(&self, out: &mut [u8]) {
        let mut chunks = out.chunks_mut(8);
        for (chunk, w) in chunks.by_ref().zip(self.words.iter()) {
            chunk.copy_from_slice(&w.to_le_bytes()[..chunk.len()]);
        }
        for chunk in chunks {
            chunk.fill(0);
        }
    }
}

/// Reads fields from packed stream bytes; reading past the end is an error
/// value carrying the bit offset, never a panic.
pub struct BitReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// A read needed bits past the end of the stored bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfInput {
    /// Bit offset of the field that did not fit.
    pub offset: usize,
}

impl<'a> BitReader<'a> {
    /// A reader at bit 0 of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        BitReader { bytes, pos: 0 }
    }

    /// Bit offset of the next read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The next `n` stream bits (n <= 32) as an integer whose bit `i` is
    /// stream bit `position + i`.
    #[inline]
    fn peek_lsb(&self, n: u32) -> Result<u32, OutOfInput> {
        if self.pos + n as usize > self.bytes.len() * 8 {
            return Err(OutOfInput { offset: self.pos });
        }
        let first = self.pos / 8;
        let mut chunk = [0u8; 8];
        let avail = (self.bytes.len() - first).min(8);
        chunk[..avail].copy_from_slice(&self.bytes[first..first + avail]);
        let v = u64::from_le_bytes(chunk) >> (self.pos % 8);
        Ok((v & ((1u64 << n) - 1)) as u32)
    }

    /// Read `n` bits (n <= 32), the field's bit 0 first.
    ///
    /// # Errors
    /// [`OutOfInput`] when fewer than `n` bits are left.
    #[inline]
    pub fn get_lsb_first(&mut self, n: u32) -> Result<u32, OutOfInput> {
        if n == 0 {
            return Ok(0);
        }
        let v = self.peek_lsb(n)?;
        self.pos += n as usize;
        Ok(v)
    }

    /// Read `n` bits (1 <= n <= 32), the field's top bit first.
    ///
    /// # Errors
    /// [`OutOfInput`] when fewer than `n` bits are left.
    #[inline]
    pub fn get_msb_first(&mut self, n: u32) -> Result<u32, OutOfInput> {
        Ok(self.get_lsb_first(n)?.reverse_bits() >> (32 - n))
    }
}

/// Words of the MSB-first writer and reader: 1152 bits, plus one zero word
/// so that a read may look one word ahead.
const MSB_WORDS: usize = 19;

/// Appends MSB-first code words (BPC) into a 64-bit accumulator; the
/// project's LSB-first byte packing is produced once per 64 bits at the end
/// (`reverse_bits` of each word), not once per code word.
///
/// Stream bit `t` sits at bit `63 - t % 64` of word `t / 64` while writing.
pub struct MsbFirstWriter {
    words: [u64; MSB_WORDS],
    index: usize,
    acc: u64,
    used: u32,
}

impl Default for MsbFirstWriter {
    fn default() -> Self {
        MsbFirstWriter { words: [0; MSB_WORDS], index: 0, acc: 0, used: 0 }
    }
}

impl MsbFirstWriter {
    /// Append the low `n` bits of `code` (1 <= n <= 63), bit `n - 1` first.
    ///
    /// # Panics
    /// When the stream would exceed 1152 bits.
    #[inline]
    pub fn put(&mut self, code: u64, n: u32) {
        debug_assert!((1..64).contains(&n) && code >> n == 0);
        if self.used + n <= 64 {
            self.acc = if n == 64 { code } else { (self.acc << n) | code };
            self.used += n;
        } else {
            let spill = self.used + n - 64;
            self.words[self.index] = (self.acc << (64 - self.used)) | (code >> spill);
            self.index += 1;
            self.acc = code & ((1u64 << spill) - 1);
            self.used = spill;
        }
    }

    /// Bits written so far.
    pub fn len(&self) -> usize {
        self.index * 64 + self.used as usize
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Copy the first `out.len()` bytes of the stream, packed LSB-first
    /// (docs/formats.md#stream-packing), into `out`; zero past the written bits.
    pub fn copy_bytes(&self, out: &mut [u8]) {
        let tail = if self.used == 0 { 0 } else { self.acc << (64 - self.used) };
        let mut chunks = out.chunks_mut(8);
        for (i, chunk) in chunks.by_ref().enumerate() {
            let w = match i.cmp(&self.index) {
                std::cmp::Ordering::Less => self.words[i],
                std::cmp::Ordering::Equal => tail,
                std::cmp::Ordering::Greater => 0,
            };
            chunk.copy_from_slice(&w.reverse_bits().to_le_bytes()[..chunk.len()]);
        }
    }
}

/// Reads MSB-first fields (BPC) from LSB-first packed bytes, with a 64-bit
/// window; reading past the end is an [`OutOfInput`] value, never a panic.
/// Only the first 1152 bits of the input are visible (no BPC stream is longer).
pub struct MsbFirstReader {
    words: [u64; MSB_WORDS],
    bits: usize,
    pos: usize,
}

impl MsbFirstReader {
    /// A reader at bit 0 of `bytes`.
    pub fn new(bytes: &[u8]) -> Self {
        let bytes = &bytes[..bytes.len().min((MSB_WORDS - 1) * 8)];
        let mut words = [0u64; MSB_WORDS];
        for (w, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            *w = u64::from_le_bytes(b).reverse_bits();
        }
        MsbFirstReader { words, bits: bytes.len() * 8, pos: 0 }
    }

    /// Bit offset of the next read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Read `n` bits (1 <= n <= 32), the field's top bit first.
    ///
    /// # Errors
    /// [`OutOfInput`] when fewer than `n` bits are left.
    #[inline]
    pub fn get(&mut self, n: u32) -> Result<u32, OutOfInput> {
        if self.pos + n as usize > self.bits {
            return Err(OutOfInput { offset: self.pos });
        }
        let (i, off) = (self.pos / 64, self.pos % 64);
        let mut window = self.words[i] << off;
        if off != 0 {
            window |= self.words[i + 1] >> (64 - off);
        }
        self.pos += n as usize;
        Ok((window >> (64 - n)) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn msb_first_fields_land_reversed_in_lsb_first_bytes() {
        let mut w = BitWriter::default();
        w.put_msb_first(0b000, 3);
        w.put_msb_first(0b01, 2);
        w.put_msb_first(31, 5);
        assert_eq!(w.len(), 10);
        let mut out = [0u8; 2];
        w.copy_bytes(&mut out);
        assert_eq!(out, [0xf0, 0x03]); // BPC test vector E1, docs/formats.md#bpc-test-vectors
        let mut r = BitReader::new(&out);
        assert_eq!(r.get_msb_first(3), Ok(0));
        assert_eq!(r.get_msb_first(2), Ok(1));
        assert_eq!(r.get_msb_first(5), Ok(31));
        assert_eq!(r.get_msb_first(7), Err(OutOfInput { offset: 10 }));
    }

    #[test]
    fn fields_straddling_words_round_trip() {
        let mut w = BitWriter::default();
        for i in 0..30u32 {
            w.put_lsb_first(i.wrapping_mul(0x9e37_79b9), 27);
            w.put_msb_first(i, 6);
        }
        let mut bytes = [0u8; 124];
        w.copy_bytes(&mut bytes);
        let mut r = BitReader::new(&bytes);
        for i in 0..30u32 {
            assert_eq!(r.get_lsb_first(27).unwrap(), i.wrapping_mul(0x9e37_79b9) & ((1 << 27) - 1));
            assert_eq!(r.get_msb_first(6).unwrap(), i);
        }
    }
}
