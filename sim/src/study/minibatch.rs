//! DL training with larger mini-batches (Buddy Compression Sec. V-D,
//! Fig. 15): a DL workload's memory footprint as a function of the
//! mini-batch size, an analytical throughput model against the batch size,
//! and the largest batch that fits a device memory without and with Buddy
//! Compression, with the projected speedup between the two.
//!
//! - **Footprint.** Per manifest allocation, its whole tensor (`full_size`)
//!   either scales with the mini-batch (roles `activation`,
//!   `activation_grad`, `input`) or not (`weight`, `weight_f16`,
//!   `gradient`, `optimizer`, `bn_stat`): footprint(B) = fixed + B x
//!   per-sample. The recorded run's batch is the leading dimension of the
//!   `input` tensors' `shape`; every batch-scaling tensor must have it too.
//! - **Buddy.** Each allocation keeps its target ratio's device part of
//!   every 128 B entry in device memory (the rest is in buddy memory) plus
//!   4 bits of size metadata per entry (Sec. III-A, 0.4%); the targets are
//!   the profiler's, taken at the recorded batch (the paper profiles with a
//!   smaller batch, Sec. III-C) and applied to every batch size.
//! - **Throughput.** [`ThroughputModel`]: per-step time = fixed overhead +
//!   per-sample work, so samples per second B / (t0 + B t1) saturate with
//!   the batch (the paper uses a detailed model "very similar to" Paleo,
//!   Qi et al. 2017, and DeLTA, Lym et al. ISPASS 2019; this is the
//!   simplest model with the same shape, Fig. 15b's plateau).

use buddy_golden::translation::TargetRatio;
use serde::Serialize;
use thiserror::Error;

use crate::workload::Allocation;

/// The device memory of the paper's Fig. 15 (Titan V, 12 GB HBM2), bytes.
pub const DEFAULT_DEVICE_MEMORY: u64 = 12 << 30;

/// The batch at which the throughput model reaches half its plateau:
/// chosen so that 64 samples reach 80% of it, the paper's "mini-batch size
/// of 64 that is needed for good resource utilization" (Sec. V-D). An
/// assumption about the paper's networks, not a measurement of ours.
pub const DEFAULT_HALF_THROUGHPUT_BATCH: f64 = 16.0;

/// Roles whose bytes grow with the mini-batch.
pub const BATCH_ROLES: [&str; 3] = ["activation", "activation_grad", "input"];
/// Roles whose bytes do not depend on the mini-batch.
pub const FIXED_ROLES: [&str; 5] = ["weight", "weight_f16", "gradient", "optimizer", "bn_stat"];

/// Device bytes are counted exactly in 1/256 byte: a byte of data under a
/// target of `d` device bytes per 128 B entry takes `d / 128` device bytes
/// and 4 bits / 128 B = 1/256 byte of size metadata, `2 d + 1` units.
const UNITS: u128 = 256;

/// Device units (1/256 byte) per byte of data under `target`.
fn units_per_byte(target: TargetRatio) -> u128 {
    2 * u128::from(target.device_bytes()) + 1
}

/// Why the footprint model cannot be built from a manifest.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum MinibatchError {
    #[error("allocation '{name}' has no `role`: every allocation of a DL manifest needs one of {roles}")]
    NoRole { name: String, roles: String },
    #[error("allocation '{name}' has role '{role}', not one of {roles}")]
    UnknownRole { name: String, role: String, roles: String },
    #[error("no allocation has role `input`: the recorded mini-batch size is the inputs' leading dimension (`shape[0]`)")]
    NoInput,
    #[error("allocation '{name}' (role {role}) has no `shape`: its leading dimension is the mini-batch size")]
    NoShape { name: String, role: String },
    #[error(
        "allocation '{name}' (role {role}) has leading dimension {leading}, but the mini-batch (the first input's `shape[0]`) is {batch}"
    )]
    BatchMismatch { name: String, role: String, leading: u64, batch: u64 },
    #[error("the inputs' leading dimension is 0: no mini-batch")]
    ZeroBatch,
    #[error("allocation '{name}': its {bytes} bytes (`full_size`) are not a multiple of the mini-batch {batch}")]
    NotPerSample { name: String, bytes: u64, batch: u64 },
    #[error("{targets} target ratios for {allocations} allocations")]
    Targets { allocations: usize, targets: usize },
}

