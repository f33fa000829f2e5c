//! Playing at a table server: the remote counterpart of [`crate::host::Host`].
//! The server owns the game; the screen is the same as against the
//! computer here, fed with the seat's observations as the server sends
//! them.
//!
//! - [`Remote`] is the pure translation: the model's effects become
//!   messages for the server ([`Order`]), and the session's notes become
//!   the events the model understands (the answer to the player's move as
//!   [`Event::Acted`], every other change of the table as
//!   [`Event::Observed`], the connection as [`Event::Link`]).
//! - [`RemoteHost`] carries the orders out with a [`Session`], which
//!   reconnects by itself and takes the seat back (with `since`, so the
//!   observation then brings the events missed).

use crate::host::NoUndo;
use crate::update::{Effect, Event, NO_SAVE_AT_A_SERVER};
use mille_engine::{Action, Observation};
use serde_json::Value;
use std::time::Instant;
use table_client::protocol::{ClientMessage, SeatKindSummary, SeatSummary, ServerMessage, TableId};
use table_client::{Note, Session, error_concerns_move};

/// What an effect asks of the server.
#[derive(Clone, Debug, PartialEq)]
pub enum Order {
    /// Send this move for the player's seat ([`Session::play`]); its id
    /// goes back to [`Remote::sent`].
    Play(Action),
    /// Send this message.
    Send(ClientMessage),
    /// Nothing goes to the server: the model hears this at once.
    Answer(Event),
    /// Nothing to do (the server runs its computer players itself).
    Nothing,
}

/// The translation between the model and a table server, for one table:
/// which move is on its way, and which update answers it.
#[derive(Clone, Debug, PartialEq)]
pub struct Remote {
    table: TableId,
    /// The move sent and not answered yet: its id and action.
    pending: Option<(u64, Action)>,
    /// The table was joined again (after a reconnection) since the pending
    /// move was sent: the server may have had the move before.
    rejoined: bool,
    /// The move acknowledged whose update has not come yet.
    acked: Option<Action>,
    /// The last sequence number of the table seen.
    seq: u64,
    /// The last observation, without its events (they were told).
    last: Option<Box<Observation>>,
}

impl Remote {
    /// The translation for `table`, joined (or watched) at sequence number
    /// `seq`.
    pub fn new(table: TableId, seq: u64) -> Remote {
        Remote {
            table,
            pending: None,
            rejoined: false,
            acked: None,
            seq,
            last: None,
        }
    }

    /// The table.
    pub fn table(&self) -> TableId {
        self.table
    }

    /// What `effect` asks of the server.
    pub fn order(&self, effect: &Effect) -> Order {
        match effect {
            Effect::Act(action) => Order::Play(*action),
            // The server deals when every player there is ready.
            Effect::Deal(_) => Order::Send(ClientMessage::Ready { table: self.table }),
            Effect::Undo => Order::Answer(Event::Undone(Err(NoUndo::SharedTable))),
            Effect::Save { .. } => Order::Answer(Event::Saved(Err(NO_SAVE_AT_A_SERVER.into()))),
            _ => Order::Nothing,
        }
    }

    /// The move `action` went to the server with `id`.
    pub fn sent(&mut self, id: u64, action: Action) {
        self.pending = Some((id, action));
        self.rejoined = false;
    }

    /// The events a note of the session makes for the model.
    pub fn note(&mut self, note: Note) -> Vec<Event> {
        match note {
            Note::Connection(link) => vec![Event::Link(link)],
            Note::Message(message) => self.message(message),
        }
    }

