//! Bots at tables, driven through a table's command queue on a real
//! server (its store, its clocks): kept seats and who may take them, a
//! bot's decline, the decision clock (the stand-in for a silent bot, not
//! while the game is paused), and an arena's forfeits.

use super::*;
use crate::store::NewTable;
use crate::{Config, Out, Running};
use cubes_engine::Cubes;
use std::sync::atomic::AtomicUsize;
use tokio::sync::Notify;

/// How long a test waits for what must come.
const PATIENCE: Duration = Duration::from_secs(20);

/// A server for these tests: no pause before computer moves or after
/// hazards, a short one between hands, and a short decision limit. The
/// people ann and bob and the bots robo and zeta are registered.
async fn server(dir: &std::path::Path, tune: impl FnOnce(&mut Config)) -> Running {
    let mut c = Config::new(dir.to_path_buf());
    c.listen = "127.0.0.1:0".parse().expect("addr");
    c.bot_delay = Duration::ZERO;
    c.coup_fourre_window = Duration::ZERO;
    c.hand_pause = Duration::from_millis(300);
    c.decision_limit = Duration::from_millis(300);
    tune(&mut c);
    let running = crate::start(c).await.expect("start");
    let store = &running.shared.store;
    for person in ["ann", "bob"] {
        assert!(store.claim(person, person).await.expect("a person"));
    }
    for bot in ["robo", "zeta"] {
        let info = table_protocol::BotInfo {
            owner: "ann".into(),
            description: "a test's".into(),
            arena: false,
        };
        assert!(store.claim_bot(bot, bot, &info).await.expect("a bot"));
    }
    running
}

/// A connection as a table sees it: what it is sent is read here.
struct Peer {
    conn: ConnId,
    name: String,
    out: Outbox,
    rx: mpsc::Receiver<Out>,
    queued: Arc<AtomicUsize>,
}

impl Peer {
    fn new(shared: &Shared, name: &str) -> Peer {
        let (tx, rx) = mpsc::channel(100_000);
        let queued = Arc::new(AtomicUsize::new(0));
        Peer {
            conn: shared.next_conn(),
            name: name.to_string(),
            out: Outbox {
                tx,
                slow: Arc::new(Notify::new()),
                queued: Arc::clone(&queued),
                errors: shared.metrics.errors.clone(),
            },
            rx,
            queued,
        }
    }

    async fn next(&mut self) -> ServerMessage {
        let got = tokio::time::timeout(PATIENCE, self.rx.recv()).await;
        match got {
            Ok(Some(Out::Text(text))) => {
                self.queued
                    .fetch_sub(text.len(), std::sync::atomic::Ordering::SeqCst);
                serde_json::from_str(&text).expect("a server message")
            }
            Ok(Some(Out::Close(code, why))) => panic!("{} closed: {code} {why}", self.name),
            Ok(None) => panic!("{}'s outbox closed", self.name),
            Err(_) => panic!("{} waited in vain", self.name),
        }
    }

    async fn until<T>(&mut self, mut pick: impl FnMut(&ServerMessage) -> Option<T>) -> T {
        loop {
            let m = self.next().await;
            if let Some(t) = pick(&m) {
                return t;
            }
        }
    }

    fn join(&self, table: &TableHandle, seat: Option<usize>, bot: bool) {
        let _ = table.commands.send(Cmd::Join {
            conn: self.conn,
            name: self.name.clone(),
            out: self.out.clone(),
            seat,
            code: None,
            since: None,
            bot,
        });
    }

    fn play(&self, table: &TableHandle, id: u64, action: Value) {
        let _ = table.commands.send(Cmd::Move {
            conn: self.conn,
            out: self.out.clone(),
            id,
            action,
            at: Instant::now(),
        });
    }

    fn gone(&self, table: &TableHandle) {
        let _ = table.commands.send(Cmd::Gone { conn: self.conn });
    }

    fn decline(&self, table: &TableHandle, reason: &str) {
        let _ = table.commands.send(Cmd::Decline {
            conn: self.conn,
            name: self.name.clone(),
            out: self.out.clone(),
            reason: reason.to_string(),
        });
    }

