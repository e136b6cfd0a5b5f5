//! One Buddy Compression memory-controller slice in hardware: translation,
//! metadata cache, zero detection, compressor and decompressor,
//! read-modify-write, and the device and buddy memory ports.

use crate::address_translator::AddressTranslator;
use crate::entry_bits::EntryBits;
use crate::metadata_cache::MetadataCache;
use crate::part_sizes::PartSizes;
use crate::sector_lanes::{EntryMerge, SectorPick, SectorPlace};
use crate::{BpcCompressor, BpcDecompressor, MagBdiCompressor, MagBdiDecompressor, ZvcCompressor, ZvcDecompressor};
use buddy_golden::mag_bdi::Mag;
use buddy_golden::SizeClass;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// The input ports of the slice's lock-step lines (one per cycle: a
/// driver records them, the shipped testbench replays them on the
/// Verilog): (name, bits), in line order.
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
    ("req_va", 64),
    ("req_frame", 64),
    ("req_pte", 27),
    ("req_page_64k", 1),
    ("req_data", 1024),
    ("resp_ready", 1),
    ("dev_req_ready", 1),
    ("dev_resp_valid", 1),
    ("dev_resp_data", 256),
    ("buddy_req_ready", 1),
    ("buddy_resp_valid", 1),
    ("buddy_resp_data", 256),
];

/// The output ports of a lock-step line (name, bits, the valid that
/// qualifies it or "" when always compared).
pub const LOCKSTEP_OUTPUTS: &[(&str, usize, &str)] = &[
    ("req_ready", 1, ""),
    ("resp_valid", 1, ""),
    ("resp_write", 1, "resp_valid"),
    ("resp_entry", 1024, "resp_valid"),
    ("resp_class", 4, "resp_valid"),
    ("resp_error", 3, "resp_valid"),
    ("dev_req_valid", 1, ""),
    ("dev_req_write", 1, "dev_req_valid"),
    ("dev_req_address", 64, "dev_req_valid"),
    ("dev_req_data", 256, "dev_req_write"),
    ("dev_req_strobe", 32, "dev_req_write"),
    ("dev_req_len", 3, "dev_req_valid"),
    ("dev_req_first", 1, "dev_req_valid"),
    ("dev_resp_ready", 1, ""),
    ("buddy_req_valid", 1, ""),
    ("buddy_req_write", 1, "buddy_req_valid"),
    ("buddy_req_address", 64, "buddy_req_valid"),
    ("buddy_req_data", 256, "buddy_req_write"),
    ("buddy_req_strobe", 32, "buddy_req_write"),
    ("buddy_req_len", 3, "buddy_req_valid"),
    ("buddy_req_first", 1, "buddy_req_valid"),
    ("buddy_resp_ready", 1, ""),
];

/// The slice's timing facts, clock cycles, one state of [`SliceState`] per
/// cycle unless it waits on a handshake. The memory system's hardware
/// timing (`buddy_sim`'s fast engine with `slice_timing = "hardware"`)
/// is built from these and the sub-blocks' constants
/// ([`crate::timing`]); the RTL engine checks it request by request.
pub mod timing {
    /// A request accepted in `Idle` at cycle `s` reaches the stage after
    /// translation (`MdRead`, `Compress`, `PlainWrite`, or the device read
    /// of an uncompressed page) at `s + FRONT_CYCLES` (Translate, two
    /// cycles of TranslateWait).
    pub const FRONT_CYCLES: u64 = 4;
    /// The metadata cache's response at `r`: `ReadPlan` at `r + 1`, and the
    /// class's device sectors and the buddy sectors are offered from
    /// `WaitData` at `r + PLAN_CYCLES`.
    pub const PLAN_CYCLES: u64 = 2;
    /// `WaitData` finds every sector received at cycle `x` (the cycle after
    /// the last one arrived, or its first cycle); the next state (`Decode`, or `Respond` on an uncompressed
    /// page) starts at `x + AFTER_DATA_CYCLES`. A ZERO entry goes from
    /// `Decode` on to `AfterRead` one cycle later.
    pub const AFTER_DATA_CYCLES: u64 = 1;
    /// `Compress` offers at `c`; the compressor answers after its latency,
    /// `CompressWait` takes it and `WritePlan` follows: the first sectors
    /// are offered from `WriteData` at `c + latency + WRITE_PLAN_CYCLES`.
    pub const WRITE_PLAN_CYCLES: u64 = 2;
    /// Cycles per masked sector of an uncompressed page's write
    /// (`PlainWrite` offers it, then waits a cycle); unmasked sectors take 1.
    pub const PLAIN_WRITE_SECTOR_CYCLES: u64 = 2;
}

/// `resp_error` codes of a [`BuddyController`] response.
pub mod error {
    /// The request was served.
    pub const NONE: u64 = 0;
    // 1..=3: the translator's fault codes (crate::address_translator::fault).
    /// The stored entry does not decode (a reserved size code or a stream
    /// the decompressor rejects); nothing was written.
    pub const DECODE: u64 = 5;
    /// The codes of this module with their names (waveform viewers'
    /// translate filters; the fault codes' are `fault::NAMES`).
    pub const NAMES: [(u64, &str); 2] = [(NONE, "NONE"), (DECODE, "DECODE")];
}

/// Size class code of RAW, written as the literal 7 in `update` (the
/// class the translator is asked for: the whole device slot and buddy slot).
const RAW_CODE: u8 = SizeClass::Raw.code();
const _: () = assert!(RAW_CODE == 7 && SizeClass::Zero.code() == 0);

