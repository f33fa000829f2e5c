//! After-game review of Mille Bornes: every decision of one seat beside
//! the move the strongest player's search prefers, and what it cost.
//!
//! Pure: no I/O, no global random numbers; a [`ReviewConfig`]'s seed makes
//! a review replay bit for bit, whatever the number of threads.
//!
//! Each decision (a play, a discard, a coup fourré or its refusal, an
//! extension; draws are forced and skipped) is judged from the seat's
//! information at that moment only: its [`View`] and the beliefs about the
//! other hands that `normal` builds from the moves the seat watched. The
//! judge is `normal`'s own determinized search ([`SearchBot::analyse`]),
//! with a larger budget, the move made as the anchor every other move is
//! paired with: each sample (a deal of the unseen cards) is played out
//! after every surviving move, so the difference between two moves is
//! measured on the same deals and its standard error is small.
//!
//! The unit is the **point**: a move's value is the expected final point
//! margin of the seat's side in this hand (its hand score minus the best
//! other side's) over the search's play-outs; the loss of a decision is the
//! preferred move's value minus the made move's. See `docs/review.md`.

mod explain;

use mille_ai::SearchBot;
use mille_ai::search::{Budget, Players, RootStat, search_stats};
use mille_engine::view::{Decision, determinize_for};
use mille_engine::{
    Action, ActionList, GameRecord, IllegalAction, Phase, ReplayError, State, ToAct, View, seen_by,
};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Points lost from which a decision is an inaccuracy.
pub const INACCURACY: f64 = 50.0;
/// Points lost from which a decision is a mistake.
pub const MISTAKE: f64 = 150.0;
/// Points lost from which a decision is a blunder.
pub const BLUNDER: f64 = 300.0;
/// Points lost that divide a decision's accuracy by e (see
/// [`decision_accuracy`]).
pub const ACCURACY_SCALE: f64 = 200.0;
/// The unit of every value and loss of a review.
pub const UNIT: &str = "points";

/// How hard the review searches each decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewConfig {
    /// Search iterations a decision (split between the trees).
    pub iterations: u32,
    /// Independent trees a decision (the result depends on this number,
    /// never on the machine's thread count).
    pub trees: u32,
    /// Seed of every random choice of the review.
    pub seed: u64,
    /// Whether the unseen cards are dealt from `normal`'s beliefs about
    /// the other hands (what they probably hold, from the moves the seat
    /// watched) and the other seats played with the memory of the hand
    /// the beliefs keep; if not, uniformly, every seat played by a fresh
    /// classic bot (see `docs/review.md`).
    #[serde(default = "yes")]
    pub beliefs: bool,
}

fn yes() -> bool {
    true
}

impl Default for ReviewConfig {
    /// About 1.7 times `normal`'s 14,000 iterations a decision: within the speed
    /// targets of `docs/review.md` on 2 cores.
    fn default() -> Self {
        ReviewConfig {
            iterations: 24_000,
            trees: 2,
            seed: 0x5EED_4E71_E3ED,
            beliefs: true,
        }
    }
}

/// How a decision compares with the analysis's preferred move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// The preferred move, or within one standard error of it (and every
    /// forced move).
    Best,
    /// Less than [`INACCURACY`] points lost.
    Good,
    /// From [`INACCURACY`] to [`MISTAKE`] points lost.
    Inaccuracy,
    /// From [`MISTAKE`] to [`BLUNDER`] points lost.
    Mistake,
    /// [`BLUNDER`] points lost or more.
    Blunder,
}

impl Mark {
    /// The mark of a decision that lost `loss` points with standard error
    /// `stderr`, the made move being the preferred one or not.
    pub fn of(loss: f64, stderr: f64, preferred: bool) -> Mark {
        if preferred || loss <= stderr {
            Mark::Best
        } else if loss < INACCURACY {
            Mark::Good
        } else if loss < MISTAKE {
            Mark::Inaccuracy
        } else if loss < BLUNDER {
            Mark::Mistake
        } else {
            Mark::Blunder
        }
    }

    /// A word for a table.
    pub fn label(self) -> &'static str {
        match self {
            Mark::Best => "best",
            Mark::Good => "good",
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }
}

