//! The arena (`--arena RULES`): the bots connected with `arena` in their
//! hello play each other round after round at one Mille Bornes ruleset,
//! two players, on duplicate deals; and the standings made from the games
//! the store keeps.
//!
//! A round takes the entrants present at its start (once none has arrived
//! for two seconds, so that bots connecting together enter the same
//! round); every pair plays two games on one seed with the seats swapped,
//! so that the deal's luck cancels (as `mille match` does). A bot plays
//! one arena game at a time, and a game starts as soon as both its bots
//! are free. The next round starts when every game of this one is over, or
//! skipped because one of its bots left. Rounds are numbered on from the last one stored, so a
//! restarted server goes on where the last run stopped (the unfinished
//! round is not played again).

use crate::Shared;
use crate::games::ServerGame;
use crate::store::{ArenaGameRow, ArenaTag, StoreError};
use mille_engine::Mille;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};
use table_protocol::{
    CreateTable, ErrorCode, GameKind, RatingBrief, SeatRequest, TableId, TableStatus,
};
use tokio::sync::Notify;

/// How often the scheduler looks at its games and the bots present.
const POLL: Duration = Duration::from_millis(200);

/// How long the scheduler waits before opening a table again when the
/// server could not (the database busy, too many tables).
const RETRY: Duration = Duration::from_secs(2);

/// The arena's id for its ruleset: `mille-classic`.
pub fn arena_id(rules: &str) -> String {
    format!("mille-{rules}")
}

/// The setup of an arena's tables.
fn setup(rules: &str) -> Value {
    json!({"rules": rules, "players": 2})
}

/// One game of a round: who sits where, and the deal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The bots in seat order.
    pub seats: [String; 2],
    /// The deal, the same for both games of a pair (unless the arena
    /// deals afresh).
    pub seed: u64,
}

/// Where one game of a round stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Not started: waiting for both its bots to be free.
    Waiting,
    /// Being played at this table.
    Playing(TableId),
    /// Over (finished, forfeited or closed).
    Over,
    /// Not played: one of its bots left, or its table could not open.
    Skipped,
}

/// A round's games and where each stands. Pure: the scheduler's task
/// drives it with what it sees of the server.
#[derive(Clone, Debug)]
pub struct Round {
    /// The round's number, from 1.
    pub number: u32,
    games: Vec<(Pairing, Progress)>,
}

impl Round {
    /// The games of round `number` among `entrants`: every pair plays two
    /// games on a seed of its own (`seed_of` gives one per pair), the
    /// second with the seats swapped; with `fresh`, each game has a seed
    /// of its own. The first games of every pair come before the second
    /// ones, so that a bot's pairs take turns.
    pub fn new(
        number: u32,
        entrants: &[String],
        fresh: bool,
        mut seed_of: impl FnMut() -> u64,
    ) -> Round {
        let mut firsts = Vec::new();
        let mut seconds = Vec::new();
        for (i, a) in entrants.iter().enumerate() {
            for b in &entrants[i + 1..] {
                let seed = seed_of();
                firsts.push(Pairing {
                    seats: [a.clone(), b.clone()],
                    seed,
                });
                seconds.push(Pairing {
                    seats: [b.clone(), a.clone()],
                    seed: if fresh { seed_of() } else { seed },
                });
            }
        }
        Round {
            number,
            games: firsts
                .into_iter()
                .chain(seconds)
                .map(|p| (p, Progress::Waiting))
                .collect(),
        }
    }

    /// The games and where each stands.
    pub fn games(&self) -> &[(Pairing, Progress)] {
        &self.games
    }

    /// The games to start now, with `present` the bots connected and
    /// `elsewhere` those at arena tables of no game of this round (a game
    /// of the round a restarted server left unfinished): a waiting game
    /// one of whose bots left is skipped (the pair is not played), and
    /// those whose bots are both free are answered (no bot in two of
    /// them), in order.
    pub fn due(&mut self, present: &HashSet<String>, elsewhere: &HashSet<String>) -> Vec<usize> {
        let mut busy: HashSet<String> = elsewhere.clone();
        for (pairing, progress) in &self.games {
            if let Progress::Playing(_) = progress {
                busy.extend(pairing.seats.iter().cloned());
            }
        }
        let mut due = Vec::new();
        for (k, (pairing, progress)) in self.games.iter_mut().enumerate() {
            if *progress != Progress::Waiting {
                continue;
            }
            if pairing.seats.iter().any(|b| !present.contains(b)) {
                *progress = Progress::Skipped;
                continue;
            }
            if pairing.seats.iter().any(|b| busy.contains(b)) {
                continue;
            }
            busy.extend(pairing.seats.iter().cloned());
            due.push(k);
        }
        due
    }

