//! The commands of the game as one table, [`COMMANDS`], that every list of
//! them formats: the help screen and the score window of the full screen,
//! the plain mode's help, `mille --help` and the man page. A command added,
//! renamed or reworded here changes them all, so they cannot disagree.

use mille_engine::Rules;

/// One command typed during a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameCommand {
    /// The key: a capital letter, or a sign ("?").
    pub key: &'static str,
    /// What is typed after the key, if anything ("n" for U and D).
    pub arg: &'static str,
    /// Other keys that do the same ("DEL" for Q), if any.
    pub also: &'static str,
    /// One or two words for the score window's short list.
    pub word: &'static str,
    /// What the command does, in a line of the full screen's help.
    pub does: &'static str,
    /// What the man page adds after `does`: the details a player may need
    /// once, too long for the help screen.
    pub details: &'static str,
    /// What the command does in the plain mode, where it is typed in lower
    /// case; `None` where the plain mode has no such command.
    pub plain: Option<&'static str>,
}

impl GameCommand {
    /// The keys as the full screen's lists show them: "U n", "R, ^L".
    pub fn keys(&self) -> String {
        let mut s = self.key.to_string();
        if !self.arg.is_empty() {
            s.push(' ');
            s.push_str(self.arg);
        }
        if !self.also.is_empty() {
            s.push_str(", ");
            s.push_str(self.also);
        }
        s
    }

    /// The command as typed in the plain mode: "u n".
    pub fn plain_keys(&self) -> String {
        let mut s = self.key.to_lowercase();
        if !self.arg.is_empty() {
            s.push(' ');
            s.push_str(self.arg);
        }
        s
    }
}

/// Every command of the game, in the order the lists show them.
pub const COMMANDS: &[GameCommand] = &[
    GameCommand {
        key: "P",
        arg: "",
        also: "",
        word: "pick",
        does: "pick a card from the deck (or let a coup fourré chance pass)",
        details: "The card goes into slot P. When a hazard was just played on you and you \
                  hold its safety, P lets the chance pass, then picks.",
        plain: Some("pick a card from the deck (or let a coup fourré chance pass)"),
    },
    GameCommand {
        key: "U",
        arg: "n",
        also: "",
        word: "use card",
        does: "use (play) card n: 1-6 or P, then RETURN or SPACE",
        details: "P is the card just picked. A hazard goes on an opponent; with several, \
                  you are asked which side, by the number in its name (1 for Computer 1, \
                  or 2 for Team 2).",
        plain: Some("use (play) card n: 1 to 6, or p for the card just picked (u3, u p)"),
    },
    GameCommand {
        key: "D",
        arg: "n",
        also: "",
        word: "discard",
        does: "discard card n, then RETURN or SPACE (a typo never discards)",
        details: "Nothing happens before RETURN, so a typo never throws a card away; \
                  RETURN alone cancels. The bsd rules never let a safety be discarded; \
                  under classic and milebones the game asks first.",
        plain: Some("discard card n (d4)"),
    },
    GameCommand {
        key: "O",
        arg: "",
        also: "",
        word: "sort",
        does: "sort on/off (remembered)",
        details: "The hand is shown sorted, or in the order the cards came.",
        plain: Some("keep your hand sorted, or not (remembered)"),
    },
    GameCommand {
        key: "S",
        arg: "",
        also: "",
        word: "save",
        does: "save the game in a file",
        details: "A restored game offers its own file; otherwise you type a file name, \
                  and RETURN alone cancels.",
        plain: Some("save the game (asks for the file; an empty line cancels)"),
    },
    GameCommand {
        key: "Q",
        arg: "",
        also: "DEL",
        word: "quit",
        does: "quit (asks first)",
        details: "A game with unsaved moves offers to save first. ^C leaves at once, \
                  without a question: the game is kept, and the next mille offers to \
                  resume it.",
        plain: Some("quit (asks first)"),
    },
    GameCommand {
        key: "R",
        arg: "",
        also: "^L",
        word: "redraw",
        does: "redraw the screen",
        details: "",
        plain: Some("print the board again"),
    },
    GameCommand {
        key: "W",
        arg: "",
        also: "",
        word: "window",
        does: "switch the score window",
        details: "The score window shows the list of commands or the bonuses \
                  (remembered).",
        plain: Some("print the score window"),
    },
    GameCommand {
        key: "Z",
        arg: "",
        also: "",
        word: "undo",
        does: "take back your last move",
        details: "Your last play, discard or coup fourré answer of the hand, with the \
                  computer's replies; never past the start of the hand, nor past an \
                  answer to the extension question.",
        plain: Some("take back your last move"),
    },
    GameCommand {
        key: "M",
        arg: "",
        also: "",
        word: "mouse",
        does: "mouse: click-click or drag",
        details: "Click a card then where it goes, or drag and drop it there \
                  (remembered).",
        plain: None,
    },
    GameCommand {
        key: "?",
        arg: "",
        also: "",
        word: "help",
        does: "show the help",
        details: "The commands, the mouse and the rules in brief.",
        plain: Some("this help"),
    },
];

