//! What the other seats probably hold, inferred from what they played: a
//! particle filter over their hidden hands. Each particle is one guess of
//! every other seat's hand; when a seat plays, each guess is weighted by
//! the chance that the classic player holding it would have made that move
//! (most opponents play sensibly, and against the classic bot the model is
//! exact), and guesses that cannot explain the move fade away. The search
//! then samples its determinizations from the surviving guesses instead of
//! from every hand the unseen cards allow.
//!
//! Only public events are used: the cards played, discarded or called as
//! coups fourrés, the extension answers, and the absence of a coup fourré
//! after a hazard (a player holding the safety always calls it).

use crate::ClassicBot;
use mille_engine::card::KINDS;
use mille_engine::rules::{CoupTiming, MAX_SEATS};
use mille_engine::view::{Decision, determinize_at, determinize_for, rules_of, unseen_in_view};
use mille_engine::{Action, Card, CardCounts, Kind, State, View, bounded};
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// Guesses kept.
const PARTICLES: usize = 600;
/// How much less likely a guess becomes when the classic player holding it
/// would have moved otherwise. Small, because the classic model is what
/// most opponents resemble (and is exact against the classic bot); not
/// zero, so that a human's or another bot's surprises only shift the
/// weights instead of refuting every guess. Measured: 0.01 guesses about
/// 2.9 of the classic bot's cards right where 0.3 guesses 2.5 (uniform
/// sampling: 2.1).
const SURPRISE: f64 = 0.01;

/// One guess of every other seat's hand.
#[derive(Clone, Debug)]
struct Particle {
    hands: Vec<Vec<Card>>,
    weight: f64,
}

/// The hidden-hand beliefs of one seat, kept from event to event.
#[derive(Clone, Debug)]
pub struct HandTracker {
    rng: ChaCha8Rng,
    particles: Vec<Particle>,
    /// Whether any move has shaped the beliefs this hand (if not, plain
    /// uniform sampling is as good and cheaper).
    informed: bool,
    /// The classic model of every seat, for its per-hand memory.
    models: Vec<ClassicBot>,
    /// Deck size and cards off the table at the last event, to notice a
    /// new hand.
    last: Option<(u32, u32)>,
    /// A hazard just played on a team, whose coup fourré window is open.
    pending: Option<(u8, Card, u8)>,
}

impl HandTracker {
    /// Empty beliefs; `seed` drives the filter's random choices.
    pub fn new(seed: u64) -> HandTracker {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let models = (0..MAX_SEATS)
            .map(|_| ClassicBot::new(rng.next_u64()))
            .collect();
        HandTracker {
            rng,
            particles: Vec::new(),
            informed: false,
            models,
            last: None,
            pending: None,
        }
    }

    /// The classic model of `seat`, with its per-hand memory as the moves
    /// watched this hand have built it.
    pub fn model(&self, seat: u8) -> Option<&ClassicBot> {
        self.models.get(usize::from(seat))
    }

    /// Whether moves seen this hand have shaped the beliefs.
    pub fn informed(&self) -> bool {
        self.informed
    }

    /// Brings the guesses in line with `view`: a new hand starts over, and
    /// every guess keeps only cards still unseen, with each hand at its
    /// size (the cards a seat drew since are random unseen cards).
    pub fn sync(&mut self, view: &View) {
        self.refresh(view, false);
    }

    /// [`HandTracker::sync`], first making the guesses if there are none
    /// yet (only a bot that watches the moves needs them). `false` when the
    /// view cannot describe a game.
    fn refresh(&mut self, view: &View, create: bool) -> bool {
        let Ok(unseen) = unseen_in_view(view) else {
            return false;
        };
        // Cards not on the table: in hands, in the deck. Within a hand the
        // table only grows, so this only shrinks, like the deck.
        let hidden = unseen.total() + view.hand.len() as u32;
        if let Some((deck, last_hidden)) = self.last
            && (view.deck > deck || hidden > last_hidden)
        {
            self.reset();
        }
        self.last = Some((view.deck, hidden));
        if self.particles.is_empty() && create {
            self.particles = vec![
                Particle {
                    hands: vec![Vec::new(); view.seats.len()],
                    weight: 1.0,
                };
                PARTICLES
            ];
        }
        let rng = &mut self.rng;
        for p in &mut self.particles {
            fit(p, view, &unseen, rng);
        }
        true
    }

