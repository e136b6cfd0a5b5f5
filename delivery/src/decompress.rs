//! What every decompressor is fed and must return, by the golden model:
//! stored entries (4-bit size code and payload), the expected outputs, and
//! their co-simulation vector lines.

use crate::cosim::hex_field;
use buddy_golden::{Codec, MemoryEntry, SizeClass, ENTRY_BYTES};
use rand::{Rng, SeedableRng};

/// One decompressor input: the 4-bit size code (0..15, reserved codes
/// included) and the 1024-bit payload, as stored bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoredEntry {
    pub code: u8,
    pub payload: [u8; ENTRY_BYTES],
}

/// One decompressor output.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decompressed {
    /// The entry, all zero on error.
    pub entry: MemoryEntry,
    pub error: bool,
}

/// The decompressor input that stores `entry` as `codec` compresses it.
pub fn stored(codec: &dyn Codec, entry: &MemoryEntry) -> StoredEntry {
    let c = codec.compress(entry);
    StoredEntry { code: c.class.code(), payload: c.payload }
}

/// What a decompressor for `codec` must output for `input`: the golden
/// decoding, or zeros with `error` when it fails. Only the first
/// `class.bytes()` payload bytes are given to the golden decoder, since the
/// hardware must ignore the rest.
pub fn expected_decompressed(codec: &dyn Codec, input: &StoredEntry) -> Decompressed {
    let stored_len = SizeClass::from_code(input.code).map(|c| c.bytes()).unwrap_or(0);
    match codec.decompress_code(input.code, &input.payload[..stored_len]) {
        Ok(entry) => Decompressed { entry, error: false },
        Err(_) => Decompressed { entry: MemoryEntry::ZERO, error: true },
    }
}

/// `n` malformed or arbitrary inputs from `seed`: random payloads under
/// every code 0..15, reserved codes included.
pub fn random_stored(n: usize, seed: u64) -> Vec<StoredEntry> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| StoredEntry { code: rng.gen_range(0..16), payload: std::array::from_fn(|_| rng.gen()) }).collect()
}

/// One `$readmemh` line for a decompressor of `codec`:
/// `{in_class, in_payload, out_entry, out_error}`.
pub fn decompressor_vector(codec: &dyn Codec, input: &StoredEntry) -> String {
    let out = expected_decompressed(codec, input);
    [hex_field(input.code as u64, 4), MemoryEntry::from_bytes(&input.payload).to_hex(), out.entry.to_hex(), hex_field(out.error as u64, 1)]
        .concat()
}

/// Input and output data ports of every decompressor, in vector-line order.
pub const DECOMPRESSOR_INPUTS: &[(&str, usize)] = &[("in_class", 4), ("in_payload", 1024)];
/// See [`DECOMPRESSOR_INPUTS`].
pub const DECOMPRESSOR_OUTPUTS: &[(&str, usize)] = &[("out_entry", 1024), ("out_error", 1)];

/// `StreamDut` for a decompressor with the common ports (`in_class`,
/// `in_payload`, `out_entry`, `out_error` and the handshakes).
#[macro_export]
macro_rules! decompressor_dut {
    ($t:ty) => {
        impl $crate::stream::StreamDut for $t {
            type Input = $crate::decompress::StoredEntry;
            type Output = $crate::decompress::Decompressed;
            fn drive_input(&mut self, valid: bool, data: &Self::Input) {
                self.in_valid.next = valid;
                self.in_class.next = (data.code as u64).into();
                self.in_payload.next = $crate::stream::to_bits(&buddy_golden::MemoryEntry::from_bytes(&data.payload));
            }
            $crate::stream_handshake!();
            fn output(&self) -> Option<Self::Output> {
                self.out_valid.val().then(|| $crate::decompress::Decompressed {
                    entry: $crate::stream::from_bits(&self.out_entry.val()),
                    error: self.out_error.val(),
                })
            }
        }
    };
}
