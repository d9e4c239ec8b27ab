//! The text of `magichunt verify`: what a person reads, from the same reports as the JSON
//! documents of [`super::json`].

use std::fmt::Write as _;

use super::{IndexedCheck, LayoutCheck, MagicReport, PackedCheck, Problem, TableReport};
use crate::bitboard::side_by_side;
use crate::magic::format_magic;
use crate::question::Formula;
use crate::size::kib;

impl MagicReport {
    /// The text of `verify --piece ...`.
    #[must_use]
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let black = if self.formula == Formula::Black {
            " (black)"
        } else {
            ""
        };
        let head = format!(
            "{}, {} bits, magic {}{black}",
            self.target,
            self.bits,
            format_magic(self.magic)
        );
        match &self.result {
            Ok(v) => {
                let _ = writeln!(out, "{head}: valid");
                let _ = writeln!(
                    out,
                    "  used slots        {} of {}",
                    v.used_slots,
                    1u64 << self.bits
                );
                if self.formula == Formula::Black {
                    let _ = writeln!(
                        out,
                        "  index range       {} to {} (tight table: {} entries)",
                        v.min_index,
                        v.max_index,
                        v.span()
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "  highest index     {} (tight table: {} entries)",
                        v.max_index,
                        v.span()
                    );
                }
                let _ = writeln!(
                    out,
                    "  constructive      {} of {} subsets share a slot",
                    v.constructive, self.subsets
                );
                let _ = writeln!(
                    out,
                    "  mask popcount     {}, {} distinct attack sets, lower bound {} bits",
                    self.mask_popcount, self.distinct_attacks, self.lower_bound
                );
            }
            Err(c) => {
                let _ = writeln!(out, "{head}: INVALID");
                let _ = writeln!(
                    out,
                    "  destructive collision at index {}: two subsets with different attack sets",
                    c.index
                );
                out.push('\n');
                out.push_str(&side_by_side(&[
                    ("blockers 1", c.first.0),
                    ("attacks 1", c.first.1),
                    ("blockers 2", c.second.0),
                    ("attacks 2", c.second.1),
                ]));
            }
        }
        out
    }
}

impl TableReport {
    /// The text of `verify --file`.
    #[must_use]
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        for f in &self.failures {
            let c = &f.claim;
            let black = if c.formula == Formula::Black {
                " black"
            } else {
                ""
            };
            let what = format!(
                "entry {} ({} {} bits{black} {})",
                c.index,
                c.target,
                c.bits,
                format_magic(c.magic)
            );
            let _ = match &f.problem {
                Problem::Collision { subsets, index } => writeln!(
                    out,
                    "{what}: INVALID, subsets {:#x} and {:#x} collide at index {index}",
                    subsets[0], subsets[1]
                ),
                Problem::MaxIndex { stated, got } => writeln!(
                    out,
                    "{what}: max_index {stated} in the file, verify gives {got}"
                ),
                Problem::MinIndex { stated, got } => writeln!(
                    out,
                    "{what}: min_index {stated} in the file, verify gives {got}"
                ),
                Problem::Field { field, stated, got } => writeln!(
                    out,
                    "{what}: {field} {stated} in the file, verify gives {got}"
                ),
            };
        }
        let _ = writeln!(
            out,
            "{}: {} entries, {} valid, {} invalid",
            self.name,
            self.entries,
            self.entries - self.failures.len(),
            self.failures.len()
        );
        if !self.per_square.is_empty() {
            out.push_str("  entry  target     bits  magic                slots   span\n");
            for (k, e) in self.per_square.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "  {k:>5}  {:<10} {:>4}  {}  {:>5}  {:>5}",
                    e.target.to_string(),
                    e.bits,
                    format_magic(e.magic),
                    e.slots,
                    e.span
                );
            }
        }
        if let Some(u) = &self.usage {
            let _ = writeln!(
                out,
                "  slots used        {} (rooks + bishops); sum of spans {}",
                u.slots_text(),
                u.spans.unwrap_or_default()
            );
        }
        if let Some(p) = &self.pool {
            let _ = writeln!(
                out,
                "  pool              {} magics for {} questions ({} to {} each), gap {}, capacity {}; stated slots and footprints as verify gives",
                p.magics, p.questions, p.fewest, p.most, p.gap, p.capacity
            );
        }
        if let Some(p) = &self.packed {
            out.push_str(&packed_text(p));
        }
        if let Some(l) = &self.layout {
            out.push_str(&layout_text(l));
        }
        if !self.checked.is_empty() {
            let _ = writeln!(out, "  checked           {}", self.checked.join(", "));
        }
        if !self.not_checked.is_empty() {
            let records = self.not_checked.iter().any(|n| n.ends_with(')'));
            let _ = writeln!(
                out,
                "  not checked       {} (taken as stated{})",
                self.not_checked.join(", "),
                if records {
                    "; `magichunt audit` checks a store's proofs"
                } else {
                    ""
                }
            );
        }
        if let Some(p) = &self.indexed {
            out.push_str(&indexed_text(p));
        }
        out
    }
}

