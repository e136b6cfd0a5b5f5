//! Requests per second of the HBM2 model on the DRAMsim3 reference streams
//! (`shared/ref/dram/`, 32 channels, one core): a streaming one (a_seq),
//! a saturating random one (b_rnd), a lightly loaded random one
//! (b_rnd_light), a mix with writes (c_mix) and a local one (d_loc). The baseline in the same run is reading the records into
//! per-channel requests alone. Run: `cargo bench -p buddy-sim --bench hbm`.

use buddy_sim::config::SimConfig;
use buddy_sim::memory_system::dram::stream::{read_stream, run_stream};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/ref/dram");
    let config = SimConfig::default();
    let mut g = c.benchmark_group("hbm2_model");
    g.sample_size(10);
    for name in ["a_seq", "b_rnd", "b_rnd_light", "c_mix", "d_loc"] {
        let path = dir.join(format!("{name}.bin.gz"));
        let Ok(stream) = read_stream(&path, &config) else {
            eprintln!("skipping {name}: {} is missing", path.display());
            continue;
        };
        g.throughput(Throughput::Elements(stream.len() as u64));
        g.bench_function(format!("{name}_copy_only"), |b| b.iter(|| black_box(stream.iter().map(|s| s.arrival).sum::<u64>())));
        g.bench_function(name, |b| b.iter(|| black_box(run_stream(&stream, &config))));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
