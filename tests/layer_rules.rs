//! The layer rules of DESIGN.md §2, checked on the source: parsing (`options`), rendering
//! (`format`) and I/O (`backend`) never import each other; `model` is the shared language
//! and imports nothing else of the crate; `commands` is glue, so nothing else imports it;
//! the launcher (compute side) does not reach into a backend; the man page and completion
//! generator reads the option tables from `options`, never from `commands`.
//!
//! Every `.rs` file under `src/` is read (tests included: a test module is part of its
//! layer), comments and string literals are blanked, and each reference to another module
//! of the crate is found: `use crate::x`, grouped `use crate::{x, y::{..}}` (nested and over
//! several lines), inline paths such as `crate::x::f()` or `$crate::x`, and `super::` chains
//! that climb out to the crate root. A reference a rule forbids fails the test with
//! `file:line` and the edge.
//!
//! What the design allows and this test therefore leaves alone: a backend may start the
//! launcher and speak its protocol (`backend -> launcher`), and reads the configuration and
//! the credentials (`backend -> config, credentials`); parsers may ask the OS for facts of
//! the submitting process (`options -> sys`, e.g. the session id a JobSpec records) and use
//! the list of environment variable names (`envvars`). `main.rs` is the binary crate (its
//! `crate::` is not the library) and is skipped. docs/ARCHITECTURE.md ("Layer rules")
//! states the same table.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The crate's top-level modules (src/lib.rs).
const MODULES: &[&str] = &[
    "backend",
    "cli",
    "commands",
    "config",
    "credentials",
    "envvars",
    "format",
    "generate",
    "launcher",
    "model",
    "options",
    "sys",
];

/// For each layer, the modules it must not use. Anything not listed is allowed.
fn forbidden(layer: &str) -> Vec<&'static str> {
    let mut deny: Vec<&'static str> = match layer {
        "options" => vec![
            "format",
            "backend",
            "launcher",
            "generate",
            "config",
            "credentials",
            "cli",
        ],
        "format" => vec![
            "options",
            "backend",
            "launcher",
            "generate",
            "config",
            "credentials",
            "cli",
        ],
        "backend" => vec!["options", "format", "generate", "cli"],
        "model" => MODULES.iter().copied().filter(|m| *m != "model").collect(),
        "launcher" => vec!["backend", "options", "format", "generate"],
        "generate" => vec!["backend"],
        "cli" => vec!["format", "backend"],
        _ => Vec::new(),
    };
    // `commands` is the glue on top: nothing below it uses it.
    if layer != "commands" && !deny.contains(&"commands") {
        deny.push("commands");
    }
    deny
}

/// The layer of a file: the top-level module it belongs to.
fn layer_of(rel: &Path) -> String {
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    first.strip_suffix(".rs").unwrap_or(&first).to_string()
}

/// The module path of a file (`options/values/int.rs` -> [options, values, int];
/// `backend/mod.rs` -> [backend]; `lib.rs` -> []).
fn module_path(rel: &Path) -> Vec<String> {
    let mut segs: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if let Some(last) = segs.pop() {
        let stem = last.strip_suffix(".rs").unwrap_or(&last).to_string();
        if stem != "mod" && stem != "lib" {
            segs.push(stem);
        }
    }
    segs
}

