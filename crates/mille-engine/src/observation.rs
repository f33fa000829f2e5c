//! What one viewer may know of a game, and what each seat sees happen:
//! the [`Observation`] (a seat's or a spectator's), the [`Event`]s an
//! action causes with the audience of each, [`seen_by`], and [`Mille`],
//! the engine's side of the table layer ([`game_table::Game`]).
//!
//! An observation holds the seat's own hand, the public tableaux and piles,
//! the counts, the phase as that viewer may know it, its legal actions when
//! it is to act, the events it has not been shown yet, the scores (this
//! hand's items so far and the last hand's breakdown), the full rules and
//! the seats. It never holds another seat's hand or the draw pile's order.
//! Its JSON form is the bot protocol's `view` object with more fields
//! beside it, so a protocol view reader reads an observation too.

use crate::action::{Action, ActionList};
use crate::card::Card;
use crate::error::IllegalAction;
use crate::rules::GameConfig;
use crate::score::HandScore;
use crate::seat::Seat;
use crate::state::{Outcome, Phase, State, ToAct};
use crate::view::{Decision, View, determinize_for};
use game_table::{Audience, Game, SeatInfo, Turn, Viewer};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use serde::{Deserialize, Serialize};

/// What the game waits for, as one viewer may know it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum PhaseView {
    /// A seat's turn: it draws (unless `drawn`), then plays or discards.
    Turn {
        /// The seat.
        seat: u8,
        /// Whether it has drawn.
        drawn: bool,
    },
    /// The viewer may answer `hazard`, played by `attacker`, with a coup
    /// fourré. Only the seat holding the safety is offered one, so only it
    /// sees this phase: the others see the game as it goes on without the
    /// chance.
    CoupFourre {
        /// The viewer's seat.
        seat: u8,
        /// The hazard.
        hazard: Card,
        /// Who played it.
        attacker: u8,
    },
    /// A seat reached the target and decides whether to extend the trip.
    Extension {
        /// The seat.
        seat: u8,
    },
    /// The hand is scored; the next one may be dealt.
    HandOver,
    /// A side has won the game.
    GameOver,
}

impl PhaseView {
    /// The seat to act, if a seat is.
    pub fn seat(self) -> Option<u8> {
        match self {
            PhaseView::Turn { seat, .. }
            | PhaseView::CoupFourre { seat, .. }
            | PhaseView::Extension { seat } => Some(seat),
            PhaseView::HandOver | PhaseView::GameOver => None,
        }
    }
}

/// Something that happened at the table, as one viewer is told it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A hand was dealt.
    Dealt {
        /// Its number in the game, from 0.
        hand: u32,
        /// The seat that starts it.
        first: u8,
    },
    /// A new game started (its first hand follows).
    NewGame,
    /// A seat drew a card: which card only the seat itself is told.
    Drew {
        /// The seat.
        seat: u8,
        /// The card, in the seat's own events only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        card: Option<Card>,
    },
    /// A seat played a card on a side (its own, or a hazard on another).
    Played {
        /// The seat.
        seat: u8,
        /// The card.
        card: Card,
        /// The side (team) it went on.
        team: u8,
    },
    /// A seat discarded a card.
    Discarded {
        /// The seat.
        seat: u8,
        /// The card.
        card: Card,
    },
    /// A seat answered a hazard with its safety: a coup fourré.
    CoupFourre {
        /// The seat.
        seat: u8,
        /// The safety.
        safety: Card,
        /// The hazard it answered.
        hazard: Card,
    },
    /// The seat let a coup fourré chance pass (told to that seat alone:
    /// the chance itself tells what it holds).
    DeclinedCoupFourre {
        /// The seat.
        seat: u8,
    },
    /// A seat at the target chose whether to extend the trip.
    Extension {
        /// The seat.
        seat: u8,
        /// Whether it extended.
        extend: bool,
    },
    /// A side completed the trip.
    TripCompleted {
        /// The side.
        team: u8,
    },
    /// The hand is over and scored.
    HandOver {
        /// Each side's points for the hand, item by item.
        scores: Vec<HandScore>,
        /// Each side's game total after it.
        totals: Vec<u32>,
    },
    /// The game is over.
    GameOver {
        /// The winning sides (several on a tie).
        winners: Vec<u8>,
    },
}

