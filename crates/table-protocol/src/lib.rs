//! The table protocol, version [`VERSION`]: every message between a client
//! (terminal UI, web page, bot, load generator) and the table server, as
//! JSON objects tagged by `type`, one per WebSocket text message.
//!
//! The protocol is game-agnostic: a game's setup, its actions and a seat's
//! observation travel as JSON values whose shape the game's engine defines
//! (`docs/observations.md`); everything else (names, tokens, tables, seats,
//! sequence numbers, errors) is here. `docs/table-protocol.md` documents
//! each message with an example; a test checks every example against these
//! types.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version this crate speaks.
pub const VERSION: u32 = 1;

/// The TCP port a server listens on and a client connects to when none is
/// given.
pub const DEFAULT_PORT: u16 = 8780;

/// The path of the WebSocket endpoint.
pub const WS_PATH: &str = "/ws";

/// A table's number on its server.
pub type TableId = u64;

/// The games a server hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    /// Mille Bornes.
    Mille,
    /// The five-dice game.
    Cubes,
}

impl GameKind {
    /// The game's name as the protocol and the command line spell it.
    pub const fn name(self) -> &'static str {
        match self {
            GameKind::Mille => "mille",
            GameKind::Cubes => "cubes",
        }
    }
}

/// What a client sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    /// The first message: the protocol version, the player's name and, for
    /// a returning player, the token the server gave it.
    Hello {
        /// The protocol version the client speaks.
        version: u32,
        /// The name to play under (may be left out with a token: the
        /// token's name).
        #[serde(default)]
        name: Option<String>,
        /// The secret that owns the name, from an earlier `welcome`.
        #[serde(default)]
        token: Option<String>,
        /// The client's program and version, for the server's log.
        #[serde(default)]
        client: Option<String>,
        /// Present for a program playing as a bot: who runs it and what it
        /// is. A name is a bot's or a person's from its first hello on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bot: Option<BotInfo>,
    },
    /// Ask for the list of tables.
    List,
    /// Open a new table.
    Create(CreateTable),
    /// Take a seat at a table (or take one's own seat back).
    Join {
        /// The table.
        table: TableId,
        /// The seat; left out: the seat this player holds there, or the
        /// first free one.
        #[serde(default)]
        seat: Option<usize>,
        /// The invitation code of a private table.
        #[serde(default)]
        code: Option<String>,
        /// The last sequence number the client saw of this table: the
        /// observation then carries the events since (never more than the
        /// seat may see).
        #[serde(default)]
        since: Option<u64>,
    },
    /// Watch a table as a spectator (public information only).
    Watch {
        /// The table.
        table: TableId,
        /// The invitation code of a private table.
        #[serde(default)]
        code: Option<String>,
        /// As for `join`.
        #[serde(default)]
        since: Option<u64>,
    },
    /// A move for the seat this connection holds at `table`.
    Move {
        /// The table.
        table: TableId,
        /// Chosen by the client, unique per seat: a move sent again with
        /// the same id (after a drop) is answered with the first result and
        /// never applied twice.
        id: u64,
        /// The action, in the game's form (`docs/observations.md`).
        action: Value,
    },
    /// Between two hands: this seat is ready for the next deal.
    Ready {
        /// The table.
        table: TableId,
    },
    /// Leave a table (a seat is given up only before the game starts;
    /// afterwards the seat stays the player's, played by a computer while
    /// away).
    Leave {
        /// The table.
        table: TableId,
    },
    /// Ask for the rankings of a game's score file.
    Rankings {
        /// The game.
        game: GameKind,
        /// The kind of game ranked (cubes: "Standard" or "Blitz").
        #[serde(default)]
        kind: Option<String>,
        /// Games a player needs to be ranked.
        #[serde(default)]
        min_games: Option<u32>,
    },
    /// Keeps an idle connection open; answered with `pong`.
    Ping,
    /// Give a new token to this connection's name and revoke the old one
    /// (a token that may have been seen by somebody else); answered with
    /// `token`.
    NewToken,
    /// Sign out: this connection's token is revoked (a name with no game
    /// is let go, one with games is kept for its history and nobody can
    /// sign in with it any more); answered with `signed_out`.
    SignOut,
    /// A bot takes the seat it was invited to (answered with `joined`,
    /// as `join` is).
    Accept {
        /// The table.
        table: TableId,
    },
    /// A bot declines an invitation: the seat kept for it becomes a free
    /// seat, and the table is told (`declined`).
    Decline {
        /// The table.
        table: TableId,
        /// Why, in a few words, for the people at the table.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Ask for the bots connected now, to invite one; answered with
    /// `bots`.
    Bots,
    /// Ask for a ladder: the ratings of one game and ruleset, best first;
    /// answered with `ladder`.
    Ladder {
        /// The game.
        game: GameKind,
        /// The ruleset (mille: `bsd`, `classic`, `milebones`; cubes:
        /// `standard`, `blitz`, `jokers`); left out: the game's first.
        #[serde(default)]
        rules: Option<String>,
        /// The table size, for rulesets rated by size (mille `classic`:
        /// 2, 3, 4 or 6); left out: 2.
        #[serde(default)]
        players: Option<usize>,
    },
}

