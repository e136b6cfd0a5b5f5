//! WritePlanner hardware == its cycle model in `hdl-model/`, cycle by cycle, under random
//! writes (runs of up to 4 sectors per port per cycle) and backpressure on every port; and every byte it writes == the
//! byte the golden slice stores there, and nothing else written (every
//! target ratio, both page sizes, every size class, compressed and
//! uncompressed pages with random sector masks).

use buddy_delivery::stream::proptest_cases;
use buddy_delivery::write_planner::run;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(16)))]

    #[test]
    fn write_planner_equals_the_model_and_golden(seed in any::<u64>(), p_job in 0.1f64..=1.0, p_ready in 0.2f64..=1.0) {
        let r = run(seed, 1_500, p_job, p_ready, None, None).map_err(TestCaseError::fail)?;
        prop_assert!(r.compressed > 0 && r.device_writes > 0, "{r:?}");
    }
}

/// Every port always ready: writes that spill to buddy-memory and
/// writes to uncompressed pages both occur, back to back, and whole
/// memory-entries go out as one run of 4 sectors.
#[test]
fn every_kind_of_write_is_stored() {
    let r = run(9, 4_000, 1.0, 1.0, None, None).unwrap();
    assert!(r.compressed > 300 && r.spilled > 100 && r.uncompressed > 30 && r.buddy_writes > 100 && r.whole_runs > 100, "{r:?}");
}

/// The latencies the fast engine will read from `write_planner::timing`
/// are the hardware's.
#[test]
fn timing_constants_are_the_hardwares() {
    use buddy_hdl::write_planner::timing;
    assert_eq!(buddy_delivery::write_planner::measured_latencies(), (timing::JOB_TO_SECTOR, timing::LAST_SECTOR_TO_DONE));
}
