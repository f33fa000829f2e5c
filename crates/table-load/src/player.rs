//! The computer-played person at a seat: what it reads of the server's
//! messages (only what it needs, so that the generator spends little time
//! reading) and the action it picks from an observation's `legal` list.
//! The rules stay in the engines: the server's list is the only judge.

use serde::Deserialize;
use serde_json::Value;

/// The part of a server message the generator reads; other fields are
/// skipped unread.
#[derive(Debug, Deserialize)]
pub struct Incoming {
    /// The message's type.
    #[serde(rename = "type")]
    pub kind: Kind,
    /// The table: its id, or (in `created`) its summary.
    #[serde(default)]
    pub table: Option<TableRef>,
    /// A move's id (`ack`, `error`).
    #[serde(default)]
    pub id: Option<u64>,
    /// The table's sequence number (`joined`, `update`, `ack`).
    #[serde(default)]
    pub seq: Option<u64>,
    /// The seat's observation (`joined`, `update`).
    #[serde(default)]
    pub observation: Option<View>,
    /// An error's code, or a private table's invitation code (`created`).
    #[serde(default)]
    pub code: Option<String>,
    /// An error's sentence.
    #[serde(default)]
    pub message: Option<String>,
}

impl Incoming {
    /// Reads a message's text.
    pub fn parse(text: &str) -> Result<Incoming, String> {
        serde_json::from_str(text).map_err(|e| format!("{e} in {}", shorten(text)))
    }

    /// The table the message is about.
    pub fn table_id(&self) -> Option<u64> {
        match self.table {
            Some(TableRef::Id(id)) | Some(TableRef::Summary { id }) => Some(id),
            None => None,
        }
    }
}

/// A message's type.
#[derive(Debug, Deserialize, PartialEq, Eq, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A table was opened.
    Created,
    /// A seat was taken.
    Joined,
    /// A table changed.
    Update,
    /// A move was written.
    Ack,
    /// Something was refused.
    Error,
    /// Anything else (`welcome`, `left`, `pong`...): nothing to act on.
    #[serde(other)]
    Other,
}

/// `table` is an id in most messages and a summary in `created`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum TableRef {
    /// A table's id.
    Id(u64),
    /// A table's summary.
    Summary {
        /// Its id.
        id: u64,
    },
}

/// What a seat's observation says to a player: whether it is to act, and
/// how the game stands.
#[derive(Debug, Default, Deserialize, Clone, PartialEq)]
pub struct View {
    /// The seat's legal actions (empty when it is not to act).
    #[serde(default)]
    pub legal: Vec<Value>,
    /// Mille: what the game waits for.
    #[serde(default)]
    status: Option<Status>,
    /// Cubes: the turn's phase.
    #[serde(default)]
    phase: Option<String>,
}

#[derive(Debug, Deserialize, Clone, PartialEq)]
struct Status {
    phase: String,
}

/// How the game stands for a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Playing (the seat may or may not be to act).
    Playing,
    /// Between two hands: say `ready`.
    HandOver,
    /// The game is over.
    Over,
}

impl View {
    /// How the game stands (mille's `status.phase`, cubes' `phase`).
    pub fn phase(&self) -> Phase {
        match (
            self.status.as_ref().map(|s| s.phase.as_str()),
            self.phase.as_deref(),
        ) {
            (Some("game_over"), _) | (_, Some("Over")) => Phase::Over,
            (Some("hand_over"), _) => Phase::HandOver,
            _ => Phase::Playing,
        }
    }
}

/// The action to play from a `legal` list, or `None` if there is none: a
/// cheap player that keeps the game moving towards its end (a coup fourré
/// when it can, a card played rather than discarded, a trip ended rather
/// than extended; at cubes, the points held as soon as they may be).
pub fn choose(legal: &[Value]) -> Option<&Value> {
    legal
        .iter()
        .enumerate()
        .min_by_key(|(k, a)| (rank(a), *k))
        .map(|(_, a)| a)
}

fn rank(action: &Value) -> u8 {
    match action.as_str() {
        Some(a) if a.starts_with("coup_fourre") => 0,
        Some("Hold") => 0,
        Some(a) if a.starts_with("play ") => 1,
        Some("end_trip") => 2,
        _ => 3,
    }
}

fn shorten(text: &str) -> String {
    const MAX: usize = 120;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_messages_a_player_acts_on() {
        let m = Incoming::parse(
            r#"{"type":"update","table":7,"seq":24,"observation":
             {"viewer":{"seat":0},"hand":["100","go"],"status":{"phase":"turn","seat":0,"drawn":true},
              "legal":["discard 100","play go 0"],"events":[{"event":"drew","seat":0,"card":"go"}]},
             "seats":[{"kind":"human","player":"ann","connected":true,"away":false}]}"#,
        )
        .expect("update");
        assert_eq!(m.kind, Kind::Update);
        assert_eq!((m.table_id(), m.seq), (Some(7), Some(24)));
        let view = m.observation.expect("observation");
        assert_eq!(view.phase(), Phase::Playing);
        assert_eq!(choose(&view.legal), Some(&json!("play go 0")));
        let created = Incoming::parse(
            r#"{"type":"created","table":{"id":15,"game":"mille","seats":[],"status":"waiting"},"code":"K7QM2X"}"#,
        )
        .expect("created");
        assert_eq!(created.kind, Kind::Created);
        assert_eq!(created.table_id(), Some(15));
        assert_eq!(created.code.as_deref(), Some("K7QM2X"));
        let error = Incoming::parse(
            r#"{"type":"error","code":"illegal","message":"You need a Go","id":18,"table":7}"#,
        )
        .expect("error");
        assert_eq!(error.kind, Kind::Error);
        assert_eq!(
            (error.id, error.code.as_deref()),
            (Some(18), Some("illegal"))
        );
        let other = Incoming::parse(r#"{"type":"pong"}"#).expect("pong");
        assert_eq!((other.kind, other.table_id()), (Kind::Other, None));
        assert!(Incoming::parse("[1,2]").is_err());
    }

    #[test]
    fn phases_of_both_games() {
        let view = |v: Value| serde_json::from_value::<View>(v).expect("view");
        assert_eq!(
            view(json!({"status":{"phase":"hand_over"},"legal":[]})).phase(),
            Phase::HandOver
        );
        assert_eq!(
            view(json!({"status":{"phase":"game_over"},"legal":[]})).phase(),
            Phase::Over
        );
        assert_eq!(
            view(json!({"phase":"Over","legal":[]})).phase(),
            Phase::Over
        );
        assert_eq!(
            view(json!({"phase":"Rolled","legal":[{"Keep":1},"Hold"]})).phase(),
            Phase::Playing
        );
    }

    #[test]
    fn the_choice_keeps_the_game_moving() {
        let pick = |v: Value| choose(v.as_array().expect("list")).cloned();
        assert_eq!(pick(json!(["draw"])), Some(json!("draw")));
        assert_eq!(
            pick(json!(["discard 25", "play 200 0", "play 100 0"])),
            Some(json!("play 200 0"))
        );
        assert_eq!(
            pick(json!(["decline", "coup_fourre right_of_way"])),
            Some(json!("coup_fourre right_of_way"))
        );
        assert_eq!(pick(json!(["extend", "end_trip"])), Some(json!("end_trip")));
        assert_eq!(
            pick(json!([{"Keep":1}, {"Keep":7}, "Hold"])),
            Some(json!("Hold"))
        );
        assert_eq!(pick(json!(["Roll"])), Some(json!("Roll")));
        assert_eq!(pick(json!([])), None);
    }
}
