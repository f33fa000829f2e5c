//! The mouse: clicks and double clicks on the hand, the deck and the
//! tableaux, drag and drop or click-click play, and the smart play of a
//! double click.

use super::Effect;
use super::play::{discard, human_action, pick, use_card};
use crate::model::{Mode, Model};
use crate::render::{Hit, Hits};
use mille_engine::Action;
use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

/// Double clicks are two presses on the same card within this many ms.
pub const DOUBLE_CLICK_MS: u64 = 400;

pub(super) fn on_mouse(model: &mut Model, m: MouseEvent, ms: u64, fx: &mut Vec<Effect>) {
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
    let play =
        model.obs.legal.iter().copied().find(
            |a| matches!(a, Action::Play { card: c, .. } | Action::CoupFourre(c) if *c == card),
        );
    match play {
        Some(a) => {
            human_action(model, a, fx);
        }
        None => discard(model, card, fx),
    }
}
