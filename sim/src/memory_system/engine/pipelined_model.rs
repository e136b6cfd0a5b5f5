//! The fast engine's timing of the pipelined slice (`system.slice_timing =
//! "hardware"` with `system.rtl_slice = "pipelined"`): the slice's cycle
//! model (`buddy_hdl_model::pipelined_controller`) in place of the rust-hdl
//! hardware, behind the RTL engine's own driver
//! ([`super::pipelined_driver`]), so the memories see the same requests on
//! the same cycles. Values come from the golden slice, which serves each
//! request when it is issued; the model carries what decides the timing
//! (translation, size nibbles, classes) and no data: its memory writes
//! have no strobe, its responses no entry.

use std::cell::RefCell;

use buddy_golden::translation::BuddyRegisters;
use buddy_golden::{HardwareCodec, MemoryEntry};
use buddy_hdl::timing::codec_latency;
use buddy_hdl_model::pipelined_controller::{PipelinedControllerModel, RequestFacts, SliceIn, SliceOut};
use buddy_hdl_model::CycleModel;
use rust_hdl::core::prelude::*;

use buddy_golden::metadata_cache::CacheStats;
use buddy_golden::SizeClass;

use super::pipelined_driver::{Driver, PipelinedHardware, PipelinedSlices, RunData, TaggedResponse};
use super::{MemorySystem, SliceEngine};
use crate::memory_system::error::SimError;
use crate::memory_system::request::{Outcome, PortRequest, Request, SliceRequest};
use crate::memory_system::slice_clock::ClockedHardware;

/// The model behind the hardware's port interface: inputs are held as
/// the driver sets them, outputs computed when first read after a
/// change, and a rising clock edge clocks the model with the inputs held.
pub struct ModelSlice {
    model: PipelinedControllerModel,
    inputs: SliceIn,
    out: RefCell<Option<SliceOut>>,
    clock: bool,
    edge_seen: bool,
}

impl ModelSlice {
    pub fn new(hardware: HardwareCodec) -> Self {
        let l = codec_latency(hardware);
        ModelSlice {
            model: PipelinedControllerModel::new(l.compress, l.decompress),
            inputs: SliceIn::default(),
            out: RefCell::new(None),
            clock: false,
            edge_seen: false,
        }
    }

    fn out(&self) -> SliceOut {
        self.out.borrow_mut().get_or_insert_with(|| self.model.outputs(&self.inputs)).clone()
    }

    fn changed_inputs(&mut self) {
        *self.out.get_mut() = None;
    }
}

impl Logic for ModelSlice {
    fn update(&mut self) {}
}

impl Block for ModelSlice {
    fn connect_all(&mut self) {}
    fn update_all(&mut self) {
        if self.clock && !self.edge_seen {
            self.model.clock(&self.inputs);
            self.changed_inputs();
        }
        self.edge_seen = self.clock;
    }
    fn has_changed(&self) -> bool {
        false
    }
    fn accept(&self, _: &str, _: &mut dyn Probe) {}
}

impl ClockedHardware for ModelSlice {
    fn set_clock(&mut self, level: bool) {
        self.clock = level;
    }
    fn set_reset(&mut self, reset: bool) {
        self.inputs.reset = reset;
        self.changed_inputs();
    }
    /// The model has no lock-step line (it has no data ports).
    fn port_line(&self) -> String {
        String::new()
    }
}

