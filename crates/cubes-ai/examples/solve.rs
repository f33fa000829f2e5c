//! Solves the optimal player's win tables and writes them to a directory: a
//! developer's tool, run when the rules or the solver change, not a part of
//! the game.
//!
//! ```sh
//! cargo run --release -p cubes-ai --example solve -- --out crates/cubes-ai/data
//! cargo run --release -p cubes-ai --example solve -- --out DIR --only 7500j
//! ```

use anyhow::{Context, Result};
use clap::Parser;
use cubes_ai::solver::{Thresholds, solve};
use cubes_ai::tables::{encode, file_name};
use cubes_engine::Settings;
use std::path::PathBuf;
use std::time::Instant;

/// Solve the optimal player's win tables and write them to a directory.
#[derive(Parser, Debug)]
struct Args {
    /// Where to write the tables (by default over the shipped ones, in this
    /// crate's data directory).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/data"))]
    out: PathBuf,
    /// Only these (e.g. `10000`, `7500j`); default all four.
    #[arg(long)]
    only: Vec<String>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let out = &args.out;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for settings in [Settings::standard(), Settings::blitz()] {
        for jokers in [false, true] {
            let rules = Thresholds::of(&settings);
            let name = file_name(&rules, jokers);
            let short = name.trim_start_matches('w').trim_end_matches(".bin");
            if !args.only.is_empty() && !args.only.iter().any(|o| o == short) {
                continue;
            }
            let t = Instant::now();
            let table = solve(&settings, jokers);
            let path = out.join(&name);
            game_store::atomic_write(&path, &encode(&table))?;
            println!(
                "{}: solved in {:.1} s; first player wins {:.2}% under optimal play",
                path.display(),
                t.elapsed().as_secs_f64(),
                100.0 * table.get(0, 0)
            );
        }
    }
    Ok(())
}
