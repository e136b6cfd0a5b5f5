//! The pipelined controller slice, first step: reads, up to 128 in flight
//! (Buddy Compression Sec. III-B; `docs/controller.md`, "The pipelined
//! slice"). Writes and flushes are not built yet: `req_ready` stays low for
//! a write.

use crate::address_translator::AddressTranslator;
use crate::bpc_decompressor::BpcDecompressor;
use crate::entry_bits::EntryBits;
use crate::memory_port::{MemoryPort, MEM_TAG_BITS};
use crate::pipelined_metadata_cache::PipelinedMetadataCache;
use crate::read_planner::{kind, ReadPlanner};
use crate::request_contexts::{RequestContexts, CONTEXT_BITS};
use crate::sector_gather::SectorGather;
use crate::tag_fifo::TagFifo;
use rust_hdl::prelude::*;

/// One memory-controller slice (BPC) that keeps up to 128 reads in flight.
///
/// A read is given a context (`req_id`; a read to a memory-entry already
/// in flight waits), translated, its size nibble looked up in the
/// non-blocking metadata cache (hits under misses), its device and buddy
/// sectors requested on two tagged memory ports (answered in any order),
/// gathered, decompressed, and answered on `resp_*` with its context id:
/// **responses are tagged and leave in completion order**, not in request
/// order. A translation fault is answered with its fault code, an entry
/// that does not decode with `resp_decode_error`.
///
/// | port | width | direction | meaning |
/// |---|---|---|---|
/// | `clock`, `reset` | 1, 1 | in | rising-edge clock; synchronous active-high reset |
/// | `gbbr`, `carve_out_bytes`, `md_base`, `heap_base` | 64 each | in | the translation registers (held) |
/// | `req_valid`, `req_ready` | 1, 1 | in, out | a request; a write is not taken (not built yet) |
/// | `req_write`, `req_va`, `req_frame`, `req_pte`, `req_page_64k` | 1, 64, 64, 27, 1 | in | the access, as the address translator takes it |
/// | `req_id` | 7 | out | the context the request is given (valid with `req_ready`) |
/// | `resp_valid`, `resp_ready` | 1, 1 | out, in | a response |
/// | `resp_id` | 7 | out | the request's context |
/// | `resp_entry` | 1024 | out | the entry read, word `i` at `[32i +: 32]` (0 on a decode error, don't care on a fault) |
/// | `resp_fault` | 3 | out | 0, or the translator's fault code |
/// | `resp_decode_error` | 1 | out | the stored entry does not decode (a reserved size code or a malformed stream) |
/// | `dev_mem_*`, `dev_mem_resp_*` | as [`MemoryPort`]'s `mem_*` | | device memory: data sectors and metadata |
/// | `bud_mem_*`, `bud_mem_resp_*` | as [`MemoryPort`]'s `mem_*` | | buddy-memory |
/// | `in_flight` | 8 | out | requests in the slice (status) |
#[derive(LogicBlock, Default)]
pub struct PipelinedController {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub gbbr: Signal<In, Bits<64>>,
    pub carve_out_bytes: Signal<In, Bits<64>>,
    pub md_base: Signal<In, Bits<64>>,
    pub heap_base: Signal<In, Bits<64>>,
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub req_write: Signal<In, Bit>,
    pub req_va: Signal<In, Bits<64>>,
    pub req_frame: Signal<In, Bits<64>>,
    pub req_pte: Signal<In, Bits<27>>,
    pub req_page_64k: Signal<In, Bit>,
    pub req_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_ready: Signal<In, Bit>,
    pub resp_id: Signal<Out, Bits<CONTEXT_BITS>>,
    pub resp_entry: Signal<Out, EntryBits>,
    pub resp_fault: Signal<Out, Bits<3>>,
    pub resp_decode_error: Signal<Out, Bit>,
    pub dev_mem_valid: Signal<Out, Bit>,
    pub dev_mem_ready: Signal<In, Bit>,
    pub dev_mem_write: Signal<Out, Bit>,
    pub dev_mem_address: Signal<Out, Bits<64>>,
    pub dev_mem_data: Signal<Out, Bits<256>>,
    pub dev_mem_strobe: Signal<Out, Bits<32>>,
    pub dev_mem_tag: Signal<Out, Bits<MEM_TAG_BITS>>,
    pub dev_mem_resp_valid: Signal<In, Bit>,
    pub dev_mem_resp_ready: Signal<Out, Bit>,
    pub dev_mem_resp_tag: Signal<In, Bits<MEM_TAG_BITS>>,
    pub dev_mem_resp_data: Signal<In, Bits<256>>,
    pub bud_mem_valid: Signal<Out, Bit>,
    pub bud_mem_ready: Signal<In, Bit>,
    pub bud_mem_write: Signal<Out, Bit>,
    pub bud_mem_address: Signal<Out, Bits<64>>,
    pub bud_mem_data: Signal<Out, Bits<256>>,
    pub bud_mem_strobe: Signal<Out, Bits<32>>,
    pub bud_mem_tag: Signal<Out, Bits<MEM_TAG_BITS>>,
    pub bud_mem_resp_valid: Signal<In, Bit>,
    pub bud_mem_resp_ready: Signal<Out, Bit>,
    pub bud_mem_resp_tag: Signal<In, Bits<MEM_TAG_BITS>>,
    pub bud_mem_resp_data: Signal<In, Bits<256>>,
    pub in_flight: Signal<Out, Bits<8>>,
    contexts: RequestContexts,
    translator: AddressTranslator,
    /// Context ids through the translator and the decompressor.
    xlate_ids: TagFifo,
    dec_ids: TagFifo,
    md: PipelinedMetadataCache,
    /// Per context: the translation (device slot start, device part bytes,
    /// buddy slot start) and the size nibble.
    xl_device: RAM<Bits<64>, CONTEXT_BITS>,
    xl_part: RAM<Bits<8>, CONTEXT_BITS>,
    xl_buddy: RAM<Bits<64>, CONTEXT_BITS>,
    nibble: RAM<Bits<4>, CONTEXT_BITS>,
    planner: ReadPlanner,
    gather: SectorGather,
    dev_port: MemoryPort,
    bud_port: MemoryPort,
    decomp: BpcDecompressor,
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
    j1_nibble: DFF<Bits<4>>,
    j1_compressed: DFF<Bit>,
    j1_device: DFF<Bits<64>>,
    j1_part: DFF<Bits<8>>,
    j1_buddy: DFF<Bits<64>>,
    /// D0: a gathered payload waiting for the decompressor.
    d0_valid: DFF<Bit>,
    d0_id: DFF<Bits<CONTEXT_BITS>>,
    d0_payload: DFF<EntryBits>,
    /// A translation fault waiting for the response port.
    err_valid: DFF<Bit>,
    err_id: DFF<Bits<CONTEXT_BITS>>,
    err_fault: DFF<Bits<3>>,
    accept: Signal<Local, Bit>,
    x_take: Signal<Local, Bit>,
    x_fault: Signal<Local, Bit>,
    x_compressed: Signal<Local, Bit>,
    j0_free: Signal<Local, Bit>,
    j1_free: Signal<Local, Bit>,
    j1_load: Signal<Local, Bit>,
    md_take: Signal<Local, Bit>,
    x_to_j0: Signal<Local, Bit>,
    d0_free: Signal<Local, Bit>,
    gather_take: Signal<Local, Bit>,
    dec_take: Signal<Local, Bit>,
    resp_take: Signal<Local, Bit>,
}