    /// Game `k` is being played at `table`.
    pub fn started(&mut self, k: usize, table: TableId) {
        self.set(k, Progress::Playing(table));
    }

    /// Game `k` will not be played.
    pub fn skip(&mut self, k: usize) {
        self.set(k, Progress::Skipped);
    }

    /// The games being played: (game, table).
    pub fn playing(&self) -> Vec<(usize, TableId)> {
        self.games
            .iter()
            .enumerate()
            .filter_map(|(k, (_, p))| match p {
                Progress::Playing(t) => Some((k, *t)),
                _ => None,
            })
            .collect()
    }

    /// Game `k` is over.
    pub fn over(&mut self, k: usize) {
        self.set(k, Progress::Over);
    }

    /// Whether every game is over or skipped.
    pub fn done(&self) -> bool {
        self.games
            .iter()
            .all(|(_, p)| matches!(p, Progress::Over | Progress::Skipped))
    }

    /// How many games were played and how many skipped.
    pub fn tally(&self) -> (usize, usize) {
        let played = self
            .games
            .iter()
            .filter(|(_, p)| *p == Progress::Over)
            .count();
        let skipped = self
            .games
            .iter()
            .filter(|(_, p)| *p == Progress::Skipped)
            .count();
        (played, skipped)
    }

    fn set(&mut self, k: usize, progress: Progress) {
        if let Some((_, p)) = self.games.get_mut(k) {
            *p = progress;
        }
    }
}

/// How long the entrants must stay the same before a round starts: bots
/// that connect together (at an arena's start, after a server's restart)
/// enter the same round, not the first two alone.
const GATHER: Duration = Duration::from_secs(2);

/// The entrants seen, and when the last one arrived.
#[derive(Debug, Default)]
pub struct Gathering {
    seen: HashSet<String>,
    last_arrival: Option<Instant>,
}

impl Gathering {
    /// The entrants present at `now`: one not there at the last look
    /// (new, or back) is an arrival.
    pub fn see(&mut self, present: &[String], now: Instant) {
        let present: HashSet<String> = present.iter().cloned().collect();
        if present.iter().any(|name| !self.seen.contains(name)) {
            self.last_arrival = Some(now);
        }
        self.seen = present;
    }

    /// Whether nobody arrived in the last [`GATHER`] before `now`.
    pub fn settled(&self, now: Instant) -> bool {
        self.last_arrival
            .is_none_or(|t| now.saturating_duration_since(t) >= GATHER)
    }
}

/// A deal's seed: the server's fixed seed when a test set one, else a
/// random one.
fn deal(shared: &Shared) -> u64 {
    if let Some(seed) = shared.config.fixed_seed {
        return seed;
    }
    let mut bytes = [0u8; 8];
    match getrandom::fill(&mut bytes) {
        Ok(()) => u64::from_le_bytes(bytes),
        // Without the system's randomness, the clock's nanoseconds still
        // give every pair a deal of its own.
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64),
    }
}

/// The entrants present: the bots connected here with `arena` in their
/// hello, by name.
fn entrants(shared: &Shared) -> Vec<String> {
    shared
        .bots()
        .into_iter()
        .filter(|b| b.arena)
        .map(|b| b.name)
        .collect()
}

/// Notes that the arena's rounds up to `round` are over.
fn over(shared: &Shared, round: u32) {
    shared
        .arena_rounds_over
        .fetch_max(round, std::sync::atomic::Ordering::SeqCst);
}

