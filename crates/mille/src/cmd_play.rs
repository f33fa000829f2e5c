//! Playing in the terminal (the default command).

use anyhow::{Context, bail};
use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use mille_ai::Level;
use mille_engine::rules::ConfigError;
use mille_engine::{GameConfig, GameRecord, RulesetId, State};
use mille_store::{Autosave, Options, SaveFile, ScoreDb};
use mille_tui::app::{Ending, Interruption, Io};
use mille_tui::host::Host;
use mille_tui::model::{Setup, login_name};
use mille_tui::signals::Stop;
use mille_tui::{Model, app, commands, plain};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

/// The commands of the game, shown after the options in `--help`: the
/// same list as the help screen, from the one table of commands.
fn in_game_help() -> String {
    let mut s = String::from("Commands in the game (? shows them too):\n");
    for l in commands::help_lines() {
        s.push_str(&format!("  {l}\n"));
    }
    for l in commands::MOUSE {
        s.push_str(l);
        s.push('\n');
    }
    s.push_str(
        "\nOptions and high scores live in $GAMES_DATA_DIR/mille if set, else in\n\
         $XDG_DATA_HOME/mille (~/.local/share/mille).",
    );
    s
}

/// Options of the game itself.
#[derive(Args, Debug)]
#[command(after_help = in_game_help())]
pub struct PlayArgs {
    /// A saved game to resume (written by the S command).
    #[arg(value_name = "FILE", conflicts_with_all = ["rules", "players", "seed", "stacking"])]
    file: Option<PathBuf>,

    /// Which rules: `bsd` (BSD mille, the default for 2 players), `classic`
    /// (the published rules, the default for 3 to 6 players, with teams for
    /// 4 and 6) or `milebones` (Mile Bones 2.1).
    #[arg(long, value_name = "RULES", value_parser = PossibleValuesParser::new(["bsd", "classic", "milebones"]))]
    rules: Option<String>,

    /// Number of players, you and computer players: 2, 3, 4 or 6 (the
    /// counts the rules define; 5 is not one). More than 2 play the classic
    /// rules: 3 each alone, 4 as two teams of two, 6 as three teams of two.
    #[arg(long, value_name = "N", default_value = "2", value_parser = players_parser())]
    players: u8,

    /// The classic rules' stacking variant: a hazard may be played on a
    /// hazard, and only the top one must be repaired (classic rules only;
    /// chooses them when --rules is not given).
    #[arg(long)]
    stacking: bool,

    /// Strength of the computer players (default: classic, the BSD
    /// computer; a restored game keeps its own unless this is given).
    #[arg(long, value_name = "LEVEL", value_parser = level_parser())]
    level: Option<String>,

    /// Seed of the shuffles, to deal the same game again (random if not given).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,

    /// Plain text mode for screen readers and scripts: the board is printed
    /// as text lines and commands are read one per line.
    #[arg(long)]
    plain: bool,

    /// Pause between two computer moves in a row, in milliseconds, so that
    /// a table of computer players can be followed (0: none).
    #[arg(long, value_name = "MS", default_value_t = 400, value_parser = clap::value_parser!(u64).range(0..=10_000))]
    delay: u64,

    /// Your name for the high-score table (asked once otherwise, and
    /// remembered); with --connect, the name to play under at the server
    /// (default: the one it knows you by, else your name here).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,

    /// Play with others at a table server: `mille serve` starts one.
    /// HOST or HOST:PORT (port 8780 if not given); wss://HOST[:PORT] or
    /// https://HOST[:PORT] over TLS (port 443 if not given); alone or
    /// `local`, the server on this machine (its Unix socket). A lobby lists the tables
    /// to join or watch and opens new ones; then the game is played on this
    /// same screen, the other players' names at their places.
    #[arg(
        long,
        value_name = "HOST[:PORT]",
        num_args = 0..=1,
        default_missing_value = "local",
        conflicts_with_all = ["file", "rules", "players", "stacking", "level", "seed", "plain", "scores", "clear_scores"]
    )]
    connect: Option<String>,

    /// With --connect wss://..., trust the server's certificate when the
    /// authority in this PEM file signed it (a private authority, or the
    /// server's own certificate), instead of the system's roots.
    #[arg(long, value_name = "FILE", requires = "connect")]
    ca: Option<std::path::PathBuf>,

    /// Show the high-score table (the three best totals over 5000 and the
    /// three best spreads) and exit.
    #[arg(long, conflicts_with = "file")]
    scores: bool,

    /// Clear the high-score table (asks for confirmation) and exit.
    #[arg(long, conflicts_with = "file")]
    clear_scores: bool,

    /// Answer yes to the confirmation of --clear-scores.
    #[arg(long, requires = "clear_scores")]
    yes: bool,
}