/// A new table: the game, its setup and who sits where.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateTable {
    /// The game.
    pub game: GameKind,
    /// The game's setup: for mille a ruleset (`{"rules":"classic",
    /// "players":4,"stacking":false}`), for cubes the kind of game
    /// (`{"game":"standard","jokers":"never"}`); left out: the default.
    #[serde(default)]
    pub setup: Value,
    /// One entry per seat: a person's place, or a computer player at a
    /// level. The number of seats is the table's (mille: 2, 3, 4 or 6,
    /// teams as the ruleset has them).
    pub seats: Vec<SeatRequest>,
    /// A private table is not listed with its seats and is joined with its
    /// invitation code.
    #[serde(default)]
    pub private: bool,
    /// Take this seat at once (the creator's place).
    #[serde(default)]
    pub sit: Option<usize>,
    /// Whether the game's result moves its players' ratings; left out:
    /// rated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rated: Option<bool>,
    /// Whether any bot may take a free person's seat (a seat kept for an
    /// invited bot is that bot's either way).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bots: bool,
}

/// What a bot says of itself in `hello`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotInfo {
    /// The person who runs it (a name, checked as player names are).
    pub owner: String,
    /// What it is, in a sentence (at most [`DESCRIPTION_MAX_CHARS`]
    /// characters).
    #[serde(default)]
    pub description: String,
    /// Whether it enters the server's arena (if the server runs one):
    /// it is then invited to arena games as long as it is connected.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub arena: bool,
}

/// A connected bot, as the lobby offers it to play against.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BotSummary {
    /// Its name.
    pub name: String,
    /// Who runs it.
    pub owner: String,
    /// What it is.
    pub description: String,
    /// Whether it is in the arena.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub arena: bool,
}

/// Who a new table's seat is for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SeatRequest {
    /// A person, who joins.
    Human,
    /// A computer player at this level (the game's levels).
    Computer {
        /// The level.
        level: String,
    },
    /// A seat kept for this bot, which is invited at once (`invited`)
    /// and accepts or declines.
    Bot {
        /// The bot's name (one of `bots`).
        name: String,
    },
}