/// Whether the record of arena game `table` (its deal's seed, every
/// hand) may be shown: both games of a pair are dealt from one seed, so
/// the first game's record would show a bot every card of the second.
/// It may once its pair's two games are over, or once its round is (a
/// pair whose second game was skipped). The instance that runs the arena
/// knows which rounds are over; another one on the same database takes
/// every round before the last stored one as over.
pub async fn shown(shared: &Shared, table: TableId, tag: &ArenaTag) -> Result<bool, StoreError> {
    let running = shared
        .config
        .arena
        .as_ref()
        .is_some_and(|a| arena_id(&a.rules) == tag.arena);
    if running && shared.config.arena_fresh_deals {
        return Ok(true);
    }
    if running
        && tag.round
            <= shared
                .arena_rounds_over
                .load(std::sync::atomic::Ordering::SeqCst)
    {
        return Ok(true);
    }
    let games = shared.store.arena_games(&tag.arena).await?;
    let last = games.iter().map(|g| g.round).max().unwrap_or(0);
    if !running && tag.round < last {
        return Ok(true);
    }
    let bots = |g: &ArenaGameRow| {
        let mut names: Vec<String> = g.seats.iter().map(|s| s.name.clone()).collect();
        names.sort();
        names
    };
    let Some(this) = games.iter().find(|g| g.table == table) else {
        return Ok(false);
    };
    let pair = bots(this);
    let played = games
        .iter()
        .filter(|g| g.round == tag.round && bots(g) == pair)
        .count();
    Ok(played >= 2)
}

/// The round the arena goes on with: the one after the last stored.
async fn next_round(shared: &Shared, arena: &str) -> Result<u32, StoreError> {
    let games = shared.store.arena_games(arena).await?;
    Ok(games.iter().map(|g| g.round).max().unwrap_or(0) + 1)
}

/// Runs the arena of `shared.config.arena` until `stop` is notified (or
/// for ever, if the server runs none: the task then ends at once).
pub async fn run(shared: Arc<Shared>, stop: Arc<Notify>) {
    let Some(config) = shared.config.arena.clone() else {
        return;
    };
    let arena = arena_id(&config.rules);
    // Made once and enabled, so that a stop notified while the task is
    // busy (not awaiting it) is not missed.
    let stopped = stop.notified();
    tokio::pin!(stopped);
    stopped.as_mut().enable();
    let mut number = loop {
        match next_round(&shared, &arena).await {
            Ok(n) => break n,
            Err(e) => {
                tracing::warn!(arena, error = %e, "cannot read the arena's games");
                tokio::select! {
                    () = tokio::time::sleep(RETRY) => {}
                    () = &mut stopped => return,
                }
            }
        }
    };
    tracing::info!(arena, round = number, "the arena opens");
    // The rounds before (stored by an earlier run) are over.
    over(&shared, number - 1);
    let mut gathering = Gathering::default();
    loop {
        if config.rounds != 0 && number > config.rounds {
            tracing::info!(arena, rounds = config.rounds, "the arena played its rounds");
            return;
        }
        // A round needs two entrants, and starts once none has arrived
        // for a moment.
        let present = loop {
            let present = entrants(&shared);
            gathering.see(&present, Instant::now());
            if present.len() >= 2 && gathering.settled(Instant::now()) {
                break present;
            }
            tokio::select! {
                () = tokio::time::sleep(POLL) => {}
                () = &mut stopped => return,
            }
        };
        let fresh = shared.config.arena_fresh_deals;
        let mut round = Round::new(number, &present, fresh, || deal(&shared));
        tracing::info!(
            arena,
            round = number,
            entrants = present.len(),
            games = round.games().len(),
            "an arena round starts"
        );
        let mut not_before = Instant::now();
        while !round.done() {
            step(&shared, &arena, &config.rules, &mut round, &mut not_before).await;
            gathering.see(&entrants(&shared), Instant::now());
            if round.done() {
                break;
            }
            tokio::select! {
                () = tokio::time::sleep(POLL) => {}
                () = &mut stopped => return,
            }
        }
        let (played, skipped) = round.tally();
        tracing::info!(
            arena,
            round = number,
            played,
            skipped,
            "an arena round is over"
        );
        if played == 0 {
            // Nothing was played (every pair lost a bot, or no table
            // would open): the number is used again, after a pause, so
            // that no run of empty rounds spins.
            tokio::select! {
                () = tokio::time::sleep(RETRY) => {}
                () = &mut stopped => return,
            }
        } else {
            over(&shared, number);
            number += 1;
        }
    }
}

