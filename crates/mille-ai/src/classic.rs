//! The classic computer player: the decision procedure of BSD `mille`'s
//! computer (`calcmove` and what it calls, in `comp.c`, `misc.c`,
//! `move.c`), ported step by step so that it makes the same decisions;
//! `classic-bot.md` describes it and lists where it must differ.
//!
//! It decides from what its seat may see: `seen` is the seat's hand plus
//! every public card, which is what BSD counts. Its memory, kept between
//! requests as the original keeps it: the `need` weights (grown on every
//! decision taken while stopped, never reset, not even between hands or
//! games), the hazard count of the cards it drew this hand (`Numgos`),
//! the order of its hand as BSD's seven slots hold it (which card wins a
//! tie), and the distance card that reached 700 (counted by the extension
//! decision). A bot started mid-hand rebuilds the hand's memory when it is
//! shown its own turns of the hand (`Bot::watch`); the `need` growth
//! of earlier hands it cannot know.
//!
//! [`ClassicBot::sharpened`] is the same procedure with three weights
//! corrected (End of Limit's, which counts when playing too, and two
//! discard weights): not BSD's opponent, but the search's move to beat.

use crate::knowledge::Knowledge;
use crate::{coup_fourre_if_held, fallback_action};
use mille_engine::view::Decision;
use mille_engine::{Action, Card, Kind, Phase, Safety, Seat, State, View, bounded};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// BSD's card numbers (`mille.h`) and the tables indexed by them
/// (`extern.c`, `types.c`): the port reads them as the original does.
mod bsd {
    use mille_engine::Card;

    /// Number of card kinds.
    pub const NUM: usize = 19;
    /// An empty slot of the hand (`C_INIT`); also the battle pile before
    /// the first Go.
    pub const INIT: i32 = -1;
    pub const C_25: i32 = 0;
    pub const C_50: i32 = 1;
    pub const C_75: i32 = 2;
    pub const C_100: i32 = 3;
    pub const C_200: i32 = 4;
    pub const EMPTY: i32 = 5;
    pub const FLAT: i32 = 6;
    pub const CRASH: i32 = 7;
    pub const STOP: i32 = 8;
    pub const LIMIT: i32 = 9;
    pub const GAS: i32 = 10;
    pub const SPARE: i32 = 11;
    pub const REPAIRS: i32 = 12;
    pub const GO: i32 = 13;
    pub const END_LIMIT: i32 = 14;
    pub const GAS_SAFE: i32 = 15;
    pub const RIGHT_WAY: i32 = 18;
    /// `S_RIGHT_WAY`, the safety index of Right of Way. `onecard` indexes
    /// the seen counts with it, which reads the 100-mile card's count.
    pub const S_RIGHT_WAY: usize = 3;
    /// Safety states (`S_UNKNOWN`, `S_IN_HAND`, `S_PLAYED`).
    pub const UNKNOWN: u8 = 0;
    pub const IN_HAND: u8 = 1;
    pub const PLAYED: u8 = 2;
    /// `V_VALUABLE`: the distance card that reaches the end exactly.
    pub const VALUABLE: i32 = 40;
    /// `DECK_SZ / 4`: below this many cards left (less a roll) a held
    /// safety goes down.
    pub const QUARTER_DECK: i32 = 101 / 4;

    /// The engine's card of each BSD number.
    pub const CARDS: [Card; NUM] = [
        Card::D25,
        Card::D50,
        Card::D75,
        Card::D100,
        Card::D200,
        Card::OutOfGas,
        Card::FlatTire,
        Card::Accident,
        Card::Stop,
        Card::SpeedLimit,
        Card::Gasoline,
        Card::SpareTire,
        Card::Repairs,
        Card::Go,
        Card::EndOfLimit,
        Card::ExtraTank,
        Card::PunctureProof,
        Card::DrivingAce,
        Card::RightOfWay,
    ];
    /// `Opposite[]`.
    pub const OPPOSITE: [i32; NUM] = [
        C_25, C_50, C_75, C_100, C_200, GAS, SPARE, REPAIRS, GO, END_LIMIT, EMPTY, FLAT, CRASH,
        STOP, LIMIT, EMPTY, FLAT, CRASH, STOP,
    ];
    /// `Value[]` of the distance cards.
    pub const VALUE: [i32; 5] = [25, 50, 75, 100, 200];
    /// `Numneed[]` as the program starts.
    pub const INITIAL_NEED: [i32; NUM] = [0, 0, 0, 0, 0, 2, 2, 2, 4, 3, 2, 2, 2, 10, 3, 1, 1, 1, 1];

    /// The BSD number of each engine card, by card id: [`CARDS`] turned
    /// round once, at compile time (it is read at every decision).
    const NUMS: [i32; NUM] = {
        let mut nums = [INIT; NUM];
        let mut i = 0;
        while i < NUM {
            nums[CARDS[i] as usize] = i as i32;
            i += 1;
        }
        nums
    };
    /// The BSD number of a card.
    pub fn num(c: Card) -> i32 {
        NUMS.get(c as usize).copied().unwrap_or(INIT)
    }
    /// `is_safety`.
    pub fn is_safety(c: i32) -> bool {
        c >= GAS_SAFE
    }
    /// `is_repair` (the empty battle pile counts as one: a Go may follow).
    pub fn is_repair(c: i32) -> bool {
        matches!(c, GAS | SPARE | REPAIRS | INIT)
    }
    /// `safety()`: the safety card of a hazard, remedy or safety.
    pub fn safety(c: i32) -> i32 {
        match c {
            EMPTY | GAS | GAS_SAFE => GAS_SAFE,
            FLAT | SPARE | 16 => 16,
            CRASH | REPAIRS | 17 => 17,
            _ => RIGHT_WAY,
        }
    }
    /// `opposite()`.
    pub fn opposite(c: i32) -> i32 {
        usize::try_from(c)
            .ok()
            .and_then(|i| OPPOSITE.get(i))
            .copied()
            .unwrap_or(INIT)
    }
    /// An array read at a card number (0 for `C_INIT`).
    pub fn at(table: &[i32; NUM], c: i32) -> i32 {
        usize::try_from(c)
            .ok()
            .and_then(|i| table.get(i))
            .copied()
            .unwrap_or(0)
    }
}

/// Slots of the hand as BSD holds it: slot 0 takes the drawn card, a
/// played card's slot takes the card of the lowest filled slot. BSD has
/// seven; the eighth holds the card a coup fourré adds in other rulesets.
const SLOTS: usize = 8;
/// BSD's hand size (`HAND_SZ`).
const HAND_SZ: usize = 7;

/// One side as `calcmove` reads it (`PLAY`).
#[derive(Clone, Copy, Debug)]
struct Side {
    can_go: bool,
    /// Top of the battle pile in BSD's terms (`INIT` before the first Go).
    battle: i32,
    /// `speed == C_LIMIT`.
    limited: bool,
    mileage: i32,
    /// `nummiles[C_200]`.
    two_hundreds: i32,
    /// Per safety: unknown, in hand (own side only) or played.
    safety: [u8; 4],
}

impl Side {
    fn of(k: &Knowledge, team: u8, hand: Option<&[Card]>) -> Side {
        let t = k.state().tableau(team);
        let can_go = k.can_go(team);
        // BSD turns the battle pile to Go when a safety cancels its hazard
        // (to nothing for Right of Way on a Stop); the engine leaves the
        // hazard there and lets the side go.
        let battle = match t.battle.top() {
            None => bsd::INIT,
            Some(c) if can_go && c.kind() == Kind::Hazard => bsd::GO,
            Some(c) => bsd::num(c),
        };
        let mut safety = [bsd::UNKNOWN; 4];
        for (i, s) in [
            Safety::ExtraTank,
            Safety::PunctureProof,
            Safety::DrivingAce,
            Safety::RightOfWay,
        ]
        .into_iter()
        .enumerate()
        {
            if t.safeties.has(s) {
                safety[i] = bsd::PLAYED;
            } else if hand.is_some_and(|h| h.contains(&s.card())) {
                safety[i] = bsd::IN_HAND;
            }
        }
        Side {
            can_go,
            battle,
            limited: t.limited(),
            mileage: i32::from(t.miles),
            two_hundreds: i32::from(t.two_hundreds()),
            safety,
        }
    }
}

