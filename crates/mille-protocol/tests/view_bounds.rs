//! A view's numbers (trip, miles, game totals) are bounded where a request
//! comes in: a view claiming more than a game can hold is refused in a
//! sentence that names the field and its range, and never reaches a bot
//! that would count with it.

use mille_ai::{Budget, ClassicBot, MilleBot, RandomBot, SearchBot};
use mille_engine::{Action, GameConfig, RulesetId, State};
use mille_protocol::{Request, parse_request, serve};
use serde_json::{Value, json};

/// The view of seat 0 after its draw in a real `classic` game.
fn real_view(players: u8) -> Value {
    let mut state = State::new(
        GameConfig {
            rules: RulesetId::Classic,
            players,
            stacking: false,
        },
        5,
    )
    .expect("config");
    state.apply(Action::Draw).expect("draw");
    let seat0 = state.rules().seat(0).expect("seat 0");
    serde_json::to_value(state.view(seat0)).expect("json")
}

/// A decide request for `view`.
fn decide(id: i64, view: &Value) -> String {
    json!({"id": id, "decide": "turn", "view": view}).to_string()
}

/// The views that claim too much, each with what its refusal must say.
fn absurd_views() -> Vec<(Value, &'static str)> {
    let base = real_view(3);
    let with = |f: &dyn Fn(&mut Value)| {
        let mut v = base.clone();
        f(&mut v);
        v
    };
    vec![
        (
            with(&|v| v["target"] = json!(u16::MAX)),
            "target must be 700 to 1000 miles, not 65535",
        ),
        (
            with(&|v| v["target"] = json!(0)),
            "target must be 700 to 1000 miles, not 0",
        ),
        (
            with(&|v| v["teams"][1]["distance"] = json!(vec!["200"; 400])),
            "the distance of teams[1] must be 0 to 700 miles, not 80000",
        ),
        (
            with(&|v| v["teams"][2]["score"]["game"] = json!(u32::MAX)),
            "teams[2].score.game must be 0 to 4999 points, not 4294967295",
        ),
        (
            with(&|v| v["teams"][0]["score"]["game"] = json!(5000)),
            "teams[0].score.game must be 0 to 4999 points, not 5000",
        ),
        (
            with(&|v| v["teams"][0]["score"]["hand"] = json!(u32::MAX)),
            "teams[0].score.hand must be 0 to 5100 points, not 4294967295",
        ),
    ]
}

#[test]
fn absurd_view_numbers_are_refused_naming_the_field_and_range() {
    for (view, sentence) in absurd_views() {
        let e = parse_request(&decide(4, &view)).expect_err(sentence);
        assert_eq!(e.id, Some(4));
        assert_eq!(e.message, format!("bad view: {sentence}"));
        let legal = json!({"id": 5, "legal": view}).to_string();
        let e = parse_request(&legal).expect_err(sentence);
        assert_eq!(e.message, format!("bad view: {sentence}"));
    }
}

#[test]
fn real_views_at_the_edge_of_the_bounds_are_accepted() {
    for players in [2, 3, 4, 6] {
        let mut view = real_view(players);
        let last = view["teams"].as_array().map_or(0, Vec::len) - 1;
        view["teams"][last]["score"]["game"] = json!(4999);
        let (id, request) = parse_request(&decide(1, &view)).expect("a real view");
        assert_eq!(id, 1);
        assert!(matches!(request, Request::Decide { .. }));
    }
    // An extended trip: 1000 miles, one side at the end of it.
    let mut view = real_view(2);
    view["target"] = json!(1000);
    view["extended"] = json!(true);
    view["teams"][1]["distance"] = json!(["200", "200", "200", "200", "100", "100"]);
    assert!(parse_request(&decide(2, &view)).is_ok());
}

/// Without the bounds, a searching bot handed these views counted past its
/// integers (a game total near `u32::MAX` plus a hand, miles near
/// `u16::MAX` plus a card), a panic the server turned into "internal
/// error". Every line now gets the sentence, from every kind of bot.
#[test]
fn absurd_views_never_reach_a_bot() {
    let mut input = String::new();
    let views = absurd_views();
    for (i, (view, _)) in views.iter().enumerate() {
        input.push_str(&decide(i as i64, view));
        input.push('\n');
    }
    let tiny = Budget {
        iterations: 40,
        trees: 1,
        time_limit: None,
    };
    let bots: Vec<Box<MilleBot>> = vec![
        Box::new(RandomBot::new(1)),
        Box::new(ClassicBot::new(1)),
        Box::new(SearchBot::new("tiny", tiny, 1)),
    ];
    for mut bot in bots {
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out, bot.as_mut()).expect("serve");
        let text = String::from_utf8(out).expect("utf-8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), views.len(), "{text}");
        for (line, (_, sentence)) in lines.iter().zip(&views) {
            assert!(line.contains(sentence), "{line}");
        }
    }
}

#[test]
fn a_view_that_is_no_game_is_still_answered_by_the_engine() {
    // Five seats: not a table; the bounds are not asked, the engine says so
    // when the view is used.
    let mut view = real_view(6);
    view["seats"].as_array_mut().expect("seats").pop();
    let line = decide(9, &view);
    assert!(parse_request(&line).is_ok());
    let mut out = Vec::new();
    serve(
        format!("{line}\n").as_bytes(),
        &mut out,
        &mut RandomBot::new(2),
    )
    .expect("serve");
    let text = String::from_utf8(out).expect("utf-8");
    assert!(text.contains("not 5"), "{text}");
}
