//! The pipelines whose registers move when empty or when the next one
//! takes their value, ending in a [`RegisterSlice`]: every codec
//! (`BpcCompressor`, `BpcDecompressor`, the ZVC and MAG-BDI pairs, each
//! at an initiation interval of 1) and the `AddressTranslator` (latency
//! 2). A value accepted on edge
//! `t` is on `out_*` after edge `t + latency` when nothing stalls; the
//! values carried here are what the caller tracks (a context id), not the
//! data the hardware computes.
//!
//! [`RegisterSlice`]: buddy_hdl::register_slice::RegisterSlice

use crate::register_slice::{RegisterSliceIn, RegisterSliceModel};
use crate::CycleModel;

#[derive(Debug, Clone, Default)]
pub struct PipelineIn<T> {
    pub reset: bool,
    pub in_valid: bool,
    pub in_payload: T,
    pub out_ready: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PipelineOut<T> {
    pub in_ready: bool,
    /// `out_valid` and what the value carries.
    pub out: Option<T>,
}

/// `latency - 1` registers and the output slice.
#[derive(Debug, Clone, Default)]
pub struct ElasticPipelineModel<T> {
    regs: Vec<Option<T>>,
    slice: RegisterSliceModel<T>,
}

impl<T: Clone + Default + PartialEq + std::fmt::Debug> ElasticPipelineModel<T> {
    /// A pipeline of `latency` cycles (at least 1: the output slice).
    pub fn new(latency: u64) -> Self {
        assert!(latency >= 1, "a pipeline ends in its output slice");
        ElasticPipelineModel { regs: vec![None; latency as usize - 1], slice: RegisterSliceModel::default() }
    }

    /// Whether register `k` loads this cycle (`regs.len()`: the slice).
    fn loads(&self) -> Vec<bool> {
        let n = self.regs.len();
        let mut load = vec![false; n + 1];
        load[n] = self.slice.outputs(&Default::default()).in_ready;
        for k in (0..n).rev() {
            load[k] = self.regs[k].is_none() || load[k + 1];
        }
        load
    }

