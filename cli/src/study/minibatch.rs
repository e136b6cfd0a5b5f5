//! `buddy study minibatch` (Buddy Compression Fig. 15): a DL workload's
//! footprint against the mini-batch size, the largest batch that fits each
//! `--device-memory` without and with Buddy, and the projected speedup.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;
use buddy_sim::study::minibatch::{is_dl, Minibatch, ThroughputModel};
use serde::Serialize;

use super::args::StudyName;
use super::common::{csv_of, Output};
use super::context::Ctx;
use crate::plot::{minibatch_panels, BatchMark, Series};

/// How to read the study, for report.md.
pub(super) const EXPLANATION: &str = "Buddy Compression Sec. V-D, Fig. 15a-c. From the manifest of a DL workload: every allocation's whole tensor (`full_size`) either grows with the mini-batch (roles activation, activation_grad, input) or not (weight, weight_f16, gradient, optimizer, bn_stat), so footprint(B) = fixed + B x per-sample; the recorded batch is the inputs' leading dimension (`shape[0]`). With Buddy each allocation keeps its profiled target's device part of every 128 B entry plus 4 bits of metadata in device memory, the rest in buddy memory (targets profiled at the recorded batch, as the paper profiles with a smaller batch). Throughput: per-step time = fixed overhead + per-sample work, samples/s = B / (B + h) of the plateau with h = `--half-throughput-batch` (default 16: 64 samples reach 80%, the paper's \"mini-batch of 64 needed for good resource utilization\"); the paper's model is a detailed one \"very similar to\" Paleo (Qi et al. 2017) and DeLTA (Lym et al. 2019). Speedup: throughput at the largest Buddy batch over the largest uncompressed one. The paper (12 GB Titan V, six networks): +14% on average, BigLSTM +28% and VGG16 +30%.";

/// What is not like the paper, printed under the table.
const DEPARTURES: &str = "not like the paper: footprint = the manifest's allocations only (from `full_size`; no framework workspace, allocator slack or CUDA context; a sliced workload's missing layers are missing), not a measured PyTorch footprint; throughput from B / (B + h), a two-constant stand-in for the paper's Paleo/DeLTA-like model, its h an assumption about the paper's networks, not fitted; targets profiled on the stored slices and applied to whole tensors at every batch; any integer batch (the paper doubles); Buddy's own slowdown (Fig. 12) not subtracted";

const GB: f64 = 1e9;

/// A device memory as the table and legend show it.
fn memory_name(bytes: u64) -> String {
    if bytes % (1 << 30) == 0 {
        format!("{} GiB", bytes >> 30)
    } else if bytes % (1 << 20) == 0 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{:.3} GB", bytes as f64 / GB)
    }
}

fn opt_u64(v: Option<u64>) -> String {
    v.map_or_else(|| "none".to_string(), |v| v.to_string())
}

