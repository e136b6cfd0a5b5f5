//! cDMA's sector-wise ZVC engines == golden (`zvc::LineStream`): rust-hdl
//! simulation under random stalls and backpressure, the round trip
//! through both engines, the activation maps of the shared workloads,
//! reset in the middle of a line, and the measured latency and II.

use buddy_delivery::cdma_zvc::{
    activation_lines, compressed_line, expected_sectors, line_streams, run_compressor, run_decompressor, sector_inputs, shared_data,
    CompressedLine, LineSector,
};
use buddy_delivery::entries::{bundled_workload, nonzero_word, snapshot_entries, sparse_entry};
use buddy_delivery::harness::Harness;
use buddy_delivery::stream::{check_against, proptest_cases, random_traffic, Traffic};
use buddy_golden::zvc::LineStream;
use buddy_golden::MemoryEntry;
use buddy_hdl::timing::{self, CdmaEngineTiming};
use buddy_hdl::{cdma_zvc_compressor, cdma_zvc_decompressor, CdmaZvcCompressor, CdmaZvcDecompressor, SectorBits, Stages};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Lines whose sectors are each all zero, all non-zero, or sparse, so
/// that every sector-level case (a segment of 0 or 8 words, the buffer
/// length at 0, 8, 16, 24) occurs.
fn sector_patterned_entry() -> impl Strategy<Value = MemoryEntry> {
    let sector = (0u8..3, proptest::collection::vec(nonzero_word(), 8), any::<u8>());
    proptest::collection::vec(sector, 4).prop_map(|sectors| {
        let mut words = [0u32; 32];
        for (k, (kind, values, mask)) in sectors.into_iter().enumerate() {
            for m in 0..8 {
                let keep = match kind {
                    0 => false,
                    1 => true,
                    _ => mask >> m & 1 == 1,
                };
                words[8 * k + m] = if keep { values[m] } else { 0 };
            }
        }
        MemoryEntry::from_words(words)
    })
}

/// Compressor inputs: lines with any number of non-zero words (all-zero
/// and no-zero lines included, see `sparse_entry`) and sector-patterned
/// lines.
fn line() -> impl Strategy<Value = MemoryEntry> {
    prop_oneof![2 => sparse_entry(), 1 => sector_patterned_entry()]
}

/// Decompressor inputs: golden streams, with garbage in the words past
/// the `n` non-zero ones (which the engine must ignore) half the time.
fn stream() -> impl Strategy<Value = LineStream> {
    (line(), any::<bool>(), any::<[u32; 32]>()).prop_map(|(e, junk, garbage)| {
        let mut s = LineStream::of(&e);
        if junk {
            let n = s.nonzero_words();
            s.words[n..].copy_from_slice(&garbage[n..]);
        }
        s
    })
}

proptest! {
    // 50 batches of 100 lines per module (PROPTEST_CASES overrides the
    // batch count: `make soak`).
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(50)))]

    /// Each batch through both builds (`Stages`).
    #[test]
    fn compressor_equals_golden(lines in proptest::collection::vec(line(), 100), traffic in random_traffic(), seed in any::<u64>()) {
        for stages in Stages::ALL {
            let run = run_compressor(stages, &lines, traffic, &mut ChaCha8Rng::seed_from_u64(seed), None, None);
            prop_assert!(run.is_ok(), "{:?} {:?}: {}", stages, traffic, run.unwrap_err());
        }
    }

    #[test]
    fn decompressor_equals_golden(streams in proptest::collection::vec(stream(), 100), traffic in random_traffic(), seed in any::<u64>()) {
        for stages in Stages::ALL {
            let run = run_decompressor(stages, &streams, traffic, &mut ChaCha8Rng::seed_from_u64(seed), None, None);
            prop_assert!(run.is_ok(), "{:?} {:?}: {}", stages, traffic, run.unwrap_err());
        }
    }

    /// Lines through the compressor, its streams through the decompressor:
    /// the sectors that come out are the lines that went in.
    #[test]
    fn round_trip_through_both_engines(lines in proptest::collection::vec(line(), 50), traffic in random_traffic(), seed in any::<u64>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let compressed = run_compressor(Stages::DELIVERED, &lines, traffic, &mut rng, None, None).map_err(TestCaseError::fail)?;
        let streams: Vec<LineStream> = compressed.outputs.iter().map(|c| c.stream).collect();
        let back = run_decompressor(Stages::DELIVERED, &streams, traffic, &mut rng, None, None).map_err(TestCaseError::fail)?;
        let words: Vec<u32> = back.outputs.iter().flat_map(|s| s.words).collect();
        prop_assert_eq!(words, lines.iter().flat_map(|e| *e.words()).collect::<Vec<u32>>());
    }
}

