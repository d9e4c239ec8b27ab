//! `magichunt exhaust`: search one period completely, or one part of it; checkpoint into the
//! store; record a proof of none when every part is done and found nothing.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;

use super::{piece_arg, square_arg, Outcome};
use crate::exhaust::residue::{Residue, Search};
use crate::exhaust::run::{run_part, Ending, PartState, Progress, RunConfig};
use crate::exhaust::shard::{Cursor, Shard};
use crate::exhaust::{Best, Order, Plan, Tally};
use crate::interrupt::{install, Stop};
use crate::lock::StoreLock;
use crate::magic::{self, format_magic, parse_magic};
use crate::piece::{Piece, Target};
use crate::question::Formula;
use crate::square::Square;
use crate::store::Store;
use crate::table::wire::{MethodWire, PartWire};
use crate::table::Entry;
use crate::timefmt::{format_duration, now_rfc3339, parse_duration, secs};

/// Checkpoints are at most this far apart.
const CHECKPOINT: Duration = Duration::from_secs(30);

/// Arguments of `exhaust`.
#[derive(Debug, Args)]
pub struct ExhaustArgs {
    /// rook or bishop.
    #[arg(long, value_parser = piece_arg)]
    piece: Piece,
    /// a1..h8 or 0..63.
    #[arg(long, value_parser = square_arg)]
    square: Square,
    /// Index bits to settle.
    #[arg(long)]
    bits: u32,
    /// Search part K of M (1-based), e.g. 3/8; the parts are deterministic.
    #[arg(long, default_value = "1/1", value_parser = shard_arg)]
    shard: Shard,
    /// The results store holding progress, proofs and magics [default: results/mine.json in a
    /// checkout, else your own store in the data folder, started from the shipped store;
    /// MAGICHUNT_STORE names the default].
    #[arg(long)]
    store: Option<PathBuf>,
    /// Worker threads (0: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Stop after this long (e.g. 5m), save, and print the projected total time.
    #[arg(long, value_parser = duration_arg)]
    time: Option<Duration>,
    /// Search again even if this store already holds a proof of none at these bits.
    #[arg(long)]
    recheck: bool,
    /// Cut the period into 2^N subtrees, 1 to 32 [default: 18, fewer on short periods]. A
    /// subtree is what threads share and the most a kill can lose: the rank-1 rooks want 20 to
    /// 24 (docs/cluster.md). All parts of one search use the same N; a search already begun
    /// keeps its own.
    #[arg(long, value_name = "N", value_parser = task_bits_arg)]
    task_bits: Option<u32>,
    /// The order the bits of the magic are fixed in: `low` (lowest first; fast on rooks of
    /// ranks 5 to 8 and on bishops), `high` (the period's highest bits first, with the
    /// carries of the low ones bounded; up to millions of times fewer nodes on the rooks of
    /// ranks 1 to 4) or `trim` (as high, each window trimmed to where every family of subsets
    /// fits; 3 to 7 times cheaper than high on those rooks) [default: trim for the rooks of
    /// ranks 1 to 4, low otherwise]. `bench --estimate Q --order O` projects any. A search
    /// already begun keeps its own.
    #[arg(long)]
    order: Option<Order>,
    /// Index formula: only `plain` can be enumerated (a black key is odd, so every bit of
    /// the magic matters and the low-bits-first pruning has nothing to prune); black
    /// questions are settled by `prove --formula black` (SAT).
    #[arg(long, default_value = "plain", value_parser = super::formula_arg)]
    formula: Formula,
}

pub(super) fn shard_arg(s: &str) -> Result<Shard, crate::error::ParseError> {
    s.parse()
}

pub(super) fn duration_arg(s: &str) -> Result<Duration, crate::error::ParseError> {
    parse_duration(s)
}

