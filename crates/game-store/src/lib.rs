//! Storage shared by the games of the suite: where their files live
//! ([`data_dir`]), how a file is replaced without ever leaving a half-written
//! one ([`atomic_write`], or [`atomic_write_private`] for secrets), and SQLite databases with schema migrations that
//! are safe when several games write at once ([`open_db`]), and how the
//! times they store are shown ([`utc_date_and_minute`]).
//!
//! Tests and scripts point everything elsewhere with the `GAMES_DATA_DIR`
//! environment variable, so they never touch the user's real files.

use rusqlite::{Connection, TransactionBehavior};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use thiserror::Error;

/// Environment variable that overrides the data directory: each game uses
/// `$GAMES_DATA_DIR/<app>`.
pub const DATA_DIR_ENV: &str = "GAMES_DATA_DIR";

/// How long a writer waits for another process holding the database.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// What went wrong with storage.
#[derive(Debug, Error)]
pub enum StoreError {
    /// No home directory to put the data directory in.
    #[error("cannot find a home directory for the game's data; set {DATA_DIR_ENV} to a directory")]
    NoHome,
    /// A file operation failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// On which path.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// SQLite refused something.
    #[error("database {path}: {source}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// A schema migration failed (nothing of it was applied).
    #[error("database {path}: upgrading the schema to version {version} failed: {source}")]
    Migration {
        /// The database file.
        path: PathBuf,
        /// The version being installed.
        version: usize,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// The path names no file (it ends in `..` or is a root), so there is
    /// nothing to replace.
    #[error("cannot write {0}: it does not name a file")]
    NotAFile(PathBuf),
    /// The database was written by a newer program.
    #[error(
        "database {path} has schema version {found}, newer than this program knows ({known}); use a newer version of the game"
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// Version in the file.
        found: i64,
        /// Latest version this program knows.
        known: usize,
    },
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> StoreError {
    let path = path.to_path_buf();
    move |source| StoreError::Io {
        action,
        path,
        source,
    }
}

/// The directory where `app` keeps its data, created if needed:
/// `$GAMES_DATA_DIR/<app>` when that variable is set and not empty, else the
/// platform's user data directory (e.g. `~/.local/share/<app>` on Linux).
pub fn data_dir(app: &str) -> Result<PathBuf, StoreError> {
    data_dir_in(std::env::var_os(DATA_DIR_ENV).as_deref(), app)
}

/// Replaces `path` with `bytes` atomically: readers see the old file or the
/// new one, never a mix, even after a crash. Writes a temporary file in the
/// same directory, flushes it to disk, renames it over `path`, then flushes
/// the directory so the rename itself survives a power cut. On any failure
/// the old file is left as it was and the temporary file is removed.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    replace(path, bytes, false)
}

/// [`atomic_write`] for a secret: on Unix the new file is readable and
/// writable by its owner only (mode 0600), from the moment its temporary
/// file is created, so no other user can ever read it, not even briefly.
pub fn atomic_write_private(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    replace(path, bytes, true)
}

fn replace(path: &Path, bytes: &[u8], private: bool) -> Result<(), StoreError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // Without a file name the temporary file would have no name to derive
    // from, and the rename would aim at a directory.
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| StoreError::NotAFile(path.to_path_buf()))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut f = create_temporary(&tmp, private).map_err(io("cannot create", &tmp))?;
    let written = (|| {
        f.write_all(bytes).map_err(io("cannot write", &tmp))?;
        f.sync_all().map_err(io("cannot flush", &tmp))?;
        drop(f);
        fs::rename(&tmp, path).map_err(io("cannot replace", path))
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written?;
    // The new file is in place; flushing the directory makes the rename
    // survive a power cut.
    sync_dir(&dir)
}

/// Creates the temporary file, which must not exist yet (`create_new`:
/// never write through a file or link that happens to have its name, nor
/// remove it after a failure). A private one gets mode 0600 as it is
/// created: setting it later would leave a moment when others may open it.
fn create_temporary(tmp: &Path, private: bool) -> std::io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    #[cfg(not(unix))]
    let _ = private;
    options.open(tmp)
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io("cannot flush directory", dir))
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> Result<(), StoreError> {
    // Directories cannot be opened for flushing here; the rename is atomic.
    Ok(())
}

/// Opens (creating if needed) the SQLite database at `path` for use by
/// several processes at once (write-ahead log, a busy timeout), and brings
/// its schema up to date: `migrations[k]` is the SQL that upgrades schema
/// version `k` to `k + 1`, the version being SQLite's `user_version`. Each
/// migration runs in its own immediate transaction, so a failure leaves the
/// previous version intact and two programs never migrate at once.
pub fn open_db(path: &Path, migrations: &[&str]) -> Result<Connection, StoreError> {
    open_db_as(path, migrations, false)
}

