//! The part's record in the store: read back to resume, written at every checkpoint and at
//! the end, its best magic offered (verified first), and what the whole search says once a
//! part is done.

use crate::exhaust::campaign::residue::{Residue, Search};
use crate::exhaust::campaign::run::PartState;
use crate::exhaust::campaign::shard::{Cursor, Shard};
use crate::exhaust::{Best, Plan, Tally};
use crate::magic::{self, format_magic, parse_magic};
use crate::question::Question;
use crate::store::Store;
use crate::table::wire::{MethodWire, PartWire};
use crate::table::Entry;
use crate::timefmt::now_rfc3339;

use super::error::PartError;
use super::outcome::Whole;

/// The part's state from its stored record.
pub(super) fn resume(
    q: Question,
    plan: &Plan,
    shard: Shard,
    part: Option<&PartWire>,
) -> Result<PartState, PartError> {
    let search = Search::of(q.target, plan, shard);
    let fresh = |seconds| PartState {
        seconds,
        residue: Some(Residue::new(search, plan.tasks())),
        ..PartState::default()
    };
    let Some(p) = part else {
        return Ok(fresh(0.0));
    };
    let done = match &p.cursor {
        None => 0,
        Some(text) => {
            let c = Cursor::decode(text)?;
            if c.task_bits != plan.task_bits() {
                return Err(PartError::Record(format!(
                    "the stored cursor '{text}' was written for {} task bits, this build uses {}",
                    c.task_bits,
                    plan.task_bits()
                )));
            }
            c.done
        }
    };
    if done == 0 {
        // Nothing credited yet: start the part afresh, with a residue.
        return Ok(fresh(p.seconds));
    }
    let best = match &p.best {
        None => None,
        Some(text) => {
            let m = parse_magic(text)?;
            magic::verify(q.target, plan.bits(), m).ok().map(|v| Best {
                max_index: v.max_index,
                magic: m,
            })
        }
    };
    let residue = match &p.residue {
        Some(w) => {
            let r = Residue::from_wire(w, search, plan.tasks())
                .map_err(|e| PartError::Record(format!("part {shard}: {e}")))?;
            if !r.fits(done) {
                return Err(PartError::Record(format!(
                    "part {shard}: its residue does not fit its cursor ({done} subtrees done): a corrupt or hand-edited store?"
                )));
            }
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
pub(super) fn record(
    store: &mut Store,
    plan: &Plan,
    q: Question,
    shard: Shard,
    st: &PartState,
    done: bool,
) {
    let (bits, task_bits) = (plan.bits(), plan.task_bits());
    let x = store.exhaust_mut(q.target, bits, shard.count, task_bits, plan.order());
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

/// Offers the part's best magic to the store, verified first, naming this run as its finder.
pub(super) fn offer(
    store: &mut Store,
    q: Question,
    b: Best,
    shard: Shard,
) -> Result<(), PartError> {
    let v = magic::verify(q.target, q.bits, b.magic).map_err(|c| PartError::Collides {
        question: q,
        magic: format_magic(b.magic),
        index: c.index,
    })?;
    let method = MethodWire {
        family: "exhaustive".into(),
        seed: None,
        run: Some(format!(
            "{}-exhaust-{}of{}",
            now_rfc3339(),
            shard.index,
            shard.count
        )),
    };
    store.offer(Entry::from_verified(&v, Some(now_rfc3339()), Some(method)));
    Ok(())
}

/// A part searched in full by this process, residue and all, has its evidence checked here:
/// the user's cache remembers it. (A part resumed from a checkpoint is not: its earlier
/// blocks came from the file.)
pub(super) fn remember_run_here(store: &Store, q: Question, shard: Shard) {
    let Some(x) = store.exhaust(q.target, q.bits, shard.count) else {
        return;
    };
    if let Some(part) = x.parts.get(&shard.index) {
        let mut cache = crate::trust::Cache::open();
        cache.add_run_here(&crate::trust::part_key(x, part));
        cache.save();
    }
}

/// What the whole search says now that part `shard` is done.
pub(super) fn whole(store: &Store, q: Question, shard: Shard) -> Whole {
    let Some(x) = store.exhaust(q.target, q.bits, shard.count) else {
        return Whole::Parts {
            done: vec![shard.index],
            count: shard.count,
        };
    };
    if !x.complete() {
        return Whole::Parts {
            done: x
                .parts
                .values()
                .filter(|p| p.done)
                .map(|p| p.shard)
                .collect(),
            count: shard.count,
        };
    }
    let magics = x.magics();
    if magics == 0 {
        return Whole::NoneExists;
    }
    let tightest = x
        .parts
        .values()
        .filter_map(|p| p.best.as_deref())
        .filter_map(|b| parse_magic(b).ok())
        .filter_map(|m| magic::verify(q.target, q.bits, m).ok())
        .min_by_key(|v| (v.max_index, v.magic));
    Whole::Exists { magics, tightest }
}
