//! What happened between two views of one seat: the moves the seat saw,
//! rebuilt from the views alone.
//!
//! A program that only receives views (a bot behind the bot protocol, a
//! client that missed its events) can still remember a hand: between its
//! last decision and the next, the new cards on each side's tableau and
//! the discard pile say what the others played, and the turn order says
//! who played them and when. [`moves_between`] finds a sequence of moves
//! that the rules allow and that leads from the first view (with the
//! seat's own answer) to the second, by playing it out on a sampled state:
//! the hidden hands are sampled, and each card a seat is found to play is
//! moved into its hand first, which changes nothing the seat may see.

use crate::action::Action;
use crate::card::{Card, CardCounts, Kind};
use crate::seat::Seat;
use crate::state::{Phase, State};
use crate::view::{Decision, View, determinize_at};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// One move the seat saw: its view just before, who moved, and the move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenMove {
    /// The seat's view just before the move.
    pub before: View,
    /// Who moved.
    pub actor: u8,
    /// The move.
    pub action: Action,
}

/// Why two views could not be joined by moves.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// The second view is of another hand or game (or another seat).
    #[error("the views are of different hands")]
    OtherHand,
    /// No sequence of legal moves leads from the first view to the second.
    #[error("no sequence of moves explains the second view")]
    Unexplained,
}

/// How many states the search may visit before giving up: a turn between
/// two decisions has a handful of moves, each with one or two places to
/// go, so real histories need a few dozen.
const VISITS: usize = 20_000;

/// The moves the seat saw between deciding `decision` in `first` (it
/// answered `answer`) and being asked `next_decision` in `next`, in order:
/// its own answer, the others' draws, plays, discards, coups fourrés and
/// extension answers, and its own draw. Declined coups fourrés of the
/// others are not seen and not listed. `Err(OtherHand)` when `next` starts
/// a new hand (or game), `Err(Unexplained)` when no legal moves lead there
/// (a view that is not from the same game).
pub fn moves_between(
    first: &View,
    decision: Decision,
    answer: Action,
    next: &View,
    next_decision: Decision,
) -> Result<Vec<SeenMove>, HistoryError> {
    if !same_hand(first, next) {
        return Err(HistoryError::OtherHand);
    }
    // A fixed seed: the hidden cards are placeholders the result does not
    // depend on, and the answer replays.
    let mut rng = ChaCha8Rng::seed_from_u64(0x5EE5_0F4A);
    let state = determinize_at(first, first.seat, decision, &[], &mut rng)
        .map_err(|_| HistoryError::Unexplained)?;
    let me = state
        .rules()
        .seat(first.seat)
        .ok_or(HistoryError::Unexplained)?;
    state.check(answer).map_err(|_| HistoryError::Unexplained)?;
    let mut search = Search {
        me,
        next,
        next_decision,
        sides: next.teams.iter().map(side_cards).collect(),
        visits: 0,
    };
    let mut seen = Vec::new();
    for arranged in search.arranged(&state, answer) {
        if search.step(arranged, me, answer, &mut seen) {
            return Ok(seen);
        }
    }
    Err(HistoryError::Unexplained)
}

/// Whether `next` can be later in the same hand as `first`: same seat,
/// table and totals, and nothing public taken back.
fn same_hand(first: &View, next: &View) -> bool {
    first.rules == next.rules
        && first.seat == next.seat
        && first.seats.len() == next.seats.len()
        && first.teams.len() == next.teams.len()
        && next.deck <= first.deck
        && next.discards.starts_with(&first.discards)
        && first.teams.iter().zip(&next.teams).all(|(a, b)| {
            a.score.game == b.score.game
                && b.distance.len() >= a.distance.len()
                && a.safeties.iter().all(|s| b.safeties.contains(s))
        })
}

/// Every card on a side's tableau in a view, by kind (what
/// [`crate::Tableau::count_into`] counts of a state's).
fn side_cards(t: &crate::view::TeamView) -> CardCounts {
    let mut c = CardCounts::default();
    c.add_all(t.battle.iter().copied());
    c.add_all(t.speed.iter().copied());
    c.add_all(t.distance.iter().copied());
    c.add_all(t.safeties.iter().copied());
    c
}

struct Search<'a> {
    me: Seat,
    next: &'a View,
    next_decision: Decision,
    /// The cards on each side's tableau in `next`, to measure progress
    /// against.
    sides: Vec<CardCounts>,
    visits: usize,
}

/// Every card on side `team`'s tableau in `state`, by kind.
fn state_side(state: &State, team: usize) -> CardCounts {
    let mut c = CardCounts::default();
    if let Some(t) = state.tableaux.get(team) {
        t.count_into(&mut c);
    }
    c
}

