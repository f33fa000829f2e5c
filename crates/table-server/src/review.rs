//! After-game reviews, made beside the tables and never in their way: a
//! bounded line of review jobs, run on the blocking pool at most
//! [`Config::reviews_at_once`](crate::Config) at a time, their searches on
//! a thread pool of their own of that many threads, so that however many
//! reviews are asked for, the tables keep the other cores. A review is made once per game and seat and
//! kept in the database ([`Store::put_review`]): another instance, or this
//! one after a restart, serves it from there.
//!
//! The document kept and served is the engine's own review (mille's
//! [`mille_review::GameReview`], cubes's [`cubes_ai::review::GameReview`])
//! beside the same decisions in one shape for both games (`decisions`,
//! each with its move in the game's log, the moves in words, the loss in
//! the unit shown and the mark), the summary and the worst decisions.

use crate::store::Store;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};
use table_protocol::{GameKind, TableId};
use tokio::sync::Semaphore;

/// Which review: a table and a seat (0 is the first).
pub type ReviewKey = (TableId, usize);

/// A review to make: the game's engine record and who sat where.
pub struct ReviewJob {
    /// The table and the seat reviewed.
    pub key: ReviewKey,
    /// The game.
    pub game: GameKind,
    /// The engine's record of the game (`GameRecord` as JSON).
    pub record: Value,
    /// Every seat's name, in seat order.
    pub names: Vec<String>,
}

/// Where a review asked for is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Waiting its turn: `position` 1 is the next to be made.
    Queued {
        /// Its place in the line.
        position: usize,
    },
    /// Being made now.
    Running,
    /// It cannot be made: why (the record does not replay).
    Failed(String),
}

/// The line is full: the review is not taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Full;

#[derive(Default)]
struct Line {
    waiting: VecDeque<ReviewKey>,
    running: HashSet<ReviewKey>,
    /// Reviews that could not be made, and why: not tried again until the
    /// server restarts (the record will not change).
    failed: HashMap<ReviewKey, String>,
}

/// The reviews being made and waiting.
pub struct Reviews {
    store: Store,
    iterations: u32,
    max_waiting: usize,
    at_once: usize,
    line: Mutex<Line>,
    permits: Arc<Semaphore>,
    pool: OnceLock<Option<Arc<rayon::ThreadPool>>>,
}

impl Reviews {
    /// The reviews of a server: `at_once` made at a time (0: none here),
    /// at most `max_waiting` waiting, mille searches of `iterations` a
    /// decision.
    pub fn new(store: Store, at_once: usize, max_waiting: usize, iterations: u32) -> Reviews {
        Reviews {
            store,
            iterations: iterations.max(1),
            max_waiting,
            at_once,
            line: Mutex::new(Line::default()),
            permits: Arc::new(Semaphore::new(at_once)),
            pool: OnceLock::new(),
        }
    }

    /// The threads the searches run on: as many as reviews made at once,
    /// made when the first review is.
    fn pool(&self) -> Option<Arc<rayon::ThreadPool>> {
        self.pool
            .get_or_init(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(self.at_once.max(1))
                    .thread_name(|k| format!("review-{k}"))
                    .build()
                    .map_err(|e| tracing::warn!(error = %e, "no threads for the reviews"))
                    .ok()
                    .map(Arc::new)
            })
            .clone()
    }

    /// Where the review `key` is, if it is waiting, being made or failed.
    pub fn progress(&self, key: ReviewKey) -> Option<Progress> {
        let line = self.line.lock().ok()?;
        progress_in(&line, key)
    }

    /// Asks for a review: answers where it is (already waiting or being
    /// made, or put at the end of the line), or [`Full`].
    pub fn ask(self: &Arc<Self>, job: ReviewJob) -> Result<Progress, Full> {
        let key = job.key;
        {
            let Ok(mut line) = self.line.lock() else {
                return Err(Full);
            };
            if let Some(p) = progress_in(&line, key) {
                return Ok(p);
            }
            if line.waiting.len() >= self.max_waiting {
                return Err(Full);
            }
            line.waiting.push_back(key);
        }
        let this = Arc::clone(self);
        tokio::spawn(async move { this.make(job).await });
        Ok(self
            .progress(key)
            .unwrap_or(Progress::Queued { position: 1 }))
    }

    /// Waits for a turn, then makes the review and keeps it.
    async fn make(self: Arc<Self>, job: ReviewJob) {
        let key = job.key;
        let Ok(_permit) = Arc::clone(&self.permits).acquire_owned().await else {
            return;
        };
        if let Ok(mut line) = self.line.lock() {
            line.waiting.retain(|k| *k != key);
            line.running.insert(key);
        }
        let outcome = self.made(job).await;
        if let Ok(mut line) = self.line.lock() {
            line.running.remove(&key);
            if let Err(why) = outcome {
                tracing::warn!(
                    table = key.0,
                    seat = key.1,
                    why,
                    "a review could not be made"
                );
                line.failed.insert(key, why);
            }
        }
    }

    async fn made(&self, job: ReviewJob) -> Result<(), String> {
        let (table, seat) = job.key;
        // Made meanwhile (by another instance, or before a restart)?
        if let Ok(Some(_)) = self.store.review(table, seat).await {
            return Ok(());
        }
        let pool = self.pool().ok_or("the server has no threads for reviews")?;
        let iterations = self.iterations;
        let text = tokio::task::spawn_blocking(move || {
            pool.install(|| document(&job, iterations))
                .and_then(|doc| serde_json::to_string(&doc).map_err(|e| e.to_string()))
        })
        .await
        .map_err(|e| format!("the review stopped: {e}"))??;
        // The database may be away a moment: the review is kept in the
        // next answer's stead, so it is tried once more.
        if let Err(e) = self.store.put_review(table, seat, text.clone()).await {
            tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            self.store
                .put_review(table, seat, text)
                .await
                .map_err(|_| format!("the review was made but could not be kept: {e}"))?;
        }
        Ok(())
    }
}

