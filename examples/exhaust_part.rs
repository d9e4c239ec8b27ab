//! Run and resume an exhaustive search in parts, then record its proof: what `magichunt
//! exhaust --piece bishop --square b8 --bits 2 --shard K/2 --time T` and `magichunt audit`
//! do, from the library.
//!
//! ```sh
//! cargo run --release --example exhaust_part
//! ```
//!
//! Each part is searched in runs cut short by a time limit; every run saves a checkpoint in
//! the store and the next one resumes from it. When the last part is done and none of them
//! found a magic, the store records the proof that none exists: the question is settled. A
//! part searched in one run is checked by this build as it goes; a resumed one is checked by
//! an audit, which re-runs a sample of its blocks against the sums the part recorded.

use std::time::Duration;

use magichunt::exhaust::campaign::run::Ending;
use magichunt::exhaust::campaign::shard::Shard;
use magichunt::interrupt::Stop;
use magichunt::progress::Quiet;
use magichunt::settle::exhaustive::{run_part, PartConfig, PartOutcome, Whole};
use magichunt::store::Store;
use magichunt::trust::{audit_store, AuditConfig};
use magichunt::{Formula, Piece, Question, Target};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let store = dir.path().join("store.json");
    // Bishop b8 at 2 bits: its mask has 5 squares, and a table of 4 slots cannot hold their
    // attack sets apart; the search proves it in about a second of one core.
    let b8 = Target::new(Piece::Bishop, "b8".parse()?);
    let question = Question::new(b8, 2, Formula::Plain)?;
    let stop = Stop::new();
    let mut whole = None;
    for index in 1..=2 {
        let shard = Shard { index, count: 2 };
        let cfg = PartConfig {
            threads: 1,
            // Short runs, so that the part is resumed; a run always ends on a checkpoint.
            time: Some(Duration::from_millis(100)),
            ..PartConfig::new(question, shard, store.clone())
        };
        for attempt in 1.. {
            let PartOutcome::Ran(run) = run_part(&cfg, &stop, &mut Quiet)? else {
                return Err("the part was already done".into());
            };
            println!(
                "part {shard}, run {attempt}: {} of {} subtrees searched ({:?})",
                run.done, run.len, run.ending
            );
            if run.ending == Ending::Finished {
                whole = run.whole;
                break;
            }
        }
    }
    // The last part done settles the question: the store records the proof of none.
    assert_eq!(whole, Some(Whole::NoneExists));
    let saved = Store::load(&store)?;
    let proof = saved.proof_of(question).ok_or("no proof recorded")?;
    println!(
        "{b8}: no magic with {} bits or fewer exists: proof recorded in {}",
        proof.bits,
        store.display()
    );
    // The parts were resumed: an audit re-runs 2 blocks of each and compares their sums.
    let audit = AuditConfig {
        store: Some(store.clone()),
        sample: 2,
        seed: 1,
        threads: 1,
        piece: None,
        square: None,
        bits: None,
    };
    let report = audit_store(&audit, &stop, &mut Quiet)?;
    println!("{}", report.summary());
    assert_eq!(report.failed(), 0);
    Ok(())
}
