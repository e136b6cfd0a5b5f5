//! Waveforms that read themselves: a GTKWave save file (`<name>.gtkw`)
//! beside every VCD, its signals grouped as a reader wants them
//! ([`crate::modules::DeliveredModule::signal_groups`]) and codes shown by
//! name through GTKWave translate filter files (`<filter>.txt`).
//!
//! A save file is made from the module's groups and the VCD's own header:
//! every signal is looked up in the VCD (its scope and its `[msb:lsb]`
//! range as written), so a group naming a signal the VCD lacks is an error,
//! not a trace GTKWave drops silently. The format is GTKWave's (its
//! `savefile.c`): `[dumpfile]`/`[savefile]` (both relative, so GTKWave finds
//! the VCD beside the save file from any folder), `@<flags>` lines (hex
//! trace flags: 0x22 hex, 0x28 binary, 0x2000 translated by a filter file,
//! 0x800200 / 0x1000200 a group's opening / closing blank), `-<text>` a
//! group title, `^<n> <file>` the translate filter file of the next trace
//! (a path relative to the save file), and one line per trace naming it
//! as `top.scope.signal[msb:lsb]`.
//!
//! A translate filter file has a line `<value> <name>` per code, the value
//! as GTKWave prints it in hex: one digit, so filters go on signals of at
//! most 4 bits (checked). FSM states need none: rust-hdl writes an enum
//! register as a VCD string (`Idle`, `Translate`...), shown by name.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use buddy_golden::SizeClass;
use buddy_hdl::address_translator::fault;
use buddy_hdl::buddy_controller::error;
use buddy_hdl::metadata_cache::outcome;
use buddy_hdl::read_planner::kind;
use rust_hdl::core::prelude::{Atom, Block, Probe};
use vcd::{ReferenceIndex, ScopeItem, Var, VarType};

/// A code shown by name through a translate filter file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Filter {
    /// A size class code (docs/formats.md#size-classes): golden's
    /// [`SizeClass`] names, codes 8-15 reserved.
    SizeClass,
    /// The address translator's fault code (`buddy_hdl::address_translator::fault`).
    Fault,
    /// The serial slice's `resp_error`: none, a translator fault, or a
    /// decode error (`buddy_hdl::buddy_controller::error`).
    SliceError,
    /// The metadata cache's lookup outcome (`buddy_hdl::metadata_cache::outcome`).
    Outcome,
    /// The read planner's job kind (`buddy_hdl::read_planner::kind`).
    ReadKind,
}

impl Filter {
    /// The filter file's name, e.g. `size_class.txt`.
    pub const fn file(self) -> &'static str {
        match self {
            Filter::SizeClass => "size_class.txt",
            Filter::Fault => "fault.txt",
            Filter::SliceError => "slice_error.txt",
            Filter::Outcome => "md_outcome.txt",
            Filter::ReadKind => "read_kind.txt",
        }
    }

    /// (code, name) of every code, in code order.
    pub fn names(self) -> Vec<(u64, String)> {
        let named = |list: &[(u64, &str)]| list.iter().map(|&(c, n)| (c, n.to_string())).collect::<Vec<_>>();
        let mut names = match self {
            Filter::SizeClass => {
                let mut v: Vec<(u64, String)> = SizeClass::ALL.iter().map(|c| (c.code() as u64, c.name().to_string())).collect();
                v.extend((SizeClass::ALL.len() as u64..16).map(|c| (c, format!("reserved {c}"))));
                v
            }
            Filter::Fault => [vec![(0, "NONE".to_string())], named(&fault::NAMES)].concat(),
            // The serial slice asks the translator for class RAW: never a reserved class.
            Filter::SliceError => {
                let faults: Vec<(u64, &str)> = fault::NAMES.into_iter().filter(|&(c, _)| c != fault::RESERVED_CLASS).collect();
                [named(&error::NAMES), named(&faults)].concat()
            }
            Filter::Outcome => named(&outcome::NAMES),
            Filter::ReadKind => named(&kind::NAMES),
        };
        names.sort();
        names
    }

    /// The filter file: a comment, then `<hex digit> <name>` per code.
    pub fn text(self) -> String {
        let mut s = format!("# GTKWave translate filter {} (written by buddy, delivery/src/waves.rs)\n", self.file());
        for (code, name) in self.names() {
            s += &format!("{code:x} {name}\n");
        }
        s
    }
}

