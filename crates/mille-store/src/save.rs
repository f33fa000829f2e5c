//! Save files: a versioned, human-readable JSON document holding the game
//! record (rules, seed, every action) and the settings of the game.
//!
//! Loading checks everything (that the file exists, is complete JSON, is a
//! `mille` save, of a version this program reads, and that its record
//! replays under the rules) and says in one sentence what is wrong. Loading
//! never modifies the file.

use crate::fsutil::{encode_json, remove_stale_temporaries, write_json};
use mille_engine::{GameRecord, ReplayStep, State};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The `format` field every save file carries.
pub const SAVE_FORMAT: &str = "mille-save";
/// The newest save-file version this program writes and reads.
pub const SAVE_VERSION: u32 = 1;

/// Settings of a saved game besides its record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveSettings {
    /// The computer players' level (a `mille_ai::Level` id).
    pub level: String,
    /// The human player's name.
    pub player: String,
    /// Whether the hand was shown sorted.
    #[serde(default)]
    pub sorted: bool,
}

/// A saved game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveFile {
    /// Always [`SAVE_FORMAT`].
    pub format: String,
    /// The version of the layout, [`SAVE_VERSION`] when written by this
    /// program.
    pub version: u32,
    /// Which program wrote it (informative).
    #[serde(default)]
    pub written_by: String,
    /// The settings.
    pub settings: SaveSettings,
    /// The whole game so far.
    pub record: GameRecord,
}

/// Why a save file cannot be loaded or written. Each message is one
/// sentence for the player.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// No such file.
    #[error("there is no saved game at {0}")]
    Missing(PathBuf),
    /// The file could not be read.
    #[error("cannot read the saved game {path}: {source}")]
    Unreadable {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is empty (or only blank).
    #[error("{0} is empty: there is no saved game in it")]
    Empty(PathBuf),
    /// The file ends in the middle.
    #[error("the saved game {0} is truncated (it ends before the game does)")]
    Truncated(PathBuf),
    /// The file is not JSON.
    #[error("{path} is not a mille saved game: it is not a readable save document ({why})")]
    Corrupt {
        /// The path.
        path: PathBuf,
        /// The parser's complaint.
        why: String,
    },
    /// JSON, but not ours.
    #[error("{0} is not a mille saved game (it has no \"format\": \"mille-save\" field)")]
    Foreign(PathBuf),
    /// Written by a newer program.
    #[error(
        "{path} was saved by a newer version of mille (save format {version}; this mille reads up to {SAVE_VERSION}): please upgrade mille"
    )]
    Newer {
        /// The path.
        path: PathBuf,
        /// Its version.
        version: u64,
    },
    /// A version that never existed.
    #[error("{path} has an unknown save format version {version}")]
    BadVersion {
        /// The path.
        path: PathBuf,
        /// Its version.
        version: u64,
    },
    /// Our format, but fields are missing or wrong.
    #[error("the saved game {path} is damaged: {why}")]
    Damaged {
        /// The path.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The record does not replay.
    #[error("the saved game {path} is damaged: its moves do not replay ({why})")]
    DoesNotReplay {
        /// The path.
        path: PathBuf,
        /// The engine's reason.
        why: String,
    },
    /// Writing failed: the game could not be encoded or the file not
    /// replaced. Either way the file at the path is as it was.
    #[error("cannot save the game: {0}")]
    Write(crate::StoreError),
}

impl SaveFile {
    /// A save file of this version for a record and its settings.
    pub fn new(record: GameRecord, settings: SaveSettings) -> SaveFile {
        SaveFile {
            format: SAVE_FORMAT.to_string(),
            version: SAVE_VERSION,
            written_by: format!("mille {}", env!("CARGO_PKG_VERSION")),
            settings,
            record,
        }
    }

    /// The document as pretty JSON text, exactly as [`SaveFile::write`]
    /// writes it.
    pub fn encode(&self) -> Result<String, SaveError> {
        encode_json(Path::new("the saved game"), self).map_err(SaveError::Write)
    }

    /// [`SaveFile::encode`] for showing or comparing a document in memory.
    /// A save document always encodes (its fields are strings, numbers and
    /// actions in their text form); were that ever to fail, the text is
    /// the sentence that says so, which no loader mistakes for a game.
    /// Files are written with [`SaveFile::write`], which never writes
    /// such a sentence.
    pub fn to_text(&self) -> String {
        self.encode().unwrap_or_else(|e| format!("{e}\n"))
    }

