//! The one way tests find the shared corpus (`$ARBITER_CORPUS`). Unset: the corpus tests
//! skip and say so on standard error. Set to something that is not a directory: the test
//! fails at once with one line saying what to fix, instead of a panic deep in a file open.

use std::path::PathBuf;

/// The corpus directory, or `None` (after a loud note) when `ARBITER_CORPUS` is unset.
pub fn corpus() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("ARBITER_CORPUS") else {
        eprintln!(
            "SKIPPED: ARBITER_CORPUS is not set, so the corpus tests did not run; \
             set it to the shared corpus (ARBITER_CORPUS=../shared/corpus) to run them"
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
