//! One attack array shared by many squares: the slot pattern of a magic, placing patterns at
//! offsets (equal attack sets may share a slot, different ones never), and the full check of
//! a packed table against the slow reference.

use std::fmt;

use crate::attacks::Occupancies;
use crate::bitboard::Bitboard;
use crate::magic::{format_magic, index_with};
use crate::piece::Target;
use crate::question::Formula;
use crate::table::Entry;

/// The slots a magic writes: every index its subsets reach, with the attack set stored there
/// (one per index: the magic is valid), in increasing index order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// `(index, attack set)`, increasing index; attack sets are never empty.
    pub slots: Vec<(u32, u64)>,
}

impl Pattern {
    /// The pattern of a verified `entry` (builds the target's pairs from the reference).
    ///
    /// # Panics
    /// If the entry's magic is not valid (entries are verified when they are made).
    #[must_use]
    pub fn of(entry: &Entry) -> Pattern {
        Pattern::from_pairs(
            &Occupancies::new(entry.target),
            entry.formula,
            entry.bits,
            entry.magic,
        )
        .expect("a verified entry has a pattern")
    }

    /// The pattern of `magic` on pairs already built; `None` if two different attack sets
    /// share an index (the magic is not valid).
    #[must_use]
    pub fn from_pairs(
        occ: &Occupancies,
        formula: Formula,
        bits: u32,
        magic: u64,
    ) -> Option<Pattern> {
        let mut table = vec![0u64; 1 << bits];
        for &(sub, att) in &occ.pairs {
            let i = index_with(formula, sub.0, occ.mask.0, magic, bits);
            match table[i] {
                0 => table[i] = att.0,
                held if held == att.0 => {}
                _ => return None,
            }
        }
        let slots = table
            .iter()
            .enumerate()
            .filter(|(_, &a)| a != 0)
            .map(|(i, &a)| (i as u32, a))
            .collect();
        Some(Pattern { slots })
    }

    /// Lowest index written.
    #[must_use]
    pub fn min(&self) -> u32 {
        self.slots.first().map_or(0, |s| s.0)
    }

    /// Highest index written.
    #[must_use]
    pub fn max(&self) -> u32 {
        self.slots.last().map_or(0, |s| s.0)
    }

    /// Slots from the lowest index to the highest.
    #[must_use]
    pub fn span(&self) -> u32 {
        self.max() - self.min() + 1
    }

    /// Slots written.
    #[must_use]
    pub fn used(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Free slots inside the span in runs of at most `gap` (holes too short for another
    /// square to fill).
    #[must_use]
    pub fn short_holes(&self, gap: u32) -> u32 {
        self.slots
            .windows(2)
            .map(|w| w[1].0 - w[0].0 - 1)
            .filter(|&h| h <= gap)
            .sum()
    }

    /// What the pattern costs in a packed array when holes of at most `gap` slots stay
    /// empty and longer ones are filled by other squares: its slots plus its short holes.
    /// `gap` 0 gives the slots used; a gap of the whole span gives the span.
    #[must_use]
    pub fn footprint(&self, gap: u32) -> u32 {
        self.used() + self.short_holes(gap)
    }

    /// The indices written, moved so that the lowest is 0: what two magics with the same
    /// slot pattern share (their attack sets follow from the square).
    pub fn shape(&self) -> impl Iterator<Item = u32> + '_ {
        let lo = self.min();
        self.slots.iter().map(move |s| s.0 - lo)
    }
}

/// A shared attack array being packed: the attack set of every slot (0 = free) and how many
/// placed patterns hold it, so that a pattern can be taken out again.
#[derive(Clone, Debug, Default)]
pub struct Shared {
    val: Vec<u64>,
    refs: Vec<u16>,
    used: u64,
}

impl Shared {
    /// An empty array.
    #[must_use]
    pub fn new() -> Shared {
        Shared::default()
    }

    /// Whether `p` placed at `offset` only meets free slots or slots holding its own attack
    /// sets.
    #[inline]
    #[must_use]
    pub fn fits(&self, p: &Pattern, offset: u32) -> bool {
        p.slots.iter().all(|&(i, a)| {
            let held = self.val.get((offset + i) as usize).copied().unwrap_or(0);
            held == 0 || held == a
        })
    }

    /// Places `p` at `offset`.
    ///
    /// # Panics
    /// If it does not fit (see [`Shared::fits`]).
    pub fn place(&mut self, p: &Pattern, offset: u32) {
        let need = (offset + p.max() + 1) as usize;
        if self.val.len() < need {
            self.val.resize(need, 0);
            self.refs.resize(need, 0);
        }
        for &(i, a) in &p.slots {
            let s = (offset + i) as usize;
            assert!(self.val[s] == 0 || self.val[s] == a, "slot {s} is taken");
            if self.refs[s] == 0 {
                self.used += 1;
            }
            self.val[s] = a;
            self.refs[s] += 1;
        }
    }

