//! Runs the real `mille` binary in a pseudo-terminal and reads its screen
//! with a vt100 parser.
#![allow(dead_code)]

use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A running game in a pseudo-terminal.
pub struct Pty {
    parser: Arc<Mutex<vt100::Parser>>,
    writer: Option<Box<dyn Write + Send>>,
    child: Box<dyn Child + Send + Sync>,
    master: Option<Box<dyn portable_pty::MasterPty + Send>>,
    /// Asks the screen reader to let go of its copy of the terminal.
    closing: Arc<AtomicBool>,
    /// The screen reader has let go of it.
    reader_gone: Arc<AtomicBool>,
}

impl Pty {
    /// Starts `mille ARGS` in `cwd` with its data in `data_dir`.
    pub fn spawn(args: &[&str], data_dir: &Path, cwd: &Path, cols: u16, rows: u16) -> Pty {
        Pty::spawn_wrapped(&[], args, data_dir, cwd, cols, rows)
    }

    /// [`Pty::spawn`] under the program and arguments `wrapper` (`setsid
    /// -w`: a game that is not the terminal's session leader, which a
    /// closing terminal does not send SIGHUP).
    pub fn spawn_wrapped(
        wrapper: &[&str],
        args: &[&str],
        data_dir: &Path,
        cwd: &Path,
        cols: u16,
        rows: u16,
    ) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pty");
        let mut cmd = match wrapper.split_first() {
            Some((program, rest)) => {
                let mut cmd = CommandBuilder::new(program);
                cmd.args(rest);
                cmd.arg(env!("CARGO_BIN_EXE_mille"));
                cmd
            }
            None => CommandBuilder::new(env!("CARGO_BIN_EXE_mille")),
        };
        // No pause between computer moves: tests do not need to follow them.
        cmd.arg("--delay");
        cmd.arg("0");
        for a in args {
            cmd.arg(a);
        }
        cmd.cwd(cwd);
        cmd.env("GAMES_DATA_DIR", data_dir);
        cmd.env("XDG_DATA_HOME", data_dir);
        cmd.env("HOME", data_dir);
        cmd.env("TERM", "xterm-256color");
        cmd.env("USER", "tester");
        let child = pair.slave.spawn_command(cmd).expect("spawn mille");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = pair.master.take_writer().expect("writer");
        let nz = |n: u16| std::num::NonZeroU16::new(n.max(1)).unwrap_or(std::num::NonZeroU16::MIN);
        let parser = Arc::new(Mutex::new(vt100::Parser::new(nz(rows), nz(cols), 0)));
        let p = Arc::clone(&parser);
        let closing = Arc::new(AtomicBool::new(false));
        let reader_gone = Arc::new(AtomicBool::new(false));
        let (c, gone) = (Arc::clone(&closing), Arc::clone(&reader_gone));
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if let Ok(mut parser) = p.lock() {
                            parser.process(&buf[..n]);
                        }
                    }
                }
                if c.load(Ordering::SeqCst) {
                    break;
                }
            }
            drop(reader);
            gone.store(true, Ordering::SeqCst);
        });
        Pty {
            parser,
            writer: Some(writer),
            child,
            master: Some(pair.master),
            closing,
            reader_gone,
        }
    }

    /// Types keys.
    pub fn send(&mut self, keys: &str) {
        let w = self.writer.as_mut().expect("the terminal is open");
        w.write_all(keys.as_bytes()).expect("write keys");
        w.flush().expect("flush keys");
    }

    /// The program's process id.
    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("a running program")
    }

    /// Sends the signal `name` (`HUP`, `TERM`, `KILL`) to the program.
    pub fn kill(&self, name: &str) {
        let ok = std::process::Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.pid().to_string())
            .status()
            .expect("run kill")
            .success();
        assert!(ok, "kill -{name} failed");
    }

    /// Closes the terminal, as closing its window does: every descriptor
    /// of its master side. The screen reader holds one, blocked in a read:
    /// a resize makes a full-screen program redraw, which wakes it to let
    /// go.
    pub fn close(&mut self) {
        self.closing.store(true, Ordering::SeqCst);
        if let Some(m) = &self.master {
            let _ = m.resize(PtySize {
                rows: 20,
                cols: 70,
                pixel_width: 0,
                pixel_height: 0,
            });
        }
        let end = Instant::now() + Duration::from_secs(5);
        while !self.reader_gone.load(Ordering::SeqCst) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(self.reader_gone.load(Ordering::SeqCst), "the reader let go");
        self.writer = None;
        self.master = None;
    }

    /// Whether the alternate screen is shown, mouse reports are on, or the
    /// cursor hidden: what a full-screen program must undo when it leaves.
    pub fn left_modes_on(&self) -> Vec<&'static str> {
        let Ok(p) = self.parser.lock() else {
            return vec!["unreadable"];
        };
        let s = p.screen();
        let mut on = Vec::new();
        if s.alternate_screen() {
            on.push("alternate screen");
        }
        if s.mouse_protocol_mode() != vt100::MouseProtocolMode::None {
            on.push("mouse capture");
        }
        if s.hide_cursor() {
            on.push("hidden cursor");
        }
        on
    }

    /// The screen's text.
    pub fn screen(&self) -> String {
        self.parser
            .lock()
            .map(|p| p.screen().contents())
            .unwrap_or_default()
    }

    /// Every row of the screen as the eye sees it: without trailing
    /// blanks, because a cell cleared by writing a space and a cell never
    /// written look alike but the terminal parser keeps them apart (which
    /// made a restored screen differ from the saved one when a longer
    /// message had been drawn and wiped on that row first).
    pub fn rows(&self) -> Vec<String> {
        self.parser
            .lock()
            .map(|p| {
                p.screen()
                    .rows(0, u16::MAX)
                    .map(|r| r.trim_end().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Columns `from..from + width` of every row.
    pub fn region(&self, from: u16, width: u16) -> Vec<String> {
        self.parser
            .lock()
            .map(|p| p.screen().rows(from, width).collect())
            .unwrap_or_default()
    }

    /// The last line (the message line).
    pub fn last_line(&self) -> String {
        self.rows().last().cloned().unwrap_or_default()
    }

    /// Waits until the screen shows `needle`.
    pub fn wait_for(&self, needle: &str, secs: u64) -> String {
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.screen();
            if s.contains(needle) {
                return s;
            }
            if Instant::now() > end {
                panic!("timed out waiting for {needle:?}; the screen shows:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits until the screen differs from `before`.
    pub fn wait_change(&self, before: &str, secs: u64) -> String {
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.screen();
            if s != before || Instant::now() > end {
                return s;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the program to end; its success.
    pub fn wait_exit(&mut self, secs: u64) -> Option<bool> {
        self.wait_status(secs).map(|code| code == 0)
    }

    /// Waits for the program to end; its exit code.
    pub fn wait_status(&mut self, secs: u64) -> Option<u32> {
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status.exit_code());
            }
            if Instant::now() > end {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
    }
}

/// Plays the player's side of the current hand by the dumbest safe rule:
/// pick, then discard (or play when only safeties are left), and let a coup
/// fourré chance pass. Returns the screen at the end-of-hand question.
pub fn play_out_hand(pty: &mut Pty) -> String {
    let attempts = [
        "dp ", "d1 ", "d2 ", "d3 ", "d4 ", "d5 ", "d6 ", "up ", "u1 ", "u2 ", "u3 ", "u4 ", "u5 ",
        "u6 ",
    ];
    for _ in 0..2000 {
        let s = pty.screen();
        if s.contains("(y/n)") && (s.contains("Another hand?") || s.contains("Another game?")) {
            return s;
        }
        if s.contains("P to pick") || s.contains("or P to let it pass") {
            pty.send("p");
            pty.wait_change(&s, 5);
            continue;
        }
        if s.contains("U to use or D to discard") {
            for a in attempts {
                let before = pty.screen();
                pty.send(a);
                let after = pty.wait_change(&before, 5);
                std::thread::sleep(Duration::from_millis(60));
                let after = pty.wait_change(&after, 0);
                let error = !pty.last_line().trim().is_empty()
                    && after.contains("U to use or D to discard");
                if !error {
                    break;
                }
            }
            continue;
        }
        std::thread::sleep(Duration::from_millis(30));
    }
    panic!("the hand did not end; the screen shows:\n{}", pty.screen());
}
