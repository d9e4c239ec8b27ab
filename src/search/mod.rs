//! The search: per-target scratchpads, candidate families, and batches of trials.
//!
//! The trial loop is specialised per family (the family is matched once per batch, not per
//! candidate) and draws within the target's period (see [`candidates`]). A cheap pre-filter,
//! the popcount of the top byte of `mask * magic`, rejects candidates before the subset check
//! where it pays (decided per target by [`prefilter`]).

pub mod candidates;
pub mod descend;
mod fill;
mod portfolio;
pub mod scratch;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, Ordering};

use rand_xoshiro::Xoshiro256PlusPlus;

pub use candidates::{task_rng, Family, Landing};
pub use fill::{fill_magic, fill_question, fill_seed, FILL_SEED};
pub use portfolio::{neighbour_bases, pool_portfolio, portfolio, prefilter, round_family};
pub use scratch::Scratchpad;

use crate::magic::Verified;
use crate::piece::Target;
use crate::question::{Formula, Question};

/// How many candidates a batch draws between looks at the stop flag.
const POLL: u64 = 1 << 14;

/// What a batch of trials did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// Candidates examined (drawn), pre-filtered ones included.
    pub tried: u64,
    /// Candidates that reached the subset check.
    pub tested: u64,
    /// Subset checks done (slots looked at) over all tested candidates.
    pub checks: u64,
    /// The magic found, verified again by [`magic::verify`](crate::magic::verify).
    pub found: Option<Verified>,
}

/// Draws up to `n` candidates of `family` and checks them on `pad`; stops at the first magic
/// (returned only after the shared [`magic::verify`](crate::magic::verify) accepted it) or
/// when `stop` is set. The pre-filter is the one [`prefilter`] picks for the pad's target.
///
/// # Panics
/// If the fast check and verify ever disagree (a bug, never a user error).
pub fn search(
    pad: &mut Scratchpad,
    family: &Family,
    rng: &mut Xoshiro256PlusPlus,
    n: u64,
    stop: &AtomicBool,
) -> Batch {
    search_within(pad, family, rng, n, stop, Bound::Valid)
}

/// What a found magic must also satisfy besides being valid: the objectives of the hunt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Bound {
    /// Any valid magic (fewer bits is the caller's business).
    #[default]
    Valid,
    /// Its tight table has at most this many entries (highest index minus lowest, plus one):
    /// the size objective.
    Span(u32),
    /// It writes at most this many distinct slots: the few-slot objective of the pools.
    Slots(u32),
}

/// [`search`] for a magic within `bound`. The pre-filter applies to plain magics only (it
/// tests `mask * magic`, which is not a black key).
///
/// # Panics
/// If the fast check and verify ever disagree (a bug, never a user error).
pub fn search_within(
    pad: &mut Scratchpad,
    family: &Family,
    rng: &mut Xoshiro256PlusPlus,
    n: u64,
    stop: &AtomicBool,
    bound: Bound,
) -> Batch {
    let filter = match pad.formula() {
        Formula::Plain => prefilter(pad.target(), pad.bits(), family),
        Formula::Black => 0,
    };
    trials(pad, family, rng, n, stop, filter, bound)
}

/// [`search`] with an explicit pre-filter: candidates whose `mask * magic` has fewer than
/// `filter` bits set in its top byte are counted as tried but not tested (0 turns it off).
///
/// # Panics
/// If the fast check and verify ever disagree (a bug, never a user error).
pub fn search_filtered(
    pad: &mut Scratchpad,
    family: &Family,
    rng: &mut Xoshiro256PlusPlus,
    n: u64,
    stop: &AtomicBool,
    filter: u32,
) -> Batch {
    trials(pad, family, rng, n, stop, filter, Bound::Valid)
}

/// Up to `n` trials of `family` on `pad` with the pre-filter and bound given.
fn trials(
    pad: &mut Scratchpad,
    family: &Family,
    rng: &mut Xoshiro256PlusPlus,
    n: u64,
    stop: &AtomicBool,
    filter: u32,
    bound: Bound,
) -> Batch {
    let period = pad.period_bits();
    family.with_draw(
        period,
        Trial {
            pad,
            rng,
            n,
            stop,
            filter,
            bound,
        },
    )
}

/// A batch of trials waiting for its drawer (see [`Family::with_draw`]).
struct Trial<'a> {
    pad: &'a mut Scratchpad,
    rng: &'a mut Xoshiro256PlusPlus,
    n: u64,
    stop: &'a AtomicBool,
    filter: u32,
    bound: Bound,
}

