//! Golden replays: a seed and an action log, pinned in `tests/golden/`,
//! must replay to exactly the recorded final state. A change to the rules,
//! the shuffle or the deal shows up here first.
//!
//! To regenerate after an intended change: `UPDATE_GOLDEN=1 cargo test -p
//! mille-engine --test golden` and review the diff.

use mille_engine::{Action, GameConfig, GameRecord, Phase, RulesetId, State, View};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Golden {
    record: GameRecord,
    expected: Fingerprint,
}

/// Everything observable about a final state.
#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Fingerprint {
    phase: String,
    hand_number: u32,
    totals: Vec<u32>,
    games_won: Vec<u32>,
    deck: usize,
    views: Vec<View>,
}

fn fingerprint(s: &State) -> Fingerprint {
    Fingerprint {
        phase: format!("{:?}", s.phase()),
        hand_number: s.hand_number(),
        totals: s.totals().to_vec(),
        games_won: s.games_won().to_vec(),
        deck: s.deck_len(),
        views: s.rules().seats_iter().map(|seat| s.view(seat)).collect(),
    }
}

const CASES: [(&str, RulesetId, u8, bool, u64, u32); 7] = [
    ("bsd_2p_full_game", RulesetId::Bsd, 2, false, 1, 100),
    ("milebones_2p", RulesetId::Milebones, 2, false, 2, 3),
    ("classic_2p", RulesetId::Classic, 2, false, 12, 3),
    ("classic_3p", RulesetId::Classic, 3, false, 3, 3),
    ("classic_4p_teams", RulesetId::Classic, 4, false, 4, 3),
    ("classic_6p_teams", RulesetId::Classic, 6, false, 5, 2),
    ("classic_4p_stacking", RulesetId::Classic, 4, true, 6, 2),
];

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.json"))
}

/// Plays `hands` random hands (or to the end of the game) and records them.
fn generate(config: GameConfig, seed: u64, hands: u32) -> Golden {
    let mut state = State::new(config, seed).expect("config");
    let mut record = GameRecord::new(config, seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_mul(31));
    let mut played = 0;
    loop {
        match state.phase() {
            Phase::GameOver => break,
            Phase::HandOver => {
                played += 1;
                if played >= hands {
                    break;
                }
                record.actions.push(Action::NextHand);
                state.apply(Action::NextHand).expect("deal");
            }
            _ => {
                let a = state.random_legal_action(&mut rng);
                record.actions.push(a);
                state.apply(a).expect("random legal action");
            }
        }
    }
    Golden {
        expected: fingerprint(&state),
        record,
    }
}

#[test]
fn golden_replays_reproduce_the_recorded_final_state() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (name, rules, players, stacking, seed, hands) in CASES {
        let config = GameConfig {
            rules,
            players,
            stacking,
        };
        if update {
            let g = generate(config, seed, hands);
            let text = serde_json::to_string_pretty(&g).expect("serialise");
            std::fs::write(path(name), text + "\n").expect("write golden file");
        }
        let text = std::fs::read_to_string(path(name))
            .unwrap_or_else(|e| panic!("{name}: {e} (run with UPDATE_GOLDEN=1 to create)"));
        let golden: Golden = serde_json::from_str(&text).expect("golden file parses");
        assert_eq!(golden.record.config, config, "{name}");
        let state = golden
            .record
            .replay()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            fingerprint(&state),
            golden.expected,
            "{name} replays differently"
        );
    }
}

#[test]
fn the_full_golden_game_reaches_5000() {
    let text = std::fs::read_to_string(path("bsd_2p_full_game")).expect("golden file");
    let golden: Golden = serde_json::from_str(&text).expect("parses");
    assert_eq!(golden.expected.phase, "GameOver");
    assert!(golden.expected.totals.iter().any(|&t| t >= 5000));
}

#[test]
fn a_tampered_record_is_refused_with_the_index_and_reason() {
    let text = std::fs::read_to_string(path("milebones_2p")).expect("golden file");
    let mut golden: Golden = serde_json::from_str(&text).expect("parses");
    golden.record.actions.insert(1, Action::Draw);
    let err = golden
        .record
        .replay()
        .expect_err("a second draw is illegal");
    let msg = err.to_string();
    assert!(msg.starts_with("action 1 (draw) is illegal there"), "{msg}");
}
