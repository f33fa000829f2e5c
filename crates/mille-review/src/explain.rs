//! The sentences of why for a review's worst decisions, worked out from
//! what the seat knew then: its hand, the public tableaux and the cards
//! it had not seen (never the hidden cards themselves).

use crate::{DecisionReview, Explained, Job, Mark};
use mille_engine::view::{Decision, unseen_in_view};
use mille_engine::{Action, Card, CardCounts, Kind, View};

/// The (at most) three worst decisions that were not the best, worst
/// first (by points lost; the earlier decision among equals), explained.
pub(crate) fn worst(decisions: &[DecisionReview], jobs: &[Job]) -> Vec<Explained> {
    let mut order: Vec<usize> = (0..decisions.len())
        .filter(|&i| decisions[i].mark != Mark::Best)
        .collect();
    order.sort_by(|&a, &b| {
        decisions[b]
            .loss
            .total_cmp(&decisions[a].loss)
            .then(a.cmp(&b))
    });
    order
        .into_iter()
        .take(3)
        .filter_map(|i| {
            let d = &decisions[i];
            let job = jobs.iter().find(|j| j.index == d.index)?;
            Some(Explained {
                decision: i,
                sentence: sentence(d, &job.view, job.decision),
            })
        })
        .collect()
}

/// What the seat's side can see of a game.
struct Known<'a> {
    view: &'a View,
    unseen: CardCounts,
    team: u8,
}

impl Known<'_> {
    fn miles(&self, team: u8) -> u16 {
        self.view
            .teams
            .iter()
            .find(|t| t.team == team)
            .map_or(0, |t| t.miles())
    }

    fn has_safety(&self, team: u8, safety: Card) -> bool {
        self.view
            .teams
            .iter()
            .find(|t| t.team == team)
            .is_some_and(|t| t.safeties.contains(&safety))
    }

    /// The hazard stopping (or limiting) the seat's side, if any.
    fn stopped_by(&self) -> Option<Card> {
        let t = self.view.teams.iter().find(|t| t.team == self.team)?;
        t.battle
            .last()
            .copied()
            .filter(|c| c.kind() == Kind::Hazard)
            .or_else(|| t.speed.last().copied().filter(|&c| c == Card::SpeedLimit))
    }

    fn held(&self, card: Card) -> usize {
        self.view.hand.iter().filter(|&&c| c == card).count()
    }
}

/// "the 4 Stop and 3 Speed Limit cards not yet seen", or `None` when the
/// seat had seen them all.
fn unseen_list(known: &Known<'_>, hazards: &[Card]) -> Option<String> {
    let parts: Vec<String> = hazards
        .iter()
        .filter(|&&h| known.unseen.get(h) > 0)
        .map(|&h| format!("{} {}", known.unseen.get(h), h.name()))
        .collect();
    if parts.is_empty() {
        return None;
    }
    let n: u32 = hazards
        .iter()
        .map(|&h| u32::from(known.unseen.get(h)))
        .sum();
    let cards = if n == 1 { "card" } else { "cards" };
    Some(format!("the {} {cards} not yet seen", parts.join(" and ")))
}

/// The hazards a safety protects from.
fn hazards_of(safety: Card) -> Vec<Card> {
    Card::ALL
        .into_iter()
        .filter(|c| c.kind() == Kind::Hazard && c.safety() == safety.safety())
        .collect()
}

fn describe(action: Action) -> String {
    match action {
        Action::Play { card, .. } => format!("playing {}", card.name()),
        Action::Discard(card) => format!("discarding {}", card.name()),
        Action::CoupFourre(card) => format!("calling coup fourré with {}", card.name()),
        Action::DeclineCoupFourre => "declining the coup fourré".to_string(),
        Action::Extend(true) => "extending the trip".to_string(),
        Action::Extend(false) => "ending the trip".to_string(),
        other => other.to_string(),
    }
}

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Why the preferred move was better, from what it does.
fn merit(known: &Known<'_>, best: Action) -> Option<String> {
    match best {
        Action::Play { card, team } => match card.kind() {
            Kind::Safety => Some(format!(
                "{} is a safety: played, it scores 100 points, protects you for good and gives another turn",
                card.name()
            )),
            Kind::Remedy => Some(format!(
                "{} would have put you back on the road",
                card.name()
            )),
            Kind::Hazard if team != known.team => Some(format!(
                "{} would have held back the side at {} miles",
                card.name(),
                known.miles(team)
            )),
            Kind::Distance => Some(format!(
                "{} would have taken you to {} of {} miles",
                card.name(),
                known.miles(known.team).saturating_add(card.miles()),
                known.view.target
            )),
            _ => None,
        },
        Action::Discard(card) => Some(format!("{} was the card you could spare", card.name())),
        Action::CoupFourre(_) => Some(
            "a coup fourré scores 300 points beyond the safety's 100 and takes the turn".into(),
        ),
        _ => None,
    }
}