/// One look at a round: the games over are marked, those whose bots are
/// free are opened.
async fn step(
    shared: &Arc<Shared>,
    arena: &str,
    rules: &str,
    round: &mut Round,
    not_before: &mut Instant,
) {
    for (k, table) in round.playing() {
        // Over when its summary says so, or when the table is gone (its
        // actor ended); no lock is held past this line.
        let over = shared.table(table).is_none_or(|h| {
            h.summary
                .lock()
                .map_or(true, |s| s.status == TableStatus::Over)
        });
        if over {
            round.over(k);
        }
    }
    if Instant::now() < *not_before {
        return;
    }
    let present: HashSet<String> = entrants(shared).into_iter().collect();
    let ours: HashSet<TableId> = round.playing().into_iter().map(|(_, t)| t).collect();
    let elsewhere = playing_elsewhere(shared, arena, &ours);
    for k in round.due(&present, &elsewhere) {
        let Some((pairing, _)) = round.games().get(k).cloned() else {
            continue;
        };
        let create = CreateTable {
            game: GameKind::Mille,
            setup: setup(rules),
            seats: pairing
                .seats
                .iter()
                .map(|name| SeatRequest::Bot { name: name.clone() })
                .collect(),
            private: false,
            sit: None,
            rated: Some(true),
            bots: false,
        };
        let tag = ArenaTag {
            arena: arena.to_string(),
            round: round.number,
        };
        match crate::conn::open_table(shared, create, "arena", Some(tag), Some(pairing.seed)).await
        {
            Ok((summary, _)) => {
                tracing::info!(
                    arena,
                    round = round.number,
                    table = summary.id,
                    first = pairing.seats[0],
                    second = pairing.seats[1],
                    "an arena game starts"
                );
                round.started(k, summary.id);
            }
            // A bot that left between the look and the opening: the pair
            // is not played.
            Err((ErrorCode::BadSetup, why)) => {
                tracing::info!(arena, round = round.number, why, "an arena game is skipped");
                round.skip(k);
            }
            // The server is busy: tried again a little later.
            Err((_, why)) => {
                tracing::warn!(
                    arena,
                    round = round.number,
                    why,
                    "cannot open an arena table"
                );
                *not_before = Instant::now() + RETRY;
                return;
            }
        }
    }
}

/// The bots seated at this arena's unfinished tables other than `ours`:
/// games an earlier run left, restored with the server, which their bots
/// play before any other.
fn playing_elsewhere(shared: &Shared, arena: &str, ours: &HashSet<TableId>) -> HashSet<String> {
    shared
        .list("")
        .into_iter()
        .filter(|t| {
            t.arena.as_deref() == Some(arena)
                && t.status != TableStatus::Over
                && !ours.contains(&t.id)
        })
        .flat_map(|t| t.seats.into_iter().filter_map(|s| s.player))
        .collect()
}

/// One bot's line in the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Standing {
    /// Its place, from 1: bots level on wins and points share one (1, 2,
    /// 2, 4).
    pub place: usize,
    /// The bot.
    pub name: String,
    /// Who runs it (filled by [`document`], which reads it).
    pub owner: Option<String>,
    /// Arena games it played to their end (forfeits included).
    pub games: u32,
    /// Games it won.
    pub wins: u32,
    /// Games it did not win.
    pub losses: u32,
    /// Games it lost by forfeit (an illegal move, a timeout, its
    /// connection closed, …).
    pub forfeits: u32,
    /// The sum of its game scores.
    pub points: i64,
    /// Its rating in the arena's category, if it has one.
    pub rating: Option<RatingBrief>,
}

/// The standings from the arena's games: per bot its games, wins, losses,
/// forfeits and points, with its rating from `ratings` (by name); best
/// first: most wins, then most points, then by name.
pub fn standings(games: &[ArenaGameRow], ratings: &HashMap<String, RatingBrief>) -> Vec<Standing> {
    let mut by_name: HashMap<&str, Standing> = HashMap::new();
    for game in games {
        for (seat, s) in game.seats.iter().enumerate() {
            let line = by_name.entry(s.name.as_str()).or_insert_with(|| Standing {
                place: 0,
                name: s.name.clone(),
                owner: None,
                games: 0,
                wins: 0,
                losses: 0,
                forfeits: 0,
                points: 0,
                rating: ratings.get(&s.name).copied(),
            });
            line.games += 1;
            if s.won {
                line.wins += 1;
            } else {
                line.losses += 1;
            }
            if game.forfeit.as_ref().is_some_and(|f| f.seat == seat) {
                line.forfeits += 1;
            }
            line.points += s.score;
        }
    }
    let mut lines: Vec<Standing> = by_name.into_values().collect();
    lines.sort_by(|a, b| {
        b.wins
            .cmp(&a.wins)
            .then(b.points.cmp(&a.points))
            .then_with(|| a.name.cmp(&b.name))
    });
    place(&mut lines);
    lines
}

