//! The bytes of a memory-entry's device part and buddy part for its size
//! class: one block for both planners of the pipelined slice.

use rust_hdl::prelude::*;

/// Combinational: how many bytes of an entry's stored payload lie in its
/// device part and in its buddy slot (docs/formats.md#addresses; golden's
/// `translate_entry`: `min(class, part)` and `class - part`).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `size_class` | 3 | in | size class code (`class` is a SystemVerilog keyword) 0-7 (docs/formats.md#size-classes: 0, 8, 16, 32, 64, 80, 96, 128 bytes) |
/// | `compressed` | 1 | in | the page's PTE `compressed` bit (0: the whole 128-byte slot, no buddy part) |
/// | `part_bytes` | 8 | in | the device part: 128, 96, 64, 32 or 8 bytes |
/// | `device_bytes` | 9 | out | `min(class bytes, part)`; 128 on an uncompressed page |
/// | `buddy_bytes` | 9 | out | `class bytes - part` when positive, else 0; 0 on an uncompressed page |
#[derive(LogicBlock, Default)]
pub struct PartSizes {
    pub size_class: Signal<In, Bits<3>>,
    pub compressed: Signal<In, Bit>,
    pub part_bytes: Signal<In, Bits<8>>,
    pub device_bytes: Signal<Out, Bits<9>>,
    pub buddy_bytes: Signal<Out, Bits<9>>,
    class_bytes: Signal<Local, Bits<9>>,
    part: Signal<Local, Bits<9>>,
}

impl Logic for PartSizes {
    #[hdl_gen]
    fn update(&mut self) {
        self.class_bytes.next = 0.into();
        match self.size_class.val().index() {
            1 => {
                self.class_bytes.next = 8.into();
            }
            2 => {
                self.class_bytes.next = 16.into();
            }
            3 => {
                self.class_bytes.next = 32.into();
            }
            4 => {
                self.class_bytes.next = 64.into();
            }
            5 => {
                self.class_bytes.next = 80.into();
            }
            6 => {
                self.class_bytes.next = 96.into();
            }
            7 => {
                self.class_bytes.next = 128.into();
            }
            _ => {}
        }
        self.part.next = bit_cast::<9, 8>(self.part_bytes.val());
        self.device_bytes.next = self.class_bytes.val();
        self.buddy_bytes.next = 0.into();
        if self.class_bytes.val() > self.part.val() {
            self.device_bytes.next = self.part.val();
            self.buddy_bytes.next = self.class_bytes.val() - self.part.val();
        }
        if !self.compressed.val() {
            self.device_bytes.next = 128.into();
            self.buddy_bytes.next = 0.into();
        }
    }
}