fn task_bits_arg(s: &str) -> Result<u32, crate::error::ParseError> {
    let max = crate::exhaust::MAX_TASK_BITS;
    s.trim()
        .parse()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| {
            crate::error::ParseError::Other(format!(
                "invalid task bits '{s}' (expected 1 to {max})"
            ))
        })
}

/// The arguments of `exhaust` for (`target`, `bits`): what `prove --method exhaust` runs.
pub(super) fn exhaust_args(
    target: Target,
    bits: u32,
    shard: Shard,
    store: Option<PathBuf>,
    threads: usize,
    time: Option<Duration>,
    recheck: bool,
) -> ExhaustArgs {
    ExhaustArgs {
        piece: target.piece,
        square: target.square,
        bits,
        shard,
        store,
        threads,
        time,
        recheck,
        task_bits: None,
        order: None,
        formula: Formula::Plain,
    }
}

/// Runs `exhaust`.
pub(super) fn run(args: ExhaustArgs) -> anyhow::Result<Outcome> {
    let target = Target::new(args.piece, args.square);
    let bits = args.bits;
    target.check_bits(bits)?;
    if args.formula == Formula::Black {
        anyhow::bail!(
            "exhaust enumerates one period of plain magics; a black key (occ | !mask) is odd, so every bit of a black magic matters (period 2^64) and the low-bits-first search cannot prune: settle black questions with `magichunt prove --formula black` (SAT)"
        );
    }
    let store_path = super::stores::writing_path(args.store.as_deref())?;
    super::stores::for_writing(&store_path)?;
    let path = store_path.as_path();
    let (mut store, _) =
        Store::read(path).with_context(|| format!("cannot use {}", path.display()))?;
    // A proof this store holds settles the question, as a finished part does, once this
    // build checked it (or ships it): nothing to do. One only claimed decides nothing: say
    // so and search. A published proof alone is worth reproducing: say so and search.
    let mut cache = crate::trust::Cache::open();
    crate::trust::vet_file(&mut store, path, &mut cache);
    let own = store.trusted_own_none_with(target, Formula::Plain);
    if let Some(proven) = own.filter(|&p| p >= bits && !args.recheck) {
        println!(
            "{target} at {bits} bits is already proven in {}: no magic with {proven} bits or fewer exists (--recheck searches again)",
            path.display()
        );
        return Ok(Outcome::Success);
    }
    let q = crate::question::Question {
        target,
        bits,
        formula: Formula::Plain,
    };
    if let Some(why) = store.claimed_only(q).filter(|_| !args.recheck) {
        crate::say!(
            "note: {} records that no {target} magic with {bits} bits exists, but the proof is {why}: it decides nothing, so the search runs (`magichunt audit --store {}` checks it instead)",
            path.display(),
            path.display()
        );
    }
    if let Some(p) = crate::published::proof(target).filter(|p| p.bits >= bits) {
        let source = p
            .extra
            .get("source")
            .and_then(|v| v.as_str())
            .unwrap_or("published");
        crate::say!("note: {target} at {bits} bits is proven impossible by {source}; searching to reproduce it");
    }
    let shard = args.shard;
    let name = path.display().to_string();
    // One writer per store: take the lock, then read the store again under it. The lock
    // resolves the store to its real file: load and save that one.
    let lock = StoreLock::acquire(path)?;
    removed_note(&lock);
    let path = lock.store();
    store = Store::load(path).with_context(|| format!("cannot use {name}"))?;
    let stop = Stop::new();
    install(&stop).context("cannot install the Ctrl-C handler")?;
    // A search already begun keeps the task split its parts were searched with.
    let begun = store.exhaust(target, bits, shard.count);
    let fresh = Plan::new(target, bits);
    let plan = match (begun, args.task_bits) {
        (Some(x), Some(n)) if fresh.clone().with_task_bits(n).task_bits() != x.task_bits => {
            anyhow::bail!(
                "{target} at {bits} bits in {} parts was begun in {name} with {} task bits, not {n}: leave out --task-bits, or search into another store",
                shard.count,
                x.task_bits
            )
        }
        (Some(x), _) => fresh.with_task_bits(x.task_bits),
        (None, Some(n)) => fresh.with_task_bits(n),
        (None, None) => fresh,
    };
    let plan = match (begun, args.order) {
        (Some(x), Some(o)) if o != x.order => anyhow::bail!(
            "{target} at {bits} bits in {} parts was begun in {name} in the {} order, not {o}: leave out --order, or search into another store",
            shard.count,
            x.order
        ),
        (Some(x), _) => plan.with_order(x.order),
        (None, o) => plan.with_order(o.unwrap_or(Order::suited(target))),
    };
    let mut part = begun.and_then(|x| x.parts.get(&shard.index)).cloned();
    if let (Some(x), Some(p)) = (begun, part.as_ref().filter(|p| p.done)) {
        let threads = super::threads_or_all(Some(args.threads));
        if args.recheck
            || !crate::trust::audit::done_part_stands(x, p, &name, threads, &stop, &mut cache)?
        {
            // Search the part again from its start; the record is replaced when done.
            part = None;
        } else {
            println!("part {shard} of {target} at {bits} bits is already done");
            return Ok(Outcome::Success);
        }
        if stop.signalled() {
            return Ok(Outcome::Interrupted);
        }
    }
    let mut state = resume(target, &plan, shard, part.as_ref())?;
    if state.residue.is_none() {
        crate::say!(
            "note: part {shard} was begun by a build that kept no residue: it resumes, but finishes without evidence (claimed, not counted); --recheck searches it again from the start"
        );
    }
    // Names this run in the entry it may store (the run that finished the part).
    let run = format!("{}-exhaust-{}of{}", now_rfc3339(), shard.index, shard.count);
    let threads = super::threads_or_all(Some(args.threads));
    let len = shard.len(plan.tasks());
    crate::say!(
        "exhaust {target} at {bits} bits, part {shard}: period 2^{}, {len} of {} subtrees, {} done, {threads} threads",
        plan.period_bits(),
        plan.tasks(),
        state.done
    );
    let cfg = RunConfig {
        threads,
        time_limit: args.time,
        report: crate::exhaust::run::REPORT,
        until: None,
    };
    let tty = std::io::stderr().is_terminal();
    let every = if tty {
        Duration::from_secs(1)
    } else {
        Duration::from_secs(10)
    };
    let mut last_print = Instant::now();
    let mut last_save = Instant::now();
    let start_done = state.done;
    let mut save_error = None;
    let mut last: Option<Progress> = None;
    let ending = run_part(&plan, shard, &mut state, &cfg, &stop, |st, p| {
        last = Some(*p);
        if last_print.elapsed() >= every {
            last_print = Instant::now();
            let line = progress_line(st, p, start_done);
            if tty {
                crate::say_inline!("\r{line}\x1b[K");
            } else {
                crate::say!("{line}");
            }
        }
        if last_save.elapsed() >= CHECKPOINT && save_error.is_none() {
            last_save = Instant::now();
            record(&mut store, &plan, target, shard, st, false);
            save_error = store.save(path).err();
        }
    })?;
    if tty {
        crate::say!();
    }
    if let Some(e) = save_error {
        return Err(e).context("checkpoint failed");
    }
    let finished = ending == Ending::Finished;
    record(&mut store, &plan, target, shard, &state, finished);
    if finished {
        if let Some(b) = state.tally.best {
            offer(&mut store, target, bits, b, &run)?;
        }
        store.settle_exhaust(&name)?;
    }
    store.save(path)?;
    if finished && start_done == 0 && state.residue.is_some() {
        // Searched in full by this process, residue and all: its evidence is checked here.
        // (A part resumed from a checkpoint is not: its earlier blocks came from the file.)
        let x = store
            .exhaust(target, bits, shard.count)
            .expect("just recorded");
        if let Some(part) = x.parts.get(&shard.index) {
            let mut cache = crate::trust::Cache::open();
            cache.add_run_here(&crate::trust::part_key(x, part));
            cache.save();
        }
    }
    if let Some(p) = last {
        let secs = p.elapsed.as_secs_f64().max(1e-9);
        crate::say!(
            "this run: {} partial magics tested in {:.1} s at {threads} threads ({:.2} M/s, {:.2} M/s per thread)",
            p.nodes_seen,
            secs,
            p.nodes_seen as f64 / secs / 1e6,
            p.nodes_seen as f64 / secs / 1e6 / threads as f64
        );
    }
    let fraction = if len == 0 {
        1.0
    } else {
        state.done as f64 / len as f64
    };
    match ending {
        Ending::Finished => {
            report_finished(&store, target, bits, shard, &state);
            Ok(Outcome::Success)
        }
        Ending::Stopped | Ending::TimeUp => {
            let run_done = state.done - start_done;
            let took = secs(state.seconds / threads as f64);
            println!(
                "part {shard} of {target} at {bits} bits: {:.4}% searched ({} of {len} subtrees), checkpoint saved",
                100.0 * fraction,
                state.done
            );
            if run_done > 0 {
                let projected = took.as_secs_f64() / fraction;
                println!(
                    "projected time for the part at {threads} threads: {} ({} so far)",
                    format_duration(secs(projected)),
                    format_duration(took)
                );
            } else {
                println!("no subtree finished in this run: no projection yet");
            }
            Ok(if ending == Ending::Stopped {
                Outcome::Interrupted
            } else {
                Outcome::Failure
            })
        }
    }
}

