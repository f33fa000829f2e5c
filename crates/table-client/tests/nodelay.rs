//! Small messages leave at once: against the real table server on
//! loopback, a client plays a few hundred moves and no update follows its
//! move's `ack` by 40 ms or more. Nagle's algorithm against delayed ACKs
//! (a socket without `TCP_NODELAY`, on either side) held about one update
//! in eight back by 40 ms: the server's `ack` and `update` are two small
//! writes, and the second waited for the client to acknowledge the first.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::time::{Duration, Instant};
use table_client::protocol::{ClientMessage, ServerMessage, TableId};
use table_client::{Connection, Target};
use table_server::Config;

/// Moves measured.
const MOVES: usize = 300;

/// The delay Nagle's algorithm adds when it waits for a delayed ACK.
const NAGLE: Duration = Duration::from_millis(40);

/// Opens a cubes table against an instant computer and sits there.
async fn new_table(conn: &mut Connection) -> TableId {
    let create = json!({"type": "create", "game": "cubes", "sit": 0,
        "seats": [{"kind": "human"}, {"kind": "computer", "level": "steady"}]});
    conn.send(&ClientMessage::parse(&create.to_string()).expect("create"))
        .await
        .expect("send");
    loop {
        if let ServerMessage::Created { table, .. } = conn.recv().await.expect("created") {
            return table.id;
        }
    }
}

fn legal(observation: &Value) -> Option<Value> {
    observation["legal"].as_array()?.first().cloned()
}

/// Plays [`MOVES`] moves as `name` and returns, for each, how long after
/// its `ack` its `update` came (zero if it came first).
async fn measure(target: &Target, name: &str) -> Vec<Duration> {
    let mut conn = Connection::open(target).await.expect("open");
    conn.hello(Some(name), None).await.expect("welcome");
    let mut table = new_table(&mut conn).await;
    // When the ack and the update of each move came, by its seq.
    let mut acks: HashMap<u64, Instant> = HashMap::new();
    let mut updates: HashMap<u64, Instant> = HashMap::new();
    let mut gaps = Vec::new();
    let mut next_id = 1;
    // The seq of the move on its way, once acked; whether one is.
    let mut pending: Option<Option<u64>> = None;
    let mut last = Value::Null;
    let deadline = Instant::now() + Duration::from_secs(120);
    while gaps.len() < MOVES {
        assert!(Instant::now() < deadline, "{} moves in time", gaps.len());
        let message = tokio::time::timeout(Duration::from_secs(20), conn.recv())
            .await
            .unwrap_or_else(|_| panic!("the server answers; last: {last}"))
            .expect("a message");
        let now = Instant::now();
        match message {
            ServerMessage::Ack { seq, .. } => {
                acks.insert(seq, now);
                pending = Some(Some(seq));
            }
            ServerMessage::Update {
                table: t,
                seq,
                observation,
                ..
            } if t == table => {
                updates.insert(seq, now);
                last = observation;
            }
            ServerMessage::Joined {
                table: t,
                observation,
                ..
            } if t == table => last = observation,
            ServerMessage::Error(e) => panic!("refused: {e:?} after {last}"),
            _ => continue,
        }
        if let Some(Some(seq)) = pending
            && let (Some(ack), Some(update)) = (acks.get(&seq), updates.get(&seq))
        {
            gaps.push(update.saturating_duration_since(*ack));
            pending = None;
        }
        if pending.is_some() {
            continue;
        }
        if last["phase"] == "Over" {
            table = new_table(&mut conn).await;
            last = Value::Null;
            // A new table counts its seq from the start.
            acks.clear();
            updates.clear();
            continue;
        }
        if let Some(action) = legal(&last) {
            conn.send(&ClientMessage::Move {
                table,
                id: next_id,
                action,
            })
            .await
            .expect("send");
            next_id += 1;
            pending = Some(None);
        }
    }
    conn.close().await;
    gaps
}

#[test]
fn no_update_follows_its_ack_by_40_ms() {
    let dir = tempfile::tempdir().expect("dir");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut c = Config::new(dir.path().join("server"));
    c.listen = "127.0.0.1:0".parse().expect("addr");
    c.bot_delay = Duration::ZERO;
    // The moves come as fast as they are answered.
    c.limits.messages_per_second = 10_000;
    c.limits.burst = 10_000;
    let server = rt.block_on(table_server::start(c)).expect("start");
    let target = Target::parse(&format!("127.0.0.1:{}", server.addr.port())).expect("tcp");

    // A loaded machine may stall a thread for 40 ms once in a while;
    // Nagle's algorithm delays about one update in eight, so a second
    // measure tells them apart.
    let mut late = Vec::new();
    for name in ["ann", "bob"] {
        let gaps = rt.block_on(measure(&target, name));
        late = gaps.into_iter().filter(|g| *g >= NAGLE).collect();
        if late.is_empty() {
            break;
        }
    }
    rt.block_on(server.stop());
    assert!(
        late.is_empty(),
        "{} of {MOVES} updates came 40 ms or more after their ack, twice: {late:?}",
        late.len(),
    );
}
