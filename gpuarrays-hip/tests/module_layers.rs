//! The crate's modules form layers: each top-level module imports only the ones below it
//! (`sync` ← `ids` ← `error` ← `platform` ← `stream` ← `memory` ← `device` ← `runtime` ←
//! `blas` ← `kernels` ← `fft` ← `backend` ← `collectives`), and no file imports, through any chain, a file
//! that imports it back. (`loom_models`, compiled only for model checking, may import anything.)
//!
//! Read from the source text: every `crate::…` and `super::…` path in code (comments and
//! string literals removed, `use` groups expanded) is resolved to the deepest module it
//! names. A module declaring its children (`mod x;`, `pub use x::…`) is not an import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules, lowest layer first.
const LAYERS: &[&str] = &[
    "sync",
    "ids",
    "error",
    "platform",
    "stream",
    "memory",
    "device",
    "runtime",
    "blas",
    "kernels",
    "fft",
    "backend",
    "collectives",
    "loom_models",
];

type Module = Vec<String>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src/` (`platform/amd/mod.rs` → `platform::amd`).
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).expect("file under src");
    let mut parts: Module = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts
        .last()
        .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
    {
        parts.pop();
    }
    parts
}

/// The code of `text` without comments, string and char literals, and `#[cfg(test)]` items
/// at the end of a file (unit tests may import anything).
fn code_only(text: &str) -> String {
    let text = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == 'r'
            && (next == Some('#') || next == Some('"'))
            && !ident(b.get(i.wrapping_sub(1)))
        {
            let mut hashes = 0;
            let mut j = i + 1;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (1..=hashes).all(|k| b.get(j + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (b.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A char literal ('x' or '\n'); a lifetime ('a) is left alone.
            i += 1;
            while i < b.len() && b[i] != '\'' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// Expands `a::{b, c::{d}}` into `[a::b, a::c::d]`.
fn expand(prefix: &[String], body: &str) -> Vec<Module> {
    let body = body.trim();
    if let Some(inner) = body.strip_prefix('{') {
        let inner = &inner[..inner.rfind('}').unwrap_or(inner.len())];
        let (mut depth, mut start, mut out) = (0, 0, Vec::new());
        for (k, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.extend(expand(prefix, &inner[start..k]));
                    start = k + 1;
                }
                _ => {}
            }
        }
        out.extend(expand(prefix, &inner[start..]));
        return out;
    }
    if body.is_empty() {
        return Vec::new();
    }
    match body.split_once("::") {
        Some((head, rest)) => {
            let mut p = prefix.to_vec();
            p.push(head.trim().to_string());
            expand(&p, rest)
        }
        None => {
            let mut p = prefix.to_vec();
            p.push(body.split_whitespace().next().unwrap_or("").to_string());
            vec![p]
        }
    }
}

/// Every path starting with `crate::` or `super::` in `code`, as written.
fn paths(code: &str) -> Vec<Module> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(k) = code[from..].find(start) {
            let at = from + k;
            from = at + start.len();
            if at > 0 && ident(Some(&(bytes[at - 1] as char))) {
                continue;
            }
            // The path runs while it is identifiers, `::`, braces, commas and spaces inside
            // braces; a `use` group ends at its closing brace.
            let mut end = at;
            let mut depth = 0i32;
            for (k, ch) in code[at..].char_indices() {
                let ok = ch.is_alphanumeric()
                    || ch == '_'
                    || ch == ':'
                    || ch == '{'
                    || (depth > 0 && (ch == ',' || ch.is_whitespace() || ch == '}' || ch == '*'));
                if !ok {
                    break;
                }
                if ch == '{' {
                    depth += 1;
                }
                if ch == '}' {
                    depth -= 1;
                    if depth == 0 {
                        end = at + k + 1;
                        break;
                    }
                }
                end = at + k + ch.len_utf8();
            }
            let text = code[at..end].trim_end_matches(':');
            out.extend(expand(&[], text));
        }
    }
    out
}

/// The deepest known module that `path` (written in module `from`) names.
fn resolve(modules: &BTreeSet<Module>, from: &Module, path: &Module) -> Option<Module> {
    let mut full: Module = Vec::new();
    let mut rest = path.as_slice();
    match rest.first().map(String::as_str) {
        Some("crate") => rest = &rest[1..],
        Some("super") => {
            full = from.clone();
            while rest.first().map(String::as_str) == Some("super") {
                full.pop();
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    full.extend(rest.iter().cloned());
    (0..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|m| modules.contains(m))
}

/// The import graph of `src/`, or `None` (with the reason printed) where the binary runs
/// away from the checkout it was built in (e.g. packed for the GPU machine).
fn import_graph() -> Option<BTreeMap<Module, BTreeSet<Module>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    if !src.join("lib.rs").is_file() {
        println!(
            "skipped: the sources are not at {} (this test reads them; run it in the checkout)",
            src.display()
        );
        return None;
    }
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let from = module_of(&src, file);
        let text = std::fs::read_to_string(file).expect("readable source");
        let targets: BTreeSet<Module> = paths(&code_only(&text))
            .iter()
            .filter_map(|p| resolve(&modules, &from, p))
            .filter(|to| *to != from && !to.is_empty())
            .collect();
        graph.insert(from, targets);
    }
    Some(graph)
}

fn name(m: &Module) -> String {
    m.join("::")
}

#[test]
fn every_top_level_module_imports_only_layers_below_it() {
    let Some(graph) = import_graph() else { return };
    assert!(
        graph.len() > 40,
        "the source walk found {} files",
        graph.len()
    );
    let mut wrong = Vec::new();
    for (from, targets) in &graph {
        let Some(top) = from.first() else { continue };
        let level = LAYERS.iter().position(|l| l == top);
        assert!(level.is_some(), "{top} is not in LAYERS: place it");
        for to in targets {
            let to_level = LAYERS.iter().position(|l| *l == to[0]);
            if to[0] != *top && to_level >= level {
                wrong.push(format!(
                    "{} imports {} (a layer above it)",
                    name(from),
                    name(to)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let Some(graph) = import_graph() else { return };
    // Depth-first search for a back edge; report the cycle it closes.
    fn visit(
        m: &Module,
        graph: &BTreeMap<Module, BTreeSet<Module>>,
        stack: &mut Vec<Module>,
        done: &mut BTreeSet<Module>,
    ) -> Option<Vec<Module>> {
        if let Some(i) = stack.iter().position(|s| s == m) {
            return Some(stack[i..].to_vec());
        }
        if done.contains(m) {
            return None;
        }
        stack.push(m.clone());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, stack, done) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(m.clone());
        None
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        if let Some(cycle) = visit(m, &graph, &mut Vec::new(), &mut done) {
            let names: Vec<String> = cycle.iter().map(name).collect();
            panic!("import loop: {} → {}", names.join(" → "), names[0]);
        }
    }
}

#[test]
fn the_reader_sees_imports() {
    // The parser itself: a grouped `use`, a `super` path, and text that only looks like one.
    let code = code_only(
        "use crate::a::{b, c::{d, E}};\nfn f() { super::g::h(); let s = \"crate::x::y\"; }\n// crate::z\n",
    );
    let found: BTreeSet<String> = paths(&code).iter().map(name).collect();
    let expected: BTreeSet<String> = [
        "crate::a::b",
        "crate::a::c::d",
        "crate::a::c::E",
        "super::g::h",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(found, expected);
}
