//! Rulesets as data: deck, seats and teams, targets, switches and the
//! scoring table of `bsd`, `classic` and `milebones` (see `rules.md`), and
//! the bounds every ruleset and every view's numbers are checked against
//! before they enter the engine, so that every count fits its pile and
//! every score its integer.

use crate::card::{Card, KINDS};
use crate::seat::Seat;
use crate::view::View;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Most seats at a table.
pub const MAX_SEATS: usize = 6;
/// Most sides (teams or lone players) in a game.
pub const MAX_TEAMS: usize = 3;
/// Cards in the largest deck.
pub const MAX_DECK_CARDS: usize = 106;
/// Shortest trip a ruleset may set, in miles.
pub const MIN_TARGET: u16 = 50;
/// Longest trip a ruleset may set, extension included, in miles. With the
/// items below, the best possible hand scores
/// [`MAX_TARGET`] + 11 × [`MAX_ITEM_POINTS`] + 2 × [`MAX_ITEM_POINTS`]
/// (shut-outs), far within the `u16` of a hand score.
pub const MAX_TARGET: u16 = 5000;
/// Most points one scoring item (a safety, the trip, a shut-out...) may
/// be worth.
pub const MAX_ITEM_POINTS: u16 = 1000;
/// The range of the total that ends a game, in points. Totals are `u32`:
/// one hand adds at most a `u16` to a total below the end.
pub const GAME_POINTS: (u16, u16) = (1000, 50_000);
/// Most cards dealt to a seat: a hand grows by the turn's draw and by a
/// coup fourré's replacement, and holds at most `state::MAX_HAND` (8).
pub const MAX_HAND_SIZE: u8 = 6;

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
    /// Every ruleset.
    pub const ALL: [RulesetId; 3] = [RulesetId::Bsd, RulesetId::Classic, RulesetId::Milebones];

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
///
/// A field it does not know is refused rather than ignored: a setup asking
/// for a variant this version does not play must not start another game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameConfig {
    /// The ruleset.
    pub rules: RulesetId,
    /// Number of seats (2, 3, 4 or 6).
    pub players: u8,
    /// The `stacking` variant: hazards may be played on hazards (classic only).
    #[serde(default)]
    pub stacking: bool,
}

impl GameConfig {
    /// Every configuration the engine plays (each ruleset at each of its
    /// seat counts, and the `stacking` variant where it exists): what
    /// tests, fuzzers and soaks go through.
    pub fn every() -> impl Iterator<Item = GameConfig> {
        RulesetId::ALL
            .into_iter()
            .flat_map(|rules| {
                [2, 3, 4, 6].into_iter().flat_map(move |players| {
                    [false, true].into_iter().map(move |stacking| GameConfig {
                        rules,
                        players,
                        stacking,
                    })
                })
            })
            .filter(|&config| Rules::new(config).is_ok())
    }
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

/// A configuration that no ruleset supports, or a number of the rules (or
/// of a view) outside the bounds the engine counts within.
///
/// The sentences speak of the rules only: a program that took the
/// configuration from its command line adds which option to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// BSD and Mile Bones are two-player games.
    #[error("the {0} rules are for exactly 2 players; {1} players play the classic rules")]
    TwoPlayersOnly(RulesetId, u8),
    /// Classic supports 2, 3, 4 or 6.
    #[error("Mille Bornes is played by 2, 3, 4 or 6 players, not {0}")]
    BadPlayerCount(u8),
    /// Stacking is a classic variant, asked for under other rules.
    #[error("stacking is a variant of the classic rules, not of the {0} rules")]
    StackingNeedsClassic(RulesetId),
    /// A number outside its allowed range.
    #[error("{0}")]
    OutOfRange(OutOfRange),
}

/// A number of the rules or of a view outside its allowed range. Its
/// sentence names the field and the range: "target must be 50 to 5000
/// miles, not 70000".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfRange {
    /// The field, as the rules or the view name it (`target`,
    /// `scoring.trip`, `teams[1].score.game`).
    pub field: String,
    /// The smallest allowed value.
    pub min: u64,
    /// The largest allowed value.
    pub max: u64,
    /// What the number counts (`miles`, `points`, `cards`), or empty.
    pub unit: &'static str,
    /// The value found.
    pub value: u64,
}

