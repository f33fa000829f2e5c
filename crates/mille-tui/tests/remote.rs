//! A game at a table server, without a server: the translation of the
//! session's notes and the model's effects ([`Remote`]), and the model
//! fed the events it makes (names at their places, no undo or save, the
//! connection on the status line, ready between hands, a spectator).

use game_table::{Player, SeatInfo, Table, Turn, Viewer};
use mille_ai::{Level, make_bot};
use mille_engine::{Action, GameConfig, Mille, Observation, PhaseView, RulesetId, State};
use mille_store::Options;
use mille_tui::host::NoUndo;
use mille_tui::model::{Mode, ServerTable, Setup};
use mille_tui::remote::{Order, Remote};
use mille_tui::{Effect, Event, Model, render, update};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::Value;
use std::time::{Duration, Instant};
use table_client::protocol::{
    ClientMessage, ErrorBody, ErrorCode, SeatKindSummary, SeatSummary, ServerMessage,
};
use table_client::{Link, Note};

const TABLE: u64 = 7;

fn three() -> GameConfig {
    GameConfig {
        rules: RulesetId::Classic,
        players: 3,
        stacking: false,
    }
}

/// The names the server gives the seats of ann's table: ann, bob and a
/// computer.
fn names() -> Vec<SeatInfo> {
    vec![
        SeatInfo::human("ann"),
        SeatInfo::human("bob"),
        SeatInfo::computer("Computer 3 (classic)", "classic"),
    ]
}

/// Ann's table as the server holds it, every seat played by the classic
/// computer so that the tests can move it on.
fn table(seed: u64) -> Table<Mille> {
    let state = State::new(three(), seed).expect("three players");
    let seats = names()
        .into_iter()
        .enumerate()
        .map(|(k, info)| {
            let bot: Box<dyn game_table::Bot<Mille>> = make_bot(Level::Classic, k as u64);
            (info, Player::Bot(bot))
        })
        .collect();
    Table::new(state, seats)
}

/// Moves the table on until `done` says stop (a deal between hands
/// included); panics if it never does.
fn until(t: &mut Table<Mille>, done: impl Fn(&Table<Mille>) -> bool) {
    for _ in 0..20_000 {
        if done(t) {
            return;
        }
        match t.turn() {
            Turn::Seat(_) => {
                t.step().expect("a computer move");
            }
            Turn::Host => t.host_act(Action::NextHand).expect("a deal"),
            Turn::Over => break,
        }
    }
    assert!(done(t), "the table never got there");
}

fn json(o: &Observation) -> Value {
    serde_json::to_value(o).expect("an observation is JSON")
}

fn seats(free: usize) -> Vec<SeatSummary> {
    let person = |p: Option<&str>| SeatSummary {
        kind: SeatKindSummary::Human,
        level: None,
        player: p.map(str::to_string),
        connected: p.is_some(),
        away: false,
        rating: None,
        stand_in_in: None,
        bot: false,
        invited: false,
    };
    vec![
        person(Some("ann")),
        person((free == 0).then_some("bob")),
        SeatSummary {
            kind: SeatKindSummary::Computer,
            level: Some("classic".into()),
            player: Some("Computer 3 (classic)".into()),
            connected: false,
            away: false,
            rating: None,
            stand_in_in: None,
            bot: false,
            invited: false,
        },
    ]
}

fn update_note(table: u64, seq: u64, o: &Observation) -> Note {
    Note::Message(ServerMessage::Update {
        table,
        seq,
        observation: json(o),
        seats: seats(0),
    })
}

fn error_note(message: &str, id: Option<u64>, table: Option<u64>) -> Note {
    Note::Message(ServerMessage::Error(ErrorBody {
        code: ErrorCode::NotYourTurn,
        message: message.into(),
        id,
        table,
    }))
}

fn settings() -> Setup {
    Setup {
        level: Level::Classic,
        player: "bob".into(),
        save_path: None,
        options: Options::default(),
        ask_name: true,
    }
}

/// Bob's screen at ann's table, from the observation the server gave.
fn at_server(o: Observation) -> Model {
    Model::at_server(o, settings(), ServerTable::new(TABLE, "example.org:8780")).expect("rules")
}

/// Bob (seat 1) when it is his turn to pick.
fn bobs_turn(seed: u64) -> (Table<Mille>, Model) {
    let mut t = table(seed);
    until(&mut t, |t| t.turn() == Turn::Seat(1));
    let o = t.observe(Viewer::Seat(1));
    (t, at_server(o))
}

fn key(m: &mut Model, c: char) -> Vec<Effect> {
    update(
        m,
        Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
    )
}

