//! The [`crate::BuddyController`]'s data lanes between 32-byte memory
//! sectors and the 128-byte entry or payload buffer (docs/formats.md#sectors).
//!
//! A device part or buddy slot maps onto the payload in whole 32-bit words:
//! device sector `i` holds payload words `8i..8i+8` (device parts of 32, 64,
//! 96 or 128 bytes), except on a 16x page, where the 8-byte device part sits
//! at byte offset 0, 8, 16 or 24 of its sector; buddy sector `j` holds
//! payload words `part/4 + 8j ..` (cut at word 31). Both blocks are
//! combinational word multiplexers (an 8:1 or 32:1 mux per word, no shifter).

use crate::entry_bits::EntryBits;
use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Words of a 32-byte sector.
pub use buddy_golden::SECTOR_WORDS;

use crate::wide_bits::{sector_from_words as sector_bits, sector_to_words as sector_words};

/// `entry` with words `word_at .. word_at + count` (those below 32) taken
/// from `sector` words `skip ..`, in plain Rust (the Verilog's reference).
pub fn place(entry: &[u32; 32], sector: &[u32; SECTOR_WORDS], word_at: usize, skip: usize, count: usize) -> [u32; 32] {
    std::array::from_fn(|i| if i >= word_at && i < word_at + count { sector[(i - word_at + skip) % SECTOR_WORDS] } else { entry[i] })
}

/// The sector whose word `m` is `entry[word_at + m - skip]` (0 where that
/// is outside the entry), and the byte strobe of bytes `offset ..
/// offset + bytes` (cut at 32), in plain Rust (the Verilog's reference).
pub fn pick(entry: &[u32; 32], word_at: usize, skip: usize, bytes: usize, offset: usize) -> ([u32; SECTOR_WORDS], u32) {
    let sector = std::array::from_fn(|m| {
        let i = (word_at + m) as isize - skip as isize;
        if (0..32).contains(&i) {
            entry[i as usize]
        } else {
            0
        }
    });
    let strobe = (0..32).filter(|&b| b >= offset && b < offset + bytes).fold(0u32, |s, b| s | 1 << b);
    (sector, strobe)
}

/// Combinational: one sector written into the entry buffer (a read
/// response arriving).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `entry_in` | 1024 | in | the buffer, word `i` at `[32i +: 32]` |
/// | `sector` | 256 | in | the sector, byte `k` at `[8k +: 8]` |
/// | `enable` | 1 | in | 0: `entry_out = entry_in` |
/// | `word_at` | 6 | in | first buffer word written (0..31) |
/// | `skip` | 3 | in | sector word that goes to `word_at` |
/// | `count` | 4 | in | words written (1..8; those past word 31 are dropped) |
/// | `entry_out` | 1024 | out | the buffer with the sector placed |
#[derive(SettleBlock, Default)]
pub struct SectorPlace {
    _settle: crate::settle::Settle,
    pub entry_in: Signal<In, EntryBits>,
    pub sector: Signal<In, Bits<256>>,
    pub enable: Signal<In, Bit>,
    pub word_at: Signal<In, Bits<6>>,
    pub skip: Signal<In, Bits<3>>,
    pub count: Signal<In, Bits<4>>,
    pub entry_out: Signal<Out, EntryBits>,
}

impl Logic for SectorPlace {
    fn update(&mut self) {
        let entry = self.entry_in.val();
        self.entry_out.next = if self.enable.val() {
            let words = place(
                &entry.to_words(),
                &sector_words(&self.sector.val()),
                self.word_at.val().to_u32() as usize,
                self.skip.val().to_u32() as usize,
                self.count.val().to_u32() as usize,
            );
            EntryBits::from_words(&words)
        } else {
            entry
        };
    }

    fn connect(&mut self) {
        self.entry_out.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "// Word i takes sector word (i - word_at + skip) mod 8 when word_at <= i < word_at + count.\n\
             // Entry words are written at the loop variable itself (a constant once the loop unrolls):\n\
             // an index held in a reg becomes a variable part-select on the left, which Yosys expands into a\n\
             // 1024-bit demultiplexer per word (the slice then needed over 20 GB to synthesize).\n\
             integer i;\n\
             reg [5:0] w;\n\
             reg [5:0] rel;\n\
             reg [2:0] s;\n\
             always @(*) begin\n\
             \x20   for (i = 0; i < 32; i = i + 1) begin\n\
             \x20       w = i[5:0];\n\
             \x20       rel = w - word_at;\n\
             \x20       s = rel[2:0] + skip;\n\
             \x20       if (enable && w >= word_at && rel < {2'b0, count})\n\
             \x20           entry_out[{i[4:0], 5'b0} +: 32] = sector[{s, 5'b0} +: 32];\n\
             \x20       else\n\
             \x20           entry_out[{i[4:0], 5'b0} +: 32] = entry_in[{i[4:0], 5'b0} +: 32];\n\
             \x20   end\n\
             end\n"
                .into(),
        )
    }
}

