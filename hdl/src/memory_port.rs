//! One memory's port of the pipelined controller slice: the metadata
//! cache's fills and write-backs, the write planner's writes of runs of up to 4 sectors and
//! the read planner's reads of runs of up to 4 sectors merged onto one
//! tagged request stream, and the answers routed back (fills in the order
//! the cache asked for them, data runs by tag in any order).

use crate::entry_bits::EntryBits;
use crate::pipelined_metadata_cache::FILL_SLOTS;
use crate::request_contexts::CONTEXT_BITS;
use crate::sector_gather::SECTOR_INDEX_BITS;
use crate::sector_lanes::SectorRun;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Width of `mem_tag`: `{sectors - 1, fill, context, sector}`, 2 + 1 + 7 +
/// 3 bits (a read's run of 1-4 sectors, and its first sector's index).
pub const MEM_TAG_BITS: usize = 2 + 1 + CONTEXT_BITS + SECTOR_INDEX_BITS;
/// The fill bit of `mem_tag`.
pub const FILL_TAG_BIT: usize = CONTEXT_BITS + SECTOR_INDEX_BITS;
/// Fills the metadata cache may have outstanding: one parking register each.
pub const FILLS: usize = FILL_SLOTS;

/// The memory tag of a read of `sectors` (1-4) data sectors from index
/// `sector` of its part: `{sectors - 1, 0, context, sector}`; a sector
/// write's is `data_tag(context, 0, 1)`.
pub fn data_tag(context: u64, sector: u64, sectors: u64) -> u64 {
    ((sectors - 1) << (FILL_TAG_BIT + 1)) | (context << SECTOR_INDEX_BITS) | sector
}

/// The memory tag of the `n`-th metadata fill (counted from reset):
/// `{0, 1, 0.., n mod 16}` (one sector).
pub fn fill_tag(n: u64) -> u64 {
    (1 << FILL_TAG_BIT) | (n % FILLS as u64)
}

