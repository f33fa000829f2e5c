//! One named test per numbered decision of `rules.md`, the common core, and
//! exact scoring including the best possible hands.

use mille_engine::{
    Action, Card, GameConfig, IllegalAction, Phase, Rules, RulesetId, Scenario, Seat, State, ToAct,
};

use Card::*;

fn config(rules: RulesetId, players: u8) -> GameConfig {
    GameConfig {
        rules,
        players,
        stacking: false,
    }
}

fn bsd() -> Scenario {
    Scenario::new(config(RulesetId::Bsd, 2)).expect("bsd")
}

fn classic(players: u8) -> Scenario {
    Scenario::new(config(RulesetId::Classic, players)).expect("classic")
}

/// Seat `n` (of the largest table, so of any table these tests set).
fn seat(n: u8) -> Seat {
    let rules = Rules::new(config(RulesetId::Classic, 6)).expect("6 players");
    rules.seat(n).expect("a seat of 6")
}

fn turn(n: u8) -> Phase {
    Phase::Turn {
        seat: seat(n),
        drawn: true,
    }
}

fn play(card: Card, target: u8) -> Action {
    Action::Play { card, team: target }
}

/// A long draw pile of harmless cards so hands do not run out.
const FILLER: [Card; 12] = [
    D25, D50, D75, D100, D25, D50, D75, D100, D25, D50, D75, D100,
];

fn ok(state: &mut State, a: Action) {
    if let Err(e) = state.apply(a) {
        panic!("{a} should be legal in {:?}: {e}", state.phase());
    }
}

fn refused(state: &State, a: Action) -> IllegalAction {
    match state.check(a) {
        Ok(()) => panic!("{a} should be refused in {:?}", state.phase()),
        Err(e) => e,
    }
}

// ----- common core -----

#[test]
fn core_distance_needs_a_go_and_says_so() {
    let s = bsd()
        .hand(0, &[D25, Go])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    let e = refused(&s, play(D25, 0));
    assert_eq!(e.to_string(), "You need a Go before you can play distance");
}

#[test]
fn core_go_then_distance() {
    let mut s = bsd()
        .hand(0, &[D25, Go])
        .hand(1, &[D50])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(Go, 0));
    assert_eq!(s.to_act(), ToAct::Seat(seat(1)));
    assert!(s.tableau(0).can_go(s.rules()));
}

#[test]
fn core_speed_limit_allows_only_25_and_50() {
    let s = bsd()
        .hand(0, &[D25, D50, D75, D100])
        .battle(0, &[Go])
        .speed(0, &[SpeedLimit])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    assert!(s.check(play(D25, 0)).is_ok());
    assert!(s.check(play(D50, 0)).is_ok());
    assert_eq!(refused(&s, play(D75, 0)), IllegalAction::SpeedLimited);
    assert_eq!(refused(&s, play(D100, 0)), IllegalAction::SpeedLimited);
}

#[test]
fn core_at_most_two_200s() {
    let s = bsd()
        .hand(0, &[D200])
        .battle(0, &[Go])
        .distance(0, &[D200, D200])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    assert_eq!(refused(&s, play(D200, 0)), IllegalAction::TooMany200s);
}

#[test]
fn core_exact_finish_never_past_the_target() {
    let s = bsd()
        .hand(0, &[D100, D50])
        .battle(0, &[Go])
        .distance(0, &[D200, D200, D100, D75, D75])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    let e = refused(&s, play(D100, 0));
    assert!(e.to_string().contains("take you to 750"), "{e}");
    // 650 + 50 lands exactly on 700.
    assert!(s.check(play(D50, 0)).is_ok());
}

#[test]
fn core_remedy_only_on_its_own_hazard() {
    let s = bsd()
        .hand(0, &[Gasoline, SpareTire, Go])
        .battle(0, &[Go, FlatTire])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    assert!(s.check(play(SpareTire, 0)).is_ok());
    assert!(matches!(
        refused(&s, play(Gasoline, 0)),
        IllegalAction::WrongRemedy { .. }
    ));
    assert!(matches!(
        refused(&s, play(Go, 0)),
        IllegalAction::RepairFirst { .. }
    ));
}

#[test]
fn core_after_a_remedy_a_go_is_needed() {
    let mut s = bsd()
        .hand(0, &[SpareTire, D25, Go])
        .hand(1, &[D25])
        .battle(0, &[Go, FlatTire])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(SpareTire, 0));
    let s2 = Scenario::new(config(RulesetId::Bsd, 2))
        .expect("bsd")
        .hand(0, &[D25, Go])
        .battle(0, &[Go, FlatTire, SpareTire])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    assert_eq!(refused(&s2, play(D25, 0)), IllegalAction::NeedGo);
    assert!(s2.check(play(Go, 0)).is_ok());
}

