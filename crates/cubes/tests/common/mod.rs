//! What the end-to-end tests share: the real `cubes` binary in a
//! pseudo-terminal, read back through a terminal emulator ([`Pty`]), and on
//! pipes ([`run`]). Each test binary uses a part of it.
#![allow(dead_code)]

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The program under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_cubes");

/// A `cubes` running in a pseudo-terminal (80 x 24 unless told).
pub struct Pty {
    screen: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    /// The terminal's master side, until [`Pty::close`].
    master: Option<Box<dyn portable_pty::MasterPty + Send>>,
    /// Asks the screen reader to let go of its copy of the master side.
    closing: Arc<AtomicBool>,
    /// The screen reader has let go of it.
    reader_gone: Arc<AtomicBool>,
}

impl Pty {
    /// Starts `cubes ARGS` in an 80 x 24 terminal with its data in `data`.
    pub fn spawn(data: &Path, args: &[&str]) -> Pty {
        Pty::spawn_sized(data, args, 24, 80)
    }

    /// Starts `cubes ARGS` in a terminal of this size.
    pub fn spawn_sized(data: &Path, args: &[&str], rows: u16, cols: u16) -> Pty {
        Pty::spawn_wrapped(&[], data, args, rows, cols)
    }

    /// [`Pty::spawn_sized`] under the program and arguments `wrapper`
    /// (`setsid -w`: a game that is not the terminal's session leader, to
    /// which a closing terminal sends no SIGHUP).
    pub fn spawn_wrapped(
        wrapper: &[&str],
        data: &Path,
        args: &[&str],
        rows: u16,
        cols: u16,
    ) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pseudo-terminal");
        let mut cmd = match wrapper.split_first() {
            Some((program, rest)) => {
                let mut cmd = CommandBuilder::new(program);
                cmd.args(rest);
                cmd.arg(BIN);
                cmd
            }
            None => CommandBuilder::new(BIN),
        };
        cmd.args(args);
        cmd.env("GAMES_DATA_DIR", data);
        cmd.env("TERM", "xterm-256color");
        let child = pair.slave.spawn_command(cmd).expect("spawn cubes");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer = pair.master.take_writer().expect("writer");
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZeroU16::new(rows).expect("rows"),
            std::num::NonZeroU16::new(cols).expect("cols"),
            0,
        )));
        let s = screen.clone();
        let closing = Arc::new(AtomicBool::new(false));
        let reader_gone = Arc::new(AtomicBool::new(false));
        let (c, gone) = (closing.clone(), reader_gone.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut p) = s.lock() {
                    p.process(&buf[..n]);
                }
                if c.load(Ordering::SeqCst) {
                    break;
                }
            }
            drop(reader);
            gone.store(true, Ordering::SeqCst);
        });
        Pty {
            screen,
            writer,
            child,
            master: Some(pair.master),
            closing,
            reader_gone,
        }
    }

    /// The program's process id.
    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("a running program")
    }

    /// Closes the terminal, as closing its window does: every descriptor
    /// of its master side. The screen reader holds one, blocked in a read:
    /// a resize makes the full screen redraw, which wakes it to let go.
    /// Typing after this is not possible.
    pub fn close(&mut self) {
        self.close_typing("");
    }

    /// [`Pty::close`], typing `wake` first: a game that gets no SIGWINCH
    /// (not in the terminal's foreground) does not redraw on a resize,
    /// but a key that changes the screen wakes the reader as well.
    pub fn close_typing(&mut self, wake: &str) {
        self.closing.store(true, Ordering::SeqCst);
        if !wake.is_empty() {
            self.send(wake);
        }
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
        self.writer = Box::new(std::io::sink());
        self.master = None;
    }

    /// The screen as it is now.
    pub fn text(&self) -> String {
        self.screen
            .lock()
            .map(|p| p.screen().contents())
            .unwrap_or_default()
    }

    /// Waits (up to 20 s) until the screen shows `needle`; the screen.
    pub fn wait_for(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let t = self.text();
            if t.contains(needle) {
                return t;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out waiting for {needle:?}; screen:\n{t}"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Types `k` and goes on at once.
    pub fn send(&mut self, k: &str) {
        self.writer.write_all(k.as_bytes()).expect("type");
        self.writer.flush().expect("flush");
    }

    /// Types `k`, then gives the game a moment.
    pub fn keys(&mut self, k: &str) {
        self.writer.write_all(k.as_bytes()).expect("type");
        self.writer.flush().expect("flush");
        std::thread::sleep(Duration::from_millis(150));
    }

    /// Sends a signal (`HUP`, `TERM`) to the game, as closing the terminal
    /// window or `kill` would.
    pub fn signal(&self, name: &str) {
        let pid = self.child.process_id().expect("the game's pid");
        send_signal(pid, name);
    }

    /// Whether the screen is in the alternate buffer (the game's) rather
    /// than the shell's.
    pub fn alternate_screen(&self) -> bool {
        self.screen
            .lock()
            .map(|p| p.screen().alternate_screen())
            .unwrap_or(true)
    }

    /// Waits (up to 20 s) for the program's exit code.
    pub fn exit_code(&mut self) -> u32 {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.exit_code();
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "cubes did not exit:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Waits (up to 20 s) for the program to end; whether it succeeded.
    pub fn wait_exit(&mut self) -> bool {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.success();
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "cubes did not exit:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }
}

/// Sends signal `name` to process `pid`.
pub fn send_signal(pid: u32, name: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .expect("run kill")
        .success();
    assert!(ok, "kill -{name} {pid}");
}

/// Runs `cubes ARGS` on pipes with `stdin`: success, standard output and
/// standard error.
pub fn run(data: &Path, args: &[&str], stdin: &str) -> (bool, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .env("GAMES_DATA_DIR", data)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cubes");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("run cubes");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
