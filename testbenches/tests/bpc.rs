//! BPC hardware == golden model, for the compressor and the decompressor:
//! every worked example of docs/formats.md#bpc-test-vectors, entries built plane by plane (every
//! symbol kind, every zero-run length) and, for the decompressor, arbitrary
//! symbol sequences reaching every mandatory error of §8, under random
//! stalls and backpressure; the real snapshot, latency/II, and VCDs.

use buddy_delivery::bpc::{decompressor_input, plane_entry};
use buddy_delivery::decompress::{self, StoredEntry};
use buddy_delivery::entries::{bundled_workload, random_entries, sample, snapshot_entries};
use buddy_delivery::stream::{check_against, run_stream, Traffic};
use buddy_delivery::stream::{proptest_cases, random_traffic};
use buddy_golden::bpc::{self, Symbol};
use buddy_golden::{Bpc, Codec, DecodeError, MemoryEntry, SizeClass};
use buddy_hdl::{BpcCompressor, BpcDecompressor};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn entry(f: impl Fn(usize) -> u32) -> MemoryEntry {
    MemoryEntry::from_words(std::array::from_fn(f))
}

/// The blocks of docs/formats.md#bpc-test-vectors, E1-E13.
fn worked_examples() -> Vec<MemoryEntry> {
    let e4: [u32; 32] = [
        0x6AA79987, 0xBB91433A, 0x029A7245, 0xD1F6F86C, 0xD340BBCD, 0xCD8778E7, 0x4C73A942, 0xDAEA58BA, 0x5E503A67, 0xEE897110, 0x3193CA54,
        0x452EC40A, 0x90E5E945, 0x6FACAA50, 0x29645F8B, 0x5F811CB9, 0x1FCFF454, 0xDFC9E3B1, 0x6ED4E94B, 0x42D6CB5C, 0x8FE46024, 0xA091250E,
        0x2CA1C789, 0x9C9CEA0C, 0x8D9FE5B9, 0x2FD2B7A4, 0x5ADAD121, 0xBCF74D7A, 0xF543BBCF, 0xBB9D58E4, 0x175F0CD2, 0x87F26AEE,
    ];
    vec![
        entry(|_| 0),
        entry(|_| 0xDEAD_BEEF),
        entry(|i| i as u32),
        MemoryEntry::from_words(e4),
        entry(|_| 5),
        entry(|i| 2 * i as u32),
        entry(|i| if i < 10 { 0 } else { 2 }),
        entry(|i| (16 - i as i32) as u32),
        entry(|i| {
            if i < 5 {
                0
            } else if i == 5 {
                1
            } else {
                2
            }
        }),
        entry(|_| 0xFFFF_FF9C),
        entry(|_| 0xFFFF_FFFF),
        entry(|_| 0x8000_0000),
        entry(|i| if i == 0 { 0x1234 } else { 0 }),
    ]
}

#[test]
fn worked_examples_equal_golden() {
    let examples = worked_examples();
    let bits: Vec<usize> = examples.iter().map(bpc::stream_bits).collect();
    assert_eq!(bits, vec![10, 40, 15, 1089, 14, 20, 25, 23, 20, 18, 14, 40, 105], "the blocks of docs/formats.md#bpc-test-vectors");
    let expected: Vec<_> = examples.iter().map(|e| Bpc.compress(e)).collect();
    assert_eq!(expected[0].class, SizeClass::Zero);
    assert_eq!(expected[3].class, SizeClass::Raw);
    assert_eq!(expected[3].stream_bits, 1089);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    check_against(BpcCompressor::default, &examples, &expected, &mut rng).unwrap();
}

/// The strategy is not vacuous: over 2,000 samples the golden encoder emits
/// every symbol kind, every base class and every zero-run length 1..=33.
#[test]
fn plane_entries_reach_every_symbol_and_run_length() {
    let mut kinds = std::collections::BTreeSet::new();
    let mut runs = std::collections::BTreeSet::new();
    for e in sample(&plane_entry(), 2_000, 5) {
        for s in bpc::symbols(&e) {
            let kind = match s {
                Symbol::BaseZero => "base0",
                Symbol::Base4(_) => "base4",
                Symbol::Base8(_) => "base8",
                Symbol::Base16(_) => "base16",
                Symbol::Base32(_) => "base32",
                Symbol::ZeroRun(n) => {
                    runs.insert(n);
                    "zrun"
                }
                Symbol::Zero1 => {
                    runs.insert(1);
                    "zero1"
                }
                Symbol::All1 => "all1",
                Symbol::Dbp0 => "dbp0",
                Symbol::Two1(_) => "two1",
                Symbol::One1(_) => "one1",
                Symbol::Raw(_) => "raw",
            };
            kinds.insert(kind);
        }
    }
    assert_eq!(kinds.len(), 12, "{kinds:?}");
    assert_eq!(runs, (1..=33).collect(), "missing run lengths");
}