#[derive(Copy, Clone, PartialEq, Debug, LogicState)]
pub enum SliceState {
    Idle,
    /// Offers the access to the translator (class RAW: the whole slot).
    Translate,
    TranslateWait,
    /// Asks the metadata cache for the size nibble.
    MdRead,
    /// Waits for the nibble; on a miss (the cache's sector fill seen on
    /// the device port) reads the whole device slot meanwhile.
    MdReadWait,
    /// Class known: the device sectors it needs (unless the slot is being
    /// read already) and the buddy sectors.
    ReadPlan,
    WaitData,
    /// A ZERO entry is answered here; any other class is decompressed.
    Decode,
    DecodeWait,
    /// A read answers; a partial write merges its sectors in.
    AfterRead,
    Compress,
    CompressWait,
    WritePlan,
    WriteData,
    MdWrite,
    MdWriteWait,
    /// Uncompressed page: the masked sectors straight to device memory.
    PlainWrite,
    /// Writes back every dirty metadata sector (end of a run).
    Flush,
    Respond,
}

macro_rules! buddy_controller {
    ($(#[$doc:meta])* $name:ident, $comp:ty, $decomp:ty) => {
$(#[$doc])*
#[derive(SettleBlock)]
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
    pub req_va: Signal<In, Bits<64>>,
    pub req_frame: Signal<In, Bits<64>>,
    pub req_pte: Signal<In, Bits<27>>,
    pub req_page_64k: Signal<In, Bit>,
    pub req_data: Signal<In, EntryBits>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_ready: Signal<In, Bit>,
    pub resp_write: Signal<Out, Bit>,
    pub resp_entry: Signal<Out, EntryBits>,
    pub resp_class: Signal<Out, Bits<4>>,
    pub resp_error: Signal<Out, Bits<3>>,
    pub dev_req_valid: Signal<Out, Bit>,
    pub dev_req_ready: Signal<In, Bit>,
    pub dev_req_write: Signal<Out, Bit>,
    pub dev_req_address: Signal<Out, Bits<64>>,
    pub dev_req_data: Signal<Out, Bits<256>>,
    pub dev_req_strobe: Signal<Out, Bits<32>>,
    pub dev_req_len: Signal<Out, Bits<3>>,
    pub dev_req_first: Signal<Out, Bit>,
    pub dev_resp_valid: Signal<In, Bit>,
    pub dev_resp_ready: Signal<Out, Bit>,
    pub dev_resp_data: Signal<In, Bits<256>>,
    pub buddy_req_valid: Signal<Out, Bit>,
    pub buddy_req_ready: Signal<In, Bit>,
    pub buddy_req_write: Signal<Out, Bit>,
    pub buddy_req_address: Signal<Out, Bits<64>>,
    pub buddy_req_data: Signal<Out, Bits<256>>,
    pub buddy_req_strobe: Signal<Out, Bits<32>>,
    pub buddy_req_len: Signal<Out, Bits<3>>,
    pub buddy_req_first: Signal<Out, Bit>,
    pub buddy_resp_valid: Signal<In, Bit>,
    pub buddy_resp_ready: Signal<Out, Bit>,
    pub buddy_resp_data: Signal<In, Bits<256>>,
    pub translator: AddressTranslator,
    pub md: MetadataCache,
    pub comp: $comp,
    pub decomp: $decomp,
    dev_place: SectorPlace,
    buddy_place: SectorPlace,
    dev_pick: SectorPick,
    buddy_pick: SectorPick,
    merge: EntryMerge,
    zero_entry: Constant<EntryBits>,
    all_bytes: Constant<Bits<32>>,
    pub state: DFF<SliceState>,
    write: DFF<Bit>,
    mask: DFF<Bits<4>>,
    va: DFF<Bits<64>>,
    frame: DFF<Bits<64>>,
    pte: DFF<Bits<27>>,
    page_64k: DFF<Bit>,
    /// The request's data; after a read, the entry answered.
    data: DFF<EntryBits>,
    /// The stored payload being gathered or written.
    payload: DFF<EntryBits>,
    size_code: DFF<Bits<4>>,
    error: DFF<Bits<3>>,
    plain: DFF<Bit>,
    slot: DFF<Bits<64>>,
    part: DFF<Bits<8>>,
    buddy_slot: DFF<Bits<64>>,
    md_address: DFF<Bits<64>>,
    md_high: DFF<Bit>,
    slot_read: DFF<Bit>,
    fill_out: DFF<Bit>,
    plain_sector: DFF<Bits<3>>,
    dev_left: DFF<Bits<3>>,
    dev_len: DFF<Bits<3>>,
    dev_addr: DFF<Bits<64>>,
    dev_write: DFF<Bit>,
    dev_word: DFF<Bits<6>>,
    dev_bytes: DFF<Bits<8>>,
    dev_recv: DFF<Bits<3>>,
    dev_rword: DFF<Bits<6>>,
    buddy_left: DFF<Bits<3>>,
    buddy_len: DFF<Bits<3>>,
    buddy_addr: DFF<Bits<64>>,
    buddy_write: DFF<Bit>,
    buddy_word: DFF<Bits<6>>,
    buddy_bytes: DFF<Bits<8>>,
    buddy_recv: DFF<Bits<3>>,
    buddy_rword: DFF<Bits<6>>,
    sizes: PartSizes,
    dev_units: Signal<Local, Bits<5>>,
    bud_units: Signal<Local, Bits<5>>,
    /// Per size class (code 0-7), the device and buddy sectors of this
    /// entry's parts, registered from its slot and part: they are ready
    /// before the class is (the slot is translated at least two cycles
    /// before a plan state), so a plan only selects one.
    class_codes: [Constant<Bits<3>>; 8],
    class_sizes: [PartSizes; 8],
    dev_span: [Signal<Local, Bits<5>>; 8],
    dev_round: [Signal<Local, Bits<5>>; 8],
    bud_round: [Signal<Local, Bits<5>>; 8],
    dev_table: [DFF<Bits<3>>; 8],
    bud_table: [DFF<Bits<3>>; 8],
    need_dev: Signal<Local, Bits<8>>,
    need_buddy: Signal<Local, Bits<8>>,
    offset: Signal<Local, Bits<8>>,
    /// The device part is 8 bytes (a 16x page), loaded with `part`.
    x16: DFF<Bit>,
    dev_sectors: Signal<Local, Bits<8>>,
    buddy_sectors: Signal<Local, Bits<8>>,
    slot_sectors: Signal<Local, Bits<8>>,
    /// The sums before `>> 5` of the three sector counts, at 8 bits (none
    /// passes 31 + 128 + 31), so that the Verilog shifts 8-bit values.
    slot_end_sum: Signal<Local, Bits<8>>,
    sector_base: Signal<Local, Bits<64>>,
    /// `mask >> plain_sector` (a part-select of a shift is no Verilog-2005).
    mask_shifted: Signal<Local, Bits<4>>,
}

impl $name {
    /// A slice around the given compressor and decompressor.
    pub fn with_codec(comp: $comp, decomp: $decomp) -> Self {
        $name {
            _settle: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            gbbr: Default::default(),
            carve_out_bytes: Default::default(),
            md_base: Default::default(),
            heap_base: Default::default(),
            req_valid: Default::default(),
            req_ready: Default::default(),
            req_write: Default::default(),
            req_flush: Default::default(),
            req_mask: Default::default(),
            req_va: Default::default(),
            req_frame: Default::default(),
            req_pte: Default::default(),
            req_page_64k: Default::default(),
            req_data: Default::default(),
            resp_valid: Default::default(),
            resp_ready: Default::default(),
            resp_write: Default::default(),
            resp_entry: Default::default(),
            resp_class: Default::default(),
            resp_error: Default::default(),
            dev_req_valid: Default::default(),
            dev_req_ready: Default::default(),
            dev_req_write: Default::default(),
            dev_req_address: Default::default(),
            dev_req_data: Default::default(),
            dev_req_strobe: Default::default(),
            dev_req_len: Default::default(),
            dev_req_first: Default::default(),
            dev_resp_valid: Default::default(),
            dev_resp_ready: Default::default(),
            dev_resp_data: Default::default(),
            buddy_req_valid: Default::default(),
            buddy_req_ready: Default::default(),
            buddy_req_write: Default::default(),
            buddy_req_address: Default::default(),
            buddy_req_data: Default::default(),
            buddy_req_strobe: Default::default(),
            buddy_req_len: Default::default(),
            buddy_req_first: Default::default(),
            buddy_resp_valid: Default::default(),
            buddy_resp_ready: Default::default(),
            buddy_resp_data: Default::default(),
            translator: Default::default(),
            md: Default::default(),
            comp,
            decomp,
            dev_place: Default::default(),
            buddy_place: Default::default(),
            dev_pick: Default::default(),
            buddy_pick: Default::default(),
            merge: Default::default(),
            zero_entry: Constant::new(EntryBits::default()),
            all_bytes: Constant::new(0xFFFF_FFFFu64.into()),
            state: Default::default(),
            write: Default::default(),
            mask: Default::default(),
            va: Default::default(),
            frame: Default::default(),
            pte: Default::default(),
            page_64k: Default::default(),
            data: Default::default(),
            payload: Default::default(),
            size_code: Default::default(),
            error: Default::default(),
            plain: Default::default(),
            slot: Default::default(),
            part: Default::default(),
            buddy_slot: Default::default(),
            md_address: Default::default(),
            md_high: Default::default(),
            slot_read: Default::default(),
            fill_out: Default::default(),
            plain_sector: Default::default(),
            dev_left: Default::default(),
            dev_len: Default::default(),
            dev_addr: Default::default(),
            dev_write: Default::default(),
            dev_word: Default::default(),
            dev_bytes: Default::default(),
            dev_recv: Default::default(),
            dev_rword: Default::default(),
            buddy_left: Default::default(),
            buddy_len: Default::default(),
            buddy_addr: Default::default(),
            buddy_write: Default::default(),
            buddy_word: Default::default(),
            buddy_bytes: Default::default(),
            buddy_recv: Default::default(),
            buddy_rword: Default::default(),
            sizes: Default::default(),
            dev_units: Default::default(),
            bud_units: Default::default(),
            class_codes: std::array::from_fn(|k| Constant::new((k as u64).into())),
            class_sizes: Default::default(),
            dev_span: Default::default(),
            dev_round: Default::default(),
            bud_round: Default::default(),
            dev_table: Default::default(),
            bud_table: Default::default(),
            need_dev: Default::default(),
            need_buddy: Default::default(),
            offset: Default::default(),
            x16: Default::default(),
            dev_sectors: Default::default(),
            buddy_sectors: Default::default(),
            slot_sectors: Default::default(),
            slot_end_sum: Default::default(),
            sector_base: Default::default(),
            mask_shifted: Default::default(),
        }
    }
}

impl Logic for $name {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, write, mask, va, frame, pte, page_64k, data, payload, size_code, error, plain, slot, part, x16, buddy_slot,
            md_address, md_high, slot_read, fill_out, plain_sector, dev_left, dev_len, dev_addr, dev_write, dev_word,
            dev_bytes, dev_recv, dev_rword, buddy_left, buddy_len, buddy_addr, buddy_write, buddy_word, buddy_bytes,
            buddy_recv, buddy_rword
        );
        self.translator.clock.next = self.clock.val();
        self.translator.reset.next = self.reset.val();
        self.md.clock.next = self.clock.val();
        self.md.reset.next = self.reset.val();
        self.comp.clock.next = self.clock.val();
        self.comp.reset.next = self.reset.val();
        self.decomp.clock.next = self.clock.val();
        self.decomp.reset.next = self.reset.val();

        // Bytes of the class (docs/formats.md#size-classes; reserved codes: none), the
        // part of them in the device slot and in the buddy slot, and the
        // sectors each spans. A 16x device part (8 bytes) sits at byte
        // 0, 8, 16 or 24 of its sector.
        self.sizes.size_class.next = self.size_code.q.val().get_bits::<3>(0);
        self.sizes.compressed.next = true;
        self.sizes.part_bytes.next = self.part.q.val();
        self.dev_units.next = self.sizes.device_units.val();
        self.bud_units.next = self.sizes.buddy_units.val();
        if self.size_code.q.val().get_bit(3) {
            self.dev_units.next = 0.into();
            self.bud_units.next = 0.into();
        }
        self.need_dev.next = bit_cast::<8, 5>(self.dev_units.val()) << 3;
        self.need_buddy.next = bit_cast::<8, 5>(self.bud_units.val()) << 3;
        self.offset.next = bit_cast::<8, 5>(self.slot.q.val().get_bits::<5>(0));
        self.sector_base.next = (self.slot.q.val() >> 5) << 5;
        self.mask_shifted.next = self.mask.q.val() >> self.plain_sector.q.val();
        // In 8-byte units: a part of n units from unit f of its first
        // sector spans (f + n + 3) / 4 sectors.
        for k in 0..8 {
            self.class_sizes[k].size_class.next = self.class_codes[k].val();
            self.class_sizes[k].compressed.next = true;
            self.class_sizes[k].part_bytes.next = self.part.q.val();
            self.dev_span[k].next = bit_cast::<5, 2>(self.slot.q.val().get_bits::<2>(3)) + self.class_sizes[k].device_units.val();
            self.dev_round[k].next = self.dev_span[k].val() + bits::<5>(3);
            self.bud_round[k].next = self.class_sizes[k].buddy_units.val() + bits::<5>(3);
            self.dev_table[k].clock.next = self.clock.val();
            self.dev_table[k].d.next = self.dev_round[k].val().get_bits::<3>(2);
            if self.class_sizes[k].device_units.val() == 0 {
                self.dev_table[k].d.next = 0.into();
            }
            self.bud_table[k].clock.next = self.clock.val();
            self.bud_table[k].d.next = self.bud_round[k].val().get_bits::<3>(2);
        }
        // A reserved code (8-15) has no sectors.
        self.dev_sectors.next = 0.into();
        self.buddy_sectors.next = 0.into();
        match self.size_code.q.val().index() {
            0 => {
                self.dev_sectors.next = bit_cast::<8, 3>(self.dev_table[0].q.val());
                self.buddy_sectors.next = bit_cast::<8, 3>(self.bud_table[0].q.val());
            }
            1 => {
                self.dev_sectors.next = bit_cast::<8, 3>(self.dev_table[1].q.val());
                self.buddy_sectors.next = bit_cast::<8, 3>(self.bud_table[1].q.val());
            }
            2 => {
                self.dev_sectors.next = bit_cast::<8, 3>(self.dev_table[2].q.val());
                self.buddy_sectors.next = bit_cast::<8, 3>(self.bud_table[2].q.val());
            }
            3 => {
                self.dev_sectors.next = bit_cast::<8, 3>(self.dev_table[3].q.val());
                self.buddy_sectors.next = bit_cast::<8, 3>(self.bud_table[3].q.val());
            }
            4 => {
                self.dev_sectors.next = bit_cast::<8, 3>(self.dev_table[4].q.val());
                self.buddy_sectors.next = bit_cast::<8, 3>(self.bud_table[4].q.val());
            }
            5 => {
                self.dev_sectors.next = bit_cast::<8, 3>(self.dev_table[5].q.val());
                self.buddy_sectors.next = bit_cast::<8, 3>(self.bud_table[5].q.val());
            }
            6 => {
                self.dev_sectors.next = bit_cast::<8, 3>(self.dev_table[6].q.val());
                self.buddy_sectors.next = bit_cast::<8, 3>(self.bud_table[6].q.val());
            }
            7 => {
                self.dev_sectors.next = bit_cast::<8, 3>(self.dev_table[7].q.val());
                self.buddy_sectors.next = bit_cast::<8, 3>(self.bud_table[7].q.val());
            }
            _ => {}
        }
        self.slot_end_sum.next = self.offset.val() + self.part.q.val() + 31;
        self.slot_sectors.next = self.slot_end_sum.val() >> 5;

        // Translator: the request's fields, class RAW.
        self.translator.gbbr.next = self.gbbr.val();
        self.translator.carve_out_bytes.next = self.carve_out_bytes.val();
        self.translator.md_base.next = self.md_base.val();
        self.translator.heap_base.next = self.heap_base.val();
        self.translator.in_valid.next = false;
        self.translator.in_va.next = self.va.q.val();
        self.translator.in_frame.next = self.frame.q.val();
        self.translator.in_pte.next = self.pte.q.val();
        self.translator.in_page_64k.next = self.page_64k.q.val();
        self.translator.in_class.next = 7.into();
        self.translator.out_ready.next = false;

        self.md.req_valid.next = false;
        self.md.req_write.next = false;
        self.md.req_flush.next = false;
        self.md.req_address.next = self.md_address.q.val();
        self.md.req_high.next = self.md_high.q.val();
        self.md.req_value.next = self.size_code.q.val();
        self.md.resp_ready.next = false;

        self.comp.in_valid.next = false;
        self.comp.in_entry.next = self.data.q.val();
        self.comp.out_ready.next = false;
        self.decomp.in_valid.next = false;
        self.decomp.in_class.next = self.size_code.q.val();
        self.decomp.in_payload.next = self.payload.q.val();
        self.decomp.out_ready.next = false;
        self.merge.old.next = self.payload.q.val();
        self.merge.update.next = self.data.q.val();
        self.merge.mask.next = self.mask.q.val();

        // Write lanes: the next sector to send from the payload buffer.
        self.dev_pick.entry.next = self.payload.q.val();
        self.dev_pick.word_at.next = self.dev_word.q.val();
        self.dev_pick.skip.next = 0.into();
        self.dev_pick.offset.next = 0.into();
        self.dev_pick.bytes.next = 32.into();
        if self.dev_bytes.q.val() < 32 {
            self.dev_pick.bytes.next = self.dev_bytes.q.val().get_bits::<6>(0);
        }
        if self.x16.q.val() {
            self.dev_pick.skip.next = self.offset.val().get_bits::<3>(2);
            self.dev_pick.offset.next = self.offset.val().get_bits::<5>(0);
        }
        self.buddy_pick.entry.next = self.payload.q.val();
        self.buddy_pick.word_at.next = self.buddy_word.q.val();
        self.buddy_pick.skip.next = 0.into();
        self.buddy_pick.offset.next = 0.into();
        self.buddy_pick.bytes.next = 32.into();
        if self.buddy_bytes.q.val() < 32 {
            self.buddy_pick.bytes.next = self.buddy_bytes.q.val().get_bits::<6>(0);
        }

        // Device port: the metadata cache's fills and write-backs first,
        // then the slice's own burst.
        self.dev_req_valid.next = self.md.mem_req_valid.val() | (self.dev_left.q.val() != 0);
        self.dev_req_write.next = self.dev_write.q.val();
        self.dev_req_address.next = self.dev_addr.q.val();
        self.dev_req_data.next = self.dev_pick.sector.val();
        self.dev_req_strobe.next = self.dev_pick.strobe.val();
        self.dev_req_len.next = self.dev_len.q.val();
        self.dev_req_first.next = self.dev_left.q.val() == self.dev_len.q.val();
        self.md.mem_req_ready.next = false;
        if self.md.mem_req_valid.val() {
            self.dev_req_write.next = self.md.mem_req_write.val();
            self.dev_req_address.next = self.md.mem_req_address.val();
            self.dev_req_data.next = self.md.mem_req_data.val();
            self.dev_req_strobe.next = self.all_bytes.val();
            self.dev_req_len.next = 1.into();
            self.dev_req_first.next = true;
            self.md.mem_req_ready.next = self.dev_req_ready.val();
            if self.dev_req_ready.val() & !self.md.mem_req_write.val() {
                self.fill_out.d.next = true;
            }
        } else if (self.dev_left.q.val() != 0) & self.dev_req_ready.val() {
            self.dev_left.d.next = self.dev_left.q.val() - 1;
            self.dev_addr.d.next = self.dev_addr.q.val() + 32;
            self.dev_word.d.next = self.dev_word.q.val() + 8;
            self.dev_bytes.d.next = 0.into();
            if self.dev_bytes.q.val() > 32 {
                self.dev_bytes.d.next = self.dev_bytes.q.val() - 32;
            }
        }
        // Device responses, in request order: the cache's fill, else data.
        self.md.mem_fill_valid.next = self.dev_resp_valid.val() & self.fill_out.q.val();
        self.md.mem_fill_data.next = self.dev_resp_data.val();
        self.dev_resp_ready.next = true;
        self.dev_place.entry_in.next = self.payload.q.val();
        self.dev_place.sector.next = self.dev_resp_data.val();
        self.dev_place.enable.next = false;
        self.dev_place.word_at.next = self.dev_rword.q.val();
        self.dev_place.skip.next = 0.into();
        self.dev_place.count.next = 8.into();
        if self.x16.q.val() {
            self.dev_place.skip.next = self.offset.val().get_bits::<3>(2);
            self.dev_place.count.next = 2.into();
        }
        if self.fill_out.q.val() {
            self.dev_resp_ready.next = self.md.mem_fill_ready.val();
            if self.dev_resp_valid.val() & self.md.mem_fill_ready.val() {
                self.fill_out.d.next = false;
            }
        } else if self.dev_resp_valid.val() & (self.dev_recv.q.val() != 0) {
            self.dev_place.enable.next = true;
            self.dev_recv.d.next = self.dev_recv.q.val() - 1;
            self.dev_rword.d.next = self.dev_rword.q.val() + 8;
        }

        // Buddy port.
        self.buddy_req_valid.next = self.buddy_left.q.val() != 0;
        self.buddy_req_write.next = self.buddy_write.q.val();
        self.buddy_req_address.next = self.buddy_addr.q.val();
        self.buddy_req_data.next = self.buddy_pick.sector.val();
        self.buddy_req_strobe.next = self.buddy_pick.strobe.val();
        self.buddy_req_len.next = self.buddy_len.q.val();
        self.buddy_req_first.next = self.buddy_left.q.val() == self.buddy_len.q.val();
        if (self.buddy_left.q.val() != 0) & self.buddy_req_ready.val() {
            self.buddy_left.d.next = self.buddy_left.q.val() - 1;
            self.buddy_addr.d.next = self.buddy_addr.q.val() + 32;
            self.buddy_word.d.next = self.buddy_word.q.val() + 8;
            self.buddy_bytes.d.next = 0.into();
            if self.buddy_bytes.q.val() > 32 {
                self.buddy_bytes.d.next = self.buddy_bytes.q.val() - 32;
            }
        }
        self.buddy_resp_ready.next = true;
        self.buddy_place.entry_in.next = self.dev_place.entry_out.val();
        self.buddy_place.sector.next = self.buddy_resp_data.val();
        self.buddy_place.enable.next = false;
        self.buddy_place.word_at.next = self.buddy_rword.q.val();
        self.buddy_place.skip.next = 0.into();
        self.buddy_place.count.next = 8.into();
        if self.buddy_resp_valid.val() & (self.buddy_recv.q.val() != 0) {
            self.buddy_place.enable.next = true;
            self.buddy_recv.d.next = self.buddy_recv.q.val() - 1;
            self.buddy_rword.d.next = self.buddy_rword.q.val() + 8;
        }
        self.payload.d.next = self.buddy_place.entry_out.val();

        self.req_ready.next = false;
        self.resp_valid.next = false;
        self.resp_write.next = self.write.q.val();
        self.resp_entry.next = self.data.q.val();
        self.resp_class.next = self.size_code.q.val();
        self.resp_error.next = self.error.q.val();

        match self.state.q.val() {
            SliceState::Idle => {
                self.req_ready.next = !self.reset.val();
                if self.req_valid.val() & !self.reset.val() {
                    self.write.d.next = self.req_write.val();
                    self.mask.d.next = self.req_mask.val();
                    self.va.d.next = self.req_va.val();
                    self.frame.d.next = self.req_frame.val();
                    self.pte.d.next = self.req_pte.val();
                    self.page_64k.d.next = self.req_page_64k.val();
                    self.data.d.next = self.req_data.val();
                    self.payload.d.next = self.req_data.val();
                    self.size_code.d.next = 7.into();
                    self.error.d.next = 0.into();
                    self.slot_read.d.next = false;
                    self.plain_sector.d.next = 0.into();
                    self.state.d.next = SliceState::Translate;
                    if self.req_flush.val() {
                        self.state.d.next = SliceState::Flush;
                    }
                }
            }
            SliceState::Translate => {
                self.translator.in_valid.next = true;
                if self.translator.in_ready.val() {
                    self.state.d.next = SliceState::TranslateWait;
                }
            }
            SliceState::TranslateWait => {
                self.translator.out_ready.next = true;
                if self.translator.out_valid.val() {
                    self.slot.d.next = self.translator.out_device_address.val();
                    self.part.d.next = self.translator.out_device_part_bytes.val();
                    self.x16.d.next = self.translator.out_device_part_bytes.val() == 8;
                    self.buddy_slot.d.next = self.translator.out_buddy_address.val();
                    self.md_address.d.next = self.translator.out_metadata_address.val();
                    self.md_high.d.next = self.translator.out_metadata_high.val();
                    self.plain.d.next = !self.translator.out_metadata_valid.val();
                    if self.translator.out_fault.val() != 0 {
                        self.error.d.next = self.translator.out_fault.val();
                        self.state.d.next = SliceState::Respond;
                    } else if !self.translator.out_metadata_valid.val() {
                        if self.write.q.val() {
                            self.state.d.next = SliceState::PlainWrite;
                        } else {
                            self.dev_left.d.next = 4.into();
                            self.dev_len.d.next = 4.into();
                            self.dev_recv.d.next = 4.into();
                            self.dev_addr.d.next = self.translator.out_device_address.val();
                            self.dev_write.d.next = false;
                            self.dev_rword.d.next = 0.into();
                            self.state.d.next = SliceState::WaitData;
                        }
                    } else if self.write.q.val() & (self.mask.q.val() == 15) {
                        self.state.d.next = SliceState::Compress;
                    } else {
                        self.state.d.next = SliceState::MdRead;
                    }
                }
            }
            SliceState::MdRead => {
                self.md.req_valid.next = true;
                if self.md.req_ready.val() {
                    self.state.d.next = SliceState::MdReadWait;
                }
            }
            SliceState::MdReadWait => {
                self.md.resp_ready.next = true;
                // A miss: the slot's sectors go out behind the cache's fill.
                if self.md.mem_req_valid.val() & !self.md.mem_req_write.val() & self.dev_req_ready.val() & !self.slot_read.q.val() {
                    self.slot_read.d.next = true;
                    self.dev_left.d.next = self.slot_sectors.val().get_bits::<3>(0);
                    self.dev_len.d.next = self.slot_sectors.val().get_bits::<3>(0);
                    self.dev_recv.d.next = self.slot_sectors.val().get_bits::<3>(0);
                    self.dev_addr.d.next = self.sector_base.val();
                    self.dev_write.d.next = false;
                    self.dev_rword.d.next = 0.into();
                }
                if self.md.resp_valid.val() {
                    self.size_code.d.next = self.md.resp_nibble.val();
                    self.state.d.next = SliceState::ReadPlan;
                }
            }
            SliceState::ReadPlan => {
                if !self.slot_read.q.val() & (self.dev_sectors.val() != 0) {
                    self.dev_left.d.next = self.dev_sectors.val().get_bits::<3>(0);
                    self.dev_len.d.next = self.dev_sectors.val().get_bits::<3>(0);
                    self.dev_recv.d.next = self.dev_sectors.val().get_bits::<3>(0);
                    self.dev_addr.d.next = self.sector_base.val();
                    self.dev_write.d.next = false;
                    self.dev_rword.d.next = 0.into();
                }
                if self.buddy_sectors.val() != 0 {
                    self.buddy_left.d.next = self.buddy_sectors.val().get_bits::<3>(0);
                    self.buddy_len.d.next = self.buddy_sectors.val().get_bits::<3>(0);
                    self.buddy_recv.d.next = self.buddy_sectors.val().get_bits::<3>(0);
                    self.buddy_addr.d.next = self.buddy_slot.q.val();
                    self.buddy_write.d.next = false;
                    self.buddy_rword.d.next = self.part.q.val().get_bits::<6>(2);
                }
                self.state.d.next = SliceState::WaitData;
            }
            SliceState::WaitData => {
                if (self.dev_left.q.val() == 0)
                    & (self.dev_recv.q.val() == 0)
                    & (self.buddy_left.q.val() == 0)
                    & (self.buddy_recv.q.val() == 0)
                {
                    if self.plain.q.val() {
                        self.data.d.next = self.payload.q.val();
                        self.state.d.next = SliceState::Respond;
                    } else {
                        self.state.d.next = SliceState::Decode;
                    }
                }
            }
            SliceState::Decode => {
                if self.size_code.q.val() == 0 {
                    self.payload.d.next = self.zero_entry.val();
                    self.state.d.next = SliceState::AfterRead;
                } else {
                    self.decomp.in_valid.next = true;
                    if self.decomp.in_ready.val() {
                        self.state.d.next = SliceState::DecodeWait;
                    }
                }
            }
            SliceState::DecodeWait => {
                self.decomp.out_ready.next = true;
                if self.decomp.out_valid.val() {
                    self.payload.d.next = self.decomp.out_entry.val();
                    if self.decomp.out_error.val() {
                        self.error.d.next = 5.into();
                        self.state.d.next = SliceState::Respond;
                    } else {
                        self.state.d.next = SliceState::AfterRead;
                    }
                }
            }
            SliceState::AfterRead => {
                if self.write.q.val() {
                    self.data.d.next = self.merge.merged.val();
                    self.state.d.next = SliceState::Compress;
                } else {
                    self.data.d.next = self.payload.q.val();
                    self.state.d.next = SliceState::Respond;
                }
            }
            SliceState::Compress => {
                self.comp.in_valid.next = true;
                if self.comp.in_ready.val() {
                    self.state.d.next = SliceState::CompressWait;
                }
            }
            SliceState::CompressWait => {
                self.comp.out_ready.next = true;
                if self.comp.out_valid.val() {
                    self.payload.d.next = self.comp.out_payload.val();
                    self.size_code.d.next = self.comp.out_class.val();
                    self.state.d.next = SliceState::WritePlan;
                }
            }
            SliceState::WritePlan => {
                if self.dev_sectors.val() != 0 {
                    self.dev_left.d.next = self.dev_sectors.val().get_bits::<3>(0);
                    self.dev_len.d.next = self.dev_sectors.val().get_bits::<3>(0);
                    self.dev_addr.d.next = self.sector_base.val();
                    self.dev_write.d.next = true;
                    self.dev_word.d.next = 0.into();
                    self.dev_bytes.d.next = self.need_dev.val();
                }
                if self.buddy_sectors.val() != 0 {
                    self.buddy_left.d.next = self.buddy_sectors.val().get_bits::<3>(0);
                    self.buddy_len.d.next = self.buddy_sectors.val().get_bits::<3>(0);
                    self.buddy_addr.d.next = self.buddy_slot.q.val();
                    self.buddy_write.d.next = true;
                    self.buddy_word.d.next = self.part.q.val().get_bits::<6>(2);
                    self.buddy_bytes.d.next = self.need_buddy.val();
                }
                self.state.d.next = SliceState::WriteData;
            }
            SliceState::WriteData => {
                if (self.dev_left.q.val() == 0) & (self.buddy_left.q.val() == 0) {
                    self.state.d.next = SliceState::MdWrite;
                }
            }
            SliceState::MdWrite => {
                self.md.req_valid.next = true;
                self.md.req_write.next = true;
                if self.md.req_ready.val() {
                    self.state.d.next = SliceState::MdWriteWait;
                }
            }
            SliceState::MdWriteWait => {
                self.md.resp_ready.next = true;
                if self.md.resp_valid.val() {
                    self.state.d.next = SliceState::Respond;
                }
            }
            SliceState::PlainWrite => {
                if self.dev_left.q.val() == 0 {
                    if self.plain_sector.q.val() == 4 {
                        self.state.d.next = SliceState::Respond;
                    } else {
                        self.plain_sector.d.next = self.plain_sector.q.val() + 1;
                        if self.mask_shifted.val().get_bit(0) {
                            self.dev_left.d.next = 1.into();
                            self.dev_len.d.next = 1.into();
                            self.dev_addr.d.next = self.slot.q.val() + (bit_cast::<64, 3>(self.plain_sector.q.val()) << 5);
                            self.dev_write.d.next = true;
                            self.dev_word.d.next = bit_cast::<6, 3>(self.plain_sector.q.val()) << 3;
                            self.dev_bytes.d.next = 32.into();
                        }
                    }
                }
            }
            SliceState::Flush => {
                self.md.req_valid.next = true;
                self.md.req_flush.next = true;
                if self.md.req_ready.val() {
                    self.state.d.next = SliceState::MdWriteWait;
                }
            }
            SliceState::Respond => {
                self.resp_valid.next = true;
                if self.resp_ready.val() {
                    self.state.d.next = SliceState::Idle;
                }
            }
        }
        if self.reset.val() {
            self.state.d.next = SliceState::Idle;
            self.dev_left.d.next = 0.into();
            self.dev_recv.d.next = 0.into();
            self.buddy_left.d.next = 0.into();
            self.buddy_recv.d.next = 0.into();
            self.fill_out.d.next = false;
        }
    }
}
    };
}

