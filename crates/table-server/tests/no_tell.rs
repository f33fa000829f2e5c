//! No tell: from another seat, nothing tells whether a seat holds a hidden
//! coup-fourré chance. At classic tables of three (the prober ann, who
//! plays hazards on the others, on cy where she has a chance when the test
//! knows it; cy, a scripted person who keeps her safeties, lets every
//! chance pass and thinks as long whether she had one or not; and a
//! random computer, which calls every coup fourré it can, in the open),
//! ann sends the same probe moves right after every hazard on another
//! side, and times their answers and her next update.
//! After the games, the table's log says which hazards a chance followed
//! (a `decline` right after the hazard). In each public position (the side
//! attacked, the seat shown to act) the answers must be the same with and
//! without a chance, and so must their times: the median difference under
//! 2 ms, and no significant difference by van Elteren's test (Mann-Whitney
//! U tests per position, summed) at 0.1 %.

mod common;

use futures_util::{SinkExt, StreamExt};
use mille_engine::{Action, Card, GameConfig, Kind, RulesetId, State};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};
use table_protocol::{ClientMessage, ServerMessage, TableId, VERSION};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// The pause after a hazard (short, for a quick test: a person has that
/// long to call a coup fourré).
const WINDOW: Duration = Duration::from_millis(50);
/// Hazards probed, in all.
const HAZARDS: usize = 200;
/// Of which at least this many with a chance let pass.
const WITH_CHANCE: usize = 12;

type Sink = futures_util::stream::SplitSink<common::Ws, Message>;

