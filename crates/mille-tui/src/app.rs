//! The terminal event loop: raw mode, the alternate screen and mouse
//! capture; one channel carries keys, mouse, resizes, ticks and the
//! computer's moves. The loop holds the [`Host`] (the game's table): the
//! model's game effects are carried out with it, and for a computer's turn
//! it goes to a thread of its own (a search may think for a second) and
//! comes back with the move, game effects asked meanwhile waiting for it.
//! A signal, a closed terminal or Ctrl-C ends the loop at once: the game,
//! unless it is over, is kept in the autosave and the terminal restored.
//!
//! A game at a table server runs through the same loop with a
//! [`RemoteHost`] in place of the [`Host`]: the effects go to the server,
//! and the server's news, polled while the loop waits, come back as the
//! same events (a server keeps its own game: nothing is autosaved).

use crate::host::Host;
use crate::model::{Model, is_logged};
use crate::remote::RemoteHost;
use crate::render;
use crate::signals::{HANGUP, INTERRUPT, Stop, Ttys};
use crate::update::{self, Effect, Event};
use mille_engine::{Action, GameRecord};
use mille_store::{Autosave, Options, SaveFile, ScoreDb};
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;
use std::collections::VecDeque;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};
use table_client::Session;

/// How long to wait, `elapsed` after the previous move, before showing the
/// computer's `action`: a visible move that follows another computer
/// player's waits until `pace` has passed, so a table of computers does not
/// scroll its moves away unseen; a pick, or a reply to the player's own
/// move, shows at once.
pub fn pause_before(
    after_computer: bool,
    action: Action,
    pace: Duration,
    elapsed: Duration,
) -> Duration {
    if after_computer && is_logged(action) {
        pace.saturating_sub(elapsed)
    } else {
        Duration::ZERO
    }
}

/// `~/name` means `name` in the home directory, as in the shell.
pub fn expand_home(path: PathBuf) -> PathBuf {
    if let Ok(rest) = path.strip_prefix("~")
        && let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty())
    {
        return PathBuf::from(home).join(rest);
    }
    path
}

/// Carries out the effects that touch files: saves, options, high scores.
#[derive(Clone, Debug, Default)]
pub struct Io {
    /// The data directory (options, high scores); none in throwaway runs.
    pub data_dir: Option<PathBuf>,
}

impl Io {
    /// Saves the options, reporting a failure as a message.
    fn save_options(&self, model: &mut Model, o: &Options) {
        if let Some(dir) = &self.data_dir
            && let Err(e) = o.save(dir)
        {
            model.error(format!("Could not save your options: {e}"));
        }
    }

    /// Writes the game's save file; the event reporting it.
    pub fn save(&self, path: PathBuf, file: &SaveFile) -> Event {
        let path = expand_home(path);
        Event::Saved(file.write(&path).map(|()| path).map_err(|e| e.to_string()))
    }

    /// Carries out an effect with the host at hand: the game's through the
    /// table, a save with the table's record, the others with files.
    /// Returns the event reporting its result.
    pub fn carry_out(&self, model: &mut Model, host: &mut Host, effect: Effect) -> Option<Event> {
        match effect {
            e if e.for_table() => host.carry_out(&e, model.generation),
            Effect::Save { path, settings } => Some(self.save(path, &host.save_file(settings))),
            other => self.file_effect(model, other),
        }
    }

    /// Carries out a file effect; returns the event reporting its result.
    pub fn file_effect(&self, model: &mut Model, effect: Effect) -> Option<Event> {
        match effect {
            Effect::SaveOptions(o) => {
                self.save_options(model, &o);
                None
            }
            Effect::RecordScores { rules, sides } => {
                let dir = self.data_dir.as_ref()?;
                let result = ScoreDb::open(dir)
                    .and_then(|mut db| db.record_game(&rules, &sides, 0))
                    .map_err(|e| e.to_string());
                Some(Event::ScoresRecorded(result))
            }
            _ => None,
        }
    }
}

/// What the event loop hears: the screen's events, the host back from a
/// computer's turn with what it did, the table server's news, or the end
/// of the terminal's input.
enum Message {
    Screen(Event),
    Back(Box<Host>, Option<Event>),
    Table(Vec<Event>),
    InputEnded,
}

/// How often the loop looks at the signal flag and the terminal while
/// nothing happens.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// How often the loop looks for a table server's news while nothing
/// happens.
const SERVER_CHECK: Duration = Duration::from_millis(25);

