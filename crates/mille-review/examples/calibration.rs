//! How good is the judge: for a sample of reviewed decisions, the two
//! moves compared (the made one and the preferred one; when they are the
//! same, the preferred one and the runner-up) are played out many times
//! from fresh determinizations of the seat's view (the seat then played
//! by `easy`, a small search, the others by the classic bot), and the
//! measured mean difference in hand points is
//! set beside the review's estimate.
//!
//! `cargo run --release -p mille-review --example calibration [HANDS] [PLAYOUTS] [SVG]`
//! (defaults: 4 hands of the classic bot's 2-player games, seat 0, the
//! default review budget; 300 paired play-outs a decision; the plot to
//! `docs/review-calibration.svg`). Prints the summary figures.

use mille_ai::search::hand_margin;
use mille_ai::{ClassicBot, Level, SearchBot};
use mille_engine::view::{Decision, determinize_for};
use mille_engine::{Action, GameConfig, Phase, State};
use mille_review::{ReviewConfig, classic_game, review_game};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use rayon::prelude::*;
use std::fmt::Write as _;

/// One compared pair: the review's estimate of value(a) - value(b) and the
/// play-outs' measurement of it.
struct Point {
    estimate: f64,
    estimate_se: f64,
    measured: f64,
    measured_se: f64,
}

/// Plays the hand out: the seat by `easy` (a small search, so that its
/// later decisions are sound, as the review assumes), the others by the
/// classic bot.
fn playout(state: &mut State, seat: u8, own: &mut SearchBot, players: &mut [ClassicBot]) {
    for _ in 0..2000 {
        let a = match state.phase() {
            Phase::Turn { drawn: false, .. } => Action::Draw,
            Phase::HandOver | Phase::GameOver => return,
            Phase::Turn { seat: s, .. }
            | Phase::CoupFourre { seat: s, .. }
            | Phase::Extension { seat: s }
                if s.number() == seat =>
            {
                let decision = match state.phase() {
                    Phase::CoupFourre {
                        hazard, attacker, ..
                    } => Decision::CoupFourre {
                        hazard,
                        attacker: attacker.number(),
                    },
                    Phase::Extension { .. } => Decision::Extension,
                    _ => Decision::Turn,
                };
                own.choose(&state.view(s), decision)
            }
            Phase::Turn { seat, .. }
            | Phase::CoupFourre { seat, .. }
            | Phase::Extension { seat } => players[seat.index()].decide_state(state, seat),
        };
        if state.apply(a).is_err() {
            return;
        }
    }
}

