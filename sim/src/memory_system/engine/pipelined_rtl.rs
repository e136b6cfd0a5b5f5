//! The pipelined RTL engine: one `PipelinedController` per slice in
//! rust-hdl, driven by [`super::pipelined_driver`] against the HBM2 and
//! NVLink models (docs/controller.md, "The pipelined slice").

use buddy_golden::metadata_cache::CacheStats;
use buddy_golden::translation::{BuddyRegisters, PageSize};
use buddy_golden::{HardwareCodec, MemoryEntry};
use buddy_hdl::{EntryBits, PipelinedController, PipelinedControllerMagBdi, PipelinedControllerZvc};
use rust_hdl::prelude::*;

use super::pipelined_driver::{Driver, PipelinedHardware, PipelinedSlices, RunData, SliceDriver, TaggedResponse};
use super::{MemorySystem, SliceEngine};
use crate::memory_system::error::SimError;
use crate::memory_system::request::{words_of, Outcome, PortRequest, Request, SliceRequest};
use crate::memory_system::slice_clock::ClockedHardware;

macro_rules! pipelined_hardware {
    ($t:ty) => {
        impl ClockedHardware for $t {
            fn set_clock(&mut self, level: bool) {
                self.clock.next = Clock::from(level);
            }
            fn set_reset(&mut self, reset: bool) {
                self.reset.next = reset;
            }
            fn port_line(&self) -> String {
                self.lockstep_line()
            }
        }
        impl PipelinedHardware for $t {
            fn set_registers(&mut self, regs: &BuddyRegisters) {
                self.gbbr.next = regs.gbbr.into();
                self.carve_out_bytes.next = regs.carve_out_bytes.into();
                self.md_base.next = regs.md_base.into();
                self.heap_base.next = regs.heap_base.into();
            }
            fn drive_request(&mut self, r: Option<&SliceRequest>) {
                self.req_valid.next = r.is_some();
                self.resp_ready.next = true;
                if let Some(r) = r {
                    self.req_write.next = r.write;
                    self.req_flush.next = r.flush;
                    self.req_mask.next = (r.mask as u64).into();
                    self.req_va.next = r.va.into();
                    self.req_frame.next = r.pte.frame.into();
                    self.req_pte.next = (r.pte.buddy_bits() as u64).into();
                    self.req_page_64k.next = r.page == PageSize::Small64K;
                    self.req_data.next = EntryBits::from_words(&r.data);
                }
            }
            fn drive_memory(&mut self, dev: Option<(u64, &RunData)>, bud: Option<(u64, &RunData)>) {
                self.dev_mem_ready.next = true;
                self.bud_mem_ready.next = true;
                self.dev_mem_resp_valid.next = dev.is_some();
                self.bud_mem_resp_valid.next = bud.is_some();
                if let Some((tag, data)) = dev {
                    self.dev_mem_resp_tag.next = tag.into();
                    self.dev_mem_resp_data.next = EntryBits::from_words(&words_of(data));
                }
                if let Some((tag, data)) = bud {
                    self.bud_mem_resp_tag.next = tag.into();
                    self.bud_mem_resp_data.next = EntryBits::from_words(&words_of(data));
                }
            }
            fn req_ready(&self) -> Option<u64> {
                self.req_ready.val().then(|| self.req_id.val().to_u64())
            }
            fn response(&self) -> Option<TaggedResponse> {
                self.resp_valid.val().then(|| TaggedResponse {
                    id: self.resp_id.val().to_u64(),
                    write: self.resp_write.val(),
                    flush: self.resp_flush.val(),
                    entry: MemoryEntry::from_words(self.resp_entry.val().to_words()),
                    fault: self.resp_fault.val().to_u8(),
                    decode_error: self.resp_decode_error.val(),
                })
            }
            fn dev_request(&self) -> Option<(PortRequest, u64)> {
                self.dev_mem_valid.val().then(|| {
                    let p = PortRequest {
                        write: self.dev_mem_write.val(),
                        address: self.dev_mem_address.val().to_u64(),
                        data: MemoryEntry::from_words(self.dev_mem_data.val().to_words()).to_bytes(),
                        strobe: self.dev_mem_strobe.val().to_u128(),
                        len: self.dev_mem_sectors.val().to_u8(),
                        first: true,
                    };
                    (p, self.dev_mem_tag.val().to_u64())
                })
            }
            fn bud_request(&self) -> Option<(PortRequest, u64)> {
                self.bud_mem_valid.val().then(|| {
                    let p = PortRequest {
                        write: self.bud_mem_write.val(),
                        address: self.bud_mem_address.val().to_u64(),
                        data: MemoryEntry::from_words(self.bud_mem_data.val().to_words()).to_bytes(),
                        strobe: self.bud_mem_strobe.val().to_u128(),
                        len: self.bud_mem_sectors.val().to_u8(),
                        first: true,
                    };
                    (p, self.bud_mem_tag.val().to_u64())
                })
            }
            fn dev_resp_ready(&self) -> bool {
                self.dev_mem_resp_ready.val()
            }
            fn bud_resp_ready(&self) -> bool {
                self.bud_mem_resp_ready.val()
            }
            fn md_lookup(&self) -> Option<(u64, u64)> {
                self.md_lookup_valid.val().then(|| (self.md_lookup_id.val().to_u64(), self.md_lookup_outcome.val().to_u64()))
            }
            fn in_flight(&self) -> u64 {
                self.in_flight.val().to_u64()
            }
        }
    };
}