/// What the server sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ServerMessage {
    /// The answer to `hello`.
    Welcome {
        /// The protocol version the server speaks.
        version: u32,
        /// The server's program and version.
        server: String,
        /// The name this connection plays under.
        name: String,
        /// The secret that owns the name: keep it, send it in the next
        /// `hello`. Only this connection ever sees it.
        token: String,
        /// The limits this connection must keep.
        limits: Limits,
        /// The seats this player holds at unfinished tables, to go back to.
        seats: Vec<SeatRef>,
        /// The games this server hosts, with their computer levels.
        games: Vec<GameInfo>,
        /// Whether this name is a bot's.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        bot: bool,
    },
    /// The tables (answer to `list`).
    Tables {
        /// Every public table, and the private ones this player sits at.
        tables: Vec<TableSummary>,
    },
    /// A table was opened (answer to `create`).
    Created {
        /// The table.
        table: TableSummary,
        /// The invitation code of a private table.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    },
    /// This connection now plays `seat` at `table` (answer to `join`).
    Joined {
        /// The table.
        table: TableId,
        /// The seat.
        seat: usize,
        /// The table's sequence number.
        seq: u64,
        /// The seat's observation (the game's form).
        observation: Value,
    },
    /// This connection now watches `table` (answer to `watch`).
    Watching {
        /// The table.
        table: TableId,
        /// The table's sequence number.
        seq: u64,
        /// The spectators' observation.
        observation: Value,
    },
    /// The table changed: a move, a deal, a seat taken, left or played by a
    /// computer while its player is away. Sent to every connection at the
    /// table, each with its own observation.
    Update {
        /// The table.
        table: TableId,
        /// The table's sequence number: the number of accepted moves.
        seq: u64,
        /// This connection's observation, with the events since its last
        /// one.
        observation: Value,
        /// The table's seats and their players' presence.
        seats: Vec<SeatSummary>,
    },
    /// A move was accepted and written (answer to `move`).
    Ack {
        /// The table.
        table: TableId,
        /// The client's id of the move.
        id: u64,
        /// The sequence number the move got.
        seq: u64,
    },
    /// This connection left the table (answer to `leave`).
    Left {
        /// The table.
        table: TableId,
    },
    /// Rankings (answer to `rankings`), as the game's score tools print
    /// them.
    Rankings {
        /// The game.
        game: GameKind,
        /// The text.
        text: String,
    },
    /// Answer to `ping`.
    Pong,
    /// Answer to `new_token`: the name's token from now on (the old one no
    /// longer signs in; the name's other connections are closed).
    Token {
        /// The new secret: keep it, send it in the next `hello`.
        token: String,
    },
    /// Answer to `sign_out`: the token is revoked and the connection
    /// closes (the name's other connections too).
    SignedOut,
    /// Sent after `welcome`: how the tables this player had left ended
    /// while they were away (each told once).
    Ended {
        /// The tables, oldest first.
        tables: Vec<Ending>,
    },
    /// Sent to a bot: a seat at `table` is kept for it. Answer with
    /// `accept` or `decline`; an arena table must be taken within the
    /// decision time.
    Invited {
        /// The table, as the lobby shows it.
        table: TableSummary,
        /// The seat kept for the bot.
        seat: usize,
        /// Who invited it: a person's name, or `arena`.
        by: String,
    },
    /// Sent to the connections at a table: the bot invited to `seat`
    /// declined, and the seat is free.
    Declined {
        /// The table.
        table: TableId,
        /// The seat.
        seat: usize,
        /// The bot.
        bot: String,
        /// Its reason, if it gave one.
        reason: String,
    },
    /// The bots connected now (answer to `bots`).
    Bots {
        /// The bots, by name.
        bots: Vec<BotSummary>,
    },
    /// A ladder (answer to `ladder`).
    Ladder {
        /// The rating category's id (`mille-classic-4`).
        category: String,
        /// The category in words ("Mille Bornes, classic, 4 players").
        title: String,
        /// The rated players, best first.
        entries: Vec<LadderEntry>,
    },
    /// Something the client sent was refused; nothing changed.
    Error(ErrorBody),
}

/// A refusal: a stable code for programs and a sentence for people.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    /// What kind of refusal.
    pub code: ErrorCode,
    /// The sentence to show (for an illegal move, the engine's reason).
    pub message: String,
    /// The id of the move refused, if it was a move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The table it concerns, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableId>,
}

