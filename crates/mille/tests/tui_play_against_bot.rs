//! End-to-end, in a pseudo-terminal: a person in the real `mille --connect`
//! lobby plays against a bot. `mille serve` runs on the loopback and
//! `mille bot --connect --level random` is connected to it as the bot
//! "robo"; ann presses b ("play against a bot"), finds robo in the list
//! with its owner, chooses it, opens the two-seat table the form offers,
//! and the game starts with robo's side marked "(bot)" on her board; a
//! turn each shows robo plays it. A bot that declines is told at her
//! table, whose seat is then free for a person.

mod server_support;
mod tui_support;
use futures_util::{SinkExt, StreamExt};
use server_support::{Running, bot_command, free_addr, serve_quiet};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use table_protocol::{BotInfo, ClientMessage, ServerMessage, VERSION};
use tokio_tungstenite::tungstenite::Message;
use tui_support::Pty;

/// `mille bot --connect ADDR --level random` as the bot `name`, run by
/// "tester", its token kept in `data`.
fn bot(addr: &str, name: &str, data: &Path) -> Running {
    let child = bot_command(addr, name, "random", data)
        .args(["--owner", "tester"])
        .stderr(Stdio::null())
        .spawn()
        .expect("start mille bot");
    Running(child)
}

/// Waits until `done` holds for the screen; the screen then.
fn wait_until(p: &Pty, secs: u64, what: &str, done: impl Fn(&str) -> bool) -> String {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        let s = p.screen();
        if done(&s) {
            return s;
        }
        assert!(
            Instant::now() < end,
            "timed out waiting for {what}; the screen shows:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(15));
    }
}

#[test]
fn a_person_plays_against_a_bot_chosen_in_the_lobby() {
    let server_dir = tempfile::tempdir().expect("tempdir");
    let bot_dir = tempfile::tempdir().expect("tempdir");
    let ann_dir = tempfile::tempdir().expect("tempdir");
    let addr = free_addr().to_string();
    let _server = serve_quiet(&addr, server_dir.path(), &[]);
    let _robo = bot(&addr, "robo", bot_dir.path());

    let mut ann = Pty::spawn(
        &["--connect", &addr, "--name", "ann"],
        ann_dir.path(),
        ann_dir.path(),
        100,
        30,
    );
    let lobby = ann.wait_for("you are ann", 30);
    assert!(lobby.contains("b play against a bot"), "{lobby}");

    // The bot may sign in after ann: the list is asked for again until it
    // is in it.
    ann.send("b");
    let end = Instant::now() + Duration::from_secs(60);
    let bots = loop {
        let s = wait_until(&ann, 30, "the server's bots", |s| {
            s.contains("No bot is connected") || s.contains("robo")
        });
        if s.contains("robo") {
            break s;
        }
        assert!(Instant::now() < end, "robo never connected:\n{s}");
        std::thread::sleep(Duration::from_millis(200));
        ann.send("r");
        wait_until(&ann, 30, "the list asked again", |s| {
            s.contains("asking the server...") || s.contains("robo")
        });
    };
    assert!(bots.contains("play against a bot"), "{bots}");
    assert!(bots.contains("tester"), "its owner: {bots}");

    // Chosen: the form of a two-seat table, the second seat robo's.
    ann.send("\r");
    let form = ann.wait_for("seat 2:  robo (bot, invited when the table opens)", 10);
    assert!(form.contains("< bsd, 2 players >"), "{form}");
    ann.send("\r");

    // robo accepts and the game starts: its side is marked on the board.
    let table = wait_until(&ann, 60, "robo at the table", |s| {
        s.contains("── robo (bot)")
            && !s.contains("(bot, invited)")
            && !s.contains("to take seat")
            && s.contains("Your hand")
    });
    assert!(table.contains("── You"), "{table}");
    // The game is on and robo plays it: ann picks and discards, and her
    // turn comes back after robo's.
    let turn = wait_until(&ann, 60, "ann's first turn", |s| s.contains("P to pick"));
    assert!(turn.contains("Score: hand 1"), "{turn}");
    ann.send("p");
    let drawn = ann.wait_for("U to use or D to discard", 30);
    let deck = deck(&drawn);
    ann.send("dp ");
    // robo draws to move: ann's turn comes back with fewer cards in the
    // deck (a safety of robo's may give it more than one move).
    let end = Instant::now() + Duration::from_secs(60);
    let after = loop {
        let s = ann.screen();
        if s.contains("P to pick") && deck_below(&s, deck) {
            break s;
        }
        if s.contains("or P to let it pass") {
            // robo's hazard met ann's safety: she lets the coup fourré go,
            // once (the question goes when the table has the answer).
            ann.send("p");
            wait_until(&ann, 30, "the coup fourré's answer", |s| {
                !s.contains("or P to let it pass")
            });
            continue;
        }
        assert!(
            Instant::now() < end,
            "timed out waiting for robo's move and ann's turn again:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(15));
    };
    assert!(after.contains("── robo (bot)"), "{after}");
}

/// The cards left in the deck, as the status line says ("Deck: 86").
fn deck(screen: &str) -> u32 {
    screen
        .split("Deck: ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no deck on the screen:\n{screen}"))
}

