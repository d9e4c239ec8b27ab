//! The JSON back end: the table format, with `mask`, `shift` and `offset` added to each entry
//! and the header as a top-level `comment` list (JSON has no comments). A packed export also
//! carries `formula` and the `packed_table` figures in the shape of
//! [`PackedTable::to_json`](crate::layout::PackedTable::to_json), so `verify --file` checks
//! it as a whole.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{hex, Tables};
use crate::piece::Piece;
use crate::question::Formula;
use crate::size::kib;
use crate::table::entry_wire;
use crate::table::wire::TableWire;

/// Renders the JSON export; it loads back as a table (`verify --file` accepts it).
pub(super) fn render(layout: &Tables, header: &[String]) -> String {
    let mut meta = BTreeMap::new();
    meta.insert("comment".to_string(), json!(header));
    meta.insert("layout".to_string(), json!(layout.layout.name()));
    if layout.formula != Formula::Plain || layout.layout.shared() {
        meta.insert("formula".to_string(), json!(layout.formula.name()));
    }
    // The same names in every layout, as the Rust and C exports define them.
    meta.insert(
        "table_sizes".to_string(),
        json!({
            "attack": layout.total(),
            "rook_start": layout.start(Piece::Rook),
            "rook": layout.size(Piece::Rook),
            "bishop_start": layout.start(Piece::Bishop),
            "bishop": layout.size(Piece::Bishop),
        }),
    );
    if let Some(p) = &layout.packed {
        let f = &p.fill;
        meta.insert(
            "packed_table".to_string(),
            json!({
                "declared_size_entries": f.size,
                "computed_size_entries": f.size,
                "computed_size_KiB": kib(f.size),
                "slots_actually_used": f.used,
                "shared_slots": f.shared,
                "verified_valid": true,
            }),
        );
    }
    if let Some(ix) = &layout.indexed {
        // The indexed table's own fields, so that `verify --file` checks it as a whole.
        let table: Value =
            serde_json::from_str(&ix.table.to_json(&ix.fill)).expect("a table is JSON");
        for key in ["indexed_table", "attack_lists"] {
            meta.insert(key.to_string(), table[key].clone());
        }
    }
    let ids = |s: &super::Slot| {
        layout.indexed.as_ref().and_then(|ix| {
            ix.table
                .entries
                .iter()
                .find(|p| p.entry.target == s.entry.target)
                .map(|p| json!(p.ids))
        })
    };
    let entries = layout
        .rook
        .iter()
        .chain(&layout.bishop)
        .map(|s| {
            let mut w = entry_wire(&s.entry);
            w.extra.insert("mask".into(), Value::from(hex(s.mask)));
            w.extra.insert("shift".into(), Value::from(s.shift));
            w.extra.insert("offset".into(), Value::from(s.offset));
            if let Some(ids) = ids(s) {
                w.extra.insert("list".into(), Value::from(s.list));
                w.extra.insert("ids".into(), ids);
            }
            w
        })
        .collect();
    let wire = TableWire::of_entries(meta, entries);
    let mut s = serde_json::to_string_pretty(&wire).expect("export serializes");
    s.push('\n');
    s
}
