//! [`buddy_hdl::pipelined_metadata_cache::PipelinedMetadataCache`]: the
//! pipelined slice's non-blocking metadata cache (`docs/controller.md`,
//! "The non-blocking metadata cache"), without its data array.
//!
//! What decides its handshakes is kept: the tags with their valid and
//! dirty bits, the LRU ranks, the pins of reserved lines, the lookup
//! register, the ring of miss registers (fills and parked lookups), the
//! response register, the memory-side request register, the
//! write-back machine and the victim buffer (entries, pins, generations). Nibble values (`req_value`, `commit_value`,
//! `mem_fill_data`, `resp_nibble`, `mem_req_data`) are not, nor what only
//! picks a nibble inside a 256-bit data word (`req_high`, `commit_offset`,
//! `commit_high`): no handshake or address depends on them.
//!
//! Combinational paths (the other outputs come from registers):
//! - `req_ready` on `resp_ready`, `mem_req_ready`, `commit_valid` and
//!   `commit_word` (a hit waits for a commit, which needs the response
//!   register and must not meet a write to its word);
//! - `commit_ready` on `commit_valid`, `commit_word` and `resp_ready`;
//! - `mem_fill_ready` on `resp_ready`, `commit_valid` and `commit_word`.
//!
//! None depends on `req_valid` or `mem_fill_valid`.

use std::collections::VecDeque;

use buddy_golden::metadata_cache::{MetadataCacheConfig, Place};
use buddy_golden::translation::SECTOR_BYTES;
use buddy_hdl::metadata_cache::{outcome, SECTORS_PER_LINE, SETS, WAYS};
use buddy_hdl::pipelined_metadata_cache::{FILL_SLOTS, MISS_SLOTS, VICTIM_ENTRIES};

use crate::CycleModel;

const SECTORS: usize = SECTORS_PER_LINE as usize;
/// Lines of the cache, `{set, way}`.
const LINES: usize = SETS * WAYS;

#[derive(Debug, Clone, Default)]
pub struct PipelinedMetadataCacheIn {
    /// Synchronous, active high: every line invalid, LRU in its reset
    /// order, every register empty after the edge.
    pub reset: bool,
    pub req_valid: bool,
    /// Write `req_value` (the nibble value itself is not modelled).
    pub req_write: bool,
    /// Read and reserve the nibble for a later commit (ignored with `req_write`).
    pub req_reserve: bool,
    pub req_flush: bool,
    /// Metadata byte address.
    pub req_address: u64,
    /// The requester's tag (9 bits), returned with the response.
    pub req_tag: u16,
    pub commit_valid: bool,
    /// The word `{generation, set, way, sector}` (8 bits) the reservation answered.
    pub commit_word: u8,
    /// The tag the commit's response carries (9 bits).
    pub commit_tag: u16,
    pub resp_ready: bool,
    pub mem_req_ready: bool,
    pub mem_fill_valid: bool,
}

/// The response register (`resp_valid` high): what qualifies the answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheResponse {
    pub tag: u16,
    /// A `buddy_hdl::metadata_cache::outcome` code (0 for a flush and a commit).
    pub outcome: u8,
    /// It answers a commit.
    pub commit: bool,
    /// The word `{generation, set, way, sector}` (8 bits) of the nibble
    /// (a flush's is left over from the register's last other answer).
    pub word: u8,
}

/// The memory-side request register (`mem_req_valid` high).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemRequest {
    /// A write-back; else a fill, answered on `mem_fill_*` in order.
    pub write: bool,
    /// Sector-aligned byte address.
    pub address: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PipelinedMetadataCacheOut {
    pub req_ready: bool,
    pub commit_ready: bool,
    pub resp: Option<CacheResponse>,
    pub mem_req: Option<MemRequest>,
    pub mem_fill_ready: bool,
    /// Miss registers in use (0..=[`MISS_SLOTS`]): fills outstanding and parked lookups.
    pub misses: u8,
}

/// One line's tag word.
#[derive(Debug, Clone, Copy, Default)]
struct Line {
    /// Golden's tag (`MetadataCacheConfig::place`): line bits above the set, then the slice bits.
    tag: u64,
    valid: bool,
    /// Sector `s` at bit `s`.
    sectors_valid: u8,
    sectors_dirty: u8,
}

/// The request in the lookup register.
#[derive(Debug, Clone, Copy)]
struct Lookup {
    /// Victim-buffer entry `g` held this line when the lookup was taken
    /// (cleared when `g` takes another line; qualified by `g`'s valid bit).
    vb_eq: [bool; VICTIM_ENTRIES],
    write: bool,
    /// `req_reserve` and not `req_write`.
    reserve: bool,
    flush: bool,
    address: u64,
    /// `address`'s place in the cache, computed once as it is taken.
    place: Place,
    tag: u16,
}

/// The hardware's geometry: golden's default, whose placement (slice
/// bits in the tag, folded set index) the hardware wires.
fn geometry() -> MetadataCacheConfig {
    MetadataCacheConfig::default()
}

impl Lookup {
    fn set(&self) -> usize {
        self.place.set
    }
    fn sector(&self) -> usize {
        self.place.sector
    }
    fn line_tag(&self) -> u64 {
        self.place.tag
    }
}

/// A miss register: a fill's request, or a lookup parked behind an
/// earlier register's fill of its sector.
#[derive(Debug, Clone, Copy)]
struct Slot {
    parked: bool,
    word: u8,
    /// The line's generation at lookup (the answer's `resp_word` bit 7).
    gen: bool,
    /// The line has moved to victim-buffer entry `g`: the fill writes,
    /// and a parked lookup reads, `g`'s copy of the sector.
    vb: Option<usize>,
    /// A write (its answer then merges into the word it reads).
    write: bool,
    tag: u16,
    outcome: u8,
}

