//! What one store holds that another lacks: [`Store::leads_over`]. A user's store started
//! from an older shipped table does not gain the records a newer one ships; this is how a
//! command sees that, and says it.

use std::fmt;

use super::Store;
use crate::piece::Target;
use crate::question::Formula;

/// One target on which a store is ahead of another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lead {
    /// A magic with fewer bits than the other store's (or where it has none).
    Magic {
        /// The target.
        target: Target,
        /// Its formula.
        formula: Formula,
        /// This store's bits there.
        bits: u32,
        /// The other store's bits there, if it has a magic.
        theirs: Option<u32>,
    },
    /// A record that no magic exists at a higher bit count than the other store's.
    None {
        /// The target.
        target: Target,
        /// Its formula.
        formula: Formula,
        /// The bit count this store rules out there.
        bits: u32,
        /// The bit count the other store rules out there, if any.
        theirs: Option<u32>,
    },
}

impl fmt::Display for Lead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (target, formula) = match *self {
            Lead::Magic {
                target, formula, ..
            }
            | Lead::None {
                target, formula, ..
            } => (target, formula),
        };
        let black = if formula == Formula::Black {
            " (black)"
        } else {
            ""
        };
        match *self {
            Lead::Magic { bits, theirs, .. } => {
                // "an 8-bit", "an 11-bit", "an 18-bit"; "a" before every other count.
                let an = if matches!(bits, 8 | 11 | 18) {
                    "an"
                } else {
                    "a"
                };
                write!(f, "{target}{black}: {an} {bits}-bit magic")?;
                match theirs {
                    Some(b) => write!(f, ", against {b}"),
                    None => write!(f, ", against none"),
                }
            }
            Lead::None { bits, .. } => write!(f, "{target}{black}: none exists at {bits} bits"),
        }
    }
}

impl Store {
    /// The targets on which this store is ahead of `other`, in target order: a magic with
    /// fewer bits, or a record that none exists at a higher bit count (the records each store
    /// states, checked or not: this says what a merge would bring in, and
    /// [`crate::trust::admit`] decides what it lets in).
    #[must_use]
    pub fn leads_over(&self, other: &Store) -> Vec<Lead> {
        let mut leads = Vec::new();
        for formula in Formula::ALL {
            for target in Target::all() {
                let (bits, theirs) = (
                    self.best_with(target, formula).map(|e| e.bits),
                    other.best_with(target, formula).map(|e| e.bits),
                );
                if let Some(bits) = bits.filter(|&b| theirs.is_none_or(|t| b < t)) {
                    leads.push(Lead::Magic {
                        target,
                        formula,
                        bits,
                        theirs,
                    });
                }
                let (none, theirs) = (
                    self.claimed_none_with(target, formula),
                    other.claimed_none_with(target, formula),
                );
                if let Some(bits) = none.filter(|&b| theirs.is_none_or(|t| b > t)) {
                    leads.push(Lead::None {
                        target,
                        formula,
                        bits,
                        theirs,
                    });
                }
            }
        }
        leads.sort_by_key(|l| match *l {
            Lead::Magic {
                target, formula, ..
            }
            | Lead::None {
                target, formula, ..
            } => (formula, target),
        });
        leads
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::Piece;
    use crate::square::Square;
    use crate::table::Entry;

    #[test]
    fn a_store_leads_where_it_has_fewer_bits_or_rules_out_more() {
        let shipped = crate::shipped::store();
        assert!(shipped.leads_over(shipped).is_empty());
        // An empty store is behind on every shipped magic and on every proof of its own.
        let empty = Store::new();
        let leads = shipped.leads_over(&empty);
        let magics = leads
            .iter()
            .filter(|l| matches!(l, Lead::Magic { .. }))
            .count();
        assert_eq!(magics, shipped.entries().count());
        assert!(empty.leads_over(shipped).is_empty());
        // One square made worse in a copy (rook a8's 12-bit magic from the published plain
        // table, where the shipped store has 11 bits): only it is named.
        let a8 = Target::new(Piece::Rook, "a8".parse::<Square>().unwrap());
        assert_eq!(shipped.best(a8).map(|e| e.bits), Some(11));
        let mut mine = Store::new();
        for e in shipped
            .entries()
            .filter(|e| e.target != a8 || e.formula != Formula::Plain)
        {
            mine.offer(e.clone());
        }
        let a8_12 = crate::magic::verify(a8, 12, 0x4080_0080_4010_2101).unwrap();
        mine.offer(Entry::from_verified(&a8_12, None, None));
        let behind: Vec<Lead> = shipped
            .leads_over(&mine)
            .into_iter()
            .filter(|l| matches!(l, Lead::Magic { .. }))
            .collect();
        assert_eq!(behind.len(), 1);
        assert!(behind[0]
            .to_string()
            .starts_with("rook a8: an 11-bit magic, against 12"));
    }
}