#[test]
fn core_hazards_only_on_a_rolling_unprotected_opponent() {
    let s = bsd()
        .hand(0, &[Stop, FlatTire, SpeedLimit])
        .battle(1, &[])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    assert!(matches!(
        refused(&s, play(Stop, 1)),
        IllegalAction::TargetNotRolling(_)
    ));
    // A Speed Limit may go on a side that is stopped.
    assert!(s.check(play(SpeedLimit, 1)).is_ok());
    assert_eq!(refused(&s, play(Stop, 0)), IllegalAction::HazardOnOwnSide);

    let s = bsd()
        .hand(0, &[Stop, SpeedLimit, FlatTire])
        .safeties(1, &[RightOfWay], false)
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    let e = refused(&s, play(Stop, 1));
    assert_eq!(e.to_string(), "Your opponent is protected by Right of Way");
    assert_eq!(
        refused(&s, play(SpeedLimit, 1)),
        IllegalAction::Protected(RightOfWay)
    );
    // Right of Way is a permanent Go: a flat tire still lands.
    assert!(s.check(play(FlatTire, 1)).is_ok());
}

#[test]
fn core_no_second_speed_limit() {
    let s = bsd()
        .hand(0, &[SpeedLimit])
        .speed(1, &[SpeedLimit])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    assert_eq!(
        refused(&s, play(SpeedLimit, 1)),
        IllegalAction::AlreadyLimited
    );
}

#[test]
fn core_end_of_limit_only_when_limited() {
    let s = bsd()
        .hand(0, &[EndOfLimit])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    assert_eq!(refused(&s, play(EndOfLimit, 0)), IllegalAction::NotLimited);
}

#[test]
fn core_a_safety_gives_another_turn() {
    let mut s = bsd()
        .hand(0, &[ExtraTank, D25])
        .hand(1, &[D25])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(ExtraTank, 0));
    assert_eq!(
        s.phase(),
        Phase::Turn {
            seat: seat(0),
            drawn: false
        }
    );
}

#[test]
fn core_right_of_way_is_a_permanent_go() {
    let mut s = bsd()
        .hand(0, &[RightOfWay, D100])
        .hand(1, &[D25])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(RightOfWay, 0));
    ok(&mut s, Action::Draw);
    assert!(s.check(play(D100, 0)).is_ok());
}

#[test]
fn core_draw_first_and_explain() {
    let s = bsd()
        .hand(0, &[D25])
        .deck(&FILLER)
        .phase(Phase::Turn {
            seat: seat(0),
            drawn: false,
        })
        .build();
    assert_eq!(refused(&s, play(D25, 0)), IllegalAction::MustDrawFirst);
    assert_eq!(
        refused(&s, Action::Discard(D25)),
        IllegalAction::MustDrawFirst
    );
}

#[test]
fn core_extension_is_offered_once_at_700() {
    let mut s = bsd()
        .hand(0, &[D100, D25])
        .hand(1, &[D25, Go])
        .battle(0, &[Go])
        .distance(0, &[D200, D200, D100, D100])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(D100, 0));
    assert_eq!(s.phase(), Phase::Extension { seat: seat(0) });
    assert!(matches!(
        refused(&s, Action::Draw),
        IllegalAction::ExtensionPending
    ));
    ok(&mut s, Action::Extend(true));
    assert_eq!(s.target(), 1000);
    assert_eq!(s.to_act(), ToAct::Seat(seat(1)));
}

#[test]
fn core_after_an_extension_distance_past_700_is_listed() {
    let mut s = bsd()
        .hand(0, &[D100, D25])
        .hand(1, &[D25, Go])
        .battle(0, &[Go])
        .distance(0, &[D200, D200, D100, D100])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(D100, 0));
    ok(&mut s, Action::Extend(true));
    ok(&mut s, Action::Draw);
    ok(&mut s, Action::Discard(D25));
    let drawn = s.apply(Action::Draw).expect("draw");
    assert!(drawn.drawn.is_some(), "a draw reports its card");
    let mut list = mille_engine::ActionList::default();
    s.legal_actions(&mut list);
    // 700 of 1000: every distance card held fits again.
    assert!(list.contains(&play(D25, 0)), "{list:?}");
    if s.hand(seat(0)).contains(&D100) {
        assert!(list.contains(&play(D100, 0)), "{list:?}");
    }
}

#[test]
fn core_outcomes_say_when_a_trip_ends_the_hand() {
    let mut s = bsd()
        .hand(0, &[D100, D25])
        .hand(1, &[D25, Go])
        .battle(0, &[Go])
        .distance(0, &[D200, D200, D100, D100])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    let out = s.apply(play(D100, 0)).expect("to 700");
    assert_eq!(out.trip_completed, None, "the extension is still open");
    assert!(!out.hand_over);
    let out = s.apply(Action::Extend(false)).expect("stop at 700");
    assert_eq!(out.trip_completed, Some(0));
    assert!(out.hand_over);
    // Without an extension to offer (already called), the play itself ends it.
    let mut s = bsd()
        .hand(0, &[D100, D25])
        .hand(1, &[D25, Go])
        .battle(0, &[Go])
        .distance(0, &[D200, D200, D100, D100, D100, D100, D100])
        .extended_by(1)
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    let out = s.apply(play(D100, 0)).expect("to 1000");
    assert_eq!(out.trip_completed, Some(0));
    assert!(out.hand_over);
}

