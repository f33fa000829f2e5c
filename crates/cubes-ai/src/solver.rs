//! The two-player win-probability solver (after Neller and Busche's optimal
//! Farkle play).
//!
//! `W(i, j)` is the probability that the player about to start a turn with
//! `i` units banked wins against an opponent with `j` units, both playing
//! optimally. Within a turn the value of "about to roll from class `h` with
//! turn total `t`" is the best of banking (`1 - W(j, i + t)`, or 1 when the
//! bank wins the game) and rolling (the probability-weighted best keep of
//! each outcome; a roll that scores nothing is worth `1 - W(j, i)`).
//!
//! Banking always raises the sum of the two scores, so states are solved by
//! decreasing score sum. States of one sum depend on each other only through
//! a bust (or a zero-point bank in Jokers games), which sends `(i, j)` to
//! `(j, i)`; that pair is solved by Newton's method on the piecewise-linear
//! map `x -> W(i, j)` as a function of `x = W(j, i)`, so a pair needs a few
//! turn solves instead of tens of value-iteration sweeps.
//!
//! Overtime: once both scores are at or above the target only their
//! difference matters, so such states are normalised to `min = target`;
//! these few states, and those with one player at or above the target, are
//! solved first by plain value iteration.

use crate::model::{TurnModel, UNIT};
use cubes_engine::Settings;
use rayon::prelude::*;

/// Thresholds of a game in model units.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Thresholds {
    /// Target.
    pub target: usize,
    /// On-board threshold.
    pub on_board: usize,
    /// Off-board threshold.
    pub off_board: usize,
    /// Overtime lead.
    pub lead: usize,
}

impl Thresholds {
    /// The units of a game's settings.
    pub fn of(s: &Settings) -> Thresholds {
        let u = |p: u32| p.div_ceil(UNIT) as usize;
        Thresholds {
            target: u(s.target),
            on_board: u(s.on_board),
            off_board: u(s.off_board),
            lead: u(s.overtime_lead).max(1),
        }
    }

    /// Side of the square table: scores `0..size` cover every state after
    /// normalisation.
    pub fn size(&self) -> usize {
        self.target + self.lead
    }

    /// Normalises a state with both players at or over the target.
    pub fn norm(&self, i: usize, j: usize) -> (usize, usize) {
        if i >= self.target && j >= self.target {
            let m = i.min(j) - self.target;
            (i - m, j - m)
        } else {
            (i, j)
        }
    }

    /// Whether banking to `s` against `j` wins the game at once.
    pub fn wins(&self, s: usize, j: usize) -> bool {
        s >= self.target && s >= j + self.lead
    }

    /// Whether a turn of `t` units may be banked from `i`.
    pub fn may_bank(&self, i: usize, t: usize) -> bool {
        if i == 0 && t < self.on_board {
            return false;
        }
        !(i < self.target && i + t >= self.target && t < self.off_board)
    }

    /// First turn total from which banking surely wins (values are 1 above).
    pub fn t_cap(&self, i: usize, j: usize) -> usize {
        let mut t = self
            .target
            .saturating_sub(i)
            .max((j + self.lead).saturating_sub(i));
        if i < self.target {
            t = t.max(self.off_board);
        }
        if i == 0 {
            t = t.max(self.on_board);
        }
        t.max(1)
    }
}

/// The solved table of one kind of game.
#[derive(Clone, Debug, PartialEq)]
pub struct WinTable {
    /// Thresholds in units.
    pub rules: Thresholds,
    /// Whether Jokers dice.
    pub jokers: bool,
    /// `w[i * size + j]`.
    pub w: Vec<f64>,
}

impl WinTable {
    /// Probability that the player to move with `i` units against `j`
    /// units wins (scores normalised; states past the end count as decided).
    pub fn get(&self, i: usize, j: usize) -> f64 {
        let r = &self.rules;
        let (i, j) = r.norm(i, j);
        if r.wins(i, j) {
            return 1.0;
        }
        if r.wins(j, i) {
            return 0.0;
        }
        let n = r.size();
        if i >= n || j >= n {
            // Unreachable after normalisation; stay safe.
            return if i > j { 1.0 } else { 0.0 };
        }
        self.w[i * n + j]
    }
}

