//! Fuzzing the numbers of `mille`'s command line: the real binary, its
//! numeric options given random numbers, numbers on the edges of their
//! integers and strings that only look like numbers. Each run must either
//! accept the value, exactly when it is one the option means, or refuse it
//! as a usage error (exit 2, clap's "error:"), never panic.
//!
//! Runs that would play (`mille` itself, `mille match`) are made to stop
//! right after the options are read: `mille --scores` prints the table,
//! `mille match` with one `--bot` for a table of two or three sides is
//! refused once the numbers are read.
//!
//! The default case counts keep the suite fast (each case starts the
//! program); a long run:
//! `PROPTEST_CASES=10000 cargo test --release -p mille --test fuzz_cli`.

use proptest::prelude::*;
use std::process::{Command, Output, Stdio};

/// `PROPTEST_CASES` when set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Strings a number option may be given.
const EDGES: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "-1",
    "-0",
    "+2",
    "02",
    "255",
    "256",
    "10000",
    "10001",
    "65535",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "99999999999999999999999999",
    "1e3",
    "1.5",
    "0x10",
    "inf",
    "-inf",
    "nan",
    "NaN",
    "1e400",
    "86400",
    "86400.5",
    "",
    " 2",
    "2 ",
    "2,0",
    "\u{663}",
    "--2",
];

/// A value for a number option.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0..EDGES.len()).prop_map(|i| EDGES[i].to_string()),
        2 => any::<u64>().prop_map(|n| n.to_string()),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<f64>().prop_map(|x| x.to_string()),
        // No NUL: a program argument cannot hold one.
        2 => "[^\u{0}]{0,6}",
    ]
}

/// Runs `mille ARGS` with its data directory in a temporary one and no
/// input.
fn mille(args: &[String]) -> Result<Output, TestCaseError> {
    let data = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
    Command::new(env!("CARGO_BIN_EXE_mille"))
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
    let code = out.status.code();
    if valid {
        prop_assert_eq!(code, Some(ok_code), "{}", err);
    } else {
        prop_assert_eq!(code, Some(2), "{}", err);
        prop_assert!(err.starts_with("error: "), "{}", err);
    }
    Ok(())
}

/// Whether clap reads `s` as a `u64` (Rust's own parse).
fn is_u64(s: &str) -> bool {
    s.parse::<u64>().is_ok()
}

/// Whether clap reads `s` as an unsigned integer of at most `max` bits'
/// worth: clap reads `u8` to `u32` as an `i64` in range, so `-0` is 0.
fn is_small_unsigned(s: &str, max: u32) -> bool {
    s.parse::<i64>()
        .is_ok_and(|v| (0..=i64::from(max)).contains(&v))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    /// `mille --players --seed --delay`: the counts 2, 3, 4 and 6, any
    /// 64-bit seed, a delay of 0 to 10000 ms.
    #[test]
    fn play_options_take_their_numbers_or_refuse_them(
        players in prop_oneof![Just("2".to_string()), Just("6".to_string()), number()],
        seed in prop_oneof![any::<u64>().prop_map(|n| n.to_string()), number()],
        delay in prop_oneof![(0u64..=10_000).prop_map(|n| n.to_string()), number()],
    ) {
        let out = mille(&[
            "--scores".into(),
            format!("--players={players}"),
            format!("--seed={seed}"),
            format!("--delay={delay}"),
        ])?;
        let valid = ["2", "3", "4", "6"].contains(&players.as_str())
            && is_u64(&seed)
            && delay.parse::<u64>().is_ok_and(|d| d <= 10_000);
        expect(&out, valid, 0)?;
        if valid {
            prop_assert!(String::from_utf8_lossy(&out.stdout).contains("Mille high scores"));
        }
    }

    /// `mille bot --seed`: any 64-bit seed (the bot then serves no input).
    #[test]
    fn bot_seed_is_a_u64_or_refused(seed in number()) {
        let out = mille(&["bot".into(), format!("--seed={seed}"), "--level=random".into()])?;
        expect(&out, is_u64(&seed), 0)?;
    }

    /// `mille match`'s numbers; with one `--bot` for at least two sides the
    /// match is refused (exit 1) right after they are read.
    #[test]
    fn match_numbers_are_read_or_refused(
        players in number(),
        seed in number(),
        games in prop_oneof![Just("4294967295".to_string()), number()],
        jobs in number(),
        timeout in number(),
    ) {
        let out = mille(&[
            "match".into(),
            "--bot=random".into(),
            format!("--players={players}"),
            format!("--seed={seed}"),
            format!("--games={games}"),
            format!("--jobs={jobs}"),
            format!("--timeout-ms={timeout}"),
        ])?;
        let valid = is_small_unsigned(&players, u32::from(u8::MAX))
            && is_u64(&seed)
            && is_small_unsigned(&games, u32::MAX)
            && jobs.parse::<usize>().is_ok()
            && is_u64(&timeout);
        expect(&out, valid, 1)?;
    }

    /// `mille bench --seconds`: a finite number up to a day (read, then not
    /// used with `--hands=0`).
    #[test]
    fn bench_seconds_are_finite_or_refused(seconds in number()) {
        let out = mille(&["bench".into(), "--hands=0".into(), format!("--seconds={seconds}")])?;
        let valid = seconds
            .parse::<f64>()
            .is_ok_and(|s| s.is_finite() && s <= 86_400.0);
        expect(&out, valid, 0)?;
    }
}

/// `mille bench --seconds inf` measured for ever: converting it to a
/// duration panicked after the warm-up. It is now a usage error.
#[test]
fn bench_refuses_seconds_that_are_no_duration() {
    for s in ["inf", "1e300", "NaN"] {
        let out = mille(&["bench".into(), format!("--seconds={s}")]).expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{s}: {err}");
        assert!(err.contains("must be a number of seconds"), "{err}");
    }
}

/// `mille match --games 4294967295` with two sides rounded the count up to
/// whole deals past `u32` (a multiplication overflow, a panic in debug
/// builds, no games at all in release). It is refused in one sentence.
#[test]
fn match_refuses_a_game_count_past_its_counter() {
    let out = mille(&[
        "match".into(),
        "--games=4294967295".into(),
        "--bot=random".into(),
        "--bot=random".into(),
    ])
    .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("more games than a match counts"), "{err}");
}
