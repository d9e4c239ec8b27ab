//! The part's record in the store: read back to resume, written at every checkpoint and at
//! the end, its best magic offered (verified first), and what the whole search says once a
//! part is done.

use crate::exhaust::campaign::found::Listing;
use crate::exhaust::campaign::residue::{Residue, Search};
use crate::exhaust::campaign::run::PartState;
use crate::exhaust::campaign::shard::{Cursor, Shard};
use crate::exhaust::{Best, Plan, Tally};
use crate::magic::{self, format_magic, parse_magic, Verified};
use crate::question::Question;
use crate::store::Store;
use crate::table::wire::{MethodWire, PartWire, SuppliedWire};
use crate::table::{Entry, Exhaust};
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
        found: Some(Listing::default()),
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
    // The list goes on where it stopped; a part begun before lists, or resumed in between
    // by a build without them (its list then lacks magics it counted), lists from here on.
    let listed = Listing::from_wire(p.found.as_ref(), done, p.magics);
    let found = if listed.full() || listed.whole_since_from(p.magics) {
        listed
    } else {
        Listing::starting(done, p.magics)
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
        found: Some(found),
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
    let old = x.parts.get(&shard.index);
    let extra = old.map(|p| p.extra.clone()).unwrap_or_default();
    let found = st.found.as_ref();
    let supplied = old
        .and_then(|p| p.supplied.clone())
        .and_then(|s| keep_supplied(s, found, st.tally.magics));
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
            found: found.and_then(Listing::to_wire),
            supplied,
            extra,
        },
    );
}

/// The magics supplied to a part that its list (as it now stands, with `magics` counted)
/// still lacks: none once the list holds every magic from the part's start, and none when
/// they no longer fit its count (the part was searched again from its start).
fn keep_supplied(
    mut s: SuppliedWire,
    found: Option<&Listing>,
    magics: u64,
) -> Option<SuppliedWire> {
    let listing = found?;
    if listing.from == 0 && !listing.full() {
        return None;
    }
    s.magics
        .retain(|text| parse_magic(text).is_ok_and(|m| !listing.magics.contains(&m)));
    let fits = (listing.magics.len() + s.magics.len()) as u64 <= magics;
    (fits && !s.magics.is_empty()).then_some(s)
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
    offer_verified(store, &v, &format!("{}of{}", shard.index, shard.count));
    Ok(())
}

/// Offers a magic of the search that the one verify accepted, the run named
/// `<time>-exhaust-<what>`.
pub(super) fn offer_verified(store: &mut Store, v: &Verified, what: &str) {
    let method = MethodWire {
        family: "exhaustive".into(),
        seed: None,
        run: Some(format!("{}-exhaust-{what}", now_rfc3339())),
    };
    store.offer(Entry::from_verified(v, Some(now_rfc3339()), Some(method)));
}

/// Adds `magics` (verified, not listed by part `shard` yet) to the part's supplied ones, their
/// source named `by` (joined to an earlier source's name).
///
/// # Errors
/// A message when the names of the sources together are longer than a store keeps.
pub(super) fn supply(
    store: &mut Store,
    q: Question,
    shard: Shard,
    by: &str,
    magics: &[u64],
) -> Result<(), String> {
    let Some(x) = store.exhaust(q.target, q.bits, shard.count) else {
        return Err(format!("no search of {} at {} bits", q.target, q.bits));
    };
    let x = store.exhaust_mut(q.target, q.bits, shard.count, x.task_bits, x.order);
    let Some(part) = x.parts.get_mut(&shard.index) else {
        return Err(format!("part {shard} is not begun"));
    };
    let s = part.supplied.get_or_insert_with(|| SuppliedWire {
        by: by.to_string(),
        magics: Vec::new(),
        extra: std::collections::BTreeMap::new(),
    });
    if s.by != by && !s.by.split("; ").any(|b| b == by) {
        s.by = format!("{}; {by}", s.by);
    }
    if s.by.len() > 300 || s.by.chars().any(char::is_control) {
        return Err(format!(
            "the sources' names ({}) are more than a store keeps in one line of 300 bytes",
            s.by
        ));
    }
    s.magics.extend(magics.iter().map(|&m| format_magic(m)));
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
    whole_of(x)
}

/// What the search `x` says: the parts done so far, none exists, or its magics.
pub(super) fn whole_of(x: &Exhaust) -> Whole {
    if !x.complete() {
        return Whole::Parts {
            done: x
                .parts
                .values()
                .filter(|p| p.done)
                .map(|p| p.shard)
                .collect(),
            count: x.shards,
        };
    }
    if x.magics() == 0 {
        return Whole::NoneExists;
    }
    super::found::exists(x)
}
