//! A table server's ladder (its ratings of one kind of game, best first)
//! as a table for the terminal: what `mille ladder` prints, and
//! `cubes rank --connect` beside the classic rankings.

use crate::protocol::LadderEntry;

/// The ladder as a table: rank, name (computers marked `*`), rating (`?`
/// when provisional), deviation, games, wins and the day of the last game
/// (UTC), with what the marks mean under it. People and the computer
/// levels come first; bots (programs with accounts) follow in a section
/// of their own, "Bots", ranked among themselves, as they are rated on
/// the same scale but are not people. `now` (seconds since 1970) only
/// says "today".
pub fn ladder_text(title: &str, server: &str, entries: &[LadderEntry], now: i64) -> String {
    if entries.is_empty() {
        return format!("{title} at {server}: nobody is rated yet.\n");
    }
    let name = |e: &LadderEntry| {
        if e.computer {
            format!("{} *", e.name)
        } else {
            e.name.clone()
        }
    };
    // One width for both sections, so that their columns line up.
    let name_w = entries
        .iter()
        .map(|e| name(e).chars().count())
        .max()
        .unwrap_or(0)
        .max("Name".len());
    let header = format!(
        "{:>4}  {:<name_w$}  {:>7}  {:>9}  {:>5}  {:>5}  Last played\n",
        "Rank", "Name", "Rating", "Deviation", "Games", "Wins"
    );
    let rows = |section: &[&LadderEntry]| {
        let mut out = String::new();
        for (i, e) in section.iter().enumerate() {
            let name = name(e);
            let rating = if e.provisional {
                format!("{}?", e.rating)
            } else {
                format!("{} ", e.rating)
            };
            // Padded by hand: `{:<w$}` counts chars, but so does this, and
            // a name is printable text without combining tricks worth more.
            let pad = name_w.saturating_sub(name.chars().count());
            out.push_str(&format!(
                "{:>4}  {name}{}  {rating:>7}  {:>9}  {:>5}  {:>5}  {}\n",
                i + 1,
                " ".repeat(pad),
                e.deviation,
                e.games,
                e.wins,
                day(e.last_played, now),
            ));
        }
        out
    };
    let (bots, others): (Vec<&LadderEntry>, Vec<&LadderEntry>) =
        entries.iter().partition(|e| e.bot);
    let mut out = format!("{title} at {server}\n");
    if !others.is_empty() {
        out.push_str(&header);
        out.push_str(&rows(&others));
    }
    if !bots.is_empty() {
        if !others.is_empty() {
            out.push('\n');
        }
        out.push_str("Bots\n");
        out.push_str(&header);
        out.push_str(&rows(&bots));
    }
    let mut notes = Vec::new();
    if entries.iter().any(|e| e.provisional) {
        notes.push("? provisional: too few recent games to trust the rating yet");
    }
    if entries.iter().any(|e| e.computer) {
        notes.push("* a computer player");
    }
    for n in notes {
        out.push_str(n);
        out.push('\n');
    }
    out
}

/// The UTC day of `seconds` since 1970 as YYYY-MM-DD ("today" for `now`'s
/// day, "-" for none).
pub fn day(seconds: i64, now: i64) -> String {
    if seconds <= 0 {
        return "-".into();
    }
    let days = seconds.div_euclid(86_400);
    if days == now.div_euclid(86_400) {
        return "today".into();
    }
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of a day number counted from 1970-01-01
/// (Howard Hinnant's `civil_from_days`): a date needs no calendar crate.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, rating: i32, provisional: bool, computer: bool) -> LadderEntry {
        LadderEntry {
            name: name.into(),
            rating,
            deviation: if provisional { 160 } else { 48 },
            provisional,
            games: 12,
            wins: 7,
            last_played: 1_795_000_000,
            computer,
            bot: false,
        }
    }

    #[test]
    fn bots_follow_in_a_section_of_their_own() {
        let bot = |name: &str, rating: i32| LadderEntry {
            bot: true,
            ..entry(name, rating, false, false)
        };
        // The server sends one list, best first: the bots among the others.
        let entries = [
            bot("deep blue", 1801),
            entry("computer: classic", 1712, false, true),
            bot("robo", 1600),
            entry("ann", 1540, true, false),
        ];
        let text = ladder_text("Mille Bornes, bsd", "host:1", &entries, 0);
        assert_eq!(
            text,
            "Mille Bornes, bsd at host:1\n\
             Rank  Name                  Rating  Deviation  Games   Wins  Last played\n\
             \x20  1  computer: classic *    1712          48     12      7  2026-11-18\n\
             \x20  2  ann                    1540?        160     12      7  2026-11-18\n\
             \n\
             Bots\n\
             Rank  Name                  Rating  Deviation  Games   Wins  Last played\n\
             \x20  1  deep blue              1801          48     12      7  2026-11-18\n\
             \x20  2  robo                   1600          48     12      7  2026-11-18\n\
             ? provisional: too few recent games to trust the rating yet\n\
             * a computer player\n"
        );
        // Only bots rated: their section alone.
        let text = ladder_text("Mille Bornes, bsd", "host:1", &[bot("robo", 1600)], 0);
        assert_eq!(
            text,
            "Mille Bornes, bsd at host:1\n\
             Bots\n\
             Rank  Name   Rating  Deviation  Games   Wins  Last played\n\
             \x20  1  robo    1600          48     12      7  2026-11-18\n"
        );
    }

    #[test]
    fn dates_are_the_utc_days() {
        assert_eq!(day(0, 10), "-");
        assert_eq!(day(86_400 * 365, 0), "1971-01-01");
        // 2026-11-28 00:00:00 UTC and the second before it.
        assert_eq!(day(1_795_824_000, 0), "2026-11-28");
        assert_eq!(day(1_795_823_999, 0), "2026-11-27");
        assert_eq!(day(951_782_400, 0), "2000-02-29");
        assert_eq!(day(1_795_824_000, 1_795_824_000 + 3600), "today");
    }

    #[test]
    fn the_ladder_is_a_table_with_marks_explained() {
        let entries = [
            entry("computer: steady", 1712, false, true),
            entry("ann", 1540, true, false),
        ];
        let text = ladder_text("Cubes, standard", "host:1", &entries, 0);
        assert_eq!(
            text,
            "Cubes, standard at host:1\n\
             Rank  Name                 Rating  Deviation  Games   Wins  Last played\n\
             \x20  1  computer: steady *    1712          48     12      7  2026-11-18\n\
             \x20  2  ann                   1540?        160     12      7  2026-11-18\n\
             ? provisional: too few recent games to trust the rating yet\n\
             * a computer player\n"
        );
        assert_eq!(
            ladder_text("Cubes, standard", "host:1", &[], 0),
            "Cubes, standard at host:1: nobody is rated yet.\n"
        );
        let entries = [
            entry("computer: normal", 1712, false, true),
            entry("ann", 1540, true, false),
        ];
        let text = ladder_text("Mille Bornes, bsd", "host:1", &entries, 0);
        assert_eq!(
            text,
            "Mille Bornes, bsd at host:1\n\
             Rank  Name                 Rating  Deviation  Games   Wins  Last played\n\
             \x20  1  computer: normal *    1712          48     12      7  2026-11-18\n\
             \x20  2  ann                   1540?        160     12      7  2026-11-18\n\
             ? provisional: too few recent games to trust the rating yet\n\
             * a computer player\n"
        );
        assert_eq!(
            ladder_text("Mille Bornes, bsd", "host:1", &[], 0),
            "Mille Bornes, bsd at host:1: nobody is rated yet.\n"
        );
    }
}