    /// Takes out `p`, placed earlier at `offset`.
    ///
    /// # Panics
    /// If `p` is not there.
    pub fn remove(&mut self, p: &Pattern, offset: u32) {
        for &(i, a) in &p.slots {
            let s = (offset + i) as usize;
            assert!(self.refs[s] > 0 && self.val[s] == a, "slot {s} not placed");
            self.refs[s] -= 1;
            if self.refs[s] == 0 {
                self.val[s] = 0;
                self.used -= 1;
            }
        }
        while self.val.last() == Some(&0) {
            self.val.pop();
            self.refs.pop();
        }
    }

    /// The lowest offset from `start` at which `p` fits with its highest slot below `limit`
    /// (`None`: no such offset).
    #[must_use]
    pub fn first_fit(&self, p: &Pattern, start: u32, limit: u64) -> Option<u32> {
        let max = u64::from(p.max());
        let (i0, a0) = *p.slots.first()?;
        let mut o = start;
        while u64::from(o) + max < limit {
            // The first slot decides most offsets in a dense array: test it alone first.
            let held = self.val.get((o + i0) as usize).copied().unwrap_or(0);
            if (held == 0 || held == a0) && self.fits(p, o) {
                return Some(o);
            }
            o += 1;
        }
        None
    }

    /// Entries the array needs: its highest used slot plus one.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.val.len() as u64
    }

    /// Distinct slots used.
    #[must_use]
    pub fn used(&self) -> u64 {
        self.used
    }

    /// The attack set of slot `s` (0: free).
    #[must_use]
    pub fn get(&self, s: usize) -> u64 {
        self.val.get(s).copied().unwrap_or(0)
    }
}

/// What filling a packed table gives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Fill {
    /// Squares filled.
    pub squares: usize,
    /// Entries the array needs: highest slot written plus one.
    pub size: u64,
    /// Distinct slots written.
    pub used: u64,
    /// Slots written by more than one square (with equal attack sets).
    pub shared: u64,
}

/// One side of an [`Overlap`]: the square, the blocker subset and its attack set.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Writer {
    /// Piece and square.
    pub target: Target,
    /// Its magic.
    pub magic: u64,
    /// The blocker subset.
    pub blockers: Bitboard,
    /// Its attack set (from the reference).
    pub attacks: Bitboard,
}

/// Two subsets with different attack sets sent to one slot of the shared array.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Overlap {
    /// The slot.
    pub slot: u64,
    /// Who wrote it first (in entry order, then carry-rippler order).
    pub first: Writer,
    /// Who wrote a different attack set there.
    pub second: Writer,
}

impl fmt::Display for Overlap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = |w: &Writer| {
            format!(
                "{} (magic {}, blockers {:#x})",
                w.target,
                format_magic(w.magic),
                w.blockers.0
            )
        };
        write!(
            f,
            "slot {} of the shared array gets two different attack sets: from {} and from {}",
            self.slot,
            w(&self.first),
            w(&self.second)
        )
    }
}

/// Fills one shared array with every blocker subset of every entry at `offset + index`
/// (attack sets from the slow reference) and checks that no slot gets two different attack
/// sets: the whole check of a packed table.
///
/// # Errors
/// The first [`Overlap`], in entry order.
pub fn fill(entries: &[(&Entry, u32)]) -> Result<Fill, Box<Overlap>> {
    // Per slot: the attack set, the entry that wrote it first (+1; 0 = free), its blockers,
    // and whether a second square wrote it too.
    let mut val: Vec<(u64, u16, u64, bool)> = Vec::new();
    let mut size = 0u64;
    for (k, &(e, offset)) in entries.iter().enumerate() {
        let occ = Occupancies::new(e.target);
        for &(sub, att) in &occ.pairs {
            let i = index_with(e.formula, sub.0, occ.mask.0, e.magic, e.bits);
            let s = offset as usize + i;
            if val.len() <= s {
                val.resize(s + 1, (0, 0, 0, false));
            }
            let slot = &mut val[s];
            if slot.1 == 0 {
                *slot = (att.0, k as u16 + 1, sub.0, false);
            } else if slot.0 != att.0 {
                let (first, _) = entries[slot.1 as usize - 1];
                return Err(Box::new(Overlap {
                    slot: s as u64,
                    first: Writer {
                        target: first.target,
                        magic: first.magic,
                        blockers: Bitboard(slot.2),
                        attacks: Bitboard(slot.0),
                    },
                    second: Writer {
                        target: e.target,
                        magic: e.magic,
                        blockers: sub,
                        attacks: att,
                    },
                }));
            } else if usize::from(slot.1) != k + 1 {
                slot.3 = true;
            }
            size = size.max(s as u64 + 1);
        }
    }
    Ok(Fill {
        squares: entries.len(),
        size,
        used: val.iter().filter(|v| v.1 != 0).count() as u64,
        shared: val.iter().filter(|v| v.3).count() as u64,
    })
}