/// The response register; its fields outlive `valid` (a flush's answer
/// shows the last `word`).
#[derive(Debug, Clone, Copy, Default)]
struct ResponseRegister {
    valid: bool,
    /// The answer is a fill's or a flush's (no read-modify-write of the array).
    fill: bool,
    write: bool,
    commit: bool,
    tag: u16,
    outcome: u8,
    /// The home word `{set, way, sector}` (7 bits).
    word: u8,
    gen: bool,
}

impl ResponseRegister {
    /// Holds a hit's or commit's write, whose merged word goes into the
    /// array as it leaves: a read of that word, or a fill, waits.
    fn hit_write(&self) -> bool {
        self.valid && !self.fill && self.write
    }
}

/// A victim-buffer entry: a line evicted while held (pinned, or with a
/// write's miss register), its sectors copied out of the line's array
/// words, kept until its commits and fills are in, then written back.
#[derive(Debug, Clone, Copy, Default)]
struct VictimEntry {
    valid: bool,
    /// The home line `{set, way}` it was evicted from.
    line: usize,
    tag: u64,
    dirty: u8,
    /// The line's generation before the move: its reservations' commits carry it.
    gen: bool,
    /// Reservations not yet committed (mod 256).
    pins: u8,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum EvictState {
    #[default]
    Idle,
    /// Reads the next dirty sector (or finishes the line), one cycle.
    Read,
    /// Loads the sector read into the memory-side request register, one cycle.
    Load,
}

/// Where the machine's sectors go, or come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum EvictTarget {
    /// Home line to memory (a victim or a flush).
    #[default]
    Memory,
    /// A held victim's four sectors into victim-buffer entry `g`'s words.
    Move(usize),
    /// Victim-buffer entry `g`'s sectors to memory.
    Drain(usize),
}

/// Writes back a line miss's dirty victim, or every line (a flush);
/// moves a pinned victim into the victim buffer; drains an entry.
#[derive(Debug, Clone, Copy, Default)]
struct Evict {
    state: EvictState,
    flush: bool,
    target: EvictTarget,
    line: usize,
    tag: u64,
    /// Sectors still to write back (or to copy, a move).
    dirty: u8,
    sector: usize,
}

impl Evict {
    fn moving(&self) -> Option<usize> {
        match self.target {
            EvictTarget::Move(g) => Some(g),
            _ => None,
        }
    }
}

/// The cycle model: the hardware's control state (see the module doc).
#[derive(Debug, Clone)]
pub struct PipelinedMetadataCacheModel {
    lines: [Line; LINES],
    /// Per set, way `w`'s LRU rank (0 most recent, 3 least). All 0 at
    /// power-up (ties, as the flip-flops), a permutation after reset.
    ranks: [[u8; WAYS]; SETS],
    /// Per line, reservations minus commits mod 256: a line with one not
    /// yet committed is pinned (never a victim; a flush waits).
    pins: [u8; LINES],
    lookup: Option<Lookup>,
    /// The lookup's dirty victim has been written back.
    evicted: bool,
    /// The miss registers, oldest first.
    slots: VecDeque<Slot>,
    /// A fill or a parked head could not go last cycle: hits and commits wait.
    fill_waiting: bool,
    response: ResponseRegister,
    mem_req: Option<MemRequest>,
    evict: Evict,
    /// Per line, flipped when the line moves to the victim buffer: a
    /// commit whose word's generation differs goes to the buffer.
    gen: [bool; LINES],
    vb: [VictimEntry; VICTIM_ENTRIES],
}

impl Default for PipelinedMetadataCacheModel {
    fn default() -> Self {
        Self {
            lines: [Line::default(); LINES],
            ranks: [[0; WAYS]; SETS],
            pins: [0; LINES],
            lookup: None,
            evicted: false,
            slots: VecDeque::new(),
            fill_waiting: false,
            response: ResponseRegister::default(),
            mem_req: None,
            evict: Evict::default(),
            gen: [false; LINES],
            vb: [VictimEntry::default(); VICTIM_ENTRIES],
        }
    }
}

/// The lookup register's request against the tags this cycle.
#[derive(Debug, Clone, Copy)]
struct Probe {
    set: usize,
    sector: usize,
    hit: Option<usize>,
    /// An invalid way first, else the least recently used; the last of equal keys.
    victim: usize,
    /// The hit line's sector is valid.
    sector_valid: bool,
    /// The hit sector has a miss register (a fill or a parked lookup).
    pend_sector: bool,
    /// The victim line is pinned or has a write's miss register, and
    /// cannot move to the victim buffer.
    pend_line: bool,
    victim_dirty: u8,
    /// The held victim moves to this free victim-buffer entry (no entry
    /// holds its home line).
    move_to: Option<usize>,
    /// The lookup's line is in the victim buffer (a line miss waits for
    /// its write-back).
    vb_block: bool,
}

impl Probe {
    fn served(&self) -> usize {
        self.hit.unwrap_or(self.victim)
    }
    fn word(&self, way: usize) -> u8 {
        ((self.set * WAYS + way) * SECTORS + self.sector) as u8
    }
}

/// What goes on this cycle (the hardware's combinational decisions).
#[derive(Debug, Clone, Copy, Default)]
struct Decision {
    probe: Option<Probe>,
    commit_go: bool,
    /// The parked head reads the array.
    parked_go: bool,
    hit_go: bool,
    /// The lookup parks behind its sector's fill.
    park_go: bool,
    sector_miss_go: bool,
    line_miss_go: bool,
    /// The lookup's dirty victim starts its write-back.
    evict_go: bool,
    flush_go: bool,
    flush_done: bool,
    mem_fill_ready: bool,
    fill_take: bool,
    /// The victim-buffer entry the commit writes (it holds the commit's line with the commit's generation).
    commit_vb: Option<usize>,
    /// Victim-buffer entry `g` (no pins left) starts its write-back.
    drain: Option<usize>,
    req_ready: bool,
    /// The memory-side request register is empty or taken this cycle.
    mem_req_free: bool,
}