/// Everything one viewer may know of a game of Mille Bornes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The cards: the bot protocol's `view` (for a spectator, `seat` is 0
    /// and `hand` empty).
    #[serde(flatten)]
    pub view: View,
    /// Whose observation this is.
    pub viewer: Viewer,
    /// The rules in full (the view's `rules` names the ruleset; this adds
    /// its variant and the number of seats).
    pub config: GameConfig,
    /// What the game waits for.
    pub status: PhaseView,
    /// The viewer's legal actions when it is to act (empty otherwise), in
    /// protocol order.
    pub legal: Vec<Action>,
    /// What happened since the viewer's last observation, oldest first.
    pub events: Vec<Event>,
    /// This hand's number in the game, from 0.
    pub hand_number: u32,
    /// Games each side has won at this table.
    pub games_won: Vec<u32>,
    /// Each side's points so far this hand, item by item (the whole hand's
    /// once it is over).
    pub hand_scores: Vec<HandScore>,
    /// The last hand's points per side, once a hand has been scored.
    pub last_hand: Option<Vec<HandScore>>,
    /// The seats: names, and who is a person or a computer.
    pub seat_info: Vec<SeatInfo>,
}

impl Observation {
    /// The observation a protocol `view` and the decision asked of its
    /// seat amount to: `legal` as the asker lists them; no events, no
    /// seat names, no score breakdown (a view has none of them), and the
    /// rules the view names without variant.
    pub fn from_view(view: View, decision: Decision, legal: Vec<Action>) -> Observation {
        let seat = view.seat;
        let status = match decision {
            Decision::Turn => PhaseView::Turn { seat, drawn: true },
            Decision::CoupFourre { hazard, attacker } => PhaseView::CoupFourre {
                seat,
                hazard,
                attacker,
            },
            Decision::Extension => PhaseView::Extension { seat },
        };
        Observation {
            viewer: Viewer::Seat(usize::from(seat)),
            config: GameConfig {
                rules: view.rules,
                players: u8::try_from(view.seats.len()).unwrap_or(u8::MAX),
                stacking: false,
            },
            status,
            legal,
            events: Vec::new(),
            hand_number: 0,
            games_won: Vec::new(),
            hand_scores: Vec::new(),
            last_hand: None,
            seat_info: Vec::new(),
            view,
        }
    }

    /// The viewer's seat, unless it is a spectator.
    pub fn seat(&self) -> Option<u8> {
        match self.viewer {
            Viewer::Seat(s) => u8::try_from(s).ok(),
            Viewer::Spectator => None,
        }
    }

    /// Whether the viewer is the seat to act.
    pub fn to_act(&self) -> bool {
        self.seat().is_some() && self.status.seat() == self.seat()
    }

    /// What the viewer has to decide, when it is to act: `None` between
    /// hands, for other seats' turns and for a draw.
    pub fn decision(&self) -> Option<Decision> {
        if !self.to_act() {
            return None;
        }
        match self.status {
            PhaseView::Turn { drawn: true, .. } => Some(Decision::Turn),
            PhaseView::CoupFourre {
                hazard, attacker, ..
            } => Some(Decision::CoupFourre { hazard, attacker }),
            PhaseView::Extension { .. } => Some(Decision::Extension),
            _ => None,
        }
    }

