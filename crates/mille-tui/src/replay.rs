//! Playing a recorded game back (`mille replay`): every step of a
//! [`GameRecord`] as one viewer saw it at the table (a spectator, or one
//! seat), drawn with the game's own board ([`crate::render::draw`]) or as
//! text lines ([`Replay::plain_text`]), with the move in words. Stepping is
//! pure ([`Replay::go`]: a key and a step in, the step to show out); the
//! full-screen loop is [`run`].
//!
//! A finished game hides nothing any more: [`Replay::new`] with `all`
//! shows every seat's hand at every step.

use crate::model::{Mode, Model, ServerTable, Setup, Window, describe};
use crate::signals::{INTERRUPT, Stop};
use game_table::{Game, SeatInfo, Viewer};
use mille_ai::Level;
use mille_engine::{Card, Event, GameRecord, Mille, ReplayError, State};
use mille_store::Options;
use ratatui::Frame;
use ratatui::crossterm::event::{self, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use ratatui::widgets::{Clear, Paragraph};
use std::io;
use std::time::Duration;

/// One step of the game as the viewer saw it: the board after a move (or
/// after the deal, for the first step).
#[derive(Clone, Debug)]
pub struct Step {
    /// The board: the viewer's observation and what it told.
    pub model: Model,
    /// The move in words ("ann played 75 miles").
    pub text: String,
    /// The position of the move in the record (`None`: the first deal).
    pub action: Option<usize>,
    /// Which deal this step belongs to, counted over the whole record
    /// from 0 (a record may hold several games).
    pub deal: usize,
    /// Every seat's name and hand, when the replay shows them all.
    pub hands: Vec<(String, Vec<Card>)>,
}

/// A recorded game, step by step, for one viewer.
#[derive(Clone, Debug)]
pub struct Replay {
    /// What is played back, for the status line ("game 12", a file name).
    pub title: String,
    /// The steps, the first deal first.
    pub steps: Vec<Step>,
}

/// Where a key takes the replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Go {
    /// Show this step.
    To(usize),
    /// Leave.
    Quit,
    /// Nothing to do.
    Stay,
}

/// The keys, as the status line and `--help` say them.
pub const KEYS: &str = "→/space/n next, ←/p back, h/H next/previous hand, Home/End, q quits";

