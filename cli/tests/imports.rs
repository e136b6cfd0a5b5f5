//! The modules of cli/src import each other without a circle: shared
//! pieces (value parsers, output helpers) live in modules of their own, not
//! in one subcommand that another then imports back.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The top-level modules each `crate::` path of `text` names (`crate::a::b`,
/// `use crate::{a, b::c}`).
fn crate_paths(text: &str) -> BTreeSet<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>();
    let mut names = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            names.extend(group.split(',').map(|p| ident(p.trim())).filter(|n| !n.is_empty()));
        } else {
            names.insert(ident(rest));
        }
    }
    names
}

/// Every `.rs` file under `dir` with the top-level module it belongs to.
fn files(dir: &Path, top: Option<&str>, out: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let module = top.map_or_else(|| stem.clone(), str::to_string);
        if path.is_dir() {
            files(&path, Some(&module), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push((module, fs::read_to_string(&path).unwrap()));
        }
    }
}

/// A circle through `from`, if any, as the modules along it.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, path: &mut Vec<String>) -> Option<Vec<String>> {
    for next in graph.get(path.last().unwrap()).into_iter().flatten() {
        if next == from {
            return Some([path.as_slice(), &[next.clone()]].concat());
        }
        if !path.contains(next) {
            path.push(next.clone());
            if let Some(c) = circle(graph, from, path) {
                return Some(c);
            }
            path.pop();
        }
    }
    None
}

#[test]
fn no_module_of_cli_src_imports_itself_back() {
    let mut all = Vec::new();
    files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), None, &mut all);
    let modules: BTreeSet<String> = all.iter().map(|(m, _)| m.clone()).collect();
    assert!(modules.contains("study") && modules.contains("sim"), "{modules:?}");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, text) in &all {
        let used = crate_paths(text).into_iter().filter(|n| n != module && modules.contains(n));
        graph.entry(module.clone()).or_default().extend(used);
    }
    for module in &modules {
        let found = circle(&graph, module, &mut vec![module.clone()]);
        assert!(found.is_none(), "import circle: {}", found.unwrap_or_default().join(" -> "));
    }
}

#[test]
fn crate_paths_are_found_in_use_lists_and_inline() {
    let text = "use crate::args::{a, b};\nuse crate::{output::out, plot};\nlet x = crate::sim::load(); $crate::output::w();";
    assert_eq!(crate_paths(text), ["args", "output", "plot", "sim"].map(String::from).into());
}
