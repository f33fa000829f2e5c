//! End-to-end: at the end of a local game played full screen, once the
//! screen is given back, mille offers to review it; `y` prints the
//! review of the person's decisions, `n` ends at once.

use mille_engine::{GameConfig, RulesetId};
use mille_store::{SaveFile, SaveSettings};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mille");

/// A save file of a whole bsd game the classic bot played at both seats:
/// resumed, it stands at its end.
fn finished_game(dir: &Path) -> String {
    let config = GameConfig {
        rules: RulesetId::Bsd,
        players: 2,
        stacking: false,
    };
    let record = mille_review::classic_game(config, 7, None);
    let save = SaveFile::new(
        record,
        SaveSettings {
            level: "classic".into(),
            player: "ann".into(),
            sorted: false,
        },
    );
    let path = dir.join("finished.mille");
    save.write(&path).expect("write the save file");
    path.to_string_lossy().into_owned()
}

struct Screen {
    parser: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Screen {
    fn spawn(args: &[&str], data: &Path) -> Screen {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 80,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pty");
        let mut cmd = CommandBuilder::new(BIN);
        cmd.args(args);
        cmd.env("GAMES_DATA_DIR", data);
        cmd.env("TERM", "xterm-256color");
        let child = pair.slave.spawn_command(cmd).expect("spawn mille");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = pair.master.take_writer().expect("writer");
        let parser = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZeroU16::new(24).expect("rows"),
            std::num::NonZeroU16::new(80).expect("cols"),
            0,
        )));
        let p = Arc::clone(&parser);
        std::thread::spawn(move || {
            // The master side stays open in this thread until the program
            // ends: the terminal is not closed under it.
            let _master = pair.master;
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut parser) = p.lock() {
                    parser.process(&buf[..n]);
                }
            }
        });
        Screen {
            parser,
            writer,
            child,
        }
    }

    fn text(&self) -> String {
        self.parser
            .lock()
            .map(|p| p.screen().contents())
            .unwrap_or_default()
    }

    fn keys(&mut self, keys: &str) {
        self.writer.write_all(keys.as_bytes()).expect("type");
        self.writer.flush().expect("flush");
    }

    fn wait_for(&self, needle: &str) -> String {
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            let s = self.text();
            if s.contains(needle) {
                return s;
            }
            assert!(
                Instant::now() < end,
                "timed out waiting for {needle:?}; the screen shows:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn wait_exit(&mut self) -> u32 {
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.exit_code();
            }
            assert!(
                Instant::now() < end,
                "mille did not end; the screen shows:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn the_end_of_a_local_game_offers_its_review() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = finished_game(dir.path());
    let mut s = Screen::spawn(&["--delay", "0", &file], dir.path());
    s.wait_for("Another game? (y/n)");
    s.keys("n");
    // A resumed game asks whether to save it first.
    s.wait_for("Save the game? (y/n)");
    s.keys("n");
    s.wait_for("Review this game");
    s.keys("n\r");
    assert_eq!(s.wait_exit(), 0);
}

#[test]
fn a_game_left_before_its_end_offers_no_review() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = GameConfig {
        rules: RulesetId::Bsd,
        players: 2,
        stacking: false,
    };
    // Its first hand only.
    let record = mille_review::classic_game(config, 7, Some(1));
    let save = SaveFile::new(
        record,
        SaveSettings {
            level: "classic".into(),
            player: "ann".into(),
            sorted: false,
        },
    );
    let path = dir.path().join("unfinished.mille");
    save.write(&path).expect("write the save file");
    let file = path.to_string_lossy().into_owned();
    let mut s = Screen::spawn(&["--delay", "0", &file], dir.path());
    s.wait_for("Deck:");
    s.keys("Q");
    let mut answered = false;
    let end = Instant::now() + Duration::from_secs(30);
    while Instant::now() < end {
        if let Ok(Some(status)) = s.child.try_wait() {
            assert_eq!(status.exit_code(), 0);
            assert!(
                !s.text().contains("Review this game"),
                "an unfinished game offered a review:\n{}",
                s.text()
            );
            return;
        }
        let text = s.text();
        if !answered && text.contains("(y/n)") {
            // Quit? Save? Each answered once, no.
            s.keys("y");
            answered = true;
            continue;
        }
        if answered && text.contains("Save the game? (y/n)") {
            s.keys("n");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("mille did not end; the screen shows:\n{}", s.text());
}
