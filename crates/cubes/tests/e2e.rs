//! End-to-end tests: the real `cubes` binary in a pseudo-terminal (the
//! full-screen game, read back through a terminal emulator) and on pipes
//! (`--plain`, `rank`, `stat`). Every run uses its own temporary data
//! directory through `GAMES_DATA_DIR`, so the user's score file is never
//! touched and nothing needs installing.

mod common;

use common::{BIN, Pty, run, send_signal};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[test]
fn a_newcomer_rolls_reads_help_and_quits_after_confirming() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut p = Pty::spawn(
        data.path(),
        &["--seed", "22477", "--jokers", "never", "alice"],
    );
    p.wait_for("Press r to roll");
    assert!(p.text().contains("Standard game to 10,000 points"));
    p.keys("r");
    let s = p.wait_for("This roll:");
    assert!(s.contains("alice rolls"), "{s}");
    // Holding before getting on board is refused with the rule.
    p.keys("h");
    p.wait_for("not on board yet");
    p.keys("?");
    p.wait_for("Help (any key to go back)");
    p.keys("x");
    p.wait_for("This roll:");
    // Quitting asks first; "n" goes on, "y" leaves.
    p.keys("q");
    p.wait_for("Really leave this game?");
    p.keys("n");
    p.wait_for("the game goes on");
    p.keys("q");
    p.wait_for("Really leave this game?");
    p.keys("y");
    assert!(p.wait_exit(), "cubes exits cleanly");
    // The unfinished game is in the score file, as the man page warns.
    let (ok, out, err) = run(data.path(), &["stat", "alice"], "");
    assert!(ok, "{err}");
    assert!(out.contains("games 1, wins 0"), "{out}");
    assert!(out.contains("left unfinished"), "{out}");
    assert!(out.contains("Nobody is playing now"), "{out}");
}

#[test]
fn picking_dice_and_rolling_the_rest() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut p = Pty::spawn(
        data.path(),
        &["--seed", "22477", "--jokers", "never", "--no-record", "bob"],
    );
    p.wait_for("Press r to roll");
    p.keys("r");
    p.wait_for("This roll:");
    // Rolling with nothing picked explains what to do.
    p.keys("r");
    p.wait_for("First pick the scoring dice");
    p.keys("a");
    let s = p.wait_for("Picked:");
    assert!(s.contains("keep"), "{s}");
    p.keys("r");
    p.wait_for("bob keeps");
    p.keys("q");
    p.keys("y");
    assert!(p.wait_exit());
    let (_, out, _) = run(data.path(), &["rank"], "");
    assert!(
        out.contains("No games recorded yet"),
        "--no-record writes nothing: {out}"
    );
}

#[test]
fn watching_computers_play_a_whole_game_records_it() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut p = Pty::spawn(
        data.path(),
        &[
            "--watch", "--delay", "0", "-c", "bold", "-c", "cautious", "--blitz", "--seed", "3",
        ],
    );
    let s = p.wait_for("Game over");
    assert!(
        s.contains("Bold Bella") && s.contains("Cautious Carla"),
        "{s}"
    );
    p.keys("q");
    assert!(p.wait_exit());
    let (ok, out, err) = run(data.path(), &["rank", "--blitz", "--min-games", "1"], "");
    assert!(ok, "{err}");
    assert!(out.contains("Bold Bella (computer)"), "{out}");
    assert!(out.contains("Cautious Carla (computer)"), "{out}");
    let wins: u32 = out
        .lines()
        .filter(|l| l.contains("(computer)"))
        .filter_map(|l| {
            l.split_whitespace()
                .rev()
                .nth(3)
                .and_then(|w| w.parse::<u32>().ok())
        })
        .sum();
    assert_eq!(wins, 1, "exactly one winner recorded:\n{out}");
}

