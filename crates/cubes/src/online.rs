//! Cubes at a table server (`cubes serve`, here or on another machine):
//! `cubes --connect` plays there through the server's lobby and the same
//! full screen as a game here; `cubes stat --connect` and `cubes rank
//! --connect` ask the server who plays now and how everybody ranks.

use crate::Jokers;
use anyhow::{Context, Result, anyhow, bail};
use cubes_engine::Settings;
use cubes_tui::{App, Stop, Ttys};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use table_client::protocol::{
    ClientMessage, ErrorCode, GameKind, SeatKindSummary, SeatSummary, ServerMessage, TableStatus,
    TableSummary,
};
use table_client::{ClientError, Connection, Credentials, Failure, Session, Target, TokenStore};
use table_lobby::{Choice, Lobby, Preset};

/// The fewest and most seats the lobby's new tables offer.
const SEATS: std::ops::RangeInclusive<usize> = 2..=6;

/// The computer player that fills the other seats of a new table until the
/// player makes them people's places.
const OTHERS: &str = "steady";

/// How long a one-shot question may wait for its answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// The server's name for a kind of game and its dice, as a table's setup
/// says them.
fn setup(blitz: bool, jokers: Jokers) -> serde_json::Value {
    serde_json::json!({
        "game": if blitz { "blitz" } else { "standard" },
        "jokers": match jokers {
            Jokers::Never => "never",
            Jokers::Sometimes => "sometimes",
            Jokers::Always => "always",
        },
    })
}

/// The tables a player can open: Standard and Blitz games (the kind asked
/// for on the command line first) for 2 to 6 seats, the others played by a
/// steady computer until the form makes them people's places.
pub fn presets(blitz: bool, jokers: Jokers) -> Vec<Preset> {
    let jokers_words = match jokers {
        Jokers::Never => "",
        Jokers::Sometimes => ", jokers sometimes",
        Jokers::Always => ", jokers",
    };
    let kinds = if blitz { [true, false] } else { [false, true] };
    kinds
        .into_iter()
        .flat_map(|b| {
            let settings = if b {
                Settings::blitz()
            } else {
                Settings::standard()
            };
            SEATS.map(move |n| Preset {
                label: format!(
                    "{} to {}, {n} players{jokers_words}",
                    settings.name,
                    cubes_tui::app::points(settings.target)
                ),
                setup: setup(b, jokers),
                seats: n,
                others: Some(OTHERS.to_string()),
                // Everyone plays for themselves.
                teams: Vec::new(),
            })
        })
        .collect()
}

/// `cubes --connect`: the lobby, then the game at the chosen table, full
/// screen. The exit code is 128 + the signal's number when a signal ended
/// it, else success.
/// A TLS server's certificate is checked against the authority in `ca`
/// if one is given, else against the system's roots.
pub fn play(
    address: &str,
    ca: Option<&Path>,
    name: String,
    blitz: bool,
    jokers: Jokers,
) -> Result<ExitCode> {
    let target = Target::parse_trusting(address, ca)?;
    let tokens = TokenStore::open_default()?;
    let stop = Stop::install().context("cannot catch signals")?;
    let ttys = Ttys::now();
    let server = target.to_string();
    let mut session = Session::start(target.clone(), Some(name), tokens);
    let mut lobby = Lobby::new(GameKind::Cubes, server.clone(), presets(blitz, jokers));
    let choice = table_lobby::run(&mut session, &mut lobby, &stop).context("the lobby")?;
    let (table, seat, seq, observation) = match choice {
        Choice::Quit => {
            if let Some(Failure::Unreachable { reason }) = session.failure() {
                eprintln!("cubes: {}", target.unreachable(&reason, "cubes"));
                return Ok(ExitCode::FAILURE);
            }
            return Ok(match stop.signal() {
                Some(sig) => signal_code(sig),
                None => ExitCode::SUCCESS,
            });
        }
        Choice::Play {
            table,
            seat,
            seq,
            observation,
        } => (table, Some(seat), seq, observation),
        Choice::Watch {
            table,
            seq,
            observation,
        } => (table, None, seq, observation),
    };
    let mut app = App::remote(server.clone(), table, seat, seq, observation)?;
    // The seats (who is here, who is awaited) come with the list until the
    // first update.
    session.send(ClientMessage::List);
    let outcome = cubes_tui::term::run_at(&mut app, &session, &stop);
    // Leaving before the game starts frees the seat; after, it stays the
    // player's (a computer plays it while they are away).
    session.send(ClientMessage::Leave { table });
    drop(session);
    if stop.signal().is_none() && ttys.closed() {
        stop.end_as(cubes_tui::signals::HANGUP);
    }
    if let Some(sig) = stop.signal() {
        // Nothing to print: after a hangup there is no terminal.
        return Ok(signal_code(sig));
    }
    outcome?;
    // The commands shown are the ones that work: with the authority given.
    let trusting = ca.map_or_else(String::new, |ca| format!(" --ca {}", ca.display()));
    match app.obs.view.winner {
        Some(w) => println!(
            "{} won at table {table}. `cubes rank --connect {server}{trusting}{}` shows the rankings.",
            app.name(w),
            if app.obs.view.settings.name == Settings::blitz().name {
                " --blitz"
            } else {
                ""
            }
        ),
        None if seat.is_some() => println!(
            "You left table {table} at {server}; the game goes on. `cubes --connect {server}{trusting}` takes you back to your seat."
        ),
        None => {}
    }
    Ok(ExitCode::SUCCESS)
}

