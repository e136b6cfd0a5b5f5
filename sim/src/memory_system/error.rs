//! Why a memory-system run stops.

use buddy_golden::controller_slice::SliceError;
use buddy_golden::translation::TranslationFault;
use thiserror::Error;

use super::event_queue::Stalled;

/// Why a run stopped.
#[derive(Debug, Error)]
pub enum SimError {
    #[error("address {va:#x} is in no allocation's pages")]
    Unmapped { va: u64 },
    #[error("address {va:#x}: translation fault: {fault}")]
    Fault { va: u64, fault: TranslationFault },
    #[error("address {va:#x}: the stored entry does not decode: {message}")]
    Decode { va: u64, message: String },
    #[error("data mismatch at entry {va:#x} ({what}) at {ns:.1} ns (DRAM cycle {cycle}):\n  expected {expected}\n  got      {got}")]
    Mismatch { va: u64, what: &'static str, ns: f64, cycle: u64, expected: String, got: String },
    #[error("trace allocation '{name}' is marked in_snapshot, but the manifest has no allocation of that name")]
    NotInManifest { name: String },
    #[error("snapshot position {position} does not exist (the workload has {count})")]
    Snapshot { position: usize, count: usize },
    #[error("{0}")]
    Config(String),
    #[error("cannot allocate {bytes} bytes for the memory image of allocation '{name}' (the trace's footprint is larger than this machine's memory)")]
    OutOfMemory { name: String, bytes: u64 },
    #[error("hardware: {0}")]
    Hardware(String),
    /// The RTL engine or the hardware slice timing was asked for an
    /// algorithm without rust-hdl hardware.
    #[error("{0}")]
    NoHardware(#[from] buddy_golden::NoHardware),
}

impl From<Stalled> for SimError {
    fn from(s: Stalled) -> Self {
        SimError::Hardware(format!(
            "the simulation stalled at {} ps with {} requests waiting; channels: {}",
            s.at_ps, s.waiting, s.channels
        ))
    }
}

impl From<SliceError> for SimError {
    fn from(e: SliceError) -> Self {
        match e {
            SliceError::Fault { va, fault } => SimError::Fault { va, fault },
            SliceError::Decode { va, message, .. } => SimError::Decode { va, message },
        }
    }
}