/// Value and derivative with respect to `x = W(j, i)`.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Vd(f64, f64);

/// Number of turn solves made (for measurements).
pub static TURN_SOLVES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Solves one turn for the player with `i` against `j`, where `x` is the
/// current guess of `W(j, i)` and `w` gives every other needed `W`. Returns
/// `W(i, j)` and its derivative in `x`. `scratch` is reused between calls;
/// `rolls`, if given, receives the value of rolling on from every state.
fn turn_value(
    m: &TurnModel,
    r: &Thresholds,
    (i, j): (usize, usize),
    x: f64,
    w: &dyn Fn(usize, usize) -> f64,
    scratch: &mut Vec<Vd>,
    mut rolls: Option<&mut Vec<f64>>,
) -> Vd {
    TURN_SOLVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tcap = r.t_cap(i, j);
    let h = m.keys.len();
    scratch.clear();
    scratch.resize((tcap + 1) * h, Vd(1.0, 0.0));
    if let Some(r) = rolls.as_deref_mut() {
        r.clear();
        r.resize((tcap + 1) * h, 1.0);
    }
    let bust = Vd(1.0 - x, -1.0);
    let mut start = Vd(0.0, 0.0);
    for t in (0..tcap).rev() {
        let bank = if r.may_bank(i, t) {
            let s = i + t;
            if r.wins(s, j) {
                Some(Vd(1.0, 0.0))
            } else if t == 0 {
                Some(Vd(1.0 - x, -1.0))
            } else {
                let (a, b) = r.norm(j, s);
                Some(Vd(1.0 - w(a, b), 0.0))
            }
        } else {
            None
        };
        if m.zero_cycles {
            // Start the zero-point cycle from the neighbouring total's value
            // of a fresh roll, which is close: two or three passes then do.
            scratch[t * h] = if t + 1 < tcap {
                scratch[(t + 1) * h]
            } else {
                Vd(1.0, 0.0)
            };
        }
        loop {
            let mut changed = false;
            for &c in &m.order {
                let mut v = 0.0;
                let mut d = 0.0;
                for &(prob, a, b) in &m.flat_out[m.flat_class[c]..m.flat_class[c + 1]] {
                    let best = if a == b {
                        bust
                    } else {
                        let mut best = Vd(f64::NEG_INFINITY, 0.0);
                        for opt in &m.flat_opts[a as usize..b as usize] {
                            let t2 = t + usize::from(opt.gain);
                            let val = if t2 >= tcap {
                                Vd(1.0, 0.0)
                            } else {
                                scratch[t2 * h + usize::from(opt.next)]
                            };
                            if val.0 > best.0 {
                                best = val;
                            }
                        }
                        best
                    };
                    v += prob * best.0;
                    d += prob * best.1;
                }
                let roll = Vd(v, d);
                if t == 0 && c == 0 {
                    start = roll;
                }
                if let Some(r) = rolls.as_deref_mut() {
                    r[t * h + c] = v;
                }
                let new = match bank {
                    Some(b) if b.0 >= roll.0 => b,
                    _ => roll,
                };
                let slot = &mut scratch[t * h + c];
                changed |= (slot.0 - new.0).abs() > 1e-13;
                *slot = new;
            }
            // Without zero-point cycles one pass in `order` is exact.
            if !m.zero_cycles || !changed {
                break;
            }
        }
    }
    start
}

/// Solves the whole table for a kind of game, using all cores (rayon).
pub fn solve(settings: &Settings, jokers: bool) -> WinTable {
    solve_with(settings, jokers, true)
}

