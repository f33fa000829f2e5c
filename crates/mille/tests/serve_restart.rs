//! `mille serve` killed with SIGKILL in the middle of a hand loses nothing
//! it acknowledged: after a restart on the same data directory the player
//! comes back with its token, takes its seat back with `since`, finds every
//! acknowledged move in the log under its number and its hand as it was,
//! a move sent again is not applied twice, and the game is played to its
//! end.

use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};
use table_protocol::{ClientMessage, SeatRef, ServerMessage, VERSION};

mod server_support;
use server_support::{Client, Server};

/// Starts a server on the data directory `data`.
fn serve_on(data: &Path) -> Server {
    let env = std::ffi::OsStr::new;
    Server::start(&[env("--data"), data.as_os_str()])
}

fn legal(observation: &Value) -> Vec<Value> {
    observation["legal"].as_array().cloned().unwrap_or_default()
}

fn hand(observation: &Value) -> Vec<String> {
    let mut hand: Vec<String> = observation["hand"]
        .as_array()
        .expect("a hand")
        .iter()
        .filter_map(|c| c.as_str().map(String::from))
        .collect();
    hand.sort();
    hand
}

/// Where a seat's game stands, as its client knows it.
struct Play {
    table: u64,
    seq: u64,
    observation: Value,
    next_id: u64,
    acks: Vec<(u64, u64)>,
}