#[test]
fn core_starting_seat_rotates_and_game_ends_at_5000() {
    let mut s = State::new(config(RulesetId::Classic, 3), 11).expect("config");
    let mut rng = <rand_chacha::ChaCha8Rng as rand_core::SeedableRng>::seed_from_u64(1);
    let mut firsts = vec![s.first_seat()];
    loop {
        mille_engine::sim::play_random_hand(&mut s, &mut rng);
        if s.phase() == Phase::GameOver {
            break;
        }
        ok(&mut s, Action::NextHand);
        firsts.push(s.first_seat());
    }
    for (i, &f) in firsts.iter().enumerate() {
        assert_eq!(f.index(), i % 3, "hand {i} starts with seat {f}");
    }
    assert!(s.totals().iter().any(|&t| t >= 5000));
    assert!(!s.winners().is_empty());
}

// ----- refusal sentences -----

/// A side of `rules` stopped by `hazard` (with Right of Way when `row`),
/// holding the remedy, a Go and a 25, its turn after the draw.
fn stopped_by(rules: RulesetId, hazard: Card, row: bool) -> State {
    let remedy = hazard.remedy().expect("a battle hazard has a remedy");
    let mut s = Scenario::new(config(rules, 2))
        .expect("config")
        .hand(0, &[remedy, Go, D25])
        .hand(1, &[D25, D50])
        .battle(0, &[Go, hazard])
        .deck(&FILLER)
        .phase(turn(0));
    if row {
        s = s.safeties(0, &[RightOfWay], false);
    }
    s.build()
}

#[test]
fn refusal_stopped_names_the_remedy_of_each_hazard() {
    let cases = [
        (
            RulesetId::Bsd,
            Stop,
            false,
            "You are stopped: play a Go before you can play distance",
        ),
        (
            RulesetId::Classic,
            Stop,
            false,
            "You are stopped: play a Go before you can play distance",
        ),
        (
            RulesetId::Bsd,
            OutOfGas,
            false,
            "You are out of gas: play Gasoline, then a Go, before you can play distance",
        ),
        (
            RulesetId::Classic,
            FlatTire,
            false,
            "You have a flat tire: play a Spare Tire, then a Go, before you can play distance",
        ),
        (
            RulesetId::Milebones,
            Accident,
            false,
            "You have had an accident: play Repairs, then a Go, before you can play distance",
        ),
        (
            RulesetId::Bsd,
            Accident,
            true,
            "You have had an accident: play Repairs before you can play distance",
        ),
        (
            RulesetId::Classic,
            OutOfGas,
            true,
            "You are out of gas: play Gasoline before you can play distance",
        ),
    ];
    for (rules, hazard, row, sentence) in cases {
        let s = stopped_by(rules, hazard, row);
        let e = refused(&s, play(D25, 0));
        assert!(
            matches!(e, IllegalAction::Stopped { hazard: h, .. } if h == hazard),
            "{rules} {hazard}: {e:?}"
        );
        assert_eq!(e.to_string(), sentence, "{rules} {hazard} row={row}");
    }
}

#[test]
fn refusal_stopped_sentence_is_what_the_rules_then_ask() {
    // Follow the sentence: play the remedy it names; a Go is needed after
    // it exactly when the sentence says so, in every ruleset.
    for rules in [RulesetId::Bsd, RulesetId::Classic, RulesetId::Milebones] {
        for hazard in [Stop, OutOfGas, FlatTire, Accident] {
            for row in [false, true] {
                if row && hazard == Stop {
                    continue; // Right of Way cancels Stop: nothing stops the side.
                }
                let mut s = stopped_by(rules, hazard, row);
                let sentence = refused(&s, play(D25, 0)).to_string();
                let remedy = hazard.remedy().expect("remedy");
                assert!(
                    sentence.contains(&format!(" {remedy}")),
                    "{rules} {hazard}: {sentence}"
                );
                ok(&mut s, play(remedy, 0));
                ok(&mut s, Action::Draw);
                ok(&mut s, Action::Discard(D25));
                ok(&mut s, Action::Draw);
                let says_go = sentence.contains("then a Go");
                let needs_go = s.check(play(D25, 0)).is_err();
                if hazard != Stop {
                    assert_eq!(says_go, needs_go, "{rules} {hazard} row={row}: {sentence}");
                }
                assert!(!needs_go || s.check(play(Go, 0)).is_ok());
            }
        }
    }
}

#[test]
fn refusal_already_cancelled_says_whether_a_go_is_needed() {
    let cancelled = |rules, safeties: &[Card]| {
        Scenario::new(config(rules, 2))
            .expect("config")
            .hand(0, &[SpareTire, D25, Go])
            .battle(0, &[Go, FlatTire])
            .safeties(0, safeties, false)
            .deck(&FILLER)
            .phase(turn(0))
            .build()
    };
    // bsd decision 1: the safety let the side go at once.
    let s = cancelled(RulesetId::Bsd, &[PunctureProof]);
    let e = refused(&s, play(SpareTire, 0));
    assert_eq!(
        e,
        IllegalAction::AlreadyCancelled {
            hazard: FlatTire,
            can_go: true
        }
    );
    assert_eq!(
        e.to_string(),
        "Your safety already cancelled the Flat Tire: you can already go, no Spare Tire needed"
    );
    assert!(s.check(play(D25, 0)).is_ok(), "the sentence is true");
    // classic decision 7 (and milebones): a Go is still needed.
    for rules in [RulesetId::Classic, RulesetId::Milebones] {
        let s = cancelled(rules, &[PunctureProof]);
        let e = refused(&s, play(SpareTire, 0));
        assert_eq!(
            e.to_string(),
            "Your safety already cancelled the Flat Tire: play a Go to get moving again"
        );
        assert_eq!(refused(&s, play(D25, 0)), IllegalAction::NeedGo);
        assert!(s.check(play(Go, 0)).is_ok(), "the sentence is true");
    }
    // With Right of Way the classic side can go over it, and is told so.
    let s = cancelled(RulesetId::Classic, &[PunctureProof, RightOfWay]);
    let e = refused(&s, play(SpareTire, 0));
    assert!(e.to_string().contains("you can already go"), "{e}");
    assert!(s.check(play(D25, 0)).is_ok());
}

