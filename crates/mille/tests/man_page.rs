//! `mille man`: a section-6 page with the options from the clap
//! definitions and the sections a player needs, that roff renders without
//! reflowing the command list.

use mille_tui::commands::COMMANDS;
use std::io::Write;
use std::process::{Command, Stdio};

fn page() -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .arg("man")
        .output()
        .expect("mille man");
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn the_page_is_in_section_6_with_every_section() {
    let roff = page();
    assert!(roff.contains("\n.TH MILLE 6 "), "{roff}");
    assert_eq!(roff.matches(".ds Aq").count(), 2, "one apostrophe preamble");
    // The synopsis names each option's value.
    for item in [
        "[\\fB\\-\\-rules\\fR \\fIRULES\\fR]",
        "[\\fB\\-\\-players\\fR \\fIN\\fR]",
        "[\\fB\\-\\-plain\\fR]",
        "[\\fIFILE\\fR]",
    ] {
        assert!(roff.contains(item), "{item} missing from the synopsis");
    }
    for section in [
        ".SH SYNOPSIS",
        ".SH DESCRIPTION",
        ".SH OPTIONS",
        ".SH COMMANDS",
        ".SH CARDS",
        ".SH RULES",
        ".SH SCORING",
        ".SH FILES",
        ".SH ENVIRONMENT",
        ".SH SEE ALSO",
    ] {
        assert!(roff.contains(section), "{section} missing");
    }
    // The card counts come from the engine.
    assert!(roff.contains("Go (14)"));
    assert!(roff.contains("200 (4)"));
}

/// The in-game commands as the man page lists them: one `.TP` paragraph
/// each, in the table's order, tagged with the command's keys and starting
/// with what it does. This reads the roff source, so it runs everywhere;
/// the groff test below checks the rendering where groff is installed.
#[test]
fn each_command_is_a_tagged_paragraph_of_its_own() {
    let roff = page();
    // roff reads Latin-1 unless told otherwise: accents go as \['e].
    assert!(roff.is_ascii(), "the page is not plain ASCII");
    let section = roff
        .split("\n.SH COMMANDS\n")
        .nth(1)
        .and_then(|rest| rest.split("\n.PP\n").next())
        .expect("a COMMANDS section");
    // Each command is a `.TP 8` paragraph (the indent fits "Q, DEL").
    let paragraphs: Vec<&str> = section.split(".TP 8\n").filter(|p| !p.is_empty()).collect();
    assert_eq!(paragraphs.len(), COMMANDS.len(), "{section}");
    for (p, c) in paragraphs.iter().zip(COMMANDS) {
        let mut lines = p.lines();
        let tag = lines.next().unwrap_or_default();
        assert_eq!(unroff(tag), c.keys(), "the tag of {}", c.key);
        let body = unroff(&lines.collect::<Vec<_>>().join(" "));
        let does = sentence(c.does);
        assert!(
            body.starts_with(&does),
            "{} does not start with {does:?}: {body}",
            c.key
        );
    }
}

/// Rendered by groff, each command is a paragraph of its own, its keys
/// set apart before its description, and roff says nothing is wrong.
/// `.ci/run` does not install groff: without it this says it skipped.
#[test]
fn roff_renders_one_command_per_line() {
    let spawned = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww"])
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            eprintln!(
                "SKIPPED roff_renders_one_command_per_line: groff cannot be run ({e}); \
                 each_command_is_a_tagged_paragraph_of_its_own still checks the roff source"
            );
            return;
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(page().as_bytes()).expect("write");
    }
    let out = child.wait_with_output().expect("groff");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.trim().is_empty(), "groff warns: {err}");
    // Strip overstriking (bold and underline in -Tutf8 without sgr).
    let text = String::from_utf8_lossy(&out.stdout).replace("\x1b[", "\u{1}");
    let plain = strip(&text);
    let lines: Vec<&str> = plain.lines().collect();
    let section = lines
        .iter()
        .position(|l| *l == "COMMANDS")
        .expect("a COMMANDS heading");
    for c in COMMANDS {
        let keys = c.keys();
        let at = lines[section..]
            .iter()
            .position(|l| l.trim_start().starts_with(&format!("{keys} ")) || l.trim() == keys)
            .map(|i| section + i)
            .unwrap_or_else(|| panic!("{keys} does not start a line:\n{plain}"));
        // A paragraph of its own: a blank line (or the heading) before it.
        let before = lines[at - 1];
        assert!(
            before.trim().is_empty() || at - 1 == section,
            "{keys} runs on from {before:?}"
        );
        // The description follows the keys, set apart by spaces, on the
        // same line, or on the next when the keys are wider than the
        // indent.
        let rest = lines[at].trim_start()[keys.len()..].to_string();
        let rest = if rest.trim().is_empty() {
            lines.get(at + 1).copied().unwrap_or_default().to_string()
        } else {
            assert!(rest.starts_with("  "), "{keys} runs into {rest:?}");
            rest
        };
        // roff adjusts the spaces between words: compare the first word.
        let first = sentence(c.does)
            .split(' ')
            .next()
            .unwrap_or_default()
            .to_string();
        assert!(
            rest.trim_start().starts_with(&first),
            "{keys}'s line does not go on with {first:?}: {rest:?}"
        );
    }
}

/// A description as the man page starts it: capitalized, with a period.
fn sentence(does: &str) -> String {
    let mut s = does.to_string();
    if let Some(first) = s.get(..1) {
        s.replace_range(..1, &first.to_uppercase());
    }
    s.push('.');
    s.replace('é', "\\['e]")
}

/// A roff line as plain text: font changes dropped, escaped hyphens
/// unescaped (accents stay escaped).
fn unroff(s: &str) -> String {
    s.replace("\\fB", "")
        .replace("\\fI", "")
        .replace("\\fR", "")
        .replace("\\-", "-")
        .replace('\n', " ")
}

/// Removes terminal styling: escape sequences and backspace overstrikes.
fn strip(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1}' => {
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            '\u{8}' => {
                out.pop();
            }
            _ => out.push(c),
        }
    }
    out
}