/// Who carries out the game's effects.
#[derive(Debug)]
pub enum GameHost {
    /// The game's table at this terminal, with its computer players.
    Local(Box<Host>),
    /// A table at a table server.
    Remote(Box<RemoteHost>),
}

impl From<Host> for GameHost {
    fn from(host: Host) -> GameHost {
        GameHost::Local(Box::new(host))
    }
}

impl From<RemoteHost> for GameHost {
    fn from(host: RemoteHost) -> GameHost {
        GameHost::Remote(Box::new(host))
    }
}

/// How a game left the screen.
#[derive(Debug)]
pub enum Ending {
    /// The player quit (or answered the game's questions out of it).
    Quit,
    /// A signal, a closed terminal or Ctrl-C ended it at once.
    Interrupted(Interruption),
    /// A spectator left the table for the lobby: the session, the table
    /// left, to choose another table with.
    Lobby(Box<Session>),
}

/// A game ended from outside, and what became of it.
#[derive(Debug)]
pub struct Interruption {
    /// The signal (see [`crate::signals`]): [`HANGUP`] also for a terminal
    /// found closed, [`INTERRUPT`] also for Ctrl-C typed on the full screen.
    pub signal: i32,
    /// Where the game was kept (none for a game that was over), or why it
    /// could not be.
    pub kept: Result<Option<PathBuf>, String>,
}

impl Io {
    /// Keeps the game `record` left unfinished in the autosave, with the
    /// player's settings; a game that is over is not kept.
    pub fn keep(&self, model: &Model, record: GameRecord) -> Result<Option<PathBuf>, String> {
        if model.game_over() {
            return Ok(None);
        }
        let dir = self
            .data_dir
            .as_ref()
            .ok_or("there is no data directory to keep it in")?;
        let autosave = Autosave::in_dir(dir);
        autosave
            .write(&SaveFile::new(record, model.save_settings()))
            .map_err(|e| e.to_string())?;
        Ok(Some(autosave.path().to_path_buf()))
    }

    /// The interruption by `signal` of the game `record`, kept.
    pub fn interrupted(&self, model: &Model, record: GameRecord, signal: i32) -> Interruption {
        Interruption {
            signal,
            kept: self.keep(model, record),
        }
    }
}

/// The game's host in the loop.
enum Hosting {
    /// The host, unless it is away for a computer's turn; then the record
    /// of the game as it left, which replays to the same computer move.
    Local {
        host: Option<Box<Host>>,
        away: GameRecord,
    },
    /// A table server.
    Remote(Box<RemoteHost>),
}

impl Hosting {
    /// The game's record, to keep; none at a table server, which keeps it.
    fn record(&self) -> Option<GameRecord> {
        match self {
            Hosting::Local { host, away } => {
                Some(host.as_ref().map_or_else(|| away.clone(), |h| h.record()))
            }
            Hosting::Remote(_) => None,
        }
    }

    /// The table server's news since the last look.
    fn news(&mut self) -> Vec<Event> {
        match self {
            Hosting::Local { .. } => Vec::new(),
            Hosting::Remote(r) => r.poll(),
        }
    }
}

/// Plays in the terminal until the player quits, a signal arrives or the
/// terminal closes; an unfinished game ended that way is kept in the
/// autosave (see [`Io::keep`]), unless a table server keeps it. `pace` is
/// the least time between two computer moves in a row at this terminal
/// (see [`pause_before`]).
pub fn run(
    mut model: Model,
    host: impl Into<GameHost>,
    io_: Io,
    pace: Duration,
    stop: &Stop,
) -> io::Result<(Model, Ending)> {
    let ttys = Ttys::now();
    let mut terminal = ratatui::init();
    let _ = execute!(io::stdout(), EnableMouseCapture);
    let mut hosting = match host.into() {
        GameHost::Local(host) => Hosting::Local {
            away: host.record(),
            host: Some(host),
        },
        GameHost::Remote(remote) => Hosting::Remote(remote),
    };
    let watch = Watch {
        stop,
        ttys,
        input: Arc::new(Input::default()),
    };
    let result = event_loop(&mut terminal, &mut model, &mut hosting, &io_, pace, &watch);
    watch.input.stop_reading();
    let signal = match &result {
        Ok(signal) => *signal,
        // After a hangup the terminal is gone and drawing or reading fails;
        // the hangup, not that failure, is why the game ends.
        Err(_) => stop.signal().or_else(|| ttys.closed().then_some(HANGUP)),
    };
    // The game first: the terminal may be gone, the game need not be.
    let record = hosting.record();
    if signal.is_none() {
        model.finished = record.clone().filter(|r| {
            r.replay()
                .is_ok_and(|s| s.phase() == mille_engine::Phase::GameOver)
        });
    }
    let settled = settle(result, signal, &model, record, &io_);
    if terminal.show_cursor().is_err() {
        // The terminal is gone. Dropping ratatui's terminal would try to
        // show the cursor again and print the failure to standard error,
        // and printing to a closed terminal panics: let it go unnoticed.
        std::mem::forget(terminal);
    }
    restore();
    let ending = match (settled?, hosting) {
        (Ending::Quit, Hosting::Remote(r)) if model.server.as_ref().is_some_and(|s| s.to_lobby) => {
            Ending::Lobby(Box::new(r.leave()))
        }
        (ending, _) => ending,
    };
    Ok((model, ending))
}