/// The stable error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Not a message of this protocol (the sentence says why).
    BadMessage,
    /// A message larger than the limit.
    TooLarge,
    /// More messages than the rate limit allows; the connection is closed
    /// if it goes on.
    RateLimited,
    /// The client speaks another protocol version.
    Version,
    /// `hello` is needed first, or came twice.
    Handshake,
    /// The name is empty, too long or has characters names may not have.
    BadName,
    /// The name belongs to another token.
    NameTaken,
    /// The token is unknown or does not own the name.
    BadToken,
    /// The setup, seats or levels of a new table are not playable.
    BadSetup,
    /// There is no such table (or it is private and the code is wrong).
    NoSuchTable,
    /// The seat does not exist, or is not a person's.
    NoSuchSeat,
    /// The seat belongs to somebody else.
    SeatTaken,
    /// No free seat is left.
    TableFull,
    /// This connection has no seat at the table.
    NotSeated,
    /// The game has not started: some person's seat is still free.
    Waiting,
    /// It is not this seat's turn.
    NotYourTurn,
    /// The engine refused the move: the sentence is its reason.
    Illegal,
    /// The game is over.
    GameOver,
    /// The server cannot do it now (its database failed, it is stopping).
    Unavailable,
}

/// The limits a connection must keep, announced in `welcome`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Largest message the server reads, in bytes.
    pub max_message_bytes: usize,
    /// Messages a second a connection may send, on average.
    pub messages_per_second: u32,
    /// Messages a connection may send at once above the average.
    pub burst: u32,
    /// Seconds of silence after which the server closes a connection
    /// (send `ping` to stay).
    pub idle_seconds: u64,
    /// Seconds a player may be away before a computer plays the seat.
    pub away_seconds: u64,
    /// Seconds a bot may take over one decision (a move, or being ready
    /// for the next hand) before a computer plays its seat, or, in the
    /// arena, before it loses the game.
    #[serde(default)]
    pub decision_seconds: u64,
}

/// A seat this player holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatRef {
    /// The table.
    pub table: TableId,
    /// The game.
    pub game: GameKind,
    /// The seat.
    pub seat: usize,
}

/// A game the server hosts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameInfo {
    /// The game.
    pub game: GameKind,
    /// Its computer players' levels, weakest first.
    pub levels: Vec<String>,
}

/// A table as the lobby shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSummary {
    /// The table.
    pub id: TableId,
    /// The game.
    pub game: GameKind,
    /// The setup in words ("classic, 4 players in 2 teams").
    pub ruleset: String,
    /// The setup as the game reads it.
    pub setup: Value,
    /// The seats.
    pub seats: Vec<SeatSummary>,
    /// Waiting for people, playing, or over.
    pub status: TableStatus,
    /// Joined with an invitation code.
    pub private: bool,
    /// People watching.
    pub spectators: usize,
    /// The table's sequence number.
    pub seq: u64,
    /// Whether its result moves its players' ratings.
    #[serde(default)]
    pub rated: bool,
    /// Whether any bot may take a free person's seat.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bots: bool,
    /// The arena it was paired in (`mille-classic`), for an arena game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena: Option<String>,
}

/// How a table a player had left ended, told when they come back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ending {
    /// The table.
    pub table: TableId,
    /// The game.
    pub game: GameKind,
    /// The setup in words.
    pub ruleset: String,
    /// Whether this player abandoned the game (left and was not back at
    /// its end, or a computer played most of the seat).
    pub abandoned: bool,
    /// What happened, in a sentence or two ("ann won 5000 to 3200; you
    /// had left, so the game counts as abandoned: your rating 1500 →
    /// 1478").
    pub message: String,
}

/// A player's rating in one category, as the lobby shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RatingBrief {
    /// The rating, rounded.
    pub rating: i32,
    /// Its deviation, rounded.
    pub deviation: i32,
    /// Whether the deviation is still too high to trust the rating (shown
    /// as `1500?`).
    pub provisional: bool,
}

/// One line of a ladder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderEntry {
    /// The player (a built-in computer level is `computer: LEVEL`).
    pub name: String,
    /// The rating, rounded.
    pub rating: i32,
    /// Its deviation, rounded (grown by inactivity up to now).
    pub deviation: i32,
    /// Whether the rating is provisional.
    pub provisional: bool,
    /// Rated games played.
    pub games: u32,
    /// Rated games won.
    pub wins: u32,
    /// When the last rated game ended, in seconds since 1970.
    pub last_played: i64,
    /// Whether the player is a computer.
    pub computer: bool,
    /// Whether the player is a bot (a program with an account).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

