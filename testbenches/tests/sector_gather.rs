//! SectorGather hardware == its cycle model in `hdl-model/`, cycle by cycle, with the
//! planner and both memories played at random (every target ratio's part
//! layout, metadata hits and misses, sectors answered out of order), and
//! every payload handed on equal to the words its read's sectors carried.

use buddy_delivery::sector_gather::run;
use buddy_delivery::stream::proptest_cases;
use buddy_hdl::request_contexts::CONTEXTS;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(12)))]

    #[test]
    fn sector_gather_equals_the_model(seed in any::<u64>(), p_read in 0.1f64..=1.0, p_sector in 0.3f64..=1.0, p_ready in 0.2f64..=1.0) {
        let r = run(seed, 1_500, p_read, p_sector, p_ready, None, None).map_err(TestCaseError::fail)?;
        prop_assert!(r.reads >= CONTEXTS, "{r:?}");
    }
}

/// Reads outpace the output port: every context fills up, reads with a
/// buddy part and reads planned in two steps both occur, and all drain.
#[test]
fn every_context_is_used_and_drains() {
    let r = run(3, 6_000, 0.9, 0.9, 0.3, None, None).unwrap();
    assert!(r.most_in_flight == CONTEXTS && r.with_buddy > 100 && r.split > 100 && r.reads > 2 * CONTEXTS, "{r:?}");
}

/// The latencies the fast engine will read from `sector_gather::timing`
/// are the hardware's.
#[test]
fn timing_constants_are_the_hardwares() {
    use buddy_hdl::sector_gather::timing;
    let (sector, close) = buddy_delivery::sector_gather::measured_latencies();
    assert_eq!((sector, close), (timing::LAST_SECTOR_TO_OUT, timing::CLOSE_TO_OUT));
}