    fn reset(&mut self) {
        self.particles.clear();
        self.informed = false;
        self.pending = None;
        let mut rng = ChaCha8Rng::seed_from_u64(self.rng.next_u64());
        for m in &mut self.models {
            *m = ClassicBot::new(rng.next_u64());
        }
    }

    /// Learns from `action` by seat `actor`, about to be applied to the
    /// game that `view` (the tracking seat's view) shows.
    pub fn observe(&mut self, view: &View, actor: u8, action: Action) {
        if matches!(action, Action::NextHand | Action::NextGame) {
            self.reset();
            self.last = None;
            return;
        }
        // A declined coup fourré is nobody's business but the decliner's.
        if action == Action::DeclineCoupFourre || !self.refresh(view, true) {
            return;
        }
        self.close_window(view, actor, action);
        if let Action::Play { card, team: target } = action
            && card.kind() == Kind::Hazard
        {
            self.pending = Some((target, card, actor));
        }
        // A draw shows nothing, and the seat's own moves teach it nothing.
        if action == Action::Draw || actor == view.seat || usize::from(actor) >= view.seats.len() {
            return;
        }
        let a = usize::from(actor);
        match action {
            Action::CoupFourre(safety) => {
                for p in &mut self.particles {
                    take_card(&mut p.hands, a, safety, &mut self.rng);
                }
                self.informed = true;
            }
            Action::Play { card, .. } | Action::Discard(card) => {
                self.weigh(view, actor, Decision::Turn, action, Some(card));
            }
            Action::Extend(_) => {
                self.weigh(view, actor, Decision::Extension, action, None);
            }
            _ => {}
        }
    }

    /// After a hazard on a side, the next event closes its coup fourré
    /// window: unless it is the call itself, the seats that were asked did
    /// not hold the safety (or chose not to call, which is rare).
    fn close_window(&mut self, view: &View, actor: u8, action: Action) {
        let Some((team, hazard, attacker)) = self.pending.take() else {
            return;
        };
        if matches!(action, Action::CoupFourre(_)) {
            return;
        }
        let Some(safety) = hazard.safety().map(|s| s.card()) else {
            return;
        };
        let Ok(rules) = rules_of(view) else {
            return;
        };
        // On the victim's turn, the call is offered to the seat now acting;
        // at once, to every holder on the side.
        let victims_turn = rules.coup_timing == CoupTiming::VictimsTurn;
        let asked: Vec<usize> = view
            .seats
            .iter()
            .filter(|s| s.team == team && s.seat != view.seat && s.seat != attacker)
            .filter(|s| !victims_turn || s.seat == actor)
            .map(|s| usize::from(s.seat))
            .collect();
        if asked.is_empty() {
            return;
        }
        for p in &mut self.particles {
            if asked
                .iter()
                .any(|&s| p.hands.get(s).is_some_and(|h| h.contains(&safety)))
            {
                p.weight *= SURPRISE;
            }
        }
        self.informed = true;
        self.normalize();
    }