/// The mean and standard error of margin(a) - margin(b) over `n` paired
/// play-outs from determinizations of the seat's view at `index`.
fn measure(state: &State, seat: u8, a: Action, b: Action, n: u32, seed: u64) -> (f64, f64) {
    let Some(me) = state.rules().seat(seat) else {
        return (0.0, 0.0);
    };
    let view = state.view(me);
    let decision = match state.phase() {
        Phase::CoupFourre {
            hazard, attacker, ..
        } => Decision::CoupFourre {
            hazard,
            attacker: attacker.number(),
        },
        Phase::Extension { .. } => Decision::Extension,
        _ => Decision::Turn,
    };
    let team = state.team_of(me);
    let diffs: Vec<f64> = (0..n)
        .into_par_iter()
        .filter_map(|i| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ u64::from(i).wrapping_mul(0x9E37_79B9));
            let base = determinize_for(&view, decision, &mut rng).ok()?;
            let play_seed = rng.next_u64();
            let value = |action: Action| {
                let mut s = base.clone();
                s.apply(action).ok()?;
                let mut players: Vec<ClassicBot> = (0..state.rules().seats)
                    .map(|k| ClassicBot::new(play_seed ^ u64::from(k)))
                    .collect();
                let budget = Level::Easy.uncapped_budget().unwrap_or_default();
                let mut own = SearchBot::new("easy", budget, play_seed);
                playout(&mut s, seat, &mut own, &mut players);
                Some(hand_margin(&s, team))
            };
            Some(value(a)? - value(b)?)
        })
        .collect();
    let k = diffs.len().max(2) as f64;
    let mean = diffs.iter().sum::<f64>() / k;
    let var = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (k - 1.0);
    (mean, (var / k).sqrt())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let hands: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(4);
    let playouts: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let svg_path = args
        .next()
        .unwrap_or_else(|| "docs/review-calibration.svg".to_string());
    // REVIEW_UNIFORM=1: the review without beliefs, for comparison.
    let config = ReviewConfig {
        beliefs: std::env::var_os("REVIEW_UNIFORM").is_none(),
        ..ReviewConfig::default()
    };
    let mut points = Vec::new();
    for game in 0..hands {
        let record = classic_game(GameConfig::default(), 1000 + game, Some(1));
        let Ok(review) = review_game(&record, 0, &config) else {
            continue;
        };
        let mut state = match State::new(record.config, record.seed) {
            Ok(s) => s,
            Err(_) => continue,
        };
        let mut next = 0;
        for d in review.decisions.iter().filter(|d| d.had_choice()) {
            while next < d.index {
                if state.apply(record.actions[next]).is_err() {
                    break;
                }
                next += 1;
            }
            let value = |a: Action| d.moves.iter().find(|m| m.action == a);
            let (Some(best), other) = (value(d.best), value(d.played)) else {
                continue;
            };
            let (other, estimate_se) = if d.played != d.best {
                (other, d.stderr)
            } else {
                // The runner-up among the moves compared on many samples.
                let most = d.moves.iter().map(|m| m.samples).max().unwrap_or(0);
                let runner = d
                    .moves
                    .iter()
                    .filter(|m| m.action != d.best && 2 * m.samples >= most / 2)
                    .max_by(|a, b| a.value.total_cmp(&b.value));
                (runner, runner.map_or(0.0, |r| r.stderr))
            };
            let Some(other) = other else {
                continue;
            };
            let (measured, measured_se) = measure(
                &state,
                0,
                best.action,
                other.action,
                playouts,
                0xCA11_B4A7 ^ d.index as u64 ^ (game << 32),
            );
            if std::env::var_os("CALIBRATION_VERBOSE").is_some() {
                eprintln!(
                    "#{} {} vs {}: estimate {:.0} ± {:.0}, measured {measured:.0} ± {measured_se:.0}",
                    d.index,
                    best.action,
                    other.action,
                    best.value - other.value,
                    estimate_se
                );
            }
            points.push(Point {
                estimate: best.value - other.value,
                estimate_se,
                measured,
                measured_se,
            });
        }
        eprintln!("hand {}: {} points so far", game + 1, points.len());
    }
    if points.is_empty() {
        eprintln!("no decisions to calibrate");
        return;
    }
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.estimate).sum::<f64>() / n;
    let my = points.iter().map(|p| p.measured).sum::<f64>() / n;
    let sxy: f64 = points
        .iter()
        .map(|p| (p.estimate - mx) * (p.measured - my))
        .sum();
    let sxx: f64 = points.iter().map(|p| (p.estimate - mx).powi(2)).sum();
    let syy: f64 = points.iter().map(|p| (p.measured - my).powi(2)).sum();
    let slope = sxy / sxx.max(1e-9);
    let intercept = my - slope * mx;
    let r = sxy / (sxx * syy).sqrt().max(1e-9);
    let mae = points
        .iter()
        .map(|p| (p.estimate - p.measured).abs())
        .sum::<f64>()
        / n;
    let covered = points
        .iter()
        .filter(|p| {
            (p.estimate - p.measured).abs()
                <= 2.0 * (p.estimate_se.powi(2) + p.measured_se.powi(2)).sqrt()
        })
        .count();
    let sign = points
        .iter()
        .filter(|p| p.estimate > 1.0)
        .filter(|p| p.measured > 0.0)
        .count();
    let positive = points.iter().filter(|p| p.estimate > 1.0).count();
    let mean_est_se = points.iter().map(|p| p.estimate_se).sum::<f64>() / n;
    let mean_meas_se = points.iter().map(|p| p.measured_se).sum::<f64>() / n;
    let summary = format!(
        "{} decisions; slope {slope:.2} (intercept {intercept:.1}), correlation {r:.2}; \
         mean absolute error {mae:.1} points; ±2 SE coverage {:.0}% ({covered}/{}); \
         preferred move measured better in {sign} of {positive}; mean SE: estimate {mean_est_se:.1}, \
         measurement {mean_meas_se:.1}",
        points.len(),
        100.0 * covered as f64 / n,
        points.len()
    );
    println!("{summary}");
    let svg = plot(&points, slope, intercept, &summary);
    if let Err(e) = std::fs::write(&svg_path, svg) {
        eprintln!("cannot write {svg_path}: {e}");
    } else {
        println!("plot written to {svg_path}");
    }
}

