//! The protocol reference, `docs/table-protocol.md`, checked against the
//! types: every example tagged ```` ```json client ```` or
//! ```` ```json server ```` must read as a message and write back as the
//! same JSON, and every message type and error code must be documented, so
//! the reference cannot drift from what clients and the server speak.

use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeSet;
use table_protocol::{ClientMessage, DEFAULT_PORT, ErrorCode, ServerMessage, VERSION, WS_PATH};

/// Included rather than read at run time so that editing the reference
/// rebuilds (and reruns) this test.
const DOC: &str = include_str!("../../../docs/table-protocol.md");

/// One fenced code block of the reference.
struct Block {
    /// The info string after the opening fence (`json client`).
    info: String,
    /// The line of the opening fence, from 1, for messages.
    line: usize,
    /// The block's text.
    text: String,
}

fn blocks(doc: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (k, line) in doc.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => {
                open = Some(Block {
                    info: info.trim().to_string(),
                    line: k + 1,
                    text: String::new(),
                })
            }
            (Some(_), Some(rest)) => {
                assert!(
                    rest.trim().is_empty(),
                    "line {}: a fence inside a block",
                    k + 1
                );
                out.extend(open.take());
            }
            (Some(block), None) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "the reference ends inside a code block");
    out
}

/// The variants of an enum as serde spells them, read from the error serde
/// gives for an unknown one (`probe`): that list is made from the type
/// itself, so a variant added later is in it.
fn variants<T: DeserializeOwned + std::fmt::Debug>(probe: &str) -> BTreeSet<String> {
    let err = serde_json::from_str::<T>(probe)
        .expect_err("the probe is no variant")
        .to_string();
    let (_, expected) = err
        .split_once("expected")
        .unwrap_or_else(|| panic!("serde's error lists no variants: {err}"));
    let names: BTreeSet<String> = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    assert!(names.len() > 1, "no variants read from {err:?}");
    names
}

/// The `type` of a client message. Exhaustive: a new message does not
/// compile here until it is named, and the test then asks for its example.
fn client_type(m: &ClientMessage) -> &'static str {
    match m {
        ClientMessage::Hello { .. } => "hello",
        ClientMessage::List => "list",
        ClientMessage::Create(_) => "create",
        ClientMessage::Join { .. } => "join",
        ClientMessage::Watch { .. } => "watch",
        ClientMessage::Move { .. } => "move",
        ClientMessage::Ready { .. } => "ready",
        ClientMessage::Leave { .. } => "leave",
        ClientMessage::Rankings { .. } => "rankings",
        ClientMessage::Ping => "ping",
        ClientMessage::NewToken => "new_token",
        ClientMessage::SignOut => "sign_out",
        ClientMessage::Ladder { .. } => "ladder",
        ClientMessage::Accept { .. } => "accept",
        ClientMessage::Decline { .. } => "decline",
        ClientMessage::Bots => "bots",
    }
}

/// The `type` of a server message (exhaustive, as [`client_type`]).
fn server_type(m: &ServerMessage) -> &'static str {
    match m {
        ServerMessage::Welcome { .. } => "welcome",
        ServerMessage::Tables { .. } => "tables",
        ServerMessage::Created { .. } => "created",
        ServerMessage::Joined { .. } => "joined",
        ServerMessage::Watching { .. } => "watching",
        ServerMessage::Update { .. } => "update",
        ServerMessage::Ack { .. } => "ack",
        ServerMessage::Left { .. } => "left",
        ServerMessage::Rankings { .. } => "rankings",
        ServerMessage::Pong => "pong",
        ServerMessage::Token { .. } => "token",
        ServerMessage::SignedOut => "signed_out",
        ServerMessage::Ended { .. } => "ended",
        ServerMessage::Ladder { .. } => "ladder",
        ServerMessage::Invited { .. } => "invited",
        ServerMessage::Declined { .. } => "declined",
        ServerMessage::Bots { .. } => "bots",
        ServerMessage::Error(_) => "error",
    }
}

/// An error code's name (exhaustive, as [`client_type`]).
fn code_name(c: ErrorCode) -> &'static str {
    match c {
        ErrorCode::BadMessage => "bad_message",
        ErrorCode::TooLarge => "too_large",
        ErrorCode::RateLimited => "rate_limited",
        ErrorCode::Version => "version",
        ErrorCode::Handshake => "handshake",
        ErrorCode::BadName => "bad_name",
        ErrorCode::NameTaken => "name_taken",
        ErrorCode::BadToken => "bad_token",
        ErrorCode::BadSetup => "bad_setup",
        ErrorCode::NoSuchTable => "no_such_table",
        ErrorCode::NoSuchSeat => "no_such_seat",
        ErrorCode::SeatTaken => "seat_taken",
        ErrorCode::TableFull => "table_full",
        ErrorCode::NotSeated => "not_seated",
        ErrorCode::Waiting => "waiting",
        ErrorCode::NotYourTurn => "not_your_turn",
        ErrorCode::Illegal => "illegal",
        ErrorCode::GameOver => "game_over",
        ErrorCode::Unavailable => "unavailable",
    }
}

