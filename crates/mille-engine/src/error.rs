//! Why an action was refused: one variant per rule, each with a sentence a
//! player understands.

use crate::card::Card;

/// An action the rules do not allow now, with the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IllegalAction {
    /// Somebody else is to act.
    #[error("It is not your turn: waiting for player {expected}")]
    NotYourTurn {
        /// Who is to act.
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
    /// Distance while a hazard stops the side.
    #[error("You cannot play distance while {0} stops you: repair it first")]
    Stopped(Card),
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
    /// A remedy on a hazard its safety already cancelled (classic rule 7).
    #[error("Your safety already cancelled the {0}: play a Go to get moving again")]
    AlreadyCancelled(Card),
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
    /// A target that does not exist.
    #[error("There is no team {0} in this game")]
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
