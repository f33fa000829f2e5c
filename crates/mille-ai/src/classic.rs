//! The classic computer player: the decision procedure of BSD `mille`'s
//! computer as `classic-bot.md` describes it, without its defects (it
//! always answers legally, its `need` weights reset each hand, and its
//! "could finish with one card" test looks at the right card).
//!
//! It decides from what its seat may see: `seen` is the seat's hand plus every
//! public card. The only memory kept between requests is the `need` table,
//! which the original grows during a hand; a bot started mid-hand starts
//! from the initial weights unless it is shown its own turns of the hand
//! ([`Bot::observe`]).
//!
//! [`ClassicBot::sharpened`] is the same procedure with three weights
//! corrected (End of Limit's, which counts when playing too, and two
//! discard weights): not BSD's opponent, but the search's move to beat.

use crate::knowledge::Knowledge;
use crate::{coup_fourre_if_held, fallback_action};
use mille_engine::card::KINDS;
use mille_engine::view::Decision;
use mille_engine::{Action, Card, Kind, Phase, Safety, Seat, State, View, bounded};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// The BSD computer opponent.
#[derive(Clone, Debug)]
pub struct ClassicBot {
    rng: ChaCha8Rng,
    need: [i32; KINDS],
    /// Deck size and public card count at the last decision, to notice a
    /// new hand (the deck only shrinks and the table only grows in a hand).
    last: Option<(u32, u32)>,
    /// When set, the late-safety draws (`0..10`, one per safety it
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

/// The starting `need` weights of `classic-bot.md`.
fn initial_need() -> [i32; KINDS] {
    let mut n = [0; KINDS];
    for (c, w) in [
        (Card::OutOfGas, 2),
        (Card::FlatTire, 2),
        (Card::Accident, 2),
        (Card::Stop, 4),
        (Card::SpeedLimit, 3),
        (Card::Gasoline, 2),
        (Card::SpareTire, 2),
        (Card::Repairs, 2),
        (Card::Go, 10),
        (Card::EndOfLimit, 3),
        (Card::ExtraTank, 1),
        (Card::PunctureProof, 1),
        (Card::DrivingAce, 1),
        (Card::RightOfWay, 1),
    ] {
        n[c.index()] = w;
    }
    n
}

/// Whether the card should be played (`Play`) or thrown away (`Discard`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Play,
    Discard,
}

