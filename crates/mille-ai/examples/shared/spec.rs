//! What the tuning harnesses (`duel`, `oracle`) share: the budget a
//! search bot's name stands for.

use mille_ai::{Budget, Level};

/// The search budget `spec` names, without its time cap so that results
/// do not depend on the machine's load: `search:N` is N iterations over two
/// trees, a searching level its own budget. `None` when `spec` names no
/// search (another bot, or nothing); an error when what follows `search:`
/// is not a number of iterations.
pub fn search_budget(spec: &str) -> Option<Result<Budget, String>> {
    if let Some(n) = spec.strip_prefix("search:") {
        return Some(
            n.parse()
                .map(|iterations| Budget {
                    iterations,
                    trees: 2,
                    time_limit: None,
                })
                .map_err(|_| format!("`{spec}`: search:N takes a number of iterations")),
        );
    }
    spec.parse::<Level>()
        .ok()
        .and_then(Level::uncapped_budget)
        .map(Ok)
}
