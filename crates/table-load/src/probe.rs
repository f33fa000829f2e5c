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

/// The server's `table_moves_total` in a /metrics text.
pub fn parse_moves_total(metrics: &str) -> Option<u64> {
    metrics.lines().find_map(|l| {
        let value = l.strip_prefix("table_moves_total ")?;
        value.trim().parse::<f64>().ok().map(|v| v as u64)
    })
}

/// Asks the server for its written moves (`GET /metrics`, HTTP/1.0, within
/// two seconds).
pub async fn moves_total(target: &Target) -> Option<u64> {
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
        parse_moves_total(&text)
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
    fn moves_from_metrics() {
        let text = "# HELP table_moves Moves accepted and written.\n# TYPE table_moves counter\ntable_moves_total 12345\ntable_moves_per_second 99\n";
        assert_eq!(parse_moves_total(text), Some(12_345));
        assert_eq!(parse_moves_total("table_moves_per_second 3\n"), None);
    }
}