#[test]
fn plain_mode_plays_on_lines() {
    let data = tempfile::tempdir().expect("tempdir");
    let (ok, out, err) = run(
        data.path(),
        &["--plain", "--seed", "22477", "--jokers", "never", "ann"],
        "h\nr\nk 9\n?\nq\ny\n",
    );
    assert!(ok, "{err}");
    assert!(out.contains("Roll the dice first"), "{out}");
    assert!(out.contains("ann rolls"), "{out}");
    assert!(out.contains("\"9\" is not a die number"), "{out}");
    assert!(
        out.contains("On board: your first banked turn needs 500"),
        "{out}"
    );
    assert!(out.contains("Game left unfinished"), "{out}");
}

#[test]
fn plain_watch_game_ends_with_a_winner_over_the_target() {
    let data = tempfile::tempdir().expect("tempdir");
    let (ok, out, err) = run(
        data.path(),
        &[
            "--plain", "--watch", "-c", "optimal", "-c", "steady", "--seed", "11",
        ],
        "",
    );
    assert!(ok, "{err}");
    let last = out
        .lines()
        .find(|l| l.contains(" wins with "))
        .expect("a winner");
    let score: u32 = last
        .split(" wins with ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .map(|n| n.replace(',', ""))
        .and_then(|n| n.parse().ok())
        .expect("a score");
    assert!(score >= 7_500, "{last}");
    let (_, stat, _) = run(data.path(), &["stat", "Steady Sam"], "");
    assert!(stat.contains("games 1"), "{stat}");
}

#[test]
fn bad_command_lines_are_refused_clearly() {
    let data = tempfile::tempdir().expect("tempdir");
    let (ok, _, err) = run(data.path(), &["-c", "nobody", "--plain"], "");
    assert!(!ok);
    assert!(
        err.contains("no computer player called \"nobody\""),
        "{err}"
    );
    let (ok, _, err) = run(data.path(), &["--plain", "-H", "ann", "ann"], "");
    assert!(!ok);
    assert!(err.contains("two players are called"), "{err}");
    // A person cannot take a computer player's name (their records would
    // read as the computer's).
    let (ok, _, err) = run(
        data.path(),
        &["--plain", "-c", "reckless", "Steady Sam"],
        "",
    );
    assert!(!ok);
    assert!(err.contains("is the name of a computer player"), "{err}");
    // Without a terminal the full-screen game says what to do instead.
    let (ok, _, err) = run(data.path(), &["ann"], "");
    assert!(!ok);
    assert!(err.contains("use --plain"), "{err}");
}

#[test]
fn closing_the_terminal_records_the_game_as_left_unfinished() {
    // "Don't quit!": closing the window (SIGHUP) used to kill the game
    // before it could record the loss that quitting records.
    let data = tempfile::tempdir().expect("tempdir");
    let mut p = Pty::spawn(
        data.path(),
        &["--seed", "22477", "--jokers", "never", "carol"],
    );
    p.wait_for("Press r to roll");
    p.keys("r");
    p.wait_for("This roll:");
    p.signal("HUP");
    assert_eq!(p.exit_code(), 128 + 1, "exit status 128 + SIGHUP");
    let (ok, out, err) = run(data.path(), &["stat", "carol"], "");
    assert!(ok, "{err}");
    assert!(out.contains("games 1, wins 0"), "{out}");
    assert!(out.contains("left unfinished"), "{out}");
    assert!(out.contains("Nobody is playing now"), "{out}");
}

#[test]
fn kill_records_the_game_and_restores_the_terminal() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut p = Pty::spawn(
        data.path(),
        &["--seed", "22477", "--jokers", "never", "dave"],
    );
    p.wait_for("Press r to roll");
    assert!(p.alternate_screen());
    p.keys("r");
    p.wait_for("This roll:");
    p.signal("TERM");
    assert_eq!(p.exit_code(), 128 + 15, "exit status 128 + SIGTERM");
    // The reader thread may still be processing the last bytes.
    let start = Instant::now();
    while p.alternate_screen() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(30));
    }
    assert!(!p.alternate_screen(), "the shell's screen is back");
    let (_, out, _) = run(data.path(), &["stat", "dave"], "");
    assert!(out.contains("left unfinished"), "{out}");
}