/// Combinational: one sector of the entry buffer to write, with its byte
/// strobe.
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `entry` | 1024 | in | the buffer |
/// | `word_at` | 6 | in | buffer word that goes to sector word `skip` |
/// | `skip` | 3 | in | sector word of buffer word `word_at` |
/// | `bytes`, `offset` | 6, 5 | in | the bytes written: `offset .. offset + bytes` (cut at 32) |
/// | `sector` | 256 | out | sector word `m` = buffer word `word_at + m - skip` (0 outside 0..31) |
/// | `strobe` | 32 | out | bit `k`: byte `k` of the sector is written |
#[derive(SettleBlock, Default)]
pub struct SectorPick {
    _settle: crate::settle::Settle,
    pub entry: Signal<In, EntryBits>,
    pub word_at: Signal<In, Bits<6>>,
    pub skip: Signal<In, Bits<3>>,
    pub bytes: Signal<In, Bits<6>>,
    pub offset: Signal<In, Bits<5>>,
    pub sector: Signal<Out, Bits<256>>,
    pub strobe: Signal<Out, Bits<32>>,
}

impl Logic for SectorPick {
    fn update(&mut self) {
        let (sector, strobe) = pick(
            &self.entry.val().to_words(),
            self.word_at.val().to_u32() as usize,
            self.skip.val().to_u32() as usize,
            self.bytes.val().to_u32() as usize,
            self.offset.val().to_u32() as usize,
        );
        self.sector.next = sector_bits(&sector);
        self.strobe.next = (strobe as u64).into();
    }

    fn connect(&mut self) {
        self.sector.connect();
        self.strobe.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "// Sector word m = entry word (word_at + m - skip), 0 outside the entry; strobe = bytes offset..offset+bytes-1.\n\
             integer m, k;\n\
             reg [7:0] idx;\n\
             reg [6:0] byte_k;\n\
             always @(*) begin\n\
             \x20   for (m = 0; m < 8; m = m + 1) begin\n\
             \x20       idx = {2'b0, word_at} + {5'b0, m[2:0]} - {5'b0, skip};\n\
             \x20       if (idx < 8'd32)\n\
             \x20           sector[{m[2:0], 5'b0} +: 32] = entry[{idx[4:0], 5'b0} +: 32];\n\
             \x20       else\n\
             \x20           sector[{m[2:0], 5'b0} +: 32] = 32'h0;\n\
             \x20   end\n\
             \x20   for (k = 0; k < 32; k = k + 1) begin\n\
             \x20       byte_k = k[6:0];\n\
             \x20       strobe[byte_k[4:0]] = (byte_k >= {2'b0, offset}) && (byte_k < {2'b0, offset} + {1'b0, bytes});\n\
             \x20   end\n\
             end\n"
                .into(),
        )
    }
}

/// Sectors a run moves at most: a memory-entry (128 bytes).
pub const RUN_SECTORS: usize = 4;

/// The run of sectors `sector .. sector + sectors` of a part, in plain Rust
/// (the Verilog's reference): run word `m` (sector `m / 8` of the run) is
/// `entry[word_at + 8 * sector + m - skip]` (0 outside the entry), and
/// byte `b` of the run is written when it lies in the run's sectors and in
/// the part, `4 * skip <= 32 * sector + b < end` (bytes counted from the
/// part's first sector's start).
pub fn pick_run(entry: &[u32; 32], word_at: usize, sector: usize, skip: usize, sectors: usize, end: usize) -> ([u32; 32], u128) {
    let run = std::array::from_fn(|m| {
        let i = (word_at + 8 * sector + m) as isize - skip as isize;
        if (0..32).contains(&i) {
            entry[i as usize]
        } else {
            0
        }
    });
    let strobe = (0..32 * sectors.min(RUN_SECTORS)).filter(|&b| (4 * skip..end).contains(&(32 * sector + b))).fold(0u128, |s, b| s | 1 << b);
    (run, strobe)
}

