//! The controller slice's behaviour model on its own: round trips on every
//! target ratio, read-modify-write, ZERO entries, uncompressed pages, the
//! traffic it reports, and its errors.

use buddy_golden::controller_slice::{ControllerSlice, SliceConfig, SliceError, SliceMemory, FULL_MASK};
use buddy_golden::metadata_cache::{MetadataCacheConfig, Outcome, SectorMemory};
use buddy_golden::translation::{BuddyRegisters, PageSize, Pte, TargetRatio};
use buddy_golden::{Algorithm, MemoryEntry, SizeClass, ENTRY_BYTES};
use std::collections::HashMap;

const PAGE: u64 = 64 << 10;
const HEAP: u64 = 0x1_0000_0000;
const GBBR: u64 = 0x8000_0000_0000;
const MD_BASE: u64 = 0x4000_0000;

/// Byte maps: device (data and metadata region) and buddy.
#[derive(Default)]
struct Memory {
    device: HashMap<u64, u8>,
    buddy: HashMap<u64, u8>,
}

impl SectorMemory for Memory {
    fn read_sector(&mut self, address: u64, data: &mut [u8]) {
        self.read_device(address, data);
    }
    fn write_sector(&mut self, address: u64, data: &[u8]) {
        self.write_device(address, data);
    }
}

impl SliceMemory for Memory {
    fn read_device(&mut self, address: u64, out: &mut [u8]) {
        out.iter_mut().enumerate().for_each(|(i, b)| *b = self.device.get(&(address + i as u64)).copied().unwrap_or(0));
    }
    fn write_device(&mut self, address: u64, data: &[u8]) {
        data.iter().enumerate().for_each(|(i, &b)| {
            self.device.insert(address + i as u64, b);
        });
    }
    fn read_buddy(&mut self, address: u64, out: &mut [u8]) {
        out.iter_mut().enumerate().for_each(|(i, b)| *b = self.buddy.get(&(address + i as u64)).copied().unwrap_or(0));
    }
    fn write_buddy(&mut self, address: u64, data: &[u8]) {
        data.iter().enumerate().for_each(|(i, &b)| {
            self.buddy.insert(address + i as u64, b);
        });
    }
}

/// One page per target, frames and buddy slots one after the other.
fn pages(compressed: bool) -> Vec<(u64, Pte, TargetRatio)> {
    let (mut frame, mut buddy) = (0u64, 0u32);
    TargetRatio::ALL
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            let pte = Pte { frame, compressed, target_code: t.code(), buddy_offset: buddy };
            frame += PAGE * t.device_bytes() / 128;
            buddy += (t.buddy_stride() / 32) as u32;
            (HEAP + i as u64 * PAGE, pte, t)
        })
        .collect()
}

fn slice(algorithm: Algorithm) -> ControllerSlice {
    let regs = BuddyRegisters { gbbr: GBBR, carve_out_bytes: 64 * PAGE, md_base: MD_BASE, heap_base: HEAP };
    ControllerSlice::new(SliceConfig { algorithm, metadata_cache: MetadataCacheConfig::default(), regs, page: PageSize::Small64K }).unwrap()
}

/// Entries of every compressibility: zero, a few small words, a ramp, noise.
fn entries() -> Vec<MemoryEntry> {
    let mut x = 0x1234_5678u32;
    let mut noise = || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    vec![
        MemoryEntry::ZERO,
        MemoryEntry::from_words(std::array::from_fn(|i| if i % 8 == 0 { 7 } else { 0 })),
        MemoryEntry::from_words(std::array::from_fn(|i| 1000 + i as u32)),
        MemoryEntry::from_words(std::array::from_fn(|_| noise())),
    ]
}

#[test]
fn every_target_and_algorithm_reads_back_what_was_written() {
    for algorithm in [Algorithm::Bpc, Algorithm::Zvc, Algorithm::MagBdi(buddy_golden::Mag::B32)] {
        let mut s = slice(algorithm);
        let mut m = Memory::default();
        for (base, pte, target) in pages(true) {
            for (k, e) in entries().iter().enumerate() {
                let va = base + k as u64 * 128;
                let w = s.write(&pte, va, FULL_MASK, &e.to_bytes(), &mut m).unwrap();
                assert_eq!(w.entry, *e);
                let part = w.write.as_ref().unwrap();
                // What does not fit the target goes to buddy-memory.
                let class_bytes = part.class.bytes() as u64;
                assert_eq!(part.buddy.count > 0, class_bytes > target.device_bytes(), "{algorithm} {target} {k}");
                let r = s.read(&pte, va, &mut m).unwrap();
                assert_eq!(r.entry, *e, "{algorithm} {target} entry {k}");
                assert_eq!(r.read.as_ref().unwrap().class, part.class);
            }
        }
        let flushed = s.flush(&mut m);
        assert!(!flushed.write_backs.is_empty());
        for (base, pte, _) in pages(true) {
            for (k, e) in entries().iter().enumerate() {
                assert_eq!(s.peek(&pte, base + k as u64 * 128, &mut m).unwrap(), *e);
            }
        }
    }
}