impl Search<'_> {
    /// Plays on from `state` (the moves so far in `seen`) until the seat's
    /// next decision; `true` when that decision is `next`'s.
    fn walk(&mut self, state: State, seen: &mut Vec<SeenMove>) -> bool {
        self.visits += 1;
        if self.visits > VISITS || !self.possible(&state) {
            return false;
        }
        match state.phase {
            Phase::Turn { seat, drawn: false } => self.step(state, seat, Action::Draw, seen),
            Phase::Turn { seat, drawn: true } if seat == self.me => {
                self.next_decision == Decision::Turn && self.arrived(&state)
            }
            Phase::Turn { seat, drawn: true } => {
                for (card, side) in self.candidates(&state) {
                    let mut s = state.clone();
                    if !give(&mut s, seat, card, self.me) {
                        continue;
                    }
                    let action = match side {
                        Some(team) => Action::Play { card, team },
                        None => Action::Discard(card),
                    };
                    if s.check(action).is_err() {
                        continue;
                    }
                    for arranged in self.arranged(&s, action) {
                        if self.step(arranged, seat, action, seen) {
                            return true;
                        }
                    }
                }
                false
            }
            Phase::CoupFourre { seat, .. } if seat == self.me => {
                matches!(self.next_decision, Decision::CoupFourre { .. }) && self.arrived(&state)
            }
            Phase::CoupFourre { seat, hazard, .. } => {
                let call = hazard.safety().map(|s| Action::CoupFourre(s.card()));
                if let Some(call) = call
                    && self.step(state.clone(), seat, call, seen)
                {
                    return true;
                }
                self.step(state, seat, Action::DeclineCoupFourre, seen)
            }
            Phase::Extension { seat } if seat == self.me => {
                self.next_decision == Decision::Extension && self.arrived(&state)
            }
            Phase::Extension { seat } => {
                let answer = Action::Extend(self.next.extended);
                self.step(state, seat, answer, seen)
            }
            Phase::HandOver | Phase::GameOver => false,
        }
    }

    /// The ways to hide the cards before `action` so that a hazard is
    /// answered by a coup fourré exactly when `next` shows one: the safety
    /// in the hand of a seat of the side (each is tried), or in none.
    fn arranged(&self, state: &State, action: Action) -> Vec<State> {
        let Action::Play { card, team } = action else {
            return vec![state.clone()];
        };
        if card.kind() != Kind::Hazard {
            return vec![state.clone()];
        }
        if !self.coup_follows(state, card, team) {
            let mut s = state.clone();
            hold_safety(&mut s, card, None, self.me);
            return vec![s];
        }
        self.others_of(state, team)
            .into_iter()
            .filter_map(|holder| {
                let mut s = state.clone();
                hold_safety(&mut s, card, Some(holder), self.me).then_some(s)
            })
            .collect()
    }

    /// Applies `action` of `actor` (seen unless it is another seat's
    /// declined coup fourré) and walks on; undoes the record on failure.
    fn step(
        &mut self,
        mut state: State,
        actor: Seat,
        action: Action,
        seen: &mut Vec<SeenMove>,
    ) -> bool {
        if state.check(action).is_err() {
            return false;
        }
        let shown = action != Action::DeclineCoupFourre || actor == self.me;
        if shown {
            seen.push(SeenMove {
                before: state.view(self.me),
                actor: actor.number(),
                action,
            });
        }
        state.apply_unchecked(action);
        if self.walk(state, seen) {
            return true;
        }
        if shown {
            seen.pop();
        }
        false
    }

    /// Whether `state` can still become `next`: the discards so far begin
    /// `next`'s, and each side holds only cards `next` shows there (or
    /// hazards a coup fourré has since sent to the discards).
    fn possible(&self, state: &State) -> bool {
        let discards = state.discards.as_slice();
        if !self.next.discards.starts_with(discards) {
            return false;
        }
        let mut sent_back = CardCounts::default();
        sent_back.add_all(self.next.discards[discards.len()..].iter().copied());
        self.sides.iter().enumerate().all(|(t, want)| {
            let have = state_side(state, t);
            Card::ALL.iter().all(|&c| {
                let spare = if c.kind() == Kind::Hazard {
                    sent_back.get(c)
                } else {
                    0
                };
                have.get(c) <= want.get(c) + spare
            })
        })
    }

    /// Whether `state`, waiting for the seat's decision, shows what `next`
    /// shows.
    fn arrived(&self, state: &State) -> bool {
        let view = state.view(self.me);
        view.discards == self.next.discards
            && view.deck == self.next.deck
            && view.target == self.next.target
            && view.extended == self.next.extended
            && view.seats == self.next.seats
            && view.teams.iter().zip(&self.next.teams).all(|(a, b)| {
                a.battle == b.battle
                    && a.speed == b.speed
                    && side_cards(a) == side_cards(b)
                    && a.coups == b.coups
            })
    }

    /// The moves another seat may have made on its turn: a card `next`
    /// shows on a side that `state` does not have there yet, played there,
    /// or the next card of `next`'s discards, thrown away.
    fn candidates(&self, state: &State) -> Vec<(Card, Option<u8>)> {
        let discarded = state.discards.as_slice().len();
        let mut out = Vec::new();
        for (t, want) in self.sides.iter().enumerate() {
            let have = state_side(state, t);
            for &c in &Card::ALL {
                if want.get(c) > have.get(c) {
                    out.push((c, Some(t as u8)));
                }
            }
        }
        // A hazard answered by a coup fourré ends in the discards.
        for &c in &self.next.discards[discarded.min(self.next.discards.len())..] {
            if c.kind() == Kind::Hazard {
                for t in 0..state.rules().teams {
                    if self.coup_follows(state, c, t) && !out.contains(&(c, Some(t))) {
                        out.push((c, Some(t)));
                    }
                }
            }
        }
        if let Some(&c) = self.next.discards.get(discarded) {
            out.push((c, None));
        }
        out
    }

    /// Whether `next` shows a coup fourré against `hazard` on `team` that
    /// `state` does not have yet.
    fn coup_follows(&self, state: &State, hazard: Card, team: u8) -> bool {
        let Some(safety) = hazard.safety() else {
            return false;
        };
        let has = state.tableaux[usize::from(team)].coups.has(safety);
        let will = self
            .next
            .teams
            .get(usize::from(team))
            .is_some_and(|t| t.coups.contains(&safety.card()));
        will && !has
    }

    /// The seats of `team` other than the viewer.
    fn others_of(&self, state: &State, team: u8) -> Vec<Seat> {
        state
            .rules()
            .seats_iter()
            .filter(|&s| s != self.me && state.rules().team_of(s) == team)
            .collect()
    }
}