/// The model's effects carried out by the translation, as the event loop
/// does: what the server would be sent is returned, answers given at once
/// are fed back.
fn carry(r: &mut Remote, m: &mut Model, fx: Vec<Effect>) -> Vec<Order> {
    let mut sent = Vec::new();
    let mut queue = std::collections::VecDeque::from(fx);
    while let Some(e) = queue.pop_front() {
        match r.order(&e) {
            Order::Answer(ev) => queue.extend(update(m, ev)),
            Order::Nothing => {}
            order => sent.push(order),
        }
    }
    sent
}

fn screen(m: &mut Model) -> String {
    m.screen = (80, 24);
    let mut t = Terminal::new(TestBackend::new(80, 24)).expect("test backend");
    t.draw(|f| render::draw(m, f)).expect("draw");
    format!("{}", t.backend())
}

#[test]
fn a_move_goes_to_the_server_and_the_update_after_its_ack_answers_it() {
    let (mut t, _) = bobs_turn(3);
    let mut r = Remote::new(TABLE, 3);
    assert_eq!(
        r.order(&Effect::Act(Action::Draw)),
        Order::Play(Action::Draw)
    );
    r.sent(100, Action::Draw);
    let ack = ServerMessage::Ack {
        table: TABLE,
        id: 100,
        seq: 4,
    };
    assert_eq!(r.note(Note::Message(ack)), []);
    t.replay(Action::Draw).expect("bob draws");
    let drawn = t.observe(Viewer::Seat(1));
    let events = r.note(update_note(TABLE, 4, &drawn));
    assert_eq!(events[0], Event::Seats { free: 0 });
    assert_eq!(
        events[1],
        Event::Acted {
            action: Action::Draw,
            result: Ok(Box::new(drawn.clone()))
        }
    );
    // The next update is another change of the table.
    let events = r.note(update_note(TABLE, 5, &drawn));
    assert!(matches!(events[1], Event::Observed(_)), "{events:?}");
    // Another table's news is not this one's.
    assert_eq!(r.note(update_note(TABLE + 1, 6, &drawn)), []);
    // A move only its maker sees (a declined coup fourré) keeps the
    // table's number: its update answers it all the same.
    r.sent(101, Action::DeclineCoupFourre);
    let ack = ServerMessage::Ack {
        table: TABLE,
        id: 101,
        seq: 5,
    };
    assert_eq!(r.note(Note::Message(ack)), []);
    let events = r.note(update_note(TABLE, 5, &drawn));
    assert!(
        matches!(
            events[1],
            Event::Acted {
                action: Action::DeclineCoupFourre,
                result: Ok(_)
            }
        ),
        "{events:?}"
    );
}

#[test]
fn a_refused_move_comes_back_with_the_servers_sentence() {
    let mut r = Remote::new(TABLE, 0);
    r.sent(5, Action::Draw);
    let why = "it is not your turn: ann is to play";
    assert_eq!(
        r.note(error_note(why, Some(5), Some(TABLE))),
        [Event::Acted {
            action: Action::Draw,
            result: Err(why.into())
        }]
    );
    // Not about a move: said as a refusal; another table's is not ours.
    assert_eq!(
        r.note(error_note("the game is over", None, Some(TABLE))),
        [Event::Refused("the game is over".into())]
    );
    assert_eq!(r.note(error_note("x", None, Some(TABLE + 1))), []);
}

#[test]
fn after_a_reconnection_the_joined_observation_and_an_old_ack_are_taken_in() {
    let (t0, _) = bobs_turn(4);
    let mut t = t0;
    let mut r = Remote::new(TABLE, 3);
    let down = Link::Reconnecting {
        attempt: 2,
        why: "connection refused".into(),
    };
    assert_eq!(r.note(Note::Connection(down.clone())), [Event::Link(down)]);
    r.sent(9, Action::Draw);
    // The move reached the server before the drop: rejoining (with
    // `since`) brings it, and its ack comes again with its first seq.
    t.replay(Action::Draw).expect("bob draws");
    let back = t.observe(Viewer::Seat(1));
    let joined = ServerMessage::Joined {
        table: TABLE,
        seat: 1,
        seq: 4,
        observation: json(&back),
    };
    assert_eq!(
        r.note(Note::Message(joined)),
        [Event::Observed(Box::new(back.clone()))]
    );
    let ack = ServerMessage::Ack {
        table: TABLE,
        id: 9,
        seq: 4,
    };
    let mut told = back.clone();
    told.events.clear();
    assert_eq!(
        r.note(Note::Message(ack)),
        [Event::Acted {
            action: Action::Draw,
            result: Ok(Box::new(told))
        }]
    );
    // One the server gets only after the rejoin is numbered after it: its
    // update answers it.
    r.sent(10, Action::Discard(back.view.hand[0]));
    let joined = ServerMessage::Joined {
        table: TABLE,
        seat: 1,
        seq: 4,
        observation: json(&back),
    };
    assert_eq!(r.note(Note::Message(joined)).len(), 1);
    let ack = ServerMessage::Ack {
        table: TABLE,
        id: 10,
        seq: 5,
    };
    assert_eq!(r.note(Note::Message(ack)), []);
    let events = r.note(update_note(TABLE, 5, &back));
    assert!(
        matches!(events[1], Event::Acted { result: Ok(_), .. }),
        "{events:?}"
    );
}

