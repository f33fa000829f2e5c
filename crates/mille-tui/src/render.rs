//! Drawing the model: the board (each side's safeties, battle and speed
//! piles, mileage), the hand in slots P and 1-6, the deck and the discard
//! pile, the score window, the computer's last moves, the prompt, a status
//! line and the message line. [`Hits`] maps screen cells back to the board
//! for the mouse.

use crate::commands;
use crate::model::{Mode, Model, Window, slot_label};
use mille_engine::{Card, HandScore, Kind, Rules, Tableau};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

/// Smallest usable screen.
pub const MIN_W: u16 = 64;
/// Smallest usable screen height.
pub const MIN_H: u16 = 20;
/// Lines under the board besides the log: prompt, status, message.
const FIXED_BOTTOM: u16 = 3;
/// Rows the score window needs (with the command list).
const SCORE_ROWS: u16 = 17;
/// Most log lines shown.
const MAX_LOG: u16 = 6;
/// Rows of one side's section of the board (battle and speed on one line
/// when the screen is short).
fn team_rows(teams: u8, h: u16) -> u16 {
    if (u16::from(teams) * 5 + HAND_ROWS).max(SCORE_ROWS) + FIXED_BOTTOM + 2 <= h {
        5
    } else {
        4
    }
}
/// Rows of the hand section.
const HAND_ROWS: u16 = 6;
/// Width of the score window's labels ("Each Coup Fourré").
const SCORE_LABEL_W: u16 = 16;
/// Width of one side's column in the score window: totals have four or
/// five digits, so six keeps a space between columns; with three sides five
/// does (a game ends near 5000), which leaves the board room enough at 80
/// columns.
fn score_col_w(teams: u8) -> u16 {
    if teams > 2 { 5 } else { 6 }
}

/// The first of `candidates` that fits in `width` columns (they go from
/// the fullest to the most compact), else the last one.
fn fit(candidates: Vec<Line<'static>>, width: u16) -> Line<'static> {
    let n = candidates.len();
    candidates
        .into_iter()
        .enumerate()
        .find(|(i, l)| l.width() <= usize::from(width) || i + 1 == n)
        .map(|(_, l)| l)
        .unwrap_or_default()
}

/// A safety's name, shortened for a narrow board ("Tank" for Extra Tank):
/// the word that tells them apart.
fn short_safety(c: Card) -> &'static str {
    match c {
        Card::ExtraTank => "Tank",
        Card::PunctureProof => "Proof",
        Card::DrivingAce => "Ace",
        _ => c.name(),
    }
}

/// Where a mouse position lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    /// A hand slot (0 is P).
    Slot(usize),
    /// The draw pile.
    Deck,
    /// The discard pile.
    Discard,
    /// A side's part of the board (its piles, mileage and safeties).
    Team(u8),
}

/// The screen areas of the board, computed the same way for drawing and for
/// the mouse.
#[derive(Clone, Debug)]
pub struct Hits {
    items: Vec<(Rect, Hit)>,
    teams: Vec<(u8, Rect)>,
    hand: Rect,
    score: Rect,
    bottom: Rect,
    log_rows: u16,
    msg_rows: u16,
    /// Lines about the people who left the table, above the prompt.
    absent_rows: u16,
    /// Lines of the prompt (a long question takes more than one).
    prompt_rows: u16,
}

/// How many lines `text` takes wrapped at word boundaries to `width`
/// columns (a word longer than a line takes lines of its own).
fn wrapped_rows(text: &str, width: usize) -> usize {
    let width = width.max(1);
    let mut rows = 1;
    let mut used = 0;
    for word in text.split_whitespace() {
        let len = Line::from(word).width();
        if used > 0 && used + 1 + len > width {
            rows += 1;
            used = 0;
        }
        if used > 0 {
            used += 1;
        }
        used += len;
        while used > width {
            rows += 1;
            used -= width;
        }
    }
    rows
}

