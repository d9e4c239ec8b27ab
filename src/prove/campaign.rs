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
    /// periods 2^55 to 2^63; `exhaust --order fold` takes seconds (c2, d2, e2) to about 4
    /// CPU-hours (g1).
    RookRecords,
    /// Rooks whose best magic is at the popcount (a1, b1, c1, e1, f1, h1, a2, b2, f2, g2,
    /// h2): the open questions of the field; `exhaust --order fold` takes minutes (a2, b2,
    /// f2) to a quarter of a CPU-year (h1).
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
            Stage::RookRecords => "rook rank 1/2 record (exhaust, seconds to hours)",
            Stage::RookOpen => "open rook (exhaust, minutes to a CPU-year)",
        }
    }
}

/// What the open rook questions cost `exhaust --order fold`, the default on them, in
/// CPU-hours, as measured on one quiet thread (`magichunt bench --estimate rook:SQ:BITS
/// --order fold --task-bits 24 --budget 30s --seed 1`: b1 and c1 on 2026-11-26,
/// docs/log/2026-11-26-fold.md; the others with the join test on 2026-12-01, docs/speed.md,
/// "What the engines cost now"). Only an order: the campaign takes a stage's questions cheapest first, and those
/// not listed after them by square.
const FOLD_HOURS: [(&str, u32, f64); 6] = [
    ("b1", 10, 10.8),
    ("c1", 10, 11.4),
    ("h2", 10, 16.5),
    ("e1", 10, 18.0),
    ("f1", 10, 51.6),
    ("h1", 11, 2357.0),
];

/// What `q` is projected to cost `exhaust --order fold` in CPU-hours, when the cost table
/// lists it.
#[must_use]
pub fn fold_hours(q: Question) -> Option<f64> {
    FOLD_HOURS.get(cost_rank(q)).map(|&(_, _, hours)| hours)
}

/// The place of `q` in [`FOLD_HOURS`], or past its end.
fn cost_rank(q: Question) -> usize {
    FOLD_HOURS
        .iter()
        .position(|&(sq, bits, _)| {
            q.target.piece == Piece::Rook && q.target.square.to_string() == sq && q.bits == bits
        })
        .unwrap_or(FOLD_HOURS.len())
}

/// The campaign's questions for `store`, easiest stage first and, within a stage, the rooks
/// measured cheapest first (by `exhaust --order fold`, docs/speed.md): one bit below the best bits
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
    list.sort_by_key(|&(stage, q)| (stage, cost_rank(q), q.target));
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
        // Easiest first: by stage, and the open rooks by their measured cost.
        assert!(list.windows(2).all(|w| w[0].0 <= w[1].0));
        let open: Vec<String> = list
            .iter()
            .filter(|(st, _)| *st == Stage::RookOpen)
            .map(|(_, q)| q.target.square.to_string())
            .collect();
        assert_eq!(
            open,
            ["b1", "c1", "h2", "e1", "f1", "h1", "a1", "a2", "b2", "f2", "g2"],
            "cheapest first, the unmeasured after by square"
        );
    }

    #[test]
    fn every_measured_cost_names_a_rook_question_one_bit_below_its_popcount_or_record() {
        for (k, &(sq, bits, hours)) in FOLD_HOURS.iter().enumerate() {
            let square: Square = sq.parse().unwrap();
            let popcount = relevant_mask(Piece::Rook, square).count();
            assert!(bits < popcount && bits + 2 >= popcount, "{sq} at {bits}");
            assert!(hours > 0.0);
            assert!(k == 0 || FOLD_HOURS[k - 1].2 <= hours, "sorted by cost");
        }
    }

    #[test]
    fn a_measured_cost_is_known_for_a_listed_question_only() {
        let rook = |s: &str, bits| Question {
            target: Target::new(Piece::Rook, s.parse::<Square>().unwrap()),
            bits,
            formula: Formula::Plain,
        };
        assert_eq!(fold_hours(rook("h1", 11)), Some(2357.0));
        assert_eq!(fold_hours(rook("h1", 10)), None);
    }
}