    fn message(&mut self, message: ServerMessage) -> Vec<Event> {
        match message {
            ServerMessage::Update {
                table,
                seq,
                observation,
                seats,
            } if table == self.table => {
                self.seq = self.seq.max(seq);
                let free = Event::Seats {
                    free: free_seats(&seats),
                };
                let people = Event::People {
                    seats,
                    at: Instant::now(),
                };
                let observation = match self.read(observation) {
                    Ok(o) => o,
                    Err(e) => return vec![free, e, people],
                };
                // The update that follows the player's acknowledged move
                // is its answer (the server sends the mover `ack`, then
                // the update with what the move showed).
                let changed = match self.acked.take() {
                    Some(action) => Event::Acted {
                        action,
                        result: Ok(observation),
                    },
                    None => Event::Observed(observation),
                };
                vec![free, changed, people]
            }
            ServerMessage::Joined {
                table,
                seq,
                observation,
                ..
            }
            | ServerMessage::Watching {
                table,
                seq,
                observation,
            } if table == self.table => {
                // Back after a reconnection: the events missed meanwhile.
                self.seq = self.seq.max(seq);
                self.rejoined = self.pending.is_some();
                vec![self.read(observation).map_or_else(|e| e, Event::Observed)]
            }
            ServerMessage::Ack { table, id, seq } if table == self.table => {
                match self.pending {
                    Some((sent, action)) if sent == id => {
                        self.pending = None;
                        // Sent again after a reconnection and numbered no
                        // later than the table rejoined: the server had it
                        // before the drop, the observation taken on
                        // rejoining shows it, and no update follows.
                        if std::mem::take(&mut self.rejoined) && seq <= self.seq {
                            return match &self.last {
                                Some(last) => vec![Event::Acted {
                                    action,
                                    result: Ok(last.clone()),
                                }],
                                None => Vec::new(),
                            };
                        }
                        self.acked = Some(action);
                        Vec::new()
                    }
                    _ => Vec::new(),
                }
            }
            // An error without id at this table may be the move's (dropped
            // over the rate limit...): the move is taken as refused, so the
            // player can move again, as in every client.
            ServerMessage::Error(body) => match self.pending {
                Some((sent, action)) if error_concerns_move(&body, self.table, sent) => {
                    self.pending = None;
                    self.rejoined = false;
                    vec![Event::Acted {
                        action,
                        result: Err(body.message),
                    }]
                }
                _ if body.table.is_none_or(|t| t == self.table) => {
                    vec![Event::Refused(body.message)]
                }
                _ => Vec::new(),
            },
            ServerMessage::Declined {
                table, bot, reason, ..
            } if table == self.table => vec![Event::Told(
                table_client::seats::declined_text(&bot, &reason),
            )],
            ServerMessage::Left { table } if table == self.table => vec![Event::Refused(
                "This seat is now played from another terminal: this one no longer follows the table."
                    .into(),
            )],
            _ => Vec::new(),
        }
    }
}

impl Remote {
    /// The observation in a server message (kept, without its events, as
    /// the last one), or the event saying it cannot be read.
    fn read(&mut self, observation: Value) -> Result<Box<Observation>, Event> {
        let observation: Box<Observation> = serde_json::from_value(observation)
            .map(Box::new)
            .map_err(|e| {
                Event::Refused(format!(
                    "The server sent a table this mille cannot read ({e}): is it another version?"
                ))
            })?;
        let mut last = observation.clone();
        last.events.clear();
        self.last = Some(last);
        Ok(observation)
    }
}

/// People's seats nobody has taken yet.
pub fn free_seats(seats: &[SeatSummary]) -> usize {
    seats
        .iter()
        .filter(|s| s.kind == SeatKindSummary::Human && s.player.is_none())
        .count()
}

/// The remote host: a [`Session`] with the table server and the
/// translation for the table the player sits (or watches) at.
#[derive(Debug)]
pub struct RemoteHost {
    session: Session,
    remote: Remote,
}

impl RemoteHost {
    /// Plays at `table` (joined at sequence number `seq`) through
    /// `session`.
    pub fn new(session: Session, table: TableId, seq: u64) -> RemoteHost {
        RemoteHost {
            session,
            remote: Remote::new(table, seq),
        }
    }

    /// Carries out a game effect: the event that answers it at once, if
    /// any (the server's answers come later, through [`RemoteHost::poll`]).
    pub fn carry_out(&mut self, effect: &Effect) -> Option<Event> {
        match self.remote.order(effect) {
            Order::Play(action) => {
                let id = self
                    .session
                    .play(self.remote.table(), Value::from(action.to_string()));
                self.remote.sent(id, action);
                None
            }
            Order::Send(message) => {
                self.session.send(message);
                None
            }
            Order::Answer(event) => Some(event),
            Order::Nothing => None,
        }
    }

    /// Leaves the table (a spectator stops watching it) and gives the
    /// session back, for the lobby to choose another table with.
    pub fn leave(self) -> Session {
        self.session.send(ClientMessage::Leave {
            table: self.remote.table(),
        });
        self.session
    }

    /// The server's `away_seconds` (from its welcome), once known.
    pub fn away_seconds(&self) -> Option<u64> {
        self.session.limits().map(|l| l.away_seconds)
    }

    /// The events of every note the session has now.
    pub fn poll(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        while let Some(note) = self.session.try_recv() {
            events.extend(self.remote.note(note));
        }
        events
    }
}
