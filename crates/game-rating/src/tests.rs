//! The rating rules against `skillratings`' own functions and the
//! published examples.

use super::*;
use proptest::prelude::*;
use skillratings::glicko2::{decay_deviation, glicko2_rating_period};

fn r(rating: f64, deviation: f64, volatility: f64) -> Rating {
    Rating {
        rating,
        deviation,
        volatility,
    }
}

fn p(rating: Rating, side: usize, place: usize) -> Participant {
    Participant {
        rating,
        side,
        place,
        abandoned: false,
    }
}

fn close(a: f64, b: f64, eps: f64) -> bool {
    (a - b).abs() <= eps
}

/// Glickman's worked example (glicko2.pdf, "Example calculation"): a
/// 1500 ± 200 player beats 1400 ± 30, loses to 1550 ± 100 and to 1700 ±
/// 300, tau 0.5. It pins the scale (173.7178) and the tau we use.
#[test]
fn glickmans_published_example() {
    let player = r(1500.0, 200.0, 0.06).glicko2();
    let results = [
        (r(1400.0, 30.0, 0.06).glicko2(), Outcomes::WIN),
        (r(1550.0, 100.0, 0.06).glicko2(), Outcomes::LOSS),
        (r(1700.0, 300.0, 0.06).glicko2(), Outcomes::LOSS),
    ];
    let after = glicko2_rating_period(&player, &results, &glicko2_config());
    assert!(close(after.rating, 1464.06, 0.01), "{after:?}");
    assert!(close(after.deviation, 151.52, 0.01), "{after:?}");
    assert!(close(after.volatility, 0.05999, 0.00001), "{after:?}");
}

/// `skillratings`' own example of one game between newcomers, through
/// [`rate`].
#[test]
fn two_newcomers_as_skillratings_documents() {
    let new = rate(&[p(Rating::default(), 0, 0), p(Rating::default(), 1, 1)]).unwrap();
    assert_eq!(new[0].rating.round(), 1662.0);
    assert_eq!(new[0].deviation.round(), 290.0);
    assert_eq!(new[1].rating.round(), 1338.0);
    assert_eq!(new[1].deviation.round(), 290.0);
    assert!(close(new[0].volatility, 0.059_999_675_372_338_14, 1e-15));
}

/// One game of the fixed sequence: who plays, on which side, which place.
struct Game {
    /// (player, side, place)
    seats: Vec<(usize, usize, usize)>,
}

/// The reference computation: `skillratings` called directly.
fn reference(before: &[Rating], seats: &[(usize, usize, usize)]) -> Vec<Rating> {
    if seats.len() == 2 && seats[0].1 != seats[1].1 {
        let (a, b) = (before[seats[0].0], before[seats[1].0]);
        let outcome = match seats[0].2.cmp(&seats[1].2) {
            std::cmp::Ordering::Less => Outcomes::WIN,
            std::cmp::Ordering::Equal => Outcomes::DRAW,
            std::cmp::Ordering::Greater => Outcomes::LOSS,
        };
        let config = Glicko2Config {
            tau: 0.5,
            convergence_tolerance: 0.000_001,
        };
        let (na, nb) = glicko2(&a.glicko2(), &b.glicko2(), &outcome, &config);
        return vec![
            r(na.rating, na.deviation, na.volatility),
            r(nb.rating, nb.deviation, nb.volatility),
        ];
    }
    let mut sides: Vec<usize> = Vec::new();
    for s in seats {
        if !sides.contains(&s.1) {
            sides.push(s.1);
        }
    }
    let teams: Vec<Vec<WengLinRating>> = sides
        .iter()
        .map(|&side| {
            seats
                .iter()
                .filter(|s| s.1 == side)
                .map(|s| WengLinRating {
                    rating: before[s.0].rating,
                    uncertainty: before[s.0].deviation,
                })
                .collect()
        })
        .collect();
    let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = sides
        .iter()
        .zip(&teams)
        .map(|(&side, team)| {
            let place = seats.iter().find(|s| s.1 == side).map_or(0, |s| s.2);
            (team.as_slice(), MultiTeamOutcome::new(place + 1))
        })
        .collect();
    let config = WengLinConfig {
        beta: 175.0,
        uncertainty_tolerance: 0.000_001,
    };
    let after = weng_lin_multi_team(&ranked, &config);
    let mut out = Vec::new();
    for s in seats {
        let t = sides.iter().position(|&x| x == s.1).unwrap();
        let k = seats
            .iter()
            .filter(|x| x.1 == s.1)
            .position(|x| x.0 == s.0)
            .unwrap();
        let w = after[t][k];
        out.push(r(w.rating, w.uncertainty, before[s.0].volatility));
    }
    out
}

