//! Unified Memory, ETC and Buddy Compression with device memory smaller
//! than the footprint, on the bundled workload's real trace
//! (`buddy_sim::oversubscription`).

use std::path::Path;

use buddy_golden::translation::TargetRatio;
use buddy_golden::Algorithm;
use buddy_sim::memory_system::config::SimConfig;
use buddy_sim::memory_system::{run, Mode, SimInput};
use buddy_sim::oversubscription::classifier::Techniques;
use buddy_sim::oversubscription::{lcp_page_bytes, run_oversubscribed, OversubscribedInput, OversubscribedRun, System};
use buddy_sim::trace::Trace;
use buddy_sim::Workload;

fn bundled() -> (Workload, Trace) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small");
    (Workload::open(&p).unwrap(), Trace::open(&p).unwrap())
}

fn over(w: &Workload, t: &Trace, c: &SimConfig, x: f64, system: System, lcp: Option<&[u64]>) -> OversubscribedRun {
    let targets = vec![TargetRatio::X2; w.manifest().snapshots[0].allocations.len()];
    run_oversubscribed(&OversubscribedInput {
        workload: w,
        trace: t,
        config: c,
        oversubscription: x,
        system,
        algorithm: Algorithm::Bpc,
        targets,
        lcp_page_bytes: lcp,
    })
    .unwrap()
}

const UM: System = System::UnifiedMemory(Techniques { proactive_eviction: false, throttling: false, capacity_compression: false });

#[test]
fn one_sm_running_one_block_is_the_in_order_replay_of_buddy_sim() {
    let (w, t) = bundled();
    let mut c = SimConfig::default();
    (c.um.sms, c.um.thread_blocks) = (1, 1);
    let o = over(&w, &t, &c, 0.0, System::Unlimited, None);
    let r = run(&SimInput {
        workload: &w,
        trace: &t,
        targets: None,
        snapshot: 0,
        algorithm: Algorithm::Bpc,
        mode: Mode::Uncompressed,
        config: &c,
        progress: None,
        corrupt_first_entry: false,
        rtl: None,
    })
    .unwrap();
    assert_eq!((o.time_ns, o.requests, o.checked_reads), (r.time_ns, r.requests, r.checked_reads));
}

#[test]
fn um_with_memory_for_the_footprint_never_faults_and_runs_as_fast_as_unlimited() {
    let (w, t) = bundled();
    let c = SimConfig::default();
    let base = over(&w, &t, &c, 0.0, System::Unlimited, None);
    let um = over(&w, &t, &c, 0.0, UM, None);
    assert_eq!(um.paging.unwrap().faults, 0);
    assert_eq!(um.time_ns, base.time_ns);
    assert!(base.checked_reads > 0);
}

#[test]
fn oversubscribed_um_faults_and_etc_and_buddy_lose_less() {
    let (w, t) = bundled();
    let c = SimConfig::default();
    let base = over(&w, &t, &c, 0.0, System::Unlimited, None);
    let um = over(&w, &t, &c, 0.5, UM, None);
    let p = um.paging.unwrap();
    assert!(p.faults > 0 && p.evictions > 0, "{p:?}");
    // Every fault costs at least the handler's 20 us.
    assert!(um.time_ns >= base.time_ns + 20_000.0, "{} vs {}", um.time_ns, base.time_ns);
    assert_eq!(p.bytes_in, p.faults * (64 << 10));
    let lcp = lcp_page_bytes(&w, &t, 0, 64 << 10);
    eprintln!("base {:.0} ns, UM {:.0} ns {p:?}", base.time_ns, um.time_ns);
    for techniques in [
        Techniques { proactive_eviction: true, throttling: false, capacity_compression: false },
        Techniques { proactive_eviction: false, throttling: true, capacity_compression: false },
        Techniques { proactive_eviction: false, throttling: false, capacity_compression: true },
    ] {
        let r = over(&w, &t, &c, 0.5, System::UnifiedMemory(techniques), Some(&lcp));
        eprintln!("{}: {:.0} ns {:?} {:?} ratio {:.3} md {}", r.system, r.time_ns, r.paging, r.throttle, r.compression_ratio, r.metadata_accesses);
    }
    let b = over(&w, &t, &c, 0.5, System::Buddy, None);
    eprintln!("buddy {:.0} ns ratio {:.3} buddy% {:.3}", b.time_ns, b.compression_ratio, b.buddy_access_fraction);
    assert!(b.paging.is_none() && b.compression_ratio >= 1.5);
    assert!(b.time_ns < um.time_ns);
}

#[test]
fn um_with_room_for_one_page_still_finishes() {
    // Sixteen SMs and one frame: every SM's page evicts the others', but an
    // access whose page has arrived goes ahead, so the replay ends.
    let (w, t) = bundled();
    let c = SimConfig::default();
    let base = over(&w, &t, &c, 0.0, System::Unlimited, None);
    let pages = base.footprint_bytes / (64 << 10);
    assert!(pages > 2, "{pages}");
    let um = over(&w, &t, &c, (pages - 1) as f64, UM, None);
    assert_eq!(um.device_memory_bytes, 64 << 10);
    let p = um.paging.unwrap();
    assert!(p.faults >= pages && p.evictions + 1 >= p.faults, "{p:?}");
    assert!(um.checked_reads > 0);
}
