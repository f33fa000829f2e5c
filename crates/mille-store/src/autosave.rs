//! The autosave: the game in progress kept in the data directory when
//! `mille` is ended from outside (the terminal closed, `kill`, Ctrl-C), so
//! that the next start can offer to resume it. It is an ordinary save file
//! ([`SaveFile`]), written atomically like any save, under a fixed name.

use crate::StoreError;
use crate::save::{SaveError, SaveFile};
use mille_engine::State;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The autosave's file name in the data directory.
pub const AUTOSAVE_FILE: &str = "autosave.mille";

/// The autosave of one data directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Autosave {
    path: PathBuf,
}

impl Autosave {
    /// The autosave kept in the data directory `dir`.
    pub fn in_dir(dir: &Path) -> Autosave {
        Autosave {
            path: dir.join(AUTOSAVE_FILE),
        }
    }

    /// Where it is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// When the kept game was interrupted (the file's time), if a game is
    /// kept.
    pub fn interrupted_at(&self) -> Option<SystemTime> {
        let meta = std::fs::metadata(&self.path).ok()?;
        if !meta.is_file() {
            return None;
        }
        Some(meta.modified().unwrap_or(SystemTime::UNIX_EPOCH))
    }

    /// Keeps `save` as the interrupted game, replacing any kept before.
    pub fn write(&self, save: &SaveFile) -> Result<(), SaveError> {
        save.write(&self.path)
    }

    /// Reads and checks the kept game, as [`SaveFile::load`] does.
    pub fn load(&self) -> Result<(SaveFile, State), SaveError> {
        SaveFile::load(&self.path)
    }

    /// Forgets the kept game (nothing to do if none is kept).
    pub fn remove(&self) -> Result<(), StoreError> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(StoreError::Io {
                what: "cannot remove",
                path: self.path.clone(),
                source,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::save::SaveSettings;
    use mille_engine::{Action, GameConfig, GameRecord};

    #[test]
    fn an_autosave_is_written_found_loaded_and_removed() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let auto = Autosave::in_dir(dir.path());
        assert_eq!(auto.interrupted_at(), None);
        let mut record = GameRecord::new(GameConfig::default(), 3);
        record.actions.push(Action::Draw);
        let save = SaveFile::new(
            record,
            SaveSettings {
                level: "classic".into(),
                player: "Ana".into(),
                sorted: true,
            },
        );
        auto.write(&save)?;
        assert!(auto.interrupted_at().is_some());
        assert_eq!(auto.load()?.0, save);
        auto.remove()?;
        assert_eq!(auto.interrupted_at(), None);
        // Removing what is not there is not an error.
        auto.remove()?;
        assert_eq!(std::fs::read_dir(dir.path())?.count(), 0);
        Ok(())
    }
}
