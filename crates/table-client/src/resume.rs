//! What a session must send again after it reconnects, worked out from the
//! messages that went each way: the tables it sits or watches at (with the
//! last sequence number seen) and the moves not yet answered. Pure: no
//! sockets, no clock, so every case is a unit test.

use serde_json::Value;
use std::collections::BTreeMap;
use table_protocol::{ClientMessage, ErrorBody, ServerMessage, TableId};

/// How the session is at a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// Playing this seat.
    Seat(usize),
    /// Watching.
    Watching,
}

/// A table the session is at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Presence {
    /// Playing or watching.
    pub place: Place,
    /// The last sequence number seen of the table.
    pub seq: u64,
    /// The invitation code it was joined with (a private table).
    pub code: Option<String>,
}

/// A move sent but neither acknowledged nor refused yet.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingMove {
    /// The table.
    pub table: TableId,
    /// The action.
    pub action: Value,
}

/// Whether `error` answers the move sent to `table` with `id`, so that the
/// move is no longer on its way: the error carries that id, or it carries
/// no id and concerns that table or none. An error without id may be the
/// move's (a message dropped over the rate limit, a server that cannot
/// play now) and no other answer will come for it, so a game waiting for
/// one would wait forever; if it was not the move's, the server refuses
/// the move sent again or answers it as it would have. Every client
/// frees its pending move on the same errors.
pub fn error_concerns_move(error: &ErrorBody, table: TableId, id: u64) -> bool {
    error.table.is_none_or(|t| t == table) && error.id.is_none_or(|e| e == id)
}

/// The reconnection state: fed every message sent ([`Resume::sent`]) and
/// received ([`Resume::received`]), it tells what to send after the next
/// `welcome` ([`Resume::after_welcome`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resume {
    tables: BTreeMap<TableId, Presence>,
    pending: BTreeMap<u64, PendingMove>,
    /// Codes sent with a `join` or `watch` not answered yet.
    codes: BTreeMap<TableId, String>,
}

impl Resume {
    /// Nothing to resume.
    pub fn new() -> Resume {
        Resume::default()
    }

    /// Notes a message the client sends (or will send once connected).
    pub fn sent(&mut self, message: &ClientMessage) {
        match message {
            ClientMessage::Move { table, id, action } => {
                self.pending.insert(
                    *id,
                    PendingMove {
                        table: *table,
                        action: action.clone(),
                    },
                );
            }
            ClientMessage::Join { table, code, .. } | ClientMessage::Watch { table, code, .. } => {
                match code {
                    Some(code) => self.codes.insert(*table, code.clone()),
                    None => self.codes.remove(table),
                };
            }
            ClientMessage::Leave { table } => {
                // Leaving is meant at once: a drop before `left` arrives
                // must not take the player back to the table.
                self.tables.remove(table);
                self.pending.retain(|_, m| m.table != *table);
            }
            _ => {}
        }
    }

    /// Notes a message from the server.
    pub fn received(&mut self, message: &ServerMessage) {
        match message {
            ServerMessage::Joined {
                table, seat, seq, ..
            } => self.arrive(*table, Place::Seat(*seat), *seq),
            ServerMessage::Watching { table, seq, .. } => {
                self.arrive(*table, Place::Watching, *seq)
            }
            ServerMessage::Update { table, seq, .. } => {
                if let Some(presence) = self.tables.get_mut(table) {
                    presence.seq = presence.seq.max(*seq);
                }
            }
            ServerMessage::Ack { table, id, .. } => self.answered(*table, *id),
            // The game has given up such a move: sending it again after a
            // reconnection would play a move the player no longer means.
            ServerMessage::Error(body) => self
                .pending
                .retain(|&id, m| !error_concerns_move(body, m.table, id)),
            ServerMessage::Left { table } => {
                self.tables.remove(table);
            }
            _ => {}
        }
    }

    fn arrive(&mut self, table: TableId, place: Place, seq: u64) {
        let code = self
            .codes
            .remove(&table)
            .or_else(|| self.tables.get(&table).and_then(|p| p.code.clone()));
        self.tables.insert(table, Presence { place, seq, code });
    }

