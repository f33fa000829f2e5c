//! Storage for the dice game `cubes`: the score file (every game's results
//! in SQLite, through `game-store`, in the user's data directory), the list
//! of who is playing now, and the texts of `cubes rank` (cuberank) and
//! `cubes stat` (cubestat) made from it.
//!
//! Nothing here decides a rule: the kinds of game are the engine's
//! [`cubes_engine::Settings`], recorded by name.

pub mod scores;

pub use scores::{
    GameResult, MIGRATIONS, PlayerResult, Ranked, Recent, SCORES_FILE, ScoreFile, format_time,
    rank_text, stat_text,
};

/// What can go wrong with the score file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The data directory could not be found or created.
    #[error("finding the cubes data directory")]
    DataDir(#[source] game_store::StoreError),
    /// The score file could not be opened, created or upgraded.
    #[error("opening the score file {path}")]
    Open {
        /// The score file.
        path: std::path::PathBuf,
        /// The cause.
        #[source]
        source: game_store::StoreError,
    },
    /// Reading or writing the score file failed.
    #[error("reading or writing the score file {path} failed")]
    Db {
        /// The score file.
        path: std::path::PathBuf,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },
}
