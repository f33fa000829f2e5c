//! Why an action was refused: one variant per rule, each with a sentence a
//! player understands.

use crate::card::Card;
use std::fmt;

/// An action the rules do not allow now, with the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalAction {
    /// Somebody else is to act. The sentence counts seats from 1, as
    /// people do; `expected` is the seat's number (from 0).
    #[error("It is not your turn: waiting for player {}", .expected + 1)]
    NotYourTurn {
        /// Who is to act (from 0).
        expected: u8,
    },
    /// A play or discard before the draw.
    #[error("Draw a card first: every turn starts with a pick from the deck")]
    MustDrawFirst,
    /// A second draw.
    #[error("You have already drawn this turn: now play or discard a card")]
    AlreadyDrew,
    /// The draw pile is empty.
    #[error("The draw pile is empty: play or discard a card without drawing")]
    DeckEmpty,
    /// The card is not in the hand.
    #[error("You have no {0} in your hand")]
    NotInHand(Card),
    /// Distance without a Go.
    #[error("You need a Go before you can play distance")]
    NeedGo,
    /// Distance while a hazard stops the side. The sentence names what gets
    /// the side moving again, which depends on the hazard and on whether a
    /// Go is still needed after its remedy.
    #[error("{}", StoppedReason { hazard: *.hazard, go_after_remedy: *.go_after_remedy })]
    Stopped {
        /// The hazard on top of the battle pile.
        hazard: Card,
        /// Whether the side will still need a Go once the hazard is
        /// remedied: always, except with Right of Way (the core rule, in
        /// every ruleset).
        go_after_remedy: bool,
    },
    /// More than 50 miles under a Speed Limit.
    #[error(
        "You are under a Speed Limit: only 25 or 50 miles may be played until you play an End of Limit"
    )]
    SpeedLimited,
    /// A third 200.
    #[error("No more than two 200-mile cards may be played in one hand")]
    TooMany200s,
    /// Distance past the target.
    #[error(
        "{card} miles would take you to {would_reach}, past the {target}-mile goal: the trip must end exactly"
    )]
    Overshoot {
        /// The distance card.
        card: Card,
        /// Where it would lead.
        would_reach: u16,
        /// The goal.
        target: u16,
    },
    /// A remedy for a hazard the side does not have.
    #[error("{remedy} only repairs {hazard}, and you have no {hazard} to repair")]
    NothingToRepair {
        /// The remedy played.
        remedy: Card,
        /// The hazard it repairs.
        hazard: Card,
    },
    /// A remedy for the wrong hazard.
    #[error("{remedy} does not repair {showing}: you need {needed}")]
    WrongRemedy {
        /// The remedy played.
        remedy: Card,
        /// The hazard on the battle pile.
        showing: Card,
        /// What would repair it.
        needed: Card,
    },
    /// A remedy on a hazard its safety already cancelled. Whether the side
    /// can already go differs: under `bsd` it can (decision 1), under
    /// `classic` and `milebones` it still needs a Go (decision 7) unless it
    /// has Right of Way, so the sentence says which.
    #[error("{}", CancelledReason { hazard: *.hazard, can_go: *.can_go })]
    AlreadyCancelled {
        /// The cancelled hazard on top of the battle pile.
        hazard: Card,
        /// Whether the side can already go (no Go needed).
        can_go: bool,
    },
    /// A Go when the side can already go.
    #[error("You can already go: a Go is not needed")]
    AlreadyRolling,
    /// A Go on an unrepaired road hazard.
    #[error("You must repair the {hazard} (play {remedy}) before you can play a Go")]
    RepairFirst {
        /// The hazard.
        hazard: Card,
        /// Its remedy.
        remedy: Card,
    },
    /// End of Limit without a Speed Limit.
    #[error("You are not under a Speed Limit, so End of Limit has nothing to end")]
    NotLimited,
    /// A hazard on one's own side.
    #[error("You cannot play a hazard on your own side")]
    HazardOnOwnSide,
    /// A target that does not exist (the action's number, from 0).
    #[error("There is no team {0} in this game: an action's target numbers the teams from 0")]
    NoSuchTeam(u8),
    /// A card other than a hazard played on another side.
    #[error("{0} can only be played on your own side")]
    OwnSideOnly(Card),
    /// The target holds the protecting safety.
    #[error("Your opponent is protected by {0}")]
    Protected(Card),
    /// A battle hazard on a side that cannot go.
    #[error("Your opponent cannot go yet: {0} can only be played on a side that can go")]
    TargetNotRolling(Card),
    /// A hazard on a hazard (classic rule 12, without `stacking`).
    #[error("A hazard may not be played on top of another hazard: your opponent already has {0}")]
    HazardOnHazard(Card),
    /// A second Speed Limit.
    #[error("Your opponent is already under a Speed Limit")]
    AlreadyLimited,
    /// A safety discarded under bsd rules (decision 3).
    #[error("Safeties cannot be discarded: play {0} instead (a safety can always be played)")]
    SafetyNotDiscardable(Card),
    /// A coup fourré with no hazard to answer.
    #[error("There is no hazard to answer with a coup fourré now")]
    NoCoupFourre,
    /// A coup fourré with the wrong safety.
    #[error("{safety} does not answer {hazard}: only {needed} makes a coup fourré here")]
    WrongCoupFourre {
        /// The safety offered.
        safety: Card,
        /// The hazard to answer.
        hazard: Card,
        /// The right safety.
        needed: Card,
    },
    /// Something else while a coup fourré answer is awaited.
    #[error("First answer the {0}: play its safety as a coup fourré or let it pass")]
    CoupFourrePending(Card),
    /// Something else while the extension question is open.
    #[error("First decide whether to extend the trip to 1000 miles")]
    ExtensionPending,
    /// An extension answer nobody asked for.
    #[error("Nobody is being asked about an extension now")]
    NoExtensionAsked,
    /// A move after the hand ended.
    #[error("The hand is over: deal the next hand")]
    HandOver,
    /// A move after the game ended.
    #[error("The game is over: start a new game")]
    GameOver,
    /// Dealing while a hand is still being played.
    #[error("The hand is still being played")]
    HandInProgress,
}

