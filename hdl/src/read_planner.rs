//! The read planner of the pipelined controller slice: which device and
//! buddy sectors a read needs once its class is known, requested in runs
//! of up to 4 sectors (a memory-entry) per cycle per memory, and the part
//! layouts the sector gather needs.

use crate::part_sizes::{ClassUnits, PartSizes};
use crate::request_contexts::CONTEXT_BITS;
use crate::sector_gather::SECTOR_INDEX_BITS;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// `in_kind` codes of [`ReadPlanner`].
pub mod kind {
    /// The class is known and nothing of the read was requested yet: the
    /// class's device bytes, then its buddy bytes.
    pub const FULL: u64 = 0;
    /// The metadata nibble missed: the whole device slot, before the class
    /// is known (the read stays open).
    pub const SLOT: u64 = 1;
    /// The class of a read whose slot was requested is known: its buddy
    /// bytes (maybe none), closing the read.
    pub const FINISH: u64 = 2;
    /// Every kind with its name (waveform viewers' translate filters).
    pub const NAMES: [(u64, &str); 3] = [(FULL, "FULL"), (SLOT, "SLOT"), (FINISH, "FINISH")];
}

/// A job as the planner holds it (its `j` and `n_job` registers).
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct ReadJob {
    pub id: Bits<CONTEXT_BITS>,
    /// The plan, not yet sent, holds the device part (FULL, SLOT) and the
    /// buddy part (FINISH, and FULL when the class spills); both clear
    /// when it goes.
    pub dev_plan: Bit,
    pub bud_plan: Bit,
    pub dev_lead: Bits<3>,
    pub dev_words: Bits<6>,
    pub dev_sectors: Bits<SECTOR_INDEX_BITS>,
    pub bud_lead: Bits<3>,
    pub bud_sectors: Bits<SECTOR_INDEX_BITS>,
    pub dev_base: Bits<64>,
    pub bud_base: Bits<64>,
    /// The job closes its read (FULL or FINISH; a SLOT job leaves it open).
    pub closes: Bit,
}

