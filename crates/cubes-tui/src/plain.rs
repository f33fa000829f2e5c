//! `--plain`: the game as lines of text on standard input and output, for
//! scripts, screen readers and dumb terminals. Commands: `r` (roll, or keep
//! the picked dice and roll the rest), `k 1 3` (keep dice 1 and 3 and roll
//! the rest), `a` (pick all scoring dice), `1`-`5` (pick or unpick a die),
//! `h` (hold), `?` (help), `q` (quit, asks first).
//!
//! After every command it prints what happened (the game's log), the
//! message the command earned, if any, and a status line that says
//! everything the full screen shows: scores, dice, turn total, what the
//! roll scores, what is picked and whether holding is allowed.

use crate::TuiError;
use crate::app::{App, Controls, Effect, Input, Mode, Tone, points};
use crate::signals::Stop;
use cubes_engine::{DiceMask, DieState, Phase};
use std::io::{BufRead, Write};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// One typed line, understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// An empty line: nothing to do.
    Nothing,
    /// `r`: roll, or keep the picked dice and roll the others.
    Roll,
    /// `k 1 3`: keep these dice (positions `0..5`) and roll the others.
    Keep(DiceMask),
    /// `k` with something that is not a die number (or no number at all).
    BadKeep(String),
    /// `a`: pick all scoring dice.
    All,
    /// `1`-`5`: pick or unpick a die (position `0..5`).
    Pick(usize),
    /// `h`: hold.
    Hold,
    /// `?`: the commands.
    Help,
    /// `q`: quit (asks first).
    Quit,
    /// Anything else, as typed (shortened and made printable).
    Unknown(String),
}

/// A word as the player typed it, safe to print back: control and
/// invisible characters escaped, at most 20 characters as printed (escapes
/// included: a line of control characters must not make a long message).
fn echo(word: &str) -> String {
    const MAX: usize = 20;
    let mut out = String::new();
    for c in word.chars() {
        let e: String = c.escape_debug().collect();
        if out.chars().count() + e.chars().count() > MAX {
            out.push_str("...");
            break;
        }
        out.push_str(&e);
    }
    out
}

/// Understands one line.
pub fn parse(line: &str) -> Command {
    let mut words = line.split_whitespace();
    let Some(cmd) = words.next() else {
        return Command::Nothing;
    };
    match cmd.to_ascii_lowercase().as_str() {
        "r" | "roll" => Command::Roll,
        "a" | "all" => Command::All,
        "h" | "hold" | "b" | "bank" => Command::Hold,
        "?" | "help" => Command::Help,
        "q" | "quit" => Command::Quit,
        "1" | "2" | "3" | "4" | "5" => {
            let n = cmd.bytes().next().map_or(0, |b| usize::from(b - b'1'));
            Command::Pick(n)
        }
        "k" | "keep" => {
            let mut positions = Vec::new();
            for w in words {
                match w.parse::<usize>() {
                    Ok(n @ 1..=5) => positions.push(n - 1),
                    _ => {
                        return Command::BadKeep(format!(
                            "\"{}\" is not a die number: use 1 to 5, as in `k 1 3`.",
                            echo(w)
                        ));
                    }
                }
            }
            if positions.is_empty() {
                return Command::BadKeep(
                    "Say which dice to keep, as in `k 1 3` (keeps dice 1 and 3).".into(),
                );
            }
            Command::Keep(DiceMask::of(&positions))
        }
        _ => Command::Unknown(echo(cmd)),
    }
}

