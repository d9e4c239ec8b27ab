//! The proof campaign: for every square whose bits are not yet proven optimal, the question
//! one bit below the best bits known (ours or published). Settling it either proves the best
//! bits optimal (none exists) or finds a magic with fewer bits than anyone has: a record.

use crate::attacks::relevant_mask;
use crate::piece::{Piece, Target};
use crate::published;
use crate::question::{Formula, Question};
use crate::store::{optimal_for_work, Store};

/// How hard a campaign question is expected to be, in the order the campaign takes them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Bishops: SAT answers in seconds.
    Bishop,
    /// Rooks on ranks 7 and 8 below their popcount: exhaustive search, minutes to hours.
    RookBackRanks,
    /// Rooks on ranks 1 and 2 whose record is below the popcount (d1, g1, c2, d2, e2):
    /// periods 2^55 to 2^63; `exhaust --order high` takes seconds (c2, d2, e2) to days (g1).
    RookRecords,
    /// Rooks whose best magic is at the popcount (a1, b1, c1, e1, f1, h1, a2, b2, f2, g2,
    /// h2): the open questions of the field; `exhaust --order high` takes hours (a2, b2, f2)
    /// to years (h1).
    RookOpen,
}

impl Stage {
    /// The stage of `question` for a target whose best magic has `best` bits.
    fn of(question: Question, best: u32) -> Stage {
        let t = question.target;
        let popcount = relevant_mask(t.piece, t.square).count();
        match t.piece {
            Piece::Bishop => Stage::Bishop,
            Piece::Rook if best == popcount => Stage::RookOpen,
            Piece::Rook if t.square.rank() >= 6 => Stage::RookBackRanks,
            Piece::Rook => Stage::RookRecords,
        }
    }

    /// A few words for listings.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Stage::Bishop => "bishop (SAT, seconds)",
            Stage::RookBackRanks => "rook rank 7/8 (exhaust, minutes to hours)",
            Stage::RookRecords => "rook rank 1/2 record (exhaust, hours to days)",
            Stage::RookOpen => "open rook (exhaust, hours to years)",
        }
    }
}

/// The campaign's questions for `store`, easiest stage first: one bit below the best bits
/// known for every square whose best bits are not proven optimal (by the store's proofs that
/// may steer work, see [`Store::proven_none`]: vet the store first with
/// [`crate::trust::vet`]; the published ones; or the lower bound). Squares the store settles
/// drop out; a proof it only claims settles nothing ([`Store::claimed_only`] says why).
#[must_use]
pub fn questions(store: &Store) -> Vec<(Stage, Question)> {
    let mut list: Vec<(Stage, Question)> = Target::all()
        .filter_map(|target| {
            let ours = store.best(target).map(|e| e.bits);
            let theirs = published::best(target).map(|e| e.bits);
            let best = ours.into_iter().chain(theirs).min()?;
            if best <= 1 || optimal_for_work(store, target, best) {
                return None;
            }
            let q = Question {
                target,
                bits: best - 1,
                formula: Formula::Plain,
            };
            Some((Stage::of(q, best), q))
        })
        .collect();
    list.sort_by_key(|&(stage, q)| (stage, q.target));
    list
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Square;

    #[test]
    fn an_empty_store_has_the_49_squares_the_published_proofs_leave_open() {
        let list = questions(&Store::default());
        let count = |s: Stage| list.iter().filter(|(st, _)| *st == s).count();
        assert_eq!(count(Stage::Bishop), 18, "{list:?}");
        assert_eq!(count(Stage::RookBackRanks), 15);
        assert_eq!(count(Stage::RookRecords), 5);
        assert_eq!(count(Stage::RookOpen), 11);
        let q = |p, s: &str| {
            list.iter()
                .find(|(_, q)| q.target == Target::new(p, s.parse::<Square>().unwrap()))
                .map(|(_, q)| q.bits)
        };
        // The open bishops at one bit below the popcount, a one-bit-short corner one lower.
        assert_eq!(q(Piece::Bishop, "c1"), Some(4));
        assert_eq!(q(Piece::Bishop, "a1"), Some(4));
        assert_eq!(q(Piece::Bishop, "b1"), Some(3));
        assert_eq!(q(Piece::Rook, "a1"), Some(11));
        assert_eq!(q(Piece::Rook, "d1"), Some(9));
        assert_eq!(q(Piece::Rook, "b7"), Some(8));
        // Published proofs settle bishop e1 and rook e4 already.
        assert_eq!(q(Piece::Bishop, "e1"), None);
        assert_eq!(q(Piece::Rook, "e4"), None);
        // Easiest first.
        assert!(list.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
