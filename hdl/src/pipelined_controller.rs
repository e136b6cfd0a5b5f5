//! The pipelined controller slice: up to 128 requests in flight (Buddy
//! Compression Sec. III-B; `docs/controller.md`, "The pipelined slice").

use crate::address_translator::AddressTranslator;
use crate::bpc_compressor::BpcCompressor;
use crate::bpc_decompressor::BpcDecompressor;
use crate::entry_bits::EntryBits;
use crate::lowest_set::LowestSet;
use crate::mag_bdi_compressor::MagBdiCompressor;
use crate::mag_bdi_decompressor::MagBdiDecompressor;
use crate::memory_port::{MemoryPort, MEM_TAG_BITS};
use crate::pipelined_metadata_cache::{PipelinedMetadataCache, TAG_BITS as MD_TAG_BITS};
use crate::read_planner::{kind, ReadPlanner};
use crate::register_slice::RegisterSlice;
use crate::request_contexts::{RequestContexts, CONTEXT_BITS};
use crate::sector_gather::SectorGather;
use crate::sector_lanes::EntryMerge;
use crate::tag_fifo::TagFifo;
use crate::write_planner::WritePlanner;
use crate::zvc_compressor::ZvcCompressor;
use crate::zvc_decompressor::ZvcDecompressor;
use buddy_golden::Mag;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

const _: () = assert!(kind::FULL == 0);

/// Bits of a commit between K0 and the metadata cache's commit port, high
/// to low: the reservation's word `{generation, set, way, sector}` (8),
/// nibble half (1), byte offset (5), value
/// (4), tag ([`MD_TAG_BITS`]).
const COMMIT_BITS: usize = 8 + 5 + 1 + 4 + MD_TAG_BITS;
const _: () = assert!(COMMIT_BITS == 27);
// The metadata tag's kind bits are written as literals (bit 7: a write's
// reservation, bit 8: a full write's; hdl_gen prints no Rust constants):
// they sit just above a 7-bit context id.
const _: () = assert!(CONTEXT_BITS == 7 && MD_TAG_BITS == 9);