/// The shell's exit code for a signal.
fn signal_code(sig: i32) -> ExitCode {
    ExitCode::from(128u8.saturating_add(sig.clamp(0, 127) as u8))
}

/// `cubes stat --connect`: the cubes games waiting or playing at the
/// server, and who is in each (only `name`'s, if given).
pub fn stat(address: &str, ca: Option<&Path>, me: &str, name: Option<&str>) -> Result<()> {
    let target = Target::parse_trusting(address, ca)?;
    let answer = ask(&target, me, ClientMessage::List, |m| {
        matches!(m, ServerMessage::Tables { .. })
    })?;
    let ServerMessage::Tables { tables } = answer else {
        bail!("the table server at {target} answered something else than its tables");
    };
    print!("{}", tables_text(&target.to_string(), &tables, name));
    Ok(())
}

/// The cubes games in progress, a table a paragraph.
pub fn tables_text(server: &str, tables: &[TableSummary], name: Option<&str>) -> String {
    let shown: Vec<&TableSummary> = tables
        .iter()
        .filter(|t| t.game == GameKind::Cubes && t.status != TableStatus::Over)
        .filter(|t| name.is_none_or(|n| t.seats.iter().any(|s| s.player.as_deref() == Some(n))))
        .collect();
    if shown.is_empty() {
        return match name {
            Some(n) => format!("{n} is not at a cubes table at {server} now.\n"),
            None => format!(
                "Nobody is playing cubes at {server} now. `cubes --connect {server}` opens a table.\n"
            ),
        };
    }
    let mut out = format!("Cubes games at {server}:\n");
    for t in shown {
        let status = match t.status {
            TableStatus::Waiting => {
                let free = t
                    .seats
                    .iter()
                    .filter(|s| s.kind == SeatKindSummary::Human && s.player.is_none())
                    .count();
                // An invited bot's seat is not free: the table waits for
                // the bot to accept.
                let mut awaited: Vec<String> = Vec::new();
                if free > 0 || t.seats.iter().all(|s| !s.invited) {
                    awaited.push(format!(
                        "{free} more {}",
                        if free == 1 { "person" } else { "people" }
                    ));
                }
                awaited.extend(
                    t.seats
                        .iter()
                        .filter(|s| s.invited)
                        .filter_map(|s| s.player.as_ref())
                        .map(|p| format!("{p} (bot) to accept")),
                );
                format!("waiting for {}", awaited.join(" and "))
            }
            TableStatus::Playing => "playing".to_string(),
            TableStatus::Over => "over".to_string(),
        };
        let watching = match t.spectators {
            0 => String::new(),
            n => format!(", {n} watching"),
        };
        let private = if t.private { ", private" } else { "" };
        out.push_str(&format!(
            "table {} ({}{private}): {status}{watching}\n",
            t.id, t.ruleset
        ));
        for (k, s) in t.seats.iter().enumerate() {
            out.push_str(&format!("  seat {}  {}\n", k + 1, seat_text(s)));
        }
    }
    out
}

