//! Rulesets as data: deck, seats and teams, targets, switches and the
//! scoring table of `bsd`, `classic` and `milebones` (see `rules.md`).

use crate::card::{Card, KINDS};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Most seats at a table.
pub const MAX_SEATS: usize = 6;
/// Most sides (teams or lone players) in a game.
pub const MAX_TEAMS: usize = 3;
/// Cards in the largest deck.
pub const MAX_DECK_CARDS: usize = 106;

/// The three rulesets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RulesetId {
    /// BSD `mille`: 101 cards, 2 players, coup fourré on the victim's turn.
    Bsd,
    /// The published rules: 2 to 6 players, teams for 4 and 6.
    Classic,
    /// Mile Bones 2.1: the classic 2-player game with its own coup fourré.
    Milebones,
}

impl RulesetId {
    /// The protocol id.
    pub const fn id(self) -> &'static str {
        match self {
            RulesetId::Bsd => "bsd",
            RulesetId::Classic => "classic",
            RulesetId::Milebones => "milebones",
        }
    }
}

impl fmt::Display for RulesetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A ruleset id that is not known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rules {0:?}: expected bsd, classic or milebones")]
pub struct UnknownRuleset(pub String);

impl FromStr for RulesetId {
    type Err = UnknownRuleset;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "bsd" => Ok(RulesetId::Bsd),
            "classic" => Ok(RulesetId::Classic),
            "milebones" => Ok(RulesetId::Milebones),
            _ => Err(UnknownRuleset(s.to_string())),
        }
    }
}

/// When a coup fourré may be called.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CoupTiming {
    /// On the victim's own next turn, before drawing; the victim then gets
    /// two cards at once and plays (bsd, milebones).
    VictimsTurn,
    /// Right after the hazard, out of turn; the caller draws a replacement
    /// and takes a full turn, skipping the players in between (classic).
    Immediate,
}

/// How a hand runs out when nobody completes the trip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HandEnd {
    /// Draw pile empty and no player holds a card they could play (bsd).
    NobodyCanPlay,
    /// Draw pile empty and every hand played or discarded out (classic).
    HandsEmpty,
}

/// Who gets the extension bonus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ExtensionScoring {
    /// Whoever completes 1000 gets it; no penalty (bsd, milebones).
    ToCompleter,
    /// The caller's side gets it if it completes 1000; otherwise every
    /// opposing side gets it (classic).
    CallerOrOpponents,
}

/// Points of each scoring item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScoringTable {
    /// Each safety in play.
    pub safety: u16,
    /// All four safeties, on top of each.
    pub all_safeties: u16,
    /// Each coup fourré, on top of its safety.
    pub coup_fourre: u16,
    /// Trip completed.
    pub trip: u16,
    /// Trip completed after the draw pile ran out.
    pub delayed_action: u16,
    /// Trip completed without a 200.
    pub safe_trip: u16,
    /// Extension bonus.
    pub extension: u16,
    /// Shut-out, per opposing side with no miles.
    pub shut_out: u16,
    /// Total that ends the game.
    pub game: u16,
}

/// The published scoring values, shared by all three rulesets.
pub const STANDARD_SCORING: ScoringTable = ScoringTable {
    safety: 100,
    all_safeties: 300,
    coup_fourre: 300,
    trip: 400,
    delayed_action: 300,
    safe_trip: 300,
    extension: 200,
    shut_out: 500,
    game: 5000,
};

/// How a game is set up: which rules, how many players, which variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameConfig {
    /// The ruleset.
    pub rules: RulesetId,
    /// Number of seats (2, 3, 4 or 6).
    pub players: u8,
    /// The `stacking` variant: hazards may be played on hazards (classic only).
    #[serde(default)]
    pub stacking: bool,
}

impl Default for GameConfig {
    fn default() -> Self {
        GameConfig {
            rules: RulesetId::Bsd,
            players: 2,
            stacking: false,
        }
    }
}

/// A configuration that no ruleset supports.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// BSD and Mile Bones are two-player games.
    #[error("the {0} rules are for exactly 2 players; use --rules classic for {1} players")]
    TwoPlayersOnly(RulesetId, u8),
    /// Classic supports 2, 3, 4 or 6.
    #[error("Mille Bornes is played by 2, 3, 4 or 6 players, not {0}")]
    BadPlayerCount(u8),
    /// Stacking is a classic variant, asked for under other rules.
    #[error(
        "--stacking is a variant of the classic rules, not of the {0} rules: use --rules classic --stacking"
    )]
    StackingNeedsClassic(RulesetId),
}

/// The full, resolved rules of one game: everything the engine consults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The configuration these rules were built from.
    pub config: GameConfig,
    /// Cards in the deck, per kind.
    pub deck: [u8; KINDS],
    /// Number of seats.
    pub seats: u8,
    /// Number of sides.
    pub teams: u8,
    /// Trip length before any extension.
    pub target: u16,
    /// Trip length after an extension, if extensions are allowed.
    pub extended_target: Option<u16>,
    /// Coup fourré timing.
    pub coup_timing: CoupTiming,
    /// bsd decision 1: a safety on its hazard lets the side go at once.
    /// When false (classic decision 7) the side still needs a Go unless it
    /// has Right of Way.
    pub safety_lets_go: bool,
    /// Whether safeties may be discarded (not in bsd, decision 3).
    pub safeties_discardable: bool,
    /// Whether a hazard may be played on a hazard (variant `stacking`).
    pub stacking: bool,
    /// How a hand runs out.
    pub hand_end: HandEnd,
    /// Who gets the extension bonus.
    pub extension_scoring: ExtensionScoring,
    /// Points per item.
    pub scoring: ScoringTable,
    /// Cards dealt to each seat.
    pub hand_size: u8,
    /// The team of each seat (a table: this is asked on every move).
    pub seat_team: [u8; MAX_SEATS],
}