fn contains(r: Rect, x: u16, y: u16) -> bool {
    x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height
}

impl Hits {
    /// The layout of `model` on a `w` x `h` screen.
    pub fn compute(model: &Model, w: u16, h: u16) -> Hits {
        let teams = model.teams();
        let score_w = (SCORE_LABEL_W + score_col_w(teams) * u16::from(teams) + 3).min(w / 2);
        let rows = team_rows(teams, h);
        let board_h = (u16::from(teams) * rows + HAND_ROWS).max(SCORE_ROWS);
        let log_rows = h.saturating_sub(FIXED_BOTTOM + board_h).clamp(2, MAX_LOG);
        let top_h = h.saturating_sub(FIXED_BOTTOM + log_rows);
        // A message longer than the screen is wide (the engine's reasons
        // often are, at 80 columns) takes a second line from the log rather
        // than being cut off.
        let msg_rows = match &model.message {
            Some(m) if Line::from(m.as_str()).width() > usize::from(w) => 2,
            _ => 1,
        };
        // So do a long prompt (the question before leaving a shared
        // table) and the lines about the people who left.
        let prompt_rows = u16::try_from(wrapped_rows(&model.prompt(), usize::from(w)))
            .unwrap_or(3)
            .clamp(1, 3);
        let absent_rows = u16::try_from(model.absence_lines().len().min(2)).unwrap_or(2);
        let log_rows = log_rows
            .saturating_sub(msg_rows - 1)
            .saturating_sub(prompt_rows - 1)
            .saturating_sub(absent_rows);
        let left_w = w.saturating_sub(score_w);
        let own = model.own_team();
        // Opponents first, then the player's side, then the hand.
        let mut order: Vec<u8> = (0..teams).filter(|&t| t != own).collect();
        order.push(own);
        let mut items = Vec::new();
        let mut team_rects = Vec::new();
        let mut y = 0;
        for t in order {
            let r = Rect::new(0, y, left_w, rows.min(top_h.saturating_sub(y)));
            team_rects.push((t, r));
            items.push((r, Hit::Team(t)));
            y += rows;
        }
        let hand = Rect::new(0, y, left_w, HAND_ROWS.min(top_h.saturating_sub(y)));
        let col = left_w / 2;
        let slot_w = col.saturating_sub(1).min(22);
        items.push((Rect::new(1, y + 1, slot_w, 1), Hit::Slot(0)));
        for i in 0..3u16 {
            items.push((
                Rect::new(1, y + 2 + i, slot_w, 1),
                Hit::Slot(1 + i as usize),
            ));
            items.push((
                Rect::new(col, y + 2 + i, slot_w, 1),
                Hit::Slot(4 + i as usize),
            ));
        }
        items.push((Rect::new(col, y + 1, slot_w, 1), Hit::Deck));
        items.push((
            Rect::new(1, y + 5, left_w.saturating_sub(2), 1),
            Hit::Discard,
        ));
        Hits {
            items,
            teams: team_rects,
            hand,
            score: Rect::new(left_w, 0, score_w, top_h),
            bottom: Rect::new(0, top_h, w, h.saturating_sub(top_h)),
            log_rows,
            msg_rows,
            absent_rows,
            prompt_rows,
        }
    }

    /// What is at column `x`, row `y`.
    pub fn at(&self, x: u16, y: u16) -> Option<Hit> {
        // Slots, deck and discard lie inside the hand area: test them first.
        self.items
            .iter()
            .rev()
            .find(|(r, _)| contains(*r, x, y))
            .map(|&(_, h)| h)
    }

    /// The rectangle of a hit (its first area), for tests and clicks.
    pub fn rect_of(&self, hit: Hit) -> Option<Rect> {
        self.items.iter().find(|(_, h)| *h == hit).map(|&(r, _)| r)
    }
}

