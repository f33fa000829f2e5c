//! Snapshot tests of the screens, drawn on ratatui's `TestBackend`.

use mille_ai::Level;
use mille_engine::{Action, Card, GameConfig, GameRecord, Phase, RulesetId, Scenario, State};
use mille_store::Options;
use mille_tui::model::{Mode, Settings, Window};
use mille_tui::{Event, Model, plain, render, update};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn settings() -> Settings {
    Settings {
        level: Level::Classic,
        player: "Tester".into(),
        save_path: None,
        options: Options::default(),
        ask_name: false,
    }
}

fn model(state: State) -> Model {
    let config = state.rules().config;
    Model::new(GameRecord::new(config, 0), state, settings())
}

fn screen(m: &mut Model, w: u16, h: u16) -> String {
    m.screen = (w, h);
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test backend");
    t.draw(|f| render::view(m, f)).expect("draw");
    format!("{}", t.backend())
}

fn key(m: &mut Model, c: char) {
    update(
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
            seat: 0,
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
    m.log = vec![
        "Computer played the safety Driving Ace".into(),
        "Computer discarded 75".into(),
    ];
    key(&mut m, 'u');
    key(&mut m, '6');
    update(
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
    let mut state = State::new(config, 3).expect("config");
    // Let the table play a few moves so there is something to see.
    let mut record = GameRecord::new(config, 3);
    for _ in 0..12 {
        let Some(a) = mille_tui::app::think(&state, &record, Level::Random) else {
            break;
        };
        let a = if state.to_act() == mille_engine::ToAct::Seat(0) && a != Action::Draw {
            break;
        } else {
            a
        };
        state.apply(a).expect("legal");
        record.actions.push(a);
    }
    let mut m = Model::new(record, state, settings());
    insta::assert_snapshot!(screen(&mut m, 100, 30));
    insta::assert_snapshot!("six_players_plain", plain::board_text(&m));
}

#[test]
fn a_terminal_too_small() {
    let mut m = model(State::new(GameConfig::default(), 5).expect("config"));
    insta::assert_snapshot!(screen(&mut m, 50, 10));
}
