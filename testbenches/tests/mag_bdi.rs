//! MAG-BDI hardware == golden model, for MAG 16, 32 and 64: rust-hdl
//! simulation under random stalls and backpressure with entries on the
//! delta-width boundaries, the real snapshot, latency/II, and a VCD read back.

use buddy_delivery::decompress::{expected_decompressed, stored, StoredEntry};
use buddy_delivery::entries::{bundled_workload, mag_boundary_entry, sample, snapshot_entries, sparse_entry};
use buddy_delivery::mag_bdi::expected_compressed;
use buddy_delivery::stream::{check_against, run_stream, Traffic};
use buddy_delivery::stream::{proptest_cases, random_traffic};
use buddy_golden::{Mag, MagBdi, MemoryEntry, SizeClass};
use buddy_hdl::{mag_bdi_compressor, MagBdiCompressor, MagBdiDecompressor, Stages};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

/// Compressor inputs: mostly entries on the delta-width boundaries, some
/// sparse entries (zero words, single bits, all ones).
fn compressor_input() -> impl Strategy<Value = MemoryEntry> {
    prop_oneof![3 => mag_boundary_entry(), 1 => sparse_entry()]
}

/// Decompressor inputs for `mag`: valid streams, valid streams with garbage
/// past the class size, any payload under a class that names an encoding
/// (every such bit string decodes), and random bytes under any code,
/// reserved ones included.
fn decompressor_input(mag: Mag) -> impl Strategy<Value = StoredEntry> {
    let codec = MagBdi::new(mag);
    let encoding_codes: Vec<u8> = SizeClass::ALL.iter().filter(|c| codec.encoding_of_class(**c).is_some()).map(|c| c.code()).collect();
    prop_oneof![
        3 => compressor_input().prop_map(move |e| stored(&codec, &e)),
        1 => (compressor_input(), any::<[u8; 32]>()).prop_map(move |(e, junk)| {
            let mut s = stored(&codec, &e);
            let used = SizeClass::from_code(s.code).unwrap().bytes();
            for (i, b) in s.payload[used..].iter_mut().enumerate() {
                *b = junk[i % 32];
            }
            s
        }),
        1 => (proptest::sample::select(encoding_codes), any::<[u8; 128]>()).prop_map(|(code, payload)| StoredEntry { code, payload }),
        1 => (0u8..16, any::<[u8; 128]>()).prop_map(|(code, payload)| StoredEntry { code, payload }),
    ]
}

fn compressor_case(mag: Mag, entries: &[MemoryEntry], traffic: Traffic, seed: u64) -> Result<(), TestCaseError> {
    let expected: Vec<_> = entries.iter().map(|e| expected_compressed(mag, e)).collect();
    for stages in Stages::ALL {
        let mut dut = MagBdiCompressor::with_stages(mag, stages);
        let run = run_stream(&mut dut, entries, traffic, &mut ChaCha8Rng::seed_from_u64(seed), 20_000, None);
        prop_assert_eq!(run.outputs, expected.clone(), "{:?}", stages);
    }
    Ok(())
}

fn decompressor_case(mag: Mag, inputs: &[StoredEntry], traffic: Traffic, seed: u64) -> Result<(), TestCaseError> {
    let codec = MagBdi::new(mag);
    let expected: Vec<_> = inputs.iter().map(|i| expected_decompressed(&codec, i)).collect();
    let mut dut = MagBdiDecompressor::new(mag);
    let run = run_stream(&mut dut, inputs, traffic, &mut ChaCha8Rng::seed_from_u64(seed), 20_000, None);
    prop_assert_eq!(run.outputs, expected);
    Ok(())
}