#[test]
fn what_the_server_does_itself_or_not_at_all_is_not_sent() {
    let mut r = Remote::new(TABLE, 0);
    assert_eq!(
        r.order(&Effect::Deal(Action::NextHand)),
        Order::Send(ClientMessage::Ready { table: TABLE })
    );
    assert_eq!(r.order(&Effect::Think { generation: 3 }), Order::Nothing);
    assert_eq!(
        r.order(&Effect::Undo),
        Order::Answer(Event::Undone(Err(NoUndo::SharedTable)))
    );
    let save = Effect::Save {
        path: "x.mille".into(),
        settings: mille_store::SaveSettings {
            level: "classic".into(),
            player: "bob".into(),
            sorted: false,
        },
    };
    assert!(matches!(
        r.order(&save),
        Order::Answer(Event::Saved(Err(why))) if why.contains("No saving at a shared table")
    ));
    let bad = ServerMessage::Update {
        table: TABLE,
        seq: 1,
        observation: Value::from("nonsense"),
        seats: seats(1),
    };
    let events = r.note(Note::Message(bad));
    assert_eq!(events[0], Event::Seats { free: 1 });
    assert!(
        matches!(&events[1], Event::Refused(why) if why.contains("cannot read")),
        "{events:?}"
    );
}

#[test]
fn the_others_sit_at_their_places_under_their_names() {
    let (_, m) = bobs_turn(5);
    assert_eq!(m.me(), Some(1));
    assert_eq!(m.own_team(), 1);
    assert_eq!(m.seat_name(0), "ann");
    assert_eq!(m.seat_name(1), "You");
    assert_eq!(m.seat_name(2), "Computer 3 (classic)");
    assert_eq!(m.team_short(0), "ann");
    assert_eq!(m.team_short(1), "You");
    assert!(m.is_person(0) && !m.is_person(2));
    assert_eq!(m.mode, Mode::Normal, "a known name is never asked");
    assert!(m.prompt().contains("P to pick"), "{}", m.prompt());
}

#[test]
fn a_free_seat_holds_the_game_until_somebody_sits() {
    let (_, mut m) = bobs_turn(6);
    update(&mut m, Event::Seats { free: 1 });
    assert_eq!(
        m.prompt(),
        "Waiting for 1 more player to sit down at this table..."
    );
    update(&mut m, Event::Seats { free: 0 });
    assert!(m.prompt().contains("P to pick"));
}

#[test]
fn a_move_on_its_way_holds_the_next_and_a_refusal_is_shown() {
    let (_, mut m) = bobs_turn(7);
    assert_eq!(key(&mut m, 'p'), [Effect::Act(Action::Draw)]);
    assert!(m.server.as_ref().is_some_and(|s| s.awaiting));
    assert_eq!(key(&mut m, 'p'), [], "nothing crosses the move on its way");
    assert_eq!(
        m.message.as_deref(),
        Some("Wait: your last move is on its way to the table.")
    );
    let why = "it is not your turn: ann is to play";
    let fx = update(
        &mut m,
        Event::Acted {
            action: Action::Draw,
            result: Err(why.into()),
        },
    );
    assert_eq!(fx, [Effect::Bell]);
    assert_eq!(m.message.as_deref(), Some(why));
    assert!(m.message_is_error);
    assert!(!m.server.as_ref().is_some_and(|s| s.awaiting));
}

#[test]
fn an_error_without_id_frees_the_move_on_its_way() {
    let (_, mut m) = bobs_turn(7);
    let mut r = Remote::new(TABLE, 0);
    let fx = key(&mut m, 'p');
    assert_eq!(carry(&mut r, &mut m, fx), [Order::Play(Action::Draw)]);
    r.sent(5, Action::Draw);
    let dropped = "more than 20 messages a second: this one was dropped";
    let events = r.note(Note::Message(ServerMessage::Error(ErrorBody {
        code: ErrorCode::RateLimited,
        message: dropped.into(),
        id: None,
        table: None,
    })));
    assert_eq!(
        events,
        [Event::Acted {
            action: Action::Draw,
            result: Err(dropped.into())
        }]
    );
    for e in events {
        update(&mut m, e);
    }
    assert_eq!(m.message.as_deref(), Some(dropped));
    assert!(!m.server.as_ref().is_some_and(|s| s.awaiting));
    // The player can move again.
    assert_eq!(key(&mut m, 'p'), [Effect::Act(Action::Draw)]);
    r.sent(6, Action::Draw);
    // Another table's trouble, or another move's refusal, is not this move's.
    assert_eq!(r.note(error_note("x", None, Some(TABLE + 1))), []);
    assert_eq!(
        r.note(error_note("not yours", Some(4), Some(TABLE))),
        [Event::Refused("not yours".into())]
    );
    // A table that stopped answers the move as well.
    assert!(matches!(
        r.note(error_note("the table stopped", None, Some(TABLE)))
            .as_slice(),
        [Event::Acted { result: Err(_), .. }]
    ));
}

