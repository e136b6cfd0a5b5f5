//! LCP over BDI (docs/formats.md#lcp): hand-checked page sizes, round
//! trips of pages mixing zero, compressible and incompressible lines
//! (whole page and line by line), the layout choice against a brute-force
//! search, every 4 KB page of the shared snapshots, and corrupt pages (an
//! error, never a panic).

use buddy_golden::lcp::{
    page_entries, pages_of, physical_bytes_of, physical_size_of, read_line, Layout, LcpError, LcpPage, LINES_PER_PAGE, PAGE_BYTES,
    PHYSICAL_SIZES, TARGETS,
};
use buddy_golden::{Bdi, Codec, DecodeError, MemoryEntry, SizeClass};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Sixteen pointers `b + 8i`: BDI base8-Δ1, 212 bits, B32.
fn pointers(b: u64) -> MemoryEntry {
    MemoryEntry::from_words(std::array::from_fn(|i| ((b + 8 * (i as u64 / 2)) >> (32 * (i % 2))) as u32))
}

/// 32 unrelated words: RAW under BDI.
fn noise(seed: u32) -> MemoryEntry {
    let mut x = seed | 1;
    MemoryEntry::from_words(std::array::from_fn(|_| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    }))
}

/// Compress, check both ways of reading back, return the page.
fn round_trip(lines: &[MemoryEntry; 32]) -> LcpPage {
    let page = LcpPage::compress(lines);
    assert_eq!(page.bytes().len(), page.physical_size());
    assert_eq!(LcpPage::decompress(page.bytes()), Ok(*lines));
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(page.line(i), Ok(*line), "line {i}");
    }
    assert_eq!(physical_size_of(lines), page.physical_size());
    page
}

// ---------------------------------------------------------------- hand-checked pages

#[test]
fn hand_checked_pages() {
    let zero = [MemoryEntry::ZERO; 32];
    // All zero: c* = 8, 64 + 32·8 = 320 bytes → 512, ratio 8.
    let p = round_trip(&zero);
    assert_eq!((p.physical_size(), p.target(), p.exceptions()), (512, Some(SizeClass::B8), 0));
    assert!(p.bytes()[64..].iter().all(|&b| b == 0));
    // One RAW line among zeros: c* = 8 with 1 exception: 320 + 128 = 448 → 512.
    let mut lines = zero;
    lines[7] = noise(1);
    let p = round_trip(&lines);
    assert_eq!((p.physical_size(), p.target(), p.exceptions()), (512, Some(SizeClass::B8), 1 << 7));
    assert_eq!(p.bytes()[7], 0x80);
    assert_eq!(&p.bytes()[320..448], &noise(1).to_bytes()[..]);
    // Two RAW lines: 320 + 256 = 576 → 1024.
    lines[20] = noise(2);
    assert_eq!(round_trip(&lines).physical_size(), 1024);
    // Every line base8-Δ1 (B32): c* = 32, 64 + 1024 = 1088 → 2048, ratio 2.
    let lines: [MemoryEntry; 32] = std::array::from_fn(|i| pointers(0x7f00_0000_0000 + 4096 * i as u64));
    let p = round_trip(&lines);
    assert_eq!((p.physical_size(), p.target(), p.exceptions()), (2048, Some(SizeClass::B32), 0));
    // Every line a repeated value (B16): c* = 16, 64 + 512 = 576 → 1024.
    let lines: [MemoryEntry; 32] = std::array::from_fn(|i| MemoryEntry::from_words([i as u32 + 1; 32]));
    let p = round_trip(&lines);
    assert_eq!((p.physical_size(), p.target()), (1024, Some(SizeClass::B16)));
    // Every line RAW: stored uncompressed, the page's own bytes.
    let lines: [MemoryEntry; 32] = std::array::from_fn(|i| noise(i as u32 + 10));
    let p = round_trip(&lines);
    assert_eq!((p.physical_size(), p.target(), p.is_compressed()), (4096, None, false));
    assert_eq!(p.bytes(), &lines.iter().flat_map(|e| e.to_bytes()).collect::<Vec<_>>()[..]);
    // 8 RAW lines and 24 base8-Δ1 lines: c* = 32 needs 1088 + 1024 = 2112 > 2048;
    // c* = 8 or 16 make all 32 lines exceptions: uncompressed.
    let lines: [MemoryEntry; 32] = std::array::from_fn(|i| if i % 4 == 0 { noise(i as u32 + 50) } else { pointers(1 << 40) });
    assert_eq!(round_trip(&lines).physical_size(), 4096);
    // 6 RAW lines and 26 base8-Δ1 lines: c* = 32, 1088 + 768 = 1856 → 2048.
    let lines: [MemoryEntry; 32] = std::array::from_fn(|i| if i % 5 == 0 && i != 0 { noise(i as u32) } else { pointers(1 << 40) });
    let p = round_trip(&lines);
    assert_eq!((p.physical_size(), p.layout().exception_count(), p.layout().used_bytes), (2048, 6, 1088 + 6 * 128));
}

