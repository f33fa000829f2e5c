//! Storage for the terminal game `mille`: versioned save files (the game
//! record plus settings, as pretty JSON, written atomically), the autosave
//! of an interrupted game, the persisted options, and the Mile Bones
//! high-score table kept in SQLite in the user's data directory.
//!
//! Nothing here decides a rule: a save file is checked by replaying its
//! record through the engine.

pub mod autosave;
pub mod fsutil;
pub mod options;
pub mod save;
pub mod scores;

pub use autosave::{AUTOSAVE_FILE, Autosave};
pub use fsutil::{atomic_write, data_dir, remove_stale_temporaries, write_json};
pub use options::{MouseMethod, Options};
pub use save::{SAVE_FORMAT, SAVE_VERSION, SaveError, SaveFile, SaveSettings};
pub use scores::{HighScore, HighScores, SCORES_FILE, ScoreDb, ScoreKind};

/// What can go wrong with the data directory, the options or the scores.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file could not be read.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The path.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The options file is not valid.
    #[error("the options file {path} is damaged: {why}")]
    BadOptions {
        /// The path.
        path: std::path::PathBuf,
        /// Why.
        why: String,
    },
    /// The shared storage layer failed (data directory, atomic write,
    /// database).
    #[error("{0}")]
    Shared(#[from] game_store::StoreError),
    /// A document could not be encoded, so nothing was written.
    #[error("cannot write {path}: its contents cannot be encoded as JSON ({source})")]
    Encode {
        /// The file that was to be written (and was left as it was).
        path: std::path::PathBuf,
        /// The encoder's complaint.
        source: serde_json::Error,
    },
    /// The score database failed.
    #[error("the high-score table {path}: {source}")]
    Db {
        /// The database path.
        path: std::path::PathBuf,
        /// The cause.
        source: rusqlite::Error,
    },
}
