//! `mille --connect`: playing at a table server. The lobby
//! ([`table_lobby`]) finds or opens a table; the game is then played in the
//! same screen as against the computer here, its effects carried out by a
//! [`RemoteHost`].

use anyhow::{Context, bail};
use mille_ai::Level;
use mille_engine::{GameConfig, Observation, RulesetId};
use mille_store::Options;
use mille_tui::Model;
use mille_tui::app::{self, Ending, Io};
use mille_tui::model::{ServerTable, Setup, login_name};
use mille_tui::remote::RemoteHost;
use mille_tui::signals::Stop;
use std::io::{IsTerminal, Write};
use table_client::protocol::GameKind;
use table_client::{Failure, Session, Target, TokenStore};
use table_lobby::{Choice, Lobby, Preset};

/// The computer level a new table's other seats start at: a newcomer can
/// open a table and play at once (each seat can be changed to a person or
/// another level in the form).
const OTHERS: &str = "classic";

/// The kinds of table the lobby offers to open.
pub fn presets() -> Vec<Preset> {
    let preset = |rules: RulesetId, players: u8, label: &str| Preset {
        teams: teams(GameConfig {
            rules,
            players,
            stacking: false,
        }),
        label: label.to_string(),
        setup: serde_json::to_value(GameConfig {
            rules,
            players,
            stacking: false,
        })
        .unwrap_or_default(),
        seats: usize::from(players),
        others: Some(OTHERS.to_string()),
    };
    vec![
        preset(RulesetId::Bsd, 2, "bsd, 2 players"),
        preset(RulesetId::Classic, 3, "classic, 3 players"),
        preset(RulesetId::Classic, 4, "classic, 4 players in 2 teams"),
        preset(RulesetId::Classic, 6, "classic, 6 players in 3 teams"),
        preset(RulesetId::Milebones, 2, "milebones, 2 players"),
    ]
}

/// The seats that play together at a game of `config`, as the engine
/// pairs them (none when each plays alone).
fn teams(config: GameConfig) -> Vec<Vec<usize>> {
    let Ok(rules) = mille_engine::Rules::new(config) else {
        return Vec::new();
    };
    let mut teams: Vec<Vec<usize>> = Vec::new();
    for seat in rules.seats_iter() {
        let team = usize::from(rules.team_of(seat));
        if teams.len() <= team {
            teams.resize(team + 1, Vec::new());
        }
        teams[team].push(seat.index());
    }
    if teams.iter().all(|t| t.len() < 2) {
        return Vec::new();
    }
    teams
}

/// The name to give the server: `--name`, else the one it knows this
/// player by (kept with its token; `None` lets the session send it),
/// else the name mille plays under here (asked once and remembered, or
/// the login name).
fn server_name(
    given: Option<&str>,
    known: bool,
    options: &Options,
) -> anyhow::Result<Option<String>> {
    if let Some(n) = given {
        let n = n.trim();
        if n.is_empty() {
            bail!("the name must not be empty");
        }
        return Ok(Some(n.to_string()));
    }
    if known {
        return Ok(None);
    }
    Ok(Some(options.name.clone().unwrap_or_else(login_name)))
}

/// Plays at the table server `address` (empty or `local`: the local
/// server's Unix socket) under `name`, a TLS server's certificate checked
/// against the authority in `ca` if one is given.
pub fn play(address: &str, ca: Option<&std::path::Path>, name: Option<&str>) -> anyhow::Result<()> {
    let target = Target::parse_trusting(address, ca)?;
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        bail!("mille --connect needs a terminal to play full screen");
    }
    let data_dir = match mille_store::data_dir() {
        Ok(d) => Some(d),
        Err(e) => {
            eprintln!("mille: {e}; options will not be kept");
            None
        }
    };
    let options = match &data_dir {
        Some(d) => Options::load(d).unwrap_or_else(|e| {
            eprintln!("mille: {e}; using the default options");
            Options::default()
        }),
        None => Options::default(),
    };
    let tokens = TokenStore::open_default()?;
    let known = tokens.get(&target)?.is_some();
    let name = server_name(name, known, &options)?;
    let stop = Stop::install().context("cannot catch signals")?;
    let mut session = Session::start(target.clone(), name, tokens);
    let mut lobby = Lobby::new(GameKind::Mille, target.to_string(), presets());
    // A spectator who leaves a table comes back here to choose another.
    loop {
        match game(session, &mut lobby, &target, &options, &data_dir, &stop)? {
            Some(back) => {
                session = back;
                // The list as it is now (the lobby's own refresh waits a
                // few seconds); the request that led to the table is done.
                lobby.asked = None;
                session.send(table_client::protocol::ClientMessage::List);
            }
            None => {
                if let Some(sig) = stop.signal() {
                    // A hangup or a signal in the lobby: nothing to keep,
                    // and nothing to print (the terminal may be gone).
                    std::process::exit(128 + sig.clamp(0, 127));
                }
                return Ok(());
            }
        }
    }
}