/// A fixed sequence of games among five players (duels, a draw, three
/// alone, two and three teams of two, a tie for first) gives exactly the
/// ratings that `skillratings`' functions give, game after game.
#[test]
fn a_fixed_sequence_gives_exactly_the_reference_ratings() {
    let games = [
        Game {
            seats: vec![(0, 0, 0), (1, 1, 1)],
        },
        Game {
            seats: vec![(2, 0, 1), (0, 1, 0)],
        },
        Game {
            seats: vec![(1, 0, 0), (2, 1, 0)],
        },
        Game {
            seats: vec![(0, 0, 2), (1, 1, 0), (2, 2, 1)],
        },
        Game {
            seats: vec![(0, 0, 1), (1, 1, 0), (2, 0, 1), (3, 1, 0)],
        },
        Game {
            seats: vec![(4, 7, 0), (3, 7, 0), (2, 3, 1), (1, 3, 1)],
        },
        Game {
            seats: vec![(0, 0, 0), (1, 1, 0), (2, 2, 1), (3, 3, 2)],
        },
        Game {
            seats: vec![(3, 1, 1), (4, 0, 0)],
        },
    ];
    let mut ours = vec![Rating::default(); 5];
    let mut theirs = vec![Rating::default(); 5];
    for g in &games {
        let players: Vec<Participant> = g
            .seats
            .iter()
            .map(|&(who, side, place)| p(ours[who], side, place))
            .collect();
        let new = rate(&players).unwrap();
        let expected = reference(&theirs, &g.seats);
        for ((&(who, _, _), n), e) in g.seats.iter().zip(new).zip(expected) {
            ours[who] = n;
            theirs[who] = e;
        }
        assert_eq!(ours, theirs);
    }
    // The sequence moved everyone, and the numbers are pinned.
    let labels: Vec<String> = ours.iter().map(Rating::label).collect();
    assert!(ours.iter().all(|r| r.deviation < 350.0), "{ours:?}");
    assert_eq!(labels, ["1621?", "1641?", "1295?", "1191?", "1655?"]);
}

/// Weng-Lin on our scale is Weng-Lin's own scale times 42 around 1500:
/// a newcomer is 1500 ± 350 as in Glicko-2, so both read alike.
#[test]
fn weng_lin_is_on_glickos_scale() {
    let default = WengLinRating::new();
    let theirs = weng_lin_multi_team(
        &[
            (&[default][..], MultiTeamOutcome::new(2)),
            (&[default][..], MultiTeamOutcome::new(1)),
            (&[default][..], MultiTeamOutcome::new(3)),
        ],
        &WengLinConfig::new(),
    );
    let ours = rate(&[
        p(Rating::default(), 0, 1),
        p(Rating::default(), 1, 0),
        p(Rating::default(), 2, 2),
    ])
    .unwrap();
    for (o, t) in ours.iter().zip(&theirs) {
        assert!(close(o.rating, 1500.0 + 42.0 * (t[0].rating - 25.0), 1e-9));
        assert!(close(o.deviation, 42.0 * t[0].uncertainty, 1e-9));
        assert_eq!(o.volatility, START_VOLATILITY);
    }
    assert!(ours[1].rating > ours[0].rating && ours[0].rating > ours[2].rating);
}

#[test]
fn provisional_above_110() {
    assert!(Rating::default().provisional());
    assert_eq!(Rating::default().label(), "1500?");
    assert!(!r(1540.4, 110.0, 0.06).provisional());
    assert_eq!(r(1540.4, 110.0, 0.06).label(), "1540");
    assert!(r(1540.6, 110.01, 0.06).provisional());
    assert_eq!(r(1540.6, 110.01, 0.06).label(), "1541?");
    assert_eq!(r(-0.2, 60.0, 0.06).label(), "-0");
}