pipelined_hardware!(PipelinedController);
pipelined_hardware!(PipelinedControllerZvc);
pipelined_hardware!(PipelinedControllerMagBdi);

/// The pipelined RTL engine's slices.
pub struct PipelinedRtlEngine {
    pub slices: PipelinedSlices,
}

impl PipelinedRtlEngine {
    /// `n` slices of `hardware` with the Buddy registers `regs`, after reset.
    ///
    /// # Panics
    /// The thread that builds them cannot be spawned.
    pub fn new(n: usize, hardware: HardwareCodec, regs: &BuddyRegisters) -> Self {
        PipelinedRtlEngine { slices: PipelinedSlices::with(n, "rtl", |_| new_driver(hardware, regs)) }
    }
}

impl SliceEngine for PipelinedRtlEngine {
    fn start(&mut self, system: &mut MemorySystem, request: &Request) -> Result<Outcome, SimError> {
        let r = system.slice_request(request)?;
        Ok(self.slices.submit_request(system, system.slice(request.va), r, system.golden_fault(request.va), None, None))
    }

    fn flush(&mut self, system: &mut MemorySystem) -> Result<Vec<Outcome>, SimError> {
        Ok((0..system.golden.len() as u64)
            .map(|s| self.slices.submit_request(system, s, system.flush_request(), None, None, None))
            .collect())
    }

    fn zero_reads(&self) -> u64 {
        self.slices.zero_reads.get()
    }

    fn metadata_stats(&self, _: &MemorySystem) -> CacheStats {
        *self.slices.metadata.borrow()
    }

    fn read_split(&self) -> Option<super::ReadSplit> {
        Some(self.slices.stats().reads)
    }
}

/// A new slice driver of `hardware`, after reset.
pub fn new_driver(hardware: HardwareCodec, regs: &BuddyRegisters) -> Box<dyn SliceDriver> {
    match hardware {
        HardwareCodec::Bpc => Box::new(Driver::new(build(PipelinedController::default), regs)),
        HardwareCodec::Zvc => Box::new(Driver::new(build(PipelinedControllerZvc::default), regs)),
        HardwareCodec::MagBdi(mag) => Box::new(Driver::new(build(move || PipelinedControllerMagBdi::new(mag)), regs)),
    }
}

/// `make()` boxed, built on a thread with a 1 GiB stack (reserved, not
/// used): building the slice takes several copies of its multi-megabyte
/// value on the stack.
///
/// # Panics
/// The thread cannot be spawned.
fn build<H: Send + 'static>(make: impl FnOnce() -> H + Send + 'static) -> Box<H> {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || Box::new(make()))
        .expect("spawn the thread that builds a slice")
        .join()
        .expect("building a slice does not panic")
}
