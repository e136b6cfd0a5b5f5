//! The sector gather of the pipelined controller slice: the 32-byte
//! sectors of each read in flight, answered out of order by device memory
//! and buddy-memory in runs of up to 4, gathered into the request
//! context's payload, and the complete payloads handed on (to the
//! decompressor) one per cycle.

use crate::default_array;
use crate::entry_bits::EntryBits;
use crate::first_set::FirstSet;
use crate::lowest_set::LowestSet;
use crate::request_contexts::{CONTEXTS, CONTEXT_BITS};
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Width of a sector's index within its part (`dev_sector`,
/// `buddy_sector`). Buddy's parts span at most 4 sectors (buddy slots are
/// sector aligned, 16x ones included; only an 8-byte 16x device part
/// starts inside a sector); the gather takes any part of up to 32 words
/// that starts 0, 2, 4 or 6 words into its first sector (at an 8-byte
/// boundary), so up to 5 sectors.
pub const SECTOR_INDEX_BITS: usize = 3;
/// Width of a context's sector count: both parts together span at most
/// 10 sectors.
pub const COUNT_BITS: usize = 4;

/// [`SectorGather`] timing, clock cycles.
pub mod timing {
    /// The last run of a closed context taken at cycle `s` (its
    /// handshake on `dev_*` or `buddy_*`) raises `out_valid` for it at
    /// `s + LAST_SECTOR_TO_OUT` at the earliest (write stage, pick,
    /// pick register, payload read).
    pub const LAST_SECTOR_TO_OUT: u64 = 4;
    /// A context closed at cycle `p` by a plan with no sectors still
    /// missing raises `out_valid` at `p + CLOSE_TO_OUT` at the earliest.
    pub const CLOSE_TO_OUT: u64 = 3;
}

