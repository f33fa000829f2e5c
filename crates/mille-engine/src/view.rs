//! What one seat may see (the `view` object of the bot protocol), and
//! determinization: sampling a full state consistent with a view.

use crate::action::{Action, ActionList};
use crate::card::{Card, CardCounts, KINDS, Kind};
use crate::pile::Pile;
use crate::rules::{GameConfig, MAX_DECK_CARDS, MAX_SEATS, Rules, RulesetId};
use crate::seat::Seat;
use crate::state::{MAX_HAND, Phase, State, Tableau, bounded, shuffle};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// Everything one seat is allowed to know, in the shape of the protocol.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct View {
    /// Ruleset id.
    pub rules: RulesetId,
    /// The seat this view belongs to.
    pub seat: u8,
    /// The seat's own cards.
    pub hand: Vec<Card>,
    /// Cards left in the draw pile.
    pub deck: u32,
    /// Discards known to the seat, oldest first (may be incomplete).
    pub discards: Vec<Card>,
    /// Current trip length.
    pub target: u16,
    /// Whether the trip was extended this hand.
    pub extended: bool,
    /// Every seat at the table.
    pub seats: Vec<SeatView>,
    /// Every side's public tableau.
    pub teams: Vec<TeamView>,
}

/// A seat as others see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    /// Seat number.
    pub seat: u8,
    /// Its team.
    pub team: u8,
    /// Cards it holds.
    pub hand_size: u8,
}

/// A side's public tableau.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamView {
    /// Team number.
    pub team: u8,
    /// Battle pile, bottom to top, as far as known.
    pub battle: Vec<Card>,
    /// Speed pile, bottom to top, as far as known.
    pub speed: Vec<Card>,
    /// Every distance card played this hand.
    pub distance: Vec<Card>,
    /// Safeties in play.
    pub safeties: Vec<Card>,
    /// Those of them played as coups fourrés.
    pub coups: Vec<Card>,
    /// Points.
    pub score: ScoreView,
}

/// A side's points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreView {
    /// Points so far this hand.
    pub hand: u32,
    /// Game total before this hand.
    pub game: u32,
}

impl TeamView {
    /// Miles travelled (saturating: a view from the network may claim
    /// any number of distance cards).
    pub fn miles(&self) -> u16 {
        self.distance
            .iter()
            .fold(0u16, |m, c| m.saturating_add(c.miles()))
    }
}

impl State {
    /// Exactly what `seat` may see.
    pub fn view(&self, seat: Seat) -> View {
        let rules = &self.rules;
        let hand_over = matches!(self.phase, Phase::HandOver | Phase::GameOver);
        View {
            rules: rules.config.rules,
            seat: seat.number(),
            hand: self.hand(seat).to_vec(),
            deck: self.deck.len() as u32,
            discards: self.discards.as_slice().to_vec(),
            target: self.target,
            extended: self.extension_caller.is_some(),
            seats: rules
                .seats_iter()
                .map(|s| SeatView {
                    seat: s.number(),
                    team: rules.team_of(s),
                    hand_size: self.hands[s.index()].len() as u8,
                })
                .collect(),
            teams: (0..rules.teams)
                .map(|t| {
                    let tab = &self.tableaux[t as usize];
                    let hand = u32::from(self.hand_points(t).total());
                    let total = self.totals[t as usize];
                    TeamView {
                        team: t,
                        battle: tab.battle.as_slice().to_vec(),
                        speed: tab.speed.as_slice().to_vec(),
                        distance: tab.distance_cards().collect(),
                        safeties: tab.safeties.cards().collect(),
                        coups: tab.coups.cards().collect(),
                        score: ScoreView {
                            hand,
                            game: if hand_over {
                                total.saturating_sub(hand)
                            } else {
                                total
                            },
                        },
                    }
                })
                .collect(),
        }
    }
}

/// Which decision a determinized state should be waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Play or discard after the draw.
    Turn,
    /// Whether to call coup fourré on this hazard, played by `attacker`.
    CoupFourre {
        /// The hazard.
        hazard: Card,
        /// Who played it.
        attacker: u8,
    },
    /// Whether to extend.
    Extension,
}

