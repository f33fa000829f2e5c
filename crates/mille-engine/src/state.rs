//! The full truth of a game: every hand, the draw pile, each side's
//! tableau, the scores, whose move it is; and the rules that move it on
//! (`legal_actions`, `check`, `apply`).

use crate::action::{Action, ActionList};
use crate::card::{Card, CardCounts, Kind, Safety, SafetySet};
use crate::error::IllegalAction;
use crate::pile::{Discards, Pile};
use crate::rules::{
    ConfigError, CoupTiming, ExtensionScoring, GameConfig, HandEnd, MAX_SEATS, MAX_TEAMS, Rules,
};
use crate::score::HandScore;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// Largest deck.
pub const MAX_DECK: usize = crate::rules::MAX_DECK_CARDS;
/// Most cards a hand can hold (6 dealt, one drawn, one spare).
pub const MAX_HAND: usize = 8;
pub use crate::pile::Hand;

/// One side's cards on the table for the current hand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tableau {
    /// Battle pile, bottom first (hazards and remedies other than speed).
    pub battle: Pile<48>,
    /// Speed pile, bottom first (Speed Limit and End of Limit).
    pub speed: Pile<12>,
    /// Distance cards played, counted per kind (25, 50, 75, 100, 200).
    pub distance: [u8; 5],
    /// Miles travelled this hand.
    pub miles: u16,
    /// Safeties in play.
    pub safeties: SafetySet,
    /// Safeties played as coups fourrés.
    pub coups: SafetySet,
    /// What every decision asks of this side, kept up to date by
    /// [`Tableau::refresh`] whenever a card lands here.
    fast: FastStatus,
}

/// The cached answers of the hot path (see [`State::turn_choices`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct FastStatus {
    /// Cards this side may play on itself now (distance included, for the
    /// current target), if held.
    own: u32,
    /// Hazards that may be played on this side.
    attack: u32,
}

impl Tableau {
    /// Whether a hazard on this side still counts (its safety is not in play).
    #[inline]
    pub fn counts(&self, hazard: Card) -> bool {
        match hazard.safety() {
            Some(s) => hazard.kind() == Kind::Hazard && !self.safeties.has(s),
            None => false,
        }
    }

    /// The hazard on top of the battle pile that still stops the side.
    #[inline]
    pub fn stopping_hazard(&self) -> Option<Card> {
        self.battle.top().filter(|&c| self.counts(c))
    }

    /// Whether the side may play distance (ignoring speed): a Go on top, or
    /// Right of Way with no counting hazard, or (bsd decision 1) a hazard its
    /// safety cancelled.
    #[inline]
    pub fn can_go(&self, rules: &Rules) -> bool {
        let row = self.safeties.has(Safety::RightOfWay);
        match self.battle.top() {
            Some(Card::Go) => true,
            Some(top) if top.kind() == Kind::Hazard => {
                !self.counts(top) && (row || rules.safety_lets_go)
            }
            _ => row,
        }
    }

    /// Whether a Speed Limit holds the side to 50 miles.
    #[inline]
    pub fn limited(&self) -> bool {
        self.speed.top() == Some(Card::SpeedLimit) && !self.safeties.has(Safety::RightOfWay)
    }

    /// Number of 200s played this hand.
    #[inline]
    pub fn two_hundreds(&self) -> u8 {
        self.distance[4]
    }

    /// The distance cards played, smallest first.
    pub fn distance_cards(&self) -> impl Iterator<Item = Card> + '_ {
        Card::DISTANCES
            .into_iter()
            .zip(self.distance)
            .flat_map(|(c, n)| std::iter::repeat_n(c, n as usize))
    }

    /// Every card of this tableau, for accounting.
    pub fn count_into(&self, counts: &mut CardCounts) {
        counts.add_all(self.battle.as_slice().iter().copied());
        counts.add_all(self.speed.as_slice().iter().copied());
        // Counted by kind, not card by card: the computer players count
        // cards at every decision of their play-outs.
        for (c, n) in Card::DISTANCES.into_iter().zip(self.distance) {
            let count = &mut counts.0[c as usize];
            *count = count.saturating_add(n);
        }
        counts.add_all(self.safeties.cards());
    }
}

/// What the game is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// A seat's turn: it draws (unless `drawn`), then plays or discards.
    Turn {
        /// The seat.
        seat: u8,
        /// Whether the draw is done (or skipped because the pile is empty).
        drawn: bool,
    },
    /// `seat` holds the safety matching the hazard just played on its side
    /// and may call coup fourré.
    CoupFourre {
        /// The seat holding the safety.
        seat: u8,
        /// The hazard to answer.
        hazard: Card,
        /// Who played the hazard (play continues after them on a decline,
        /// in the classic timing).
        attacker: u8,
    },
    /// `seat` reached the target and chooses whether to extend.
    Extension {
        /// The seat that reached the target.
        seat: u8,
    },
    /// The hand is scored; the next hand may be dealt.
    HandOver,
    /// A side reached the game total; a new game may start.
    GameOver,
}

/// Who acts next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToAct {
    /// This seat decides.
    Seat(u8),
    /// The hand is over: whoever runs the table deals the next one.
    Deal,
    /// The game is over: whoever runs the table may start another.
    GameOver,
}

/// What an applied action caused, beyond the action itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Cards drawn automatically (after a coup fourré).
    pub auto_drawn: u8,
    /// The card drawn by a `Draw` action.
    pub drawn: Option<Card>,
    /// A side completed the trip.
    pub trip_completed: Option<u8>,
    /// The hand ended with this action.
    pub hand_over: bool,
    /// The game ended with this action.
    pub game_over: bool,
}

/// The complete state of a game of Mille Bornes.
#[derive(Clone, Debug)]
pub struct State {
    pub(crate) rules: Rules,
    /// Shuffles the deck for each new hand (seeded, so games replay).
    pub(crate) rng: ChaCha8Rng,
    pub(crate) phase: Phase,
    pub(crate) deck: Pile<MAX_DECK>,
    pub(crate) discards: Discards<MAX_DECK>,
    pub(crate) hands: [Hand; MAX_SEATS],
    pub(crate) tableaux: [Tableau; MAX_TEAMS],
    pub(crate) target: u16,
    /// The hazards each team may be attacked with, team `t` in bits
    /// `5t..5t+5` (hazard order), unused teams empty: kept by
    /// [`State::refresh_side`] for [`State::turn_choices`].
    attack_lanes: u64,
    /// The side that called an extension this hand.
    pub(crate) extension_caller: Option<u8>,
    pub(crate) completed: Option<u8>,
    pub(crate) completed_delayed: bool,
    /// Totals before the current hand.
    pub(crate) totals: [u32; MAX_TEAMS],
    pub(crate) games_won: [u32; MAX_TEAMS],
    pub(crate) hand_number: u32,
    pub(crate) first_seat: u8,
    pub(crate) last_scores: Option<[HandScore; MAX_TEAMS]>,
}

