//! The published magic tables shipped in `results/published/`, embedded in the binary.

use std::path::Path;
use std::sync::OnceLock;

use crate::layout::PackedTable;
use crate::piece::Target;
use crate::question::Formula;
use crate::table::{Entry, Proof, Table};

/// The shipped tables by name (file name without `.json`) and their JSON text: the per-square
/// tables, then the four packed ones (one shared array each, see [`PACKED`]).
pub const TABLES: [(&str, &str); 9] = [
    ("records", include_str!("../results/published/records.json")),
    (
        "caissa-2026-dense",
        include_str!("../results/published/caissa-2026-dense.json"),
    ),
    (
        "cpw-best-magics-so-far",
        include_str!("../results/published/cpw-best-magics-so-far.json"),
    ),
    (
        "niklasf-magics-readme",
        include_str!("../results/published/niklasf-magics-readme.json"),
    ),
    (
        "plain-popcount-tord-romstad-style",
        include_str!("../results/published/plain-popcount-tord-romstad-style.json"),
    ),
    (
        "annuss-fixed-shift-2008",
        include_str!("../results/published/annuss-fixed-shift-2008.json"),
    ),
    (
        "annuss-fixed-shift-2016",
        include_str!("../results/published/annuss-fixed-shift-2016.json"),
    ),
    (
        "annuss-fixed-shift-2017",
        include_str!("../results/published/annuss-fixed-shift-2017.json"),
    ),
    (
        "black-magics-annuss-fiekas-2017",
        include_str!("../results/published/black-magics-annuss-fiekas-2017.json"),
    ),
];

/// The shipped packed tables (one array shared by all 128 squares, fixed shift: 12 bits for
/// rooks, 9 for bishops), oldest first; the last two are the smallest published tables of
/// each formula.
pub const PACKED: [&str; 4] = [
    "annuss-fixed-shift-2008",
    "annuss-fixed-shift-2016",
    "annuss-fixed-shift-2017",
    "black-magics-annuss-fiekas-2017",
];

/// The smallest published packed table of `formula` (`annuss-fixed-shift-2017` for plain
/// magics, 88,772 entries; `black-magics-annuss-fiekas-2017` for black ones, 87,988), with
/// its name.
///
/// # Panics
/// If a shipped packed table is broken (the tests check them all).
#[must_use]
pub fn best_packed(formula: Formula) -> (&'static str, &'static PackedTable) {
    let name = match formula {
        Formula::Plain => "annuss-fixed-shift-2017",
        Formula::Black => "black-magics-annuss-fiekas-2017",
    };
    (name, packed(name).expect("shipped"))
}

/// A shipped packed table by name, read once.
///
/// # Panics
/// If the shipped table is broken (the tests check them all).
#[must_use]
pub fn packed(name: &str) -> Option<&'static PackedTable> {
    static PARSED: [OnceLock<PackedTable>; 4] = [const { OnceLock::new() }; 4];
    let i = PACKED.iter().position(|n| *n == name)?;
    Some(PARSED[i].get_or_init(|| {
        PackedTable::from_table(table(name).expect("listed in TABLES"))
            .unwrap_or_else(|e| panic!("shipped packed table {name} is broken: {e}"))
    }))
}

/// A shipped table by name, parsed and verified once.
///
/// # Panics
/// If a shipped table does not verify (the test suite checks that they all do).
#[must_use]
pub fn table(name: &str) -> Option<&'static Table> {
    static PARSED: [OnceLock<Table>; TABLES.len()] = [const { OnceLock::new() }; TABLES.len()];
    let i = TABLES.iter().position(|(n, _)| *n == name)?;
    Some(PARSED[i].get_or_init(|| {
        let (n, json) = TABLES[i];
        Table::parse(
            json.as_bytes(),
            Path::new(&format!("results/published/{n}.json")),
        )
        .unwrap_or_else(|e| panic!("shipped table {n} is broken: {e}"))
    }))
}

/// `records.json`: the best published bits per square, with finder and source, and the
/// published proofs of none.
#[must_use]
pub fn records() -> &'static Table {
    table("records").expect("records.json is shipped")
}

/// The best published magic for `target` (one entry per square in `records.json`).
#[must_use]
pub fn best(target: Target) -> Option<&'static Entry> {
    records()
        .entries
        .iter()
        .filter(|e| e.target == target)
        .min_by_key(|e| e.rank())
}

/// The strongest published proof of none for `target`: the highest bit count proven impossible.
#[must_use]
pub fn proof(target: Target) -> Option<&'static Proof> {
    records()
        .proofs
        .iter()
        .filter(|p| p.target == target)
        .max_by_key(|p| p.bits)
}

/// Who found a published entry, for display.
#[must_use]
pub fn finder(entry: &Entry) -> &str {
    entry.extra_str("found_by").unwrap_or("unknown")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::magic;

    #[test]
    fn every_entry_of_every_shipped_table_verifies() {
        let mut n = 0;
        for (name, _) in TABLES {
            // Parsing verifies each entry; verify again here, directly.
            for e in &table(name).unwrap().entries {
                let v = magic::verify_question(e.question(), e.magic).unwrap();
                assert_eq!(v.max_index, e.max_index, "{name} {}", e.target);
                assert_eq!(v.min_index, e.min_index, "{name} {}", e.target);
                n += 1;
            }
        }
        assert!(n >= 128 * 3, "only {n} entries");
    }

    #[test]
    fn records_cover_every_square_and_total_89280() {
        let total: u64 = Target::all().map(|t| 1u64 << best(t).unwrap().bits).sum();
        assert_eq!(total, 89_280);
        assert!(proof(Target::new(crate::Piece::Bishop, "d8".parse().unwrap())).is_some());
    }

    /// The sizes of the table, by filling one shared array with every subset of
    /// every square of each packed table.
    #[test]
    fn packed_tables_need_the_sizes_they_declare() {
        let want = [
            ("annuss-fixed-shift-2008", Formula::Plain, 97_264, 82_501),
            ("annuss-fixed-shift-2016", Formula::Plain, 89_524, 73_999),
            ("annuss-fixed-shift-2017", Formula::Plain, 88_772, 73_195),
            (
                "black-magics-annuss-fiekas-2017",
                Formula::Black,
                87_988,
                72_118,
            ),
        ];
        for (name, formula, size, used) in want {
            let p = packed(name).unwrap();
            assert_eq!(p.entries.len(), 128, "{name}");
            assert_eq!(p.formula(), Some(formula), "{name}");
            assert_eq!(p.fixed_bits(crate::Piece::Rook), Some(12), "{name}");
            assert_eq!(p.fixed_bits(crate::Piece::Bishop), Some(9), "{name}");
            let f = p.check().unwrap();
            assert_eq!((f.size, f.used), (size, used), "{name}");
        }
        assert_eq!(best_packed(Formula::Black).1.declared, Some(87_988));
    }

    #[test]
    fn no_published_magic_contradicts_a_published_proof() {
        for (name, _) in TABLES {
            for e in &table(name).unwrap().entries {
                if let Some(p) = proof(e.target).filter(|p| p.formula == e.formula) {
                    assert!(
                        e.bits > p.bits,
                        "{name}: {} at {} bits vs proof",
                        e.target,
                        e.bits
                    );
                }
            }
        }
    }
}
