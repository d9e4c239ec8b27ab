//! Indexed tables (one-byte slots): every slot of one shared array holds a byte, the id of an
//! attack set in its square's list, and the lists hold the bitboards. The lookup is
//!
//! ```text
//! lists[list + ids[offset + index(occ)]]            own lists (no entry shared)
//! lists[list + ids[offset + index(occ)]] & rays     shared lists (an entry serves several squares)
//! ```
//!
//! with `index` the magic's index ([`index_with`]), `offset` and `list` the square's, and
//! `rays` every square it attacks on an empty board. Two squares may share a slot when their
//! ids there are equal; a slot no subset reaches (a hole) holds any id. One slot is one byte,
//! so the array is an eighth of a packed table of the same offsets, and the lists add 8 bytes
//! per entry ([`super::lists`]).
//!
//! In the table format: the top level says `"layout": "indexed"`, lists the entries as
//! `attack_lists` (hex bitboards) and states the figures under `indexed_table`; every entry
//! carries its `offset`, its `list` and its `ids`, the id of each of its distinct attack sets
//! in increasing order of the bitboard ([`attack_sets`]). The ids of the array follow from
//! them: [`IndexedTable::fill`] writes every subset of every square and checks every slot and
//! every list entry against the slow reference.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{json, Value};

use super::lists::{attack_sets, rays, Lists};
use super::{Layout, LayoutError};
use crate::attacks::Occupancies;
use crate::magic::{format_magic, index_with, parse_magic};
use crate::piece::Target;
use crate::question::Formula;
use crate::table::wire::TableWire;
use crate::table::{entry_wire, Entry, Table};

/// Bytes of one square's magic in the C and Rust exports with own lists: mask, magic
/// (8 bytes each), offset (4), list (2), shift (1) and one byte of padding.
pub const MAGIC_BYTES: u64 = 24;

/// Bytes of one square's magic with shared lists: the same and its rays (8 more).
pub const MAGIC_BYTES_SHARED: u64 = 32;

/// One square of an indexed table.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexedEntry {
    /// The verified magic (with its formula).
    pub entry: Entry,
    /// Where its index 0 lies in the id array.
    pub offset: u32,
    /// Where its ids count from in the lists.
    pub list: u32,
    /// The id of each of its distinct attack sets, in the order of [`attack_sets`].
    pub ids: Vec<u8>,
}

/// An indexed table: the squares, the lists, and what the file states.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IndexedTable {
    /// The squares, in file order.
    pub entries: Vec<IndexedEntry>,
    /// The list entries.
    pub lists: Vec<u64>,
    /// The id array's size the file declares (`indexed_table.declared_size_ids`).
    pub declared: Option<u64>,
    /// Other top-level fields, kept as they are (`source`, `command`, ...).
    pub meta: BTreeMap<String, Value>,
}

/// What filling an indexed table gives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IndexedFill {
    /// Squares filled.
    pub squares: usize,
    /// Ids in the array: its highest slot written plus one (one byte each).
    pub size: u64,
    /// Distinct slots written.
    pub used: u64,
    /// Slots written by more than one square (with equal ids).
    pub shared: u64,
    /// Entries of the lists (8 bytes each).
    pub lists: u64,
    /// Whether a list entry serves more than one square (the lookup keeps the square's rays).
    pub shared_lists: bool,
}

/// Where an indexed table's bytes are, as the C export's data counts them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bytes {
    /// The id array (one byte a slot).
    pub ids: u64,
    /// The lists (8 bytes an entry).
    pub lists: u64,
    /// The 128 magics.
    pub magics: u64,
}

impl Bytes {
    /// All of them.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.ids + self.lists + self.magics
    }
}

impl IndexedFill {
    /// The bytes of the exported table.
    #[must_use]
    pub fn bytes(&self) -> Bytes {
        let per = if self.shared_lists {
            MAGIC_BYTES_SHARED
        } else {
            MAGIC_BYTES
        };
        Bytes {
            ids: self.size,
            lists: self.lists * 8,
            magics: self.squares as u64 * per,
        }
    }
}

/// Two subsets sent to one slot of the id array with different ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdClash {
    /// The slot.
    pub slot: u64,
    /// Who wrote it first and the id.
    pub first: (Target, u8),
    /// Who wrote another id there.
    pub second: (Target, u8),
}