impl Decision {
    /// The lookup changes the tags and LRU and leaves the lookup register.
    fn lookup_goes(&self) -> bool {
        self.hit_go || self.park_go || self.sector_miss_go || self.line_miss_go
    }
}

fn line_of(word: u8) -> usize {
    word as usize / SECTORS
}

impl PipelinedMetadataCacheModel {
    /// Fills requested and not yet taken (at most [`FILL_SLOTS`]).
    fn fills_outstanding(&self) -> usize {
        self.slots.iter().filter(|s| !s.parked).count()
    }

    fn probe(&self, l: &Lookup) -> Probe {
        let (set, sector) = (l.set(), l.sector());
        let ways = &self.lines[set * WAYS..(set + 1) * WAYS];
        // A set's valid lines have distinct tags: at most one way hits.
        let hit = (0..WAYS).rev().find(|&w| ways[w].valid && ways[w].tag == l.line_tag());
        let key = |w: usize| self.ranks[set][w] + if ways[w].valid { 0 } else { WAYS as u8 };
        // `max_by_key` keeps the last of equal keys, as the hardware's one-hot does.
        let victim = (0..WAYS).max_by_key(|&w| key(w)).expect("ways");
        let held = |word: u8| self.slots.iter().any(|s| s.word == word && s.vb.is_none());
        let word = |way: usize| ((set * WAYS + way) * SECTORS + sector) as u8;
        let victim_line = set * WAYS + victim;
        let v = ways[victim];
        // A pinned line, or one with a write's fill or parked write, is
        // moved (a read's fill or parked read does not hold its line).
        let held_line = self.pins[victim_line] != 0 || self.slots.iter().any(|s| s.write && s.vb.is_none() && line_of(s.word) == victim_line);
        let move_to = (held_line && !self.vb.iter().any(|e| e.valid && e.line == victim_line))
            .then(|| self.vb.iter().position(|e| !e.valid))
            .flatten();
        Probe {
            set,
            sector,
            hit,
            victim,
            sector_valid: hit.is_some_and(|w| ways[w].sectors_valid >> sector & 1 == 1),
            pend_sector: hit.is_some_and(|w| held(word(w))),
            pend_line: held_line && move_to.is_none(),
            victim_dirty: if v.valid { v.sectors_dirty } else { 0 },
            move_to,
            vb_block: (0..VICTIM_ENTRIES).any(|g| l.vb_eq[g] && self.vb[g].valid),
        }
    }

    fn decide(&self, i: &PipelinedMetadataCacheIn) -> Decision {
        let idle = self.evict.state == EvictState::Idle;
        let r = &self.response;
        let response_free = !r.valid || i.resp_ready;
        // The array word the response register writes as it leaves is not read before.
        // (A home word and its victim-buffer copy are not told apart here:
        // one waits for the other, which is safe and keeps the compare short.)
        let clashes = |word: u8| r.hit_write() && r.word == word;
        let mem_req_free = self.mem_req.is_none() || i.mem_req_ready;
        let head = self.slots.front();
        let room = self.slots.len() < MISS_SLOTS;
        let fill_room = room && self.fills_outstanding() < FILL_SLOTS;

        // (An entry holding the commit's line has the other generation than the line's.)
        let (commit_line, commit_gen) = (line_of(i.commit_word & 0x7F), i.commit_word >> 7 == 1);
        let commit_vb = self.vb.iter().position(|e| e.valid && e.line == commit_line && e.gen == commit_gen);
        let mut d = Decision { mem_req_free, commit_vb, ..Decision::default() };
        // Commits go first (their own port, no tag lookup), then a parked
        // head, then a lookup's hit; a fill when none of them reads the array.
        d.commit_go = i.commit_valid
            && idle
            // (A line's miss registers have its generation, an entry's the entry's.)
            && !self.slots.iter().any(|s| s.word == i.commit_word & 0x7F && s.gen == commit_gen)
            && !clashes(i.commit_word & 0x7F)
            && response_free
            && !self.fill_waiting;
        d.parked_go = head.is_some_and(|h| h.parked && !clashes(h.word)) && idle && response_free && !d.commit_go;
        // An entry whose reservations are all committed and whose fills are
        // in is written back when the machine is free, before a lookup's victim.
        let drained = |g: usize| self.vb[g].valid && self.vb[g].pins == 0 && !self.slots.iter().any(|s| s.vb == Some(g));
        d.drain = idle.then(|| (0..VICTIM_ENTRIES).find(|&g| drained(g))).flatten();
        d.probe = self.lookup.filter(|l| !l.flush && idle).map(|l| self.probe(&l));
        if let Some(p) = d.probe {
            match p.hit {
                Some(way) if p.sector_valid => {
                    d.hit_go =
                        !p.pend_sector && !clashes(p.word(way)) && response_free && !self.fill_waiting && !d.commit_go && !d.parked_go;
                    d.park_go = p.pend_sector && room;
                }
                Some(_) => d.sector_miss_go = fill_room && mem_req_free,
                None => {
                    let clean = p.victim_dirty == 0 || self.evicted;
                    let go = !p.pend_line && !p.vb_block;
                    d.line_miss_go = go && clean && fill_room && mem_req_free;
                    // An entry's write-back goes first.
                    d.evict_go = go && !clean && d.drain.is_none();
                }
            }
        }
        d.flush_go = idle && self.lookup.is_some_and(|l| l.flush) && self.slots.is_empty() && !r.valid
            && self.pins.iter().all(|&p| p == 0)
            && self.vb.iter().all(|e| !e.valid);
        let e = &self.evict;
        // A flush answers once its last line is done and the last write-back has left.
        d.flush_done = e.state == EvictState::Read && e.flush && e.dirty == 0 && e.line == LINES - 1 && mem_req_free;
        // A fill waits while a move copies a line (a sector whose fill is
        // outstanding is copied too, and the fill, going to the copy, must
        // come after).
        let moving = e.state != EvictState::Idle && e.moving().is_some();
        d.mem_fill_ready = head.is_some_and(|h| !h.parked) && response_free && !r.hit_write() && !d.hit_go && !d.commit_go && !moving;
        d.fill_take = d.mem_fill_ready && i.mem_fill_valid;
        d.req_ready = self.lookup.is_none() || d.lookup_goes() || d.flush_done;
        d
    }

