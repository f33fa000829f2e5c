//! Time of one decision of each computer level, on fixed mid-hand
//! positions of 2-player `bsd` games, with the searching levels' budgets
//! counted in iterations (no time cap), so that the figure is the cost of
//! the level's whole budget on this machine. In play, the time caps cut
//! the longest decisions short; `mille match --json` reports those times.

use criterion::{BatchSize, Criterion, SamplingMode, criterion_group, criterion_main};
use mille_ai::{
    Bot, ClassicBot, Level, MilleBot, SearchBot, bot_action, observation, watch_current_hand,
};
use mille_engine::{GameConfig, GameRecord, Mille, Observation, Phase, Rules, State, ToAct};
use std::hint::black_box;
use std::time::Duration;

/// Seat 0's turn decision at its `turns`-th turn (counted from 0) of the
/// first hand dealt from `seed`, both seats played by `classic`, and the
/// record that leads there (for a searching bot to watch, as in a real
/// game). `None` if the hand ends first.
fn position(seed: u64, turns: usize) -> Option<(GameRecord, Observation)> {
    let config = GameConfig::default();
    let mut state = State::new(config, seed).ok()?;
    let mut record = GameRecord::new(config, seed);
    let mut bots = [ClassicBot::new(seed), ClassicBot::new(seed + 1)];
    let mut seen_turns = 0;
    loop {
        if let Phase::Turn { seat, drawn: true } = state.phase()
            && seat.number() == 0
        {
            if seen_turns >= turns {
                return Some((record, observation(&state, seat)));
            }
            seen_turns += 1;
        }
        let ToAct::Seat(seat) = state.to_act() else {
            return None;
        };
        let action = bot_action(&mut bots[usize::from(seat)], &state)?.ok()?;
        state.apply(action).ok()?;
        record.actions.push(action);
    }
}

/// `level`'s bot with its budget uncapped, having watched the hand so far.
fn bot_at(level: Level, record: &GameRecord) -> Option<Box<dyn BotClone>> {
    let mut bot: Box<dyn BotClone> = match level.uncapped_budget() {
        Some(budget) => Box::new(SearchBot::new(level.id(), budget, 7)),
        None => Box::new(ClassicBot::new(7)),
    };
    let seat0 = Rules::new(record.config).ok()?.seat(0)?;
    watch_current_hand(bot.as_bot(), seat0, record).ok()?;
    Some(bot)
}

/// A bot that can be copied between measurements, so that every decision
/// is made from the same memory.
trait BotClone {
    fn as_bot(&mut self) -> &mut MilleBot;
    fn boxed_clone(&self) -> Box<dyn BotClone>;
}

impl<B: Bot<Mille> + Clone + 'static> BotClone for B {
    fn as_bot(&mut self) -> &mut MilleBot {
        self
    }
    fn boxed_clone(&self) -> Box<dyn BotClone> {
        Box::new(self.clone())
    }
}

fn decisions(c: &mut Criterion) {
    // Early, middle and late in a hand, from three deals.
    let positions: Vec<(GameRecord, Observation)> = [(1, 3), (2, 8), (3, 14)]
        .into_iter()
        .map(|(seed, turns)| {
            position(seed, turns)
                .unwrap_or_else(|| panic!("no turn {turns} of seat 0 in the hand of seed {seed}"))
        })
        .collect();
    for (level, measure_secs) in [(Level::Classic, 3), (Level::Easy, 3), (Level::Normal, 5)] {
        let mut group = c.benchmark_group(format!("decision/{}", level.id()));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(measure_secs));
        if level.budget().is_some() {
            // A search takes milliseconds to a second: the same number of
            // runs per sample instead of criterion's growing ones.
            group.sampling_mode(SamplingMode::Flat);
        }
        for (i, (record, seen)) in positions.iter().enumerate() {
            let Some(bot) = bot_at(level, record) else {
                panic!("the {} bot could not watch position {i}", level.id());
            };
            group.bench_function(format!("position{i}"), |b| {
                // The copy (and its drop) are not timed, only the decision.
                b.iter_batched_ref(
                    || bot.boxed_clone(),
                    |fresh| black_box(fresh.as_bot().decide(seen)),
                    BatchSize::SmallInput,
                )
            });
        }
        group.finish();
    }
}

criterion_group!(benches, decisions);
criterion_main!(benches);