/// One trace: a signal of the VCD's top scope, `sub.name` for one in a
/// sub-scope, shown in hex (binary for one bit) or by name through `filter`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signal {
    pub name: String,
    pub filter: Option<Filter>,
}

/// A titled group of traces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignalGroup {
    pub title: String,
    pub signals: Vec<Signal>,
}

impl SignalGroup {
    /// A group of `names` (paths below the top scope) without filters.
    pub fn new(title: &str, names: &[&str]) -> SignalGroup {
        SignalGroup { title: title.into(), signals: names.iter().map(|n| Signal { name: n.to_string(), filter: None }).collect() }
    }
}

/// Whether `pattern` takes `port`: the name itself, or `prefix*`.
fn matches(pattern: &str, port: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => port.starts_with(prefix),
        None => port == pattern,
    }
}

/// `ports` (names in port order) in groups: each rule `(title, patterns)`
/// takes the ports not taken by an earlier rule that one of its patterns
/// matches (a name, or `prefix*`); a port no rule takes goes to a last
/// group `other ports`, so none is lost. Within a group the ports of one
/// handshake stay together, valid and ready first ([`handshake_order`]).
/// `filters` (port, filter) name the codes of some ports. Empty groups are
/// dropped.
pub fn port_groups(ports: &[&str], rules: &[(&str, &[&str])], filters: &[(&str, Filter)]) -> Vec<SignalGroup> {
    let mut taken = vec![false; ports.len()];
    let signal = |p: &str| Signal { name: p.to_string(), filter: filters.iter().find(|(n, _)| *n == p).map(|&(_, f)| f) };
    let mut groups = Vec::new();
    for (title, patterns) in rules {
        let mut names = Vec::new();
        for (i, p) in ports.iter().enumerate() {
            if !taken[i] && patterns.iter().any(|pat| matches(pat, p)) {
                taken[i] = true;
                names.push(*p);
            }
        }
        if !names.is_empty() {
            groups.push(SignalGroup { title: title.to_string(), signals: handshake_order(&names).into_iter().map(signal).collect() });
        }
    }
    let rest: Vec<&str> = ports.iter().zip(&taken).filter(|(_, t)| !**t).map(|(p, _)| *p).collect();
    if !rest.is_empty() {
        groups.push(SignalGroup { title: "other ports".into(), signals: handshake_order(&rest).into_iter().map(signal).collect() });
    }
    groups
}

/// `names` with each handshake's ports together: a port belongs to the
/// handshake `P` of the longest `P_` it starts with such that `P_valid` or
/// `P_ready` is in `names` (else to none, standing alone); handshakes in
/// the order they first appear, each `P_valid`, `P_ready`, then its other
/// ports in `names` order (`dev_req_valid, dev_req_ready, dev_req_write...,
/// dev_resp_valid...`).
pub fn handshake_order<'a>(names: &[&'a str]) -> Vec<&'a str> {
    let has = |n: String| names.contains(&n.as_str());
    let handshake = |name: &str| -> Option<String> {
        let mut best: Option<String> = None;
        for (i, _) in name.match_indices('_') {
            let p = &name[..i];
            if has(format!("{p}_valid")) || has(format!("{p}_ready")) {
                best = Some(p.to_string());
            }
        }
        best
    };
    // (handshake or the name itself, rank within it: valid 0, ready 1, other 2)
    let keys: Vec<(String, u8)> = names
        .iter()
        .map(|n| match handshake(n) {
            Some(p) if *n == format!("{p}_valid") => (p, 0),
            Some(p) if *n == format!("{p}_ready") => (p, 1),
            Some(p) => (p, 2),
            None => (format!("\0{n}"), 2),
        })
        .collect();
    let mut first: Vec<&String> = Vec::new();
    for (k, _) in &keys {
        if !first.contains(&k) {
            first.push(k);
        }
    }
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by_key(|&i| (first.iter().position(|k| **k == keys[i].0), keys[i].1, i));
    order.into_iter().map(|i| names[i]).collect()
}