/// Gathers the stored bytes of up to 128 reads in flight (one per request
/// context) from their device and buddy sectors, which memory answers in
/// any order, and hands each complete payload on with its context id
/// (Buddy Compression Sec. III-B: an entry's device part and buddy part
/// are read in parallel; `docs/controller.md`, "Stages of a read").
///
/// **Payload layout** (the golden model's stored bytes, docs/formats.md#stream-packing):
/// payload word `i` (32 bits, word `i` of [`EntryBits`]) is device-part
/// word `i` for `i < words`, and buddy-part word `i - words` above, where
/// `words` is the device part's length in 32-bit words as planned (even:
/// parts are whole 8-byte units). A part starts `lead` words into its
/// first sector, `lead` even (at an 8-byte boundary; a 16x device part or
/// buddy slot need not be sector aligned); part word `p` is word `(p +
/// lead) mod 8` of the part's sector `(p + lead) / 8`. Payload words no sector
/// covered keep what the context's last use left (a decompressor reads
/// only its class's bytes).
///
/// **Protocol.** Per context, the planner sends the device part's layout
/// (`plan_device`: `lead`, `words`, `sectors`) exactly once, and the buddy
/// part's (`plan_buddy`: `bud_lead`, `bud_sectors`) at most once, in the
/// same plan or a later one; `plan_last` on the last plan closes the
/// context. A part's plan comes no later than the cycle its first sector is
/// requested, so a sector comes at least a cycle after its part's plan.
/// Sectors come in runs on the port of their part: a run is sectors
/// `sector .. sector + count - 1` of the part, `count` 1-4 and `sector` 0 or
/// 4 (a part's first 4 sectors, then its fifth), all written in one cycle. A read
/// whose class is not known yet (a metadata miss) may plan the whole device
/// slot first (`plan_last` = 0) and close later with a plan of the buddy
/// part alone, of 0 or more sectors; a read whose class is known plans
/// both parts at once. A context is complete when it is closed and every sector
/// planned has arrived; complete contexts leave on `out_*` lowest id first,
/// one per cycle. The context may be planned again once it has left.
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (no context planned) |
/// | `plan_valid`, `plan_ready` | 1, 1 | in, out | a plan; `plan_ready` is always 1 |
/// | `plan_id` | 7 | in | the context |
/// | `plan_device` | 1 | in | the plan holds the device part's layout |
/// | `plan_lead` | 3 | in | 32-bit words from the device part's first sector start to its first byte (0, 2, 4 or 6) |
/// | `plan_words` | 6 | in | the device part's length in 32-bit words (0-32, even) |
/// | `plan_sectors` | 3 | in | sectors requested for the device part (0-5; 0 without `plan_device`) |
/// | `plan_buddy` | 1 | in | the plan holds the buddy part's layout |
/// | `plan_bud_lead` | 3 | in | as `plan_lead`, of the buddy part |
/// | `plan_bud_sectors` | 3 | in | sectors requested for the buddy part (0-5; 0 without `plan_buddy`) |
/// | `plan_last` | 1 | in | the context's last plan (closes it) |
/// | `dev_valid`, `dev_ready` | 1, 1 | in, out | a device-memory run answered; `dev_ready` is always 1 |
/// | `dev_id`, `dev_sector`, `dev_sectors` | 7, 3, 3 | in | its context, its first sector's index in the device part (0 or 4), its sectors (1-4) |
/// | `dev_data` | 1024 | in | the run: its sector `k` at `[256k +: 256]`, byte `j` of a sector at `[8j +: 8]` |
/// | `buddy_valid`, `buddy_ready`, `buddy_id`, `buddy_sector`, `buddy_sectors`, `buddy_data` | 1, 1, 7, 3, 3, 1024 | in, out, in, in, in, in | the same for a buddy-memory run of the buddy part |
/// | `out_valid`, `out_ready` | 1, 1 | out, in | a complete context |
/// | `out_id` | 7 | out | its id |
/// | `out_payload` | 1024 | out | its payload, word `i` at `[32i +: 32]` |
///
/// Timing: [`timing`]; every port takes one transfer per cycle.
/// Storage: the payloads in 64 RAMs of 128 x 32 bits (one per payload word
/// of the device part and of the buddy part: a run writes up to 32 words
/// of one context, device and buddy in the same cycle); the parts' layouts in
/// four 128-entry RAMs; per context a sector count and a planned count
/// (4 bits each) and a closed bit in flip-flops.
#[derive(SettleBlock)]
pub struct SectorGather {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub plan_valid: Signal<In, Bit>,
    pub plan_ready: Signal<Out, Bit>,
    pub plan_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub plan_device: Signal<In, Bit>,
    pub plan_lead: Signal<In, Bits<3>>,
    pub plan_words: Signal<In, Bits<6>>,
    pub plan_sectors: Signal<In, Bits<SECTOR_INDEX_BITS>>,
    pub plan_buddy: Signal<In, Bit>,
    pub plan_bud_lead: Signal<In, Bits<3>>,
    pub plan_bud_sectors: Signal<In, Bits<SECTOR_INDEX_BITS>>,
    pub plan_last: Signal<In, Bit>,
    pub dev_valid: Signal<In, Bit>,
    pub dev_ready: Signal<Out, Bit>,
    pub dev_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub dev_sector: Signal<In, Bits<SECTOR_INDEX_BITS>>,
    pub dev_sectors: Signal<In, Bits<3>>,
    pub dev_data: Signal<In, EntryBits>,
    pub buddy_valid: Signal<In, Bit>,
    pub buddy_ready: Signal<Out, Bit>,
    pub buddy_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub buddy_sector: Signal<In, Bits<SECTOR_INDEX_BITS>>,
    pub buddy_sectors: Signal<In, Bits<3>>,
    pub buddy_data: Signal<In, EntryBits>,
    pub out_valid: Signal<Out, Bit>,
    pub out_ready: Signal<In, Bit>,
    pub out_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub out_payload: Signal<Out, EntryBits>,
    /// Write stages: a run taken last cycle, written this cycle (its
    /// part's layout is read meanwhile).
    d_valid: DFF<Bit>,
    d_id: DFF<Bits<CONTEXT_BITS>>,
    d_sector: DFF<Bits<SECTOR_INDEX_BITS>>,
    d_count: DFF<Bits<3>>,
    /// The run's 32 words (word `m` = bits `[32m +: 32]`), held while no
    /// run comes (as words: a wide vector simulates ~20x slower).
    d_data: [DFF<Bits<32>>; 32],
    b_valid: DFF<Bit>,
    b_id: DFF<Bits<CONTEXT_BITS>>,
    /// The write stages' contexts one-hot (0 when no run): the counts'
    /// enables start at flip-flops, not at a 7-bit compare per context.
    d_hot: DFF<Bits<CONTEXTS>>,
    b_hot: DFF<Bits<CONTEXTS>>,
    b_sector: DFF<Bits<SECTOR_INDEX_BITS>>,
    b_count: DFF<Bits<3>>,
    b_data: [DFF<Bits<32>>; 32],
    /// Per context: the device part's lead (read by the device stage).
    dev_lead: RAM<Bits<3>, CONTEXT_BITS>,
    /// Per context: the device part's words, where the buddy part starts
    /// (read by the buddy stage), and its lead.
    bud_base: RAM<Bits<6>, CONTEXT_BITS>,
    bud_lead: RAM<Bits<3>, CONTEXT_BITS>,
    /// Per context: the device part's words again (read with the payload).
    boundary: RAM<Bits<6>, CONTEXT_BITS>,
    dev_words: [RAM<Bits<32>, CONTEXT_BITS>; 32],
    bud_words: [RAM<Bits<32>, CONTEXT_BITS>; 32],
    got: [DFF<Bits<COUNT_BITS>>; CONTEXTS],
    want: [DFF<Bits<COUNT_BITS>>; CONTEXTS],
    closed: DFF<Bits<CONTEXTS>>,
    /// Which contexts are complete, registered from the counts' and
    /// `closed`'s next values, so that the pick starts from flip-flops.
    complete: DFF<Bits<CONTEXTS>>,
    /// The one-hot of the context picked last cycle: its counts and
    /// `closed` bit are cleared this cycle, and it is masked out of
    /// `complete` (which was computed without it), so that the pick's
    /// one-hot ends at a register instead of running on into the counts.
    last_picked: DFF<Bits<CONTEXTS>>,
    /// `complete` without the context picked last cycle: what may be picked.
    avail: Signal<Local, Bits<CONTEXTS>>,
    /// The output register: a context picked, its payload being read.
    o_valid: DFF<Bit>,
    o_id: DFF<Bits<CONTEXT_BITS>>,
    /// The pick register: the context picked last cycle, for the output
    /// register.
    p_valid: DFF<Bit>,
    p_id: DFF<Bits<CONTEXT_BITS>>,
    p_advance: Signal<Local, Bit>,
    /// The sectors the write stages' runs cover, bit `s` for sector `s`
    /// (`count` ones shifted up by the first sector).
    d_mask: Signal<Local, Bits<5>>,
    b_mask: Signal<Local, Bits<5>>,
    /// `c` ones at index `c` (at most 5, the positions' sectors being
    /// 0..=4): a run's sectors before its shift.
    run_ones: [Constant<Bits<5>>; 8],
    /// Per buddy-part word `K`: the run word at position `K + lead` (mod
    /// 32), and whether that position's sector is in the run; payload word
    /// `J` takes index `J - base` of these.
    b_t: [Signal<Local, Bits<32>>; 32],
    b_u: [Signal<Local, Bit>; 32],
    plan_count: Signal<Local, Bits<COUNT_BITS>>,
    /// Sectors the write stages add to their contexts' counts (both, when
    /// a device run and a buddy run of one context come together).
    d_add: Signal<Local, Bits<COUNT_BITS>>,
    b_add: Signal<Local, Bits<COUNT_BITS>>,
    db_add: Signal<Local, Bits<COUNT_BITS>>,
    closed_next: Signal<Local, Bits<CONTEXTS>>,
    complete_next: Signal<Local, Bits<CONTEXTS>>,
    /// The one-hot of the context picked this cycle.
    picked: Signal<Local, Bits<CONTEXTS>>,
    lowest: LowestSet,
    first_pick: FirstSet,
    pick_id: Signal<Local, Bits<CONTEXT_BITS>>,
    advance: Signal<Local, Bit>,
    pick: Signal<Local, Bit>,
    read_address: Signal<Local, Bits<CONTEXT_BITS>>,
}