fn example_value(block: &Block) -> Value {
    serde_json::from_str(&block.text).unwrap_or_else(|e| {
        panic!(
            "line {}: the example is not JSON: {e}\n{}",
            block.line, block.text
        )
    })
}

/// Top-level fields a client leaves out are `null` once written back (the
/// messages' optional fields): the reference shows them left out.
fn without_top_nulls(mut v: Value) -> Value {
    if let Value::Object(map) = &mut v {
        map.retain(|_, field| !field.is_null());
    }
    v
}

#[test]
fn every_example_reads_as_its_message_and_writes_back_the_same() {
    let mut client_seen = BTreeSet::new();
    let mut server_seen = BTreeSet::new();
    for block in blocks(DOC) {
        match block.info.as_str() {
            "json client" => {
                let doc = example_value(&block);
                let msg = ClientMessage::parse(&block.text)
                    .unwrap_or_else(|e| panic!("line {}: {e}", block.line));
                let back = serde_json::to_value(&msg).expect("a message writes as JSON");
                assert_eq!(
                    without_top_nulls(back),
                    doc,
                    "line {}: the example does not write back the same",
                    block.line
                );
                assert_eq!(doc["type"], client_type(&msg), "line {}", block.line);
                if let ClientMessage::Hello { version, .. } = msg {
                    assert_eq!(version, VERSION, "line {}", block.line);
                }
                client_seen.insert(client_type(&msg).to_string());
            }
            "json server" => {
                let doc = example_value(&block);
                let msg: ServerMessage = serde_json::from_str(&block.text)
                    .unwrap_or_else(|e| panic!("line {}: {e}", block.line));
                // The server writes exactly this: no field left to a default.
                let back = serde_json::to_value(&msg).expect("a message writes as JSON");
                assert_eq!(
                    back, doc,
                    "line {}: the example does not write back the same",
                    block.line
                );
                assert_eq!(doc["type"], server_type(&msg), "line {}", block.line);
                if let ServerMessage::Welcome { version, .. } = msg {
                    assert_eq!(version, VERSION, "line {}", block.line);
                }
                server_seen.insert(server_type(&msg).to_string());
            }
            // Other JSON (the HTTP endpoints') is no message of the protocol.
            "json" => {
                example_value(&block);
            }
            info => assert!(
                !info.starts_with("json"),
                "line {}: unknown info string {info:?} (json client, json server or json)",
                block.line
            ),
        }
    }
    assert_eq!(
        client_seen,
        variants::<ClientMessage>(r#"{"type":"?"}"#),
        "every client message needs a ```json client example"
    );
    assert_eq!(
        server_seen,
        variants::<ServerMessage>(r#"{"type":"?"}"#),
        "every server message needs a ```json server example"
    );
}

#[test]
fn every_error_code_has_a_row_in_the_errors_table() {
    let section = DOC
        .split("\n## ")
        .find(|s| s.starts_with("Errors"))
        .expect("the reference has a section \"## Errors\"");
    let mut rows = Vec::new();
    for line in section.lines() {
        if let Some(cell) = line.strip_prefix("| `") {
            let code = cell.split('`').next().unwrap_or_default();
            let parsed: ErrorCode = serde_json::from_value(Value::from(code))
                .unwrap_or_else(|e| panic!("`{code}` in the errors table: {e}"));
            rows.push(code_name(parsed).to_string());
        }
    }
    let listed: BTreeSet<String> = rows.iter().cloned().collect();
    assert_eq!(listed.len(), rows.len(), "a code has two rows: {rows:?}");
    let all = variants::<ErrorCode>(r#""?""#);
    assert_eq!(listed, all, "every error code needs a row");
    for name in &all {
        let code: ErrorCode = serde_json::from_value(Value::from(name.as_str())).expect("listed");
        assert_eq!(code_name(code), name);
    }
}

#[test]
fn the_reference_states_the_version_port_and_path() {
    let title = DOC.lines().next().unwrap_or_default();
    assert!(title.contains(&format!("version {VERSION}")), "{title}");
    assert!(DOC.contains(&format!("127.0.0.1:{DEFAULT_PORT}")));
    assert!(DOC.contains(&format!("`{WS_PATH}`")));
}