/// The top-level ports of `uut` in declaration order, as rust-hdl walks
/// them (the ports its Verilog module declares).
pub fn block_ports(uut: &impl Block) -> Vec<String> {
    struct Ports {
        depth: usize,
        namespace: Vec<String>,
        ports: Vec<String>,
    }
    impl Probe for Ports {
        fn visit_start_scope(&mut self, _: &str, _: &dyn Block) {
            self.depth += 1;
        }
        fn visit_end_scope(&mut self, _: &str, _: &dyn Block) {
            self.depth -= 1;
        }
        fn visit_start_namespace(&mut self, name: &str, _: &dyn Block) {
            self.namespace.push(name.to_string());
        }
        fn visit_end_namespace(&mut self, _: &str, _: &dyn Block) {
            self.namespace.pop();
        }
        fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
            if self.depth == 1 && signal.kind().is_parameter() {
                self.ports.push(self.namespace.iter().map(String::as_str).chain([name]).collect::<Vec<_>>().join("$"));
            }
        }
    }
    let mut probe = Ports { depth: 0, namespace: Vec::new(), ports: Vec::new() };
    uut.accept("uut", &mut probe);
    probe.ports
}

/// Every port name of a lock-step list pair, `clock` first.
pub fn lockstep_port_names(inputs: &[(&'static str, usize)], outputs: &[(&'static str, usize, &'static str)]) -> Vec<&'static str> {
    std::iter::once("clock").chain(inputs.iter().map(|p| p.0)).chain(outputs.iter().map(|p| p.0)).collect()
}

/// GTKWave's name of `var` in `scope` (dot-joined): `a.b.name[7:0]`.
fn gtkwave_name(scope: &[&str], var: &Var) -> String {
    let range = match var.index {
        Some(ReferenceIndex::Range(msb, lsb)) => format!("[{msb}:{lsb}]"),
        Some(ReferenceIndex::BitSelect(i)) => format!("[{i}]"),
        None => String::new(),
    };
    format!("{}.{}{range}", scope.join("."), var.reference)
}

/// The name of the VCD's one top-level scope (`uut` in this project's VCDs).
///
/// # Errors
/// The header has no top-level scope, or more than one.
pub fn top_scope(header: &vcd::Header) -> Result<String, String> {
    let tops: Vec<&str> = header
        .items
        .iter()
        .filter_map(|i| match i {
            ScopeItem::Scope(s) => Some(s.identifier.as_str()),
            _ => None,
        })
        .collect();
    match tops.as_slice() {
        [one] => Ok(one.to_string()),
        _ => Err(format!("the VCD has {} top-level scopes ({}); expected one", tops.len(), tops.join(", "))),
    }
}

/// The header of the VCD at `path` (its value changes are not read).
///
/// # Errors
/// The file cannot be read or its header does not parse.
pub fn read_header(path: &Path) -> Result<vcd::Header, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    vcd::Parser::new(std::io::BufReader::new(file)).parse_header().map_err(|e| format!("{}: {e}", path.display()))
}

/// A save file's text and the filters it uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaveFile {
    pub text: String,
    pub filters: Vec<Filter>,
}

/// The GTKWave save file of `groups` for the VCD whose header is `header`,
/// naming the VCD `vcd_file` and itself `save_file` (file names in one
/// folder).
///
/// # Errors
/// A signal is not in the VCD's top scope (the message names it and its
/// group), or a filter is put on a signal wider than 4 bits.
pub fn save_file(groups: &[SignalGroup], header: &vcd::Header, vcd_file: &str, save_file: &str, title: &str) -> Result<SaveFile, String> {
    let top = top_scope(header)?;
    let mut filters: Vec<Filter> = groups.iter().flat_map(|g| g.signals.iter().filter_map(|s| s.filter)).collect();
    filters.sort();
    filters.dedup();
    let mut s = format!(
        "[*] {title}: GTKWave save file written by buddy (delivery/src/waves.rs) from the module's signal groups and the VCD's \
         header\n[*] open with: gtkwave {save_file}\n[dumpfile] \"{vcd_file}\"\n[savefile] \"{save_file}\"\n[timestart] 0\n"
    );
    // GTKWave's own save files give a flags line only when the flags change.
    let mut last_flags: &str;
    for g in groups {
        s += &format!("@800200\n-{}\n", g.title);
        last_flags = "800200";
        for sig in &g.signals {
            let path: Vec<&str> = std::iter::once(top.as_str()).chain(sig.name.split('.')).collect();
            let var = header
                .find_var(&path)
                .ok_or_else(|| format!("{vcd_file}: no signal {} (group \"{}\") in the VCD", path.join("."), g.title))?;
            // Hex (0x22), binary for a bit or a string (0x28), translated by a filter file (0x2000).
            let flags = match sig.filter {
                Some(f) if var.size > 4 => {
                    return Err(format!("{vcd_file}: filter {} on {} of {} bits (at most 4)", f.file(), path.join("."), var.size));
                }
                Some(_) => "2022",
                None if var.size <= 1 || var.var_type == VarType::String => "28",
                None => "22",
            };
            if flags != last_flags {
                s += &format!("@{flags}\n");
                last_flags = flags;
            }
            if let Some(f) = sig.filter {
                let n = filters.iter().position(|&x| x == f).expect("collected above") + 1;
                s += &format!("^{n} {}\n", f.file());
            }
            s += &gtkwave_name(&path[..path.len() - 1], var);
            s += "\n";
        }
        s += &format!("@1000200\n-{}\n", g.title);
    }
    Ok(SaveFile { text: s, filters })
}

/// Write `<stem>.gtkw` for the VCD at `vcd_path` (`<stem>.vcd`) and the
/// translate filter files it uses beside it; returns the save file's path.
///
/// # Errors
/// As [`save_file`], or a file cannot be read or written.
pub fn write_save_file(vcd_path: &Path, groups: &[SignalGroup], title: &str) -> Result<PathBuf, String> {
    let header = read_header(vcd_path)?;
    let dir = vcd_path.parent().unwrap_or(Path::new("."));
    let vcd_file = vcd_path.file_name().and_then(|n| n.to_str()).ok_or_else(|| format!("{}: not a file name", vcd_path.display()))?;
    let gtkw = vcd_path.with_extension("gtkw");
    let gtkw_file = gtkw.file_name().and_then(|n| n.to_str()).expect("from a file name");
    let save = save_file(groups, &header, vcd_file, gtkw_file, title)?;
    for f in &save.filters {
        write_atomically(&dir.join(f.file()), &f.text())?;
    }
    write_atomically(&gtkw, &save.text)?;
    Ok(gtkw)
}

/// Write `text` to `path` through a temporary file renamed over it, so
/// modules written in parallel into one folder never see a half-written
/// filter file.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let tmp = path.with_extension(format!("tmp{}-{:?}", std::process::id(), std::thread::current().id()).replace(['(', ')'], ""));
    std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// What [`check_save_file`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaveFileCheck {
    /// Traces named, each found in the VCD with its range.
    pub signals: usize,
    /// Groups opened and closed.
    pub groups: usize,
    /// Traces shown through a translate filter, each filter file found
    /// beside the save file with a `<value> <name>` line per code.
    pub filtered: usize,
}