#[test]
fn idleness_grows_the_deviation_as_decay_deviation_does_up_to_350() {
    let start = r(1720.0, 45.0, 0.06);
    // Whole days: exactly what skillratings' decay gives, a period a day.
    let mut decayed = start.glicko2();
    for day in 1..=400 {
        decayed = decay_deviation(&decayed);
        let ours = start.after_idle(day * 86_400);
        assert!(
            close(ours.deviation, decayed.deviation, 1e-9),
            "day {day}: {ours:?} {decayed:?}"
        );
        assert_eq!(ours.rating, start.rating);
        assert_eq!(ours.volatility, start.volatility);
    }
    // Monotone, continuous within a day, capped.
    let mut last = start.deviation;
    for hours in 0..(24 * 5_000) {
        let d = start.after_idle(hours * 3_600).deviation;
        assert!(
            d >= last && d <= MAX_DEVIATION,
            "{hours} h: {d} after {last}"
        );
        last = d;
    }
    assert_eq!(last, MAX_DEVIATION);
    assert_eq!(start.after_idle(i64::MAX).deviation, MAX_DEVIATION);
    // A month idle: still trusted; provisional again after about 100 days.
    assert!(!start.after_idle(30 * 86_400).provisional());
    assert!(start.after_idle(100 * 86_400).provisional());
    // No time, or a clock set back: nothing changes.
    assert_eq!(start.after_idle(0), start);
    assert_eq!(start.after_idle(-86_400), start);
    // Above the cap already: left alone, not lowered.
    assert_eq!(r(1500.0, 400.0, 0.06).after_idle(86_400).deviation, 400.0);
}

#[test]
fn an_abandoner_who_won_still_loses_rating_and_the_other_is_rated_normally() {
    let ann = r(1600.0, 80.0, 0.06);
    let bob = r(1550.0, 90.0, 0.06);
    let game = [
        Participant {
            abandoned: true,
            ..p(ann, 0, 0)
        },
        p(bob, 1, 1),
    ];
    let new = rate(&game).unwrap();
    assert!(new[0].rating < ann.rating, "{new:?}");
    // Ann as if she had lost; Bob as he played: a loss to Ann.
    let as_loss = rate(&[p(ann, 0, 1), p(bob, 1, 0)]).unwrap();
    let as_played = rate(&[p(ann, 0, 0), p(bob, 1, 1)]).unwrap();
    assert_eq!(new[0], as_loss[0]);
    assert_eq!(new[1], as_played[1]);
    // Both left: both lose.
    let both = rate(&[
        Participant {
            abandoned: true,
            ..p(ann, 0, 0)
        },
        Participant {
            abandoned: true,
            ..p(bob, 1, 1)
        },
    ])
    .unwrap();
    assert!(both[0].rating < ann.rating && both[1].rating < bob.rating);
}

#[test]
fn an_abandoner_among_teams_loses_alone() {
    // Classic for 6: three teams of two; team 1 (players 2 and 3) won, but
    // player 2 had left.
    let players: Vec<Participant> = (0..6)
        .map(|i| {
            p(
                r(1500.0 + 10.0 * i as f64, 120.0, 0.06),
                i / 2,
                [1, 0, 2][i / 2],
            )
        })
        .collect();
    let normal = rate(&players).unwrap();
    let mut with_leaver = players.clone();
    with_leaver[2].abandoned = true;
    let new = rate(&with_leaver).unwrap();
    assert!(new[2].rating < players[2].rating.rating, "{new:?}");
    assert!(new[3].rating > players[3].rating.rating, "{new:?}");
    for i in [0, 1, 3, 4, 5] {
        assert_eq!(new[i], normal[i], "player {i}");
    }
    // Player 2's rating is that of the game with team 1 after team 2.
    let mut last = players.clone();
    last[2].place = 3;
    last[3].place = 3;
    assert_eq!(new[2], rate(&last).unwrap()[2]);
}

#[test]
fn refusals() {
    let d = Rating::default();
    assert_eq!(rate(&[]), Err(RateError::TooFewSides(0)));
    assert_eq!(rate(&[p(d, 0, 0)]), Err(RateError::TooFewSides(1)));
    assert_eq!(
        rate(&[p(d, 3, 0), p(d, 3, 0)]),
        Err(RateError::TooFewSides(1))
    );
    assert!(matches!(
        rate(&[p(d, 0, 0), p(d, 0, 1), p(d, 1, 2)]),
        Err(RateError::SplitSide { side: 0, .. })
    ));
    let nan = r(f64::NAN, 350.0, 0.06);
    let e = rate(&[p(d, 0, 0), p(nan, 1, 1)]).unwrap_err();
    assert!(matches!(
        e,
        RateError::NotFinite {
            player: 1,
            what: "rating",
            ..
        }
    ));
    assert!(e.to_string().contains("not a number"), "{e}");
    let inf = r(1500.0, f64::INFINITY, 0.06);
    assert!(matches!(
        rate(&[p(inf, 0, 0), p(d, 1, 1)]),
        Err(RateError::NotFinite {
            player: 0,
            what: "deviation",
            ..
        })
    ));
    let zero = r(1500.0, 0.0, 0.06);
    assert!(matches!(
        rate(&[p(zero, 0, 0), p(d, 1, 1)]),
        Err(RateError::OutOfRange {
            player: 0,
            what: "deviation",
            ..
        })
    ));
    let far = r(1e9, 100.0, 0.06);
    assert!(matches!(
        rate(&[p(d, 0, 0), p(d, 1, 1), p(far, 2, 2)]),
        Err(RateError::OutOfRange {
            player: 2,
            what: "rating",
            ..
        })
    ));
    let still = r(1500.0, 100.0, 0.0);
    assert!(matches!(
        rate(&[p(d, 0, 0), p(still, 1, 1)]),
        Err(RateError::OutOfRange {
            player: 1,
            what: "volatility",
            ..
        })
    ));
}