impl Default for SectorGather {
    fn default() -> Self {
        SectorGather {
            _settle: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            plan_valid: Default::default(),
            plan_ready: Default::default(),
            plan_id: Default::default(),
            plan_device: Default::default(),
            plan_lead: Default::default(),
            plan_words: Default::default(),
            plan_sectors: Default::default(),
            plan_buddy: Default::default(),
            plan_bud_lead: Default::default(),
            plan_bud_sectors: Default::default(),
            plan_last: Default::default(),
            dev_valid: Default::default(),
            dev_ready: Default::default(),
            dev_id: Default::default(),
            dev_sector: Default::default(),
            dev_sectors: Default::default(),
            dev_data: Default::default(),
            buddy_valid: Default::default(),
            buddy_ready: Default::default(),
            buddy_id: Default::default(),
            buddy_sector: Default::default(),
            buddy_sectors: Default::default(),
            buddy_data: Default::default(),
            out_valid: Default::default(),
            out_ready: Default::default(),
            out_id: Default::default(),
            out_payload: Default::default(),
            d_valid: Default::default(),
            d_hot: Default::default(),
            b_hot: Default::default(),
            d_id: Default::default(),
            d_sector: Default::default(),
            d_count: Default::default(),
            d_data: Default::default(),
            b_valid: Default::default(),
            b_id: Default::default(),
            b_sector: Default::default(),
            b_count: Default::default(),
            b_data: Default::default(),
            dev_lead: Default::default(),
            bud_base: Default::default(),
            bud_lead: Default::default(),
            boundary: Default::default(),
            dev_words: Default::default(),
            bud_words: Default::default(),
            got: default_array(),
            want: default_array(),
            closed: Default::default(),
            complete: Default::default(),
            last_picked: Default::default(),
            avail: Default::default(),
            o_valid: Default::default(),
            o_id: Default::default(),
            p_valid: Default::default(),
            p_id: Default::default(),
            p_advance: Default::default(),
            d_mask: Default::default(),
            b_mask: Default::default(),
            run_ones: std::array::from_fn(|c| Constant::new(((1u64 << c.min(5)) - 1).into())),
            b_t: Default::default(),
            b_u: Default::default(),
            plan_count: Default::default(),
            d_add: Default::default(),
            b_add: Default::default(),
            db_add: Default::default(),
            closed_next: Default::default(),
            complete_next: Default::default(),
            picked: Default::default(),
            lowest: Default::default(),
            first_pick: Default::default(),
            pick_id: Default::default(),
            advance: Default::default(),
            pick: Default::default(),
            read_address: Default::default(),
        }
    }
}