/// The colour of a card on the board.
pub fn card_style(card: Card) -> Style {
    match card.kind() {
        Kind::Distance => Style::default(),
        Kind::Hazard => Style::default().fg(Color::Red),
        Kind::Remedy => Style::default().fg(Color::Green),
        Kind::Safety => Style::default().fg(Color::Cyan),
    }
}

fn rule_line(text: &str, width: u16, style: Style) -> Line<'static> {
    let mut s = format!("── {text} ");
    let used = s.chars().count();
    s.push_str(&"─".repeat((width as usize).saturating_sub(used)));
    Line::from(Span::styled(s, style))
}

/// The battle pile's top as shown (its hazard, the remedy, or nothing).
fn battle_text(t: &Tableau, short: bool) -> (String, Style) {
    match t.battle.top() {
        None => ("(empty)".into(), Style::default().fg(Color::DarkGray)),
        Some(c) if c.kind() == Kind::Hazard && !t.counts(c) => (
            format!("{c} ({})", cancelled(short)),
            Style::default().fg(Color::DarkGray),
        ),
        Some(c) => (c.name().to_string(), card_style(c)),
    }
}

/// How a hazard a safety has made harmless is marked.
fn cancelled(short: bool) -> &'static str {
    if short { "off" } else { "cancelled" }
}

fn speed_text(t: &Tableau, short: bool) -> (String, Style) {
    match t.speed.top() {
        None => ("(none)".into(), Style::default().fg(Color::DarkGray)),
        Some(Card::SpeedLimit) if !t.limited() => (
            format!("Speed Limit ({})", cancelled(short)),
            Style::default().fg(Color::DarkGray),
        ),
        Some(c) => (c.name().to_string(), card_style(c)),
    }
}

/// The miles as "325 of 700  (25 50x2 200)", then more compact forms for
/// a narrow board ("325 (25 50x2 200)", "325 of 700").
pub fn miles_texts(t: &Tableau, target: u16) -> Vec<String> {
    let full = miles_text(t, target);
    match full.split_once("  (") {
        Some((head, list)) => vec![
            full.clone(),
            format!("{head} ({list}"),
            format!("{} ({list}", t.miles),
            head.to_string(),
        ],
        None => vec![full],
    }
}

/// The miles as "325 of 700  (25 50x2 200)": the distance cards played,
/// counted by value.
pub fn miles_text(t: &Tableau, target: u16) -> String {
    let counts: Vec<String> = Card::DISTANCES
        .into_iter()
        .zip(t.distance)
        .filter(|&(_, n)| n > 0)
        .map(|(c, n)| {
            if n == 1 {
                c.name().to_string()
            } else {
                format!("{}x{n}", c.name())
            }
        })
        .collect();
    if counts.is_empty() {
        format!("0 of {target}")
    } else {
        format!("{} of {target}  ({})", t.miles, counts.join(" "))
    }
}

