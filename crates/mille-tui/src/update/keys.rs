//! The keyboard: what a key does in each mode of the screen (commands,
//! card and side prompts, yes/no questions, the name and file name fields).

use super::Effect;
use super::play::{deal, discard, human_action, pick, undo, use_card};
use super::saving::{begin_save, quit, request_save, save_failed};
use crate::model::{AfterSave, Mode, Model, Verb, Window, extended_target, slot_label};
use mille_engine::Action;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::PathBuf;

fn ch(k: &KeyEvent) -> Option<char> {
    match k.code {
        KeyCode::Char(c) => Some(c),
        _ => None,
    }
}

pub(super) fn on_key(model: &mut Model, k: KeyEvent, fx: &mut Vec<Effect>) {
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
        // Raw mode makes Ctrl-C a key: it leaves at once, as the signal
        // does in plain mode, the game kept in the autosave. At the name
        // question the offered name is kept first, as the next start
        // would ask again otherwise.
        if matches!(model.mode, Mode::Name { .. }) {
            let name = model.default_name.clone();
            set_name(model, name, fx);
        }
        fx.push(Effect::Interrupted);
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
                        human_action(model, Action::Play { card, team: t }, fx);
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
                // A table server keeps its game: nothing to save here.
                if model.dirty && model.server.is_none() {
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
            None => {
                let what = if model.server.is_some() {
                    "leave the table"
                } else {
                    "quit the game"
                };
                answer_y_or_n(model, what, fx);
            }
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
            Some(true) => begin_save(model, then, fx),
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
            // At a table server n is no way out of a game in progress:
            // leaving is asked about first, as with Q (a computer plays
            // for whoever leaves, and the game may count as abandoned).
            Some(false) if model.leaving_a_game() => model.mode = Mode::ConfirmQuit,
            Some(false) if model.server.is_some() => quit(model),
            Some(false) => {
                model.mode = Mode::SaveOnExit {
                    then: AfterSave::QuitElseDeal,
                }
            }
            None => {
                if !window_or_redraw(model, &k, fx) && !question_command(model, &k, false, fx) {
                    if model.shared() && !model.watching() && !model.game_over() {
                        model.error(
                            "Press y when you are ready for the next hand; Q leaves the table.",
                        );
                        fx.push(Effect::Bell);
                        return;
                    }
                    let what = if model.game_over() {
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
                    let question =
                        format!("extend the trip to {} miles", extended_target(&model.rules));
                    answer_y_or_n(model, &question, fx);
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
        // A table server's game that is over has nothing left to lose.
        Some('q') if model.server.is_some() && model.game_over() => quit(model),
        Some('q') => model.mode = Mode::ConfirmQuit,
        Some('s') => begin_save(model, AfterSave::Resume, fx),
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
    if matches!(lower, 'p' | 'u' | 'd' | 'z' | 'o' | 's' | 'm') && model.watching() {
        model.notice("You are watching this table: q goes back to the lobby.");
        return;
    }
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
        's' => begin_save(model, AfterSave::Resume, fx),
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
