//! Mille Bornes rules engine: pure, seeded and replayable.
//!
//! A [`State`] holds the whole truth of a game under one of three rulesets
//! ([`RulesetId`]): `bsd`, `classic` and `milebones`. Whoever drives the game
//! asks [`State::legal_actions`], applies an [`Action`] with [`State::apply`]
//! (which explains refusals with an [`IllegalAction`]), shows each seat its
//! [`Observation`] (the protocol's [`View`] and what else a player at the
//! table knows), and records the [`GameRecord`] (rules + seed + actions)
//! that replays the game bit for bit. [`Mille`] runs the game at a
//! [`game_table::Table`].

pub mod action;
pub mod card;
pub mod error;
pub mod history;
pub mod observation;
pub mod pile;
pub mod record;
pub mod rules;
pub mod scenario;
pub mod score;
pub mod seat;
pub mod sim;
pub mod state;
pub mod view;

pub use action::{Action, ActionList};
pub use card::{Card, CardCounts, Kind, Safety, SafetySet};
pub use error::IllegalAction;
pub use observation::{Event, Mille, Observation, PhaseView, seen_by};
pub use record::{GameRecord, ReplayError, ReplayStep};
pub use rules::{GameConfig, Rules, RulesetId};
pub use scenario::Scenario;
pub use score::HandScore;
pub use seat::Seat;
pub use state::{Outcome, Phase, State, Tableau, ToAct, bounded};
pub use view::{DeterminizeError, View, determinize};