/// The player counts the rules define, listed by `--help` and checked by
/// clap.
fn players_parser() -> impl TypedValueParser<Value = u8> {
    // The strings are exactly the digits below, so the parse cannot fail.
    PossibleValuesParser::new(["2", "3", "4", "6"]).map(|s| s.parse::<u8>().unwrap_or(2))
}

/// The engine's refusal of a configuration, with the options that fix it.
fn with_flag_hint(e: ConfigError) -> anyhow::Error {
    match e {
        ConfigError::TwoPlayersOnly(_, n) => {
            anyhow::anyhow!("{e}: use --rules classic --players {n}")
        }
        ConfigError::StackingNeedsClassic(r) => anyhow::anyhow!(
            "--stacking is a variant of the classic rules, not of the {r} rules: use --rules classic --stacking"
        ),
        other => other.into(),
    }
}

fn seed_from_clock() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| {
            d.as_nanos() as u64 ^ u64::from(std::process::id()).rotate_left(32)
        })
}

/// Plays. A failure (a bad save file, an impossible set of options) is
/// reported as one sentence on standard error with exit status 1, whatever
/// the backtrace settings of the environment.
pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    if let Err(e) = play(args) {
        eprintln!("mille: {}", one_sentence(&e));
        std::process::exit(1);
    }
    Ok(())
}

/// An error and its causes as one sentence. The storage errors already
/// say their cause in their own message and also report it as their
/// source, so a cause is only added when the text does not say it yet
/// (`{e:#}` printed "cannot create directory X: Not a directory" three
/// times).
pub fn one_sentence(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if text.contains(&c) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&c);
    }
    text
}

