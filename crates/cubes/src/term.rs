//! The full-screen terminal loop: crossterm events in, ratatui frames out.
//! Computer players move on ticks, `delay` milliseconds apart, so people can
//! follow them.

use crate::app::{App, Effect, Input};
use anyhow::Result;
use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use std::time::{Duration, Instant};

/// Runs the game until the player leaves; returns whether it was left
/// unfinished.
pub fn run(app: &mut App, delay_ms: u64) -> Result<bool> {
    let mut terminal = ratatui::try_init()?;
    let result = event_loop(&mut terminal, app, Duration::from_millis(delay_ms));
    ratatui::restore();
    result
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    delay: Duration,
) -> Result<bool> {
    let mut last_move = Instant::now();
    loop {
        terminal.draw(|f| crate::ui::draw(f, app))?;
        let computer_turn =
            app.to_act().is_some() && !app.human_to_act() && app.mode == crate::app::Mode::Play;
        let wait = if computer_turn {
            delay.saturating_sub(last_move.elapsed())
        } else {
            Duration::from_millis(500)
        };
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
                _ => None,
            }
        } else if computer_turn {
            last_move = Instant::now();
            Some(Input::Tick)
        } else {
            None
        };
        if let Some(input) = input {
            match app.update(input) {
                Effect::Quit { unfinished } => return Ok(unfinished),
                Effect::GameOver | Effect::None => {}
            }
        }
    }
}
