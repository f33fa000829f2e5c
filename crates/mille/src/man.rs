//! The man page, `mille(6)`: the title, name, options and other commands
//! come from the same clap definitions as `--help`; the synopsis is built
//! from them too (clap_mangen's leaves out the value names); the commands
//! come from the table the game's help formats (`mille_tui::commands`); the
//! other sections a player needs (cards, rules, scoring, files) are written
//! here, with the card counts and the points taken from the rules engine, so
//! the page cannot disagree with the game.
//!
//! The text is roff for `man -l`: one command per `.TP` paragraph, so roff
//! never reflows a list into a paragraph.

use clap::Command;
use mille_engine::{Card, GameConfig, Rules, RulesetId};
use std::io::{self, Write};

/// Escapes text for roff: backslashes and hyphens (so `--rules` stays two
/// ASCII hyphens when copied), and a leading dot or apostrophe, which would
/// make the line a request.
fn esc(text: &str) -> String {
    let s = text.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

/// Text from elsewhere (the table of commands) as roff: escaped, and the
/// one accented letter of the game's words as roff's own glyph, since roff
/// does not read UTF-8 unless told to. Each sentence starts a line, as
/// roff wants.
fn text(s: &str) -> String {
    esc(s).replace('é', "\\['e]").replace(". ", ".\n")
}

/// clap_mangen writes the same apostrophe preamble before each part it
/// renders: keep the first only.
fn part(
    out: &mut Vec<u8>,
    render: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut buf = Vec::new();
    render(&mut buf)?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    const PREAMBLE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
    let text = if out.is_empty() {
        text
    } else {
        text.replacen(PREAMBLE, "", 1)
    };
    out.extend_from_slice(text.as_bytes());
    Ok(())
}

/// The synopsis with every option's value name, from the clap definitions.
fn synopsis(cmd: &Command) -> String {
    let mut s = String::from(".SH SYNOPSIS\n.B mille\n");
    let mut positional = Vec::new();
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let values: Vec<String> = arg
            .get_value_names()
            .map(|v| v.iter().map(|n| n.to_string()).collect())
            .unwrap_or_default();
        if arg.is_positional() {
            positional.extend(values);
            continue;
        }
        let Some(long) = arg.get_long() else { continue };
        if matches!(long, "help" | "version") {
            continue;
        }
        let mut item = format!("[\\fB\\-\\-{}\\fR", esc(long));
        if arg.get_action().takes_values() {
            // A value that may be left out (`--connect`) is in brackets.
            let optional = arg.get_num_args().is_some_and(|n| n.min_values() == 0);
            for v in &values {
                if optional {
                    item.push_str(&format!(" [\\fI{}\\fR]", esc(v)));
                } else {
                    item.push_str(&format!(" \\fI{}\\fR", esc(v)));
                }
            }
        }
        item.push(']');
        s.push_str(&item);
        s.push('\n');
    }
    for p in positional {
        s.push_str(&format!("[\\fI{}\\fR]\n", esc(&p)));
    }
    let subs: Vec<String> = cmd
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| format!("\\fB{}\\fR", esc(c.get_name())))
        .collect();
    if !subs.is_empty() {
        s.push_str(".br\n.B mille\n");
        s.push_str(&subs.join(" | "));
        s.push_str(" [\\fIoptions\\fR]\n");
    }
    s.push_str(
        ".br\n.B mille\n\\fB\\-h\\fR | \\fB\\-\\-help\\fR | \\fB\\-V\\fR | \\fB\\-\\-version\\fR\n",
    );
    s
}

const DESCRIPTION: &str = r#".SH DESCRIPTION
\fBmille\fR plays Mille Bornes, the French card game of a car race, with
you against the computer (or at a table of three to six, in teams for four
and six).
If a \fIFILE\fR is given, the game saved in it is resumed.
.PP
It keeps the commands and the board of the BSD game \fBmille\fR(6) and
adds what Mile Bones 2.1 gave its players: a high\-score table, remembered
options, mouse play and an undo.
With \fB\-\-plain\fR it prints the board as text lines and reads one command
per line, for screen readers and scripts.
.PP
With \fB\-\-connect\fR it plays with others at a table server
(\fBmille serve\fR starts one): a lobby lists the tables to join or watch
and opens new ones, and the game is then played on the same board, each
player's name at its place.
The server keeps the game: there is no undo or save there, and the next
\fBmille \-\-connect\fR takes a player who left, or lost the connection,
back to the seat.
.PP
The screen shows, from the top, each side's safety area, battle pile, speed
pile and mileage; your hand in slots P and 1 to 6, with the number of cards
left in the deck and the top of the discard pile; and, on the right, the
score window.
Under the board come the last moves, the question being asked, a status
line and the message line: a move the rules do not allow rings the bell and
the message line says why.
"#;

