//! Issue 36's ground rule: no speed-up may change a verdict. `arbiter check --findings` on
//! every PGN file of the corpus (and on the master games as one stream) must write the same
//! bytes as the binary of 2026-11-27 (`e415ff9`), whose outputs are digested in
//! `testdata/findings-digests.tsv`: per file the number of findings lines, the bytes and a
//! 64-bit FNV-1a hash of the file. Run from the corpus directory with relative names, so the
//! digests do not depend on where the corpus lives.
//!
//! A change that is meant to alter findings (a new code, a reworded message) regenerates the
//! table with `ARBITER_UPDATE_DIGESTS=1` and says why in its commit.

use crate::common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const TABLE: &str = "testdata/findings-digests.tsv";

/// Every PGN file the test reads, relative to the corpus, sorted.
fn pgn_files(corpus: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(&path, base, out);
            } else if path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".pgn"))
            {
                let rel = path.strip_prefix(base).unwrap();
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    let mut files = Vec::new();
    for sub in ["games", "pgn-edge-cases", "draw-rules", "analysis"] {
        walk(&corpus.join(sub), corpus, &mut files);
    }
    files.sort();
    files
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn digest(bytes: &[u8]) -> String {
    let lines = bytes.iter().filter(|&&b| b == b'\n').count();
    format!("{lines}\t{}\t{:016x}", bytes.len(), fnv1a(bytes))
}

/// `check --findings` of one input (a file name, or the master games on standard input).
fn findings(corpus: &Path, input: &str, stdin: Option<Vec<u8>>, out: &Path) -> Vec<u8> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_arbiter"));
    cmd.current_dir(corpus)
        .args(["check", "-q", "--jobs", "2", "--findings"])
        .arg(out)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let status = match stdin {
        Some(bytes) => {
            cmd.stdin(Stdio::piped());
            let mut child = cmd.spawn().expect("arbiter runs");
            use std::io::Write;
            child.stdin.take().unwrap().write_all(&bytes).unwrap();
            child.wait().unwrap()
        }
        None => cmd.status().expect("arbiter runs"),
    };
    assert!(
        matches!(status.code(), Some(0 | 1)),
        "{input}: exit status {status}"
    );
    std::fs::read(out).unwrap_or_else(|e| panic!("{input}: no findings file: {e}"))
}

#[test]
fn findings_are_byte_identical_on_every_corpus_file() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let corpus = corpus.canonicalize().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("findings.jsonl");
    let mut table = String::new();
    for file in pgn_files(&corpus) {
        let bytes = findings(&corpus, &file, None, &out);
        writeln!(table, "{file}\t{}", digest(&bytes)).unwrap();
    }
    let mut master: Vec<PathBuf> = std::fs::read_dir(corpus.join("games/otb-pgnmentor"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    master.sort();
    let stream: Vec<u8> = master
        .iter()
        .flat_map(|p| std::fs::read(p).unwrap())
        .collect();
    let bytes = findings(&corpus, "-", Some(stream), &out);
    writeln!(table, "otb-pgnmentor/*.pgn on stdin\t{}", digest(&bytes)).unwrap();

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(TABLE);
    if std::env::var_os("ARBITER_UPDATE_DIGESTS").is_some() {
        std::fs::write(&path, &table).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap();
    let differ: Vec<String> = expected
        .lines()
        .zip(table.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("expected {a}\n     got {b}"))
        .collect();
    assert!(
        differ.is_empty() && expected.lines().count() == table.lines().count(),
        "findings differ from the digests in {TABLE} ({} of {} inputs):\n{}",
        differ.len(),
        table.lines().count(),
        differ.join("\n")
    );
}
