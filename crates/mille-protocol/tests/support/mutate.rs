//! Byte-level mutations of valid examples for the fuzz tests: flip a bit,
//! delete, duplicate or insert a run of bytes, splice in a run from another
//! example, cut the end, and swap a number for a huge, negative or
//! malformed one. Shared by the fuzz tests of `mille-protocol` and
//! `mille-store` (included by path), so that both mutate the same way.

#![allow(dead_code)]

use proptest::prelude::*;

/// Numbers that sit on or past the edge of some integer or rule.
pub const EDGE_NUMBERS: &[&str] = &[
    "-1",
    "0",
    "-0",
    "1",
    "2",
    "3",
    "5",
    "6",
    "7",
    "8",
    "255",
    "256",
    "5000",
    "65535",
    "65536",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999",
    "1e400",
    "-1e400",
    "1.5",
    "0.0",
    "1e3",
];

/// One edit of a byte string. Positions and lengths are taken modulo the
/// length of what they apply to, so any edit applies to any example.
#[derive(Clone, Debug)]
pub enum Edit {
    /// Flip one bit of one byte.
    Flip { at: usize, bit: u8 },
    /// Delete a run of bytes.
    Delete { at: usize, len: usize },
    /// Repeat a run of bytes right after itself.
    Duplicate { at: usize, len: usize },
    /// Insert bytes.
    Insert { at: usize, bytes: Vec<u8> },
    /// Replace a run with a run of the other example.
    Splice {
        at: usize,
        len: usize,
        from: usize,
        from_len: usize,
    },
    /// Cut everything from a position on.
    Truncate { at: usize },
    /// Replace the `nth` number (a run of digits, with its sign) with
    /// [`EDGE_NUMBERS`]`[with]`.
    Number { nth: usize, with: usize },
}

/// A random edit, numbers swapped more often than the rest since the
/// examples are made of them.
pub fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        2 => (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Edit::Flip { at, bit }),
        1 => (any::<usize>(), 1usize..64).prop_map(|(at, len)| Edit::Delete { at, len }),
        1 => (any::<usize>(), 1usize..64).prop_map(|(at, len)| Edit::Duplicate { at, len }),
        1 => (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(at, bytes)| Edit::Insert { at, bytes }),
        1 => (any::<usize>(), 0usize..64, any::<usize>(), 1usize..64).prop_map(
            |(at, len, from, from_len)| Edit::Splice { at, len, from, from_len }
        ),
        1 => any::<usize>().prop_map(|at| Edit::Truncate { at }),
        4 => (any::<usize>(), 0..EDGE_NUMBERS.len())
            .prop_map(|(nth, with)| Edit::Number { nth, with }),
    ]
}

/// One to `max` edits.
pub fn edits(max: usize) -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec(edit(), 1..=max)
}

/// `base` with `edits` applied in order; `other` is the source of splices.
pub fn apply(base: &[u8], other: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut b = base.to_vec();
    for e in edits {
        apply_one(&mut b, other, e);
    }
    b
}

fn apply_one(b: &mut Vec<u8>, other: &[u8], e: &Edit) {
    let n = b.len();
    // A position in 0..=n, and a run starting there that fits.
    let pos = |at: usize| if n == 0 { 0 } else { at % (n + 1) };
    let run = |at: usize, len: usize| {
        let start = pos(at);
        (start, start + len.min(n - start))
    };
    match e {
        Edit::Flip { at, bit } => {
            if n > 0 {
                b[at % n] ^= 1 << bit;
            }
        }
        Edit::Delete { at, len } => {
            let (s, t) = run(*at, *len);
            b.drain(s..t);
        }
        Edit::Duplicate { at, len } => {
            let (s, t) = run(*at, *len);
            let copy = b[s..t].to_vec();
            b.splice(t..t, copy);
        }
        Edit::Insert { at, bytes } => {
            let s = pos(*at);
            b.splice(s..s, bytes.iter().copied());
        }
        Edit::Splice {
            at,
            len,
            from,
            from_len,
        } => {
            let (s, t) = run(*at, *len);
            let m = other.len();
            let fs = if m == 0 { 0 } else { from % m };
            let ft = fs + (*from_len).min(m - fs);
            b.splice(s..t, other[fs..ft].iter().copied());
        }
        Edit::Truncate { at } => {
            let s = pos(*at);
            b.truncate(s);
        }
        Edit::Number { nth, with } => {
            let numbers = number_runs(b);
            if !numbers.is_empty() {
                let (s, t) = numbers[nth % numbers.len()];
                let new = EDGE_NUMBERS[with % EDGE_NUMBERS.len()].as_bytes();
                b.splice(s..t, new.iter().copied());
            }
        }
    }
}

