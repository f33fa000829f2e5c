//! Key and mouse handling without a terminal: events in, model and effects
//! out.

use game_table::{Bot, BotError};
use mille_ai::{Level, make_bot};
use mille_engine::{
    Action, Card, GameConfig, GameRecord, Mille, Observation, Phase, Scenario, State, ToAct,
};
use mille_store::{MouseMethod, Options, SaveFile};
use mille_tui::host::Host;
use mille_tui::model::{AfterSave, Mode, Setup, Window};
use mille_tui::render::{Hit, Hits};
use mille_tui::{Effect, Event, Model, update};
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};

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

/// The screen's model and the host of its table: what the terminal's
/// event loop holds, without the terminal. It derefs to the model.
struct Game {
    m: Model,
    host: Host,
}

impl Deref for Game {
    type Target = Model;
    fn deref(&self) -> &Model {
        &self.m
    }
}

impl DerefMut for Game {
    fn deref_mut(&mut self) -> &mut Model {
        &mut self.m
    }
}

impl Game {
    /// Handles `ev`, carrying out the moves, deals and undos it causes
    /// with the table (not the computer's turns: see [`type_keys`]);
    /// returns every effect.
    fn update(&mut self, ev: Event) -> Vec<Effect> {
        let mut all = Vec::new();
        let mut queue = std::collections::VecDeque::from(update(&mut self.m, ev));
        while let Some(e) = queue.pop_front() {
            all.push(e.clone());
            if e.for_table()
                && !matches!(e, Effect::Think { .. })
                && let Some(ev) = self.host.carry_out(&e, self.m.generation)
            {
                queue.extend(update(&mut self.m, ev));
            }
        }
        all
    }

    /// The computer's turns asked among `fx`, played until the player's.
    fn run_computer(&mut self, fx: &[Effect], all: &mut Vec<Effect>) {
        let mut think = fx
            .iter()
            .rev()
            .find(|e| matches!(e, Effect::Think { .. }))
            .cloned();
        while let Some(e) = think {
            let Some(ev) = self.host.carry_out(&e, self.m.generation) else {
                break;
            };
            let fx = self.update(ev);
            all.extend(fx.clone());
            think = fx
                .into_iter()
                .rev()
                .find(|e| matches!(e, Effect::Think { .. }));
        }
    }

    /// The game's truth, for the checks of a test.
    fn state(&self) -> &State {
        self.host.state()
    }

    /// The game record.
    fn record(&self) -> GameRecord {
        self.host.record()
    }
}

/// The game `host` holds, on a screen with `s`.
fn game_with(mut host: Host, s: Setup) -> Game {
    let m = Model::new(host.observe(), s).expect("rules");
    Game { m, host }
}

/// A game at `state` whose computers are seeded from `seed`.
fn at(state: State, seed: u64, s: Setup) -> Game {
    game_with(Host::at(state, seed, Level::Classic), s)
}

/// A new bsd game where seat 0 (the player) starts.
fn new_game(seed: u64) -> Game {
    let config = GameConfig::default();
    let state = State::new(config, seed).expect("config");
    at(state, seed, settings())
}

/// A game around a hand-built position.
fn scenario(state: State) -> Game {
    at(state, 0, settings())
}

fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

