//! Comparing a store square by square with the published records or any other table:
//! who has fewer bits, which squares are proven optimal, and the fancy table totals of
//! both sides; then the table sizes by layout (fancy, tight, packed; plain and black) beside
//! the smallest published table of each ([`layouts`]). Every output (text, Markdown, the SVG
//! picture) shows a square by the one [`Row::status`].
//!
//! ```
//! use magichunt::compare::{render_svg, Report, Status, Theirs};
//! use magichunt::store::Store;
//! use magichunt::{shipped, Piece, Square};
//!
//! let report = Report::new(shipped::store(), shipped::NAME, &Theirs::published());
//! let h7 = report.row(Piece::Rook, "h7".parse::<Square>()?);
//! // 10 bits, and the store records that no 9-bit magic exists: an exhaustive search this
//! // build did not check (`magichunt audit` does), so it shows as claimed.
//! assert_eq!(h7.status(), Status::Claimed);
//! assert!(render_svg(&report).starts_with("<svg "));
//! // An empty store is missing everywhere.
//! let empty = Report::new(&Store::new(), "empty", &Theirs::published());
//! assert_eq!(empty.count_status(Piece::Bishop, Status::Missing), 64);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod json;
pub mod layouts;
mod markdown;
mod read;
mod square;
mod svg;
mod text;

use std::collections::BTreeMap;

use crate::piece::{Piece, Target};
use crate::published;
use crate::question::Question;
use crate::size::kib;
use crate::square::Square;
use crate::store::{Counting, Store};
use crate::table::{Entry, Provenance, Table};

pub use json::{render as render_json, SCHEMA_VERSION};
pub use layouts::{layout_rows, usage_rows, LayoutRow, OurFile, OurTable, Shift, UsageRow};
pub use markdown::render as render_markdown;
pub use read::{compare, show, CompareConfig, CompareError};
pub use square::{Evidence, ProofSource, SquareReport};
pub use svg::render as render_svg;
pub use text::render as render_text;

/// How our square stands against theirs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Standing {
    /// Fewer bits than theirs, or they have none.
    Ahead,
    /// The same bits.
    Level,
    /// More bits than theirs.
    Behind,
    /// We have no magic for the square.
    Missing,
}

/// The other side of a comparison: the best entry per square and who found it.
#[derive(Clone, Debug, PartialEq)]
pub struct Theirs {
    /// How to name them in output (`the published records`, a file path).
    pub name: String,
    /// Whether these are the shipped published records (ahead of them = a new record).
    pub published: bool,
    /// Best entry per target, with its finder.
    pub entries: BTreeMap<Target, (Entry, String)>,
}

impl Theirs {
    /// The best published bits per square (`results/published/records.json`).
    #[must_use]
    pub fn published() -> Theirs {
        let entries = Target::all()
            .filter_map(|t| {
                published::best(t).map(|e| (t, (e.clone(), published::finder(e).into())))
            })
            .collect();
        Theirs {
            name: "the published records".into(),
            published: true,
            entries,
        }
    }

    /// The best entry per square of any table (another store, a published table); entries
    /// without `found_by` are credited to `name`.
    #[must_use]
    pub fn from_table(table: &Table, name: &str) -> Theirs {
        let mut entries: BTreeMap<Target, (Entry, String)> = BTreeMap::new();
        for e in &table.entries {
            if entries
                .get(&e.target)
                .is_some_and(|(old, _)| old.rank() <= e.rank())
            {
                continue;
            }
            let finder = e.extra_str("found_by").unwrap_or(name).to_string();
            entries.insert(e.target, (e.clone(), finder));
        }
        Theirs {
            name: name.into(),
            published: false,
            entries,
        }
    }
}

/// One square of the comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Piece and square.
    pub target: Target,
    /// Our magic.
    pub ours: Option<Entry>,
    /// Their magic and its finder.
    pub theirs: Option<(Entry, String)>,
    /// How we stand.
    pub standing: Standing,
    /// Our bits are proven optimal: one above a proof of none (ours counted by the store's
    /// [`Counting`], or published), or at the square's lower bound
    /// `ceil(log2(distinct attack sets))`.
    pub optimal: bool,
    /// Our bits would be proven optimal by a proof the store records but that is not
    /// counted: only claimed, not checked here.
    pub claimed: bool,
    /// Why our bits are optimal ([`Row::optimal`]: counted) or would be ([`Row::claimed`]:
    /// a store proof not counted); `None` when neither.
    pub evidence: Option<Evidence>,
}

/// What a square shows, in the grids of the text and Markdown output and in the picture:
/// one rule ([`Row::status`]) for all of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Our bits are proven optimal (whatever theirs are).
    Optimal,
    /// Our bits would be proven optimal by a proof the store records but this build did not
    /// check: only claimed, not counted.
    Claimed,
    /// Fewer bits than theirs (or they have none), not proven optimal.
    Ahead,
    /// Their bits, not proven optimal: open.
    Level,
    /// More bits than theirs.
    Behind,
    /// We have no magic for the square.
    Missing,
}