/// Where a table's game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    /// Some person's seat is free: the game starts when every one is taken.
    Waiting,
    /// The game is on.
    Playing,
    /// The game is over.
    Over,
}

/// A seat as everybody sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatSummary {
    /// A person's place or a computer player.
    pub kind: SeatKindSummary,
    /// The computer's level, for a computer seat (or the stand-in playing
    /// for an away person).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// The person holding it, if taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
    /// Whether that person is connected now.
    pub connected: bool,
    /// Whether a computer plays the seat while its person is away.
    pub away: bool,
    /// The seat's player's rating in the table's category (a rated
    /// table's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<RatingBrief>,
    /// For a person who left a game in progress while somebody else is
    /// still at the table: seconds from this message until a computer
    /// plays the seat. (With nobody at the table the game is paused and
    /// no computer plays for anybody.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stand_in_in: Option<u64>,
    /// Whether the seat's player is a bot.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
    /// Whether the seat is kept for the bot named in `player`, invited
    /// and not yet come.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub invited: bool,
}

/// Who a seat was made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatKindSummary {
    /// A person.
    Human,
    /// A computer player.
    Computer,
}

impl ServerMessage {
    /// An error message.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMessage {
        ServerMessage::Error(ErrorBody {
            code,
            message: message.into(),
            id: None,
            table: None,
        })
    }

    /// The message as one line of JSON.
    pub fn to_json(&self) -> String {
        // Serializing these types cannot fail: every map key is a string.
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{\"type\":\"pong\"}"))
    }
}

impl ClientMessage {
    /// The message as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{\"type\":\"ping\"}"))
    }

    /// Reads a message, with a sentence saying what is wrong if it is not
    /// one.
    pub fn parse(text: &str) -> Result<ClientMessage, String> {
        serde_json::from_str(text).map_err(|e| format!("not a message of the table protocol: {e}"))
    }
}

/// The most characters in a bot's description.
pub const DESCRIPTION_MAX_CHARS: usize = 140;

/// Whether `description` may describe a bot: at most
/// [`DESCRIPTION_MAX_CHARS`] characters, none of them a control character.
pub fn check_description(description: &str) -> Result<(), String> {
    let count = description.chars().count();
    if count > DESCRIPTION_MAX_CHARS {
        return Err(format!(
            "a bot's description has at most {DESCRIPTION_MAX_CHARS} characters ({count} given)"
        ));
    }
    if description.chars().any(char::is_control) {
        return Err("a bot's description may not have control characters".into());
    }
    // Marks that reorder or hide text would make the lobby show something
    // else than what was written.
    if description.chars().any(|c| {
        matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
    }) {
        return Err("a bot's description may not have invisible or direction marks".into());
    }
    Ok(())
}

/// The most characters in a player's name: Mile Bones' limit.
pub const NAME_MAX_CHARS: usize = 31;

