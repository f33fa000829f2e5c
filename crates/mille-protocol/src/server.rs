//! The bot side: read requests, answer each with one line.

use crate::{Answer, BadRequest, DecideKind, Id, PROTOCOL, Request, parse_request};
use mille_ai::MilleBot;
use mille_engine::view::{Decision, legal_actions_in_view};
use mille_engine::{Action, Observation, View};
use std::io::{self, BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Serves the protocol with `bot` until end of input: one answer line per
/// input line, flushed at once. A malformed request gets an error line and
/// the loop goes on; only an I/O error on the streams ends it early.
pub fn serve<R: BufRead, W: Write>(
    mut reader: R,
    mut writer: W,
    bot: &mut MilleBot,
) -> io::Result<()> {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        let line = match std::str::from_utf8(&buf) {
            Ok(s) => answer_line(s.trim(), bot),
            Err(_) => Answer::Error("the line is not valid UTF-8".into()).to_line(None),
        };
        writer.write_all(line.as_bytes())?;
        writer.write_all(b"\n")?;
        writer.flush()?;
    }
}

/// The answer line to one request line.
fn answer_line(line: &str, bot: &mut MilleBot) -> String {
    match parse_request(line) {
        Err(BadRequest { id, message }) => Answer::Error(message).to_line(id),
        Ok((id, request)) => {
            // A bot bug must not take the process down: the protocol promises
            // an answer to every line.
            let answer = catch_unwind(AssertUnwindSafe(|| answer(id, request, bot)))
                .unwrap_or_else(|_| Answer::Error("internal error while deciding".into()));
            answer.to_line(Some(id))
        }
    }
}

fn answer(_id: Id, request: Request, bot: &mut MilleBot) -> Answer {
    match request {
        Request::Hello { protocol } => {
            if protocol == PROTOCOL {
                Answer::Hello {
                    name: format!("mille {}", bot.name()),
                }
            } else {
                Answer::Error(format!(
                    "protocol version {protocol} is not supported: this bot speaks version {PROTOCOL}"
                ))
            }
        }
        Request::Legal(view) => match legal_actions_in_view(&view) {
            Ok(actions) => Answer::Actions(actions),
            Err(e) => Answer::Error(e.to_string()),
        },
        Request::Decide { kind, view } => decide(kind, &view, bot),
    }
}

fn decide(kind: DecideKind, view: &View, bot: &mut MilleBot) -> Answer {
    // Checking the view through the engine first means bots only ever see
    // views that describe a game.
    let legal = match legal_actions_in_view(view) {
        Ok(l) => l,
        Err(e) => return Answer::Error(e.to_string()),
    };
    let decision = match kind {
        DecideKind::Turn => {
            if legal.is_empty() {
                return Answer::Error("no legal action: the seat holds no card".into());
            }
            Decision::Turn
        }
        DecideKind::CoupFourre(hazard) => {
            let held = hazard
                .safety()
                .is_some_and(|s| view.hand.contains(&s.card()));
            if !held {
                // Without the safety there is nothing to call.
                return Answer::CoupFourre(false);
            }
            Decision::CoupFourre {
                hazard,
                attacker: guess_attacker(view),
            }
        }
        DecideKind::Extension => Decision::Extension,
    };
    let legal = match decision {
        Decision::Turn => legal,
        Decision::CoupFourre { hazard, .. } => hazard
            .safety()
            .map(|s| vec![Action::CoupFourre(s.card()), Action::DeclineCoupFourre])
            .unwrap_or_default(),
        Decision::Extension => vec![Action::Extend(true), Action::Extend(false)],
    };
    let observation = Observation::from_view(view.clone(), decision, legal);
    let action = match bot.decide(&observation) {
        Ok(a) => a,
        Err(e) => return Answer::Error(format!("{} failed: {e}", bot.name())),
    };
    // A bot's illegal choice is an error the game sees, never replaced by
    // another move.
    if !observation.legal.contains(&action) {
        return Answer::Error(format!(
            "{} chose the illegal {action}: {}",
            bot.name(),
            observation.check(action).err().map_or_else(
                || "not among the legal actions".to_string(),
                |e| e.to_string()
            )
        ));
    }
    match (decision, action) {
        (Decision::Turn, a) => Answer::Turn(a),
        (Decision::CoupFourre { .. }, a) => Answer::CoupFourre(matches!(a, Action::CoupFourre(_))),
        (Decision::Extension, Action::Extend(b)) => Answer::Extend(b),
        (Decision::Extension, _) => Answer::Extend(false),
    }
}

