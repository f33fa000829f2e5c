//! `mille bot`: the bot protocol on standard input and output.

use clap::Args;
use mille_ai::{Level, make_bot};

/// Options of `mille bot`.
#[derive(Args, Debug)]
pub struct BotArgs {
    /// Which computer player answers: random, classic, easy or normal.
    #[arg(long, default_value = "normal")]
    level: Level,
    /// Seed of the bot's random choices (its answers replay for a seed).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Serves the protocol until end of input, then exits 0.
pub fn run(args: BotArgs) -> anyhow::Result<()> {
    let mut bot = make_bot(args.level, args.seed);
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    match mille_protocol::serve(stdin, stdout, bot.as_mut()) {
        Ok(()) => Ok(()),
        // The reader went away: nobody is left to answer.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.into()),
    }
}