/// Merges a slice's three requesters onto one memory and routes the
/// answers (Buddy Compression Sec. III-B: device memory serves data,
/// metadata and, through the same controller, nothing else; buddy-memory
/// data only, with the `md_*` ports idle).
///
/// Each cycle one request goes to memory, by fixed priority: a metadata
/// fill or write-back first (every read of the slice may wait on it), then
/// a write of a run of 1-4 sectors (it frees its context), then a read of a run of 1-4
/// consecutive sectors. A requester
/// waits as long as one above it offers; in the slice the ones above are
/// bounded (16 fills, and writes by the compressor's one entry per cycle).
/// A request offered on `mem_*` and not taken (`mem_ready` low) stays
/// offered, unchanged, until taken (the valid/ready rule, as AXI4's and
/// AXI4-Stream's): the requester granted keeps the grant, and one above
/// it that begins to offer meanwhile waits. A read is
/// tagged `{sectors - 1, 0, context, sector}` (the read planner's run), a fill
/// `{0, 1, 0, n mod 16}` (the `n`-th fill since reset), a write
/// `{0, 0, context, 0}` (not answered: the tag tells memory, or a driver
/// counting traffic per request, whose write it is); a write-back's tag is
/// don't care.
/// Memory must serve requests in the order it takes them: a read answers
/// the data as of the cycle it was taken (a write taken later does not
/// change it; one taken earlier does), as the slice's same-entry guard and
/// the metadata cache's write-backs before fills rely on (an AXI4 memory
/// does not promise it across its read and write channels: a bridge must
/// hold a read behind an unanswered write of the same address, and a
/// write behind an unanswered read). It
/// answers a read on `mem_resp_*` all at once (a run's sectors in
/// one transfer), reads in any order: a data run goes
/// straight to `rd_out_*` (`mem_resp_ready` follows `rd_out_ready`); a
/// fill is parked in one of 16 registers by its number and handed to the
/// cache in order on `md_fill_*` (the cache never has more than
/// [`FILL_SLOTS`] = 16 fills outstanding, so a parked fill is never
/// overwritten; fills are always accepted).
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (no fill parked, fill count 0) |
/// | `md_req_valid`, `md_req_ready` | 1, 1 | in, out | the metadata cache's `mem_req_*`: a fill or a write-back |
/// | `md_req_write`, `md_req_address`, `md_req_data` | 1, 64, 256 | in | 1: write-back of `md_req_data`; sector-aligned byte address |
/// | `md_fill_valid`, `md_fill_ready`, `md_fill_data` | 1, 1, 256 | out, in, out | the oldest fill's sector, to the cache's `mem_fill_*` |
/// | `wr_req_valid`, `wr_req_ready` | 1, 1 | in, out | a write of a run of sectors (the write planner's `*_wr_*`) |
/// | `wr_req_address`, `wr_req_sectors` | 64, 3 | in | its first sector's sector-aligned byte address, its sectors (1-4) |
/// | `wr_req_data`, `wr_req_strobe` | 1024, 128 | in | data (byte `k` from the address at `[8k +: 8]`), byte strobe (0 past the run) |
/// | `wr_req_id` | 7 | in | the writing request's context (into `mem_tag`) |
/// | `rd_req_valid`, `rd_req_ready` | 1, 1 | in, out | a read of a run of sectors (the read planner's `*_req_*`) |
/// | `rd_req_id`, `rd_req_sector`, `rd_req_address`, `rd_req_sectors` | 7, 3, 64, 3 | in | its context, its first sector's index in the part, its first sector's sector-aligned byte address, its sectors (1-4) |
/// | `rd_out_valid`, `rd_out_ready` | 1, 1 | out, in | a data run answered (to the sector gather) |
/// | `rd_out_id`, `rd_out_sector`, `rd_out_sectors`, `rd_out_data` | 7, 3, 3, 1024 | out | its context, first index and sectors; run sector `k` at `[256k +: 256]` |
/// | `mem_valid`, `mem_ready` | 1, 1 | out, in | a request to memory |
/// | `mem_write`, `mem_address`, `mem_sectors` | 1, 64, 3 | out | 1: write; sector-aligned byte address; sectors from it (1-4; fills and write-backs 1) |
/// | `mem_data`, `mem_strobe` | 1024, 128 | out | a write's data and byte strobe, byte `k` from the address at `[8k +: 8]` (write-backs: every byte of sector 0; a data read's: 0, so a stalled read holds its beat) |
/// | `mem_tag` | 13 | out | a read's tag (`{sectors - 1, fill, context, sector}`), answered with its data; a write's `{0, 0, context, 0}` |
/// | `mem_resp_valid`, `mem_resp_ready` | 1, 1 | in, out | a read answered, every sector of it |
/// | `mem_resp_tag`, `mem_resp_data` | 13, 1024 | in | the read's tag; its sector `k` at `[256k +: 256]` (a fill's at `[0 +: 256]`) |
///
/// Timing: combinational from requester to memory and from memory to
/// `rd_out_*`; a fill is offered on `md_fill_*` the cycle after its answer
/// (`timing::FILL_TO_CACHE`).
#[derive(SettleBlock)]
pub struct MemoryPort {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub md_req_valid: Signal<In, Bit>,
    pub md_req_ready: Signal<Out, Bit>,
    pub md_req_write: Signal<In, Bit>,
    pub md_req_address: Signal<In, Bits<64>>,
    pub md_req_data: Signal<In, Bits<256>>,
    pub md_fill_valid: Signal<Out, Bit>,
    pub md_fill_ready: Signal<In, Bit>,
    pub md_fill_data: Signal<Out, Bits<256>>,
    pub wr_req_valid: Signal<In, Bit>,
    pub wr_req_ready: Signal<Out, Bit>,
    pub wr_req_address: Signal<In, Bits<64>>,
    pub wr_req_sectors: Signal<In, Bits<3>>,
    pub wr_req_data: Signal<In, EntryBits>,
    pub wr_req_strobe: Signal<In, Bits<128>>,
    pub wr_req_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub rd_req_valid: Signal<In, Bit>,
    pub rd_req_ready: Signal<Out, Bit>,
    pub rd_req_id: Signal<In, Bits<CONTEXT_BITS>>,
    pub rd_req_sector: Signal<In, Bits<SECTOR_INDEX_BITS>>,
    pub rd_req_address: Signal<In, Bits<64>>,
    pub rd_req_sectors: Signal<In, Bits<3>>,
    pub rd_out_valid: Signal<Out, Bit>,
    pub rd_out_ready: Signal<In, Bit>,
    pub rd_out_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub rd_out_sector: Signal<Out, Bits<SECTOR_INDEX_BITS>>,
    pub rd_out_sectors: Signal<Out, Bits<3>>,
    pub rd_out_data: Signal<Out, EntryBits>,
    pub mem_valid: Signal<Out, Bit>,
    pub mem_ready: Signal<In, Bit>,
    pub mem_write: Signal<Out, Bit>,
    pub mem_address: Signal<Out, Bits<64>>,
    pub mem_sectors: Signal<Out, Bits<3>>,
    pub mem_data: Signal<Out, EntryBits>,
    pub mem_strobe: Signal<Out, Bits<128>>,
    pub mem_tag: Signal<Out, Bits<MEM_TAG_BITS>>,
    pub mem_resp_valid: Signal<In, Bit>,
    pub mem_resp_ready: Signal<Out, Bit>,
    pub mem_resp_tag: Signal<In, Bits<MEM_TAG_BITS>>,
    pub mem_resp_data: Signal<In, EntryBits>,
    /// Parked fills: valid bit and sector per fill number mod 16; the number
    /// of the next fill to ask for and of the next to hand on.
    parked: [DFF<Bit>; FILLS],
    parked_data: [DFF<Bits<256>>; FILLS],
    fill_next: DFF<Bits<4>>,
    fill_head: DFF<Bits<4>>,
    /// A write's (a read's) request was offered on `mem_*` last cycle and
    /// not taken: it keeps the grant.
    held_wr: DFF<Bit>,
    held_rd: DFF<Bit>,
    /// The requester on `mem_*` this cycle (at most one).
    grant_md: Signal<Local, Bit>,
    grant_wr: Signal<Local, Bit>,
    grant_rd: Signal<Local, Bit>,
    md_go: Signal<Local, Bit>,
    resp_fill: Signal<Local, Bit>,
    /// The answer's first sector (a fill's), as one vector.
    resp_sector: Signal<Local, Bits<256>>,
    /// A write-back's sector as a run of one.
    write_back: SectorRun,
    /// `mem_data` of a read: all zero, so that a stalled read's beat is
    /// the same on every cycle whatever the write planner offers.
    no_data: Constant<EntryBits>,
}

