//! Golden replays: recorded games (settings, seed, actions) in
//! `tests/data/golden.json` must keep replaying to the same final scores and
//! winner. A change to the rules, the dice or the generator shows up here.
//! Regenerate deliberately with `CUBES_BLESS=1 cargo test -p cubes-engine
//! --test golden`.

use cubes_engine::{Action, GameRecord, JokerRule, Settings, State};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug)]
struct Golden {
    record: GameRecord,
    scores: Vec<u32>,
    winner: Option<usize>,
    jokers: bool,
}

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden.json");

/// A fixed, simple policy so the recorded games are ordinary-looking.
fn policy(s: &State) -> Action {
    let legal = s.legal_actions();
    let bank = s.turn().bank_value().unwrap_or(0);
    let dice_left = s.turn().best_keep().map_or(0, |k| 5 - k.mask.len());
    if legal.contains(Action::Hold) && (bank >= 350 || dice_left < 2) {
        return Action::Hold;
    }
    match s.turn().best_keep() {
        Some(k) => Action::Keep(k.mask),
        None => legal.as_slice()[0],
    }
}

fn generate() -> Vec<Golden> {
    let setups = [
        (Settings::standard(), 2, 1u64),
        (Settings::blitz(), 3, 2),
        (Settings::standard().with_jokers(JokerRule::Always), 2, 3),
        (Settings::blitz().with_jokers(JokerRule::OneGameInSix), 4, 4),
    ];
    setups
        .into_iter()
        .map(|(settings, players, seed)| {
            let mut s = State::new(settings.clone(), players, seed).expect("valid");
            let mut record = GameRecord::new(settings, players, seed);
            while !s.legal_actions().is_empty() && record.actions.len() < 100_000 {
                let a = policy(&s);
                s.apply(a).expect("policy plays legal actions");
                record.actions.push(a);
            }
            Golden {
                scores: s.players().iter().map(|p| p.score).collect(),
                winner: s.winner(),
                jokers: s.jokers(),
                record,
            }
        })
        .collect()
}

#[test]
fn golden_games_replay_identically() {
    if std::env::var_os("CUBES_BLESS").is_some() {
        let text = serde_json::to_string(&generate()).expect("serialises");
        std::fs::write(PATH, text + "\n").expect("write golden file");
    }
    let text = std::fs::read_to_string(PATH).expect("golden file present (CUBES_BLESS=1 makes it)");
    let games: Vec<Golden> = serde_json::from_str(&text).expect("golden file parses");
    assert_eq!(games.len(), 4);
    for g in &games {
        let s = g.record.replay().expect("replays");
        let scores: Vec<u32> = s.players().iter().map(|p| p.score).collect();
        assert_eq!(scores, g.scores, "seed {}", g.record.seed);
        assert_eq!(s.winner(), g.winner);
        assert_eq!(s.jokers(), g.jokers);
        assert!(g.winner.is_some(), "golden games are finished games");
    }
    // The policy still produces the same games (the engine's choices of keeps
    // and its generator are unchanged).
    assert_eq!(generate(), games);
}