/// Puts `card` into `seat`'s hand (a hidden hand: never the viewer's),
/// taking it from the draw pile or another hidden hand in exchange for a
/// card of the hand. `false` when no hidden copy is left.
fn give(state: &mut State, seat: Seat, card: Card, me: Seat) -> bool {
    if seat == me {
        return state.hands[seat.index()].contains(card);
    }
    if state.hands[seat.index()].contains(card) {
        return true;
    }
    // The card given back: the first one that is not the card itself.
    let Some(back) = state.hands[seat.index()].as_slice().first().copied() else {
        return false;
    };
    if let Some(i) = state.deck.position(card) {
        state.deck.as_mut_slice()[i] = back;
    } else {
        let other = state
            .rules()
            .seats_iter()
            .find(|&s| s != me && s != seat && state.hands[s.index()].contains(card));
        let Some(other) = other else {
            return false;
        };
        state.hands[other.index()].remove(card);
        state.hands[other.index()].push(back);
    }
    state.hands[seat.index()].remove(back);
    state.hands[seat.index()].push(card);
    true
}

/// Makes the safety against `hazard` held by `holder` among the hidden
/// hands, or (`None`) by no seat of the side it is played on, so that the
/// engine offers a coup fourré exactly when one follows. The viewer's own
/// hand is real and never changed.
fn hold_safety(state: &mut State, hazard: Card, holder: Option<Seat>, me: Seat) -> bool {
    let Some(safety) = hazard.safety().map(|s| s.card()) else {
        return false;
    };
    match holder {
        Some(seat) => give(state, seat, safety, me),
        None => {
            // Into the draw pile, for a card of the deck that is not it.
            for s in state.rules().seats_iter().filter(|&s| s != me) {
                if !state.hands[s.index()].contains(safety) {
                    continue;
                }
                let deck = state.deck.as_mut_slice();
                if let Some(i) = deck.iter().position(|&c| c != safety) {
                    let swap = deck[i];
                    deck[i] = safety;
                    state.hands[s.index()].remove(safety);
                    state.hands[s.index()].push(swap);
                }
            }
            true
        }
    }
}

#[cfg(test)]
mod tests {
    //! Over random games of every ruleset and table size: between any two
    //! decisions of a seat, the moves rebuilt from its two views are the
    //! moves it saw, each with the view it saw just before.

    use super::*;
    use crate::rules::{GameConfig, RulesetId};
    use proptest::prelude::*;

    /// The decision `state` asks of `seat`, if it asks one (a turn after
    /// the draw, a coup fourré, an extension).
    fn decision_of(state: &State, seat: Seat) -> Option<Decision> {
        match state.phase() {
            Phase::Turn {
                seat: s,
                drawn: true,
            } if s == seat => Some(Decision::Turn),
            Phase::CoupFourre {
                seat: s,
                hazard,
                attacker,
            } if s == seat => Some(Decision::CoupFourre {
                hazard,
                attacker: attacker.number(),
            }),
            Phase::Extension { seat: s } if s == seat => Some(Decision::Extension),
            _ => None,
        }
    }