/// A connection whose messages are stamped with the moment they arrived
/// (read on a task of its own, so that the other player's work does not
/// delay the stamp).
struct Conn {
    sink: Sink,
    rx: mpsc::UnboundedReceiver<(Instant, String)>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl Conn {
    async fn open(addr: std::net::SocketAddr, name: &str) -> Conn {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .expect("connect");
        let (sink, mut stream) = ws.split();
        let (tx, rx) = mpsc::unbounded_channel();
        let reader = tokio::spawn(async move {
            while let Some(Ok(m)) = stream.next().await {
                if let Message::Text(t) = m
                    && tx.send((Instant::now(), t.as_str().to_string())).is_err()
                {
                    break;
                }
            }
        });
        let mut c = Conn { sink, rx, reader };
        c.send(&ClientMessage::Hello {
            version: VERSION,
            name: Some(name.into()),
            token: None,
            client: Some("no-tell test".into()),
            bot: None,
        })
        .await;
        match c.recv().await.1 {
            ServerMessage::Welcome { .. } => c,
            other => panic!("expected welcome, got {other:?}"),
        }
    }

    async fn send(&mut self, msg: &ClientMessage) {
        self.sink
            .send(Message::Text(msg.to_json().into()))
            .await
            .expect("send");
    }

    async fn recv(&mut self) -> (Instant, ServerMessage) {
        match tokio::time::timeout(Duration::from_secs(20), self.rx.recv()).await {
            Ok(Some((at, text))) => (at, common::parse(&text)),
            other => panic!("no message within 20 s: {other:?}"),
        }
    }
}

fn actions(observation: &Value) -> Vec<Action> {
    common::legal(observation)
        .iter()
        .filter_map(|a| a.as_str().and_then(|t| t.parse().ok()))
        .collect()
}

fn is_hazard(card: Card) -> bool {
    card.kind() == Kind::Hazard
}

/// A seat's move: a coup fourré if `call` (else let it pass); a hazard
/// on a side of `targets`, one it can answer (`answerable`) if there is
/// one; else the draw, a play, a discard, never a safety if `keep` (they
/// stay in the hand for chances); else any move.
fn choose(
    legal: &[Action],
    call: bool,
    targets: &[u8],
    keep: bool,
    answerable: &[(u8, Card)],
) -> Option<Action> {
    let safety = |c: Card| c.kind() == Kind::Safety;
    if let Some(&cf) = legal.iter().find(|a| matches!(a, Action::CoupFourre(_))) {
        return Some(if call { cf } else { Action::DeclineCoupFourre });
    }
    if legal.contains(&Action::DeclineCoupFourre) {
        return Some(Action::DeclineCoupFourre);
    }
    let find = |f: &dyn Fn(&Action) -> bool| legal.iter().copied().find(|a| f(a));
    let attack = |a: &Action| matches!(a, Action::Play { card, team } if is_hazard(*card) && targets.contains(team));
    let answered = |a: &Action| matches!(a, Action::Play { card, team } if answerable.contains(&(*team, *card)));
    find(&|a| attack(a) && answered(a))
        .or_else(|| find(&attack))
        .or_else(|| find(&|a| *a == Action::Draw))
        .or_else(|| find(&|a| matches!(a, Action::Play { card, .. } if !(keep && safety(*card)))))
        .or_else(|| find(&|a| matches!(a, Action::Discard(card) if !(keep && safety(*card)))))
        .or_else(|| legal.first().copied())
}

/// One player's side of the loop: the move it waits an answer for, the
/// newest observation and whether it has acted on it.
struct Player {
    pending: Option<u64>,
    observation: Value,
    fresh: bool,
    ready_sent_at: Option<u64>,
    seq: u64,
    /// Observations received.
    seen: u64,
    /// Moves refused in a row (a probe the game went on with may have
    /// played the move chosen): the next choice is another legal one.
    refused: usize,
    /// When the newest position (its public number) was first shown.
    news_at: Instant,
    /// How long the seat thinks before a move.
    think: Duration,
}

impl Default for Player {
    fn default() -> Player {
        Player {
            pending: None,
            observation: Value::Null,
            fresh: false,
            ready_sent_at: None,
            seq: 0,
            seen: 0,
            refused: 0,
            news_at: Instant::now(),
            think: Duration::ZERO,
        }
    }
}

/// What the prober saw after one hazard.
struct Probe {
    table: TableId,
    /// The public sequence number of the hazard.
    seq: u64,
    /// The position as the prober sees it: the side attacked, the seat
    /// shown to act next (what decides, publicly, whether a pause follows)
    /// and whether the draw pile is empty.
    position: (i64, i64, bool),
    at: Instant,
    /// Per probe: its id, and when and how it was answered.
    answers: Vec<(u64, Option<(Duration, String)>)>,
    next_update: Option<Duration>,
}

/// Every hazard.
const HAZARD_CARDS: [Card; 5] = [
    Card::OutOfGas,
    Card::FlatTire,
    Card::Accident,
    Card::SpeedLimit,
    Card::Stop,
];

/// Per position: the hazards a chance followed, and the others.
type Groups<'a> = (Vec<&'a Probe>, Vec<&'a Probe>);

/// A time measured after a hazard, in milliseconds.
type Measure = Box<dyn Fn(&Probe) -> Option<f64>>;

/// Moves never legal just after a hazard, whoever is to act: another
/// side's distance, an extension, and no action at all.
const PROBES: [&str; 3] = ["play 25 2", "extend", "fly"];

/// How long the scripted person thinks before a move (half as long before
/// letting a chance pass), counted from the first news of the position:
/// a person's time does not depend on whether it had a chance to answer.
const THINK: Duration = Duration::from_millis(10);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_tells_another_seat_of_a_hidden_coup_fourre_chance() {
    let dir = tempfile::tempdir().expect("dir");
    let mut c = common::config(dir.path());
    c.coup_fourre_window = WINDOW;
    c.limits.messages_per_second = 1000;
    c.limits.burst = 2000;
    c.hand_pause = Duration::from_millis(50);
    let seed = SEED;
    c.fixed_seed = Some(seed);
    let server = table_server::start(c).await.expect("start");
    let db = dir.path().join("server.db");
    let mut ann = Conn::open(server.addr, "ann").await;
    let mut cy = Conn::open(server.addr, "cy").await;
    let mut probes: Vec<Probe> = Vec::new();
    let mut tables = Vec::new();
    let mut id = 1_000;
    let started = Instant::now();
    while probes.len() < HAZARDS {
        assert!(
            started.elapsed() < Duration::from_secs(150),
            "{} hazards probed in 150 s",
            probes.len()
        );
        let table = play_one_game(&mut ann, &mut cy, &mut probes, &mut id, &db, seed).await;
        tables.push(table);
    }
    server.stop().await;

    // Which hazards a chance followed, from the log: the move after the
    // hazard is the holder's `decline` (or its coup fourré, which
    // everybody sees: such hazards are left out).
    let db = rusqlite::Connection::open(&db).expect("db");
    let mut after: HashMap<(TableId, u64), String> = HashMap::new();
    for &table in &tables {
        let moves = logged_moves(&db, table);
        let mut public = 0;
        for (k, action) in moves.iter().enumerate() {
            if action != "decline" {
                public += 1;
            }
            let next = moves.get(k + 1).cloned().unwrap_or_default();
            after.entry((table, public)).or_insert(next);
        }
    }
    // Per position: the hazards a chance followed, and the others.
    let mut strata: BTreeMap<(i64, i64, bool), Groups> = BTreeMap::new();
    let (mut with, mut without) = (0, 0);
    for p in &probes {
        let entry = strata.entry(p.position).or_default();
        match after.get(&(p.table, p.seq)).map(String::as_str) {
            Some("decline") => {
                with += 1;
                entry.0.push(p);
            }
            Some(a) if a.starts_with("coup_fourre") => {}
            Some(_) => {
                without += 1;
                entry.1.push(p);
            }
            None => panic!("hazard {} of table {} is not in the log", p.seq, p.table),
        }
    }
    eprintln!(
        "{} hazards probed: {with} with a chance let pass, {without} without; \
         per position (side attacked, seat to act, no draw pile): {:?}",
        probes.len(),
        strata
            .iter()
            .map(|(k, (a, b))| (*k, a.len(), b.len()))
            .collect::<Vec<_>>()
    );
    let mut failures = Vec::new();
    // The same answers: each one given after a hazard with a chance was
    // given in the same position without one.
    let answer = |p: &Probe| -> Vec<String> {
        p.answers
            .iter()
            .map(|(_, a)| a.as_ref().map_or("none".into(), |(_, t)| t.clone()))
            .collect()
    };
    for (position, (x, y)) in &strata {
        let seen: Vec<Vec<String>> = y.iter().map(|p| answer(p)).collect();
        for p in x {
            if !seen.contains(&answer(p)) {
                failures.push(format!(
                    "at {position:?}, with a chance: {:?}; without: {seen:?}",
                    answer(p)
                ));
            }
        }
    }
    // The same times: per position, the Mann-Whitney U of the times with
    // and without a chance, summed over positions (van Elteren's
    // stratified test); and the median difference, each time taken from
    // the median of its position without a chance.
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let measures: Vec<(String, Measure)> = (0..PROBES.len())
        .map(|k| {
            let f: Measure =
                Box::new(move |p: &Probe| p.answers[k].1.as_ref().map(|(d, _)| ms(*d)));
            (format!("answer to {:?}", PROBES[k]), f)
        })
        .chain(std::iter::once((
            "next update".to_string(),
            Box::new(move |p: &Probe| p.next_update.map(ms)) as Measure,
        )))
        .collect();
    for (what, time) in &measures {
        let mut samples = Vec::new();
        let (mut shifted_with, mut shifted_without) = (Vec::new(), Vec::new());
        let mut medians = Vec::new();
        for (position, (x, y)) in &strata {
            let tx: Vec<f64> = x.iter().filter_map(|p| time(p)).collect();
            let ty: Vec<f64> = y.iter().filter_map(|p| time(p)).collect();
            if tx.len() != x.len() || ty.len() != y.len() {
                failures.push(format!("{what}: some went unanswered"));
            }
            if tx.is_empty() || ty.is_empty() {
                continue;
            }
            let base = median(&ty);
            medians.push(format!(
                "at {position:?} {:.2} ms with a chance ({}), {base:.2} ms without ({})",
                median(&tx),
                tx.len(),
                ty.len()
            ));
            shifted_with.extend(tx.iter().map(|t| t - base));
            shifted_without.extend(ty.iter().map(|t| t - base));
            samples.push((tx, ty));
        }
        let difference = median(&shifted_with) - median(&shifted_without);
        let (z, p) = van_elteren(&samples);
        eprintln!(
            "{what}: medians {}; difference {difference:.2} ms; van Elteren z = {z:.2}, p = {p:.4}",
            medians.join(", ")
        );
        if difference.abs() >= 2.0 || difference.is_nan() {
            failures.push(format!("{what}: the medians differ by {difference:.2} ms"));
        }
        // Four measures, each at 0.1 %: a test that fails by chance once
        // in 250 runs at most, and fails surely on a difference of a few
        // milliseconds.
        if p < 0.001 {
            failures.push(format!("{what}: a significant difference (p = {p:.4})"));
        }
    }
    assert!(
        with >= WITH_CHANCE,
        "only {with} hazards with a chance let pass"
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// One seat's next move and when it is due.
fn plan(
    me: &Player,
    call: bool,
    targets: &[u8],
    keep: bool,
    answerable: &[(u8, Card)],
) -> Option<(Action, Instant)> {
    let legal = actions(&me.observation);
    let action = match me.refused {
        0 => choose(&legal, call, targets, keep, answerable)?,
        n => *legal.get(n % legal.len().max(1))?,
    };
    let think = if action == Action::DeclineCoupFourre {
        me.think / 2
    } else {
        me.think
    };
    Some((action, me.news_at + think))
}

/// Plays one game at a new table (ann, cy, a random computer) to its end,
/// or until enough hazards are probed; answers the table.
async fn play_one_game(
    ann: &mut Conn,
    cy: &mut Conn,
    probes: &mut Vec<Probe>,
    id: &mut u64,
    db: &std::path::Path,
    seed: u64,
) -> TableId {
    ann.send(&common::create(
        "mille",
        json!({"rules": "classic", "players": 3}),
        json!([{"kind": "human"}, {"kind": "human"}, {"kind": "computer", "level": "random"}]),
        Some(0),
    ))
    .await;
    let table = loop {
        match ann.recv().await.1 {
            ServerMessage::Created { table, .. } => break table.id,
            ServerMessage::Error(e) if e.id.is_none() => panic!("no table: {e:?}"),
            _ => {}
        }
    };
    cy.send(&ClientMessage::Join {
        table,
        seat: Some(1),
        code: None,
        since: None,
    })
    .await;
    let mut players = [Player::default(), Player::default()];
    players[1].think = THINK;
    let first = probes.len();
    let mut recent: Vec<String> = Vec::new();
    loop {
        if probes.len() >= HAZARDS && probes[first..].iter().all(settled) {
            return table;
        }
        // Each seat's move, when due.
        let idle = Instant::now() + Duration::from_secs(20);
        let mut wake = idle;
        #[allow(clippy::needless_range_loop)] // the two are changed in turn
        for who in 0..2 {
            let me = &players[who];
            if me.pending.is_some() || !me.fresh {
                continue;
            }
            let phase = me.observation["status"]["phase"].as_str().unwrap_or("");
            if phase == "game_over" {
                return table;
            }
            if phase == "hand_over" {
                if me.ready_sent_at != Some(me.seq) {
                    players[who].ready_sent_at = Some(players[who].seq);
                    let conn = if who == 0 { &mut *ann } else { &mut *cy };
                    conn.send(&ClientMessage::Ready { table }).await;
                }
                continue;
            }
            // ann takes her chances and plays hazards on the others; cy
            // keeps her safeties for chances, and plays no hazard.
            let (call, targets, keep): (bool, &[u8], bool) = if who == 0 {
                (true, &[1, 2], false)
            } else {
                (false, &[], true)
            };
            // The test knows cy's hand (from the deal and the log; the
            // server cannot know that ann does): ann attacks where a
            // chance follows whenever she can, so that many hazards come
            // with one.
            let answerable = if who == 0 && !actions(&me.observation).is_empty() {
                answerable(&logged_state(db, table, seed))
            } else {
                Vec::new()
            };
            let Some((action, due)) = plan(me, call, targets, keep, &answerable) else {
                players[who].fresh = false;
                continue;
            };
            if due > Instant::now() {
                wake = wake.min(due);
                continue;
            }
            *id += 1;
            let me = &mut players[who];
            me.fresh = false;
            me.pending = Some(*id);
            let conn = if who == 0 { &mut *ann } else { &mut *cy };
            conn.send(&ClientMessage::Move {
                table,
                id: *id,
                action: Value::from(action.to_string()),
            })
            .await;
        }
        let (who, got) = tokio::select! {
            m = ann.rx.recv() => (0, m),
            m = cy.rx.recv() => (1, m),
            () = tokio::time::sleep_until(wake.into()) => {
                if wake == idle {
                    panic!("the game stalled; the last messages: {recent:#?}")
                }
                continue;
            }
        };
        let (at, text) = got.expect("connection open");
        if recent.len() == 8 {
            recent.remove(0);
        }
        recent.push(format!("{who}: {}", &text[..text.len().min(400)]));
        let msg = common::parse(&text);
        // What is left of the games before is not this one's.
        let of = match &msg {
            ServerMessage::Update { table, .. }
            | ServerMessage::Joined { table, .. }
            | ServerMessage::Ack { table, .. } => Some(*table),
            ServerMessage::Error(e) => e.table,
            _ => None,
        };
        if of.is_some_and(|t| t != table) {
            continue;
        }
        let answered = match &msg {
            ServerMessage::Error(e) if who == 0 => {
                e.id.map(|i| (i, format!("{:?}: {}", e.code, e.message)))
            }
            // A probe played: an answer that differs from a refusal.
            ServerMessage::Ack { id, .. } if who == 0 => Some((*id, "ack".to_string())),
            _ => None,
        };
        if let Some((i, answer)) = answered
            && let Some(p) = probes
                .iter_mut()
                .find(|p| p.answers.iter().any(|(k, _)| *k == i))
        {
            for (k, a) in &mut p.answers {
                if *k == i {
                    *a = Some((at - p.at, answer.clone()));
                }
            }
            continue;
        }
        let me = &mut players[who];
        match msg {
            ServerMessage::Ack { id: got, .. } if me.pending == Some(got) => {
                // The update with the move comes next.
                me.pending = None;
                me.refused = 0;
                me.fresh = false;
            }
            ServerMessage::Error(e) => {
                if e.id.is_some() && e.id == me.pending {
                    // Refused on an old observation: another move.
                    me.pending = None;
                    me.fresh = true;
                    me.refused += 1;
                } else {
                    panic!("{who}: {e:?}");
                }
            }
            ServerMessage::Joined {
                seq, observation, ..
            }
            | ServerMessage::Update {
                seq, observation, ..
            } => {
                if who == 0 {
                    for p in probes.iter_mut().filter(|p| p.table == table) {
                        if p.next_update.is_none() && seq > p.seq {
                            p.next_update = Some(at - p.at);
                        }
                    }
                    let hazard = observation["events"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .find(|e| {
                            e["event"] == "played"
                                && e["team"] != 0
                                && serde_json::from_value::<Card>(e["card"].clone())
                                    .is_ok_and(is_hazard)
                        });
                    if let Some(hazard) = hazard
                        && probes.len() < HAZARDS
                    {
                        let status = &observation["status"];
                        let next = if status["phase"] == "turn" {
                            status["seat"].as_i64().unwrap_or(-1)
                        } else {
                            -1
                        };
                        // Whether the draw pile is empty changes the
                        // engine's reasons (no draw comes first then).
                        let position = (
                            hazard["team"].as_i64().unwrap_or(-1),
                            next,
                            observation["deck"] == 0,
                        );
                        let mut answers = Vec::new();
                        for probe in PROBES {
                            *id += 1;
                            ann.send(&ClientMessage::Move {
                                table,
                                id: *id,
                                action: Value::from(probe),
                            })
                            .await;
                            answers.push((*id, None));
                        }
                        if std::env::var("NO_TELL_DEBUG").is_ok() {
                            eprintln!("probes sent {:?} after the hazard", at.elapsed());
                        }
                        probes.push(Probe {
                            table,
                            seq,
                            position,
                            at,
                            answers,
                            next_update: None,
                        });
                    }
                }
                let me = &mut players[who];
                if seq != me.seq || me.seen == 0 {
                    me.news_at = at;
                }
                me.seq = seq;
                me.seen += 1;
                me.observation = observation;
                me.fresh = true;
            }
            _ => {}
        }
    }
}

/// The moves of `table` so far, from the server's log.
fn logged_moves(db: &rusqlite::Connection, table: TableId) -> Vec<String> {
    let mut query = db
        .prepare("SELECT action FROM moves WHERE table_id = ?1 ORDER BY seq")
        .expect("query");
    query
        .query_map([i64::try_from(table).expect("id")], |r| r.get(0))
        .expect("rows")
        .map(|r| r.expect("row"))
        // Kept in their wire form: a JSON string.
        .map(|a: String| serde_json::from_str(&a).unwrap_or(a))
        .collect()
}

const CLASSIC_3: GameConfig = GameConfig {
    rules: RulesetId::Classic,
    players: 3,
    stacking: false,
};

/// The game of `table` now: its deal replayed with its log.
fn logged_state(db: &std::path::Path, table: TableId, seed: u64) -> State {
    let db = rusqlite::Connection::open(db).expect("db");
    let mut state = State::new(CLASSIC_3, seed).expect("deal");
    for action in logged_moves(&db, table) {
        let action: Action = action.parse().expect("an action");
        state.apply(action).expect("a logged move");
    }
    state
}

/// Every table's deal.
const SEED: u64 = 36;

/// The hazards cy (side 1) could answer with a coup fourré now. (The
/// computer calls every coup fourré it can: its chances are public.)
fn answerable(state: &State) -> Vec<(u8, Card)> {
    let mut found = Vec::new();
    for side in [1u8] {
        let Some(seat) = state.rules().seat(side) else {
            continue;
        };
        for &safety in state.hand(seat) {
            for hazard in HAZARD_CARDS {
                if hazard.safety().map(|s| s.card()) == Some(safety) {
                    found.push((side, hazard));
                }
            }
        }
    }
    found
}

fn settled(p: &Probe) -> bool {
    p.next_update.is_some() && p.answers.iter().all(|(_, a)| a.is_some())
}

/// Van Elteren's test: Mann-Whitney U tests of two samples in several
/// strata, summed with the weights 1/(n+1); two-sided, by the normal
/// approximation. Answers z and p.
fn van_elteren(strata: &[(Vec<f64>, Vec<f64>)]) -> (f64, f64) {
    let (mut sum, mut var) = (0.0, 0.0);
    for (x, y) in strata {
        let (u, mean, v) = mann_whitney_u(x, y);
        let w = 1.0 / ((x.len() + y.len()) as f64 + 1.0);
        sum += w * (u - mean);
        var += w * w * v;
    }
    if var <= 0.0 {
        return (0.0, 1.0);
    }
    let z = sum / var.sqrt();
    (z, 2.0 * (1.0 - normal_cdf(z.abs())))
}

fn median(x: &[f64]) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The Mann-Whitney U of sample `x` against `y`, with its mean and its
/// variance (corrected for ties) when both come from one distribution.
fn mann_whitney_u(x: &[f64], y: &[f64]) -> (f64, f64, f64) {
    let (n1, n2) = (x.len() as f64, y.len() as f64);
    let mut all: Vec<(f64, bool)> = x
        .iter()
        .map(|&v| (v, true))
        .chain(y.iter().map(|&v| (v, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Average ranks over ties; the ties' sizes for the variance.
    let mut rank_x = 0.0;
    let mut ties = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j + 1 < all.len() && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        let t = (j - i + 1) as f64;
        ties += t * t * t - t;
        rank_x += all[i..=j].iter().filter(|a| a.1).count() as f64 * rank;
        i = j + 1;
    }
    let u = rank_x - n1 * (n1 + 1.0) / 2.0;
    let n = n1 + n2;
    let var = if n > 1.0 {
        n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)))
    } else {
        0.0
    };
    (u, n1 * n2 / 2.0, var)
}

/// The standard normal distribution function (Abramowitz and Stegun
/// 7.1.26, good to 1.5e-7).
fn normal_cdf(z: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * z.abs() / std::f64::consts::SQRT_2);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-(z * z) / 2.0).exp();
    if z >= 0.0 {
        (1.0 + erf) / 2.0
    } else {
        (1.0 - erf) / 2.0
    }
}

#[test]
fn the_statistics_are_right() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    assert!((normal_cdf(1.96) - 0.975).abs() < 1e-4);
    // Two samples far apart: U is 0 and the difference significant.
    let x: Vec<f64> = (0..20).map(f64::from).collect();
    let y: Vec<f64> = (100..120).map(f64::from).collect();
    let (u, mean, _) = mann_whitney_u(&x, &y);
    assert_eq!((u, mean), (0.0, 200.0));
    let (_, p) = van_elteren(&[(x.clone(), y.clone())]);
    assert!(p < 1e-6, "{p}");
    // The same sample twice, in two strata: nothing to tell.
    let (z, p) = van_elteren(&[(x.clone(), x.clone()), (y.clone(), y)]);
    assert!(z.abs() < 1e-9 && p > 0.99, "{z} {p}");
    // Strata far apart do not make a difference by themselves.
    let low: Vec<f64> = vec![1.0, 2.0, 3.0, 4.0];
    let high: Vec<f64> = vec![101.0, 102.0, 103.0, 104.0];
    let (_, p) = van_elteren(&[(vec![2.5], low), (vec![102.5], high)]);
    assert!(p > 0.5, "{p}");
}
