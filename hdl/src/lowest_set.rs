//! The lowest set bit of a 128-bit vector, as a log-depth tree: how the
//! pipelined slice picks a free request context or a complete payload.

use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Combinational: whether any bit of `bits` is set, and the position of
/// the lowest set bit (0 when none).
///
/// A tree of 7 levels: each node of level `k` covers `2^k` bits and passes
/// on whether any of them is set and the lowest one's position within
/// them, taking its lower half's when that has one. About one LUT level per
/// tree level, where the two's-complement form `x & -x` plus an encoder
/// runs a 128-bit carry chain (32 CARRY4 cells in series on 7-series).
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `bits` | 128 | in | the vector |
/// | `any` | 1 | out | some bit is set |
/// | `index` | 7 | out | position of the lowest set bit (0 when none) |
#[derive(SettleBlock)]
pub struct LowestSet {
    _settle: crate::settle::Settle,
    pub bits: Signal<In, Bits<128>>,
    pub any: Signal<Out, Bit>,
    pub index: Signal<Out, Bits<7>>,
    /// Level k: whether node i's 2^k bits hold a set bit, and the lowest
    /// one's position among them (in the low k of 7 bits: one width for
    /// every level, as rust-hdl cannot cast inside a loop).
    v1: [Signal<Local, Bit>; 64],
    i1: [Signal<Local, Bits<7>>; 64],
    v2: [Signal<Local, Bit>; 32],
    i2: [Signal<Local, Bits<7>>; 32],
    v3: [Signal<Local, Bit>; 16],
    i3: [Signal<Local, Bits<7>>; 16],
    v4: [Signal<Local, Bit>; 8],
    i4: [Signal<Local, Bits<7>>; 8],
    v5: [Signal<Local, Bit>; 4],
    i5: [Signal<Local, Bits<7>>; 4],
    v6: [Signal<Local, Bit>; 2],
    i6: [Signal<Local, Bits<7>>; 2],
}

impl Default for LowestSet {
    fn default() -> Self {
        LowestSet {
            _settle: Default::default(),
            bits: Default::default(),
            any: Default::default(),
            index: Default::default(),
            v1: crate::default_array(),
            i1: crate::default_array(),
            v2: Default::default(),
            i2: Default::default(),
            v3: Default::default(),
            i3: Default::default(),
            v4: Default::default(),
            i4: Default::default(),
            v5: Default::default(),
            i5: Default::default(),
            v6: Default::default(),
            i6: Default::default(),
        }
    }
}

impl Logic for LowestSet {
    #[hdl_gen]
    fn update(&mut self) {
        // A node takes its lower half's position when that half has a set
        // bit, else its upper half's with the top position bit set.
        for n in 0..64 {
            self.v1[n].next = self.bits.val().get_bit(2 * n) | self.bits.val().get_bit(2 * n + 1);
            self.i1[n].next = 0.into();
            if !self.bits.val().get_bit(2 * n) {
                self.i1[n].next = 1.into();
            }
        }
        for n in 0..32 {
            self.v2[n].next = self.v1[2 * n].val() | self.v1[2 * n + 1].val();
            self.i2[n].next = self.i1[2 * n].val();
            if !self.v1[2 * n].val() {
                self.i2[n].next = self.i1[2 * n + 1].val() | bits::<7>(2);
            }
        }
        for n in 0..16 {
            self.v3[n].next = self.v2[2 * n].val() | self.v2[2 * n + 1].val();
            self.i3[n].next = self.i2[2 * n].val();
            if !self.v2[2 * n].val() {
                self.i3[n].next = self.i2[2 * n + 1].val() | bits::<7>(4);
            }
        }
        for n in 0..8 {
            self.v4[n].next = self.v3[2 * n].val() | self.v3[2 * n + 1].val();
            self.i4[n].next = self.i3[2 * n].val();
            if !self.v3[2 * n].val() {
                self.i4[n].next = self.i3[2 * n + 1].val() | bits::<7>(8);
            }
        }
        for n in 0..4 {
            self.v5[n].next = self.v4[2 * n].val() | self.v4[2 * n + 1].val();
            self.i5[n].next = self.i4[2 * n].val();
            if !self.v4[2 * n].val() {
                self.i5[n].next = self.i4[2 * n + 1].val() | bits::<7>(16);
            }
        }
        for n in 0..2 {
            self.v6[n].next = self.v5[2 * n].val() | self.v5[2 * n + 1].val();
            self.i6[n].next = self.i5[2 * n].val();
            if !self.v5[2 * n].val() {
                self.i6[n].next = self.i5[2 * n + 1].val() | bits::<7>(32);
            }
        }
        self.any.next = self.v6[0].val() | self.v6[1].val();
        self.index.next = self.i6[0].val();
        if !self.v6[0].val() {
            self.index.next = self.i6[1].val() | bits::<7>(64);
        }
        // No bit set: position 0 (every node's position is its upper half's
        // then; force the documented value).
        if !self.any.val() {
            self.index.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lowest(dut: &mut LowestSet, v: u128) -> (bool, u64) {
        let mut b = Bits::<128>::default();
        for i in 0..128 {
            b = b.replace_bit(i, v >> i & 1 == 1);
        }
        dut.bits.next = b;
        assert!(simulate(dut, 100));
        (dut.any.val(), dut.index.val().to_u64())
    }

    #[test]
    fn finds_the_lowest_set_bit() {
        let mut dut = LowestSet::default();
        dut.connect_all();
        assert_eq!(lowest(&mut dut, 0), (false, 0));
        let mut x = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834u128;
        for i in 0..128 {
            assert_eq!(lowest(&mut dut, 1 << i), (true, i as u64));
            assert_eq!(lowest(&mut dut, u128::MAX << i), (true, i as u64));
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = x >> (x % 128);
            assert_eq!(lowest(&mut dut, v), (v != 0, if v == 0 { 0 } else { v.trailing_zeros() as u64 }));
        }
    }
}
