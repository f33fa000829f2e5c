//! The per-item score of a hand, as the score window shows it.

use crate::state::{Phase, State};
use serde::{Deserialize, Serialize};

/// One side's points for one hand, item by item.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HandScore {
    /// Milestones played.
    pub miles: u16,
    /// 100 per safety.
    pub safeties: u16,
    /// 300 for all four safeties.
    pub all_safeties: u16,
    /// 300 per coup fourré.
    pub coups: u16,
    /// Trip completed.
    pub trip: u16,
    /// Trip completed after the draw pile ran out.
    pub delayed_action: u16,
    /// Trip completed without a 200.
    pub safe_trip: u16,
    /// Extension bonus (or, classic, the failed caller's opponents' bonus).
    pub extension: u16,
    /// Shut-out, per opposing side with no miles.
    pub shut_out: u16,
}

impl HandScore {
    /// The sum of every item.
    pub fn total(&self) -> u16 {
        self.miles
            + self.safeties
            + self.all_safeties
            + self.coups
            + self.trip
            + self.delayed_action
            + self.safe_trip
            + self.extension
            + self.shut_out
    }

    /// Items earned so far this hand (trip bonuses are added at the end); the
    /// full score once the hand is over.
    pub fn running(state: &State, team: u8) -> HandScore {
        if matches!(state.phase(), Phase::HandOver | Phase::GameOver)
            && let Some(s) = state.last_scores()
            && let Some(&mine) = s.get(team as usize)
        {
            return mine;
        }
        Self::table_items(state, team)
    }

    /// The items that come from the tableau alone.
    pub(crate) fn table_items(state: &State, team: u8) -> HandScore {
        let t = state.tableau(team);
        let sc = &state.rules().scoring;
        let n = t.safeties.len() as u16;
        HandScore {
            miles: t.miles,
            safeties: sc.safety * n,
            all_safeties: if n == 4 { sc.all_safeties } else { 0 },
            coups: sc.coup_fourre * t.coups.len() as u16,
            ..HandScore::default()
        }
    }

    /// The items as (label, points) rows in the order of the BSD score window.
    pub fn rows(&self) -> [(&'static str, u16); 9] {
        [
            ("Milestones Played", self.miles),
            ("Each Safety", self.safeties),
            ("All 4 Safeties", self.all_safeties),
            ("Each Coup Fourre", self.coups),
            ("Trip Completed", self.trip),
            ("Safe Trip", self.safe_trip),
            ("Delayed Action", self.delayed_action),
            ("Extension", self.extension),
            ("Shut-Out", self.shut_out),
        ]
    }
}