fn dice_line(app: &App) -> String {
    let t = &app.obs.view.turn;
    (0..5)
        .map(|i| match t.states[i] {
            DieState::Idle => format!("{}:-", i + 1),
            DieState::Held => format!("{}:({})", i + 1, t.dice[i].symbol()),
            DieState::Rolled => format!("{}:{}", i + 1, t.dice[i].symbol()),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every player's "name score", in seat order: for the status line and the
/// final scores.
fn score_list(app: &App) -> Vec<String> {
    app.obs
        .seat_info
        .iter()
        .zip(&app.obs.view.players)
        .map(|(s, p)| format!("{} {}", s.name, points(p.score)))
        .collect()
}

/// The status line before each prompt: what the full screen would show,
/// in one line a screen reader reads out.
pub fn status_line(app: &App) -> String {
    let turn = &app.obs.view.turn;
    let mut line = format!(
        "[{}] dice {}  turn {}",
        score_list(app).join(" | "),
        dice_line(app),
        points(turn.points)
    );
    if app.obs.view.phase == Phase::Rolled {
        if let Some(k) = turn.best_keep() {
            line.push_str(&format!(". This roll: {}", k.combos));
        }
        if !app.selected.is_empty() {
            let dice: Vec<String> = app
                .selected
                .positions()
                .map(|i| (i + 1).to_string())
                .collect();
            match turn.score_keep(app.selected) {
                Some(k) => line.push_str(&format!(". Picked {}: {}", dice.join(" "), k.combos)),
                None => line.push_str(&format!(
                    ". Picked {}: these do not all score",
                    dice.join(" ")
                )),
            }
        }
        if let Some(h) = app.hold_line() {
            line.push_str(&format!(". {h}"));
        }
        line.push('.');
    }
    line
}

/// The next typed line, or `None` at the end of the input. Bytes that are
/// not UTF-8 become replacement characters rather than end the game.
fn next_line(input: &mut impl BufRead) -> std::io::Result<Option<String>> {
    let mut buf = Vec::new();
    if input.read_until(b'\n', &mut buf)? == 0 {
        return Ok(None);
    }
    Ok(Some(String::from_utf8_lossy(&buf).trim_end().to_string()))
}

/// What waiting for the player's next line brought.
enum Got {
    Line(String),
    End,
    Signal,
}

/// Reads the input on its own thread, line by line. A read blocked on the
/// terminal is not interrupted by a signal (the read is restarted), so the
/// game waits on this channel instead and looks at the signal flag between
/// waits.
fn reader(mut input: impl BufRead + Send + 'static) -> Receiver<std::io::Result<Option<String>>> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        loop {
            let got = next_line(&mut input);
            let more = matches!(got, Ok(Some(_)));
            if tx.send(got).is_err() || !more {
                break;
            }
        }
    });
    rx
}