/// Numbers `lines`, in their order, from 1: bots level on wins and points
/// share a place (1, 2, 2, 4).
fn place(lines: &mut [Standing]) {
    for k in 0..lines.len() {
        let level =
            k > 0 && lines[k - 1].wins == lines[k].wins && lines[k - 1].points == lines[k].points;
        lines[k].place = if level { lines[k - 1].place } else { k + 1 };
    }
}

/// A seat of an arena game, as `/api/arena` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameSeat {
    /// The bot.
    pub name: String,
    /// Its score.
    pub score: i64,
    /// Whether it won.
    pub won: bool,
}

/// A forfeit, as `/api/arena` says it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameForfeit {
    /// The seat that lost by it.
    pub seat: usize,
    /// Why.
    pub reason: String,
}

/// An arena game, as `/api/arena` lists it (its replay is at
/// `/games/TABLE`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Game {
    /// The table.
    pub table: TableId,
    /// Its replay's page (`/games/TABLE`).
    pub url: String,
    /// Its round.
    pub round: u32,
    /// Its seats in order.
    pub seats: Vec<GameSeat>,
    /// Set when a bot lost it by forfeit.
    pub forfeit: Option<GameForfeit>,
}

/// The arena as `/api/arena` serves it (and `/arena` shows it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Document {
    /// The arena's id (`mille-classic`).
    pub arena: String,
    /// Its name in words ("Mille Bornes arena: classic, 2 players").
    pub title: String,
    /// The rounds that have finished games (the last one may be under
    /// way).
    pub rounds: u32,
    /// Whether every game is dealt afresh (`--arena-fresh-deals`) rather
    /// than each pair's two games on one deal.
    pub fresh_deals: bool,
    /// The standings, best first.
    pub standings: Vec<Standing>,
    /// Its games, newest first.
    pub games: Vec<Game>,
}

