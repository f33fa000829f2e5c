//! Moves: the player's card commands turned into engine actions, checked
//! against the player's observation (the engine's reason shown for a
//! refused one) and sent to the table; the table's answers (the player's
//! move, the computer's, a deal, an undo) taken in; and what follows every
//! change of the game.

use super::Effect;
use crate::host::NoUndo;
use crate::model::{Mode, Model};
use mille_engine::{Action, Card, IllegalAction, Kind, Observation, PhaseView};
use table_client::Link;

/// The P command: let a coup fourré chance pass, then pick a card (once
/// the table says it is the player's turn to).
pub(super) fn pick(model: &mut Model, fx: &mut Vec<Effect>) {
    if let PhaseView::CoupFourre { seat, .. } = model.obs.status
        && model.is_human(seat)
    {
        if human_action(model, Action::DeclineCoupFourre, fx) {
            model.draw_after_decline = true;
        }
        return;
    }
    human_action(model, Action::Draw, fx);
}

/// Discards `card`, asking first when it is a safety the rules let the
/// player throw away (`classic`, `milebones`: decision 9). Under `bsd` the
/// engine refuses the discard itself and says why.
pub(super) fn discard(model: &mut Model, card: Card, fx: &mut Vec<Effect>) {
    if card.kind() == Kind::Safety && model.obs.check(Action::Discard(card)).is_ok() {
        model.selected = None;
        model.mode = Mode::ConfirmDiscard { card };
        return;
    }
    human_action(model, Action::Discard(card), fx);
}

/// Plays `card`: on `target` if given (mouse), else where it belongs.
pub(super) fn use_card(model: &mut Model, card: Card, target: Option<u8>, fx: &mut Vec<Effect>) {
    let own = model.own_team();
    if let PhaseView::CoupFourre { seat, .. } = model.obs.status
        && model.is_human(seat)
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
                team: target.unwrap_or(own),
            },
            fx,
        );
        return;
    }
    if let Some(t) = target {
        human_action(model, Action::Play { card, team: t }, fx);
        return;
    }
    let opponents: Vec<u8> = (0..model.teams()).filter(|&t| t != own).collect();
    let open: Vec<u8> = opponents
        .iter()
        .copied()
        .filter(|&t| model.obs.check(Action::Play { card, team: t }).is_ok())
        .collect();
    match open.as_slice() {
        [only] => {
            human_action(model, Action::Play { card, team: *only }, fx);
        }
        [] => {
            // Nowhere to play it: let the engine say why (about the first
            // opponent).
            let t = opponents.first().copied().unwrap_or(own);
            human_action(model, Action::Play { card, team: t }, fx);
        }
        _ => model.mode = Mode::Target { card },
    }
}

