//! House order that stays true, in every crate of the workspace: modules import downhill (no
//! circle of modules; the composer's stages and the front end's layers in their order), no
//! function passes 150 lines and no file 800 lines of code.
//!
//! The import graph is read from the source, as a person reads it: a module is a file; a file
//! imports another when it names a path into it (`use crate::a::b::X`, `super::X`,
//! `crate::a::f(…)`, or a child module by its bare name). A path through a `pub use`
//! re-export counts for the file that defines the item, so a `mod.rs` that only declares and
//! re-exports is no hub. Test modules (`#[cfg(test)]` to the end of a file) and comments are
//! left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::harness::root;

type Module = Vec<String>;

/// Every `.rs` file under `dir` (a crate's `src/`), by module path (`crate::a::b`).
fn modules(dir: &Path) -> BTreeMap<Module, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(dir).unwrap().with_extension("");
                let mut m: Module = vec!["crate".into()];
                m.extend(rel.iter().map(|p| p.to_string_lossy().into_owned()));
                if matches!(m.last().map(String::as_str), Some("lib" | "mod" | "main")) {
                    m.pop();
                }
                out.insert(m, path);
            }
        }
    }
    out
}

/// A file's code: up to its test module, without comment lines.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `a::{b, c::{d, e}}` as its paths `a::b`, `a::c::d`, `a::c::e` (aliases dropped).
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        return vec![path.to_string()];
    };
    let (prefix, inner) = (
        &tree[..open],
        &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())],
    );
    let (mut parts, mut depth, mut current) = (Vec::new(), 0, String::new());
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
        .iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(|p| expand(p).into_iter().map(|q| format!("{prefix}{q}")))
        .collect()
}

/// The `use` trees of a file's code, `pub` ones apart.
fn uses(code: &str) -> Vec<(bool, String)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("use ") {
        let before = &rest[..i];
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        let head = before[line_start..].trim();
        let at_statement = head.is_empty() || head.starts_with("pub");
        let Some(end) = rest[i..].find(';') else {
            break;
        };
        if at_statement {
            out.push((head.starts_with("pub"), rest[i + 4..i + end].to_string()));
        }
        rest = &rest[i + end..];
    }
    out
}

/// `p` (written in module `m`) as an absolute module path, or `None` when it leaves the
/// crate.
fn absolute(m: &Module, p: &str, files: &BTreeMap<Module, PathBuf>) -> Option<Module> {
    let segs: Vec<&str> = p
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let first = *segs.first()?;
    let mut out: Module = match first {
        "crate" => vec!["crate".into()],
        "self" => m.clone(),
        "super" => {
            let mut base = m.clone();
            let mut k = 0;
            while segs.get(k) == Some(&"super") {
                base.pop();
                k += 1;
            }
            base.extend(segs[k..].iter().map(|s| s.to_string()));
            return Some(base);
        }
        child => {
            let mut c = m.clone();
            c.push(child.into());
            if !files.contains_key(&c) {
                return None;
            }
            m.clone()
        }
    };
    out.extend(
        segs.iter()
            .skip(usize::from(matches!(first, "crate" | "self")))
            .map(|s| s.to_string()),
    );
    Some(out)
}

