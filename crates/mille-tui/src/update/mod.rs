//! The pure heart of the game: one event in, the model changed, the effects
//! to carry out returned. No terminal, no files, no threads, no table here:
//! moves go out as effects for the host ([`crate::host`]), and the game
//! comes back as the player's observation.

mod keys;
mod mouse;
mod play;
mod saving;

use crate::host::NoUndo;
use crate::model::Model;
use mille_engine::{Action, Observation};
use mille_store::{Options, SaveSettings, ScoreKind};
use ratatui::crossterm::event::{KeyEvent, KeyEventKind, MouseEvent};
use std::path::PathBuf;
use std::time::Instant;
use table_client::Link;
use table_client::protocol::SeatSummary;

pub use mouse::DOUBLE_CLICK_MS;
pub use play::{after_change, human_action};
pub use saving::NO_SAVE_AT_A_SERVER;

/// Something that happened.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A key.
    Key(KeyEvent),
    /// A mouse action, with the time in ms (for double clicks).
    Mouse(MouseEvent, u64),
    /// The terminal changed size.
    Resize(u16, u16),
    /// Time passed.
    Tick,
    /// The table took (or refused) the player's move or a deal.
    Acted {
        /// The move.
        action: Action,
        /// The player's observation after it, or the table's reason.
        result: Result<Box<Observation>, String>,
    },
    /// A computer player moved.
    BotMoved {
        /// Its seat.
        seat: u8,
        /// Its move.
        action: Action,
        /// The player's observation after it.
        observation: Box<Observation>,
    },
    /// A computer player chose an illegal move or failed: the classic level
    /// plays its seat from now on. The observation is the whole game's
    /// again (the table was rebuilt), events included.
    BotReplaced {
        /// Its seat.
        seat: u8,
        /// What it did ("made an illegal move (...)").
        what: String,
        /// The table's account of it, for the log on standard error.
        log: String,
        /// The player's observation, with every event of the game.
        observation: Box<Observation>,
    },
    /// The player's last move was taken back: the observation of the
    /// shortened game, with every event of it, or why nothing was.
    Undone(Result<Box<Observation>, NoUndo>),
    /// The table changed otherwise: at a table server, another seat's move
    /// (a person's or a computer's), a deal, a seat taken or left, or the
    /// seat's observation again after a reconnection (its events those
    /// missed meanwhile).
    Observed(Box<Observation>),
    /// At a table server: how many people's seats are still free (the
    /// game starts when none is).
    Seats {
        /// Seats nobody has taken yet.
        free: usize,
    },
    /// At a table server: the seats as an update describes them
    /// (who left, and when a computer plays for them), received at `at`.
    People {
        /// The seats.
        seats: Vec<SeatSummary>,
        /// When the update came (its countdowns start then).
        at: Instant,
    },
    /// At a table server: the connection changed.
    Link(Link),
    /// At a table server: the server refused something that is not a move
    /// (its sentence).
    Refused(String),
    /// At a table server: news for the player that asks nothing of them
    /// (a bot declined its invitation to the table).
    Told(String),
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
    /// Leave the game at once, keeping it in the autosave if it is not
    /// over (Ctrl-C; a signal or a closed terminal does the same).
    Interrupted,
    /// The player's move, for the table ([`Event::Acted`] reports it).
    Act(Action),
    /// Deal the next hand or game ([`Event::Acted`] reports it).
    Deal(Action),
    /// Let the computer player to act move, for `generation` (dropped if
    /// the game changed since): [`Event::BotMoved`] reports it.
    Think {
        /// The model generation.
        generation: u64,
    },
    /// Take back the player's last move ([`Event::Undone`] reports it).
    Undo,
    /// Write the game record with these settings to `path` and report
    /// with [`Event::Saved`].
    Save {
        /// Where.
        path: PathBuf,
        /// The player's settings saved with the record.
        settings: SaveSettings,
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

impl Effect {
    /// Whether the host carries it out with the table (see
    /// [`crate::host::Host::carry_out`]).
    pub fn for_table(&self) -> bool {
        matches!(
            self,
            Effect::Act(_) | Effect::Deal(_) | Effect::Think { .. } | Effect::Undo
        )
    }
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
        Event::Acted { action, result } => play::acted(model, action, result, &mut fx),
        Event::BotMoved { observation, .. } => play::computer_moved(model, *observation, &mut fx),
        Event::BotReplaced {
            seat,
            what,
            log,
            observation,
        } => play::computer_replaced(model, seat, &what, log, *observation, &mut fx),
        Event::Undone(result) => play::undone(model, result, &mut fx),
        Event::Observed(observation) => play::computer_moved(model, *observation, &mut fx),
        Event::Seats { free } => {
            if let Some(s) = &mut model.server {
                s.free = free;
            }
        }
        Event::People { seats, at } => {
            let me = model.me().map(usize::from);
            if let Some(s) = &mut model.server {
                s.seated(seats, me, at);
            }
        }
        Event::Link(link) => play::link(model, link, &mut fx),
        Event::Refused(why) => {
            model.error(why);
            fx.push(Effect::Bell);
        }
        Event::Told(news) => model.notice(news),
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
