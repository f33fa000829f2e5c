//! One connection: the `hello` handshake (names and tokens, a bot's
//! account), the limits (size, rate, idle time), the opening of tables
//! (with the invitations of bots), and the routing of every other message
//! to the lobby or to a table's actor. Nothing a client sends can make it panic;
//! whatever is wrong is answered with an error, or the connection is closed
//! with a reason.

use crate::forward::Link;
use crate::games::ServerGame;
use crate::listen::{Client, Throttle, refused};
use crate::store::Place;
use crate::store::{ArenaTag, NewTable, StoredTable};
use crate::table::Cmd;
use crate::{Out, Outbox, Shared};
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use cubes_engine::Cubes;
use futures_util::{SinkExt, StreamExt};
use mille_engine::Mille;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};
use table_protocol::{
    BotInfo, BotSummary, ClientMessage, CreateTable, ErrorBody, ErrorCode, GameInfo, GameKind,
    Limits, SeatRequest, ServerMessage, TableId, TableSummary, VERSION, check_description,
    check_name,
};
use tokio::sync::{Notify, mpsc};

/// Messages queued for one connection before it counts as too slow.
const OUTBOX: usize = 1024;

/// The most messages written at once.
const WRITE_BATCH: usize = 64;

/// A policy-violation close (RFC 6455).
pub(crate) const POLICY: u16 = 1008;

/// The close for a text frame that is not UTF-8 (RFC 6455: "data within a
/// message that was not consistent with the type of the message").
const INVALID_DATA: u16 = 1007;

/// A token bucket: `rate` messages a second on average, `burst` at once.
struct Bucket {
    tokens: f64,
    rate: f64,
    burst: f64,
    at: Instant,
    refused: u32,
}

impl Bucket {
    fn new(rate: u32, burst: u32) -> Bucket {
        Bucket {
            tokens: f64::from(burst),
            rate: f64::from(rate),
            burst: f64::from(burst),
            at: Instant::now(),
            refused: 0,
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        let elapsed = now.duration_since(self.at).as_secs_f64();
        self.at = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            self.refused = 0;
            true
        } else {
            self.refused += 1;
            false
        }
    }
}

/// What one connection knows of itself.
struct Session {
    id: u64,
    /// Where it comes from, for the caps and the log.
    client: Client,
    /// Whether it proved to be another instance's link.
    linked: bool,
    name: Option<String>,
    /// Whether the name is a bot's.
    bot: bool,
    /// The name's token, for the links to other instances.
    token: Option<String>,
    /// The tables here this connection sits at or watches.
    tables: HashSet<TableId>,
    /// The tables other instances run that this connection reached, and
    /// which instance.
    remote: HashMap<TableId, String>,
    /// Its links to other instances, by instance.
    links: HashMap<String, Link>,
    /// Whether this connection is another instance's link: it is never
    /// forwarded further.
    forwarded: bool,
    out: Outbox,
}

/// Connections closed for what they did (a flood, silence, a bad frame).
static CLOSE_LOG: Throttle = Throttle::new(60);

/// Registrations refused over the cap, unknown tokens.
static NAME_LOG: Throttle = Throttle::new(30);

/// Connections over the message rate.
static RATE_LOG: Throttle = Throttle::new(30);

/// The most unfinished tables (waiting or playing) one name may have
/// opened at once.
pub const TABLES_PER_NAME: usize = 5;

