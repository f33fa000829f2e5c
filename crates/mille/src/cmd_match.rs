//! `mille match`: bots against bots on duplicate deals.

use clap::Args;

/// Options of `mille match`.
#[derive(Args, Debug)]
pub struct MatchArgs {}

/// Runs the match.
pub fn run(_args: MatchArgs) -> anyhow::Result<()> {
    anyhow::bail!("mille match is not available yet")
}