/// The sentence of [`IllegalAction::Stopped`]: what stops the side and
/// what gets it moving again. Written out per hazard because each needs
/// its own remedy (a Stop needs a Go; the others their remedy, then a Go
/// unless the side has Right of Way).
struct StoppedReason {
    hazard: Card,
    go_after_remedy: bool,
}

impl fmt::Display for StoppedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (state, remedy) = match self.hazard {
            Card::Stop => {
                return f.write_str("You are stopped: play a Go before you can play distance");
            }
            Card::OutOfGas => ("You are out of gas", "Gasoline"),
            Card::FlatTire => ("You have a flat tire", "a Spare Tire"),
            Card::Accident => ("You have had an accident", "Repairs"),
            // Only battle hazards stop a side; a sentence anyway, rather
            // than a panic, for a caller that builds the error by hand.
            other => {
                return write!(
                    f,
                    "{other} stops you: play {} before you can play distance",
                    other.remedy().unwrap_or(Card::Go)
                );
            }
        };
        let then = if self.go_after_remedy {
            ", then a Go,"
        } else {
            ""
        };
        write!(
            f,
            "{state}: play {remedy}{then} before you can play distance"
        )
    }
}

/// The sentence of [`IllegalAction::AlreadyCancelled`].
struct CancelledReason {
    hazard: Card,
    can_go: bool,
}

impl fmt::Display for CancelledReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hazard = self.hazard;
        if self.can_go {
            let remedy = hazard.remedy().unwrap_or(Card::Go);
            write!(
                f,
                "Your safety already cancelled the {hazard}: you can already go, no {remedy} needed"
            )
        } else {
            write!(
                f,
                "Your safety already cancelled the {hazard}: play a Go to get moving again"
            )
        }
    }
}
