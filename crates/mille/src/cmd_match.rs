//! `mille match`: bots against bots on duplicate deals.
//!
//! Each deal (a seed for the game's shuffles) is played once per seating:
//! with two sides the bots swap seats, with three they rotate, so every bot
//! gets every deal's cards and luck cancels out. Games run in parallel
//! (`--jobs`) but each is seeded on its own and the report is built in
//! game order, so a seed gives the same report whatever the thread count
//! (with `--exact`: otherwise the search levels' time caps, which stop a
//! few of their decisions early, depend on the machine and its load).

use anyhow::{Context, bail};
use clap::Args;
use game_table::{Player, SeatInfo, Step, Table, TableError};
use indicatif::{ProgressBar, ProgressStyle};
use mille_ai::{Level, MilleBot, Timed, make_bot};
use mille_engine::{Action, GameConfig, Mille, RulesetId, State};
use mille_protocol::ExternalBot;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Options of `mille match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// A player: a level (random, classic, easy, normal), `policy`
    /// (the heuristic that orders the search's moves, alone), or the
    /// command line of a program speaking the bot protocol. Give one per
    /// side (2 for 2 or 4 players, 3 for 3 or 6); partners are played by
    /// separate instances of the same bot. Default: normal against classic.
    #[arg(long = "bot", value_name = "LEVEL|COMMAND")]
    bots: Vec<String>,
    /// Number of games (rounded up to whole deals: one game per seating).
    #[arg(long, short = 'n', default_value_t = 100)]
    games: u32,
    /// Ruleset: bsd, classic or milebones.
    #[arg(long, default_value = "bsd")]
    rules: RulesetId,
    /// Number of players (2, 3, 4 or 6; more than 2 needs classic rules).
    #[arg(long, default_value_t = 2)]
    players: u8,
    /// The seed of every deal and every bot; a seed replays the match.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once. With 1 (the default) each search level uses
    /// every core, as in the terminal game; with more, the games share
    /// that many threads.
    #[arg(long, short = 'j', default_value_t = 1)]
    jobs: usize,
    /// How long an external bot may think about one answer, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
    /// Search levels ignore their time cap (which stops a few of their
    /// decisions early, more on a slow or loaded machine): a seed then
    /// replays exactly.
    #[arg(long)]
    exact: bool,
    /// Print the summary as one JSON object on standard output.
    #[arg(long)]
    json: bool,
    /// Keep each finished game in FILE, and play only the games FILE does
    /// not hold yet: a stopped match goes on where it stopped, and a
    /// longer match (a larger --games) extends a shorter one. The
    /// other options must be those FILE was started with.
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
}

/// What a bot specification names.
#[derive(Clone, Debug)]
enum Spec {
    Level(Level),
    /// The search's move-ordering heuristic alone.
    Policy,
    Command(String),
}

impl Spec {
    /// What the report calls it.
    fn label(&self) -> String {
        match self {
            Spec::Level(l) => l.id().to_string(),
            Spec::Policy => "policy".to_string(),
            Spec::Command(c) => c.clone(),
        }
    }
    fn parse(s: &str) -> Spec {
        if s == "policy" {
            return Spec::Policy;
        }
        s.parse::<Level>()
            .map_or_else(|_| Spec::Command(s.to_string()), Spec::Level)
    }
    fn start(&self, seed: u64, timeout: Duration, exact: bool) -> Result<Box<MilleBot>, String> {
        match self {
            Spec::Level(l) => match l.uncapped_budget() {
                Some(budget) if exact => {
                    Ok(Box::new(mille_ai::SearchBot::new(l.id(), budget, seed)))
                }
                _ => Ok(make_bot(*l, seed)),
            },
            Spec::Policy => Ok(Box::new(mille_ai::policy::PolicyBot::new(seed))),
            Spec::Command(c) => ExternalBot::spawn(c, timeout)
                .map(|b| Box::new(b) as Box<MilleBot>)
                .map_err(|e| e.to_string()),
        }
    }
}

/// One bot's part of one game.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Part {
    /// 1 for a win, a share of it for a shared win.
    pub won: f64,
    /// Hands played.
    pub hands: u32,
    /// Points scored over those hands.
    pub points: u64,
    /// Hands in which the bot's side completed the trip.
    pub trips: u32,
    /// How long each of its decisions took.
    pub decision_ms: Vec<f32>,
}

/// The result of one game.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GameResult {
    /// Per bot index.
    pub parts: Vec<Part>,
    /// The bot that lost the game by failing, and how.
    pub forfeit: Option<(usize, String)>,
}

/// The highest number of hands a game may take before it is abandoned as
/// a draw (a guard against bots that never finish).
const MAX_HANDS: u32 = 200;

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Plays one game: the deal `deal_seed`, side `t` played by bot
/// `(t + rotation) % bots`.
fn play_game(
    config: GameConfig,
    specs: &[Spec],
    deal_seed: u64,
    rotation: usize,
    bot_seed: u64,
    timeout: Duration,
    exact: bool,
) -> GameResult {
    let nb = specs.len();
    let mut parts = vec![Part::default(); nb];
    let state = match State::new(config, deal_seed) {
        Ok(s) => s,
        Err(e) => {
            return GameResult {
                parts,
                forfeit: Some((0, e.to_string())),
            };
        }
    };
    let rules = *state.rules();
    let bot_of_team = |t: u8| (t as usize + rotation) % nb;
    // A seat the table names is at it; were it not, its side is unknown
    // and the blame goes to side 0's bot.
    let bot_of_seat = |s: usize| {
        let seat = u8::try_from(s).ok().and_then(|n| rules.seat(n));
        bot_of_team(seat.map_or(0, |seat| rules.team_of(seat)))
    };
    let mut seats = Vec::new();
    // Each seat's decision times, its bot's thinking alone.
    let mut times = Vec::new();
    for s in 0..rules.seats {
        let b = bot_of_seat(usize::from(s));
        match specs[b].start(splitmix(bot_seed ^ u64::from(s)), timeout, exact) {
            Ok(bot) => {
                let info = SeatInfo::computer(bot.name(), specs[b].label());
                let (timed, seat_times) = Timed::new(bot);
                times.push((b, seat_times));
                seats.push((info, Player::Bot(Box::new(timed) as Box<MilleBot>)));
            }
            Err(e) => return forfeit(parts, b, e, nb),
        }
    }
    let mut table = Table::<Mille>::new(state, seats);
    let result = loop {
        match table.step() {
            Ok(Step::Moved { .. }) => {
                let state = table.state();
                if let Some(scores) = state.last_scores()
                    && matches!(
                        table.turn(),
                        game_table::Turn::Host | game_table::Turn::Over
                    )
                {
                    for (t, sc) in scores.iter().enumerate() {
                        let p = &mut parts[bot_of_team(t as u8)];
                        p.hands += 1;
                        p.points += u64::from(sc.total());
                        if state.completed() == Some(t as u8) {
                            p.trips += 1;
                        }
                    }
                }
            }
            Ok(Step::Host) => {
                if table.state().hand_number() + 1 >= MAX_HANDS {
                    // Abandoned: nobody wins.
                    break None;
                }
                if let Err(e) = table.host_act(Action::NextHand) {
                    break Some((0, e.to_string()));
                }
            }
            Ok(Step::Over) => {
                let winners = table.state().winners();
                for &w in &winners {
                    parts[bot_of_team(w)].won += 1.0 / winners.len() as f64;
                }
                break None;
            }
            Ok(Step::Person(seat)) => {
                break Some((bot_of_seat(seat), format!("seat {seat} has no bot")));
            }
            Err(e) => {
                let seat = match &e {
                    TableError::BotIllegal { seat, .. } | TableError::BotFailed { seat, .. } => {
                        *seat
                    }
                    _ => 0,
                };
                break Some((bot_of_seat(seat), e.to_string()));
            }
        }
    };
    for (b, seat_times) in times {
        if let Ok(list) = seat_times.lock() {
            parts[b]
                .decision_ms
                .extend(list.iter().map(|d| d.as_secs_f32() * 1000.0));
        }
    }
    match result {
        Some((b, why)) => forfeit(parts, b, why, nb),
        None => GameResult {
            parts,
            forfeit: None,
        },
    }
}

/// The game is lost by bot `b`; the other bots share the win.
fn forfeit(mut parts: Vec<Part>, b: usize, why: String, nb: usize) -> GameResult {
    for (i, p) in parts.iter_mut().enumerate() {
        p.won = if i == b { 0.0 } else { 1.0 / (nb - 1) as f64 };
    }
    GameResult {
        parts,
        forfeit: Some((b, why)),
    }
}

/// A bot's line of the report.
#[derive(Serialize, Debug)]
struct BotSummary {
    bot: String,
    games: u32,
    wins: f64,
    win_rate: f64,
    ci95: [f64; 2],
    hands: u32,
    points_per_hand: f64,
    trips_completed: u32,
    trip_rate: f64,
    decisions: usize,
    decision_ms_median: f64,
    decision_ms_p95: f64,
    decision_ms_max: f64,
    forfeits: u32,
    /// The same match measured deal by deal, the unit that duplicate deals
    /// make independent.
    paired: Paired,
}

/// A bot's results averaged per deal (over the deal's seatings), so that
/// the luck of a deal, shared by both sides, cancels out of the intervals:
/// the win rate, and its points a hand minus the mean of the other sides'
/// (the margin), each with a 95% interval from the spread between deals.
#[derive(Serialize, Debug)]
struct Paired {
    deals: u32,
    win_rate_ci95: [f64; 2],
    margin_per_hand: f64,
    margin_ci95: [f64; 2],
}

/// The mean of `xs` and its 95% interval (normal approximation).
fn mean_ci(xs: &[f64]) -> (f64, [f64; 2]) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (0.0, [0.0, 0.0]);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, [mean, mean]);
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    let half = 1.96 * (var / n).sqrt();
    (mean, [mean - half, mean + half])
}

/// Bot `b`'s [`Paired`] results over `results`, games `seatings` at a
/// time making one deal.
fn paired(results: &[GameResult], b: usize, seatings: usize) -> Paired {
    let mut wins = Vec::new();
    let mut margins = Vec::new();
    for deal in results.chunks(seatings.max(1)) {
        let won: f64 = deal.iter().map(|r| r.parts[b].won).sum();
        wins.push(won / deal.len() as f64);
        let hands: u32 = deal.iter().map(|r| r.parts[b].hands).sum();
        if hands == 0 {
            continue;
        }
        let points = |i: usize| deal.iter().map(|r| r.parts[i].points as f64).sum::<f64>();
        let others = deal[0].parts.len().saturating_sub(1).max(1) as f64;
        let rest: f64 = (0..deal[0].parts.len())
            .filter(|&i| i != b)
            .map(points)
            .sum();
        margins.push((points(b) - rest / others) / f64::from(hands));
    }
    // Over few deals the normal approximation can reach past 0% or 100%,
    // which a share of games cannot.
    let (_, win_rate_ci95) = mean_ci(&wins);
    let win_rate_ci95 = win_rate_ci95.map(|x| x.clamp(0.0, 1.0));
    let (margin_per_hand, margin_ci95) = mean_ci(&margins);
    Paired {
        deals: wins.len() as u32,
        win_rate_ci95,
        margin_per_hand,
        margin_ci95,
    }
}

/// A forfeited game.
#[derive(Serialize, Debug)]
struct ForfeitSummary {
    game: usize,
    bot: String,
    error: String,
}

/// The whole report.
#[derive(Serialize, Debug)]
struct Summary {
    rules: String,
    players: u8,
    seed: u64,
    deals: u32,
    games: u32,
    seconds: f64,
    bots: Vec<BotSummary>,
    forfeits: Vec<ForfeitSummary>,
}

/// Wilson score interval at 95% for `wins` out of `n`.
fn wilson(wins: f64, n: f64) -> [f64; 2] {
    if n <= 0.0 {
        return [0.0, 1.0];
    }
    let z = 1.96;
    let p = wins / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt()) / denom;
    [(centre - half).max(0.0), (centre + half).min(1.0)]
}

fn percentile(sorted: &[f32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    f64::from(sorted[i.min(sorted.len() - 1)])
}

/// Runs the match.
pub fn run(args: MatchArgs) -> anyhow::Result<()> {
    let config = GameConfig {
        rules: args.rules,
        players: args.players,
        stacking: false,
    };
    let rules = mille_engine::Rules::new(config).context("cannot seat this table")?;
    let names: Vec<String> = if args.bots.is_empty() {
        vec!["normal".into(), "classic".into()]
    } else {
        args.bots.clone()
    };
    if names.len() != rules.teams as usize {
        bail!(
            "a {}-player game has {} sides: give {} --bot options, not {}",
            args.players,
            rules.teams,
            rules.teams,
            names.len()
        );
    }
    let specs: Vec<Spec> = names.iter().map(|s| Spec::parse(s)).collect();
    for s in &specs {
        if let Spec::Command(c) = s {
            mille_protocol::split_command(c).map_err(|e| anyhow::anyhow!("{e}"))?;
        }
    }
    let seatings = specs.len() as u32;
    let deals = args.games.max(1).div_ceil(seatings);
    let games = deals
        .checked_mul(seatings)
        .with_context(|| format!("--games {} is more games than a match counts", args.games))?;
    let timeout = Duration::from_millis(args.timeout_ms.max(1));

    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new(u64::from(games))
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, {elapsed} elapsed, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let (record, mut recorded) = match &args.resume {
        Some(path) => {
            let id = crate::match_record::MatchId {
                rules: args.rules.id().to_string(),
                players: args.players,
                seed: args.seed,
                bots: names.clone(),
                exact: args.exact,
            };
            let (record, games) = crate::match_record::open(path, &id)?;
            (Some(record), games)
        }
        None => (None, BTreeMap::new()),
    };
    // Games past this match's count stay in the record for a longer one.
    recorded.retain(|&g, _| g < games);
    bar.inc(recorded.len() as u64);
    let to_play: Vec<u32> = (0..games).filter(|g| !recorded.contains_key(g)).collect();
    let started = Instant::now();
    let one_game = |g: u32| -> anyhow::Result<(u32, GameResult)> {
        let deal = g / seatings;
        let rotation = (g % seatings) as usize;
        let deal_seed = splitmix(args.seed ^ splitmix(u64::from(deal)));
        let bot_seed = splitmix(deal_seed ^ splitmix(u64::from(g) + 0x1234));
        let r = play_game(
            config, &specs, deal_seed, rotation, bot_seed, timeout, args.exact,
        );
        if let Some(record) = &record {
            record.add(g, &r)?;
        }
        bar.inc(1);
        Ok((g, r))
    };
    // One job plays the games one after the other, each search using
    // every core, as in the terminal game; more jobs play that many games
    // at once, their searches sharing those threads.
    let played: Vec<(u32, GameResult)> = if args.jobs <= 1 {
        to_play
            .into_iter()
            .map(one_game)
            .collect::<anyhow::Result<_>>()?
    } else {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.jobs)
            .build()
            .context("cannot start worker threads")?;
        pool.install(|| {
            to_play
                .into_par_iter()
                .map(one_game)
                .collect::<anyhow::Result<_>>()
        })?
    };
    recorded.extend(played);
    // In game order, recorded or just played.
    let results: Vec<GameResult> = recorded.into_values().collect();
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();

    let mut bots: Vec<BotSummary> = Vec::new();
    let mut forfeits = Vec::new();
    for (b, name) in names.iter().enumerate() {
        let mut wins = 0.0;
        let (mut hands, mut points, mut trips, mut lost) = (0u32, 0u64, 0u32, 0u32);
        let mut times: Vec<f32> = Vec::new();
        for r in &results {
            let p = &r.parts[b];
            wins += p.won;
            hands += p.hands;
            points += p.points;
            trips += p.trips;
            times.extend_from_slice(&p.decision_ms);
            if matches!(&r.forfeit, Some((fb, _)) if *fb == b) {
                lost += 1;
            }
        }
        times.sort_by(f32::total_cmp);
        let n = f64::from(games);
        bots.push(BotSummary {
            bot: name.clone(),
            games,
            wins,
            win_rate: wins / n,
            ci95: wilson(wins, n),
            hands,
            points_per_hand: if hands > 0 {
                points as f64 / f64::from(hands)
            } else {
                0.0
            },
            trips_completed: trips,
            trip_rate: if hands > 0 {
                f64::from(trips) / f64::from(hands)
            } else {
                0.0
            },
            decisions: times.len(),
            decision_ms_median: percentile(&times, 0.5),
            decision_ms_p95: percentile(&times, 0.95),
            decision_ms_max: percentile(&times, 1.0),
            forfeits: lost,
            paired: paired(&results, b, seatings as usize),
        });
    }
    for (g, r) in results.iter().enumerate() {
        if let Some((b, why)) = &r.forfeit {
            forfeits.push(ForfeitSummary {
                game: g,
                bot: names[*b].clone(),
                error: why.clone(),
            });
        }
    }
    let summary = Summary {
        rules: args.rules.id().to_string(),
        players: args.players,
        seed: args.seed,
        deals,
        games,
        seconds,
        bots,
        forfeits,
    };
    if args.json {
        println!("{}", serde_json::to_string(&summary)?);
    } else {
        print_report(&summary);
    }
    Ok(())
}

fn print_report(s: &Summary) {
    println!(
        "{} games ({} deals x {} seatings), rules {}, {} players, seed {}, {:.1} s",
        s.games,
        s.deals,
        s.bots.len(),
        s.rules,
        s.players,
        s.seed,
        s.seconds
    );
    println!(
        "{:<24} {:>8} {:>7} {:>15} {:>15} {:>9} {:>17} {:>7} {:>10} {:>10}",
        "bot",
        "won",
        "win%",
        "95% interval",
        "paired 95%",
        "pts/hand",
        "margin [paired]",
        "trips%",
        "ms median",
        "ms p95"
    );
    for b in &s.bots {
        let name: String = b.bot.chars().take(24).collect();
        let p = &b.paired;
        println!(
            "{:<24} {:>8.1} {:>6.1}% {:>6.1}%-{:>6.1}% {:>6.1}%-{:>6.1}% {:>9.0} {:>+5.0} [{:>+4.0},{:>+4.0}] {:>6.1}% {:>10.2} {:>10.2}",
            name,
            b.wins,
            100.0 * b.win_rate,
            100.0 * b.ci95[0],
            100.0 * b.ci95[1],
            100.0 * p.win_rate_ci95[0],
            100.0 * p.win_rate_ci95[1],
            b.points_per_hand,
            p.margin_per_hand,
            p.margin_ci95[0],
            p.margin_ci95[1],
            100.0 * b.trip_rate,
            b.decision_ms_median,
            b.decision_ms_p95
        );
    }
    if !s.forfeits.is_empty() {
        println!("{} forfeited games:", s.forfeits.len());
        for f in s.forfeits.iter().take(10) {
            println!("  game {}: {} forfeits: {}", f.game, f.bot, f.error);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(won: [f64; 2], points: [u64; 2], hands: u32) -> GameResult {
        GameResult {
            parts: (0..2)
                .map(|i| Part {
                    won: won[i],
                    hands,
                    points: points[i],
                    ..Part::default()
                })
                .collect(),
            forfeit: None,
        }
    }

    #[test]
    fn paired_results_are_per_deal() {
        // Deal 1: each side wins once and both score as much (the luck of
        // the deal); deal 2: bot 0 wins both, by 100 points a hand.
        let results = [
            game([1.0, 0.0], [3000, 2000], 5),
            game([0.0, 1.0], [2000, 3000], 5),
            game([1.0, 0.0], [2500, 2000], 5),
            game([1.0, 0.0], [2500, 2000], 5),
        ];
        let p = paired(&results, 0, 2);
        assert_eq!(p.deals, 2);
        assert!((p.margin_per_hand - 50.0).abs() < 1e-9, "{p:?}");
        // Per deal: 0.5 and 1.0 won; margins 0 and 100 a hand.
        let (mean, ci) = mean_ci(&[0.5, 1.0]);
        assert!((mean - 0.75).abs() < 1e-9);
        // Two deals: the approximate interval reaches past 100%; the
        // reported one stops there.
        assert!(ci[1] > 1.0, "{ci:?}");
        assert_eq!(p.win_rate_ci95, [ci[0], 1.0]);
        let q = paired(&results, 1, 2);
        assert!((q.margin_per_hand + 50.0).abs() < 1e-9);
        assert!(ci[0] < 0.75 && ci[1] > 0.75);
    }
}
