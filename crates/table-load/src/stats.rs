//! The figures: round-trip percentiles, each stage's summary, the errors
//! seen, and the table printed at the end.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

/// The `p`-th percentile (0 to 100) of `sorted` by the nearest-rank
/// method: the smallest sample with at least `p` % of them at or below it.
/// `None` for no samples.
pub fn percentile(sorted: &[u32], p: f64) -> Option<u32> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p.clamp(0.0, 100.0) / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.saturating_sub(1)).copied()
}

/// What one stage gathered: every acknowledged move's round trip, in
/// microseconds.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Round trips of the moves sent in the stage's window.
    pub round_trips: Vec<u32>,
}

impl Tally {
    /// Records a round trip.
    pub fn add(&mut self, took: Duration) {
        self.round_trips
            .push(u32::try_from(took.as_micros()).unwrap_or(u32::MAX));
    }

    /// Adds another table's samples.
    pub fn merge(&mut self, other: Tally) {
        self.round_trips.extend(other.round_trips);
    }
}

/// The errors seen, by kind, with one example of each.
#[derive(Clone, Debug, Default)]
pub struct Errors {
    kinds: BTreeMap<String, (u64, String)>,
}

impl Errors {
    /// Records an error of `kind` (e.g. an error code, `closed`), with
    /// what was said.
    pub fn add(&mut self, kind: &str, example: &str) {
        let entry = self
            .kinds
            .entry(kind.to_string())
            .or_insert_with(|| (0, example.to_string()));
        entry.0 += 1;
    }

    /// Adds another table's errors.
    pub fn merge(&mut self, other: Errors) {
        for (kind, (count, example)) in other.kinds {
            let entry = self.kinds.entry(kind).or_insert((0, example));
            entry.0 += count;
        }
    }

    /// How many errors in all.
    pub fn count(&self) -> u64 {
        self.kinds.values().map(|(n, _)| n).sum()
    }

    /// One line per kind: count, kind and example.
    pub fn lines(&self) -> Vec<String> {
        self.kinds
            .iter()
            .map(|(kind, (n, example))| format!("{n:>8}  {kind}: {example}"))
            .collect()
    }
}

/// One stage's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct StageSummary {
    /// The moves a second asked of all tables.
    pub target: f64,
    /// The table's interval.
    pub interval: Duration,
    /// The moves acknowledged whose sending fell in the window.
    pub acked: u64,
    /// Acknowledged moves a second.
    pub rate: f64,
    /// Moves the server wrote a second (its `/metrics`: deals included),
    /// if it could be asked.
    pub server_rate: Option<f64>,
    /// Round-trip median, 99th percentile and largest.
    pub p50: Option<Duration>,
    /// The 99th percentile.
    pub p99: Option<Duration>,
    /// The largest.
    pub max: Option<Duration>,
    /// The server's own bound on its p99 (a move's arrival to its ack), in
    /// seconds, from its latency histogram (a bucket's bound, so coarse).
    pub server_p99: Option<f64>,
    /// The server's CPU use (cores) in the window, if known.
    pub server_cpu: Option<f64>,
    /// The database server's CPU use (cores: its process and its
    /// children) in the window, if it was given.
    pub database_cpu: Option<f64>,
    /// The generator's CPU use (cores) in the window, if known.
    pub load_cpu: Option<f64>,
}

impl StageSummary {
    /// Summarises a stage's samples over a window of `window`.
    pub fn new(target: f64, interval: Duration, mut tally: Tally, window: Duration) -> Self {
        tally.round_trips.sort_unstable();
        let micros =
            |p| percentile(&tally.round_trips, p).map(|us| Duration::from_micros(us.into()));
        let acked = tally.round_trips.len() as u64;
        StageSummary {
            target,
            interval,
            acked,
            rate: acked as f64 / window.as_secs_f64().max(1e-9),
            server_rate: None,
            p50: micros(50.0),
            p99: micros(99.0),
            max: tally
                .round_trips
                .last()
                .map(|&us| Duration::from_micros(us.into())),
            server_p99: None,
            server_cpu: None,
            database_cpu: None,
            load_cpu: None,
        }
    }

    /// Whether the stage kept its pace (95 % of the moves asked were
    /// acknowledged) with its p99 at most `max_p99`.
    pub fn sustained(&self, max_p99: Duration) -> bool {
        self.rate >= 0.95 * self.target && self.p99.is_some_and(|p| p <= max_p99)
    }
}

/// The stage sustained at the highest rate, if any.
pub fn best(stages: &[StageSummary], max_p99: Duration) -> Option<&StageSummary> {
    stages
        .iter()
        .filter(|s| s.sustained(max_p99))
        .max_by(|a, b| a.rate.total_cmp(&b.rate))
}

fn bound_ms(seconds: Option<f64>) -> String {
    match seconds {
        None => "-".into(),
        Some(s) if s.is_infinite() => "inf".into(),
        Some(s) => format!("<={:.1}", s * 1000.0),
    }
}

