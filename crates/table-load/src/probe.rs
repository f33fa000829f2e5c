//! What the generator reads of the server besides the game: its memory and
//! CPU time in /proc (same machine), and its count of written moves from
//! `GET /metrics`.

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

/// The CPU time (user and system) a process has had, from the text of
/// /proc/PID/stat.
pub fn parse_cpu(stat: &str) -> Option<Duration> {
    // The command name may hold spaces and parentheses: count from the last ')'.
    let after = &stat[stat.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    // Fields 3.. of the line: utime is the 14th, stime the 15th.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_secs_f64((utime + stime) as f64 / TICKS))
}

/// The CPU time of process `pid` ("self" for this one).
pub fn cpu(pid: &str) -> Option<Duration> {
    parse_cpu(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
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
                get_metrics(
                    tokio::net::TcpStream::connect((host.as_str(), *port))
                        .await
                        .ok()?,
                )
                .await
            }
            Target::Unix(path) => {
                get_metrics(tokio::net::UnixStream::connect(path).await.ok()?).await
            }
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
}
