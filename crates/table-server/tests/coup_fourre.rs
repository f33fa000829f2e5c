//! A hidden coup-fourré chance at a table of three people (classic rules):
//! the chance comes out of turn and only its holder is shown it, so the
//! seat the game goes on with is shown its turn as usual; its move waits
//! until the chance is answered, then is played, and nobody else learns
//! that there was a chance. Without a window after hazards the wait lasts
//! until the holder answers; with one, the chance lasts the window, and
//! one nobody answers passes by itself.

mod common;

use common::{Client, config, create, legal};
use mille_engine::{Action, ActionList, GameConfig, Phase, RulesetId, State, ToAct};
use serde_json::{Value, json};
use std::time::Duration;
use table_protocol::{ClientMessage, ErrorCode, ServerMessage};

const CLASSIC_3: GameConfig = GameConfig {
    rules: RulesetId::Classic,
    players: 3,
    stacking: false,
};

/// Every seat's play: decline a coup-fourré chance, else the first legal
/// action.
fn choose(legal: &[Action]) -> Option<Action> {
    if legal.contains(&Action::DeclineCoupFourre) {
        Some(Action::DeclineCoupFourre)
    } else {
        legal.first().copied()
    }
}

/// A seed whose first hand, played by `choose`, gives seat 2 a chance on
/// a hazard of seat 0's, with seat 1 next after a decline.
fn seed_with_a_chance() -> u64 {
    for seed in 0..5000 {
        let Ok(mut state) = State::new(CLASSIC_3, seed) else {
            continue;
        };
        for _ in 0..400 {
            if let Phase::CoupFourre { seat, attacker, .. } = state.phase()
                && seat.index() == 2
                && attacker.index() == 0
            {
                return seed;
            }
            if !matches!(state.to_act(), ToAct::Seat(_)) {
                break;
            }
            let mut list = ActionList::default();
            state.legal_actions(&mut list);
            let Some(action) = choose(&list) else { break };
            if state.apply(action).is_err() {
                break;
            }
        }
    }
    panic!("no seed under 5000 gives the position");
}

fn actions(observation: &Value) -> Vec<Action> {
    legal(observation)
        .iter()
        .filter_map(|a| a.as_str().and_then(|t| t.parse().ok()))
        .collect()
}

/// A table of ann, bob and cy played until cy is offered her chance on a
/// hazard of ann's and bob has sent the draw he is shown.
struct AtTheChance {
    server: table_server::Running,
    people: Vec<Client>,
    table: u64,
    /// The public number of the hazard.
    chance_seq: u64,
    /// When bob was shown the hazard.
    shown_at: std::time::Instant,
    bob_move: u64,
    id: u64,
}

