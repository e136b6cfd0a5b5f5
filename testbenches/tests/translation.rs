//! AddressTranslator hardware == golden translation: rust-hdl simulation of
//! 100,000 random accesses under random stalls, coverage of the generator,
//! latency/II, and a VCD read back.

use buddy_delivery::stream::proptest_cases;
use buddy_delivery::stream::{run_stream, Traffic};
use buddy_delivery::translation::{expected_translation, random_accesses, random_registers, Access, Translated};
use buddy_golden::translation::{PageSize, Pte};
use buddy_hdl::address_translator::fault;
use buddy_hdl::AddressTranslator;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

proptest! {
    // 100 runs of 1,000 accesses: 100,000 accesses, each run with its own
    // random registers and stall rates on both ports.
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(100)))]

    #[test]
    fn translator_equals_golden(seed in any::<u64>(), p_valid in 0.3f64..=1.0, p_ready in 0.3f64..=1.0) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let accesses = random_accesses(1_000, &mut rng);
        let expected: Vec<Translated> = accesses.iter().map(expected_translation).collect();
        let mut dut = AddressTranslator::default();
        let run = run_stream(&mut dut, &accesses, Traffic { p_valid, p_ready }, &mut rng, 20_000, None);
        prop_assert_eq!(run.outputs.len(), expected.len());
        for (i, (got, want)) in run.outputs.iter().zip(&expected).enumerate() {
            prop_assert_eq!(got, want, "access {}: {:?}", i, accesses[i]);
        }
    }
}

/// The random accesses are not vacuous: over 20,000 of them every fault
/// code appears, fitting and spilling entries on every target, metadata in
/// both nibbles, and buddy slots ending exactly at the carve-out's end.
#[test]
fn random_accesses_reach_every_case() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut faults = [0usize; 5];
    let (mut fits, mut spills, mut high, mut low, mut at_end) = ([0usize; 5], [0usize; 5], 0, 0, 0);
    for _ in 0..20 {
        for a in random_accesses(1_000, &mut rng) {
            let t = expected_translation(&a);
            faults[t.fault as usize] += 1;
            if t.fault != 0 || !a.pte.compressed {
                continue;
            }
            let target = a.pte.target_code as usize;
            if t.buddy.is_some() {
                spills[target] += 1
            } else {
                fits[target] += 1
            }
            if t.metadata.unwrap().1 {
                high += 1
            } else {
                low += 1
            }
            let stride = buddy_golden::translation::TargetRatio::from_code(a.pte.target_code).unwrap().buddy_stride();
            let e = (a.va % a.page.bytes()) / 128;
            let end = a.regs.gbbr + a.pte.buddy_offset as u64 * (a.page.bytes() / 4) + (e + 1) * stride;
            if stride > 0 && end == a.regs.gbbr + a.regs.carve_out_bytes {
                at_end += 1;
            }
        }
    }
    assert!(faults.iter().all(|&n| n > 100), "faults per code: {faults:?}");
    assert!(fits.iter().all(|&n| n > 50), "fitting per target: {fits:?}");
    assert!(spills[1..].iter().all(|&n| n > 50), "spilling per target: {spills:?}");
    assert!(high > 1000 && low > 1000);
    assert!(at_end > 0, "no slot ends exactly at the carve-out's end");
}

/// Worked example `translation-2x` of docs/formats.md#addresses through the hardware: entry 3 of a
/// 2x page, class B96: 64 device bytes, 32 buddy bytes, odd entry.
#[test]
fn worked_example_through_the_hardware() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut regs = random_registers(&mut rng);
    regs.gbbr = 0x1_0000_0000;
    regs.carve_out_bytes = 3 << 30;
    regs.heap_base = 0x7f00_0000_0000;
    let pte = Pte { frame: 0x20_0000, compressed: true, target_code: 2, buddy_offset: 5 };
    let va = regs.heap_base + 2 * (2 << 20) + 3 * 128 + 17;
    let access = Access { regs, page: PageSize::Huge2M, pte, va, class_code: 6 };
    let reserved = Access { class_code: 12, ..access };
    let run = run_stream(&mut AddressTranslator::default(), &[access, reserved], Traffic::FULL, &mut rng, 100, None);
    let rel = va - regs.heap_base;
    assert_eq!(
        run.outputs,
        vec![
            Translated {
                fault: 0,
                device_address: 0x20_0000 + 3 * 64,
                device_bytes: 64,
                device_part_bytes: 64,
                buddy: Some((0x1_0000_0000 + 5 * (512 << 10) + 3 * 64, 32)),
                metadata: Some((regs.md_base + (rel >> 8), true)),
            },
            Translated { fault: fault::RESERVED_CLASS as u8, ..Default::default() },
        ]
    );
}

/// Fully pipelined: one access per cycle and latency 2 without backpressure.
#[test]
fn latency_is_two_cycles_and_initiation_interval_one() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let accesses = random_accesses(64, &mut rng);
    let run = run_stream(&mut AddressTranslator::default(), &accesses, Traffic::FULL, &mut rng, 1000, None);
    assert_eq!(run.accept_cycles.len(), 64);
    assert!(run.accept_cycles.windows(2).all(|w| w[1] == w[0] + 1), "II != 1: {:?}", run.accept_cycles);
    assert!(run.accept_cycles.iter().zip(&run.deliver_cycles).all(|(a, d)| d - a == 2));
}

/// A traced run writes a VCD in which `out_fault` shows the reserved target
/// of the second access one cycle after the first result.
#[test]
fn vcd_shows_the_fault_flag() {
    use vcd::{Command, Value};
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let regs = random_registers(&mut rng);
    let good = Access {
        regs,
        page: PageSize::Small64K,
        pte: Pte { frame: 0x4000_0000, compressed: false, target_code: 0, buddy_offset: 0 },
        va: regs.heap_base + 0x1234,
        class_code: 7,
    };
    let bad = Access { pte: Pte { compressed: true, target_code: 6, ..good.pte }, ..good };
    let dir = std::env::temp_dir().join(format!("buddy-vcd-at-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("address_translator.vcd");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let run = run_stream(&mut AddressTranslator::default(), &[good, bad], Traffic::FULL, &mut rng, 100, Some(&mut file));
    drop(file);
    assert_eq!(run.outputs.iter().map(|t| t.fault).collect::<Vec<_>>(), vec![0, fault::RESERVED_TARGET as u8]);

    let mut parser = vcd::Parser::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    let code = header.find_var(&["uut", "out_fault"]).expect("out_fault in VCD").code;
    let mut time = 0u64;
    let mut changes = Vec::new();
    for cmd in parser {
        match cmd.unwrap() {
            Command::Timestamp(t) => time = t,
            Command::ChangeVector(c, v) if c == code => {
                changes.push((time, v.iter().fold(0u8, |acc, b| (acc << 1) | (b == Value::V1) as u8)))
            }
            _ => {}
        }
    }
    // 1 GHz: accepted on the edges at 2,000 and 3,000 ps; results valid
    // from 3,000 and 4,000.
    assert!(changes.contains(&(4000, fault::RESERVED_TARGET as u8)), "{changes:?}");
    std::fs::remove_dir_all(dir).ok();
}
