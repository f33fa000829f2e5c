//! Solved win tables on disk: a small binary format, and the tables shipped
//! with the crate for the Standard and Blitz games (regenerate them with
//! `cargo run --release -p cubes-ai --example solve -- --out
//! crates/cubes-ai/data`).
//!
//! Format (little endian): the 8 bytes `CUBESW1\0`; five `u32`: target,
//! on-board, off-board and lead thresholds in units of 50, and 1 for Jokers
//! dice (else 0); then `size * size` `f32` probabilities, row `i` (player to
//! move) by column `j`, with `size = target + lead`.

use crate::solver::{Thresholds, WinTable};
use thiserror::Error;

const MAGIC: &[u8; 8] = b"CUBESW1\0";

/// Why a table file was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum TableError {
    /// Not a table file.
    #[error("not a cubes win table (bad magic bytes)")]
    Magic,
    /// Too short or too long for its header.
    #[error("win table has {got} bytes, expected {want}")]
    Length {
        /// Actual length.
        got: usize,
        /// Expected length.
        want: usize,
    },
    /// A probability outside 0..=1.
    #[error("win table entry {0} is not a probability")]
    Value(usize),
}

/// Encodes a table.
pub fn encode(t: &WinTable) -> Vec<u8> {
    let r = &t.rules;
    let mut out = MAGIC.to_vec();
    for v in [
        r.target,
        r.on_board,
        r.off_board,
        r.lead,
        usize::from(t.jokers),
    ] {
        out.extend((v as u32).to_le_bytes());
    }
    for &w in &t.w {
        out.extend((w as f32).to_le_bytes());
    }
    out
}

/// Decodes and validates a table.
pub fn decode(bytes: &[u8]) -> Result<WinTable, TableError> {
    if bytes.len() < 28 || &bytes[..8] != MAGIC {
        return Err(TableError::Magic);
    }
    let word = |k: usize| {
        let o = 8 + 4 * k;
        u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]) as usize
    };
    let rules = Thresholds {
        target: word(0),
        on_board: word(1),
        off_board: word(2),
        lead: word(3),
    };
    let jokers = word(4) != 0;
    let n = rules.size();
    let want = 28 + 4 * n * n;
    if bytes.len() != want || n > 10_000 {
        return Err(TableError::Length {
            got: bytes.len(),
            want,
        });
    }
    let w: Vec<f64> = bytes[28..]
        .chunks_exact(4)
        .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
        .collect();
    if let Some(bad) = w.iter().position(|x| !(0.0..=1.0).contains(x)) {
        return Err(TableError::Value(bad));
    }
    Ok(WinTable { rules, jokers, w })
}

/// File name of the shipped table for a kind of game.
pub fn file_name(rules: &Thresholds, jokers: bool) -> String {
    format!(
        "w{}{}.bin",
        rules.target * 50,
        if jokers { "j" } else { "" }
    )
}

static SHIPPED: [(&str, &[u8]); 4] = [
    ("w10000.bin", include_bytes!("../data/w10000.bin")),
    ("w10000j.bin", include_bytes!("../data/w10000j.bin")),
    ("w7500.bin", include_bytes!("../data/w7500.bin")),
    ("w7500j.bin", include_bytes!("../data/w7500j.bin")),
];

/// The shipped table for these rules, if there is one.
pub fn shipped(rules: &Thresholds, jokers: bool) -> Option<WinTable> {
    let name = file_name(rules, jokers);
    SHIPPED
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, b)| decode(b).ok())
        .filter(|t| t.rules == *rules && t.jokers == jokers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_tables_load_and_round_trip() {
        for (name, bytes) in SHIPPED.iter() {
            let t = decode(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(file_name(&t.rules, t.jokers), *name);
            assert_eq!(encode(&t), bytes.to_vec(), "{name}");
            assert!(t.get(0, 0) > 0.5 && t.get(0, 0) < 0.55, "{name}");
        }
    }

    #[test]
    fn damaged_tables_are_refused() {
        let good = SHIPPED[2].1;
        assert_eq!(decode(b"nonsense"), Err(TableError::Magic));
        let short = &good[..good.len() - 4];
        assert!(matches!(decode(short), Err(TableError::Length { .. })));
        let mut bad = good.to_vec();
        let last = bad.len() - 4;
        bad[last..].copy_from_slice(&2.0f32.to_le_bytes());
        assert!(matches!(decode(&bad), Err(TableError::Value(_))));
    }
}
