//! The Mille Bornes Bot Protocol (MBP), version 1: JSON Lines between a
//! game and a computer player (`bot-protocol.md`).
//!
//! - [`parse_request`] and [`Answer::to_line`]: the messages.
//! - [`serve`]: the bot side, answering every request from a [`Bot`] and
//!   the rules engine (`mille bot`).
//! - [`ExternalBot`]: the game side, seating a bot program in a match with
//!   time limits; whatever the program does wrong becomes a [`ClientError`].

mod client;
mod server;

pub use client::{ClientError, ExternalBot, split_command};
pub use server::{guess_attacker, serve};

use mille_engine::view::Decision;
use mille_engine::{Action, Card, GameConfig, Kind, Rules, View};
use serde_json::{Map, Value};

/// The protocol version this crate speaks.
pub const PROTOCOL: u64 = 1;

/// A request id: the integer the answer echoes.
pub type Id = i64;

/// Which decision a `decide` request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecideKind {
    /// Play or discard after the draw.
    Turn,
    /// Whether to call coup fourré on this hazard.
    CoupFourre(Card),
    /// Whether to extend the trip.
    Extension,
}

impl DecideKind {
    /// The protocol word (`turn`, `coup_fourre`, `extension`).
    pub const fn word(self) -> &'static str {
        match self {
            DecideKind::Turn => "turn",
            DecideKind::CoupFourre(_) => "coup_fourre",
            DecideKind::Extension => "extension",
        }
    }
}

/// One request of the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `{"hello":{"protocol":1}}`.
    Hello {
        /// The version the sender speaks.
        protocol: u64,
    },
    /// `{"legal":V}`: the legal actions of a turn decision in V.
    Legal(Box<View>),
    /// `{"decide":...,"view":V}`.
    Decide {
        /// What to decide.
        kind: DecideKind,
        /// What the seat sees.
        view: Box<View>,
    },
}

/// A line that is not a valid request, with the id when it could be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BadRequest {
    /// The request's id, if readable.
    pub id: Option<Id>,
    /// What is wrong, in plain words.
    pub message: String,
}

/// Reads one request line.
pub fn parse_request(line: &str) -> Result<(Id, Request), BadRequest> {
    let bad = |id: Option<Id>, message: String| BadRequest { id, message };
    let value: Value =
        serde_json::from_str(line).map_err(|e| bad(None, format!("not a JSON object: {e}")))?;
    let Value::Object(obj) = value else {
        return Err(bad(None, "a request must be a JSON object".into()));
    };
    let id = match obj.get("id") {
        Some(v) => v
            .as_i64()
            .ok_or_else(|| bad(None, format!("\"id\" must be an integer, not {v}")))?,
        None => return Err(bad(None, "the request has no \"id\"".into())),
    };
    let bad = |message: String| BadRequest {
        id: Some(id),
        message,
    };
    let view_of = |v: &Value| -> Result<Box<View>, BadRequest> {
        let view =
            serde_json::from_value::<View>(v.clone()).map_err(|e| bad(format!("bad view: {e}")))?;
        // The numbers the engine would count with (trip, miles, totals)
        // are bounded here, where they come in. A view whose seats or
        // teams do not describe a game is answered by the engine's own
        // check when it is used.
        let rules = u8::try_from(view.seats.len()).ok().and_then(|players| {
            Rules::new(GameConfig {
                rules: view.rules,
                players,
                stacking: false,
            })
            .ok()
        });
        if let Some(rules) = rules {
            rules
                .check_view(&view)
                .map_err(|e| bad(format!("bad view: {e}")))?;
        }
        Ok(Box::new(view))
    };
    if let Some(h) = obj.get("hello") {
        let protocol = h
            .get("protocol")
            .and_then(Value::as_u64)
            .ok_or_else(|| bad("hello needs {\"protocol\":1}".into()))?;
        return Ok((id, Request::Hello { protocol }));
    }
    if let Some(v) = obj.get("legal") {
        return Ok((id, Request::Legal(view_of(v)?)));
    }
    if let Some(d) = obj.get("decide") {
        let word = d.as_str().ok_or_else(|| {
            bad("\"decide\" must be \"turn\", \"coup_fourre\" or \"extension\"".into())
        })?;
        let view = view_of(
            obj.get("view")
                .ok_or_else(|| bad("a decide request needs a \"view\"".into()))?,
        )?;
        let kind = match word {
            "turn" => DecideKind::Turn,
            "extension" => DecideKind::Extension,
            "coup_fourre" => {
                let h = obj
                    .get("hazard")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("a coup_fourre decision needs a \"hazard\"".into()))?;
                let card: Card = h.parse().map_err(|e| bad(format!("bad hazard: {e}")))?;
                if card.kind() != Kind::Hazard {
                    return Err(bad(format!("{h:?} is not a hazard")));
                }
                DecideKind::CoupFourre(card)
            }
            other => {
                return Err(bad(format!(
                    "unknown decision {other:?}: expected turn, coup_fourre or extension"
                )));
            }
        };
        return Ok((id, Request::Decide { kind, view }));
    }
    let keys: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "id")
        .collect();
    Err(bad(format!(
        "unknown request (keys {keys:?}): expected hello, legal or decide"
    )))
}

