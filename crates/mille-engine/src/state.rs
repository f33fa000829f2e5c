//! The full truth of a game: every hand, the draw pile, each side's
//! tableau, the scores, whose move it is; and the rules that move it on
//! (`legal_actions`, `check`, `apply`).

use crate::action::{Action, ActionList};
use crate::card::{Card, CardCounts, Kind, Safety, SafetySet};
use crate::error::IllegalAction;
use crate::pile::Pile;
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
/// A hand of cards.
pub type Hand = Pile<MAX_HAND>;

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
        [Card::D25, Card::D50, Card::D75, Card::D100, Card::D200]
            .into_iter()
            .zip(self.distance)
            .flat_map(|(c, n)| std::iter::repeat_n(c, n as usize))
    }

    /// Every card of this tableau, for accounting.
    pub fn count_into(&self, counts: &mut CardCounts) {
        counts.add_all(self.battle.as_slice().iter().copied());
        counts.add_all(self.speed.as_slice().iter().copied());
        counts.add_all(self.distance_cards());
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
    pub(crate) discards: Pile<MAX_DECK>,
    pub(crate) hands: [Hand; MAX_SEATS],
    pub(crate) tableaux: [Tableau; MAX_TEAMS],
    pub(crate) target: u16,
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
        State {
            rules,
            rng,
            phase: Phase::HandOver,
            deck: Pile::default(),
            discards: Pile::default(),
            hands: [Hand::default(); MAX_SEATS],
            tableaux: [Tableau::default(); MAX_TEAMS],
            target: rules.target,
            extension_caller: None,
            completed: None,
            completed_delayed: false,
            totals: [0; MAX_TEAMS],
            games_won: [0; MAX_TEAMS],
            hand_number: 0,
            first_seat: 0,
            last_scores: None,
        }
    }

    /// Shuffles a fresh deck and deals a hand that `first` starts.
    fn deal(&mut self, first: u8) {
        self.deck.clear();
        for c in Card::ALL {
            for _ in 0..self.rules.copies(c) {
                self.deck.push(c);
            }
        }
        shuffle(self.deck.as_mut_slice(), &mut self.rng);
        self.discards.clear();
        self.tableaux = [Tableau::default(); MAX_TEAMS];
        self.target = self.rules.target;
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
        if card.kind() != Kind::Hazard && target != own {
            return Err(IllegalAction::OwnSideOnly(card));
        }
        let me = &self.tableaux[own as usize];
        match card.kind() {
            Kind::Distance => {
                if !me.can_go(&self.rules) {
                    return Err(match me.stopping_hazard() {
                        Some(h) => IllegalAction::Stopped(h),
                        None => IllegalAction::NeedGo,
                    });
                }
                if me.limited() && card.miles() > 50 {
                    return Err(IllegalAction::SpeedLimited);
                }
                if card == Card::D200 && me.two_hundreds() >= 2 {
                    return Err(IllegalAction::TooMany200s);
                }
                let would_reach = me.miles + card.miles();
                if would_reach > self.target {
                    return Err(IllegalAction::Overshoot {
                        card,
                        would_reach,
                        target: self.target,
                    });
                }
                Ok(())
            }
            Kind::Hazard => {
                if target == own {
                    return Err(IllegalAction::HazardOnOwnSide);
                }
                if target >= self.rules.teams {
                    return Err(IllegalAction::NoSuchTeam(target));
                }
                let them = &self.tableaux[target as usize];
                if let Some(s) = card.safety()
                    && them.safeties.has(s)
                {
                    return Err(IllegalAction::Protected(s.card()));
                }
                if card == Card::SpeedLimit {
                    if them.limited() {
                        return Err(IllegalAction::AlreadyLimited);
                    }
                    return Ok(());
                }
                if them.can_go(&self.rules) {
                    return Ok(());
                }
                match them.stopping_hazard() {
                    Some(_) if self.rules.stacking => Ok(()),
                    Some(h) => Err(IllegalAction::HazardOnHazard(h)),
                    None => Err(IllegalAction::TargetNotRolling(card)),
                }
            }
            Kind::Remedy => match card {
                Card::Go => {
                    if me.can_go(&self.rules) {
                        return Err(IllegalAction::AlreadyRolling);
                    }
                    match me.stopping_hazard() {
                        Some(h) if h != Card::Stop => Err(IllegalAction::RepairFirst {
                            hazard: h,
                            remedy: h.remedy().unwrap_or(Card::Go),
                        }),
                        _ => Ok(()),
                    }
                }
                Card::EndOfLimit => {
                    if me.limited() {
                        Ok(())
                    } else {
                        Err(IllegalAction::NotLimited)
                    }
                }
                _ => {
                    let hazard = card.remedied_hazard().unwrap_or(Card::Stop);
                    match me.battle.top() {
                        Some(top) if top == hazard && me.counts(top) => Ok(()),
                        Some(top) if top == hazard => Err(IllegalAction::AlreadyCancelled(top)),
                        Some(top) if me.counts(top) => Err(IllegalAction::WrongRemedy {
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
                    let needed = hazard.safety().map(Safety::card).unwrap_or(Card::RightOfWay);
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

    /// The play and discard actions of `seat` after its draw.
    pub(crate) fn legal_turn_actions(&self, seat: u8, out: &mut ActionList) {
        let held = self.held_kinds(seat);
        let own = self.team_of(seat);
        for c in Card::ALL {
            if held & (1 << c as u32) == 0 {
                continue;
            }
            if c.kind() == Kind::Hazard {
                for t in 0..self.rules.teams {
                    if t != own && self.check_card(seat, c, t).is_ok() {
                        out.push(Action::Play { card: c, target: t });
                    }
                }
            } else if self.check_card(seat, c, own).is_ok() {
                out.push(Action::Play {
                    card: c,
                    target: own,
                });
            }
        }
        for c in Card::ALL {
            if held & (1 << c as u32) != 0
                && (c.kind() != Kind::Safety || self.rules.safeties_discardable)
            {
                out.push(Action::Discard(c));
            }
        }
    }

    /// Bit set of the card kinds in a seat's hand.
    #[inline]
    fn held_kinds(&self, seat: u8) -> u32 {
        self.hands[seat as usize]
            .as_slice()
            .iter()
            .fold(0u32, |m, &c| m | 1 << c as u32)
    }

    /// Whether `seat` holds a card it could play now (not a discard).
    pub fn can_play_something(&self, seat: u8) -> bool {
        let own = self.team_of(seat);
        self.hands[seat as usize].as_slice().iter().any(|&c| {
            if c.kind() == Kind::Hazard {
                (0..self.rules.teams).any(|t| t != own && self.check_card(seat, c, t).is_ok())
            } else {
                self.check_card(seat, c, own).is_ok()
            }
        })
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
    pub fn apply_unchecked(&mut self, action: Action) -> Outcome {
        let mut out = Outcome::default();
        match (self.phase, action) {
            (Phase::Turn { seat, .. }, Action::Draw) => {
                out.drawn = self.deck.pop();
                if let Some(c) = out.drawn {
                    self.hands[seat as usize].push(c);
                }
                self.phase = Phase::Turn { seat, drawn: true };
            }
            (Phase::Turn { seat, .. }, Action::Discard(card)) => {
                self.hands[seat as usize].remove(card);
                self.discards.push(card);
                self.advance_from(seat, None);
            }
            (Phase::Turn { seat, .. }, Action::Play { card, target }) => {
                self.hands[seat as usize].remove(card);
                self.play_card(seat, card, target, &mut out);
            }
            (Phase::CoupFourre { seat, hazard, .. }, Action::CoupFourre(safety)) => {
                self.hands[seat as usize].remove(safety);
                self.coup_fourre(seat, hazard, safety, &mut out);
            }
            (
                Phase::CoupFourre {
                    seat, attacker, ..
                },
                Action::DeclineCoupFourre,
            ) => match self.rules.coup_timing {
                CoupTiming::VictimsTurn => self.start_turn_no_window(seat),
                CoupTiming::Immediate => self.advance_from(attacker, None),
            },
            (Phase::Extension { seat }, Action::Extend(extend)) => {
                if extend {
                    self.extension_caller = Some(self.team_of(seat));
                    self.target = self.rules.extended_target.unwrap_or(self.target);
                    self.advance_from(seat, None);
                } else {
                    self.completed = Some(self.team_of(seat));
                    out.trip_completed = self.completed;
                    self.end_hand();
                }
            }
            (Phase::HandOver, Action::NextHand) => {
                self.hand_number += 1;
                let first = (self.first_seat + 1) % self.rules.seats;
                self.deal(first);
            }
            (Phase::GameOver, Action::NextGame) => {
                self.totals = [0; MAX_TEAMS];
                self.hand_number = 0;
                let first = (self.first_seat + 1) % self.rules.seats;
                self.deal(first);
            }
            _ => {}
        }
        out.hand_over = matches!(self.phase, Phase::HandOver | Phase::GameOver);
        out.game_over = self.phase == Phase::GameOver;
        out
    }

    fn play_card(&mut self, seat: u8, card: Card, target: u8, out: &mut Outcome) {
        let own = self.team_of(seat);
        match card.kind() {
            Kind::Distance => {
                let t = &mut self.tableaux[own as usize];
                t.miles += card.miles();
                t.distance[card as usize] += 1;
                if t.miles == self.target {
                    self.completed_delayed = self.deck.is_empty();
                    if self.extension_caller.is_none() && self.rules.extended_target.is_some() {
                        self.phase = Phase::Extension { seat };
                    } else {
                        self.completed = Some(own);
                        out.trip_completed = Some(own);
                        self.end_hand();
                    }
                } else {
                    self.advance_from(seat, None);
                }
            }
            Kind::Hazard => {
                let t = &mut self.tableaux[target as usize];
                if card == Card::SpeedLimit {
                    t.speed.push(card);
                } else {
                    t.battle.push(card);
                }
                self.advance_from(seat, Some((target, card)));
            }
            Kind::Remedy => {
                let t = &mut self.tableaux[own as usize];
                if card == Card::EndOfLimit {
                    t.speed.push(card);
                } else {
                    t.battle.push(card);
                }
                self.advance_from(seat, None);
            }
            Kind::Safety => {
                if let Some(s) = card.safety() {
                    self.tableaux[own as usize].safeties.insert(s);
                }
                // A safety earns another turn: draw again, then play.
                self.start_turn_no_window(seat);
            }
        }
    }

    fn coup_fourre(&mut self, seat: u8, hazard: Card, safety: Card, out: &mut Outcome) {
        let team = self.team_of(seat);
        let t = &mut self.tableaux[team as usize];
        if let Some(s) = safety.safety() {
            t.safeties.insert(s);
            t.coups.insert(s);
        }
        // The hazard goes to the discards and the pile shows what it showed
        // before (its previous state always let the side go).
        let removed = if hazard == Card::SpeedLimit {
            t.speed.top() == Some(hazard) && t.speed.pop().is_some()
        } else {
            t.battle.top() == Some(hazard) && t.battle.pop().is_some()
        };
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
        let mut next = (seat + 1) % n;
        if self.deck.is_empty() {
            // With no draw pile, players with empty hands are passed over.
            let mut tries = 0;
            while self.hands[next as usize].is_empty() {
                tries += 1;
                if tries >= n {
                    self.end_hand();
                    return;
                }
                next = (next + 1) % n;
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
    fn check_exhausted(&mut self) {
        if !self.deck.is_empty() || !matches!(self.phase, Phase::Turn { .. }) {
            return;
        }
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
        for t in 0..self.rules.teams as usize {
            self.totals[t] += u32::from(scores[t].total());
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
