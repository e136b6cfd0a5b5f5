//! Trace accesses per second of the memory system in fast mode, on the
//! bundled miniFE trace (112,000 accesses), one core. The baseline in the
//! same run is the trace driver alone (the L2 that turns accesses into
//! memory requests), so the ratio shows what the controllers, the codecs
//! and the timing models cost on top. Run: `cargo bench -p buddy-sim` (or `make bench`).

use buddy_golden::Algorithm;
use buddy_sim::l2_cache::L2Config;
use buddy_sim::mdcache_study::l2_requests;
use buddy_sim::config::SimConfig;
use buddy_sim::memory_system::{run, Mode, SimInput};
use buddy_sim::trace::{AddressLayout, Trace, DEFAULT_HEAP_BASE};
use buddy_sim::Workload;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small");
    let workload = Workload::open(&dir).expect("bundled workload");
    let trace = Trace::open(&dir).expect("bundled trace");
    let config = SimConfig::default();
    let mut g = c.benchmark_group("fast_mode");
    g.throughput(Throughput::Elements(trace.accesses.len() as u64));
    g.sample_size(20);
    let order: Vec<(String, u64)> = workload.manifest().snapshots[0].allocations.iter().map(|a| (a.name.clone(), a.size)).collect();
    let layout = AddressLayout::new(&trace.meta, &order, DEFAULT_HEAP_BASE, config.page_bytes());
    g.bench_function("trace_driver_only", |b| b.iter(|| black_box(l2_requests(&trace, &layout, L2Config::default()).unwrap())));
    for mode in Mode::ALL {
        g.bench_function(mode.name(), |b| {
            b.iter(|| {
                let input = SimInput {
                    workload: &workload,
                    trace: &trace,
                    targets: None,
                    snapshot: 0,
                    algorithm: Algorithm::Bpc,
                    mode,
                    config: &config,
                    corrupt_first_entry: false,
                    progress: None,
                    rtl: None,
                    iterations: 1,
                };
                black_box(run(&input).unwrap())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