fn play(args: PlayArgs) -> anyhow::Result<()> {
    if let Some(address) = &args.connect {
        return crate::cmd_connect::play(address, args.ca.as_deref(), args.name.as_deref());
    }
    if args.scores || args.clear_scores {
        return high_scores(&args);
    }
    let data_dir = match mille_store::data_dir() {
        Ok(d) => Some(d),
        Err(e) => {
            eprintln!("mille: {e}; options and high scores will not be kept");
            None
        }
    };
    let mut options = match &data_dir {
        Some(d) => Options::load(d).unwrap_or_else(|e| {
            eprintln!("mille: {e}; using the default options");
            Options::default()
        }),
        None => Options::default(),
    };
    if let Some(n) = &args.name {
        let n = n.trim();
        if n.is_empty() {
            bail!("the name must not be empty");
        }
        options.name = Some(n.chars().take(31).collect());
        if let Some(d) = &data_dir
            && let Err(e) = options.save(d)
        {
            eprintln!("mille: {e}");
        }
    }
    // A game that a signal or a closed terminal interrupted is offered
    // first, unless a file to resume was named.
    let resumed = match (&args.file, &data_dir) {
        (None, Some(dir)) => offer_autosave(&Autosave::in_dir(dir))?,
        _ => None,
    };
    let (record, level, save_path, sorted) = match (&args.file, resumed.clone()) {
        (None, Some(save)) => {
            let level = save_level(&args, &save, "the interrupted game")?;
            if options.name.is_none() && !save.settings.player.is_empty() {
                options.name = Some(save.settings.player.clone());
            }
            let sorted = save.settings.sorted;
            (save.record, level, None, Some(sorted))
        }
        (Some(path), _) => {
            // Loading checks that the record replays, and says where it
            // does not in the save's terms.
            let (save, _) = SaveFile::load(path).map_err(|e| anyhow::anyhow!("{e}"))?;
            let level = save_level(&args, &save, &format!("the saved game {}", path.display()))?;
            if options.name.is_none() && !save.settings.player.is_empty() {
                options.name = Some(save.settings.player.clone());
            }
            let sorted = save.settings.sorted;
            (save.record, level, Some(path.clone()), Some(sorted))
        }
        (None, None) => {
            let rules = match &args.rules {
                Some(r) => r.parse::<RulesetId>()?,
                None if args.players > 2 || args.stacking => RulesetId::Classic,
                None => RulesetId::Bsd,
            };
            let config = GameConfig {
                rules,
                players: args.players,
                stacking: args.stacking,
            };
            let seed = args.seed.unwrap_or_else(seed_from_clock);
            // The engine refuses what no ruleset supports (--stacking
            // outside classic, a player count the rules lack) in words of
            // the rules; the hint says what to type instead.
            State::new(config, seed).map_err(with_flag_hint)?;
            let level: Level = args.level.as_deref().unwrap_or("classic").parse()?;
            (GameRecord::new(config, seed), level, None, None)
        }
    };
    let mut ask_name = options.name.is_none();
    let player = options.name.clone().unwrap_or_else(login_name);
    if ask_name && args.plain && !std::io::stdin().is_terminal() {
        // A script's first line is a command, not a name: play under the
        // login name, say so once, and keep asking in later interactive
        // games (nothing is remembered).
        ask_name = false;
        println!("Playing as {player}; --name NAME sets another name.");
    }
    if let Some(s) = sorted {
        options.auto_sort = s;
    }
    let settings = Setup {
        level,
        player,
        save_path,
        options,
        ask_name,
    };
    // The game replayed through its table: the computers are seated and
    // have watched the hand, and the player's observation brings every
    // event of the game (the log of the last moves is made of them).
    let mut host = Host::new(&record, level)?;
    let mut model = Model::new(host.observe(), settings)?;
    // A resumed game is saved nowhere now: leaving asks to save it.
    model.dirty = resumed.is_some();
    let io_ = Io { data_dir };
    if !args.plain && (!std::io::stdout().is_terminal() || !std::io::stdin().is_terminal()) {
        bail!("mille needs a terminal to play full screen; use --plain for the text mode");
    }
    // From here on a hangup, `kill` or Ctrl-C ends the game through the
    // loops, which keep it in the autosave. (Not before: a read of the
    // question above, blocked on a closed terminal, would never see it.)
    let stop = Stop::install().context("cannot catch signals")?;
    if args.plain {
        let input = std::io::BufReader::new(std::io::stdin());
        let out = std::io::stdout().lock();
        if let Some(i) = plain::run(&mut model, &mut host, &io_, input, out, &stop)? {
            leave_interrupted(&model, &i);
        }
        log_incidents(&model);
        return Ok(());
    }
    let pace = std::time::Duration::from_millis(args.delay);
    let (model, ending) = app::run(model, host, io_, pace, &stop).context("the terminal failed")?;
    if let Ending::Interrupted(i) = ending {
        leave_interrupted(&model, &i);
    }
    log_incidents(&model);
    if let Some(f) = model.farewell.as_ref() {
        println!("{f}");
    }
    if let Some(record) = model.finished {
        crate::cmd_review::offer(record, model.obs.seat_info.clone());
    }
    Ok(())
}

/// What went wrong with computer players during the game, on standard
/// error once the game has left the screen. Written without `eprintln!`,
/// which panics when the terminal is gone.
fn log_incidents(model: &Model) {
    let mut err = std::io::stderr();
    for i in &model.incidents {
        let _ = writeln!(err, "mille: {i}");
    }
}

/// Says what became of an interrupted game (when there is still a terminal
/// to say it on) and ends the process with 128 + the signal's number, the
/// shell's convention.
fn leave_interrupted(model: &Model, i: &Interruption) -> ! {
    let mut err = std::io::stderr();
    let _ = match &i.kept {
        Ok(Some(_)) => writeln!(
            err,
            "mille: interrupted; the game is kept, and the next mille offers to resume it."
        ),
        Ok(None) => Ok(()),
        Err(e) => writeln!(err, "mille: interrupted; the game could not be kept: {e}"),
    };
    log_incidents(model);
    std::process::exit(128 + i.signal.clamp(0, 127));
}

/// The offered levels, and (hidden from the help) the merged names that
/// still mean one.
fn level_parser() -> PossibleValuesParser {
    use clap::builder::PossibleValue;
    PossibleValuesParser::new(
        Level::ALL
            .map(|l| PossibleValue::new(l.id()))
            .into_iter()
            .chain(Level::MERGED.map(|(id, _)| PossibleValue::new(id).hide(true))),
    )
}

