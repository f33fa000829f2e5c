//! Atomic file writes (raw bytes or a JSON document) and the user's data
//! directory, from the suite's shared `game-store` crate.

use crate::StoreError;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory is written, flushed to disk (fsync) and renamed over `path`,
/// so a crash leaves either the old file or the new one, never half of one.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    Ok(game_store::atomic_write(path, bytes)?)
}

/// Removes the temporary files that writes of `path` by processes now gone
/// left behind. [`atomic_write`] writes `.NAME.tmp-PID-N` beside `path` and
/// renames it; a process killed in between (SIGKILL, a power cut) leaves it
/// there. Such a file is never read, so it is harmless, but each kill would
/// add one: they are swept before `path` is written again. A temporary of
/// this process, or of one still running, is left alone. Returns how many
/// were removed; failures to list or remove are ignored (the write that
/// follows reports a directory it cannot use).
pub fn remove_stale_temporaries(path: &Path) -> usize {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return 0;
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let prefix = format!(".{name}.tmp-");
    let mut removed = 0;
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = file
            .strip_prefix(&prefix)
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, n)| n.parse::<u64>().ok().and(pid.parse::<u32>().ok()))
        else {
            continue;
        };
        if pid != std::process::id()
            && !process_alive(pid)
            && std::fs::remove_file(entry.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// Whether process `pid` may still be running. Where `/proc` lists the
/// processes it is asked; elsewhere every process is taken as alive, so
/// nothing is removed that a running write still needs.
fn process_alive(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
}

/// `value` as pretty JSON text ending in a newline, the layout of every
/// document `mille` writes. `path` only names the file in the error.
pub fn encode_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<String, StoreError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|source| StoreError::Encode {
        path: path.to_path_buf(),
        source,
    })?;
    text.push('\n');
    Ok(text)
}

/// Writes `value` to `path` as pretty JSON with [`atomic_write`]. The whole
/// document is encoded before anything is written: a value that cannot be
/// encoded is an error and leaves the old file as it was (never an empty
/// or partial document in its place).
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), StoreError> {
    let text = encode_json(path, value)?;
    atomic_write(path, text.as_bytes())
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

    /// A value whose encoding always fails, as a map with non-string keys
    /// does in JSON.
    struct Unencodable;

    impl Serialize for Unencodable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("this value has no JSON form"))
        }
    }

    #[test]
    fn a_failing_encode_writes_nothing() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("a.json");
        write_json(&p, &["good"])?;
        let before = fs::read(&p)?;
        let e = write_json(&p, &Unencodable).expect_err("cannot encode");
        assert!(matches!(e, StoreError::Encode { .. }), "{e}");
        assert_eq!(fs::read(&p)?, before);
        assert_eq!(fs::read_dir(dir.path())?.count(), 1, "no temporary left");
        // Nothing is created either.
        let q = dir.path().join("b.json");
        assert!(write_json(&q, &Unencodable).is_err());
        assert!(!q.exists());
        Ok(())
    }

    #[test]
    fn stale_temporaries_of_dead_processes_are_swept() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let p = dir.path().join("g.mille");
        atomic_write(&p, b"old")?;
        // A process id above the kernel's largest is never running.
        let dead = dir.path().join(".g.mille.tmp-4294967295-0");
        let ours = dir
            .path()
            .join(format!(".g.mille.tmp-{}-99", std::process::id()));
        let other = dir.path().join(".other.mille.tmp-4294967295-0");
        let unlike = dir.path().join(".g.mille.tmp-notapid-0");
        for f in [&dead, &ours, &other, &unlike] {
            fs::write(f, b"{")?;
        }
        assert_eq!(remove_stale_temporaries(&p), 1);
        assert!(!dead.exists());
        assert!(ours.exists() && other.exists() && unlike.exists());
        assert_eq!(fs::read(&p)?, b"old");
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
