//! Saving and leaving: the save questions (same file or a new name), the
//! result of a save, and what follows it (resume, quit, or deal).

use super::Effect;
use super::play::deal;
use crate::model::{AfterSave, Mode, Model};
use std::path::PathBuf;

pub(super) fn quit(model: &mut Model) {
    model.mode = Mode::Quitting;
    model.quit = true;
    // A spectator leaves the table, not the program: the lobby is where
    // another table is chosen.
    let watching = model.watching();
    if let Some(s) = &mut model.server
        && watching
    {
        s.to_lobby = true;
    }
    if let Some(s) = &model.server
        && !model.watching()
        && !model.game_over()
    {
        model.farewell = Some(format!(
            "You left {}; the seat stays yours: mille --connect {} takes you back to it.",
            s.place(),
            s.server
        ));
    }
}

/// What the S command answers at a table server.
pub const NO_SAVE_AT_A_SERVER: &str =
    "No saving at a shared table: the server keeps the game, and mille --connect takes you back.";

pub(super) fn begin_save(model: &mut Model, then: AfterSave, fx: &mut Vec<Effect>) {
    if model.server.is_some() {
        model.error(NO_SAVE_AT_A_SERVER);
        fx.push(Effect::Bell);
        return;
    }
    model.mode = match &model.save_path {
        Some(p) => Mode::SaveSame {
            path: p.clone(),
            then,
        },
        None => Mode::SaveName {
            buf: String::new(),
            then,
        },
    };
}

pub(super) fn request_save(
    model: &mut Model,
    path: PathBuf,
    then: AfterSave,
    fx: &mut Vec<Effect>,
) {
    model.mode = Mode::Saving { then };
    fx.push(Effect::Save {
        path,
        settings: model.save_settings(),
    });
}

pub(super) fn on_saved(model: &mut Model, result: Result<PathBuf, String>, fx: &mut Vec<Effect>) {
    let then = match model.mode {
        Mode::Saving { then } => then,
        _ => AfterSave::Resume,
    };
    match result {
        Ok(path) => {
            let saved = format!("Game saved in {}.", path.display());
            if then != AfterSave::Resume {
                model.farewell = Some(saved.clone());
            }
            model.notice(saved);
            model.save_path = Some(path);
            model.dirty = false;
            match then {
                AfterSave::Resume => {
                    model.mode = Mode::Normal;
                    model.sync_mode();
                }
                AfterSave::QuitElseResume | AfterSave::QuitElseDeal => quit(model),
            }
        }
        Err(e) => {
            model.error(e);
            fx.push(Effect::Bell);
            save_failed(model, then, fx);
        }
    }
}

/// A save that did not happen (cancelled or failed): play resumes.
pub(super) fn save_failed(model: &mut Model, then: AfterSave, fx: &mut Vec<Effect>) {
    model.mode = Mode::Normal;
    if then == AfterSave::QuitElseDeal && model.hand_over() {
        deal(model, fx);
    } else {
        model.sync_mode();
    }
}