// ----- bsd -----

#[test]
fn decision_01_bsd_safety_on_its_hazard_lets_the_side_go_at_once() {
    let mut s = bsd()
        .hand(0, &[PunctureProof, D25])
        .hand(1, &[D25])
        .battle(0, &[Go, FlatTire])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(PunctureProof, 0));
    ok(&mut s, Action::Draw);
    assert!(s.check(play(D25, 0)).is_ok(), "no Go needed in bsd");
    // Played with no such hazard it only protects.
    let s = bsd()
        .hand(0, &[ExtraTank, D25])
        .hand(1, &[D25])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    let mut s = s;
    ok(&mut s, play(ExtraTank, 0));
    ok(&mut s, Action::Draw);
    assert_eq!(refused(&s, play(D25, 0)), IllegalAction::NeedGo);
}

#[test]
fn decision_02_bsd_coup_fourre_on_the_victims_turn_before_drawing() {
    let mut s = bsd()
        .hand(0, &[D25, D50, D75, D100, DrivingAce, Go])
        .hand(1, &[Accident, D25, D50, D75, D100, Go, Stop])
        .battle(0, &[Go])
        .deck(&FILLER)
        .phase(turn(1))
        .build();
    ok(&mut s, play(Accident, 0));
    assert!(matches!(
        s.phase(),
        Phase::CoupFourre {
            seat: at,
            hazard: Accident,
            ..
        } if at == seat(0)
    ));
    assert!(matches!(
        refused(&s, Action::Draw),
        IllegalAction::CoupFourrePending(Accident)
    ));
    let deck_before = s.deck_len();
    ok(&mut s, Action::CoupFourre(DrivingAce));
    // Two cards: the replacement and the normal draw; then one play.
    assert_eq!(s.deck_len(), deck_before - 2);
    assert_eq!(s.hand(seat(0)).len(), 7);
    assert_eq!(s.phase(), turn(0));
    let t = s.tableau(0);
    assert!(t.coups.has(mille_engine::Safety::DrivingAce));
    assert_eq!(
        t.battle.top(),
        Some(Go),
        "the accident went to the discards"
    );
    assert!(s.discards().contains(&Accident));
    assert!(s.check(play(D100, 0)).is_ok(), "the side rolls at once");
    assert_eq!(s.hand_points(0).coups, 300);
    assert_eq!(s.hand_points(0).safeties, 100);

    // Right of Way on a fresh Speed Limit is a coup fourré too.
    let mut s = bsd()
        .hand(0, &[D25, RightOfWay])
        .hand(1, &[SpeedLimit, D25])
        .battle(0, &[Go])
        .deck(&FILLER)
        .phase(turn(1))
        .build();
    ok(&mut s, play(SpeedLimit, 0));
    assert!(matches!(
        s.phase(),
        Phase::CoupFourre {
            seat: at,
            hazard: SpeedLimit,
            ..
        } if at == seat(0)
    ));
    ok(&mut s, Action::CoupFourre(RightOfWay));
    assert!(s.tableau(0).coups.has(mille_engine::Safety::RightOfWay));
    assert!(!s.tableau(0).limited());

    // Declining (drawing) forfeits the coup: the safety played later is a
    // plain safety.
    let mut s = bsd()
        .hand(0, &[D25, PunctureProof])
        .hand(1, &[FlatTire, D25])
        .battle(0, &[Go])
        .deck(&FILLER)
        .phase(turn(1))
        .build();
    ok(&mut s, play(FlatTire, 0));
    ok(&mut s, Action::DeclineCoupFourre);
    ok(&mut s, Action::Draw);
    ok(&mut s, play(PunctureProof, 0));
    assert!(s.tableau(0).coups.is_empty());
}

#[test]
fn decision_03_bsd_safeties_cannot_be_discarded() {
    let s = bsd()
        .hand(0, &[ExtraTank, D25])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    let e = refused(&s, Action::Discard(ExtraTank));
    assert_eq!(e, IllegalAction::SafetyNotDiscardable(ExtraTank));
    assert!(e.to_string().starts_with("Safeties cannot be discarded"));
}

