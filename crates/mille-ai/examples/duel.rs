//! A tuning harness for the computer players: two bots on duplicate deals
//! (each deal played twice, seats swapped), 2-player `bsd`, reporting the
//! paired points-per-hand difference with its standard error, each item of
//! the score, and the game win rate. Faster to read than `mille match`
//! when comparing variants of a bot; not part of the product.
//!
//! ```sh
//! cargo run --release -p mille-ai --example duel -- normal classic 200 games 1
//! cargo run --release -p mille-ai --example duel -- policy classic 2000 hands 1
//! DUMP=/tmp/a.txt cargo run --release -p mille-ai --example duel -- normal classic 300 hands 11
//! ```
//! Arguments: bot A, bot B, deals, `hands` (one hand per deal, totals at 0)
//! or `games` (to 5000), seed. A bot is a level (its time cap off, so that
//! the results do not depend on the machine's load), `policy`,
//! `search:N` (N iterations, 2 trees), `blind` (`normal` without its
//! beliefs) or `handoracle` (an experiment: `normal` told the other hand).
//! With `DUMP=file`, A - B per hand of each deal is written there, one
//! line per deal, to compare two variants deal by deal.

#[path = "shared/spec.rs"]
mod spec;

use game_table::{Bot, BotError, Table, Turn};
use mille_ai::policy::PolicyBot;
use mille_ai::{Level, MilleBot, make_bot};
use mille_engine::{Action, GameConfig, HandScore, Mille, Observation, Phase, State, ToAct};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// `normal` told the other hand (not the deck): the ceiling of inference.
struct HandOracle {
    truth: std::sync::Arc<std::sync::Mutex<Vec<Vec<mille_engine::Card>>>>,
    anchor: mille_ai::ClassicBot,
    seed: u64,
}
impl Bot<Mille> for HandOracle {
    fn name(&self) -> &str {
        "handoracle"
    }
    fn decide(&mut self, o: &Observation) -> Result<Action, BotError> {
        let (v, Some(d)) = (&o.view, o.decision()) else {
            return Ok(Action::Draw);
        };
        self.seed = self
            .seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let anchor = self.anchor.choose(v, d);
        let hands = self.truth.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let sample = |rng: &mut rand_chacha::ChaCha8Rng| {
            mille_engine::view::determinize_at(v, v.seat, d, &hands, rng).ok()
        };
        let b = normal_budget();
        let players: mille_ai::search::Players =
            std::array::from_fn(|_| mille_ai::ClassicBot::new(0));
        let action =
            mille_ai::search::search_with(v, Some(anchor), b, self.seed, &sample, &players)
                .unwrap_or(Action::Draw);
        // As `normal` does after its search.
        Ok(mille_ai::search::safety_before_finishing(v, d, action))
    }
}

/// `normal`'s budget without its time cap.
fn normal_budget() -> mille_ai::Budget {
    Level::Normal.uncapped_budget().unwrap_or_default()
}

struct Blind(mille_ai::SearchBot);
/// Never watches: its search never learns what the other hand played.
impl Bot<Mille> for Blind {
    fn name(&self) -> &str {
        "blind"
    }
    fn decide(&mut self, o: &Observation) -> Result<Action, BotError> {
        self.0.decide(o)
    }
}

fn bot(spec: &str, seed: u64) -> Box<MilleBot> {
    if spec == "blind" {
        // normal without its beliefs about the other hand
        let b = normal_budget();
        return Box::new(Blind(mille_ai::SearchBot::new(spec, b, seed)));
    }
    if spec == "policy" {
        return Box::new(PolicyBot::new(seed));
    }
    // `main` checked the spec: a bad `search:N` or level never gets here.
    match spec::search_budget(spec) {
        Some(Ok(b)) => Box::new(mille_ai::SearchBot::new(spec, b, seed)),
        _ => make_bot(spec.parse().unwrap_or(Level::Classic), seed),
    }
}

#[derive(Default, Clone)]
struct Tally {
    hands: u32,
    /// Per side (A, B): sums of each score item.
    items: [[u64; 9]; 2],
    points: [u64; 2],
    wins: f64,
    games: u32,
    a_time: Duration,
    a_decisions: u32,
    /// Per side: safeties still in the hand of a side that completed the
    /// trip (they could have been played first, each for another turn).
    stranded: [u32; 2],
}