/// What `calcmove` reads: both sides, the hand in BSD's slot order, the
/// seen counts, the deck.
#[derive(Clone, Debug)]
struct Position {
    me: Side,
    op: Side,
    hand: [i32; SLOTS],
    seen: [i32; bsd::NUM],
    cards: [i32; bsd::NUM],
    /// `End`.
    end: i32,
    /// `Topcard - Deck`: cards left to draw.
    deck: i32,
    /// Whether the trip may still be extended (BSD: `End == 700`).
    extendable: bool,
}

impl Position {
    fn new(k: &Knowledge, slots: &[Option<Card>; SLOTS]) -> Position {
        let me = k.team();
        // The opponent: the one a hazard goes on (the leader).
        let op = k
            .opponents()
            .max_by_key(|&o| (k.miles(o), u8::MAX - o))
            .unwrap_or(me);
        let mut seen = [0; bsd::NUM];
        let mut cards = [0; bsd::NUM];
        for (i, &c) in bsd::CARDS.iter().enumerate() {
            seen[i] = k.seen(c);
            cards[i] = i32::from(k.rules().copies(c));
        }
        let mut hand = [bsd::INIT; SLOTS];
        for (h, s) in hand.iter_mut().zip(slots) {
            *h = s.map_or(bsd::INIT, bsd::num);
        }
        Position {
            me: Side::of(k, me, Some(k.hand())),
            op: Side::of(k, op, None),
            hand,
            seen,
            cards,
            end: i32::from(k.target()),
            deck: k.deck() as i32,
            extendable: k.rules().extended_target.is_some()
                && k.state().extension_caller().is_none(),
        }
    }

    fn seen(&self, c: i32) -> i32 {
        bsd::at(&self.seen, c)
    }
    fn cards(&self, c: i32) -> i32 {
        bsd::at(&self.cards, c)
    }
    fn all_seen(&self, c: i32) -> bool {
        self.seen(c) == self.cards(c)
    }

    /// `onecard`: whether a side could conceivably win with its next card.
    /// Faithful to the original, which reads the 100-mile card's count
    /// where it meant Right of Way's (`Numseen[S_RIGHT_WAY]`).
    fn onecard(&self, pp: &Side) -> bool {
        let bat = pp.battle;
        let row_seen = self.seen[bsd::S_RIGHT_WAY] != 0;
        if !(pp.can_go
            || ((bsd::is_repair(bat) || bat == bsd::STOP || pp.limited) && row_seen)
            || (bat >= 0 && self.seen(bsd::safety(bat)) != 0))
        {
            return false;
        }
        let left = self.end - pp.mileage;
        let card = match left {
            200 if pp.two_hundreds == 2 => return false,
            200 => bsd::C_200,
            100 => bsd::C_100,
            75 => bsd::C_75,
            50 => bsd::C_50,
            25 => bsd::C_25,
            _ => return false,
        };
        if card >= bsd::C_75 && pp.limited {
            return self.seen[bsd::S_RIGHT_WAY] == 0;
        }
        !self.all_seen(card)
    }

    /// `canplay`.
    fn canplay(&self, pp: &Side, op: &Side, card: i32) -> bool {
        match card {
            bsd::C_25..=bsd::C_200 => {
                if card == bsd::C_200 && pp.two_hundreds == 2 {
                    return false;
                }
                if card >= bsd::C_75 && pp.limited {
                    return false;
                }
                if card != bsd::C_25 && pp.mileage + bsd::VALUE[card as usize] > self.end {
                    return false;
                }
                pp.can_go
            }
            bsd::EMPTY..=bsd::STOP => {
                op.can_go && op.safety[(bsd::safety(card) - bsd::GAS_SAFE) as usize] != bsd::PLAYED
            }
            bsd::LIMIT => {
                !op.limited
                    && op.safety[bsd::S_RIGHT_WAY] != bsd::PLAYED
                    && op.mileage + 50 < self.end
            }
            bsd::GAS..=bsd::REPAIRS => pp.battle == bsd::opposite(card),
            bsd::GO => !pp.can_go && (bsd::is_repair(pp.battle) || pp.battle == bsd::STOP),
            bsd::END_LIMIT => pp.limited,
            _ => false,
        }
    }

    /// `check_ext(TRUE)`: whether the computer would extend the trip, its
    /// hand being `hand` (which still holds the card that reached 700).
    fn check_ext(&self, hand: &[i32]) -> bool {
        if !self.extendable || self.end != 700 {
            return false;
        }
        let (pp, op) = (&self.me, &self.op);
        let safe = pp.safety.iter().filter(|&&s| s != bsd::UNKNOWN).count();
        if safe < 2 {
            return false;
        }
        if op.mileage == 0 || self.onecard(op) || (op.can_go && op.mileage >= 500) {
            return false;
        }
        let unknown = (0..4)
            .filter(|&i| op.safety[i] != bsd::PLAYED && pp.safety[i] == bsd::UNKNOWN)
            .count();
        if unknown + safe == 4 {
            return true;
        }
        // An empty slot reads `Value[-1]`, outside the table, in the
        // original; it counts nothing here.
        let miles: i32 = hand
            .iter()
            .filter(|&&c| (0..=bsd::C_200).contains(&c))
            .map(|&c| bsd::VALUE[c as usize])
            .sum();
        miles + self.deck * 3 > 1000
    }
}

/// `calcmove`'s answer: play or discard the card of a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Move {
    Play(usize),
    Discard(usize),
}

/// What one decision found, for choosing a legal substitute when the
/// engine refuses BSD's move.
struct Decided {
    chosen: Option<Move>,
    values: [i32; SLOTS],
    playit: [bool; SLOTS],
    cango: bool,
}

/// The BSD computer opponent.
#[derive(Clone, Debug)]
pub struct ClassicBot {
    rng: ChaCha8Rng,
    /// `Numneed[]`, by BSD card number: never reset, as in the original
    /// (its growth changes which card it plays; the program keeps it for
    /// as long as it runs).
    need: [i32; bsd::NUM],
    /// `Numgos`: hazards it drew this hand, plus for each of Extra Tank,
    /// Puncture Proof and Driving Ace it drew the matching hazards not yet
    /// seen when it drew it.
    numgos: i32,
    /// Its hand in BSD's slot order after its last move (empty slots
    /// `None`), to break ties as BSD does.
    slots: [Option<Card>; SLOTS],
    /// The distance card that brought it to the extension decision (BSD
    /// still counts it in the hand then).
    finishing: Option<Card>,
    /// Deck size and public card count at the last decision, to notice a
    /// new hand (the deck only shrinks and the table only grows in a hand).
    last: Option<(u32, u32)>,
    /// When set, the late-safety rolls (`0..10`, one per safety it
    /// considers) take these values in turn instead of random ones (0 past
    /// the end), and `draws` counts how many were asked for: how
    /// [`ClassicBot::probability`] goes through every outcome.
    forced_draws: Option<Vec<u32>>,
    draws: usize,
    /// Whether its weights are [`ClassicBot::sharpened`]'s.
    sharp: bool,
}

