//! Ctrl-C (SIGINT) as a request to stop at the next safe point, for the commands that would
//! otherwise leave something half done: an import commits what it has and says how to
//! resume, an export removes its temporary file. The handler only sets a flag (about the
//! one thing a signal handler may safely do) and the work polls it; a second Ctrl-C ends
//! the process at once, for a wait that polls nothing. A leaf module: `export` and
//! `pipeline` both read the flag.

use std::fmt;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The exit status of a run stopped by Ctrl-C: 128 + SIGINT, as shells report it.
pub const EXIT_STATUS: u8 = 130;

/// Has Ctrl-C been pressed since [`install`]?
#[inline]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Catches SIGINT from now on: the first sets the flag, the second exits with
/// [`EXIT_STATUS`] at once. Only the commands that poll the flag install it.
#[cfg(unix)]
pub fn install() {
    use std::ffi::c_int;
    const SIGINT: c_int = 2;
    unsafe extern "C" {
        fn signal(signum: c_int, handler: extern "C" fn(c_int)) -> usize;
        fn _exit(status: c_int) -> !;
    }
    extern "C" fn on_sigint(_: c_int) {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            // SAFETY: _exit(2) is async-signal-safe and takes an integer.
            unsafe { _exit(c_int::from(EXIT_STATUS)) }
        }
    }
    // SAFETY: signal(2) with SIGINT and a handler that only swaps an atomic (or calls
    // _exit); the previous handler it returns is not needed.
    unsafe {
        signal(SIGINT, on_sigint);
    }
}

#[cfg(not(unix))]
pub fn install() {}

/// The line a command that polls nothing says when Ctrl-C ends it.
const STOPPED: &[u8] = b"arbiter: interrupted (Ctrl-C)\n";

/// Catches SIGINT for a command that does not poll the flag (yet): one line on standard
/// error and [`EXIT_STATUS`] at once, as every command ends on Ctrl-C. A command that polls
/// calls [`install`] later, which takes over. Output files are written to a temporary name
/// and renamed only when complete, so nothing half-written is left under the name asked for.
#[cfg(unix)]
pub fn install_default() {
    use std::ffi::c_int;
    const SIGINT: c_int = 2;
    unsafe extern "C" {
        fn signal(signum: c_int, handler: extern "C" fn(c_int)) -> usize;
        fn write(fd: c_int, buf: *const u8, count: usize) -> isize;
        fn _exit(status: c_int) -> !;
    }
    extern "C" fn on_sigint(_: c_int) {
        // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffer is a static.
        unsafe {
            write(2, STOPPED.as_ptr(), STOPPED.len());
            _exit(c_int::from(EXIT_STATUS))
        }
    }
    // SAFETY: as in `install`.
    unsafe {
        signal(SIGINT, on_sigint);
    }
}

#[cfg(not(unix))]
pub fn install_default() {}

/// What a write returns once Ctrl-C has been pressed: the export stops there, and its
/// temporary file is removed as for any failed export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("interrupted (Ctrl-C)")
    }
}

impl std::error::Error for Interrupted {}

/// `Err(Interrupted)` as an I/O error once Ctrl-C has been pressed. Not
/// `ErrorKind::Interrupted`, which `write_all` retries for ever.
#[inline]
pub fn check() -> io::Result<()> {
    if requested() {
        Err(io::Error::other(Interrupted))
    } else {
        Ok(())
    }
}
