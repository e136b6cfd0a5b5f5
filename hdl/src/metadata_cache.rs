//! The metadata cache of one memory-controller slice, in hardware.

use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Outcome codes of [`MetadataCache`]'s `resp_outcome` (as
/// `buddy_golden::metadata_cache::Outcome`).
pub mod outcome {
    /// Line present, sector valid (also the code of a finished flush).
    pub const HIT: u64 = 0;
    /// Line present, sector not valid: one sector fill.
    pub const SECTOR_MISS: u64 = 1;
    /// Line absent: the LRU way is evicted (dirty sectors written back) and one sector filled.
    pub const LINE_MISS: u64 = 2;
    /// Every outcome code with its name (waveform viewers' translate filters).
    pub const NAMES: [(u64, &str); 3] = [(HIT, "HIT"), (SECTOR_MISS, "SECTOR_MISS"), (LINE_MISS, "LINE_MISS")];
}

/// Sets of the hardware cache (4 KiB / (4 ways x 128 B), Table I).
pub const SETS: usize = buddy_golden::metadata_cache::DEFAULT_SIZE_BYTES / (WAYS * buddy_golden::ENTRY_BYTES);
/// Ways per set.
pub const WAYS: usize = buddy_golden::metadata_cache::DEFAULT_WAYS;
/// Slices the metadata sectors are dealt over (Table I: 8), golden's
/// default. The hardware wires golden's `MetadataCacheConfig::place` for
/// 8 slices and 8 sets: sector in the line = address bits `[9:8]`, set =
/// `[12:10] ^ [15:13]`, tag = `{[63:13], [7:5]}` (54 bits).
pub const SLICES: usize = buddy_golden::metadata_cache::DEFAULT_SLICES;
const _: () = assert!(SETS == 8 && SLICES == 8 && SECTORS_PER_LINE == 4, "the address wiring is for 8 sets, 8 slices, 4 sectors");

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
enum CacheState {
    /// Writes every set's tags invalid and its LRU order (after reset).
    Init,
    Idle,
    /// Tag and LRU arrays are being read.
    Tag,
    Lookup,
    /// Scans the victim's sectors for dirty ones.
    Evict,
    /// Offers one dirty sector to memory.
    EvictSend,
    FillRequest,
    FillWait,
    /// Reads or merges the nibble; writes data, tags and LRU.
    Update,
    Respond,
    FlushTag,
    Victim,
    Evicted,
}

/// [`MetadataCache`] timing, clock cycles from the cycle a request is
/// accepted (`req_valid` and `req_ready` high): a hit raises `resp_valid`
/// `HIT_CYCLES` later (Tag, Lookup, Update, Respond).
pub const HIT_CYCLES: u64 = 4;
/// Accepted request to the fill request (`mem_req_valid`, a read) of a
/// sector miss (Tag, Lookup, Fill).
pub const SECTOR_FILL_CYCLES: u64 = 3;
/// The cycle the fill data is taken to `resp_valid` (Update, Respond).
pub const AFTER_FILL_CYCLES: u64 = 2;
/// Sectors per line.
pub const SECTORS_PER_LINE: u64 = 4;