/// [`open_db`] for a database of secrets: on Unix the file, its write-ahead
/// log and its shared-memory file are readable and writable by their owner
/// only (mode 0600), a new file from its first byte (SQLite gives the
/// companions the database file's mode), an older one tightened.
pub fn open_db_private(path: &Path, migrations: &[&str]) -> Result<Connection, StoreError> {
    open_db_as(path, migrations, true)
}

#[cfg(unix)]
fn make_private(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
        .map_err(io("cannot create", path))?;
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let file = Path::new(&name);
        if let Ok(meta) = fs::metadata(file)
            && meta.permissions().mode() & 0o077 != 0
        {
            fs::set_permissions(file, fs::Permissions::from_mode(0o600))
                .map_err(io("cannot make private", file))?;
        }
    }
    Ok(())
}

#[cfg(not(unix))]
fn make_private(_path: &Path) -> Result<(), StoreError> {
    Ok(())
}

fn open_db_as(path: &Path, migrations: &[&str], private: bool) -> Result<Connection, StoreError> {
    if private {
        make_private(path)?;
    }
    let sql = |source| StoreError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    let mut conn = Connection::open(path).map_err(sql)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
    // Switching to the write-ahead log takes a lock that SQLite does not
    // wait for: programs opening the file at the same moment try again.
    let start = std::time::Instant::now();
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Ok(()) => break,
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => return Err(sql(e)),
        }
    }
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(sql)?;
    loop {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let version: i64 = tx
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(sql)?;
        let v = usize::try_from(version).unwrap_or(usize::MAX);
        if v > migrations.len() {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                found: version,
                known: migrations.len(),
            });
        }
        if v == migrations.len() {
            break;
        }
        let migrate = |source| StoreError::Migration {
            path: path.to_path_buf(),
            version: v + 1,
            source,
        };
        tx.execute_batch(migrations[v]).map_err(migrate)?;
        tx.pragma_update(None, "user_version", (v + 1) as i64)
            .map_err(migrate)?;
        tx.commit().map_err(migrate)?;
    }
    Ok(conn)
}

/// Where the table server's Unix socket is, for a server started without
/// `--socket` and a client connecting without a port:
/// `$GAMES_DATA_DIR/table-server/server.sock` when that variable is set (so
/// tests keep their servers apart), else `table-server.sock` in the user's
/// runtime directory (`$XDG_RUNTIME_DIR`), else `server.sock` in the table
/// server's data directory.
pub fn socket_path() -> Result<PathBuf, StoreError> {
    let overridden = std::env::var_os(DATA_DIR_ENV).is_some_and(|v| !v.is_empty());
    if !overridden
        && let Some(runtime) =
            directories::BaseDirs::new().and_then(|b| b.runtime_dir().map(Path::to_path_buf))
    {
        return Ok(runtime.join("table-server.sock"));
    }
    Ok(data_dir("table-server")?.join("server.sock"))
}

/// [`data_dir`] with the override given explicitly (for tests).
#[doc(hidden)]
pub fn data_dir_in(root: Option<&std::ffi::OsStr>, app: &str) -> Result<PathBuf, StoreError> {
    let dir = match root {
        Some(root) if !root.is_empty() => PathBuf::from(root).join(app),
        _ => directories::ProjectDirs::from("", "", app)
            .ok_or(StoreError::NoHome)?
            .data_dir()
            .to_path_buf(),
    };
    fs::create_dir_all(&dir).map_err(io("cannot create directory", &dir))?;
    Ok(dir)
}

