//! What the generator reads of the server besides the game: its memory and
//! CPU time in /proc (same machine), its count of written moves from
//! `GET /metrics`, and the CPU time of a database server's process tree.

use std::time::Duration;
use table_client::Target;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// A process's memory, in KiB, from /proc/PID/status.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// Resident now (`VmRSS`).
    pub rss_kib: u64,
    /// The largest resident size so far (`VmHWM`).
    pub hwm_kib: u64,
}

/// Reads `VmRSS` and `VmHWM` from a /proc/PID/status text.
pub fn parse_status(text: &str) -> Option<Memory> {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse::<u64>().ok())
    };
    Some(Memory {
        rss_kib: field("VmRSS:")?,
        hwm_kib: field("VmHWM:")?,
    })
}

/// A process's memory now.
pub fn memory(pid: u32) -> Option<Memory> {
    parse_status(&std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?)
}

/// Clock ticks a second in /proc's CPU times (USER_HZ, 100 on Linux).
const TICKS: f64 = 100.0;

/// What the generator reads of a /proc/PID/stat line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    /// The parent process.
    pub ppid: u32,
    /// The CPU time (user and system) the process has had.
    pub cpu: Duration,
    /// The CPU time of its children that have ended and been waited for.
    pub ended_children: Duration,
}

/// Reads a /proc/PID/stat line.
pub fn parse_stat(stat: &str) -> Option<Stat> {
    // The command name may hold spaces and parentheses: count from the last ')'.
    let after = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 3.. of the line: ppid is the 4th, utime the 14th, stime the
    // 15th, cutime and cstime the 16th and 17th.
    let number = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    let ticks = |t: u64| Duration::from_secs_f64(t as f64 / TICKS);
    Some(Stat {
        ppid: u32::try_from(number(4)?).ok()?,
        cpu: ticks(number(14)? + number(15)?),
        ended_children: ticks(number(16)? + number(17)?),
    })
}

/// The CPU time (user and system) a process has had, from the text of
/// /proc/PID/stat.
pub fn parse_cpu(stat: &str) -> Option<Duration> {
    parse_stat(stat).map(|s| s.cpu)
}

/// The CPU time of process `pid` ("self" for this one).
pub fn cpu(pid: &str) -> Option<Duration> {
    parse_cpu(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The CPU time of a process and of its children, those running and those
/// ended: a database server's whole cost (PostgreSQL's postmaster starts a
/// process per connection, and its log writer, checkpointer...).
pub fn tree_cpu(pid: u32) -> Option<Duration> {
    let stat = |p: &str| parse_stat(&std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?);
    let root = stat(&pid.to_string())?;
    let mut total = root.cpu + root.ended_children;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // A process gone since the listing is skipped.
        if let Some(child) = stat(name).filter(|s| s.ppid == pid) {
            total += child.cpu + child.ended_children;
        }
    }
    Some(total)
}

/// What the generator reads of the server's /metrics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerFigures {
    /// `table_moves_total`: moves written since it started.
    pub moves: u64,
    /// `table_move_latency_seconds`: (bucket bound in seconds, moves at or
    /// under it), cumulative, the last bound infinite.
    pub latency: Vec<(f64, u64)>,
}

/// The figures of several instances together: moves written summed, and
/// their latency histograms bucket by bucket (left out, so no server p99,
/// if their buckets differ). `None` if one of them could not be read.
pub fn total(each: &[Option<ServerFigures>]) -> Option<ServerFigures> {
    let mut each = each.iter();
    let mut sum = each.next()?.clone()?;
    for figures in each {
        let figures = figures.as_ref()?;
        sum.moves += figures.moves;
        let same_buckets = sum.latency.len() == figures.latency.len()
            && sum
                .latency
                .iter()
                .zip(&figures.latency)
                .all(|(a, b)| a.0 == b.0);
        if same_buckets {
            for (mine, theirs) in sum.latency.iter_mut().zip(&figures.latency) {
                mine.1 += theirs.1;
            }
        } else {
            sum.latency.clear();
        }
    }
    Some(sum)
}

const LATENCY_BUCKET: &str = "table_move_latency_seconds_bucket{le=\"";