/// Says which leftover temporary files taking the lock removed.
pub(super) fn removed_note(lock: &StoreLock) {
    for f in lock.removed() {
        crate::say!(
            "magichunt: removed {}, left by a process killed while saving",
            f.display()
        );
    }
}

/// The part's state from its stored record.
fn resume(
    target: Target,
    plan: &Plan,
    shard: Shard,
    part: Option<&PartWire>,
) -> anyhow::Result<PartState> {
    let search = Search::of(target, plan, shard);
    let Some(p) = part else {
        return Ok(PartState {
            residue: Some(Residue::new(search, plan.tasks())),
            ..PartState::default()
        });
    };
    let done = match &p.cursor {
        None => 0,
        Some(text) => {
            let c = Cursor::decode(text)?;
            anyhow::ensure!(
                c.task_bits == plan.task_bits(),
                "the stored cursor '{text}' was written for {} task bits, this build uses {}",
                c.task_bits,
                plan.task_bits()
            );
            c.done
        }
    };
    if done == 0 {
        // Nothing credited yet: start the part afresh, with a residue.
        return Ok(PartState {
            seconds: p.seconds,
            residue: Some(Residue::new(search, plan.tasks())),
            ..PartState::default()
        });
    }
    let best = match &p.best {
        None => None,
        Some(text) => {
            let m = parse_magic(text)?;
            magic::verify(target, plan.bits(), m).ok().map(|v| Best {
                max_index: v.max_index,
                magic: m,
            })
        }
    };
    let residue = match &p.residue {
        Some(w) => {
            let r = Residue::from_wire(w, search, plan.tasks())
                .map_err(|e| anyhow::anyhow!("part {shard}: {e}"))?;
            anyhow::ensure!(
                r.fits(done),
                "part {shard}: its residue does not fit its cursor ({done} subtrees done): a corrupt or hand-edited store?"
            );
            Some(r)
        }
        None => None,
    };
    Ok(PartState {
        done,
        tally: Tally {
            magics: p.magics,
            nodes: p.nodes,
            best,
        },
        seconds: p.seconds,
        residue,
    })
}

