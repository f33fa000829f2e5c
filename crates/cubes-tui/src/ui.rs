//! Drawing the game with ratatui: the scores, the five dice, the scoring
//! combinations, what happened, the status line and the keys; plus the help
//! page, the quit question and the final standings. Rendering only reads
//! the [`App`]: the observation it holds ([`App::obs`]), never the engine's
//! full state.

use crate::app::{App, Controls, Mode, Tone, points};
use cubes_engine::{Combo, DieState, Face, Phase, Settings};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use table_client::Link;
use table_client::protocol::SeatKindSummary;

/// The numbers of the rules that the help and the Scoring box quote, read
/// from the engine so the text says what the engine counts.
struct Numbers {
    /// Five, four and three of a kind: face value times these.
    five_kind: u32,
    four_kind: u32,
    three_kind: u32,
    straight: u32,
    held_straight: u32,
    small_straight: u32,
    one: u32,
    five: u32,
    joker: u32,
    /// Face values of a One and of a Joker.
    one_face: u32,
    joker_face: u32,
    /// The Standard game's thresholds (the Blitz game's are the same).
    standard: Settings,
    blitz: Settings,
}

impl Numbers {
    fn of_engine() -> Numbers {
        // Any face with spots gives the multiplier of an n of a kind.
        let times = |combo: fn(Face) -> Combo| combo(Face::Two).points() / Face::Two.face_value();
        Numbers {
            five_kind: times(Combo::FiveOfAKind),
            four_kind: times(Combo::FourOfAKind),
            three_kind: times(Combo::ThreeOfAKind),
            straight: Combo::Straight.points(),
            held_straight: Combo::HeldStraight.points(),
            small_straight: Combo::SmallStraight.points(),
            one: Combo::SingleOne.points(),
            five: Combo::SingleFive.points(),
            joker: Combo::SingleJoker.points(),
            one_face: Face::One.face_value(),
            joker_face: Face::Joker.face_value(),
            standard: Settings::standard(),
            blitz: Settings::blitz(),
        }
    }
}

/// The rules part of the help page, the same for the full screen and
/// `--plain` (whose commands differ, see [`help`]).
pub fn rules() -> String {
    let n = Numbers::of_engine();
    let Numbers {
        five_kind,
        four_kind,
        three_kind,
        straight,
        held_straight,
        small_straight,
        one,
        five,
        joker,
        one_face,
        joker_face,
        ..
    } = n;
    let (target, blitz_target) = (points(n.standard.target), points(n.blitz.target));
    let (on_board, off_board, lead) = (
        points(n.standard.on_board),
        points(n.standard.off_board),
        points(n.standard.overtime_lead),
    );
    format!(
        "\
cubes: score {target} points ({blitz_target} in Blitz) with five dice.

A turn starts with a roll of all five dice. After each roll, keep one or
more scoring dice (every die kept must score) and roll the others, or hold
to bank the turn. A roll that scores nothing ends the turn and loses all
its points. When all five dice have scored, you roll all five again.

Scoring: five of a kind face x {five_kind}; four of a kind face x {four_kind}; three of a
kind face x {three_kind} (face = {one_face} for a One, {joker_face} for a Joker, else the spots);
straight {straight} ({held_straight} if completed with held dice); small straight (four in a
row) {small_straight}; a One {one}; a Five {five}; a Joker {joker}. Only five of a kind and the
straight may use dice held from earlier rolls.

On board: your first banked turn needs {on_board} points. Off board: the turn
that crosses the target needs {off_board} points. Overtime: the winner must lead
second place by {lead}; until then play goes on."
    )
}

/// The keys of the full screen.
const KEYS_HELP: &str = "\
Keys: r or Enter roll / keep the picked dice and roll the rest;
1-5 pick a die; a pick all scoring dice; h hold (bank);
? this help; q quit, or leave a server's table (asks first).";

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
    format!("{}\n\n{commands}", rules())
}

const KEYS: &str = " r roll  1-5 pick  a all scoring  h hold  ? help  q quit";

/// [`KEYS`] at a seat of a table server: q leaves the table (asking first
/// while the game goes on).
const SEAT_KEYS: &str = " r roll  1-5 pick  a all scoring  h hold  ? help  q leave";

fn die_style(state: DieState, selected: bool) -> Style {
    match (state, selected) {
        (_, true) => Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        (DieState::Held, _) => Style::new().fg(Color::DarkGray),
        (DieState::Rolled, _) => Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
        (DieState::Idle, _) => Style::new().fg(Color::DarkGray),
    }
}

