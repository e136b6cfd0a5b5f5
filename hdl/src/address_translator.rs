//! GBBR/PTE address translation of one entry access per cycle.

use crate::register_slice::RegisterSlice;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

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
    /// Every fault code with its name (waveform viewers' translate filters).
    pub const NAMES: [(u64, &str); 4] = [
        (RESERVED_TARGET, "RESERVED_TARGET"),
        (BELOW_HEAP_BASE, "BELOW_HEAP_BASE"),
        (OUTSIDE_CARVE_OUT, "OUTSIDE_CARVE_OUT"),
        (RESERVED_CLASS, "RESERVED_CLASS"),
    ];
}

/// One translated access as the register slice holds it (one flat vector
/// in Verilog): every field as if no fault, and the fault conditions
/// apart, so the fault's priority and the zeroing of a faulting access's
/// fields are decided after the register (see [`AddressTranslator`]).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct Translation {
    /// The page's PTE `compressed` bit.
    pub compressed: Bit,
    /// On a compressed page: the target code is 5-7, `va < HEAP_BASE`,
    /// the buddy slot ends past the carve-out, the class code is 8-15.
    pub reserved_target: Bit,
    pub below_heap: Bit,
    pub outside: Bit,
    pub reserved_class: Bit,
    pub device_address: Bits<64>,
    pub device_bytes: Bits<8>,
    pub device_part_bytes: Bits<8>,
    /// The class spills into the buddy slot; `buddy_*` are 0 when not.
    pub buddy_valid: Bit,
    pub buddy_address: Bits<64>,
    pub buddy_bytes: Bits<8>,
    pub metadata_address: Bits<64>,
    pub metadata_high: Bit,
}

/// Cycles from an access accepted on `in_*` to its translation on
/// `out_*` with nothing stalled (the input stage and the output slice);
/// the initiation interval is 1. The pipelined slice's cycle model reads
/// it (`buddy-hdl-model`).
pub const LATENCY: u64 = 2;