/// Solves the whole table on the calling thread only. For solving lazily
/// from inside parallel work: a rayon worker that waited for its own
/// parallel solve could pick up a task that needs the very table being
/// solved, and wait for itself.
pub fn solve_sequential(settings: &Settings, jokers: bool) -> WinTable {
    solve_with(settings, jokers, false)
}

fn solve_with(settings: &Settings, jokers: bool, parallel: bool) -> WinTable {
    let r = Thresholds::of(settings);
    let m = TurnModel::new(jokers);
    let n = r.size();
    let mut w = vec![0.5f64; n * n];
    // Top region: at least one player at or over the target.
    let top: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .filter(|&(i, j)| {
            (i >= r.target || j >= r.target)
                && !r.wins(i, j)
                && !r.wins(j, i)
                && r.norm(i, j) == (i, j)
        })
        .collect();
    let get = |w: &[f64], i: usize, j: usize| -> f64 {
        let (i, j) = r.norm(i, j);
        if r.wins(i, j) {
            1.0
        } else if r.wins(j, i) {
            0.0
        } else {
            w[i * n + j]
        }
    };
    let mut scratch = Vec::new();
    for _ in 0..10_000 {
        let mut delta: f64 = 0.0;
        for &(i, j) in &top {
            let snapshot = w.clone();
            let f = |a: usize, b: usize| get(&snapshot, a, b);
            let v = turn_value(&m, &r, (i, j), get(&w, j, i), &f, &mut scratch, None).0;
            delta = delta.max((v - w[i * n + j]).abs());
            w[i * n + j] = v;
        }
        if delta < 1e-12 {
            break;
        }
    }
    // Below the target for both: by decreasing sum, pairs by Newton.
    for sum in (0..2 * r.target - 1).rev() {
        let pairs: Vec<(usize, usize)> = (0..r.target)
            .filter_map(|i| sum.checked_sub(i).map(|j| (i, j)))
            .filter(|&(i, j)| j < r.target && i <= j)
            .collect();
        let wref = &w;
        let one = |scratch: &mut Vec<Vd>, &(i, j): &(usize, usize)| {
            let f = |a: usize, b: usize| get(wref, a, b);
            let (wij, wji) = solve_pair(&m, &r, i, j, &f, scratch);
            ((i, j), wij, wji)
        };
        let results: Vec<((usize, usize), f64, f64)> = if parallel {
            pairs.par_iter().map_init(Vec::new, one).collect()
        } else {
            let mut scratch = Vec::new();
            pairs.iter().map(|p| one(&mut scratch, p)).collect()
        };
        for ((i, j), wij, wji) in results {
            w[i * n + j] = wij;
            w[j * n + i] = wji;
        }
    }
    WinTable {
        rules: r,
        jokers,
        w,
    }
}

/// Solves `W(i, j)` and `W(j, i)` together (Newton on the bust coupling).
fn solve_pair(
    m: &TurnModel,
    r: &Thresholds,
    i: usize,
    j: usize,
    w: &dyn Fn(usize, usize) -> f64,
    scratch: &mut Vec<Vd>,
) -> (f64, f64) {
    if i == j {
        // x = F(x), first guessed from the solved neighbour W(i, i + 1).
        let mut x = w(i, i + 1);
        for _ in 0..50 {
            let Vd(v, d) = turn_value(m, r, (i, i), x, w, scratch, None);
            let step = (v - x) / (d - 1.0);
            let nx = (x - step).clamp(0.0, 1.0);
            if (nx - x).abs() < 1e-11 {
                x = nx;
                break;
            }
            x = nx;
        }
        return (x, x);
    }
    // y = W(j, i), first guessed from the solved neighbour W(j, i + 1);
    // H(y) = G(F(y)) - y.
    let mut y = w(j, i + 1);
    for _ in 0..50 {
        let Vd(fx, fd) = turn_value(m, r, (i, j), y, w, scratch, None); // W(i,j) given y
        let Vd(gy, gd) = turn_value(m, r, (j, i), fx, w, scratch, None); // W(j,i) given W(i,j)
        let h = gy - y;
        let hd = gd * fd - 1.0;
        let ny = (y - h / hd).clamp(0.0, 1.0);
        if (ny - y).abs() < 1e-11 {
            y = ny;
            break;
        }
        y = ny;
    }
    let Vd(x, _) = turn_value(m, r, (i, j), y, w, scratch, None);
    (x, y)
}

