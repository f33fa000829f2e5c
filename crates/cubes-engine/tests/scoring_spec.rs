//! The scorer against an independent specification.
//!
//! The specification below is written straight from the man page and shares
//! no code with `cubes_engine::scoring`: it enumerates every way of cutting
//! the kept dice into blocks (set partitions), accepts a cut only when each
//! block is a combination listed in the man page, and takes the best total.
//! Every ordinary roll of 1 to 5 dice (6 + 36 + ... + 7776 rolls) and every
//! Jokers roll (13-sided dice, 7 faces) is checked.

use cubes_engine::{Face, score_keep, score_roll};

/// Points of one block of dice if it is a combination of the man page.
fn block_points(block: &[u8]) -> Option<u32> {
    // Face value: ten for a One, thirty for a Joker (7), the spots otherwise.
    let face = |d: u8| match d {
        1 => 10,
        7 => 30,
        d => u32::from(d),
    };
    let mut sorted = block.to_vec();
    sorted.sort_unstable();
    let same = sorted.windows(2).all(|w| w[0] == w[1]);
    let run = sorted.iter().all(|&d| d <= 6) && sorted.windows(2).all(|w| w[1] == w[0] + 1);
    match (block.len(), same, run) {
        (1, _, _) => match block[0] {
            1 => Some(100),
            5 => Some(50),
            7 => Some(0),
            _ => None,
        },
        (3, true, _) => Some(face(block[0]) * 100),
        (4, true, _) => Some(face(block[0]) * 200),
        (5, true, _) => Some(face(block[0]) * 300),
        (4, _, true) => Some(400),
        (5, _, true) => Some(1500),
        _ => None,
    }
}

/// Best total over all set partitions of `dice` into combinations.
fn spec(dice: &[u8]) -> Option<u32> {
    fn go(dice: &[u8], i: usize, blocks: &mut Vec<Vec<u8>>, best: &mut Option<u32>) {
        if i == dice.len() {
            let total: Option<u32> = blocks.iter().map(|b| block_points(b)).sum();
            if let Some(t) = total
                && best.is_none_or(|b| t > b)
            {
                *best = Some(t);
            }
            return;
        }
        for b in 0..blocks.len() {
            blocks[b].push(dice[i]);
            go(dice, i + 1, blocks, best);
            blocks[b].pop();
        }
        blocks.push(vec![dice[i]]);
        go(dice, i + 1, blocks, best);
        blocks.pop();
    }
    if dice.is_empty() {
        return None;
    }
    let mut best = None;
    go(dice, 0, &mut Vec::new(), &mut best);
    best
}

fn all_rolls(n: usize, faces: u8) -> Vec<Vec<u8>> {
    let mut out = vec![vec![]];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|r| {
                (1..=faces).map(move |f| {
                    let mut r = r.clone();
                    r.push(f);
                    r
                })
            })
            .collect();
    }
    out
}

fn faces(r: &[u8]) -> Vec<Face> {
    r.iter()
        .map(|&d| Face::from_number(d).expect("face 1..=7"))
        .collect()
}

#[test]
fn every_ordinary_roll_of_one_to_five_dice() {
    let mut checked = 0;
    let mut scoring = [0usize; 6];
    for (n, scoring_n) in scoring.iter_mut().enumerate().skip(1) {
        for r in all_rolls(n, 6) {
            let got = score_roll(&faces(&r)).map(|c| c.points());
            assert_eq!(got, spec(&r), "roll {r:?}");
            checked += 1;
            *scoring_n += usize::from(got.is_some());
        }
    }
    assert_eq!(checked, 6 + 36 + 216 + 1296 + 7776);
    // Sanity of the spec itself, counted by hand: one die scores as 1 or 5;
    // two dice as 11 15 51 55; three dice as the 8 rolls of 1s and 5s plus
    // the four triples 222 333 444 666.
    assert_eq!(&scoring[1..4], &[2, 4, 12]);
}

