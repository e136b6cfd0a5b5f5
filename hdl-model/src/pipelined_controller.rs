//! [`buddy_hdl::PipelinedController`] (and its ZVC and MAG-BDI builds): the
//! pipelined slice's stages and handshakes, composed from the blocks'
//! cycle models, with the values its requests need (translation, size
//! nibbles, classes, decode errors) given with each request by the caller,
//! which takes them from the golden slice (`docs/controller.md`, "The
//! pipelined slice").
//!
//! The stage logic follows the slice's kernel statement for statement
//! (its handshakes and the order in which it sets and clears the
//! per-context flags); every value that only feeds the data path (payloads,
//! entries, RAM read ports of data) is left out. Each cycle the blocks'
//! outputs are settled by iterating to a fixed point, as rust-hdl settles
//! the circuit.

use buddy_hdl::read_planner::kind;

use crate::elastic_pipeline::{ElasticPipelineModel, PipelineIn, PipelineOut};
use crate::memory_port::{MemRequest, MemoryPortIn, MemoryPortModel, MemoryPortOut};
use crate::pipelined_metadata_cache::{LookupWait, PipelinedMetadataCacheIn, PipelinedMetadataCacheModel, PipelinedMetadataCacheOut};
use crate::read_planner::{ReadPlannerIn, ReadPlannerModel, ReadPlannerOut};
use crate::register_slice::{RegisterSliceIn, RegisterSliceModel, RegisterSliceOut};
use crate::request_contexts::{RequestContextsIn, RequestContextsModel, RequestContextsOut};
use crate::sector_gather::{SectorGatherIn, SectorGatherModel, SectorGatherOut};
use crate::tag_fifo::{TagFifoIn, TagFifoModel, TagFifoOut};
use crate::write_planner::{WritePlannerIn, WritePlannerModel, WritePlannerOut};
use crate::CycleModel;

/// What a request is, and the values the slice computes for it, as the
/// golden slice serving the requests in request order finds them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestFacts {
    pub write: bool,
    pub flush: bool,
    /// Sectors written (bit `s`: bytes `32s..32s+32`).
    pub mask: u8,
    /// The memory-entry index, `va >> 7` (the same-entry guard's key).
    pub entry: u64,
    /// The translator's fault code (0: none).
    pub fault: u8,
    /// The page is compressed (the translator's `out_metadata_valid`).
    pub compressed: bool,
    /// The size nibble's byte address (which half of the byte it is only
    /// picks bits of the cache's data word).
    pub md_address: u64,
    /// The translation for the whole slot (class RAW): device slot start
    /// (byte address), device part (bytes), buddy slot start.
    pub device: u64,
    pub part: u64,
    pub buddy: u64,
    /// The size nibble a read (or a partial write's reservation) finds.
    pub old_nibble: u8,
    /// A write's class as the compressor chooses it (size class code).
    pub new_class: u8,
    /// The entry read does not decode (a reserved size code or a stream
    /// the decompressor rejects).
    pub decode_error: bool,
}

/// The slice's inputs in one cycle (the translation registers are held
/// and only matter through [`RequestFacts`]).
#[derive(Debug, Clone, Default)]
pub struct SliceIn {
    pub reset: bool,
    /// `req_valid` and the request offered.
    pub req: Option<RequestFacts>,
    pub resp_ready: bool,
    pub dev_mem_ready: bool,
    /// A read sector answered on the device / buddy port: its tag.
    pub dev_mem_resp: Option<u64>,
    pub bud_mem_ready: bool,
    pub bud_mem_resp: Option<u64>,
}

/// A response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SliceResponse {
    pub id: u8,
    pub write: bool,
    pub flush: bool,
    pub fault: u8,
    pub decode_error: bool,
}

/// The slice's outputs in one cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SliceOut {
    /// `req_ready` with the context id it gives (`req_id`).
    pub req_ready: Option<u8>,
    pub resp: Option<SliceResponse>,
    pub dev_mem: Option<MemRequest>,
    pub dev_mem_resp_ready: bool,
    pub bud_mem: Option<MemRequest>,
    pub bud_mem_resp_ready: bool,
    pub in_flight: u64,
    /// `md_lookup_*`: (context, outcome).
    pub md_lookup: Option<(u8, u8)>,
}

/// A commit on its way to the metadata cache: the data-array word and
/// the tag (the nibble's place and value only pick bits of the word).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Commit {
    word: u64,
    tag: u64,
}

/// The blocks' outputs in one cycle.
#[derive(Debug, Clone, Default, PartialEq)]
struct Wires {
    contexts: RequestContextsOut,
    translator: PipelineOut<u8>,
    xlate_ids: TagFifoOut,
    xlate_flags: TagFifoOut,
    dec_ids: TagFifoOut,
    comp_ids: TagFifoOut,
    commit_slice: RegisterSliceOut<Commit>,
    md: PipelinedMetadataCacheOut,
    planner: ReadPlannerOut,
    writer: WritePlannerOut,
    comp: PipelineOut<u8>,
    decomp: PipelineOut<u8>,
    gather: SectorGatherOut,
    dev_port: MemoryPortOut,
    bud_port: MemoryPortOut,
}

