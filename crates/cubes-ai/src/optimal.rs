//! The optimal player.
//!
//! Two players: at every choice it takes the keep (or the hold) with the
//! highest probability of winning, reading the solved [`WinTable`] and
//! solving the current turn from it (one turn solve per pair of scores,
//! cached). More players: it maximises the expected points banked this turn
//! under the board rules, and in the end game (someone within 2,000 of the
//! target) plays the two-player optimal policy against the leading opponent.

use crate::model::{TurnModel, UNIT};
use crate::personality::hold_wins;
use crate::solver::{Thresholds, WinTable, expected_table, turn_table};
use crate::tables;
use cubes_engine::{Action, Cubes, DieState, Face, Observation, Phase, Settings, View};
use game_table::{Bot, BotError};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// Turn totals (units) at which the expected-points player always banks.
const EXPECTED_CAP: usize = 160;

/// Solved turn values, shared between threads.
type Cache<K> = RwLock<HashMap<K, Arc<Vec<f32>>>>;

/// Every brain made so far, by kind of game.
type Brains = Mutex<HashMap<(Thresholds, bool), Arc<OnceLock<Arc<Brain>>>>>;

/// Everything the optimal player knows about one kind of game, shared by
/// all optimal players of that kind (caches grow as games are played).
#[derive(Debug)]
pub struct Brain {
    /// The solved win table.
    pub table: WinTable,
    /// The turn model.
    pub model: TurnModel,
    turns: Cache<(usize, usize)>,
    expected: Cache<usize>,
}

impl Brain {
    /// A brain from a solved table.
    pub fn new(table: WinTable) -> Brain {
        let model = TurnModel::new(table.jokers);
        Brain {
            table,
            model,
            turns: RwLock::new(HashMap::new()),
            expected: RwLock::new(HashMap::new()),
        }
    }

    /// The brain for a kind of game: shipped tables for Standard and Blitz,
    /// solved on first use (about half a minute) for anything else.
    pub fn get(settings: &Settings, jokers: bool) -> Arc<Brain> {
        static BRAINS: OnceLock<Brains> = OnceLock::new();
        let rules = Thresholds::of(settings);
        // Hold the map's lock only to find the slot; the (possibly long)
        // solve happens in the slot, so other kinds of games are not held up.
        let slot = {
            let map = BRAINS.get_or_init(|| Mutex::new(HashMap::new()));
            let mut map = match map.lock() {
                Ok(m) => m,
                Err(poisoned) => poisoned.into_inner(),
            };
            map.entry((rules, jokers)).or_default().clone()
        };
        slot.get_or_init(|| {
            let table = tables::shipped(&rules, jokers)
                .unwrap_or_else(|| crate::solver::solve_sequential(settings, jokers));
            Arc::new(Brain::new(table))
        })
        .clone()
    }

    fn turn(&self, i: usize, j: usize) -> Arc<Vec<f32>> {
        let key = self.table.rules.norm(i, j);
        if let Ok(map) = self.turns.read()
            && let Some(v) = map.get(&key)
        {
            return v.clone();
        }
        let v: Arc<Vec<f32>> = Arc::new(
            turn_table(&self.table, &self.model, key.0, key.1)
                .into_iter()
                .map(|x| x as f32)
                .collect(),
        );
        if let Ok(mut map) = self.turns.write() {
            if map.len() > 60_000 {
                map.clear();
            }
            map.insert(key, v.clone());
        }
        v
    }

    fn expected(&self, i: usize) -> Arc<Vec<f32>> {
        if let Ok(map) = self.expected.read()
            && let Some(v) = map.get(&i)
        {
            return v.clone();
        }
        let v: Arc<Vec<f32>> = Arc::new(
            expected_table(&self.model, &self.table.rules, i, EXPECTED_CAP)
                .into_iter()
                .map(|x| x as f32)
                .collect(),
        );
        if let Ok(mut map) = self.expected.write() {
            map.insert(i, v.clone());
        }
        v
    }

    /// Win probability (two players) of the player to move, `i` against `j`
    /// points, at the start of a turn.
    pub fn win_probability(&self, i: u32, j: u32) -> f64 {
        self.table.get((i / UNIT) as usize, (j / UNIT) as usize)
    }
}

/// The optimal computer player.
#[derive(Debug, Clone)]
pub struct OptimalBot {
    name: String,
}

impl OptimalBot {
    /// An optimal player with a name.
    pub fn new(name: impl Into<String>) -> OptimalBot {
        OptimalBot { name: name.into() }
    }
}

impl Default for OptimalBot {
    fn default() -> OptimalBot {
        OptimalBot::new("Optimal Olga")
    }
}

/// How each choice is valued.
enum Valuer {
    /// Win probability against one opponent (`i`, `j` in units).
    Win {
        brain: Arc<Brain>,
        i: usize,
        j: usize,
        turn: Arc<Vec<f32>>,
    },
    /// Expected banked units.
    Expected {
        brain: Arc<Brain>,
        turn: Arc<Vec<f32>>,
    },
}