/// Buddy address translation (docs/formats.md#translation; Buddy Compression
/// Sec. III, Fig. 4): for the entry holding `va`, on a page described by
/// its PTE, and the entry's size class, where its device part, its buddy
/// slot and its 4-bit size metadata live. Mirrors
/// `buddy_golden::translation::translate_entry` bit for bit.
///
/// ```text
///                     stage 1 (register)              translation logic                   register slice
/// in_va, in_page_64k ─▶ s1_entry e = (va mod page) >> 7 ─┬─ frame + e*device_bytes ────────┐   ┌───────────┐
/// GBBR + off*page/4 ──▶ s1_slot_base ────────────────────┼─ slot_base + e*stride           ├──▶│main │skid │──▶ out_*
/// carve_out - off*page/4 ▶ s1_room ──────────────────────┼─ (e+1)*stride > room: carve-out │   └───────────┘◀── out_ready
/// va - HEAP_BASE ─────▶ s1_relative ─────────────────────┴─ MD_BASE + (rel >> 8) ──────────┘
/// in_frame, PTE[3:0], in_class ─▶ s1_* (target decode, faults)
/// ```
///
/// The sums of an access and the configuration alone (`off` is the PTE's
/// buddy offset) are made as the access is taken, so that stage 1's logic
/// ends within 8 LUT levels.
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
/// the compressors); `in_ready` comes from flip-flops. The register slice
/// holds every field as if there were no fault and the four fault
/// conditions apart; `out_fault` (their priority) and the zeroing of a
/// faulting access's fields are 2 LUT levels after it, so the carve-out
/// compare ends at a flip-flop.
#[derive(SettleBlock, Default)]
pub struct AddressTranslator {
    _settle: crate::settle::Settle,
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
    s1_frame: DFF<Bits<64>>,
    /// PTE bits 3..0 (compressed, target code).
    s1_pte: DFF<Bits<4>>,
    s1_class: DFF<Bits<4>>,
    /// The entry's index in its page, `e = (va mod page) >> 7`; `e + 1`
    /// and `96 (e + 1)`, the ends of its buddy slot in strides.
    s1_entry: DFF<Bits<14>>,
    s1_entry_next: DFF<Bits<15>>,
    s1_end_96: DFF<Bits<22>>,
    /// The page's buddy slots start, `GBBR + offset * page/4`.
    s1_slot_base: DFF<Bits<64>>,
    /// Carve-out bytes past that start, `carve_out - offset * page/4`, and
    /// whether that is negative.
    s1_room: DFF<Bits<22>>,
    s1_room_negative: DFF<Bit>,
    /// The room is 2^22 bytes or more: past any slot end of a page.
    s1_room_big: DFF<Bit>,
    /// `(va - HEAP_BASE) >> 7`, and whether `va < HEAP_BASE`.
    s1_relative: DFF<Bits<57>>,
    s1_below_heap: DFF<Bit>,
    s1_load: Signal<Local, Bit>,
    in_buddy_offset: Signal<Local, Bits<64>>,
    in_entry: Signal<Local, Bits<14>>,
    in_entry_next: Signal<Local, Bits<15>>,
    in_room: Signal<Local, Bits<64>>,
    in_relative: Signal<Local, Bits<64>>,
    compressed: Signal<Local, Bit>,
    target: Signal<Local, Bits<3>>,
    entry_index: Signal<Local, Bits<64>>,
    entry_next: Signal<Local, Bits<22>>,
    end_96: Signal<Local, Bits<22>>,
    device_part: Signal<Local, Bits<8>>,
    device_offset: Signal<Local, Bits<64>>,
    slot_offset: Signal<Local, Bits<64>>,
    /// Per target 1-4: the entry's buddy slot ends past the carve-out.
    past_96: Signal<Local, Bit>,
    past_64: Signal<Local, Bit>,
    past_32: Signal<Local, Bit>,
    past_128: Signal<Local, Bit>,
    outside: Signal<Local, Bit>,
    class_bytes: Signal<Local, Bits<8>>,
    class_reserved: Signal<Local, Bit>,
    result: Signal<Local, Translation>,
    held: Signal<Local, Translation>,
    any_fault: Signal<Local, Bit>,
    fault_code: Signal<Local, Bits<3>>,
    slice: RegisterSlice<Translation>,
}

