//! What a server says is made safe for a terminal before anybody sees it:
//! a server's strings (names, messages, rankings, table descriptions,
//! close reasons) lose every control character, so that no server can move
//! the cursor, rewrite the screen, set the window's title or send anything
//! else to the player's terminal.

use serde_json::Value;
use std::borrow::Cow;

/// What stands in for a control character: visible, and nothing a terminal
/// acts on.
pub const REPLACEMENT: char = '\u{FFFD}';

/// `text` without control characters: the C0 controls (ESC among them,
/// so no escape sequence survives), DEL and the C1 controls (U+0080 to
/// U+009F, which some terminals read as escape sequences too) become
/// [`REPLACEMENT`]; a newline is kept (rankings come as lines) and a tab
/// becomes a space (a full screen's cells have no tab stops).
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() && c != '\n') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| match c {
                '\n' => '\n',
                '\t' => ' ',
                c if c.is_control() => REPLACEMENT,
                c => c,
            })
            .collect(),
    )
}

/// Every string in `value`, keys included, made [`printable`].
pub(crate) fn clean(value: &mut Value) {
    match value {
        Value::String(s) => {
            if let Cow::Owned(clean) = printable(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean),
        Value::Object(map) => {
            if map.keys().any(|k| matches!(printable(k), Cow::Owned(_))) {
                let old = std::mem::take(map);
                for (k, mut v) in old {
                    clean(&mut v);
                    map.insert(printable(&k).into_owned(), v);
                }
            } else {
                map.values_mut().for_each(clean);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn escape_sequences_and_controls_are_replaced() {
        assert_eq!(printable("ann"), "ann");
        assert!(matches!(printable("plain\nlines"), Cow::Borrowed(_)));
        assert_eq!(
            printable("\u{1b}[2J\u{1b}]0;owned\u{7}x\ty\r\u{7f}\u{9b}31m"),
            "\u{FFFD}[2J\u{FFFD}]0;owned\u{FFFD}x y\u{FFFD}\u{FFFD}\u{FFFD}31m"
        );
        let mut v = serde_json::json!({"name\u{1b}": ["a\u{1b}[31m", 1, {"k": "\u{85}"}]});
        clean(&mut v);
        assert_eq!(
            v,
            serde_json::json!({"name\u{FFFD}": ["a\u{FFFD}[31m", 1, {"k": "\u{FFFD}"}]})
        );
    }

    proptest! {
        #[test]
        fn nothing_but_newlines_is_a_control_afterwards(text in any::<String>()) {
            let out = printable(&text);
            prop_assert!(out.chars().all(|c| c == '\n' || !c.is_control()));
            prop_assert_eq!(out.chars().count(), text.chars().count());
        }
    }
}
