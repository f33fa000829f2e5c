//! The run's plan: the command line, checked, and the schedule it makes
//! (when each table opens, each stage's pace, the windows measured).
//!
//! A run is a ramp, during which the tables open one after another, then
//! one or more stages. A stage gives every table the same interval between
//! two of its moves; each stage but the first starts with a settling time
//! that is not measured (the first has the ramp for that).

use clap::{Parser, ValueEnum};
use std::time::Duration;
use table_client::Target;

/// Open many tables of computer-played people on a table server and
/// measure it: moves acknowledged a second, each move's round trip (sent
/// to acknowledged), errors, and the server's memory.
///
/// Every table has two connections, each under its own name, each playing
/// one seat; the seat to act sends its move when the table's schedule says.
/// A finished game is left and a new table opened. The run stops by itself.
/// Each connection is a socket: raise the open-files limit first
/// (`ulimit -n 10000` in the shell that starts it, and in the server's).
#[derive(Parser, Debug, Clone)]
#[command(name = "table-load", version, about, long_about)]
pub struct Args {
    /// The server: ws://HOST:PORT/ws, HOST:PORT, or its Unix socket's path.
    /// Several (repeated, or a comma list) for instances sharing one
    /// database: table k's two connections go to servers k % N and
    /// (k + 1) % N, so that with two, every table has one connection on the
    /// instance that does not run it (as behind a round-robin proxy).
    #[arg(long, value_delimiter = ',', default_value = "ws://127.0.0.1:8780/ws")]
    pub server: Vec<String>,
    /// How many tables to keep open (two connections each).
    #[arg(long, default_value_t = 100)]
    pub tables: usize,
    /// Milliseconds between two moves of a table.
    #[arg(long, default_value_t = 1000)]
    pub interval_ms: u64,
    /// Instead of --interval-ms: stages at these total rates (moves a
    /// second, all tables together), e.g. 2000,4000,6000. Each is measured
    /// for --seconds; the report names the highest that was sustained with
    /// its p99 under --max-p99-ms.
    #[arg(long, value_delimiter = ',', num_args = 1.., conflicts_with = "interval_ms")]
    pub rate: Vec<f64>,
    /// Seconds measured (per stage).
    #[arg(long, default_value_t = 60)]
    pub seconds: u64,
    /// Seconds over which the tables open, before measuring starts.
    #[arg(long, default_value_t = 10)]
    pub ramp_seconds: u64,
    /// Seconds not measured at the start of each stage after the first,
    /// while the tables take up the new pace.
    #[arg(long, default_value_t = 5)]
    pub settle_seconds: u64,
    /// The server's process id, to report its memory (VmRSS, VmHWM) and CPU
    /// time from /proc. Repeated (or a comma list) for several instances:
    /// each one's memory, and their CPU summed and each one's.
    #[arg(long, value_delimiter = ',')]
    pub server_pid: Vec<u32>,
    /// A database server's process (PostgreSQL's postmaster), to report
    /// its CPU time and its children's (a process per connection) as
    /// `db cpu`.
    #[arg(long)]
    pub database_pid: Option<u32>,
    /// The game played at every table.
    #[arg(long, value_enum, default_value_t = GameChoice::Mille)]
    pub game: GameChoice,
    /// The round trip a stage's p99 must stay under to count as sustained.
    #[arg(long, default_value_t = 50.0)]
    pub max_p99_ms: f64,
}

/// The games a load can be made of.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameChoice {
    /// Mille Bornes, bsd rules, two people.
    Mille,
    /// cubes, the standard game, two people.
    Cubes,
}

/// One pace of the run.
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    /// The time between two moves of a table.
    pub interval: Duration,
    /// The moves a second asked of all tables together.
    pub rate: f64,
}

