//! Drawing the game with ratatui: the scores, the five dice, the scoring
//! combinations, what happened, the status line and the keys; plus the help
//! page, the quit question and the final standings. Rendering only reads
//! the [`App`].

use crate::app::{App, Controls, Mode, Tone, points};
use cubes_engine::{DieState, Phase};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

/// The rules part of the help page, the same for the full screen and
/// `--plain` (whose commands differ, see [`help`]).
pub const RULES: &str = "\
cubes: score 10,000 points (7,500 in Blitz) with five dice.

A turn starts with a roll of all five dice. After each roll, keep one or
more scoring dice (every die kept must score) and roll the others, or hold
to bank the turn. A roll that scores nothing ends the turn and loses all
its points. When all five dice have scored, you roll all five again.

Scoring: five of a kind face x 300; four of a kind face x 200; three of a
kind face x 100 (face = 10 for a One, 30 for a Joker, else the spots);
straight 1500 (750 if completed with held dice); small straight (four in a
row) 400; a One 100; a Five 50; a Joker 0. Only five of a kind and the
straight may use dice held from earlier rolls.

On board: your first banked turn needs 500 points. Off board: the turn
that crosses the target needs 500 points. Overtime: the winner must lead
second place by 250; until then play goes on.";

/// The keys of the full screen.
const KEYS_HELP: &str = "\
Keys: r or Enter roll / keep the picked dice and roll the rest;
1-5 pick a die; a pick all scoring dice; h hold (bank);
? this help; q quit (asks first).";

/// The commands of `--plain`, one per line.
const LINES_HELP: &str = "\
Commands, one per line:
  r        roll the dice, or keep the picked dice and roll the others
  k 1 3    keep dice 1 and 3 (every die kept must score), roll the others
  a        pick all scoring dice (then r keeps them and rolls the others)
  1 to 5   pick or unpick one die
  h        hold: bank the turn's points and end your turn
  ?        this help
  q        quit (asks first; an unfinished game is recorded as a loss)
The status line shows the scores, the dice (held dice in parentheses), the
turn total, what this roll scores, what you picked and whether you may hold.";

/// The help page for these controls.
pub fn help(controls: Controls) -> String {
    let commands = match controls {
        Controls::Keys => KEYS_HELP,
        Controls::Lines => LINES_HELP,
    };
    format!("{RULES}\n\n{commands}")
}

const KEYS: &str = " r roll  1-5 pick  a all scoring  h hold  ? help  q quit";

fn die_style(state: DieState, selected: bool) -> Style {
    match (state, selected) {
        (_, true) => Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        (DieState::Held, _) => Style::new().fg(Color::DarkGray),
        (DieState::Rolled, _) => Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
        (DieState::Idle, _) => Style::new().fg(Color::DarkGray),
    }
}

/// Draws the whole screen.
pub fn draw(f: &mut Frame, app: &App) {
    let n = app.seats.len() as u16;
    let (min_w, min_h) = (60, 17 + n);
    let area = f.area();
    if area.width < min_w || area.height < min_h {
        // Too small to show the dice and the scores legibly: say so rather
        // than draw a garbled board.
        let text = format!(
            "cubes needs a terminal of at least {min_w} x {min_h}; this one is {} x {}. Please make it bigger (q then y quits).",
            area.width, area.height
        );
        f.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let [title, players, dice, bottom, status, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(n + 2),
        Constraint::Length(7),
        Constraint::Min(4),
        Constraint::Length(2),
        Constraint::Length(1),
    ])
    .areas(f.area());

    let s = app.state.settings();
    let mut t = format!(" cubes: {} game to {} points", s.name, points(s.target));
    if app.state.jokers() {
        t.push_str(" with JOKERS");
    }
    f.render_widget(
        Paragraph::new(t).style(Style::new().add_modifier(Modifier::BOLD)),
        title,
    );

    draw_players(f, app, players);
    draw_dice(f, app, dice);

    let [left, right] =
        Layout::horizontal([Constraint::Length(34), Constraint::Min(20)]).areas(bottom);
    draw_scoring(f, app, left);
    // The newest entries that fit, each wrapped to the box's width.
    let h = right.height.saturating_sub(2) as usize;
    let w = right.width.saturating_sub(2).max(1) as usize;
    let mut used = 0;
    let mut first = app.log.len();
    while first > 0 {
        let need = app.log[first - 1].chars().count().div_ceil(w).max(1);
        if used + need > h {
            break;
        }
        used += need;
        first -= 1;
    }
    let log: Vec<Line> = app.log[first..]
        .iter()
        .map(|l| Line::from(l.as_str()))
        .collect();
    f.render_widget(
        Paragraph::new(log)
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(" What happened ")),
        right,
    );

    let style = match app.message.1 {
        Tone::Info => Style::new().fg(Color::Cyan),
        Tone::Error => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
    };
    f.render_widget(
        Paragraph::new(app.message.0.as_str())
            .style(style)
            .wrap(Wrap { trim: true }),
        status,
    );
    f.render_widget(
        Paragraph::new(KEYS).style(Style::new().fg(Color::DarkGray)),
        keys,
    );

    match app.mode {
        Mode::Help => popup(
            f,
            " Help (any key to go back) ",
            &help(Controls::Keys),
            78,
            24,
        ),
        Mode::ConfirmQuit => popup(
            f,
            " Quit? ",
            "Really leave this game? It is not over: it will be recorded in the \
             score file as an unfinished game, a loss at your current score.\n\n\
             y: quit    any other key: keep playing",
            50,
            8,
        ),
        Mode::Over => {
            let mut standings: Vec<(usize, u32)> = app
                .state
                .players()
                .iter()
                .enumerate()
                .map(|(k, p)| (k, p.score))
                .collect();
            standings.sort_by_key(|&(k, sc)| (std::cmp::Reverse(sc), k));
            let mut text = String::new();
            for (place, (k, sc)) in standings.iter().enumerate() {
                text.push_str(&format!(
                    "{}. {:<20} {:>7}\n",
                    place + 1,
                    app.seats[*k].name,
                    points(*sc)
                ));
            }
            text.push_str(
                "\nThe result is in the score file: see `cubes rank`.\nq or Enter: leave",
            );
            popup(f, " Game over ", &text, 44, n + 7);
        }
        Mode::Play => {}
    }
}

