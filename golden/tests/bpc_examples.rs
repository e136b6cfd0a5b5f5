//! Every worked example of docs/formats.md#bpc-test-vectors (E1-E13): bit count, symbol sequence,
//! stored bytes, and the decode back to the block.

use buddy_golden::bpc::{self, transpose32, Symbol, Symbol::*};
use buddy_golden::{Bpc, Codec, MemoryEntry, SizeClass};

fn entry(f: impl Fn(usize) -> u32) -> MemoryEntry {
    MemoryEntry::from_words(std::array::from_fn(f))
}

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Check bits, symbols (when given) and bytes, then the decode.
fn check(e: &MemoryEntry, bits: usize, symbols: Option<&[Symbol]>, bytes: &str) {
    assert_eq!(bpc::stream_bits(e), bits);
    if let Some(s) = symbols {
        assert_eq!(bpc::symbols(e), s);
    }
    let (stream, len) = bpc::encode_full(e);
    assert_eq!(len, bits);
    assert_eq!(stream, hex(bytes));
    assert_eq!(bpc::decode(&stream), Ok((*e, bits)));
}

#[test]
fn e1_all_zero() {
    check(&entry(|_| 0), 10, Some(&[BaseZero, ZeroRun(33)]), "f0 03");
}

#[test]
fn e2_constant_deadbeef() {
    check(&entry(|_| 0xDEAD_BEEF), 40, Some(&[Base32(0xDEAD_BEEF), ZeroRun(33)]), "f7 6a fb ee fd");
}

#[test]
fn e3_ramp() {
    check(&entry(|i| i as u32), 15, Some(&[BaseZero, ZeroRun(32), All1]), "f0 01");
}

#[test]
fn e4_random_block_is_the_maximum_1089_bits() {
    let w: [u32; 32] = [
        0x6AA79987, 0xBB91433A, 0x029A7245, 0xD1F6F86C, 0xD340BBCD, 0xCD8778E7, 0x4C73A942, 0xDAEA58BA, 0x5E503A67, 0xEE897110, 0x3193CA54,
        0x452EC40A, 0x90E5E945, 0x6FACAA50, 0x29645F8B, 0x5F811CB9, 0x1FCFF454, 0xDFC9E3B1, 0x6ED4E94B, 0x42D6CB5C, 0x8FE46024, 0xA091250E,
        0x2CA1C789, 0x9C9CEA0C, 0x8D9FE5B9, 0x2FD2B7A4, 0x5ADAD121, 0xBCF74D7A, 0xF543BBCF, 0xBB9D58E4, 0x175F0CD2, 0x87F26AEE,
    ];
    let e = MemoryEntry::from_words(w);
    assert_eq!(&e.to_bytes()[..16], &hex("87 99 a7 6a 3a 43 91 bb 45 72 9a 02 6c f8 f6 d1")[..]);
    let syms = bpc::symbols(&e);
    assert_eq!(syms.len(), 34);
    assert_eq!(syms[0], Base32(0x6AA79987));
    assert_eq!(syms[1], Raw(0b1010100110011011010100101010101));
    assert!(syms[1..].iter().all(|s| matches!(s, Raw(_))));
    check(
        &e,
        1089,
        None,
        "adca33c357662b5547ad30024fada98fbb61bfc0cb55500187fe6445bb402c90
         ca69e01252231c3c86b290ea37106a763a113a715618444aa7b9aaac9384f9b7
         67b7c44a1a63d3b7079f76d57e288c540f1dbebdb76da3862b210b8d83b2ea41
         5bfe2c30b6cdfc539334bdb5e28ec32f6322ed4b7fd3077b3a73548373b9fadd
         b69fbb9afbd2453300",
    );
    // Above 768 bits: stored RAW.
    let c = Bpc.compress(&e);
    assert_eq!((c.class, c.stream_bits), (SizeClass::Raw, 1089));
}

#[test]
fn e5_constant_five() {
    check(&entry(|_| 5), 14, Some(&[Base4(5), ZeroRun(33)]), "54 3f");
}

#[test]
fn e6_even_ramp_all1_wins_the_tie_with_dbp0() {
    check(&entry(|i| 2 * i as u32), 20, Some(&[BaseZero, ZeroRun(31), All1, All1]), "f0 02 00");
}

