//! The random opponent of `classic-bot.md`'s reference figures: it plays a
//! random legal card (a safety a quarter of the time it holds one it may
//! play), otherwise discards a random non-safety, always calls coup fourré
//! and extends half the time.

use crate::{coup_fourre_if_held, fallback_action};
use mille_engine::view::{Decision, legal_actions_in_view};
use mille_engine::{Action, Kind, View, bounded};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// Plays a random legal card; see the module documentation.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl RandomBot {
    /// A random bot with its own seeded stream.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    fn pick(&mut self, actions: &[Action]) -> Option<Action> {
        if actions.is_empty() {
            None
        } else {
            Some(actions[bounded(&mut self.rng, actions.len() as u32) as usize])
        }
    }
}

impl RandomBot {
    /// The bot's name.
    pub fn label(&self) -> &str {
        "random"
    }
    /// Its answer to `decision` in `view`.
    pub fn choose(&mut self, view: &View, decision: Decision) -> Action {
        match decision {
            Decision::CoupFourre { hazard, .. } => coup_fourre_if_held(&view.hand, hazard),
            Decision::Extension => Action::Extend(bounded(&mut self.rng, 2) == 0),
            Decision::Turn => {
                let actions = legal_actions_in_view(view).unwrap_or_default();
                let is_safety = |a: &Action| a.card().is_some_and(|c| c.kind() == Kind::Safety);
                let (safeties, others): (Vec<Action>, Vec<Action>) = actions
                    .iter()
                    .filter(|a| matches!(a, Action::Play { .. }))
                    .partition(|a| is_safety(a));
                if !safeties.is_empty()
                    && bounded(&mut self.rng, 4) == 0
                    && let Some(a) = self.pick(&safeties)
                {
                    return a;
                }
                if let Some(a) = self.pick(&others) {
                    return a;
                }
                let discards: Vec<Action> = actions
                    .iter()
                    .copied()
                    .filter(|a| matches!(a, Action::Discard(c) if c.kind() != Kind::Safety))
                    .collect();
                let any_discard: Vec<Action> = actions
                    .iter()
                    .copied()
                    .filter(|a| matches!(a, Action::Discard(_)))
                    .collect();
                self.pick(&discards)
                    .or_else(|| self.pick(&safeties))
                    .or_else(|| self.pick(&any_discard))
                    .unwrap_or_else(|| fallback_action(view, decision))
            }
        }
    }
}

crate::view_bot!(RandomBot);