#[test]
fn categories_round_trip() {
    let ids: Vec<String> = Category::ALL.iter().map(|c| c.id()).collect();
    assert_eq!(
        ids,
        [
            "mille-bsd",
            "mille-milebones",
            "mille-classic-2",
            "mille-classic-3",
            "mille-classic-4",
            "mille-classic-6",
            "cubes-standard",
            "cubes-blitz",
            "cubes-jokers"
        ]
    );
    for c in Category::ALL {
        assert_eq!(Category::parse(&c.id()), Some(c));
        assert_eq!(
            Category::from_request(c.game(), Some(c.rules()), c.players()),
            Ok(c)
        );
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, format!("\"{}\"", c.id()));
        assert_eq!(serde_json::from_str::<Category>(&json).unwrap(), c);
        assert_eq!(c.to_string(), c.id());
        assert!(c.title().starts_with(if c.game() == "mille" {
            "Mille Bornes, "
        } else {
            "Cubes, "
        }));
    }
    assert_eq!(
        Category::MilleClassic(4).title(),
        "Mille Bornes, classic, 4 players"
    );
    assert_eq!(Category::CubesJokers.title(), "Cubes, with jokers");
    assert_eq!(Category::MilleBsd.title(), "Mille Bornes, bsd");
    for bad in [
        "",
        "mille",
        "mille-classic-5",
        "mille-classic-",
        "Cubes-standard",
    ] {
        assert_eq!(Category::parse(bad), None, "{bad}");
    }
    assert!(serde_json::from_str::<Category>("\"mille-classic-5\"").is_err());
    // Defaults: the game's first rules, 2 players; cubes ignores the size.
    assert_eq!(
        Category::from_request("mille", None, None),
        Ok(Category::MilleBsd)
    );
    assert_eq!(
        Category::from_request("mille", Some("classic"), None),
        Ok(Category::MilleClassic(2))
    );
    assert_eq!(
        Category::from_request("cubes", None, Some(5)),
        Ok(Category::CubesStandard)
    );
}

#[test]
fn category_refusals_are_sentences() {
    for (game, rules, players, says) in [
        (
            "chess",
            None,
            None,
            "there is no game \"chess\": mille or cubes",
        ),
        (
            "mille",
            Some("bsd"),
            Some(4),
            "the bsd rules are for exactly 2 players; 4 players play the classic rules",
        ),
        (
            "mille",
            Some("milebones"),
            Some(3),
            "the milebones rules are for exactly 2 players; 3 players play the classic rules",
        ),
        (
            "mille",
            Some("classic"),
            Some(5),
            "Mille Bornes is played by 2, 3, 4 or 6 players, not 5",
        ),
        (
            "mille",
            Some("jokers"),
            None,
            "mille has no rules \"jokers\": bsd, classic or milebones",
        ),
        (
            "cubes",
            Some("bsd"),
            None,
            "cubes has no rules \"bsd\": standard, blitz or jokers",
        ),
    ] {
        assert_eq!(
            Category::from_request(game, rules, players),
            Err(says.to_string())
        );
    }
}

#[test]
fn computer_names_round_trip() {
    assert_eq!(computer_name("classic"), "computer: classic");
    assert_eq!(computer_level("computer: steady"), Some("steady"));
    assert_eq!(computer_level(&computer_name("normal")), Some("normal"));
    assert_eq!(computer_level("ann"), None);
    assert_eq!(computer_level("computer: "), None);
    assert_eq!(computer_level("computer:classic"), None);
}