/// Serves one WebSocket from `client` until it closes; `linked`: its
/// request carried the instances' link secret.
pub async fn serve(socket: WebSocket, shared: Arc<Shared>, client: Client, linked: bool) {
    shared.metrics.connections.inc();
    let (mut sink, mut stream) = socket.split();
    let (tx, mut rx) = mpsc::channel::<Out>(OUTBOX);
    let slow = Arc::new(Notify::new());
    let queued = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let out = Outbox {
        tx: tx.clone(),
        slow: Arc::clone(&slow),
        queued: Arc::clone(&queued),
        errors: shared.metrics.errors.clone(),
    };
    let writer = tokio::spawn(async move {
        // What is queued leaves in one write (a move's ack and its update
        // together): one system call instead of one per message.
        while let Some(first) = rx.recv().await {
            let mut next = Some(first);
            let mut fed = 0;
            while let Some(o) = next.take() {
                match o {
                    Out::Text(text) => {
                        queued.fetch_sub(text.len(), std::sync::atomic::Ordering::SeqCst);
                        if sink
                            .feed(Message::Text(text.as_ref().into()))
                            .await
                            .is_err()
                        {
                            return;
                        }
                        fed += 1;
                        if fed < WRITE_BATCH {
                            next = rx.try_recv().ok();
                        }
                    }
                    Out::Close(code, reason) => {
                        let frame = CloseFrame {
                            code,
                            reason: reason.into(),
                        };
                        let _ = sink.send(Message::Close(Some(frame))).await;
                        return;
                    }
                }
            }
            if sink.flush().await.is_err() {
                return;
            }
        }
    });
    let mut session = Session {
        id: shared.next_conn(),
        client,
        linked,
        name: None,
        bot: false,
        token: None,
        tables: HashSet::new(),
        remote: HashMap::new(),
        links: HashMap::new(),
        forwarded: false,
        out,
    };
    let limits = shared.config.limits;
    let mut bucket = Bucket::new(limits.messages_per_second, limits.burst);
    let hello_by = Instant::now() + shared.config.handshake;
    let idle = Duration::from_secs(limits.idle_seconds);
    let mut last = Instant::now();
    let mut close_code = POLICY;
    let reason = loop {
        let deadline = if session.name.is_none() {
            hello_by
        } else {
            last + idle
        };
        let next = tokio::select! {
            () = slow.notified() => break Some("too slow: messages were not read".to_string()),
            next = tokio::time::timeout_at(deadline.into(), stream.next()) => next,
        };
        let msg = match next {
            Err(_) if session.name.is_none() => {
                let why = format!(
                    "no hello within {} s",
                    shared.config.handshake.as_secs_f64()
                );
                refuse(&session.out, ErrorCode::Handshake, &why);
                break Some(why);
            }
            Err(_) => break Some(format!("idle for {} s", limits.idle_seconds)),
            Ok(None) | Ok(Some(Ok(Message::Close(_)))) => break None,
            Ok(Some(Err(e))) => {
                if not_utf8(&e) {
                    close_code = INVALID_DATA;
                    break Some("a text message was not UTF-8".to_string());
                }
                break Some(format!("bad WebSocket data: {e}"));
            }
            Ok(Some(Ok(msg))) => msg,
        };
        last = Instant::now();
        // Every frame counts against the rate, whatever its kind.
        if !bucket.take() {
            if bucket.refused > limits.burst {
                break Some("too many messages".to_string());
            }
            let why = format!(
                "more than {} messages a second: this one was dropped",
                limits.messages_per_second
            );
            if bucket.refused == 1 {
                refused!(
                    RATE_LOG,
                    session.client,
                    conn = session.id,
                    "messages over the rate were dropped"
                );
            }
            refuse(&session.out, ErrorCode::RateLimited, &why);
            continue;
        }
        let text = match msg {
            Message::Text(t) => t,
            Message::Binary(_) => {
                refuse(
                    &session.out,
                    ErrorCode::BadMessage,
                    "send text messages (JSON)",
                );
                continue;
            }
            Message::Ping(_) | Message::Pong(_) => continue,
            Message::Close(_) => break None,
        };
        if text.len() > limits.max_message_bytes {
            let why = format!(
                "a message may have {} bytes at most ({} sent)",
                limits.max_message_bytes,
                text.len()
            );
            refuse(&session.out, ErrorCode::TooLarge, &why);
            break Some(why);
        }
        let parsed = ClientMessage::parse(text.as_str());
        let msg = match parsed {
            Ok(m) => m,
            Err(why) => {
                refuse(&session.out, ErrorCode::BadMessage, &why);
                continue;
            }
        };
        match handle(&shared, &mut session, msg).await {
            Ok(()) => {}
            Err(reason) => break Some(reason),
        }
    };
    for table in &session.tables {
        if let Some(h) = shared.table(*table) {
            let _ = h.commands.send(Cmd::Gone { conn: session.id });
        }
    }
    if let Some(name) = &session.name {
        shared.signed_off(name, session.id);
    }
    let closing = reason.is_some();
    if let Some(reason) = &reason {
        refused!(
            CLOSE_LOG,
            session.client,
            conn = session.id,
            reason,
            "closing a connection"
        );
    }
    // A peer that does not read has a full queue: the close is not waited
    // for, and its writer is stopped after its time.
    let _ = tx.try_send(Out::Close(close_code, reason.unwrap_or_default()));
    drop(tx);
    drop(session);
    let mut writer = writer;
    if tokio::time::timeout(Duration::from_secs(2), &mut writer)
        .await
        .is_err()
    {
        tracing::debug!("a connection's writer did not finish: stopped");
        writer.abort();
    }
    if closing {
        // The closing handshake: what the peer still sends is read and
        // dropped until its close answers ours (a second at most). A socket
        // closed with unread data is reset, and the peer may lose the close
        // frame, and with it the reason, before reading it. Errors too are
        // read past: the frames after a refused one may still come.
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            for _ in 0..4096 {
                match stream.next().await {
                    None | Some(Ok(Message::Close(_))) => break,
                    Some(_) => {}
                }
            }
        })
        .await;
    }
    shared.metrics.connections.dec();
}

