//! The record of a match's finished games (`mille match --resume FILE`):
//! one JSON line naming the match, then one line per game as it ends, each
//! appended and synced to disk before the next is counted. A match that
//! is stopped (a killed process, a closed session) loses at most the
//! games in progress: run again with the same file, it plays only the
//! games the record lacks. A game's deal and bots depend only on the
//! seed and the game's number, so a recorded game is the game the full
//! run would have played, and a longer match extends a shorter one.

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::cmd_match::GameResult;

/// What makes two runs the same match: a record is only resumed by a run
/// that would play the same games.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct MatchId {
    pub rules: String,
    pub players: u8,
    pub seed: u64,
    /// The `--bot` options, in order.
    pub bots: Vec<String>,
    pub exact: bool,
}

/// One line of the record.
#[derive(Serialize, Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
enum Line {
    Match(MatchId),
    Game { number: u32, result: GameResult },
}

/// A record open for appending.
pub struct Record {
    path: PathBuf,
    file: Mutex<File>,
}

/// Opens (or creates) the record of match `id` at `path` and returns
/// the games it already holds, by number. A last line cut short (the
/// process was killed while writing it) is dropped, and its game played
/// again; anything else that is not this match's record is refused
/// before the file is touched.
pub fn open(path: &Path, id: &MatchId) -> anyhow::Result<(Record, BTreeMap<u32, GameResult>)> {
    let fresh = match std::fs::metadata(path) {
        Ok(m) => m.len() == 0,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Err(e) => {
            return Err(e)
                .with_context(|| format!("cannot open the match record {}", path.display()));
        }
    };
    if fresh {
        // A new record is written whole, synced and renamed into place
        // (with its directory synced), so that it survives a power cut.
        game_store::atomic_write(path, &line_text(&Line::Match(id.clone()))?)?;
    }
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .with_context(|| format!("cannot open the match record {}", path.display()))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .with_context(|| format!("cannot read the match record {}", path.display()))?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if complete == 0 && !bytes.is_empty() {
        bail!(
            "{} is not a match record (it holds no complete line): give another file",
            path.display()
        );
    }
    let games = parse(&bytes[..complete], id)
        .with_context(|| format!("{} is not a record of this match", path.display()))?;
    if complete < bytes.len() {
        eprintln!(
            "{}: its last line was cut short; that game will be played again",
            path.display()
        );
        file.set_len(complete as u64)
            .with_context(|| format!("cannot mend {}", path.display()))?;
    }
    file.seek(SeekFrom::End(0))
        .with_context(|| format!("cannot append to {}", path.display()))?;
    let record = Record {
        path: path.to_path_buf(),
        file: Mutex::new(file),
    };
    Ok((record, games))
}

/// A record line as written: JSON and a line end.
fn line_text(line: &Line) -> anyhow::Result<Vec<u8>> {
    let mut text = serde_json::to_vec(line)?;
    text.push(b'\n');
    Ok(text)
}

/// The games of a record's complete lines, which must start with `id`.
fn parse(bytes: &[u8], id: &MatchId) -> anyhow::Result<BTreeMap<u32, GameResult>> {
    let text = std::str::from_utf8(bytes).context("it is not text")?;
    let mut games = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line: Line =
            serde_json::from_str(line).with_context(|| format!("line {n} is not a record line"))?;
        match line {
            Line::Match(m) if n == 1 => {
                if m != *id {
                    bail!(
                        "it records rules {}, {} players, seed {}, bots {}{}; \
                         resume it with the same options, or give another file",
                        m.rules,
                        m.players,
                        m.seed,
                        m.bots.join(", "),
                        if m.exact {
                            ", --exact"
                        } else {
                            ", without --exact"
                        }
                    );
                }
            }
            _ if n == 1 => bail!("line 1 does not name the match"),
            Line::Match(_) => bail!("line {n} names a match again"),
            Line::Game { number, result } => {
                if result.parts.len() != id.bots.len() {
                    bail!("line {n}: game {number} has {} sides", result.parts.len());
                }
                if let Some((b, _)) = &result.forfeit
                    && *b >= id.bots.len()
                {
                    bail!("line {n}: game {number} is forfeited by bot {b}, which is not playing");
                }
                if games.insert(number, result).is_some() {
                    bail!("line {n}: game {number} is recorded twice");
                }
            }
        }
    }
    Ok(games)
}

