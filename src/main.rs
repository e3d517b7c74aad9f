//! The `arbiter` binary: everything lives in the library; this maps its outcome to an exit code.

// Many small allocations per game (tags, comments, findings) on several threads at once:
// mimalloc's per-thread heaps keep the workers from contending on the allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(arbiter::cli::run());
}
