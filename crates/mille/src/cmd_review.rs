//! `mille review FILE`: a finished game's decisions of one seat beside the
//! moves the analysis prefers ([`mille_review`]), with the expected points
//! each cost: a table of the decisions, a summary of each hand and the
//! three worst decisions with why; `--at K` shows the board at decision K
//! (the replay's board, [`mille_tui::replay`]). FILE is read as
//! `mille replay` reads it ([`crate::cmd_replay::load`]): a save file, a
//! game record or a table server's game document. Whatever is wrong is
//! said in one sentence, exit status 2.

use crate::cmd_replay::{Loaded, load};
use clap::Args;
use game_table::{SeatKind, Viewer};
use mille_engine::{Action, Kind};
use mille_review::{
    BLUNDER, DecisionReview, GameReview, INACCURACY, MISTAKE, Mark, ReviewConfig, UNIT,
    review_game_with_progress,
};
use mille_tui::replay::Replay;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Options of `mille review`.
#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// The game: a save file (the S command), a game record, or a table
    /// server's game (the JSON of /api/games/ID).
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// The seat to review, 1 for the first (default: the first person at
    /// the table).
    #[arg(long, value_name = "N")]
    seat: Option<usize>,

    /// Show the board at the seat's decision K (1 for the first) and
    /// every move's value there, instead of the table of decisions.
    #[arg(long, value_name = "K")]
    at: Option<usize>,

    /// Search iterations for each decision: more is slower and surer
    /// (default: the review's own budget, more than the `normal` player
    /// searches).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(100..=10_000_000))]
    iterations: Option<u32>,
}

/// Says what is wrong and exits 2.
fn fail(why: &str) -> ! {
    let _ = writeln!(std::io::stderr(), "mille review: {why}");
    std::process::exit(2)
}

/// Runs `mille review`.
pub fn run(args: ReviewArgs) -> anyhow::Result<()> {
    let loaded = match load(&args.file) {
        Ok(l) => l,
        Err(why) => fail(&why),
    };
    let seats = usize::from(loaded.record.config.players);
    let seat = match args.seat {
        None => first_person(&loaded),
        Some(n) if (1..=seats).contains(&n) => n - 1,
        Some(n) => fail(&format!(
            "--seat {n}: the game in {} has seats 1 to {seats}.",
            args.file.display()
        )),
    };
    let mut config = ReviewConfig::default();
    if let Some(n) = args.iterations {
        config.iterations = n;
    }
    let review = {
        let mut err = std::io::stderr();
        let mut progress = |done: usize, all: usize| {
            // One line, rewritten: on a terminal it moves in place; in a
            // log each state is a line of its own.
            let end = if std::io::stderr().is_terminal() {
                "\r"
            } else {
                "\n"
            };
            let _ = write!(err, "Reviewing decision {done} of {all}...{end}");
            let _ = err.flush();
        };
        let seat_u8 = u8::try_from(seat).unwrap_or(u8::MAX);
        let r = review_game_with_progress(&loaded.record, seat_u8, &config, &mut progress);
        if std::io::stderr().is_terminal() {
            let _ = write!(err, "{:60}\r", "");
        }
        match r {
            Ok(r) => r,
            Err(e) => fail(&format!(
                "the game in {} cannot be reviewed: {e}.",
                args.file.display()
            )),
        }
    };
    let text = match args.at {
        None => table(&loaded, seat, &review),
        Some(k) => match k.checked_sub(1).and_then(|i| review.decisions.get(i)) {
            Some(d) => board(&loaded, seat, &review, k, d, &args.file),
            None if review.decisions.is_empty() => fail(&format!(
                "--at {k}: {} had no choice to make in this game.",
                name(&loaded, seat)
            )),
            None => fail(&format!(
                "--at {k}: {} made decisions 1 to {} in this game.",
                name(&loaded, seat),
                review.decisions.len()
            )),
        },
    };
    // A closed pipe (`mille review F | head`) ends it quietly.
    let _ = std::io::stdout().write_all(text.as_bytes());
    Ok(())
}