/// The scoring combinations, one a line, when there is room.
fn scoring_full(jokers: bool) -> Vec<String> {
    let n = Numbers::of_engine();
    let mut lines = vec![
        format!("Five of a kind   face x {}", n.five_kind),
        format!("Four of a kind   face x {}", n.four_kind),
        format!("Three of a kind  face x {}", n.three_kind),
        format!("Straight   {} ({} w/ held)", n.straight, n.held_straight),
        format!("Small straight {:>12}", n.small_straight),
        format!("One {}  Five {}  (face: One={})", n.one, n.five, n.one_face),
    ];
    if jokers {
        lines.push(format!("Joker {} (face value {})", n.joker, n.joker_face));
    }
    lines
}

/// The same in four lines, for short terminals (many players): the man
/// page promises the combinations on screen, all of them.
fn scoring_compact(jokers: bool) -> Vec<String> {
    let n = Numbers::of_engine();
    vec![
        format!(
            "5/4/3 of a kind  face x {}/{}/{}",
            n.five_kind, n.four_kind, n.three_kind
        ),
        format!(
            "Straight {} ({} with held dice)",
            n.straight, n.held_straight
        ),
        format!(
            "Small straight {}  One {}  Five {}",
            n.small_straight, n.one, n.five
        ),
        if jokers {
            format!(
                "Joker {}  (face: One {}, Joker {})",
                n.joker, n.one_face, n.joker_face
            )
        } else {
            format!("(face: One {}, others their spots)", n.one_face)
        },
    ]
}

/// Width of the Scoring box for each form (text + borders).
const FULL_WIDTH: u16 = 34;
const COMPACT_WIDTH: u16 = 38;

/// Rows that are not the bottom boxes: title, players box (`n` + 2),
/// dice box, status (2) and keys.
fn fixed_rows(players: u16) -> u16 {
    1 + (players + 2) + 7 + 2 + 1
}

/// The smallest terminal that shows the whole board for `players`
/// players: every scoring combination (compact form), the dice and the
/// lines next to them, and a few lines of what happened.
pub fn min_size(players: usize) -> (u16, u16) {
    let n = u16::try_from(players).unwrap_or(u16::MAX);
    (64, fixed_rows(n).saturating_add(4 + 2))
}

/// Whether a terminal of this size shows the whole board.
pub fn fits(width: u16, height: u16, players: usize) -> bool {
    let (w, h) = min_size(players);
    width >= w && height >= h
}

