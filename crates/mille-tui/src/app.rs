//! The terminal event loop: raw mode, the alternate screen and mouse
//! capture; one channel carries keys, mouse, resizes, ticks and the
//! computer's moves (thought out on their own threads); effects are carried
//! out here and their results fed back as events.

use crate::model::{Model, is_logged};
use crate::render;
use crate::update::{self, Effect, Event};
use mille_ai::{Level, bot_action, make_bot, watch_current_hand};
use mille_engine::{Action, GameRecord, State, ToAct};
use mille_store::{Options, ScoreDb};
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;
use std::collections::VecDeque;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The seed of the computer's decision number `n` of a game: every decision
/// is a fresh bot seeded from the game seed and the position in the record,
/// so a restored or undone game goes on exactly as it would have.
pub fn bot_seed(record: &GameRecord) -> u64 {
    record
        .seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(record.actions.len() as u64)
        .rotate_left(17)
}

/// The computer's move in `state` (which `record` reached), made by a bot
/// that has watched the hand so far.
pub fn think(state: &State, record: &GameRecord, level: Level) -> Option<Action> {
    let mut bot = make_bot(level, bot_seed(record));
    if let ToAct::Seat(seat) = state.to_act() {
        // The record is the game's own; if it somehow does not replay, the
        // bot decides from what it watched up to there.
        let _ = watch_current_hand(bot.as_mut(), seat, record);
    }
    // Built-in bots always answer.
    bot_action(bot.as_mut(), state).and_then(Result::ok)
}

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

    /// Carries out a file effect; returns the event reporting its result.
    pub fn file_effect(&self, model: &mut Model, effect: Effect) -> Option<Event> {
        match effect {
            Effect::Save { path, file } => {
                let path = expand_home(path);
                Some(Event::Saved(
                    file.write(&path).map(|()| path).map_err(|e| e.to_string()),
                ))
            }
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

/// Plays in the terminal until the player quits. `pace` is the least time
/// between two computer moves in a row (see [`pause_before`]).
pub fn run(mut model: Model, io_: Io, pace: Duration) -> io::Result<Model> {
    let mut terminal = ratatui::init();
    let _ = execute!(io::stdout(), EnableMouseCapture);
    let result = event_loop(&mut terminal, &mut model, &io_, pace);
    let _ = execute!(io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result.map(|()| model)
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    model: &mut Model,
    io_: &Io,
    pace: Duration,
) -> io::Result<()> {
    let (tx, rx) = mpsc::channel::<Event>();
    let started = Instant::now();
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            loop {
                let ev = match event::read() {
                    Ok(event::Event::Key(k)) => Event::Key(k),
                    Ok(event::Event::Mouse(m)) => {
                        Event::Mouse(m, started.elapsed().as_millis() as u64)
                    }
                    Ok(event::Event::Resize(w, h)) => Event::Resize(w, h),
                    Ok(_) => continue,
                    Err(_) => break,
                };
                if tx.send(ev).is_err() {
                    break;
                }
            }
        });
    }
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            while tx.send(Event::Tick).is_ok() {
                std::thread::sleep(Duration::from_millis(500));
            }
        });
    }
    let size = terminal.size()?;
    model.screen = (size.width, size.height);
    let mut pending: VecDeque<Effect> = update::start(model).into();
    loop {
        while let Some(effect) = pending.pop_front() {
            match effect {
                Effect::Quit => return Ok(()),
                Effect::Bell => {
                    let mut out = io::stdout();
                    let _ = out.write_all(b"\x07");
                    let _ = out.flush();
                }
                Effect::Redraw => terminal.clear()?,
                Effect::Think { generation } => {
                    let state = model.state.clone();
                    let record = model.record.clone();
                    let level = model.level;
                    let after_computer = model.last_logged_is_computer();
                    let tx = tx.clone();
                    std::thread::spawn(move || {
                        let since = Instant::now();
                        if let Some(action) = think(&state, &record, level) {
                            std::thread::sleep(pause_before(
                                after_computer,
                                action,
                                pace,
                                since.elapsed(),
                            ));
                            let _ = tx.send(Event::BotMove { generation, action });
                        }
                    });
                }
                other => {
                    if let Some(ev) = io_.file_effect(model, other) {
                        pending.extend(update::update(model, ev));
                    }
                }
            }
        }
        terminal.draw(|f| render::view(model, f))?;
        let Ok(ev) = rx.recv() else { return Ok(()) };
        pending.extend(update::update(model, ev));
        // Take whatever else is waiting before drawing again.
        while let Ok(ev) = rx.try_recv() {
            pending.extend(update::update(model, ev));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::Card;

    #[test]
    fn only_a_shown_move_after_a_computer_move_waits() {
        let pace = Duration::from_millis(400);
        let stop = Action::Play {
            card: Card::Stop,
            target: 0,
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
