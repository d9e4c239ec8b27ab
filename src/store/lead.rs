//! What one store holds that another lacks: [`Store::leads_over`]. A user's store started
//! from an older shipped table does not gain the records a newer one ships; this is how a
//! command sees that, and says it.

use std::fmt;

use super::Store;
use crate::piece::Target;
use crate::question::Formula;

/// One target on which a store is ahead of another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lead {
    /// The target.
    pub target: Target,
    /// Its formula.
    pub formula: Formula,
    /// What the store holds there.
    pub kind: LeadKind,
    /// Its bit count: the magic's, or the count it rules out.
    pub bits: u32,
    /// The other store's bit count of the same kind there, if it has one.
    pub theirs: Option<u32>,
}

/// What a [`Lead`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeadKind {
    /// A magic with fewer bits than the other store's (or where it has none).
    Magic,
    /// A record that no magic exists at a higher bit count than the other store's.
    None,
}

impl fmt::Display for Lead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Lead {
            target,
            formula,
            bits,
            ..
        } = *self;
        let black = if formula == Formula::Black {
            " (black)"
        } else {
            ""
        };
        match self.kind {
            LeadKind::Magic => {
                // "an 8-bit", "an 11-bit", "an 18-bit"; "a" before every other count.
                let an = if matches!(bits, 8 | 11 | 18) {
                    "an"
                } else {
                    "a"
                };
                write!(f, "{target}{black}: {an} {bits}-bit magic, against ")?;
                match self.theirs {
                    Some(b) => write!(f, "{b}"),
                    None => write!(f, "none"),
                }
            }
            LeadKind::None => write!(f, "{target}{black}: none exists at {bits} bits"),
        }
    }
}

impl Store {
    /// The targets on which this store is ahead of `other`, plain before black, each in
    /// target order: a magic with fewer bits, or a record that none exists at a higher bit
    /// count (the records each store states, checked or not: this says what a merge would
    /// bring in, and [`crate::trust::admit`] decides what it lets in).
    #[must_use]
    pub fn leads_over(&self, other: &Store) -> Vec<Lead> {
        let mut leads = Vec::new();
        for formula in Formula::ALL {
            for target in Target::all() {
                let magic = |s: &Store| s.best_with(target, formula).map(|e| e.bits);
                let none = |s: &Store| s.claimed_none_with(target, formula);
                let (mine, theirs) = (magic(self), magic(other));
                if let Some(bits) = mine.filter(|&b| theirs.is_none_or(|t| b < t)) {
                    leads.push(Lead {
                        target,
                        formula,
                        kind: LeadKind::Magic,
                        bits,
                        theirs,
                    });
                }
                let (mine, theirs) = (none(self), none(other));
                if let Some(bits) = mine.filter(|&b| theirs.is_none_or(|t| b > t)) {
                    leads.push(Lead {
                        target,
                        formula,
                        kind: LeadKind::None,
                        bits,
                        theirs,
                    });
                }
            }
        }
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
        let magics = leads.iter().filter(|l| l.kind == LeadKind::Magic).count();
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
            .filter(|l| l.kind == LeadKind::Magic)
            .collect();
        assert_eq!(behind.len(), 1);
        assert!(behind[0]
            .to_string()
            .starts_with("rook a8: an 11-bit magic, against 12"));
    }
}
