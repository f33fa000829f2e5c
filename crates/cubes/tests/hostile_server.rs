//! End-to-end: `cubes rank --connect` and `cubes stat --connect` at a
//! server that puts escape sequences and other control characters in
//! everything it sends (its rankings, the names at its tables, their
//! descriptions, its refusals) print none of them: no server writes to the
//! player's terminal.

mod common;

use common::run;
use futures_util::{SinkExt, StreamExt};
use table_client::protocol::{
    ErrorCode, GameKind, Limits, SeatKindSummary, SeatSummary, ServerMessage, TableStatus,
    TableSummary,
};
use tokio_tungstenite::tungstenite::Message;

/// A screen clear, a window title ended by a bell, a C1 control sequence
/// introducer, a carriage return and DEL.
const HOSTILE: &str = "\u{1b}[2J\u{1b}]0;owned\u{7}\u{9b}31m\r\u{7f}";

/// What the fake server answers to the client's request.
#[derive(Clone, Copy)]
enum Answer {
    Rankings,
    Tables,
    Refusal,
}

/// A fake server on a loopback port that answers one connection's `hello`
/// and its one request with hostile strings.
fn hostile_server(answer: Answer) -> (String, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("address").to_string();
    listener.set_nonblocking(true).expect("nonblocking");
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let (stream, _) = listener.accept().await.expect("accept");
            let mut peer = tokio_tungstenite::accept_async(stream)
                .await
                .expect("websocket");
            let mut say = async |m: ServerMessage| {
                peer.send(Message::text(m.to_json())).await.expect("send");
            };
            say(ServerMessage::Welcome {
                version: 1,
                server: format!("fake{HOSTILE}"),
                name: format!("ann{HOSTILE}"),
                token: "0".repeat(32),
                limits: Limits {
                    max_message_bytes: 65536,
                    messages_per_second: 20,
                    burst: 40,
                    idle_seconds: 60,
                    away_seconds: 60,
                    decision_seconds: 10,
                },
                seats: vec![],
                games: vec![],
                bot: false,
            })
            .await;
            let seat = |player: &str| SeatSummary {
                kind: SeatKindSummary::Human,
                level: Some(format!("steady{HOSTILE}")),
                player: Some(player.to_string()),
                connected: true,
                away: false,
                rating: None,
                stand_in_in: None,
                bot: false,
                invited: false,
            };
            let message = match answer {
                Answer::Rankings => ServerMessage::Rankings {
                    game: GameKind::Cubes,
                    text: format!("Rank  Player\n   1  ann{HOSTILE}\n   2  bob\u{1b}[1A\n"),
                },
                Answer::Tables => ServerMessage::Tables {
                    tables: vec![TableSummary {
                        id: 3,
                        game: GameKind::Cubes,
                        ruleset: format!("Blitz{HOSTILE}"),
                        setup: serde_json::json!({}),
                        seats: vec![seat(&format!("bob{HOSTILE}")), seat("cy\u{1b}P+q\u{1b}\\")],
                        status: TableStatus::Playing,
                        private: false,
                        spectators: 0,
                        seq: 1,
                        rated: false,
                        arena: None,
                        bots: false,
                    }],
                },
                Answer::Refusal => {
                    ServerMessage::error(ErrorCode::RateLimited, format!("slow down{HOSTILE}"))
                }
            };
            // The request comes after the welcome.
            let _ = peer.next().await;
            let _ = peer.next().await;
            peer.send(Message::text(message.to_json()))
                .await
                .expect("send");
            let _ = peer.next().await;
        });
    });
    (address, thread)
}

/// Whether a text has a control character but newlines.
fn has_controls(text: &str) -> bool {
    text.chars().any(|c| c.is_control() && c != '\n')
}

#[test]
fn rank_and_stat_print_no_control_character_of_a_server() {
    for (answer, args) in [
        (Answer::Rankings, vec!["rank", "--connect"]),
        (Answer::Tables, vec!["stat", "--connect"]),
        (Answer::Refusal, vec!["rank", "--connect"]),
    ] {
        let data = tempfile::tempdir().expect("tempdir");
        let (address, server) = hostile_server(answer);
        let mut args = args.clone();
        args.push(&address);
        let (ok, out, err) = run(data.path(), &args, "");
        server.join().expect("the fake server");
        assert!(!has_controls(&out), "{args:?} printed {out:?}");
        assert!(!has_controls(&err), "{args:?} said {err:?}");
        match answer {
            Answer::Rankings => {
                assert!(ok, "{err}");
                assert!(out.contains("ann") && out.contains("bob"), "{out}");
            }
            Answer::Tables => {
                assert!(ok, "{err}");
                assert!(out.contains("table 3 (Blitz"), "{out}");
                assert!(out.contains("bob"), "{out}");
            }
            Answer::Refusal => {
                assert!(!ok);
                assert!(err.contains("slow down"), "{err}");
            }
        }
    }
}