proptest! {
    // 50 batches of 200 entries: 10,000 entries per module and MAG
    // (PROPTEST_CASES overrides the batch count: `make soak`).
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(50)))]

    #[test]
    fn mag32_compressor_equals_golden(entries in proptest::collection::vec(compressor_input(), 200), traffic in random_traffic(), seed in any::<u64>()) {
        compressor_case(Mag::B32, &entries, traffic, seed)?;
    }

    #[test]
    fn mag16_compressor_equals_golden(entries in proptest::collection::vec(compressor_input(), 200), traffic in random_traffic(), seed in any::<u64>()) {
        compressor_case(Mag::B16, &entries, traffic, seed)?;
    }

    #[test]
    fn mag64_compressor_equals_golden(entries in proptest::collection::vec(compressor_input(), 200), traffic in random_traffic(), seed in any::<u64>()) {
        compressor_case(Mag::B64, &entries, traffic, seed)?;
    }

    #[test]
    fn mag32_decompressor_equals_golden(inputs in proptest::collection::vec(decompressor_input(Mag::B32), 200), traffic in random_traffic(), seed in any::<u64>()) {
        decompressor_case(Mag::B32, &inputs, traffic, seed)?;
    }

    #[test]
    fn mag16_decompressor_equals_golden(inputs in proptest::collection::vec(decompressor_input(Mag::B16), 200), traffic in random_traffic(), seed in any::<u64>()) {
        decompressor_case(Mag::B16, &inputs, traffic, seed)?;
    }

    #[test]
    fn mag64_decompressor_equals_golden(inputs in proptest::collection::vec(decompressor_input(Mag::B64), 200), traffic in random_traffic(), seed in any::<u64>()) {
        decompressor_case(Mag::B64, &inputs, traffic, seed)?;
    }
}

/// The boundary strategy is not vacuous: over 2,000 samples it reaches every
/// encoding of every MAG, the uncompressed case, and for each unit width
/// entries that pass and fail it by a single word at the boundary.
#[test]
fn boundary_entries_reach_every_encoding_of_every_mag() {
    let entries = sample(&compressor_input(), 2_000, 9);
    for mag in Mag::ALL {
        let reached: BTreeSet<u8> = entries.iter().map(|e| expected_compressed(mag, e).encoding).collect();
        let all: BTreeSet<u8> = (0..=mag.encodings() as u8).collect();
        assert_eq!(reached, all, "{mag:?}: encodings reached");
        let classes: BTreeSet<u8> = entries.iter().map(|e| expected_compressed(mag, e).compressed.class.code()).collect();
        let codec = MagBdi::new(mag);
        for class in SizeClass::ALL.iter().filter(|c| codec.encoding_of_class(**c).is_some()) {
            assert!(classes.contains(&class.code()), "{mag:?}: class {} never stored", class.name());
        }
    }
    // A unit "fails by one word": flipping a single word to the nearest
    // in-range value of its base makes the unit succeed.
    for d in buddy_delivery::entries::MAG_DELTA_WIDTHS {
        let near_miss = entries.iter().any(|e| {
            let w = *e.words();
            buddy_golden::mag_bdi::compressor_unit(&w, d).is_none()
                && (0..32).any(|i| {
                    let mut v = w;
                    v[i] = 0;
                    buddy_golden::mag_bdi::compressor_unit(&v, d).is_some()
                })
        });
        assert!(near_miss, "no entry fails the {d}-bit unit by a single word");
    }
}

/// Every entry of the bundled real snapshot through both modules of every
/// MAG, under each crossing of {no bubbles, bubbles} x {no backpressure,
/// backpressure}.
#[test]
fn real_snapshot_round_trips_through_both_modules() {
    let entries = snapshot_entries(&bundled_workload());
    assert!(entries.len() > 5_000);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for mag in Mag::ALL {
        let codec = MagBdi::new(mag);
        let expected: Vec<_> = entries.iter().map(|e| expected_compressed(mag, e)).collect();
        for stages in Stages::ALL {
            check_against(|| MagBdiCompressor::with_stages(mag, stages), &entries, &expected, &mut rng).unwrap();
        }
        let inputs: Vec<_> = entries.iter().map(|e| stored(&codec, e)).collect();
        let decoded: Vec<_> = inputs.iter().map(|i| expected_decompressed(&codec, i)).collect();
        assert!(decoded.iter().zip(&entries).all(|(d, e)| !d.error && d.entry == *e));
        check_against(|| MagBdiDecompressor::new(mag), &inputs, &decoded, &mut rng).unwrap();
    }
}