#[test]
fn kill_records_a_plain_game_waiting_for_input() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(BIN)
        .args(["--plain", "--seed", "22477", "--jokers", "never", "erin"])
        .env("GAMES_DATA_DIR", data.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cubes");
    // Roll, then keep the input open: the game waits for the next line.
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"r\n").expect("write");
    stdin.flush().expect("flush");
    std::thread::sleep(Duration::from_millis(500));
    send_signal(child.id(), "TERM");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "cubes --plain did not exit on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(30));
    };
    drop(stdin);
    assert_eq!(status.code(), Some(128 + 15));
    let (_, out, _) = run(data.path(), &["stat", "erin"], "");
    assert!(out.contains("games 1, wins 0"), "{out}");
    assert!(out.contains("left unfinished"), "{out}");
}

#[test]
fn keys_do_nothing_while_the_terminal_is_too_small() {
    // The audit pressed r on the "too small" screen and rolled blind. A
    // roll would make the game count (it would be recorded when left).
    let data = tempfile::tempdir().expect("tempdir");
    let mut p = Pty::spawn_sized(data.path(), &["--seed", "22477", "frank"], 15, 50);
    p.wait_for("Please make it bigger");
    p.keys("r");
    p.keys("a");
    p.keys("h");
    let s = p.wait_for("Please make it bigger");
    assert!(!s.contains("frank rolls"), "{s}");
    p.keys("q");
    p.keys("y");
    assert!(p.wait_exit());
    let (ok, out, err) = run(data.path(), &["stat", "frank"], "");
    assert!(ok, "{err}");
    assert!(out.contains("frank has no recorded games"), "{out}");
}

/// A `cubes` in a pseudo-terminal whose master only the test holds (no
/// reader thread keeps a copy), so that [`Closable::close`] really closes
/// the terminal, as closing a window or `tmux kill-session` does.
struct Closable {
    screen: vt100::Parser,
    reader: Box<dyn Read + Send>,
    writer: Box<dyn Write + Send>,
    master: Box<dyn portable_pty::MasterPty + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    /// Set once the test is done with the child: until then a watchdog
    /// kills it after a while, so that a blocking read cannot hang the test.
    done: Arc<std::sync::atomic::AtomicBool>,
}

impl Closable {
    /// Runs `program args` in a new terminal of 80 x 24.
    fn spawn(data: &Path, program: &str, args: &[&str]) -> Closable {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 80,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pseudo-terminal");
        let mut cmd = CommandBuilder::new(program);
        cmd.args(args);
        cmd.env("GAMES_DATA_DIR", data);
        cmd.env("TERM", "xterm-256color");
        let child = pair.slave.spawn_command(cmd).expect("spawn");
        drop(pair.slave);
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut killer = child.clone_killer();
        let watched = done.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(30) {
                if watched.load(std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = killer.kill();
        });
        Closable {
            screen: vt100::Parser::new(
                std::num::NonZeroU16::new(24).expect("rows"),
                std::num::NonZeroU16::new(80).expect("cols"),
                0,
            ),
            reader: pair.master.try_clone_reader().expect("reader"),
            writer: pair.master.take_writer().expect("writer"),
            master: pair.master,
            child,
            done,
        }
    }

    /// Reads the game's output until the screen shows `needle`.
    fn wait_for(&mut self, needle: &str) {
        let mut buf = [0u8; 4096];
        while !self.screen.screen().contents().contains(needle) {
            match self.reader.read(&mut buf) {
                Ok(n) if n > 0 => self.screen.process(&buf[..n]),
                _ => panic!(
                    "the game ended before showing {needle:?}:\n{}",
                    self.screen.screen().contents()
                ),
            }
        }
    }

    fn keys(&mut self, k: &str) {
        self.writer.write_all(k.as_bytes()).expect("type");
        self.writer.flush().expect("flush");
    }

    /// Closes the terminal: every copy of its master goes.
    fn close(self) -> ClosedChild {
        let Closable {
            reader,
            writer,
            master,
            child,
            done,
            ..
        } = self;
        drop((reader, writer, master));
        ClosedChild { child, done }
    }
}

