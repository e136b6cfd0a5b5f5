//! [`buddy_hdl::register_slice::RegisterSlice`]: a valid/ready register
//! slice with a skid register, two places for a value. The model carries
//! any `T` (the slice's data word or whatever the composed model tracks
//! in its place): the block never looks at its data.

use std::fmt::Debug;

use crate::CycleModel;

#[derive(Debug, Clone, Default)]
pub struct RegisterSliceIn<T> {
    pub reset: bool,
    pub in_valid: bool,
    pub in_data: T,
    pub out_ready: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegisterSliceOut<T> {
    /// `!skid_valid`: a register output, whatever the inputs.
    pub in_ready: bool,
    /// `out_data`, `None` when `out_valid` is low.
    pub out: Option<T>,
}

/// The main register (what `out_*` shows) and the skid register (the
/// value accepted while the consumer stalled).
#[derive(Debug, Clone, Default)]
pub struct RegisterSliceModel<T> {
    main: Option<T>,
    skid: Option<T>,
}

impl<T> RegisterSliceModel<T> {
    /// Values held (0-2).
    pub fn len(&self) -> usize {
        self.main.is_some() as usize + self.skid.is_some() as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Clone + Default + Debug + PartialEq> CycleModel for RegisterSliceModel<T> {
    type In = RegisterSliceIn<T>;
    type Out = RegisterSliceOut<T>;
    fn outputs(&self, _: &Self::In) -> Self::Out {
        RegisterSliceOut { in_ready: self.skid.is_none(), out: self.main.clone() }
    }
    fn clock(&mut self, i: &Self::In) {
        if i.reset {
            self.main = None;
            self.skid = None;
            return;
        }
        let offered = i.in_valid.then(|| i.in_data.clone());
        // The kernel's two load enables, from the registers before the edge.
        let load_main = i.out_ready || (self.skid.is_none() && self.main.is_none());
        let load_skid = self.skid.is_none() && self.main.is_some() && !i.out_ready;
        if load_main {
            // The skid register drains first; the input is only taken
            // (`in_ready`) when the skid register is empty.
            self.main = self.skid.take().or(offered);
        } else if load_skid {
            self.skid = offered;
        }
        // (With the skid register full and the consumer stalled nothing moves.)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lockstep::{edge, settle};
    use buddy_hdl::register_slice::RegisterSlice;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use rust_hdl::prelude::*;

    fn hardware_out(h: &RegisterSlice<Bits<16>>) -> RegisterSliceOut<u16> {
        RegisterSliceOut { in_ready: h.in_ready.val(), out: h.out_valid.val().then(|| h.out_data.val().to_u64() as u16) }
    }

    #[test]
    fn the_model_equals_the_hardware_every_cycle() {
        // (p_valid, p_ready, producer holds its value until taken) per
        // seed: balanced, producer-bound, consumer-bound, both busy; and
        // a producer that withdraws and changes its value at will (the
        // model is exact for any inputs, not only legal ones).
        let rates = [(0.5, 0.5, true), (0.9, 0.3, true), (0.3, 0.9, true), (0.95, 0.95, true), (0.6, 0.6, false)];
        for (seed, &(p_valid, p_ready, holds)) in rates.iter().enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(seed as u64);
            let mut hw = RegisterSlice::<Bits<16>>::default();
            hw.connect_all();
            let mut model = RegisterSliceModel::<u16>::default();
            let (mut transfers, mut skids, mut stalls, mut resets) = (0, 0, 0, 0);
            let mut next_value = 0u16;
            let mut offer: Option<u16> = None;
            let mut expected = std::collections::VecDeque::new();
            for cycle in 0..4_000 {
                let reset = cycle < 2 || rng.gen_bool(0.002);
                if !holds {
                    offer = None;
                }
                if offer.is_none() && rng.gen_bool(p_valid) {
                    offer = Some(next_value);
                    next_value = next_value.wrapping_add(1);
                }
                let i = RegisterSliceIn {
                    reset,
                    in_valid: offer.is_some(),
                    in_data: offer.unwrap_or_else(|| rng.gen()),
                    out_ready: rng.gen_bool(p_ready),
                };
                hw.reset.next = i.reset;
                hw.in_valid.next = i.in_valid;
                hw.in_data.next = (i.in_data as u64).into();
                hw.out_ready.next = i.out_ready;
                settle(&mut hw);
                let want = hardware_out(&hw);
                assert_eq!(model.outputs(&i), want, "seed {seed}, cycle {cycle}");
                // End to end: values leave in the order they came.
                if let Some(v) = want.out.filter(|_| i.out_ready && !reset) {
                    assert_eq!(expected.pop_front(), Some(v), "seed {seed}, cycle {cycle}");
                    transfers += 1;
                }
                stalls += (want.out.is_some() && !i.out_ready) as usize;
                skids += !want.in_ready as usize;
                if i.in_valid && want.in_ready && !reset {
                    expected.push_back(i.in_data);
                    offer = None;
                }
                if reset {
                    resets += 1;
                    expected.clear();
                    offer = None;
                }
                model.clock(&i);
                edge(&mut hw, |h| &mut h.clock);
            }
            eprintln!("register slice seed {seed}: {transfers} transfers, {skids} skid-full cycles, {stalls} stalls, {resets} resets");
            assert!(
                transfers > 500 && skids > 0 && stalls > 0 && resets > 0,
                "seed {seed}: {transfers} transfers, {skids} skid-full cycles, {stalls} stalls, {resets} resets"
            );
        }
    }
}