impl Play {
    /// Plays the first legal action whenever it is the seat's turn, until
    /// `enough` says so at a moment the table waits for the seat (or the
    /// game is over).
    async fn until(&mut self, c: &mut Client, enough: impl Fn(&Play) -> bool) {
        let mut acted = None;
        loop {
            let phase = self.observation["status"]["phase"].as_str().unwrap_or("");
            if phase == "game_over" {
                return;
            }
            let action = legal(&self.observation).first().cloned();
            if let Some(action) = action
                && acted != Some(self.seq)
            {
                if enough(self) {
                    return;
                }
                acted = Some(self.seq);
                self.next_id += 1;
                c.send(&ClientMessage::Move {
                    table: self.table,
                    id: self.next_id,
                    action,
                })
                .await;
            }
            match c.recv().await {
                ServerMessage::Update {
                    seq, observation, ..
                } => {
                    self.seq = seq;
                    self.observation = observation;
                }
                ServerMessage::Ack { id, seq, .. } => self.acks.push((id, seq)),
                ServerMessage::Error(e) => panic!("refused: {e:?}"),
                _ => {}
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_keeps_every_acknowledged_move() {
    let data = tempfile::tempdir().expect("dir");
    let server = serve_on(data.path());
    let mut ann = Client::connect(server.addr).await;
    ann.send(&ClientMessage::Hello {
        version: VERSION,
        name: Some("ann".into()),
        token: None,
        client: None,
        bot: None,
    })
    .await;
    let token = ann
        .until(|m| match m {
            ServerMessage::Welcome { token, .. } => Some(token.clone()),
            _ => None,
        })
        .await;
    let create = json!({"type": "create", "game": "mille", "setup": {"rules": "bsd", "players": 2},
        "seats": [{"kind": "human"}, {"kind": "computer", "level": "classic"}], "sit": 0});
    ann.send(&ClientMessage::parse(&create.to_string()).expect("create"))
        .await;
    let table = ann
        .until(|m| match m {
            ServerMessage::Created { table, .. } => Some(table.id),
            _ => None,
        })
        .await;
    let (seq, observation) = ann
        .until(|m| match m {
            ServerMessage::Joined {
                seq, observation, ..
            } => Some((*seq, observation.clone())),
            _ => None,
        })
        .await;
    // Ids from the clock, as a client that may restart makes them.
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_millis() as u64;
    let mut play = Play {
        table,
        seq,
        observation,
        next_id: start,
        acks: Vec::new(),
    };
    // Mid-hand: 30 moves acknowledged, the seat to play.
    play.until(&mut ann, |p| p.acks.len() >= 30).await;
    let before = hand(&play.observation);
    let seen = play.seq;
    server.kill();
    drop(ann);

    // The log on disk: every acknowledged move under its number, and
    // nothing after the last move shown.
    {
        let url = table_server::store::DatabaseUrl::Sqlite(data.path().join("server.db"));
        let me = table_server::store::Instance {
            id: "reader".into(),
            address: "ws://127.0.0.1:1".into(),
            lease: Duration::from_secs(5),
        };
        let (_store, tables) = table_server::store::Store::open(&url, me)
            .await
            .expect("the database");
        let stored = tables
            .iter()
            .filter_map(|t| t.as_ref().ok())
            .find(|t| t.id == table)
            .expect("the unfinished table is stored");
        // The sequence number counts the moves everybody sees: all but a
        // declined coup fourré.
        let public: Vec<bool> = stored
            .moves
            .iter()
            .map(|(_, action, _)| action != "decline")
            .collect();
        let seq_of = |k: usize| public[..=k].iter().filter(|p| **p).count() as u64;
        assert_eq!(
            seq_of(stored.moves.len() - 1),
            seen,
            "the log ends where the table stood"
        );
        for (id, seq) in &play.acks {
            let k = stored
                .moves
                .iter()
                .position(|(_, _, client_id)| *client_id == Some(*id))
                .unwrap_or_else(|| panic!("move {id} is in the log"));
            assert_eq!(stored.moves[k].0, Some(0), "move {id} is the seat's");
            assert_eq!(seq_of(k), *seq, "move {id}'s number");
        }
    }

    let server = serve_on(data.path());
    let mut ann = Client::connect(server.addr).await;
    ann.send(&ClientMessage::Hello {
        version: VERSION,
        name: Some("ann".into()),
        token: Some(token.clone()),
        client: None,
        bot: None,
    })
    .await;
    let seats = ann
        .until(|m| match m {
            ServerMessage::Welcome {
                token: t, seats, ..
            } => {
                assert_eq!(t, &token, "the same token");
                Some(seats.clone())
            }
            _ => None,
        })
        .await;
    assert_eq!(
        seats,
        vec![SeatRef {
            table,
            game: table_protocol::GameKind::Mille,
            seat: 0
        }]
    );
    ann.send(&ClientMessage::Join {
        table,
        seat: Some(0),
        code: None,
        since: Some(seen),
    })
    .await;
    let (seq, observation) = ann
        .until(|m| match m {
            ServerMessage::Joined {
                seq, observation, ..
            } => Some((*seq, observation.clone())),
            _ => None,
        })
        .await;
    assert_eq!(seq, seen, "the table is where it was");
    assert_eq!(hand(&observation), before, "the same hand");
    assert_eq!(observation["events"], json!([]), "nothing happened since");
    assert!(!legal(&observation).is_empty(), "the seat is to play");
    // A move sent again after the restart (its ack lost, as the client
    // sees it) is answered as the first time, not applied twice: the
    // server remembers the ids from its log.
    let (last_id, last_seq) = *play.acks.last().expect("acks");
    ann.send(&ClientMessage::Move {
        table,
        id: last_id,
        action: legal(&observation)[0].clone(),
    })
    .await;
    let again = ann
        .until(|m| match m {
            ServerMessage::Ack { id, seq, .. } if *id == last_id => Some(*seq),
            ServerMessage::Error(e) => panic!("refused: {e:?}"),
            _ => None,
        })
        .await;
    assert_eq!(again, last_seq, "the first answer");
    play.seq = seq;
    play.observation = observation;
    let acked = play.acks.len();
    let started = Instant::now();
    play.until(&mut ann, |_| false).await;
    assert!(started.elapsed() < Duration::from_secs(120));
    assert_eq!(play.observation["status"]["phase"], "game_over");
    assert_eq!(
        play.acks[acked].1,
        seen + 1,
        "the first move after the restart follows the log"
    );
    server.kill();
}
