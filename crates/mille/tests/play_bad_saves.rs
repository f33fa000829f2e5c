//! Every kind of bad save file gives one clear sentence, a non-zero exit,
//! and leaves the file untouched.

use std::path::Path;
use std::process::{Command, Stdio};

fn run_on(path: &Path, data: &Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .arg(path)
        .env("GAMES_DATA_DIR", data)
        .env("XDG_DATA_HOME", data)
        .env("HOME", data)
        .stdin(Stdio::null())
        .output()
        .expect("run mille");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn good_save(dir: &Path) -> String {
    // A real save: play a few plain-mode moves and save with S.
    let data = dir.join("data");
    let file = dir.join("good.mille");
    let out = Command::new(env!("CARGO_BIN_EXE_mille"))
        .args(["--plain", "--seed", "3", "--name", "T"])
        .env("GAMES_DATA_DIR", &data)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            if let Some(mut stdin) = child.stdin.take() {
                writeln!(stdin, "p\ns\n{}\n", file.display())?;
            }
            child.wait_with_output()
        })
        .expect("run mille --plain");
    assert!(out.status.success());
    std::fs::read_to_string(&file).expect("the game was saved")
}

fn check(name: &str, bytes: &[u8], expect: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("write");
    let before = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
    let (ok, err) = run_on(&path, dir.path());
    assert!(!ok, "{name}: mille should fail");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{name}: one sentence expected, got {err:?}");
    assert!(
        lines[0].contains(expect),
        "{name}: expected {expect:?} in {:?}",
        lines[0]
    );
    assert_eq!(
        std::fs::read(&path).expect("still there"),
        bytes,
        "{name}: untouched"
    );
    assert_eq!(
        std::fs::metadata(&path).and_then(|m| m.modified()).ok(),
        before
    );
}

#[test]
fn a_missing_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("nothing.mille");
    let (ok, err) = run_on(&path, dir.path());
    assert!(!ok);
    assert!(err.contains("there is no saved game at"), "{err}");
    assert!(!path.exists(), "no file is created");
}

#[test]
fn bad_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = good_save(dir.path());
    assert!(good.contains("\"format\": \"mille-save\""));
    check("empty.mille", b"", "is empty");
    check(
        "junk.mille",
        format!("{good}\x00junk").as_bytes(),
        "the saved game",
    );
    check(
        "junk2.mille",
        format!("{good}more words").as_bytes(),
        "is damaged: 10 bytes of something else follow the end of the saved game",
    );
    check(
        "truncated.mille",
        &good.as_bytes()[..good.len() * 2 / 3],
        "is truncated",
    );
    check(
        "corrupt.mille",
        b"\x89PNG\r\n\x1a\n\x00\x00garbage",
        "is not a mille saved game",
    );
    check(
        "foreign.json",
        br#"{"name": "cubes", "scores": [1, 2]}"#,
        "is not a mille saved game",
    );
    check("text.txt", b"hello world\n", "is not a mille saved game");
    let newer = good.replace("\"version\": 1", "\"version\": 99");
    check("newer.mille", newer.as_bytes(), "newer version of mille");
    let damaged = good.replace("\"seed\": 3", "\"seed\": \"three\"");
    check("damaged.mille", damaged.as_bytes(), "is damaged");
    let illegal = good.replacen("\"draw\"", "\"next_game\"", 1);
    check("illegal.mille", illegal.as_bytes(), "do not replay");
}
