//! `arbiter check FILES --output DIR --format parquet`, the map step of a cluster run, end to
//! end with the real binary: the shard folder's tables hold as many rows as `check` counts,
//! the same input gives byte-identical files (from a file or from stdin), the marker appears
//! only when a shard is complete, a re-run after a killed run replaces what it left, and bad
//! values are usage errors.

use parquet::file::reader::{FileReader, SerializedFileReader};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");
const TABLES: [&str; 5] = [
    "_SUCCESS",
    "findings.parquet",
    "games.parquet",
    "player_games.parquet",
    "positions.parquet",
];

fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("binary runs")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The inputs: the bundled sample, and a lichess file of the corpus when it is there.
fn inputs() -> Vec<PathBuf> {
    let mut v = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample.pgn")];
    match std::env::var_os("ARBITER_CORPUS") {
        Some(dir) => {
            v.push(PathBuf::from(dir).join("games/lichess/lichess_DannyTheDonkey_2019-01-29.pgn"))
        }
        None => eprintln!("ARBITER_CORPUS not set: the lichess shard is skipped"),
    }
    v
}

/// Every file of a folder, by name, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn rows(path: &Path) -> i64 {
    let reader = SerializedFileReader::new(File::open(path).unwrap()).unwrap();
    reader.metadata().file_metadata().num_rows()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn the_shard_tables_hold_what_check_counts() {
    let tmp = tempfile::tempdir().unwrap();
    for input in inputs() {
        let name = input.file_name().unwrap().to_str().unwrap();
        let summary = tmp.path().join(format!("{name}.json"));
        let out = tmp.path().join("out");
        let o = arbiter(&[
            "check",
            s(&input),
            "-q",
            "--output",
            s(&out),
            "--summary-json",
            s(&summary),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
        let shard = out.join(name);
        assert_eq!(names(&shard), TABLES);
        let marker: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(shard.join("_SUCCESS")).unwrap())
                .unwrap();
        let findings: u64 = summary["findings"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        let accepted = summary["accepted"].as_i64().unwrap();
        assert!(accepted > 0 && findings > 0);
        assert_eq!(marker["shard"], name);
        assert_eq!(marker["games"], summary["games"]);
        assert_eq!(marker["accepted"], summary["accepted"]);
        assert_eq!(marker["rejected"], summary["rejected"]);
        assert_eq!(marker["plies"], summary["plies"]);
        assert_eq!(marker["findings"].as_u64().unwrap(), findings);
        assert_eq!(rows(&shard.join("games.parquet")), accepted);
        assert_eq!(rows(&shard.join("player_games.parquet")), 2 * accepted);
        assert_eq!(rows(&shard.join("findings.parquet")), findings as i64);
        // One position row per position an accepted game reached: its start and each ply.
        if marker["rejected"] == 0 {
            let plies = marker["plies"].as_i64().unwrap();
            assert_eq!(rows(&shard.join("positions.parquet")), plies + accepted);
        }
    }
}

#[test]
fn the_same_input_gives_byte_identical_files_from_a_file_or_stdin() {
    let tmp = tempfile::tempdir().unwrap();
    for input in inputs() {
        let name = input.file_name().unwrap().to_str().unwrap();
        let (a, b, c) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("c"),
        );
        for (out, jobs) in [(&a, "1"), (&b, "2")] {
            let o = arbiter(&["check", s(&input), "-q", "--jobs", jobs, "--output", s(out)]);
            assert_eq!(o.status.code(), Some(0));
        }
        let mut child = Command::new(BIN)
            .args(["check", "-", "-q", "--name", name, "--output", s(&c)])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(&std::fs::read(&input).unwrap())
            .unwrap();
        assert_eq!(child.wait().unwrap().code(), Some(0));
        let first = files(&a.join(name));
        assert_eq!(first.len(), TABLES.len());
        assert_eq!(first, files(&b.join(name)), "{name}: --jobs 1 and 2 differ");
        assert_eq!(
            first,
            files(&c.join(name)),
            "{name}: stdin and the file differ"
        );
        // A re-run into the same folder replaces the shard with the same bytes.
        let o = arbiter(&["check", s(&input), "-q", "--output", s(&a)]);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(first, files(&a.join(name)));
        assert_eq!(names(&a).iter().filter(|n| n.starts_with('.')).count(), 0);
    }
}

#[test]
fn stdin_without_a_name_is_the_stdin_shard() {
    let tmp = tempfile::tempdir().unwrap();
    let input = &inputs()[0];
    let o = Command::new(BIN)
        .args(["check", "-", "-q", "--output", s(tmp.path())])
        .stdin(File::open(input).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(names(tmp.path()), ["stdin"]);
    assert_eq!(names(&tmp.path().join("stdin")), TABLES);
}

#[test]
fn the_marker_appears_only_when_the_shard_is_complete() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let input = &inputs()[0];
    let text = std::fs::read(input).unwrap();

    // A zstd stream cut in half: read to the cut, then an error. No shard, nothing left.
    let zst = zstd::encode_all(&text[..], 3).unwrap();
    let cut = tmp.path().join("cut.pgn.zst");
    std::fs::write(&cut, &zst[..zst.len() / 2]).unwrap();
    let o = arbiter(&["check", s(&cut), "-q", "--output", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cut.pgn.zst"));
    assert_eq!(names(&out), Vec::<String>::new());

    // A run killed part-way (its input still open): a temporary folder, no shard.
    let mut child = Command::new(BIN)
        .args(["check", "-", "-q", "--name", "killed", "--output", s(&out)])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&text[..text.len() / 2]).unwrap();
    stdin.flush().unwrap();
    let start = Instant::now();
    while !names(&out).iter().any(|n| n.starts_with(".killed.tmp-")) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no temporary folder"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    drop(stdin);
    let left = names(&out);
    assert_eq!(left.len(), 1);
    assert!(left[0].starts_with(".killed.tmp-"), "{left:?}");

    // An earlier shard folder without its marker, too: the re-run replaces both.
    std::fs::create_dir_all(out.join("killed")).unwrap();
    std::fs::write(out.join("killed/games.parquet"), b"half a file").unwrap();
    let o = Command::new(BIN)
        .args(["check", "-", "-q", "--name", "killed", "--output", s(&out)])
        .stdin(File::open(input).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(names(&out), ["killed"]);
    let fresh = tmp.path().join("fresh");
    let o = Command::new(BIN)
        .args([
            "check",
            "-",
            "-q",
            "--name",
            "killed",
            "--output",
            s(&fresh),
        ])
        .stdin(File::open(input).unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(files(&out.join("killed")), files(&fresh.join("killed")));
}

#[test]
fn bad_values_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let sample = &inputs()[0];
    let out = tmp.path().join("out");
    let o = arbiter(&["check", s(sample), "--output", s(&out), "--format", "csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("parquet"));
    // Two inputs that would write one shard, and --name for two inputs.
    let copy = tmp.path().join("sample.pgn");
    std::fs::copy(sample, &copy).unwrap();
    let o = arbiter(&["check", s(sample), s(&copy), "--output", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"sample.pgn\""));
    let o = arbiter(&["check", s(sample), "-", "--name", "x", "--output", s(&out)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--name names one shard"));
    // --name and --format mean nothing without --output.
    let o = arbiter(&["check", s(sample), "--name", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.exists(), "nothing written before the usage errors");
}
