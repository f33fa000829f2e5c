//! Atomic file writes and the user's data directory, from the suite's
//! shared `game-store` crate.

use crate::StoreError;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory is written, flushed to disk (fsync) and renamed over `path`,
/// so a crash leaves either the old file or the new one, never half of one.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    Ok(game_store::atomic_write(path, bytes)?)
}

/// The directory where `mille` keeps its options and high scores:
/// `$GAMES_DATA_DIR/mille` if that variable is set, else the platform's
/// data directory (`$XDG_DATA_HOME/mille`, by default
/// `~/.local/share/mille`, on Linux). It is created if missing.
pub fn data_dir() -> Result<PathBuf, StoreError> {
    Ok(game_store::data_dir("mille")?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("a.json");
        atomic_write(&p, b"one")?;
        atomic_write(&p, b"two")?;
        assert_eq!(fs::read(&p)?, b"two");
        assert_eq!(fs::read_dir(dir.path())?.count(), 1);
        Ok(())
    }

    #[test]
    fn atomic_write_into_missing_dir_fails_cleanly() {
        if let Ok(dir) = tempfile::tempdir() {
            let p = dir.path().join("nope").join("a.json");
            assert!(atomic_write(&p, b"x").is_err());
        }
    }
}
