//! What the server needs of each game besides the table layer: reading a
//! setup, making computer players, the actions' wire form, the deal
//! between hands and the results to record. The rules stay in the
//! engines; this is only their translation to the protocol.

use cubes_engine::{Cubes, JokerRule, Settings};
use game_table::{Bot, Game, SeatInfo, Turn};
use mille_engine::{Action as MilleAction, GameConfig, Mille, RulesetId};
use serde::Serialize;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;
use table_protocol::GameKind;

/// The Mille Bornes high-score table in the server's data directory
/// (`mille --scores` reads the same format).
pub const MILLE_SCORES: &str = mille_store::SCORES_FILE;
/// The cubes score file in the server's data directory, which `cubes rank
/// --connect` ranks from.
pub const CUBES_SCORES: &str = "cubes-scores.db";

/// One seat's result at the end of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatResult {
    /// Its final score (the team's, in team games).
    pub score: i64,
    /// Whether it won.
    pub won: bool,
    /// Its side: the team in team games, else the seat itself.
    pub side: usize,
}

/// Each seat's place among the sides (0: first), from the results: the
/// winners first, then by score; equal sides share a place (the number of
/// sides that did strictly better).
pub fn places(results: &[SeatResult]) -> Vec<usize> {
    let better =
        |a: &SeatResult, b: &SeatResult| (a.won && !b.won) || (a.won == b.won && a.score > b.score);
    let mut sides: Vec<&SeatResult> = Vec::new();
    for r in results {
        if !sides.iter().any(|s| s.side == r.side) {
            sides.push(r);
        }
    }
    results
        .iter()
        .map(|r| sides.iter().filter(|s| better(s, r)).count())
        .collect()
}

/// A game the server hosts.
pub trait ServerGame: Game<Observation: Serialize> + Send {
    /// Which game.
    const KIND: GameKind;
    /// What a table of this game is set up with.
    type Setup: Clone + Send + Sync + Serialize + 'static;

    /// Reads a setup (`null`: the default), with a sentence saying what is
    /// wrong.
    fn setup(value: &Value) -> Result<Self::Setup, String>;
    /// The setup in words, for the lobby.
    fn describe(setup: &Self::Setup, seats: usize) -> String;
    /// Seat counts this setup allows.
    fn check_seats(setup: &Self::Setup, seats: usize) -> Result<(), String>;
    /// The game at its start.
    fn start(setup: &Self::Setup, seats: usize, seed: u64) -> Result<Self::State, String>;
    /// The computer players' levels, weakest first.
    fn levels() -> Vec<String>;
    /// The rating category of a table with this setup and seats.
    fn category(setup: &Self::Setup, seats: usize) -> Option<game_rating::Category>;
    /// The level that plays for a person who is away.
    fn stand_in() -> &'static str;
    /// A computer player at `level`.
    fn bot(level: &str, seed: u64) -> Result<Box<dyn Bot<Self>>, String>;
    /// A bot program speaking the game's bot protocol, started with
    /// `command` (the server's operator names such programs; a client only
    /// picks one by its name).
    fn program(command: &str, _timeout: Duration) -> Result<Box<dyn Bot<Self>>, String> {
        Err(format!("bot programs play mille only, not {command:?}"))
    }
    /// The name a computer player at `level` sits under.
    fn bot_name(level: &str, seat: usize) -> String;
    /// Reads an action in its wire form.
    fn read_action(value: &Value) -> Result<Self::Action, String>;
    /// An action in its wire form (the form the log keeps too).
    fn write_action(action: Self::Action) -> Value;
    /// What the host does when the table waits for it (deal the next
    /// hand), if anything.
    fn host_action(state: &Self::State) -> Option<Self::Action>;
    /// Every seat's result, once the game is over.
    fn results(state: &Self::State) -> Vec<SeatResult>;
    /// Every seat's score as it stands, the game over or not (nobody has
    /// won an unfinished game): what a game ended early by a forfeit
    /// records.
    fn scores_now(state: &Self::State) -> Vec<SeatResult> {
        Self::results(state)
            .into_iter()
            .map(|r| SeatResult { won: false, ..r })
            .collect()
    }
    /// Whether the seat to act decides something the others may not know
    /// it is asked (a coup fourré chance): a computer answers it without
    /// the pause people watch its moves with, so the pause tells nothing.
    fn secret_decision(_state: &Self::State) -> bool {
        false
    }
    /// After `action` was played into `state`: the seats that may now hold
    /// a decision nobody else is shown (the attacked side of a hazard,
    /// whichever of its seats holds the safety, if any), and the seat the
    /// others see to act next. `None` when no such decision can follow.
    /// The table pauses after every such move, decision or not, so that
    /// nothing tells the two apart.
    fn hidden_chance_after(
        _state: &Self::State,
        _action: Self::Action,
    ) -> Option<(Vec<usize>, Option<usize>)> {
        None
    }
    /// The answer that lets a pending secret decision pass (a declined
    /// coup fourré), for a chance whose time is up.
    fn let_pass(_state: &Self::State) -> Option<Self::Action> {
        None
    }
    /// A finished game's score record (JSON), if the game keeps scores:
    /// what [`ServerGame::write_score`] writes to its score file. The
    /// seats marked in `abandoned` are left out of it.
    fn score(_state: &Self::State, _seats: &[SeatInfo], _abandoned: &[bool]) -> Option<Value> {
        None
    }
    /// Writes a score record to the game's own score file in directory
    /// `dir` (the server's data directory, or a scratch one the rankings
    /// of a shared database are computed in).
    fn write_score(_record: &Value, _dir: &Path) -> Result<(), String> {
        Ok(())
    }
}