/// Draws the whole screen.
pub fn draw(f: &mut Frame, app: &App) {
    let seats = app.obs.seat_info.len();
    let n = seats as u16;
    let (min_w, min_h) = min_size(seats);
    let area = f.area();
    if !fits(area.width, area.height, seats) {
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
        Constraint::Min(6),
        Constraint::Length(2),
        Constraint::Length(1),
    ])
    .areas(f.area());

    let view = &app.obs.view;
    let s = &view.settings;
    let mut t = format!(" cubes: {} game to {} points", s.name, points(s.target));
    if view.jokers {
        t.push_str(" with JOKERS");
    }
    if let Some(r) = app.remote_game() {
        t.push_str(&format!(" - table {} at {}", r.table, r.server));
        if r.seat.is_none() {
            t.push_str(" (watching)");
        }
    }
    f.render_widget(
        Paragraph::new(t).style(Style::new().add_modifier(Modifier::BOLD)),
        title,
    );

    draw_players(f, app, players);
    draw_dice(f, app, dice);

    // The full list when it fits, else the compact one (min_size makes
    // sure that one always does).
    let full = scoring_full(view.jokers);
    let (scoring, width) = if usize::from(bottom.height.saturating_sub(2)) >= full.len() {
        (full, FULL_WIDTH)
    } else {
        (scoring_compact(view.jokers), COMPACT_WIDTH)
    };
    let [left, right] =
        Layout::horizontal([Constraint::Length(width), Constraint::Min(20)]).areas(bottom);
    draw_scoring(f, &scoring, left);
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
    // Who left the table, and when a computer plays for them, first:
    // the message takes what is left of the two lines.
    let absent = app
        .remote_game()
        .map_or_else(Vec::new, |r| r.absence_lines());
    let shown = absent
        .len()
        .min(usize::from(status.height.saturating_sub(1)));
    let [gone, status] = Layout::vertical([
        Constraint::Length(u16::try_from(shown).unwrap_or(1)),
        Constraint::Min(1),
    ])
    .areas(status);
    f.render_widget(
        Paragraph::new(absent.join("; "))
            .style(Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD)),
        gone,
    );
    f.render_widget(
        Paragraph::new(app.message.0.as_str())
            .style(style)
            .wrap(Wrap { trim: true }),
        status,
    );
    // While the connection is down, its state takes the keys' line: the
    // game cannot move, and the player must see why.
    let link = app.remote_game().and_then(|r| match &r.link {
        Link::Reconnecting { attempt, why } => {
            Some(format!(" reconnecting (attempt {attempt})... {why}"))
        }
        Link::Failed(why) => Some(format!(" disconnected: {why} (q leaves)")),
        Link::Connected | Link::Warning(_) => None,
    });
    match link {
        Some(line) => f.render_widget(
            Paragraph::new(line).style(Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)),
            keys,
        ),
        None => f.render_widget(
            Paragraph::new(if app.at_a_seat() { SEAT_KEYS } else { KEYS })
                .style(Style::new().fg(Color::DarkGray)),
            keys,
        ),
    }

    match app.mode {
        Mode::Help => popup(
            f,
            " Help (any key to go back) ",
            &help_page(f.area()),
            78,
            24,
        ),
        Mode::ConfirmQuit if app.remote_game().is_some() => {
            popup(f, " Leave? ", &app.quit_question(), 60, 10)
        }
        Mode::ConfirmQuit => popup(f, " Quit? ", &app.quit_question(), 50, 8),
        Mode::Over => {
            let mut standings: Vec<(usize, u32)> = view
                .players
                .iter()
                .enumerate()
                .map(|(k, p)| (k, p.score))
                .collect();
            standings.sort_by_key(|&(k, sc)| (std::cmp::Reverse(sc), k));
            let mut text = String::new();
            for (place, (k, sc)) in standings.iter().enumerate() {
                let name = if app.is_bot(*k) {
                    format!("{} (bot)", app.name(*k))
                } else {
                    app.name(*k)
                };
                text.push_str(&format!("{}. {name:<20} {:>7}\n", place + 1, points(*sc)));
            }
            text.push_str(&format!("\n{}\nq or Enter: leave", app.result_note()));
            popup(f, " Game over ", &text, 44, n + 7);
        }
        Mode::Play => {}
    }
}

