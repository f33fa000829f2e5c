//! Snapshot tests of the screens, drawn on ratatui's `TestBackend`.

use mille_ai::{Level, make_bot};
use mille_engine::{Action, Card, GameConfig, GameRecord, Phase, RulesetId, Scenario, State};
use mille_store::Options;
use mille_tui::host::{Host, bot_seed};
use mille_tui::model::{Mode, Setup, Window};
use mille_tui::{Effect, Event, Model, plain, render, update};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Seat `n` (of the largest table, so of any table these tests set).
fn seat(n: u8) -> mille_engine::Seat {
    let rules = mille_engine::Rules::new(GameConfig {
        rules: mille_engine::RulesetId::Classic,
        players: 6,
        stacking: false,
    })
    .expect("6 players");
    rules.seat(n).expect("a seat of 6")
}

fn settings() -> Setup {
    Setup {
        level: Level::Classic,
        player: "Tester".into(),
        save_path: None,
        options: Options::default(),
        ask_name: false,
    }
}

/// The screen's model and the host of its table; it derefs to the model.
struct Game {
    m: Model,
    host: Host,
}

impl std::ops::Deref for Game {
    type Target = Model;
    fn deref(&self) -> &Model {
        &self.m
    }
}

impl std::ops::DerefMut for Game {
    fn deref_mut(&mut self) -> &mut Model {
        &mut self.m
    }
}

fn game(mut host: Host) -> Game {
    let m = Model::new(host.observe(), settings()).expect("rules");
    Game { m, host }
}

fn model(state: State) -> Game {
    game(Host::at(state, 0, Level::Classic))
}

fn screen(m: &mut Model, w: u16, h: u16) -> String {
    m.screen = (w, h);
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    t.draw(|f| render::draw(m, f)).expect("draw");
    format!("{}", t.backend())
}

/// Handles `ev`, with the moves and deals it causes carried out by the
/// table (the computer's turns are not played).
fn send(m: &mut Game, ev: Event) {
    let mut queue = std::collections::VecDeque::from(update(&mut m.m, ev));
    while let Some(e) = queue.pop_front() {
        if e.for_table()
            && !matches!(e, Effect::Think { .. })
            && let Some(ev) = m.host.carry_out(&e, m.m.generation)
        {
            queue.extend(update(&mut m.m, ev));
        }
    }
}

fn key(m: &mut Game, c: char) {
    send(
        m,
        Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
    );
}

fn mid_hand() -> State {
    Scenario::new(GameConfig::default())
        .expect("config")
        .hand(
            0,
            &[
                Card::D25,
                Card::Stop,
                Card::D50,
                Card::ExtraTank,
                Card::D100,
                Card::Gasoline,
                Card::D200,
            ],
        )
        .hand(
            1,
            &[
                Card::Go,
                Card::D25,
                Card::D50,
                Card::D75,
                Card::D100,
                Card::Gasoline,
            ],
        )
        .battle(0, &[Card::Go])
        .speed(0, &[Card::SpeedLimit])
        .distance(0, &[Card::D25, Card::D50, Card::D50, Card::D200])
        .safeties(0, &[Card::RightOfWay], true)
        .battle(1, &[Card::Go, Card::Stop])
        .distance(1, &[Card::D100, Card::D100])
        .safeties(1, &[Card::DrivingAce], false)
        .deck(&[Card::D25; 40])
        .discards(&[Card::D75, Card::Accident])
        .totals(&[1200, 950])
        .phase(Phase::Turn {
            seat: seat(0),
            drawn: true,
        })
        .build()
}

#[test]
fn start_of_a_game() {
    let mut m = model(State::new(GameConfig::default(), 5).expect("config"));
    insta::assert_snapshot!(screen(&mut m, 80, 24));
}