/// Who is in a seat, in words.
fn seat_text(s: &SeatSummary) -> String {
    let level = s.level.as_deref().unwrap_or("computer");
    match (s.kind, &s.player) {
        (SeatKindSummary::Computer, _) => format!("computer ({level})"),
        (SeatKindSummary::Human, None) => "free".to_string(),
        (SeatKindSummary::Human, Some(p)) if s.bot => {
            let state = if s.invited {
                ", invited".to_string()
            } else if s.away {
                format!(", away: a {level} computer plays for now")
            } else if !s.connected {
                ", not connected".to_string()
            } else {
                String::new()
            };
            format!("{p} (bot{state})")
        }
        (SeatKindSummary::Human, Some(p)) if s.away => {
            format!("{p} (away: a {level} computer plays for now)")
        }
        (SeatKindSummary::Human, Some(p)) if !s.connected => format!("{p} (not connected)"),
        (SeatKindSummary::Human, Some(p)) => p.clone(),
    }
}

/// `cubes rank --connect`: the server's rankings of its cubes games, then
/// its ratings of the same kind of game (`jokers`: of the games with
/// Jokers dice, whatever their kind). A server that keeps no ratings says
/// so under the rankings, which are still shown.
pub fn rank(
    address: &str,
    ca: Option<&Path>,
    me: &str,
    min_games: u32,
    blitz: bool,
    jokers: bool,
) -> Result<()> {
    let target = Target::parse_trusting(address, ca)?;
    let kind = if blitz {
        Settings::blitz().name
    } else {
        Settings::standard().name
    };
    let rankings = ClientMessage::Rankings {
        game: GameKind::Cubes,
        kind: Some(kind),
        min_games: Some(min_games),
    };
    let ladder = ClientMessage::Ladder {
        game: GameKind::Cubes,
        rules: Some(ladder_rules(blitz, jokers).to_string()),
        players: None,
    };
    let mut answers = ask_each(
        &target,
        me,
        vec![
            (rankings, &is_rankings as &dyn Fn(&ServerMessage) -> bool),
            (ladder, &is_ladder),
        ],
    )?
    .into_iter();
    let text = match answers.next() {
        Some(Ok(ServerMessage::Rankings { text, .. })) => text,
        Some(Err(why)) => bail!("the table server at {target} refused: {why}"),
        _ => bail!("the table server at {target} answered something else than its rankings"),
    };
    print!("{text}");
    println!();
    match answers.next() {
        Some(Ok(ServerMessage::Ladder { title, entries, .. })) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64);
            print!(
                "Ratings: {}",
                table_client::ladder::ladder_text(&title, &target.to_string(), &entries, now)
            );
        }
        Some(Err(why)) => println!("Ratings: the table server at {target} shows none: {why}"),
        _ => println!("Ratings: the table server at {target} did not show them"),
    }
    Ok(())
}

/// The rating category's ruleset for a kind of cubes game, as `ladder`
/// names it: Jokers dice make a category of their own.
pub fn ladder_rules(blitz: bool, jokers: bool) -> &'static str {
    match (jokers, blitz) {
        (true, _) => "jokers",
        (false, true) => "blitz",
        (false, false) => "standard",
    }
}

fn is_rankings(m: &ServerMessage) -> bool {
    matches!(m, ServerMessage::Rankings { .. })
}

fn is_ladder(m: &ServerMessage) -> bool {
    matches!(m, ServerMessage::Ladder { .. })
}