#[test]
fn undo_and_save_are_refused_at_a_shared_table() {
    let (_, mut m) = bobs_turn(8);
    let mut r = Remote::new(TABLE, 0);
    let fx = key(&mut m, 'z');
    assert_eq!(fx, [Effect::Undo]);
    assert_eq!(carry(&mut r, &mut m, fx), []);
    assert_eq!(
        m.message.as_deref(),
        Some("No undo at a shared table: a move made there is made for everyone")
    );
    let fx = key(&mut m, 's');
    assert_eq!(fx, [Effect::Bell]);
    assert!(
        m.message
            .as_deref()
            .is_some_and(|t| t.starts_with("No saving at a shared table")),
        "{:?}",
        m.message
    );
    assert_eq!(m.mode, Mode::Normal, "no file name is asked");
}

#[test]
fn the_connection_shows_on_the_status_line() {
    let (_, mut m) = bobs_turn(9);
    // At 80 columns the server's address gives way to the settings, which
    // are never cut (the sorting was, at the end of the line).
    let s = screen(&mut m);
    assert!(
        s.contains(" connected | table 7 | Deck: ") && s.contains("| classic | sort off "),
        "{s}"
    );
    let wide = {
        m.screen = (120, 30);
        let mut t = Terminal::new(TestBackend::new(120, 30)).expect("test backend");
        t.draw(|f| render::draw(&m, f)).expect("draw");
        format!("{}", t.backend())
    };
    assert!(
        wide.contains(" connected | table 7 at example.org:8780 | Deck: "),
        "{wide}"
    );
    update(
        &mut m,
        Event::Link(Link::Reconnecting {
            attempt: 3,
            why: "refused".into(),
        }),
    );
    let s = screen(&mut m);
    assert!(s.contains(" reconnecting (attempt 3)... | table 7"), "{s}");
    assert!(
        s.contains("| sort off"),
        "the settings are not cut off:\n{s}"
    );
    update(&mut m, Event::Link(Link::Connected));
    assert!(screen(&mut m).contains(" connected | table 7"));
    let fx = update(
        &mut m,
        Event::Link(Link::Failed("the name is taken".into())),
    );
    assert_eq!(fx, [Effect::Bell]);
    assert_eq!(
        m.message.as_deref(),
        Some("Cannot play on: the name is taken")
    );
    assert!(m.prompt().starts_with("The connection is lost: q leaves"));
}

#[test]
fn between_hands_the_player_says_ready_and_the_server_deals() {
    let (mut t, mut m) = bobs_turn(10);
    until(&mut t, |t| t.turn() == Turn::Host);
    update(
        &mut m,
        Event::Observed(Box::new(t.observe(Viewer::Seat(1)))),
    );
    assert_eq!(m.mode, Mode::Another);
    assert!(
        m.prompt()
            .ends_with("Ready for the next hand? y; Q leaves the table"),
        "{}",
        m.prompt()
    );
    let mut r = Remote::new(TABLE, 0);
    let fx = key(&mut m, 'y');
    assert_eq!(
        carry(&mut r, &mut m, fx),
        [Order::Send(ClientMessage::Ready { table: TABLE })]
    );
    assert!(
        m.prompt()
            .ends_with("Waiting for the others to be ready..."),
        "{}",
        m.prompt()
    );
    assert_eq!(key(&mut m, 'y'), [], "ready once");
    t.host_act(Action::NextHand).expect("the server deals");
    update(
        &mut m,
        Event::Observed(Box::new(t.observe(Viewer::Seat(1)))),
    );
    assert_eq!(m.obs.hand_number, 1);
    assert_eq!(m.mode, Mode::Normal);
    assert!(!m.server.as_ref().is_some_and(|s| s.ready));
}

