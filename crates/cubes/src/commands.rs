//! The commands behind the command line: setting up and recording a game,
//! rank, stat and sim; the offer of a review at the end of a game.

use crate::{Cli, Jokers};
use anyhow::{Context, Result, bail};
use cubes_ai::sim::{BoxedBot, run_match};
use cubes_ai::{BOT_NAMES, by_name};
use cubes_engine::{Cubes, JokerRule, Settings};
use cubes_store::{GameResult, ScoreFile, rank_text, stat_text};
use cubes_tui::{App, Controls, Stop, Ttys};
use game_table::{Player, SeatInfo};
use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Longest name accepted.
const MAX_NAME: usize = 20;

fn check_name(n: &str) -> Result<String> {
    let n = n.trim();
    if n.is_empty() {
        bail!("a player name cannot be empty");
    }
    if n.chars().count() > MAX_NAME || n.chars().any(char::is_control) {
        bail!(
            "player name {n:?} is too long or has control characters (at most {MAX_NAME} characters)"
        );
    }
    if let Some(c) = computer_name_in(n) {
        bail!(
            "{n:?} is the name of a computer player ({c}); people need a name of their own, so the score file keeps their games apart"
        );
    }
    Ok(n.to_string())
}

/// The computer player whose name `n` is, ignoring case and spacing, also
/// as numbered for a second one at the table ("Steady Sam 2").
fn computer_name_in(n: &str) -> Option<String> {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let n = norm(n);
    cubes_ai::computer_names().into_iter().find(|c| {
        let c_norm = norm(c);
        n == c_norm
            || n.strip_prefix(&c_norm)
                .and_then(|rest| rest.strip_prefix(' '))
                .is_some_and(|num| !num.is_empty() && num.chars().all(|d| d.is_ascii_digit()))
    })
}

fn bot(name: &str) -> Result<BoxedBot> {
    by_name(name).with_context(|| {
        format!(
            "no computer player called {name:?}; choose from {}",
            BOT_NAMES.join(", ")
        )
    })
}

/// The name the player gave, else the login name.
fn player_name(cli: &Cli) -> String {
    cli.name.clone().unwrap_or_else(login)
}

fn login() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_else(|_| "player".into())
}

/// The login name, as a player's name (a table server's one-shot
/// questions are asked under it when this program has no name there yet).
pub fn login_name() -> Result<String> {
    check_name(&login())
}

/// A seat at the table: who sits there, and who plays it.
pub type Seat = (SeatInfo, Player<Cubes>);

/// The seats of a game from the command line.
pub fn seats(cli: &Cli) -> Result<Vec<Seat>> {
    let mut seats = Vec::new();
    if !cli.watch {
        let me = player_name(cli);
        for n in std::iter::once(&me).chain(&cli.humans) {
            seats.push((SeatInfo::human(check_name(n)?), Player::Person));
        }
    }
    let mut computers = cli.computers.clone();
    if computers.is_empty() && cli.humans.is_empty() {
        computers.push("steady".into());
        if cli.watch {
            computers.push("optimal".into());
        }
    }
    // A computer player keeps its own name; only a second one of the same
    // kind at the table is numbered ("Steady Sam 2"). People cannot take
    // these names (check_name), so nobody else changes them.
    let mut kinds: Vec<String> = Vec::new();
    for c in &computers {
        let b = bot(c)?;
        let base = b.name().to_string();
        let same = kinds.iter().filter(|k| **k == base).count();
        let name = if same > 0 {
            format!("{base} {}", same + 1)
        } else {
            base.clone()
        };
        kinds.push(base);
        seats.push((
            SeatInfo::computer(name, c.to_ascii_lowercase()),
            Player::Bot(b),
        ));
    }
    for (k, (s, _)) in seats.iter().enumerate() {
        if seats[..k].iter().any(|(o, _)| o.name == s.name) {
            bail!(
                "two players are called {:?}; give everybody a different name",
                s.name
            );
        }
    }
    if seats.len() > cubes_engine::MAX_PLAYERS {
        bail!("at most {} players can play", cubes_engine::MAX_PLAYERS);
    }
    Ok(seats)
}

/// The settings from the command line.
pub fn settings(cli: &Cli) -> Settings {
    let s = if cli.blitz {
        Settings::blitz()
    } else {
        Settings::standard()
    };
    s.with_jokers(match cli.jokers {
        Jokers::Never => JokerRule::Never,
        Jokers::Sometimes => JokerRule::OneGameInSix,
        Jokers::Always => JokerRule::Always,
    })
}

