//! The long tests (`common::long`) leave README's test command for a step of `.ci/run` of
//! their own; a long test that step does not name would never run anywhere. This checks
//! that every test gated by `common::long()` is named in `.ci/run`, and that `.ci/run`
//! names no long test that does not exist.

use std::path::Path;

/// `module::test` for every test function whose body starts with the `common::long()` gate.
fn gated() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let module = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut last_fn = None;
        for line in text.lines() {
            let t = line.trim_start();
            if let Some(rest) = t.strip_prefix("fn ") {
                last_fn = rest.split('(').next().map(str::to_owned);
            }
            if (t.starts_with("if !crate::common::long()") || t.starts_with("if !common::long()"))
                && let Some(f) = &last_fn
            {
                names.push(format!("{module}::{f}"));
            }
        }
    }
    names.sort();
    names
}

#[test]
fn ci_run_names_every_long_test() {
    let ci =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run")).unwrap();
    let gated = gated();
    assert!(gated.len() >= 10, "{gated:?}");
    for name in &gated {
        assert!(
            ci.contains(name.as_str()),
            ".ci/run does not run the long test {name}"
        );
    }
    // And every name in .ci/run's list is a gated test.
    let listed: Vec<&str> = ci
        .lines()
        .filter_map(|l| l.trim().strip_prefix("long_test "))
        .collect();
    assert_eq!(listed.len(), gated.len(), "{listed:?} against {gated:?}");
}
