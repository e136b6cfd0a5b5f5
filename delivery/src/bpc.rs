//! Adapters between the BPC hardware and the golden model: the stream
//! driver, co-simulation ports and vectors, and entry strategies that reach
//! every BPC symbol kind and every zero-run length.

use crate::cosim::CosimPorts;
use crate::decompress::{self, StoredEntry, DECOMPRESSOR_INPUTS, DECOMPRESSOR_OUTPUTS};
use crate::zvc::compressed_fields;
use buddy_golden::bpc::PLANES;
use buddy_golden::{Bpc, Codec, MemoryEntry, SizeClass, ENTRY_BYTES};
use buddy_hdl::{BpcCompressor, BpcDecompressor};
use proptest::prelude::*;

crate::compressor_dut!(BpcCompressor);

crate::decompressor_dut!(BpcDecompressor);

/// Co-simulation ports of `bpc_decompressor`: vector line =
/// `{in_class, in_payload, out_entry, out_error}`.
pub const DECOMPRESSOR_PORTS: CosimPorts =
    CosimPorts { module: "bpc_decompressor", inputs: DECOMPRESSOR_INPUTS, outputs: DECOMPRESSOR_OUTPUTS };

/// Co-simulation ports of `bpc_compressor`: vector line =
/// `{in_entry, out_payload, out_class, out_stream_bits}`.
pub const COMPRESSOR_PORTS: CosimPorts = CosimPorts {
    module: "bpc_compressor",
    inputs: &[("in_entry", 1024)],
    outputs: &[("out_payload", 1024), ("out_class", 4), ("out_stream_bits", 11)],
};

/// One `$readmemh` line for the compressor: the entry and the golden output.
pub fn compressor_vector(entry: &MemoryEntry) -> String {
    entry.to_hex() + &compressed_fields(&Bpc.compress(entry))
}

/// What a plane of [`plane_entry`] is made to be (its DBX).
#[derive(Clone, Copy, Debug)]
enum PlaneKind {
    Zero,
    All1,
    One1(u32),
    Two1(u32),
    /// DBX = DBP of the plane above, so this plane's DBP is 0.
    Dbp0,
    Raw(u32),
}

fn plane_kind() -> impl Strategy<Value = PlaneKind> {
    prop_oneof![
        4 => Just(PlaneKind::Zero),
        1 => Just(PlaneKind::All1),
        1 => (0u32..31).prop_map(PlaneKind::One1),
        1 => (0u32..30).prop_map(PlaneKind::Two1),
        1 => Just(PlaneKind::Dbp0),
        2 => any::<u32>().prop_map(|r| PlaneKind::Raw(r & 0x7FFF_FFFF)),
    ]
}

/// A base word of each class of docs/formats.md#bpc-symbols, with the class boundaries.
fn base_word() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0u32),
        (-8i32..=7).prop_map(|v| v as u32),
        prop_oneof![(-128i32..=127), Just(-129i32), Just(128), Just(-9), Just(8)].prop_map(|v| v as u32),
        prop_oneof![(-32768i32..=32767), Just(-32769i32), Just(32768)].prop_map(|v| v as u32),
        any::<u32>(),
    ]
}

/// Entries built plane by plane (docs/formats.md#bpc-transform backwards): a base word of any
/// class, a DBX per plane of a chosen symbol kind, and one zero run of
/// a chosen length 1..=33 at a chosen place, so that every symbol kind and
/// every run length occurs. Words are rebuilt from the planes; the encoder
/// recomputes the sign plane from the words, so the planes near the top may
/// differ from the chosen ones (the coverage test counts what the golden
/// encoder emits).
pub fn plane_entry() -> impl Strategy<Value = MemoryEntry> {
    (base_word(), proptest::collection::vec(plane_kind(), PLANES), 1usize..=PLANES, 0usize..PLANES).prop_map(|(base, kinds, run, at)| {
        // The run covers planes top - run + 1 ..= top.
        let top = at.max(run - 1);
        let mut dbp = [0u32; PLANES + 1];
        for b in (0..PLANES).rev() {
            let in_run = b <= top && b + run > top;
            let dbx = match if in_run { PlaneKind::Zero } else { kinds[b] } {
                PlaneKind::Zero => 0,
                PlaneKind::All1 => 0x7FFF_FFFF,
                PlaneKind::One1(p) => 1 << p,
                PlaneKind::Two1(p) => 3 << p,
                PlaneKind::Dbp0 => dbp[b + 1],
                PlaneKind::Raw(r) => r,
            };
            dbp[b] = dbx ^ dbp[b + 1];
        }
        let mut words = [0u32; 32];
        words[0] = base;
        for k in 0..31 {
            let delta: u32 = (0..32).map(|b| (dbp[b] >> k & 1) << b).sum();
            words[k + 1] = words[k].wrapping_add(delta);
        }
        MemoryEntry::from_words(words)
    })
}

/// The co-simulation entries of the BPC modules: 8,000 plane-built
/// entries, 2,000 random entries of mixed sparsity and every entry of the
/// bundled snapshot (16,594 in all).
pub fn cosim_entries() -> Vec<MemoryEntry> {
    use crate::entries::{bundled_workload, random_entries, sample, snapshot_entries};
    let mut entries = sample(&plane_entry(), 8_000, 51);
    entries.extend(random_entries(2_000, 53));
    entries.extend(snapshot_entries(&bundled_workload()));
    entries
}

