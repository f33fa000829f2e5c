//! The bot side: read requests, answer each with one line, and keep what
//! the bot needs to remember a hand between them: the protocol sends only
//! views, so the moves made between two of the bot's decisions are
//! rebuilt from its two views ([`mille_engine::history`]) and shown to
//! the bot as the table would have shown them.

use crate::{Answer, BadRequest, DecideKind, Id, PROTOCOL, Request, parse_request};
use mille_ai::MilleBot;
use mille_engine::history::{HistoryError, moves_between};
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
    let mut memory = Memory::default();
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(());
        }
        let line = match std::str::from_utf8(&buf) {
            Ok(s) => answer_line(s.trim(), bot, &mut memory),
            Err(_) => Answer::Error("the line is not valid UTF-8".into()).to_line(None),
        };
        writer.write_all(line.as_bytes())?;
        writer.write_all(b"\n")?;
        writer.flush()?;
    }
}

/// The answer line to one request line.
fn answer_line(line: &str, bot: &mut MilleBot, memory: &mut Memory) -> String {
    match parse_request(line) {
        Err(BadRequest { id, message }) => Answer::Error(message).to_line(id),
        Ok((id, request)) => {
            // A bot bug must not take the process down: the protocol promises
            // an answer to every line.
            let answer = catch_unwind(AssertUnwindSafe(|| answer(id, request, bot, memory)))
                .unwrap_or_else(|_| Answer::Error("internal error while deciding".into()));
            answer.to_line(Some(id))
        }
    }
}

fn answer(_id: Id, request: Request, bot: &mut MilleBot, memory: &mut Memory) -> Answer {
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
        Request::Decide { kind, view } => decide(kind, &view, bot, memory),
    }
}

/// The bot's last decision: its view, what it was asked and its answer,
/// the starting point of the moves it will be shown before the next.
#[derive(Default)]
struct Memory {
    last: Option<(View, Decision, Action)>,
}

impl Memory {
    /// Shows `bot` what happened since its last decision, as far as the
    /// views tell: every move in order when they are of one hand, a new
    /// hand (which clears its memory of the last) when they are not.
    fn catch_up(&mut self, bot: &mut MilleBot, view: &View, decision: Decision) {
        let Some((first, asked, answer)) = self.last.take() else {
            return;
        };
        match moves_between(&first, asked, answer, view, decision) {
            Ok(moves) => {
                for m in moves {
                    let before = Observation::from_view(m.before, Decision::Turn, Vec::new());
                    bot.watch(&before, Some(usize::from(m.actor)), m.action);
                }
            }
            Err(HistoryError::OtherHand) => {
                let before = Observation::from_view(first, asked, Vec::new());
                bot.watch(&before, None, Action::NextHand);
            }
            // Views that no legal moves join (not from one game): the bot
            // keeps what it knew, and its next view corrects the rest.
            Err(HistoryError::Unexplained) => {}
        }
    }
}