/// Offers the review of a local game just played to its end, once the
/// screen is given back: asked on the terminal, reviewed for the
/// person's seat with the review's own budget.
pub fn offer(record: mille_engine::GameRecord, seats: Vec<game_table::SeatInfo>) {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return;
    }
    let mut out = std::io::stdout();
    let _ = write!(
        out,
        "Review this game (every decision of yours beside the strongest analysis, about a minute)? (y/n) "
    );
    let _ = out.flush();
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() || !answer.trim().eq_ignore_ascii_case("y")
    {
        return;
    }
    let loaded = Loaded {
        record,
        seats,
        stand_in: Vec::new(),
    };
    let seat = first_person(&loaded);
    let seat_u8 = u8::try_from(seat).unwrap_or(u8::MAX);
    let mut err = std::io::stderr();
    let mut progress = |done: usize, all: usize| {
        let _ = write!(err, "Reviewing decision {done} of {all}...\r");
        let _ = err.flush();
    };
    let review = review_game_with_progress(
        &loaded.record,
        seat_u8,
        &ReviewConfig::default(),
        &mut progress,
    );
    let _ = write!(std::io::stderr(), "{:60}\r", "");
    match review {
        Ok(review) => {
            let _ = out.write_all(table(&loaded, seat, &review).as_bytes());
        }
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "mille: the game cannot be reviewed: {e}."
            );
        }
    }
}

/// The first seat a person played (a save file's player, a server's
/// first person), else the first seat.
fn first_person(loaded: &Loaded) -> usize {
    loaded
        .seats
        .iter()
        .position(|s| matches!(s.kind, SeatKind::Human))
        .unwrap_or(0)
}

fn name(loaded: &Loaded, seat: usize) -> String {
    loaded
        .seats
        .get(seat)
        .map_or_else(|| format!("Seat {}", seat + 1), |s| s.name.clone())
}

/// A move in words: "75 miles", "Stop on bob", "discard Repairs".
fn move_words(loaded: &Loaded, a: Action) -> String {
    let players = loaded.record.config.players;
    let on = |team: u8| {
        // One seat a side below four players: the side is the seat.
        if players < 4 {
            name(loaded, usize::from(team))
        } else {
            format!("team {}", team + 1)
        }
    };
    match a {
        Action::Play { card, team } => match card.kind() {
            Kind::Hazard => format!("{} on {}", card.name(), on(team)),
            Kind::Distance => format!("{} miles", card.name()),
            _ => card.name().to_string(),
        },
        Action::Discard(c) => format!("discard {}", c.name()),
        Action::CoupFourre(c) => format!("coup fourré {}", c.name()),
        Action::DeclineCoupFourre => "no coup fourré".into(),
        Action::Extend(true) => "extend".into(),
        Action::Extend(false) => "end the trip".into(),
        other => other.to_string(),
    }
}

/// A hand's number for people, from 1: the review gives the engine's
/// count of hands dealt before it.
fn hand_shown(hand: u32) -> u32 {
    hand.saturating_add(1)
}

fn loss_words(d: &DecisionReview) -> String {
    if d.played == d.best {
        String::new()
    } else {
        format!("{:.0} ± {:.0}", d.loss, d.stderr)
    }
}