#[test]
fn mid_hand_with_a_coup_fourre_and_an_error() {
    let mut m = model(mid_hand());
    m.log.lines = vec![
        "Computer played the safety Driving Ace".into(),
        "Computer discarded 75".into(),
    ];
    key(&mut m, 'u');
    key(&mut m, '6');
    send(
        &mut m,
        Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    assert!(m.message_is_error);
    insta::assert_snapshot!(screen(&mut m, 80, 24));
}

#[test]
fn mid_hand_sorted_with_the_score_window() {
    let mut m = model(mid_hand());
    m.sorted = true;
    m.window = Window::Scores;
    m.selected = Some(2);
    insta::assert_snapshot!(screen(&mut m, 100, 30));
}

#[test]
fn end_of_hand_window() {
    let state = Scenario::new(GameConfig::default())
        .expect("config")
        .hand(
            0,
            &[
                Card::D25,
                Card::D50,
                Card::D75,
                Card::D100,
                Card::Go,
                Card::Go,
            ],
        )
        .hand(
            1,
            &[
                Card::Go,
                Card::D25,
                Card::D50,
                Card::D75,
                Card::D100,
                Card::Gasoline,
            ],
        )
        .battle(0, &[Card::Go])
        .distance(
            0,
            &[Card::D200, Card::D200, Card::D100, Card::D100, Card::D75],
        )
        .safeties(0, &[Card::ExtraTank], true)
        .deck(&[
            Card::D25,
            Card::D25,
            Card::D25,
            Card::D50,
            Card::Repairs,
            Card::D200,
        ])
        .build();
    let mut m = model(state);
    key(&mut m, 'p');
    key(&mut m, 'u');
    key(&mut m, '1');
    key(&mut m, ' ');
    assert_eq!(m.mode, Mode::Extension);
    let ext = screen(&mut m, 80, 24);
    insta::assert_snapshot!("extension_question", ext);
    key(&mut m, 'n');
    assert_eq!(m.mode, Mode::Another);
    insta::assert_snapshot!(screen(&mut m, 80, 24));
    insta::assert_snapshot!("end_of_hand_plain", plain::board_text(&m));
}

#[test]
fn help_screen() {
    let mut m = model(State::new(GameConfig::default(), 5).expect("config"));
    key(&mut m, '?');
    insta::assert_snapshot!(screen(&mut m, 80, 24));
}

#[test]
fn save_prompt() {
    let mut m = model(State::new(GameConfig::default(), 5).expect("config"));
    key(&mut m, 'p');
    for c in "sgame.mille".chars() {
        key(&mut m, c);
    }
    insta::assert_snapshot!(screen(&mut m, 80, 24));
}

#[test]
fn six_players_in_three_teams() {
    let config = GameConfig {
        rules: RulesetId::Classic,
        players: 6,
        stacking: false,
    };
    // Let the table play a few moves so there is something to see: the
    // player's seat only draws.
    let mut host = Host::new(&GameRecord::new(config, 3), Level::Random).expect("a game");
    for _ in 0..12 {
        if host.state().to_act() == mille_engine::ToAct::Seat(seat(0)) {
            let seq = host.record().actions.len() as u64;
            let mut me = make_bot(Level::Random, bot_seed(3, seq));
            let a = me.decide(&host.observe()).expect("a move");
            if a != Action::Draw {
                break;
            }
            host.act(a);
        } else if host.step().is_none() {
            break;
        }
    }
    let mut m = game(host);
    insta::assert_snapshot!(screen(&mut m, 100, 30));
    insta::assert_snapshot!("six_players_plain", plain::board_text(&m));
}

#[test]
fn a_terminal_too_small() {
    let mut m = model(State::new(GameConfig::default(), 5).expect("config"));
    insta::assert_snapshot!(screen(&mut m, 50, 10));
}

/// The rows of a `screen` drawing, without the quotes of the backend's
/// debug format.
fn rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(|l| l.trim_matches('"').to_string())
        .collect()
}

