//! The JSON documents of `compare --json` and `show --json`: wire types apart from the text
//! renderings (as ripgrep keeps its `jsont.rs`), built from the same [`Report`] and
//! [`SquareReport`], so both give the same figures. Keys are stable within a
//! [`SCHEMA_VERSION`]; docs/format.md describes them.

use serde::Serialize;

use super::layouts::Size;
use super::{Evidence, Report, Row, SquareReport, Standing, Status, Totals};
use crate::layout::{Layout, Pattern};
use crate::magic::format_magic;
use crate::piece::Piece;
use crate::question::Question;
use crate::size::kib_number as kib;
use crate::store::Counting;
use crate::table::Entry;

/// The version of the documents' keys: a key is added within a version, never renamed or
/// removed; a change that would do either takes a new version.
pub const SCHEMA_VERSION: u32 = 1;

impl Status {
    /// The name of the status in the JSON documents: `proven`, `claimed`, `ahead`, `open`,
    /// `behind` or `missing`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Status::Optimal => "proven",
            Status::Claimed => "claimed",
            Status::Ahead => "ahead",
            Status::Level => "open",
            Status::Behind => "behind",
            Status::Missing => "missing",
        }
    }
}

impl Standing {
    /// The name of the standing in the JSON documents: `ahead`, `level`, `behind`, `missing`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Standing::Ahead => "ahead",
            Standing::Level => "level",
            Standing::Behind => "behind",
            Standing::Missing => "missing",
        }
    }
}

/// The header every document starts with.
#[derive(Serialize)]
struct Head {
    /// `magichunt-compare`, `magichunt-show`, ...
    schema: &'static str,
    version: u32,
    magichunt: &'static str,
}

impl Head {
    fn of(schema: &'static str) -> Head {
        Head {
            schema,
            version: SCHEMA_VERSION,
            magichunt: env!("CARGO_PKG_VERSION"),
        }
    }
}

/// Our magic on one square.
#[derive(Serialize)]
struct OursWire {
    bits: u32,
    magic: String,
    max_index: u32,
    /// Entries of its tight table, `max_index - min_index + 1`.
    span: u32,
    /// Distinct slots it writes.
    slots: u32,
    /// The candidate family that found it.
    family: Option<String>,
}

impl OursWire {
    fn of(e: &Entry) -> OursWire {
        OursWire {
            bits: e.bits,
            magic: format_magic(e.magic),
            max_index: e.max_index,
            span: e.span(),
            slots: Pattern::of(e).used(),
            family: e.method.as_ref().map(|m| m.family.clone()),
        }
    }
}

/// Their magic on one square (the record, against the published records).
#[derive(Serialize)]
struct TheirsWire {
    bits: u32,
    magic: String,
    max_index: u32,
    by: String,
}

/// Why the bits are optimal.
#[derive(Serialize)]
struct EvidenceWire {
    /// `lower_bound` or `proof`.
    kind: &'static str,
    /// The bits proven impossible (`proof`; null for `lower_bound`).
    none_at_bits: Option<u32>,
    /// `store` or `published` (`proof`).
    source: Option<&'static str>,
    method: Option<String>,
    counted: bool,
    provenance: Option<String>,
}

impl EvidenceWire {
    fn of(e: &Evidence) -> EvidenceWire {
        match e {
            Evidence::LowerBound => EvidenceWire {
                kind: "lower_bound",
                none_at_bits: None,
                source: None,
                method: None,
                counted: true,
                provenance: None,
            },
            Evidence::Proof {
                none,
                source,
                method,
                counted,
                provenance,
            } => EvidenceWire {
                kind: "proof",
                none_at_bits: Some(*none),
                source: Some(source.name()),
                method: method.clone(),
                counted: *counted,
                provenance: provenance.clone(),
            },
        }
    }
}

/// One square.
#[derive(Serialize)]
struct SquareWire {
    piece: String,
    square: String,
    status: &'static str,
    /// The mark of the text grids.
    mark: String,
    standing: &'static str,
    /// Ahead of a magic they have (against the published records: a new record).
    beats_theirs: bool,
    ours: Option<OursWire>,
    theirs: Option<TheirsWire>,
    proof: Option<EvidenceWire>,
}