/// Whether the WebSocket failed on a text frame that is not UTF-8.
fn not_utf8(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(tokio_tungstenite::tungstenite::Error::Utf8(_)) = err.downcast_ref() {
            return true;
        }
        source = err.source();
    }
    false
}

fn refuse(out: &Outbox, code: ErrorCode, message: &str) {
    out.send_msg(&ServerMessage::error(code, message));
}

fn refuse_at(out: &Outbox, code: ErrorCode, message: &str, table: TableId) {
    out.send_msg(&ServerMessage::Error(ErrorBody {
        code,
        message: message.to_string(),
        id: None,
        table: Some(table),
    }));
}

/// Handles one message; an `Err` closes the connection with that reason.
async fn handle(
    shared: &Arc<Shared>,
    session: &mut Session,
    msg: ClientMessage,
) -> Result<(), String> {
    let out = session.out.clone();
    let (name, msg) = match (&session.name, msg) {
        (
            None,
            ClientMessage::Hello {
                version,
                name,
                token,
                client,
                bot,
            },
        ) => {
            session.forwarded = client.as_deref() == Some(crate::forward::FORWARDED);
            if session.forwarded && shared.config.link_secret.is_some() && !session.linked {
                refused!(
                    CLOSE_LOG,
                    session.client,
                    "a link without the instances' secret"
                );
                let why = "only another instance of this server, with its secret, may link here";
                refuse(&out, ErrorCode::Handshake, why);
                return Err(why.into());
            }
            return hello(shared, session, version, name, token, bot).await;
        }
        (Some(_), ClientMessage::Hello { .. }) => {
            refuse(
                &out,
                ErrorCode::Handshake,
                "hello was already said on this connection",
            );
            return Ok(());
        }
        (None, _) => {
            refuse(&out, ErrorCode::Handshake, "say hello first");
            return Ok(());
        }
        (Some(name), msg) => (name.clone(), msg),
    };
    match msg {
        ClientMessage::Hello { .. } => {}
        ClientMessage::Bots => {
            out.send_msg(&ServerMessage::Bots {
                bots: shared.bots(),
            });
        }
        ClientMessage::Accept { table } => {
            let msg = ClientMessage::Accept { table };
            let bot = session.bot;
            if let Reached::Here = route(shared, session, table, &msg, |conn, out| Cmd::Join {
                conn,
                name,
                out,
                seat: None,
                code: None,
                since: None,
                bot,
            })
            .await
            {
                session.tables.insert(table);
            }
        }
        ClientMessage::Decline { table, reason } => {
            if !session.bot {
                refuse_at(&out, ErrorCode::BadMessage, "only a bot declines", table);
                return Ok(());
            }
            let reason = reason.unwrap_or_default();
            if let Err(why) = check_description(&reason) {
                let why = why.replace("a bot's description", "a reason");
                refuse_at(&out, ErrorCode::BadMessage, &why, table);
                return Ok(());
            }
            let msg = ClientMessage::Decline {
                table,
                reason: Some(reason.clone()),
            };
            route(shared, session, table, &msg, |conn, out| Cmd::Decline {
                conn,
                name,
                out,
                reason,
            })
            .await;
        }
        ClientMessage::Ping => {
            out.send_msg(&ServerMessage::Pong);
        }
        ClientMessage::NewToken => {
            let Some(old) = session.token.clone() else {
                return Ok(());
            };
            let token = match secret(16) {
                Ok(t) => t,
                Err(why) => {
                    refuse(&out, ErrorCode::Unavailable, &why);
                    return Ok(());
                }
            };
            match shared.store.replace_token(&name, &old, &token).await {
                Ok(true) => {
                    tracing::info!(client = %session.client, "a name's token was replaced");
                    shared.close_others(
                        &name,
                        session.id,
                        "this name's token was replaced: sign in with the new one",
                    );
                    session.token = Some(token.clone());
                    out.send_msg(&ServerMessage::Token { token });
                }
                Ok(false) => {
                    refuse(
                        &out,
                        ErrorCode::BadToken,
                        "this connection's token no longer owns the name",
                    );
                    return Err("its token was revoked".into());
                }
                Err(e) => {
                    tracing::error!(error = %e, "the database failed");
                    refuse(&out, ErrorCode::Unavailable, BUSY);
                }
            }
        }
        ClientMessage::SignOut => {
            let Some(token) = session.token.clone() else {
                return Ok(());
            };
            match shared.store.sign_out(&name, &token).await {
                Ok(freed) => {
                    tracing::info!(client = %session.client, freed, "a player signed out");
                    shared.close_others(&name, session.id, "this name signed out");
                    out.send_msg(&ServerMessage::SignedOut);
                    return Err("signed out".into());
                }
                Err(e) => {
                    tracing::error!(error = %e, "the database failed");
                    refuse(&out, ErrorCode::Unavailable, BUSY);
                }
            }
        }
        ClientMessage::List => {
            out.send_msg(&ServerMessage::Tables {
                tables: shared.list(&name),
            });
        }
        ClientMessage::Create(_) if session.bot => {
            refuse(
                &out,
                ErrorCode::BadSetup,
                "a bot does not open tables: it is invited",
            );
        }
        ClientMessage::Create(create) => {
            let Some(reservation) = shared.reserve_table(&name) else {
                let why = format!(
                    "{TABLES_PER_NAME} tables you opened are not over yet: that is the most"
                );
                refuse(&out, ErrorCode::BadSetup, &why);
                return Ok(());
            };
            let sit = create.sit;
            match open_table(shared, create, &name, None, None).await {
                Ok((table, code)) => {
                    let id = table.id;
                    reservation.opened(id);
                    out.send_msg(&ServerMessage::Created {
                        table,
                        code: code.clone(),
                    });
                    if let Some(seat) = sit {
                        // The creator of a private table sits with its code.
                        let invitation = code.clone();
                        let bot = session.bot;
                        let msg = ClientMessage::Join {
                            table: id,
                            seat: Some(seat),
                            code: invitation.clone(),
                            since: None,
                        };
                        if let Reached::Here =
                            route(shared, session, id, &msg, |conn, out| Cmd::Join {
                                conn,
                                name,
                                out,
                                seat: Some(seat),
                                code: invitation,
                                since: None,
                                bot,
                            })
                            .await
                        {
                            session.tables.insert(id);
                        }
                    }
                }
                Err((code, why)) => refuse(&out, code, &why),
            }
        }
        ClientMessage::Join {
            table,
            seat,
            code,
            since,
        } => {
            let msg = ClientMessage::Join {
                table,
                seat,
                code: code.clone(),
                since,
            };
            let bot = session.bot;
            if let Reached::Here = route(shared, session, table, &msg, |conn, out| Cmd::Join {
                conn,
                name,
                out,
                seat,
                code,
                since,
                bot,
            })
            .await
            {
                session.tables.insert(table);
            }
        }
        ClientMessage::Watch { table, code, since } => {
            let msg = ClientMessage::Watch {
                table,
                code: code.clone(),
                since,
            };
            if let Reached::Here = route(shared, session, table, &msg, |conn, out| Cmd::Watch {
                conn,
                name,
                out,
                code,
                since,
            })
            .await
            {
                session.tables.insert(table);
            }
        }
        ClientMessage::Move { table, id, action } => {
            let at = Instant::now();
            let msg = ClientMessage::Move {
                table,
                id,
                action: action.clone(),
            };
            route(shared, session, table, &msg, |conn, out| Cmd::Move {
                conn,
                out,
                id,
                action,
                at,
            })
            .await;
        }
        ClientMessage::Ready { table } => {
            let msg = ClientMessage::Ready { table };
            route(shared, session, table, &msg, |conn, out| Cmd::Ready {
                conn,
                out,
            })
            .await;
        }
        ClientMessage::Leave { table } => {
            let msg = ClientMessage::Leave { table };
            if let Reached::Here = route(shared, session, table, &msg, |conn, out| Cmd::Leave {
                conn,
                out,
            })
            .await
            {
                session.tables.remove(&table);
            }
        }
        ClientMessage::Rankings {
            game,
            kind,
            min_games,
        } => {
            let answer = crate::scores::rankings(shared, game, kind, min_games.unwrap_or(5)).await;
            match answer {
                Ok(text) => out.send_msg(&ServerMessage::Rankings { game, text }),
                Err(why) => out.send_msg(&ServerMessage::error(ErrorCode::Unavailable, why)),
            };
        }
        ClientMessage::Ladder {
            game,
            rules,
            players,
        } => {
            let category =
                match game_rating::Category::from_request(game.name(), rules.as_deref(), players) {
                    Ok(c) => c,
                    Err(why) => {
                        refuse(&out, ErrorCode::BadMessage, &why);
                        return Ok(());
                    }
                };
            match shared.store.ladder(category, crate::LIST_MAX).await {
                Ok(rows) => {
                    let now = crate::ratings::now();
                    out.send_msg(&ServerMessage::Ladder {
                        category: category.id(),
                        title: category.title(),
                        entries: rows
                            .iter()
                            .map(|r| crate::ratings::ladder_entry(r, now))
                            .collect(),
                    });
                }
                Err(e) => {
                    tracing::error!(error = %e, "cannot read a ladder");
                    refuse(&out, ErrorCode::Unavailable, BUSY);
                }
            }
        }
    }
    Ok(())
}

