//! The full-screen terminal loop: crossterm events in, ratatui frames out.
//! Computer players move on ticks, `delay` milliseconds apart, so people can
//! follow them.

use crate::TuiError;
use crate::app::{App, Effect, Input, Mode};
use crate::signals::Stop;
use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use std::time::{Duration, Instant};

/// How often the loop looks at the signal flag while nothing happens (it
/// draws only when something changed, not at every look).
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// Runs the game until the player leaves or a signal arrives; returns
/// whether it was left unfinished.
pub fn run(app: &mut App, delay_ms: u64, stop: &Stop) -> Result<bool, TuiError> {
    let mut terminal = ratatui::try_init().map_err(TuiError::Setup)?;
    let result = event_loop(&mut terminal, app, Duration::from_millis(delay_ms), stop);
    restore();
    match result {
        // After a hangup the terminal is gone and drawing or reading fails;
        // the signal, not that failure, is why the game ends.
        Err(_) if stop.signal().is_some() => Ok(true),
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

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    delay: Duration,
    stop: &Stop,
) -> Result<bool, TuiError> {
    // When the next computer move may happen. After a person's turn ends
    // the pause is longer, so they can read how it ended before the
    // computer's dice replace theirs.
    let mut next_move = Instant::now() + delay;
    // Whether the screen may be out of date. Nothing on it changes with
    // time alone, so the loop draws only after an input, a tick or a
    // resize; the polls in between only look at the signal flag.
    let mut redraw = true;
    loop {
        if stop.signal().is_some() {
            return Ok(true);
        }
        if redraw {
            let frame = terminal.draw(|f| crate::ui::draw(f, app))?;
            app.too_small =
                !crate::ui::fits(frame.area.width, frame.area.height, app.obs.players.len());
            redraw = false;
        }
        let computer_turn = app.computer_to_act() && app.mode == Mode::Play && !app.too_small;
        let wait = if computer_turn {
            next_move.saturating_duration_since(Instant::now())
        } else {
            SIGNAL_CHECK
        }
        .min(SIGNAL_CHECK);
        let input = if event::poll(wait)? {
            match event::read()? {
                Event::Key(k) if k.kind == KeyEventKind::Press => match k.code {
                    KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                        Some(Input::Key('q'))
                    }
                    KeyCode::Char(c) => Some(Input::Key(c)),
                    KeyCode::Enter => Some(Input::Enter),
                    KeyCode::Esc => Some(Input::Esc),
                    _ => None,
                },
                Event::Resize(..) => {
                    // The next draw takes the new size and tells whether
                    // the board still fits.
                    redraw = true;
                    None
                }
                _ => None,
            }
        } else if computer_turn && Instant::now() >= next_move {
            Some(Input::Tick)
        } else {
            None
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
            }
        }
    }
}
