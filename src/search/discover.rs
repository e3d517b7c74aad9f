//! Where the analysis finds a UCI engine when it is not told one: `stockfish` on `PATH`, then
//! where Debian's package installs it (`/usr/games`, which is not on every user's `PATH`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The program looked for.
pub const STOCKFISH: &str = "stockfish";

/// Debian's (and Ubuntu's) `stockfish` package.
pub const DEBIAN_STOCKFISH: &str = "/usr/games/stockfish";

/// Stockfish on this machine's `PATH`, else at `DEBIAN_STOCKFISH`.
pub fn find_stockfish() -> Option<PathBuf> {
    find(
        STOCKFISH,
        std::env::var_os("PATH").as_deref(),
        &[Path::new(DEBIAN_STOCKFISH)],
    )
}

/// The first executable file named `name` in the folders of `path_var` (a `PATH` value), else
/// the first executable of `fallbacks`.
pub fn find(name: &str, path_var: Option<&OsStr>, fallbacks: &[&Path]) -> Option<PathBuf> {
    let on_path = path_var
        .into_iter()
        .flat_map(std::env::split_paths)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name));
    on_path
        .chain(fallbacks.iter().map(|p| p.to_path_buf()))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn program(dir: &Path, name: &str, mode: u32) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    #[test]
    fn path_comes_first_then_the_fallbacks_and_only_executables_count() {
        let (a, b, c) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        program(a.path(), "stockfish", 0o644);
        let on_path = program(b.path(), "stockfish", 0o755);
        let fallback = program(c.path(), "stockfish", 0o755);
        let path = std::env::join_paths([a.path(), b.path()]).unwrap();
        assert_eq!(
            find("stockfish", Some(&path), &[&fallback]),
            Some(on_path.clone())
        );
        let only_a = std::env::join_paths([a.path()]).unwrap();
        assert_eq!(
            find("stockfish", Some(&only_a), &[&fallback]),
            Some(fallback.clone())
        );
        assert_eq!(find("stockfish", Some(&only_a), &[]), None);
        assert_eq!(
            find("stockfish", None, &[a.path()]),
            None,
            "a folder is no program"
        );
    }
}
