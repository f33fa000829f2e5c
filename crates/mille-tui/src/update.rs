//! The pure heart of the game: one event in, the model changed, the effects
//! to carry out returned. No terminal, no files, no threads here.

use crate::model::{AfterSave, HUMAN, Mode, Model, MoveLog, Verb, Window, slot_label};
use crate::render::{Hit, Hits};
use mille_engine::{Action, ActionList, Card, GameRecord, IllegalAction, Kind, Phase, ToAct};
use mille_store::{Options, SaveFile, ScoreKind};
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use std::path::PathBuf;

/// Double clicks are two presses on the same card within this many ms.
pub const DOUBLE_CLICK_MS: u64 = 400;

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
                on_key(model, k, &mut fx);
            }
        }
        Event::Mouse(m, ms) => on_mouse(model, m, ms, &mut fx),
        Event::Resize(w, h) => model.screen = (w, h),
        Event::Tick => {}
        Event::BotMove { generation, action } => {
            if generation == model.generation {
                model.thinking = false;
                computer_move(model, action, &mut fx);
            }
        }
        Event::Saved(result) => on_saved(model, result, &mut fx),
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

fn ch(k: &KeyEvent) -> Option<char> {
    match k.code {
        KeyCode::Char(c) => Some(c),
        _ => None,
    }
}