/// The UTC date and time of day, to the minute, of `unix` seconds since
/// 1970: `("2000-02-29", "01:02")`. Score files and saves store such
/// times; each game words them its own way.
pub fn utc_date_and_minute(unix: i64) -> (String, String) {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!("{:02}:{:02}", secs / 3600, secs % 3600 / 60),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = "CREATE TABLE t (a INTEGER NOT NULL);";
    const V2: &str = "ALTER TABLE t ADD COLUMN b TEXT NOT NULL DEFAULT 'x';";

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("save.json");
        atomic_write(&p, b"one").expect("write");
        atomic_write(&p, b"two").expect("write");
        assert_eq!(fs::read(&p).expect("read"), b"two");
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).expect("metadata").permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn a_private_temporary_is_created_for_its_owner_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let tmp = dir.path().join(".secret.tmp");
        // Nothing written yet: the file is private from its creation.
        drop(create_temporary(&tmp, true).expect("create"));
        assert_eq!(mode(&tmp), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn a_private_write_replaces_a_readable_file_with_a_private_one() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("tokens.json");
        fs::write(&p, b"old").expect("write");
        fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).expect("chmod");
        atomic_write_private(&p, b"secret").expect("write");
        assert_eq!(fs::read(&p).expect("read"), b"secret");
        assert_eq!(mode(&p), 0o600);
        assert_eq!(fs::read_dir(dir.path()).expect("ls").count(), 1);
    }

    #[test]
    fn atomic_write_into_a_missing_directory_fails_cleanly() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("nope").join("save.json");
        let e = atomic_write(&p, b"x").unwrap_err();
        assert!(e.to_string().contains("cannot create"), "{e}");
    }

    #[test]
    fn atomic_write_refuses_a_path_that_names_no_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("sub").join("..");
        let e = atomic_write(&p, b"x").unwrap_err();
        assert!(matches!(e, StoreError::NotAFile(_)), "{e}");
        assert_eq!(fs::read_dir(dir.path()).expect("ls").count(), 0);
    }

    #[test]
    fn a_failed_replace_leaves_the_old_contents_and_no_temporary() {
        let dir = tempfile::tempdir().expect("tempdir");
        // A non-empty directory cannot be renamed over.
        let p = dir.path().join("save.json");
        fs::create_dir(&p).expect("mkdir");
        fs::write(p.join("inside"), b"old").expect("write");
        let e = atomic_write(&p, b"new").unwrap_err();
        assert!(e.to_string().contains("cannot replace"), "{e}");
        assert_eq!(fs::read(p.join("inside")).expect("read"), b"old");
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("save.json")]);
    }

    #[test]
    fn migrations_apply_once_in_order_and_keep_data() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("s.db");
        let c = open_db(&p, &[V1]).expect("open v1");
        c.execute("INSERT INTO t (a) VALUES (7)", [])
            .expect("insert");
        drop(c);
        let c = open_db(&p, &[V1, V2]).expect("open v2");
        let (a, b): (i64, String) = c
            .query_row("SELECT a, b FROM t", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("row");
        assert_eq!((a, b.as_str()), (7, "x"));
        let v: i64 = c
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .expect("version");
        assert_eq!(v, 2);
        let mode: String = c
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .expect("mode");
        assert_eq!(mode, "wal");
        drop(c);
        // Reopening with the same list changes nothing.
        open_db(&p, &[V1, V2]).expect("reopen");
        // An older program refuses a newer database.
        let e = open_db(&p, &[V1]).unwrap_err();
        assert!(
            matches!(
                e,
                StoreError::TooNew {
                    found: 2,
                    known: 1,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn a_failing_migration_leaves_the_previous_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("s.db");
        open_db(&p, &[V1]).expect("v1");
        let e = open_db(&p, &[V1, "CREATE TABLE u (x); THIS IS NOT SQL;"]).unwrap_err();
        assert!(matches!(e, StoreError::Migration { version: 2, .. }), "{e}");
        let c = open_db(&p, &[V1]).expect("still v1");
        let n: i64 = c
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'u'",
                [],
                |r| r.get(0),
            )
            .expect("query");
        assert_eq!(n, 0, "the failed migration was rolled back");
    }

    #[test]
    fn concurrent_writers_all_succeed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("s.db");
        open_db(&p, &[V1]).expect("create");
        let handles: Vec<_> = (0..4)
            .map(|k| {
                let p = p.clone();
                std::thread::spawn(move || {
                    let c = open_db(&p, &[V1]).expect("open");
                    for n in 0..50 {
                        c.execute("INSERT INTO t (a) VALUES (?1)", [k * 100 + n])
                            .expect("insert");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("thread");
        }
        let c = open_db(&p, &[V1]).expect("open");
        let n: i64 = c
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .expect("count");
        assert_eq!(n, 200);
    }

    #[test]
    fn data_dir_honours_the_override() {
        // `set_var` is unsafe in edition 2024 (and unsafe is forbidden), so
        // the override is passed explicitly; `data_dir` reads the variable
        // and calls the same function. The binary's end-to-end tests run it
        // with the variable set.
        let dir = tempfile::tempdir().expect("tempdir");
        let want = dir.path().join("cubes");
        let got = data_dir_in(Some(dir.path().as_os_str()), "cubes").expect("dir");
        assert_eq!(got, want);
        assert!(want.is_dir());
    }

    #[test]
    fn utc_dates_across_leap_days_and_before_1970() {
        let at = |t| utc_date_and_minute(t);
        assert_eq!(at(0), ("1970-01-01".into(), "00:00".into()));
        assert_eq!(
            at(951_782_400 + 3_725),
            ("2000-02-29".into(), "01:02".into())
        );
        assert_eq!(at(1_735_689_599), ("2024-12-31".into(), "23:59".into()));
        assert_eq!(at(-60), ("1969-12-31".into(), "23:59".into()));
    }
}
