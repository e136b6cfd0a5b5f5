//! The backing store: the bytes of device memory, buddy-memory and the
//! metadata region behind the timing models.

use buddy_golden::controller_slice::SliceMemory;
use buddy_golden::metadata_cache::SectorMemory;

use super::pages::SparseMemory;
use super::request::PortRequest;
use buddy_golden::ENTRY_BYTES;

/// The bytes of device memory, buddy-memory and the metadata region.
#[derive(Debug, Default)]
pub struct BackingStore {
    pub device: SparseMemory,
    pub buddy: SparseMemory,
    /// The metadata region, from `MD_BASE`.
    pub metadata: Vec<u8>,
}

/// [`BackingStore`] as the behaviour model sees it: physical addresses, the
/// metadata region at `md_base`.
pub struct BackingMemory<'a> {
    pub backing: &'a mut BackingStore,
    pub md_base: u64,
}

impl SectorMemory for BackingMemory<'_> {
    fn read_sector(&mut self, address: u64, data: &mut [u8]) {
        self.backing.metadata.read_sector(address - self.md_base, data);
    }
    fn write_sector(&mut self, address: u64, data: &[u8]) {
        self.backing.metadata.write_sector(address - self.md_base, data);
    }
}

impl SliceMemory for BackingMemory<'_> {
    fn read_device(&mut self, address: u64, out: &mut [u8]) {
        self.backing.device.read(address, out);
    }
    fn write_device(&mut self, address: u64, data: &[u8]) {
        self.backing.device.write(address, data);
    }
    fn read_buddy(&mut self, address: u64, out: &mut [u8]) {
        self.backing.buddy.read(address, out);
    }
    fn write_buddy(&mut self, address: u64, data: &[u8]) {
        self.backing.buddy.write(address, data);
    }
}

impl BackingStore {
    /// The 32-byte sector at `address` as a slice's device port reads it:
    /// addresses from `md_base` on are the metadata region (zero where
    /// nothing was written).
    pub fn read_port_sector(&self, address: u64, md_base: u64, out: &mut [u8; 32]) {
        if address >= md_base {
            let i = (address - md_base) as usize;
            for (k, o) in out.iter_mut().enumerate() {
                *o = self.metadata.get(i + k).copied().unwrap_or(0);
            }
        } else {
            self.device.read(address, out);
        }
    }

    /// Write the bytes of `r` its byte strobe enables (bit `k` = byte `k`)
    /// as a slice's device port writes them (metadata region from `md_base`).
    pub fn write_port_sector(&mut self, r: &PortRequest, md_base: u64) {
        if r.address >= md_base {
            let i = (r.address - md_base) as usize;
            let end = 128 - r.strobe.leading_zeros() as usize;
            if self.metadata.len() < i + end {
                self.metadata.resize(i + end, 0);
            }
            for k in 0..end {
                if r.strobe >> k & 1 == 1 {
                    self.metadata[i + k] = r.data[k];
                }
            }
        } else {
            write_masked(&mut self.device, r.address, &r.data, r.strobe);
        }
    }
}

/// Write the bytes of `data` whose bit of `strobe` is set at `address`.
pub fn write_masked(memory: &mut SparseMemory, address: u64, data: &[u8; ENTRY_BYTES], strobe: u128) {
    for k in 0..ENTRY_BYTES {
        if strobe >> k & 1 == 1 {
            memory.write(address + k as u64, &data[k..k + 1]);
        }
    }
}