#[test]
fn physical_bytes_of_pads_and_sums() {
    let mut data = vec![0u8; 3 * PAGE_BYTES + 100];
    data[PAGE_BYTES..2 * PAGE_BYTES].copy_from_slice(&(0..32).flat_map(|i| noise(i + 1).to_bytes()).collect::<Vec<_>>());
    // Pages: zero (512), noise (4096), zero (512), 100 bytes zero-padded (512).
    assert_eq!(pages_of(data.len()), 4);
    assert_eq!(physical_bytes_of(&data), 512 + 4096 + 512 + 512);
    // The partial page gets one B32 line (base8-Δ1, all immediates): c* = 8
    // with it as an exception, 320 + 128 = 448 bytes → still 512.
    data[3 * PAGE_BYTES] = 1;
    assert_eq!(physical_bytes_of(&data), 512 + 4096 + 512 + 512);
}

// ---------------------------------------------------------------- errors

#[test]
fn corrupt_pages_are_errors() {
    let mut lines = [MemoryEntry::ZERO; 32];
    lines[3] = noise(3);
    lines[4] = pointers(1 << 44);
    // c* = 8 and 16 both need 1024 bytes with lines 3 and 4 as exceptions: c* = 8.
    let good = LcpPage::compress(&lines);
    assert_eq!((good.physical_size(), good.target(), good.exceptions()), (1024, Some(SizeClass::B8), 0b11000));
    assert_eq!(&good.bytes()[..6], &[0, 0, 0, 0x80, 0x81, 0]);
    let b = good.bytes().to_vec();
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut x = b.clone();
        f(&mut x);
        LcpPage::decompress(&x)
    };
    assert_eq!(LcpPage::decompress(&b[..1000]), Err(LcpError::PhysicalSize { got: 1000 }));
    assert_eq!(LcpPage::decompress(&[]), Err(LcpError::PhysicalSize { got: 0 }));
    assert_eq!(with(&|x| x[32] = 0), Err(LcpError::TargetCode { code: 0 }));
    assert_eq!(with(&|x| x[32] = 7), Err(LcpError::TargetCode { code: 7 }));
    assert_eq!(with(&|x| x[40] = 1), Err(LcpError::Reserved { byte: 40, value: 1 }));
    assert_eq!(with(&|x| x[5] = 0x20), Err(LcpError::Reserved { byte: 5, value: 0x20 }));
    assert_eq!(with(&|x| x[3] = 0xc0), Err(LcpError::Reserved { byte: 3, value: 0xc0 }));
    assert_eq!(with(&|x| x[33] = 3), Err(LcpError::ExceptionCount { marked: 2, count: 3 }));
    assert_eq!(with(&|x| x[3] = 0x82), Err(LcpError::ExceptionSlot { line: 3, slot: 2, count: 2 }));
    assert_eq!(with(&|x| x[4] = 0x80), Err(LcpError::SharedSlot { first: 3, line: 4, slot: 0 }));
    assert_eq!(with(&|x| x[33] = 31), Err(LcpError::Overrun { needed: 64 + 256 + 31 * 128, target: 8, exceptions: 31, got: 1024 }));
    // Line 5's slot starts with a reserved BDI code; a BDI stream longer than its slot.
    assert_eq!(
        with(&|x| x[64 + 5 * 8] = 0x0c),
        Err(LcpError::Line { line: 5, target: 8, source: DecodeError::ReservedEncoding { algorithm: "bdi", code: 12 } })
    );
    let small = LcpPage::compress(&[MemoryEntry::ZERO; 32]).bytes().to_vec();
    let mut bad = small.clone();
    bad[64 + 8] = 0x02; // line 1: base8-Δ1 (212 bits) in an 8-byte slot
    assert!(matches!(LcpPage::decompress(&bad), Err(LcpError::Line { line: 1, target: 8, source: DecodeError::StreamOverrun { .. } })));
    assert!(matches!(read_line(&bad, 1), Err(LcpError::Line { line: 1, .. })));
    assert_eq!(read_line(&bad, 0), Ok(MemoryEntry::ZERO)); // another line still reads
    assert_eq!(good.line(32), Err(LcpError::LineIndex { line: 32 }));
    assert_eq!(read_line(&[0u8; 100], 0), Err(LcpError::PhysicalSize { got: 100 }));
}