/// Which module each file imports from.
fn import_graph(dir: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let files = modules(dir);
    let codes: BTreeMap<&Module, String> = files.iter().map(|(m, p)| (m, code(p))).collect();
    // `pub use` re-exports: (module, name) → what it names (`None`: another crate's).
    let mut reexports: BTreeMap<(Module, String), Option<Module>> = BTreeMap::new();
    for (m, code) in &codes {
        for (public, tree) in uses(code) {
            for path in expand(&tree).iter().filter(|_| public) {
                let name = tree_alias(&tree, path);
                reexports.insert(((*m).clone(), name), absolute(m, path, &files));
            }
        }
    }
    let resolve = |segs: &Module| -> Option<Module> {
        let mut segs = segs.clone();
        for _ in 0..20 {
            let k = (1..=segs.len())
                .rev()
                .find(|k| files.contains_key(&segs[..*k]))?;
            let module = segs[..k].to_vec();
            match segs
                .get(k)
                .and_then(|name| reexports.get(&(module.clone(), name.clone())))
            {
                Some(Some(target)) => {
                    let mut next = target.clone();
                    next.extend(segs[k + 1..].iter().cloned());
                    segs = next;
                }
                Some(None) => return None,
                None => return Some(module),
            }
        }
        None
    };
    let mut graph = BTreeMap::new();
    for (m, code) in &codes {
        let mut paths: Vec<String> = uses(code)
            .into_iter()
            .flat_map(|(_, tree)| expand(&tree))
            .collect();
        // Paths written inline: `crate::a::f(…)`, `super::X`, and a child by its name.
        let children: Vec<&String> = files
            .keys()
            .filter(|k| k.len() == m.len() + 1 && k.starts_with(m))
            .map(|k| k.last().unwrap())
            .collect();
        let words: Vec<&str> = code
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .collect();
        for w in words {
            // `super::{…}` leaves a bare `super::` here; its paths come from the use line.
            let w = w.trim_start_matches(':').trim_end_matches(':');
            let head = w.split("::").next().unwrap_or("");
            if w.contains("::")
                && (head == "crate" || head == "super" || children.iter().any(|c| *c == head))
            {
                paths.push(w.to_string());
            }
        }
        let mut targets = BTreeSet::new();
        for p in paths {
            if let Some(t) = absolute(m, &p, &files).and_then(|a| resolve(&a))
                && t != **m
            {
                targets.insert(t);
            }
        }
        graph.insert((*m).clone(), targets);
    }
    graph
}

/// The name a `pub use` tree gives `path` (its alias, or its last segment).
fn tree_alias(tree: &str, path: &str) -> String {
    let last = path.rsplit("::").next().unwrap_or(path).trim().to_string();
    // `x as y` inside the tree: find this path's own alias.
    for piece in tree.split([',', '{', '}']) {
        if let Some((name, alias)) = piece.split_once(" as ")
            && name.trim().rsplit("::").next() == Some(last.as_str())
        {
            return alias.trim().to_string();
        }
    }
    last
}

