//! Co-simulation of the emitted Verilog in an independent simulator (Icarus
//! Verilog): a generated self-checking testbench reads golden vectors with
//! `$readmemh`, drives the module's valid/ready streams with random bubbles
//! and backpressure, and compares every output in order.

use std::path::Path;
use std::process::Command;

/// The data ports of a stream module, in vector-line order.
///
/// Every module has `clock`, `reset`, `in_valid`, `in_ready`, `out_valid`,
/// `out_ready` besides these. A vector line is the hex concatenation of the
/// input fields then the expected output fields, each padded to a whole hex
/// digit, first field most significant.
#[derive(Clone, Copy, Debug)]
pub struct CosimPorts {
    pub module: &'static str,
    pub inputs: &'static [(&'static str, usize)],
    pub outputs: &'static [(&'static str, usize)],
}

/// `value` as `ceil(width/4)` hex digits; words as one hex field, the last
/// word first (the most significant, as Verilog prints a vector).
pub use buddy_hdl::lockstep::{hex_field, hex_words as words_hex};

/// Folder of `verilog-out/` that holds the shipped vector files; a
/// testbench run from `verilog-out/` (or a FuseSoC work folder) reads
/// `vectors/<file>` when no plusarg names a file.
pub const SHIPPED_DIR: &str = "vectors";

/// Verilog statements (inside an `initial` block) that set `path_var` and
/// `count_var` from `+<path_arg>=FILE +<count_arg>=N`, or without them from
/// the shipped file `vectors/<file>` of `shipped` lines; then check the
/// count against `1..=max` (`0..=max` when `allow_empty`). Every error ends
/// the run with `$fatal` (a non-zero exit).
pub(crate) fn read_vector_plusargs(
    tb: &str,
    (path_var, count_var): (&str, &str),
    (path_arg, count_arg): (&str, &str),
    file: &str,
    shipped: Option<usize>,
    max: &str,
    allow_empty: bool,
) -> String {
    let fallback = match shipped {
        Some(n) => format!("      {path_var} = \"{SHIPPED_DIR}/{file}\";\n      {count_var} = {n};\n"),
        None => format!("      $fatal(1, \"{tb}: usage: +{path_arg}=FILE +{count_arg}=N (no vectors shipped)\");\n"),
    };
    let min = if allow_empty { 0 } else { 1 };
    format!(
        "    if ($value$plusargs(\"{path_arg}=%s\", {path_var})) begin\n      \
         if (!$value$plusargs(\"{count_arg}=%d\", {count_var})) $fatal(1, \"{tb}: +{path_arg}=FILE needs +{count_arg}=N\");\n    \
         end else begin\n{fallback}    end\n    \
         if ({count_var} < {min} || {count_var} > {max}) $fatal(1, \"{tb}: {count_arg} %0d outside {min}..%0d\", {count_var}, {max});\n"
    )
}

/// Verilog statements that print the result line and end the run: `$finish`
/// when `failures` is 0, else `$fatal` (a non-zero exit).
pub(crate) fn finish(module: &str, passed: &str, failures: &str) -> String {
    format!(
        "$display(\"{module}: %0d passed, %0d failed\", {passed}, {failures});\n      \
         if ({failures} != 0) $fatal(1, \"{module}_tb: %0d failed\", {failures});\n      $finish;"
    )
}

fn padded(width: usize) -> usize {
    width.div_ceil(4) * 4
}

impl CosimPorts {
    /// Bits in one vector line.
    pub fn line_bits(&self) -> usize {
        self.inputs.iter().chain(self.outputs).map(|&(_, w)| padded(w)).sum()
    }

    /// (name, width, lsb offset in the line) of every field.
    fn fields(&self) -> Vec<(&'static str, usize, usize)> {
        let mut at = self.line_bits();
        self.inputs
            .iter()
            .chain(self.outputs)
            .map(|&(n, w)| {
                at -= padded(w);
                (n, w, at)
            })
            .collect()
    }