    /// Whether the viewer may make `action` now, and if not the engine's
    /// sentence for why: what a client shows next to a refused card
    /// without asking the server.
    pub fn check(&self, action: Action) -> Result<(), IllegalAction> {
        if self.legal.contains(&action) {
            return Ok(());
        }
        let me = self.seat();
        match self.status {
            PhaseView::HandOver => return Err(IllegalAction::HandOver),
            PhaseView::GameOver => return Err(IllegalAction::GameOver),
            _ => {}
        }
        if let Some(expected) = self.status.seat()
            && Some(expected) != me
        {
            return Err(IllegalAction::NotYourTurn { expected });
        }
        let decision = match self.status {
            PhaseView::Turn { drawn: false, .. } => {
                return Err(match action {
                    Action::Play { .. } | Action::Discard(_) => IllegalAction::MustDrawFirst,
                    Action::CoupFourre(_) | Action::DeclineCoupFourre => {
                        IllegalAction::NoCoupFourre
                    }
                    Action::Extend(_) => IllegalAction::NoExtensionAsked,
                    _ => IllegalAction::HandInProgress,
                });
            }
            _ => self.decision().unwrap_or(Decision::Turn),
        };
        // The reasons read only the viewer's hand and the public tableaux,
        // so any state consistent with the observation gives the same one.
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        match determinize_for(&self.view, decision, &mut rng) {
            Ok(state) => state.check(action),
            Err(_) => Err(IllegalAction::HandInProgress),
        }
    }
}

/// Whether the player at `seat` sees `actor` make `action`: everything but
/// another seat's declined coup fourré (the chance to call one is offered
/// only to a seat holding the safety, so even the decline would tell). A
/// draw is seen, but not the card drawn.
pub fn seen_by(seat: u8, actor: u8, action: Action) -> bool {
    action != Action::DeclineCoupFourre || seat == actor
}

impl State {
    /// The phase as `viewer` may know it.
    pub fn phase_for(&self, viewer: Viewer) -> PhaseView {
        match self.phase() {
            Phase::Turn { seat, drawn } => PhaseView::Turn {
                seat: seat.number(),
                drawn,
            },
            Phase::CoupFourre {
                seat,
                hazard,
                attacker,
            } => {
                if viewer == Viewer::Seat(usize::from(seat)) {
                    PhaseView::CoupFourre {
                        seat: seat.number(),
                        hazard,
                        attacker: attacker.number(),
                    }
                } else {
                    // What the others would see had the seat no safety to
                    // call with: the game as it goes on after a decline.
                    let mut without = self.clone();
                    without.apply_unchecked(Action::DeclineCoupFourre);
                    match without.phase() {
                        Phase::CoupFourre { .. } => PhaseView::Turn {
                            seat: seat.number(),
                            drawn: false,
                        },
                        _ => without.phase_for(viewer),
                    }
                }
            }
            Phase::Extension { seat } => PhaseView::Extension {
                seat: seat.number(),
            },
            Phase::HandOver => PhaseView::HandOver,
            Phase::GameOver => PhaseView::GameOver,
        }
    }

    /// Everything `viewer` may know, with the `events` it has not been
    /// shown yet and the table's `seats`.
    pub fn observe(&self, viewer: Viewer, seats: &[SeatInfo], events: Vec<Event>) -> Observation {
        let rules = self.rules();
        let seat = match viewer {
            Viewer::Seat(s) => u8::try_from(s).ok().and_then(|s| rules.seat(s)),
            Viewer::Spectator => None,
        };
        let mut view = self.view(seat.unwrap_or(Seat::new_unchecked(0)));
        if seat.is_none() {
            view.hand.clear();
        }
        let mut legal = Vec::new();
        if let (Some(me), ToAct::Seat(s)) = (seat, self.to_act()) {
            let mut list = ActionList::default();
            if me == s {
                self.legal_actions(&mut list);
            } else if let Phase::CoupFourre { .. } = self.phase() {
                // Another seat's coup-fourré chance is hidden: a seat that
                // the game as it goes on after a decline puts to act is
                // shown that game's moves (its host holds such a move until
                // the chance is answered), so that nothing tells it a
                // chance is pending.
                let mut without = self.clone();
                without.apply_unchecked(Action::DeclineCoupFourre);
                if without.to_act() == ToAct::Seat(me) {
                    without.legal_actions(&mut list);
                }
            }
            legal.extend_from_slice(&list);
        }
        Observation {
            view,
            viewer: seat.map_or(Viewer::Spectator, |s| Viewer::Seat(usize::from(s))),
            config: rules.config,
            status: self.phase_for(viewer),
            legal,
            events,
            hand_number: self.hand_number(),
            games_won: self.games_won().to_vec(),
            hand_scores: (0..rules.teams)
                .map(|t| HandScore::running(self, t))
                .collect(),
            last_hand: self.last_scores().map(<[_]>::to_vec),
            seat_info: seats.to_vec(),
        }
    }
}