#[test]
fn e7_dbp0_before_one1() {
    check(&entry(|i| if i < 10 { 0 } else { 2 }), 25, Some(&[BaseZero, ZeroRun(31), One1(9), Dbp0]), "f0 62 09 01");
}

#[test]
fn e8_signed_deltas_cross_zero_cheaply() {
    check(&entry(|i| (16 - i as i32) as u32), 23, Some(&[Base8(16), All1, ZeroRun(32)]), "42 00 3e");
}

#[test]
fn e9_two1() {
    check(
        &entry(|i| {
            if i < 5 {
                0
            } else if i == 5 {
                1
            } else {
                2
            }
        }),
        20,
        Some(&[BaseZero, ZeroRun(32), Two1(4)]),
        "f0 21 02",
    );
}

#[test]
fn e10_minus_100() {
    check(&entry(|_| 0xFFFF_FF9C), 18, Some(&[Base8(0x9C), ZeroRun(33)]), "ca f1 03");
}

#[test]
fn e11_minus_one() {
    check(&entry(|_| 0xFFFF_FFFF), 14, Some(&[Base4(0xF), ZeroRun(33)]), "7c 3f");
}

#[test]
fn e12_most_negative() {
    check(&entry(|_| 0x8000_0000), 40, Some(&[Base32(0x8000_0000), ZeroRun(33)]), "03 00 00 00 fc");
}

#[test]
fn e13_one_value_then_zeros() {
    check(
        &entry(|i| if i == 0 { 0x1234 } else { 0 }),
        105,
        Some(&[
            Base16(0x1234),
            One1(0),
            ZeroRun(19),
            Dbp0,
            One1(0),
            Zero1,
            Dbp0,
            One1(0),
            ZeroRun(2),
            Dbp0,
            Zero1,
            One1(0),
            Zero1,
            Dbp0,
            Zero1,
        ]),
        "46 62 c1 c0 08 31 20 c4 40 00 89 01 21 01",
    );
}

#[test]
// Index loops on purpose: the reference is the definition, element by element.
#[allow(clippy::needless_range_loop)]
fn transpose_matches_the_naive_definition() {
    let mut a: [u32; 32] = std::array::from_fn(|i| (i as u32 + 1).wrapping_mul(0x9E37_79B9) ^ (i as u32) << 7);
    let orig = a;
    transpose32(&mut a);
    for r in 0..32 {
        for c in 0..32 {
            assert_eq!((a[c] >> r) & 1, (orig[r] >> c) & 1, "r {r} c {c}");
        }
    }
}

#[test]
fn mandatory_decode_errors_name_offset_and_rule() {
    use buddy_golden::DecodeError::*;
    // base zero, then ZRUN with n - 2 = 31 -> 33 planes: fine; with ONE1 first
    // then ZRUN 33 the run is longer than the 32 planes left.
    let mut w = buddy_golden::bitstream::BitWriter::default();
    w.put_msb_first(0b000, 3);
    w.put_msb_first(0b00011, 5);
    w.put_msb_first(0, 5);
    w.put_msb_first(0b01, 2);
    w.put_msb_first(31, 5);
    let mut b = [0u8; 4];
    w.copy_bytes(&mut b);
    assert_eq!(bpc::decode(&b), Err(BpcZeroRunTooLong { offset: 13, run: 33, planes_left: 32 }));
    // TWO1 at 30 and ONE1 at 31.
    for (code, p, err) in
        [(0b00010u32, 30u32, BpcTwo1Position { offset: 3, position: 30 }), (0b00011, 31, BpcOne1Position { offset: 3, position: 31 })]
    {
        let mut w = buddy_golden::bitstream::BitWriter::default();
        w.put_msb_first(0b000, 3);
        w.put_msb_first(code, 5);
        w.put_msb_first(p, 5);
        let mut b = [0u8; 2];
        w.copy_bytes(&mut b);
        assert_eq!(bpc::decode(&b), Err(err));
    }
    // Out of input: E1 cut to 1 byte; the ZRUN length field at bit 5 needs 5 bits, 3 are left.
    assert_eq!(bpc::decode(&[0xf0]), Err(BpcOutOfInput { offset: 5 }));
    assert_eq!(bpc::decode(&[]), Err(BpcOutOfInput { offset: 0 }));
}
