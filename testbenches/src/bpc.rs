//! Adapters between the BPC hardware and the golden model: the stream
//! driver, co-simulation ports and vectors, and entry strategies that reach
//! every BPC symbol kind and every zero-run length.

use crate::cosim::CosimPorts;
use crate::zvc::compressed_fields;
use buddy_golden::bpc::PLANES;
use buddy_golden::{Bpc, Codec, MemoryEntry};
use buddy_hdl::BpcCompressor;
use proptest::prelude::*;

crate::compressor_dut!(BpcCompressor);

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

/// A base word of each class of bpc.md §4, with the class boundaries.
fn base_word() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0u32),
        (-8i32..=7).prop_map(|v| v as u32),
        prop_oneof![(-128i32..=127), Just(-129i32), Just(128), Just(-9), Just(8)].prop_map(|v| v as u32),
        prop_oneof![(-32768i32..=32767), Just(-32769i32), Just(32768)].prop_map(|v| v as u32),
        any::<u32>(),
    ]
}

/// Entries built plane by plane (bpc.md §2 backwards): a base word of any
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