fn wait_line(
    lines: &Receiver<std::io::Result<Option<String>>>,
    stop: &Stop,
) -> std::io::Result<Got> {
    loop {
        if stop.signal().is_some() {
            return Ok(Got::Signal);
        }
        match lines.recv_timeout(Duration::from_millis(100)) {
            Ok(Ok(Some(l))) => return Ok(Got::Line(l)),
            Ok(Ok(None)) | Err(RecvTimeoutError::Disconnected) => return Ok(Got::End),
            Ok(Err(e)) => return Err(e),
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Plays on lines until the game ends, the player leaves, the input ends or
/// a signal arrives; returns whether the game was left unfinished.
pub fn run(
    app: &mut App,
    input: impl BufRead + Send + 'static,
    mut out: impl Write,
    stop: &Stop,
) -> Result<bool, TuiError> {
    let lines = reader(input);
    let mut shown = 0;
    loop {
        if stop.signal().is_some() {
            return Ok(true);
        }
        let new = (app.logged - shown).min(app.log.len());
        for l in &app.log[app.log.len() - new..] {
            writeln!(out, "{l}")?;
        }
        shown = app.logged;
        if app.mode == Mode::Over {
            writeln!(out, "Final scores: {}.", score_list(app).join(", "))?;
            return Ok(false);
        }
        if app.mode == Mode::ConfirmQuit {
            write!(
                out,
                "Really leave this unfinished game? It is recorded as a loss. (y/n) "
            )?;
            out.flush()?;
            let answer = match wait_line(&lines, stop)? {
                Got::Line(l) => l,
                // No answer can come: leave, as the question offered.
                Got::End | Got::Signal => return Ok(true),
            };
            // The answer goes to the app as a key, so the full screen and
            // --plain share one decision (y leaves, anything else goes on)
            // and one reply.
            let before = app.message_serial;
            let key = match answer.trim().chars().next() {
                Some(c) => Input::Key(c),
                None => Input::Enter,
            };
            if let Effect::Quit { unfinished } = app.update(key) {
                return Ok(unfinished);
            }
            if app.message_serial != before {
                writeln!(out, "{}", app.message.0)?;
            }
            continue;
        }
        if app.computer_to_act() {
            // The table asks the computer player (App::update, as on the
            // full screen): one move per pass, so each is printed.
            if let Effect::Quit { unfinished } = app.update(Input::Tick) {
                return Ok(unfinished);
            }
            continue;
        }
        if app.stalled.is_some() {
            // A computer player broke the rules (the log above says how):
            // nobody can move any more.
            writeln!(out, "! The game cannot go on.")?;
            return Ok(true);
        }
        let seat = app.obs.view.current;
        writeln!(out, "{}", status_line(app))?;
        write!(out, "{}> ", app.name(seat))?;
        out.flush()?;
        let line = match wait_line(&lines, stop)? {
            Got::Line(l) => l,
            Got::End => {
                writeln!(out)?;
                return Ok(true);
            }
            Got::Signal => return Ok(true),
        };
        let before = app.message_serial;
        let command = parse(&line);
        match &command {
            Command::Nothing => {}
            Command::Quit => {
                // The app asks first (Mode::ConfirmQuit, answered above on
                // the next pass) when a person plays, as on the full screen.
                if let Effect::Quit { unfinished } = app.update(Input::Key('q')) {
                    return Ok(unfinished);
                }
            }
            Command::Help => writeln!(out, "{}", crate::ui::help(Controls::Lines))?,
            Command::BadKeep(m) => writeln!(out, "! {m}")?,
            Command::Unknown(w) => {
                writeln!(out, "! Unknown command '{w}': type ? for the commands.")?;
            }
            Command::Keep(mask) => {
                // Straight to the table: before the first roll the engine
                // says there is nothing to keep (it used to roll instead),
                // and a keep that does not score gets its sentence.
                app.update(Input::Keep(*mask));
            }
            Command::Roll => {
                app.update(Input::Key('r'));
            }
            Command::Hold => {
                app.update(Input::Key('h'));
            }
            Command::All => {
                app.update(Input::Key('a'));
            }
            Command::Pick(i) => {
                app.update(Input::Key(char::from(b'1' + *i as u8)));
            }
        }
        // Only a message this command earned: a refusal, or what a pick
        // keeps. (What actions did is in the log printed above.)
        if app.message_serial != before {
            match app.message.1 {
                Tone::Error => writeln!(out, "! {}", app.message.0)?,
                Tone::Info if matches!(command, Command::All | Command::Pick(_)) => {
                    writeln!(out, "{}", app.message.0)?;
                }
                Tone::Info => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::fixtures::{ann_alone, ann_vs_sam, bella_vs_sam};
    use cubes_engine::{JokerRule, Settings};

    fn play(settings: Settings, seed: u64, input: &str) -> String {
        let mut app = ann_vs_sam(settings, seed).with_controls(Controls::Lines);
        let mut out = Vec::new();
        let input = std::io::Cursor::new(input.as_bytes().to_vec());
        run(&mut app, input, &mut out, &Stop::never()).expect("runs");
        String::from_utf8(out).expect("utf-8")
    }

    /// Input that never comes, like a terminal nobody types at.
    struct Silent;

    impl std::io::Read for Silent {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
    }

    #[test]
    fn a_signal_ends_the_game_while_waiting_for_a_line() {
        let mut app = ann_alone(Settings::standard(), 22477);
        let stop = Stop::never();
        let raiser = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            raiser.raise(1);
        });
        let mut out = Vec::new();
        let input = std::io::BufReader::new(Silent);
        assert!(run(&mut app, input, &mut out, &stop).expect("runs"));
        assert_eq!(stop.signal(), Some(1));
    }

    #[test]
    fn a_finished_game_prints_the_final_scores() {
        let mut app = bella_vs_sam(Settings::blitz(), 5).with_controls(Controls::Lines);
        let mut out = Vec::new();
        let input = std::io::Cursor::new(Vec::new());
        assert!(!run(&mut app, input, &mut out, &Stop::never()).expect("runs"));
        let out = String::from_utf8(out).expect("utf-8");
        let [bella, sam] = [0, 1].map(|s| points(app.obs.view.players[s].score));
        assert!(
            out.ends_with(&format!(
                "Final scores: Bold Bella {bella}, Steady Sam {sam}.\n"
            )),
            "{out}"
        );
        assert!(app.obs.view.winner.is_some());
    }

    #[test]
    fn commands_are_understood() {
        assert_eq!(parse(""), Command::Nothing);
        assert_eq!(parse("  R "), Command::Roll);
        assert_eq!(parse("k 1 3"), Command::Keep(DiceMask::of(&[0, 2])));
        assert_eq!(parse("keep 3 3"), Command::Keep(DiceMask::of(&[2])));
        assert_eq!(parse("4"), Command::Pick(3));
        assert_eq!(parse("bank"), Command::Hold);
        assert!(matches!(parse("k"), Command::BadKeep(_)));
        assert!(matches!(parse("k 1 9"), Command::BadKeep(m) if m.contains("\"9\"")));
        assert_eq!(parse("foo bar"), Command::Unknown("foo".into()));
        assert_eq!(parse("6"), Command::Unknown("6".into()));
        // Control characters are echoed escaped, never raw.
        assert_eq!(parse("a\u{0}b"), Command::Unknown("a\\0b".into()));
        // ...and a line of them is cut like a long word.
        assert_eq!(
            parse(&"\u{1}".repeat(30)),
            Command::Unknown(format!("{}...", "\\u{1}".repeat(4)))
        );
        assert_eq!(
            parse(&"x".repeat(30)),
            Command::Unknown(format!("{}...", "x".repeat(20)))
        );
    }

    #[test]
    fn keeping_before_the_first_roll_says_there_is_nothing_to_keep_yet() {
        // `k 1` before the first roll used to roll the dice silently.
        let mut app = ann_alone(Settings::standard(), 22477).with_controls(Controls::Lines);
        let mut out = Vec::new();
        let input = std::io::Cursor::new(b"k 1\nq\ny\n".to_vec());
        run(&mut app, input, &mut out, &Stop::never()).expect("runs");
        let out = String::from_utf8(out).expect("utf-8");
        assert!(
            out.contains("! Roll the dice first: every turn starts by rolling all five dice, so there is nothing to keep or hold yet."),
            "{out}"
        );
        assert!(!out.contains("ann rolls"), "{out}");
        assert!(app.actions().is_empty());
    }

    #[test]
    fn a_keep_that_does_not_score_gets_the_engines_list_of_what_scores() {
        // Seed 17343 with Jokers dice rolls 3 5 4 2 J: 3 alone does not score.
        let settings = Settings::standard().with_jokers(JokerRule::Always);
        let out = play(settings, 17343, "r\nk 1\n1\nq\ny\n");
        let said = "3 is not a scoring keep: every die you keep must be a One, a Five, \
                    a Joker, or part of three or more of a kind, a small straight or a straight.";
        assert!(out.contains(&format!("! {said}")), "{out}");
        // Picking it says the same.
        assert_eq!(out.matches(said).count(), 2, "{out}");
    }

    #[test]
    fn unknown_words_say_so_without_a_nul_byte() {
        let out = play(Settings::standard(), 22477, "foo\nx\nq\ny\n");
        assert!(
            out.contains("! Unknown command 'foo': type ? for the commands."),
            "{out}"
        );
        assert!(
            out.contains("! Unknown command 'x': type ? for the commands."),
            "{out}"
        );
        assert!(!out.contains('\u{0}'), "{out:?}");
        assert!(!out.contains("does nothing here"), "{out}");
    }

    #[test]
    fn an_error_is_printed_once() {
        // `h` before rolling is refused; `?`, an empty line and `n` at the
        // quit question must not print the refusal again.
        let out = play(Settings::standard(), 22477, "h\n?\n\nq\nn\nq\ny\n");
        assert_eq!(out.matches("! Roll the dice first").count(), 1, "{out}");
        assert!(out.contains("Good: the game goes on."), "{out}");
    }

    #[test]
    fn help_and_refusals_name_the_plain_commands() {
        let out = play(Settings::standard(), 22477, "?\nr\nr\nq\ny\n");
        assert!(out.contains("k 1 3    keep dice 1 and 3"), "{out}");
        assert!(!out.contains("1-5 pick a die"), "{out}");
        assert!(!out.contains("r or Enter"), "{out}");
        assert!(
            out.contains("! First say which scoring dice to keep: k 1 3 keeps dice 1 and 3"),
            "{out}"
        );
        assert!(!out.contains("press 1-5"), "{out}");
    }

    #[test]
    fn the_status_line_says_what_the_roll_and_the_pick_score() {
        // Seed 17343 with Jokers dice rolls 3 5 4 2 J.
        let settings = Settings::standard().with_jokers(JokerRule::Always);
        let out = play(settings, 17343, "r\n5\nq\ny\n");
        assert!(
            out.contains(
                "dice 1:3 2:5 3:4 4:2 5:J  turn 0. This roll: small straight (400). \
                 Cannot hold yet: on board needs 500."
            ),
            "{out}"
        );
        assert!(out.contains("Keep Joker (0): r rolls 4 dice."), "{out}");
        assert!(
            out.contains(". Picked 5: Joker (0). Cannot hold yet"),
            "{out}"
        );
    }
}
