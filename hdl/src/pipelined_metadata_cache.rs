//! The non-blocking metadata cache of the pipelined controller slice:
//! one lookup per cycle, hits under misses, up to [`MISS_SLOTS`] sector
//! fills and lookups parked behind them outstanding.

use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Miss registers: sector fills outstanding plus lookups parked behind
/// them (a lookup whose sector's fill is outstanding waits in one).
pub const MISS_SLOTS: usize = 32;

/// Sector fills that may be outstanding at once (of the [`MISS_SLOTS`]
/// miss registers, the others hold parked lookups): the memory side
/// (`crate::memory_port`) puts fills back in order with this many
/// registers.
pub const FILL_SLOTS: usize = 16;

// The kernel writes these as literals (rust-hdl would print the constants'
// names into the Verilog): 32 slots (`for m in 0..32`, a 5-bit ring index
// in 6-bit pointers) and 16 fills (bit 4 of the fills outstanding).
// Sized with the cycle model on the shared traces (docs/controller.md,
// "Where the pipelined slice's cycles go"): hpgmg's bursts of line misses
// keep 16 fills of about 100-130 cycles each in flight; 32 fills gained
// under 2% more, 64 miss registers under 1%.
const _: () = assert!(MISS_SLOTS == 32 && FILL_SLOTS == 16);

/// Victim-buffer entries: a line miss whose victim is held (pinned by a
/// reservation, or with a write's fill or parked write outstanding) moves
/// it into an entry, a copy of its sectors with its pins and miss
/// registers, instead of waiting; the entry is written back once its
/// commits and fills are in (`docs/controller.md`, "The victim buffer").
/// Sized with the cycle model on the shared traces (see there).
pub const VICTIM_ENTRIES: usize = 4;
// The kernel writes 4 entries as literals (`for g in 0..4`, 2-bit indices).
const _: () = assert!(VICTIM_ENTRIES == 4);

/// Width of `resp_word` and `commit_word`: the line's generation bit
/// (bit 7, flipped as the line moves to the victim buffer) above the
/// data-array word `{set, way, sector}` (7 bits).
pub const WORD_BITS: usize = 8;

/// Width of the `misses` status port (0..=[`MISS_SLOTS`]).
pub const MISS_COUNT_BITS: usize = 6;

/// Width of `req_tag`, `commit_tag` and `resp_tag`: the pipelined slice's
/// context id (7 bits: 128 contexts, `docs/controller.md`, "Sizing") and
/// two bits of the request's kind, returned with its answer so that the
/// slice needs no lookup to route it.
pub const TAG_BITS: usize = 9;
const _: () = assert!(TAG_BITS == crate::request_contexts::CONTEXT_BITS + 2);

/// [`PipelinedMetadataCache`] timing, clock cycles.
pub mod timing {
    /// A request accepted at cycle `a` that hits a valid sector raises
    /// `resp_valid` at `a + HIT_CYCLES` (lookup, data read).
    pub const HIT_CYCLES: u64 = 2;
    /// A request accepted at `a` that misses (and has no dirty victim to
    /// write back) offers its fill on `mem_req` at `a + FILL_REQUEST_CYCLES`.
    pub const FILL_REQUEST_CYCLES: u64 = 2;
    /// A fill taken at `f` (`mem_fill_valid` and `mem_fill_ready`) raises
    /// the missing request's `resp_valid` at `f + AFTER_FILL_CYCLES`.
    pub const AFTER_FILL_CYCLES: u64 = 1;
}

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum EvictState {
    Idle,
    /// Finds the next sector to write back or copy and reads it from the data array.
    Read,
    /// Loads the sector read into the memory-side request register (or
    /// writes it into a victim-buffer entry's copy).
    Load,
}

