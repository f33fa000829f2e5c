//! The score file under stress, through the real `cubes` binary: killed
//! (SIGKILL) at random moments around a game's end, several games finishing
//! at once, another program holding a long write transaction, and a score
//! file that cannot be written. Every run uses its own temporary data
//! directory through `GAMES_DATA_DIR`.

use rusqlite::Connection;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_cubes");

/// A quick game of two computer players, always the same one.
const QUICK_GAME: &[&str] = &[
    "--plain", "--watch", "--blitz", "--jokers", "never", "-c", "optimal", "-c", "steady",
    "--seed", "11",
];

fn scores(data: &Path) -> PathBuf {
    data.join("cubes").join("scores.db")
}

fn spawn(data: &Path, args: &[&str]) -> Child {
    Command::new(BIN)
        .args(args)
        .env("GAMES_DATA_DIR", data)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cubes")
}

fn run(data: &Path, args: &[&str]) -> Output {
    spawn(data, args).wait_with_output().expect("run cubes")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A failure the player can read: an error message, no panic.
fn assert_clear_failure(out: &Output, what: &str) {
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{what} should fail:\n{err}");
    // 101 is Rust's exit code for a panic.
    assert_ne!(out.status.code(), Some(101), "{what} panicked:\n{err}");
    assert!(!err.contains("panicked"), "{what} panicked:\n{err}");
    assert!(err.starts_with("Error: "), "{what}:\n{err}");
}

/// Checks the score file as a crash may have left it: it opens, SQLite
/// finds it intact, and every game holds all its players' results (none
/// recorded without the others). Returns the number of games.
fn check_whole(db: &Path) -> i64 {
    let conn = Connection::open(db).expect("the score file opens");
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .expect("integrity check");
    assert_eq!(ok, "ok", "{}", db.display());
    let orphans: i64 = conn
        .query_row(
            "SELECT count(*) FROM results WHERE game_id NOT IN (SELECT id FROM games)",
            [],
            |r| r.get(0),
        )
        .expect("orphans");
    assert_eq!(orphans, 0, "results without their game");
    let partial: i64 = conn
        .query_row(
            "SELECT count(*) FROM games g
             WHERE g.players != (SELECT count(*) FROM results r WHERE r.game_id = g.id)",
            [],
            |r| r.get(0),
        )
        .expect("partial games");
    assert_eq!(partial, 0, "a game recorded without all its players");
    conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0))
        .expect("games")
}

/// Games in the score file (0 when there is no file yet).
fn games(data: &Path) -> i64 {
    let db = scores(data);
    if db.exists() { check_whole(&db) } else { 0 }
}

/// A small deterministic generator of kill moments (xorshift).
struct Moments(u64);