    /// Weighs every guess by how well the classic model holding it
    /// explains `action` (of `card`, which the guess must then hold).
    fn weigh(
        &mut self,
        view: &View,
        actor: u8,
        decision: Decision,
        action: Action,
        card: Option<Card>,
    ) {
        let a = usize::from(actor);
        let Some(model) = self.models.get(a) else {
            return;
        };
        let mut model_state: Option<State> = None;
        for p in &mut self.particles {
            if let Some(c) = card {
                put_card(&mut p.hands, a, c, &mut self.rng);
            }
            let Ok(state) = determinize_at(view, actor, decision, &p.hands, &mut self.rng) else {
                continue;
            };
            let Some(seat) = state.rules().seat(actor) else {
                continue;
            };
            let likely = model.probability(&state, seat, action);
            p.weight *= SURPRISE + (1.0 - SURPRISE) * likely;
            if let Some(c) = card
                && let Some(hand) = p.hands.get_mut(a)
                && let Some(i) = hand.iter().position(|&x| x == c)
            {
                hand.swap_remove(i);
            }
            model_state.get_or_insert(state);
        }
        // The model's own memory moves on once per real decision.
        if let Some(state) = model_state
            && let Some(seat) = state.rules().seat(actor)
        {
            self.models[a].decide_state(&state, seat);
        }
        self.informed = true;
        self.normalize();
    }

    /// Rescales the weights and, when too few guesses carry the weight,
    /// draws a fresh set from them (systematic resampling).
    fn normalize(&mut self) {
        let total: f64 = self.particles.iter().map(|p| p.weight).sum();
        if total.is_nan() || total <= 0.0 {
            for p in &mut self.particles {
                p.weight = 1.0;
            }
            return;
        }
        let n = self.particles.len() as f64;
        for p in &mut self.particles {
            p.weight *= n / total;
        }
        let sum_sq: f64 = self.particles.iter().map(|p| p.weight * p.weight).sum();
        let effective = n * n / sum_sq;
        if effective >= n / 2.0 {
            return;
        }
        let mut next = Vec::with_capacity(self.particles.len());
        let mut u = f64::from(bounded(&mut self.rng, 1 << 20)) / f64::from(1u32 << 20);
        let mut acc = 0.0;
        for p in &self.particles {
            acc += p.weight;
            while u < acc && next.len() < self.particles.len() {
                next.push(Particle {
                    hands: p.hands.clone(),
                    weight: 1.0,
                });
                u += 1.0;
            }
        }
        while next.len() < self.particles.len() {
            if let Some(last) = next.last().cloned() {
                next.push(last);
            } else {
                break;
            }
        }
        self.particles = next;
    }

    /// A state consistent with `view` waiting for `decision`, its hidden
    /// hands drawn from the beliefs.
    pub fn sample(&self, view: &View, decision: Decision, rng: &mut ChaCha8Rng) -> Option<State> {
        if !self.informed || self.particles.is_empty() {
            return determinize_for(view, decision, rng).ok();
        }
        let total: f64 = self.particles.iter().map(|p| p.weight).sum();
        let mut x = total * f64::from(bounded(rng, 1 << 24)) / f64::from(1u32 << 24);
        let mut pick = &self.particles[0];
        for p in &self.particles {
            pick = p;
            if x < p.weight {
                break;
            }
            x -= p.weight;
        }
        determinize_at(view, view.seat, decision, &pick.hands, rng).ok()
    }
}

/// Makes a guess consistent with `view`: each other seat's hand keeps the
/// cards still unseen (shared out, first seat first), is cut to its size,
/// and is filled with random unseen cards.
fn fit(p: &mut Particle, view: &View, unseen: &CardCounts, rng: &mut ChaCha8Rng) {
    let mut left = *unseen;
    p.hands.resize(view.seats.len(), Vec::new());
    for sv in &view.seats {
        let hand = &mut p.hands[usize::from(sv.seat)];
        if sv.seat == view.seat {
            hand.clear();
            continue;
        }
        hand.retain(|&c| {
            let n = &mut left.0[c as usize];
            if *n > 0 {
                *n -= 1;
                true
            } else {
                false
            }
        });
        while hand.len() > usize::from(sv.hand_size) {
            let i = bounded(rng, hand.len() as u32) as usize;
            let c = hand.swap_remove(i);
            left.add(c);
        }
    }
    for sv in &view.seats {
        if sv.seat == view.seat {
            continue;
        }
        let hand = &mut p.hands[usize::from(sv.seat)];
        while hand.len() < usize::from(sv.hand_size) {
            match draw(&mut left, rng) {
                Some(c) => hand.push(c),
                None => break,
            }
        }
    }
}

