//! Two `mille serve` instances on one PostgreSQL database: people play at
//! tables spread over both, some of them through the instance that does
//! not run their table (forwarded); every instance lists every table. One
//! instance is killed with SIGKILL mid-hand, a move on its way: the other
//! takes its tables over within the lease time, the people come back
//! through it with their tokens, the move is applied once, every
//! acknowledged move is in the log under its number, and every game ends
//! with the results a replay of its log gives.
//!
//! Needs a PostgreSQL cluster: `TABLE_SERVER_TEST_POSTGRES` (see
//! `.ci/postgres`); without one the test says so and passes, unless
//! `TABLE_SERVER_REQUIRE_POSTGRES` is set (as `.ci/run` does).

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};
use table_protocol::{ClientMessage, ServerMessage, VERSION};
use table_server::store::StoredTable;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Seconds a lease lasts in this test.
const LEASE: u64 = 2;

mod server_support;
use server_support::Server;

/// Starts an instance on `database`, its data directory `data`.
fn start(database: &str, data: &Path) -> Server {
    start_at(None, database, data)
}

/// [`start`], at `addr` if given.
fn start_at(addr: Option<SocketAddr>, database: &str, data: &Path) -> Server {
    let os = std::ffi::OsStr::new;
    let lease = LEASE.to_string();
    // Every instance proves its links with the same secret.
    std::fs::create_dir_all(data).expect("data directory");
    let secret = data.join("link.secret");
    std::fs::write(&secret, "the instances' shared link secret\n").expect("secret");
    let args = [
        os("--database"),
        os(database),
        os("--data"),
        data.as_os_str(),
        os("--away"),
        os("600"),
        os("--lease"),
        os(&lease),
        os("--link-secret-file"),
        secret.as_os_str(),
    ];
    match addr {
        Some(addr) => Server::start_at(addr, &args),
        None => Server::start(&args),
    }
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What a read gave.
enum Heard {
    Msg(ServerMessage),
    Quiet,
    Closed,
}

/// One person at one table.
struct Seat {
    name: String,
    token: String,
    ws: Ws,
    table: u64,
    seq: u64,
    observation: Value,
    next_id: u64,
    /// (id, seq) of every acknowledged move.
    acks: Vec<(u64, u64)>,
}

async fn connect(addr: SocketAddr) -> Ws {
    tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .expect("connect")
        .0
}

async fn send(ws: &mut Ws, msg: &ClientMessage) {
    ws.send(Message::Text(msg.to_json().into()))
        .await
        .expect("send");
}

async fn hear(ws: &mut Ws, wait: Duration) -> Heard {
    loop {
        match tokio::time::timeout(wait, ws.next()).await {
            Err(_) => return Heard::Quiet,
            Ok(None) | Ok(Some(Err(_))) | Ok(Some(Ok(Message::Close(_)))) => return Heard::Closed,
            Ok(Some(Ok(Message::Text(t)))) => {
                return Heard::Msg(serde_json::from_str(t.as_str()).expect("a server message"));
            }
            Ok(Some(Ok(_))) => {}
        }
    }
}

async fn until<T>(ws: &mut Ws, mut pick: impl FnMut(&ServerMessage) -> Option<T>) -> T {
    loop {
        match hear(ws, Duration::from_secs(20)).await {
            Heard::Msg(m) => {
                if let ServerMessage::Error(e) = &m {
                    panic!("refused: {e:?}");
                }
                if let Some(t) = pick(&m) {
                    return t;
                }
            }
            Heard::Quiet => panic!("no answer within 20 s"),
            Heard::Closed => panic!("the connection closed"),
        }
    }
}

/// Signs in as `name` (with `token`, or registering).
async fn hello(addr: SocketAddr, name: &str, token: Option<&str>) -> (Ws, String) {
    let mut ws = connect(addr).await;
    send(
        &mut ws,
        &ClientMessage::Hello {
            version: VERSION,
            name: Some(name.into()),
            token: token.map(String::from),
            client: None,
            bot: None,
        },
    )
    .await;
    let token = until(&mut ws, |m| match m {
        ServerMessage::Welcome { token, .. } => Some(token.clone()),
        _ => None,
    })
    .await;
    (ws, token)
}

/// Joins `table` (again, with `since`): answers when the seat is taken.
async fn join(seat: &mut Seat, since: Option<u64>) {
    send(
        &mut seat.ws,
        &ClientMessage::Join {
            table: seat.table,
            seat: None,
            code: None,
            since,
        },
    )
    .await;
    let (seq, observation) = until(&mut seat.ws, |m| match m {
        ServerMessage::Joined {
            seq, observation, ..
        } => Some((*seq, observation.clone())),
        _ => None,
    })
    .await;
    seat.seq = seq;
    seat.observation = observation;
}

fn over(observation: &Value) -> bool {
    observation["status"]["phase"] == "game_over" || observation["winner"].is_number()
}

/// The move this test's people make: a cubes player banks whenever it
/// may (so that games end), a mille player plays the first legal move.
fn choose(observation: &Value) -> Option<Value> {
    let legal = observation["legal"].as_array()?;
    legal
        .iter()
        .find(|a| *a == "Hold")
        .or_else(|| legal.first())
        .cloned()
}

/// Plays whenever it is the seat's turn until `enough` (checked when it is
/// its turn), the game is over, nothing happens for a while (the table
/// waits for another person), or the connection closes. Answers false if
/// it closed.
async fn play(seat: &mut Seat, enough: impl Fn(&Seat) -> bool) -> bool {
    let mut acted = None;
    loop {
        if over(&seat.observation) {
            return true;
        }
        if let Some(action) = choose(&seat.observation)
            && acted != Some(seat.seq)
        {
            if enough(seat) {
                return true;
            }
            acted = Some(seat.seq);
            seat.next_id += 1;
            let msg = ClientMessage::Move {
                table: seat.table,
                id: seat.next_id,
                action,
            };
            send(&mut seat.ws, &msg).await;
        }
        match hear(&mut seat.ws, Duration::from_secs(3)).await {
            Heard::Msg(ServerMessage::Update {
                seq, observation, ..
            }) => {
                seat.seq = seq;
                seat.observation = observation;
            }
            Heard::Msg(ServerMessage::Ack { id, seq, .. }) => seat.acks.push((id, seq)),
            Heard::Msg(ServerMessage::Error(e)) => panic!("{}: refused: {e:?}", seat.name),
            Heard::Msg(_) => {}
            // Nothing for a while: the table waits for somebody else.
            Heard::Quiet => return true,
            Heard::Closed => return false,
        }
    }
}

async fn create(ws: &mut Ws, create: Value) -> u64 {
    send(
        ws,
        &ClientMessage::parse(&create.to_string()).expect("create"),
    )
    .await;
    until(ws, |m| match m {
        ServerMessage::Created { table, .. } => Some(table.id),
        _ => None,
    })
    .await
}

async fn listed(ws: &mut Ws) -> Vec<u64> {
    send(ws, &ClientMessage::List).await;
    until(ws, |m| match m {
        ServerMessage::Tables { tables } => Some(tables.iter().map(|t| t.id).collect()),
        _ => None,
    })
    .await
}

/// A finished table's log and results, read from the database.
async fn stored(db: &tokio_postgres::Client, id: u64) -> (StoredTable, Vec<(i64, bool)>, String) {
    let id = id as i64;
    let t = db
        .query_one(
            "SELECT game, setup, seed, status FROM tables WHERE id = $1",
            &[&id],
        )
        .await
        .expect("the table");
    let seats: Vec<(Option<String>, Option<String>)> = db
        .query(
            "SELECT level, owner FROM seats WHERE table_id = $1 ORDER BY seat",
            &[&id],
        )
        .await
        .expect("seats")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let moves = db
        .query(
            "SELECT seq, seat, action, client_id FROM moves WHERE table_id = $1 ORDER BY seq",
            &[&id],
        )
        .await
        .expect("moves")
        .iter()
        .enumerate()
        .map(|(k, r)| {
            assert_eq!(r.get::<_, i64>(0), k as i64 + 1, "the log has no gap");
            let action: String = r.get(2);
            (
                r.get::<_, Option<i64>>(1).map(|s| s as usize),
                serde_json::from_str(&action).expect("an action"),
                r.get::<_, Option<i64>>(3).map(|c| c as u64),
            )
        })
        .collect();
    let results = db
        .query(
            "SELECT score, won FROM results WHERE table_id = $1 ORDER BY seat",
            &[&id],
        )
        .await
        .expect("results")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let game: String = t.get(0);
    let setup: String = t.get(1);
    (
        StoredTable {
            id: id as u64,
            game: if game == "mille" {
                table_protocol::GameKind::Mille
            } else {
                table_protocol::GameKind::Cubes
            },
            setup: serde_json::from_str(&setup).expect("a setup"),
            seed: t.get::<_, i64>(2) as u64,
            code: None,
            seats,
            moves,
            rated: false,
            stand_in: Vec::new(),
            arena: None,
            bots: Vec::new(),
            bots_allowed: false,
        },
        results,
        t.get(3),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_survives_the_instance_that_ran_it() {
    let Some(cluster) = std::env::var("TABLE_SERVER_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        assert!(
            std::env::var_os("TABLE_SERVER_REQUIRE_POSTGRES").is_none(),
            "TABLE_SERVER_REQUIRE_POSTGRES is set and TABLE_SERVER_TEST_POSTGRES is not"
        );
        eprintln!("no PostgreSQL cluster (TABLE_SERVER_TEST_POSTGRES): not tested");
        return;
    };
    let name = format!(
        "instances_{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_nanos()
    );
    let url = table_server::store::create_database(&cluster, &name)
        .await
        .expect("a database");
    let (dir_a, dir_b) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    let a = start(&url, dir_a.path());
    let b = start(&url, dir_b.path());

    // Six people: mille tables against the computer on each instance;
    // cubes tables of two people, each with one person at the other
    // instance (forwarded).
    let mille = |rules: &str| {
        json!({"type": "create", "game": "mille", "setup": {"rules": rules, "players": 2},
            "seats": [{"kind": "human"}, {"kind": "computer", "level": "classic"}], "sit": 0})
    };
    let cubes = json!({"type": "create", "game": "cubes", "setup": {"game": "blitz"},
        "seats": [{"kind": "human"}, {"kind": "human"}], "sit": 0});
    let plan = [
        ("ann", a.addr, Some(mille("bsd"))),
        ("bob", b.addr, Some(mille("bsd"))),
        ("cat", b.addr, Some(cubes.clone())),
        ("dan", a.addr, None),
        ("eve", a.addr, Some(cubes)),
        ("fay", b.addr, None),
    ];
    let mut seats = Vec::new();
    for (k, (name, addr, table)) in plan.iter().enumerate() {
        let (mut ws, token) = hello(*addr, name, None).await;
        let table = match table {
            Some(setup) => create(&mut ws, setup.clone()).await,
            // Joins the table the person before opened.
            None => seats
                .iter()
                .map(|s: &Seat| s.table)
                .nth(k - 1)
                .expect("a table"),
        };
        let mut seat = Seat {
            name: name.to_string(),
            token,
            ws,
            table,
            seq: 0,
            observation: Value::Null,
            next_id: 1_000 * (k as u64 + 1),
            acks: Vec::new(),
        };
        join(&mut seat, None).await;
        seats.push(seat);
    }
    let tables: Vec<u64> = {
        let mut t: Vec<u64> = seats.iter().map(|s| s.table).collect();
        t.dedup();
        t
    };
    assert_eq!(tables.len(), 4);

    // Every instance lists every table (the other's within a second or
    // so).
    let (mut look_a, _) = hello(a.addr, "gus", None).await;
    let (mut look_b, _) = hello(b.addr, "hal", None).await;
    let started = Instant::now();
    loop {
        let (on_a, on_b) = (listed(&mut look_a).await, listed(&mut look_b).await);
        if tables.iter().all(|t| on_a.contains(t) && on_b.contains(t)) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "a lists {on_a:?}, b lists {on_b:?}, the tables are {tables:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop((look_a, look_b));

    // Mid-hand: every person plays a few moves, all at once.
    let mut tasks = Vec::new();
    for mut seat in seats {
        tasks.push(tokio::spawn(async move {
            assert!(
                play(&mut seat, |s| s.acks.len() >= 8).await,
                "{}",
                seat.name
            );
            seat
        }));
    }
    let mut seats = Vec::new();
    for t in tasks {
        seats.push(t.await.expect("a player"));
    }
    // Bob's next move is on its way when b dies.
    let bob = &mut seats[1];
    let in_flight = choose(&bob.observation).expect("bob is to play");
    bob.next_id += 1;
    let in_flight_id = bob.next_id;
    let msg = ClientMessage::Move {
        table: bob.table,
        id: in_flight_id,
        action: in_flight.clone(),
    };
    send(&mut bob.ws, &msg).await;
    b.kill();
    let killed = Instant::now();

    // Everybody whose table b ran, or who was connected to b, finds the
    // connection closed (dan's too: a forwarded it to b) and comes back
    // through a, all at once.
    let a_addr = a.addr;
    let mut tasks = Vec::new();
    for mut seat in seats {
        tasks.push(tokio::spawn(async move {
            let mut gone = false;
            loop {
                match hear(&mut seat.ws, Duration::from_millis(1500)).await {
                    Heard::Closed => {
                        gone = true;
                        break;
                    }
                    Heard::Quiet => break,
                    // What was on its way before the end.
                    Heard::Msg(ServerMessage::Ack { id, seq, .. }) => seat.acks.push((id, seq)),
                    Heard::Msg(ServerMessage::Update {
                        seq, observation, ..
                    }) => {
                        seat.seq = seq;
                        seat.observation = observation;
                    }
                    Heard::Msg(_) => {}
                }
            }
            let mut back = None;
            if gone {
                let (ws, token) = hello(a_addr, &seat.name, Some(&seat.token)).await;
                assert_eq!(token, seat.token);
                seat.ws = ws;
                let seen = seat.seq;
                join(&mut seat, Some(seen)).await;
                back = Some(killed.elapsed());
            }
            (seat, back)
        }));
    }
    let mut rejoin_times = Vec::new();
    let mut seats = Vec::new();
    for t in tasks {
        let (seat, back) = t.await.expect("a player");
        if let Some(took) = back {
            rejoin_times.push((seat.name.clone(), took));
        }
        seats.push(seat);
    }
    eprintln!("back at their tables after the kill: {rejoin_times:?}");
    let closed: Vec<&str> = rejoin_times.iter().map(|(n, _)| n.as_str()).collect();
    for name in ["bob", "cat", "dan", "fay"] {
        assert!(closed.contains(&name), "{name} came back ({closed:?})");
    }
    for (name, took) in &rejoin_times {
        assert!(
            *took < Duration::from_secs(LEASE + 4),
            "{name} played again {took:?} after the kill (lease {LEASE} s)"
        );
    }

    // Bob sends the move again: applied once, whether b wrote it or not.
    let bob = &mut seats[1];
    let msg = ClientMessage::Move {
        table: bob.table,
        id: in_flight_id,
        action: in_flight,
    };
    send(&mut bob.ws, &msg).await;
    let seq = until(&mut bob.ws, |m| match m {
        ServerMessage::Ack { id, seq, .. } if *id == in_flight_id => Some(*seq),
        _ => None,
    })
    .await;
    if !bob.acks.iter().any(|(id, _)| *id == in_flight_id) {
        bob.acks.push((in_flight_id, seq));
    }
    if seq > bob.seq {
        // Applied only now: its update follows the ack.
        let (seq, observation) = until(&mut bob.ws, |m| match m {
            ServerMessage::Update {
                seq: s,
                observation,
                ..
            } if *s >= seq => Some((*s, observation.clone())),
            _ => None,
        })
        .await;
        bob.seq = seq;
        bob.observation = observation;
    }

    // Every game to its end.
    let mut tasks = Vec::new();
    for mut seat in seats {
        tasks.push(tokio::spawn(async move {
            let deadline = Instant::now() + Duration::from_secs(240);
            while !over(&seat.observation) {
                assert!(
                    Instant::now() < deadline,
                    "{}'s game did not end",
                    seat.name
                );
                assert!(play(&mut seat, |_| false).await, "{}: closed", seat.name);
            }
            seat
        }));
    }
    let mut seats = Vec::new();
    for t in tasks {
        seats.push(t.await.expect("a player"));
    }

    // The database: every acknowledged move under its number, once; every
    // result what the log replays to.
    let (db, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("the database");
    tokio::spawn(connection);
    for &table in &tables {
        // The last move's update shows the end a moment before the table
        // records it.
        let mut waited = 0;
        let (log, results) = loop {
            let (log, results, status) = stored(&db, table).await;
            if status == "over" {
                break (log, results);
            }
            waited += 1;
            assert!(waited < 50, "table {table} is {status}, its game over");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        // The sequence number counts the moves everybody sees: all but a
        // declined coup fourré.
        let mut seq_of = Vec::new();
        let mut public = 0;
        for (_, action, _) in &log.moves {
            if action != "decline" {
                public += 1;
            }
            seq_of.push(public);
        }
        for seat in seats.iter().filter(|s| s.table == table) {
            for (id, seq) in &seat.acks {
                let at: Vec<usize> = log
                    .moves
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| m.2 == Some(*id))
                    .map(|(k, _)| k)
                    .collect();
                assert_eq!(at.len(), 1, "{}'s move {id} is in the log once", seat.name);
                assert_eq!(seq_of[at[0]], *seq, "{}'s move {id}'s number", seat.name);
            }
        }
        let replayed = table_server::games::replay_results(&log)
            .expect("the log replays")
            .expect("to a finished game");
        let replayed: Vec<(i64, bool)> = replayed.iter().map(|r| (r.score, r.won)).collect();
        assert_eq!(results, replayed, "table {table}'s results");
    }
    // The scores are the database's: the rankings, asked of a new
    // instance with an empty data directory, name every player.
    let dir_c = tempfile::tempdir().expect("dir");
    let c = start(&url, dir_c.path());
    let (mut look, _) = hello(c.addr, "ivy", None).await;
    // (Mille Bornes high scores name the winners: both games' are there.)
    for (game, names) in [
        (
            table_protocol::GameKind::Cubes,
            &["cat", "dan", "eve", "fay"][..],
        ),
        (table_protocol::GameKind::Mille, &["(bsd)"][..]),
    ] {
        send(
            &mut look,
            &ClientMessage::Rankings {
                game,
                kind: Some("Blitz".into()),
                min_games: Some(1),
            },
        )
        .await;
        let text = until(&mut look, |m| match m {
            ServerMessage::Rankings { text, .. } => Some(text.clone()),
            _ => None,
        })
        .await;
        for name in names {
            assert!(text.contains(name), "{name} in the rankings:\n{text}");
        }
        if game == table_protocol::GameKind::Mille {
            assert!(text.matches("(bsd)").count() >= 2, "two games:\n{text}");
        }
    }
    drop((a, c));
}

/// An instance killed and started again at once at the same address (a
/// supervisor restarting it) has its tables back at once: its old leases
/// are its own, and nobody is sent to its old self (which would be itself).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instance_restarted_where_it_was_takes_its_tables_back_at_once() {
    let Some(cluster) = std::env::var("TABLE_SERVER_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        assert!(
            std::env::var_os("TABLE_SERVER_REQUIRE_POSTGRES").is_none(),
            "TABLE_SERVER_REQUIRE_POSTGRES is set and TABLE_SERVER_TEST_POSTGRES is not"
        );
        eprintln!("no PostgreSQL cluster (TABLE_SERVER_TEST_POSTGRES): not tested");
        return;
    };
    let name = format!(
        "restarted_{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_nanos()
    );
    let url = table_server::store::create_database(&cluster, &name)
        .await
        .expect("a database");
    let (dir_a, dir_b) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    let _a = start(&url, dir_a.path());
    let b = start(&url, dir_b.path());
    let b_addr = b.addr;
    let (mut ws, token) = hello(b_addr, "ann", None).await;
    let setup = json!({"type": "create", "game": "mille", "setup": {"rules": "bsd", "players": 2},
        "seats": [{"kind": "human"}, {"kind": "computer", "level": "classic"}], "sit": 0});
    let table = create(&mut ws, setup).await;
    let mut seat = Seat {
        name: "ann".into(),
        token: token.clone(),
        ws,
        table,
        seq: 0,
        observation: Value::Null,
        next_id: 1,
        acks: Vec::new(),
    };
    join(&mut seat, None).await;
    assert!(play(&mut seat, |s| s.acks.len() >= 3).await);
    b.kill();
    let b = start_at(Some(b_addr), &url, dir_b.path());
    let started = Instant::now();
    let (ws, _) = hello(b.addr, "ann", Some(&token)).await;
    seat.ws = ws;
    let seen = seat.seq;
    join(&mut seat, Some(seen)).await;
    assert!(
        started.elapsed() < Duration::from_secs(LEASE),
        "back at the table {:?} after the restart (lease {LEASE} s)",
        started.elapsed()
    );
    assert_eq!(seat.seq, seen, "the table is where it was");
    assert!(play(&mut seat, |s| s.acks.len() >= 6).await, "it goes on");
}
