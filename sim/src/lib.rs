//! Studies of the Buddy Compression memory system on real memory snapshots.
//!
//! | module | what |
//! |---|---|
//! | [`workload`] | loading and validating snapshot workloads (`shared/data/README.md`) |
//! | [`compression_study`] | every entry through the golden codecs: size-class histograms, stored bytes, compression ratios, summary over workloads |
//! | [`lcp_metrics`] | LCP's page-level compression ratio over BDI (4 KB pages in 512-4096 bytes) |
//! | [`mag_metrics`] | the MAG-BDI paper's raw and effective compression ratios over sets of entries |
//! | [`trace`] | access traces (`trace.bin`, `trace_meta.json`) and their virtual-address layout |
//! | [`l2_cache`] | the trace driver's sectored L2: accesses to memory-entry requests |
//! | [`mdcache_study`] | metadata cache hit rate against size on a trace (Fig. 6b) |
//! | [`class_profile`] | every entry's size class per snapshot and allocation: the profiler's input |
//! | [`annotation`] | target-ratio annotation files (`buddy profile` writes them) |
//! | [`input_file`] | reading inputs that must be regular files |
//! | [`memory_system`] | the memory system on a trace in fast mode (golden models, HBM2 and NVLink timing) |
//! | [`study`] | the paper's compressibility and target-ratio studies (Fig. 3, 7, 8, 9, 10) |
//! | [`cdma`] | cDMA (seed `003_*`): the compressing DMA engine offloading DNN activation maps for vDNN, at system level |
//! | [`oversubscription`] | device memory smaller than the footprint: Unified Memory paging, ETC's techniques and Buddy Compression replaying a trace (`docs/oversubscription.md`) |

pub mod annotation;
pub mod cdma;
pub mod class_profile;
pub mod compression_study;
pub mod config;
pub mod input_file;
pub mod l2_cache;
pub mod lcp_metrics;
pub mod mag_metrics;
pub mod mdcache_study;
pub mod memory_system;
pub mod oversubscription;
pub mod study;
pub mod trace;
pub mod workload;

pub use compression_study::{CompressionStudy, Progress, Summary};
pub use lcp_metrics::LcpStats;
pub use mag_metrics::MagStats;
pub use workload::{Workload, WorkloadError};
