//! The `arbiter` binary: everything lives in the library; `cli::run` maps its outcome to the exit status.

// Many small allocations per game (tags, comments, findings) on several threads at once:
// mimalloc's per-thread heaps keep the workers from contending on the allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    keep_freed_c_memory();
    arbiter::cli::run()
}

/// SQLite allocates with the C library's `malloc` (only Rust's allocations go to mimalloc).
/// glibc hands the top of its heap back to the system as soon as it is free, and maps every
/// block over 128 KiB on its own: an import's writer thread spent about a tenth of its time
/// in `brk`, `munmap` and the page faults after them (perf, master games). Freed C memory is
/// kept for reuse instead; the peak is unchanged (SQLite's cache is bounded, `db::open`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_c_memory() {
    use std::ffi::c_int;
    unsafe extern "C" {
        fn mallopt(param: c_int, value: c_int) -> c_int;
    }
    const M_TRIM_THRESHOLD: c_int = -1;
    const M_MMAP_THRESHOLD: c_int = -3;
    // SAFETY: mallopt(3) takes two integers and touches only the allocator's settings; it
    // runs before any other thread exists.
    unsafe {
        mallopt(M_TRIM_THRESHOLD, 256 << 20);
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_c_memory() {}