/// The metadata cache of one memory-controller slice (docs/formats.md#metadata-cache;
/// Buddy Compression Sec. III, Fig. 6b), mirroring
/// `buddy_golden::metadata_cache::MetadataCache` with its default geometry:
/// 4 KiB, 4 ways x 8 sets of 128-byte lines, four 32-byte sectors per line
/// with a valid and a dirty bit each, true LRU, write-back, write-allocate.
///
/// ```text
///  req ──▶ Idle ─▶ Tag ─▶ Lookup ─┬─ hit, sector valid ─────────────────────────▶ Update ─▶ Respond ──▶ resp
///                                 ├─ hit, sector invalid ─────────▶ FillRequest ─▶ FillWait ─┘
///                                 └─ miss ─▶ Evict ⇄ EvictSend ──┘  (mem_req)     (mem_fill)
///  flush ─▶ FlushTag ─▶ Victim ─▶ Evict ⇄ EvictSend ─▶ Evicted ─(next way/set)─▶ Respond
/// ```
///
/// The LRU and data arrays are written in Respond from registers loaded in
/// Update, so that no combinational path runs from a RAM's read port to its
/// write port.
///
/// Arrays (one `RAM` each, registered read, so yosys infers memories):
/// per way a tag array of 8 x 63 bits (`[53:0]` tag = address bits
/// `{[63:13], [7:5]}`, see [`SLICES`], `[54]` valid, `[58:55]` sector valid, `[62:59]` sector
/// dirty), an LRU array of 8 x 8 bits (way `w`'s rank at `[2w+1:2w]`,
/// 3 = least recently used), and a data array of 128 x 256 bits addressed
/// `{set, way, sector}` (one 32-byte sector per word, byte `i` at
/// `[8i+7:8i]`; low nibble of a byte = even entry).
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset (invalidates every line, 8 cycles) |
/// | `req_valid`, `req_ready` | 1, 1 | in, out | request handshake |
/// | `req_write` | 1 | in | 0: read the nibble, 1: write `req_value` |
/// | `req_flush` | 1 | in | write back every dirty sector and invalidate every line (other fields ignored) |
/// | `req_address`, `req_high` | 64, 1 | in | metadata byte address; 1 = high nibble (odd entry) |
/// | `req_value` | 4 | in | nibble to write |
/// | `resp_valid`, `resp_ready` | 1, 1 | out, in | response handshake, one per request |
/// | `resp_nibble` | 4 | out | the nibble read (a write returns the value written; a flush 0) |
/// | `resp_outcome` | 2 | out | an [`outcome`] code (0 for a flush) |
/// | `mem_req_valid`, `mem_req_ready` | 1, 1 | out, in | memory-side request: a sector fill or write-back |
/// | `mem_req_write` | 1 | out | 1: write-back of `mem_req_data`, 0: fill (answered on `mem_fill_*`) |
/// | `mem_req_address` | 64 | out | sector-aligned byte address |
/// | `mem_req_data` | 256 | out | the dirty sector (write-backs) |
/// | `mem_fill_valid`, `mem_fill_ready` | 1, 1 | in, out | the filled sector |
/// | `mem_fill_data` | 256 | in | sector contents, byte `i` at `[8i+7:8i]` |
///
/// Memory-side requests come in the golden model's order: a line miss
/// writes back the victim's dirty sectors (sector order) before the fill;
/// a flush walks sets, then ways, then sectors. Write-backs expect no answer.
///
/// Timing: one request at a time. A hit answers 4 cycles after the
/// request is accepted (Tag, Lookup, Update, then `resp_valid`); a miss
/// adds 1 cycle plus the memory latency per fill and 2 cycles per dirty
/// sector written back. `req_ready` is high only in Idle (a flip-flop state).
#[derive(SettleBlock)]
pub struct MetadataCache {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub req_valid: Signal<In, Bit>,
    pub req_write: Signal<In, Bit>,
    pub req_flush: Signal<In, Bit>,
    pub req_address: Signal<In, Bits<64>>,
    pub req_high: Signal<In, Bit>,
    pub req_value: Signal<In, Bits<4>>,
    pub req_ready: Signal<Out, Bit>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_nibble: Signal<Out, Bits<4>>,
    pub resp_outcome: Signal<Out, Bits<2>>,
    pub resp_ready: Signal<In, Bit>,
    pub mem_req_valid: Signal<Out, Bit>,
    pub mem_req_write: Signal<Out, Bit>,
    pub mem_req_address: Signal<Out, Bits<64>>,
    pub mem_req_data: Signal<Out, Bits<256>>,
    pub mem_req_ready: Signal<In, Bit>,
    pub mem_fill_valid: Signal<In, Bit>,
    pub mem_fill_data: Signal<In, Bits<256>>,
    pub mem_fill_ready: Signal<Out, Bit>,
    tags: [RAM<Bits<63>, 3>; 4],
    lru: RAM<Bits<8>, 3>,
    data: RAM<Bits<256>, 7>,
    way_id: Vec<Constant<Bits<2>>>,
    state: DFF<CacheState>,
    /// The request being served.
    write: DFF<Bit>,
    address: DFF<Bits<64>>,
    high: DFF<Bit>,
    value: DFF<Bits<4>>,
    set: DFF<Bits<3>>,
    way: DFF<Bits<2>>,
    sector: DFF<Bits<2>>,
    flushing: DFF<Bit>,
    outcome: DFF<Bits<2>>,
    /// The served way's sector valid and dirty bits.
    sector_valid: DFF<Bits<4>>,
    sector_dirty: DFF<Bits<4>>,
    /// The line being evicted: its tag and dirty sectors.
    victim_tag: DFF<Bits<54>>,
    victim_dirty: DFF<Bits<4>>,
    from_fill: DFF<Bit>,
    fill: DFF<Bits<256>>,
    nibble: DFF<Bits<4>>,
    lru_next: DFF<Bits<8>>,
    data_next: DFF<Bits<256>>,
    tag_word: [Signal<Local, Bits<63>>; 4],
    hit: [Signal<Local, Bit>; 4],
    rank: [Signal<Local, Bits<2>>; 4],
    key: [Signal<Local, Bits<3>>; 4],
    new_rank: [Signal<Local, Bits<2>>; 4],
    data_address: Signal<Local, Bits<7>>,
    any_hit: Signal<Local, Bit>,
    hit_way: Signal<Local, Bits<2>>,
    victim_way: Signal<Local, Bits<2>>,
    victim_key: Signal<Local, Bits<3>>,
    request_tag: Signal<Local, Bits<54>>,
    request_sector_bit: Signal<Local, Bits<4>>,
    selected_word: Signal<Local, Bits<63>>,
    served_rank: Signal<Local, Bits<2>>,
    new_lru: Signal<Local, Bits<8>>,
    sector_data: Signal<Local, Bits<256>>,
    nibble_offset: Signal<Local, Bits<8>>,
    merged: Signal<Local, Bits<256>>,
    shifted: Signal<Local, Bits<256>>,
    new_dirty: Signal<Local, Bits<4>>,
}