/// The metadata cache of one pipelined memory-controller slice
/// (docs/formats.md#metadata-cache; Buddy Compression Sec. III, Fig. 6b), with the
/// geometry and replacement of [`crate::MetadataCache`] and of
/// `buddy_golden::metadata_cache::MetadataCache` (4 KiB, 4 ways x 8 sets
/// of 128-byte lines, four 32-byte sectors per line with a valid and a
/// dirty bit each, true LRU, write-back, write-allocate), but
/// non-blocking.
///
/// Requests are looked up in the order they are accepted, one per cycle,
/// and the tags, LRU and valid/dirty bits change at lookup exactly as the
/// golden model's do for that request; so the sequence of lookups, their
/// outcomes and the fills are the golden model's (write-backs of lines
/// moved to the victim buffer leave later, below). Data
/// comes later for a miss: the missing sector is marked valid at lookup,
/// its fill is parked in one of [`MISS_SLOTS`] miss registers, and later
/// requests go on (hits under misses). A later lookup of a sector whose
/// fill is outstanding (a hit in the golden model) parks in a miss
/// register behind it and is answered from the array once it reaches the
/// head of the ring, that is after the fill (secondary misses do not hold
/// the lookups behind them). Responses carry the request's tag and leave
/// when their data is there, so a hit may answer before an earlier miss
/// (out of order); requests to one sector word are answered in order.
///
/// A lookup waits (stays in the lookup register, `req_ready` low) when:
/// the line it would evict is held (below) and cannot move to the victim
/// buffer; a line miss's line is in the victim buffer; the
/// previous request writes the same sector word this cycle; every miss
/// register is in use; the memory-side request register is busy or
/// [`FILL_SLOTS`] fills are outstanding (a miss);
/// or a fill or parked lookup has waited a cycle for the data array. A line miss
/// with a dirty victim writes the victim's dirty sectors back (sector
/// order, two cycles each) before its fill. A flush waits for every
/// outstanding fill, then writes back every dirty sector in set, way,
/// sector order and invalidates every line (tags kept).
///
/// A reservation is the lookup of a write whose value comes later (the
/// slice's compressor chooses the class): at lookup it changes the state
/// as the golden model's `write_nibble` does (allocation, fill, LRU, dirty
/// bit) and answers the old nibble and `resp_word`; the line is then
/// pinned until the commit writes the value (on its own port, before
/// lookups' hits); a flush waits while any line is pinned. So a
/// reservation plus its commit leave the golden model's state and the
/// memory golden leaves. The requester keeps other requests to a reserved
/// nibble out until the commit has answered.
///
/// The victim buffer ([`VICTIM_ENTRIES`] entries, `docs/controller.md`,
/// "The victim buffer"). A line is held while it is pinned or has a
/// write's fill or parked write outstanding (a read's fill or parked read
/// does not hold it). A line miss whose victim is held moves the victim
/// into a free entry instead of waiting (unless an entry holds that way's
/// line already): the line's four sectors are copied into the entry's
/// array words (two cycles each, fills waiting meanwhile), and its miss
/// registers and pins go with it; the line's generation bit flips, so a
/// commit whose `commit_word[7]` is the old generation writes the entry's
/// copy. An entry whose reservations are all committed and whose fills
/// are in is written back (before a lookup's victim), sector by sector;
/// a line miss of a line in an entry waits until then, so that its fill
/// reads what the entry wrote back. A flush waits for an empty buffer.
///
/// Fills must come back in the order they were requested (the memory
/// side is a FIFO). `req_ready` depends combinationally on `resp_ready`
/// and `mem_req_ready`, and `mem_fill_ready` on `resp_ready`; none of the
/// outputs depends on `req_valid` or `mem_fill_valid`.
///
/// Storage: tags, valid/dirty bits and LRU ranks in flip-flops (32 x 63
/// bits: `[53:0]` tag = address bits `{[63:13], [7:5]}` (set `[12:10] ^
/// [15:13]`, sector `[9:8]`: `metadata_cache::SLICES`), `[54]` valid, `[58:55]`
/// sector valid, `[62:59]` sector dirty; 8 x 8 bits of LRU ranks, way
/// `w`'s at `[2w+1:2w]`, 3 = least recently used), data in one `RAM` of
/// 256 x 256 bits, the lines at `{0, set, way, sector}`, victim-buffer
/// entry `g`'s copies at `{1, 000, g, sector}` (byte `i` at `[8i+7:8i]`;
/// low nibble of a byte = even entry).
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (one cycle: every line invalid) |
/// | `req_valid`, `req_ready` | 1, 1 | in, out | request handshake |
/// | `req_write` | 1 | in | 0: read the nibble, 1: write `req_value` |
/// | `req_flush` | 1 | in | write back every dirty sector, invalidate every line |
/// | `req_address`, `req_high` | 64, 1 | in | metadata byte address; 1 = high nibble (odd entry) |
/// | `req_value` | 4 | in | nibble to write |
/// | `req_tag` | 9 | in | the requester's tag, returned with the response |
/// | `req_reserve` | 1 | in | with `req_write` 0: read the nibble and reserve it for a later commit (see below) |
/// | `commit_valid`, `commit_ready` | 1, 1 | in, out | a reserved nibble's value; `commit_ready` does not depend on `commit_valid` |
/// | `commit_word` | 8 | in | the word `{generation, set, way, sector}` the reservation answered (`resp_word`) |
/// | `commit_offset`, `commit_high` | 5, 1 | in | byte in the sector (address bits `[4:0]`) and nibble |
/// | `commit_value`, `commit_tag` | 4, 9 | in | the nibble to write; the tag its response carries |
/// | `resp_valid`, `resp_ready` | 1, 1 | out, in | response handshake, one per request |
/// | `resp_tag` | 9 | out | the request's `req_tag` |
/// | `resp_nibble` | 4 | out | the nibble read (a write: the value written; a flush: 0) |
/// | `resp_outcome` | 2 | out | a [`crate::metadata_cache::outcome`] code (0 for a flush and a commit) |
/// | `resp_commit` | 1 | out | the response answers a commit (`commit_*`), a flip-flop |
/// | `resp_word` | 8 | out | the word `{generation, set, way, sector}` of the request's nibble (reads, writes, reservations): the line's generation bit, then its data-array word |
/// | `mem_req_valid`, `mem_req_ready` | 1, 1 | out, in | memory-side request: a sector fill or write-back |
/// | `mem_req_write` | 1 | out | 1: write-back of `mem_req_data`, 0: fill (answered on `mem_fill_*`, in order) |
/// | `mem_req_address` | 64 | out | sector-aligned byte address |
/// | `mem_req_data` | 256 | out | the dirty sector (write-backs) |
/// | `mem_fill_valid`, `mem_fill_ready` | 1, 1 | in, out | the oldest outstanding fill's sector |
/// | `mem_fill_data` | 256 | in | sector contents, byte `i` at `[8i+7:8i]` |
/// | `misses` | 5 | out | miss registers in use: fills outstanding and lookups parked (status) |
///
/// Timing in [`timing`]: a hit answers 2 cycles after it is accepted and
/// the next request can be accepted every cycle.
///
/// Depth: a request's tag is compared with its set's four ways as it is
/// taken (into `s1_tag_eq`, corrected for the line the lookup before it
/// replaces that cycle); the lookup decides every way in parallel and
/// selects by one-hot (hit, victim, LRU, pending fills), writes each tag
/// word from its own value, and counts misses, fills and reservations
/// with up-counters under their own enables. So no path between
/// flip-flops is longer than 8 LUT levels (`verilog-out/synth/report.md`)
/// at the same timing.
#[derive(SettleBlock, Default)]
pub struct PipelinedMetadataCache {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub req_valid: Signal<In, Bit>,
    pub req_write: Signal<In, Bit>,
    pub req_flush: Signal<In, Bit>,
    pub req_address: Signal<In, Bits<64>>,
    pub req_high: Signal<In, Bit>,
    pub req_value: Signal<In, Bits<4>>,
    pub req_tag: Signal<In, Bits<TAG_BITS>>,
    pub req_reserve: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub commit_valid: Signal<In, Bit>,
    pub commit_ready: Signal<Out, Bit>,
    pub commit_word: Signal<In, Bits<WORD_BITS>>,
    pub commit_offset: Signal<In, Bits<5>>,
    pub commit_high: Signal<In, Bit>,
    pub commit_value: Signal<In, Bits<4>>,
    pub commit_tag: Signal<In, Bits<TAG_BITS>>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_tag: Signal<Out, Bits<TAG_BITS>>,
    pub resp_nibble: Signal<Out, Bits<4>>,
    pub resp_outcome: Signal<Out, Bits<2>>,
    pub resp_commit: Signal<Out, Bit>,
    pub resp_word: Signal<Out, Bits<WORD_BITS>>,
    pub resp_ready: Signal<In, Bit>,
    pub mem_req_valid: Signal<Out, Bit>,
    pub mem_req_write: Signal<Out, Bit>,
    pub mem_req_address: Signal<Out, Bits<64>>,
    pub mem_req_data: Signal<Out, Bits<256>>,
    pub mem_req_ready: Signal<In, Bit>,
    pub mem_fill_valid: Signal<In, Bit>,
    pub mem_fill_data: Signal<In, Bits<256>>,
    pub mem_fill_ready: Signal<Out, Bit>,
    pub misses: Signal<Out, Bits<MISS_COUNT_BITS>>,
    /// Words `{0, set, way, sector}`: the lines; `{1, 000, g, sector}`:
    /// victim-buffer entry `g`'s copies of its dirty sectors.
    data: RAM<Bits<256>, 8>,
    /// Per line, flipped as it moves to the victim buffer; a reservation's
    /// answer carries it in `resp_word[7]`, its commit in `commit_word[7]`.
    gen: [DFF<Bit>; 32],
    // Victim-buffer entries: valid once the copy is done, the home line
    // `{set, way}`, its tag and dirty sectors, the generation its
    // reservations were answered with, reservations and commits.
    vb_valid: [DFF<Bit>; 4],
    vb_line: [DFF<Bits<5>>; 4],
    vb_tag: [DFF<Bits<54>>; 4],
    vb_dirty: [DFF<Bits<4>>; 4],
    vb_gen: [DFF<Bit>; 4],
    vb_reserves: [DFF<Bits<8>>; 4],
    vb_commits: [DFF<Bits<8>>; 4],
    /// The lookup's line was in entry `g` when it was taken.
    s1_vb_eq: [DFF<Bit>; 4],
    /// Tag words, line `{set, way}`.
    lines: [DFF<Bits<63>>; 32],
    lru: [DFF<Bits<8>>; 8],
    /// Reservations and commits per line, mod 256: a line with a
    /// reservation not yet committed (the two differ) is pinned, no victim.
    /// Two up-counters rather than one up/down one, so that each adds one
    /// under its own enable and no adder waits for the lookup's outcome.
    reserves: [DFF<Bits<8>>; 32],
    commits: [DFF<Bits<8>>; 32],
    // The lookup register.
    s1_valid: DFF<Bit>,
    s1_write: DFF<Bit>,
    s1_flush: DFF<Bit>,
    s1_address: DFF<Bits<64>>,
    s1_high: DFF<Bit>,
    s1_value: DFF<Bits<4>>,
    s1_tag: DFF<Bits<TAG_BITS>>,
    s1_reserve: DFF<Bit>,
    /// The lookup's tag equals way `W`'s tag in its set: compared as the
    /// request is taken (with the line a line miss of the lookup before
    /// writes that cycle), so that the lookup starts from the result.
    s1_tag_eq: [DFF<Bit>; 4],
    /// The lookup's dirty victim has been written back.
    evicted: DFF<Bit>,
    // Miss registers: a ring of MISS_SLOTS from `m_head`; a slot holds a
    // fill's request (`m_parked` 0) or a lookup parked behind an earlier
    // slot's fill of its sector (`m_parked` 1: no fill of its own, it
    // reads the array when it reaches the head).
    // Head and tail pointers mod 32 (slot = low 4 bits), and fills asked
    // for and taken mod 8: each counts up under its own enable, so no adder
    // waits for the cycle's outcome; the counts are their differences.
    m_head: DFF<Bits<6>>,
    m_tail: DFF<Bits<6>>,
    m_count: Signal<Local, Bits<MISS_COUNT_BITS>>,
    fills_asked: DFF<Bits<5>>,
    fills_taken: DFF<Bits<5>>,
    /// Fills outstanding (at most [`FILL_SLOTS`]).
    occupied: Signal<Local, Bit>,
    fill_borrow: Signal<Local, Bit>,
    m_used: [DFF<Bit>; MISS_SLOTS],
    m_parked: [DFF<Bit>; MISS_SLOTS],
    m_word: [DFF<Bits<7>>; MISS_SLOTS],
    m_write: [DFF<Bit>; MISS_SLOTS],
    m_high: [DFF<Bit>; MISS_SLOTS],
    m_offset: [DFF<Bits<5>>; MISS_SLOTS],
    m_value: [DFF<Bits<4>>; MISS_SLOTS],
    m_tag: [DFF<Bits<TAG_BITS>>; MISS_SLOTS],
    m_outcome: [DFF<Bits<2>>; MISS_SLOTS],
    /// The line's generation at lookup (the answer's `resp_word[7]`).
    m_gen: [DFF<Bit>; MISS_SLOTS],
    /// The slot's line has moved to entry `m_g`: the fill writes, and a
    /// parked lookup reads, the entry's copy of the sector.
    m_vb: [DFF<Bit>; MISS_SLOTS],
    m_g: [DFF<Bits<2>>; MISS_SLOTS],
    /// A fill was offered and not taken last cycle: it goes before the next hit.
    fill_waiting: DFF<Bit>,
    // The response register (a hit's data arrives from the array here).
    s2_valid: DFF<Bit>,
    /// The nibble is in `s2_nibble` (a fill's or a flush's), not in the array.
    s2_fill: DFF<Bit>,
    s2_write: DFF<Bit>,
    s2_high: DFF<Bit>,
    s2_offset: DFF<Bits<5>>,
    s2_value: DFF<Bits<4>>,
    s2_tag: DFF<Bits<TAG_BITS>>,
    s2_outcome: DFF<Bits<2>>,
    s2_word: DFF<Bits<7>>,
    /// The response register holds a commit's answer.
    s2_commit: DFF<Bit>,
    /// Its array word is entry `s2_g`'s copy of `s2_word`'s sector.
    s2_vb: DFF<Bit>,
    s2_g: DFF<Bits<2>>,
    s2_gen: DFF<Bit>,
    s2_nibble: DFF<Bits<4>>,
    // The memory-side request register.
    mq_valid: DFF<Bit>,
    mq_write: DFF<Bit>,
    mq_address: DFF<Bits<64>>,
    mq_data: DFF<Bits<256>>,
    // Write-back of a victim, or of every line (flush).
    ev_state: DFF<EvictState>,
    ev_flush: DFF<Bit>,
    ev_line: DFF<Bits<5>>,
    /// `ev_line + 1` during a flush, kept in a register so that the next
    /// line's word is read without an adder before the 32-way select.
    ev_next: DFF<Bits<5>>,
    ev_tag: DFF<Bits<54>>,
    ev_dirty: DFF<Bits<4>>,
    ev_sector: DFF<Bits<2>>,
    /// The machine moves a held victim into entry `ev_g` / writes entry `ev_g` back.
    ev_move: DFF<Bit>,
    ev_drain: DFF<Bit>,
    ev_g: DFF<Bits<2>>,
    set_gen: [Signal<Local, Bit>; 4],
    served_gen: Signal<Local, Bit>,
    commit_hit_vb: [Signal<Local, Bit>; 4],
    commit_vb: Signal<Local, Bit>,
    commit_g: Signal<Local, Bits<2>>,
    /// A valid entry holds line `{s1_set, W}`.
    vb_on_way: [Signal<Local, Bit>; 4],
    /// Way `W`, as the victim, would wait: held, and no entry for it.
    stuck_way: [Signal<Local, Bit>; 4],
    victim_held: Signal<Local, Bit>,
    vb_free: Signal<Local, Bit>,
    free_g: Signal<Local, Bits<2>>,
    move_ok: Signal<Local, Bit>,
    vb_block: Signal<Local, Bit>,
    vb_slots: [Signal<Local, Bit>; 4],
    drained: [Signal<Local, Bit>; 4],
    drain_go: Signal<Local, Bit>,
    drain_g: Signal<Local, Bits<2>>,
    any_vb: Signal<Local, Bit>,
    move_done: Signal<Local, Bit>,
    ev_reserves: Signal<Local, Bits<8>>,
    ev_commits: Signal<Local, Bits<8>>,
    head_gen: Signal<Local, Bit>,
    head_vb: Signal<Local, Bit>,
    head_g: Signal<Local, Bits<2>>,
    head_address: Signal<Local, Bits<8>>,
    s2_address: Signal<Local, Bits<8>>,
    set_words: [Signal<Local, Bits<63>>; 4],
    req_set: Signal<Local, Bits<3>>,
    req_line_tag: Signal<Local, Bits<54>>,
    req_words: [Signal<Local, Bits<54>>; 4],
    req_same_set: Signal<Local, Bit>,
    req_s1_eq: Signal<Local, Bit>,
    set_lru: Signal<Local, Bits<8>>,
    hit: [Signal<Local, Bit>; 4],
    rank: [Signal<Local, Bits<2>>; 4],
    key: [Signal<Local, Bits<3>>; 4],
    s1_set: Signal<Local, Bits<3>>,
    commit_line: Signal<Local, Bits<5>>,
    s1_sector: Signal<Local, Bits<2>>,
    s1_line_tag: Signal<Local, Bits<54>>,
    sector_bit: Signal<Local, Bits<4>>,
    any_hit: Signal<Local, Bit>,
    hit_way: Signal<Local, Bits<2>>,
    victim_way: Signal<Local, Bits<2>>,
    /// The victim way, one-hot: the last way of the largest key.
    victim_hot: [Signal<Local, Bit>; 4],
    /// The served way, one-hot: the hit way, else the victim.
    served_hot: [Signal<Local, Bit>; 4],
    /// The set's LRU ranks if way `W` is served.
    lru_if: [Signal<Local, Bits<8>>; 4],
    /// Way `W`'s new ranks if way `V` is served, at `V * 4 + W`.
    rank_if: [Signal<Local, Bits<2>>; 16],
    lru_term: [Signal<Local, Bits<8>>; 4],
    hit_term: [Signal<Local, Bits<4>>; 4],
    victim_term: [Signal<Local, Bits<63>>; 4],
    /// The sector word `{set, W, sector}` of the lookup in way `W`.
    way_word: [Signal<Local, Bits<7>>; 4],
    /// A miss register holds way `W`'s sector word / a word of way `W`'s line.
    pend_way: [Signal<Local, Bit>; 4],
    line_pend_way: [Signal<Local, Bit>; 4],
    /// The response register holds way `W`'s sector word.
    s2_way: [Signal<Local, Bit>; 4],
    s2_on_hit: Signal<Local, Bit>,
    victim_word: Signal<Local, Bits<63>>,
    victim_dirty: Signal<Local, Bits<4>>,
    set_pinned: [Signal<Local, Bit>; 4],
    victim_pinned: Signal<Local, Bit>,
    any_pinned: Signal<Local, Bit>,
    dirty_op: Signal<Local, Bit>,
    dirty_bits: Signal<Local, Bits<63>>,
    commit_go: Signal<Local, Bit>,
    commit_pend: Signal<Local, Bit>,
    served_line: Signal<Local, Bits<5>>,
    reserve_go: Signal<Local, Bit>,
    /// The hit line's sector valid bits.
    hit_valid: Signal<Local, Bits<4>>,
    served_way: Signal<Local, Bits<2>>,
    new_lru: Signal<Local, Bits<8>>,
    hit_address: Signal<Local, Bits<7>>,
    pend_sector: Signal<Local, Bit>,
    pend_line: Signal<Local, Bit>,
    s2_free: Signal<Local, Bit>,
    s2_hit_write: Signal<Local, Bit>,
    mq_free: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    fill_room: Signal<Local, Bit>,
    lookup: Signal<Local, Bit>,
    hit_go: Signal<Local, Bit>,
    sector_miss_go: Signal<Local, Bit>,
    line_miss_go: Signal<Local, Bit>,
    flush_done: Signal<Local, Bit>,
    s1_done: Signal<Local, Bit>,
    fill_take: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    park_go: Signal<Local, Bit>,
    slot_push: Signal<Local, Bit>,
    head_parked: Signal<Local, Bit>,
    parked_go: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    push_slot: Signal<Local, Bits<5>>,
    new_word: Signal<Local, Bits<63>>,
    hit_update: Signal<Local, Bit>,
    valid_bits: Signal<Local, Bits<63>>,
    miss_word: Signal<Local, Bits<63>>,
    word_we: Signal<Local, Bit>,
    word_line: Signal<Local, Bits<5>>,
    head_word: Signal<Local, Bits<7>>,
    head_write: Signal<Local, Bit>,
    head_high: Signal<Local, Bit>,
    head_offset: Signal<Local, Bits<5>>,
    head_value: Signal<Local, Bits<4>>,
    head_tag: Signal<Local, Bits<TAG_BITS>>,
    head_outcome: Signal<Local, Bits<2>>,
    fill_shift: Signal<Local, Bits<8>>,
    fill_shifted: Signal<Local, Bits<256>>,
    fill_merged: Signal<Local, Bits<256>>,
    s2_shift: Signal<Local, Bits<8>>,
    s2_shifted: Signal<Local, Bits<256>>,
    s2_merged: Signal<Local, Bits<256>>,
    ev_low: Signal<Local, Bits<2>>,
    next_line: Signal<Local, Bits<5>>,
    next_word: Signal<Local, Bits<63>>,
}

