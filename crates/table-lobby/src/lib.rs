//! The lobby of a table server in the terminal, the same for both games:
//! the tables with their seats, a new table from the game's presets, join,
//! watch, join a private table by its code, play against one of the bots
//! connected to the server (a table with a seat kept for it), and the
//! name's token: a new one in place of the old, or signing out. [`Lobby`]
//! is the pure model (keys and server messages in, [`Step`]s out) and
//! [`draw`] its view; [`run`] is the loop over a [`Session`] that returns
//! what the player chose.

use game_signals::{HANGUP, Stop, Ttys};
use ratatui::Frame;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::text::Text;
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table as Grid, TableState, Wrap};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};
use table_client::protocol::{
    BotSummary, ClientMessage, CreateTable, Ending, ErrorBody, ErrorCode, GameInfo, GameKind,
    RatingBrief, SeatKindSummary, SeatRequest, ServerMessage, TableId, TableStatus, TableSummary,
};
pub use table_client::seats::{bot_mark, declined_text};
use table_client::{Failure, Link, Note, Session};

/// A kind of table the player can open: a setup and its number of seats.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// What the menu says ("bsd, 2 players").
    pub label: String,
    /// The setup, as the game reads it.
    pub setup: Value,
    /// Number of seats.
    pub seats: usize,
    /// The level the other seats start at (a person's place if `None`).
    pub others: Option<String>,
    /// The seats (from 0) that play together, a list a team, as the
    /// game's rules pair them; empty when everyone plays alone. The form
    /// shows who partners whom.
    pub teams: Vec<Vec<usize>>,
}

/// What the player chose.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    /// Play at `table` in `seat`; the `joined` message's sequence number
    /// and observation.
    Play {
        /// The table.
        table: TableId,
        /// The seat.
        seat: usize,
        /// The table's sequence number.
        seq: u64,
        /// The seat's observation.
        observation: Value,
    },
    /// Watch `table`.
    Watch {
        /// The table.
        table: TableId,
        /// The table's sequence number.
        seq: u64,
        /// The spectators' observation.
        observation: Value,
    },
    /// Leave the program.
    Quit,
}

/// What the lobby shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Screen {
    /// The tables.
    List,
    /// A new table: the preset, and each seat but the player's (seat 0).
    New {
        /// The preset chosen.
        preset: usize,
        /// Per seat after the first: `None` for a person, else a level.
        /// With a bot to play against, the first of them is the bot's
        /// and its entry here is not used.
        seats: Vec<Option<String>>,
        /// The bot to play against ("play against..."): seat 1 is kept
        /// for it, and it is invited when the table opens.
        bot: Option<String>,
        /// The line of the form that has the cursor (0: the preset, 1..:
        /// the seats, then "private", then "rated").
        line: usize,
        /// Whether the table is private.
        private: bool,
        /// Whether the game's result moves its players' ratings (rated,
        /// the default) or not (casual).
        rated: bool,
    },
    /// Typing a private table's number and code: "12 abcdef0123".
    Code(String),
    /// "Play against...": the bots connected to the server, to choose one.
    Bots {
        /// The bots, once the server has told them (`None` while asked).
        bots: Option<Vec<BotSummary>>,
        /// The line chosen.
        selected: usize,
    },
    /// The server refused the name: typing another.
    Name {
        /// Why the name was refused, in full.
        why: String,
        /// The name typed so far.
        text: String,
    },
    /// Asking whether to sign out.
    SignOut,
    /// Signed out: what it did, in full; only quitting is left.
    SignedOut(String),
}

/// A request of the lobby's that the server has not answered yet: its
/// refusal sends the player back to a fresh list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Taking back the seat held at this table, unasked, after `welcome`.
    Rejoin(TableId),
    /// A seat at this table.
    Join(TableId),
    /// Watching this table.
    Watch(TableId),
    /// A new table.
    Create,
}

impl Request {
    /// Whether `error` is the server's refusal of this request. A message
    /// dropped over the rate limit, or one the server could not read, is
    /// no answer (it says nothing of the tables).
    fn refused_by(self, error: &ErrorBody) -> bool {
        if matches!(
            error.code,
            ErrorCode::RateLimited | ErrorCode::TooLarge | ErrorCode::BadMessage
        ) {
            return false;
        }
        match self {
            Request::Rejoin(t) | Request::Join(t) | Request::Watch(t) => error.table == Some(t),
            Request::Create => error.table.is_none(),
        }
    }
}

/// What the loop must do after a step.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Nothing.
    Stay,
    /// Send this to the server.
    Send(ClientMessage),
    /// The lobby is done.
    Done(Choice),
    /// Connect again under this name (the last one was refused).
    Rename(String),
}

/// The lobby's model.
#[derive(Clone, Debug)]
pub struct Lobby {
    /// The game this program plays (its tables come first and are the only
    /// ones that can be joined).
    pub game: GameKind,
    /// The server, as the player named it.
    pub server: String,
    /// The player's name, once welcomed.
    pub name: Option<String>,
    /// The game's presets.
    pub presets: Vec<Preset>,
    /// The computer levels, from the welcome.
    pub levels: Vec<String>,
    /// The tables, this game's only.
    pub tables: Vec<TableSummary>,
    /// The selected line.
    pub selected: usize,
    /// The screen.
    pub screen: Screen,
    /// The status line: the connection, a refusal, what happens.
    pub status: String,
    /// The tables where the player holds a seat at an unfinished game
    /// (from the welcome), but for those whose seat could not be taken
    /// back.
    pub held: Vec<TableId>,
    /// Tables whose seat the lobby failed to take back (the game is over,
    /// the server lost the table): not tried again after a reconnection.
    pub refused: Vec<TableId>,
    /// The request on its way, if any.
    pub asked: Option<Request>,
    /// The table to select when the next list comes (a finished game to
    /// watch).
    pub focus: Option<TableId>,
    /// Whether the session is connected (the list is refreshed only then).
    pub online: bool,
    /// Why the session gave up, if it did: shown in full in place of the
    /// tables (the status line is too short for it).
    pub failed: Option<String>,
    /// The invitation code of the private table just opened, to show.
    pub invitation: Option<(TableId, String)>,
    /// How the tables this player had left ended while they were away
    /// (the server's `ended`): shown until a key dismisses them.
    pub ended: Vec<Ending>,
    /// The table taken back (or watched) while the endings were shown:
    /// the lobby is done once they are dismissed.
    pub after_ended: Option<Choice>,
}

impl Lobby {
    /// An empty lobby for `game` at `server`.
    pub fn new(game: GameKind, server: impl Into<String>, presets: Vec<Preset>) -> Lobby {
        Lobby {
            game,
            server: server.into(),
            name: None,
            presets,
            levels: Vec::new(),
            tables: Vec::new(),
            selected: 0,
            screen: Screen::List,
            status: "connecting...".into(),
            held: Vec::new(),
            refused: Vec::new(),
            asked: None,
            focus: None,
            online: false,
            failed: None,
            invitation: None,
            ended: Vec::new(),
            after_ended: None,
        }
    }

    /// Whether the loop should ask for the list again now that some time
    /// has passed: only on the list, and only while connected (asked for
    /// offline, lists would pile up for the next connection).
    pub fn refreshes(&self) -> bool {
        self.online && self.screen == Screen::List
    }

    /// Whether the player holds a seat at `table`: the welcome said so, or
    /// a seat there is under the player's name.
    pub fn holds(&self, table: &TableSummary) -> bool {
        self.held.contains(&table.id)
            || self.name.as_ref().is_some_and(|me| {
                table
                    .seats
                    .iter()
                    .any(|s| s.player.as_deref() == Some(me.as_str()))
            })
    }

    /// Sends `message`, a request the lobby waits for.
    fn ask(&mut self, request: Request, message: ClientMessage) -> Step {
        self.asked = Some(request);
        Step::Send(message)
    }

    /// A note from the session.
    pub fn note(&mut self, note: Note) -> Step {
        match note {
            Note::Connection(Link::Connected) => {
                self.online = true;
                self.status = "connected".into();
                Step::Stay
            }
            Note::Connection(Link::Reconnecting { attempt, why }) => {
                self.online = false;
                self.status = format!("reconnecting (attempt {attempt}): {why}");
                Step::Stay
            }
            Note::Connection(Link::Warning(w)) => {
                self.status = w;
                Step::Stay
            }
            Note::Connection(Link::Failed(why)) => {
                self.online = false;
                self.status = "cannot play on this server: q quits".into();
                self.failed = Some(why);
                Step::Stay
            }
            Note::Message(m) => self.message(m),
        }
    }

    /// A message from the server.
    pub fn message(&mut self, m: ServerMessage) -> Step {
        match m {
            ServerMessage::Welcome {
                name, seats, games, ..
            } => {
                self.status = format!("welcome, {name}");
                self.name = Some(name);
                // Whatever was on its way went with the old connection.
                self.asked = None;
                self.held = seats
                    .iter()
                    .filter(|s| s.game == self.game && !self.refused.contains(&s.table))
                    .map(|s| s.table)
                    .collect();
                self.levels = games
                    .into_iter()
                    .find(|g: &GameInfo| g.game == self.game)
                    .map(|g| g.levels)
                    .unwrap_or_default();
                match self.held.as_slice() {
                    [] => {}
                    &[table] => {
                        self.status = format!("taking your seat back at table {table}");
                        return self.ask(
                            Request::Rejoin(table),
                            ClientMessage::Join {
                                table,
                                seat: None,
                                code: None,
                                since: None,
                            },
                        );
                    }
                    several => {
                        // Which one is the player's choice.
                        let tables: Vec<String> = several.iter().map(|t| t.to_string()).collect();
                        self.status = format!(
                            "you hold seats at tables {} (marked *): choose one",
                            tables.join(", ")
                        );
                    }
                }
                Step::Send(ClientMessage::List)
            }
            ServerMessage::Tables { tables } => {
                self.tables = tables.into_iter().filter(|t| t.game == self.game).collect();
                if let Some(focus) = self.focus.take() {
                    match self.tables.iter().position(|t| t.id == focus) {
                        Some(at) => self.selected = at,
                        None => self.status = format!("table {focus} is no longer listed"),
                    }
                }
                self.selected = self.selected.min(self.tables.len().saturating_sub(1));
                Step::Stay
            }
            ServerMessage::Created { table, code } => {
                if let Some(code) = code {
                    self.invitation = Some((table.id, code));
                }
                self.status = format!("table {} is open", table.id);
                // The lobby sits down at once: the answer is the join's.
                if self.asked == Some(Request::Create) {
                    self.asked = Some(Request::Join(table.id));
                }
                Step::Stay
            }
            ServerMessage::Joined {
                table,
                seat,
                seq,
                observation,
            } => self.done(Choice::Play {
                table,
                seat,
                seq,
                observation,
            }),
            ServerMessage::Watching {
                table,
                seq,
                observation,
            } => self.done(Choice::Watch {
                table,
                seq,
                observation,
            }),
            ServerMessage::Ended { tables } => {
                if !tables.is_empty() {
                    self.status = match tables.len() {
                        1 => "a table you had left has ended: any key goes on".into(),
                        n => format!("{n} tables you had left have ended: any key goes on"),
                    };
                    self.ended.extend(tables);
                }
                Step::Stay
            }
            ServerMessage::Token { .. } => {
                // The session has kept it already.
                let name = self.name.as_deref().unwrap_or("your name");
                self.status = format!(
                    "a new token for {name} is kept on this machine: the old one signs in nowhere now"
                );
                Step::Stay
            }
            ServerMessage::SignedOut => {
                self.status = "signed out".into();
                Step::Stay
            }
            ServerMessage::Bots { bots } => {
                if let Screen::Bots { selected, .. } = self.screen {
                    let selected = selected.min(bots.len().saturating_sub(1));
                    self.status = match bots.len() {
                        0 => "no bot is connected to this server now".into(),
                        1 => "one bot is connected: Enter opens a table to play against it".into(),
                        n => format!("{n} bots are connected: choose one to play against"),
                    };
                    self.screen = Screen::Bots {
                        bots: Some(bots),
                        selected,
                    };
                }
                Step::Stay
            }
            ServerMessage::Declined { bot, reason, .. } => {
                self.status = declined_text(&bot, &reason);
                // The table's seats changed: the list says so.
                if self.refreshes() {
                    return Step::Send(ClientMessage::List);
                }
                Step::Stay
            }
            ServerMessage::Error(e) => self.error(e),
            _ => Step::Stay,
        }
    }

