//! Rewrites rust-hdl's VCD, as it is written, into the waveform a hardware
//! engineer expects from the emitted Verilog (`verilog-out/*.v`).
//!
//! rust-hdl's `VCDProbe` writes a `$timescale 1 ps` VCD whose times are
//! whatever the testbench counts (here: 10 units per clock cycle, so 100 GHz),
//! one 32-bit var per word of a bus (`in_payload$w0..$w31`), and one scope per
//! register holding its `clock`, `d` and `q`. [`VcdTidy`] is a [`Write`] that
//! takes that text and streams out (memory bounded by the header and the
//! current value of every merged bus, whatever the window's length):
//!
//! - **time**: `$timescale 1 ps` and times of the configured clock: input
//!   time `t` (in [`RAW_UNITS_PER_CYCLE`] units per cycle) becomes
//!   `t / 10 * period`. When half a period is not a whole number of
//!   picoseconds (875 MHz: 1142.857 ps) the scale is `1 fs` and each edge is
//!   rounded to the nearest femtosecond (no drift).
//! - **buses**: the fields of a rust-hdl struct (`name$field`, recursively)
//!   become one vector `name [W-1:0]`, the Verilog's port or wire: fields in
//!   declaration order from bit 0, so `EntryBits`' word `wN` is at bits
//!   `[32N +: 32]` (docs/formats.md#memory-entry) and `in_payload$w0..$w31` is
//!   `in_payload [1023:0]`. A struct whose fields are not all words
//!   (`ParseState`: `window`, `planes`, `prev`...) also keeps each field as
//!   `name$field` (itself merged when it is a bus), since the Verilog has no
//!   name for a field.
//! - **registers**: a scope holding only `clock`, `d` and `q` (rust-hdl's
//!   `DFF`; the Verilog instance of the same name) becomes one var named as
//!   the register, holding `q`; `d` (the next value, equal to the register
//!   one cycle later) and the register's `clock` are dropped.
//! - every other name is kept: the Verilog keeps rust-hdl's names, `$`
//!   included (`s_valid$0` is both the VCD's register and the Verilog's
//!   instance); every var wider than one bit gets its Verilog range `[W-1:0]`.
//!
//! Errors (of the underlying writer, or `InvalidData` for text that is not
//! a rust-hdl VCD) are kept and returned by [`VcdTidy::finish`], not by
//! `write`: rust-hdl's probe panics on any write error. After an error
//! nothing more is written.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use vcd::{IdCode, ReferenceIndex, ScopeItem, SimulationCommand, TimescaleUnit, Value, Var, VarType};

/// Time units per clock cycle in the VCDs this crate's testbenches and the
/// RTL engine write through rust-hdl (5 per half cycle).
pub const RAW_UNITS_PER_CYCLE: u64 = 10;

/// The clock period assumed for VCDs of hardware that has no configured
/// clock (`buddy equiv`, the testbenches): 1 GHz.
pub const DEFAULT_PERIOD_PS: f64 = 1000.0;

/// A [`Write`] that tidies the rust-hdl VCD written into it and streams the
/// result into `W`. Clones share one output, so one clone can be given to
/// rust-hdl's `VCDProbe` (which never gives its writer back) and another
/// kept to call [`VcdTidy::finish`].
pub struct VcdTidy<W: Write> {
    inner: Arc<Mutex<Inner<W>>>,
}

impl<W: Write> Clone for VcdTidy<W> {
    fn clone(&self) -> Self {
        VcdTidy { inner: Arc::clone(&self.inner) }
    }
}

