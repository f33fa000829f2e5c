//! The plain mode: the board as text lines and commands read line by line,
//! for screen readers and scripts. It drives the same model and the same
//! `update` as the full-screen game: each input line is typed as keys (a
//! line that answers a question ends with RETURN). Lines are read on a
//! thread of their own so that a signal is seen while the game waits.

use crate::app::{Interruption, Io};
use crate::commands;
use crate::host::Host;
use crate::model::{Mode, Model, slot_label};
use crate::render::{miles_text, score_rows, shows_bonuses};
use crate::signals::{HANGUP, INTERRUPT, Stop, Ttys};
use crate::update::{self, Effect, Event};
use mille_engine::{Kind, Rules};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// How often the game looks at the signal flag while waiting for a line.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

fn key(code: KeyCode) -> Event {
    Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn tableau_text(model: &Model, team: u8) -> String {
    let tableau = model.tableau(team);
    let t = &tableau;
    let battle = match t.battle.top() {
        None => "empty".to_string(),
        Some(c) if c.kind() == Kind::Hazard && !t.counts(c) => format!("{c} (cancelled)"),
        Some(c) => c.name().to_string(),
    };
    let speed = match t.speed.top() {
        None => "none".to_string(),
        Some(c) if c == mille_engine::Card::SpeedLimit && !t.limited() => {
            "Speed Limit (cancelled)".into()
        }
        Some(c) => c.name().to_string(),
    };
    let safeties: Vec<String> = t
        .safeties
        .cards()
        .map(|c| {
            if c.safety().is_some_and(|s| t.coups.has(s)) {
                format!("{c} (coup fourré)")
            } else {
                c.name().to_string()
            }
        })
        .collect();
    format!(
        "{}: mileage {}. Battle: {battle}. Speed: {speed}. Safeties: {}.",
        model.team_name(team),
        miles_text(t, model.target()),
        if safeties.is_empty() {
            "none".to_string()
        } else {
            safeties.join(", ")
        }
    )
}

/// The score window as text lines.
pub fn score_text(model: &Model) -> String {
    let mut s = format!("{:<16}", "Score");
    for t in 0..model.teams() {
        s.push_str(&format!("{:>7}", model.team_short(t)));
    }
    s.push('\n');
    for (label, values) in score_rows(model, shows_bonuses(model)) {
        s.push_str(&format!("{label:<16}"));
        for v in values {
            s.push_str(&format!("{v:>7}"));
        }
        s.push('\n');
    }
    s
}

/// The board as text lines.
pub fn board_text(model: &Model) -> String {
    let discard = model
        .obs
        .view
        .discards
        .last()
        .map_or("empty".to_string(), |c| c.name().to_string());
    let stacking = if model.rules.config.stacking {
        " with stacking"
    } else {
        ""
    };
    let mut s = format!(
        "--- Hand {}, {} rules{stacking}. Deck: {} cards. Discard pile: {discard}. ---\n",
        model.obs.hand_number + 1,
        model.rules.config.rules.id(),
        model.deck_len()
    );
    let own = model.own_team();
    for t in (0..model.teams()).filter(|&t| t != own).chain([own]) {
        s.push_str(&tableau_text(model, t));
        s.push('\n');
    }
    let slots: Vec<String> = model
        .slots()
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.map(|c| format!("{} {}", slot_label(i), c.name())))
        .collect();
    let hand = if slots.is_empty() {
        // The deck out and every card played: a visible word, not "Your
        // hand: ." that a screen reader skips.
        "(empty)".to_string()
    } else {
        slots.join(", ")
    };
    s.push_str(&format!("Your hand: {hand}.\n"));
    let totals: Vec<String> = (0..model.teams())
        .map(|t| {
            format!(
                "{} {} this hand, {} overall",
                model.team_name(t),
                model.hand_score(t).total(),
                model.overall(t)
            )
        })
        .collect();
    s.push_str(&format!("Score: {}.\n", totals.join("; ")));
    if model.hand_over() {
        s.push_str(&score_text(model));
    }
    s
}

/// The help of the plain mode: the goal, the commands as typed here (no
/// mouse, no ^L) and the rules in brief (see [`crate::commands`]), under
/// `rules`.
pub fn help_lines(rules: &Rules) -> Vec<String> {
    let mut lines = vec![commands::goal(rules), "One command per line:".to_string()];
    lines.extend(commands::plain_lines());
    lines.extend(commands::rules_in_brief(rules));
    lines
}

fn is_text_mode(m: &Mode) -> bool {
    matches!(
        m,
        Mode::PickCard { .. } | Mode::SaveName { .. } | Mode::Name { .. }
    )
}

/// Plays with text lines on `input` and `output` until the player quits,
/// the input ends, a signal arrives or the terminal closes; the computer
/// players move at once, through `host`. An unfinished game ended by a
/// signal or a closed terminal is kept in the autosave (see
/// [`Io::keep`]), and the interruption returned.
pub fn run<R: BufRead + Send + 'static, W: Write>(
    model: &mut Model,
    host: &mut Host,
    io_: &Io,
    input: R,
    out: W,
    stop: &Stop,
) -> io::Result<Option<Interruption>> {
    let ttys = Ttys::now();
    let result = play(model, host, io_, input, out, stop, ttys);
    let signal = match &result {
        Ok(signal) => *signal,
        // Writing to a closed terminal fails; the hangup is why it ended.
        Err(_) => stop.signal().or_else(|| ttys.closed().then_some(HANGUP)),
    };
    match (result, signal) {
        (_, Some(sig)) => Ok(Some(io_.interrupted(model, host.record(), sig))),
        (Err(e), None) => Err(e),
        (Ok(_), None) => Ok(None),
    }
}

