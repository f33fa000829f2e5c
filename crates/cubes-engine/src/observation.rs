//! What one viewer may know of a game of cubes, and the engine's side of
//! the table layer ([`Cubes`] implements [`game_table::Game`]).
//!
//! Everything on a cubes table is public (the dice, the turn, the
//! scores): an [`Observation`] is the [`View`] with the viewer's legal
//! actions when it is to act, the events it has not been shown yet and the
//! seats. Only the state's random generator stays hidden, so nobody can
//! tell the next roll.

use crate::state::{Action, Event, IllegalAction, State, ToAct, View};
use game_table::{Audience, Game, SeatInfo, Turn, Viewer};
use serde::{Deserialize, Serialize};

/// Everything one viewer may know of a game of cubes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    /// The table: settings, scores, dice, whose turn (for a spectator,
    /// `seat` is the seat to act).
    #[serde(flatten)]
    pub view: View,
    /// Whose observation this is.
    pub viewer: Viewer,
    /// The viewer's legal actions when it is to act (empty otherwise).
    pub legal: Vec<Action>,
    /// What holding now would bank, when the viewer may hold.
    pub hold_value: Option<u32>,
    /// What happened since the viewer's last observation, oldest first.
    pub events: Vec<Event>,
    /// The seats: names, and who is a person or a computer.
    pub seat_info: Vec<SeatInfo>,
}

impl Observation {
    /// Whether the viewer is the seat to act.
    pub fn to_act(&self) -> bool {
        self.view.winner.is_none() && self.viewer == Viewer::Seat(self.view.current)
    }

    /// Whether the viewer may take `action` now, and if not the engine's
    /// sentence for why.
    pub fn check(&self, action: Action) -> Result<(), IllegalAction> {
        if self.view.winner.is_some() {
            return Err(IllegalAction::GameOver);
        }
        if !self.to_act() {
            return Err(IllegalAction::NotYourTurn {
                current: self.view.current,
            });
        }
        self.view.check(action)
    }
}

impl State {
    /// Everything `viewer` may know, with the `events` it has not been
    /// shown yet and the table's `seats`.
    pub fn observe(&self, viewer: Viewer, seats: &[SeatInfo], events: Vec<Event>) -> Observation {
        let seat = match viewer {
            Viewer::Seat(s) if s < self.players().len() => Some(s),
            _ => None,
        };
        let mine = seat.is_some() && self.to_act() == ToAct::Seat(self.current());
        let to_act = mine && seat == Some(self.current());
        Observation {
            view: self.view(seat.unwrap_or(self.current())),
            viewer: seat.map_or(Viewer::Spectator, Viewer::Seat),
            legal: if to_act {
                self.legal_actions().as_slice().to_vec()
            } else {
                Vec::new()
            },
            hold_value: if to_act { self.can_hold().ok() } else { None },
            events,
            seat_info: seats.to_vec(),
        }
    }
}

/// cubes at a [`game_table::Table`]: every seat rolls in turn; nothing is
/// left for the host to do.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cubes;

impl Game for Cubes {
    type State = State;
    type Action = Action;
    type Event = Event;
    type Observation = Observation;
    type Illegal = IllegalAction;

    fn seat_count(state: &State) -> usize {
        state.players().len()
    }