impl Default for MemoryPort {
    fn default() -> Self {
        Self {
            _settle: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            md_req_valid: Default::default(),
            md_req_ready: Default::default(),
            md_req_write: Default::default(),
            md_req_address: Default::default(),
            md_req_data: Default::default(),
            md_fill_valid: Default::default(),
            md_fill_ready: Default::default(),
            md_fill_data: Default::default(),
            wr_req_valid: Default::default(),
            wr_req_ready: Default::default(),
            wr_req_address: Default::default(),
            wr_req_sectors: Default::default(),
            wr_req_data: Default::default(),
            wr_req_strobe: Default::default(),
            wr_req_id: Default::default(),
            rd_req_valid: Default::default(),
            rd_req_ready: Default::default(),
            rd_req_id: Default::default(),
            rd_req_sector: Default::default(),
            rd_req_address: Default::default(),
            rd_req_sectors: Default::default(),
            rd_out_valid: Default::default(),
            rd_out_ready: Default::default(),
            rd_out_id: Default::default(),
            rd_out_sector: Default::default(),
            rd_out_sectors: Default::default(),
            rd_out_data: Default::default(),
            mem_valid: Default::default(),
            mem_ready: Default::default(),
            mem_write: Default::default(),
            mem_address: Default::default(),
            mem_sectors: Default::default(),
            mem_data: Default::default(),
            mem_strobe: Default::default(),
            mem_tag: Default::default(),
            mem_resp_valid: Default::default(),
            mem_resp_ready: Default::default(),
            mem_resp_tag: Default::default(),
            mem_resp_data: Default::default(),
            parked: Default::default(),
            parked_data: Default::default(),
            fill_next: Default::default(),
            fill_head: Default::default(),
            held_wr: Default::default(),
            held_rd: Default::default(),
            grant_md: Default::default(),
            grant_wr: Default::default(),
            grant_rd: Default::default(),
            md_go: Default::default(),
            resp_fill: Default::default(),
            resp_sector: Default::default(),
            write_back: Default::default(),
            no_data: Constant::new(EntryBits::default()),
        }
    }
}

