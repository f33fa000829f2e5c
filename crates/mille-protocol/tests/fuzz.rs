//! Fuzzing the bot protocol's way in: random bytes and mutated real
//! request lines (views of real games, every kind of request) fed to
//! `parse_request` and to the `serve` loop. Whatever comes in, the parser
//! answers a request or a reason and the loop answers every line with
//! exactly one JSON line, never by panicking (the loop turns a panic into
//! "internal error", which these tests count as a failure).
//!
//! The default case counts keep the suite fast; a long run:
//! `PROPTEST_CASES=1000000 cargo test --release -p mille-protocol --test fuzz`.

mod support;

use mille_ai::{Budget, ClassicBot, MilleBot, RandomBot, SearchBot};
use mille_engine::view::rules_of;
use mille_engine::{ActionList, Card, GameConfig, Phase, State};
use mille_protocol::{Request, parse_request, serve};
use proptest::prelude::*;
use serde_json::{Value, json};
use support::mutate::{apply, apply_json, cases, edits, json_edits};

/// A real request line: a game of configuration `which` played `steps`
/// moves in (each the `choices[k]`-th legal one), then the request of
/// kind `kind` about the view of the seat to act.
fn real_line(which: usize, seed: u64, choices: &[u8], kind: u8, id: i64) -> String {
    let every: Vec<GameConfig> = GameConfig::every().collect();
    let config = every[which % every.len()];
    let Ok(mut state) = State::new(config, seed) else {
        return String::new();
    };
    let mut list = ActionList::default();
    for &c in choices {
        state.legal_actions(&mut list);
        if list.is_empty() {
            break;
        }
        let a = list[usize::from(c) % list.len()];
        if state.apply(a).is_err() {
            break;
        }
    }
    let seat = match state.phase() {
        Phase::Turn { seat, .. } | Phase::CoupFourre { seat, .. } | Phase::Extension { seat } => {
            Some(seat)
        }
        Phase::HandOver | Phase::GameOver => state.rules().seat(0),
    };
    let Some(seat) = seat else {
        return String::new();
    };
    let view = serde_json::to_value(state.view(seat)).unwrap_or(Value::Null);
    let hazard = match state.phase() {
        Phase::CoupFourre { hazard, .. } => hazard,
        _ => Card::Stop,
    };
    let request = match kind % 5 {
        0 => json!({"id": id, "hello": {"protocol": 1}}),
        1 => json!({"id": id, "legal": view}),
        2 => json!({"id": id, "decide": "turn", "view": view}),
        3 => json!({"id": id, "decide": "coup_fourre", "hazard": hazard.id(), "view": view}),
        _ => json!({"id": id, "decide": "extension", "view": view}),
    };
    request.to_string()
}

/// A real line, from its parameters.
fn real_line_strategy() -> impl Strategy<Value = String> {
    (
        0..GameConfig::every().count(),
        any::<u64>(),
        proptest::collection::vec(any::<u8>(), 0..120),
        any::<u8>(),
        any::<i64>(),
    )
        .prop_map(|(which, seed, choices, kind, id)| real_line(which, seed, &choices, kind, id))
}

/// A line to feed: a real line with its bytes mutated or its JSON values
/// swapped (most of the time), random bytes, or a real line as it is.
fn line_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => (real_line_strategy(), real_line_strategy(), edits(6))
            .prop_map(|(base, other, e)| apply(base.as_bytes(), other.as_bytes(), &e)),
        6 => (real_line_strategy(), json_edits(3))
            .prop_map(|(base, e)| apply_json(&base, &e).into_bytes()),
        1 => proptest::collection::vec(any::<u8>(), 0..200),
        1 => real_line_strategy().prop_map(String::into_bytes),
    ]
}

/// What `parse_request` promises about one line.
fn check_parse(line: &str) -> Result<(), TestCaseError> {
    match parse_request(line) {
        Ok((_, Request::Hello { .. })) => {}
        Ok((_, Request::Legal(view) | Request::Decide { view, .. })) => {
            // A view that describes a game has its numbers within bounds.
            if let Ok(rules) = rules_of(&view) {
                prop_assert_eq!(rules.check_view(&view), Ok(()));
            }
        }
        Err(e) => prop_assert!(!e.message.is_empty(), "an empty reason"),
    }
    Ok(())
}

/// The bot answering in the `serve` tests: cheap ones, and a search small
/// enough to stay quick that still plays hands out to their scores.
fn make_bot(which: u8, seed: u64) -> Box<MilleBot> {
    match which % 3 {
        0 => Box::new(RandomBot::new(seed)),
        1 => Box::new(ClassicBot::new(seed)),
        _ => Box::new(SearchBot::new(
            "tiny",
            Budget {
                iterations: 24,
                trees: 1,
                time_limit: None,
            },
            seed,
        )),
    }
}

/// The keys an answer may carry besides its id.
const ANSWER_KEYS: [&str; 7] = [
    "name",
    "play",
    "discard",
    "coup_fourre",
    "extend",
    "actions",
    "error",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(600)))]

    /// Mutated real lines and random bytes: a request or a reason.
    #[test]
    fn parse_request_answers_every_line(line in line_strategy()) {
        check_parse(&String::from_utf8_lossy(&line))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(300)))]

    /// Real lines with a number swapped for a huge or negative one: the
    /// edge cases of every integer field.
    #[test]
    fn parse_request_survives_edge_numbers(
        base in real_line_strategy(),
        nth in any::<usize>(),
        with in 0..support::mutate::EDGE_NUMBERS.len(),
    ) {
        let e = [support::mutate::Edit::Number { nth, with }];
        let line = apply(base.as_bytes(), b"", &e);
        check_parse(&String::from_utf8_lossy(&line))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(120)))]

    /// Whole sessions: every line gets exactly one answer line, a JSON
    /// object with the id first, and no answer is an internal error.
    #[test]
    fn serve_answers_every_line_once(
        lines in proptest::collection::vec(line_strategy(), 1..6),
        bot in any::<u8>(),
        seed in any::<u64>(),
    ) {
        let mut input = Vec::new();
        for l in &lines {
            // A line ends at its newline: none inside.
            input.extend(l.iter().copied().filter(|&b| b != b'\n'));
            input.push(b'\n');
        }
        let mut out = Vec::new();
        let mut bot = make_bot(bot, seed);
        serve(input.as_slice(), &mut out, bot.as_mut())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let text = String::from_utf8(out).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let answers: Vec<&str> = text.lines().collect();
        prop_assert_eq!(answers.len(), lines.len(), "{}", text);
        for a in answers {
            prop_assert!(a.starts_with("{\"id\":"), "{}", a);
            let v: Value = serde_json::from_str(a).map_err(|e| TestCaseError::fail(format!("{a}: {e}")))?;
            let obj = v.as_object().ok_or_else(|| TestCaseError::fail(a.to_string()))?;
            prop_assert!(obj["id"].is_i64() || obj["id"].is_null(), "{}", a);
            prop_assert!(obj.keys().any(|k| ANSWER_KEYS.contains(&k.as_str())), "{}", a);
            prop_assert!(!a.contains("internal error"), "a panic was caught: {}", a);
        }
    }
}
