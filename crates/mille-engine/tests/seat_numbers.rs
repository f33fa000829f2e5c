//! Seat and side numbers from outside the engine (a protocol message, a
//! save, a client) may name a seat that is not at the table: every public
//! accessor answers for them (an empty hand, an empty tableau, nothing to
//! play) instead of panicking, at every table size.

use mille_engine::{Card, GameConfig, HandScore, Scenario, State};

#[test]
fn accessors_take_any_seat_or_team_number_without_panicking() {
    for config in GameConfig::every() {
        let state = State::new(config, 1).expect("config");
        let seats = state.rules().seats;
        let teams = state.rules().teams;
        for n in 0..=u8::MAX {
            let hand = state.hand(n);
            assert_eq!(hand.is_empty(), n >= seats, "{config:?} seat {n}");
            let tableau = state.tableau(n);
            if n >= teams {
                assert_eq!(tableau.miles, 0);
                assert_eq!(state.hand_points(n), HandScore::default());
                assert_eq!(HandScore::running(&state, n), HandScore::default());
            }
            if n >= seats {
                assert!(!state.can_play_something(n));
                assert!(state.view(n).hand.is_empty());
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
        assert!((0..seats).all(|s| built.hand(s).is_empty()), "ignored");
        assert!((0..teams).all(|t| built.tableau(t).miles == 0), "ignored");
    }
}
