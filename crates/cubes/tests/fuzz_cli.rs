//! Fuzzing the numbers of `cubes`'s command line: the real binary, its
//! numeric options given random numbers, numbers on the edges of their
//! integers and strings that only look like numbers. Each run must either
//! accept the value, exactly when it is one the option means, or refuse it
//! as a usage error (exit 2, clap's "error:"), never panic.
//!
//! Runs stop right after the options are read: a plain game with no input
//! is left at once, `cubes sim` is given a computer player that does not
//! exist, `rank` and `stat` read an empty score file. A long run:
//! `PROPTEST_CASES=10000 cargo test --release -p cubes --test fuzz_cli`.

use proptest::prelude::*;
use std::process::{Command, Output, Stdio};

/// `PROPTEST_CASES` when set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Strings a number option may be given: the edges of the integer types,
/// and what only looks like a number.
const EDGES: &[&str] = &[
    "0",
    "1",
    "-1",
    "-0",
    "+2",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "1e3",
    "1.5",
    "0x10",
    "inf",
    "nan",
    "",
    " 2",
    "2,0",
    "\u{663}",
    "--2",
];

/// A value for a number option.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (0..EDGES.len()).prop_map(|i| EDGES[i].to_string()),
        2 => any::<u64>().prop_map(|n| n.to_string()),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        // No NUL: a program argument cannot hold one.
        1 => "[^\u{0}]{0,6}",
    ]
}

/// Runs `cubes ARGS` with its data directory in a temporary one and no
/// input.
fn cubes(args: &[String]) -> Result<Output, TestCaseError> {
    let data = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    Command::new(env!("CARGO_BIN_EXE_cubes"))
        .args(args)
        .env("GAMES_DATA_DIR", data.path())
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| TestCaseError::fail(e.to_string()))
}

/// Checks that the run accepted the values exactly when `valid`, exiting
/// with `ok_code` then, and otherwise refused them as a usage error.
fn expect(out: &Output, valid: bool, ok_code: i32) -> Result<(), TestCaseError> {
    let err = String::from_utf8_lossy(&out.stderr);
    prop_assert!(!err.contains("panicked"), "{}", err);
    if valid {
        prop_assert_eq!(out.status.code(), Some(ok_code), "{}", err);
    } else {
        prop_assert_eq!(out.status.code(), Some(2), "{}", err);
        prop_assert!(err.starts_with("error: "), "{}", err);
    }
    Ok(())
}

/// Whether clap reads `s` as a `u64`.
fn is_u64(s: &str) -> bool {
    s.parse::<u64>().is_ok()
}

/// Whether clap reads `s` as a `u32` (it reads it as an `i64` in range,
/// so `-0` is 0).
fn is_u32(s: &str) -> bool {
    s.parse::<i64>()
        .is_ok_and(|v| (0..=i64::from(u32::MAX)).contains(&v))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    /// `cubes --plain --seed --delay`: any 64-bit seed and delay; with no
    /// input the game is left at once.
    #[test]
    fn play_numbers_are_read_or_refused(seed in number(), delay in number()) {
        let out = cubes(&[
            "--plain".into(),
            "--no-record".into(),
            format!("--seed={seed}"),
            format!("--delay={delay}"),
            "ann".into(),
        ])?;
        expect(&out, is_u64(&seed) && is_u64(&delay), 0)?;
    }

    /// `cubes sim --games --seed`: read, then the unknown player ends it.
    #[test]
    fn sim_numbers_are_read_or_refused(games in number(), seed in number()) {
        let out = cubes(&[
            "sim".into(),
            format!("--games={games}"),
            format!("--seed={seed}"),
            "--b=nobody".into(),
        ])?;
        expect(&out, is_u64(&games) && is_u64(&seed), 1)?;
    }

    /// `cubes rank --min-games` and `cubes stat --min-games`: a 32-bit
    /// count.
    #[test]
    fn min_games_is_a_u32_or_refused(min in number(), stat in any::<bool>()) {
        let command = if stat { "stat" } else { "rank" };
        let out = cubes(&[command.into(), format!("--min-games={min}")])?;
        expect(&out, is_u32(&min), 0)?;
    }
}
