//! The request contexts of the pipelined controller slice: which of the
//! [`CONTEXTS`] are free, and a guard that keeps two requests to one
//! memory-entry from being in flight at once.

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

/// The bucket of a memory-entry index `e`: `fold(e) ^ fold(e >> 3)`, where
/// `fold` XORs the 10-bit groups of its argument (`[9:0] ^ [19:10] ^ ...`).
/// The second term matters: memory-entries are interleaved over the
/// slices in blocks of 64, so within one slice bits `[8:6]` of `e` are the
/// slice's number and constant (8 slices); `fold(e)` alone then reaches
/// only 128 of the 1,024 buckets and unrelated entries wait for each
/// other, where `fold(e) ^ fold(e >> 3)` maps 16 consecutive blocks of a
/// slice (1,024 entries) to 1,024 different buckets.
pub fn bucket(entry_index: u64) -> u64 {
    let fold = |mut e: u64| {
        let mut b = 0;
        while e != 0 {
            b ^= e & ((1 << BUCKET_BITS) - 1);
            e >>= BUCKET_BITS;
        }
        b
    };
    let e = entry_index & ((1 << ENTRY_INDEX_BITS) - 1);
    fold(e) ^ fold(e >> 3)
}

/// Allocates the slice's request contexts and orders requests to one
/// memory-entry (Buddy Compression Sec. III: a read after a write must
/// see the written entry).
///
/// A request offered on `alloc` is given the lowest free context id when
/// one is free and no request in flight has a memory-entry index in the
/// same bucket ([`bucket`]); otherwise it waits (`alloc_ready` low), so
/// requests to one memory-entry are never in flight together and keep
/// their order. Two different entries of one bucket also wait for each
/// other (rare: 128 contexts over 1,024 buckets, spread as [`bucket`]
/// says), which costs time, never
/// correctness. A context given back on `free` is free, and its bucket
/// open, from the cycle after next.
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (every context free) |
/// | `alloc_valid`, `alloc_ready` | 1, 1 | in, out | a request asks for a context; `alloc_ready` does not depend on `alloc_valid` |
/// | `alloc_entry` | 57 | in | the request's memory-entry index (`va[63:7]`) |
/// | `alloc_id` | 7 | out | the context given (valid with `alloc_ready`) |
/// | `free_valid` | 1 | in | the request of context `free_id` has left the slice |
/// | `free_id` | 7 | in | a context in use |
/// | `in_use` | 8 | out | contexts in use (status) |
///
/// Storage: the in-use bits (128) and the bucket-busy bits (1,024) in
/// flip-flops; each context's bucket in a 128 x 10-bit RAM.
#[derive(SettleBlock, Default)]
pub struct RequestContexts {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub alloc_valid: Signal<In, Bit>,
    pub alloc_entry: Signal<In, Bits<ENTRY_INDEX_BITS>>,
    pub alloc_ready: Signal<Out, Bit>,
    pub alloc_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub free_valid: Signal<In, Bit>,
    pub free_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub in_use: Signal<Out, Bits<8>>,
    used: DFF<Bits<CONTEXTS>>,
    busy: DFF<Bits<1024>>,
    count: DFF<Bits<8>>,
    /// A context being freed: its bucket is read this cycle.
    freeing: DFF<Bit>,
    freeing_id: DFF<Bits<CONTEXT_BITS>>,
    bucket_of: RAM<Bits<BUCKET_BITS>, CONTEXT_BITS>,
    bucket: Signal<Local, Bits<BUCKET_BITS>>,
    free: Signal<Local, Bits<CONTEXTS>>,
    lowest: LowestSet,
    id: Signal<Local, Bits<CONTEXT_BITS>>,
    take: Signal<Local, Bit>,
    used_next: Signal<Local, Bits<CONTEXTS>>,
    busy_next: Signal<Local, Bits<1024>>,
}

impl Logic for RequestContexts {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, used, busy, count, freeing, freeing_id);
        self.bucket_of.read_clock.next = self.clock.val();
        self.bucket_of.write_clock.next = self.clock.val();

        self.bucket.next = self.alloc_entry.val().get_bits::<10>(0)
            ^ self.alloc_entry.val().get_bits::<10>(10)
            ^ self.alloc_entry.val().get_bits::<10>(20)
            ^ self.alloc_entry.val().get_bits::<10>(30)
            ^ self.alloc_entry.val().get_bits::<10>(40)
            ^ bit_cast::<10, 7>(self.alloc_entry.val().get_bits::<7>(50))
            ^ self.alloc_entry.val().get_bits::<10>(3)
            ^ self.alloc_entry.val().get_bits::<10>(13)
            ^ self.alloc_entry.val().get_bits::<10>(23)
            ^ self.alloc_entry.val().get_bits::<10>(33)
            ^ self.alloc_entry.val().get_bits::<10>(43)
            ^ bit_cast::<10, 4>(self.alloc_entry.val().get_bits::<4>(53));

        // The lowest free context.
        self.free.next = !self.used.q.val();
        self.lowest.bits.next = self.free.val();
        self.id.next = self.lowest.index.val();

        self.alloc_ready.next = self.lowest.any.val() & !self.busy.q.val().get_bit(self.bucket.val().index());
        self.alloc_id.next = self.id.val();
        self.take.next = self.alloc_valid.val() & self.alloc_ready.val();

        // A free reads the context's bucket, then releases both.
        self.bucket_of.read_address.next = self.free_id.val();
        self.freeing.d.next = self.free_valid.val();
        self.freeing_id.d.next = self.free_id.val();
        self.used_next.next = self.used.q.val();
        self.busy_next.next = self.busy.q.val();
        if self.freeing.q.val() {
            self.used_next.next = self.used_next.val() & !(bits::<128>(1) << self.freeing_id.q.val());
            self.busy_next.next = self.busy_next.val() & !(bits::<1024>(1) << self.bucket_of.read_data.val());
        }
        self.bucket_of.write_enable.next = false;
        self.bucket_of.write_address.next = self.id.val();
        self.bucket_of.write_data.next = self.bucket.val();
        if self.take.val() {
            self.bucket_of.write_enable.next = true;
            self.used_next.next = self.used_next.val() | (bits::<128>(1) << self.id.val());
            self.busy_next.next = self.busy_next.val() | (bits::<1024>(1) << self.bucket.val());
        }
        self.used.d.next = self.used_next.val();
        self.busy.d.next = self.busy_next.val();
        self.count.d.next = self.count.q.val();
        if self.take.val() & !self.freeing.q.val() {
            self.count.d.next = self.count.q.val() + 1;
        }
        if !self.take.val() & self.freeing.q.val() {
            self.count.d.next = self.count.q.val() - 1;
        }
        self.in_use.next = self.count.q.val();

        if self.reset.val() {
            self.used.d.next = 0.into();
            self.busy.d.next = 0.into();
            self.count.d.next = 0.into();
            self.freeing.d.next = false;
        }
    }
}
