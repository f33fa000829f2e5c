//! The pure heart of the game: one event in, the model changed, the effects
//! to carry out returned. No terminal, no files, no threads here.

mod keys;
mod mouse;
mod play;
mod saving;

use crate::model::Model;
use mille_engine::Action;
use mille_store::{Options, SaveFile, ScoreKind};
use ratatui::crossterm::event::{KeyEvent, KeyEventKind, MouseEvent};
use std::path::PathBuf;

pub use mouse::DOUBLE_CLICK_MS;
pub use play::{NoUndo, after_change, human_action, undo_point};

/// Something that happened.
#[derive(Clone, Debug)]
pub enum Event {
    /// A key.
    Key(KeyEvent),
    /// A mouse action, with the time in ms (for double clicks).
    Mouse(MouseEvent, u64),
    /// The terminal changed size.
    Resize(u16, u16),
    /// Time passed.
    Tick,
    /// A computer player decided, for the state of `generation`.
    BotMove {
        /// The model generation the move was thought out for.
        generation: u64,
        /// The move.
        action: Action,
    },
    /// A save finished: the file, or why it failed.
    Saved(Result<PathBuf, String>),
    /// The high-score table was updated: the tables the player entered.
    ScoresRecorded(Result<Vec<ScoreKind>, String>),
}

/// Something for the event loop to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Ring the terminal bell.
    Bell,
    /// Clear and repaint the whole screen.
    Redraw,
    /// Leave the game.
    Quit,
    /// Compute the move of the computer player to act, for `generation`.
    Think {
        /// The model generation.
        generation: u64,
    },
    /// Write this save file and report with [`Event::Saved`].
    Save {
        /// Where.
        path: PathBuf,
        /// What.
        file: Box<SaveFile>,
    },
    /// Persist the options.
    SaveOptions(Options),
    /// Enter a finished game in the high-score table.
    RecordScores {
        /// Rules id.
        rules: String,
        /// Each side's name and final total.
        sides: Vec<(String, u32)>,
    },
}

/// Handles one event.
pub fn update(model: &mut Model, event: Event) -> Vec<Effect> {
    let mut fx = Vec::new();
    match event {
        Event::Key(k) => {
            if k.kind != KeyEventKind::Release {
                keys::on_key(model, k, &mut fx);
            }
        }
        Event::Mouse(m, ms) => mouse::on_mouse(model, m, ms, &mut fx),
        Event::Resize(w, h) => model.screen = (w, h),
        Event::Tick => {}
        Event::BotMove { generation, action } => {
            if generation == model.generation {
                model.thinking = false;
                play::computer_move(model, action, &mut fx);
            }
        }
        Event::Saved(result) => saving::on_saved(model, result, &mut fx),
        Event::ScoresRecorded(result) => match result {
            Ok(kinds) if !kinds.is_empty() => {
                let what: Vec<&str> = kinds
                    .iter()
                    .map(|k| match k {
                        ScoreKind::Total => "best totals",
                        ScoreKind::Spread => "best spreads",
                    })
                    .collect();
                model.notice(format!(
                    "You made the high-score table ({})! See it with mille --scores.",
                    what.join(" and ")
                ));
            }
            Ok(_) => {}
            Err(e) => model.error(format!("Could not update the high scores: {e}")),
        },
    }
    if model.quit && !fx.contains(&Effect::Quit) {
        fx.push(Effect::Quit);
    }
    fx
}

/// Starts the game: the computer's first move if it is to act.
pub fn start(model: &mut Model) -> Vec<Effect> {
    let mut fx = Vec::new();
    let dirty = model.dirty;
    after_change(model, &mut fx);
    model.dirty = dirty;
    fx
}
