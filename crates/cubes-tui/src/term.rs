//! The full-screen terminal loop: crossterm events in, ratatui frames out.
//! Computer players move on ticks, `delay` milliseconds apart, so people can
//! follow them. At a table server the same loop also passes the session's
//! notes to the app and sends the moves it asks for ([`run_at`]).
//!
//! The loop never waits inside crossterm: once the terminal has closed,
//! crossterm's reader gets end-of-file and reads again at once, forever,
//! without returning (a core at full speed, and a game that never ends).
//! Events are read on their own thread instead; the loop waits on them at
//! most a tenth of a second at a time and in between looks at the signal flag
//! and at whether the terminal is still there ([`Ttys`]).

use crate::TuiError;
use crate::app::{App, Effect, Input, Mode};
use crate::signals::{HANGUP, INTERRUPT, Stop, Ttys};
use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};
use table_client::Session;

/// How often the loop looks at the signal flag and the terminal while
/// nothing happens (it draws only when something changed, not at every
/// look).
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// How often the loop looks for the table server's news: often enough that
/// another player's dice appear at once.
const SERVER_CHECK: Duration = Duration::from_millis(20);

/// Runs the game until the player leaves, a signal arrives or the terminal
/// closes (then [`Stop::signal`] says so); returns whether it was left
/// unfinished.
pub fn run(app: &mut App, delay_ms: u64, stop: &Stop) -> Result<bool, TuiError> {
    run_with(app, Duration::from_millis(delay_ms), None, stop)
}

/// [`run`] for a game at a table server ([`App::remote`]): the session's
/// notes go to [`App::note`] and the moves the app asks for
/// ([`Effect::Play`]) go to [`Session::play`].
pub fn run_at(app: &mut App, session: &Session, stop: &Stop) -> Result<bool, TuiError> {
    run_with(app, Duration::ZERO, Some(session), stop)
}

fn run_with(
    app: &mut App,
    delay: Duration,
    server: Option<&Session>,
    stop: &Stop,
) -> Result<bool, TuiError> {
    let ttys = Ttys::now();
    let mut terminal = ratatui::try_init().map_err(TuiError::Setup)?;
    let events = read_events();
    let result = event_loop(&mut terminal, app, &events, delay, server, stop, ttys);
    if terminal.show_cursor().is_err() {
        // The terminal is gone. Dropping ratatui's terminal would try to
        // show the cursor again and print the failure to standard error,
        // and printing to a closed terminal panics: let it go unnoticed.
        std::mem::forget(terminal);
    }
    restore();
    match result {
        // After a hangup the terminal is gone and drawing or reading fails;
        // the hangup, not that failure, is why the game ends.
        Err(_) if stop.signal().is_some() => Ok(true),
        Err(_) if ttys.closed() => {
            stop.end_as(HANGUP);
            Ok(true)
        }
        other => other,
    }
}

/// Leaves raw mode and the alternate screen. Unlike `ratatui::restore`, it
/// tries both steps whatever the first did and prints nothing: after a
/// hangup there is no terminal to print to (and printing would panic).
fn restore() {
    let _ = crossterm::terminal::disable_raw_mode();
    let _ = crossterm::execute!(
        std::io::stdout(),
        crossterm::terminal::LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

/// Reads terminal events on a thread of their own, until reading fails or
/// nobody listens. (After the terminal closes, the thread may spin inside
/// crossterm until the process ends, which the loop sees to at once.)
fn read_events() -> Receiver<std::io::Result<Event>> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        loop {
            let got = event::read();
            let failed = got.is_err();
            if tx.send(got).is_err() || failed {
                break;
            }
        }
    });
    rx
}