/// Where the commands are typed: not every command works everywhere, and
/// the lists show only those that do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A game against the computer at this terminal: every command.
    Here,
    /// A seat at a table server, which keeps the game: no save, no undo
    /// (a move made there is made for everyone).
    Shared,
    /// Watching a table at a table server: no hand to play or sort, no
    /// mouse play; Q goes back to the lobby.
    Watching,
}

impl GameCommand {
    /// Whether the command works at `place`.
    pub fn works(&self, place: Place) -> bool {
        match place {
            Place::Here => true,
            Place::Shared => !matches!(self.key, "S" | "Z"),
            Place::Watching => matches!(self.key, "Q" | "R" | "W" | "?"),
        }
    }
}

/// The commands that work at `place`, in the order the lists show them,
/// as they are said there (a spectator's Q goes back to the lobby).
pub fn commands_at(place: Place) -> Vec<GameCommand> {
    COMMANDS
        .iter()
        .filter(|c| c.works(place))
        .map(|&c| match (place, c.key) {
            (Place::Watching, "Q") => GameCommand {
                word: "lobby",
                does: "back to the lobby (asks first)",
                ..c
            },
            // A seat at a table server is left, not the program quit; a
            // game in progress asks first, and so does n at the end of a
            // hand there.
            (Place::Shared, "Q") => GameCommand {
                word: "leave",
                does: "leave the table (asks first)",
                ..c
            },
            _ => c,
        })
        .collect()
}

/// The goal of the game under `rules`, first line of both helps.
pub fn goal(rules: &Rules) -> String {
    let extended = match rules.extended_target {
        Some(e) => format!(" ({e} if extended)"),
        None => String::new(),
    };
    format!(
        "Race to exactly {} miles{extended}; {} points wins the game.",
        rules.target, rules.scoring.game
    )
}

/// The rules in brief under `rules`, last paragraph of both helps (lines
/// of at most 74 characters, the width of the help screen).
pub fn rules_in_brief(rules: &Rules) -> Vec<String> {
    vec![
        "Hazards go on an opponent whose Go is showing; a remedy repairs your own".into(),
        "hazard; safeties protect for the whole hand and give another turn.".into(),
        "When a hazard hits you and you hold its safety, answer with U on it before".into(),
        format!(
            "picking: that is a coup fourré (+{}).",
            rules.scoring.coup_fourre
        ),
    ]
}

/// Mouse play, for the help screen and `mille --help` (lines of at most
/// 74 characters).
pub const MOUSE: &[&str] = &[
    "Mouse: click a card, then click where it goes (a side's piles, or the",
    "discard pile); or drag it there. Double-click plays a card if it can,",
    "else discards it. Click the deck to pick.",
];

/// Width of the keys column in [`help_lines`] (room for "Q, DEL" and
/// longer keys, and two spaces).
const KEYS_W: usize = 12;
/// Width of the keys column in [`plain_lines`] ("u n" and room).
const PLAIN_KEYS_W: usize = 9;
/// Where the second command of a line starts in [`help_lines`].
const SECOND_COL: usize = 40;
/// Width of the lines of [`help_lines`]: the help screen's inside.
pub const HELP_W: usize = 74;

/// The commands as the full screen's help and `mille --help` list them:
/// the keys in a column, then what the command does; two short commands
/// share a line, so the list fits the help screen on a 24-line terminal.
pub fn help_lines() -> Vec<String> {
    help_lines_at(Place::Here)
}

