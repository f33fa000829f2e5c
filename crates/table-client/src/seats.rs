//! How the terminal clients name a bot's seat and tell an invitation
//! declined, so that the lobby, the table's screens and the text commands
//! say it in the same words.

use crate::protocol::SeatSummary;

/// What follows a bot's name wherever a seat is shown: "(bot)", "(bot,
/// invited)" while its seat waits for it to accept, "(bot, away)" while a
/// computer plays for it, "(bot, gone)" when it is not connected; empty
/// for a seat that is not a bot's.
pub fn bot_mark(s: &SeatSummary) -> String {
    if !s.bot {
        return String::new();
    }
    if s.invited {
        "(bot, invited)".into()
    } else if s.away {
        "(bot, away)".into()
    } else if !s.connected {
        "(bot, gone)".into()
    } else {
        "(bot)".into()
    }
}

/// What the table is told when an invited bot declines: "robo declined:
/// I play mille only; the seat is free". The reason is the bot's own
/// text: its line breaks become spaces (it is shown on one line).
pub fn declined_text(bot: &str, reason: &str) -> String {
    let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    if reason.is_empty() {
        format!("{bot} declined; the seat is free")
    } else {
        format!("{bot} declined: {reason}; the seat is free")
    }
}

/// The names of the bots invited to `seats` that have not come yet, with
/// their seats (from 0): the table waits for them.
pub fn invited(seats: &[SeatSummary]) -> Vec<(usize, String)> {
    seats
        .iter()
        .enumerate()
        .filter(|(_, s)| s.invited)
        .filter_map(|(k, s)| s.player.clone().map(|p| (k, p)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::SeatKindSummary;

    fn seat(player: Option<&str>, bot: bool, invited: bool) -> SeatSummary {
        SeatSummary {
            kind: SeatKindSummary::Human,
            level: None,
            player: player.map(str::to_string),
            connected: !invited,
            away: false,
            rating: None,
            stand_in_in: None,
            bot,
            invited,
        }
    }

    #[test]
    fn a_bots_seat_is_marked_and_a_persons_is_not() {
        assert_eq!(bot_mark(&seat(Some("ann"), false, false)), "");
        assert_eq!(bot_mark(&seat(Some("robo"), true, false)), "(bot)");
        assert_eq!(bot_mark(&seat(Some("robo"), true, true)), "(bot, invited)");
        let away = SeatSummary {
            away: true,
            ..seat(Some("robo"), true, false)
        };
        assert_eq!(bot_mark(&away), "(bot, away)");
        let gone = SeatSummary {
            connected: false,
            ..seat(Some("robo"), true, false)
        };
        assert_eq!(bot_mark(&gone), "(bot, gone)");
    }

    #[test]
    fn a_declined_invitation_says_who_why_and_that_the_seat_is_free() {
        assert_eq!(
            declined_text("robo", "I play mille only"),
            "robo declined: I play mille only; the seat is free"
        );
        assert_eq!(
            declined_text("robo", " "),
            "robo declined; the seat is free"
        );
        assert_eq!(
            declined_text("robo", "busy\nnow"),
            "robo declined: busy now; the seat is free"
        );
    }

    #[test]
    fn the_invited_bots_are_those_not_yet_come() {
        let seats = [
            seat(Some("ann"), false, false),
            seat(Some("robo"), true, true),
            seat(Some("deep"), true, false),
            seat(None, false, false),
        ];
        assert_eq!(invited(&seats), vec![(1, "robo".to_string())]);
    }
}