fn percent(cores: Option<f64>) -> String {
    cores.map_or_else(|| "-".into(), |c| format!("{:.0}%", c * 100.0))
}

fn ms(d: Option<Duration>) -> String {
    d.map_or_else(
        || "-".into(),
        |d| format!("{:.1}", d.as_secs_f64() * 1000.0),
    )
}

/// The stages as a table (with a `db cpu` column when the database
/// server's CPU was measured).
pub fn stage_table(stages: &[StageSummary]) -> String {
    let database = stages.iter().any(|s| s.database_cpu.is_some());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "stage  interval ms  target/s   acked/s  server/s     moves  p50 ms  p99 ms  max ms  server p99 ms  server cpu  {}load cpu",
        if database { "  db cpu  " } else { "" }
    );
    for (k, s) in stages.iter().enumerate() {
        let server = s
            .server_rate
            .map_or_else(|| "-".into(), |r| format!("{r:.0}"));
        let _ = writeln!(
            out,
            "{:>5}  {:>11.1}  {:>8.0}  {:>8.1}  {:>8}  {:>8}  {:>6}  {:>6}  {:>6}  {:>13}  {:>10}  {}{:>8}",
            k + 1,
            s.interval.as_secs_f64() * 1000.0,
            s.target,
            s.rate,
            server,
            s.acked,
            ms(s.p50),
            ms(s.p99),
            ms(s.max),
            bound_ms(s.server_p99),
            percent(s.server_cpu),
            if database {
                format!("{:>8}  ", percent(s.database_cpu))
            } else {
                String::new()
            },
            percent(s.load_cpu),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let hundred: Vec<u32> = (1..=100).collect();
        assert_eq!(percentile(&hundred, 50.0), Some(50));
        assert_eq!(percentile(&hundred, 99.0), Some(99));
        assert_eq!(percentile(&hundred, 99.5), Some(100));
        assert_eq!(percentile(&hundred, 100.0), Some(100));
        assert_eq!(percentile(&hundred, 0.0), Some(1));
        assert_eq!(percentile(&[7], 99.0), Some(7));
        assert_eq!(percentile(&[], 50.0), None);
        // One slow move in a hundred is the p99; two are above it.
        let mut slow = vec![1_000; 98];
        slow.extend([60_000, 70_000]);
        assert_eq!(percentile(&slow, 99.0), Some(60_000));
        assert_eq!(percentile(&slow, 98.0), Some(1_000));
    }

    #[test]
    fn a_stage_summary_and_the_best_stage() {
        let mut tally = Tally::default();
        for ms in (1..=100).rev() {
            tally.add(Duration::from_millis(ms));
        }
        let s = StageSummary::new(
            10.0,
            Duration::from_millis(100),
            tally,
            Duration::from_secs(10),
        );
        assert_eq!(s.acked, 100);
        assert!((s.rate - 10.0).abs() < 1e-9);
        assert_eq!(s.p50, Some(Duration::from_millis(50)));
        assert_eq!(s.p99, Some(Duration::from_millis(99)));
        assert_eq!(s.max, Some(Duration::from_millis(100)));
        assert!(s.sustained(Duration::from_millis(99)));
        assert!(!s.sustained(Duration::from_millis(50)));
        let behind = StageSummary {
            target: 20.0,
            ..s.clone()
        };
        assert!(!behind.sustained(Duration::from_secs(1)), "half the pace");
        let faster = StageSummary {
            target: 15.0,
            rate: 15.0,
            ..s.clone()
        };
        let stages = [s.clone(), faster.clone(), behind];
        assert_eq!(best(&stages, Duration::from_millis(99)), Some(&faster));
        assert_eq!(best(&stages, Duration::from_millis(10)), None);
        let table = stage_table(&stages);
        assert_eq!(table.lines().count(), 4);
        assert!(table.contains("99.0"), "{table}");
        assert!(!table.contains("db cpu"), "{table}");
        let with_database = StageSummary {
            database_cpu: Some(0.25),
            ..s.clone()
        };
        let table = stage_table(&[with_database]);
        assert!(table.contains("db cpu"), "{table}");
        assert!(table.contains("     25%  "), "{table}");
        let empty = StageSummary::new(
            1.0,
            Duration::from_secs(1),
            Tally::default(),
            Duration::from_secs(1),
        );
        assert_eq!((empty.acked, empty.p99), (0, None));
        assert!(!empty.sustained(Duration::from_secs(1)));
    }

    #[test]
    fn errors_are_counted_by_kind() {
        let mut a = Errors::default();
        a.add("illegal", "You need a Go");
        a.add("illegal", "another sentence");
        let mut b = Errors::default();
        b.add("closed", "the connection ended");
        b.add("illegal", "third");
        a.merge(b);
        assert_eq!(a.count(), 4);
        assert_eq!(
            a.lines(),
            vec![
                "       1  closed: the connection ended".to_string(),
                "       3  illegal: You need a Go".to_string(),
            ]
        );
    }
}
