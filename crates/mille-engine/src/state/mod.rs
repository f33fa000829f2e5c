//! The full truth of a game: every hand, the draw pile, each side's
//! tableau, the scores, whose move it is; and the rules that move it on
//! (`legal_actions`, `check`, `apply`).
//!
//! This module holds the [`State`] and its read access; the rest lives in
//! its parts: `tableau` (a side's cards and their cached status), `legality`
//! (what may be done now), `transition` (applying actions, dealing, scoring
//! a hand), `playout` (random play-outs) and `shuffle`.

mod legality;
mod playout;
mod shuffle;
mod tableau;
mod transition;

use crate::card::{Card, CardCounts};
use crate::pile::{Discards, Pile};
use crate::rules::{ConfigError, GameConfig, MAX_SEATS, MAX_TEAMS, Rules};
use crate::score::HandScore;
use crate::seat::Seat;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

pub use legality::TurnKinds;
pub use shuffle::bounded;
pub(crate) use shuffle::shuffle;
pub use tableau::Tableau;

/// Largest deck.
pub const MAX_DECK: usize = crate::rules::MAX_DECK_CARDS;
/// Most cards a hand can hold (6 dealt, one drawn, one spare).
pub const MAX_HAND: usize = 8;
pub use crate::pile::Hand;

/// What the game is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// A seat's turn: it draws (unless `drawn`), then plays or discards.
    Turn {
        /// The seat.
        seat: Seat,
        /// Whether the draw is done (or skipped because the pile is empty).
        drawn: bool,
    },
    /// `seat` holds the safety matching the hazard just played on its side
    /// and may call coup fourré.
    CoupFourre {
        /// The seat holding the safety.
        seat: Seat,
        /// The hazard to answer.
        hazard: Card,
        /// Who played the hazard (play continues after them on a decline,
        /// in the classic timing).
        attacker: Seat,
    },
    /// `seat` reached the target and chooses whether to extend.
    Extension {
        /// The seat that reached the target.
        seat: Seat,
    },
    /// The hand is scored; the next hand may be dealt.
    HandOver,
    /// A side reached the game total; a new game may start.
    GameOver,
}

/// Who acts next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToAct {
    /// This seat decides.
    Seat(Seat),
    /// The hand is over: whoever runs the table deals the next one.
    Deal,
    /// The game is over: whoever runs the table may start another.
    GameOver,
}

/// What an applied action caused, beyond the action itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Cards drawn automatically (after a coup fourré).
    pub auto_drawn: u8,
    /// The card drawn by a `Draw` action.
    pub drawn: Option<Card>,
    /// A side completed the trip.
    pub trip_completed: Option<u8>,
    /// The hand ended with this action.
    pub hand_over: bool,
    /// The game ended with this action.
    pub game_over: bool,
}

/// The complete state of a game of Mille Bornes.
#[derive(Clone, Debug)]
pub struct State {
    pub(crate) rules: Rules,
    /// Shuffles the deck for each new hand (seeded, so games replay).
    pub(crate) rng: ChaCha8Rng,
    pub(crate) phase: Phase,
    pub(crate) deck: Pile<MAX_DECK>,
    pub(crate) discards: Discards<MAX_DECK>,
    pub(crate) hands: [Hand; MAX_SEATS],
    pub(crate) tableaux: [Tableau; MAX_TEAMS],
    /// Every card of the tableaux and the discards, counted per kind: the
    /// cards every seat has seen. Counted as cards leave the hands (see
    /// [`State::public_counts`]), recounted by [`State::refresh_all`].
    public: CardCounts,
    pub(crate) target: u16,
    /// The hazards each team may be attacked with, team `t` in bits
    /// `5t..5t+5` (hazard order), unused teams empty: kept by
    /// [`State::refresh_side`] for [`State::turn_choices`].
    attack_lanes: u64,
    /// The side that called an extension this hand.
    pub(crate) extension_caller: Option<u8>,
    pub(crate) completed: Option<u8>,
    pub(crate) completed_delayed: bool,
    /// Totals before the current hand.
    pub(crate) totals: [u32; MAX_TEAMS],
    pub(crate) games_won: [u32; MAX_TEAMS],
    pub(crate) hand_number: u32,
    pub(crate) first_seat: Seat,
    pub(crate) last_scores: Option<[HandScore; MAX_TEAMS]>,
}

/// The empty tableau of a side not at the table.
#[cold]
#[inline(never)]
fn no_tableau() -> &'static Tableau {
    static NONE: std::sync::LazyLock<Tableau> = std::sync::LazyLock::new(Tableau::default);
    &NONE
}

impl State {
    /// A new game, its first hand dealt from a ChaCha8 stream seeded by `seed`.
    pub fn new(config: GameConfig, seed: u64) -> Result<State, ConfigError> {
        let rules = Rules::new(config)?;
        let mut s = State::empty(rules, ChaCha8Rng::seed_from_u64(seed));
        s.deal(Seat::new_unchecked(0));
        Ok(s)
    }

