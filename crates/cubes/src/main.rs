//! `cubes`: the five-dice game in the terminal, its score file and rankings.
//!
//! `cubes [options] [name]` plays (the `cubes-tui` crate: full screen, or
//! `--plain` lines); `cubes rank` ranks every player (cuberank); `cubes stat
//! [name]` shows statistics and who is playing now (cubestat), both from the
//! score file of the `cubes-store` crate; `cubes sim` measures the computer
//! players against each other; `cubes review FILE` judges a game's
//! decisions by the optimal player's values (the `review` module). `cubes serve` hosts tables for people at
//! other terminals; `--connect` plays there, and shows its rankings and
//! games with `rank` and `stat` (the `online` module).

mod commands;
mod online;
mod review;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use cubes_engine::Settings;
use std::process::ExitCode;

/// When to play with Jokers dice.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Jokers {
    /// Ordinary dice.
    Never,
    /// About one game in six, announced at the start (the original's way).
    Sometimes,
    /// Always.
    Always,
}

/// cubes: a dice game for one or more players, people and computers.
#[derive(Parser, Debug)]
#[command(version, about, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// Your name, as recorded in the score file (default: your login name).
    pub name: Option<String>,
    /// Play a Blitz game instead of a Standard one (help text: [`blitz_help`]).
    #[arg(short, long, help = blitz_help())]
    pub blitz: bool,
    /// When to play with the 13-sided Jokers dice.
    #[arg(short, long, value_enum, default_value_t = Jokers::Sometimes)]
    pub jokers: Jokers,
    /// A computer player: optimal, cautious, steady, bold or reckless
    /// (repeat for more). Default: one steady player, unless other people
    /// play.
    #[arg(short, long = "computer", value_name = "PLAYER")]
    pub computers: Vec<String>,
    /// Another person playing at this keyboard (repeat for more).
    #[arg(short = 'H', long = "human", value_name = "NAME")]
    pub humans: Vec<String>,
    /// Only computer players: watch them play.
    #[arg(short, long)]
    pub watch: bool,
    /// Seed of the dice, to replay a game.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Plain lines on standard input and output instead of the full screen.
    #[arg(long)]
    pub plain: bool,
    /// Milliseconds between computer moves on screen.
    #[arg(long, default_value_t = 600)]
    pub delay: u64,
    /// Play at a table server (`cubes serve`): HOST, HOST:PORT, or
    /// nothing or `local` for the one on this machine. Its lobby opens a
    /// table (-b puts Blitz tables first) or joins one.
    #[arg(
        long,
        value_name = "HOST[:PORT]",
        num_args = 0..=1,
        default_missing_value = "local",
        conflicts_with_all = ["computers", "humans", "watch", "seed", "no_record"]
    )]
    pub connect: Option<String>,
    /// With --connect wss://..., trust the server's certificate when the
    /// authority in this PEM file signed it (a private authority, or the
    /// server's own certificate), instead of the system's roots.
    #[arg(long, value_name = "FILE", requires = "connect")]
    pub ca: Option<std::path::PathBuf>,
    /// Do not write the result to the score file.
    #[arg(long)]
    pub no_record: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The other programs of cubes.
