//! Studies of the Buddy Compression memory system on real memory snapshots.
//!
//! | module | what |
//! |---|---|
//! | [`workload`] | loading and validating snapshot workloads (`shared/data/README.md`) |
//! | [`compression_study`] | every entry through the golden codecs: size-class histograms, stored bytes, compression ratios, summary over workloads |
//! | [`mag_metrics`] | the MAG-BDI paper's raw and effective compression ratios over sets of entries |
//! | [`trace`] | access traces (`trace.bin`, `trace_meta.json`) and their virtual-address layout |
//! | [`l2_cache`] | the trace driver's sectored L2: accesses to memory-entry requests |
//! | [`mdcache_study`] | metadata cache hit rate against size on a trace (Fig. 6b) |

pub mod compression_study;
pub mod l2_cache;
pub mod mag_metrics;
pub mod mdcache_study;
pub mod trace;
pub mod workload;

pub use compression_study::{CompressionStudy, Progress, Summary};
pub use mag_metrics::MagStats;
pub use workload::{Workload, WorkloadError};