impl Replay {
    /// The steps of `record` as `viewer` saw them, the seats named by
    /// `seats` (one per seat of the game; missing ones are "Seat N").
    /// The moves at the positions in `stand_in` were a computer's, made
    /// for an absent person: their steps say so. With `all`, every
    /// seat's hand is kept at every step.
    pub fn new(
        record: &GameRecord,
        seats: &[SeatInfo],
        viewer: Viewer,
        all: bool,
        stand_in: &[usize],
        title: impl Into<String>,
    ) -> Result<Replay, ReplayError> {
        let title = title.into();
        let mut state = State::new(record.config, record.seed)?;
        let count = usize::from(state.rules().seats);
        let seats: Vec<SeatInfo> = (0..count)
            .map(|i| {
                seats
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| SeatInfo::human(format!("Seat {}", i + 1)))
            })
            .collect();
        let setup = Setup {
            level: Level::Classic,
            player: String::new(),
            save_path: None,
            options: Options::default(),
            ask_name: false,
        };
        let first = state.observe(viewer, &seats, Vec::new());
        // The seats' names are the table's, as at a server; the table's
        // number is of no use here.
        let mut model = Model::at_server(first, setup, ServerTable::new(0, title.clone()))?;
        let mut steps = vec![Step {
            text: format!("Hand 1 is dealt; {} starts.", first_player(&model)),
            hands: hands_of(&state, &seats, all),
            model: shown(&model),
            action: None,
            deal: 0,
        }];
        let mut deal = 0;
        for (index, &action) in record.actions.iter().enumerate() {
            let mut told = Vec::new();
            <Mille as Game>::apply(&mut state, action, &mut told).map_err(|reason| {
                ReplayError::Illegal {
                    index,
                    action,
                    reason,
                }
            })?;
            let events: Vec<Event> = told
                .into_iter()
                .filter(|(audience, _)| audience.includes(viewer))
                .map(|(_, e)| e)
                .collect();
            if events.is_empty() {
                // A move the viewer was not shown (a coup fourré let
                // pass, seen only by its seat): no step of its own.
                continue;
            }
            if events.iter().any(|e| matches!(e, Event::Dealt { .. })) {
                deal += 1;
            }
            model.observe(state.observe(viewer, &seats, events.clone()), false);
            model.sync_mode();
            let mut text = step_text(&model, &events);
            if stand_in.contains(&index) {
                text.push_str(" (a computer's move, for its absent player)");
            }
            steps.push(Step {
                model: shown(&model),
                text,
                action: Some(index),
                deal,
                hands: hands_of(&state, &seats, all),
            });
        }
        Ok(Replay { title, steps })
    }

    /// The number of steps (the first deal and each move seen).
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether there is no step (never: the first deal is one).
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Where `key` goes from step `at`.
    pub fn go(&self, at: usize, key: KeyEvent) -> Go {
        let last = self.steps.len().saturating_sub(1);
        let to = |n: usize| {
            if n == at { Go::Stay } else { Go::To(n) }
        };
        if key.modifiers.contains(KeyModifiers::CONTROL) {
            return match key.code {
                KeyCode::Char('c') => Go::Quit,
                _ => Go::Stay,
            };
        }
        match key.code {
            KeyCode::Right | KeyCode::Char(' ' | 'n' | 'l') | KeyCode::Enter => {
                to((at + 1).min(last))
            }
            KeyCode::Left | KeyCode::Char('p' | 'b') | KeyCode::Backspace => {
                to(at.saturating_sub(1))
            }
            KeyCode::Home | KeyCode::Char('g') => to(0),
            KeyCode::End | KeyCode::Char('G') => to(last),
            KeyCode::Char('h') | KeyCode::PageDown => to(self.next_deal(at)),
            KeyCode::Char('H') | KeyCode::PageUp => to(self.previous_deal(at)),
            KeyCode::Char('q' | 'Q') | KeyCode::Esc => Go::Quit,
            _ => Go::Stay,
        }
    }

    /// The first step of the next deal, else the last step.
    fn next_deal(&self, at: usize) -> usize {
        let deal = self.steps.get(at).map_or(0, |s| s.deal);
        self.steps
            .iter()
            .position(|s| s.deal > deal)
            .unwrap_or(self.steps.len().saturating_sub(1))
    }

    /// The first step of this deal, or of the one before when already
    /// there.
    fn previous_deal(&self, at: usize) -> usize {
        let deal = self.steps.get(at).map_or(0, |s| s.deal);
        let start = |d: usize| self.steps.iter().position(|s| s.deal == d).unwrap_or(0);
        let here = start(deal);
        if here < at || deal == 0 {
            here
        } else {
            start(deal - 1)
        }
    }

    /// The line that says where the replay is: "Move 12 of 345, hand 2:
    /// ann played 75 miles."
    pub fn headline(&self, at: usize) -> String {
        let Some(step) = self.steps.get(at) else {
            return String::new();
        };
        let moves = self.steps.len().saturating_sub(1);
        let hand = step.model.obs.hand_number + 1;
        match step.action {
            None => format!("Start, hand {hand}: {}", step.text),
            Some(_) => format!("Move {at} of {moves}, hand {hand}: {}", step.text),
        }
    }

    /// The whole game as text: each step's headline and board, for
    /// scripts and screen readers.
    pub fn plain_text(&self) -> String {
        let mut out = String::new();
        if let Some(first) = self.steps.first() {
            let m = &first.model;
            let names: Vec<String> = (0..m.rules.seats).map(|s| m.seat_name(s)).collect();
            out.push_str(&format!(
                "Replay of {}: {} rules, {} players ({}); {} moves.\n",
                self.title,
                m.rules.config.rules.id(),
                m.rules.seats,
                names.join(", "),
                self.steps.len().saturating_sub(1)
            ));
        }
        for (at, step) in self.steps.iter().enumerate() {
            out.push('\n');
            out.push_str(&self.headline(at));
            out.push('\n');
            for line in crate::plain::board_text(&step.model).lines() {
                // A spectator has no hand: the board's "Your hand" line
                // would only say it is empty.
                if line.starts_with("Your hand:") && step.model.watching() {
                    continue;
                }
                out.push_str(line);
                out.push('\n');
            }
            for (name, hand) in &step.hands {
                out.push_str(&format!("{name}'s hand: {}.\n", hand_words(hand)));
            }
        }
        if let Some(last) = self.steps.last() {
            out.push('\n');
            out.push_str(&ending(&last.model));
            out.push('\n');
        }
        out
    }
}