/// The protocol does not say who played a hazard; the nearest opposing
/// seat before the victim is the one that just played in turn order.
pub fn guess_attacker(view: &View) -> u8 {
    let n = view.seats.len().max(1) as u8;
    let team_of = |s: u8| view.seats.get(s as usize).map_or(s, |sv| sv.team);
    let me = team_of(view.seat);
    (1..n)
        .map(|k| (view.seat + n - k) % n)
        .find(|&s| team_of(s) != me)
        .unwrap_or((view.seat + 1) % n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_ai::RandomBot;
    use mille_engine::{GameConfig, Seat, State};

    /// Seat `n` of `state`'s table.
    fn seat(state: &State, n: u8) -> Seat {
        state.rules().seat(n).expect("a seat of the table")
    }

    #[test]
    fn every_line_gets_one_answer_in_order() {
        let mut state = State::new(GameConfig::default(), 2).expect("state");
        state.apply(Action::Draw).expect("draw");
        let view = serde_json::to_string(&state.view(seat(&state, 0))).expect("json");
        let input = format!(
            "{{\"id\":0,\"hello\":{{\"protocol\":1}}}}\n\n{{\"id\":1,\"decide\":\"turn\",\"view\":{view}}}\n\u{0}\u{ff}\n{{\"id\":2,\"hello\":{{\"protocol\":2}}}}\n"
        );
        let mut out = Vec::new();
        let mut bot = RandomBot::new(1);
        serve(input.as_bytes(), &mut out, &mut bot).expect("serve");
        let text = String::from_utf8(out).expect("utf-8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert!(lines[0].starts_with(r#"{"id":0,"name":"mille random""#));
        assert!(lines[1].starts_with(r#"{"id":null,"error""#));
        assert!(lines[2].starts_with(r#"{"id":1,"#) && !lines[2].contains("error"));
        assert!(lines[3].starts_with(r#"{"id":null,"error""#));
        assert!(lines[4].starts_with(r#"{"id":2,"error""#));
    }

    #[test]
    fn attacker_is_an_opponent_before_the_victim() {
        let state = State::new(
            GameConfig {
                rules: mille_engine::RulesetId::Classic,
                players: 6,
                stacking: false,
            },
            1,
        )
        .expect("state");
        // Seat 3 plays for team 0; seat 2 (team 2) is just before it.
        assert_eq!(guess_attacker(&state.view(seat(&state, 3))), 2);
        assert_eq!(guess_attacker(&state.view(seat(&state, 0))), 5);
    }

    /// A bot that always asks for a card it does not hold.
    struct Cheat;

    impl game_table::Bot<mille_engine::Mille> for Cheat {
        fn name(&self) -> &str {
            "cheat"
        }
        fn decide(&mut self, _: &Observation) -> Result<Action, game_table::BotError> {
            Ok(Action::Discard(mille_engine::Card::RightOfWay))
        }
    }

    #[test]
    fn an_illegal_choice_is_an_error_never_another_move() {
        let mut state = State::new(GameConfig::default(), 2).expect("state");
        state.apply(Action::Draw).expect("draw");
        let view = serde_json::to_string(&state.view(seat(&state, 0))).expect("json");
        let input = format!("{{\"id\":7,\"decide\":\"turn\",\"view\":{view}}}\n");
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out, &mut Cheat).expect("serve");
        let text = String::from_utf8(out).expect("utf-8");
        assert!(
            text.starts_with(r#"{"id":7,"error":"cheat chose the illegal discard right_of_way"#),
            "{text}"
        );
    }
}
