//! Every signal that crosses a module boundary is assigned once per
//! evaluation of the `always @(*)` block that drives it.
//!
//! rust-hdl emits a block's body as written in `update`: a default, then
//! conditional overrides (`state$d = state$q; ... if (..) state$d = ..;`).
//! Inside one module that is harmless, but when such a signal feeds another
//! module's `always @(*)` and that block feeds back (a valid/ready pair), an
//! event-driven simulator sees it go 1-0-1 in zero time and wakes the other
//! block on every edge; the two blocks can wake each other forever (the
//! `BuddyController` hung Icarus at cycle 13 this way). Verilator, which
//! orders the blocks statically, did not notice.
//!
//! [`single_assignment`] gives each such signal a block-local copy
//! (`<name>_comb`, a module-level `reg` of the same width that nothing else
//! reads): the block computes into the copy and assigns the signal once, at
//! its end. Synthesis sees the same logic. [`repeated_crossing_assignments`]
//! is the check the tests run on every emitted file.

use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

/// Suffix of the block-local copy of a signal.
pub const COPY_SUFFIX: &str = "_comb";

/// A signal crossing a module boundary that one `always @(*)` block assigns
/// more than once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepeatedAssignment {
    pub module: String,
    pub signal: String,
    /// Assignment statements to it in the block.
    pub count: usize,
}

static DECLARATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:(input|output)\s+)?(?:reg|wire)\s+(?:signed\s+)?(\[[^\]]*\]\s*)?([A-Za-z_][A-Za-z0-9_$]*)\s*;").expect("regex")
});
static CONNECTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\.[A-Za-z_][A-Za-z0-9_$]*\(([A-Za-z_][A-Za-z0-9_$]*)\)").expect("regex"));
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*([A-Za-z_][A-Za-z0-9_$]*)\s*(\[[^;]*?\])?\s*=[^=]").expect("regex"));

/// One module of the text: its line range, declarations and combinational block.
pub(super) struct Module {
    pub(super) name: String,
    /// name -> (direction, width text such as "[63:0] " or "")
    pub(super) declared: BTreeMap<String, (Option<String>, String)>,
    /// Signals wired to a sub-module instance's port.
    pub(super) connected: BTreeSet<String>,
    /// Line index of `always @(*) begin` and of its closing `end`.
    pub(super) block: Option<(usize, usize)>,
    /// Line index of `module` and of `endmodule`.
    pub(super) lines: (usize, usize),
}

impl Module {
    fn crossing(&self, name: &str) -> bool {
        self.connected.contains(name) || matches!(self.declared.get(name), Some((Some(d), _)) if d == "output")
    }

    /// Assignment statements per assigned signal in the block.
    pub(super) fn assignments(&self, lines: &[&str]) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        if let Some((start, end)) = self.block {
            for line in &lines[start + 1..end] {
                if let Some(c) = ASSIGNMENT.captures(line) {
                    *counts.entry(c[1].to_string()).or_insert(0) += 1;
                }
            }
        }
        counts
    }
}

pub(super) fn modules(lines: &[&str]) -> Result<Vec<Module>, String> {
    let mut out = Vec::new();
    let mut current: Option<Module> = None;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("module ") {
            let name = rest.split(|c: char| c == '(' || c == ';' || c.is_whitespace()).next().unwrap_or("").to_string();
            current = Some(Module { name, declared: BTreeMap::new(), connected: BTreeSet::new(), block: None, lines: (i, i) });
            continue;
        }
        let Some(m) = current.as_mut() else { continue };
        if t.starts_with("endmodule") {
            m.lines.1 = i;
            out.push(current.take().expect("in a module"));
            continue;
        }
        if let Some(c) = DECLARATION.captures(line) {
            let width = c.get(2).map_or(String::new(), |w| w.as_str().trim().to_string() + " ");
            m.declared.insert(c[3].to_string(), (c.get(1).map(|d| d.as_str().to_string()), width));
        } else if let Some(c) = CONNECTION.captures(line) {
            m.connected.insert(c[1].to_string());
        } else if t.starts_with("always @(*)") {
            if m.block.is_some() {
                return Err(format!("module {}: more than one always @(*) block", m.name));
            }
            // rust-hdl indents the block's own `end` as deep as its `always`.
            let indent = &line[..line.len() - t.len()];
            let close = format!("{indent}end");
            let end = lines[i + 1..]
                .iter()
                .position(|l| l.trim_end() == close)
                .map(|k| i + 1 + k)
                .ok_or_else(|| format!("module {}: always @(*) block without its end", m.name))?;
            m.block = Some((i, end));
        }
    }
    if let Some(m) = current {
        return Err(format!("module {} has no endmodule", m.name));
    }
    Ok(out)
}

/// Signals crossing a module boundary (output ports and signals wired to a
/// sub-module's ports) that an `always @(*)` block of `verilog` assigns
/// more than once, by module.
///
/// # Errors
/// Text that does not have rust-hdl's module layout (a module without
/// `endmodule`, a block without its `end`, two combinational blocks).
pub fn repeated_crossing_assignments(verilog: &str) -> Result<Vec<RepeatedAssignment>, String> {
    let lines: Vec<&str> = verilog.lines().collect();
    let mut out = Vec::new();
    for m in modules(&lines)? {
        for (signal, count) in m.assignments(&lines) {
            if count > 1 && m.crossing(&signal) {
                out.push(RepeatedAssignment { module: m.name.clone(), signal, count });
            }
        }
    }
    Ok(out)
}