fn on_key(model: &mut Model, k: KeyEvent, fx: &mut Vec<Effect>) {
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl && matches!(k.code, KeyCode::Char('l') | KeyCode::Char('L')) {
        fx.push(Effect::Redraw);
        return;
    }
    // The message line describes what the last key did: any other key
    // than one that only changes the view (redraw, the score window) clears
    // it, and the key's own message, if any, replaces it.
    if !view_key(model, &k) {
        model.clear_message();
    }
    if ctrl && matches!(k.code, KeyCode::Char('c')) {
        // Like DELETE: ask before quitting. At the name question the
        // offered name is kept first, so the game can go on if the player
        // answers no.
        if matches!(model.mode, Mode::Name { .. }) {
            let name = model.default_name.clone();
            set_name(model, name, fx);
        }
        model.mode = Mode::ConfirmQuit;
        return;
    }
    match model.mode.clone() {
        Mode::Normal => normal_key(model, k, fx),
        Mode::PickCard { verb, slot } => match k.code {
            KeyCode::Char(' ') if slot.is_none() => {}
            KeyCode::Enter | KeyCode::Char(' ') => {
                model.mode = Mode::Normal;
                if let Some(s) = slot {
                    card_command(model, verb, s, fx);
                }
            }
            KeyCode::Esc => model.mode = Mode::Normal,
            KeyCode::Backspace => {
                model.mode = Mode::PickCard { verb, slot: None };
            }
            KeyCode::Char(c) => match slot_of(c) {
                Some(s) => {
                    model.mode = Mode::PickCard {
                        verb,
                        slot: Some(s),
                    }
                }
                None => {
                    model.error(format!(
                        "{c:?} is not a card: type 1 to 6 or P, then RETURN (ESC cancels)"
                    ));
                    fx.push(Effect::Bell);
                }
            },
            _ => {}
        },
        Mode::Target { card } => match k.code {
            KeyCode::Esc => model.mode = Mode::Normal,
            KeyCode::Char(c) => {
                let team = c
                    .to_digit(10)
                    .and_then(|d| u8::try_from(d).ok())
                    .and_then(|n| model.side_of_number(n));
                match team {
                    Some(t) => {
                        model.mode = Mode::Normal;
                        human_action(model, Action::Play { card, target: t }, fx);
                    }
                    None => {
                        model.error(format!(
                            "Type the number of the side to attack: {} (ESC cancels)",
                            model.side_choices()
                        ));
                        fx.push(Effect::Bell);
                    }
                }
            }
            _ => {}
        },
        Mode::ConfirmQuit => match yes_no_or_esc(&k) {
            Some(true) => {
                if model.dirty {
                    model.mode = Mode::SaveOnExit {
                        then: AfterSave::QuitElseResume,
                    };
                } else {
                    quit(model);
                }
            }
            Some(false) => {
                model.mode = Mode::Normal;
                model.sync_mode();
            }
            None => answer_y_or_n(model, "quit the game", fx),
        },
        Mode::ConfirmDiscard { card } => match yes_no_or_esc(&k) {
            Some(true) => {
                model.mode = Mode::Normal;
                human_action(model, Action::Discard(card), fx);
            }
            Some(false) => {
                model.mode = Mode::Normal;
                model.sync_mode();
                model.notice(format!("You kept the {card}."));
            }
            None => answer_y_or_n(model, &format!("discard the {card}"), fx),
        },
        Mode::SaveOnExit { then } => match yes_no(&k) {
            Some(true) => begin_save(model, then),
            Some(false) => quit(model),
            None => answer_y_or_n(model, "save the game before leaving", fx),
        },
        Mode::SaveSame { path, then } => match yes_no(&k) {
            Some(true) => request_save(model, path, then, fx),
            Some(false) => {
                model.mode = Mode::SaveName {
                    buf: String::new(),
                    then,
                }
            }
            None => answer_y_or_n(
                model,
                &format!("save in {} (n asks for another file)", path.display()),
                fx,
            ),
        },
        Mode::SaveName { mut buf, then } => match k.code {
            KeyCode::Enter => {
                let name = buf.trim().to_string();
                if name.is_empty() {
                    model.notice("Save cancelled.");
                    save_failed(model, then, fx);
                } else {
                    request_save(model, PathBuf::from(name), then, fx);
                }
            }
            KeyCode::Esc => {
                model.notice("Save cancelled.");
                save_failed(model, then, fx);
            }
            KeyCode::Backspace => {
                buf.pop();
                model.mode = Mode::SaveName { buf, then };
            }
            KeyCode::Char(c) if !ctrl => {
                buf.push(c);
                model.mode = Mode::SaveName { buf, then };
            }
            _ => {}
        },
        Mode::Saving { .. } | Mode::Quitting => {}
        Mode::Another => match yes_no(&k) {
            Some(true) => deal(model, fx),
            Some(false) => {
                model.mode = Mode::SaveOnExit {
                    then: AfterSave::QuitElseDeal,
                }
            }
            None => {
                if !window_or_redraw(model, &k, fx) && !question_command(model, &k, false, fx) {
                    let what = if model.state.phase() == Phase::GameOver {
                        "play another game"
                    } else {
                        "play another hand"
                    };
                    answer_y_or_n(model, what, fx);
                }
            }
        },
        Mode::Extension => match yes_no(&k) {
            Some(answer) => {
                human_action(model, Action::Extend(answer), fx);
            }
            None => {
                if !window_or_redraw(model, &k, fx) && !question_command(model, &k, true, fx) {
                    answer_y_or_n(model, "extend the trip to 1000 miles", fx);
                }
            }
        },
        Mode::Name { mut buf } => match k.code {
            KeyCode::Enter => {
                let name = buf.trim();
                let name: String = if name.is_empty() {
                    model.default_name.clone()
                } else {
                    name.chars().take(31).collect()
                };
                set_name(model, name, fx);
            }
            // ESC leaves the question with the offered name: the name is
            // asked once, and a player who does not care keeps the login
            // name rather than being stuck in a text field.
            KeyCode::Esc => {
                let name = model.default_name.clone();
                set_name(model, name, fx);
                model.notice(format!(
                    "Your name is {}; mille --name NAME changes it.",
                    model.player
                ));
            }
            KeyCode::Backspace => {
                buf.pop();
                model.mode = Mode::Name { buf };
            }
            KeyCode::Char(c) if !ctrl => {
                buf.push(c);
                model.mode = Mode::Name { buf };
            }
            _ => {}
        },
        Mode::Help => {
            model.mode = Mode::Normal;
            model.sync_mode();
        }
    }
}

/// Takes `name` as the player's name, remembers it, and starts the game.
fn set_name(model: &mut Model, name: String, fx: &mut Vec<Effect>) {
    model.player = name.clone();
    model.options.name = Some(name);
    fx.push(Effect::SaveOptions(model.options.clone()));
    model.mode = Mode::Normal;
    model.sync_mode();
}

/// A key that is neither y nor n at a yes/no question: the bell, and what
/// the question wants.
fn answer_y_or_n(model: &mut Model, question: &str, fx: &mut Vec<Effect>) {
    model.error(format!("Answer y or n: {question}?"));
    fx.push(Effect::Bell);
}