/// All-zero lines (a 32-bit mask each) and lines without a zero (1056
/// bits) back to back, under every crossing of bubbles and backpressure.
#[test]
fn all_zero_and_no_zero_lines() {
    let dense = |i: u32| MemoryEntry::from_words(std::array::from_fn(|w| 0x8000_0000 | (i << 8) | w as u32));
    let lines: Vec<MemoryEntry> = (0..40).map(|i| if i % 3 == 0 { dense(i) } else { MemoryEntry::ZERO }).collect();
    let expected: Vec<CompressedLine> = lines.iter().map(compressed_line).collect();
    assert!(expected.iter().any(|c| c.stream_bits == 32) && expected.iter().any(|c| c.stream_bits == 1056));
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let streams = line_streams(&lines);
    for stages in Stages::ALL {
        check_against(|| CdmaZvcCompressor::new(stages), &sector_inputs(&lines), &expected, &mut rng).unwrap();
        check_against(|| CdmaZvcDecompressor::new(stages), &streams, &expected_sectors(&streams), &mut rng).unwrap();
    }
}

/// Every line of every activation map of the shared workloads (`role`
/// `activation` in their manifests) through both engines at full rate,
/// and the first 2,000 under each crossing of bubbles and backpressure.
/// Also the bundled (miniFE) snapshot, which has no activations.
#[test]
fn activation_maps_through_both_engines() {
    let (lines, workloads) = activation_lines(&shared_data());
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    if lines.is_empty() {
        eprintln!("{} has no activation maps: only the bundled snapshot is checked", shared_data().display());
    } else {
        eprintln!("activation lines of {workloads:?}: {}", lines.len());
        let zero = lines.iter().map(|e| e.words().iter().filter(|&&w| w == 0).count()).sum::<usize>();
        eprintln!("zero words: {:.1}%", 100.0 * zero as f64 / (32 * lines.len()) as f64);
        for stages in Stages::ALL {
            run_compressor(stages, &lines, Traffic::FULL, &mut rng, None, None).unwrap();
            run_decompressor(stages, &line_streams(&lines), Traffic::FULL, &mut rng, None, None).unwrap();
        }
        let some = &lines[..lines.len().min(2_000)];
        for traffic in Traffic::CROSSED {
            let stages = Stages::DELIVERED;
            run_compressor(stages, some, traffic, &mut rng, None, None).unwrap_or_else(|e| panic!("{traffic:?}: {e}"));
            run_decompressor(stages, &line_streams(some), traffic, &mut rng, None, None).unwrap_or_else(|e| panic!("{traffic:?}: {e}"));
        }
    }
    let snapshot = snapshot_entries(&bundled_workload());
    run_compressor(Stages::DELIVERED, &snapshot, Traffic::RANDOM, &mut rng, None, None).unwrap();
    run_decompressor(Stages::DELIVERED, &line_streams(&snapshot), Traffic::RANDOM, &mut rng, None, None).unwrap();
}

/// The documented timing of both builds, measured without bubbles or
/// backpressure: the compressor takes a sector every cycle and gives a
/// line every 4, [`cdma_zvc_compressor::latency`] (6, or 7 with its input
/// registered) cycles after the line's first sector and 3 (4) after its
/// last; the decompressor takes a line every 4 cycles and gives a sector
/// every cycle, sector `k` of a line [`cdma_zvc_decompressor::latency`]
/// (2, or 3) + `k` cycles after the line. `buddy_hdl::timing` holds the
/// same figures.
#[test]
fn latency_and_initiation_interval_are_as_documented() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let lines: Vec<MemoryEntry> = (0..33)
        .map(|n| MemoryEntry::from_words(std::array::from_fn(|w| if (w * 7 + n) % 33 < n { rng.gen::<u32>() | 1 } else { 0 })))
        .collect();
    for stages in Stages::ALL {
        let c = run_compressor(stages, &lines, Traffic::FULL, &mut rng, None, None).unwrap();
        assert_eq!((c.accept_cycles.len(), c.deliver_cycles.len()), (4 * lines.len(), lines.len()));
        assert!(c.accept_cycles.windows(2).all(|w| w[1] == w[0] + 1), "a sector per cycle: {:?}", c.accept_cycles);
        let spacing: Vec<u64> = c.deliver_cycles.windows(2).map(|w| w[1] - w[0]).collect();
        let first: Vec<u64> = (0..lines.len()).map(|l| c.deliver_cycles[l] - c.accept_cycles[4 * l]).collect();
        let last: Vec<u64> = (0..lines.len()).map(|l| c.deliver_cycles[l] - c.accept_cycles[4 * l + 3]).collect();
        assert!(spacing.iter().all(|&s| s == cdma_zvc_compressor::CYCLES_PER_LINE), "{spacing:?}");
        assert!(first.iter().all(|&l| l == cdma_zvc_compressor::latency(stages)), "{stages:?}: {first:?}");
        assert!(last.iter().all(|&l| l == cdma_zvc_compressor::last_sector_latency(stages)), "{stages:?}: {last:?}");
        let measured = CdmaEngineTiming { latency: first[0], line_latency: first[0], cycles_per_line: spacing[0] };
        assert_eq!(timing::cdma_compressor(stages), measured);
        eprintln!("compressor {stages:?}: {measured:?}, {} cycles from the last sector", last[0]);

        let d = run_decompressor(stages, &line_streams(&lines), Traffic::FULL, &mut rng, None, None).unwrap();
        assert_eq!((d.accept_cycles.len(), d.deliver_cycles.len()), (lines.len(), 4 * lines.len()));
        assert!(d.deliver_cycles.windows(2).all(|w| w[1] == w[0] + 1), "a sector per cycle: {:?}", d.deliver_cycles);
        // With its input registered the engine holds a second line, taken
        // on the cycle after the first: lines are then 4 cycles apart.
        let spacing: Vec<u64> = d.accept_cycles.windows(2).map(|w| w[1] - w[0]).collect();
        let queued = usize::from(stages.registers_inputs());
        assert!(spacing[..queued].iter().all(|&s| s == 1), "{stages:?}: {spacing:?}");
        assert!(spacing[queued..].iter().all(|&s| s == cdma_zvc_decompressor::CYCLES_PER_LINE), "{stages:?}: {spacing:?}");
        // Every line's sectors leave on consecutive cycles (checked above);
        // a line that finds the engine idle leaves after the latency.
        let a = d.accept_cycles[0];
        let first: Vec<u64> = (0..4).map(|k| d.deliver_cycles[k] - a).collect();
        let want: Vec<u64> = (0..4).map(|k| cdma_zvc_decompressor::latency(stages) + k).collect();
        assert_eq!(first, want, "{stages:?}");
        let measured =
            CdmaEngineTiming { latency: d.deliver_cycles[0] - a, line_latency: d.deliver_cycles[3] - a, cycles_per_line: spacing[queued] };
        assert_eq!(measured.line_latency, cdma_zvc_decompressor::line_latency(stages));
        assert_eq!(timing::cdma_decompressor(stages), measured);
        eprintln!("decompressor {stages:?}: {measured:?}");
    }
}

