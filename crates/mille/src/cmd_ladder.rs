//! `mille ladder --connect [HOST]`: a table server's ratings of one
//! ruleset of Mille Bornes, best first, printed as a table. It signs in as
//! `mille --connect` does (the token kept for that server, else the name
//! mille plays under here), asks `ladder` once and leaves.

use anyhow::{Context, anyhow};
use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use mille_store::Options;
use mille_tui::model::login_name;
use std::io::Write;
use std::time::Duration;
use table_client::protocol::{ClientMessage, ErrorCode, GameKind, ServerMessage};
use table_client::{ClientError, Connection, Credentials, Target, TokenStore};

/// How long the server may take to answer the ladder.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// Options of `mille ladder`.
#[derive(Args, Debug)]
pub struct LadderArgs {
    /// The table server: HOST or HOST:PORT (port 8780 if not given),
    /// wss://HOST[:PORT] over TLS, or alone or `local`, the server on this
    /// machine (also when the option is left out).
    #[arg(
        long,
        value_name = "HOST[:PORT]",
        num_args = 0..=1,
        default_missing_value = "local"
    )]
    connect: Option<String>,

    /// With --connect wss://..., trust the server's certificate when the
    /// authority in this PEM file signed it, instead of the system's roots.
    #[arg(long, value_name = "FILE")]
    ca: Option<std::path::PathBuf>,

    /// Which rules' ratings: `bsd` (the default), `classic` (rated by the
    /// table's size: see --players) or `milebones`.
    #[arg(long, value_name = "RULES", value_parser = PossibleValuesParser::new(["bsd", "classic", "milebones"]))]
    rules: Option<String>,

    /// The table size of the classic ratings: 2, 3, 4 (two teams) or 6
    /// (three teams); more than 2 without --rules means classic.
    #[arg(long, value_name = "N", value_parser = players_parser())]
    players: Option<u8>,

    /// The name to ask under (default: the one the server knows you by,
    /// else your name here).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
}

/// The table sizes the rules define.
fn players_parser() -> impl TypedValueParser<Value = u8> {
    // The strings are exactly these digits, so the parse cannot fail.
    PossibleValuesParser::new(["2", "3", "4", "6"]).map(|s| s.parse::<u8>().unwrap_or(2))
}

/// The ruleset and table size to ask for, or why the options make no
/// ladder: only the classic rules are played by more than two.
pub fn category(rules: Option<&str>, players: Option<u8>) -> Result<(String, usize), String> {
    let rules = match (rules, players) {
        (Some(r), _) => r,
        (None, Some(n)) if n > 2 => "classic",
        (None, _) => "bsd",
    };
    let players = usize::from(players.unwrap_or(2));
    if rules != "classic" && players != 2 {
        return Err(format!(
            "the {rules} rules are played by 2 players only, so their ladder has no --players {players}: use --rules classic --players {players}"
        ));
    }
    Ok((rules.to_string(), players))
}