/// A draw by `seat`: the card for the seat alone, the draw for the others.
fn drew(seat: u8, card: Option<Card>, out: &mut Vec<(Audience, Event)>) {
    out.push((
        Audience::AllBut(usize::from(seat)),
        Event::Drew { seat, card: None },
    ));
    out.push((
        Audience::Only(usize::from(seat)),
        Event::Drew { seat, card },
    ));
}

/// The events of `action`, applied with `outcome` by the seat to act in
/// `before` (the phase it was applied in), `after` being the state it left.
fn push_events(
    before: Phase,
    action: Action,
    outcome: &Outcome,
    after: &State,
    out: &mut Vec<(Audience, Event)>,
) {
    let all = |e| (Audience::All, e);
    match (before, action) {
        (Phase::Turn { seat, .. }, Action::Draw) => drew(seat.number(), outcome.drawn, out),
        (Phase::Turn { seat, .. }, Action::Play { card, team: target }) => {
            let seat = seat.number();
            out.push(all(Event::Played {
                seat,
                card,
                team: target,
            }));
        }
        (Phase::Turn { seat, .. }, Action::Discard(card)) => {
            out.push(all(Event::Discarded {
                seat: seat.number(),
                card,
            }));
        }
        (Phase::CoupFourre { seat, hazard, .. }, Action::CoupFourre(safety)) => {
            // The replacement card (and, in the victim's-turn timing, the
            // turn's draw) landed last in the hand.
            let hand = after.hand(seat);
            let seat = seat.number();
            out.push(all(Event::CoupFourre {
                seat,
                safety,
                hazard,
            }));
            let n = usize::from(outcome.auto_drawn).min(hand.len());
            for &card in &hand[hand.len() - n..] {
                drew(seat, Some(card), out);
            }
        }
        (Phase::CoupFourre { seat, .. }, Action::DeclineCoupFourre) => {
            let seat = seat.number();
            out.push((
                Audience::Only(usize::from(seat)),
                Event::DeclinedCoupFourre { seat },
            ));
        }
        (Phase::Extension { seat }, Action::Extend(extend)) => {
            out.push(all(Event::Extension {
                seat: seat.number(),
                extend,
            }));
        }
        (_, Action::NextGame) => {
            out.push(all(Event::NewGame));
            out.push(all(Event::Dealt {
                hand: after.hand_number(),
                first: after.first_seat().number(),
            }));
        }
        (_, Action::NextHand) => {
            out.push(all(Event::Dealt {
                hand: after.hand_number(),
                first: after.first_seat().number(),
            }));
        }
        _ => {}
    }
    if let Some(team) = outcome.trip_completed {
        out.push(all(Event::TripCompleted { team }));
    }
    if outcome.hand_over {
        out.push(all(Event::HandOver {
            scores: after.last_scores().map(<[_]>::to_vec).unwrap_or_default(),
            totals: after.totals().to_vec(),
        }));
    }
    if outcome.game_over {
        out.push(all(Event::GameOver {
            winners: after.winners(),
        }));
    }
}

/// Mille Bornes at a [`game_table::Table`]: seats are the engine's seat
/// numbers; between hands the host deals (`NextHand`), and after a game it
/// may start another (`NextGame`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Mille;

/// A seat number of the table as the engine's (tables never have more
/// than the engine's six seats, so the fallback is never used).
fn seat_u8(seat: usize) -> u8 {
    u8::try_from(seat).unwrap_or(u8::MAX)
}

impl Game for Mille {
    type State = State;
    type Action = Action;
    type Event = Event;
    type Observation = Observation;
    type Illegal = IllegalAction;

    fn seat_count(state: &State) -> usize {
        usize::from(state.rules().seats)
    }

