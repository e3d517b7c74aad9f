//! The one way tests find the shared corpus (`$ARBITER_CORPUS`). Unset: the corpus tests
//! skip and say so on standard error. Set to something that is not a directory: the test
//! fails at once with one line saying what to fix, instead of a panic deep in a file open.

pub mod cli;
pub mod shell;

use std::path::PathBuf;

/// The corpus directory, or `None` (after a loud note) when `ARBITER_CORPUS` is unset.
/// The note goes straight to the process's standard error, past the test harness's
/// capture (which takes only `print!`/`eprint!`), so `cargo test` shows one `SKIPPED` line
/// per skipped test, named.
pub fn corpus() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("ARBITER_CORPUS") else {
        use std::io::Write;
        let test = std::thread::current()
            .name()
            .unwrap_or("a corpus test")
            .to_owned();
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {test}: ARBITER_CORPUS is not set (ARBITER_CORPUS=../shared/corpus runs it)"
        );
        return None;
    };
    let dir = PathBuf::from(dir);
    assert!(
        dir.is_dir(),
        "ARBITER_CORPUS={} is not a directory: point it at the shared corpus or unset it",
        dir.display()
    );
    Some(dir)
}

/// Whether the long tests run: the corpus-scale oracles and the engine runs that take a
/// minute or more each. README's test command leaves them out (with a `SKIPPED` line each, as
/// for the corpus), and `.ci/run` runs them by name in a step of its own with
/// `ARBITER_LONG_TESTS=1`; `ci_run_names_every_long_test` keeps that list whole.
pub fn long() -> bool {
    if std::env::var_os("ARBITER_LONG_TESTS").is_some() {
        return true;
    }
    use std::io::Write;
    let test = std::thread::current()
        .name()
        .unwrap_or("a long test")
        .to_owned();
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {test}: a long test (.ci/run runs it; ARBITER_LONG_TESTS=1 runs it here)"
    );
    false
}

/// Stockfish on `PATH` or at Debian's `/usr/games/stockfish`, or `None` after a loud note:
/// the tests that run it skip without it (`.ci/run` installs it).
pub fn stockfish() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("stockfish"))
        .chain([PathBuf::from("/usr/games/stockfish")])
        .find(|p| p.is_file());
    if found.is_none() {
        eprintln!("SKIPPED: stockfish is not on PATH nor at /usr/games/stockfish");
    }
    found
}
