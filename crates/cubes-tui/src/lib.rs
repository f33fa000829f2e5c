//! The terminal game `cubes`: the full-screen board (ratatui) and the
//! line-by-line text mode, for people and computer players at one table.
//!
//! - [`app::App`] is the model: the game's [`game_table::Table`] (the one
//!   game loop: people's moves go to [`game_table::Table::act`], computer
//!   players are asked by [`game_table::Table::step`]) or a game at a table
//!   server ([`App::remote`]: moves go out, observations come in through
//!   [`App::note`]), the observation the screen shows, the dice picked, the
//!   status line and the log. [`App::update`] is pure: it takes one
//!   [`app::Input`] (a key, or a tick for a computer move) and returns the
//!   [`app::Effect`] the caller carries out (record the finished game,
//!   send a move, leave).
//! - [`ui::draw`] draws the model from the observation, never from the
//!   engine's full state; [`ui::fits`] tells whether a terminal is big
//!   enough for the board.
//! - [`term::run`] is the full-screen loop (crossterm events in, frames
//!   out, computer moves on a timer; with [`term::run_at`], a table
//!   server's session's notes in and moves out). [`plain::run`] is the
//!   text mode (`--plain`, local games only): typed commands in, lines
//!   out.
//! - [`signals::Stop`] turns a hangup, `kill` or Ctrl-C into an ordinary
//!   quit, so a game left that way is still recorded; the loops also end
//!   the game as a hangup when they find the terminal gone.
//!
//! The UI never decides a rule: every move is checked by the engine and a
//! refused move shows the engine's reason; the numbers of the rules on
//! screen (targets, thresholds, points) are read from the engine.
//! Recording a game is the caller's: see the `cubes-store` crate.

pub mod app;
pub mod plain;
pub use game_signals as signals;
pub mod term;
pub mod ui;

pub use app::{App, Controls, Effect, Input, Mode, Remote};
pub use signals::{Stop, Ttys};

/// What can go wrong while playing in the terminal.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal could not be set up for the full screen.
    #[error("setting up the terminal")]
    Setup(#[source] std::io::Error),
    /// Reading the player's input or writing to the terminal failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A table server sent an observation that is not a game of cubes.
    #[error("the table server sent a game this cubes cannot read")]
    Observation(#[source] serde_json::Error),
}
