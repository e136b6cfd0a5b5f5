//! Property tests of the golden Buddy translation (docs/formats.md#addresses).

use buddy_golden::translation::*;
use buddy_golden::SizeClass;
use proptest::prelude::*;
use std::collections::BTreeSet;

const REGS: BuddyRegisters =
    BuddyRegisters { gbbr: 0x40_0000_0000, carve_out_bytes: 48 << 30, md_base: 0x8000_0000, heap_base: 0x7f00_0000_0000 };

fn page() -> impl Strategy<Value = PageSize> {
    prop_oneof![Just(PageSize::Huge2M), Just(PageSize::Small64K)]
}

/// Page `i` of an allocation laid out as an allocator would: device frames
/// back to back at the target's frame size, buddy slots `4 * i` units apart
/// (a page's buddy part is at most one page = 4 units of page/4).
fn pte(page: PageSize, target: TargetRatio, i: u64) -> Pte {
    let frame_bytes = page.bytes() / 128 * target.device_bytes();
    Pte { frame: 0x1000_0000 + i * frame_bytes, compressed: true, target_code: target.code(), buddy_offset: 4 * i as u32 }
}

fn target() -> impl Strategy<Value = TargetRatio> {
    proptest::sample::select(TargetRatio::ALL.to_vec())
}

fn overlaps(a: ByteRange, b: ByteRange) -> bool {
    a.bytes > 0 && b.bytes > 0 && a.address < b.end() && b.address < a.end()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// Device slots and buddy slots of two different entries (same or
    /// different page) never overlap.
    #[test]
    fn slots_of_different_entries_never_overlap(page in page(), target in target(), p1 in 0u64..4, p2 in 0u64..4, e1 in 0u64..512, e2 in 0u64..512) {
        let entries = page.bytes() / 128;
        let (e1, e2) = (e1 % entries, e2 % entries);
        prop_assume!((p1, e1) != (p2, e2));
        let va = |p: u64, e: u64| REGS.heap_base + p * page.bytes() + e * 128;
        let a = translate_entry(&REGS, page, &pte(page, target, p1), va(p1, e1), SizeClass::Raw).unwrap();
        let b = translate_entry(&REGS, page, &pte(page, target, p2), va(p2, e2), SizeClass::Raw).unwrap();
        prop_assert!(!overlaps(a.device_slot, b.device_slot));
        if let (Some(x), Some(y)) = (a.buddy, b.buddy) {
            prop_assert!(!overlaps(x, y));
        }
    }

    /// Every byte of an entry maps to exactly one place; the 128 places are
    /// distinct, the first `device_bytes` in the device slot, the rest in the
    /// buddy slot.
    #[test]
    fn every_byte_maps_to_one_place(page in page(), target in target(), p in 0u64..4, e in 0u64..512) {
        let e = e % (page.bytes() / 128);
        let base = REGS.heap_base + p * page.bytes() + e * 128;
        let pte = pte(page, target, p);
        let access = translate_entry(&REGS, page, &pte, base, SizeClass::Raw).unwrap();
        let mut places = BTreeSet::new();
        for o in 0..128u64 {
            let place = locate_byte(&REGS, page, &pte, base + o).unwrap();
            match place {
                Place::Device(a) => {
                    prop_assert!(o < target.device_bytes());
                    prop_assert!(a >= access.device_slot.address && a < access.device_slot.end());
                }
                Place::Buddy(a) => {
                    let spill = access.buddy.unwrap();
                    prop_assert!(o >= target.device_bytes());
                    prop_assert!(a >= spill.address && a < spill.end());
                }
            }
            places.insert(place);
        }
        prop_assert_eq!(places.len(), 128);
    }

    /// An entry whose class fits its target touches no buddy memory; one
    /// that does not fit reads exactly the spill.
    #[test]
    fn fitting_entries_never_touch_buddy(page in page(), target in target(), code in 0u8..8, e in 0u64..512) {
        let class = SizeClass::from_code(code).unwrap();
        let va = REGS.heap_base + (e % (page.bytes() / 128)) * 128;
        let a = translate_entry(&REGS, page, &pte(page, target, 0), va, class).unwrap();
        if target.fits(class) {
            prop_assert_eq!(a.buddy, None);
            prop_assert_eq!(a.device.bytes, class.bytes() as u64);
        } else {
            prop_assert_eq!(a.buddy.unwrap().bytes, class.bytes() as u64 - target.device_bytes());
            prop_assert_eq!(a.device.bytes, target.device_bytes());
        }
    }

    /// Consecutive entries share a metadata byte in pairs (low nibble even).
    #[test]
    fn metadata_nibbles_are_unique(page in page(), e in 0u64..512) {
        let e = e % (page.bytes() / 128 - 1);
        let t = pte(page, TargetRatio::X2, 0);
        let m = |e: u64| translate_entry(&REGS, page, &t, REGS.heap_base + e * 128, SizeClass::B8).unwrap().metadata.unwrap();
        let (a, b) = (m(e), m(e + 1));
        prop_assert_ne!(a, b);
        prop_assert_eq!(a.high, e % 2 == 1);
        prop_assert_eq!(a.address, REGS.md_base + e / 2);
    }
}