impl<W: Write> VcdTidy<W> {
    /// A tidier writing into `out`, for a clock of `period_ps` picoseconds.
    ///
    /// # Panics
    /// `period_ps` is not a positive finite number (a caller's bug: the
    /// configuration checks its clock).
    pub fn new(out: W, period_ps: f64) -> Self {
        assert!(period_ps.is_finite() && period_ps > 0.0, "clock period {period_ps} ps");
        // Picoseconds when both edges of a cycle fall on whole picoseconds.
        let half_ps = period_ps / 2.0;
        let (unit, per_ps) = if (half_ps - half_ps.round()).abs() < 1e-9 { (TimescaleUnit::PS, 1.0) } else { (TimescaleUnit::FS, 1000.0) };
        let inner = Inner {
            out: vcd::Writer::new(out),
            unit,
            scale: period_ps * per_ps / RAW_UNITS_PER_CYCLE as f64,
            line: Vec::new(),
            header: Some(Vec::new()),
            routes: HashMap::new(),
            merged: Vec::new(),
            dirty: Vec::new(),
            error: None,
        };
        VcdTidy { inner: Arc::new(Mutex::new(inner)) }
    }

    /// Write the changes still pending (those of the last timestamp) and
    /// flush the output. Call once the simulation is over.
    ///
    /// # Errors
    /// The first error of the output, or of the input's format.
    pub fn finish(&self) -> io::Result<()> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if !inner.line.is_empty() {
            let line = std::mem::take(&mut inner.line);
            inner.guard(|i| i.line(&line))?;
        }
        inner.guard(|i| {
            i.flush_merged()?;
            i.out.flush()
        })
    }

    /// Whether the input's header has been read (false: nothing was ever
    /// written into this tidier).
    pub fn started(&self) -> bool {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).header.is_none()
    }
}

impl<W: Write> Write for VcdTidy<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner
            .guard(|i| {
                for &b in buf {
                    if b == b'\n' {
                        let line = std::mem::take(&mut i.line);
                        i.line(&line)?;
                        i.line = line;
                        i.line.clear();
                    } else {
                        i.line.push(b);
                    }
                }
                Ok(())
            })
            .ok();
        // The error waits for `finish`: rust-hdl's probe would panic on it.
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Where a change of one input var goes.
#[derive(Default)]
struct Route {
    /// The output var it is copied to, with its width.
    pass: Option<(IdCode, u32)>,
    /// (merged var, bit offset in it, width) it is part of.
    parts: Vec<(usize, u32, u32)>,
}

/// An output vector made of several input vars.
struct Merged {
    code: IdCode,
    /// Bit `i` at index `i`.
    bits: Vec<Value>,
    /// In `Inner::dirty`.
    dirty: bool,
}

struct Inner<W: Write> {
    out: vcd::Writer<W>,
    unit: TimescaleUnit,
    /// Output time units per input time unit.
    scale: f64,
    line: Vec<u8>,
    /// The input header while it is being read.
    header: Option<Vec<u8>>,
    routes: HashMap<IdCode, Route>,
    merged: Vec<Merged>,
    /// Merged vars changed since their last output (each once).
    dirty: Vec<usize>,
    /// The first error, kept for `finish`.
    error: Option<(io::ErrorKind, String)>,
}

fn bad(what: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("not a rust-hdl VCD: {what}"))
}

impl<W: Write> Inner<W> {
    /// Run `f` unless an error happened before; remember its error.
    fn guard(&mut self, f: impl FnOnce(&mut Self) -> io::Result<()>) -> io::Result<()> {
        if let Some((kind, message)) = &self.error {
            return Err(io::Error::new(*kind, message.clone()));
        }
        f(self).inspect_err(|e| self.error = Some((e.kind(), e.to_string())))
    }