/// Plans one read per job (Buddy Compression Sec. III-B;
/// docs/formats.md#sectors; mirrors which sectors `buddy_golden::controller_slice` reads): from
/// the read's translation (device slot start and device part bytes, buddy
/// slot start) and its size class, the device bytes `min(class, part)`
/// from the slot start and the buddy bytes `class - part` from the buddy
/// slot start (an uncompressed page: the whole 128-byte slot, no class).
/// Per job it sends the sector gather one plan (`plan_*`: the layouts of
/// the parts the job reads, both of a full read in one transfer; see
/// [`crate::SectorGather`]) and, from the cycle it is taken, requests
/// each part's sectors on that part's memory port as runs of up to
/// [`RUN_SECTORS`] consecutive sectors, one run per cycle per port, lowest
/// address first: sectors 0-3 of the part, then sector 4 when it spans 5. A run is tagged with the context id, its
/// first sector's index in the part (0 or 4) and its sector count (1-4).
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (drops the job) |
/// | `in_valid`, `in_ready` | 1, 1 | in, out | a job; `in_ready` (a flip-flop) is high when no job is waiting behind the current one |
/// | `in_id` | 7 | in | the read's context |
/// | `in_kind` | 2 | in | [`kind`]: 0 full read, 1 device slot (metadata miss), 2 finish after a slot |
/// | `in_class` | 3 | in | size class code 0-7 (docs/formats.md#size-classes: 0, 8, 16, 32, 64, 80, 96, 128 bytes) |
/// | `in_compressed` | 1 | in | the page's PTE `compressed` bit (0: the 128-byte slot, class ignored) |
/// | `in_device_address` | 64 | in | the entry's device slot start, byte address (8-byte aligned, as page frames are) |
/// | `in_device_part_bytes` | 8 | in | the device part: 128, 96, 64, 32 or 8 bytes (128 uncompressed) |
/// | `in_buddy_address` | 64 | in | the entry's buddy slot start, byte address (8-byte aligned, as the GBBR is) |
/// | `plan_valid`, `plan_ready`, `plan_id` | 1, 1, 7 | out, in, out | a job's plan for the sector gather, its context |
/// | `plan_device`, `plan_lead`, `plan_words`, `plan_sectors` | 1, 3, 6, 3 | out | the plan holds the device part (FULL, SLOT); its lead word, length in 32-bit words, sectors (0-5) |
/// | `plan_buddy`, `plan_bud_lead`, `plan_bud_sectors` | 1, 3, 3 | out | the plan holds the buddy part (FINISH, a FULL read whose class spills); its lead word and sectors (0-5) |
/// | `plan_last` | 1 | out | the job closes its read (FULL, FINISH) |
/// | `dev_req_valid`, `dev_req_ready` | 1, 1 | out, in | a device-memory read of a run of sectors |
/// | `dev_req_id`, `dev_req_sector`, `dev_req_address` | 7, 3, 64 | out | its context, its first sector's index in the device part (0 or 4), its first sector's 32-byte-aligned byte address |
/// | `dev_req_sectors` | 3 | out | the run's sectors, 1-4 |
/// | `buddy_req_*` | as `dev_req_*` | | the same for buddy-memory |
/// | `done_valid`, `done_id` | 1, 7 | out | a job that closes its read (FULL, FINISH) sent its last plan and run this cycle: every memory read of context `done_id` is taken (depends on the ready inputs) |
///
/// Timing: a job starts in the cycle it is accepted if the current job's
/// last transfers go that cycle (or there is none), else it waits (one
/// job at most) and starts in the cycle they go; a job started at cycle
/// `a` offers its plan at `a + 1`; each part's runs are offered one per
/// cycle from the cycle the plan is taken (`dev_req_valid` and
/// `buddy_req_valid` follow `plan_ready` in that cycle), the two ports in
/// parallel. With every port ready a read thus occupies the planner for 1
/// cycle, device and buddy parts alike (a part of 5 sectors, which only a
/// slot off a sector boundary gives, takes a cycle more). Until issue
/// #48's twelfth step the buddy part had a plan of its own, sent the
/// cycle after the device part's: 2 cycles per read that spills.
#[derive(SettleBlock, Default)]
pub struct ReadPlanner {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub in_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub in_kind: Signal<In, Bits<2>>,
    pub in_class: Signal<In, Bits<3>>,
    pub in_compressed: Signal<In, Bit>,
    pub in_device_address: Signal<In, Bits<64>>,
    pub in_device_part_bytes: Signal<In, Bits<8>>,
    pub in_buddy_address: Signal<In, Bits<64>>,
    pub plan_valid: Signal<Out, Bit>,
    pub plan_ready: Signal<In, Bit>,
    pub plan_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub plan_device: Signal<Out, Bit>,
    pub plan_lead: Signal<Out, Bits<3>>,
    pub plan_words: Signal<Out, Bits<6>>,
    pub plan_sectors: Signal<Out, Bits<SECTOR_INDEX_BITS>>,
    pub plan_buddy: Signal<Out, Bit>,
    pub plan_bud_lead: Signal<Out, Bits<3>>,
    pub plan_bud_sectors: Signal<Out, Bits<SECTOR_INDEX_BITS>>,
    pub plan_last: Signal<Out, Bit>,
    pub dev_req_valid: Signal<Out, Bit>,
    pub dev_req_ready: Signal<In, Bit>,
    pub dev_req_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub dev_req_sector: Signal<Out, Bits<SECTOR_INDEX_BITS>>,
    pub dev_req_address: Signal<Out, Bits<64>>,
    pub dev_req_sectors: Signal<Out, Bits<3>>,
    pub buddy_req_valid: Signal<Out, Bit>,
    pub buddy_req_ready: Signal<In, Bit>,
    pub buddy_req_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub buddy_req_sector: Signal<Out, Bits<SECTOR_INDEX_BITS>>,
    pub buddy_req_address: Signal<Out, Bits<64>>,
    pub buddy_req_sectors: Signal<Out, Bits<3>>,
    pub done_valid: Signal<Out, Bit>,
    pub done_id: Signal<Out, Bits<CONTEXT_BITS>>,
    /// The job: its plans still to send, its parts' layouts, the next
    /// sector of each part and its first sector's address.
    j: DFF<ReadJob>,
    j_dev_next: DFF<Bits<SECTOR_INDEX_BITS>>,
    j_bud_next: DFF<Bits<SECTOR_INDEX_BITS>>,
    /// A job taken while the current one still had transfers left: it
    /// starts when they are done. So `in_ready` is a flip-flop, and the
    /// memory ports' ready signals do not reach the planner's source.
    n_valid: DFF<Bit>,
    n_job: DFF<ReadJob>,
    job: Signal<Local, ReadJob>,
    free: Signal<Local, Bit>,
    /// A job is held: a plan or a sector of it left.
    active: Signal<Local, Bit>,
    dev_finished: Signal<Local, Bit>,
    bud_finished: Signal<Local, Bit>,
    sizes: PartSizes,
    /// Counts in 8-byte units (every class and part is a multiple of 8
    /// bytes): the parts, and each part's first unit in its first sector.
    dev_units: Signal<Local, Bits<5>>,
    bud_units: Signal<Local, Bits<5>>,
    dev_first: Signal<Local, Bits<2>>,
    /// Sectors of the class's bytes from `dev_first`
    /// (`ceil((8 first + class bytes) / 32)`, a function of five input bits
    /// that synthesis maps as a table; the testbench checks every class and
    /// first unit against golden's translation) and of the device part's:
    /// the device part of a class spans the fewer of the two, since it is
    /// the smaller of class and part.
    class_table: ClassUnits,
    class_end: Signal<Local, Bits<5>>,
    class_sectors: Signal<Local, Bits<SECTOR_INDEX_BITS>>,
    part_sectors: Signal<Local, Bits<SECTOR_INDEX_BITS>>,
    /// `first + units + 3` of the device part, whose bits 4..2 are its sectors.
    dev_end: Signal<Local, Bits<5>>,
    dev_sectors: Signal<Local, Bits<SECTOR_INDEX_BITS>>,
    bud_sectors: Signal<Local, Bits<SECTOR_INDEX_BITS>>,
    /// Sector k reached by the buddy part (see `update`).
    bud_gt: Signal<Local, Bits<5>>,
    bud_gt_q: Signal<Local, Bits<3>>,
    bud_gt_r: Signal<Local, Bits<2>>,
    bud_gt_any: Signal<Local, Bit>,
    bud_gt_five: Signal<Local, Bit>,
    bud_lead: Signal<Local, Bits<2>>,
    plan_go: Signal<Local, Bit>,
    dev_go: Signal<Local, Bit>,
    bud_go: Signal<Local, Bit>,
    dev_next: Signal<Local, Bits<SECTOR_INDEX_BITS>>,
    bud_next: Signal<Local, Bits<SECTOR_INDEX_BITS>>,
    /// Whether a part's next run is its last (at most 4 sectors left).
    dev_last_run: Signal<Local, Bit>,
    bud_last_run: Signal<Local, Bit>,
    dev_offset: Signal<Local, Bits<64>>,
    bud_offset: Signal<Local, Bits<64>>,
    take: Signal<Local, Bit>,
}