/// The text with comments, string literals and character literals replaced by spaces
/// (newlines kept, so byte offsets and line numbers stay those of the file).
fn blank_non_code(src: &str) -> Vec<u8> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == b'/' && next == Some(b'/') {
            let end = b[i..]
                .iter()
                .position(|&x| x == b'\n')
                .map_or(b.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if c == b'/' && next == Some(b'*') {
            // Block comments nest in Rust.
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                    depth += 1;
                    j += 2;
                } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some(end) = raw_string_end(b, i) {
            blank(&mut out, i, end);
            i = end;
        } else if c == b'"' {
            let end = quoted_end(b, i + 1, b'"');
            blank(&mut out, i, end);
            i = end;
        } else if c == b'b' && next == Some(b'"') && !ident_before(b, i) {
            let end = quoted_end(b, i + 2, b'"');
            blank(&mut out, i, end);
            i = end;
        } else if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}'), else a lifetime or label.
            match char_literal_end(b, i) {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && is_ident(b[i - 1])
}

/// Where a quoted literal whose body starts at `from` ends (past the closing quote).
fn quoted_end(b: &[u8], from: usize, quote: u8) -> usize {
    let mut j = from;
    while j < b.len() {
        if b[j] == b'\\' {
            j += 2;
        } else if b[j] == quote {
            return j + 1;
        } else {
            j += 1;
        }
    }
    b.len()
}

/// `r"..."`, `r#"..."#`, `br##"..."##` starting at `i`: where it ends.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    if ident_before(b, i) {
        return None;
    }
    let mut j = i;
    if b.get(j) == Some(&b'b') {
        j += 1;
    }
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
    j += hashes;
    if b.get(j) != Some(&b'"') {
        return None;
    }
    j += 1;
    let close: Vec<u8> = std::iter::once(b'"')
        .chain(std::iter::repeat_n(b'#', hashes))
        .collect();
    let end = b[j..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map_or(b.len(), |n| j + n + close.len());
    Some(end)
}

fn char_literal_end(b: &[u8], i: usize) -> Option<usize> {
    let rest = &b[i + 1..];
    if rest.first() == Some(&b'\\') {
        // '\n', '\'', '\u{..}': the backslash, the escaped byte, then up to the quote.
        let close = rest.get(2..)?.iter().position(|&c| c == b'\'')?;
        return Some(i + 1 + 2 + close + 1);
    }
    // One character (1 to 4 bytes of UTF-8), then the closing quote.
    let len = match *rest.first()? {
        0..0x80 => 1,
        0xc0..0xe0 => 2,
        0xe0..0xf0 => 3,
        _ => 4,
    };
    (rest.get(len) == Some(&b'\'')).then_some(i + 1 + len + 1)
}

fn line_of(b: &[u8], pos: usize) -> usize {
    b[..pos].iter().filter(|&&c| c == b'\n').count() + 1
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn ident_at(b: &[u8], i: usize) -> Option<(String, usize)> {
    let len = b[i..].iter().take_while(|&&c| is_ident(c)).count();
    (len > 0).then(|| {
        (
            String::from_utf8_lossy(&b[i..i + len]).into_owned(),
            i + len,
        )
    })
}

/// The first segments of a `{ ... }` group starting at the `{` at `open`, with their
/// offsets (`{a::b, c, self, d::{e, f}}` -> a, c, d).
fn group_heads(b: &[u8], open: usize) -> Vec<(String, usize)> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut expect_head = false;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'{' => {
                depth += 1;
                if depth == 1 {
                    expect_head = true;
                }
                i += 1;
            }
            b'}' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    break;
                }
            }
            b',' => {
                if depth == 1 {
                    expect_head = true;
                }
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                if expect_head && depth == 1 {
                    expect_head = false;
                    if let Some((name, end)) = ident_at(b, i) {
                        heads.push((name, i));
                        i = end;
                        continue;
                    }
                }
                i += 1;
            }
        }
    }
    heads
}

