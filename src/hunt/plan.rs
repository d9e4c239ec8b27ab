//! What to hunt: the goals of a run (each target, the bits it starts at and the fewest worth
//! trying) for a [`Select`]ion and an [`Objective`], with a note for each target left out and
//! why. [`super::schedule`] turns the goals into rounds of tasks.

use crate::attacks::Occupancies;
use crate::piece::{Piece, Target};
use crate::question::{Formula, Question};
use crate::store::Store;

/// Candidates per task: short enough that a round of many targets stays near a second.
pub const SLICE: u64 = 1 << 18;

/// The open targets: nobody has published a magic at one bit below the popcount, and nobody
/// has proven none exists (rook a1, b1, c1, e1, f1, h1, a2, b2, f2, g2, h2; bishop c1, d1).
pub const OPEN: [(Piece, &str); 13] = [
    (Piece::Rook, "a1"),
    (Piece::Rook, "b1"),
    (Piece::Rook, "c1"),
    (Piece::Rook, "e1"),
    (Piece::Rook, "f1"),
    (Piece::Rook, "h1"),
    (Piece::Rook, "a2"),
    (Piece::Rook, "b2"),
    (Piece::Rook, "f2"),
    (Piece::Rook, "g2"),
    (Piece::Rook, "h2"),
    (Piece::Bishop, "c1"),
    (Piece::Bishop, "d1"),
];

/// How the bits of each target are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Select {
    /// Start one bit below the store's best (the popcount when none), step down on each find.
    Ratchet,
    /// Exactly these bits.
    Fixed(u32),
    /// The open targets at one bit below the popcount.
    Open,
    /// The targets where the store is behind the published records, at the record's bits
    /// (only the bit counts are taken from the published tables, never their magics).
    Records,
}

/// What a hunt improves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Objective {
    /// Fewer index bits (the `2^bits` table).
    #[default]
    Bits,
    /// At the store's bits, a smaller tight table: a magic whose slots span fewer entries
    /// (highest index minus lowest, plus one) than the stored one's.
    Tight,
}

/// One target to hunt: where it starts, and the fewest bits worth trying.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Goal {
    /// Piece and square.
    pub target: Target,
    /// Bits to hunt first.
    pub bits: u32,
    /// Fewest bits worth trying: above any proof of none that may steer work, and at or above
    /// the lower bound.
    pub floor: u32,
    /// Stop after the first find instead of stepping down.
    pub fixed: bool,
    /// First stream at `bits`: past the slices the store already records there, so a run
    /// resumed with the same seed draws new candidates instead of replaying old ones.
    pub first_stream: u64,
    /// For [`Objective::Tight`]: the most entries the tight table may take (one less than the
    /// stored magic's).
    pub limit: Option<u32>,
}

/// The goals of a run, and what was left out and why (one line each).
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Targets to hunt.
    pub goals: Vec<Goal>,
    /// Notes for the user: skipped targets, grouped.
    pub notes: Vec<String>,
}

/// Why the selection cannot be hunted.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PlanError(pub String);

/// Chooses the goals among `targets` for `select`, given the store and the proofs of none
/// that may steer work ([`Store::proven_none`]: the store's own once checked by
/// [`crate::trust::vet`] or shipped with this build, and the published ones); a proof the
/// store only claims is said in a note and decides nothing.
///
/// # Errors
/// A single target with explicit bits that are proven impossible or below the lower bound.
pub fn plan(store: &Store, targets: &[Target], select: Select) -> Result<Plan, PlanError> {
    plan_for(store, targets, select, Formula::Plain, Objective::Bits)
}

