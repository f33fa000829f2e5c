//! Playing in the terminal (the default command).

use clap::Args;
use std::path::PathBuf;

/// Options of the game itself.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// A saved game to resume.
    file: Option<PathBuf>,
}

/// Plays.
pub fn run(_args: PlayArgs) -> anyhow::Result<()> {
    anyhow::bail!("the terminal game is not available yet")
}