/// What kind of decision it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionKind {
    /// A card played after the draw.
    Play,
    /// A card thrown away after the draw.
    Discard,
    /// Whether to call coup fourré on a hazard.
    CoupFourre,
    /// Whether to extend the trip.
    Extension,
}

/// One legal move of a decision and the analysis's value of it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveValue {
    /// The move.
    pub action: Action,
    /// Expected final point margin of the seat's side in this hand after
    /// it: the made move's mean plus this move's paired difference with it.
    pub value: f64,
    /// Standard error of its difference with the made move (0 for the
    /// made move itself, and for a forced one).
    pub stderr: f64,
    /// Samples it was compared with the made move on (moves the search
    /// dropped early have few).
    pub samples: u32,
}

/// One reviewed decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionReview {
    /// Index of the move in the record's actions.
    pub index: usize,
    /// Hand of the game it belongs to (the engine's count, from 0: shown to people plus one).
    pub hand: u32,
    /// What was decided.
    pub kind: DecisionKind,
    /// The move made.
    pub played: Action,
    /// The move the analysis prefers.
    pub best: Action,
    /// Expected points lost: the preferred move's value minus the made
    /// move's (0 when they are the same).
    pub loss: f64,
    /// Standard error of the loss.
    pub stderr: f64,
    /// The verdict.
    pub mark: Mark,
    /// Every legal move, best value first.
    pub moves: Vec<MoveValue>,
}

impl DecisionReview {
    /// Whether the seat had a choice (more than one legal move).
    pub fn had_choice(&self) -> bool {
        self.moves.len() > 1
    }
}

/// The summary of one hand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HandReview {
    /// The hand (the engine's count, from 0: shown to people plus one).
    pub hand: u32,
    /// Decisions of the seat in the hand.
    pub decisions: usize,
    /// Expected points lost in all.
    pub points_lost: f64,
    /// Accuracy in percent: the mean of [`decision_accuracy`] over the
    /// decisions with a choice (100 when there were none).
    pub accuracy: f64,
}

/// A sentence of why, for one of the worst decisions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explained {
    /// Index into [`GameReview::decisions`].
    pub decision: usize,
    /// Why it cost, from what the seat knew.
    pub sentence: String,
}

/// The review of one seat's decisions in a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameReview {
    /// The reviewed seat.
    pub seat: u8,
    /// The unit of values and losses ([`UNIT`]).
    pub unit: String,
    /// The budget and seed the review ran with.
    pub config: ReviewConfig,
    /// Every decision of the seat, in order.
    pub decisions: Vec<DecisionReview>,
    /// One summary per hand the seat decided in, in order.
    pub hands: Vec<HandReview>,
    /// The (at most) three worst decisions, worst first, each explained.
    pub worst: Vec<Explained>,
}

impl GameReview {
    /// Expected points lost over the whole game.
    pub fn points_lost(&self) -> f64 {
        self.decisions.iter().map(|d| d.loss).sum()
    }

    /// Accuracy over the whole game, by the formula of [`HandReview`].
    pub fn accuracy(&self) -> f64 {
        accuracy(&self.decisions.iter().collect::<Vec<_>>())
    }
}

/// Why a game cannot be reviewed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReviewError {
    /// The record does not replay.
    #[error("the game does not replay: {0}")]
    Replay(#[from] ReplayError),
    /// A move does not apply to the position given.
    #[error("move {index} ({action}) is illegal there: {reason}")]
    Illegal {
        /// Position in the moves.
        index: usize,
        /// The move.
        action: Action,
        /// Why.
        reason: IllegalAction,
    },
    /// The seat is not at the table.
    #[error("seat {seat} is not at this {seats}-seat table")]
    NoSuchSeat {
        /// The seat asked for.
        seat: u8,
        /// Seats at the table.
        seats: u8,
    },
}

/// A decision's accuracy in percent: `100 · exp(−loss / ACCURACY_SCALE)`
/// (100 for the best move, about 78 for an inaccuracy of 50 points, 47 for
/// a mistake of 150, 22 for a blunder of 300).
pub fn decision_accuracy(loss: f64) -> f64 {
    100.0 * (-loss.max(0.0) / ACCURACY_SCALE).exp()
}