    /// The lobby's end, unless the endings are still shown: then it waits
    /// for the key that dismisses them.
    fn done(&mut self, choice: Choice) -> Step {
        if self.ended.is_empty() {
            return Step::Done(choice);
        }
        self.status = match &choice {
            Choice::Play { table, .. } => {
                format!("your seat at table {table} is back: any key goes there")
            }
            Choice::Watch { table, .. } => format!("watching table {table}: any key goes there"),
            Choice::Quit => self.status.clone(),
        };
        self.after_ended = Some(choice);
        Step::Stay
    }

    /// An error from the server: shown, and if it refuses the request on
    /// its way, the list is asked for again (the table may have changed or
    /// gone). Other errors (a message dropped over the rate limit...) ask
    /// for nothing: a list would only add to the load.
    fn error(&mut self, e: ErrorBody) -> Step {
        let Some(request) = self.asked.filter(|r| r.refused_by(&e)) else {
            self.status = e.message;
            return Step::Stay;
        };
        self.asked = None;
        self.status = e.message.clone();
        match request {
            Request::Rejoin(table) => {
                // Asking again at every reconnection would be refused the
                // same way: the player chooses from the list instead.
                self.refused.push(table);
                self.held.retain(|&t| t != table);
                self.status = match e.code {
                    ErrorCode::GameOver => {
                        self.focus = Some(table);
                        format!(
                            "the game at table {table}, where you had a seat, is over: w watches it"
                        )
                    }
                    ErrorCode::NoSuchTable => {
                        format!("table {table}, where you had a seat, is gone: choose a table")
                    }
                    _ => format!("cannot take your seat back at table {table}: {}", e.message),
                };
            }
            Request::Join(table) if e.code == ErrorCode::GameOver => {
                self.focus = Some(table);
            }
            _ => {}
        }
        Step::Send(ClientMessage::List)
    }

    /// A key.
    pub fn key(&mut self, key: KeyEvent) -> Step {
        if key.kind == KeyEventKind::Release {
            return Step::Stay;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Step::Done(Choice::Quit);
        }
        if !self.ended.is_empty() {
            // The endings were read: any key dismisses them (and goes to
            // the table taken back meanwhile, if any).
            self.ended.clear();
            self.status = match &self.name {
                Some(name) => format!("welcome, {name}"),
                None => String::new(),
            };
            return match self.after_ended.take() {
                Some(choice) => Step::Done(choice),
                None => Step::Stay,
            };
        }
        match self.screen.clone() {
            Screen::List => self.list_key(key.code),
            Screen::New {
                preset,
                seats,
                bot,
                line,
                private,
                rated,
            } => self.new_key(key.code, preset, (seats, bot), line, (private, rated)),
            Screen::Code(text) => self.code_key(key.code, text),
            Screen::Bots { bots, selected } => self.bots_key(key.code, bots, selected),
            Screen::Name { why, text } => self.name_key(key.code, why, text),
            Screen::SignOut => self.sign_out_key(key.code),
            Screen::SignedOut(_) => match key.code {
                KeyCode::Char('q') | KeyCode::Esc | KeyCode::Enter => Step::Done(Choice::Quit),
                _ => Step::Stay,
            },
        }
    }

    /// The answer to "sign out?": `y` signs out, any other key goes back.
    fn sign_out_key(&mut self, code: KeyCode) -> Step {
        self.screen = Screen::List;
        match code {
            KeyCode::Char('y' | 'Y') => {
                self.status = "signing out...".into();
                Step::Send(ClientMessage::SignOut)
            }
            _ => {
                self.status = match &self.name {
                    Some(name) => format!("still signed in as {name}"),
                    None => String::new(),
                };
                Step::Stay
            }
        }
    }

    /// What signing out does to the name, for the question: a name with
    /// games is kept for their history and nobody signs in with it again.
    pub fn sign_out_text(&self) -> String {
        let name = self.name.as_deref().unwrap_or("your name");
        let mut text = format!(
            "Sign out of {} as {name}?\n\nThe server revokes the token that proves {name} is yours, \
             and this machine forgets it.\n\n",
            self.server
        );
        let held: Vec<String> = self
            .tables
            .iter()
            .filter(|t| self.holds(t))
            .map(|t| t.id)
            .chain(self.held.iter().copied())
            .map(|t| t.to_string())
            .fold(Vec::new(), |mut v, t| {
                if !v.contains(&t) {
                    v.push(t);
                }
                v
            });
        if held.is_empty() {
            text.push_str(&format!(
                "If {name} has games at this server, signing out keeps the name for nobody: \
                 their history stays under it, and nobody (you neither) can play as {name} again. \
                 Without games the name is free for anyone to take."
            ));
        } else {
            text.push_str(&format!(
                "WARNING: {name} has games at this server (tables {}): signing out keeps the name \
                 for nobody. You leave those seats, and nobody (you neither) can play as {name} again.",
                held.join(", ")
            ));
        }
        text
    }

    /// The session gave up, saying `why` (and, if it can, `failure`). A
    /// name refused (taken by another player, or not one the server takes)
    /// opens the name prompt; a server unreachable from the start ends the
    /// lobby (its caller says why and how to start one); anything else is
    /// shown in full in place of the tables.
    pub fn gave_up(&mut self, why: String, failure: Option<Failure>) -> Step {
        self.online = false;
        match failure {
            Some(Failure::Unreachable { .. }) if self.name.is_none() => Step::Done(Choice::Quit),
            Some(Failure::SignedOut { .. }) => {
                self.status = "signed out: q quits".into();
                self.screen = Screen::SignedOut(why);
                Step::Stay
            }
            Some(Failure::NameTaken { .. } | Failure::BadName { .. }) => {
                self.status = "the server refused the name".into();
                self.screen = Screen::Name {
                    why,
                    text: String::new(),
                };
                Step::Stay
            }
            _ => self.note(Note::Connection(Link::Failed(why))),
        }
    }

    /// The lobby starts again under the name just typed: connecting.
    pub fn renamed(&mut self, name: &str) {
        self.screen = Screen::List;
        self.failed = None;
        self.name = None;
        self.status = format!("connecting as {name}...");
    }

    fn name_key(&mut self, code: KeyCode, why: String, mut text: String) -> Step {
        match code {
            KeyCode::Esc => return Step::Done(Choice::Quit),
            KeyCode::Backspace => {
                text.pop();
            }
            KeyCode::Char(c) if !c.is_control() && text.chars().count() < NAME_MAX => {
                text.push(c);
            }
            KeyCode::Enter => {
                let name = text.trim().to_string();
                if !name.is_empty() {
                    return Step::Rename(name);
                }
                self.status = "type a name first: Enter tries it, Esc quits".into();
            }
            _ => {}
        }
        self.screen = Screen::Name { why, text };
        Step::Stay
    }

    fn list_key(&mut self, code: KeyCode) -> Step {
        let chosen = self.tables.get(self.selected).map(|t| t.id);
        match code {
            KeyCode::Char('q') | KeyCode::Esc => Step::Done(Choice::Quit),
            KeyCode::Up | KeyCode::Char('k') => {
                self.selected = self.selected.saturating_sub(1);
                Step::Stay
            }
            KeyCode::Down | KeyCode::Char('j') => {
                if self.selected + 1 < self.tables.len() {
                    self.selected += 1;
                }
                Step::Stay
            }
            KeyCode::Char('r') => Step::Send(ClientMessage::List),
            KeyCode::Enter | KeyCode::Char('p') => match chosen {
                Some(table) => {
                    self.status = format!("joining table {table}...");
                    self.ask(
                        Request::Join(table),
                        ClientMessage::Join {
                            table,
                            seat: None,
                            code: None,
                            since: None,
                        },
                    )
                }
                None => {
                    self.status = "no table yet: press n to open one".into();
                    Step::Stay
                }
            },
            KeyCode::Char('w') => match chosen {
                Some(table) => self.ask(
                    Request::Watch(table),
                    ClientMessage::Watch {
                        table,
                        code: None,
                        since: None,
                    },
                ),
                None => Step::Stay,
            },
            KeyCode::Char('n') => {
                if self.presets.is_empty() {
                    return Step::Stay;
                }
                self.screen = self.form(0, None, (false, true));
                Step::Stay
            }
            KeyCode::Char('b') => {
                if !self.online || self.name.is_none() {
                    self.status = "not connected: the bots are the server's to tell".into();
                    return Step::Stay;
                }
                self.screen = Screen::Bots {
                    bots: None,
                    selected: 0,
                };
                self.status = "asking for the bots connected to the server...".into();
                Step::Send(ClientMessage::Bots)
            }
            KeyCode::Char('c') => {
                self.screen = Screen::Code(String::new());
                Step::Stay
            }
            KeyCode::Char('t') => match &self.name {
                Some(name) if self.online => {
                    self.status = format!("asking for a new token for {name}...");
                    Step::Send(ClientMessage::NewToken)
                }
                _ => {
                    self.status = "not connected: a new token needs the server".into();
                    Step::Stay
                }
            },
            KeyCode::Char('s') => {
                if self.name.is_some() && self.online {
                    self.screen = Screen::SignOut;
                } else {
                    self.status = "not connected: signing out needs the server".into();
                }
                Step::Stay
            }
            _ => Step::Stay,
        }
    }

    /// The form for preset `preset`, its other seats at the preset's level
    /// (the first of them kept for `bot`, if any); `(private, rated)` as
    /// chosen.
    fn form(&self, preset: usize, bot: Option<String>, (private, rated): (bool, bool)) -> Screen {
        let p = &self.presets[preset];
        Screen::New {
            preset,
            seats: vec![p.others.clone(); p.seats.saturating_sub(1)],
            bot,
            line: 0,
            private,
            rated,
        }
    }

