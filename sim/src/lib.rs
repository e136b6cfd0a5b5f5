//! Studies of the Buddy Compression memory system on real memory snapshots.
//!
//! | module | what |
//! |---|---|
//! | [`workload`] | loading and validating snapshot workloads (`shared/data/README.md`) |
//! | [`compression_study`] | every entry through the golden codecs: size-class histograms, stored bytes, compression ratios |

pub mod compression_study;
pub mod workload;

pub use compression_study::CompressionStudy;
pub use workload::{Workload, WorkloadError};
