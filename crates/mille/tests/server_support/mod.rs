//! A real `mille serve` for end-to-end tests: started on a free loopback
//! port, ready once it says it listens, killed when dropped (a failing
//! test leaves no server behind).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

/// A running `mille serve`.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its standard output, kept open: a server writing to a closed pipe
    /// would fail.
    _stdout: BufReader<std::process::ChildStdout>,
}

impl Server {
    /// Starts `mille serve` with `args` besides its address, without a
    /// Unix socket, pauses or a person's rate limit (tests play as fast
    /// as the server answers), and waits until it says it listens.
    pub fn start(args: &[&std::ffi::OsStr]) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        Server::start_at(SocketAddr::from(([127, 0, 0, 1], port)), args)
    }

    /// [`Server::start`] at `addr` (a server restarted where it was).
    pub fn start_at(addr: SocketAddr, args: &[&std::ffi::OsStr]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mille"))
            .args(["serve", "--listen", &addr.to_string()])
            .args(["--no-socket", "--bot-delay", "0", "--hand-pause", "0"])
            // Tests send fast; a test of the rate gives its own.
            .args(if args.iter().any(|a| *a == "--rate") {
                &[][..]
            } else {
                &["--rate", "1000"][..]
            })
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
        Server {
            child,
            addr,
            _stdout: stdout,
        }
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
