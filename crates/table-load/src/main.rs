//! `table-load`: a load generator for the table server. It opens many
//! tables of two people over real WebSockets, each seat played by a cheap
//! computer player through `table-client`'s connection, paces every table
//! at one move per interval, and reports the moves acknowledged a second,
//! each move's round trip (sent to acknowledged), the errors, and the
//! server's memory and CPU. Several instances of a server sharing one
//! database may be given: each table then has its two connections on two
//! of them. How to run it and the figures measured: `docs/server.md`.
//!
//! - [`plan`]: the command line and the schedule (ramp, stages, windows);
//! - [`table`]: one table's task;
//! - [`player`]: what a seat reads and plays;
//! - [`stats`]: percentiles and the report;
//! - [`probe`]: the server's memory, CPU time and written moves.

mod plan;
mod player;
mod probe;
mod stats;
mod table;

use anyhow::{Context, anyhow};
use clap::Parser;
use plan::{Args, Plan};
use stats::{Errors, StageSummary, Tally};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use table::{Live, Report, Setting};
use table_client::Connection;
use tokio::time::Instant;

/// How long the tables may take to close after the run's end.
const WIND_DOWN: Duration = Duration::from_secs(20);

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("table-load: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the load; answers whether it went without an error.
fn run(args: &Args) -> anyhow::Result<bool> {
    let plan = Plan::new(args).map_err(|e| anyhow!(e))?;
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    plan.check_files(plan::open_files_limit(&limits))
        .map_err(|e| anyhow!(e))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    runtime.block_on(drive(plan))
}

/// A mark for this run's player names (names are the server's for good).
fn run_mark() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() ^ d.as_secs() as u32);
    format!(
        "{:06x}",
        (nanos ^ std::process::id().rotate_left(12)) & 0xff_ffff
    )
}

/// What the monitor noted at each window's edges.
#[derive(Clone, Default)]
struct Mark {
    at: Option<Instant>,
    /// Each server's figures, in the order of `--server`.
    server: Vec<Option<probe::ServerFigures>>,
    /// Each server process's CPU time, in the order of `--server-pid`.
    server_cpu: Vec<Option<Duration>>,
    database_cpu: Option<Duration>,
    load_cpu: Option<Duration>,
}

impl Mark {
    async fn now(plan: &Plan) -> Mark {
        let mut server = Vec::with_capacity(plan.targets.len());
        for target in &plan.targets {
            server.push(probe::server_figures(target).await);
        }
        Mark {
            at: Some(Instant::now()),
            server,
            server_cpu: plan
                .server_pids
                .iter()
                .map(|p| probe::cpu(&p.to_string()))
                .collect(),
            database_cpu: plan.database_pid.and_then(probe::tree_cpu),
            load_cpu: probe::cpu("self"),
        }
    }

    /// The servers' CPU time together, if every one was read.
    fn servers_cpu(&self) -> Option<Duration> {
        if self.server_cpu.is_empty() {
            return None;
        }
        self.server_cpu.iter().copied().sum()
    }
}

/// Per second of wall time, from `a` to `b`.
fn per_second(a: &Mark, b: &Mark, of: impl Fn(&Mark) -> Option<f64>) -> Option<f64> {
    let wall = b.at?.duration_since(a.at?).as_secs_f64();
    (wall > 0.0).then_some((of(b)? - of(a)?) / wall)
}

