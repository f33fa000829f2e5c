//! Crash safety of saving: `mille` killed with SIGKILL at moments spread
//! over its save, round after round, always leaves the old complete save
//! or the new complete save (it loads and replays), never a broken or
//! empty file, and the temporary files of killed saves do not pile up.

mod tui_support;
use mille_store::SaveFile;
use std::path::Path;
use std::time::{Duration, Instant};
use tui_support::Pty;

/// The temporary files that saves of `game.mille` left in `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".game.mille.tmp-"))
        .collect()
}

/// Makes one move of the player's, whatever the game asks, and waits until
/// the player is asked again.
fn one_move(pty: &mut Pty) {
    let s = pty.wait_for("Your turn", 30);
    if s.contains("P to pick") || s.contains("P to let it pass") {
        pty.send("p");
    } else {
        for a in ["dp ", "d1 ", "d2 ", "d3 ", "d4 ", "d5 ", "d6 ", "up "] {
            let before = pty.screen();
            pty.send(a);
            let after = pty.wait_change(&before, 5);
            std::thread::sleep(Duration::from_millis(40));
            if pty.last_line().trim().is_empty() || !after.contains("U to use or D") {
                break;
            }
        }
    }
    std::thread::sleep(Duration::from_millis(50));
    pty.wait_for("Your turn", 30);
}

#[test]
fn a_save_killed_at_any_moment_leaves_the_old_or_the_new_complete_save() {
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let path = dir.path().join("game.mille");

    // The first save, made and left normally.
    let mut pty = Pty::spawn(
        &["--seed", "11", "--name", "Tester"],
        &data,
        dir.path(),
        80,
        24,
    );
    one_move(&mut pty);
    pty.send("s");
    pty.wait_for("Save in file", 30);
    pty.send("game.mille\r");
    pty.wait_for("Game saved in game.mille", 30);
    pty.send("qy");
    assert_eq!(pty.wait_exit(10), Some(true));
    drop(pty);

    let (mut old_save, _) = SaveFile::load(&path).expect("the first save loads");
    let mut old_bytes = std::fs::read(&path).expect("read");
    let (mut kept_old, mut got_new, mut left_one) = (0, 0, 0);
    const ROUNDS: u64 = 30;
    for round in 0..ROUNDS {
        let mut pty = Pty::spawn(&["game.mille"], &data, dir.path(), 80, 24);
        one_move(&mut pty);
        pty.send("s");
        pty.wait_for("Save in game.mille? (y/n)", 30);
        // Kill delays spread from before the key is read to after the
        // save is done: most of them over its first milliseconds, where
        // the key is read, the file written, flushed and renamed.
        let delay = Duration::from_micros(if round < 24 { round * 150 } else { round * 600 });
        pty.send("y");
        std::thread::sleep(delay);
        pty.kill("KILL");
        assert!(pty.wait_status(5).is_some(), "SIGKILL ends it");
        drop(pty);

        let bytes = std::fs::read(&path).expect("the save is still there");
        let (save, _) = SaveFile::from_bytes(&path, &bytes).unwrap_or_else(|e| {
            panic!("round {round}, killed after {delay:?}: the save is broken: {e}")
        });
        if bytes == old_bytes {
            kept_old += 1;
        } else {
            got_new += 1;
            let (old, new) = (&old_save.record.actions, &save.record.actions);
            assert!(
                new.len() > old.len() && new.starts_with(old),
                "round {round}: the new save is the old game and the new move"
            );
            old_save = save;
            old_bytes = bytes;
        }
        // A kill between the temporary's creation and its rename leaves
        // it; the next save sweeps it, so there is never more than one.
        let left = temporaries(dir.path());
        assert!(
            left.len() <= 1,
            "round {round}: temporaries pile up: {left:?}"
        );
        left_one += left.len();
        assert!(
            !data.join("mille").join(mille_store::AUTOSAVE_FILE).exists(),
            "SIGKILL cannot be caught: nothing else is written"
        );
    }
    eprintln!(
        "{kept_old} rounds kept the old save, {got_new} wrote the new one, \
         {left_one} ended with a temporary left"
    );

    // A save that is not killed sweeps what the killed ones left.
    let mut pty = Pty::spawn(&["game.mille"], &data, dir.path(), 80, 24);
    one_move(&mut pty);
    pty.send("sy");
    pty.wait_for("Game saved in game.mille", 30);
    pty.send("qy");
    assert_eq!(pty.wait_exit(10), Some(true));
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
    SaveFile::load(&path).expect("the last save loads");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "took {:?}",
        started.elapsed()
    );
}
