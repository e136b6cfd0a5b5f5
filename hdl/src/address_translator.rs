//! GBBR/PTE address translation of one entry access per cycle.

use crate::register_slice::RegisterSlice;
use rust_hdl::prelude::*;

/// Fault codes of [`AddressTranslator`]'s `out_fault` (0: no fault).
pub mod fault {
    /// The PTE's target code is 5-7.
    pub const RESERVED_TARGET: u64 = 1;
    /// `va < HEAP_BASE` on a compressed page.
    pub const BELOW_HEAP_BASE: u64 = 2;
    /// The entry's buddy slot ends past `GBBR + carve_out_bytes`.
    pub const OUTSIDE_CARVE_OUT: u64 = 3;
    /// The size class code is 8-15 (reserved) on a compressed page.
    pub const RESERVED_CLASS: u64 = 4;
}

/// One translated access (one flat vector in Verilog; see
/// [`AddressTranslator`] for the fields).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct Translation {
    pub fault: Bits<3>,
    pub device_address: Bits<64>,
    pub device_bytes: Bits<8>,
    pub device_part_bytes: Bits<8>,
    pub buddy_valid: Bit,
    pub buddy_address: Bits<64>,
    pub buddy_bytes: Bits<8>,
    pub metadata_valid: Bit,
    pub metadata_address: Bits<64>,
    pub metadata_high: Bit,
}

/// Buddy address translation (docs/formats.md#translation; Buddy Compression
/// Sec. III, Fig. 4): for the entry holding `va`, on a page described by
/// its PTE, and the entry's size class, where its device part, its buddy
/// slot and its 4-bit size metadata live. Mirrors
/// `buddy_golden::translation::translate_entry` bit for bit.
///
/// ```text
///               stage 1 (register)          translation logic                 register slice
/// in_va ───────▶ s1_va ─┬─ e = (va mod page) >> 7 ──┬─ frame + e*device_bytes ──┐   ┌───────────┐
/// in_frame ────▶ s1_frame│  target decode (PTE[3:1]) ├─ GBBR + off*page/4        ├──▶│main │skid │──▶ out_*
/// in_pte ──────▶ s1_pte ─┤                           │   + e*stride, carve check │   └───────────┘◀── out_ready
/// in_class ────▶ s1_class└─ va - HEAP_BASE ──────────┴─ MD_BASE + (rel >> 8) ────┘
/// ```
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (empties the pipeline) |
/// | `gbbr` | 64 | in | Global Buddy Base-address Register (byte address) |
/// | `carve_out_bytes` | 64 | in | size of the buddy carve-out, bytes |
/// | `md_base` | 64 | in | base of the metadata region (byte address) |
/// | `heap_base` | 64 | in | lowest virtual address of compressed allocations |
/// | `in_valid`, `in_ready` | 1, 1 | in, out | access handshake |
/// | `in_va` | 64 | in | virtual byte address (any byte of the entry) |
/// | `in_frame` | 64 | in | physical byte address of the page's device frame |
/// | `in_pte` | 27 | in | PTE Buddy bits: `[0]` compressed, `[3:1]` target code, `[26:4]` buddy offset in units of page/4 |
/// | `in_page_64k` | 1 | in | 1: 64 KiB page, 0: 2 MiB page |
/// | `in_class` | 4 | in | the entry's size class code (docs/formats.md#size-classes) |
/// | `out_valid`, `out_ready` | 1, 1 | out, in | result handshake |
/// | `out_fault` | 3 | out | 0 none, else a [`fault`] code; every other output is 0 then |
/// | `out_device_address`, `out_device_bytes` | 64, 8 | out | device bytes the class needs: `min(class, device part)` from the entry's device slot |
/// | `out_device_part_bytes` | 8 | out | the entry's device part (128 on an uncompressed page) |
/// | `out_buddy_valid`, `out_buddy_address`, `out_buddy_bytes` | 1, 64, 8 | out | the bytes past the device part, from the buddy slot start (0 when the entry fits) |
/// | `out_metadata_valid`, `out_metadata_address`, `out_metadata_high` | 1, 64, 1 | out | the metadata nibble (byte address; 1 = high nibble); 0 on an uncompressed page |
///
/// Faults are checked in the golden model's order: reserved target, below
/// HEAP_BASE, outside the carve-out, then (hardware only: the golden type
/// cannot hold one) a reserved size class. An uncompressed page never
/// faults and ignores the class. The registers are configuration: hold them
/// stable while accesses are in flight. Addresses are 64-bit and must not
/// wrap (`GBBR + carve_out_bytes < 2^64`).
///
/// Timing: fully pipelined, initiation interval 1; latency 2 cycles (like
/// the compressors); `in_ready` and every output come from flip-flops.
#[derive(LogicBlock, Default)]
pub struct AddressTranslator {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub gbbr: Signal<In, Bits<64>>,
    pub carve_out_bytes: Signal<In, Bits<64>>,
    pub md_base: Signal<In, Bits<64>>,
    pub heap_base: Signal<In, Bits<64>>,
    pub in_valid: Signal<In, Bit>,
    pub in_va: Signal<In, Bits<64>>,
    pub in_frame: Signal<In, Bits<64>>,
    pub in_pte: Signal<In, Bits<27>>,
    pub in_page_64k: Signal<In, Bit>,
    pub in_class: Signal<In, Bits<4>>,
    pub in_ready: Signal<Out, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_fault: Signal<Out, Bits<3>>,
    pub out_device_address: Signal<Out, Bits<64>>,
    pub out_device_bytes: Signal<Out, Bits<8>>,
    pub out_device_part_bytes: Signal<Out, Bits<8>>,
    pub out_buddy_valid: Signal<Out, Bit>,
    pub out_buddy_address: Signal<Out, Bits<64>>,
    pub out_buddy_bytes: Signal<Out, Bits<8>>,
    pub out_metadata_valid: Signal<Out, Bit>,
    pub out_metadata_address: Signal<Out, Bits<64>>,
    pub out_metadata_high: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    s1_valid: DFF<Bit>,
    s1_va: DFF<Bits<64>>,
    s1_frame: DFF<Bits<64>>,
    s1_pte: DFF<Bits<27>>,
    s1_page_64k: DFF<Bit>,
    s1_class: DFF<Bits<4>>,
    s1_load: Signal<Local, Bit>,
    compressed: Signal<Local, Bit>,
    target: Signal<Local, Bits<3>>,
    entry_index: Signal<Local, Bits<64>>,
    device_part: Signal<Local, Bits<8>>,
    device_offset: Signal<Local, Bits<64>>,
    stride: Signal<Local, Bits<8>>,
    buddy_offset: Signal<Local, Bits<64>>,
    slot_address: Signal<Local, Bits<64>>,
    slot_end: Signal<Local, Bits<64>>,
    carve_end: Signal<Local, Bits<64>>,
    class_bytes: Signal<Local, Bits<8>>,
    class_reserved: Signal<Local, Bit>,
    relative: Signal<Local, Bits<64>>,
    fault_code: Signal<Local, Bits<3>>,
    result: Signal<Local, Translation>,
    slice: RegisterSlice<Translation>,
}