fn progress_in(line: &Line, key: ReviewKey) -> Option<Progress> {
    if line.running.contains(&key) {
        return Some(Progress::Running);
    }
    if let Some(at) = line.waiting.iter().position(|k| *k == key) {
        return Some(Progress::Queued { position: at + 1 });
    }
    line.failed.get(&key).cloned().map(Progress::Failed)
}

// ---- the document ----------------------------------------------------------

/// Makes the review of `job` and the document served.
pub fn document(job: &ReviewJob, iterations: u32) -> Result<Value, String> {
    let (table, seat) = job.key;
    let name = job
        .names
        .get(seat)
        .cloned()
        .unwrap_or_else(|| format!("Seat {}", seat + 1));
    let body = match job.game {
        GameKind::Mille => mille(job, iterations)?,
        GameKind::Cubes => cubes(job)?,
    };
    let mut doc = json!({
        "id": table,
        "game": match job.game { GameKind::Mille => "mille", GameKind::Cubes => "cubes" },
        "seat": seat,
        "name": name,
        "status": "done",
    });
    if let (Some(doc), Value::Object(body)) = (doc.as_object_mut(), body) {
        doc.extend(body);
    }
    Ok(doc)
}

fn mille(job: &ReviewJob, iterations: u32) -> Result<Value, String> {
    use mille_engine::{Action, Card, card::Kind};
    let record: mille_engine::GameRecord =
        serde_json::from_value(job.record.clone()).map_err(|e| e.to_string())?;
    let seat = u8::try_from(job.key.1).map_err(|_| "no such seat".to_string())?;
    let config = mille_review::ReviewConfig {
        iterations,
        ..mille_review::ReviewConfig::default()
    };
    let review = mille_review::review_game(&record, seat, &config).map_err(|e| e.to_string())?;
    let players = usize::from(record.config.players);
    let sides = match players {
        4 => 2,
        6 => 3,
        n => n,
    };
    // A side by its players' names ("ann", "ann and cy").
    let side = |team: u8| -> String {
        let names: Vec<&str> = (0..players)
            .filter(|s| s % sides.max(1) == usize::from(team))
            .filter_map(|s| job.names.get(s).map(String::as_str))
            .collect();
        if names.is_empty() {
            format!("side {}", team + 1)
        } else {
            names.join(" and ")
        }
    };
    let words = |a: Action| -> String {
        let card = |c: Card| c.name();
        match a {
            Action::Play { card: c, team } if c.kind() == Kind::Hazard => {
                format!("{} on {}", card(c), side(team))
            }
            Action::Play { card: c, .. } => format!("play {}", card(c)),
            Action::Discard(c) => format!("discard {}", card(c)),
            Action::CoupFourre(c) => format!("coup fourré with {}", card(c)),
            Action::DeclineCoupFourre => "no coup fourré".into(),
            Action::Extend(true) => "extend the trip".into(),
            Action::Extend(false) => "end the trip".into(),
            other => other.to_string(),
        }
    };
    // Hands are counted from 0 by the engine (hands dealt before), from 1
    // on the page, as the replay's hand list has them.
    let decisions: Vec<Value> = review
        .decisions
        .iter()
        .map(|d| {
            json!({
                "move": d.index,
                "label": format!("Hand {}", d.hand + 1),
                "kind": d.kind,
                "played": words(d.played),
                "best": words(d.best),
                "same": d.played == d.best,
                "loss": d.loss,
                "stderr": d.stderr,
                "unit": "points",
                "thresholds": [mille_review::INACCURACY, mille_review::MISTAKE, mille_review::BLUNDER],
                "mark": d.mark.label(),
                "choices": d.moves.len(),
            })
        })
        .collect();
    let hands: Vec<Value> = review
        .hands
        .iter()
        .map(|h| {
            json!({
                "label": format!("Hand {}", h.hand + 1),
                "decisions": h.decisions,
                "points_lost": h.points_lost,
                "accuracy": h.accuracy,
            })
        })
        .collect();
    let worst: Vec<Value> = review
        .worst
        .iter()
        .map(|w| json!({ "decision": w.decision, "sentence": w.sentence }))
        .collect();
    Ok(json!({
        "unit": "points",
        "accuracy": review.accuracy(),
        "points_lost": review.points_lost(),
        "decisions": decisions,
        "hands": hands,
        "worst": worst,
        "review": review,
    }))
}