pub(super) fn minibatch(ctx: &Ctx, out: &Path) -> anyhow::Result<Output> {
    #[derive(Serialize)]
    struct Row<'a> {
        workload: &'a str,
        /// `curve` (a power of two), `largest` (uncompressed) or `largest-buddy`.
        kind: &'static str,
        device_memory_bytes: Option<u64>,
        batch: Option<u64>,
        footprint_bytes: Option<u64>,
        buddy_device_bytes: Option<f64>,
        relative_throughput: Option<f64>,
        speedup: Option<f64>,
    }
    let args = ctx.args;
    let throughput = ThroughputModel { half_batch: args.half_throughput_batch };
    let mut table = String::new();
    let mut studies = Vec::new();
    for (cp, w) in ctx.cps.iter().zip(ctx.workloads) {
        let allocations = &w.manifest().snapshots[0].allocations;
        if !is_dl(allocations) {
            let _ = writeln!(table, "{:<16} no allocation has a `role` (not a DL manifest): skipped", cp.workload);
            continue;
        }
        let targets = ctx.profiled_targets(cp)?;
        let s = Minibatch::new(&cp.workload, allocations, &targets, &args.device_memory, throughput)
            .with_context(|| format!("workload {}", cp.workload))?;
        let m = &s.model;
        let _ = writeln!(
            table,
            "{}: recorded mini-batch {} (the inputs' shape[0]); fixed {:.1} MB, per sample {:.3} MB; at {}: {:.1} MB",
            s.workload,
            m.recorded_batch,
            m.fixed_bytes as f64 / 1e6,
            m.per_sample_bytes as f64 / 1e6,
            m.recorded_batch,
            m.bytes(m.recorded_batch) as f64 / 1e6
        );
        let mut roles: Vec<(&str, u64)> = Vec::new();
        for a in &m.allocations {
            match roles.iter_mut().find(|r| r.0 == a.role) {
                Some(r) => r.1 += a.bytes,
                None => roles.push((&a.role, a.bytes)),
            }
        }
        let _ = writeln!(
            table,
            "  by role at {}: {}",
            m.recorded_batch,
            roles.iter().map(|(r, b)| format!("{r} {:.3} MB", *b as f64 / 1e6)).collect::<Vec<_>>().join(", ")
        );
        let _ = writeln!(
            table,
            "  Buddy ratio (profiled targets, {:.0}% threshold, device parts + 4-bit metadata): fixed {:.3}x, per sample {:.3}x, at {} {:.3}x",
            100.0 * args.threshold,
            s.fixed_ratio,
            s.per_sample_ratio,
            m.recorded_batch,
            s.recorded_ratio
        );
        let _ = writeln!(
            table,
            "  {:>14} {:>13} {:>11} {:>11} {:>11} {:>9}",
            "device memory", "largest batch", "with Buddy", "throughput", "with Buddy", "speedup"
        );
        let f3 = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.3}"));
        for f in &s.fits {
            let _ = writeln!(
                table,
                "  {:>14} {:>13} {:>11} {:>11} {:>11} {:>9}",
                memory_name(f.device_memory_bytes),
                opt_u64(f.largest_batch),
                opt_u64(f.largest_batch_buddy),
                f3(f.relative_throughput),
                f3(f.relative_throughput_buddy),
                f.speedup.map_or_else(|| "-".to_string(), |v| format!("{:+.1}%", 100.0 * v))
            );
        }
        studies.push(s);
    }
    if studies.is_empty() {
        return Ok(Output { study: StudyName::Minibatch, table, json: serde_json::json!([]), csv: csv_of::<Row>(&[])?, pngs: Vec::new() });
    }
    let _ = writeln!(
        table,
        "throughput = samples/s as a fraction of the plateau, B / (B + {}) (per-step time = fixed + per-sample work); speedup = throughput at the Buddy batch / at the uncompressed batch - 1 (paper, 12 GB: +14% average, up to +30%)",
        throughput.half_batch
    );
    let _ = writeln!(table, "{DEPARTURES}");
    let mut rows = Vec::new();
    let mut pngs = Vec::new();
    for s in &studies {
        for c in &s.curve {
            rows.push(Row {
                workload: &s.workload,
                kind: "curve",
                device_memory_bytes: None,
                batch: Some(c.batch),
                footprint_bytes: Some(c.footprint_bytes),
                buddy_device_bytes: Some(c.buddy_device_bytes),
                relative_throughput: Some(c.relative_throughput),
                speedup: None,
            });
        }
        let mut marks = Vec::new();
        for (i, f) in s.fits.iter().enumerate() {
            let name = memory_name(f.device_memory_bytes);
            for (kind, batch, speedup) in [("largest", f.largest_batch, None), ("largest-buddy", f.largest_batch_buddy, f.speedup)] {
                rows.push(Row {
                    workload: &s.workload,
                    kind,
                    device_memory_bytes: Some(f.device_memory_bytes),
                    batch,
                    footprint_bytes: batch.map(|b| s.model.bytes(b)),
                    buddy_device_bytes: batch.map(|b| s.model.device_bytes(b)),
                    relative_throughput: batch.map(|b| throughput.relative_throughput(b)),
                    speedup,
                });
                let Some(b) = batch else { continue };
                let buddy = kind == "largest-buddy";
                marks.push(BatchMark {
                    label: if buddy {
                        format!(
                            "{name}: largest batch with Buddy, {b}{}",
                            speedup.map_or_else(String::new, |v| format!(" ({:+.1}%)", 100.0 * v))
                        )
                    } else {
                        format!("{name}: largest batch uncompressed, {b}")
                    },
                    batch: b as f64,
                    footprint_gb: if buddy { s.model.device_bytes(b) } else { s.model.bytes(b) as f64 } / GB,
                    throughput: throughput.relative_throughput(b),
                    buddy,
                    memory: i,
                });
            }
        }
        let footprint = [
            Series {
                name: "footprint, uncompressed".into(),
                points: s.curve.iter().map(|c| (c.batch as f64, c.footprint_bytes as f64 / GB)).collect(),
            },
            Series {
                name: format!("device part with Buddy ({:.2}x at {})", s.recorded_ratio, s.model.recorded_batch),
                points: s.curve.iter().map(|c| (c.batch as f64, c.buddy_device_bytes / GB)).collect(),
            },
        ];
        let memories: Vec<(String, f64)> = s
            .fits
            .iter()
            .map(|f| (format!("device memory {}", memory_name(f.device_memory_bytes)), f.device_memory_bytes as f64 / GB))
            .collect();
        let curve = Series {
            name: format!("B / (B + {}) (fixed + per-sample step time)", throughput.half_batch),
            points: s.curve.iter().map(|c| (c.batch as f64, c.relative_throughput)).collect(),
        };
        let png = out.join(format!("minibatch-{}.png", s.workload));
        minibatch_panels(
            &png,
            &format!("{}: larger mini-batches with Buddy Compression (Buddy Fig. 15)", s.workload),
            &footprint,
            &memories,
            &curve,
            &marks,
        )?;
        pngs.push(png);
    }
    Ok(Output { study: StudyName::Minibatch, table, json: serde_json::to_value(&studies)?, csv: csv_of(&rows)?, pngs })
}