#[test]
fn a_game_over_is_shown_not_recorded_here_and_q_leaves() {
    let (mut t, mut m) = bobs_turn(11);
    until(&mut t, |t| t.turn() == Turn::Over);
    let fx = update(
        &mut m,
        Event::Observed(Box::new(t.observe(Viewer::Seat(1)))),
    );
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::RecordScores { .. })),
        "{fx:?}"
    );
    assert!(m.game_over());
    assert!(
        m.prompt().ends_with("Press q to leave the table."),
        "{}",
        m.prompt()
    );
    assert_eq!(key(&mut m, 'y'), []);
    assert_eq!(key(&mut m, 'q'), [Effect::Quit]);
    assert_eq!(m.farewell, None, "nothing is left to come back to");
    assert!(
        !m.server.as_ref().is_some_and(|s| s.to_lobby),
        "a player leaves the program"
    );
}

#[test]
fn a_spectator_of_a_finished_game_goes_back_to_the_lobby() {
    let mut t = table(15);
    until(&mut t, |t| t.turn() == Turn::Over);
    let mut m = at_server(t.observe(Viewer::Spectator));
    assert!(m.game_over());
    assert!(
        m.prompt().ends_with("Press q to go back to the lobby."),
        "{}",
        m.prompt()
    );
    assert_eq!(key(&mut m, 'q'), [Effect::Quit]);
    assert!(m.server.as_ref().is_some_and(|s| s.to_lobby));
}

#[test]
fn leaving_mid_game_keeps_the_seat_and_asks_no_save() {
    let (_, mut m) = bobs_turn(12);
    assert_eq!(key(&mut m, 'q'), []);
    assert_eq!(m.mode, Mode::ConfirmQuit);
    assert_eq!(key(&mut m, 'y'), [Effect::Quit]);
    assert_eq!(
        m.farewell.as_deref(),
        Some(
            "You left table 7 at example.org:8780; the seat stays yours: \
             mille --connect example.org:8780 takes you back to it."
        )
    );
}

#[test]
fn a_spectator_sees_the_table_and_makes_no_move() {
    let mut t = table(13);
    until(&mut t, |t| t.turn() == Turn::Seat(1));
    let mut m = at_server(t.observe(Viewer::Spectator));
    assert!(m.watching());
    assert_eq!(m.seat_name(0), "ann");
    assert_eq!(
        m.prompt(),
        "Watching: bob to play. q goes back to the lobby."
    );
    assert_eq!(key(&mut m, 'p'), []);
    assert_eq!(
        m.message.as_deref(),
        Some("You are watching this table: q goes back to the lobby.")
    );
    let s = screen(&mut m);
    assert!(s.contains("Watching: the hands are hidden"), "{s}");
    // A name too long for the score window's column is called by its seat
    // number there, and the board says which side that is.
    assert!(
        s.contains("ann  bob   P3") && s.contains("── P3: Computer 3 (classic)"),
        "{s}"
    );
    assert!(
        !s.contains("── You"),
        "nobody is 'you' to a spectator:\n{s}"
    );
    // Only the keys a spectator can use are listed.
    for gone in [
        "S save",
        "Z undo",
        "M mouse",
        "P pick",
        "U use",
        "D discard",
    ] {
        assert!(!s.contains(gone), "{gone} is listed:\n{s}");
    }
    assert!(s.contains("Q lobby"), "{s}");
    // Q asks, then leaves the table for the lobby rather than the program.
    assert_eq!(key(&mut m, 'q'), []);
    assert_eq!(m.prompt(), "Stop watching and go back to the lobby? (y/n)");
    assert_eq!(key(&mut m, 'y'), [Effect::Quit]);
    assert!(m.server.as_ref().is_some_and(|s| s.to_lobby));
    assert_eq!(m.farewell, None);
}

#[test]
fn a_spectator_of_two_teams_finds_the_score_windows_teams_on_the_board() {
    let config = GameConfig {
        rules: RulesetId::Classic,
        players: 4,
        stacking: false,
    };
    let state = State::new(config, 3).expect("four players");
    let seats = ["ann", "bob", "cy", "dee"]
        .into_iter()
        .enumerate()
        .map(|(k, n)| {
            let bot: Box<dyn game_table::Bot<Mille>> = make_bot(Level::Classic, k as u64);
            (SeatInfo::human(n), Player::Bot(bot))
        })
        .collect();
    let mut t = Table::new(state, seats);
    let mut m = at_server(t.observe(Viewer::Spectator));
    let s = screen(&mut m);
    assert!(s.contains("T1    T2"), "{s}");
    assert!(s.contains("── Team 1: ann + cy"), "{s}");
    assert!(s.contains("── Team 2: bob + dee"), "{s}");
}

