//! Moves: the player's card commands turned into engine actions and applied
//! (the engine's refusals shown), the computer's moves, the next deal,
//! undo, and what follows every change of the game.

use super::Effect;
use crate::model::{HUMAN, Mode, Model, MoveLog};
use mille_engine::{Action, ActionList, Card, GameRecord, IllegalAction, Kind, Phase, ToAct};

/// The P command: let a coup fourré chance pass, then pick a card.
pub(super) fn pick(model: &mut Model, fx: &mut Vec<Effect>) {
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

/// Discards `card`, asking first when it is a safety the rules let the
/// player throw away (`classic`, `milebones`: decision 9). Under `bsd` the
/// engine refuses the discard itself and says why.
pub(super) fn discard(model: &mut Model, card: Card, fx: &mut Vec<Effect>) {
    if card.kind() == Kind::Safety && model.state.check_as(HUMAN, Action::Discard(card)).is_ok() {
        model.selected = None;
        model.mode = Mode::ConfirmDiscard { card };
        return;
    }
    human_action(model, Action::Discard(card), fx);
}

/// Plays `card`: on `target` if given (mouse), else where it belongs.
pub(super) fn use_card(model: &mut Model, card: Card, target: Option<u8>, fx: &mut Vec<Effect>) {
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

pub(super) fn computer_move(model: &mut Model, action: Action, fx: &mut Vec<Effect>) {
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

pub(super) fn deal(model: &mut Model, fx: &mut Vec<Effect>) {
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

/// Takes back the player's last move of this hand and the computer's replies.
pub(super) fn undo(model: &mut Model, fx: &mut Vec<Effect>) {
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