impl Default for MetadataCache {
    fn default() -> Self {
        MetadataCache {
            _settle: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            req_valid: Default::default(),
            req_write: Default::default(),
            req_flush: Default::default(),
            req_address: Default::default(),
            req_high: Default::default(),
            req_value: Default::default(),
            req_ready: Default::default(),
            resp_valid: Default::default(),
            resp_nibble: Default::default(),
            resp_outcome: Default::default(),
            resp_ready: Default::default(),
            mem_req_valid: Default::default(),
            mem_req_write: Default::default(),
            mem_req_address: Default::default(),
            mem_req_data: Default::default(),
            mem_req_ready: Default::default(),
            mem_fill_valid: Default::default(),
            mem_fill_data: Default::default(),
            mem_fill_ready: Default::default(),
            tags: Default::default(),
            lru: Default::default(),
            data: Default::default(),
            way_id: (0..WAYS as u64).map(|w| Constant::new(w.into())).collect(),
            state: Default::default(),
            write: Default::default(),
            address: Default::default(),
            high: Default::default(),
            value: Default::default(),
            set: Default::default(),
            way: Default::default(),
            sector: Default::default(),
            flushing: Default::default(),
            outcome: Default::default(),
            sector_valid: Default::default(),
            sector_dirty: Default::default(),
            victim_tag: Default::default(),
            victim_dirty: Default::default(),
            from_fill: Default::default(),
            fill: Default::default(),
            nibble: Default::default(),
            lru_next: Default::default(),
            data_next: Default::default(),
            tag_word: Default::default(),
            hit: Default::default(),
            rank: Default::default(),
            key: Default::default(),
            new_rank: Default::default(),
            data_address: Default::default(),
            any_hit: Default::default(),
            hit_way: Default::default(),
            victim_way: Default::default(),
            victim_key: Default::default(),
            request_tag: Default::default(),
            request_sector_bit: Default::default(),
            selected_word: Default::default(),
            served_rank: Default::default(),
            new_lru: Default::default(),
            sector_data: Default::default(),
            nibble_offset: Default::default(),
            merged: Default::default(),
            shifted: Default::default(),
            new_dirty: Default::default(),
        }
    }
}