/// The commands that still make sense while the game asks about the
/// extension or another hand: quit, save, help, and (at the extension
/// question) undo of the move that reached 700. Returns whether `k` was
/// one; each comes back to the question, which follows the game's phase.
fn question_command(model: &mut Model, k: &KeyEvent, undo_too: bool, fx: &mut Vec<Effect>) -> bool {
    if matches!(k.code, KeyCode::Delete | KeyCode::Backspace) {
        model.mode = Mode::ConfirmQuit;
        return true;
    }
    match ch(k).map(|c| c.to_ascii_lowercase()) {
        Some('q') => model.mode = Mode::ConfirmQuit,
        Some('s') => begin_save(model, AfterSave::Resume),
        Some('?' | 'h') => model.mode = Mode::Help,
        Some('z') if undo_too => undo(model, fx),
        _ => return false,
    }
    true
}

/// R and W, which only change the view, where they are commands (not
/// letters of a name or a file).
fn view_key(model: &Model, k: &KeyEvent) -> bool {
    matches!(model.mode, Mode::Normal | Mode::Another | Mode::Extension)
        && matches!(ch(k).map(|c| c.to_ascii_lowercase()), Some('r' | 'w'))
}

/// W, R and ^L work at the end-of-hand questions too.
fn window_or_redraw(model: &mut Model, k: &KeyEvent, fx: &mut Vec<Effect>) -> bool {
    match ch(k).map(|c| c.to_ascii_lowercase()) {
        Some('w') => {
            toggle_window(model, fx);
            true
        }
        Some('r') => {
            fx.push(Effect::Redraw);
            true
        }
        _ => false,
    }
}

/// The W command; the choice is remembered like the other options.
fn toggle_window(model: &mut Model, fx: &mut Vec<Effect>) {
    model.window = match model.window {
        Window::Commands => Window::Scores,
        Window::Scores => Window::Commands,
    };
    model.options.bonus_window = model.window == Window::Scores;
    fx.push(Effect::SaveOptions(model.options.clone()));
}

fn yes_no(k: &KeyEvent) -> Option<bool> {
    match ch(k).map(|c| c.to_ascii_lowercase()) {
        Some('y') => Some(true),
        Some('n') => Some(false),
        _ => None,
    }
}

/// [`yes_no`] for the questions that only confirm a command (quit,
/// discard a safety): ESC backs out of them, so it answers no.
fn yes_no_or_esc(k: &KeyEvent) -> Option<bool> {
    yes_no(k).or((k.code == KeyCode::Esc).then_some(false))
}

fn slot_of(c: char) -> Option<usize> {
    match c {
        'p' | 'P' => Some(0),
        '1'..='6' => c.to_digit(10).map(|d| d as usize),
        _ => None,
    }
}

fn normal_key(model: &mut Model, k: KeyEvent, fx: &mut Vec<Effect>) {
    // DELETE, or RUBOUT (which terminals send as backspace), quits.
    if matches!(k.code, KeyCode::Delete | KeyCode::Backspace) {
        model.mode = Mode::ConfirmQuit;
        return;
    }
    if k.code == KeyCode::Esc {
        model.selected = None;
        model.clear_message();
        return;
    }
    let Some(c) = ch(&k) else { return };
    if c == ' ' {
        return;
    }
    let lower = c.to_ascii_lowercase();
    if matches!(lower, 'p' | 'u' | 'd')
        && let Some(seat) = model.computer_to_act()
    {
        // Say so now rather than after the card is chosen.
        model.wait_for(seat);
        return;
    }
    match lower {
        'p' => pick(model, fx),
        'u' => {
            model.mode = Mode::PickCard {
                verb: Verb::Use,
                slot: None,
            }
        }
        'd' => {
            model.mode = Mode::PickCard {
                verb: Verb::Discard,
                slot: None,
            }
        }
        'o' => {
            model.sorted = !model.sorted;
            model.options.auto_sort = model.sorted;
            model.selected = None;
            fx.push(Effect::SaveOptions(model.options.clone()));
            model.notice(if model.sorted {
                "Your hand is now kept sorted."
            } else {
                "Your hand is no longer sorted."
            });
        }
        'q' => model.mode = Mode::ConfirmQuit,
        's' => begin_save(model, AfterSave::Resume),
        'r' => fx.push(Effect::Redraw),
        'w' => toggle_window(model, fx),
        'z' => undo(model, fx),
        'm' => {
            model.options.mouse = model.options.mouse.toggled();
            fx.push(Effect::SaveOptions(model.options.clone()));
            model.notice(format!("Mouse play: {}.", model.options.mouse.label()));
        }
        '?' | 'h' => model.mode = Mode::Help,
        _ => {
            model.error(format!(
                "Unknown command {c:?}: type ? for the list of commands"
            ));
            fx.push(Effect::Bell);
        }
    }
}