/// Replace whole-identifier occurrences of the keys of `names` in `line`
/// (not inside a based literal such as `32'hdead`, not in a comment).
pub(super) fn rename(line: &str, names: &BTreeMap<String, String>) -> String {
    map_identifiers(line, |w| names.get(w).cloned())
}

/// `line` with each identifier (a letter or `_`, then letters, digits,
/// `_` and `$`; not a system task, not inside a based literal such as
/// `32'hdead`, not in a `//` comment) replaced by `f`'s answer, or kept
/// where `f` answers `None`.
pub(super) fn map_identifiers(line: &str, mut f: impl FnMut(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(line.len() + 16);
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            out.push_str(&line[i..]);
            break;
        }
        if c == b'\'' {
            // A based literal: the quote, the base letter, then its digits.
            let start = i;
            i += 1;
            if i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push_str(&line[start..i]);
            continue;
        }
        if c == b'$' {
            // A system task or function: `$` then its name, kept.
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            out.push_str(&line[start..i]);
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            let word = &line[start..i];
            match f(word) {
                Some(new) => out.push_str(&new),
                None => out.push_str(word),
            }
            continue;
        }
        if c.is_ascii_digit() {
            // A number (possibly the size of a based literal): copied as is.
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push_str(&line[start..i]);
            continue;
        }
        let ch = line[i..].chars().next().expect("in bounds");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// `verilog` with every crossing signal that an `always @(*)` block
/// assigns more than once computed in a block-local copy and assigned once,
/// at the end of the block (see the module docs). Behaviour is unchanged.
///
/// # Errors
/// As [`repeated_crossing_assignments`], and a copy's name that is taken.
pub fn single_assignment(verilog: &str) -> Result<String, String> {
    let lines: Vec<&str> = verilog.lines().collect();
    let mods = modules(&lines)?;
    // Per line index: text to insert before it, and renamings of block lines.
    let mut insert_before: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    let mut renamed: BTreeMap<usize, BTreeMap<String, String>> = BTreeMap::new();
    for m in &mods {
        let Some((start, end)) = m.block else { continue };
        let mut names = BTreeMap::new();
        for (signal, count) in m.assignments(&lines) {
            if count < 2 || !m.crossing(&signal) {
                continue;
            }
            let copy = format!("{signal}{COPY_SUFFIX}");
            if m.declared.contains_key(&copy) {
                return Err(format!("module {}: cannot add {copy}, the name is taken", m.name));
            }
            let (_, width) = m.declared.get(&signal).ok_or_else(|| format!("module {}: {signal} is not declared", m.name))?;
            insert_before.entry(start).or_default().push(format!("    reg  {width}{copy};"));
            insert_before.entry(end).or_default().push(format!("        {signal} = {copy};"));
            names.insert(signal, copy);
        }
        if !names.is_empty() {
            for k in start + 1..end {
                renamed.insert(k, names.clone());
            }
        }
    }
    let mut out = String::with_capacity(verilog.len() + verilog.len() / 8);
    for (k, line) in lines.iter().enumerate() {
        if let Some(extra) = insert_before.get(&k) {
            for e in extra {
                out.push_str(e);
                out.push('\n');
            }
        }
        match renamed.get(&k) {
            Some(names) => out.push_str(&rename(line, names)),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slice and a cache: the slice's `req_valid` (wired to the cache) and
    /// `ready` (an output) are each assigned twice, `busy$d` once, `x` is
    /// local.
    const TWO_BLOCKS: &str = "\
module top(clock,ready);
    input wire  clock;
    output reg  ready;
    reg  cache$req_valid;
    wire  cache$req_ready;
    reg  [3:0] x;
    reg  busy$d;
    top$cache cache(
        .req_valid(cache$req_valid),
        .req_ready(cache$req_ready)
    );
    always @(*) begin
        cache$req_valid = 1'b0;
        ready = 1'b0;
        x = 4'h0;
        x = 4'hd;
        busy$d = x[0];
        if (x == 4'hd) begin
            cache$req_valid = 1'b1;
            ready = cache$req_ready & cache$req_valid;
        end
    end
endmodule // top
";

    #[test]
    fn finds_crossing_signals_assigned_twice() {
        let found = repeated_crossing_assignments(TWO_BLOCKS).unwrap();
        let names: Vec<&str> = found.iter().map(|r| r.signal.as_str()).collect();
        assert_eq!(names, ["cache$req_valid", "ready"]);
        assert!(found.iter().all(|r| r.module == "top" && r.count == 2));
    }

    #[test]
    fn rewrite_assigns_each_crossing_signal_once() {
        let text = single_assignment(TWO_BLOCKS).unwrap();
        assert_eq!(repeated_crossing_assignments(&text).unwrap(), []);
        assert!(text.contains("    reg  cache$req_valid_comb;\n"));
        assert!(text.contains("        ready_comb = cache$req_ready & cache$req_valid_comb;\n"));
        assert!(text.contains("        cache$req_valid = cache$req_valid_comb;\n        ready = ready_comb;\n    end\n"));
        // Locals and literals are left alone.
        assert!(text.contains("        x = 4'hd;\n"));
        assert!(text.contains(".req_valid(cache$req_valid)"));
        // Idempotent: nothing left to rewrite.
        assert_eq!(single_assignment(&text).unwrap(), text);
    }

    #[test]
    fn malformed_text_is_an_error() {
        assert!(single_assignment("module m(a);\n    always @(*) begin\n").is_err());
    }
}