impl SquareWire {
    fn of(r: &Row) -> SquareWire {
        SquareWire {
            piece: r.target.piece.to_string(),
            square: r.target.square.to_string(),
            status: r.status().name(),
            mark: r.mark().to_string(),
            standing: r.standing.name(),
            beats_theirs: r.beats_theirs(),
            ours: r.ours.as_ref().map(OursWire::of),
            theirs: r.theirs.as_ref().map(|(e, by)| TheirsWire {
                bits: e.bits,
                magic: format_magic(e.magic),
                max_index: e.max_index,
                by: by.clone(),
            }),
            proof: r.evidence.as_ref().map(EvidenceWire::of),
        }
    }
}

/// Squares of each status.
#[derive(Serialize, Default)]
struct StatusCounts {
    proven: usize,
    claimed: usize,
    ahead: usize,
    open: usize,
    behind: usize,
    missing: usize,
}

impl StatusCounts {
    fn of<'a>(rows: impl IntoIterator<Item = &'a Row>) -> StatusCounts {
        let mut c = StatusCounts::default();
        for r in rows {
            *match r.status() {
                Status::Optimal => &mut c.proven,
                Status::Claimed => &mut c.claimed,
                Status::Ahead => &mut c.ahead,
                Status::Level => &mut c.open,
                Status::Behind => &mut c.behind,
                Status::Missing => &mut c.missing,
            } += 1;
        }
        c
    }
}

/// The summary line of the text, and the counts by status.
#[derive(Serialize)]
struct Summary {
    ahead: usize,
    level: usize,
    behind: usize,
    missing: usize,
    /// Proven optimal (the count the text's summary gives).
    proven: usize,
    /// Optimal only by a claimed proof.
    claimed: usize,
    /// `checked` (proofs checked here or published) or `claimed` (`--count-claimed`).
    counting: &'static str,
    status: StatusCounts,
    rook: StatusCounts,
    bishop: StatusCounts,
}

/// A store proof with what this build checked of it.
#[derive(Serialize)]
struct ProofWire {
    piece: String,
    square: String,
    bits: u32,
    formula: &'static str,
    checked: bool,
    provenance: String,
}

/// Fancy totals of one side.
#[derive(Serialize)]
struct TotalsWire {
    squares: usize,
    entries: u64,
    kib: f64,
    tight: u64,
    tight_kib: f64,
}

impl TotalsWire {
    fn of(t: &Totals) -> TotalsWire {
        TotalsWire {
            squares: t.squares,
            entries: t.entries,
            kib: kib(t.entries),
            tight: t.tight,
            tight_kib: kib(t.tight),
        }
    }
}

/// One side of a layout row.
#[derive(Serialize)]
struct SizeWire {
    /// 8-byte entries, or (indexed) one-byte ids.
    entries: u64,
    /// KiB of the entries (8 bytes each; indexed: the bytes).
    kib: f64,
    /// The data of the C export: tables and magics.
    bytes: u64,
    squares: usize,
    how: String,
    /// The table's category: `per-square` or `fixed` (every rook at 12 bits, bishop at 9).
    shift: &'static str,
}

impl SizeWire {
    fn of(s: &Size, layout: Layout) -> SizeWire {
        SizeWire {
            entries: s.entries,
            kib: if layout == Layout::Indexed {
                crate::size::kib_bytes(s.bytes).parse().unwrap_or_default()
            } else {
                kib(s.entries)
            },
            bytes: s.bytes,
            squares: s.squares,
            how: s.how.clone(),
            shift: s.shift.name(),
        }
    }
}

/// One row of the sizes by layout.
#[derive(Serialize)]
struct LayoutWire {
    layout: &'static str,
    formula: &'static str,
    /// The row's lookup: `per-square` (fixed-shift tables count too) or `fixed`.
    shift: &'static str,
    ours: Option<SizeWire>,
    /// `null` when none is published (indexed).
    theirs: Option<SizeWire>,
    /// All 128 of ours, smaller in bytes than the smallest published of the row.
    record: bool,
}

/// One row of slots used, spans and shared arrays.
#[derive(Serialize)]
struct UsageWire {
    table: String,
    slots: u64,
    rook_slots: u64,
    bishop_slots: u64,
    spans: Option<u64>,
    array: Option<u64>,
    bytes: Option<u64>,
}

/// A finder of theirs.
#[derive(Serialize)]
struct FinderWire {
    finder: String,
    squares: usize,
}

/// The whole `compare --json` document.
#[derive(Serialize)]
struct CompareWire {
    #[serde(flatten)]
    head: Head,
    ours: String,
    theirs: String,
    against_published: bool,
    summary: Summary,
    totals: TotalsPair,
    squares: Vec<SquareWire>,
    proofs: Vec<ProofWire>,
    layouts: Vec<LayoutWire>,
    usage: Vec<UsageWire>,
    finders: Vec<FinderWire>,
}