impl Tally {
    /// Adds `other`'s counts to these.
    fn add(&mut self, other: &Tally) {
        self.hands += other.hands;
        for s in 0..2 {
            for i in 0..9 {
                self.items[s][i] += other.items[s][i];
            }
            self.points[s] += other.points[s];
            self.stranded[s] += other.stranded[s];
        }
        self.wins += other.wins;
        self.games += other.games;
        self.a_time += other.a_time;
        self.a_decisions += other.a_decisions;
    }
}

fn item_array(s: &HandScore) -> [u16; 9] {
    s.rows().map(|(_, v)| v)
}

/// Plays one deal with A in seat `a_seat`; returns the tally and A's
/// points minus B's points over the deal's hands.
fn play(a: &str, b: &str, deal: u64, a_seat: u8, games: bool) -> (Tally, i64) {
    let state = State::new(GameConfig::default(), deal).expect("config");
    let truth = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mk = |spec: &str, seed: u64| -> Box<MilleBot> {
        if spec == "handoracle" {
            Box::new(HandOracle {
                truth: truth.clone(),
                anchor: mille_ai::ClassicBot::sharpened(seed),
                seed,
            })
        } else {
            bot(spec, seed)
        }
    };
    // A's decisions are timed, its thinking alone.
    let (timed_a, a_times) = mille_ai::Timed::new(mk(a, deal * 2 + 1));
    let mut bots: [Box<MilleBot>; 2] = [Box::new(timed_a), mk(b, deal * 2 + 2)];
    if a_seat == 1 {
        bots.swap(0, 1);
    }
    let seats = bots
        .into_iter()
        .map(|b| {
            let info = game_table::SeatInfo::computer(b.name(), b.name());
            (info, game_table::Player::Bot(b))
        })
        .collect();
    let mut table = Table::<Mille>::new(state, seats);
    let mut t = Tally::default();
    let mut diff = 0i64;
    loop {
        match table.turn() {
            Turn::Seat(s) => {
                let state = table.state();
                *truth.lock().unwrap_or_else(|e| e.into_inner()) = state
                    .rules()
                    .seats_iter()
                    .map(|x| state.hand(x).to_vec())
                    .collect();
                if let Err(e) = table.step() {
                    panic!("seat {s}: {e}");
                }
                if let Ok(times) = a_times.lock() {
                    t.a_time = times.iter().sum();
                    t.a_decisions = times.len() as u32;
                }
                let state = table.state();
                if state.phase() == Phase::HandOver || state.phase() == Phase::GameOver {
                    let scores = state.last_scores().expect("scores");
                    for (side, seat) in [(0, a_seat), (1, 1 - a_seat)] {
                        let s = &scores[seat as usize];
                        for (i, v) in item_array(s).iter().enumerate() {
                            t.items[side][i] += u64::from(*v);
                        }
                        t.points[side] += u64::from(s.total());
                        let at = state.rules().seat(seat).expect("a seat of the duel");
                        if state.tableau(state.team_of(at)).miles >= state.target() {
                            t.stranded[side] += state
                                .hand(at)
                                .iter()
                                .filter(|c| c.kind() == mille_engine::Kind::Safety)
                                .count() as u32;
                        }
                    }
                    diff += i64::from(scores[a_seat as usize].total())
                        - i64::from(scores[1 - a_seat as usize].total());
                    t.hands += 1;
                    if !games {
                        return (t, diff);
                    }
                }
            }
            Turn::Host => table.host_act(Action::NextHand).expect("deal"),
            Turn::Over => {
                let w = table.state().winners();
                t.games = 1;
                if w.contains(&a_seat) {
                    t.wins = 1.0 / w.len() as f64;
                }
                return (t, diff);
            }
        }
    }
}

/// Whether `spec` names a bot this harness can make.
fn check_spec(spec: &str) -> Result<(), String> {
    if ["blind", "policy", "handoracle"].contains(&spec) {
        return Ok(());
    }
    if let Some(budget) = spec::search_budget(spec) {
        return budget.map(|_| ());
    }
    spec.parse::<Level>().map(|_| ()).map_err(|e| e.to_string())
}