impl Logic for AddressTranslator {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_valid, s1_va, s1_frame, s1_pte, s1_page_64k, s1_class);
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();

        self.s1_load.next = !self.s1_valid.q.val() | self.slice.in_ready.val();
        self.in_ready.next = self.s1_load.val();
        if self.s1_load.val() {
            self.s1_valid.d.next = self.in_valid.val();
            self.s1_va.d.next = self.in_va.val();
            self.s1_frame.d.next = self.in_frame.val();
            self.s1_pte.d.next = self.in_pte.val();
            self.s1_page_64k.d.next = self.in_page_64k.val();
            self.s1_class.d.next = self.in_class.val();
        }
        if self.reset.val() {
            self.s1_valid.d.next = false;
        }

        self.compressed.next = self.s1_pte.q.val().get_bit(0);
        self.target.next = self.s1_pte.q.val().get_bits::<3>(1);
        // e = (va mod page) div 128: 14 bits for 2 MiB, 9 bits for 64 KiB.
        self.entry_index.next = bit_cast::<64, 14>(self.s1_va.q.val().get_bits::<14>(7));
        if self.s1_page_64k.q.val() {
            self.entry_index.next = bit_cast::<64, 9>(self.s1_va.q.val().get_bits::<9>(7));
        }
        // The buddy slot of the page: offset * page/4 (2^19 or 2^14 bytes).
        self.buddy_offset.next = bit_cast::<64, 23>(self.s1_pte.q.val().get_bits::<23>(4)) << 19;
        if self.s1_page_64k.q.val() {
            self.buddy_offset.next = bit_cast::<64, 23>(self.s1_pte.q.val().get_bits::<23>(4)) << 14;
        }

        // Device part and buddy stride per target (Table of §1); products
        // by 96 are two shifts, so no multiplier is built.
        self.device_part.next = 0.into();
        self.stride.next = 0.into();
        self.device_offset.next = 0.into();
        self.slot_address.next = self.gbbr.val() + self.buddy_offset.val();
        match self.target.val().index() {
            0 => {
                self.device_part.next = 128.into();
                self.device_offset.next = self.entry_index.val() << 7;
            }
            1 => {
                self.device_part.next = 96.into();
                self.stride.next = 32.into();
                self.device_offset.next = (self.entry_index.val() << 6) + (self.entry_index.val() << 5);
                self.slot_address.next = self.gbbr.val() + self.buddy_offset.val() + (self.entry_index.val() << 5);
            }
            2 => {
                self.device_part.next = 64.into();
                self.stride.next = 64.into();
                self.device_offset.next = self.entry_index.val() << 6;
                self.slot_address.next = self.gbbr.val() + self.buddy_offset.val() + (self.entry_index.val() << 6);
            }
            3 => {
                self.device_part.next = 32.into();
                self.stride.next = 96.into();
                self.device_offset.next = self.entry_index.val() << 5;
                self.slot_address.next =
                    self.gbbr.val() + self.buddy_offset.val() + ((self.entry_index.val() << 6) + (self.entry_index.val() << 5));
            }
            4 => {
                self.device_part.next = 8.into();
                self.stride.next = 128.into();
                self.device_offset.next = self.entry_index.val() << 3;
                self.slot_address.next = self.gbbr.val() + self.buddy_offset.val() + (self.entry_index.val() << 7);
            }
            _ => {}
        }
        self.slot_end.next = self.slot_address.val() + bit_cast::<64, 8>(self.stride.val());
        self.carve_end.next = self.gbbr.val() + self.carve_out_bytes.val();

        self.class_reserved.next = self.s1_class.q.val().get_bit(3);
        match self.s1_class.q.val().index() {
            0 => self.class_bytes.next = 0.into(),
            1 => self.class_bytes.next = 8.into(),
            2 => self.class_bytes.next = 16.into(),
            3 => self.class_bytes.next = 32.into(),
            4 => self.class_bytes.next = 64.into(),
            5 => self.class_bytes.next = 80.into(),
            6 => self.class_bytes.next = 96.into(),
            7 => self.class_bytes.next = 128.into(),
            _ => self.class_bytes.next = 0.into(),
        }
        self.relative.next = self.s1_va.q.val() - self.heap_base.val();

        self.fault_code.next = 0.into();
        if self.compressed.val() {
            if self.class_reserved.val() {
                self.fault_code.next = 4.into();
            }
            if (self.stride.val() != 0) & (self.slot_end.val() > self.carve_end.val()) {
                self.fault_code.next = 3.into();
            }
            if self.s1_va.q.val() < self.heap_base.val() {
                self.fault_code.next = 2.into();
            }
            if self.target.val() >= 5 {
                self.fault_code.next = 1.into();
            }
        }

        self.result.next.device_address = 0.into();
        self.result.next.device_bytes = 0.into();
        self.result.next.device_part_bytes = 0.into();
        self.result.next.buddy_valid = false;
        self.result.next.buddy_address = 0.into();
        self.result.next.buddy_bytes = 0.into();
        self.result.next.metadata_valid = false;
        self.result.next.metadata_address = 0.into();
        self.result.next.metadata_high = false;
        self.result.next.fault = self.fault_code.val();
        if !self.compressed.val() {
            self.result.next.device_address = self.s1_frame.q.val() + (self.entry_index.val() << 7);
            self.result.next.device_bytes = 128.into();
            self.result.next.device_part_bytes = 128.into();
        }
        if self.compressed.val() & (self.fault_code.val() == 0) {
            self.result.next.device_address = self.s1_frame.q.val() + self.device_offset.val();
            self.result.next.device_part_bytes = self.device_part.val();
            self.result.next.device_bytes = self.class_bytes.val();
            if self.class_bytes.val() > self.device_part.val() {
                self.result.next.device_bytes = self.device_part.val();
                self.result.next.buddy_valid = true;
                self.result.next.buddy_address = self.slot_address.val();
                self.result.next.buddy_bytes = self.class_bytes.val() - self.device_part.val();
            }
            self.result.next.metadata_valid = true;
            self.result.next.metadata_address = self.md_base.val() + (self.relative.val() >> 8);
            self.result.next.metadata_high = self.relative.val().get_bit(7);
        }

        self.slice.in_valid.next = self.s1_valid.q.val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        self.out_fault.next = self.slice.out_data.val().fault;
        self.out_device_address.next = self.slice.out_data.val().device_address;
        self.out_device_bytes.next = self.slice.out_data.val().device_bytes;
        self.out_device_part_bytes.next = self.slice.out_data.val().device_part_bytes;
        self.out_buddy_valid.next = self.slice.out_data.val().buddy_valid;
        self.out_buddy_address.next = self.slice.out_data.val().buddy_address;
        self.out_buddy_bytes.next = self.slice.out_data.val().buddy_bytes;
        self.out_metadata_valid.next = self.slice.out_data.val().metadata_valid;
        self.out_metadata_address.next = self.slice.out_data.val().metadata_address;
        self.out_metadata_high.next = self.slice.out_data.val().metadata_high;
    }
}
