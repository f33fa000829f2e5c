//! Rating categories: which games are rated together. Each ruleset of a
//! game is its own ladder, and mille's `classic` one per table size (two
//! or three players alone, two or three teams of two are not one game).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A ladder: the games whose results move the same ratings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// Mille Bornes, BSD rules (2 players).
    MilleBsd,
    /// Mille Bornes, Mile Bones rules (2 players).
    MilleMilebones,
    /// Mille Bornes, classic rules, at a table of 2, 3, 4 or 6.
    MilleClassic(u8),
    /// Cubes, the standard game (any table size).
    CubesStandard,
    /// Cubes, Blitz.
    CubesBlitz,
    /// Cubes with jokers, whatever the base game.
    CubesJokers,
}

/// The table sizes of mille's classic rules.
const CLASSIC_SIZES: [u8; 4] = [2, 3, 4, 6];

impl Category {
    /// Every category, in the order ladders are offered.
    pub const ALL: [Category; 9] = [
        Category::MilleBsd,
        Category::MilleMilebones,
        Category::MilleClassic(2),
        Category::MilleClassic(3),
        Category::MilleClassic(4),
        Category::MilleClassic(6),
        Category::CubesStandard,
        Category::CubesBlitz,
        Category::CubesJokers,
    ];

    /// The id of the category (`mille-bsd`, `mille-classic-4`,
    /// `cubes-jokers`), as stored and in URLs.
    pub fn id(self) -> String {
        match self {
            Category::MilleClassic(n) => format!("mille-classic-{n}"),
            _ => format!("{}-{}", self.game(), self.rules()),
        }
    }

    /// What people read: "Mille Bornes, classic, 4 players", "Cubes, with
    /// jokers".
    pub fn title(self) -> String {
        match self {
            Category::MilleBsd => "Mille Bornes, bsd".to_string(),
            Category::MilleMilebones => "Mille Bornes, milebones".to_string(),
            Category::MilleClassic(n) => format!("Mille Bornes, classic, {n} players"),
            Category::CubesStandard => "Cubes, standard".to_string(),
            Category::CubesBlitz => "Cubes, blitz".to_string(),
            Category::CubesJokers => "Cubes, with jokers".to_string(),
        }
    }

    /// The game: `mille` or `cubes` (as the protocol spells it).
    pub fn game(self) -> &'static str {
        match self {
            Category::MilleBsd | Category::MilleMilebones | Category::MilleClassic(_) => "mille",
            Category::CubesStandard | Category::CubesBlitz | Category::CubesJokers => "cubes",
        }
    }

    /// The ruleset as a `ladder` request names it: `bsd`, `milebones`,
    /// `classic`, `standard`, `blitz`, `jokers`.
    pub fn rules(self) -> &'static str {
        match self {
            Category::MilleBsd => "bsd",
            Category::MilleMilebones => "milebones",
            Category::MilleClassic(_) => "classic",
            Category::CubesStandard => "standard",
            Category::CubesBlitz => "blitz",
            Category::CubesJokers => "jokers",
        }
    }

    /// The table size, for a category rated by size (mille `classic`).
    pub fn players(self) -> Option<usize> {
        match self {
            Category::MilleClassic(n) => Some(usize::from(n)),
            _ => None,
        }
    }

    /// The category of an id ([`Category::id`]); `None` for anything else.
    pub fn parse(id: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.id() == id)
    }

    /// From a `ladder` request or a URL: game `mille` or `cubes`, rules
    /// (`None`: the game's first, bsd or standard) and table size (`None`:
    /// 2; cubes is rated alike at every size, so its size is not looked
    /// at). The error is a sentence for the person who asked.
    pub fn from_request(
        game: &str,
        rules: Option<&str>,
        players: Option<usize>,
    ) -> Result<Category, String> {
        match game {
            "mille" => {
                let players = players.unwrap_or(2);
                match rules.unwrap_or("bsd") {
                    rules @ ("bsd" | "milebones") => {
                        if players != 2 {
                            return Err(format!(
                                "the {rules} rules are for exactly 2 players; \
                                 {players} players play the classic rules"
                            ));
                        }
                        Ok(if rules == "bsd" {
                            Category::MilleBsd
                        } else {
                            Category::MilleMilebones
                        })
                    }
                    "classic" => CLASSIC_SIZES
                        .into_iter()
                        .find(|&n| usize::from(n) == players)
                        .map(Category::MilleClassic)
                        .ok_or_else(|| {
                            format!("Mille Bornes is played by 2, 3, 4 or 6 players, not {players}")
                        }),
                    other => Err(format!(
                        "mille has no rules {other:?}: bsd, classic or milebones"
                    )),
                }
            }
            "cubes" => match rules.unwrap_or("standard") {
                "standard" => Ok(Category::CubesStandard),
                "blitz" => Ok(Category::CubesBlitz),
                "jokers" => Ok(Category::CubesJokers),
                other => Err(format!(
                    "cubes has no rules {other:?}: standard, blitz or jokers"
                )),
            },
            other => Err(format!("there is no game {other:?}: mille or cubes")),
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id())
    }
}

/// A category is written as its id.
impl Serialize for Category {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.id())
    }
}

impl<'de> Deserialize<'de> for Category {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Category, D::Error> {
        let id = String::deserialize(d)?;
        Category::parse(&id)
            .ok_or_else(|| serde::de::Error::custom(format!("no rating category {id:?}")))
    }
}