    /// Waits to be seated; answers the observation.
    async fn joined(&mut self) -> Value {
        let name = self.name.clone();
        self.until(|m| match m {
            ServerMessage::Joined { observation, .. } => Some(observation.clone()),
            ServerMessage::Error(e) => panic!("{name} not seated: {e:?}"),
            _ => None,
        })
        .await
    }

    async fn refused(&mut self) -> ErrorBody {
        self.until(|m| match m {
            ServerMessage::Error(e) => Some(e.clone()),
            _ => None,
        })
        .await
    }
}

/// A seat of a test table: a computer's level, or the bot it is kept for
/// (neither: a free person's seat).
#[derive(Clone, Copy)]
enum S {
    Free,
    Kept(&'static str),
}

struct Setup {
    game: GameKind,
    setup: Value,
    seats: Vec<S>,
    bots_allowed: bool,
    arena: Option<ArenaTag>,
}

fn cubes(seats: Vec<S>) -> Setup {
    Setup {
        game: GameKind::Cubes,
        setup: Value::Null,
        seats,
        bots_allowed: false,
        arena: None,
    }
}

fn arena(seats: Vec<S>) -> Setup {
    Setup {
        game: GameKind::Mille,
        setup: serde_json::json!({"rules": "classic", "players": 2}),
        seats,
        bots_allowed: false,
        arena: Some(ArenaTag {
            arena: "mille-classic".into(),
            round: 1,
        }),
    }
}

/// Opens a rated table as the store and the lobby would, and runs it.
async fn open(shared: &Arc<Shared>, t: Setup) -> TableHandle {
    let invited: Vec<Option<String>> = t
        .seats
        .iter()
        .map(|s| match s {
            S::Free => None,
            S::Kept(bot) => Some(bot.to_string()),
        })
        .collect();
    let new = NewTable {
        game: t.game,
        setup: t.setup.clone(),
        seed: 7,
        code: None,
        levels: vec![None; t.seats.len()],
        rated: true,
        invited: invited.clone(),
        bots_allowed: t.bots_allowed,
        arena: t.arena.clone(),
    };
    let id = shared.store.create(new).await.expect("created");
    let stored = StoredTable {
        id,
        game: t.game,
        setup: t.setup,
        seed: 7,
        code: None,
        seats: invited.iter().map(|b| (None, b.clone())).collect(),
        moves: Vec::new(),
        rated: true,
        stand_in: Vec::new(),
        bots: invited.iter().map(Option::is_some).collect(),
        bots_allowed: t.bots_allowed,
        arena: t.arena,
    };
    shared.launch_any(stored).expect("launched")
}

/// A cubes table of two where the bot kept a seat plays first: answers
/// the seats and the person's seat.
fn robo_first() -> (Vec<S>, usize) {
    let setup = <Cubes as ServerGame>::setup(&Value::Null).expect("setup");
    let state = <Cubes as ServerGame>::start(&setup, 2, 7).expect("state");
    match <Cubes as game_table::Game>::turn(&state) {
        Turn::Seat(0) => (vec![S::Kept("robo"), S::Free], 1),
        _ => (vec![S::Free, S::Kept("robo")], 0),
    }
}

fn line(table: &TableHandle) -> TableSummary {
    table.summary.lock().expect("summary").clone()
}

/// Waits until the table's lobby line says `what`.
async fn until_line(table: &TableHandle, what: impl Fn(&TableSummary) -> bool) -> TableSummary {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let now = line(table);
        if what(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "the table stays {now:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn rating(shared: &Shared, category: game_rating::Category, name: &str) -> (f64, u32, u32) {
    let rows = shared
        .store
        .ratings(category, vec![name.to_string()])
        .await
        .expect("ratings");
    let row = rows
        .first()
        .unwrap_or_else(|| panic!("{name} is not rated"));
    (row.rating.rating, row.games, row.wins)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_bot_takes_its_kept_seat_and_bots_only_where_they_are_taken() {
    let dir = tempfile::tempdir().expect("dir");
    let server = server(dir.path(), |_| {}).await;
    let shared = Arc::clone(&server.shared);
    let table = open(&shared, cubes(vec![S::Free, S::Kept("robo")])).await;
    let seats = line(&table).seats;
    assert!(
        seats[1].bot && seats[1].invited && !seats[1].connected,
        "{seats:?}"
    );
    assert_eq!(seats[1].player.as_deref(), Some("robo"));
    assert_eq!(line(&table).status, TableStatus::Waiting);
    // A person may not take the kept seat, nor another bot a free one.
    let mut bob = Peer::new(&shared, "bob");
    bob.join(&table, Some(1), false);
    let e = bob.refused().await;
    assert_eq!(e.code, ErrorCode::SeatTaken, "{e:?}");
    assert!(e.message.contains("robo"), "{e:?}");
    let mut zeta = Peer::new(&shared, "zeta");
    zeta.join(&table, Some(0), true);
    let e = zeta.refused().await;
    assert_eq!(e.code, ErrorCode::NoSuchSeat, "{e:?}");
    assert!(e.message.contains("does not take bots"), "{e:?}");
    // The bot asking for no seat in particular gets the one kept for it.
    let mut robo = Peer::new(&shared, "robo");
    robo.join(&table, None, true);
    robo.joined().await;
    let now = line(&table);
    assert!(now.seats[1].bot && !now.seats[1].invited && now.seats[1].connected);
    assert_eq!(now.status, TableStatus::Waiting, "seat 1 is still free");
    // A table that takes bots seats any bot at a free seat.
    let open_to_bots = Setup {
        bots_allowed: true,
        ..cubes(vec![S::Free, S::Free])
    };
    let other = open(&shared, open_to_bots).await;
    assert!(line(&other).bots);
    zeta.join(&other, None, true);
    zeta.joined().await;
    let seats = line(&other).seats;
    assert_eq!(seats[0].player.as_deref(), Some("zeta"));
    assert!(seats[0].bot && !seats[0].invited, "{seats:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_seat_is_free_and_the_table_is_told() {
    let dir = tempfile::tempdir().expect("dir");
    let server = server(dir.path(), |_| {}).await;
    let shared = Arc::clone(&server.shared);
    let table = open(&shared, cubes(vec![S::Free, S::Kept("robo")])).await;
    let mut ann = Peer::new(&shared, "ann");
    ann.join(&table, Some(0), false);
    ann.joined().await;
    // Only the bot invited may decline.
    let mut bob = Peer::new(&shared, "bob");
    bob.decline(&table, "no");
    assert_eq!(bob.refused().await.code, ErrorCode::NotSeated);
    let robo = Peer::new(&shared, "robo");
    robo.decline(&table, "busy");
    let told = ann
        .until(|m| match m {
            ServerMessage::Declined {
                seat, bot, reason, ..
            } => Some((*seat, bot.clone(), reason.clone())),
            _ => None,
        })
        .await;
    assert_eq!(told, (1, "robo".to_string(), "busy".to_string()));
    let seats = line(&table).seats;
    assert!(
        seats[1].player.is_none() && !seats[1].bot && !seats[1].invited,
        "{seats:?}"
    );
    // The seat is a person's again: bob takes it and the game starts.
    bob.join(&table, Some(1), false);
    bob.joined().await;
    assert_eq!(line(&table).status, TableStatus::Playing);
    server.stop().await;
}

/// ann plays a cubes game at `table` to its end, holding as soon as she
/// may; answers once the game's end is recorded.
async fn ann_plays_to_the_end(ann: &mut Peer, table: &TableHandle) {
    let mut id = 0;
    let mut last_moved = u64::MAX;
    loop {
        let (observation, seq) = ann
            .until(|m| match m {
                ServerMessage::Update {
                    observation, seq, ..
                } => Some((observation.clone(), *seq)),
                _ => None,
            })
            .await;
        if observation["phase"] == "Over" {
            break;
        }
        let legal = observation["legal"].as_array().cloned().unwrap_or_default();
        if seq != last_moved && !legal.is_empty() {
            last_moved = seq;
            id += 1;
            let action = legal.iter().find(|a| *a == "Hold").unwrap_or(&legal[0]);
            ann.play(table, id, action.clone());
        }
    }
    until_line(table, |l| l.status == TableStatus::Over).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_bot_is_played_by_the_stand_in_and_has_abandoned() {
    let dir = tempfile::tempdir().expect("dir");
    let server = server(dir.path(), |_| {}).await;
    let shared = Arc::clone(&server.shared);
    let (seats, mine) = robo_first();
    let bot = 1 - mine;
    let table = open(&shared, cubes(seats)).await;
    let mut robo = Peer::new(&shared, "robo");
    robo.join(&table, None, true);
    robo.joined().await;
    let mut ann = Peer::new(&shared, "ann");
    ann.join(&table, Some(mine), false);
    ann.joined().await;
    // The bot starts and says nothing: past the decision limit the
    // stand-in plays its seat, for good.
    let seats = until_line(&table, |l| l.seats[bot].away).await.seats;
    assert_eq!(seats[bot].level.as_deref(), Some("steady"), "{seats:?}");
    assert!(seats[bot].connected, "the bot is still here: {seats:?}");
    robo.play(&table, 1, Value::from("Roll"));
    let e = robo.refused().await;
    assert!(e.message.contains("stand-in"), "{e:?}");
    ann_plays_to_the_end(&mut ann, &table).await;
    // The bot abandoned the game: a loss, whatever the stand-in made of
    // it; ann's game counts as it went.
    let record = shared.store.game(table_id(&table)).await.expect("read");
    let results = record.expect("recorded").results;
    assert!(
        results[bot].abandoned && !results[mine].abandoned,
        "{results:?}"
    );
    let category = game_rating::Category::CubesStandard;
    let (robo_rating, games, wins) = rating(&shared, category, "robo").await;
    assert!(robo_rating < 1500.0, "{robo_rating}");
    assert_eq!((games, wins), (1, 0));
    let (ann_rating, games, _) = rating(&shared, category, "ann").await;
    assert_eq!(games, 1);
    let players: Vec<game_rating::Participant> = results
        .iter()
        .map(|r| game_rating::Participant {
            rating: game_rating::Rating::default(),
            side: r.seat,
            place: r.place.expect("a place"),
            abandoned: r.abandoned,
        })
        .collect();
    let expected = game_rating::rate(&players).expect("rated");
    assert!((robo_rating - expected[bot].rating).abs() < 1e-6);
    assert!((ann_rating - expected[mine].rating).abs() < 1e-6);
    server.stop().await;
}

fn table_id(table: &TableHandle) -> TableId {
    line(table).id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_decision_clock_stops_while_nobody_is_at_the_table() {
    let dir = tempfile::tempdir().expect("dir");
    let limit = Duration::from_secs(1);
    let server = server(dir.path(), |c| c.decision_limit = limit).await;
    let shared = Arc::clone(&server.shared);
    let (seats, mine) = robo_first();
    let bot = 1 - mine;
    let table = open(&shared, cubes(seats)).await;
    let mut robo = Peer::new(&shared, "robo");
    robo.join(&table, None, true);
    robo.joined().await;
    let mut ann = Peer::new(&shared, "ann");
    ann.join(&table, Some(mine), false);
    ann.joined().await;
    // Both gone at once, the bot to play: the game is paused.
    // (Its decision clock runs only while it is connected.)
    robo.gone(&table);
    ann.gone(&table);
    until_line(&table, |l| l.seats.iter().all(|s| !s.connected)).await;
    // Three decision limits later nobody has played for the bot.
    tokio::time::sleep(limit * 3).await;
    let now = line(&table);
    assert!(!now.seats[bot].away, "{now:?}");
    assert_eq!(now.seq, 0, "{now:?}");
    // ann is back, the bot not yet: it is away as a person would be (the
    // away clock, a minute here, not its decision clock, covers it).
    let mut ann = Peer::new(&shared, "ann");
    ann.join(&table, None, false);
    ann.joined().await;
    tokio::time::sleep(limit * 3).await;
    let now = line(&table);
    assert!(!now.seats[bot].away, "{now:?}");
    assert_eq!(now.seq, 0, "{now:?}");
    // The bot is back: its clock runs again, from then, and runs out.
    let back = Instant::now();
    let mut robo = Peer::new(&shared, "robo");
    robo.join(&table, None, true);
    robo.joined().await;
    until_line(&table, |l| l.seats[bot].away).await;
    assert!(
        back.elapsed() >= limit,
        "the clock started again when the bot came back"
    );
    server.stop().await;
}

/// Both bots of an arena table sit; answers them, the one to play first.
async fn arena_pair(shared: &Arc<Shared>, table: &TableHandle) -> (Peer, Peer) {
    let mut robo = Peer::new(shared, "robo");
    let mut zeta = Peer::new(shared, "zeta");
    robo.join(table, None, true);
    let first = robo.joined().await;
    zeta.join(table, None, true);
    let second = zeta.joined().await;
    // The observation of the first to join was made before the game
    // started: the second's tells whose turn it is.
    let _ = first;
    if second["legal"].as_array().is_some_and(|l| !l.is_empty()) {
        (zeta, robo)
    } else {
        (robo, zeta)
    }
}

/// The sentence the table's connections are told at a forfeit.
async fn forfeit_told(peer: &mut Peer) -> String {
    peer.until(|m| match m {
        ServerMessage::Error(e) if e.code == ErrorCode::GameOver => Some(e.message.clone()),
        _ => None,
    })
    .await
}

/// The forfeit recorded with the table, once its end is.
async fn recorded_forfeit(shared: &Shared, table: &TableHandle) -> Forfeit {
    until_line(table, |l| l.status == TableStatus::Over).await;
    let record = shared.store.game(table_id(table)).await.expect("read");
    record.and_then(|r| r.forfeit).expect("a forfeit recorded")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_illegal_move_loses_an_arena_game_and_is_rated_so() {
    let dir = tempfile::tempdir().expect("dir");
    let server = server(dir.path(), |c| c.decision_limit = Duration::from_secs(30)).await;
    let shared = Arc::clone(&server.shared);
    let table = open(&shared, arena(vec![S::Kept("robo"), S::Kept("zeta")])).await;
    assert_eq!(line(&table).arena.as_deref(), Some("mille-classic"));
    let (mut mover, mut other) = arena_pair(&shared, &table).await;
    // Playing before drawing: the engine refuses it.
    let play = mille_engine::Action::Play {
        card: mille_engine::Card::D200,
        team: 0,
    };
    mover.play(&table, 1, Value::from(play.to_string()));
    let e = mover.refused().await;
    assert_eq!(e.code, ErrorCode::Illegal, "{e:?}");
    let story = forfeit_told(&mut other).await;
    let expected = format!("{} lost by forfeit: sent an illegal move: ", mover.name);
    assert!(story.starts_with(&expected), "{story}");
    assert!(story.contains(&e.message), "{story} / {e:?}");
    let forfeit = recorded_forfeit(&shared, &table).await;
    let seat = usize::from(mover.name != "robo");
    assert_eq!(forfeit.seat, seat);
    assert_eq!(
        forfeit.reason,
        format!("sent an illegal move: {}", e.message)
    );
    let category = game_rating::Category::MilleClassic(2);
    let (lost, _, wins) = rating(&shared, category, &mover.name).await;
    assert!(lost < 1500.0 && wins == 0, "{lost}");
    let (won, _, wins) = rating(&shared, category, &other.name).await;
    assert!(won > 1500.0 && wins == 1, "{won}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arena_bot_loses_by_silence_by_leaving_by_declining_or_by_not_coming() {
    let dir = tempfile::tempdir().expect("dir");
    let server = server(dir.path(), |c| c.decision_limit = Duration::from_secs(1)).await;
    let shared = Arc::clone(&server.shared);
    let both = || arena(vec![S::Kept("robo"), S::Kept("zeta")]);
    // Silent on its turn.
    let table = open(&shared, both()).await;
    let (mover, mut other) = arena_pair(&shared, &table).await;
    let story = forfeit_told(&mut other).await;
    assert_eq!(
        story,
        format!(
            "{} lost by forfeit: took more than 1 s over a decision.",
            mover.name
        )
    );
    recorded_forfeit(&shared, &table).await;
    // Its connection closed.
    let table = open(&shared, both()).await;
    let (mut mover, other) = arena_pair(&shared, &table).await;
    other.gone(&table);
    let story = forfeit_told(&mut mover).await;
    assert_eq!(
        story,
        format!("{} lost by forfeit: its connection closed.", other.name)
    );
    let forfeit = recorded_forfeit(&shared, &table).await;
    assert_eq!(forfeit.reason, "its connection closed");
    // Declined.
    let table = open(&shared, both()).await;
    let mut zeta = Peer::new(&shared, "zeta");
    zeta.join(&table, None, true);
    zeta.joined().await;
    let robo = Peer::new(&shared, "robo");
    robo.decline(&table, "not now");
    let story = forfeit_told(&mut zeta).await;
    assert_eq!(story, "robo lost by forfeit: declined the game.");
    assert_eq!(recorded_forfeit(&shared, &table).await.seat, 0);
    // Never came.
    let table = open(&shared, both()).await;
    let mut robo = Peer::new(&shared, "robo");
    robo.join(&table, None, true);
    robo.joined().await;
    let story = forfeit_told(&mut robo).await;
    assert_eq!(story, "zeta lost by forfeit: did not take its seat.");
    let forfeit = recorded_forfeit(&shared, &table).await;
    assert_eq!(
        (forfeit.seat, forfeit.reason.as_str()),
        (1, "did not take its seat")
    );
    let category = game_rating::Category::MilleClassic(2);
    let (_, games, _) = rating(&shared, category, "zeta").await;
    assert_eq!(games, 4, "every forfeited game is rated");
    // Neither came: no result for either (not a forfeit of the first
    // seat, whose clock ran out with the other's).
    let table = open(&shared, both()).await;
    until_line(&table, |l| l.status == TableStatus::Over).await;
    let record = shared.store.game(table_id(&table)).await.expect("read");
    assert!(
        record
            .as_ref()
            .is_none_or(|r| r.forfeit.is_none() && r.results.is_empty()),
        "{record:?}"
    );
    let (_, games, _) = rating(&shared, category, "zeta").await;
    assert_eq!(games, 4, "a game nobody came to is not rated");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_not_ready_for_the_next_hand_is_played_by_the_stand_in() {
    let dir = tempfile::tempdir().expect("dir");
    // The hand pause is far longer than the decision limit: only the
    // bot's clock can end the wait between hands.
    let server = server(dir.path(), |c| {
        c.decision_limit = Duration::from_secs(1);
        c.hand_pause = Duration::from_secs(60);
    })
    .await;
    let shared = Arc::clone(&server.shared);
    let two = Setup {
        game: GameKind::Mille,
        setup: serde_json::json!({"rules": "classic", "players": 2}),
        seats: vec![S::Free, S::Kept("robo")],
        bots_allowed: false,
        arena: None,
    };
    let table = open(&shared, two).await;
    let mut ann = Peer::new(&shared, "ann");
    let mut robo = Peer::new(&shared, "robo");
    ann.join(&table, Some(0), false);
    ann.joined().await;
    robo.join(&table, None, true);
    robo.joined().await;
    // Both play at once, the first move they may, to the hand's end; the
    // bot never says it is ready for the next.
    let mut ids = [0u64; 2];
    let mut moved = [u64::MAX; 2];
    let deadline = Instant::now() + Duration::from_secs(120);
    let phase = loop {
        assert!(Instant::now() < deadline, "robo was never replaced");
        let (k, m) = tokio::select! {
            m = ann.next() => (0, m),
            m = robo.next() => (1, m),
        };
        let ServerMessage::Update {
            observation,
            seq,
            seats,
            ..
        } = m
        else {
            continue;
        };
        if seats[1].away {
            break observation["status"]["phase"].clone();
        }
        let legal = observation["legal"].as_array().cloned().unwrap_or_default();
        if legal.is_empty() || moved[k] == seq {
            continue;
        }
        moved[k] = seq;
        ids[k] += 1;
        let peer = if k == 0 { &ann } else { &robo };
        peer.play(&table, ids[k], legal[0].clone());
    };
    // It was replaced between hands: the hand is over, not yet dealt.
    assert_eq!(phase, "hand_over");
    server.stop().await;
}