/// Where a table message went.
enum Reached {
    /// To the table's actor here.
    Here,
    /// Over a link to the instance that runs it.
    Elsewhere,
    /// Nowhere: the client was told why.
    Refused,
}

/// Sends a command to a table here (`cmd`), or the client's message
/// (`msg`) to the instance that runs it. A table nobody runs is taken
/// over here; one whose instance does not answer is waited for until its
/// lease runs out, then taken over.
async fn route(
    shared: &Arc<Shared>,
    session: &mut Session,
    table: TableId,
    msg: &ClientMessage,
    cmd: impl FnOnce(u64, Outbox) -> Cmd,
) -> Reached {
    if let Some(h) = shared.table(table) {
        return send_here(session, table, &h, cmd);
    }
    if let Some(link) = session
        .remote
        .get(&table)
        .and_then(|instance| session.links.get(instance))
        && link.send(msg)
    {
        return Reached::Elsewhere;
    }
    if shared.unplayable(table) {
        let why = format!("table {table} cannot be replayed by this server's version");
        refuse_at(&session.out, ErrorCode::Unavailable, &why, table);
        return Reached::Refused;
    }
    let me = shared.store.instance().clone();
    let give_up = Instant::now() + shared.config.lease + Duration::from_secs(2);
    let mut last_trouble = None;
    loop {
        if let Some(h) = shared.table(table) {
            return send_here(session, table, &h, cmd);
        }
        let name = session.name.clone().unwrap_or_default();
        let place = match shared.store.place(table, &name).await {
            Ok(p) => p,
            Err(e) => {
                tracing::error!(error = %e, "the database failed");
                refuse_at(&session.out, ErrorCode::Unavailable, BUSY, table);
                return Reached::Refused;
            }
        };
        match place {
            Place::Nowhere => break,
            // A finished game nobody is at any more: the same answer as
            // while it still ran, to whoever may enter it.
            Place::Over { code, seated } => {
                let given = match msg {
                    ClientMessage::Join { code, .. } | ClientMessage::Watch { code, .. } => {
                        code.as_deref()
                    }
                    _ => None,
                };
                if code.is_some() && !seated && code.as_deref() != given {
                    break;
                }
                let why = format!("the game at table {table} is over");
                refuse_at(&session.out, ErrorCode::GameOver, &why, table);
                return Reached::Refused;
            }
            Place::Free => match shared.adopt(table).await {
                Ok(Some(h)) => return send_here(session, table, &h, cmd),
                // Another instance took it first, or it cannot be
                // replayed: look again.
                Ok(None) => {}
                Err(e) => last_trouble = Some(e.to_string()),
            },
            // Another instance's, reached from a client (a link from an
            // instance is never forwarded again, and this instance's old
            // runs at its own address are gone).
            Place::Held { instance, address }
                if instance != me.id && address != me.address && !session.forwarded =>
            {
                match link(shared, session, &instance, &address).await {
                    Ok(link) if link.send(msg) => {
                        session.remote.insert(table, instance);
                        return Reached::Elsewhere;
                    }
                    Ok(_) => {
                        session.links.remove(&instance);
                    }
                    // Its instance is gone, or not there yet: its lease
                    // runs out, then the table is taken over.
                    Err(why) => last_trouble = Some(why),
                }
            }
            // Ours, and starting this moment; or another's, to wait for.
            Place::Held { .. } => {}
        }
        if Instant::now() >= give_up {
            if let Some(why) = last_trouble {
                tracing::warn!(table, why, "a table cannot be reached");
            }
            let why = format!("table {table} cannot be reached now: try again in a moment");
            refuse_at(&session.out, ErrorCode::Unavailable, &why, table);
            return Reached::Refused;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    no_such_table(session, table)
}

fn no_such_table(session: &Session, table: TableId) -> Reached {
    refuse_at(
        &session.out,
        ErrorCode::NoSuchTable,
        &format!("there is no table {table}"),
        table,
    );
    Reached::Refused
}

fn send_here(
    session: &Session,
    table: TableId,
    h: &crate::table::TableHandle,
    cmd: impl FnOnce(u64, Outbox) -> Cmd,
) -> Reached {
    if h.commands
        .send(cmd(session.id, session.out.clone()))
        .is_ok()
    {
        Reached::Here
    } else {
        no_such_table(session, table)
    }
}

/// This connection's link to `instance`, opened if need be.
async fn link<'s>(
    shared: &Shared,
    session: &'s mut Session,
    instance: &str,
    address: &str,
) -> Result<&'s Link, String> {
    if !session.links.contains_key(instance) {
        let (Some(name), Some(token)) = (&session.name, &session.token) else {
            return Err("not signed in".into());
        };
        let link = Link::open(
            address,
            name,
            token,
            session.out.clone(),
            shared.config.link_secret.as_deref(),
            shared.link_tls.as_ref(),
        )
        .await?;
        session.links.insert(instance.to_string(), link);
    }
    session
        .links
        .get(instance)
        .ok_or_else(|| "the link is gone".to_string())
}

