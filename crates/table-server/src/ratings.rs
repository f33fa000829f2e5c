//! Ratings as clients see them: a stored rating grown by the time since
//! its player's last rated game, rounded for the lobby, the ladder and the
//! ending notes. The rating arithmetic itself is `game_rating`'s; what is
//! stored is the store's.

use crate::store::{EndingRow, RatingRow};
use game_rating::{Category, Rating};
use table_protocol::{Ending, LadderEntry, RatingBrief};

/// Seconds since 1970, now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// A stored rating as of `now`: its deviation grown by idleness.
pub fn current(row: &RatingRow, now: i64) -> Rating {
    row.rating.after_idle(now.saturating_sub(row.last_played))
}

/// A rating as the lobby shows it.
pub fn brief(r: Rating) -> RatingBrief {
    RatingBrief {
        rating: r.rating.round() as i32,
        deviation: r.deviation.round() as i32,
        provisional: r.provisional(),
    }
}

/// A ladder line.
pub fn ladder_entry(row: &RatingRow, now: i64) -> LadderEntry {
    let r = current(row, now);
    LadderEntry {
        name: row.name.clone(),
        rating: r.rating.round() as i32,
        deviation: r.deviation.round() as i32,
        provisional: r.provisional(),
        games: row.games,
        wins: row.wins,
        last_played: row.last_played,
        computer: row.computer,
        bot: row.bot,
    }
}

/// The rating of `name` in `category` from the rows read, or the one it
/// would start with.
pub fn of(rows: &[RatingRow], category: Category, name: &str, now: i64) -> Rating {
    rows.iter().find(|r| r.name == name).map_or_else(
        || game_rating::starting(category, name),
        |r| current(r, now),
    )
}

/// An ending note as the player is told it: the story, then what it did
/// to their rating.
pub fn ending(row: EndingRow) -> Ending {
    let mut message = row.summary;
    if let Some((before, after)) = row.change {
        message.push_str(&format!(
            " Your rating: {} → {}.",
            before.label(),
            after.label()
        ));
    }
    Ending {
        table: row.table,
        game: row.game,
        ruleset: crate::games::ruleset_words(row.game, &row.setup, row.seats),
        abandoned: row.abandoned,
        message,
    }
}