/// One symbol of [`symbol_stream`], well-formed or not: its code word and
/// payload as one value of `len` bits, first emitted bit most significant.
fn any_plane_symbol() -> impl Strategy<Value = (u64, u32)> {
    prop_oneof![
        2 => (0u64..1 << 31).prop_map(|raw| (1 << 31 | raw, 32)),
        2 => (0u64..32).prop_map(|n| (0b01 << 5 | n, 7)),
        1 => Just((0b001, 3)),
        1 => Just((0b00000, 5)),
        1 => Just((0b00001, 5)),
        1 => (0u64..32).prop_map(|p| (0b00010 << 5 | p, 10)),
        1 => (0u64..32).prop_map(|p| (0b00011 << 5 | p, 10)),
    ]
}

fn any_base_symbol() -> impl Strategy<Value = (u64, u32)> {
    prop_oneof![
        Just((0b000, 3)),
        (0u64..16).prop_map(|v| (0b001 << 4 | v, 7)),
        (0u64..256).prop_map(|v| (0b010 << 8 | v, 11)),
        (0u64..65536).prop_map(|v| (0b011 << 16 | v, 19)),
        any::<u32>().prop_map(|v| (1 << 32 | v as u64, 33)),
    ]
}

/// Decompressor inputs made of arbitrary symbol sequences (docs/formats.md#bpc-symbols
/// code words with any payload: TWO1/ONE1 positions up to 31, zero runs up
/// to 33 wherever they fall, 1 to 40 plane symbols), packed as
/// docs/formats.md#stream-packing stores a stream, under any class B8..B96, with random bytes past the
/// stream. They reach every mandatory error of docs/formats.md#bpc-decoding (running out of
/// input, a zero run longer than the planes left, TWO1 above 29, ONE1
/// above 30) as well as well-formed streams, including ones with bits left
/// over.
pub fn symbol_stream() -> impl Strategy<Value = StoredEntry> {
    (any_base_symbol(), proptest::collection::vec(any_plane_symbol(), 1..40), 1u8..=6, any::<[u8; ENTRY_BYTES]>()).prop_map(
        |(base, planes, code, junk)| {
            let mut payload = junk;
            let class_bits = SizeClass::from_code(code).expect("codes 1..6 are classes").bytes() * 8;
            let mut at = 0usize;
            for (value, len) in std::iter::once(base).chain(planes) {
                for i in (0..len).rev() {
                    if at < class_bits.min(ENTRY_BYTES * 8) {
                        let bit = (value >> i & 1) as u8;
                        payload[at / 8] = payload[at / 8] & !(1 << (at % 8)) | bit << (at % 8);
                    }
                    at += 1;
                }
            }
            StoredEntry { code, payload }
        },
    )
}

/// Decompressor inputs: entries built plane by plane stored as the golden
/// compressor stores them (half of them with random bytes past the class),
/// the same streams stored under a class one size too small (out of
/// input), arbitrary symbol sequences ([`symbol_stream`]), and random bytes
/// under any code, the reserved ones included.
pub fn decompressor_input() -> impl Strategy<Value = StoredEntry> {
    prop_oneof![
        4 => (plane_entry(), any::<bool>(), any::<[u8; ENTRY_BYTES]>()).prop_map(|(e, junk, bytes)| {
            let mut s = decompress::stored(&Bpc, &e);
            let used = SizeClass::from_code(s.code).expect("a stored code").bytes();
            if junk {
                s.payload[used..].copy_from_slice(&bytes[used..]);
            }
            s
        }),
        1 => plane_entry().prop_map(|e| {
            let mut s = decompress::stored(&Bpc, &e);
            if (2..=6).contains(&s.code) {
                s.code -= 1;
            }
            s
        }),
        3 => symbol_stream(),
        1 => (0u8..16, any::<[u8; ENTRY_BYTES]>()).prop_map(|(code, payload)| StoredEntry { code, payload }),
    ]
}

/// The co-simulation inputs of the decompressor: every entry of
/// [`cosim_entries`] as stored, then 6,000 of [`decompressor_input`] (22,594
/// in all).
pub fn decompressor_cosim_inputs() -> Vec<StoredEntry> {
    let mut inputs: Vec<StoredEntry> = cosim_entries().iter().map(|e| decompress::stored(&Bpc, e)).collect();
    inputs.extend(crate::entries::sample(&decompressor_input(), 6_000, 57));
    inputs
}

// ---------------------------------------------------------------------------
// Delivered module: the registry's facts about the BPC codec modules.

/// The BPC compressor and decompressor as delivered modules.
pub mod delivered {
    use super::*;
    use crate::modules::{StreamCodec, StreamCompressor, StreamDecompressor};
    use buddy_hdl::Stages;

    /// `bpc_compressor`.
    pub fn compressor() -> StreamCompressor<BpcCompressor> {
        StreamCompressor {
            stream: StreamCodec {
                ports: COMPRESSOR_PORTS,
                stages: &["transform", "order", "runs", "packer"],
                built_stages: Some(Stages::DELIVERED),
                latency: buddy_hdl::bpc_compressor::latency(Stages::DELIVERED),
                hardware: Box::new(BpcCompressor::default),
                codec: Box::new(|| Box::new(Bpc)),
            },
            expected: Box::new(|e| Bpc.compress(e)),
            vector: Box::new(compressor_vector),
        }
    }

    /// `bpc_decompressor`. Its 34 parse stages differ only in widths: the
    /// stage list names stage 1 (class and base), stage 2 (the first plane
    /// symbol, the widest window) and stage 34 (the last).
    pub fn decompressor() -> StreamDecompressor<BpcDecompressor> {
        StreamDecompressor {
            stream: StreamCodec {
                ports: DECOMPRESSOR_PORTS,
                stages: &["p__0", "p__1", "p__33", "rebuild_sums", "rebuild_finish"],
                built_stages: Some(Stages::DELIVERED),
                latency: buddy_hdl::bpc_decompressor::latency(Stages::DELIVERED),
                hardware: Box::new(BpcDecompressor::default),
                codec: Box::new(|| Box::new(Bpc)),
            },
        }
    }
}