fn team_lines(model: &Model, team: u8, width: u16, rows: u16) -> Vec<Line<'static>> {
    let tableau = model.tableau(team);
    let t = &tableau;
    let prefix = if Some(team) == model.my_team() && model.in_teams() {
        Some("Your team".to_string())
    } else {
        // The score window (and the "which side?" question) calls this side
        // T2, 2 or P3: the board says so too.
        model.side_tag(team)
    };
    let to_act = match model.obs.status.seat() {
        Some(s)
            if model
                .rules
                .seat(s)
                .is_some_and(|s| model.rules.team_of(s) == team) =>
        {
            " ◀"
        }
        _ => "",
    };
    // The names in full when they fit, else without the computers' levels,
    // else the label alone: the marker of the side to act is never cut.
    let names = [model.team_label(team), model.team_name_short(team)];
    let mut titles: Vec<String> = names
        .iter()
        .map(|n| match &prefix {
            Some(p) => format!("{p}: {n}"),
            None => n.clone(),
        })
        .collect();
    if let Some(p) = &prefix {
        titles.push(p.clone());
    }
    let room = usize::from(width).saturating_sub(4);
    let title = titles
        .iter()
        .find(|t| format!("{t}{to_act}").chars().count() <= room)
        .or(titles.last())
        .cloned()
        .unwrap_or_default();
    let head = rule_line(
        &format!("{title}{to_act}"),
        width,
        Style::default().add_modifier(Modifier::BOLD),
    );
    // Three or four safeties do not fit an 80-column board with their full
    // names: then they are shortened rather than cut off.
    let safety_line = |short: bool| {
        let mut spans = vec![Span::raw(" Safety:  ")];
        if t.safeties.is_empty() {
            spans.push(Span::styled("(none)", Style::default().fg(Color::DarkGray)));
        }
        for (i, c) in t.safeties.cards().enumerate() {
            if i > 0 {
                spans.push(Span::raw(if short { ", " } else { "  " }));
            }
            let name = if short { short_safety(c) } else { c.name() };
            let coup = c.safety().is_some_and(|s| t.coups.has(s));
            if coup {
                spans.push(Span::styled(
                    format!("*{name}*"),
                    Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
                ));
            } else {
                spans.push(Span::styled(name.to_string(), card_style(c)));
            }
        }
        Line::from(spans)
    };
    let safeties = fit(vec![safety_line(false), safety_line(true)], width);
    let (b, bs) = battle_text(t, false);
    let (s, ss) = speed_text(t, false);
    let miles = fit(
        miles_texts(t, model.target())
            .into_iter()
            .map(|m| Line::from(vec![Span::raw(" Mileage: "), Span::raw(m)]))
            .collect(),
        width,
    );
    if rows >= 5 {
        let battle = Line::from(vec![Span::raw(" Battle:  "), Span::styled(b, bs)]);
        let speed = Line::from(vec![Span::raw(" Speed:   "), Span::styled(s, ss)]);
        vec![head, safeties, battle, speed, miles]
    } else {
        // Battle and speed share a line on a short screen: aligned when
        // they fit, else closer together, else with "(cancelled)" shortened.
        let (b2, _) = battle_text(t, true);
        let (s2, _) = speed_text(t, true);
        let battle = fit(
            vec![
                Line::from(vec![
                    Span::raw(" Battle:  "),
                    Span::styled(format!("{b:<16}"), bs),
                    Span::raw(" Speed: "),
                    Span::styled(s.clone(), ss),
                ]),
                Line::from(vec![
                    Span::raw(" Battle: "),
                    Span::styled(b, bs),
                    Span::raw("  Speed: "),
                    Span::styled(s, ss),
                ]),
                Line::from(vec![
                    Span::raw(" Battle: "),
                    Span::styled(b2, bs),
                    Span::raw("  Speed: "),
                    Span::styled(s2, ss),
                ]),
            ],
            width,
        );
        vec![head, safeties, battle, miles]
    }
}

fn slot_span(model: &Model, slot: usize, width: u16) -> Line<'static> {
    let card = model.slots()[slot];
    let label = slot_label(slot);
    let (name, style) = match card {
        Some(c) => (c.name().to_string(), card_style(c)),
        None => ("".to_string(), Style::default()),
    };
    let mut style = style;
    if model.selected == Some(slot) {
        style = style.add_modifier(Modifier::REVERSED);
    }
    let text = format!("{name:<w$}", w = (width as usize).saturating_sub(4));
    Line::from(vec![
        Span::styled(
            format!("{label:>1}  "),
            Style::default().add_modifier(Modifier::BOLD),
        ),
        Span::styled(text, style),
    ])
}