/// The review as text: the decisions, each hand's summary, the worst.
fn table(loaded: &Loaded, seat: usize, review: &GameReview) -> String {
    let mut s = format!(
        "Review of {} (seat {}): {} decisions, in {UNIT} (expected points of the hand \
         lost against the move the analysis prefers, ± its standard error; {} search \
         iterations a decision).\n\n",
        name(loaded, seat),
        seat + 1,
        review.decisions.len(),
        review.config.iterations,
    );
    let rows: Vec<[String; 7]> = review
        .decisions
        .iter()
        .enumerate()
        .map(|(k, d)| {
            let kind = match d.kind {
                mille_review::DecisionKind::Play => "play",
                mille_review::DecisionKind::Discard => "discard",
                mille_review::DecisionKind::CoupFourre => "coup fourré",
                mille_review::DecisionKind::Extension => "extension",
            };
            let preferred = if d.played == d.best {
                "=".to_string()
            } else {
                move_words(loaded, d.best)
            };
            [
                (k + 1).to_string(),
                hand_shown(d.hand).to_string(),
                kind.to_string(),
                move_words(loaded, d.played),
                preferred,
                loss_words(d),
                d.mark.label().to_string(),
            ]
        })
        .collect();
    let header = [
        "#",
        "hand",
        "kind",
        "move made",
        "preferred",
        "lost",
        "mark",
    ]
    .map(String::from);
    // Columns as wide as their widest cell (a hazard names its target).
    let mut w = [0usize; 7];
    for r in rows.iter().chain(std::iter::once(&header)) {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    for r in std::iter::once(&header).chain(&rows) {
        let line = format!(
            "{:>w0$} {:>w1$}  {:<w2$}  {:<w3$}  {:<w4$}  {:>w5$}  {}",
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            r[5],
            r[6],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3],
            w4 = w[4],
            w5 = w[5],
        );
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s.push('\n');
    for h in &review.hands {
        s.push_str(&format!(
            "Hand {}: {} decisions, {:.0} points lost, accuracy {:.0}%.\n",
            hand_shown(h.hand),
            h.decisions,
            h.points_lost,
            h.accuracy
        ));
    }
    s.push_str(&format!(
        "The game: {:.0} points lost, accuracy {:.0}%.\n",
        review.points_lost(),
        review.accuracy()
    ));
    let count = |m: Mark| review.decisions.iter().filter(|d| d.mark == m).count();
    s.push_str(&format!(
        "{} inaccuracies (from {INACCURACY:.0} points), {} mistakes (from {MISTAKE:.0}), \
         {} blunders (from {BLUNDER:.0}).\n",
        count(Mark::Inaccuracy),
        count(Mark::Mistake),
        count(Mark::Blunder),
    ));
    if !review.worst.is_empty() {
        s.push_str("\nThe worst decisions:\n");
        for w in &review.worst {
            if let Some(d) = review.decisions.get(w.decision) {
                s.push_str(&format!(
                    "  #{} (hand {}, {} lost): {}\n",
                    w.decision + 1,
                    hand_shown(d.hand),
                    loss_words(d),
                    w.sentence
                ));
            }
        }
    }
    s.push_str("\n`--at K` shows the board at decision K.\n");
    s
}

/// The board the seat saw before decision `k` (the replay's, from the
/// seat's side), then every move's value there.
fn board(
    loaded: &Loaded,
    seat: usize,
    review: &GameReview,
    k: usize,
    d: &DecisionReview,
    file: &std::path::Path,
) -> String {
    let title = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut s = format!(
        "Decision {k} of {}: {}, hand {}.\n\n",
        review.decisions.len(),
        name(loaded, seat),
        hand_shown(d.hand)
    );
    match Replay::new(
        &loaded.record,
        &loaded.seats,
        Viewer::Seat(seat),
        false,
        &loaded.stand_in,
        title,
    ) {
        Ok(replay) => {
            // The last step before the decision: the board as it stood.
            let at = replay
                .steps
                .iter()
                .rposition(|st| st.action.is_none_or(|i| i < d.index))
                .unwrap_or(0);
            if let Some(step) = replay.steps.get(at) {
                s.push_str(&replay.headline(at));
                s.push('\n');
                s.push_str(&mille_tui::plain::board_text(&step.model));
                if !s.ends_with('\n') {
                    s.push('\n');
                }
            }
        }
        Err(e) => s.push_str(&format!("(the board cannot be shown: {e})\n")),
    }
    s.push_str(&format!(
        "\nEvery move, best first ({UNIT} expected in the hand):\n"
    ));
    for m in &d.moves {
        let mut tags = Vec::new();
        if m.action == d.best {
            tags.push("preferred");
        }
        if m.action == d.played {
            tags.push("made");
        }
        let line = format!(
            "  {:<26} {:>8.0} ± {:<5.0} {}",
            move_words(loaded, m.action),
            m.value,
            m.stderr,
            tags.join(", ")
        );
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s.push_str(&format!(
        "\nMade: {}; preferred: {}. ",
        move_words(loaded, d.played),
        move_words(loaded, d.best)
    ));
    if d.played == d.best {
        s.push_str("Best.\n");
    } else {
        s.push_str(&format!("Lost {} ({}).\n", loss_words(d), d.mark.label()));
    }
    if let Some(w) = review.worst.iter().find(|w| w.decision + 1 == k) {
        s.push_str(&format!("{}\n", w.sentence));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::Card;

    /// A hazard is said with the side it was played on; every card has
    /// words.
    #[test]
    fn every_card_has_words_for_each_move() {
        let loaded = Loaded {
            record: mille_engine::GameRecord::new(
                mille_engine::GameConfig {
                    rules: mille_engine::RulesetId::ALL[0],
                    players: 2,
                    stacking: false,
                },
                1,
            ),
            seats: vec![game_table::SeatInfo::human("ann")],
            stand_in: Vec::new(),
        };
        for card in Card::ALL {
            let w = move_words(&loaded, Action::Play { card, team: 1 });
            assert!(!w.is_empty());
            if card.kind() == Kind::Hazard {
                assert!(w.ends_with("on Seat 2"), "{w}");
            }
        }
        assert_eq!(first_person(&loaded), 0);
    }
}
