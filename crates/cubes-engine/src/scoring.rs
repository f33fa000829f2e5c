//! Scoring: which sets of dice score, what they are worth, and which keeps a
//! roll allows.
//!
//! Decided rules (`rules.md`, `cubes` section): a player keeps any non-empty
//! set of the rolled dice in which every die scores; the kept dice are scored
//! as a roll of their own, the best way (three Ones are 1000, never three
//! single Ones; 1-2-3-4-5 kept at once is the 1500 straight). Only five of a
//! kind and the straight may combine kept dice with dice held from earlier
//! rolls of the same cycle; the points the held dice earned are then given up
//! ("forgotten") and the combination is scored on all five dice (five of a
//! kind at face x 300, a straight completed with held dice at 750).

use crate::dice::{DiceMask, Face};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A scoring combination of the man page.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Combo {
    /// All five dice the same face: face value x 300. May use held dice.
    FiveOfAKind(Face),
    /// Four rolled dice the same face: face value x 200.
    FourOfAKind(Face),
    /// Three rolled dice the same face: face value x 100.
    ThreeOfAKind(Face),
    /// 1-2-3-4-5 or 2-3-4-5-6 rolled at once: 1500.
    Straight,
    /// A straight completed with held dice: 750.
    HeldStraight,
    /// Four rolled dice in sequence: 400.
    SmallStraight,
    /// A One not part of another combination: 100.
    SingleOne,
    /// A Five not part of another combination: 50.
    SingleFive,
    /// A Joker not part of another combination: scores, but 0 points.
    SingleJoker,
}

impl Combo {
    /// Points the combination is worth.
    pub fn points(self) -> u32 {
        match self {
            Combo::FiveOfAKind(f) => f.face_value() * 300,
            Combo::FourOfAKind(f) => f.face_value() * 200,
            Combo::ThreeOfAKind(f) => f.face_value() * 100,
            Combo::Straight => 1500,
            Combo::HeldStraight => 750,
            Combo::SmallStraight => 400,
            Combo::SingleOne => 100,
            Combo::SingleFive => 50,
            Combo::SingleJoker => 0,
        }
    }

    /// Whether this combination includes dice held from earlier rolls.
    pub fn uses_held_dice(self) -> bool {
        matches!(self, Combo::HeldStraight)
    }
}

impl fmt::Display for Combo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Combo::FiveOfAKind(x) => write!(f, "five {}s", plural_face(*x)),
            Combo::FourOfAKind(x) => write!(f, "four {}s", plural_face(*x)),
            Combo::ThreeOfAKind(x) => write!(f, "three {}s", plural_face(*x)),
            Combo::Straight => f.write_str("straight"),
            Combo::HeldStraight => f.write_str("straight with held dice"),
            Combo::SmallStraight => f.write_str("small straight"),
            Combo::SingleOne => f.write_str("One"),
            Combo::SingleFive => f.write_str("Five"),
            Combo::SingleJoker => f.write_str("Joker"),
        }
    }
}

fn plural_face(f: Face) -> String {
    match f {
        Face::Six => "Sixe".to_string(),
        other => other.to_string(),
    }
}

/// Up to five combinations, without allocating.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Combos {
    items: [Option<Combo>; 5],
    len: u8,
}

impl Combos {
    fn push(&mut self, c: Combo) {
        if let Some(slot) = self.items.get_mut(usize::from(self.len)) {
            *slot = Some(c);
            self.len += 1;
        }
    }

    /// The combinations, biggest first.
    pub fn iter(&self) -> impl Iterator<Item = Combo> + '_ {
        self.items.iter().flatten().copied()
    }

    /// Sum of their points.
    pub fn points(&self) -> u32 {
        self.iter().map(Combo::points).sum()
    }

    /// How many combinations.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl fmt::Display for Combos {
    /// `three Ones (1000) + Five (50)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(" + ")?;
            }
            write!(f, "{c} ({})", c.points())?;
        }
        Ok(())
    }
}

/// Counts of each face, indexed by [`Face::index`] (slot 0 unused).
pub type Counts = [u8; 8];

/// Counts the faces of a slice.
pub fn counts(faces: &[Face]) -> Counts {
    let mut c = [0u8; 8];
    for f in faces {
        c[f.index()] += 1;
    }
    c
}

impl Combos {
    /// Biggest combination first, as a player would announce them.
    fn sorted(mut self) -> Combos {
        self.items
            .sort_by_key(|c| std::cmp::Reverse(c.map_or(0, |c| c.points() + 1)));
        self
    }
}

fn single(face_index: usize) -> Option<Combo> {
    match face_index {
        1 => Some(Combo::SingleOne),
        5 => Some(Combo::SingleFive),
        7 => Some(Combo::SingleJoker),
        _ => None,
    }
}

