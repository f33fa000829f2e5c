//! The client side of the table server (`docs/table-protocol.md`), for the
//! terminal games, the tests and load generators:
//!
//! - [`Target`]: where a server is (its Unix socket, or host and port);
//! - [`Connection`]: one async WebSocket connection, typed or raw, whose
//!   typed messages carry no control character ([`printable`]): no server
//!   writes escape sequences to a player's terminal;
//! - [`TokenStore`]: the tokens that keep a player's name, per server;
//! - [`Session`]: a blocking session for a game's loop that reconnects by
//!   itself and resumes where it was ([`Resume`]: what is sent again);
//! - [`Absences`]: who left a table and the countdown until a computer
//!   plays for them, as the other players see it;
//! - [`seats`]: a bot's seat and a declined invitation in words.

mod absence;
mod connection;
#[cfg(test)]
mod fake_server_tests;
pub mod ladder;
mod printable;
mod resume;
pub mod seats;
mod session;
mod target;
mod tls;
mod tokens;

pub use absence::{Absences, Absent, StandIn, seconds_left};
pub use connection::{
    CLIENT_NAME, CONNECT_TIMEOUT, ClientError, Connection, HELLO_TIMEOUT, Welcome,
};
pub use printable::{REPLACEMENT, printable};
pub use resume::{PendingMove, Place, Presence, Resume, error_concerns_move};
pub use session::{Backoff, Failure, Link, Note, Session};
pub use target::{TLS_DEFAULT_PORT, Target, TargetError};
pub use tokens::{Credentials, TOKENS_FILE, TokenError, TokenStore};

/// The protocol's types, so a client needs no second dependency for them.
pub use table_protocol as protocol;