// ---------------------------------------------------------------- properties

/// The layout a brute-force search over every `c*` picks: the smallest
/// physical page of at most 2048 bytes, then fewest exceptions, then the
/// smallest `c*`; else uncompressed.
fn brute_force(sizes: &[usize; 32]) -> (usize, Option<SizeClass>, usize) {
    let mut options: Vec<(usize, usize, usize, SizeClass)> = Vec::new();
    for t in TARGETS {
        let e = sizes.iter().filter(|&&s| s > t.bytes()).count();
        let used = 64 + 32 * t.bytes() + 128 * e;
        if let Some(&p) = PHYSICAL_SIZES.iter().find(|&&p| p < 4096 && used <= p) {
            options.push((p, e, t.bytes(), t));
        }
    }
    options.sort();
    options.first().map_or((4096, None, 0), |&(p, e, _, t)| (p, Some(t), e))
}

/// A line: zero, BDI-compressible of some encoding, or noise.
fn line() -> impl Strategy<Value = MemoryEntry> {
    prop_oneof![
        4 => Just(MemoryEntry::ZERO),
        3 => (any::<u64>(), 0u64..200, 0u64..70_000).prop_map(|(b, step, wide)| {
            MemoryEntry::from_words(std::array::from_fn(|i| {
                let v = b.wrapping_add(step * (i as u64 / 2)).wrapping_add(if i == 31 { wide << 32 } else { 0 });
                (v >> (32 * (i % 2))) as u32
            }))
        }),
        1 => any::<u32>().prop_map(|v| MemoryEntry::from_words([v; 32])),
        1 => (0u32..8, any::<u32>()).prop_map(|(n, seed)| {
            let mut w = [0u32; 32];
            for (i, x) in w.iter_mut().take(n as usize).enumerate() {
                *x = seed.rotate_left(i as u32) | 1;
            }
            MemoryEntry::from_words(w)
        }),
        2 => any::<u32>().prop_map(noise),
    ]
}