    fn turn(state: &State) -> Turn {
        match state.to_act() {
            ToAct::Seat(s) => Turn::Seat(s),
            ToAct::GameOver { .. } => Turn::Over,
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
        let happened = state.apply(action)?;
        events.extend(happened.into_iter().map(|e| (Audience::All, e)));
        Ok(())
    }

    fn watched_by(_: &State, _: usize, _: Option<usize>, _: Action) -> bool {
        true
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
    //! Over thousands of random games of every kind, at every step: an
    //! observation is the same whatever the generator holds (the only
    //! hidden thing), a spectator's lists nothing to do, and the
    //! observation alone says which moves are legal, with the engine's
    //! reason for the others.

    use super::*;
    use crate::dice::DiceMask;
    use crate::settings::{JokerRule, Settings};
    use crate::state::View;
    use game_table::Table;
    use rand_chacha::ChaCha8Rng;
    use rand_core::{Rng, SeedableRng};

    fn conceivable() -> Vec<Action> {
        let mut all = vec![Action::Roll, Action::Hold];
        all.extend((0..32).map(|m| Action::Keep(DiceMask(m))));
        all
    }

    #[test]
    fn observations_hold_nothing_hidden_and_say_what_is_legal() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let kinds = [
            Settings::standard(),
            Settings::blitz(),
            Settings::standard().with_jokers(JokerRule::Always),
        ];
        let conceivable = conceivable();
        for (k, settings) in kinds.iter().enumerate() {
            for seed in 0..400u64 {
                let players = 1 + (seed as usize + k) % 4;
                let state = State::new(settings.clone(), players, seed).expect("setup");
                let mut table = Table::<Cubes>::new(state, Vec::new());
                while let Turn::Seat(seat) = table.turn() {
                    // Every step of the first games, then a sample.
                    if seed < 10 || rng.next_u32().is_multiple_of(10) {
                        check_step(&mut table, seat, &conceivable, &mut rng);
                    }
                    let legal = table.state().legal_actions();
                    let action = legal.as_slice()[rng.next_u32() as usize % legal.len()];
                    table
                        .act(seat, action)
                        .expect("a listed action is accepted");
                }
            }
        }
    }

    fn check_step(
        table: &mut Table<Cubes>,
        seat: usize,
        conceivable: &[Action],
        rng: &mut ChaCha8Rng,
    ) {
        let players = table.seats().len();
        let state = table.state().clone();
        let mut other = state.clone();
        // The hidden things: the seed and where its generator stands (the
        // dice to come).
        other.rng = ChaCha8Rng::seed_from_u64(rng.next_u64());
        other.seed = rng.next_u64();
        let others = (seat + 1) % players;
        for viewer in [Viewer::Seat(seat), Viewer::Seat(others), Viewer::Spectator] {
            let obs = state.observe(viewer, table.seats(), Vec::new());
            assert_eq!(obs, other.observe(viewer, table.seats(), Vec::new()));
            assert_eq!(obs.to_act(), viewer == Viewer::Seat(seat));
            if !obs.to_act() {
                assert!(obs.legal.is_empty());
                let refused = Err(IllegalAction::NotYourTurn { current: seat });
                assert_eq!(obs.check(Action::Roll), refused);
                continue;
            }
            for &a in conceivable {
                let truth = state.check(a);
                assert_eq!(obs.check(a), truth, "{a} for {viewer:?}");
                assert_eq!(obs.legal.contains(&a), truth.is_ok(), "{a} listed");
            }
        }
        // Every event is public: everybody is told the same.
        let told = table.observe(Viewer::Spectator).events;
        for s in 0..players {
            assert_eq!(table.observe(Viewer::Seat(s)).events, told);
        }
        assert_eq!(told.is_empty(), table.seq() == 0, "each move is told");
    }

    #[test]
    fn an_observation_round_trips_through_json_with_its_view_at_the_top() {
        let state = State::new(Settings::standard(), 2, 4).expect("setup");
        let mut table = Table::<Cubes>::new(state, Vec::new());
        table.act(0, Action::Roll).expect("roll");
        let obs = table.observe(Viewer::Seat(0));
        let json = serde_json::to_value(&obs).expect("json");
        let view: View = serde_json::from_value(json.clone()).expect("the view");
        assert_eq!(view, obs.view);
        assert_eq!(json["seat_info"][0]["name"], "Seat 1");
        let back: Observation = serde_json::from_value(json).expect("round trip");
        assert_eq!(back, obs);
    }

    /// The example in docs/observations.md is the observation of a real
    /// game (seed 4, after the first roll; its legal list is shortened), so
    /// the page cannot drift from the code.
    #[test]
    fn the_documented_example_is_a_real_observation() {
        let page = include_str!("../../../docs/observations.md");
        let start = page.find("```json cubes\n").expect("the example block") + 14;
        let end = start + page[start..].find("```").expect("its end");
        let mut documented: Observation = serde_json::from_str(&page[start..end]).expect("json");
        let state = State::new(Settings::standard(), 2, 4).expect("setup");
        let seats = vec![
            (SeatInfo::human("ann"), game_table::Player::Person),
            (
                SeatInfo::computer("Steady Sam", "steady"),
                game_table::Player::Person,
            ),
        ];
        let mut table = Table::<Cubes>::new(state, seats);
        let Turn::Seat(first) = table.turn() else {
            panic!("a new game");
        };
        table.act(first, Action::Roll).expect("roll");
        let mut real = table.observe(Viewer::Seat(first));
        assert!(documented.legal.iter().all(|a| real.legal.contains(a)));
        documented.legal.clear();
        real.legal.clear();
        assert_eq!(documented, real);
    }
}
