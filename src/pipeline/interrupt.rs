//! Ctrl-C as a request, not a kill: after `install`, SIGINT sets a flag that long stages poll
//! (`requested`), so they commit what is done and say how to go on. A second Ctrl-C, once
//! the flag is set, ends the process at once as usual. Unix only; elsewhere Ctrl-C keeps its
//! default action.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C was pressed since `install`.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

#[cfg(unix)]
mod imp {
    use super::REQUESTED;
    use std::sync::atomic::Ordering;

    const SIGINT: i32 = 2;
    const SIG_DFL: usize = 0;

    unsafe extern "C" {
        // The C library's `signal`, which std already links on every Unix; declared here
        // rather than taking a crate for one call.
        fn signal(signum: i32, handler: usize) -> usize;
    }

    extern "C" fn on_sigint(_: i32) {
        // Only an atomic store and `signal` itself: both async-signal-safe.
        REQUESTED.store(true, Ordering::Relaxed);
        // SAFETY: restoring the default action of SIGINT, from a signal handler, is allowed.
        unsafe {
            signal(SIGINT, SIG_DFL);
        }
    }

    pub fn install() {
        // SAFETY: `on_sigint` only stores to an atomic and resets the handler.
        unsafe {
            signal(SIGINT, on_sigint as extern "C" fn(i32) as usize);
        }
    }
}

/// Catches Ctrl-C from now on (see the module).
pub fn install() {
    #[cfg(unix)]
    imp::install();
}
