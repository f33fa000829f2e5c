//! `mille man`: a section-6 page with the options from the clap
//! definitions and the sections a player needs, that roff renders without
//! reflowing the command list.

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

/// Rendered by groff (when it is installed), each command is a paragraph of
/// its own and roff says nothing is wrong.
#[test]
fn roff_renders_one_command_per_line() {
    let Ok(mut child) = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww"])
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        return;
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
    for key in ["P", "O", "S", "W", "Z", "M"] {
        assert!(
            plain.lines().any(|l| {
                let t = l.trim_start();
                t.starts_with(key) && t[key.len()..].starts_with("      ")
            }),
            "{key} is not on a line of its own:\n{plain}"
        );
    }
    assert!(!plain.contains("M mouse: click-click or drag"));
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
