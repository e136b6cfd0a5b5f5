//! MemoryPort hardware == its cycle model in `hdl-model/`, cycle by cycle, with the
//! metadata cache, both planners and an out-of-order memory played at
//! random; end to end, every request reaches memory once with its data,
//! every fill reaches the cache in the order asked (with the sector memory
//! holds), every data sector its context.

use buddy_delivery::memory_port::run;
use buddy_delivery::stream::proptest_cases;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(16)))]

    #[test]
    fn memory_port_equals_the_model(seed in any::<u64>(), p_request in 0.1f64..=1.0, p_ready in 0.2f64..=1.0) {
        let r = run(seed, 2_000, p_request, p_ready, None, None).map_err(TestCaseError::fail)?;
        prop_assert!(r.fills > 0 && r.reads > 0 && r.writes > 0, "{r:?}");
    }
}

/// Busy requesters and a slow, reordering memory: fills are answered out
/// of order and still reach the cache in order.
#[test]
fn fills_answered_out_of_order_reach_the_cache_in_order() {
    let r = run(11, 5_000, 0.4, 0.7, None, None).unwrap();
    assert!(r.fills > 300 && r.fills_out_of_order > 50 && r.write_backs > 100 && r.reads > 300, "{r:?}");
}

/// The latency the fast engine will read from `memory_port::timing` is
/// the hardware's.
#[test]
fn timing_constant_is_the_hardwares() {
    use buddy_hdl::memory_port::timing;
    assert_eq!(buddy_delivery::memory_port::measured_fill_latency(), timing::FILL_TO_CACHE);
}