/// Asks the server one question and returns the answer `wanted` picks (a
/// refusal is an error). Says `hello` as the player this program plays
/// there (its saved name and token), else under `me`, whose new token is
/// then kept for the games to come.
fn ask(
    target: &Target,
    me: &str,
    request: ClientMessage,
    wanted: impl Fn(&ServerMessage) -> bool,
) -> Result<ServerMessage> {
    let answers = ask_each(
        target,
        me,
        vec![(request, &wanted as &dyn Fn(&ServerMessage) -> bool)],
    )?;
    match answers.into_iter().next() {
        Some(Ok(m)) => Ok(m),
        Some(Err(why)) => Err(anyhow!("the table server at {target} refused: {why}")),
        None => Err(anyhow!("the table server at {target} did not answer")),
    }
}

/// Asks the server several questions on one connection, one after the
/// other: for each, the answer its `wanted` picks, or the server's
/// sentence refusing it. Signing in is as for [`ask`]; failing to reach
/// the server, to sign in or to hear the first answer is an error. A
/// later question whose answer does not come (the connection broke, or
/// no answer in time) gets the sentence that says so, and no question
/// is asked after it.
fn ask_each<F: Fn(&ServerMessage) -> bool + ?Sized>(
    target: &Target,
    me: &str,
    requests: Vec<(ClientMessage, &F)>,
) -> Result<Vec<std::result::Result<ServerMessage, String>>> {
    let tokens = TokenStore::open_default()?;
    let saved = tokens.get(target)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the connection's runtime")?;
    runtime.block_on(async {
        let mut conn = Connection::open(target).await?;
        // A token kept for this machine goes only where this machine is.
        let saved = saved.filter(|_| conn.reaches_its_target());
        let welcome = match &saved {
            Some(c) => conn.hello(Some(&c.name), Some(&c.token)).await,
            None => conn.hello(Some(me), None).await,
        }
        .map_err(|e| refused_hello(e, target, saved.as_ref().map_or(me, |c| &c.name)))?;
        if saved.as_ref().is_none_or(|c| c.token != welcome.token) {
            // Not keeping it would lose the name just registered: only a
            // warning, the answer is still worth giving.
            let kept = Credentials {
                name: welcome.name.clone(),
                token: welcome.token.clone(),
            };
            if let Err(e) = tokens.set(target, kept) {
                eprintln!("cubes: warning: {e}");
            }
        }
        let mut answers = Vec::new();
        for (k, (request, wanted)) in requests.into_iter().enumerate() {
            match question(&mut conn, target, &request, wanted).await {
                Ok(answer) => answers.push(answer),
                Err(e) if k == 0 => return Err(e),
                Err(e) => {
                    // The answers had so far are still worth showing; the
                    // connection is in no state for more questions.
                    answers.push(Err(format!("{e:#}")));
                    return Ok(answers);
                }
            }
        }
        conn.close().await;
        Ok(answers)
    })
}