    /// Writes the save file atomically (temporary file, fsync, rename,
    /// fsync of the directory). The whole document is encoded first: if
    /// that fails nothing is written and the file at `path`, such as the
    /// player's previous save, is left byte for byte as it was. The
    /// temporaries that earlier writes of `path` left when their process
    /// was killed are swept first (see [`remove_stale_temporaries`]).
    pub fn write(&self, path: &Path) -> Result<(), SaveError> {
        remove_stale_temporaries(path);
        write_document(path, self)
    }

    /// Reads and validates a save file, returning it with the replayed
    /// state. The file is only read.
    pub fn load(path: &Path) -> Result<(SaveFile, State), SaveError> {
        Self::load_with(path, |_| {})
    }

    /// [`SaveFile::load`], showing `visit` each action of the record as
    /// the validating replay applies it (see
    /// [`GameRecord::replay_with`]): what a game shows besides its state,
    /// such as the log of the last moves, is built in the same replay.
    pub fn load_with(
        path: &Path,
        visit: impl FnMut(ReplayStep<'_>),
    ) -> Result<(SaveFile, State), SaveError> {
        let p = || path.to_path_buf();
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(SaveError::Missing(p()));
            }
            Err(source) => return Err(SaveError::Unreadable { path: p(), source }),
        };
        Self::from_bytes_with(path, &bytes, visit)
    }

    /// Validates the bytes of a save file read from `path`.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<(SaveFile, State), SaveError> {
        Self::from_bytes_with(path, bytes, |_| {})
    }

    /// [`SaveFile::from_bytes`], showing `visit` each action of the
    /// validating replay (see [`SaveFile::load_with`]).
    pub fn from_bytes_with(
        path: &Path,
        bytes: &[u8],
        visit: impl FnMut(ReplayStep<'_>),
    ) -> Result<(SaveFile, State), SaveError> {
        let p = || path.to_path_buf();
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return Err(SaveError::Empty(p()));
        }
        // The first JSON document, then whatever follows it: a save with
        // something appended is ours but damaged, not a foreign file.
        let mut docs = serde_json::Deserializer::from_slice(bytes).into_iter::<serde_json::Value>();
        let first = docs.next();
        let rest = bytes.get(docs.byte_offset()..).unwrap_or_default();
        let value: serde_json::Value = match first {
            Some(Ok(v)) if rest.iter().all(|b| b.is_ascii_whitespace()) => v,
            Some(Ok(v)) => {
                if is_save_document(&v) {
                    return Err(SaveError::Damaged {
                        path: p(),
                        why: format!(
                            "{} bytes of something else follow the end of the saved game",
                            rest.trim_ascii().len()
                        ),
                    });
                }
                return Err(SaveError::Corrupt {
                    path: p(),
                    why: "it holds more than one document".into(),
                });
            }
            None => return Err(SaveError::Empty(p())),
            Some(Err(e)) if e.is_eof() => {
                // Complete JSON cut short: truncated if it began as ours.
                let head = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
                if head.trim_start().starts_with('{') {
                    return Err(SaveError::Truncated(p()));
                }
                return Err(SaveError::Corrupt {
                    path: p(),
                    why: e.to_string(),
                });
            }
            Some(Err(e)) => {
                return Err(SaveError::Corrupt {
                    path: p(),
                    why: e.to_string(),
                });
            }
        };
        if !is_save_document(&value) {
            return Err(SaveError::Foreign(p()));
        }
        let obj = value.as_object().ok_or_else(|| SaveError::Foreign(p()))?;
        let version =
            obj.get("version")
                .and_then(|v| v.as_u64())
                .ok_or_else(|| SaveError::Damaged {
                    path: p(),
                    why: "the \"version\" field is missing or not a number".into(),
                })?;
        if version > u64::from(SAVE_VERSION) {
            return Err(SaveError::Newer { path: p(), version });
        }
        if version == 0 {
            return Err(SaveError::BadVersion { path: p(), version });
        }
        let save: SaveFile = serde_json::from_value(value).map_err(|e| SaveError::Damaged {
            path: p(),
            why: e.to_string(),
        })?;
        let state = save
            .record
            .replay_with(visit)
            .map_err(|e| SaveError::DoesNotReplay {
                path: p(),
                why: e.to_string(),
            })?;
        Ok((save, state))
    }
}