/// The computer level of a restored game: `--level` if given, else the
/// one saved with it. `what` names the game in the error.
fn save_level(args: &PlayArgs, save: &SaveFile, what: &str) -> anyhow::Result<Level> {
    match &args.level {
        Some(l) => Ok(l.parse()?),
        None => save.settings.level.parse().map_err(|_| {
            anyhow::anyhow!(
                "{what} names an unknown computer level {:?}",
                save.settings.level
            )
        }),
    }
}

/// Offers to resume the game kept in `autosave`, if one is: yes resumes it
/// (the autosave is then removed: the game is in play again), no removes
/// it. Without a terminal to ask on, it is left alone and the player told
/// where it is. A kept game that no longer loads is set aside, said once.
fn offer_autosave(autosave: &Autosave) -> anyhow::Result<Option<SaveFile>> {
    let Some(at) = autosave.interrupted_at() else {
        return Ok(None);
    };
    let path = autosave.path();
    let save = match autosave.load() {
        Ok((save, _)) => save,
        Err(e) => {
            let aside = path.with_extension("mille.damaged");
            let _ = std::fs::rename(path, &aside);
            eprintln!(
                "mille: {e}; the interrupted game cannot be resumed and is set aside as {}",
                aside.display()
            );
            return Ok(None);
        }
    };
    if !std::io::stdin().is_terminal() {
        // A script's first line is a command, not an answer.
        println!(
            "A game was interrupted on {}; `mille {}` resumes it.",
            utc_text(at),
            path.display()
        );
        return Ok(None);
    }
    let mut out = std::io::stdout();
    loop {
        write!(
            out,
            "A game was interrupted on {}. Resume it? (y/n) ",
            utc_text(at)
        )?;
        out.flush()?;
        let mut answer = String::new();
        if std::io::stdin().lock().read_line(&mut answer)? == 0 {
            bail!(
                "no answer: the interrupted game is left in {}",
                path.display()
            );
        }
        match answer.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => {
                autosave.remove()?;
                return Ok(Some(save));
            }
            "n" | "no" => {
                autosave.remove()?;
                println!("The interrupted game is discarded.");
                return Ok(None);
            }
            _ => println!("Please answer y or n."),
        }
    }
}

/// `t` as a date and time of day in UTC: "2025-03-01 at 14:05 UTC".
fn utc_text(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let (date, minute) = game_store::utc_date_and_minute(secs);
    format!("{date} at {minute} UTC")
}

fn high_scores(args: &PlayArgs) -> anyhow::Result<()> {
    let dir = mille_store::data_dir()?;
    let mut db = ScoreDb::open(&dir)?;
    if args.clear_scores {
        if !args.yes {
            print!("Clear the high-score table? (y/n) ");
            std::io::stdout().flush()?;
            let mut answer = String::new();
            std::io::stdin().lock().read_line(&mut answer)?;
            if !answer.trim().eq_ignore_ascii_case("y")
                && !answer.trim().eq_ignore_ascii_case("yes")
            {
                println!("The high-score table was left alone.");
                return Ok(());
            }
        }
        db.clear()?;
        println!("The high-score table is cleared.");
        return Ok(());
    }
    print!("{}", db.high_scores()?.to_text());
    // Mile Bones had a Clear scores button beside its table: say where ours is.
    println!("\nmille --clear-scores clears the table (it asks first).");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interruption_date_is_told_in_utc() {
        let at = |secs| std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        assert_eq!(utc_text(at(0)), "1970-01-01 at 00:00 UTC");
        assert_eq!(utc_text(at(951_782_400 + 3_725)), "2000-02-29 at 01:02 UTC");
        assert_eq!(utc_text(at(1_735_689_599)), "2024-12-31 at 23:59 UTC");
    }

    #[test]
    fn a_cause_already_said_is_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "Not a directory");
        let e = anyhow::Error::new(io).context("cannot create directory /x: Not a directory");
        assert_eq!(
            one_sentence(&e),
            "cannot create directory /x: Not a directory"
        );
        let io = std::io::Error::other("broken pipe");
        let e = anyhow::Error::new(io).context("the terminal failed");
        assert_eq!(one_sentence(&e), "the terminal failed: broken pipe");
    }
}
