//! `cubes review FILE`: a finished game's decisions beside the optimal
//! player's ([`cubes_ai::review`]), as a table, with the board at one
//! decision on request (`--at K`). FILE is a game record
//! (`cubes_engine::GameRecord` as JSON) or a table server's game document
//! (`GET /api/games/ID`: an object whose `record` is the game record, with
//! its `players`). Whatever is wrong with the file is said in one
//! sentence, exit status 2. The end of a local game offers the same
//! review ([`offer`]).

use cubes_ai::review::{
    Decision, GameReview, Mark, POINTS_THRESHOLDS, Unit, WIN_THRESHOLDS, review_game,
};
use cubes_engine::{Action, DieState, Face, GameRecord, Phase, View};
use cubes_tui::app::points;
use serde_json::Value;
use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

/// Largest file read: a game record of cubes is a few kilobytes; a server
/// document with its players not much more.
const MAX_BYTES: u64 = 16 << 20;

/// A game read from a file: its record and what is known of its seats.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The record.
    pub record: GameRecord,
    /// Names by seat (`Seat N` where the file names nobody).
    pub names: Vec<String>,
    /// Whether each seat is a computer player (all `false` when the file
    /// does not say).
    pub computer: Vec<bool>,
}

impl Loaded {
    /// A game played here.
    pub fn new(record: GameRecord, names: Vec<String>, computer: Vec<bool>) -> Loaded {
        let mut l = Loaded {
            record,
            names,
            computer,
        };
        l.fill();
        l
    }

    /// Names every seat and says of each whether it is a computer.
    fn fill(&mut self) {
        let n = self.record.players;
        self.names.truncate(n);
        while self.names.len() < n {
            self.names.push(format!("Seat {}", self.names.len() + 1));
        }
        self.computer.resize(n, false);
    }

    /// The first seat a person played, else the first seat.
    pub fn first_person(&self) -> usize {
        self.computer.iter().position(|c| !c).unwrap_or(0)
    }

    fn name(&self, seat: usize) -> &str {
        self.names.get(seat).map_or("?", String::as_str)
    }
}

/// Reads a game from `bytes` (a record, or a server's game document).
pub fn read(bytes: &[u8]) -> Result<Loaded, String> {
    let json: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("it is not JSON ({e}), so not a game of cubes"))?;
    if let Some(game) = json.get("game").and_then(Value::as_str)
        && game != "cubes"
    {
        return Err(format!("it is a game of {game}, not of cubes"));
    }
    let (record, players) = match json.get("record") {
        Some(r) => (r.clone(), json.get("players")),
        None => (json.clone(), None),
    };
    let record: GameRecord = serde_json::from_value(record)
        .map_err(|e| format!("it is not a game record of cubes ({e})"))?;
    let mut names = Vec::new();
    let mut computer = Vec::new();
    for p in players.and_then(Value::as_array).into_iter().flatten() {
        let (Some(seat), Some(name)) = (
            p.get("seat").and_then(Value::as_u64),
            p.get("name").and_then(Value::as_str),
        ) else {
            continue;
        };
        let Ok(seat) = usize::try_from(seat) else {
            continue;
        };
        // A seat past the game's names nobody.
        if seat >= record.players.min(cubes_engine::MAX_PLAYERS) {
            continue;
        }
        while names.len() <= seat {
            names.push(format!("Seat {}", names.len() + 1));
            computer.push(false);
        }
        names[seat] = name.to_string();
        computer[seat] = p.get("computer").and_then(Value::as_bool).unwrap_or(false);
    }
    Ok(Loaded::new(record, names, computer))
}

