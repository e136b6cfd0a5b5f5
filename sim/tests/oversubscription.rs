//! Unified Memory, ETC and Buddy Compression with device memory smaller
//! than the footprint, on the bundled workload's real trace
//! (`buddy_sim::oversubscription`).

use std::path::Path;

use buddy_golden::translation::TargetRatio;
use buddy_golden::Algorithm;
use buddy_sim::config::SimConfig;
use buddy_sim::memory_system::{run, Mode, SimInput};
use buddy_sim::oversubscription::classifier::Techniques;
use buddy_sim::oversubscription::{run_oversubscribed, Footprint, OversubscribedInput, OversubscribedRun, System};
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
fn oversubscribed_um_faults_and_each_technique_and_buddy_do_what_they_are_for() {
    let (w, t) = bundled();
    let c = SimConfig::default();
    let base = over(&w, &t, &c, 0.0, System::Unlimited, None);
    let um = over(&w, &t, &c, 0.5, UM, None);
    let p = um.paging.unwrap();
    assert!(p.faults > 0 && p.evictions > 0, "{p:?}");
    // Every fault costs at least the handler's 20 us.
    assert!(um.time_ns >= base.time_ns + 20_000.0, "{} vs {}", um.time_ns, base.time_ns);
    assert_eq!(p.bytes_in, p.faults * (64 << 10));
    let lcp = Footprint::new(&w, &t, 64 << 10).lcp_page_bytes(&w, &t);
    let with = |pe, mt, cc| {
        over(
            &w,
            &t,
            &c,
            0.5,
            System::UnifiedMemory(Techniques { proactive_eviction: pe, throttling: mt, capacity_compression: cc }),
            Some(&lcp),
        )
    };
    // PE: no migration waits for an eviction any more.
    assert!(p.eviction_wait_ps > 0);
    let pe = with(true, false, false).paging.unwrap();
    assert!(pe.proactive_evictions > 0 && pe.eviction_wait_ps == 0, "{pe:?}");
    // MT: faults with evictions throttle SMs.
    let mt = with(false, true, false);
    assert!(mt.throttle.unwrap().throttles > 0 && mt.throttle.unwrap().min_active < 16, "{:?}", mt.throttle);
    // CC: LCP pages take less memory, so fewer faults and less time.
    let cc = with(false, false, true);
    assert!(cc.compression_ratio > 1.0 && cc.metadata_accesses > 0);
    assert!(cc.paging.unwrap().faults < p.faults && cc.time_ns < um.time_ns, "{:?} vs {p:?}", cc.paging);
    let b = over(&w, &t, &c, 0.5, System::Buddy, None);
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