    fn line(&mut self, line: &[u8]) -> io::Result<()> {
        let text = std::str::from_utf8(line).map_err(bad)?.trim();
        if let Some(header) = &mut self.header {
            header.extend_from_slice(line);
            header.push(b'\n');
            if text.starts_with("$enddefinitions") {
                let header = self.header.take().unwrap_or_default();
                self.write_header(&header)?;
            }
            return Ok(());
        }
        let Some(first) = text.chars().next() else { return Ok(()) };
        match first {
            '#' => {
                let t: u64 = text[1..].parse().map_err(|_| bad(text))?;
                self.flush_merged()?;
                self.out.timestamp((t as f64 * self.scale).round() as u64)
            }
            '$' => match text {
                "$end" => {
                    self.flush_merged()?;
                    self.out.end()
                }
                "$dumpvars" => self.out.begin(SimulationCommand::Dumpvars),
                "$dumpall" => self.out.begin(SimulationCommand::Dumpall),
                "$dumpon" => self.out.begin(SimulationCommand::Dumpon),
                "$dumpoff" => self.out.begin(SimulationCommand::Dumpoff),
                _ if text.starts_with("$comment") => Ok(()),
                _ => Err(bad(text)),
            },
            'b' | 'B' => {
                let (bits, code) = text[1..].split_once(' ').ok_or_else(|| bad(text))?;
                let values = bits.bytes().map(value).collect::<io::Result<Vec<Value>>>()?;
                self.change(code.trim(), &values)
            }
            's' | 'S' | 'r' | 'R' => {
                let (v, code) = text[1..].split_once(' ').ok_or_else(|| bad(text))?;
                let code: IdCode = code.trim().parse().map_err(|_| bad(text))?;
                match self.routes.get(&code).and_then(|r| r.pass) {
                    Some((c, _)) if first == 's' || first == 'S' => self.out.change_string(c, v),
                    Some((c, _)) => self.out.change_real(c, v.parse().map_err(|_| bad(text))?),
                    None => Ok(()),
                }
            }
            _ => {
                let v = value(text.as_bytes()[0])?;
                self.change(&text[1..], &[v])
            }
        }
    }

    /// A change of input var `code` to `values` (most significant first,
    /// left-extended as VCD says when shorter than the var).
    fn change(&mut self, code: &str, values: &[Value]) -> io::Result<()> {
        let code: IdCode = code.parse().map_err(|_| bad(code))?;
        let Some(route) = self.routes.get(&code) else { return Ok(()) };
        let fill = match values.first() {
            Some(Value::X) => Value::X,
            Some(Value::Z) => Value::Z,
            _ => Value::V0,
        };
        // Bit `i` of the change (LSB first), extended to any width.
        let bit = |i: usize| if i < values.len() { values[values.len() - 1 - i] } else { fill };
        if let Some((c, width)) = route.pass {
            if width == 1 {
                self.out.change_scalar(c, bit(0))?;
            } else {
                self.out.change_vector(c, (0..width as usize).rev().map(bit))?;
            }
        }
        for &(m, offset, width) in &route.parts {
            let bits = &mut self.merged[m].bits;
            for i in 0..width as usize {
                bits[offset as usize + i] = bit(i);
            }
            if !self.merged[m].dirty {
                self.merged[m].dirty = true;
                self.dirty.push(m);
            }
        }
        Ok(())
    }

    /// Write the merged vectors changed since the last time.
    fn flush_merged(&mut self) -> io::Result<()> {
        for m in std::mem::take(&mut self.dirty) {
            self.merged[m].dirty = false;
            let merged = &self.merged[m];
            if merged.bits.len() == 1 {
                self.out.change_scalar(merged.code, merged.bits[0])?;
            } else {
                self.out.change_vector(merged.code, merged.bits.iter().rev().copied())?;
            }
        }
        Ok(())
    }

    fn write_header(&mut self, text: &[u8]) -> io::Result<()> {
        let header = vcd::Parser::new(text).parse_header()?;
        self.out.timescale(1, self.unit)?;
        let mut out = HeaderOut { w: &mut self.out, routes: &mut self.routes, merged: &mut self.merged };
        out.items(&header.items)?;
        self.out.enddefinitions()
    }
}

fn value(c: u8) -> io::Result<Value> {
    match c {
        b'0' => Ok(Value::V0),
        b'1' => Ok(Value::V1),
        b'x' | b'X' => Ok(Value::X),
        b'z' | b'Z' => Ok(Value::Z),
        _ => Err(bad(format!("value {:?}", c as char))),
    }
}

/// The Verilog range of a `width`-bit var.
fn range(width: u32) -> Option<ReferenceIndex> {
    (width > 1).then(|| ReferenceIndex::Range(width as i32 - 1, 0))
}

/// Writes the tidy header and records where each input var's changes go.
struct HeaderOut<'a, W: Write> {
    w: &'a mut vcd::Writer<W>,
    routes: &'a mut HashMap<IdCode, Route>,
    merged: &'a mut Vec<Merged>,
}