impl Logic for ReadPlanner {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, j, j_dev_next, j_bud_next, n_valid, n_job);

        // What the job offers: its one plan, both parts' layouts straight
        // from `j`; each part's sectors once the plan is taken.
        self.plan_valid.next = self.j.q.val().dev_plan | self.j.q.val().bud_plan;
        self.plan_id.next = self.j.q.val().id;
        self.plan_device.next = self.j.q.val().dev_plan;
        self.plan_lead.next = self.j.q.val().dev_lead;
        self.plan_words.next = self.j.q.val().dev_words;
        self.plan_sectors.next = self.j.q.val().dev_sectors;
        self.plan_buddy.next = self.j.q.val().bud_plan;
        self.plan_bud_lead.next = self.j.q.val().bud_lead;
        self.plan_bud_sectors.next = self.j.q.val().bud_sectors;
        self.plan_last.next = self.j.q.val().closes;
        // The sectors go from the cycle the plan is taken: `plan_ready`
        // reaches the request valids (the sector gather's is a constant 1).
        self.plan_go.next = self.plan_valid.val() & self.plan_ready.val();
        self.dev_req_valid.next = (!self.j.q.val().dev_plan | self.plan_go.val()) & (self.j_dev_next.q.val() != self.j.q.val().dev_sectors);
        self.dev_req_id.next = self.j.q.val().id;
        self.dev_req_sector.next = self.j_dev_next.q.val();
        // A run: the part's next 4 sectors, or what is left of it (its
        // next sector is 0 or 4, a part at most 5 sectors).
        self.dev_last_run.next = self.j_dev_next.q.val().get_bit(2) | (self.j.q.val().dev_sectors <= bits::<SECTOR_INDEX_BITS>(4));
        self.dev_req_sectors.next = 4.into();
        if self.dev_last_run.val() {
            self.dev_req_sectors.next = self.j.q.val().dev_sectors - self.j_dev_next.q.val();
        }
        self.dev_offset.next = bit_cast::<64, SECTOR_INDEX_BITS>(self.j_dev_next.q.val()) << 5;
        self.dev_req_address.next = self.j.q.val().dev_base + self.dev_offset.val();
        self.buddy_req_valid.next = (!self.j.q.val().bud_plan | self.plan_go.val()) & (self.j_bud_next.q.val() != self.j.q.val().bud_sectors);
        self.buddy_req_id.next = self.j.q.val().id;
        self.buddy_req_sector.next = self.j_bud_next.q.val();
        self.bud_last_run.next = self.j_bud_next.q.val().get_bit(2) | (self.j.q.val().bud_sectors <= bits::<SECTOR_INDEX_BITS>(4));
        self.buddy_req_sectors.next = 4.into();
        if self.bud_last_run.val() {
            self.buddy_req_sectors.next = self.j.q.val().bud_sectors - self.j_bud_next.q.val();
        }
        self.bud_offset.next = bit_cast::<64, SECTOR_INDEX_BITS>(self.j_bud_next.q.val()) << 5;
        self.buddy_req_address.next = self.j.q.val().bud_base + self.bud_offset.val();

        self.dev_go.next = self.dev_req_valid.val() & self.dev_req_ready.val();
        self.bud_go.next = self.buddy_req_valid.val() & self.buddy_req_ready.val();
        if self.plan_go.val() {
            self.j.d.next.dev_plan = false;
            self.j.d.next.bud_plan = false;
        }
        // After a run: 4, or the part's end.
        self.dev_next.next = self.j_dev_next.q.val();
        if self.dev_go.val() {
            self.dev_next.next = 4.into();
            if self.dev_last_run.val() {
                self.dev_next.next = self.j.q.val().dev_sectors;
            }
        }
        self.bud_next.next = self.j_bud_next.q.val();
        if self.bud_go.val() {
            self.bud_next.next = 4.into();
            if self.bud_last_run.val() {
                self.bud_next.next = self.j.q.val().bud_sectors;
            }
        }
        self.j_dev_next.d.next = self.dev_next.val();
        self.j_bud_next.d.next = self.bud_next.val();
        // The current job is done when nothing of it is left after this
        // cycle's transfers; a job arriving before is held in `n_job`.
        // A part is finished when no sector is left, or the last one goes
        // now (both compares from flip-flops: no adder before `free`).
        self.dev_finished.next = (self.j_dev_next.q.val() == self.j.q.val().dev_sectors) | (self.dev_go.val() & self.dev_last_run.val());
        self.bud_finished.next = (self.j_bud_next.q.val() == self.j.q.val().bud_sectors) | (self.bud_go.val() & self.bud_last_run.val());
        self.free.next = !(self.plan_valid.val() & !self.plan_ready.val())
            & self.dev_finished.val()
            & self.bud_finished.val();
        self.active.next = self.j.q.val().dev_plan
            | self.j.q.val().bud_plan
            | (self.j_dev_next.q.val() != self.j.q.val().dev_sectors)
            | (self.j_bud_next.q.val() != self.j.q.val().bud_sectors);
        self.done_valid.next = self.free.val() & self.active.val() & self.j.q.val().closes;
        self.done_id.next = self.j.q.val().id;
        self.in_ready.next = !self.n_valid.q.val();
        self.take.next = self.in_valid.val() & self.in_ready.val();

        // The job's parts, from its class and translation, in 8-byte units.
        self.sizes.size_class.next = self.in_class.val();
        self.sizes.compressed.next = self.in_compressed.val();
        self.sizes.part_bytes.next = self.in_device_part_bytes.val();
        self.dev_units.next = self.sizes.device_units.val();
        self.bud_units.next = self.sizes.buddy_units.val();
        self.dev_first.next = self.in_device_address.val().get_bits::<2>(3);
        self.class_table.size_class.next = self.in_class.val();
        self.class_end.next = bit_cast::<5, 2>(self.dev_first.val()) + self.class_table.class_units.val() + bits::<5>(3);
        self.class_sectors.next = self.class_end.val().get_bits::<3>(2);
        self.dev_end.next = bit_cast::<5, 2>(self.dev_first.val()) + self.in_device_part_bytes.val().get_bits::<5>(3) + bits::<5>(3);
        self.part_sectors.next = self.dev_end.val().get_bits::<3>(2);
        self.dev_sectors.next = self.class_sectors.val();
        if self.part_sectors.val() < self.class_sectors.val() {
            self.dev_sectors.next = self.part_sectors.val();
        }
        if (self.in_kind.val() == 1) & self.in_compressed.val() {
            // kind::SLOT: the whole device part.
            self.dev_units.next = self.in_device_part_bytes.val().get_bits::<5>(3);
            self.dev_sectors.next = self.part_sectors.val();
        }
        if !self.in_compressed.val() {
            // The whole 128-byte slot (sector aligned).
            self.dev_sectors.next = 4.into();
            if self.dev_first.val() != 0 {
                self.dev_sectors.next = 5.into();
            }
        }
        if self.dev_units.val() == bits::<5>(0) {
            self.dev_sectors.next = 0.into();
        }
        // Sector k of a part of `units` 8-byte units from unit `first` of
        // its first sector is reached when `first + units > 4k`: with
        // units = 4q + r, when q > k, q == k and r + first >= 1, or
        // q == k - 1 and r + first >= 5. Compares of constants only: an
        // adder maps to a carry chain, which ABC cannot merge with the
        // compares after it (the pipelined slice's deepest paths).
        self.bud_lead.next = self.in_buddy_address.val().get_bits::<2>(3);
        self.bud_gt_q.next = self.bud_units.val().get_bits::<3>(2);
        self.bud_gt_r.next = self.bud_units.val().get_bits::<2>(0);
        self.bud_gt_any.next = (self.bud_gt_r.val() != 0) | (self.bud_lead.val() != 0);
        self.bud_gt_five.next = ((self.bud_gt_r.val() == 3) & self.bud_lead.val().get_bit(1)) | ((self.bud_gt_r.val() == 2) & (self.bud_lead.val() == 3));
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
        self.bud_sectors.next = 0.into();
        if self.bud_gt.val().get_bit(0) {
            self.bud_sectors.next = 1.into();
        }
        if self.bud_gt.val().get_bit(1) {
            self.bud_sectors.next = 2.into();
        }
        if self.bud_gt.val().get_bit(2) {
            self.bud_sectors.next = 3.into();
        }
        if self.bud_gt.val().get_bit(3) {
            self.bud_sectors.next = 4.into();
        }
        if self.bud_gt.val().get_bit(4) {
            self.bud_sectors.next = 5.into();
        }
        if self.bud_units.val() == bits::<5>(0) {
            self.bud_sectors.next = 0.into();
        }

        self.job.next.id = self.in_id.val();
        self.job.next.dev_lead = self.in_device_address.val().get_bits::<3>(2);
        self.job.next.dev_words = bit_cast::<6, 5>(self.dev_units.val()) << 1;
        self.job.next.dev_sectors = self.dev_sectors.val();
        self.job.next.bud_lead = self.in_buddy_address.val().get_bits::<3>(2);
        self.job.next.bud_sectors = self.bud_sectors.val();
        self.job.next.dev_base = self.in_device_address.val() & !bits::<64>(31);
        self.job.next.bud_base = self.in_buddy_address.val() & !bits::<64>(31);
        // Full: the device part, and the buddy part when the class spills.
        self.job.next.dev_plan = true;
        self.job.next.closes = true;
        self.job.next.bud_plan = self.bud_units.val() != bits::<5>(0);
        if self.in_kind.val() == 1 {
            // kind::SLOT
            self.job.next.closes = false;
            self.job.next.bud_plan = false;
            self.job.next.bud_sectors = 0.into();
        }
        if self.in_kind.val() == 2 {
            // kind::FINISH
            self.job.next.dev_plan = false;
            self.job.next.dev_sectors = 0.into();
            self.job.next.bud_plan = true;
        }

        // A new job starts when the current one is done: the waiting one
        // first, else the one taken now; one taken before that waits.
        if self.take.val() {
            self.n_valid.d.next = true;
            self.n_job.d.next = self.job.val();
        }
        if self.free.val() {
            self.n_valid.d.next = self.n_valid.q.val() & self.take.val();
            if self.n_valid.q.val() | self.take.val() {
                self.j.d.next = self.job.val();
                if self.n_valid.q.val() {
                    self.j.d.next = self.n_job.q.val();
                }
                self.j_dev_next.d.next = 0.into();
                self.j_bud_next.d.next = 0.into();
            }
        }

        if self.reset.val() {
            self.n_valid.d.next = false;
            self.j.d.next.dev_plan = false;
            self.j.d.next.bud_plan = false;
            self.j.d.next.dev_sectors = 0.into();
            self.j.d.next.bud_sectors = 0.into();
            self.j_dev_next.d.next = 0.into();
            self.j_bud_next.d.next = 0.into();
        }
    }
}

/// The most sectors a memory request reads: 4, a memory-entry's 128 bytes
/// (the HBM2 address map keeps an entry's sectors on one channel, and a
/// slice owns 4 channels: Buddy Compression Sec. IV, 32-byte sectors).
pub const RUN_SECTORS: u64 = 4;
// `update` writes the run logic for 4 (rust-hdl prints constant names).
const _: () = assert!(RUN_SECTORS == 4);

/// The planner's latencies, for the fast engine's timing of the slice
/// (measured on the hardware by the testbenches).
pub mod timing {
    /// Cycles from a job's acceptance to its first plan on `plan_*`.
    pub const JOB_TO_PLAN: u64 = 1;
    /// Cycles from a part's plan transfer to its first sector request
    /// (the same cycle).
    pub const PLAN_TO_SECTOR: u64 = 0;
}