/// The arena this server runs, its standings and games; `None` when it
/// runs none (`/api/arena` then answers 404).
pub async fn document(shared: &Shared) -> Result<Option<Document>, StoreError> {
    let Some(config) = &shared.config.arena else {
        return Ok(None);
    };
    let arena = arena_id(&config.rules);
    let setup = setup(&config.rules);
    let rows = shared.store.arena_games(&arena).await?;
    let names: Vec<String> = {
        let mut seen: Vec<String> = rows
            .iter()
            .flat_map(|g| g.seats.iter().map(|s| s.name.clone()))
            .collect();
        seen.sort();
        seen.dedup();
        seen
    };
    let mut ratings = HashMap::new();
    let category = Mille::setup(&setup)
        .ok()
        .and_then(|s| Mille::category(&s, 2));
    if let Some(category) = category
        && !names.is_empty()
    {
        let now = crate::ratings::now();
        for row in shared.store.ratings(category, names).await? {
            let brief = crate::ratings::brief(crate::ratings::current(&row, now));
            ratings.insert(row.name, brief);
        }
    }
    let mut standings = standings(&rows, &ratings);
    for line in &mut standings {
        line.owner = shared.store.bot_info(&line.name).await?.map(|b| b.owner);
    }
    // The store gives them newest first.
    let games = rows
        .iter()
        .map(|g| Game {
            table: g.table,
            url: format!("/games/{}", g.table),
            round: g.round,
            seats: g
                .seats
                .iter()
                .map(|s| GameSeat {
                    name: s.name.clone(),
                    score: s.score,
                    won: s.won,
                })
                .collect(),
            forfeit: g.forfeit.as_ref().map(|f| GameForfeit {
                seat: f.seat,
                reason: f.reason.clone(),
            }),
        })
        .collect();
    Ok(Some(Document {
        title: format!(
            "Mille Bornes arena: {}",
            crate::games::ruleset_words(GameKind::Mille, &setup, 2)
        ),
        arena,
        rounds: rows.iter().map(|g| g.round).max().unwrap_or(0),
        fresh_deals: shared.config.arena_fresh_deals,
        standings,
        games,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn set(list: &[&str]) -> HashSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn round(entrants: &[&str]) -> Round {
        let mut next = 100;
        Round::new(1, &names(entrants), false, || {
            next += 1;
            next
        })
    }

    #[test]
    fn fresh_deals_give_every_game_its_own() {
        let mut next = 100;
        let r = Round::new(1, &names(&["a", "b", "c"]), true, || {
            next += 1;
            next
        });
        let seeds: HashSet<u64> = r.games().iter().map(|(p, _)| p.seed).collect();
        assert_eq!(seeds.len(), 6, "{:?}", r.games());
    }

    #[test]
    fn every_pair_plays_two_games_on_one_deal_with_the_seats_swapped() {
        let r = round(&["a", "b", "c"]);
        let games: Vec<&Pairing> = r.games().iter().map(|(p, _)| p).collect();
        assert_eq!(games.len(), 6);
        for pair in [["a", "b"], ["a", "c"], ["b", "c"]] {
            let there = |x: &str, y: &str| {
                games
                    .iter()
                    .find(|p| p.seats[0] == x && p.seats[1] == y)
                    .map(|p| p.seed)
            };
            let first = there(pair[0], pair[1]).expect("first game");
            let second = there(pair[1], pair[0]).expect("seats swapped");
            assert_eq!(first, second, "{pair:?} on one deal");
        }
        let seeds: HashSet<u64> = games.iter().map(|p| p.seed).collect();
        assert_eq!(seeds.len(), 3, "a deal per pair");
        assert!(round(&["a"]).games().is_empty());
    }

    #[test]
    fn a_bot_plays_one_game_at_a_time_and_the_next_starts_when_both_are_free() {
        let mut r = round(&["a", "b", "c", "d"]);
        let all = set(&["a", "b", "c", "d"]);
        let none = HashSet::new();
        let due = r.due(&all, &none);
        // Two games at once among four bots, no bot in both.
        assert_eq!(due.len(), 2);
        let seated: Vec<&String> = due
            .iter()
            .flat_map(|&k| r.games()[k].0.seats.iter())
            .collect();
        let distinct: HashSet<&String> = seated.iter().copied().collect();
        assert_eq!(distinct.len(), 4);
        for (n, &k) in due.iter().enumerate() {
            r.started(k, n as TableId + 1);
        }
        assert!(r.due(&all, &none).is_empty(), "every bot is busy");
        // One game ends: its two bots are free, but each other bot is
        // still playing, so only a game between those two may start.
        let (k, _) = r.playing()[0];
        let freed = r.games()[k].0.seats.clone();
        r.over(k);
        let next = r.due(&all, &none);
        for k in &next {
            let seats = &r.games()[*k].0.seats;
            assert!(seats.iter().all(|s| freed.contains(s)), "{seats:?}");
        }
        assert_eq!(next.len(), 1, "the pair's other game");
        assert!(!r.done());
    }

    #[test]
    fn a_pair_whose_bot_left_is_skipped_and_the_round_ends() {
        let mut r = round(&["a", "b", "c"]);
        let none = HashSet::new();
        let due = r.due(&set(&["a", "b", "c"]), &none);
        assert_eq!(due.len(), 1);
        r.started(due[0], 7);
        let playing = r.games()[due[0]].0.seats.clone();
        // The bot not playing leaves: its games are skipped, the one being
        // played goes on.
        let gone = ["a", "b", "c"]
            .into_iter()
            .find(|b| !playing.iter().any(|p| p == b))
            .expect("a bot not playing");
        let left: HashSet<String> = playing.iter().cloned().collect();
        assert!(r.due(&left, &none).is_empty(), "the playing pair is busy");
        let skipped = r
            .games()
            .iter()
            .filter(|(p, s)| *s == Progress::Skipped && p.seats.iter().any(|b| b == gone))
            .count();
        assert_eq!(skipped, 4, "both games of both of its pairs");
        r.over(due[0]);
        let last = r.due(&left, &none);
        assert_eq!(last.len(), 1, "the pair's second game");
        r.started(last[0], 8);
        r.over(last[0]);
        assert!(r.done());
        assert_eq!(r.tally(), (2, 4));
    }

    #[test]
    fn a_round_starts_once_no_entrant_has_arrived_for_a_moment() {
        let t0 = Instant::now();
        let mut g = Gathering::default();
        assert!(g.settled(t0));
        g.see(&names(&["a", "b"]), t0);
        assert!(!g.settled(t0 + GATHER / 2));
        // A third arrives: the wait starts again from it.
        g.see(&names(&["a", "b", "c"]), t0 + GATHER / 2);
        assert!(!g.settled(t0 + GATHER));
        assert!(g.settled(t0 + GATHER / 2 + GATHER));
        // One leaving is no arrival; one coming back is.
        g.see(&names(&["a", "b"]), t0 + GATHER * 2);
        assert!(g.settled(t0 + GATHER * 2));
        g.see(&names(&["a", "b", "c"]), t0 + GATHER * 3);
        assert!(!g.settled(t0 + GATHER * 3));
    }

    #[test]
    fn a_bot_still_at_an_earlier_arena_game_waits_for_it_to_end() {
        let mut r = round(&["a", "b", "c"]);
        let all = set(&["a", "b", "c"]);
        // a is at a table a restarted server left unfinished.
        let due = r.due(&all, &set(&["a"]));
        assert_eq!(due.len(), 1);
        assert_eq!(
            r.games()[due[0]].0.seats,
            ["b".to_string(), "c".to_string()]
        );
    }

    fn game(table: TableId, seats: [(&str, i64, bool); 2], forfeit: Option<usize>) -> ArenaGameRow {
        ArenaGameRow {
            table,
            round: 1,
            finished_at: table as i64,
            seats: seats
                .iter()
                .map(|(name, score, won)| crate::store::ArenaSeat {
                    name: name.to_string(),
                    score: *score,
                    won: *won,
                })
                .collect(),
            forfeit: forfeit.map(|seat| crate::store::Forfeit {
                seat,
                reason: "sent an illegal move: no".into(),
            }),
        }
    }

    #[test]
    fn standings_count_wins_losses_forfeits_and_points_best_first() {
        let games = [
            game(1, [("a", 700, false), ("b", 2100, true)], None),
            game(2, [("b", 900, false), ("a", 1800, true)], None),
            game(3, [("a", 5000, true), ("c", 100, false)], None),
            // c lost this one by forfeit, its score as it stood.
            game(4, [("c", 300, false), ("a", 0, true)], Some(0)),
            game(5, [("b", 4000, true), ("c", 50, false)], Some(1)),
        ];
        let brief = RatingBrief {
            rating: 1612,
            deviation: 80,
            provisional: false,
        };
        let ratings = HashMap::from([("a".to_string(), brief)]);
        let lines = standings(&games, &ratings);
        let line = |place, name, games, wins, losses, forfeits, points, rating| Standing {
            place,
            name: String::from(name),
            owner: None,
            games,
            wins,
            losses,
            forfeits,
            points,
            rating,
        };
        assert_eq!(
            lines,
            vec![
                line(1, "a", 4, 3, 1, 0, 7500, Some(brief)),
                line(2, "b", 3, 2, 1, 0, 7000, None),
                line(3, "c", 3, 0, 3, 2, 450, None),
            ]
        );
        assert!(standings(&[], &ratings).is_empty());
    }

    #[test]
    fn bots_level_on_wins_and_points_share_a_place() {
        let line = |name: &str, wins, points| Standing {
            place: 0,
            name: name.into(),
            owner: None,
            games: 4,
            wins,
            losses: 4 - wins,
            forfeits: 0,
            points,
            rating: None,
        };
        let mut lines = [
            line("a", 3, 9000),
            line("b", 2, 7000),
            line("c", 2, 7000),
            line("d", 2, 6000),
            line("e", 0, 100),
        ];
        place(&mut lines);
        let places: Vec<usize> = lines.iter().map(|l| l.place).collect();
        assert_eq!(places, vec![1, 2, 2, 4, 5]);
        place(&mut []);
    }

    #[test]
    fn equal_wins_are_ordered_by_points_then_by_name() {
        let games = [
            game(1, [("x", 1000, true), ("y", 900, false)], None),
            game(2, [("y", 1200, true), ("x", 100, false)], None),
            game(3, [("w", 500, true), ("z", 500, true)], None),
        ];
        let order: Vec<String> = standings(&games, &HashMap::new())
            .into_iter()
            .map(|s| s.name)
            .collect();
        // y and x one win each, y more points; w and z tied, by name.
        assert_eq!(order, ["y", "x", "w", "z"]);
    }

    #[test]
    fn the_arena_is_named_after_its_rules() {
        assert_eq!(arena_id("classic"), "mille-classic");
        assert_eq!(setup("bsd"), json!({"rules": "bsd", "players": 2}));
    }
}