fn fresh_seed() -> u64 {
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    (t as u64) ^ (u64::from(std::process::id()) << 32)
}

/// Plays a game (full screen or plain) and records it. The exit code is
/// 128 + the signal's number when a signal ended the game (the shell's
/// convention), else success.
pub fn play(cli: &Cli) -> Result<ExitCode> {
    use std::io::IsTerminal;
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if let Some(address) = &cli.connect {
        if cli.plain {
            bail!("--connect plays full screen; --plain is for games at this terminal only");
        }
        if !terminal {
            bail!("the game at a table server needs a terminal");
        }
        let me = check_name(&player_name(cli))?;
        return crate::online::play(address, cli.ca.as_deref(), me, cli.blitz, cli.jokers);
    }
    if !cli.plain && !terminal {
        bail!("the full-screen game needs a terminal; use --plain to play on lines of text");
    }
    let seats = seats(cli)?;
    let seed = cli.seed.unwrap_or_else(fresh_seed);
    let controls = if cli.plain {
        Controls::Lines
    } else {
        Controls::Keys
    };
    let mut app = App::new(settings(cli), seats, seed)?.with_controls(controls);
    let scores = if cli.no_record {
        None
    } else {
        Some(ScoreFile::open_default().context(
            "the game cannot be recorded in the score file; `cubes --no-record` plays without recording",
        )?)
    };
    if let Some(f) = &scores {
        for s in local_table(&app)?
            .seats()
            .iter()
            .filter(|s| !matches!(s.kind, game_table::SeatKind::Computer { .. }))
        {
            f.start_playing(&s.name)?;
        }
    }
    // From here on a hangup, kill or Ctrl-C ends the game through the same
    // path as quitting, so it is recorded below.
    let stop = Stop::install().context("cannot catch signals")?;
    let ttys = Ttys::now();
    let outcome = if cli.plain {
        let input = std::io::BufReader::new(std::io::stdin());
        cubes_tui::plain::run(&mut app, input, std::io::stdout().lock(), &stop)
    } else {
        cubes_tui::term::run(&mut app, cli.delay, &stop)
    };
    if stop.signal().is_none() && ttys.closed() {
        // The terminal closed and no hangup reached us (a shell between
        // us was its session leader): the end of the input, or a failed
        // write, was the closing; leave as after a hangup.
        stop.end_as(cubes_tui::signals::HANGUP);
    }
    let table = local_table(&app)?;
    let mut scores = scores;
    // A game that could not be recorded is reported after its result, so
    // the player still learns how it ended.
    let mut unrecorded = None;
    if let Some(f) = &mut scores {
        let _ = f.stop_playing();
        let unfinished = table.state().winner().is_none();
        // A game left after at least one action counts (the man page's
        // "Don't quit!"); one left before anything happened does not.
        // A game a computer player broke (an illegal move) is nobody's
        // result.
        if app.stalled.is_none()
            && (!unfinished || !app.actions().is_empty())
            && let Err(e) = f.record(&GameResult::of(table.state(), table.seats()))
        {
            let path = f.path().display();
            unrecorded = Some(anyhow::Error::new(e).context(format!(
                "recording the game in {path} failed: this game is not in the rankings"
            )));
        }
    }
    if let Some(sig) = stop.signal() {
        if let Some(e) = unrecorded {
            return Err(e);
        }
        // Nothing to print: after a hangup there is no terminal, and
        // printing to it would panic.
        return Ok(ExitCode::from(
            128u8.saturating_add(sig.clamp(0, 127) as u8),
        ));
    }
    let unfinished = outcome?;
    if let Some(why) = &app.stalled {
        bail!("{why} The game was not recorded (seed {seed}).");
    }
    let winner = table.state().winner();
    if unfinished && winner.is_none() {
        println!("Game left unfinished (seed {seed}).");
    } else if let Some(w) = winner {
        println!(
            "{} won (seed {seed}). `cubes rank` shows the rankings.",
            app.name(w)
        );
    }
    // A person who finished a game on the full screen is offered its
    // review (a game of computers only is watched, not reviewed). Not
    // after --plain: its reader of standard input may still be waiting
    // for a line, and would take the answer.
    let people = table
        .seats()
        .iter()
        .any(|s| !matches!(s.kind, game_table::SeatKind::Computer { .. }));
    if terminal && !cli.plain && winner.is_some() && people {
        let s = table.state();
        let record = cubes_engine::GameRecord {
            actions: app.actions().to_vec(),
            ..cubes_engine::GameRecord::new(s.settings().clone(), table.seats().len(), s.seed())
        };
        let loaded = crate::review::Loaded::new(
            record,
            table.seats().iter().map(|s| s.name.clone()).collect(),
            table
                .seats()
                .iter()
                .map(|s| matches!(s.kind, game_table::SeatKind::Computer { .. }))
                .collect(),
        );
        // A terminal gone by now only loses the offer.
        let _ = crate::review::offer(
            &loaded,
            &mut std::io::stdin().lock(),
            &mut std::io::stdout().lock(),
        );
    }
    match unrecorded {
        Some(e) => Err(e),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// The table of a game played here.
fn local_table(app: &App) -> Result<&game_table::Table<Cubes>> {
    app.table()
        .context("this game is played at a table server, not here")
}

/// `cubes rank`: the Standard games, or the Blitz ones.
pub fn rank(min_games: u32, blitz: bool) -> Result<()> {
    let f = ScoreFile::open_default_to_read()?;
    let kind = if blitz {
        Settings::blitz().name
    } else {
        Settings::standard().name
    };
    print!("{}", rank_text(&f, &kind, min_games)?);
    Ok(())
}

/// `cubes stat`.
pub fn stat(name: Option<&str>, min_games: u32) -> Result<()> {
    let f = ScoreFile::open_default_to_read()?;
    print!("{}", stat_text(&f, name, min_games)?);
    Ok(())
}

/// `cubes sim`.
pub fn sim(games: u64, a: &str, b: &[String], blitz: bool, jokers: bool, seed: u64) -> Result<()> {
    let mut settings = if blitz {
        Settings::blitz()
    } else {
        Settings::standard()
    };
    if jokers {
        settings = settings.with_jokers(JokerRule::Always);
    }
    bot(a)?;
    let opponents: Vec<String> = if b.is_empty() {
        BOT_NAMES.iter().map(|s| s.to_string()).collect()
    } else {
        b.to_vec()
    };
    // Every name is checked before the table starts.
    for o in &opponents {
        bot(o)?;
    }
    println!(
        "{} games per match, {} game{}, seats alternate, seeds {seed}..",
        games,
        settings.name,
        if jokers { " with Jokers" } else { "" }
    );
    println!(
        "{:<10} {:<10} {:>8} {:>9} {:>11} {:>8} {:>8} {:>7}",
        "A", "B", "A wins", "A win%", "95% CI", "first%", "turns", "secs"
    );
    for o in &opponents {
        let t = Instant::now();
        let r = run_match(
            &settings,
            games,
            seed,
            || by_name(a).unwrap_or_else(|| Box::new(cubes_ai::Personality::steady())),
            || by_name(o).unwrap_or_else(|| Box::new(cubes_ai::Personality::steady())),
        )
        .with_context(|| format!("the match {a} against {o} stopped"))?;
        let rate = r.a_rate();
        println!(
            "{:<10} {:<10} {:>8} {:>8.2}% {:>10.2}% {:>7.2}% {:>8.1} {:>7.1}",
            a,
            o,
            r.a_wins,
            100.0 * rate,
            100.0 * r.ci95(rate),
            100.0 * r.first_rate(),
            r.turns as f64 / r.games.max(1) as f64,
            t.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn names(args: &[&str]) -> Result<Vec<(String, bool)>> {
        let cli = Cli::try_parse_from(std::iter::once("cubes").chain(args.iter().copied()))?;
        Ok(seats(&cli)?
            .into_iter()
            .map(|(s, _)| {
                (
                    s.name.clone(),
                    matches!(s.kind, game_table::SeatKind::Computer { .. }),
                )
            })
            .collect())
    }

    #[test]
    fn people_cannot_take_a_computer_players_name() {
        for n in ["Steady Sam", "steady  sam", "Optimal Olga", "Steady Sam 2"] {
            let err = names(&["-c", "reckless", n]).expect_err(n).to_string();
            assert!(err.contains("is the name of a computer player"), "{err}");
        }
        let err = names(&["ann", "-H", "Bold Bella"])
            .expect_err("another person")
            .to_string();
        assert!(err.contains("computer player (Bold Bella)"), "{err}");
        // Names that merely start like one are fine.
        assert!(names(&["Steady Samantha"]).is_ok());
        assert!(names(&["Sam"]).is_ok());
    }

    #[test]
    fn computer_players_keep_their_names() {
        let seats = names(&["ann", "-c", "steady", "-c", "reckless", "-c", "steady"]).expect("ok");
        assert_eq!(
            seats,
            [
                ("ann".to_string(), false),
                ("Steady Sam".to_string(), true),
                ("Reckless Rex".to_string(), true),
                ("Steady Sam 2".to_string(), true),
            ]
        );
    }
}