fn accuracy(decisions: &[&DecisionReview]) -> f64 {
    let chosen: Vec<f64> = decisions
        .iter()
        .filter(|d| d.had_choice())
        .map(|d| decision_accuracy(d.loss))
        .collect();
    if chosen.is_empty() {
        100.0
    } else {
        chosen.iter().sum::<f64>() / chosen.len() as f64
    }
}

/// Reviews `seat`'s decisions in the game `record` holds (finished or not).
pub fn review_game(
    record: &GameRecord,
    seat: u8,
    config: &ReviewConfig,
) -> Result<GameReview, ReviewError> {
    review_game_with_progress(record, seat, config, &mut |_, _| {})
}

/// [`review_game`], telling `progress` (decisions done, decisions in all)
/// as the searches finish, for a progress bar. Called from the calling
/// thread only.
pub fn review_game_with_progress(
    record: &GameRecord,
    seat: u8,
    config: &ReviewConfig,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<GameReview, ReviewError> {
    // Replays the record first: an illegal move is reported as the
    // record's, with its position.
    record.replay()?;
    let start = State::new(record.config, record.seed).map_err(ReplayError::from)?;
    review_from(&start, &record.actions, seat, config, progress)
}

/// Reviews `seat`'s decisions among `actions` played from `start` (any
/// position: a record's deal, a puzzle built with
/// [`mille_engine::Scenario`]). Indices are into `actions`.
pub fn review_from(
    start: &State,
    actions: &[Action],
    seat: u8,
    config: &ReviewConfig,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<GameReview, ReviewError> {
    let jobs = decisions_of(start, actions, seat)?;
    let total = jobs.len();
    progress(0, total);
    // In chunks, so that the progress moves while the searches run in
    // parallel; each decision's seed comes from its index, so neither the
    // chunking nor the thread count changes a result.
    let chunk = rayon::current_num_threads().max(1) * 2;
    let mut decisions = Vec::with_capacity(total);
    for part in jobs.chunks(chunk) {
        let reviewed: Vec<DecisionReview> = part.par_iter().map(|job| job.review(config)).collect();
        decisions.extend(reviewed);
        progress(decisions.len(), total);
    }
    let hands = hand_summaries(&decisions);
    let worst = explain::worst(&decisions, &jobs);
    Ok(GameReview {
        seat,
        unit: UNIT.to_string(),
        config: *config,
        decisions,
        hands,
        worst,
    })
}

/// One decision to review: everything the seat had then.
#[derive(Clone, Debug)]
pub(crate) struct Job {
    pub(crate) index: usize,
    pub(crate) hand: u32,
    pub(crate) view: View,
    pub(crate) decision: Decision,
    pub(crate) played: Action,
    pub(crate) legal: Vec<Action>,
    /// `normal` as it stood at the decision, having watched the game so
    /// far from the seat (its memory and its beliefs).
    bot: SearchBot,
}

/// Walks the game from `start`, gathering the seat's decisions with the
/// player it would have had watching.
fn decisions_of(start: &State, actions: &[Action], seat: u8) -> Result<Vec<Job>, ReviewError> {
    let Some(me) = start.rules().seat(seat) else {
        return Err(ReviewError::NoSuchSeat {
            seat,
            seats: start.rules().seats,
        });
    };
    let mut state = start.clone();
    // Only the bot's memory and beliefs matter here; its budget is the
    // review's, given at each analysis.
    let mut bot = SearchBot::new("review", Budget::default(), 0x4E71_E3ED);
    let mut jobs = Vec::new();
    let mut legal = ActionList::default();
    for (index, &action) in actions.iter().enumerate() {
        let actor = match state.to_act() {
            ToAct::Seat(s) => Some(s),
            ToAct::Deal | ToAct::GameOver => None,
        };
        let view = state.view(me);
        if actor == Some(me) {
            let decision = match state.phase() {
                Phase::Turn { drawn: true, .. } => Some(Decision::Turn),
                Phase::CoupFourre {
                    hazard, attacker, ..
                } => Some(Decision::CoupFourre {
                    hazard,
                    attacker: attacker.number(),
                }),
                Phase::Extension { .. } => Some(Decision::Extension),
                _ => None,
            };
            if let Some(decision) = decision {
                // The legal moves are a matter of the seat's hand and the
                // public tableaux: the same in every deal it could imagine.
                state.legal_actions(&mut legal);
                jobs.push(Job {
                    index,
                    hand: state.hand_number(),
                    view: view.clone(),
                    decision,
                    played: action,
                    legal: legal.to_vec(),
                    bot: bot.clone(),
                });
            }
        }
        // A deal counts as seat 0's action, as at a table.
        let actor_number = actor.map_or(0, |s| s.number());
        if seen_by(seat, actor_number, action) {
            bot.watch_view(&view, actor_number, action);
        }
        state.apply(action).map_err(|reason| ReviewError::Illegal {
            index,
            action,
            reason,
        })?;
    }
    Ok(jobs)
}

impl Job {
    fn kind(&self) -> DecisionKind {
        match (self.decision, self.played) {
            (Decision::CoupFourre { .. }, _) => DecisionKind::CoupFourre,
            (Decision::Extension, _) => DecisionKind::Extension,
            (Decision::Turn, Action::Discard(_)) => DecisionKind::Discard,
            (Decision::Turn, _) => DecisionKind::Play,
        }
    }

    /// The seed of this decision's search: the review's, mixed with the
    /// decision's place in the game.
    fn seed(&self, config: &ReviewConfig) -> u64 {
        let mut z = config.seed ^ (self.index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // splitmix64's finaliser: nearby indices give unrelated seeds.
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn review(&self, config: &ReviewConfig) -> DecisionReview {
        let kind = self.kind();
        if self.legal.len() <= 1 {
            return self.forced(kind);
        }
        let budget = Budget {
            iterations: config.iterations,
            trees: config.trees,
            time_limit: None,
        };
        let seed = self.seed(config);
        let stats = if config.beliefs {
            self.bot
                .clone()
                .analyse(&self.view, self.decision, self.played, budget, seed)
        } else {
            // `normal`'s search without beliefs: uniform deals of the
            // unseen cards, every seat played by a fresh classic bot.
            let (view, decision) = (&self.view, self.decision);
            let sample =
                |rng: &mut rand_chacha::ChaCha8Rng| determinize_for(view, decision, rng).ok();
            let players: Players = std::array::from_fn(|_| mille_ai::ClassicBot::new(0));
            search_stats(view, Some(self.played), budget, seed, &sample, &players)
        };
        let (moves, best) = values(&stats, self.played, &self.legal);
        let Some(best) = best else {
            return self.forced(kind);
        };
        let made = moves
            .iter()
            .find(|m| m.action == self.played)
            .map_or(0.0, |m| m.value);
        let (loss, stderr) = if best.action == self.played {
            (0.0, 0.0)
        } else {
            (best.value - made, best.stderr)
        };
        DecisionReview {
            index: self.index,
            hand: self.hand,
            kind,
            played: self.played,
            best: best.action,
            loss,
            stderr,
            mark: Mark::of(loss, stderr, best.action == self.played),
            moves,
        }
    }

    fn forced(&self, kind: DecisionKind) -> DecisionReview {
        DecisionReview {
            index: self.index,
            hand: self.hand,
            kind,
            played: self.played,
            best: self.played,
            loss: 0.0,
            stderr: 0.0,
            mark: Mark::Best,
            moves: vec![MoveValue {
                action: self.played,
                value: 0.0,
                stderr: 0.0,
                samples: 0,
            }],
        }
    }
}

/// Each legal move's value from the search's root statistics (paired with
/// `played`), best first, and the preferred move: the best value among
/// the made move and the moves the search kept to its last round (those
/// compared on at least half as many samples as the most compared other
/// move). A move dropped early has few samples, and the best of many noisy
/// means is biased upwards; the search itself chooses among its finalists.
fn values(
    stats: &[RootStat],
    played: Action,
    legal: &[Action],
) -> (Vec<MoveValue>, Option<MoveValue>) {
    let Some(made) = stats.iter().find(|s| s.action == played) else {
        return (Vec::new(), None);
    };
    let base = made.points / f64::from(made.visits.max(1));
    let mut moves: Vec<MoveValue> = stats
        .iter()
        .filter(|s| legal.contains(&s.action))
        .map(|s| {
            if s.action == played {
                return MoveValue {
                    action: s.action,
                    value: base,
                    stderr: 0.0,
                    samples: s.paired,
                };
            }
            let n = f64::from(s.paired.max(1));
            let mean = s.points_diff / n;
            let var = (s.points_diff_sq / n - mean * mean).max(0.0);
            // A move never compared gets an unknown difference: its own
            // mean, with no claim of precision.
            if s.paired == 0 {
                return MoveValue {
                    action: s.action,
                    value: s.points / f64::from(s.visits.max(1)),
                    stderr: f64::INFINITY,
                    samples: 0,
                };
            }
            MoveValue {
                action: s.action,
                value: base + mean,
                stderr: (var / (n - 1.0).max(1.0)).sqrt(),
                samples: s.paired,
            }
        })
        .collect();
    moves.sort_by(|a, b| b.value.total_cmp(&a.value));
    let most = moves
        .iter()
        .filter(|m| m.action != played)
        .map(|m| m.samples)
        .max()
        .unwrap_or(0);
    let best = moves
        .iter()
        .filter(|m| m.action == played || (m.samples > 0 && 2 * m.samples >= most))
        .copied()
        .max_by(|a, b| {
            // Ties go to the made move: no loss is claimed on a tie.
            a.value
                .total_cmp(&b.value)
                .then((a.action == played).cmp(&(b.action == played)))
        });
    // JSON has no infinity: a never-compared move reports no error bar.
    for m in &mut moves {
        if !m.stderr.is_finite() {
            m.stderr = 0.0;
        }
    }
    (moves, best)
}

fn hand_summaries(decisions: &[DecisionReview]) -> Vec<HandReview> {
    let mut hands: Vec<HandReview> = Vec::new();
    let mut start = 0;
    while start < decisions.len() {
        let hand = decisions[start].hand;
        let end = decisions[start..]
            .iter()
            .position(|d| d.hand != hand)
            .map_or(decisions.len(), |n| start + n);
        let these: Vec<&DecisionReview> = decisions[start..end].iter().collect();
        hands.push(HandReview {
            hand,
            decisions: these.len(),
            points_lost: these.iter().map(|d| d.loss).sum(),
            accuracy: accuracy(&these),
        });
        start = end;
    }
    hands
}

/// A whole game (or its first `hands` hands) played by the classic bot at
/// every seat, seeded: sample games for tests, benchmarks and the
/// calibration harness.
pub fn classic_game(config: mille_engine::GameConfig, seed: u64, hands: Option<u32>) -> GameRecord {
    let mut record = GameRecord::new(config, seed);
    let Ok(mut state) = State::new(config, seed) else {
        return record;
    };
    let mut bots: Vec<mille_ai::ClassicBot> = (0..config.players)
        .map(|s| mille_ai::ClassicBot::new(seed ^ (u64::from(s) + 1)))
        .collect();
    let mut played = 0;
    // A game is a few hundred moves; the guard only stops a broken one.
    for _ in 0..20_000 {
        let action = match state.to_act() {
            ToAct::Seat(s) => match mille_ai::bot_action(&mut bots[s.index()], &state) {
                Some(Ok(a)) => a,
                _ => break,
            },
            ToAct::Deal => {
                played += 1;
                if hands.is_some_and(|h| played >= h) {
                    break;
                }
                Action::NextHand
            }
            ToAct::GameOver => break,
        };
        if state.apply(action).is_err() {
            break;
        }
        record.actions.push(action);
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_follow_the_thresholds() {
        assert_eq!(Mark::of(0.0, 0.0, true), Mark::Best);
        assert_eq!(Mark::of(20.0, 25.0, false), Mark::Best);
        assert_eq!(Mark::of(30.0, 5.0, false), Mark::Good);
        assert_eq!(Mark::of(50.0, 5.0, false), Mark::Inaccuracy);
        assert_eq!(Mark::of(149.0, 5.0, false), Mark::Inaccuracy);
        assert_eq!(Mark::of(150.0, 5.0, false), Mark::Mistake);
        assert_eq!(Mark::of(300.0, 5.0, false), Mark::Blunder);
    }

    #[test]
    fn accuracy_falls_with_the_loss() {
        assert!((decision_accuracy(0.0) - 100.0).abs() < 1e-9);
        assert!((decision_accuracy(ACCURACY_SCALE) - 100.0 / std::f64::consts::E).abs() < 1e-9);
        assert!(decision_accuracy(300.0) < decision_accuracy(150.0));
    }
}
