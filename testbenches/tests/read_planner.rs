//! ReadPlanner hardware == its cycle model in `hdl-model/`, cycle by cycle, under random
//! jobs and backpressure on every port; and every plan and sector request
//! it hands on == what the golden translation says the read needs (every
//! target ratio, both page sizes, compressed and uncompressed pages, every
//! size class, metadata hits and misses).

use buddy_delivery::read_planner::run;
use buddy_delivery::stream::proptest_cases;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(24)))]

    #[test]
    fn read_planner_equals_the_model_and_golden(seed in any::<u64>(), p_job in 0.1f64..=1.0, p_ready in 0.2f64..=1.0) {
        let r = run(seed, 2_000, p_job, p_ready, None, None).map_err(TestCaseError::fail)?;
        prop_assert!(r.full > 0 && r.plans > 0, "{r:?}");
    }
}

/// Every port always ready: jobs of every kind, spilled reads, and the
/// back-to-back acceptance the documentation promises.
#[test]
fn every_kind_of_job_is_planned() {
    let r = run(5, 5_000, 1.0, 1.0, None, None).unwrap();
    assert!(r.full > 300 && r.slots > 100 && r.finishes == r.slots && r.buddy_sectors > 100, "{r:?}");
}

/// The latencies the fast engine will read from `read_planner::timing`
/// are the hardware's.
#[test]
fn timing_constants_are_the_hardwares() {
    use buddy_hdl::read_planner::timing;
    assert_eq!(buddy_delivery::read_planner::measured_latencies(), (timing::JOB_TO_PLAN, timing::PLAN_TO_SECTOR));
}