#[test]
fn decision_04_bsd_hand_ends_when_nobody_can_play() {
    // Empty draw pile; seat 0 is stopped, seat 1 too: nothing playable once
    // seat 0 throws its last useful card away.
    let mut s = bsd()
        .hand(0, &[D25, Go])
        .hand(1, &[D50, D75])
        .battle(0, &[Go, Stop])
        .battle(1, &[Go, Stop])
        .distance(0, &[D100])
        .phase(turn(0))
        .build();
    ok(&mut s, Action::Discard(Go));
    assert_eq!(s.phase(), Phase::HandOver, "nobody can play a card");
    // Classic would go on until the hands are empty (decision 10).
}

#[test]
fn decision_05_bsd_extension_bonus_to_whoever_completes_1000_no_penalty() {
    let mut s = bsd()
        .hand(1, &[D100])
        .battle(1, &[Go])
        .distance(0, &[D200, D200, D100, D100, D100])
        .distance(1, &[D200, D200, D100, D100, D100, D100, D100])
        .extended_by(0)
        .deck(&FILLER)
        .phase(turn(1))
        .build();
    ok(&mut s, play(D100, 1));
    let sc = s.last_scores().expect("scored");
    assert_eq!(sc[1].extension, 200);
    assert_eq!(sc[1].trip, 400);
    assert_eq!(sc[0].extension, 0, "no penalty for the failed caller");
}

#[test]
fn decision_05_bsd_no_trip_bonus_when_nobody_reaches_1000() {
    let mut s = bsd()
        .hand(0, &[D25])
        .hand(1, &[])
        .battle(0, &[Go, Stop])
        .distance(0, &[D200, D200, D100, D100, D100])
        .extended_by(0)
        .phase(turn(0))
        .build();
    ok(&mut s, Action::Discard(D25));
    assert_eq!(s.phase(), Phase::HandOver);
    let sc = s.last_scores().expect("scored");
    assert_eq!(sc[0].trip + sc[0].extension + sc[0].shut_out, 0);
    assert_eq!(sc[0].miles, 700);
}

#[test]
fn decision_06_bsd_shut_out_when_the_opponent_has_no_miles() {
    let mut s = bsd()
        .hand(0, &[D100])
        .battle(0, &[Go])
        .distance(0, &[D200, D200, D100, D100])
        .extended_by(0)
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    // 600 + 100 = 700 < 1000: keep driving; then finish at 1000.
    ok(&mut s, play(D100, 0));
    assert_eq!(
        s.phase(),
        Phase::Turn {
            seat: seat(1),
            drawn: false
        }
    );
    let mut s = bsd()
        .hand(0, &[D100])
        .battle(0, &[Go])
        .distance(0, &[D200, D200, D100, D100])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(D100, 0));
    ok(&mut s, Action::Extend(false));
    let sc = s.last_scores().expect("scored");
    assert_eq!(sc[0].shut_out, 500);
    assert_eq!(sc[0].safe_trip, 0, "200s were played");
    assert_eq!(sc[0].trip, 400);
    assert_eq!(sc[1].total(), 0);
}

// ----- classic -----

#[test]
fn decision_07_classic_safety_cancels_but_a_go_is_still_needed() {
    let mut s = classic(2)
        .hand(0, &[PunctureProof, D25, SpareTire, Go])
        .hand(1, &[Stop, D25])
        .battle(0, &[Go, FlatTire])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(PunctureProof, 0));
    ok(&mut s, Action::Draw);
    assert_eq!(refused(&s, play(D25, 0)), IllegalAction::NeedGo);
    assert_eq!(
        refused(&s, play(SpareTire, 0)),
        IllegalAction::AlreadyCancelled {
            hazard: FlatTire,
            can_go: false
        }
    );
    assert!(s.check(play(Go, 0)).is_ok(), "a Go may be played on it");
    // An opponent may not put a new hazard on it until the side can go.
    let s1 = classic(2)
        .hand(1, &[Stop, Accident])
        .battle(0, &[Go, FlatTire])
        .safeties(0, &[PunctureProof], false)
        .deck(&FILLER)
        .phase(turn(1))
        .build();
    assert!(matches!(
        refused(&s1, play(Accident, 0)),
        IllegalAction::TargetNotRolling(_)
    ));
    // With Right of Way the side can go over it.
    let s2 = classic(2)
        .hand(0, &[D100])
        .battle(0, &[Go, FlatTire])
        .safeties(0, &[PunctureProof, RightOfWay], false)
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    assert!(s2.check(play(D100, 0)).is_ok());
}