impl Valuer {
    /// Value of keeping dice that leave turn total `t` (units) and held
    /// class `class`: a keep commits to rolling on.
    fn keep(&self, t: usize, class: usize) -> f64 {
        match self {
            Valuer::Win { brain, i, j, turn } => {
                let r = &brain.table.rules;
                let (ni, nj) = r.norm(*i, *j);
                if t >= r.t_cap(ni, nj) {
                    // Any scoring roll can then be held for the win.
                    let bust = brain.model.bust[class];
                    (1.0 - bust) + bust * (1.0 - brain.table.get(*j, *i))
                } else {
                    f64::from(turn[t * brain.model.keys.len() + class])
                }
            }
            Valuer::Expected { brain, turn } => {
                if t >= EXPECTED_CAP {
                    (1.0 - brain.model.bust[class]) * t as f64
                } else {
                    f64::from(turn[t * brain.model.keys.len() + class])
                }
            }
        }
    }

    /// Value of holding with turn total `t` (units).
    fn bank(&self, t: usize) -> f64 {
        match self {
            Valuer::Win { brain, i, j, .. } => {
                let r = &brain.table.rules;
                let s = i + t;
                if r.wins(s, *j) {
                    1.0
                } else {
                    1.0 - brain.table.get(*j, s)
                }
            }
            Valuer::Expected { .. } => t as f64,
        }
    }
}

/// Decides for the player to act in `view` (any number of players).
pub fn decide(view: &View) -> Action {
    if view.phase != Phase::Rolled {
        return Action::Roll;
    }
    if hold_wins(view) {
        return Action::Hold;
    }
    match valuer(view) {
        Some(v) => choose(view, &v),
        None => Action::Roll,
    }
}

/// How the player to act values its choices.
fn valuer(view: &View) -> Option<Valuer> {
    let brain = Brain::get(&view.settings, view.jokers);
    let me = view.current;
    let i = (view.players.get(me)?.score / UNIT) as usize;
    let opp = view
        .players
        .iter()
        .enumerate()
        .filter(|&(s, _)| s != me)
        .map(|(_, p)| p.score)
        .max();
    let Some(opp) = opp else {
        // Alone at the table: maximise expected points.
        return Some(Valuer::Expected {
            turn: brain.expected(i),
            brain,
        });
    };
    let j = (opp / UNIT) as usize;
    let end_game = view
        .players
        .iter()
        .any(|p| p.score + 2000 >= view.settings.target);
    Some(if view.players.len() == 2 || end_game {
        Valuer::Win {
            turn: brain.turn(i, j),
            brain,
            i,
            j,
        }
    } else {
        Valuer::Expected {
            turn: brain.expected(i),
            brain,
        }
    })
}

/// Every action open after a roll with the value the optimal player gives
/// it: win probability (two players, or the end game) or expected banked
/// units (several players). Empty when the dice are not rolled.
pub fn action_values(view: &View) -> Vec<(Action, f64)> {
    if view.phase != Phase::Rolled {
        return Vec::new();
    }
    match valuer(view) {
        Some(v) => values(view, &v),
        None => Vec::new(),
    }
}

fn values(view: &View, valuer: &Valuer) -> Vec<(Action, f64)> {
    let (brain, t0) = match valuer {
        Valuer::Win { brain, .. } | Valuer::Expected { brain, .. } => (brain, view.turn.points),
    };
    let held: Vec<Face> = view
        .turn
        .mask(DieState::Held)
        .positions()
        .map(|p| view.turn.dice[p])
        .collect();
    let rolled = view.turn.mask(DieState::Rolled).len();
    let mut out = Vec::new();
    if let Ok(total) = view.can_hold() {
        out.push((Action::Hold, valuer.bank((total / UNIT) as usize)));
    }
    for k in view.turn.keeps() {
        let t = (i64::from(t0) + k.gain()).max(0) as u32;
        let class = if k.mask.len() == rolled {
            Some(0)
        } else {
            let mut h = held.clone();
            h.extend(k.mask.positions().map(|p| view.turn.dice[p]));
            brain.model.class_of(&h, view.turn.held_points + k.points)
        };
        if let Some(class) = class {
            out.push((
                Action::Keep(k.mask),
                valuer.keep((t / UNIT) as usize, class),
            ));
        }
    }
    out
}

fn choose(view: &View, valuer: &Valuer) -> Action {
    let mut best: Option<(f64, Action)> = None;
    // Hold comes first, so a keep must be strictly better to be chosen.
    for (a, v) in values(view, valuer) {
        if best.is_none_or(|(b, _)| v > b + 1e-12) {
            best = Some((v, a));
        }
    }
    match best {
        Some((_, a)) => a,
        None => view
            .turn
            .keeps()
            .first()
            .map_or(Action::Roll, |k| Action::Keep(k.mask)),
    }
}

impl Bot<Cubes> for OptimalBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn decide(&mut self, observation: &Observation) -> Result<Action, BotError> {
        Ok(decide(&observation.view))
    }
}