/// Moves written, from the servers' figures (all of them together).
fn moves(m: &Mark) -> Option<f64> {
    probe::total(&m.server).map(|s| s.moves as f64)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// The progress line's memory: each server process's resident size.
fn servers_rss(memory: &[Option<probe::Memory>]) -> String {
    if memory.is_empty() {
        return String::new();
    }
    let each: Vec<String> = memory
        .iter()
        .map(|m| m.map_or_else(|| "?".into(), |m| mib(m.rss_kib)))
        .collect();
    format!("  server {}", each.join(" + "))
}

/// With several servers: each stage's moves written a second by each
/// instance (the one that runs the table writes its moves) and each server
/// process's CPU; the stage table shows them summed.
fn by_instance(plan: &Plan, marks: &[(Mark, Mark)]) -> Vec<String> {
    let rate = |x: Option<f64>| x.map_or_else(|| "-".into(), |r| format!("{r:.0}/s"));
    let cpu = |x: Option<f64>| x.map_or_else(|| "-".into(), |c| format!("{:.0}%", c * 100.0));
    marks
        .iter()
        .enumerate()
        .map(|(i, (a, b))| {
            let written: Vec<String> = plan
                .targets
                .iter()
                .enumerate()
                .map(|(j, t)| {
                    let of = |m: &Mark| {
                        m.server
                            .get(j)
                            .and_then(Option::as_ref)
                            .map(|f| f.moves as f64)
                    };
                    format!("{t} {}", rate(per_second(a, b, of)))
                })
                .collect();
            let used: Vec<String> = plan
                .server_pids
                .iter()
                .enumerate()
                .map(|(j, pid)| {
                    let of = |m: &Mark| {
                        m.server_cpu
                            .get(j)
                            .copied()
                            .flatten()
                            .map(|d| d.as_secs_f64())
                    };
                    format!("pid {pid} {}", cpu(per_second(a, b, of)))
                })
                .collect();
            format!(
                "stage {}, by instance: moves written {}; cpu {}",
                i + 1,
                written.join(", "),
                if used.is_empty() {
                    "-".into()
                } else {
                    used.join(", ")
                }
            )
        })
        .collect()
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

async fn drive(plan: Plan) -> anyhow::Result<bool> {
    let run = run_mark();
    // Every server is asked first: it answers, and its rate limit allows
    // the pace.
    let mut servers = Vec::with_capacity(plan.targets.len());
    for (i, target) in plan.targets.iter().enumerate() {
        let mut probe_conn = Connection::open(target)
            .await
            .with_context(|| format!("cannot reach {target}"))?;
        let name = match i {
            0 => format!("ld{run}-probe"),
            i => format!("ld{run}-probe{i}"),
        };
        let welcome = probe_conn.hello(Some(&name), None).await?;
        probe_conn.close().await;
        plan.check_rate(welcome.limits.messages_per_second)
            .map_err(|e| anyhow!("{target}: {e}"))?;
        servers.push(format!("{target} ({})", welcome.server));
    }
    let stages = plan.stages.len();
    println!(
        "table-load {}: {} {:?} tables ({} connections) at {}, ramp {} s, {} stage{} of {} s measured; load average {}",
        env!("CARGO_PKG_VERSION"),
        plan.tables,
        plan.game,
        plan.tables * 2,
        servers.join(", "),
        plan.ramp.as_secs(),
        stages,
        if stages == 1 { "" } else { "s" },
        plan.measured.as_secs(),
        load_average(),
    );
    let plan = Arc::new(plan);
    let live = Arc::new(Live::default());
    let start = Instant::now();
    let tasks: Vec<_> = (0..plan.tables)
        .map(|k| {
            tokio::spawn(table::run(
                k,
                Setting {
                    plan: Arc::clone(&plan),
                    start,
                    run: run.clone(),
                    live: Arc::clone(&live),
                },
            ))
        })
        .collect();

    // The monitor: memory every second, a progress line every five, and
    // the server's counters at each window's edges.
    let mut marks = vec![(Mark::default(), Mark::default()); stages];
    let mut playing_at_start = vec![0; stages];
    let mut edges: Vec<(Duration, usize, bool)> = (0..stages)
        .flat_map(|i| {
            let (from, to) = plan.window(i);
            [(from, i, true), (to, i, false)]
        })
        .collect();
    edges.sort_by_key(|e| e.0);
    let mut edges = edges.into_iter().peekable();
    let mut most_rss = vec![0; plan.server_pids.len()];
    let mut fewest_playing = plan.tables as u64;
    let mut next_tick = start;
    let mut last_print = (start, 0u64);
    while let Some(&(at, stage, opening)) = edges.peek() {
        let edge = start + at;
        if edge <= Instant::now() {
            edges.next();
            let mark = Mark::now(&plan).await;
            if opening {
                marks[stage].0 = mark;
                playing_at_start[stage] = live.playing.load(Ordering::Relaxed);
            } else {
                marks[stage].1 = mark;
            }
            continue;
        }
        tokio::time::sleep_until(edge.min(next_tick)).await;
        if Instant::now() < next_tick {
            continue;
        }
        next_tick += Duration::from_secs(1);
        let since = Instant::now().duration_since(start);
        if plan.measured_stage(since).is_some() {
            fewest_playing = fewest_playing.min(live.playing.load(Ordering::Relaxed));
        }
        let memory: Vec<Option<probe::Memory>> =
            plan.server_pids.iter().map(|&p| probe::memory(p)).collect();
        for (most, m) in most_rss.iter_mut().zip(&memory) {
            if let Some(m) = m {
                *most = (*most).max(m.rss_kib);
            }
        }
        let now = Instant::now();
        if now.duration_since(last_print.0) >= Duration::from_secs(5) {
            let acked = live.acked.load(Ordering::Relaxed);
            let rate =
                (acked - last_print.1) as f64 / now.duration_since(last_print.0).as_secs_f64();
            eprintln!(
                "{:>5.0} s  tables {}/{}  acked {} ({:.0}/s)  games {}  errors {}{}",
                now.duration_since(start).as_secs_f64(),
                live.playing.load(Ordering::Relaxed),
                plan.tables,
                acked,
                rate,
                live.games.load(Ordering::Relaxed),
                live.errors.load(Ordering::Relaxed),
                servers_rss(&memory),
            );
            last_print = (now, acked);
        }
    }
    let memory_at_end: Vec<Option<probe::Memory>> =
        plan.server_pids.iter().map(|&p| probe::memory(p)).collect();

    // Every table stops by itself at the end; one that does not is
    // counted as an error and left behind.
    let mut merged: Vec<Tally> = vec![Tally::default(); stages];
    let mut errors = Errors::default();
    let gone_by = start + plan.end() + WIND_DOWN;
    for task in tasks {
        match tokio::time::timeout_at(gone_by, task).await {
            Ok(Ok(Report {
                stages: tallies,
                errors: e,
            })) => {
                for (m, t) in merged.iter_mut().zip(tallies) {
                    m.merge(t);
                }
                errors.merge(e);
            }
            Ok(Err(e)) => errors.add("crashed", &e.to_string()),
            Err(_) => errors.add("stuck", "a table did not stop at the end of the run"),
        }
    }

    let summaries: Vec<StageSummary> = merged
        .into_iter()
        .enumerate()
        .map(|(i, tally)| {
            let stage = &plan.stages[i];
            let (a, b) = &marks[i];
            let mut s = StageSummary::new(stage.rate, stage.interval, tally, plan.measured);
            s.server_rate = per_second(a, b, moves);
            s.server_p99 = match (probe::total(&a.server), probe::total(&b.server)) {
                (Some(x), Some(y)) => probe::latency_bound(&x, &y, 0.99),
                _ => None,
            };
            s.server_cpu = per_second(a, b, |m| m.servers_cpu().map(|d| d.as_secs_f64()));
            s.database_cpu = per_second(a, b, |m| m.database_cpu.map(|d| d.as_secs_f64()));
            s.load_cpu = per_second(a, b, |m| m.load_cpu.map(|d| d.as_secs_f64()));
            s
        })
        .collect();

    println!();
    print!("{}", stats::stage_table(&summaries));
    println!();
    println!(
        "tables playing: {} when measuring started, never fewer than {} while measuring (of {}); games finished: {}",
        playing_at_start.first().copied().unwrap_or(0),
        fewest_playing,
        plan.tables,
        live.games.load(Ordering::Relaxed),
    );
    if plan.targets.len() > 1 || plan.server_pids.len() > 1 {
        for line in by_instance(&plan, &marks) {
            println!("{line}");
        }
    }
    for ((pid, m), most) in plan.server_pids.iter().zip(memory_at_end).zip(most_rss) {
        match m {
            Some(m) => println!(
                "server (pid {pid}): VmRSS {} at the end, {} the most seen; VmHWM {}",
                mib(m.rss_kib),
                mib(most.max(m.rss_kib)),
                mib(m.hwm_kib)
            ),
            None => println!("server (pid {pid}): no /proc/{pid}/status to read"),
        }
    }
    println!("load average at the end: {}", load_average());
    match stats::best(&summaries, plan.max_p99) {
        Some(best) => println!(
            "highest sustained: {:.0} acked moves/s (asked {:.0}) with p99 {:.1} ms <= {} ms",
            best.rate,
            best.target,
            best.p99.map_or(0.0, |d| d.as_secs_f64() * 1000.0),
            plan.max_p99.as_secs_f64() * 1000.0
        ),
        None => println!(
            "no stage kept 95 % of its pace with p99 <= {} ms",
            plan.max_p99.as_secs_f64() * 1000.0
        ),
    }
    println!("errors: {}", errors.count());
    for line in errors.lines() {
        println!("{line}");
    }
    Ok(errors.count() == 0)
}
