//! The lowest set bit of a 128-bit vector, alone (a one-hot): how the
//! sector gather clears the context it picks.

use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Combinational: `bits` with every set bit above the lowest cleared (0
/// when no bit is set).
///
/// Bit `c` of `first` is `bits[c]` and no lower bit set: an OR over the
/// 16 groups of 8 bits below `c`'s group and over the lower bits of its
/// own group, 3-4 LUT levels, where a log-step prefix OR of the 128 bits
/// mapped to 7, and a decoder after [`crate::lowest_set::LowestSet`]'s
/// index would add 2 to its 7.
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `bits` | 128 | in | the vector |
/// | `first` | 128 | out | its lowest set bit alone (0 when none) |
#[derive(SettleBlock)]
pub struct FirstSet {
    _settle: crate::settle::Settle,
    pub bits: Signal<In, Bits<128>>,
    pub first: Signal<Out, Bits<128>>,
    group: [Signal<Local, Bits<8>>; 16],
    group_any: Signal<Local, Bits<16>>,
    /// Mask k: the groups below group k; mask j: the bits below bit j of a group.
    groups_below: [Constant<Bits<16>>; 16],
    lanes_below: [Constant<Bits<8>>; 8],
    below: Signal<Local, Bits<128>>,
}

impl Default for FirstSet {
    fn default() -> Self {
        FirstSet {
            _settle: Default::default(),
            bits: Default::default(),
            first: Default::default(),
            group: Default::default(),
            group_any: Default::default(),
            groups_below: std::array::from_fn(|k| Constant::new(((1u64 << k) - 1).into())),
            lanes_below: std::array::from_fn(|j| Constant::new(((1u64 << j) - 1).into())),
            below: Default::default(),
        }
    }
}

impl Logic for FirstSet {
    #[hdl_gen]
    fn update(&mut self) {
        // Bit c of `below`: some bit below c is set, in a lower group or
        // lower in c's.
        self.group_any.next = 0.into();
        for k in 0..16 {
            self.group[k].next = self.bits.val().get_bits::<8>(8 * k);
            self.group_any.next = self.group_any.val().replace_bit(k, self.group[k].val().any());
        }
        self.below.next = 0.into();
        for k in 0..16 {
            for j in 0..8 {
                self.below.next = self.below.val().replace_bit(
                    8 * k + j,
                    (self.group_any.val() & self.groups_below[k].val()).any() | (self.group[k].val() & self.lanes_below[j].val()).any(),
                );
            }
        }
        self.first.next = self.bits.val() & !self.below.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_lowest_set_bit_alone() {
        let mut dut = FirstSet::default();
        dut.connect_all();
        let mut x = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C834u128;
        let mut values = vec![0u128, u128::MAX];
        for i in 0..128 {
            values.extend([1 << i, u128::MAX << i]);
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(x >> (x % 128));
        }
        for v in values {
            let mut b = Bits::<128>::default();
            for i in 0..128 {
                b = b.replace_bit(i, v >> i & 1 == 1);
            }
            dut.bits.next = b;
            assert!(simulate(&mut dut, 100));
            let first: u128 = (0..128).filter(|&i| dut.first.val().get_bit(i)).map(|i| 1u128 << i).sum();
            assert_eq!(first, v & v.wrapping_neg(), "first of {v:#x}");
        }
    }
}