/// True when some allocation has a `role`: a DL manifest the model applies to.
pub fn is_dl(allocations: &[Allocation]) -> bool {
    allocations.iter().any(|a| a.role.is_some())
}

/// One allocation at the recorded batch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AllocationFootprint {
    pub name: String,
    pub role: String,
    /// True when its bytes grow with the mini-batch.
    pub scales: bool,
    /// The whole tensor (`full_size`), bytes.
    pub bytes: u64,
    /// Its profiled target ratio (`1x`, `4/3x`, `2x`, `4x`, `16x`).
    pub target: String,
    /// Device bytes with Buddy (device parts and metadata), bytes.
    pub device_bytes: f64,
}

/// Footprint(B) = fixed + B x per-sample, uncompressed and with Buddy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FootprintModel {
    /// The recorded run's mini-batch (the inputs' leading dimension).
    pub recorded_batch: u64,
    /// Bytes that do not depend on the batch (parameters, their gradients
    /// and f16 casts, optimizer state, batch-norm statistics).
    pub fixed_bytes: u64,
    /// Bytes per sample (activations, their gradients, inputs).
    pub per_sample_bytes: u64,
    /// Fixed device bytes with Buddy (device parts and metadata), exactly,
    /// in 1/256 byte ([`UNITS`]); serialized as bytes
    /// ([`FootprintModel::fixed_device_bytes`]).
    #[serde(rename = "fixed_device_bytes", serialize_with = "units_as_bytes")]
    fixed_device_units: u128,
    /// Device bytes per sample with Buddy, likewise.
    #[serde(rename = "per_sample_device_bytes", serialize_with = "units_as_bytes")]
    per_sample_device_units: u128,
    pub allocations: Vec<AllocationFootprint>,
}

impl FootprintModel {
    /// The model of `allocations` (one snapshot's, manifest order) with
    /// `targets` (one per allocation).
    ///
    /// # Errors
    /// [`MinibatchError`]: an allocation without a known role, no input, an
    /// input or batch-scaling tensor without `shape` or with another leading
    /// dimension, bytes that are not a multiple of the batch, or a target
    /// count that differs from the allocation count.
    pub fn new(allocations: &[Allocation], targets: &[TargetRatio]) -> Result<Self, MinibatchError> {
        if allocations.len() != targets.len() {
            return Err(MinibatchError::Targets { allocations: allocations.len(), targets: targets.len() });
        }
        let known = || BATCH_ROLES.iter().chain(&FIXED_ROLES).copied().collect::<Vec<_>>().join(", ");
        let mut roles = Vec::new();
        for a in allocations {
            let role = a.role.clone().ok_or_else(|| MinibatchError::NoRole { name: a.name.clone(), roles: known() })?;
            let scales = BATCH_ROLES.contains(&role.as_str());
            if !scales && !FIXED_ROLES.contains(&role.as_str()) {
                return Err(MinibatchError::UnknownRole { name: a.name.clone(), role, roles: known() });
            }
            roles.push((role, scales));
        }
        let leading = |a: &Allocation, role: &str| {
            a.shape
                .as_ref()
                .and_then(|s| s.first().copied())
                .ok_or_else(|| MinibatchError::NoShape { name: a.name.clone(), role: role.to_string() })
        };
        let first_input = allocations.iter().zip(&roles).find(|(_, (r, _))| r == "input").ok_or(MinibatchError::NoInput)?;
        let batch = leading(first_input.0, "input")?;
        if batch == 0 {
            return Err(MinibatchError::ZeroBatch);
        }
        let (mut fixed, mut per_sample, mut fixed_dev, mut per_sample_dev) = (0u64, 0u64, 0u128, 0u128);
        let mut out = Vec::new();
        for ((a, (role, scales)), &t) in allocations.iter().zip(roles).zip(targets) {
            let bytes = a.tensor_bytes();
            let units = units_per_byte(t);
            if scales {
                let l = leading(a, &role)?;
                if l != batch {
                    return Err(MinibatchError::BatchMismatch { name: a.name.clone(), role, leading: l, batch });
                }
                if bytes % batch != 0 {
                    return Err(MinibatchError::NotPerSample { name: a.name.clone(), bytes, batch });
                }
                per_sample += bytes / batch;
                per_sample_dev += u128::from(bytes / batch) * units;
            } else {
                fixed += bytes;
                fixed_dev += u128::from(bytes) * units;
            }
            let device_bytes = (u128::from(bytes) * units) as f64 / UNITS as f64;
            out.push(AllocationFootprint { name: a.name.clone(), role, scales, bytes, target: t.name().to_string(), device_bytes });
        }
        Ok(FootprintModel {
            recorded_batch: batch,
            fixed_bytes: fixed,
            per_sample_bytes: per_sample,
            fixed_device_units: fixed_dev,
            per_sample_device_units: per_sample_dev,
            allocations: out,
        })
    }