impl State {
    /// A new game, its first hand dealt from a ChaCha8 stream seeded by `seed`.
    pub fn new(config: GameConfig, seed: u64) -> Result<State, ConfigError> {
        let rules = Rules::new(config)?;
        let mut s = State::empty(rules, ChaCha8Rng::seed_from_u64(seed));
        s.deal(0);
        Ok(s)
    }

    pub(crate) fn empty(rules: Rules, rng: ChaCha8Rng) -> State {
        let mut s = State {
            rules,
            rng,
            phase: Phase::HandOver,
            deck: Pile::default(),
            discards: Discards::default(),
            hands: [Hand::default(); MAX_SEATS],
            tableaux: [Tableau::default(); MAX_TEAMS],
            target: rules.target,
            attack_lanes: 0,
            extension_caller: None,
            completed: None,
            completed_delayed: false,
            totals: [0; MAX_TEAMS],
            games_won: [0; MAX_TEAMS],
            hand_number: 0,
            first_seat: 0,
            last_scores: None,
        };
        s.refresh_all();
        s
    }

    /// Shuffles a fresh deck and deals a hand that `first` starts.
    #[inline(never)]
    fn deal(&mut self, first: u8) {
        self.deck = match self.rules.deck {
            crate::rules::DECK_101 => SORTED_DECK_101,
            crate::rules::DECK_106 => SORTED_DECK_106,
            _ => {
                let mut deck = Pile::default();
                for c in Card::ALL {
                    deck.push_copies(c, self.rules.copies(c));
                }
                deck
            }
        };
        shuffle(self.deck.as_mut_slice(), &mut self.rng);
        self.discards.clear();
        self.tableaux = [Tableau::default(); MAX_TEAMS];
        self.target = self.rules.target;
        self.refresh_all();
        self.extension_caller = None;
        self.completed = None;
        self.completed_delayed = false;
        self.first_seat = first;
        let n = self.rules.seats as usize;
        for h in &mut self.hands {
            h.clear();
        }
        for _ in 0..self.rules.hand_size {
            for i in 0..n {
                let seat = (first as usize + i) % n;
                if let Some(c) = self.deck.pop() {
                    self.hands[seat].push(c);
                }
            }
        }
        self.begin_turn(first, None);
    }

    /// The seat after `seat` in turn order (no division: this runs on
    /// every move).
    #[inline]
    fn next_seat(&self, seat: u8) -> u8 {
        if seat + 1 >= self.rules.seats {
            0
        } else {
            seat + 1
        }
    }

    /// Recomputes every side's cached status (after building a position or
    /// changing the target).
    pub(crate) fn refresh_all(&mut self) {
        for team in 0..MAX_TEAMS as u8 {
            self.refresh_side(team);
        }
    }

    /// Recomputes a side's cached status after cards landed on it.
    #[inline]
    pub(crate) fn refresh_side(&mut self, team: u8) {
        let t = &mut self.tableaux[team as usize];
        t.refresh(&self.rules, self.target);
        let shift = 5 * u32::from(team);
        let lane = if team < self.rules.teams {
            u64::from(t.fast.attack >> Card::OutOfGas as u32)
        } else {
            0
        };
        self.attack_lanes = (self.attack_lanes & !(LANE << shift)) | lane << shift;
    }

    // ----- read access -----

    /// The rules of this game.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// What the game waits for.
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// Who acts next.
    pub fn to_act(&self) -> ToAct {
        match self.phase {
            Phase::Turn { seat, .. }
            | Phase::CoupFourre { seat, .. }
            | Phase::Extension { seat } => ToAct::Seat(seat),
            Phase::HandOver => ToAct::Deal,
            Phase::GameOver => ToAct::GameOver,
        }
    }
    /// A seat's hand, in slot order.
    pub fn hand(&self, seat: u8) -> &[Card] {
        self.hands[seat as usize].as_slice()
    }
    /// A side's tableau.
    pub fn tableau(&self, team: u8) -> &Tableau {
        &self.tableaux[team as usize]
    }
    /// Cards left in the draw pile.
    pub fn deck_len(&self) -> usize {
        self.deck.len()
    }
    /// The draw pile, bottom first (the next card drawn is last).
    pub fn deck(&self) -> &[Card] {
        self.deck.as_slice()
    }
    /// The discards, oldest first.
    pub fn discards(&self) -> &[Card] {
        self.discards.as_slice()
    }
    /// The discards counted per kind.
    pub fn discard_counts(&self) -> &CardCounts {
        self.discards.counts()
    }
    /// The current trip length (700, or 1000 after an extension).
    pub fn target(&self) -> u16 {
        self.target
    }
    /// The side that extended this hand, if any.
    pub fn extension_caller(&self) -> Option<u8> {
        self.extension_caller
    }
    /// The side that completed the trip this hand, if any.
    pub fn completed(&self) -> Option<u8> {
        self.completed
    }
    /// Game totals before the current hand (after it, once it is over).
    pub fn totals(&self) -> &[u32] {
        &self.totals[..self.rules.teams as usize]
    }
    /// Games won by each side in this session.
    pub fn games_won(&self) -> &[u32] {
        &self.games_won[..self.rules.teams as usize]
    }
    /// Hands dealt in this game before the current one.
    pub fn hand_number(&self) -> u32 {
        self.hand_number
    }
    /// The seat that started the current hand.
    pub fn first_seat(&self) -> u8 {
        self.first_seat
    }
    /// The score of the hand that just ended (set at `HandOver`/`GameOver`).
    pub fn last_scores(&self) -> Option<&[HandScore]> {
        self.last_scores
            .as_ref()
            .map(|s| &s[..self.rules.teams as usize])
    }
    /// The team a seat plays for.
    #[inline]
    pub fn team_of(&self, seat: u8) -> u8 {
        self.rules.team_of(seat)
    }
    /// The winning sides of a finished game (several on a tie).
    pub fn winners(&self) -> Vec<u8> {
        if self.phase != Phase::GameOver {
            return Vec::new();
        }
        let best = self.totals().iter().copied().max().unwrap_or(0);
        (0..self.rules.teams)
            .filter(|&t| self.totals[t as usize] == best)
            .collect()
    }

    /// Points a side has scored so far in the current hand (the full hand
    /// score once the hand is over).
    pub fn hand_points(&self, team: u8) -> HandScore {
        HandScore::running(self, team)
    }

