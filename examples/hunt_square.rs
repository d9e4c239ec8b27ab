//! Hunt one square into a store, resumable: what `magichunt hunt --piece rook --square a8
//! --tries N` does, from the library.
//!
//! ```sh
//! cargo run --release --example hunt_square            # a store in a temporary folder
//! cargo run --release --example hunt_square -- my.json # your own store: run it again to resume
//! ```
//!
//! The hunt takes the store's lock, loads it (every magic verified again), hunts, saves a
//! checkpoint every 30 seconds and at the end. A second run on the same store resumes: it
//! starts one bit below the best magic stored, and adds to the work recorded at those bits.

use std::path::PathBuf;

use magichunt::hunt::plan::{Objective, Select};
use magichunt::hunt::{run, HuntConfig};
use magichunt::interrupt::Stop;
use magichunt::magic::format_magic;
use magichunt::progress::Lines;
use magichunt::store::Store;
use magichunt::{Formula, Piece, Target};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The store: the one named, or a new one in a folder removed at the end.
    let scratch = tempfile::tempdir()?;
    let store = std::env::args_os()
        .nth(1)
        .map_or_else(|| scratch.path().join("store.json"), PathBuf::from);
    let a8 = Target::new(Piece::Rook, "a8".parse()?);
    let cfg = HuntConfig {
        targets: vec![a8],
        // From one bit below the best stored magic (its popcount, 12, in a new store) down.
        select: Select::Ratchet,
        formula: Formula::Plain,
        objective: Objective::Bits,
        time: None,
        // Candidates per target and run: a fraction of a second on one core.
        tries: Some(1 << 18),
        threads: 1,
        seed: 7,
        store: store.clone(),
    };
    // Two runs on the same store: the second resumes from what the first saved. (Ctrl-C
    // would set the stop flag once `magichunt::interrupt::install` ties it to the signals.)
    for (round, seed) in [(1, 7), (2, 8)] {
        let cfg = HuntConfig {
            seed,
            ..cfg.clone()
        };
        let summary = run(&cfg, &Stop::new(), &mut Lines::new(None))?;
        let best = summary.store.best(a8).ok_or("no magic stored")?;
        // The work recorded one bit below the best: where the next run goes on.
        let below = best.bits - 1;
        let (tried, _) = summary.store.work_at(a8, below);
        println!(
            "run {round}: {} candidates, {} magics stored; best {} at {} bits (highest index {}); {tried} candidates at {below} bits so far",
            summary.tried,
            summary.improvements.len(),
            format_magic(best.magic),
            best.bits,
            best.max_index,
        );
    }
    // The store on disk holds what both runs found and did, every magic verified on load.
    let saved = Store::load(&store)?;
    let (tried, seconds) = saved.work(a8);
    println!(
        "{a8}: {tried} candidates in {seconds:.2} thread-seconds over both runs, in {}",
        store.display()
    );
    Ok(())
}