proptest! {
    // 50 batches of 200 entries: 10,000 entries (`make soak`: 2,000 batches).
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(50)))]

    #[test]
    fn decompressor_equals_golden(inputs in proptest::collection::vec(decompressor_input(), 200), traffic in random_traffic(), seed in any::<u64>()) {
        let expected: Vec<_> = inputs.iter().map(|i| decompress::expected_decompressed(&Bpc, i)).collect();
        let mut dut = BpcDecompressor::default();
        let run = run_stream(&mut dut, &inputs, traffic, &mut ChaCha8Rng::seed_from_u64(seed), 20_000, None);
        prop_assert_eq!(run.outputs, expected);
    }

    #[test]
    fn compressor_equals_golden(entries in proptest::collection::vec(plane_entry(), 200), traffic in random_traffic(), seed in any::<u64>()) {
        let expected: Vec<_> = entries.iter().map(|e| Bpc.compress(e)).collect();
        let mut dut = BpcCompressor::default();
        let run = run_stream(&mut dut, &entries, traffic, &mut ChaCha8Rng::seed_from_u64(seed), 20_000, None);
        prop_assert_eq!(run.outputs, expected);
    }
}

#[test]
fn random_entries_equal_golden() {
    let entries = random_entries(2_000, 17);
    let expected: Vec<_> = entries.iter().map(|e| Bpc.compress(e)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(19);
    check_against(BpcCompressor::default, &entries, &expected, &mut rng).unwrap();
}

/// Every entry of the bundled real snapshot, under each crossing of
/// {no bubbles, bubbles} x {no backpressure, backpressure}.
#[test]
fn real_snapshot_equals_golden() {
    let entries = snapshot_entries(&bundled_workload());
    assert!(entries.len() > 5_000);
    let expected: Vec<_> = entries.iter().map(|e| Bpc.compress(e)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    check_against(BpcCompressor::default, &entries, &expected, &mut rng).unwrap();
}

/// The documented timing: latency 10 cycles built `EightLevels` (the
/// delivered build), 5 built `Paper`, one entry per cycle in both, and
/// both builds equal golden.
#[test]
fn latency_is_as_built_and_initiation_interval_one() {
    use buddy_hdl::{bpc_compressor::latency, Stages};
    assert_eq!((latency(Stages::Paper), latency(Stages::EightLevels)), (5, 10));
    let entries = sample(&plane_entry(), 64, 29);
    let expected: Vec<_> = entries.iter().map(|e| Bpc.compress(e)).collect();
    for stages in Stages::ALL {
        let mut rng = ChaCha8Rng::seed_from_u64(31);
        let run = run_stream(&mut BpcCompressor::new(stages), &entries, Traffic::FULL, &mut rng, 1000, None);
        assert_timing(&format!("{stages:?}"), &run, entries.len(), latency(stages));
        assert_eq!(run.outputs, expected, "{stages:?}");
    }
}

/// A full-rate run took one input per cycle and delivered each
/// `latency` cycles after it took it.
fn assert_timing<O>(build: &str, run: &buddy_delivery::stream::RunResult<O>, inputs: usize, latency: u64) {
    assert_eq!(run.accept_cycles.len(), inputs, "{build}");
    assert!(run.accept_cycles.windows(2).all(|w| w[1] == w[0] + 1), "{build}: II != 1: {:?}", run.accept_cycles);
    let measured: Vec<u64> = run.accept_cycles.iter().zip(&run.deliver_cycles).map(|(a, d)| d - a).collect();
    assert!(measured.iter().all(|&l| l == latency), "{build}: latency {measured:?}, documented {latency}");
}

/// The paper build (5 cycles) equals golden on random entries under
/// bubbles and backpressure, as the delivered build does above.
#[test]
fn paper_build_equals_golden() {
    let entries = random_entries(1_000, 37);
    let expected: Vec<_> = entries.iter().map(|e| Bpc.compress(e)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    check_against(|| BpcCompressor::new(buddy_hdl::Stages::Paper), &entries, &expected, &mut rng).unwrap();
}

/// A traced run writes a VCD (every sub-block as a scope); read back with
/// the `vcd` crate, `out_valid` rises 10 cycles after the first acceptance
/// and `out_class` then holds the first entry's golden class.
#[test]
fn vcd_of_a_short_run_holds_the_outputs() {
    use vcd::{Command, Value};
    let entries = worked_examples();
    let dir = std::env::temp_dir().join(format!("buddy-vcd-bpc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bpc_compressor.vcd");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let run =
        run_stream(&mut BpcCompressor::default(), &entries[1..4], Traffic::FULL, &mut ChaCha8Rng::seed_from_u64(1), 100, Some(&mut file));
    drop(file);
    assert_eq!(run.outputs.len(), 3);

    let mut parser = vcd::Parser::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    let valid = header.find_var(&["uut", "out_valid"]).expect("out_valid in VCD").code;
    let class = header.find_var(&["uut", "out_class"]).expect("out_class in VCD").code;
    assert!(header.find_var(&["uut", "packer", "total"]).is_some(), "the packer is a scope of its own");
    let (mut time, mut rose, mut class_now, mut class_then) = (0u64, None, Vec::new(), Vec::new());
    for cmd in parser {
        match cmd.unwrap() {
            Command::Timestamp(t) => time = t,
            Command::ChangeVector(c, v) if c == class => class_now = v.iter().collect::<Vec<Value>>(),
            Command::ChangeScalar(c, Value::V1) if c == valid && rose.is_none() => {
                rose = Some(time);
                class_then = class_now.clone();
            }
            _ => {}
        }
    }
    // Rising edges every 1,000 ps (1 GHz), the first entry accepted on the
    // edge at 2,000: with latency 10 it is valid from 11,000 (latency 5,
    // the paper build, gave 6,000 on the same testbench).
    assert_eq!(rose, Some(11_000));
    let code = class_then.iter().fold(0u8, |acc, v| (acc << 1) | (*v == Value::V1) as u8);
    assert_eq!(code, Bpc.compress(&entries[1]).class.code());
}

/// The worked examples of docs/formats.md#bpc-test-vectors decompress to themselves; E4 is
/// stored RAW, E1 as ZERO.
#[test]
fn decompressor_decodes_the_worked_examples() {
    let examples = worked_examples();
    let inputs: Vec<StoredEntry> = examples.iter().map(|e| decompress::stored(&Bpc, e)).collect();
    let expected: Vec<_> = inputs.iter().map(|i| decompress::expected_decompressed(&Bpc, i)).collect();
    assert!(expected.iter().zip(&examples).all(|(d, e)| !d.error && d.entry == *e));
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    check_against(BpcDecompressor::default, &inputs, &expected, &mut rng).unwrap();
}

/// The input strategy is not vacuous: over 4,000 samples the golden decoder
/// accepts streams of every class B8..B96 and reports each mandatory error
/// of docs/formats.md#bpc-decoding and reserved codes, each at least 25 times.
#[test]
fn decompressor_inputs_reach_every_error() {
    let mut counts = std::collections::BTreeMap::new();
    for input in sample(&decompressor_input(), 4_000, 7) {
        let stored = SizeClass::from_code(input.code).map(|c| c.bytes()).unwrap_or(0);
        let key = match Bpc.decompress_code(input.code, &input.payload[..stored]) {
            Ok(_) => format!("ok code {}", input.code),
            Err(DecodeError::BpcOutOfInput { .. }) => "out of input".into(),
            Err(DecodeError::BpcZeroRunTooLong { .. }) => "zero run too long".into(),
            Err(DecodeError::BpcTwo1Position { .. }) => "two1 position".into(),
            Err(DecodeError::BpcOne1Position { .. }) => "one1 position".into(),
            Err(DecodeError::ReservedSizeCode { .. }) => "reserved code".into(),
            Err(e) => format!("{e}"),
        };
        *counts.entry(key).or_insert(0) += 1;
    }
    let mut keys: Vec<String> = (0..=7).map(|c| format!("ok code {c}")).collect();
    keys.extend(["out of input", "zero run too long", "two1 position", "one1 position", "reserved code"].map(String::from));
    for k in &keys {
        assert!(counts.get(k).copied().unwrap_or(0) >= 25, "{k}: {counts:?}");
    }
    assert_eq!(counts.len(), keys.len(), "no other outcome: {counts:?}");
}

/// Every entry of the bundled real snapshot, stored as the golden
/// compressor stores it, decompresses to itself, under each crossing of
/// {no bubbles, bubbles} x {no backpressure, backpressure}.
#[test]
fn real_snapshot_round_trips_through_the_decompressor() {
    let entries = snapshot_entries(&bundled_workload());
    let inputs: Vec<StoredEntry> = entries.iter().map(|e| decompress::stored(&Bpc, e)).collect();
    let expected: Vec<_> = inputs.iter().map(|i| decompress::expected_decompressed(&Bpc, i)).collect();
    assert!(expected.iter().zip(&entries).all(|(d, e)| !d.error && d.entry == *e));
    let mut rng = ChaCha8Rng::seed_from_u64(37);
    check_against(BpcDecompressor::default, &inputs, &expected, &mut rng).unwrap();
}

/// The documented timing of the decompressor: latency 37 cycles built
/// `EightLevels` (the delivered build), 7 built `Paper`, one entry per
/// cycle in both, and both builds equal golden.
#[test]
fn decompressor_latency_is_as_built_and_initiation_interval_one() {
    use buddy_hdl::{bpc_decompressor::latency, Stages};
    assert_eq!((latency(Stages::Paper), latency(Stages::EightLevels)), (7, 37));
    let inputs = sample(&decompressor_input(), 64, 41);
    let expected: Vec<_> = inputs.iter().map(|i| decompress::expected_decompressed(&Bpc, i)).collect();
    for stages in Stages::ALL {
        let mut rng = ChaCha8Rng::seed_from_u64(43);
        let run = run_stream(&mut BpcDecompressor::new(stages), &inputs, Traffic::FULL, &mut rng, 1000, None);
        assert_timing(&format!("{stages:?}"), &run, inputs.len(), latency(stages));
        assert_eq!(run.outputs, expected, "{stages:?}");
    }
}

/// The paper build (7 cycles) equals golden on generated streams (every
/// symbol, run length and error) under bubbles and backpressure.
#[test]
fn decompressor_paper_build_equals_golden() {
    let inputs = sample(&decompressor_input(), 1_000, 47);
    let expected: Vec<_> = inputs.iter().map(|i| decompress::expected_decompressed(&Bpc, i)).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(53);
    check_against(|| BpcDecompressor::new(buddy_hdl::Stages::Paper), &inputs, &expected, &mut rng).unwrap();
}

/// The decompressor's VCD: a stream cut short (E13 stored as B8 instead of
/// B16) shows `out_error` = 1 when `out_valid` first rises, 37 cycles after
/// acceptance, and the parse stages are scopes of their own.
#[test]
fn vcd_of_the_decompressor_shows_the_error_flag() {
    use vcd::{Command, Value};
    let e13 = worked_examples()[12];
    let mut cut = decompress::stored(&Bpc, &e13);
    assert_eq!(cut.code, SizeClass::B16.code());
    cut.code = SizeClass::B8.code();
    let inputs = [cut, decompress::stored(&Bpc, &e13)];
    let dir = std::env::temp_dir().join(format!("buddy-vcd-bpcd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bpc_decompressor.vcd");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let run = run_stream(&mut BpcDecompressor::default(), &inputs, Traffic::FULL, &mut ChaCha8Rng::seed_from_u64(1), 100, Some(&mut file));
    drop(file);
    assert_eq!(run.outputs.iter().map(|o| o.error).collect::<Vec<_>>(), vec![true, false]);
    assert_eq!(run.outputs[1].entry, e13);

    let mut parser = vcd::Parser::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    let valid = header.find_var(&["uut", "out_valid"]).expect("out_valid in VCD").code;
    let error = header.find_var(&["uut", "out_error"]).expect("out_error in VCD").code;
    assert!(header.find_var(&["uut", "p$2", "state_out$planes_left"]).is_some(), "parse stage 3 is a scope of its own");
    // The stage's state port as in the Verilog (`[2133:0] state_out`), its
    // fields beside it, its register (`s_state$3`; `$0` is the input
    // register) under its own name.
    assert_eq!(header.find_var(&["uut", "p$2", "state_out"]).map(|v| v.size), Some(2134));
    assert_eq!(header.find_var(&["uut", "p$2", "state_out$window"]).map(|v| v.size), Some(1024));
    assert_eq!(header.find_var(&["uut", "s_state$3"]).map(|v| v.size), Some(2134));
    assert!(header.find_scope(&["uut", "s_state$3"]).is_none());
    // Changes are read per timestamp before deciding what held at it.
    let (mut time, mut changes) = (0u64, Vec::new());
    for cmd in parser {
        match cmd.unwrap() {
            Command::Timestamp(t) => time = t,
            Command::ChangeScalar(c, v) if c == valid => changes.push((time, 0, v)),
            Command::ChangeScalar(c, v) if c == error => changes.push((time, 1, v)),
            _ => {}
        }
    }
    let rose = changes.iter().find(|&&(_, s, v)| s == 0 && v == Value::V1).map(|&(t, _, _)| t);
    let error_then = rose.and_then(|r| changes.iter().rfind(|&&(t, s, _)| s == 1 && t <= r).map(|&(_, _, v)| v));
    // Same testbench as the compressor (valid from 11,000 ps with latency
    // 10): latency 37 gives 38,000.
    assert_eq!(rose, Some(38_000));
    assert_eq!(error_then, Some(Value::V1));
}
