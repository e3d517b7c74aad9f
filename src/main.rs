//! The `arbiter` binary: everything lives in the library; this maps its outcome to an exit code.

fn main() {
    std::process::exit(arbiter::cli::run());
}
