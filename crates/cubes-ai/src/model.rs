//! The turn model the optimal player plans with: every "about to roll"
//! situation of a turn as a held-dice class, and for each class the
//! probability of every roll outcome with the keeps it allows.
//!
//! Points are counted in units of 50 (every combination is a multiple of
//! 50). Held dice matter for the future only when they could still become
//! part of a five of a kind or a straight; then the class remembers the held
//! faces and the points they earned (given up if the combination is made),
//! otherwise only how many dice are held. The scoring itself is the
//! engine's ([`cubes_engine::score_keep`]): the model never re-implements a
//! rule.

use cubes_engine::{Face, score_keep};
use std::collections::HashMap;

/// Points per model unit.
pub const UNIT: u32 = 50;

/// What the model remembers of the dice held this cycle.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HeldKey {
    /// Held dice that can still join a five of a kind or a straight: their
    /// sorted faces and the points (units) they earned.
    Combinable(Vec<Face>, u32),
    /// This many held dice that can no longer combine.
    Plain(usize),
}

impl HeldKey {
    /// The class of a set of held dice worth `points` (in points, not units).
    pub fn of(held: &[Face], points: u32) -> HeldKey {
        let mut f = held.to_vec();
        f.sort_unstable();
        if f.is_empty() {
            return HeldKey::Plain(0);
        }
        let same = f.iter().all(|&x| x == f[0]);
        let distinct = f.windows(2).all(|w| w[0] != w[1]);
        let fits = |lo: u8, hi: u8| f.iter().all(|x| (lo..=hi).contains(&x.number()));
        if same || (distinct && (fits(1, 5) || fits(2, 6))) {
            HeldKey::Combinable(f, points / UNIT)
        } else {
            HeldKey::Plain(f.len())
        }
    }

    /// Number of held dice.
    pub fn held(&self) -> usize {
        match self {
            HeldKey::Combinable(f, _) => f.len(),
            HeldKey::Plain(k) => *k,
        }
    }
}

/// One keep a roll allows: what it adds to the turn and where it leads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Opt {
    /// Units added to the turn total.
    pub gain: u16,
    /// Class index after the keep (0 = all five dice to roll).
    pub next: u16,
}

/// One roll outcome of a class.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Its probability.
    pub prob: f64,
    /// The keeps worth considering (empty = the roll scores nothing).
    pub opts: Vec<Opt>,
}

/// The whole turn model for one kind of dice.
#[derive(Clone, Debug)]
pub struct TurnModel {
    /// Whether the dice are the 13-sided Jokers dice.
    pub jokers: bool,
    /// Class keys; index 0 is "no dice held, roll five".
    pub keys: Vec<HeldKey>,
    /// Outcomes of rolling from each class.
    pub outcomes: Vec<Vec<Outcome>>,
    /// Classes in the order values must be computed for one turn total:
    /// most held dice first (a keep that adds nothing always holds more dice).
    pub order: Vec<usize>,
    /// Whether some keep adds nothing yet frees all five dice (a Jokers
    /// game: held dice plus rolled Jokers kept for 0): values of one turn
    /// total then depend on each other and are iterated to a fixed point.
    pub zero_cycles: bool,
    /// Probability that a roll from each class scores nothing.
    pub bust: Vec<f64>,
    /// Flattened copy of `outcomes` for the solver's inner loop: per class
    /// `c`, outcomes `flat_class[c]..flat_class[c + 1]` of `flat_out`, each
    /// `(probability, first option, end option)` into `flat_opts`.
    pub flat_class: Vec<usize>,
    /// See `flat_class`.
    pub flat_out: Vec<(f64, u32, u32)>,
    /// See `flat_class`.
    pub flat_opts: Vec<Opt>,
    index: HashMap<HeldKey, usize>,
}