#[test]
fn a_long_side_name_gives_up_the_computers_levels_not_its_end() {
    let config = GameConfig {
        rules: RulesetId::Classic,
        players: 4,
        stacking: false,
    };
    let state = State::new(config, 4).expect("four players");
    let names = [
        SeatInfo::human("ann"),
        SeatInfo::computer("Computer 2 (classic)", "classic"),
        SeatInfo::computer("Computer 3 (classic)", "classic"),
        SeatInfo::computer("Computer 4 (classic)", "classic"),
    ];
    let seats = names
        .into_iter()
        .enumerate()
        .map(|(k, info)| {
            let bot: Box<dyn game_table::Bot<Mille>> = make_bot(Level::Classic, k as u64);
            (info, Player::Bot(bot))
        })
        .collect();
    let mut t = Table::new(state, seats);
    // Seat 1 (team 2) to act: its title carries the marker.
    until(&mut t, |t| t.turn() == Turn::Seat(1));
    let mut m = at_server(t.observe(Viewer::Spectator));
    let s = screen(&mut m);
    assert!(s.contains("── Team 2: Computer 2 + Computer 4 ◀ ─"), "{s}");
    assert!(s.contains("── Team 1: ann + Computer 3 (classic) ─"), "{s}");
}

#[test]
fn an_away_players_name_is_not_cut_in_the_score_window() {
    let mut t = table(16);
    until(&mut t, |t| t.turn() == Turn::Seat(1));
    let mut o = t.observe(Viewer::Seat(1));
    o.seat_info[0] = SeatInfo::computer("ann (away)", "classic");
    o.seat_info[2] = SeatInfo::human("Seat 3");
    let mut m = at_server(o);
    let s = screen(&mut m);
    assert!(s.contains("ann  You   P3"), "{s}");
    let header = s.lines().nth(1).unwrap_or_default();
    assert!(!header.contains("ann ("), "{s}");
    assert!(s.contains("── P3: Seat 3"), "{s}");
}

#[test]
fn another_players_extension_question_is_named_as_such() {
    let mut t = table(17);
    until(&mut t, |t| {
        matches!(
            t.state().phase_for(Viewer::Spectator),
            PhaseView::Extension { .. }
        )
    });
    let o = t.observe(Viewer::Spectator);
    let PhaseView::Extension { seat } = o.status else {
        unreachable!("waited for it")
    };
    let who = ["ann", "bob", "Computer 3 (classic)"][usize::from(seat)];
    let m = at_server(o);
    assert_eq!(
        m.prompt(),
        format!("Watching: {who} decides whether to extend the trip to 1000 miles. q: lobby.")
    );
    if seat != 1 {
        let mut m = at_server(t.observe(Viewer::Seat(1)));
        m.thinking = false;
        assert_eq!(
            m.prompt(),
            format!("Waiting for {who} to decide whether to extend the trip to 1000 miles...")
        );
    }
}

#[test]
fn after_a_reconnection_the_message_line_tells_what_was_missed() {
    let (mut t, mut m) = bobs_turn(18);
    update(
        &mut m,
        Event::Link(Link::Reconnecting {
            attempt: 1,
            why: "refused".into(),
        }),
    );
    update(&mut m, Event::Link(Link::Connected));
    assert_eq!(
        m.message.as_deref(),
        Some("Reconnected: taking your place at the table again...")
    );
    // Bob's seat is played meanwhile (by a computer standing in), and
    // the others play on: the rejoining observation brings it all.
    let before = t.seq();
    until(&mut t, |t| {
        t.seq() >= before + 6 && t.turn() == Turn::Seat(1)
    });
    let back = t.observe(Viewer::Seat(1));
    assert!(back.events.len() >= 3, "{:?}", back.events);
    update(&mut m, Event::Observed(Box::new(back)));
    let said = m.message.clone().unwrap_or_default();
    assert!(
        said.starts_with("Reconnected. ") && said.contains("things happened meanwhile, the last: "),
        "{said}"
    );
    // Only the rejoining observation says so.
    until(&mut t, |t| {
        t.seq() >= before + 8 && t.turn() == Turn::Seat(1)
    });
    assert!(!m.server.as_ref().is_some_and(|s| s.rejoining));
    update(
        &mut m,
        Event::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
    );
    update(
        &mut m,
        Event::Observed(Box::new(t.observe(Viewer::Seat(1)))),
    );
    assert_eq!(m.message, None, "{:?}", m.message);
}

#[test]
fn bobs_screen_at_anns_table() {
    let (_, mut m) = bobs_turn(14);
    insta::assert_snapshot!(screen(&mut m));
}

/// Bob at ann's table when the hand is over (ann and bob are people).
fn end_of_hand(seed: u64) -> (Table<Mille>, Model) {
    let (mut t, mut m) = bobs_turn(seed);
    until(&mut t, |t| t.turn() == Turn::Host);
    update(
        &mut m,
        Event::Observed(Box::new(t.observe(Viewer::Seat(1)))),
    );
    if let Some(s) = &mut m.server {
        s.away_seconds = Some(45);
    }
    (t, m)
}

