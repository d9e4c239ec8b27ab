//! The published magic tables shipped in `results/published/`, embedded in the binary.

use std::path::Path;
use std::sync::OnceLock;

use crate::piece::Target;
use crate::table::{Entry, Proof, Table};

/// The shipped tables by name (file name without `.json`) and their JSON text.
pub const TABLES: [(&str, &str); 5] = [
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
];

/// A shipped table by name, parsed and verified once.
///
/// # Panics
/// If a shipped table does not verify (the test suite checks that they all do).
#[must_use]
pub fn table(name: &str) -> Option<&'static Table> {
    static PARSED: [OnceLock<Table>; 5] = [const { OnceLock::new() }; 5];
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
                let v = magic::verify(e.target, e.bits, e.magic).unwrap();
                assert_eq!(v.max_index, e.max_index, "{name} {}", e.target);
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

    #[test]
    fn no_published_magic_contradicts_a_published_proof() {
        for (name, _) in TABLES {
            for e in &table(name).unwrap().entries {
                if let Some(p) = proof(e.target) {
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
