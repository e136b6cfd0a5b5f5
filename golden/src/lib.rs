//! Bit-accurate golden models of the Buddy Compression GPU memory system.
//!
//! This crate is the source of truth that the rust-hdl modules (`buddy-hdl`) and
//! the emitted Verilog are checked against. It depends on no HDL crate.
//!
//! Contract: `docs/formats.md` (every bit-level format, with worked examples
//! that `tests/formats_doc.rs` recomputes) and the papers cited per module.
//!
//! | module | what | source |
//! |---|---|---|
//! | [`entry`] | the 128-byte memory-entry and its 32 little-endian words | docs/formats.md#memory-entry |
//! | [`size_class`] | the 4-bit size metadata and the class of a stream | docs/formats.md#size-classes |
//! | [`codec`] | the compressor interface shared by all algorithms | docs/formats.md#size-classes |
//! | [`bpc`] | Bit-Plane Compression | Kim et al. ISCA 2016, docs/formats.md#bpc |
//! | [`bdi`] | Base-Delta-Immediate as in the original paper | Pekhimenko et al. PACT 2012, docs/formats.md#bdi |
//! | [`mag_bdi`] | MAG-aware Base-Delta-Immediate | seed 002 Sec. IV, docs/formats.md#mag-bdi |
//! | [`lcp`] | Linearly Compressed Pages over BDI: 4 KB pages in 512 B-4 KB | Pekhimenko et al. MICRO 2013, ETC (seed 004) Sec. 4.4, docs/formats.md#lcp |
//! | [`zvc`] | Zero-Value Compression; the sector-wise line stream of cDMA's 32 B-per-cycle engines | cDMA (seed 003) Sec. V-A, V-B, docs/formats.md#zvc |
//! | [`run_length`] | run-length encoding (PackBits over 32-bit words), cDMA's RL baseline | seed 003 Sec. V-A |
//! | [`offload_window`] | ZVC, RL and zlib over cDMA's 4 KB offload windows | seed 003 Sec. V-A, VII-A |
//! | [`controller_slice`] | one controller slice's behaviour: what a request reads, writes and answers | docs/formats.md#sectors, docs/controller.md, Sec. III |
//! | [`metadata_cache`] | sectored, true-LRU, write-back metadata cache | docs/formats.md#metadata-cache |
//! | [`profiler`] | target ratio per allocation from size-class histograms | docs/formats.md#profiler, Sec. III-B |
//! | [`translation`] | PTE Buddy fields, GBBR, device/buddy/metadata addresses | docs/formats.md#translation |
//! | [`bitstream`] | LSB-first stream packing, MSB-first code words | docs/formats.md#stream-packing |
//! | [`stream_file`] | stream files: per entry the class and stored bytes the ports carry | docs/streams.md |

pub mod bdi;
pub mod bitstream;
pub mod bpc;
pub mod codec;
pub mod controller_slice;
pub mod entry;
pub mod error;
pub mod lcp;
pub mod mag_bdi;
pub mod metadata_cache;
pub mod offload_window;
pub mod profiler;
pub mod run_length;
pub mod size_class;
pub mod stream_file;
pub mod translation;
pub mod zvc;

pub use bdi::Bdi;
pub use bpc::Bpc;
pub use codec::{Algorithm, Codec, CompressedEntry, HardwareCodec, NoHardware};
pub use entry::{merge_sectors, MemoryEntry, ENTRY_BYTES, ENTRY_WORDS, SECTORS_PER_ENTRY, SECTOR_BYTES, SECTOR_WORDS};
pub use error::{DecodeError, StreamFileError};
pub use mag_bdi::{Mag, MagBdi};
pub use size_class::SizeClass;
pub use stream_file::{read_stream_file, StreamHeader, StreamReader, StreamRecord, StreamWriter};
pub use zvc::Zvc;