/// Writes the part's state into the store (not yet saved).
fn record(
    store: &mut Store,
    plan: &Plan,
    target: Target,
    shard: Shard,
    st: &PartState,
    done: bool,
) {
    let (bits, task_bits) = (plan.bits(), plan.task_bits());
    let x = store.exhaust_mut(target, bits, shard.count, task_bits, plan.order());
    // Fields of the part this build does not know stay.
    let extra = x
        .parts
        .get(&shard.index)
        .map(|p| p.extra.clone())
        .unwrap_or_default();
    x.parts.insert(
        shard.index,
        PartWire {
            shard: shard.index,
            done,
            cursor: (!done).then(|| {
                Cursor {
                    task_bits,
                    done: st.done,
                }
                .encode()
            }),
            magics: st.tally.magics,
            nodes: st.tally.nodes,
            seconds: (st.seconds * 1000.0).round() / 1000.0,
            best: st.tally.best.map(|b| format_magic(b.magic)),
            residue: st.residue.as_ref().map(Residue::to_wire),
            extra,
        },
    );
}

/// Offers the part's best magic to the store, verified first, naming `run` as its finder.
fn offer(store: &mut Store, target: Target, bits: u32, b: Best, run: &str) -> anyhow::Result<()> {
    let v = magic::verify(target, bits, b.magic).map_err(|c| {
        anyhow::anyhow!(
            "internal error: exhaustive search produced {} for {target} at {bits} bits, which collides at index {}",
            format_magic(b.magic),
            c.index
        )
    })?;
    let method = MethodWire {
        family: "exhaustive".into(),
        seed: None,
        run: Some(run.to_owned()),
    };
    store.offer(Entry::from_verified(&v, Some(now_rfc3339()), Some(method)));
    Ok(())
}