impl fmt::Display for IdClash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "slot {} of the id array gets two different ids: {} from {} and {} from {}",
            self.slot, self.first.1, self.first.0, self.second.1, self.second.0
        )
    }
}

/// Whether `table` is of the indexed layout (`"layout": "indexed"`).
#[must_use]
pub fn is_indexed(table: &Table) -> bool {
    table.meta.get("layout").and_then(Value::as_str) == Some(Layout::Indexed.name())
}

impl IndexedTable {
    /// An indexed table of magics at offsets (`placed`, at most one per target) with the ids
    /// and bases of `lists` (which must cover every target placed).
    ///
    /// # Panics
    /// If `lists` lacks a square of `placed`.
    #[must_use]
    pub fn new(placed: Vec<(Entry, u32)>, lists: &Lists) -> IndexedTable {
        let entries = placed
            .into_iter()
            .map(|(entry, offset)| {
                let l = lists
                    .squares
                    .iter()
                    .find(|s| s.target == entry.target)
                    .expect("the lists cover every square");
                IndexedEntry {
                    entry,
                    offset,
                    list: l.base,
                    ids: l.ids.clone(),
                }
            })
            .collect();
        IndexedTable {
            entries,
            lists: lists.entries.clone(),
            declared: None,
            meta: BTreeMap::new(),
        }
    }

    /// Reads the indexed layout of a checked table (every entry already verified).
    ///
    /// # Errors
    /// [`LayoutError::Format`] when it is not indexed, an entry lacks a whole `offset` or
    /// `list` up to `MAX_OFFSET` or its `ids`, a square is listed twice, or `attack_lists` or
    /// `indexed_table` is malformed.
    pub fn from_table(table: &Table) -> Result<IndexedTable, LayoutError> {
        let bad = |s: String| Err(LayoutError::Format(s));
        if !is_indexed(table) {
            return bad("not an indexed table (no `\"layout\": \"indexed\"`)".into());
        }
        let mut seen = BTreeSet::new();
        let mut entries = Vec::with_capacity(table.entries.len());
        let limit = super::packed::unshared_size(table.entries.iter());
        for (k, e) in table.entries.iter().enumerate() {
            let whole = |key| super::whole_field(e, k, key, "an indexed table");
            let (offset, list) = (whole("offset")?, whole("list")?);
            // Bounded before anything is sized from it, as a packed table's offsets are.
            let end = u64::from(offset) + u64::from(e.max_index) + 1;
            if end > limit {
                return bad(format!(
                    "entry {k} ({}): offset {offset} puts its ids up to {end}, past {limit}, what the table's {} magics take unshared (each its own 2^bits): not an indexed table",
                    e.target,
                    table.entries.len()
                ));
            }
            let ids = e
                .extra
                .get("ids")
                .and_then(Value::as_array)
                .and_then(|a| {
                    a.iter()
                        .map(|v| v.as_u64().and_then(|v| u8::try_from(v).ok()))
                        .collect::<Option<Vec<u8>>>()
                })
                .ok_or_else(|| {
                    LayoutError::Format(format!(
                        "entry {k} ({}) has no `ids`, a list of ids from 0 to 255",
                        e.target
                    ))
                })?;
            if !seen.insert(e.target) {
                return bad(format!("entry {k}: {} is listed twice", e.target));
            }
            let mut entry = e.clone();
            for key in ["offset", "list", "ids"] {
                entry.extra.remove(key);
            }
            entries.push(IndexedEntry {
                entry,
                offset,
                list,
                ids,
            });
        }
        let lists = table
            .meta
            .get("attack_lists")
            .and_then(Value::as_array)
            .and_then(|a| {
                a.iter()
                    .map(|v| v.as_str().and_then(|s| parse_magic(s).ok()))
                    .collect::<Option<Vec<u64>>>()
            })
            .ok_or_else(|| {
                LayoutError::Format("`attack_lists` is not a list of hex bitboards".into())
            })?;
        let declared = match table
            .meta
            .get("indexed_table")
            .map(|p| p.get("declared_size_ids"))
        {
            None | Some(None) => None,
            Some(Some(v)) => Some(v.as_u64().ok_or_else(|| {
                LayoutError::Format(
                    "`indexed_table.declared_size_ids` is not a whole number".into(),
                )
            })?),
        };
        let mut meta = table.meta.clone();
        for key in ["indexed_table", "layout", "attack_lists"] {
            meta.remove(key);
        }
        Ok(IndexedTable {
            entries,
            lists,
            declared,
            meta,
        })
    }

