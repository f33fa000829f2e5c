//! The site beside the lobby: the ladder, the players' pages and the
//! finished games' pages. Each is one HTML page (`site.html`, which reads
//! the JSON and draws the page) and its data as JSON under `/api/`:
//!
//! - `GET /api/ladder?game=mille&rules=bsd&players=2` (or `?category=ID`):
//!   a category's ratings, best first.
//! - `GET /api/players/NAME`: a player's ratings with their history, and
//!   the last games; for a bot, who runs it and what it is (`bot`).
//! - `GET /api/games/ID[?code=CODE]`: a finished game's result and its
//!   record, the engine's own `GameRecord`; its bot seats, and how a bot
//!   lost it by forfeit.
//! - `GET /api/arenas`: the arenas this server runs (`[]` or one);
//!   `GET /api/arena`: the arena's standings and games (404 when the
//!   server runs none), drawn by `GET /arena`.
//! - `GET /api/games/ID/views[?seat=N][&code=CODE]`: the game step by step
//!   as a spectator (or seat N) saw it, one step per public move.
//! - `GET /api/games/ID/review?seat=N[&code=CODE]`: the after-game review
//!   of seat N's decisions ([`crate::review`]), or 202 and where it is in
//!   the line while it is being made (503 when the line is full).
//!
//! Everything taken from the URL is checked and refused with a sentence
//! (400 or 404), never trusted. A game's views are made by replaying its
//! log on the blocking pool, at most [`REPLAYS_AT_ONCE`] at a time, and
//! the last few are kept, since a finished game never changes.

use crate::Shared;
use crate::games::ServerGame;
use axum::Router;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use cubes_engine::Cubes;
use game_rating::{Category, Rating};
use game_table::{SeatInfo, Table, Viewer};
use mille_engine::Mille;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use table_protocol::{GameKind, LadderEntry, TableId};
use tokio::sync::Semaphore;

/// The most replays (a game's views) made at once: each holds a blocking
/// thread for as long as its game takes to replay.
pub const REPLAYS_AT_ONCE: usize = 2;

/// How many games' views are kept, and the most bytes they may hold.
const CACHED_VIEWS: usize = 8;
const CACHED_BYTES: usize = 16 * 1024 * 1024;

/// The most lines of a ladder.
const LADDER_MAX: usize = 200;

/// The most games on a player's page.
const PLAYER_GAMES: usize = 50;

/// What the routes share: the server, the views made lately and the
/// permits to make more.
struct Pages {
    shared: Arc<Shared>,
    cache: Mutex<ViewCache>,
    replays: Semaphore,
    reviews: Arc<crate::review::Reviews>,
}

/// Whose views of which game: (table, seat or `None` for a spectator).
type ViewKey = (TableId, Option<usize>);

/// The views made lately, oldest first.
#[derive(Default)]
struct ViewCache {
    entries: VecDeque<(ViewKey, Arc<[u8]>)>,
}

impl ViewCache {
    fn get(&mut self, key: ViewKey) -> Option<Arc<[u8]>> {
        let at = self.entries.iter().position(|(k, _)| *k == key)?;
        // Used again: it becomes the newest.
        let entry = self.entries.remove(at)?;
        let bytes = Arc::clone(&entry.1);
        self.entries.push_back(entry);
        Some(bytes)
    }

    fn put(&mut self, key: ViewKey, bytes: Arc<[u8]>) {
        self.entries.retain(|(k, _)| *k != key);
        if bytes.len() > CACHED_BYTES {
            return;
        }
        self.entries.push_back((key, bytes));
        while self.entries.len() > CACHED_VIEWS
            || self.entries.iter().map(|(_, b)| b.len()).sum::<usize>() > CACHED_BYTES
        {
            self.entries.pop_front();
        }
    }
}