/// The run, as checked.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The server's instances (at least one).
    pub targets: Vec<Target>,
    /// How many tables.
    pub tables: usize,
    /// The game.
    pub game: GameChoice,
    /// The time over which the tables open.
    pub ramp: Duration,
    /// The time measured in each stage.
    pub measured: Duration,
    /// The time not measured at the start of each stage after the first.
    pub settle: Duration,
    /// The stages, in order.
    pub stages: Vec<Stage>,
    /// The largest p99 a sustained stage may have.
    pub max_p99: Duration,
    /// The server's processes.
    pub server_pids: Vec<u32>,
    /// The database server's process.
    pub database_pid: Option<u32>,
}

/// The most tables a run opens (the server's own limit is 20,000).
pub const MAX_TABLES: usize = 20_000;

/// Sockets the generator needs besides the tables' (the probe, the
/// metrics, the standard streams and some slack).
const SPARE_FILES: u64 = 64;

impl Plan {
    /// Checks the arguments and makes the plan.
    pub fn new(args: &Args) -> Result<Plan, String> {
        let targets = args
            .server
            .iter()
            .map(|s| parse_server(s))
            .collect::<Result<Vec<_>, _>>()?;
        if targets.is_empty() {
            return Err("--server is missing".into());
        }
        if args.tables == 0 || args.tables > MAX_TABLES {
            return Err(format!(
                "--tables must be from 1 to {MAX_TABLES}, not {}",
                args.tables
            ));
        }
        if args.seconds == 0 {
            return Err("--seconds must be at least 1".into());
        }
        if !(args.max_p99_ms.is_finite() && args.max_p99_ms > 0.0) {
            return Err("--max-p99-ms must be a positive number".into());
        }
        let stages = if args.rate.is_empty() {
            if args.interval_ms == 0 {
                return Err("--interval-ms must be at least 1".into());
            }
            let interval = Duration::from_millis(args.interval_ms);
            vec![Stage {
                interval,
                rate: args.tables as f64 / interval.as_secs_f64(),
            }]
        } else {
            args.rate
                .iter()
                .map(|&rate| {
                    if !(rate.is_finite() && rate > 0.0) {
                        return Err(format!("--rate {rate}: a rate is a positive number"));
                    }
                    let interval = Duration::from_secs_f64(args.tables as f64 / rate);
                    if interval < Duration::from_millis(1) {
                        return Err(format!(
                            "--rate {rate} with {} tables means a move every {:.3} ms at each table: open more tables",
                            args.tables,
                            interval.as_secs_f64() * 1000.0
                        ));
                    }
                    Ok(Stage { interval, rate })
                })
                .collect::<Result<Vec<_>, String>>()?
        };
        Ok(Plan {
            targets,
            tables: args.tables,
            game: args.game,
            ramp: Duration::from_secs(args.ramp_seconds),
            measured: Duration::from_secs(args.seconds),
            settle: Duration::from_secs(args.settle_seconds),
            stages,
            max_p99: Duration::from_secs_f64(args.max_p99_ms / 1000.0),
            server_pids: args.server_pid.clone(),
            database_pid: args.database_pid,
        })
    }

    /// Where seat `seat` (0 or 1) of table `k` connects: server
    /// `(k + seat) % N`, so that the two seats of a table are on two
    /// instances when there are several (the first seat's runs the table,
    /// the other forwards), and both on the one server otherwise.
    pub fn seat_target(&self, k: usize, seat: usize) -> &Target {
        &self.targets[(k + seat) % self.targets.len()]
    }

    /// When table `k` (from 0) opens, from the start of the run: evenly
    /// over the ramp, so that their moves are spread over each interval.
    pub fn opening(&self, k: usize) -> Duration {
        self.ramp.mul_f64(k as f64 / self.tables as f64)
    }

    /// When stage `i` starts, its settling time included (the first
    /// starts with the run: its pace holds during the ramp).
    fn stage_start(&self, i: usize) -> Duration {
        match i {
            0 => Duration::ZERO,
            _ => self.window(i).0 - self.settle,
        }
    }

    /// The window measured in stage `i`, from the start of the run.
    pub fn window(&self, i: usize) -> (Duration, Duration) {
        let start = self.ramp + (self.measured + self.settle) * i as u32;
        (start, start + self.measured)
    }