/// The values of rolling on, for a seat with `i` units against `j` using a
/// solved table: `R(t, class)` = win probability of rolling from that
/// class with turn total `t` (then playing optimally), for every `t` below
/// the cap `rules.t_cap(i, j)`. A keep commits to rolling, so this (not the
/// better of banking and rolling) is what a keep is worth; holding is worth
/// the bank value. Used by the optimal player to choose.
pub fn turn_table(table: &WinTable, m: &TurnModel, i: usize, j: usize) -> Vec<f64> {
    let r = &table.rules;
    let (i, j) = r.norm(i, j);
    let x = table.get(j, i);
    let f = |a: usize, b: usize| table.get(a, b);
    let mut scratch = Vec::new();
    let mut rolls = Vec::new();
    turn_value(m, r, (i, j), x, &f, &mut scratch, Some(&mut rolls));
    rolls
}

/// Expected-points turn values for a seat with `i` units (several players):
/// `E(t, class)` = best expected banked units, a bust being worth 0 and a
/// bank `t` when the board rules allow it. Turn totals at or above `cap`
/// are banked (worth `t`). Returns the values of rolling on, `R(t, class)`
/// (what a keep is worth, as in [`turn_table`]).
pub fn expected_table(m: &TurnModel, r: &Thresholds, i: usize, cap: usize) -> Vec<f64> {
    let h = m.keys.len();
    let mut e = vec![0.0f64; (cap + 1) * h];
    let mut rolls = vec![0.0f64; (cap + 1) * h];
    for t in (0..cap).rev() {
        let bank = r.may_bank(i, t).then_some(t as f64);
        if m.zero_cycles {
            e[t * h] = if t + 1 < cap {
                e[(t + 1) * h]
            } else {
                t as f64
            };
        }
        loop {
            let mut changed = false;
            for &c in &m.order {
                let mut v = 0.0;
                for &(prob, a, b) in &m.flat_out[m.flat_class[c]..m.flat_class[c + 1]] {
                    let mut best = 0.0f64; // a bust banks nothing
                    for opt in &m.flat_opts[a as usize..b as usize] {
                        let t2 = t + usize::from(opt.gain);
                        let val = if t2 >= cap {
                            t2 as f64
                        } else {
                            e[t2 * h + usize::from(opt.next)]
                        };
                        best = best.max(val);
                    }
                    v += prob * best;
                }
                rolls[t * h + c] = v;
                let new = bank.map_or(v, |b| b.max(v));
                changed |= (e[t * h + c] - new).abs() > 1e-10;
                e[t * h + c] = new;
            }
            if !m.zero_cycles || !changed {
                break;
            }
        }
    }
    rolls
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Settings {
        Settings {
            target: 1500,
            ..Settings::standard()
        }
    }

    #[test]
    fn tiny_game_table_is_consistent() {
        let t = solve(&tiny(), false);
        let r = t.rules;
        let m = TurnModel::new(false);
        // Fixed point: re-solving any state from the table changes nothing.
        for i in 0..r.target {
            for j in 0..r.target {
                let f = |a: usize, b: usize| t.get(a, b);
                let mut s = Vec::new();
                let v = turn_value(&m, &r, (i, j), t.get(j, i), &f, &mut s, None).0;
                assert!(
                    (v - t.get(i, j)).abs() < 1e-9,
                    "({i},{j}) {v} vs {}",
                    t.get(i, j)
                );
            }
        }
        // Going first is an advantage; being ahead helps.
        assert!(t.get(0, 0) > 0.5);
        assert!(t.get(20, 0) > t.get(0, 0));
        assert!(t.get(0, 20) < t.get(0, 0));
    }
}