/// A view that cannot describe a game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeterminizeError {
    /// Seat or ruleset counts do not fit.
    #[error("{0}")]
    Config(#[from] crate::rules::ConfigError),
    /// Something inconsistent, described.
    #[error("inconsistent view: {0}")]
    Inconsistent(String),
}

fn bad(msg: impl Into<String>) -> DeterminizeError {
    DeterminizeError::Inconsistent(msg.into())
}

/// Checks a view and builds the rules it implies (seats listed in order,
/// teams and hand sizes possible at that table).
pub fn rules_of(view: &View) -> Result<Rules, DeterminizeError> {
    let players = u8::try_from(view.seats.len()).map_err(|_| bad("too many seats"))?;
    let rules = Rules::new(GameConfig {
        rules: view.rules,
        players,
        // The protocol's `classic` is the published rules: a view has no
        // way to say `stacking` (see `determinize_for`).
        stacking: false,
    })?;
    // Numbers past the rules' bounds could overflow a count or a score.
    rules.check_view(view)?;
    if view.seat >= players {
        return Err(bad(format!(
            "seat {} is not at this {}-seat table",
            view.seat, players
        )));
    }
    for (i, s) in view.seats.iter().enumerate() {
        if s.seat as usize != i {
            return Err(bad(format!(
                "seats must be listed in order: entry {i} is seat {}",
                s.seat
            )));
        }
        // In order, so at the table: `i` is below the seat count.
        let Some(seat) = rules.seat(s.seat) else {
            return Err(bad(format!(
                "seat {} is not at this {}-seat table",
                s.seat, players
            )));
        };
        if s.team != rules.team_of(seat) {
            return Err(bad(format!(
                "seat {} plays for team {} at a {}-seat table, not team {}",
                s.seat,
                rules.team_of(seat),
                players,
                s.team
            )));
        }
        if s.hand_size as usize > MAX_HAND {
            return Err(bad(format!(
                "seat {} cannot hold {} cards",
                s.seat, s.hand_size
            )));
        }
    }
    if view.teams.len() != rules.teams as usize {
        return Err(bad(format!(
            "a {}-seat game has {} teams, the view lists {}",
            players,
            rules.teams,
            view.teams.len()
        )));
    }
    for (i, t) in view.teams.iter().enumerate() {
        if t.team as usize != i {
            return Err(bad(format!(
                "teams must be listed in order: entry {i} is team {}",
                t.team
            )));
        }
    }
    if view.hand.len() > MAX_HAND {
        return Err(bad(format!(
            "a hand holds at most {MAX_HAND} cards, not {}",
            view.hand.len()
        )));
    }
    if view.deck as usize > MAX_DECK_CARDS || view.discards.len() > MAX_DECK_CARDS {
        return Err(bad("more cards than a deck holds"));
    }
    Ok(rules)
}

fn tableau_of(tv: &TeamView) -> Result<Tableau, DeterminizeError> {
    let mut t = Tableau::default();
    for &c in &tv.battle {
        let ok = matches!(c.kind(), Kind::Hazard | Kind::Remedy)
            && !matches!(c, Card::SpeedLimit | Card::EndOfLimit);
        if !ok || !t.battle.push(c) {
            return Err(bad(format!(
                "team {}: {} cannot be on a battle pile",
                tv.team,
                c.id()
            )));
        }
    }
    for &c in &tv.speed {
        if !matches!(c, Card::SpeedLimit | Card::EndOfLimit) || !t.speed.push(c) {
            return Err(bad(format!(
                "team {}: {} cannot be on a speed pile",
                tv.team,
                c.id()
            )));
        }
    }
    for &c in &tv.distance {
        if c.kind() != Kind::Distance {
            return Err(bad(format!(
                "team {}: {} is not a distance card",
                tv.team,
                c.id()
            )));
        }
        t.distance[c as usize] = t.distance[c as usize].saturating_add(1);
        t.miles = t.miles.saturating_add(c.miles());
    }
    for &c in tv.safeties.iter().chain(&tv.coups) {
        match c.safety() {
            Some(s) if c.kind() == Kind::Safety => t.safeties.insert(s),
            _ => return Err(bad(format!("team {}: {} is not a safety", tv.team, c.id()))),
        }
    }
    for &c in &tv.coups {
        if let Some(s) = c.safety() {
            t.coups.insert(s);
        }
    }
    Ok(t)
}