/// Ours and theirs.
#[derive(Serialize)]
struct TotalsPair {
    ours: TotalsWire,
    theirs: TotalsWire,
}

fn question_wire(q: &Question, checked: bool, provenance: String) -> ProofWire {
    ProofWire {
        piece: q.target.piece.to_string(),
        square: q.target.square.to_string(),
        bits: q.bits,
        formula: q.formula.name(),
        checked,
        provenance,
    }
}

/// Renders `report` as the `compare --json` document (pretty, with a trailing newline).
#[must_use]
pub fn render(report: &Report) -> String {
    let piece = |p: Piece| StatusCounts::of(report.rows.iter().filter(|r| r.target.piece == p));
    let doc = CompareWire {
        head: Head::of("magichunt-compare"),
        ours: report.ours_name.clone(),
        theirs: report.theirs_name.clone(),
        against_published: report.against_published,
        summary: Summary {
            ahead: report.count(Standing::Ahead),
            level: report.count(Standing::Level),
            behind: report.count(Standing::Behind),
            missing: report.count(Standing::Missing),
            proven: report.optimal(),
            claimed: report.claimed(),
            counting: match report.counting {
                Counting::Checked => "checked",
                Counting::Claimed => "claimed",
            },
            status: StatusCounts::of(&report.rows),
            rook: piece(Piece::Rook),
            bishop: piece(Piece::Bishop),
        },
        totals: TotalsPair {
            ours: TotalsWire::of(&report.ours_totals()),
            theirs: TotalsWire::of(&report.theirs_totals()),
        },
        squares: report.rows.iter().map(SquareWire::of).collect(),
        proofs: report
            .proofs
            .iter()
            .map(|(q, p)| question_wire(q, p.is_checked(), p.describe()))
            .collect(),
        layouts: report
            .layouts
            .iter()
            .map(|r| LayoutWire {
                layout: r.layout.name(),
                formula: r.formula.name(),
                shift: r.shift.name(),
                ours: r.ours.as_ref().map(|s| SizeWire::of(s, r.layout)),
                theirs: r.theirs.as_ref().map(|s| SizeWire::of(s, r.layout)),
                record: r.record(),
            })
            .collect(),
        usage: report
            .usage
            .iter()
            .map(|u| UsageWire {
                table: u.name.clone(),
                slots: u.usage.total(),
                rook_slots: u.usage.slots[Piece::Rook as usize],
                bishop_slots: u.usage.slots[Piece::Bishop as usize],
                spans: u.usage.spans,
                array: u.array,
                bytes: u.bytes,
            })
            .collect(),
        finders: report
            .finders()
            .into_iter()
            .map(|(finder, squares)| FinderWire { finder, squares })
            .collect(),
    };
    pretty(&doc)
}

/// Pretty JSON with a trailing newline.
fn pretty(doc: &impl Serialize) -> String {
    let mut s = serde_json::to_string_pretty(doc).expect("a document serializes");
    s.push('\n');
    s
}

/// The whole `show --json` document.
#[derive(Serialize)]
struct ShowWire {
    #[serde(flatten)]
    head: Head,
    /// The keys of the square in the `compare --json` document.
    #[serde(flatten)]
    square: SquareWire,
    mask: String,
    mask_popcount: u32,
    subsets: usize,
    distinct_attacks: usize,
    lower_bound_bits: u32,
    published_none: Option<PublishedNone>,
    store: String,
    /// The verdict line of the text.
    verdict: String,
}

/// A published proof of none.
#[derive(Serialize)]
struct PublishedNone {
    bits: u32,
    source: String,
}

impl SquareReport {
    /// The `show --json` document (pretty, with a trailing newline): the square's figures,
    /// then the keys of its square in the `compare --json` document against the published
    /// records (status, ours, theirs, proof).
    #[must_use]
    pub fn to_json(&self) -> String {
        let doc = ShowWire {
            head: Head::of("magichunt-show"),
            square: SquareWire::of(&self.row),
            mask: format_magic(self.mask.0),
            mask_popcount: self.mask.count(),
            subsets: self.subsets,
            distinct_attacks: self.distinct_attacks,
            lower_bound_bits: self.lower_bound,
            published_none: self
                .published_none
                .as_ref()
                .map(|(bits, source)| PublishedNone {
                    bits: *bits,
                    source: source.clone(),
                }),
            store: self.store_name.clone(),
            verdict: self.verdict(),
        };
        pretty(&doc)
    }
}
