//! The mini-batch footprint model (`buddy_sim::study::minibatch`, Buddy
//! Fig. 15) on small synthetic manifests built here: what scales with the
//! batch, the largest batch at the device-memory boundary, and manifests
//! the model refuses.

use buddy_golden::translation::TargetRatio;
use buddy_sim::study::minibatch::{FootprintModel, Minibatch, MinibatchError, ThroughputModel};
use buddy_sim::workload::Allocation;

fn alloc(name: &str, role: Option<&str>, shape: Option<Vec<u64>>, full_size: u64) -> Allocation {
    Allocation {
        name: name.into(),
        offset: 0,
        size: full_size.min(1024),
        padded_size: full_size.min(1024).div_ceil(128) * 128,
        dtype: "f32".into(),
        count: full_size.min(1024) / 4,
        description: String::new(),
        role: role.map(Into::into),
        shape,
        full_size: Some(full_size),
        source_offset: Some(0),
    }
}

/// A two-layer toy network recorded at batch `b`: 1 MiB of weights, their
/// gradients and two Adam moments, an f16 copy, a batch-norm statistic;
/// per sample a 64-token i64 input, two activations of 4 KiB and an
/// activation gradient of 2 KiB.
fn toy(b: u64) -> Vec<Allocation> {
    vec![
        alloc("input.ids", Some("input"), Some(vec![b, 64]), b * 64 * 8),
        alloc("w.l0", Some("weight"), Some(vec![512, 512]), 1 << 20),
        alloc("w16.l0", Some("weight_f16"), Some(vec![512, 512]), 1 << 19),
        alloc("grad.l0", Some("gradient"), Some(vec![512, 512]), 1 << 20),
        alloc("adam_m.l0", Some("optimizer"), Some(vec![512, 512]), 1 << 20),
        alloc("adam_v.l0", Some("optimizer"), Some(vec![512, 512]), 1 << 20),
        alloc("bn.l0", Some("bn_stat"), Some(vec![512]), 2048),
        alloc("act.l0", Some("activation"), Some(vec![b, 1024]), b * 4096),
        alloc("act.l1", Some("activation"), Some(vec![b, 32, 32]), b * 4096),
        alloc("actgrad.l1", Some("activation_grad"), Some(vec![b, 512]), b * 2048),
    ]
}

const FIXED: u64 = 4 * (1 << 20) + (1 << 19) + 2048;
const PER_SAMPLE: u64 = 64 * 8 + 4096 + 4096 + 2048;

fn model(allocations: &[Allocation], target: TargetRatio) -> Result<FootprintModel, MinibatchError> {
    FootprintModel::new(allocations, &vec![target; allocations.len()])
}

#[test]
fn doubling_the_batch_doubles_the_scaling_bytes_and_leaves_parameters_unchanged() {
    let m8 = model(&toy(8), TargetRatio::X1).unwrap();
    let m16 = model(&toy(16), TargetRatio::X1).unwrap();
    assert_eq!((m8.recorded_batch, m16.recorded_batch), (8, 16));
    // The model recorded at 8 and the one recorded at 16 agree at every batch.
    assert_eq!((m8.fixed_bytes, m8.per_sample_bytes), (FIXED, PER_SAMPLE));
    assert_eq!((m16.fixed_bytes, m16.per_sample_bytes), (FIXED, PER_SAMPLE));
    assert_eq!(m8.bytes(16), m16.bytes(16));
    assert_eq!(m8.bytes(16) - m8.bytes(8), 8 * PER_SAMPLE);
    // Per allocation: the scaling tensors double, the rest stay.
    for (a, b) in m8.allocations.iter().zip(&m16.allocations) {
        assert_eq!(a.scales, matches!(a.role.as_str(), "activation" | "activation_grad" | "input"), "{}", a.name);
        assert_eq!(b.bytes, if a.scales { 2 * a.bytes } else { a.bytes }, "{}", a.name);
    }
    // Without compression the device footprint is the footprint plus 4 bits per 128 B.
    assert_eq!(m8.device_bytes(8), m8.bytes(8) as f64 * 257.0 / 256.0);
}

#[test]
fn buddy_keeps_each_targets_device_part_and_metadata() {
    // Parameters at 2x, activations at 4x: 64 + 1/2 and 32 + 1/2 of every 128 B.
    let a = toy(4);
    let targets: Vec<TargetRatio> = a.iter().map(|a| if a.name.starts_with("act") { TargetRatio::X4 } else { TargetRatio::X2 }).collect();
    let m = FootprintModel::new(&a, &targets).unwrap();
    let input = 64.0 * 8.0;
    let fixed = FIXED as f64 * 64.5 / 128.0;
    let per_sample = input * 64.5 / 128.0 + (PER_SAMPLE as f64 - input) * 32.5 / 128.0;
    assert_eq!(m.fixed_device_bytes(), fixed);
    assert_eq!(m.per_sample_device_bytes(), per_sample);
    assert_eq!(m.device_bytes(100), fixed + 100.0 * per_sample);
    assert!(m.buddy_ratio(100) > 2.0 && m.buddy_ratio(100) < 4.0);
}