    /// The uncompressed footprint at `batch` samples, bytes.
    pub fn bytes(&self, batch: u64) -> u64 {
        self.fixed_bytes + batch * self.per_sample_bytes
    }

    /// The device footprint with Buddy at `batch` samples, bytes.
    pub fn device_bytes(&self, batch: u64) -> f64 {
        (self.fixed_device_units + u128::from(batch) * self.per_sample_device_units) as f64 / UNITS as f64
    }

    /// Fixed device bytes with Buddy (device parts and metadata).
    pub fn fixed_device_bytes(&self) -> f64 {
        self.fixed_device_units as f64 / UNITS as f64
    }

    /// Device bytes per sample with Buddy.
    pub fn per_sample_device_bytes(&self) -> f64 {
        self.per_sample_device_units as f64 / UNITS as f64
    }

    /// Uncompressed over device footprint at `batch`: the workload's Buddy ratio there.
    pub fn buddy_ratio(&self, batch: u64) -> f64 {
        self.bytes(batch) as f64 / self.device_bytes(batch)
    }

    /// The largest batch whose uncompressed footprint fits `memory` bytes
    /// (`None`: not even one sample).
    pub fn largest_batch(&self, memory: u64) -> Option<u64> {
        largest(u128::from(memory), u128::from(self.fixed_bytes), u128::from(self.per_sample_bytes))
    }

    /// The largest batch whose device footprint with Buddy fits `memory`
    /// bytes (`None`: not even one sample).
    pub fn largest_batch_buddy(&self, memory: u64) -> Option<u64> {
        largest(u128::from(memory) * UNITS, self.fixed_device_units, self.per_sample_device_units)
    }
}

/// A count of 1/256 bytes ([`UNITS`]) as bytes, for serde.
fn units_as_bytes<S: serde::Serializer>(units: &u128, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(*units as f64 / UNITS as f64)
}

/// The largest `b >= 1` with `fixed + b * per_sample <= memory`.
fn largest(memory: u128, fixed: u128, per_sample: u128) -> Option<u64> {
    let room = memory.checked_sub(fixed)?;
    // No per-sample bytes: any batch fits.
    let b = room.checked_div(per_sample).unwrap_or(u128::from(u64::MAX));
    (b >= 1).then(|| u64::try_from(b).unwrap_or(u64::MAX))
}

/// Throughput against the mini-batch: per-step time t(B) = t0 + B t1 (a
/// fixed per-step cost: kernel launches, parameter and optimizer traffic,
/// synchronization; plus per-sample work), so samples per second B / t(B)
/// rise with B and saturate at 1 / t1. Only t0 / t1 matters for relative
/// throughput: `half_batch`, the batch at half the plateau.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ThroughputModel {
    /// Samples at which throughput is half its plateau (t0 / t1), > 0.
    pub half_batch: f64,
}