fn report_finished(store: &Store, target: Target, bits: u32, shard: Shard, st: &PartState) {
    let x = store
        .exhaust(target, bits, shard.count)
        .expect("just recorded");
    crate::say!(
        "part {shard}: {} partial magics tested in {:.2} thread-seconds in all",
        st.tally.nodes,
        st.seconds
    );
    if !x.complete() {
        let done: Vec<String> = x
            .parts
            .values()
            .filter(|p| p.done)
            .map(|p| p.shard.to_string())
            .collect();
        let list = if done.len() <= 20 {
            format!(" ({})", done.join(", "))
        } else {
            String::new()
        };
        println!(
            "part {shard} done ({} magics in it); parts done: {} of {}{list}",
            st.tally.magics,
            done.len(),
            shard.count
        );
        return;
    }
    let total = x.magics();
    if total == 0 {
        println!("{target} at {bits} bits: none exists (proof recorded)");
        return;
    }
    let tightest = x
        .parts
        .values()
        .filter_map(|p| p.best.as_deref())
        .filter_map(|b| parse_magic(b).ok())
        .filter_map(|m| magic::verify(target, bits, m).ok())
        .min_by_key(|v| (v.max_index, v.magic));
    match tightest {
        Some(v) => println!(
            "{target} at {bits} bits: exists: {total} magics in the period, tightest highest index {} ({})",
            v.max_index,
            format_magic(v.magic)
        ),
        None => println!("{target} at {bits} bits: exists: {total} magics in the period"),
    }
}

fn progress_line(st: &PartState, p: &Progress, start_done: u64) -> String {
    let secs = p.elapsed.as_secs_f64().max(1e-9);
    let rate = p.nodes_seen as f64 / secs;
    let run_done = st.done - start_done;
    let eta = if run_done > 0 {
        let left = p.len - st.done;
        format_duration(Duration::from_secs_f64(
            secs * left as f64 / run_done as f64,
        ))
    } else {
        "?".into()
    };
    format!(
        "{:.3}% ({}/{} subtrees), {} magics, {:.1} M partial magics/s, ETA {eta}",
        100.0 * st.done as f64 / p.len.max(1) as f64,
        st.done,
        p.len,
        st.tally.magics,
        rate / 1e6
    )
}