    /// The write-back machine's edge; `response_valid` is the response
    /// register's before the edge, and the tags are too.
    fn clock_evict(&mut self, d: &Decision, response_valid: bool) {
        let mem_req_free = d.mem_req_free;
        let e = &mut self.evict;
        match e.state {
            EvictState::Idle => {
                if d.evict_go {
                    let p = d.probe.expect("a lookup");
                    let line = p.set * WAYS + p.victim;
                    let tag = self.lines[line].tag;
                    let target = p.move_to.map_or(EvictTarget::Memory, EvictTarget::Move);
                    // A move copies all four sectors: a lookup parked behind a fill
                    // that has come back, of this line or of one evicted from
                    // its way before, reads its sector from the copy.
                    let dirty = if p.move_to.is_some() { 0xF } else { p.victim_dirty };
                    *e = Evict { state: EvictState::Read, flush: false, target, line, tag, dirty, sector: e.sector };
                    // The entry's word is written now, its valid bit once the copy is done.
                    if let Some(g) = p.move_to {
                        self.vb[g] = VictimEntry { valid: false, line, tag, dirty: p.victim_dirty, gen: self.gen[line], pins: 0 };
                    }
                } else if let Some(g) = d.drain {
                    let v = self.vb[g];
                    *e = Evict { state: EvictState::Read, flush: false, target: EvictTarget::Drain(g), line: v.line, tag: v.tag, dirty: v.dirty, sector: e.sector };
                }
                if d.flush_go {
                    let first = self.lines[0];
                    *e = Evict {
                        state: EvictState::Read,
                        flush: true,
                        target: EvictTarget::Memory,
                        line: 0,
                        tag: first.tag,
                        dirty: if first.valid { first.sectors_dirty } else { 0 },
                        sector: e.sector,
                    };
                }
            }
            EvictState::Read if e.dirty == 0 => {
                if let EvictTarget::Drain(g) = e.target {
                    self.vb[g].valid = false;
                    e.state = EvictState::Idle;
                    return;
                }
                if let Some(g) = e.moving() {
                    // The held victim has moved: the entry takes its pins
                    // (the commits of its generation) and its miss registers.
                    let line = e.line;
                    self.vb[g].valid = true;
                    self.vb[g].pins = self.pins[line];
                    self.pins[line] = 0;
                    self.gen[line] = !self.gen[line];
                    for s in self.slots.iter_mut().filter(|s| line_of(s.word) == line) {
                        s.vb = Some(g);
                    }
                    if let Some(l) = self.lookup.as_mut() {
                        l.vb_eq[g] = false;
                    }
                }
                if !e.flush {
                    self.evicted = true;
                    e.state = EvictState::Idle;
                    return;
                }
                // The line becomes invalid, its tag kept (as golden's flush).
                let done = &mut self.lines[e.line];
                *done = Line { tag: done.tag, ..Line::default() };
                if e.line + 1 < LINES {
                    e.line += 1;
                    let next = self.lines[e.line];
                    e.tag = next.tag;
                    e.dirty = if next.valid { next.sectors_dirty } else { 0 };
                } else if mem_req_free {
                    e.state = EvictState::Idle;
                }
            }
            EvictState::Read => {
                // One dirty sector per read, lowest first; the array's read
                // port is the response register's while it is full.
                if !response_valid && mem_req_free {
                    e.sector = e.dirty.trailing_zeros() as usize;
                    e.dirty &= e.dirty - 1;
                    e.state = EvictState::Load;
                }
            }
            EvictState::Load if e.moving().is_some() => e.state = EvictState::Read,
            EvictState::Load => {
                let set = e.line / WAYS;
                let address = geometry().sector_address(e.tag, set, e.sector);
                self.mem_req = Some(MemRequest { write: true, address });
                e.state = EvictState::Read;
            }
        }
    }
}

/// Why the lookup register holds its lookup this cycle (the lookups
/// behind it, which keep request order, wait too): what
/// [`PipelinedMetadataCacheModel::lookup_wait`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LookupWait {
    /// A dirty victim is being written back (2 cycles a dirty sector), or
    /// a held one copied into the victim buffer (8 cycles).
    WriteBack,
    /// A hit waits for the response register (the slice not taking
    /// answers, a write to the same word leaving, a fill or commit first).
    Response,
    /// Every miss register is in use ([`MISS_SLOTS`]).
    MissRegisters,
    /// [`FILL_SLOTS`] fills are outstanding.
    FillSlots,
    /// The memory-side request register is busy.
    MemoryRequest,
    /// A line miss whose LRU victim is pinned by a write in flight and
    /// cannot move to the victim buffer (every entry in use, or an entry
    /// holds that way's line already).
    PinnedVictim,
    /// A line miss of a line in the victim buffer: waits until it is written back.
    VictimBufferLine,
    /// A victim-buffer entry is being written back (2 cycles a sector).
    VictimBufferDrain,
    /// A line miss whose LRU victim still has a write's fill or parked write.
    VictimInFlight,
    /// A flush waits for the fills, answers and pins outstanding, or walks the lines.
    Flush,
}

impl LookupWait {
    pub fn name(self) -> &'static str {
        match self {
            LookupWait::WriteBack => "dirty victim written back",
            LookupWait::Response => "hit waits for the response register",
            LookupWait::MissRegisters => "miss registers full",
            LookupWait::FillSlots => "every fill slot in use",
            LookupWait::MemoryRequest => "memory request register busy",
            LookupWait::PinnedVictim => "line miss, victim pinned by a write, no victim-buffer entry for it",
            LookupWait::VictimBufferLine => "line miss of a line in the victim buffer",
            LookupWait::VictimBufferDrain => "victim buffer written back",
            LookupWait::VictimInFlight => "line miss, victim has a write's fill or parked write, no victim-buffer entry for it",
            LookupWait::Flush => "flush",
        }
    }
}