    /// Fills the id array with every blocker subset of every square (attack sets from the
    /// slow reference) and checks every square's lists: each id of a square is distinct and
    /// reads its attack set (`lists[list + id] & rays`), and no slot gets two different ids.
    ///
    /// # Errors
    /// [`LayoutError::Lists`] naming the square and the id that does not read its attack set;
    /// [`LayoutError::IdClash`] for two ids in one slot.
    pub fn fill(&self) -> Result<IndexedFill, LayoutError> {
        // Per slot: the id and the entry that wrote it first (+1; 0 = free), and whether a
        // second square wrote it too.
        let mut val: Vec<(u8, u16, bool)> = Vec::new();
        let mut size = 0u64;
        let mut shared_lists = false;
        for (k, p) in self.entries.iter().enumerate() {
            let t = p.entry.target;
            let sets = attack_sets(t);
            let r = rays(t);
            let wrong = |s: String| Err(LayoutError::Lists(format!("{t}: {s}")));
            if p.ids.len() != sets.len() {
                return wrong(format!(
                    "{} ids for its {} attack sets",
                    p.ids.len(),
                    sets.len()
                ));
            }
            let mut seen = [false; 256];
            for (&id, &a) in p.ids.iter().zip(&sets) {
                if std::mem::replace(&mut seen[usize::from(id)], true) {
                    return wrong(format!("id {id} given to two attack sets"));
                }
                let at = u64::from(p.list) + u64::from(id);
                let Some(&e) = self.lists.get(at as usize) else {
                    return wrong(format!(
                        "id {id} reads list entry {at}, past the {} entries",
                        self.lists.len()
                    ));
                };
                if e & r != a {
                    return wrong(format!(
                        "id {id} reads {} where its attack set is {}",
                        format_magic(e & r),
                        format_magic(a)
                    ));
                }
                shared_lists |= e & !r != 0;
            }
            let occ = Occupancies::new(t);
            for &(sub, att) in &occ.pairs {
                let i = index_with(
                    p.entry.formula,
                    sub.0,
                    occ.mask.0,
                    p.entry.magic,
                    p.entry.bits,
                );
                let s = p.offset as usize + i;
                let id = p.ids[sets.binary_search(&att.0).expect("listed")];
                if val.len() <= s {
                    val.resize(s + 1, (0, 0, false));
                }
                let slot = &mut val[s];
                if slot.1 == 0 {
                    *slot = (id, k as u16 + 1, false);
                } else if slot.0 != id {
                    return Err(LayoutError::IdClash(Box::new(IdClash {
                        slot: s as u64,
                        first: (self.entries[slot.1 as usize - 1].entry.target, slot.0),
                        second: (t, id),
                    })));
                } else if usize::from(slot.1) != k + 1 {
                    slot.2 = true;
                }
                size = size.max(s as u64 + 1);
            }
        }
        Ok(IndexedFill {
            squares: self.entries.len(),
            size,
            used: val.iter().filter(|v| v.1 != 0).count() as u64,
            shared: val.iter().filter(|v| v.2).count() as u64,
            lists: self.lists.len() as u64,
            shared_lists,
        })
    }

    /// The whole check: [`IndexedTable::fill`], then the size the file declares (a file
    /// that declares none is refused: the size is what the table promises).
    ///
    /// # Errors
    /// [`LayoutError`]: a list or slot that does not hold, a size that does not match.
    pub fn check(&self) -> Result<IndexedFill, LayoutError> {
        let f = self.fill()?;
        match self.declared {
            None => Err(LayoutError::Format(format!(
                "`indexed_table.declared_size_ids` is missing (filling it needs {} ids)",
                f.size
            ))),
            Some(d) if d != f.size => Err(LayoutError::Size {
                declared: d,
                computed: f.size,
            }),
            Some(_) => Ok(f),
        }
    }

    /// The id array as it lies, holes 0: what the exports write.
    #[must_use]
    pub fn ids(&self, fill: &IndexedFill) -> Vec<u8> {
        let mut out = vec![0u8; fill.size as usize];
        for p in &self.entries {
            let t = p.entry.target;
            let sets = attack_sets(t);
            let occ = Occupancies::new(t);
            for &(sub, att) in &occ.pairs {
                let i = index_with(
                    p.entry.formula,
                    sub.0,
                    occ.mask.0,
                    p.entry.magic,
                    p.entry.bits,
                );
                out[p.offset as usize + i] = p.ids[sets.binary_search(&att.0).expect("listed")];
            }
        }
        out
    }