/// Reads the file at `path`.
pub fn load(path: &Path) -> Result<Loaded, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if meta.len() > MAX_BYTES {
        return Err(format!(
            "{shown} is {} bytes, far too large for a game of cubes",
            meta.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    read(&bytes).map_err(|why| format!("{shown} cannot be reviewed: {why}"))
}

/// Says `why` in one sentence and ends with exit status 2.
fn refuse(why: &str) -> ExitCode {
    eprintln!("cubes review: {why}.");
    ExitCode::from(2)
}

/// Runs `cubes review FILE [--seat N] [--at K]` (`seat` and `at` count
/// from 1).
pub fn run(file: &Path, seat: Option<usize>, at: Option<usize>) -> ExitCode {
    let loaded = match load(file) {
        Ok(l) => l,
        Err(why) => return refuse(&why),
    };
    let players = loaded.record.players;
    let seat = match seat {
        None => loaded.first_person(),
        Some(n) if (1..=players).contains(&n) => n - 1,
        Some(n) => {
            return refuse(&format!(
                "--seat {n}: the game in {} has seats 1 to {players}",
                file.display()
            ));
        }
    };
    let review = match review_game(&loaded.record, seat) {
        Ok(r) => r,
        Err(e) => return refuse(&format!("{} cannot be reviewed: {e}", file.display())),
    };
    let text = match at {
        None => table(&loaded, &review),
        Some(k) => match k.checked_sub(1).and_then(|i| review.decisions.get(i)) {
            Some(d) => board(&loaded, &review, d),
            None if review.decisions.is_empty() => {
                return refuse(&format!(
                    "--at {k}: {} had no choice to make in this game",
                    loaded.name(seat)
                ));
            }
            None => {
                return refuse(&format!(
                    "--at {k}: {} made decisions 1 to {} in this game",
                    loaded.name(seat),
                    review.decisions.len()
                ));
            }
        },
    };
    let mut out = std::io::stdout().lock();
    // A closed standard output (a pager quit early) is no failure.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    ExitCode::SUCCESS
}

/// A die as shown: its number, `J` for a Joker.
fn face(f: Face) -> String {
    if f == Face::Joker {
        "J".into()
    } else {
        f.number().to_string()
    }
}

/// The dice of a decision: the held ones in brackets, then the roll.
fn dice(view: &View) -> String {
    let t = &view.turn;
    let of = |s: DieState| -> Vec<String> {
        (0..5)
            .filter(|&i| t.states[i] == s)
            .map(|i| face(t.dice[i]))
            .collect()
    };
    let held = of(DieState::Held);
    let rolled = of(DieState::Rolled).join(" ");
    if held.is_empty() {
        rolled
    } else {
        format!("[{}] {rolled}", held.join(" "))
    }
}

/// A move in words: `hold 350`, `keep 1 5`.
fn move_words(view: &View, a: Action) -> String {
    match a {
        Action::Hold => match view.can_hold() {
            Ok(total) => format!("hold {}", points(total)),
            Err(_) => "hold".into(),
        },
        Action::Keep(mask) => {
            let faces: Vec<String> = mask.positions().map(|p| face(view.turn.dice[p])).collect();
            format!("keep {}", faces.join(" "))
        }
        Action::Roll => "roll".into(),
    }
}

/// A loss (or a value) in its unit: percentage points of the game, or
/// points.
fn amount(unit: Unit, x: f64) -> String {
    match unit {
        Unit::WinProbability => format!("{:.1}%", 100.0 * x),
        Unit::ExpectedPoints => format!("{x:.0} pts"),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The whole review as text: the decisions, the totals, the accuracy.
pub fn table(loaded: &Loaded, review: &GameReview) -> String {
    let r = &loaded.record;
    let seat = review.seat;
    let mut s = format!(
        "Review of {} (seat {}): a {} game of {}",
        loaded.name(seat),
        seat + 1,
        r.settings.name,
        plural(r.players, "player", "players"),
    );
    match review.winner {
        Some(w) if w == seat => s.push_str(", which they won.\n"),
        Some(w) => s.push_str(&format!(", won by {}.\n", loaded.name(w))),
        None => s.push_str(", not finished.\n"),
    }
    s.push_str(
        "Each keep and hold beside the optimal player's, valued exactly by its tables: \
         the chance of winning the game (%), or, with three or more players before the \
         end game, the points expected to be banked this turn (pts).\n\n",
    );
    if review.decisions.is_empty() {
        s.push_str("No decisions to review: this seat had no choice to make in this game.\n");
        return s;
    }
    s.push_str(&format!(
        "{:>4} {:>4} {:>7} {:>6}  {:<15} {:<14} {:<14} {:>8}  {}\n",
        "#", "turn", "score", "total", "dice", "made", "best", "loss", "mark"
    ));
    for d in &review.decisions {
        let v = &d.view;
        let best = if d.mark == Mark::Best {
            "=".to_string()
        } else {
            move_words(v, d.best)
        };
        let loss = if d.mark == Mark::Best {
            String::new()
        } else {
            amount(d.unit, d.loss)
        };
        s.push_str(&format!(
            "{:>4} {:>4} {:>7} {:>6}  {:<15} {:<14} {:<14} {:>8}  {}\n",
            d.index + 1,
            d.turn,
            points(v.players[seat].score),
            points(v.turn.points),
            dice(v),
            move_words(v, d.made),
            best,
            loss,
            d.mark.word()
        ));
    }
    let m = &review.marks;
    s.push_str(&format!(
        "\n{} ({} not counted): {} best, {} good, {}, {}, {}.\n",
        plural(review.decisions.len(), "decision", "decisions"),
        plural(review.forced, "forced move", "forced moves"),
        m.best,
        m.good,
        plural(m.inaccuracy, "inaccuracy", "inaccuracies"),
        plural(m.mistake, "mistake", "mistakes"),
        plural(m.blunder, "blunder", "blunders"),
    ));
    let any = |u: Unit| review.decisions.iter().any(|d| d.unit == u);
    if any(Unit::WinProbability) {
        s.push_str(&format!(
            "Chance of winning given away in all: {:.1} percentage points.\n",
            100.0 * review.win_lost
        ));
    }
    if any(Unit::ExpectedPoints) {
        s.push_str(&format!(
            "Expected points given away in all: {:.0}.\n",
            review.points_lost
        ));
    }
    s.push_str(&format!(
        "Accuracy: {:.0}% (decisions that lost less than an inaccuracy).\n",
        review.accuracy
    ));
    s.push_str(&format!(
        "Marks: an inaccuracy loses {:.0}%, a mistake {:.0}%, a blunder {:.0}% of the game or more \
         ({:.0}, {:.0} and {:.0} expected points).\n",
        100.0 * WIN_THRESHOLDS.inaccuracy,
        100.0 * WIN_THRESHOLDS.mistake,
        100.0 * WIN_THRESHOLDS.blunder,
        POINTS_THRESHOLDS.inaccuracy,
        POINTS_THRESHOLDS.mistake,
        POINTS_THRESHOLDS.blunder,
    ));
    s.push_str("`--at K` shows the table at decision K.\n");
    s
}

/// The table at one decision: the scores, the turn, the dice and every
/// move open with its value.
pub fn board(loaded: &Loaded, review: &GameReview, d: &Decision) -> String {
    let v = &d.view;
    let seat = review.seat;
    let mut s = format!(
        "Decision {} of {}: {}'s turn {}, {} game to {} points.\n\n",
        d.index + 1,
        review.decisions.len(),
        loaded.name(seat),
        d.turn,
        v.settings.name,
        points(v.settings.target),
    );
    for (k, p) in v.players.iter().enumerate() {
        s.push_str(&format!(
            "  {:<20} {:>7}{}{}\n",
            loaded.name(k),
            points(p.score),
            if p.on_board { "" } else { "  (not on board)" },
            if k == seat { "  <- to play" } else { "" },
        ));
    }
    let t = &v.turn;
    let held: Vec<String> = (0..5)
        .filter(|&i| t.states[i] == DieState::Held)
        .map(|i| face(t.dice[i]))
        .collect();
    let rolled: Vec<String> = (0..5)
        .filter(|&i| t.states[i] == DieState::Rolled)
        .map(|i| face(t.dice[i]))
        .collect();
    s.push_str(&format!(
        "\nTurn total {}. Held: {}. This roll: {}.\n",
        points(t.points),
        if held.is_empty() {
            "none".into()
        } else {
            held.join(" ")
        },
        rolled.join(" "),
    ));
    if v.phase != Phase::Rolled {
        return s;
    }
    let what = match d.unit {
        Unit::WinProbability => "chance of winning",
        Unit::ExpectedPoints => "points expected this turn",
    };
    s.push_str(&format!("\nEvery move, best first ({what}):\n"));
    for o in &d.options {
        let mut tags = Vec::new();
        if o.action == d.best {
            tags.push("optimal");
        }
        if o.action == d.made {
            tags.push("made");
        }
        let line = format!(
            "  {:<16} {:>9}  {}",
            move_words(v, o.action),
            amount(d.unit, o.value),
            tags.join(", ")
        );
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s.push_str(&format!(
        "\nMade: {}; the optimal player: {}. ",
        move_words(v, d.made),
        move_words(v, d.best)
    ));
    if d.mark == Mark::Best {
        s.push_str("Best.\n");
    } else {
        s.push_str(&format!(
            "Lost {} ({}).\n",
            amount(d.unit, d.loss),
            d.mark.word()
        ));
    }
    s
}

/// At the end of a game played here, asks on the terminal whether to
/// review it, and prints the review of its first person's decisions when
/// the answer is yes. `input` gives the answer.
pub fn offer(
    loaded: &Loaded,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> std::io::Result<()> {
    write!(out, "Review this game? (y/n) ")?;
    out.flush()?;
    let mut answer = String::new();
    input.read_line(&mut answer)?;
    if !answer.trim().to_ascii_lowercase().starts_with('y') {
        return Ok(());
    }
    match review_game(&loaded.record, loaded.first_person()) {
        Ok(review) => write!(out, "\n{}", table(loaded, &review))?,
        // A game played here always replays; say so if it does not.
        Err(e) => writeln!(out, "This game cannot be reviewed: {e}.")?,
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cubes_engine::{Settings, State, ToAct};

    fn record() -> GameRecord {
        let mut r = GameRecord::new(Settings::blitz(), 2, 5);
        let mut s = State::new(Settings::blitz(), 2, 5).expect("setup");
        let steady = cubes_ai::Personality::steady();
        while let ToAct::Seat(seat) = s.to_act() {
            let a = steady.act(&s.view(seat));
            s.apply(a).expect("legal");
            r.actions.push(a);
        }
        r
    }

    #[test]
    fn a_record_and_a_server_document_are_read() {
        let r = record();
        let bare = read(serde_json::to_string(&r).expect("json").as_bytes()).expect("bare");
        assert_eq!(bare.record, r);
        assert_eq!(bare.names, ["Seat 1", "Seat 2"]);
        assert_eq!(bare.first_person(), 0);
        let doc = serde_json::json!({
            "id": 4, "game": "cubes",
            "players": [
                {"seat": 0, "name": "Steady Sam", "computer": true},
                {"seat": 1, "name": "ann", "computer": false},
                {"seat": 9, "name": "nobody", "computer": false},
            ],
            "record": r,
        });
        let doc = read(doc.to_string().as_bytes()).expect("document");
        assert_eq!(doc.names, ["Steady Sam", "ann"]);
        assert_eq!(doc.first_person(), 1);
    }

    #[test]
    fn what_is_not_a_game_of_cubes_is_said() {
        for (bytes, says) in [
            (&b"not json"[..], "not JSON"),
            (br#"{"game": "mille", "record": {}}"#, "a game of mille"),
            (br#"{"settings": 3}"#, "not a game record of cubes"),
            (b"[]", "not a game record"),
        ] {
            let why = read(bytes).expect_err("refused");
            assert!(why.contains(says), "{why}");
        }
    }

    #[test]
    fn the_table_lists_every_decision_with_its_mark() {
        let loaded = Loaded::new(record(), vec!["ann".into()], vec![false]);
        let review = review_game(&loaded.record, 0).expect("review");
        let text = table(&loaded, &review);
        assert!(text.starts_with("Review of ann (seat 1): a Blitz game of 2 players"));
        for d in &review.decisions {
            assert!(text.contains(d.mark.word()));
        }
        assert!(text.contains("Accuracy: "), "{text}");
        let d = &review.decisions[0];
        let b = board(&loaded, &review, d);
        assert!(b.contains("Every move, best first"), "{b}");
        assert!(b.contains("optimal"), "{b}");
    }

    #[test]
    fn the_offer_reviews_only_when_asked() {
        let loaded = Loaded::new(record(), vec![], vec![]);
        let mut out = Vec::new();
        offer(&loaded, &mut &b"n\n"[..], &mut out).expect("io");
        assert_eq!(String::from_utf8_lossy(&out), "Review this game? (y/n) ");
        let mut out = Vec::new();
        offer(&loaded, &mut &b"y\n"[..], &mut out).expect("io");
        let out = String::from_utf8_lossy(&out);
        assert!(out.contains("Review of Seat 1"), "{out}");
        assert!(out.contains("Accuracy"), "{out}");
    }
}
