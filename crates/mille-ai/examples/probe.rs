//! Prints the root statistics of one search, for tuning.
use mille_ai::search::{Budget, search_stats};
use mille_engine::view::Decision;
use mille_engine::{Card, GameConfig, Phase, Scenario};

fn main() {
    use Card::*;
    let state = Scenario::new(GameConfig::default())
        .expect("s")
        .hand(0, &[Go, Go, Accident, Go, D25, Go, Gasoline])
        .hand(1, &[D25, D25, D50, D75, D100, Go])
        .battle(0, &[Go, Stop])
        .battle(1, &[Go, OutOfGas])
        .distance(0, &[D100, D100])
        .deck(&[
            D25, D50, D75, D100, D25, D50, Go, Go, Go, Go, Repairs, Repairs, D100, D100, D100,
            Stop, Accident, D75, D75, D75, D75, D75, D200, D200, D100, Go, Go, Go, Go, Go, D25,
            D25, D25, D25, D50, D50, D50, D50, D50, D50, D25,
        ])
        .phase(Phase::Turn {
            seat: 0,
            drawn: true,
        })
        .build();
    let view = state.view(0);
    println!("hand {:?}", view.hand);
    for iters in [200, 2000, 20000] {
        let t = std::time::Instant::now();
        let stats = search_stats(
            &view,
            Decision::Turn,
            Budget {
                iterations: iters,
                trees: 1,
                time_limit: None,
            },
            1,
        );
        println!("{iters} {:?}", t.elapsed());
        for (a, n, w) in stats {
            println!("{a:>20} {n:>6} {:.3}", w / f64::from(n.max(1)));
        }
    }
}