    fn answered(&mut self, table: TableId, id: u64) {
        if self.pending.get(&id).is_some_and(|m| m.table == table) {
            self.pending.remove(&id);
        }
    }

    /// What to send after `welcome` on a new connection: for each table,
    /// `join` (its seat) or `watch` with `since` the last sequence number
    /// seen, then every pending move again with its same id, oldest first
    /// (the server answers a move it already has with its first `ack`).
    pub fn after_welcome(&self) -> Vec<ClientMessage> {
        let places = self.tables.iter().map(|(&table, p)| match p.place {
            Place::Seat(seat) => ClientMessage::Join {
                table,
                seat: Some(seat),
                code: p.code.clone(),
                since: Some(p.seq),
            },
            Place::Watching => ClientMessage::Watch {
                table,
                code: p.code.clone(),
                since: Some(p.seq),
            },
        });
        let moves = self.pending.iter().map(|(&id, m)| ClientMessage::Move {
            table: m.table,
            id,
            action: m.action.clone(),
        });
        places.chain(moves).collect()
    }

    /// The tables the session is at.
    pub fn tables(&self) -> &BTreeMap<TableId, Presence> {
        &self.tables
    }

    /// The moves not answered yet, by id.
    pub fn pending(&self) -> &BTreeMap<u64, PendingMove> {
        &self.pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use table_protocol::{ErrorBody, ErrorCode};

    fn joined(table: TableId, seat: usize, seq: u64) -> ServerMessage {
        ServerMessage::Joined {
            table,
            seat,
            seq,
            observation: Value::Null,
        }
    }

    fn update(table: TableId, seq: u64) -> ServerMessage {
        ServerMessage::Update {
            table,
            seq,
            observation: Value::Null,
            seats: vec![],
        }
    }

    fn mv(table: TableId, id: u64, action: &str) -> ClientMessage {
        ClientMessage::Move {
            table,
            id,
            action: Value::from(action),
        }
    }

    fn refusal(table: Option<TableId>, id: Option<u64>) -> ServerMessage {
        ServerMessage::Error(ErrorBody {
            code: ErrorCode::Illegal,
            message: "no".into(),
            id,
            table,
        })
    }

    #[test]
    fn a_fresh_session_sends_nothing_again() {
        assert_eq!(Resume::new().after_welcome(), vec![]);
    }

    #[test]
    fn a_seat_is_taken_back_since_the_last_seq_then_pending_moves_resent() {
        let mut r = Resume::new();
        r.sent(&ClientMessage::Join {
            table: 4,
            seat: None,
            code: Some("abc".into()),
            since: None,
        });
        r.received(&joined(4, 2, 10));
        r.received(&update(4, 11));
        r.received(&update(9, 50)); // another table's: not ours
        r.sent(&mv(4, 100, "draw"));
        r.sent(&mv(4, 101, "play D200 1"));
        r.sent(&mv(4, 102, "discard X"));
        r.received(&ServerMessage::Ack {
            table: 4,
            id: 100,
            seq: 12,
        });
        r.received(&update(4, 12));
        assert_eq!(
            r.after_welcome(),
            vec![
                ClientMessage::Join {
                    table: 4,
                    seat: Some(2),
                    code: Some("abc".into()),
                    since: Some(12),
                },
                mv(4, 101, "play D200 1"),
                mv(4, 102, "discard X"),
            ]
        );
    }

    #[test]
    fn resuming_twice_keeps_what_is_still_unanswered() {
        let mut r = Resume::new();
        r.received(&joined(1, 0, 3));
        r.sent(&mv(1, 7, "draw"));
        let first = r.after_welcome();
        // The resent messages go through `sent` again, as the session does.
        for m in &first {
            r.sent(m);
        }
        r.received(&joined(1, 0, 3));
        assert_eq!(r.after_welcome(), first);
        r.received(&ServerMessage::Ack {
            table: 1,
            id: 7,
            seq: 4,
        });
        r.received(&update(1, 4));
        assert_eq!(
            r.after_welcome(),
            vec![ClientMessage::Join {
                table: 1,
                seat: Some(0),
                code: None,
                since: Some(4),
            }]
        );
    }

    #[test]
    fn a_refused_move_is_not_resent() {
        let mut r = Resume::new();
        r.received(&joined(1, 0, 0));
        r.sent(&mv(1, 7, "draw"));
        r.sent(&mv(1, 8, "draw"));
        r.received(&refusal(Some(1), Some(7)));
        r.received(&refusal(None, Some(8)));
        r.received(&refusal(Some(1), None));
        assert!(r.pending().is_empty());
    }

    #[test]
    fn an_error_without_id_ends_the_moves_at_its_table() {
        let mut r = Resume::new();
        r.received(&joined(1, 0, 0));
        r.received(&joined(2, 0, 0));
        r.sent(&mv(1, 7, "draw"));
        r.sent(&mv(2, 8, "Roll"));
        // Over the rate limit: no table, no id, maybe any move.
        r.received(&ServerMessage::Error(ErrorBody {
            code: ErrorCode::RateLimited,
            message: "dropped".into(),
            id: None,
            table: None,
        }));
        assert!(r.pending().is_empty());
        r.sent(&mv(1, 9, "draw"));
        r.sent(&mv(2, 10, "Roll"));
        r.received(&refusal(Some(2), None));
        // Another move's refusal is not this one's.
        r.received(&refusal(Some(1), Some(11)));
        r.received(&refusal(None, Some(12)));
        assert_eq!(r.pending().keys().collect::<Vec<_>>(), [&9]);
    }

    #[test]
    fn the_same_errors_concern_a_move_for_every_client() {
        let body = |table, id| ErrorBody {
            code: ErrorCode::Unavailable,
            message: String::new(),
            id,
            table,
        };
        assert!(error_concerns_move(&body(Some(1), Some(7)), 1, 7));
        assert!(error_concerns_move(&body(None, Some(7)), 1, 7));
        assert!(error_concerns_move(&body(Some(1), None), 1, 7));
        assert!(error_concerns_move(&body(None, None), 1, 7));
        assert!(!error_concerns_move(&body(Some(1), Some(8)), 1, 7));
        assert!(!error_concerns_move(&body(Some(2), Some(7)), 1, 7));
        assert!(!error_concerns_move(&body(Some(2), None), 1, 7));
    }

    #[test]
    fn an_answer_about_another_table_leaves_the_move_pending() {
        let mut r = Resume::new();
        r.sent(&mv(1, 7, "draw"));
        r.received(&ServerMessage::Ack {
            table: 2,
            id: 7,
            seq: 1,
        });
        r.received(&refusal(Some(2), Some(7)));
        assert_eq!(r.pending().len(), 1);
    }

    #[test]
    fn watching_is_resumed_as_watching() {
        let mut r = Resume::new();
        r.received(&ServerMessage::Watching {
            table: 5,
            seq: 8,
            observation: Value::Null,
        });
        r.received(&update(5, 9));
        assert_eq!(
            r.after_welcome(),
            vec![ClientMessage::Watch {
                table: 5,
                code: None,
                since: Some(9),
            }]
        );
    }

    #[test]
    fn leaving_forgets_the_table_and_its_moves_at_once() {
        let mut r = Resume::new();
        r.received(&joined(1, 0, 0));
        r.received(&joined(2, 1, 5));
        r.sent(&mv(1, 7, "draw"));
        r.sent(&mv(2, 8, "Roll"));
        r.sent(&ClientMessage::Leave { table: 1 });
        assert_eq!(
            r.after_welcome(),
            vec![
                ClientMessage::Join {
                    table: 2,
                    seat: Some(1),
                    code: None,
                    since: Some(5),
                },
                mv(2, 8, "Roll"),
            ]
        );
        r.received(&ServerMessage::Left { table: 2 });
        assert_eq!(r.after_welcome(), vec![mv(2, 8, "Roll")]);
    }

    #[test]
    fn an_older_update_never_moves_seq_back() {
        let mut r = Resume::new();
        r.received(&joined(1, 0, 10));
        r.received(&update(1, 9));
        assert_eq!(r.tables()[&1].seq, 10);
    }
}
