//! `mille bot`: the bot protocol on standard input and output.

use clap::Args;

/// Options of `mille bot`.
#[derive(Args, Debug)]
pub struct BotArgs {
    /// Which computer player answers.
    #[arg(long, default_value = "random")]
    level: String,
}

/// Serves the protocol until end of input.
pub fn run(args: BotArgs) -> anyhow::Result<()> {
    anyhow::bail!("mille bot (level {}) is not available yet", args.level)
}
