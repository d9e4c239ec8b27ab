//! Packing an indexed table: offsets, magics and ids chosen together by the annealing of
//! [`pack`](super::pack), on the id array of [`ids`](super::ids), then the lists.
//!
//! Two kinds of lists ([`ListsMode`]):
//! - **shared** (the default): the lists of [`lists::shared`], laid out once for the board,
//!   fix every square's ids; the packer chooses offsets and magics, and a square may sit over
//!   another where their ids are equal. The lookup keeps the square's rays of the entry.
//! - **own**: every square has a list of its own, so its ids are the packer's to choose: where
//!   a square is placed over taken slots, each of its attack sets takes the id found there
//!   (see [`IdArray`](super::ids::IdArray)), and the rest the lowest ids left. The lookup is
//!   `lists[list + id]` with no mask; the lists take 8 bytes for each of the 6,328 attack sets.

use std::sync::atomic::AtomicBool;

use super::anneal::{Candidate, Placed};
use super::ids::{Ids, Numbering};
use super::indexed::{IndexedFill, IndexedTable};
use super::lists::{self, attack_sets, Lists};
use super::pack::{pack_items, PackOptions};
use super::{LayoutError, Pattern};
use crate::piece::Target;
use crate::table::Entry;

/// Which lists an indexed table has.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum ListsMode {
    /// One list array for all squares, an entry serving several (masked by the rays).
    #[default]
    Shared,
    /// A list of its own for every square, in the order the packer numbered it.
    Own,
}

impl ListsMode {
    /// The name the command line and the table format use.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ListsMode::Shared => "shared",
            ListsMode::Own => "own",
        }
    }
}

impl std::str::FromStr for ListsMode {
    type Err = crate::error::ParseError;

    fn from_str(s: &str) -> Result<ListsMode, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "shared" => Ok(ListsMode::Shared),
            "own" => Ok(ListsMode::Own),
            _ => Err(crate::error::ParseError::Other(format!(
                "invalid lists '{s}' (expected shared or own)"
            ))),
        }
    }
}

/// One magic a square may take, as the id packer sees it: its ids item and its attack sets in
/// class order (to turn a numbering into the table's order, [`attack_sets`]).
#[derive(Clone, Debug)]
pub struct IdCandidate {
    /// The item and its lowest index.
    pub candidate: Candidate<Ids>,
    /// The attack set of each class.
    pub classes: Vec<u64>,
}

impl IdCandidate {
    /// The candidate of `pattern`, meeting at most `hits` taken slots; with `ids` (in the
    /// order of [`attack_sets`]) its numbering is fixed to them.
    #[must_use]
    pub fn new(pattern: &Pattern, hits: u32, ids: Option<&[u8]>) -> IdCandidate {
        let (item, classes) = Ids::of(pattern, hits);
        let item = match ids {
            Some(ids) => item.fixed(class_order(ids, &classes, pattern)),
            None => item,
        };
        IdCandidate {
            candidate: Candidate {
                shape: item,
                lo: pattern.min(),
            },
            classes,
        }
    }

    /// A numbering of this candidate's classes in the table's order ([`attack_sets`]).
    #[must_use]
    pub fn table_order(&self, numbering: &[u8], target: Target) -> Vec<u8> {
        attack_sets(target)
            .iter()
            .map(|a| {
                let c = self
                    .classes
                    .iter()
                    .position(|b| b == a)
                    .expect("a magic's pattern holds every attack set");
                numbering[c]
            })
            .collect()
    }
}