/// Combinational: a run of up to 4 consecutive sectors of a part of the
/// entry buffer to write in one memory request, with its byte strobe
/// ([`pick_run`]). A part's word `w` sits at buffer word `word_at + w -
/// skip` (the part starts `skip` words into its first sector).
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `entry` | 1024 | in | the buffer |
/// | `word_at` | 6 | in | buffer word that goes to the part's first sector's word `skip` |
/// | `skip` | 3 | in | the part's first word in its first sector |
/// | `sector` | 3 | in | the run's first sector, counted in the part (0-4) |
/// | `sectors` | 3 | in | sectors of the run (1-4) |
/// | `part_end` | 9 | in | one past the part's last byte, from its first sector's start (at most 160) |
/// | `run` | 1024 | out | run sector `j` at `[256j +: 256]`, byte `k` of it at `[256j + 8k +: 8]` (0 outside the entry) |
/// | `strobe` | 128 | out | bit `32j + k`: byte `k` of run sector `j` is written |
#[derive(SettleBlock, Default)]
pub struct RunPick {
    _settle: crate::settle::Settle,
    pub entry: Signal<In, EntryBits>,
    pub word_at: Signal<In, Bits<6>>,
    pub skip: Signal<In, Bits<3>>,
    pub sector: Signal<In, Bits<3>>,
    pub sectors: Signal<In, Bits<3>>,
    pub part_end: Signal<In, Bits<9>>,
    pub run: Signal<Out, EntryBits>,
    pub strobe: Signal<Out, Bits<128>>,
}

impl Logic for RunPick {
    fn update(&mut self) {
        let (run, strobe) = pick_run(
            &self.entry.val().to_words(),
            self.word_at.val().to_u32() as usize,
            self.sector.val().to_u32() as usize,
            self.skip.val().to_u32() as usize,
            self.sectors.val().to_u32() as usize,
            self.part_end.val().to_u32() as usize,
        );
        self.run.next = EntryBits::from_words(&run);
        self.strobe.next = crate::wide_bits::bits128(strobe);
    }

    fn connect(&mut self) {
        self.run.connect();
        self.strobe.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "// One shifter, not a 32:1 mux per word: the buffer sits 7 words up in `wide` (word j = entry word j - 7),\n\
             // and run word m = wide word (m + word_at + 8 * sector + 7 - skip); 7 - skip is ~skip.\n\
             wire [6:0] shift = {1'b0, word_at} + {1'b0, sector, 3'b0} + {4'b0, ~skip};\n\
             wire [1247:0] wide = {entry, 224'b0};\n\
             wire [1247:0] moved = wide >> {shift, 5'b0};\n\
             integer b;\n\
             reg [8:0] at;\n\
             always @(*) begin\n\
             \x20   run = moved[1023:0];\n\
             \x20   for (b = 0; b < 128; b = b + 1) begin\n\
             \x20       at = {sector, 5'b0} + b[8:0];\n\
             \x20       strobe[b[6:0]] = ({1'b0, b[6:5]} < sectors) && (at >= {4'b0, skip, 2'b0}) && (at < part_end);\n\
             \x20   end\n\
             end\n"
                .into(),
        )
    }
}

/// Combinational: one sector as a run of one (run sector 0; the rest 0),
/// for a port whose writes carry runs.
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `sector` | 256 | in | byte `k` at `[8k +: 8]` |
/// | `run` | 1024 | out | `{768'b0, sector}` |
/// | `strobe` | 128 | out | every byte of run sector 0 |
#[derive(SettleBlock, Default)]
pub struct SectorRun {
    _settle: crate::settle::Settle,
    pub sector: Signal<In, Bits<256>>,
    pub run: Signal<Out, EntryBits>,
    pub strobe: Signal<Out, Bits<128>>,
}

impl Logic for SectorRun {
    fn update(&mut self) {
        let words = sector_words(&self.sector.val());
        self.run.next = EntryBits::from_words(&std::array::from_fn(|i| if i < SECTOR_WORDS { words[i] } else { 0 }));
        self.strobe.next = crate::wide_bits::bits128(u128::from(u32::MAX));
    }

    fn connect(&mut self) {
        self.run.connect();
        self.strobe.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom("always @(*) begin\n\x20   run = {768'b0, sector};\n\x20   strobe = {96'b0, 32'hffffffff};\nend\n".into())
    }
}

