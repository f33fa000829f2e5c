//! What a finished game does to its players' ratings, the same for both
//! backends: the backend reads the stored ratings (locked), this answers
//! the new ones, and the backend writes them in the same transaction as
//! the game's result. The formulas are `game_rating`'s.

use super::{RatingChange, SeatRow};
use game_rating::{Category, Participant, Rating};

/// A player's rating as stored, before a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Stored {
    /// The rating as of the last rated game.
    pub rating: Rating,
    /// Rated games played (0: a row just made, never rated).
    pub games: u32,
    /// Rated games won.
    pub wins: u32,
    /// When the last rated game ended, seconds since 1970.
    pub last_played: i64,
}

/// One player's new row.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Update {
    /// The player.
    pub name: String,
    /// Whether a computer.
    pub computer: bool,
    /// Before the game (deviation grown by idleness) and after it.
    pub change: RatingChange,
    /// Rated games played, this one counted.
    pub games: u32,
    /// Rated games won, this one counted.
    pub wins: u32,
}

/// The distinct names of a game's seats, sorted: the order rows are
/// locked in, the same in every transaction, so that two finishing at
/// once never wait for each other in a circle.
pub(super) fn names(results: &[SeatRow]) -> Vec<String> {
    let mut names: Vec<String> = results.iter().map(|r| r.name.clone()).collect();
    names.sort();
    names.dedup();
    names
}

/// The rating a player comes to the game with: the stored one, its
/// deviation grown by the time since the last rated game, or the
/// category's starting rating for a player never rated in it.
pub(super) fn before(category: Category, name: &str, stored: Option<Stored>, now: i64) -> Rating {
    match stored {
        Some(s) if s.games > 0 => s
            .rating
            .after_idle(now.saturating_sub(s.last_played).max(0)),
        _ => game_rating::starting(category, name),
    }
}

/// The new ratings of a game's players, in the order their names first
/// come in `results`; `stored` answers a name's stored row. A name with
/// several seats (two computers of one level) is rated once, with the
/// mean of its seats' new ratings. `None` when the rating library refuses
/// the game (it is then recorded unrated: a result is never lost to a
/// rating).
pub(super) fn updates(
    category: Category,
    results: &[SeatRow],
    stored: impl Fn(&str) -> Option<Stored>,
    now: i64,
) -> Option<Vec<Update>> {
    let mut order: Vec<&str> = Vec::new();
    for r in results {
        if !order.contains(&r.name.as_str()) {
            order.push(&r.name);
        }
    }
    let rows: Vec<(Option<Stored>, Rating)> = order
        .iter()
        .map(|name| {
            let s = stored(name);
            (s, before(category, name, s, now))
        })
        .collect();
    let index = |name: &str| order.iter().position(|n| *n == name).unwrap_or(0);
    let participants: Vec<Participant> = results
        .iter()
        .map(|r| Participant {
            rating: rows[index(&r.name)].1,
            side: r.side,
            place: r.place,
            abandoned: r.abandoned,
        })
        .collect();
    let rated = match game_rating::rate(&participants) {
        Ok(rated) if rated.len() == results.len() => rated,
        Ok(_) => {
            tracing::error!(category = %category.id(), "the rating library answered a wrong count");
            return None;
        }
        Err(e) => {
            tracing::error!(category = %category.id(), error = %e, "a game cannot be rated");
            return None;
        }
    };
    let updates = order
        .iter()
        .zip(&rows)
        .map(|(name, (stored, before))| {
            let seats: Vec<usize> = (0..results.len())
                .filter(|&k| results[k].name == *name)
                .collect();
            let n = seats.len().max(1) as f64;
            let mean = |f: fn(&Rating) -> f64| seats.iter().map(|&k| f(&rated[k])).sum::<f64>() / n;
            let after = Rating {
                rating: mean(|r| r.rating),
                deviation: mean(|r| r.deviation),
                volatility: mean(|r| r.volatility),
            };
            let won = seats
                .iter()
                .any(|&k| results[k].won && !results[k].abandoned);
            let (games, wins) = stored.map_or((0, 0), |s| (s.games, s.wins));
            Update {
                name: name.to_string(),
                computer: seats.iter().any(|&k| results[k].computer),
                change: RatingChange {
                    name: name.to_string(),
                    before: *before,
                    after,
                },
                games: games.saturating_add(1),
                wins: wins.saturating_add(u32::from(won)),
            }
        })
        .collect();
    Some(updates)
}