fn code(c: KeyCode) -> Event {
    Event::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

/// A computer player that makes one given move.
struct Plays(Action);

impl Bot<Mille> for Plays {
    fn name(&self) -> &str {
        "scripted"
    }
    fn decide(&mut self, _: &Observation) -> Result<Action, BotError> {
        Ok(self.0)
    }
}

/// Types keys, letting the computer answer at once; returns every effect.
fn type_keys(m: &mut Game, keys: &str) -> Vec<Effect> {
    let mut all = Vec::new();
    for c in keys.chars() {
        let ev = match c {
            '\n' => code(KeyCode::Enter),
            _ => key(c),
        };
        let fx = m.update(ev);
        all.extend(fx.clone());
        m.run_computer(&fx, &mut all);
    }
    all
}

#[test]
fn p_picks_into_the_p_slot() {
    let mut m = new_game(5);
    assert_eq!(m.slots()[0], None);
    type_keys(&mut m, "p");
    assert_eq!(m.state().hand(seat(0)).len(), 7);
    assert!(m.slots()[0].is_some());
    assert_eq!(m.record().actions, vec![Action::Draw]);
}

#[test]
fn a_refused_move_shows_the_engines_reason_and_rings() {
    let mut m = new_game(5);
    let fx = type_keys(&mut m, "u1\n");
    assert!(fx.contains(&Effect::Bell));
    assert_eq!(
        m.message.as_deref(),
        Some("Draw a card first: every turn starts with a pick from the deck")
    );
    assert!(m.message_is_error);
    assert_eq!(m.record().actions.len(), 0);
}

#[test]
fn d_needs_return_or_space_and_return_alone_cancels() {
    let mut m = new_game(5);
    type_keys(&mut m, "p");
    let p_card = m.slots()[0].expect("picked");
    type_keys(&mut m, "dp");
    assert_eq!(
        m.mode,
        Mode::PickCard {
            verb: mille_tui::model::Verb::Discard,
            slot: Some(0)
        }
    );
    assert_eq!(m.record().actions.len(), 1, "nothing happens before RETURN");
    // A typo can be corrected: backspace, then another slot.
    m.update(code(KeyCode::Backspace));
    type_keys(&mut m, "\n");
    assert_eq!(m.mode, Mode::Normal, "RETURN alone cancels");
    assert_eq!(m.record().actions.len(), 1);
    type_keys(&mut m, "dp ");
    if p_card.kind() == mille_engine::Kind::Safety {
        assert!(m.message_is_error);
    } else {
        assert_eq!(m.record().actions[1], Action::Discard(p_card));
        assert_eq!(m.state().discards().first(), Some(&p_card));
    }
}

#[test]
fn a_bad_card_number_rings() {
    let mut m = new_game(5);
    type_keys(&mut m, "p");
    let fx = type_keys(&mut m, "u9");
    assert!(fx.contains(&Effect::Bell));
    assert!(
        m.message
            .as_deref()
            .is_some_and(|s| s.contains("not a card"))
    );
}

#[test]
fn unknown_commands_ring() {
    let mut m = new_game(5);
    let fx = type_keys(&mut m, "x");
    assert!(fx.contains(&Effect::Bell));
}

#[test]
fn playing_a_go_and_the_computer_answers() {
    let state = Scenario::new(GameConfig::default())
        .expect("config")
        .hand(
            0,
            &[
                Card::Go,
                Card::D25,
                Card::D50,
                Card::D75,
                Card::D100,
                Card::Stop,
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
        .deck(&[
            Card::D25,
            Card::D25,
            Card::D25,
            Card::D50,
            Card::Repairs,
            Card::D200,
        ])
        .build();
    let mut m = scenario(state);
    type_keys(&mut m, "p");
    // The drawn card (200) is in P; the Go in slot 1.
    assert_eq!(m.slots()[0], Some(Card::D200));
    assert_eq!(m.slots()[1], Some(Card::Go));
    type_keys(&mut m, "u1\n");
    assert_eq!(m.state().tableau(0).battle.top(), Some(Card::Go));
    // As in BSD, the picked card moves into the played card's slot.
    assert_eq!(m.slots()[1], Some(Card::D200));
    assert_eq!(m.slots()[0], None);
    assert!(
        m.human_to_act(),
        "the computer played and it is our turn again"
    );
    assert!(!m.log.lines.is_empty(), "the computer's move is shown");
}

#[test]
fn o_sorts_the_hand_and_persists_the_option() {
    let mut m = new_game(9);
    let fx = type_keys(&mut m, "o");
    assert!(m.sorted);
    assert!(matches!(fx.as_slice(), [Effect::SaveOptions(o)] if o.auto_sort));
    let slots: Vec<Card> = m.slots()[1..].iter().flatten().copied().collect();
    let mut sorted = slots.clone();
    sorted.sort();
    assert_eq!(slots, sorted);
}

#[test]
fn w_toggles_the_window_and_r_redraws() {
    let mut m = new_game(9);
    let fx = type_keys(&mut m, "w");
    assert_eq!(m.window, Window::Scores);
    // Remembered like the other options, so the next game opens with it.
    assert!(matches!(fx.as_slice(), [Effect::SaveOptions(o)] if o.bonus_window));
    let fx = type_keys(&mut m, "w");
    assert_eq!(m.window, Window::Commands);
    assert!(matches!(fx.as_slice(), [Effect::SaveOptions(o)] if !o.bonus_window));
    assert_eq!(type_keys(&mut m, "r"), vec![Effect::Redraw]);
    let ctrl_l = Event::Key(KeyEvent::new(KeyCode::Char('l'), KeyModifiers::CONTROL));
    assert_eq!(m.update(ctrl_l), vec![Effect::Redraw]);
}

#[test]
fn a_remembered_window_choice_opens_the_next_game() {
    let config = GameConfig::default();
    let mut s = settings();
    s.options.bonus_window = true;
    let m = at(State::new(config, 9).expect("config"), 9, s);
    assert_eq!(m.window, Window::Scores);
    assert_eq!(new_game(9).window, Window::Commands);
}

#[test]
fn q_asks_first_and_delete_is_the_same() {
    let mut m = new_game(9);
    type_keys(&mut m, "q");
    assert_eq!(m.mode, Mode::ConfirmQuit);
    type_keys(&mut m, "n");
    assert_eq!(m.mode, Mode::Normal);
    m.update(code(KeyCode::Delete));
    assert_eq!(m.mode, Mode::ConfirmQuit);
    // Nothing played yet: quitting does not ask to save.
    let fx = type_keys(&mut m, "y");
    assert!(fx.contains(&Effect::Quit));
}

#[test]
fn quitting_a_game_in_progress_offers_to_save() {
    let mut m = new_game(9);
    type_keys(&mut m, "p");
    type_keys(&mut m, "qy");
    assert_eq!(
        m.mode,
        Mode::SaveOnExit {
            then: AfterSave::QuitElseResume
        }
    );
    let fx = type_keys(&mut m, "n");
    assert!(fx.contains(&Effect::Quit));
}

#[test]
fn s_asks_a_name_and_return_alone_cancels() {
    let mut m = new_game(9);
    type_keys(&mut m, "p");
    type_keys(&mut m, "s");
    assert!(matches!(m.mode, Mode::SaveName { .. }));
    let fx = type_keys(&mut m, "\n");
    assert!(fx.is_empty());
    assert_eq!(m.mode, Mode::Normal);
    assert_eq!(m.message.as_deref(), Some("Save cancelled."));
    let fx = type_keys(&mut m, "sgame.mille\n");
    let Some(Effect::Save { path, settings }) = fx.first() else {
        panic!("expected a save, got {fx:?}");
    };
    assert_eq!(path, &PathBuf::from("game.mille"));
    // What is written is the table's record with these settings.
    let file = m.host.save_file(settings.clone());
    assert_eq!(file.record.actions, vec![Action::Draw]);
    assert_eq!(file.record, m.record());
    assert_eq!(file.settings.level, "classic");
    m.update(Event::Saved(Ok(path.clone())));
    assert_eq!(m.mode, Mode::Normal);
    assert!(!m.dirty);
    // The same file is offered next time.
    type_keys(&mut m, "s");
    assert_eq!(
        m.mode,
        Mode::SaveSame {
            path: PathBuf::from("game.mille"),
            then: AfterSave::Resume
        }
    );
    let fx = type_keys(&mut m, "y");
    assert!(matches!(fx.first(), Some(Effect::Save { .. })));
    let fx = m.update(Event::Saved(Err("disk full".into())));
    assert!(fx.contains(&Effect::Bell));
    assert_eq!(m.message.as_deref(), Some("disk full"));
    assert_eq!(m.mode, Mode::Normal, "a failed save resumes play");
}

fn coup_fourre_position() -> State {
    Scenario::new(GameConfig::default())
        .expect("config")
        .hand(
            0,
            &[
                Card::D25,
                Card::RightOfWay,
                Card::D50,
                Card::D75,
                Card::D100,
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
        .battle(0, &[Card::Go, Card::Stop])
        .deck(&[
            Card::D25,
            Card::D25,
            Card::D25,
            Card::D50,
            Card::Repairs,
            Card::D200,
        ])
        .phase(Phase::CoupFourre {
            seat: seat(0),
            hazard: Card::Stop,
            attacker: seat(1),
        })
        .build()
}

#[test]
fn u_on_the_safety_is_a_coup_fourre() {
    let mut m = scenario(coup_fourre_position());
    assert!(m.prompt().contains("Coup fourré"));
    type_keys(&mut m, "u2\n");
    assert_eq!(
        m.record().actions,
        vec![Action::CoupFourre(Card::RightOfWay)]
    );
    assert!(m.state().tableau(0).coups.len() == 1);
    assert_eq!(m.state().hand(seat(0)).len(), 7, "two cards drawn at once");
}

#[test]
fn p_lets_a_coup_fourre_pass_and_picks() {
    let mut m = scenario(coup_fourre_position());
    type_keys(&mut m, "p");
    assert_eq!(
        m.record().actions,
        vec![Action::DeclineCoupFourre, Action::Draw]
    );
}

#[test]
fn the_extension_question() {
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
        .deck(&[
            Card::D25,
            Card::D25,
            Card::D25,
            Card::D50,
            Card::Repairs,
            Card::D200,
        ])
        .build();
    let mut m = scenario(state);
    type_keys(&mut m, "p");
    type_keys(&mut m, "u1\n");
    assert_eq!(m.mode, Mode::Extension);
    type_keys(&mut m, "n");
    assert!(m.hand_over());
    assert_eq!(m.mode, Mode::Another);
    let s = m.hand_score(0);
    assert_eq!(s.trip, 400);
    assert_eq!(s.shut_out, 500);
    type_keys(&mut m, "y");
    assert!(!m.hand_over());
    assert_eq!(m.state().hand_number(), 1);
    assert!(
        m.human_to_act(),
        "the computer started the new hand and it is our turn"
    );
}

#[test]
fn no_more_hands_offers_to_save_and_a_failed_save_deals_on() {
    let state = Scenario::new(GameConfig::default())
        .expect("config")
        .phase(Phase::HandOver)
        .build();
    let mut m = scenario(state);
    assert_eq!(m.mode, Mode::Another);
    assert!(m.prompt().contains("Another hand?"));
    type_keys(&mut m, "n");
    assert_eq!(
        m.mode,
        Mode::SaveOnExit {
            then: AfterSave::QuitElseDeal
        }
    );
    type_keys(&mut m, "y");
    type_keys(&mut m, "/nonexistent/dir/x\n");
    assert!(matches!(m.mode, Mode::Saving { .. }));
    m.update(Event::Saved(Err("cannot save".into())));
    assert!(!m.hand_over(), "play resumed with another hand");
}

#[test]
fn z_takes_back_the_last_move_and_the_computers_reply() {
    let mut m = new_game(21);
    type_keys(&mut m, "p");
    // Discard something that can be discarded.
    let slot = (0..7)
        .find(|&i| m.slots()[i].is_some_and(|c| c.kind() != mille_engine::Kind::Safety))
        .expect("a discardable card");
    let label = if slot == 0 {
        'p'
    } else {
        char::from(b'0' + slot as u8)
    };
    let before = m.state().hand(seat(0)).to_vec();
    type_keys(&mut m, &format!("d{label}\n"));
    assert!(m.record().actions.len() > 2, "the computer replied");
    type_keys(&mut m, "z");
    assert_eq!(m.record().actions, vec![Action::Draw]);
    assert_eq!(m.state().hand(seat(0)), before.as_slice());
    let fx = type_keys(&mut m, "z");
    assert!(fx.contains(&Effect::Bell), "nothing more to undo");
}

fn click(m: &mut Game, hit: Hit, ms: u64) -> Vec<Effect> {
    let hits = Hits::compute(m, m.screen.0, m.screen.1);
    let r = hits.rect_of(hit).expect("on screen");
    let mut fx = m.update(Event::Mouse(
        MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: r.x + 1,
            row: r.y,
            modifiers: KeyModifiers::NONE,
        },
        ms,
    ));
    fx.extend(m.update(Event::Mouse(
        MouseEvent {
            kind: MouseEventKind::Up(MouseButton::Left),
            column: r.x + 1,
            row: r.y,
            modifiers: KeyModifiers::NONE,
        },
        ms + 10,
    )));
    fx
}

fn mouse_position() -> State {
    Scenario::new(GameConfig::default())
        .expect("config")
        .hand(
            0,
            &[
                Card::Go,
                Card::D25,
                Card::Stop,
                Card::D75,
                Card::D100,
                Card::Gasoline,
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
        .battle(1, &[Card::Go])
        .deck(&[
            Card::D25,
            Card::D25,
            Card::D25,
            Card::D50,
            Card::Repairs,
            Card::D50,
        ])
        .build()
}

#[test]
fn mouse_click_deck_then_card_then_opponent() {
    let mut m = scenario(mouse_position());
    click(&mut m, Hit::Deck, 0);
    assert_eq!(m.record().actions, vec![Action::Draw]);
    click(&mut m, Hit::Slot(3), 1000);
    assert_eq!(m.selected, Some(3));
    click(&mut m, Hit::Team(1), 2000);
    assert_eq!(
        m.record().actions[1],
        Action::Play {
            card: Card::Stop,
            team: 1
        }
    );
}

#[test]
fn mouse_drag_and_drop_to_discard() {
    let mut m = scenario(mouse_position());
    m.options.mouse = MouseMethod::DragAndDrop;
    click(&mut m, Hit::Deck, 0);
    let hits = Hits::compute(&m, m.screen.0, m.screen.1);
    let from = hits.rect_of(Hit::Slot(6)).expect("slot");
    let to = hits.rect_of(Hit::Discard).expect("discard");
    let ev = |kind, r: ratatui::layout::Rect, ms| {
        Event::Mouse(
            MouseEvent {
                kind,
                column: r.x + 2,
                row: r.y,
                modifiers: KeyModifiers::NONE,
            },
            ms,
        )
    };
    m.update(ev(MouseEventKind::Down(MouseButton::Left), from, 1000));
    m.update(ev(MouseEventKind::Drag(MouseButton::Left), to, 1100));
    m.update(ev(MouseEventKind::Up(MouseButton::Left), to, 1200));
    assert_eq!(m.record().actions[1], Action::Discard(Card::Gasoline));
}

#[test]
fn double_click_plays_if_legal_else_discards() {
    let mut m = scenario(mouse_position());
    click(&mut m, Hit::Deck, 0);
    // 25 cannot be played without a Go: double-click discards it.
    click(&mut m, Hit::Slot(2), 1000);
    click(&mut m, Hit::Slot(2), 1200);
    assert_eq!(m.record().actions[1], Action::Discard(Card::D25));
    // Back to us; the Go is legal: double-click plays it.
    let mut fx = Vec::new();
    let generation = m.generation;
    m.run_computer(&[Effect::Think { generation }], &mut fx);
    if m.state().to_act() == ToAct::Seat(seat(0)) {
        click(&mut m, Hit::Deck, 3000);
        let go = (0..7)
            .find(|&i| m.slots()[i] == Some(Card::Go))
            .expect("go");
        click(&mut m, Hit::Slot(go), 4000);
        click(&mut m, Hit::Slot(go), 4100);
        assert_eq!(m.state().tableau(0).battle.top(), Some(Card::Go));
    }
}

#[test]
fn first_run_asks_the_name() {
    let config = GameConfig::default();
    let state = State::new(config, 1).expect("config");
    let mut s = settings();
    s.ask_name = true;
    s.player = "login".into();
    let mut m = at(state, 1, s);
    assert!(m.prompt().contains("(RETURN or ESC keeps login)"));
    let fx = type_keys(&mut m, "Ana\n");
    assert_eq!(m.player, "Ana");
    assert!(matches!(fx.first(), Some(Effect::SaveOptions(o)) if o.name.as_deref() == Some("Ana")));
    assert_eq!(m.mode, Mode::Normal);
}

/// The player's seat played by the classic bot through keys and mouse-free
/// commands, to the end of a game: the UI never gets stuck.
#[test]
fn a_whole_game_through_the_keyboard() {
    let mut m = new_game(77);
    let mut fx_all = Vec::new();
    let fx = mille_tui::update::start(&mut m);
    m.run_computer(&fx, &mut fx_all);
    // The player's moves: the classic bot's, from the player's observation.
    let mut me = make_bot(Level::Classic, 77);
    for _ in 0..20_000 {
        if m.state().phase() == Phase::GameOver {
            break;
        }
        match m.mode {
            Mode::Another => {
                type_keys(&mut m, "y");
                continue;
            }
            Mode::Extension => {
                type_keys(&mut m, "n");
                continue;
            }
            _ => {}
        }
        if !m.human_to_act() {
            break;
        }
        let action = me.decide(&m.obs).expect("a move");
        let keys = match action {
            Action::Draw | Action::DeclineCoupFourre => "p".to_string(),
            Action::Play { card, .. } | Action::CoupFourre(card) => {
                let slot = (0..7)
                    .find(|&i| m.slots()[i] == Some(card))
                    .expect("in hand");
                format!(
                    "u{}\n",
                    if slot == 0 {
                        'p'
                    } else {
                        char::from(b'0' + slot as u8)
                    }
                )
            }
            Action::Discard(card) => {
                let slot = (0..7)
                    .find(|&i| m.slots()[i] == Some(card))
                    .expect("in hand");
                format!(
                    "d{} ",
                    if slot == 0 {
                        'p'
                    } else {
                        char::from(b'0' + slot as u8)
                    }
                )
            }
            other => panic!("unexpected {other}"),
        };
        let n = m.record().actions.len();
        let fx = type_keys(&mut m, &keys);
        fx_all.extend(fx);
        assert!(
            m.record().actions.len() > n,
            "{keys:?} did nothing: {:?}",
            m.message
        );
    }
    assert_eq!(m.state().phase(), Phase::GameOver);
    assert_eq!(m.mode, Mode::Another);
    // Interrupted now, there is nothing left to resume: nothing is kept.
    let dir = tempfile::tempdir().expect("tempdir");
    let io_ = mille_tui::app::Io {
        data_dir: Some(dir.path().to_path_buf()),
    };
    assert_eq!(io_.keep(&m.m, m.host.record()), Ok(None));
    assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), 0);
    assert!(
        fx_all
            .iter()
            .any(|e| matches!(e, Effect::RecordScores { sides, .. } if sides[0].0 == "Tester"))
    );
    assert_eq!(
        m.record().replay().map(|s| s.totals().to_vec()).ok(),
        Some(m.state().totals().to_vec())
    );
    // Another game, a move, and the move taken back: the table is rebuilt
    // and tells the whole record again, but the finished game is recorded
    // once only.
    let mut again = type_keys(&mut m, "y");
    assert_eq!(
        m.state().phase(),
        Phase::Turn {
            seat: seat(0),
            drawn: false
        },
        "{:?}",
        m.message
    );
    again.extend(type_keys(&mut m, "pd1 "));
    let played = m.record().actions.len();
    again.extend(type_keys(&mut m, "z"));
    assert!(m.record().actions.len() < played, "undone: {:?}", m.message);
    assert!(
        !again
            .iter()
            .any(|e| matches!(e, Effect::RecordScores { .. })),
        "{again:?}"
    );
}

#[test]
fn a_hazard_with_two_opponents_asks_which_side() {
    let config = GameConfig {
        rules: mille_engine::RulesetId::Classic,
        players: 3,
        stacking: false,
    };
    let state = Scenario::new(config)
        .expect("config")
        .hand(
            0,
            &[
                Card::Stop,
                Card::D25,
                Card::D50,
                Card::D75,
                Card::D100,
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
        .hand(
            2,
            &[
                Card::Go,
                Card::D25,
                Card::D50,
                Card::D75,
                Card::D100,
                Card::Gasoline,
            ],
        )
        .battle(1, &[Card::Go])
        .battle(2, &[Card::Go])
        .deck(&[Card::D25; 20])
        .build();
    let mut m = at(state, 0, settings());
    type_keys(&mut m, "p");
    type_keys(&mut m, "u1\n");
    assert_eq!(m.mode, Mode::Target { card: Card::Stop });
    // The numbers are the ones in the names, as in the score window (C1,
    // C2).
    assert_eq!(
        m.prompt(),
        "Play Stop on which side? (1 = Computer 1, 2 = Computer 2; ESC cancels)"
    );
    assert!(m.prompt().chars().count() <= 80, "fits 80 columns");
    assert_eq!(m.team_short(1), "C1");
    assert_eq!(m.team_short(2), "C2");
    let fx = type_keys(&mut m, "0");
    assert!(fx.contains(&Effect::Bell), "not on our own side");
    let fx = type_keys(&mut m, "3");
    assert!(fx.contains(&Effect::Bell), "no Computer 3");
    type_keys(&mut m, "2");
    assert_eq!(
        m.record().actions[1],
        Action::Play {
            card: Card::Stop,
            team: 2
        }
    );
}

/// A classic 2-player turn (safeties may be discarded, decision 9) with
/// Extra Tank in slot 4, after the pick.
fn classic_safety_in_hand() -> Game {
    let config = GameConfig {
        rules: mille_engine::RulesetId::Classic,
        players: 2,
        stacking: false,
    };
    let state = Scenario::new(config)
        .expect("config")
        .hand(
            0,
            &[
                Card::D25,
                Card::D50,
                Card::D75,
                Card::ExtraTank,
                Card::D100,
                Card::Gasoline,
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
        .deck(&[Card::D25; 20])
        .build();
    let mut m = at(state, 0, settings());
    type_keys(&mut m, "p");
    assert_eq!(m.slots()[4], Some(Card::ExtraTank));
    m
}

#[test]
fn discarding_a_safety_asks_first() {
    let mut m = classic_safety_in_hand();
    type_keys(&mut m, "d4\n");
    assert_eq!(
        m.mode,
        Mode::ConfirmDiscard {
            card: Card::ExtraTank
        }
    );
    assert!(
        m.prompt()
            .contains("Extra Tank is a safety: really discard it? (y/n)")
    );
    assert_eq!(m.record().actions, vec![Action::Draw], "nothing thrown yet");
    // No keeps the card and goes back to the turn.
    type_keys(&mut m, "n");
    assert_eq!(m.mode, Mode::Normal);
    assert_eq!(m.record().actions, vec![Action::Draw]);
    assert!(m.state().hand(seat(0)).contains(&Card::ExtraTank));
    // ESC keeps it too.
    type_keys(&mut m, "d4\n");
    m.update(code(KeyCode::Esc));
    assert_eq!(m.record().actions, vec![Action::Draw]);
    // Yes throws it away.
    type_keys(&mut m, "d4 y");
    assert_eq!(m.record().actions[1], Action::Discard(Card::ExtraTank));
}

#[test]
fn dropping_a_safety_on_the_discard_pile_asks_first() {
    let mut m = classic_safety_in_hand();
    click(&mut m, Hit::Slot(4), 1000);
    click(&mut m, Hit::Discard, 2000);
    assert_eq!(
        m.mode,
        Mode::ConfirmDiscard {
            card: Card::ExtraTank
        }
    );
    assert_eq!(m.record().actions, vec![Action::Draw]);
    type_keys(&mut m, "y");
    assert_eq!(m.record().actions[1], Action::Discard(Card::ExtraTank));
}

#[test]
fn discarding_an_ordinary_card_does_not_ask() {
    let mut m = classic_safety_in_hand();
    type_keys(&mut m, "d1\n");
    assert_eq!(m.record().actions[1], Action::Discard(Card::D25));
}

#[test]
fn plain_mode_asks_before_a_safety_is_thrown() {
    let mut m = classic_safety_in_hand();
    let mut out = Vec::new();
    mille_tui::plain::run(
        &mut m.m,
        &mut m.host,
        &mille_tui::app::Io::default(),
        "d4\nn\nd4\ny\n".as_bytes(),
        &mut out,
        &mille_tui::signals::Stop::never(),
    )
    .expect("plain run");
    let text = String::from_utf8_lossy(&out);
    assert!(
        text.contains("Extra Tank is a safety: really discard it? (y/n)"),
        "{text}"
    );
    assert!(text.contains("You kept the Extra Tank."), "{text}");
    assert_eq!(m.record().actions[1], Action::Discard(Card::ExtraTank));
}

fn first_run(default: &str) -> Game {
    let config = GameConfig::default();
    let state = State::new(config, 1).expect("config");
    let mut s = settings();
    s.ask_name = true;
    s.player = default.into();
    at(state, 1, s)
}

#[test]
fn escape_leaves_the_name_question_with_the_login_name() {
    let mut m = first_run("login");
    type_keys(&mut m, "An");
    let fx = m.update(code(KeyCode::Esc));
    assert_eq!(m.player, "login");
    assert!(
        matches!(fx.first(), Some(Effect::SaveOptions(o)) if o.name.as_deref() == Some("login"))
    );
    assert_eq!(m.mode, Mode::Normal);
    assert!(m.prompt().starts_with("Your turn"));
}

#[test]
fn ctrl_c_at_the_name_question_leaves_at_once_with_the_login_name() {
    let mut m = first_run("login");
    let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    let fx = m.update(ctrl_c);
    assert_eq!(m.player, "login");
    // The name is kept first, then the game leaves (kept in the autosave
    // by the loop), without a question.
    assert!(
        matches!(fx.as_slice(), [Effect::SaveOptions(o), Effect::Interrupted] if o.name.as_deref() == Some("login")),
        "{fx:?}"
    );
    // q in the name question is a letter of a name, nothing else.
    let mut m = first_run("login");
    type_keys(&mut m, "q");
    assert_eq!(m.mode, Mode::Name { buf: "q".into() });
}

#[test]
fn keys_typed_while_the_computer_plays_say_wait_by_name() {
    let mut m = scenario(mouse_position());
    for e in [key('p'), key('d'), key('p')] {
        m.update(e);
    }
    let fx = m.update(code(KeyCode::Enter));
    let generation = m.generation;
    assert!(fx.contains(&Effect::Think { generation }));
    for c in ['p', 'u', 'd'] {
        let fx = m.update(key(c));
        assert!(!fx.contains(&Effect::Bell), "not a mistake: no bell");
        assert_eq!(m.message.as_deref(), Some("Wait: Computer is playing."));
        assert_eq!(m.mode, Mode::Normal);
    }
    // The computer plays: it is our turn and the notice is gone.
    let mut all = Vec::new();
    m.run_computer(&[Effect::Think { generation }], &mut all);
    assert!(m.human_to_act());
    assert_eq!(m.message, None);
}

#[test]
fn with_three_teams_the_team_numbers_of_the_board_choose() {
    let config = GameConfig {
        rules: mille_engine::RulesetId::Classic,
        players: 6,
        stacking: false,
    };
    let mut hand = [Card::D25; 6];
    hand[0] = Card::Stop;
    let state = Scenario::new(config)
        .expect("config")
        .hand(0, &hand)
        .battle(1, &[Card::Go])
        .battle(2, &[Card::Go])
        .deck(&[Card::D25; 30])
        .build();
    let mut m = at(state, 0, settings());
    type_keys(&mut m, "p");
    type_keys(&mut m, "u1\n");
    assert_eq!(m.mode, Mode::Target { card: Card::Stop });
    assert_eq!(m.prompt(), "Play Stop on which team? (2 or 3; ESC cancels)");
    assert_eq!(m.team_short(1), "T2");
    let fx = type_keys(&mut m, "1");
    assert!(fx.contains(&Effect::Bell), "Team 1 is ours");
    type_keys(&mut m, "3");
    assert_eq!(
        m.record().actions[1],
        Action::Play {
            card: Card::Stop,
            team: 2
        }
    );
}

fn three_player_stop() -> Game {
    let config = GameConfig {
        rules: mille_engine::RulesetId::Classic,
        players: 3,
        stacking: false,
    };
    let mut hand = [Card::D25; 6];
    hand[0] = Card::Stop;
    let state = Scenario::new(config)
        .expect("config")
        .hand(0, &hand)
        .battle(1, &[Card::Go])
        .battle(2, &[Card::Go])
        .deck(&[Card::D25; 30])
        .build();
    let mut m = at(state, 0, settings());
    type_keys(&mut m, "p");
    m
}

#[test]
fn a_valid_side_clears_the_which_side_error() {
    let mut m = three_player_stop();
    // Only the key: the computer's reply is not needed here.
    for c in "u1\n0".chars() {
        m.update(if c == '\n' {
            code(KeyCode::Enter)
        } else {
            key(c)
        });
    }
    assert!(
        m.message
            .as_deref()
            .is_some_and(|s| s.contains("Type the number"))
    );
    m.update(key('2'));
    assert_eq!(m.record().actions.len(), 2, "played");
    assert_eq!(m.message, None);
}

#[test]
fn a_card_number_error_goes_with_escape_and_the_next_command() {
    let mut m = new_game(5);
    type_keys(&mut m, "p");
    type_keys(&mut m, "dx");
    assert!(
        m.message
            .as_deref()
            .is_some_and(|s| s.contains("is not a card"))
    );
    m.update(code(KeyCode::Esc));
    assert_eq!(m.mode, Mode::Normal);
    assert_eq!(
        m.message, None,
        "ESC leaves the card question and its error"
    );
    type_keys(&mut m, "dx");
    type_keys(&mut m, "\n");
    type_keys(&mut m, "d");
    assert_eq!(m.message, None, "a new D starts afresh");
}

#[test]
fn save_cancelled_is_not_shown_next_to_really_quit() {
    let mut m = new_game(9);
    type_keys(&mut m, "p");
    type_keys(&mut m, "s\n");
    assert_eq!(m.message.as_deref(), Some("Save cancelled."));
    m.update(code(KeyCode::Delete));
    assert_eq!(m.mode, Mode::ConfirmQuit);
    assert_eq!(m.message, None);
    type_keys(&mut m, "n");
    let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    type_keys(&mut m, "s\n");
    assert_eq!(m.update(ctrl_c), vec![Effect::Interrupted]);
    assert_eq!(m.message, None);
    // Viewing keys keep the line: W shows the other window, the message
    // still describes the situation.
    type_keys(&mut m, "ns\n");
    type_keys(&mut m, "w");
    assert_eq!(m.message.as_deref(), Some("Save cancelled."));
}

#[test]
fn the_end_of_the_hand_clears_an_old_notice() {
    // The computer completes an extended trip while an old notice is up.
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
                Card::D25,
                Card::D50,
                Card::D75,
                Card::D100,
                Card::Go,
                Card::Go,
                Card::Stop,
            ],
        )
        .battle(1, &[Card::Go])
        .distance(
            1,
            &[
                Card::D200,
                Card::D200,
                Card::D100,
                Card::D100,
                Card::D100,
                Card::D100,
                Card::D75,
                Card::D100,
            ],
        )
        .extended_by(1)
        .deck(&[Card::D25; 10])
        .phase(Phase::Turn {
            seat: seat(1),
            drawn: true,
        })
        .build();
    let mut m = scenario(state);
    m.notice("Took back your last move (and the computer's replies).");
    // The computer plays its 25 through the table.
    m.host.seat_bot(
        1,
        Box::new(Plays(Action::Play {
            card: Card::D25,
            team: 1,
        })),
    );
    let generation = m.generation;
    let ev = m
        .host
        .carry_out(&Effect::Think { generation }, generation)
        .expect("the computer moves");
    m.update(ev);
    assert!(m.hand_over());
    assert_eq!(m.mode, Mode::Another);
    assert_eq!(m.message, None);
}

/// A real game (so undo can replay its record) where the player has just
/// reached 700 and is asked about the extension: both seats played by the
/// classic bot until then.
fn at_the_extension_question() -> Game {
    for seed in 0..500u64 {
        let config = GameConfig::default();
        let mut host = Host::new(&GameRecord::new(config, seed), Level::Classic).expect("a game");
        let mut me = make_bot(Level::Classic, seed);
        while host.state().hand_number() == 0 && !matches!(host.state().phase(), Phase::HandOver) {
            match host.state().to_act() {
                ToAct::Seat(s)
                    if host.state().phase() == (Phase::Extension { seat: s }) && s == seat(0) =>
                {
                    return game_with(host, settings());
                }
                ToAct::Seat(s) if s == seat(0) => {
                    let a = me.decide(&host.observe()).expect("a move");
                    host.act(a);
                }
                ToAct::Seat(_) => {
                    host.step().expect("the computer moves");
                }
                _ => break,
            }
        }
    }
    panic!("no seed reaches the extension question");
}

#[test]
fn undo_does_not_take_back_an_extension_answer_once_play_went_on() {
    let mut m = at_the_extension_question();
    assert_eq!(m.mode, Mode::Extension);
    type_keys(&mut m, "y");
    assert!(m.record().actions.contains(&Action::Extend(true)));
    assert!(
        m.human_to_act(),
        "the computer moved after the answer: {:?}",
        m.state().phase()
    );
    let n = m.record().actions.len();
    let fx = type_keys(&mut m, "z");
    assert!(fx.contains(&Effect::Bell));
    assert_eq!(
        m.message.as_deref(),
        Some("The answer to the extension question is final: nothing to undo since")
    );
    assert_eq!(m.record().actions.len(), n, "nothing taken back");
    assert_ne!(m.mode, Mode::Extension);
    // A move after the answer can still be taken back, and only that.
    type_keys(&mut m, "p");
    let slot = (0..7)
        .find(|&i| m.slots()[i].is_some_and(|c| c.kind() != mille_engine::Kind::Safety))
        .expect("a discardable card");
    let label = if slot == 0 {
        'p'
    } else {
        char::from(b'0' + slot as u8)
    };
    type_keys(&mut m, &format!("d{label}\n"));
    type_keys(&mut m, "z");
    assert_eq!(
        m.record().actions.len(),
        n + 1,
        "back to just after the pick"
    );
    assert!(m.record().actions.contains(&Action::Extend(true)));
}

/// The log of moves is rebuilt from the record line for line: a restored
/// game shows what the saved one showed.
#[test]
fn the_log_is_rebuilt_from_the_record() {
    let mut m = new_game(33);
    for _ in 0..25 {
        if m.hand_over() {
            break;
        }
        if m.prompt().contains("P to pick") || m.prompt().contains("let it pass") {
            type_keys(&mut m, "p");
        } else {
            let slot = (0..7)
                .find(|&i| m.slots()[i].is_some_and(|c| c.kind() != mille_engine::Kind::Safety))
                .expect("a discardable card");
            let label = if slot == 0 {
                'p'
            } else {
                char::from(b'0' + slot as u8)
            };
            type_keys(&mut m, &format!("d{label}\n"));
        }
        let restored = game_with(
            Host::new(&m.record(), Level::Classic).expect("replays"),
            settings(),
        );
        assert_eq!(restored.log, m.log);
        // A saved game gets the same log from the table that replays it.
        let text = m.host.save_file(m.save_settings()).to_text();
        let (file, _) =
            SaveFile::from_bytes(Path::new("g.mille"), text.as_bytes()).expect("the save loads");
        let loaded = game_with(
            Host::new(&file.record, Level::Classic).expect("replays"),
            settings(),
        );
        assert_eq!(loaded.log, m.log);
    }
    assert!(!m.log.lines.is_empty());
}

/// The log remembers whose move is last, for the pause between computer
/// moves in a row.
#[test]
fn the_last_move_shown_is_remembered_by_seat() {
    let mut m = scenario(mouse_position());
    type_keys(&mut m, "p");
    assert_eq!(m.log.last_seat, None, "a pick is not shown");
    for e in [key('d'), key('p'), code(KeyCode::Enter)] {
        m.update(e);
    }
    assert_eq!(m.log.last_seat, Some(0));
    assert!(!m.last_logged_is_computer());
    let generation = m.generation;
    let mut all = Vec::new();
    m.run_computer(&[Effect::Think { generation }], &mut all);
    assert!(m.last_logged_is_computer());
}

#[test]
fn the_extension_question_says_what_it_wants_and_allows_quit_save_undo() {
    let mut m = at_the_extension_question();
    let n = m.record().actions.len();
    let fx = type_keys(&mut m, "x");
    assert!(fx.contains(&Effect::Bell));
    assert_eq!(
        m.message.as_deref(),
        Some("Answer y or n: extend the trip to 1000 miles?")
    );
    // Q (and DELETE) ask to quit; no comes back to the question.
    type_keys(&mut m, "q");
    assert_eq!(m.mode, Mode::ConfirmQuit);
    type_keys(&mut m, "n");
    assert_eq!(m.mode, Mode::Extension);
    m.update(code(KeyCode::Delete));
    assert_eq!(m.mode, Mode::ConfirmQuit);
    m.update(code(KeyCode::Esc));
    assert_eq!(m.mode, Mode::Extension);
    // S saves (here: cancelled) and comes back to the question.
    type_keys(&mut m, "s");
    assert!(matches!(m.mode, Mode::SaveName { .. }));
    type_keys(&mut m, "\n");
    assert_eq!(m.mode, Mode::Extension);
    // Z takes back the move that reached 700: nothing was answered yet.
    type_keys(&mut m, "z");
    assert!(m.record().actions.len() < n);
    assert_eq!(m.mode, Mode::Normal);
    assert!(m.human_to_act());
}

#[test]
fn another_hand_says_what_it_wants() {
    let state = Scenario::new(GameConfig::default())
        .expect("config")
        .phase(Phase::HandOver)
        .build();
    let mut m = scenario(state);
    let fx = type_keys(&mut m, "x");
    assert!(fx.contains(&Effect::Bell));
    assert_eq!(
        m.message.as_deref(),
        Some("Answer y or n: play another hand?")
    );
    type_keys(&mut m, "q");
    assert_eq!(m.mode, Mode::ConfirmQuit);
    type_keys(&mut m, "n");
    assert_eq!(m.mode, Mode::Another);
}

#[test]
fn plain_mode_says_an_empty_hand_is_empty() {
    let state = Scenario::new(GameConfig::default())
        .expect("config")
        .hand(0, &[])
        .build();
    let m = scenario(state);
    let text = mille_tui::plain::board_text(&m);
    assert!(text.contains("Your hand: (empty)."), "{text}");
}

#[test]
fn plain_help_lists_only_the_plain_commands() {
    let mut m = new_game(5);
    let mut out = Vec::new();
    mille_tui::plain::run(
        &mut m.m,
        &mut m.host,
        &mille_tui::app::Io::default(),
        "?\n".as_bytes(),
        &mut out,
        &mille_tui::signals::Stop::never(),
    )
    .expect("plain run");
    let text = String::from_utf8_lossy(&out);
    assert!(text.contains("print the score window"), "{text}");
    for absent in ["Mouse", "mouse", "^L", "switch the score window"] {
        assert!(
            !text.contains(absent),
            "{absent} in the plain help:\n{text}"
        );
    }
}

#[test]
fn the_status_line_names_the_stacking_variant_and_fits_80_columns() {
    let config = GameConfig {
        rules: mille_engine::RulesetId::Classic,
        players: 2,
        stacking: true,
    };
    let state = State::new(config, 3).expect("config");
    let mut m = at(state, 3, settings());
    m.screen = (80, 24);
    let mut t =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(80, 24)).expect("backend");
    t.draw(|f| mille_tui::render::draw(&m, f)).expect("draw");
    let screen = format!("{}", t.backend());
    assert!(
        screen.contains("| classic+stacking | level classic | sort off | click"),
        "{screen}"
    );
}

/// With several computers, the wait notice and the prompt name the one
/// playing now, not the one that was playing when the key was typed.
#[test]
fn the_wait_notice_follows_the_computer_playing() {
    let config = GameConfig {
        rules: mille_engine::RulesetId::Classic,
        players: 3,
        stacking: false,
    };
    let state = State::new(config, 4).expect("config");
    let mut m = at(state, 4, settings());
    let fx = mille_tui::update::start(&mut m);
    let mut all = Vec::new();
    m.run_computer(&fx, &mut all);
    assert!(m.human_to_act());
    type_keys(&mut m, "p");
    let slot = (0..7)
        .find(|&i| m.slots()[i].is_some_and(|c| c.kind() != mille_engine::Kind::Safety))
        .expect("a discardable card");
    let label = if slot == 0 {
        'p'
    } else {
        char::from(b'0' + slot as u8)
    };
    for e in [key('d'), key(label), code(KeyCode::Enter)] {
        m.update(e);
    }
    assert_eq!(m.computer_to_act(), Some(1));
    assert_eq!(m.prompt(), "Computer 1 is thinking...");
    m.update(key('p'));
    assert_eq!(m.message.as_deref(), Some("Wait: Computer 1 is playing."));
    // Computer 1 moves (its pick, then its card) until Computer 2 is to act.
    while m.computer_to_act() == Some(1) {
        let generation = m.generation;
        let ev = m
            .host
            .carry_out(&Effect::Think { generation }, generation)
            .expect("a move");
        m.update(ev);
    }
    assert_eq!(m.computer_to_act(), Some(2));
    assert_eq!(m.message.as_deref(), Some("Wait: Computer 2 is playing."));
    assert_eq!(m.prompt(), "Computer 2 is thinking...");
}

/// A computer player's illegal move is not replaced in silence: the screen
/// says so, the incident is kept for the log, and the classic level plays
/// the seat from then on.
#[test]
fn an_illegal_computer_move_is_shown_and_classic_takes_the_seat() {
    let mut m = new_game(5);
    // A 200 on the player's side is never the computer's to play.
    m.host.seat_bot(
        1,
        Box::new(Plays(Action::Play {
            card: Card::D200,
            team: 0,
        })),
    );
    type_keys(&mut m, "p");
    let slot = (0..7)
        .find(|&i| m.slots()[i].is_some_and(|c| c.kind() != mille_engine::Kind::Safety))
        .expect("a discardable card");
    let label = if slot == 0 {
        'p'
    } else {
        char::from(b'0' + slot as u8)
    };
    let fx = type_keys(&mut m, &format!("d{label}\n"));
    assert!(fx.contains(&Effect::Bell));
    let msg = m.message.clone().expect("a message");
    assert!(
        msg.starts_with("Computer made an illegal move (play 200 0: ")
            && msg.ends_with("; classic plays for it from now on."),
        "{msg}"
    );
    assert!(m.message_is_error);
    assert_eq!(m.incidents.len(), 1);
    // The seat as the table numbers it in its sentences (counted from 0
    // or from 1, as the table says).
    assert!(
        m.incidents[0].contains("scripted (seat ")
            && m.incidents[0].contains(") chose the illegal move"),
        "{}",
        m.incidents[0]
    );
    // The classic level played the seat: it is the player's turn again.
    assert!(m.human_to_act());
    assert!(m.record().actions.len() > 3, "the computer moved");
}

#[test]
fn a_signal_in_plain_mode_keeps_the_unfinished_game_in_the_autosave() {
    let mut m = new_game(12);
    type_keys(&mut m, "p");
    let dir = tempfile::tempdir().expect("tempdir");
    let io_ = mille_tui::app::Io {
        data_dir: Some(dir.path().to_path_buf()),
    };
    let stop = mille_tui::signals::Stop::never();
    // SIGTERM, arrived while the player was thinking.
    stop.raise(15);
    let mut out = Vec::new();
    let interrupted = mille_tui::plain::run(
        &mut m.m,
        &mut m.host,
        &io_,
        "d1\n".as_bytes(),
        &mut out,
        &stop,
    )
    .expect("plain run")
    .expect("interrupted");
    assert_eq!(interrupted.signal, 15);
    let kept = dir.path().join(mille_store::AUTOSAVE_FILE);
    assert_eq!(interrupted.kept, Ok(Some(kept.clone())));
    let (save, _) = SaveFile::load(&kept).expect("the autosave loads");
    assert_eq!(
        save.record,
        m.record(),
        "the game as it stood, the pick included"
    );
    assert_eq!(
        save.record.actions.len(),
        1,
        "the line after the signal was not played"
    );
    assert_eq!(save.settings.player, "Tester");
}

#[test]
fn without_a_signal_plain_mode_keeps_nothing() {
    let mut m = new_game(12);
    let dir = tempfile::tempdir().expect("tempdir");
    let io_ = mille_tui::app::Io {
        data_dir: Some(dir.path().to_path_buf()),
    };
    let mut out = Vec::new();
    let interrupted = mille_tui::plain::run(
        &mut m.m,
        &mut m.host,
        &io_,
        "p\nqy\nn\n".as_bytes(),
        &mut out,
        &mille_tui::signals::Stop::never(),
    )
    .expect("plain run");
    assert!(interrupted.is_none());
    assert!(String::from_utf8_lossy(&out).contains("Goodbye."));
    assert_eq!(std::fs::read_dir(dir.path()).expect("ls").count(), 0);
}