/// The P command: let a coup fourré chance pass, then pick a card.
fn pick(model: &mut Model, fx: &mut Vec<Effect>) {
    if let Phase::CoupFourre { seat, .. } = model.state.phase()
        && seat == HUMAN
    {
        if !human_action(model, Action::DeclineCoupFourre, fx) {
            return;
        }
        if model.state.phase()
            != (Phase::Turn {
                seat: HUMAN,
                drawn: false,
            })
        {
            return;
        }
    }
    human_action(model, Action::Draw, fx);
}

/// U or D on a slot.
fn card_command(model: &mut Model, verb: Verb, slot: usize, fx: &mut Vec<Effect>) {
    let Some(card) = model.slots().get(slot).copied().flatten() else {
        model.error(format!("There is no card in slot {}", slot_label(slot)));
        fx.push(Effect::Bell);
        return;
    };
    match verb {
        Verb::Discard => discard(model, card, fx),
        Verb::Use => use_card(model, card, None, fx),
    }
}

/// Discards `card`, asking first when it is a safety the rules let the
/// player throw away (`classic`, `milebones`: decision 9). Under `bsd` the
/// engine refuses the discard itself and says why.
fn discard(model: &mut Model, card: Card, fx: &mut Vec<Effect>) {
    if card.kind() == Kind::Safety && model.state.check_as(HUMAN, Action::Discard(card)).is_ok() {
        model.selected = None;
        model.mode = Mode::ConfirmDiscard { card };
        return;
    }
    human_action(model, Action::Discard(card), fx);
}

/// Plays `card`: on `target` if given (mouse), else where it belongs.
fn use_card(model: &mut Model, card: Card, target: Option<u8>, fx: &mut Vec<Effect>) {
    let own = model.state.team_of(HUMAN);
    if let Phase::CoupFourre { seat, .. } = model.state.phase()
        && seat == HUMAN
        && card.kind() == Kind::Safety
        && target.is_none_or(|t| t == own)
    {
        human_action(model, Action::CoupFourre(card), fx);
        return;
    }
    if card.kind() != Kind::Hazard {
        human_action(
            model,
            Action::Play {
                card,
                target: target.unwrap_or(own),
            },
            fx,
        );
        return;
    }
    if let Some(t) = target {
        human_action(model, Action::Play { card, target: t }, fx);
        return;
    }
    let opponents: Vec<u8> = (0..model.teams()).filter(|&t| t != own).collect();
    let open: Vec<u8> = opponents
        .iter()
        .copied()
        .filter(|&t| {
            model
                .state
                .check_as(HUMAN, Action::Play { card, target: t })
                .is_ok()
        })
        .collect();
    match open.as_slice() {
        [only] => {
            human_action(
                model,
                Action::Play {
                    card,
                    target: *only,
                },
                fx,
            );
        }
        [] => {
            // Nowhere to play it: let the engine say why (about the first
            // opponent).
            let t = opponents.first().copied().unwrap_or(own);
            human_action(model, Action::Play { card, target: t }, fx);
        }
        _ => model.mode = Mode::Target { card },
    }
}

/// Applies the player's action if the engine allows it; otherwise shows the
/// engine's reason and rings the bell. Returns whether it was applied.
pub fn human_action(model: &mut Model, action: Action, fx: &mut Vec<Effect>) -> bool {
    match model.state.check_as(HUMAN, action) {
        Ok(()) => {}
        // The engine numbers seats ("waiting for player 1"); the screen
        // names them.
        Err(IllegalAction::NotYourTurn { expected }) => {
            model.wait_for(expected);
            return false;
        }
        Err(why) => {
            model.error(why.to_string());
            fx.push(Effect::Bell);
            return false;
        }
    }
    model.selected = None;
    apply(model, HUMAN, action, fx);
    match action {
        // The extra turn is only announced when it is there: a last card
        // can end the hand.
        _ if !model.human_to_act() => {}
        Action::CoupFourre(c) => model.notice(format!(
            "Coup fourré! Your {c} scores 300 more points, and you take another turn."
        )),
        Action::Play { card, .. } if card.kind() == Kind::Safety => {
            model.notice(format!(
                "{card} is in play for the hand: you take another turn."
            ));
        }
        _ => {}
    }
    true
}