/// The documented timing: one entry per cycle without backpressure; latency
/// 2 cycles for the compressor built Paper, 4 built EightLevels (the
/// memory system reads the delivered build's), and 1 for the decompressor.
#[test]
fn initiation_interval_one_latency_as_documented() {
    assert_eq!([mag_bdi_compressor::latency(Stages::Paper), mag_bdi_compressor::latency(Stages::EightLevels)], [2, 4]);
    let codec = buddy_hdl::timing::codec_latency(buddy_golden::HardwareCodec::MagBdi(Mag::B32));
    assert_eq!(
        (codec.compress, codec.decompress),
        (mag_bdi_compressor::latency(Stages::DELIVERED), buddy_hdl::mag_bdi_decompressor::LATENCY)
    );
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let entries = sample(&compressor_input(), 64, 3);
    for (mag, stages) in Mag::ALL.into_iter().flat_map(|m| Stages::ALL.map(|s| (m, s))) {
        let run = run_stream(&mut MagBdiCompressor::with_stages(mag, stages), &entries, Traffic::FULL, &mut rng, 1000, None);
        let inputs: Vec<_> = entries.iter().map(|e| stored(&MagBdi::new(mag), e)).collect();
        let drun = run_stream(&mut MagBdiDecompressor::new(mag), &inputs, Traffic::FULL, &mut rng, 1000, None);
        for (acc, del, latency) in [
            (&run.accept_cycles, &run.deliver_cycles, mag_bdi_compressor::latency(stages)),
            (&drun.accept_cycles, &drun.deliver_cycles, buddy_hdl::mag_bdi_decompressor::LATENCY),
        ] {
            assert_eq!((acc.len(), del.len()), (64, 64));
            assert!(acc.windows(2).all(|w| w[1] == w[0] + 1), "{mag:?}: II != 1: {acc:?}");
            assert!(acc.iter().zip(del.iter()).all(|(a, d)| d - a == latency), "{mag:?}: latency != {latency}: {acc:?} {del:?}");
        }
    }
}

/// A VCD of the MAG 32 compressor shows `out_valid` rising `latency - 1`
/// cycles after the edge at 2,000 ps (as for ZVC) with the paper's encoding of the first entry on
/// `out_encoding` (k = 2: a delta needs 7..14 bits) and its class B64 on
/// `out_class`.
#[test]
fn vcd_of_the_compressor_holds_encoding_and_class() {
    use vcd::{Command, Value};
    let first = MemoryEntry::from_words(std::array::from_fn(|i| 0x1000_0000 + 100 * i as u32));
    let entries = [first, MemoryEntry::ZERO, first];
    assert_eq!(expected_compressed(Mag::B32, &first).encoding, 2);
    let dir = std::env::temp_dir().join(format!("buddy-vcd-mag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mag_bdi32_compressor.vcd");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let run =
        run_stream(&mut MagBdiCompressor::new(Mag::B32), &entries, Traffic::FULL, &mut ChaCha8Rng::seed_from_u64(1), 100, Some(&mut file));
    drop(file);
    assert_eq!(run.outputs.len(), 3);

    let mut parser = vcd::Parser::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
    let header = parser.parse_header().unwrap();
    let find = |name: &str| header.find_var(&["uut", name]).unwrap_or_else(|| panic!("{name} in VCD")).code;
    let (valid, encoding, class) = (find("out_valid"), find("out_encoding"), find("out_class"));
    // All changes first, then the values at a time (several change at one timestamp).
    let mut changes: Vec<(u64, vcd::IdCode, u64)> = Vec::new();
    let mut time = 0u64;
    for cmd in parser {
        match cmd.unwrap() {
            Command::Timestamp(t) => time = t,
            Command::ChangeVector(c, v) => changes.push((time, c, v.iter().fold(0u64, |acc, b| (acc << 1) | (b == Value::V1) as u64))),
            Command::ChangeScalar(c, v) => changes.push((time, c, (v == Value::V1) as u64)),
            _ => {}
        }
    }
    let value_at = |code: vcd::IdCode, t: u64| changes.iter().rfind(|&&(ct, c, _)| c == code && ct <= t).map(|&(_, _, v)| v);
    let rose = changes.iter().find(|&&(_, c, v)| c == valid && v == 1).map(|&(t, _, _)| t);
    let at = 2000 + 1000 * (mag_bdi_compressor::latency(Stages::DELIVERED) - 1);
    assert_eq!(rose, Some(at));
    assert_eq!((value_at(encoding, at), value_at(class, at)), (Some(2), Some(SizeClass::B64.code() as u64)));
}