#[derive(Subcommand, Debug)]
// Parsed once per run: the size of the server's options costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    /// Rank all players from best to worst (cuberank).
    Rank {
        /// Games a player needs to be ranked.
        #[arg(short, long, default_value_t = 5)]
        min_games: u32,
        /// Rank the Blitz games instead of the Standard ones (help text:
        /// [`rank_blitz_help`]).
        #[arg(short, long, help = rank_blitz_help())]
        blitz: bool,
        /// The rankings of a table server's games instead, and its ratings
        /// of the same kind of game: HOST, HOST:PORT, or nothing or `local`
        /// for the one on this machine.
        #[arg(long, value_name = "HOST[:PORT]", num_args = 0..=1, default_missing_value = "local")]
        connect: Option<String>,
        /// With --connect wss://..., trust the server's certificate when
        /// the authority in this PEM file signed it, instead of the
        /// system's roots.
        #[arg(long, value_name = "FILE", requires = "connect")]
        ca: Option<std::path::PathBuf>,
        /// With --connect, the ratings shown under the rankings are those
        /// of the games with Jokers dice (rated apart, Standard and Blitz
        /// alike) instead of the Standard or Blitz ones.
        #[arg(short, long, requires = "connect")]
        jokers: bool,
    },
    /// A player's statistics, and who is playing now (cubestat).
    Stat {
        /// The player (default: everybody's summary).
        name: Option<String>,
        /// Games a player needs to be ranked.
        #[arg(short, long, default_value_t = 5)]
        min_games: u32,
        /// The games in progress at a table server instead, and who plays
        /// them (only the player's, with a name): HOST, HOST:PORT, or
        /// nothing or `local` for the one on this machine.
        #[arg(long, value_name = "HOST[:PORT]", num_args = 0..=1, default_missing_value = "local")]
        connect: Option<String>,
        /// With --connect wss://..., trust the server's certificate when
        /// the authority in this PEM file signed it, instead of the
        /// system's roots.
        #[arg(long, value_name = "FILE", requires = "connect")]
        ca: Option<std::path::PathBuf>,
    },
    /// Host tables of cubes and mille for people at other terminals (the
    /// same server as `mille serve`).
    Serve(table_server::cli::ServeArgs),
    /// Review a finished game: each keep and hold of a seat beside the
    /// optimal player's, with what it cost.
    Review {
        /// The game: a game record (JSON), or a table server's game (the
        /// JSON of /api/games/ID).
        #[arg(value_name = "FILE")]
        file: std::path::PathBuf,
        /// The seat to review, 1 for the first (default: the first
        /// person at the table).
        #[arg(long, value_name = "N")]
        seat: Option<usize>,
        /// Show the table at the seat's decision K (1 for the first)
        /// instead of the list of decisions.
        #[arg(long, value_name = "K")]
        at: Option<usize>,
    },
    /// Simulate games between computer players and report win rates.
    Sim {
        /// Games per match.
        #[arg(short, long, default_value_t = 10_000)]
        games: u64,
        /// First player of each match.
        #[arg(long, default_value = "optimal")]
        a: String,
        /// Opponents (default: every personality and optimal itself).
        #[arg(long)]
        b: Vec<String>,
        /// Blitz games.
        #[arg(long)]
        blitz: bool,
        /// Jokers dice.
        #[arg(long)]
        jokers: bool,
        /// Seed of the first game.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

/// The targets of the Blitz and the Standard game, as the engine sets them,
/// for the help texts.
fn targets() -> (String, String) {
    (
        cubes_tui::app::points(Settings::blitz().target),
        cubes_tui::app::points(Settings::standard().target),
    )
}

fn blitz_help() -> String {
    let (blitz, standard) = targets();
    format!("Play a Blitz game (to {blitz}) instead of a Standard one (to {standard})")
}

fn rank_blitz_help() -> String {
    let (blitz, _) = targets();
    format!(
        "Rank the Blitz games (to {blitz}) instead of the Standard ones: their scores are not comparable"
    )
}

fn main() -> Result<ExitCode> {
    let cli = Cli::parse();
    let done = match &cli.command {
        Some(Command::Rank {
            min_games,
            blitz,
            connect: Some(address),
            ca,
            jokers,
        }) => online::rank(
            address,
            ca.as_deref(),
            &commands::login_name()?,
            *min_games,
            *blitz,
            *jokers,
        ),
        Some(Command::Rank {
            min_games, blitz, ..
        }) => commands::rank(*min_games, *blitz),
        Some(Command::Stat {
            name,
            connect: Some(address),
            ca,
            ..
        }) => online::stat(
            address,
            ca.as_deref(),
            &commands::login_name()?,
            name.as_deref(),
        ),
        Some(Command::Stat {
            name, min_games, ..
        }) => commands::stat(name.as_deref(), *min_games),
        Some(Command::Sim {
            games,
            a,
            b,
            blitz,
            jokers,
            seed,
        }) => commands::sim(*games, a, b, *blitz, *jokers, *seed),
        Some(Command::Review { file, seat, at }) => return Ok(review::run(file, *seat, *at)),
        Some(Command::Serve(args)) => table_server::cli::run(args).map_err(anyhow::Error::from),
        None => return commands::play(&cli),
    };
    done.map(|()| ExitCode::SUCCESS)
}
