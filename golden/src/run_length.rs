//! Run-length encoding (RL), the cDMA paper's baseline for activation maps
//! (seed `003_*`, Sec. V-A: effective only on runs of equal values, so it
//! depends on the data layout; Fig. 11 "RL").
//!
//! The paper cites RLE without fixing a format; this project's RL is
//! PackBits (the TIFF/Apple scheme) over little-endian 32-bit words, the
//! activation element size. A stream is a sequence of records, each a
//! header byte `h` then:
//!
//! | `h` | record | bytes |
//! |---|---|---|
//! | `0..=127` | a literal run: the next `h + 1` words as they are | `1 + 4(h + 1)` |
//! | `128..=255` | a repeat run: the next word, `h - 126` times (2..=129) | `1 + 4` |
//!
//! The encoder emits a repeat run for every run of 2 or more equal words
//! (split at 129) and gathers the other words into literal runs of at most
//! 128 words, so 4 KB of zeros (1,024 words) takes 8 repeat records (40
//! bytes) and 1,024 distinct words take 8 literal records (4,104 bytes).
//! The input is a whole number of words; the stream is bytes (no padding).

use thiserror::Error;

/// Most words of one literal run.
pub const MAX_LITERAL: usize = 128;
/// Most words of one repeat run.
pub const MAX_REPEAT: usize = 129;

/// Why an RL stream does not decode.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RunLengthError {
    /// The stream ends inside the record that starts at `offset`.
    #[error("RL stream truncated in the record at byte {offset}")]
    Truncated { offset: usize },
    /// The decoded words exceed `limit` (a stream for a bigger window).
    #[error("RL stream decodes to more than {limit} words")]
    TooLong { limit: usize },
}

/// Encode `words` (see the module docs).
pub fn encode(words: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(words.len() * 4 / 2 + 8);
    let mut literal_start = 0;
    let mut i = 0;
    let flush_literals = |out: &mut Vec<u8>, lits: &[u32]| {
        for chunk in lits.chunks(MAX_LITERAL) {
            out.push((chunk.len() - 1) as u8);
            chunk.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
        }
    };
    while i < words.len() {
        let run = words[i..].iter().take(MAX_REPEAT).take_while(|&&w| w == words[i]).count();
        if run >= 2 {
            flush_literals(&mut out, &words[literal_start..i]);
            out.push((run + 126) as u8);
            out.extend_from_slice(&words[i].to_le_bytes());
            i += run;
            literal_start = i;
        } else {
            i += 1;
        }
    }
    flush_literals(&mut out, &words[literal_start..]);
    out
}

/// Bytes of the RL stream of `words`, without building it.
pub fn encoded_bytes(words: &[u32]) -> usize {
    let (mut bytes, mut literals, mut i) = (0usize, 0usize, 0usize);
    while i < words.len() {
        let run = words[i..].iter().take(MAX_REPEAT).take_while(|&&w| w == words[i]).count();
        if run >= 2 {
            bytes += literals * 4 + literals.div_ceil(MAX_LITERAL) + 5;
            literals = 0;
            i += run;
        } else {
            literals += 1;
            i += 1;
        }
    }
    bytes + literals * 4 + literals.div_ceil(MAX_LITERAL)
}

/// Decode `stream` into at most `limit` words.
///
/// # Errors
/// [`RunLengthError`]: a record cut short, or more than `limit` words.
pub fn decode(stream: &[u8], limit: usize) -> Result<Vec<u32>, RunLengthError> {
    let mut words = Vec::new();
    let mut at = 0;
    let word = |p: usize| stream.get(p..p + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    while at < stream.len() {
        let h = stream[at] as usize;
        let (count, repeat) = if h < 128 { (h + 1, false) } else { (h - 126, true) };
        if words.len() + count > limit {
            return Err(RunLengthError::TooLong { limit });
        }
        if repeat {
            let w = word(at + 1).ok_or(RunLengthError::Truncated { offset: at })?;
            words.extend(std::iter::repeat_n(w, count));
            at += 5;
        } else {
            for k in 0..count {
                words.push(word(at + 1 + 4 * k).ok_or(RunLengthError::Truncated { offset: at })?);
            }
            at += 1 + 4 * count;
        }
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn worked_examples() {
        // 4 KB of zeros: 7 runs of 129 and one of 121.
        let zeros = vec![0u32; 1024];
        let s = encode(&zeros);
        assert_eq!(s.len(), 40);
        assert_eq!(s[..5], [255, 0, 0, 0, 0]);
        assert_eq!(s[35..], [121 + 126, 0, 0, 0, 0]);
        // Distinct words: literal runs of 128.
        let distinct: Vec<u32> = (1..=1024).collect();
        assert_eq!(encode(&distinct).len(), 4104);
        // [1, 0, 0, 2]: literal(1), repeat(0 x2), literal(2).
        assert_eq!(encode(&[1, 0, 0, 2]), vec![0, 1, 0, 0, 0, 128, 0, 0, 0, 0, 0, 2, 0, 0, 0]);
        assert_eq!(encode(&[]), Vec::<u8>::new());
    }

    #[test]
    fn bad_streams_are_errors() {
        assert_eq!(decode(&[0, 1, 2], 10), Err(RunLengthError::Truncated { offset: 0 }));
        assert_eq!(decode(&[130, 0, 0], 10), Err(RunLengthError::Truncated { offset: 0 }));
        assert_eq!(decode(&[255, 0, 0, 0, 0], 128), Err(RunLengthError::TooLong { limit: 128 }));
    }

    proptest! {
        #[test]
        fn round_trip(words in proptest::collection::vec(prop_oneof![Just(0u32), Just(7u32), any::<u32>()], 0..3000)) {
            let s = encode(&words);
            prop_assert_eq!(s.len(), encoded_bytes(&words));
            prop_assert_eq!(decode(&s, words.len()).unwrap(), words);
        }
    }
}
