//! The layering as a test: the `crate::…` paths of each top-level module's files (outside
//! their `#[cfg(test)]` items, which may reach anywhere to build their data), read with
//! comments and string literals blanked, against the imports no module may make
//! (docs/ARCHITECTURE.md). Also: SQL statements and the schema version live in `src/db/`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// (from, to): `from`'s code never names `crate::to`.
const NEVER: &[(&str, &str)] = &[
    ("identity", "db"),
    ("db", "pgn"),
    ("db", "stats"),
    ("db", "export"),
    ("db", "pipeline"),
    ("chess", "pgn"),
    ("laws", "search"),
    ("game", "laws"),
    ("export", "stats"),
    ("search", "db"),
    ("positions", "db"),
    ("positions", "export"),
];

/// Files outside `src/db/` that still hold SQL statements, to be moved under `src/db/`.
/// The list only shrinks: a file that no longer holds SQL must leave it.
const SQL_NOT_YET_IN_DB: &[&str] = &[];

/// Files outside `src/db/` that still read or set the schema version; the list only
/// shrinks.
const VERSION_NOT_YET_IN_DB: &[&str] = &[];

/// A source file read for the checks: its code with comments and literals blanked, and its
/// string literals, both without the `#[cfg(test)]` items.
struct Source {
    path: String,
    code: String,
    strings: Vec<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The library's files but `lib.rs` and `main.rs`, by top-level module.
fn sources() -> Vec<(String, Source)> {
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files
        .into_iter()
        .filter_map(|p| {
            let rel = p
                .strip_prefix(root())
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            let under = rel.strip_prefix("src/")?;
            let module = under.split('/').next()?.trim_end_matches(".rs").to_owned();
            if module == "lib" || module == "main" {
                return None;
            }
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{rel}: {e}"));
            let (code, strings) = without_tests(&text);
            Some((
                module,
                Source {
                    path: rel,
                    code,
                    strings,
                },
            ))
        })
        .collect()
}

/// Splits Rust text into code (comments and literals blanked, so a path inside a string or
/// a doc comment is not an import) and its string literals, each with its byte span.
fn lex(text: &str) -> (Vec<u8>, Vec<(usize, usize)>) {
    let b = text.as_bytes();
    let mut code = b.to_vec();
    let mut strings = Vec::new();
    let mut i = 0;
    let blank = |code: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut code[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |n| i + n);
                blank(&mut code, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let (mut depth, mut j) = (1, i + 2);
                while j < b.len() && depth > 0 {
                    if b[j..].starts_with(b"/*") {
                        depth += 1;
                        j += 2;
                    } else if b[j..].starts_with(b"*/") {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                blank(&mut code, i, j);
                i = j;
            }
            b'r' if !ident_before(b, i) && matches!(b.get(i + 1), Some(b'"' | b'#')) => {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let open = i + 2 + hashes;
                let mut close = vec![b'"'];
                close.extend(std::iter::repeat_n(b'#', hashes));
                let end = b[open..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(b.len(), |n| open + n);
                strings.push((open, end));
                let stop = (end + close.len()).min(b.len());
                blank(&mut code, i, stop);
                i = stop;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(b.len());
                strings.push((i + 1, end));
                let stop = (end + 1).min(b.len());
                blank(&mut code, i, stop);
                i = stop;
            }
            // A character literal (`'{'`, `'\''`), not a lifetime (`'a`).
            b'\'' => {
                let len = if b.get(i + 1) == Some(&b'\\') {
                    b[i + 2..].iter().position(|&c| c == b'\'').map(|n| n + 3)
                } else {
                    let ch = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (b.get(i + 1 + ch) == Some(&b'\'')).then_some(ch + 2)
                };
                match len {
                    Some(n) => {
                        blank(&mut code, i, i + n);
                        i += n;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    (code, strings)
}

fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// The code and the string literals of `text` outside its `#[cfg(test)]` items (the item
/// after the attribute, up to its closing brace or semicolon).
fn without_tests(text: &str) -> (String, Vec<String>) {
    let (code, spans) = lex(text);
    let mut skip: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(n) = find(&code[from..], b"#[cfg(test)]") {
        let at = from + n;
        let mut j = at + b"#[cfg(test)]".len();
        let mut depth = 0usize;
        while j < code.len() {
            match code[j] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        j += 1;
                        break;
                    }
                }
                b';' if depth == 0 => {
                    j += 1;
                    break;
                }
                _ => {}
            }
            j += 1;
        }
        skip.push((at, j));
        from = j;
    }
    let inside = |i: usize| skip.iter().any(|&(a, b)| (a..b).contains(&i));
    let kept: Vec<u8> = code
        .iter()
        .enumerate()
        .map(|(i, &c)| if inside(i) && c != b'\n' { b' ' } else { c })
        .collect();
    let strings = spans
        .into_iter()
        .filter(|&(a, _)| !inside(a))
        .map(|(a, b)| text[a..b].to_owned())
        .collect();
    (String::from_utf8_lossy(&kept).into_owned(), strings)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The top-level modules a file's code names: `crate::x` and `use crate::{x, y::…}`.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && code[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = code[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            // The first segment of each top-level entry of the group.
            let mut depth = 0;
            let mut entry_start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => entry_start = true,
                    c if entry_start && !c.is_whitespace() => {
                        out.insert(ident(&group[k..]));
                        entry_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out.remove("");
    out
}

/// Whether a string literal is an SQL statement: a SELECT … FROM, an INSERT INTO, an
/// UPDATE … SET, a DELETE FROM (upper case, as every statement here is written). A query of
/// Parquet files is help text for another tool, not ours.
fn is_sql(s: &str) -> bool {
    if s.contains(".parquet") {
        return false;
    }
    let words: Vec<&str> = s
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .collect();
    let has = |w: &str| words.contains(&w);
    let follows = |a: &str, b: &str| words.windows(2).any(|p| p[0] == a && p[1] == b);
    (has("SELECT") && has("FROM"))
        || follows("INSERT", "INTO")
        || (has("UPDATE") && has("SET"))
        || follows("DELETE", "FROM")
}

#[test]
fn no_module_imports_what_its_layer_must_not_see() {
    let mut broken = Vec::new();
    for (module, src) in sources() {
        let named = named_modules(&src.code);
        for &(from, to) in NEVER {
            if module == from && named.contains(to) {
                broken.push(format!("{} ({from}) names crate::{to}", src.path));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "forbidden imports:\n  {}",
        broken.join("\n  ")
    );
}

/// The files outside `src/db/` whose code or literals (outside tests) meet `hit`.
fn outside_db(hit: impl Fn(&Source) -> bool) -> Vec<String> {
    sources()
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| !s.path.starts_with("src/db/") && s.path != "src/layering.rs" && hit(s))
        .map(|s| s.path)
        .collect()
}

/// The files that meet a rule differ from the list of those not yet moved: a new one, or
/// one that moved and must leave the list.
fn check_list(found: &[String], listed: &[&str], what: &str) {
    let new: Vec<&String> = found
        .iter()
        .filter(|p| !listed.contains(&p.as_str()))
        .collect();
    let moved: Vec<&&str> = listed
        .iter()
        .filter(|p| !found.iter().any(|f| f == **p))
        .collect();
    assert!(
        new.is_empty() && moved.is_empty(),
        "{what} outside src/db/ in {new:?}; no longer in {moved:?} (take them off the list)"
    );
}

#[test]
fn sql_statements_live_under_db() {
    let found = outside_db(|s| {
        s.strings.iter().any(|t| is_sql(t))
            || (s.code.contains("include_str!") && s.strings.iter().any(|t| t.ends_with(".sql")))
    });
    check_list(&found, SQL_NOT_YET_IN_DB, "SQL statements");
}

/// The library layers the command line calls: none of them carries the command-line
/// parser (a closed set of values is a `crate::choice::Choice`; `cli::choice` parses it).
const WITHOUT_CLAP: &[&str] = &["export", "stats", "positions", "db"];

#[test]
fn the_library_layers_carry_no_command_line_parser() {
    let found: Vec<String> = sources()
        .into_iter()
        .filter(|(m, s)| WITHOUT_CLAP.contains(&m.as_str()) && s.code.contains("clap"))
        .map(|(_, s)| s.path)
        .collect();
    assert!(found.is_empty(), "clap in {found:?}");
}

/// The library layers that print nothing: what they have to tell the user comes back to
/// `cli/` as a value it prints (the pipeline's notes, `pipeline::report`; its errors).
const SILENT: &[&str] = &["pipeline"];

/// Whether code (comments and literals blanked) prints: `print!`, `println!`, `eprint!`,
/// `eprintln!` or `dbg!`.
fn prints(code: &str) -> bool {
    ["print!", "println!", "dbg!"]
        .iter()
        .any(|m| code.contains(m))
}

#[test]
fn the_pipeline_prints_nothing() {
    let found: Vec<String> = sources()
        .into_iter()
        .filter(|(m, s)| SILENT.contains(&m.as_str()) && prints(&s.code))
        .map(|(_, s)| s.path)
        .collect();
    assert!(
        found.is_empty(),
        "printing in {found:?}: hand a note or an error back to cli/ instead"
    );
}

#[test]
fn the_schema_version_is_read_under_db_only() {
    let found = outside_db(|s| {
        s.code.contains("user_version") || s.strings.iter().any(|t| t.contains("user_version"))
    });
    check_list(&found, VERSION_NOT_YET_IN_DB, "the schema version");
}

#[test]
fn the_reader_sees_paths_in_code_only() {
    let (code, strings) = without_tests(
        "use crate::{db::x, pgn};\n// crate::stats\nlet s = \"crate::export SELECT a FROM b\";\n\
         let c = '{'; fn f<'a>() {}\n#[cfg(test)]\nmod tests { use crate::laws; }\n\
         use crate::chess::Move;",
    );
    let named: Vec<String> = named_modules(&code).into_iter().collect();
    assert_eq!(named, ["chess", "db", "pgn"]);
    assert_eq!(strings, ["crate::export SELECT a FROM b"]);
    assert!(is_sql(&strings[0]));
    assert!(!is_sql("select the games from a file"));
    assert!(is_sql("INSERT INTO t VALUES (1)"));
    assert!(!is_sql("SELECT eco FROM 'games/*.parquet'"));
    let (code, _) = without_tests(
        "// eprintln!(\"a\")\nlet s = \"println!\";\n#[cfg(test)]\nmod tests { fn f() { dbg!(1); } }",
    );
    assert!(!prints(&code));
    assert!(prints("if bad { eprintln!(\"{name}: {f}\"); }"));
    assert!(prints("print!(\"x\")"));
}