/// [`ClassicBot::sharpened`]'s worth of End of Limit per Speed Limit card,
/// to play or to keep (the original's 6 is every remedy's).
const SHARP_END_OF_LIMIT: i32 = 2;
/// What keeping a 25 is worth, when discarding, above the original's value.
const SHARP_KEEP_D25: i32 = 5;
/// What keeping a 50 is worth, when discarding, above the original's value.
const SHARP_KEEP_D50: i32 = -5;

/// BSD's loop that moves the empty slots to the front after a move (the
/// drawn card, in slot 0, fills the played card's slot), over BSD's seven
/// slots.
fn close_gaps(slots: &mut [Option<Card>; SLOTS]) {
    for i in 1..HAND_SZ {
        if slots[i].is_none() {
            let j = slots.iter().position(Option::is_some).unwrap_or(0);
            slots[i] = slots[j];
            slots[j] = None;
        }
    }
}

impl ClassicBot {
    /// A classic bot; `seed` drives its one random choice (when to play a
    /// safety late in the hand).
    pub fn new(seed: u64) -> ClassicBot {
        ClassicBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
            need: bsd::INITIAL_NEED,
            numgos: 0,
            slots: [None; SLOTS],
            finishing: None,
            last: None,
            forced_draws: None,
            draws: 0,
            sharp: false,
        }
    }

    /// The same procedure with three weights corrected, a better player
    /// than the original (and no longer BSD's opponent): End of Limit is
    /// worth a third of the other remedies (a Speed Limit still lets a car
    /// run 50 a turn), so it throws it away far sooner, and under a limit
    /// it may drive on or mend another hazard before lifting the limit;
    /// when discarding it keeps its 25s longer and its 50s less. The search
    /// uses it as the move to beat.
    pub fn sharpened(seed: u64) -> ClassicBot {
        ClassicBot {
            sharp: true,
            ..ClassicBot::new(seed)
        }
    }

    /// The original procedure with this bot's memory and random choices.
    pub fn unsharpened(&self) -> ClassicBot {
        ClassicBot {
            sharp: false,
            ..self.clone()
        }
    }

    /// The same bot, memory included, with its random choices drawn from
    /// `seed` instead.
    pub fn reseeded(&self, seed: u64) -> ClassicBot {
        ClassicBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
            ..self.clone()
        }
    }

    /// `roll(1, 10)`.
    fn roll10(&mut self) -> i32 {
        let d = match &self.forced_draws {
            Some(draws) => {
                let d = draws.get(self.draws).copied().unwrap_or(0);
                self.draws += 1;
                d
            }
            None => bounded(&mut self.rng, 10),
        };
        d as i32 + 1
    }

    /// `account()` of a card it draws: the hazard count `Numgos`.
    fn account(
        &mut self,
        c: Card,
        seen_hazards: impl Fn(Card) -> i32,
        copies: impl Fn(Card) -> i32,
    ) {
        match c {
            Card::OutOfGas | Card::FlatTire | Card::Accident | Card::Stop => self.numgos += 1,
            Card::ExtraTank | Card::PunctureProof | Card::DrivingAce => {
                let hazard = match c {
                    Card::ExtraTank => Card::OutOfGas,
                    Card::PunctureProof => Card::FlatTire,
                    _ => Card::Accident,
                };
                self.numgos += copies(hazard) - seen_hazards(hazard);
            }
            _ => {}
        }
    }

    /// Its hand in BSD's slot order, from the order it remembers: the
    /// cards it kept stay in their slots, the cards drawn since fill the
    /// empty slots from the front (slot 0 first, as BSD draws). Also counts
    /// the drawn cards into `Numgos`, and starts the hand's memory afresh
    /// when the hand is new.
    fn arrange(&mut self, k: &Knowledge, drew: bool) -> [Option<Card>; SLOTS] {
        let key = (k.deck(), k.public());
        let fresh = match self.last {
            None => true,
            Some((deck, public)) => key.0 > deck || key.1 < public,
        };
        self.last = Some(key);
        let hand = k.hand();
        let copies = |c: Card| i32::from(k.rules().copies(c));
        if !fresh {
            let mut left: [Option<Card>; SLOTS] = [None; SLOTS];
            for (l, &c) in left.iter_mut().zip(hand) {
                *l = Some(c);
            }
            let mut out = [None; SLOTS];
            for (o, s) in out.iter_mut().zip(self.slots) {
                if let Some(c) = s
                    && let Some(l) = left.iter_mut().find(|l| **l == Some(c))
                {
                    *l = None;
                    *o = Some(c);
                }
            }
            // The cards drawn since, in the engine's order (the order drawn).
            let mut new = [Card::D25; SLOTS];
            let mut drawn = 0;
            for &c in left.iter().flatten() {
                new[drawn] = c;
                drawn += 1;
            }
            let new = &new[..drawn];
            let gaps = out.iter().filter(|s| s.is_none()).count();
            if new.len() <= gaps {
                for (n, &c) in new.iter().enumerate() {
                    if let Some(slot) = out.iter_mut().find(|s| s.is_none()) {
                        *slot = Some(c);
                    }
                    // Seen when drawn: the cards drawn after it were not.
                    let later = |h: Card| new[n + 1..].iter().filter(|&&x| x == h).count() as i32;
                    self.account(c, |h| k.seen(h) - later(h), copies);
                }
                return out;
            }
        }
        // A new hand (or a hand it has not followed): the last card is the
        // one just drawn (slot 0) unless the deck is gone, the others were
        // dealt in slots 1 to 6. The deal counts toward `Numgos` only when
        // it starts the hand (BSD's `account` counts the deal as a move of
        // the player to start), each card seen with the ones dealt before.
        self.numgos = 0;
        let mut out = [None; SLOTS];
        let (dealt, drawn) = match hand.split_last() {
            Some((&last, rest)) if drew => (rest, Some(last)),
            _ => (hand, None),
        };
        out[0] = drawn;
        for (o, &c) in out[1..].iter_mut().zip(dealt) {
            *o = Some(c);
        }
        // It starts the hand when nothing is on the table yet (a view does
        // not say who started).
        if k.public() == 0 {
            for (n, &c) in dealt.iter().enumerate() {
                let before = |h: Card| dealt[..n].iter().filter(|&&x| x == h).count() as i32;
                self.account(c, before, copies);
            }
        }
        if let Some(c) = drawn {
            self.account(c, |h| k.seen(h), copies);
        }
        out
    }

    /// `calcmove` after the draw, on a position: BSD's decision, with the
    /// values it gave each slot. Grows `need` as the original does (once
    /// before valuing the hand, once after) and rolls its die as it does.
    fn calcmove(&mut self, p: &Position) -> Decided {
        let (pp, op) = (p.me, p.op);
        let mut count = [0i32; bsd::NUM];
        let mut playit = [false; SLOTS];
        // `cango` is a `bool` in BSD (C99's, through `curses.h`, in the
        // Debian build that is measured): a flag, not the count its
        // `++cango` and `--cango` were written for. One small card held
        // back ("too close") thus turns the whole turn into a discard.
        let (mut safe, mut cango, mut canstop, mut foundend) = (0, false, false, false);
        let decided = |m: Move, playit: [bool; SLOTS]| Decided {
            chosen: Some(m),
            values: [0; SLOTS],
            playit,
            cango: false,
        };
        // Classify the hand; a safety that mends what stops it goes down
        // at once.
        for i in 0..SLOTS {
            let card = p.hand[i];
            if bsd::is_safety(card) {
                if pp.battle == bsd::opposite(card) || (pp.limited && card == bsd::RIGHT_WAY) {
                    return decided(Move::Play(i), playit);
                }
                safe += 1;
                playit[i] = true;
            } else {
                playit[i] = p.canplay(&pp, &op, card);
                if playit[i] {
                    cango = true;
                    match card {
                        bsd::EMPTY..=bsd::STOP => canstop = true,
                        bsd::LIMIT if p.all_seen(bsd::C_25) && p.all_seen(bsd::C_50) => {
                            canstop = true;
                        }
                        bsd::C_25..=bsd::C_200
                            if pp.mileage + bsd::VALUE[card as usize] == p.end =>
                        {
                            foundend = true;
                        }
                        _ => {}
                    }
                }
            }
            if card >= 0 {
                count[card as usize] += 1;
            }
        }
        if foundend {
            foundend = !p.check_ext(&p.hand);
        }
        // When to play a safety.
        let mut i = 0;
        while safe > 0 && i < SLOTS {
            let card = p.hand[i];
            if bsd::is_safety(card) {
                if p.onecard(&op) || (foundend && cango && !canstop) {
                    return decided(Move::Play(i), playit);
                }
                let oppos = bsd::opposite(card);
                if p.all_seen(oppos) && (card != bsd::RIGHT_WAY || p.all_seen(bsd::LIMIT)) {
                    return decided(Move::Play(i), playit);
                } else if !cango && (op.can_go || !pp.can_go) {
                    let mut left = p.deck - self.roll10();
                    if (pp.mileage == 0) != (op.mileage == 0) {
                        left -= 7;
                    }
                    if left < bsd::QUARTER_DECK {
                        return decided(Move::Play(i), playit);
                    }
                }
                safe -= 1;
                playit[i] = cango;
            }
            i += 1;
        }
        let stopped = !pp.can_go && !bsd::is_repair(pp.battle);
        let remedy = bsd::opposite(pp.battle);
        if stopped && let Ok(r) = usize::try_from(remedy) {
            self.need[r] += 1;
        }
        let need = self.need;
        let mut values = [0i32; SLOTS];
        let (mut nummax, mut nummin);
        'redo: loop {
            let mut foundlow = cango
                || count[bsd::END_LIMIT as usize] != 0
                || p.all_seen(bsd::LIMIT)
                || pp.safety[bsd::S_RIGHT_WAY] != bsd::UNKNOWN;
            foundend = false;
            let mut count200 = pp.two_hundreds;
            let mut badcount: u32 = 0;
            let (mut curmax, mut curmin) = (-1, 101);
            nummax = None;
            nummin = None;
            for i in 0..SLOTS {
                let card = p.hand[i];
                let mut v;
                if bsd::is_safety(card) || playit[i] == cango {
                    // The value of keeping (no card to play) or playing it.
                    let mut miles = false;
                    // `repair:` (a remedy's worth) and `normbad:` (an
                    // attack's), with the safety and opposite card they use.
                    let mut repair: Option<i32> = None;
                    let mut normbad: Option<(usize, i32)> = None;
                    v = 0;
                    match card {
                        bsd::C_25 | bsd::C_50 => {
                            let value = bsd::VALUE[card as usize];
                            let diff = p.end - pp.mileage;
                            // Avoid getting too close with small cards.
                            let creep = p.deck > 0
                                && cango
                                && diff <= 100
                                && diff / value > count[card as usize]
                                && (card == bsd::C_25 || diff % 50 == 0);
                            if creep
                                && !(card == bsd::C_50
                                    && diff == 75
                                    && count[bsd::C_25 as usize] > 0)
                            {
                                // `--cango <= 0` on a bool: always.
                                cango = false;
                                continue 'redo;
                            } else {
                                v = (value >> 3) + if pp.limited { 1 } else { -1 };
                                if !foundlow
                                    && (card == bsd::C_50 || count[bsd::C_50 as usize] == 0)
                                {
                                    v = if pp.mileage != 0 { 10 } else { 20 };
                                    foundlow = true;
                                }
                                miles = true;
                            }
                        }
                        bsd::C_75 | bsd::C_100 | bsd::C_200 => {
                            if card == bsd::C_200 {
                                count200 += 1;
                            }
                            if card != bsd::C_200 || count200 <= 2 {
                                v = (bsd::VALUE[card as usize] >> 3)
                                    + if pp.limited { -1 } else { 1 };
                                miles = true;
                            }
                        }
                        bsd::END_LIMIT => {
                            let s = pp.safety[bsd::S_RIGHT_WAY];
                            if s != bsd::UNKNOWN {
                                v = if s == bsd::PLAYED { -1 } else { 1 };
                            } else if pp.limited && p.end - pp.mileage <= 50 {
                                v = 1;
                            } else if pp.limited || !p.all_seen(bsd::LIMIT) {
                                repair = Some(bsd::LIMIT);
                            } else {
                                count[card as usize] -= 1;
                            }
                        }
                        bsd::GAS | bsd::SPARE | bsd::REPAIRS => {
                            let s = pp.safety[(bsd::safety(card) - bsd::GAS_SAFE) as usize];
                            let oppos = bsd::opposite(card);
                            if s != bsd::UNKNOWN {
                                v = if s == bsd::PLAYED { -1 } else { 1 };
                            } else if pp.battle != oppos
                                && (p.all_seen(oppos)
                                    || p.seen(oppos) + count[card as usize] > p.cards(oppos))
                            {
                                count[card as usize] -= 1;
                            } else {
                                repair = Some(oppos);
                            }
                        }
                        bsd::GO => {
                            let s = pp.safety[bsd::S_RIGHT_WAY];
                            let n = count[card as usize];
                            if s != bsd::UNKNOWN {
                                v = if s == bsd::PLAYED { -1 } else { 2 };
                            } else if pp.can_go && self.numgos + n == need[card as usize] {
                                count[card as usize] -= 1;
                            } else {
                                v = need[card as usize] * 3 + (p.seen(card) - self.numgos);
                                v = v.checked_div(n * n).unwrap_or(v);
                                count[card as usize] -= 1;
                            }
                        }
                        bsd::LIMIT => {
                            if op.mileage + 50 >= p.end {
                                v = i32::from(p.end == 700 && !cango);
                            } else if canstop || (cango && !op.can_go) {
                                v = 1;
                            } else {
                                v = if pp.safety[bsd::S_RIGHT_WAY] != bsd::UNKNOWN {
                                    2
                                } else {
                                    3
                                };
                                normbad = Some((bsd::S_RIGHT_WAY, bsd::END_LIMIT));
                            }
                        }
                        bsd::EMPTY | bsd::FLAT | bsd::CRASH => {
                            let s = (bsd::safety(card) - bsd::GAS_SAFE) as usize;
                            v = if pp.safety[s] != bsd::UNKNOWN { 3 } else { 4 };
                            normbad = Some((s, bsd::opposite(card)));
                        }
                        bsd::STOP => {
                            if op.safety[bsd::S_RIGHT_WAY] == bsd::PLAYED {
                                v = -1;
                            } else {
                                let known = pp.safety[bsd::S_RIGHT_WAY] != bsd::UNKNOWN;
                                v = if known { 3 } else { 4 };
                                v *= p.cards(bsd::STOP) + p.seen(bsd::GO);
                                if pp.mileage == 0 || foundend || p.onecard(&op) {
                                    v += 5;
                                }
                                if !cango {
                                    badcount += 1;
                                    v = ((v as u32) / badcount) as i32;
                                }
                                if op.mileage == 0 {
                                    v += 5;
                                }
                                if !op.can_go {
                                    v -= 5;
                                }
                                if cango && known {
                                    v += 5;
                                }
                            }
                        }
                        c if bsd::is_safety(c) => v = if cango { 0 } else { 101 },
                        _ => {}
                    }
                    if miles {
                        let value = bsd::VALUE[card as usize];
                        if pp.mileage + value > p.end {
                            v = if p.end == 700 { card } else { 0 };
                        } else if pp.mileage + value == p.end {
                            v = if foundend { card } else { bsd::VALUABLE };
                            foundend = true;
                        }
                    }
                    if let Some(oppos) = repair {
                        let worth = if self.sharp && card == bsd::END_LIMIT {
                            SHARP_END_OF_LIMIT
                        } else {
                            6
                        };
                        v = p.cards(oppos) * worth + p.seen(card) - p.seen(oppos);
                        let n = count[card as usize];
                        if !cango {
                            v = v.checked_div(n * n).unwrap_or(v);
                        }
                        count[card as usize] -= 1;
                    }
                    if let Some((s, oppos)) = normbad {
                        if op.safety[s] == bsd::PLAYED {
                            v = -1;
                        } else {
                            v *= bsd::at(&need, oppos) + p.seen(oppos) + 2;
                            if pp.mileage == 0 || foundend || p.onecard(&op) {
                                v += 5;
                            }
                            if op.mileage == 0 || p.onecard(&op) {
                                v += 5;
                            }
                            if op.limited {
                                v -= 3;
                            }
                            if cango && pp.safety[s] != bsd::UNKNOWN {
                                v += 3;
                            }
                            if !cango {
                                badcount += 1;
                                v = ((v as u32) / badcount) as i32;
                            }
                        }
                    }
                    if self.sharp && !cango {
                        v += match card {
                            bsd::C_25 => SHARP_KEEP_D25,
                            bsd::C_50 => SHARP_KEEP_D50,
                            _ => 0,
                        };
                    }
                } else {
                    v = if cango { 0 } else { 101 };
                }
                values[i] = v;
                // Ties go to the later slot.
                if card != bsd::INIT {
                    if v >= curmax {
                        nummax = Some(i);
                        curmax = v;
                    }
                    if v <= curmin {
                        nummin = Some(i);
                        curmin = v;
                    }
                }
            }
            break;
        }
        if stopped && let Ok(r) = usize::try_from(remedy) {
            self.need[r] += 1;
        }
        let chosen = if cango {
            nummax.map(Move::Play)
        } else {
            // Never discard a safety: play it.
            nummin.map(|i| {
                if bsd::is_safety(p.hand[i]) {
                    Move::Play(i)
                } else {
                    Move::Discard(i)
                }
            })
        };
        Decided {
            chosen,
            values,
            playit,
            cango,
        }
    }

    /// The engine's action for BSD's move on the card of `slot`.
    fn action_of(k: &Knowledge, slots: &[Option<Card>; SLOTS], m: Move) -> Option<(usize, Action)> {
        match m {
            Move::Play(i) => {
                let c = slots[i]?;
                Some((i, k.playable(c)?))
            }
            Move::Discard(i) => {
                let c = slots[i]?;
                k.discardable(c).then_some((i, Action::Discard(c)))
            }
        }
    }

    /// A turn after the draw: BSD's move, or when the engine refuses it a
    /// legal substitute (`classic-bot.md`): the best playable card when it
    /// meant to play, else the least valuable card that may be discarded.
    /// Updates the memory of the hand's order.
    fn turn(&mut self, k: &Knowledge) -> Option<Action> {
        // It drew unless the deck was gone (a full hand: it drew the last).
        let slots = self.arrange(k, k.deck() > 0 || k.hand().len() >= HAND_SZ);
        let position = Position::new(k, &slots);
        let d = self.calcmove(&position);
        let mut made = d.chosen.and_then(|m| Self::action_of(k, &slots, m));
        if made.is_none() {
            // BSD names a card it may not play (its choice fell on a card
            // valued as unplayable) or no card at all.
            let filled = (0..SLOTS).filter(|&i| slots[i].is_some());
            made = if d.cango {
                filled
                    .filter(|&i| d.playit[i])
                    .filter_map(|i| {
                        Self::action_of(k, &slots, Move::Play(i)).map(|a| (d.values[i], a))
                    })
                    .fold(
                        None,
                        |best: Option<(i32, (usize, Action))>, (v, a)| match best {
                            Some((b, _)) if v < b => best,
                            _ => Some((v, a)),
                        },
                    )
                    .map(|(_, a)| a)
            } else {
                filled
                    .filter_map(|i| {
                        Self::action_of(k, &slots, Move::Discard(i)).map(|a| (d.values[i], a))
                    })
                    .fold(
                        None,
                        |best: Option<(i32, (usize, Action))>, (v, a)| match best {
                            Some((b, _)) if v > b => best,
                            _ => Some((v, a)),
                        },
                    )
                    .map(|(_, a)| a)
            };
        }
        let (slot, action) = made?;
        self.after_move(slots, slot, action, k);
        Some(action)
    }

    /// Remembers the hand once the card of `slot` has left it.
    fn after_move(
        &mut self,
        mut slots: [Option<Card>; SLOTS],
        slot: usize,
        action: Action,
        k: &Knowledge,
    ) {
        self.finishing = match action {
            Action::Play { card, .. }
                if card.kind() == Kind::Distance
                    && k.miles(k.team()) + card.miles() == k.target() =>
            {
                Some(card)
            }
            _ => None,
        };
        slots[slot] = None;
        close_gaps(&mut slots);
        self.slots = slots;
    }

    /// The extension decision (`check_ext` once its card reached 700:
    /// that card still counts in its hand).
    fn extend(&self, k: &Knowledge) -> bool {
        let mut hand: Vec<i32> = k.hand().iter().map(|&c| bsd::num(c)).collect();
        if let Some(c) = self.finishing {
            hand.push(bsd::num(c));
        }
        Position::new(k, &self.slots).check_ext(&hand)
    }

    /// A coup fourré taken: BSD plays the safety from its slot before the
    /// draw (the hand may be new: a coup can be its first move of a hand).
    fn note_coup(&mut self, k: &Knowledge, safety: Card) {
        let mut slots = self.arrange(k, false);
        if let Some(i) = slots.iter().position(|&s| s == Some(safety)) {
            slots[i] = None;
            close_gaps(&mut slots);
        }
        self.slots = slots;
    }
}