/// Combinational: the entry a partial write leaves (read-modify-write):
/// sector `s` from `update` where `mask[s]`, else from `old`.
///
/// | port | width | dir | meaning |
/// |---|---|---|---|
/// | `old`, `update` | 1024, 1024 | in | the entry in memory, the written data |
/// | `mask` | 4 | in | bit `s`: sector `s` (bytes `32s .. 32s+32`) is written |
/// | `merged` | 1024 | out | the merged entry |
#[derive(SettleBlock, Default)]
pub struct EntryMerge {
    _settle: crate::settle::Settle,
    pub old: Signal<In, EntryBits>,
    pub update: Signal<In, EntryBits>,
    pub mask: Signal<In, Bits<4>>,
    pub merged: Signal<Out, EntryBits>,
}

impl Logic for EntryMerge {
    fn update(&mut self) {
        let (old, new, mask) = (self.old.val().to_words(), self.update.val().to_words(), self.mask.val().to_u32());
        let words = std::array::from_fn(|i| if mask >> (i / SECTOR_WORDS) & 1 == 1 { new[i] } else { old[i] });
        self.merged.next = EntryBits::from_words(&words);
    }

    fn connect(&mut self) {
        self.merged.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "always @(*) begin\n\
             \x20   merged[255:0] = mask[0] ? update[255:0] : old[255:0];\n\
             \x20   merged[511:256] = mask[1] ? update[511:256] : old[511:256];\n\
             \x20   merged[767:512] = mask[2] ? update[767:512] : old[767:512];\n\
             \x20   merged[1023:768] = mask[3] ? update[1023:768] : old[1023:768];\n\
             end\n"
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_16x_device_part_round_trips_through_its_sector() {
        let entry: [u32; 32] = std::array::from_fn(|i| 0x100 + i as u32);
        // Device part at byte 16 of its sector: words 4, 5.
        let (sector, strobe) = pick(&entry, 0, 4, 8, 16);
        assert_eq!(strobe, 0x00FF_0000);
        assert_eq!(&sector[4..6], &entry[0..2]);
        let back = place(&[0; 32], &sector, 0, 4, 2);
        assert_eq!(&back[0..2], &entry[0..2]);
        assert!(back[2..].iter().all(|&w| w == 0));
    }

    #[test]
    fn a_buddy_sector_past_the_entry_is_cut() {
        let entry: [u32; 32] = std::array::from_fn(|i| i as u32 + 1);
        // 16x: buddy sector 3 starts at payload word 2 + 24 = 26.
        let (sector, strobe) = pick(&entry, 26, 0, 24, 0);
        assert_eq!(&sector[..6], &entry[26..]);
        assert_eq!(&sector[6..], &[0, 0]);
        assert_eq!(strobe, 0x00FF_FFFF);
        let back = place(&[0; 32], &sector, 26, 0, 8);
        assert_eq!(&back[26..], &entry[26..]);
    }

    #[test]
    fn a_part_of_five_sectors_takes_two_runs() {
        let entry: [u32; 32] = std::array::from_fn(|i| 0x100 + i as u32);
        // 128 bytes from word 2 of its first sector: sectors 0-3, then 4.
        let (run, strobe) = pick_run(&entry, 0, 0, 2, 4, 8 + 128);
        assert_eq!(strobe, u128::MAX << 8);
        assert_eq!(&run[2..], &entry[..30]);
        let (run, strobe) = pick_run(&entry, 0, 4, 2, 1, 8 + 128);
        assert_eq!(strobe, 0xFF);
        assert_eq!(&run[..2], &entry[30..]);
        assert!(run[2..].iter().all(|&w| w == 0));
    }

    #[test]
    fn a_buddy_run_starts_past_the_device_part_and_stops_at_its_sectors() {
        let entry: [u32; 32] = std::array::from_fn(|i| i as u32 + 1);
        // Device part 32 bytes (payload words 0-7); buddy part 48 bytes
        // at buddy slot offset 8 (word 2): one run of 2 sectors.
        let (run, strobe) = pick_run(&entry, 8, 0, 2, 2, 8 + 48);
        assert_eq!(strobe, ((1u128 << 56) - 1) & !0xFF);
        assert_eq!(&run[2..14], &entry[8..20]);
        // Sectors past the run are never strobed.
        let (_, strobe) = pick_run(&entry, 0, 0, 0, 1, 128);
        assert_eq!(strobe, u128::from(u32::MAX));
    }

    #[test]
    fn sector_bits_round_trip() {
        let words: [u32; 8] = std::array::from_fn(|m| 0xA5A5_0000 | m as u32);
        assert_eq!(sector_words(&sector_bits(&words)), words);
    }
}