    /// A key on the list of bots: Enter opens the new table's form with
    /// the second seat kept for the bot chosen, at the first preset of two
    /// seats (a game against one bot is a two-player game, unless the
    /// player chooses otherwise on the form).
    fn bots_key(
        &mut self,
        code: KeyCode,
        bots: Option<Vec<BotSummary>>,
        mut selected: usize,
    ) -> Step {
        let count = bots.as_ref().map_or(0, Vec::len);
        match code {
            KeyCode::Esc | KeyCode::Char('q') => {
                self.screen = Screen::List;
                self.status = match &self.name {
                    Some(name) => format!("welcome, {name}"),
                    None => String::new(),
                };
                return Step::Stay;
            }
            KeyCode::Up | KeyCode::Char('k') => selected = selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') if selected + 1 < count => selected += 1,
            KeyCode::Char('r') => {
                self.screen = Screen::Bots {
                    bots: None,
                    selected,
                };
                return Step::Send(ClientMessage::Bots);
            }
            KeyCode::Enter => {
                let chosen = bots.as_ref().and_then(|b| b.get(selected));
                if let Some(bot) = chosen {
                    if self.presets.is_empty() {
                        return Step::Stay;
                    }
                    let preset = self.presets.iter().position(|p| p.seats == 2).unwrap_or(0);
                    self.status = format!(
                        "{} is invited when the table opens, and accepts or declines",
                        bot.name
                    );
                    self.screen = self.form(preset, Some(bot.name.clone()), (false, true));
                    return Step::Stay;
                }
            }
            _ => {}
        }
        self.screen = Screen::Bots { bots, selected };
        Step::Stay
    }

    /// The choices a seat cycles through: a person, then every level.
    fn seat_choices(&self) -> Vec<Option<String>> {
        std::iter::once(None)
            .chain(self.levels.iter().cloned().map(Some))
            .collect()
    }

    fn new_key(
        &mut self,
        code: KeyCode,
        preset: usize,
        (mut seats, bot): (Vec<Option<String>>, Option<String>),
        mut line: usize,
        (mut private, mut rated): (bool, bool),
    ) -> Step {
        // The preset, the seats, "private" and "rated".
        let lines = seats.len() + 3;
        match code {
            KeyCode::Esc => {
                self.screen = Screen::List;
                return Step::Stay;
            }
            KeyCode::Up | KeyCode::Char('k') => line = line.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') | KeyCode::Tab => line = (line + 1).min(lines - 1),
            KeyCode::Left
            | KeyCode::Right
            | KeyCode::Char(' ')
            | KeyCode::Char('h')
            | KeyCode::Char('l') => {
                let back = matches!(code, KeyCode::Left | KeyCode::Char('h'));
                if line == 0 {
                    let n = self.presets.len();
                    let next = if back {
                        (preset + n - 1) % n
                    } else {
                        (preset + 1) % n
                    };
                    self.screen = self.form(next, bot, (private, rated));
                    return Step::Stay;
                } else if line == 1 && bot.is_some() {
                    // The bot's seat: another bot is chosen from the list.
                } else if line <= seats.len() {
                    let choices = self.seat_choices();
                    let now = choices
                        .iter()
                        .position(|c| *c == seats[line - 1])
                        .unwrap_or(0);
                    let n = choices.len();
                    let next = if back {
                        (now + n - 1) % n
                    } else {
                        (now + 1) % n
                    };
                    seats[line - 1] = choices[next].clone();
                } else if line == seats.len() + 1 {
                    private = !private;
                } else {
                    rated = !rated;
                }
            }
            KeyCode::Enter => {
                let p = &self.presets[preset];
                let mut requests = vec![SeatRequest::Human];
                requests.extend(seats.iter().enumerate().map(|(k, s)| match (k, s, &bot) {
                    (0, _, Some(name)) => SeatRequest::Bot { name: name.clone() },
                    (_, None, _) => SeatRequest::Human,
                    (_, Some(level), _) => SeatRequest::Computer {
                        level: level.clone(),
                    },
                }));
                let create = CreateTable {
                    game: self.game,
                    setup: p.setup.clone(),
                    seats: requests,
                    private,
                    sit: Some(0),
                    rated: Some(rated),
                    bots: false,
                };
                self.screen = Screen::List;
                self.status = format!("opening a table: {}...", p.label);
                return self.ask(Request::Create, ClientMessage::Create(create));
            }
            _ => {}
        }
        self.screen = Screen::New {
            preset,
            seats,
            bot,
            line,
            private,
            rated,
        };
        Step::Stay
    }

    fn code_key(&mut self, code: KeyCode, mut text: String) -> Step {
        match code {
            KeyCode::Esc => {
                self.screen = Screen::List;
                Step::Stay
            }
            KeyCode::Backspace => {
                text.pop();
                self.screen = Screen::Code(text);
                Step::Stay
            }
            KeyCode::Char(c) if text.len() < 40 && (c.is_ascii_alphanumeric() || c == ' ') => {
                text.push(c);
                self.screen = Screen::Code(text);
                Step::Stay
            }
            KeyCode::Enter => {
                let mut words = text.split_whitespace();
                let table = words.next().and_then(|w| w.parse::<TableId>().ok());
                let code = words.next().map(str::to_string);
                self.screen = Screen::List;
                match (table, code) {
                    (Some(table), Some(code)) => self.ask(
                        Request::Join(table),
                        ClientMessage::Join {
                            table,
                            seat: None,
                            code: Some(code),
                            since: None,
                        },
                    ),
                    _ => {
                        self.status = "type the table's number, a space and its code".into();
                        self.screen = Screen::Code(text);
                        Step::Stay
                    }
                }
            }
            _ => {
                self.screen = Screen::Code(text);
                Step::Stay
            }
        }
    }
}

/// The longest name the prompt takes (the server says which it refuses).
const NAME_MAX: usize = 40;

/// A table's seats in words: names, computers, free places, and at a
/// rated table the players' ratings.
pub fn seats_text(t: &TableSummary) -> String {
    seat_words(t, ' ')
}

/// A no-break space: glues a name to its rating in the list, whose wrapping
/// breaks lines at spaces only (drawn as a space).
const GLUE: char = '\u{a0}';

/// [`seats_text`] with `glue` between a name and its rating.
fn seat_words(t: &TableSummary, glue: char) -> String {
    t.seats
        .iter()
        .map(|s| {
            // A rated table's seats carry their players' ratings.
            let r = s
                .rating
                .map_or_else(String::new, |r| format!("{glue}{}", rating_label(r)));
            match (s.kind, &s.player, s.away) {
                (SeatKindSummary::Computer, _, _) => {
                    format!("[{}{r}]", s.level.as_deref().unwrap_or("computer"))
                }
                (SeatKindSummary::Human, Some(p), _) if s.bot => format!("{p}{r} {}", bot_mark(s)),
                (SeatKindSummary::Human, Some(p), true) => format!("{p}{r} (away)"),
                (SeatKindSummary::Human, Some(p), false) if !s.connected => {
                    format!("{p}{r} (gone)")
                }
                (SeatKindSummary::Human, Some(p), false) => format!("{p}{r}"),
                (SeatKindSummary::Human, None, _) => "(free)".into(),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A rating as the lobby shows it: "1540", or "1540?" while it is
/// provisional.
pub fn rating_label(r: RatingBrief) -> String {
    if r.provisional {
        format!("{}?", r.rating)
    } else {
        r.rating.to_string()
    }
}

/// A table's game column: its setup in words, "(casual)" when its result
/// moves no rating, and "(arena)" for a game of the server's arena (bots
/// only: it is watched, not joined).
fn game_cell(t: &TableSummary) -> String {
    let mut cell = t.ruleset.clone();
    if !t.rated {
        cell.push_str(" (casual)");
    }
    if t.arena.is_some() {
        cell.push_str(" (arena)");
    }
    cell
}

fn status_text(s: TableStatus) -> &'static str {
    match s {
        TableStatus::Waiting => "waiting",
        TableStatus::Playing => "playing",
        TableStatus::Over => "over",
    }
}

/// Draws the lobby.
pub fn draw(lobby: &Lobby, f: &mut Frame) {
    let mut line = lobby.status.clone();
    if let Some((table, code)) = &lobby.invitation {
        line = format!("{line} - invitation to table {table}: code {code}");
    }
    // A long status (why the connection is down) takes up to three lines
    // rather than being cut.
    let status_lines = wrap(&line, f.area().width).len().clamp(1, 3);
    // The keys take a second line rather than lose one.
    let keys = key_lines(keys_text(lobby), f.area().width);
    let [head, body, help, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(u16::try_from(keys.len().clamp(1, 2)).unwrap_or(1)),
        Constraint::Length(u16::try_from(status_lines).unwrap_or(1)),
    ])
    .areas(f.area());
    f.render_widget(
        Paragraph::new(keys.into_iter().map(Line::from).collect::<Vec<_>>()),
        help,
    );
    let who = lobby.name.as_deref().unwrap_or("...");
    f.render_widget(
        Paragraph::new(format!(
            "{} tables at {} - you are {who}",
            lobby.game.name(),
            lobby.server
        ))
        .style(Style::default().add_modifier(Modifier::BOLD)),
        head,
    );
    match &lobby.screen {
        _ if !lobby.ended.is_empty() => {
            f.render_widget(
                Paragraph::new(ended_text(lobby))
                    .wrap(Wrap { trim: false })
                    .block(
                        Block::default()
                            .borders(Borders::ALL)
                            .title(" while you were away "),
                    ),
                body,
            );
        }
        Screen::List if lobby.failed.is_some() => {
            let why = lobby.failed.as_deref().unwrap_or_default();
            f.render_widget(
                Paragraph::new(format!("Cannot play on this server: {why}"))
                    .wrap(Wrap { trim: true })
                    .block(Block::default().borders(Borders::ALL).title(" tables ")),
                body,
            );
        }
        Screen::List => {
            // Every column fits the width, the long ones wrapped on more
            // lines rather than cut: the game's and the seats' texts.
            let inner = body.width.saturating_sub(2);
            let widths = list_widths(lobby, inner);
            let rows: Vec<Row> = lobby
                .tables
                .iter()
                .map(|t| {
                    let id = if lobby.holds(t) {
                        format!("{} *", t.id)
                    } else {
                        t.id.to_string()
                    };
                    let game = wrap(&game_cell(t), widths[1]);
                    let seats = wrap(&seats_cell(t), widths[3]);
                    let height = game.len().max(seats.len()).max(1);
                    Row::new(vec![
                        Cell::from(id),
                        Cell::from(Text::from(
                            game.into_iter().map(Line::from).collect::<Vec<_>>(),
                        )),
                        Cell::from(status_text(t.status)),
                        Cell::from(Text::from(
                            seats
                                .into_iter()
                                .map(|l| Line::from(l.replace(GLUE, " ")))
                                .collect::<Vec<_>>(),
                        )),
                    ])
                    .height(u16::try_from(height).unwrap_or(u16::MAX))
                })
                .collect();
            let title = if lobby.tables.iter().any(|t| lobby.holds(t)) {
                " tables (* your seat) "
            } else {
                " tables "
            };
            let grid = Grid::new(rows, widths.map(Constraint::Length))
                .header(
                    Row::new(vec!["#", "game", "status", "seats"])
                        .style(Style::default().add_modifier(Modifier::UNDERLINED)),
                )
                .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED))
                .block(Block::default().borders(Borders::ALL).title(title));
            let mut state = TableState::default();
            if !lobby.tables.is_empty() {
                state.select(Some(lobby.selected));
            }
            f.render_stateful_widget(grid, body, &mut state);
            if lobby.tables.is_empty() && lobby.name.is_some() {
                let [_, hint] =
                    Layout::vertical([Constraint::Length(2), Constraint::Min(1)]).areas(body);
                let [_, hint] =
                    Layout::horizontal([Constraint::Length(2), Constraint::Min(1)]).areas(hint);
                f.render_widget(
                    Paragraph::new("No table yet: press n to open one, and others can join it."),
                    hint,
                );
            }
        }
        Screen::New {
            preset,
            seats,
            bot,
            line,
            private,
            rated,
        } => {
            let mark = |k: usize| if k == *line { "> " } else { "  " };
            let chosen = lobby.presets.get(*preset);
            let teams = chosen.map_or(&[][..], |p| p.teams.as_slice());
            // "  team A" after a seat that plays in a team.
            let team = |seat: usize| {
                teams
                    .iter()
                    .position(|t| t.contains(&seat))
                    .map_or(String::new(), |k| format!("  team {}", team_letter(k)))
            };
            let mut lines = vec![Line::from(format!(
                "{}game:    < {} >",
                mark(0),
                chosen.map_or("", |p| p.label.as_str())
            ))];
            if !teams.is_empty() {
                lines.push(Line::from(format!("  teams:   {}", teams_text(teams))));
            }
            lines.push(Line::from(format!(
                "  seat 1:  you ({}){}",
                lobby.name.as_deref().unwrap_or(""),
                team(0)
            )));
            for (k, s) in seats.iter().enumerate() {
                let who = match (k, s, bot) {
                    // Kept for the bot, not changed here: no arrows.
                    (0, _, Some(name)) => {
                        lines.push(Line::from(format!(
                            "{}seat 2:  {name} (bot, invited when the table opens){}",
                            mark(1),
                            team(1)
                        )));
                        continue;
                    }
                    (_, None, _) => "a person".to_string(),
                    (_, Some(level), _) => format!("computer: {level}"),
                };
                lines.push(Line::from(format!(
                    "{}seat {}:  < {who} >{}",
                    mark(k + 1),
                    k + 2,
                    team(k + 1)
                )));
            }
            lines.push(Line::from(format!(
                "{}private: < {} >",
                mark(seats.len() + 1),
                if *private {
                    "yes (joined with a code)"
                } else {
                    "no"
                }
            )));
            lines.push(Line::from(format!(
                "{}ratings: < {} >",
                mark(seats.len() + 2),
                if *rated {
                    "rated (the result moves the players' ratings)"
                } else {
                    "casual (no rating changes)"
                }
            )));
            f.render_widget(
                Paragraph::new(lines)
                    .block(Block::default().borders(Borders::ALL).title(" new table ")),
                body,
            );
        }
        Screen::Bots { bots, selected } => draw_bots(f, body, bots.as_deref(), *selected),
        Screen::Code(text) => {
            f.render_widget(
                Paragraph::new(format!("table number and code: {text}_")).block(
                    Block::default()
                        .borders(Borders::ALL)
                        .title(" private table "),
                ),
                body,
            );
        }
        Screen::Name { why, text } => {
            let lines = vec![
                Line::from(format!("{}.", capitalised(why))),
                Line::from(""),
                Line::from(format!("Play under another name: {text}_")),
            ];
            f.render_widget(
                Paragraph::new(lines)
                    .wrap(Wrap { trim: false })
                    .block(Block::default().borders(Borders::ALL).title(" your name ")),
                body,
            );
        }
        Screen::SignOut => {
            f.render_widget(
                Paragraph::new(lobby.sign_out_text())
                    .wrap(Wrap { trim: false })
                    .block(Block::default().borders(Borders::ALL).title(" sign out ")),
                body,
            );
        }
        Screen::SignedOut(why) => {
            f.render_widget(
                Paragraph::new(format!(
                    "{}.\n\nConnecting again under this name registers it afresh if nobody holds it.",
                    capitalised(why)
                ))
                .wrap(Wrap { trim: false })
                .block(Block::default().borders(Borders::ALL).title(" signed out ")),
                body,
            );
        }
    }
    let status_text: Vec<Line> = wrap(&line, status.width)
        .into_iter()
        .map(Line::from)
        .collect();
    f.render_widget(Paragraph::new(status_text), status);
}