// The tag layout is written out in `update` (rust-hdl prints constant
// names into the Verilog, so the kernel uses literals): 3 sector bits, 7
// context bits, the fill bit at 10, the run's sectors - 1 at 12:11.
const _: () = assert!(SECTOR_INDEX_BITS == 3 && CONTEXT_BITS == 7 && MEM_TAG_BITS == 13 && FILL_TAG_BIT == 10 && FILLS == 16);

impl Logic for MemoryPort {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fill_next, fill_head, held_wr, held_rd);
        for i in 0..FILLS {
            self.parked[i].clock.next = self.clock.val();
            self.parked[i].d.next = self.parked[i].q.val();
            self.parked_data[i].clock.next = self.clock.val();
            self.parked_data[i].d.next = self.parked_data[i].q.val();
        }

        self.write_back.sector.next = self.md_req_data.val();
        // Requests: metadata first, then writes, then reads; a request
        // offered and not taken keeps the grant.
        self.grant_md.next = self.md_req_valid.val() & !self.held_wr.q.val() & !self.held_rd.q.val();
        self.grant_wr.next = self.wr_req_valid.val() & !self.grant_md.val() & !self.held_rd.q.val();
        self.grant_rd.next = self.rd_req_valid.val() & !self.grant_md.val() & !self.grant_wr.val();
        self.held_wr.d.next = self.grant_wr.val() & !self.mem_ready.val();
        self.held_rd.d.next = self.grant_rd.val() & !self.mem_ready.val();
        // The readies are written from the ports and the hold flip-flops,
        // not from the grants: Verilator splits this block by the signals a
        // statement shares, and a ready that read `grant_wr` would sit with
        // the request mux, which reads every requester (a false loop through
        // the write planner's `in_ready`, UNOPTFLAT).
        self.md_req_ready.next = self.mem_ready.val() & !self.held_wr.q.val() & !self.held_rd.q.val();
        self.wr_req_ready.next =
            self.mem_ready.val() & !self.held_rd.q.val() & !(self.md_req_valid.val() & !self.held_wr.q.val());
        self.rd_req_ready.next = self.mem_ready.val()
            & !(self.md_req_valid.val() & !self.held_wr.q.val() & !self.held_rd.q.val())
            & !(self.wr_req_valid.val() & !self.held_rd.q.val());
        self.mem_valid.next = self.md_req_valid.val() | self.wr_req_valid.val() | self.rd_req_valid.val();
        self.mem_write.next = false;
        self.mem_address.next = self.rd_req_address.val();
        self.mem_sectors.next = self.rd_req_sectors.val();
        // A read carries no data: zero data and strobe (a write's are its own).
        self.mem_data.next = self.no_data.val();
        self.mem_strobe.next = 0.into();
        self.mem_tag.next = (bit_cast::<MEM_TAG_BITS, 3>(self.rd_req_sectors.val() - 1) << 11)
            | (bit_cast::<MEM_TAG_BITS, CONTEXT_BITS>(self.rd_req_id.val()) << 3)
            | bit_cast::<MEM_TAG_BITS, SECTOR_INDEX_BITS>(self.rd_req_sector.val());
        if self.grant_wr.val() {
            self.mem_write.next = true;
            self.mem_data.next = self.wr_req_data.val();
            self.mem_strobe.next = self.wr_req_strobe.val();
            self.mem_address.next = self.wr_req_address.val();
            self.mem_sectors.next = self.wr_req_sectors.val();
            self.mem_tag.next = bit_cast::<MEM_TAG_BITS, CONTEXT_BITS>(self.wr_req_id.val()) << 3;
        }
        if self.grant_md.val() {
            self.mem_write.next = self.md_req_write.val();
            self.mem_address.next = self.md_req_address.val();
            self.mem_sectors.next = 1.into();
            self.mem_data.next = self.write_back.run.val();
            self.mem_strobe.next = self.write_back.strobe.val();
            self.mem_tag.next = bit_cast::<MEM_TAG_BITS, 4>(self.fill_next.q.val()) | bits::<MEM_TAG_BITS>(0x400);
        }
        self.md_go.next = self.grant_md.val() & self.mem_ready.val();
        if self.md_go.val() & !self.md_req_write.val() {
            self.fill_next.d.next = self.fill_next.q.val() + 1;
        }

        // Answers: data runs straight on, fills parked by number.
        self.resp_fill.next = self.mem_resp_tag.val().get_bit(10);
        self.rd_out_valid.next = self.mem_resp_valid.val() & !self.resp_fill.val();
        self.rd_out_id.next = self.mem_resp_tag.val().get_bits::<CONTEXT_BITS>(3);
        self.rd_out_sector.next = self.mem_resp_tag.val().get_bits::<SECTOR_INDEX_BITS>(0);
        self.rd_out_sectors.next = bit_cast::<3, 2>(self.mem_resp_tag.val().get_bits::<2>(11)) + 1;
        self.rd_out_data.next = self.mem_resp_data.val();
        self.resp_sector.next = bit_cast::<256, 32>(self.mem_resp_data.val().w0)
            | (bit_cast::<256, 32>(self.mem_resp_data.val().w1) << 32)
            | (bit_cast::<256, 32>(self.mem_resp_data.val().w2) << 64)
            | (bit_cast::<256, 32>(self.mem_resp_data.val().w3) << 96)
            | (bit_cast::<256, 32>(self.mem_resp_data.val().w4) << 128)
            | (bit_cast::<256, 32>(self.mem_resp_data.val().w5) << 160)
            | (bit_cast::<256, 32>(self.mem_resp_data.val().w6) << 192)
            | (bit_cast::<256, 32>(self.mem_resp_data.val().w7) << 224);
        self.mem_resp_ready.next = self.resp_fill.val() | self.rd_out_ready.val();
        self.md_fill_valid.next = false;
        self.md_fill_data.next = self.parked_data[0].q.val();
        for i in 0..FILLS {
            if self.fill_head.q.val().index() == i {
                self.md_fill_valid.next = self.parked[i].q.val();
                self.md_fill_data.next = self.parked_data[i].q.val();
            }
        }
        for i in 0..FILLS {
            if self.md_fill_valid.val() & self.md_fill_ready.val() & (self.fill_head.q.val().index() == i) {
                self.parked[i].d.next = false;
            }
            if self.mem_resp_valid.val() & self.resp_fill.val() & (self.mem_resp_tag.val().get_bits::<4>(0).index() == i) {
                self.parked[i].d.next = true;
                self.parked_data[i].d.next = self.resp_sector.val();
            }
        }
        if self.md_fill_valid.val() & self.md_fill_ready.val() {
            self.fill_head.d.next = self.fill_head.q.val() + 1;
        }

        if self.reset.val() {
            self.fill_next.d.next = 0.into();
            self.fill_head.d.next = 0.into();
            self.held_wr.d.next = false;
            self.held_rd.d.next = false;
            for i in 0..FILLS {
                self.parked[i].d.next = false;
            }
        }
    }
}

/// The port's latencies, for the fast engine's timing of the slice.
pub mod timing {
    /// Cycles from a fill's answer on `mem_resp_*` to `md_fill_valid`.
    pub const FILL_TO_CACHE: u64 = 1;
}