    fn turn(state: &State) -> Turn {
        match state.to_act() {
            ToAct::Seat(s) => Turn::Seat(usize::from(s)),
            ToAct::Deal => Turn::Host,
            ToAct::GameOver => Turn::Over,
        }
    }

    fn check(state: &State, action: Action) -> Result<(), IllegalAction> {
        state.check(action)
    }

    fn apply(
        state: &mut State,
        action: Action,
        events: &mut Vec<(Audience, Event)>,
    ) -> Result<(), IllegalAction> {
        let before = state.phase();
        let outcome = state.apply(action)?;
        push_events(before, action, &outcome, state, events);
        Ok(())
    }

    fn watched_by(_: &State, seat: usize, actor: Option<usize>, action: Action) -> bool {
        // The host's deals are seen by all.
        actor.is_none_or(|a| seen_by(seat_u8(seat), seat_u8(a), action))
    }

    fn observe(
        state: &State,
        viewer: Viewer,
        seats: &[SeatInfo],
        events: Vec<Event>,
    ) -> Observation {
        state.observe(viewer, seats, events)
    }
}

#[cfg(test)]
mod tests {
    //! Over thousands of random games of every ruleset and seat count, at
    //! every step: an observation is the same whatever the cards its viewer
    //! may not see (the other hands, the draw pile's order), so it cannot
    //! hold them; the events a viewer is told name no card it may not
    //! see; and the observation alone says which moves are legal, with the
    //! engine's reason for the others.

    use super::*;
    use crate::card::Card;
    use crate::rules::Rules;
    use crate::state::shuffle;
    use game_table::Table;
    use rand_core::Rng;