fn page() -> impl Strategy<Value = [MemoryEntry; 32]> {
    proptest::collection::vec(line(), 32).prop_map(|v| v.try_into().unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(1_000)))]

    #[test]
    fn pages_round_trip_in_the_chosen_layout(lines in page()) {
        let p = LcpPage::compress(&lines);
        prop_assert_eq!(LcpPage::decompress(p.bytes()), Ok(lines));
        for (i, l) in lines.iter().enumerate() {
            prop_assert_eq!(p.line(i), Ok(*l));
        }
        let sizes: [usize; 32] = std::array::from_fn(|i| Bdi.compress(&lines[i]).class.bytes());
        let (physical, target, exceptions) = brute_force(&sizes);
        prop_assert_eq!((p.physical_size(), p.target(), p.layout().exception_count()), (physical, target, exceptions));
        prop_assert_eq!(Layout::choose(&sizes), p.layout());
        prop_assert_eq!(p.bytes().len(), physical);
        let data: Vec<u8> = lines.iter().flat_map(|e| e.to_bytes()).collect();
        prop_assert_eq!(physical_bytes_of(&data), physical as u64);
    }

    /// Flipped bits and cut pages: lines or an error, never a panic.
    #[test]
    fn corrupt_pages_never_panic(lines in page(), flips in proptest::collection::vec(0usize..4096 * 8, 1..6), cut in 0usize..4096) {
        let p = LcpPage::compress(&lines);
        let mut b = p.bytes().to_vec();
        for &bit in &flips {
            let n = b.len();
            b[bit / 8 % n] ^= 1 << (bit % 8);
        }
        let _ = LcpPage::decompress(&b);
        for i in 0..33 {
            let _ = read_line(&b, i);
        }
        let _ = LcpPage::decompress(&b[..cut.min(b.len())]);
    }

    #[test]
    fn arbitrary_bytes_never_panic(size in 0usize..4, bytes in proptest::collection::vec(any::<u8>(), 4096), line in 0usize..40) {
        let b = &bytes[..PHYSICAL_SIZES[size]];
        let _ = LcpPage::decompress(b);
        let _ = read_line(b, line);
    }
}

// ---------------------------------------------------------------- real data

/// Every 4 KB page of snapshot 0 of every shared workload (the last one
/// zero-padded) round-trips, whole and line by line, and
/// `physical_bytes_of` is the sum of the pages' sizes; the LCP and BDI
/// ratios are printed (`-- --nocapture`).
#[test]
fn every_page_of_the_shared_snapshots_round_trips() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    let folders = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}; this test needs the shared workloads beside the repository", root.display()));
    let mut workloads: Vec<(String, PathBuf)> =
        folders.flatten().map(|f| (f.file_name().to_string_lossy().into_owned(), f.path().join("snap_00.bin"))).collect();
    workloads.sort();
    let mut checked = 0;
    for (w, snapshot) in workloads {
        let Ok(data) = std::fs::read(&snapshot) else { continue };
        let mut physical = 0u64;
        let mut per_size = [0usize; 4];
        for chunk in data.chunks(PAGE_BYTES) {
            let mut bytes = [0u8; PAGE_BYTES];
            bytes[..chunk.len()].copy_from_slice(chunk);
            let lines = page_entries(&bytes);
            let p = LcpPage::compress(&lines);
            assert_eq!(LcpPage::decompress(p.bytes()), Ok(lines), "{w}");
            for (i, l) in lines.iter().enumerate().take(LINES_PER_PAGE) {
                assert_eq!(read_line(p.bytes(), i), Ok(*l), "{w} line {i}");
            }
            physical += p.physical_size() as u64;
            per_size[PHYSICAL_SIZES.iter().position(|&s| s == p.physical_size()).unwrap()] += 1;
        }
        assert_eq!(physical_bytes_of(&data), physical, "{w}");
        let pages = pages_of(data.len());
        eprintln!(
            "{w}: {pages} pages, physical {physical} bytes, pages of 512/1024/2048/4096: {per_size:?}, LCP ratio {:.3}",
            (pages * PAGE_BYTES) as f64 / physical as f64
        );
        checked += 1;
    }
    assert!(checked > 0, "{} holds no workload with a snap_00.bin", root.display());
}