fn cubes(job: &ReviewJob) -> Result<Value, String> {
    use cubes_ai::review::{Mark, Unit};
    use cubes_engine::Action;
    let record: cubes_engine::GameRecord =
        serde_json::from_value(job.record.clone()).map_err(|e| e.to_string())?;
    let review = cubes_ai::review::review_game(&record, job.key.1).map_err(|e| e.to_string())?;
    // Win probability is shown in percentage points, as the thresholds are
    // said.
    let shown = |unit: Unit, x: f64| match unit {
        Unit::WinProbability => x * 100.0,
        Unit::ExpectedPoints => x,
    };
    let unit_word = |unit: Unit| match unit {
        Unit::WinProbability => "percentage points of winning",
        Unit::ExpectedPoints => "points",
    };
    let decisions: Vec<(f64, Value)> = review
        .decisions
        .iter()
        .map(|d| {
            let words = |a: Action| -> String {
                match a {
                    Action::Roll => "roll".into(),
                    Action::Hold => format!("hold (bank {})", d.view.turn.points),
                    Action::Keep(mask) => {
                        let kept: Vec<String> = (0..5)
                            .filter(|&i| mask.contains(i))
                            .map(|i| d.view.turn.dice[i].to_string())
                            .collect();
                        format!("keep {}", kept.join(", "))
                    }
                }
            };
            let t = d.unit.thresholds();
            let kind = match d.made {
                Action::Hold => "hold",
                Action::Keep(_) => "keep",
                Action::Roll => "roll",
            };
            let loss = shown(d.unit, d.loss);
            let blunder = shown(d.unit, t.blunder);
            (
                // Worst by the share of a blunder, so that both units
                // compare.
                if blunder > 0.0 { loss / blunder } else { 0.0 },
                json!({
                    "move": d.action_index,
                    "label": format!("Turn {}", d.turn),
                    "kind": kind,
                    "played": words(d.made),
                    "best": words(d.best),
                    "same": d.made == d.best,
                    "loss": loss,
                    "stderr": 0.0,
                    "unit": unit_word(d.unit),
                    "thresholds": [shown(d.unit, t.inaccuracy), shown(d.unit, t.mistake), blunder],
                    "mark": d.mark.word(),
                    "choices": d.options.len(),
                }),
            )
        })
        .collect();
    // The three worst decisions that lost something, worst first, each
    // said in a sentence of what it cost.
    let mut order: Vec<usize> = (0..decisions.len())
        .filter(|&k| review.decisions[k].mark > Mark::Good)
        .collect();
    order.sort_by(|&a, &b| decisions[b].0.total_cmp(&decisions[a].0).then(a.cmp(&b)));
    let worst: Vec<Value> = order
        .into_iter()
        .take(3)
        .map(|k| {
            let d = &decisions[k].1;
            let sentence = format!(
                "{}: you chose to {} where {} was worth {:.1} {} more (an exact value, the optimal player's).",
                d["label"].as_str().unwrap_or(""),
                d["played"].as_str().unwrap_or(""),
                d["best"].as_str().unwrap_or(""),
                d["loss"].as_f64().unwrap_or(0.0),
                d["unit"].as_str().unwrap_or(""),
            );
            json!({ "decision": k, "sentence": sentence })
        })
        .collect();
    let unit = if review
        .decisions
        .iter()
        .all(|d| d.unit == Unit::ExpectedPoints)
    {
        "points"
    } else {
        "percentage points of winning"
    };
    Ok(json!({
        "unit": unit,
        "accuracy": review.accuracy,
        "points_lost": review.points_lost,
        "win_lost": review.win_lost * 100.0,
        "decisions": decisions.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
        "hands": [],
        "worst": worst,
        "review": review,
    }))
}
