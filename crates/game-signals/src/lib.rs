//! How the games leave on a signal. Closing the terminal (SIGHUP), `kill`
//! (SIGTERM) or Ctrl-C in a plain text mode (SIGINT) would end the process
//! on the spot, losing the game and, for `kill`, leaving the terminal in
//! raw mode. With [`Stop`] installed the signal only raises a flag; the
//! game loops see it, keep or record the game, restore the terminal and
//! return. A second signal while that runs ends the process at once, so a
//! stuck exit can still be killed.
//!
//! A closed terminal does not always send the game a hangup (when a shell
//! between them is the terminal's session leader, only the shell gets
//! one), and Ctrl-C on the full screen is a key, not a signal: the loops
//! then end the game with [`Stop::end_as`], which reads like the signal but
//! does not arm the immediate exit (a late hangup must not cut the saving
//! short).
//!
//! [`Ttys`] tells whether the terminal that was there has closed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// SIGHUP's number (the same on every Unix): a closed terminal.
pub const HANGUP: i32 = 1;
/// SIGINT's number (the same on every Unix): Ctrl-C.
pub const INTERRUPT: i32 = 2;

/// Whether a terminating signal has arrived, and which.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    raised: Arc<AtomicBool>,
    which: Arc<AtomicUsize>,
    /// The signal the loops ended the game as (0: none), see
    /// [`Stop::end_as`].
    ended: Arc<AtomicUsize>,
}

impl Stop {
    /// A flag no signal raises (tests, or where signals do not exist).
    pub fn never() -> Stop {
        Stop::default()
    }

    /// Catches SIGHUP, SIGTERM and SIGINT from now on.
    #[cfg(unix)]
    pub fn install() -> std::io::Result<Stop> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        use signal_hook::flag;
        let stop = Stop::default();
        for sig in [SIGHUP, SIGTERM, SIGINT] {
            // Order matters: the shutdown checks the flag before this very
            // signal raises it, so only a second signal exits at once.
            flag::register_conditional_shutdown(sig, 128 + sig, stop.raised.clone())?;
            flag::register_usize(sig, stop.which.clone(), sig as usize)?;
            flag::register(sig, stop.raised.clone())?;
        }
        Ok(stop)
    }

    /// Catches nothing where there are no Unix signals.
    #[cfg(not(unix))]
    pub fn install() -> std::io::Result<Stop> {
        Ok(Stop::never())
    }

    /// The signal that arrived, or the one the game was ended as, if any:
    /// the game must end now.
    pub fn signal(&self) -> Option<i32> {
        if self.raised.load(Ordering::SeqCst) {
            Some(self.which.load(Ordering::SeqCst) as i32)
        } else {
            match self.ended.load(Ordering::SeqCst) {
                0 => None,
                sig => Some(sig as i32),
            }
        }
    }

    /// Ends the game as if `sig` had arrived ([`HANGUP`] for a terminal
    /// found closed, [`INTERRUPT`] for Ctrl-C read as a key), without
    /// arming the immediate exit that a second real signal causes.
    pub fn end_as(&self, sig: i32) {
        self.ended.store(sig.max(1) as usize, Ordering::SeqCst);
    }

    /// Raises the flag as if `sig` had arrived (for tests).
    pub fn raise(&self, sig: i32) {
        self.which.store(sig as usize, Ordering::SeqCst);
        self.raised.store(true, Ordering::SeqCst);
    }
}

/// Which of standard input and output are terminals. A closed terminal's
/// descriptors stay open but are hung up: they are no longer terminals.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ttys {
    stdin: bool,
    stdout: bool,
}

impl Ttys {
    /// Standard input and output as they are now.
    pub fn now() -> Ttys {
        use std::io::IsTerminal;
        Ttys {
            stdin: std::io::stdin().is_terminal(),
            stdout: std::io::stdout().is_terminal(),
        }
    }

    /// Whether a terminal that was there then has closed since.
    pub fn closed(self) -> bool {
        let now = Ttys::now();
        (self.stdin && !now.stdin) || (self.stdout && !now.stdout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ending_as_a_hangup_reads_like_the_signal_but_a_real_one_wins() {
        let stop = Stop::never();
        assert_eq!(stop.signal(), None);
        stop.end_as(HANGUP);
        assert_eq!(stop.signal(), Some(HANGUP));
        stop.raise(15);
        assert_eq!(stop.signal(), Some(15));
    }
}