/// Reads the moves written and the latency histogram from a /metrics text.
pub fn parse_metrics(metrics: &str) -> Option<ServerFigures> {
    let mut figures = ServerFigures::default();
    let mut moves = None;
    for line in metrics.lines() {
        if let Some(value) = line.strip_prefix("table_moves_total ") {
            moves = value.trim().parse::<f64>().ok().map(|v| v as u64);
        } else if let Some(rest) = line.strip_prefix(LATENCY_BUCKET) {
            let Some((bound, count)) = rest.split_once("\"} ") else {
                continue;
            };
            let bound = match bound {
                "+Inf" => f64::INFINITY,
                b => match b.parse() {
                    Ok(b) => b,
                    Err(_) => continue,
                },
            };
            if let Ok(count) = count.trim().parse::<f64>() {
                figures.latency.push((bound, count as u64));
            }
        }
    }
    figures.moves = moves?;
    Some(figures)
}

/// The server's own bound on a quantile `q` (0 to 1) of its move latency
/// (a move's arrival to its ack, the database write included) between two
/// readings: the smallest bucket bound that holds `q` of the moves measured
/// in between. Tells the server's share of the round trip from the rest
/// (the network, and the generator's own delays).
pub fn latency_bound(before: &ServerFigures, after: &ServerFigures, q: f64) -> Option<f64> {
    let count = |f: &ServerFigures, bound: f64| {
        f.latency
            .iter()
            .find(|(b, _)| *b == bound)
            .map_or(0, |(_, n)| *n)
    };
    let deltas: Vec<(f64, u64)> = after
        .latency
        .iter()
        .map(|&(bound, n)| (bound, n.saturating_sub(count(before, bound))))
        .collect();
    let total = deltas.last()?.1;
    if total == 0 {
        return None;
    }
    deltas
        .iter()
        .find(|(_, n)| *n as f64 >= q * total as f64)
        .map(|(bound, _)| *bound)
}

/// Reads the server's /metrics (`GET /metrics`, HTTP/1.0, within two
/// seconds).
pub async fn server_figures(target: &Target) -> Option<ServerFigures> {
    let ask = async {
        let text = match target {
            Target::Tcp { host, port } => {
                let tcp = tokio::net::TcpStream::connect((host.as_str(), *port))
                    .await
                    .ok()?;
                // Like every socket of the clients: a request leaves whole.
                let _ = tcp.set_nodelay(true);
                get_metrics(tcp).await
            }
            Target::Unix(path) => {
                get_metrics(tokio::net::UnixStream::connect(path).await.ok()?).await
            }
            // The server's figures are read in clear from loopback or its
            // socket; a TLS address goes without them.
            Target::Tls { .. } => None,
        }?;
        parse_metrics(&text)
    };
    tokio::time::timeout(Duration::from_secs(2), ask)
        .await
        .ok()
        .flatten()
}

