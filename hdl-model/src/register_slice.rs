//! [`buddy_hdl::register_slice::RegisterSlice`]: a main register and a skid
//! register; `in_ready` is `!skid`, `out_valid` the main register.

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
    pub in_ready: bool,
    /// `out_valid` and `out_data`.
    pub out: Option<T>,
}

#[derive(Debug, Clone, Default)]
pub struct RegisterSliceModel<T> {
    main: Option<T>,
    skid: Option<T>,
}

impl<T> RegisterSliceModel<T> {
    pub fn is_empty(&self) -> bool {
        self.main.is_none() && self.skid.is_none()
    }
}

impl<T: Clone + Default + PartialEq + std::fmt::Debug> CycleModel for RegisterSliceModel<T> {
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
        let input = i.in_valid.then(|| i.in_data.clone());
        let load_main = i.out_ready || (self.skid.is_none() && self.main.is_none());
        let load_skid = self.skid.is_none() && self.main.is_some() && !i.out_ready;
        if load_main {
            // The skid register's value first; the input waits while it is full.
            self.main = match self.skid.take() {
                Some(s) => Some(s),
                None => input,
            };
        } else if load_skid {
            self.skid = input;
        }
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

    #[test]
    fn the_model_equals_the_hardware_every_cycle() {
        for seed in 0..4u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut hw = RegisterSlice::<Bits<16>>::default();
            hw.connect_all();
            let mut model = RegisterSliceModel::<u64>::default();
            let (mut skids, mut moved) = (0, 0);
            for cycle in 0..3_000 {
                let i = RegisterSliceIn {
                    reset: cycle < 2 || rng.gen_bool(0.003),
                    in_valid: rng.gen_bool(0.7),
                    in_data: rng.gen_range(0..1u64 << 16),
                    out_ready: rng.gen_bool(0.6),
                };
                hw.reset.next = i.reset;
                hw.in_valid.next = i.in_valid;
                hw.in_data.next = i.in_data.into();
                hw.out_ready.next = i.out_ready;
                settle(&mut hw);
                let want = RegisterSliceOut { in_ready: hw.in_ready.val(), out: hw.out_valid.val().then(|| hw.out_data.val().to_u64()) };
                assert_eq!(model.outputs(&i), want, "seed {seed}, cycle {cycle}");
                skids += !want.in_ready as usize;
                moved += (want.out.is_some() && i.out_ready) as usize;
                model.clock(&i);
                edge(&mut hw, |h| &mut h.clock);
            }
            assert!(skids > 100 && moved > 1_000, "seed {seed}: {skids} cycles full, {moved} moved");
        }
    }
}