/// The sentence of why for one decision.
pub(crate) fn sentence(d: &DecisionReview, view: &View, decision: Decision) -> String {
    let team = view
        .seats
        .iter()
        .find(|s| s.seat == view.seat)
        .map_or(0, |s| s.team);
    let known = Known {
        view,
        unseen: unseen_in_view(view).unwrap_or_default(),
        team,
    };
    let cost = format!(
        "{} was about {:.0} points better.",
        capitalised(&describe(d.best)),
        d.loss
    );
    let why: Option<String> = match (decision, d.played) {
        (_, Action::Discard(card)) if card.kind() == Kind::Safety => {
            let open = unseen_list(&known, &hazards_of(card))
                .map(|l| format!(" left you open to {l} and"))
                .unwrap_or_default();
            Some(format!(
                "Discarding {}{open} gave up its 100 points (400 as a coup fourré).",
                card.name()
            ))
        }
        (_, Action::Discard(card)) if card.kind() == Kind::Remedy => {
            let hazard = card.remedied_hazard();
            let protected = card
                .safety()
                .is_some_and(|s| known.has_safety(team, s.card()));
            match hazard {
                Some(h) if known.stopped_by() == Some(h) && known.held(card) <= 1 => Some(format!(
                    "Discarding {} threw away your only remedy to the {} on your side.",
                    card.name(),
                    h.name()
                )),
                Some(h) if !protected && known.held(card) <= 1 => unseen_list(&known, &[h])
                    .map(|l| {
                        format!(
                            "Discarding {} left you without a remedy to {l}.",
                            card.name()
                        )
                    }),
                _ => None,
            }
        }
        (_, Action::Discard(card)) if card.kind() == Kind::Distance => Some(format!(
            "Discarding {} gave up {} miles towards the {}.",
            card.name(),
            card.miles(),
            view.target
        )),
        (Decision::CoupFourre { hazard, .. }, Action::DeclineCoupFourre) => Some(format!(
            "Declining the coup fourré on {} gave up 300 points and the turn.",
            hazard.name()
        )),
        (Decision::Extension, Action::Extend(true)) => {
            let hazards: Vec<Card> = Card::ALL
                .into_iter()
                .filter(|c| c.kind() == Kind::Hazard)
                .filter(|c| !c.safety().is_some_and(|s| known.has_safety(team, s.card())))
                .collect();
            let open = unseen_list(&known, &hazards)
                .map(|l| format!(", open to {l}", l = l))
                .unwrap_or_default();
            Some(format!(
                "Extending put the points of the finished trip at risk for {} more miles{open}.",
                1000u16.saturating_sub(known.miles(team))
            ))
        }
        (Decision::Extension, Action::Extend(false)) => Some(
            "Ending the trip gave up the extension's bonus while you were well placed to reach 1000."
                .to_string(),
        ),
        _ => None,
    };
    let merit = merit(&known, d.best).map(|m| format!(" {}.", capitalised(&m)));
    match why {
        Some(why) => format!("{why} {cost}"),
        None => format!(
            "{} cost about {:.0} points:{}",
            capitalised(&describe(d.played)),
            d.loss,
            merit.unwrap_or_else(|| format!(" {cost}"))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DecisionKind;
    use mille_engine::{GameConfig, Phase, Rules, Scenario};

    fn review(played: Action, best: Action, loss: f64) -> DecisionReview {
        DecisionReview {
            index: 0,
            hand: 1,
            kind: DecisionKind::Discard,
            played,
            best,
            loss,
            stderr: 5.0,
            mark: Mark::Mistake,
            moves: Vec::new(),
        }
    }

    /// The sentence counts the hazards the seat had not seen: those in
    /// the discards and on the tableaux are not among them.
    #[test]
    fn a_discarded_safety_is_explained_by_the_hazards_not_yet_seen() {
        let config = GameConfig::default();
        let rules = Rules::new(config).expect("config");
        let me = rules.seat(0).expect("seat 0");
        let view = Scenario::new(config)
            .expect("config")
            .hand(0, &[Card::RightOfWay, Card::D25, Card::D50])
            .battle(0, &[Card::Go])
            .battle(1, &[Card::Stop])
            .discards(&[Card::SpeedLimit, Card::Stop])
            .phase(Phase::Turn {
                seat: me,
                drawn: true,
            })
            .build()
            .view(me);
        let stops = rules.deck[Card::Stop as usize] - 2;
        let limits = rules.deck[Card::SpeedLimit as usize] - 1;
        let d = review(
            Action::Discard(Card::RightOfWay),
            Action::Discard(Card::D25),
            180.0,
        );
        let s = sentence(&d, &view, Decision::Turn);
        assert_eq!(
            s,
            format!(
                "Discarding Right of Way left you open to the {limits} Speed Limit and {stops} Stop \
                 cards not yet seen and gave up its 100 points (400 as a coup fourré). \
                 Discarding 25 was about 180 points better."
            )
        );
    }

    #[test]
    fn a_declined_coup_fourre_is_explained() {
        let config = GameConfig::default();
        let rules = Rules::new(config).expect("config");
        let me = rules.seat(0).expect("seat 0");
        let view = Scenario::new(config)
            .expect("config")
            .hand(0, &[Card::ExtraTank])
            .build()
            .view(me);
        let d = review(
            Action::DeclineCoupFourre,
            Action::CoupFourre(Card::ExtraTank),
            320.0,
        );
        let decision = Decision::CoupFourre {
            hazard: Card::OutOfGas,
            attacker: 1,
        };
        assert!(
            sentence(&d, &view, decision)
                .starts_with("Declining the coup fourré on Out of Gas gave up 300 points")
        );
    }
}