impl Moments {
    /// A number in `0.0..1.0`.
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[test]
fn a_kill_at_any_moment_leaves_the_score_file_whole() {
    let data = tempfile::tempdir().expect("tempdir");
    // How long a whole game takes here, recording included.
    let mut whole = Duration::ZERO;
    for _ in 0..3 {
        let t = Instant::now();
        let out = run(data.path(), QUICK_GAME);
        assert!(out.status.success(), "{}", text(&out.stderr));
        whole = whole.max(t.elapsed());
    }
    assert_eq!(games(data.path()), 3);
    let mut moments = Moments(0x9e37_79b9_7f4a_7c15);
    let (mut recorded, mut lost) = (0, 0);
    for round in 0..30 {
        let before = games(data.path());
        let mut child = spawn(data.path(), QUICK_GAME);
        // Spread over the whole run, most of it around the end.
        let at = whole.mul_f64(0.2 + 1.4 * moments.next());
        std::thread::sleep(at);
        // `kill` is SIGKILL: nothing of the game's own cleanup runs.
        let _ = child.kill();
        let _ = child.wait();
        let after = games(data.path());
        assert!(
            after == before || after == before + 1,
            "round {round}: {before} games before, {after} after"
        );
        if after > before {
            recorded += 1;
        } else {
            lost += 1;
        }
        // The game and its readers carry on with the file.
        let out = run(data.path(), &["stat"]);
        assert!(out.status.success(), "round {round}: {}", text(&out.stderr));
    }
    // Both sides of the end were reached: the kills did land before and
    // after the game's record.
    assert!(recorded > 0 && lost > 0, "{recorded} recorded, {lost} lost");
    let out = run(data.path(), QUICK_GAME);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(games(data.path()), 3 + recorded + 1);
}

#[test]
fn games_finishing_at_once_are_all_recorded() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut expected = 0;
    // Pairs, then a crowd.
    for n in [2, 2, 2, 2, 2, 6] {
        let children: Vec<Child> = (0..n).map(|_| spawn(data.path(), QUICK_GAME)).collect();
        for c in children {
            let out = c.wait_with_output().expect("wait");
            assert!(out.status.success(), "{}", text(&out.stderr));
        }
        expected += n;
        assert_eq!(games(data.path()), expected);
    }
    let out = run(data.path(), &["stat", "Steady Sam"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stat = text(&out.stdout);
    assert!(stat.contains(&format!("games {expected},")), "{stat}");
}

#[test]
fn a_game_waits_for_another_program_holding_the_score_file() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(BIN)
        .args(["--plain", "--seed", "22477", "--jokers", "never", "ann"])
        .env("GAMES_DATA_DIR", data.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cubes");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut wait_for = |needle: &str| {
        let mut line = String::new();
        loop {
            line.clear();
            let n = output.read_line(&mut line).expect("read");
            assert!(n > 0, "cubes ended before {needle:?}");
            if line.contains(needle) {
                return;
            }
        }
    };
    input.write_all(b"r\n").expect("roll");
    wait_for("ann rolls");
    // Another program takes the score file for writing, and keeps it.
    let mut holder = Connection::open(scores(data.path())).expect("open");
    let tx = holder
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .expect("lock");
    tx.execute("DELETE FROM playing WHERE name = 'nobody'", [])
        .expect("write");
    // ann leaves: the game is recorded as left unfinished, once the file
    // is free.
    input.write_all(b"q\ny\n").expect("quit");
    drop(input);
    std::thread::sleep(Duration::from_millis(1_500));
    assert!(
        child.try_wait().expect("try_wait").is_none(),
        "cubes should be waiting for the score file"
    );
    tx.commit().expect("release");
    let status = child.wait().expect("wait");
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut err);
    }
    assert!(status.success(), "{err}");
    assert_eq!(games(data.path()), 1);
    let out = run(data.path(), &["stat", "ann"]);
    assert!(
        text(&out.stdout).contains("left unfinished"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn a_score_file_that_cannot_be_opened_is_reported_not_panicked() {
    let data = tempfile::tempdir().expect("tempdir");
    // A directory where the file should be: nothing can open it, whoever
    // runs the test.
    std::fs::create_dir_all(scores(data.path())).expect("mkdir");
    let out = run(data.path(), QUICK_GAME);
    assert_clear_failure(&out, "a game");
    let err = text(&out.stderr);
    assert!(err.contains("--no-record"), "{err}");
    assert!(err.contains("scores.db"), "{err}");
    for cmd in [&["rank"][..], &["stat"], &["stat", "ann"]] {
        assert_clear_failure(&run(data.path(), cmd), &cmd.join(" "));
    }
    // Without recording, the game is played.
    let mut args = QUICK_GAME.to_vec();
    args.push("--no-record");
    let out = run(data.path(), &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn a_failed_record_at_the_games_end_is_reported_with_the_result() {
    let data = tempfile::tempdir().expect("tempdir");
    let out = run(data.path(), QUICK_GAME);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // From now on the file refuses new games, as a full disk would.
    let conn = Connection::open(scores(data.path())).expect("open");
    conn.execute_batch(
        "CREATE TRIGGER refuse BEFORE INSERT ON games
         BEGIN SELECT RAISE(ABORT, 'disk full'); END;",
    )
    .expect("trigger");
    drop(conn);
    let out = run(data.path(), QUICK_GAME);
    assert_clear_failure(&out, "recording");
    let err = text(&out.stderr);
    assert!(err.contains("recording the game"), "{err}");
    // The player still learns how the game ended.
    assert!(
        text(&out.stdout).contains("Optimal Olga won"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(games(data.path()), 1);
}

/// Runs `cubes` as an unprivileged user when the tests run as root (who may
/// write anywhere), so that file permissions apply; `None` where neither is
/// possible.
fn unprivileged(data: &Path, args: &[&str]) -> Option<Output> {
    let probe = data.join("cubes").join("probe");
    let root = std::fs::write(&probe, b"").is_ok();
    let mut cmd = if !root {
        Command::new(BIN)
    } else {
        let _ = std::fs::remove_file(&probe);
        let setpriv = Path::new("/usr/bin/setpriv");
        if !setpriv.exists() {
            return None;
        }
        let mut c = Command::new(setpriv);
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
        c
    };
    let out = cmd
        .args(args)
        .env("GAMES_DATA_DIR", data)
        .stdin(Stdio::null())
        .output()
        .expect("run cubes");
    Some(out)
}

#[cfg(unix)]
#[test]
fn a_read_only_score_file_is_read_and_not_written() {
    use std::os::unix::fs::PermissionsExt;
    let data = tempfile::tempdir().expect("tempdir");
    let out = run(data.path(), QUICK_GAME);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dir = data.path().join("cubes");
    // Readable by everybody, writable by nobody.
    let mode = |p: &Path, m| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).expect("chmod")
    };
    mode(data.path(), 0o755);
    mode(&scores(data.path()), 0o444);
    mode(&dir, 0o555);
    let Some(out) = unprivileged(data.path(), QUICK_GAME) else {
        eprintln!("running as root without setpriv: permissions cannot be tested");
        return;
    };
    assert_clear_failure(&out, "a game");
    let err = text(&out.stderr);
    assert!(err.contains("--no-record"), "{err}");
    // The rankings and statistics only read.
    let out = unprivileged(data.path(), &["rank", "--blitz", "--min-games", "1"]).expect("run");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Optimal Olga"));
    let out = unprivileged(data.path(), &["stat", "Optimal Olga"]).expect("run");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("games 1,"));
    mode(&dir, 0o755);
    assert_eq!(games(data.path()), 1);
}

#[test]
fn damaged_score_files_are_reported_by_rank_and_stat() {
    let readers: [&[&str]; 3] = [&["rank"], &["stat"], &["stat", "Steady Sam"]];
    // Text where a score should be.
    let data = tempfile::tempdir().expect("tempdir");
    let out = run(data.path(), QUICK_GAME);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let conn = Connection::open(scores(data.path())).expect("open");
    conn.execute("UPDATE results SET score = 'lots'", [])
        .expect("damage");
    drop(conn);
    let out = run(data.path(), &["rank", "--blitz"]);
    assert_clear_failure(&out, "rank --blitz");
    assert!(text(&out.stderr).contains("scores.db"));
    // Whatever else reads the file fails as clearly, or reads around it.
    for args in readers {
        let out = run(data.path(), args);
        if !out.status.success() {
            assert_clear_failure(&out, &args.join(" "));
        }
    }
    // Random bytes, and a file from a newer program.
    for damage in ["bytes", "newer"] {
        let data = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(data.path().join("cubes")).expect("mkdir");
        let db = scores(data.path());
        if damage == "bytes" {
            let mut m = Moments(7);
            let bytes: Vec<u8> = (0..3000).map(|_| (m.next() * 256.0) as u8).collect();
            std::fs::write(&db, bytes).expect("write");
        } else {
            let conn = Connection::open(&db).expect("open");
            conn.pragma_update(None, "user_version", 99)
                .expect("version");
        }
        for args in readers.iter().copied().chain([QUICK_GAME]) {
            let out = run(data.path(), args);
            assert_clear_failure(&out, &format!("{} on {damage}", args.join(" ")));
            if damage == "newer" {
                assert!(
                    text(&out.stderr).contains("newer than this program knows"),
                    "{}",
                    text(&out.stderr)
                );
            }
        }
    }
}
