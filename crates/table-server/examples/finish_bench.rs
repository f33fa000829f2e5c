//! How long the end of a game takes in the server's database with a
//! rating update and without (a casual game): `Store::finish`, one game
//! after another, rated and casual in turn, on SQLite (a file in a
//! temporary directory, `synchronous=FULL` as the server runs it) and, when
//! given a PostgreSQL cluster, on a new database in it.
//!
//! ```text
//! cargo run --release -p table-server --example finish_bench -- [FINISHES] [POSTGRES_CLUSTER_URL]
//! ```
//!
//! FINISHES (2000 by default) of each kind; the cluster URL defaults to
//! `TABLE_SERVER_TEST_POSTGRES` (`eval "$(.ci/postgres start)"` sets it).
//! Prints the median and 99th percentile of each kind, in milliseconds.

use game_rating::Category;
use std::time::{Duration, Instant};
use table_protocol::{GameKind, TableId, TableStatus};
use table_server::store::{
    DatabaseUrl, FinishedGame, Instance, NewTable, SeatRow, Store, StoreError, create_database,
};

/// Players the games are drawn among: each rated game updates two rows
/// that exist already, as on a server with regulars.
const PLAYERS: usize = 50;

#[tokio::main]
async fn main() -> Result<(), StoreError> {
    let mut args = std::env::args().skip(1);
    let finishes: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(2000);
    let cluster = args
        .next()
        .or_else(|| std::env::var("TABLE_SERVER_TEST_POSTGRES").ok())
        .filter(|u| !u.is_empty());
    let dir = tempfile::tempdir().map_err(|e| StoreError::Corrupt(e.to_string()))?;
    let mut databases = vec![("SQLite", DatabaseUrl::Sqlite(dir.path().join("server.db")))];
    if let Some(cluster) = cluster {
        let name = format!("finish_bench_{}", std::process::id());
        databases.push((
            "PostgreSQL",
            DatabaseUrl::Postgres(create_database(&cluster, &name).await?),
        ));
    }
    println!("{finishes} finishes of each kind, one after another");
    for (label, url) in databases {
        let (casual, rated) = measure(&url, finishes).await?;
        for (kind, mut times) in [("casual", casual), ("rated", rated)] {
            times.sort();
            println!(
                "{label:10} {kind:6}  median {:.3} ms  p99 {:.3} ms",
                ms(percentile(&times, 50)),
                ms(percentile(&times, 99))
            );
        }
    }
    Ok(())
}

/// Times `finishes` casual and `finishes` rated ends of 2-player games,
/// in turn.
async fn measure(
    url: &DatabaseUrl,
    finishes: usize,
) -> Result<(Vec<Duration>, Vec<Duration>), StoreError> {
    let instance = Instance {
        id: "bench".into(),
        address: "ws://bench.invalid:8780".into(),
        lease: Duration::from_secs(3600),
    };
    let (store, _) = Store::open(url, instance).await?;
    for k in 0..PLAYERS {
        store.claim(&player(k), &format!("token-{k}")).await?;
    }
    let (mut casual, mut rated) = (Vec::new(), Vec::new());
    for k in 0..finishes {
        for is_rated in [false, true] {
            let (a, b) = (player(k % PLAYERS), player((k * 7 + 1) % PLAYERS));
            let (a, b) = if a == b {
                (a, player((k + 2) % PLAYERS))
            } else {
                (a, b)
            };
            let table = open(&store, &a, &b, is_rated).await?;
            let game = FinishedGame {
                results: vec![seat(&a, 0, k % 2 == 0), seat(&b, 1, k % 2 == 1)],
                score: None,
                category: is_rated.then_some(Category::MilleBsd),
                endings: Vec::new(),
                forfeit: None,
            };
            let start = Instant::now();
            let changes = store.finish(table, game).await?;
            let took = start.elapsed();
            if changes.len() != usize::from(is_rated) * 2 {
                return Err(StoreError::Corrupt(format!(
                    "a {} game changed {} ratings",
                    if is_rated { "rated" } else { "casual" },
                    changes.len()
                )));
            }
            if is_rated {
                rated.push(took);
            } else {
                casual.push(took);
            }
        }
    }
    Ok((casual, rated))
}

/// A table of `a` and `b` with its game on and a move made.
async fn open(store: &Store, a: &str, b: &str, rated: bool) -> Result<TableId, StoreError> {
    let table = store
        .create(NewTable {
            game: GameKind::Mille,
            setup: serde_json::Value::Null,
            seed: 1,
            code: None,
            levels: vec![None, None],
            rated,
            arena: None,
            bots_allowed: false,
            invited: Vec::new(),
        })
        .await?;
    store.set_owner(table, 0, Some(a.into())).await?;
    store.set_owner(table, 1, Some(b.into())).await?;
    store.set_status(table, TableStatus::Playing).await?;
    store
        .append(table, 1, Some(0), "draw".into(), Some(1), false)
        .await?;
    Ok(table)
}

fn player(k: usize) -> String {
    format!("player{k}")
}

fn seat(name: &str, side: usize, won: bool) -> SeatRow {
    SeatRow {
        name: name.into(),
        computer: false,
        score: if won { 5000 } else { 3000 },
        won,
        side,
        place: usize::from(!won),
        abandoned: false,
    }
}

/// The `p`th percentile of sorted times (nearest rank).
fn percentile(sorted: &[Duration], p: usize) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (sorted.len() * p).div_ceil(100).max(1);
    sorted[rank.min(sorted.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