#[test]
fn a_partial_write_merges_with_memory() {
    let mut s = slice(Algorithm::Bpc);
    let mut m = Memory::default();
    let (base, pte, _) = pages(true)[2];
    let old = entries()[3];
    s.preload(&pte, base, &old, &mut m).unwrap();
    let new = entries()[2];
    let w = s.write(&pte, base, 0b0101, &new.to_bytes(), &mut m).unwrap();
    let mut expect = old.to_bytes();
    for sector in [0usize, 2] {
        expect[sector * 32..(sector + 1) * 32].copy_from_slice(&new.to_bytes()[sector * 32..(sector + 1) * 32]);
    }
    assert_eq!(w.entry, MemoryEntry::from_bytes(&expect));
    // The read of the read-modify-write missed the empty cache.
    let read = w.read.unwrap();
    assert_eq!(read.metadata.unwrap().outcome, Outcome::LineMiss);
    assert_eq!(s.read(&pte, base, &mut m).unwrap().entry, w.entry);
}

#[test]
fn a_zero_entry_moves_no_data_and_a_hit_no_metadata() {
    let mut s = slice(Algorithm::Zvc);
    let mut m = Memory::default();
    let (base, pte, _) = pages(true)[3];
    s.write(&pte, base, FULL_MASK, &[0; ENTRY_BYTES], &mut m).unwrap();
    let r = s.read(&pte, base, &mut m).unwrap().read.unwrap();
    assert_eq!(r.class, SizeClass::Zero);
    assert_eq!((r.device.count, r.buddy.count), (0, 0));
    assert!(r.metadata_hit());
    assert!(r.metadata.unwrap().traffic.is_empty());
}

#[test]
fn a_line_miss_writes_back_the_dirty_victim_before_its_fill() {
    // 1 set x 1 way: every new metadata line evicts the last.
    let regs = BuddyRegisters { gbbr: GBBR, carve_out_bytes: 64 * PAGE, md_base: MD_BASE, heap_base: HEAP };
    let md = MetadataCacheConfig { size_bytes: 128, ways: 1, line_bytes: 128, sector_bytes: 32, slices: 1 };
    let mut s =
        ControllerSlice::new(SliceConfig { algorithm: Algorithm::Bpc, metadata_cache: md, regs, page: PageSize::Small64K }).unwrap();
    let mut m = Memory::default();
    let (base, pte, _) = pages(true)[2];
    s.write(&pte, base, FULL_MASK, &entries()[2].to_bytes(), &mut m).unwrap();
    // 256 entries per 128-byte metadata line: this entry's nibble is in the next line.
    let r = s.read(&pte, base + 256 * 128, &mut m).unwrap().read.unwrap().metadata.unwrap();
    assert_eq!(r.outcome, Outcome::LineMiss);
    let nibbles = MD_BASE + (base - HEAP) / 256;
    assert_eq!(r.write_backs().collect::<Vec<_>>(), [nibbles]);
    assert_eq!(r.fill(), Some(nibbles + 128));
    assert!(r.traffic[0].write_back && !r.traffic[1].write_back);
}

#[test]
fn an_uncompressed_page_has_no_metadata_and_writes_its_masked_sectors() {
    let mut s = slice(Algorithm::Bpc);
    let mut m = Memory::default();
    let (base, pte, _) = pages(false)[0];
    let e = entries()[3];
    let w = s.write(&pte, base, 0b1010, &e.to_bytes(), &mut m).unwrap();
    let part = w.write.unwrap();
    assert!(part.metadata.is_none() && w.read.is_none());
    assert_eq!(part.device.iter().map(|d| (d.first - pte.frame, d.count)).collect::<Vec<_>>(), [(32, 1), (96, 1)]);
    let r = s.read(&pte, base, &mut m).unwrap();
    let mut expect = [0u8; ENTRY_BYTES];
    expect[32..64].copy_from_slice(&e.to_bytes()[32..64]);
    expect[96..].copy_from_slice(&e.to_bytes()[96..]);
    assert_eq!(r.entry, MemoryEntry::from_bytes(&expect));
    assert_eq!(r.read.unwrap().slot.count, 4);
}

#[test]
fn reserved_codes_and_faults_are_errors() {
    let mut s = slice(Algorithm::Bpc);
    let mut m = Memory::default();
    let (base, pte, _) = pages(true)[0];
    // Nibble 0xF (reserved) for the first entry of the heap.
    m.write_device(MD_BASE, &[0x0F]);
    assert!(matches!(s.read(&pte, base, &mut m), Err(SliceError::Decode { .. })));
    let bad = Pte { target_code: 6, ..pte };
    assert!(matches!(s.read(&bad, base, &mut m), Err(SliceError::Fault { .. })));
    assert!(matches!(s.write(&pte, HEAP - 128, FULL_MASK, &[0; ENTRY_BYTES], &mut m), Err(SliceError::Fault { .. })));
}
