//! What the end-to-end tests against a real `mille serve` share: the
//! server started on a free loopback port (ready once it says it listens,
//! killed when dropped: a failing test leaves no server behind), child
//! processes killed when dropped, a person's raw WebSocket client, and the
//! example Python bot's script with the check that Python can run it.

// Each test uses only some of these.
#![allow(dead_code)]

use futures_util::{SinkExt, StreamExt};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use table_protocol::{ClientMessage, ServerMessage, VERSION};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// A free port on the loopback interface (free when asked: the server
/// takes it right after).
pub fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
}

/// A child process killed when dropped (a failing test leaves nothing
/// running).
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `mille serve` at `addr` with its data in `data`, no pause after a
/// computer's move and `extra` besides, its output dropped; returns once
/// it accepts connections.
pub fn serve_quiet(addr: &str, data: &Path, extra: &[&str]) -> Running {
    let child = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["serve", "--listen", addr, "--no-socket", "--data"])
        .arg(data)
        .args(["--bot-delay", "0"])
        .args(extra)
        .env("GAMES_DATA_DIR", data)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start mille serve");
    let server = Running(child);
    let end = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < end, "the server did not start listening");
        std::thread::sleep(Duration::from_millis(50));
    }
    server
}

/// `mille bot --connect ADDR --level LEVEL --name NAME`, its token (and
/// data) kept in `keep`, with no input and its output dropped: callers add
/// what else they need and spawn it.
pub fn bot_command(addr: &str, name: &str, level: &str, keep: &Path) -> Command {
    let mut bot = Command::new(env!("CARGO_BIN_EXE_mille"));
    bot.args(["bot", "--connect", addr, "--level", level])
        .args(["--name", name, "--token-file"])
        .arg(keep.join("bot-tokens.json"))
        .env("GAMES_DATA_DIR", keep)
        .stdin(Stdio::null())
        .stdout(Stdio::null());
    bot
}

/// The example bot, `docs/examples/mille_bot.py`.
pub fn example_bot_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/mille_bot.py")
}

/// The example bot connecting to `addr` as `name`, run in `dir` (where it
/// keeps its token), with no input: callers add what else they need and
/// spawn it. Call [`python_with_websockets`] first.
pub fn example_bot_command(addr: SocketAddr, name: &str, dir: &Path) -> Command {
    let mut bot = Command::new("python3");
    bot.arg(example_bot_script())
        .arg(format!("ws://{addr}/ws"))
        .args(["--name", name])
        .current_dir(dir)
        .stdin(Stdio::null());
    bot
}

/// The example bot needs Python 3 and its `websockets`: a machine without
/// them fails here saying how to get them, never passes silently.
pub fn python_with_websockets() {
    let check = Command::new("python3")
        .args(["-c", "import websockets"])
        .output();
    match check {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "the example bot needs Python's websockets: `python3 -m pip install websockets` ({})",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => panic!("the example bot needs python3 ({e}), and then: pip install websockets"),
    }
}

/// A person's raw client over a bare WebSocket.
pub struct Client {
    /// The connection (tests that need more than messages use it).
    pub ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl Client {
    /// Connects, saying nothing yet.
    pub async fn connect(addr: SocketAddr) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
            .await
            .expect("connect");
        Client { ws }
    }

    /// Connects and says hello as `name`; returns once welcomed.
    pub async fn open(addr: SocketAddr, name: &str) -> Client {
        let mut c = Client::connect(addr).await;
        c.send(&ClientMessage::Hello {
            version: VERSION,
            name: Some(name.into()),
            token: None,
            client: None,
            bot: None,
        })
        .await;
        c.until(|m| matches!(m, ServerMessage::Welcome { .. }).then_some(()))
            .await;
        c
    }

    /// Sends `msg`.
    pub async fn send(&mut self, msg: &ClientMessage) {
        self.ws
            .send(Message::Text(msg.to_json().into()))
            .await
            .expect("send");
    }

    /// The next message from the server; generous, for a loaded machine.
    pub async fn recv(&mut self) -> ServerMessage {
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(90), self.ws.next())
                .await
                .expect("a message within 90 s")
                .expect("open")
                .expect("a frame");
            if let Message::Text(t) = frame {
                return serde_json::from_str(t.as_str()).expect("a server message");
            }
        }
    }

    /// Reads messages until `pick` picks one; what it picked.
    pub async fn until<T>(&mut self, mut pick: impl FnMut(&ServerMessage) -> Option<T>) -> T {
        loop {
            let m = self.recv().await;
            if let Some(t) = pick(&m) {
                return t;
            }
        }
    }
}

/// A running `mille serve`.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Server {
    /// Starts `mille serve` with `args` besides its address, without a
    /// Unix socket, pauses or a person's rate limit (tests play as fast
    /// as the server answers) unless `args` sets them, and waits until it
    /// says it listens.
    pub fn start(args: &[&std::ffi::OsStr]) -> Server {
        Server::start_at(free_addr(), args)
    }

    /// [`Server::start`] at `addr` (a server restarted where it was).
    pub fn start_at(addr: SocketAddr, args: &[&std::ffi::OsStr]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mille"))
            .args(["serve", "--listen", &addr.to_string()])
            .args(["--no-socket"])
            // Tests send fast and need no pauses; a test that wants one of
            // these gives its own.
            .args(
                [
                    ("--bot-delay", "0"),
                    ("--hand-pause", "0"),
                    ("--rate", "1000"),
                ]
                .into_iter()
                .filter(|(flag, _)| !args.iter().any(|a| a == flag))
                .flat_map(|(flag, value)| [flag, value]),
            )
            .args(args)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("mille serve starts");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("a line from the server");
        assert!(line.contains("listening on"), "the server says {line:?}");
        // Its later lines are read and dropped: a full pipe would block it.
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        Server { child, addr }
    }

    /// SIGKILL: no chance to flush or say goodbye.
    pub fn kill(mut self) {
        self.child.kill().expect("kill");
        self.child.wait().expect("wait");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