/// A crowded 80x24 board: four safeties (coups fourrés), a long mileage
/// list and a refusal longer than the screen is wide. Nothing may be cut
/// off: the safeties are shortened, the mileage compacted, the message
/// wrapped onto two lines.
#[test]
fn a_crowded_board_at_80_columns() {
    let state = Scenario::new(GameConfig::default())
        .expect("config")
        .hand(
            0,
            &[
                Card::D100,
                Card::Stop,
                Card::D50,
                Card::Go,
                Card::D25,
                Card::Gasoline,
                Card::D200,
            ],
        )
        .hand(
            1,
            &[
                Card::Go,
                Card::D25,
                Card::D50,
                Card::D75,
                Card::D100,
                Card::Gasoline,
            ],
        )
        .battle(0, &[Card::Go, Card::Stop])
        .speed(0, &[Card::SpeedLimit])
        .distance(
            0,
            &[
                Card::D25,
                Card::D25,
                Card::D50,
                Card::D75,
                Card::D75,
                Card::D100,
                Card::D100,
                Card::D200,
            ],
        )
        .safeties(
            0,
            &[
                Card::ExtraTank,
                Card::PunctureProof,
                Card::DrivingAce,
                Card::RightOfWay,
            ],
            true,
        )
        .battle(1, &[Card::Go])
        .deck(&[Card::D25; 20])
        .phase(Phase::Turn {
            seat: seat(0),
            drawn: true,
        })
        .build();
    let mut m = model(state);
    for c in ['u', 'p', ' '] {
        key(&mut m, c);
    }
    let msg = m.message.clone().expect("a refusal");
    assert!(
        msg.chars().count() > 80,
        "the test needs a long message: {msg}"
    );
    let s = screen(&mut m, 80, 24);
    let text = rows(&s).join("\n");
    assert!(
        text.contains("*Tank*, *Proof*, *Ace*, *Right of Way*"),
        "{s}"
    );
    assert!(text.contains("(25x2 50 75x2 100x2 200)"), "{s}");
    // The message's last words are on the screen (on the last line).
    let last_word = msg.split_whitespace().last().expect("words");
    let bottom = rows(&s);
    assert!(bottom[bottom.len() - 1].contains(last_word), "{s}");
    insta::assert_snapshot!(s);
}

/// Six players at 80x24: battle and speed share a line and must both be
/// readable, even with hazards a safety cancelled.
#[test]
fn six_players_at_80_columns() {
    let config = GameConfig {
        rules: RulesetId::Classic,
        players: 6,
        stacking: false,
    };
    let state = Scenario::new(config)
        .expect("config")
        .battle(1, &[Card::Go, Card::Stop])
        .speed(1, &[Card::SpeedLimit])
        .safeties(1, &[Card::RightOfWay], false)
        .battle(2, &[Card::Go, Card::OutOfGas])
        .safeties(2, &[Card::ExtraTank], true)
        .speed(2, &[Card::SpeedLimit, Card::EndOfLimit])
        .battle(0, &[Card::Go])
        .speed(0, &[Card::SpeedLimit, Card::EndOfLimit])
        .build();
    let mut m = model(state);
    let s = screen(&mut m, 80, 24);
    let text = rows(&s).join("\n");
    assert!(text.contains("Stop (off)  Speed: Speed Limit (off)"), "{s}");
    assert!(
        text.contains("Out of Gas (off)  Speed: End of Limit"),
        "{s}"
    );
    assert!(text.contains("Go               Speed: End of Limit"), "{s}");
    assert!(text.contains("Team 2: Computer 1 + Computer 4"), "{s}");
    insta::assert_snapshot!(s);
}

/// The status line fits the narrowest screen the game plays on and the
/// usual one, whatever the rules, the level and the options, and never
/// cuts a setting off (the sorting lost its value at the end of the line).
#[test]
fn the_status_line_never_cuts_a_setting() {
    for rules in [RulesetId::Bsd, RulesetId::Classic, RulesetId::Milebones] {
        for stacking in [false, true] {
            for level in Level::ALL {
                for sorted in [false, true] {
                    let config = GameConfig {
                        rules,
                        players: 2,
                        stacking,
                    };
                    let Ok(state) = State::new(config, 1) else {
                        continue;
                    };
                    let mut g = model(state);
                    g.level = level;
                    g.sorted = sorted;
                    let sort = if sorted { "sort on" } else { "sort off" };
                    for width in [render::MIN_W, 80] {
                        let line = render::status_text(&g, width);
                        assert!(
                            line.chars().count() <= usize::from(width),
                            "{width}: {line:?}"
                        );
                        assert!(line.contains(sort), "{width}: {line:?}");
                        assert!(line.ends_with("click"), "{width}: {line:?}");
                    }
                }
            }
        }
    }
}