/// The lines of the layout fields' check.
fn layout_text(l: &LayoutCheck) -> String {
    let mut out = String::new();
    let name = l.layout.name();
    if l.problems.is_empty() {
        let sizes: Vec<String> = l
            .sizes
            .iter()
            .filter_map(|(k, v)| v.map(|v| format!("{k} {v}")))
            .collect();
        let _ = writeln!(
            out,
            "  layout fields     {name}: offsets{} hold ({})",
            if l.stated_sizes {
                " and table_sizes"
            } else {
                ""
            },
            sizes.join(", ")
        );
    }
    for p in &l.problems {
        let _ = writeln!(out, "  layout fields     {name}: INVALID: {p}");
    }
    out
}

/// The first line of a whole table's check: its layout, squares, formula and shifts.
fn layout_head(
    layout: &str,
    squares: usize,
    formula: Option<Formula>,
    fixed_bits: [Option<u32>; 2],
) -> String {
    let formula = formula.map_or_else(|| "mixed".to_string(), |f| f.to_string());
    let shift =
        |b: Option<u32>| b.map_or_else(|| "bits per square".to_string(), |b| format!("{b} bits"));
    format!(
        "{layout} layout, {squares} squares, formula {formula}, rooks {}, bishops {}",
        shift(fixed_bits[0]),
        shift(fixed_bits[1])
    )
}

/// The lines of an indexed table's whole check.
fn indexed_text(p: &IndexedCheck) -> String {
    let head = layout_head("indexed", p.squares, p.formula, p.fixed_bits);
    let mut out = String::new();
    match &p.result {
        Ok(f) => {
            let b = f.bytes();
            let _ = writeln!(out, "{head}: valid");
            let _ = writeln!(
                out,
                "  id array          {} ids of one byte, as the file declares",
                f.size
            );
            let _ = writeln!(
                out,
                "  slots used        {} ({} free inside the array), {} shared by two squares with equal ids",
                f.used,
                f.size - f.used,
                f.shared
            );
            let _ = writeln!(
                out,
                "  lists             {} entries of 8 bytes, {}",
                f.lists,
                if f.shared_lists {
                    "shared (each square keeps its rays of an entry)"
                } else {
                    "each square's own"
                }
            );
            let _ = writeln!(
                out,
                "  bytes             {} ({} KiB): ids {}, lists {}, magics {}",
                b.total(),
                crate::size::kib_bytes(b.total()),
                b.ids,
                b.lists,
                b.magics
            );
        }
        Err(e) => {
            let _ = writeln!(out, "{head}: INVALID: {e}");
        }
    }
    out
}

/// The lines of a packed table's whole check.
fn packed_text(p: &PackedCheck) -> String {
    let head = layout_head("packed", p.squares, p.formula, p.fixed_bits);
    let mut out = String::new();
    match &p.result {
        Ok(f) => {
            let _ = writeln!(out, "{head}: valid");
            let _ = writeln!(
                out,
                "  shared size       {} entries ({} KiB), as the file declares",
                f.size,
                kib(f.size)
            );
            let _ = writeln!(
                out,
                "  slots used        {} ({} free inside the array)",
                f.used,
                f.size - f.used
            );
            let _ = writeln!(
                out,
                "  shared slots      {} (equal attack sets of two squares)",
                f.shared
            );
        }
        Err(e) => {
            let _ = writeln!(out, "{head}: INVALID: {e}");
        }
    }
    out
}