/// What a client is told when the server's storage fails.
const BUSY: &str = "the server cannot do that now: try again later";

/// `bytes` random bytes as hexadecimal digits (a token takes 16: 128 bits).
pub(crate) fn secret(bytes: usize) -> Result<String, String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| format!("no randomness for a token: {e}"))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

async fn hello(
    shared: &Arc<Shared>,
    session: &mut Session,
    version: u32,
    name: Option<String>,
    token: Option<String>,
    bot: Option<BotInfo>,
) -> Result<(), String> {
    let out = &session.out;
    if version != VERSION {
        let why = format!("this server speaks version {VERSION} of the protocol, not {version}");
        refuse(out, ErrorCode::Version, &why);
        return Err(why);
    }
    if let Some(info) = &bot {
        if let Err(why) = check_name(&info.owner) {
            refuse(out, ErrorCode::BadName, &format!("a bot's owner: {why}"));
            return Ok(());
        }
        if let Err(why) = check_description(&info.description) {
            refuse(out, ErrorCode::BadMessage, &why);
            return Ok(());
        }
    }
    let unavailable = |e: crate::store::StoreError| {
        // The details (paths, SQLite's words) are for the server's log.
        tracing::error!(error = %e, "the database failed");
        refuse(out, ErrorCode::Unavailable, BUSY);
        Ok(())
    };
    let (name, token) = match token {
        Some(token) => {
            let owner = match shared.store.name_of(&token).await {
                Ok(o) => o,
                Err(e) => return unavailable(e),
            };
            match (owner, name) {
                (None, _) => {
                    refused!(NAME_LOG, session.client, "a hello with an unknown token");
                    refuse(
                        out,
                        ErrorCode::BadToken,
                        "this server does not know that token: say hello with a name and no token",
                    );
                    return Ok(());
                }
                (Some(owner), Some(asked)) if owner != asked => {
                    let why = format!(
                        "that token is {owner}'s: say hello without a token to play as {asked}"
                    );
                    refuse(out, ErrorCode::BadToken, &why);
                    return Ok(());
                }
                (Some(owner), _) => (owner, token),
            }
        }
        None => {
            let Some(name) = name else {
                refuse(out, ErrorCode::BadName, "say hello with a name");
                return Ok(());
            };
            if let Err(why) = check_name(&name) {
                refuse(out, ErrorCode::BadName, &why);
                return Ok(());
            }
            // The score file tells people from computers by name too.
            let lower = name.to_lowercase();
            if cubes_ai::computer_names()
                .iter()
                .any(|c| c.to_lowercase() == lower)
            {
                let why = format!("{name} is the name of a computer player: choose another");
                refuse(out, ErrorCode::BadName, &why);
                return Ok(());
            }
            if !shared.may_register(session.client) {
                let why = format!(
                    "{} names were registered from your address in the last hour: that is the most; say hello with your token, or try later",
                    shared.config.registrations_per_hour
                );
                refused!(NAME_LOG, session.client, "a registration was refused");
                refuse(out, ErrorCode::RateLimited, &why);
                return Ok(());
            }
            let token = match secret(16) {
                Ok(t) => t,
                Err(why) => {
                    refuse(out, ErrorCode::Unavailable, &why);
                    return Ok(());
                }
            };
            let claimed = match &bot {
                Some(info) => shared.store.claim_bot(&name, &token, info).await,
                None => shared.store.claim(&name, &token).await,
            };
            match claimed {
                Ok(true) => {
                    shared.registered(session.client);
                    (name, token)
                }
                Ok(false) => {
                    // A bot's hello for a person's name is told why, as it
                    // would be with the person's token.
                    let person = match &bot {
                        Some(_) => match shared.store.bot_info(&name).await {
                            Ok(stored) => stored.is_none(),
                            Err(e) => return unavailable(e),
                        },
                        None => false,
                    };
                    if person {
                        refuse(out, ErrorCode::BadName, &not_a_bot(&name));
                    } else {
                        let why = format!("the name {name} is taken: choose another");
                        refuse(out, ErrorCode::NameTaken, &why);
                    }
                    return Ok(());
                }
                Err(e) => return unavailable(e),
            }
        }
    };
    // The kind is the name's from its registration on: a bot's hello
    // without its info (a link from another instance) signs in as the bot.
    let stored = match shared.store.bot_info(&name).await {
        Ok(s) => s,
        Err(e) => return unavailable(e),
    };
    let bot = match (bot, stored) {
        (Some(_), None) => {
            refuse(out, ErrorCode::BadName, &not_a_bot(&name));
            return Ok(());
        }
        (Some(info), Some(stored)) => {
            let changed = info.owner != stored.owner || info.description != stored.description;
            if changed && let Err(e) = shared.store.update_bot(&name, &info).await {
                return unavailable(e);
            }
            Some(info)
        }
        (None, stored) => stored,
    };
    let seats = match shared.store.seats_of(&name).await {
        Ok(s) => s,
        Err(e) => return unavailable(e),
    };
    // A name in use is never let go.
    if let Err(e) = shared.store.seen(&name).await {
        tracing::warn!(error = %e, "cannot note a sign-in");
    }
    out.send_msg(&ServerMessage::Welcome {
        version: VERSION,
        server: format!("table-server {}", env!("CARGO_PKG_VERSION")),
        name: name.clone(),
        token: token.clone(),
        limits: Limits {
            // The limit the tables keep, whatever the limits were set to.
            decision_seconds: shared.config.decision_limit.as_secs_f64().ceil() as u64,
            ..shared.config.limits
        },
        seats,
        bot: bot.is_some(),
        games: vec![
            GameInfo {
                game: GameKind::Mille,
                levels: shared.levels::<Mille>(),
            },
            GameInfo {
                game: GameKind::Cubes,
                levels: shared.levels::<Cubes>(),
            },
        ],
    });
    // How the tables this person had left ended meanwhile, told once.
    match shared.store.take_endings(&name).await {
        Ok(rows) if !rows.is_empty() => {
            out.send_msg(&ServerMessage::Ended {
                tables: rows.into_iter().map(crate::ratings::ending).collect(),
            });
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "cannot read the endings of a returning player"),
    }
    tracing::debug!(conn = session.id, name, bot = bot.is_some(), "hello");
    // A bot reached over another instance's link is that instance's to
    // invite, not this one's.
    let here = bot
        .as_ref()
        .filter(|_| !session.forwarded)
        .map(|info| BotSummary {
            name: name.clone(),
            owner: info.owner.clone(),
            description: info.description.clone(),
            arena: info.arena,
        });
    shared.signed_in(&name, session.id, session.out.clone(), here);
    session.bot = bot.is_some();
    session.name = Some(name);
    session.token = Some(token);
    Ok(())
}

