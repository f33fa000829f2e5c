//! End-to-end: bots over the network against a real `mille serve` on the
//! loopback. The example Python bot (`docs/examples/mille_bot.py`) plays a
//! whole game against `classic` at a table a person opened for them;
//! `mille bot --connect --level random`, invited by a person's client,
//! plays a whole rated game against it, after coming back by itself from
//! the server's restart; a bot cut off in the middle of a game goes back to
//! its seat; a bot seated before the person plays once the person comes
//! (both bots); over TLS the bot trusts `--ca` and nothing else; a bot that
//! cannot play says why. Between hands the server waits a minute for its
//! players' `ready`: a bot that never says it is replaced by its stand-in
//! (and has abandoned), which the tests catch.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use table_protocol::{ClientMessage, ErrorCode, GameKind, ServerMessage};

const BIN: &str = env!("CARGO_BIN_EXE_mille");

/// How long a whole game may take on a loaded machine.
const GAME: Duration = Duration::from_secs(240);

mod server_support;
use server_support::{
    Client, Running, Server, bot_command, example_bot_command, free_addr, python_with_websockets,
};

/// `mille serve` at `addr` with its data in `data`: no pause after a
/// computer's move, a short coup-fourré window, and a minute's wait for
/// `ready` between hands. Returns once it listens.
fn serve(addr: SocketAddr, data: &std::path::Path) -> Server {
    serve_with(addr, data, &[])
}

/// [`serve`], with `extra` options.
fn serve_with(addr: SocketAddr, data: &std::path::Path, extra: &[&str]) -> Server {
    let arg = std::ffi::OsStr::new;
    let mut args = vec![
        arg("--coup-fourre-window"),
        arg("50"),
        arg("--hand-pause"),
        arg("60"),
        arg("--data"),
        data.as_os_str(),
    ];
    args.extend(extra.iter().map(|a| arg(a)));
    Server::start_at(addr, &args)
}

impl Client {
    /// Waits until the bot `name` is connected (the server lists it).
    async fn wait_for_bot(&mut self, name: &str) {
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            self.send(&ClientMessage::Bots).await;
            let bots = self
                .until(|m| match m {
                    ServerMessage::Bots { bots } => Some(bots.clone()),
                    _ => None,
                })
                .await;
            if bots.iter().any(|b| b.name == name) {
                return;
            }
            assert!(Instant::now() < end, "no bot {name} within a minute");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Opens a rated bsd table of `seats`, sitting at `sit`: its number.
    async fn create(&mut self, seats: Value, sit: Option<usize>) -> u64 {
        let create = json!({"type": "create", "game": "mille",
            "setup": {"rules": "bsd", "players": 2, "stacking": false},
            "seats": seats, "sit": sit, "rated": true});
        self.send(&ClientMessage::parse(&create.to_string()).expect("create"))
            .await;
        self.until(|m| match m {
            ServerMessage::Created { table, .. } => Some(table.id),
            ServerMessage::Error(e) => panic!("create refused: {e:?}"),
            _ => None,
        })
        .await
    }

    /// Plays the seat it holds at `table` until the game is over: a
    /// random legal move whenever it has one, `ready` between hands.
    async fn play_until_over(&mut self, table: u64) {
        let mut random = 0x2545_f491_4f6c_dd1d_u64;
        let mut id = 1_000;
        let mut done = None;
        loop {
            let (seq, observation) = match self.recv().await {
                ServerMessage::Joined {
                    table: t,
                    seq,
                    observation,
                    ..
                }
                | ServerMessage::Update {
                    table: t,
                    seq,
                    observation,
                    ..
                } if t == table => (seq, observation),
                // Sent before the invited bot took its seat, or while a
                // coup-fourré chance was open: the move is made again on
                // the next update (the bot's seat taken, the chance over).
                ServerMessage::Error(e)
                    if matches!(e.code, ErrorCode::Waiting | ErrorCode::NotYourTurn) =>
                {
                    done = None;
                    continue;
                }
                ServerMessage::Error(e) => panic!("refused: {e:?}"),
                _ => continue,
            };
            let status = observation["status"].clone();
            let mark = Some((seq, status.to_string()));
            if done == mark {
                continue;
            }
            match status["phase"].as_str() {
                Some("game_over") => return,
                Some("hand_over") => {
                    done = mark;
                    self.send(&ClientMessage::Ready { table }).await;
                }
                _ => {
                    let legal = observation["legal"].as_array().cloned().unwrap_or_default();
                    if legal.is_empty() {
                        continue;
                    }
                    done = mark;
                    random ^= random << 13;
                    random ^= random >> 7;
                    random ^= random << 17;
                    let action = legal[(random % legal.len() as u64) as usize].clone();
                    id += 1;
                    self.send(&ClientMessage::Move { table, id, action }).await;
                }
            }
        }
    }

    /// Watches `table` until its game is over.
    async fn watch_until_over(&mut self, table: u64) {
        self.send(&ClientMessage::Watch {
            table,
            code: None,
            since: None,
        })
        .await;
        self.until(|m| match m {
            ServerMessage::Watching { observation, .. }
            | ServerMessage::Update { observation, .. }
                if observation["status"]["phase"] == "game_over" =>
            {
                Some(())
            }
            ServerMessage::Error(e) => panic!("refused: {e:?}"),
            _ => None,
        })
        .await;
    }
}

/// `GET path` from the server: (status, body).
fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    // HTTP/1.0: the answer is not chunked, and ends with the connection.
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").expect("request");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).expect("answer");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").expect("head and body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, body.to_string())
}