/// Samples a full state consistent with `view`, waiting for the seat's turn
/// decision (after its draw). See [`determinize_for`], including its
/// limitation for the `stacking` variant.
pub fn determinize<R: Rng + ?Sized>(view: &View, rng: &mut R) -> Result<State, DeterminizeError> {
    determinize_for(view, Decision::Turn, rng)
}

/// Samples a full state consistent with `view`, waiting for `decision`.
///
/// Cards the view does not place (other hands, the draw pile) are drawn at
/// random from those not seen: the deck minus the seat's hand, every tableau
/// and the known discards. A view that shows only the top of each pile
/// leaves more unseen cards than places, and a random subset fills them; a
/// view whose cards add up to more than a deck is padded with random cards
/// rather than refused.
///
/// # The `stacking` variant
///
/// The protocol's `rules` ids are `bsd`, `classic` and `milebones`; none of
/// them means `classic` with `stacking`, so a view cannot say it and the
/// state sampled from a stacking game's view follows the published rules
/// (no hazard on a hazard). That is safe but incomplete: every other rule
/// reads the same tops, safeties and miles in both, and the published rules
/// only refuse more, so every action the sampled state lists is legal in the
/// stacking game; what it misses are the plays of a hazard on a side already
/// stopped by one. A bot deciding from a stacking game's view therefore
/// never plays illegally, but never stacks a hazard either. The property
/// tests check both halves at every step of random stacking games.
pub fn determinize_for<R: Rng + ?Sized>(
    view: &View,
    decision: Decision,
    rng: &mut R,
) -> Result<State, DeterminizeError> {
    determinize_at(view, view.seat, decision, &[], rng)
}

/// The cards `view`'s seat has not seen, by kind: the deck minus its hand,
/// every tableau and the known discards (what the other hands and the draw
/// pile are made of).
pub fn unseen_in_view(view: &View) -> Result<CardCounts, DeterminizeError> {
    let rules = rules_of(view)?;
    let mut seen = CardCounts::default();
    for tv in &view.teams {
        tableau_of(tv)?.count_into(&mut seen);
    }
    seen.add_all(view.hand.iter().copied());
    seen.add_all(view.discards.iter().copied());
    Ok(unseen_given(&rules, &seen))
}

/// The deck's cards minus those `seen`, by kind.
fn unseen_given(rules: &Rules, seen: &CardCounts) -> CardCounts {
    let mut unseen = CardCounts::default();
    for c in Card::ALL {
        unseen.0[c as usize] = rules.copies(c).saturating_sub(seen.get(c));
    }
    unseen
}