#[test]
fn decision_08_classic_coup_fourre_is_immediate_and_skips_the_players_between() {
    // Three players: seat 0 stops seat 2, who holds Right of Way; seat 1
    // loses its turn.
    let mut s = classic(3)
        .hand(0, &[Stop, D25])
        .hand(1, &[D25, D50])
        .hand(2, &[RightOfWay, D25])
        .battle(2, &[Go])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(Stop, 2));
    assert!(matches!(
        s.phase(),
        Phase::CoupFourre {
            seat: at,
            hazard: Stop,
            ..
        } if at == seat(2)
    ));
    let deck = s.deck_len();
    ok(&mut s, Action::CoupFourre(RightOfWay));
    assert_eq!(s.deck_len(), deck - 1, "a replacement card");
    assert_eq!(
        s.phase(),
        Phase::Turn {
            seat: seat(2),
            drawn: false
        },
        "then a full turn"
    );
    assert_eq!(
        s.tableau(2).battle.top(),
        Some(Go),
        "the pile shows what it showed before"
    );
    assert!(s.discards().contains(&Stop));

    // Declined: play goes on after the attacker as usual.
    let mut s = classic(3)
        .hand(0, &[Stop, D25])
        .hand(2, &[RightOfWay, D25])
        .battle(2, &[Go])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(Stop, 2));
    ok(&mut s, Action::DeclineCoupFourre);
    assert_eq!(
        s.phase(),
        Phase::Turn {
            seat: seat(1),
            drawn: false
        }
    );

    // Teams: seat 1 attacks team 0; seat 0 (not next in turn) calls it.
    let mut s = classic(4)
        .hand(1, &[Accident, D25])
        .hand(0, &[DrivingAce, D25])
        .battle(0, &[Go])
        .deck(&FILLER)
        .phase(turn(1))
        .build();
    ok(&mut s, play(Accident, 0));
    assert!(matches!(s.phase(), Phase::CoupFourre { seat: at, .. } if at == seat(0)));
    ok(&mut s, Action::CoupFourre(DrivingAce));
    assert_eq!(
        s.phase(),
        Phase::Turn {
            seat: seat(0),
            drawn: false
        },
        "seats 2 and 3 are skipped"
    );
}

#[test]
fn decision_09_classic_any_card_may_be_discarded() {
    let s = classic(2)
        .hand(0, &[ExtraTank, D25])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    assert!(s.check(Action::Discard(ExtraTank)).is_ok());
    let s = Scenario::new(config(RulesetId::Milebones, 2))
        .expect("milebones")
        .hand(0, &[ExtraTank])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    assert!(s.check(Action::Discard(ExtraTank)).is_ok());
}

#[test]
fn decision_10_classic_hand_ends_when_every_hand_is_played_out() {
    let mut s = classic(2)
        .hand(0, &[D25, Go])
        .hand(1, &[D50])
        .battle(0, &[Go, Stop])
        .battle(1, &[Go, Stop])
        .phase(turn(0))
        .build();
    ok(&mut s, Action::Discard(Go));
    assert_eq!(s.phase(), turn(1), "cards remain: play goes on");
    ok(&mut s, Action::Discard(D50));
    assert_eq!(s.phase(), turn(0), "seat 1 is empty and passed over");
    ok(&mut s, Action::Discard(D25));
    assert_eq!(s.phase(), Phase::HandOver);
}

#[test]
fn decision_11_classic_failed_extension_pays_each_opponent_200() {
    let mut s = classic(3)
        .hand(1, &[D100])
        .battle(1, &[Go])
        .distance(0, &[D200, D200, D100, D100, D100])
        .distance(1, &[D200, D200, D100, D100, D100, D100, D100])
        .distance(2, &[D25])
        .extended_by(0)
        .deck(&FILLER)
        .phase(turn(1))
        .build();
    ok(&mut s, play(D100, 1));
    let sc = s.last_scores().expect("scored");
    assert_eq!(
        [sc[0].extension, sc[1].extension, sc[2].extension],
        [0, 200, 200]
    );
    assert_eq!(sc[1].trip, 400, "trip bonuses go to whoever completes");
    // The caller completing gets the bonus alone.
    let mut s = classic(3)
        .hand(0, &[D100])
        .battle(0, &[Go])
        .distance(0, &[D200, D200, D100, D100, D100, D100, D100])
        .distance(1, &[D25])
        .distance(2, &[D25])
        .extended_by(0)
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(D100, 0));
    let sc = s.last_scores().expect("scored");
    assert_eq!(
        [sc[0].extension, sc[1].extension, sc[2].extension],
        [200, 0, 0]
    );
}

#[test]
fn decision_11_classic_extension_nobody_completes_each_opponent_gets_200() {
    // Team 0 extended at 700; the draw pile is gone and its last card is
    // discarded: the hand ends (decision 10) with nobody at 1000.
    for players in [2, 3] {
        let mut s = classic(players)
            .hand(0, &[D25])
            .battle(0, &[Go, Stop])
            .distance(0, &[D200, D200, D100, D100, D100])
            .distance(1, &[D25])
            .extended_by(0)
            .phase(turn(0))
            .build();
        ok(&mut s, Action::Discard(D25));
        assert_eq!(s.phase(), Phase::HandOver, "{players} players");
        assert_eq!(s.completed(), None);
        let sc = s.last_scores().expect("scored");
        let extension: Vec<u16> = sc.iter().map(|t| t.extension).collect();
        let mut expected = vec![200; players as usize];
        expected[0] = 0;
        assert_eq!(extension, expected, "{players} players: the caller failed");
        for (t, score) in sc.iter().enumerate() {
            // Reaching 700 before extending completes nothing: no trip
            // bonuses for anybody, and no shut-out without a trip.
            assert_eq!(
                (score.trip, score.safe_trip, score.shut_out),
                (0, 0, 0),
                "{players} players, team {t}"
            );
        }
        assert_eq!(sc[0].total(), 700);
        assert_eq!(sc[1].total(), 25 + 200);
    }
}

