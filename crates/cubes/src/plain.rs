//! `--plain`: the game as lines of text on standard input and output, for
//! scripts, screen readers and dumb terminals. Commands: `r` (roll, or keep
//! the picked dice and roll the rest), `k 1 3` (keep dice 1 and 3 and roll
//! the rest), `a` (pick all scoring dice), `h` (hold), `?` (help), `q`
//! (quit, asks first).

use crate::app::{App, Effect, Input, Mode, Tone, points};
use cubes_engine::{DiceMask, DieState};
use std::io::{BufRead, Write};

fn dice_line(app: &App) -> String {
    let t = app.state.turn();
    (0..5)
        .map(|i| match t.states[i] {
            DieState::Idle => format!("{}:-", i + 1),
            DieState::Held => format!("{}:({})", i + 1, t.dice[i].symbol()),
            DieState::Rolled => format!("{}:{}", i + 1, t.dice[i].symbol()),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Plays on lines; returns whether the game was left unfinished.
pub fn run(app: &mut App, input: impl BufRead, mut out: impl Write) -> anyhow::Result<bool> {
    let mut shown = 0;
    let mut lines = input.lines();
    loop {
        let new = (app.logged - shown).min(app.log.len());
        for l in &app.log[app.log.len() - new..] {
            writeln!(out, "{l}")?;
        }
        shown = app.logged;
        if app.mode == Mode::Over {
            let scores: Vec<String> = app
                .seats
                .iter()
                .zip(app.state.players())
                .map(|(s, p)| format!("{} {}", s.name, points(p.score)))
                .collect();
            writeln!(out, "Final scores: {}.", scores.join(", "))?;
            return Ok(false);
        }
        if !app.human_to_act() {
            let effect = app.update(Input::Tick);
            if let Effect::Quit { unfinished } = effect {
                return Ok(unfinished);
            }
            continue;
        }
        if app.message.1 == Tone::Error {
            writeln!(out, "! {}", app.message.0)?;
        }
        let seat = app.state.current();
        let scores: Vec<String> = app
            .seats
            .iter()
            .zip(app.state.players())
            .map(|(s, p)| format!("{} {}", s.name, points(p.score)))
            .collect();
        writeln!(
            out,
            "[{}] dice {}  turn {}",
            scores.join(" | "),
            dice_line(app),
            points(app.state.turn().points)
        )?;
        write!(out, "{}> ", app.seats[seat].name)?;
        out.flush()?;
        let Some(line) = lines.next() else {
            writeln!(out)?;
            return Ok(true);
        };
        let line = line?;
        let mut words = line.split_whitespace();
        let cmd = words.next().unwrap_or("");
        match cmd {
            "q" | "quit" => {
                write!(
                    out,
                    "Really leave this unfinished game? It is recorded as a loss. (y/n) "
                )?;
                out.flush()?;
                let yes = lines
                    .next()
                    .transpose()?
                    .is_some_and(|l| l.trim().starts_with('y'));
                if yes {
                    return Ok(true);
                }
            }
            "?" | "help" => writeln!(out, "{}", crate::ui::HELP)?,
            "k" | "keep" => {
                let mut mask = DiceMask::EMPTY;
                let mut bad = None;
                for w in words {
                    match w.parse::<usize>() {
                        Ok(n @ 1..=5) => mask = mask.toggled(n - 1),
                        _ => bad = Some(w.to_string()),
                    }
                }
                match bad {
                    Some(w) => writeln!(
                        out,
                        "! {w:?} is not a die number: use 1 to 5, as in `k 1 3`."
                    )?,
                    None => {
                        app.selected = mask;
                        app.update(Input::Key('r'));
                    }
                }
            }
            "" => {}
            other => {
                let c = match other {
                    "roll" => 'r',
                    "hold" | "bank" => 'h',
                    "all" => 'a',
                    o if o.chars().count() == 1 => o.chars().next().unwrap_or(' '),
                    _ => '\u{0}',
                };
                app.update(Input::Key(c));
                if c == 'a' {
                    writeln!(out, "{}", app.message.0)?;
                }
            }
        }
    }
}
