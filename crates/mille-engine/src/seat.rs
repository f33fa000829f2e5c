//! Seat numbers: a [`Seat`] is made only by the rules of a table
//! ([`Rules::seat`], [`Rules::seats_iter`]) or handed out by the engine, so
//! code holding one never holds a number past the largest table.

use crate::rules::{MAX_SEATS, Rules};
use std::fmt;

/// A seat at the table, numbered from 0 in turn order.
///
/// A raw number from outside (a message, a save, a command line) becomes a
/// `Seat` only through [`Rules::seat`], which refuses a seat past the table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Seat(u8);

impl Seat {
    /// For the engine's own numbers, already known to be at the table.
    #[inline]
    pub(crate) const fn new_unchecked(n: u8) -> Seat {
        debug_assert!((n as usize) < MAX_SEATS);
        Seat(n)
    }

    /// The seat's position, for indexing per-seat arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The seat's number, as the protocol and the saves write it.
    #[inline]
    pub const fn number(self) -> u8 {
        self.0
    }
}

// Shown as the bare number, as when seats were numbers: recorded phases
// (golden files, logs) read the same.
impl fmt::Debug for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl From<Seat> for u8 {
    fn from(seat: Seat) -> u8 {
        seat.0
    }
}

impl From<Seat> for usize {
    fn from(seat: Seat) -> usize {
        seat.index()
    }
}

impl Rules {
    /// Seat `n` of this table, or `None` when the table has no such seat.
    #[inline]
    pub const fn seat(&self, n: u8) -> Option<Seat> {
        if n < self.seats { Some(Seat(n)) } else { None }
    }

    /// Every seat of this table, in turn order.
    pub fn seats_iter(&self) -> impl Iterator<Item = Seat> + Clone + use<> {
        (0..self.seats).map(Seat)
    }
}
