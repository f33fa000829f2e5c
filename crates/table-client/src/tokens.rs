//! The tokens a player got from table servers, kept between runs so a
//! returning player keeps its names: `tokens.json`, for each server
//! ([`Target::key`]) every name played under there with its token, the most
//! recently used first. A token is the only proof of a name (the server
//! keeps only its hash), so one is never dropped for another name's sake.

use crate::Target;
use serde::{Deserialize, Serialize};
use serde_json::Value;
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

/// The version of the file's layout this program writes.
const VERSION: u64 = 2;

/// The file as this program writes it. The first layout (one name per
/// server: a map from server key to [`Credentials`], without `version`) is
/// still read.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenFile {
    version: u64,
    servers: BTreeMap<String, Vec<Credentials>>,
}

/// Every server's names and tokens, by server key ([`Target::key`]), the
/// most recently used name first.
pub type AllTokens = BTreeMap<String, Vec<Credentials>>;

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

    /// The token file at `path`, whatever its name (a program's own,
    /// as `mille bot --connect --token-file FILE` keeps).
    pub fn at(path: PathBuf) -> TokenStore {
        TokenStore { path }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every entry; none if the file does not exist yet.
    pub fn load(&self) -> Result<AllTokens, TokenError> {
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
        read(&text)
            .map(rekeyed)
            .map_err(|reason| TokenError::Corrupt {
                path: self.path.clone(),
                reason,
            })
    }

    /// The name used most recently at `target`, with its token: the one to
    /// play under when no name is given.
    pub fn get(&self, target: &Target) -> Result<Option<Credentials>, TokenError> {
        Ok(self
            .load()?
            .remove(&target.key())
            .and_then(|names| names.into_iter().next()))
    }

    /// The token kept for `name` at `target`.
    pub fn named(&self, target: &Target, name: &str) -> Result<Option<Credentials>, TokenError> {
        Ok(self
            .load()?
            .remove(&target.key())
            .and_then(|names| names.into_iter().find(|c| c.name == name)))
    }

    /// The servers other than `target` that a token for `name` is kept for,
    /// as addresses ([`Target::parse`] reads them back).
    pub fn elsewhere(&self, target: &Target, name: &str) -> Result<Vec<String>, TokenError> {
        let here = target.key();
        Ok(self
            .load()?
            .into_iter()
            .filter(|(key, names)| *key != here && names.iter().any(|c| c.name == name))
            .map(|(key, _)| address_of(&key))
            .collect())
    }

    /// Keeps `credentials` at `target` as the name used most recently
    /// there, replacing the token kept for that name; the other names keep
    /// theirs. A damaged file is reported, never written over.
    pub fn set(&self, target: &Target, credentials: Credentials) -> Result<(), TokenError> {
        let mut all = self.load()?;
        let names = all.entry(target.key()).or_default();
        if names.first() == Some(&credentials) {
            return Ok(());
        }
        names.retain(|c| c.name != credentials.name);
        names.insert(0, credentials);
        self.save(&all)
    }

    /// Forgets the token of `name` at `target` (the server no longer knows
    /// it); the other names keep theirs.
    pub fn remove(&self, target: &Target, name: &str) -> Result<(), TokenError> {
        let mut all = self.load()?;
        let key = target.key();
        let Some(names) = all.get_mut(&key) else {
            return Ok(());
        };
        let before = names.len();
        names.retain(|c| c.name != name);
        if names.len() == before {
            return Ok(());
        }
        if names.is_empty() {
            all.remove(&key);
        }
        self.save(&all)
    }

    fn save(&self, all: &AllTokens) -> Result<(), TokenError> {
        let file = TokenFile {
            version: VERSION,
            servers: all.clone(),
        };
        // Cannot fail (string keys, plain fields); mapped rather than unwrapped.
        let mut text = serde_json::to_string_pretty(&file).map_err(|e| TokenError::Write {
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
        // Tokens are secrets: only the player may read the file, from the
        // moment it exists.
        game_store::atomic_write_private(&self.path, text.as_bytes())?;
        Ok(())
    }
}

/// The file's entries, from either layout.
fn read(text: &str) -> Result<AllTokens, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    match value.get("version").map(Value::as_u64) {
        None => {
            // The first layout: one name per server.
            let old: BTreeMap<String, Credentials> =
                serde_json::from_value(value).map_err(|e| e.to_string())?;
            Ok(old.into_iter().map(|(key, c)| (key, vec![c])).collect())
        }
        Some(Some(VERSION)) => {
            let file: TokenFile = serde_json::from_value(value).map_err(|e| e.to_string())?;
            Ok(file.servers)
        }
        Some(version) => Err(format!(
            "its layout version {} is not one this program knows (a newer one wrote it?)",
            version.map_or_else(|| "(not a number)".to_string(), |v| v.to_string())
        )),
    }
}

/// The entries under today's keys: an older program kept each spelling of
/// an address apart (`tcp:127.0.0.1:P`, `tcp:localhost:P`); their names
/// are merged under the one key of the address ([`Target::key`]), the
/// names of the first entry first, a name kept twice with its first token.
fn rekeyed(all: AllTokens) -> AllTokens {
    let mut out = AllTokens::new();
    for (key, names) in all {
        let key = match key.strip_prefix("tcp:") {
            Some(address) => Target::parse_with(address, || {
                Err(crate::TargetError::Bad {
                    given: String::new(),
                    why: String::new(),
                })
            })
            .map_or(key.clone(), |t| t.key()),
            None => key,
        };
        let kept = out.entry(key).or_default();
        for c in names {
            if !kept.iter().any(|k| k.name == c.name) {
                kept.push(c);
            }
        }
    }
    out
}

/// The address in a server key, as [`Target::parse`] reads it: `unix:PATH`
/// and `tcp:HOST:PORT` without their prefix, `tls:HOST:PORT` as
/// `wss://HOST:PORT`.
fn address_of(key: &str) -> String {
    if let Some(address) = key.strip_prefix("tls:") {
        return format!("wss://{address}");
    }
    key.strip_prefix("unix:")
        .or_else(|| key.strip_prefix("tcp:"))
        .unwrap_or(key)
        .to_string()
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
    fn a_tls_server_s_tokens_are_kept_apart_from_a_plain_one_s() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = TokenStore::in_dir(dir.path());
        let plain = Target::parse("games.example:8780").expect("plain");
        let tls = Target::parse("wss://games.example:8780").expect("tls");
        store.set(&tls, creds("ann", "secret")).expect("set");
        // The token given over TLS is not found for the plain address, so
        // it is never sent in clear.
        assert_eq!(store.get(&plain).expect("plain"), None);
        assert_eq!(store.named(&plain, "ann").expect("plain"), None);
        assert_eq!(store.get(&tls).expect("tls"), Some(creds("ann", "secret")));
        // Another spelling of the TLS address finds it, with its authority.
        let spelled = Target::parse("https://Games.Example:8780/")
            .expect("https")
            .with_ca("/tmp/ca.pem".into())
            .expect("tls");
        assert_eq!(
            store.get(&spelled).expect("tls"),
            Some(creds("ann", "secret"))
        );
        // Where else the name is kept reads back as the TLS address.
        let elsewhere = store.elsewhere(&plain, "ann").expect("elsewhere");
        assert_eq!(elsewhere, vec!["wss://games.example:8780".to_string()]);
        assert_eq!(
            Target::parse(&elsewhere[0]).expect("reads back").key(),
            tls.key()
        );
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
        again.remove(&a, "ann").expect("remove");
        assert_eq!(again.get(&a).expect("a"), None);
        assert_eq!(again.get(&b).expect("b"), Some(creds("bob", "t2")));
        assert_eq!(again.load().expect("all").len(), 1);
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
    fn every_name_keeps_its_token_and_the_last_used_is_the_default() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = TokenStore::in_dir(dir.path());
        let a = Target::parse("a.example:1").expect("a");
        store.set(&a, creds("ann", "t1")).expect("ann");
        store.set(&a, creds("bob", "t2")).expect("bob");
        assert_eq!(store.get(&a).expect("a"), Some(creds("bob", "t2")));
        assert_eq!(store.named(&a, "ann").expect("a"), Some(creds("ann", "t1")));
        assert_eq!(store.named(&a, "bob").expect("a"), Some(creds("bob", "t2")));
        assert_eq!(store.named(&a, "cy").expect("a"), None);
        // Coming back as ann makes her the default again; bob is kept.
        store.set(&a, creds("ann", "t1")).expect("ann again");
        assert_eq!(store.get(&a).expect("a"), Some(creds("ann", "t1")));
        assert_eq!(store.named(&a, "bob").expect("a"), Some(creds("bob", "t2")));
        // A token the server forgot goes; the next most recent is the default.
        store.remove(&a, "ann").expect("forget ann");
        assert_eq!(store.get(&a).expect("a"), Some(creds("bob", "t2")));
        store.remove(&a, "nobody").expect("nothing to forget");
        assert_eq!(store.named(&a, "bob").expect("a"), Some(creds("bob", "t2")));
    }

    #[test]
    fn the_first_layout_is_read_and_kept_when_a_name_is_added() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = TokenStore::in_dir(dir.path());
        let old = r#"{
  "tcp:a.example:1": {"name": "ann", "token": "t1"},
  "unix:/run/t.sock": {"name": "cy", "token": "t9"}
}
"#;
        std::fs::write(store.path(), old).expect("write");
        let a = Target::parse("a.example:1").expect("a");
        let b = Target::Unix("/run/t.sock".into());
        assert_eq!(store.get(&a).expect("a"), Some(creds("ann", "t1")));
        assert_eq!(store.get(&b).expect("b"), Some(creds("cy", "t9")));
        store.set(&a, creds("bob", "t2")).expect("bob");
        let text = std::fs::read_to_string(store.path()).expect("read");
        assert!(text.contains("\"version\": 2"), "{text}");
        assert_eq!(store.named(&a, "ann").expect("a"), Some(creds("ann", "t1")));
        assert_eq!(store.get(&a).expect("a"), Some(creds("bob", "t2")));
        assert_eq!(store.get(&b).expect("b"), Some(creds("cy", "t9")));
    }

    #[test]
    fn other_addresses_holding_a_name_are_found() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = TokenStore::in_dir(dir.path());
        let socket = Target::Unix("/run/t.sock".into());
        let loopback = Target::parse("127.0.0.1:8780").expect("tcp");
        let localhost = Target::parse("localhost:8780").expect("tcp");
        let other_port = Target::parse("localhost:8781").expect("tcp");
        store.set(&socket, creds("ann", "t1")).expect("set");
        store.set(&other_port, creds("ann", "t1")).expect("set");
        store.set(&loopback, creds("bob", "t2")).expect("set");
        assert_eq!(
            store.elsewhere(&localhost, "ann").expect("ann"),
            ["localhost:8781", "/run/t.sock"]
        );
        assert_eq!(
            store.elsewhere(&socket, "ann").expect("ann"),
            ["localhost:8781"]
        );
        assert!(store.elsewhere(&loopback, "cy").expect("cy").is_empty());
        // One address's other spelling is not "elsewhere".
        assert!(store.elsewhere(&localhost, "bob").expect("bob").is_empty());
    }

    #[test]
    fn every_spelling_of_an_address_finds_its_tokens() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = TokenStore::in_dir(dir.path());
        let loopback = Target::parse("127.0.0.1:8780").expect("tcp");
        store.set(&loopback, creds("ann", "t1")).expect("set");
        for spelling in [
            "localhost:8780",
            "[::1]:8780",
            "LOCALHOST.:8780",
            "http://127.0.0.1:8780/",
        ] {
            let there = Target::parse(spelling).expect(spelling);
            assert_eq!(
                store.get(&there).expect(spelling),
                Some(creds("ann", "t1")),
                "{spelling}"
            );
            assert_eq!(
                store.named(&there, "ann").expect(spelling),
                Some(creds("ann", "t1"))
            );
        }
        // Another port, another loopback address: other servers.
        for other in ["localhost:8781", "127.0.0.2:8780"] {
            let there = Target::parse(other).expect(other);
            assert_eq!(store.get(&there).expect(other), None, "{other}");
        }
        let host = Target::parse("Games.Example.org.").expect("tcp");
        store.set(&host, creds("bob", "t2")).expect("set");
        let same = Target::parse("games.example.org:8780").expect("tcp");
        assert_eq!(store.get(&same).expect("same"), Some(creds("bob", "t2")));
    }

    #[test]
    fn an_older_program_s_entries_for_one_address_are_merged() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = TokenStore::in_dir(dir.path());
        let old = r#"{"version": 2, "servers": {
  "tcp:127.0.0.1:8780": [{"name": "ann", "token": "t1"}],
  "tcp:localhost:8780": [{"name": "bob", "token": "t2"}, {"name": "ann", "token": "t9"}],
  "tcp:[::1]:8781": [{"name": "cy", "token": "t3"}]
}}"#;
        std::fs::write(store.path(), old).expect("write");
        let here = Target::parse("localhost:8780").expect("tcp");
        assert_eq!(store.get(&here).expect("here"), Some(creds("ann", "t1")));
        assert_eq!(
            store.named(&here, "bob").expect("bob"),
            Some(creds("bob", "t2"))
        );
        let other = Target::parse("127.0.0.1:8781").expect("tcp");
        assert_eq!(store.get(&other).expect("other"), Some(creds("cy", "t3")));
        // Written back under the one key.
        store.set(&here, creds("dan", "t4")).expect("set");
        let text = std::fs::read_to_string(store.path()).expect("read");
        assert!(!text.contains("127.0.0.1"), "{text}");
        assert_eq!(store.load().expect("all").len(), 2);
    }

    #[test]
    fn a_newer_layout_is_not_written_over() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = TokenStore::in_dir(dir.path());
        let newer = r#"{"version": 3, "servers": {}, "more": 1}"#;
        std::fs::write(store.path(), newer).expect("write");
        let a = Target::parse("a:1").expect("a");
        let e = store.set(&a, creds("ann", "t")).expect_err("newer");
        assert!(e.to_string().contains("version 3"), "{e}");
        assert_eq!(std::fs::read_to_string(store.path()).expect("read"), newer);
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
