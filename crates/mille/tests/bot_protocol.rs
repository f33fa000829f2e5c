//! End-to-end tests of `mille bot`: the real binary, requests on a pipe.

use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `mille bot ARGS` on `input` and returns (exit code, answer lines).
fn bot(args: &[&str], input: &str) -> (Option<i32>, Vec<Value>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mille"))
        .arg("bot")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mille bot");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let lines = String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON {l:?}: {e}")))
        .collect();
    (out.status.code(), lines)
}

fn view_bsd() -> Value {
    json!({
        "rules": "bsd", "seat": 0,
        "hand": ["go", "25", "stop", "gasoline", "75", "200", "end_of_limit"],
        "deck": 72, "discards": ["50", "stop"], "target": 700, "extended": false,
        "seats": [{"seat": 0, "team": 0, "hand_size": 7}, {"seat": 1, "team": 1, "hand_size": 6}],
        "teams": [
            {"team": 0, "battle": ["go"], "speed": [], "distance": ["25", "50"],
             "safeties": [], "coups": [], "score": {"hand": 75, "game": 1200}},
            {"team": 1, "battle": ["go"], "speed": ["speed_limit"],
             "distance": ["100"], "safeties": ["extra_tank"], "coups": ["extra_tank"],
             "score": {"hand": 200, "game": 900}}
        ]
    })
}

fn line(v: Value) -> String {
    let mut s = v.to_string();
    s.push('\n');
    s
}

#[test]
fn hello_answers_name_and_version() {
    let (code, out) = bot(&[], &line(json!({"id": 0, "hello": {"protocol": 1}})));
    assert_eq!(code, Some(0));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], 0);
    assert_eq!(out[0]["protocol"], 1);
    assert!(out[0]["name"].as_str().is_some_and(|n| !n.is_empty()));
}

#[test]
fn legal_lists_plays_and_discards_in_card_order() {
    let (_, out) = bot(
        &["--level", "random"],
        &line(json!({"id": 7, "legal": view_bsd()})),
    );
    assert_eq!(out[0]["id"], 7);
    let actions = out[0]["actions"].as_array().expect("actions");
    let expected = json!([
        {"play": "25"}, {"play": "75"}, {"play": "200"}, {"play": "stop", "target": 1},
        {"discard": "25"}, {"discard": "75"}, {"discard": "200"}, {"discard": "stop"},
        {"discard": "gasoline"}, {"discard": "end_of_limit"}, {"discard": "go"}
    ]);
    assert_eq!(Value::Array(actions.clone()), expected);
}

#[test]
fn legal_for_other_rulesets_and_partial_views() {
    // Classic, 4 players in teams: seat 1 (team 1) may attack team 0 only.
    let classic4 = json!({
        "rules": "classic", "seat": 1, "hand": ["stop", "go", "right_of_way", "25", "100", "accident", "repairs"],
        "deck": 60, "discards": [], "target": 1000, "extended": false,
        "seats": [{"seat": 0, "team": 0, "hand_size": 6}, {"seat": 1, "team": 1, "hand_size": 7},
                  {"seat": 2, "team": 0, "hand_size": 6}, {"seat": 3, "team": 1, "hand_size": 6}],
        "teams": [
            {"team": 0, "battle": ["go"], "speed": [], "distance": ["100"], "safeties": [], "coups": [], "score": {"hand": 100, "game": 0}},
            {"team": 1, "battle": [], "speed": [], "distance": [], "safeties": [], "coups": [], "score": {"hand": 0, "game": 0}}
        ]
    });
    // Classic discards safeties; only the top of each pile is known and
    // the discards are missing: the engine must still answer.
    let partial = json!({
        "rules": "milebones", "seat": 1, "hand": ["50", "go", "extra_tank", "flat_tire", "200", "75", "spare_tire"],
        "deck": 20, "discards": ["go"], "target": 700, "extended": false,
        "seats": [{"seat": 0, "team": 0, "hand_size": 6}, {"seat": 1, "team": 1, "hand_size": 7}],
        "teams": [
            {"team": 0, "battle": ["go"], "speed": ["end_of_limit"], "distance": ["200", "100", "100"], "safeties": [], "coups": [], "score": {"hand": 400, "game": 3000}},
            {"team": 1, "battle": ["go"], "speed": [], "distance": ["100"], "safeties": [], "coups": [], "score": {"hand": 100, "game": 2500}}
        ]
    });
    let input =
        line(json!({"id": 1, "legal": classic4})) + &line(json!({"id": 2, "legal": partial}));
    let (code, out) = bot(&["--level", "classic"], &input);
    assert_eq!(code, Some(0));
    let a1 = out[0]["actions"].as_array().expect("actions");
    assert!(a1.contains(&json!({"play": "go"})));
    assert!(a1.contains(&json!({"play": "stop", "target": 0})));
    assert!(a1.contains(&json!({"play": "accident", "target": 0})));
    assert!(a1.contains(&json!({"play": "right_of_way"})));
    assert!(
        a1.contains(&json!({"discard": "right_of_way"})),
        "classic discards safeties"
    );
    assert!(
        !a1.contains(&json!({"play": "25"})),
        "no distance before a Go"
    );
    let a2 = out[1]["actions"].as_array().expect("actions");
    assert!(a2.contains(&json!({"play": "200"})));
    assert!(a2.contains(&json!({"play": "flat_tire", "target": 0})));
    assert!(!a2.contains(&json!({"play": "spare_tire"})));
}