fn decide(kind: DecideKind, view: &View, bot: &mut MilleBot, memory: &mut Memory) -> Answer {
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
    if bot.watches() {
        memory.catch_up(bot, view, decision);
    }
    let observation = Observation::from_view(view.clone(), decision, legal);
    let action = match bot.decide(&observation) {
        Ok(a) => a,
        Err(e) => return Answer::Error(format!("{} failed: {e}", bot.name())),
    };
    memory.last = Some((view.clone(), decision, action));
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

    /// A bot that plays its first legal action and writes down every
    /// move it is shown.
    #[derive(Default)]
    struct Recorder {
        shown: Vec<(Option<usize>, Action, View)>,
    }

    impl game_table::Bot<mille_engine::Mille> for Recorder {
        fn name(&self) -> &str {
            "recorder"
        }
        fn decide(&mut self, o: &Observation) -> Result<Action, game_table::BotError> {
            Ok(o.legal.first().copied().unwrap_or(Action::Draw))
        }
        fn watches(&self) -> bool {
            true
        }
        fn watch(&mut self, before: &Observation, actor: Option<usize>, action: Action) {
            self.shown.push((actor, action, before.view.clone()));
        }
    }

    /// Over whole two-seat games, seat 0 served through the protocol and
    /// seat 1 playing at random: before each decision the bot is shown
    /// every move it would have watched at the table since its last one,
    /// each with the view it would have had, in order; and at a new hand
    /// it is told so (which is what clears a bot's memory of the last
    /// hand) instead of being shown moves.
    #[test]
    fn the_bot_remembers_the_hand_between_decisions_and_forgets_it_after() {
        for (rules, seed) in [
            (mille_engine::RulesetId::Bsd, 1),
            (mille_engine::RulesetId::Bsd, 2),
            (mille_engine::RulesetId::Classic, 3),
            (mille_engine::RulesetId::Milebones, 4),
        ] {
            let config = GameConfig {
                rules,
                players: 2,
                stacking: false,
            };
            let mut state = State::new(config, seed).expect("state");
            let me = seat(&state, 0);
            let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let mut bot = Recorder::default();
            let mut memory = Memory::default();
            // What the table would have shown seat 0 since its last decision.
            let mut table: Vec<(Option<usize>, Action, View)> = Vec::new();
            let (mut stretches, mut hands) = (0, 0);
            let mut new_hand = false;
            for _ in 0..20_000 {
                let phase = state.phase();
                let kind = match phase {
                    mille_engine::Phase::Turn {
                        seat: s,
                        drawn: true,
                    } if s == me => Some(DecideKind::Turn),
                    mille_engine::Phase::CoupFourre {
                        seat: s, hazard, ..
                    } if s == me => Some(DecideKind::CoupFourre(hazard)),
                    mille_engine::Phase::Extension { seat: s } if s == me => {
                        Some(DecideKind::Extension)
                    }
                    _ => None,
                };
                if let Some(kind) = kind {
                    let view = state.view(me);
                    let shown_before = bot.shown.len();
                    let answer = decide(kind, &view, &mut bot, &mut memory);
                    let shown = bot.shown[shown_before..].to_vec();
                    if new_hand {
                        // Told of the new hand, shown nothing of the last.
                        assert_eq!(shown.len(), 1, "{shown:?}");
                        assert_eq!((shown[0].0, shown[0].1), (None, Action::NextHand));
                        hands += 1;
                    } else if shown_before > 0 || !shown.is_empty() {
                        assert_eq!(shown, table, "seed {seed}");
                        stretches += 1;
                    }
                    new_hand = false;
                    let action = match (answer, phase) {
                        (Answer::Turn(a), _) => a,
                        (
                            Answer::CoupFourre(true),
                            mille_engine::Phase::CoupFourre { hazard, .. },
                        ) => Action::CoupFourre(hazard.safety().expect("a hazard").card()),
                        (Answer::CoupFourre(_), _) => Action::DeclineCoupFourre,
                        (Answer::Extend(b), _) => Action::Extend(b),
                        (other, _) => panic!("unexpected answer {other:?}"),
                    };
                    table = vec![(Some(0), action, state.view(me))];
                    state.apply(action).expect("the bot's answer is legal");
                    continue;
                }
                match state.to_act() {
                    mille_engine::ToAct::Seat(actor) => {
                        let before = state.view(me);
                        let mut legal = mille_engine::ActionList::default();
                        state.legal_actions(&mut legal);
                        // xorshift: any legal move will do.
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        let action = legal.as_slice()[(rng % legal.len() as u64) as usize];
                        state.apply(action).expect("a legal move");
                        if mille_engine::seen_by(0, actor.number(), action) {
                            table.push((Some(actor.index()), action, before));
                        }
                    }
                    mille_engine::ToAct::Deal => {
                        state.apply(Action::NextHand).expect("deal");
                        new_hand = true;
                    }
                    mille_engine::ToAct::GameOver => break,
                }
            }
            assert!(
                stretches > 50 && hands > 0,
                "{stretches} stretches, {hands} hands"
            );
        }
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