impl Logic for PipelinedController {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, j0_valid, j0_id, j0_nibble, j0_compressed, j0_bypass, j0_device, j0_part, j0_buddy, j1_valid, j1_id, j1_nibble,
            j1_compressed, j1_device, j1_part, j1_buddy, d0_valid, d0_id, d0_payload, err_valid, err_id, err_fault
        );
        clock!(self, clock, contexts, translator, xlate_ids, dec_ids, md, planner, gather, dev_port, bud_port, decomp);
        self.contexts.reset.next = self.reset.val();
        self.translator.reset.next = self.reset.val();
        self.xlate_ids.reset.next = self.reset.val();
        self.dec_ids.reset.next = self.reset.val();
        self.md.reset.next = self.reset.val();
        self.planner.reset.next = self.reset.val();
        self.gather.reset.next = self.reset.val();
        self.dev_port.reset.next = self.reset.val();
        self.bud_port.reset.next = self.reset.val();
        self.decomp.reset.next = self.reset.val();
        self.xl_device.read_clock.next = self.clock.val();
        self.xl_device.write_clock.next = self.clock.val();
        self.xl_part.read_clock.next = self.clock.val();
        self.xl_part.write_clock.next = self.clock.val();
        self.xl_buddy.read_clock.next = self.clock.val();
        self.xl_buddy.write_clock.next = self.clock.val();
        self.nibble.read_clock.next = self.clock.val();
        self.nibble.write_clock.next = self.clock.val();

        // Accept: a context and a translator slot (reads only).
        self.translator.gbbr.next = self.gbbr.val();
        self.translator.carve_out_bytes.next = self.carve_out_bytes.val();
        self.translator.md_base.next = self.md_base.val();
        self.translator.heap_base.next = self.heap_base.val();
        self.contexts.alloc_entry.next = self.req_va.val().get_bits::<57>(7);
        self.contexts.alloc_valid.next = self.req_valid.val() & !self.req_write.val() & self.translator.in_ready.val() & !self.xlate_ids.full.val();
        self.translator.in_valid.next =
            self.req_valid.val() & !self.req_write.val() & self.contexts.alloc_ready.val() & !self.xlate_ids.full.val();
        self.req_ready.next =
            !self.req_write.val() & self.contexts.alloc_ready.val() & self.translator.in_ready.val() & !self.xlate_ids.full.val();
        self.req_id.next = self.contexts.alloc_id.val();
        self.accept.next = self.req_valid.val() & self.req_ready.val();
        self.translator.in_va.next = self.req_va.val();
        self.translator.in_frame.next = self.req_frame.val();
        self.translator.in_pte.next = self.req_pte.val();
        self.translator.in_page_64k.next = self.req_page_64k.val();
        // The raw class: the whole device slot and buddy slot.
        self.translator.in_class.next = 7.into();
        self.xlate_ids.push.next = self.accept.val();
        self.xlate_ids.push_id.next = self.contexts.alloc_id.val();
        self.in_flight.next = self.contexts.in_use.val();

        // After translation: a fault to the response port, a compressed
        // page to the metadata cache, an uncompressed one straight to J0
        // (after the cache's responses, which go first).
        self.x_fault.next = self.translator.out_fault.val() != 0;
        self.x_compressed.next = self.translator.out_metadata_valid.val();
        self.md_take.next = self.md.resp_valid.val() & self.j0_free.val();
        self.translator.out_ready.next = !self.err_valid.q.val();
        if !self.x_fault.val() {
            self.translator.out_ready.next = self.md.req_ready.val();
            if !self.x_compressed.val() {
                self.translator.out_ready.next = self.j0_free.val() & !self.md.resp_valid.val();
            }
        }
        self.x_take.next = self.translator.out_valid.val() & self.translator.out_ready.val();
        self.xlate_ids.pop.next = self.x_take.val();
        self.x_to_j0.next = self.x_take.val() & !self.x_fault.val() & !self.x_compressed.val();
        self.md.req_valid.next = self.translator.out_valid.val() & !self.x_fault.val() & self.x_compressed.val();
        self.md.req_write.next = false;
        self.md.req_flush.next = false;
        self.md.req_reserve.next = false;
        self.md.req_value.next = 0.into();
        self.md.req_address.next = self.translator.out_metadata_address.val();
        self.md.req_high.next = self.translator.out_metadata_high.val();
        self.md.req_tag.next = self.xlate_ids.head.val();
        self.md.commit_valid.next = false;
        self.md.commit_word.next = 0.into();
        self.md.commit_offset.next = 0.into();
        self.md.commit_high.next = false;
        self.md.commit_value.next = 0.into();
        self.md.commit_tag.next = 0.into();
        self.md.resp_ready.next = self.j0_free.val();
        self.xl_device.write_enable.next = self.x_take.val() & !self.x_fault.val();
        self.xl_device.write_address.next = self.xlate_ids.head.val();
        self.xl_device.write_data.next = self.translator.out_device_address.val();
        self.xl_part.write_enable.next = self.x_take.val() & !self.x_fault.val();
        self.xl_part.write_address.next = self.xlate_ids.head.val();
        self.xl_part.write_data.next = self.translator.out_device_part_bytes.val();
        self.xl_buddy.write_enable.next = self.x_take.val() & !self.x_fault.val();
        self.xl_buddy.write_address.next = self.xlate_ids.head.val();
        self.xl_buddy.write_data.next = self.translator.out_buddy_address.val();
        if self.x_take.val() & self.x_fault.val() {
            self.err_valid.d.next = true;
            self.err_id.d.next = self.xlate_ids.head.val();
            self.err_fault.d.next = self.translator.out_fault.val();
        }

        // J0 -> J1 -> read planner; J0's translation is re-read from the
        // context RAMs every cycle it waits (registered reads).
        self.j1_free.next = !self.j1_valid.q.val() | self.planner.in_ready.val();
        self.j1_load.next = self.j0_valid.q.val() & self.j1_free.val();
        self.j0_free.next = !self.j0_valid.q.val() | self.j1_load.val();
        self.xl_device.read_address.next = self.j0_id.q.val();
        self.xl_part.read_address.next = self.j0_id.q.val();
        self.xl_buddy.read_address.next = self.j0_id.q.val();
        if self.md_take.val() {
            self.xl_device.read_address.next = self.md.resp_tag.val();
            self.xl_part.read_address.next = self.md.resp_tag.val();
            self.xl_buddy.read_address.next = self.md.resp_tag.val();
        }
        self.nibble.write_enable.next = false;
        self.nibble.write_address.next = self.md.resp_tag.val();
        self.nibble.write_data.next = self.md.resp_nibble.val();
        if self.j1_load.val() {
            self.j0_valid.d.next = false;
        }
        if self.md_take.val() {
            self.j0_valid.d.next = true;
            self.j0_id.d.next = self.md.resp_tag.val();
            self.j0_nibble.d.next = self.md.resp_nibble.val();
            self.j0_compressed.d.next = true;
            self.j0_bypass.d.next = false;
            self.nibble.write_enable.next = true;
        }
        if self.x_to_j0.val() {
            self.j0_valid.d.next = true;
            self.j0_id.d.next = self.xlate_ids.head.val();
            // RAW: the decompressor passes an uncompressed slot through.
            self.j0_nibble.d.next = 7.into();
            self.j0_compressed.d.next = false;
            self.j0_bypass.d.next = true;
            self.j0_device.d.next = self.translator.out_device_address.val();
            self.j0_part.d.next = self.translator.out_device_part_bytes.val();
            self.j0_buddy.d.next = self.translator.out_buddy_address.val();
            self.nibble.write_enable.next = true;
            self.nibble.write_address.next = self.xlate_ids.head.val();
            self.nibble.write_data.next = 7.into();
        }
        if self.planner.in_ready.val() {
            self.j1_valid.d.next = false;
        }
        if self.j1_load.val() {
            self.j1_valid.d.next = true;
            self.j1_id.d.next = self.j0_id.q.val();
            self.j1_nibble.d.next = self.j0_nibble.q.val();
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
        self.planner.in_kind.next = kind::FULL.into();
        // A reserved size code (8-15) reads nothing; the decompressor
        // rejects it.
        self.planner.in_class.next = self.j1_nibble.q.val().get_bits::<3>(0);
        if self.j1_nibble.q.val().get_bit(3) {
            self.planner.in_class.next = 0.into();
        }
        self.planner.in_compressed.next = self.j1_compressed.q.val();
        self.planner.in_device_address.next = self.j1_device.q.val();
        self.planner.in_device_part_bytes.next = self.j1_part.q.val();
        self.planner.in_buddy_address.next = self.j1_buddy.q.val();

        // The planner's plans and sector requests; the memories' answers.
        self.gather.plan_valid.next = self.planner.plan_valid.val();
        self.gather.plan_id.next = self.planner.plan_id.val();
        self.gather.plan_buddy.next = self.planner.plan_buddy.val();
        self.gather.plan_lead.next = self.planner.plan_lead.val();
        self.gather.plan_words.next = self.planner.plan_words.val();
        self.gather.plan_sectors.next = self.planner.plan_sectors.val();
        self.gather.plan_last.next = self.planner.plan_last.val();
        self.planner.plan_ready.next = self.gather.plan_ready.val();
        self.dev_port.rd_req_valid.next = self.planner.dev_req_valid.val();
        self.dev_port.rd_req_id.next = self.planner.dev_req_id.val();
        self.dev_port.rd_req_sector.next = self.planner.dev_req_sector.val();
        self.dev_port.rd_req_address.next = self.planner.dev_req_address.val();
        self.planner.dev_req_ready.next = self.dev_port.rd_req_ready.val();
        self.bud_port.rd_req_valid.next = self.planner.buddy_req_valid.val();
        self.bud_port.rd_req_id.next = self.planner.buddy_req_id.val();
        self.bud_port.rd_req_sector.next = self.planner.buddy_req_sector.val();
        self.bud_port.rd_req_address.next = self.planner.buddy_req_address.val();
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
        self.dev_port.wr_req_valid.next = false;
        self.dev_port.wr_req_address.next = 0.into();
        self.dev_port.wr_req_data.next = 0.into();
        self.dev_port.wr_req_strobe.next = 0.into();
        self.bud_port.wr_req_valid.next = false;
        self.bud_port.wr_req_address.next = 0.into();
        self.bud_port.wr_req_data.next = 0.into();
        self.bud_port.wr_req_strobe.next = 0.into();
        self.gather.dev_valid.next = self.dev_port.rd_out_valid.val();
        self.gather.dev_id.next = self.dev_port.rd_out_id.val();
        self.gather.dev_sector.next = self.dev_port.rd_out_sector.val();
        self.gather.dev_data.next = self.dev_port.rd_out_data.val();
        self.dev_port.rd_out_ready.next = self.gather.dev_ready.val();
        self.gather.buddy_valid.next = self.bud_port.rd_out_valid.val();
        self.gather.buddy_id.next = self.bud_port.rd_out_id.val();
        self.gather.buddy_sector.next = self.bud_port.rd_out_sector.val();
        self.gather.buddy_data.next = self.bud_port.rd_out_data.val();
        self.bud_port.rd_out_ready.next = self.gather.buddy_ready.val();
        self.dev_mem_valid.next = self.dev_port.mem_valid.val();
        self.dev_mem_write.next = self.dev_port.mem_write.val();
        self.dev_mem_address.next = self.dev_port.mem_address.val();
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
        self.bud_mem_data.next = self.bud_port.mem_data.val();
        self.bud_mem_strobe.next = self.bud_port.mem_strobe.val();
        self.bud_mem_tag.next = self.bud_port.mem_tag.val();
        self.bud_port.mem_ready.next = self.bud_mem_ready.val();
        self.bud_port.mem_resp_valid.next = self.bud_mem_resp_valid.val();
        self.bud_port.mem_resp_tag.next = self.bud_mem_resp_tag.val();
        self.bud_port.mem_resp_data.next = self.bud_mem_resp_data.val();
        self.bud_mem_resp_ready.next = self.bud_port.mem_resp_ready.val();

        // Gathered payloads -> D0 -> decompressor (the nibble re-read from
        // its RAM while D0 waits).
        self.dec_take.next = self.d0_valid.q.val() & !self.dec_ids.full.val() & self.decomp.in_ready.val();
        self.d0_free.next = !self.d0_valid.q.val() | self.dec_take.val();
        self.gather.out_ready.next = self.d0_free.val();
        self.gather_take.next = self.gather.out_valid.val() & self.d0_free.val();
        self.nibble.read_address.next = self.d0_id.q.val();
        if self.gather_take.val() {
            self.nibble.read_address.next = self.gather.out_id.val();
        }
        if self.dec_take.val() {
            self.d0_valid.d.next = false;
        }
        if self.gather_take.val() {
            self.d0_valid.d.next = true;
            self.d0_id.d.next = self.gather.out_id.val();
            self.d0_payload.d.next = self.gather.out_payload.val();
        }
        self.decomp.in_valid.next = self.d0_valid.q.val() & !self.dec_ids.full.val();
        self.decomp.in_class.next = self.nibble.read_data.val();
        self.decomp.in_payload.next = self.d0_payload.q.val();
        self.dec_ids.push.next = self.dec_take.val();
        self.dec_ids.push_id.next = self.d0_id.q.val();

        // Responses: a fault first, else the decompressor's.
        self.resp_valid.next = self.err_valid.q.val() | self.decomp.out_valid.val();
        self.resp_id.next = self.dec_ids.head.val();
        self.resp_entry.next = self.decomp.out_entry.val();
        self.resp_fault.next = 0.into();
        self.resp_decode_error.next = self.decomp.out_error.val();
        self.decomp.out_ready.next = self.resp_ready.val() & !self.err_valid.q.val();
        if self.err_valid.q.val() {
            self.resp_id.next = self.err_id.q.val();
            self.resp_fault.next = self.err_fault.q.val();
            self.resp_decode_error.next = false;
        }
        self.resp_take.next = self.resp_valid.val() & self.resp_ready.val();
        self.dec_ids.pop.next = self.resp_take.val() & !self.err_valid.q.val();
        if self.resp_take.val() & self.err_valid.q.val() {
            self.err_valid.d.next = false;
        }
        self.contexts.free_valid.next = self.resp_take.val();
        self.contexts.free_id.next = self.resp_id.val();

        if self.reset.val() {
            self.j0_valid.d.next = false;
            self.j1_valid.d.next = false;
            self.d0_valid.d.next = false;
            self.err_valid.d.next = false;
        }
    }
}