impl Status {
    /// Every status, in the order of the legends.
    pub const ALL: [Status; 6] = [
        Status::Optimal,
        Status::Claimed,
        Status::Ahead,
        Status::Level,
        Status::Behind,
        Status::Missing,
    ];

    /// The mark of the grids: `*` proven optimal, `~` optimal by a proof only claimed, `+`
    /// ahead, `=` level, `-` behind, `?` missing.
    #[must_use]
    pub const fn mark(self) -> char {
        match self {
            Status::Optimal => '*',
            Status::Claimed => '~',
            Status::Ahead => '+',
            Status::Level => '=',
            Status::Behind => '-',
            Status::Missing => '?',
        }
    }
}

impl Row {
    /// The square's status: missing, else proven optimal, else how we stand.
    #[must_use]
    pub fn status(&self) -> Status {
        match self.standing {
            Standing::Missing => Status::Missing,
            _ if self.optimal => Status::Optimal,
            _ if self.claimed => Status::Claimed,
            Standing::Ahead => Status::Ahead,
            Standing::Level => Status::Level,
            Standing::Behind => Status::Behind,
        }
    }

    /// The mark of the grids ([`Status::mark`] of [`Row::status`]).
    #[must_use]
    pub fn mark(&self) -> char {
        self.status().mark()
    }

    /// Ahead of a magic they have: with the published records, a new record.
    #[must_use]
    pub fn beats_theirs(&self) -> bool {
        self.standing == Standing::Ahead && self.theirs.is_some()
    }
}

/// Fancy table totals of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Squares counted (of 128).
    pub squares: usize,
    /// Sum of `2^bits`.
    pub entries: u64,
    /// Sum of the tight tables (`max_index + 1` for plain magics).
    pub tight: u64,
}

impl Totals {
    /// Totals over `entries`.
    pub fn of<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Totals {
        entries.into_iter().fold(Totals::default(), |t, e| Totals {
            squares: t.squares + 1,
            entries: t.entries + (1u64 << e.bits),
            tight: t.tight + u64::from(e.span()),
        })
    }

    /// `N entries (K KiB)` at 2^bits.
    #[must_use]
    pub fn full_text(&self) -> String {
        format!("{} entries ({} KiB)", self.entries, kib(self.entries))
    }

    /// `N entries (K KiB)` tight.
    #[must_use]
    pub fn tight_text(&self) -> String {
        format!("{} entries ({} KiB)", self.tight, kib(self.tight))
    }
}

/// A whole comparison: 128 rows, rooks a1..h8 then bishops.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// How to name our side (the store path).
    pub ours_name: String,
    /// How to name their side.
    pub theirs_name: String,
    /// Whether their side is the published records.
    pub against_published: bool,
    /// One row per target.
    pub rows: Vec<Row>,
    /// Table sizes by layout and formula, ours beside the smallest published.
    pub layouts: Vec<LayoutRow>,
    /// Slots used, spans and shared arrays of our tables, the published packed ones and the
    /// floor.
    pub usage: Vec<UsageRow>,
    /// The store's own proofs of none, each with what this build checked of it.
    pub proofs: Vec<(Question, Provenance)>,
    /// Which proofs the count of proven squares takes.
    pub counting: Counting,
}

impl Report {
    /// Compares `ours` (named `ours_name`) with `theirs`.
    #[must_use]
    pub fn new(ours: &Store, ours_name: &str, theirs: &Theirs) -> Report {
        Report::with_packed(ours, ours_name, theirs, &[])
    }

    /// [`Report::new`] with packed and indexed tables of ours (named, already checked) that
    /// the layout sizes may take instead of the store's quick packing.
    #[must_use]
    pub fn with_packed(
        ours: &Store,
        ours_name: &str,
        theirs: &Theirs,
        packed: &[OurFile],
    ) -> Report {
        let rows = Target::all().map(|t| Row::of(ours, theirs, t)).collect();
        Report {
            ours_name: ours_name.into(),
            theirs_name: theirs.name.clone(),
            against_published: theirs.published,
            rows,
            layouts: layout_rows(ours, packed),
            usage: usage_rows(ours, packed),
            proofs: ours
                .proofs()
                .map(|p| (p.question(), ours.provenance(p)))
                .collect(),
            counting: ours.counting(),
        }
    }

    /// Squares with `standing`.
    #[must_use]
    pub fn count(&self, standing: Standing) -> usize {
        self.rows.iter().filter(|r| r.standing == standing).count()
    }

    /// Squares of `piece` with `status`.
    #[must_use]
    pub fn count_status(&self, piece: Piece, status: Status) -> usize {
        self.rows
            .iter()
            .filter(|r| r.target.piece == piece && r.status() == status)
            .count()
    }