/// A reset in the middle of a line drops it: the compressor's next four
/// sectors are a whole line, the decompressor's next line starts at
/// sector 0.
#[test]
fn reset_drops_the_line_in_progress() {
    for stages in Stages::ALL {
        reset_drops_the_line_of(stages);
    }
}

fn reset_drops_the_line_of(stages: Stages) {
    let a = MemoryEntry::from_words(std::array::from_fn(|w| if w % 3 == 0 { 0xa000 + w as u32 } else { 0 }));
    let b = MemoryEntry::from_words(std::array::from_fn(|w| if w % 5 != 0 { 0xb000 + w as u32 } else { 0 }));
    let sectors_of = |e: &MemoryEntry| -> Vec<[u32; 8]> { sector_inputs(std::slice::from_ref(e)) };

    let mut hw = CdmaZvcCompressor::new(stages);
    let mut c = Harness::new(&mut hw, None);
    c.out_ready.next = true;
    // Two sectors of `a`, then reset, then all of `b`.
    for s in &sectors_of(&a)[..2] {
        c.in_valid.next = true;
        c.in_sector.next = SectorBits::from_words(s);
        c.settle();
        c.edge();
    }
    c.in_valid.next = false;
    c.reset(1);
    let mut out = Vec::new();
    let b_sectors = sectors_of(&b);
    let mut sent = 0;
    for _ in 0..20 {
        c.in_valid.next = sent < 4;
        c.in_sector.next = SectorBits::from_words(&b_sectors[sent.min(3)]);
        c.settle();
        if c.in_valid.val() && c.in_ready.val() {
            sent += 1;
        }
        if c.out_valid.val() {
            out.push((c.out_mask.val().to_u32(), c.out_words.val().to_words(), c.out_stream_bits.val().to_u32() as usize));
        }
        c.settle();
        c.edge();
    }
    let want = compressed_line(&b);
    assert_eq!(out, vec![(want.stream.mask, want.stream.words, want.stream_bits)]);

    let mut hw = CdmaZvcDecompressor::new(stages);
    let mut d = Harness::new(&mut hw, None);
    d.out_ready.next = true;
    let (sa, sb) = (LineStream::of(&a), LineStream::of(&b));
    d.in_valid.next = true;
    d.in_mask.next = (sa.mask as u64).into();
    d.in_words.next = buddy_hdl::EntryBits::from_words(&sa.words);
    d.settle();
    d.edge();
    d.in_valid.next = false;
    d.settle();
    d.edge();
    d.reset(1);
    d.in_mask.next = (sb.mask as u64).into();
    d.in_words.next = buddy_hdl::EntryBits::from_words(&sb.words);
    let mut sent = false;
    let mut got = Vec::new();
    for _ in 0..12 {
        d.in_valid.next = !sent;
        d.settle();
        sent |= d.in_ready.val();
        if d.out_valid.val() {
            got.push(LineSector { words: d.out_sector.val().to_words(), last: d.out_last.val() });
        }
        d.settle();
        d.edge();
    }
    assert_eq!(got, expected_sectors(&[sb]));
}