    /// Every card the state holds, per kind (deck + hands + piles + discards).
    pub fn card_counts(&self) -> CardCounts {
        let mut counts = CardCounts::default();
        counts.add_all(self.deck.as_slice().iter().copied());
        counts.add_all(self.discards.as_slice().iter().copied());
        for h in &self.hands[..self.rules.seats as usize] {
            counts.add_all(h.as_slice().iter().copied());
        }
        for t in &self.tableaux[..self.rules.teams as usize] {
            t.count_into(&mut counts);
        }
        counts
    }

    // ----- legality -----

    /// Whether `seat` may play `card` on `target` now, ignoring whose turn it
    /// is and whether the card is in hand: the pure rule of the card.
    pub fn check_card(&self, seat: u8, card: Card, target: u8) -> Result<(), IllegalAction> {
        let own = self.team_of(seat);
        let me = self.tableaux[own as usize].status(&self.rules);
        if card.kind() != Kind::Hazard {
            if target != own {
                return Err(IllegalAction::OwnSideOnly(card));
            }
            return card_rule(&me, None, card, self.target, self.rules.stacking);
        }
        if target == own {
            return Err(IllegalAction::HazardOnOwnSide);
        }
        if target >= self.rules.teams {
            return Err(IllegalAction::NoSuchTeam(target));
        }
        let them = self.tableaux[target as usize].status(&self.rules);
        card_rule(&me, Some(&them), card, self.target, self.rules.stacking)
    }

    /// Whether `action` is legal now for whoever is to act.
    pub fn check(&self, action: Action) -> Result<(), IllegalAction> {
        match self.phase {
            Phase::Turn { seat, drawn } => match action {
                Action::Draw => {
                    if drawn {
                        if self.deck.is_empty() {
                            Err(IllegalAction::DeckEmpty)
                        } else {
                            Err(IllegalAction::AlreadyDrew)
                        }
                    } else {
                        Ok(())
                    }
                }
                Action::Play { card, target } => {
                    if !drawn {
                        return Err(IllegalAction::MustDrawFirst);
                    }
                    if !self.hands[seat as usize].contains(card) {
                        return Err(IllegalAction::NotInHand(card));
                    }
                    self.check_card(seat, card, target)
                }
                Action::Discard(card) => {
                    if !drawn {
                        return Err(IllegalAction::MustDrawFirst);
                    }
                    if !self.hands[seat as usize].contains(card) {
                        return Err(IllegalAction::NotInHand(card));
                    }
                    if card.kind() == Kind::Safety && !self.rules.safeties_discardable {
                        return Err(IllegalAction::SafetyNotDiscardable(card));
                    }
                    Ok(())
                }
                Action::CoupFourre(_) | Action::DeclineCoupFourre => {
                    Err(IllegalAction::NoCoupFourre)
                }
                Action::Extend(_) => Err(IllegalAction::NoExtensionAsked),
                Action::NextHand | Action::NextGame => Err(IllegalAction::HandInProgress),
            },
            Phase::CoupFourre { seat, hazard, .. } => match action {
                Action::CoupFourre(safety) => {
                    let needed = hazard
                        .safety()
                        .map(Safety::card)
                        .unwrap_or(Card::RightOfWay);
                    if safety != needed {
                        Err(IllegalAction::WrongCoupFourre {
                            safety,
                            hazard,
                            needed,
                        })
                    } else if !self.hands[seat as usize].contains(safety) {
                        Err(IllegalAction::NotInHand(safety))
                    } else {
                        Ok(())
                    }
                }
                Action::DeclineCoupFourre => Ok(()),
                Action::Extend(_) => Err(IllegalAction::NoExtensionAsked),
                Action::NextHand | Action::NextGame => Err(IllegalAction::HandInProgress),
                _ => Err(IllegalAction::CoupFourrePending(hazard)),
            },
            Phase::Extension { .. } => match action {
                Action::Extend(_) => Ok(()),
                Action::NextHand | Action::NextGame => Err(IllegalAction::HandInProgress),
                _ => Err(IllegalAction::ExtensionPending),
            },
            Phase::HandOver => match action {
                Action::NextHand => Ok(()),
                _ => Err(IllegalAction::HandOver),
            },
            Phase::GameOver => match action {
                Action::NextGame => Ok(()),
                _ => Err(IllegalAction::GameOver),
            },
        }
    }

    /// Like [`State::check`], but also that `seat` is the one to act.
    pub fn check_as(&self, seat: u8, action: Action) -> Result<(), IllegalAction> {
        match self.to_act() {
            ToAct::Seat(s) if s != seat => Err(IllegalAction::NotYourTurn { expected: s }),
            _ => self.check(action),
        }
    }

    /// Every legal action of whoever is to act, in protocol order (plays by
    /// card id then target, then discards by card id), each listed once.
    pub fn legal_actions(&self, out: &mut ActionList) {
        out.clear();
        match self.phase {
            Phase::Turn { drawn: false, .. } => out.push(Action::Draw),
            Phase::Turn { seat, drawn: true } => self.legal_turn_actions(seat, out),
            Phase::CoupFourre { hazard, .. } => {
                if let Some(s) = hazard.safety() {
                    out.push(Action::CoupFourre(s.card()));
                }
                out.push(Action::DeclineCoupFourre);
            }
            Phase::Extension { .. } => {
                out.push(Action::Extend(true));
                out.push(Action::Extend(false));
            }
            Phase::HandOver => out.push(Action::NextHand),
            Phase::GameOver => out.push(Action::NextGame),
        }
    }

    /// The play and discard actions of `seat` after its draw, in protocol
    /// order: plays by card id then target team, then discards by card id.
    pub(crate) fn legal_turn_actions(&self, seat: u8, out: &mut ActionList) {
        let choices = self.turn_choices(seat);
        let own = self.team_of(seat);
        let own_plays = choices as u32 & CARD_BITS;
        let lanes = choices >> ATTACK_SHIFT;
        let hazards = ((lanes | lanes >> 5 | lanes >> 10) & LANE) as u32;
        let mut plays = own_plays | hazards << Card::OutOfGas as u32;
        while plays != 0 {
            let i = plays.trailing_zeros() as usize;
            plays &= plays - 1;
            let card = Card::ALL[i];
            if own_plays & 1 << i != 0 {
                out.push(Action::Play { card, target: own });
                continue;
            }
            let h = i - Card::OutOfGas as usize;
            for t in 0..self.rules.teams {
                if lanes & 1 << (5 * usize::from(t) + h) != 0 {
                    out.push(Action::Play { card, target: t });
                }
            }
        }
        let mut discards = (choices >> DISCARD_SHIFT) as u32 & CARD_BITS;
        while discards != 0 {
            out.push(Action::Discard(
                Card::ALL[discards.trailing_zeros() as usize],
            ));
            discards &= discards - 1;
        }
    }

