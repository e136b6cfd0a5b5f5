//! Input generators shared by the equivalence tests: proptest strategies
//! that reach every size class, and the bundled real snapshot.

use buddy_golden::{MemoryEntry, SizeClass, ENTRY_BYTES};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};

/// A non-zero word: small, one bit, all ones, or random.
pub fn nonzero_word() -> impl Strategy<Value = u32> {
    prop_oneof![1u32..256, (0u32..32).prop_map(|b| 1 << b), Just(u32::MAX), any::<u32>().prop_map(|w| w.max(1))]
}

/// Entries with a chosen number of non-zero words at random positions; the
/// counts around the class boundaries of ZVC (0, 1, 3, 7, 15, 19, 23, 24, 32)
/// are drawn more often.
pub fn sparse_entry() -> impl Strategy<Value = MemoryEntry> {
    let count = prop_oneof![
        2 => 0usize..=32,
        1 => proptest::sample::select(vec![0usize, 1, 2, 3, 4, 7, 8, 15, 16, 19, 20, 23, 24, 25, 32]),
    ];
    (count, proptest::collection::vec(nonzero_word(), 32), Just((0..32).collect::<Vec<usize>>()).prop_shuffle()).prop_map(
        |(n, values, order)| {
            let mut words = [0u32; 32];
            for &i in &order[..n] {
                words[i] = values[i];
            }
            MemoryEntry::from_words(words)
        },
    )
}

/// The bundled real workload folder (`data/minife-small`).
pub fn bundled_workload() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small")
}

/// Every 128-byte entry of every snapshot file (`snap_*.bin`) in `dir`, in
/// file order.
///
/// # Panics
/// When the folder has no snapshot or a file is not a whole number of
/// entries: the test data are broken.
pub fn snapshot_entries(dir: &Path) -> Vec<MemoryEntry> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("snap_") && p.extension().is_some_and(|x| x == "bin"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no snapshot files in {}", dir.display());
    let mut out = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        assert_eq!(bytes.len() % ENTRY_BYTES, 0, "{} is not a whole number of entries", f.display());
        out.extend(bytes.chunks_exact(ENTRY_BYTES).map(|c| MemoryEntry::from_slice(c).unwrap()));
    }
    out
}

/// Words of stream capacity after the mask for each compressed ZVC class.
pub fn zvc_capacity_words(class: SizeClass) -> usize {
    (class.bytes() * 8).saturating_sub(32) / 32
}

/// `n` random entries from `seed`: each entry draws a probability `p` in
/// [0, 1] and each of its words is zero with probability `p`, else random,
/// so that every size class occurs.
pub fn random_entries(n: usize, seed: u64) -> Vec<MemoryEntry> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let p_zero = rng.gen_range(0.0..=1.0);
            MemoryEntry::from_words(std::array::from_fn(|_| if rng.gen_bool(p_zero) { 0 } else { rng.gen() }))
        })
        .collect()
}

/// The MAG-BDI delta widths of every MAG (docs/formats.md#mag-bdi).
pub const MAG_DELTA_WIDTHS: [u32; 7] = [2, 6, 10, 14, 18, 22, 26];

/// Entries concentrated on MAG-BDI's delta-width boundaries.
///
/// Each entry picks a width `d` (mostly a MAG-BDI width, sometimes any of
/// 1..=28), a base `B` placed at a random word `p`, and fills the other
/// words with zeros, values inside `[-2^(d-1), 2^(d-1))` of the zero base or
/// of `B`, the four boundary values `2^(d-1) - 1`, `2^(d-1)`, `-2^(d-1)`,
/// `-2^(d-1) - 1` relative to either base, or (rarely) random words. Words
/// before `p` use the zero base only, so `B` is usually the hardware's
/// first failing word. Units one width step apart then succeed or fail by
/// one word.
pub fn mag_boundary_entry() -> impl Strategy<Value = MemoryEntry> {
    let width = prop_oneof![3 => proptest::sample::select(MAG_DELTA_WIDTHS.to_vec()), 1 => 1u32..=28];
    let base = prop_oneof![any::<u32>(), (0u32..=28).prop_map(|b| 1u32 << b), Just(0x8000_0000u32), Just(0x7fff_ffffu32)];
    let kinds = proptest::collection::vec((0u8..16, any::<u32>(), 0u8..4), 32);
    (width, base, 0usize..32, kinds).prop_map(|(d, base, p, kinds)| {
        let half = 1u32 << (d - 1);
        let boundary = [half - 1, half, half.wrapping_neg(), half.wrapping_neg().wrapping_sub(1)];
        let mut words = [0u32; 32];
        for (i, &(kind, r, b)) in kinds.iter().enumerate() {
            let kind = if i < p { kind % 6 } else { kind };
            let in_range = (r % (2 * half)).wrapping_sub(half);
            words[i] = match kind {
                0 | 1 => 0,
                2 | 3 => in_range,
                4 | 5 => boundary[b as usize],
                6..=8 => base.wrapping_add(in_range),
                9..=12 => base.wrapping_add(boundary[b as usize]),
                13 | 14 => base,
                _ => r,
            };
        }
        words[p] = base;
        MemoryEntry::from_words(words)
    })
}

/// `n` values of `strategy`, reproducibly from `seed` (for co-simulation
/// vector files, which are not proptest cases).
pub fn sample<S: Strategy>(strategy: &S, n: usize, seed: u64) -> Vec<S::Value> {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes));
    (0..n).map(|_| strategy.new_tree(&mut runner).expect("strategy without filters").current()).collect()
}