/// Runs `mille ladder`: exits 2 on bad options, 1 (with the sentence
/// that says why) when the server cannot be reached or refuses.
pub fn run(args: LadderArgs) -> anyhow::Result<()> {
    let (rules, players) = match category(args.rules.as_deref(), args.players) {
        Ok(c) => c,
        Err(why) => usage_error(&why),
    };
    let address = args.connect.as_deref().unwrap_or("local");
    let target = match Target::parse_trusting(address, args.ca.as_deref()) {
        Ok(t) => t,
        Err(e) => usage_error(&e.to_string()),
    };
    if let Some(n) = &args.name
        && let Err(why) = table_client::protocol::check_name(n.trim())
    {
        usage_error(&format!("--name: {why}"));
    }
    let request = ClientMessage::Ladder {
        game: GameKind::Mille,
        rules: Some(rules),
        players: Some(players),
    };
    let answer = match ask(&target, args.name.as_deref(), request) {
        Ok(a) => a,
        Err(e) => {
            // The sentence alone: no "Error:" and no backtrace for what
            // the server said or where nothing answered.
            let _ = writeln!(std::io::stderr(), "mille ladder: {e:#}");
            std::process::exit(1)
        }
    };
    let ServerMessage::Ladder { title, entries, .. } = answer else {
        return Err(anyhow!(
            "the table server at {target} answered something else than a ladder"
        ));
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let text = table_client::ladder::ladder_text(&title, &target.to_string(), &entries, now);
    // A closed pipe (`mille ladder | head`) is not an error worth a word.
    let _ = std::io::stdout().write_all(text.as_bytes());
    Ok(())
}

/// Says what is wrong with the command line and exits 2, as clap does.
fn usage_error(why: &str) -> ! {
    let _ = writeln!(std::io::stderr(), "mille ladder: {why}");
    std::process::exit(2)
}

/// The name to say `hello` with when the server has no token of ours:
/// `--name`, else the name mille plays under here, else the login name.
fn hello_name(given: Option<&str>) -> String {
    if let Some(n) = given {
        return n.trim().to_string();
    }
    let options = mille_store::data_dir()
        .ok()
        .and_then(|d| Options::load(&d).ok());
    options.and_then(|o| o.name).unwrap_or_else(login_name)
}

/// Signs in at `target` and asks `request`; the server's `ladder`, or an
/// error whose sentence says why not (unreachable, refused, silent).
fn ask(
    target: &Target,
    name: Option<&str>,
    request: ClientMessage,
) -> anyhow::Result<ServerMessage> {
    let tokens = TokenStore::open_default()?;
    // `--name` picks that name's token, if one is kept for the server.
    let saved = match name {
        Some(n) => tokens.named(target, n.trim())?,
        None => tokens.get(target)?,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the connection's runtime")?;
    runtime.block_on(async {
        let mut conn = Connection::open(target).await.map_err(|e| match e {
            ClientError::Unreachable { reason, .. } => anyhow!(target.unreachable(&reason, "mille")),
            other => anyhow::Error::new(other),
        })?;
        // A token kept for this machine goes only where this machine is.
        let saved = saved.filter(|_| conn.reaches_its_target());
        let me = match &saved {
            Some(c) => c.name.clone(),
            None => hello_name(name),
        };
        let welcome = match &saved {
            Some(c) => conn.hello(Some(&c.name), Some(&c.token)).await,
            None => conn.hello(Some(&me), None).await,
        }
        .map_err(|e| match &e {
            ClientError::Refused(body) if body.code == ErrorCode::NameTaken => anyhow!(
                "the name {me:?} belongs to another player at {target}: ask under your own, with --name NAME"
            ),
            _ => anyhow::Error::new(e),
        })?;
        if saved.as_ref().is_none_or(|c| c.token != welcome.token) {
            // Not keeping it would lose the name just registered; the
            // ladder is still worth showing.
            let kept = Credentials {
                name: welcome.name.clone(),
                token: welcome.token.clone(),
            };
            if let Err(e) = tokens.set(target, kept) {
                let _ = writeln!(std::io::stderr(), "mille: warning: {e}");
            }
        }
        conn.send(&request).await?;
        let answer = tokio::time::timeout(ANSWER_TIMEOUT, async {
            loop {
                match conn.recv().await? {
                    ServerMessage::Error(e) => {
                        return Err(anyhow!(
                            "the table server at {target} refused: {}",
                            e.message
                        ));
                    }
                    m @ ServerMessage::Ladder { .. } => return Ok(m),
                    _ => {}
                }
            }
        })
        .await
        .map_err(|_| {
            anyhow!(
                "the table server at {target} did not answer within {} s",
                ANSWER_TIMEOUT.as_secs()
            )
        })?;
        conn.close().await;
        answer
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_options_name_one_ladder_or_say_why_not() {
        assert_eq!(category(None, None), Ok(("bsd".into(), 2)));
        assert_eq!(
            category(Some("milebones"), None),
            Ok(("milebones".into(), 2))
        );
        assert_eq!(category(None, Some(4)), Ok(("classic".into(), 4)));
        assert_eq!(category(Some("classic"), None), Ok(("classic".into(), 2)));
        let e = category(Some("bsd"), Some(4)).expect_err("bsd has 2 players");
        assert!(e.contains("--rules classic --players 4"), "{e}");
    }
}