#[test]
fn people_start_at_the_default_and_computers_at_their_calibration() {
    for c in Category::ALL {
        assert_eq!(starting(c, "ann"), Rating::default());
        assert_eq!(starting(c, "computer: nobody"), Rating::default());
        // A person who calls themselves after a level is still a person
        // unless the name is the computer's.
        assert_eq!(starting(c, "classic"), Rating::default());
    }
    for cal in CALIBRATED {
        let mut seen = 0;
        for c in Category::ALL.into_iter().filter(|c| c.game() == cal.game) {
            let s = starting(c, &computer_name(cal.level));
            assert_eq!(s.rating, cal.rating);
            assert_eq!(s.deviation, cal.deviation.max(COMPUTER_MIN_DEVIATION));
            assert!(s.deviation >= COMPUTER_MIN_DEVIATION && !s.provisional());
            seen += 1;
        }
        assert!(seen >= 3, "{cal:?}");
    }
}

/// Every built-in level of both games has a calibrated rating, ordered
/// as the levels are by strength where that is known for certain.
#[test]
fn every_level_is_calibrated() {
    let get = |game: &str, level: &str| {
        CALIBRATED
            .iter()
            .find(|c| c.game == game && c.level == level)
            .map(|c| c.rating)
    };
    for level in ["random", "classic", "easy", "normal"] {
        assert!(get("mille", level).is_some(), "mille {level}");
    }
    for level in ["cautious", "steady", "bold", "reckless", "optimal"] {
        assert!(get("cubes", level).is_some(), "cubes {level}");
    }
    // Orders the head-to-head results leave no doubt about.
    assert!(get("mille", "random") < get("mille", "classic"));
    assert!(get("mille", "classic") < get("mille", "easy"));
    assert!(get("mille", "easy") < get("mille", "normal"));
    assert!(get("cubes", "reckless") < get("cubes", "cautious"));
    assert!(get("cubes", "steady") < get("cubes", "optimal"));
    assert_eq!(CALIBRATED.len(), 9);
}

fn any_rating() -> impl Strategy<Value = Rating> {
    (-1_000.0..4_000.0f64, 1.0..1_000.0f64, 1e-6..1.0f64).prop_map(|(a, b, c)| r(a, b, c))
}

proptest! {
    /// Any game the ranges allow is rated without a panic, into finite
    /// ratings, one per player.
    #[test]
    fn random_games_give_finite_ratings(
        seats in prop::collection::vec((any_rating(), 0usize..5, any::<bool>()), 0..10),
        places in prop::collection::vec(0usize..4, 5),
    ) {
        let players: Vec<Participant> = seats
            .iter()
            .map(|&(rating, side, abandoned)| Participant { rating, side, place: places[side], abandoned })
            .collect();
        let sides = {
            let mut s: Vec<usize> = seats.iter().map(|x| x.1).collect();
            s.sort_unstable();
            s.dedup();
            s.len()
        };
        match rate(&players) {
            Ok(new) => {
                prop_assert!(sides >= 2);
                prop_assert_eq!(new.len(), players.len());
                for n in new {
                    prop_assert!(n.rating.is_finite() && n.deviation.is_finite() && n.volatility.is_finite(), "{:?}", n);
                    prop_assert!(n.deviation > 0.0);
                }
            }
            Err(e) => prop_assert!(sides < 2 || matches!(e, RateError::Overflow(_)), "{}", e),
        }
    }

    /// Any numbers at all, however wild: an answer, never a panic.
    #[test]
    fn wild_numbers_never_panic(
        seats in prop::collection::vec((any::<f64>(), any::<f64>(), any::<f64>(), 0usize..4, 0usize..4, any::<bool>()), 0..8),
    ) {
        let players: Vec<Participant> = seats
            .iter()
            .map(|&(a, b, c, side, place, abandoned)| Participant { rating: r(a, b, c), side, place, abandoned })
            .collect();
        if let Ok(new) = rate(&players) {
            prop_assert!(new.iter().all(|n| n.is_finite()));
        }
    }

    /// Idleness never lowers a deviation nor takes it past the cap.
    #[test]
    fn idleness_is_monotone(dev in 1.0..350.0f64, vol in 1e-6..1.0f64, a in 0i64..1_000_000_000, b in 0i64..1_000_000_000) {
        let x = r(1500.0, dev, vol);
        let (short, long) = (a.min(b), a.max(b));
        let ds = x.after_idle(short).deviation;
        let dl = x.after_idle(long).deviation;
        prop_assert!(dev <= ds && ds <= dl && dl <= MAX_DEVIATION);
    }
}