#[test]
fn at_a_shared_table_the_end_of_hand_question_says_what_each_key_does_and_n_asks_first() {
    let (_, mut m) = end_of_hand(10);
    assert_eq!(m.mode, Mode::Another);
    let question = m.prompt();
    assert!(
        question.ends_with("Ready for the next hand? y; Q leaves the table"),
        "{question}"
    );
    insta::assert_snapshot!("end_of_hand_at_a_shared_table", screen(&mut m));
    // Another key says what the keys do, and leaves nothing.
    assert_eq!(key(&mut m, 'x'), [Effect::Bell]);
    assert_eq!(
        m.message.as_deref(),
        Some("Press y when you are ready for the next hand; Q leaves the table.")
    );
    // n does not leave at once: it asks, as Q does.
    for leave in ['n', 'q', 'N', 'Q'] {
        assert_eq!(key(&mut m, leave), [], "{leave}");
        assert_eq!(m.mode, Mode::ConfirmQuit, "{leave}");
        assert!(
            m.prompt().starts_with(
                "Leave the table? A computer plays for you after 45 s, and if you are not \
                 back when the game ends it counts as abandoned (a loss in the ratings). (y/n)"
            ),
            "{}",
            m.prompt()
        );
        assert_eq!(key(&mut m, 'n'), [], "no: back to the question");
        assert_eq!(m.mode, Mode::Another);
        assert!(!m.quit);
    }
    key(&mut m, 'n');
    insta::assert_snapshot!("leave_confirmation_at_a_shared_table", screen(&mut m));
    assert_eq!(key(&mut m, 'y'), [Effect::Quit]);
}

#[test]
fn leaving_mid_hand_asks_first_and_says_what_follows() {
    let (_, mut m) = bobs_turn(12);
    if let Some(s) = &mut m.server {
        s.away_seconds = Some(60);
    }
    for leave in [KeyCode::Char('q'), KeyCode::Delete, KeyCode::Backspace] {
        update(&mut m, Event::Key(KeyEvent::new(leave, KeyModifiers::NONE)));
        assert_eq!(m.mode, Mode::ConfirmQuit, "{leave:?}");
        assert!(
            m.prompt()
                .starts_with("Leave the table? A computer plays for you after 60 s"),
            "{}",
            m.prompt()
        );
        key(&mut m, 'n');
        assert_eq!(m.mode, Mode::Normal);
    }
    // At a casual table (its seats carry no rating) the ratings are not
    // mentioned.
    update(
        &mut m,
        Event::People {
            seats: seats(0),
            at: Instant::now(),
        },
    );
    key(&mut m, 'q');
    assert!(
        m.prompt().ends_with("it counts as abandoned. (y/n)"),
        "{}",
        m.prompt()
    );
    // The help says what Q does there.
    key(&mut m, 'n');
    key(&mut m, '?');
    let help = screen(&mut m);
    assert!(help.contains("leave the table (asks first)"), "{help}");
}

#[test]
fn alone_at_a_server_n_asks_too_and_says_the_game_waits() {
    // Ann's table with bob's seat a computer's: one person.
    let mut t = table(10);
    until(&mut t, |t| t.turn() == Turn::Host);
    let mut o = t.observe(Viewer::Seat(0));
    o.seat_info[1] = SeatInfo::computer("Computer 2 (classic)", "classic");
    let mut m = at_server(o);
    assert!(!m.shared());
    assert!(
        m.prompt().ends_with("Another hand? (y/n)"),
        "{}",
        m.prompt()
    );
    assert_eq!(key(&mut m, 'n'), []);
    assert_eq!(m.mode, Mode::ConfirmQuit);
    assert!(
        m.prompt()
            .starts_with("Leave the table? Nobody else plays at it"),
        "{}",
        m.prompt()
    );
    assert_eq!(key(&mut m, 'y'), [Effect::Quit]);
}

/// The seats of ann's table with ann gone: counting down, or played for.
fn ann_gone(stand_in_in: Option<u64>, away: bool) -> Vec<SeatSummary> {
    let mut s = seats(0);
    s[0].connected = false;
    s[0].away = away;
    s[0].stand_in_in = stand_in_in;
    s
}

