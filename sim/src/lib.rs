//! Studies of the Buddy Compression memory system on real memory snapshots.
//!
//! | module | what |
//! |---|---|
//! | [`workload`] | loading and validating snapshot workloads (`shared/data/README.md`) |
//! | [`compression_study`] | every entry through the golden codecs: size-class histograms, stored bytes, compression ratios, summary over workloads |
//! | [`mag_metrics`] | the MAG-BDI paper's raw and effective compression ratios over sets of entries |

pub mod compression_study;
pub mod mag_metrics;
pub mod workload;

pub use compression_study::{CompressionStudy, Progress, Summary};
pub use mag_metrics::MagStats;
pub use workload::{Workload, WorkloadError};