/// [`plan`] for magics of `formula` (bits above that formula's proofs of none; the published
/// proofs are of plain magics) and for `objective` ([`Objective::Tight`] ignores `select`:
/// every target with a stored magic of the formula is hunted at its bits).
///
/// # Errors
/// A single target with explicit bits that are proven impossible or below the lower bound.
pub fn plan_for(
    store: &Store,
    targets: &[Target],
    select: Select,
    formula: Formula,
    objective: Objective,
) -> Result<Plan, PlanError> {
    if objective == Objective::Tight {
        return Ok(plan_tight(store, targets, formula));
    }
    let mut plan = Plan::default();
    let (mut proven, mut solved, mut bottom) = (Vec::new(), Vec::new(), Vec::new());
    let mut claimed = Vec::new();
    let open: Vec<Target> = OPEN
        .iter()
        .map(|(p, s)| Target::new(*p, s.parse().expect("valid square")))
        .collect();
    for &target in targets {
        if select == Select::Open && !open.contains(&target) {
            continue;
        }
        let record = crate::published::best(target).map(|e| e.bits);
        if select == Select::Records && record.is_none() {
            continue;
        }
        let occ = Occupancies::new(target);
        let popcount = occ.mask.count();
        let floor = occ
            .lower_bound_bits()
            .max(store.proven_none_with(target, formula).map_or(1, |b| b + 1));
        let stored = store.best_with(target, formula).map(|e| e.bits);
        let (bits, fixed) = match select {
            Select::Ratchet => (stored.map_or(popcount, |b| (b - 1).min(popcount)), false),
            Select::Fixed(b) => (b, true),
            Select::Open => (popcount - 1, true),
            Select::Records => (record.unwrap_or(popcount), true),
        };
        if bits < floor {
            if let (Select::Fixed(_), 1) = (select, targets.len()) {
                return Err(PlanError(match store.proven_none_with(target, formula) {
                    Some(p) if bits <= p => format!(
                        "{target} at {bits} bits is proven impossible (no magic at {p} bits or fewer); nothing to hunt"
                    ),
                    _ => format!(
                        "{target} at {bits} bits is below the lower bound of {} bits (more distinct attack sets than slots)",
                        occ.lower_bound_bits()
                    ),
                }));
            }
            if fixed {
                proven.push(target);
            } else {
                bottom.push(target);
            }
            continue;
        }
        if fixed && stored.is_some_and(|s| s <= bits) {
            solved.push(target);
            continue;
        }
        // A proof the store only claims would have stopped this hunt: it does not, but say so.
        let claimed_floor = occ.lower_bound_bits().max(
            store
                .claimed_none_with(target, formula)
                .map_or(1, |b| b + 1),
        );
        if bits < claimed_floor {
            claimed.push(target);
        }
        plan.goals.push(Goal {
            target,
            bits,
            floor,
            fixed,
            first_stream: first_stream(store, target, bits, formula),
            limit: None,
        });
    }
    if !claimed.is_empty() {
        plan.notes.push(format!(
            "hunted although the store records a proof that none exists at those bits: only claimed, not checked here, so it decides nothing (`magichunt audit` checks it): {}",
            list(&claimed)
        ));
    }
    if !proven.is_empty() {
        plan.notes.push(format!(
            "not hunted, proven impossible at those bits (published or stored proofs, or the lower bound): {}",
            list(&proven)
        ));
    }
    if !bottom.is_empty() {
        plan.notes.push(format!(
            "not hunted, the store's magic is already at the fewest bits possible: {}",
            list(&bottom)
        ));
    }
    if !solved.is_empty() {
        plan.notes.push(format!(
            "not hunted, the store already has a magic at those bits or fewer: {}",
            list(&solved)
        ));
    }
    Ok(plan)
}

/// One line each: long lists (a level store under `--preset records`) name the first few.
fn list(v: &[Target]) -> String {
    const SHOWN: usize = 8;
    let names: Vec<String> = v.iter().take(SHOWN).map(Target::to_string).collect();
    match v.len() {
        n if n > SHOWN => format!("{} and {} more", names.join(", "), n - SHOWN),
        _ => names.join(", "),
    }
}

/// The first stream of a target at `bits`: past the slices the store records there.
fn first_stream(store: &Store, target: Target, bits: u32, formula: Formula) -> u64 {
    store
        .work_on(Question {
            target,
            bits,
            formula,
        })
        .0
        .div_ceil(SLICE)
}

/// The goals of [`Objective::Tight`]: every target with a stored magic of `formula`, at its
/// bits, limited to one entry less than its tight table; a target already at the fewest
/// entries possible (one per distinct attack set) is left out.
fn plan_tight(store: &Store, targets: &[Target], formula: Formula) -> Plan {
    let mut plan = Plan::default();
    let (mut missing, mut bottom) = (Vec::new(), Vec::new());
    for &target in targets {
        let Some(e) = store.best_with(target, formula) else {
            missing.push(target);
            continue;
        };
        let distinct = Occupancies::new(target).distinct_attacks() as u32;
        if e.span() <= distinct {
            bottom.push(target);
            continue;
        }
        plan.goals.push(Goal {
            target,
            bits: e.bits,
            floor: e.bits,
            fixed: false,
            first_stream: first_stream(store, target, e.bits, formula),
            limit: Some(e.span() - 1),
        });
    }
    if !missing.is_empty() {
        plan.notes.push(format!(
            "not hunted, no {formula} magic in the store to make tighter (hunt its bits first): {}",
            list(&missing)
        ));
    }
    if !bottom.is_empty() {
        plan.notes.push(format!(
            "not hunted, the stored magic's table already has one entry per attack set: {}",
            list(&bottom)
        ));
    }
    plan
}
