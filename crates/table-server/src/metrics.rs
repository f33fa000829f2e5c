//! The server's counters, for `/health` (JSON) and `/metrics`
//! (Prometheus text).

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Every figure the server publishes.
pub struct Metrics {
    registry: Registry,
    /// Tables open (not over).
    pub tables: Gauge,
    /// Connections open.
    pub connections: Gauge,
    /// Moves accepted and written, computers' and deals included.
    pub moves: Counter,
    /// Moves accepted in the last whole second.
    pub moves_per_second: Gauge,
    /// From a person's move arriving to its acknowledgement being sent.
    pub move_latency: Histogram,
    /// Errors sent to clients (refused moves included) and failures.
    pub errors: Counter,
    /// Connections turned away at the gate (over a cap).
    pub refused_connections: Counter,
    moves_at_last_tick: AtomicU64,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let tables = Gauge::default();
        let connections = Gauge::default();
        let moves = Counter::default();
        let moves_per_second = Gauge::default();
        // 0.1 ms to about 1.6 s.
        let move_latency = Histogram::new(exponential_buckets(0.0001, 2.0, 15));
        let errors = Counter::default();
        let refused_connections = Counter::default();
        registry.register("table_tables", "Tables open", tables.clone());
        registry.register("table_connections", "Connections open", connections.clone());
        registry.register("table_moves", "Moves accepted and written", moves.clone());
        registry.register(
            "table_moves_per_second",
            "Moves accepted in the last second",
            moves_per_second.clone(),
        );
        registry.register(
            "table_move_latency_seconds",
            "Time from a move's arrival to its acknowledgement",
            move_latency.clone(),
        );
        registry.register(
            "table_errors",
            "Errors sent to clients and server failures",
            errors.clone(),
        );
        registry.register(
            "table_refused_connections",
            "Connections turned away over a cap",
            refused_connections.clone(),
        );
        Metrics {
            registry,
            tables,
            connections,
            moves,
            moves_per_second,
            move_latency,
            errors,
            refused_connections,
            moves_at_last_tick: AtomicU64::new(0),
        }
    }
}

impl Metrics {
    /// The Prometheus text exposition.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if encode(&mut out, &self.registry).is_err() {
            out.clear();
        }
        out
    }

    /// Called once a second: updates the moves-per-second gauge.
    pub fn tick(&self) {
        let now = self.moves.get();
        let before = self.moves_at_last_tick.swap(now, Ordering::Relaxed);
        self.moves_per_second
            .set(i64::try_from(now.saturating_sub(before)).unwrap_or(i64::MAX));
    }

    /// Records one acknowledged move's latency.
    pub fn observe_move(&self, took: Duration) {
        self.move_latency.observe(took.as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_names_every_figure() {
        let m = Metrics::default();
        m.moves.inc();
        m.observe_move(Duration::from_millis(3));
        m.tick();
        let text = m.text();
        for name in [
            "table_tables",
            "table_connections",
            "table_moves_total 1",
            "table_moves_per_second 1",
            "table_move_latency_seconds_bucket",
            "table_errors_total",
        ] {
            assert!(text.contains(name), "{name} missing from\n{text}");
        }
    }
}