/// Carries out an effect that is not leaving: a move for the server.
fn carry_out(app: &mut App, effect: Effect, server: Option<&Session>) {
    if let (Effect::Play { table, action }, Some(session)) = (effect, server) {
        match serde_json::to_value(action) {
            Ok(action) => app.sent(session.play(table, action)),
            // The engine's actions always have a JSON form; should one not,
            // the player is told rather than left waiting.
            Err(e) => app.say(
                format!("This move cannot be sent: {e}."),
                crate::app::Tone::Error,
            ),
        }
    }
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    events: &Receiver<std::io::Result<Event>>,
    delay: Duration,
    server: Option<&Session>,
    stop: &Stop,
    ttys: Ttys,
) -> Result<bool, TuiError> {
    // When the next computer move may happen. After a person's turn ends
    // the pause is longer, so they can read how it ended before the
    // computer's dice replace theirs.
    let mut next_move = Instant::now() + delay;
    // Whether the screen may be out of date. Nothing on it changes with
    // time alone, so the loop draws only after an input, a tick or a
    // resize; the waits in between only look at the flag and the terminal.
    let mut redraw = true;
    let mut drawn = Instant::now();
    loop {
        if stop.signal().is_some() {
            return Ok(true);
        }
        if ttys.closed() {
            stop.end_as(HANGUP);
            return Ok(true);
        }
        if let Some(session) = server {
            while let Some(note) = session.try_recv() {
                redraw = true;
                let effect = app.note(note);
                carry_out(app, effect, server);
            }
        }
        // A countdown on the screen is drawn anew each second.
        if app.counting() && drawn.elapsed() >= Duration::from_secs(1) {
            redraw = true;
        }
        if redraw {
            if let Some(session) = server {
                app.set_away_seconds(session.limits().map(|l| l.away_seconds));
            }
            app.set_clock(Instant::now());
            drawn = Instant::now();
            let frame = terminal.draw(|f| crate::ui::draw(f, app))?;
            app.too_small =
                !crate::ui::fits(frame.area.width, frame.area.height, app.obs.seat_info.len());
            redraw = false;
        }
        let computer_turn = app.computer_to_act() && app.mode == Mode::Play && !app.too_small;
        let wait = if computer_turn {
            next_move.saturating_duration_since(Instant::now())
        } else if server.is_some() {
            SERVER_CHECK
        } else {
            SIGNAL_CHECK
        }
        .min(SIGNAL_CHECK);
        let input = match events.recv_timeout(wait) {
            Ok(Ok(Event::Key(k))) if k.kind == KeyEventKind::Press => match k.code {
                KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                    // Raw mode makes Ctrl-C a key: it leaves at once, as
                    // the signal does in --plain.
                    stop.end_as(INTERRUPT);
                    return Ok(true);
                }
                KeyCode::Char(c) => Some(Input::Key(c)),
                KeyCode::Enter => Some(Input::Enter),
                KeyCode::Esc => Some(Input::Esc),
                _ => None,
            },
            Ok(Ok(Event::Resize(..))) => {
                // The next draw takes the new size and tells whether the
                // board still fits.
                redraw = true;
                None
            }
            Ok(Ok(_)) => None,
            Ok(Err(e)) => return Err(e.into()),
            // The reader stops only after reporting an error.
            Err(RecvTimeoutError::Disconnected) => {
                stop.end_as(HANGUP);
                return Ok(true);
            }
            Err(RecvTimeoutError::Timeout) => {
                (computer_turn && Instant::now() >= next_move).then_some(Input::Tick)
            }
        };
        if let Some(input) = input {
            redraw = true;
            let human_before = app.human_to_act();
            let effect = app.update(input);
            if input == Input::Tick {
                next_move = Instant::now() + delay;
            } else if human_before && app.to_act().is_some() && !app.human_to_act() {
                next_move = Instant::now() + delay + Duration::from_millis(1500);
            }
            match effect {
                Effect::Quit { unfinished } => return Ok(unfinished),
                Effect::GameOver | Effect::None => {}
                Effect::Play { .. } => carry_out(app, effect, server),
            }
        }
    }
}