    /// The self-checking Verilog testbench `<module>_tb`, with no shipped
    /// vectors ([`Self::shipped_testbench`]).
    pub fn testbench(&self) -> String {
        self.shipped_testbench(None)
    }

    /// The self-checking Verilog testbench `<module>_tb`.
    ///
    /// Plusargs: `+vectors=FILE +count=N` (at most `MAX_VECTORS`; without
    /// them the `shipped` lines of `vectors/<module>.hex`), `+seed=S`,
    /// `+p_valid=P` and `+p_ready=P` (percent probability that the source
    /// offers / the sink accepts in a cycle; default 70 and 60). It ends with
    /// `<module>: N passed, M failed`, then `$finish`, or `$fatal` (a
    /// non-zero exit) on any failure, a timeout or bad plusargs.
    pub fn shipped_testbench(&self, shipped: Option<usize>) -> String {
        let m = self.module;
        let fields = self.fields();
        let n_in = self.inputs.len();
        let mut decl = String::new();
        let mut conn = String::new();
        let mut drive = String::new();
        let mut check = String::new();
        let mut show = String::new();
        for (i, &(name, w, lsb)) in fields.iter().enumerate() {
            if i < n_in {
                decl += &format!("  reg  [{}:0] {name};\n", w - 1);
                drive += &format!("      {name} = vectors[sent][{lsb} +: {w}];\n");
            } else {
                decl += &format!("  wire [{}:0] {name};\n", w - 1);
                check += &format!(" || ({name} !== vectors[received][{lsb} +: {w}])");
                show += &format!("        $display(\"  {name}: got %h expected %h\", {name}, vectors[received][{lsb} +: {w}]);\n");
            }
            conn += &format!(",\n    .{name}({name})");
        }
        let check = check.trim_start_matches(" || ");
        format!(
            r#"// {m}_tb: self-checking co-simulation testbench for {m}.
// Generated by buddy-delivery; regenerate with `make verilog`.
// Usage (Icarus, in verilog-out/): iverilog -g2005 -o {m}_tb.vvp tb/{m}_tb.v {m}.v && vvp {m}_tb.vvp [+vectors=FILE +count=N] [+seed=S] [+p_valid=70] [+p_ready=60]
// Without +vectors it reads the shipped vectors/{m}.hex; any failure ends with $fatal (exit status 1).
// A vector line is {line_bits} bits of hex: inputs then expected outputs (see CosimPorts).
`timescale 1ns/1ps
`default_nettype none
module {m}_tb;
  localparam MAX_VECTORS = 65536;
  localparam LINE_BITS = {line_bits};
  reg [LINE_BITS-1:0] vectors [0:MAX_VECTORS-1];
  reg [8*1024-1:0] path;
  integer count, seed, p_valid, p_ready, sent, received, failures, cycle;
  reg offering;
  reg clock, reset, in_valid, out_ready;
  wire in_ready, out_valid;
{decl}
  {m} dut (
    .clock(clock),
    .reset(reset),
    .in_valid(in_valid),
    .in_ready(in_ready),
    .out_valid(out_valid),
    .out_ready(out_ready){conn}
  );

  initial begin
{read}    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("p_valid=%d", p_valid)) p_valid = 70;
    if (!$value$plusargs("p_ready=%d", p_ready)) p_ready = 60;
    $readmemh(path, vectors, 0, count - 1);
    sent = 0; received = 0; failures = 0; cycle = 0; offering = 0;
    clock = 0; reset = 1; in_valid = 0; out_ready = 0;
    repeat (2) begin #5 clock = 1; #5 clock = 0; end
    reset = 0;
    forever begin #5 clock = 1; #5 clock = 0; end
  end

  // Stimulus changes on the falling edge, so nothing races the rising edge.
  always @(negedge clock) if (!reset) begin
    if (!offering && sent < count) offering = ($unsigned($random(seed)) % 100) < p_valid;
    in_valid = offering && sent < count;
    if (sent < count) begin
{drive}    end
    out_ready = ($unsigned($random(seed)) % 100) < p_ready;
  end

  always @(posedge clock) if (!reset) begin
    cycle = cycle + 1;
    if (out_valid && out_ready) begin
      if ({check}) begin
        failures = failures + 1;
        if (failures <= 5) begin
          $display("{m}_tb: vector %0d differs", received);
{show}        end
      end
      received = received + 1;
    end
    if (in_valid && in_ready) begin
      sent = sent + 1;
      offering = 0;
    end
    if (received == count) begin
      {pass}
    end
    if (cycle > 50 * count + 1000) begin
      $display("{m}_tb: timeout after %0d cycles: %0d sent, %0d received", cycle, sent, received);
      $display("{m}: %0d passed, %0d failed", received - failures, count - received + failures);
      $fatal(1, "{m}_tb: timeout");
    end
  end
endmodule
`default_nettype wire
"#,
            line_bits = self.line_bits(),
            read = read_vector_plusargs(
                &format!("{m}_tb"),
                ("path", "count"),
                ("vectors", "count"),
                &format!("{m}.hex"),
                shipped,
                "MAX_VECTORS",
                false
            ),
            pass = finish(m, "count - failures", "failures"),
        )
    }
}

/// What an Icarus run reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CosimReport {
    pub passed: usize,
    pub failed: usize,
    /// Everything the simulator printed.
    pub log: String,
}

/// Compile `design` (the module's Verilog) with `testbench` in Icarus and run
/// it on `vectors` (`count` lines).
///
/// # Errors
/// A message when `iverilog`/`vvp` are missing or fail, or when the run does
/// not end with the `N passed, M failed` line.
pub fn run_icarus(
    ports: &CosimPorts,
    design: &Path,
    testbench: &Path,
    vectors: &Path,
    count: usize,
    seed: u32,
    work_dir: &Path,
) -> Result<CosimReport, String> {
    let plusargs = [format!("+vectors={}", vectors.display()), format!("+count={count}"), format!("+seed={seed}")];
    run_icarus_with(ports.module, design, testbench, &plusargs, work_dir)
}

/// Compile `design` with `testbench` in Icarus and run `vvp` with
/// `plusargs` (e.g. `+vectors=FILE`); `module`'s result line is parsed.
///
/// # Errors
/// As [`run_icarus`].
pub fn run_icarus_with(module: &str, design: &Path, testbench: &Path, plusargs: &[String], work_dir: &Path) -> Result<CosimReport, String> {
    let exe = work_dir.join(format!("{module}_tb.vvp"));
    let out = Command::new("iverilog")
        .args(["-g2005", "-Wall", "-o"])
        .arg(&exe)
        .arg(testbench)
        .arg(design)
        .output()
        .map_err(|e| format!("cannot run iverilog (install it with `make deps`): {e}"))?;
    if !out.status.success() {
        return Err(format!("iverilog failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    let out = Command::new("vvp").arg("-n").arg(&exe).args(plusargs).output().map_err(|e| format!("cannot run vvp: {e}"))?;
    let log = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    exit_agrees(parse_result(module, log)?, out.status.success())
}

/// A testbench exits non-zero exactly when something failed (`$fatal`).
fn exit_agrees(report: CosimReport, success: bool) -> Result<CosimReport, String> {
    if success != (report.failed == 0) {
        return Err(format!(
            "the exit status ({}) disagrees with the result line:\n{}",
            if success { "0" } else { "non-zero" },
            report.log
        ));
    }
    Ok(report)
}

/// Build `testbench` with `design` into a Verilator executable (`verilator
/// --binary --timing`, two jobs) in `work_dir`; returns its path.
///
/// `-O0`: Verilator 5.006 at `-O2` drops the lock-step testbench's
/// failure count (it prints a mismatch, then reports 0 failed).
///
/// # Errors
/// `verilator` is missing or the build fails.
pub fn build_verilator(module: &str, design: &Path, testbench: &Path, work_dir: &Path) -> Result<std::path::PathBuf, String> {
    build_verilator_with(module, design, testbench, work_dir, "-O0")
}

/// [`build_verilator`] at optimization `opt` (`-O0` .. `-O3`); for speed
/// measurements (`-O2` and up share `-O0`'s results except the failure
/// count, see [`build_verilator`]).
///
/// # Errors
/// As [`build_verilator`].
pub fn build_verilator_with(
    module: &str,
    design: &Path,
    testbench: &Path,
    work_dir: &Path,
    opt: &str,
) -> Result<std::path::PathBuf, String> {
    let obj = work_dir.join("obj_dir");
    let out = Command::new("verilator")
        .args(["--binary", "--timing", opt, "-j", "2", "-Wno-fatal", "-Wno-lint", "-Wno-style", "--top-module"])
        .arg(format!("{module}_tb"))
        .arg("--Mdir")
        .arg(&obj)
        .arg(testbench)
        .arg(design)
        .output()
        .map_err(|e| format!("cannot run verilator (install it with `make deps`): {e}"))?;
    if !out.status.success() {
        return Err(format!("verilator failed:\n{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)));
    }
    Ok(obj.join(format!("V{module}_tb")))
}

/// Run a Verilator testbench executable with `plusargs`; `module`'s
/// result line is parsed as in [`run_icarus_with`].
///
/// # Errors
/// The executable cannot run or prints no result line.
pub fn run_verilated(module: &str, exe: &Path, plusargs: &[String]) -> Result<CosimReport, String> {
    let out = Command::new(exe).args(plusargs).output().map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let log = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    exit_agrees(parse_result(module, log)?, out.status.success())
}

/// Run a lock-step testbench executable (see
/// `controller::lockstep_testbench`) and time its replay: from the line
/// `<module>_tb: loaded ...` (printed and flushed after `$readmemh`) to the
/// end of the process, so reading the vector file is not counted.
///
/// # Errors
/// As [`run_verilated`], or no `loaded` line.
pub fn time_verilated(module: &str, exe: &Path, plusargs: &[String]) -> Result<(CosimReport, std::time::Duration), String> {
    use std::io::BufRead;
    let mut child = Command::new(exe)
        .args(plusargs)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let marker = format!("{module}_tb: loaded");
    let mut log = String::new();
    let mut loaded = None;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.map_err(|e| e.to_string())?;
        if loaded.is_none() && line.starts_with(&marker) {
            loaded = Some(std::time::Instant::now());
        }
        log += &line;
        log.push('\n');
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let elapsed = loaded.ok_or_else(|| format!("no '{marker}' line in the simulator output:\n{log}"))?.elapsed();
    log += &String::from_utf8_lossy(&out.stderr);
    Ok((parse_result(module, log)?, elapsed))
}

fn parse_result(module: &str, log: String) -> Result<CosimReport, String> {
    let prefix = format!("{module}: ");
    let line = log
        .lines()
        .find(|l| l.starts_with(&prefix) && l.ends_with(" failed"))
        .ok_or_else(|| format!("no result line in the simulator output:\n{log}"))?;
    let nums: Vec<usize> =
        line[prefix.len()..].split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
    match nums.as_slice() {
        [passed, failed] => Ok(CosimReport { passed: *passed, failed: *failed, log }),
        _ => Err(format!("unreadable result line: {line}")),
    }
}

/// Bits of one lock-step line of `inputs` then `outputs`, each field padded
/// to whole hex digits.
pub fn lockstep_line_bits(inputs: &[(&str, usize)], outputs: &[(&str, usize, &str)]) -> usize {
    inputs.iter().map(|&(_, w)| padded(w)).sum::<usize>() + outputs.iter().map(|&(_, w, _)| padded(w)).sum::<usize>()
}

/// A lock-step co-simulation testbench of `module`: one line per clock
/// cycle of a rust-hdl run, `inputs` then `outputs` (first field most
/// significant, each padded to whole hex digits); each line's inputs are
/// applied and, after they settle, every output is compared with the line
/// (an output with a qualifier only when the qualifier's expected value is
/// 1); then one clock cycle. Ends with `<module>: P passed, F failed`
/// (lines).
pub fn lockstep_testbench(module: &str, inputs: &[(&str, usize)], outputs: &[(&str, usize, &str)]) -> String {
    lockstep_testbench_shipped(module, inputs, outputs, None)
}

/// [`lockstep_testbench`] reading the `shipped` lines of
/// `vectors/<module>.hex` when no `+vectors=FILE +count=N` is given; any
/// failure ends with `$fatal` (a non-zero exit).
pub fn lockstep_testbench_shipped(
    module: &str,
    inputs: &[(&str, usize)],
    outputs: &[(&str, usize, &str)],
    shipped: Option<usize>,
) -> String {
    use std::collections::HashMap;
    let bits = lockstep_line_bits(inputs, outputs);
    let mut at = bits;
    let mut decl = String::new();
    let mut conn = String::new();
    let mut drive = String::new();
    let mut check = String::new();
    for &(name, w) in inputs {
        at -= padded(w);
        decl += &format!("  reg  [{}:0] {name};\n", w - 1);
        drive += &format!("      {name} = line[{at} +: {w}];\n");
        conn += &format!(",\n    .{name}({name})");
    }
    let mut offsets = HashMap::new();
    for &(name, w, _) in outputs {
        at -= padded(w);
        offsets.insert(name, at);
        decl += &format!("  wire [{}:0] {name};\n", w - 1);
        conn += &format!(",\n    .{name}({name})");
    }
    for &(name, w, qualifier) in outputs {
        let lsb = offsets[name];
        let cond = if qualifier.is_empty() { String::new() } else { format!("line[{}] && ", offsets[qualifier]) };
        check += &format!(
            "      if ({cond}{name} !== line[{lsb} +: {w}]) begin\n        bad = 1;\n        if (failures < 5) $display(\"{module}_tb: cycle %0d {name}: got %h expected %h\", i, {name}, line[{lsb} +: {w}]);\n      end\n"
        );
    }
    format!(
        r#"// {module}_tb: lock-step co-simulation testbench for {module}.
// Generated by buddy-delivery; regenerate with `make verilog`.
// Usage (Icarus, in verilog-out/): iverilog -g2005 -o {module}_tb.vvp tb/{module}_tb.v {module}.v && vvp {module}_tb.vvp [+vectors=FILE +count=N]
// Without +vectors it reads the shipped vectors/{module}.hex; any failure ends with $fatal (exit status 1).
// A line is {bits} bits of hex, one per clock cycle of a rust-hdl run of
// {module}: its inputs, then its outputs; the inputs are applied, the
// outputs compared after they settle, then the clock rises.
`timescale 1ns/1ps
`default_nettype none
module {module}_tb;
  localparam MAX_LINES = 200000;
  localparam LINE_BITS = {bits};
  reg [LINE_BITS-1:0] lines [0:MAX_LINES-1];
  reg [LINE_BITS-1:0] line;
  reg [8*1024-1:0] path;
  integer count, i, failures;
  reg bad;
  reg clock;
{decl}
  {module} dut (
    .clock(clock){conn}
  );

  initial begin
{read}    $readmemh(path, lines, 0, count - 1);
    // Marks the end of loading, for timing the replay alone.
    $display("{module}_tb: loaded %0d lines", count);
    $fflush;
    failures = 0;
    clock = 0;
    for (i = 0; i < count; i = i + 1) begin
      line = lines[i];
{drive}      #4;
      bad = 0;
{check}      if (bad) failures = failures + 1;
      #1 clock = 1;
      #5 clock = 0;
    end
    {pass}
  end
endmodule
`default_nettype wire
"#,
        read = read_vector_plusargs(
            &format!("{module}_tb"),
            ("path", "count"),
            ("vectors", "count"),
            &format!("{module}.hex"),
            shipped,
            "MAX_LINES",
            false
        ),
        pass = finish(module, "count - failures", "failures"),
    )
}
