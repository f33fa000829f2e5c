//! What a seat can work out from what it may see: which cards it has seen
//! (card counting), each side's situation, and the legal actions.

use mille_engine::card::KINDS;
use mille_engine::view::{Decision, determinize_for};
use mille_engine::{
    Action, ActionList, Card, CardCounts, Kind, Phase, Rules, Safety, Seat, State, View,
};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// Facts one seat can derive from what it may see. Built over a full
/// [`State`], but reading only the seat's hand and the public cards: a
/// state determinized from a view (hidden cards at random) gives exactly
/// the knowledge of that view, and a real state during a search's
/// play-out gives what the seat would know there. Every field is private
/// and worked out once in [`Knowledge::new`], so that no answer can
/// disagree with another.
pub struct Knowledge<'a> {
    /// Every card the seat can see: its hand, every tableau, the discards.
    seen: CardCounts,
    /// The state; only its public part and the seat's hand are read.
    state: &'a State,
    /// The seat's hand (looked up once: every rule asks for it).
    hand: &'a [Card],
    /// The seat's hand counted per card kind.
    held: CardCounts,
    /// The seat's team.
    team: u8,
    /// The legal actions when the state waits for the seat's turn decision
    /// (empty otherwise).
    legal: ActionList,
    /// The card kinds [`Knowledge::playable`] answers with a play, one bit
    /// per [`Card`] (worked out once: the classic bot asks it many times a
    /// decision, in play-outs), and the team each is played on.
    plays: u32,
    targets: [u8; KINDS],
    /// The card kinds that may be discarded, one bit per [`Card`]
    /// (likewise).
    discards: u32,
}