    /// Games per configuration (`MILLE_PROPERTY_GAMES` plays more).
    fn games() -> u64 {
        std::env::var("MILLE_PROPERTY_GAMES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(200)
    }

    /// The same game with every card `viewer` may not see dealt again at
    /// random: the other seats' hands and the draw pile.
    fn reshuffle_hidden(state: &State, viewer: Viewer, rng: &mut ChaCha8Rng) -> State {
        let mut s = state.clone();
        let seats = usize::from(s.rules.seats);
        let hidden = |i: usize| viewer != Viewer::Seat(i);
        let mut pool: Vec<Card> = s.deck.as_slice().to_vec();
        for i in (0..seats).filter(|&i| hidden(i)) {
            pool.extend_from_slice(s.hands[i].as_slice());
        }
        shuffle(&mut pool, rng);
        let mut cards = pool.into_iter();
        let deck = s.deck.len();
        s.deck.clear();
        for c in cards.by_ref().take(deck) {
            s.deck.push(c);
        }
        for i in (0..seats).filter(|&i| hidden(i)) {
            let n = s.hands[i].len();
            s.hands[i].clear();
            for c in cards.by_ref().take(n) {
                s.hands[i].push(c);
            }
        }
        s
    }

    fn check_step(table: &mut Table<Mille>, rng: &mut ChaCha8Rng, conceivable: &[Action]) {
        let state = table.state().clone();
        let seats = usize::from(state.rules().seats);
        let viewers = (0..seats)
            .map(Viewer::Seat)
            .chain(std::iter::once(Viewer::Spectator));
        for viewer in viewers {
            // Nothing hidden shows.
            let mine = state.observe(viewer, table.seats(), Vec::new());
            let other = reshuffle_hidden(&state, viewer, rng);
            assert_eq!(
                mine,
                other.observe(viewer, table.seats(), Vec::new()),
                "{viewer:?} sees hidden cards"
            );
            if viewer == Viewer::Spectator {
                assert!(mine.view.hand.is_empty() && mine.legal.is_empty());
            }
            // The events it is told name no hidden card.
            for event in table.observe(viewer).events {
                match event {
                    Event::Drew {
                        seat,
                        card: Some(_),
                    }
                    | Event::DeclinedCoupFourre { seat } => assert_eq!(
                        viewer,
                        Viewer::Seat(usize::from(seat)),
                        "{event:?} told to {viewer:?}"
                    ),
                    _ => {}
                }
            }
            // A coup fourré chance shows only to its seat (holding the
            // safety is what earns it): the others see the game as it goes
            // on without it. Their legal moves stay the table's, which
            // waits for the decision.
            if let Phase::CoupFourre { seat: holder, .. } = state.phase()
                && viewer != Viewer::Seat(usize::from(holder))
            {
                let mut without = state.clone();
                without
                    .apply(Action::DeclineCoupFourre)
                    .expect("a chance may be let pass");
                let mut theirs = without.observe(viewer, table.seats(), Vec::new());
                let mut ours = mine.clone();
                theirs.legal.clear();
                ours.legal.clear();
                assert_eq!(ours, theirs, "{viewer:?} sees a coup fourré chance");
                continue;
            }
            // The observation says what is legal, and why not.
            let Viewer::Seat(s) = viewer else { continue };
            let seat = state.rules().seat(seat_u8(s)).expect("a seat of the table");
            if !matches!(state.to_act(), ToAct::Seat(_)) {
                // Between hands and games the host acts, not a seat.
                assert!(mine.legal.is_empty());
                assert!(conceivable.iter().all(|&a| mine.check(a).is_err()));
                continue;
            }
            for &action in conceivable {
                let truth = state.check_as(seat, action);
                // The reasons of a sample (each one determinizes a state).
                if rng.next_u32().is_multiple_of(16) {
                    let seen = mine.check(action);
                    if state.rules().stacking {
                        assert_eq!(truth.is_ok(), seen.is_ok(), "{action} for seat {seat}");
                    } else {
                        assert_eq!(truth, seen, "{action} for seat {seat}");
                    }
                }
                assert_eq!(
                    mine.legal.contains(&action),
                    truth.is_ok() && mine.to_act(),
                    "{action} listed for seat {seat}"
                );
            }
        }
    }

    #[test]
    fn observations_hold_nothing_hidden_and_say_what_is_legal() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for config in GameConfig::every() {
            let conceivable = Action::every(Rules::new(config).expect("config").teams);
            for seed in 0..games() {
                let state = State::new(config, seed).expect("config");
                let mut table = Table::<Mille>::new(state, Vec::new());
                // Every step of the first games, then a sample of steps.
                let every = if seed < 2 { 1 } else { 40 };
                for step in 0..20_000u32 {
                    if step.is_multiple_of(every) {
                        check_step(&mut table, &mut rng, &conceivable);
                    }
                    let mut list = ActionList::default();
                    table.state().legal_actions(&mut list);
                    let Some(&action) = list.get(rng.next_u32() as usize % list.len().max(1))
                    else {
                        break;
                    };
                    let done = match table.turn() {
                        Turn::Seat(s) => table.act(s, action),
                        Turn::Host => table.host_act(action),
                        Turn::Over => break,
                    };
                    done.expect("a listed action is accepted");
                }
                assert_eq!(table.turn(), Turn::Over, "{config:?} seed {seed} ended");
            }
        }
    }

