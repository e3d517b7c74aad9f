//! The `arbiter` binary: everything lives in the library; `cli::run` maps its outcome to the exit status.

// Many small allocations per game (tags, comments, findings) on several threads at once:
// mimalloc's per-thread heaps keep the workers from contending on the allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    arbiter::cli::run()
}