    /// When the run ends, from its start.
    pub fn end(&self) -> Duration {
        self.window(self.stages.len().saturating_sub(1)).1
    }

    /// The stage whose pace holds at `at` (the ramp is the first stage's).
    pub fn stage_at(&self, at: Duration) -> usize {
        (1..self.stages.len())
            .take_while(|&i| self.stage_start(i) <= at)
            .last()
            .unwrap_or(0)
    }

    /// A table's interval at `at`.
    pub fn interval_at(&self, at: Duration) -> Duration {
        self.stages
            .get(self.stage_at(at))
            .map_or(Duration::from_secs(1), |s| s.interval)
    }

    /// The stage whose measured window holds `at`, if any.
    pub fn measured_stage(&self, at: Duration) -> Option<usize> {
        (0..self.stages.len()).find(|&i| {
            let (from, to) = self.window(i);
            from <= at && at < to
        })
    }

    /// Refuses a pace that would break the server's rate limit: a seat
    /// plays about half its table's moves, two at a time (a draw and a
    /// play), and also says `ready` and `ping`.
    pub fn check_rate(&self, messages_per_second: u32) -> Result<(), String> {
        for s in &self.stages {
            let per_table = 1.0 / s.interval.as_secs_f64();
            if per_table > f64::from(messages_per_second) {
                return Err(format!(
                    "a move every {:.1} ms at each table is more than the server lets one connection send ({} messages a second): open more tables, or start the server with a higher --rate",
                    s.interval.as_secs_f64() * 1000.0,
                    messages_per_second
                ));
            }
        }
        Ok(())
    }

    /// Refuses a run that would hit the open-files limit (`soft`: the
    /// limit in force, if known).
    pub fn check_files(&self, soft: Option<u64>) -> Result<(), String> {
        let needed = 2 * self.tables as u64 + SPARE_FILES;
        match soft {
            Some(limit) if limit < needed => Err(format!(
                "{} tables need {needed} open files and the limit is {limit}: raise it with `ulimit -n {}` in this shell (the server needs as many)",
                self.tables,
                needed.max(10_000)
            )),
            _ => Ok(()),
        }
    }
}

/// Reads `--server`: `ws://HOST:PORT/ws` (the path may be left out),
/// `HOST:PORT`, or a Unix socket's path (`unix:PATH`, or any path with a
/// `/`).
pub fn parse_server(text: &str) -> Result<Target, String> {
    let text = text.trim();
    if let Some(path) = text.strip_prefix("unix:") {
        if path.is_empty() {
            return Err("unix: needs the socket's path".into());
        }
        return Ok(Target::Unix(path.into()));
    }
    if text.starts_with("wss://") || text.starts_with("http") {
        return Err(format!(
            "{text}: the table server is reached with ws://HOST:PORT/ws"
        ));
    }
    let Some(rest) = text.strip_prefix("ws://") else {
        if text.is_empty() {
            return Err("--server is empty".into());
        }
        return Target::parse(text).map_err(|e| e.to_string());
    };
    let (host, path) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    if !(path.is_empty() || path == "/" || path == table_client::protocol::WS_PATH) {
        return Err(format!(
            "{text}: the table server's endpoint is {}",
            table_client::protocol::WS_PATH
        ));
    }
    if host.is_empty() {
        return Err(format!("{text}: the host is missing"));
    }
    Target::parse(host).map_err(|e| e.to_string())
}