impl ServerGame for Mille {
    const KIND: GameKind = GameKind::Mille;
    type Setup = GameConfig;

    fn setup(value: &Value) -> Result<GameConfig, String> {
        if value.is_null() {
            return Ok(GameConfig::default());
        }
        serde_json::from_value(value.clone()).map_err(|e| {
            format!("a mille setup is {{\"rules\":\"bsd|classic|milebones\",\"players\":N,\"stacking\":false}}: {e}")
        })
    }

    fn describe(setup: &GameConfig, seats: usize) -> String {
        let rules = match setup.rules {
            RulesetId::Bsd => "bsd",
            RulesetId::Classic => "classic",
            RulesetId::Milebones => "milebones",
        };
        let teams = match seats {
            4 => " in 2 teams",
            6 => " in 3 teams",
            _ => "",
        };
        let stacking = if setup.stacking { ", stacking" } else { "" };
        format!("{rules}, {seats} players{teams}{stacking}")
    }

    fn check_seats(setup: &GameConfig, seats: usize) -> Result<(), String> {
        if usize::from(setup.players) != seats {
            return Err(format!(
                "the setup is for {} players, and {seats} seats were given",
                setup.players
            ));
        }
        mille_engine::Rules::new(*setup)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn start(setup: &GameConfig, _seats: usize, seed: u64) -> Result<mille_engine::State, String> {
        mille_engine::State::new(*setup, seed).map_err(|e| e.to_string())
    }

    fn category(setup: &GameConfig, seats: usize) -> Option<game_rating::Category> {
        use game_rating::Category;
        use mille_engine::RulesetId;
        match setup.rules {
            RulesetId::Bsd => Some(Category::MilleBsd),
            RulesetId::Milebones => Some(Category::MilleMilebones),
            RulesetId::Classic => u8::try_from(seats).ok().map(Category::MilleClassic),
        }
    }

    fn levels() -> Vec<String> {
        mille_ai::Level::ALL
            .iter()
            .map(|l| l.id().to_string())
            .collect()
    }

    fn stand_in() -> &'static str {
        "classic"
    }

    fn bot(level: &str, seed: u64) -> Result<Box<dyn Bot<Mille>>, String> {
        let level: mille_ai::Level = level.parse().map_err(|e| format!("{e}"))?;
        Ok(mille_ai::make_bot(level, seed))
    }

    fn program(command: &str, timeout: Duration) -> Result<Box<dyn Bot<Mille>>, String> {
        mille_protocol::ExternalBot::spawn(command, timeout)
            .map(|b| Box::new(b) as Box<dyn Bot<Mille>>)
            .map_err(|e| e.to_string())
    }

    fn bot_name(level: &str, seat: usize) -> String {
        format!("Computer {} ({level})", seat + 1)
    }

    fn read_action(value: &Value) -> Result<MilleAction, String> {
        let text = value.as_str().ok_or_else(|| {
            // The examples are written by the engine, so they are always
            // forms it reads back.
            let play = MilleAction::Play {
                card: mille_engine::Card::D200,
                team: 1,
            };
            format!(
                "a mille action is a string such as \"{}\" or \"{play}\"",
                MilleAction::Draw
            )
        })?;
        text.parse::<MilleAction>().map_err(|e| e.to_string())
    }