    pub fn is_empty(&self) -> bool {
        self.regs.iter().all(Option::is_none) && self.slice.is_empty()
    }
}

impl<T: Clone + Default + PartialEq + std::fmt::Debug> CycleModel for ElasticPipelineModel<T> {
    type In = PipelineIn<T>;
    type Out = PipelineOut<T>;
    fn outputs(&self, _: &Self::In) -> Self::Out {
        // `in_ready` is register 0's load: some register is empty, or the slice takes one.
        let slice_ready = self.slice.outputs(&Default::default()).in_ready;
        PipelineOut {
            in_ready: slice_ready || self.regs.iter().any(Option::is_none),
            out: self.slice.outputs(&Default::default()).out,
        }
    }
    fn clock(&mut self, i: &Self::In) {
        let load = self.loads();
        let n = self.regs.len();
        let last = if n == 0 { i.in_valid.then(|| i.in_payload.clone()) } else { self.regs[n - 1].clone() };
        self.slice.clock(&RegisterSliceIn {
            reset: i.reset,
            in_valid: last.is_some(),
            in_data: last.unwrap_or_default(),
            out_ready: i.out_ready,
        });
        for k in (0..n).rev() {
            if load[k] {
                self.regs[k] = if k == 0 { i.in_valid.then(|| i.in_payload.clone()) } else { self.regs[k - 1].clone() };
            }
        }
        if i.reset {
            self.regs.iter_mut().for_each(|r| *r = None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lockstep::{edge, settle};
    use buddy_golden::{HardwareCodec, Mag};
    use buddy_hdl::timing::codec_latency;
    use buddy_hdl::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rust_hdl::prelude::*;
    use std::collections::VecDeque;

    /// Offers values to `hw` (through `drive`) and its model with random
    /// bubbles and backpressure; compares `in_ready` and `out_valid` every
    /// cycle, and that values leave in the order they entered.
    fn lock_step<B: Block>(
        name: &str,
        make: impl Fn() -> B,
        latency: u64,
        drive: impl Fn(&mut B, bool, bool, bool, &mut ChaCha8Rng),
        ready_valid: impl Fn(&B) -> (bool, bool),
        clock: impl Fn(&mut B) -> &mut Signal<In, Clock>,
    ) {
        for seed in 0..3u64 {
            let mut hw = make();
            hw.connect_all();
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut model = ElasticPipelineModel::<u32>::new(latency);
            let mut inside = VecDeque::new();
            let (p_in, p_out) = [(0.9, 0.9), (0.5, 0.3), (1.0, 0.6)][seed as usize];
            let (mut taken, mut stalls, mut next) = (0, 0, 0u32);
            for cycle in 0..1_500 {
                let reset = cycle < 2;
                let (valid, ready) = (rng.gen_bool(p_in), rng.gen_bool(p_out));
                let i = PipelineIn { reset, in_valid: valid, in_payload: next, out_ready: ready };
                drive(&mut hw, reset, valid, ready, &mut rng);
                settle(&mut hw);
                let (in_ready, out_valid) = ready_valid(&hw);
                let want = PipelineOut { in_ready, out: out_valid.then(|| *inside.front().expect("an entry inside")) };
                assert_eq!(model.outputs(&i), want, "{name}: seed {seed}, cycle {cycle}");
                if valid && in_ready && !reset {
                    inside.push_back(next);
                    next += 1;
                }
                if out_valid && ready && !reset {
                    inside.pop_front();
                    taken += 1;
                }
                stalls += (valid && !in_ready) as usize;
                model.clock(&i);
                edge(&mut hw, &clock);
            }
            assert!(taken > 300 && (seed == 0 || stalls > 0), "{name}: seed {seed}: {taken} out, {stalls} stalls");
        }
    }

    fn entry(rng: &mut ChaCha8Rng) -> EntryBits {
        let mut w = [0u32; 32];
        for x in w.iter_mut() {
            *x = if rng.gen_bool(0.5) { 0 } else { rng.gen_range(0..64) };
        }
        EntryBits::from_words(&w)
    }

    macro_rules! compressor {
        ($name:expr, $hw:expr, $latency:expr) => {
            lock_step(
                $name,
                || $hw,
                $latency,
                |h, reset, valid, ready, rng| {
                    h.reset.next = reset;
                    h.in_valid.next = valid;
                    h.in_entry.next = entry(rng);
                    h.out_ready.next = ready;
                },
                |h| (h.in_ready.val(), h.out_valid.val()),
                |h| &mut h.clock,
            )
        };
    }

    macro_rules! decompressor {
        ($name:expr, $hw:expr, $latency:expr) => {
            lock_step(
                $name,
                || $hw,
                $latency,
                |h, reset, valid, ready, rng| {
                    h.reset.next = reset;
                    h.in_valid.next = valid;
                    h.in_class.next = rng.gen_range(0..8u64).into();
                    h.in_payload.next = entry(rng);
                    h.out_ready.next = ready;
                },
                |h| (h.in_ready.val(), h.out_valid.val()),
                |h| &mut h.clock,
            )
        };
    }

    #[test]
    fn codecs_as_the_slice_builds_them() {
        let bpc = codec_latency(HardwareCodec::Bpc);
        compressor!("bpc compressor", BpcCompressor::default(), bpc.compress);
        decompressor!("bpc decompressor", BpcDecompressor::default(), bpc.decompress);
        let zvc = codec_latency(HardwareCodec::Zvc);
        compressor!("zvc compressor", ZvcCompressor::default(), zvc.compress);
        decompressor!("zvc decompressor", ZvcDecompressor::default(), zvc.decompress);
        let mag = codec_latency(HardwareCodec::MagBdi(Mag::B32));
        compressor!("mag-bdi compressor", MagBdiCompressor::new(Mag::B32), mag.compress);
        decompressor!("mag-bdi decompressor", MagBdiDecompressor::new(Mag::B32), mag.decompress);
    }

    #[test]
    fn the_address_translator() {
        lock_step(
            "address translator",
            AddressTranslator::default,
            buddy_hdl::address_translator::LATENCY,
            |h, reset, valid, ready, rng| {
                h.reset.next = reset;
                h.in_valid.next = valid;
                h.in_va.next = rng.gen::<u64>().into();
                h.in_frame.next = (rng.gen::<u64>() & !0xFFFF).into();
                h.in_pte.next = rng.gen_range(0..1u64 << 27).into();
                h.in_class.next = rng.gen_range(0..16u64).into();
                h.out_ready.next = ready;
            },
            |h| (h.in_ready.val(), h.out_valid.val()),
            |h| &mut h.clock,
        );
    }
}
