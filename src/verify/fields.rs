//! What `verify --file` checks of a table beyond its magics, and what it says it did not.
//!
//! Every figure a table states that the reference can give is checked against it: per entry,
//! an export's `mask` and `shift`, a published table's `mask_popcount`, `used_indices` and
//! `verified`; for the table, an export's offsets (each table filled with every subset of
//! every square, as the packed layout's whole check does, so two squares that meet with
//! different attack sets fail) and its `table_sizes`, and a packed table's `packed_table`
//! figures. What is left (who found a magic and when, a header's prose, proofs and work
//! records) is named in the report as not checked: what `verify` prints is a fact, and what
//! it did not check is said.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::Problem;
use crate::attacks::Occupancies;
use crate::layout::{fill, Fill, Layout};
use crate::magic::{format_magic, Verified};
use crate::piece::Piece;
use crate::table::{Claim, Entry, Table};

/// Entry fields checked whenever they are there (the claim itself and the figures above).
const ENTRY_CHECKED: [&str; 12] = [
    "piece",
    "square",
    "bits",
    "magic",
    "formula",
    "max_index",
    "min_index",
    "mask",
    "shift",
    "mask_popcount",
    "used_indices",
    "verified",
];

/// `packed_table` figures checked against the fill.
const PACKED_CHECKED: [&str; 6] = [
    "declared_size_entries",
    "slots_actually_used",
    "computed_size_entries",
    "shared_slots",
    "verified_valid",
    "n_conflicts",
];

/// The `table_sizes` of an export, as the Rust and C exports name them.
const SIZES: [&str; 5] = ["attack", "rook_start", "rook", "bishop_start", "bishop"];

/// The first figure of a valid entry that the file states otherwise than the reference
/// gives, if any.
pub(super) fn entry_problem(c: &Claim, v: &Verified, occ: &Occupancies) -> Option<Problem> {
    let field = |field: &'static str, stated: &Value, got: Value| {
        Some(Problem::Field {
            field,
            stated: stated.clone(),
            got,
        })
    };
    if let Some(m) = c.extra.get("mask") {
        let mask = occ.mask.0;
        if number(m) != Some(mask) {
            return field("mask", m, json!(format_magic(mask)));
        }
    }
    if let Some(s) = c.extra.get("shift") {
        let shift = 64 - u64::from(c.bits);
        if s.as_u64() != Some(shift) {
            return field("shift", s, json!(shift));
        }
    }
    if let Some(p) = c.extra.get("mask_popcount") {
        let popcount = u64::from(occ.mask.count());
        if p.as_u64() != Some(popcount) {
            return field("mask_popcount", p, json!(popcount));
        }
    }
    if let Some(u) = c.extra.get("used_indices") {
        if u.as_u64() != Some(u64::from(v.used_slots)) {
            return field("used_indices", u, json!(v.used_slots));
        }
    }
    if let Some(ok) = c.extra.get("verified") {
        if ok != &Value::Bool(true) {
            return field("verified", ok, json!(true));
        }
    }
    None
}

/// A whole number stated as a JSON number or as `0x` hex text.
fn number(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => crate::magic::parse_magic(s).ok(),
        _ => None,
    }
}

/// The layout fields of an export (`"layout"` and per-entry `offset`), checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutCheck {
    /// The layout the file names.
    pub layout: Layout,
    /// The table sizes its offsets give, as the export names them (`attack`, `bishop`,
    /// `bishop_start`, `rook`, `rook_start`; `attack` unknown when a packed table fails).
    pub sizes: Vec<(&'static str, Option<u64>)>,
    /// Whether the file states `table_sizes` (then checked against `sizes`).
    pub stated_sizes: bool,
    /// What does not hold, one line each.
    pub problems: Vec<String>,
}