    fn write_action(action: MilleAction) -> Value {
        Value::from(action.to_string())
    }

    fn secret_decision(state: &mille_engine::State) -> bool {
        matches!(state.phase(), mille_engine::Phase::CoupFourre { .. })
    }

    fn hidden_chance_after(
        state: &mille_engine::State,
        action: MilleAction,
    ) -> Option<(Vec<usize>, Option<usize>)> {
        let MilleAction::Play { card, team } = action else {
            return None;
        };
        if card.kind() != mille_engine::Kind::Hazard {
            return None;
        }
        let seats = (0..Mille::seat_count(state))
            .filter(|&k| side_of(state, k) == Some(team))
            .collect();
        // The seat to act as everybody but a holder sees the game: the one
        // it goes on with after a decline.
        let mut seen = state.clone();
        while Self::secret_decision(&seen) {
            if seen.apply(MilleAction::DeclineCoupFourre).is_err() {
                break;
            }
        }
        let next = match Mille::turn(&seen) {
            Turn::Seat(s) => Some(s),
            Turn::Host | Turn::Over => None,
        };
        Some((seats, next))
    }

    fn let_pass(state: &mille_engine::State) -> Option<MilleAction> {
        Self::secret_decision(state).then_some(MilleAction::DeclineCoupFourre)
    }

    fn host_action(state: &mille_engine::State) -> Option<MilleAction> {
        (Mille::turn(state) == Turn::Host).then_some(MilleAction::NextHand)
    }

    fn score(state: &mille_engine::State, seats: &[SeatInfo], abandoned: &[bool]) -> Option<Value> {
        // A side's name is its players' (a team's: "ann & bob"), as at a
        // terminal. A side with a player who abandoned the game enters no
        // high-score table: its total was not all played by them.
        let quitters = |team: usize| {
            (0..seats.len()).any(|k| {
                abandoned.get(k).copied().unwrap_or(false)
                    && side_of(state, k).map(usize::from) == Some(team)
            })
        };
        let sides: Vec<(String, u32)> = state
            .totals()
            .iter()
            .enumerate()
            .filter(|&(team, _)| !quitters(team))
            .map(|(team, &total)| {
                let names: Vec<&str> = seats
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| side_of(state, k).map(usize::from) == Some(team))
                    .map(|(_, info)| info.name.as_str())
                    .collect();
                (names.join(" & "), total)
            })
            .collect();
        if sides.is_empty() {
            return None;
        }
        let rules = state.rules().config.rules.id();
        Some(serde_json::json!({ "rules": rules, "sides": sides }))
    }

    fn write_score(record: &Value, dir: &Path) -> Result<(), String> {
        #[derive(serde::Deserialize)]
        struct Record {
            rules: String,
            sides: Vec<(String, u32)>,
        }
        let r: Record = serde_json::from_value(record.clone()).map_err(|e| e.to_string())?;
        let mut db = mille_store::ScoreDb::open(dir).map_err(|e| e.to_string())?;
        db.record_game(&r.rules, &r.sides, 0)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn results(state: &mille_engine::State) -> Vec<SeatResult> {
        let winners = state.winners();
        let seats = Mille::seat_count(state);
        (0..seats)
            .map(|s| {
                let team = side_of(state, s).unwrap_or(0);
                SeatResult {
                    score: state
                        .totals()
                        .get(usize::from(team))
                        .map_or(0, |&t| i64::from(t)),
                    won: winners.contains(&team),
                    side: usize::from(team),
                }
            })
            .collect()
    }
}

/// A table's setup in words ("classic, 4 players in 2 teams"), or the
/// game's name if the setup cannot be read.
pub fn ruleset_words(game: GameKind, setup: &Value, seats: usize) -> String {
    fn words<G: ServerGame>(setup: &Value, seats: usize) -> Option<String> {
        G::setup(setup).ok().map(|s| G::describe(&s, seats))
    }
    match game {
        GameKind::Mille => words::<Mille>(setup, seats),
        GameKind::Cubes => words::<Cubes>(setup, seats),
    }
    .unwrap_or_else(|| game.name().to_string())
}

