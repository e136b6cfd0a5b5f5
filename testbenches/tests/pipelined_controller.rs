//! The pipelined controller slice (reads so far) answers every read as the
//! golden slice does, with many reads in flight and memories that answer
//! sectors in any order: every target ratio, uncompressed pages,
//! never-written entries, a reserved size nibble, translation faults.

use buddy_testbenches::pipelined_controller::run;
use buddy_testbenches::stream::proptest_cases;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(6)))]

    #[test]
    fn pipelined_slice_reads_equal_golden(seed in any::<u64>(), p_request in 0.2f64..=1.0, p_ready in 0.3f64..=1.0, max_latency in 1u64..60) {
        let r = run(seed, 300, p_request, p_ready, max_latency).map_err(TestCaseError::fail)?;
        prop_assert!(r.reads > 200 && r.faults > 0, "{r:?}");
    }
}

/// A long memory latency and a busy requester: many reads in flight at
/// once, answered out of request order.
#[test]
fn many_reads_overlap() {
    let r = run(3, 1_000, 1.0, 1.0, 100).unwrap();
    assert!(r.most_in_flight >= 16 && r.out_of_order > 100 && r.decode_errors > 0, "{r:?}");
}