    /// The row of `piece` on `square`.
    #[must_use]
    pub fn row(&self, piece: Piece, square: Square) -> &Row {
        let base = match piece {
            Piece::Rook => 0,
            Piece::Bishop => 64,
        };
        &self.rows[base + square.index()]
    }

    /// Squares whose bits are proven optimal.
    #[must_use]
    pub fn optimal(&self) -> usize {
        self.rows.iter().filter(|r| r.optimal).count()
    }

    /// Squares whose bits only a claimed proof (not checked here) would make optimal.
    #[must_use]
    pub fn claimed(&self) -> usize {
        self.rows.iter().filter(|r| r.claimed).count()
    }

    /// Our totals (over the squares we have).
    #[must_use]
    pub fn ours_totals(&self) -> Totals {
        Totals::of(self.rows.iter().filter_map(|r| r.ours.as_ref()))
    }

    /// Their totals (over the squares they have).
    #[must_use]
    pub fn theirs_totals(&self) -> Totals {
        Totals::of(
            self.rows
                .iter()
                .filter_map(|r| r.theirs.as_ref().map(|t| &t.0)),
        )
    }

    /// Squares where we beat a magic they have (new records against the published ones).
    pub fn ahead_of_theirs(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.beats_theirs())
    }

    /// Their finders with the number of squares each holds, most squares first.
    #[must_use]
    pub fn finders(&self) -> Vec<(String, usize)> {
        let mut by: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &self.rows {
            if let Some((_, f)) = &r.theirs {
                *by.entry(f.as_str()).or_default() += 1;
            }
        }
        let mut v: Vec<(String, usize)> = by.into_iter().map(|(f, n)| (f.to_string(), n)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v
    }

    /// The heading of the list of squares we beat.
    #[must_use]
    pub fn ahead_heading(&self) -> String {
        if self.against_published {
            "New records (fewer bits than every published magic)".into()
        } else {
            format!("Ahead of {}", self.theirs_name)
        }
    }
}

/// What the count of proven squares took, for the summaries: empty when it counts checked
/// proofs and nothing is only claimed.
fn counting_note(report: &Report) -> String {
    match report.counting {
        Counting::Claimed => {
            " (counting every proof the store records, checked here or only claimed: --count-claimed)"
                .into()
        }
        Counting::Checked if report.claimed() > 0 => format!(
            " (checked here or published); {} more by proofs only claimed (`magichunt audit` checks them; --count-claimed counts them)",
            report.claimed()
        ),
        Counting::Checked => String::new(),
    }
}

/// The command that checks a row's magic.
#[must_use]
pub fn verify_command(e: &Entry) -> String {
    format!(
        "magichunt verify --piece {} --square {} --bits {} --magic {}",
        e.target.piece,
        e.target.square,
        e.bits,
        crate::magic::format_magic(e.magic)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::magic::verify;
    use crate::{Piece, Square};

    fn entry(piece: Piece, sq: &str, bits: u32, magic: u64) -> Entry {
        let t = Target::new(piece, sq.parse::<Square>().unwrap());
        Entry::from_verified(&verify(t, bits, magic).unwrap(), None, None)
    }

    fn found(piece: Piece, sq: &str, bits: u32) -> Entry {
        let t = Target::new(piece, sq.parse::<Square>().unwrap());
        Entry::from_verified(&crate::search::find_magic(t, bits, 1).unwrap(), None, None)
    }

    #[test]
    fn standings_and_marks() {
        let mut ours = Store::new();
        // Published rook a8 is at 11 bits; a 12-bit a8 is behind, 11 bits on b1 is level.
        ours.offer(found(Piece::Rook, "a8", 12));
        ours.offer(entry(Piece::Bishop, "b1", 4, 0xfc0962854a77f576));
        let theirs = Theirs::published();
        let r = Report::new(&ours, "ours", &theirs);
        assert_eq!(r.count(Standing::Missing), 126);
        let a8 = &r.rows[56];
        assert_eq!(a8.target.to_string(), "rook a8");
        assert_eq!(a8.standing, Standing::Behind);
        assert_eq!(a8.mark(), '-');
        let b1 = &r.rows[64 + 1];
        assert_eq!(b1.standing, Standing::Level);
        assert_eq!(r.ahead_of_theirs().count(), 0);
        // Against a table where b1 takes 5 bits, ours is ahead: a row to print first.
        let weak = Table {
            entries: vec![found(Piece::Bishop, "b1", 5)],
            ..Table::default()
        };
        let r = Report::new(&ours, "ours", &Theirs::from_table(&weak, "weak.json"));
        let ahead: Vec<_> = r.ahead_of_theirs().collect();
        assert_eq!(ahead.len(), 1);
        assert_eq!(ahead[0].target.to_string(), "bishop b1");
        // a8 where they have nothing: ahead, but not a row that beats a magic of theirs.
        assert_eq!(r.rows[56].standing, Standing::Ahead);
        assert!(!r.rows[56].beats_theirs());
    }
}