impl ClassicBot {
    /// The classic decision of `seat` in `state` (which must wait for that
    /// seat), reading only what the seat may see: the search's play-outs
    /// use it on full states, [`Bot::decide`] on a state sampled from a
    /// view. Always legal.
    pub fn decide_state(&mut self, state: &State, seat: Seat) -> Action {
        match state.phase() {
            Phase::Turn { drawn: false, .. } => Action::Draw,
            // It always makes its coups fourrés (BSD plays the safety
            // first thing on its turn).
            Phase::CoupFourre { hazard, .. } => {
                let a = coup_fourre_if_held(state.hand(seat), hazard);
                if let Action::CoupFourre(s) = a {
                    self.note_coup(&Knowledge::new(state, seat), s);
                }
                a
            }
            Phase::Extension { .. } => Action::Extend(self.extend(&Knowledge::new(state, seat))),
            Phase::Turn { drawn: true, .. } => {
                let k = Knowledge::new(state, seat);
                match self.turn(&k) {
                    Some(a) if k.legal().contains(&a) => a,
                    _ => k
                        .legal()
                        .iter()
                        .copied()
                        .find(|a| matches!(a, Action::Discard(c) if c.kind() != Kind::Safety))
                        .or_else(|| k.legal().first().copied())
                        .unwrap_or(Action::Draw),
                }
            }
            Phase::HandOver => Action::NextHand,
            Phase::GameOver => Action::NextGame,
        }
    }
}

