//! Builds a state card by card, for tests, tutorials and puzzle positions:
//! a hand, the piles, the draw pile, whose turn it is.

use crate::card::Card;
use crate::rules::{ConfigError, GameConfig, Rules};
use crate::state::{Phase, State};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// A position under construction. Nothing is dealt: every card is placed
/// by the builder, so a scenario need not use a whole deck. A seat or side
/// that is not at the table is ignored.
#[derive(Clone, Debug)]
pub struct Scenario {
    state: State,
}

impl Scenario {
    /// An empty table under `config`, seat 0 to draw.
    pub fn new(config: GameConfig) -> Result<Scenario, ConfigError> {
        let rules = Rules::new(config)?;
        let mut state = State::empty(rules, ChaCha8Rng::seed_from_u64(0));
        state.phase = Phase::Turn {
            seat: crate::seat::Seat::new_unchecked(0),
            drawn: false,
        };
        Ok(Scenario { state })
    }
    /// Sets a seat's hand.
    pub fn hand(mut self, seat: u8, cards: &[Card]) -> Self {
        if seat >= self.state.rules.seats {
            return self;
        }
        let h = &mut self.state.hands[seat as usize];
        h.clear();
        for &c in cards {
            h.push(c);
        }
        self
    }
    /// Sets a side's battle pile, bottom first.
    pub fn battle(mut self, team: u8, cards: &[Card]) -> Self {
        if team >= self.state.rules.teams {
            return self;
        }
        let p = &mut self.state.tableaux[team as usize].battle;
        p.clear();
        for &c in cards {
            p.push(c);
        }
        self
    }
    /// Sets a side's speed pile, bottom first.
    pub fn speed(mut self, team: u8, cards: &[Card]) -> Self {
        if team >= self.state.rules.teams {
            return self;
        }
        let p = &mut self.state.tableaux[team as usize].speed;
        p.clear();
        for &c in cards {
            p.push(c);
        }
        self
    }
    /// Adds distance cards to a side.
    pub fn distance(mut self, team: u8, cards: &[Card]) -> Self {
        if team >= self.state.rules.teams {
            return self;
        }
        let t = &mut self.state.tableaux[team as usize];
        for &c in cards {
            t.distance[c as usize] += 1;
            t.miles += c.miles();
        }
        self
    }
    /// Puts safeties in play for a side (as coups fourrés when `coups`).
    pub fn safeties(mut self, team: u8, cards: &[Card], coups: bool) -> Self {
        if team >= self.state.rules.teams {
            return self;
        }
        let t = &mut self.state.tableaux[team as usize];
        for s in cards.iter().filter_map(|c| c.safety()) {
            t.safeties.insert(s);
            if coups {
                t.coups.insert(s);
            }
        }
        self
    }
    /// Sets the draw pile, bottom first: the last card is drawn first.
    pub fn deck(mut self, cards: &[Card]) -> Self {
        self.state.deck.clear();
        for &c in cards {
            self.state.deck.push(c);
        }
        self
    }
    /// Sets the discards, oldest first.
    pub fn discards(mut self, cards: &[Card]) -> Self {
        self.state.discards.clear();
        for &c in cards {
            self.state.discards.push(c);
        }
        self
    }
    /// Game totals before this hand.
    pub fn totals(mut self, totals: &[u32]) -> Self {
        for (i, &t) in totals.iter().enumerate().take(self.state.totals.len()) {
            self.state.totals[i] = t;
        }
        self
    }
    /// The trip has been extended by `team`.
    pub fn extended_by(mut self, team: u8) -> Self {
        self.state.extension_caller = Some(team);
        self.state.target = self
            .state
            .rules
            .extended_target
            .unwrap_or(self.state.target);
        self
    }
    /// What the game waits for.
    pub fn phase(mut self, phase: Phase) -> Self {
        self.state.phase = phase;
        self
    }
    /// The finished position.
    pub fn build(mut self) -> State {
        self.state.refresh_all();
        self.state
    }
}
