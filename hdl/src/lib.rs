//! Synthesizable rust-hdl models of the Buddy Compression memory system.
//!
//! Each module mirrors a golden model of `buddy-golden` bit for bit; the
//! testbenches crate checks that, and the emitted Verilog in `verilog-out/`.
//!
//! | module | hardware | golden model |
//! |---|---|---|
//! | [`bpc_compressor`] | [`BpcCompressor`] | `buddy_golden::bpc` |
//! | [`bpc_decompressor`] | [`BpcDecompressor`] | `buddy_golden::bpc` |
//! | [`zvc_compressor`] | [`ZvcCompressor`] | `buddy_golden::zvc` |
//! | [`zvc_decompressor`] | [`ZvcDecompressor`] | `buddy_golden::zvc` |
//! | [`cdma_zvc_compressor`] | [`CdmaZvcCompressor`] (cDMA's engine: one 32-byte sector per cycle) | `buddy_golden::zvc::LineStream` |
//! | [`cdma_zvc_decompressor`] | [`CdmaZvcDecompressor`] (cDMA's engine: one 32-byte sector per cycle) | `buddy_golden::zvc::LineStream` |
//! | [`mag_bdi_compressor`] | [`MagBdiCompressor`] (MAG 16, 32, 64) | `buddy_golden::mag_bdi` |
//! | [`mag_bdi_decompressor`] | [`MagBdiDecompressor`] (MAG 16, 32, 64) | `buddy_golden::mag_bdi` |
//! | [`address_translator`] | [`AddressTranslator`] | `buddy_golden::translation` |
//! | [`metadata_cache`] | [`MetadataCache`] (4 KiB, 4 ways) | `buddy_golden::metadata_cache` |
//! | [`pipelined_metadata_cache`] | [`PipelinedMetadataCache`] (non-blocking: hits under 4 misses, tagged responses) | `buddy_golden::metadata_cache` |
//! | [`buddy_controller`] | [`BuddyController`] (BPC; also ZVC, MAG-BDI): one controller slice | `buddy_golden::controller_slice` |
//!
//! Shared blocks: [`entry_bits::EntryBits`] (the 1024-bit entry),
//! [`sector_bits::SectorBits`] (the 256-bit sector),
//! [`decompressed_entry::DecompressedEntry`] (every decompressor's output),
//! [`register_slice::RegisterSlice`] (valid/ready skid buffer),
//! [`stages::Stages`] (a module's pipeline depth, chosen when it is built),
//! [`request_contexts::RequestContexts`] (the pipelined slice's 128 request
//! contexts and its same-entry guard),
//! [`read_planner::ReadPlanner`] (the sectors a read needs, requested per
//! memory), [`write_planner::WritePlanner`] (the sector writes that store
//! a payload, per memory), [`memory_port::MemoryPort`] (one memory's
//! tagged sector port: metadata fills in order, data sectors by tag),
//! [`lowest_set::LowestSet`] (the lowest set bit of 128, a log-depth
//! tree), [`first_set::FirstSet`] (that bit alone, as a one-hot),
//! [`sector_gather::SectorGather`] (the pipelined slice's payloads of the
//! reads in flight, gathered from device and buddy sectors),
//! [`compaction`] (log-depth compaction and expansion networks),
//! [`sector_compaction`] (their 8-word counterparts in cDMA's engines),
//! [`mag_bdi_unit`] (one MAG-BDI compressor unit), [`delta_packing`]
//! (MAG-BDI stream wiring), [`mag_bdi_encodings`] (the encodings per MAG),
//! [`bpc_transform`], [`bpc_zero_runs`], [`bpc_symbol_packer`] (the BPC
//! compressor's stages), [`bpc_parse_stage`], [`bpc_rebuild`] (the BPC
//! decompressor's stages), [`sector_lanes`] (the controller's sector
//! multiplexers).

// `seq!` unrolls per-way and per-word logic with the index as a literal,
// so `2 * 0` and `s * 4 + 0` are the loop's first turn, not mistakes.
#![allow(clippy::erasing_op, clippy::identity_op)]

/// An array of `M` default values (std has no `Default` for arrays longer
/// than 32, which the BPC blocks' 33-plane and 35-slot arrays are).
pub(crate) fn default_array<T: Default, const M: usize>() -> [T; M] {
    std::array::from_fn(|_| T::default())
}

pub mod address_translator;
pub mod bpc_compressor;
pub mod bpc_decompressor;
pub mod bpc_parse_stage;
pub mod bpc_rebuild;
pub mod bpc_stream_order;
pub mod bpc_symbol_packer;
pub mod bpc_transform;
pub mod bpc_zero_runs;
pub mod buddy_controller;
pub mod cdma_zvc_compressor;
pub mod cdma_zvc_decompressor;
pub mod compaction;
pub mod decompressed_entry;
pub mod delta_packing;
pub mod entry_bits;
pub mod first_set;
pub mod lockstep;
pub mod lowest_set;
pub mod mag_bdi_compressor;
pub mod mag_bdi_decompressor;
pub mod mag_bdi_encodings;
pub mod mag_bdi_unit;
pub mod memory_port;
pub mod metadata_cache;
pub mod part_sizes;
pub mod pipelined_controller;
pub mod pipelined_metadata_cache;
pub mod read_planner;
pub mod register_slice;
pub mod request_contexts;
pub mod sector_bits;
pub mod settle;
pub mod sector_compaction;
pub mod sector_gather;
pub mod sector_lanes;
pub mod stages;
pub mod tag_fifo;
pub mod timing;
pub mod vcd_tidy;
pub mod verilog;
pub mod wide_bits;
pub mod write_planner;
pub mod zvc_compressor;
pub mod zvc_decompressor;

pub use address_translator::{AddressTranslator, Translation};
pub use bpc_compressor::{BpcCompressed, BpcCompressor};
pub use bpc_decompressor::BpcDecompressor;
pub use buddy_controller::{BuddyController, BuddyControllerMagBdi, BuddyControllerZvc};
pub use cdma_zvc_compressor::CdmaZvcCompressor;
pub use cdma_zvc_decompressor::{CdmaZvcDecompressor, DecompressedSector};
pub use decompressed_entry::DecompressedEntry;
pub use entry_bits::EntryBits;
pub use mag_bdi_compressor::{MagBdiCompressed, MagBdiCompressor};
pub use mag_bdi_decompressor::MagBdiDecompressor;
pub use memory_port::MemoryPort;
pub use metadata_cache::MetadataCache;
pub use pipelined_controller::{PipelinedController, PipelinedControllerMagBdi, PipelinedControllerZvc};
pub use pipelined_metadata_cache::PipelinedMetadataCache;
pub use read_planner::ReadPlanner;
pub use request_contexts::RequestContexts;
pub use sector_bits::SectorBits;
pub use sector_gather::SectorGather;
pub use stages::Stages;
pub use write_planner::WritePlanner;
pub use zvc_compressor::{ZvcCompressed, ZvcCompressor};
pub use zvc_decompressor::ZvcDecompressor;