async fn play_to_the_chance(dir: &std::path::Path, window: Duration) -> AtTheChance {
    let mut c = config(dir);
    // The three play as fast as the server answers.
    c.limits.messages_per_second = 1000;
    c.limits.burst = 2000;
    c.fixed_seed = Some(seed_with_a_chance());
    c.coup_fourre_window = window;
    let server = table_server::start(c).await.expect("start");
    let mut people = Vec::new();
    for name in ["ann", "bob", "cy"] {
        let mut p = Client::open(server.addr).await;
        p.hello(name, None).await;
        people.push(p);
    }
    let table = people[0]
        .open_table(create(
            "mille",
            json!({"rules": "classic", "players": 3}),
            json!([{"kind": "human"}, {"kind": "human"}, {"kind": "human"}]),
            Some(0),
        ))
        .await;
    for (seat, p) in people.iter_mut().enumerate().skip(1) {
        p.send(&ClientMessage::Join {
            table,
            seat: Some(seat),
            code: None,
            since: None,
        })
        .await;
    }
    // Everybody plays `choose` on their newest observation until seat 2 is
    // offered its chance and seat 1 has sent the move it is shown.
    let mut moved_at = [u64::MAX; 3];
    let mut id = 0;
    let mut chance_seq = None;
    // bob's last move: (its id, the action, the number it was sent at).
    let mut bob_last: Option<(u64, Action, u64)> = None;
    let mut shown_at = std::time::Instant::now();
    let started = std::time::Instant::now();
    while chance_seq.is_none() || bob_last.map(|b| b.2) != chance_seq {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no chance after {id} moves (chance at {chance_seq:?})"
        );
        for (seat, p) in people.iter_mut().enumerate() {
            let Some(common::Got::Text(text)) = p.next(Duration::from_millis(20)).await else {
                continue;
            };
            let now = std::time::Instant::now();
            let (seq, observation) = match common::parse(&text) {
                ServerMessage::Joined {
                    seq, observation, ..
                }
                | ServerMessage::Update {
                    seq, observation, ..
                } => (seq, observation),
                ServerMessage::Error(e) => panic!("{e:?}"),
                _ => continue,
            };
            if seat == 2 && observation["status"]["phase"] == "coup_fourre" {
                chance_seq = Some(seq);
                continue;
            }
            if moved_at[seat] == seq {
                continue;
            }
            if let Some(action) = choose(&actions(&observation)) {
                moved_at[seat] = seq;
                id += 1;
                let mv = ClientMessage::Move {
                    table,
                    id,
                    action: Value::from(action.to_string()),
                };
                p.send(&mv).await;
                if seat == 1 {
                    bob_last = Some((id, action, seq));
                    shown_at = now;
                }
            }
        }
        assert!(id < 400, "the chance comes within the first hand");
    }
    let chance_seq = chance_seq.expect("the chance");
    let (bob_move, bob_action, _) = bob_last.expect("bob's move");
    assert_eq!(bob_action, Action::Draw, "bob is shown his turn: a draw");
    AtTheChance {
        server,
        people,
        table,
        chance_seq,
        shown_at,
        bob_move,
        id,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_waits_for_a_hidden_chance_and_nobody_else_hears_of_it() {
    let dir = tempfile::tempdir().expect("dir");
    let AtTheChance {
        server,
        mut people,
        table,
        chance_seq,
        bob_move,
        mut id,
        ..
    } = play_to_the_chance(dir.path(), Duration::ZERO).await;
    // bob's move waits: no answer while cy thinks.
    match people[1].next(Duration::from_millis(300)).await {
        None => {}
        Some(got) => panic!("bob got an answer before the chance was answered: {got:?}"),
    }
    // ann has been shown the hazard (and nothing since).
    while people[0].next(Duration::from_millis(200)).await.is_some() {}
    let before = people[0].log().len();
    // cy declines: she alone hears of it; bob's draw is then played.
    id += 1;
    people[2]
        .send(&ClientMessage::Move {
            table,
            id,
            action: Value::from("decline"),
        })
        .await;
    let cy_seq = people[2]
        .until(|m| match m {
            ServerMessage::Ack { seq, .. } => Some(*seq),
            _ => None,
        })
        .await;
    assert_eq!(cy_seq, chance_seq, "a decline changes no public number");
    let bob_seq = people[1]
        .until(|m| match m {
            ServerMessage::Ack { id, seq, .. } if *id == bob_move => Some(*seq),
            ServerMessage::Error(e) => panic!("bob's draw was refused: {e:?}"),
            _ => None,
        })
        .await;
    assert_eq!(bob_seq, chance_seq + 1);
    let ann_next = people[0]
        .until(|m| match m {
            ServerMessage::Update {
                seq, observation, ..
            } => Some((*seq, observation.clone())),
            _ => None,
        })
        .await;
    assert_eq!(ann_next.0, chance_seq + 1, "ann's next news is bob's draw");
    assert_eq!(
        ann_next.1["events"],
        json!([{"event": "drew", "seat": 1}]),
        "ann sees the draw and nothing of the decline"
    );
    assert_eq!(
        people[0].log().len(),
        before + 1,
        "one message to ann since the chance: the draw"
    );
    server.stop().await;
}

/// With a window after hazards, a chance lasts as long as the window: one
/// nobody answers passes by itself, unseen by the others, and the move
/// shown meanwhile is played when the window ends, as it would be after
/// any hazard.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_chance_passes_when_its_window_ends() {
    const WINDOW: Duration = Duration::from_millis(400);
    let dir = tempfile::tempdir().expect("dir");
    let AtTheChance {
        server,
        mut people,
        table,
        chance_seq,
        shown_at,
        bob_move,
        mut id,
    } = play_to_the_chance(dir.path(), WINDOW).await;
    // cy does not answer. bob's draw is played when the window ends.
    let bob_seq = people[1]
        .until(|m| match m {
            ServerMessage::Ack { id, seq, .. } if *id == bob_move => Some(*seq),
            ServerMessage::Error(e) => panic!("bob's draw was refused: {e:?}"),
            _ => None,
        })
        .await;
    let waited = shown_at.elapsed();
    assert_eq!(bob_seq, chance_seq + 1);
    // bob was shown the hazard a little before he sent the draw (the test
    // reads the three in turn): the wait is most of the window.
    assert!(
        waited >= WINDOW - Duration::from_millis(100),
        "bob's draw was answered {waited:?} after he was shown the hazard"
    );
    // cy was told that her chance passed, and nobody else.
    let passed = people[2]
        .until(|m| match m {
            ServerMessage::Update { observation, .. } => Some(observation.clone()),
            _ => None,
        })
        .await;
    assert_eq!(
        passed["events"],
        json!([{"event": "declined_coup_fourre", "seat": 2}]),
        "{passed}"
    );
    id += 1;
    people[2]
        .send(&ClientMessage::Move {
            table,
            id,
            action: Value::from("decline"),
        })
        .await;
    let late = people[2]
        .until(|m| match m {
            ServerMessage::Error(e) if e.id == Some(id) => Some(e.code),
            ServerMessage::Ack { id: got, .. } if *got == id => {
                panic!("a chance answered after its time")
            }
            _ => None,
        })
        .await;
    assert_eq!(late, ErrorCode::NotYourTurn);
    // ann's news after the hazard (which she may not have read yet) is
    // bob's draw, and nothing of the chance.
    let ann_next = people[0]
        .until(|m| match m {
            ServerMessage::Update {
                seq, observation, ..
            } if *seq > chance_seq => Some((*seq, observation.clone())),
            _ => None,
        })
        .await;
    assert_eq!(ann_next.0, chance_seq + 1);
    assert_eq!(
        ann_next.1["events"],
        json!([{"event": "drew", "seat": 1}]),
        "ann sees the draw and nothing of the chance"
    );
    server.stop().await;
}