/// A register scope: only vars, named `clock`, `d...` and `q...`, with a `q`.
fn is_register(items: &[ScopeItem]) -> bool {
    let mut has_q = false;
    for item in items {
        match item {
            ScopeItem::Var(v) => match top(&v.reference).0 {
                "clock" | "d" => {}
                "q" => has_q = true,
                _ => return false,
            },
            ScopeItem::Comment(_) => {}
            _ => return false,
        }
    }
    has_q
}

/// `a$b$c` as (`a`, Some(`b$c`)).
fn top(name: &str) -> (&str, Option<&str>) {
    match name.split_once('$') {
        Some((a, rest)) => (a, Some(rest)),
        None => (name, None),
    }
}

/// A var name as (signal, struct field path): `$` then digits is an
/// element of a signal array (`slot_len$3`, its own reg in the Verilog),
/// `$` then a name is a struct field (`result$fault`, bits of one Verilog
/// vector).
fn signal(name: &str) -> (&str, Option<&str>) {
    let mut end = name.len();
    let mut at = 0;
    while let Some(k) = name[at..].find('$') {
        let (base, rest) = (at + k, &name[at + k + 1..]);
        let component = rest.split('$').next().unwrap_or("");
        if component.is_empty() || !component.bytes().all(|b| b.is_ascii_digit()) {
            end = base;
            break;
        }
        at = base + 1;
    }
    if end == name.len() {
        (name, None)
    } else {
        (&name[..end], Some(&name[end + 1..]))
    }
}

