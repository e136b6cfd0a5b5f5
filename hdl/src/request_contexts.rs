//! The request contexts of the pipelined controller slice: which of the
//! [`CONTEXTS`] are free, and a guard that keeps a write to a
//! memory-entry from being in flight with another write to it not yet
//! taken by the write planner (or one to a compressed page) or with a
//! read of it that has not yet had its memory reads taken (reads of one
//! memory-entry may be in flight together).

use crate::lowest_set::LowestSet;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Request contexts per slice (`docs/controller.md`, "Sizing": 128 keep the
/// shared traces within 5% of the paper's unbounded timing).
pub const CONTEXTS: usize = 128;
/// Width of a context id (the request tag of the slice's blocks).
pub const CONTEXT_BITS: usize = 7;
/// Width of an entry guard bucket: 1,024 buckets.
pub const BUCKET_BITS: usize = 10;
/// Width of a memory-entry index (`va[63:7]`).
pub const ENTRY_INDEX_BITS: usize = 57;
/// Contexts freed in one cycle, at most (one `free_*` port, one
/// `freeing` register): `in_use` falls by at most this from one cycle to
/// the next.
pub const FREED_PER_CYCLE: u64 = 1;

/// Index bits below this one are an entry's place in its 2 MiB page
/// (2 MiB / 128 B = 2^14 entries: the default page size, Buddy
/// Compression Sec. III's 2 MB GPU pages); bits from it up number the page.
pub const PAGE_ENTRY_BITS: usize =
    (buddy_golden::translation::PageSize::Huge2M.bytes() / buddy_golden::ENTRY_BYTES as u64).trailing_zeros() as usize;
/// The low index bits whose every pattern, beside any one page bit,
/// keeps a bucket of its own: entries up to 127 apart in two arrays a
/// power of two of 2 MiB pages apart.
pub const NEAR_OFFSET_BITS: usize = 7;

/// The bucket hash, a linear map over GF(2): bit `i` of a memory-entry
/// index, when set, flips the bucket bits of `BUCKET_COLUMNS[i]` (10 bits
/// each, 57 columns), so [`bucket`] is the XOR of the set bits' columns.
/// The columns follow one rule (`testbenches/tests/request_contexts.rs`
/// derives them again and checks each property):
/// - bits 0-5 (an entry in its 64-entry block) and 9-12 (16 consecutive
///   blocks of one slice) are the unit columns 1, 2, ..., 512 in that
///   order, so 1,024 consecutive entries of one slice take 1,024 buckets;
/// - every further column, in the order 6, 7, 8, 13, 14, ..., 56, is the
///   value that is not 0, not a column already chosen nor the XOR of two
///   (so indexes differing in 1, 2 or 3 bits never share a bucket), for
///   bits 6-8 not the XOR of any of columns 0-9 placed (so columns 0-9
///   are a basis: 1,024 consecutive entries from a multiple of 1,024 take
///   1,024 buckets, however the slices deal them), and for a page bit (14
///   and up) not the XOR of any of columns 0-6 (so entries of two arrays
///   2^k pages apart at offsets that differ only in bits 0-6 never do
///   either); of those, the one giving the lowest largest fan-in (index
///   bits per bucket bit), then the fewest ones, then the smallest.
///
/// At most 17 index bits per bucket bit: two 6-input LUT levels of XOR.
/// The CRC-10 used before (generator (x + 1)(x^9 + x^5 + 1), issue
/// #48's tenth step) had the first two properties but put
/// `e` and `e ^ 0x4062`, arrays one page apart at nearby offsets, in one
/// bucket: hpgmg's compressed runs lost about a quarter of their guard
/// waits to entries sharing a bucket, most of them such pairs
/// (`docs/controller.md`, "Issue #48: the bucket columns").
pub const BUCKET_COLUMNS: [u16; ENTRY_INDEX_BITS] = [
    0x001, 0x002, 0x004, 0x008, 0x010, 0x020, 0x083, 0x10c,
    0x230, 0x040, 0x080, 0x100, 0x200, 0x007, 0x058, 0x0e0,
    0x043, 0x114, 0x128, 0x045, 0x10a, 0x290, 0x2a0, 0x046,
    0x109, 0x049, 0x106, 0x04a, 0x105, 0x04c, 0x103, 0x051,
    0x112, 0x20c, 0x052, 0x111, 0x214, 0x218, 0x054, 0x121,
    0x20a, 0x061, 0x118, 0x206, 0x062, 0x124, 0x209, 0x064,
    0x122, 0x211, 0x228, 0x068, 0x130, 0x203, 0x224, 0x070,
    0x181,
];
// The hardware's loop over bucket bits is written with a literal 10, and
// the columns were chosen for 2 MiB pages.
const _: () = assert!(BUCKET_BITS == 10 && PAGE_ENTRY_BITS == 14);

/// Per bucket bit `j`, the memory-entry index bits whose parity it is
/// ([`bucket`]): bit `i` of `BUCKET_MASKS[j]` is bit `j` of
/// `BUCKET_COLUMNS[i]`.
pub const BUCKET_MASKS: [u64; BUCKET_BITS] = bucket_masks();

const fn bucket_masks() -> [u64; BUCKET_BITS] {
    let mut masks = [0u64; BUCKET_BITS];
    let mut i = 0;
    while i < ENTRY_INDEX_BITS {
        let mut j = 0;
        while j < BUCKET_BITS {
            masks[j] |= ((BUCKET_COLUMNS[i] >> j & 1) as u64) << i;
            j += 1;
        }
        i += 1;
    }
    masks
}

/// The bucket (10 bits) of a memory-entry index `e` (57 bits, `va[63:7]`;
/// higher bits are ignored): the XOR of [`BUCKET_COLUMNS`] over `e`'s set
/// bits. Indexes that differ in 1, 2 or 3 bits never share a bucket, nor
/// do two whose difference is one page bit and any pattern of bits 0-6;
/// within one slice (bits `[8:6]` constant) 1,024 consecutive entries
/// from a multiple of 1,024 take 1,024 different buckets, and two entries
/// fewer than 128 apart take two unless they straddle a multiple of 2^17
/// of the slice's entries (tests in `testbenches/tests/request_contexts.rs`).
pub fn bucket(entry_index: u64) -> u64 {
    let e = entry_index & ((1 << ENTRY_INDEX_BITS) - 1);
    (0..BUCKET_BITS).map(|j| u64::from((e & BUCKET_MASKS[j]).count_ones() & 1) << j).sum()
}

/// Allocates the slice's request contexts and orders requests to one
/// memory-entry (Buddy Compression Sec. III: a read after a write must
/// see the written entry, a read before a write must not; reads leave the
/// entry as it is, so they need no order among themselves).
///
/// A request offered on `alloc` is given the lowest free context id when
/// one is free and its memory-entry's bucket ([`bucket`]) is open to it:
/// a read waits only while a write of that bucket is in flight; a write
/// while another write of that bucket is in flight and not yet planned, or a
/// read of it whose memory reads are not all taken yet (`issued_*`, from
/// the read planner: memory serves requests in the order it takes them,
/// so a write taken after a read's last memory read cannot change what
/// that read returns). A write is planned (`planned_*`) when the write
/// planner takes a write to an uncompressed page: nothing of it is read
/// and the planner writes its jobs one at a time in the order it takes
/// them, so a later write of the entry, which reaches the planner after
/// it, lands after it (issue #48's eighth step; a write to a compressed
/// page holds its bucket until freed: its size nibble's reservation and
/// commit, and a partial write's read of the entry, are made with one
/// write per entry in flight).
/// Otherwise it waits (`alloc_ready` low), so requests keep their order
/// around a write. Two different entries of one bucket wait for each
/// other in the same way (rare: 128 contexts over 1,024 buckets, spread
/// as [`bucket`] says), which costs time, never correctness.
///
/// A context given back on `free` is free from the cycle after next (its
/// bucket is read from a RAM first). Its bucket opens a cycle later, once
/// a search of the 128 contexts' buckets shows no other request holding
/// it: to writes, no write not yet planned and no read not yet issued (a
/// bucket may hold many reads, so one busy bit cannot tell); to reads, no
/// other write in flight (planned writes of a bucket may be in flight
/// together). A read issued on `issued_*`, and a write planned on
/// `planned_*`, stops holding its bucket against writes from the cycle
/// after next, the same way (a second and a third copy of the bucket RAM,
/// a second and a third search).
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (every context free) |
/// | `alloc_valid`, `alloc_ready` | 1, 1 | in, out | a request asks for a context; `alloc_ready` does not depend on `alloc_valid` |
/// | `alloc_entry` | 57 | in | the request's memory-entry index (`va[63:7]`) |
/// | `alloc_write` | 1 | in | the request writes its memory-entry (a full or partial write) |
/// | `alloc_id` | 7 | out | the context given (valid with `alloc_ready`) |
/// | `free_valid` | 1 | in | the request of context `free_id` has left the slice |
/// | `free_id` | 7 | in | a context in use |
/// | `issued_valid` | 1 | in | every memory read of context `issued_id`'s request is taken (ignored for a write: it holds its bucket until freed or planned) |
/// | `issued_id` | 7 | in | a context in use |
/// | `planned_valid` | 1 | in | the write planner took context `planned_id`'s write, to an uncompressed page |
/// | `planned_id` | 7 | in | a context in use, a write |
/// | `in_use` | 8 | out | contexts in use (status) |
///
/// Storage in flip-flops: the in-use, is-a-write, not-yet-issued and
/// planned bits (128 each), the bucket-busy and bucket-written bits (1,024
/// each), each context's bucket (128 x 10 bits, searched all at once); the
/// same buckets again in three 128 x 10-bit RAMs, read by context id when
/// it is freed, issued and planned.
#[derive(SettleBlock)]
pub struct RequestContexts {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub alloc_valid: Signal<In, Bit>,
    pub alloc_entry: Signal<In, Bits<ENTRY_INDEX_BITS>>,
    pub alloc_write: Signal<In, Bit>,
    pub alloc_ready: Signal<Out, Bit>,
    pub alloc_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub free_valid: Signal<In, Bit>,
    pub free_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub issued_valid: Signal<In, Bit>,
    pub issued_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub planned_valid: Signal<In, Bit>,
    pub planned_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub in_use: Signal<Out, Bits<8>>,
    used: DFF<Bits<CONTEXTS>>,
    /// Context `c` holds a write.
    writes: DFF<Bits<CONTEXTS>>,
    /// Context `c`'s read is not issued yet (set when taken).
    held: DFF<Bits<CONTEXTS>>,
    /// Context `c`'s write is planned (set when planned, cleared when taken).
    planned: DFF<Bits<CONTEXTS>>,
    /// Buckets held by a request in flight, a write or a read not yet
    /// issued (or by one being released).
    busy: DFF<Bits<1024>>,
    /// Buckets with a write in flight (more than one only once the
    /// earlier ones are planned).
    written: DFF<Bits<1024>>,
    /// Each context's bucket, for the search at release.
    bucket_q: [DFF<Bits<BUCKET_BITS>>; CONTEXTS],
    /// Contexts in use, less one if one was taken last cycle (`took`):
    /// `in_use` is `count + took`, so that the count's register does not
    /// wait for this cycle's take, the end of the intake's longest path.
    count: DFF<Bits<8>>,
    /// A context was taken last cycle.
    took: DFF<Bit>,
    /// A context being freed: its bucket is read this cycle.
    freeing: DFF<Bit>,
    freeing_id: DFF<Bits<CONTEXT_BITS>>,
    /// The bucket of the context freed the cycle before: busy until no
    /// other context holds it.
    releasing: DFF<Bit>,
    rel_bucket: DFF<Bits<BUCKET_BITS>>,
    /// Another context in use holds `rel_bucket`; another write in
    /// flight has it.
    others: Signal<Local, Bit>,
    others_written: Signal<Local, Bit>,
    /// A context being issued: its bucket is read this cycle.
    issuing: DFF<Bit>,
    issuing_id: DFF<Bits<CONTEXT_BITS>>,
    /// The bucket of the context issued the cycle before: busy until no
    /// other context holds it.
    releasing_issued: DFF<Bit>,
    rel_issued_bucket: DFF<Bits<BUCKET_BITS>>,
    others_issued: Signal<Local, Bit>,
    /// The same for a write planned.
    planning: DFF<Bit>,
    planning_id: DFF<Bits<CONTEXT_BITS>>,
    releasing_planned: DFF<Bit>,
    rel_planned_bucket: DFF<Bits<BUCKET_BITS>>,
    others_planned: Signal<Local, Bit>,
    /// Contexts holding their bucket against writes: in use, and a write
    /// not planned or a read not yet issued.
    holding: Signal<Local, Bits<CONTEXTS>>,
    /// Writes in flight.
    writing: Signal<Local, Bits<CONTEXTS>>,
    bucket_of_issued: RAM<Bits<BUCKET_BITS>, CONTEXT_BITS>,
    bucket_of_planned: RAM<Bits<BUCKET_BITS>, CONTEXT_BITS>,
    planned_next: Signal<Local, Bits<CONTEXTS>>,
    held_next: Signal<Local, Bits<CONTEXTS>>,
    /// The bucket is closed to the request offered.
    closed: Signal<Local, Bit>,
    bucket_of: RAM<Bits<BUCKET_BITS>, CONTEXT_BITS>,
    bucket: Signal<Local, Bits<BUCKET_BITS>>,
    free: Signal<Local, Bits<CONTEXTS>>,
    lowest: LowestSet,
    id: Signal<Local, Bits<CONTEXT_BITS>>,
    take: Signal<Local, Bit>,
    used_next: Signal<Local, Bits<CONTEXTS>>,
    busy_next: Signal<Local, Bits<1024>>,
    written_next: Signal<Local, Bits<1024>>,
    writes_next: Signal<Local, Bits<CONTEXTS>>,
    /// [`BUCKET_MASKS`].
    bucket_masks: [Constant<Bits<ENTRY_INDEX_BITS>>; BUCKET_BITS],
}

impl Default for RequestContexts {
    fn default() -> Self {
        RequestContexts {
            _settle: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            alloc_valid: Default::default(),
            alloc_entry: Default::default(),
            alloc_write: Default::default(),
            alloc_ready: Default::default(),
            alloc_id: Default::default(),
            free_valid: Default::default(),
            free_id: Default::default(),
            issued_valid: Default::default(),
            issued_id: Default::default(),
            planned_valid: Default::default(),
            planned_id: Default::default(),
            in_use: Default::default(),
            used: Default::default(),
            writes: Default::default(),
            held: Default::default(),
            planned: Default::default(),
            busy: Default::default(),
            written: Default::default(),
            bucket_q: crate::default_array(),
            count: Default::default(),
            took: Default::default(),
            freeing: Default::default(),
            freeing_id: Default::default(),
            releasing: Default::default(),
            rel_bucket: Default::default(),
            others: Default::default(),
            others_written: Default::default(),
            issuing: Default::default(),
            issuing_id: Default::default(),
            releasing_issued: Default::default(),
            rel_issued_bucket: Default::default(),
            others_issued: Default::default(),
            planning: Default::default(),
            planning_id: Default::default(),
            releasing_planned: Default::default(),
            rel_planned_bucket: Default::default(),
            others_planned: Default::default(),
            holding: Default::default(),
            writing: Default::default(),
            bucket_of_issued: Default::default(),
            bucket_of_planned: Default::default(),
            planned_next: Default::default(),
            held_next: Default::default(),
            closed: Default::default(),
            bucket_of: Default::default(),
            bucket: Default::default(),
            free: Default::default(),
            lowest: Default::default(),
            id: Default::default(),
            take: Default::default(),
            used_next: Default::default(),
            busy_next: Default::default(),
            written_next: Default::default(),
            writes_next: Default::default(),
            bucket_masks: BUCKET_MASKS.map(|m| Constant::new(m.into())),
        }
    }
}

impl Logic for RequestContexts {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            used,
            writes,
            held,
            planned,
            busy,
            written,
            count,
            took,
            freeing,
            freeing_id,
            releasing,
            rel_bucket,
            issuing,
            issuing_id,
            releasing_issued,
            rel_issued_bucket,
            planning,
            planning_id,
            releasing_planned,
            rel_planned_bucket
        );
        for c in 0..128 {
            self.bucket_q[c].clock.next = self.clock.val();
            self.bucket_q[c].d.next = self.bucket_q[c].q.val();
        }
        self.bucket_of.read_clock.next = self.clock.val();
        self.bucket_of.write_clock.next = self.clock.val();
        self.bucket_of_issued.read_clock.next = self.clock.val();
        self.bucket_of_issued.write_clock.next = self.clock.val();
        self.bucket_of_planned.read_clock.next = self.clock.val();
        self.bucket_of_planned.write_clock.next = self.clock.val();

        self.bucket.next = 0.into();
        for j in 0..10 {
            self.bucket.next = self.bucket.val().replace_bit(j, (self.alloc_entry.val() & self.bucket_masks[j].val()).xor());
        }

        // The lowest free context.
        self.free.next = !self.used.q.val();
        self.lowest.bits.next = self.free.val();
        self.id.next = self.lowest.index.val();

        // Both bits are looked up, so the choice is one gate after them.
        self.closed.next = self.written.q.val().get_bit(self.bucket.val().index());
        if self.alloc_write.val() {
            self.closed.next = self.busy.q.val().get_bit(self.bucket.val().index());
        }
        self.alloc_ready.next = self.lowest.any.val() & !self.closed.val();
        self.alloc_id.next = self.id.val();
        self.take.next = self.alloc_valid.val() & self.alloc_ready.val();

        // A free reads the context's bucket, then releases the context; a
        // cycle later the bucket opens to writes unless another context in
        // use holds it, and to reads unless another write is in flight.
        self.bucket_of.read_address.next = self.free_id.val();
        self.freeing.d.next = self.free_valid.val();
        self.freeing_id.d.next = self.free_id.val();
        self.releasing.d.next = self.freeing.q.val();
        self.rel_bucket.d.next = self.bucket_of.read_data.val();
        // An issue does the same with the second RAM: the context stops
        // holding at the edge after `issued_valid`, its bucket is searched
        // the cycle after.
        self.bucket_of_issued.read_address.next = self.issued_id.val();
        self.issuing.d.next = self.issued_valid.val();
        self.issuing_id.d.next = self.issued_id.val();
        self.releasing_issued.d.next = self.issuing.q.val();
        self.rel_issued_bucket.d.next = self.bucket_of_issued.read_data.val();
        // A planned write does the same with the third RAM.
        self.bucket_of_planned.read_address.next = self.planned_id.val();
        self.planning.d.next = self.planned_valid.val();
        self.planning_id.d.next = self.planned_id.val();
        self.releasing_planned.d.next = self.planning.q.val();
        self.rel_planned_bucket.d.next = self.bucket_of_planned.read_data.val();
        self.holding.next = self.used.q.val() & (self.held.q.val() | (self.writes.q.val() & !self.planned.q.val()));
        self.writing.next = self.used.q.val() & self.writes.q.val();
        self.others.next = false;
        self.others_written.next = false;
        self.others_issued.next = false;
        self.others_planned.next = false;
        for c in 0..128 {
            if self.holding.val().get_bit(c) & (self.bucket_q[c].q.val() == self.rel_bucket.q.val()) {
                self.others.next = true;
            }
            if self.writing.val().get_bit(c) & (self.bucket_q[c].q.val() == self.rel_bucket.q.val()) {
                self.others_written.next = true;
            }
            if self.holding.val().get_bit(c) & (self.bucket_q[c].q.val() == self.rel_issued_bucket.q.val()) {
                self.others_issued.next = true;
            }
            if self.holding.val().get_bit(c) & (self.bucket_q[c].q.val() == self.rel_planned_bucket.q.val()) {
                self.others_planned.next = true;
            }
        }
        self.held_next.next = self.held.q.val();
        if self.issuing.q.val() {
            self.held_next.next = self.held.q.val() & !(bits::<128>(1) << self.issuing_id.q.val());
        }
        self.planned_next.next = self.planned.q.val();
        if self.planning.q.val() {
            self.held_next.next = self.held_next.val() & !(bits::<128>(1) << self.planning_id.q.val());
            self.planned_next.next = self.planned.q.val() | (bits::<128>(1) << self.planning_id.q.val());
        }
        self.used_next.next = self.used.q.val();
        self.writes_next.next = self.writes.q.val();
        self.busy_next.next = self.busy.q.val();
        self.written_next.next = self.written.q.val();
        if self.freeing.q.val() {
            self.used_next.next = self.used_next.val() & !(bits::<128>(1) << self.freeing_id.q.val());
        }
        if self.releasing.q.val() & !self.others.val() {
            self.busy_next.next = self.busy_next.val() & !(bits::<1024>(1) << self.rel_bucket.q.val());
        }
        // A read's release clears a bucket no write has: harmless.
        if self.releasing.q.val() & !self.others_written.val() {
            self.written_next.next = self.written_next.val() & !(bits::<1024>(1) << self.rel_bucket.q.val());
        }
        if self.releasing_planned.q.val() & !self.others_planned.val() {
            self.busy_next.next = self.busy_next.val() & !(bits::<1024>(1) << self.rel_planned_bucket.q.val());
        }
        if self.releasing_issued.q.val() & !self.others_issued.val() {
            self.busy_next.next = self.busy_next.val() & !(bits::<1024>(1) << self.rel_issued_bucket.q.val());
        }
        self.bucket_of.write_enable.next = false;
        self.bucket_of.write_address.next = self.id.val();
        self.bucket_of.write_data.next = self.bucket.val();
        self.bucket_of_issued.write_enable.next = false;
        self.bucket_of_issued.write_address.next = self.id.val();
        self.bucket_of_issued.write_data.next = self.bucket.val();
        self.bucket_of_planned.write_enable.next = false;
        self.bucket_of_planned.write_address.next = self.id.val();
        self.bucket_of_planned.write_data.next = self.bucket.val();
        if self.take.val() {
            self.bucket_of.write_enable.next = true;
            self.bucket_of_issued.write_enable.next = true;
            self.bucket_of_planned.write_enable.next = true;
            self.held_next.next = self.held_next.val() | (bits::<128>(1) << self.id.val());
            self.planned_next.next = self.planned_next.val() & !(bits::<128>(1) << self.id.val());
            self.used_next.next = self.used_next.val() | (bits::<128>(1) << self.id.val());
            self.writes_next.next = self.writes_next.val() & !(bits::<128>(1) << self.id.val());
            self.busy_next.next = self.busy_next.val() | (bits::<1024>(1) << self.bucket.val());
            if self.alloc_write.val() {
                self.writes_next.next = self.writes_next.val() | (bits::<128>(1) << self.id.val());
                self.written_next.next = self.written_next.val() | (bits::<1024>(1) << self.bucket.val());
            }
            for c in 0..128 {
                if self.id.val().index() == c {
                    self.bucket_q[c].d.next = self.bucket.val();
                }
            }
        }
        self.used.d.next = self.used_next.val();
        self.busy.d.next = self.busy_next.val();
        self.written.d.next = self.written_next.val();
        self.writes.d.next = self.writes_next.val();
        self.held.d.next = self.held_next.val();
        self.planned.d.next = self.planned_next.val();
        self.took.d.next = self.take.val();
        self.count.d.next = self.count.q.val();
        if self.took.q.val() & !self.freeing.q.val() {
            self.count.d.next = self.count.q.val() + 1;
        }
        if !self.took.q.val() & self.freeing.q.val() {
            self.count.d.next = self.count.q.val() - 1;
        }
        self.in_use.next = self.count.q.val();
        if self.took.q.val() {
            self.in_use.next = self.count.q.val() + 1;
        }

        if self.reset.val() {
            self.used.d.next = 0.into();
            self.busy.d.next = 0.into();
            self.written.d.next = 0.into();
            self.count.d.next = 0.into();
            self.took.d.next = false;
            self.freeing.d.next = false;
            self.releasing.d.next = false;
            self.issuing.d.next = false;
            self.releasing_issued.d.next = false;
            self.planning.d.next = false;
            self.releasing_planned.d.next = false;
        }
    }
}