buddy_controller!(
    /// One Buddy Compression memory-controller slice (docs/formats.md#translation, docs/formats.md#sectors, docs/controller.md;
    /// Buddy Compression Sec. III, Fig. 4; seed 001 Sec. 3.4), here with
    /// the BPC compressor and decompressor (the default; [`BuddyControllerZvc`]
    /// and [`BuddyControllerMagBdi`] are the same slice with ZVC or MAG-BDI,
    /// the algorithm being chosen when the hardware is built).
    ///
    /// ```text
    ///            ┌────────────┐   ┌────────────────┐  nibble   ┌──────────────┐
    ///  req ─────▶│ translator │──▶│ metadata cache │──────────▶│ read plan:   │──▶ dev_req (bursts of sectors)
    ///            └────────────┘   └──────┬─────────┘           │ class sectors│──▶ buddy_req
    ///                                    │ fill / write-back   └──────────────┘
    ///                                    └──────────────────────────────────────▶ dev_req (first)
    ///  dev_resp, buddy_resp ──▶ sector lanes ──▶ payload ──▶ decompressor ──▶ resp (read)
    ///                                                   └──▶ merge (partial write) ──▶ compressor ──▶ sector lanes ──▶ dev_req, buddy_req; nibble ──▶ metadata cache
    /// ```
    ///
    /// The mode (docs/formats.md#modes) comes with each access's PTE, as in the
    /// paper: an uncompressed page (`compressed` = 0) has no metadata, no
    /// compression and 128-byte slots (mode `uncompressed`); a compressed
    /// page at target 1x is mode `bandwidth-only`; other targets are mode
    /// `buddy`.
    ///
    /// Behaviour, one access at a time:
    /// - Read: translate (class RAW: the whole device slot and buddy slot);
    ///   look the size nibble up. On a metadata miss the whole device slot is
    ///   read right behind the cache's sector fill, in parallel with it; on a
    ///   hit only the class's device sectors. Buddy sectors are read once the
    ///   nibble is known. A ZERO entry is answered with no data access (on a
    ///   hit); any other class is decompressed.
    /// - Write: a partial write (`req_mask` != 15) reads the entry first and
    ///   merges the written sectors in; then compress, write the class's
    ///   device sectors and buddy sectors (byte strobes: only the class's
    ///   bytes), then write the nibble. Stale buddy data stays in place.
    /// - Uncompressed page: a read is one 4-sector burst; a write sends each
    ///   masked sector as its own 1-sector write.
    ///
    /// | port | width | dir | meaning |
    /// |---|---|---|---|
    /// | `clock`, `reset` | 1, 1 | in | rising edge; synchronous active-high reset (the metadata cache then needs 8 cycles) |
    /// | `gbbr`, `carve_out_bytes`, `md_base`, `heap_base` | 64 each | in | the Buddy registers (docs/formats.md#pte-fields-and-registers), bytes |
    /// | `req_valid`, `req_ready` | 1, 1 | in, out | L2-side request handshake |
    /// | `req_write`, `req_mask` | 1, 4 | in | 0 read, 1 write; written sectors (bit `s`: bytes `32s..32s+32`) |
    /// | `req_flush` | 1 | in | 1: write back every dirty metadata sector and invalidate the cache (other fields ignored) |
    /// | `req_va` | 64 | in | virtual address of the entry (any byte of it) |
    /// | `req_frame`, `req_pte`, `req_page_64k` | 64, 27, 1 | in | the page's device frame, PTE Buddy bits and size, from the TLB (see [`AddressTranslator`]) |
    /// | `req_data` | 1024 | in | the written entry, word `i` at `[32i +: 32]` |
    /// | `resp_valid`, `resp_ready` | 1, 1 | out, in | response handshake, one response per request, in order |
    /// | `resp_write` | 1 | out | the request was a write |
    /// | `resp_entry` | 1024 | out | read: the entry; write: the data sent (for a partial write to a compressed page, merged with memory's other sectors) |
    /// | `resp_class` | 4 | out | the entry's size class code as stored (RAW on an uncompressed page) |
    /// | `resp_error` | 3 | out | 0, a translator fault code (1-3), or [`error::DECODE`] |
    /// | `dev_req_valid`, `dev_req_ready` | 1, 1 | out, in | device-memory request, one 32-byte sector per handshake |
    /// | `dev_req_write`, `dev_req_address` | 1, 64 | out | write or read; sector-aligned byte address |
    /// | `dev_req_data`, `dev_req_strobe` | 256, 32 | out | write data (byte `k` at `[8k +: 8]`) and byte enables |
    /// | `dev_req_len`, `dev_req_first` | 3, 1 | out | sectors in this burst (1-4); 1 on a burst's first sector |
    /// | `dev_resp_valid`, `dev_resp_ready`, `dev_resp_data` | 1, 1, 256 | in, out, in | read data, one sector per read request, in request order |
    /// | `buddy_*` | as `dev_*` | | the buddy-memory port (NVLink) |
    ///
    /// Metadata sector fills and write-backs share the device port (as
    /// 1-sector bursts) and go first. Writes are posted: no response.
    /// Latency of a metadata hit read of a compressed entry, with memory
    /// answering in `m` cycles: about 14 cycles plus `m` plus the
    /// decompressor's latency (measured by the testbenches).
    BuddyController,
    BpcCompressor,
    BpcDecompressor
);

buddy_controller!(
    /// [`BuddyController`] with the ZVC compressor and decompressor.
    BuddyControllerZvc,
    ZvcCompressor,
    ZvcDecompressor
);

buddy_controller!(
    /// [`BuddyController`] with a MAG-BDI compressor and decompressor.
    BuddyControllerMagBdi,
    MagBdiCompressor,
    MagBdiDecompressor
);

impl Default for BuddyController {
    fn default() -> Self {
        Self::with_codec(BpcCompressor::default(), BpcDecompressor::default())
    }
}

impl Default for BuddyControllerZvc {
    fn default() -> Self {
        Self::with_codec(ZvcCompressor::default(), ZvcDecompressor::default())
    }
}

impl BuddyControllerMagBdi {
    /// The slice with MAG-BDI at `mag`.
    pub fn new(mag: Mag) -> Self {
        Self::with_codec(MagBdiCompressor::new(mag), MagBdiDecompressor::new(mag))
    }
}
