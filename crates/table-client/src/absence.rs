//! Who left a table and when a computer takes their seat, as the other
//! players see it: the server says, in each seat summary, how many seconds
//! are left (`stand_in_in`), and the client counts down from there by
//! itself between two updates. Pure: the caller gives the time.

use std::time::{Duration, Instant};
use table_protocol::{SeatKindSummary, SeatSummary};

/// A person who is not at the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Absent {
    /// The seat (from 0).
    pub seat: usize,
    /// The person's name.
    pub name: String,
    /// What becomes of the seat meanwhile.
    pub stand_in: StandIn,
}

/// What becomes of an absent person's seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StandIn {
    /// A computer plays it from this moment (counted down locally).
    At(Instant),
    /// A computer plays it now.
    Playing,
    /// Nothing is said (the game has not begun or is over, or the server
    /// does not count down): the person just left.
    None,
}

/// The absent people of a table, from its last seat summaries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Absences {
    absent: Vec<Absent>,
}

impl Absences {
    /// No one absent.
    pub fn new() -> Absences {
        Absences::default()
    }

    /// The seats as an update describes them, received at `now`; `me` is
    /// this program's seat (never told about). Each update starts the
    /// countdowns afresh from what it says. A bot invited and not yet come
    /// has not left: it is awaited.
    pub fn update(&mut self, seats: &[SeatSummary], me: Option<usize>, now: Instant) {
        self.absent = seats
            .iter()
            .enumerate()
            .filter(|&(k, s)| {
                Some(k) != me && s.kind == SeatKindSummary::Human && !s.connected && !s.invited
            })
            .filter_map(|(seat, s)| {
                let name = s.player.clone()?;
                let stand_in = if s.away {
                    StandIn::Playing
                } else if let Some(secs) = s.stand_in_in {
                    StandIn::At(now + Duration::from_secs(secs))
                } else {
                    StandIn::None
                };
                Some(Absent {
                    seat,
                    name,
                    stand_in,
                })
            })
            .collect();
    }

    /// The absent people, by seat.
    pub fn absent(&self) -> &[Absent] {
        &self.absent
    }

    /// Whether a countdown is running (the screen redraws each second
    /// while it is).
    pub fn counting(&self) -> bool {
        self.absent
            .iter()
            .any(|a| matches!(a.stand_in, StandIn::At(_)))
    }

    /// What the screen says at `now`, a line an absent person:
    /// "ann left: a computer plays for ann in 45 s", "a computer plays for
    /// ann", "ann left".
    pub fn lines(&self, now: Instant) -> Vec<String> {
        self.absent.iter().map(|a| a.line(now)).collect()
    }
}

impl Absent {
    /// The line of [`Absences::lines`].
    pub fn line(&self, now: Instant) -> String {
        let name = &self.name;
        match self.stand_in {
            StandIn::At(at) => match seconds_left(at, now) {
                0 => format!("{name} left: a computer plays for {name} now"),
                s => format!("{name} left: a computer plays for {name} in {s} s"),
            },
            StandIn::Playing => format!("a computer plays for {name}"),
            StandIn::None => format!("{name} left"),
        }
    }
}

/// Whole seconds from `now` until `at`, rounded up (a countdown shows 1
/// until the very end), 0 once it is past.
pub fn seconds_left(at: Instant, now: Instant) -> u64 {
    let left = at.saturating_duration_since(now);
    left.as_secs() + u64::from(left.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(player: &str, connected: bool, away: bool, stand_in_in: Option<u64>) -> SeatSummary {
        SeatSummary {
            kind: SeatKindSummary::Human,
            level: None,
            player: Some(player.into()),
            connected,
            away,
            rating: None,
            stand_in_in,
            bot: false,
            invited: false,
        }
    }

    #[test]
    fn the_countdown_runs_locally_from_each_update() {
        let t0 = Instant::now();
        let mut a = Absences::new();
        a.update(
            &[
                seat("ann", true, false, None),
                seat("bob", false, false, Some(45)),
            ],
            Some(0),
            t0,
        );
        assert!(a.counting());
        assert_eq!(a.lines(t0), ["bob left: a computer plays for bob in 45 s"]);
        assert_eq!(
            a.lines(t0 + Duration::from_millis(1)),
            ["bob left: a computer plays for bob in 45 s"],
            "rounded up"
        );
        assert_eq!(
            a.lines(t0 + Duration::from_secs(1)),
            ["bob left: a computer plays for bob in 44 s"]
        );
        assert_eq!(
            a.lines(t0 + Duration::from_secs(44) + Duration::from_millis(500)),
            ["bob left: a computer plays for bob in 1 s"]
        );
        assert_eq!(
            a.lines(t0 + Duration::from_secs(60)),
            ["bob left: a computer plays for bob now"]
        );
        // The next update resets it.
        let t1 = t0 + Duration::from_secs(10);
        a.update(
            &[
                seat("ann", true, false, None),
                seat("bob", false, false, Some(30)),
            ],
            Some(0),
            t1,
        );
        assert_eq!(
            a.lines(t1 + Duration::from_secs(2)),
            ["bob left: a computer plays for bob in 28 s"]
        );
        // The stand-in plays, then bob is back.
        a.update(
            &[
                seat("ann", true, false, None),
                seat("bob", false, true, None),
            ],
            Some(0),
            t1,
        );
        assert!(!a.counting());
        assert_eq!(a.lines(t1), ["a computer plays for bob"]);
        a.update(
            &[
                seat("ann", true, false, None),
                seat("bob", true, false, None),
            ],
            Some(0),
            t1,
        );
        assert!(a.lines(t1).is_empty());
    }

    #[test]
    fn own_seat_computers_free_seats_and_invited_bots_are_not_told() {
        let t0 = Instant::now();
        let mut a = Absences::new();
        let computer = SeatSummary {
            kind: SeatKindSummary::Computer,
            level: Some("classic".into()),
            player: None,
            connected: false,
            away: false,
            rating: None,
            stand_in_in: None,
            bot: false,
            invited: false,
        };
        let free = SeatSummary {
            player: None,
            ..seat("x", false, false, None)
        };
        // A bot invited and not yet come has not left.
        let invited = SeatSummary {
            bot: true,
            invited: true,
            ..seat("robo", false, false, None)
        };
        a.update(
            &[
                seat("ann", false, false, Some(5)),
                computer,
                free,
                invited,
                seat("cy", false, false, None),
            ],
            Some(0),
            t0,
        );
        assert_eq!(a.lines(t0), ["cy left"]);
        assert!(!a.counting());
        // A spectator hears of everyone.
        a.update(&[seat("ann", false, false, Some(5))], None, t0);
        assert_eq!(a.absent()[0].seat, 0);
        assert!(a.counting());
    }
}
