//! The options Mile Bones players set once: their name, auto-sort and the
//! mouse play method, kept as JSON in the data directory.

use crate::{StoreError, write_json};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How cards are played with the mouse.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MouseMethod {
    /// Click a card, then click where it goes.
    #[default]
    ClickClick,
    /// Press on a card, drag it and release it where it goes.
    DragAndDrop,
}

impl MouseMethod {
    /// How the method is named on screen.
    pub const fn label(self) -> &'static str {
        match self {
            MouseMethod::ClickClick => "click card, click where",
            MouseMethod::DragAndDrop => "drag and drop",
        }
    }
    /// The other method.
    pub const fn toggled(self) -> MouseMethod {
        match self {
            MouseMethod::ClickClick => MouseMethod::DragAndDrop,
            MouseMethod::DragAndDrop => MouseMethod::ClickClick,
        }
    }
}

/// The persisted options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Options {
    /// The player's name for the high-score table (asked once).
    pub name: Option<String>,
    /// Keep the hand sorted.
    pub auto_sort: bool,
    /// How the mouse plays cards.
    pub mouse: MouseMethod,
    /// The score window shows the end-of-game rows instead of the command
    /// list (the W command; BSD recommends it "for hackers").
    pub bonus_window: bool,
}

/// File name of the options in the data directory.
pub const OPTIONS_FILE: &str = "options.json";

impl Options {
    /// The options file in `dir`.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(OPTIONS_FILE)
    }

    /// Reads the options from `dir`; defaults when there is no file yet.
    pub fn load(dir: &Path) -> Result<Options, StoreError> {
        let path = Self::path(dir);
        // Bytes, not a string: a file that is not UTF-8 is damaged, like
        // one that is not JSON, rather than unreadable.
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| StoreError::BadOptions {
                path,
                why: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Options::default()),
            Err(source) => Err(StoreError::Io {
                what: "cannot read",
                path,
                source,
            }),
        }
    }

    /// Writes the options to `dir` atomically (temporary file, fsync,
    /// rename, fsync of the directory).
    pub fn save(&self, dir: &Path) -> Result<(), StoreError> {
        write_json(&Self::path(dir), self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_round_trip_and_default() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        assert_eq!(Options::load(dir.path())?, Options::default());
        let o = Options {
            name: Some("Ana".into()),
            auto_sort: true,
            mouse: MouseMethod::DragAndDrop,
            bonus_window: true,
        };
        o.save(dir.path())?;
        assert_eq!(Options::load(dir.path())?, o);
        // A file from before an option existed still loads, with its default.
        std::fs::write(
            Options::path(dir.path()),
            r#"{"name":"Bo","auto_sort":true}"#,
        )?;
        let old = Options::load(dir.path())?;
        assert_eq!(
            (old.name.as_deref(), old.auto_sort, old.bonus_window),
            (Some("Bo"), true, false)
        );
        std::fs::write(Options::path(dir.path()), "{{")?;
        assert!(Options::load(dir.path()).is_err());
        Ok(())
    }

    #[test]
    fn options_that_are_not_utf8_are_damaged_not_unreadable()
    -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        std::fs::write(Options::path(dir.path()), b"{\"name\":\"\x80\"}")?;
        let e = Options::load(dir.path()).expect_err("not UTF-8");
        assert!(matches!(e, StoreError::BadOptions { .. }), "{e}");
        assert!(e.to_string().contains("is damaged"), "{e}");
        Ok(())
    }
}