impl Logic for AddressTranslator {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_valid,
            s1_frame,
            s1_pte,
            s1_class,
            s1_entry,
            s1_entry_next,
            s1_end_96,
            s1_slot_base,
            s1_room,
            s1_room_negative,
            s1_room_big,
            s1_relative,
            s1_below_heap
        );
        self.slice.clock.next = self.clock.val();
        self.slice.reset.next = self.reset.val();

        // The sums of the access and the configuration alone are taken
        // with the access (the configuration is stable while accesses are
        // in flight), so stage 1's logic starts from them and meets the
        // 8-level budget.
        // The page's buddy slots: offset * page/4 (2^19 or 2^14 bytes).
        self.in_buddy_offset.next = bit_cast::<64, 23>(self.in_pte.val().get_bits::<23>(4)) << 19;
        // e = (va mod page) div 128: 14 bits for 2 MiB, 9 bits for 64 KiB.
        self.in_entry.next = self.in_va.val().get_bits::<14>(7);
        if self.in_page_64k.val() {
            self.in_buddy_offset.next = bit_cast::<64, 23>(self.in_pte.val().get_bits::<23>(4)) << 14;
            self.in_entry.next = bit_cast::<14, 9>(self.in_va.val().get_bits::<9>(7));
        }
        self.in_entry_next.next = bit_cast::<15, 14>(self.in_entry.val()) + 1;
        self.in_relative.next = self.in_va.val() - self.heap_base.val();
        self.in_room.next = self.carve_out_bytes.val() - self.in_buddy_offset.val();
        self.s1_load.next = !self.s1_valid.q.val() | self.slice.in_ready.val();
        self.in_ready.next = self.s1_load.val();
        if self.s1_load.val() {
            self.s1_valid.d.next = self.in_valid.val();
            self.s1_frame.d.next = self.in_frame.val();
            self.s1_pte.d.next = self.in_pte.val().get_bits::<4>(0);
            self.s1_class.d.next = self.in_class.val();
            self.s1_entry.d.next = self.in_entry.val();
            self.s1_entry_next.d.next = self.in_entry_next.val();
            self.s1_end_96.d.next =
                (bit_cast::<22, 15>(self.in_entry_next.val()) << 6) + (bit_cast::<22, 15>(self.in_entry_next.val()) << 5);
            self.s1_slot_base.d.next = self.gbbr.val() + self.in_buddy_offset.val();
            self.s1_room.d.next = self.in_room.val().get_bits::<22>(0);
            self.s1_room_big.d.next = self.in_room.val().get_bits::<42>(22).any();
            self.s1_room_negative.d.next = self.in_buddy_offset.val() > self.carve_out_bytes.val();
            self.s1_relative.d.next = self.in_relative.val().get_bits::<57>(7);
            self.s1_below_heap.d.next = self.in_va.val() < self.heap_base.val();
        }
        if self.reset.val() {
            self.s1_valid.d.next = false;
        }

        self.compressed.next = self.s1_pte.q.val().get_bit(0);
        self.target.next = self.s1_pte.q.val().get_bits::<3>(1);
        self.entry_index.next = bit_cast::<64, 14>(self.s1_entry.q.val());
        // (e + 1) * stride is at most 2^21: 22 bits against the room's.
        self.entry_next.next = bit_cast::<22, 15>(self.s1_entry_next.q.val());
        self.end_96.next = self.s1_end_96.q.val();

        // Device part and buddy stride per target (Table of §1); products
        // by 96 are two shifts, so no multiplier is built. The slot of
        // entry e ends at (e + 1) * stride past the page's slots: past the
        // carve-out when that exceeds the room, checked per target in
        // parallel (no wrap: GBBR + carve-out < 2^64).
        self.past_32.next =
            self.s1_room_negative.q.val() | (!self.s1_room_big.q.val() & ((self.entry_next.val() << 5) > self.s1_room.q.val()));
        self.past_64.next =
            self.s1_room_negative.q.val() | (!self.s1_room_big.q.val() & ((self.entry_next.val() << 6) > self.s1_room.q.val()));
        self.past_96.next = self.s1_room_negative.q.val() | (!self.s1_room_big.q.val() & (self.end_96.val() > self.s1_room.q.val()));
        self.past_128.next =
            self.s1_room_negative.q.val() | (!self.s1_room_big.q.val() & ((self.entry_next.val() << 7) > self.s1_room.q.val()));
        self.device_part.next = 0.into();
        self.device_offset.next = self.entry_index.val() << 7;
        self.slot_offset.next = 0.into();
        self.outside.next = false;
        match self.target.val().index() {
            0 => {
                self.device_part.next = 128.into();
            }
            1 => {
                self.device_part.next = 96.into();
                self.device_offset.next = (self.entry_index.val() << 6) + (self.entry_index.val() << 5);
                self.slot_offset.next = self.entry_index.val() << 5;
                self.outside.next = self.past_32.val();
            }
            2 => {
                self.device_part.next = 64.into();
                self.device_offset.next = self.entry_index.val() << 6;
                self.slot_offset.next = self.entry_index.val() << 6;
                self.outside.next = self.past_64.val();
            }
            3 => {
                self.device_part.next = 32.into();
                self.device_offset.next = self.entry_index.val() << 5;
                self.slot_offset.next = (self.entry_index.val() << 6) + (self.entry_index.val() << 5);
                self.outside.next = self.past_96.val();
            }
            4 => {
                self.device_part.next = 8.into();
                self.device_offset.next = self.entry_index.val() << 3;
                self.slot_offset.next = self.entry_index.val() << 7;
                self.outside.next = self.past_128.val();
            }
            _ => {}
        }
        if !self.compressed.val() {
            self.device_offset.next = self.entry_index.val() << 7;
        }

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

        // Every field as if no fault; the fault conditions apart.
        self.result.next.compressed = self.compressed.val();
        self.result.next.reserved_target = self.compressed.val() & (self.target.val() >= 5);
        self.result.next.below_heap = self.compressed.val() & self.s1_below_heap.q.val();
        self.result.next.outside = self.compressed.val() & self.outside.val();
        self.result.next.reserved_class = self.compressed.val() & self.class_reserved.val();
        self.result.next.device_address = self.s1_frame.q.val() + self.device_offset.val();
        self.result.next.device_bytes = 128.into();
        self.result.next.device_part_bytes = 128.into();
        self.result.next.buddy_valid = false;
        self.result.next.buddy_address = 0.into();
        self.result.next.buddy_bytes = 0.into();
        self.result.next.metadata_address = 0.into();
        self.result.next.metadata_high = false;
        if self.compressed.val() {
            self.result.next.device_part_bytes = self.device_part.val();
            self.result.next.device_bytes = self.class_bytes.val();
            if self.class_bytes.val() > self.device_part.val() {
                self.result.next.device_bytes = self.device_part.val();
                self.result.next.buddy_valid = true;
                self.result.next.buddy_address = self.s1_slot_base.q.val() + self.slot_offset.val();
                self.result.next.buddy_bytes = self.class_bytes.val() - self.device_part.val();
            }
            self.result.next.metadata_address = self.md_base.val() + bit_cast::<64, 56>(self.s1_relative.q.val().get_bits::<56>(1));
            self.result.next.metadata_high = self.s1_relative.q.val().get_bit(0);
        }

        self.slice.in_valid.next = self.s1_valid.q.val();
        self.slice.in_data.next = self.result.val();
        self.slice.out_ready.next = self.out_ready.val();
        self.out_valid.next = self.slice.out_valid.val();
        // After the register: the first fault in the golden model's order
        // (the codes of [`fault`]; the generator cannot name a Rust
        // constant, the testbench checks each code), and a faulting
        // access's fields zeroed.
        self.held.next = self.slice.out_data.val();
        self.any_fault.next =
            self.held.val().reserved_target | self.held.val().below_heap | self.held.val().outside | self.held.val().reserved_class;
        self.fault_code.next = 0.into();
        if self.held.val().reserved_class {
            self.fault_code.next = 4.into();
        }
        if self.held.val().outside {
            self.fault_code.next = 3.into();
        }
        if self.held.val().below_heap {
            self.fault_code.next = 2.into();
        }
        if self.held.val().reserved_target {
            self.fault_code.next = 1.into();
        }
        self.out_fault.next = self.fault_code.val();
        self.out_device_address.next = 0.into();
        self.out_device_bytes.next = 0.into();
        self.out_device_part_bytes.next = 0.into();
        self.out_buddy_valid.next = false;
        self.out_buddy_address.next = 0.into();
        self.out_buddy_bytes.next = 0.into();
        self.out_metadata_valid.next = false;
        self.out_metadata_address.next = 0.into();
        self.out_metadata_high.next = false;
        if !self.any_fault.val() {
            self.out_device_address.next = self.held.val().device_address;
            self.out_device_bytes.next = self.held.val().device_bytes;
            self.out_device_part_bytes.next = self.held.val().device_part_bytes;
            self.out_buddy_valid.next = self.held.val().buddy_valid;
            self.out_buddy_address.next = self.held.val().buddy_address;
            self.out_buddy_bytes.next = self.held.val().buddy_bytes;
            self.out_metadata_valid.next = self.held.val().compressed;
            self.out_metadata_address.next = self.held.val().metadata_address;
            self.out_metadata_high.next = self.held.val().metadata_high;
        }
    }
}
