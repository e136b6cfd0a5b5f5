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
    over_n(w, t, c, x, system, lcp, 1)
}

fn over_n(w: &Workload, t: &Trace, c: &SimConfig, x: f64, system: System, lcp: Option<&[u64]>, iterations: u32) -> OversubscribedRun {
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
        iterations,
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
        iterations: 1,
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

/// A copy of the bundled workload whose snapshots lack their last
/// allocation (`Ap`, which the trace still touches), and that allocation's name.
fn bundled_without_last_allocation() -> (tempfile::TempDir, String) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/minife-small");
    let dir = tempfile::tempdir().unwrap();
    for f in ["trace.bin", "trace_meta.json"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(src.join("manifest.json")).unwrap()).unwrap();
    let mut dropped = String::new();
    for s in m["snapshots"].as_array_mut().unwrap() {
        let last = s["allocations"].as_array_mut().unwrap().pop().unwrap();
        dropped = last["name"].as_str().unwrap().to_string();
        let end = last["offset"].as_u64().unwrap() as usize;
        let file = s["file"].as_str().unwrap().to_string();
        let bytes = std::fs::read(src.join(&file)).unwrap();
        std::fs::write(dir.path().join(&file), &bytes[..end]).unwrap();
        s["file_size"] = end.into();
    }
    std::fs::write(dir.path().join("manifest.json"), serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    (dir, dropped)
}

/// ETC's capacity compression compresses the data the snapshot holds and
/// nothing else: an LCP page no snapshot allocation reaches (here an
/// allocation the snapshot lacks) takes its whole 4 KB, not the 512 bytes
/// of a page of zeros.
#[test]
fn capacity_compression_compresses_only_the_snapshot_bytes() {
    use buddy_sim::oversubscription::LCP_PAGE_BYTES;
    let (dir, dropped) = bundled_without_last_allocation();
    let (w, t) = (Workload::open(dir.path()).unwrap(), Trace::open(dir.path()).unwrap());
    let fp = Footprint::new(&w, &t, LCP_PAGE_BYTES);
    let lcp = fp.lcp_page_bytes(&w, &t);
    assert_eq!(lcp.len(), fp.touched.len());
    let mut held = vec![false; lcp.len()];
    let snap = w.snapshots().next().expect("the workload has a snapshot");
    for a in snap.allocations() {
        let id = t.meta.allocations.iter().position(|m| m.name == a.info().name).expect("snapshot allocation in the trace");
        let first = fp.layout.base[id] / LCP_PAGE_BYTES;
        let last = (fp.layout.base[id] + a.bytes().len() as u64).div_ceil(LCP_PAGE_BYTES);
        (first..last).for_each(|p| held[p as usize] = true);
    }
    let unheld_touched = (0..lcp.len()).filter(|&p| fp.touched[p] && !held[p]).count();
    assert!(unheld_touched > 0, "the trace touches no page of {dropped}, which the snapshot lacks: the test needs one");
    for p in 0..lcp.len() {
        if held[p] {
            assert!(lcp[p] <= LCP_PAGE_BYTES, "page {p}: {}", lcp[p]);
        } else {
            assert_eq!(lcp[p], LCP_PAGE_BYTES, "page {p} holds no snapshot byte");
        }
    }
    // The held data compresses (minife's sparse matrix and vectors).
    let held_bytes: u64 = (0..lcp.len()).filter(|&p| held[p]).map(|p| lcp[p]).sum();
    assert!(held_bytes < held.iter().filter(|h| **h).count() as u64 * LCP_PAGE_BYTES);
}

#[test]
fn iterations_replay_the_trace_back_to_back_and_paging_reaches_a_steady_state() {
    let (w, t) = bundled();
    let c = SimConfig::default();
    let once = over(&w, &t, &c, 0.0, System::Unlimited, None);
    let thrice = over_n(&w, &t, &c, 0.0, System::Unlimited, None, 3);
    assert_eq!((thrice.iterations, thrice.iteration_end_ns.len()), (3, 3));
    // Memory requests (L2 misses): the later iterations find some lines in the L2.
    assert!(thrice.requests > 2 * once.requests && thrice.requests <= 3 * once.requests, "{} vs {}", thrice.requests, once.requests);
    assert_eq!(thrice.iteration_end_ns[2], thrice.time_ns);
    // Each iteration takes about as long as one alone (the L2 is warm after
    // the first); none is free.
    let mut last = 0.0;
    for (k, end) in thrice.iteration_end_ns.iter().enumerate() {
        let took = end - last;
        assert!(took > 0.5 * once.time_ns && took < 1.5 * once.time_ns, "iteration {k}: {took} ns against {} ns", once.time_ns);
        last = *end;
    }
    // Oversubscribed, every iteration pages again (the trace touches every
    // page each time and they do not all fit): faults grow with iterations.
    let um1 = over_n(&w, &t, &c, 0.5, UM, None, 1);
    let um3 = over_n(&w, &t, &c, 0.5, UM, None, 3);
    let (f1, f3) = (um1.paging.unwrap().faults, um3.paging.unwrap().faults);
    assert!(f3 >= 2 * f1, "{f1} faults in one iteration, {f3} in three");
    // With room for the footprint nothing faults however long the run.
    assert_eq!(over_n(&w, &t, &c, 0.0, UM, None, 3).paging.unwrap().faults, 0);
    let zero = OversubscribedInput {
        workload: &w,
        trace: &t,
        config: &c,
        oversubscription: 0.0,
        system: System::Unlimited,
        algorithm: Algorithm::Bpc,
        targets: vec![TargetRatio::X2; w.manifest().snapshots[0].allocations.len()],
        lcp_page_bytes: None,
        iterations: 0,
    };
    assert!(run_oversubscribed(&zero).is_err());
}
