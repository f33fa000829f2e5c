//! Property tests of the `--plain` command parser: whatever is typed, be it
//! random text or a valid command with a slip of the finger, `parse` never
//! panics and gives either the command the line means or a clear refusal
//! (printable, short, saying what to type).

use cubes_engine::DiceMask;
use cubes_tui::plain::{Command, parse};
use proptest::prelude::*;

/// What a line means, as the `--plain` help describes the commands: the
/// first word names the command (in any case); `k`/`keep` takes die
/// numbers 1 to 5. `None`: the line is to be refused.
fn meaning(line: &str) -> Option<Command> {
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Some(Command::Nothing);
    };
    Some(match first.to_ascii_lowercase().as_str() {
        "r" | "roll" => Command::Roll,
        "a" | "all" => Command::All,
        "h" | "hold" | "b" | "bank" => Command::Hold,
        "?" | "help" => Command::Help,
        "q" | "quit" => Command::Quit,
        "1" => Command::Pick(0),
        "2" => Command::Pick(1),
        "3" => Command::Pick(2),
        "4" => Command::Pick(3),
        "5" => Command::Pick(4),
        "k" | "keep" => {
            let dice: Option<Vec<usize>> = words
                .map(|w| match w.parse::<usize>() {
                    Ok(n @ 1..=5) => Some(n - 1),
                    _ => None,
                })
                .collect();
            match dice {
                Some(d) if !d.is_empty() => Command::Keep(DiceMask::of(&d)),
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Whether a refusal is one a person can read: no raw control
/// characters, and no longer than `max` characters.
fn clear(message: &str, max: usize) -> bool {
    !message.chars().any(char::is_control) && message.chars().count() <= max
}

fn check(line: &str) -> Result<(), TestCaseError> {
    let got = parse(line);
    match (meaning(line), &got) {
        (Some(want), got) => prop_assert_eq!(&want, got, "{:?}", line),
        (None, Command::BadKeep(m)) => {
            prop_assert!(clear(m, 90), "{:?} -> {:?}", line, m);
            // It says how a keep is typed.
            prop_assert!(m.contains("k 1 3"), "{:?} -> {:?}", line, m);
        }
        (None, Command::Unknown(w)) => {
            // The word echoed back: at most 20 characters and "...".
            prop_assert!(clear(w, 23), "{:?} -> {:?}", line, w);
            let first = line.split_whitespace().next().unwrap_or("");
            prop_assert!(
                !matches!(first.to_ascii_lowercase().as_str(), "k" | "keep"),
                "{:?} -> {:?}",
                line,
                w
            );
        }
        (None, other) => prop_assert!(false, "{:?} -> {:?}", line, other),
    }
    Ok(())
}

/// Every valid command, in the forms the help gives.
fn valid() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "r", "roll", "a", "all", "h", "hold", "b", "bank", "?", "help", "q", "quit", "1", "2",
            "3", "4", "5",
        ])
        .prop_map(String::from),
        (
            prop::sample::select(vec!["k", "keep", "K"]),
            prop::collection::vec(1u8..=5, 1..=5)
        )
            .prop_map(|(k, dice)| {
                let d: Vec<String> = dice.iter().map(u8::to_string).collect();
                format!("{k} {}", d.join(" "))
            }),
    ]
}

/// A slip of the finger: a character put in, left out, replaced or
/// doubled, or the case changed.
#[derive(Clone, Debug)]
enum Slip {
    Insert(usize, char),
    Delete(usize),
    Replace(usize, char),
    Double(usize),
    Upper,
}

fn slip() -> impl Strategy<Value = Slip> {
    // Mostly the keys near the commands, sometimes anything at all.
    let key = prop_oneof![
        4 => prop::sample::select(" rkahbq?123456790+-.,\t".chars().collect::<Vec<_>>()),
        1 => any::<char>(),
    ];
    prop_oneof![
        (any::<usize>(), key.clone()).prop_map(|(i, c)| Slip::Insert(i, c)),
        any::<usize>().prop_map(Slip::Delete),
        (any::<usize>(), key).prop_map(|(i, c)| Slip::Replace(i, c)),
        any::<usize>().prop_map(Slip::Double),
        Just(Slip::Upper),
    ]
}

fn apply(line: &str, slips: &[Slip]) -> String {
    let mut chars: Vec<char> = line.chars().collect();
    for s in slips {
        let n = chars.len();
        match *s {
            Slip::Insert(i, c) => chars.insert(i % (n + 1), c),
            Slip::Delete(i) if n > 0 => {
                chars.remove(i % n);
            }
            Slip::Replace(i, c) if n > 0 => chars[i % n] = c,
            Slip::Double(i) if n > 0 => {
                let c = chars[i % n];
                chars.insert(i % n, c);
            }
            Slip::Upper => chars = chars.iter().flat_map(|c| c.to_uppercase()).collect(),
            _ => {}
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #[test]
    fn valid_commands_are_understood(line in valid(), pad in "[ \t]{0,3}") {
        prop_assert!(meaning(&line).is_some(), "{:?}", line);
        check(&line)?;
        check(&format!("{pad}{line}{pad}"))?;
    }

    #[test]
    fn mistyped_commands_get_a_command_or_a_clear_refusal(
        line in valid(),
        slips in prop::collection::vec(slip(), 1..4),
    ) {
        check(&apply(&line, &slips))?;
    }

    #[test]
    fn any_text_gets_a_command_or_a_clear_refusal(line in any::<String>()) {
        check(&line)?;
    }

    #[test]
    fn long_and_strange_words_are_echoed_short_and_escaped(
        word in "[a-z\u{0}-\u{1f}\u{7f}\u{80}-\u{9f}\u{200b}\u{202e}]{21,200}",
    ) {
        check(&word)?;
        check(&format!("k {word}"))?;
        check(&format!("k 1 {word} 2"))?;
    }
}
