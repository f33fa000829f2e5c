//! A client that asks for the lobby as fast as it may and never reads the
//! answers: the server closes it once its queue holds `QUEUED_BYTES`, and
//! the server's memory stays within a bound meanwhile. A test binary of
//! its own, so that no other test's memory is counted.

mod common;

use common::{Client, create};
use futures_util::SinkExt;
use serde_json::json;
use std::time::{Duration, Instant};
use table_protocol::{ClientMessage, ServerMessage, VERSION};
use tokio::net::TcpSocket;
use tokio_tungstenite::tungstenite::Message;

/// The process's resident memory, in bytes.
fn resident() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_floods_list_and_never_reads_is_closed_within_a_memory_bound() {
    let dir = tempfile::tempdir().expect("dir");
    let mut config = common::config(dir.path());
    // Fast enough to fill its queue in a moment.
    config.limits.messages_per_second = 2000;
    config.limits.burst = 4000;
    config.connections_per_address = 100;
    let server = table_server::start(config).await.expect("start");
    // 150 public tables waiting for players, opened by 30 people.
    let mut hosts = Vec::new();
    for k in 0..30 {
        let mut c = Client::open(server.addr).await;
        c.hello(&format!("host {k}"), None).await;
        for _ in 0..5 {
            c.open_table(create(
                "mille",
                json!({"rules": "bsd", "players": 2}),
                json!([{"kind": "human"}, {"kind": "human"}]),
                None,
            ))
            .await;
        }
        hosts.push(c);
    }
    // A lobby's answer is a lobby's worth, whatever is open.
    let mut reader = Client::open(server.addr).await;
    reader.hello("reader", None).await;
    reader.send(&ClientMessage::List).await;
    let tables = reader
        .until(|m| match m {
            ServerMessage::Tables { tables } => Some(tables.clone()),
            _ => None,
        })
        .await;
    assert_eq!(tables.len(), table_server::LIST_MAX);
    let newest = tables.iter().map(|t| t.id).max().expect("tables");
    assert_eq!(newest, 150, "the newest tables are shown");
    let answer = serde_json::to_string(&ServerMessage::Tables { tables }).expect("json");
    let connections = || async {
        common::health(server.addr).await["connections"]
            .as_u64()
            .unwrap_or(0)
    };
    let before = connections().await;
    let memory_before = resident();
    // The flooder: a small receive buffer, and nothing ever read.
    let socket = TcpSocket::new_v4().expect("socket");
    socket.set_recv_buffer_size(4096).expect("buffer");
    let stream = socket.connect(server.addr).await.expect("connect");
    let (mut ws, _) = tokio_tungstenite::client_async(
        format!("ws://{}/ws", server.addr),
        tokio_tungstenite::MaybeTlsStream::Plain(stream),
    )
    .await
    .expect("upgrade");
    let hello = json!({"type": "hello", "version": VERSION, "name": "flood"});
    ws.send(Message::Text(hello.to_string().into()))
        .await
        .expect("hello");
    let list = json!({"type": "list"}).to_string();
    let start = Instant::now();
    let mut sent = 0u64;
    let mut peak = 0u64;
    let closed = loop {
        if start.elapsed() > Duration::from_secs(30) {
            break false;
        }
        // Sending fails once the server has closed the connection.
        let sending = tokio::time::timeout(
            Duration::from_millis(200),
            ws.send(Message::Text(list.clone().into())),
        )
        .await;
        if let Ok(Err(_)) = sending {
            break true;
        }
        sent += 1;
        peak = peak.max(resident());
        if sent.is_multiple_of(50) && connections().await <= before {
            break true;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    assert!(closed, "the flooder is still connected after {sent} lists");
    let grew = peak.saturating_sub(memory_before);
    eprintln!(
        "{sent} lists of {} bytes sent; the process grew by {} KiB at most",
        answer.len(),
        grew / 1024
    );
    // Without a bound in bytes, 1,024 answers would be queued (27 MiB of
    // these, 40 MiB of all 150 tables); with it, half a MiB and the socket
    // buffers.
    assert!(grew < 16 * 1024 * 1024, "grew by {grew} bytes");
    // The others were not disturbed.
    reader.send(&ClientMessage::Ping).await;
    reader
        .until(|m| matches!(m, ServerMessage::Pong).then_some(()))
        .await;
    drop(hosts);
    server.stop().await;
}
