//! What `#[derive(SettleBlock)]` (crate `buddy-hdl-macros`) keeps in each
//! block to simulate it faster in rust-hdl: whether anything in the block
//! changed in its last settle pass. Simulation only; no Verilog.

/// Whether any signal of a block (its ports, its own signals, the blocks
/// inside it) changed in the block's last `update_all`. A block whose
/// inputs did not change in this pass and in which nothing changed in the
/// last one would compute exactly what it computed then, so
/// `update_all` leaves it as it is. Starts `true`, so that every block is
/// updated on the first pass.
#[derive(Clone, Copy, Debug)]
pub struct Settle {
    pub changed: bool,
}

impl Default for Settle {
    fn default() -> Self {
        Self { changed: true }
    }
}

#[cfg(test)]
mod tests {
    //! The same two-level circuit built with rust-hdl's `LogicBlock` and
    //! with `SettleBlock`: every output equal on every cycle under
    //! pseudo-random inputs, in fewer update passes.
    use buddy_hdl_macros::SettleBlock;
    use rust_hdl::prelude::*;

    macro_rules! circuit {
        ($derive:ident, $inner:ident, $outer:ident) => {
            #[derive($derive, Default)]
            struct $inner {
                _settle: super::Settle,
                clock: Signal<In, Clock>,
                a: Signal<In, Bits<8>>,
                b: [Signal<In, Bits<8>>; 2],
                y: Signal<Out, Bits<8>>,
                acc: DFF<Bits<8>>,
            }

            impl Logic for $inner {
                #[hdl_gen]
                fn update(&mut self) {
                    dff_setup!(self, clock, acc);
                    self.acc.d.next = self.b[0].val() ^ self.b[1].val() ^ self.a.val();
                    self.y.next = self.acc.q.val() + self.a.val();
                }
            }

            #[derive($derive, Default)]
            struct $outer {
                _settle: super::Settle,
                clock: Signal<In, Clock>,
                x: Signal<In, Bits<8>>,
                hold: Signal<In, Bit>,
                z: Signal<Out, Bits<8>>,
                first: $inner,
                second: $inner,
            }

            impl Logic for $outer {
                #[hdl_gen]
                fn update(&mut self) {
                    self.first.clock.next = self.clock.val();
                    self.second.clock.next = self.clock.val();
                    self.first.a.next = self.x.val();
                    self.first.b[0].next = self.second.y.val();
                    self.first.b[1].next = self.x.val();
                    self.second.a.next = self.first.y.val();
                    self.second.b[0].next = self.first.y.val();
                    self.second.b[1].next = self.second.y.val();
                    if self.hold.val() {
                        self.second.b[1].next = 0.into();
                    }
                    self.z.next = self.second.y.val() ^ self.first.y.val();
                }
            }
        };
    }

    circuit!(LogicBlock, InnerRef, OuterRef);
    circuit!(SettleBlock, InnerSettle, OuterSettle);

    fn settle(b: &mut dyn Block, passes: &mut u64) {
        for _ in 0..100 {
            *passes += 1;
            b.update_all();
            if !b.has_changed() {
                return;
            }
        }
        panic!("no fixed point in 100 passes");
    }

    #[test]
    fn settle_block_computes_what_logic_block_computes_in_fewer_passes() {
        let (mut r, mut s) = (OuterRef::default(), OuterSettle::default());
        r.connect_all();
        s.connect_all();
        let (mut pr, mut ps) = (0, 0);
        let mut seed = 0x2545_f491_u64;
        for cycle in 0..2000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Inputs that sometimes stay put, so that blocks get skipped.
            if seed >> 62 != 0 {
                r.x.next = ((seed >> 33) & 0xFF).into();
                s.x.next = r.x.next;
            }
            r.hold.next = (seed >> 20) & 7 == 0;
            s.hold.next = r.hold.next;
            settle(&mut r, &mut pr);
            settle(&mut s, &mut ps);
            assert_eq!(r.z.val(), s.z.val(), "cycle {cycle}: before the edge");
            for level in [true, false] {
                r.clock.next = Clock { clk: level };
                s.clock.next = Clock { clk: level };
                settle(&mut r, &mut pr);
                settle(&mut s, &mut ps);
                assert_eq!(r.z.val(), s.z.val(), "cycle {cycle}: clock {level}");
                assert_eq!(r.second.acc.q.val(), s.second.acc.q.val(), "cycle {cycle}");
            }
        }
        assert!(ps < pr, "SettleBlock took {ps} passes, LogicBlock {pr}");
    }
}
