//! The tokens a player got from table servers, kept between runs so a
//! returning player keeps its name: `tokens.json`, one name and token per
//! server ([`Target::key`]).

use crate::Target;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The file's name in its directory.
pub const TOKENS_FILE: &str = "tokens.json";

/// A name on a server and the secret that owns it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// The player's name there.
    pub name: String,
    /// The token from the server's `welcome`.
    pub token: String,
}

/// Why the tokens could not be read or kept.
#[derive(Debug, Error)]
pub enum TokenError {
    /// The data directory or the file could not be used.
    #[error("the saved table server tokens: {0}")]
    Store(#[from] game_store::StoreError),
    /// The file exists but cannot be read.
    #[error("cannot read the saved table server tokens in {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file or its directory could not be written.
    #[error("cannot keep the table server tokens in {path}: {source}")]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file is not what this program writes. It is left as it is:
    /// writing over it would lose every name it holds.
    #[error(
        "the saved table server tokens in {path} are damaged ({reason}); they were left as they are: \
         repair the file, or move it away to start afresh (the names it held are then lost)"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// The token file: where it is, and reading and replacing its entries. Each
/// call reads the file afresh, so two programs sharing it lose nothing but
/// a race between two writes of the same moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenStore {
    path: PathBuf,
}

impl TokenStore {
    /// The player's token file, in the table server's data directory
    /// ([`game_store::data_dir`]`("table-server")`, created if needed).
    pub fn open_default() -> Result<TokenStore, TokenError> {
        Ok(Self::in_dir(&game_store::data_dir("table-server")?))
    }

    /// The token file in `dir` (for tests, or a player's own choice).
    pub fn in_dir(dir: &Path) -> TokenStore {
        TokenStore {
            path: dir.join(TOKENS_FILE),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every entry, by server key; none if the file does not exist yet.
    pub fn load(&self) -> Result<BTreeMap<String, Credentials>, TokenError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
            Err(source) => {
                return Err(TokenError::Read {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        serde_json::from_str(&text).map_err(|e| TokenError::Corrupt {
            path: self.path.clone(),
            reason: e.to_string(),
        })
    }

    /// The name and token kept for `target`.
    pub fn get(&self, target: &Target) -> Result<Option<Credentials>, TokenError> {
        Ok(self.load()?.remove(&target.key()))
    }

    /// Keeps `credentials` for `target`, replacing what was kept for it. A
    /// damaged file is reported, never written over.
    pub fn set(&self, target: &Target, credentials: Credentials) -> Result<(), TokenError> {
        let mut all = self.load()?;
        if all.get(&target.key()) == Some(&credentials) {
            return Ok(());
        }
        all.insert(target.key(), credentials);
        self.save(&all)
    }

    /// Forgets what was kept for `target`.
    pub fn remove(&self, target: &Target) -> Result<(), TokenError> {
        let mut all = self.load()?;
        if all.remove(&target.key()).is_some() {
            self.save(&all)?;
        }
        Ok(())
    }

    fn save(&self, all: &BTreeMap<String, Credentials>) -> Result<(), TokenError> {
        // Cannot fail (string keys, plain fields); mapped rather than unwrapped.
        let mut text = serde_json::to_string_pretty(all).map_err(|e| TokenError::Write {
            path: self.path.clone(),
            source: std::io::Error::other(e),
        })?;
        text.push('\n');
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| TokenError::Write {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        game_store::atomic_write(&self.path, text.as_bytes())?;
        restrict(&self.path)
    }
}

/// Tokens are secrets: only the player may read the file.
#[cfg(unix)]
fn restrict(path: &Path) -> Result<(), TokenError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(|source| {
        TokenError::Write {
            path: path.to_path_buf(),
            source,
        }
    })
}

#[cfg(not(unix))]
fn restrict(_path: &Path) -> Result<(), TokenError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(name: &str, token: &str) -> Credentials {
        Credentials {
            name: name.into(),
            token: token.into(),
        }
    }

    #[test]
    fn entries_read_back_per_server() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = TokenStore::in_dir(dir.path());
        let a = Target::parse("a.example:1").expect("a");
        let b = Target::Unix("/run/t.sock".into());
        assert_eq!(store.get(&a).expect("no file yet"), None);
        store.set(&a, creds("ann", "t1")).expect("set a");
        store.set(&b, creds("bob", "t2")).expect("set b");
        store.set(&a, creds("ann", "t3")).expect("replace a");
        let again = TokenStore::in_dir(dir.path());
        assert_eq!(again.get(&a).expect("a"), Some(creds("ann", "t3")));
        assert_eq!(again.get(&b).expect("b"), Some(creds("bob", "t2")));
        assert_eq!(again.load().expect("all").len(), 2);
        again.remove(&a).expect("remove");
        assert_eq!(again.get(&a).expect("a"), None);
        assert_eq!(again.get(&b).expect("b"), Some(creds("bob", "t2")));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(store.path())
                .expect("file")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn a_damaged_file_is_reported_and_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = TokenStore::in_dir(dir.path());
        let damaged = "{\"tcp:a:1\": {\"name\": \"ann\"";
        std::fs::write(store.path(), damaged).expect("write");
        let target = Target::parse("a:1").expect("a");
        let e = store.get(&target).expect_err("damaged");
        assert!(matches!(e, TokenError::Corrupt { .. }), "{e:?}");
        let sentence = e.to_string();
        assert!(sentence.contains("damaged"), "{sentence}");
        assert!(
            sentence.contains(&store.path().display().to_string()),
            "{sentence}"
        );
        let e = store
            .set(&target, creds("ann", "t"))
            .expect_err("not written over");
        assert!(matches!(e, TokenError::Corrupt { .. }), "{e:?}");
        assert_eq!(
            std::fs::read_to_string(store.path()).expect("read"),
            damaged
        );
    }
}