/// How the loop's `result` ends the game, `signal` being the signal that
/// stopped it, if any: an unfinished game at this terminal (its `record`)
/// is kept in the autosave when a signal ended it, and also when the
/// terminal failed, whatever the failure (the error then says where the
/// game went): a game is never lost to a terminal.
fn settle(
    result: io::Result<Option<i32>>,
    signal: Option<i32>,
    model: &Model,
    record: Option<GameRecord>,
    io_: &Io,
) -> io::Result<Ending> {
    if let Some(sig) = signal {
        return Ok(Ending::Interrupted(match record {
            Some(record) => io_.interrupted(model, record, sig),
            None => Interruption {
                signal: sig,
                kept: Ok(None),
            },
        }));
    }
    match result {
        Ok(_) => Ok(Ending::Quit),
        Err(e) => {
            let kept = match record.map(|r| io_.keep(model, r)) {
                Some(Ok(Some(path))) => format!(
                    "; the game is kept in {} and the next mille offers to resume it",
                    path.display()
                ),
                Some(Err(why)) => format!("; the game could not be kept: {why}"),
                Some(Ok(None)) | None => String::new(),
            };
            Err(io::Error::new(e.kind(), format!("{e}{kept}")))
        }
    }
}

/// Leaves raw mode, mouse capture and the alternate screen. Unlike
/// `ratatui::restore`, it tries every step whatever the others did and
/// prints nothing: after a hangup there is no terminal to print to (and
/// printing would panic).
fn restore() {
    let _ = ratatui::crossterm::terminal::disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        ratatui::crossterm::terminal::LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
}

/// Clears the screen and forgets what it showed, so the next draw paints
/// every cell again (a screen scribbled over by another program comes back
/// whole). Not `Terminal::clear`: that one asks the terminal where its
/// cursor is, and the answer goes to the thread reading keys, which holds
/// the terminal's input; the question times out and the game would end.
/// A resize to the terminal's own size does the same clearing without the
/// question.
fn redraw(terminal: &mut ratatui::DefaultTerminal) -> io::Result<()> {
    let size = terminal.size()?;
    terminal.resize(ratatui::layout::Rect::new(0, 0, size.width, size.height))
}

/// How long the key-reading thread waits for a key before it looks whether
/// the loop has ended.
const INPUT_CHECK: Duration = Duration::from_millis(50);

/// Between the loop and its key-reading thread: the loop asks the thread
/// to stop, the thread says it has.
#[derive(Debug, Default)]
struct Input {
    stop: AtomicBool,
    stopped: AtomicBool,
}