/// The bots connected to the server, to play against: name, owner and
/// description, the description wrapped rather than cut.
fn draw_bots(
    f: &mut Frame,
    body: ratatui::layout::Rect,
    bots: Option<&[BotSummary]>,
    selected: usize,
) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" play against a bot ");
    let bots = match bots {
        None => {
            f.render_widget(Paragraph::new("asking the server...").block(block), body);
            return;
        }
        Some([]) => {
            f.render_widget(
                Paragraph::new("No bot is connected to this server now: r asks again.")
                    .wrap(Wrap { trim: true })
                    .block(block),
                body,
            );
            return;
        }
        Some(bots) => bots,
    };
    let inner = body.width.saturating_sub(2);
    let widest = |text: &dyn Fn(&BotSummary) -> &str, least: usize| {
        let most = bots.iter().map(|b| text(b).chars().count()).max();
        u16::try_from(most.unwrap_or(0).max(least)).unwrap_or(u16::MAX)
    };
    let name = widest(&|b| &b.name, 4).min(inner / 3);
    let owner = widest(&|b| &b.owner, 5).min(inner / 4);
    let about = inner.saturating_sub(name + owner + 2).max(1);
    let rows: Vec<Row> = bots
        .iter()
        .map(|b| {
            let arena = if b.arena { " (in the arena)" } else { "" };
            // A description's line breaks are spaces here: it is wrapped.
            let about_it = b.description.split_whitespace().collect::<Vec<_>>();
            let text = wrap(&format!("{}{arena}", about_it.join(" ")), about);
            let height = text.len().max(1);
            Row::new(vec![
                Cell::from(b.name.clone()),
                Cell::from(b.owner.clone()),
                Cell::from(Text::from(
                    text.into_iter().map(Line::from).collect::<Vec<_>>(),
                )),
            ])
            .height(u16::try_from(height).unwrap_or(u16::MAX))
        })
        .collect();
    let grid = Grid::new(rows, [name, owner, about].map(Constraint::Length))
        .header(
            Row::new(vec!["bot", "owner", "what it is"])
                .style(Style::default().add_modifier(Modifier::UNDERLINED)),
        )
        .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .block(block);
    let mut state = TableState::default();
    state.select(Some(selected.min(bots.len().saturating_sub(1))));
    f.render_stateful_widget(grid, body, &mut state);
}