fn usage(problem: &str) -> ! {
    eprintln!("duel: {problem}");
    eprintln!(
        "usage: duel A B DEALS hands|games SEED   (a bot is a level, policy, blind, handoracle or search:N)"
    );
    eprintln!("       duel rollspeed [HANDS]");
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("rollspeed") {
        let n: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20000);
        let start = Instant::now();
        let mut actions = 0u64;
        for d in 0..n {
            let mut state = State::new(GameConfig::default(), d).expect("config");
            let mut bots = [
                mille_ai::ClassicBot::new(d),
                mille_ai::ClassicBot::new(d + 7),
            ];
            while !matches!(state.phase(), Phase::HandOver | Phase::GameOver) {
                let ToAct::Seat(seat) = state.to_act() else {
                    break;
                };
                let a = bots[seat.index()].decide_state(&state, seat);
                state.apply_unchecked(a);
                actions += 1;
            }
        }
        let t = start.elapsed().as_secs_f64();
        println!(
            "{n} classic hands in {t:.2}s: {:.1} us/hand, {:.0} actions/hand",
            t * 1e6 / n as f64,
            actions as f64 / n as f64
        );
        return;
    }
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let (a, b) = (arg(0, "normal"), arg(1, "classic"));
    for spec in [&a, &b] {
        if let Err(e) = check_spec(spec) {
            usage(&e);
        }
    }
    let deals = match arg(2, "100").parse::<u64>() {
        Ok(n) if n > 0 => n,
        _ => usage("DEALS must be a whole number, at least 1"),
    };
    let games = match arg(3, "hands").as_str() {
        "hands" => false,
        "games" => true,
        _ => usage("the fourth argument is `hands` or `games`"),
    };
    let Ok(seed) = arg(4, "1").parse::<u64>() else {
        usage("SEED must be a whole number");
    };
    let start = Instant::now();
    let results: Vec<(Tally, i64)> = (0..deals)
        .into_par_iter()
        .map(|d| {
            let deal = seed.wrapping_mul(1_000_003).wrapping_add(d);
            let (t0, d0) = play(&a, &b, deal, 0, games);
            let (t1, d1) = play(&a, &b, deal, 1, games);
            let mut t = t0;
            t.add(&t1);
            (t, d0 + d1)
        })
        .collect();
    let mut total = Tally::default();
    let mut diffs = Vec::new();
    for (t, d) in &results {
        total.add(t);
        diffs.push(*d as f64 / f64::from(t.hands.max(1)));
    }
    if let Ok(path) = std::env::var("DUMP") {
        let text: String = diffs.iter().map(|d| format!("{d}\n")).collect();
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("duel: could not write {path}: {e}");
        }
    }
    let n = diffs.len() as f64;
    let mean = diffs.iter().sum::<f64>() / n;
    let var = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let hands = f64::from(total.hands);
    println!(
        "{a} vs {b}: {deals} deals, {} hands, {:.1}s",
        total.hands,
        start.elapsed().as_secs_f64()
    );
    println!(
        "pts/hand A {:.0} B {:.0}; A-B per hand (paired) {:+.1} +- {:.1} (1 se)",
        total.points[0] as f64 / hands,
        total.points[1] as f64 / hands,
        mean,
        (var / n).sqrt()
    );
    let labels = HandScore::default().rows().map(|(l, _)| l);
    for (i, l) in labels.iter().enumerate() {
        println!(
            "  {l:<18} A {:>6.1}  B {:>6.1}",
            total.items[0][i] as f64 / hands,
            total.items[1][i] as f64 / hands
        );
    }
    println!(
        "safeties left in the hand of a side that completed the trip, a hand: A {:.3} B {:.3}",
        f64::from(total.stranded[0]) / hands,
        f64::from(total.stranded[1]) / hands
    );
    if total.games > 0 {
        let p = total.wins / f64::from(total.games);
        println!(
            "games {} A wins {:.1} = {:.1}% +- {:.1}",
            total.games,
            total.wins,
            100.0 * p,
            100.0 * (p * (1.0 - p) / f64::from(total.games)).sqrt()
        );
    }
    if total.a_decisions > 0 {
        println!(
            "A mean decision {:.2} ms",
            total.a_time.as_secs_f64() * 1000.0 / f64::from(total.a_decisions)
        );
    }
}