impl Input {
    /// Asks the thread to stop reading keys and waits a moment for it: a
    /// key it read after the game left the screen would be lost to what
    /// comes next (the lobby). A thread stuck on a closed terminal is not
    /// waited for long.
    fn stop_reading(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let end = Instant::now() + INPUT_CHECK * 10;
        while !self.stopped.load(Ordering::SeqCst) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// What the loop watches besides its events: the signal flag, the
/// terminal (closed?), and its key-reading thread.
struct Watch<'a> {
    stop: &'a Stop,
    ttys: Ttys,
    input: Arc<Input>,
}

/// The loop proper: `Ok(None)` when the player quit, `Ok(Some(signal))`
/// when a signal, a closed terminal or Ctrl-C ended the game.
fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    model: &mut Model,
    hosting: &mut Hosting,
    io_: &Io,
    pace: Duration,
    watch: &Watch,
) -> io::Result<Option<i32>> {
    let (stop, ttys, input) = (watch.stop, watch.ttys, &watch.input);
    let (tx, rx) = mpsc::channel::<Message>();
    let started = Instant::now();
    {
        // Keys are read on a thread of their own: once the terminal has
        // closed, crossterm may read end-of-file again and again without
        // returning, and the loop must still see the flag and the terminal.
        // The thread stops when the loop ends, before reading a key that
        // is there: the lobby that may come next reads it.
        let tx = tx.clone();
        let input = Arc::clone(input);
        std::thread::spawn(move || {
            loop {
                if input.stop.load(Ordering::SeqCst) {
                    break;
                }
                match event::poll(INPUT_CHECK) {
                    Ok(false) => continue,
                    Ok(true) if input.stop.load(Ordering::SeqCst) => break,
                    Ok(true) => {}
                    Err(_) => {
                        let _ = tx.send(Message::InputEnded);
                        break;
                    }
                }
                let ev = match event::read() {
                    Ok(event::Event::Key(k)) => Event::Key(k),
                    Ok(event::Event::Mouse(m)) => {
                        Event::Mouse(m, started.elapsed().as_millis() as u64)
                    }
                    Ok(event::Event::Resize(w, h)) => Event::Resize(w, h),
                    Ok(_) => continue,
                    Err(_) => {
                        let _ = tx.send(Message::InputEnded);
                        break;
                    }
                };
                if tx.send(Message::Screen(ev)).is_err() {
                    break;
                }
            }
            input.stopped.store(true, Ordering::SeqCst);
        });
    }
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            while tx.send(Message::Screen(Event::Tick)).is_ok() {
                std::thread::sleep(Duration::from_millis(500));
            }
        });
    }
    let size = terminal.size()?;
    model.screen = (size.width, size.height);
    // The effects that need the host while it is away wait, in order.
    let mut waiting: VecDeque<Effect> = VecDeque::new();
    let mut pending: VecDeque<Effect> = update::start(model).into();
    loop {
        while let Some(effect) = pending.pop_front() {
            match effect {
                Effect::Quit => return Ok(None),
                Effect::Interrupted => {
                    stop.end_as(INTERRUPT);
                    return Ok(Some(INTERRUPT));
                }
                Effect::Bell => {
                    let mut out = io::stdout();
                    let _ = out.write_all(b"\x07");
                    let _ = out.flush();
                }
                Effect::Redraw => redraw(terminal)?,
                Effect::Think { generation } if generation == model.generation => {
                    // A table server runs its computer players itself.
                    let Hosting::Local { host, away } = hosting else {
                        continue;
                    };
                    let Some(mut h) = host.take() else {
                        waiting.push_back(effect);
                        continue;
                    };
                    *away = h.record();
                    let after_computer = model.last_logged_is_computer();
                    let tx = tx.clone();
                    std::thread::spawn(move || {
                        let since = Instant::now();
                        let ev = h.step();
                        if let Some(Event::BotMoved { action, .. }) = &ev {
                            std::thread::sleep(pause_before(
                                after_computer,
                                *action,
                                pace,
                                since.elapsed(),
                            ));
                        }
                        let _ = tx.send(Message::Back(h, ev));
                    });
                }
                // A turn asked for a game that has changed since.
                Effect::Think { .. } => {}
                Effect::SaveOptions(_) | Effect::RecordScores { .. } => {
                    if let Some(ev) = io_.file_effect(model, effect) {
                        pending.extend(update::update(model, ev));
                    }
                }
                other => match hosting {
                    Hosting::Local { host: Some(h), .. } => {
                        if let Some(ev) = io_.carry_out(model, h, other) {
                            pending.extend(update::update(model, ev));
                        }
                    }
                    Hosting::Local { host: None, .. } => waiting.push_back(other),
                    Hosting::Remote(r) => {
                        if let Some(ev) = r.carry_out(&other) {
                            pending.extend(update::update(model, ev));
                        }
                    }
                },
            }
        }
        if let Some(s) = &mut model.server {
            // The countdowns count to the time of drawing; the ticks
            // (twice a second) draw them anew.
            s.clock = Instant::now();
            if let Hosting::Remote(r) = hosting {
                s.away_seconds = r.away_seconds().or(s.away_seconds);
            }
        }
        terminal.draw(|f| render::draw(model, f))?;
        let check = match hosting {
            Hosting::Local { .. } => SIGNAL_CHECK,
            Hosting::Remote(_) => SERVER_CHECK,
        };
        let message = loop {
            if let Some(sig) = stop.signal() {
                return Ok(Some(sig));
            }
            if ttys.closed() {
                stop.end_as(HANGUP);
                return Ok(Some(HANGUP));
            }
            let news = hosting.news();
            if !news.is_empty() {
                break Message::Table(news);
            }
            match rx.recv_timeout(check) {
                Ok(message) => break message,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(None),
            }
        };
        let mut take = |message| match message {
            Message::Screen(ev) => Some(update::update(model, ev)),
            Message::Back(h, ev) => {
                if let Hosting::Local { host, .. } = hosting {
                    *host = Some(h);
                }
                // The computer's move first: the effects waiting were asked
                // before it was known, and come next.
                let fx = ev.map(|ev| update::update(model, ev)).unwrap_or_default();
                Some(waiting.drain(..).chain(fx).collect())
            }
            Message::Table(news) => {
                let mut fx = Vec::new();
                for ev in news {
                    fx.extend(update::update(model, ev));
                }
                Some(fx)
            }
            // No more keys can come: the terminal is gone.
            Message::InputEnded => None,
        };
        let Some(fx) = take(message) else {
            stop.end_as(HANGUP);
            return Ok(Some(HANGUP));
        };
        pending.extend(fx);
        // Take whatever else is waiting before drawing again.
        while let Ok(message) = rx.try_recv() {
            let Some(fx) = take(message) else {
                stop.end_as(HANGUP);
                return Ok(Some(HANGUP));
            };
            pending.extend(fx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Setup;
    use mille_ai::Level;
    use mille_engine::{Card, GameConfig};

    /// A game in progress at this terminal: its model and record.
    fn a_game() -> (Model, GameRecord) {
        let mut host =
            Host::new(&GameRecord::new(GameConfig::default(), 3), Level::Random).expect("a game");
        let setup = Setup {
            level: Level::Random,
            player: "ann".into(),
            save_path: None,
            options: Options::default(),
            ask_name: false,
        };
        let model = Model::new(host.observe(), setup).expect("rules");
        (model, host.record())
    }

    #[test]
    fn a_terminal_that_fails_keeps_the_game_in_the_autosave() {
        let dir = tempfile::tempdir().expect("tempdir");
        let io_ = Io {
            data_dir: Some(dir.path().to_path_buf()),
        };
        let (model, record) = a_game();
        let failed = Err(io::Error::other("the cursor position could not be read"));
        let e = settle(failed, None, &model, Some(record.clone()), &io_)
            .expect_err("the failure is told");
        let autosave = Autosave::in_dir(dir.path());
        assert!(autosave.path().exists(), "the game is kept");
        assert!(
            e.to_string()
                .starts_with("the cursor position could not be read; the game is kept in "),
            "{e}"
        );
        let (kept, _) = SaveFile::load(autosave.path()).expect("the autosave loads");
        assert_eq!(kept.record, record);
        // A signal says why, and keeps it too; a player who quit leaves
        // nothing behind.
        std::fs::remove_file(autosave.path()).expect("removed");
        let ended = settle(
            Ok(Some(HANGUP)),
            Some(HANGUP),
            &model,
            Some(record.clone()),
            &io_,
        );
        assert!(matches!(
            ended,
            Ok(Ending::Interrupted(Interruption {
                kept: Ok(Some(_)),
                ..
            }))
        ));
        std::fs::remove_file(autosave.path()).expect("removed");
        assert!(matches!(
            settle(Ok(None), None, &model, Some(record), &io_),
            Ok(Ending::Quit)
        ));
        assert!(!autosave.path().exists());
    }

    #[test]
    fn only_a_shown_move_after_a_computer_move_waits() {
        let pace = Duration::from_millis(400);
        let stop = Action::Play {
            card: Card::Stop,
            team: 0,
        };
        let t = Duration::from_millis(100);
        assert_eq!(
            pause_before(true, stop, pace, t),
            Duration::from_millis(300)
        );
        assert_eq!(pause_before(false, stop, pace, t), Duration::ZERO);
        assert_eq!(pause_before(true, Action::Draw, pace, t), Duration::ZERO);
        assert_eq!(
            pause_before(true, stop, pace, Duration::from_secs(1)),
            Duration::ZERO
        );
        assert_eq!(pause_before(true, stop, Duration::ZERO, t), Duration::ZERO);
    }
}