/// Check a GTKWave save file's text against the VCD header it is for:
/// every trace it names (`top.scope.name[msb:lsb]`, also inside `#{..}`
/// vectors and after `+{alias}`) is a var of that scope with that range,
/// every group is closed, and every `^<n> <file>` filter file exists in
/// `dir` (the save file's folder) and has only `<value> <name>` lines.
///
/// # Errors
/// The first trace not in the VCD (or with another range), an unclosed
/// group, or a missing or malformed filter file.
pub fn check_save_file(text: &str, header: &vcd::Header, dir: &Path) -> Result<SaveFileCheck, String> {
    let mut check = SaveFileCheck { signals: 0, groups: 0, filtered: 0 };
    let mut open = Vec::new();
    let mut flags = 0u64;
    let mut filter_files: BTreeSet<String> = BTreeSet::new();
    let mut pending_filter = false;
    for (i, line) in text.lines().enumerate() {
        let at = |m: String| format!("save file line {}: {m}", i + 1);
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('[') || line.starts_with('*') || line.starts_with('>') {
            continue;
        }
        if let Some(hex) = line.strip_prefix('@') {
            flags = u64::from_str_radix(hex, 16).map_err(|e| at(format!("flags {hex}: {e}")))?;
            continue;
        }
        if let Some(title) = line.strip_prefix('-') {
            if flags & 0x80_0000 != 0 {
                open.push(title.to_string());
            } else if flags & 0x100_0000 != 0 {
                match open.pop() {
                    Some(t) if t == title => check.groups += 1,
                    other => return Err(at(format!("group \"{title}\" closed, open: {other:?}"))),
                }
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix('^') {
            let (_, file) = rest.split_once(' ').ok_or_else(|| at(format!("filter line ^{rest}")))?;
            if !filter_files.contains(file) {
                check_filter_file(&dir.join(file)).map_err(at)?;
                filter_files.insert(file.to_string());
            }
            pending_filter = true;
            continue;
        }
        // A trace: `name`, `+{alias} name`, or `#{vector} bit bit ...`.
        let mut rest = line;
        if let Some(r) = rest.strip_prefix("+{") {
            rest = r.split_once("} ").ok_or_else(|| at("unclosed alias".into()))?.1;
        }
        let names: Vec<&str> = match rest.strip_prefix("#{").or_else(|| rest.strip_prefix(":{")) {
            Some(r) => r.split_once('}').ok_or_else(|| at("unclosed vector name".into()))?.1.split_whitespace().collect(),
            None => vec![rest],
        };
        for name in names {
            find_trace(header, name).map_err(at)?;
            check.signals += 1;
        }
        if pending_filter {
            if flags & 0x2000 == 0 {
                return Err(at(format!("{rest}: a filter file but flags {flags:x} without 0x2000 (translated)")));
            }
            check.filtered += 1;
            pending_filter = false;
        }
    }
    if let Some(t) = open.pop() {
        return Err(format!("group \"{t}\" not closed"));
    }
    Ok(check)
}

/// The var a save file's trace name `top.scope.name[msb:lsb]` names.
fn find_trace<'h>(header: &'h vcd::Header, name: &str) -> Result<&'h Var, String> {
    let (path, range) = match name.find('[') {
        Some(i) if name.ends_with(']') => (&name[..i], Some(&name[i..])),
        _ => (name, None),
    };
    let parts: Vec<&str> = path.split('.').collect();
    let var = header.find_var(&parts).ok_or_else(|| format!("{name}: no such signal in the VCD"))?;
    let top = parts[..parts.len() - 1].to_vec();
    let expected = gtkwave_name(&top, var);
    if range.is_some() != var.index.is_some() || expected != name {
        return Err(format!("{name}: the VCD has it as {expected}"));
    }
    Ok(var)
}