/// One answer of the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Answer to `hello`.
    Hello {
        /// The bot's name.
        name: String,
    },
    /// A turn's play or discard (`Action::Play` or `Action::Discard`).
    Turn(Action),
    /// Whether to call coup fourré.
    CoupFourre(bool),
    /// Whether to extend.
    Extend(bool),
    /// The legal actions of a turn.
    Actions(Vec<Action>),
    /// The request could not be answered.
    Error(String),
}

/// The JSON fields of a turn action: `"play":"go"`, with `"target"` for a
/// hazard, or `"discard":"25"`.
fn action_fields(a: Action, out: &mut Map<String, Value>) {
    match a {
        Action::Play { card, team: target } => {
            out.insert("play".into(), Value::String(card.id().into()));
            if card.kind() == Kind::Hazard {
                out.insert("target".into(), Value::from(target));
            }
        }
        Action::Discard(card) => {
            out.insert("discard".into(), Value::String(card.id().into()));
        }
        other => {
            // Not a turn action: say so rather than send something wrong.
            out.insert(
                "error".into(),
                Value::String(format!("internal: {other} is not a turn action")),
            );
        }
    }
}

/// The JSON object of one turn action, as in a `legal` answer.
pub fn action_json(a: Action) -> Value {
    let mut m = Map::new();
    action_fields(a, &mut m);
    Value::Object(m)
}

impl Answer {
    /// The answer line (no newline) for request `id`, `id` first.
    pub fn to_line(&self, id: Option<Id>) -> String {
        let mut m = Map::new();
        match self {
            Answer::Hello { name } => {
                m.insert("name".into(), Value::String(name.clone()));
                m.insert("protocol".into(), Value::from(PROTOCOL));
            }
            Answer::Turn(a) => action_fields(*a, &mut m),
            Answer::CoupFourre(b) => {
                m.insert("coup_fourre".into(), Value::Bool(*b));
            }
            Answer::Extend(b) => {
                m.insert("extend".into(), Value::Bool(*b));
            }
            Answer::Actions(list) => {
                m.insert(
                    "actions".into(),
                    Value::Array(list.iter().map(|&a| action_json(a)).collect()),
                );
            }
            Answer::Error(e) => {
                m.insert("error".into(), Value::String(e.clone()));
            }
        }
        let id = id.map_or_else(|| "null".to_string(), |i| i.to_string());
        let rest = Value::Object(m).to_string();
        // `rest` is "{...}": splice the id in front so it reads first.
        match rest.strip_prefix('{') {
            Some("}") | None => format!("{{\"id\":{id}}}"),
            Some(tail) => format!("{{\"id\":{id},{tail}"),
        }
    }
}

/// Builds a request line.
pub fn request_line(id: Id, request: &Request) -> String {
    let mut m = Map::new();
    match request {
        Request::Hello { protocol } => {
            let mut h = Map::new();
            h.insert("protocol".into(), Value::from(*protocol));
            m.insert("hello".into(), Value::Object(h));
        }
        Request::Legal(view) => {
            m.insert(
                "legal".into(),
                serde_json::to_value(view).unwrap_or(Value::Null),
            );
        }
        Request::Decide { kind, view } => {
            m.insert("decide".into(), Value::String(kind.word().into()));
            m.insert(
                "view".into(),
                serde_json::to_value(view).unwrap_or(Value::Null),
            );
            if let DecideKind::CoupFourre(h) = kind {
                m.insert("hazard".into(), Value::String(h.id().into()));
            }
        }
    }
    let rest = Value::Object(m).to_string();
    match rest.strip_prefix('{') {
        Some("}") | None => format!("{{\"id\":{id}}}"),
        Some(tail) => format!("{{\"id\":{id},{tail}"),
    }
}

/// The decide kind of an engine decision.
pub fn decide_kind(decision: Decision) -> DecideKind {
    match decision {
        Decision::Turn => DecideKind::Turn,
        Decision::CoupFourre { hazard, .. } => DecideKind::CoupFourre(hazard),
        Decision::Extension => DecideKind::Extension,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_put_the_id_first() {
        let a = Answer::Turn(Action::Play {
            card: Card::Stop,
            team: 1,
        });
        assert_eq!(a.to_line(Some(3)), r#"{"id":3,"play":"stop","target":1}"#);
        let a = Answer::Turn(Action::Play {
            card: Card::Go,
            team: 0,
        });
        assert_eq!(a.to_line(Some(4)), r#"{"id":4,"play":"go"}"#);
        assert_eq!(
            Answer::Error("x".into()).to_line(None),
            r#"{"id":null,"error":"x"}"#
        );
        assert_eq!(
            Answer::Hello { name: "m".into() }.to_line(Some(0)),
            r#"{"id":0,"name":"m","protocol":1}"#
        );
    }

    #[test]
    fn bad_requests_say_why() {
        let e = parse_request("nope").unwrap_err();
        assert_eq!(e.id, None);
        let e = parse_request(r#"{"id":5,"fly":1}"#).unwrap_err();
        assert_eq!(e.id, Some(5));
        assert!(e.message.contains("unknown request"), "{}", e.message);
        let e = parse_request(r#"{"id":6,"decide":"dance","view":{}}"#).unwrap_err();
        assert_eq!(e.id, Some(6));
        assert!(parse_request(r#"{"id":0,"hello":{"protocol":1}}"#).is_ok());
    }
}