/// How the tables the player had left ended, a paragraph each: "Table 7
/// (bsd, 2 players) ended. bob won 5000 to 3150..."
pub fn ended_text(lobby: &Lobby) -> String {
    lobby
        .ended
        .iter()
        .map(|e| {
            format!(
                "Table {} ({}, {}): {}",
                e.table,
                e.game.name(),
                e.ruleset,
                e.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The keys of the new table's form.
const NEW_KEYS: &str = "Up/Down line  Left/Right change  Enter open and sit  Esc back";

/// The keys of the lobby's screen, two spaces between two keys.
fn keys_text(lobby: &Lobby) -> &'static str {
    match &lobby.screen {
        _ if !lobby.ended.is_empty() => "any key: go on",
        Screen::List if lobby.failed.is_some() => "q quit",
        Screen::List => {
            "Enter join  w watch  n new table  b play against a bot  c private table by code  \
             r refresh  t new token  s sign out  q quit"
        }
        Screen::New { .. } => NEW_KEYS,
        Screen::Bots { bots: Some(b), .. } if b.is_empty() => "r ask again  Esc back",
        Screen::Bots { .. } => "Up/Down choose  Enter play against it  r ask again  Esc back",
        Screen::Code(_) => "Enter join  Esc back",
        Screen::Name { .. } => "Enter try this name  Esc quit",
        Screen::SignOut => "y sign out  any other key: back",
        Screen::SignedOut(_) => "q quit",
    }
}

/// The keys on lines of `width`, a key never cut from what it does.
fn key_lines(keys: &str, width: u16) -> Vec<String> {
    let width = usize::from(width.max(1));
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for key in keys.split("  ") {
        if !line.is_empty() && line.chars().count() + 2 + key.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push_str("  ");
        }
        line.push_str(key);
    }
    lines.push(line);
    lines
}

/// The letter of team `k` (from 0): A, B, C...
fn team_letter(k: usize) -> char {
    u8::try_from(k)
        .ok()
        .and_then(|k| b'A'.checked_add(k))
        .map_or('?', char::from)
}

/// Who partners whom: "A: seats 1 & 3   B: seats 2 & 4" (seats from 1,
/// as on the form).
pub fn teams_text(teams: &[Vec<usize>]) -> String {
    teams
        .iter()
        .enumerate()
        .map(|(k, seats)| {
            let seats: Vec<String> = seats.iter().map(|s| (s + 1).to_string()).collect();
            format!("{}: seats {}", team_letter(k), seats.join(" & "))
        })
        .collect::<Vec<_>>()
        .join("   ")
}

/// A sentence with its first letter in capitals.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The seats column of a table: who sits where, and how many watch.
fn seats_cell(t: &TableSummary) -> String {
    let mut seats = seat_words(t, GLUE);
    if t.spectators > 0 {
        seats.push_str(&format!(" - {} watching", t.spectators));
    }
    seats
}

/// The widths of the list's columns (#, game, status, seats) in `inner`
/// columns: the number and the status as wide as they need, the game as
/// wide as its longest text if the seats still fit on one line beside
/// it, else up to half of what is left; the seats the rest. The
/// table puts one column between two.
fn list_widths(lobby: &Lobby, inner: u16) -> [u16; 4] {
    let widest = |text: &dyn Fn(&TableSummary) -> String, least: usize| {
        let most = lobby.tables.iter().map(|t| text(t).chars().count()).max();
        u16::try_from(most.unwrap_or(0).max(least)).unwrap_or(u16::MAX)
    };
    let id = widest(&|t| format!("{} *", t.id), 3);
    let status = 7;
    let rest = inner.saturating_sub(id + status + 3);
    let game_needs = widest(&game_cell, 10);
    let seats_need = widest(&seats_cell, 10);
    let game = game_needs
        .min((rest / 2).max(rest.saturating_sub(seats_need)))
        .min(rest);
    [id, game, status, rest.saturating_sub(game)]
}

/// `text` in lines of at most `width` characters, broken after a space
/// (a word longer than a line is cut into pieces).
fn wrap(text: &str, width: u16) -> Vec<String> {
    let width = usize::from(width.max(1));
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let used = line.chars().count();
        if used > 0 && used + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        while line.chars().count() + word.len() > width {
            let room = width - line.chars().count();
            let rest = word.split_off(room.min(word.len()));
            line.extend(word);
            lines.push(std::mem::take(&mut line));
            word = rest;
        }
        line.extend(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Runs the lobby full screen until the player has a seat, watches a table
/// or quits. Keys are read here; the terminal is restored before it
/// returns. A signal, or the terminal found closed (then ended as a
/// hangup with [`Stop::end_as`]), ends it with [`Choice::Quit`]: the
/// caller tells them apart by [`Stop::signal`].
///
/// A refused name is asked for again here: the session is then replaced
/// by one under the new name ([`Session::renamed`]). When it returns
/// [`Choice::Quit`] because the server could not be reached at all,
/// [`Session::failure`] says so.
pub fn run(session: &mut Session, lobby: &mut Lobby, stop: &Stop) -> std::io::Result<Choice> {
    let ttys = Ttys::now();
    let mut terminal = ratatui::try_init()?;
    let keys = Keys::start();
    let result = lobby_loop(&mut terminal, session, lobby, stop, &keys, ttys);
    keys.stop();
    if terminal.show_cursor().is_err() {
        // The terminal is gone: dropping ratatui's terminal would print
        // its failure to a closed terminal, which panics.
        std::mem::forget(terminal);
    }
    restore();
    match result {
        // After a hangup drawing and reading fail; the hangup, not that
        // failure, is why the lobby ends.
        Err(_) if stop.signal().is_some() => Ok(Choice::Quit),
        Err(_) if ttys.closed() => {
            stop.end_as(HANGUP);
            Ok(Choice::Quit)
        }
        other => other,
    }
}

/// Leaves raw mode and the alternate screen. Unlike `ratatui::restore`, it
/// tries both steps whatever the first did and prints nothing: after a
/// hangup there is no terminal to print to (and printing would panic).
fn restore() {
    let _ = ratatui::crossterm::terminal::disable_raw_mode();
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::terminal::LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
}

/// How long the key reader waits for the terminal at a time before it
/// looks whether the lobby is done.
const KEY_POLL: Duration = Duration::from_millis(50);

/// How often the lobby looks at the signal flag, the terminal and the
/// server's news while no key comes.
const LOOK: Duration = Duration::from_millis(100);

/// The terminal's events, read on a thread of their own. Once the terminal
/// has closed, crossterm's reader reads end-of-file again and again
/// without ever returning: read on the lobby's own thread, that left the
/// program running (and spinning) after its terminal was gone. The thread
/// only reads an event that is there, and stops between two waits when
/// the lobby is done, so the game's screen that follows gets every key
/// typed after.
struct Keys {
    events: Receiver<std::io::Result<Event>>,
    done: Arc<AtomicBool>,
    /// Disconnected when the thread has ended.
    ended: Receiver<()>,
}

impl Keys {
    fn start() -> Keys {
        let (tx, events) = channel();
        let (ended_tx, ended) = channel::<()>();
        let done = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&done);
        let spawned = std::thread::Builder::new()
            .name("lobby-keys".into())
            .spawn(move || {
                let _ended = ended_tx;
                while !stop.load(Ordering::SeqCst) {
                    let got = match event::poll(KEY_POLL) {
                        Ok(false) => continue,
                        // Left for the screen that comes next.
                        Ok(true) if stop.load(Ordering::SeqCst) => break,
                        Ok(true) => event::read(),
                        Err(e) => Err(e),
                    };
                    let failed = got.is_err();
                    if tx.send(got).is_err() || failed {
                        break;
                    }
                }
            });
        if let Err(e) = spawned {
            // The loop reads the failure and ends: there is no way to read
            // keys.
            let (tx, events) = channel();
            let _ = tx.send(Err(e));
            return Keys {
                events,
                done,
                ended: channel().1,
            };
        }
        Keys {
            events,
            done,
            ended,
        }
    }

    /// Stops the reader and waits a moment for it. A reader caught in
    /// crossterm's endless reading of a closed terminal is left behind:
    /// the program ends anyway.
    fn stop(self) {
        self.done.store(true, Ordering::SeqCst);
        let _ = self.ended.recv_timeout(KEY_POLL * 4);
    }
}

/// Carries out a step: `Some` when the lobby is done.
fn act(step: Step, session: &mut Session, lobby: &mut Lobby) -> Option<Choice> {
    match step {
        Step::Stay => None,
        Step::Send(m) => {
            session.send(m);
            None
        }
        Step::Done(choice) => Some(choice),
        Step::Rename(name) => {
            lobby.renamed(&name);
            *session = session.renamed(name);
            None
        }
    }
}

fn lobby_loop(
    terminal: &mut ratatui::DefaultTerminal,
    session: &mut Session,
    lobby: &mut Lobby,
    stop: &Stop,
    keys: &Keys,
    ttys: Ttys,
) -> std::io::Result<Choice> {
    let mut refreshed = Instant::now();
    loop {
        if stop.signal().is_some() {
            return Ok(Choice::Quit);
        }
        if ttys.closed() {
            stop.end_as(HANGUP);
            return Ok(Choice::Quit);
        }
        while let Some(note) = session.try_recv() {
            let step = match note {
                Note::Connection(Link::Failed(why)) => lobby.gave_up(why, session.failure()),
                other => lobby.note(other),
            };
            if let Some(choice) = act(step, session, lobby) {
                return Ok(choice);
            }
        }
        if refreshed.elapsed() > Duration::from_secs(3) && lobby.refreshes() {
            session.send(ClientMessage::List);
            refreshed = Instant::now();
        }
        terminal.draw(|f| draw(lobby, f))?;
        match keys.events.recv_timeout(LOOK) {
            Ok(Ok(Event::Key(key))) => {
                let step = lobby.key(key);
                if let Some(choice) = act(step, session, lobby) {
                    return Ok(choice);
                }
            }
            Ok(Ok(_)) | Err(RecvTimeoutError::Timeout) => {}
            Ok(Err(e)) => return Err(e),
            // The reader ends only after a failure it has passed on.
            Err(RecvTimeoutError::Disconnected) => {
                stop.end_as(HANGUP);
                return Ok(Choice::Quit);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use table_client::protocol::{ErrorBody, ErrorCode, Limits, SeatRef, SeatSummary};

    fn presets() -> Vec<Preset> {
        vec![
            Preset {
                label: "bsd, 2 players".into(),
                setup: serde_json::json!({"rules":"bsd","players":2}),
                seats: 2,
                others: Some("classic".into()),
                teams: Vec::new(),
            },
            Preset {
                label: "classic, 4 players in 2 teams".into(),
                setup: serde_json::json!({"rules":"classic","players":4}),
                seats: 4,
                others: None,
                teams: vec![vec![0, 2], vec![1, 3]],
            },
        ]
    }

    fn welcome(seats: Vec<SeatRef>) -> ServerMessage {
        ServerMessage::Welcome {
            version: 1,
            server: "test".into(),
            name: "ann".into(),
            token: "0".repeat(32),
            limits: Limits {
                max_message_bytes: 16384,
                messages_per_second: 20,
                burst: 40,
                idle_seconds: 120,
                away_seconds: 60,
                decision_seconds: 10,
            },
            seats,
            games: vec![GameInfo {
                game: GameKind::Mille,
                levels: vec!["random".into(), "classic".into()],
            }],
            bot: false,
        }
    }

    fn table(id: TableId, game: GameKind) -> TableSummary {
        TableSummary {
            id,
            game,
            ruleset: "bsd, 2 players".into(),
            setup: Value::Null,
            seats: vec![
                SeatSummary {
                    kind: SeatKindSummary::Human,
                    level: None,
                    player: Some("bob".into()),
                    connected: true,
                    away: false,
                    rating: None,
                    stand_in_in: None,
                    bot: false,
                    invited: false,
                },
                SeatSummary {
                    kind: SeatKindSummary::Human,
                    level: None,
                    player: None,
                    connected: false,
                    away: false,
                    rating: None,
                    stand_in_in: None,
                    bot: false,
                    invited: false,
                },
            ],
            status: TableStatus::Waiting,
            private: false,
            spectators: 1,
            seq: 0,
            rated: true,
            arena: None,
            bots: false,
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn screen(lobby: &Lobby) -> String {
        screen_of(lobby, 90, 12)
    }

    fn screen_of(lobby: &Lobby, width: u16, height: u16) -> String {
        let mut t = Terminal::new(TestBackend::new(width, height)).expect("terminal");
        t.draw(|f| draw(lobby, f)).expect("draw");
        let buf = t.backend().buffer().clone();
        (0..buf.area.height)
            .map(|y| {
                (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_welcome_lists_the_tables_of_this_game_and_enter_joins() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        assert_eq!(
            lobby.message(welcome(Vec::new())),
            Step::Send(ClientMessage::List)
        );
        assert!(screen(&lobby).contains("No table yet: press n"));
        lobby.message(ServerMessage::Tables {
            tables: vec![table(3, GameKind::Mille), table(4, GameKind::Cubes)],
        });
        assert!(!screen(&lobby).contains("No table yet"));
        assert_eq!(lobby.tables.len(), 1, "only this game's tables");
        let text = screen(&lobby);
        assert!(text.contains("bob, (free)"), "{text}");
        assert!(text.contains("you are ann"), "{text}");
        assert_eq!(
            lobby.key(key(KeyCode::Enter)),
            Step::Send(ClientMessage::Join {
                table: 3,
                seat: None,
                code: None,
                since: None
            })
        );
        let joined = ServerMessage::Joined {
            table: 3,
            seat: 1,
            seq: 0,
            observation: Value::Null,
        };
        assert!(matches!(
            lobby.message(joined),
            Step::Done(Choice::Play {
                table: 3,
                seat: 1,
                ..
            })
        ));
    }

    #[test]
    fn a_returning_player_is_taken_back_to_its_seat() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        let held = SeatRef {
            table: 9,
            game: GameKind::Mille,
            seat: 0,
        };
        assert_eq!(
            lobby.message(welcome(vec![held])),
            Step::Send(ClientMessage::Join {
                table: 9,
                seat: None,
                code: None,
                since: None
            })
        );
    }

    #[test]
    fn the_new_table_form_cycles_presets_and_seats_and_creates() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        lobby.message(welcome(Vec::new()));
        lobby.key(key(KeyCode::Char('n')));
        assert!(screen(&lobby).contains("computer: classic"));
        lobby.key(key(KeyCode::Right));
        assert!(screen(&lobby).contains("classic, 4 players"));
        lobby.key(key(KeyCode::Down));
        lobby.key(key(KeyCode::Right));
        let step = lobby.key(key(KeyCode::Enter));
        let Step::Send(ClientMessage::Create(c)) = step else {
            panic!("{step:?}")
        };
        assert_eq!(c.seats.len(), 4);
        assert_eq!(c.seats[0], SeatRequest::Human);
        assert_eq!(
            c.seats[1],
            SeatRequest::Computer {
                level: "random".into()
            }
        );
        assert_eq!(c.seats[2], SeatRequest::Human);
        assert_eq!(c.sit, Some(0));
    }

    #[test]
    fn a_refusal_is_shown_and_a_private_table_is_joined_by_code() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        lobby.message(ServerMessage::Error(ErrorBody {
            code: ErrorCode::SeatTaken,
            message: "seat 2 is taken".into(),
            id: None,
            table: Some(3),
        }));
        assert!(screen(&lobby).contains("seat 2 is taken"));
        lobby.key(key(KeyCode::Char('c')));
        for c in "12 ab12".chars() {
            lobby.key(key(KeyCode::Char(c)));
        }
        assert_eq!(
            lobby.key(key(KeyCode::Enter)),
            Step::Send(ClientMessage::Join {
                table: 12,
                seat: None,
                code: Some("ab12".into()),
                since: None
            })
        );
        assert_eq!(lobby.key(key(KeyCode::Char('q'))), Step::Done(Choice::Quit));
    }

    fn error(code: ErrorCode, table: Option<TableId>, message: &str) -> ServerMessage {
        ServerMessage::Error(ErrorBody {
            code,
            message: message.into(),
            id: None,
            table,
        })
    }

    fn held(tables: &[TableId]) -> Vec<SeatRef> {
        tables
            .iter()
            .map(|&table| SeatRef {
                table,
                game: GameKind::Mille,
                seat: 1,
            })
            .collect()
    }

    #[test]
    fn only_a_refused_request_asks_for_the_list_again() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        lobby.message(welcome(Vec::new()));
        lobby.message(ServerMessage::Tables {
            tables: vec![table(3, GameKind::Mille)],
        });
        let limit = "more than 20 messages a second: this one was dropped";
        // Nothing asked: shown, nothing sent.
        assert_eq!(
            lobby.message(error(ErrorCode::RateLimited, None, limit)),
            Step::Stay
        );
        assert!(screen(&lobby).contains("this one was dropped"));
        assert!(matches!(
            lobby.key(key(KeyCode::Enter)),
            Step::Send(ClientMessage::Join { table: 3, .. })
        ));
        // A join on its way: the rate limit and another table's news are
        // not its answer.
        assert_eq!(
            lobby.message(error(ErrorCode::RateLimited, None, limit)),
            Step::Stay
        );
        assert_eq!(
            lobby.message(error(ErrorCode::Unavailable, Some(8), "stopped")),
            Step::Stay
        );
        assert_eq!(
            lobby.message(error(ErrorCode::TableFull, Some(3), "no free seat")),
            Step::Send(ClientMessage::List)
        );
        assert!(screen(&lobby).contains("no free seat"));
        // Answered: a second error is not the join's.
        assert_eq!(
            lobby.message(error(ErrorCode::TableFull, Some(3), "no free seat")),
            Step::Stay
        );
        // A refused new table.
        lobby.key(key(KeyCode::Char('n')));
        assert!(matches!(
            lobby.key(key(KeyCode::Enter)),
            Step::Send(ClientMessage::Create(_))
        ));
        assert_eq!(
            lobby.message(error(ErrorCode::Unavailable, None, "too many tables")),
            Step::Send(ClientMessage::List)
        );
        // A watch refused.
        assert!(matches!(
            lobby.key(key(KeyCode::Char('w'))),
            Step::Send(ClientMessage::Watch { table: 3, .. })
        ));
        assert_eq!(
            lobby.message(error(ErrorCode::NoSuchTable, Some(3), "no table 3")),
            Step::Send(ClientMessage::List)
        );
    }

    #[test]
    fn why_the_session_gave_up_is_shown_in_full() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        let why = "the table server at localhost:8780 refused \"ann\": the name ann belongs to \
                   another player. The name \"ann\" is taken there, and a token for it is saved \
                   for 127.0.0.1:8780: if that is this same server, connect with that address";
        lobby.note(Note::Connection(Link::Failed(why.into())));
        let text = screen(&lobby);
        assert!(
            text.contains("cannot play on this server: q quits"),
            "{text}"
        );
        // Its end too, past the width of a line.
        assert!(text.contains("connect with that address"), "{text}");
        assert!(text.contains("127.0.0.1:8780"), "{text}");
    }

    #[test]
    fn the_list_is_refreshed_only_while_connected() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        assert!(!lobby.refreshes(), "not connected yet");
        lobby.note(Note::Connection(Link::Connected));
        assert!(lobby.refreshes());
        lobby.key(key(KeyCode::Char('c')));
        assert!(!lobby.refreshes(), "typing a code");
        lobby.key(key(KeyCode::Esc));
        assert!(lobby.refreshes());
        lobby.note(Note::Connection(Link::Reconnecting {
            attempt: 1,
            why: "down".into(),
        }));
        assert!(!lobby.refreshes());
        lobby.note(Note::Connection(Link::Connected));
        lobby.note(Note::Connection(Link::Failed("gone".into())));
        assert!(!lobby.refreshes());
    }

    #[test]
    fn a_seat_at_a_finished_game_falls_back_to_the_list_and_offers_to_watch() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        assert_eq!(
            lobby.message(welcome(held(&[9]))),
            Step::Send(ClientMessage::Join {
                table: 9,
                seat: None,
                code: None,
                since: None
            })
        );
        let over = "the game at this table is over: watch it instead";
        assert_eq!(
            lobby.message(error(ErrorCode::GameOver, Some(9), over)),
            Step::Send(ClientMessage::List)
        );
        assert!(
            lobby.status.contains("is over: w watches it"),
            "{}",
            lobby.status
        );
        let mut finished = table(9, GameKind::Mille);
        finished.status = TableStatus::Over;
        finished.seats[1].player = Some("ann".into());
        lobby.message(ServerMessage::Tables {
            tables: vec![table(3, GameKind::Mille), finished],
        });
        assert_eq!(lobby.selected, 1, "the finished table is selected");
        let text = screen(&lobby);
        assert!(text.contains("9 *"), "{text}");
        assert!(!text.contains("3 *"), "{text}");
        assert!(text.contains("(* your seat)"), "{text}");
        assert_eq!(
            lobby.key(key(KeyCode::Char('w'))),
            Step::Send(ClientMessage::Watch {
                table: 9,
                code: None,
                since: None
            })
        );
        // After a reconnection the refused seat is not asked for again.
        assert_eq!(
            lobby.message(welcome(held(&[9]))),
            Step::Send(ClientMessage::List)
        );
    }

    #[test]
    fn a_seat_at_a_lost_table_falls_back_to_the_list() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        assert!(matches!(
            lobby.message(welcome(held(&[4]))),
            Step::Send(ClientMessage::Join { table: 4, .. })
        ));
        // The rate limit is no answer: the seat is still to be taken back.
        assert_eq!(
            lobby.message(error(ErrorCode::RateLimited, None, "dropped")),
            Step::Stay
        );
        assert_eq!(
            lobby.message(error(
                ErrorCode::NoSuchTable,
                Some(4),
                "there is no table 4"
            )),
            Step::Send(ClientMessage::List)
        );
        assert!(
            lobby
                .status
                .contains("table 4, where you had a seat, is gone")
        );
        assert!(lobby.held.is_empty());
        assert_eq!(
            lobby.message(welcome(held(&[4]))),
            Step::Send(ClientMessage::List)
        );
    }

    #[test]
    fn several_held_seats_are_marked_for_the_player_to_choose() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        assert_eq!(
            lobby.message(welcome(held(&[3, 7]))),
            Step::Send(ClientMessage::List)
        );
        assert!(lobby.status.contains("tables 3, 7"), "{}", lobby.status);
        lobby.message(ServerMessage::Tables {
            tables: vec![
                table(3, GameKind::Mille),
                table(5, GameKind::Mille),
                table(7, GameKind::Mille),
            ],
        });
        let text = screen(&lobby);
        assert!(text.contains("3 *"), "{text}");
        assert!(text.contains("7 *"), "{text}");
        assert!(!text.contains("5 *"), "{text}");
        lobby.key(key(KeyCode::Down));
        lobby.key(key(KeyCode::Down));
        assert!(matches!(
            lobby.key(key(KeyCode::Enter)),
            Step::Send(ClientMessage::Join { table: 7, .. })
        ));
    }

    #[test]
    fn the_list_fits_80_columns_without_cutting_a_word() {
        let mut lobby = Lobby::new(GameKind::Cubes, "127.0.0.1:8780", presets());
        lobby.message(welcome(Vec::new()));
        let mut t = table(12, GameKind::Cubes);
        t.ruleset = "blitz, 6 players, jokers sometimes".into();
        t.spectators = 2;
        let names = ["annabelle", "bartholomew", "cyprien", "dominique"];
        t.seats = names
            .iter()
            .map(|n| SeatSummary {
                kind: SeatKindSummary::Human,
                level: Some("steady".into()),
                player: Some((*n).into()),
                connected: true,
                away: *n == "bartholomew",
                rating: None,
                stand_in_in: None,
                bot: false,
                invited: false,
            })
            .chain((0..2).map(|_| SeatSummary {
                kind: SeatKindSummary::Computer,
                level: Some("reckless".into()),
                player: None,
                connected: false,
                away: false,
                rating: None,
                stand_in_in: None,
                bot: false,
                invited: false,
            }))
            .collect();
        lobby.message(ServerMessage::Tables { tables: vec![t] });
        let text = screen_of(&lobby, 80, 24);
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).collect();
        for word in [
            "blitz",
            "jokers",
            "sometimes",
            "annabelle",
            "bartholomew",
            "away",
            "cyprien",
            "dominique",
            "reckless",
            "watching",
            "waiting",
        ] {
            assert!(words.contains(&word), "{word} is cut or missing:\n{text}");
        }
        assert_eq!(text.matches("reckless").count(), 2, "{text}");
    }

    #[test]
    fn the_new_table_form_shows_who_partners_whom() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        lobby.message(welcome(Vec::new()));
        lobby.key(key(KeyCode::Char('n')));
        assert!(!screen(&lobby).contains("team"), "no teams at two");
        lobby.key(key(KeyCode::Right));
        let text = screen_of(&lobby, 80, 14);
        assert!(
            text.contains("teams:   A: seats 1 & 3   B: seats 2 & 4"),
            "{text}"
        );
        assert!(text.contains("seat 1:  you (ann)  team A"), "{text}");
        assert!(text.contains("seat 2:  < a person >  team B"), "{text}");
        assert!(text.contains("seat 3:  < a person >  team A"), "{text}");
        assert!(text.contains("seat 4:  < a person >  team B"), "{text}");
    }

    #[test]
    fn a_refused_name_asks_for_another_there() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost:8780", presets());
        let why = "the name \"ann\" is taken at localhost:8780: another player has it, or it is \
                   yours under an address this program has no token for";
        let taken = Failure::NameTaken { name: "ann".into() };
        assert_eq!(lobby.gave_up(why.into(), Some(taken)), Step::Stay);
        let text = screen_of(&lobby, 80, 14);
        assert!(text.contains("The name \"ann\" is taken at"), "{text}");
        assert!(text.contains("no token for."), "{text}");
        assert!(text.contains("Play under another name: _"), "{text}");
        assert!(text.contains("Enter try this name  Esc quit"), "{text}");
        // Typed and tried; an empty name is not.
        assert_eq!(lobby.key(key(KeyCode::Enter)), Step::Stay);
        for c in "bobx".chars() {
            lobby.key(key(KeyCode::Char(c)));
        }
        lobby.key(key(KeyCode::Backspace));
        assert!(screen(&lobby).contains("Play under another name: bob_"));
        assert_eq!(lobby.key(key(KeyCode::Enter)), Step::Rename("bob".into()));
        lobby.renamed("bob");
        assert_eq!(lobby.screen, Screen::List);
        assert!(lobby.status.contains("connecting as bob"));
        // A name the server does not take is asked for again too; Esc
        // leaves.
        let bad = Failure::BadName { name: "x".into() };
        assert_eq!(lobby.gave_up("too long".into(), Some(bad)), Step::Stay);
        assert_eq!(lobby.key(key(KeyCode::Esc)), Step::Done(Choice::Quit));
    }

    #[test]
    fn a_server_unreachable_from_the_start_ends_the_lobby() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost:8780", presets());
        let failure = Failure::Unreachable {
            reason: "Connection refused".into(),
        };
        assert_eq!(
            lobby.gave_up("cannot reach".into(), Some(failure)),
            Step::Done(Choice::Quit)
        );
        // Any other end is shown in full.
        let mut lobby = Lobby::new(GameKind::Mille, "localhost:8780", presets());
        assert_eq!(
            lobby.gave_up("another version".into(), Some(Failure::Other)),
            Step::Stay
        );
        assert!(screen(&lobby).contains("another version"));
    }

    #[test]
    fn a_game_is_on_one_line_when_the_seats_fit_beside_it() {
        let mut lobby = Lobby::new(GameKind::Mille, "127.0.0.1:8780", presets());
        lobby.message(welcome(Vec::new()));
        let mut t = table(1, GameKind::Mille);
        t.ruleset = "classic, 4 players in 2 teams".into();
        lobby.message(ServerMessage::Tables { tables: vec![t] });
        let text = screen_of(&lobby, 80, 10);
        assert!(
            text.contains("classic, 4 players in 2 teams waiting bob, (free) - 1 watching"),
            "{text}"
        );
    }

    #[test]
    fn a_long_status_is_wrapped_not_cut() {
        let mut lobby = Lobby::new(GameKind::Mille, "127.0.0.1:8780", presets());
        lobby.message(welcome(Vec::new()));
        let why = "cannot reach the table server at 127.0.0.1:8780: Connection refused (os error \
                   111) (is it running? `mille serve` or `cubes serve` starts one)";
        lobby.note(Note::Connection(Link::Reconnecting {
            attempt: 6,
            why: why.into(),
        }));
        let text = screen_of(&lobby, 80, 12);
        let flat: String = text
            .lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            flat.contains("reconnecting (attempt 6): cannot reach"),
            "{text}"
        );
        assert!(flat.contains("`cubes serve` starts one)"), "{text}");
    }

    #[test]
    fn the_keys_for_the_token_are_shown_and_fit_80_columns() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        lobby.note(Note::Connection(Link::Connected));
        lobby.message(welcome(vec![]));
        let s = screen_of(&lobby, 80, 24);
        for key in [
            "Enter join",
            "n new table",
            "r refresh",
            "t new token",
            "s sign out",
            "q quit",
        ] {
            assert!(s.contains(key), "{key}:\n{s}");
        }
        assert!(s.lines().all(|l| l.chars().count() <= 80));
    }

    #[test]
    fn a_new_token_is_asked_for_and_said() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        // Offline: nothing to ask.
        assert_eq!(lobby.key(key(KeyCode::Char('t'))), Step::Stay);
        lobby.note(Note::Connection(Link::Connected));
        lobby.message(welcome(vec![]));
        assert_eq!(
            lobby.key(key(KeyCode::Char('t'))),
            Step::Send(ClientMessage::NewToken)
        );
        lobby.message(ServerMessage::Token {
            token: "1".repeat(32),
        });
        assert!(
            lobby.status.contains("new token for ann"),
            "{}",
            lobby.status
        );
    }

    #[test]
    fn signing_out_asks_first_and_warns_of_the_games() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        lobby.note(Note::Connection(Link::Connected));
        lobby.message(welcome(vec![]));
        lobby.message(ServerMessage::Tables {
            tables: vec![table(4, GameKind::Mille)],
        });
        // Any other key than y goes back.
        assert_eq!(lobby.key(key(KeyCode::Char('s'))), Step::Stay);
        assert_eq!(lobby.screen, Screen::SignOut);
        let s = screen_of(&lobby, 80, 24);
        assert!(s.contains("Sign out of localhost as ann?"), "{s}");
        assert!(s.contains("keeps the name for nobody"), "{s}");
        assert!(s.contains("y sign out"), "{s}");
        assert_eq!(lobby.key(key(KeyCode::Char('n'))), Step::Stay);
        assert_eq!(lobby.screen, Screen::List);

        // With a seat at an unfinished game, the warning names it.
        let seated = SeatRef {
            table: 4,
            game: GameKind::Mille,
            seat: 0,
        };
        lobby.message(welcome(vec![seated]));
        lobby.asked = None;
        lobby.key(key(KeyCode::Char('s')));
        let s = screen_of(&lobby, 80, 24);
        assert!(s.contains("WARNING"), "{s}");
        assert!(s.contains("tables 4"), "{s}");
        assert_eq!(
            lobby.key(key(KeyCode::Char('y'))),
            Step::Send(ClientMessage::SignOut)
        );
        lobby.message(ServerMessage::SignedOut);
        let why = "you signed out of localhost as ann: the server revoked the name's token";
        let failure = Failure::SignedOut { name: "ann".into() };
        assert_eq!(lobby.gave_up(why.into(), Some(failure)), Step::Stay);
        let s = screen_of(&lobby, 80, 24);
        assert!(s.contains("You signed out of localhost as ann"), "{s}");
        assert_eq!(lobby.key(key(KeyCode::Char('j'))), Step::Stay);
        assert_eq!(lobby.key(key(KeyCode::Char('q'))), Step::Done(Choice::Quit));
    }

    fn rating(rating: i32, provisional: bool) -> Option<RatingBrief> {
        Some(RatingBrief {
            rating,
            deviation: if provisional { 160 } else { 45 },
            provisional,
        })
    }

    fn ending(table: TableId, abandoned: bool, message: &str) -> Ending {
        Ending {
            table,
            game: GameKind::Mille,
            ruleset: "bsd, 2 players".into(),
            abandoned,
            message: message.into(),
        }
    }

    #[test]
    fn how_the_tables_left_ended_is_told_until_a_key_and_the_seat_taken_back_waits() {
        let mut lobby = Lobby::new(GameKind::Mille, "127.0.0.1:8780", presets());
        lobby.note(Note::Connection(Link::Connected));
        // A seat held elsewhere is taken back at once...
        assert!(matches!(
            lobby.message(welcome(held(&[9]))),
            Step::Send(ClientMessage::Join { table: 9, .. })
        ));
        assert_eq!(
            lobby.message(ServerMessage::Ended {
                tables: vec![
                    ending(
                        7,
                        true,
                        "bob won 5000 to 3150. You had left, so the game counts as \
                         abandoned: your rating 1500 → 1431."
                    ),
                    ending(
                        8,
                        false,
                        "Nobody came back within a day: the game was closed as abandoned, \
                         with no result for anyone."
                    ),
                ],
            }),
            Step::Stay
        );
        let text = screen_of(&lobby, 80, 16);
        assert!(text.contains("while you were away"), "{text}");
        assert!(
            text.contains("Table 7 (mille, bsd, 2 players): bob won"),
            "{text}"
        );
        assert!(text.contains("1500 → 1431."), "{text}");
        assert!(text.contains("Table 8"), "{text}");
        assert!(text.contains("any key: go on"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        insta::assert_snapshot!("endings_told_on_return", text);
        // ...but the game waits until the endings are dismissed.
        let joined = ServerMessage::Joined {
            table: 9,
            seat: 1,
            seq: 4,
            observation: Value::Null,
        };
        assert_eq!(lobby.message(joined), Step::Stay);
        assert!(lobby.status.contains("table 9 is back"), "{}", lobby.status);
        assert!(matches!(
            lobby.key(key(KeyCode::Char(' '))),
            Step::Done(Choice::Play {
                table: 9,
                seat: 1,
                ..
            })
        ));
        assert!(lobby.ended.is_empty());

        // Without a seat to go to, a key goes back to the list.
        let mut lobby = Lobby::new(GameKind::Mille, "127.0.0.1:8780", presets());
        lobby.message(welcome(Vec::new()));
        lobby.message(ServerMessage::Ended {
            tables: vec![ending(7, false, "ann won 5000 to 4100.")],
        });
        assert!(screen(&lobby).contains("ann won 5000 to 4100."));
        assert_eq!(lobby.key(key(KeyCode::Enter)), Step::Stay, "not a join");
        assert!(!screen(&lobby).contains("while you were away"));
        assert!(lobby.status.contains("welcome, ann"), "{}", lobby.status);
    }

    #[test]
    fn ratings_are_shown_beside_the_players_and_casual_tables_are_marked() {
        let mut lobby = Lobby::new(GameKind::Mille, "127.0.0.1:8780", presets());
        lobby.message(welcome(Vec::new()));
        let mut rated = table(3, GameKind::Mille);
        rated.seats[0].rating = rating(1540, true);
        rated.seats[1] = SeatSummary {
            kind: SeatKindSummary::Computer,
            level: Some("classic".into()),
            player: None,
            connected: false,
            away: false,
            rating: rating(1488, false),
            stand_in_in: None,
            bot: false,
            invited: false,
        };
        let mut casual = table(4, GameKind::Mille);
        casual.rated = false;
        let mut four = table(5, GameKind::Mille);
        four.ruleset = "classic, 4 players in 2 teams".into();
        four.spectators = 0;
        let names = ["annabelle", "bartholomew", "cyprien", "dominique"];
        four.seats = names
            .iter()
            .enumerate()
            .map(|(k, n)| SeatSummary {
                kind: SeatKindSummary::Human,
                level: None,
                player: Some((*n).into()),
                connected: k != 1,
                away: false,
                rating: rating(1500 + 37 * k as i32, k % 2 == 0),
                stand_in_in: (k == 1).then_some(40),
                bot: false,
                invited: false,
            })
            .collect();
        lobby.message(ServerMessage::Tables {
            tables: vec![rated, casual, four],
        });
        let text = screen_of(&lobby, 80, 16);
        assert!(text.contains("bob 1540?, [classic 1488]"), "{text}");
        assert!(text.contains("bsd, 2 players (casual)"), "{text}");
        assert!(text.contains("annabelle 1500?"), "{text}");
        assert!(text.contains("bartholomew 1537"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        insta::assert_snapshot!("ratings_in_the_list", text);
    }

    #[test]
    fn the_new_table_form_says_rated_or_casual_and_sends_it() {
        let mut lobby = Lobby::new(GameKind::Mille, "localhost", presets());
        lobby.message(welcome(Vec::new()));
        lobby.key(key(KeyCode::Char('n')));
        let text = screen_of(&lobby, 80, 14);
        assert!(
            text.contains("ratings: < rated (the result moves the players' ratings) >"),
            "{text}"
        );
        // Down to the last line: the seat, "private", "ratings".
        for _ in 0..3 {
            lobby.key(key(KeyCode::Down));
        }
        lobby.key(key(KeyCode::Right));
        let text = screen_of(&lobby, 80, 14);
        assert!(
            text.contains("> ratings: < casual (no rating changes) >"),
            "{text}"
        );
        assert!(text.contains("  private: < no >"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        insta::assert_snapshot!("new_table_form_casual", text);
        // The choice survives another preset.
        lobby.key(key(KeyCode::Up));
        lobby.key(key(KeyCode::Up));
        lobby.key(key(KeyCode::Up));
        lobby.key(key(KeyCode::Right));
        assert!(screen_of(&lobby, 80, 14).contains("< casual (no rating changes) >"));
        match lobby.key(key(KeyCode::Enter)) {
            Step::Send(ClientMessage::Create(c)) => assert_eq!(c.rated, Some(false)),
            other => panic!("not a create: {other:?}"),
        }
        // Rated by default.
        lobby.key(key(KeyCode::Char('n')));
        match lobby.key(key(KeyCode::Enter)) {
            Step::Send(ClientMessage::Create(c)) => assert_eq!(c.rated, Some(true)),
            other => panic!("not a create: {other:?}"),
        }
    }
}

#[cfg(test)]
mod bot_tests {
    //! Bots in the lobby: their seats marked, "play against..." and an
    //! invitation declined.

    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use table_client::protocol::{Limits, SeatSummary};

    fn presets() -> Vec<Preset> {
        vec![
            Preset {
                label: "classic, 4 players in 2 teams".into(),
                setup: serde_json::json!({"rules":"classic","players":4}),
                seats: 4,
                others: None,
                teams: vec![vec![0, 2], vec![1, 3]],
            },
            Preset {
                label: "bsd, 2 players".into(),
                setup: serde_json::json!({"rules":"bsd","players":2}),
                seats: 2,
                others: Some("classic".into()),
                teams: Vec::new(),
            },
        ]
    }

    /// A lobby welcomed as ann and connected.
    fn lobby() -> Lobby {
        let mut lobby = Lobby::new(GameKind::Mille, "127.0.0.1:8780", presets());
        lobby.note(Note::Connection(Link::Connected));
        lobby.message(ServerMessage::Welcome {
            version: 1,
            server: "test".into(),
            name: "ann".into(),
            token: "0".repeat(32),
            limits: Limits {
                max_message_bytes: 16384,
                messages_per_second: 20,
                burst: 40,
                idle_seconds: 120,
                away_seconds: 60,
                decision_seconds: 10,
            },
            seats: Vec::new(),
            games: vec![GameInfo {
                game: GameKind::Mille,
                levels: vec!["random".into(), "classic".into()],
            }],
            bot: false,
        });
        lobby
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn screen_of(lobby: &Lobby, width: u16, height: u16) -> String {
        let mut t = Terminal::new(TestBackend::new(width, height)).expect("terminal");
        t.draw(|f| draw(lobby, f)).expect("draw");
        let buf = t.backend().buffer().clone();
        (0..buf.area.height)
            .map(|y| {
                (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn bot(name: &str, owner: &str, description: &str, arena: bool) -> BotSummary {
        BotSummary {
            name: name.into(),
            owner: owner.into(),
            description: description.into(),
            arena,
        }
    }

    fn seat(player: Option<&str>) -> SeatSummary {
        SeatSummary {
            kind: SeatKindSummary::Human,
            level: None,
            player: player.map(str::to_string),
            connected: player.is_some(),
            away: false,
            rating: None,
            stand_in_in: None,
            bot: false,
            invited: false,
        }
    }

    fn table(id: TableId, seats: Vec<SeatSummary>, status: TableStatus) -> TableSummary {
        TableSummary {
            id,
            game: GameKind::Mille,
            ruleset: "bsd, 2 players".into(),
            setup: Value::Null,
            seats,
            status,
            private: false,
            spectators: 0,
            seq: 0,
            rated: true,
            bots: false,
            arena: None,
        }
    }

    #[test]
    fn a_bots_seat_reads_bot_and_an_invited_one_bot_invited() {
        let mut lobby = lobby();
        let invited = SeatSummary {
            bot: true,
            invited: true,
            connected: false,
            ..seat(Some("robo"))
        };
        let playing = SeatSummary {
            bot: true,
            rating: Some(RatingBrief {
                rating: 1612,
                deviation: 80,
                provisional: true,
            }),
            ..seat(Some("deep blue"))
        };
        let away = SeatSummary {
            bot: true,
            away: true,
            ..seat(Some("slowpoke"))
        };
        lobby.message(ServerMessage::Tables {
            tables: vec![
                table(
                    3,
                    vec![seat(Some("bob")), invited.clone()],
                    TableStatus::Waiting,
                ),
                table(4, vec![seat(Some("cy")), playing], TableStatus::Playing),
                table(5, vec![away, seat(Some("di"))], TableStatus::Playing),
            ],
        });
        let text = screen_of(&lobby, 80, 12);
        assert!(text.contains("bob, robo (bot, invited)"), "{text}");
        assert!(text.contains("cy, deep blue 1612? (bot)"), "{text}");
        assert!(text.contains("slowpoke (bot, away), di"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        insta::assert_snapshot!("bots_in_the_list", text);
        assert_eq!(
            seats_text(&lobby.tables[0]),
            "bob, robo (bot, invited)",
            "the text other screens print"
        );
        // A person's seat has no mark.
        assert_eq!(bot_mark(&seat(Some("bob"))), "");
        assert_eq!(bot_mark(&invited), "(bot, invited)");
    }

    #[test]
    fn play_against_asks_for_the_bots_and_lists_them() {
        let mut lobby = lobby();
        let text = screen_of(&lobby, 80, 12);
        assert!(text.contains("b play against a bot"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        assert_eq!(
            lobby.key(key(KeyCode::Char('b'))),
            Step::Send(ClientMessage::Bots)
        );
        assert!(screen_of(&lobby, 80, 12).contains("asking the server..."));
        assert!(!lobby.refreshes(), "no table list over the bots");
        lobby.message(ServerMessage::Bots {
            bots: vec![
                bot(
                    "robo",
                    "ann",
                    "the classic level of mille, over the network",
                    false,
                ),
                bot(
                    "tortoise",
                    "dominique",
                    "slow and careful: it counts every card still in the deck before it \
                     plays, and never plays a hazard it cannot follow up",
                    true,
                ),
            ],
        });
        lobby.key(key(KeyCode::Down));
        let text = screen_of(&lobby, 80, 12);
        assert!(text.contains("robo"), "{text}");
        assert!(text.contains("dominique"), "{text}");
        assert!(text.contains("(in the arena)"), "{text}");
        assert!(text.contains("Enter play against it"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
        insta::assert_snapshot!("bots_to_play_against", text);
        // Esc goes back to the tables.
        assert_eq!(lobby.key(key(KeyCode::Esc)), Step::Stay);
        assert_eq!(lobby.screen, Screen::List);
    }

    #[test]
    fn with_no_bot_connected_the_list_says_so() {
        let mut lobby = lobby();
        lobby.key(key(KeyCode::Char('b')));
        lobby.message(ServerMessage::Bots { bots: Vec::new() });
        let text = screen_of(&lobby, 80, 10);
        assert!(text.contains("No bot is connected"), "{text}");
        insta::assert_snapshot!("no_bot_connected", text);
        // Enter chooses nothing; r asks again.
        assert_eq!(lobby.key(key(KeyCode::Enter)), Step::Stay);
        assert_eq!(
            lobby.key(key(KeyCode::Char('r'))),
            Step::Send(ClientMessage::Bots)
        );
    }

    #[test]
    fn offline_there_is_nobody_to_ask_for_bots() {
        let mut lobby = Lobby::new(GameKind::Mille, "127.0.0.1:8780", presets());
        assert_eq!(lobby.key(key(KeyCode::Char('b'))), Step::Stay);
        assert_eq!(lobby.screen, Screen::List);
    }

    #[test]
    fn choosing_a_bot_opens_a_two_seat_table_with_its_seat_kept() {
        let mut lobby = lobby();
        lobby.key(key(KeyCode::Char('b')));
        lobby.message(ServerMessage::Bots {
            bots: vec![
                bot("robo", "ann", "the classic level", false),
                bot("tortoise", "dominique", "slow", false),
            ],
        });
        lobby.key(key(KeyCode::Down));
        assert_eq!(lobby.key(key(KeyCode::Enter)), Step::Stay);
        let text = screen_of(&lobby, 80, 14);
        assert!(text.contains("< bsd, 2 players >"), "{text}");
        assert!(
            text.contains("seat 2:  tortoise (bot, invited when the table opens)"),
            "{text}"
        );
        insta::assert_snapshot!("new_table_against_a_bot", text);
        // The bot's seat is not changed by the arrows.
        lobby.key(key(KeyCode::Down));
        lobby.key(key(KeyCode::Right));
        assert!(screen_of(&lobby, 80, 14).contains("tortoise (bot"));
        let step = lobby.key(key(KeyCode::Enter));
        assert_eq!(
            step,
            Step::Send(ClientMessage::Create(CreateTable {
                game: GameKind::Mille,
                setup: serde_json::json!({"rules":"bsd","players":2}),
                seats: vec![
                    SeatRequest::Human,
                    SeatRequest::Bot {
                        name: "tortoise".into()
                    }
                ],
                private: false,
                sit: Some(0),
                rated: Some(true),
                bots: false,
            }))
        );
        assert_eq!(lobby.asked, Some(Request::Create));
    }

    #[test]
    fn the_bot_keeps_the_second_seat_at_another_preset() {
        let mut lobby = lobby();
        lobby.key(key(KeyCode::Char('b')));
        lobby.message(ServerMessage::Bots {
            bots: vec![bot("robo", "ann", "", false)],
        });
        lobby.key(key(KeyCode::Enter));
        // To the four-player preset: the bot is seat 2, a partner of
        // nobody's choosing, the others people.
        lobby.key(key(KeyCode::Right));
        let text = screen_of(&lobby, 80, 14);
        assert!(text.contains("seat 2:  robo (bot"), "{text}");
        let Step::Send(ClientMessage::Create(c)) = lobby.key(key(KeyCode::Enter)) else {
            panic!("no create")
        };
        assert_eq!(
            c.seats,
            vec![
                SeatRequest::Human,
                SeatRequest::Bot {
                    name: "robo".into()
                },
                SeatRequest::Human,
                SeatRequest::Human
            ]
        );
    }

    #[test]
    fn a_declined_invitation_is_told_and_the_list_asked_again() {
        let mut lobby = lobby();
        lobby.message(ServerMessage::Tables {
            tables: vec![table(
                7,
                vec![
                    seat(Some("ann")),
                    SeatSummary {
                        bot: true,
                        invited: true,
                        connected: false,
                        ..seat(Some("robo"))
                    },
                ],
                TableStatus::Waiting,
            )],
        });
        assert_eq!(
            lobby.message(ServerMessage::Declined {
                table: 7,
                seat: 1,
                bot: "robo".into(),
                reason: "I play mille only".into(),
            }),
            Step::Send(ClientMessage::List)
        );
        lobby.message(ServerMessage::Tables {
            tables: vec![table(
                7,
                vec![seat(Some("ann")), seat(None)],
                TableStatus::Waiting,
            )],
        });
        let text = screen_of(&lobby, 80, 10);
        assert!(
            text.contains("robo declined: I play mille only; the seat is free"),
            "{text}"
        );
        assert!(text.contains("ann, (free)"), "{text}");
        insta::assert_snapshot!("bot_declined", text);
        assert_eq!(
            declined_text("robo", " "),
            "robo declined; the seat is free"
        );
    }

    #[test]
    fn an_arena_game_is_marked() {
        let mut lobby = lobby();
        let bots = vec![
            SeatSummary {
                bot: true,
                ..seat(Some("robo"))
            },
            SeatSummary {
                bot: true,
                ..seat(Some("tortoise"))
            },
        ];
        let mut arena = table(9, bots, TableStatus::Playing);
        arena.arena = Some("mille-bsd".into());
        lobby.message(ServerMessage::Tables {
            tables: vec![arena],
        });
        let text = screen_of(&lobby, 80, 10);
        assert!(
            text.contains("bsd, 2 players (arena) playing robo (bot), tortoise (bot)"),
            "{text}"
        );
    }
}