impl ClassicBot {
    /// The chance that this bot, deciding for `seat` in `state`, makes
    /// `action`: 1 or 0 for most decisions, a fraction when its one random
    /// choice (when to play a safety late in the hand) decides. The bot's
    /// memory is left as it was.
    pub fn probability(&self, state: &State, seat: Seat, action: Action) -> f64 {
        // Depth first through the sequences of rolls the decision asks for
        // (one per safety it considers, at most four), each roll's ten
        // outcomes equally likely.
        let mut chance = 0.0;
        let mut stack: Vec<Vec<u32>> = vec![Vec::new()];
        while let Some(draws) = stack.pop() {
            let mut probe = self.clone();
            probe.forced_draws = Some(draws.clone());
            probe.draws = 0;
            let made = probe.decide_state(state, seat);
            if probe.draws > draws.len() {
                for d in 0..10 {
                    let mut longer = draws.clone();
                    longer.push(d);
                    stack.push(longer);
                }
            } else if made == action {
                chance += 0.1f64.powi(draws.len() as i32);
            }
        }
        chance
    }
}

impl ClassicBot {
    /// The bot's name.
    pub fn label(&self) -> &str {
        if self.sharp { "sharpened" } else { "classic" }
    }

    /// Its own past turns rebuild its memory of the hand (the `need`
    /// growth, `Numgos`, the order of its hand), so that a fresh bot shown
    /// the hand so far ([`crate::watch_current_hand`], as the terminal game
    /// does before every decision) decides as one that played the whole
    /// hand. A turn it decided itself is not counted twice: the table it
    /// saw then is the one it remembers.
    /// Sees `actor` make `action` in `view` (its seat's, just before).
    pub fn watch_view(&mut self, view: &View, actor: u8, action: Action) {
        if actor != view.seat {
            return;
        }
        let decision = match action {
            Action::CoupFourre(s) => {
                // The hazard it answered, on top of its piles.
                let team = view.seats.get(usize::from(view.seat)).map(|s| s.team);
                let tableau = team.and_then(|t| view.teams.iter().find(|x| x.team == t));
                let limited = tableau.is_some_and(|t| t.speed.last() == Some(&Card::SpeedLimit));
                let battle = tableau.and_then(|t| t.battle.last().copied());
                let hazard = match battle {
                    Some(h) if h.safety() == s.safety() && h.kind() == Kind::Hazard => h,
                    _ if limited => Card::SpeedLimit,
                    _ => Card::Stop,
                };
                let seats = view.seats.len().max(1) as u8;
                Decision::CoupFourre {
                    hazard,
                    attacker: (view.seat + 1) % seats,
                }
            }
            Action::Play { .. } | Action::Discard(_) => Decision::Turn,
            _ => return,
        };
        let Some(state) = Knowledge::sample(view, decision) else {
            return;
        };
        let Some(seat) = state.rules().seat(view.seat) else {
            return;
        };
        let k = Knowledge::new(&state, seat);
        if self.last == Some((k.deck(), k.public())) {
            return;
        }
        match action {
            Action::CoupFourre(s) => self.note_coup(&k, s),
            _ => self.replay_own(&k, action),
        }
    }