impl fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        if self.min == self.max {
            write!(f, "{} must be {}{unit}", self.field, self.max)?;
        } else {
            write!(
                f,
                "{} must be {} to {}{unit}",
                self.field, self.min, self.max
            )?;
        }
        write!(f, ", not {}", self.value)
    }
}

/// `Ok` when `value` is in `min..=max`, else the [`ConfigError`] naming
/// `field`.
fn within(
    field: impl Into<String>,
    value: impl Into<u64>,
    (min, max): (u64, u64),
    unit: &'static str,
) -> Result<(), ConfigError> {
    let value = value.into();
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::OutOfRange(OutOfRange {
            field: field.into(),
            min,
            max,
            unit,
            value,
        }))
    }
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
        Rules {
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
        }
        .checked()
    }

    /// The rules if every number is within the engine's bounds (see
    /// [`Rules::check`]).
    fn checked(self) -> Result<Rules, ConfigError> {
        self.check()?;
        Ok(self)
    }

    /// Checks every number of the rules against the bounds that keep the
    /// engine's counts and scores in range: 2 to [`MAX_SEATS`] seats, 2 to
    /// [`MAX_TEAMS`] sides (no more than seats), each seat on one of them,
    /// 1 to [`MAX_HAND_SIZE`] cards dealt, a deck that deals every hand and
    /// fits [`MAX_DECK_CARDS`], a trip of [`MIN_TARGET`] to [`MAX_TARGET`]
    /// miles (an extension longer, within the same bound), scoring items of
    /// at most [`MAX_ITEM_POINTS`] and a game end within [`GAME_POINTS`].
    /// Every ruleset [`Rules::new`] builds passes; a ruleset from anywhere
    /// else must be checked before a game is played under it.
    pub fn check(&self) -> Result<(), ConfigError> {
        let seats = u64::from(self.seats);
        within("seats", self.seats, (2, MAX_SEATS as u64), "")?;
        within("teams", self.teams, (2, seats.min(MAX_TEAMS as u64)), "")?;
        for (s, &team) in self.seat_team.iter().enumerate().take(self.seats.into()) {
            within(
                format!("seat_team[{s}]"),
                team,
                (0, u64::from(self.teams) - 1),
                "",
            )?;
        }
        within(
            "hand_size",
            self.hand_size,
            (1, u64::from(MAX_HAND_SIZE)),
            "cards",
        )?;
        within(
            "deck",
            self.deck_size(),
            (seats * u64::from(self.hand_size), MAX_DECK_CARDS as u64),
            "cards",
        )?;
        within(
            "target",
            self.target,
            (u64::from(MIN_TARGET), u64::from(MAX_TARGET)),
            "miles",
        )?;
        if let Some(e) = self.extended_target {
            within(
                "extended_target",
                e,
                (u64::from(self.target) + 1, u64::from(MAX_TARGET)),
                "miles",
            )?;
        }
        let sc = &self.scoring;
        for (field, points) in [
            ("scoring.safety", sc.safety),
            ("scoring.all_safeties", sc.all_safeties),
            ("scoring.coup_fourre", sc.coup_fourre),
            ("scoring.trip", sc.trip),
            ("scoring.delayed_action", sc.delayed_action),
            ("scoring.safe_trip", sc.safe_trip),
            ("scoring.extension", sc.extension),
            ("scoring.shut_out", sc.shut_out),
        ] {
            within(field, points, (0, u64::from(MAX_ITEM_POINTS)), "points")?;
        }
        within(
            "scoring.game",
            sc.game,
            (u64::from(GAME_POINTS.0), u64::from(GAME_POINTS.1)),
            "points",
        )
    }

    /// The longest trip of a hand under these rules (the extended one when
    /// extensions are allowed).
    pub fn longest_trip(&self) -> u16 {
        self.extended_target.unwrap_or(self.target).max(self.target)
    }

    /// The most points one side can score in one hand: every mile of the
    /// longest trip and every item at once. Within a `u16` for every
    /// ruleset that passes [`Rules::check`].
    pub fn max_hand_score(&self) -> u32 {
        let sc = &self.scoring;
        let p = u32::from;
        p(self.longest_trip())
            + 4 * p(sc.safety)
            + p(sc.all_safeties)
            + 4 * p(sc.coup_fourre)
            + p(sc.trip)
            + p(sc.delayed_action)
            + p(sc.safe_trip)
            + p(sc.extension)
            + p(sc.shut_out) * (u32::from(self.teams).saturating_sub(1))
    }

    /// Checks the numbers a view brings into a game under these rules (a
    /// view from the network may claim anything): the trip is one of this
    /// game's, from its target to its longest trip; no side has gone past
    /// it; every game total is below the end of the game (a hand is only
    /// played while all are); every hand score is one a hand can reach.
    /// With these, a state sampled from the view counts within its
    /// integers like a dealt game. The view's structure (seats, teams,
    /// cards) is checked by `view::rules_of`.
    pub fn check_view(&self, view: &View) -> Result<(), ConfigError> {
        within(
            "target",
            view.target,
            (u64::from(self.target), u64::from(self.longest_trip())),
            "miles",
        )?;
        let end = u64::from(self.scoring.game);
        for (i, t) in view.teams.iter().enumerate() {
            let miles = t
                .distance
                .iter()
                .fold(0u64, |m, c| m + u64::from(c.miles()));
            within(
                format!("the distance of teams[{i}]"),
                miles,
                (0, u64::from(view.target)),
                "miles",
            )?;
            within(
                format!("teams[{i}].score.hand"),
                t.score.hand,
                (0, u64::from(self.max_hand_score())),
                "points",
            )?;
            within(
                format!("teams[{i}].score.game"),
                t.score.game,
                (0, end.saturating_sub(1)),
                "points",
            )?;
        }
        Ok(())
    }

    /// The side a seat plays for: 4 players are 0+2 against 1+3, 6 players
    /// are 0+3, 1+4 and 2+5.
    #[inline]
    pub const fn team_of(&self, seat: Seat) -> u8 {
        self.seat_team[seat.index()]
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

    #[test]
    fn every_playable_configuration_is_listed_once() {
        let every: Vec<GameConfig> = GameConfig::every().collect();
        let id = |c: &GameConfig| (c.rules.id(), c.players, c.stacking);
        let mut ids: Vec<_> = every.iter().map(id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), every.len());
        // bsd and milebones for 2; classic for 2, 3, 4 and 6, with and
        // without stacking.
        assert_eq!(every.len(), 10, "{ids:?}");
        assert!(every.contains(&GameConfig::default()));
    }

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
    fn stacking_is_refused_outside_classic_in_words_of_the_rules() {
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
                    "stacking is a variant of the classic rules, not of the {} rules",
                    r.id()
                )
            );
        }
    }

    /// One example of every configuration error.
    fn every_config_error() -> Vec<ConfigError> {
        let mut errors = vec![
            ConfigError::TwoPlayersOnly(RulesetId::Bsd, 3),
            ConfigError::BadPlayerCount(5),
            ConfigError::StackingNeedsClassic(RulesetId::Milebones),
        ];
        let base = rules(RulesetId::Classic, 6).expect("6 players");
        for change in out_of_range_changes() {
            let mut r = base;
            change.0(&mut r);
            errors.push(r.check().expect_err(change.1));
        }
        errors
    }

    /// Changes that each put one number of a valid ruleset out of range,
    /// with the sentence expected.
    #[allow(clippy::type_complexity)]
    fn out_of_range_changes() -> Vec<(fn(&mut Rules), &'static str)> {
        vec![
            (
                |r| r.target = 6000,
                "target must be 50 to 5000 miles, not 6000",
            ),
            (|r| r.target = 0, "target must be 50 to 5000 miles, not 0"),
            (
                |r| r.extended_target = Some(600),
                "extended_target must be 701 to 5000 miles, not 600",
            ),
            (
                |r| r.extended_target = Some(u16::MAX),
                "extended_target must be 701 to 5000 miles, not 65535",
            ),
            (|r| r.seats = 7, "seats must be 2 to 6, not 7"),
            (|r| r.seats = 255, "seats must be 2 to 6, not 255"),
            (|r| r.teams = 4, "teams must be 2 to 3, not 4"),
            (|r| r.seat_team[5] = 6, "seat_team[5] must be 0 to 2, not 6"),
            (|r| r.hand_size = 7, "hand_size must be 1 to 6 cards, not 7"),
            (|r| r.hand_size = 0, "hand_size must be 1 to 6 cards, not 0"),
            (|r| r.deck[0] = 200, "deck must be 36 to 106 cards, not 296"),
            (
                |r| r.deck = [1; KINDS],
                "deck must be 36 to 106 cards, not 19",
            ),
            (
                |r| r.scoring.trip = 4000,
                "scoring.trip must be 0 to 1000 points, not 4000",
            ),
            (
                |r| r.scoring.shut_out = u16::MAX,
                "scoring.shut_out must be 0 to 1000 points, not 65535",
            ),
            (
                |r| r.scoring.game = 60_000,
                "scoring.game must be 1000 to 50000 points, not 60000",
            ),
        ]
    }

    #[test]
    fn every_built_in_ruleset_is_within_the_bounds() {
        let mut seen = 0;
        for r in [RulesetId::Bsd, RulesetId::Classic, RulesetId::Milebones] {
            for players in 0..=u8::MAX {
                for stacking in [false, true] {
                    let config = GameConfig {
                        rules: r,
                        players,
                        stacking,
                    };
                    if let Ok(rules) = Rules::new(config) {
                        assert_eq!(rules.check(), Ok(()), "{config:?}");
                        seen += 1;
                    }
                }
            }
        }
        // bsd and milebones at 2, classic at 2, 3, 4, 6 with and without
        // stacking.
        assert_eq!(seen, 10);
    }

    #[test]
    fn out_of_range_rules_are_refused_naming_the_field_and_range() {
        let base = rules(RulesetId::Classic, 6).expect("6 players");
        for (change, sentence) in out_of_range_changes() {
            let mut r = base;
            change(&mut r);
            let err = r.check().expect_err(sentence);
            assert!(matches!(err, ConfigError::OutOfRange(_)), "{err:?}");
            assert_eq!(err.to_string(), sentence);
        }
    }

    #[test]
    fn the_bounds_keep_every_hand_score_within_a_u16() {
        // The largest ruleset the bounds allow.
        let mut r = rules(RulesetId::Classic, 6).expect("6 players");
        r.target = MAX_TARGET - 1;
        r.extended_target = Some(MAX_TARGET);
        let m = MAX_ITEM_POINTS;
        r.scoring = ScoringTable {
            safety: m,
            all_safeties: m,
            coup_fourre: m,
            trip: m,
            delayed_action: m,
            safe_trip: m,
            extension: m,
            shut_out: m,
            game: GAME_POINTS.1,
        };
        assert_eq!(r.check(), Ok(()));
        assert!(r.max_hand_score() <= u32::from(u16::MAX));
        // A total below the end plus the best hand fits a u32 many times.
        let worst = u64::from(GAME_POINTS.1) + u64::from(r.max_hand_score());
        assert!(worst < u64::from(u32::MAX));
        // A hand can hold the dealt cards, the draw and a coup fourré's
        // replacement.
        assert!(usize::from(MAX_HAND_SIZE) + 2 <= crate::state::MAX_HAND);
        assert!(r.deck_size() as usize <= MAX_DECK_CARDS);
        assert_eq!(
            rules(RulesetId::Bsd, 2).map(|r| r.max_hand_score()),
            Ok(1000 + 400 + 300 + 1200 + 400 + 300 + 300 + 200 + 500)
        );
    }

    #[test]
    fn engine_sentences_name_no_command_line_flag() {
        for e in every_config_error() {
            let text = e.to_string();
            assert!(!text.contains("--"), "{text}");
        }
        let unknown = UnknownRuleset("x".into()).to_string();
        assert!(!unknown.contains("--"), "{unknown}");
    }

    #[test]
    fn teams_and_targets() {
        let r4 = rules(RulesetId::Classic, 4).expect("4 players");
        assert_eq!((r4.teams, r4.target, r4.extended_target), (2, 1000, None));
        let teams = |r: &Rules| r.seats_iter().map(|s| r.team_of(s)).collect::<Vec<_>>();
        assert_eq!(teams(&r4), [0, 1, 0, 1]);
        let r6 = rules(RulesetId::Classic, 6).expect("6 players");
        assert_eq!(r6.teams, 3);
        assert_eq!(teams(&r6), [0, 1, 2, 0, 1, 2]);
        assert_eq!(r6.extended_target, Some(1000));
    }
}
