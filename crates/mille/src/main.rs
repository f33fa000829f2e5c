//! The `mille` command line: play (the default), `bot`, `match`, `serve`,
//! `ladder`, `replay`, `review`, `bench`, and the generated man page and shell
//! completions.

mod bot_online;
mod cmd_bench;
mod cmd_bot;
mod cmd_connect;
mod cmd_ladder;
mod cmd_match;
mod cmd_play;
mod cmd_replay;
mod cmd_review;
mod man;
mod match_record;

use clap::{CommandFactory, Parser, Subcommand};

/// Mille Bornes, the French car-race card game, against the computer.
///
/// Started without a command it plays a game in the terminal; `mille FILE`
/// resumes a saved game.
#[derive(Parser, Debug)]
#[command(name = "mille", version, about, long_about = None, args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    play: cmd_play::PlayArgs,
}

#[derive(Subcommand, Debug)]
// Parsed once per run: the size of the server's options costs nothing.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Speak the Mille Bornes Bot Protocol on stdin/stdout (JSON Lines), or
    /// play at a table server as a bot account (`--connect`).
    Bot(cmd_bot::BotArgs),
    /// Pit computer players against each other on duplicate deals.
    Match(cmd_match::MatchArgs),
    /// Host tables of mille and cubes for people at other terminals (the
    /// same server as `cubes serve`).
    Serve(table_server::cli::ServeArgs),
    /// Show a table server's ratings of one ruleset, best first.
    Ladder(cmd_ladder::LadderArgs),
    /// Play a recorded game back move by move: a save file, a game record,
    /// or a table server's game (its /api/games/ID document).
    Replay(cmd_replay::ReplayArgs),
    /// Review a finished game: each decision of a seat beside the move the
    /// analysis prefers, with the expected points it cost.
    Review(cmd_review::ReviewArgs),
    /// Measure the engine's random-play throughput.
    Bench(cmd_bench::BenchArgs),
    /// Print shell completions (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page, mille(6), as roff: `mille man | man -l -`.
    Man,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        None => cmd_play::run(cli.play),
        Some(Command::Bot(args)) => cmd_bot::run(args),
        Some(Command::Match(args)) => cmd_match::run(args),
        Some(Command::Bench(args)) => cmd_bench::run(args),
        Some(Command::Ladder(args)) => cmd_ladder::run(args),
        Some(Command::Replay(args)) => cmd_replay::run(args),
        Some(Command::Review(args)) => cmd_review::run(args),
        Some(Command::Serve(args)) => Ok(table_server::cli::run(&args)?),
        Some(Command::Completions { shell }) => {
            clap_complete::generate(shell, &mut Cli::command(), "mille", &mut std::io::stdout());
            Ok(())
        }
        Some(Command::Man) => {
            man::render(Cli::command(), &mut std::io::stdout())?;
            Ok(())
        }
    }
}