/// Whether the screen shows fewer than `cards` in the deck.
fn deck_below(screen: &str, cards: u32) -> bool {
    screen.contains("Deck: ") && deck(screen) < cards
}

/// A bot that declines every invitation with `reason`, connected to
/// `addr` as `name` on a thread of its own (until the test ends).
fn declining_bot(addr: &str, name: &str, reason: &str) {
    let (url, name, reason) = (
        format!("ws://{addr}/ws"),
        name.to_string(),
        reason.to_string(),
    );
    let (signed_in, ready) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let (mut ws, _) = tokio_tungstenite::connect_async(url)
                .await
                .expect("connect");
            let hello = ClientMessage::Hello {
                version: VERSION,
                name: Some(name),
                token: None,
                client: None,
                bot: Some(BotInfo {
                    owner: "tester".into(),
                    description: "declines everything".into(),
                    arena: false,
                }),
            };
            ws.send(Message::Text(hello.to_json().into()))
                .await
                .expect("hello");
            while let Some(Ok(frame)) = ws.next().await {
                let Message::Text(text) = frame else { continue };
                let Ok(m) = serde_json::from_str::<ServerMessage>(text.as_str()) else {
                    continue;
                };
                let answer = match m {
                    ServerMessage::Welcome { .. } => {
                        let _ = signed_in.send(());
                        continue;
                    }
                    ServerMessage::Invited { table, .. } => ClientMessage::Decline {
                        table: table.id,
                        reason: Some(reason.clone()),
                    },
                    _ => continue,
                };
                if ws
                    .send(Message::Text(answer.to_json().into()))
                    .await
                    .is_err()
                {
                    return;
                }
            }
        });
    });
    ready
        .recv_timeout(Duration::from_secs(30))
        .expect("the bot is welcomed");
}

#[test]
fn a_bot_that_declines_is_told_and_its_seat_is_free() {
    let server_dir = tempfile::tempdir().expect("tempdir");
    let ann_dir = tempfile::tempdir().expect("tempdir");
    let addr = free_addr().to_string();
    let _server = serve_quiet(&addr, server_dir.path(), &[]);
    declining_bot(&addr, "grumpy", "not today");

    let mut ann = Pty::spawn(
        &["--connect", &addr, "--name", "ann"],
        ann_dir.path(),
        ann_dir.path(),
        100,
        30,
    );
    ann.wait_for("you are ann", 30);
    ann.send("b");
    let bots = ann.wait_for("declines everything", 30);
    assert!(bots.contains("grumpy"), "{bots}");
    ann.send("\r");
    ann.wait_for("seat 2:  grumpy (bot, invited when the table opens)", 10);
    ann.send("\r");
    let told = ann.wait_for("grumpy declined: not today; the seat is free", 60);
    assert!(told.contains("Your hand"), "at the table: {told}");
    wait_until(&ann, 30, "the free seat", |s| {
        s.contains("Waiting for 1 more player to sit down") && !s.contains("grumpy (bot")
    });
}