fn hand_lines(model: &Model, width: u16) -> Vec<Line<'static>> {
    let col = width / 2;
    let slot_w = col.saturating_sub(1).min(22);
    let pad = |l: Line<'static>, w: u16| -> Vec<Span<'static>> {
        let mut spans = l.spans;
        let len: usize = spans.iter().map(|s| s.content.chars().count()).sum();
        let want = w as usize;
        if len < want {
            spans.push(Span::raw(" ".repeat(want - len)));
        }
        spans
    };
    let title = if model.watching() {
        "Watching: the hands are hidden"
    } else {
        "Your hand"
    };
    let mut lines = vec![rule_line(
        title,
        width,
        Style::default().add_modifier(Modifier::BOLD),
    )];
    let mut first = vec![Span::raw(" ")];
    first.extend(pad(slot_span(model, 0, slot_w), col - 1));
    let deck = model.deck_len();
    first.push(Span::styled(
        if deck == 0 {
            "Deck: out".to_string()
        } else {
            format!("Deck: {deck}")
        },
        Style::default().add_modifier(Modifier::BOLD),
    ));
    lines.push(Line::from(first));
    for i in 0..3 {
        let mut spans = vec![Span::raw(" ")];
        spans.extend(pad(slot_span(model, 1 + i, slot_w), col - 1));
        spans.extend(slot_span(model, 4 + i, slot_w).spans);
        lines.push(Line::from(spans));
    }
    let discard = match model.obs.view.discards.last() {
        Some(&c) => Span::styled(c.name().to_string(), card_style(c)),
        None => Span::styled("(empty)", Style::default().fg(Color::DarkGray)),
    };
    lines.push(Line::from(vec![Span::raw(" Discard: "), discard]));
    lines
}

/// The rows of the score window: (label, one value per side).
pub fn score_rows(model: &Model, bonuses: bool) -> Vec<(String, Vec<String>)> {
    let teams: Vec<u8> = (0..model.teams()).collect();
    let scores: Vec<HandScore> = teams.iter().map(|&t| model.hand_score(t)).collect();
    let row = |label: &str, f: &dyn Fn(&HandScore) -> u16| {
        (
            label.to_string(),
            scores.iter().map(|s| f(s).to_string()).collect::<Vec<_>>(),
        )
    };
    let mut rows = vec![
        row("Milestones", &|s| s.miles),
        row("Each Safety", &|s| s.safeties),
        row("All 4 Safeties", &|s| s.all_safeties),
        row("Each Coup Fourré", &|s| s.coups),
    ];
    if bonuses {
        rows.push(row("Trip Completed", &|s| s.trip));
        rows.push(row("Safe Trip", &|s| s.safe_trip));
        rows.push(row("Delayed Action", &|s| s.delayed_action));
        rows.push(row("Extension", &|s| s.extension));
        rows.push(row("Shut-Out", &|s| s.shut_out));
    }
    rows.push(row("Hand Total", &|s| s.total()));
    rows.push((
        "Overall Total".into(),
        teams
            .iter()
            .map(|&t| model.overall(t).to_string())
            .collect(),
    ));
    rows.push((
        "Games".into(),
        teams
            .iter()
            .map(|&t| model.games_won(t).to_string())
            .collect(),
    ));
    rows
}

/// Whether the score window shows the five bonus rows.
pub fn shows_bonuses(model: &Model) -> bool {
    model.window == Window::Scores || model.hand_over()
}