impl<W: Write> HeaderOut<'_, W> {
    fn items(&mut self, items: &[ScopeItem]) -> io::Result<()> {
        let mut vars: Vec<(String, &Var)> = Vec::new();
        for item in items {
            match item {
                ScopeItem::Var(v) => vars.push((v.reference.clone(), v)),
                ScopeItem::Scope(s) if is_register(&s.items) => {
                    // The register, under its own name: its q.
                    self.flush_vars(&mut vars)?;
                    let mut q = Vec::new();
                    for item in &s.items {
                        if let ScopeItem::Var(v) = item {
                            match top(&v.reference) {
                                ("q", None) => q.push((s.identifier.clone(), v)),
                                ("q", Some(rest)) => q.push((format!("{}${rest}", s.identifier), v)),
                                _ => {}
                            }
                        }
                    }
                    self.flush_vars(&mut q)?;
                }
                ScopeItem::Scope(s) => {
                    self.flush_vars(&mut vars)?;
                    self.w.scope_def(s.scope_type, &s.identifier)?;
                    self.items(&s.items)?;
                    self.w.upscope()?;
                }
                _ => {}
            }
        }
        self.flush_vars(&mut vars)
    }

    /// Write `vars` (name, input var), grouping the fields of each struct.
    fn flush_vars(&mut self, vars: &mut Vec<(String, &Var)>) -> io::Result<()> {
        let all = std::mem::take(vars);
        let mut i = 0;
        while i < all.len() {
            let (name, rest) = signal(&all[i].0);
            if rest.is_none() {
                self.pass(name, all[i].1)?;
                i += 1;
                continue;
            }
            let mut j = i;
            let mut fields = Vec::new();
            while j < all.len() {
                match signal(&all[j].0) {
                    (n, Some(rest)) if n == name => fields.push((rest.to_string(), all[j].1)),
                    _ => break,
                }
                j += 1;
            }
            self.composite(name, &fields)?;
            i = j;
        }
        Ok(())
    }

    fn pass(&mut self, name: &str, v: &Var) -> io::Result<()> {
        let code = self.w.add_var(v.var_type, v.size, name, range(v.size).or(v.index))?;
        self.routes.entry(v.code).or_default().pass = Some((code, v.size));
        Ok(())
    }

    /// A struct `name` of `fields` (path below `name`, input var) in
    /// declaration order: one vector, then its fields unless all are words.
    fn composite(&mut self, name: &str, fields: &[(String, &Var)]) -> io::Result<()> {
        let width: u32 = fields.iter().map(|(_, v)| v.size).sum();
        let vectors = fields.iter().all(|(_, v)| v.size > 0 && matches!(v.var_type, VarType::Wire | VarType::Reg));
        if vectors {
            let code = self.w.add_var(VarType::Wire, width, name, range(width))?;
            let m = self.merged.len();
            self.merged.push(Merged { code, bits: vec![Value::X; width as usize], dirty: false });
            let mut offset = 0;
            for (_, v) in fields {
                self.routes.entry(v.code).or_default().parts.push((m, offset, v.size));
                offset += v.size;
            }
        }
        let words = fields.iter().all(|(f, _)| f.strip_prefix('w').is_some_and(|n| n.parse::<u32>().is_ok()));
        if vectors && words {
            return Ok(());
        }
        // Group the fields' own fields: `name$field$sub` under `name$field`.
        let mut i = 0;
        while i < fields.len() {
            let (field, rest) = top(&fields[i].0);
            if rest.is_none() {
                self.pass(&format!("{name}${field}"), fields[i].1)?;
                i += 1;
                continue;
            }
            let mut j = i;
            let mut sub = Vec::new();
            while j < fields.len() {
                match top(&fields[j].0) {
                    (f, Some(rest)) if f == field => sub.push((rest.to_string(), fields[j].1)),
                    _ => break,
                }
                j += 1;
            }
            self.composite(&format!("{name}${field}"), &sub)?;
            i = j;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vcd::Command;

    /// A rust-hdl-style VCD: a 2-word bus, a register of a 2-word struct
    /// with a flag, a plain register, a sub-module.
    const RAW: &str = "$timescale 1 ps $end
$scope module uut $end
$var wire 1 ! clock $end
$var wire 32 \" in_payload$w0 $end
$var wire 32 # in_payload$w1 $end
$var wire 4 $ out_class $end
$var wire 8 0 lens$0 $end
$var wire 8 1 lens$1 $end
$scope module s_entry $end
$var wire 1 % clock $end
$var wire 32 & d$entry$w0 $end
$var wire 32 ' d$entry$w1 $end
$var wire 1 ( d$error $end
$var wire 32 ) q$entry$w0 $end
$var wire 32 * q$entry$w1 $end
$var wire 1 + q$error $end
$upscope $end
$scope module count $end
$var wire 1 , clock $end
$var wire 8 - d $end
$var wire 8 . q $end
$upscope $end
$scope module sub $end
$var wire 1 / busy $end
$upscope $end
$upscope $end
$enddefinitions $end
$dumpvars
0!
b0 \"
b0 #
b0 $
b0 &
b0 '
0(
b0 )
b0 *
0+
b0 -
b0 .
0/
$end
#0
1!
b11111111111111111111111111111111 \"
b10 #
#5
0!
b101 $
b1 .
1/
b11 )
b100 *
1+
#10
1!
b10 #
";

    fn tidy(raw: &str, period_ps: f64) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut t = VcdTidy::new(&mut out, period_ps);
            // Odd-sized pieces: lines are split across writes.
            for chunk in raw.as_bytes().chunks(7) {
                t.write_all(chunk).unwrap();
            }
            t.finish().unwrap();
        }
        out
    }

    /// Every change of `path` as (time, value as bits, MSB first).
    fn changes(vcd: &[u8], path: &[&str]) -> Vec<(u64, String)> {
        let mut p = vcd::Parser::new(vcd);
        let h = p.parse_header().unwrap();
        let code = h.find_var(path).unwrap_or_else(|| panic!("{path:?} in {}", String::from_utf8_lossy(vcd))).code;
        let (mut t, mut out) = (0, Vec::new());
        for c in p {
            match c.unwrap() {
                Command::Timestamp(x) => t = x,
                Command::ChangeScalar(c, v) if c == code => out.push((t, v.to_string())),
                Command::ChangeVector(c, v) if c == code => out.push((t, v.iter().map(|b| b.to_string()).collect())),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn timescale_is_the_clock() {
        let out = tidy(RAW, 1000.0);
        let h = vcd::Parser::new(&out[..]).parse_header().unwrap();
        assert_eq!(h.timescale, Some((1, TimescaleUnit::PS)));
        let times: Vec<u64> = changes(&out, &["uut", "clock"]).iter().map(|c| c.0).collect();
        assert_eq!(times, vec![0, 0, 500, 1000]);
        // 875 MHz: half a period is not whole picoseconds.
        let out = tidy(RAW, 1e6 / 875.0);
        let h = vcd::Parser::new(&out[..]).parse_header().unwrap();
        assert_eq!(h.timescale, Some((1, TimescaleUnit::FS)));
        let times: Vec<u64> = changes(&out, &["uut", "clock"]).iter().map(|c| c.0).collect();
        assert_eq!(times, vec![0, 0, 571_429, 1_142_857]);
    }

    #[test]
    fn words_merge_into_one_bus() {
        let out = tidy(RAW, 1000.0);
        let h = vcd::Parser::new(&out[..]).parse_header().unwrap();
        let bus = h.find_var(&["uut", "in_payload"]).expect("one bus");
        assert_eq!((bus.size, bus.index), (64, Some(ReferenceIndex::Range(63, 0))));
        assert!(h.find_var(&["uut", "in_payload$w0"]).is_none());
        let c = changes(&out, &["uut", "in_payload"]);
        // w1 = 2 in the high word, w0 = all ones in the low word; one change per time.
        let w1 = format!("{:032b}", 2u32);
        assert_eq!(c.len(), 3, "{c:?}");
        assert_eq!(c[1], (0, format!("{w1}{}", "1".repeat(32))));
        assert_eq!(c[2], (1000, format!("{w1}{}", "1".repeat(32))));
        assert_eq!(changes(&out, &["uut", "out_class"]).last().unwrap(), &(500, "0101".to_string()));
        // A signal array is one var per element, as in the Verilog.
        assert!(h.find_var(&["uut", "lens"]).is_none());
        assert_eq!(h.find_var(&["uut", "lens$1"]).map(|v| v.size), Some(8));
    }

    #[test]
    fn registers_appear_under_their_own_names() {
        let out = tidy(RAW, 1000.0);
        let h = vcd::Parser::new(&out[..]).parse_header().unwrap();
        assert!(h.find_scope(&["uut", "count"]).is_none(), "no scope per register");
        assert!(h.find_scope(&["uut", "sub"]).is_some(), "sub-modules stay scopes");
        let count = h.find_var(&["uut", "count"]).expect("register count");
        assert_eq!(count.size, 8);
        assert_eq!(changes(&out, &["uut", "count"]).last().unwrap(), &(500, "00000001".to_string()));
        // A struct register: the whole Verilog vector, then its fields.
        let whole = h.find_var(&["uut", "s_entry"]).expect("register s_entry");
        assert_eq!(whole.size, 65);
        let last = changes(&out, &["uut", "s_entry"]).last().unwrap().clone();
        assert_eq!(last, (500, format!("1{:032b}{:032b}", 4, 3)));
        assert_eq!(h.find_var(&["uut", "s_entry$entry"]).unwrap().size, 64);
        assert_eq!(changes(&out, &["uut", "s_entry$error"]).last().unwrap(), &(500, "1".to_string()));
        assert!(h.find_var(&["uut", "d"]).is_none() && h.find_var(&["uut", "s_entry$entry$w0"]).is_none());
    }

    #[test]
    fn arrays_are_signals_and_fields_are_not() {
        assert_eq!(super::signal("clock"), ("clock", None));
        assert_eq!(super::signal("slot_len$3"), ("slot_len$3", None));
        assert_eq!(super::signal("in_payload$w3"), ("in_payload", Some("w3")));
        assert_eq!(super::signal("q$entry$w0"), ("q", Some("entry$w0")));
        assert_eq!(super::signal("fifo$2$entry$w0"), ("fifo$2", Some("entry$w0")));
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let mut t = VcdTidy::new(Vec::new(), 1000.0);
        t.write_all(b"$timescale 1 ps $end\n$scope module uut $end\n$var wire 1 ! a $end\n$upscope $end\n$enddefinitions $end\n").unwrap();
        t.write_all(b"b10q2 !\n").unwrap();
        let e = t.finish().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("value 'q'"), "{e}");
    }
}
