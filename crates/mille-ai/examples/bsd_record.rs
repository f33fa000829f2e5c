//! Writes games of the `classic` bot (seat 1) against another player
//! (seat 0) on the 2-player `bsd` rules, in a plain text form a replay
//! harness around BSD `mille`'s own `calcmove` can read: each hand's cards
//! as BSD's deck array holds them, then every action, and for each turn
//! decision of seat 1 the moves `classic` makes with a nonzero chance (its
//! one random choice, the late-safety roll, may allow several). The
//! harness replays the hand with BSD's computer in seat 1 and counts the
//! decisions where BSD's move is one of them (`docs/classic-bot.md`).
//!
//! ```sh
//! cargo run --release -p mille-ai --example bsd_record -- 20 1 classic > /tmp/games.txt
//! ```
//! Arguments: games, seed, the player of seat 0 (`classic` or `random`).
//!
//! Lines: `H <first seat>` then `D <101 card numbers>` (BSD's `Deck[0]` to
//! `Deck[100]`: seat 0's six dealt cards on top, then seat 1's, then the
//! draw pile), then one line per action: `<seat> d` (draw), `<seat> u
//! <card>` (play), `<seat> x <card>` (discard), `<seat> c <card>` (coup
//! fourré), `<seat> e <0|1>` (extension); seat 1's plays and discards
//! end with `|` and the allowed moves (`u5 x3 ...`). `E` ends a hand.
//! Card numbers are BSD's (`mille.h`).

use mille_ai::ClassicBot;
use mille_engine::{Action, ActionList, Card, GameConfig, Phase, State, ToAct};
use std::io::Write;

/// BSD's number of a card (`mille.h`).
fn num(c: Card) -> u8 {
    match c {
        Card::D25 => 0,
        Card::D50 => 1,
        Card::D75 => 2,
        Card::D100 => 3,
        Card::D200 => 4,
        Card::OutOfGas => 5,
        Card::FlatTire => 6,
        Card::Accident => 7,
        Card::Stop => 8,
        Card::SpeedLimit => 9,
        Card::Gasoline => 10,
        Card::SpareTire => 11,
        Card::Repairs => 12,
        Card::Go => 13,
        Card::EndOfLimit => 14,
        Card::ExtraTank => 15,
        Card::PunctureProof => 16,
        Card::DrivingAce => 17,
        Card::RightOfWay => 18,
    }
}

fn code(a: Action) -> Option<String> {
    Some(match a {
        Action::Draw => "d".to_string(),
        Action::Play { card, .. } => format!("u {}", num(card)),
        Action::Discard(card) => format!("x {}", num(card)),
        Action::CoupFourre(card) => format!("c {}", num(card)),
        Action::Extend(b) => format!("e {}", u8::from(b)),
        _ => return None,
    })
}

fn deal_line(state: &State) -> String {
    let rules = state.rules();
    let hand = |n: u8| {
        rules
            .seat(n)
            .map(|s| state.hand(s).to_vec())
            .unwrap_or_default()
    };
    // Deck[100] down: seat 0's cards, seat 1's, then the pile in the order
    // it is drawn (its last card first); written from Deck[0] up.
    let mut top_down: Vec<Card> = hand(0);
    top_down.extend(hand(1));
    top_down.extend(state.deck().iter().rev());
    let cards: Vec<String> = top_down.iter().rev().map(|&c| num(c).to_string()).collect();
    format!("D {}", cards.join(" "))
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let games: u32 = args.get(1).map_or(Ok(10), |s| s.parse())?;
    let seed: u64 = args.get(2).map_or(Ok(1), |s| s.parse())?;
    let other = args.get(3).map_or("classic", String::as_str);
    let config = GameConfig::default();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    // One bot per seat for the whole series: BSD's computer keeps its
    // `need` weights for as long as the program runs.
    let mut me = ClassicBot::new(seed);
    let mut them = ClassicBot::new(seed.wrapping_add(1));
    let mut random = mille_ai::make_bot(mille_ai::Level::Random, seed.wrapping_add(2));
    let mut legal = ActionList::default();
    for game in 0..games {
        let mut state = State::new(
            config,
            seed.wrapping_mul(1000).wrapping_add(u64::from(game)),
        )?;
        let mut fresh_hand = true;
        loop {
            if fresh_hand {
                writeln!(out, "H {}", state.first_seat().number())?;
                writeln!(out, "{}", deal_line(&state))?;
                fresh_hand = false;
            }
            let action = match state.to_act() {
                ToAct::Seat(s) if s.number() == 1 => {
                    let before = me.clone();
                    let a = me.decide_state(&state, s);
                    let mut line = code(a).unwrap_or_default();
                    if matches!(state.phase(), Phase::Turn { drawn: true, .. }) {
                        state.legal_actions(&mut legal);
                        let allowed: Vec<String> = legal
                            .iter()
                            .filter(|&&b| before.probability(&state, s, b) > 0.0)
                            .filter_map(|&b| code(b).map(|c| c.replace(' ', "")))
                            .collect();
                        line = format!("{line} | {}", allowed.join(" "));
                    }
                    if code(a).is_some() {
                        writeln!(out, "1 {line}")?;
                    }
                    a
                }
                ToAct::Seat(s) => {
                    let a = if other == "random" {
                        mille_ai::bot_action(random.as_mut(), &state)
                            .and_then(Result::ok)
                            .unwrap_or(Action::Draw)
                    } else {
                        them.decide_state(&state, s)
                    };
                    if let Some(c) = code(a) {
                        writeln!(out, "0 {c}")?;
                    }
                    a
                }
                ToAct::Deal => {
                    writeln!(out, "E")?;
                    fresh_hand = true;
                    Action::NextHand
                }
                ToAct::GameOver => {
                    writeln!(out, "E")?;
                    break;
                }
            };
            state.apply(action)?;
        }
    }
    Ok(())
}