impl Record {
    /// Appends game `number` and syncs it to disk.
    pub fn add(&self, number: u32, result: &GameResult) -> anyhow::Result<()> {
        let text = line_text(&Line::Game {
            number,
            result: result.clone(),
        })?;
        let mut file = self
            .file
            .lock()
            .map_err(|_| anyhow::anyhow!("the match record's writer failed"))?;
        // One write of the whole line: a kill cuts at most this line,
        // which the next run drops.
        file.write_all(&text)
            .and_then(|()| file.sync_data())
            .with_context(|| format!("cannot write to the match record {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd_match::Part;

    fn id() -> MatchId {
        MatchId {
            rules: "bsd".into(),
            players: 2,
            seed: 7,
            bots: vec!["easy".into(), "classic".into()],
            exact: true,
        }
    }

    fn result(won: f64) -> GameResult {
        GameResult {
            parts: vec![
                Part {
                    won,
                    hands: 3,
                    points: 4000,
                    trips: 1,
                    decision_ms: vec![1.5, 0.25],
                },
                Part {
                    won: 1.0 - won,
                    ..Part::default()
                },
            ],
            forfeit: None,
        }
    }

    #[test]
    fn games_survive_a_reopening_and_a_cut_last_line() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("m.jsonl");
        let (record, games) = open(&path, &id()).expect("a new record");
        assert!(games.is_empty());
        record.add(3, &result(1.0)).expect("add");
        record.add(0, &result(0.0)).expect("add");
        drop(record);
        // A third game cut short by a kill.
        let mut f = OpenOptions::new().append(true).open(&path).expect("file");
        f.write_all(br#"{"game":{"number":1,"res"#).expect("write");
        drop(f);
        let (record, games) = open(&path, &id()).expect("reopened");
        assert_eq!(games.keys().copied().collect::<Vec<_>>(), [0, 3]);
        assert_eq!(games[&3].parts[0].decision_ms, [1.5, 0.25]);
        assert_eq!(games[&0].parts[1].won, 1.0);
        record
            .add(1, &result(0.5))
            .expect("add after the mended line");
        drop(record);
        let (_, games) = open(&path, &id()).expect("reopened again");
        assert_eq!(games.keys().copied().collect::<Vec<_>>(), [0, 1, 3]);
    }

    #[test]
    fn another_match_or_a_damaged_record_is_refused_untouched() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("m.jsonl");
        let (record, _) = open(&path, &id()).expect("a new record");
        record.add(0, &result(1.0)).expect("add");
        drop(record);
        let before = std::fs::read(&path).expect("read");
        let other = MatchId { seed: 8, ..id() };
        let e = open(&path, &other).err().expect("another seed is refused");
        assert!(format!("{e:#}").contains("seed 7"), "{e:#}");
        let not_exact = MatchId {
            exact: false,
            ..id()
        };
        assert!(open(&path, &not_exact).is_err());
        assert_eq!(std::fs::read(&path).expect("read"), before, "untouched");

        let cases: [&[u8]; 6] = [
            b"not json\n",
            b"a file without a line end",
            b"{\"game\":{\"number\":0,\"result\":{\"parts\":[],\"forfeit\":null}}}\n",
            b"\xff\xfe\n",
            b"{\"match\":{\"rules\":\"bsd\"}}\n",
            b"{}\n",
        ];
        for (i, bytes) in cases.into_iter().enumerate() {
            let p = dir.path().join(format!("bad{i}"));
            std::fs::write(&p, bytes).expect("write");
            assert!(open(&p, &id()).is_err(), "case {i} refused");
            assert_eq!(
                std::fs::read(&p).expect("read"),
                bytes,
                "case {i} untouched"
            );
        }
        // A game twice, or with the wrong number of sides.
        let good = std::fs::read_to_string(&path).expect("read");
        let game = good.lines().nth(1).expect("a game line");
        let p = dir.path().join("twice");
        std::fs::write(&p, format!("{good}{game}\n")).expect("write");
        let e = open(&p, &id()).err().expect("refused");
        assert!(format!("{e:#}").contains("twice"), "{e:#}");
        let three = MatchId {
            bots: vec!["easy".into(), "classic".into(), "random".into()],
            players: 3,
            rules: "classic".into(),
            ..id()
        };
        let p = dir.path().join("sides");
        std::fs::write(
            &p,
            format!(
                "{}\n{game}\n",
                serde_json::to_string(&Line::Match(three.clone())).expect("json")
            ),
        )
        .expect("write");
        let e = open(&p, &three).err().expect("refused");
        assert!(format!("{e:#}").contains("2 sides"), "{e:#}");
    }
}
