//! Hidden information over real sockets: a person plays whole games
//! against computers while a spectator watches, and every text message
//! either connection receives is kept. After the game the test reads the
//! server's database (the table's seed and its move log), replays the game
//! with the engine to know every hand and the draw pile at every sequence
//! number, and checks each message against that truth:
//!
//! - a seat is sent its own hand and nobody else's, never the draw pile's
//!   order, never another seat's drawn card or declined coup fourré, and a
//!   coup fourré chance only when it is its own;
//! - the public part of an observation (piles, tableaux, discards) names
//!   exactly the cards that are public at that sequence number, card for
//!   card: one more (a card of a hand, of the pile) is a leak;
//! - refusals never name a safety that is hidden from the connection;
//! - a spectator sees no hand at all;
//! - a token travels only in the `welcome` of its own connection, and no
//!   message carries the table's seed.
//!
//! The checker is itself tested: leaks injected into copies of real
//! messages must be caught.

mod common;

use common::{Client, Dice, create, legal, parse};
use mille_engine::{Action, ActionList, Card, GameConfig, State, ToAct};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};
use table_protocol::{ClientMessage, ErrorCode, ServerMessage};

/// Who a connection is at the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    Seat(usize),
    Spectator,
}

/// One connection's messages, and the token of its name.
struct Conn {
    who: Who,
    log: Vec<String>,
    token: String,
}

/// A game as its client saw it.
struct Played {
    dir: tempfile::TempDir,
    table: u64,
    conns: Vec<Conn>,
    /// Every move of the seat the server acknowledged: (id, seq).
    acks: Vec<(u64, u64)>,
    /// The refusals provoked, by code.
    refusals: HashMap<ErrorCode, usize>,
}

// ---------------------------------------------------------------------------
// Playing.

fn config(dir: &Path) -> table_server::Config {
    let mut c = common::config(dir);
    // The next hand is dealt when the seat says `ready`: a move sent
    // between hands is then surely out of turn.
    c.hand_pause = Duration::from_secs(60);
    // The seat is a program that answers at once.
    c.limits.messages_per_second = 1000;
    c.limits.burst = 1000;
    c
}