seq_macro::seq!(J in 0..32 {
impl Logic for SectorGather {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, d_valid, d_id, d_sector, d_count, b_valid, b_id, b_sector, b_count, d_hot, b_hot, closed, complete, last_picked, o_valid,
            o_id, p_valid, p_id
        );
        for m in 0..32 {
            self.d_data[m].clock.next = self.clock.val();
            self.d_data[m].d.next = self.d_data[m].q.val();
            self.b_data[m].clock.next = self.clock.val();
            self.b_data[m].d.next = self.b_data[m].q.val();
        }
        for c in 0..128 {
            self.got[c].clock.next = self.clock.val();
            self.got[c].d.next = self.got[c].q.val();
            self.want[c].clock.next = self.clock.val();
            self.want[c].d.next = self.want[c].q.val();
        }
        self.dev_lead.read_clock.next = self.clock.val();
        self.dev_lead.write_clock.next = self.clock.val();
        self.bud_base.read_clock.next = self.clock.val();
        self.bud_base.write_clock.next = self.clock.val();
        self.bud_lead.read_clock.next = self.clock.val();
        self.bud_lead.write_clock.next = self.clock.val();
        self.boundary.read_clock.next = self.clock.val();
        self.boundary.write_clock.next = self.clock.val();
        self.plan_ready.next = true;
        self.dev_ready.next = true;
        self.buddy_ready.next = true;

        // Runs are always taken into the write stages; their parts'
        // layouts are read meanwhile.
        self.d_valid.d.next = self.dev_valid.val();
        self.d_id.d.next = self.dev_id.val();
        self.d_sector.d.next = self.dev_sector.val();
        self.d_count.d.next = self.dev_sectors.val();
        self.b_valid.d.next = self.buddy_valid.val();
        self.b_id.d.next = self.buddy_id.val();
        self.b_sector.d.next = self.buddy_sector.val();
        self.b_count.d.next = self.buddy_sectors.val();
        self.d_hot.d.next = 0.into();
        if self.dev_valid.val() {
            self.d_hot.d.next = bits::<128>(1) << self.dev_id.val();
        }
        self.b_hot.d.next = 0.into();
        if self.buddy_valid.val() {
            self.b_hot.d.next = bits::<128>(1) << self.buddy_id.val();
        }
        self.dev_lead.read_address.next = self.dev_id.val();
        self.bud_base.read_address.next = self.buddy_id.val();
        self.bud_lead.read_address.next = self.buddy_id.val();

        // Plans write the layouts.
        self.dev_lead.write_address.next = self.plan_id.val();
        self.dev_lead.write_data.next = self.plan_lead.val();
        self.dev_lead.write_enable.next = self.plan_valid.val() & self.plan_device.val();
        self.bud_base.write_address.next = self.plan_id.val();
        self.bud_base.write_data.next = self.plan_words.val();
        self.bud_base.write_enable.next = self.plan_valid.val() & self.plan_device.val();
        self.boundary.write_address.next = self.plan_id.val();
        self.boundary.write_data.next = self.plan_words.val();
        self.boundary.write_enable.next = self.plan_valid.val() & self.plan_device.val();
        self.bud_lead.write_address.next = self.plan_id.val();
        self.bud_lead.write_data.next = self.plan_bud_lead.val();
        self.bud_lead.write_enable.next = self.plan_valid.val() & self.plan_buddy.val();
        self.plan_count.next =
            bit_cast::<COUNT_BITS, SECTOR_INDEX_BITS>(self.plan_sectors.val()) + bit_cast::<COUNT_BITS, SECTOR_INDEX_BITS>(self.plan_bud_sectors.val());

        // The pick register takes the lowest complete context when it is
        // empty or moves on (`complete` holds what the counts say this
        // cycle, computed from their next values last cycle, less the
        // context picked last cycle); the output register takes the pick
        // register's context when empty or taken, and reads its payload.
        // (The payload is read from a register, not from the pick: the
        // pick's 8 LUT levels and a RAM read did not fit one cycle.)
        self.avail.next = self.complete.q.val() & !self.last_picked.q.val();
        self.lowest.bits.next = self.avail.val();
        self.first_pick.bits.next = self.avail.val();
        self.pick_id.next = self.lowest.index.val();
        self.advance.next = !self.o_valid.q.val() | self.out_ready.val();
        self.p_advance.next = !self.p_valid.q.val() | self.advance.val();
        self.pick.next = self.p_advance.val() & self.lowest.any.val();
        self.picked.next = 0.into();
        if self.p_advance.val() {
            self.picked.next = self.first_pick.first.val();
            self.p_valid.d.next = self.pick.val();
            self.p_id.d.next = self.pick_id.val();
        }
        // A held output re-reads its own payload (the RAMs' reads are registered).
        self.read_address.next = self.o_id.q.val();
        if self.advance.val() {
            self.o_valid.d.next = self.p_valid.q.val();
            self.o_id.d.next = self.p_id.q.val();
            self.read_address.next = self.p_id.q.val();
        }
        self.boundary.read_address.next = self.read_address.val();

        self.last_picked.d.next = self.picked.val();

        // Counts: planned sectors add to `want`, sectors written to `got`;
        // a context picked last cycle starts over.
        self.closed_next.next = self.closed.q.val();
        if self.plan_valid.val() & self.plan_last.val() {
            self.closed_next.next = self.closed_next.val() | (bits::<128>(1) << self.plan_id.val());
        }
        // A context is complete next cycle when it is closed and its counts
        // agree, unless it was picked last cycle.
        self.complete_next.next = self.closed_next.val() & !self.last_picked.q.val();
        self.d_add.next = bit_cast::<COUNT_BITS, 3>(self.d_count.q.val());
        self.b_add.next = bit_cast::<COUNT_BITS, 3>(self.b_count.q.val());
        self.db_add.next = self.d_add.val() + self.b_add.val();
        for c in 0..128 {
            self.got[c].d.next = self.got[c].q.val();
            if self.d_hot.q.val().get_bit(c) {
                self.got[c].d.next = self.got[c].q.val() + self.d_add.val();
            }
            if self.b_hot.q.val().get_bit(c) {
                self.got[c].d.next = self.got[c].q.val() + self.b_add.val();
                if self.d_hot.q.val().get_bit(c) {
                    self.got[c].d.next = self.got[c].q.val() + self.db_add.val();
                }
            }
            if self.plan_valid.val() & (self.plan_id.val().index() == c) {
                self.want[c].d.next = self.want[c].q.val() + self.plan_count.val();
            }
            if self.got[c].d.val() != self.want[c].d.val() {
                self.complete_next.next = self.complete_next.val().replace_bit(c, false);
            }
            if self.last_picked.q.val().get_bit(c) {
                self.got[c].d.next = 0.into();
                self.want[c].d.next = 0.into();
            }
        }
        self.complete.d.next = self.complete_next.val();
        self.closed.d.next = self.closed_next.val() & !self.last_picked.q.val();

        // A run's word `(J + shift) mod 32` lands on payload word J (runs
        // start at sector 0 or 4): the device part's shift is its lead, the
        // buddy part's its lead less the device part's words. Both are
        // even (parts start at 8-byte boundaries and are whole 8-byte
        // units long), so a word picks from 4 or 16 run words, not 32.
        // Written as one-hot picks and masks, with no adder or compare: a
        // carry chain between registers lets ABC's depth mapping put 8 LUT
        // levels on each side of it (the slices mapped this stage at 9).
        self.d_mask.next = 0.into();
        self.b_mask.next = 0.into();
        for c in 0..8 {
            if self.d_count.q.val().index() == c {
                self.d_mask.next = self.run_ones[c].val() << self.d_sector.q.val();
            }
            if self.b_count.q.val().index() == c {
                self.b_mask.next = self.run_ones[c].val() << self.b_sector.q.val();
            }
        }
        #(
            self.b_t[J].next = 0.into();
            self.b_u[J].next = false;
            for l in 0..4 {
                if self.bud_lead.read_data.val().index() == 2 * l {
                    self.b_t[J].next = self.b_data[(J + 2 * l) % 32].q.val();
                    self.b_u[J].next = self.b_mask.val().get_bit((J + 2 * l) >> 3);
                }
            }
        )*
        #(
            if self.dev_valid.val() {
                self.d_data[J].d.next = self.dev_data.val().w~J;
            }
            if self.buddy_valid.val() {
                self.b_data[J].d.next = self.buddy_data.val().w~J;
            }
            // Payload word J: device-part word J is at position J + lead
            // of the device sectors; buddy-part word J - base at
            // position J - base + lead of the buddy sectors (when J >= base).
            // A position's sector is its bits above 3; its word in the run
            // is the position mod 32, as a run starts at sector 0 or 4.
            self.dev_words[J].read_clock.next = self.clock.val();
            self.dev_words[J].write_clock.next = self.clock.val();
            self.bud_words[J].read_clock.next = self.clock.val();
            self.bud_words[J].write_clock.next = self.clock.val();
            self.dev_words[J].read_address.next = self.read_address.val();
            self.bud_words[J].read_address.next = self.read_address.val();

            self.dev_words[J].write_address.next = self.d_id.q.val();
            self.dev_words[J].write_enable.next = false;
            self.dev_words[J].write_data.next = 0.into();
            for l in 0..4 {
                if self.dev_lead.read_data.val().index() == 2 * l {
                    self.dev_words[J].write_data.next = self.d_data[(J + 2 * l) % 32].q.val();
                    self.dev_words[J].write_enable.next = self.d_valid.q.val() & self.d_mask.val().get_bit((J + 2 * l) >> 3);
                }
            }

            self.bud_words[J].write_address.next = self.b_id.q.val();
            self.bud_words[J].write_enable.next = false;
            self.bud_words[J].write_data.next = 0.into();
            for k in 0..16 {
                if (2 * k <= J) & (self.bud_base.read_data.val().index() == 2 * k) {
                    self.bud_words[J].write_data.next = self.b_t[(J + 32 - 2 * k) % 32].val();
                    self.bud_words[J].write_enable.next = self.b_valid.q.val() & self.b_u[(J + 32 - 2 * k) % 32].val();
                }
            }

            self.out_payload.next.w~J = self.bud_words[J].read_data.val();
            if self.boundary.read_data.val() > bits::<6>(J) {
                self.out_payload.next.w~J = self.dev_words[J].read_data.val();
            }
        )*
        self.out_valid.next = self.o_valid.q.val();
        self.out_id.next = self.o_id.q.val();

        if self.reset.val() {
            self.d_valid.d.next = false;
            self.b_valid.d.next = false;
            self.d_hot.d.next = 0.into();
            self.b_hot.d.next = 0.into();
            self.closed.d.next = 0.into();
            self.complete.d.next = 0.into();
            self.last_picked.d.next = 0.into();
            self.o_valid.d.next = false;
            self.p_valid.d.next = false;
            for c in 0..128 {
                self.got[c].d.next = 0.into();
                self.want[c].d.next = 0.into();
            }
        }
    }
}
});