/// The 101-card deck (BSD, Mile Bones, and classic for 2 or 3 players).
pub const DECK_101: [u8; KINDS] = [10, 10, 10, 12, 4, 2, 2, 2, 3, 4, 6, 6, 6, 6, 14, 1, 1, 1, 1];
/// The 106-card deck of the published rules.
pub const DECK_106: [u8; KINDS] = [10, 10, 10, 12, 4, 3, 3, 3, 4, 5, 6, 6, 6, 6, 14, 1, 1, 1, 1];

impl Rules {
    /// Resolves a configuration into rules, or says why it is not playable.
    pub fn new(config: GameConfig) -> Result<Rules, ConfigError> {
        let n = config.players;
        if !matches!(n, 2 | 3 | 4 | 6) {
            return Err(ConfigError::BadPlayerCount(n));
        }
        if config.rules != RulesetId::Classic {
            // Stacking first: with it the advice is classic whatever the
            // player count, and following it also fixes the count.
            if config.stacking {
                return Err(ConfigError::StackingNeedsClassic(config.rules));
            }
            if n != 2 {
                return Err(ConfigError::TwoPlayersOnly(config.rules, n));
            }
        }
        let teams = match n {
            4 => 2,
            6 => 3,
            _ => n,
        };
        let classic = config.rules == RulesetId::Classic;
        let deck = if classic && n >= 4 {
            DECK_106
        } else {
            DECK_101
        };
        let (target, extended_target) = if n == 4 {
            (1000, None)
        } else {
            (700, Some(1000))
        };
        Ok(Rules {
            config,
            deck,
            seats: n,
            teams,
            target,
            extended_target,
            coup_timing: if classic {
                CoupTiming::Immediate
            } else {
                CoupTiming::VictimsTurn
            },
            safety_lets_go: config.rules == RulesetId::Bsd,
            safeties_discardable: config.rules != RulesetId::Bsd,
            stacking: config.stacking,
            hand_end: if config.rules == RulesetId::Bsd {
                HandEnd::NobodyCanPlay
            } else {
                HandEnd::HandsEmpty
            },
            extension_scoring: if classic {
                ExtensionScoring::CallerOrOpponents
            } else {
                ExtensionScoring::ToCompleter
            },
            scoring: STANDARD_SCORING,
            hand_size: 6,
            seat_team: [0, 1, 2, 3, 4, 5].map(|s| s % teams),
        })
    }

    /// The side a seat plays for: 4 players are 0+2 against 1+3, 6 players
    /// are 0+3, 1+4 and 2+5.
    #[inline]
    pub const fn team_of(&self, seat: u8) -> u8 {
        // A clamp, not `%`: this runs several times a move, and a seat past
        // the table is a caller's bug either way.
        let i = seat as usize;
        self.seat_team[if i < MAX_SEATS { i } else { MAX_SEATS - 1 }]
    }

    /// Total number of cards in the deck.
    pub fn deck_size(&self) -> u32 {
        self.deck.iter().map(|&n| u32::from(n)).sum()
    }

    /// How many copies of a card the deck holds.
    #[inline]
    pub const fn copies(&self, c: Card) -> u8 {
        self.deck[c as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(r: RulesetId, players: u8) -> Result<Rules, ConfigError> {
        Rules::new(GameConfig {
            rules: r,
            players,
            stacking: false,
        })
    }

    #[test]
    fn decks_have_the_published_sizes() {
        assert_eq!(rules(RulesetId::Bsd, 2).map(|r| r.deck_size()), Ok(101));
        assert_eq!(rules(RulesetId::Classic, 3).map(|r| r.deck_size()), Ok(101));
        assert_eq!(rules(RulesetId::Classic, 4).map(|r| r.deck_size()), Ok(106));
        assert_eq!(rules(RulesetId::Classic, 6).map(|r| r.deck_size()), Ok(106));
    }

    #[test]
    fn seat_counts_are_checked() {
        assert!(matches!(
            rules(RulesetId::Bsd, 3),
            Err(ConfigError::TwoPlayersOnly(..))
        ));
        assert!(matches!(
            rules(RulesetId::Classic, 5),
            Err(ConfigError::BadPlayerCount(5))
        ));
    }

    #[test]
    fn stacking_is_refused_outside_classic_with_what_to_do() {
        for (r, players) in [(RulesetId::Bsd, 2), (RulesetId::Milebones, 3)] {
            let err = Rules::new(GameConfig {
                rules: r,
                players,
                stacking: true,
            })
            .expect_err("stacking is classic only");
            assert_eq!(err, ConfigError::StackingNeedsClassic(r));
            assert_eq!(
                err.to_string(),
                format!(
                    "--stacking is a variant of the classic rules, not of the {} rules: use --rules classic --stacking",
                    r.id()
                )
            );
        }
    }

    #[test]
    fn teams_and_targets() {
        let r4 = rules(RulesetId::Classic, 4).expect("4 players");
        assert_eq!((r4.teams, r4.target, r4.extended_target), (2, 1000, None));
        assert_eq!([0, 1, 2, 3].map(|s| r4.team_of(s)), [0, 1, 0, 1]);
        let r6 = rules(RulesetId::Classic, 6).expect("6 players");
        assert_eq!(r6.teams, 3);
        assert_eq!(
            [0, 1, 2, 3, 4, 5].map(|s| r6.team_of(s)),
            [0, 1, 2, 0, 1, 2]
        );
        assert_eq!(r6.extended_target, Some(1000));
    }
}