    /// The card kinds that may be discarded.
    #[inline(always)]
    fn discardable(&self) -> u32 {
        if self.rules.safeties_discardable {
            u32::MAX
        } else {
            !SAFETY_BITS
        }
    }

    /// A uniformly random legal action of whoever is to act, without
    /// building the list: the same distribution as picking from
    /// [`State::legal_actions`], for fast random play-outs.
    pub fn random_legal_action<R: Rng + ?Sized>(&self, rng: &mut R) -> Action {
        match self.phase {
            Phase::Turn { drawn: false, .. } => Action::Draw,
            Phase::Turn { seat, drawn: true } => self.random_turn_action(seat, rng),
            _ => self.random_listed_action(rng),
        }
    }

    /// Plays one uniformly random legal action and returns it: the loop body
    /// of random play-outs, looking at the phase once.
    #[inline]
    pub fn step_random<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Action {
        match self.phase {
            Phase::Turn { seat, drawn: false } => {
                if let Some(c) = self.deck.pop() {
                    self.hands[seat as usize].push(c);
                }
                self.phase = Phase::Turn { seat, drawn: true };
                Action::Draw
            }
            Phase::Turn { seat, drawn: true } => {
                let Some(choice) = self.random_choice(seat, rng) else {
                    return Action::Draw;
                };
                self.move_card(seat, choice.card, choice.team, choice.effect);
                choice.action()
            }
            _ => {
                let a = self.random_listed_action(rng);
                self.apply_rare(a);
                a
            }
        }
    }

    /// Plays uniformly random legal actions until the hand is over and
    /// returns how many were applied: [`State::step_random`] in a loop, with
    /// each draw and the play after it taken in one step (the alternation
    /// of the two is what a branch predictor handles worst).
    pub fn play_random_hand<R: Rng + ?Sized>(&mut self, rng: &mut R) -> u32 {
        let mut n = 0;
        loop {
            match self.phase {
                Phase::Turn { seat, drawn } => {
                    if !drawn {
                        if let Some(c) = self.deck.pop() {
                            self.hands[seat as usize].push(c);
                        }
                        n += 1;
                    }
                    if let Some(choice) = self.random_choice(seat, rng) {
                        self.move_card(seat, choice.card, choice.team, choice.effect);
                    }
                    n += 1;
                }
                Phase::HandOver | Phase::GameOver => return n,
                _ => {
                    let a = self.random_listed_action(rng);
                    self.apply_rare(a);
                    n += 1;
                }
            }
        }
    }

    #[inline(never)]
    fn random_listed_action<R: Rng + ?Sized>(&self, rng: &mut R) -> Action {
        let mut list = ActionList::default();
        self.legal_actions(&mut list);
        if list.is_empty() {
            Action::Draw
        } else {
            list[bounded(rng, list.len() as u32) as usize]
        }
    }

    /// A uniformly random play or discard of `seat` after its draw.
    #[inline]
    fn random_turn_action<R: Rng + ?Sized>(&self, seat: u8, rng: &mut R) -> Action {
        self.random_choice(seat, rng)
            .map_or(Action::Draw, |choice| choice.action())
    }

    /// A uniformly random play or discard of `seat` after its draw, its
    /// target team resolved (none when the seat has no card).
    #[inline]
    fn random_choice<R: Rng + ?Sized>(&self, seat: u8, rng: &mut R) -> Option<Choice> {
        let choices = self.turn_choices(seat);
        let total = choices.count_ones();
        if total == 0 {
            return None;
        }
        let k = bounded(rng, total);
        Some(CHOICES[(select_bit(choices, k) & 63) as usize].resolve(self.team_of(seat)))
    }

    /// Every legal play and discard of `seat` after its draw as one bit set
    /// (layout: [`ATTACK_SHIFT`], [`DISCARD_SHIFT`]), so that a uniform
    /// choice is one count, one random number and one select, with no
    /// branch on what was chosen.
    ///
    /// This is the hot path of every search, so it reads masks cached when
    /// cards land ([`SideStatus::own_playable`], [`SideStatus::attackable`])
    /// rather than asking [`card_rule`] card by card; the property tests
    /// check that both always agree.
    #[inline]
    fn turn_choices(&self, seat: u8) -> u64 {
        let held = self.held_kinds(seat);
        let own = self.team_of(seat);
        let own_plays = held & self.tableaux[own as usize].fast.own;
        // The hazards held, once in every team's lane, against what each
        // other team may be attacked with.
        let hazards = u64::from((held & HAZARD_BITS) >> Card::OutOfGas as u32) * LANE_COPIES;
        let attacks = hazards & self.attack_lanes & !(LANE << (5 * own));
        u64::from(own_plays)
            | attacks << ATTACK_SHIFT
            | u64::from(held & self.discardable()) << DISCARD_SHIFT
    }

    /// Bit set of the card kinds in a seat's hand.
    #[inline]
    fn held_kinds(&self, seat: u8) -> u32 {
        self.hands[seat as usize].kinds()
    }

    /// Whether `seat` holds a card it could play now (not a discard).
    pub fn can_play_something(&self, seat: u8) -> bool {
        self.turn_choices(seat) & ((1 << DISCARD_SHIFT) - 1) != 0
    }

    // ----- moving on -----

    /// Applies a legal action of whoever is to act, or says why it is not
    /// legal (and changes nothing).
    pub fn apply(&mut self, action: Action) -> Result<Outcome, IllegalAction> {
        self.check(action)?;
        Ok(self.apply_unchecked(action))
    }

    /// Applies an action known to be legal (from [`State::legal_actions`]).
    /// For search; an illegal action leaves the state inconsistent.
    #[inline]
    pub fn apply_unchecked(&mut self, action: Action) -> Outcome {
        // The three moves of every turn get small functions of their own (the
        // draw inline); everything else (coups fourrés, extensions, deals)
        // lives out of line.
        let seat = match self.phase {
            Phase::Turn { seat, .. } => seat,
            _ => return self.apply_rare(action),
        };
        match action {
            Action::Draw => {
                let drawn = self.deck.pop();
                if let Some(c) = drawn {
                    self.hands[seat as usize].push(c);
                }
                self.phase = Phase::Turn { seat, drawn: true };
                Outcome {
                    drawn,
                    ..Outcome::default()
                }
            }
            Action::Discard(card) => self.turn_move(seat, card, 0, Effect::Discard),
            Action::Play { card, target } => self.turn_move(seat, card, target, Effect::of(card)),
            _ => self.apply_rare(action),
        }
    }