/// Scores a set of dice as a roll of its own, the best way, requiring every
/// die to score. `None` when the set is empty or some die cannot score.
///
/// Works on face counts: a five-die straight is only ever the straight; else
/// the best of (a) each face with three or more dice as one N-of-a-kind and
/// the rest as single Ones, Fives and Jokers, and (b) a small straight plus
/// singles. Splitting an N-of-a-kind never pays (four Ones 2000 > three Ones
/// plus a One 1100), and a small straight cannot share five dice with three of
/// a kind, so these are all the candidates.
pub fn score_roll(faces: &[Face]) -> Option<Combos> {
    score_counts(&counts(faces), faces.len())
}

/// [`score_roll`] on counts (`n` = number of dice).
pub fn score_counts(c: &Counts, n: usize) -> Option<Combos> {
    if n == 0 || n > 5 {
        return None;
    }
    if n == 5 && (c[1..=5].iter().all(|&k| k == 1) || c[2..=6].iter().all(|&k| k == 1)) {
        let mut out = Combos::default();
        out.push(Combo::Straight);
        return Some(out);
    }
    let mut best: Option<Combos> = None;
    let mut consider = |cand: Combos| {
        if best.is_none_or(|b| cand.points() > b.points()) {
            best = Some(cand.sorted());
        }
    };
    // (a) N of a kind plus singles.
    'kinds: {
        let mut out = Combos::default();
        for (f, &k) in c.iter().enumerate().skip(1) {
            let face = Face::ALL[f - 1];
            match k {
                5 => out.push(Combo::FiveOfAKind(face)),
                4 => out.push(Combo::FourOfAKind(face)),
                3 => out.push(Combo::ThreeOfAKind(face)),
                _ => {
                    for _ in 0..k {
                        match single(f) {
                            Some(s) => out.push(s),
                            None => break 'kinds,
                        }
                    }
                }
            }
        }
        consider(out);
    }
    // (b) a small straight plus singles.
    for start in 1..=3 {
        if c[start..start + 4].iter().all(|&k| k >= 1) {
            let mut rest = *c;
            for slot in &mut rest[start..start + 4] {
                *slot -= 1;
            }
            let mut out = Combos::default();
            out.push(Combo::SmallStraight);
            let mut ok = true;
            for (f, &k) in rest.iter().enumerate() {
                for _ in 0..k {
                    match single(f) {
                        Some(s) => out.push(s),
                        None => ok = false,
                    }
                }
            }
            if ok {
                consider(out);
            }
        }
    }
    best
}

/// What each die a player keeps must be, as the end of a sentence: every
/// kind of [`Combo`] a game with (or without) Jokers dice can score.
pub fn what_scores(jokers: bool) -> String {
    format!(
        "a One, a Five, {}or part of three or more of a kind, a small straight or a straight",
        if jokers { "a Joker, " } else { "" }
    )
}

/// Whether all five faces form a straight (1-5 or 2-6).
pub fn is_straight(c: &Counts) -> bool {
    c[1..=5].iter().all(|&k| k == 1) || c[2..=6].iter().all(|&k| k == 1)
}

/// The outcome of keeping a set of rolled dice.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Keep {
    /// Which of the five dice are kept.
    pub mask: DiceMask,
    /// The combinations scored by this keep.
    pub combos: Combos,
    /// Points earned by these combinations.
    pub points: u32,
    /// Points of held dice given up because they joined a five of a kind or
    /// a straight (0 otherwise).
    pub forgotten: u32,
}

impl Keep {
    /// What the keep adds to the turn total (may be less than `points`).
    pub fn gain(&self) -> i64 {
        i64::from(self.points) - i64::from(self.forgotten)
    }
}