seq_macro::seq!(W in 0..4 {
impl Logic for MetadataCache {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, write, address, high, value, set, way, sector, flushing, outcome, sector_valid,
            sector_dirty, victim_tag, victim_dirty, from_fill, fill, nibble, lru_next, data_next
        );
        for w in 0..4 {
            self.tags[w].read_clock.next = self.clock.val();
            self.tags[w].write_clock.next = self.clock.val();
            self.tags[w].read_address.next = self.set.q.val();
            self.tags[w].write_address.next = self.set.q.val();
            self.tags[w].write_enable.next = false;
            self.tags[w].write_data.next = 0.into();
        }
        self.lru.read_clock.next = self.clock.val();
        self.lru.write_clock.next = self.clock.val();
        self.lru.read_address.next = self.set.q.val();
        self.lru.write_address.next = self.set.q.val();
        self.lru.write_enable.next = false;
        self.lru.write_data.next = self.lru_next.q.val();
        self.data.read_clock.next = self.clock.val();
        self.data.write_clock.next = self.clock.val();
        self.data.write_enable.next = false;
        self.data.write_data.next = self.data_next.q.val();

        // Tag compare and victim choice: an invalid way first, else the
        // least recently used; among invalid ways the oldest (the golden
        // model's `min_by_key((valid, last_use))`).
        self.request_tag.next = (bit_cast::<54, 51>(self.address.q.val().get_bits::<51>(13)) << 3) | bit_cast::<54, 3>(self.address.q.val().get_bits::<3>(5));
        self.any_hit.next = false;
        self.hit_way.next = 0.into();
        self.victim_way.next = 0.into();
        self.victim_key.next = 0.into();
        #(
            self.tag_word[W].next = self.tags[W].read_data.val();
            self.rank[W].next = self.lru.read_data.val().get_bits::<2>(2 * W);
            self.hit[W].next =
                self.tag_word[W].val().get_bit(54) & (self.tag_word[W].val().get_bits::<54>(0) == self.request_tag.val());
            if self.hit[W].val() {
                self.any_hit.next = true;
                self.hit_way.next = self.way_id[W].val();
            }
            // Key {invalid, rank}: unique, since the ranks are a permutation.
            self.key[W].next = bit_cast::<3, 2>(self.rank[W].val());
            if !self.tag_word[W].val().get_bit(54) {
                self.key[W].next = bit_cast::<3, 2>(self.rank[W].val()) + 4;
            }
            if self.key[W].val() >= self.victim_key.val() {
                self.victim_key.next = self.key[W].val();
                self.victim_way.next = self.way_id[W].val();
            }
        )*
        // The tag word of the served way, and its LRU update: it becomes
        // the most recent, the ways more recent than it age by one.
        self.selected_word.next = 0.into();
        self.served_rank.next = 0.into();
        #(
            if self.way.q.val() == self.way_id[W].val() {
                self.selected_word.next = self.tag_word[W].val();
                self.served_rank.next = self.rank[W].val();
            }
        )*
        #(
            self.new_rank[W].next = 0.into();
            if (self.way.q.val() != self.way_id[W].val()) & (self.rank[W].val() < self.served_rank.val()) {
                self.new_rank[W].next = self.rank[W].val() + 1;
            }
            if (self.way.q.val() != self.way_id[W].val()) & (self.rank[W].val() > self.served_rank.val()) {
                self.new_rank[W].next = self.rank[W].val();
            }
        )*
        self.new_lru.next = (bit_cast::<8, 2>(self.new_rank[3].val()) << 6)
            | (bit_cast::<8, 2>(self.new_rank[2].val()) << 4)
            | (bit_cast::<8, 2>(self.new_rank[1].val()) << 2)
            | bit_cast::<8, 2>(self.new_rank[0].val());

        // The data array reads the served sector; in Lookup the way is the
        // hit way, still being decided, so that Update finds the data.
        self.data_address.next =
            (bit_cast::<7, 3>(self.set.q.val()) << 4) | (bit_cast::<7, 2>(self.way.q.val()) << 2) | bit_cast::<7, 2>(self.sector.q.val());
        self.data.write_address.next = self.data_address.val();
        self.sector_data.next = self.data.read_data.val();
        if self.from_fill.q.val() {
            self.sector_data.next = self.fill.q.val();
        }
        self.nibble_offset.next = bit_cast::<8, 5>(self.address.q.val().get_bits::<5>(0)) << 3;
        if self.high.q.val() {
            self.nibble_offset.next = (bit_cast::<8, 5>(self.address.q.val().get_bits::<5>(0)) << 3) + 4;
        }
        self.merged.next = (self.sector_data.val() & !(bit_cast::<256, 4>(bits::<4>(15)) << self.nibble_offset.val()))
            | (bit_cast::<256, 4>(self.value.q.val()) << self.nibble_offset.val());
        // A part-select of a shift is no Verilog-2005: shift into a signal first.
        self.shifted.next = self.sector_data.val() >> self.nibble_offset.val();
        if !self.write.q.val() {
            self.merged.next = self.sector_data.val();
        }
        self.request_sector_bit.next = bits::<4>(1) << self.sector.q.val();
        self.new_dirty.next = self.sector_dirty.q.val();
        if self.write.q.val() {
            self.new_dirty.next = self.sector_dirty.q.val() | self.request_sector_bit.val();
        }

        self.req_ready.next = false;
        self.resp_valid.next = false;
        self.resp_nibble.next = self.nibble.q.val();
        self.resp_outcome.next = self.outcome.q.val();
        self.mem_req_valid.next = false;
        self.mem_req_write.next = false;
        self.mem_req_address.next = (self.address.q.val() >> 5) << 5;
        self.mem_req_data.next = self.data.read_data.val();
        self.mem_fill_ready.next = false;

        match self.state.q.val() {
            CacheState::Init => {
                for w in 0..4 {
                    self.tags[w].write_enable.next = true;
                }
                // Ranks 3, 2, 1, 0 for ways 0..3: the golden model picks
                // the lowest invalid way first.
                self.lru.write_data.next = 0x1B.into();
                self.lru.write_enable.next = true;
                self.set.d.next = self.set.q.val() + 1;
                if self.set.q.val() == 7 {
                    self.state.d.next = CacheState::Idle;
                }
            }
            CacheState::Idle => {
                self.req_ready.next = true;
                if self.req_valid.val() {
                    self.write.d.next = self.req_write.val();
                    self.address.d.next = self.req_address.val();
                    self.high.d.next = self.req_high.val();
                    self.value.d.next = self.req_value.val();
                    self.set.d.next = self.req_address.val().get_bits::<3>(10) ^ self.req_address.val().get_bits::<3>(13);
                    self.sector.d.next = self.req_address.val().get_bits::<2>(8);
                    self.flushing.d.next = false;
                    self.from_fill.d.next = false;
                    self.state.d.next = CacheState::Tag;
                    if self.req_flush.val() {
                        self.flushing.d.next = true;
                        self.set.d.next = 0.into();
                        self.way.d.next = 0.into();
                        self.state.d.next = CacheState::FlushTag;
                    }
                }
            }
            CacheState::Tag => {
                self.state.d.next = CacheState::Lookup;
            }
            CacheState::Lookup => {
                if self.any_hit.val() {
                    self.way.d.next = self.hit_way.val();
                    self.data_address.next = (bit_cast::<7, 3>(self.set.q.val()) << 4)
                        | (bit_cast::<7, 2>(self.hit_way.val()) << 2)
                        | bit_cast::<7, 2>(self.sector.q.val());
                    self.outcome.d.next = 0.into();
                    self.state.d.next = CacheState::Update;
                    for w in 0..4 {
                        if self.hit[w].val() {
                            self.sector_valid.d.next = self.tag_word[w].val().get_bits::<4>(55);
                            self.sector_dirty.d.next = self.tag_word[w].val().get_bits::<4>(59);
                            if (self.tag_word[w].val().get_bits::<4>(55) & self.request_sector_bit.val()) == 0 {
                                self.outcome.d.next = 1.into();
                                self.state.d.next = CacheState::FillRequest;
                            }
                        }
                    }
                } else {
                    self.way.d.next = self.victim_way.val();
                    self.outcome.d.next = 2.into();
                    self.state.d.next = CacheState::Victim;
                }
            }
            CacheState::Victim => {
                // Latch the line of `way` to evict (a line miss's victim, or
                // the next line of a flush).
                self.victim_tag.d.next = self.selected_word.val().get_bits::<54>(0);
                self.victim_dirty.d.next = 0.into();
                if self.selected_word.val().get_bit(54) {
                    self.victim_dirty.d.next = self.selected_word.val().get_bits::<4>(59);
                }
                self.sector.d.next = 0.into();
                self.state.d.next = CacheState::Evict;
            }
            CacheState::Evict => {
                if self.victim_dirty.q.val().get_bit(self.sector.q.val().index()) {
                    self.state.d.next = CacheState::EvictSend;
                } else {
                    self.sector.d.next = self.sector.q.val() + 1;
                    if self.sector.q.val() == 3 {
                        self.state.d.next = CacheState::Evicted;
                    }
                }
            }
            CacheState::EvictSend => {
                self.mem_req_valid.next = true;
                self.mem_req_write.next = true;
                self.mem_req_address.next = (bit_cast::<64, 51>(self.victim_tag.q.val().get_bits::<51>(3)) << 13)
                    | (bit_cast::<64, 3>(self.set.q.val() ^ self.victim_tag.q.val().get_bits::<3>(3)) << 10)
                    | (bit_cast::<64, 2>(self.sector.q.val()) << 8)
                    | (bit_cast::<64, 3>(self.victim_tag.q.val().get_bits::<3>(0)) << 5);
                if self.mem_req_ready.val() {
                    self.sector.d.next = self.sector.q.val() + 1;
                    self.state.d.next = CacheState::Evict;
                    if self.sector.q.val() == 3 {
                        self.state.d.next = CacheState::Evicted;
                    }
                }
            }
            CacheState::Evicted => {
                // The evicted line becomes invalid (tag kept, as golden).
                for w in 0..4 {
                    if self.way.q.val() == self.way_id[w].val() {
                        self.tags[w].write_enable.next = true;
                    }
                    self.tags[w].write_data.next = bit_cast::<63, 54>(self.victim_tag.q.val());
                }
                if self.flushing.q.val() {
                    self.way.d.next = self.way.q.val() + 1;
                    self.state.d.next = CacheState::Victim;
                    if self.way.q.val() == 3 {
                        self.set.d.next = self.set.q.val() + 1;
                        self.state.d.next = CacheState::FlushTag;
                        if self.set.q.val() == 7 {
                            self.set.d.next = 0.into();
                            self.outcome.d.next = 0.into();
                            self.nibble.d.next = 0.into();
                            self.state.d.next = CacheState::Respond;
                        }
                    }
                } else {
                    // A line miss continues with the fill of the new line.
                    self.sector.d.next = self.address.q.val().get_bits::<2>(8);
                    self.sector_valid.d.next = 0.into();
                    self.sector_dirty.d.next = 0.into();
                    self.state.d.next = CacheState::FillRequest;
                }
            }
            CacheState::FillRequest => {
                self.mem_req_valid.next = true;
                if self.mem_req_ready.val() {
                    self.state.d.next = CacheState::FillWait;
                }
            }
            CacheState::FillWait => {
                self.mem_fill_ready.next = true;
                if self.mem_fill_valid.val() {
                    self.fill.d.next = self.mem_fill_data.val();
                    self.from_fill.d.next = true;
                    self.sector_valid.d.next = self.sector_valid.q.val() | self.request_sector_bit.val();
                    self.state.d.next = CacheState::Update;
                }
            }
            CacheState::Update => {
                self.nibble.d.next = self.shifted.val().get_bits::<4>(0);
                if self.write.q.val() {
                    self.nibble.d.next = self.value.q.val();
                }
                // The arrays' write data comes from registers (written in
                // Respond), so no path runs from a RAM's read to its write port.
                self.data_next.d.next = self.merged.val();
                self.lru_next.d.next = self.new_lru.val();
                for w in 0..4 {
                    if self.way.q.val() == self.way_id[w].val() {
                        self.tags[w].write_enable.next = true;
                    }
                    self.tags[w].write_data.next = (bit_cast::<63, 4>(self.new_dirty.val()) << 59)
                        | (bit_cast::<63, 4>(self.sector_valid.q.val()) << 55)
                        | (bits::<63>(1) << 54)
                        | bit_cast::<63, 54>(self.request_tag.val());
                }
                self.state.d.next = CacheState::Respond;
            }
            CacheState::Respond => {
                self.lru.write_enable.next = !self.flushing.q.val();
                self.data.write_enable.next = !self.flushing.q.val() & (self.write.q.val() | self.from_fill.q.val());
                self.resp_valid.next = true;
                if self.resp_ready.val() {
                    self.state.d.next = CacheState::Idle;
                }
            }
            CacheState::FlushTag => {
                self.state.d.next = CacheState::Victim;
            }
        }
        self.data.read_address.next = self.data_address.val();
        if self.reset.val() {
            self.state.d.next = CacheState::Init;
            self.set.d.next = 0.into();
        }
    }
}
});
