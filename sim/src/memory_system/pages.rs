//! Where the allocations live physically: device frames, buddy slots and
//! the metadata region (docs/formats.md#translation), and the byte contents of
//! device and buddy memory.
//!
//! Layout (**decision**): device frames from physical address 0, one per
//! page in virtual-address order, each `page * device_bytes / 128` bytes;
//! MD_BASE right after the last frame (2 MiB aligned); buddy slots from the
//! GBBR in the same order, `page * stride / 128` bytes each, and a carve-out
//! exactly as large as the slots need.

use std::collections::HashMap;

use buddy_golden::translation::{BuddyRegisters, PageSize, Pte, TargetRatio};

use super::mode::Mode;

/// Base of buddy-memory's physical addresses (its own address space).
pub const GBBR: u64 = 0x8000_0000_0000;

/// The page table of a run.
#[derive(Debug, Clone)]
pub struct PageTable {
    pub page: PageSize,
    pub regs: BuddyRegisters,
    ptes: HashMap<u64, Pte>,
    /// Device bytes of all frames.
    pub device_bytes: u64,
}

impl PageTable {
    /// Map `[base, base + size)` of every allocation with its target, in
    /// increasing address order.
    pub fn new(mut allocations: Vec<(u64, u64, TargetRatio)>, heap_base: u64, page: PageSize, mode: Mode) -> Self {
        allocations.sort_by_key(|a| a.0);
        let pb = page.bytes();
        let mut ptes = HashMap::new();
        let (mut frame, mut buddy_units) = (0u64, 0u64);
        for (base, size, target) in allocations {
            let target = match mode {
                Mode::Uncompressed | Mode::BandwidthOnly => TargetRatio::X1,
                Mode::Buddy => target,
            };
            for p in (base / pb)..(base + size.max(1)).div_ceil(pb) {
                let pte =
                    Pte { frame, compressed: mode != Mode::Uncompressed, target_code: target.code(), buddy_offset: buddy_units as u32 };
                ptes.entry(p).or_insert(pte);
                frame += pb * target.device_bytes() / 128;
                // Buddy offsets count page/4 units; a stride of s bytes per
                // entry takes s/32 of them.
                buddy_units += target.buddy_stride() / 32;
            }
        }
        let md_base = frame.div_ceil(2 << 20) * (2 << 20);
        let regs = BuddyRegisters { gbbr: GBBR, carve_out_bytes: buddy_units * (pb / 4), md_base, heap_base };
        PageTable { page, regs, ptes, device_bytes: frame }
    }

    /// The PTE of `va`'s page (`None` outside every allocation).
    pub fn pte(&self, va: u64) -> Option<&Pte> {
        self.ptes.get(&(va / self.page.bytes()))
    }
}

/// Byte-addressed memory allocated in 64 KiB chunks on first write; unwritten
/// bytes read as zero.
#[derive(Debug, Clone, Default)]
pub struct SparseMemory {
    chunks: HashMap<u64, Box<[u8]>>,
}

const CHUNK: u64 = 64 * 1024;

impl SparseMemory {
    /// Copy `out.len()` bytes from `address`.
    pub fn read(&self, address: u64, out: &mut [u8]) {
        let mut done = 0;
        while done < out.len() {
            let a = address + done as u64;
            let (c, o) = (a / CHUNK, (a % CHUNK) as usize);
            let n = (CHUNK as usize - o).min(out.len() - done);
            match self.chunks.get(&c) {
                Some(chunk) => out[done..done + n].copy_from_slice(&chunk[o..o + n]),
                None => out[done..done + n].fill(0),
            }
            done += n;
        }
    }

    /// Write `data` at `address`.
    pub fn write(&mut self, address: u64, data: &[u8]) {
        let mut done = 0;
        while done < data.len() {
            let a = address + done as u64;
            let (c, o) = (a / CHUNK, (a % CHUNK) as usize);
            let n = (CHUNK as usize - o).min(data.len() - done);
            let chunk = self.chunks.entry(c).or_insert_with(|| vec![0u8; CHUNK as usize].into_boxed_slice());
            chunk[o..o + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_memory_reads_back_across_chunks_and_zero_elsewhere() {
        let mut m = SparseMemory::default();
        let data: Vec<u8> = (0..200).map(|i| i as u8).collect();
        m.write(CHUNK - 100, &data);
        let mut out = vec![0xAA; 300];
        m.read(CHUNK - 150, &mut out);
        assert!(out[..50].iter().all(|&b| b == 0));
        assert_eq!(&out[50..250], &data[..]);
        assert!(out[250..].iter().all(|&b| b == 0));
    }

    #[test]
    fn frames_and_buddy_slots_do_not_overlap() {
        let pb = 64 << 10;
        let t = PageTable::new(
            vec![(0x10_0000, 100_000, TargetRatio::X2), (0x10_0000 + 2 * pb, 10, TargetRatio::X16)],
            0x10_0000,
            PageSize::Small64K,
            Mode::Buddy,
        );
        let (a, b, c) = (t.pte(0x10_0000).unwrap(), t.pte(0x10_0000 + pb).unwrap(), t.pte(0x10_0000 + 2 * pb).unwrap());
        assert_eq!((a.frame, b.frame, c.frame), (0, pb / 2, pb));
        assert_eq!((a.buddy_offset, b.buddy_offset, c.buddy_offset), (0, 2, 4));
        assert_eq!(t.regs.carve_out_bytes, 8 * pb / 4);
        assert_eq!(t.device_bytes, pb + pb / 16);
        assert!(t.pte(0x10_0000 + 3 * pb).is_none());
    }
}
