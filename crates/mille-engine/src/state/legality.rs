//! What may be done now: the refusals of [`State::check`] (one rule per card,
//! [`card_rule`]), the list of legal actions, and the bit set of a turn's
//! plays and discards that the search reads ([`State::turn_choices`]).

use super::tableau::{SAFETY_BITS, SideStatus, bit};
use super::{Phase, State, ToAct};
use crate::action::{Action, ActionList};
use crate::card::{Card, Kind, Safety};
use crate::error::IllegalAction;
use crate::rules::MAX_TEAMS;
use crate::seat::Seat;

impl State {
    /// Whether `seat` may play `card` on `target` now, ignoring whose turn it
    /// is and whether the card is in hand: the pure rule of the card.
    pub fn check_card(&self, seat: Seat, card: Card, target: u8) -> Result<(), IllegalAction> {
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
                Action::Play { card, team: target } => {
                    if !drawn {
                        return Err(IllegalAction::MustDrawFirst);
                    }
                    if !self.hands[seat.index()].contains(card) {
                        return Err(IllegalAction::NotInHand(card));
                    }
                    self.check_card(seat, card, target)
                }
                Action::Discard(card) => {
                    if !drawn {
                        return Err(IllegalAction::MustDrawFirst);
                    }
                    if !self.hands[seat.index()].contains(card) {
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
                    } else if !self.hands[seat.index()].contains(safety) {
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
    pub fn check_as(&self, seat: Seat, action: Action) -> Result<(), IllegalAction> {
        match self.to_act() {
            ToAct::Seat(s) if s != seat => Err(IllegalAction::NotYourTurn {
                expected: s.number(),
            }),
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
    pub(crate) fn legal_turn_actions(&self, seat: Seat, out: &mut ActionList) {
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
                out.push(Action::Play { card, team: own });
                continue;
            }
            let h = i - Card::OutOfGas as usize;
            for t in 0..self.rules.teams {
                if lanes & 1 << (5 * usize::from(t) + h) != 0 {
                    out.push(Action::Play { card, team: t });
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

    /// The card kinds `seat` may play and discard after its draw, as bit
    /// sets: what [`State::legal_actions`] lists in that phase, without
    /// the list (for a player that asks "may I play this card?" card by
    /// card).
    #[inline]
    pub fn turn_kinds(&self, seat: Seat) -> TurnKinds {
        if seat.number() >= self.rules.seats {
            return TurnKinds::default();
        }
        let choices = self.turn_choices(seat);
        let lanes = choices >> ATTACK_SHIFT;
        let mut attack = [0; MAX_TEAMS];
        for (t, a) in attack.iter_mut().enumerate().take(self.rules.teams.into()) {
            *a = (((lanes >> (5 * t)) & LANE) as u32) << Card::OutOfGas as u32;
        }
        TurnKinds {
            own: choices as u32 & CARD_BITS,
            attack,
            discard: (choices >> DISCARD_SHIFT) as u32 & CARD_BITS,
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
    pub(super) fn turn_choices(&self, seat: Seat) -> u64 {
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
    fn held_kinds(&self, seat: Seat) -> u32 {
        self.hands[seat.index()].kinds()
    }

    /// Whether `seat` holds a card it could play now (not a discard); never
    /// for a seat not at the table.
    pub fn can_play_something(&self, seat: Seat) -> bool {
        seat.number() < self.rules.seats
            && self.turn_choices(seat) & ((1 << DISCARD_SHIFT) - 1) != 0
    }
}

/// The rule of one card: may a side in state `me` play `card` (on `them`
/// for a hazard)? The single source of truth for both `check` and
/// `legal_actions`, so the two always agree.
#[inline(always)]
pub(super) fn card_rule(
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

/// What a seat may do with each card kind after its draw
/// ([`State::turn_kinds`]), one bit per [`Card`] (`1 << card as u32`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TurnKinds {
    /// Cards it may play on its own side.
    pub own: u32,
    /// Hazards it may play on each side (none on its own side or a side
    /// not at the table).
    pub attack: [u32; MAX_TEAMS],
    /// Cards it may discard.
    pub discard: u32,
}

/// Bits of the five hazards.
const HAZARD_BITS: u32 = bit(Card::OutOfGas)
    | bit(Card::FlatTire)
    | bit(Card::Accident)
    | bit(Card::SpeedLimit)
    | bit(Card::Stop);

/// In [`State::turn_choices`]: bits `0..19` are the cards playable on one's
/// own side (bit = card), then five bits per team for the hazards that may
/// be played on it, then the discards (bit = card).
pub(super) const ATTACK_SHIFT: u32 = 19;
/// One bit per card kind.
const CARD_BITS: u32 = (1 << Card::ALL.len()) - 1;

/// One team's lane of hazards in [`State::turn_choices`].
pub(super) const LANE: u64 = 0x1f;
/// Multiplier that copies a lane into every team's lane.
const LANE_COPIES: u64 = 1 | 1 << 5 | 1 << 10;
/// Where the discards start in [`State::turn_choices`].
pub(super) const DISCARD_SHIFT: u32 = ATTACK_SHIFT + 5 * MAX_TEAMS as u32;