/// The routes of the site's pages and their JSON, for the server's
/// router.
pub fn routes<S: Clone + Send + Sync + 'static>(shared: Arc<Shared>) -> Router<S> {
    let pages = Arc::new(Pages {
        cache: Mutex::new(ViewCache::default()),
        replays: Semaphore::new(REPLAYS_AT_ONCE),
        reviews: Arc::new(crate::review::Reviews::new(
            shared.store.clone(),
            shared.config.reviews_at_once,
            shared.config.review_queue,
            shared.config.review_iterations,
        )),
        shared,
    });
    Router::new()
        .route("/ladder", get(ladder_page))
        .route("/players/{name}", get(player_page))
        .route("/games/{id}", get(game_page))
        .route("/arena", get(arena_page))
        .route("/api/arenas", get(arenas))
        .route("/api/arena", get(arena))
        .route("/api/ladder", get(ladder))
        .route("/api/players/{name}", get(player))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/views", get(views))
        .route("/api/games/{id}/review", get(review))
        .with_state(pages)
}

/// A refusal, answered as `{"error": "..."}` with its status.
#[derive(Debug)]
enum Refusal {
    /// The URL asks for something that cannot be (400).
    Bad(String),
    /// There is no such thing, or not for this visitor (404).
    NotFound(String),
    /// The database or a replay failed (500 or 503).
    Failed(StatusCode, String),
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            Refusal::Bad(m) => (StatusCode::BAD_REQUEST, m),
            Refusal::NotFound(m) => (StatusCode::NOT_FOUND, m),
            Refusal::Failed(s, m) => (s, m),
        };
        let mut response = (status, axum::Json(json!({ "error": message }))).into_response();
        no_store(response.headers_mut());
        response
    }
}

impl From<crate::store::StoreError> for Refusal {
    fn from(e: crate::store::StoreError) -> Refusal {
        tracing::warn!(error = %e, "a page's query failed");
        Refusal::Failed(
            StatusCode::SERVICE_UNAVAILABLE,
            "the database did not answer; try again in a moment".into(),
        )
    }
}

fn no_store(headers: &mut HeaderMap) {
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
}

