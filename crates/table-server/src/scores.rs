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

/// What a client is told when the scores cannot be read.
const BUSY: &str = "the server cannot do that now: try again later";

/// Keeps a finished game's scores.
pub async fn record<G: ServerGame>(
    shared: &Shared,
    state: G::State,
    people: Vec<SeatInfo>,
) -> Result<(), String> {
    let Some(record) = G::score(&state, &people) else {
        return Ok(());
    };
    if shared.store.shared() {
        return shared
            .store
            .add_score(G::KIND, record.to_string())
            .await
            .map_err(|e| e.to_string());
    }
    let data = shared.config.data.clone();
    tokio::task::spawn_blocking(move || G::write_score(&record, &data))
        .await
        .map_err(|e| e.to_string())?
}

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
    tokio::task::spawn_blocking(move || {
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
    .map_err(|e| e.to_string())?
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