/// The input ports of a lock-step line of a pipelined slice (name, bits),
/// in line order ([`crate::lockstep`]).
pub const LOCKSTEP_INPUTS: &[(&str, usize)] = &[
    ("reset", 1),
    ("gbbr", 64),
    ("carve_out_bytes", 64),
    ("md_base", 64),
    ("heap_base", 64),
    ("req_valid", 1),
    ("req_write", 1),
    ("req_flush", 1),
    ("req_mask", 4),
    ("req_data", 1024),
    ("req_va", 64),
    ("req_frame", 64),
    ("req_pte", 27),
    ("req_page_64k", 1),
    ("resp_ready", 1),
    ("dev_mem_ready", 1),
    ("dev_mem_resp_valid", 1),
    ("dev_mem_resp_tag", 13),
    ("dev_mem_resp_data", 1024),
    ("bud_mem_ready", 1),
    ("bud_mem_resp_valid", 1),
    ("bud_mem_resp_tag", 13),
    ("bud_mem_resp_data", 1024),
];
/// The output ports of a lock-step line (name, bits, the valid that
/// qualifies it or "" when always compared), after the inputs.
pub const LOCKSTEP_OUTPUTS: &[(&str, usize, &str)] = &[
    ("req_ready", 1, ""),
    ("req_id", 7, "req_ready"),
    ("resp_valid", 1, ""),
    ("resp_id", 7, "resp_valid"),
    ("resp_write", 1, "resp_valid"),
    ("resp_flush", 1, "resp_valid"),
    ("resp_entry", 1024, "resp_valid"),
    ("resp_fault", 3, "resp_valid"),
    ("resp_decode_error", 1, "resp_valid"),
    ("dev_mem_valid", 1, ""),
    ("dev_mem_write", 1, "dev_mem_valid"),
    ("dev_mem_address", 64, "dev_mem_valid"),
    ("dev_mem_sectors", 3, "dev_mem_valid"),
    ("dev_mem_data", 1024, "dev_mem_write"),
    ("dev_mem_strobe", 128, "dev_mem_write"),
    ("dev_mem_tag", 13, "dev_mem_valid"),
    ("dev_mem_resp_ready", 1, ""),
    ("bud_mem_valid", 1, ""),
    ("bud_mem_write", 1, "bud_mem_valid"),
    ("bud_mem_address", 64, "bud_mem_valid"),
    ("bud_mem_sectors", 3, "bud_mem_valid"),
    ("bud_mem_data", 1024, "bud_mem_write"),
    ("bud_mem_strobe", 128, "bud_mem_write"),
    ("bud_mem_tag", 13, "bud_mem_valid"),
    ("bud_mem_resp_ready", 1, ""),
    ("in_flight", 8, ""),
    ("md_lookup_valid", 1, ""),
    ("md_lookup_id", 7, "md_lookup_valid"),
    ("md_lookup_outcome", 2, "md_lookup_valid"),
];
macro_rules! pipelined_controller {
    ($(#[$doc:meta])* $name:ident, $comp:ty, $decomp:ty) => {
$(#[$doc])*
///

/// One memory-controller slice that keeps up to 128 requests in flight,
/// built with one codec pair (the compressor and decompressor of BPC, ZVC
/// or MAG-BDI).
///
/// A request is given a context (`req_id`; a request to a memory-entry
/// already in flight waits, so requests to one entry keep their order) and
/// translated; its size nibble is looked up in the non-blocking metadata
/// cache in request order (hits under misses; a write reserves its nibble
/// there, as golden's `write_nibble` looks it up, and commits the class
/// later). A read's device and buddy sectors are requested on two tagged
/// memory ports (answered in any order), gathered and decompressed. A
/// write to a compressed page is compressed (a partial write first reads
/// and merges the entry) and stored by the write planner; a write to an
/// uncompressed page stores its masked sectors. Every request is answered
/// on `resp_*` with its context id: **responses are tagged and leave in
/// completion order**, not in request order. A flush is taken only when
/// the slice is empty and answered once every dirty metadata sector is
/// written back. A translation fault is answered with its fault code, an
/// entry that does not decode with `resp_decode_error` (a partial write to
/// it stores nothing; its reserved nibble is committed unchanged).
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset |
/// | `gbbr`, `carve_out_bytes`, `md_base`, `heap_base` | 64 each | in | the translation registers (held) |
/// | `req_valid`, `req_ready` | 1, 1 | in, out | a request |
/// | `req_write`, `req_flush` | 1, 1 | in | a write; a flush (every other field ignored) |
/// | `req_va`, `req_frame`, `req_pte`, `req_page_64k` | 64, 64, 27, 1 | in | the access, as the address translator takes it |
/// | `req_mask`, `req_data` | 4, 1024 | in | a write's sectors (bit `s`: bytes `32s..32s+32`) and data |
/// | `req_id` | 7 | out | the context the request is given (valid with `req_ready`) |
/// | `resp_valid`, `resp_ready` | 1, 1 | out, in | a response |
/// | `resp_id` | 7 | out | the request's context (don't care for a flush) |
/// | `resp_write`, `resp_flush` | 1, 1 | out | the response is a write's; a flush's |
/// | `resp_entry` | 1024 | out | a read's entry, word `i` at `[32i +: 32]` (0 on an error, for a write and for a flush) |
/// | `resp_fault` | 3 | out | 0, or the translator's fault code |
/// | `resp_decode_error` | 1 | out | the stored entry does not decode (a reserved size code or a malformed stream) |
/// | `dev_mem_*`, `dev_mem_resp_*` | as [`MemoryPort`]'s `mem_*` | | device memory: data sectors and metadata |
/// | `bud_mem_*`, `bud_mem_resp_*` | as [`MemoryPort`]'s `mem_*` | | buddy-memory |
/// | `in_flight` | 8 | out | requests in the slice (status) |
/// | `md_lookup_valid`, `md_lookup_id`, `md_lookup_outcome` | 1, 7, 2 | out | status: a metadata lookup (a read's, or a write's reservation) answered this cycle, its request's context, its outcome (0 hit, 1 sector miss, 2 line miss: `metadata_cache::outcome`) |
///
/// The `dev_mem_tag` / `bud_mem_tag` of a write of a run of sectors is `{0, 0, context,
/// 0}` and of a read of a run of sectors `{sectors - 1, 0, context,
/// sector}`, so memory (or a driver counting traffic per request) knows
/// whose sectors they are; a metadata fill's is `{0, 1, 0, n mod 16}`
/// ([`crate::memory_port::data_tag`], [`crate::memory_port::fill_tag`]).
/// Memory answers a read with all of its `*_mem_sectors` sectors in one
/// transfer on `*_mem_resp_data`.
#[derive(SettleBlock, Default)]
pub struct $name {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub gbbr: Signal<In, Bits<64>>,
    pub carve_out_bytes: Signal<In, Bits<64>>,
    pub md_base: Signal<In, Bits<64>>,
    pub heap_base: Signal<In, Bits<64>>,
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub req_write: Signal<In, Bit>,
    pub req_flush: Signal<In, Bit>,
    pub req_mask: Signal<In, Bits<4>>,
    pub req_data: Signal<In, EntryBits>,
    pub req_va: Signal<In, Bits<64>>,
    pub req_frame: Signal<In, Bits<64>>,
    pub req_pte: Signal<In, Bits<27>>,
    pub req_page_64k: Signal<In, Bit>,
    pub req_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_ready: Signal<In, Bit>,
    pub resp_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub resp_write: Signal<Out, Bit>,
    pub resp_flush: Signal<Out, Bit>,
    pub resp_entry: Signal<Out, EntryBits>,
    pub resp_fault: Signal<Out, Bits<3>>,
    pub resp_decode_error: Signal<Out, Bit>,
    pub dev_mem_valid: Signal<Out, Bit>,
    pub dev_mem_ready: Signal<In, Bit>,
    pub dev_mem_write: Signal<Out, Bit>,
    pub dev_mem_address: Signal<Out, Bits<64>>,
    pub dev_mem_sectors: Signal<Out, Bits<3>>,
    pub dev_mem_data: Signal<Out, EntryBits>,
    pub dev_mem_strobe: Signal<Out, Bits<128>>,
    pub dev_mem_tag: Signal<Out, Bits<MEM_TAG_BITS>>,
    pub dev_mem_resp_valid: Signal<In, Bit>,
    pub dev_mem_resp_ready: Signal<Out, Bit>,
    pub dev_mem_resp_tag: Signal<In, Bits<MEM_TAG_BITS>>,
    pub dev_mem_resp_data: Signal<In, EntryBits>,
    pub bud_mem_valid: Signal<Out, Bit>,
    pub bud_mem_ready: Signal<In, Bit>,
    pub bud_mem_write: Signal<Out, Bit>,
    pub bud_mem_address: Signal<Out, Bits<64>>,
    pub bud_mem_sectors: Signal<Out, Bits<3>>,
    pub bud_mem_data: Signal<Out, EntryBits>,
    pub bud_mem_strobe: Signal<Out, Bits<128>>,
    pub bud_mem_tag: Signal<Out, Bits<MEM_TAG_BITS>>,
    pub bud_mem_resp_valid: Signal<In, Bit>,
    pub bud_mem_resp_ready: Signal<Out, Bit>,
    pub bud_mem_resp_tag: Signal<In, Bits<MEM_TAG_BITS>>,
    pub bud_mem_resp_data: Signal<In, EntryBits>,
    pub in_flight: Signal<Out, Bits<8>>,
    pub md_lookup_valid: Signal<Out, Bit>,
    pub md_lookup_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub md_lookup_outcome: Signal<Out, Bits<2>>,
    contexts: RequestContexts,
    translator: AddressTranslator,
    /// Context ids through the translator, the decompressor and the
    /// compressor; beside the translator's, each request's `{mask, write}`.
    xlate_ids: TagFifo,
    xlate_flags: TagFifo,
    dec_ids: TagFifo,
    comp_ids: TagFifo,
    /// K0's commit on its way to the cache's commit port: K0 hands it on
    /// when the slice has room (a flip-flop), not when the cache takes it,
    /// so K0's next pick does not wait for the cache's decision (a path of
    /// 9 LUT levels, through the cache's miss-register compare, before).
    commit_slice: RegisterSlice<Bits<COMMIT_BITS>>,
    md: PipelinedMetadataCache,
    /// Per context: the translation (device slot start, device part bytes,
    /// buddy slot start) and the size nibble.
    xl_device: RAM<Bits<64>, CONTEXT_BITS>,
    xl_part: RAM<Bits<8>, CONTEXT_BITS>,
    xl_buddy: RAM<Bits<64>, CONTEXT_BITS>,
    nibble: RAM<Bits<4>, CONTEXT_BITS>,
    /// The write path's copies (a RAM has one read port): translation,
    /// metadata byte offset and nibble half, the reservation's data-array
    /// word, the class compressed, the nibble found (for a commit that
    /// leaves it unchanged), the write data (read after translation and
    /// at the merge) and mask.
    xw_device: RAM<Bits<64>, CONTEXT_BITS>,
    xw_part: RAM<Bits<8>, CONTEXT_BITS>,
    xw_buddy: RAM<Bits<64>, CONTEXT_BITS>,
    /// `{compressed, metadata high, metadata address[4:0]}`.
    /// These four, which K0 reads at the commit pick, are each two RAMs of
    /// 64 contexts (`_lo`: ids 0-63, `_hi`: 64-127), each read at the
    /// lowest pick of its own half: the pick's tree is a level shorter and
    /// no select of the halves follows the read before its register (the
    /// 128-deep RAMs read at the full pick mapped to 10 LUT levels in the
    /// MAG-BDI slice); K0 selects the half after the read register.
    xw_md_lo: RAM<Bits<7>, 6>,
    xw_md_hi: RAM<Bits<7>, 6>,
    res_word_lo: RAM<Bits<8>, 6>,
    res_word_hi: RAM<Bits<8>, 6>,
    w_class_lo: RAM<Bits<4>, 6>,
    w_class_hi: RAM<Bits<4>, 6>,
    old_nibble_lo: RAM<Bits<4>, 6>,
    old_nibble_hi: RAM<Bits<4>, 6>,
    data_x: RAM<EntryBits, CONTEXT_BITS>,
    data_m: RAM<EntryBits, CONTEXT_BITS>,
    mask_m: RAM<Bits<4>, CONTEXT_BITS>,
    /// Per context, bit `id`: a full or partial write to a compressed page
    /// (its nibble reserved), its reservation answered, a partial write
    /// whose entry did not decode, a write stored (or a partial write that
    /// did not decode) and not yet taken into K0. (A commit's answer is
    /// marked by the metadata cache, `resp_commit`.)
    w_full: DFF<Bits<128>>,
    w_partial: DFF<Bits<128>>,
    w_reserved: DFF<Bits<128>>,
    w_abort: DFF<Bits<128>>,
    w_stored: DFF<Bits<128>>,
    /// The contexts K0 may pick (stored, and reserved or not a compressed
    /// page's write): a flip-flop set from the flags' next values, so the
    /// pick's 128-bit tree starts at a flip-flop.
    w_committable: DFF<Bits<128>>,
    /// Picks the stored write K0 takes next: the lowest context whose
    /// reservation is answered (or whose page is uncompressed). Any ready
    /// write goes first, so a write whose reservation waits for a line
    /// another stored write has pinned never holds that write's commit.
    commit_pick: LowestSet,
    /// The lowest committable context of ids 0-63 and of ids 64-127 (the
    /// halves' RAM read addresses).
    pick_lo: LowestSet,
    pick_hi: LowestSet,
    planner: ReadPlanner,
    writer: WritePlanner,
    comp: $comp,
    merge: EntryMerge,
    /// The all-zero entry: a register that is never loaded (its initial
    /// value is zero; a `LogicStruct` constant cannot be written in the
    /// kernel).
    zero: DFF<EntryBits>,
    gather: SectorGather,
    dev_port: MemoryPort,
    bud_port: MemoryPort,
    decomp: $decomp,
    /// X1: a translated request, in request order (metadata lookups leave
    /// from here, so they stay in request order).
    x1_valid: DFF<Bit>,
    x1_id: DFF<Bits<CONTEXT_BITS>>,
    x1_write: DFF<Bit>,
    x1_mask: DFF<Bits<4>>,
    x1_fault: DFF<Bits<3>>,
    x1_compressed: DFF<Bit>,
    x1_md_address: DFF<Bits<64>>,
    x1_md_high: DFF<Bit>,
    x1_device: DFF<Bits<64>>,
    x1_part: DFF<Bits<8>>,
    x1_buddy: DFF<Bits<64>>,
    /// A flush taken (`f_valid`) and sent to the metadata cache (`f_sent`).
    f_valid: DFF<Bit>,
    f_sent: DFF<Bit>,
    /// M0: a partial write's old entry, to merge with its data.
    m0_valid: DFF<Bit>,
    /// `data_m`/`mask_m` hold M0's context's data and mask this cycle (see
    /// `m0_ahead`).
    m0_data_ok: DFF<Bit>,
    m0_id: DFF<Bits<CONTEXT_BITS>>,
    m0_old: DFF<EntryBits>,
    m0_error: DFF<Bit>,
    /// W0: a compressed payload, offered to the write planner.
    w0_valid: DFF<Bit>,
    w0_id: DFF<Bits<CONTEXT_BITS>>,
    w0_class: DFF<Bits<4>>,
    w0_payload: DFF<EntryBits>,
    /// W0 loaded last cycle: the write copy of the translation, read at the
    /// compressor queue's head as W0 loaded, is on the RAMs' read ports;
    /// after that, W0 holds it in `w0_device`/`w0_part`/`w0_buddy`. (The
    /// read address is the queue's head every cycle, never chosen by
    /// whether W0 loads: that choice waits for the write planner's ready.)
    w0_fresh: DFF<Bit>,
    w0_device: DFF<Bits<64>>,
    w0_part: DFF<Bits<8>>,
    w0_buddy: DFF<Bits<64>>,
    /// K0: a write stored (or a partial write that did not decode) whose
    /// reservation is answered, its nibble to commit or, on an
    /// uncompressed page, its answer to give.
    k0_valid: DFF<Bit>,
    k0_id: DFF<Bits<CONTEXT_BITS>>,
    /// K0 loaded last cycle: its fields (reservation word, metadata
    /// address, class, old nibble), read at the commit pick's index as K0
    /// loaded, are on the RAMs' read ports; after that K0 holds them. (The
    /// read address is the pick every cycle, never chosen by whether K0
    /// loads: that waits for the commit port's ready.)
    k0_fresh: DFF<Bit>,
    /// The commit pick of last cycle was in ids 64-127: K0's fields come
    /// from the `_hi` RAMs.
    k0_pick_hi: DFF<Bit>,
    k0_word_held: DFF<Bits<8>>,
    k0_md_held: DFF<Bits<7>>,
    k0_class_held: DFF<Bits<4>>,
    k0_nibble_held: DFF<Bits<4>>,
    k0_word: Signal<Local, Bits<8>>,
    k0_md: Signal<Local, Bits<7>>,
    k0_class: Signal<Local, Bits<4>>,
    k0_nibble: Signal<Local, Bits<4>>,
    /// A write's or a flush's answer waiting for the response port.
    wr_valid: DFF<Bit>,
    wr_id: DFF<Bits<CONTEXT_BITS>>,
    wr_flush: DFF<Bit>,
    wr_error: DFF<Bit>,
    /// J0: a read whose class is known (from the metadata cache, or an
    /// uncompressed page straight from the translator with its translation).
    j0_valid: DFF<Bit>,
    j0_id: DFF<Bits<CONTEXT_BITS>>,
    j0_nibble: DFF<Bits<4>>,
    j0_compressed: DFF<Bit>,
    j0_bypass: DFF<Bit>,
    j0_device: DFF<Bits<64>>,
    j0_part: DFF<Bits<8>>,
    j0_buddy: DFF<Bits<64>>,
    /// J1: the job offered to the read planner.
    j1_valid: DFF<Bit>,
    j1_id: DFF<Bits<CONTEXT_BITS>>,
    /// The read planner's class: the nibble's low 3 bits, 0 for a
    /// reserved code (8-15: reads nothing, the decompressor rejects it);
    /// chosen before J1 so that the planner's input is a flip-flop.
    j1_class: DFF<Bits<3>>,
    j1_compressed: DFF<Bit>,
    j1_device: DFF<Bits<64>>,
    j1_part: DFF<Bits<8>>,
    j1_buddy: DFF<Bits<64>>,
    /// D0: a gathered payload waiting for the decompressor.
    d0_valid: DFF<Bit>,
    d0_id: DFF<Bits<CONTEXT_BITS>>,
    d0_payload: DFF<EntryBits>,
    /// D0's read is a partial write's (noted as D0 loads: the flag holds
    /// from translation to commit).
    d0_partial: DFF<Bit>,
    /// D0's read is of a RAW or ZERO entry and not a partial write's
    /// (noted as D0 loads, from `w_pass`: a compare of the nibble RAM's
    /// read there put the RAM in front of the gather's `out_ready`).
    d0_pass_q: DFF<Bit>,
    /// Per context, bit `id`: the nibble J0 held last for it is RAW (7)
    /// or ZERO (0), written with the nibble RAM.
    w_pass: DFF<Bits<128>>,
    /// R0: a read of a RAW entry (an uncompressed page's slot, or an
    /// entry stored raw) answered with its gathered payload, or of a ZERO
    /// entry answered with zeros, past the decompressor (BPC's is 37
    /// cycles deep).
    r0_valid: DFF<Bit>,
    r0_id: DFF<Bits<CONTEXT_BITS>>,
    r0_payload: DFF<EntryBits>,
    /// R1: a RAW or ZERO read queued behind R0. D0 moves on while R1 is empty (a
    /// flip-flop), so the gather's `out_ready` waits for no answer.
    r1_valid: DFF<Bit>,
    r1_id: DFF<Bits<CONTEXT_BITS>>,
    r1_payload: DFF<EntryBits>,
    /// A translation fault waiting for the response port.
    err_valid: DFF<Bit>,
    err_id: DFF<Bits<CONTEXT_BITS>>,
    err_fault: DFF<Bits<3>>,
    /// The response port's source offered last cycle and not taken (a
    /// fault, a write's answer, the decompressor, R0): it keeps the grant,
    /// so a stalled beat is offered again unchanged (the stream rule), as
    /// the memory port's requesters keep theirs.
    held_err: DFF<Bit>,
    held_wr: DFF<Bit>,
    held_dec: DFF<Bit>,
    held_r0: DFF<Bit>,
    /// The decompressor offers a read's answer (not a partial write's old entry).
    dec_offer: Signal<Local, Bit>,
    /// The fault is granted the response port.
    grant_err: Signal<Local, Bit>,
    /// A write's answer is granted the response port.
    grant_wr: Signal<Local, Bit>,
    /// The decompressor is granted the response port.
    grant_dec: Signal<Local, Bit>,
    /// WR, the decompressor and R0 would be granted were they valid: from
    /// the hold flip-flops and the sources above, not from the grants, so
    /// the readies never read the response mux.
    wr_first: Signal<Local, Bit>,
    dec_first: Signal<Local, Bit>,
    r0_first: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    flush_take: Signal<Local, Bit>,
    x_take: Signal<Local, Bit>,
    x_fault: Signal<Local, Bit>,
    x1_free: Signal<Local, Bit>,
    x1_go: Signal<Local, Bit>,
    x1_md: Signal<Local, Bit>,
    x1_full: Signal<Local, Bit>,
    x1_unc_write: Signal<Local, Bit>,
    x1_to_comp: Signal<Local, Bit>,
    md_reserved_resp: Signal<Local, Bit>,
    md_commit_resp: Signal<Local, Bit>,
    md_to_j0: Signal<Local, Bit>,
    md_wants_j0: Signal<Local, Bit>,
    md_req_valid: Signal<Local, Bit>,
    md_resp_ready: Signal<Local, Bit>,
    comp_in_valid: Signal<Local, Bit>,
    dec_out_ready: Signal<Local, Bit>,
    f_req: Signal<Local, Bit>,
    md_to_wr: Signal<Local, Bit>,
    md_full_resp: Signal<Local, Bit>,
    /// The context id of the metadata cache's answer (its tag's low bits).
    md_resp_id: Signal<Local, Bits<CONTEXT_BITS>>,
    wr_free: Signal<Local, Bit>,
    m0_free: Signal<Local, Bit>,
    m0_load: Signal<Local, Bit>,
    m0_to_comp: Signal<Local, Bit>,
    /// The decompressor's partial-write entry would find M0 free if M0
    /// leaves as it wants to: `data_m`/`mask_m` are read for that entry
    /// then (not only once M0 is known to leave, which waits for the
    /// compressor's ready chain); when M0 stays after all it reads its own
    /// again, a cycle later.
    m0_ahead: Signal<Local, Bit>,
    m0_abort: Signal<Local, Bit>,
    comp_take: Signal<Local, Bit>,
    comp_out_take: Signal<Local, Bit>,
    w0_free: Signal<Local, Bit>,
    w0_to_writer: Signal<Local, Bit>,
    x1_to_writer: Signal<Local, Bit>,
    k0_free: Signal<Local, Bit>,
    k0_compressed: Signal<Local, Bit>,
    k0_commit: Signal<Local, Bit>,
    k0_answer: Signal<Local, Bit>,
    k0_abort: Signal<Local, Bit>,
    pick_to_k0: Signal<Local, Bit>,
    head_partial: Signal<Local, Bit>,
    one_hot: [Signal<Local, Bits<128>>; 8],
    gather_hot: Signal<Local, Bits<128>>,
    flags_full: Signal<Local, Bits<128>>,
    flags_partial: Signal<Local, Bits<128>>,
    flags_reserved: Signal<Local, Bits<128>>,
    flags_abort: Signal<Local, Bits<128>>,
    flags_stored: Signal<Local, Bits<128>>,
    j0_free: Signal<Local, Bit>,
    j1_free: Signal<Local, Bit>,
    j1_load: Signal<Local, Bit>,
    md_take: Signal<Local, Bit>,
    x_to_j0: Signal<Local, Bit>,
    d0_free: Signal<Local, Bit>,
    gather_take: Signal<Local, Bit>,
    dec_take: Signal<Local, Bit>,
    d0_pass: Signal<Local, Bit>,
    pass_take: Signal<Local, Bit>,
    /// D0's entry is ZERO (the nibble RAM's read for D0 is 0): R0 or R1
    /// loads zeros, not the gathered payload (which keeps what the
    /// context's last read left).
    d0_zero: Signal<Local, Bit>,
    r0_sel: Signal<Local, Bit>,
    r0_take: Signal<Local, Bit>,
    resp_take: Signal<Local, Bit>,
}

impl Logic for $name {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            x1_valid,
            x1_id,
            x1_write,
            x1_mask,
            x1_fault,
            x1_compressed,
            x1_md_address,
            x1_md_high,
            x1_device,
            x1_part,
            x1_buddy,
            f_valid,
            f_sent,
            m0_valid,
            m0_id,
            m0_old,
            m0_error,
            w0_valid,
            w0_id,
            w0_class,
            w0_payload,
            w0_fresh,
            w0_device,
            w0_part,
            w0_buddy,
            k0_valid,
            k0_id,
            k0_fresh,
            k0_pick_hi,
            k0_word_held,
            k0_md_held,
            k0_class_held,
            k0_nibble_held,
            wr_valid,
            wr_id,
            wr_flush,
            wr_error,
            j0_valid,
            j0_id,
            j0_nibble,
            j0_compressed,
            j0_bypass,
            j0_device,
            j0_part,
            j0_buddy,
            j1_valid,
            j1_id,
            j1_class,
            j1_compressed,
            j1_device,
            j1_part,
            j1_buddy,
            d0_valid,
            d0_id,
            d0_payload,
            d0_partial,
            d0_pass_q,
            w_pass,
            r0_valid,
            r0_id,
            r0_payload,
            r1_valid,
            r1_id,
            r1_payload,
            err_valid,
            err_id,
            err_fault,
            held_err,
            held_wr,
            held_dec,
            held_r0,
            w_full,
            w_partial,
            w_reserved,
            w_abort,
            w_stored,
            w_committable,
            m0_data_ok
        );
        clock!(
            self,
            clock,
            contexts,
            translator,
            xlate_ids,
            xlate_flags,
            dec_ids,
            comp_ids,
            commit_slice,
            md,
            planner,
            writer,
            gather,
            dev_port,
            bud_port,
            decomp,
            comp
        );
        self.zero.clock.next = self.clock.val();
        self.zero.d.next = self.zero.q.val();
        self.contexts.reset.next = self.reset.val();
        self.translator.reset.next = self.reset.val();
        self.xlate_ids.reset.next = self.reset.val();
        self.xlate_flags.reset.next = self.reset.val();
        self.dec_ids.reset.next = self.reset.val();
        self.comp_ids.reset.next = self.reset.val();
        self.commit_slice.reset.next = self.reset.val();
        self.md.reset.next = self.reset.val();
        self.planner.reset.next = self.reset.val();
        self.writer.reset.next = self.reset.val();
        self.gather.reset.next = self.reset.val();
        self.dev_port.reset.next = self.reset.val();
        self.bud_port.reset.next = self.reset.val();
        self.decomp.reset.next = self.reset.val();
        self.comp.reset.next = self.reset.val();
        self.xl_device.read_clock.next = self.clock.val();
        self.xl_device.write_clock.next = self.clock.val();
        self.xl_part.read_clock.next = self.clock.val();
        self.xl_part.write_clock.next = self.clock.val();
        self.xl_buddy.read_clock.next = self.clock.val();
        self.xl_buddy.write_clock.next = self.clock.val();
        self.nibble.read_clock.next = self.clock.val();
        self.nibble.write_clock.next = self.clock.val();
        self.xw_device.read_clock.next = self.clock.val();
        self.xw_device.write_clock.next = self.clock.val();
        self.xw_part.read_clock.next = self.clock.val();
        self.xw_part.write_clock.next = self.clock.val();
        self.xw_buddy.read_clock.next = self.clock.val();
        self.xw_buddy.write_clock.next = self.clock.val();
        self.xw_md_lo.read_clock.next = self.clock.val();
        self.xw_md_lo.write_clock.next = self.clock.val();
        self.xw_md_hi.read_clock.next = self.clock.val();
        self.xw_md_hi.write_clock.next = self.clock.val();
        self.res_word_lo.read_clock.next = self.clock.val();
        self.res_word_lo.write_clock.next = self.clock.val();
        self.res_word_hi.read_clock.next = self.clock.val();
        self.res_word_hi.write_clock.next = self.clock.val();
        self.w_class_lo.read_clock.next = self.clock.val();
        self.w_class_lo.write_clock.next = self.clock.val();
        self.w_class_hi.read_clock.next = self.clock.val();
        self.w_class_hi.write_clock.next = self.clock.val();
        self.old_nibble_lo.read_clock.next = self.clock.val();
        self.old_nibble_lo.write_clock.next = self.clock.val();
        self.old_nibble_hi.read_clock.next = self.clock.val();
        self.old_nibble_hi.write_clock.next = self.clock.val();
        self.data_x.read_clock.next = self.clock.val();
        self.data_x.write_clock.next = self.clock.val();
        self.data_m.read_clock.next = self.clock.val();
        self.data_m.write_clock.next = self.clock.val();
        self.mask_m.read_clock.next = self.clock.val();
        self.mask_m.write_clock.next = self.clock.val();
        self.flags_full.next = self.w_full.q.val();
        self.flags_partial.next = self.w_partial.q.val();
        self.flags_reserved.next = self.w_reserved.q.val();
        self.flags_abort.next = self.w_abort.q.val();
        self.flags_stored.next = self.w_stored.q.val();

        // One-hot masks of the contexts whose flags are read or change this cycle.
        self.one_hot[0].next = bits::<128>(1) << self.x1_id.q.val();
        self.md_resp_id.next = self.md.resp_tag.val().get_bits::<CONTEXT_BITS>(0);
        self.one_hot[1].next = bits::<128>(1) << self.md_resp_id.val();
        self.one_hot[2].next = bits::<128>(1) << self.k0_id.q.val();
        self.one_hot[3].next = bits::<128>(1) << self.wr_id.q.val();
        self.one_hot[4].next = bits::<128>(1) << self.writer.done_id.val();
        self.one_hot[5].next = bits::<128>(1) << self.m0_id.q.val();
        self.one_hot[6].next = bits::<128>(1) << self.commit_pick.index.val();
        self.one_hot[7].next = bits::<128>(1) << self.j0_id.q.val();
        self.gather_hot.next = bits::<128>(1) << self.gather.out_id.val();

        // The handshakes of the stages, each computed before it is read
        // (an `always @(*)` block reads what it assigned earlier in the
        // same pass, not later).
        self.j1_free.next = !self.j1_valid.q.val() | self.planner.in_ready.val();
        self.j1_load.next = self.j0_valid.q.val() & self.j1_free.val();
        self.j0_free.next = !self.j0_valid.q.val() | self.j1_load.val();
        // The cache marks a commit's answer itself (a flip-flop): no
        // lookup of the tag's flags on this path.
        self.md_commit_resp.next = self.md.resp_commit.val();
        // The request's kind rides in the top bits of its metadata tag
        // (bit 7: a write's reservation, bit 8: a full write's; the
        // context id is 7 bits, `CONTEXT_BITS`), so the
        // answer's kind is a flip-flop, not a lookup of per-context flags.
        self.md_reserved_resp.next = self.md.resp_tag.val().get_bit(7) & !self.md_commit_resp.val();
        self.md_full_resp.next = self.md.resp_tag.val().get_bit(8) & !self.md_commit_resp.val();
        self.md_wants_j0.next = self.md.resp_valid.val() & !self.f_sent.q.val() & !self.md_commit_resp.val() & !self.md_full_resp.val();
        // The response port: a fault first, then a write's answer, then a
        // read's from the decompressor, then R0's; a source offered and
        // not taken keeps the grant.
        self.head_partial.next = self.dec_ids.head_mark.val();
        self.dec_offer.next = self.decomp.out_valid.val() & !self.head_partial.val();
        self.grant_err.next =
            self.err_valid.q.val() & !self.held_wr.q.val() & !self.held_dec.q.val() & !self.held_r0.q.val();
        self.wr_first.next =
            self.held_wr.q.val() | (!self.err_valid.q.val() & !self.held_dec.q.val() & !self.held_r0.q.val());
        self.dec_first.next =
            self.held_dec.q.val() | (!self.err_valid.q.val() & !self.wr_valid.q.val() & !self.held_r0.q.val());
        self.r0_first.next =
            self.held_r0.q.val() | (!self.err_valid.q.val() & !self.wr_valid.q.val() & !self.dec_offer.val());
        self.grant_wr.next = self.wr_valid.q.val() & self.wr_first.val();
        self.grant_dec.next = self.dec_offer.val() & self.dec_first.val();
        self.r0_sel.next = self.r0_valid.q.val() & self.r0_first.val();
        self.held_err.d.next = self.grant_err.val() & !self.resp_ready.val();
        self.held_wr.d.next = self.grant_wr.val() & !self.resp_ready.val();
        self.held_dec.d.next = self.grant_dec.val() & !self.resp_ready.val();
        self.held_r0.d.next = self.r0_sel.val() & !self.resp_ready.val();
        self.wr_free.next = !self.wr_valid.q.val() | (self.resp_ready.val() & self.wr_first.val());
        self.md_resp_ready.next = self.j0_free.val();
        if self.f_sent.q.val() | self.md_commit_resp.val() {
            self.md_resp_ready.next = self.wr_free.val();
        } else if self.md_full_resp.val() {
            self.md_resp_ready.next = true;
        }
        self.md_to_wr.next = self.md.resp_valid.val() & (self.f_sent.q.val() | self.md_commit_resp.val()) & self.wr_free.val();
        self.md_to_j0.next = self.md_wants_j0.val() & self.j0_free.val();
        self.md_take.next = self.md_to_j0.val();
        // A compressed page's write (full or partial), from the
        // translation kept per context: read with K0's other fields, so
        // the commit pick waits for no lookup of K0's flags.
        self.k0_word.next = self.k0_word_held.q.val();
        self.k0_md.next = self.k0_md_held.q.val();
        self.k0_class.next = self.k0_class_held.q.val();
        self.k0_nibble.next = self.k0_nibble_held.q.val();
        if self.k0_fresh.q.val() {
            self.k0_word.next = self.res_word_lo.read_data.val();
            self.k0_md.next = self.xw_md_lo.read_data.val();
            self.k0_class.next = self.w_class_lo.read_data.val();
            self.k0_nibble.next = self.old_nibble_lo.read_data.val();
            if self.k0_pick_hi.q.val() {
                self.k0_word.next = self.res_word_hi.read_data.val();
                self.k0_md.next = self.xw_md_hi.read_data.val();
                self.k0_class.next = self.w_class_hi.read_data.val();
                self.k0_nibble.next = self.old_nibble_hi.read_data.val();
            }
        }
        self.k0_word_held.d.next = self.k0_word.val();
        self.k0_md_held.d.next = self.k0_md.val();
        self.k0_class_held.d.next = self.k0_class.val();
        self.k0_nibble_held.d.next = self.k0_nibble.val();
        self.k0_compressed.next = self.k0_md.val().get_bit(6);
        self.k0_abort.next = (self.w_abort.q.val() & self.one_hot[2].val()).any();
        self.k0_commit.next = self.k0_valid.q.val() & self.k0_compressed.val();
        self.k0_answer.next = self.k0_valid.q.val() & !self.k0_compressed.val() & self.wr_free.val() & !self.md_to_wr.val();
        self.k0_free.next = !self.k0_valid.q.val() | (self.k0_commit.val() & self.commit_slice.in_ready.val()) | self.k0_answer.val();
        self.commit_pick.bits.next = self.w_committable.q.val();
        self.pick_to_k0.next = self.commit_pick.any.val() & self.k0_free.val();
        self.m0_abort.next = self.m0_valid.q.val() & self.m0_error.q.val();
        self.m0_to_comp.next = self.m0_valid.q.val() & !self.m0_error.q.val() & self.m0_data_ok.q.val();
        // (`head_partial`, whether the decompressor's next entry is a
        // partial write's old entry, is noted as its id enters the tag
        // queue: the flag holds from translation to commit, so it cannot
        // change while decompressing.)
        self.x1_md.next = (self.x1_fault.q.val() == 0) & self.x1_compressed.q.val();
        self.x1_full.next = self.x1_md.val() & self.x1_write.q.val() & (self.x1_mask.q.val() == 15);
        self.x1_unc_write.next = (self.x1_fault.q.val() == 0) & !self.x1_compressed.q.val() & self.x1_write.q.val();
        self.w0_to_writer.next = self.w0_valid.q.val() & self.writer.in_ready.val();
        self.w0_free.next = !self.w0_valid.q.val() | self.w0_to_writer.val();
        self.comp_out_take.next = self.comp.out_valid.val() & self.w0_free.val();
        self.x1_to_writer.next = self.x1_valid.q.val() & self.x1_unc_write.val() & !self.w0_valid.q.val() & self.writer.in_ready.val();
        self.f_req.next = self.f_valid.q.val() & !self.f_sent.q.val() & !self.x1_valid.q.val();
        self.md_req_valid.next = (self.x1_valid.q.val()
            & self.x1_md.val()
            & (!self.x1_full.val() | (self.comp.in_ready.val() & !self.m0_to_comp.val() & !self.comp_ids.full.val())))
            | self.f_req.val();
        self.x1_to_comp.next = self.x1_valid.q.val() & self.x1_full.val() & self.md.req_ready.val();
        self.comp_in_valid.next = (self.m0_to_comp.val() | self.x1_to_comp.val()) & !self.comp_ids.full.val();
        self.comp_take.next = self.comp_in_valid.val() & self.comp.in_ready.val();
        // M0 goes first into the compressor: whether it leaves does not
        // wait for X1's full write (`comp_take` does, through the cache's
        // `req_ready`).
        self.m0_free.next = !self.m0_valid.q.val()
            | (self.m0_to_comp.val() & !self.comp_ids.full.val() & self.comp.in_ready.val())
            | self.m0_abort.val();
        self.m0_load.next = self.decomp.out_valid.val() & self.head_partial.val() & self.m0_free.val();
        self.x1_go.next = false;
        if self.x1_valid.q.val() {
            if self.x1_fault.q.val() != 0 {
                self.x1_go.next = !self.err_valid.q.val();
            } else if self.x1_compressed.q.val() {
                self.x1_go.next = self.md_req_valid.val() & self.md.req_ready.val();
            } else if self.x1_write.q.val() {
                self.x1_go.next = self.x1_to_writer.val();
            } else {
                self.x1_go.next = self.j0_free.val() & !self.md_wants_j0.val();
            }
        }
        self.x1_free.next = !self.x1_valid.q.val() | self.x1_go.val();
        self.x_take.next = self.translator.out_valid.val() & self.x1_free.val();
        // Written out rather than from `x1_go`, which also waits for the
        // write planner: an uncompressed read's way to J0 does not.
        self.x_to_j0.next = self.x1_valid.q.val()
            & (self.x1_fault.q.val() == 0)
            & !self.x1_compressed.q.val()
            & !self.x1_write.q.val()
            & self.j0_free.val()
            & !self.md_wants_j0.val();
        self.dec_out_ready.next = self.m0_free.val();
        if !self.head_partial.val() {
            self.dec_out_ready.next = self.resp_ready.val() & self.dec_first.val();
        }
        self.translator.out_ready.next = self.x1_free.val();
        self.md.req_valid.next = self.md_req_valid.val();
        self.md.resp_ready.next = self.md_resp_ready.val();
        self.comp.in_valid.next = self.comp_in_valid.val();

        // Accept: a context and a translator slot; a flush only into an
        // empty slice, and nothing while it is in progress.
        self.translator.gbbr.next = self.gbbr.val();
        self.translator.carve_out_bytes.next = self.carve_out_bytes.val();
        self.translator.md_base.next = self.md_base.val();
        self.translator.heap_base.next = self.heap_base.val();
        self.contexts.alloc_entry.next = self.req_va.val().get_bits::<57>(7);
        self.contexts.alloc_write.next = self.req_write.val();
        self.contexts.alloc_valid.next = self.req_valid.val()
            & !self.req_flush.val()
            & !self.f_valid.q.val()
            & self.translator.in_ready.val()
            & !self.xlate_ids.full.val();
        self.translator.in_valid.next = self.req_valid.val()
            & !self.req_flush.val()
            & !self.f_valid.q.val()
            & self.contexts.alloc_ready.val()
            & !self.xlate_ids.full.val();
        self.req_ready.next =
            !self.f_valid.q.val() & self.contexts.alloc_ready.val() & self.translator.in_ready.val() & !self.xlate_ids.full.val();
        if self.req_flush.val() {
            self.req_ready.next = !self.f_valid.q.val() & (self.contexts.in_use.val() == 0);
        }
        self.req_id.next = self.contexts.alloc_id.val();
        self.accept.next = self.req_valid.val() & self.req_ready.val() & !self.req_flush.val();
        self.flush_take.next = self.req_valid.val() & self.req_ready.val() & self.req_flush.val();
        if self.flush_take.val() {
            self.f_valid.d.next = true;
        }
        self.translator.in_va.next = self.req_va.val();
        self.translator.in_frame.next = self.req_frame.val();
        self.translator.in_pte.next = self.req_pte.val();
        self.translator.in_page_64k.next = self.req_page_64k.val();
        // The raw class: the whole device slot and buddy slot.
        self.translator.in_class.next = 7.into();
        self.xlate_ids.push.next = self.accept.val();
        self.xlate_ids.push_id.next = self.contexts.alloc_id.val();
        self.xlate_flags.push.next = self.accept.val();
        self.xlate_flags.push_mark.next = false;
        self.xlate_ids.push_mark.next = false;
        self.comp_ids.push_mark.next = false;
        self.xlate_flags.push_id.next =
            (bit_cast::<CONTEXT_BITS, 4>(self.req_mask.val()) << 1) | bit_cast::<CONTEXT_BITS, 1>(self.req_write.val().into());
        self.data_x.write_enable.next = self.accept.val() & self.req_write.val();
        self.data_x.write_address.next = self.contexts.alloc_id.val();
        self.data_x.write_data.next = self.req_data.val();
        self.data_m.write_enable.next = self.accept.val() & self.req_write.val();
        self.data_m.write_address.next = self.contexts.alloc_id.val();
        self.data_m.write_data.next = self.req_data.val();
        self.mask_m.write_enable.next = self.accept.val() & self.req_write.val();
        self.mask_m.write_address.next = self.contexts.alloc_id.val();
        self.mask_m.write_data.next = self.req_mask.val();
        self.in_flight.next = self.contexts.in_use.val();
        self.md_lookup_valid.next =
            self.md.resp_valid.val() & self.md_resp_ready.val() & !self.f_sent.q.val() & !self.md_commit_resp.val();
        self.md_lookup_id.next = self.md_resp_id.val();
        self.md_lookup_outcome.next = self.md.resp_outcome.val();

        // Translator -> X1 (the context RAMs get the translation).
        self.x_fault.next = self.translator.out_fault.val() != 0;
        self.xlate_ids.pop.next = self.x_take.val();
        self.xlate_flags.pop.next = self.x_take.val();
        self.xl_device.write_enable.next = self.x_take.val() & !self.x_fault.val();
        self.xl_device.write_address.next = self.xlate_ids.head.val();
        self.xl_device.write_data.next = self.translator.out_device_address.val();
        self.xl_part.write_enable.next = self.x_take.val() & !self.x_fault.val();
        self.xl_part.write_address.next = self.xlate_ids.head.val();
        self.xl_part.write_data.next = self.translator.out_device_part_bytes.val();
        self.xl_buddy.write_enable.next = self.x_take.val() & !self.x_fault.val();
        self.xl_buddy.write_address.next = self.xlate_ids.head.val();
        self.xl_buddy.write_data.next = self.translator.out_buddy_address.val();
        self.xw_device.write_enable.next = self.x_take.val() & !self.x_fault.val();
        self.xw_device.write_address.next = self.xlate_ids.head.val();
        self.xw_device.write_data.next = self.translator.out_device_address.val();
        self.xw_part.write_enable.next = self.x_take.val() & !self.x_fault.val();
        self.xw_part.write_address.next = self.xlate_ids.head.val();
        self.xw_part.write_data.next = self.translator.out_device_part_bytes.val();
        self.xw_buddy.write_enable.next = self.x_take.val() & !self.x_fault.val();
        self.xw_buddy.write_address.next = self.xlate_ids.head.val();
        self.xw_buddy.write_data.next = self.translator.out_buddy_address.val();
        self.xw_md_lo.write_enable.next = self.x_take.val() & !self.x_fault.val() & !self.xlate_ids.head.val().get_bit(6);
        self.xw_md_hi.write_enable.next = self.x_take.val() & !self.x_fault.val() & self.xlate_ids.head.val().get_bit(6);
        self.xw_md_lo.write_address.next = self.xlate_ids.head.val().get_bits::<6>(0);
        self.xw_md_hi.write_address.next = self.xlate_ids.head.val().get_bits::<6>(0);
        self.xw_md_lo.write_data.next = (bit_cast::<7, 1>(self.translator.out_metadata_valid.val().into()) << 6)
            | (bit_cast::<7, 1>(self.translator.out_metadata_high.val().into()) << 5)
            | bit_cast::<7, 5>(self.translator.out_metadata_address.val().get_bits::<5>(0));
        self.xw_md_hi.write_data.next = (bit_cast::<7, 1>(self.translator.out_metadata_valid.val().into()) << 6)
            | (bit_cast::<7, 1>(self.translator.out_metadata_high.val().into()) << 5)
            | bit_cast::<7, 5>(self.translator.out_metadata_address.val().get_bits::<5>(0));
        // X1's write data, re-read while it waits (registered reads).
        self.data_x.read_address.next = self.x1_id.q.val();
        if self.x_take.val() {
            self.data_x.read_address.next = self.xlate_ids.head.val();
        }
        if self.x1_go.val() {
            self.x1_valid.d.next = false;
        }
        if self.x_take.val() {
            self.x1_valid.d.next = true;
            self.x1_id.d.next = self.xlate_ids.head.val();
            self.x1_write.d.next = self.xlate_flags.head.val().get_bit(0);
            self.x1_mask.d.next = self.xlate_flags.head.val().get_bits::<4>(1);
            self.x1_fault.d.next = self.translator.out_fault.val();
            self.x1_compressed.d.next = self.translator.out_metadata_valid.val();
            self.x1_md_address.d.next = self.translator.out_metadata_address.val();
            self.x1_md_high.d.next = self.translator.out_metadata_high.val();
            self.x1_device.d.next = self.translator.out_device_address.val();
            self.x1_part.d.next = self.translator.out_device_part_bytes.val();
            self.x1_buddy.d.next = self.translator.out_buddy_address.val();
        }

        // X1 dispatch: a fault to the response port; a compressed page's
        // read or write to the metadata cache (a full write also into the
        // compressor); an uncompressed read to J0, an uncompressed write to
        // the write planner.
        self.md.req_write.next = false;
        self.md.req_flush.next = false;
        self.md.req_reserve.next = self.x1_write.q.val();
        self.md.req_value.next = 0.into();
        self.md.req_address.next = self.x1_md_address.q.val();
        self.md.req_high.next = self.x1_md_high.q.val();
        self.md.req_tag.next = bit_cast::<MD_TAG_BITS, CONTEXT_BITS>(self.x1_id.q.val());
        if self.x1_write.q.val() {
            self.md.req_tag.next = bit_cast::<MD_TAG_BITS, CONTEXT_BITS>(self.x1_id.q.val()) | bits::<MD_TAG_BITS>(0x80);
            if self.x1_full.val() {
                self.md.req_tag.next =
                    bit_cast::<MD_TAG_BITS, CONTEXT_BITS>(self.x1_id.q.val()) | bits::<MD_TAG_BITS>(0x180);
            }
        }
        if self.f_req.val() {
            self.md.req_flush.next = true;
            self.md.req_reserve.next = false;
            self.md.req_tag.next = 0.into();
        }
        if self.f_req.val() & self.md.req_ready.val() {
            self.f_sent.d.next = true;
        }
        if self.x1_go.val() & (self.x1_fault.q.val() != 0) {
            self.err_valid.d.next = true;
            self.err_id.d.next = self.x1_id.q.val();
            self.err_fault.d.next = self.x1_fault.q.val();
        }

        if self.x1_go.val() & self.x1_md.val() & self.x1_write.q.val() {
            if self.x1_full.val() {
                self.flags_full.next = self.flags_full.val() | self.one_hot[0].val();
            } else {
                self.flags_partial.next = self.flags_partial.val() | self.one_hot[0].val();
            }
        }

        // Metadata cache answers: a flush's; a commit's (the write is
        // done); a full write's reservation (noted); a read's or a partial
        // write's reservation (its class known: to J0).
        self.res_word_lo.write_enable.next = self.md.resp_valid.val() & self.md_resp_ready.val() & self.md_reserved_resp.val() & !self.md_resp_id.val().get_bit(6);
        self.res_word_hi.write_enable.next = self.md.resp_valid.val() & self.md_resp_ready.val() & self.md_reserved_resp.val() & self.md_resp_id.val().get_bit(6);
        self.res_word_lo.write_address.next = self.md_resp_id.val().get_bits::<6>(0);
        self.res_word_hi.write_address.next = self.md_resp_id.val().get_bits::<6>(0);
        self.res_word_lo.write_data.next = self.md.resp_word.val();
        self.res_word_hi.write_data.next = self.md.resp_word.val();
        self.old_nibble_lo.write_enable.next = self.md.resp_valid.val() & self.md_resp_ready.val() & self.md_reserved_resp.val() & !self.md_resp_id.val().get_bit(6);
        self.old_nibble_hi.write_enable.next = self.md.resp_valid.val() & self.md_resp_ready.val() & self.md_reserved_resp.val() & self.md_resp_id.val().get_bit(6);
        self.old_nibble_lo.write_address.next = self.md_resp_id.val().get_bits::<6>(0);
        self.old_nibble_hi.write_address.next = self.md_resp_id.val().get_bits::<6>(0);
        self.old_nibble_lo.write_data.next = self.md.resp_nibble.val();
        self.old_nibble_hi.write_data.next = self.md.resp_nibble.val();
        if self.md.resp_valid.val() & self.md_resp_ready.val() & self.md_reserved_resp.val() {
            self.flags_reserved.next = self.flags_reserved.val() | self.one_hot[1].val();
        }
        if self.md_to_wr.val() & self.md_commit_resp.val() {
            self.flags_full.next = self.flags_full.val() & !self.one_hot[1].val();
            self.flags_partial.next = self.flags_partial.val() & !self.one_hot[1].val();
            self.flags_reserved.next = self.flags_reserved.val() & !self.one_hot[1].val();
        }

        // J0 -> J1 -> read planner; J0's translation is re-read from the
        // context RAMs every cycle it waits (registered reads).
        self.xl_device.read_address.next = self.j0_id.q.val();
        self.xl_part.read_address.next = self.j0_id.q.val();
        self.xl_buddy.read_address.next = self.j0_id.q.val();
        if self.md_take.val() {
            self.xl_device.read_address.next = self.md_resp_id.val();
            self.xl_part.read_address.next = self.md_resp_id.val();
            self.xl_buddy.read_address.next = self.md_resp_id.val();
        }
        // The class the decompressor will take, written from J0's
        // registers every cycle J0 holds a read (not as J0 loads, which
        // waits for the handshakes); D0 reads it only once the read's
        // sectors are gathered, cycles after J0.
        self.nibble.write_enable.next = self.j0_valid.q.val();
        self.nibble.write_address.next = self.j0_id.q.val();
        self.nibble.write_data.next = self.j0_nibble.q.val();
        if self.j0_valid.q.val() {
            self.w_pass.d.next = self.w_pass.q.val() & !self.one_hot[7].val();
            // (Class codes 7, RAW, and 0, ZERO: literals, as rust-hdl prints constant names into the Verilog.)
            if (self.j0_nibble.q.val() == 7) | (self.j0_nibble.q.val() == 0) {
                self.w_pass.d.next = self.w_pass.q.val() | self.one_hot[7].val();
            }
        }
        if self.j1_load.val() {
            self.j0_valid.d.next = false;
        }
        if self.md_take.val() {
            self.j0_valid.d.next = true;
            self.j0_id.d.next = self.md_resp_id.val();
            self.j0_nibble.d.next = self.md.resp_nibble.val();
            self.j0_compressed.d.next = true;
            self.j0_bypass.d.next = false;
        }
        if self.x_to_j0.val() {
            self.j0_valid.d.next = true;
            self.j0_id.d.next = self.x1_id.q.val();
            // RAW: the decompressor passes an uncompressed slot through.
            self.j0_nibble.d.next = 7.into();
            self.j0_compressed.d.next = false;
            self.j0_bypass.d.next = true;
            self.j0_device.d.next = self.x1_device.q.val();
            self.j0_part.d.next = self.x1_part.q.val();
            self.j0_buddy.d.next = self.x1_buddy.q.val();
        }
        if self.planner.in_ready.val() {
            self.j1_valid.d.next = false;
        }
        if self.j1_load.val() {
            self.j1_valid.d.next = true;
            self.j1_id.d.next = self.j0_id.q.val();
            self.j1_class.d.next = self.j0_nibble.q.val().get_bits::<3>(0);
            if self.j0_nibble.q.val().get_bit(3) {
                self.j1_class.d.next = 0.into();
            }
            self.j1_compressed.d.next = self.j0_compressed.q.val();
            self.j1_device.d.next = self.xl_device.read_data.val();
            self.j1_part.d.next = self.xl_part.read_data.val();
            self.j1_buddy.d.next = self.xl_buddy.read_data.val();
            if self.j0_bypass.q.val() {
                self.j1_device.d.next = self.j0_device.q.val();
                self.j1_part.d.next = self.j0_part.q.val();
                self.j1_buddy.d.next = self.j0_buddy.q.val();
            }
        }
        self.planner.in_valid.next = self.j1_valid.q.val();
        self.planner.in_id.next = self.j1_id.q.val();
        // kind::FULL (a literal: rust-hdl prints constant names into the Verilog).
        self.planner.in_kind.next = 0.into();
        self.planner.in_class.next = self.j1_class.q.val();
        self.planner.in_compressed.next = self.j1_compressed.q.val();
        self.planner.in_device_address.next = self.j1_device.q.val();
        self.planner.in_device_part_bytes.next = self.j1_part.q.val();
        self.planner.in_buddy_address.next = self.j1_buddy.q.val();

        // The planners' plans, sector reads and writes; the memories' answers.
        self.gather.plan_valid.next = self.planner.plan_valid.val();
        self.gather.plan_id.next = self.planner.plan_id.val();
        self.gather.plan_device.next = self.planner.plan_device.val();
        self.gather.plan_lead.next = self.planner.plan_lead.val();
        self.gather.plan_words.next = self.planner.plan_words.val();
        self.gather.plan_sectors.next = self.planner.plan_sectors.val();
        self.gather.plan_buddy.next = self.planner.plan_buddy.val();
        self.gather.plan_bud_lead.next = self.planner.plan_bud_lead.val();
        self.gather.plan_bud_sectors.next = self.planner.plan_bud_sectors.val();
        self.gather.plan_last.next = self.planner.plan_last.val();
        self.planner.plan_ready.next = self.gather.plan_ready.val();
        self.dev_port.rd_req_valid.next = self.planner.dev_req_valid.val();
        self.dev_port.rd_req_id.next = self.planner.dev_req_id.val();
        self.dev_port.rd_req_sector.next = self.planner.dev_req_sector.val();
        self.dev_port.rd_req_address.next = self.planner.dev_req_address.val();
        self.dev_port.rd_req_sectors.next = self.planner.dev_req_sectors.val();
        self.planner.dev_req_ready.next = self.dev_port.rd_req_ready.val();
        self.bud_port.rd_req_valid.next = self.planner.buddy_req_valid.val();
        self.bud_port.rd_req_id.next = self.planner.buddy_req_id.val();
        self.bud_port.rd_req_sector.next = self.planner.buddy_req_sector.val();
        self.bud_port.rd_req_address.next = self.planner.buddy_req_address.val();
        self.bud_port.rd_req_sectors.next = self.planner.buddy_req_sectors.val();
        self.planner.buddy_req_ready.next = self.bud_port.rd_req_ready.val();
        self.dev_port.md_req_valid.next = self.md.mem_req_valid.val();
        self.dev_port.md_req_write.next = self.md.mem_req_write.val();
        self.dev_port.md_req_address.next = self.md.mem_req_address.val();
        self.dev_port.md_req_data.next = self.md.mem_req_data.val();
        self.md.mem_req_ready.next = self.dev_port.md_req_ready.val();
        self.md.mem_fill_valid.next = self.dev_port.md_fill_valid.val();
        self.md.mem_fill_data.next = self.dev_port.md_fill_data.val();
        self.dev_port.md_fill_ready.next = self.md.mem_fill_ready.val();
        self.bud_port.md_req_valid.next = false;
        self.bud_port.md_req_write.next = false;
        self.bud_port.md_req_address.next = 0.into();
        self.bud_port.md_req_data.next = 0.into();
        self.bud_port.md_fill_ready.next = false;
        self.dev_port.wr_req_valid.next = self.writer.dev_wr_valid.val();
        self.dev_port.wr_req_address.next = self.writer.dev_wr_address.val();
        self.dev_port.wr_req_sectors.next = self.writer.dev_wr_sectors.val();
        self.dev_port.wr_req_data.next = self.writer.dev_wr_data.val();
        self.dev_port.wr_req_strobe.next = self.writer.dev_wr_strobe.val();
        self.dev_port.wr_req_id.next = self.writer.dev_wr_id.val();
        self.writer.dev_wr_ready.next = self.dev_port.wr_req_ready.val();
        self.bud_port.wr_req_valid.next = self.writer.buddy_wr_valid.val();
        self.bud_port.wr_req_address.next = self.writer.buddy_wr_address.val();
        self.bud_port.wr_req_sectors.next = self.writer.buddy_wr_sectors.val();
        self.bud_port.wr_req_data.next = self.writer.buddy_wr_data.val();
        self.bud_port.wr_req_strobe.next = self.writer.buddy_wr_strobe.val();
        self.bud_port.wr_req_id.next = self.writer.buddy_wr_id.val();
        self.writer.buddy_wr_ready.next = self.bud_port.wr_req_ready.val();
        self.gather.dev_valid.next = self.dev_port.rd_out_valid.val();
        self.gather.dev_id.next = self.dev_port.rd_out_id.val();
        self.gather.dev_sector.next = self.dev_port.rd_out_sector.val();
        self.gather.dev_sectors.next = self.dev_port.rd_out_sectors.val();
        self.gather.dev_data.next = self.dev_port.rd_out_data.val();
        self.dev_port.rd_out_ready.next = self.gather.dev_ready.val();
        self.gather.buddy_valid.next = self.bud_port.rd_out_valid.val();
        self.gather.buddy_id.next = self.bud_port.rd_out_id.val();
        self.gather.buddy_sector.next = self.bud_port.rd_out_sector.val();
        self.gather.buddy_sectors.next = self.bud_port.rd_out_sectors.val();
        self.gather.buddy_data.next = self.bud_port.rd_out_data.val();
        self.bud_port.rd_out_ready.next = self.gather.buddy_ready.val();
        self.dev_mem_valid.next = self.dev_port.mem_valid.val();
        self.dev_mem_write.next = self.dev_port.mem_write.val();
        self.dev_mem_address.next = self.dev_port.mem_address.val();
        self.dev_mem_sectors.next = self.dev_port.mem_sectors.val();
        self.dev_mem_data.next = self.dev_port.mem_data.val();
        self.dev_mem_strobe.next = self.dev_port.mem_strobe.val();
        self.dev_mem_tag.next = self.dev_port.mem_tag.val();
        self.dev_port.mem_ready.next = self.dev_mem_ready.val();
        self.dev_port.mem_resp_valid.next = self.dev_mem_resp_valid.val();
        self.dev_port.mem_resp_tag.next = self.dev_mem_resp_tag.val();
        self.dev_port.mem_resp_data.next = self.dev_mem_resp_data.val();
        self.dev_mem_resp_ready.next = self.dev_port.mem_resp_ready.val();
        self.bud_mem_valid.next = self.bud_port.mem_valid.val();
        self.bud_mem_write.next = self.bud_port.mem_write.val();
        self.bud_mem_address.next = self.bud_port.mem_address.val();
        self.bud_mem_sectors.next = self.bud_port.mem_sectors.val();
        self.bud_mem_data.next = self.bud_port.mem_data.val();
        self.bud_mem_strobe.next = self.bud_port.mem_strobe.val();
        self.bud_mem_tag.next = self.bud_port.mem_tag.val();
        self.bud_port.mem_ready.next = self.bud_mem_ready.val();
        self.bud_port.mem_resp_valid.next = self.bud_mem_resp_valid.val();
        self.bud_port.mem_resp_tag.next = self.bud_mem_resp_tag.val();
        self.bud_port.mem_resp_data.next = self.bud_mem_resp_data.val();
        self.bud_mem_resp_ready.next = self.bud_port.mem_resp_ready.val();

        // Gathered payloads -> D0 -> decompressor (the nibble re-read from
        // its RAM while D0 waits), or R0 for a read of a RAW or ZERO entry
        // (`r0_sel`: R0 granted the response port).
        self.r0_take.next = self.r0_sel.val() & self.resp_ready.val();
        self.d0_pass.next = self.d0_pass_q.q.val();
        self.pass_take.next = self.d0_valid.q.val() & self.d0_pass.val() & !self.r1_valid.q.val();
        self.dec_take.next =
            self.d0_valid.q.val() & !self.d0_pass.val() & !self.dec_ids.full.val() & self.decomp.in_ready.val();
        self.d0_free.next = !self.d0_valid.q.val() | self.dec_take.val() | self.pass_take.val();
        self.gather.out_ready.next = self.d0_free.val();
        self.gather_take.next = self.gather.out_valid.val() & self.d0_free.val();
        self.nibble.read_address.next = self.d0_id.q.val();
        if self.gather_take.val() {
            self.nibble.read_address.next = self.gather.out_id.val();
        }
        if self.r0_take.val() {
            self.r0_valid.d.next = self.r1_valid.q.val();
            self.r0_id.d.next = self.r1_id.q.val();
            self.r0_payload.d.next = self.r1_payload.q.val();
            self.r1_valid.d.next = false;
        }
        // (R1 is empty when D0 moves on, so R0 is empty next unless it holds and stays.)
        self.d0_zero.next = self.nibble.read_data.val() == 0;
        if self.pass_take.val() {
            if !self.r0_valid.q.val() | self.r0_take.val() {
                self.r0_valid.d.next = true;
                self.r0_id.d.next = self.d0_id.q.val();
                self.r0_payload.d.next = self.d0_payload.q.val();
                if self.d0_zero.val() {
                    self.r0_payload.d.next = self.zero.q.val();
                }
            } else {
                self.r1_valid.d.next = true;
                self.r1_id.d.next = self.d0_id.q.val();
                self.r1_payload.d.next = self.d0_payload.q.val();
                if self.d0_zero.val() {
                    self.r1_payload.d.next = self.zero.q.val();
                }
            }
        }
        if self.dec_take.val() | self.pass_take.val() {
            self.d0_valid.d.next = false;
        }
        if self.gather_take.val() {
            self.d0_valid.d.next = true;
            self.d0_id.d.next = self.gather.out_id.val();
            self.d0_payload.d.next = self.gather.out_payload.val();
            self.d0_partial.d.next = (self.w_partial.q.val() & self.gather_hot.val()).any();
            self.d0_pass_q.d.next =
                (self.w_pass.q.val() & self.gather_hot.val()).any() & !(self.w_partial.q.val() & self.gather_hot.val()).any();
        }
        self.decomp.in_valid.next = self.d0_valid.q.val() & !self.d0_pass.val() & !self.dec_ids.full.val();
        self.decomp.in_class.next = self.nibble.read_data.val();
        self.decomp.in_payload.next = self.d0_payload.q.val();
        self.dec_ids.push.next = self.dec_take.val();
        self.dec_ids.push_id.next = self.d0_id.q.val();
        self.dec_ids.push_mark.next = self.d0_partial.q.val();

        // A decompressed entry: a read's answer, or a partial write's old
        // entry (to M0, whose data and mask are re-read while it waits).
        self.m0_ahead.next = self.decomp.out_valid.val()
            & self.head_partial.val()
            & (!self.m0_valid.q.val() | self.m0_abort.val() | self.m0_to_comp.val());
        self.data_m.read_address.next = self.m0_id.q.val();
        self.mask_m.read_address.next = self.m0_id.q.val();
        if self.m0_ahead.val() {
            self.data_m.read_address.next = self.dec_ids.head.val();
            self.mask_m.read_address.next = self.dec_ids.head.val();
        }
        // (`m0_load` implies `m0_ahead`.)
        self.m0_data_ok.d.next = !self.m0_ahead.val() | self.m0_load.val();
        if self.m0_free.val() {
            self.m0_valid.d.next = false;
        }
        if self.m0_load.val() {
            self.m0_valid.d.next = true;
            self.m0_id.d.next = self.dec_ids.head.val();
            self.m0_old.d.next = self.decomp.out_entry.val();
            self.m0_error.d.next = self.decomp.out_error.val();
        }
        self.merge.old.next = self.m0_old.q.val();
        self.merge.update.next = self.data_m.read_data.val();
        self.merge.mask.next = self.mask_m.read_data.val();

        // Compressor: a merged partial write first, else X1's full write.
        self.comp.in_entry.next = self.data_x.read_data.val();
        self.comp_ids.push_id.next = self.x1_id.q.val();
        if self.m0_to_comp.val() {
            self.comp.in_entry.next = self.merge.merged.val();
            self.comp_ids.push_id.next = self.m0_id.q.val();
        }
        self.comp_ids.push.next = self.comp_take.val();

        // Compressor -> W0 (translation read as it loads, then held) -> write
        // planner; an uncompressed write goes from X1 when W0 is empty.
        self.comp.out_ready.next = self.w0_free.val();
        self.comp_ids.pop.next = self.comp_out_take.val();
        self.xw_device.read_address.next = self.comp_ids.head.val();
        self.xw_part.read_address.next = self.comp_ids.head.val();
        self.xw_buddy.read_address.next = self.comp_ids.head.val();
        self.w0_fresh.d.next = self.comp_out_take.val();
        self.writer.in_device_address.next = self.w0_device.q.val();
        self.writer.in_device_part_bytes.next = self.w0_part.q.val();
        self.writer.in_buddy_address.next = self.w0_buddy.q.val();
        if self.w0_fresh.q.val() {
            self.writer.in_device_address.next = self.xw_device.read_data.val();
            self.writer.in_device_part_bytes.next = self.xw_part.read_data.val();
            self.writer.in_buddy_address.next = self.xw_buddy.read_data.val();
            self.w0_device.d.next = self.xw_device.read_data.val();
            self.w0_part.d.next = self.xw_part.read_data.val();
            self.w0_buddy.d.next = self.xw_buddy.read_data.val();
        }
        self.w_class_lo.write_enable.next = self.comp_out_take.val() & !self.comp_ids.head.val().get_bit(6);
        self.w_class_hi.write_enable.next = self.comp_out_take.val() & self.comp_ids.head.val().get_bit(6);
        self.w_class_lo.write_address.next = self.comp_ids.head.val().get_bits::<6>(0);
        self.w_class_hi.write_address.next = self.comp_ids.head.val().get_bits::<6>(0);
        self.w_class_lo.write_data.next = self.comp.out_class.val();
        self.w_class_hi.write_data.next = self.comp.out_class.val();
        if self.w0_to_writer.val() {
            self.w0_valid.d.next = false;
        }
        if self.comp_out_take.val() {
            self.w0_valid.d.next = true;
            self.w0_id.d.next = self.comp_ids.head.val();
            self.w0_class.d.next = self.comp.out_class.val();
            self.w0_payload.d.next = self.comp.out_payload.val();
        }
        self.writer.in_valid.next = self.w0_valid.q.val() | (self.x1_valid.q.val() & self.x1_unc_write.val());
        self.writer.in_id.next = self.w0_id.q.val();
        self.writer.in_class.next = self.w0_class.q.val().get_bits::<3>(0);
        self.writer.in_compressed.next = true;
        self.writer.in_mask.next = 15.into();
        self.writer.in_payload.next = self.w0_payload.q.val();
        if !self.w0_valid.q.val() {
            self.writer.in_id.next = self.x1_id.q.val();
            self.writer.in_class.next = 7.into();
            self.writer.in_compressed.next = false;
            self.writer.in_mask.next = self.x1_mask.q.val();
            self.writer.in_device_address.next = self.x1_device.q.val();
            self.writer.in_device_part_bytes.next = self.x1_part.q.val();
            self.writer.in_buddy_address.next = self.x1_buddy.q.val();
            self.writer.in_payload.next = self.data_x.read_data.val();
        }

        // Stored writes (and partial writes that did not decode) are
        // flagged; K0 takes the lowest one that is ready: it commits the
        // nibble (the reservation was answered) or answers an uncompressed
        // write. The commit's fields are read as K0 loads, then held.
        self.writer.done_ready.next = true;
        if self.writer.done_valid.val() {
            self.flags_stored.next = self.flags_stored.val() | self.one_hot[4].val();
        }
        if self.m0_abort.val() {
            self.flags_stored.next = self.flags_stored.val() | self.one_hot[5].val();
            self.flags_abort.next = self.flags_abort.val() | self.one_hot[5].val();
        }
        if self.pick_to_k0.val() {
            self.flags_stored.next = self.flags_stored.val() & !self.one_hot[6].val();
        }
        self.commit_slice.in_valid.next = self.k0_commit.val();
        self.commit_slice.in_data.next = (bit_cast::<COMMIT_BITS, 8>(self.k0_word.val()) << 19)
            | (bit_cast::<COMMIT_BITS, 6>(self.k0_md.val().get_bits::<6>(0)) << 13)
            | (bit_cast::<COMMIT_BITS, 4>(self.k0_class.val()) << 9)
            | bit_cast::<COMMIT_BITS, CONTEXT_BITS>(self.k0_id.q.val());
        if self.k0_abort.val() {
            self.commit_slice.in_data.next = (bit_cast::<COMMIT_BITS, 8>(self.k0_word.val()) << 19)
                | (bit_cast::<COMMIT_BITS, 6>(self.k0_md.val().get_bits::<6>(0)) << 13)
                | (bit_cast::<COMMIT_BITS, 4>(self.k0_nibble.val()) << 9)
                | bit_cast::<COMMIT_BITS, CONTEXT_BITS>(self.k0_id.q.val());
        }
        self.md.commit_valid.next = self.commit_slice.out_valid.val();
        self.md.commit_word.next = self.commit_slice.out_data.val().get_bits::<8>(19);
        self.md.commit_offset.next = self.commit_slice.out_data.val().get_bits::<5>(13);
        self.md.commit_high.next = self.commit_slice.out_data.val().get_bit(18);
        self.md.commit_value.next = self.commit_slice.out_data.val().get_bits::<4>(9);
        self.md.commit_tag.next = self.commit_slice.out_data.val().get_bits::<MD_TAG_BITS>(0);
        self.commit_slice.out_ready.next = self.md.commit_ready.val();
        self.pick_lo.bits.next = bit_cast::<128, 64>(self.w_committable.q.val().get_bits::<64>(0));
        self.pick_hi.bits.next = bit_cast::<128, 64>(self.w_committable.q.val().get_bits::<64>(64));
        self.res_word_lo.read_address.next = self.pick_lo.index.val().get_bits::<6>(0);
        self.xw_md_lo.read_address.next = self.pick_lo.index.val().get_bits::<6>(0);
        self.w_class_lo.read_address.next = self.pick_lo.index.val().get_bits::<6>(0);
        self.old_nibble_lo.read_address.next = self.pick_lo.index.val().get_bits::<6>(0);
        self.res_word_hi.read_address.next = self.pick_hi.index.val().get_bits::<6>(0);
        self.xw_md_hi.read_address.next = self.pick_hi.index.val().get_bits::<6>(0);
        self.w_class_hi.read_address.next = self.pick_hi.index.val().get_bits::<6>(0);
        self.old_nibble_hi.read_address.next = self.pick_hi.index.val().get_bits::<6>(0);
        self.k0_pick_hi.d.next = self.commit_pick.index.val().get_bit(6);
        self.k0_fresh.d.next = self.pick_to_k0.val();
        if self.k0_free.val() {
            self.k0_valid.d.next = false;
        }
        if self.pick_to_k0.val() {
            self.k0_valid.d.next = true;
            self.k0_id.d.next = self.commit_pick.index.val();
        }

        // WR: a write's answer (a commit answered, or an uncompressed
        // write stored) or the flush's.
        if self.grant_wr.val() & self.resp_ready.val() {
            self.wr_valid.d.next = false;
            self.flags_abort.next = self.flags_abort.val() & !self.one_hot[3].val();
        }
        if self.md_to_wr.val() {
            self.wr_valid.d.next = true;
            self.wr_id.d.next = self.md_resp_id.val();
            self.wr_flush.d.next = self.f_sent.q.val();
            self.wr_error.d.next = (self.w_abort.q.val() & self.one_hot[1].val()).any();
            if self.f_sent.q.val() {
                self.f_valid.d.next = false;
                self.f_sent.d.next = false;
            }
        }
        if self.k0_answer.val() {
            self.wr_valid.d.next = true;
            self.wr_id.d.next = self.k0_id.q.val();
            self.wr_flush.d.next = false;
            self.wr_error.d.next = false;
        }

        // Responses: valid when any source is (a held source stays valid
        // until taken); the fields from the grants (`dec_offer` and on).
        self.resp_valid.next = self.err_valid.q.val() | self.wr_valid.q.val() | self.dec_offer.val() | self.r0_valid.q.val();
        self.resp_id.next = self.dec_ids.head.val();
        self.resp_write.next = false;
        self.resp_flush.next = false;
        self.resp_entry.next = self.decomp.out_entry.val();
        self.resp_fault.next = 0.into();
        self.resp_decode_error.next = self.decomp.out_error.val();
        self.decomp.out_ready.next = self.dec_out_ready.val();
        if self.r0_sel.val() {
            self.resp_entry.next = self.r0_payload.q.val();
            self.resp_id.next = self.r0_id.q.val();
            self.resp_decode_error.next = false;
        }
        if self.grant_wr.val() {
            self.resp_entry.next = self.zero.q.val();
            self.resp_id.next = self.wr_id.q.val();
            self.resp_write.next = !self.wr_flush.q.val();
            self.resp_flush.next = self.wr_flush.q.val();
            self.resp_decode_error.next = self.wr_error.q.val();
        }
        if self.grant_err.val() {
            self.resp_entry.next = self.zero.q.val();
            self.resp_id.next = self.err_id.q.val();
            self.resp_write.next = false;
            self.resp_flush.next = false;
            self.resp_fault.next = self.err_fault.q.val();
            self.resp_decode_error.next = false;
        }
        self.resp_take.next = self.resp_valid.val() & self.resp_ready.val();
        self.dec_ids.pop.next = self.decomp.out_valid.val() & self.dec_out_ready.val();
        if self.resp_take.val() & self.grant_err.val() {
            self.err_valid.d.next = false;
        }
        self.contexts.free_valid.next = self.resp_take.val() & !(self.grant_wr.val() & self.wr_flush.q.val());
        self.contexts.free_id.next = self.resp_id.val();
        // A read's memory reads are all taken: its entry opens to writes.
        self.contexts.issued_valid.next = self.planner.done_valid.val();
        self.contexts.issued_id.next = self.planner.done_id.val();
        // An uncompressed page's write taken by the write planner: a later
        // write of its entry may be taken into the slice.
        self.contexts.planned_valid.next = self.x1_to_writer.val();
        self.contexts.planned_id.next = self.x1_id.q.val();

        self.w_full.d.next = self.flags_full.val();
        self.w_partial.d.next = self.flags_partial.val();
        self.w_reserved.d.next = self.flags_reserved.val();
        self.w_abort.d.next = self.flags_abort.val();
        self.w_stored.d.next = self.flags_stored.val();
        self.w_committable.d.next =
            self.flags_stored.val() & (self.flags_reserved.val() | !(self.flags_full.val() | self.flags_partial.val()));
        if self.reset.val() {
            self.x1_valid.d.next = false;
            self.f_valid.d.next = false;
            self.f_sent.d.next = false;
            self.m0_valid.d.next = false;
            self.w0_valid.d.next = false;
            self.w0_fresh.d.next = false;
            self.k0_fresh.d.next = false;
            self.k0_valid.d.next = false;
            self.wr_valid.d.next = false;
            self.j0_valid.d.next = false;
            self.j1_valid.d.next = false;
            self.d0_valid.d.next = false;
            self.r0_valid.d.next = false;
            self.r1_valid.d.next = false;
            self.err_valid.d.next = false;
            self.held_err.d.next = false;
            self.held_wr.d.next = false;
            self.held_dec.d.next = false;
            self.held_r0.d.next = false;
            self.w_full.d.next = 0.into();
            self.w_partial.d.next = 0.into();
            self.w_reserved.d.next = 0.into();
            self.w_abort.d.next = 0.into();
            self.w_stored.d.next = 0.into();
            self.w_committable.d.next = 0.into();
        }
    }
}

impl $name {
    /// Every port this cycle as one lock-step line ([`crate::lockstep`]):
    /// [`LOCKSTEP_INPUTS`] then [`LOCKSTEP_OUTPUTS`], each field padded to
    /// whole hex digits, most significant first. Read it after the inputs
    /// have settled and before the clock edge.
    pub fn lockstep_line(&self) -> String {
        use crate::lockstep::{hex_bit as b, hex_bits, hex_field, hex_words as words};
        [
            b(self.reset.val()),
            hex_field(self.gbbr.val().to_u64(), 64),
            hex_field(self.carve_out_bytes.val().to_u64(), 64),
            hex_field(self.md_base.val().to_u64(), 64),
            hex_field(self.heap_base.val().to_u64(), 64),
            b(self.req_valid.val()),
            b(self.req_write.val()),
            b(self.req_flush.val()),
            hex_field(self.req_mask.val().to_u64(), 4),
            words(&self.req_data.val().to_words()),
            hex_field(self.req_va.val().to_u64(), 64),
            hex_field(self.req_frame.val().to_u64(), 64),
            hex_field(self.req_pte.val().to_u64(), 27),
            b(self.req_page_64k.val()),
            b(self.resp_ready.val()),
            b(self.dev_mem_ready.val()),
            b(self.dev_mem_resp_valid.val()),
            hex_field(self.dev_mem_resp_tag.val().to_u64(), MEM_TAG_BITS),
            words(&self.dev_mem_resp_data.val().to_words()),
            b(self.bud_mem_ready.val()),
            b(self.bud_mem_resp_valid.val()),
            hex_field(self.bud_mem_resp_tag.val().to_u64(), MEM_TAG_BITS),
            words(&self.bud_mem_resp_data.val().to_words()),
            b(self.req_ready.val()),
            hex_field(self.req_id.val().to_u64(), 7),
            b(self.resp_valid.val()),
            hex_field(self.resp_id.val().to_u64(), 7),
            b(self.resp_write.val()),
            b(self.resp_flush.val()),
            words(&self.resp_entry.val().to_words()),
            hex_field(self.resp_fault.val().to_u64(), 3),
            b(self.resp_decode_error.val()),
            b(self.dev_mem_valid.val()),
            b(self.dev_mem_write.val()),
            hex_field(self.dev_mem_address.val().to_u64(), 64),
            hex_field(self.dev_mem_sectors.val().to_u64(), 3),
            words(&self.dev_mem_data.val().to_words()),
            hex_bits(&self.dev_mem_strobe.val()),
            hex_field(self.dev_mem_tag.val().to_u64(), MEM_TAG_BITS),
            b(self.dev_mem_resp_ready.val()),
            b(self.bud_mem_valid.val()),
            b(self.bud_mem_write.val()),
            hex_field(self.bud_mem_address.val().to_u64(), 64),
            hex_field(self.bud_mem_sectors.val().to_u64(), 3),
            words(&self.bud_mem_data.val().to_words()),
            hex_bits(&self.bud_mem_strobe.val()),
            hex_field(self.bud_mem_tag.val().to_u64(), MEM_TAG_BITS),
            b(self.bud_mem_resp_ready.val()),
            hex_field(self.in_flight.val().to_u64(), 8),
            b(self.md_lookup_valid.val()),
            hex_field(self.md_lookup_id.val().to_u64(), 7),
            hex_field(self.md_lookup_outcome.val().to_u64(), 2),
        ]
        .concat()
    }
}
    };
}

pipelined_controller!(
    /// The pipelined slice with BPC.
    PipelinedController,
    BpcCompressor,
    BpcDecompressor
);

pipelined_controller!(
    /// The pipelined slice with ZVC.
    PipelinedControllerZvc,
    ZvcCompressor,
    ZvcDecompressor
);

pipelined_controller!(
    /// The pipelined slice with MAG-BDI (`Default`: MAG 32, as delivered).
    PipelinedControllerMagBdi,
    MagBdiCompressor,
    MagBdiDecompressor
);

impl PipelinedControllerMagBdi {
    /// The slice with MAG-BDI at `mag`.
    pub fn new(mag: Mag) -> Self {
        PipelinedControllerMagBdi { comp: MagBdiCompressor::new(mag), decomp: MagBdiDecompressor::new(mag), ..Default::default() }
    }
}