/// Whether `name` may be a player's name: 1 to [`NAME_MAX_CHARS`]
/// characters, letters, digits, spaces and `-_.'`, not starting or ending
/// with a space.
pub fn check_name(name: &str) -> Result<(), String> {
    let count = name.chars().count();
    if count == 0 || count > NAME_MAX_CHARS {
        return Err(format!(
            "a name has 1 to {NAME_MAX_CHARS} characters ({count} given)"
        ));
    }
    if name.starts_with(' ') || name.ends_with(' ') {
        return Err("a name may not start or end with a space".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | '\'')))
    {
        return Err(format!(
            "a name may have letters, digits, spaces and - _ . ' only, not {c:?}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn messages_read_back_as_written() {
        let hello = ClientMessage::Hello {
            version: VERSION,
            name: Some("ann".into()),
            token: None,
            client: Some("test".into()),
            bot: None,
        };
        assert_eq!(ClientMessage::parse(&hello.to_json()), Ok(hello));
        let mv = ClientMessage::parse(r#"{"type":"move","table":3,"id":7,"action":"draw"}"#);
        assert_eq!(
            mv,
            Ok(ClientMessage::Move {
                table: 3,
                id: 7,
                action: Value::from("draw")
            })
        );
        let create = ClientMessage::parse(
            r#"{"type":"create","game":"mille","seats":[{"kind":"human"},{"kind":"computer","level":"normal"}]}"#,
        );
        assert!(
            matches!(create, Ok(ClientMessage::Create(c)) if c.seats.len() == 2 && c.setup.is_null())
        );
    }

    #[test]
    fn unknown_fields_and_types_are_refused_with_a_reason() {
        let e = ClientMessage::parse(r#"{"type":"join","table":1,"extra":1}"#).unwrap_err();
        assert!(e.contains("extra"), "{e}");
        let e = ClientMessage::parse(r#"{"type":"fly"}"#).unwrap_err();
        assert!(e.contains("fly"), "{e}");
        assert!(ClientMessage::parse("").is_err());
    }

    #[test]
    fn names() {
        assert!(check_name("ann").is_ok());
        assert!(check_name("Zoë O'Neil-2").is_ok());
        assert!(check_name("").is_err());
        assert!(check_name(" ann").is_err());
        assert!(check_name("a\u{1b}[2J").is_err());
        // Mile Bones took names of up to 31 characters.
        assert!(check_name(&"x".repeat(31)).is_ok());
        assert!(check_name(&"x".repeat(32)).is_err());
    }

    #[test]
    fn descriptions() {
        assert!(check_description("").is_ok());
        assert!(check_description("plays the first legal move — in Ünicode").is_ok());
        // Characters are counted, not bytes.
        assert!(check_description(&"é".repeat(DESCRIPTION_MAX_CHARS)).is_ok());
        assert!(check_description(&"x".repeat(DESCRIPTION_MAX_CHARS + 1)).is_err());
        assert!(check_description("line one\nline two").is_err());
        assert!(check_description("\u{1b}[2J").is_err());
        // A right-to-left override would show "evil" as "live".
        assert!(check_description("\u{202E}evil").is_err());
        assert!(check_description("zero\u{200B}width").is_err());
    }

    #[test]
    fn a_bots_hello_and_a_bot_seat_read_back() {
        let hello = ClientMessage::parse(
            r#"{"type":"hello","version":1,"name":"robo","bot":{"owner":"ann"}}"#,
        );
        let Ok(ClientMessage::Hello { bot: Some(bot), .. }) = hello else {
            panic!("a bot's hello: {hello:?}");
        };
        assert_eq!(
            bot,
            BotInfo {
                owner: "ann".into(),
                description: String::new(),
                arena: false
            }
        );
        let e = ClientMessage::parse(
            r#"{"type":"hello","version":1,"name":"robo","bot":{"owner":"ann","age":3}}"#,
        )
        .unwrap_err();
        assert!(e.contains("age"), "{e}");
        let create = ClientMessage::parse(
            r#"{"type":"create","game":"mille","seats":[{"kind":"human"},{"kind":"bot","name":"robo"}],"bots":true}"#,
        );
        let Ok(ClientMessage::Create(create)) = create else {
            panic!("a create with a bot seat: {create:?}");
        };
        assert!(create.bots);
        assert_eq!(
            create.seats[1],
            SeatRequest::Bot {
                name: "robo".into()
            }
        );
        // Left out when false: older readers see what they always saw.
        let plain = serde_json::to_string(&BotSummary {
            name: "robo".into(),
            owner: "ann".into(),
            description: String::new(),
            arena: false,
        })
        .expect("JSON");
        assert!(!plain.contains("arena"), "{plain}");
    }

    proptest! {
        #[test]
        fn any_text_parses_or_is_refused_without_panic(text in ".{0,200}") {
            let _ = ClientMessage::parse(&text);
        }

        #[test]
        fn any_name_is_checked_without_panic(name in ".{0,40}") {
            let _ = check_name(&name);
        }
    }
}