/// The finished game's document (its result is written a moment after the
/// last update).
fn finished_game(addr: SocketAddr, table: u64) -> Value {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, body) = http_get(addr, &format!("/api/games/{table}"));
        if status == 200 {
            return serde_json::from_str(&body).expect("json");
        }
        assert!(Instant::now() < end, "{status}: {body}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The document's player named `name`.
fn player<'a>(game: &'a Value, name: &str) -> &'a Value {
    game["players"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == name))
        .unwrap_or_else(|| panic!("no player {name} in {game}"))
}

#[test]
fn the_example_python_bot_plays_a_whole_game_against_classic() {
    python_with_websockets();
    let data = tempfile::tempdir().expect("tempdir");
    let addr = free_addr();
    // At the server's own message rate (20 a second), as a bot meets it.
    let _server = serve_with(addr, data.path(), &["--rate", "20"]);
    // Its token file is written in its working directory.
    let home = tempfile::tempdir().expect("tempdir");
    let _bot = Running(
        example_bot_command(addr, "pybot", home.path())
            .args(["--owner", "tester"])
            .spawn()
            .expect("python3 starts"),
    );
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let table = runtime.block_on(async {
        tokio::time::timeout(GAME, async {
            let mut ann = Client::open(addr, "ann").await;
            ann.wait_for_bot("pybot").await;
            // No seat for the person who opens it: a bot against a computer.
            let table = ann
                .create(
                    json!([{"kind": "bot", "name": "pybot"}, {"kind": "computer", "level": "classic"}]),
                    None,
                )
                .await;
            ann.watch_until_over(table).await;
            table
        })
        .await
        .expect("the game ends in time")
    });
    let game = finished_game(addr, table);
    let bot = player(&game, "pybot");
    assert_eq!(bot["bot"], true, "{}", game["players"]);
    assert!(bot["score"].as_u64().is_some(), "{}", game["players"]);
    assert_eq!(
        bot["abandoned"], false,
        "it played to the end: {}",
        game["players"]
    );
    assert_eq!(
        bot["stand_in_moves"], 0,
        "it made every move: {}",
        game["players"]
    );
    let players = game["players"].as_array().expect("players");
    assert_eq!(players.len(), 2, "{}", game["players"]);
    assert!(
        players.iter().all(|p| p["score"].is_u64()),
        "{}",
        game["players"]
    );
    assert!(
        home.path().join("pybot.token").exists(),
        "the token is kept"
    );
}

/// The lines a child writes on standard error, gathered as they come.
fn gather(stream: impl std::io::Read + Send + 'static) -> Arc<Mutex<String>> {
    let lines = Arc::new(Mutex::new(String::new()));
    let into = Arc::clone(&lines);
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            eprintln!("[bot] {line}");
            if let Ok(mut all) = into.lock() {
                all.push_str(&line);
                all.push('\n');
            }
        }
    });
    lines
}

fn text(lines: &Arc<Mutex<String>>) -> String {
    lines.lock().map(|l| l.clone()).unwrap_or_default()
}