    pub(crate) fn empty(rules: Rules, rng: ChaCha8Rng) -> State {
        let mut s = State {
            rules,
            rng,
            phase: Phase::HandOver,
            deck: Pile::default(),
            discards: Discards::default(),
            hands: [Hand::default(); MAX_SEATS],
            tableaux: [Tableau::default(); MAX_TEAMS],
            public: CardCounts::default(),
            target: rules.target,
            attack_lanes: 0,
            extension_caller: None,
            completed: None,
            completed_delayed: false,
            totals: [0; MAX_TEAMS],
            games_won: [0; MAX_TEAMS],
            hand_number: 0,
            first_seat: Seat::new_unchecked(0),
            last_scores: None,
        };
        s.refresh_all();
        s
    }

    // ----- read access -----

    /// The rules of this game.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// What the game waits for.
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// Who acts next.
    pub fn to_act(&self) -> ToAct {
        match self.phase {
            Phase::Turn { seat, .. }
            | Phase::CoupFourre { seat, .. }
            | Phase::Extension { seat } => ToAct::Seat(seat),
            Phase::HandOver => ToAct::Deal,
            Phase::GameOver => ToAct::GameOver,
        }
    }
    /// A seat's hand, in slot order (empty for a seat not at the table).
    pub fn hand(&self, seat: Seat) -> &[Card] {
        // A seat of a larger table is not at this one.
        match self.hands.get(seat.index()) {
            Some(h) if seat.number() < self.rules.seats => h.as_slice(),
            _ => &[],
        }
    }
    /// A seat's hand counted per kind (nothing for a seat not at the
    /// table): kept as cards come and go, as the computer players count
    /// their hand at every decision of their play-outs.
    #[inline]
    pub fn hand_counts(&self, seat: Seat) -> &CardCounts {
        static NONE: CardCounts = CardCounts([0; crate::card::KINDS]);
        match self.hands.get(seat.index()) {
            Some(h) if seat.number() < self.rules.seats => h.counts(),
            _ => &NONE,
        }
    }
    /// A side's tableau (an empty one for a side not at the table).
    #[inline]
    pub fn tableau(&self, team: u8) -> &Tableau {
        // Inline: the computer players ask for a tableau many times a
        // decision; a side not at the table is the rare case, out of line.
        match self.tableaux.get(usize::from(team)) {
            Some(t) if team < self.rules.teams => t,
            _ => no_tableau(),
        }
    }
    /// Cards left in the draw pile.
    pub fn deck_len(&self) -> usize {
        self.deck.len()
    }
    /// The draw pile, bottom first (the next card drawn is last).
    pub fn deck(&self) -> &[Card] {
        self.deck.as_slice()
    }
    /// The discards, oldest first.
    pub fn discards(&self) -> &[Card] {
        self.discards.as_slice()
    }
    /// The discards counted per kind.
    pub fn discard_counts(&self) -> &CardCounts {
        self.discards.counts()
    }
    /// Every card on the tableaux of the sides at the table and in the
    /// discards, counted per kind: what every seat has seen besides its
    /// own hand. Kept as cards are played rather than counted when asked,
    /// because the computer players ask at every decision of their
    /// play-outs.
    #[inline]
    pub fn public_counts(&self) -> &CardCounts {
        &self.public
    }
    /// The current trip length (700, or 1000 after an extension).
    pub fn target(&self) -> u16 {
        self.target
    }
    /// The side that extended this hand, if any.
    pub fn extension_caller(&self) -> Option<u8> {
        self.extension_caller
    }
    /// The side that completed the trip this hand, if any.
    pub fn completed(&self) -> Option<u8> {
        self.completed
    }
    /// Game totals before the current hand (after it, once it is over).
    pub fn totals(&self) -> &[u32] {
        &self.totals[..self.rules.teams as usize]
    }
    /// Games won by each side in this session.
    pub fn games_won(&self) -> &[u32] {
        &self.games_won[..self.rules.teams as usize]
    }
    /// Hands dealt in this game before the current one.
    pub fn hand_number(&self) -> u32 {
        self.hand_number
    }
    /// The seat that started the current hand.
    pub fn first_seat(&self) -> Seat {
        self.first_seat
    }
    /// The score of the hand that just ended (set at `HandOver`/`GameOver`).
    pub fn last_scores(&self) -> Option<&[HandScore]> {
        self.last_scores
            .as_ref()
            .map(|s| &s[..self.rules.teams as usize])
    }
    /// The team a seat plays for.
    #[inline]
    pub fn team_of(&self, seat: Seat) -> u8 {
        self.rules.team_of(seat)
    }
    /// The winning sides of a finished game (several on a tie).
    pub fn winners(&self) -> Vec<u8> {
        if self.phase != Phase::GameOver {
            return Vec::new();
        }
        let best = self.totals().iter().copied().max().unwrap_or(0);
        (0..self.rules.teams)
            .filter(|&t| self.totals[t as usize] == best)
            .collect()
    }

    /// Points a side has scored so far in the current hand (the full hand
    /// score once the hand is over).
    pub fn hand_points(&self, team: u8) -> HandScore {
        HandScore::running(self, team)
    }

    /// Every card the state holds, per kind (deck + hands + piles + discards).
    pub fn card_counts(&self) -> CardCounts {
        let mut counts = CardCounts::default();
        counts.add_all(self.deck.as_slice().iter().copied());
        counts.add_all(self.discards.as_slice().iter().copied());
        for h in &self.hands[..self.rules.seats as usize] {
            counts.add_all(h.as_slice().iter().copied());
        }
        for t in &self.tableaux[..self.rules.teams as usize] {
            t.count_into(&mut counts);
        }
        counts
    }
}