#[test]
fn the_three_decisions_get_legal_answers_at_every_level() {
    let mut cf_view = view_bsd();
    cf_view["hand"] = json!(["extra_tank", "25", "50", "75", "100", "go"]);
    cf_view["teams"][0]["battle"] = json!(["go", "out_of_gas"]);
    cf_view["teams"][1]["safeties"] = json!([]);
    cf_view["teams"][1]["coups"] = json!([]);
    let mut ext_view = view_bsd();
    ext_view["teams"][0]["distance"] = json!(["200", "200", "100", "100", "100"]);
    let input = line(json!({"id": 1, "decide": "turn", "view": view_bsd()}))
        + &line(json!({"id": 2, "decide": "coup_fourre", "view": cf_view, "hazard": "out_of_gas"}))
        + &line(json!({"id": 3, "decide": "extension", "view": ext_view}));
    for level in ["random", "classic", "easy", "normal"] {
        let (code, out) = bot(&["--level", level], &input);
        assert_eq!(code, Some(0), "{level}");
        assert_eq!(out.len(), 3, "{level}: {out:?}");
        let turn = &out[0];
        assert_eq!(turn["id"], 1);
        let legal = [
            json!({"id": 1, "play": "25"}),
            json!({"id": 1, "play": "75"}),
            json!({"id": 1, "play": "200"}),
            json!({"id": 1, "play": "stop", "target": 1}),
        ];
        let is_discard = turn.get("discard").is_some();
        assert!(is_discard || legal.contains(turn), "{level}: {turn}");
        assert_eq!(out[1]["id"], 2);
        assert!(out[1]["coup_fourre"].is_boolean(), "{level}: {}", out[1]);
        assert_eq!(out[2]["id"], 3);
        assert!(out[2]["extend"].is_boolean(), "{level}: {}", out[2]);
    }
}

#[test]
fn malformed_lines_get_errors_and_the_bot_keeps_going() {
    let input = [
        "this is not json".to_string(),
        "[1,2,3]".into(),
        r#"{"hello":{"protocol":1}}"#.into(),
        r#"{"id":4,"fly":true}"#.into(),
        r#"{"id":5,"decide":"dance","view":{}}"#.into(),
        r#"{"id":6,"legal":{"rules":"chess"}}"#.into(),
        json!({"id": 7, "decide": "coup_fourre", "view": view_bsd(), "hazard": "go"}).to_string(),
        json!({"id": 8, "legal": {"rules": "bsd", "seat": 5, "hand": [], "deck": 0, "discards": [],
            "target": 700, "extended": false, "seats": [], "teams": []}})
        .to_string(),
        r#"{"id":9,"hello":{"protocol":1}}"#.into(),
    ]
    .join("\n")
        + "\n";
    let (code, out) = bot(&["--level", "classic"], &input);
    assert_eq!(code, Some(0));
    assert_eq!(out.len(), 9, "{out:?}");
    for (i, a) in out.iter().take(3).enumerate() {
        assert_eq!(a["id"], Value::Null, "line {i}: {a}");
        assert!(a["error"].is_string(), "line {i}: {a}");
    }
    for (a, id) in out[3..8].iter().zip(4..) {
        assert_eq!(a["id"], id, "{a}");
        assert!(a["error"].as_str().is_some_and(|e| !e.is_empty()), "{a}");
    }
    assert_eq!(out[8]["protocol"], 1);
}

#[test]
fn end_of_input_exits_zero() {
    let (code, out) = bot(&[], "");
    assert_eq!(code, Some(0));
    assert!(out.is_empty());
}
