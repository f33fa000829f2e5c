//! Actions a seat can take, their compact text form (used by save files and
//! game records), and a fixed-capacity list for allocation-free move
//! generation.

use crate::card::Card;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// One decision of one seat (or of whoever drives the table between hands).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Take the top card of the draw pile.
    Draw,
    /// Play a card: a hazard on the side `team`, anything else on one's own
    /// side (then `team` is the player's own).
    Play {
        /// The card played.
        card: Card,
        /// The side (team) it goes on; the protocol calls it `target`.
        team: u8,
    },
    /// Throw a card away.
    Discard(Card),
    /// Answer a hazard with its safety as a coup fourré.
    CoupFourre(Card),
    /// Let a coup fourré chance pass.
    DeclineCoupFourre,
    /// At the target with an extension allowed: go on to 1000 (`true`) or end
    /// the hand (`false`).
    Extend(bool),
    /// Deal the next hand of the game.
    NextHand,
    /// Start a new game after one is won.
    NextGame,
}

impl Action {
    /// Every action anybody could send at a table, plays aimed at the
    /// sides `0..sides` (a number past the table's teams lists plays the
    /// engine must refuse): what exhaustive tests and fuzzers try.
    pub fn every(sides: u8) -> Vec<Action> {
        let mut all = vec![
            Action::Draw,
            Action::DeclineCoupFourre,
            Action::Extend(true),
            Action::Extend(false),
            Action::NextHand,
            Action::NextGame,
        ];
        for card in Card::ALL {
            all.extend((0..sides).map(|team| Action::Play { card, team }));
            all.push(Action::Discard(card));
            all.push(Action::CoupFourre(card));
        }
        all
    }

    /// The card this action moves out of a hand, if any.
    pub const fn card(self) -> Option<Card> {
        match self {
            Action::Play { card, .. } | Action::Discard(card) | Action::CoupFourre(card) => {
                Some(card)
            }
            _ => None,
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Action::Draw => f.write_str("draw"),
            Action::Play { card, team: target } => write!(f, "play {} {}", card.id(), target),
            Action::Discard(c) => write!(f, "discard {}", c.id()),
            Action::CoupFourre(c) => write!(f, "coup_fourre {}", c.id()),
            Action::DeclineCoupFourre => f.write_str("decline"),
            Action::Extend(true) => f.write_str("extend"),
            Action::Extend(false) => f.write_str("end_trip"),
            Action::NextHand => f.write_str("next_hand"),
            Action::NextGame => f.write_str("next_game"),
        }
    }
}

/// Text that is not an action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read action {text:?}: {why}")]
pub struct BadAction {
    /// The text.
    pub text: String,
    /// What was wrong with it.
    pub why: String,
}

impl FromStr for Action {
    type Err = BadAction;
    fn from_str(s: &str) -> Result<Action, BadAction> {
        let bad = |why: &str| BadAction {
            text: s.to_string(),
            why: why.to_string(),
        };
        let mut words = s.split_whitespace();
        let verb = words.next().ok_or_else(|| bad("empty"))?;
        let mut card = || -> Result<Card, BadAction> {
            words
                .next()
                .ok_or_else(|| bad("a card id is missing"))?
                .parse()
                .map_err(|e: crate::card::UnknownCard| bad(&e.to_string()))
        };
        let action = match verb {
            "draw" => Action::Draw,
            "play" => {
                let c = card()?;
                let target = words
                    .next()
                    .ok_or_else(|| bad("the target team is missing"))?
                    .parse::<u8>()
                    .map_err(|_| bad("the target team must be a number"))?;
                Action::Play {
                    card: c,
                    team: target,
                }
            }
            "discard" => Action::Discard(card()?),
            "coup_fourre" => Action::CoupFourre(card()?),
            "decline" => Action::DeclineCoupFourre,
            "extend" => Action::Extend(true),
            "end_trip" => Action::Extend(false),
            "next_hand" => Action::NextHand,
            "next_game" => Action::NextGame,
            _ => return Err(bad("unknown verb")),
        };
        if words.next().is_some() {
            return Err(bad("unexpected words at the end"));
        }
        Ok(action)
    }
}

impl Serialize for Action {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Action {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Action, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Room for every distinct action of one decision: at most 8 distinct cards
/// in hand, each playable on up to 2 opposing teams and discardable.
pub const MAX_ACTIONS: usize = 32;

/// A fixed-capacity list of actions, so move generation never allocates.
#[derive(Clone, Copy)]
pub struct ActionList {
    len: u8,
    items: [Action; MAX_ACTIONS],
}

impl Default for ActionList {
    fn default() -> Self {
        ActionList {
            len: 0,
            items: [Action::Draw; MAX_ACTIONS],
        }
    }
}

impl ActionList {
    /// Appends an action (silently full at capacity, which the bound above
    /// makes unreachable).
    #[inline]
    pub fn push(&mut self, a: Action) {
        if (self.len as usize) < MAX_ACTIONS {
            self.items[self.len as usize] = a;
            self.len += 1;
        }
    }
    /// The actions.
    #[inline]
    pub fn as_slice(&self) -> &[Action] {
        &self.items[..self.len as usize]
    }
    /// Number of actions.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// True when there is no action.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Whether the list holds an action.
    pub fn contains(&self, a: &Action) -> bool {
        self.as_slice().contains(a)
    }
    /// Removes every action.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl std::ops::Deref for ActionList {
    type Target = [Action];
    fn deref(&self) -> &[Action] {
        self.as_slice()
    }
}

impl fmt::Debug for ActionList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_form_round_trips() {
        let all = [
            Action::Draw,
            Action::Play {
                card: Card::Stop,
                team: 1,
            },
            Action::Discard(Card::D25),
            Action::CoupFourre(Card::RightOfWay),
            Action::DeclineCoupFourre,
            Action::Extend(true),
            Action::Extend(false),
            Action::NextHand,
            Action::NextGame,
        ];
        for a in all {
            assert_eq!(a.to_string().parse::<Action>(), Ok(a), "{a}");
        }
        assert!("play stop".parse::<Action>().is_err());
        assert!("discard 25 26".parse::<Action>().is_err());
        assert!("fly".parse::<Action>().is_err());
    }
}