fn multisets(n: usize, faces: usize) -> Vec<Vec<u8>> {
    // Count vectors over `faces` faces summing to n.
    fn go(n: usize, faces: usize, cur: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if cur.len() == faces - 1 {
            cur.push(n as u8);
            out.push(cur.clone());
            cur.pop();
            return;
        }
        for k in 0..=n {
            cur.push(k as u8);
            go(n - k, faces, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(n, faces, &mut Vec::new(), &mut out);
    out
}

fn factorial(n: usize) -> f64 {
    (1..=n).map(|x| x as f64).product()
}

impl TurnModel {
    /// Builds the model by exploring every class reachable from a fresh
    /// five-dice roll.
    pub fn new(jokers: bool) -> TurnModel {
        let nfaces = if jokers { 7 } else { 6 };
        let p_face: Vec<f64> = (0..nfaces)
            .map(|f| match (jokers, f) {
                (false, _) => 1.0 / 6.0,
                (true, 6) => 1.0 / 13.0,
                (true, _) => 2.0 / 13.0,
            })
            .collect();
        let mut m = TurnModel {
            jokers,
            keys: vec![HeldKey::Plain(0)],
            outcomes: Vec::new(),
            order: Vec::new(),
            zero_cycles: false,
            bust: Vec::new(),
            flat_class: Vec::new(),
            flat_out: Vec::new(),
            flat_opts: Vec::new(),
            index: HashMap::from([(HeldKey::Plain(0), 0)]),
        };
        let mut done = 0;
        while done < m.keys.len() {
            let key = m.keys[done].clone();
            let outs = m.explore(&key, nfaces, &p_face);
            m.outcomes.push(outs);
            done += 1;
        }
        let mut order: Vec<usize> = (0..m.keys.len()).collect();
        order.sort_by_key(|&c| std::cmp::Reverse(m.keys[c].held()));
        m.order = order;
        m.zero_cycles = m
            .outcomes
            .iter()
            .flatten()
            .flat_map(|o| &o.opts)
            .any(|o| o.gain == 0 && o.next == 0);
        m.bust = m
            .outcomes
            .iter()
            .map(|outs| {
                outs.iter()
                    .filter(|o| o.opts.is_empty())
                    .map(|o| o.prob)
                    .sum()
            })
            .collect();
        m.flat_class.push(0);
        for outs in &m.outcomes {
            for o in outs {
                let a = m.flat_opts.len() as u32;
                m.flat_opts.extend(&o.opts);
                m.flat_out.push((o.prob, a, m.flat_opts.len() as u32));
            }
            m.flat_class.push(m.flat_out.len());
        }
        m
    }

    /// Index of a class, if the model knows it.
    pub fn class_of(&self, held: &[Face], points: u32) -> Option<usize> {
        self.index.get(&HeldKey::of(held, points)).copied()
    }

    fn intern(&mut self, key: HeldKey) -> usize {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.keys.len();
        self.keys.push(key.clone());
        self.index.insert(key, i);
        i
    }

    fn explore(&mut self, key: &HeldKey, nfaces: usize, p_face: &[f64]) -> Vec<Outcome> {
        let (held, held_points): (Vec<Face>, u32) = match key {
            HeldKey::Combinable(f, p) => (f.clone(), p * UNIT),
            // Plain held dice can never join a combination with the roll,
            // so the roll is scored as if nothing were held.
            HeldKey::Plain(_) => (Vec::new(), 0),
        };
        let k = key.held();
        let n = 5 - k;
        let mut outs = Vec::new();
        for c in multisets(n, nfaces) {
            let mut prob = factorial(n);
            for (f, &cnt) in c.iter().enumerate() {
                prob *= p_face[f].powi(i32::from(cnt)) / factorial(usize::from(cnt));
            }
            let mut best: HashMap<u16, u16> = HashMap::new();
            for sub in multisets_below(&c) {
                let kept: Vec<Face> = sub
                    .iter()
                    .enumerate()
                    .flat_map(|(f, &cnt)| std::iter::repeat_n(Face::ALL[f], usize::from(cnt)))
                    .collect();
                if kept.is_empty() {
                    continue;
                }
                let Some(keep) = score_keep(&held, held_points, &kept, n) else {
                    continue;
                };
                let gain = (i64::from(keep.points) - i64::from(keep.forgotten)) / i64::from(UNIT);
                let next_key = if k + kept.len() == 5 {
                    HeldKey::Plain(0)
                } else {
                    let mut h = held.clone();
                    h.extend(&kept);
                    if matches!(key, HeldKey::Plain(k) if *k > 0) {
                        HeldKey::Plain(k + kept.len())
                    } else {
                        HeldKey::of(&h, held_points + keep.points)
                    }
                };
                let next = self.intern(next_key) as u16;
                let gain = gain.max(0) as u16;
                let e = best.entry(next).or_insert(gain);
                *e = (*e).max(gain);
            }
            let mut opts: Vec<Opt> = best
                .into_iter()
                .map(|(next, gain)| Opt { gain, next })
                .collect();
            opts.sort_by_key(|o| (o.next, o.gain));
            outs.push(Outcome { prob, opts });
        }
        outs
    }

    /// Work per turn total (sum of keep options over all classes).
    pub fn work(&self) -> usize {
        self.outcomes
            .iter()
            .flatten()
            .map(|o| o.opts.len().max(1))
            .sum()
    }
}

fn multisets_below(c: &[u8]) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new()];
    for &cnt in c {
        out = out
            .into_iter()
            .flat_map(|v: Vec<u8>| {
                (0..=cnt).map(move |k| {
                    let mut v = v.clone();
                    v.push(k);
                    v
                })
            })
            .collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_sum_to_one() {
        for jokers in [false, true] {
            let m = TurnModel::new(jokers);
            for outs in &m.outcomes {
                let total: f64 = outs.iter().map(|o| o.prob).sum();
                assert!((total - 1.0).abs() < 1e-12, "{total}");
            }
        }
    }

    #[test]
    fn fresh_roll_bust_chance_is_the_known_figure() {
        // Five six-sided dice score nothing when there is no One, no Five and
        // no triple (every small straight holds a One or a Five): counted by
        // hand, 360 rolls of the pattern 2-2-1 and 240 of 2-1-1-1 over the
        // faces 2, 3, 4, 6, so 600 of the 7776 rolls (about 7.7%).
        let m = TurnModel::new(false);
        let bust: f64 = m.outcomes[0]
            .iter()
            .filter(|o| o.opts.is_empty())
            .map(|o| o.prob)
            .sum();
        let direct = (0..7776u32)
            .filter(|x| {
                let d: Vec<Face> = (0..5)
                    .map(|i| Face::ALL[(x / 6u32.pow(i) % 6) as usize])
                    .collect();
                cubes_engine::score_roll(&[]).is_none()
                    && (1..=5usize).all(|n| {
                        // no non-empty subset scores
                        (1u32..32)
                            .filter(|m| m.count_ones() as usize == n)
                            .all(|m| {
                                let sub: Vec<Face> =
                                    (0..5).filter(|i| m & (1 << i) != 0).map(|i| d[i]).collect();
                                cubes_engine::score_roll(&sub).is_none()
                            })
                    })
            })
            .count();
        assert!(
            (bust - direct as f64 / 7776.0).abs() < 1e-12,
            "{bust} vs {direct}"
        );
    }

    #[test]
    fn zero_gain_keeps_hold_more_dice_or_free_all_five() {
        assert!(!TurnModel::new(false).zero_cycles);
        let m = TurnModel::new(true);
        assert!(m.zero_cycles);
        for (c, outs) in m.outcomes.iter().enumerate() {
            for o in outs.iter().flat_map(|o| &o.opts) {
                if o.gain == 0 {
                    let next = usize::from(o.next);
                    assert!(
                        next == 0 || m.keys[next].held() > m.keys[c].held(),
                        "{:?} -> {:?}",
                        m.keys[c],
                        m.keys[next]
                    );
                }
            }
        }
    }
}
