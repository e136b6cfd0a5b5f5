//! Bit-level writer and reader for compressed streams, packed LSB-first into
//! bytes (formats.md §1: stream bit `j` is bit `j mod 8` of byte `j div 8`).
//!
//! Fields are written and read either LSB-first (the field's bit 0 enters the
//! stream first: ZVC, MAG-BDI) or MSB-first (the field's top bit enters
//! first: BPC code words and payloads, bpc.md §3).

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
    /// In debug builds, when the stream would exceed 1152 bits.
    #[inline]
    pub fn put_lsb_first(&mut self, value: u32, n: u32) {
        debug_assert!(n <= 32 && self.bits + n as usize <= WRITER_WORDS * 64);
        if n == 0 {
            return;
        }
        let v = (value as u64) & ((1u64 << n) - 1);
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
        for (i, b) in out.iter_mut().enumerate() {
            *b = (self.words.get(i / 8).copied().unwrap_or(0) >> (8 * (i % 8))) as u8;
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
        assert_eq!(out, [0xf0, 0x03]); // bpc.md E1
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