#[test]
fn the_largest_batch_is_the_last_that_fits() {
    let m = model(&toy(8), TargetRatio::X1).unwrap();
    for b in [1, 7, 100, 1000] {
        let memory = FIXED + b * PER_SAMPLE;
        assert_eq!(m.largest_batch(memory), Some(b), "exactly {b} samples");
        assert_eq!(m.largest_batch(memory - 1), if b == 1 { None } else { Some(b - 1) }, "a byte short of {b}");
        assert_eq!(m.largest_batch(memory + PER_SAMPLE - 1), Some(b));
    }
    assert_eq!(m.largest_batch(FIXED), None, "the parameters alone");
    // With Buddy at 2x: 64.5 device bytes per 128 B. FIXED and PER_SAMPLE are multiples of 256.
    let m2 = model(&toy(8), TargetRatio::X2).unwrap();
    let dev = |bytes: u64| bytes / 256 * 129;
    for b in [1, 37, 4096] {
        let memory = dev(FIXED) + b * dev(PER_SAMPLE);
        assert_eq!(m2.largest_batch_buddy(memory), Some(b));
        assert_eq!(m2.largest_batch_buddy(memory - 1), if b == 1 { None } else { Some(b - 1) });
        assert!(m2.largest_batch(memory).unwrap_or(0) < b, "uncompressed fits fewer");
    }
}

#[test]
fn the_study_reports_both_batches_and_the_throughput_models_speedup() {
    let a = toy(8);
    let memory = FIXED + 48 * PER_SAMPLE;
    let t = ThroughputModel { half_batch: 16.0 };
    let s = Minibatch::new("toy", &a, &vec![TargetRatio::X2; a.len()], &[memory], t).unwrap();
    let f = &s.fits[0];
    assert_eq!(f.largest_batch, Some(48));
    // 2x with metadata: 129/256 device bytes per byte.
    let expect = ((u128::from(memory) * 256 - u128::from(FIXED) * 129) / (u128::from(PER_SAMPLE) * 129)) as u64;
    assert_eq!(f.largest_batch_buddy, Some(expect));
    let (b0, b1) = (48.0, expect as f64);
    let speedup = (b1 / (b1 + 16.0)) / (b0 / (b0 + 16.0)) - 1.0;
    assert!((f.speedup.unwrap() - speedup).abs() < 1e-12);
    // Below the plateau's bound: throughput at 48 is 75% of the plateau.
    assert!(f.speedup.unwrap() > 0.0 && f.speedup.unwrap() < 1.0 / 0.75 - 1.0, "{f:?}");
    // Throughput saturates: each doubling gains less.
    let gains: Vec<f64> = s.curve.windows(2).map(|w| w[1].relative_throughput / w[0].relative_throughput).collect();
    assert!(gains.windows(2).all(|g| g[1] < g[0]), "{gains:?}");
    assert!(s.curve.last().unwrap().batch > expect);
}

#[test]
fn a_manifest_without_what_the_model_needs_is_refused_with_the_reason() {
    let err = |a: Vec<Allocation>| model(&a, TargetRatio::X1).unwrap_err().to_string();
    // No input: the recorded batch cannot be known.
    let no_input: Vec<Allocation> = toy(8).into_iter().filter(|a| a.role.as_deref() != Some("input")).collect();
    assert!(err(no_input).contains("no allocation has role `input`"));
    // An input without shape.
    let mut a = toy(8);
    a[0].shape = None;
    assert!(err(a).contains("'input.ids' (role input) has no `shape`"));
    // An activation without shape, or whose leading dimension is not the batch.
    let mut a = toy(8);
    a[7].shape = None;
    assert!(err(a).contains("'act.l0' (role activation) has no `shape`"));
    let mut a = toy(8);
    a[8].shape = Some(vec![32, 8, 32]);
    assert!(err(a).contains("'act.l1' (role activation) has leading dimension 32, but the mini-batch"));
    // An allocation without role, or with one the model does not know.
    let mut a = toy(8);
    a[3].role = None;
    assert!(err(a).contains("'grad.l0' has no `role`"));
    let mut a = toy(8);
    a[3].role = Some("scratch".into());
    assert!(err(a).contains("'grad.l0' has role 'scratch'"));
    // Bytes that do not split into samples.
    let mut a = toy(8);
    a[9].full_size = Some(8 * 2048 + 4);
    assert!(err(a).contains("'actgrad.l1': its 16388 bytes"));
    assert!(matches!(FootprintModel::new(&toy(8), &[TargetRatio::X1]), Err(MinibatchError::Targets { .. })));
}