/// The blocks' inputs in one cycle.
#[derive(Debug, Clone, Default)]
struct Inputs {
    contexts: RequestContextsIn,
    translator: PipelineIn<u8>,
    xlate_ids: TagFifoIn,
    xlate_flags: TagFifoIn,
    dec_ids: TagFifoIn,
    comp_ids: TagFifoIn,
    commit_slice: RegisterSliceIn<Commit>,
    md: PipelinedMetadataCacheIn,
    planner: ReadPlannerIn,
    writer: WritePlannerIn,
    comp: PipelineIn<u8>,
    decomp: PipelineIn<u8>,
    gather: SectorGatherIn,
    dev_port: MemoryPortIn,
    bud_port: MemoryPortIn,
}

/// The stages' registers.
#[derive(Debug, Clone, Copy, Default)]
struct X1 {
    id: u8,
    write: bool,
    mask: u8,
    fault: u8,
    compressed: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct J0 {
    id: u8,
    nibble: u8,
    compressed: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct J1 {
    id: u8,
    class: u8,
    compressed: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct M0 {
    id: u8,
    error: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct W0 {
    id: u8,
    class: u8,
}

#[derive(Debug, Clone, Copy, Default)]
struct Wr {
    id: u8,
    flush: bool,
    error: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct Err {
    id: u8,
    fault: u8,
}

/// Per-context flags, bit `id` (the kernel's `w_*` registers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Flags {
    full: u128,
    partial: u128,
    reserved: u128,
    abort: u128,
    stored: u128,
}

/// The kernel's combinational signals that the clock edge needs.
#[derive(Debug, Clone, Copy, Default)]
struct Locals {
    accept: bool,
    flush_take: bool,
    x_take: bool,
    x1_go: bool,
    x1_md: bool,
    x1_full: bool,
    f_req: bool,
    md_take: bool,
    md_to_wr: bool,
    md_reserved_taken: bool,
    md_commit_resp: bool,
    md_resp_id: u8,
    x_to_j0: bool,
    j1_load: bool,
    gather_take: bool,
    dec_take: bool,
    m0_free: bool,
    m0_load: bool,
    m0_ahead: bool,
    m0_abort: bool,
    comp_out_take: bool,
    w0_to_writer: bool,
    k0_free: bool,
    k0_answer: bool,
    pick: Option<u8>,
    pick_to_k0: bool,
    pass_take: bool,
    r0_take: bool,
    resp_take: bool,
    /// The response port's source this cycle.
    granted: Option<RespSource>,
    resp: Option<SliceResponse>,
    md_lookup: Option<(u8, u8)>,
}

const CONTEXTS: usize = buddy_hdl::request_contexts::CONTEXTS;

/// Why a request offered to the slice is not taken in a cycle: the first
/// condition of `req_ready` that fails and, when the translator is full,
/// what the request ahead in X1 waits for (a diagnosis the model can give
/// and the hardware's ports cannot; `docs/controller.md`, "Where the
/// pipelined slice's cycles go").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AcceptWait {
    /// A flush is in progress, or a flush waits for the slice to empty.
    Flush,
    /// The translator's tag queue holds 16 requests.
    TagQueue,
    /// All 128 contexts are in use.
    AllContexts,
    /// The same-entry guard: a write of the request's memory-entry is in
    /// flight (the request is a read).
    ReadAfterWrite,
    /// The same-entry guard: the request is a write, and a request to its
    /// memory-entry that closes the bucket to writes is in flight.
    WriteAfterAccess,
    /// The same-entry guard, by another memory-entry of the request's
    /// bucket (or one whose release is still in progress, a cycle or two):
    /// what a wider or better-spread bucket hash would save. The model
    /// compares the contexts' entries, which the hardware does not keep.
    SharedBucket,
    /// The translator is full and X1 is leaving (it drains next cycle).
    Translator,
    /// The translator is full behind X1, which waits for: the fault
    /// answer register, the compressor (a full write), a metadata lookup,
    /// the write planner (an uncompressed write) or J0 (an uncompressed read).
    FaultPort,
    Compressor,
    Metadata(LookupWait),
    WritePlanner,
    ReadPlanner,
}

impl AcceptWait {
    pub fn name(self) -> String {
        match self {
            AcceptWait::Flush => "flush".into(),
            AcceptWait::TagQueue => "translator tag queue full".into(),
            AcceptWait::AllContexts => "all 128 contexts in use".into(),
            AcceptWait::ReadAfterWrite => "same-entry guard: a read behind a write of its entry".into(),
            AcceptWait::WriteAfterAccess => "same-entry guard: a write behind a request to its entry".into(),
            AcceptWait::SharedBucket => "same-entry guard: another entry of its bucket".into(),
            AcceptWait::Translator => "translator draining".into(),
            AcceptWait::FaultPort => "X1 waits: fault answer".into(),
            AcceptWait::Compressor => "X1 waits: compressor".into(),
            AcceptWait::Metadata(m) => format!("X1 waits: metadata lookup, {}", m.name()),
            AcceptWait::WritePlanner => "X1 waits: write planner".into(),
            AcceptWait::ReadPlanner => "X1 waits: J0 / read planner".into(),
        }
    }
}

/// The pipelined slice, built with codec latencies `compress` and
/// `decompress` (cycles, II 1: `buddy_hdl::timing::codec_latency`).
#[derive(Debug, Clone)]
pub struct PipelinedControllerModel {
    contexts: RequestContextsModel,
    translator: ElasticPipelineModel<u8>,
    xlate_ids: TagFifoModel,
    xlate_flags: TagFifoModel,
    dec_ids: TagFifoModel,
    comp_ids: TagFifoModel,
    commit_slice: RegisterSliceModel<Commit>,
    md: PipelinedMetadataCacheModel,
    planner: ReadPlannerModel,
    writer: WritePlannerModel,
    comp: ElasticPipelineModel<u8>,
    decomp: ElasticPipelineModel<u8>,
    gather: SectorGatherModel,
    dev_port: MemoryPortModel,
    bud_port: MemoryPortModel,
    /// Each context's request, from acceptance.
    facts: Vec<RequestFacts>,
    /// Each write's reservation: the data-array word the cache answered.
    res_word: Vec<u64>,
    /// The nibble RAM: each read's nibble, written while J0 holds it.
    nibble: Vec<u8>,
    /// The stages' registers.
    s: Stages,
    /// The blocks' outputs as last settled (the next settle starts there).
    wires: Wires,
    /// Cycles a request was offered and not taken, by why.
    accept_waits: std::collections::BTreeMap<AcceptWait, u64>,
}

fn bit(id: u8) -> u128 {
    1u128 << id
}

fn has(flags: u128, id: u8) -> bool {
    flags >> id & 1 == 1
}

impl PipelinedControllerModel {
    pub fn new(compress_latency: u64, decompress_latency: u64) -> Self {
        PipelinedControllerModel {
            contexts: Default::default(),
            translator: ElasticPipelineModel::new(buddy_hdl::address_translator::LATENCY),
            xlate_ids: Default::default(),
            xlate_flags: Default::default(),
            dec_ids: Default::default(),
            comp_ids: Default::default(),
            commit_slice: Default::default(),
            md: Default::default(),
            planner: Default::default(),
            writer: Default::default(),
            comp: ElasticPipelineModel::new(compress_latency),
            decomp: ElasticPipelineModel::new(decompress_latency),
            gather: Default::default(),
            dev_port: Default::default(),
            bud_port: Default::default(),
            facts: vec![RequestFacts::default(); CONTEXTS],
            res_word: vec![0; CONTEXTS],
            nibble: vec![0; CONTEXTS],
            s: Stages::default(),
            wires: Wires::default(),
            accept_waits: Default::default(),
        }
    }

    /// Cycles a request was offered and not taken, by why (since built).
    pub fn accept_waits(&self) -> &std::collections::BTreeMap<AcceptWait, u64> {
        &self.accept_waits
    }

    /// Whether the slice takes request `req` this cycle.
    fn req_ready(&self, w: &Wires, req: &RequestFacts) -> bool {
        if req.flush {
            !self.s.f_valid && w.contexts.in_use == 0
        } else {
            !self.s.f_valid && w.contexts.alloc.is_some() && w.translator.in_ready && !w.xlate_ids.full
        }
    }

    /// Why `req` is not taken this cycle (see [`AcceptWait`]).
    fn accept_wait(&self, w: &Wires, n: &Inputs, l: &Locals, req: &RequestFacts) -> AcceptWait {
        if req.flush || self.s.f_valid {
            return AcceptWait::Flush;
        }
        if w.xlate_ids.full {
            return AcceptWait::TagQueue;
        }
        if w.contexts.alloc.is_none() {
            if w.contexts.in_use as usize == CONTEXTS {
                return AcceptWait::AllContexts;
            }
            let closing = self.contexts.closing(req.write);
            let same = (0..CONTEXTS).any(|c| closing >> c & 1 == 1 && self.facts[c].entry == req.entry);
            return match (same, req.write) {
                (false, _) => AcceptWait::SharedBucket,
                (true, false) => AcceptWait::ReadAfterWrite,
                (true, true) => AcceptWait::WriteAfterAccess,
            };
        }
        match self.s.x1 {
            Some(x1) if !l.x1_go => {
                if x1.fault != 0 {
                    AcceptWait::FaultPort
                } else if x1.compressed && !n.md.req_valid {
                    AcceptWait::Compressor
                } else if x1.compressed {
                    self.md.lookup_wait(&n.md).map_or(AcceptWait::Translator, AcceptWait::Metadata)
                } else if x1.write {
                    AcceptWait::WritePlanner
                } else {
                    AcceptWait::ReadPlanner
                }
            }
            _ => AcceptWait::Translator,
        }
    }

    fn blocks_out(&self, n: &Inputs) -> Wires {
        Wires {
            contexts: self.contexts.outputs(&n.contexts),
            translator: self.translator.outputs(&n.translator),
            xlate_ids: self.xlate_ids.outputs(&n.xlate_ids),
            xlate_flags: self.xlate_flags.outputs(&n.xlate_flags),
            dec_ids: self.dec_ids.outputs(&n.dec_ids),
            comp_ids: self.comp_ids.outputs(&n.comp_ids),
            commit_slice: self.commit_slice.outputs(&n.commit_slice),
            md: self.md.outputs(&n.md),
            planner: self.planner.outputs(&n.planner),
            writer: self.writer.outputs(&n.writer),
            comp: self.comp.outputs(&n.comp),
            decomp: self.decomp.outputs(&n.decomp),
            gather: self.gather.outputs(&n.gather),
            dev_port: self.dev_port.outputs(&n.dev_port),
            bud_port: self.bud_port.outputs(&n.bud_port),
        }
    }

    /// Settle the cycle: the blocks' outputs, their inputs and the
    /// kernel's signals, iterated until the outputs stop changing.
    fn settle(&self, i: &SliceIn) -> (Wires, Inputs, Locals) {
        let mut w = self.wires.clone();
        for _ in 0..64 {
            let (n, l) = self.kernel(&w, i);
            let next = self.blocks_out(&n);
            if next == w {
                return (w, n, l);
            }
            w = next;
        }
        panic!("the pipelined slice's model did not settle in 64 passes");
    }

    /// The slice's kernel: the blocks' inputs and the stages' handshakes
    /// from the blocks' outputs `w` and the ports `i`.
    fn kernel(&self, w: &Wires, i: &SliceIn) -> (Inputs, Locals) {
        let mut n = Inputs::default();
        let mut l = Locals::default();
        let reset = i.reset;
        n.contexts.reset = reset;
        n.translator.reset = reset;
        n.xlate_ids.reset = reset;
        n.xlate_flags.reset = reset;
        n.dec_ids.reset = reset;
        n.comp_ids.reset = reset;
        n.commit_slice.reset = reset;
        n.md.reset = reset;
        n.planner.reset = reset;
        n.writer.reset = reset;
        n.comp.reset = reset;
        n.decomp.reset = reset;
        n.gather.reset = reset;
        n.dev_port.reset = reset;
        n.bud_port.reset = reset;

        // J1 / J0 handshakes.
        let j1_free = self.s.j1.is_none() || w.planner.in_ready;
        l.j1_load = self.s.j0.is_some() && j1_free;
        let j0_free = self.s.j0.is_none() || l.j1_load;
        // The metadata cache's answer and its kind.
        let md_resp = w.md.resp;
        let md_resp_valid = md_resp.is_some();
        let md_tag = md_resp.map_or(0, |r| r.tag as u64);
        l.md_commit_resp = md_resp.is_some_and(|r| r.commit);
        let md_reserved_resp = md_tag >> 7 & 1 == 1 && !l.md_commit_resp;
        let md_full_resp = md_tag >> 8 & 1 == 1 && !l.md_commit_resp;
        l.md_resp_id = (md_tag & 0x7f) as u8;
        let md_wants_j0 = md_resp_valid && !self.s.f_sent && !l.md_commit_resp && !md_full_resp;
        // The response port: a fault first, then a write's answer, then a
        // read's from the decompressor, then R0's; a source offered and not
        // taken keeps the grant.
        let head_partial = w.dec_ids.head.is_some_and(|h| h.1);
        let decomp_out_valid = w.decomp.out.is_some();
        let dec_offer = decomp_out_valid && !head_partial;
        let held = self.s.held;
        // The hardware's `dec_first`: the decompressor's `out_ready` term,
        // also on a cycle it offers nothing.
        let dec_first = held == Some(RespSource::Decompressor) || (held.is_none() && self.s.err.is_none() && self.s.wr.is_none());
        l.granted = if held.is_some() {
            held
        } else if self.s.err.is_some() {
            Some(RespSource::Fault)
        } else if self.s.wr.is_some() {
            Some(RespSource::Write)
        } else if dec_offer {
            Some(RespSource::Decompressor)
        } else if self.s.r0.is_some() {
            Some(RespSource::R0)
        } else {
            None
        };
        let wr_free = self.s.wr.is_none() || (i.resp_ready && l.granted == Some(RespSource::Write));
        let md_resp_ready = if self.s.f_sent || l.md_commit_resp {
            wr_free
        } else if md_full_resp {
            true
        } else {
            j0_free
        };
        l.md_to_wr = md_resp_valid && (self.s.f_sent || l.md_commit_resp) && wr_free;
        l.md_take = md_wants_j0 && j0_free;
        l.md_reserved_taken = md_resp_valid && md_resp_ready && md_reserved_resp;
        // K0: a stored write's commit (or an uncompressed page's answer).
        let k0_compressed = self.s.k0.is_some_and(|id| self.facts[id as usize].compressed);
        let k0_commit = self.s.k0.is_some() && k0_compressed;
        l.k0_answer = self.s.k0.is_some() && !k0_compressed && wr_free && !l.md_to_wr;
        l.k0_free = self.s.k0.is_none() || (k0_commit && w.commit_slice.in_ready) || l.k0_answer;
        l.pick = (self.s.committable != 0).then(|| self.s.committable.trailing_zeros() as u8);
        l.pick_to_k0 = l.pick.is_some() && l.k0_free;
        l.m0_abort = self.s.m0.is_some_and(|m| m.error);
        let m0_to_comp = self.s.m0.is_some_and(|m| !m.error) && self.s.m0_data_ok;
        // X1's dispatch.
        let x1 = self.s.x1.unwrap_or_default();
        let x1_valid = self.s.x1.is_some();
        l.x1_md = x1.fault == 0 && x1.compressed;
        l.x1_full = l.x1_md && x1.write && x1.mask == 15;
        let x1_unc_write = x1.fault == 0 && !x1.compressed && x1.write;
        l.w0_to_writer = self.s.w0.is_some() && w.writer.in_ready;
        let w0_free = self.s.w0.is_none() || l.w0_to_writer;
        l.comp_out_take = w.comp.out.is_some() && w0_free;
        let x1_to_writer = x1_valid && x1_unc_write && self.s.w0.is_none() && w.writer.in_ready;
        l.f_req = self.s.f_valid && !self.s.f_sent && !x1_valid;
        let comp_ids_full = w.comp_ids.full;
        let md_req_valid = (x1_valid && l.x1_md && (!l.x1_full || (w.comp.in_ready && !m0_to_comp && !comp_ids_full))) || l.f_req;
        let x1_to_comp = x1_valid && l.x1_full && w.md.req_ready;
        let comp_in_valid = (m0_to_comp || x1_to_comp) && !comp_ids_full;
        let comp_take = comp_in_valid && w.comp.in_ready;
        l.m0_free = self.s.m0.is_none() || (m0_to_comp && !comp_ids_full && w.comp.in_ready) || l.m0_abort;
        l.m0_load = decomp_out_valid && head_partial && l.m0_free;
        l.x1_go = if !x1_valid {
            false
        } else if x1.fault != 0 {
            self.s.err.is_none()
        } else if x1.compressed {
            md_req_valid && w.md.req_ready
        } else if x1.write {
            x1_to_writer
        } else {
            j0_free && !md_wants_j0
        };
        let x1_free = !x1_valid || l.x1_go;
        l.x_take = w.translator.out.is_some() && x1_free;
        l.x_to_j0 = x1_valid && x1.fault == 0 && !x1.compressed && !x1.write && j0_free && !md_wants_j0;
        let dec_out_ready = if head_partial { l.m0_free } else { i.resp_ready && dec_first };
        n.translator.out_ready = x1_free;
        n.md.req_valid = md_req_valid;
        n.md.resp_ready = md_resp_ready;
        n.comp.in_valid = comp_in_valid;

        // Accept.
        let req = i.req.unwrap_or_default();
        let req_valid = i.req.is_some();
        n.contexts.alloc_entry = req.entry;
        n.contexts.alloc_write = req.write;
        n.contexts.alloc_valid = req_valid && !req.flush && !self.s.f_valid && w.translator.in_ready && !w.xlate_ids.full;
        let alloc_id = w.contexts.alloc.unwrap_or_default();
        n.translator.in_valid = req_valid && !req.flush && !self.s.f_valid && w.contexts.alloc.is_some() && !w.xlate_ids.full;
        let req_ready = self.req_ready(w, &req);
        l.accept = req_valid && req_ready && !req.flush;
        l.flush_take = req_valid && req_ready && req.flush;
        n.translator.in_payload = alloc_id;
        n.xlate_ids.push = l.accept;
        n.xlate_ids.push_id = alloc_id;
        n.xlate_flags.push = l.accept;
        n.xlate_flags.push_id = req.mask << 1 | req.write as u8;
        l.md_lookup = (md_resp_valid && md_resp_ready && !self.s.f_sent && !l.md_commit_resp)
            .then(|| (l.md_resp_id, md_resp.map_or(0, |r| r.outcome)));

        // Translator -> X1.
        n.xlate_ids.pop = l.x_take;
        n.xlate_flags.pop = l.x_take;

        // X1 -> the metadata cache.
        n.md.req_write = false;
        n.md.req_flush = false;
        n.md.req_reserve = x1.write;
        let x1_facts = &self.facts[x1.id as usize];
        n.md.req_address = x1_facts.md_address;
        n.md.req_tag = x1.id as u16;
        if x1.write {
            n.md.req_tag |= if l.x1_full { 0x180 } else { 0x80 };
        }
        if l.f_req {
            n.md.req_flush = true;
            n.md.req_reserve = false;
            n.md.req_tag = 0;
        }

        // J1 -> the read planner.
        let j1 = self.s.j1.unwrap_or_default();
        let j1_facts = &self.facts[j1.id as usize];
        n.planner.in_valid = self.s.j1.is_some();
        n.planner.in_id = j1.id;
        n.planner.in_kind = kind::FULL as u8;
        n.planner.in_class = j1.class;
        n.planner.in_compressed = j1.compressed;
        n.planner.in_device_address = j1_facts.device;
        n.planner.in_device_part_bytes = j1_facts.part as u8;
        n.planner.in_buddy_address = j1_facts.buddy;

        // Planners, gather and memory ports.
        if let Some(p) = w.planner.plan {
            n.gather.plan_valid = true;
            n.gather.plan_id = p.id;
            n.gather.plan_device = p.device;
            n.gather.plan_lead = p.lead;
            n.gather.plan_words = p.words;
            n.gather.plan_sectors = p.sectors;
            n.gather.plan_buddy = p.buddy;
            n.gather.plan_bud_lead = p.bud_lead;
            n.gather.plan_bud_sectors = p.bud_sectors;
            n.gather.plan_last = p.last;
        }
        n.planner.plan_ready = w.gather.plan_ready;
        for (port, req) in [(&mut n.dev_port, w.planner.dev_req), (&mut n.bud_port, w.planner.buddy_req)] {
            if let Some(r) = req {
                port.rd_req_valid = true;
                port.rd_req_id = r.id;
                port.rd_req_sector = r.sector;
                port.rd_req_address = r.address;
                port.rd_req_sectors = r.sectors;
            }
        }
        n.planner.dev_req_ready = w.dev_port.rd_req_ready;
        n.planner.buddy_req_ready = w.bud_port.rd_req_ready;
        // A read's memory reads are all taken: its entry opens to writes.
        n.contexts.issued = w.planner.done;
        // An uncompressed page's write taken by the write planner.
        n.contexts.planned = (x1_valid && x1_unc_write && self.s.w0.is_none() && w.writer.in_ready).then_some(x1.id);
        if let Some(m) = w.md.mem_req {
            n.dev_port.md_req_valid = true;
            n.dev_port.md_req_write = m.write;
            n.dev_port.md_req_address = m.address;
        }
        n.md.mem_req_ready = w.dev_port.md_req_ready;
        n.md.mem_fill_valid = w.dev_port.md_fill_valid;
        n.dev_port.md_fill_ready = w.md.mem_fill_ready;
        for (port, wr) in [(&mut n.dev_port, w.writer.dev_wr), (&mut n.bud_port, w.writer.buddy_wr)] {
            if let Some(x) = wr {
                port.wr_req_valid = true;
                port.wr_req_address = x.address;
                port.wr_req_id = x.id;
                port.wr_req_sectors = x.sectors;
            }
        }
        n.writer.dev_wr_ready = w.dev_port.wr_req_ready;
        n.writer.buddy_wr_ready = w.bud_port.wr_req_ready;
        if let Some((id, sector, sectors)) = w.dev_port.rd_out {
            n.gather.dev_valid = true;
            n.gather.dev_id = id;
            n.gather.dev_sector = sector;
            n.gather.dev_sectors = sectors;
        }
        n.dev_port.rd_out_ready = w.gather.dev_ready;
        if let Some((id, sector, sectors)) = w.bud_port.rd_out {
            n.gather.buddy_valid = true;
            n.gather.buddy_id = id;
            n.gather.buddy_sector = sector;
            n.gather.buddy_sectors = sectors;
        }
        n.bud_port.rd_out_ready = w.gather.buddy_ready;
        n.dev_port.mem_ready = i.dev_mem_ready;
        n.dev_port.mem_resp_valid = i.dev_mem_resp.is_some();
        n.dev_port.mem_resp_tag = i.dev_mem_resp.unwrap_or_default() as u16;
        n.bud_port.mem_ready = i.bud_mem_ready;
        n.bud_port.mem_resp_valid = i.bud_mem_resp.is_some();
        n.bud_port.mem_resp_tag = i.bud_mem_resp.unwrap_or_default() as u16;

        // Gathered payloads -> D0 -> decompressor.
        // A read of a RAW or ZERO entry (an uncompressed page's slot too) passes the
        // decompressor by R0; a partial write's old entry never does.
        let d0 = self.s.d0.unwrap_or_default();
        let d0_pass = matches!(self.nibble[d0 as usize], 0 | 7) && !has(self.s.w.partial, d0);
        // R0 answers when granted: held, or no fault, write or decompressed read offered.
        l.r0_take = l.granted == Some(RespSource::R0) && i.resp_ready;
        // R0 and R1 queue RAW and ZERO reads; D0 goes in while R1 is empty (a
        // flip-flop, so that the gather's `out_ready` waits for no answer).
        l.pass_take = self.s.d0.is_some() && d0_pass && self.s.r1.is_none();
        l.dec_take = self.s.d0.is_some() && !d0_pass && !w.dec_ids.full && w.decomp.in_ready;
        let d0_free = self.s.d0.is_none() || l.dec_take || l.pass_take;
        n.gather.out_ready = d0_free;
        l.gather_take = w.gather.out.is_some() && d0_free;
        n.decomp.in_valid = self.s.d0.is_some() && !d0_pass && !w.dec_ids.full;
        n.decomp.in_payload = self.s.d0.unwrap_or_default();
        n.dec_ids.push = l.dec_take;
        n.dec_ids.push_id = self.s.d0.unwrap_or_default();
        n.dec_ids.push_mark = has(self.s.w.partial, self.s.d0.unwrap_or_default());
        l.m0_ahead = decomp_out_valid && head_partial && (self.s.m0.is_none() || l.m0_abort || m0_to_comp);

        // Compressor -> W0 -> write planner.
        n.comp_ids.push_id = if m0_to_comp { self.s.m0.unwrap_or_default().id } else { x1.id };
        n.comp.in_payload = n.comp_ids.push_id;
        n.comp_ids.push = comp_take;
        n.comp.out_ready = w0_free;
        n.comp_ids.pop = l.comp_out_take;
        let w0 = self.s.w0.unwrap_or_default();
        let w0_facts = &self.facts[w0.id as usize];
        n.writer.in_valid = self.s.w0.is_some() || (x1_valid && x1_unc_write);
        if self.s.w0.is_some() {
            n.writer.in_id = w0.id;
            n.writer.in_class = w0.class & 7;
            n.writer.in_compressed = true;
            n.writer.in_mask = 15;
            n.writer.in_device_address = w0_facts.device;
            n.writer.in_device_part_bytes = w0_facts.part as u8;
            n.writer.in_buddy_address = w0_facts.buddy;
        } else {
            n.writer.in_id = x1.id;
            n.writer.in_class = 7;
            n.writer.in_compressed = false;
            n.writer.in_mask = x1.mask;
            n.writer.in_device_address = x1_facts.device;
            n.writer.in_device_part_bytes = x1_facts.part as u8;
            n.writer.in_buddy_address = x1_facts.buddy;
        }
        n.writer.done_ready = true;

        // K0 -> the commit slice -> the cache's commit port.
        n.commit_slice.in_valid = k0_commit;
        let k0 = self.s.k0.unwrap_or_default();
        n.commit_slice.in_data = Commit { word: self.res_word[k0 as usize], tag: k0 as u64 };
        let commit = w.commit_slice.out;
        n.md.commit_valid = commit.is_some();
        let c = commit.unwrap_or_default();
        n.md.commit_word = c.word as u8;
        n.md.commit_tag = c.tag as u16;
        n.commit_slice.out_ready = w.md.commit_ready;

        // The response port.
        let dec_head = w.dec_ids.head.map_or(0, |h| h.0);
        let resp = l.granted.map(|g| match g {
            RespSource::Fault => {
                let e = self.s.err.unwrap_or_default();
                SliceResponse { id: e.id, fault: e.fault, ..Default::default() }
            }
            RespSource::Write => {
                let wr = self.s.wr.unwrap_or_default();
                SliceResponse { id: wr.id, write: !wr.flush, flush: wr.flush, fault: 0, decode_error: wr.error }
            }
            RespSource::Decompressor => {
                SliceResponse { id: dec_head, decode_error: self.facts[dec_head as usize].decode_error, ..Default::default() }
            }
            RespSource::R0 => SliceResponse { id: self.s.r0.unwrap_or_default(), ..Default::default() },
        });
        l.resp = resp;
        l.resp_take = resp.is_some() && i.resp_ready;
        n.dec_ids.pop = decomp_out_valid && dec_out_ready;
        n.decomp.out_ready = dec_out_ready;
        let resp_id = resp.map_or(dec_head, |r| r.id);
        n.contexts.free_valid =
            l.resp_take && !(l.granted == Some(RespSource::Write) && self.s.wr.is_some_and(|wr| wr.flush));
        n.contexts.free_id = resp_id;
        (n, l)
    }

    fn facts_of_head(&self, w: &Wires) -> u8 {
        w.xlate_ids.head.map_or(0, |h| h.0)
    }
}

impl CycleModel for PipelinedControllerModel {
    type In = SliceIn;
    type Out = SliceOut;

    fn outputs(&self, i: &SliceIn) -> SliceOut {
        let (w, _, l) = self.settle(i);
        let ready = self.req_ready(&w, &i.req.unwrap_or_default());
        SliceOut {
            req_ready: ready.then_some(w.contexts.alloc.unwrap_or_default()),
            resp: l.resp,
            dev_mem: w.dev_port.mem,
            dev_mem_resp_ready: w.dev_port.mem_resp_ready,
            bud_mem: w.bud_port.mem,
            bud_mem_resp_ready: w.bud_port.mem_resp_ready,
            in_flight: w.contexts.in_use as u64,
            md_lookup: l.md_lookup,
        }
    }

    fn clock(&mut self, i: &SliceIn) {
        let (w, n, l) = self.settle(i);
        if let Some(req) = i.req.filter(|r| !i.reset && !self.req_ready(&w, r)) {
            *self.accept_waits.entry(self.accept_wait(&w, &n, &l, &req)).or_default() += 1;
        }
        // The flags, in the order the kernel sets and clears them.
        let mut f = self.s.w;
        let x1 = self.s.x1.unwrap_or_default();
        if l.x1_go && l.x1_md && x1.write {
            if l.x1_full {
                f.full |= bit(x1.id);
            } else {
                f.partial |= bit(x1.id);
            }
        }
        if l.md_reserved_taken {
            f.reserved |= bit(l.md_resp_id);
            self.res_word[l.md_resp_id as usize] = w.md.resp.map_or(0, |r| r.word as u64);
        }
        if l.md_to_wr && l.md_commit_resp {
            f.full &= !bit(l.md_resp_id);
            f.partial &= !bit(l.md_resp_id);
            f.reserved &= !bit(l.md_resp_id);
        }
        if let Some(id) = w.writer.done {
            f.stored |= bit(id);
        }
        if l.m0_abort {
            let id = self.s.m0.unwrap_or_default().id;
            f.stored |= bit(id);
            f.abort |= bit(id);
        }
        if l.pick_to_k0 {
            f.stored &= !bit(l.pick.unwrap_or_default());
        }
        let wr_leaves = l.granted == Some(RespSource::Write) && i.resp_ready;
        if wr_leaves {
            f.abort &= !bit(self.s.wr.unwrap_or_default().id);
        }

        // The stages' registers (a later assignment in the kernel wins).
        let mut next = self.s;
        if l.flush_take {
            next.f_valid = true;
        }
        if l.x1_go {
            next.x1 = None;
        }
        if l.x_take {
            let id = self.facts_of_head(&w);
            let flags = w.xlate_flags.head.map_or(0, |h| h.0);
            let facts = &self.facts[id as usize];
            next.x1 = Some(X1 { id, write: flags & 1 == 1, mask: flags >> 1 & 15, fault: facts.fault, compressed: facts.compressed });
        }
        if l.f_req && w.md.req_ready {
            next.f_sent = true;
        }
        if l.x1_go && x1.fault != 0 {
            next.err = Some(Err { id: x1.id, fault: x1.fault });
        }
        if l.j1_load {
            next.j0 = None;
        }
        if l.md_take {
            let id = l.md_resp_id;
            next.j0 = Some(J0 { id, nibble: self.facts[id as usize].old_nibble, compressed: true });
        }
        if l.x_to_j0 {
            next.j0 = Some(J0 { id: x1.id, nibble: 7, compressed: false });
        }
        if w.planner.in_ready {
            next.j1 = None;
        }
        if l.j1_load {
            let j0 = self.s.j0.unwrap_or_default();
            let class = if j0.nibble & 8 != 0 { 0 } else { j0.nibble & 7 };
            next.j1 = Some(J1 { id: j0.id, class, compressed: j0.compressed });
        }
        if l.r0_take {
            next.r0 = self.s.r1;
            next.r1 = None;
        }
        if l.pass_take {
            if next.r0.is_none() {
                next.r0 = self.s.d0;
            } else {
                next.r1 = self.s.d0;
            }
        }
        if l.dec_take || l.pass_take {
            next.d0 = None;
        }
        if l.gather_take {
            next.d0 = w.gather.out;
        }
        next.m0_data_ok = !l.m0_ahead || l.m0_load;
        if l.m0_free {
            next.m0 = None;
        }
        if l.m0_load {
            let id = w.dec_ids.head.map_or(0, |h| h.0);
            next.m0 = Some(M0 { id, error: self.facts[id as usize].decode_error });
        }
        if l.w0_to_writer {
            next.w0 = None;
        }
        if l.comp_out_take {
            let id = w.comp_ids.head.map_or(0, |h| h.0);
            next.w0 = Some(W0 { id, class: self.facts[id as usize].new_class });
        }
        if l.k0_free {
            next.k0 = None;
        }
        if l.pick_to_k0 {
            next.k0 = l.pick;
        }
        if wr_leaves {
            next.wr = None;
        }
        if l.md_to_wr {
            next.wr = Some(Wr { id: l.md_resp_id, flush: self.s.f_sent, error: has(self.s.w.abort, l.md_resp_id) });
            if self.s.f_sent {
                next.f_valid = false;
                next.f_sent = false;
            }
        }
        if l.k0_answer {
            next.wr = Some(Wr { id: self.s.k0.unwrap_or_default(), flush: false, error: false });
        }
        if l.resp_take && l.granted == Some(RespSource::Fault) {
            next.err = None;
        }
        next.held = l.granted.filter(|_| !i.resp_ready);
        next.w = f;
        next.committable = f.stored & (f.reserved | !(f.full | f.partial));
        if i.reset {
            // Every valid and flag clears; `m0_data_ok` is not reset.
            next = Stages { m0_data_ok: next.m0_data_ok, ..Stages::default() };
        }
        if l.accept {
            let id = w.contexts.alloc.unwrap_or_default();
            self.facts[id as usize] = i.req.unwrap_or_default();
        }
        if let Some(j0) = self.s.j0 {
            self.nibble[j0.id as usize] = j0.nibble;
        }
        self.s = next;

        self.contexts.clock(&n.contexts);
        self.translator.clock(&n.translator);
        self.xlate_ids.clock(&n.xlate_ids);
        self.xlate_flags.clock(&n.xlate_flags);
        self.dec_ids.clock(&n.dec_ids);
        self.comp_ids.clock(&n.comp_ids);
        self.commit_slice.clock(&n.commit_slice);
        self.md.clock(&n.md);
        self.planner.clock(&n.planner);
        self.writer.clock(&n.writer);
        self.comp.clock(&n.comp);
        self.decomp.clock(&n.decomp);
        self.gather.clock(&n.gather);
        self.dev_port.clock(&n.dev_port);
        self.bud_port.clock(&n.bud_port);
        self.wires = w;
    }
}

/// The stages' registers, copied out and back around an edge.
#[derive(Debug, Clone, Copy, Default)]
struct Stages {
    x1: Option<X1>,
    f_valid: bool,
    f_sent: bool,
    m0: Option<M0>,
    m0_data_ok: bool,
    w0: Option<W0>,
    k0: Option<u8>,
    wr: Option<Wr>,
    j0: Option<J0>,
    j1: Option<J1>,
    d0: Option<u8>,
    /// R0: a RAW read's gathered payload (a ZERO read's zeros), answered without the decompressor.
    r0: Option<u8>,
    /// R1: a RAW or ZERO read queued behind R0.
    r1: Option<u8>,
    err: Option<Err>,
    /// The response port's source offered last cycle and not taken: it
    /// keeps the grant (a stalled beat is offered again unchanged).
    held: Option<RespSource>,
    w: Flags,
    committable: u128,
}

/// The response port's sources, in priority order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RespSource {
    Fault,
    Write,
    Decompressor,
    R0,
}