impl PipelinedHardware for ModelSlice {
    fn set_registers(&mut self, _: &BuddyRegisters) {}
    fn drive_request(&mut self, _: Option<&SliceRequest>) {}
    fn drive_facts(&mut self, f: Option<&RequestFacts>) {
        self.inputs.req = f.copied();
        self.inputs.resp_ready = true;
        self.changed_inputs();
    }
    fn drive_memory(&mut self, dev: Option<(u64, &RunData)>, bud: Option<(u64, &RunData)>) {
        self.inputs.dev_mem_ready = true;
        self.inputs.bud_mem_ready = true;
        self.inputs.dev_mem_resp = dev.map(|d| d.0);
        self.inputs.bud_mem_resp = bud.map(|b| b.0);
        self.changed_inputs();
    }
    fn req_ready(&self) -> Option<u64> {
        self.out().req_ready.map(u64::from)
    }
    fn response(&self) -> Option<TaggedResponse> {
        self.out().resp.map(|r| TaggedResponse {
            id: r.id as u64,
            write: r.write,
            flush: r.flush,
            entry: MemoryEntry::default(),
            fault: r.fault,
            decode_error: r.decode_error,
        })
    }
    fn dev_request(&self) -> Option<(PortRequest, u64)> {
        self.out().dev_mem.map(|m| (port_request(m.write, m.address, m.sectors), m.tag as u64))
    }
    fn bud_request(&self) -> Option<(PortRequest, u64)> {
        self.out().bud_mem.map(|m| (port_request(m.write, m.address, m.sectors), m.tag as u64))
    }
    fn dev_resp_ready(&self) -> bool {
        self.out().dev_mem_resp_ready
    }
    fn bud_resp_ready(&self) -> bool {
        self.out().bud_mem_resp_ready
    }
    fn md_lookup(&self) -> Option<(u64, u64)> {
        self.out().md_lookup.map(|(id, o)| (id as u64, o as u64))
    }
    fn in_flight(&self) -> u64 {
        self.out().in_flight
    }
    fn accept_waits(&self) -> Option<Vec<(String, u64)>> {
        Some(self.model.accept_waits().iter().map(|(why, &n)| (why.name(), n)).collect())
    }
}

/// A request of `sectors` sectors without data: no byte is written (strobe 0).
fn port_request(write: bool, address: u64, sectors: u8) -> PortRequest {
    PortRequest { write, address, data: [0; buddy_golden::ENTRY_BYTES], strobe: 0, len: sectors, first: true }
}

/// The pipelined slice cycle model engine: golden slices' answers, timed
/// by the pipelined slice's cycle model behind the RTL engine's driver.
pub struct PipelinedModelEngine {
    slices: PipelinedSlices,
}

impl PipelinedModelEngine {
    /// `n` slices of `hardware`'s cycle model with the Buddy registers `regs`.
    pub fn new(n: usize, hardware: HardwareCodec, regs: &BuddyRegisters) -> Self {
        PipelinedModelEngine {
            slices: PipelinedSlices::with(n, "model", |_| Box::new(Driver::new(Box::new(ModelSlice::new(hardware)), regs))),
        }
    }

    /// Its slices' driver (counters, waits).
    pub fn slices(&self) -> &PipelinedSlices {
        &self.slices
    }
}

impl SliceEngine for PipelinedModelEngine {
    fn start(&mut self, system: &mut MemorySystem, request: &Request) -> Result<Outcome, SimError> {
        let served = system.serve(request)?;
        let va = request.va;
        let pte = system.pte(va)?;
        let raw = system.translate(va, SizeClass::Raw)?;
        // Counted from the model's ports, as the RTL engine counts them.
        let facts = RequestFacts {
            write: request.write,
            flush: false,
            mask: request.mask,
            entry: va >> 7,
            fault: 0,
            compressed: pte.compressed,
            md_address: raw.metadata.map_or(0, |m| m.address),
            device: raw.device_slot.address,
            part: raw.device_slot.bytes,
            buddy: raw.buddy.map_or(0, |b| b.address),
            old_nibble: served.read.as_ref().map_or(0, |r| r.class.code()),
            new_class: served.write.as_ref().map_or(0, |w| w.class.code()),
            decode_error: false,
        };
        let r = system.slice_request(request)?;
        let golden = (!request.write).then_some(served.entry);
        let slice = system.slice(va);
        Ok(self.slices.submit_request(system, slice, r, None, Some(facts), golden))
    }

    fn flush(&mut self, system: &mut MemorySystem) -> Result<Vec<Outcome>, SimError> {
        // The values from the golden slices; the timing from the model's flushes.
        system.flush_golden();
        let facts = RequestFacts { flush: true, ..Default::default() };
        Ok((0..system.golden.len() as u64)
            .map(|s| self.slices.submit_request(system, s, system.flush_request(), None, Some(facts), None))
            .collect())
    }

    fn zero_reads(&self) -> u64 {
        self.slices.zero_reads.get()
    }

    fn metadata_stats(&self, _: &MemorySystem) -> CacheStats {
        *self.slices.metadata.borrow()
    }

    fn accept_waits(&self) -> Option<std::collections::BTreeMap<String, u64>> {
        self.slices.accept_waits()
    }

    fn read_split(&self) -> Option<super::ReadSplit> {
        Some(self.slices.stats().reads)
    }
}