fn phase(observation: &Value) -> &str {
    observation["status"]["phase"].as_str().unwrap_or("")
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// An illegal action for a seat that has drawn: a card of its hand played
/// where it may not go.
fn illegal_play(observation: &Value) -> Option<String> {
    let legal = strings(&observation["legal"]);
    let teams = observation["teams"].as_array().map_or(0, Vec::len);
    for card in strings(&observation["hand"]) {
        for team in 0..teams {
            let action = format!("play {card} {team}");
            if !legal.contains(&action) {
                return Some(action);
            }
        }
    }
    None
}

/// The move a simple person makes: safeties are kept for coups fourrés,
/// and a coup fourré chance is taken, or now and then not (the others must
/// not learn of the chance); otherwise a play rather than a discard most
/// of the time.
fn choose(observation: &Value, dice: &mut Dice) -> Value {
    let mut legal = strings(&observation["legal"]);
    if let Some(cf) = legal.iter().find(|a| a.starts_with("coup_fourre")) {
        return if dice.chance(50) {
            json!("decline")
        } else {
            json!(cf)
        };
    }
    let safety = |a: &String| Card::SAFETIES.iter().any(|c| a.contains(c.id()));
    if legal.iter().any(|a| !safety(a)) {
        legal.retain(|a| !safety(a));
    }
    let plays: Vec<&String> = legal.iter().filter(|a| a.starts_with("play")).collect();
    if !plays.is_empty() && dice.chance(75) {
        return json!(plays[dice.below(plays.len())]);
    }
    json!(legal[dice.below(legal.len())])
}

fn mv(table: u64, id: u64, action: Value) -> ClientMessage {
    ClientMessage::Move { table, id, action }
}

/// Plays a game of mille at seat 0 to its end, a spectator watching; the
/// seat's refusals are provoked along the way (illegal moves, a move out of
/// turn, a move after the end, a move sent twice) and, once, the seat
/// takes its place back from a new connection with `since`.
async fn play_mille(setup: Value, seats: Value, seed: u64) -> Played {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let addr = server.addr;
    let mut ann = Client::open(addr).await;
    let ann_token = ann.hello("ann", None).await;
    let mut eve = Client::open(addr).await;
    let eve_token = eve.hello("eve", None).await;
    ann.send(&create("mille", setup, seats, Some(0))).await;
    let table = ann
        .until(|m| match m {
            ServerMessage::Created { table, .. } => Some(table.id),
            _ => None,
        })
        .await;
    let (mut seq, mut obs) = ann
        .until(|m| match m {
            ServerMessage::Joined {
                seq, observation, ..
            } => Some((*seq, observation.clone())),
            _ => None,
        })
        .await;
    eve.send(&ClientMessage::Watch {
        table,
        code: None,
        since: None,
    })
    .await;
    eve.until(|m| matches!(m, ServerMessage::Watching { .. }).then_some(()))
        .await;
    // A spectator may neither move nor take a computer's seat.
    eve.send(&mv(table, 1, json!("draw"))).await;
    let code = eve
        .until(|m| match m {
            ServerMessage::Error(e) => Some(e.code),
            _ => None,
        })
        .await;
    assert_eq!(code, ErrorCode::NotSeated);
    eve.send(&ClientMessage::Join {
        table,
        seat: Some(1),
        code: None,
        since: None,
    })
    .await;
    let code = eve
        .until(|m| match m {
            ServerMessage::Error(e) => Some(e.code),
            _ => None,
        })
        .await;
    assert_eq!(code, ErrorCode::NoSuchSeat);
    // From here on the spectator is only read (by its client's task).

    let mut dice = Dice::new(seed);
    let mut id = 1_000_000u64;
    // The seat acts on an observation newer than its last move, once that
    // move is answered (a sequence number does not tell: a declined coup
    // fourré leaves it as it was).
    let mut fresh = true;
    let mut pending: Option<u64> = None;
    let mut dealt_after: Option<u64> = None;
    let mut expected: HashMap<u64, ErrorCode> = HashMap::new();
    let mut refusals: HashMap<ErrorCode, usize> = HashMap::new();
    let mut acks: Vec<(u64, u64)> = Vec::new();
    let mut resent: Option<(u64, u64)> = None;
    let mut old_logs = Vec::new();
    let mut spectators = Vec::new();
    let mut moves = 0u32;
    // Whether the seat's last move was a draw the server took: its turn
    // is then surely open. An observation offering moves is not proof
    // enough, as a seat is shown its moves while a computer's coup-fourré
    // chance is still open and hidden from it, and if the computer takes
    // it the table goes on without the seat.
    let mut drew = false;
    let mut pending_draw = false;
    let started = Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the game ends in time"
        );
        match phase(&obs) {
            "game_over" => break,
            "hand_over" if dealt_after != Some(seq) => {
                dealt_after = Some(seq);
                id += 1;
                expected.insert(id, ErrorCode::NotYourTurn);
                ann.send(&mv(table, id, json!("draw"))).await;
                ann.send(&ClientMessage::Ready { table }).await;
            }
            _ => {}
        }
        let to_act = !legal(&obs).is_empty() && fresh && pending.is_none();
        if to_act && drew && moves >= 40 && old_logs.is_empty() {
            // Back from a new connection, with the events since a while
            // ago (a drop, as the client sees it).
            let mut again = Client::open(addr).await;
            assert_eq!(again.hello("ann", Some(ann_token.clone())).await, ann_token);
            again
                .send(&ClientMessage::Join {
                    table,
                    seat: Some(0),
                    code: None,
                    since: Some(seq.saturating_sub(30)),
                })
                .await;
            let (s, o) = again
                .until(|m| match m {
                    ServerMessage::Joined {
                        seq, observation, ..
                    } => Some((*seq, observation.clone())),
                    _ => None,
                })
                .await;
            assert_eq!(s, seq, "the table waited for the seat");
            assert!(
                !o["events"].as_array().is_none_or(Vec::is_empty),
                "events since are told"
            );
            ann.until(|m| matches!(m, ServerMessage::Left { .. }).then_some(()))
                .await;
            old_logs.push(ann.log());
            ann = again;
            obs = o;
            // A second spectator comes in, with every event since the deal.
            let mut late = Client::open(addr).await;
            late.hello("eve", Some(eve_token.clone())).await;
            late.send(&ClientMessage::Watch {
                table,
                code: None,
                since: Some(0),
            })
            .await;
            let events = late
                .until(|m| match m {
                    ServerMessage::Watching { observation, .. } => {
                        Some(observation["events"].as_array().map_or(0, Vec::len))
                    }
                    _ => None,
                })
                .await;
            assert!(events > 40, "{events} events since the deal");
            spectators.push(late);
        }
        if to_act {
            fresh = false;
            let drawn = obs["status"]["drawn"].as_bool() == Some(true);
            if phase(&obs) == "turn" && dice.chance(15) {
                let hand = strings(&obs["hand"]);
                let probe = if drawn {
                    illegal_play(&obs)
                } else {
                    hand.first().map(|c| format!("discard {c}"))
                };
                if let Some(probe) = probe {
                    id += 1;
                    expected.insert(id, ErrorCode::Illegal);
                    ann.send(&mv(table, id, json!(probe))).await;
                }
            }
            if moves == 20 {
                // A move sent again is answered as the first time.
                let (first, first_seq) = acks[acks.len() / 2];
                resent = Some((first, first_seq));
                ann.send(&mv(table, first, json!("draw"))).await;
            }
            id += 1;
            moves += 1;
            pending = Some(id);
            let action = choose(&obs, &mut dice);
            drew = false;
            pending_draw = action == json!("draw");
            ann.send(&mv(table, id, action)).await;
        }
        match ann.recv().await {
            ServerMessage::Update {
                seq: s,
                observation,
                ..
            } => {
                seq = s;
                obs = observation;
                fresh = true;
            }
            ServerMessage::Ack { id: i, seq: s, .. } => {
                if let Some((first, first_seq)) = resent
                    && i == first
                {
                    assert_eq!(s, first_seq, "the first answer again");
                    resent = None;
                } else {
                    assert_eq!(Some(i), pending, "the answer to the move sent");
                    pending = None;
                    drew = pending_draw;
                    // What the seat holds is from before its move.
                    fresh = false;
                    acks.push((i, s));
                }
            }
            // A move shown during a computer's hidden coup-fourré chance
            // (which it answers at once) may be overtaken by the answer.
            ServerMessage::Error(e)
                if e.id.is_some()
                    && e.id == pending
                    && matches!(e.code, ErrorCode::NotYourTurn | ErrorCode::Illegal) =>
            {
                pending = None;
                fresh = false;
            }
            ServerMessage::Error(e) => {
                let want = e.id.and_then(|i| expected.remove(&i));
                // A probe sent on a view a public coup fourré has since
                // overtaken may come while a computer plays: the table
                // answers between computer moves, and it is not ann's
                // turn then.
                let overtaken =
                    want == Some(ErrorCode::Illegal) && e.code == ErrorCode::NotYourTurn;
                assert!(
                    want == Some(e.code) || overtaken,
                    "an expected refusal ({want:?}): {e:?}"
                );
                *refusals.entry(e.code).or_default() += 1;
            }
            _ => {}
        }
    }
    assert!(resent.is_none(), "the move sent again was answered");
    assert!(!old_logs.is_empty(), "the seat came back once");
    // Refusals still on their way come before the end of the game is
    // answered.
    id += 1;
    expected.insert(id, ErrorCode::GameOver);
    ann.send(&mv(table, id, json!("draw"))).await;
    while !expected.is_empty() {
        if let ServerMessage::Error(e) = ann.recv().await {
            let want = e.id.and_then(|i| expected.remove(&i));
            assert_eq!(want, Some(e.code), "an expected refusal: {e:?}");
            *refusals.entry(e.code).or_default() += 1;
        }
    }
    // The spectator is shown the end too.
    let over = Instant::now();
    while !eve.log().iter().any(|t| {
        let v: Value = serde_json::from_str(t).unwrap_or(Value::Null);
        v["seq"].as_u64() == Some(seq) && phase(&v["observation"]) == "game_over"
    }) {
        assert!(
            over.elapsed() < Duration::from_secs(10),
            "the spectator sees the end"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut conns: Vec<Conn> = old_logs
        .into_iter()
        .map(|log| Conn {
            who: Who::Seat(0),
            log,
            token: ann_token.clone(),
        })
        .collect();
    conns.push(Conn {
        who: Who::Seat(0),
        log: ann.log(),
        token: ann_token,
    });
    for spectator in std::iter::once(&eve).chain(&spectators) {
        conns.push(Conn {
            who: Who::Spectator,
            log: spectator.log(),
            token: eve_token.clone(),
        });
    }
    drop(spectators);
    drop(ann);
    drop(eve);
    server.stop().await;
    Played {
        dir,
        table,
        conns,
        acks,
        refusals,
    }
}

// ---------------------------------------------------------------------------
// The truth.

/// What the database says of a table: its setup, seed and move log.
struct Stored {
    setup: String,
    seed: u64,
    moves: Vec<(u64, Option<i64>, String, Option<i64>)>,
}

fn stored(dir: &Path, table: u64) -> Stored {
    let db = rusqlite::Connection::open(dir.join("server.db")).expect("the server's database");
    let (setup, seed): (String, i64) = db
        .query_row(
            "SELECT setup, seed FROM tables WHERE id = ?1",
            [table as i64],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("the table's row");
    let mut stmt = db
        .prepare("SELECT seq, seat, action, client_id FROM moves WHERE table_id = ?1 ORDER BY seq")
        .expect("moves");
    let moves = stmt
        .query_map([table as i64], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .expect("moves")
        .collect::<Result<Vec<_>, _>>()
        .expect("moves");
    Stored {
        setup,
        seed: seed as u64,
        moves,
    }
}

/// The whole game: the state after every move of the log, and where the
/// table's sequence numbers fall in it.
///
/// The protocol's sequence number counts the moves everybody sees
/// something of: a declined coup fourré (seen by its maker alone, see
/// `mille_engine::seen_by`) does not count, so one number may stand for a
/// public move and the declines after it.
struct Truth {
    seed: u64,
    /// After 0, 1, 2... moves of the log.
    states: Vec<State>,
    /// `public[seq]`: how many moves of the log were made by the `seq`-th
    /// public move.
    public: Vec<usize>,
}

fn is_public(action: Action) -> bool {
    action != Action::DeclineCoupFourre
}

impl Truth {
    fn replay(stored: &Stored) -> Truth {
        let config: GameConfig = serde_json::from_str(&stored.setup).expect("a mille setup");
        let mut state = State::new(config, stored.seed).expect("the game");
        let mut states = vec![state.clone()];
        let mut public = vec![0];
        for (k, (seq, _, action, _)) in stored.moves.iter().enumerate() {
            assert_eq!(*seq, k as u64 + 1, "the log has every move");
            let text: String = serde_json::from_str(action).expect("an action's text form");
            let action: Action = text.parse().expect("an action");
            state.apply(action).expect("the log replays");
            states.push(state.clone());
            if is_public(action) {
                public.push(k + 1);
            }
        }
        Truth {
            seed: stored.seed,
            states,
            public,
        }
    }

    /// The states the table may have been in when its sequence number was
    /// `seq`: after that public move, and after each decline that followed.
    fn at(&self, seq: u64) -> Result<&[State], String> {
        let seq = seq as usize;
        let from = *self
            .public
            .get(seq)
            .ok_or_else(|| format!("seq {seq} is past the log's end"))?;
        let to = self
            .public
            .get(seq + 1)
            .copied()
            .unwrap_or(self.states.len());
        Ok(&self.states[from..to])
    }

    /// The sequence number the log's `k`-th move (from 1) was given.
    fn seq_of_move(&self, k: usize) -> u64 {
        self.public.iter().filter(|&&p| p > 0 && p <= k).count() as u64
    }
}

/// Every card the game shows everybody at this moment: the discards and
/// each side's piles, one per card (a safety played as a coup fourré is
/// both among the safeties and among the coups).
fn public_counts(state: &State) -> [u32; 19] {
    let mut counts = [0u32; 19];
    let mut add = |c: Card| counts[c.index()] += 1;
    state.discards().iter().copied().for_each(&mut add);
    for team in 0..state.rules().teams {
        let t = state.tableau(team);
        t.battle.as_slice().iter().copied().for_each(&mut add);
        t.speed.as_slice().iter().copied().for_each(&mut add);
        t.distance_cards().for_each(&mut add);
        t.safeties.cards().for_each(&mut add);
        t.coups.cards().for_each(&mut add);
    }
    counts
}

fn own_hand(state: &State, who: Who) -> Vec<Card> {
    match who {
        Who::Seat(s) => state
            .rules()
            .seat(s as u8)
            .map(|seat| state.hand(seat).to_vec())
            .unwrap_or_default(),
        Who::Spectator => Vec::new(),
    }
}

/// The safeties (one of each in every deck) `who` may not know the place
/// of: in another seat's hand or in the draw pile.
fn secret_safeties(state: &State, who: Who) -> Vec<Card> {
    let public = public_counts(state);
    let mine = own_hand(state, who);
    Card::SAFETIES
        .into_iter()
        .filter(|c| public[c.index()] == 0 && !mine.contains(c))
        .filter(|c| {
            state.deck().contains(c)
                || state
                    .rules()
                    .seats_iter()
                    .any(|s| state.hand(s).contains(c))
        })
        .collect()
}

fn sorted(mut cards: Vec<String>) -> Vec<String> {
    cards.sort();
    cards
}

fn ids(cards: &[Card]) -> Vec<String> {
    sorted(cards.iter().map(|c| c.id().to_string()).collect())
}

/// Counts the card ids among the strings of `v`.
fn count_cards(v: &Value, counts: &mut [u32; 19]) {
    match v {
        Value::String(s) => {
            if let Ok(c) = s.parse::<Card>() {
                counts[c.index()] += 1;
            }
        }
        Value::Array(a) => a.iter().for_each(|x| count_cards(x, counts)),
        Value::Object(o) => o.values().for_each(|x| count_cards(x, counts)),
        _ => {}
    }
}

// ---------------------------------------------------------------------------
// The checker.

/// The forms of the seed a message could carry (the computer players'
/// seeds are made from it too), long enough not to match by chance.
fn seed_forms(seed: u64, seats: usize) -> Vec<String> {
    let mut forms = Vec::new();
    let mut add = |n: u64| {
        forms.push(n.to_string());
        forms.push((n as i64).to_string());
        forms.push(format!("{n:x}"));
        forms.push(format!("{n:016x}"));
        forms.push(format!("{n:X}"));
    };
    add(seed);
    for k in 0..seats {
        add(seed ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    }
    forms.retain(|f| f.trim_start_matches('-').len() >= 8);
    forms
}

const EVENT_FIELDS: &[(&str, &[&str])] = &[
    ("dealt", &["event", "hand", "first"]),
    ("new_game", &["event"]),
    ("drew", &["event", "seat", "card"]),
    ("played", &["event", "seat", "card", "team"]),
    ("discarded", &["event", "seat", "card"]),
    ("coup_fourre", &["event", "seat", "safety", "hazard"]),
    ("declined_coup_fourre", &["event", "seat"]),
    ("extension", &["event", "seat", "extend"]),
    ("trip_completed", &["event", "team"]),
    ("hand_over", &["event", "scores", "totals"]),
    ("game_over", &["event", "winners"]),
];

fn check_events(who: Who, events: &Value) -> Result<(), String> {
    let Some(events) = events.as_array() else {
        return Err("events is not a list".into());
    };
    let mine = |e: &Value| match who {
        Who::Seat(s) => e["seat"].as_u64() == Some(s as u64),
        Who::Spectator => false,
    };
    for e in events {
        let kind = e["event"].as_str().unwrap_or("");
        let Some((_, fields)) = EVENT_FIELDS.iter().find(|(k, _)| *k == kind) else {
            return Err(format!("an event of an unknown kind: {e}"));
        };
        if let Some(o) = e.as_object()
            && let Some(extra) = o.keys().find(|k| !fields.contains(&k.as_str()))
        {
            return Err(format!("an event with a field {extra:?}: {e}"));
        }
        if kind == "drew" && e.get("card").is_some() && !mine(e) {
            return Err(format!("another seat's drawn card: {e}"));
        }
        if kind == "declined_coup_fourre" && !mine(e) {
            return Err(format!("another seat's declined coup fourré: {e}"));
        }
    }
    Ok(())
}

/// Checks one observation, sent at `seq`, against the truth: it must be
/// right for one of the states the table may have been in.
fn check_observation(truth: &Truth, who: Who, seq: u64, obs: &Value) -> Result<(), String> {
    let mut why = Err(format!("no state at seq {seq}"));
    for state in truth.at(seq)? {
        why = check_observation_of(state, who, obs);
        if why.is_ok() {
            break;
        }
    }
    why
}

fn check_observation_of(state: &State, who: Who, obs: &Value) -> Result<(), String> {
    let viewer = match who {
        Who::Seat(s) => json!({"seat": s}),
        Who::Spectator => json!("spectator"),
    };
    if obs["viewer"] != viewer {
        return Err(format!("the viewer is {}, not {viewer}", obs["viewer"]));
    }
    let hand = sorted(strings(&obs["hand"]));
    let truly = ids(&own_hand(state, who));
    if hand != truly {
        return Err(format!(
            "the hand shown is {hand:?}; the seat's hand is {truly:?}"
        ));
    }
    let legal = sorted(strings(&obs["legal"]));
    let mut truly = Vec::new();
    if let (Who::Seat(s), ToAct::Seat(to_act)) = (who, state.to_act()) {
        let mut list = ActionList::default();
        if to_act.index() == s {
            state.legal_actions(&mut list);
        } else if matches!(state.phase(), mille_engine::Phase::CoupFourre { .. }) {
            // Another seat's hidden coup-fourré chance: the seat the game
            // goes on with after a decline is shown that game's moves.
            let mut without = state.clone();
            without
                .apply(Action::DeclineCoupFourre)
                .map_err(|e| format!("the decline: {e}"))?;
            if matches!(without.to_act(), ToAct::Seat(t) if t.index() == s) {
                without.legal_actions(&mut list);
            }
        }
        truly = list.iter().map(ToString::to_string).collect();
    }
    if legal != sorted(truly.clone()) {
        return Err(format!(
            "the legal actions shown are {legal:?}; the seat's are {truly:?}"
        ));
    }
    if phase(obs) == "coup_fourre"
        && obs["status"]["seat"]
            .as_u64()
            .map(|s| Who::Seat(s as usize))
            != Some(who)
    {
        return Err(format!(
            "another seat's coup fourré chance: {}",
            obs["status"]
        ));
    }
    check_events(who, &obs["events"])?;
    if obs["deck"].as_u64() != Some(state.deck_len() as u64) {
        return Err(format!(
            "the draw pile has {} cards, not {}",
            state.deck_len(),
            obs["deck"]
        ));
    }
    // What is left names public cards only, each once.
    let mut public = obs.clone();
    if let Some(o) = public.as_object_mut() {
        for own in ["hand", "legal", "events", "status"] {
            o.remove(own);
        }
    }
    let mut shown = [0u32; 19];
    count_cards(&public, &mut shown);
    let truly = public_counts(state);
    let differ: Vec<String> = Card::ALL
        .into_iter()
        .filter(|c| shown[c.index()] != truly[c.index()])
        .map(|c| {
            format!(
                "{} named {} times, {} in sight",
                c.id(),
                shown[c.index()],
                truly[c.index()]
            )
        })
        .collect();
    if !differ.is_empty() {
        return Err(format!("card count: {}", differ.join("; ")));
    }
    Ok(())
}

/// Checks one message a connection received. `seqs` is the range of
/// sequence numbers it may have been sent at; `token` the connection's own
/// token, `others` every other connection's.
fn check_message(
    truth: &Truth,
    who: Who,
    text: &str,
    seqs: (u64, u64),
    token: &str,
    others: &[&str],
) -> Result<(), String> {
    let seats = truth.states[0].rules().seats as usize;
    for form in seed_forms(truth.seed, seats) {
        if text.contains(&form) {
            return Err(format!("the seed ({form}) is in a message"));
        }
    }
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    serde_json::from_str::<ServerMessage>(text)
        .map_err(|e| format!("not a server message: {e}"))?;
    let kind = v["type"].as_str().unwrap_or("");
    if text.contains(token) && kind != "welcome" {
        return Err("the connection's token is in a message other than welcome".into());
    }
    if let Some(t) = others.iter().find(|t| text.contains(**t)) {
        return Err(format!("another connection's token ({t}) is in a message"));
    }
    match kind {
        "joined" | "watching" | "update" => {
            let seq = v["seq"].as_u64().ok_or("no seq")?;
            if kind == "joined" && Who::Seat(v["seat"].as_u64().unwrap_or(99) as usize) != who {
                return Err("joined at another seat".into());
            }
            check_observation(truth, who, seq, &v["observation"])
        }
        _ => {
            // A sentence may name a card: never a safety hidden from the
            // connection all the while the message may have been sent.
            let lower = text.to_lowercase();
            let mut secret = Card::SAFETIES.to_vec();
            for q in seqs.0..=seqs.1 {
                for state in truth.at(q)? {
                    let now = secret_safeties(state, who);
                    secret.retain(|c| now.contains(c));
                }
            }
            for c in secret {
                if lower.contains(c.id()) || lower.contains(&c.name().to_lowercase()) {
                    return Err(format!("a hidden safety, {}, is named", c.name()));
                }
            }
            Ok(())
        }
    }
}

/// The sequence number each message carries, if it does.
fn seq_of(text: &str) -> Option<u64> {
    let v: Value = serde_json::from_str(text).ok()?;
    match v["type"].as_str()? {
        "joined" | "watching" | "update" | "ack" => v["seq"].as_u64(),
        _ => None,
    }
}

/// Checks every message of every connection.
fn check_all(truth: &Truth, conns: &[Conn]) -> Result<usize, String> {
    let mut checked = 0;
    for (k, conn) in conns.iter().enumerate() {
        let others: Vec<&str> = conns
            .iter()
            .filter(|c| c.token != conn.token)
            .map(|c| c.token.as_str())
            .collect();
        let seqs: Vec<Option<u64>> = conn.log.iter().map(|t| seq_of(t)).collect();
        let welcomes = conn.log.iter().filter(|t| t.contains(&conn.token)).count();
        if welcomes != 1 {
            return Err(format!(
                "connection {k}: its token is in {welcomes} messages, not 1"
            ));
        }
        for (i, text) in conn.log.iter().enumerate() {
            let before = seqs[..=i].iter().rev().find_map(|s| *s);
            let after = seqs[i..].iter().find_map(|s| *s);
            let from = before.or(after).unwrap_or(0);
            let to = after.unwrap_or(from).max(from);
            check_message(truth, conn.who, text, (from, to), &conn.token, &others).map_err(
                |e| format!("connection {k} ({:?}), message {i}: {e}\n{text}", conn.who),
            )?;
            checked += 1;
        }
    }
    Ok(checked)
}

// ---------------------------------------------------------------------------
// The checker catches what it is meant to.

/// Leaks injected into copies of real messages are each caught, by the
/// check meant for them.
fn checker_catches_leaks(truth: &Truth, played: &Played) {
    let seat = played
        .conns
        .iter()
        .rfind(|c| c.who == Who::Seat(0))
        .expect("the seat's connection");
    let spectator = played
        .conns
        .iter()
        .find(|c| c.who == Who::Spectator)
        .expect("the spectator's connection");
    let tokens = [seat.token.as_str(), spectator.token.as_str()];
    let catches = |who: Who, v: &Value, seq: u64, why: &str| {
        let token = if who == Who::Spectator {
            tokens[1]
        } else {
            tokens[0]
        };
        let others: Vec<&str> = tokens.iter().copied().filter(|t| *t != token).collect();
        let text = v.to_string();
        match check_message(truth, who, &text, (seq, seq), token, &others) {
            Ok(()) => panic!("a leak was not caught ({why}): {text}"),
            Err(e) => assert!(e.contains(why), "caught, but as {e:?} rather than {why:?}"),
        }
    };
    // An update at a moment another seat holds a safety nobody has seen.
    let pick = |conn: &Conn| {
        conn.log
            .iter()
            .filter_map(|t| serde_json::from_str::<Value>(t).ok())
            .filter(|v| v["type"] == "update")
            .find(|v| {
                let state = &truth.at(v["seq"].as_u64().unwrap_or(0)).expect("state")[0];
                state
                    .hand(state.rules().seat(1).expect("seat 1"))
                    .iter()
                    .any(|c| Card::SAFETIES.contains(c) && public_counts(state)[c.index()] == 0)
            })
            .expect("an update while seat 1 holds a hidden safety")
    };
    let update = pick(seat);
    let seq = update["seq"].as_u64().expect("seq");
    let state = &truth.at(seq).expect("state")[0];
    let theirs: Vec<Card> = state.hand(state.rules().seat(1).expect("seat 1")).to_vec();
    let safety = *theirs
        .iter()
        .find(|c| Card::SAFETIES.contains(c))
        .expect("a safety");
    let ok = check_message(
        truth,
        Who::Seat(0),
        &update.to_string(),
        (seq, seq),
        tokens[0],
        &tokens[1..],
    );
    assert_eq!(ok, Ok(()), "the real message passes");

    let mut v = update.clone();
    v["observation"]["discards"]
        .as_array_mut()
        .expect("discards")
        .push(json!(theirs[0].id()));
    catches(Who::Seat(0), &v, seq, "card count");

    let mut v = update.clone();
    v["observation"]["seats"][1]["hand"] = json!(theirs.iter().map(|c| c.id()).collect::<Vec<_>>());
    catches(Who::Seat(0), &v, seq, "card count");

    let mut v = update.clone();
    let next: Vec<&str> = state.deck().iter().rev().take(3).map(|c| c.id()).collect();
    v["observation"]["teams"][0]["next"] = json!(next);
    catches(Who::Seat(0), &v, seq, "card count");

    let mut v = update.clone();
    v["observation"]["hand"] = json!(theirs.iter().map(|c| c.id()).collect::<Vec<_>>());
    catches(Who::Seat(0), &v, seq, "the hand shown");

    let mut v = update.clone();
    v["observation"]["events"] = json!([{"event": "drew", "seat": 1, "card": theirs[0].id()}]);
    catches(Who::Seat(0), &v, seq, "another seat's drawn card");

    let mut v = update.clone();
    v["observation"]["events"] = json!([{"event": "declined_coup_fourre", "seat": 1}]);
    catches(Who::Seat(0), &v, seq, "declined");

    let mut v = update.clone();
    v["observation"]["events"] = json!([{"event": "drew", "seat": 1, "hand": [theirs[0].id()]}]);
    catches(Who::Seat(0), &v, seq, "a field");

    let mut v = update.clone();
    v["observation"]["status"] =
        json!({"phase": "coup_fourre", "seat": 1, "hazard": "accident", "attacker": 0});
    catches(Who::Seat(0), &v, seq, "coup fourré chance");

    let mut v = update.clone();
    v["observation"]["viewer"] = json!("spectator");
    v["observation"]["legal"] = json!([]);
    catches(Who::Spectator, &v, seq, "the hand shown");

    let refusal = |message: String| {
        serde_json::to_value(ServerMessage::Error(table_protocol::ErrorBody {
            code: ErrorCode::Illegal,
            message,
            id: Some(1),
            table: Some(played.table),
        }))
        .expect("json")
    };
    catches(
        Who::Seat(0),
        &refusal(format!("Your opponent holds {}", safety.name())),
        seq,
        "hidden safety",
    );
    catches(
        Who::Seat(0),
        &refusal(format!("dealt from {}", truth.seed)),
        seq,
        "the seed",
    );
    catches(
        Who::Seat(0),
        &refusal(format!("eve is {}", tokens[1])),
        seq,
        "another connection's token",
    );
    catches(
        Who::Seat(0),
        &refusal(format!("yours is {}", tokens[0])),
        seq,
        "the connection's token",
    );
}

// ---------------------------------------------------------------------------
// The games.

fn check_game(played: &Played) -> Truth {
    let stored = stored(played.dir.path(), played.table);
    let truth = Truth::replay(&stored);
    let last = truth.states.last().expect("a state");
    assert!(
        matches!(last.to_act(), ToAct::GameOver),
        "the log holds the whole game"
    );
    // Every acknowledged move is the log's, under its number.
    for (id, seq) in &played.acks {
        let k = stored
            .moves
            .iter()
            .position(|m| m.3 == Some(*id as i64))
            .unwrap_or_else(|| panic!("move {id} is in the log"));
        assert_eq!(stored.moves[k].1, Some(0), "move {id} is the seat's");
        assert_eq!(truth.seq_of_move(k + 1), *seq, "move {id}'s number");
    }
    // A spectator is sent an update when it has something to see, and
    // then for changes of seats only (the seat's return on a new
    // connection) and at the end: never for a move it may not see (a
    // declined coup fourré), which would tell that the seat held the
    // safety.
    for conn in played.conns.iter().filter(|c| c.who == Who::Spectator) {
        let silent = conn
            .log
            .iter()
            .filter_map(|t| serde_json::from_str::<Value>(t).ok())
            .filter(|v| {
                v["type"] == "update"
                    && v["observation"]["events"] == json!([])
                    && phase(&v["observation"]) != "game_over"
            })
            .count();
        assert!(silent <= 1, "{silent} updates without news to a spectator");
    }
    let declines = stored
        .moves
        .iter()
        .filter(|m| m.2.contains("decline"))
        .count();
    let checked = check_all(&truth, &played.conns)
        .unwrap_or_else(|e| panic!("table seed {}: {e}", stored.seed));
    assert!(checked > 100, "{checked} messages checked");
    eprintln!(
        "{} moves ({declines} declined coups fourrés), {checked} messages checked, refusals {:?}, {} acks",
        stored.moves.len(),
        played.refusals,
        played.acks.len()
    );
    for code in [
        ErrorCode::Illegal,
        ErrorCode::NotYourTurn,
        ErrorCode::GameOver,
    ] {
        assert!(
            played.refusals.get(&code).copied().unwrap_or(0) > 0,
            "a {code:?} refusal was provoked"
        );
    }
    truth
}

fn seats(levels: &[&str]) -> Value {
    let mut seats = vec![json!({"kind": "human"})];
    seats.extend(
        levels
            .iter()
            .map(|l| json!({"kind": "computer", "level": l})),
    );
    Value::Array(seats)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bsd_two_players_nothing_hidden_leaks() {
    let played = play_mille(
        json!({"rules": "bsd", "players": 2}),
        seats(&["classic"]),
        11,
    )
    .await;
    let truth = check_game(&played);
    checker_catches_leaks(&truth, &played);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn classic_three_players_nothing_hidden_leaks() {
    let played = play_mille(
        json!({"rules": "classic", "players": 3}),
        seats(&["classic", "easy"]),
        23,
    )
    .await;
    check_game(&played);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn classic_four_players_in_teams_nothing_hidden_leaks() {
    let played = play_mille(
        json!({"rules": "classic", "players": 4}),
        seats(&["classic", "classic", "classic"]),
        37,
    )
    .await;
    check_game(&played);
}

/// Everything of a cubes table is public but the dice to come: no message
/// may carry the seed they come from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cubes_never_tells_the_seed() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let addr: SocketAddr = server.addr;
    let mut ann = Client::open(addr).await;
    let ann_token = ann.hello("ann", None).await;
    let mut eve = Client::open(addr).await;
    let eve_token = eve.hello("eve", None).await;
    ann.send(&create(
        "cubes",
        json!({"game": "blitz"}),
        json!([{"kind": "human"}, {"kind": "computer", "level": "steady"}]),
        Some(0),
    ))
    .await;
    let table = ann
        .until(|m| match m {
            ServerMessage::Created { table, .. } => Some(table.id),
            _ => None,
        })
        .await;
    let (mut seq, mut obs) = ann
        .until(|m| match m {
            ServerMessage::Joined {
                seq, observation, ..
            } => Some((*seq, observation.clone())),
            _ => None,
        })
        .await;
    eve.send(&ClientMessage::Watch {
        table,
        code: None,
        since: None,
    })
    .await;
    let mut acted = None;
    let mut id = 1;
    let started = Instant::now();
    while !obs["winner"].is_number() {
        assert!(started.elapsed() < Duration::from_secs(60), "the game ends");
        let legal = legal(&obs);
        if !legal.is_empty() && acted != Some(seq) {
            acted = Some(seq);
            let hold = obs["hold_value"].as_u64().unwrap_or(0) >= 350;
            let action = legal
                .iter()
                .find(|a| (*a == "Hold") == hold)
                .or(legal.first())
                .cloned()
                .expect("an action");
            id += 1;
            ann.send(&mv(table, id, action)).await;
        }
        match ann.recv().await {
            ServerMessage::Update {
                seq: s,
                observation,
                ..
            } => {
                seq = s;
                obs = observation;
            }
            ServerMessage::Error(e) => panic!("refused: {e:?}"),
            _ => {}
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let logs = [
        (ann.log(), &ann_token, &eve_token),
        (eve.log(), &eve_token, &ann_token),
    ];
    drop(ann);
    drop(eve);
    server.stop().await;
    let stored = stored(dir.path(), table);
    assert!(stored.moves.len() > 10, "a whole game was played");
    let forms = seed_forms(stored.seed, 2);
    let mut checked = 0;
    for (log, own, other) in &logs {
        for text in log {
            parse(text);
            for form in &forms {
                assert!(!text.contains(form), "the seed ({form}) is told: {text}");
            }
            assert!(!text.contains(other.as_str()), "another's token: {text}");
            if text.contains(own.as_str()) {
                assert!(text.starts_with("{\"type\":\"welcome\""), "{text}");
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "{checked} messages");
}

/// A private table is not listed to others, and nobody watches or joins
/// it without its code, which only its creator is given.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_table_is_seen_only_by_its_players() {
    let dir = tempfile::tempdir().expect("dir");
    let server = table_server::start(config(dir.path()))
        .await
        .expect("start");
    let mut ann = Client::open(server.addr).await;
    ann.hello("ann", None).await;
    let mut eve = Client::open(server.addr).await;
    eve.hello("eve", None).await;
    let msg = ClientMessage::parse(
        &json!({"type": "create", "game": "cubes", "private": true, "sit": 0,
                "seats": [{"kind": "human"}, {"kind": "human"}]})
        .to_string(),
    )
    .expect("create");
    ann.send(&msg).await;
    let (table, code) = ann
        .until(|m| match m {
            ServerMessage::Created { table, code } => Some((table.id, code.clone())),
            _ => None,
        })
        .await;
    let code = code.expect("a private table's code");
    let listed = |m: &ServerMessage| match m {
        ServerMessage::Tables { tables } => Some(tables.iter().any(|t| t.id == table)),
        _ => None,
    };
    eve.send(&ClientMessage::List).await;
    assert!(!eve.until(listed).await, "listed to a stranger");
    let refused = |m: &ServerMessage| match m {
        ServerMessage::Error(e) => Some(e.code),
        ServerMessage::Watching { .. } | ServerMessage::Joined { .. } => {
            panic!("let in: {m:?}")
        }
        _ => None,
    };
    // A code one character off.
    let mut near = code.clone();
    let last = if near.pop() == Some('0') { '1' } else { '0' };
    near.push(last);
    for wrong in [None, Some("WRONG".to_string()), Some(near)] {
        eve.send(&ClientMessage::Watch {
            table,
            code: wrong.clone(),
            since: Some(0),
        })
        .await;
        assert_eq!(eve.until(refused).await, ErrorCode::NoSuchTable);
        eve.send(&ClientMessage::Join {
            table,
            seat: Some(1),
            code: wrong,
            since: None,
        })
        .await;
        assert_eq!(eve.until(refused).await, ErrorCode::NoSuchTable);
    }
    assert!(
        eve.log().iter().all(|t| !t.contains(&code)),
        "the code was told to a stranger"
    );
    eve.send(&ClientMessage::Join {
        table,
        seat: Some(1),
        code: Some(code),
        since: None,
    })
    .await;
    eve.until(|m| matches!(m, ServerMessage::Joined { .. }).then_some(()))
        .await;
    eve.send(&ClientMessage::List).await;
    assert!(eve.until(listed).await, "listed to a player of it");
    server.stop().await;
}