    /// The formula every entry shares, if they share one.
    #[must_use]
    pub fn formula(&self) -> Option<Formula> {
        let first = self.entries.first()?.entry.formula;
        self.entries
            .iter()
            .all(|p| p.entry.formula == first)
            .then_some(first)
    }

    /// The table as JSON in the table format, with `fill` (the result of
    /// [`IndexedTable::check`] or [`IndexedTable::fill`]) as its `indexed_table` figures; the
    /// same table gives the same bytes.
    #[must_use]
    pub fn to_json(&self, fill: &IndexedFill) -> String {
        let mut meta = self.meta.clone();
        meta.insert("layout".into(), json!(Layout::Indexed.name()));
        if let Some(f) = self.formula() {
            meta.insert("formula".into(), json!(f.name()));
        }
        let b = fill.bytes();
        meta.insert(
            "indexed_table".into(),
            json!({
                "declared_size_ids": fill.size,
                "slots_actually_used": fill.used,
                "shared_slots": fill.shared,
                "list_entries": fill.lists,
                "lists": if fill.shared_lists { "shared" } else { "own" },
                "bytes": {
                    "ids": b.ids,
                    "lists": b.lists,
                    "magics": b.magics,
                    "total": b.total(),
                },
                "verified_valid": true,
            }),
        );
        meta.insert(
            "attack_lists".into(),
            Value::Array(self.lists.iter().map(|&e| json!(format_magic(e))).collect()),
        );
        let entries = self
            .entries
            .iter()
            .map(|p| {
                let mut w = entry_wire(&p.entry);
                w.extra.insert("offset".into(), json!(p.offset));
                w.extra.insert("list".into(), json!(p.list));
                w.extra.insert("ids".into(), json!(p.ids));
                w
            })
            .collect();
        let wire = TableWire::of_entries(meta, entries);
        let mut s = serde_json::to_string_pretty(&wire).expect("an indexed table serializes");
        s.push('\n');
        one_line_numbers(&s)
    }
}