#[test]
fn a_builtin_level_comes_back_after_a_restart_and_plays_a_rated_game_when_invited() {
    let data = tempfile::tempdir().expect("tempdir");
    let addr = free_addr();
    let server = serve(addr, data.path());
    let keep = tempfile::tempdir().expect("tempdir");
    let mut child = bot_command(&addr.to_string(), "R", "random", keep.path())
        .args(["--owner", "tester"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("mille bot starts");
    let log = gather(child.stderr.take().expect("stderr"));
    let bot = Running(child);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let mut watcher = Client::open(addr, "watcher").await;
        watcher.wait_for_bot("R").await;
    });
    // The server goes down and comes back: the bot signs in again, with
    // the token it kept (its name is taken otherwise).
    drop(server);
    let _server = serve(addr, data.path());
    let (table, ladder) = runtime.block_on(async {
        tokio::time::timeout(GAME, async {
            let mut ann = Client::open(addr, "ann").await;
            ann.wait_for_bot("R").await;
            let table = ann
                .create(
                    json!([{"kind": "human"}, {"kind": "bot", "name": "R"}]),
                    Some(0),
                )
                .await;
            ann.play_until_over(table).await;
            // Rated: both players are on the ladder once the result is in.
            let end = Instant::now() + Duration::from_secs(30);
            let ladder = loop {
                ann.send(&ClientMessage::Ladder {
                    game: GameKind::Mille,
                    rules: Some("bsd".into()),
                    players: None,
                })
                .await;
                let entries = ann
                    .until(|m| match m {
                        ServerMessage::Ladder { entries, .. } => Some(entries.clone()),
                        _ => None,
                    })
                    .await;
                if entries.len() == 2 || Instant::now() > end {
                    break entries;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            };
            (table, ladder)
        })
        .await
        .expect("the game ends in time")
    });
    let game = finished_game(addr, table);
    for name in ["ann", "R"] {
        let p = player(&game, name);
        assert!(p["score"].as_u64().is_some(), "{}", game["players"]);
        assert_eq!(p["abandoned"], false, "{}", game["players"]);
        let rated = ladder
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("{name} is not on the ladder: {ladder:?}"));
        assert_eq!(rated.games, 1, "{rated:?}");
        assert_ne!(rated.rating, 1500, "the rating moved: {rated:?}");
        assert_eq!(rated.bot, name == "R", "{rated:?}");
    }
    assert_eq!(player(&game, "R")["bot"], true, "{}", game["players"]);
    assert_eq!(
        player(&game, "R")["stand_in_moves"],
        0,
        "{}",
        game["players"]
    );
    // One line when it starts, one when it ends; signed in twice.
    let end = Instant::now() + Duration::from_secs(10);
    while !text(&log).contains(&format!("table {table}: game ")) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    let said = text(&log);
    assert_eq!(said.matches("signed in at ").count(), 2, "{said}");
    // (Who sits at the other seat may not be known yet when the bot is
    // first shown the table: the person opening it sits a moment later.)
    assert!(
        said.contains(&format!(
            "table {table}: playing seat 2 at bsd, 2 players, against "
        )),
        "{said}"
    );
    let ending = format!("table {table}: game ");
    let verdict = said
        .lines()
        .find(|l| l.contains(&ending))
        .unwrap_or_else(|| panic!("no end line: {said}"));
    assert!(verdict.contains("ann "), "{verdict}");
    let won = player(&game, "R")["won"] == true;
    assert!(
        verdict.contains(if won { "game won: " } else { "game lost: " }),
        "{verdict}"
    );
    // SIGTERM: the bot stops, with status 0.
    let pid = bot.0.id().to_string();
    let status = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(status.success());
    let mut bot = bot;
    let end = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = bot.0.try_wait().expect("wait") {
            break status;
        }
        assert!(Instant::now() < end, "the bot did not stop");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0), "{}", text(&log));
    assert!(text(&log).contains("mille bot: stopped"), "{}", text(&log));
}

/// `mille bot ARGS` run to its end: (status, standard error).
fn bot_run(args: &[&str], data: &std::path::Path) -> (Option<i32>, String) {
    let out = Command::new(BIN)
        .arg("bot")
        .args(args)
        .env("GAMES_DATA_DIR", data)
        .stdin(Stdio::null())
        .output()
        .expect("mille bot runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_bot_that_cannot_play_says_why_and_exits_1() {
    let data = tempfile::tempdir().expect("tempdir");
    // Nothing listens there.
    let nobody = free_addr().to_string();
    let (status, err) = bot_run(&["--connect", &nobody, "--name", "R"], data.path());
    assert_eq!(status, Some(1), "{err}");
    assert!(err.contains("no table server answers at"), "{err}");
    // A person's name is not a bot's.
    let addr = free_addr();
    let _server = serve(addr, data.path());
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        Client::open(addr, "ann").await;
    });
    let (status, err) = bot_run(
        &["--connect", &addr.to_string(), "--name", "ann"],
        data.path(),
    );
    assert_eq!(status, Some(1), "{err}");
    assert!(
        err.contains(&format!("the table server at {addr} refused \"ann\": ")),
        "{err}"
    );
    assert!(err.contains("person's name"), "{err}");
    // Options it cannot use: said before connecting, status 2.
    let (status, err) = bot_run(&["--name", "R"], data.path());
    assert_eq!(status, Some(2), "{err}");
}

