//! The terminal event loop: raw mode, the alternate screen and mouse
//! capture; one channel carries keys, mouse, resizes, ticks and the
//! computer's moves. The loop holds the [`Host`] (the game's table): the
//! model's game effects are carried out with it, and for a computer's turn
//! it goes to a thread of its own (a search may think for a second) and
//! comes back with the move, game effects asked meanwhile waiting for it.

use crate::host::Host;
use crate::model::{Model, is_logged};
use crate::render;
use crate::update::{self, Effect, Event};
use mille_engine::Action;
use mille_store::{Options, SaveFile, ScoreDb};
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;
use std::collections::VecDeque;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

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

/// What the event loop hears: the screen's events, or the host back from
/// a computer's turn with what it did.
enum Message {
    Screen(Event),
    Back(Box<Host>, Option<Event>),
}

/// Plays in the terminal until the player quits. `pace` is the least time
/// between two computer moves in a row (see [`pause_before`]).
pub fn run(mut model: Model, host: Host, io_: Io, pace: Duration) -> io::Result<Model> {
    let mut terminal = ratatui::init();
    let _ = execute!(io::stdout(), EnableMouseCapture);
    let result = event_loop(&mut terminal, &mut model, host, &io_, pace);
    let _ = execute!(io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result.map(|()| model)
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    model: &mut Model,
    host: Host,
    io_: &Io,
    pace: Duration,
) -> io::Result<()> {
    let (tx, rx) = mpsc::channel::<Message>();
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
                if tx.send(Message::Screen(ev)).is_err() {
                    break;
                }
            }
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
    // The host, unless it is away for a computer's turn; then the effects
    // that need it wait, in order.
    let mut host = Some(Box::new(host));
    let mut waiting: VecDeque<Effect> = VecDeque::new();
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
                Effect::Think { generation } if generation == model.generation => {
                    let Some(mut h) = host.take() else {
                        waiting.push_back(effect);
                        continue;
                    };
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
                other => match host.as_deref_mut() {
                    Some(h) => {
                        if let Some(ev) = io_.carry_out(model, h, other) {
                            pending.extend(update::update(model, ev));
                        }
                    }
                    None => waiting.push_back(other),
                },
            }
        }
        terminal.draw(|f| render::draw(model, f))?;
        let Ok(message) = rx.recv() else {
            return Ok(());
        };
        let mut take = |message| match message {
            Message::Screen(ev) => update::update(model, ev),
            Message::Back(h, ev) => {
                host = Some(h);
                // The computer's move first: the effects waiting were asked
                // before it was known, and come next.
                let fx = ev.map(|ev| update::update(model, ev)).unwrap_or_default();
                waiting.drain(..).chain(fx).collect()
            }
        };
        pending.extend(take(message));
        // Take whatever else is waiting before drawing again.
        while let Ok(message) = rx.try_recv() {
            pending.extend(take(message));
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