    /// Replays its own move `action` on `k`: the memory its decision
    /// leaves (its roll of the die is not drawn: the move is known).
    fn replay_own(&mut self, k: &Knowledge, action: Action) {
        // The highest roll first (a safety goes down only when it must),
        // then the lowest: one of them makes the move it made.
        let probe = |rolls: Vec<u32>| {
            let mut probe = self.clone();
            probe.forced_draws = Some(rolls);
            probe.draws = 0;
            let made = probe.turn(k);
            (made, probe)
        };
        let (made, high) = probe(vec![9; SLOTS]);
        let (made, probe) = if made == Some(action) {
            (made, high)
        } else {
            match probe(Vec::new()) {
                (Some(a), low) if a == action => (Some(a), low),
                _ => (made, high),
            }
        };
        let mut again = self.clone();
        let slots = again.arrange(k, k.deck() > 0 || k.hand().len() >= HAND_SZ);
        self.need = probe.need;
        self.numgos = again.numgos;
        self.last = again.last;
        if made == Some(action) {
            self.slots = probe.slots;
            self.finishing = probe.finishing;
        } else {
            let card = match action {
                Action::Play { card, .. } | Action::Discard(card) => Some(card),
                _ => None,
            };
            let slot = (0..SLOTS)
                .rev()
                .find(|&i| slots[i].is_some() && slots[i] == card);
            if let Some(slot) = slot {
                self.after_move(slots, slot, action, k);
            }
        }
    }

    /// Its answer to `decision` in `view`.
    pub fn choose(&mut self, view: &View, decision: Decision) -> Action {
        if let Decision::CoupFourre { hazard, .. } = decision {
            let a = coup_fourre_if_held(&view.hand, hazard);
            if let Action::CoupFourre(s) = a
                && let Some(state) = Knowledge::sample(view, decision)
                && let Some(seat) = state.rules().seat(view.seat)
            {
                self.note_coup(&Knowledge::new(&state, seat), s);
            }
            return a;
        }
        let sampled = Knowledge::sample(view, decision);
        match sampled
            .as_ref()
            .and_then(|s| Some((s, s.rules().seat(view.seat)?)))
        {
            Some((state, seat)) => self.decide_state(state, seat),
            None => fallback_action(view, decision),
        }
    }
}