impl PipelinedMetadataCacheModel {
    /// Why the lookup register does not take a new request this cycle
    /// with inputs `i` (`None`: it does, or it holds nothing).
    pub fn lookup_wait(&self, i: &PipelinedMetadataCacheIn) -> Option<LookupWait> {
        let d = self.decide(i);
        let l = self.lookup?;
        if d.lookup_goes() || d.flush_done {
            return None;
        }
        if l.flush {
            return Some(LookupWait::Flush);
        }
        if self.evict.state != EvictState::Idle {
            return Some(match self.evict.target {
                EvictTarget::Drain(_) => LookupWait::VictimBufferDrain,
                _ => LookupWait::WriteBack,
            });
        }
        let p = d.probe?;
        let room = self.slots.len() < MISS_SLOTS;
        let fill_wait = if room { LookupWait::FillSlots } else { LookupWait::MissRegisters };
        let fill_room = room && self.fills_outstanding() < FILL_SLOTS;
        Some(match p.hit {
            Some(_) if p.sector_valid && p.pend_sector => LookupWait::MissRegisters,
            Some(_) if p.sector_valid => LookupWait::Response,
            Some(_) if !fill_room => fill_wait,
            Some(_) => LookupWait::MemoryRequest,
            None if p.vb_block => LookupWait::VictimBufferLine,
            None if p.pend_line && self.pins[p.set * WAYS + p.victim] != 0 => LookupWait::PinnedVictim,
            None if p.pend_line => LookupWait::VictimInFlight,
            None if p.victim_dirty != 0 && !self.evicted => LookupWait::WriteBack,
            None if !fill_room => fill_wait,
            None => LookupWait::MemoryRequest,
        })
    }
}

impl CycleModel for PipelinedMetadataCacheModel {
    type In = PipelinedMetadataCacheIn;
    type Out = PipelinedMetadataCacheOut;

    fn outputs(&self, i: &PipelinedMetadataCacheIn) -> PipelinedMetadataCacheOut {
        let d = self.decide(i);
        let r = &self.response;
        PipelinedMetadataCacheOut {
            req_ready: d.req_ready,
            commit_ready: d.commit_go,
            resp: r.valid.then_some(CacheResponse { tag: r.tag, outcome: r.outcome, commit: r.commit, word: (r.gen as u8) << 7 | r.word }),
            mem_req: self.mem_req,
            mem_fill_ready: d.mem_fill_ready,
            misses: self.slots.len() as u8,
        }
    }