/// Where the numbers are: runs of ASCII digits with a leading `-`.
fn number_runs(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let mut s = i;
            if s > 0 && b[s - 1] == b'-' {
                s -= 1;
            }
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

/// `PROPTEST_CASES` when set (for long runs), else `default`: the default
/// counts keep the whole suite fast.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn edits_apply_to_any_example() {
    let base = br#"{"id":12,"x":[-3,4]}"#;
    let swapped = apply(base, b"", &[Edit::Number { nth: 1, with: 0 }]);
    assert_eq!(swapped, br#"{"id":12,"x":[-1,4]}"#);
    let spliced = apply(
        base,
        b"abc",
        &[Edit::Splice {
            at: 0,
            len: 1,
            from: 1,
            from_len: 9,
        }],
    );
    assert_eq!(spliced, br#"bc"id":12,"x":[-3,4]}"#);
    let dup = apply(b"ab", b"", &[Edit::Duplicate { at: 1, len: 5 }]);
    assert_eq!(dup, b"abb");
    // Every edit on an empty example is harmless.
    for e in [
        Edit::Flip { at: 3, bit: 1 },
        Edit::Delete { at: 3, len: 2 },
        Edit::Duplicate { at: 3, len: 2 },
        Edit::Truncate { at: 9 },
        Edit::Number { nth: 2, with: 1 },
        Edit::Splice {
            at: 1,
            len: 1,
            from: 1,
            from_len: 1,
        },
    ] {
        assert_eq!(apply(b"", b"", &[e]), b"");
    }
}

/// A value that may replace any node of a JSON document: numbers on the
/// edges of the integers, every type, card and rules ids, empty and
/// repeated containers.
pub const JSON_EDGES: &[&str] = &[
    "-1",
    "0",
    "1",
    "2",
    "3",
    "6",
    "7",
    "8",
    "255",
    "256",
    "999",
    "1000",
    "4999",
    "5000",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "-9223372036854775808",
    "1.5",
    "1e300",
    "null",
    "true",
    "\"\"",
    "\"go\"",
    "\"stop\"",
    "\"200\"",
    "\"25\"",
    "\"right_of_way\"",
    "\"speed_limit\"",
    "\"classic\"",
    "\"bsd\"",
    "\"turn\"",
    "[]",
    "{}",
    "[\"200\",\"200\",\"200\",\"200\",\"200\",\"200\",\"200\",\"200\",\"200\"]",
];

/// One edit of a JSON document, at its `nth` node (pre-order, modulo the
/// node count): the document stays JSON, its contents go wrong.
#[derive(Clone, Debug)]
pub enum JsonEdit {
    /// Replace the node with [`JSON_EDGES`]`[with]`.
    Replace { nth: usize, with: usize },
    /// Replace the node with the `with`-th of [`JSON_EDGES`] of its own
    /// type (a number by a number, a string by a string), so that the
    /// document mostly still parses and the value is what goes wrong.
    Swap { nth: usize, with: usize },
    /// Remove the node from its object or array.
    Remove { nth: usize },
    /// Repeat an array's elements `times` more times (a no-op elsewhere).
    Repeat { nth: usize, times: u8 },
}

/// A random JSON edit.
pub fn json_edit() -> impl Strategy<Value = JsonEdit> {
    prop_oneof![
        2 => (any::<usize>(), 0..JSON_EDGES.len()).prop_map(|(nth, with)| JsonEdit::Replace { nth, with }),
        4 => (any::<usize>(), any::<usize>()).prop_map(|(nth, with)| JsonEdit::Swap { nth, with }),
        1 => any::<usize>().prop_map(|nth| JsonEdit::Remove { nth }),
        1 => (any::<usize>(), 1u8..40).prop_map(|(nth, times)| JsonEdit::Repeat { nth, times }),
    ]
}

/// One to `max` JSON edits.
pub fn json_edits(max: usize) -> impl Strategy<Value = Vec<JsonEdit>> {
    proptest::collection::vec(json_edit(), 1..=max)
}

/// `text` with `edits` applied to its JSON; text that is not JSON is
/// returned as it is.
pub fn apply_json(text: &str, edits: &[JsonEdit]) -> String {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(text) else {
        return text.to_string();
    };
    for e in edits {
        let count = count_nodes(&v);
        let nth = match e {
            JsonEdit::Replace { nth, .. }
            | JsonEdit::Swap { nth, .. }
            | JsonEdit::Remove { nth }
            | JsonEdit::Repeat { nth, .. } => nth % count,
        };
        let mut seen = 0;
        edit_node(&mut v, nth, e, &mut seen);
    }
    v.to_string()
}

fn count_nodes(v: &serde_json::Value) -> usize {
    1 + match v {
        serde_json::Value::Array(a) => a.iter().map(count_nodes).sum(),
        serde_json::Value::Object(o) => o.values().map(count_nodes).sum(),
        _ => 0,
    }
}

/// Walks to node `nth` (counting in `seen`) and edits it; returns whether
/// the node is to be removed by its parent.
fn edit_node(v: &mut serde_json::Value, nth: usize, e: &JsonEdit, seen: &mut usize) -> bool {
    use serde_json::Value;
    if *seen == nth {
        *seen += 1;
        match e {
            JsonEdit::Replace { with, .. } => {
                if let Ok(new) = serde_json::from_str(JSON_EDGES[with % JSON_EDGES.len()]) {
                    *v = new;
                }
            }
            JsonEdit::Swap { with, .. } => {
                let same: Vec<Value> = JSON_EDGES
                    .iter()
                    .filter_map(|t| serde_json::from_str::<Value>(t).ok())
                    .filter(|x| std::mem::discriminant(x) == std::mem::discriminant(v))
                    .collect();
                if !same.is_empty() {
                    *v = same[with % same.len()].clone();
                }
            }
            JsonEdit::Remove { .. } => return true,
            JsonEdit::Repeat { times, .. } => {
                if let Value::Array(a) = v {
                    let copy = a.clone();
                    for _ in 0..*times {
                        a.extend(copy.iter().cloned());
                    }
                }
            }
        }
        return false;
    }
    *seen += 1;
    match v {
        Value::Array(a) => {
            let mut remove = None;
            for (i, x) in a.iter_mut().enumerate() {
                if *seen > nth {
                    break;
                }
                if edit_node(x, nth, e, seen) {
                    remove = Some(i);
                }
            }
            if let Some(i) = remove {
                a.remove(i);
            }
        }
        Value::Object(o) => {
            let mut remove = None;
            for (k, x) in o.iter_mut() {
                if *seen > nth {
                    break;
                }
                if edit_node(x, nth, e, seen) {
                    remove = Some(k.clone());
                }
            }
            if let Some(k) = remove {
                o.remove(&k);
            }
        }
        _ => {}
    }
    false
}

#[test]
fn json_edits_reach_every_node() {
    let doc = r#"{"a":[1,2],"b":{"c":3}}"#;
    // Pre-order: the object, a, 1, 2, b, c.
    assert_eq!(
        apply_json(doc, &[JsonEdit::Replace { nth: 3, with: 0 }]),
        r#"{"a":[1,-1],"b":{"c":3}}"#
    );
    assert_eq!(
        apply_json(doc, &[JsonEdit::Remove { nth: 4 }]),
        r#"{"a":[1,2]}"#
    );
    assert_eq!(
        apply_json(doc, &[JsonEdit::Repeat { nth: 1, times: 2 }]),
        r#"{"a":[1,2,1,2,1,2],"b":{"c":3}}"#
    );
    assert_eq!(
        apply_json(doc, &[JsonEdit::Swap { nth: 5, with: 0 }]),
        r#"{"a":[1,2],"b":{"c":-1}}"#
    );
    assert_eq!(
        apply_json("not json", &[JsonEdit::Remove { nth: 0 }]),
        "not json"
    );
}