/// A translate filter file: comments and `<value> <name>` lines only.
fn check_filter_file(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("filter file {}: {e}", path.display()))?;
    let mut codes = 0;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        match line.split_once(char::is_whitespace) {
            Some((v, n)) if !n.trim().is_empty() && u64::from_str_radix(v, 16).is_ok() => codes += 1,
            _ => return Err(format!("filter file {}: line \"{line}\" is not `<hex value> <name>`", path.display())),
        }
    }
    if codes == 0 {
        return Err(format!("filter file {}: no codes", path.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(vcd: &str) -> vcd::Header {
        vcd::Parser::new(vcd.as_bytes()).parse_header().unwrap()
    }

    const VCD: &str = "$timescale 1 ps $end\n$scope module uut $end\n$var wire 1 ! clock $end\n\
        $var wire 4 \" out_class [3:0] $end\n$var wire 64 # out_payload [63:0] $end\n$scope module md $end\n\
        $var string 1 $ state $end\n$upscope $end\n$upscope $end\n$enddefinitions $end\n";

    #[test]
    fn the_size_class_filter_names_golden_classes_and_the_reserved_codes() {
        let names = Filter::SizeClass.names();
        assert_eq!(names.len(), 16);
        assert_eq!(names[0], (0, "ZERO".to_string()));
        assert_eq!(names[7], (7, "RAW".to_string()));
        assert_eq!(names[8], (8, "reserved 8".to_string()));
        assert!(Filter::SizeClass.text().contains("\n5 B80\n"));
        assert_eq!(Filter::SliceError.names().iter().map(|(c, _)| *c).collect::<Vec<_>>(), vec![0, 1, 2, 3, 5]);
    }

    #[test]
    fn rules_take_ports_in_order_and_keep_the_rest() {
        let g = port_groups(
            &["clock", "in_a", "in_valid", "out_b", "odd"],
            &[("in", &["clock", "in_*"]), ("out", &["out_*"])],
            &[("out_b", Filter::SizeClass)],
        );
        let titles: Vec<&str> = g.iter().map(|g| g.title.as_str()).collect();
        assert_eq!(titles, ["in", "out", "other ports"]);
        assert_eq!(g[0].signals.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["clock", "in_valid", "in_a"]);
        assert_eq!(g[1].signals[0].filter, Some(Filter::SizeClass));
    }

    #[test]
    fn a_handshake_keeps_its_ports_together_valid_and_ready_first() {
        let names = ["dev_req_ready", "dev_resp_valid", "dev_resp_data", "dev_req_valid", "dev_req_write", "odd", "dev_resp_ready"];
        assert_eq!(
            handshake_order(&names),
            ["dev_req_valid", "dev_req_ready", "dev_req_write", "dev_resp_valid", "dev_resp_ready", "dev_resp_data", "odd"]
        );
        // The longest handshake prefix wins: mem_resp_tag is mem_resp's, mem_tag is mem's.
        assert_eq!(
            handshake_order(&["mem_tag", "mem_resp_tag", "mem_resp_valid", "mem_valid"]),
            ["mem_valid", "mem_tag", "mem_resp_valid", "mem_resp_tag"]
        );
    }

    #[test]
    fn a_save_file_names_what_the_vcd_has_and_a_misspelt_signal_fails() {
        let h = header(VCD);
        let groups = vec![
            SignalGroup::new("in", &["clock"]),
            SignalGroup {
                title: "out".into(),
                signals: vec![
                    Signal { name: "out_class".into(), filter: Some(Filter::SizeClass) },
                    Signal { name: "out_payload".into(), filter: None },
                    Signal { name: "md.state".into(), filter: None },
                ],
            },
        ];
        let save = save_file(&groups, &h, "m.vcd", "m.gtkw", "m").unwrap();
        assert!(save.text.contains("\nuut.out_payload[63:0]\n") && save.text.contains("\n^1 size_class.txt\nuut.out_class[3:0]\n"));
        assert!(save.text.contains("\nuut.md.state\n"));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("size_class.txt"), Filter::SizeClass.text()).unwrap();
        let check = check_save_file(&save.text, &h, dir.path()).unwrap();
        assert_eq!(check, SaveFileCheck { signals: 4, groups: 2, filtered: 1 });

        // A misspelt trace, a wrong range, a missing filter file: each fails.
        let e = check_save_file(&save.text.replace("uut.out_payload", "uut.out_paylod"), &h, dir.path()).unwrap_err();
        assert!(e.contains("uut.out_paylod[63:0]: no such signal"), "{e}");
        let e = check_save_file(&save.text.replace("[63:0]", "[31:0]"), &h, dir.path()).unwrap_err();
        assert!(e.contains("the VCD has it as uut.out_payload[63:0]"), "{e}");
        let e = check_save_file(&save.text, &h, &dir.path().join("elsewhere")).unwrap_err();
        assert!(e.contains("size_class.txt"), "{e}");
        // The generator refuses a signal the VCD lacks, and a filter on a wide bus.
        let bad = vec![SignalGroup::new("out", &["out_clas"])];
        assert!(save_file(&bad, &h, "m.vcd", "m.gtkw", "m").unwrap_err().contains("no signal uut.out_clas (group \"out\")"));
        let wide =
            vec![SignalGroup { title: "x".into(), signals: vec![Signal { name: "out_payload".into(), filter: Some(Filter::Fault) }] }];
        assert!(save_file(&wide, &h, "m.vcd", "m.gtkw", "m").unwrap_err().contains("at most 4"));
    }
}
