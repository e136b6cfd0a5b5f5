//! The pipelined controller slice answers every request as the golden
//! slice does (golden serving them in request order), with many requests
//! in flight and memories that answer sectors in any order, and leaves
//! memory as golden does: every target ratio, uncompressed pages,
//! never-written entries, a reserved size nibble, translation faults, full
//! and partial writes, a final flush.

use buddy_delivery::pipelined_controller::{run, run_in, Layout};
use buddy_delivery::stream::proptest_cases;
use buddy_golden::{HardwareCodec, Mag};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(6)))]

    #[test]
    fn pipelined_slice_equals_golden(seed in any::<u64>(), p_request in 0.2f64..=1.0, p_ready in 0.3f64..=1.0, max_latency in 1u64..60) {
        let r = run(HardwareCodec::Bpc, seed, 300, 0.4, p_request, p_ready, max_latency).map_err(TestCaseError::fail)?;
        prop_assert!(r.reads > 100 && r.writes > 20 && r.partial_writes > 20 && r.faults > 0, "{r:?}");
    }
}

/// Reads only, a long memory latency and a busy requester: many reads in
/// flight at once, answered out of request order, whole memory-entries
/// read as one run of 4 sectors; RAW and ZERO entries answered past BPC's
/// 37-cycle decompressor. A ZERO read is timed from its lookup's answer,
/// so it also waits for the planner and the gather's one answer per cycle
/// (lowest context first) behind other reads: since both parts of a read
/// go in one plan (issue #48's twelfth step) 1 of this run's 162 took 37
/// cycles. Through the decompressor every one would take 37 or more.
#[test]
fn many_reads_overlap() {
    let r = run(HardwareCodec::Bpc, 3, 1_000, 0.0, 1.0, 1.0, 100).unwrap();
    assert!(r.most_in_flight >= 16 && r.out_of_order > 100 && r.decode_errors > 0 && r.whole_runs > 100 && r.past_decompressor > 50, "{r:?}");
    assert!(r.zero_reads > 20 && r.zero_past_decompressor * 20 >= r.zero_reads * 19, "{r:?}");
}

/// Reads and writes of few memory-entries, memory slow: writes go while
/// reads of their entry are in flight once those reads' memory reads are
/// taken (the same-entry guard), and every read still answers the entry
/// as it was before the write (golden, in request order). Memory is often
/// not ready, so reads wait in the read planner while the memory port
/// gives later writes priority: opening the entry when the planner takes
/// the read's job instead (measured) fails here with a stale answer.
#[test]
fn writes_pass_reads_whose_memory_reads_are_taken() {
    let r = run(HardwareCodec::Bpc, 21, 2_000, 0.4, 1.0, 0.5, 60).unwrap();
    assert!(r.writes_past_reads > 20 && r.reads > 800, "{r:?}");
}

/// Reads and writes, half of them to 4 entries of an uncompressed page:
/// a write is taken while an earlier write of its entry is in flight once
/// the write planner has taken that one (the same-entry guard lets it
/// pass), and every answer and memory after the flush are still golden's.
#[test]
fn writes_pass_planned_writes_of_uncompressed_pages() {
    let r = run_in(Layout::Hot, HardwareCodec::Bpc, 31, 1_500, 0.6, 1.0, 0.5, 40).unwrap();
    assert!(r.writes_past_writes > 50 && r.reads > 300, "{r:?}");
}

/// Writes only (full and partial, compressed and uncompressed pages),
/// then a flush: memory ends as golden's; whole memory-entries are
/// written as one run of 4 sectors, and a write to an uncompressed page
/// is taken while an earlier write of its entry is in flight (stored by
/// the write planner: the same-entry guard lets it pass).
#[test]
fn writes_store_what_golden_stores() {
    let r = run(HardwareCodec::Bpc, 4, 600, 1.0, 0.8, 0.7, 40).unwrap();
    assert!(r.writes > 200 && r.partial_writes > 200 && r.reads == 0 && r.whole_writes > 50, "{r:?}");
}

/// The ZVC and MAG-BDI slices (every MAG) answer and store as golden does.
#[test]
fn zvc_and_mag_bdi_slices_equal_golden() {
    for (k, algorithm) in
        [HardwareCodec::Zvc, HardwareCodec::MagBdi(Mag::B16), HardwareCodec::MagBdi(Mag::B32), HardwareCodec::MagBdi(Mag::B64)]
            .into_iter()
            .enumerate()
    {
        let r = run(algorithm, 10 + k as u64, 300, 0.4, 0.8, 0.7, 30).unwrap();
        assert!(r.reads > 100 && r.writes > 20 && r.partial_writes > 20, "{algorithm:?}: {r:?}");
    }
}

/// The co-simulation port list of each delivered slice is its lock-step
/// output list (written twice: with and without qualifiers).
#[test]
fn cosim_ports_are_the_lockstep_ports() {
    use buddy_delivery::pipelined_controller::{ports, LOCKSTEP_INPUTS, LOCKSTEP_OUTPUTS};
    let p = ports(HardwareCodec::Bpc);
    assert_eq!(p.inputs, LOCKSTEP_INPUTS);
    let outputs: Vec<(&str, usize)> = LOCKSTEP_OUTPUTS.iter().map(|&(n, w, _)| (n, w)).collect();
    assert_eq!(p.outputs, &outputs[..]);
}

/// Metadata line misses, dirty victims written back, and victims pinned by
/// writes in flight (14 pages whose metadata lines share two sets): the
/// slice still answers and stores as golden does, and never hangs.
///
/// A regression test of a deadlock the slice had when K0 committed writes
/// in the order the write planner finished them: a full write overtook an
/// earlier partial write there, its reservation was a line miss whose
/// victim the partial write had pinned, and the partial write's commit
/// waited behind it in K0 (seed 21 hung at cycle 619).
#[test]
fn metadata_line_misses_and_pinned_victims() {
    for (seed, latency) in [(21, 60), (22, 5), (23, 150)] {
        let r = run_in(Layout::Spread, HardwareCodec::Bpc, seed, 600, 0.5, 1.0, 1.0, latency).unwrap();
        assert!(r.reads > 200 && r.writes + r.partial_writes > 200 && r.line_misses > 100, "{r:?}");
    }
}
