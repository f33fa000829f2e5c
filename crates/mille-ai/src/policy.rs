//! A fast heuristic over the full state: the search's prior, which orders
//! the moves its tree opens (it scores every legal move of every node, so
//! it must be cheap): repair and roll first, finish exactly, attack the
//! leader, keep safeties for coups fourrés, throw away what can no longer
//! help. As a player of its own (`PolicyBot`) it is weaker than `classic`.

use mille_engine::{Action, ActionList, Card, Kind, Phase, Safety, Seat, State, bounded};
use rand_core::Rng;

/// The policy's action for whoever is to act in `state`.
pub fn choose<R: Rng + ?Sized>(state: &State, rng: &mut R) -> Action {
    match state.phase() {
        Phase::Turn { drawn: false, .. } => Action::Draw,
        Phase::Turn { seat, drawn: true } => turn(state, seat, rng),
        Phase::CoupFourre { seat, hazard, .. } => {
            crate::coup_fourre_if_held(state.hand(seat), hazard)
        }
        Phase::Extension { seat } => Action::Extend(should_extend(state, seat)),
        Phase::HandOver => Action::NextHand,
        Phase::GameOver => Action::NextGame,
    }
}

/// Extends when the draw pile still has room for 300 more miles and no
/// opponent is close to the target.
pub fn should_extend(state: &State, seat: Seat) -> bool {
    let me = state.team_of(seat);
    let teams = state.rules().teams;
    state.deck_len() >= 30
        && (0..teams)
            .filter(|&t| t != me)
            .all(|t| state.tableau(t).miles < 400)
}

fn turn<R: Rng + ?Sized>(state: &State, seat: Seat, rng: &mut R) -> Action {
    let mut list = ActionList::default();
    state.legal_actions(&mut list);
    let mut best = Action::Draw;
    let mut best_score = i32::MIN;
    for &a in list.iter() {
        // A little noise so that rollouts from one position differ.
        let s = score(state, seat, a) * 4 + bounded(rng, 6) as i32;
        if s > best_score {
            best_score = s;
            best = a;
        }
    }
    best
}

/// How much the policy likes an action (higher is better).
pub fn score(state: &State, seat: Seat, action: Action) -> i32 {
    let me = state.team_of(seat);
    let tab = state.tableau(me);
    let target = state.target();
    match action {
        Action::Play { card, team: t } => match card.kind() {
            Kind::Safety => {
                let cancels = tab
                    .stopping_hazard()
                    .is_some_and(|h| h.safety().map(Safety::card) == Some(card));
                if cancels || (card == Card::RightOfWay && tab.limited()) {
                    100
                } else if state.deck_len() < 16
                    || no_coup_left(state, card)
                    || opponent_near_end(state, me)
                {
                    // No coup fourré to wait for, or no time: take the 100
                    // points (and the extra turn) now.
                    90
                } else {
                    // Kept for a coup fourré.
                    2
                }
            }
            Kind::Distance => {
                let m = card.miles();
                if tab.miles + m == target {
                    95
                } else {
                    40 + i32::from(m) / 10
                }
            }
            Kind::Remedy => {
                if card == Card::EndOfLimit {
                    let big = state.hand(seat).iter().any(|c| c.miles() > 50);
                    if big { 58 } else { 20 }
                } else {
                    70
                }
            }
            Kind::Hazard => {
                let them = state.tableau(t);
                let lead = i32::from(them.miles) / 50;
                if card == Card::SpeedLimit {
                    if target.saturating_sub(them.miles) <= 50 {
                        1
                    } else {
                        44 + lead
                    }
                } else {
                    64 + lead
                }
            }
        },
        Action::Discard(card) => -keep_value(state, seat, card),
        _ => 0,
    }
}

/// Whether every hazard a safety answers is already out of play, so that
/// holding it for a coup fourré is pointless.
fn no_coup_left(state: &State, safety: Card) -> bool {
    let teams = state.rules().teams;
    let gone = |h: Card| {
        let mut n = state.discards().iter().filter(|&&c| c == h).count();
        for t in 0..teams {
            let tab = state.tableau(t);
            n += tab.battle.as_slice().iter().filter(|&&c| c == h).count();
            n += tab.speed.as_slice().iter().filter(|&&c| c == h).count();
        }
        n >= usize::from(state.rules().copies(h))
    };
    match safety {
        Card::ExtraTank => gone(Card::OutOfGas),
        Card::PunctureProof => gone(Card::FlatTire),
        Card::DrivingAce => gone(Card::Accident),
        _ => gone(Card::Stop) && gone(Card::SpeedLimit),
    }
}

/// Whether an opposing side is within one distance card of the target.
fn opponent_near_end(state: &State, me: u8) -> bool {
    let teams = state.rules().teams;
    (0..teams).filter(|&t| t != me).any(|t| {
        let tab = state.tableau(t);
        tab.can_go(state.rules()) && state.target().saturating_sub(tab.miles) <= 200
    })
}

/// How much a seat would rather keep a card than throw it away.
fn keep_value(state: &State, seat: Seat, card: Card) -> i32 {
    let me = state.team_of(seat);
    let tab = state.tableau(me);
    let hand = state.hand(seat);
    let copies = hand.iter().filter(|&&c| c == card).count() as i32;
    match card.kind() {
        Kind::Safety => 100,
        Kind::Distance => {
            let m = card.miles();
            if tab.miles + m > state.target() || (card == Card::D200 && tab.two_hundreds() >= 2) {
                0
            } else {
                10 + i32::from(m) / 10 - 2 * (copies - 1)
            }
        }
        Kind::Remedy => {
            let protected = card.safety().is_some_and(|s| tab.safeties.has(s));
            if protected {
                0
            } else {
                let base = if card == Card::Go { 22 } else { 16 };
                base - 6 * (copies - 1)
            }
        }
        Kind::Hazard => {
            let teams = state.rules().teams;
            let useful = card.safety().is_some_and(|s| {
                (0..teams)
                    .filter(|&t| t != me)
                    .any(|t| !state.tableau(t).safeties.has(s))
            });
            if useful { 18 - 4 * (copies - 1) } else { 0 }
        }
    }
}

/// The policy as a player: fast, greedy, no search.
#[derive(Clone, Debug)]
pub struct PolicyBot {
    rng: rand_chacha::ChaCha8Rng,
}

impl PolicyBot {
    /// A policy bot with its own seeded noise.
    pub fn new(seed: u64) -> PolicyBot {
        use rand_core::SeedableRng;
        PolicyBot {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl PolicyBot {
    /// The bot's name.
    pub fn label(&self) -> &str {
        "policy"
    }
    /// Its answer to `decision` in `view`.
    pub fn choose(
        &mut self,
        view: &mille_engine::View,
        decision: mille_engine::view::Decision,
    ) -> Action {
        match mille_engine::view::determinize_for(view, decision, &mut self.rng) {
            Ok(state) => choose(&state, &mut self.rng),
            Err(_) => crate::fallback_action(view, decision),
        }
    }
}

crate::view_bot!(PolicyBot);
