//! No import circle (#50): within `sim/src/memory_system/`, within
//! `cli/src/`, and through the configuration modules of `sim/src/`, no
//! module uses another that uses it back, directly or through others.
//!
//! The graph is read from the source text: every `use` tree and every
//! `crate::` / `super::` / `self::` path outside comments and test modules
//! is an arrow from the file's module to the deepest module the path
//! names (an item of `a/mod.rs` is module `a`). Cycles are the strongly
//! connected components of more than one module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One crate's modules: module path (`memory_system::hbm`, root `""`) to
/// the module paths it names.
type Graph = BTreeMap<String, BTreeSet<String>>;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("testbenches/ sits in the workspace").to_path_buf()
}

/// The module path of `file` under the crate's `src` (`a/mod.rs` is `a`,
/// `lib.rs` and `main.rs` the root `""`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("file under src");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        parts.push(stem.to_string());
    }
    parts.join("::")
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The text without comments, string literals and `#[cfg(test)]` modules.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(i) => &text[..i],
        None => text,
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
        } else if text[i..].starts_with("/*") {
            i = text[i..].find("*/").map_or(bytes.len(), |n| i + n + 2);
        } else if bytes[i] == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if bytes[i] == b'\'' && i + 2 < bytes.len() && (bytes[i + 2] == b'\'' || bytes[i + 1] == b'\\') {
            // A char literal ('"' or '\n'); lifetimes have no closing quote.
            let end = text[i + 1..].find('\'').map_or(bytes.len(), |n| i + 1 + n + 1);
            i = end;
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Expand a `use` tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        return vec![tree.split(" as ").next().unwrap().trim().to_string()];
    };
    let prefix = tree[..open].trim_end_matches("::").trim();
    let inner = &tree[open + 1..tree.rfind('}').expect("balanced braces")];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| {
            if p == "self" {
                prefix.to_string()
            } else if prefix.is_empty() {
                p
            } else {
                format!("{prefix}::{p}")
            }
        })
        .collect()
}

/// Every path the code names that starts at `crate`, `super` or `self`
/// (or, in a `use`, at a module of the file's own).
fn paths_in(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    // `use` trees, whole.
    let mut others = String::new();
    while let Some(i) = find_use(rest) {
        others.push_str(&rest[..i]);
        let end = rest[i..].find(';').map_or(rest.len(), |n| i + n);
        let tree = rest[i..end].trim_start_matches("pub(crate)").trim_start_matches("pub(super)").trim_start_matches("pub").trim();
        paths.extend(expand(tree.trim_start_matches("use ")));
        rest = &rest[end..];
    }
    others.push_str(rest);
    let re = regex::Regex::new(r"\b(?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+").unwrap();
    paths.extend(re.find_iter(&others).map(|m| m.as_str().to_string()));
    paths
}

/// The start of the next `use` item (not `r#use`, not a word ending in `use`).
fn find_use(s: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(n) = s[from..].find("use ") {
        let i = from + n;
        let before = s[..i].chars().next_back();
        if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '#')) {
            // Back up over a visibility.
            let line_start = s[..i].rfind('\n').map_or(0, |n| n + 1);
            return Some(if s[line_start..i].trim().starts_with("pub") { line_start } else { i });
        }
        from = i + 4;
    }
    None
}

/// The module graph of the crate whose sources are in `src`.
fn graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    let modules: BTreeMap<String, PathBuf> = files.iter().map(|f| (module_of(src, f), f.clone())).collect();
    let known: BTreeSet<&str> = modules.keys().map(String::as_str).collect();
    let mut g = Graph::new();
    for (module, file) in &modules {
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        let segments: Vec<&str> = if module.is_empty() { vec![] } else { module.split("::").collect() };
        // `self` is the file's module (`a/mod.rs` and `a.rs` alike), `super` its parent.
        let parent = |levels: usize| segments[..segments.len().saturating_sub(levels)].to_vec();
        let mut arrows = BTreeSet::new();
        for path in paths_in(&code) {
            let mut parts: Vec<&str> = path.split("::").map(str::trim).collect();
            let mut at: Vec<&str> = match parts[0] {
                "crate" => {
                    parts.remove(0);
                    vec![]
                }
                "self" => {
                    parts.remove(0);
                    segments.clone()
                }
                "super" => {
                    let mut up = 0;
                    while parts.first() == Some(&"super") {
                        parts.remove(0);
                        up += 1;
                    }
                    parent(up)
                }
                // A `use` of a child module by its bare name.
                first if known.contains([segments.clone(), vec![first]].concat().join("::").as_str()) => segments.clone(),
                _ => continue,
            };
            for p in parts {
                let next = [at.clone(), vec![p]].concat().join("::");
                if known.contains(next.as_str()) {
                    at.push(p);
                } else {
                    break;
                }
            }
            let target = at.join("::");
            if &target != module {
                arrows.insert(target);
            }
        }
        g.insert(module.clone(), arrows);
    }
    g
}