impl ThroughputModel {
    /// Samples per second at `batch` as a fraction of the plateau, in (0, 1).
    pub fn relative_throughput(&self, batch: u64) -> f64 {
        let b = batch as f64;
        b / (b + self.half_batch)
    }

    /// Throughput at `to` over throughput at `from`, minus 1.
    pub fn speedup(&self, from: u64, to: u64) -> f64 {
        self.relative_throughput(to) / self.relative_throughput(from) - 1.0
    }
}

/// One batch size of the curve.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurvePoint {
    pub batch: u64,
    /// Uncompressed footprint, bytes.
    pub footprint_bytes: u64,
    /// Device footprint with Buddy, bytes.
    pub buddy_device_bytes: f64,
    /// Samples per second as a fraction of the plateau.
    pub relative_throughput: f64,
}

/// One device memory: the largest batches that fit, and the speedup.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceFit {
    pub device_memory_bytes: u64,
    /// Largest batch without compression (`None`: the fixed part alone does not fit).
    pub largest_batch: Option<u64>,
    /// Largest batch with Buddy Compression.
    pub largest_batch_buddy: Option<u64>,
    pub relative_throughput: Option<f64>,
    pub relative_throughput_buddy: Option<f64>,
    /// Throughput at the Buddy batch over the uncompressed one, minus 1
    /// (Fig. 15c); `None` when the uncompressed batch is `None`.
    pub speedup: Option<f64>,
}

/// The study of one workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Minibatch {
    pub workload: String,
    pub model: FootprintModel,
    /// Buddy ratio of the fixed part, of the per-sample part, and of the
    /// whole footprint at the recorded batch.
    pub fixed_ratio: f64,
    pub per_sample_ratio: f64,
    pub recorded_ratio: f64,
    pub throughput: ThroughputModel,
    /// Powers of two from 1 to past the largest Buddy batch.
    pub curve: Vec<CurvePoint>,
    pub fits: Vec<DeviceFit>,
}

impl Minibatch {
    /// The study of `workload` from `allocations` and their `targets` at
    /// each of `device_memories` (bytes) with `throughput`.
    ///
    /// # Errors
    /// [`FootprintModel::new`]'s.
    pub fn new(
        workload: &str,
        allocations: &[Allocation],
        targets: &[TargetRatio],
        device_memories: &[u64],
        throughput: ThroughputModel,
    ) -> Result<Self, MinibatchError> {
        let model = FootprintModel::new(allocations, targets)?;
        let fits: Vec<DeviceFit> = device_memories
            .iter()
            .map(|&m| {
                let (b, bb) = (model.largest_batch(m), model.largest_batch_buddy(m));
                DeviceFit {
                    device_memory_bytes: m,
                    largest_batch: b,
                    largest_batch_buddy: bb,
                    relative_throughput: b.map(|b| throughput.relative_throughput(b)),
                    relative_throughput_buddy: bb.map(|b| throughput.relative_throughput(b)),
                    speedup: b.zip(bb).map(|(b, bb)| throughput.speedup(b, bb)),
                }
            })
            .collect();
        let top =
            fits.iter().flat_map(|f| [f.largest_batch, f.largest_batch_buddy]).flatten().chain([model.recorded_batch]).max().unwrap_or(1);
        let mut curve = Vec::new();
        let mut b = 1u64;
        loop {
            curve.push(CurvePoint {
                batch: b,
                footprint_bytes: model.bytes(b),
                buddy_device_bytes: model.device_bytes(b),
                relative_throughput: throughput.relative_throughput(b),
            });
            if b > top || b >= 1 << 40 {
                break;
            }
            b *= 2;
        }
        let per_sample_ratio = model.per_sample_bytes as f64 / model.per_sample_device_bytes();
        let fixed_ratio = if model.fixed_bytes == 0 { 1.0 } else { model.fixed_bytes as f64 / model.fixed_device_bytes() };
        Ok(Minibatch {
            workload: workload.to_string(),
            fixed_ratio,
            per_sample_ratio,
            recorded_ratio: model.buddy_ratio(model.recorded_batch),
            model,
            throughput,
            curve,
            fits,
        })
    }
}