impl ClassicBot {
    /// A classic bot; `seed` drives its one random choice (when to play a
    /// safety late in the hand).
    pub fn new(seed: u64) -> ClassicBot {
        ClassicBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
            need: initial_need(),
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
    /// uses it as the move to beat. Graded by the oracle harness
    /// (`examples/oracle.rs`, 400 hands, seeds 5 and 2): +60 and +69 points
    /// a hand over the original's moves.
    pub fn sharpened(seed: u64) -> ClassicBot {
        ClassicBot {
            sharp: true,
            ..ClassicBot::new(seed)
        }
    }

    /// The original procedure with this bot's memory (the per-hand `need`
    /// weights) and random choices.
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

    /// Resets the per-hand memory when the view shows a new hand, then
    /// grows the need of the remedy of a hazard on the seat's own pile.
    fn remember(&mut self, k: &Knowledge) {
        let (deck, public) = (k.deck(), k.public());
        if let Some((last_deck, last_public)) = self.last
            && (deck > last_deck || public < last_public)
        {
            self.need = initial_need();
        }
        self.last = Some((deck, public));
        if let Some(h) = k.state().tableau(k.team()).stopping_hazard()
            && let Some(r) = h.remedy()
        {
            self.need[r.index()] += 2;
        }
    }

    /// The hazard pressure: battle hazards it drew (held, or played on an
    /// opponent in a two-side game where only it could have played them),
    /// plus for each of its own safeties the matching hazards not yet seen.
    fn hazard_pressure(k: &Knowledge) -> i32 {
        let mut p = k.hand().iter().filter(|c| c.is_battle_hazard()).count() as i32;
        if k.teams() == 2 {
            for o in k.opponents() {
                p += k
                    .state()
                    .tableau(o)
                    .battle
                    .as_slice()
                    .iter()
                    .filter(|c| c.is_battle_hazard())
                    .count() as i32;
            }
        }
        for s in [Card::ExtraTank, Card::PunctureProof, Card::DrivingAce] {
            if k.hand().contains(&s) || s.safety().is_some_and(|x| k.has_safety(k.team(), x)) {
                let hazard = match s {
                    Card::ExtraTank => Card::OutOfGas,
                    Card::PunctureProof => Card::FlatTire,
                    _ => Card::Accident,
                };
                p += k.unseen(hazard).max(0);
            }
        }
        p
    }

    /// Step 6: whether to extend the trip at 700 (`check_ext` of the
    /// original).
    fn would_extend(k: &Knowledge) -> bool {
        let known = Card::SAFETIES
            .into_iter()
            .filter(|s| {
                s.safety().is_some_and(|x| k.has_safety(k.team(), x)) || k.hand().contains(s)
            })
            .count();
        if known < 2 {
            return false;
        }
        for o in k.opponents() {
            if k.miles(o) == 0 || k.one_card_from_end(o) || (k.can_go(o) && k.miles(o) >= 500) {
                return false;
            }
        }
        // Every safety is ours or still unplayed by the opponents.
        let opp_played = k
            .opponents()
            .any(|o| !k.state().tableau(o).safeties.is_empty());
        if !opp_played {
            return true;
        }
        u32::from(Knowledge::hand_miles(k.hand())) + 3 * k.deck() > 1000
    }

    fn turn(&mut self, k: &Knowledge) -> Option<Action> {
        let me = k.team();
        let tab = k.state().tableau(me);
        // Step 2: a safety that cancels what stops us (or Right of Way
        // while limited) goes down at once.
        for &c in k.hand() {
            if c.kind() != Kind::Safety {
                continue;
            }
            let cancels = tab.stopping_hazard().and_then(|h| h.safety()) == c.safety()
                && tab.stopping_hazard().is_some();
            if (cancels || (c == Card::RightOfWay && tab.limited()))
                && let Some(a) = k.playable(c)
            {
                return Some(a);
            }
        }
        // Step 1: classify the hand.
        let mut cango = 0;
        let mut canstop = false;
        let mut finish = false;
        let all_low_seen = k.unseen(Card::D25) <= 0 && k.unseen(Card::D50) <= 0;
        for &c in k.hand() {
            if c.kind() == Kind::Safety || k.playable(c).is_none() {
                continue;
            }
            cango += 1;
            match c {
                Card::OutOfGas | Card::FlatTire | Card::Accident | Card::Stop => canstop = true,
                Card::SpeedLimit if all_low_seen => canstop = true,
                _ if c.kind() == Kind::Distance && tab.miles + c.miles() == k.target() => {
                    finish = true;
                }
                _ => {}
            }
        }
        // Step 3: a finish we would extend is no finish.
        if finish && k.rules().extended_target.is_some() && k.state().extension_caller().is_none() {
            finish = !Self::would_extend(k);
        }
        // Step 4: when to play a safety.
        let opp_one_card = k.opponents().any(|o| k.one_card_from_end(o));
        let zero_xor = k.opponents().any(|o| (k.miles(o) == 0) != (tab.miles == 0));
        let opp_can_go = k.opponents().any(|o| k.can_go(o));
        let me_can_go = k.can_go(me);
        for &c in k.hand() {
            if c.kind() != Kind::Safety {
                continue;
            }
            let Some(action) = k.playable(c) else {
                continue;
            };
            if opp_one_card || (finish && cango > 0 && !canstop) {
                return Some(action);
            }
            let all_seen = match c {
                Card::RightOfWay => k.unseen(Card::Stop) <= 0 && k.unseen(Card::SpeedLimit) <= 0,
                _ => [Card::OutOfGas, Card::FlatTire, Card::Accident]
                    .into_iter()
                    .find(|h| h.safety() == c.safety())
                    .is_some_and(|h| k.unseen(h) <= 0),
            };
            if all_seen {
                return Some(action);
            }
            if cango == 0 && (opp_can_go || !me_can_go) {
                let draw = match &self.forced_draws {
                    Some(draws) => {
                        let d = draws.get(self.draws).copied().unwrap_or(0);
                        self.draws += 1;
                        d
                    }
                    None => bounded(&mut self.rng, 10),
                };
                let mut left = k.deck() as i32 - (draw as i32 + 1);
                if zero_xor {
                    left -= 7;
                }
                if left < 17 {
                    return Some(action);
                }
            }
        }
        // Step 5: score every card.
        let mode = if cango > 0 { Mode::Play } else { Mode::Discard };
        let pressure = Self::hazard_pressure(k);
        let mut best: Option<(i32, Action)> = None;
        for &c in k.hand() {
            let action = match mode {
                Mode::Play if c.kind() == Kind::Safety => k.playable(c),
                Mode::Play => k.playable(c),
                Mode::Discard if c.kind() == Kind::Safety => None,
                Mode::Discard => k.discardable(c).then_some(Action::Discard(c)),
            };
            let Some(action) = action else { continue };
            let mut v = self.value(k, c, mode, canstop, finish, pressure);
            if self.sharp && mode == Mode::Discard {
                v += match c {
                    Card::D25 => SHARP_KEEP_D25,
                    Card::D50 => SHARP_KEEP_D50,
                    _ => 0,
                };
            }
            // Ties go to the later card in hand.
            let better = match (mode, best) {
                (_, None) => true,
                (Mode::Play, Some((b, _))) => v >= b,
                (Mode::Discard, Some((b, _))) => v <= b,
            };
            if better {
                best = Some((v, action));
            }
        }
        best.map(|(_, a)| a)
    }

    /// Step 5: the value of a card, to play (high is good) or to keep when
    /// discarding (the lowest goes).
    #[allow(clippy::too_many_arguments)]
    fn value(
        &self,
        k: &Knowledge,
        c: Card,
        mode: Mode,
        canstop: bool,
        finish: bool,
        pressure: i32,
    ) -> i32 {
        let me = k.team();
        let tab = k.state().tableau(me);
        let held = |x: Card| k.held(x);
        let need = |x: Card| self.need[x.index()];
        let target = k.target();
        // The opponent a hazard would go on: the leading one that can take it.
        let victim = k
            .playable(c)
            .and_then(|a| match a {
                Action::Play { team: target, .. } if c.kind() == Kind::Hazard => Some(target),
                _ => None,
            })
            .or_else(|| k.opponents().max_by_key(|&o| k.miles(o)))
            .unwrap_or((me + 1) % k.teams());
        match c.kind() {
            Kind::Distance => {
                let m = c.miles();
                if c == Card::D200 && tab.two_hundreds() >= 2 {
                    return 0;
                }
                if tab.miles + m > target {
                    return 0;
                }
                if tab.miles + m == target {
                    return 40;
                }
                let mut v = match c {
                    Card::D25 => 2,
                    Card::D50 if tab.limited() => 7,
                    Card::D50 => 5,
                    Card::D75 => 10,
                    Card::D100 => 13,
                    _ if tab.limited() => 24,
                    _ => 26,
                };
                let low = matches!(c, Card::D25 | Card::D50);
                let lows = held(Card::D25) + held(Card::D50);
                let limits_to_come = k.unseen(Card::SpeedLimit) > 0
                    && !k.has_safety(me, Safety::RightOfWay)
                    && !tab.limited();
                if low && limits_to_come && lows == 1 {
                    // The last low card is kept against a Speed Limit.
                    v = match mode {
                        Mode::Play => 1,
                        Mode::Discard => v + 10,
                    };
                }
                let room = i32::from(target - tab.miles);
                if low && mode == Mode::Play && room <= 100 && lows >= 2 && !finish {
                    // Don't creep with small cards near the end.
                    v -= 1;
                }
                v
            }
            Kind::Remedy if c == Card::Go => {
                if k.has_safety(me, Safety::RightOfWay) {
                    return -1;
                }
                if k.hand().contains(&Card::RightOfWay) {
                    return 1;
                }
                let copies = held(Card::Go).max(1);
                if mode == Mode::Discard {
                    let coming: i32 = [Card::Stop, Card::OutOfGas, Card::FlatTire, Card::Accident]
                        .into_iter()
                        .filter(|&h| !k.protected(me, h))
                        .map(|h| k.unseen(h).max(0))
                        .sum();
                    if copies > coming {
                        return 0;
                    }
                }
                (3 * need(Card::Go) + k.seen(Card::Go) - pressure) / (copies * copies)
            }
            Kind::Remedy => {
                let Some(h) = c.remedied_hazard() else {
                    return 0;
                };
                if k.protected(me, h) {
                    return -1;
                }
                if h.safety().is_some_and(|s| k.hand().contains(&s.card())) {
                    return 1;
                }
                if mode == Mode::Discard && k.unseen(h) <= 0 {
                    return 0;
                }
                let worth = if self.sharp && c == Card::EndOfLimit {
                    SHARP_END_OF_LIMIT
                } else {
                    6
                };
                let mut v = worth * i32::from(k.rules().copies(h)) + k.seen(c) - k.seen(h);
                if mode == Mode::Discard {
                    v -= 3 * (held(c) - 1);
                }
                v
            }
            Kind::Hazard => {
                if k.protected(victim, c) {
                    return -1;
                }
                let bonus = |v: &mut i32| {
                    if tab.miles == 0 || finish || k.one_card_from_end(victim) {
                        *v += 5;
                    }
                    if k.miles(victim) == 0 {
                        *v += 5;
                    }
                };
                let mut v = match c {
                    Card::Stop => {
                        let mut v = 4 * (need(Card::Stop) + k.seen(Card::Go));
                        bonus(&mut v);
                        if !k.can_go(victim) {
                            v -= 5;
                        }
                        v
                    }
                    Card::SpeedLimit => {
                        if target.saturating_sub(k.miles(victim)) <= 50 {
                            return 0;
                        }
                        if canstop {
                            return 2;
                        }
                        let mut v = 3 * (need(c) + k.seen(Card::EndOfLimit) + 2);
                        bonus(&mut v);
                        v
                    }
                    _ => {
                        let holds_safety = c.safety().is_some_and(|s| k.hand().contains(&s.card()));
                        let base = if holds_safety { 3 } else { 4 };
                        let remedy = c.remedy().unwrap_or(Card::Go);
                        let mut v = base * (need(c) + k.seen(remedy) + 2);
                        bonus(&mut v);
                        if k.limited(victim) {
                            v -= 3;
                        }
                        v
                    }
                };
                if mode == Mode::Discard {
                    v /= held(c).max(1);
                }
                v
            }
            Kind::Safety => match mode {
                Mode::Play => 0,
                Mode::Discard => 1000,
            },
        }
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
            // Step 2: it always makes its coups fourrés.
            Phase::CoupFourre { hazard, .. } => coup_fourre_if_held(state.hand(seat), hazard),
            Phase::Extension { .. } => {
                Action::Extend(Self::would_extend(&Knowledge::new(state, seat)))
            }
            Phase::Turn { drawn: true, .. } => {
                let k = Knowledge::new(state, seat);
                self.remember(&k);
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
        // Depth first through the sequences of draws the decision asks for
        // (one per safety it considers, at most four), each draw's ten
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

    /// Its own past turns rebuild its per-hand memory (`need`), so that a
    /// fresh bot shown the hand so far ([`crate::watch_current_hand`], as
    /// the terminal game does before every decision) decides as one that
    /// played the whole hand. A turn it decided itself is not counted
    /// twice: the table it saw then is the one it remembers.
    /// Sees `actor` make `action` in `view` (its seat's, just before).
    pub fn watch_view(&mut self, view: &View, actor: u8, action: Action) {
        if actor != view.seat || !matches!(action, Action::Play { .. } | Action::Discard(_)) {
            return;
        }
        let Some(state) = Knowledge::sample(view, Decision::Turn) else {
            return;
        };
        let Some(seat) = state.rules().seat(view.seat) else {
            return;
        };
        let k = Knowledge::new(&state, seat);
        if self.last != Some((k.deck(), k.public())) {
            self.remember(&k);
        }
    }
    /// Its answer to `decision` in `view`.
    pub fn choose(&mut self, view: &View, decision: Decision) -> Action {
        if let Decision::CoupFourre { hazard, .. } = decision {
            return coup_fourre_if_held(&view.hand, hazard);
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

    /// A reseeded bot keeps its memory (the search starts every seat's
    /// player from it) and draws its late safeties from the new seed.
    #[test]
    fn reseeded_keeps_the_memory() {
        let mut bot = ClassicBot::new(1);
        bot.need[Card::Go.index()] += 6;
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
                    Card::D25,
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
                            // What each remembers once this decision is made.
                            let k = Knowledge::new(&state, s);
                            let mut player = bot.clone();
                            player.remember(&k);
                            fresh.remember(&k);
                            assert_eq!(fresh.need, player.need, "deal {deal}, turn {turns}");
                            turns += 1;
                            if player.need != initial_need() {
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