/// A table's log replayed from its seed: every seat's result if the game
/// is over (`None` if it is not), or why the log does not replay. What a
/// finished table's results must say, whichever instance ran it.
pub fn replay_results(
    stored: &crate::store::StoredTable,
) -> Result<Option<Vec<SeatResult>>, String> {
    fn replay<G: ServerGame>(
        stored: &crate::store::StoredTable,
    ) -> Result<Option<Vec<SeatResult>>, String> {
        let setup = G::setup(&stored.setup)?;
        let state = G::start(&setup, stored.seats.len(), stored.seed)?;
        let players = (0..stored.seats.len())
            .map(|k| {
                (
                    SeatInfo::human(format!("Seat {}", k + 1)),
                    game_table::Player::<G>::Person,
                )
            })
            .collect();
        let mut table = game_table::Table::new(state, players);
        for (k, (_, action, _)) in stored.moves.iter().enumerate() {
            let action = G::read_action(action).map_err(|e| format!("move {}: {e}", k + 1))?;
            table
                .replay(action)
                .map_err(|e| format!("move {}: {e}", k + 1))?;
        }
        Ok((table.turn() == game_table::Turn::Over).then(|| G::results(table.state())))
    }
    match stored.game {
        GameKind::Mille => replay::<Mille>(stored),
        GameKind::Cubes => replay::<Cubes>(stored),
    }
}

/// The side (team) seat number `k` plays for, if the game has that seat.
fn side_of(state: &mille_engine::State, k: usize) -> Option<u8> {
    let seat = state.rules().seat(u8::try_from(k).ok()?)?;
    Some(state.team_of(seat))
}

/// A cubes table's setup: the kind of game and its dice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CubesSetup {
    /// "standard" (10,000) or "blitz" (7,500).
    #[serde(default = "standard")]
    pub game: String,
    /// "never", "always" or "sometimes" (about one game in six).
    #[serde(default = "never")]
    pub jokers: String,
}

fn standard() -> String {
    "standard".into()
}

fn never() -> String {
    "never".into()
}

impl CubesSetup {
    fn settings(&self) -> Result<Settings, String> {
        let base = match self.game.as_str() {
            "standard" => Settings::standard(),
            "blitz" => Settings::blitz(),
            other => return Err(format!("a cubes game is standard or blitz, not {other:?}")),
        };
        let jokers = match self.jokers.as_str() {
            "never" => JokerRule::Never,
            "always" => JokerRule::Always,
            "sometimes" => JokerRule::OneGameInSix,
            other => {
                return Err(format!(
                    "cubes jokers are never, always or sometimes, not {other:?}"
                ));
            }
        };
        Ok(base.with_jokers(jokers))
    }
}

impl ServerGame for Cubes {
    const KIND: GameKind = GameKind::Cubes;
    type Setup = CubesSetup;

    fn setup(value: &Value) -> Result<CubesSetup, String> {
        let setup: CubesSetup = if value.is_null() {
            CubesSetup {
                game: standard(),
                jokers: never(),
            }
        } else {
            serde_json::from_value(value.clone()).map_err(|e| {
                format!("a cubes setup is {{\"game\":\"standard|blitz\",\"jokers\":\"never|always|sometimes\"}}: {e}")
            })?
        };
        setup.settings()?;
        Ok(setup)
    }

    fn describe(setup: &CubesSetup, seats: usize) -> String {
        let jokers = match setup.jokers.as_str() {
            "always" => ", jokers",
            "sometimes" => ", jokers sometimes",
            _ => "",
        };
        format!("{}, {seats} players{jokers}", setup.game)
    }

    fn check_seats(setup: &CubesSetup, seats: usize) -> Result<(), String> {
        Self::start(setup, seats, 0).map(|_| ())
    }

    fn start(setup: &CubesSetup, seats: usize, seed: u64) -> Result<cubes_engine::State, String> {
        cubes_engine::State::new(setup.settings()?, seats, seed).map_err(|e| e.to_string())
    }

    fn category(setup: &CubesSetup, _seats: usize) -> Option<game_rating::Category> {
        use game_rating::Category;
        if setup.jokers != "never" {
            return Some(Category::CubesJokers);
        }
        match setup.game.as_str() {
            "standard" => Some(Category::CubesStandard),
            "blitz" => Some(Category::CubesBlitz),
            _ => None,
        }
    }

    fn levels() -> Vec<String> {
        cubes_ai::BOT_NAMES.iter().map(|n| n.to_string()).collect()
    }