/// Every top-level module of the crate that `code` (a blanked file) refers to, with the
/// byte offset of the reference.
fn references(code: &[u8], file_module: &[String]) -> Vec<(String, usize)> {
    let mut refs = Vec::new();
    // Inline modules (`mod tests { ... }`) deepen the module path for `super::`.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut pending_mod = false;
    let mut i = 0;
    while i < code.len() {
        let c = code[i];
        if c == b'{' {
            depth += 1;
            if pending_mod {
                inline.push(depth);
                pending_mod = false;
            }
            i += 1;
            continue;
        }
        if c == b'}' {
            if inline.last() == Some(&depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
            i += 1;
            continue;
        }
        if c == b';' {
            pending_mod = false;
        }
        if !is_ident(c) || ident_before(code, i) {
            i += 1;
            continue;
        }
        let (word, end) = ident_at(code, i).unwrap();
        match word.as_str() {
            "mod" => {
                pending_mod = true;
                i = end;
            }
            "crate" => {
                let j = skip_ws(code, end);
                if code[j..].starts_with(b"::") {
                    let k = skip_ws(code, j + 2);
                    if code.get(k) == Some(&b'{') {
                        refs.extend(
                            group_heads(code, k)
                                .into_iter()
                                .filter(|(n, _)| n != "self"),
                        );
                    } else if let Some((name, _)) = ident_at(code, k) {
                        refs.push((name, k));
                    }
                }
                i = end;
            }
            "super" => {
                // Count the chain `super::super::...`, then see where it lands.
                let mut ups = 1;
                let mut j = end;
                loop {
                    let k = skip_ws(code, j);
                    if !code[k..].starts_with(b"::") {
                        j = k;
                        break;
                    }
                    let k = skip_ws(code, k + 2);
                    match ident_at(code, k) {
                        Some((w, e)) if w == "super" => {
                            ups += 1;
                            j = e;
                        }
                        _ => {
                            j = k;
                            break;
                        }
                    }
                }
                let here = file_module.len() + inline.len();
                if ups >= here {
                    // At the crate root: the next segment (or group) names the module.
                    if code.get(j) == Some(&b'{') {
                        refs.extend(group_heads(code, j));
                    } else if let Some((name, _)) = ident_at(code, j) {
                        refs.push((name, j));
                    }
                }
                i = j.max(end);
            }
            _ => i = end,
        }
    }
    refs.retain(|(n, _)| MODULES.contains(&n.as_str()));
    refs
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every forbidden edge in the tree under `src`, as `file:line: layer -> module (text)`.
fn violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = Vec::new();
    for path in files {
        let rel = path.strip_prefix(src).unwrap();
        if rel == Path::new("main.rs") {
            continue;
        }
        let layer = layer_of(rel);
        let deny = forbidden(&layer);
        let text = std::fs::read_to_string(&path).unwrap();
        let code = blank_non_code(&text);
        let mut seen = BTreeSet::new();
        for (module, pos) in references(&code, &module_path(rel)) {
            if module == layer || !deny.contains(&module.as_str()) {
                continue;
            }
            let line = line_of(&code, pos);
            if seen.insert((line, module.clone())) {
                let source = text.lines().nth(line - 1).unwrap_or("").trim();
                found.push(format!(
                    "src/{}:{line}: {layer} -> {module}   ({source})",
                    rel.display()
                ));
            }
        }
    }
    found
}

#[test]
fn no_layer_imports_what_the_design_forbids() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = violations(&src);
    assert!(
        found.is_empty(),
        "{} forbidden import(s) between layers (DESIGN.md §2; rules in tests/layer_rules.rs):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The scanner itself, on a made-up tree.
#[test]
fn the_scanner_finds_every_form_of_reference() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |rel: &str, text: &str| {
        let p = src.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "options/a.rs",
        "use crate::model::X;\n\
         use crate::{\n    model::Y,\n    format::{text, spec},\n    self,\n};\n\
         // crate::backend in a comment\n\
         const S: &str = \"crate::backend in a string\";\n\
         const R: &str = r#\"crate::launcher\"#;\n\
         fn f<'a>(x: &'a str) -> char { let _ = crate::commands::V; 'c' }\n\
         /* crate::config /* nested */ crate::config */\n\
         fn g() { super::super::generate::run(); }\n",
    );
    write(
        "model/b/mod.rs",
        "mod tests {\n    use super::super::super::sys::now;\n    use super::*;\n}\n\
         macro_rules! m { () => { $crate::options::x() } }\n",
    );
    write("format/c.rs", "use super::d;\nuse crate::model::Job;\n");
    let found = violations(src);
    let edges: Vec<&str> = found
        .iter()
        .map(|f| f.split("   (").next().unwrap())
        .collect();
    assert_eq!(
        edges,
        [
            "src/model/b/mod.rs:2: model -> sys",
            "src/model/b/mod.rs:5: model -> options",
            "src/options/a.rs:4: options -> format",
            "src/options/a.rs:10: options -> commands",
            "src/options/a.rs:12: options -> generate",
        ]
    );
}