    /// A play or discard, out of line (the random play-outs inline theirs).
    #[inline(never)]
    fn turn_move(&mut self, seat: u8, card: Card, target: u8, effect: Effect) -> Outcome {
        self.move_card(seat, card, target, effect);
        self.finish_outcome(Outcome::default())
    }

    /// Fills in what the action left behind: whether it ended the hand or
    /// the game, and (then) whether a trip was completed.
    #[inline]
    fn finish_outcome(&self, mut out: Outcome) -> Outcome {
        out.hand_over = matches!(self.phase, Phase::HandOver | Phase::GameOver);
        // `completed` is only ever set as the hand ends.
        out.trip_completed = if out.hand_over { self.completed } else { None };
        out.game_over = self.phase == Phase::GameOver;
        out
    }

    #[inline(never)]
    fn apply_rare(&mut self, action: Action) -> Outcome {
        let mut out = Outcome::default();
        let out_ref = &mut out;
        match (self.phase, action) {
            (Phase::CoupFourre { seat, hazard, .. }, Action::CoupFourre(safety)) => {
                self.hands[seat as usize].remove(safety);
                self.coup_fourre(seat, hazard, safety, out_ref);
            }
            (Phase::CoupFourre { seat, attacker, .. }, Action::DeclineCoupFourre) => {
                match self.rules.coup_timing {
                    CoupTiming::VictimsTurn => self.start_turn_no_window(seat),
                    CoupTiming::Immediate => self.advance_from(attacker, None),
                }
            }
            (Phase::Extension { seat }, Action::Extend(extend)) => {
                if extend {
                    self.extension_caller = Some(self.team_of(seat));
                    self.target = self.rules.extended_target.unwrap_or(self.target);
                    self.refresh_all();
                    self.advance_from(seat, None);
                } else {
                    self.completed = Some(self.team_of(seat));
                    self.end_hand();
                }
            }
            (Phase::HandOver, Action::NextHand) => {
                self.hand_number += 1;
                self.deal(self.next_seat(self.first_seat));
            }
            (Phase::GameOver, Action::NextGame) => {
                self.totals = [0; MAX_TEAMS];
                self.hand_number = 0;
                self.deal(self.next_seat(self.first_seat));
            }
            _ => {}
        }
        self.finish_outcome(out)
    }

    /// Moves a card out of `seat`'s hand to where `effect` sends it and
    /// passes the turn on: the one dispatch of every play and discard (a
    /// single jump on a table-read effect, as what is played is random).
    #[inline(always)]
    fn move_card(&mut self, seat: u8, card: Card, target: u8, effect: Effect) {
        self.hands[seat as usize].remove(card);
        let own = self.team_of(seat);
        match effect {
            Effect::Discard => {
                self.discards.push(card);
                self.advance_from(seat, None);
            }
            Effect::Distance => {
                let t = &mut self.tableaux[own as usize];
                t.miles += card.miles();
                t.distance[card as usize] += 1;
                t.refresh_distance(self.target);
                if t.miles == self.target {
                    self.completed_delayed = self.deck.is_empty();
                    if self.extension_caller.is_none() && self.rules.extended_target.is_some() {
                        self.phase = Phase::Extension { seat };
                    } else {
                        self.completed = Some(own);
                        self.end_hand();
                    }
                } else {
                    self.advance_from(seat, None);
                }
            }
            Effect::Hazard => {
                let t = &mut self.tableaux[target as usize];
                if card == Card::SpeedLimit {
                    t.speed.push(card);
                } else {
                    t.battle.push(card);
                }
                self.refresh_side(target);
                self.advance_from(seat, Some((target, card)));
            }
            Effect::Remedy => {
                let t = &mut self.tableaux[own as usize];
                if card == Card::EndOfLimit {
                    t.speed.push(card);
                } else {
                    t.battle.push(card);
                }
                self.refresh_side(own);
                self.advance_from(seat, None);
            }
            Effect::Safety => {
                if let Some(s) = card.safety() {
                    self.tableaux[own as usize].safeties.insert(s);
                }
                self.refresh_side(own);
                // A safety earns another turn: draw again, then play.
                self.start_turn_no_window(seat);
            }
        }
    }

    #[inline(never)]
    fn coup_fourre(&mut self, seat: u8, hazard: Card, safety: Card, out: &mut Outcome) {
        let team = self.team_of(seat);
        let t = &mut self.tableaux[team as usize];
        if let Some(s) = safety.safety() {
            t.safeties.insert(s);
            t.coups.insert(s);
        }
        // The hazard goes to the discards and the pile shows what it showed
        // before: a side the hazard could land on, so one that could go,
        // or (`stacking`) one stopped by the hazard below, still stopped.
        let removed = if hazard == Card::SpeedLimit {
            t.speed.top() == Some(hazard) && t.speed.pop().is_some()
        } else {
            t.battle.top() == Some(hazard) && t.battle.pop().is_some()
        };
        self.refresh_side(team);
        if removed {
            self.discards.push(hazard);
        }
        // The replacement card, then (bsd, milebones) the normal draw too.
        let draws = match self.rules.coup_timing {
            CoupTiming::VictimsTurn => 2,
            CoupTiming::Immediate => 1,
        };
        for _ in 0..draws {
            if let Some(c) = self.deck.pop() {
                self.hands[seat as usize].push(c);
                out.auto_drawn += 1;
            }
        }
        match self.rules.coup_timing {
            CoupTiming::VictimsTurn => self.phase = Phase::Turn { seat, drawn: true },
            CoupTiming::Immediate => self.start_turn_no_window(seat),
        }
        self.check_exhausted();
    }

    /// Passes the turn on after `seat`'s play, opening a coup fourré window
    /// if `hazard` (team, card) was just played on a side holding the safety.
    fn advance_from(&mut self, seat: u8, hazard: Option<(u8, Card)>) {
        if let Some((team, card)) = hazard
            && self.rules.coup_timing == CoupTiming::Immediate
            && let Some(holder) = self.safety_holder(team, card)
        {
            self.phase = Phase::CoupFourre {
                seat: holder,
                hazard: card,
                attacker: seat,
            };
            return;
        }
        let n = self.rules.seats;
        let mut next = self.next_seat(seat);
        if self.deck.is_empty() {
            // With no draw pile, players with empty hands are passed over.
            let mut tries = 0;
            while self.hands[next as usize].is_empty() {
                tries += 1;
                if tries >= n {
                    self.end_hand();
                    return;
                }
                next = self.next_seat(next);
            }
        }
        self.begin_turn(next, hazard.map(|(t, c)| (t, c, seat)));
    }