#[test]
fn the_others_see_who_left_and_the_countdown_until_a_computer_plays() {
    let (_, mut m) = bobs_turn(14);
    let t0 = Instant::now();
    // Through the translation: an update's seats become the event.
    let mut r = Remote::new(TABLE, 0);
    let (_, o) = bobs_turn(14);
    let events = r.note(Note::Message(ServerMessage::Update {
        table: TABLE,
        seq: 1,
        observation: json(&o.obs),
        seats: ann_gone(Some(45), false),
    }));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::People { seats, .. } if seats[0].stand_in_in == Some(45))),
        "{events:?}"
    );
    update(
        &mut m,
        Event::People {
            seats: ann_gone(Some(45), false),
            at: t0,
        },
    );
    let clock = |m: &mut Model, after: Duration| {
        if let Some(s) = &mut m.server {
            s.clock = t0 + after;
        }
    };
    clock(&mut m, Duration::ZERO);
    assert_eq!(
        m.absence_lines(),
        ["ann left: a computer plays for ann in 45 s"]
    );
    clock(&mut m, Duration::from_secs(3));
    let s = screen(&mut m);
    assert!(
        s.contains("ann left: a computer plays for ann in 42 s"),
        "{s}"
    );
    insta::assert_snapshot!("countdown_of_a_person_who_left", s);
    // Each update starts the count afresh.
    update(
        &mut m,
        Event::People {
            seats: ann_gone(Some(20), false),
            at: t0 + Duration::from_secs(30),
        },
    );
    clock(&mut m, Duration::from_secs(31));
    assert_eq!(
        m.absence_lines(),
        ["ann left: a computer plays for ann in 19 s"]
    );
    // The stand-in plays; then ann is back.
    update(
        &mut m,
        Event::People {
            seats: ann_gone(None, true),
            at: t0 + Duration::from_secs(50),
        },
    );
    assert_eq!(m.absence_lines(), ["a computer plays for ann"]);
    assert!(screen(&mut m).contains("a computer plays for ann"));
    update(
        &mut m,
        Event::People {
            seats: seats(0),
            at: t0 + Duration::from_secs(60),
        },
    );
    assert!(m.absence_lines().is_empty());
    assert!(!screen(&mut m).contains("left:"));
}

/// The seats of ann's table with ann a bot, `invited` if it has not come.
fn ann_a_bot(invited: bool) -> Vec<SeatSummary> {
    let mut s = seats(0);
    s[0].bot = true;
    s[0].invited = invited;
    s[0].connected = !invited;
    s
}

#[test]
fn a_bots_side_is_marked_on_the_board() {
    let (_, mut m) = bobs_turn(5);
    let mut r = Remote::new(TABLE, 5);
    for e in r.note(Note::Message(ServerMessage::Update {
        table: TABLE,
        seq: 5,
        observation: json(&m.obs),
        seats: ann_a_bot(false),
    })) {
        update(&mut m, e);
    }
    let shown = screen(&mut m);
    assert!(shown.contains("ann (bot)"), "{shown}");
    assert!(!shown.contains("Computer 3 (classic) (bot)"), "{shown}");
    insta::assert_snapshot!("a_bot_at_the_table", shown);
    // Its name in sentences stays its name.
    assert_eq!(m.seat_name(0), "ann");
    assert_eq!(m.team_label(0), "ann (bot)");
}

#[test]
fn an_invited_bot_is_waited_for_and_its_refusal_told() {
    let (_, mut m) = bobs_turn(6);
    let mut r = Remote::new(TABLE, 6);
    let invited = Note::Message(ServerMessage::Update {
        table: TABLE,
        seq: 6,
        observation: json(&m.obs),
        seats: ann_a_bot(true),
    });
    for e in r.note(invited) {
        update(&mut m, e);
    }
    assert_eq!(
        m.prompt(),
        "Waiting for ann (bot) to take seat 1: the game starts then."
    );
    assert_eq!(m.team_label(0), "ann (bot, invited)");
    // No countdown for a bot that has not come: it has not left.
    assert!(!screen(&mut m).contains("ann left"));
    let declined = Note::Message(ServerMessage::Declined {
        table: TABLE,
        seat: 0,
        bot: "ann".into(),
        reason: "I play cubes only".into(),
    });
    let events = r.note(declined);
    assert_eq!(
        events,
        [Event::Told(
            "ann declined: I play cubes only; the seat is free".into()
        )]
    );
    for e in events {
        assert_eq!(update(&mut m, e), [], "news, no bell");
    }
    let mut free = seats(0);
    free[0].player = None;
    free[0].connected = false;
    for e in r.note(Note::Message(ServerMessage::Update {
        table: TABLE,
        seq: 6,
        observation: json(&m.obs),
        seats: free,
    })) {
        update(&mut m, e);
    }
    let shown = screen(&mut m);
    assert!(
        shown.contains("ann declined: I play cubes only; the seat is free"),
        "{shown}"
    );
    assert_eq!(
        m.prompt(),
        "Waiting for 1 more player to sit down at this table..."
    );
    // Another table's refusal is not this one's.
    let elsewhere = Note::Message(ServerMessage::Declined {
        table: TABLE + 1,
        seat: 0,
        bot: "zed".into(),
        reason: String::new(),
    });
    assert_eq!(r.note(elsewhere), []);
}