/// The model as a step shows it: the question of a game being played
/// has no place in a replay.
fn shown(model: &Model) -> Model {
    let mut m = model.clone();
    m.message = None;
    // The score window in full: its other face lists the commands of a
    // game being played, which do nothing here.
    m.window = Window::Scores;
    if m.mode != Mode::Another {
        m.mode = Mode::Normal;
    }
    m
}

/// Who plays first in the model's hand.
fn first_player(model: &Model) -> String {
    match model.obs.status.seat() {
        Some(s) => model.seat_name(s),
        None => "nobody".into(),
    }
}

/// Every seat's name and hand, when they are all shown.
fn hands_of(state: &State, seats: &[SeatInfo], all: bool) -> Vec<(String, Vec<Card>)> {
    if !all {
        return Vec::new();
    }
    let rules = state.rules();
    rules
        .seats_iter()
        .map(|s| {
            let name = seats
                .get(usize::from(s.number()))
                .map_or_else(|| format!("Seat {}", s.number() + 1), |i| i.name.clone());
            (name, state.hand(s).to_vec())
        })
        .collect()
}

/// A hand in words: "25, 75, Stop" or "no card".
fn hand_words(hand: &[Card]) -> String {
    if hand.is_empty() {
        return "no card".into();
    }
    hand.iter()
        .map(|c| c.name().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a step's events tell, in the words of the game's log.
fn step_text(model: &Model, events: &[Event]) -> String {
    let mut told = Vec::new();
    // A sentence that starts with a name keeps the name as it is written;
    // one that starts with the game's own words starts with a capital.
    let mut capital = false;
    for e in events {
        let line = match e {
            Event::Drew { seat, card } => Some(match card {
                Some(c) => format!("{} drew {c}", model.seat_name(*seat)),
                None => format!("{} drew a card", model.seat_name(*seat)),
            }),
            Event::DeclinedCoupFourre { seat } => {
                Some(format!("{} let a coup fourré pass", model.seat_name(*seat)))
            }
            Event::Dealt { hand, first } => Some(format!(
                "hand {} is dealt; {} starts",
                hand + 1,
                model.seat_name(*first)
            )),
            Event::NewGame => Some("a new game begins".into()),
            Event::TripCompleted { team } => {
                Some(format!("{} completed the trip", model.team_name(*team)))
            }
            Event::HandOver { totals, .. } => {
                let scores: Vec<String> = totals
                    .iter()
                    .enumerate()
                    .map(|(t, total)| {
                        let t = u8::try_from(t).unwrap_or(u8::MAX);
                        format!("{} {total}", model.team_name(t))
                    })
                    .collect();
                Some(format!("the hand is over ({})", scores.join(", ")))
            }
            Event::GameOver { winners } => Some(winners_text(model, winners)),
            other => describe(model, other),
        };
        if let Some(l) = line {
            if told.is_empty() {
                capital = matches!(
                    e,
                    Event::Dealt { .. }
                        | Event::NewGame
                        | Event::HandOver { .. }
                        | Event::GameOver { .. }
                );
            }
            told.push(l);
        }
    }
    let mut text = told.join("; ");
    if capital && let Some(c) = text.get(..1) {
        text = c.to_uppercase() + &text[1..];
    }
    if !text.is_empty() {
        text.push('.');
    }
    text
}

/// Who won, in words.
fn winners_text(model: &Model, winners: &[u8]) -> String {
    match winners {
        [one] => format!("{} won the game", model.team_name(*one)),
        [] => "the game is over".into(),
        many => {
            let names: Vec<String> = many.iter().map(|&t| model.team_name(t)).collect();
            format!("a tie between {}", names.join(" and "))
        }
    }
}

/// How the record ends: the winner, or that the game was not finished.
fn ending(model: &Model) -> String {
    let totals: Vec<String> = (0..model.teams())
        .map(|t| format!("{} {}", model.team_name(t), model.overall(t)))
        .collect();
    if model.game_over() {
        let w = winners_text(model, &model.winners);
        format!("Game over: {w} ({}).", totals.join(", "))
    } else {
        format!(
            "The record ends before the game does: {}.",
            totals.join(", ")
        )
    }
}

/// The first of `candidates` that fits `width` columns, else the last.
fn fit(candidates: Vec<String>, width: u16) -> String {
    let n = candidates.len();
    candidates
        .into_iter()
        .enumerate()
        .find(|(i, c)| c.chars().count() <= usize::from(width) || i + 1 == n)
        .map(|(_, c)| c)
        .unwrap_or_default()
}

/// Draws step `at`: the game's board, then the replay's own last three
/// lines where the game has its prompt, status and message lines (the
/// board leaves them there when no message is shown, which a step never
/// has).
pub fn draw(replay: &Replay, at: usize, f: &mut Frame) {
    let Some(step) = replay.steps.get(at) else {
        return;
    };
    let mut model = step.model.clone();
    if !step.hands.is_empty() {
        // Every hand where the log of moves goes: the headline tells
        // the move.
        model.log.lines = hand_lines(&step.hands, f.area().width);
    }
    crate::render::draw(&model, f);
    let area = f.area();
    if area.width < crate::render::MIN_W || area.height < crate::render::MIN_H {
        return;
    }
    let row = |i: u16| Rect::new(0, area.height - 3 + i, area.width, 1);
    for i in 0..3 {
        f.render_widget(Clear, row(i));
    }
    f.render_widget(
        Paragraph::new(Span::styled(
            replay.headline(at),
            Style::default().add_modifier(Modifier::BOLD),
        )),
        row(0),
    );
    let moves = replay.steps.len().saturating_sub(1);
    let status = fit(
        vec![
            format!(
                " {} | move {at}/{moves} | → next ← back h/H hand Home/End q quit",
                replay.title
            ),
            format!(" Replay | move {at}/{moves} | → next ← back h/H hand Home/End q quit"),
            format!(" {at}/{moves} | → ← h H Home End q"),
        ],
        area.width,
    );
    f.render_widget(
        Paragraph::new(Span::styled(
            format!("{status:<w$}", w = usize::from(area.width)),
            Style::default().add_modifier(Modifier::REVERSED),
        )),
        row(1),
    );
    let last = if at == moves {
        ending(&step.model)
    } else {
        String::new()
    };
    f.render_widget(Paragraph::new(last), row(2));
}

/// Every seat's hand as lines of the log area: one a seat, two a line
/// when there are more than three seats (six do not fit otherwise).
fn hand_lines(hands: &[(String, Vec<Card>)], width: u16) -> Vec<String> {
    let one: Vec<String> = hands
        .iter()
        .map(|(name, hand)| format!("{name}: {}", hand_words(hand)))
        .collect();
    if one.len() <= 3 {
        return one;
    }
    let half = usize::from(width / 2).saturating_sub(1);
    one.chunks(2)
        .map(|pair| {
            let cut = |s: &str| s.chars().take(half).collect::<String>();
            match pair {
                [a, b] => format!("{:<half$} {}", cut(a), cut(b)),
                [a] => cut(a),
                _ => String::new(),
            }
        })
        .collect()
}

/// Shows the replay full screen from its first step until q (or Esc,
/// Ctrl-C, a signal, or the terminal going away). `Ok(Some(signal))`
/// when a signal ended it.
pub fn run(replay: &Replay, stop: &Stop) -> io::Result<Option<i32>> {
    let mut terminal = ratatui::init();
    let result = replay_loop(&mut terminal, replay, stop);
    ratatui::restore();
    result
}

fn replay_loop(
    terminal: &mut ratatui::DefaultTerminal,
    replay: &Replay,
    stop: &Stop,
) -> io::Result<Option<i32>> {
    let mut at = 0;
    terminal.draw(|f| draw(replay, at, f))?;
    loop {
        if let Some(sig) = stop.signal() {
            return Ok(Some(sig));
        }
        if !event::poll(Duration::from_millis(100))? {
            continue;
        }
        match event::read()? {
            event::Event::Key(k) if k.kind != KeyEventKind::Release => match replay.go(at, k) {
                Go::To(n) => at = n,
                Go::Quit if k.modifiers.contains(KeyModifiers::CONTROL) => {
                    return Ok(Some(INTERRUPT));
                }
                Go::Quit => return Ok(None),
                Go::Stay => continue,
            },
            event::Event::Resize(..) => {}
            _ => continue,
        }
        terminal.draw(|f| draw(replay, at, f))?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::{ActionList, GameConfig};

    /// A record of a whole game played by always taking the first legal
    /// move (a deal when the hand is over).
    fn record(players: u8, rules: mille_engine::RulesetId) -> GameRecord {
        let config = GameConfig {
            rules,
            players,
            stacking: false,
        };
        let mut record = GameRecord::new(config, 7);
        let mut state = State::new(config, 7).expect("config");
        let mut list = ActionList::default();
        while state.to_act() != mille_engine::ToAct::GameOver && record.actions.len() < 20_000 {
            state.legal_actions(&mut list);
            let a = *list.first().expect("a legal action");
            state.apply(a).expect("legal");
            record.actions.push(a);
        }
        record
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn keys_step_through_moves_and_hands() {
        let r = record(2, mille_engine::RulesetId::Bsd);
        let seats = [SeatInfo::human("ann"), SeatInfo::human("bob")];
        let replay = Replay::new(&r, &seats, Viewer::Spectator, false, &[], "t").expect("replays");
        // Every move is seen by a spectator but a coup fourré let pass.
        assert!(replay.len() > 100);
        assert_eq!(replay.go(0, key(KeyCode::Right)), Go::To(1));
        assert_eq!(replay.go(0, key(KeyCode::Char(' '))), Go::To(1));
        assert_eq!(replay.go(5, key(KeyCode::Left)), Go::To(4));
        assert_eq!(replay.go(0, key(KeyCode::Left)), Go::Stay);
        let last = replay.len() - 1;
        assert_eq!(replay.go(0, key(KeyCode::End)), Go::To(last));
        assert_eq!(replay.go(last, key(KeyCode::Right)), Go::Stay);
        assert_eq!(replay.go(last, key(KeyCode::Home)), Go::To(0));
        assert_eq!(replay.go(3, key(KeyCode::Char('q'))), Go::Quit);
        // h: the first step of hand 2, whose board says hand 2.
        let Go::To(second) = replay.go(0, key(KeyCode::Char('h'))) else {
            panic!("no next hand");
        };
        assert_eq!(replay.steps[second].model.obs.hand_number, 1);
        assert_eq!(replay.steps[second - 1].model.obs.hand_number, 0);
        assert!(
            replay.steps[second].text.starts_with("Hand 2 is dealt"),
            "{}",
            replay.steps[second].text
        );
        // H: back to the start of this hand, then to the one before.
        assert_eq!(
            replay.go(second + 3, key(KeyCode::Char('H'))),
            Go::To(second)
        );
        assert_eq!(replay.go(second, key(KeyCode::Char('H'))), Go::To(0));
        // The last step tells the winner.
        assert!(
            replay.steps[last].text.contains("won the game"),
            "{}",
            replay.steps[last].text
        );
    }

    #[test]
    fn the_plain_text_tells_every_move_with_the_board() {
        let r = record(4, mille_engine::RulesetId::Classic);
        let seats: Vec<SeatInfo> = ["ann", "bob", "cid", "dan"]
            .iter()
            .map(|n| SeatInfo::human(*n))
            .collect();
        let replay =
            Replay::new(&r, &seats, Viewer::Spectator, true, &[3], "g.json").expect("replays");
        let text = replay.plain_text();
        assert!(
            text.starts_with("Replay of g.json: classic rules, 4 players (ann, bob, cid, dan);"),
            "{}",
            &text[..200]
        );
        assert!(
            text.contains("Start, hand 1: Hand 1 is dealt; ann starts."),
            "{}",
            &text[..600]
        );
        assert!(text.contains("Move 1 of "), "{}", &text[..600]);
        assert!(text.contains("(a computer's move, for its absent player)"));
        assert!(text.contains("ann's hand: "));
        assert!(!text.contains("Your hand"));
        assert!(text.contains(": mileage "), "the board is there");
        assert!(text.trim_end().ends_with('.'));
        assert!(text.contains("won the game") || text.contains("a tie between"));
    }

    #[test]
    fn a_seat_sees_its_own_draws_and_a_spectator_does_not() {
        let r = record(2, mille_engine::RulesetId::Bsd);
        let seats = [SeatInfo::human("ann"), SeatInfo::human("bob")];
        let spectator =
            Replay::new(&r, &seats, Viewer::Spectator, false, &[], "t").expect("replays");
        let seat = Replay::new(&r, &seats, Viewer::Seat(0), false, &[], "t").expect("replays");
        let first_draw = |r: &Replay| {
            r.steps
                .iter()
                .find(|s| s.text.contains(" drew "))
                .map(|s| s.text.clone())
                .unwrap_or_default()
        };
        assert_eq!(first_draw(&spectator), "ann drew a card.");
        let own = first_draw(&seat);
        assert!(
            own.starts_with("You drew ") && !own.contains("a card"),
            "{own}"
        );
        assert!(seat.steps[0].model.slots().iter().any(Option::is_some));
    }
}