/// The text with its paragraphs (blank-line separated) joined into long
/// lines, so a popup narrower than the text wraps it cleanly instead of
/// breaking every hard-wrapped line twice.
fn reflow(text: &str) -> String {
    text.split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The help page for the popup on this screen: reflowed to its width, and
/// without the blank lines between paragraphs when the screen is too
/// short for them (at the minimum size the keys would be cut otherwise).
fn help_page(area: Rect) -> String {
    let text = reflow(&help(Controls::Keys));
    let (w, h) = (area.width.min(78), area.height.min(24));
    let (inner_w, inner_h) = (
        usize::from(w.saturating_sub(2)),
        usize::from(h.saturating_sub(2)),
    );
    let rows: usize = text
        .split('\n')
        .map(|l| wrap(l, inner_w).len().max(1))
        .sum();
    if rows > inner_h {
        text.replace("\n\n", "\n")
    } else {
        text
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
        .obs
        .view
        .players
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let me = current == Some(k);
            let marker = if me { "> " } else { "  " };
            let mut note = String::new();
            if !p.on_board {
                note.push_str("  not on board");
            }
            if app.is_computer(k) {
                note.push_str("  (computer)");
            }
            if let Some(r) = app.remote_game() {
                let seat = r.seats.get(k);
                if r.seat == Some(k) {
                    note.push_str("  (you)");
                } else if let Some(s) = seat.filter(|s| s.bot) {
                    note.push_str("  ");
                    note.push_str(&table_client::seats::bot_mark(s));
                } else if seat.is_some_and(|s| s.kind == SeatKindSummary::Human) {
                    match seat {
                        Some(s) if s.player.is_none() => note.push_str("  (free seat)"),
                        Some(s) if !s.connected && !s.away => note.push_str("  (disconnected)"),
                        _ => {}
                    }
                }
            }
            let style = if me {
                Style::new().fg(Color::Green).add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            Line::from(vec![
                Span::styled(
                    format!("{marker}{:<20} {:>7}", app.name(k), points(p.score)),
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
    let view = &app.obs.view;
    let turn = &view.turn;
    // Before the next roll, the dice of a bust stay where they fell.
    let busted = app.busted.filter(|_| view.phase == Phase::Start);
    let mut rows: [Vec<Span>; 5] = Default::default();
    for i in 0..5 {
        let (st, face, style) = match busted {
            Some(b) if b.rolled.contains(i) => (
                DieState::Rolled,
                b.dice[i].symbol(),
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            ),
            Some(b) => (
                DieState::Held,
                b.dice[i].symbol(),
                die_style(DieState::Held, false),
            ),
            None => {
                let st = turn.states[i];
                let face = if st == DieState::Idle {
                    ' '
                } else {
                    turn.dice[i].symbol()
                };
                (st, face, die_style(st, app.selected.contains(i)))
            }
        };
        let sel = busted.is_none() && app.selected.contains(i);
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
    let who = app.to_act().map(|s| app.name(s)).unwrap_or_default();
    let title = match view.phase {
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

    f.render_widget(
        Paragraph::new(fit_notes(
            info_notes(app),
            usize::from(info_area.width),
            usize::from(info_area.height),
        )),
        info_area,
    );
}

/// A line of the panel next to the dice. `optional` lines give way first
/// when the panel cannot show every line.
struct Note {
    text: String,
    style: Style,
    optional: bool,
}

impl Note {
    fn new(text: String, style: Style) -> Note {
        Note {
            text,
            style,
            optional: false,
        }
    }
}

/// What a newcomer needs next to the dice: the turn so far, what this roll
/// scores, what the picked dice score, and whether holding is open.
fn info_notes(app: &App) -> Vec<Note> {
    let view = &app.obs.view;
    let turn = &view.turn;
    let mut notes = Vec::new();
    if let Some(b) = app.busted.filter(|_| view.phase == Phase::Start) {
        let bad = Style::new().fg(Color::Red);
        notes.push(Note::new(
            format!("{} rolled nothing that scores:", app.name(b.seat)),
            bad,
        ));
        notes.push(Note::new(
            if b.lost > 0 {
                format!("{} points lost", points(b.lost))
            } else {
                "the turn is over".to_string()
            },
            bad,
        ));
    }
    if app.to_act().is_some() {
        notes.push(Note::new(
            format!("Turn total: {}", points(turn.points)),
            Style::new(),
        ));
    }
    if view.phase == Phase::Rolled {
        if let Some(k) = turn.best_keep() {
            // Shown again, in other words, by the hold line and the pick:
            // the first to go when space is short.
            notes.push(Note {
                optional: !app.selected.is_empty(),
                ..Note::new(
                    format!("This roll: {}", combos_short(&k.combos)),
                    Style::new(),
                )
            });
        }
        if !app.selected.is_empty() {
            let picked = match turn.score_keep(app.selected) {
                Some(k) => format!("Picked: {}", combos_short(&k.combos)),
                None => "Picked dice do not all score".to_string(),
            };
            notes.push(Note::new(picked, Style::new().fg(Color::Yellow)));
        }
        match (app.hold_line(), view.can_hold().is_ok()) {
            (Some(l), true) => notes.push(Note::new(l, Style::new())),
            (Some(l), false) => notes.push(Note::new(l, Style::new().fg(Color::DarkGray))),
            (None, _) => {}
        }
    }
    notes
}

/// `One x2 (200) + Five (50)`: combinations with repeats counted, shorter
/// than the engine's `One (100) + One (100) + Five (50)` for the narrow
/// panel next to the dice.
fn combos_short(c: &cubes_engine::Combos) -> String {
    let mut groups: Vec<(cubes_engine::Combo, u32)> = Vec::new();
    for x in c.iter() {
        match groups.iter_mut().find(|(g, _)| *g == x) {
            Some((_, n)) => *n += 1,
            None => groups.push((x, 1)),
        }
    }
    groups
        .iter()
        .map(|(x, n)| {
            if *n > 1 {
                format!("{x} x{n} ({})", x.points() * n)
            } else {
                format!("{x} ({})", x.points())
            }
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Greedy word wrap to `width` columns (a word longer than a line is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > width {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            lines.push(word.drain(..width).collect());
        }
        let word: String = word.into_iter().collect();
        let len = line.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The notes wrapped to the panel; when they do not all fit, the optional
/// ones are left out so the others (the hold line above all) stay whole.
fn fit_notes(notes: Vec<Note>, width: usize, height: usize) -> Vec<Line<'static>> {
    let rows = |ns: &[Note]| -> usize { ns.iter().map(|n| wrap(&n.text, width).len()).sum() };
    let notes = if rows(&notes) > height {
        notes.into_iter().filter(|n| !n.optional).collect()
    } else {
        notes
    };
    notes
        .iter()
        .flat_map(|n| {
            wrap(&n.text, width)
                .into_iter()
                .map(move |l| Line::styled(l, n.style))
        })
        .collect()
}

fn draw_scoring(f: &mut Frame, lines: &[String], area: Rect) {
    let text = Text::from(
        lines
            .iter()
            .map(|l| Line::from(l.as_str()))
            .collect::<Vec<_>>(),
    );
    f.render_widget(
        Paragraph::new(text).block(Block::bordered().title(" Scoring ")),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Input;
    use crate::app::fixtures::{ann_vs_sam as app, bella_vs_sam, computer, person};
    use cubes_ai::Personality;
    use cubes_engine::{DiceMask, JokerRule, Settings};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn screen(app: &App) -> String {
        screen_of(app, 80, 24)
    }

    fn screen_of(app: &App, w: u16, h: u16) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        t.draw(|f| draw(f, app)).expect("draw");
        t.backend().to_string()
    }

    /// ann and bob (people) against Steady Sam and Bold Bella.
    fn four(settings: Settings, seed: u64, players: usize) -> App {
        let mut seats = vec![
            person("ann"),
            person("bob"),
            computer(Personality::steady()),
            computer(Personality::bold()),
        ];
        seats.truncate(players);
        App::new(settings, seats, seed).expect("app")
    }

    /// Every combination, in one form or the other, is on the screen.
    fn assert_scoring_whole(s: &str, jokers: bool) {
        let full = scoring_full(jokers);
        let compact = scoring_compact(jokers);
        assert!(
            full.iter().all(|l| s.contains(l)) || compact.iter().all(|l| s.contains(l)),
            "scoring list cut:\n{s}"
        );
    }

    #[test]
    fn start_of_game() {
        let a = app(Settings::standard(), 22477);
        let s = screen(&a);
        assert!(s.contains("Press r to roll"));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn a_roll_with_a_die_picked() {
        let mut a = app(Settings::standard(), 22477);
        a.update(Input::Key('r'));
        a.update(Input::Key('1'));
        let s = screen(&a);
        assert!(s.contains("keep"));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn refused_hold_shows_the_rule() {
        let mut a = app(Settings::standard(), 22477);
        a.update(Input::Key('r'));
        a.update(Input::Key('h'));
        let s = screen(&a);
        assert!(s.contains("not on board"));
        insta::assert_snapshot!(s);
    }

    #[test]
    fn help_page() {
        let mut a = app(Settings::blitz(), 22477);
        a.update(Input::Key('?'));
        insta::assert_snapshot!(screen(&a));
    }

    #[test]
    fn a_bust_stays_on_screen_until_the_next_roll() {
        // The audit: a bust cleared the dice at once, so the player never
        // saw the roll that ended the turn.
        let mut a = four(Settings::standard(), 3, 2);
        for _ in 0..10_000 {
            if a.busted.is_some_and(|b| b.seat == 0) {
                break;
            }
            if !a.human_to_act() {
                a.update(Input::Tick);
            } else if a.obs.view.phase == Phase::Start {
                a.update(Input::Key('r'));
            } else {
                a.update(Input::Key('a'));
                a.update(Input::Key('r'));
            }
        }
        let b = a.busted.expect("ann busts sooner or later");
        assert_eq!(a.obs.view.phase, Phase::Start);
        let s = screen(&a);
        let faces: Vec<String> = b
            .dice
            .iter()
            .map(|d| format!("│ {} │", d.symbol()))
            .collect();
        for f in &faces {
            assert!(s.contains(f.as_str()), "{f} missing:\n{s}");
        }
        assert!(s.contains("ann rolled nothing that scores:"), "{s}");
        insta::assert_snapshot!(s);
        // The next roll (bob's) replaces it.
        assert_eq!(a.obs.view.current, 1);
        a.update(Input::Key('r'));
        assert!(a.busted.is_none_or(|b| b.seat == 1), "{:?}", a.busted);
        let s = screen(&a);
        assert!(!s.contains("ann rolled nothing"), "{s}");
    }

    #[test]
    fn help_fits_the_minimum_size() {
        // Hard-wrapped at 76 columns, the help broke every line twice in a
        // narrower popup and lost the keys off the bottom.
        let mut a = four(Settings::standard(), 22477, 2);
        a.update(Input::Key('?'));
        let (w, h) = min_size(2);
        let s = screen_of(&a, w, h);
        assert!(s.contains("cubes: score 10,000 points"), "{s}");
        assert!(
            s.contains("q quit, or leave a server's table (asks first)."),
            "{s}"
        );
    }

    #[test]
    fn quit_question() {
        let mut a = app(Settings::standard(), 22477);
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
        let a = app(Settings::standard(), 22477);
        let s = screen_of(&a, 50, 15);
        assert!(s.contains("at least 64 x 21"), "{s}");
        assert!(!fits(63, 21, 2) && !fits(64, 20, 2) && fits(64, 21, 2));
    }

    #[test]
    fn four_players_at_80x24_see_every_combination() {
        // The audit's screen: the Scoring box was cut after "Small
        // straight" with four players.
        for jokers in [JokerRule::Never, JokerRule::Always] {
            let mut a = four(Settings::standard().with_jokers(jokers), 17343, 4);
            a.update(Input::Key('r'));
            let s = screen(&a);
            assert_scoring_whole(&s, jokers == JokerRule::Always);
            if jokers == JokerRule::Always {
                insta::assert_snapshot!(s);
            }
        }
    }

    #[test]
    fn at_the_minimum_size_nothing_is_cut() {
        // At the old minimum (60 x 19) only two combinations showed and a
        // pick pushed the hold line out of the dice box.
        for players in 1..=4 {
            for jokers in [JokerRule::Never, JokerRule::Always] {
                let (w, h) = min_size(players);
                let mut a = four(Settings::standard().with_jokers(jokers), 17343, players);
                a.update(Input::Key('r'));
                if a.obs.view.phase != Phase::Rolled {
                    continue;
                }
                a.update(Input::Key('a'));
                let s = screen_of(&a, w, h);
                assert_scoring_whole(&s, jokers == JokerRule::Always);
                assert!(s.contains("Picked:"), "{s}");
                assert!(s.contains("Cannot hold yet:"), "{s}");
                assert!(s.contains("on board"), "{s}");
                assert!(s.contains("What happened"), "{s}");
                if players == 4 && jokers == JokerRule::Always {
                    insta::assert_snapshot!("minimum_size_four_players_jokers", s);
                }
            }
        }
    }

    #[test]
    fn the_lines_next_to_the_dice_always_fit_at_the_minimum_width() {
        // Every Jokers roll (the longest combinations), every pick, and the
        // longest hold line: the hold line and the pick must stay whole in
        // the panel of the narrowest board (64 - 2 borders - 36 of dice).
        use cubes_engine::Face::{One, Three, Two};
        use cubes_engine::{DieState, Face, IllegalAction, PlayerScore, View, valid_keeps};
        let width = usize::from(min_size(2).0) - 2 - 36;
        // The hold lines as app::hold_line words them, from tables set up
        // by hand for one player who just rolled `dice` with `turn` points
        // already kept and `score` banked: banking five figures, and both
        // refusals (500 on and off board, as in every kind of game).
        // Each setup is checked against the engine's verdict, not the
        // wording, so a longer wording reaches the fitting check below.
        let hold_line = |settings: Settings,
                         score: u32,
                         turn: u32,
                         dice: [Face; 5],
                         verdict: fn(&Result<u32, IllegalAction>) -> bool| {
            let view = View {
                seat: 0,
                jokers: settings.jokers == JokerRule::Always,
                settings,
                players: vec![PlayerScore {
                    score,
                    on_board: score > 0,
                    turns: 1,
                }],
                current: 0,
                turn: cubes_engine::Turn {
                    dice,
                    states: [DieState::Rolled; 5],
                    points: turn,
                    held_points: 0,
                    rolls: 2,
                },
                phase: Phase::Rolled,
                winner: None,
            };
            let can = view.can_hold();
            assert!(verdict(&can), "{can:?}");
            crate::app::hold_line(&view).expect("rolled")
        };
        let small = [One, Two, Two, Three, Three];
        let holds = [
            // Five Jokers kept (9,000), all five rolled again: three Ones.
            hold_line(
                Settings::standard().with_jokers(JokerRule::Always),
                0,
                9_000,
                [One, One, One, Two, Three],
                |c| *c == Ok(10_000),
            ),
            // A One, not yet on board.
            hold_line(Settings::standard(), 0, 0, small, |c| {
                matches!(c, Err(IllegalAction::NotOnBoard { needed: 500, .. }))
            }),
            // 500 banked of 600, then a One would cross the target.
            hold_line(
                Settings {
                    target: 600,
                    ..Settings::standard()
                },
                500,
                0,
                small,
                |c| matches!(c, Err(IllegalAction::OffBoard { needed: 500, .. })),
            ),
        ];
        let n = Face::ALL.len();
        let mut checked = 0;
        for code in 0..n.pow(5) {
            let mut dice = [Face::One; 5];
            let mut idx = [0usize; 5];
            let mut c = code;
            for (d, i) in dice.iter_mut().zip(&mut idx) {
                *i = c % n;
                *d = Face::ALL[*i];
                c /= n;
            }
            // The order of the dice changes no text: one roll per multiset.
            if idx.windows(2).any(|w| w[0] > w[1]) {
                continue;
            }
            let Some(best) = cubes_engine::best_keep(&dice, DiceMask::EMPTY, 0, DiceMask::ALL)
            else {
                continue;
            };
            for keep in valid_keeps(&dice, DiceMask::EMPTY, 0, DiceMask::ALL) {
                for (k, hold) in holds.iter().enumerate() {
                    // Holding is refused only for a turn under 500, so
                    // the refusals never come with a pick worth more.
                    if k > 0 && best.points >= 500 {
                        continue;
                    }
                    let notes = vec![
                        Note::new("Turn total: 10,000".into(), Style::new()),
                        Note {
                            optional: true,
                            ..Note::new(
                                format!("This roll: {}", combos_short(&best.combos)),
                                Style::new(),
                            )
                        },
                        Note::new(
                            format!("Picked: {}", combos_short(&keep.combos)),
                            Style::new(),
                        ),
                        Note::new(hold.to_string(), Style::new()),
                    ];
                    let lines = fit_notes(notes, width, 5);
                    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                    assert!(text.len() <= 5, "{dice:?} {text:?}");
                    assert!(text.join(" ").ends_with(hold), "{dice:?} {text:?}");
                    assert!(text.join(" ").contains("Picked:"), "{dice:?} {text:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 2_000, "{checked}");
    }

    #[test]
    fn words_wrap_and_repeats_are_counted() {
        assert_eq!(
            wrap("Cannot hold yet: 500", 10),
            ["Cannot", "hold yet:", "500"]
        );
        assert_eq!(wrap("abcdefghij k", 4), ["abcd", "efgh", "ij k"]);
        assert_eq!(wrap("", 4), Vec::<String>::new());
        let k = cubes_engine::score_roll(&[
            cubes_engine::Face::One,
            cubes_engine::Face::Five,
            cubes_engine::Face::One,
        ])
        .expect("scores");
        assert_eq!(combos_short(&k), "One x2 (200) + Five (50)");
    }

    #[test]
    fn a_table_at_a_server_shows_its_people_and_the_connection() {
        use crate::app::fixtures::{Server, seats};
        use game_table::Viewer;
        use table_client::{Link, Note};
        let mut server = Server::three(Viewer::Seat(1), 4);
        let mut a = server.app();
        a.note(server.update(seats(&["ann", "bob", "cid"])));
        let s = screen(&a);
        for name in ["ann", "bob", "cid"] {
            assert!(s.contains(name), "{name}:\n{s}");
        }
        assert!(s.contains("table 7 at example.org:8780"), "{s}");
        assert!(s.contains("(you)"), "{s}");
        insta::assert_snapshot!(s);
        a.note(Note::Connection(Link::Reconnecting {
            attempt: 3,
            why: "cannot reach the table server".into(),
        }));
        let s = screen(&a);
        assert!(s.contains("reconnecting (attempt 3)..."), "{s}");
        assert!(!s.contains("r roll"), "{s}");
        a.note(Note::Connection(Link::Connected));
        let s = screen(&a);
        assert!(!s.contains("reconnecting"), "{s}");
        assert!(s.contains("Connected again."), "{s}");
    }

    #[test]
    fn a_person_who_left_is_counted_down_and_leaving_asks_first() {
        use crate::app::fixtures::{Server, seats};
        use game_table::Viewer;
        use std::time::{Duration, Instant};
        let mut server = Server::three(Viewer::Seat(1), 4);
        let mut a = server.app();
        let t0 = Instant::now();
        let mut s = seats(&["ann", "bob", "cid"]);
        s[0].connected = false;
        s[0].stand_in_in = Some(45);
        // A rated table: its seats carry their players' ratings.
        for seat in &mut s {
            seat.rating = Some(table_client::protocol::RatingBrief {
                rating: 1500,
                deviation: 350,
                provisional: true,
            });
        }
        a.note_at(server.update(s), t0);
        a.set_clock(t0 + Duration::from_secs(3));
        let shown = screen(&a);
        assert!(
            shown.contains("ann left: a computer plays for ann in 42 s"),
            "{shown}"
        );
        assert!(shown.contains("q leave"), "{shown}");
        insta::assert_snapshot!("countdown_of_a_person_who_left", shown);
        a.set_away_seconds(Some(45));
        a.update(Input::Key('q'));
        let shown = screen(&a);
        assert!(shown.contains("Leave the table?"), "{shown}");
        assert!(
            shown.contains("abandoned (a loss in the ratings)"),
            "{shown}"
        );
        insta::assert_snapshot!("leave_confirmation_at_a_shared_table", shown);
    }

    #[test]
    fn a_bots_seat_is_marked_and_its_invitation_followed() {
        use crate::app::fixtures::{Server, seats};
        use game_table::Viewer;
        use table_client::protocol::ServerMessage;
        // ann's table: bob is a bot invited to seat 2, cid a bot playing.
        let mut server = Server::three(Viewer::Seat(0), 4);
        let mut a = server.app();
        let mut s = seats(&["ann", "bob", "cid"]);
        s[1].bot = true;
        s[1].invited = true;
        s[1].connected = false;
        s[2].bot = true;
        a.note(server.update(s.clone()));
        let shown = screen(&a);
        assert!(shown.contains("(bot, invited)"), "{shown}");
        assert!(shown.contains("(bot)"), "{shown}");
        assert!(!shown.contains("bob left"), "{shown}");
        assert!(
            shown.contains("Waiting for bob (bot) to take seat 2: the game starts then."),
            "{shown}"
        );
        insta::assert_snapshot!("a_bot_invited_and_a_bot_playing", shown);
        // bob comes: the game begins.
        s[1].invited = false;
        s[1].connected = true;
        a.note(server.update(s.clone()));
        let shown = screen(&a);
        assert!(shown.contains("bob (bot) sits down at seat 2."), "{shown}");
        assert!(!shown.contains("invited"), "{shown}");
        // Had bob declined, the table is told why and that the seat is free.
        a.note(table_client::Note::Message(ServerMessage::Declined {
            table: crate::app::fixtures::TABLE,
            seat: 1,
            bot: "bob".into(),
            reason: "I play mille only".into(),
        }));
        let shown = screen(&a);
        assert!(
            shown.contains("bob declined: I play mille only; the seat is free"),
            "{shown}"
        );
        // Another table's news is not this one's.
        a.note(table_client::Note::Message(ServerMessage::Declined {
            table: 99,
            seat: 1,
            bot: "zed".into(),
            reason: String::new(),
        }));
        assert!(!screen(&a).contains("zed"));
    }

    #[test]
    fn a_finished_game_at_a_server_says_where_its_ranked() {
        use crate::app::fixtures::Server;
        use game_table::Viewer;
        let mut server = Server::three(Viewer::Spectator, 4);
        let mut a = server.app();
        for _ in 0..20_000 {
            if a.mode == Mode::Over {
                break;
            }
            let legal = server.legal();
            let action = if legal.contains(&cubes_engine::Action::Hold) {
                cubes_engine::Action::Hold
            } else {
                legal[0]
            };
            a.note(server.play(action));
        }
        let s = screen(&a);
        assert!(s.contains("Game over"), "{s}");
        assert!(s.contains("cubes rank -b --connect"), "{s}");
        assert!(s.contains("(watching)"), "{s}");
        assert!(!s.contains("(bot)"), "{s}");
        // Had bob been a bot, the standings would say so.
        let mut seats = crate::app::fixtures::seats(&["ann", "bob", "cid"]);
        seats[1].bot = true;
        a.note(server.update(seats));
        let s = screen(&a);
        assert!(s.contains("bob (bot)"), "{s}");
    }

    #[test]
    fn game_over() {
        let mut a = bella_vs_sam(Settings::blitz(), 5);
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