fn computer_move(model: &mut Model, action: Action, fx: &mut Vec<Effect>) {
    let Some(seat) = model.computer_to_act() else {
        return;
    };
    let action = if model.state.check(action).is_ok() {
        action
    } else {
        // A bot bug must not stop the game: take the first legal move.
        let mut list = ActionList::default();
        model.state.legal_actions(&mut list);
        match list.first() {
            Some(&a) => a,
            None => return,
        }
    };
    apply(model, seat, action, fx);
}

fn apply(model: &mut Model, seat: u8, action: Action, fx: &mut Vec<Effect>) {
    match model.state.apply(action) {
        Ok(outcome) => {
            model.record.actions.push(action);
            model.log_action(seat, action);
            if outcome.game_over {
                let rules = model.state.rules().config.rules.id().to_string();
                let sides = (0..model.teams())
                    .map(|t| {
                        (
                            model.team_score_name(t),
                            model.state.totals().get(t as usize).copied().unwrap_or(0),
                        )
                    })
                    .collect();
                fx.push(Effect::RecordScores { rules, sides });
            }
            after_change(model, fx);
        }
        Err(why) => {
            model.error(why.to_string());
            fx.push(Effect::Bell);
        }
    }
}

/// After the game state changed: new generation, the right question, and
/// the computer's turn if it is to act.
pub fn after_change(model: &mut Model, fx: &mut Vec<Effect>) {
    model.generation += 1;
    model.dirty = true;
    model.thinking = false;
    model.sync_mode();
    if model.message_until_turn {
        // The wait notice follows the table: it names the computer now
        // playing, and goes when nobody but the player is to act.
        match model.computer_to_act() {
            Some(seat) => model.wait_for(seat),
            None => model.clear_message(),
        }
    }
    // A new hand or the end of one: whatever the line said was about the
    // play before (the high-score notice comes after this).
    if model.hand_over() {
        model.clear_message();
    }
    if model.computer_to_act().is_some() {
        model.thinking = true;
        fx.push(Effect::Think {
            generation: model.generation,
        });
    }
}

fn deal(model: &mut Model, fx: &mut Vec<Effect>) {
    let action = match model.state.phase() {
        Phase::GameOver => Action::NextGame,
        _ => Action::NextHand,
    };
    if model.state.check(action).is_ok() {
        model.mode = Mode::Normal;
        apply(model, HUMAN, action, fx);
    } else {
        model.mode = Mode::Normal;
        model.sync_mode();
    }
}

fn quit(model: &mut Model) {
    model.mode = Mode::Quitting;
    model.quit = true;
}