#[test]
fn decision_12_classic_no_hazard_on_a_hazard_unless_stacking() {
    let base = |stacking| {
        Scenario::new(GameConfig {
            rules: RulesetId::Classic,
            players: 2,
            stacking,
        })
        .expect("classic")
        .hand(0, &[Accident])
        .battle(1, &[Go, Stop])
        .deck(&FILLER)
        .phase(turn(0))
        .build()
    };
    let s = base(false);
    let e = refused(&s, play(Accident, 1));
    assert_eq!(e, IllegalAction::HazardOnHazard(Stop));
    assert!(e.to_string().contains("on top of another hazard"));
    let s = base(true);
    assert!(s.check(play(Accident, 1)).is_ok());
}

#[test]
fn decision_12_stacking_only_the_top_hazard_must_be_remedied() {
    let mut s = Scenario::new(GameConfig {
        rules: RulesetId::Classic,
        players: 2,
        stacking: true,
    })
    .expect("classic with stacking")
    .hand(0, &[Accident, D25, D50])
    .hand(1, &[SpareTire, Repairs, Go, D100])
    .battle(1, &[Go, FlatTire])
    .deck(&FILLER)
    .phase(turn(0))
    .build();
    // The Accident lands on the Flat Tire.
    ok(&mut s, play(Accident, 1));
    assert_eq!(s.tableau(1).battle.as_slice(), &[Go, FlatTire, Accident]);
    ok(&mut s, Action::Draw);
    // Only the top counts: the Flat Tire underneath is not repaired, and
    // a Go waits for Repairs.
    assert!(matches!(
        refused(&s, play(SpareTire, 1)),
        IllegalAction::WrongRemedy {
            showing: Accident,
            ..
        }
    ));
    assert!(matches!(
        refused(&s, play(Go, 1)),
        IllegalAction::RepairFirst {
            hazard: Accident,
            ..
        }
    ));
    ok(&mut s, play(Repairs, 1));
    ok(&mut s, Action::Draw);
    ok(&mut s, Action::Discard(D25));
    ok(&mut s, Action::Draw);
    // With the top remedied, a Go gets the side moving: the Flat Tire
    // below needs no Spare Tire.
    assert!(matches!(
        refused(&s, play(SpareTire, 1)),
        IllegalAction::NothingToRepair { .. }
    ));
    ok(&mut s, play(Go, 1));
    ok(&mut s, Action::Draw);
    ok(&mut s, Action::Discard(D50));
    ok(&mut s, Action::Draw);
    assert!(s.check(play(D100, 1)).is_ok(), "rolling again");
}

fn milebones() -> Scenario {
    Scenario::new(config(RulesetId::Milebones, 2)).expect("milebones")
}

#[test]
fn milebones_extension_bonus_to_whoever_completes_1000() {
    // The opponent of the caller completes 1000: the bonus is its.
    let mut s = milebones()
        .hand(1, &[D100])
        .battle(1, &[Go])
        .distance(0, &[D200, D200, D100, D100, D100])
        .distance(1, &[D200, D200, D100, D100, D100, D100, D100])
        .extended_by(0)
        .deck(&FILLER)
        .phase(turn(1))
        .build();
    ok(&mut s, play(D100, 1));
    let sc = s.last_scores().expect("scored");
    assert_eq!([sc[0].extension, sc[1].extension], [0, 200]);
    assert_eq!([sc[0].trip, sc[1].trip], [0, 400]);
    // The caller completes it: the bonus is the caller's.
    let mut s = milebones()
        .hand(0, &[D100])
        .battle(0, &[Go])
        .distance(0, &[D200, D200, D100, D100, D100, D100, D100])
        .distance(1, &[D25])
        .extended_by(0)
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(D100, 0));
    let sc = s.last_scores().expect("scored");
    assert_eq!([sc[0].extension, sc[1].extension], [200, 0]);
}

#[test]
fn milebones_no_penalty_for_a_failed_extension() {
    // Nobody reaches 1000: unlike classic (decision 11) the opponent gets
    // nothing for the caller's failure.
    let mut s = milebones()
        .hand(0, &[D25])
        .battle(0, &[Go, Stop])
        .distance(0, &[D200, D200, D100, D100, D100])
        .extended_by(0)
        .phase(turn(0))
        .build();
    ok(&mut s, Action::Discard(D25));
    assert_eq!(s.phase(), Phase::HandOver);
    let sc = s.last_scores().expect("scored");
    assert_eq!([sc[0].extension, sc[1].extension], [0, 0]);
    // No trip, so no shut-out either, though the opponent has no miles.
    assert_eq!([sc[0].trip, sc[0].shut_out], [0, 0]);
    assert_eq!([sc[0].total(), sc[1].total()], [700, 0]);
}

#[test]
fn milebones_shut_out_to_the_winner_when_the_opponent_played_no_distance() {
    let finish = |opponent: &[Card]| {
        let mut s = milebones()
            .hand(0, &[D100])
            .hand(1, &[D25])
            .battle(0, &[Go])
            .battle(1, &[Go])
            .distance(0, &[D100, D100, D100, D100, D100, D100])
            .distance(1, opponent)
            .deck(&FILLER)
            .phase(turn(0))
            .build();
        ok(&mut s, play(D100, 0));
        ok(&mut s, Action::Extend(false));
        s
    };
    let s = finish(&[]);
    let sc = s.last_scores().expect("scored");
    assert_eq!(s.completed(), Some(0));
    assert_eq!([sc[0].shut_out, sc[1].shut_out], [500, 0]);
    assert_eq!(sc[0].total(), 600 + 100 + 400 + 300 + 500);
    // One 25 played by the opponent is enough to avoid it.
    let s = finish(&[D25]);
    let sc = s.last_scores().expect("scored");
    assert_eq!([sc[0].shut_out, sc[1].shut_out], [0, 0]);
}