    fn clock(&mut self, i: &PipelinedMetadataCacheIn) {
        let d = self.decide(i);
        let occupied = !self.slots.is_empty();
        let head = self.slots.front().copied();
        let lookup = self.lookup;
        // The victim buffer before the edge (a lookup taken compares with it).
        let vb = self.vb;

        // The memory-side request register: taken, then (at most one of)
        // a write-back's sector or a miss's fill.
        if self.mem_req.is_some() && i.mem_req_ready {
            self.mem_req = None;
        }
        // First, while the tags are still the edge's.
        self.clock_evict(&d, self.response.valid);

        // The response register: at most one of these loads it.
        let r = &mut self.response;
        if r.valid && i.resp_ready {
            r.valid = false;
        }
        if d.fill_take || d.parked_go {
            let h = head.expect("a head slot");
            *r = ResponseRegister {
                valid: true,
                fill: d.fill_take,
                write: if d.parked_go { h.write } else { r.write },
                commit: false,
                tag: h.tag,
                outcome: h.outcome,
                word: h.word,
                gen: h.gen,
            };
            self.slots.pop_front();
        }
        if d.hit_go {
            let (l, p) = (lookup.expect("a lookup"), d.probe.expect("a probe"));
            *r = ResponseRegister {
                valid: true,
                fill: false,
                write: l.write,
                commit: false,
                tag: l.tag,
                outcome: outcome::HIT as u8,
                word: p.word(p.served()),
                gen: self.gen[p.set * WAYS + p.served()],
            };
        }
        if d.commit_go {
            *r = ResponseRegister {
                valid: true,
                fill: false,
                write: true,
                commit: true,
                tag: i.commit_tag,
                outcome: 0,
                word: i.commit_word & 0x7F,
                gen: i.commit_word >> 7 == 1,
            };
            match d.commit_vb {
                Some(g) => self.vb[g].pins = self.vb[g].pins.wrapping_sub(1),
                None => {
                    let line = line_of(i.commit_word & 0x7F);
                    self.pins[line] = self.pins[line].wrapping_sub(1);
                }
            }
        }
        if d.flush_done {
            let r = &mut self.response;
            *r = ResponseRegister { valid: true, fill: true, commit: false, tag: lookup.expect("the flush").tag, outcome: 0, ..*r };
        }

        // A lookup that goes: LRU, valid/dirty bits or a new line, a pin, a miss register.
        if let (Some(l), Some(p), true) = (lookup, d.probe, d.lookup_goes()) {
            let way = p.served();
            let line = p.set * WAYS + way;
            let sector_bit = 1u8 << p.sector;
            let dirties = l.write || l.reserve;
            let rank = self.ranks[p.set][way];
            for r in &mut self.ranks[p.set] {
                // The served way becomes the most recent; those more recent age by one.
                *r = match (*r).cmp(&rank) {
                    std::cmp::Ordering::Less => *r + 1,
                    std::cmp::Ordering::Equal => 0,
                    std::cmp::Ordering::Greater => *r,
                };
            }
            if l.reserve {
                self.pins[line] = self.pins[line].wrapping_add(1);
            }
            let t = &mut self.lines[line];
            if d.line_miss_go {
                let dirty = if dirties { sector_bit } else { 0 };
                *t = Line { tag: l.line_tag(), valid: true, sectors_valid: sector_bit, sectors_dirty: dirty };
                self.evicted = false;
            } else {
                if d.sector_miss_go {
                    t.sectors_valid |= sector_bit;
                }
                if dirties {
                    t.sectors_dirty |= sector_bit;
                }
            }
            if !d.hit_go {
                let outcome = match (d.sector_miss_go, d.line_miss_go) {
                    (true, _) => outcome::SECTOR_MISS,
                    (_, true) => outcome::LINE_MISS,
                    _ => outcome::HIT,
                } as u8;
                let parked = d.park_go;
                self.slots.push_back(Slot { parked, word: p.word(way), gen: self.gen[line], vb: None, write: l.write, tag: l.tag, outcome });
                if !parked {
                    let address = l.address / SECTOR_BYTES * SECTOR_BYTES;
                    self.mem_req = Some(MemRequest { write: false, address });
                }
            }
        }
        if d.lookup_goes() || d.flush_done {
            self.lookup = None;
        }
        if i.req_valid && d.req_ready {
            let place = geometry().place(i.req_address);
            self.lookup = Some(Lookup {
                vb_eq: vb.map(|e| e.valid && e.line / WAYS == place.set && e.tag == place.tag),
                write: i.req_write,
                reserve: i.req_reserve && !i.req_write,
                flush: i.req_flush,
                address: i.req_address,
                place,
                tag: i.req_tag,
            });
        }
        // A fill or parked head that could not go holds back the next
        // cycle's hits and commits, so a stream of them cannot starve it.
        self.fill_waiting = occupied && ((i.mem_fill_valid && !d.fill_take) || (head.is_some_and(|h| h.parked) && !d.parked_go));

        if i.reset {
            let response = ResponseRegister { valid: false, ..self.response };
            *self = Self { response, ..Self::default() };
            for ranks in &mut self.ranks {
                // Way 0 least recent: the golden model fills the lowest invalid way first.
                for (w, r) in ranks.iter_mut().enumerate() {
                    *r = (WAYS - 1 - w) as u8;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lockstep::{edge, settle};
    use buddy_hdl::pipelined_metadata_cache::{PipelinedMetadataCache, TAG_BITS};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rust_hdl::prelude::*;
    use std::collections::HashMap;

    fn hardware_out(h: &PipelinedMetadataCache) -> PipelinedMetadataCacheOut {
        PipelinedMetadataCacheOut {
            req_ready: h.req_ready.val(),
            commit_ready: h.commit_ready.val(),
            resp: h.resp_valid.val().then(|| CacheResponse {
                tag: h.resp_tag.val().to_u64() as u16,
                outcome: h.resp_outcome.val().to_u64() as u8,
                commit: h.resp_commit.val(),
                word: h.resp_word.val().to_u64() as u8,
            }),
            mem_req: h.mem_req_valid.val().then(|| MemRequest { write: h.mem_req_write.val(), address: h.mem_req_address.val().to_u64() }),
            mem_fill_ready: h.mem_fill_ready.val(),
            misses: h.misses.val().to_u64() as u8,
        }
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Kind {
        Read,
        Write,
        Reserve,
        Flush,
    }

    /// A request offered and not yet taken (held stable).
    #[derive(Clone, Copy, Debug)]
    struct Request {
        kind: Kind,
        address: u64,
        high: bool,
        tag: u16,
    }

    /// A reservation's commit: (first cycle it is offered, word, offset, high, tag).
    type Commit = (u64, u8, u64, bool, u16);

    /// Rates per cycle (request offered, response and memory ready, a due
    /// fill answered) and per request (reservation, write, flush); line
    /// tags in the pool (times 2-3 sets); the longest fill latency, cycles.
    #[derive(Clone, Copy)]
    struct Traffic {
        tags: usize,
        latency: u64,
        request: f64,
        resp_ready: f64,
        mem_ready: f64,
        fill: f64,
        reserve: f64,
        write: f64,
        flush: f64,
    }

    #[derive(Debug, Default)]
    struct Coverage {
        hits: usize,
        /// Hits that went while a miss register was in use.
        hits_under_misses: usize,
        /// Cycles all miss registers were in use / all fills were outstanding.
        slots_full: usize,
        fills_full: usize,
        /// Line misses that evict a line whose read's fill or parked read
        /// is still outstanding.
        evicted_in_flight: usize,
        sector_misses: usize,
        line_misses: usize,
        parked: usize,
        write_backs: usize,
        commits: usize,
        flushes: usize,
        waited: usize,
        /// Held victims moved to the victim buffer, entries written back,
        /// commits into an entry, line misses waiting for an entry's line.
        moves: usize,
        drains: usize,
        buffer_commits: usize,
        buffer_waits: usize,
    }

    /// Drive the hardware and the model side by side for `cycles` under
    /// legal stimulus (as the pipelined slice and the delivery testbench
    /// drive the cache), comparing every output every cycle.
    fn run(seed: u64, cycles: u64, t: Traffic) -> Coverage {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut hw = PipelinedMetadataCache::default();
        hw.connect_all();
        let mut model = PipelinedMetadataCacheModel::default();
        let mut cov = Coverage::default();
        // Lines from a few tags in two or three sets, so that sets see more
        // lines than ways: line misses, dirty victims, secondary misses.
        let tags: Vec<u64> = (0..t.tags).map(|_| rng.gen_range(0u64..1 << 54)).collect();
        let sets: Vec<u64> = (0..rng.gen_range(2..=3)).map(|_| rng.gen_range(0..SETS as u64)).collect();
        // Seed 0 starts from power-up (LRU ranks all 0); the others are
        // reset first. Each run is reset once more on the way.
        let reset_at = rng.gen_range(cycles / 3..2 * cycles / 3);
        // The next request, and whether it is offered (then held until taken).
        let (mut next, mut offering): (Option<Request>, bool) = (None, false);
        // Tag -> (request, its commit is what remains).
        let mut in_flight: HashMap<u16, (Request, bool)> = HashMap::new();
        let mut reserved: Vec<u64> = Vec::new();
        let mut commits: VecDeque<Commit> = VecDeque::new();
        // Fills owed, in order: the cycle each may be answered from.
        let mut fills: VecDeque<u64> = VecDeque::new();
        let mut last_address = 0u64;
        for cycle in 0..cycles {
            let reset = (seed != 0 && cycle < 2) || cycle == reset_at;
            if reset {
                (next, offering) = (None, false);
                in_flight.clear();
                reserved.clear();
                commits.clear();
                fills.clear();
            } else if next.is_none() {
                let kind = if rng.gen_bool(t.flush) {
                    Kind::Flush
                } else if rng.gen_bool(t.reserve) {
                    Kind::Reserve
                } else if rng.gen_bool(t.write) {
                    Kind::Write
                } else {
                    Kind::Read
                };
                let address = if rng.gen_bool(0.3) {
                    // Another nibble of the last sector: lookups park behind its fill.
                    last_address / SECTOR_BYTES * SECTOR_BYTES + rng.gen_range(0..SECTOR_BYTES)
                } else {
                    let (tag, set) = (tags[rng.gen_range(0..tags.len())], sets[rng.gen_range(0..sets.len())] as usize);
                    geometry().sector_address(tag, set, rng.gen_range(0..SECTORS)) + rng.gen_range(0..SECTOR_BYTES)
                };
                let tag = rng.gen_range(0..1u16 << TAG_BITS);
                if !in_flight.contains_key(&tag) {
                    next = Some(Request { kind, address, high: rng.gen(), tag });
                    last_address = address;
                }
            }
            if let (Some(r), false, false) = (next, offering, reset) {
                // The requester keeps requests to a reserved nibble (here:
                // byte) out until the commit has answered, flushes until
                // every reservation has.
                let blocked = match r.kind {
                    Kind::Flush => !reserved.is_empty(),
                    _ => reserved.contains(&r.address),
                };
                offering = !blocked && rng.gen_bool(t.request);
            }
            let pending = next.filter(|_| offering);
            let commit = commits.front().copied().filter(|c| c.0 <= cycle && !reset);
            let junk: u64 = rng.gen();
            // Under reset every input is junk (the hardware drops what it takes).
            let r = pending.unwrap_or(Request { kind: Kind::Read, address: junk, high: false, tag: junk as u16 & 511 });
            let i = PipelinedMetadataCacheIn {
                reset,
                req_valid: pending.is_some() || reset && junk & 1 == 1,
                req_write: r.kind == Kind::Write,
                req_reserve: r.kind == Kind::Reserve,
                req_flush: r.kind == Kind::Flush,
                req_address: r.address,
                req_tag: r.tag,
                commit_valid: commit.is_some() || reset && junk & 2 == 2,
                commit_word: commit.map_or(junk as u8 & 127, |c| c.1),
                commit_tag: commit.map_or(junk as u16 >> 7, |c| c.4),
                resp_ready: rng.gen_bool(t.resp_ready),
                mem_req_ready: rng.gen_bool(t.mem_ready),
                mem_fill_valid: fills.front().is_some_and(|&due| due <= cycle) && rng.gen_bool(t.fill) || reset && junk & 4 == 4,
            };
            hw.reset.next = i.reset;
            hw.req_valid.next = i.req_valid;
            hw.req_write.next = i.req_write;
            hw.req_reserve.next = i.req_reserve;
            hw.req_flush.next = i.req_flush;
            hw.req_address.next = i.req_address.into();
            hw.req_high.next = r.high;
            hw.req_value.next = (junk >> 60).into();
            hw.req_tag.next = (i.req_tag as u64).into();
            hw.commit_valid.next = i.commit_valid;
            hw.commit_word.next = (i.commit_word as u64).into();
            hw.commit_offset.next = commit.map_or(junk >> 20 & 31, |c| c.2).into();
            hw.commit_high.next = commit.is_some_and(|c| c.3);
            hw.commit_value.next = (junk >> 40 & 15).into();
            hw.commit_tag.next = (i.commit_tag as u64).into();
            hw.resp_ready.next = i.resp_ready;
            hw.mem_req_ready.next = i.mem_req_ready;
            hw.mem_fill_valid.next = i.mem_fill_valid;
            hw.mem_fill_data.next = junk.into();
            settle(&mut hw);
            let want = hardware_out(&hw);
            assert_eq!(model.outputs(&i), want, "seed {seed}, cycle {cycle}, inputs {i:?}");

            // Coverage, and the requester's and memory's side of each handshake.
            let d = model.decide(&i);
            cov.parked += d.park_go as usize;
            cov.hits_under_misses += (d.hit_go && !model.slots.is_empty()) as usize;
            cov.slots_full += (model.slots.len() == MISS_SLOTS) as usize;
            cov.fills_full += (model.fills_outstanding() == FILL_SLOTS) as usize;
            cov.evicted_in_flight += d
                .probe
                .filter(|p| d.line_miss_go && model.slots.iter().any(|s| line_of(s.word) == p.set * WAYS + p.victim))
                .is_some() as usize;
            cov.waited += (i.req_valid && !want.req_ready) as usize;
            cov.moves += (d.evict_go && d.probe.is_some_and(|p| p.move_to.is_some())) as usize;
            cov.drains += d.drain.is_some() as usize;
            cov.buffer_commits += (d.commit_go && d.commit_vb.is_some()) as usize;
            cov.buffer_waits += d.probe.is_some_and(|p| p.hit.is_none() && p.vb_block) as usize;
            if !reset {
                if i.req_valid && want.req_ready {
                    let r = next.take().expect("offered");
                    offering = false;
                    in_flight.insert(r.tag, (r, false));
                    if r.kind == Kind::Reserve {
                        reserved.push(r.address);
                    }
                }
                if i.commit_valid && want.commit_ready {
                    commits.pop_front();
                    cov.commits += 1;
                }
                if let (Some(resp), true) = (want.resp, i.resp_ready) {
                    let (r, committing) = in_flight.remove(&resp.tag).expect("a response's tag is in flight");
                    assert_eq!(resp.commit, committing, "seed {seed}, cycle {cycle}: resp_commit");
                    match (r.kind, committing) {
                        (_, true) => reserved.retain(|&a| a != r.address),
                        (Kind::Flush, _) => cov.flushes += 1,
                        (kind, _) => {
                            match resp.outcome as u64 {
                                outcome::HIT => cov.hits += 1,
                                outcome::SECTOR_MISS => cov.sector_misses += 1,
                                _ => cov.line_misses += 1,
                            }
                            if kind == Kind::Reserve {
                                let due = cycle + 1 + rng.gen_range(0..16);
                                commits.push_back((due, resp.word, r.address % SECTOR_BYTES, r.high, resp.tag));
                                in_flight.insert(resp.tag, (r, true));
                            }
                        }
                    }
                }
                if let (Some(m), true) = (want.mem_req, i.mem_req_ready) {
                    if m.write {
                        cov.write_backs += 1;
                    } else {
                        fills.push_back(cycle + rng.gen_range(1..=t.latency));
                    }
                }
                if i.mem_fill_valid && want.mem_fill_ready {
                    fills.pop_front();
                }
            }
            model.clock(&i);
            edge(&mut hw, |h| &mut h.clock);
        }
        cov
    }

    /// Cycles per run.
    const CYCLES: u64 = 20_000;

    #[test]
    fn the_model_equals_the_hardware_every_cycle() {
        #[rustfmt::skip]
        let traffics = [
            Traffic { tags: 6, latency: 60, request: 0.7, resp_ready: 0.7, mem_ready: 0.7, fill: 0.5, reserve: 0.3, write: 0.3, flush: 0.01 },
            Traffic { tags: 6, latency: 60, request: 1.0, resp_ready: 1.0, mem_ready: 1.0, fill: 1.0, reserve: 0.2, write: 0.2, flush: 0.005 },
            Traffic { tags: 6, latency: 60, request: 0.9, resp_ready: 0.4, mem_ready: 0.5, fill: 0.3, reserve: 0.5, write: 0.1, flush: 0.01 },
            Traffic { tags: 6, latency: 60, request: 0.5, resp_ready: 0.9, mem_ready: 0.3, fill: 0.8, reserve: 0.1, write: 0.5, flush: 0.02 },
            // Mostly hits: 3-4 lines per set for its 4 ways.
            Traffic { tags: 3, latency: 60, request: 1.0, resp_ready: 0.9, mem_ready: 0.9, fill: 0.9, reserve: 0.3, write: 0.2, flush: 0.003 },
            Traffic { tags: 4, latency: 8, request: 1.0, resp_ready: 1.0, mem_ready: 1.0, fill: 1.0, reserve: 0.4, write: 0.2, flush: 0.003 },
            // Many lines: line misses, dirty victims, long waits.
            Traffic { tags: 12, latency: 60, request: 1.0, resp_ready: 0.8, mem_ready: 0.8, fill: 0.7, reserve: 0.3, write: 0.3, flush: 0.01 },
            Traffic { tags: 12, latency: 8, request: 0.8, resp_ready: 0.6, mem_ready: 0.9, fill: 0.9, reserve: 0.2, write: 0.4, flush: 0.01 },
        ];
        let (mut total_slots_full, mut total_fills_full, mut total_evicted) = (0, 0, 0);
        let mut buffer = [0; 4];
        for (seed, t) in traffics.into_iter().enumerate() {
            let cov = run(seed as u64, CYCLES, t);
            eprintln!("seed {seed}: {cov:?}");
            total_slots_full += cov.slots_full;
            total_fills_full += cov.fills_full;
            total_evicted += cov.evicted_in_flight;
            for (total, c) in buffer.iter_mut().zip([cov.moves, cov.drains, cov.buffer_commits, cov.buffer_waits]) {
                *total += c;
            }
            let counts = [
                cov.hits,
                cov.hits_under_misses,
                cov.sector_misses,
                cov.line_misses,
                cov.parked,
                cov.write_backs,
                cov.commits,
                cov.flushes,
                cov.waited,
            ];
            assert!(counts.iter().all(|&c| c > 0), "seed {seed}: coverage {cov:?}");
        }
        assert!(total_slots_full > 0, "every miss register in use: never");
        // A short fill latency (seed 5) never has every fill slot in use.
        assert!(total_fills_full > 0, "every fill slot in use: never");
        assert!(total_evicted > 0, "a line evicted under its read's fill: never");
        assert!(buffer.iter().all(|&c| c > 0), "victim buffer: moves, drains, commits into an entry, waits for an entry's line: {buffer:?}");
    }

    /// Random traffic and pools, 64 runs (`make soak`, about a minute).
    #[test]
    #[ignore]
    fn soak() {
        let mut rng = ChaCha8Rng::seed_from_u64(0x50A);
        for seed in 100..164 {
            let t = Traffic {
                tags: rng.gen_range(2..=16),
                latency: rng.gen_range(1..=60),
                request: rng.gen_range(0.2..=1.0),
                resp_ready: rng.gen_range(0.2..=1.0),
                mem_ready: rng.gen_range(0.2..=1.0),
                fill: rng.gen_range(0.1..=1.0),
                reserve: rng.gen_range(0.0..=0.8),
                write: rng.gen_range(0.0..=0.6),
                flush: rng.gen_range(0.0..=0.03),
            };
            run(seed, CYCLES, t);
        }
    }
}