/// Sends the player's action to the table if the observation says the
/// engine allows it; otherwise shows the engine's reason and rings the
/// bell. Returns whether it was sent.
pub fn human_action(model: &mut Model, action: Action, fx: &mut Vec<Effect>) -> bool {
    if model.server.as_ref().is_some_and(|s| s.awaiting) {
        // The table has not answered the last move: this one would be
        // checked against a game that is about to change.
        model.notice("Wait: your last move is on its way to the table.");
        return false;
    }
    match model.obs.check(action) {
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
    if let Some(s) = &mut model.server {
        s.awaiting = true;
    }
    fx.push(Effect::Act(action));
    true
}

/// The table's answer to the player's move or a deal.
pub(super) fn acted(
    model: &mut Model,
    action: Action,
    result: Result<Box<Observation>, String>,
    fx: &mut Vec<Effect>,
) {
    if let Some(s) = &mut model.server {
        s.awaiting = false;
    }
    let obs = match result {
        Ok(obs) => obs,
        Err(why) => {
            model.draw_after_decline = false;
            model.error(why);
            fx.push(Effect::Bell);
            model.sync_mode();
            return;
        }
    };
    take(model, *obs, false, fx);
    if action == Action::DeclineCoupFourre && std::mem::take(&mut model.draw_after_decline) {
        if let PhaseView::Turn { seat, drawn: false } = model.obs.status
            && model.is_human(seat)
        {
            human_action(model, Action::Draw, fx);
        }
        return;
    }
    match action {
        // The extra turn is only announced when it is there: a last card
        // can end the hand.
        _ if !model.human_to_act() => {}
        Action::CoupFourre(c) => model.notice(format!(
            "Coup fourré! Your {c} scores {} more points, and you take another turn.",
            model.rules.scoring.coup_fourre
        )),
        Action::Play { card, .. } if card.kind() == Kind::Safety => {
            model.notice(format!(
                "{card} is in play for the hand: you take another turn."
            ));
        }
        _ => {}
    }
}

/// Another player's move (a computer's, or at a table server anyone's),
/// or any other change of the table, as the table made it.
pub(super) fn computer_moved(model: &mut Model, obs: Observation, fx: &mut Vec<Effect>) {
    model.thinking = false;
    // The first observation after a reconnection is the table's answer to
    // rejoining it: its events are what the player missed, and the message
    // line says so (after the change, which may clear it).
    let rejoined = model
        .server
        .as_mut()
        .is_some_and(|s| std::mem::take(&mut s.rejoining));
    let missed = rejoined.then(|| model.missed(&obs.events));
    take(model, obs, false, fx);
    if let Some(missed) = missed {
        model.notice(missed);
    }
}

/// A computer player that erred, replaced by the classic level: said on
/// screen and kept for the log.
pub(super) fn computer_replaced(
    model: &mut Model,
    seat: u8,
    what: &str,
    log: String,
    obs: Observation,
    fx: &mut Vec<Effect>,
) {
    model.thinking = false;
    take(model, obs, true, fx);
    model.error(format!(
        "{} {what}; classic plays for it from now on.",
        model.seat_name(seat)
    ));
    fx.push(Effect::Bell);
    model.incidents.push(log);
}

/// Takes the table's new observation in, and the high-score table when
/// the game ended (at this terminal: a table server keeps its own).
fn take(model: &mut Model, obs: Observation, whole: bool, fx: &mut Vec<Effect>) {
    let ended = model.observe(obs, whole);
    if ended && model.server.is_none() {
        let rules = model.rules.config.rules.id().to_string();
        let sides = (0..model.teams())
            .map(|t| (model.team_score_name(t), model.overall(t)))
            .collect();
        fx.push(Effect::RecordScores { rules, sides });
    }
    after_change(model, fx);
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
    } else if let Some(s) = &mut model.server {
        // The next hand is dealt: a new one will need a new "ready".
        s.ready = false;
    }
    if model.computer_to_act().is_some() {
        model.thinking = true;
        fx.push(Effect::Think {
            generation: model.generation,
        });
    }
}

pub(super) fn deal(model: &mut Model, fx: &mut Vec<Effect>) {
    model.mode = Mode::Normal;
    if model.server.is_some() {
        // At a table server the server deals, once every player there is
        // ready; a game that is over stays over.
        if model.game_over() {
            model.notice(if model.watching() {
                "The game at this table is over: q goes back to the lobby."
            } else {
                "The game at this table is over: q leaves."
            });
        } else if model.watching() {
            model.notice("You are watching: the players deal the next hand.");
        } else if model.hand_over()
            && let Some(s) = &mut model.server
            && !s.ready
        {
            s.ready = true;
            fx.push(Effect::Deal(Action::NextHand));
        }
        model.sync_mode();
        return;
    }
    match model.obs.status {
        PhaseView::GameOver => fx.push(Effect::Deal(Action::NextGame)),
        PhaseView::HandOver => fx.push(Effect::Deal(Action::NextHand)),
        _ => model.sync_mode(),
    }
}

/// Asks the table to take back the player's last move of this hand and
/// the computer's replies.
pub(super) fn undo(_model: &mut Model, fx: &mut Vec<Effect>) {
    fx.push(Effect::Undo);
}

/// The table's answer to an undo.
pub(super) fn undone(
    model: &mut Model,
    result: Result<Box<Observation>, NoUndo>,
    fx: &mut Vec<Effect>,
) {
    match result {
        Ok(obs) => {
            model.selected = None;
            model.mode = Mode::Normal;
            take(model, *obs, true, fx);
            model.notice("Took back your last move (and the computer's replies).");
        }
        Err(why) => {
            model.error(why.to_string());
            fx.push(Effect::Bell);
        }
    }
}

/// The connection to the table server changed: the status line says so,
/// and a session that gave up says why.
pub(super) fn link(model: &mut Model, link: Link, fx: &mut Vec<Effect>) {
    let Some(s) = &mut model.server else { return };
    match link {
        Link::Connected => {
            let back = s.link != "connected";
            s.link = "connected".into();
            if back {
                // Back after a drop: the seat is taken back at once, and
                // the table's answer tells what was missed.
                s.rejoining = true;
                model.notice("Reconnected: taking your place at the table again...");
            }
        }
        Link::Reconnecting { attempt, .. } => {
            s.link = format!("reconnecting (attempt {attempt})...");
        }
        Link::Warning(w) => model.notice(w),
        Link::Failed(why) => {
            s.link = "disconnected".into();
            s.failed = true;
            // No answer will come to a move on its way.
            s.awaiting = false;
            model.error(format!("Cannot play on: {why}"));
            fx.push(Effect::Bell);
        }
    }
}