async fn get_metrics(mut stream: impl AsyncRead + AsyncWrite + Unpin) -> Option<String> {
    stream
        .write_all(b"GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n")
        .await
        .ok()?;
    let mut body = Vec::new();
    stream.read_to_end(&mut body).await.ok()?;
    String::from_utf8(body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_from_status() {
        let status = "Name:\tmille\nVmPeak:\t  900000 kB\nVmHWM:\t  412345 kB\nVmRSS:\t  400000 kB\nThreads:\t5\n";
        assert_eq!(
            parse_status(status),
            Some(Memory {
                rss_kib: 400_000,
                hwm_kib: 412_345
            })
        );
        assert_eq!(parse_status("Name:\tx\n"), None);
    }

    #[test]
    fn cpu_from_stat() {
        let stat = "4242 (a (strange) name) S 1 4242 4242 0 -1 4194560 2035 0 0 0 250 50 0 0 20 0 5 0 100 0 0";
        assert_eq!(parse_cpu(stat), Some(Duration::from_secs(3)));
        assert_eq!(parse_cpu("garbage"), None);
        assert_eq!(
            parse_stat(stat),
            Some(Stat {
                ppid: 1,
                cpu: Duration::from_secs(3),
                ended_children: Duration::ZERO
            })
        );
        let postmaster =
            "77 (postgres) S 12 77 77 0 -1 4194560 2035 0 0 0 250 50 125 75 20 0 5 0 100 0 0";
        assert_eq!(
            parse_stat(postmaster).map(|s| (s.ppid, s.ended_children)),
            Some((12, Duration::from_secs(2)))
        );
        assert_eq!(parse_stat("1 (x) S 1 2 3"), None, "cut short");
    }

    #[test]
    fn a_process_tree_has_at_least_its_root_time() {
        let me = std::process::id();
        let own = cpu(&me.to_string()).expect("this process's time");
        let tree = tree_cpu(me).expect("this process's tree");
        assert!(tree >= own, "{tree:?} < {own:?}");
        assert_eq!(tree_cpu(u32::MAX), None, "no such process");
    }

    #[test]
    fn figures_from_metrics() {
        let text = |moves: u64, counts: [u64; 4]| {
            format!(
                "# HELP table_moves Moves accepted and written.\n# TYPE table_moves counter\n\
                 table_moves_total {moves}\ntable_moves_per_second 99\n\
                 table_move_latency_seconds_sum 1.5\n\
                 table_move_latency_seconds_bucket{{le=\"0.001\"}} {}\n\
                 table_move_latency_seconds_bucket{{le=\"0.01\"}} {}\n\
                 table_move_latency_seconds_bucket{{le=\"0.1\"}} {}\n\
                 table_move_latency_seconds_bucket{{le=\"+Inf\"}} {}\n",
                counts[0], counts[1], counts[2], counts[3]
            )
        };
        let before = parse_metrics(&text(100, [10, 90, 100, 100])).expect("before");
        assert_eq!(before.moves, 100);
        assert_eq!(before.latency.len(), 4);
        assert_eq!(before.latency[3], (f64::INFINITY, 100));
        // 1,000 moves later: 900 under 1 ms, 990 under 10 ms, one over 0.1 s.
        let after = parse_metrics(&text(1_100, [910, 1_080, 1_099, 1_100])).expect("after");
        assert_eq!(latency_bound(&before, &after, 0.5), Some(0.001));
        assert_eq!(latency_bound(&before, &after, 0.99), Some(0.01));
        assert_eq!(latency_bound(&before, &after, 0.999), Some(0.1));
        assert_eq!(latency_bound(&before, &after, 1.0), Some(f64::INFINITY));
        assert_eq!(
            latency_bound(&after, &after, 0.99),
            None,
            "no move in between"
        );
        assert_eq!(parse_metrics("table_moves_per_second 3\n"), None);
    }

    #[test]
    fn figures_of_two_instances_add_up() {
        let a = ServerFigures {
            moves: 100,
            latency: vec![(0.001, 80), (0.01, 99), (f64::INFINITY, 100)],
        };
        let b = ServerFigures {
            moves: 50,
            latency: vec![(0.001, 10), (0.01, 40), (f64::INFINITY, 50)],
        };
        let sum = total(&[Some(a.clone()), Some(b.clone())]).expect("both read");
        assert_eq!(sum.moves, 150);
        assert_eq!(
            sum.latency,
            vec![(0.001, 90), (0.01, 139), (f64::INFINITY, 150)]
        );
        // 90 of 150 within 1 ms: the median of both is under 1 ms, though
        // b's alone is not.
        let none = ServerFigures::default();
        assert_eq!(latency_bound(&none, &sum, 0.5), Some(0.001));
        assert_eq!(latency_bound(&none, &b, 0.5), Some(0.01));
        assert_eq!(total(&[Some(a.clone())]), Some(a.clone()));
        assert_eq!(total(&[Some(a), None]), None, "one instance unread");
        assert_eq!(total(&[]), None, "no instance");
        let other_buckets = ServerFigures {
            moves: 1,
            latency: vec![(0.002, 1), (0.01, 1), (f64::INFINITY, 1)],
        };
        let sum = total(&[Some(b), Some(other_buckets)]).expect("both read");
        assert_eq!(sum.moves, 51);
        assert!(sum.latency.is_empty(), "histograms that do not add up");
        assert_eq!(latency_bound(&none, &sum, 0.99), None);
    }
}