/// `ids` in the order of [`attack_sets`] as a numbering of `classes` (the attack set of each
/// class of `pattern`).
fn class_order(ids: &[u8], classes: &[u64], pattern: &Pattern) -> Numbering {
    let target_sets: Vec<u64> = {
        let mut s: Vec<u64> = pattern.slots.iter().map(|s| s.1).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    classes
        .iter()
        .map(|a| ids[target_sets.binary_search(a).expect("listed")])
        .collect()
}

/// A starting table: per square its pick, offset and ids (in the order of [`attack_sets`]).
pub type IndexedStart = (Vec<usize>, Vec<u32>, Vec<Vec<u8>>);

/// What [`pack_indexed`] made.
#[derive(Clone, Debug)]
pub struct IndexedPacking {
    /// Per square, the position of the magic taken among its candidates.
    pub picks: Vec<usize>,
    /// Per square, its offset in the id array.
    pub offsets: Vec<u32>,
    /// Per square, its ids in the order of [`attack_sets`].
    pub ids: Vec<Vec<u8>>,
    /// Ids of the array: highest slot written plus one.
    pub size: u64,
    /// Distinct slots written.
    pub used: u64,
    /// The size of the start (first-fit decreasing, or the table given).
    pub first_size: u64,
    /// Annealing steps done.
    pub steps: u64,
}

/// Packs squares that each offer several magics (`groups[k]`, best first, each group of one
/// target, `targets[k]`) into an id array: chooses a magic, an offset and (with own lists)
/// the ids of every square, from `start` when given (the result is never larger) or from
/// first-fit decreasing; annealed within `opts` or until `stop` is set. With shared lists
/// `ids` fixes every square's ids (in the order of [`attack_sets`]). `on_better` gets every
/// smaller packing.
///
/// # Panics
/// If a square has no magic, or `start` has the wrong length or does not fit.
#[allow(clippy::too_many_arguments)]
pub fn pack_indexed(
    groups: &[Vec<Pattern>],
    targets: &[Target],
    ids: Option<&[Vec<u8>]>,
    hits: u32,
    start: Option<&IndexedStart>,
    opts: &PackOptions,
    stop: &AtomicBool,
    on_better: &mut dyn FnMut(&IndexedPacking),
) -> IndexedPacking {
    let cands: Vec<Vec<IdCandidate>> = groups
        .iter()
        .enumerate()
        .map(|(k, g)| {
            g.iter()
                .map(|p| IdCandidate::new(p, hits, ids.map(|i| &i[k][..])))
                .collect()
        })
        .collect();
    let squares: Vec<Vec<Candidate<Ids>>> = cands
        .iter()
        .map(|g| g.iter().map(|c| c.candidate.clone()).collect())
        .collect();
    let packing = |p: &Placed<Numbering>, first_size: u64, steps: u64| IndexedPacking {
        picks: p.plan.pick.clone(),
        offsets: p.offsets(&squares),
        ids: (0..squares.len())
            .map(|k| cands[k][p.plan.pick[k]].table_order(&p.labels[k], targets[k]))
            .collect(),
        size: u64::from(p.size),
        used: p.used,
        first_size,
        steps,
    };
    let start = start.map(|(picks, offsets, table_ids)| {
        let labels = (0..squares.len())
            .map(|k| {
                let c = &cands[k][picks[k]];
                let sets = attack_sets(targets[k]);
                c.classes
                    .iter()
                    .map(|a| table_ids[k][sets.binary_search(a).expect("listed")])
                    .collect()
            })
            .collect();
        (picks.clone(), offsets.clone(), labels)
    });
    let (best, first_size, steps) = pack_items(
        &squares,
        start.as_ref(),
        opts,
        stop,
        &mut |p, first_size| {
            on_better(&packing(p, first_size, 0));
        },
    );
    packing(&best, first_size, steps)
}

/// The indexed table of `entries` (one per square, in the packing's order) as `packing` placed
/// them, with `lists` (the shared lists the ids came from) or, with none, lists of their own
/// in the packing's numbering; checked as a whole before it is returned.
///
/// # Errors
/// [`LayoutError`] if the check fails (a bug: the packer only places what fits).
pub fn indexed_table(
    entries: &[Entry],
    packing: &IndexedPacking,
    lists: Option<&Lists>,
) -> Result<(IndexedTable, IndexedFill), LayoutError> {
    let own;
    let lists = match lists {
        Some(l) => l,
        None => {
            own = Lists::own(
                &entries
                    .iter()
                    .zip(&packing.ids)
                    .map(|(e, ids)| (e.target, ids.clone()))
                    .collect::<Vec<_>>(),
            );
            &own
        }
    };
    let placed = entries
        .iter()
        .cloned()
        .zip(packing.offsets.iter().copied())
        .collect();
    let mut table = IndexedTable::new(placed, lists);
    // The ids the packer gave, which with shared lists are the lists' own.
    for (p, ids) in table.entries.iter_mut().zip(&packing.ids) {
        p.ids.clone_from(ids);
    }
    table.declared = Some(packing.size);
    let fill = table.check()?;
    Ok((table, fill))
}

/// The ids the shared lists give each of `targets`, in the order of [`attack_sets`].
#[must_use]
pub fn shared_ids(targets: &[Target]) -> Vec<Vec<u8>> {
    let l = lists::shared();
    targets
        .iter()
        .map(|t| {
            l.squares
                .iter()
                .find(|s| s.target == *t)
                .expect("the shared lists cover every square")
                .ids
                .clone()
        })
        .collect()
}

/// Lays out `entries` (one per square, verified) as an indexed table with the shared lists:
/// first-fit decreasing on the id array, then the annealing within `opts`, from `start`
/// offsets when given (they must fit together). Checked as a whole.
///
/// # Errors
/// [`LayoutError`] if the check fails (a bug).
pub fn index_entries(
    entries: &[Entry],
    start: Option<&[u32]>,
    opts: &PackOptions,
    stop: &AtomicBool,
) -> Result<(IndexedTable, IndexedFill, IndexedPacking), LayoutError> {
    let groups: Vec<Vec<Pattern>> = entries.iter().map(|e| vec![Pattern::of(e)]).collect();
    let targets: Vec<Target> = entries.iter().map(|e| e.target).collect();
    let ids = shared_ids(&targets);
    let start = start.map(|o| (vec![0; o.len()], o.to_vec(), ids.clone()));
    let packing = pack_indexed(
        &groups,
        &targets,
        Some(&ids),
        super::ids::DEFAULT_HITS,
        start.as_ref(),
        opts,
        stop,
        &mut |_| {},
    );
    let (table, fill) = indexed_table(entries, &packing, Some(lists::shared()))?;
    Ok((table, fill, packing))
}