/// Encodes `document` and writes it atomically, or writes nothing: the one
/// write path of save files (generic so that a document that fails to
/// encode can be tested).
fn write_document<T: Serialize + ?Sized>(path: &Path, document: &T) -> Result<(), SaveError> {
    write_json(path, document).map_err(SaveError::Write)
}

/// Whether a JSON document says it is a `mille` save.
fn is_save_document(v: &serde_json::Value) -> bool {
    v.get("format").and_then(|f| f.as_str()) == Some(SAVE_FORMAT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::{Action, GameConfig};

    fn sample() -> SaveFile {
        let mut record = GameRecord::new(GameConfig::default(), 7);
        record.actions.push(Action::Draw);
        SaveFile::new(
            record,
            SaveSettings {
                level: "classic".into(),
                player: "Ana".into(),
                sorted: false,
            },
        )
    }

    #[test]
    fn round_trip() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("g.mille");
        let s = sample();
        s.write(&path)?;
        let (back, state) = SaveFile::load(&path)?;
        assert_eq!(back, s);
        assert_eq!(state.hand(state.rules().seat(0).expect("seat 0")).len(), 7);
        Ok(())
    }

    /// A document whose encoding fails.
    struct Unencodable;

    impl Serialize for Unencodable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no JSON form"))
        }
    }

    #[test]
    fn a_failing_save_leaves_the_old_file_byte_identical() -> Result<(), Box<dyn std::error::Error>>
    {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("g.mille");
        sample().write(&path)?;
        let before = std::fs::read(&path)?;
        let e = write_document(&path, &Unencodable).expect_err("cannot encode");
        assert!(
            matches!(e, SaveError::Write(crate::StoreError::Encode { .. })),
            "{e}"
        );
        assert!(e.to_string().starts_with("cannot save the game: "), "{e}");
        assert_eq!(std::fs::read(&path)?, before);
        assert_eq!(std::fs::read_dir(dir.path())?.count(), 1, "no temporary");
        SaveFile::load(&path)?;
        Ok(())
    }

    #[test]
    fn the_written_file_is_the_encoded_document() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("g.mille");
        let s = sample();
        s.write(&path)?;
        let text = s.encode()?;
        assert!(text.starts_with('{') && text.ends_with("}\n"), "{text}");
        assert_eq!(std::fs::read_to_string(&path)?, text);
        assert_eq!(s.to_text(), text);
        Ok(())
    }

    #[test]
    fn loading_shows_each_replayed_action() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("g.mille");
        let s = sample();
        s.write(&path)?;
        let mut seen = Vec::new();
        SaveFile::load_with(&path, |step| seen.push(step.action))?;
        assert_eq!(seen, s.record.actions);
        Ok(())
    }

    #[test]
    fn bad_files_say_what_is_wrong() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("g.mille");
        let text = sample().to_text();
        let check = |bytes: &[u8]| SaveFile::from_bytes(&path, bytes).map(|_| ());
        assert!(matches!(
            SaveFile::load(&dir.path().join("none")),
            Err(SaveError::Missing(_))
        ));
        assert!(matches!(check(b""), Err(SaveError::Empty(_))));
        assert!(matches!(check(b" \n"), Err(SaveError::Empty(_))));
        let junk = format!("{text}garbage");
        assert!(matches!(
            check(junk.as_bytes()),
            Err(SaveError::Damaged { .. })
        ));
        let twice = format!("{text}{text}");
        assert!(matches!(
            check(twice.as_bytes()),
            Err(SaveError::Damaged { .. })
        ));
        assert!(matches!(
            check(&text.as_bytes()[..text.len() / 2]),
            Err(SaveError::Truncated(_))
        ));
        assert!(matches!(
            check(b"\x00\x01garbage"),
            Err(SaveError::Corrupt { .. })
        ));
        assert!(matches!(check(b"{\"a\": 1}"), Err(SaveError::Foreign(_))));
        assert!(matches!(check(b"[1,2]"), Err(SaveError::Foreign(_))));
        let newer = text.replace("\"version\": 1", "\"version\": 2");
        assert!(matches!(
            check(newer.as_bytes()),
            Err(SaveError::Newer { .. })
        ));
        let bad = text.replace("\"draw\"", "\"fly\"");
        assert!(matches!(
            check(bad.as_bytes()),
            Err(SaveError::Damaged { .. })
        ));
        let illegal = text.replace("\"draw\"", "\"next_hand\"");
        assert!(matches!(
            check(illegal.as_bytes()),
            Err(SaveError::DoesNotReplay { .. })
        ));
        Ok(())
    }
}