#[test]
fn milebones_coup_fourre_gives_two_cards_and_keeps_the_turn() {
    let mut s = Scenario::new(config(RulesetId::Milebones, 2))
        .expect("milebones")
        .hand(0, &[D25, ExtraTank])
        .hand(1, &[OutOfGas])
        .battle(0, &[Go])
        .deck(&FILLER)
        .phase(turn(1))
        .build();
    ok(&mut s, play(OutOfGas, 0));
    ok(&mut s, Action::CoupFourre(ExtraTank));
    assert_eq!(s.phase(), turn(0));
    assert_eq!(s.hand(seat(0)).len(), 3);
    let p = s.hand_points(0);
    assert_eq!(p.safeties + p.coups, 400, "400 in all");
    // Outside a coup fourré, a safety still needs a Go (classic decision 7).
    let mut s = Scenario::new(config(RulesetId::Milebones, 2))
        .expect("milebones")
        .hand(0, &[D25, ExtraTank])
        .hand(1, &[D25])
        .battle(0, &[Go, OutOfGas])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(ExtraTank, 0));
    ok(&mut s, Action::Draw);
    assert_eq!(refused(&s, play(D25, 0)), IllegalAction::NeedGo);
}

// ----- scoring -----

/// A side that holds every safety as a coup fourré, 975 safe miles after
/// an extension, an empty draw pile and opponents with no miles, plays
/// its last 25.
fn best_hand(s: Scenario, extended: bool) -> State {
    let mut s = s
        .hand(0, &[D25])
        .battle(0, &[Go])
        .distance(
            0,
            &[D100, D100, D100, D100, D100, D100, D100, D100, D100, D75],
        )
        .safeties(0, &[ExtraTank, PunctureProof, DrivingAce, RightOfWay], true);
    if extended {
        s = s.extended_by(0);
    }
    let mut state = s.phase(turn(0)).build();
    ok(&mut state, play(D25, 0));
    state
}

#[test]
fn best_possible_hand_with_two_sides_is_4600() {
    let s = best_hand(bsd(), true);
    let sc = s.last_scores().expect("scored");
    assert_eq!(sc[0].total(), 4600, "{:?}", sc[0]);
    assert_eq!(
        (sc[0].miles, sc[0].safeties, sc[0].all_safeties, sc[0].coups),
        (1000, 400, 300, 1200)
    );
    assert_eq!(
        (
            sc[0].trip,
            sc[0].delayed_action,
            sc[0].safe_trip,
            sc[0].extension,
            sc[0].shut_out
        ),
        (400, 300, 300, 200, 500)
    );
    let s = best_hand(classic(2), true);
    assert_eq!(s.last_scores().expect("scored")[0].total(), 4600);
    let s = best_hand(
        Scenario::new(config(RulesetId::Milebones, 2)).expect("mb"),
        true,
    );
    assert_eq!(s.last_scores().expect("scored")[0].total(), 4600);
}

#[test]
fn best_possible_hand_with_three_sides_is_5100() {
    let s = best_hand(classic(3), true);
    assert_eq!(s.last_scores().expect("scored")[0].total(), 5100);
    let s = best_hand(classic(6), true);
    assert_eq!(s.last_scores().expect("scored")[0].total(), 5100);
}

#[test]
fn best_possible_hand_in_the_four_player_game_is_4400() {
    let s = best_hand(classic(4), false);
    let sc = s.last_scores().expect("scored");
    assert_eq!(sc[0].extension, 0, "no extension with 4 players");
    assert_eq!(sc[0].total(), 4400);
}

#[test]
fn scores_accumulate_into_game_totals() {
    let s = best_hand(bsd().totals(&[1000, 2000]), true);
    assert_eq!(s.totals(), &[5600, 2000]);
    assert_eq!(s.phase(), Phase::GameOver);
    assert_eq!(s.winners(), vec![0]);
    assert_eq!(s.games_won(), &[1, 0]);
}

#[test]
fn safe_trip_and_delayed_action_are_separate() {
    let mut s = bsd()
        .hand(0, &[D100])
        .battle(0, &[Go])
        .distance(0, &[D100, D100, D100, D100, D100, D100])
        .distance(1, &[D25])
        .deck(&FILLER)
        .phase(turn(0))
        .build();
    ok(&mut s, play(D100, 0));
    ok(&mut s, Action::Extend(false));
    let sc = s.last_scores().expect("scored");
    assert_eq!(
        (
            sc[0].trip,
            sc[0].safe_trip,
            sc[0].delayed_action,
            sc[0].shut_out
        ),
        (400, 300, 0, 0)
    );
    assert_eq!(sc[0].total(), 700 + 400 + 300);
    assert_eq!(sc[1].total(), 25);
}