/// What ran in a terminal that is now closed.
struct ClosedChild {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    done: Arc<std::sync::atomic::AtomicBool>,
}

impl Drop for ClosedChild {
    fn drop(&mut self) {
        self.done.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = self.child.kill();
    }
}

/// Polls until `cubes stat name` says the game was left unfinished and
/// nobody plays any more, for at most `limit`.
fn wait_recorded_as_left(data: &Path, name: &str, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        let (_, out, _) = run(data, &["stat", name], "");
        if out.contains("left unfinished") && out.contains("Nobody is playing now") {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[test]
fn closing_the_terminal_ends_the_game_at_once() {
    // `tmux kill-session` left cubes running: its terminal reader read
    // end-of-file over and over without returning, at full speed, holding
    // the score file open and never recording the game.
    let data = tempfile::tempdir().expect("tempdir");
    let mut t = Closable::spawn(
        data.path(),
        BIN,
        &["--seed", "22477", "--jokers", "never", "gina"],
    );
    t.wait_for("Press r to roll");
    t.keys("r");
    t.wait_for("This roll:");
    let mut closed = t.close();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = closed.child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "cubes still runs 5 s after its terminal closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.exit_code(), 128 + 1, "left as after a hangup");
    assert!(wait_recorded_as_left(
        data.path(),
        "gina",
        Duration::from_secs(1)
    ));
}

/// The processes whose parent is `parent` (Linux: from `/proc`).
#[cfg(target_os = "linux")]
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            // "pid (comm) state ppid ...": the name may hold spaces.
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| {
                    let rest = s.rsplit_once(')')?.1.to_string();
                    rest.split_whitespace().nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

#[test]
fn a_terminal_closed_without_a_hangup_signal_ends_the_game() {
    // A shell that stays between the terminal and cubes is the session
    // leader: closing the terminal sends it, not cubes, the hangup. cubes
    // must see for itself that its terminal is gone.
    let data = tempfile::tempdir().expect("tempdir");
    let mut t = Closable::spawn(
        data.path(),
        "sh",
        &[
            "-c",
            "\"$0\" \"$@\"; true",
            BIN,
            "--seed",
            "7",
            "--jokers",
            "never",
            "hugo",
        ],
    );
    t.wait_for("Press r to roll");
    t.keys("r");
    t.wait_for("This roll:");
    #[cfg(target_os = "linux")]
    let game = children_of(t.child.process_id().expect("the shell's pid"));
    let _closed = t.close();
    let recorded = wait_recorded_as_left(data.path(), "hugo", Duration::from_secs(5));
    #[cfg(target_os = "linux")]
    {
        assert_eq!(game.len(), 1, "the shell runs cubes: {game:?}");
        let start = Instant::now();
        while Path::new(&format!("/proc/{}", game[0])).exists()
            && start.elapsed() < Duration::from_secs(2)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        let running = Path::new(&format!("/proc/{}", game[0])).exists();
        if running {
            // Do not leave it spinning after a failed test.
            send_signal(game[0], "KILL");
        }
        assert!(!running, "cubes still runs after its terminal closed");
    }
    assert!(recorded, "the game left by closing is recorded");
}

#[test]
fn ctrl_c_on_the_full_screen_leaves_at_once_and_records_the_quit() {
    let data = tempfile::tempdir().expect("tempdir");
    let mut p = Pty::spawn(
        data.path(),
        &["--seed", "22477", "--jokers", "never", "iris"],
    );
    p.wait_for("Press r to roll");
    p.keys("r");
    p.wait_for("This roll:");
    p.keys("\u{3}");
    assert_eq!(p.exit_code(), 128 + 2, "exit status 128 + SIGINT");
    let (_, out, _) = run(data.path(), &["stat", "iris"], "");
    assert!(out.contains("games 1, wins 0"), "{out}");
    assert!(out.contains("left unfinished"), "{out}");
}
