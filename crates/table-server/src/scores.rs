//! Finished games' scores and the rankings people ask for. A server alone
//! (SQLite) writes them to each game's own score file in its data
//! directory, which `mille --scores` and `cubes rank` read too; instances
//! sharing PostgreSQL keep the same records in the database, and rank them
//! with the same code, in a scratch directory, when asked.

use crate::Shared;
use crate::games::{CUBES_SCORES, MILLE_SCORES, ServerGame};
use cubes_engine::Cubes;
use game_table::SeatInfo;
use mille_engine::Mille;
use std::path::Path;
use table_protocol::GameKind;

/// Which rankings: the game, the kind of game, the fewest games to be
/// ranked.
pub type RankingsKey = (GameKind, String, u32);

/// What a client is told when the scores cannot be read.
const BUSY: &str = "the server cannot do that now: try again later";

/// A finished game's score record, for the database (with the table's
/// results, in one transaction) when the database is shared, and `None`
/// for a server alone, which writes its score files ([`write`]).
pub fn for_database<G: ServerGame>(
    shared: &Shared,
    state: &G::State,
    people: &[SeatInfo],
    abandoned: &[bool],
) -> Option<(GameKind, String)> {
    if !shared.store.shared() {
        return None;
    }
    G::score(state, people, abandoned).map(|r| (G::KIND, r.to_string()))
}

/// Writes a finished game to the game's score file in the data directory,
/// when the server is alone.
pub async fn write<G: ServerGame>(
    shared: &Shared,
    state: G::State,
    people: Vec<SeatInfo>,
    abandoned: Vec<bool>,
) -> Result<(), String> {
    if shared.store.shared() {
        return Ok(());
    }
    let Some(record) = G::score(&state, &people, &abandoned) else {
        return Ok(());
    };
    let data = shared.config.data.clone();
    tokio::task::spawn_blocking(move || G::write_score(&record, &data))
        .await
        .map_err(|e| e.to_string())?
}

/// The most rankings kept made (with a shared database).
pub const RANKINGS_CACHED: usize = 16;

/// The rankings of `game` as its score tools print them.
pub async fn rankings(
    shared: &Shared,
    game: GameKind,
    kind: Option<String>,
    min_games: u32,
) -> Result<String, String> {
    let kind = kind.unwrap_or_else(|| cubes_engine::Settings::standard().name);
    if !shared.store.shared() {
        let data = shared.config.data.clone();
        return tokio::task::spawn_blocking(move || text(game, &data, &kind, min_games))
            .await
            .map_err(|e| e.to_string())?;
    }
    let records = shared.store.scores(game).await.map_err(|e| {
        tracing::error!(error = %e, "cannot read the scores");
        BUSY.to_string()
    })?;
    // Mille Bornes has one table whatever the kind asked.
    let key_kind = if game == GameKind::Mille {
        String::new()
    } else {
        kind.clone()
    };
    let key = (game, key_kind, min_games);
    if let Ok(cache) = shared.rankings.lock()
        && let Some((count, text)) = cache.get(&key)
        && *count == records.len()
    {
        return Ok(text.clone());
    }
    let count = records.len();
    let text = tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().map_err(|e| {
            tracing::error!(error = %e, "no scratch directory for the rankings");
            BUSY.to_string()
        })?;
        for record in &records {
            let written = serde_json::from_str(record)
                .map_err(|e| e.to_string())
                .and_then(|r| match game {
                    GameKind::Mille => Mille::write_score(&r, dir.path()),
                    GameKind::Cubes => Cubes::write_score(&r, dir.path()),
                });
            if let Err(e) = written {
                // One record a newer server wrote is left out, not fatal.
                tracing::warn!(error = %e, "a score record cannot be read");
            }
        }
        text(game, dir.path(), &kind, min_games)
    })
    .await
    .map_err(|e| e.to_string())??;
    if let Ok(mut cache) = shared.rankings.lock() {
        // The key is the client's words: however many it sends, the cache
        // keeps a few (started over when full; the usual ones come back at
        // once).
        if cache.len() >= RANKINGS_CACHED && !cache.contains_key(&key) {
            cache.clear();
        }
        cache.insert(key, (count, text.clone()));
    }
    Ok(text)
}

/// The rankings from the score files in `dir`.
fn text(game: GameKind, dir: &Path, kind: &str, min_games: u32) -> Result<String, String> {
    if game == GameKind::Mille {
        if !dir.join(MILLE_SCORES).exists() {
            return Ok(mille_store::HighScores::default().to_text());
        }
        return mille_store::ScoreDb::open(dir)
            .and_then(|db| db.high_scores())
            .map(|h| h.to_text())
            .map_err(|e| {
                tracing::error!(error = %e, "cannot read the mille high scores");
                BUSY.to_string()
            });
    }
    let path = dir.join(CUBES_SCORES);
    if !path.exists() {
        return Ok(String::from(
            "No games have been played on this server yet.\n",
        ));
    }
    let file = cubes_store::ScoreFile::open_to_read(&path).map_err(|e| {
        tracing::error!(error = %e, "cannot read the cubes score file");
        BUSY.to_string()
    })?;
    cubes_store::rank_text(&file, kind, min_games).map_err(|e| {
        tracing::error!(error = %e, "cannot rank");
        BUSY.to_string()
    })
}
