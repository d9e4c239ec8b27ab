//! Table sizes by layout, ours beside the smallest published table of each: fancy (`2^bits`
//! per square), tight (each square's span of slots) and packed (one shared array), for plain
//! and black magics.

use std::sync::atomic::AtomicBool;

use crate::layout::pack::{pack_entries, PackOptions};
use crate::layout::{per_square_size, Fill, Layout, PackedTable, Usage};
use crate::published;
use crate::question::Formula;
use crate::store::Store;
use crate::table::Entry;

/// One side of a layout row: entries, squares counted and how the figure was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Size {
    /// Entries of the table (8 bytes each).
    pub entries: u64,
    /// Squares it holds (of 128).
    pub squares: usize,
    /// Where the figure comes from (`the store`, a file, a published table).
    pub how: String,
}

/// One layout and formula: our size and the smallest published one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutRow {
    /// The layout.
    pub layout: Layout,
    /// The index formula.
    pub formula: Formula,
    /// Ours: `None` when we have no magic of that formula.
    pub ours: Option<Size>,
    /// The smallest published, with its source.
    pub theirs: Size,
}

impl Size {
    /// `N (K KiB)`, with the squares when fewer than 128.
    #[must_use]
    pub fn text(&self) -> String {
        let mut s = format!("{} ({} KiB)", self.entries, crate::size::kib(self.entries));
        if self.squares < 128 {
            s.push_str(&format!(" {}/128", self.squares));
        }
        s
    }
}

impl LayoutRow {
    /// `packed, plain` and the like.
    #[must_use]
    pub fn name(&self) -> String {
        format!("{}, {}", self.layout, self.formula)
    }

    /// Smaller than the smallest published table of its layout and formula, with all 128
    /// squares: a record in that metric.
    #[must_use]
    pub fn record(&self) -> bool {
        self.ours
            .as_ref()
            .is_some_and(|o| o.squares == 128 && o.entries < self.theirs.entries)
    }
}

/// The smallest published table of each layout and formula. Plain fancy and tight: the best
/// published bits per square (`records.json`); plain packed: Annuss's fixed shift 2017; black:
/// the Annuss and Fiekas 2017 table, the only published black magics (12 and 9 bits, so its
/// fancy and tight figures are of that table laid out per square).
fn theirs(layout: Layout, formula: Formula) -> Size {
    match (layout, formula) {
        (Layout::Packed, f) => {
            let (name, t) = published::best_packed(f);
            Size {
                entries: t.declared.unwrap_or_default(),
                squares: t.entries.len(),
                how: name.to_string(),
            }
        }
        (l, Formula::Plain) => {
            let records: Vec<&Entry> = crate::piece::Target::all()
                .filter_map(published::best)
                .collect();
            Size {
                entries: per_square_size(l, records.iter().copied()),
                squares: records.len(),
                how: "best published bits per square".into(),
            }
        }
        (l, Formula::Black) => {
            let (name, t) = published::best_packed(Formula::Black);
            Size {
                entries: per_square_size(l, t.entries.iter().map(|p| &p.entry)),
                squares: t.entries.len(),
                how: name.to_string(),
            }
        }
    }
}

/// Our packed size: first-fit decreasing of the store's magics of `formula` (no improvement
/// steps: `magichunt pack` goes further), or a smaller packed table given, checked.
fn ours_packed(
    entries: &[Entry],
    files: &[(String, PackedTable, Fill)],
    formula: Formula,
) -> Option<Size> {
    let mut best: Option<Size> = None;
    if !entries.is_empty() {
        let opts = PackOptions {
            steps: 0,
            ..PackOptions::default()
        };
        if let Ok((_, f, _)) = pack_entries(entries, None, &opts, &AtomicBool::new(false)) {
            best = Some(Size {
                entries: f.size,
                squares: entries.len(),
                how: "first-fit decreasing of the store".into(),
            });
        }
    }
    for (name, t, f) in files
        .iter()
        .filter(|(_, t, _)| t.formula() == Some(formula))
    {
        let size = Size {
            entries: f.size,
            squares: t.entries.len(),
            how: name.clone(),
        };
        if best.as_ref().is_none_or(|b| {
            (size.squares, std::cmp::Reverse(size.entries))
                > (b.squares, std::cmp::Reverse(b.entries))
        }) {
            best = Some(size);
        }
    }
    best
}

/// The rows: plain then black, each fancy, tight and packed. `files` are packed tables of
/// ours, already checked (their fills), that may beat the store's quick packing.
#[must_use]
pub fn layout_rows(store: &Store, files: &[(String, PackedTable, Fill)]) -> Vec<LayoutRow> {
    let mut rows = Vec::new();
    for formula in Formula::ALL {
        let entries: Vec<Entry> = store.entries_with(formula).cloned().collect();
        // The 8-byte layouts (the indexed layout's bytes are not entries).
        for layout in Layout::ALL.into_iter().filter(|&l| l != Layout::Indexed) {
            let ours = match layout {
                Layout::Packed => ours_packed(&entries, files, formula),
                l => (!entries.is_empty()).then(|| Size {
                    entries: per_square_size(l, &entries),
                    squares: entries.len(),
                    how: "the store".into(),
                }),
            };
            rows.push(LayoutRow {
                layout,
                formula,
                ours,
                theirs: theirs(layout, formula),
            });
        }
    }
    rows
}

/// One table's spending: slots used, sum of spans and its shared array (packed tables).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageRow {
    /// The table (a file of ours, the store, a published table, the floor).
    pub name: String,
    /// Its slots used and spans.
    pub usage: Usage,
    /// The shared array of a packed table, in entries.
    pub array: Option<u64>,
}

/// Slots used, sum of spans and shared array: ours (the store's plain magics, then each
/// packed table given) beside the published packed tables and the floor.
#[must_use]
pub fn usage_rows(store: &Store, files: &[(String, PackedTable, Fill)]) -> Vec<UsageRow> {
    let mut rows = Vec::new();
    for formula in Formula::ALL {
        let entries: Vec<&Entry> = store.entries_with(formula).collect();
        if !entries.is_empty() {
            let of = if entries.len() < 128 {
                format!(", {} of 128 squares", entries.len())
            } else {
                String::new()
            };
            rows.push(UsageRow {
                name: format!("ours, the store ({formula}, one magic per square{of})"),
                usage: Usage::of(entries),
                array: None,
            });
        }
    }
    for (name, t, f) in files {
        rows.push(UsageRow {
            name: format!("ours, {name}"),
            usage: Usage::of(t.entries.iter().map(|p| &p.entry)),
            array: Some(f.size),
        });
    }
    for formula in Formula::ALL {
        let (name, t) = published::best_packed(formula);
        rows.push(UsageRow {
            name: format!("{name} ({formula})"),
            usage: Usage::of(t.entries.iter().map(|p| &p.entry)),
            array: t.declared,
        });
    }
    rows.push(UsageRow {
        name: "floor: one slot per distinct attack set".into(),
        usage: Usage::floor(),
        array: None,
    });
    rows
}