    /// Starts `seat`'s turn, first offering a coup fourré on the victim's turn
    /// (bsd, milebones) for a hazard just played on its side.
    fn begin_turn(&mut self, seat: u8, hazard: Option<(u8, Card, u8)>) {
        if let Some((team, card, attacker)) = hazard
            && self.rules.coup_timing == CoupTiming::VictimsTurn
            && self.team_of(seat) == team
            && self.hands[seat as usize].contains(card.safety().map_or(card, Safety::card))
        {
            self.phase = Phase::CoupFourre {
                seat,
                hazard: card,
                attacker,
            };
            return;
        }
        self.start_turn_no_window(seat);
    }

    fn start_turn_no_window(&mut self, seat: u8) {
        self.phase = Phase::Turn {
            seat,
            drawn: self.deck.is_empty(),
        };
        self.check_exhausted();
    }

    /// Ends the hand when the draw pile is gone and the ruleset says play
    /// cannot go on.
    #[inline]
    fn check_exhausted(&mut self) {
        if !self.deck.is_empty() || !matches!(self.phase, Phase::Turn { .. }) {
            return;
        }
        self.check_exhausted_slow();
    }

    #[inline(never)]
    fn check_exhausted_slow(&mut self) {
        let seats = 0..self.rules.seats;
        let over = match self.rules.hand_end {
            HandEnd::HandsEmpty => seats.clone().all(|s| self.hands[s as usize].is_empty()),
            HandEnd::NobodyCanPlay => !seats.clone().any(|s| self.can_play_something(s)),
        };
        if over {
            self.end_hand();
        } else if let Phase::Turn { seat, .. } = self.phase
            && self.hands[seat as usize].is_empty()
        {
            // Nothing left to play: pass to the next seat holding cards.
            self.advance_from(seat, None);
        }
    }

    /// Which seat of `team` holds the safety against `hazard`.
    fn safety_holder(&self, team: u8, hazard: Card) -> Option<u8> {
        let safety = hazard.safety()?.card();
        (0..self.rules.seats)
            .find(|&s| self.team_of(s) == team && self.hands[s as usize].contains(safety))
    }

    #[cold]
    #[inline(never)]
    fn end_hand(&mut self) {
        let mut scores = [HandScore::default(); MAX_TEAMS];
        for t in 0..self.rules.teams {
            scores[t as usize] = HandScore::table_items(self, t);
        }
        if let Some(c) = self.completed {
            let sc = &self.rules.scoring;
            let s = &mut scores[c as usize];
            s.trip = sc.trip;
            if self.completed_delayed {
                s.delayed_action = sc.delayed_action;
            }
            if self.tableaux[c as usize].two_hundreds() == 0 {
                s.safe_trip = sc.safe_trip;
            }
            let shut_out = (0..self.rules.teams)
                .filter(|&t| t != c && self.tableaux[t as usize].miles == 0)
                .count() as u16;
            s.shut_out = sc.shut_out * shut_out;
        }
        if let Some(caller) = self.extension_caller {
            let bonus = self.rules.scoring.extension;
            match self.rules.extension_scoring {
                ExtensionScoring::ToCompleter => {
                    if let Some(c) = self.completed {
                        scores[c as usize].extension = bonus;
                    }
                }
                ExtensionScoring::CallerOrOpponents => {
                    if self.completed == Some(caller) {
                        scores[caller as usize].extension = bonus;
                    } else {
                        for t in 0..self.rules.teams {
                            if t != caller {
                                scores[t as usize].extension = bonus;
                            }
                        }
                    }
                }
            }
        }
        let teams = self.rules.teams as usize;
        for (total, score) in self.totals.iter_mut().zip(&scores).take(teams) {
            *total += u32::from(score.total());
        }
        self.last_scores = Some(scores);
        let goal = u32::from(self.rules.scoring.game);
        if self.totals().iter().any(|&x| x >= goal) {
            self.phase = Phase::GameOver;
            let best = self.totals().iter().copied().max().unwrap_or(0);
            let winners = self.totals().iter().filter(|&&x| x == best).count();
            if winners == 1
                && let Some(w) = self.totals().iter().position(|&x| x == best)
            {
                self.games_won[w] += 1;
            }
        } else {
            self.phase = Phase::HandOver;
        }
    }
}

/// The two decks in card order, before the shuffle (copied rather than
/// built at every deal).
const SORTED_DECK_101: Pile<MAX_DECK> = Pile::sorted(crate::rules::DECK_101);
const SORTED_DECK_106: Pile<MAX_DECK> = Pile::sorted(crate::rules::DECK_106);

/// Bits of the four safeties in a card-kind bit set.
const SAFETY_BITS: u32 =
    bit(Card::ExtraTank) | bit(Card::PunctureProof) | bit(Card::DrivingAce) | bit(Card::RightOfWay);

const fn bit(c: Card) -> u32 {
    1 << c as u32
}

/// Bits of the five distance cards.
const DISTANCE_BITS: u32 =
    bit(Card::D25) | bit(Card::D50) | bit(Card::D75) | bit(Card::D100) | bit(Card::D200);

/// Distance cards that fit in the room left (index: miles left / 25).
const DISTANCE_BY_ROOM: [u32; 41] = {
    let mut t = [0u32; 41];
    let mut i = 0;
    while i < 41 {
        let room = i as u16 * 25;
        let mut m = 0;
        let mut k = 0;
        while k < 5 {
            let c = Card::ALL[k];
            if c.miles() <= room {
                m |= bit(c);
            }
            k += 1;
        }
        t[i] = m;
        i += 1;
    }
    t
};

/// Bits of the five hazards.
const HAZARD_BITS: u32 = bit(Card::OutOfGas)
    | bit(Card::FlatTire)
    | bit(Card::Accident)
    | bit(Card::SpeedLimit)
    | bit(Card::Stop);

/// In [`State::turn_choices`]: bits `0..19` are the cards playable on one's
/// own side (bit = card), then five bits per team for the hazards that may
/// be played on it, then the discards (bit = card).
const ATTACK_SHIFT: u32 = 19;
/// One bit per card kind.
const CARD_BITS: u32 = (1 << Card::ALL.len()) - 1;

/// One team's lane of hazards in [`State::turn_choices`].
const LANE: u64 = 0x1f;
/// Multiplier that copies a lane into every team's lane.
const LANE_COPIES: u64 = 1 | 1 << 5 | 1 << 10;
/// Where the discards start in [`State::turn_choices`].
const DISCARD_SHIFT: u32 = ATTACK_SHIFT + 5 * MAX_TEAMS as u32;