/// The cycles of `g`: its strongly connected components of two or more
/// modules (Tarjan).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on.insert(v);
            for w in self.g.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.g.contains_key(w) {
                    continue;
                }
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let l = self.low[w].min(self.low[v]);
                    self.low.insert(v, l);
                } else if self.on.contains(w) {
                    let l = self.index[w].min(self.low[v]);
                    self.low.insert(v, l);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.out.push(component);
                }
            }
        }
    }
    let mut t = Tarjan { g, index: BTreeMap::new(), low: BTreeMap::new(), stack: vec![], on: BTreeSet::new(), out: vec![] };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out
}

fn describe(g: &Graph, cycle: &[String]) -> String {
    let inside: BTreeSet<&String> = cycle.iter().collect();
    let arrows: Vec<String> =
        cycle.iter().flat_map(|a| g[a].iter().filter(|b| inside.contains(b)).map(move |b| format!("{} -> {}", show(a), show(b)))).collect();
    format!("{{{}}}: {}", cycle.iter().map(|m| show(m)).collect::<Vec<_>>().join(", "), arrows.join(", "))
}

fn show(m: &str) -> &str {
    if m.is_empty() {
        "<crate root>"
    } else {
        m
    }
}

/// The cycles of `src`'s crate that pass through a module `inside` accepts.
fn circles(src: &Path, inside: impl Fn(&str) -> bool) -> Vec<String> {
    let g = graph(src);
    cycles(&g).iter().filter(|c| c.iter().any(|m| inside(m))).map(|c| describe(&g, c)).collect()
}

#[test]
fn the_memory_system_and_the_config_modules_have_no_import_circle() {
    let src = workspace().join("sim/src");
    let found =
        circles(&src, |m| m == "memory_system" || m.starts_with("memory_system::") || m.ends_with("config") || m.contains("config::"));
    assert!(found.is_empty(), "import circles in sim/src:\n{}", found.join("\n"));
}

#[test]
fn the_cli_has_no_import_circle() {
    let found = circles(&workspace().join("cli/src"), |_| true);
    assert!(found.is_empty(), "import circles in cli/src:\n{}", found.join("\n"));
}

/// The checker itself finds a circle, through a third module, and reads
/// `use` trees, `super` and `crate` paths.
#[test]
fn the_checker_finds_a_circle_through_others() {
    let dir = std::env::temp_dir().join(format!("import_graph_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(dir.join("lib.rs"), "pub mod a;\npub mod c;\n").unwrap();
    std::fs::write(dir.join("a/mod.rs"), "pub mod b;\nuse b::{self as bee, X};\n// use crate::c;\n").unwrap();
    std::fs::write(dir.join("a/b.rs"), "pub struct X;\nfn f() { crate::c::g(); }\n").unwrap();
    std::fs::write(dir.join("c.rs"), "use super::a::{Y, /* b */};\npub fn g() { let s = \"super::a::b\"; }\n").unwrap();
    let g = graph(&dir);
    assert_eq!(g["a"], BTreeSet::from(["a::b".to_string()]));
    assert_eq!(g["a::b"], BTreeSet::from(["c".to_string()]));
    assert_eq!(g["c"], BTreeSet::from(["a".to_string()]));
    let found = cycles(&g);
    assert_eq!(found, vec![vec!["a".to_string(), "a::b".to_string(), "c".to_string()]]);
    std::fs::write(dir.join("c.rs"), "pub fn g() {}\n").unwrap();
    assert!(cycles(&graph(&dir)).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}