/// A JSON answer.
fn answer<T: Serialize>(value: &T) -> Response {
    match serde_json::to_vec(value) {
        Ok(bytes) => bytes_answer(bytes.into()),
        Err(e) => Refusal::Failed(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

fn bytes_answer(bytes: Arc<[u8]>) -> Response {
    let mut response = (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        axum::body::Bytes::from_owner(ArcBytes(bytes)),
    )
        .into_response();
    no_store(response.headers_mut());
    response
}

/// Shared bytes as a response body, without a copy.
struct ArcBytes(Arc<[u8]>);

impl AsRef<[u8]> for ArcBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

// ---- the URL's parts ------------------------------------------------------

/// A table number from the URL.
fn table_id(text: &str) -> Result<TableId, Refusal> {
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Refusal::Bad(format!(
            "a game is named by its table's number, not {:?}",
            clip(text)
        )));
    }
    text.parse()
        .map_err(|_| Refusal::Bad(format!("no table has the number {text}")))
}

/// A player's name from the URL (already percent-decoded): a name people
/// may take, or a built-in computer level's rating name.
fn player_name(text: &str) -> Result<&str, Refusal> {
    if game_rating::computer_level(text).is_some_and(|l| !l.is_empty() && l.len() <= 40) {
        return Ok(text);
    }
    table_protocol::check_name(text)
        .map(|()| text)
        .map_err(|why| Refusal::Bad(format!("{:?} is not a player's name: {why}", clip(text))))
}

/// At most 40 characters of what the URL said, for a refusal.
fn clip(text: &str) -> String {
    text.chars().take(40).collect()
}

/// A path parameter, or a refusal saying why it does not read.
fn path_text(path: Result<Path<String>, PathRejection>) -> Result<String, Refusal> {
    path.map(|Path(p)| p)
        .map_err(|e| Refusal::Bad(format!("the address does not read: {}", e.body_text())))
}

/// The query's parameters, each known and given once.
fn query(
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
    known: &[&str],
) -> Result<HashMap<String, String>, Refusal> {
    let Query(pairs) =
        q.map_err(|e| Refusal::Bad(format!("the query does not read: {}", e.body_text())))?;
    let mut map = HashMap::new();
    for (k, v) in pairs {
        if !known.contains(&k.as_str()) {
            return Err(Refusal::Bad(format!(
                "unknown parameter {:?}: this address takes {}",
                clip(&k),
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
        if map.insert(k.clone(), v).is_some() {
            return Err(Refusal::Bad(format!("the parameter {k} is given twice")));
        }
    }
    Ok(map)
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A rating as shown now: its deviation grown by the time since it was
/// last played.
fn decayed(rating: Rating, last_played: i64) -> Rating {
    rating.after_idle(now().saturating_sub(last_played).max(0))
}

fn round(x: f64) -> i32 {
    // Ratings stay far inside i32; a NaN becomes 0.
    x.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
}

// ---- the HTML -------------------------------------------------------------

async fn ladder_page(State(pages): State<Arc<Pages>>, headers: HeaderMap) -> Response {
    crate::web::site(&pages.shared, &headers, StatusCode::OK)
}

async fn player_page(
    State(pages): State<Arc<Pages>>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Response {
    // The page itself says what is wrong with the name (it asks the API).
    let status = match path_text(path).and_then(|n| player_name(&n).map(|_| ())) {
        Ok(()) => StatusCode::OK,
        Err(_) => StatusCode::BAD_REQUEST,
    };
    crate::web::site(&pages.shared, &headers, status)
}

async fn game_page(
    State(pages): State<Arc<Pages>>,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
) -> Response {
    let status = match path_text(path).and_then(|t| table_id(&t)) {
        Ok(_) => StatusCode::OK,
        Err(_) => StatusCode::BAD_REQUEST,
    };
    crate::web::site(&pages.shared, &headers, status)
}

async fn arena_page(State(pages): State<Arc<Pages>>, headers: HeaderMap) -> Response {
    // The page itself says why there is nothing (it asks the API).
    let status = match pages.shared.config.arena {
        Some(_) => StatusCode::OK,
        None => StatusCode::NOT_FOUND,
    };
    crate::web::site(&pages.shared, &headers, status)
}

// ---- the arenas -------------------------------------------------------------

/// The arenas this server runs (none, or the one of `--arena`), so that
/// the pages link to them only when there is one.
async fn arenas(
    State(pages): State<Arc<Pages>>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, Refusal> {
    query(q, &[])?;
    let list: Vec<Value> = pages
        .shared
        .config
        .arena
        .iter()
        .map(|a| {
            json!({
                "arena": crate::arena::arena_id(&a.rules),
                "title": format!("Mille Bornes, {}", a.rules),
                "url": "/arena",
            })
        })
        .collect();
    Ok(answer(&list))
}

/// No arena here: said in a sentence.
fn no_arena() -> Refusal {
    Refusal::NotFound(
        "this server runs no arena (its operator starts one with mille serve --arena RULES)".into(),
    )
}

/// The arena's standings and games ([`crate::arena::document`]).
async fn arena(
    State(pages): State<Arc<Pages>>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, Refusal> {
    query(q, &[])?;
    let Some(doc) = crate::arena::document(&pages.shared).await? else {
        return Err(no_arena());
    };
    Ok(answer(&doc))
}

// ---- the ladder -----------------------------------------------------------

/// The category a ladder query names: `category=ID`, or `game`, `rules`
/// and `players` as the protocol's `ladder` message has them.
fn category_of(q: &HashMap<String, String>) -> Result<Category, Refusal> {
    if let Some(id) = q.get("category") {
        if q.len() > 1 {
            return Err(Refusal::Bad(
                "give either category or game, rules and players".into(),
            ));
        }
        return Category::parse(id).ok_or_else(|| {
            let ids: Vec<String> = Category::ALL.iter().map(|c| c.id()).collect();
            Refusal::Bad(format!(
                "no category {:?}: there are {}",
                clip(id),
                ids.join(", ")
            ))
        });
    }
    let game = q.get("game").map_or("mille", String::as_str);
    let players = match q.get("players") {
        None => None,
        Some(p) => Some(
            p.parse::<usize>()
                .ok()
                .filter(|&n| n <= 64)
                .ok_or_else(|| {
                    Refusal::Bad(format!("players is a number of players, not {:?}", clip(p)))
                })?,
        ),
    };
    Category::from_request(game, q.get("rules").map(String::as_str), players).map_err(Refusal::Bad)
}

/// A ladder's lines, best first.
async fn ladder_entries(shared: &Shared, category: Category) -> Result<Vec<LadderEntry>, Refusal> {
    let rows = shared.store.ladder(category, LADDER_MAX).await?;
    let now = crate::ratings::now();
    Ok(rows
        .iter()
        .map(|row| crate::ratings::ladder_entry(row, now))
        .collect())
}

async fn ladder(
    State(pages): State<Arc<Pages>>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, Refusal> {
    let q = query(q, &["game", "rules", "players", "category"])?;
    let category = category_of(&q)?;
    Ok(answer(&ladder_entries(&pages.shared, category).await?))
}

// ---- a player -------------------------------------------------------------

/// A setup in words, as the lobby says it ("classic, 4 players in 2
/// teams"), or the game's name when the setup does not read.
fn ruleset(game: GameKind, setup: &Value, seats: usize) -> String {
    fn words<G: ServerGame>(setup: &Value, seats: usize) -> Option<String> {
        G::setup(setup).ok().map(|s| G::describe(&s, seats))
    }
    let said = match game {
        GameKind::Mille => words::<Mille>(setup, seats),
        GameKind::Cubes => words::<Cubes>(setup, seats),
    };
    said.unwrap_or_else(|| game_word(game).to_string())
}

fn game_word(game: GameKind) -> &'static str {
    match game {
        GameKind::Mille => "mille",
        GameKind::Cubes => "cubes",
    }
}

async fn player(
    State(pages): State<Arc<Pages>>,
    path: Result<Path<String>, PathRejection>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, Refusal> {
    query(q, &[])?;
    let name = path_text(path)?;
    let name = player_name(&name)?;
    // A bot has a page from its first hello (who runs it, what it is),
    // before it has played. Asked after the record: a name found there is
    // registered already, and a name's kind never changes after that.
    let found = pages.shared.store.player(name, PLAYER_GAMES).await?;
    let bot = pages.shared.store.bot_info(name).await?;
    let record = match found {
        Some(record) => record,
        None if bot.is_some() => crate::store::PlayerRecord {
            name: name.to_string(),
            ratings: Vec::new(),
            history: Vec::new(),
            games: Vec::new(),
        },
        None => {
            return Err(Refusal::NotFound(format!(
                "nobody named {name:?} has played here"
            )));
        }
    };
    let ratings: Vec<Value> = record
        .ratings
        .iter()
        .map(|r| {
            let shown = decayed(r.rating, r.last_played);
            let history: Vec<Value> = record
                .history
                .iter()
                .filter(|h| h.category == r.category)
                .map(|h| json!({ "table": h.table, "at": h.at, "rating": round(h.after) }))
                .collect();
            json!({
                "category": r.category.id(),
                "title": r.category.title(),
                "rating": round(shown.rating),
                "deviation": round(shown.deviation),
                "provisional": shown.provisional(),
                "games": r.games,
                "wins": r.wins,
                "last_played": r.last_played,
                "computer": r.computer,
                "history": history,
            })
        })
        .collect();
    let games: Vec<Value> = record
        .games
        .iter()
        // A private table's game is its players' business.
        .filter(|g| !g.code_private)
        .map(|g| {
            let mine = g.results.iter().find(|r| r.name == record.name);
            let result = match mine {
                Some(r) if r.abandoned => "abandoned",
                Some(r) if r.won => "won",
                Some(_) => "lost",
                None => "",
            };
            let seats: Vec<Value> = g
                .results
                .iter()
                .map(|r| {
                    json!({
                        "seat": r.seat, "name": r.name, "computer": r.computer, "score": r.score,
                        "won": r.won, "abandoned": r.abandoned,
                    })
                })
                .collect();
            json!({
                "table": g.table,
                "game": game_word(g.game),
                "ruleset": ruleset(g.game, &g.setup, g.seats),
                "rated": g.rated,
                "finished_at": g.finished_at,
                "result": result,
                "seats": seats,
                "url": format!("/games/{}", g.table),
            })
        })
        .collect();
    Ok(answer(&json!({
        "name": record.name,
        "bot": bot.map(|b| json!({ "owner": b.owner, "description": b.description })),
        "ratings": ratings,
        "games": games,
    })))
}

// ---- a finished game -------------------------------------------------------

/// A finished game as the pages need it: what the store keeps of it.
struct Finished {
    id: TableId,
    game: GameKind,
    setup: Value,
    seed: u64,
    code: Option<String>,
    /// Per seat: a computer's level (`None`: a person) and its person.
    seats: Vec<(Option<String>, Option<String>)>,
    /// (seat that moved, action, whether a stand-in made it).
    moves: Vec<(Option<usize>, Value, bool)>,
    results: Vec<crate::store::ResultRow>,
    rated: bool,
    outcome: Option<&'static str>,
    finished_at: Option<i64>,
    /// Per seat: whether a bot held it.
    bots: Vec<bool>,
    /// How a bot lost the game by what it did, if one did.
    forfeit: Option<crate::store::Forfeit>,
    /// The arena game it was, if it was one.
    arena: Option<crate::store::ArenaTag>,
}

/// The finished game at table `id`, if this visitor may see it: a private
/// table's only with its code.
async fn finished(
    shared: &Shared,
    id: TableId,
    code: Option<&str>,
) -> Result<Arc<Finished>, Refusal> {
    let no_game = || Refusal::NotFound(format!("there is no finished game at table {id}"));
    let Some(row) = shared.store.game(id).await? else {
        // A public table still being played here is told apart, so that
        // its link is not taken for a broken one; a private one is not
        // even said to exist.
        let public_here = shared
            .table(id)
            .and_then(|h| h.summary.lock().ok().map(|s| !s.private))
            .unwrap_or(false);
        return Err(if public_here {
            Refusal::NotFound(format!(
                "the game at table {id} is not over yet: watch it from the lobby"
            ))
        } else {
            no_game()
        });
    };
    let t = row.table;
    let stand_in: std::collections::HashSet<usize> = t.stand_in.iter().copied().collect();
    let seats = t.seats.len();
    let f = Finished {
        id,
        game: t.game,
        setup: t.setup,
        seed: t.seed,
        code: t.code,
        seats: t.seats,
        moves: t
            .moves
            .into_iter()
            .enumerate()
            .map(|(k, (seat, action, _))| (seat, action, stand_in.contains(&k)))
            .collect(),
        results: row.results,
        rated: t.rated,
        outcome: row.outcome.map(|o| o.word()),
        finished_at: row.finished_at,
        // A table stored before bots came says nothing: nobody was one.
        bots: (0..seats)
            .map(|k| t.bots.get(k).copied().unwrap_or(false))
            .collect(),
        forfeit: row.forfeit,
        arena: t.arena,
    };
    if let Some(c) = &f.code
        && code != Some(c.as_str())
    {
        return Err(no_game());
    }
    if let Some(tag) = &f.arena
        && !crate::arena::shown(shared, id, tag).await?
    {
        return Err(Refusal::NotFound(format!(
            "table {id} is a game of round {} of the arena: its deal is played again with the seats swapped, so its record is shown once that game is over too",
            tag.round
        )));
    }
    Ok(Arc::new(f))
}

/// The engine's own record of a game: what `mille replay` reads.
fn record(f: &Finished) -> Result<Value, String> {
    fn actions<G: ServerGame>(f: &Finished) -> Result<Vec<G::Action>, String> {
        f.moves
            .iter()
            .enumerate()
            .map(|(k, (_, a, _))| G::read_action(a).map_err(|e| format!("move {}: {e}", k + 1)))
            .collect()
    }
    let value = match f.game {
        GameKind::Mille => serde_json::to_value(mille_engine::GameRecord {
            config: Mille::setup(&f.setup)?,
            seed: f.seed,
            actions: actions::<Mille>(f)?,
        }),
        GameKind::Cubes => {
            let setup = Cubes::setup(&f.setup)?;
            let start = Cubes::start(&setup, f.seats.len(), f.seed)?;
            serde_json::to_value(cubes_engine::GameRecord {
                settings: start.settings().clone(),
                players: f.seats.len(),
                seed: f.seed,
                actions: actions::<Cubes>(f)?,
            })
        }
    };
    value.map_err(|e| e.to_string())
}

fn code_of(q: &HashMap<String, String>) -> Option<&str> {
    q.get("code").map(String::as_str)
}

async fn game(
    State(pages): State<Arc<Pages>>,
    path: Result<Path<String>, PathRejection>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, Refusal> {
    let q = query(q, &["code"])?;
    let id = table_id(&path_text(path)?)?;
    let f = finished(&pages.shared, id, code_of(&q)).await?;
    let mut stand_in_moves = vec![0usize; f.seats.len()];
    let mut stand_in = Vec::new();
    for (k, (seat, _, by_stand_in)) in f.moves.iter().enumerate() {
        if *by_stand_in {
            stand_in.push(k);
            if let Some(n) = seat.and_then(|s| stand_in_moves.get_mut(s)) {
                *n += 1;
            }
        }
    }
    let players: Vec<Value> = f
        .results
        .iter()
        .map(|r| {
            json!({
                "seat": r.seat, "name": r.name, "computer": r.computer,
                "bot": f.bots.get(r.seat).copied().unwrap_or(false), "score": r.score,
                "won": r.won, "abandoned": r.abandoned,
                "stand_in_moves": stand_in_moves.get(r.seat).copied().unwrap_or(0),
            })
        })
        .collect();
    // A game closed without a result has no results rows: its seats are
    // still named.
    let players = if players.is_empty() {
        names(&f)
            .into_iter()
            .enumerate()
            .map(|(seat, info)| {
                json!({
                    "seat": seat, "name": info.name,
                    "computer": matches!(info.kind, game_table::SeatKind::Computer { .. }),
                    "bot": f.bots.get(seat).copied().unwrap_or(false),
                    "score": null, "won": false, "abandoned": false,
                    "stand_in_moves": stand_in_moves.get(seat).copied().unwrap_or(0),
                })
            })
            .collect()
    } else {
        players
    };
    let record = record(&f).map_err(|why| {
        tracing::warn!(table = id, why, "a finished game's record does not read");
        Refusal::Failed(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the record of table {id} does not read: {why}"),
        )
    })?;
    Ok(answer(&json!({
        "id": f.id,
        "game": game_word(f.game),
        "ruleset": ruleset(f.game, &f.setup, f.seats.len()),
        "rated": f.rated,
        "finished_at": f.finished_at,
        "outcome": f.outcome,
        "private": f.code.is_some(),
        "players": players,
        "stand_in": stand_in,
        "forfeit": forfeit_json(&f),
        "arena": f.arena.as_ref().map(|a| json!({ "arena": a.arena, "round": a.round })),
        "record": record,
    })))
}

/// How a bot lost a game by what it did: its seat, its name and the
/// reason, or `null`.
fn forfeit_json(f: &Finished) -> Value {
    let Some(forfeit) = &f.forfeit else {
        return Value::Null;
    };
    let name = f
        .results
        .iter()
        .find(|r| r.seat == forfeit.seat)
        .map(|r| r.name.clone())
        .or_else(|| {
            f.seats
                .get(forfeit.seat)
                .and_then(|(_, owner)| owner.clone())
        });
    json!({ "seat": forfeit.seat, "name": name, "reason": forfeit.reason })
}

/// The seats' names as the table showed them: a person's name, a
/// computer's name as the table made it ("Steady Sam 2" for a second one).
fn names(f: &Finished) -> Vec<SeatInfo> {
    fn made<G: ServerGame>(f: &Finished) -> Vec<SeatInfo> {
        let mut infos: Vec<SeatInfo> = Vec::with_capacity(f.seats.len());
        for (k, (level, owner)) in f.seats.iter().enumerate() {
            infos.push(match level {
                Some(level) => {
                    let base = G::bot_name(level, k);
                    let twins = infos
                        .iter()
                        .filter(|i| i.name == base || i.name.starts_with(&format!("{base} ")))
                        .count();
                    let name = match twins {
                        0 => base,
                        n => format!("{base} {}", n + 1),
                    };
                    SeatInfo::computer(name, level.clone())
                }
                None => SeatInfo::human(owner.clone().unwrap_or_else(|| format!("Seat {}", k + 1))),
            });
        }
        infos
    }
    match f.game {
        GameKind::Mille => made::<Mille>(f),
        GameKind::Cubes => made::<Cubes>(f),
    }
}

/// One step of a replay: the observation after a public move.
#[derive(Serialize)]
struct Step {
    /// The step's number (the table's sequence number then).
    seq: usize,
    /// The moves of the log it covers: `[from, to)`.
    moves: [usize; 2],
    /// The seat that made its last move (`None`: the host, or the start).
    seat: Option<usize>,
    /// Whether a stand-in made one of its moves.
    stand_in: bool,
    /// What the viewer saw, as `watching` and `update` carry it.
    observation: Value,
}

/// The game step by step as `viewer` saw it: the start, then one step per
/// move the spectators could see (a seat's private moves, a declined coup
/// fourré, fold into the next public one), so that every viewer's steps
/// are the same moments.
fn replay_views(f: &Finished, viewer: Viewer) -> Result<Vec<Step>, String> {
    fn run<G: ServerGame>(f: &Finished, viewer: Viewer) -> Result<Vec<Step>, String> {
        let setup = G::setup(&f.setup)?;
        let state = G::start(&setup, f.seats.len(), f.seed)?;
        let players = names(f)
            .into_iter()
            .map(|info| (info, game_table::Player::<G>::Person))
            .collect();
        let mut table = Table::new(state, players);
        let observe = |table: &Table<G>, from: usize| {
            serde_json::to_value(table.observe_since(viewer, from)).map_err(|e| e.to_string())
        };
        let mut steps = vec![Step {
            seq: 0,
            moves: [0, 0],
            seat: None,
            stand_in: false,
            observation: observe(&table, 0)?,
        }];
        let mut shown = table.event_count();
        let mut first = 0;
        let mut stand_in = false;
        for (k, (seat, action, by_stand_in)) in f.moves.iter().enumerate() {
            let action = G::read_action(action).map_err(|e| format!("move {}: {e}", k + 1))?;
            table
                .replay(action)
                .map_err(|e| format!("move {}: {e}", k + 1))?;
            stand_in |= *by_stand_in;
            if table.has_news(Viewer::Spectator, shown) {
                steps.push(Step {
                    seq: steps.len(),
                    moves: [first, k + 1],
                    seat: *seat,
                    stand_in,
                    observation: observe(&table, shown)?,
                });
                shown = table.event_count();
                first = k + 1;
                stand_in = false;
            }
        }
        Ok(steps)
    }
    match f.game {
        GameKind::Mille => run::<Mille>(f, viewer),
        GameKind::Cubes => run::<Cubes>(f, viewer),
    }
}

async fn views(
    State(pages): State<Arc<Pages>>,
    path: Result<Path<String>, PathRejection>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, Refusal> {
    let q = query(q, &["seat", "code"])?;
    let id = table_id(&path_text(path)?)?;
    let seat = match q.get("seat") {
        None => None,
        Some(s) => Some(s.parse::<usize>().map_err(|_| {
            Refusal::Bad(format!("seat is a seat's number from 0, not {:?}", clip(s)))
        })?),
    };
    let f = finished(&pages.shared, id, code_of(&q)).await?;
    if let Some(s) = seat
        && s >= f.seats.len()
    {
        return Err(Refusal::Bad(format!(
            "table {id} has {} seats, numbered from 0: there is no seat {s}",
            f.seats.len()
        )));
    }
    let key = (id, seat);
    if let Some(bytes) = pages.cache.lock().ok().and_then(|mut c| c.get(key)) {
        return Ok(bytes_answer(bytes));
    }
    let _permit = pages.replays.acquire().await.map_err(|_| {
        Refusal::Failed(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server is stopping".into(),
        )
    })?;
    // Made meanwhile by another request for the same views?
    if let Some(bytes) = pages.cache.lock().ok().and_then(|mut c| c.get(key)) {
        return Ok(bytes_answer(bytes));
    }
    let made = Arc::clone(&f);
    let bytes = tokio::task::spawn_blocking(move || {
        let viewer = seat.map_or(Viewer::Spectator, Viewer::Seat);
        let steps = replay_views(&made, viewer)?;
        let viewer = match seat {
            None => json!("spectator"),
            Some(s) => json!({ "seat": s }),
        };
        serde_json::to_vec(&json!({ "id": made.id, "viewer": viewer, "steps": steps }))
            .map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| Refusal::Failed(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?
    .map_err(|why| {
        tracing::warn!(table = id, why, "a finished game does not replay");
        Refusal::Failed(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the game at table {id} does not replay: {why}"),
        )
    })?;
    let bytes: Arc<[u8]> = bytes.into();
    if let Ok(mut c) = pages.cache.lock() {
        c.put(key, Arc::clone(&bytes));
    }
    Ok(bytes_answer(bytes))
}

// ---- a seat's review ------------------------------------------------------

/// An answer saying the review is not ready: 202 and where it is.
fn pending(id: TableId, seat: usize, progress: &crate::review::Progress) -> Response {
    use crate::review::Progress;
    let body = match progress {
        Progress::Queued { position } => {
            json!({ "id": id, "seat": seat, "status": "queued", "position": position })
        }
        Progress::Running => json!({ "id": id, "seat": seat, "status": "running", "position": 0 }),
        Progress::Failed(why) => {
            return Refusal::Failed(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the review of table {id}, seat {seat} cannot be made: {why}"),
            )
            .into_response();
        }
    };
    let mut response = (StatusCode::ACCEPTED, axum::Json(body)).into_response();
    no_store(response.headers_mut());
    response
}

async fn review(
    State(pages): State<Arc<Pages>>,
    path: Result<Path<String>, PathRejection>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, Refusal> {
    let q = query(q, &["seat", "code"])?;
    let id = table_id(&path_text(path)?)?;
    let seat = match q.get("seat") {
        None => {
            return Err(Refusal::Bad(
                "say whose decisions to review: ?seat=N, a seat's number from 0".into(),
            ));
        }
        Some(s) => s.parse::<usize>().map_err(|_| {
            Refusal::Bad(format!("seat is a seat's number from 0, not {:?}", clip(s)))
        })?,
    };
    let f = finished(&pages.shared, id, code_of(&q)).await?;
    if seat >= f.seats.len() {
        return Err(Refusal::Bad(format!(
            "table {id} has {} seats, numbered from 0: there is no seat {seat}",
            f.seats.len()
        )));
    }
    if let Some(text) = pages.shared.store.review(id, seat).await? {
        return Ok(bytes_answer(Arc::from(text.into_bytes())));
    }
    if let Some(progress) = pages.reviews.progress((id, seat)) {
        return Ok(pending(id, seat, &progress));
    }
    let record = record(&f).map_err(|why| {
        Refusal::Failed(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the record of table {id} does not read: {why}"),
        )
    })?;
    let job = crate::review::ReviewJob {
        key: (id, seat),
        game: f.game,
        record,
        names: names(&f).into_iter().map(|i| i.name).collect(),
    };
    match pages.reviews.ask(job) {
        Ok(progress) => Ok(pending(id, seat, &progress)),
        Err(crate::review::Full) => Err(Refusal::Failed(
            StatusCode::SERVICE_UNAVAILABLE,
            "too many reviews are waiting to be made: ask again in a minute".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_numbers_and_names_from_the_url_are_checked() {
        assert!(matches!(table_id("12"), Ok(12)));
        for bad in ["", "-1", "1e3", "12a", "99999999999999999999", "0x10", " 1"] {
            assert!(matches!(table_id(bad), Err(Refusal::Bad(_))), "{bad:?}");
        }
        assert!(player_name("ann").is_ok());
        assert!(player_name("Mary-Lou O'Neil").is_ok());
        assert!(player_name("computer: classic").is_ok());
        for bad in ["", " ann", "a/b", "<script>", &"x".repeat(40), "computer: "] {
            assert!(player_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_cache_keeps_the_newest_few() {
        let mut c = ViewCache::default();
        for id in 0..(CACHED_VIEWS as u64 + 3) {
            c.put((id, None), Arc::from(vec![0u8; 10]));
        }
        assert_eq!(c.entries.len(), CACHED_VIEWS);
        assert!(c.get((0, None)).is_none());
        assert!(c.get((3, None)).is_some());
        // 3 was used last: it outlives 4.
        c.put((100, None), Arc::from(vec![0u8; 10]));
        assert!(c.get((4, None)).is_none());
        assert!(c.get((3, None)).is_some());
        c.put((101, None), Arc::from(vec![0u8; CACHED_BYTES + 1]));
        assert!(c.get((101, None)).is_none());
    }
}