impl<'a> Knowledge<'a> {
    /// What `seat` knows in `state`.
    pub fn new(state: &'a State, seat: Seat) -> Knowledge<'a> {
        let hand = state.hand(seat);
        let held = *state.hand_counts(seat);
        let mut seen = held;
        // The tableaux and the discards, counted by the state as cards land.
        seen.add_counts(state.public_counts());
        let mut legal = ActionList::default();
        // Bit sets and a small table rather than an array of actions: the
        // knowledge is built at every decision of every play-out.
        let team = state.team_of(seat);
        let (mut plays, mut targets, mut discards) = (0u32, [team; KINDS], 0u32);
        if matches!(state.phase(), Phase::Turn { seat: s, drawn: true } if s == seat) {
            state.legal_actions(&mut legal);
            let kinds = state.turn_kinds(seat);
            plays = kinds.own;
            discards = kinds.discard;
            // A hazard goes on the opponent with the most miles (the lowest
            // team number among equals: a later team must have more).
            for (t, &attack) in (0..).zip(&kinds.attack) {
                let miles = state.tableau(t).miles;
                let mut hazards = attack;
                while hazards != 0 {
                    let bit = hazards & hazards.wrapping_neg();
                    hazards &= hazards - 1;
                    let slot = &mut targets[bit.trailing_zeros() as usize];
                    if plays & bit == 0 || miles > state.tableau(*slot).miles {
                        *slot = t;
                    }
                    plays |= bit;
                }
            }
        }
        Knowledge {
            seen,
            state,
            hand,
            held,
            team,
            legal,
            plays,
            targets,
            discards,
        }
    }

    /// A state consistent with `view` waiting for `decision`, to build the
    /// knowledge on; `None` when the view cannot describe a game.
    pub fn sample(view: &View, decision: Decision) -> Option<State> {
        // The hidden cards are never looked at, so any seed will do.
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        determinize_for(view, decision, &mut rng).ok()
    }

    /// The state the knowledge was built on (read only its public part and
    /// the seat's hand).
    pub fn state(&self) -> &'a State {
        self.state
    }
    /// The seat's team.
    pub fn team(&self) -> u8 {
        self.team
    }
    /// The legal actions when the state waits for the seat's turn decision
    /// (empty otherwise).
    pub fn legal(&self) -> &ActionList {
        &self.legal
    }
    /// The seat's hand.
    pub fn hand(&self) -> &'a [Card] {
        self.hand
    }
    /// How many of a card the seat holds.
    pub fn held(&self, c: Card) -> i32 {
        i32::from(self.held.get(c))
    }
    /// Cards left in the draw pile.
    pub fn deck(&self) -> u32 {
        self.state.deck_len() as u32
    }
    /// Public cards (tableaux and discards): seen cards not in hand.
    pub fn public(&self) -> u32 {
        self.seen.total() - self.hand().len() as u32
    }
    /// The rules.
    pub fn rules(&self) -> &Rules {
        self.state.rules()
    }
    /// Number of sides.
    pub fn teams(&self) -> u8 {
        self.rules().teams
    }
    /// The opposing sides.
    pub fn opponents(&self) -> impl Iterator<Item = u8> + '_ {
        let me = self.team;
        (0..self.teams()).filter(move |&t| t != me)
    }
    /// Copies of a card not yet seen (at least 0).
    pub fn unseen(&self, c: Card) -> i32 {
        i32::from(self.rules().copies(c)) - i32::from(self.seen.get(c))
    }
    /// How many of a card seen.
    pub fn seen(&self, c: Card) -> i32 {
        i32::from(self.seen.get(c))
    }
    /// A side's miles.
    pub fn miles(&self, team: u8) -> u16 {
        self.state.tableau(team).miles
    }
    /// Whether a side may play distance now.
    pub fn can_go(&self, team: u8) -> bool {
        self.state.tableau(team).can_go(self.rules())
    }
    /// Whether a side is under a Speed Limit.
    pub fn limited(&self, team: u8) -> bool {
        self.state.tableau(team).limited()
    }
    /// Whether a side has a safety in play.
    pub fn has_safety(&self, team: u8, s: Safety) -> bool {
        self.state.tableau(team).safeties.has(s)
    }
    /// Whether a side is protected against a hazard.
    pub fn protected(&self, team: u8, hazard: Card) -> bool {
        hazard.safety().is_some_and(|s| self.has_safety(team, s))
    }
    /// The trip length.
    pub fn target(&self) -> u16 {
        self.state.target()
    }
    /// Whether a side could complete the trip with one distance card.
    pub fn one_card_from_end(&self, team: u8) -> bool {
        self.state.one_card_from_end(team)
    }
    /// The play of `card` if it is legal now (a hazard on the opponent with
    /// the most miles).
    pub fn playable(&self, card: Card) -> Option<Action> {
        (self.plays & 1 << card as u32 != 0).then(|| Action::Play {
            card,
            team: self.targets[card.index()],
        })
    }
    /// Whether discarding `card` is legal now.
    pub fn discardable(&self, card: Card) -> bool {
        self.discards & 1 << card as u32 != 0
    }
    /// Miles of the distance cards in a hand.
    pub fn hand_miles(hand: &[Card]) -> u16 {
        hand.iter()
            .filter(|c| c.kind() == Kind::Distance)
            .map(|c| c.miles())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mille_engine::{GameConfig, RulesetId};

    /// The plays and discards read from the bit sets are those of the legal
    /// list: a hazard on the opponent with the most miles (the lowest team
    /// number among equals), at every table size.
    #[test]
    fn plays_and_discards_are_the_legal_ones() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut choices = 0;
        for (rules, players) in [
            (RulesetId::Bsd, 2),
            (RulesetId::Classic, 3),
            (RulesetId::Classic, 4),
            (RulesetId::Classic, 6),
        ] {
            let config = GameConfig {
                rules,
                players,
                stacking: false,
            };
            let mut state = State::new(config, u64::from(players)).expect("config");
            for _ in 0..6000 {
                if let Phase::Turn { seat, drawn: true } = state.phase() {
                    let k = Knowledge::new(&state, seat);
                    for card in Card::ALL {
                        let rank = |a: &Action| match *a {
                            Action::Play { team, .. } => {
                                (state.tableau(team).miles, u8::MAX - team)
                            }
                            _ => (0, 0),
                        };
                        let listed = k
                            .legal()
                            .iter()
                            .filter(|a| matches!(a, Action::Play { card: c, .. } if *c == card))
                            .max_by_key(|a| rank(a))
                            .copied();
                        assert_eq!(k.playable(card), listed, "{card:?}");
                        let discard = k.legal().contains(&Action::Discard(card));
                        assert_eq!(k.discardable(card), discard, "{card:?}");
                        choices += usize::from(listed.is_some());
                    }
                }
                match state.phase() {
                    Phase::HandOver | Phase::GameOver => {
                        let next = if state.phase() == Phase::HandOver {
                            Action::NextHand
                        } else {
                            Action::NextGame
                        };
                        state.apply(next).expect("legal");
                    }
                    _ => {
                        state.step_random(&mut rng);
                    }
                }
            }
        }
        assert!(choices > 10_000, "only {choices} plays checked");
    }
}