    #[test]
    fn a_hidden_coup_fourre_chance_leaves_the_next_seat_its_moves() {
        // classic, 3 seats: seat 0 stops seat 2, who holds Right of Way;
        // the chance comes out of turn, and seat 1 is next after a decline.
        let config = GameConfig {
            rules: crate::RulesetId::Classic,
            players: 3,
            stacking: false,
        };
        let first = Rules::new(config)
            .expect("classic 3")
            .seat(0)
            .expect("seat 0");
        let state = crate::Scenario::new(config)
            .expect("classic 3")
            .hand(
                0,
                &[
                    Card::Stop,
                    Card::D25,
                    Card::D50,
                    Card::D75,
                    Card::D100,
                    Card::Go,
                    Card::D25,
                ],
            )
            .hand(
                1,
                &[
                    Card::D25,
                    Card::D50,
                    Card::D75,
                    Card::D100,
                    Card::Go,
                    Card::D200,
                ],
            )
            .hand(
                2,
                &[
                    Card::RightOfWay,
                    Card::D25,
                    Card::D50,
                    Card::D75,
                    Card::D100,
                    Card::Go,
                ],
            )
            .battle(2, &[Card::Go])
            .deck(&[Card::D200, Card::D200, Card::D200, Card::D200])
            .phase(Phase::Turn {
                seat: first,
                drawn: true,
            })
            .build();
        let mut table: Table<Mille> = Table::new(state, Vec::new());
        table
            .act(
                0,
                Action::Play {
                    card: Card::Stop,
                    team: 2,
                },
            )
            .expect("the stop");
        assert_eq!(table.turn(), Turn::Seat(2), "seat 2 may call coup fourré");
        let holder = table.observe(Viewer::Seat(2));
        assert!(holder.legal.contains(&Action::DeclineCoupFourre));
        let next = table.observe(Viewer::Seat(1));
        assert_eq!(next.legal, vec![Action::Draw], "seat 1 sees its own turn");
        assert_eq!(
            next.status,
            PhaseView::Turn {
                seat: 1,
                drawn: false
            }
        );
        let attacker = table.observe(Viewer::Seat(0));
        assert!(attacker.legal.is_empty());
        // After the decline seat 1 draws as it was shown it could.
        table
            .act(2, Action::DeclineCoupFourre)
            .expect("the decline");
        table.act(1, Action::Draw).expect("the draw");
    }

    #[test]
    fn an_observation_is_the_protocol_view_and_more() {
        let mut state = State::new(GameConfig::default(), 3).expect("config");
        state.apply(Action::Draw).expect("draw");
        let seats = [SeatInfo::human("ann"), SeatInfo::computer("BSD", "classic")];
        let obs = state.observe(Viewer::Seat(0), &seats, Vec::new());
        let json = serde_json::to_value(&obs).expect("json");
        let view: View = serde_json::from_value(json.clone()).expect("a protocol view");
        assert_eq!(view, state.view(state.rules().seat(0).expect("seat 0")));
        assert_eq!(json["viewer"], serde_json::json!({"seat": 0}));
        assert_eq!(
            json["status"],
            serde_json::json!({"phase": "turn", "seat": 0, "drawn": true})
        );
        assert_eq!(
            json["seat_info"][1],
            serde_json::json!({"name": "BSD", "kind": "computer", "level": "classic"})
        );
        let back: Observation = serde_json::from_value(json).expect("round trip");
        assert_eq!(back, obs);
        assert_eq!(obs.decision(), Some(Decision::Turn));
        let spectator = state.observe(Viewer::Spectator, &seats, Vec::new());
        assert!(spectator.view.hand.is_empty() && spectator.legal.is_empty());
        assert_eq!(spectator.decision(), None);
    }

    /// The example in docs/observations.md is the observation of a real
    /// game (seed 11, the first legal play or else the first legal action
    /// at each step), so the page cannot drift from the code.
    #[test]
    fn the_documented_example_is_a_real_observation() {
        let page = include_str!("../../../docs/observations.md");
        let start = page.find("```json mille\n").expect("the example block") + 14;
        let end = start + page[start..].find("```").expect("its end");
        let documented: Observation = serde_json::from_str(&page[start..end]).expect("json");
        let state = State::new(GameConfig::default(), 11).expect("config");
        let seats = vec![
            (SeatInfo::human("ann"), game_table::Player::Person),
            (
                SeatInfo::computer("BSD", "classic"),
                game_table::Player::Person,
            ),
        ];
        let mut table = Table::<Mille>::new(state, seats);
        for _ in 0..5 {
            let mut list = ActionList::default();
            table.state().legal_actions(&mut list);
            let action = list
                .iter()
                .copied()
                .find(|a| matches!(a, Action::Play { .. }))
                .unwrap_or(list[0]);
            let Turn::Seat(seat) = table.turn() else {
                panic!("the hand goes on");
            };
            table.act(seat, action).expect("legal");
            if seat == 0 && action != Action::Draw {
                let _ = table.observe(Viewer::Seat(0));
            }
        }
        assert_eq!(documented, table.observe(Viewer::Seat(0)));
    }
}
