//! Seat and side numbers from outside the engine (a protocol message, a
//! save, a client) may name a seat that is not at the table: a seat number
//! becomes a [`Seat`] only through [`Rules::seat`], which refuses one past
//! the table, and every public accessor answers for a seat of a larger
//! table or a side past the table (an empty hand, an empty tableau,
//! nothing to play) instead of panicking, at every table size.

use mille_engine::{Card, GameConfig, HandScore, Rules, RulesetId, Scenario, State};

#[test]
fn a_seat_number_past_the_table_is_refused() {
    for config in GameConfig::every() {
        let rules = Rules::new(config).expect("config");
        for n in 0..=u8::MAX {
            let seat = rules.seat(n);
            assert_eq!(seat.is_some(), n < rules.seats, "{config:?} seat {n}");
            if let Some(s) = seat {
                assert_eq!((s.number(), s.index()), (n, usize::from(n)), "{config:?}");
            }
        }
        let numbers: Vec<u8> = rules.seats_iter().map(|s| s.number()).collect();
        assert_eq!(numbers, (0..rules.seats).collect::<Vec<_>>(), "{config:?}");
    }
}

#[test]
fn accessors_take_any_seat_or_team_number_without_panicking() {
    // The largest table's seats: past the table for every smaller one.
    let six = Rules::new(GameConfig {
        rules: RulesetId::Classic,
        players: 6,
        stacking: false,
    })
    .expect("6 players");
    for config in GameConfig::every() {
        let state = State::new(config, 1).expect("config");
        let seats = state.rules().seats;
        let teams = state.rules().teams;
        for seat in six.seats_iter() {
            let away = seat.number() >= seats;
            assert_eq!(state.hand(seat).is_empty(), away, "{config:?} seat {seat}");
            if away {
                assert!(!state.can_play_something(seat));
                assert!(state.view(seat).hand.is_empty());
            }
        }
        for n in 0..=u8::MAX {
            let tableau = state.tableau(n);
            if n >= teams {
                assert_eq!(tableau.miles, 0);
                assert_eq!(state.hand_points(n), HandScore::default());
                assert_eq!(HandScore::running(&state, n), HandScore::default());
            }
        }
        let built = Scenario::new(config)
            .expect("config")
            .hand(200, &[Card::Go])
            .battle(9, &[Card::Stop])
            .speed(9, &[Card::SpeedLimit])
            .distance(9, &[Card::D100])
            .safeties(9, &[Card::RightOfWay], true)
            .build();
        assert!(
            built.rules().seats_iter().all(|s| built.hand(s).is_empty()),
            "ignored"
        );
        assert!((0..teams).all(|t| built.tableau(t).miles == 0), "ignored");
    }
}

#[test]
fn sentences_count_seats_from_one_and_say_when_a_number_is_an_actions() {
    use mille_engine::IllegalAction;
    // Seat 0 is the first player people see.
    let first = IllegalAction::NotYourTurn { expected: 0 }.to_string();
    assert!(first.ends_with("waiting for player 1"), "{first}");
    // A target team is the action's own number, and the sentence says so.
    let team = IllegalAction::NoSuchTeam(3).to_string();
    assert!(team.contains("team 3") && team.contains("from 0"), "{team}");
}

#[test]
fn a_setup_with_a_field_this_version_does_not_know_is_refused() {
    let known: GameConfig =
        serde_json::from_str(r#"{"rules":"classic","players":4,"stacking":true}"#).expect("reads");
    assert!(known.stacking);
    let unknown =
        serde_json::from_str::<GameConfig>(r#"{"rules":"classic","players":4,"turbo":1}"#)
            .expect_err("an unknown field is refused");
    assert!(unknown.to_string().contains("turbo"), "{unknown}");
}
