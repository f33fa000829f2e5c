//! The strong player: single-observer information-set Monte Carlo tree
//! search (SO-ISMCTS, Cowling, Powley & Whitehouse 2012).
//!
//! Each iteration samples a full state consistent with the seat's view
//! ([`determinize_for`]: the hidden hands and the draw pile are drawn from
//! the cards it has not seen, which is card counting), walks one tree of
//! decisions shared by all samples (a node's statistics count only the
//! iterations in which its action was available: ISUCT), plays the hand out
//! with the [`policy`](crate::policy) heuristic, and scores the result for
//! every side by its chance to win the game to 5000. Every node's reward is
//! that of the side that chose it, so partners pull together and opponents
//! against (team-aware at 3 to 6 players). Root parallelisation: several
//! independent trees (rayon), merged by visit counts.

use crate::{Bot, fallback_action, policy};
use mille_engine::view::{Decision, determinize_for};
use mille_engine::{Action, ActionList, Phase, State, View};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// How much searching a decision may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Iterations in all (split between the trees).
    pub iterations: u32,
    /// Independent trees searched in parallel. The result depends on this
    /// number, never on the machine's thread count, so that a seeded search
    /// replays.
    pub trees: u32,
    /// Stop early when this much time has passed (makes the result depend
    /// on the machine's speed; `None` for exact replays).
    pub time_limit: Option<Duration>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            iterations: 1000,
            trees: 1,
            time_limit: None,
        }
    }
}

/// Exploration constant of UCB1 for rewards in `0..=1`.
const EXPLORATION: f64 = 0.7;

/// The searching bot.
#[derive(Clone, Debug)]
pub struct SearchBot {
    name: String,
    budget: Budget,
    rng: ChaCha8Rng,
}

impl SearchBot {
    /// A search bot with a budget; `seed` makes its decisions replay.
    pub fn new(name: &str, budget: Budget, seed: u64) -> SearchBot {
        SearchBot {
            name: name.to_string(),
            budget,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The budget.
    pub fn budget(&self) -> Budget {
        self.budget
    }
}

impl Bot for SearchBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, view: &View, decision: Decision) -> Action {
        let seed = self.rng.next_u64();
        search(view, decision, self.budget, seed).unwrap_or_else(|| fallback_action(view, decision))
    }
}

/// Searches `decision` in `view`; `None` when the view cannot be sampled.
pub fn search(view: &View, decision: Decision, budget: Budget, seed: u64) -> Option<Action> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let probe = determinize_for(view, decision, &mut rng).ok()?;
    let mut legal = ActionList::default();
    probe.legal_actions(&mut legal);
    match legal.len() {
        0 => return None,
        1 => return legal.first().copied(),
        _ => {}
    }
    let trees = budget.trees.max(1);
    let per_tree = budget.iterations.div_ceil(trees).max(1);
    let deadline = budget.time_limit.map(|d| Instant::now() + d);
    let roots: Vec<Vec<(Action, u32, f64)>> = (0..trees)
        .into_par_iter()
        .map(|i| {
            let tree_seed = seed ^ (u64::from(i) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            Tree::search(view, decision, per_tree, deadline, tree_seed)
        })
        .collect();
    // Merge the trees' root statistics action by action.
    let mut merged: Vec<(Action, u32, f64)> = Vec::new();
    for root in roots {
        for (a, n, w) in root {
            match merged.iter_mut().find(|m| m.0 == a) {
                Some(m) => {
                    m.1 += n;
                    m.2 += w;
                }
                None => merged.push((a, n, w)),
            }
        }
    }
    // The most visited legal action; mean reward breaks ties.
    merged
        .into_iter()
        .filter(|m| legal.contains(&m.0))
        .max_by(|a, b| {
            let ma = a.2 / f64::from(a.1.max(1));
            let mb = b.2 / f64::from(b.1.max(1));
            a.1.cmp(&b.1).then(ma.total_cmp(&mb))
        })
        .map(|m| m.0)
        .or_else(|| legal.first().copied())
}

struct Node {
    action: Action,
    /// The team of the seat that chose `action`.
    team: u8,
    visits: u32,
    /// Iterations in which this action was legal.
    avail: u32,
    /// Sum of the rewards of `team`.
    reward: f64,
    children: Vec<u32>,
}

struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    fn search(
        view: &View,
        decision: Decision,
        iterations: u32,
        deadline: Option<Instant>,
        seed: u64,
    ) -> Vec<(Action, u32, f64)> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut tree = Tree {
            nodes: vec![Node {
                action: Action::Draw,
                team: 0,
                visits: 0,
                avail: 0,
                reward: 0.0,
                children: Vec::new(),
            }],
        };
        let mut path: Vec<u32> = Vec::with_capacity(64);
        let mut legal = ActionList::default();
        for i in 0..iterations {
            if i % 16 == 0
                && let Some(d) = deadline
                && i > 0
                && Instant::now() >= d
            {
                break;
            }
            let Ok(mut state) = determinize_for(view, decision, &mut rng) else {
                break;
            };
            path.clear();
            path.push(0);
            let mut node = 0u32;
            // Selection and expansion.
            loop {
                while matches!(state.phase(), Phase::Turn { drawn: false, .. }) {
                    state.apply_unchecked(Action::Draw);
                }
                let seat = match state.phase() {
                    Phase::Turn { seat, .. }
                    | Phase::CoupFourre { seat, .. }
                    | Phase::Extension { seat } => seat,
                    Phase::HandOver | Phase::GameOver => break,
                };
                state.legal_actions(&mut legal);
                if legal.is_empty() {
                    break;
                }
                let team = state.team_of(seat);
                match tree.select(node, &legal, team, &mut rng) {
                    Step::Existing(child) => {
                        let a = tree.nodes[child as usize].action;
                        state.apply_unchecked(a);
                        path.push(child);
                        node = child;
                    }
                    Step::Expanded(child) => {
                        let a = tree.nodes[child as usize].action;
                        state.apply_unchecked(a);
                        path.push(child);
                        break;
                    }
                }
            }
            // Rollout to the end of the hand.
            let mut guard = 0;
            while !matches!(state.phase(), Phase::HandOver | Phase::GameOver) && guard < 2000 {
                let a = policy::choose(&state, &mut rng);
                state.apply_unchecked(a);
                guard += 1;
            }
            let values = evaluate(&state);
            for &n in &path[1..] {
                let node = &mut tree.nodes[n as usize];
                node.visits += 1;
                node.reward += values[node.team as usize];
            }
            tree.nodes[0].visits += 1;
        }
        tree.nodes[0]
            .children
            .iter()
            .map(|&c| {
                let n = &tree.nodes[c as usize];
                (n.action, n.visits, n.reward)
            })
            .collect()
    }

    /// ISUCT selection at `node` among the `legal` actions of this sample:
    /// expands an untried one if any, else picks the best UCB score.
    fn select(&mut self, node: u32, legal: &ActionList, team: u8, rng: &mut ChaCha8Rng) -> Step {
        let mut untried = ActionList::default();
        for &a in legal.iter() {
            if !self.nodes[node as usize]
                .children
                .iter()
                .any(|&c| self.nodes[c as usize].action == a)
            {
                untried.push(a);
            }
        }
        // Every available child's availability grows, tried or not.
        let children = self.nodes[node as usize].children.clone();
        for &c in &children {
            if legal.contains(&self.nodes[c as usize].action) {
                self.nodes[c as usize].avail += 1;
            }
        }
        if !untried.is_empty() {
            let a = untried[mille_engine::bounded(rng, untried.len() as u32) as usize];
            let id = self.nodes.len() as u32;
            self.nodes.push(Node {
                action: a,
                team,
                visits: 0,
                avail: 1,
                reward: 0.0,
                children: Vec::new(),
            });
            self.nodes[node as usize].children.push(id);
            return Step::Expanded(id);
        }
        let mut best = children[0];
        let mut best_ucb = f64::NEG_INFINITY;
        for &c in &children {
            let n = &self.nodes[c as usize];
            if !legal.contains(&n.action) {
                continue;
            }
            let visits = f64::from(n.visits.max(1));
            let ucb =
                n.reward / visits + EXPLORATION * (f64::from(n.avail.max(1)).ln() / visits).sqrt();
            if ucb > best_ucb {
                best_ucb = ucb;
                best = c;
            }
        }
        Step::Existing(best)
    }
}

enum Step {
    Existing(u32),
    Expanded(u32),
}

/// Each side's reward in `0..=1` for a finished hand: mostly its estimated
/// chance to win the game to 5000 from the new totals (a normal model of
/// the remaining hands), partly the hand's own margin so that the search
/// still prefers bigger hands when the game is decided either way.
pub fn evaluate(state: &State) -> [f64; 3] {
    let totals = state.totals();
    let teams = totals.len();
    let mut out = [0.0; 3];
    let hand: Vec<i64> = match state.last_scores() {
        Some(s) => s.iter().map(|h| i64::from(h.total())).collect(),
        None => (0..teams as u8)
            .map(|t| i64::from(state.hand_points(t).total()))
            .collect(),
    };
    let goal = i64::from(state.rules().scoring.game);
    let lead = totals.iter().copied().max().unwrap_or(0);
    let over = state.phase() == Phase::GameOver;
    let winners = totals.iter().filter(|&&t| t == lead).count() as f64;
    // Hands still to play before someone reaches the goal, roughly.
    let hands_left = ((goal - i64::from(lead)) as f64 / 1000.0).max(0.5);
    for t in 0..teams {
        let best_other = (0..teams)
            .filter(|&o| o != t)
            .map(|o| i64::from(totals[o]))
            .max()
            .unwrap_or(0);
        let hand_other = (0..teams)
            .filter(|&o| o != t)
            .map(|o| hand[o])
            .max()
            .unwrap_or(0);
        let game = if over {
            if totals[t] == lead {
                1.0 / winners
            } else {
                0.0
            }
        } else {
            let d = (i64::from(totals[t]) - best_other) as f64;
            sigmoid(1.7 * d / (900.0 * hands_left.sqrt()))
        };
        let margin = sigmoid((hand[t] - hand_other) as f64 / 600.0);
        out[t] = 0.8 * game + 0.2 * margin;
    }
    out
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}