#[test]
fn the_7776_five_dice_rolls_have_the_expected_totals() {
    // Independent summary figures, counted by hand from the combination list:
    // straights are 2 x 5! = 240 rolls; five of a kind 6 rolls.
    let rolls = all_rolls(5, 6);
    let straights = rolls
        .iter()
        .filter(|r| spec(r) == Some(1500) && r != &&vec![5u8; 5])
        .count();
    assert_eq!(straights, 240);
    let fives = rolls
        .iter()
        .filter(|r| r.iter().all(|&d| d == r[0]))
        .map(|r| score_roll(&faces(r)).map(|c| c.points()))
        .collect::<Vec<_>>();
    assert_eq!(
        fives,
        vec![
            Some(3000),
            Some(600),
            Some(900),
            Some(1200),
            Some(1500),
            Some(1800)
        ]
    );
}

#[test]
fn every_jokers_roll_of_one_to_five_dice() {
    let mut jokers_seen = 0;
    for n in 1..=5 {
        for r in all_rolls(n, 7) {
            let got = score_roll(&faces(&r)).map(|c| c.points());
            assert_eq!(got, spec(&r), "roll {r:?}");
            jokers_seen += usize::from(r.contains(&7));
        }
    }
    assert!(jokers_seen > 10_000);
}

#[test]
fn jokers_special_cases() {
    use Face::*;
    let p = |f: &[Face]| score_roll(f).map(|c| c.points());
    assert_eq!(p(&[Joker]), Some(0), "a lone Joker scores, for nothing");
    assert_eq!(p(&[Joker, Two]), None, "but it does not make a Two score");
    assert_eq!(p(&[Joker, Joker]), Some(0));
    assert_eq!(p(&[Joker; 3]), Some(3000));
    assert_eq!(p(&[Joker; 4]), Some(6000));
    assert_eq!(p(&[Joker; 5]), Some(9000));
    assert_eq!(
        p(&[Joker, One, Two, Three, Four]),
        Some(400),
        "small straight + a Joker worth 0"
    );
    assert_eq!(p(&[Joker, Joker, Joker, One, Five]), Some(3150));
    // Five Jokers with held Jokers: 9000, the held Jokers' 0 points forgotten.
    let k = score_keep(&[Joker, Joker], 0, &[Joker, Joker, Joker], 3).expect("scores");
    assert_eq!((k.points, k.forgotten), (9000, 0));
    let k = score_keep(&[Joker], 0, &[Joker, Joker, Joker, Joker], 4).expect("scores");
    assert_eq!(k.points, 9000, "better than four Jokers 6000");
}

/// Held-dice combinations, specified the man page's way: the five dice make a
/// five of a kind or a straight, and the held dice's points are given up.
#[test]
fn held_dice_combinations_for_every_split() {
    for held_n in 1..=4 {
        for held in all_rolls(held_n, 6) {
            for rolled in all_rolls(5 - held_n, 6) {
                let mut all = held.clone();
                all.extend(&rolled);
                let own = spec(&rolled);
                let mut sorted = all.clone();
                sorted.sort_unstable();
                let combined = if sorted.iter().all(|&d| d == sorted[0]) {
                    Some(match sorted[0] {
                        1 => 3000,
                        d => u32::from(d) * 300,
                    })
                } else if sorted.windows(2).all(|w| w[1] == w[0] + 1) {
                    Some(750)
                } else {
                    None
                };
                let held_points = 123; // any value: it is given up
                let want = match (own, combined) {
                    (Some(o), Some(c)) => Some(i64::from(o).max(i64::from(c) - 123)),
                    (Some(o), None) => Some(i64::from(o)),
                    (None, Some(c)) => Some(i64::from(c) - 123),
                    (None, None) => None,
                };
                let got = score_keep(&faces(&held), held_points, &faces(&rolled), rolled.len())
                    .map(|k| k.gain());
                assert_eq!(got, want, "held {held:?} rolled {rolled:?}");
            }
        }
    }
}
