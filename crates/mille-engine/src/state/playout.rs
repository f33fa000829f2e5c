//! Random play-outs: a uniformly random legal action drawn from the turn's
//! choice set without listing it, and the loops that play them
//! ([`State::step_random`], [`State::play_random_hand`]).

use super::legality::{ATTACK_SHIFT, DISCARD_SHIFT};
use super::transition::Effect;
use super::{Phase, State, bounded};
use crate::action::{Action, ActionList};
use crate::card::{Card, Kind};
use crate::rules::MAX_TEAMS;
use crate::seat::Seat;
use rand_core::Rng;

impl State {
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
                    self.hands[seat.index()].push(c);
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
                            self.hands[seat.index()].push(c);
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
    fn random_turn_action<R: Rng + ?Sized>(&self, seat: Seat, rng: &mut R) -> Action {
        self.random_choice(seat, rng)
            .map_or(Action::Draw, |choice| choice.action())
    }

    /// A uniformly random play or discard of `seat` after its draw, its
    /// target team resolved (none when the seat has no card).
    #[inline]
    fn random_choice<R: Rng + ?Sized>(&self, seat: Seat, rng: &mut R) -> Option<Choice> {
        let choices = self.turn_choices(seat);
        let total = choices.count_ones();
        if total == 0 {
            return None;
        }
        let k = bounded(rng, total);
        Some(CHOICES[(select_bit(choices, k) & 63) as usize].resolve(self.team_of(seat)))
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
                team: self.team,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::GameConfig;
    use rand_chacha::ChaCha8Rng;
    use rand_core::SeedableRng;
    use std::collections::BTreeSet;

    /// Plays random games of every table (`GameConfig::every`, stacking
    /// included), 4,000 actions each, new hands and games dealt, and calls
    /// `check` after every action with the action played.
    fn after_every_action(seed: u64, mut check: impl FnMut(&State, Action)) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for (i, config) in GameConfig::every().enumerate() {
            let mut state = State::new(config, i as u64).expect("config");
            for _ in 0..4_000 {
                let action = if matches!(state.phase, Phase::HandOver | Phase::GameOver) {
                    state.apply_unchecked(Action::NextHand);
                    state.apply_unchecked(Action::NextGame);
                    Action::NextHand
                } else {
                    state.step_random(&mut rng)
                };
                check(&state, action);
            }
        }
    }

    /// The public counts kept as cards are played equal a recount of the
    /// tableaux and the discards after every action of random games (coups
    /// fourrés, extensions and new hands included), at every table size.
    #[test]
    fn public_counts_match_a_recount() {
        let mut coups = 0;
        after_every_action(9, |state, action| {
            coups += usize::from(matches!(action, Action::CoupFourre(_)));
            let mut recount = *state.discard_counts();
            for t in 0..state.rules().teams {
                state.tableau(t).count_into(&mut recount);
            }
            assert_eq!(state.public_counts(), &recount, "{:?}", state.phase);
        });
        assert!(coups > 10, "only {coups} coups fourrés played");
    }

    /// The cached answer of [`State::one_card_from_end`] equals the rule
    /// worked out from the tableau, for every side (and one not at the
    /// table) after every action of random games, extensions included.
    #[test]
    fn one_card_from_end_matches_the_rule() {
        let mut close = 0;
        after_every_action(4, |state, _| {
            for team in 0..=state.rules().teams {
                let t = state.tableau(team);
                let rule = t.can_go(state.rules())
                    && match state.target().saturating_sub(t.miles) {
                        25 | 50 => true,
                        75 | 100 => !t.limited(),
                        200 => !t.limited() && t.two_hundreds() < 2,
                        _ => false,
                    };
                assert_eq!(state.one_card_from_end(team), rule, "team {team}");
                close += usize::from(rule);
            }
        });
        assert!(close > 1000, "only {close} sides one card from the end");
    }

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
                        // The same, as bit sets per card kind.
                        let kinds = state.turn_kinds(seat);
                        let mut from_list = super::super::TurnKinds::default();
                        for &a in list.iter() {
                            match a {
                                Action::Play { card, team } if team == own => {
                                    from_list.own |= 1 << card as u32;
                                }
                                Action::Play { card, team } => {
                                    from_list.attack[usize::from(team)] |= 1 << card as u32;
                                }
                                Action::Discard(card) => from_list.discard |= 1 << card as u32,
                                _ => {}
                            }
                        }
                        assert_eq!(kinds, from_list, "{:?}", state.phase);
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