/// The circles of the graph (strongly connected sets of more than one module).
fn circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    let reach = |from: &Module| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(m) = stack.pop() {
            for t in graph.get(&m).into_iter().flatten() {
                if seen.insert(t.clone()) {
                    stack.push(t.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&Module, BTreeSet<Module>> =
        graph.keys().map(|m| (m, reach(m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for m in graph.keys() {
        if done.contains(m) {
            continue;
        }
        let circle: Vec<&Module> = graph
            .keys()
            .filter(|o| *o != m && reaches[m].contains(*o) && reaches[*o].contains(m))
            .collect();
        if !circle.is_empty() {
            let mut names: Vec<String> = circle.iter().map(|c| c.join("::")).collect();
            names.push(m.join("::"));
            names.sort();
            done.extend(circle.into_iter().cloned());
            out.push(names);
        }
        done.insert(m.clone());
    }
    out
}

/// Every crate's sources (the front end, the libraries, the benchmark suite).
const CRATES: [&str; 8] = [
    "src",
    "sim-core/src",
    "model-api/src",
    "models/src",
    "scenario/src",
    "expr/src",
    "benches/suite",
    "tests/cli",
];

#[test]
fn every_crate_imports_downhill() {
    for dir in CRATES {
        let graph = import_graph(&root().join(dir));
        assert!(!graph.is_empty(), "{dir}: no modules read");
        assert_eq!(
            circles(&graph),
            Vec::<Vec<String>>::new(),
            "{dir}: import circles"
        );
    }
}

#[test]
fn the_graph_sees_a_circle_through_a_parent_and_a_re_export() {
    // A planted crate: a's child imports the parent's item, the parent uses the child, and b
    // reaches a through a re-export at the root; c only declares and re-exports.
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::create_dir_all(src.join("c")).unwrap();
    let files = [
        (
            "lib.rs",
            "pub mod a;\npub mod b;\npub mod c;\npub use a::Thing;\n",
        ),
        (
            "a/mod.rs",
            "pub mod kid;\npub struct Thing;\nfn f() { kid::g(); }\n",
        ),
        ("a/kid.rs", "use super::Thing;\npub fn g() {}\n"),
        ("b.rs", "use crate::Thing;\n"),
        ("c/mod.rs", "mod low;\npub use low::Low;\n"),
        ("c/low.rs", "pub struct Low;\n"),
    ];
    for (name, text) in files {
        std::fs::write(src.join(name), text).unwrap();
    }
    let graph = import_graph(src);
    let of = |m: &str| -> Module { m.split("::").map(String::from).collect() };
    // b → a (through the root's re-export), not b → the root.
    assert!(graph[&of("crate::b")].contains(&of("crate::a")));
    assert!(!graph[&of("crate::b")].contains(&of("crate")));
    assert_eq!(
        circles(&graph),
        vec![vec!["crate::a".to_string(), "crate::a::kid".to_string()]]
    );
}

/// Each function's name, first line and length in lines, brace-matched (strings and
/// comments left out).
fn functions(path: &Path) -> Vec<(String, usize, usize)> {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let t = t
            .strip_prefix("pub(crate) ")
            .or_else(|| t.strip_prefix("pub(super) "))
            .or_else(|| t.strip_prefix("pub "))
            .unwrap_or(t);
        let t = t.strip_prefix("const ").unwrap_or(t);
        let Some(rest) = t.strip_prefix("fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let (mut depth, mut opened) = (0i32, false);
        for (j, l) in lines.iter().enumerate().skip(i) {
            let l = strip_literals(l);
            for c in l.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if !opened && l.trim_end().ends_with(';') {
                break;
            }
            if opened && depth <= 0 {
                out.push((name.clone(), i + 1, j - i + 1));
                break;
            }
        }
    }
    out
}

/// A line without its comment and the insides of its string and character literals.
fn strip_literals(line: &str) -> String {
    let (mut out, mut chars) = (String::new(), line.chars().peekable());
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(d) = chars.next() {
                    if d == '\\' {
                        chars.next();
                    } else if d == '"' {
                        break;
                    }
                }
            }
            '\'' if chars.clone().nth(1) == Some('\'') => {
                chars.next();
                chars.next();
            }
            '/' if chars.peek() == Some(&'/') => break,
            c => out.push(c),
        }
    }
    out
}

/// Every `.rs` file of the workspace's crates and of the integration tests.
fn workspace_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = CRATES.iter().map(|d| root().join(d)).collect();
    stack.push(root().join("tests"));
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn no_function_passes_150_lines_and_no_file_800_lines_of_code() {
    let mut long = Vec::new();
    for path in workspace_files() {
        for (name, line, n) in functions(&path) {
            if n > 150 {
                long.push(format!("{}:{line}: {name} has {n} lines", path.display()));
            }
        }
        // A file's unit tests after `#[cfg(test)]` aside; an integration-test file whole.
        let text = std::fs::read_to_string(&path).unwrap();
        let integration = path.starts_with(root().join("tests"));
        let code = if integration {
            &text[..]
        } else {
            text.split("#[cfg(test)]").next().unwrap_or("")
        };
        let lines = code.lines().count();
        if lines > 800 {
            long.push(format!("{}: {lines} lines of code", path.display()));
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
    // The count sees a long one: 152 lines of body.
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("f.rs");
    std::fs::write(
        &f,
        format!(
            "fn big() {{\n{}}}\nfn small() {{ let s = \"{{\"; }}\n",
            "    x();\n".repeat(150)
        ),
    )
    .unwrap();
    assert_eq!(
        functions(&f),
        [("big".to_string(), 1, 152), ("small".to_string(), 153, 1)]
    );
}

/// The composer's stages, lowest first: a module imports only modules of its own stage or
/// of a lower one (the machines know nothing of actors; the syntax nothing of a point; the
/// point nothing of a run; a run nothing of an exploration).
#[test]
fn the_composers_stages_import_only_the_stages_below_them() {
    const STAGES: [&str; 6] = ["machine", "syntax", "point", "run", "explore", ""];
    let stage = |m: &Module| {
        let top = m.get(1).map_or("", String::as_str);
        STAGES
            .iter()
            .position(|s| *s == top)
            .unwrap_or(STAGES.len() - 1)
    };
    let graph = import_graph(&root().join("scenario/src"));
    let mut up = Vec::new();
    for (from, tos) in &graph {
        for to in tos {
            if stage(to) > stage(from) {
                up.push(format!("{} → {}", from.join("::"), to.join("::")));
            }
        }
    }
    assert!(up.is_empty(), "imports up a stage:\n{}", up.join("\n"));
    // Every stage is there: the test reads the folders it names.
    for s in &STAGES[..5] {
        assert!(
            graph.keys().any(|m| m.get(1).is_some_and(|t| t == s)),
            "no module in scenario/src/{s}/"
        );
    }
}

/// The front end's layers as the README lists them under `src/`, lowest first: each bullet
/// a layer, each backticked name that is a module of `src/` a member.
fn readme_layers() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("\n- `src/`:").expect("the README maps src/");
    let section = &readme[start + 1..];
    let end = section[1..].find("\n- ").map_or(section.len(), |e| e + 1);
    let modules: BTreeSet<String> = modules(&root().join("src"))
        .keys()
        .filter_map(|m| m.get(1).cloned())
        .collect();
    let mut layers: Vec<Vec<String>> = Vec::new();
    for line in section[..end].lines().skip(1) {
        if line.starts_with("  - ") {
            layers.push(Vec::new());
        }
        let Some(layer) = layers.last_mut() else {
            continue;
        };
        for (i, part) in line.split('`').enumerate() {
            let name = part.trim_end_matches('/');
            if i % 2 == 1 && modules.contains(name) && !layer.iter().any(|n| n == name) {
                layer.push(name.to_string());
            }
        }
    }
    layers
}

#[test]
fn the_front_end_imports_down_the_readmes_layers() {
    let layers = readme_layers();
    let layer_of = |m: &str| layers.iter().position(|l| l.iter().any(|n| n == m));
    // Every module of src/ is on the map (the README cannot go stale), once.
    let graph = import_graph(&root().join("src"));
    let mut unmapped = BTreeSet::new();
    for m in graph.keys().filter_map(|m| m.get(1)) {
        if m != "main" && layer_of(m).is_none() {
            unmapped.insert(m.clone());
        }
    }
    assert!(
        unmapped.is_empty(),
        "not in the README's map of src/: {unmapped:?}"
    );
    let named: Vec<&String> = layers.iter().flatten().collect();
    let unique: BTreeSet<&String> = named.iter().copied().collect();
    assert_eq!(
        named.len(),
        unique.len(),
        "a module in two layers: {layers:?}"
    );
    assert!(layers.len() >= 4, "{layers:?}");
    let mut up = Vec::new();
    for (from, tos) in &graph {
        let Some(f) = from.get(1).and_then(|m| layer_of(m)) else {
            continue;
        };
        for to in tos {
            if let Some(t) = to.get(1).and_then(|m| layer_of(m))
                && t > f
            {
                up.push(format!("{} → {}", from.join("::"), to.join("::")));
            }
        }
    }
    assert!(
        up.is_empty(),
        "imports up the README's layers:\n{}",
        up.join("\n")
    );
}