/// Sends `request` and waits for the answer `wanted` picks, or the
/// server's refusal of it (the server answers a connection's messages in
/// order, so a refusal that comes now is this request's).
async fn question<F: Fn(&ServerMessage) -> bool + ?Sized>(
    conn: &mut Connection,
    target: &Target,
    request: &ClientMessage,
    wanted: &F,
) -> Result<std::result::Result<ServerMessage, String>> {
    conn.send(request).await?;
    let answer = tokio::time::timeout(ANSWER_TIMEOUT, async {
        loop {
            match conn.recv().await? {
                ServerMessage::Error(e) => return Ok::<_, ClientError>(Err(e.message)),
                m if wanted(&m) => return Ok(Ok(m)),
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
    })??;
    Ok(answer)
}

/// A refused `hello`, with what to do about it.
fn refused_hello(e: ClientError, target: &Target, name: &str) -> anyhow::Error {
    match &e {
        ClientError::Refused(body) if body.code == ErrorCode::NameTaken => anyhow!(
            "the name {name:?} belongs to another player at {target}: ask under your own name, as in `cubes stat --connect {target}` after `cubes --connect {target} NAME`"
        ),
        _ => anyhow::Error::new(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(player: Option<&str>, kind: SeatKindSummary, away: bool) -> SeatSummary {
        SeatSummary {
            kind,
            level: (kind == SeatKindSummary::Computer || away).then(|| "steady".to_string()),
            player: player.map(str::to_string),
            connected: player.is_some() && !away,
            away,
            rating: None,
            stand_in_in: None,
            bot: false,
            invited: false,
        }
    }

    fn table(id: u64, status: TableStatus, seats: Vec<SeatSummary>) -> TableSummary {
        TableSummary {
            id,
            game: GameKind::Cubes,
            ruleset: format!("blitz, {} players", seats.len()),
            setup: serde_json::Value::Null,
            seats,
            status,
            private: false,
            spectators: 1,
            seq: 3,
            rated: false,
            arena: None,
            bots: false,
        }
    }

    #[test]
    fn the_tables_say_who_sits_where() {
        use SeatKindSummary::{Computer, Human};
        let tables = vec![
            table(
                1,
                TableStatus::Playing,
                vec![
                    seat(Some("ann"), Human, false),
                    seat(Some("bob"), Human, true),
                    seat(None, Computer, false),
                ],
            ),
            table(
                2,
                TableStatus::Waiting,
                vec![seat(Some("cid"), Human, false), seat(None, Human, false)],
            ),
            table(3, TableStatus::Over, vec![seat(Some("dan"), Human, false)]),
            table(
                4,
                TableStatus::Waiting,
                vec![
                    seat(Some("eve"), Human, false),
                    SeatSummary {
                        bot: true,
                        invited: true,
                        connected: false,
                        ..seat(Some("robo"), Human, false)
                    },
                ],
            ),
            table(
                5,
                TableStatus::Playing,
                vec![
                    SeatSummary {
                        bot: true,
                        ..seat(Some("dicey"), Human, false)
                    },
                    SeatSummary {
                        bot: true,
                        ..seat(Some("slow"), Human, true)
                    },
                ],
            ),
        ];
        let text = tables_text("host:1", &tables, None);
        assert_eq!(
            text,
            "Cubes games at host:1:\n\
             table 1 (blitz, 3 players): playing, 1 watching\n\
             \x20 seat 1  ann\n\
             \x20 seat 2  bob (away: a steady computer plays for now)\n\
             \x20 seat 3  computer (steady)\n\
             table 2 (blitz, 2 players): waiting for 1 more person, 1 watching\n\
             \x20 seat 1  cid\n\
             \x20 seat 2  free\n\
             table 4 (blitz, 2 players): waiting for robo (bot) to accept, 1 watching\n\
             \x20 seat 1  eve\n\
             \x20 seat 2  robo (bot, invited)\n\
             table 5 (blitz, 2 players): playing, 1 watching\n\
             \x20 seat 1  dicey (bot)\n\
             \x20 seat 2  slow (bot, away: a steady computer plays for now)\n"
        );
        let only = tables_text("host:1", &tables, Some("cid"));
        assert!(
            only.contains("table 2") && !only.contains("table 1"),
            "{only}"
        );
        assert_eq!(
            tables_text("host:1", &tables, Some("dan")),
            "dan is not at a cubes table at host:1 now.\n"
        );
        assert!(tables_text("host:1", &[], None).starts_with("Nobody is playing cubes"));
    }

    #[test]
    fn presets_offer_both_games_for_two_to_six_with_computers_in_the_other_seats() {
        let p = presets(true, Jokers::Never);
        assert_eq!(p.len(), 10);
        assert_eq!(p[0].label, "Blitz to 7,500, 2 players");
        assert_eq!(p[1].seats, 3);
        assert_eq!(p[5].label, "Standard to 10,000, 2 players");
        assert!(p.iter().all(|p| p.others.as_deref() == Some(OTHERS)));
        assert_eq!(
            p[0].setup,
            serde_json::json!({"game": "blitz", "jokers": "never"})
        );
        let q = presets(false, Jokers::Sometimes);
        assert_eq!(
            q[0].label,
            "Standard to 10,000, 2 players, jokers sometimes"
        );
        // Every setup is one the server takes, for every number of seats.
        use table_server::games::ServerGame;
        for p in q.iter().chain(&p).chain(&presets(false, Jokers::Always)) {
            let setup = cubes_engine::Cubes::setup(&p.setup).expect(&p.label);
            cubes_engine::Cubes::check_seats(&setup, p.seats).expect(&p.label);
        }
    }
}
