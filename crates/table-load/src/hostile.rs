//! `table-hostile`: one stranger doing what a public server must survive,
//! from one address, for a bounded time: it opens every connection it can
//! and never speaks on them, floods `list` on WebSockets it never reads,
//! and registers names as fast as it may. It reports what the server let
//! it do. Loopback only: the run in `docs/server.md` pairs it with
//! `table-load` playing tables meanwhile.

use anyhow::{Context, bail};
use clap::Parser;
use futures_util::SinkExt;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpSocket, TcpStream};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

/// One stranger against a table server, for a bounded time.
#[derive(Parser, Debug)]
#[command(name = "table-hostile", version)]
struct Args {
    /// The server (`HOST:PORT`, on loopback).
    #[arg(long, default_value = "127.0.0.1:8780")]
    server: SocketAddr,
    /// The loopback address to come from (the server counts per address).
    #[arg(long, default_value = "127.0.0.2")]
    from: IpAddr,
    /// How long to keep at it.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// The most silent connections to hold at once.
    #[arg(long, default_value_t = 5000)]
    silent: usize,
    /// WebSockets flooding `list` without reading.
    #[arg(long, default_value_t = 8)]
    floods: usize,
}

/// What the server let the stranger do.
#[derive(Default)]
struct Tally {
    /// TCP connections the server accepted and kept a while.
    opened: AtomicU64,
    /// Connections turned away at once (a 503, a reset).
    refused: AtomicU64,
    /// Silent connections the server closed after its header time.
    timed_out: AtomicU64,
    /// The most silent connections held at once.
    held_peak: AtomicU64,
    held: AtomicU64,
    /// `list` requests sent by the flooders.
    lists: AtomicU64,
    /// Flooding connections the server closed.
    floods_closed: AtomicU64,
    /// Names registered, and refused.
    names: AtomicU64,
    names_refused: AtomicU64,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if !args.server.ip().is_loopback() || !args.from.is_loopback() {
        bail!("table-hostile runs on loopback only");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("a runtime")?;
    runtime.block_on(run(args))
}

async fn run(args: Args) -> anyhow::Result<()> {
    let tally = Arc::new(Tally::default());
    let until = Instant::now() + Duration::from_secs(args.seconds);
    let mut tasks = Vec::new();
    tasks.push(tokio::spawn(silent(
        args.server,
        args.from,
        args.silent,
        until,
        Arc::clone(&tally),
    )));
    for k in 0..args.floods {
        tasks.push(tokio::spawn(flood(
            args.server,
            args.from,
            k,
            until,
            Arc::clone(&tally),
        )));
    }
    tasks.push(tokio::spawn(register(
        args.server,
        args.from,
        until,
        Arc::clone(&tally),
    )));
    for t in tasks {
        let _ = t.await;
    }
    let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
    let report = serde_json::json!({
        "seconds": args.seconds,
        "silent_opened": n(&tally.opened),
        "silent_refused": n(&tally.refused),
        "silent_closed_by_timeout": n(&tally.timed_out),
        "silent_held_at_most": n(&tally.held_peak),
        "lists_sent": n(&tally.lists),
        "flooders_closed": n(&tally.floods_closed),
        "names_registered": n(&tally.names),
        "names_refused": n(&tally.names_refused),
    });
    println!("{report}");
    Ok(())
}

/// A TCP connection from `from`.
async fn connect(
    server: SocketAddr,
    from: IpAddr,
    small_buffer: bool,
) -> std::io::Result<TcpStream> {
    let socket = match from {
        IpAddr::V4(_) => TcpSocket::new_v4()?,
        IpAddr::V6(_) => TcpSocket::new_v6()?,
    };
    if small_buffer {
        socket.set_recv_buffer_size(4096)?;
    }
    socket.bind(SocketAddr::new(from, 0))?;
    tokio::time::timeout(Duration::from_secs(5), socket.connect(server))
        .await
        .map_err(|_| std::io::Error::other("connect timed out"))?
}

/// A WebSocket from `from` (with a small receive buffer if asked), or
/// `None` if the server turned it away.
async fn websocket(
    server: SocketAddr,
    from: IpAddr,
    small_buffer: bool,
) -> Option<tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>> {
    let stream = connect(server, from, small_buffer).await.ok()?;
    let url = format!("ws://{server}/ws");
    let upgrade =
        tokio_tungstenite::client_async(url, tokio_tungstenite::MaybeTlsStream::Plain(stream));
    let (ws, _) = tokio::time::timeout(Duration::from_secs(5), upgrade)
        .await
        .ok()?
        .ok()?;
    Some(ws)
}

/// Opens silent connections as fast as it may, holding each until the
/// server closes it.
async fn silent(server: SocketAddr, from: IpAddr, most: usize, until: Instant, tally: Arc<Tally>) {
    while Instant::now() < until {
        if tally.held.load(Ordering::Relaxed) as usize >= most {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        }
        let Ok(mut stream) = connect(server, from, false).await else {
            tally.refused.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        };
        let tally = Arc::clone(&tally);
        tokio::spawn(async move {
            let held = tally.held.fetch_add(1, Ordering::Relaxed) + 1;
            tally.held_peak.fetch_max(held, Ordering::Relaxed);
            let start = Instant::now();
            let mut buf = [0u8; 512];
            let left = until.saturating_duration_since(Instant::now());
            let read = tokio::time::timeout(left, stream.read(&mut buf)).await;
            tally.held.fetch_sub(1, Ordering::Relaxed);
            match read {
                // Something came at once: the 503 of a full gate.
                Ok(Ok(n)) if n > 0 && start.elapsed() < Duration::from_millis(500) => {
                    tally.refused.fetch_add(1, Ordering::Relaxed);
                }
                Ok(_) => {
                    tally.opened.fetch_add(1, Ordering::Relaxed);
                    tally.timed_out.fetch_add(1, Ordering::Relaxed);
                }
                // Still open at the end.
                Err(_) => {
                    tally.opened.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        // Yield now and then so the readers run.
        tokio::task::yield_now().await;
    }
}

/// A WebSocket that says hello, then asks for the tables without end and
/// never reads an answer; again when the server closes it.
async fn flood(server: SocketAddr, from: IpAddr, k: usize, until: Instant, tally: Arc<Tally>) {
    let list = serde_json::json!({"type": "list"}).to_string();
    let mut round = 0u64;
    while Instant::now() < until {
        round += 1;
        let Some(mut ws) = websocket(server, from, true).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let hello = serde_json::json!({
            "type": "hello", "version": 1, "name": format!("flood {k} {round}")
        });
        if ws
            .send(Message::Text(hello.to_string().into()))
            .await
            .is_err()
        {
            continue;
        }
        loop {
            if Instant::now() >= until {
                return;
            }
            let sent = tokio::time::timeout(
                Duration::from_millis(500),
                ws.send(Message::Text(list.clone().into())),
            )
            .await;
            match sent {
                Ok(Ok(())) => {
                    tally.lists.fetch_add(1, Ordering::Relaxed);
                }
                Ok(Err(_)) => {
                    tally.floods_closed.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                // The socket is full: the server is not reading either.
                Err(_) => {}
            }
            // As fast as the server's rate allows, and a little more.
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }
}

/// Registers new names one after another.
async fn register(server: SocketAddr, from: IpAddr, until: Instant, tally: Arc<Tally>) {
    use futures_util::StreamExt;
    let mut k = 0u64;
    while Instant::now() < until {
        k += 1;
        let Some(mut ws) = websocket(server, from, false).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let hello =
            serde_json::json!({"type": "hello", "version": 1, "name": format!("squat {k}")});
        if ws
            .send(Message::Text(hello.to_string().into()))
            .await
            .is_err()
        {
            continue;
        }
        let answer = tokio::time::timeout(Duration::from_secs(5), ws.next()).await;
        match answer {
            Ok(Some(Ok(Message::Text(t)))) if t.as_str().contains("\"welcome\"") => {
                tally.names.fetch_add(1, Ordering::Relaxed);
            }
            _ => {
                tally.names_refused.fetch_add(1, Ordering::Relaxed);
            }
        }
        let _ = ws.close(None).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