fn score_window(model: &Model, area: Rect, f: &mut Frame) {
    let title = format!(" Score: hand {} ", model.obs.hand_number + 1);
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let bonuses = shows_bonuses(model);
    let mut lines = Vec::new();
    let (lw, cw) = (
        usize::from(SCORE_LABEL_W),
        usize::from(score_col_w(model.teams())),
    );
    let mut head = format!("{:<lw$}", "");
    for t in 0..model.teams() {
        head.push_str(&format!("{:>cw$}", model.team_short(t)));
    }
    lines.push(Line::from(Span::styled(
        head,
        Style::default().add_modifier(Modifier::BOLD),
    )));
    for (label, values) in score_rows(model, bonuses) {
        let mut s = format!("{label:<lw$}");
        for v in values {
            s.push_str(&format!("{v:>cw$}"));
        }
        let bold = matches!(label.as_str(), "Hand Total" | "Overall Total");
        lines.push(Line::from(if bold {
            Span::styled(s, Style::default().add_modifier(Modifier::BOLD))
        } else {
            Span::raw(s)
        }));
    }
    if !bonuses {
        lines.push(Line::from(""));
        for c in commands::score_window_lines_at(model.place()) {
            lines.push(Line::from(Span::styled(
                c,
                Style::default().fg(Color::Yellow),
            )));
        }
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The status line: the deck, the trip, the rules, the computer level and
/// the options; more compact when it would not fit `width` (the stacking
/// variant makes it longer), never cut inside a setting. At a table
/// server: the connection and the table first, then the deck, the trip,
/// the rules and, for a player (a spectator has no hand), the sorting.
pub fn status_text(model: &Model, width: u16) -> String {
    let deck = model.deck_len();
    let r = &model.rules;
    let rules_id = if r.config.stacking {
        format!("{}+stacking", r.config.rules.id())
    } else {
        r.config.rules.id().to_string()
    };
    let sort = if model.sorted { "on" } else { "off" };
    let mouse = match model.options.mouse {
        mille_store::MouseMethod::ClickClick => "click",
        mille_store::MouseMethod::DragAndDrop => "drag",
    };
    let trip = model.target();
    let candidates: Vec<String> = if let Some(s) = &model.server {
        // The connection first: it is what changes, and what a narrow
        // screen must not cut off.
        let link = &s.link;
        let short_link = link.replace("(attempt ", "(");
        let sorting = if model.watching() {
            String::new()
        } else {
            format!(" | sort {sort}")
        };
        vec![
            format!(
                " {link} | {} | Deck: {deck} | Trip: {trip} | {rules_id} rules{}",
                s.place(),
                sorting
            ),
            format!(
                " {link} | table {} | Deck: {deck} | Trip: {trip} | {rules_id}{}",
                s.table, sorting
            ),
            format!(
                " {link} | table {} | Deck {deck} | Trip {trip} | {rules_id}{}",
                s.table, sorting
            ),
            format!(
                " {short_link} | table {} | Deck {deck} | {trip} | {rules_id}{}",
                s.table, sorting
            ),
            format!(
                " {short_link} | table {} | Deck {deck} | {trip}{}",
                s.table, sorting
            ),
        ]
    } else {
        let head = format!(
            " Deck: {deck} | Trip: {trip} | {rules_id} rules | level {} | sort {sort}",
            model.level.id(),
        );
        vec![
            format!("{head} | mouse: {mouse}"),
            format!("{head} | {mouse}"),
            format!(
                " Deck: {deck} | Trip: {trip} | {rules_id} | level {} | sort {sort} | {mouse}",
                model.level.id(),
            ),
            format!(
                " Deck {deck} | Trip {trip} | {rules_id} | {} | sort {sort} | {mouse}",
                model.level.id(),
            ),
            format!(
                " Deck {deck} | {trip} | {} | sort {sort} | {mouse}",
                model.level.id(),
            ),
        ]
    };
    let n = candidates.len();
    candidates
        .into_iter()
        .enumerate()
        .find(|(i, c)| c.chars().count() <= usize::from(width) || i + 1 == n)
        .map(|(_, c)| c)
        .unwrap_or_default()
}

/// The help screen's lines: the goal, the commands, the mouse and the
/// rules in brief (see [`crate::commands`]), under `rules`.
pub fn help_lines(rules: &Rules) -> Vec<String> {
    help_lines_at(rules, commands::Place::Here)
}

/// [`help_lines`] with the commands that work at `place` (a spectator
/// has no mouse play either).
pub fn help_lines_at(rules: &Rules, place: commands::Place) -> Vec<String> {
    let mut lines = vec![commands::goal(rules), String::new()];
    lines.extend(commands::help_lines_at(place));
    lines.push(String::new());
    if place != commands::Place::Watching {
        lines.extend(commands::MOUSE.iter().map(|l| l.to_string()));
        lines.push(String::new());
    }
    lines.extend(commands::rules_in_brief(rules));
    // On the paragraph's short last line: a line more would cover the
    // status line on a 24-line terminal.
    if let Some(last) = lines.last_mut() {
        last.push_str(" It shows *like this*, in red.");
    }
    lines
}

/// Draws the whole screen.
pub fn draw(model: &Model, f: &mut Frame) {
    let area = f.area();
    if area.width < MIN_W || area.height < MIN_H {
        let p = Paragraph::new(format!(
            "Mille needs a terminal of at least {MIN_W}x{MIN_H} (80x24 is best); this one is {}x{}.",
            area.width, area.height
        ))
        .wrap(Wrap { trim: true });
        f.render_widget(p, area);
        return;
    }
    let hits = Hits::compute(model, area.width, area.height);
    for &(team, r) in &hits.teams {
        f.render_widget(
            Paragraph::new(team_lines(model, team, r.width, r.height)),
            r,
        );
    }
    f.render_widget(
        Paragraph::new(hand_lines(model, hits.hand.width)),
        hits.hand,
    );
    score_window(model, hits.score, f);

    let b = hits.bottom;
    let row = |i: u16| Rect::new(b.x, b.y + i, b.width, 1);
    let n = hits.log_rows;
    let log = &model.log.lines;
    let log_start = log.len().saturating_sub(n as usize);
    // The newest line sits just above the prompt.
    let first_row = n - (log.len() - log_start) as u16;
    for (i, l) in log[log_start..].iter().enumerate() {
        let i = first_row as usize + i;
        let style = if l.starts_with("COUP") {
            Style::default().fg(Color::Red).add_modifier(Modifier::BOLD)
        } else {
            Style::default().fg(Color::Yellow)
        };
        f.render_widget(
            Paragraph::new(Span::styled(l.clone(), style)),
            row(i as u16),
        );
    }
    for (i, l) in model
        .absence_lines()
        .into_iter()
        .take(usize::from(hits.absent_rows))
        .enumerate()
    {
        f.render_widget(
            Paragraph::new(Span::styled(
                l,
                Style::default()
                    .fg(Color::Magenta)
                    .add_modifier(Modifier::BOLD),
            )),
            row(n + i as u16),
        );
    }
    let n = n + hits.absent_rows;
    f.render_widget(
        Paragraph::new(Span::styled(
            model.prompt(),
            Style::default().add_modifier(Modifier::BOLD),
        ))
        .wrap(Wrap { trim: true }),
        Rect::new(b.x, b.y + n, b.width, hits.prompt_rows),
    );
    let n = n + hits.prompt_rows - 1;
    f.render_widget(
        Paragraph::new(Span::styled(
            status_text(model, b.width),
            Style::default().add_modifier(Modifier::REVERSED),
        )),
        row(n + 1),
    );
    if let Some(m) = &model.message {
        let style = if model.message_is_error {
            Style::default().fg(Color::Red)
        } else {
            Style::default().fg(Color::Green)
        };
        let r = Rect::new(b.x, b.y + n + 2, b.width, hits.msg_rows);
        f.render_widget(
            Paragraph::new(Span::styled(m.clone(), style)).wrap(Wrap { trim: true }),
            r,
        );
    }
    if model.mode == Mode::Help {
        let w = area.width.saturating_sub(4).min(80);
        let help = help_lines_at(&model.rules, model.place());
        let h = (help.len() as u16 + 3).min(area.height.saturating_sub(2));
        let r = Rect::new((area.width - w) / 2, 1, w, h);
        f.render_widget(Clear, r);
        let lines: Vec<Line> = help.into_iter().map(Line::from).collect();
        f.render_widget(
            Paragraph::new(lines)
                .block(
                    Block::default()
                        .borders(Borders::ALL)
                        .title(" Help: any key returns "),
                )
                .wrap(Wrap { trim: false }),
            r,
        );
    }
}