/// [`run`]'s objective: any valid magic.
const VALID: u8 = 0;
/// [`run`]'s objective: a span of at most `limit`.
const SPAN: u8 = 1;
/// [`run`]'s objective: at most `limit` distinct slots.
const SLOTS: u8 = 2;

impl candidates::UseDraw for Trial<'_> {
    type Out = Batch;
    #[inline(always)]
    fn with<F: FnMut(&mut Xoshiro256PlusPlus) -> u64>(self, draw: F) -> Batch {
        let Trial {
            pad,
            rng,
            n,
            stop,
            filter,
            bound,
        } = self;
        match bound {
            Bound::Valid => run::<VALID, F>(pad, rng, n, stop, filter, 0, draw),
            Bound::Span(limit) => run::<SPAN, F>(pad, rng, n, stop, filter, limit, draw),
            Bound::Slots(limit) => run::<SLOTS, F>(pad, rng, n, stop, filter, limit, draw),
        }
    }
}

/// The trial loop, monomorphised per family and per objective (`OBJECTIVE`: [`VALID`],
/// [`SPAN`] or [`SLOTS`], bounded by `limit`).
#[inline(always)]
fn run<const OBJECTIVE: u8, F: FnMut(&mut Xoshiro256PlusPlus) -> u64>(
    pad: &mut Scratchpad,
    rng: &mut Xoshiro256PlusPlus,
    n: u64,
    stop: &AtomicBool,
    filter: u32,
    limit: u32,
    mut draw: F,
) -> Batch {
    let mut batch = Batch::default();
    let mask = pad.mask();
    while batch.tried < n && !stop.load(Ordering::Relaxed) {
        let chunk = POLL.min(n - batch.tried);
        let (mut tested, mut checks) = (0u64, 0u64);
        for k in 0..chunk {
            let m = draw(rng);
            if filter > 0 && (mask.wrapping_mul(m) >> 56).count_ones() < filter {
                continue;
            }
            tested += 1;
            let failure = match OBJECTIVE {
                SPAN => pad.first_failure_within(m, limit),
                SLOTS => pad.first_failure_slots(m, limit),
                _ => pad.first_failure(m),
            };
            match failure {
                Some(c) => checks += c as u64,
                None => {
                    let v = pad.verify(m).expect("the fast check and verify agree");
                    assert!(
                        match OBJECTIVE {
                            SPAN => v.span() <= limit,
                            SLOTS => v.used_slots <= limit,
                            _ => true,
                        },
                        "the bound and verify agree"
                    );
                    batch.tried += k + 1;
                    batch.tested += tested;
                    batch.checks += checks + pad.pairs().pairs.len() as u64 - 1;
                    batch.found = Some(v);
                    return batch;
                }
            }
        }
        batch.tried += chunk;
        batch.tested += tested;
        batch.checks += checks;
    }
    batch
}

/// Finds a magic for `target` at `bits` (at the popcount this takes well under a
/// millisecond), deterministically from `seed`: at the popcount the first family of [`portfolio()`], below
/// it the families in turn ([`round_family`]), in growing batches. `None` if nothing turned up within about 900 M candidates.
#[must_use]
pub fn find_magic(target: Target, bits: u32, seed: u64) -> Option<Verified> {
    find_magic_for(
        Question {
            target,
            bits,
            formula: Formula::Plain,
        },
        seed,
    )
}

/// [`find_magic`] for any question: the same families and batches under its formula.
#[must_use]
pub fn find_magic_for(question: Question, seed: u64) -> Option<Verified> {
    let Question {
        target,
        bits,
        formula,
    } = question;
    let never = AtomicBool::new(false);
    let mut pad = Scratchpad::with_formula(target, bits, formula);
    let families = portfolio(target, bits, &[]);
    // At the popcount the first family (gather) is the one that pays for plain magics; below
    // it, and for black magics, take turns.
    let popcount = bits >= pad.mask().count_ones() && formula == Formula::Plain;
    for round in 0..64u64 {
        let family = &families[if popcount {
            0
        } else {
            round as usize % families.len()
        }];
        let mut rng = task_rng(seed, target, bits, round);
        let n = 1u64 << (12 + round.min(12));
        if let Some(v) = search(&mut pad, family, &mut rng, n, &never).found {
            return Some(v);
        }
    }
    None
}