fn begin_save(model: &mut Model, then: AfterSave) {
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

fn request_save(model: &mut Model, path: PathBuf, then: AfterSave, fx: &mut Vec<Effect>) {
    model.mode = Mode::Saving { then };
    fx.push(Effect::Save {
        path,
        file: Box::new(model.save_file()),
    });
}

fn on_saved(model: &mut Model, result: Result<PathBuf, String>, fx: &mut Vec<Effect>) {
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
fn save_failed(model: &mut Model, then: AfterSave, fx: &mut Vec<Effect>) {
    model.mode = Mode::Normal;
    if then == AfterSave::QuitElseDeal && model.hand_over() {
        deal(model, fx);
    } else {
        model.sync_mode();
    }
}

/// Takes back the player's last move of this hand and the computer's replies.
fn undo(model: &mut Model, fx: &mut Vec<Effect>) {
    match undo_point(&model.record) {
        Ok(cut) => {
            let mut record = model.record.clone();
            record.actions.truncate(cut);
            // The state and the log of the shortened game, in one replay.
            match MoveLog::replay(&record) {
                Ok((state, log)) => {
                    model.state = state;
                    model.record = record;
                    model.log = log;
                    model.selected = None;
                    model.mode = Mode::Normal;
                    after_change(model, fx);
                    model.notice("Took back your last move (and the computer's replies).");
                }
                Err(e) => {
                    model.error(format!("Cannot undo: {e}"));
                    fx.push(Effect::Bell);
                }
            }
        }
        Err(why) => {
            model.error(why.to_string());
            fx.push(Effect::Bell);
        }
    }
}

/// Why there is nothing to undo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoUndo {
    /// The player has made no move in this hand.
    #[error("Nothing to undo in this hand")]
    NothingThisHand,
    /// The player's moves of this hand all came before the extension
    /// question was answered.
    #[error("The answer to the extension question is final: nothing to undo since")]
    ExtensionAnswered,
}

/// Where to cut the record to take back the player's last move against
/// the computer (Mile Bones' undo): the last play, discard or coup fourré
/// decision of the current hand, with everything after it (the computer's
/// replies); the draw before it stays, since it is the same card again.
///
/// Undo never reaches back past the start of the hand or past an answer
/// to the extension question (whoever gave it): moves follow that answer
/// and the player sees them, so taking it back would let them answer again
/// knowing what comes.
pub fn undo_point(record: &GameRecord) -> Result<usize, NoUndo> {
    let mut floor = 0;
    let mut extension_floor = false;
    let mut last = None;
    record
        .replay_with(|step| match step.action {
            Action::NextHand | Action::NextGame => {
                floor = step.index + 1;
                extension_floor = false;
            }
            Action::Extend(_) => {
                floor = step.index + 1;
                extension_floor = true;
            }
            Action::Draw => {}
            _ if step.actor == ToAct::Seat(HUMAN) => last = Some(step.index),
            _ => {}
        })
        .map_err(|_| NoUndo::NothingThisHand)?;
    match last {
        Some(i) if i >= floor => Ok(i),
        _ if extension_floor => Err(NoUndo::ExtensionAnswered),
        _ => Err(NoUndo::NothingThisHand),
    }
}

// ----- mouse -----

fn on_mouse(model: &mut Model, m: MouseEvent, ms: u64, fx: &mut Vec<Effect>) {
    let hits = Hits::compute(model, model.screen.0, model.screen.1);
    let hit = hits.at(m.column, m.row);
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) => {
            model.press = Some((m.column, m.row));
            // A click is a new command, like a key.
            model.clear_message();
            if !matches!(model.mode, Mode::Normal) {
                return;
            }
            match hit {
                Some(Hit::Slot(s)) => {
                    if model.slots()[s].is_none() {
                        return;
                    }
                    let double = model
                        .last_click
                        .is_some_and(|(ls, t)| ls == s && ms.saturating_sub(t) <= DOUBLE_CLICK_MS);
                    if double {
                        model.last_click = None;
                        model.selected = None;
                        smart_play(model, s, fx);
                    } else {
                        model.last_click = Some((s, ms));
                        model.selected = Some(s);
                    }
                }
                Some(Hit::Deck) => {
                    model.selected = None;
                    pick(model, fx);
                }
                Some(dest) => {
                    if model.mouse() == mille_store::MouseMethod::ClickClick
                        && let Some(s) = model.selected
                    {
                        drop_on(model, s, dest, fx);
                    }
                }
                None => model.selected = None,
            }
        }
        MouseEventKind::Up(MouseButton::Left) => {
            let pressed = model.press.take();
            if model.mouse() != mille_store::MouseMethod::DragAndDrop
                || !matches!(model.mode, Mode::Normal)
            {
                return;
            }
            let Some(s) = model.selected else { return };
            let from = pressed.and_then(|(x, y)| hits.at(x, y));
            if from != Some(Hit::Slot(s)) {
                return;
            }
            match hit {
                Some(Hit::Slot(_)) | None | Some(Hit::Deck) => {}
                Some(dest) => drop_on(model, s, dest, fx),
            }
        }
        _ => {}
    }
}

/// The card in slot `s` dropped on `dest`.
fn drop_on(model: &mut Model, s: usize, dest: Hit, fx: &mut Vec<Effect>) {
    let Some(card) = model.slots()[s] else { return };
    model.selected = None;
    match dest {
        Hit::Discard => discard(model, card, fx),
        Hit::Team(t) => use_card(model, card, Some(t), fx),
        Hit::Slot(_) | Hit::Deck => {}
    }
}

/// Double click: play the card if any play is legal, else discard it.
fn smart_play(model: &mut Model, s: usize, fx: &mut Vec<Effect>) {
    let Some(card) = model.slots()[s] else { return };
    let mut list = ActionList::default();
    model.state.legal_actions(&mut list);
    let play = list
        .iter()
        .copied()
        .find(|a| matches!(a, Action::Play { card: c, .. } | Action::CoupFourre(c) if *c == card));
    match play {
        Some(a) => {
            human_action(model, a, fx);
        }
        None => discard(model, card, fx),
    }
}