/// Where a play or discard sends its card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    Discard,
    Distance,
    Hazard,
    Remedy,
    Safety,
}

impl Effect {
    /// What playing `card` does.
    #[inline]
    fn of(card: Card) -> Effect {
        match card.kind() {
            Kind::Distance => Effect::Distance,
            Kind::Hazard => Effect::Hazard,
            Kind::Remedy => Effect::Remedy,
            Kind::Safety => Effect::Safety,
        }
    }
}

/// What one bit of [`State::turn_choices`] does.
#[derive(Clone, Copy, Debug)]
struct Choice {
    card: Card,
    /// The target team (of a hazard; the mover's team once resolved).
    team: u8,
    effect: Effect,
}

impl Choice {
    /// The choice made by a seat of team `own` (which targets its plays
    /// other than hazards).
    #[inline(always)]
    fn resolve(mut self, own: u8) -> Choice {
        // Branch-free: whether a hazard was chosen is random.
        let keep = 0u8.wrapping_sub(u8::from(self.effect == Effect::Hazard));
        self.team = (self.team & keep) | (own & !keep);
        self
    }

    fn action(self) -> Action {
        if self.effect == Effect::Discard {
            Action::Discard(self.card)
        } else {
            Action::Play {
                card: self.card,
                target: self.team,
            }
        }
    }
}

const CHOICES: [Choice; 64] = {
    let mut t = [Choice {
        card: Card::D25,
        team: 0,
        effect: Effect::Discard,
    }; 64];
    let mut i = 0;
    while i < Card::ALL.len() {
        let card = Card::ALL[i];
        t[i] = Choice {
            card,
            team: 0,
            effect: match card.kind() {
                Kind::Distance => Effect::Distance,
                Kind::Hazard => Effect::Hazard,
                Kind::Remedy => Effect::Remedy,
                Kind::Safety => Effect::Safety,
            },
        };
        t[DISCARD_SHIFT as usize + i].card = card;
        i += 1;
    }
    let mut team = 0;
    while team < MAX_TEAMS {
        let mut h = 0;
        while h < 5 {
            t[ATTACK_SHIFT as usize + 5 * team + h] = Choice {
                card: Card::ALL[Card::OutOfGas as usize + h],
                team: team as u8,
                effect: Effect::Hazard,
            };
            h += 1;
        }
        team += 1;
    }
    t
};

/// The index of the `k`th set bit of `x` (k < its count), branch-free
/// (broadword select: bytes located by prefix counts, then a table): in
/// random play `k` is random, and a mispredicted branch costs more than
/// these few instructions.
#[inline(always)]
fn select_bit(x: u64, k: u32) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let b = x - ((x >> 1) & 0x5555_5555_5555_5555);
    let b = (b & 0x3333_3333_3333_3333) + ((b >> 2) & 0x3333_3333_3333_3333);
    let b = (b + (b >> 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    // Byte i: set bits in bytes 0..=i (at most 64, so no byte overflows).
    let prefix = b.wrapping_mul(ONES);
    // 0x80 in each byte whose prefix is <= k: the bytes wholly before the
    // k-th bit.
    let before = (((u64::from(k) * ONES) | HIGH) - prefix) & HIGH;
    let byte = ((before >> 7).wrapping_mul(ONES) >> 56) as u32;
    let shift = 8 * byte;
    let below = ((prefix << 8) >> shift) as u32 & 0xff;
    let in_byte = ((x >> shift) & 0xff) as usize;
    shift + u32::from(SELECT8[in_byte][((k - below) & 7) as usize])
}

/// `SELECT8[b][k]`: index of the `k`th set bit of byte `b`.
const SELECT8: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        let mut i = 0;
        while i < 8 {
            if b & (1 << i) != 0 {
                t[b][k] = i as u8;
                k += 1;
            }
            i += 1;
        }
        b += 1;
    }
    t
};

/// What the rules need to know of a side, computed once per decision.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SideStatus {
    can_go: bool,
    limited: bool,
    /// The counting hazard on top of the battle pile.
    stopping: Option<Card>,
    top: Option<Card>,
    safeties: SafetySet,
    miles: u16,
    two_hundreds: u8,
}

impl SideStatus {
    /// The card kinds this side may play on itself (bit per [`Card`]):
    /// [`card_rule`] as a bit set.
    #[inline(always)]
    fn own_playable(&self, target: u16) -> u32 {
        let mut m = SAFETY_BITS;
        if self.can_go {
            let room = target.saturating_sub(self.miles);
            if room >= 25 {
                m |= bit(Card::D25);
            }
            if room >= 50 {
                m |= bit(Card::D50);
            }
            if !self.limited {
                if room >= 75 {
                    m |= bit(Card::D75);
                }
                if room >= 100 {
                    m |= bit(Card::D100);
                }
                if room >= 200 && self.two_hundreds < 2 {
                    m |= bit(Card::D200);
                }
            }
        } else {
            match self.stopping {
                None | Some(Card::Stop) => m |= bit(Card::Go),
                Some(h) => {
                    if let Some(r) = h.remedy() {
                        m |= bit(r);
                    }
                }
            }
        }
        if self.limited {
            m |= bit(Card::EndOfLimit);
        }
        m
    }

    /// The hazards that may be played on this side (bit per [`Card`]).
    #[inline(always)]
    fn attackable(&self, stacking: bool) -> u32 {
        let mut m = 0;
        if !self.safeties.has(Safety::RightOfWay) && !self.limited {
            m |= bit(Card::SpeedLimit);
        }
        if self.can_go || (stacking && self.stopping.is_some()) {
            for (h, s) in [
                (Card::OutOfGas, Safety::ExtraTank),
                (Card::FlatTire, Safety::PunctureProof),
                (Card::Accident, Safety::DrivingAce),
                (Card::Stop, Safety::RightOfWay),
            ] {
                if !self.safeties.has(s) {
                    m |= bit(h);
                }
            }
        }
        m
    }
}

impl Tableau {
    /// Recomputes the cached status after cards landed on this side (see
    /// [`State::refresh_side`], which also keeps the attack lanes).
    fn refresh(&mut self, rules: &Rules, target: u16) {
        let st = self.status(rules);
        self.fast = FastStatus {
            own: st.own_playable(target),
            attack: st.attackable(rules.stacking),
        };
    }

    /// After a distance card: only the distance that still fits changes.
    #[inline]
    fn refresh_distance(&mut self, target: u16) {
        let room = target.saturating_sub(self.miles);
        let fits = DISTANCE_BY_ROOM[usize::from(room / 25).min(DISTANCE_BY_ROOM.len() - 1)];
        let twos = if self.two_hundreds() >= 2 {
            !bit(Card::D200)
        } else {
            u32::MAX
        };
        self.fast.own &= !DISTANCE_BITS | (fits & twos);
    }

