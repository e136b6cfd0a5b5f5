//! The bytes of a memory-entry's device part and buddy part for its size
//! class: one block for both planners of the pipelined slice.

use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Combinational: how many bytes of an entry's stored payload lie in its
/// device part and in its buddy slot (docs/formats.md#addresses; golden's
/// `translate_entry`: `min(class, part)` and `class - part`).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `size_class` | 3 | in | size class code (`class` is a SystemVerilog keyword) 0-7 (docs/formats.md#size-classes: 0, 8, 16, 32, 64, 80, 96, 128 bytes) |
/// | `compressed` | 1 | in | the page's PTE `compressed` bit (0: the whole 128-byte slot, no buddy part) |
/// | `part_bytes` | 8 | in | the device part: 128, 96, 64, 32 or 8 bytes (bits 2..0 ignored: parts are whole 8-byte units) |
/// | `device_units` | 5 | out | `min(class bytes, part)` in 8-byte units (0..=16); 16 on an uncompressed page |
/// | `buddy_units` | 5 | out | `class bytes - part` when positive, else 0, in 8-byte units; 0 on an uncompressed page |
///
/// Every size and part is a multiple of 8 bytes, so the block works on
/// 5-bit counts of 8-byte units: a planner's sector arithmetic on them is
/// a few LUT levels shallower than on bytes.
#[derive(SettleBlock, Default)]
pub struct PartSizes {
    _settle: crate::settle::Settle,
    pub size_class: Signal<In, Bits<3>>,
    pub compressed: Signal<In, Bit>,
    pub part_bytes: Signal<In, Bits<8>>,
    pub device_units: Signal<Out, Bits<5>>,
    pub buddy_units: Signal<Out, Bits<5>>,
    class_table: ClassUnits,
    class_units: Signal<Local, Bits<5>>,
    part: Signal<Local, Bits<5>>,
    dev: Signal<Local, Bits<5>>,
    bud: Signal<Local, Bits<5>>,
}

impl Logic for PartSizes {
    #[hdl_gen]
    fn update(&mut self) {
        self.class_table.size_class.next = self.size_class.val();
        self.class_units.next = self.class_table.class_units.val();
        self.part.next = self.part_bytes.val().get_bits::<5>(3);
        self.dev.next = self.class_units.val();
        self.bud.next = 0.into();
        if self.class_units.val() > self.part.val() {
            self.dev.next = self.part.val();
            self.bud.next = self.class_units.val() - self.part.val();
        }
        if !self.compressed.val() {
            self.dev.next = 16.into();
            self.bud.next = 0.into();
        }
        self.device_units.next = self.dev.val();
        self.buddy_units.next = self.bud.val();
    }
}

/// Combinational: the bytes of a size class in 8-byte units
/// (docs/formats.md#size-classes: 0, 8, 16, 32, 64, 80, 96, 128 bytes ->
/// 0, 1, 2, 4, 8, 10, 12, 16), the one table the slices' sector
/// arithmetic reads.
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `size_class` | 3 | in | size class code 0-7 |
/// | `class_units` | 5 | out | its bytes / 8 |
#[derive(SettleBlock, Default)]
pub struct ClassUnits {
    _settle: crate::settle::Settle,
    pub size_class: Signal<In, Bits<3>>,
    pub class_units: Signal<Out, Bits<5>>,
    value: Signal<Local, Bits<5>>,
}

impl Logic for ClassUnits {
    #[hdl_gen]
    fn update(&mut self) {
        self.value.next = 0.into();
        match self.size_class.val().index() {
            1 => {
                self.value.next = 1.into();
            }
            2 => {
                self.value.next = 2.into();
            }
            3 => {
                self.value.next = 4.into();
            }
            4 => {
                self.value.next = 8.into();
            }
            5 => {
                self.value.next = 10.into();
            }
            6 => {
                self.value.next = 12.into();
            }
            7 => {
                self.value.next = 16.into();
            }
            _ => {}
        }
        self.class_units.next = self.value.val();
    }
}