/// The refusal of a bot's hello for a person's name.
fn not_a_bot(name: &str) -> String {
    format!("{name} is a person's name, not a bot's")
}

/// Opens a table as asked by `by` (a person's name, or `arena`); answers
/// its lobby line and invitation code. Every bot seat (`SeatRequest::Bot`)
/// is kept for its bot, which must be connected here, and the bot is sent
/// `invited`. `arena`: the arena game it is; `seed`: the deal's seed
/// (else a random one, or the configured fixed one).
pub(crate) async fn open_table(
    shared: &Arc<Shared>,
    create: CreateTable,
    by: &str,
    arena: Option<ArenaTag>,
    seed: Option<u64>,
) -> Result<(TableSummary, Option<String>), (ErrorCode, String)> {
    if shared.table_count() >= shared.config.max_tables {
        return Err((
            ErrorCode::Unavailable,
            format!(
                "the server has {} tables open, its most",
                shared.config.max_tables
            ),
        ));
    }
    let (setup, levels) = match create.game {
        GameKind::Mille => check::<Mille>(shared, &create)?,
        GameKind::Cubes => check::<Cubes>(shared, &create)?,
    };
    let invited: Vec<Option<String>> = create
        .seats
        .iter()
        .map(|s| match s {
            SeatRequest::Bot { name } => Some(name.clone()),
            _ => None,
        })
        .collect();
    if let Some(sit) = create.sit
        && (levels.get(sit).is_none_or(Option::is_some)
            || invited.get(sit).is_some_and(Option::is_some))
    {
        return Err((
            ErrorCode::BadSetup,
            format!("seat {} is not a person's seat", sit + 1),
        ));
    }
    let unavailable = |why: String| (ErrorCode::Unavailable, why);
    let seed = match seed.or(shared.config.fixed_seed) {
        Some(seed) => seed,
        None => secret(8)
            .ok()
            .and_then(|hex| u64::from_str_radix(&hex, 16).ok())
            .ok_or_else(|| unavailable("no randomness for the deal".into()))?,
    };
    // Rated unless asked otherwise.
    let rated = create.rated.unwrap_or(true);
    let code = if create.private {
        Some(secret(5).map_err(unavailable)?)
    } else {
        None
    };
    let new = NewTable {
        game: create.game,
        setup: setup.clone(),
        seed,
        code: code.clone(),
        levels: levels.clone(),
        rated,
        invited: invited.clone(),
        bots_allowed: create.bots,
        arena: arena.clone(),
    };
    let id = shared.store.create(new).await.map_err(|e| {
        tracing::error!(error = %e, "cannot record a new table");
        unavailable(BUSY.into())
    })?;
    let stored = StoredTable {
        id,
        game: create.game,
        setup,
        seed,
        code: code.clone(),
        seats: levels.into_iter().zip(invited.iter().cloned()).collect(),
        moves: Vec::new(),
        rated,
        stand_in: Vec::new(),
        bots: invited.iter().map(Option::is_some).collect(),
        bots_allowed: create.bots,
        arena,
    };
    let handle = match shared.launch_any(stored) {
        Ok(h) => h,
        Err(why) => {
            // The table never ran: it is closed, so that no restart tries it.
            tracing::error!(table = id, why, "a new table cannot start");
            let _ = shared
                .store
                .close(id, crate::store::Outcome::Broken, Vec::new())
                .await;
            return Err((
                ErrorCode::BadSetup,
                "a computer player of this table cannot start".into(),
            ));
        }
    };
    let summary = handle
        .summary
        .lock()
        .map(|s| s.clone())
        .map_err(|_| unavailable("the table is lost".into()))?;
    tracing::info!(table = id, game = create.game.name(), "a table opens");
    for (seat, bot) in invited.iter().enumerate() {
        let Some(bot) = bot else { continue };
        let invitation = ServerMessage::Invited {
            table: summary.clone(),
            seat,
            by: by.to_string(),
        };
        if !shared.invite(bot, &invitation) {
            // It left since: the table waits for it as for anybody.
            tracing::debug!(table = id, bot, "an invited bot is not connected");
        }
    }
    Ok((summary, code))
}