/// One card at random from `counts`, removed from it.
fn draw(counts: &mut CardCounts, rng: &mut ChaCha8Rng) -> Option<Card> {
    let total = counts.total();
    if total == 0 {
        return None;
    }
    let mut k = bounded(rng, total);
    for i in 0..KINDS {
        let n = u32::from(counts.0[i]);
        if k < n {
            counts.0[i] -= 1;
            return Some(Card::ALL[i]);
        }
        k -= n;
    }
    None
}

/// Makes sure seat `seat`'s guess holds `card` (the seat just showed it),
/// trading a random card of its guess for it if it lacked it: with the
/// seat whose guess held the card instead, if any, so that the guesses
/// still share out the unseen cards.
fn put_card(hands: &mut [Vec<Card>], seat: usize, card: Card, rng: &mut ChaCha8Rng) {
    let Some(hand) = hands.get_mut(seat) else {
        return;
    };
    if hand.contains(&card) {
        return;
    }
    if hand.is_empty() {
        hand.push(card);
        return;
    }
    let i = bounded(rng, hand.len() as u32) as usize;
    let traded = std::mem::replace(&mut hand[i], card);
    for (o, other) in hands.iter_mut().enumerate() {
        if o != seat
            && let Some(j) = other.iter().position(|&x| x == card)
        {
            other[j] = traded;
            return;
        }
    }
}