/// Like [`determinize_for`], with two differences for a bot that reasons
/// about other seats: the state waits for `decision` of seat `actor` (any
/// seat; only `view.seat`'s hand is known, so that seat's hand is sampled
/// like the others when it is not the viewer), and `guesses[s]` are cards
/// believed to be in seat `s`'s hand, placed there first (as far as the
/// unseen cards allow; the rest of the hand is drawn at random). Guesses
/// for the viewer's own seat are ignored.
pub fn determinize_at<R: Rng + ?Sized>(
    view: &View,
    actor: u8,
    decision: Decision,
    guesses: &[Vec<Card>],
    rng: &mut R,
) -> Result<State, DeterminizeError> {
    let rules = rules_of(view)?;
    let Some(actor) = rules.seat(actor) else {
        return Err(bad(format!(
            "seat {actor} is not at this {}-seat table",
            rules.seats
        )));
    };
    let mut state = State::empty(rules, ChaCha8Rng::seed_from_u64(rng.next_u64()));
    let mut seen = CardCounts::default();
    for (i, tv) in view.teams.iter().enumerate() {
        let t = tableau_of(tv)?;
        t.count_into(&mut seen);
        state.tableaux[i] = t;
        state.totals[i] = tv.score.game;
    }
    for &c in &view.hand {
        state.hands[view.seat as usize].push(c);
    }
    seen.add_all(view.hand.iter().copied());
    for &c in &view.discards {
        state.discards.push(c);
    }
    seen.add_all(view.discards.iter().copied());

    let mut unseen = unseen_given(&rules, &seen);
    // `rules_of` checked that the seats are 0.. in order, so each indexes.
    let mut placed = [0u8; MAX_SEATS];
    for sv in &view.seats {
        let s = usize::from(sv.seat);
        if sv.seat == view.seat {
            continue;
        }
        for &c in guesses.get(s).map_or(&[][..], Vec::as_slice) {
            if placed[s] < sv.hand_size && unseen.get(c) > 0 {
                unseen.0[c as usize] -= 1;
                state.hands[s].push(c);
                placed[s] += 1;
            }
        }
    }
    let mut pool: Pile<MAX_DECK_CARDS> = Pile::default();
    for c in Card::ALL {
        for _ in 0..unseen.get(c) {
            pool.push(c);
        }
    }
    shuffle(pool.as_mut_slice(), rng);
    let mut next_unseen = || pool.pop().unwrap_or_else(|| random_card(&rules, rng));
    for sv in &view.seats {
        if sv.seat != view.seat {
            for _ in placed[usize::from(sv.seat)]..sv.hand_size {
                let c = next_unseen();
                state.hands[sv.seat as usize].push(c);
            }
        }
    }
    for _ in 0..view.deck {
        let c = next_unseen();
        state.deck.push(c);
    }
    state.target = view.target.max(1);
    state.refresh_all();
    if view.extended {
        // The caller is not in the view; the leading side is the best guess.
        let leader = view
            .teams
            .iter()
            .max_by_key(|t| t.miles())
            .map_or(0, |t| t.team);
        state.extension_caller = Some(leader);
    }
    state.phase = match decision {
        Decision::Turn => Phase::Turn {
            seat: actor,
            drawn: true,
        },
        Decision::CoupFourre { hazard, attacker } => Phase::CoupFourre {
            seat: actor,
            hazard,
            attacker: Seat::new_unchecked(attacker % rules.seats),
        },
        Decision::Extension => Phase::Extension { seat: actor },
    };
    Ok(state)
}

/// A card drawn by the deck's own proportions, to pad inconsistent views.
fn random_card<R: Rng + ?Sized>(rules: &Rules, rng: &mut R) -> Card {
    let mut k = bounded(rng, rules.deck_size());
    for (i, &n) in rules.deck.iter().enumerate().take(KINDS) {
        if k < u32::from(n) {
            return Card::ALL[i];
        }
        k -= u32::from(n);
    }
    Card::Go
}

/// Every action of the seat's turn decision in `view` (after its draw), in
/// protocol order: what the engine answers to a `legal` request. For the
/// view of a `stacking` game these are the published rules' actions, all
/// legal there but without hazards on hazards (see [`determinize_for`]).
pub fn legal_actions_in_view(view: &View) -> Result<Vec<Action>, DeterminizeError> {
    // Legality depends only on the seat's hand and the public tableaux, so
    // any determinization gives the same answer.
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let state = determinize(view, &mut rng)?;
    let mut list = ActionList::default();
    state.legal_actions(&mut list);
    Ok(list.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameConfig;
    use rand_chacha::ChaCha8Rng;
    use rand_core::SeedableRng;

    /// A view from the network may claim any number of cards: one past
    /// the rules' bounds is refused by every reader of views, and counting
    /// what is within them neither overflows nor panics.
    #[test]
    fn absurd_card_counts_are_refused_or_clamped_never_a_panic() {
        let state = State::new(GameConfig::default(), 3).expect("config");
        let mut view = state.view(state.rules().seat(0).expect("seat 0"));
        view.discards = vec![Card::D25; MAX_DECK_CARDS];
        view.hand.push(Card::D25);
        let unseen = unseen_in_view(&view).expect("counts");
        assert_eq!(unseen.get(Card::D25), 0);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let _ = determinize_for(&view, Decision::Turn, &mut rng);
        let _ = legal_actions_in_view(&view);
        view.teams[1].distance = vec![Card::D25; 300];
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert!(unseen_in_view(&view).is_err());
        assert!(determinize_for(&view, Decision::Turn, &mut rng).is_err());
        assert!(legal_actions_in_view(&view).is_err());
    }
}
