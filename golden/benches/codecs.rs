//! Compress and decompress throughput of every golden codec, in bytes of
//! uncompressed data per second on one core, on the bundled real snapshots
//! and on random entries. Run: `cargo bench -p buddy-golden` (or `make bench`).

use buddy_golden::{Algorithm, CompressedEntry, MemoryEntry, ENTRY_BYTES};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use std::hint::black_box;

fn snapshot_entries() -> Vec<MemoryEntry> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small");
    let mut out = Vec::new();
    for f in ["snap_00.bin", "snap_05.bin"] {
        let bytes = std::fs::read(dir.join(f)).expect("bundled snapshot");
        out.extend(bytes.chunks_exact(ENTRY_BYTES).map(|c| MemoryEntry::from_slice(c).unwrap()));
    }
    out
}

fn random_entries(n: usize) -> Vec<MemoryEntry> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
    (0..n)
        .map(|_| {
            let p_zero: f64 = rng.gen_range(0.0..=1.0);
            MemoryEntry::from_words(std::array::from_fn(|_| if rng.gen_bool(p_zero) { 0 } else { rng.gen() }))
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let inputs = [("snapshot", snapshot_entries()), ("random", random_entries(8192))];
    for algorithm in Algorithm::ALL {
        let codec = algorithm.codec();
        for (name, entries) in &inputs {
            let mut group = c.benchmark_group(format!("{algorithm}/{name}"));
            group.throughput(Throughput::Bytes((entries.len() * ENTRY_BYTES) as u64));
            group.bench_function("compress", |b| {
                b.iter(|| {
                    let mut stored = 0usize;
                    for e in entries {
                        stored += codec.compress(black_box(e)).class.bytes();
                    }
                    stored
                })
            });
            let compressed: Vec<CompressedEntry> = entries.iter().map(|e| codec.compress(e)).collect();
            group.bench_function("decompress", |b| {
                b.iter_batched(
                    || (),
                    |()| {
                        let mut acc = 0u32;
                        for c in &compressed {
                            acc ^= codec.decompress(c.class, black_box(c.stored())).unwrap().words()[31];
                        }
                        acc
                    },
                    BatchSize::SmallInput,
                )
            });
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(2)).warm_up_time(std::time::Duration::from_millis(500));
    targets = bench
}
criterion_main!(benches);