#[test]
fn a_bot_cut_off_in_the_middle_of_a_game_goes_back_to_its_seat_and_finishes_it() {
    let data = tempfile::tempdir().expect("tempdir");
    let addr = free_addr();
    let server = serve(addr, data.path());
    let keep = tempfile::tempdir().expect("tempdir");
    let mut child = bot_command(&addr.to_string(), "C", "classic", keep.path())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mille bot starts");
    let log = gather(child.stderr.take().expect("stderr"));
    let _bot = Running(child);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let table = runtime.block_on(async {
        tokio::time::timeout(GAME, async {
            let mut ann = Client::open(addr, "ann").await;
            ann.wait_for_bot("C").await;
            let table = ann
                .create(
                    json!([{"kind": "bot", "name": "C"}, {"kind": "computer", "level": "random"}]),
                    None,
                )
                .await;
            // Watched until the game is well on its way.
            ann.send(&ClientMessage::Watch {
                table,
                code: None,
                since: None,
            })
            .await;
            ann.until(|m| match m {
                ServerMessage::Update { seq, .. } if *seq >= 30 => Some(()),
                _ => None,
            })
            .await;
            table
        })
        .await
        .expect("the game starts in time")
    });
    // The server is killed in the middle of the game and comes back.
    drop(server);
    let _server = serve(addr, data.path());
    runtime.block_on(async {
        tokio::time::timeout(GAME, async {
            let mut bea = Client::open(addr, "bea").await;
            bea.watch_until_over(table).await;
        })
        .await
        .expect("the game ends in time")
    });
    let game = finished_game(addr, table);
    let bot = player(&game, "C");
    assert_eq!(bot["abandoned"], false, "{}", game["players"]);
    assert!(bot["score"].is_u64(), "{}", game["players"]);
    let end = Instant::now() + Duration::from_secs(10);
    while !text(&log).contains(&format!("table {table}: game ")) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
    }
    let said = text(&log);
    assert_eq!(said.matches("signed in at ").count(), 2, "{said}");
    assert_eq!(
        said.matches(&format!("table {table}: playing seat 1"))
            .count(),
        1,
        "{said}"
    );
    assert_eq!(
        said.matches(&format!("table {table}: game ")).count(),
        1,
        "{said}"
    );
}

/// The bot `name` (running) is invited to the first seat of a table whose
/// other seat is a person's, still free: its first move is refused (the
/// game waits), and once the person sits it plays, itself (a bot silent
/// past its decision time is played by a stand-in, away).
fn sits_before_the_person(addr: SocketAddr, name: &str) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        tokio::time::timeout(GAME, async {
            let mut ann = Client::open(addr, "ann").await;
            ann.wait_for_bot(name).await;
            let table = ann
                .create(
                    json!([{"kind": "bot", "name": name}, {"kind": "human"}]),
                    None,
                )
                .await;
            // The lobby shows the bot at its seat.
            loop {
                ann.send(&ClientMessage::List).await;
                let seated = ann
                    .until(|m| match m {
                        ServerMessage::Tables { tables } => {
                            Some(tables.iter().any(|t| t.id == table && t.seats[0].connected))
                        }
                        _ => None,
                    })
                    .await;
                if seated {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            // Time for its first move to be refused before the person sits.
            tokio::time::sleep(Duration::from_millis(500)).await;
            ann.send(&ClientMessage::Join {
                table,
                seat: Some(1),
                code: None,
                since: None,
            })
            .await;
            let seats = ann
                .until(|m| match m {
                    ServerMessage::Update { seq, seats, .. } if *seq >= 1 => Some(seats.clone()),
                    _ => None,
                })
                .await;
            assert!(!seats[0].away, "{seats:?}");
        })
        .await
        .expect("the bot moves in time")
    });
}

#[test]
fn a_bot_that_sits_before_the_person_plays_once_the_person_comes() {
    let data = tempfile::tempdir().expect("tempdir");
    let addr = free_addr();
    let _server = serve(addr, data.path());
    let keep = tempfile::tempdir().expect("tempdir");
    let _bot = Running(
        bot_command(&addr.to_string(), "R", "random", keep.path())
            .spawn()
            .expect("mille bot starts"),
    );
    sits_before_the_person(addr, "R");
}