/// One round of the lobby and the game chosen there; the session back
/// when a spectator leaves the table for the lobby.
fn game(
    mut session: Session,
    lobby: &mut Lobby,
    target: &Target,
    options: &Options,
    data_dir: &Option<std::path::PathBuf>,
    stop: &Stop,
) -> anyhow::Result<Option<Session>> {
    let (options, data_dir) = (options.clone(), data_dir.clone());
    let choice = table_lobby::run(&mut session, lobby, stop).context("the terminal failed")?;
    let (table, seq, observation) = match choice {
        Choice::Quit => {
            if let Some(Failure::Unreachable { reason }) = session.failure() {
                bail!("{}", target.unreachable(&reason, "mille"));
            }
            return Ok(None);
        }
        Choice::Play {
            table,
            seq,
            observation,
            ..
        }
        | Choice::Watch {
            table,
            seq,
            observation,
        } => (table, seq, observation),
    };
    let observation: Observation = serde_json::from_value(observation)
        .context("the server's table cannot be read (is it another version of mille?)")?;
    let player = lobby.name.clone().unwrap_or_default();
    let settings = Setup {
        level: Level::Classic,
        player,
        save_path: None,
        options,
        ask_name: false,
    };
    let server = ServerTable::new(table, target.to_string());
    let model = Model::at_server(observation, settings, server)?;
    let host = RemoteHost::new(session, table, seq);
    // The pace is the server's (its --bot-delay): computer moves come as
    // they are made.
    let (model, ending) = app::run(
        model,
        host,
        Io { data_dir },
        std::time::Duration::ZERO,
        stop,
    )
    .context("the terminal failed")?;
    if let Ending::Lobby(session) = ending {
        return Ok(Some(*session));
    }
    if let Ending::Interrupted(i) = ending {
        // Written without `eprintln!`, which panics when the terminal is
        // gone.
        let _ = writeln!(
            std::io::stderr(),
            "mille: interrupted; the server keeps the game, and mille --connect {target} takes you back to it."
        );
        std::process::exit(128 + i.signal.clamp(0, 127));
    }
    if let Some(f) = model.farewell {
        println!("{f}");
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_a_game_the_engine_plays_with_computers_in_the_other_seats() {
        let presets = presets();
        assert_eq!(presets.len(), 5);
        for p in presets {
            let config: GameConfig = serde_json::from_value(p.setup.clone()).expect("a config");
            assert!(
                mille_engine::Rules::new(config).is_ok(),
                "{}: {config:?}",
                p.label
            );
            assert_eq!(p.seats, usize::from(config.players), "{}", p.label);
            assert_eq!(p.others.as_deref(), Some("classic"));
            assert!(Level::ALL.iter().any(|l| l.id() == OTHERS));
        }
    }

    #[test]
    fn the_team_presets_say_who_partners_whom() {
        let teams: Vec<Vec<Vec<usize>>> = presets().into_iter().map(|p| p.teams).collect();
        assert_eq!(
            teams,
            [
                vec![],
                vec![],
                vec![vec![0, 2], vec![1, 3]],
                vec![vec![0, 3], vec![1, 4], vec![2, 5]],
                vec![],
            ]
        );
    }

    #[test]
    fn an_unreachable_server_is_told_with_the_ways_on() {
        let tcp = Target::parse("127.0.0.1:8780").expect("tcp");
        let text = tcp.unreachable("Connection refused (os error 111)", "mille");
        assert!(
            text.starts_with("no table server answers at 127.0.0.1:8780 (Connection refused"),
            "{text}"
        );
        assert!(text.contains("`mille serve`"), "{text}");
        assert!(text.contains("mille --connect HOST[:PORT]"), "{text}");
        let unix = Target::Unix("/run/t.sock".into());
        let text = unix.unreachable("No such file or directory", "mille");
        assert!(
            text.starts_with(
                "no table server runs on this machine (nothing answers at its socket /run/t.sock"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_name_is_the_one_given_else_the_servers_else_the_players() {
        let mut options = Options::default();
        assert_eq!(
            server_name(Some(" ann "), true, &options).expect("a name"),
            Some("ann".into())
        );
        assert!(server_name(Some(" "), false, &options).is_err());
        assert_eq!(server_name(None, true, &options).expect("saved"), None);
        options.name = Some("bob".into());
        assert_eq!(
            server_name(None, false, &options).expect("a name"),
            Some("bob".into())
        );
    }
}