    fn stand_in() -> &'static str {
        "steady"
    }

    fn bot(level: &str, _seed: u64) -> Result<Box<dyn Bot<Cubes>>, String> {
        if !cubes_ai::BOT_NAMES.contains(&level) {
            return Err(format!(
                "cubes computer players are {}, not {level:?}",
                cubes_ai::BOT_NAMES.join(", ")
            ));
        }
        cubes_ai::by_name(level).ok_or_else(|| format!("no computer player {level:?}"))
    }

    fn bot_name(level: &str, _seat: usize) -> String {
        cubes_ai::by_name(level).map_or_else(|| level.to_string(), |b| b.name().to_string())
    }

    fn read_action(value: &Value) -> Result<cubes_engine::Action, String> {
        serde_json::from_value(value.clone())
            .map_err(|e| format!("a cubes action is \"Roll\", {{\"Keep\":MASK}} or \"Hold\": {e}"))
    }

    fn write_action(action: cubes_engine::Action) -> Value {
        serde_json::to_value(action).unwrap_or(Value::Null)
    }

    fn host_action(_state: &cubes_engine::State) -> Option<cubes_engine::Action> {
        None
    }

    fn score(state: &cubes_engine::State, seats: &[SeatInfo], abandoned: &[bool]) -> Option<Value> {
        let g = cubes_store::GameResult::of(state, seats);
        // A player who abandoned the game has no entry in the score file.
        let players: Vec<Value> = g
            .players
            .iter()
            .filter(|p| !abandoned.get(p.seat).copied().unwrap_or(false))
            .map(|p| serde_json::json!([p.name, p.computer, p.seat, p.score, p.won, p.place]))
            .collect();
        Some(serde_json::json!({
            "kind": g.kind, "jokers": g.jokers, "seed": g.seed, "turns": g.turns,
            "quit": g.quit, "players": players,
        }))
    }

    fn write_score(record: &Value, dir: &Path) -> Result<(), String> {
        #[derive(serde::Deserialize)]
        struct Record {
            kind: String,
            jokers: bool,
            seed: u64,
            turns: u32,
            quit: bool,
            players: Vec<(String, bool, usize, u32, bool, usize)>,
        }
        let r: Record = serde_json::from_value(record.clone()).map_err(|e| e.to_string())?;
        let game = cubes_store::GameResult {
            kind: r.kind,
            jokers: r.jokers,
            seed: r.seed,
            turns: r.turns,
            quit: r.quit,
            players: r
                .players
                .into_iter()
                .map(
                    |(name, computer, seat, score, won, place)| cubes_store::PlayerResult {
                        name,
                        computer,
                        seat,
                        score,
                        won,
                        place,
                    },
                )
                .collect(),
        };
        let mut file =
            cubes_store::ScoreFile::open(&dir.join(CUBES_SCORES)).map_err(|e| e.to_string())?;
        file.record(&game).map_err(|e| e.to_string())
    }

    fn results(state: &cubes_engine::State) -> Vec<SeatResult> {
        let winner = state.winner();
        state
            .players()
            .iter()
            .enumerate()
            .map(|(k, p)| SeatResult {
                score: i64::from(p.score),
                won: winner == Some(k),
                side: k,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_makes_a_bot_and_nonsense_does_not() {
        for level in Mille::levels() {
            assert!(Mille::bot(&level, 1).is_ok(), "{level}");
        }
        for level in Cubes::levels() {
            assert!(Cubes::bot(&level, 1).is_ok(), "{level}");
        }
        assert!(Mille::bot("godlike", 1).is_err());
        assert!(Cubes::bot("Steady Sam", 1).is_err());
    }

    #[test]
    fn actions_go_through_their_wire_form_unchanged() {
        for a in MilleAction::every(3) {
            assert_eq!(Mille::read_action(&Mille::write_action(a)), Ok(a));
        }
        let state = cubes_engine::State::new(Settings::standard(), 2, 1).expect("state");
        for &a in state.legal_actions().as_slice() {
            assert_eq!(Cubes::read_action(&Cubes::write_action(a)), Ok(a));
        }
        assert!(Mille::read_action(&Value::from(3)).is_err());
        assert!(Cubes::read_action(&Value::from("jump")).is_err());
    }

    #[test]
    fn the_examples_in_a_refusal_are_actions_the_server_reads() {
        let why = Mille::read_action(&Value::from(3)).unwrap_err();
        let quoted: Vec<&str> = why.split('"').skip(1).step_by(2).collect();
        assert_eq!(quoted.len(), 2, "{why}");
        for example in quoted {
            assert!(
                Mille::read_action(&Value::from(example)).is_ok(),
                "{example:?} in {why:?}"
            );
        }
    }

    #[test]
    fn a_setup_with_an_unknown_field_is_refused_and_named() {
        let mille = serde_json::json!({"rules":"classic","players":4,"speed":"fast"});
        let e = Mille::setup(&mille).unwrap_err();
        assert!(e.contains("speed"), "{e}");
        let cubes = serde_json::json!({"game":"blitz","dice":6});
        let e = Cubes::setup(&cubes).unwrap_err();
        assert!(e.contains("dice"), "{e}");
    }

    #[test]
    fn a_finished_mille_game_enters_the_high_score_table_under_its_sides_names() {
        let dir = tempfile::tempdir().expect("dir");
        let config = GameConfig {
            rules: RulesetId::Classic,
            players: 4,
            stacking: false,
        };
        let mut state = Mille::start(&config, 4, 11).expect("state");
        let mut legal = mille_engine::ActionList::default();
        let mut step = 0usize;
        while state.phase() != mille_engine::Phase::GameOver {
            step += 1;
            assert!(step < 100_000, "the game ends");
            let action = match Mille::host_action(&state) {
                Some(a) => a,
                None => {
                    state.legal_actions(&mut legal);
                    let list = legal.as_slice();
                    // Distance first, so that hands end by trips and the
                    // game reaches its goal soon.
                    list.iter()
                        .copied()
                        .find(|a| matches!(a, MilleAction::Play { card, .. } if card.miles() > 0))
                        .unwrap_or(list[step % list.len()])
                }
            };
            state.apply(action).expect("legal");
        }
        let seats: Vec<SeatInfo> = ["ann", "BSD", "bob", "Ace"]
            .iter()
            .map(|n| SeatInfo::human(*n))
            .collect();
        let record = Mille::score(&state, &seats, &[]).expect("a record");
        Mille::write_score(&record, dir.path()).expect("recorded");
        let high = mille_store::ScoreDb::open(dir.path())
            .expect("open")
            .high_scores()
            .expect("read");
        let text = high.to_text();
        let winner = if state.winners().contains(&0) {
            "ann & bob"
        } else {
            "BSD & Ace"
        };
        assert!(text.contains(winner), "{text}");
        assert!(text.contains("classic"), "{text}");
    }

    #[test]
    fn scores_now_are_the_totals_so_far_and_nobody_has_won() {
        let config = GameConfig::default();
        let mut state = Mille::start(&config, 2, 5).expect("state");
        let mut legal = mille_engine::ActionList::default();
        // Play hands until the first has been scored, not the game.
        while state.hand_number() == 0 || Mille::turn(&state) == Turn::Host {
            let action = match Mille::host_action(&state) {
                Some(a) => a,
                None => {
                    state.legal_actions(&mut legal);
                    legal.as_slice()[0]
                }
            };
            state.apply(action).expect("legal");
        }
        assert_ne!(state.phase(), mille_engine::Phase::GameOver);
        let now = Mille::scores_now(&state);
        assert_eq!(now.len(), 2);
        assert!(now.iter().all(|r| !r.won), "{now:?}");
        let totals: Vec<i64> = state.totals().iter().map(|&t| i64::from(t)).collect();
        assert_eq!(now.iter().map(|r| r.score).collect::<Vec<_>>(), totals);
        assert!(
            totals.iter().any(|&t| t > 0),
            "a hand was scored: {totals:?}"
        );
        let mut dice = cubes_engine::State::new(Settings::standard(), 2, 3).expect("state");
        dice.apply(cubes_engine::Action::Roll).expect("a roll");
        let now = Cubes::scores_now(&dice);
        assert_eq!(now.len(), 2);
        assert!(now.iter().all(|r| !r.won && r.score == 0), "{now:?}");
    }

    #[test]
    fn setups_are_read_or_refused_with_a_reason() {
        assert_eq!(Mille::setup(&Value::Null), Ok(GameConfig::default()));
        let four: Value = serde_json::json!({"rules":"classic","players":4});
        let config = Mille::setup(&four).expect("classic 4");
        assert!(Mille::check_seats(&config, 4).is_ok());
        assert!(Mille::check_seats(&config, 3).is_err());
        let bsd4 = Mille::setup(&serde_json::json!({"rules":"bsd","players":4})).expect("reads");
        assert!(Mille::check_seats(&bsd4, 4).is_err());
        assert!(Cubes::setup(&serde_json::json!({"game":"blitz"})).is_ok());
        let e = Cubes::setup(&serde_json::json!({"game":"marathon"})).unwrap_err();
        assert!(e.contains("marathon"), "{e}");
        assert!(Cubes::check_seats(&Cubes::setup(&Value::Null).expect("default"), 0).is_err());
    }
}