/// A scatter plot of measured against estimated differences, the
/// diagonal and the fitted line, as plain SVG.
fn plot(points: &[Point], slope: f64, intercept: f64, summary: &str) -> String {
    let (w, h, m) = (640.0, 560.0, 70.0);
    let hi = points
        .iter()
        .flat_map(|p| [p.estimate, p.measured])
        .fold(100.0f64, f64::max);
    let lo = points
        .iter()
        .flat_map(|p| [p.estimate, p.measured])
        .fold(-50.0f64, f64::min);
    let step = if hi - lo > 1000.0 { 200.0 } else { 100.0 };
    let (lo, hi) = ((lo / step).floor() * step, (hi / step).ceil() * step);
    let x = |v: f64| m + (v - lo) / (hi - lo) * (w - 2.0 * m);
    let y = |v: f64| h - m - (v - lo) / (hi - lo) * (h - 2.0 * m);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        s,
        r#"<title>Review calibration: estimated against measured points lost</title>"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let mut t = lo;
    while t <= hi + 0.5 {
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{t}</text>"##,
            x(t),
            y(lo),
            x(t),
            y(hi),
            x(t),
            y(lo) + 16.0
        );
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{t}</text>"##,
            x(lo),
            y(t),
            x(hi),
            y(t),
            x(lo) - 6.0,
            y(t) + 4.0
        );
        t += step;
    }
    let _ = writeln!(
        s,
        r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#888" stroke-dasharray="6 4"/>"##,
        x(lo),
        y(lo),
        x(hi),
        y(hi)
    );
    let _ = writeln!(
        s,
        r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#c33" stroke-width="1.5"/>"##,
        x(lo),
        y(intercept + slope * lo),
        x(hi),
        y(intercept + slope * hi)
    );
    for p in points {
        let _ = writeln!(
            s,
            r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#69c"/><circle cx="{:.1}" cy="{:.1}" r="3" fill="#236"/>"##,
            x(p.estimate),
            y(p.measured - 2.0 * p.measured_se),
            x(p.estimate),
            y(p.measured + 2.0 * p.measured_se),
            x(p.estimate),
            y(p.measured)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">estimated difference (review, points)</text>"#,
        w / 2.0,
        h - 20.0
    );
    let _ = writeln!(
        s,
        r#"<text x="20" y="{:.1}" text-anchor="middle" transform="rotate(-90 20 {:.1})">measured difference (play-outs, points)</text>"#,
        h / 2.0,
        h / 2.0
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="24" text-anchor="middle" font-size="13">Review calibration: dashed y = x, red the fitted line, bars ±2 SE</text>"#,
        w / 2.0
    );
    // The summary on two lines, split at its middle clause.
    let clauses: Vec<&str> = summary.split("; ").collect();
    let half = clauses.len().div_ceil(2);
    for (line, part) in [&clauses[..half], &clauses[half..]].iter().enumerate() {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{}" text-anchor="middle" font-size="10">{}</text>"#,
            w / 2.0,
            40 + 13 * line,
            part.join("; ")
        );
    }
    s.push_str("</svg>\n");
    s
}
