//! Throughput of complete random 2-player `bsd` hands on one core.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mille_engine::sim::play_random_hand;
use mille_engine::{Action, GameConfig, State};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::hint::black_box;

fn random_hands(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_play");
    group.throughput(Throughput::Elements(1));
    group.bench_function("bsd_2p_hand", |b| {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut state = State::new(GameConfig::default(), 1).expect("default config");
        b.iter(|| {
            if state.apply(Action::NextHand).is_err() {
                let _ = state.apply(Action::NextGame);
            }
            black_box(play_random_hand(&mut state, &mut rng))
        })
    });
    group.finish();
}

criterion_group!(benches, random_hands);
criterion_main!(benches);