/// The in-game commands, from the table every list of them formats: the
/// keys as the paragraph's tag, then what the command does and its details.
fn commands() -> String {
    let mut s = String::from(".SH COMMANDS\n");
    for c in mille_tui::commands::COMMANDS {
        let mut tag = format!("\\fB{}\\fR", esc(c.key));
        if !c.arg.is_empty() {
            tag.push_str(&format!(" \\fI{}\\fR", esc(c.arg)));
        }
        for also in c.also.split(", ").filter(|a| !a.is_empty()) {
            tag.push_str(&format!(", \\fB{}\\fR", esc(also)));
        }
        let mut does = c.does.to_string();
        if let Some(first) = does.get(..1) {
            does.replace_range(..1, &first.to_uppercase());
        }
        // An indent of 8: the widest keys that fit ("Q, DEL") still have
        // two spaces before what they do.
        s.push_str(&format!(".TP 8\n{tag}\n{}.\n", text(&does)));
        if !c.details.is_empty() {
            s.push_str(&text(c.details));
            s.push('\n');
        }
    }
    s.push_str(&commands_after());
    s
}

/// The rules of a ruleset at a table of `players` (the built-in ones
/// always resolve).
fn rules_of(rules: RulesetId, players: u8) -> Option<Rules> {
    Rules::new(GameConfig {
        rules,
        players,
        stacking: false,
    })
    .ok()
}

/// The default game's trip, its extension and the game's goal: the
/// numbers the prose below names, from the engine.
fn trip_numbers() -> (u16, u16, u16) {
    let bsd = rules_of(RulesetId::Bsd, 2);
    let trip = bsd.map_or(0, |r| r.target);
    let extended = bsd.and_then(|r| r.extended_target).unwrap_or(trip);
    (trip, extended, bsd.map_or(0, |r| r.scoring.game))
}

/// What follows the list of commands: the questions, the mouse, the plain
/// mode.
fn commands_after() -> String {
    let (trip, extended, _) = trip_numbers();
    format!(
        "{}{}",
        format_args!(
            ".PP\nAt {trip} miles you are asked whether to extend the trip to {extended}\n"
        ),
        COMMANDS_AFTER_REST
    )
}

/// The rest of [`commands_after`], free of rule numbers.
const COMMANDS_AFTER_REST: &str = r#"(\fBy\fR or \fBn\fR).
At the end of a hand or game you are asked whether to play another; saying
no asks whether to save, and if that save fails or is cancelled, play goes
on, so that \fBS\fR can be tried again.
.SS Mouse
Click a card, then click where it goes: your own side for remedies, distance
and safeties, an opponent's side for hazards, the Discard line to throw it
away; or, with the drag and drop method, drag it there.
Double\-click a card to play it if it can be played, else discard it.
Click the deck to pick.
.SS Plain mode
One command per line, as in the full screen: \fBp\fR, \fBu3\fR,
\fBd p\fR, \fBy\fR, \fBn\fR, a file name after \fBs\fR; \fBw\fR prints the
score, \fBr\fR the board again.
A refused move starts with "! " and the last line printed is always the
question being asked.
"#;

/// The cards with their counts, from the engine's decks.
fn cards() -> String {
    let mut s = String::from(".SH CARDS\n");
    let (Ok(small), Ok(big)) = (
        Rules::new(GameConfig::default()),
        Rules::new(GameConfig {
            rules: RulesetId::Classic,
            players: 4,
            stacking: false,
        }),
    ) else {
        return s;
    };
    s.push_str(&format!(
        "The number of each card in the {}\\-card deck (the \\fBbsd\\fR and \\fBmilebones\\fR rules, and \\fBclassic\\fR for two or three players) follows its name:\n",
        small.deck_size()
    ));
    s.push_str(".PP\n.nf\n.ta 22n 44n\n");
    s.push_str("\\fIHazard\tRemedy\tSafety\\fR\n");
    let named = |c: Card| format!("{} ({})", c.name(), small.copies(c));
    for hazard in [
        Card::OutOfGas,
        Card::FlatTire,
        Card::Accident,
        Card::Stop,
        Card::SpeedLimit,
    ] {
        let remedy = hazard.remedy().map(named).unwrap_or_default();
        // Right of Way answers both Stop and Speed Limit: listed once.
        let safety = match hazard {
            Card::SpeedLimit => String::new(),
            _ => hazard
                .safety()
                .map(|sf| named(sf.card()))
                .unwrap_or_default(),
        };
        s.push_str(&format!("{}\t{remedy}\t{safety}\n", named(hazard)));
    }
    s.push_str(".fi\n.PP\n");
    let distance: Vec<String> = Card::DISTANCES.into_iter().map(named).collect();
    s.push_str(&format!("Distance: {}.\n.PP\n", distance.join(", ")));
    let more: Vec<String> = Card::ALL
        .into_iter()
        .filter(|&c| big.copies(c) != small.copies(c))
        .map(|c| format!("{} ({})", c.name(), big.copies(c)))
        .collect();
    s.push_str(&format!(
        "The \\fBclassic\\fR rules for four or six players use {} cards: {}.\n",
        big.deck_size(),
        more.join(", ")
    ));
    s
}