/// Reads the input on its own thread, line by line. A read blocked on the
/// terminal is not interrupted by a signal (the read is restarted), so the
/// game waits on this channel instead and looks at the signal flag between
/// waits.
fn reader(input: impl BufRead + Send + 'static) -> Receiver<io::Result<String>> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in input.lines() {
            let failed = line.is_err();
            if tx.send(line).is_err() || failed {
                break;
            }
        }
    });
    rx
}

/// The game proper: `Ok(None)` when the player quit or the input ended,
/// `Ok(Some(signal))` when a signal or a closed terminal ended it.
fn play<R: BufRead + Send + 'static, W: Write>(
    model: &mut Model,
    host: &mut Host,
    io_: &Io,
    input: R,
    mut out: W,
    stop: &Stop,
    ttys: Ttys,
) -> io::Result<Option<i32>> {
    let mut pending: VecDeque<Effect> = update::start(model).into();
    let mut printed_gen = u64::MAX;
    let mut printed_log: Vec<String> = Vec::new();
    let lines = reader(input);
    loop {
        // Carry out effects, letting the computer play synchronously.
        while let Some(effect) = pending.pop_front() {
            if let Some(sig) = stop.signal() {
                return Ok(Some(sig));
            }
            match effect {
                Effect::Quit => {
                    flush_messages(model, &mut out, &mut printed_log)?;
                    if let Some(f) = model.farewell.take() {
                        writeln!(out, "{f}")?;
                    }
                    writeln!(out, "Goodbye.")?;
                    return Ok(None);
                }
                Effect::Interrupted => {
                    stop.end_as(INTERRUPT);
                    return Ok(Some(INTERRUPT));
                }
                Effect::Bell | Effect::Redraw => {
                    if effect == Effect::Redraw {
                        printed_gen = u64::MAX;
                    }
                }
                other => {
                    let computer = matches!(other, Effect::Think { .. });
                    if let Some(ev) = io_.carry_out(model, host, other) {
                        pending.extend(update::update(model, ev));
                        if computer {
                            flush_messages(model, &mut out, &mut printed_log)?;
                        }
                    }
                }
            }
        }
        flush_messages(model, &mut out, &mut printed_log)?;
        if model.mode == Mode::Help {
            for l in help_lines(&model.rules) {
                writeln!(out, "{l}")?;
            }
            model.mode = Mode::Normal;
            model.sync_mode();
        }
        if model.generation != printed_gen {
            write!(out, "{}", board_text(model))?;
            printed_gen = model.generation;
        }
        if let Some(m) = model.message.take() {
            let mark = if model.message_is_error { "! " } else { "" };
            writeln!(out, "{mark}{m}")?;
        }
        writeln!(out, "{}", model.prompt())?;
        out.flush()?;
        let line = loop {
            if let Some(sig) = stop.signal() {
                return Ok(Some(sig));
            }
            match lines.recv_timeout(SIGNAL_CHECK) {
                Ok(line) => break Some(line),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break None,
            }
        };
        let line = match line {
            Some(Ok(line)) => line,
            // The terminal closed under the game: a hangup, even when no
            // signal said so.
            _ if ttys.closed() => {
                stop.end_as(HANGUP);
                return Ok(Some(HANGUP));
            }
            Some(Err(e)) => return Err(e),
            None => {
                writeln!(out, "End of input: the game was not saved.")?;
                return Ok(None);
            }
        };
        let trimmed = line.trim();
        if trimmed.eq_ignore_ascii_case("w") && model.mode == Mode::Normal {
            write!(out, "{}", score_text(model))?;
        }
        if trimmed.eq_ignore_ascii_case("r") && model.mode == Mode::Normal {
            printed_gen = u64::MAX;
            continue;
        }
        let mut typed_into = false;
        for c in trimmed.chars() {
            let before = is_text_mode(&model.mode);
            if c == ' ' && !before {
                continue;
            }
            pending.extend(update::update(model, key(KeyCode::Char(c))));
            if before && is_text_mode(&model.mode) {
                typed_into = true;
            }
            if model.quit {
                break;
            }
        }
        if is_text_mode(&model.mode) && (typed_into || trimmed.is_empty()) {
            pending.extend(update::update(model, key(KeyCode::Enter)));
        }
    }
}

/// Prints the computer's moves not printed yet.
fn flush_messages<W: Write>(
    model: &Model,
    out: &mut W,
    printed: &mut Vec<String>,
) -> io::Result<()> {
    let log = &model.log.lines;
    let skip = if log.starts_with(printed) {
        printed.len()
    } else {
        0
    };
    for l in log.iter().skip(skip) {
        writeln!(out, "{l}.")?;
    }
    *printed = log.clone();
    Ok(())
}
