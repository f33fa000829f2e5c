//! Atomic file writes and the user's data directory.

use crate::StoreError;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory is written, flushed to disk (fsync) and renamed over `path`,
/// so a crash leaves either the old file or the new one, never half of one.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        // Make the rename itself durable.
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// The directory where `mille` keeps its options and high scores:
/// `$GAMES_DATA_DIR` if set, else `$XDG_DATA_HOME/mille`, else the
/// platform's data directory (`~/.local/share/mille` on Linux). It is
/// created if missing.
pub fn data_dir() -> Result<PathBuf, StoreError> {
    let dir = if let Some(d) = std::env::var_os("GAMES_DATA_DIR").filter(|d| !d.is_empty()) {
        PathBuf::from(d)
    } else if let Some(d) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        PathBuf::from(d).join("mille")
    } else {
        directories::ProjectDirs::from("", "", "mille")
            .map(|p| p.data_dir().to_path_buf())
            .ok_or(StoreError::NoDataDir)?
    };
    fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
        what: "cannot create the data directory",
        path: dir.clone(),
        source,
    })?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() -> io::Result<()> {
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
        let dir = tempfile::tempdir().ok();
        if let Some(dir) = dir {
            let p = dir.path().join("nope").join("a.json");
            assert!(atomic_write(&p, b"x").is_err());
        }
    }
}
