//! The write planner of the pipelined controller slice: the device and
//! buddy writes that store one compressed payload (or the written sectors
//! of an uncompressed page), a run of up to 4 sectors per cycle per memory.

use crate::entry_bits::EntryBits;
use crate::part_sizes::ClassUnits;
use crate::request_contexts::CONTEXT_BITS;
use crate::sector_lanes::RunPick;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Sectors a part may span: 128 bytes starting up to 28 bytes into a sector.
pub const PART_SECTORS: usize = 5;

/// Stores one write per job (Buddy Compression Sec. III-B;
/// docs/formats.md#addresses; the writes `buddy_golden::controller_slice` makes): from the
/// write's translation (device slot start and device part bytes, buddy
/// slot start), its size class and its payload, the device bytes
/// `min(class, part)` of the payload from the slot start and the buddy
/// bytes `class - part` that follow them in the payload from the buddy
/// slot start; on an uncompressed page, each sector of `in_mask` of the
/// 128-byte entry at its place in the slot. Each part's sectors go out
/// lowest address first in runs, one run per cycle on its memory's port
/// (the two ports in parallel): a run is the lowest sector left and those
/// left right after it, at most 4 (a memory-entry; a part 128 bytes long
/// that does not start a sector spans 5, so takes two runs; an
/// uncompressed page's mask `0b1011` takes sectors 0-1, then 3), with the
/// byte strobe of the bytes the part covers in the run (a 16x device part:
/// 8 bytes at 0, 8, 16 or 24). A slice owns 4 HBM2 channels, 128 bytes per
/// DRAM cycle: one sector per cycle held writes to a quarter of that
/// (issue #48). When nothing of
/// the job is left, `done` names it (the write's context may then let a
/// later request to its memory-entry in, and commit its nibble).
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (drops the job) |
/// | `in_valid`, `in_ready` | 1, 1 | in, out | a job; accepted when no job is held or the held one's `done` is taken |
/// | `in_id` | 7 | in | the write's context |
/// | `in_class` | 3 | in | size class code 0-7 (docs/formats.md#size-classes: 0, 8, 16, 32, 64, 80, 96, 128 bytes) |
/// | `in_compressed` | 1 | in | the page's PTE `compressed` bit (0: the masked sectors of the 128-byte slot, class ignored) |
/// | `in_mask` | 4 | in | uncompressed page: bit `s` writes sector `s` (bytes `32s..32s+32`); ignored otherwise |
/// | `in_device_address` | 64 | in | the entry's device slot start, byte address (8-byte aligned; an uncompressed page's 32-byte aligned, as page frames are) |
/// | `in_device_part_bytes` | 8 | in | the device part: 128, 96, 64, 32 or 8 bytes (128 uncompressed) |
/// | `in_buddy_address` | 64 | in | the entry's buddy slot start, byte address (8-byte aligned, as the GBBR is) |
/// | `in_payload` | 1024 | in | the compressed payload (uncompressed: the entry), word `i` at `[32i +: 32]` |
/// | `dev_wr_valid`, `dev_wr_ready` | 1, 1 | out, in | a device-memory write of a run of sectors |
/// | `dev_wr_id`, `dev_wr_address`, `dev_wr_sectors` | 7, 64, 3 | out | its context, its first sector's 32-byte-aligned byte address, its sectors (1-4) |
/// | `dev_wr_data`, `dev_wr_strobe` | 1024, 128 | out | the run (byte `k` from the address at `[8k +: 8]`), bit `k`: byte `k` is written (0 past the run) |
/// | `buddy_wr_*` | as `dev_wr_*` | | the same for buddy-memory |
/// | `done_valid`, `done_ready`, `done_id` | 1, 1, 7 | out, in, out | every sector of the held job was taken |
///
/// Timing: a job accepted at cycle `a` offers its first sectors at
/// `a + 1` (`timing::JOB_TO_SECTOR`); a part's runs follow one per
/// cycle; `done` is offered the cycle after the last run is taken (at
/// `a + 1` for a job with none: a ZERO entry), and the next job is accepted
/// in the cycle `done` is taken. With every port ready a write of `d`
/// device and `b` buddy runs holds the planner `max(d, b) + 1` cycles.
#[derive(SettleBlock, Default)]
pub struct WritePlanner {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub in_class: Signal<In, Bits<3>>,
    pub in_compressed: Signal<In, Bit>,
    pub in_mask: Signal<In, Bits<4>>,
    pub in_device_address: Signal<In, Bits<64>>,
    pub in_device_part_bytes: Signal<In, Bits<8>>,
    pub in_buddy_address: Signal<In, Bits<64>>,
    pub in_payload: Signal<In, EntryBits>,
    pub dev_wr_valid: Signal<Out, Bit>,
    pub dev_wr_ready: Signal<In, Bit>,
    pub dev_wr_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub dev_wr_address: Signal<Out, Bits<64>>,
    pub dev_wr_sectors: Signal<Out, Bits<3>>,
    pub dev_wr_data: Signal<Out, EntryBits>,
    pub dev_wr_strobe: Signal<Out, Bits<128>>,
    pub buddy_wr_valid: Signal<Out, Bit>,
    pub buddy_wr_ready: Signal<In, Bit>,
    pub buddy_wr_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub buddy_wr_address: Signal<Out, Bits<64>>,
    pub buddy_wr_sectors: Signal<Out, Bits<3>>,
    pub buddy_wr_data: Signal<Out, EntryBits>,
    pub buddy_wr_strobe: Signal<Out, Bits<128>>,
    pub done_valid: Signal<Out, Bit>,
    pub done_ready: Signal<In, Bit>,
    pub done_id: Signal<Out, Bits<CONTEXT_BITS>>,
    /// The held job: its sectors still to write (bit `k`: the part's
    /// sector `k`), each part's first sector address, lead word, first and
    /// end byte (from the first sector's start) and first payload word.
    j_busy: DFF<Bit>,
    j_id: DFF<Bits<CONTEXT_BITS>>,
    j_payload: DFF<EntryBits>,
    j_dev_left: DFF<Bits<PART_SECTORS>>,
    j_bud_left: DFF<Bits<PART_SECTORS>>,
    j_dev_base: DFF<Bits<64>>,
    j_bud_base: DFF<Bits<64>>,
    j_dev_lead: DFF<Bits<3>>,
    j_bud_lead: DFF<Bits<3>>,
    j_dev_end: DFF<Bits<9>>,
    j_bud_end: DFF<Bits<9>>,
    j_bud_word: DFF<Bits<6>>,
    dev_pick: RunPick,
    buddy_pick: RunPick,
    /// The device part in 8-byte units, `min(class, part)`: where the
    /// buddy part's words start in the payload.
    dev_units: Signal<Local, Bits<5>>,
    /// The class and the device part in 8-byte units, each part's first
    /// unit in its first sector, and one past its last unit from there:
    /// the device part's is the smaller of the class's and the part's
    /// (both sums made at once), the buddy part's `first + class - part`
    /// when the class spills.
    class_table: ClassUnits,
    c8: Signal<Local, Bits<5>>,
    p8: Signal<Local, Bits<5>>,
    dev_first: Signal<Local, Bits<2>>,
    bud_first: Signal<Local, Bits<2>>,
    class_span: Signal<Local, Bits<6>>,
    part_span: Signal<Local, Bits<6>>,
    dev_span: Signal<Local, Bits<6>>,
    class_bud: Signal<Local, Bits<6>>,
    bud_diff: Signal<Local, Bits<6>>,
    spills: Signal<Local, Bit>,
    bud_span: Signal<Local, Bits<6>>,
    /// Sector k reached by the class's bytes from `dev_first`, by the device part's, by the buddy part's (`class - part` from `bud_first`, when the class spills).
    class_gt: Signal<Local, Bits<5>>,
    class_gt_q: Signal<Local, Bits<3>>,
    class_gt_r: Signal<Local, Bits<2>>,
    class_gt_any: Signal<Local, Bit>,
    class_gt_five: Signal<Local, Bit>,
    part_gt: Signal<Local, Bits<5>>,
    part_gt_q: Signal<Local, Bits<3>>,
    part_gt_r: Signal<Local, Bits<2>>,
    part_gt_any: Signal<Local, Bit>,
    part_gt_five: Signal<Local, Bit>,
    bud_gt: Signal<Local, Bits<5>>,
    bud_gt_q: Signal<Local, Bits<3>>,
    bud_gt_r: Signal<Local, Bits<2>>,
    bud_gt_any: Signal<Local, Bit>,
    bud_gt_five: Signal<Local, Bit>,
    bud_units: Signal<Local, Bits<5>>,
    dev_all: Signal<Local, Bits<PART_SECTORS>>,
    bud_all: Signal<Local, Bits<PART_SECTORS>>,
    /// The run offered on each port: its first sector's index in the part
    /// (the lowest left), its start from the part's first sector, the
    /// sectors it takes (bit `k`: the part's sector `k`; `_e1` .. `_e3`:
    /// the run's second to fourth, if left) and how many.
    dev_k: Signal<Local, Bits<3>>,
    bud_k: Signal<Local, Bits<3>>,
    dev_k_start: Signal<Local, Bits<9>>,
    bud_k_start: Signal<Local, Bits<9>>,
    dev_t0: Signal<Local, Bits<PART_SECTORS>>,
    bud_t0: Signal<Local, Bits<PART_SECTORS>>,
    dev_e1: Signal<Local, Bits<PART_SECTORS>>,
    bud_e1: Signal<Local, Bits<PART_SECTORS>>,
    dev_e2: Signal<Local, Bits<PART_SECTORS>>,
    bud_e2: Signal<Local, Bits<PART_SECTORS>>,
    dev_e3: Signal<Local, Bits<PART_SECTORS>>,
    bud_e3: Signal<Local, Bits<PART_SECTORS>>,
    dev_run: Signal<Local, Bits<PART_SECTORS>>,
    bud_run: Signal<Local, Bits<PART_SECTORS>>,
    dev_n: Signal<Local, Bits<3>>,
    bud_n: Signal<Local, Bits<3>>,
    dev_go: Signal<Local, Bit>,
    bud_go: Signal<Local, Bit>,
    done_go: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
}