fn popup(f: &mut Frame, title: &str, text: &str, w: u16, h: u16) {
    let area = f.area();
    let w = w.min(area.width);
    let h = h.min(area.height);
    let r = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(text).wrap(Wrap { trim: false }).block(
            Block::bordered()
                .title(title)
                .style(Style::new().fg(Color::White)),
        ),
        r,
    );
}

fn draw_players(f: &mut Frame, app: &App, area: Rect) {
    let current = app.to_act();
    let lines: Vec<Line> = app
        .state
        .players()
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let me = current == Some(k);
            let marker = if me { "> " } else { "  " };
            let mut note = String::new();
            if !p.on_board {
                note.push_str("  not on board");
            }
            if app.seats[k].is_computer() {
                note.push_str("  (computer)");
            }
            let style = if me {
                Style::new().fg(Color::Green).add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            Line::from(vec![
                Span::styled(
                    format!("{marker}{:<20} {:>7}", app.seats[k].name, points(p.score)),
                    style,
                ),
                Span::styled(note, Style::new().fg(Color::DarkGray)),
            ])
        })
        .collect();
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Players ")),
        area,
    );
}

fn draw_dice(f: &mut Frame, app: &App, area: Rect) {
    let turn = app.state.turn();
    let mut rows: [Vec<Span>; 5] = Default::default();
    for i in 0..5 {
        let st = turn.states[i];
        let sel = app.selected.contains(i);
        let style = die_style(st, sel);
        let face = if st == DieState::Idle {
            ' '
        } else {
            turn.dice[i].symbol()
        };
        rows[0].push(Span::styled(" ╭───╮ ", style));
        rows[1].push(Span::styled(format!(" │ {face} │ "), style));
        rows[2].push(Span::styled(" ╰───╯ ", style));
        rows[3].push(Span::styled(format!("   {}   ", i + 1), style));
        let label = match (st, sel) {
            (_, true) => " keep  ",
            (DieState::Held, _) => " held  ",
            _ => "       ",
        };
        rows[4].push(Span::styled(label, style));
    }
    let who = app
        .to_act()
        .map(|s| app.seats[s].name.clone())
        .unwrap_or_default();
    let title = match app.state.phase() {
        Phase::Start => format!(" {who}: roll the dice "),
        Phase::Rolled => format!(" {who}: keep and roll, or hold "),
        Phase::Over => " Dice ".to_string(),
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let [dice_area, info_area] =
        Layout::horizontal([Constraint::Length(36), Constraint::Min(10)]).areas(inner);
    let lines: Vec<Line> = rows.into_iter().map(Line::from).collect();
    f.render_widget(Paragraph::new(lines), dice_area);

    // What a newcomer needs next to the dice: the turn so far, what this
    // roll scores, what the picked dice score, and whether holding is open.
    let mut info: Vec<Line> = Vec::new();
    if app.to_act().is_some() {
        info.push(Line::from(format!("Turn total: {}", points(turn.points))));
    }
    if app.state.phase() == Phase::Rolled {
        if let Some(k) = turn.best_keep() {
            info.push(Line::from(format!("This roll: {}", k.combos)));
        }
        if !app.selected.is_empty() {
            let picked = match turn.score_keep(app.selected) {
                Some(k) => format!("Picked: {}", k.combos),
                None => "Picked dice do not all score".to_string(),
            };
            info.push(Line::styled(picked, Style::new().fg(Color::Yellow)));
        }
        match (app.hold_line(), app.state.can_hold().is_ok()) {
            (Some(l), true) => info.push(Line::from(l)),
            (Some(l), false) => info.push(Line::styled(l, Style::new().fg(Color::DarkGray))),
            (None, _) => {}
        }
    }
    f.render_widget(Paragraph::new(info).wrap(Wrap { trim: true }), info_area);
}

fn draw_scoring(f: &mut Frame, app: &App, area: Rect) {
    let mut lines = vec![
        "Five of a kind   face x 300",
        "Four of a kind   face x 200",
        "Three of a kind  face x 100",
        "Straight   1500 (750 w/ held)",
        "Small straight          400",
        "One 100  Five 50  (face: One=10)",
    ];
    if app.state.jokers() {
        lines.push("Joker 0 (face value 30)");
    }
    let text = Text::from(lines.into_iter().map(Line::from).collect::<Vec<_>>());
    f.render_widget(
        Paragraph::new(text).block(Block::bordered().title(" Scoring ")),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Input, Seat, SeatKind};
    use cubes_ai::Personality;
    use cubes_engine::{JokerRule, Settings};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn app(settings: Settings, seed: u64) -> App {
        let seats = vec![
            Seat {
                name: "ann".into(),
                kind: SeatKind::Human,
            },
            Seat {
                name: "Steady Sam".into(),
                kind: SeatKind::Computer(Box::new(Personality::steady())),
            },
        ];
        App::new(settings, seats, seed).expect("app")
    }

    fn screen(app: &App) -> String {
        let mut t = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
        t.draw(|f| draw(f, app)).expect("draw");
        t.backend().to_string()
    }

    #[test]
    fn start_of_game() {
        let a = app(Settings::standard(), 7);
        let s = screen(&a);
        assert!(s.contains("Press r to roll"));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn a_roll_with_a_die_picked() {
        let mut a = app(Settings::standard(), 7);
        a.update(Input::Key('r'));
        a.update(Input::Key('1'));
        let s = screen(&a);
        assert!(s.contains("keep"));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn refused_hold_shows_the_rule() {
        let mut a = app(Settings::standard(), 7);
        a.update(Input::Key('r'));
        a.update(Input::Key('h'));
        let s = screen(&a);
        assert!(s.contains("not on board"));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn help_page() {
        let mut a = app(Settings::blitz(), 7);
        a.update(Input::Key('?'));
        insta::assert_snapshot!(screen(&a));
    }

    #[test]
    fn quit_question() {
        let mut a = app(Settings::standard(), 7);
        a.update(Input::Key('q'));
        insta::assert_snapshot!(screen(&a));
    }

    #[test]
    fn jokers_game_is_announced_and_scored() {
        let a = app(Settings::standard().with_jokers(JokerRule::Always), 9);
        let s = screen(&a);
        assert!(s.contains("JOKERS"));
        assert!(s.contains("Joker 0 (face value 30)"));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn a_too_small_terminal_says_so() {
        let a = app(Settings::standard(), 7);
        let mut t = Terminal::new(TestBackend::new(50, 15)).expect("terminal");
        t.draw(|f| draw(f, &a)).expect("draw");
        let s = t.backend().to_string();
        assert!(s.contains("at least 60 x 19"), "{s}");
    }

    #[test]
    fn game_over() {
        let seats = vec![
            Seat {
                name: "Bold Bella".into(),
                kind: SeatKind::Computer(Box::new(Personality::bold())),
            },
            Seat {
                name: "Steady Sam".into(),
                kind: SeatKind::Computer(Box::new(Personality::steady())),
            },
        ];
        let mut a = App::new(Settings::blitz(), seats, 5).expect("app");
        for _ in 0..100_000 {
            if a.update(Input::Tick) == crate::app::Effect::GameOver {
                break;
            }
        }
        let s = screen(&a);
        assert!(s.contains("Game over"));
        insta::assert_snapshot!(s);
    }
}