/// Pretty JSON with every list of plain numbers on one line (each square's `ids`), so that
/// the table reads entry by entry.
fn one_line_numbers(pretty: &str) -> String {
    let lines: Vec<&str> = pretty.lines().collect();
    let mut out = String::with_capacity(pretty.len());
    let mut k = 0;
    while k < lines.len() {
        let line = lines[k];
        if line.ends_with('[') {
            let items: Vec<&str> = lines[k + 1..]
                .iter()
                .map(|l| l.trim())
                .take_while(|l| l.trim_end_matches(',').parse::<u64>().is_ok())
                .collect();
            let close = lines.get(k + 1 + items.len()).map(|l| l.trim());
            if !items.is_empty() && matches!(close, Some("]" | "],")) {
                let joined: Vec<&str> = items.iter().map(|i| i.trim_end_matches(',')).collect();
                out.push_str(line);
                out.push_str(&joined.join(", "));
                out.push_str(close.unwrap_or("]"));
                out.push('\n');
                k += items.len() + 2;
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
        k += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::lists;
    use crate::layout::pack::{pack_entries, PackOptions};
    use crate::published;
    use std::path::Path;
    use std::sync::atomic::AtomicBool;

    /// The published white record's offsets as one-byte ids with the shared lists.
    fn record() -> (IndexedTable, IndexedFill) {
        let p = published::packed("annuss-fixed-shift-2017").unwrap();
        let placed = p
            .entries
            .iter()
            .map(|e| (e.entry.clone(), e.offset))
            .collect();
        let mut t = IndexedTable::new(placed, lists::shared());
        t.declared = p.declared;
        let f = t.check().unwrap();
        (t, f)
    }

    #[test]
    fn a_packed_placement_as_ids_keeps_its_size_and_round_trips() {
        let (t, f) = record();
        assert_eq!((f.size, f.used, f.shared), (88_772, 73_195, 0));
        assert!(f.shared_lists);
        let b = f.bytes();
        assert_eq!(b.ids, 88_772);
        assert_eq!(b.magics, 128 * MAGIC_BYTES_SHARED);
        assert_eq!(b.lists, 8 * lists::shared().entries.len() as u64);
        let text = t.to_json(&f);
        let back =
            IndexedTable::from_table(&Table::parse(text.as_bytes(), Path::new("t")).unwrap())
                .unwrap();
        assert_eq!(back.check().unwrap(), f);
        assert_eq!(
            back.to_json(&f),
            text,
            "the same table gives the same bytes"
        );
        // The ids of every slot read each subset's attack set: the export's array.
        let ids = back.ids(&f);
        assert_eq!(ids.len() as u64, f.size);
    }

    #[test]
    fn wrong_ids_lists_and_sizes_are_refused_with_what_is_wrong() {
        let (t, f) = record();
        // Two attack sets with one id.
        let mut bad = t.clone();
        bad.entries[0].ids[1] = bad.entries[0].ids[0];
        assert!(matches!(bad.fill(), Err(LayoutError::Lists(m)) if m.contains("two attack sets")));
        // A list entry that no longer holds a square's attack set.
        let mut bad = t.clone();
        let at = (bad.entries[5].list + u32::from(bad.entries[5].ids[0])) as usize;
        bad.lists[at] ^= 1 << 63 | 1;
        assert!(matches!(bad.fill(), Err(LayoutError::Lists(_))));
        // Two squares at one offset: ids clash in some slot.
        let mut bad = t.clone();
        bad.entries[1].offset = bad.entries[0].offset;
        let e = bad.fill().unwrap_err();
        assert!(matches!(e, LayoutError::IdClash(_)), "{e}");
        assert!(e.to_string().contains("two different ids"), "{e}");
        // A size that is not the one the offsets need, or none.
        let mut bad = t.clone();
        bad.declared = Some(f.size - 1);
        assert!(matches!(bad.check(), Err(LayoutError::Size { .. })));
        bad.declared = None;
        assert!(matches!(bad.check(), Err(LayoutError::Format(_))));
    }

    /// Own lists: numbered so that two squares share slots where their ids are equal, each
    /// list in the order of its square's ids, and never larger than the start.
    #[test]
    fn ids_of_their_own_share_slots_and_never_grow() {
        use crate::layout::pack_indexed::{indexed_table, pack_indexed};
        let p = published::packed("black-magics-annuss-fiekas-2017").unwrap();
        let entries: Vec<Entry> = p.entries.iter().map(|e| e.entry.clone()).collect();
        let offsets: Vec<u32> = p.entries.iter().map(|e| e.offset).collect();
        let groups: Vec<Vec<crate::layout::Pattern>> = entries
            .iter()
            .map(|e| vec![crate::layout::Pattern::of(e)])
            .collect();
        let targets: Vec<Target> = entries.iter().map(|e| e.target).collect();
        let start_ids: Vec<Vec<u8>> = targets
            .iter()
            .map(|&t| (0..attack_sets(t).len() as u8).collect())
            .collect();
        let start = (vec![0; 128], offsets, start_ids);
        let opts = PackOptions {
            steps: 300,
            ..PackOptions::default()
        };
        let packing = pack_indexed(
            &groups,
            &targets,
            None,
            7,
            Some(&start),
            &opts,
            &AtomicBool::new(false),
            &mut |_| {},
        );
        assert!(packing.size <= 87_988);
        let (t, f) = indexed_table(&entries, &packing, None).unwrap();
        assert!(!f.shared_lists);
        assert_eq!(f.lists, 6328);
        assert_eq!(f.bytes().magics, 128 * MAGIC_BYTES);
        assert_eq!(t.check().unwrap().size, packing.size);
        // From first-fit decreasing, equal ids let squares meet: some slots are shared.
        let opts = PackOptions {
            steps: 0,
            ..PackOptions::default()
        };
        let ffd = pack_indexed(
            &groups,
            &targets,
            None,
            7,
            None,
            &opts,
            &AtomicBool::new(false),
            &mut |_| {},
        );
        let (_, f) = indexed_table(&entries, &ffd, None).unwrap();
        let (_, plain, _) = pack_entries(&entries, None, &opts, &AtomicBool::new(false)).unwrap();
        eprintln!(
            "own ids, first-fit decreasing: {} ids, {} shared; 8-byte: {}",
            f.size, f.shared, plain.size
        );
        assert!(f.shared > 0, "{f:?}");
    }
}
