//! The `BuddyController` slice (rust-hdl) against the fast-mode controller
//! (golden models): same responses, same memory traffic counters, same
//! memory contents, in every mode and with every algorithm; and with the
//! fast mode's hardware timing, the same completion cycle of every request.

use buddy_delivery::controller::{compare_engines, mixed_entries, run_scenario, run_scenario_with, RtlSetup};
use buddy_delivery::entries::{bundled_workload, snapshot_entries};
use buddy_golden::{HardwareCodec, Mag, MemoryEntry};
use buddy_sim::memory_system::Mode;

fn entries(seed: u64) -> Vec<MemoryEntry> {
    mixed_entries(&snapshot_entries(&bundled_workload()), seed)
}

fn check_all_modes(algorithm: HardwareCodec, requests: usize, seed: u64) {
    let e = entries(seed);
    for mode in Mode::ALL {
        let (fast, rtl) = compare_engines(mode, algorithm, &e, requests, seed).unwrap_or_else(|m| panic!("{algorithm}: {m}"));
        let o = &rtl.observed;
        assert_eq!(o.responses.len(), requests);
        assert!(o.controller.writes > 0 && o.controller.partial_writes > 0 && o.controller.reads > 0);
        match mode {
            Mode::Uncompressed => assert_eq!(o.metadata.reads + o.metadata.writes, 0),
            Mode::BandwidthOnly => assert!(o.metadata.line_misses > 0 && o.metadata.write_backs > 0, "{:?}", o.metadata),
            Mode::Buddy => {
                assert!(o.link[0] > 0 && o.link[2] > 0, "buddy reads and writes: {:?}", o.link);
                assert!(o.responses.iter().any(|r| r.1) && o.responses.iter().any(|r| !r.1));
            }
        }
        assert!(fast.end_ps > 0 && rtl.end_ps > 0);
    }
}

#[test]
fn bpc_slice_equals_fast_mode_in_every_mode() {
    check_all_modes(HardwareCodec::Bpc, 600, 1);
}

#[test]
fn zvc_slice_equals_fast_mode_in_every_mode() {
    check_all_modes(HardwareCodec::Zvc, 1000, 2);
}

#[test]
fn mag_bdi_slice_equals_fast_mode_in_every_mode() {
    check_all_modes(HardwareCodec::MagBdi(Mag::B32), 600, 3);
}

#[test]
fn jumping_over_memory_waits_changes_nothing() {
    let e = entries(4);
    let jump = run_scenario(Mode::Buddy, HardwareCodec::Zvc, &e, 300, 4, true, 0).unwrap();
    let setup = RtlSetup { no_skip: true, ..Default::default() };
    let every = run_scenario_with(Mode::Buddy, HardwareCodec::Zvc, &e, 300, 4, Some(setup)).unwrap();
    assert_eq!(jump.observed, every.observed);
    assert_eq!(jump.end_ps, every.end_ps);
}

#[test]
fn vcd_has_a_scope_per_module() {
    let e = entries(5);
    let path = std::env::temp_dir().join(format!("buddy-controller-{}.vcd", std::process::id()));
    let file = std::fs::File::create(&path).unwrap();
    let setup = RtlSetup { vcd: Some(Box::new(std::io::BufWriter::new(file))), ..Default::default() };
    run_scenario_with(Mode::Buddy, HardwareCodec::Zvc, &e, 40, 5, Some(setup)).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    for scope in ["translator", "md", "comp", "decomp", "dev_place", "buddy_pick"] {
        assert!(text.contains(&format!("$scope module {scope} $end")), "no scope {scope}");
    }
    assert!(text.contains("dev_req_valid") && text.matches('#').count() > 100);
}