/// `put_card`, then the card leaves the seat's hand.
fn take_card(hands: &mut [Vec<Card>], seat: usize, card: Card, rng: &mut ChaCha8Rng) {
    put_card(hands, seat, card, rng);
    if let Some(hand) = hands.get_mut(seat)
        && let Some(i) = hand.iter().position(|&x| x == card)
    {
        hand.swap_remove(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot_action;
    use mille_engine::{GameConfig, Rules, Seat, ToAct};

    /// Seat `n` of the default two-seat table these tests play.
    fn seat(n: u8) -> Seat {
        let rules = Rules::new(GameConfig::default()).expect("config");
        rules.seat(n).expect("a seat")
    }

    /// Cards of `guess` found in `truth` (as multisets).
    fn overlap(guess: &[Card], truth: &[Card]) -> usize {
        let mut t = truth.to_vec();
        guess
            .iter()
            .filter(|c| {
                t.iter()
                    .position(|x| x == *c)
                    .map(|i| t.swap_remove(i))
                    .is_some()
            })
            .count()
    }

    /// Plays classic against classic, seat 0 tracking seat 1, and measures
    /// the guesses sampled at seat 0's turns.
    fn guess_quality(deals: u64) -> Quality {
        let (mut informed, mut uniform, mut n) = (0usize, 0usize, 0usize);
        let mut brier = [0.0f64; 2];
        for deal in 0..deals {
            let mut state = State::new(GameConfig::default(), deal).expect("config");
            let mut bots = [ClassicBot::new(deal), ClassicBot::new(deal + 100)];
            let mut tracker = HandTracker::new(deal);
            let mut rng = ChaCha8Rng::seed_from_u64(deal);
            while let ToAct::Seat(s) = state.to_act() {
                let action = bot_action(&mut bots[s.index()], &state)
                    .expect("acts")
                    .expect("answers");
                let view = state.view(seat(0));
                if s.number() == 0 && action != Action::Draw {
                    tracker.sync(&view);
                    let truth = state.hand(seat(1));
                    let mut held = [[0u32; 4]; 2];
                    for _ in 0..20 {
                        let a = tracker
                            .sample(&view, Decision::Turn, &mut rng)
                            .expect("sample");
                        let b = determinize_for(&view, Decision::Turn, &mut rng).expect("sample");
                        informed += overlap(a.hand(seat(1)), truth);
                        uniform += overlap(b.hand(seat(1)), truth);
                        n += 1;
                        for (i, c) in SAFETIES.into_iter().enumerate() {
                            held[0][i] += u32::from(a.hand(seat(1)).contains(&c));
                            held[1][i] += u32::from(b.hand(seat(1)).contains(&c));
                        }
                    }
                    for (i, c) in SAFETIES.into_iter().enumerate() {
                        let t = f64::from(u8::from(truth.contains(&c)));
                        for k in 0..2 {
                            brier[k] += (f64::from(held[k][i]) / 20.0 - t).powi(2);
                        }
                    }
                }
                tracker.observe(&view, s.number(), action);
                bots[s.index()].watch_view(&view, s.number(), action);
                state.apply(action).expect("legal");
            }
        }
        let decisions = n as f64 / 20.0;
        Quality {
            cards: [informed as f64 / n as f64, uniform as f64 / n as f64],
            safeties: [brier[0] / decisions, brier[1] / decisions],
        }
    }

    /// How well guesses match seat 1's real hand, with beliefs and
    /// uniformly: cards guessed right, and the Brier score of "holds this
    /// safety" summed over the four safeties (lower is better).
    struct Quality {
        cards: [f64; 2],
        safeties: [f64; 2],
    }

    const SAFETIES: [Card; 4] = [
        Card::ExtraTank,
        Card::PunctureProof,
        Card::DrivingAce,
        Card::RightOfWay,
    ];

    /// After seat 0's hazard on seat 1 goes without a coup fourré, seat 1
    /// is believed not to hold the safety; uniform sampling often gives it.
    #[test]
    fn a_hazard_without_a_coup_fourre_clears_the_safety() {
        let (mut checked, mut believed, mut uniform) = (0, 0, 0);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for deal in 0..40 {
            let mut state = State::new(GameConfig::default(), deal).expect("config");
            let mut bots = [ClassicBot::new(deal), ClassicBot::new(deal + 100)];
            let mut tracker = HandTracker::new(deal);
            let mut hazard: Option<Card> = None;
            while let ToAct::Seat(s) = state.to_act() {
                let action = bot_action(&mut bots[s.index()], &state)
                    .expect("acts")
                    .expect("answers");
                let view = state.view(seat(0));
                tracker.observe(&view, s.number(), action);
                state.apply(action).expect("legal");
                if let Some(h) = hazard.take()
                    && s.number() == 1
                    && action == Action::Draw
                {
                    let safety = h.safety().expect("a battle hazard").card();
                    let after = state.view(seat(0));
                    tracker.sync(&after);
                    for _ in 0..50 {
                        let a = tracker
                            .sample(&after, Decision::Turn, &mut rng)
                            .expect("sample");
                        let b = determinize_for(&after, Decision::Turn, &mut rng).expect("sample");
                        // (The card seat 1 just drew may be the safety.)
                        believed += usize::from(a.hand(seat(1)).contains(&safety));
                        uniform += usize::from(b.hand(seat(1)).contains(&safety));
                    }
                    checked += 50;
                }
                if s.number() == 0
                    && let Action::Play { card, team: 1 } = action
                    && card.is_battle_hazard()
                {
                    hazard = Some(card);
                }
            }
        }
        assert!(checked >= 500, "only {checked} samples after hazards");
        let (b, u) = (
            believed as f64 / checked as f64,
            uniform as f64 / checked as f64,
        );
        eprintln!("seat 1 holds the safety: believed {b:.3}, uniform {u:.3}");
        // Only the card drawn since can bring the safety back.
        assert!(b < u / 2.0, "believed {b:.3} vs uniform {u:.3}");
    }

    /// A card shown by a seat whose guess lacked it is traded with the
    /// seat whose guess held it: the guesses keep the same cards in all.
    #[test]
    fn a_shown_card_is_traded_between_guesses() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut hands = vec![
            vec![],
            vec![Card::D25, Card::D50],
            vec![Card::Go, Card::DrivingAce],
        ];
        put_card(&mut hands, 1, Card::DrivingAce, &mut rng);
        assert!(hands[1].contains(&Card::DrivingAce));
        assert!(!hands[2].contains(&Card::DrivingAce));
        let mut all: Vec<Card> = hands.concat();
        all.sort();
        let mut before = vec![Card::D25, Card::D50, Card::Go, Card::DrivingAce];
        before.sort();
        assert_eq!(all, before);
        take_card(&mut hands, 2, Card::Go, &mut rng);
        assert_eq!(hands[2].len(), 1);
        assert!(!hands.concat().contains(&Card::Go));
    }

    /// A new hand forgets the last one's beliefs.
    #[test]
    fn a_new_hand_starts_uninformed() {
        let mut state = State::new(GameConfig::default(), 3).expect("config");
        let mut bots = [ClassicBot::new(1), ClassicBot::new(2)];
        let mut tracker = HandTracker::new(5);
        while let ToAct::Seat(s) = state.to_act() {
            let action = bot_action(&mut bots[s.index()], &state)
                .expect("acts")
                .expect("answers");
            tracker.observe(&state.view(seat(0)), s.number(), action);
            state.apply(action).expect("legal");
        }
        assert!(tracker.informed());
        tracker.observe(&state.view(seat(0)), 0, Action::NextHand);
        state.apply(Action::NextHand).expect("deal");
        assert!(!tracker.informed());
        // And without being told, the shrunken table gives it away.
        let mut other = HandTracker::new(5);
        let mut again = State::new(GameConfig::default(), 3).expect("config");
        while let ToAct::Seat(s) = again.to_act() {
            let action = bot_action(&mut bots[s.index()], &again)
                .expect("acts")
                .expect("answers");
            other.observe(&again.view(seat(0)), s.number(), action);
            again.apply(action).expect("legal");
        }
        again.apply(Action::NextHand).expect("deal");
        other.sync(&again.view(seat(0)));
        assert!(!other.informed());
    }

    /// Every guess fits the view: hands of the right size, made of cards
    /// the seat has not seen.
    #[test]
    fn guesses_fit_the_view() {
        let mut state = State::new(GameConfig::default(), 9).expect("config");
        let mut bots = [ClassicBot::new(1), ClassicBot::new(2)];
        let mut tracker = HandTracker::new(3);
        while let ToAct::Seat(s) = state.to_act() {
            let action = bot_action(&mut bots[s.index()], &state)
                .expect("acts")
                .expect("answers");
            tracker.observe(&state.view(seat(0)), s.number(), action);
            state.apply(action).expect("legal");
            let view = state.view(seat(0));
            tracker.sync(&view);
            let unseen = unseen_in_view(&view).expect("a true view");
            for p in &tracker.particles {
                let hand = &p.hands[1];
                assert_eq!(hand.len(), usize::from(view.seats[1].hand_size));
                let mut counts = CardCounts::default();
                counts.add_all(hand.iter().copied());
                for c in Card::ALL {
                    assert!(counts.get(c) <= unseen.get(c), "{c:?} guessed too often");
                }
            }
        }
    }

    #[test]
    fn beliefs_about_a_classic_opponent_beat_uniform_guessing() {
        let q = guess_quality(12);
        eprintln!(
            "cards of the real hand guessed: beliefs {:.2}, uniform {:.2}; \
             safeties' Brier score: beliefs {:.3}, uniform {:.3}",
            q.cards[0], q.cards[1], q.safeties[0], q.safeties[1]
        );
        assert!(q.cards[0] > q.cards[1] + 0.5, "cards {:?}", q.cards);
        assert!(
            q.safeties[0] < 0.9 * q.safeties[1],
            "safeties {:?}",
            q.safeties
        );
    }
}
