//! The terminal game `mille`: the BSD board and score window with Mile
//! Bones' comforts, built the ratatui way.
//!
//! - [`model::Model`] holds everything the screen shows: the player's
//!   seat's observation of the game (never the engine's full state), the
//!   log of moves made of its events, the question being asked, messages.
//! - [`update::update`] is pure: it takes the model and one [`update::Event`]
//!   (a key, a mouse action, a tick, the table's answer to a move, the
//!   result of a save) and returns the [`update::Effect`]s to carry out
//!   (ring the bell, send a move to the table, let a computer play, save,
//!   quit).
//! - [`host::Host`] owns the game's table (`game_table::Table`): it carries
//!   out the game's effects and answers with the player's new observation;
//!   computer players sit at it as bots.
//! - [`remote::RemoteHost`] is the host's counterpart for a game at a
//!   table server: the same effects go to the server as messages, and its
//!   answers and the other seats' moves come back as the same events.
//! - [`render::draw`] draws the model; [`render::Hits`] tells which part of
//!   the screen a mouse click is on.
//! - [`app::run`] is the event loop: one channel for keys, mouse, ticks and
//!   the host coming back from a computer's turn (thought out on a thread
//!   of its own). [`plain::run`] is the line-by-line text mode.
//! - [`signals::Stop`] turns a hangup, `kill` or Ctrl-C into a flag the
//!   loops watch: they keep an unfinished game in the autosave
//!   ([`app::Io::keep`]) and leave the terminal as they found it.
//! - [`commands::COMMANDS`] is the one table of the in-game commands that
//!   every list of them (help screens, score window, `--help`, man page)
//!   formats.
//!
//! The UI never decides a rule: every move is checked by the engine and a
//! refused move shows the engine's reason.

pub mod app;
pub mod commands;
pub mod host;
pub mod model;
pub mod plain;
pub mod remote;
pub mod render;
pub mod replay;
pub use game_signals as signals;
pub mod update;

pub use model::{Mode, Model, Setup};
pub use update::{Effect, Event, update};
