//! `mille bot`: the bot protocol on standard input and output, or, with
//! `--connect`, a bot account at a table server ([`crate::bot_online`]).

use anyhow::{Context, bail};
use clap::Args;
use mille_ai::{Level, make_bot};
use std::path::PathBuf;
use table_client::protocol::{BotInfo, check_description, check_name};
use table_client::{Target, TokenStore};

/// Options of `mille bot`.
#[derive(Args, Debug)]
pub struct BotArgs {
    /// Which computer player answers: random, classic, easy or normal.
    #[arg(long, default_value = "normal")]
    level: Level,
    /// Seed of the bot's random choices (its answers replay for a seed).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Play at a table server as a bot account instead of speaking the
    /// protocol on stdin/stdout: HOST or HOST:PORT (port 8780 if not
    /// given), wss://HOST[:PORT] over TLS; alone or `local`, the server on
    /// this machine. The bot accepts every invitation to a game of mille,
    /// plays until interrupted, and comes back after a dropped connection.
    #[arg(
        long,
        value_name = "HOST[:PORT]",
        num_args = 0..=1,
        default_missing_value = "local",
        requires = "name"
    )]
    connect: Option<String>,
    /// With --connect: the bot's name at the server (registered as a bot's
    /// the first time).
    #[arg(long, value_name = "NAME", requires = "connect")]
    name: Option<String>,
    /// With --connect: the person who runs the bot (default: $USER).
    #[arg(long, value_name = "NAME", requires = "connect")]
    owner: Option<String>,
    /// With --connect: what the bot is, in a sentence (default: "mille's
    /// built-in LEVEL player").
    #[arg(long, value_name = "TEXT", requires = "connect")]
    description: Option<String>,
    /// With --connect: enter the server's arena (it pairs the bots that
    /// enter, if it runs one).
    #[arg(long, requires = "connect")]
    arena: bool,
    /// With --connect: where the bot's token is kept (default: the
    /// terminal client's tokens.json, beside the names played there).
    #[arg(long, value_name = "FILE", requires = "connect")]
    token_file: Option<PathBuf>,
    /// With --connect wss://...: trust the server's certificate when the
    /// authority in this PEM file signed it.
    #[arg(long, value_name = "FILE", requires = "connect")]
    ca: Option<PathBuf>,
}

/// Serves the protocol until end of input, then exits 0; with
/// `--connect`, plays at the server until interrupted.
pub fn run(args: BotArgs) -> anyhow::Result<()> {
    if let Some(address) = &args.connect {
        return crate::bot_online::run(online(&args, address)?);
    }
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

/// The options of `--connect`, checked as the server would check them.
fn online(args: &BotArgs, address: &str) -> anyhow::Result<crate::bot_online::Options> {
    let target = Target::parse_trusting(address, args.ca.as_deref())?;
    let name = args.name.as_deref().unwrap_or_default().trim().to_string();
    check_name(&name).map_err(|why| anyhow::anyhow!("--name: {why}"))?;
    let owner = match &args.owner {
        Some(o) => o.trim().to_string(),
        None => default_owner(std::env::var("USER").ok()),
    };
    if let Err(why) = check_name(&owner) {
        bail!("--owner: {why}");
    }
    let description = args
        .description
        .clone()
        .unwrap_or_else(|| format!("mille's built-in {} player", args.level));
    if let Err(why) = check_description(&description) {
        bail!("--description: {why}");
    }
    let tokens = match &args.token_file {
        Some(file) => TokenStore::at(file.clone()),
        None => TokenStore::open_default().context("cannot keep the bot's token")?,
    };
    Ok(crate::bot_online::Options {
        target,
        name,
        level: args.level,
        seed: args.seed,
        info: BotInfo {
            owner,
            description,
            arena: args.arena,
        },
        tokens,
    })
}

/// The owner when none is given: the login name, if it is one the server
/// takes.
fn default_owner(user: Option<String>) -> String {
    user.map(|u| u.trim().to_string())
        .filter(|u| check_name(u).is_ok())
        .unwrap_or_else(|| "unknown".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        bot: BotArgs,
    }

    fn parse(args: &[&str]) -> Result<BotArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("bot").chain(args.iter().copied())).map(|c| c.bot)
    }

    #[test]
    fn connect_needs_a_name_and_the_bot_options_need_connect() {
        assert!(parse(&["--connect", "h:1"]).is_err());
        assert!(parse(&["--name", "r"]).is_err());
        assert!(parse(&["--arena"]).is_err());
        let args = parse(&[
            "--connect",
            "127.0.0.1:9",
            "--name",
            "r",
            "--level",
            "random",
        ])
        .expect("parsed");
        let o = online(&args, "127.0.0.1:9").expect("options");
        assert_eq!(o.name, "r");
        assert_eq!(o.level, Level::Random);
        assert_eq!(o.info.description, "mille's built-in random player");
        assert!(!o.info.arena);
        let args =
            parse(&["--connect", "--name", "r", "--owner", "ann", "--arena"]).expect("parsed");
        assert_eq!(args.connect.as_deref(), Some("local"));
        let o = online(&args, "127.0.0.1:9").expect("options");
        assert_eq!(o.info.owner, "ann");
        assert!(o.info.arena);
    }

    #[test]
    fn bad_names_and_descriptions_are_refused_before_connecting() {
        let args = parse(&["--connect", "h:1", "--name", "r\u{7}"]).expect("parsed");
        assert!(online(&args, "h:1").is_err_and(|e| e.to_string().starts_with("--name:")));
        let args = parse(&["--connect", "h:1", "--name", "r", "--owner", ""]).expect("parsed");
        assert!(online(&args, "h:1").is_err_and(|e| e.to_string().starts_with("--owner:")));
        let long = "x".repeat(200);
        let args =
            parse(&["--connect", "h:1", "--name", "r", "--description", &long]).expect("parsed");
        assert!(online(&args, "h:1").is_err_and(|e| e.to_string().starts_with("--description:")));
    }

    #[test]
    fn an_authority_is_only_for_a_tls_address() {
        let args = parse(&["--connect", "h:1", "--name", "r", "--ca", "ca.pem"]).expect("parsed");
        assert!(online(&args, "h:1").is_err_and(|e| e.to_string().contains("--ca")));
        let args =
            parse(&["--connect", "wss://h", "--name", "r", "--ca", "ca.pem"]).expect("parsed");
        assert!(online(&args, "wss://h").is_ok_and(|o| o.target.is_tls()));
    }

    #[test]
    fn the_owner_is_the_login_name_else_unknown() {
        assert_eq!(default_owner(Some("ann".into())), "ann");
        assert_eq!(default_owner(Some(String::new())), "unknown");
        assert_eq!(default_owner(None), "unknown");
    }
}