seq_macro::seq!(W in 0..4 {
impl Logic for PipelinedMetadataCache {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s1_valid, s1_write, s1_flush, s1_address, s1_high, s1_value, s1_tag, s1_reserve, evicted, m_head, m_tail, fills_asked, fills_taken,
            fill_waiting, s2_valid, s2_fill, s2_write, s2_high, s2_offset, s2_value, s2_tag, s2_outcome, s2_word, s2_commit,
            s2_nibble, mq_valid, mq_write, mq_address, mq_data, ev_state, ev_flush, ev_line, ev_next, ev_tag, ev_dirty, ev_sector, s2_vb, s2_g, s2_gen,
            ev_move, ev_drain, ev_g
        );
        for l in 0..32 {
            self.gen[l].clock.next = self.clock.val();
            self.gen[l].d.next = self.gen[l].q.val();
        }
        for g in 0..4 {
            self.vb_valid[g].clock.next = self.clock.val();
            self.vb_valid[g].d.next = self.vb_valid[g].q.val();
            self.vb_line[g].clock.next = self.clock.val();
            self.vb_line[g].d.next = self.vb_line[g].q.val();
            self.vb_tag[g].clock.next = self.clock.val();
            self.vb_tag[g].d.next = self.vb_tag[g].q.val();
            self.vb_dirty[g].clock.next = self.clock.val();
            self.vb_dirty[g].d.next = self.vb_dirty[g].q.val();
            self.vb_gen[g].clock.next = self.clock.val();
            self.vb_gen[g].d.next = self.vb_gen[g].q.val();
            self.vb_reserves[g].clock.next = self.clock.val();
            self.vb_reserves[g].d.next = self.vb_reserves[g].q.val();
            self.vb_commits[g].clock.next = self.clock.val();
            self.vb_commits[g].d.next = self.vb_commits[g].q.val();
            self.s1_vb_eq[g].clock.next = self.clock.val();
            self.s1_vb_eq[g].d.next = self.s1_vb_eq[g].q.val();
        }
        for l in 0..32 {
            self.lines[l].clock.next = self.clock.val();
            self.lines[l].d.next = self.lines[l].q.val();
        }
        self.any_pinned.next = false;
        for l in 0..32 {
            self.reserves[l].clock.next = self.clock.val();
            self.reserves[l].d.next = self.reserves[l].q.val();
            self.commits[l].clock.next = self.clock.val();
            self.commits[l].d.next = self.commits[l].q.val();
            if self.reserves[l].q.val() != self.commits[l].q.val() {
                self.any_pinned.next = true;
            }
        }
        #(
            self.s1_tag_eq[W].clock.next = self.clock.val();
            self.s1_tag_eq[W].d.next = self.s1_tag_eq[W].q.val();
        )*
        for s in 0..8 {
            self.lru[s].clock.next = self.clock.val();
            self.lru[s].d.next = self.lru[s].q.val();
        }
        for m in 0..32 {
            self.m_used[m].clock.next = self.clock.val();
            self.m_used[m].d.next = self.m_used[m].q.val();
            self.m_parked[m].clock.next = self.clock.val();
            self.m_parked[m].d.next = self.m_parked[m].q.val();
            self.m_word[m].clock.next = self.clock.val();
            self.m_word[m].d.next = self.m_word[m].q.val();
            self.m_write[m].clock.next = self.clock.val();
            self.m_write[m].d.next = self.m_write[m].q.val();
            self.m_high[m].clock.next = self.clock.val();
            self.m_high[m].d.next = self.m_high[m].q.val();
            self.m_offset[m].clock.next = self.clock.val();
            self.m_offset[m].d.next = self.m_offset[m].q.val();
            self.m_value[m].clock.next = self.clock.val();
            self.m_value[m].d.next = self.m_value[m].q.val();
            self.m_tag[m].clock.next = self.clock.val();
            self.m_tag[m].d.next = self.m_tag[m].q.val();
            self.m_outcome[m].clock.next = self.clock.val();
            self.m_outcome[m].d.next = self.m_outcome[m].q.val();
            self.m_gen[m].clock.next = self.clock.val();
            self.m_gen[m].d.next = self.m_gen[m].q.val();
            self.m_vb[m].clock.next = self.clock.val();
            self.m_vb[m].d.next = self.m_vb[m].q.val();
            self.m_g[m].clock.next = self.clock.val();
            self.m_g[m].d.next = self.m_g[m].q.val();
        }
        self.data.read_clock.next = self.clock.val();
        self.data.write_clock.next = self.clock.val();
        // The response register's array word: a line's, or an entry's copy.
        self.s2_address.next = bit_cast::<8, 7>(self.s2_word.q.val());
        if self.s2_vb.q.val() {
            self.s2_address.next = bits::<8>(0x80) | (bit_cast::<8, 2>(self.s2_g.q.val()) << 2) | bit_cast::<8, 2>(self.s2_word.q.val().get_bits::<2>(0));
        }
        self.data.write_enable.next = false;
        self.data.write_address.next = self.s2_address.val();
        self.data.write_data.next = 0.into();
        self.data.read_address.next = self.s2_address.val();

        // The lookup: the set's four ways, hit, victim (an invalid way
        // first, else the least recently used; among invalid ways the
        // oldest, as the golden model's `min_by_key((valid, last_use))`).
        self.s1_set.next = self.s1_address.q.val().get_bits::<3>(10) ^ self.s1_address.q.val().get_bits::<3>(13);
        self.s1_sector.next = self.s1_address.q.val().get_bits::<2>(8);
        self.s1_line_tag.next = (bit_cast::<54, 51>(self.s1_address.q.val().get_bits::<51>(13)) << 3) | bit_cast::<54, 3>(self.s1_address.q.val().get_bits::<3>(5));
        self.sector_bit.next = bits::<4>(1) << self.s1_sector.val();
        self.set_lru.next = 0.into();
        #(
            self.set_words[W].next = 0.into();
            self.set_pinned[W].next = false;
            self.set_gen[W].next = false;
        )*
        for s in 0..8 {
            if self.s1_set.val().index() == s {
                self.set_lru.next = self.lru[s].q.val();
                #(
                    self.set_gen[W].next = self.gen[s * 4 + W].q.val();
                    self.set_words[W].next = self.lines[s * 4 + W].q.val();
                    self.set_pinned[W].next = self.reserves[s * 4 + W].q.val() != self.commits[s * 4 + W].q.val();
                )*
            }
        }
        // Every way is decided in parallel and selected by a one-hot (the
        // tags of a set's valid lines differ, so at most one way hits):
        // no path goes from the tag compare through a way number.
        #(
            self.rank[W].next = self.set_lru.val().get_bits::<2>(2 * W);
            self.hit[W].next = self.set_words[W].val().get_bit(54) & self.s1_tag_eq[W].q.val();
            // Key {invalid, rank}: unique, since the ranks are a permutation.
            self.key[W].next = bit_cast::<3, 2>(self.rank[W].val());
            if !self.set_words[W].val().get_bit(54) {
                self.key[W].next = bit_cast::<3, 2>(self.rank[W].val()) + 4;
            }
        )*
        self.any_hit.next = self.hit[0].val() | self.hit[1].val() | self.hit[2].val() | self.hit[3].val();
        // The victim: an invalid way first, else the least recently used;
        // among invalid ways the oldest, as the golden model's
        // `min_by_key((valid, last_use))`; the last of equal keys.
        self.victim_hot[0].next = (self.key[0].val() > self.key[1].val()) & (self.key[0].val() > self.key[2].val()) & (self.key[0].val() > self.key[3].val());
        self.victim_hot[1].next = (self.key[1].val() >= self.key[0].val()) & (self.key[1].val() > self.key[2].val()) & (self.key[1].val() > self.key[3].val());
        self.victim_hot[2].next = (self.key[2].val() >= self.key[0].val()) & (self.key[2].val() >= self.key[1].val()) & (self.key[2].val() > self.key[3].val());
        self.victim_hot[3].next = (self.key[3].val() >= self.key[0].val()) & (self.key[3].val() >= self.key[1].val()) & (self.key[3].val() >= self.key[2].val());
        self.hit_way.next = 0.into();
        self.victim_way.next = 0.into();
        #(
            if self.hit[W].val() {
                self.hit_way.next = W.into();
            }
            if self.victim_hot[W].val() {
                self.victim_way.next = W.into();
            }
        )*
        // LRU: the served way becomes the most recent; the ways more
        // recent than it age by one.
        #(
            self.served_hot[W].next = self.victim_hot[W].val();
            if self.any_hit.val() {
                self.served_hot[W].next = self.hit[W].val();
            }
            for v in 0..4 {
                self.rank_if[W * 4 + v].next = 0.into();
                if self.rank[v].val() < self.rank[W].val() {
                    self.rank_if[W * 4 + v].next = self.rank[v].val() + 1;
                }
                if self.rank[v].val() > self.rank[W].val() {
                    self.rank_if[W * 4 + v].next = self.rank[v].val();
                }
            }
            self.lru_if[W].next = (bit_cast::<8, 2>(self.rank_if[W * 4 + 3].val()) << 6)
                | (bit_cast::<8, 2>(self.rank_if[W * 4 + 2].val()) << 4)
                | (bit_cast::<8, 2>(self.rank_if[W * 4 + 1].val()) << 2)
                | bit_cast::<8, 2>(self.rank_if[W * 4].val());
            self.lru_term[W].next = 0.into();
            if self.served_hot[W].val() {
                self.lru_term[W].next = self.lru_if[W].val();
            }
            self.hit_term[W].next = 0.into();
            if self.hit[W].val() {
                self.hit_term[W].next = self.set_words[W].val().get_bits::<4>(55);
            }
            self.victim_term[W].next = 0.into();
            if self.victim_hot[W].val() {
                self.victim_term[W].next = self.set_words[W].val();
            }
        )*
        self.new_lru.next = self.lru_term[0].val() | self.lru_term[1].val() | self.lru_term[2].val() | self.lru_term[3].val();
        self.served_gen.next = (self.served_hot[0].val() & self.set_gen[0].val())
            | (self.served_hot[1].val() & self.set_gen[1].val())
            | (self.served_hot[2].val() & self.set_gen[2].val())
            | (self.served_hot[3].val() & self.set_gen[3].val());
        self.hit_valid.next = self.hit_term[0].val() | self.hit_term[1].val() | self.hit_term[2].val() | self.hit_term[3].val();
        self.victim_word.next = self.victim_term[0].val() | self.victim_term[1].val() | self.victim_term[2].val() | self.victim_term[3].val();
        self.victim_pinned.next = (self.victim_hot[0].val() & self.set_pinned[0].val())
            | (self.victim_hot[1].val() & self.set_pinned[1].val())
            | (self.victim_hot[2].val() & self.set_pinned[2].val())
            | (self.victim_hot[3].val() & self.set_pinned[3].val());
        self.victim_dirty.next = 0.into();
        if self.victim_word.val().get_bit(54) {
            self.victim_dirty.next = self.victim_word.val().get_bits::<4>(59);
        }
        self.served_way.next = self.victim_way.val();
        if self.any_hit.val() {
            self.served_way.next = self.hit_way.val();
        }
        self.hit_address.next = (bit_cast::<7, 3>(self.s1_set.val()) << 4)
            | (bit_cast::<7, 2>(self.hit_way.val()) << 2)
            | bit_cast::<7, 2>(self.s1_sector.val());

        // Miss registers: which slots hold a fill, whether the lookup's
        // sector or its victim line has one outstanding, the oldest slot.
        #(
            self.way_word[W].next = (bit_cast::<7, 3>(self.s1_set.val()) << 4) | (bits::<7>(W) << 2) | bit_cast::<7, 2>(self.s1_sector.val());
            self.pend_way[W].next = false;
            self.line_pend_way[W].next = false;
        )*
        self.commit_pend.next = false;
        for g in 0..4 {
            self.vb_slots[g].next = false;
        }
        self.head_gen.next = false;
        self.head_vb.next = false;
        self.head_g.next = 0.into();
        self.head_word.next = 0.into();
        self.head_write.next = false;
        self.head_high.next = false;
        self.head_offset.next = 0.into();
        self.head_value.next = 0.into();
        self.head_tag.next = 0.into();
        self.head_outcome.next = 0.into();
        self.head_parked.next = false;
        // A line's words (set and way; any sector, either half) compared
        // under a mask: rust-hdl simulates `get_bits` of even a narrow
        // vector through big integers.
        for m in 0..32 {
            #(
                if self.m_used[m].q.val() & !self.m_vb[m].q.val() & (self.m_word[m].q.val() == self.way_word[W].val()) {
                    self.pend_way[W].next = true;
                }
                // Only a write's slot holds its line: a read's fill or
                // parked read may outlive the line (below, at `pend_line`).
                if self.m_used[m].q.val()
                    & self.m_write[m].q.val()
                    & !self.m_vb[m].q.val()
                    & ((self.m_word[m].q.val() & bits::<7>(0x7C)) == (self.way_word[W].val() & bits::<7>(0x7C)))
                {
                    self.line_pend_way[W].next = true;
                }
            )*
            // A fill of the commit's word outstanding, for the line or the
            // entry the commit writes: the slot's generation is the
            // commit's (a line's slots have its generation; a move flips
            // it and takes them all, so an entry's slots have the entry's).
            if self.m_used[m].q.val()
                & (self.m_word[m].q.val() == self.commit_word.val().get_bits::<7>(0))
                & (self.m_gen[m].q.val() == self.commit_word.val().get_bit(7))
            {
                self.commit_pend.next = true;
            }
            for g in 0..4 {
                if self.m_used[m].q.val() & self.m_vb[m].q.val() & (self.m_g[m].q.val().index() == g) {
                    self.vb_slots[g].next = true;
                }
            }
            if self.m_head.q.val().get_bits::<5>(0).index() == m {
                self.head_word.next = self.m_word[m].q.val();
                self.head_write.next = self.m_write[m].q.val();
                self.head_high.next = self.m_high[m].q.val();
                self.head_offset.next = self.m_offset[m].q.val();
                self.head_value.next = self.m_value[m].q.val();
                self.head_tag.next = self.m_tag[m].q.val();
                self.head_outcome.next = self.m_outcome[m].q.val();
                self.head_parked.next = self.m_parked[m].q.val();
                self.head_gen.next = self.m_gen[m].q.val();
                self.head_vb.next = self.m_vb[m].q.val();
                self.head_g.next = self.m_g[m].q.val();
            }
        }
        // The hit's sector has a fill outstanding; the victim's line has a
        // reservation, or a write's fill or parked write. A read's fill or
        // parked read does not hold its line: the line may be evicted and
        // its way given to another tag while they wait. The fill still
        // writes its word (a sector of the new line that is invalid, or
        // the new line's sector whose own fill, later in the ring,
        // overwrites it), parked reads ahead of that later fill read the
        // old line's sector, and a sector with a fill outstanding is
        // clean unless a write's (which still holds its line), so nothing
        // of the old line is lost or written back stale.
        self.pend_sector.next = (self.hit[0].val() & self.pend_way[0].val())
            | (self.hit[1].val() & self.pend_way[1].val())
            | (self.hit[2].val() & self.pend_way[2].val())
            | (self.hit[3].val() & self.pend_way[3].val());
        self.victim_held.next = self.victim_pinned.val()
            | (self.victim_hot[0].val() & self.line_pend_way[0].val())
            | (self.victim_hot[1].val() & self.line_pend_way[1].val())
            | (self.victim_hot[2].val() & self.line_pend_way[2].val())
            | (self.victim_hot[3].val() & self.line_pend_way[3].val());
        // The victim buffer: a held victim moves to the lowest free entry
        // unless an entry holds its line already (then it waits, as all
        // held victims did before the buffer); a line miss of a line in an
        // entry waits until the entry is written back.
        self.any_vb.next = false;
        self.vb_free.next = false;
        self.free_g.next = 0.into();
        self.vb_block.next = false;
        #(
            self.vb_on_way[W].next = false;
        )*
        for g in 0..4 {
            #(
                if self.vb_valid[g].q.val() & (self.vb_line[g].q.val() == ((bit_cast::<5, 3>(self.s1_set.val()) << 2) | bits::<5>(W))) {
                    self.vb_on_way[W].next = true;
                }
            )*
            if self.vb_valid[g].q.val() {
                self.any_vb.next = true;
            }
            if self.s1_vb_eq[g].q.val() & self.vb_valid[g].q.val() {
                self.vb_block.next = true;
            }
        }
        #(
            if !self.vb_valid[3 - W].q.val() {
                self.vb_free.next = true;
                self.free_g.next = (3 - W).into();
            }
        )*
        // Per way from registers, then picked by the victim one-hot, so
        // that the buffer adds no level after the victim choice.
        #(
            self.stuck_way[W].next = (self.set_pinned[W].val() | self.line_pend_way[W].val()) & (self.vb_on_way[W].val() | !self.vb_free.val());
        )*
        self.pend_line.next = (self.victim_hot[0].val() & self.stuck_way[0].val())
            | (self.victim_hot[1].val() & self.stuck_way[1].val())
            | (self.victim_hot[2].val() & self.stuck_way[2].val())
            | (self.victim_hot[3].val() & self.stuck_way[3].val());
        self.move_ok.next = self.victim_held.val() & !self.pend_line.val();
        // An entry with every reservation committed and its fills in is
        // written back (lowest first) when the machine is free, before a
        // lookup's victim.
        self.drain_go.next = false;
        self.drain_g.next = 0.into();
        #(
            self.drained[3 - W].next =
                self.vb_valid[3 - W].q.val() & (self.vb_reserves[3 - W].q.val() == self.vb_commits[3 - W].q.val()) & !self.vb_slots[3 - W].val();
            if self.drained[3 - W].val() {
                self.drain_go.next = self.ev_state.q.val() == EvictState::Idle;
                self.drain_g.next = (3 - W).into();
            }
        )*
        // A commit of an entry's generation of its line writes the entry's copy.
        self.commit_vb.next = false;
        self.commit_g.next = 0.into();
        #(
            self.commit_hit_vb[W].next = self.vb_valid[W].q.val()
                & (self.vb_line[W].q.val() == self.commit_word.val().get_bits::<5>(2))
                & (self.vb_gen[W].q.val() == self.commit_word.val().get_bit(7));
            if self.commit_hit_vb[W].val() {
                self.commit_vb.next = true;
                self.commit_g.next = W.into();
            }
        )*
        // A fill's or parked lookup's array word.
        self.head_address.next = bit_cast::<8, 7>(self.head_word.val());
        if self.head_vb.val() {
            self.head_address.next = bits::<8>(0x80) | (bit_cast::<8, 2>(self.head_g.val()) << 2) | bit_cast::<8, 2>(self.head_word.val().get_bits::<2>(0));
        }
        #(
            self.s2_way[W].next = self.s2_word.q.val() == self.way_word[W].val();
        )*
        self.s2_on_hit.next = (self.hit[0].val() & self.s2_way[0].val())
            | (self.hit[1].val() & self.s2_way[1].val())
            | (self.hit[2].val() & self.s2_way[2].val())
            | (self.hit[3].val() & self.s2_way[3].val());
        self.m_count.next = self.m_tail.q.val() - self.m_head.q.val();
        self.push_slot.next = self.m_tail.q.val().get_bits::<5>(0);
        // From the pointers directly, not through a subtraction: a slot is
        // in use when they differ, all 16 are when they differ in bit 4 alone.
        self.occupied.next = self.m_tail.q.val() != self.m_head.q.val();
        self.room.next = (self.m_tail.q.val().get_bits::<5>(0) != self.m_head.q.val().get_bits::<5>(0))
            | (self.m_tail.q.val().get_bit(5) == self.m_head.q.val().get_bit(5));
        // Fewer than 16 fills out: bit 4 of `fills_asked - fills_taken` is
        // 0, written as the borrow out of the low four bits (a compare)
        // so that no subtractor's carry chain lies on the path.
        self.fill_borrow.next = self.fills_asked.q.val().get_bits::<4>(0) < self.fills_taken.q.val().get_bits::<4>(0);
        self.fill_room.next = self.room.val()
            & ((self.fills_asked.q.val().get_bit(4) ^ self.fills_taken.q.val().get_bit(4)) == self.fill_borrow.val());

        // Who goes this cycle. The response register frees when it is
        // empty or answered; a hit write commits its merged word then, so
        // a fill (which also writes the array) waits for it.
        self.s2_free.next = !self.s2_valid.q.val() | self.resp_ready.val();
        self.s2_hit_write.next = self.s2_valid.q.val() & !self.s2_fill.q.val() & self.s2_write.q.val();
        self.mq_free.next = !self.mq_valid.q.val() | self.mem_req_ready.val();
        // A commit (its own port: a reserved line's nibble, at the word the
        // reservation answered) goes before a lookup's hit; it needs the
        // data array and the response register like a hit write.
        self.commit_go.next = self.commit_valid.val()
            & (self.ev_state.q.val() == EvictState::Idle)
            & !self.commit_pend.val()
            & !(self.s2_hit_write.val() & (self.s2_word.q.val() == self.commit_word.val().get_bits::<7>(0)))
            & self.s2_free.val()
            & !self.fill_waiting.q.val();
        self.commit_ready.next = self.commit_go.val();
        // The head slot is a parked lookup (its sector's fill has been
        // taken): it reads the array as a hit does, before lookups' hits
        // (and not while a write-back reads it).
        self.parked_go.next = self.occupied.val()
            & self.head_parked.val()
            & (self.ev_state.q.val() == EvictState::Idle)
            & !(self.s2_hit_write.val() & (self.s2_word.q.val() == self.head_word.val()))
            & self.s2_free.val()
            & !self.commit_go.val();
        self.lookup.next = self.s1_valid.q.val() & !self.s1_flush.q.val() & (self.ev_state.q.val() == EvictState::Idle);
        self.hit_go.next = self.lookup.val()
            & self.any_hit.val()
            & ((self.hit_valid.val() & self.sector_bit.val()) != 0)
            & !self.pend_sector.val()
            & !(self.s2_hit_write.val() & self.s2_on_hit.val())
            & self.s2_free.val()
            & !self.fill_waiting.q.val()
            & !self.commit_go.val()
            & !self.parked_go.val();
        // A hit whose sector's fill is outstanding parks behind it.
        self.park_go.next = self.lookup.val()
            & self.any_hit.val()
            & ((self.hit_valid.val() & self.sector_bit.val()) != 0)
            & self.pend_sector.val()
            & self.room.val();
        self.sector_miss_go.next = self.lookup.val()
            & self.any_hit.val()
            & ((self.hit_valid.val() & self.sector_bit.val()) == 0)
            & self.fill_room.val()
            & self.mq_free.val();
        self.line_miss_go.next = self.lookup.val()
            & !self.any_hit.val()
            & !self.pend_line.val()
            & !self.vb_block.val()
            & ((self.victim_dirty.val() == 0) | self.evicted.q.val())
            & self.fill_room.val()
            & self.mq_free.val();
        // Fills wait while a move copies (a sector whose fill is
        // outstanding is copied too; its fill goes to the copy after).
        self.mem_fill_ready.next = self.occupied.val()
            & !self.head_parked.val()
            & !(self.ev_move.q.val() & (self.ev_state.q.val() != EvictState::Idle))
            & self.s2_free.val()
            & !self.s2_hit_write.val()
            & !self.hit_go.val()
            & !self.commit_go.val();
        self.fill_take.next = self.mem_fill_ready.val() & self.mem_fill_valid.val();
        // A fill or a parked head that could not go holds back the next
        // cycle's hits and commits, so a stream of them cannot starve it.
        self.fill_waiting.d.next = self.occupied.val()
            & ((self.mem_fill_valid.val() & !self.fill_take.val()) | (self.head_parked.val() & !self.parked_go.val()));

        // The response register's output.
        self.s2_shift.next = bit_cast::<8, 5>(self.s2_offset.q.val()) << 3;
        if self.s2_high.q.val() {
            self.s2_shift.next = (bit_cast::<8, 5>(self.s2_offset.q.val()) << 3) + 4;
        }
        self.s2_shifted.next = self.data.read_data.val() >> self.s2_shift.val();
        self.s2_merged.next = (self.data.read_data.val() & !(bit_cast::<256, 4>(bits::<4>(15)) << self.s2_shift.val()))
            | (bit_cast::<256, 4>(self.s2_value.q.val()) << self.s2_shift.val());
        self.resp_valid.next = self.s2_valid.q.val();
        self.resp_tag.next = self.s2_tag.q.val();
        self.resp_outcome.next = self.s2_outcome.q.val();
        self.resp_commit.next = self.s2_commit.q.val();
        self.resp_word.next = bit_cast::<8, 7>(self.s2_word.q.val());
        if self.s2_gen.q.val() {
            self.resp_word.next = bits::<8>(0x80) | bit_cast::<8, 7>(self.s2_word.q.val());
        }
        self.resp_nibble.next = self.s2_shifted.val().get_bits::<4>(0);
        if self.s2_fill.q.val() {
            self.resp_nibble.next = self.s2_nibble.q.val();
        }
        if !self.s2_fill.q.val() & self.s2_write.q.val() {
            self.resp_nibble.next = self.s2_value.q.val();
        }
        if self.s2_hit_write.val() & self.resp_ready.val() {
            self.data.write_enable.next = true;
            self.data.write_address.next = self.s2_address.val();
            self.data.write_data.next = self.s2_merged.val();
        }
        if self.s2_valid.q.val() & self.resp_ready.val() {
            self.s2_valid.d.next = false;
        }

        // A fill: its sector (with the missing write's nibble merged in)
        // into the array, its answer into the response register.
        self.fill_shift.next = bit_cast::<8, 5>(self.head_offset.val()) << 3;
        if self.head_high.val() {
            self.fill_shift.next = (bit_cast::<8, 5>(self.head_offset.val()) << 3) + 4;
        }
        self.fill_shifted.next = self.mem_fill_data.val() >> self.fill_shift.val();
        self.fill_merged.next = self.mem_fill_data.val();
        if self.head_write.val() {
            self.fill_merged.next = (self.mem_fill_data.val() & !(bit_cast::<256, 4>(bits::<4>(15)) << self.fill_shift.val()))
                | (bit_cast::<256, 4>(self.head_value.val()) << self.fill_shift.val());
        }
        if self.fill_take.val() {
            self.data.write_enable.next = true;
            self.data.write_address.next = self.head_address.val();
            self.data.write_data.next = self.fill_merged.val();
            self.s2_vb.d.next = self.head_vb.val();
            self.s2_g.d.next = self.head_g.val();
            self.s2_gen.d.next = self.head_gen.val();
            self.s2_valid.d.next = true;
            self.s2_commit.d.next = false;
            self.s2_fill.d.next = true;
            self.s2_tag.d.next = self.head_tag.val();
            self.s2_outcome.d.next = self.head_outcome.val();
            self.s2_word.d.next = self.head_word.val();
            self.s2_nibble.d.next = self.fill_shifted.val().get_bits::<4>(0);
            if self.head_write.val() {
                self.s2_nibble.d.next = self.head_value.val();
            }
        }
        // A parked lookup at the head: answered from the array, as a hit.
        if self.parked_go.val() {
            self.data.read_address.next = self.head_address.val();
            self.s2_vb.d.next = self.head_vb.val();
            self.s2_g.d.next = self.head_g.val();
            self.s2_gen.d.next = self.head_gen.val();
            self.s2_valid.d.next = true;
            self.s2_commit.d.next = false;
            self.s2_fill.d.next = false;
            self.s2_write.d.next = self.head_write.val();
            self.s2_high.d.next = self.head_high.val();
            self.s2_offset.d.next = self.head_offset.val();
            self.s2_value.d.next = self.head_value.val();
            self.s2_tag.d.next = self.head_tag.val();
            self.s2_outcome.d.next = self.head_outcome.val();
            self.s2_word.d.next = self.head_word.val();
        }
        self.pop.next = self.fill_take.val() | self.parked_go.val();
        if self.pop.val() {
            self.m_head.d.next = self.m_head.q.val() + 1;
            for m in 0..32 {
                if self.m_head.q.val().get_bits::<5>(0).index() == m {
                    self.m_used[m].d.next = false;
                }
            }
        }

        // A hit: read its sector word; the response register answers next cycle.
        if self.hit_go.val() {
            self.data.read_address.next = bit_cast::<8, 7>(self.hit_address.val());
            self.s2_vb.d.next = false;
            self.s2_gen.d.next = self.served_gen.val();
            self.s2_valid.d.next = true;
            self.s2_commit.d.next = false;
            self.s2_fill.d.next = false;
            self.s2_write.d.next = self.s1_write.q.val();
            self.s2_high.d.next = self.s1_high.q.val();
            self.s2_offset.d.next = self.s1_address.q.val().get_bits::<5>(0);
            self.s2_value.d.next = self.s1_value.q.val();
            self.s2_tag.d.next = self.s1_tag.q.val();
            self.s2_outcome.d.next = 0.into();
            self.s2_word.d.next = self.hit_address.val();
        }

        if self.commit_go.val() {
            self.data.read_address.next = bit_cast::<8, 7>(self.commit_word.val().get_bits::<7>(0));
            if self.commit_vb.val() {
                self.data.read_address.next =
                    bits::<8>(0x80) | (bit_cast::<8, 2>(self.commit_g.val()) << 2) | bit_cast::<8, 2>(self.commit_word.val().get_bits::<2>(0));
            }
            self.s2_vb.d.next = self.commit_vb.val();
            self.s2_g.d.next = self.commit_g.val();
            self.s2_gen.d.next = self.commit_word.val().get_bit(7);
            self.s2_valid.d.next = true;
            self.s2_commit.d.next = false;
            self.s2_fill.d.next = false;
            self.s2_write.d.next = true;
            self.s2_high.d.next = self.commit_high.val();
            self.s2_offset.d.next = self.commit_offset.val();
            self.s2_value.d.next = self.commit_value.val();
            self.s2_tag.d.next = self.commit_tag.val();
            self.s2_commit.d.next = true;
            self.s2_outcome.d.next = 0.into();
            self.s2_word.d.next = self.commit_word.val().get_bits::<7>(0);
        }

        // Tag word of the served way (lookups that go; written in the
        // lines' loop below, each line from its own word, so that no
        // selected word waits for the hit), or the line a flush invalidates.
        self.word_we.next = false;
        self.word_line.next = self.ev_line.q.val();
        self.new_word.next = bit_cast::<63, 54>(self.ev_tag.q.val());
        self.served_line.next = (bit_cast::<5, 3>(self.s1_set.val()) << 2) | bit_cast::<5, 2>(self.served_way.val());
        // A write or reservation dirties the sector; a miss makes it valid;
        // a line miss replaces the word with the new tag.
        self.dirty_op.next = self.s1_write.q.val() | self.s1_reserve.q.val();
        self.dirty_bits.next = 0.into();
        if self.dirty_op.val() {
            self.dirty_bits.next = bit_cast::<63, 4>(self.sector_bit.val()) << 59;
        }
        self.hit_update.next = self.hit_go.val() | self.park_go.val() | self.sector_miss_go.val();
        self.valid_bits.next = 0.into();
        if self.sector_miss_go.val() {
            self.valid_bits.next = bit_cast::<63, 4>(self.sector_bit.val()) << 55;
        }
        self.miss_word.next = self.dirty_bits.val()
            | (bit_cast::<63, 4>(self.sector_bit.val()) << 55)
            | (bits::<63>(1) << 54)
            | bit_cast::<63, 54>(self.s1_line_tag.val());
        if self.line_miss_go.val() {
            self.evicted.d.next = false;
        }
        // Pins: a reservation's line is pinned at lookup, its commit unpins it.
        self.reserve_go.next =
            (self.hit_go.val() | self.park_go.val() | self.sector_miss_go.val() | self.line_miss_go.val()) & self.s1_reserve.q.val();
        self.commit_line.next = self.commit_word.val().get_bits::<5>(2);
        for l in 0..32 {
            if self.reserve_go.val() & (self.served_line.val().index() == l) {
                self.reserves[l].d.next = self.reserves[l].q.val() + 1;
            }
            if self.commit_go.val() & !self.commit_vb.val() & (self.commit_line.val().index() == l) {
                self.commits[l].d.next = self.commits[l].q.val() + 1;
            }
        }
        for g in 0..4 {
            if self.commit_go.val() & self.commit_hit_vb[g].val() {
                self.vb_commits[g].d.next = self.vb_commits[g].q.val() + 1;
            }
        }
        if self.hit_go.val() | self.park_go.val() | self.sector_miss_go.val() | self.line_miss_go.val() {
            for s in 0..8 {
                if self.s1_set.val().index() == s {
                    self.lru[s].d.next = self.new_lru.val();
                }
            }
        }

        // A miss: its fill into the memory-side request register and a
        // miss register; a parked lookup: a miss register only.
        self.push.next = self.sector_miss_go.val() | self.line_miss_go.val();
        self.slot_push.next = self.push.val() | self.park_go.val();
        if self.mq_valid.q.val() & self.mem_req_ready.val() {
            self.mq_valid.d.next = false;
        }
        if self.push.val() {
            self.mq_valid.d.next = true;
            self.mq_write.d.next = false;
            self.mq_address.d.next = (self.s1_address.q.val() >> 5) << 5;
        }
        if self.slot_push.val() {
            for m in 0..32 {
                if self.push_slot.val().index() == m {
                    self.m_used[m].d.next = true;
                    self.m_parked[m].d.next = self.park_go.val();
                    self.m_word[m].d.next = (bit_cast::<7, 3>(self.s1_set.val()) << 4)
                        | (bit_cast::<7, 2>(self.served_way.val()) << 2)
                        | bit_cast::<7, 2>(self.s1_sector.val());
                    self.m_write[m].d.next = self.s1_write.q.val();
                    self.m_high[m].d.next = self.s1_high.q.val();
                    self.m_offset[m].d.next = self.s1_address.q.val().get_bits::<5>(0);
                    self.m_value[m].d.next = self.s1_value.q.val();
                    self.m_tag[m].d.next = self.s1_tag.q.val();
                    self.m_gen[m].d.next = self.served_gen.val();
                    self.m_vb[m].d.next = false;
                    self.m_outcome[m].d.next = 0.into();
                    if self.sector_miss_go.val() {
                        self.m_outcome[m].d.next = 1.into();
                    }
                    if self.line_miss_go.val() {
                        self.m_outcome[m].d.next = 2.into();
                    }
                }
            }
        }
        if self.slot_push.val() {
            self.m_tail.d.next = self.m_tail.q.val() + 1;
        }
        if self.push.val() {
            self.fills_asked.d.next = self.fills_asked.q.val() + 1;
        }
        if self.fill_take.val() {
            self.fills_taken.d.next = self.fills_taken.q.val() + 1;
        }

        // Write-backs: a line miss's dirty victim, or every line (flush).
        self.ev_low.next = 3.into();
        if self.ev_dirty.q.val().get_bit(2) {
            self.ev_low.next = 2.into();
        }
        if self.ev_dirty.q.val().get_bit(1) {
            self.ev_low.next = 1.into();
        }
        if self.ev_dirty.q.val().get_bit(0) {
            self.ev_low.next = 0.into();
        }
        self.next_line.next = self.ev_next.q.val();
        self.next_word.next = 0.into();
        for l in 0..32 {
            if self.next_line.val().index() == l {
                self.next_word.next = self.lines[l].q.val();
            }
        }
        self.flush_done.next = false;
        self.move_done.next = false;
        match self.ev_state.q.val() {
            EvictState::Idle => {
                if self.lookup.val()
                    & !self.any_hit.val()
                    & !self.pend_line.val()
                    & !self.vb_block.val()
                    & (self.victim_dirty.val() != 0)
                    & !self.evicted.q.val()
                    & !self.drain_go.val()
                {
                    self.ev_state.d.next = EvictState::Read;
                    self.ev_flush.d.next = false;
                    self.ev_move.d.next = self.move_ok.val();
                    self.ev_drain.d.next = false;
                    self.ev_g.d.next = self.free_g.val();
                    self.ev_line.d.next = (bit_cast::<5, 3>(self.s1_set.val()) << 2) | bit_cast::<5, 2>(self.victim_way.val());
                    self.ev_tag.d.next = self.victim_word.val().get_bits::<54>(0);
                    self.ev_dirty.d.next = self.victim_dirty.val();
                    // A move copies all four sectors: a lookup parked behind
                    // a fill that has come back (of this line, or of one
                    // evicted from its way before) reads the copy.
                    if self.move_ok.val() {
                        self.ev_dirty.d.next = 15.into();
                    }
                    // A move: the entry's word now, its valid bit once the copy is done.
                    for g in 0..4 {
                        if self.move_ok.val() & (self.free_g.val().index() == g) {
                            self.vb_line[g].d.next = (bit_cast::<5, 3>(self.s1_set.val()) << 2) | bit_cast::<5, 2>(self.victim_way.val());
                            self.vb_tag[g].d.next = self.victim_word.val().get_bits::<54>(0);
                            self.vb_dirty[g].d.next = self.victim_dirty.val();
                            self.vb_gen[g].d.next = (self.victim_hot[0].val() & self.set_gen[0].val())
                                | (self.victim_hot[1].val() & self.set_gen[1].val())
                                | (self.victim_hot[2].val() & self.set_gen[2].val())
                                | (self.victim_hot[3].val() & self.set_gen[3].val());
                        }
                    }
                }
                if self.drain_go.val() {
                    self.ev_state.d.next = EvictState::Read;
                    self.ev_flush.d.next = false;
                    self.ev_move.d.next = false;
                    self.ev_drain.d.next = true;
                    self.ev_g.d.next = self.drain_g.val();
                    for g in 0..4 {
                        if self.drain_g.val().index() == g {
                            self.ev_line.d.next = self.vb_line[g].q.val();
                            self.ev_tag.d.next = self.vb_tag[g].q.val();
                            self.ev_dirty.d.next = self.vb_dirty[g].q.val();
                        }
                    }
                }
                if self.s1_valid.q.val()
                    & self.s1_flush.q.val()
                    & !self.occupied.val()
                    & !self.s2_valid.q.val()
                    & !self.any_pinned.val()
                    & !self.any_vb.val()
                {
                    self.ev_state.d.next = EvictState::Read;
                    self.ev_flush.d.next = true;
                    self.ev_move.d.next = false;
                    self.ev_drain.d.next = false;
                    self.ev_line.d.next = 0.into();
                    self.ev_next.d.next = 1.into();
                    self.ev_tag.d.next = self.lines[0].q.val().get_bits::<54>(0);
                    self.ev_dirty.d.next = 0.into();
                    if self.lines[0].q.val().get_bit(54) {
                        self.ev_dirty.d.next = self.lines[0].q.val().get_bits::<4>(59);
                    }
                }
            }
            EvictState::Read => {
                if self.ev_dirty.q.val() == 0 {
                    if self.ev_flush.q.val() {
                        // The line becomes invalid (tag kept, as golden).
                        self.word_we.next = true;
                        self.ev_line.d.next = self.next_line.val();
                        self.ev_next.d.next = self.ev_next.q.val() + 1;
                        self.ev_tag.d.next = self.next_word.val().get_bits::<54>(0);
                        self.ev_dirty.d.next = 0.into();
                        if self.next_word.val().get_bit(54) {
                            self.ev_dirty.d.next = self.next_word.val().get_bits::<4>(59);
                        }
                        if self.ev_line.q.val() == 31 {
                            // Answered once the last write-back has left.
                            self.flush_done.next = self.mq_free.val();
                            self.ev_line.d.next = self.ev_line.q.val();
                            self.ev_tag.d.next = self.ev_tag.q.val();
                            self.ev_dirty.d.next = 0.into();
                        }
                        if (self.ev_line.q.val() == 31) & self.mq_free.val() {
                            self.ev_state.d.next = EvictState::Idle;
                            self.s2_valid.d.next = true;
                            self.s2_commit.d.next = false;
                            self.s2_fill.d.next = true;
                            self.s2_tag.d.next = self.s1_tag.q.val();
                            self.s2_outcome.d.next = 0.into();
                            self.s2_nibble.d.next = 0.into();
                        }
                    } else if self.ev_drain.q.val() {
                        for g in 0..4 {
                            if self.ev_g.q.val().index() == g {
                                self.vb_valid[g].d.next = false;
                            }
                        }
                        self.ev_state.d.next = EvictState::Idle;
                    } else {
                        self.evicted.d.next = true;
                        self.ev_state.d.next = EvictState::Idle;
                        // A move is done: the entry takes the line's pins
                        // (the commits of its generation) and its miss
                        // registers, and the line's generation flips.
                        self.move_done.next = self.ev_move.q.val();
                    }
                } else if !self.s2_valid.q.val() & self.mq_free.val() {
                    self.data.read_address.next = (bit_cast::<8, 5>(self.ev_line.q.val()) << 2) | bit_cast::<8, 2>(self.ev_low.val());
                    if self.ev_drain.q.val() {
                        self.data.read_address.next = bits::<8>(0x80) | (bit_cast::<8, 2>(self.ev_g.q.val()) << 2) | bit_cast::<8, 2>(self.ev_low.val());
                    }
                    self.ev_sector.d.next = self.ev_low.val();
                    self.ev_dirty.d.next = self.ev_dirty.q.val() & !(bits::<4>(1) << self.ev_low.val());
                    self.ev_state.d.next = EvictState::Load;
                }
            }
            EvictState::Load => {
                if self.ev_move.q.val() {
                    self.data.write_enable.next = true;
                    self.data.write_address.next = bits::<8>(0x80) | (bit_cast::<8, 2>(self.ev_g.q.val()) << 2) | bit_cast::<8, 2>(self.ev_sector.q.val());
                    self.data.write_data.next = self.data.read_data.val();
                } else {
                    self.mq_valid.d.next = true;
                    self.mq_write.d.next = true;
                    self.mq_address.d.next = (bit_cast::<64, 51>(self.ev_tag.q.val().get_bits::<51>(3)) << 13)
                        | (bit_cast::<64, 3>(self.ev_line.q.val().get_bits::<3>(2) ^ self.ev_tag.q.val().get_bits::<3>(3)) << 10)
                        | (bit_cast::<64, 2>(self.ev_sector.q.val()) << 8)
                        | (bit_cast::<64, 3>(self.ev_tag.q.val().get_bits::<3>(0)) << 5);
                    self.mq_data.d.next = self.data.read_data.val();
                }
                self.ev_state.d.next = EvictState::Read;
            }
        }
        // The moving line's counts, selected first so that the entries'
        // registers take one word (not a chain of selects per entry).
        self.ev_reserves.next = 0.into();
        self.ev_commits.next = 0.into();
        for l in 0..32 {
            if self.ev_line.q.val().index() == l {
                self.ev_reserves.next = self.reserves[l].q.val();
                self.ev_commits.next = self.commits[l].q.val();
            }
        }
        for g in 0..4 {
            if self.move_done.val() & (self.ev_g.q.val().index() == g) {
                self.vb_valid[g].d.next = true;
                self.s1_vb_eq[g].d.next = false;
                self.vb_reserves[g].d.next = self.ev_reserves.val();
                self.vb_commits[g].d.next = self.ev_commits.val();
            }
        }
        for l in 0..32 {
            if self.move_done.val() & (self.ev_line.q.val().index() == l) {
                self.commits[l].d.next = self.reserves[l].q.val();
                self.gen[l].d.next = !self.gen[l].q.val();
            }
        }
        for m in 0..32 {
            if self.move_done.val() & self.m_used[m].q.val() & (self.m_word[m].q.val().get_bits::<5>(2) == self.ev_line.q.val()) {
                self.m_vb[m].d.next = true;
                self.m_g[m].d.next = self.ev_g.q.val();
            }
        }
        for s in 0..8 {
            #(
                if self.word_we.val() & (self.word_line.val().index() == s * 4 + W) {
                    self.lines[s * 4 + W].d.next = self.new_word.val();
                }
                if (self.s1_set.val().index() == s) & self.hit[W].val() & self.hit_update.val() {
                    self.lines[s * 4 + W].d.next = self.lines[s * 4 + W].q.val() | self.dirty_bits.val() | self.valid_bits.val();
                }
                if (self.s1_set.val().index() == s) & self.victim_hot[W].val() & self.line_miss_go.val() {
                    self.lines[s * 4 + W].d.next = self.miss_word.val();
                }
            )*
        }

        // The lookup register. A request's tag is compared with its set's
        // ways as it is taken; a line miss of the lookup in that set this
        // cycle replaces its victim's tag with the lookup's.
        self.req_set.next = self.req_address.val().get_bits::<3>(10) ^ self.req_address.val().get_bits::<3>(13);
        self.req_line_tag.next = (bit_cast::<54, 51>(self.req_address.val().get_bits::<51>(13)) << 3) | bit_cast::<54, 3>(self.req_address.val().get_bits::<3>(5));
        #(
            self.req_words[W].next = 0.into();
        )*
        for s in 0..8 {
            if self.req_set.val().index() == s {
                #(
                    self.req_words[W].next = self.lines[s * 4 + W].q.val().get_bits::<54>(0);
                )*
            }
        }
        self.req_same_set.next = self.req_set.val() == self.s1_set.val();
        self.req_s1_eq.next = self.req_line_tag.val() == self.s1_line_tag.val();
        self.s1_done.next = self.hit_go.val() | self.slot_push.val() | self.flush_done.val();
        self.req_ready.next = !self.s1_valid.q.val() | self.s1_done.val();
        if self.s1_done.val() {
            self.s1_valid.d.next = false;
        }
        if self.req_valid.val() & self.req_ready.val() {
            self.s1_valid.d.next = true;
            self.s1_write.d.next = self.req_write.val();
            self.s1_flush.d.next = self.req_flush.val();
            self.s1_address.d.next = self.req_address.val();
            self.s1_high.d.next = self.req_high.val();
            self.s1_value.d.next = self.req_value.val();
            self.s1_tag.d.next = self.req_tag.val();
            self.s1_reserve.d.next = self.req_reserve.val() & !self.req_write.val();
            for g in 0..4 {
                self.s1_vb_eq[g].d.next = self.vb_valid[g].q.val()
                    & (self.vb_line[g].q.val().get_bits::<3>(2) == self.req_set.val())
                    & (self.vb_tag[g].q.val() == self.req_line_tag.val());
            }
            #(
                self.s1_tag_eq[W].d.next = self.req_words[W].val() == self.req_line_tag.val();
                if self.line_miss_go.val() & self.victim_hot[W].val() & self.req_same_set.val() {
                    self.s1_tag_eq[W].d.next = self.req_s1_eq.val();
                }
            )*
        }

        self.mem_req_valid.next = self.mq_valid.q.val();
        self.mem_req_write.next = self.mq_write.q.val();
        self.mem_req_address.next = self.mq_address.q.val();
        self.mem_req_data.next = self.mq_data.q.val();
        self.misses.next = self.m_count.val();

        if self.reset.val() {
            self.s1_valid.d.next = false;
            self.evicted.d.next = false;
            self.m_head.d.next = 0.into();
            self.m_tail.d.next = 0.into();
            self.fills_asked.d.next = 0.into();
            self.fills_taken.d.next = 0.into();
            for m in 0..32 {
                self.m_used[m].d.next = false;
            }
            self.fill_waiting.d.next = false;
            self.s2_valid.d.next = false;
            self.mq_valid.d.next = false;
            self.ev_state.d.next = EvictState::Idle;
            self.ev_move.d.next = false;
            self.ev_drain.d.next = false;
            for g in 0..4 {
                self.vb_valid[g].d.next = false;
                self.vb_reserves[g].d.next = 0.into();
                self.vb_commits[g].d.next = 0.into();
            }
            for l in 0..32 {
                self.gen[l].d.next = false;
                self.lines[l].d.next = 0.into();
                self.reserves[l].d.next = 0.into();
                self.commits[l].d.next = 0.into();
            }
            // Ranks 3, 2, 1, 0 for ways 0..3: the golden model picks the
            // lowest invalid way first.
            for s in 0..8 {
                self.lru[s].d.next = 0x1B.into();
            }
        }
    }
}
});
