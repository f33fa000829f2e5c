//! Leaving on a signal. Closing the terminal (SIGHUP), `kill` (SIGTERM) or
//! Ctrl-C in `--plain` mode (SIGINT) used to end the process on the spot,
//! so a game left that way escaped the recorded loss of the man page's
//! "Don't quit!" and could leave the terminal in raw mode. With [`Stop`]
//! installed the signal only raises a flag; the game loops see it, restore
//! the terminal and return, and the game is recorded like any quit. A
//! second signal while that runs ends the process at once, so a stuck exit
//! can still be killed.

use crate::TuiError;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Whether a terminating signal has arrived, and which.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    raised: Arc<AtomicBool>,
    which: Arc<AtomicUsize>,
}

impl Stop {
    /// A flag no signal raises (tests, or where signals do not exist).
    #[cfg(any(test, not(unix)))]
    pub fn never() -> Stop {
        Stop::default()
    }

    /// Catches SIGHUP, SIGTERM and SIGINT from now on.
    #[cfg(unix)]
    pub fn install() -> Result<Stop, TuiError> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        use signal_hook::flag;
        let stop = Stop::default();
        for sig in [SIGHUP, SIGTERM, SIGINT] {
            // Order matters: the shutdown checks the flag before this very
            // signal raises it, so only a second signal exits at once.
            flag::register_conditional_shutdown(sig, 128 + sig, stop.raised.clone())
                .and_then(|_| flag::register_usize(sig, stop.which.clone(), sig as usize))
                .and_then(|_| flag::register(sig, stop.raised.clone()))
                .map_err(|source| TuiError::Signal {
                    signal: sig,
                    source,
                })?;
        }
        Ok(stop)
    }

    /// Catches nothing where there are no Unix signals.
    #[cfg(not(unix))]
    pub fn install() -> Result<Stop, TuiError> {
        Ok(Stop::never())
    }

    /// The signal that arrived, if one did.
    pub fn signal(&self) -> Option<i32> {
        if self.raised.load(Ordering::SeqCst) {
            Some(self.which.load(Ordering::SeqCst) as i32)
        } else {
            None
        }
    }

    /// Raises the flag as if `sig` had arrived (for tests).
    #[cfg(test)]
    pub fn raise(&self, sig: i32) {
        self.which.store(sig as usize, Ordering::SeqCst);
        self.raised.store(true, Ordering::SeqCst);
    }
}