/// The soft open-files limit in `/proc/self/limits` text.
pub fn open_files_limit(limits: &str) -> Option<u64> {
    limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|soft| soft.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> Args {
        let mut line = vec!["table-load"];
        line.extend_from_slice(extra);
        Args::try_parse_from(line).expect("arguments")
    }

    #[test]
    fn server_addresses() {
        let tcp = |host: &str, port| Target::Tcp {
            host: host.into(),
            port,
        };
        assert_eq!(
            parse_server("ws://127.0.0.1:8780/ws"),
            Ok(tcp("127.0.0.1", 8780))
        );
        assert_eq!(parse_server("ws://[::1]:9000"), Ok(tcp("::1", 9000)));
        assert_eq!(parse_server("localhost:9"), Ok(tcp("localhost", 9)));
        assert_eq!(
            parse_server("unix:/run/t.sock"),
            Ok(Target::Unix("/run/t.sock".into()))
        );
        assert_eq!(
            parse_server("/run/t.sock"),
            Ok(Target::Unix("/run/t.sock".into()))
        );
        for (bad, why) in [
            ("wss://h:1/ws", "ws://"),
            ("ws://h:1/other", "/ws"),
            ("ws:///ws", "host"),
            ("ws://h:0/ws", "port"),
            ("", "empty"),
        ] {
            let e = parse_server(bad).expect_err(bad);
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn one_server_by_default_and_both_seats_on_it() {
        let plan = Plan::new(&args(&[])).expect("plan");
        let default = Target::Tcp {
            host: "127.0.0.1".into(),
            port: 8780,
        };
        assert_eq!(plan.targets, vec![default.clone()]);
        assert!(plan.server_pids.is_empty());
        for k in [0, 1, 7] {
            assert_eq!(plan.seat_target(k, 0), &default);
            assert_eq!(plan.seat_target(k, 1), &default);
        }
        let plan = Plan::new(&args(&["--server", "h:1", "--server-pid", "42"])).expect("plan");
        assert_eq!(plan.targets.len(), 1);
        assert_eq!(plan.server_pids, vec![42]);
    }

    #[test]
    fn several_servers_repeated_or_listed() {
        let tcp = |port| Target::Tcp {
            host: "127.0.0.1".into(),
            port,
        };
        let repeated = Plan::new(&args(&[
            "--server",
            "ws://127.0.0.1:1/ws",
            "--server",
            "127.0.0.1:2",
            "--server-pid",
            "10",
            "--server-pid",
            "11",
        ]))
        .expect("repeated");
        let listed = Plan::new(&args(&[
            "--server",
            "ws://127.0.0.1:1/ws,127.0.0.1:2",
            "--server-pid",
            "10,11",
        ]))
        .expect("listed");
        for plan in [&repeated, &listed] {
            assert_eq!(plan.targets, vec![tcp(1), tcp(2)]);
            assert_eq!(plan.server_pids, vec![10, 11]);
            // Table k's first seat (which opens the table) is on server
            // k % 2, its second on the other one.
            assert_eq!(plan.seat_target(0, 0), &tcp(1));
            assert_eq!(plan.seat_target(0, 1), &tcp(2));
            assert_eq!(plan.seat_target(1, 0), &tcp(2));
            assert_eq!(plan.seat_target(1, 1), &tcp(1));
        }
        let three = Plan::new(&args(&["--server", "h:1,h:2,h:3"])).expect("three");
        let port = |t: &Target| match t {
            Target::Tcp { port, .. } | Target::Tls { port, .. } => *port,
            Target::Unix(_) => 0,
        };
        assert_eq!(
            (0..4)
                .map(|k| (port(three.seat_target(k, 0)), port(three.seat_target(k, 1))))
                .collect::<Vec<_>>(),
            vec![(1, 2), (2, 3), (3, 1), (1, 2)]
        );
        let e = Plan::new(&args(&["--server", "h:1,wss://h:2/ws"])).expect_err("one bad");
        assert!(e.contains("wss://h:2/ws"), "{e}");
        let e = Plan::new(&args(&["--server", "h:1,"])).expect_err("an empty one");
        assert!(e.contains("empty"), "{e}");
        assert!(
            Args::try_parse_from(["table-load", "--server-pid", "10,x"]).is_err(),
            "a pid is a number"
        );
    }

    #[test]
    fn arguments_are_checked() {
        for (line, why) in [
            (vec!["--tables", "0"], "--tables"),
            (vec!["--tables", "20001"], "--tables"),
            (vec!["--interval-ms", "0"], "--interval-ms"),
            (vec!["--seconds", "0"], "--seconds"),
            (vec!["--rate", "100,-5"], "positive"),
            (vec!["--tables", "2", "--rate", "5000"], "more tables"),
            (vec!["--max-p99-ms", "0"], "--max-p99-ms"),
        ] {
            let e = Plan::new(&args(&line)).expect_err(why);
            assert!(e.contains(why), "{line:?}: {e}");
        }
        assert!(
            Args::try_parse_from(["table-load", "--interval-ms", "5", "--rate", "10"]).is_err(),
            "a pace is given one way"
        );
    }

    #[test]
    fn one_stage_from_the_interval() {
        let plan = Plan::new(&args(&[
            "--tables",
            "2000",
            "--seconds",
            "60",
            "--ramp-seconds",
            "20",
        ]))
        .expect("plan");
        assert_eq!(plan.stages.len(), 1);
        assert_eq!(plan.stages[0].interval, Duration::from_secs(1));
        assert!((plan.stages[0].rate - 2000.0).abs() < 1e-9);
        assert_eq!(plan.opening(0), Duration::ZERO);
        assert_eq!(plan.opening(1000), Duration::from_secs(10));
        assert_eq!(
            plan.window(0),
            (Duration::from_secs(20), Duration::from_secs(80))
        );
        assert_eq!(plan.end(), Duration::from_secs(80));
        assert_eq!(plan.measured_stage(Duration::from_secs(19)), None);
        assert_eq!(plan.measured_stage(Duration::from_secs(20)), Some(0));
        assert_eq!(plan.measured_stage(Duration::from_secs(80)), None);
    }

    #[test]
    fn stages_follow_one_another_with_a_settling_time() {
        let plan = Plan::new(&args(&[
            "--tables",
            "1000",
            "--rate",
            "1000,2000,4000",
            "--seconds",
            "30",
            "--ramp-seconds",
            "10",
            "--settle-seconds",
            "5",
        ]))
        .expect("plan");
        let ms = Duration::from_millis;
        assert_eq!(
            plan.stages.iter().map(|s| s.interval).collect::<Vec<_>>(),
            vec![ms(1000), ms(500), ms(250)]
        );
        let s = Duration::from_secs;
        assert_eq!(plan.window(0), (s(10), s(40)));
        assert_eq!(plan.window(1), (s(45), s(75)));
        assert_eq!(plan.window(2), (s(80), s(110)));
        assert_eq!(plan.end(), s(110));
        // The pace changes where the settling time starts.
        assert_eq!(plan.interval_at(s(0)), ms(1000));
        assert_eq!(plan.interval_at(s(39)), ms(1000));
        assert_eq!(plan.interval_at(s(40)), ms(500));
        assert_eq!(plan.interval_at(s(74)), ms(500));
        assert_eq!(plan.interval_at(s(75)), ms(250));
        assert_eq!(plan.interval_at(s(500)), ms(250));
        assert_eq!(plan.measured_stage(s(42)), None);
        assert_eq!(plan.measured_stage(s(45)), Some(1));
    }

    #[test]
    fn limits_of_the_server_and_the_system() {
        let plan = Plan::new(&args(&["--tables", "2000", "--interval-ms", "40"])).expect("plan");
        let e = plan
            .check_rate(20)
            .expect_err("25 moves a second per table");
        assert!(e.contains("--rate"), "{e}");
        assert!(plan.check_rate(100).is_ok());
        let e = plan.check_files(Some(1024)).expect_err("1024 files");
        assert!(e.contains("ulimit -n 10000"), "{e}");
        assert!(plan.check_files(Some(20_000)).is_ok());
        assert!(plan.check_files(None).is_ok());
        let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                      Max cpu time              unlimited            unlimited            seconds   \n\
                      Max open files            1024                 20000                files     \n";
        assert_eq!(open_files_limit(limits), Some(1024));
        assert_eq!(open_files_limit("nothing"), None);
    }
}
