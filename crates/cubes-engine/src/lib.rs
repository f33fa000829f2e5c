//! Rules engine for `cubes`, the five-dice game of Gregory M. Paris (1988).
//!
//! This crate owns the rules and nothing else: no I/O, no terminal, no global
//! random generator. A [`State`] holds the whole truth of a game, including
//! its own seeded [`rand_chacha::ChaCha8Rng`], so `seed + action log`
//! replays a game bit for bit ([`GameRecord`]). Whoever drives the game asks
//! [`State::to_act`] and [`State::legal_actions`], applies an [`Action`] with
//! [`State::apply`] (refusals come back as an [`IllegalAction`] whose
//! `Display` is a sentence for the player) and shows each seat its
//! [`Observation`]. [`Cubes`] runs the game at a [`game_table::Table`]
//! ([`Cubes::table`] seats a new one).
//!
//! Scoring lives in [`scoring`]; game settings (Standard, Blitz, Jokers) are
//! data in [`settings`].

pub mod dice;
pub mod observation;
pub mod record;
pub mod scoring;
pub mod seating;
pub mod settings;
pub mod state;

pub use dice::{DiceMask, Face};
pub use observation::{Cubes, Observation};
pub use record::{GameRecord, ReplayError};
pub use scoring::{
    Combo, Combos, Keep, all_scoring_keep, best_keep, faces_of, score_keep, score_roll,
    valid_keeps, what_scores,
};
pub use settings::{JokerRule, Settings};
pub use state::{
    Action, ActionList, DieState, Event, Events, IllegalAction, MAX_PLAYERS, Phase, PlayerScore,
    SetupError, State, ToAct, Turn, View, first_seat,
};
