//! Clocks wired straight to the sub-modules that take them.
//!
//! rust-hdl hands a module's clock to each sub-module (every register is
//! one) through a `reg` of the parent that its `always @(*)` block copies
//! the clock into (`j_id$clock = clock;`). Simulators and synthesis see
//! the same logic either way, but a clock through a combinational block
//! is what an FPGA engineer checks first (a gated or delayed clock), it
//! costs an evaluation per edge in an event-driven simulator, and it
//! hides the clock net from timing constraints. [`straight_clocks`]
//! removes such a copy and connects the sub-module's port to the clock
//! input itself.

use super::single_assignment::{map_identifiers, modules};
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

static COPY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*([A-Za-z_][A-Za-z0-9_$]*)\s*=\s*([A-Za-z_][A-Za-z0-9_$]*)\s*;\s*$").expect("regex"));
static CLOCK_CONNECTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\.([A-Za-z0-9_$]*clock)\(([A-Za-z_][A-Za-z0-9_$]*)\),?\s*$").expect("regex"));

/// `verilog` with every sub-module clock port connected to its module's
/// clock input directly. A port `.…clock(x)` is rewired when `x` is a
/// one-bit `reg` of the module that its `always @(*)` block sets once, at
/// its top level, to a one-bit input of the module (`x = clock;`), and
/// that nothing else reads; `x`'s declaration and that statement go.
/// Behaviour is unchanged.
///
/// # Errors
/// Text without rust-hdl's module layout (see
/// [`super::repeated_crossing_assignments`]).
pub fn straight_clocks(verilog: &str) -> Result<String, String> {
    let lines: Vec<&str> = verilog.lines().collect();
    let mut dropped: BTreeSet<usize> = BTreeSet::new();
    let mut rewired: BTreeMap<usize, (String, String)> = BTreeMap::new();
    for m in modules(&lines)? {
        let Some((start, end)) = m.block else { continue };
        let counts = m.assignments(&lines);
        let top_indent = lines[start].len() - lines[start].trim_start().len() + 4;
        let (first, last) = m.lines;
        // Identifier uses in the module, per name.
        let mut uses: BTreeMap<String, usize> = BTreeMap::new();
        for line in &lines[first + 1..last] {
            map_identifiers(line, |w| {
                *uses.entry(w.to_string()).or_default() += 1;
                None
            });
        }
        let mut copies: BTreeMap<String, (String, usize)> = BTreeMap::new();
        for (k, line) in lines.iter().enumerate().take(end).skip(start + 1) {
            let indent = line.len() - line.trim_start().len();
            let Some(c) = COPY.captures(line).filter(|_| indent == top_indent) else { continue };
            let (x, y) = (c[1].to_string(), c[2].to_string());
            let one_bit_reg = matches!(m.declared.get(&x), Some((None, w)) if w.is_empty());
            let one_bit_input = matches!(m.declared.get(&y), Some((Some(d), w)) if d == "input" && w.is_empty());
            if one_bit_reg && one_bit_input && counts.get(&x) == Some(&1) {
                copies.insert(x, (y, k));
            }
        }
        let mut connections: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (k, line) in lines.iter().enumerate().take(last).skip(first + 1) {
            if let Some(c) = CLOCK_CONNECTION.captures(line) {
                if copies.contains_key(&c[2]) {
                    connections.entry(c[2].to_string()).or_default().push(k);
                }
            }
        }
        for (x, (y, assignment)) in copies {
            let Some(wired) = connections.get(&x) else { continue };
            // Declared, assigned, connected: nothing else reads it.
            if uses.get(&x) != Some(&(2 + wired.len())) {
                continue;
            }
            let declaration = (first + 1..start)
                .find(|&k| {
                    let t = lines[k].trim();
                    t.starts_with("reg ") && t.trim_start_matches("reg").trim() == format!("{x};")
                })
                .ok_or_else(|| format!("module {}: {x} is declared where the clock pass does not look", m.name))?;
            dropped.insert(declaration);
            dropped.insert(assignment);
            for &k in wired {
                rewired.insert(k, (x.clone(), y.clone()));
            }
        }
    }
    let mut out = String::with_capacity(verilog.len());
    for (k, line) in lines.iter().enumerate() {
        if dropped.contains(&k) {
            continue;
        }
        match rewired.get(&k) {
            Some((x, y)) => out.push_str(&line.replacen(&format!("({x})"), &format!("({y})"), 1)),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOP: &str = "\
module top(clock,d,q);
    input wire  clock;
    input wire  [3:0] d;
    output reg  [3:0] q;
    reg  [3:0] r$d;
    wire  [3:0] r$q;
    reg  r$clock;
    reg  g$clock;
    reg  h$clock;
    top$r r(
        .d(r$d),
        .q(r$q),
        .clock(r$clock)
    );
    top$g g(
        .clock(g$clock)
    );
    top$h h(
        .read_clock(h$clock),
        .write_clock(h$clock)
    );
    always @(*) begin
        r$clock = clock;
        g$clock = clock;
        h$clock = clock;
        r$d = d;
        if (d[0]) begin
            g$clock = 1'b0;
        end
        q = r$q;
    end
endmodule // top
";

    #[test]
    fn wires_plain_clock_copies_straight_and_keeps_gated_ones() {
        let out = straight_clocks(TOP).unwrap();
        assert!(out.contains(".clock(clock)\n"), "{out}");
        assert!(out.contains(".read_clock(clock),\n") && out.contains(".write_clock(clock)\n"), "{out}");
        assert!(!out.contains("r$clock") && !out.contains("h$clock"), "{out}");
        // g$clock is set twice (gated): kept as it is.
        assert!(out.contains("reg  g$clock;") && out.contains("g$clock = clock;") && out.contains(".clock(g$clock)"), "{out}");
        assert_eq!(out.lines().count(), TOP.lines().count() - 4);
    }

    #[test]
    fn keeps_a_copy_that_logic_reads() {
        let read = TOP.replace("q = r$q;", "q = r$q & {4{r$clock}};");
        let out = straight_clocks(&read).unwrap();
        assert!(out.contains("r$clock = clock;") && out.contains(".clock(r$clock)"), "{out}");
    }
}
