//! Seating a new game of cubes at a [`game_table::Table`]: what a host
//! (the terminal game, a simulation) calls, so that it never builds the
//! engine's full state itself.

use crate::observation::Cubes;
use crate::settings::Settings;
use crate::state::{SetupError, State};
use game_table::{Player, SeatInfo, Table};

impl Cubes {
    /// A new game of `settings` on `seed` at a table, one seat per entry
    /// of `seats`; the engine refuses a table it cannot seat.
    pub fn table(
        settings: Settings,
        seed: u64,
        seats: Vec<(SeatInfo, Player<Cubes>)>,
    ) -> Result<Table<Cubes>, SetupError> {
        let state = State::new(settings, seats.len(), seed)?;
        Ok(Table::new(state, seats))
    }
}