type Checked = (serde_json::Value, Vec<Option<String>>);

/// The setup (normalized) and each seat's level, or why not.
fn check<G: ServerGame>(
    shared: &Shared,
    create: &CreateTable,
) -> Result<Checked, (ErrorCode, String)> {
    let bad = |why: String| (ErrorCode::BadSetup, why);
    let setup = G::setup(&create.setup).map_err(bad)?;
    G::check_seats(&setup, create.seats.len()).map_err(bad)?;
    // A table is for people: one alone at the dice, or computers among
    // themselves, would fill the rankings and the server with games nobody
    // plays.
    if create.seats.len() < 2 {
        return Err(bad("a table has at least 2 seats".into()));
    }
    // A person may seat a bot against a computer and watch.
    if !create
        .seats
        .iter()
        .any(|s| matches!(s, SeatRequest::Human | SeatRequest::Bot { .. }))
    {
        return Err(bad("a table has at least one person's or bot's seat".into()));
    }
    // A bot holds one seat of a table: a second kept for it would wait
    // for ever.
    let mut invited = std::collections::HashSet::new();
    for s in &create.seats {
        if let SeatRequest::Bot { name } = s
            && !invited.insert(name.as_str())
        {
            return Err(bad(format!(
                "{name} is invited to two seats: a bot takes one"
            )));
        }
    }
    let levels = create
        .seats
        .iter()
        .map(|s| match s {
            SeatRequest::Human => Ok(None),
            SeatRequest::Computer { level } => {
                shared.check_level::<G>(level).map(|()| Some(level.clone()))
            }
            SeatRequest::Bot { name } => match shared.bot_here(name) {
                Some(_) => Ok(None),
                None => Err(format!("no bot named {name} is connected")),
            },
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(bad)?;
    let json = serde_json::to_value(&setup).map_err(|e| bad(e.to_string()))?;
    Ok((json, levels))
}