#[test]
fn the_example_bot_too_plays_once_the_person_comes() {
    python_with_websockets();
    let data = tempfile::tempdir().expect("tempdir");
    let addr = free_addr();
    let _server = serve(addr, data.path());
    let home = tempfile::tempdir().expect("tempdir");
    let _bot = Running(
        example_bot_command(addr, "pybot", home.path())
            .spawn()
            .expect("python3 starts"),
    );
    sits_before_the_person(addr, "pybot");
}

#[test]
fn over_tls_the_bot_trusts_the_authority_it_is_given_and_no_other() {
    let root = tempfile::tempdir().expect("tempdir");
    let made = rcgen::generate_simple_self_signed(vec!["localhost".into()]).expect("a certificate");
    let cert = root.path().join("cert.pem");
    let key = root.path().join("key.pem");
    std::fs::write(&cert, made.cert.pem()).expect("write");
    std::fs::write(&key, made.signing_key.serialize_pem()).expect("write");
    let addr = free_addr();
    let _server = Running(
        Command::new(BIN)
            .args(["serve", "--listen", &addr.to_string(), "--no-socket"])
            .arg("--tls-cert")
            .arg(&cert)
            .arg("--tls-key")
            .arg(&key)
            .arg("--data")
            .arg(root.path().join("server"))
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("mille serve starts"),
    );
    let end = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < end, "the server did not start listening");
        std::thread::sleep(Duration::from_millis(50));
    }
    let address = format!("wss://localhost:{}", addr.port());
    // Not trusted without the authority: said at once, status 1.
    let (status, err) = bot_run(&["--connect", &address, "--name", "T"], root.path());
    assert_eq!(status, Some(1), "{err}");
    assert!(err.contains("cannot be trusted"), "{err}");
    // With it, the bot signs in (and stops on SIGTERM).
    let mut child = Command::new(BIN)
        .args(["bot", "--connect", &address, "--name", "T", "--ca"])
        .arg(&cert)
        .env("GAMES_DATA_DIR", root.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mille bot starts");
    let log = gather(child.stderr.take().expect("stderr"));
    let mut bot = Running(child);
    let signed = format!("signed in at {address} as T");
    let end = Instant::now() + Duration::from_secs(30);
    while !text(&log).contains(&signed) {
        assert!(Instant::now() < end, "{}", text(&log));
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = bot.0.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill")
            .success()
    );
    let end = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = bot.0.try_wait().expect("wait") {
            break status;
        }
        assert!(Instant::now() < end, "the bot did not stop");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0), "{}", text(&log));
}

#[test]
fn two_bots_play_a_four_player_classic_game_in_teams_with_computers() {
    let data = tempfile::tempdir().expect("tempdir");
    let addr = free_addr();
    let _server = serve(addr, data.path());
    let keep = tempfile::tempdir().expect("tempdir");
    let bot = |name: &str, level: &str| {
        Running(
            bot_command(&addr.to_string(), name, level, keep.path())
                .spawn()
                .expect("mille bot starts"),
        )
    };
    let _r = bot("R", "random");
    let _e = bot("E", "easy");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let table = runtime.block_on(async {
        tokio::time::timeout(GAME, async {
            let mut ann = Client::open(addr, "ann").await;
            ann.wait_for_bot("R").await;
            ann.wait_for_bot("E").await;
            let create = json!({"type": "create", "game": "mille",
                "setup": {"rules": "classic", "players": 4, "stacking": false},
                "seats": [{"kind": "bot", "name": "R"}, {"kind": "computer", "level": "classic"},
                          {"kind": "bot", "name": "E"}, {"kind": "computer", "level": "random"}],
                "rated": true});
            ann.send(&ClientMessage::parse(&create.to_string()).expect("create"))
                .await;
            let table = ann
                .until(|m| match m {
                    ServerMessage::Created { table, .. } => Some(table.id),
                    ServerMessage::Error(e) => panic!("create refused: {e:?}"),
                    _ => None,
                })
                .await;
            ann.watch_until_over(table).await;
            table
        })
        .await
        .expect("the game ends in time")
    });
    let game = finished_game(addr, table);
    for name in ["R", "E"] {
        let p = player(&game, name);
        assert_eq!(p["abandoned"], false, "{}", game["players"]);
        assert_eq!(p["stand_in_moves"], 0, "{}", game["players"]);
    }
}