crate::view_bot!(ClassicBot, watching);

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::{GameConfig, GameRecord, ToAct};

    /// Seat 0 of the 2-player `bsd` game, to build positions on.
    fn seat0() -> Seat {
        mille_engine::Rules::new(GameConfig::default())
            .expect("config")
            .seat(0)
            .expect("seat 0")
    }

    /// A position of seat 0's turn, after its draw, with `deck` cards left.
    fn turn_of_seat0(s: mille_engine::Scenario, deck: usize) -> State {
        s.deck(&vec![Card::D25; deck])
            .phase(Phase::Turn {
                seat: seat0(),
                drawn: true,
            })
            .build()
    }

    fn scenario() -> mille_engine::Scenario {
        mille_engine::Scenario::new(GameConfig::default()).expect("config")
    }

    /// With nothing to play, BSD plays a held safety once fewer than a
    /// quarter of the deck (25 cards) is left after a roll of 1 to 10: with
    /// 30 cards left, half the time. (It was 17 here before: never.)
    #[test]
    fn a_safety_goes_down_below_a_quarter_deck() {
        let state = turn_of_seat0(
            scenario()
                .hand(
                    0,
                    &[
                        Card::ExtraTank,
                        Card::D100,
                        Card::D100,
                        Card::D75,
                        Card::D75,
                        Card::D50,
                        Card::D200,
                    ],
                )
                .battle(0, &[Card::Go, Card::Accident])
                .distance(0, &[Card::D100])
                .battle(1, &[Card::Go])
                .distance(1, &[Card::D100]),
            30,
        );
        let play = Action::Play {
            card: Card::ExtraTank,
            team: 0,
        };
        let p = ClassicBot::new(1).probability(&state, seat0(), play);
        assert!((p - 0.5).abs() < 1e-9, "{p}");
    }

    /// `onecard` reads the count of 100s where it means Right of Way's: an
    /// opponent stopped by a Stop 50 miles from home "could finish" once a
    /// 100 has been seen, and BSD then plays its safety at once.
    #[test]
    fn the_misread_one_card_test_plays_the_safety() {
        let state = turn_of_seat0(
            scenario()
                .hand(
                    0,
                    &[
                        Card::DrivingAce,
                        Card::D100,
                        Card::D75,
                        Card::D50,
                        Card::Gasoline,
                        Card::SpareTire,
                        Card::D25,
                    ],
                )
                .battle(0, &[Card::Go])
                .distance(0, &[Card::D100, Card::D100])
                .battle(1, &[Card::Go, Card::Stop])
                .distance(
                    1,
                    &[Card::D200, Card::D200, Card::D100, Card::D100, Card::D50],
                ),
            50,
        );
        assert_eq!(
            ClassicBot::new(1).decide_state(&state, seat0()),
            Action::Play {
                card: Card::DrivingAce,
                team: 0
            }
        );
    }

    /// BSD's `cango` is a flag (a C99 `bool` in the measured build): a 25
    /// held back near the end ("too close") turns the turn into a discard
    /// although a Stop and a 50 could be played.
    #[test]
    fn a_small_card_held_back_makes_the_turn_a_discard() {
        let state = turn_of_seat0(
            scenario()
                .hand(
                    0,
                    &[
                        Card::D50,
                        Card::D25,
                        Card::Go,
                        Card::Go,
                        Card::Repairs,
                        Card::Repairs,
                        Card::Stop,
                    ],
                )
                .battle(0, &[Card::Go])
                .distance(
                    0,
                    &[Card::D200, Card::D200, Card::D100, Card::D100, Card::D25],
                )
                .battle(1, &[Card::Go])
                .distance(1, &[Card::D200, Card::D200, Card::D100, Card::D50]),
            63,
        );
        let a = ClassicBot::new(1).decide_state(&state, seat0());
        assert!(matches!(a, Action::Discard(_)), "{a:?}");
    }

    /// Ties go to the later of BSD's slots, where the drawn card comes
    /// first (the engine's hand has it last): between two cards worth
    /// nothing, a third 200 and a Gasoline once both Out of Gas are seen,
    /// BSD throws the 200 away, not the Gasoline it just drew.
    #[test]
    fn ties_follow_bsd_slot_order() {
        let state = turn_of_seat0(
            scenario()
                .hand(
                    0,
                    &[
                        Card::D200,
                        Card::D100,
                        Card::D100,
                        Card::D75,
                        Card::D75,
                        Card::D100,
                        Card::Gasoline,
                    ],
                )
                .battle(0, &[Card::Go, Card::Stop])
                .distance(0, &[Card::D200, Card::D200])
                .battle(1, &[Card::Go, Card::Accident])
                .distance(1, &[Card::D100])
                .discards(&[Card::OutOfGas, Card::OutOfGas]),
            40,
        );
        assert_eq!(
            ClassicBot::new(1).decide_state(&state, seat0()),
            Action::Discard(Card::D200)
        );
    }

    /// `need` is never reset: the weight of Gasoline grown while it was out
    /// of gas in one hand makes Out of Gas worth more than its Go in the
    /// next hand. A fresh bot plays the Go.
    #[test]
    fn need_carries_over_to_the_next_hand() {
        let stopped = turn_of_seat0(
            scenario()
                .hand(
                    0,
                    &[
                        Card::D100,
                        Card::D100,
                        Card::D75,
                        Card::D75,
                        Card::D50,
                        Card::D200,
                        Card::D25,
                    ],
                )
                .battle(0, &[Card::Go, Card::OutOfGas])
                .distance(0, &[Card::D100])
                .battle(1, &[Card::Go, Card::Accident])
                .distance(1, &[Card::D100]),
            30,
        );
        let next_hand = turn_of_seat0(
            scenario()
                .hand(
                    0,
                    &[
                        Card::Go,
                        Card::OutOfGas,
                        Card::D200,
                        Card::D200,
                        Card::D100,
                        Card::D100,
                        Card::D75,
                    ],
                )
                .battle(0, &[Card::Go, Card::Stop])
                .distance(0, &[Card::D100])
                .battle(1, &[Card::Go])
                .distance(1, &[Card::D100]),
            60,
        );
        let go = Action::Play {
            card: Card::Go,
            team: 0,
        };
        assert_eq!(ClassicBot::new(1).decide_state(&next_hand, seat0()), go);
        let mut bot = ClassicBot::new(1);
        for _ in 0..4 {
            bot.decide_state(&stopped, seat0());
        }
        assert_eq!(
            bot.decide_state(&next_hand, seat0()),
            Action::Play {
                card: Card::OutOfGas,
                team: 1
            }
        );
    }

    /// BSD decides the extension with the card that reached 700 still in
    /// its hand: here it makes the hand's miles plus three a card left
    /// pass 1000.
    #[test]
    fn the_extension_counts_the_card_that_reached_700() {
        let mut state = turn_of_seat0(
            scenario()
                .hand(
                    0,
                    &[
                        Card::D200,
                        Card::D100,
                        Card::D100,
                        Card::D100,
                        Card::D100,
                        Card::D75,
                        Card::D200,
                    ],
                )
                .battle(0, &[Card::Go])
                .distance(0, &[Card::D100; 5])
                .safeties(0, &[Card::ExtraTank, Card::PunctureProof], false)
                .battle(1, &[Card::Go])
                .distance(1, &[Card::D100, Card::D200])
                .safeties(1, &[Card::DrivingAce], false),
            60,
        );
        let mut bot = ClassicBot::new(1);
        let play = bot.decide_state(&state, seat0());
        assert_eq!(
            play,
            Action::Play {
                card: Card::D200,
                team: 0
            }
        );
        state.apply(play).expect("legal");
        assert!(matches!(state.phase(), Phase::Extension { .. }));
        assert_eq!(bot.decide_state(&state, seat0()), Action::Extend(true));
    }

    /// After a coup fourré BSD's blank slots are the first two (the card
    /// of slot 1 fills the safety's slot) and take the two cards drawn, so
    /// of two hazards worth the same it plays the one it held, not the one
    /// it drew.
    #[test]
    fn the_hand_order_after_a_coup_fourre_is_bsd_s() {
        let mut deck = vec![Card::D25; 30];
        deck.extend([Card::FlatTire, Card::D75]);
        let mut state = scenario()
            .hand(
                0,
                &[
                    Card::OutOfGas,
                    Card::D100,
                    Card::RightOfWay,
                    Card::D75,
                    Card::D50,
                    Card::D25,
                ],
            )
            .battle(0, &[Card::Go])
            .speed(0, &[Card::SpeedLimit])
            .distance(0, &[Card::D100])
            .battle(1, &[Card::Go])
            .distance(1, &[Card::D100])
            .deck(&deck)
            .phase(Phase::CoupFourre {
                seat: seat0(),
                hazard: Card::SpeedLimit,
                attacker: mille_engine::Rules::new(GameConfig::default())
                    .expect("config")
                    .seat(1)
                    .expect("seat 1"),
            })
            .build();
        let mut bot = ClassicBot::new(1);
        let coup = bot.decide_state(&state, seat0());
        assert_eq!(coup, Action::CoupFourre(Card::RightOfWay));
        state.apply(coup).expect("legal");
        assert_eq!(
            bot.decide_state(&state, seat0()),
            Action::Play {
                card: Card::OutOfGas,
                team: 1
            }
        );
    }

    /// BSD's `canplay` refuses a Speed Limit on an opponent within 50
    /// miles of the end: with nothing else to play it is a discard turn, and
    /// the limit (worth 1 then) goes.
    #[test]
    fn no_speed_limit_within_50_of_the_end() {
        let state = turn_of_seat0(
            scenario()
                .hand(
                    0,
                    &[
                        Card::SpeedLimit,
                        Card::D200,
                        Card::D200,
                        Card::D100,
                        Card::D100,
                        Card::D75,
                        Card::D75,
                    ],
                )
                .battle(0, &[Card::Go, Card::Stop])
                .distance(0, &[Card::D100])
                .battle(1, &[Card::Go])
                .distance(
                    1,
                    &[Card::D200, Card::D200, Card::D100, Card::D100, Card::D75],
                ),
            40,
        );
        assert_eq!(
            ClassicBot::new(1).decide_state(&state, seat0()),
            Action::Discard(Card::SpeedLimit)
        );
    }

    /// With Right of Way in hand BSD keeps a Go at 2 and an End of Limit at
    /// 1, so the End of Limit goes.
    #[test]
    fn go_is_worth_two_with_right_of_way_in_hand() {
        let state = turn_of_seat0(
            scenario()
                .hand(
                    0,
                    &[
                        Card::EndOfLimit,
                        Card::Go,
                        Card::RightOfWay,
                        Card::D100,
                        Card::D100,
                        Card::D75,
                        Card::D75,
                    ],
                )
                .battle(0, &[Card::Go, Card::Accident])
                .distance(0, &[Card::D100])
                .battle(1, &[Card::Go])
                .distance(1, &[Card::D100]),
            80,
        );
        assert_eq!(
            ClassicBot::new(1).decide_state(&state, seat0()),
            Action::Discard(Card::EndOfLimit)
        );
    }

    /// When discarding, BSD divides a remedy's worth by the square of the
    /// copies still counted: the first of two Gasolines is worth 3 and goes
    /// before a 75.
    #[test]
    fn a_second_remedy_is_worth_a_quarter() {
        let state = turn_of_seat0(
            scenario()
                .hand(
                    0,
                    &[
                        Card::Gasoline,
                        Card::Gasoline,
                        Card::D50,
                        Card::D100,
                        Card::D100,
                        Card::D75,
                        Card::D200,
                    ],
                )
                .battle(0, &[Card::Go, Card::Stop])
                .distance(0, &[Card::D100])
                .battle(1, &[Card::Go])
                .distance(1, &[Card::D100]),
            40,
        );
        assert_eq!(
            ClassicBot::new(1).decide_state(&state, seat0()),
            Action::Discard(Card::Gasoline)
        );
    }

    /// A reseeded bot keeps its memory (the search starts every seat's
    /// player from it) and draws its late safeties from the new seed.
    #[test]
    fn reseeded_keeps_the_memory() {
        let mut bot = ClassicBot::new(1);
        bot.need[bsd::GO as usize] += 6;
        bot.last = Some((40, 30));
        let copy = bot.reseeded(2);
        assert_eq!(copy.need, bot.need);
        assert_eq!(copy.last, bot.last);
        let (mut a, mut b) = (bot.rng.clone(), copy.rng.clone());
        let draws = |r: &mut ChaCha8Rng| (0..8).map(|_| bounded(r, 10)).collect::<Vec<_>>();
        assert_ne!(draws(&mut a), draws(&mut b));
    }

    /// Stopped by an accident with nothing to play, the original keeps its
    /// End of Limit (worth as much as any remedy to it) and the sharpened
    /// bot throws it away; `unsharpened` is the original again.
    #[test]
    fn the_sharpened_bot_lets_end_of_limit_go() {
        use mille_engine::{Rules, Scenario};
        let seat0 = Rules::new(GameConfig::default())
            .expect("config")
            .seat(0)
            .expect("seat 0");
        let state = Scenario::new(GameConfig::default())
            .expect("config")
            .hand(
                0,
                &[
                    Card::EndOfLimit,
                    Card::Gasoline,
                    Card::SpareTire,
                    Card::D100,
                    Card::D75,
                    Card::D75,
                    Card::Go,
                ],
            )
            .battle(0, &[Card::Go, Card::Accident])
            .distance(0, &[Card::D100])
            .phase(Phase::Turn {
                seat: seat0,
                drawn: true,
            })
            .build();
        let original = ClassicBot::new(1).decide_state(&state, seat0);
        let sharp = ClassicBot::sharpened(1);
        assert_ne!(original, Action::Discard(Card::EndOfLimit), "{original:?}");
        assert!(matches!(original, Action::Discard(_)), "{original:?}");
        assert_eq!(
            sharp.clone().decide_state(&state, seat0),
            Action::Discard(Card::EndOfLimit)
        );
        assert_eq!(sharp.unsharpened().decide_state(&state, seat0), original);
    }

    /// A fresh bot shown the hand so far (as the terminal game makes one
    /// for every decision) remembers what a bot that played the whole game
    /// remembers, so the terminal game's `classic` is the measured one; a
    /// bot that is also shown its own moves does not count them twice.
    #[test]
    fn a_fresh_bot_watching_the_hand_remembers_as_the_player() {
        let (mut turns, mut grown) = (0, 0);
        for deal in 0..6 {
            let config = GameConfig::default();
            let mut state = State::new(config, deal).expect("config");
            let mut record = GameRecord {
                config,
                seed: deal,
                actions: Vec::new(),
            };
            let mut bots = [ClassicBot::new(deal), ClassicBot::new(deal + 50)];
            loop {
                let action = match state.to_act() {
                    ToAct::Seat(s) => {
                        let bot = &mut bots[usize::from(s)];
                        if matches!(state.phase(), Phase::Turn { drawn: true, .. }) {
                            let mut fresh = ClassicBot::new(7);
                            crate::watch_current_hand(&mut fresh, s, &record).expect("replays");
                            // What each knows of the hand at this decision.
                            let memory = |b: &ClassicBot| {
                                let mut b = b.clone();
                                let k = Knowledge::new(&state, s);
                                let slots = b.arrange(&k, true);
                                (b.numgos, slots)
                            };
                            assert_eq!(memory(&fresh), memory(bot), "deal {deal}, turn {turns}");
                            // `need` is never reset: only in the first hand
                            // does the hand so far tell all of it.
                            if state.hand_number() == 0 {
                                assert_eq!(fresh.need, bot.need, "deal {deal}, turn {turns}");
                            }
                            turns += 1;
                            if bot.need != bsd::INITIAL_NEED {
                                grown += 1;
                            }
                        }
                        let action = bot.decide_state(&state, s);
                        for (i, b) in state.rules().seats_iter().zip(bots.iter_mut()) {
                            if mille_engine::seen_by(i.number(), s.number(), action) {
                                b.watch_view(&state.view(i), s.number(), action);
                            }
                        }
                        action
                    }
                    ToAct::Deal => Action::NextHand,
                    ToAct::GameOver => break,
                };
                state.apply(action).expect("legal");
                record.actions.push(action);
            }
        }
        assert!(grown > turns / 10, "needs grew in {grown} of {turns} turns");
    }

    /// The move the bot makes always has a chance under `probability`,
    /// the chances of a turn's legal moves add up to 1, and some turns
    /// are decided by the late-safety draw.
    #[test]
    fn probability_covers_the_moves_made() {
        let (mut fractions, mut decisions) = (0, 0);
        let mut legal = mille_engine::ActionList::default();
        for deal in 0..60 {
            let mut state = State::new(GameConfig::default(), deal).expect("config");
            let mut bots = [ClassicBot::new(deal), ClassicBot::new(deal + 50)];
            while let ToAct::Seat(s) = state.to_act() {
                let bot = &mut bots[usize::from(s)];
                let before = bot.clone();
                let action = bot.decide_state(&state, s);
                let p = before.probability(&state, s, action);
                assert!(p > 0.0, "deal {deal}: {action} made with probability 0");
                if matches!(state.phase(), Phase::Turn { drawn: true, .. }) {
                    decisions += 1;
                    if p < 1.0 {
                        fractions += 1;
                        // The real draws make the move about that often.
                        let made = (0..400)
                            .filter(|&k| {
                                let mut b = before.clone();
                                b.rng = ChaCha8Rng::seed_from_u64(k);
                                b.decide_state(&state, s) == action
                            })
                            .count() as f64
                            / 400.0;
                        assert!(
                            (made - p).abs() < 0.08,
                            "deal {deal}: {made} made, {p} said"
                        );
                    }
                    state.legal_actions(&mut legal);
                    let total: f64 = legal
                        .iter()
                        .map(|&a| before.probability(&state, s, a))
                        .sum();
                    assert!(
                        (total - 1.0).abs() < 1e-9,
                        "deal {deal}: chances add to {total}"
                    );
                }
                state.apply(action).expect("legal");
            }
        }
        assert!(
            fractions > 0,
            "no late safety decided by the draw in {decisions} turns"
        );
    }
}
