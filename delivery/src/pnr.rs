//! The place-and-route wrapper of a delivered module (`buddy pnr`, issue
//! #52): every port of the module registered, so that every path through
//! it starts and ends at a flip-flop and is timed, on three device pins.
//!
//! A module's ports are far more bits than an FPGA has pins (a
//! memory-entry alone is 1,024), so the wrapper's top has only `clock`,
//! `sin` and `sout`:
//! - every input bit but `clock` is a flip-flop of one shift chain fed
//!   from `sin` (no enable, no logic: each drives only its port);
//! - every output bit is registered, and the registers are XOR-folded four
//!   to one per pipeline stage down to `sout` (one LUT level a stage), so
//!   no output can be optimized away and no wrapper path is deeper than a
//!   LUT.
//!
//! The wrapper's flip-flops are counted by [`Wrapper::flip_flops`] so that
//! a report can tell them from the module's.

use std::fmt::Write;

/// The generated top module and what it adds to the design.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wrapper {
    /// Verilog of module [`Wrapper::TOP`], instantiating the module as `core`.
    pub verilog: String,
    /// Flip-flops of the wrapper itself (input chain, output registers, XOR stages).
    pub flip_flops: usize,
}

impl Wrapper {
    /// The wrapper's module name.
    pub const TOP: &'static str = "pnr_top";
}

/// The wrapper of module `top` with `ports` (direction, bits, name in
/// declaration order, as [`crate::interface::ports`] reads them).
///
/// # Errors
/// The module has no `clock` input, no other input, or no output.
pub fn wrapper(top: &str, ports: &[(&str, usize, String)]) -> Result<Wrapper, String> {
    if !ports.iter().any(|(d, b, n)| *d == "input" && *b == 1 && n == "clock") {
        return Err(format!("{top} has no 1-bit `clock` input"));
    }
    let inputs: Vec<_> = ports.iter().filter(|(d, _, n)| *d == "input" && n != "clock").collect();
    let outputs: Vec<_> = ports.iter().filter(|(d, _, _)| *d == "output").collect();
    let ni: usize = inputs.iter().map(|p| p.1).sum();
    let no: usize = outputs.iter().map(|p| p.1).sum();
    if ni == 0 || no == 0 {
        return Err(format!("{top} needs an input besides `clock` and an output ({ni} input bits, {no} output bits)"));
    }
    let mut v = String::new();
    let mut ff = 0;
    let _ = writeln!(v, "// Place-and-route wrapper of {top}: every port registered (buddy_delivery::pnr).");
    let _ = writeln!(v, "module {}(input clock, input sin, output sout);", Wrapper::TOP);
    // (`{1'b0, ...}` keeps a 1-bit chain legal Verilog.)
    let _ = writeln!(v, "  reg [{ni}:0] chain = 0;");
    let _ = writeln!(v, "  always @(posedge clock) chain <= {{chain[{}:0], sin}};", ni - 1);
    ff += ni + 1;
    let _ = writeln!(v, "  wire [{}:0] core_out;", no - 1);
    let _ = writeln!(v, "  reg [{}:0] out_q = 0;", no - 1);
    let _ = writeln!(v, "  always @(posedge clock) out_q <= core_out;");
    ff += no;
    let mut conn = vec![".clock(clock)".to_string()];
    let mut at = 1; // chain[0] is `sin`'s first flip-flop, kept off the ports
    for (_, bits, name) in &inputs {
        conn.push(format!(".{name}(chain[{}:{at}])", at + bits - 1));
        at += bits;
    }
    at = 0;
    for (_, bits, name) in &outputs {
        conn.push(format!(".{name}(core_out[{}:{at}])", at + bits - 1));
        at += bits;
    }
    let _ = writeln!(v, "  {top} core(\n    {}\n  );", conn.join(",\n    "));
    let (mut from, mut n, mut k) = ("out_q".to_string(), no, 0);
    while n > 1 {
        let m = n.div_ceil(4);
        let _ = writeln!(v, "  reg [{}:0] fold{k} = 0;", m - 1);
        let _ = writeln!(v, "  always @(posedge clock) begin");
        for j in 0..m {
            let bits: Vec<String> = (4 * j..(4 * j + 4).min(n)).map(|b| format!("{from}[{b}]")).collect();
            let _ = writeln!(v, "    fold{k}[{j}] <= {};", bits.join(" ^ "));
        }
        let _ = writeln!(v, "  end");
        ff += m;
        from = format!("fold{k}");
        n = m;
        k += 1;
    }
    let _ = writeln!(v, "  assign sout = {from}[0];\nendmodule");
    Ok(Wrapper { verilog: v, flip_flops: ff })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ports() -> Vec<(&'static str, usize, String)> {
        vec![
            ("input", 1, "clock".into()),
            ("input", 1, "reset".into()),
            ("input", 8, "in_data".into()),
            ("output", 1, "in_ready".into()),
            ("output", 16, "out_data".into()),
        ]
    }

    #[test]
    fn every_port_bit_is_a_flip_flop_and_the_outputs_fold_to_one_pin() {
        let w = wrapper("m", &ports()).unwrap();
        assert!(w.verilog.contains(".reset(chain[1:1])"), "{}", w.verilog);
        assert!(w.verilog.contains(".in_data(chain[9:2])"), "{}", w.verilog);
        assert!(w.verilog.contains(".in_ready(core_out[0:0])") && w.verilog.contains(".out_data(core_out[16:1])"), "{}", w.verilog);
        // 17 output bits: 5, then 2, then 1 XOR stages.
        assert!(w.verilog.contains("fold0[4] <= out_q[16];") && w.verilog.contains("fold2[0] <= fold1[0] ^ fold1[1];"), "{}", w.verilog);
        assert!(w.verilog.contains("assign sout = fold2[0];"), "{}", w.verilog);
        assert_eq!(w.flip_flops, 10 + 17 + 5 + 2 + 1);
    }

    #[test]
    fn a_module_without_clock_or_outputs_is_refused() {
        let no_clock: Vec<_> = ports().into_iter().filter(|p| p.2 != "clock").collect();
        assert!(wrapper("m", &no_clock).unwrap_err().contains("clock"));
        let no_out: Vec<_> = ports().into_iter().filter(|p| p.0 == "input").collect();
        assert!(wrapper("m", &no_out).unwrap_err().contains("output"));
    }
}
