//! Moving the game on: applying an action ([`State::apply`] and the
//! unchecked paths of the search), passing the turn, coups fourrés,
//! extensions, dealing each hand and scoring it when it ends.

use super::{MAX_DECK, Outcome, Phase, State, Tableau, shuffle};
use crate::action::Action;
use crate::card::{Card, Kind, Safety};
use crate::error::IllegalAction;
use crate::pile::Pile;
use crate::rules::{CoupTiming, ExtensionScoring, HandEnd, MAX_TEAMS};
use crate::score::HandScore;
use crate::seat::Seat;

impl State {
    /// Shuffles a fresh deck and deals a hand that `first` starts.
    #[inline(never)]
    pub(super) fn deal(&mut self, first: Seat) {
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
                let seat = (first.index() + i) % n;
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
    fn next_seat(&self, seat: Seat) -> Seat {
        if seat.number() + 1 >= self.rules.seats {
            Seat::new_unchecked(0)
        } else {
            Seat::new_unchecked(seat.number() + 1)
        }
    }

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
                    self.hands[seat.index()].push(c);
                }
                self.phase = Phase::Turn { seat, drawn: true };
                Outcome {
                    drawn,
                    ..Outcome::default()
                }
            }
            Action::Discard(card) => self.turn_move(seat, card, 0, Effect::Discard),
            Action::Play { card, team: target } => {
                self.turn_move(seat, card, target, Effect::of(card))
            }
            _ => self.apply_rare(action),
        }
    }

    /// A play or discard, out of line (the random play-outs inline theirs).
    #[inline(never)]
    fn turn_move(&mut self, seat: Seat, card: Card, target: u8, effect: Effect) -> Outcome {
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
    pub(super) fn apply_rare(&mut self, action: Action) -> Outcome {
        let mut out = Outcome::default();
        let out_ref = &mut out;
        match (self.phase, action) {
            (Phase::CoupFourre { seat, hazard, .. }, Action::CoupFourre(safety)) => {
                self.hands[seat.index()].remove(safety);
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
    pub(super) fn move_card(&mut self, seat: Seat, card: Card, target: u8, effect: Effect) {
        self.hands[seat.index()].remove(card);
        // Wherever it goes, the card is public now.
        self.public.add(card);
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
    fn coup_fourre(&mut self, seat: Seat, hazard: Card, safety: Card, out: &mut Outcome) {
        let team = self.team_of(seat);
        // The safety is public now; the hazard stays public (on the
        // tableau or in the discards).
        self.public.add(safety);
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
                self.hands[seat.index()].push(c);
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
    fn advance_from(&mut self, seat: Seat, hazard: Option<(u8, Card)>) {
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
            while self.hands[next.index()].is_empty() {
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
    fn begin_turn(&mut self, seat: Seat, hazard: Option<(u8, Card, Seat)>) {
        if let Some((team, card, attacker)) = hazard
            && self.rules.coup_timing == CoupTiming::VictimsTurn
            && self.team_of(seat) == team
            && self.hands[seat.index()].contains(card.safety().map_or(card, Safety::card))
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

    fn start_turn_no_window(&mut self, seat: Seat) {
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
        let seats = self.rules.seats_iter();
        let over = match self.rules.hand_end {
            HandEnd::HandsEmpty => seats.clone().all(|s| self.hands[s.index()].is_empty()),
            HandEnd::NobodyCanPlay => !seats.clone().any(|s| self.can_play_something(s)),
        };
        if over {
            self.end_hand();
        } else if let Phase::Turn { seat, .. } = self.phase
            && self.hands[seat.index()].is_empty()
        {
            // Nothing left to play: pass to the next seat holding cards.
            self.advance_from(seat, None);
        }
    }

    /// Which seat of `team` holds the safety against `hazard`.
    fn safety_holder(&self, team: u8, hazard: Card) -> Option<Seat> {
        let safety = hazard.safety()?.card();
        self.rules
            .seats_iter()
            .find(|&s| self.team_of(s) == team && self.hands[s.index()].contains(safety))
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

/// Where a play or discard sends its card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Effect {
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