    /// Checks that `rebuilt` could be `watched`. The views alone cannot
    /// always say who of several seats made which move (two partners, one
    /// driving and one discarding, leave the same table either way), nor
    /// which partner played a safety and took the extra turn, nor which of
    /// Stop and Speed Limit was discarded and which answered by a coup
    /// fourré with Right of Way, nor the order of two safeties played in a
    /// row; so with more than two seats the moves must be as many, and in
    /// a two-seat game they must be the same moves.
    fn same_moves(rebuilt: &[SeenMove], watched: &[SeenMove], players: u8) {
        let sorted = |moves: &[SeenMove], with_actor: bool| {
            let mut v: Vec<String> = moves
                .iter()
                .map(|m| {
                    if with_actor {
                        format!("{} {:?}", m.actor, m.action)
                    } else {
                        format!("{:?}", m.action)
                    }
                })
                .collect();
            v.sort();
            v
        };
        let real = || {
            format!(
                "{:?}",
                watched
                    .iter()
                    .map(|m| (m.actor, m.action))
                    .collect::<Vec<_>>()
            )
        };
        if players == 2 {
            assert_eq!(sorted(rebuilt, true), sorted(watched, true), "{}", real());
        }
        assert_eq!(rebuilt.len(), watched.len(), "{}", real());
        // The seat's own first move, with the view it decided in.
        assert_eq!(rebuilt.first(), watched.first());
    }

    /// Plays one random hand and checks every stretch between two
    /// decisions of `viewer`; returns how many stretches it checked.
    fn check_hand(config: GameConfig, seed: u64, viewer: u8) -> usize {
        let mut state = State::new(config, seed).expect("a valid table");
        let me = state.rules().seat(viewer % config.players).expect("a seat");
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x77);
        let mut last: Option<(View, Decision, Action)> = None;
        let mut watched: Vec<SeenMove> = Vec::new();
        let mut checked = 0;
        while matches!(state.to_act(), crate::ToAct::Seat(_)) {
            let crate::ToAct::Seat(actor) = state.to_act() else {
                break;
            };
            if let Some(decision) = decision_of(&state, me) {
                let view = state.view(me);
                if let Some((first, d, answer)) = last.take() {
                    let rebuilt =
                        moves_between(&first, d, answer, &view, decision).unwrap_or_else(|e| {
                            let real: Vec<_> =
                                watched.iter().map(|m| (m.actor, m.action)).collect();
                            panic!("{e}: {real:?}\n{first:?}\n{view:?}")
                        });
                    same_moves(&rebuilt, &watched, config.players);
                    checked += 1;
                }
                let before = state.view(me);
                let action = state.step_random(&mut rng);
                last = Some((view, decision, action));
                watched = vec![SeenMove {
                    before,
                    actor: me.number(),
                    action,
                }];
                continue;
            }
            let before = state.view(me);
            let action = state.step_random(&mut rng);
            if action != Action::DeclineCoupFourre || actor == me {
                watched.push(SeenMove {
                    before,
                    actor: actor.number(),
                    action,
                });
            }
        }
        checked
    }

    fn configs() -> Vec<GameConfig> {
        let mut out = vec![
            GameConfig::default(),
            GameConfig {
                rules: RulesetId::Milebones,
                players: 2,
                stacking: false,
            },
        ];
        for players in [2, 3, 4, 6] {
            out.push(GameConfig {
                rules: RulesetId::Classic,
                players,
                stacking: false,
            });
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn the_moves_between_two_views_are_the_moves_seen(seed: u64, viewer in 0u8..6, which in 0usize..6) {
            let configs = configs();
            let config = configs[which % configs.len()];
            prop_assert!(check_hand(config, seed, viewer) > 0);
        }
    }

    #[test]
    fn another_hand_is_told_apart() {
        let config = GameConfig::default();
        let mut state = State::new(config, 3).expect("state");
        let me = state.rules().seat(0).expect("seat");
        state.apply(Action::Draw).expect("draw");
        let first = state.view(me);
        let mut later = State::new(config, 4).expect("state");
        later.apply(Action::Draw).expect("draw");
        let mut other = later.view(me);
        other.teams[1].score.game = 700;
        let answer = Action::Discard(first.hand[0]);
        assert_eq!(
            moves_between(&first, Decision::Turn, answer, &other, Decision::Turn),
            Err(HistoryError::OtherHand)
        );
        // A view of another game of the same table, mid-hand, is not
        // reachable by legal moves.
        let unrelated = later.view(me);
        assert!(moves_between(&first, Decision::Turn, answer, &unrelated, Decision::Turn).is_err());
    }
}
