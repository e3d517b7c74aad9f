//! Command lines run as a user types them: through `sh` in a work folder, with the tested
//! `arbiter` first on the PATH, noting the files each line created or changed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Shell {
    work: PathBuf,
    path: String,
}

/// One line's run: its output, the files it created (by name) and whether it wrote
/// anything (a new or changed file that is not empty).
pub struct Ran {
    pub out: Output,
    pub created: Vec<String>,
    pub wrote: bool,
}

impl Shell {
    /// Puts the tested binary at `work/bin/arbiter`, first on the PATH of every line run.
    pub fn new(work: &Path) -> Shell {
        let bin = work.join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::os::unix::fs::symlink(super::cli::BIN, bin.join("arbiter")).unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Shell {
            work: work.to_owned(),
            path,
        }
    }

    pub fn run(&self, line: &str) -> Ran {
        let before = files_in(&self.work);
        let out = Command::new("sh")
            .args(["-c", line])
            .current_dir(&self.work)
            .env("PATH", &self.path)
            .output()
            .unwrap();
        let after = files_in(&self.work);
        let wrote = after.iter().any(|f| f.1 > 0 && !before.contains(f));
        let created = after
            .into_iter()
            .filter(|f| !before.iter().any(|b| b.0 == f.0))
            .map(|f| f.0)
            .collect();
        Ran {
            out,
            created,
            wrote,
        }
    }
}

/// The folder's entries with their sizes, in name order.
fn files_in(dir: &Path) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let len = e.metadata().map_or(0, |m| m.len());
            (e.file_name().to_string_lossy().into_owned(), len)
        })
        .collect();
    v.sort();
    v
}