/// [`help_lines`] of the commands that work at `place`.
pub fn help_lines_at(place: Place) -> Vec<String> {
    let commands = commands_at(place);
    let mut lines = Vec::new();
    let mut i = 0;
    while i < commands.len() {
        let c = &commands[i];
        let first = format!("{:<KEYS_W$}{}", c.keys(), c.does);
        let second = commands
            .get(i + 1)
            .map(|n| format!("{}  {}", n.keys(), n.does))
            .filter(|s| {
                // Two spaces at least between the two commands.
                first.chars().count() + 2 <= SECOND_COL && SECOND_COL + s.chars().count() <= HELP_W
            });
        match second {
            Some(s) => {
                lines.push(format!("{first:<SECOND_COL$}{s}"));
                i += 2;
            }
            None => {
                lines.push(first);
                i += 1;
            }
        }
    }
    lines
}

/// The commands as the plain mode lists them: as typed there, one a line.
pub fn plain_lines() -> Vec<String> {
    COMMANDS
        .iter()
        .filter_map(|c| {
            c.plain
                .map(|does| format!("{:<PLAIN_KEYS_W$}{does}", c.plain_keys()))
        })
        .collect()
}

/// The score window's short list: two commands a line, key and word.
pub fn score_window_lines() -> Vec<String> {
    score_window_lines_at(Place::Here)
}

/// [`score_window_lines`] of the commands that work at `place`.
pub fn score_window_lines_at(place: Place) -> Vec<String> {
    commands_at(place)
        .chunks(2)
        .map(|pair| {
            let item = |c: &GameCommand| format!("{} {}", c.key, c.word);
            match pair {
                [a, b] => format!("{:<13}{}", item(a), item(b)),
                [a] => item(a),
                _ => String::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::{GameConfig, RulesetId};

    #[test]
    fn every_help_line_fits_the_help_screen() {
        let every_rules = [
            (RulesetId::Bsd, 2),
            (RulesetId::Milebones, 2),
            (RulesetId::Classic, 4),
        ]
        .map(|(rules, players)| {
            Rules::new(GameConfig {
                rules,
                players,
                stacking: false,
            })
            .expect("rules")
        });
        for rules in &every_rules {
            for l in help_lines()
                .into_iter()
                .chain(rules_in_brief(rules))
                .chain(MOUSE.iter().map(|l| l.to_string()))
                .chain([goal(rules)])
            {
                assert!(l.chars().count() <= HELP_W, "too long: {l:?}");
            }
        }
        // The plain mode prints its lines as they are: an 80-column
        // terminal must not wrap them.
        for l in plain_lines() {
            assert!(l.chars().count() < 80, "too long: {l:?}");
        }
    }

    #[test]
    fn each_place_lists_only_the_commands_that_work_there() {
        let keys = |place| -> Vec<&str> { commands_at(place).iter().map(|c| c.key).collect() };
        assert_eq!(keys(Place::Here).len(), COMMANDS.len());
        assert_eq!(
            keys(Place::Shared),
            ["P", "U", "D", "O", "Q", "R", "W", "M", "?"]
        );
        assert_eq!(keys(Place::Watching), ["Q", "R", "W", "?"]);
        for place in [Place::Shared, Place::Watching] {
            let window = score_window_lines_at(place).join(" ");
            let help = help_lines_at(place).join(" ");
            for gone in ["S save", "Z undo"] {
                assert!(!window.contains(gone), "{place:?}: {window}");
            }
            assert!(!help.contains("save the game"), "{place:?}: {help}");
        }
        let window = score_window_lines_at(Place::Watching).join(" ");
        for gone in ["P pick", "U use", "D discard", "M mouse", "O sort"] {
            assert!(!window.contains(gone), "{window}");
        }
        assert!(window.contains("Q lobby"), "{window}");
        // A seat at a server is left, not the program quit.
        let shared = score_window_lines_at(Place::Shared).join(" ");
        assert!(shared.contains("Q leave"), "{shared}");
        assert!(
            help_lines_at(Place::Shared)
                .join(" ")
                .contains("leave the table (asks first)")
        );
        assert!(
            help_lines_at(Place::Watching)
                .join(" ")
                .contains("back to the lobby")
        );
    }

    #[test]
    fn every_command_is_in_each_list() {
        let help = help_lines().join("\n");
        let window = score_window_lines().join("\n");
        for c in COMMANDS {
            assert!(help.contains(&c.keys()), "{} missing from the help", c.key);
            assert!(help.contains(c.does), "{} missing from the help", c.key);
            assert!(
                window.contains(&format!("{} {}", c.key, c.word)),
                "{} missing from the score window",
                c.key
            );
        }
        let plain = plain_lines().join("\n");
        for c in COMMANDS.iter().filter(|c| c.plain.is_some()) {
            assert!(plain.contains(&c.plain_keys()), "{} missing", c.key);
        }
    }
}