/// Scores keeping `kept` (faces of rolled dice) when `held` dice (worth
/// `held_points` this cycle) are already set aside and `rolled` dice were
/// rolled. The best of scoring the kept dice on their own and, when they are
/// all the rolled dice and complete five dice with the held ones, a five of a
/// kind or straight with the held dice. `None` if the keep is not allowed.
pub fn score_keep(held: &[Face], held_points: u32, kept: &[Face], rolled: usize) -> Option<Keep> {
    let own = score_roll(kept).map(|combos| Keep {
        mask: DiceMask::EMPTY,
        combos,
        points: combos.points(),
        forgotten: 0,
    });
    let combined = if !held.is_empty() && kept.len() == rolled && held.len() + kept.len() == 5 {
        let mut c = counts(held);
        for f in kept {
            c[f.index()] += 1;
        }
        let combo = if let Some(f) = (1..=7).find(|&f| c[f] == 5) {
            Some(Combo::FiveOfAKind(Face::ALL[f - 1]))
        } else if is_straight(&c) {
            Some(Combo::HeldStraight)
        } else {
            None
        };
        combo.map(|combo| {
            let mut combos = Combos::default();
            combos.push(combo);
            Keep {
                mask: DiceMask::EMPTY,
                combos,
                points: combo.points(),
                forgotten: held_points,
            }
        })
    } else {
        None
    };
    match (own, combined) {
        (Some(a), Some(b)) => Some(if b.gain() > a.gain() { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// Every allowed keep of the rolled dice (`rolled` mask over `dice`), given
/// the held dice (`held` mask) worth `held_points`. At most 31 entries.
pub fn valid_keeps(
    dice: &[Face; 5],
    held: DiceMask,
    held_points: u32,
    rolled: DiceMask,
) -> impl Iterator<Item = Keep> + '_ {
    // Fixed buffers: listing the legal actions never allocates.
    let (held_buf, held_n) = faces_of(dice, held);
    rolled.subsets().filter_map(move |m| {
        let (kept, kept_n) = faces_of(dice, m);
        score_keep(
            &held_buf[..held_n],
            held_points,
            &kept[..kept_n],
            rolled.len(),
        )
        .map(|k| Keep { mask: m, ..k })
    })
}

/// The faces of the dice in `mask`, in a fixed buffer, and how many.
pub fn faces_of(dice: &[Face; 5], mask: DiceMask) -> ([Face; 5], usize) {
    let mut buf = [Face::One; 5];
    let mut n = 0;
    for i in mask.positions() {
        buf[n] = dice[i];
        n += 1;
    }
    (buf, n)
}

/// The keep that adds the most to the turn (ties: fewest dice kept, so the
/// most dice are rolled next), or `None` when the roll scores nothing.
pub fn best_keep(
    dice: &[Face; 5],
    held: DiceMask,
    held_points: u32,
    rolled: DiceMask,
) -> Option<Keep> {
    top_keep(dice, held, held_points, rolled, |k, b| {
        k.gain() > b.gain() || (k.gain() == b.gain() && k.mask.len() < b.mask.len())
    })
}

/// The keep of every scoring die: the allowed keep with the most dice
/// (ties: the most points, then the first found), or `None` when the roll
/// scores nothing. This is what "pick all scoring dice" means: unlike
/// [`best_keep`], it keeps a lone Joker (0 points) too, which matters when
/// that makes all five dice score and earns a fresh roll of five.
pub fn all_scoring_keep(
    dice: &[Face; 5],
    held: DiceMask,
    held_points: u32,
    rolled: DiceMask,
) -> Option<Keep> {
    top_keep(dice, held, held_points, rolled, |k, b| {
        (k.mask.len(), k.gain()) > (b.mask.len(), b.gain())
    })
}

/// The allowed keep that `better(new, best so far)` puts on top, the first
/// found on a tie, or `None` when the roll scores nothing: the one search
/// behind [`best_keep`] and [`all_scoring_keep`], which differ only in what
/// "better" means.
fn top_keep(
    dice: &[Face; 5],
    held: DiceMask,
    held_points: u32,
    rolled: DiceMask,
    better: impl Fn(&Keep, &Keep) -> bool,
) -> Option<Keep> {
    valid_keeps(dice, held, held_points, rolled).reduce(|b, k| if better(&k, &b) { k } else { b })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Face::*;

    fn pts(f: &[Face]) -> Option<u32> {
        score_roll(f).map(|c| c.points())
    }

    #[test]
    fn what_scores_names_every_combination_of_the_game() {
        // Exhaustive: a new combination must be named here and there.
        let named = |c: Combo| match c {
            Combo::FiveOfAKind(_) | Combo::FourOfAKind(_) | Combo::ThreeOfAKind(_) => {
                "three or more of a kind"
            }
            Combo::Straight | Combo::HeldStraight => "or a straight",
            Combo::SmallStraight => "a small straight",
            Combo::SingleOne => "a One",
            Combo::SingleFive => "a Five",
            Combo::SingleJoker => "a Joker",
        };
        let all = [
            Combo::FiveOfAKind(Two),
            Combo::FourOfAKind(Two),
            Combo::ThreeOfAKind(Two),
            Combo::Straight,
            Combo::HeldStraight,
            Combo::SmallStraight,
            Combo::SingleOne,
            Combo::SingleFive,
            Combo::SingleJoker,
        ];
        for c in all {
            assert!(what_scores(true).contains(named(c)), "{c:?}");
            let plain = what_scores(false);
            assert_eq!(
                plain.contains(named(c)),
                c != Combo::SingleJoker,
                "{c:?} in {plain}"
            );
        }
    }

    #[test]
    fn man_page_examples() {
        assert_eq!(pts(&[One, One, One]), Some(1000));
        assert_eq!(pts(&[One, One, One, One, One]), Some(3000));
        assert_eq!(pts(&[Six, Six, Six, Six]), Some(1200));
        assert_eq!(pts(&[One, Two, Three, Four, Five]), Some(1500));
        assert_eq!(pts(&[Six, Two, Three, Four, Five]), Some(1500));
        assert_eq!(pts(&[Three, Four, Five, Six]), Some(400));
        assert_eq!(pts(&[Three, Four, Five, Six, Five]), Some(450));
        assert_eq!(pts(&[One, Two, Three, Four, One]), Some(500));
        assert_eq!(pts(&[One, Five]), Some(150));
        assert_eq!(pts(&[Joker]), Some(0));
        assert_eq!(pts(&[Joker, Joker, Joker]), Some(3000));
        assert_eq!(pts(&[Joker, Joker, Joker, Joker]), Some(6000));
        assert_eq!(pts(&[Joker; 5]), Some(9000));
        assert_eq!(pts(&[Two]), None);
        assert_eq!(pts(&[One, Two]), None);
        assert_eq!(pts(&[Two, Three, Four]), None);
        assert_eq!(pts(&[]), None);
    }

    #[test]
    fn five_of_a_kind_with_held_dice_forgets_their_points() {
        // Three Twos held (200), the two rolled dice come up Twos.
        let k = score_keep(&[Two, Two, Two], 200, &[Two, Two], 2).expect("scores");
        assert_eq!(k.points, 600);
        assert_eq!(k.forgotten, 200);
        assert_eq!(k.gain(), 400);
        // Four Ones held (2000): a fifth One is worth more as five Ones.
        let k = score_keep(&[One; 4], 2000, &[One], 1).expect("scores");
        assert_eq!((k.points, k.forgotten), (3000, 2000));
    }

    #[test]
    fn straight_completed_with_held_dice_is_750() {
        let k = score_keep(&[One, Five], 150, &[Two, Three, Four], 3).expect("scores");
        assert_eq!(k.combos.iter().next(), Some(Combo::HeldStraight));
        assert_eq!(k.gain(), 600);
        // Only when the kept dice are all the rolled dice.
        assert_eq!(score_keep(&[One, Five], 150, &[Two, Three], 3), None);
        // A small straight never combines with held dice.
        assert_eq!(score_keep(&[Two], 0, &[Three, Four, Five], 4), None);
    }

    #[test]
    fn best_keep_prefers_points_then_more_dice_to_roll() {
        let dice = [One, One, One, Five, Two];
        let k = best_keep(&dice, DiceMask::EMPTY, 0, DiceMask::ALL).expect("scores");
        assert_eq!(k.points, 1050);
        assert_eq!(k.mask, DiceMask::of(&[0, 1, 2, 3]));
        let none = best_keep(
            &[Two, Three, Four, Six, Six],
            DiceMask::EMPTY,
            0,
            DiceMask::ALL,
        );
        assert_eq!(none, None);
    }

    #[test]
    fn all_scoring_keep_takes_a_lone_joker_too() {
        // The audit's roll: 3 5 4 2 J. The best keep by points is the small
        // straight alone (400, one die to roll); every scoring die includes
        // the Joker, so all five score and all five roll again.
        let dice = [Three, Five, Four, Two, Joker];
        let best = best_keep(&dice, DiceMask::EMPTY, 0, DiceMask::ALL).expect("scores");
        assert_eq!(best.mask.len(), 4);
        let all = all_scoring_keep(&dice, DiceMask::EMPTY, 0, DiceMask::ALL).expect("scores");
        assert_eq!(all.mask, DiceMask::ALL);
        assert_eq!(all.points, 400);
        // Every scoring die, not only the most valuable ones.
        let all = all_scoring_keep(
            &[One, One, One, Five, Two],
            DiceMask::EMPTY,
            0,
            DiceMask::ALL,
        )
        .expect("scores");
        assert_eq!((all.mask, all.points), (DiceMask::of(&[0, 1, 2, 3]), 1050));
        // Only among the rolled dice; held dice stay held.
        let all = all_scoring_keep(
            &[One, Five, Two, Two, Six],
            DiceMask::of(&[0]),
            100,
            DiceMask::of(&[1, 2, 3, 4]),
        )
        .expect("scores");
        assert_eq!(all.mask, DiceMask::of(&[1]));
        assert_eq!(
            all_scoring_keep(
                &[Two, Three, Four, Six, Six],
                DiceMask::EMPTY,
                0,
                DiceMask::ALL
            ),
            None
        );
    }
}