/// Checks the offsets and `table_sizes` of a table that names its `layout` (a JSON export);
/// `packed` is a packed table's fill, when it holds (its offsets were checked by the packed
/// table's whole check). `None` when the file names no layout.
pub(super) fn layout_check(
    table: &Table,
    packed: Option<Result<&Fill, ()>>,
) -> Option<LayoutCheck> {
    let layout: Layout = table.meta.get("layout")?.as_str()?.parse().ok()?;
    if layout == Layout::Indexed {
        // An indexed table's ids, lists and offsets are its whole check's (`IndexedCheck`).
        return None;
    }
    let mut problems = Vec::new();
    let mut ends = [0u64; 2];
    let mut placed: [Vec<(&Entry, u32)>; 2] = [Vec::new(), Vec::new()];
    for (k, e) in table.entries.iter().enumerate() {
        let Some(offset) = e
            .extra
            .get("offset")
            .and_then(Value::as_u64)
            .and_then(|o| u32::try_from(o).ok())
        else {
            problems.push(format!(
                "entry {k} ({}) has no whole `offset` below 2^32",
                e.target
            ));
            continue;
        };
        let len = match layout {
            Layout::Fancy => 1u64 << e.bits,
            Layout::Tight | Layout::Packed | Layout::Indexed => u64::from(e.max_index) + 1,
        };
        let piece = e.target.piece as usize;
        ends[piece] = ends[piece].max(u64::from(offset) + len);
        placed[piece].push((e, offset));
    }
    if layout != Layout::Packed && problems.is_empty() {
        for piece in Piece::ALL {
            let list = &placed[piece as usize];
            // Bounded before an array is sized from it: a piece's table never needs more than
            // its squares' 2^bits side by side.
            let limit: u64 = list.iter().map(|(e, _)| 1u64 << e.bits).sum();
            if ends[piece as usize] > limit {
                problems.push(format!(
                    "the {piece} table reaches slot {}, past {limit}, what its {} squares take side by side: an offset is wrong",
                    ends[piece as usize],
                    list.len()
                ));
            } else if let Err(o) = fill(list) {
                problems.push(format!("the {piece} table: {o}"));
            }
        }
    }
    let (rook, bishop) = (ends[0], ends[1]);
    let (bishop_start, attack) = match (layout, packed) {
        (Layout::Packed, Some(Ok(f))) => (0, Some(f.size)),
        (Layout::Packed, _) => (0, None),
        _ => (rook, Some(rook + bishop)),
    };
    // In the order of their names, as the JSON document lists them.
    let sizes = vec![
        ("attack", attack),
        ("bishop", Some(bishop)),
        ("bishop_start", Some(bishop_start)),
        ("rook", Some(rook)),
        ("rook_start", Some(0)),
    ];
    let stated = table.meta.get("table_sizes");
    // Sizes from offsets that do not hold say nothing: compared only once they hold.
    if let Some(stated) = stated.filter(|_| problems.is_empty()) {
        for (key, got) in &sizes {
            let Some(got) = got else { continue };
            match stated.get(key).and_then(Value::as_u64) {
                Some(s) if s == *got => {}
                Some(s) => problems.push(format!(
                    "table_sizes.{key} {s} in the file, the offsets give {got}"
                )),
                None => problems.push(format!(
                    "table_sizes.{key} is not in the file as a whole number (the offsets give {got})"
                )),
            }
        }
    }
    Some(LayoutCheck {
        layout,
        sizes,
        stated_sizes: stated.is_some(),
        problems,
    })
}

/// The `packed_table` figures beyond the declared size and slots used (which the packed
/// table's own check compares), checked against `fill`: one line for each that differs.
pub(super) fn packed_figures(table: &Table, fill: Result<&Fill, ()>) -> Vec<String> {
    let Some(p) = table.meta.get("packed_table") else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    let mut check = |key: &str, got: Value| {
        if let Some(stated) = p.get(key).filter(|s| **s != got) {
            problems.push(format!(
                "packed_table.{key} {stated} in the file, filling it gives {got}"
            ));
        }
    };
    check("verified_valid", json!(fill.is_ok()));
    if let Ok(f) = fill {
        check("computed_size_entries", json!(f.size));
        check("shared_slots", json!(f.shared));
        check("n_conflicts", json!(0));
    }
    problems
}

/// The fields and lists of the table text `top` (parsed JSON) that `verify` did not check:
/// entry fields (`found_by`), top-level fields (`comment`), and the records (`proofs (3)`),
/// each once, sorted; `checked` the fields it did check that the file has.
pub(super) fn coverage(top: &Value, table: &Table, pool: bool) -> (Vec<String>, Vec<String>) {
    let mut checked = BTreeSet::new();
    let mut not = BTreeSet::new();
    let layout = layout_named(table);
    let packed = table.meta.contains_key("packed_table") || layout == Some(Layout::Packed);
    for e in top["entries"].as_array().into_iter().flatten() {
        for key in e.as_object().into_iter().flat_map(|o| o.keys()) {
            let known = ENTRY_CHECKED.contains(&key.as_str())
                || (key == "offset" && (layout.is_some() || packed))
                || (pool && (key == "slots" || key == "footprint"));
            if known {
                checked.insert(key.clone());
            } else {
                not.insert(format!("entries[].{key}"));
            }
        }
    }
    for (key, v) in top.as_object().into_iter().flatten() {
        match key.as_str() {
            "version" | "entries" | "formula" => {
                checked.insert(key.clone());
            }
            "layout" if layout.is_some() => {
                checked.insert(key.clone());
            }
            "kind" | "gap" | "capacity" if pool => {
                checked.insert(key.clone());
            }
            "table_sizes" if layout.is_some() => {
                checked.insert(key.clone());
                for (k, _) in v.as_object().into_iter().flatten() {
                    if !SIZES.contains(&k.as_str()) {
                        not.insert(format!("table_sizes.{k}"));
                    }
                }
            }
            "packed_table" if packed => {
                checked.insert(key.clone());
                for (k, _) in v.as_object().into_iter().flatten() {
                    if !PACKED_CHECKED.contains(&k.as_str()) {
                        not.insert(format!("packed_table.{k}"));
                    }
                }
            }
            "proofs" | "effort" | "exhaust" | "sat" => {
                let n = v.as_array().map_or(0, Vec::len);
                if n > 0 {
                    not.insert(format!("{key} ({n})"));
                }
            }
            _ => {
                not.insert(key.clone());
            }
        }
    }
    (checked.into_iter().collect(), not.into_iter().collect())
}

fn layout_named(table: &Table) -> Option<Layout> {
    table.meta.get("layout")?.as_str()?.parse().ok()
}