/// The rules section: the numbers from the engine.
fn rules_section() -> String {
    let (trip, extended, game) = trip_numbers();
    let four = rules_of(RulesetId::Classic, 4).map_or(0, |r| r.target);
    let coup = rules_of(RulesetId::Bsd, 2).map_or(0, |r| r.scoring.coup_fourre);
    let failed = rules_of(RulesetId::Classic, 2).map_or(0, |r| r.scoring.extension);
    RULES
        .replace("{trip}", &trip.to_string())
        .replace("{extended}", &extended.to_string())
        .replace("{game}", &game.to_string())
        .replace("{four}", &four.to_string())
        .replace("{coup}", &coup.to_string())
        .replace("{failed}", &failed.to_string())
}

/// The rules section's text, its numbers as `{names}` that
/// [`rules_section`] fills in.
const RULES: &str = r#".SH RULES
Each hand is a race to play exactly {trip} miles of distance cards ({four} in the
four\-player game); hands are played until a side has {game} points at the end
of a hand.
.PP
A turn: pick a card from the deck, then play a card or discard one.
Distance needs a Go on top of your battle pile (or Right of Way), at most
50 a card under a Speed Limit, no more than two 200s in a hand, and never
past the goal.
.PP
Out of Gas, Flat Tire, Accident and Stop go on an opponent who can go;
Speed Limit on an opponent's speed pile.
Each remedy repairs its own hazard (Gasoline, Spare Tire, Repairs, End of
Limit, Go); after Gasoline, Spare Tire or Repairs a Go is needed again.
A safety protects its side from its hazards for the rest of the hand (Right
of Way from Stop and Speed Limit, and it is a permanent Go) and gives
another turn.
.PP
Coup fourr\['e]: when a hazard is played on you and you hold its safety,
play that safety at once, before picking: {coup} more points, and you draw and
play on.
.PP
Extension: the side that reaches exactly {trip} may extend the trip to {extended}.
The hand ends on a completed trip, or when the deck is out and the cards
left cannot be played.
.PP
\fB\-\-rules\fR chooses between three sets of rules:
.TP
.B bsd
BSD \fBmille\fR, the default for two players: a safety cannot be discarded;
played on its hazard it lets you go at once; a coup fourr\['e] is made on
your own turn, before picking.
.TP
.B classic
The published rules, the default for three to six players; four players are
two teams of two (a {four}\-mile trip, no extension), six players three teams.
A coup fourr\['e] is called at once, out of turn; after a safety you still
need a Go (unless it is Right of Way); a safety may be discarded; a failed
extension gives {failed} to each opposing side.
With \fB\-\-stacking\fR a hazard may be played on a hazard, and only the top
one must be repaired.
.TP
.B milebones
Mile Bones 2.1: the classic rules for two, but a coup fourr\['e] draws two
cards and you play on, and there is no penalty for a failed extension.
"#;

/// The points, from the engine's scoring table.
fn scoring() -> String {
    let mut s = String::from(".SH SCORING\n");
    let Ok(r) = Rules::new(GameConfig::default()) else {
        return s;
    };
    let p = r.scoring;
    s.push_str(
        "Scores are totalled at the end of every hand, whether or not a trip was completed.\n",
    );
    // A table: no blank line between its rows.
    s.push_str(".PD 0\n");
    let item = |s: &mut String, label: &str, text: String| {
        s.push_str(&format!(".TP 18\n{}\n{}\n", esc(label), text));
    };
    item(&mut s, "Milestones", "each mile played".into());
    item(
        &mut s,
        "Each Safety",
        format!("{} for each safety played", p.safety),
    );
    item(
        &mut s,
        "All 4 Safeties",
        format!("{} more for all four", p.all_safeties),
    );
    item(
        &mut s,
        "Each Coup Fourré",
        format!("{} more for each coup fourr\\['e]", p.coup_fourre),
    );
    s.push_str(".PD\n.PP\nTo the side that completes the trip only:\n.PD 0\n");
    item(&mut s, "Trip Completed", format!("{}", p.trip));
    item(
        &mut s,
        "Safe Trip",
        format!("{}, without playing a 200", p.safe_trip),
    );
    item(
        &mut s,
        "Delayed Action",
        format!("{}, completed after the deck ran out", p.delayed_action),
    );
    item(
        &mut s,
        "Extension",
        format!("{}, a 1000\\-mile trip after an extension", p.extension),
    );
    item(
        &mut s,
        "Shut-Out",
        format!("{} for each opposing side that played no miles", p.shut_out),
    );
    s.push_str(&format!(
        ".PD\n.PP\nThe game ends at the end of a hand where a side has {} points or more; the highest total wins.\nThe high\\-score table keeps the three best totals over {} and the three best spreads (the winner's lead).\n",
        p.game, p.game
    ));
    s.replace("Fourré", "Fourr\\['e]")
}

const FILES: &str = r#".SH FILES
.TP
.I $GAMES_DATA_DIR/mille/options.json
Your name, whether the hand is kept sorted, and the mouse method.
Without \fBGAMES_DATA_DIR\fR the directory is \fI$XDG_DATA_HOME/mille\fR,
by default \fI~/.local/share/mille\fR.
.TP
.I $GAMES_DATA_DIR/mille/scores.db
The high\-score table (SQLite); \fBmille \-\-scores\fR shows it,
\fBmille \-\-clear\-scores\fR clears it.
.TP
.I $GAMES_DATA_DIR/mille/autosave.mille
A game ended by closing the terminal, a hangup, \fBkill\fR (SIGTERM) or
Ctrl\-C, which leave at once, restoring the terminal (exit status 128 plus
the signal's number).
The next \fBmille\fR started without a file asks
\fBA game was interrupted on\fR \fIdate\fR\fB. Resume it? (y/n)\fR:
\fBy\fR resumes it, \fBn\fR removes it.
A normal quit or a finished game leaves none.
.TP
.I $GAMES_DATA_DIR/table\-server/tokens.json
The names you play under at table servers, each with the token that keeps
it yours (\fB\-\-connect\fR); without \fBGAMES_DATA_DIR\fR, in
\fI~/.local/share/table\-server\fR.
.TP
.I FILE
A saved game: a JSON document (format \fBmille\-save\fR) holding the rules,
the seed and every move, written to a temporary file, flushed and renamed,
so a crash never leaves half a file.
A file that is missing, empty, truncated, damaged, not a saved game, or
written by a newer \fBmille\fR is refused in one sentence and left as it is.
.SH ENVIRONMENT
.TP
.B GAMES_DATA_DIR
Where the options and high scores are kept (in its \fImille\fR directory).
.TP
.BR USER ", " LOGNAME ", " USERNAME
The name first offered for the high\-score table; without them, the login
name of the account.
.SH EXIT STATUS
0 when the game ends normally; 1 when a saved game cannot be restored or
the options do not make a game, with one sentence on standard error; 2 for
a mistake on the command line.
"#;

/// The other commands, from their clap definitions.
fn other_commands(cmd: &Command) -> String {
    let mut s = String::from(".SH OTHER COMMANDS\n");
    for sub in cmd.get_subcommands().filter(|c| !c.is_hide_set()) {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        s.push_str(&format!(
            ".TP\n\\fBmille {}\\fR\n{}\n",
            esc(sub.get_name()),
            esc(&about)
        ));
    }
    s.push_str(".PP\nEach takes \\fB\\-\\-help\\fR.\n");
    s
}

const SEE_ALSO: &str = r#".SH SEE ALSO
\fBmille \-\-help\fR; the BSD games' \fBmille\fR(6), by Ken Arnold, whose
commands and board this game keeps.
Mille Bornes is a game by Edmond Dujardin.
"#;

/// Writes the man page.
pub fn render(cmd: Command, w: &mut dyn Write) -> io::Result<()> {
    let version = cmd.get_version().unwrap_or_default().to_string();
    let man = clap_mangen::Man::new(cmd.clone())
        .title("MILLE")
        .section("6")
        .source(format!("mille {version}"))
        .manual("Games Manual");
    let mut out = Vec::new();
    part(&mut out, |w| man.render_title(w))?;
    part(&mut out, |w| man.render_name_section(w))?;
    out.extend_from_slice(synopsis(&cmd).as_bytes());
    out.extend_from_slice(DESCRIPTION.as_bytes());
    part(&mut out, |w| man.render_options_section(w))?;
    out.extend_from_slice(commands().as_bytes());
    out.extend_from_slice(cards().as_bytes());
    out.extend_from_slice(rules_section().as_bytes());
    out.extend_from_slice(scoring().as_bytes());
    out.extend_from_slice(FILES.as_bytes());
    out.extend_from_slice(other_commands(&cmd).as_bytes());
    out.extend_from_slice(SEE_ALSO.as_bytes());
    w.write_all(&out)
}