    #[inline(always)]
    pub(crate) fn status(&self, rules: &Rules) -> SideStatus {
        SideStatus {
            can_go: self.can_go(rules),
            limited: self.limited(),
            stopping: self.stopping_hazard(),
            top: self.battle.top(),
            safeties: self.safeties,
            miles: self.miles,
            two_hundreds: self.two_hundreds(),
        }
    }
}

/// The rule of one card: may a side in state `me` play `card` (on `them`
/// for a hazard)? The single source of truth for both `check` and
/// `legal_actions`, so the two always agree.
#[inline(always)]
fn card_rule(
    me: &SideStatus,
    them: Option<&SideStatus>,
    card: Card,
    target: u16,
    stacking: bool,
) -> Result<(), IllegalAction> {
    match card.kind() {
        Kind::Distance => {
            if !me.can_go {
                return Err(match me.stopping {
                    Some(hazard) => IllegalAction::Stopped {
                        hazard,
                        go_after_remedy: !me.safeties.has(Safety::RightOfWay),
                    },
                    None => IllegalAction::NeedGo,
                });
            }
            if me.limited && card.miles() > 50 {
                return Err(IllegalAction::SpeedLimited);
            }
            if card == Card::D200 && me.two_hundreds >= 2 {
                return Err(IllegalAction::TooMany200s);
            }
            let would_reach = me.miles + card.miles();
            if would_reach > target {
                return Err(IllegalAction::Overshoot {
                    card,
                    would_reach,
                    target,
                });
            }
            Ok(())
        }
        Kind::Hazard => {
            let Some(them) = them else {
                return Err(IllegalAction::HazardOnOwnSide);
            };
            if let Some(s) = card.safety()
                && them.safeties.has(s)
            {
                return Err(IllegalAction::Protected(s.card()));
            }
            if card == Card::SpeedLimit {
                return if them.limited {
                    Err(IllegalAction::AlreadyLimited)
                } else {
                    Ok(())
                };
            }
            if them.can_go {
                return Ok(());
            }
            match them.stopping {
                Some(_) if stacking => Ok(()),
                Some(h) => Err(IllegalAction::HazardOnHazard(h)),
                None => Err(IllegalAction::TargetNotRolling(card)),
            }
        }
        Kind::Remedy => match card {
            Card::Go => {
                if me.can_go {
                    return Err(IllegalAction::AlreadyRolling);
                }
                match me.stopping {
                    Some(h) if h != Card::Stop => Err(IllegalAction::RepairFirst {
                        hazard: h,
                        remedy: h.remedy().unwrap_or(Card::Go),
                    }),
                    _ => Ok(()),
                }
            }
            Card::EndOfLimit => {
                if me.limited {
                    Ok(())
                } else {
                    Err(IllegalAction::NotLimited)
                }
            }
            _ => {
                let hazard = card.remedied_hazard().unwrap_or(Card::Stop);
                match me.top {
                    Some(top) if top == hazard && me.stopping == Some(top) => Ok(()),
                    Some(top) if top == hazard => Err(IllegalAction::AlreadyCancelled {
                        hazard: top,
                        can_go: me.can_go,
                    }),
                    Some(top) if me.stopping == Some(top) => Err(IllegalAction::WrongRemedy {
                        remedy: card,
                        showing: top,
                        needed: top.remedy().unwrap_or(Card::Go),
                    }),
                    _ => Err(IllegalAction::NothingToRepair {
                        remedy: card,
                        hazard,
                    }),
                }
            }
        },
        Kind::Safety => Ok(()),
    }
}

/// Fisher-Yates with our own bounded draw, so a seed deals the same cards
/// whatever version of `rand` is around.
pub(crate) fn shuffle<R: Rng + ?Sized>(cards: &mut [Card], rng: &mut R) {
    for i in (1..cards.len()).rev() {
        let j = bounded(rng, i as u32 + 1) as usize;
        cards.swap(i, j);
    }
}

/// A uniform number in `0..n` (Lemire's multiply-and-reject).
#[inline]
pub fn bounded<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    if (m as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
        }
    }
    (m >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn select_bit_finds_every_set_bit_in_order() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let word = x & (x >> 3); // sparser words too
            for w in [x, word, word & 0x001f_ffff_ffff_ffff, 1 << 63, 1] {
                let bits: Vec<u32> = (0..64).filter(|&i| w & 1 << i != 0).collect();
                for (k, &i) in bits.iter().enumerate() {
                    assert_eq!(select_bit(w, k as u32), i, "{w:#x} k={k}");
                }
            }
        }
    }

    /// The uniform random choice covers exactly the legal list: every
    /// index of the choice set is a distinct listed action, and every listed
    /// action has an index. (The two decode the choice set separately; that
    /// the list is legal is the property tests' business.)
    #[test]
    fn random_turn_choices_are_the_legal_actions() {
        use crate::rules::RulesetId;
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut list = ActionList::default();
        let mut turns = 0;
        for (i, (rules, players)) in [
            (RulesetId::Bsd, 2),
            (RulesetId::Classic, 3),
            (RulesetId::Classic, 4),
            (RulesetId::Classic, 6),
            (RulesetId::Milebones, 2),
        ]
        .into_iter()
        .enumerate()
        {
            for stacking in [false, rules == RulesetId::Classic] {
                let config = GameConfig {
                    rules,
                    players,
                    stacking,
                };
                let mut state = State::new(config, i as u64).expect("config");
                for _ in 0..3000 {
                    if let Phase::Turn { seat, drawn: true } = state.phase {
                        turns += 1;
                        let choices = state.turn_choices(seat);
                        let own = state.team_of(seat);
                        let chosen: BTreeSet<String> = (0..choices.count_ones())
                            .map(|k| {
                                CHOICES[select_bit(choices, k) as usize]
                                    .resolve(own)
                                    .action()
                                    .to_string()
                            })
                            .collect();
                        assert_eq!(chosen.len(), choices.count_ones() as usize, "duplicates");
                        state.legal_actions(&mut list);
                        let listed: BTreeSet<String> = list.iter().map(|a| a.to_string()).collect();
                        assert_eq!(chosen, listed, "{:?}", state.phase);
                    }
                    if matches!(state.phase, Phase::HandOver | Phase::GameOver) {
                        state.apply_unchecked(Action::NextHand);
                        state.apply_unchecked(Action::NextGame);
                    } else {
                        state.step_random(&mut rng);
                    }
                }
            }
        }
        assert!(turns > 10_000, "only {turns} turns checked");
    }
}