impl Logic for WritePlanner {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, j_busy, j_id, j_payload, j_dev_left, j_bud_left, j_dev_base, j_bud_base, j_dev_lead, j_bud_lead, j_dev_end,
            j_bud_end, j_bud_word
        );

        // The lowest sector left of each part.
        self.dev_k.next = 4.into();
        if self.j_dev_left.q.val().get_bit(3) {
            self.dev_k.next = 3.into();
        }
        if self.j_dev_left.q.val().get_bit(2) {
            self.dev_k.next = 2.into();
        }
        if self.j_dev_left.q.val().get_bit(1) {
            self.dev_k.next = 1.into();
        }
        if self.j_dev_left.q.val().get_bit(0) {
            self.dev_k.next = 0.into();
        }
        self.bud_k.next = 4.into();
        if self.j_bud_left.q.val().get_bit(3) {
            self.bud_k.next = 3.into();
        }
        if self.j_bud_left.q.val().get_bit(2) {
            self.bud_k.next = 2.into();
        }
        if self.j_bud_left.q.val().get_bit(1) {
            self.bud_k.next = 1.into();
        }
        if self.j_bud_left.q.val().get_bit(0) {
            self.bud_k.next = 0.into();
        }

        // A run: the lowest sector left and those left right after it, at
        // most 4 (each run bit a function of the 5 `left` bits).
        self.dev_t0.next = bits::<PART_SECTORS>(1) << bit_cast::<PART_SECTORS, 3>(self.dev_k.val());
        self.dev_e1.next = (self.dev_t0.val() << 1) & self.j_dev_left.q.val();
        self.dev_e2.next = (self.dev_e1.val() << 1) & self.j_dev_left.q.val();
        self.dev_e3.next = (self.dev_e2.val() << 1) & self.j_dev_left.q.val();
        self.dev_run.next = self.dev_t0.val() | self.dev_e1.val() | self.dev_e2.val() | self.dev_e3.val();
        self.dev_n.next = 1.into();
        if self.dev_e1.val().any() {
            self.dev_n.next = 2.into();
        }
        if self.dev_e2.val().any() {
            self.dev_n.next = 3.into();
        }
        if self.dev_e3.val().any() {
            self.dev_n.next = 4.into();
        }
        self.bud_t0.next = bits::<PART_SECTORS>(1) << bit_cast::<PART_SECTORS, 3>(self.bud_k.val());
        self.bud_e1.next = (self.bud_t0.val() << 1) & self.j_bud_left.q.val();
        self.bud_e2.next = (self.bud_e1.val() << 1) & self.j_bud_left.q.val();
        self.bud_e3.next = (self.bud_e2.val() << 1) & self.j_bud_left.q.val();
        self.bud_run.next = self.bud_t0.val() | self.bud_e1.val() | self.bud_e2.val() | self.bud_e3.val();
        self.bud_n.next = 1.into();
        if self.bud_e1.val().any() {
            self.bud_n.next = 2.into();
        }
        if self.bud_e2.val().any() {
            self.bud_n.next = 3.into();
        }
        if self.bud_e3.val().any() {
            self.bud_n.next = 4.into();
        }
        // Sector k holds the part's bytes [32k, 32k + 32) counted from the
        // first sector's start; the part covers [lead * 4, end).
        self.dev_k_start.next = bit_cast::<9, 3>(self.dev_k.val()) << 5;
        self.bud_k_start.next = bit_cast::<9, 3>(self.bud_k.val()) << 5;

        self.dev_pick.entry.next = self.j_payload.q.val();
        self.dev_pick.word_at.next = 0.into();
        self.dev_pick.skip.next = self.j_dev_lead.q.val();
        self.dev_pick.sector.next = self.dev_k.val();
        self.dev_pick.sectors.next = self.dev_n.val();
        self.dev_pick.part_end.next = self.j_dev_end.q.val();
        self.buddy_pick.entry.next = self.j_payload.q.val();
        self.buddy_pick.word_at.next = self.j_bud_word.q.val();
        self.buddy_pick.skip.next = self.j_bud_lead.q.val();
        self.buddy_pick.sector.next = self.bud_k.val();
        self.buddy_pick.sectors.next = self.bud_n.val();
        self.buddy_pick.part_end.next = self.j_bud_end.q.val();

        self.dev_wr_valid.next = self.j_dev_left.q.val().any();
        self.dev_wr_id.next = self.j_id.q.val();
        self.dev_wr_address.next = self.j_dev_base.q.val() + bit_cast::<64, 9>(self.dev_k_start.val());
        self.dev_wr_sectors.next = self.dev_n.val();
        self.dev_wr_data.next = self.dev_pick.run.val();
        self.dev_wr_strobe.next = self.dev_pick.strobe.val();
        self.buddy_wr_valid.next = self.j_bud_left.q.val().any();
        self.buddy_wr_id.next = self.j_id.q.val();
        self.buddy_wr_address.next = self.j_bud_base.q.val() + bit_cast::<64, 9>(self.bud_k_start.val());
        self.buddy_wr_sectors.next = self.bud_n.val();
        self.buddy_wr_data.next = self.buddy_pick.run.val();
        self.buddy_wr_strobe.next = self.buddy_pick.strobe.val();
        self.done_valid.next = self.j_busy.q.val() & !self.j_dev_left.q.val().any() & !self.j_bud_left.q.val().any();
        self.done_id.next = self.j_id.q.val();

        self.dev_go.next = self.dev_wr_valid.val() & self.dev_wr_ready.val();
        self.bud_go.next = self.buddy_wr_valid.val() & self.buddy_wr_ready.val();
        self.done_go.next = self.done_valid.val() & self.done_ready.val();
        if self.dev_go.val() {
            self.j_dev_left.d.next = self.j_dev_left.q.val() & !self.dev_run.val();
        }
        if self.bud_go.val() {
            self.j_bud_left.d.next = self.j_bud_left.q.val() & !self.bud_run.val();
        }
        if self.done_go.val() {
            self.j_busy.d.next = false;
        }
        self.in_ready.next = !self.j_busy.q.val() | self.done_go.val();
        self.take.next = self.in_valid.val() & self.in_ready.val();

        // The job's parts, in 8-byte units.
        // A part of n units from unit f of its first sector spans
        // ceil((f + n) / 4) sectors: sector k is written when f + n > 4k.
        // The device part's sectors are those both the class's and the
        // part's bytes would reach.
        self.class_table.size_class.next = self.in_class.val();
        self.c8.next = self.class_table.class_units.val();
        self.p8.next = self.in_device_part_bytes.val().get_bits::<5>(3);
        // The device part of a compressed entry: min(class, part).
        self.dev_units.next = self.c8.val();
        if self.p8.val() < self.c8.val() {
            self.dev_units.next = self.p8.val();
        }
        self.dev_first.next = self.in_device_address.val().get_bits::<2>(3);
        self.bud_first.next = self.in_buddy_address.val().get_bits::<2>(3);
        self.class_span.next = bit_cast::<6, 2>(self.dev_first.val()) + bit_cast::<6, 5>(self.c8.val());
        self.part_span.next = bit_cast::<6, 2>(self.dev_first.val()) + bit_cast::<6, 5>(self.p8.val());
        self.dev_span.next = self.class_span.val();
        if self.part_span.val() < self.class_span.val() {
            self.dev_span.next = self.part_span.val();
        }
        self.class_bud.next = bit_cast::<6, 2>(self.bud_first.val()) + bit_cast::<6, 5>(self.c8.val());
        self.bud_diff.next = self.class_bud.val() - bit_cast::<6, 5>(self.p8.val());
        self.spills.next = self.c8.val() > self.p8.val();
        self.bud_span.next = bit_cast::<6, 2>(self.bud_first.val());
        if self.spills.val() {
            self.bud_span.next = self.bud_diff.val();
        }
        // Sector k of a part of `units` 8-byte units from unit `first` of
        // its first sector is reached when `first + units > 4k`: with
        // units = 4q + r, when q > k, q == k and r + first >= 1, or
        // q == k - 1 and r + first >= 5. Compares of constants only: an
        // adder maps to a carry chain, which ABC cannot merge with the
        // compares after it (the pipelined slice's deepest paths).
        self.class_gt_q.next = self.c8.val().get_bits::<3>(2);
        self.class_gt_r.next = self.c8.val().get_bits::<2>(0);
        self.class_gt_any.next = (self.class_gt_r.val() != 0) | (self.dev_first.val() != 0);
        self.class_gt_five.next = ((self.class_gt_r.val() == 3) & self.dev_first.val().get_bit(1)) | ((self.class_gt_r.val() == 2) & (self.dev_first.val() == 3));
        self.class_gt.next = 0.into();
        if (self.class_gt_q.val() > bits::<3>(0)) | ((self.class_gt_q.val() == bits::<3>(0)) & self.class_gt_any.val()) {
            self.class_gt.next = self.class_gt.val().replace_bit(0, true);
        }
        if (self.class_gt_q.val() > bits::<3>(1)) | ((self.class_gt_q.val() == bits::<3>(1)) & self.class_gt_any.val()) | ((self.class_gt_q.val() == bits::<3>(0)) & self.class_gt_five.val()) {
            self.class_gt.next = self.class_gt.val().replace_bit(1, true);
        }
        if (self.class_gt_q.val() > bits::<3>(2)) | ((self.class_gt_q.val() == bits::<3>(2)) & self.class_gt_any.val()) | ((self.class_gt_q.val() == bits::<3>(1)) & self.class_gt_five.val()) {
            self.class_gt.next = self.class_gt.val().replace_bit(2, true);
        }
        if (self.class_gt_q.val() > bits::<3>(3)) | ((self.class_gt_q.val() == bits::<3>(3)) & self.class_gt_any.val()) | ((self.class_gt_q.val() == bits::<3>(2)) & self.class_gt_five.val()) {
            self.class_gt.next = self.class_gt.val().replace_bit(3, true);
        }
        if (self.class_gt_q.val() > bits::<3>(4)) | ((self.class_gt_q.val() == bits::<3>(4)) & self.class_gt_any.val()) | ((self.class_gt_q.val() == bits::<3>(3)) & self.class_gt_five.val()) {
            self.class_gt.next = self.class_gt.val().replace_bit(4, true);
        }
        self.part_gt_q.next = self.p8.val().get_bits::<3>(2);
        self.part_gt_r.next = self.p8.val().get_bits::<2>(0);
        self.part_gt_any.next = (self.part_gt_r.val() != 0) | (self.dev_first.val() != 0);
        self.part_gt_five.next = ((self.part_gt_r.val() == 3) & self.dev_first.val().get_bit(1)) | ((self.part_gt_r.val() == 2) & (self.dev_first.val() == 3));
        self.part_gt.next = 0.into();
        if (self.part_gt_q.val() > bits::<3>(0)) | ((self.part_gt_q.val() == bits::<3>(0)) & self.part_gt_any.val()) {
            self.part_gt.next = self.part_gt.val().replace_bit(0, true);
        }
        if (self.part_gt_q.val() > bits::<3>(1)) | ((self.part_gt_q.val() == bits::<3>(1)) & self.part_gt_any.val()) | ((self.part_gt_q.val() == bits::<3>(0)) & self.part_gt_five.val()) {
            self.part_gt.next = self.part_gt.val().replace_bit(1, true);
        }
        if (self.part_gt_q.val() > bits::<3>(2)) | ((self.part_gt_q.val() == bits::<3>(2)) & self.part_gt_any.val()) | ((self.part_gt_q.val() == bits::<3>(1)) & self.part_gt_five.val()) {
            self.part_gt.next = self.part_gt.val().replace_bit(2, true);
        }
        if (self.part_gt_q.val() > bits::<3>(3)) | ((self.part_gt_q.val() == bits::<3>(3)) & self.part_gt_any.val()) | ((self.part_gt_q.val() == bits::<3>(2)) & self.part_gt_five.val()) {
            self.part_gt.next = self.part_gt.val().replace_bit(3, true);
        }
        if (self.part_gt_q.val() > bits::<3>(4)) | ((self.part_gt_q.val() == bits::<3>(4)) & self.part_gt_any.val()) | ((self.part_gt_q.val() == bits::<3>(3)) & self.part_gt_five.val()) {
            self.part_gt.next = self.part_gt.val().replace_bit(4, true);
        }
        self.bud_units.next = self.c8.val() - self.p8.val();
        self.bud_gt_q.next = self.bud_units.val().get_bits::<3>(2);
        self.bud_gt_r.next = self.bud_units.val().get_bits::<2>(0);
        self.bud_gt_any.next = (self.bud_gt_r.val() != 0) | (self.bud_first.val() != 0);
        self.bud_gt_five.next = ((self.bud_gt_r.val() == 3) & self.bud_first.val().get_bit(1)) | ((self.bud_gt_r.val() == 2) & (self.bud_first.val() == 3));
        self.bud_gt.next = 0.into();
        if (self.bud_gt_q.val() > bits::<3>(0)) | ((self.bud_gt_q.val() == bits::<3>(0)) & self.bud_gt_any.val()) {
            self.bud_gt.next = self.bud_gt.val().replace_bit(0, true);
        }
        if (self.bud_gt_q.val() > bits::<3>(1)) | ((self.bud_gt_q.val() == bits::<3>(1)) & self.bud_gt_any.val()) | ((self.bud_gt_q.val() == bits::<3>(0)) & self.bud_gt_five.val()) {
            self.bud_gt.next = self.bud_gt.val().replace_bit(1, true);
        }
        if (self.bud_gt_q.val() > bits::<3>(2)) | ((self.bud_gt_q.val() == bits::<3>(2)) & self.bud_gt_any.val()) | ((self.bud_gt_q.val() == bits::<3>(1)) & self.bud_gt_five.val()) {
            self.bud_gt.next = self.bud_gt.val().replace_bit(2, true);
        }
        if (self.bud_gt_q.val() > bits::<3>(3)) | ((self.bud_gt_q.val() == bits::<3>(3)) & self.bud_gt_any.val()) | ((self.bud_gt_q.val() == bits::<3>(2)) & self.bud_gt_five.val()) {
            self.bud_gt.next = self.bud_gt.val().replace_bit(3, true);
        }
        if (self.bud_gt_q.val() > bits::<3>(4)) | ((self.bud_gt_q.val() == bits::<3>(4)) & self.bud_gt_any.val()) | ((self.bud_gt_q.val() == bits::<3>(3)) & self.bud_gt_five.val()) {
            self.bud_gt.next = self.bud_gt.val().replace_bit(4, true);
        }
        self.dev_all.next = self.class_gt.val() & self.part_gt.val();
        self.bud_all.next = 0.into();
        if self.spills.val() {
            self.bud_all.next = self.bud_gt.val();
        }
        if (self.c8.val() == bits::<5>(0)) | (self.p8.val() == bits::<5>(0)) {
            self.dev_all.next = 0.into();
        }

        if self.take.val() {
            self.j_busy.d.next = true;
            self.j_id.d.next = self.in_id.val();
            self.j_payload.d.next = self.in_payload.val();
            self.j_dev_left.d.next = self.dev_all.val();
            self.j_bud_left.d.next = self.bud_all.val();
            self.j_dev_base.d.next = self.in_device_address.val() & !bits::<64>(31);
            self.j_bud_base.d.next = self.in_buddy_address.val() & !bits::<64>(31);
            self.j_dev_lead.d.next = self.in_device_address.val().get_bits::<3>(2);
            self.j_bud_lead.d.next = self.in_buddy_address.val().get_bits::<3>(2);
            self.j_dev_end.d.next = bit_cast::<9, 6>(self.dev_span.val()) << 3;
            self.j_bud_end.d.next = bit_cast::<9, 6>(self.bud_span.val()) << 3;
            self.j_bud_word.d.next = bit_cast::<6, 5>(self.dev_units.val()) << 1;
            if !self.in_compressed.val() {
                // The slot is sector aligned: each written sector whole.
                self.j_dev_left.d.next = bit_cast::<PART_SECTORS, 4>(self.in_mask.val());
                self.j_bud_left.d.next = 0.into();
                self.j_dev_lead.d.next = 0.into();
                self.j_dev_end.d.next = 128.into();
            }
        }

        if self.reset.val() {
            self.j_busy.d.next = false;
            self.j_dev_left.d.next = 0.into();
            self.j_bud_left.d.next = 0.into();
        }
    }
}

/// The planner's latencies, for the fast engine's timing of the slice
/// (measured on the hardware by the testbenches).
pub mod timing {
    /// Cycles from a job's acceptance to its first sector writes.
    pub const JOB_TO_SECTOR: u64 = 1;
    /// Cycles from the last sector write taken to `done_valid`.
    pub const LAST_SECTOR_TO_DONE: u64 = 1;
}
