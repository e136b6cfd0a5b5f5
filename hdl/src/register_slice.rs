//! A full-throughput valid/ready register slice (skid buffer).

use rust_hdl::prelude::*;
use buddy_hdl_macros::SettleBlock;

/// Valid/ready register slice with a skid register, as AXI-Stream register
/// slices are built (verilog-axis `axis_register`, skid-buffer mode).
///
/// ```text
///            +-------------+
///  in_valid->|  main  skid |->out_valid
///  in_data ->|  reg   reg  |->out_data
///  in_ready<-| (!skid_full)|<-out_ready
///            +-------------+
/// ```
///
/// - Every output is driven by a flip-flop: `in_ready` is `!skid_valid`, so
///   there is no combinational path from any input port to any output port.
/// - Throughput: one transfer per cycle (II = 1) with `out_ready` held high.
/// - Latency: 1 cycle from an accepted input to `out_valid`.
/// - Storage: 2 entries of `T` (main and skid); when the consumer stalls, the
///   value already accepted goes into the skid register and `in_ready` drops
///   the next cycle.
/// - `out_data` is stable while `out_valid && !out_ready`.
/// - `reset` (synchronous, active high) empties both registers.
#[derive(SettleBlock)]
pub struct RegisterSlice<T: Synth> {
    _settle: crate::settle::Settle,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_data: Signal<In, T>,
    pub in_ready: Signal<Out, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub out_data: Signal<Out, T>,
    pub out_ready: Signal<In, Bit>,
    main_valid: DFF<Bit>,
    main_data: DFF<T>,
    skid_valid: DFF<Bit>,
    skid_data: DFF<T>,
    load_main: Signal<Local, Bit>,
    load_skid: Signal<Local, Bit>,
    main_source: Signal<Local, T>,
}

impl<T: Synth> Default for RegisterSlice<T> {
    fn default() -> Self {
        Self {
            _settle: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_ready: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_ready: Default::default(),
            main_valid: Default::default(),
            main_data: Default::default(),
            skid_valid: Default::default(),
            skid_data: Default::default(),
            load_main: Default::default(),
            load_skid: Default::default(),
            main_source: Default::default(),
        }
    }
}

impl<T: Synth> Logic for RegisterSlice<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, main_valid, main_data, skid_valid, skid_data);
        self.in_ready.next = !self.skid_valid.q.val();
        self.out_valid.next = self.main_valid.q.val();
        self.out_data.next = self.main_data.q.val();
        // Written as `if load { d = source }` over a held register so that
        // synthesis maps each register to a clock enable and one 2:1 mux.
        // The main register loads when the consumer takes its value or when
        // both registers are empty; the skid register catches the input that
        // was accepted while the consumer stalled.
        self.load_main.next = self.out_ready.val() | (!self.skid_valid.q.val() & !self.main_valid.q.val());
        self.load_skid.next = !self.skid_valid.q.val() & self.main_valid.q.val() & !self.out_ready.val();
        self.main_source.next = self.in_data.val();
        if self.skid_valid.q.val() {
            self.main_source.next = self.skid_data.q.val();
        }
        if self.load_main.val() {
            self.main_valid.d.next = self.skid_valid.q.val() | self.in_valid.val();
            self.main_data.d.next = self.main_source.val();
        }
        if self.load_skid.val() {
            self.skid_valid.d.next = self.in_valid.val();
            self.skid_data.d.next = self.in_data.val();
        }
        if self.skid_valid.q.val() & self.out_ready.val() {
            self.skid_valid.d.next = false;
        }
        if self.reset.val() {
            self.main_valid.d.next = false;
            self.skid_valid.d.next = false;
        }
    }
}
